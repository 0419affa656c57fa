/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two processes in steps, for the IPC suites (ipc_mem_test, ipc_event_test):
 * the test forks a peer joined by two pipes, sends it a handle, and each
 * side goes on when the other's one-byte step arrives.
 */
#ifndef _CUFAB_IPC_HELPERS_H
#define _CUFAB_IPC_HELPERS_H

#include <sys/types.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"

/* One byte over a pipe: the other process may go on. */
static inline int step_send(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

/* The other process's next step, 0 when it is gone. */
static inline char step_recv(int fd)
{
	char c = 0;

	return read(fd, &c, 1) == 1 ? c : 0;
}

/**
 * struct peer - a forked peer process, as the test sees it
 * @pid: its pid
 * @rd: what the peer writes (its @wr)
 * @wr: what the peer reads (its @rd)
 */
struct peer {
	pid_t pid;
	int rd, wr;
};

/*
 * Fork a peer that runs @fn(rd, wr) and exits with its return value (0,
 * or the number of the step that failed); 0 or -1. Each side closes the
 * other's ends, so that a peer that dies is a read of 0, never a hang.
 */
static inline int peer_start(struct peer *p, int (*fn)(int rd, int wr))
{
	int to_peer[2], to_test[2];

	if (pipe(to_peer))
		return -1;
	if (pipe(to_test)) {
		close(to_peer[0]);
		close(to_peer[1]);
		return -1;
	}
	p->pid = fork();
	if (!p->pid) {
		close(to_peer[1]);
		close(to_test[0]);
		_exit(fn(to_peer[0], to_test[1]));
	}
	close(to_peer[0]);
	close(to_test[1]);
	p->rd = to_test[0];
	p->wr = to_peer[1];
	if (p->pid < 0) {
		close(p->rd);
		close(p->wr);
		return -1;
	}
	return 0;
}

/*
 * The start of an importing peer: the handle the test sends (@len bytes
 * into @h), then cuInit and a context, on another GPU than the exporter's
 * when there is one. 0, 1 when no handle came, 2 without a context.
 */
static inline int peer_import_start(int rd, void *h, size_t len,
				    CUcontext *ctx)
{
	int n;

	if (read(rd, h, len) != (ssize_t)len)
		return 1;
	if (cuInit(0) || cuDeviceGetCount(&n) ||
	    cuCtxCreate(ctx, NULL, 0, n > 1))
		return 2;
	return 0;
}

/* Send the peer @len bytes (a handle); 0 or -1. */
static inline int peer_send(const struct peer *p, const void *buf, size_t len)
{
	return write(p->wr, buf, len) == (ssize_t)len ? 0 : -1;
}

/* Reap the peer: its exit status as wait_child() gives it. */
static inline int peer_end(struct peer *p)
{
	close(p->rd);
	close(p->wr);
	return wait_child(p->pid);
}

#endif /* _CUFAB_IPC_HELPERS_H */
