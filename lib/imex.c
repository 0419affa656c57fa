// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The process's IMEX channel, presented to the kernel before the first
 * FABRIC create, export or import (CUFAB_IOCTL_IMEX_SET_CHANNEL).
 *
 * Which channel: env CUFAB_IMEX_CHANNEL, either a number N
 * (/dev/cufab-imex-channels/channelN) or a path; by default the
 * lowest-numbered channelN of /dev/cufab-imex-channels this process can
 * open. Access control is the node's permissions, as with NVIDIA's
 * nvidia-caps-imex-channels. The kernel records the channel's minor, so
 * the fd is closed right after.
 *
 * When no channel can be opened the client stays without one, the kernel
 * refuses FABRIC with -EPERM (CUDA_ERROR_NOT_PERMITTED), and one line per
 * process says which node and which rule. Done once per client: a forked
 * child opens its own client in cuInit and tries again.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem.h"

#define IMEX_DIR	"/dev/cufab-imex-channels"
#define IMEX_ENV	"CUFAB_IMEX_CHANNEL"

static pthread_mutex_t imex_lock = PTHREAD_MUTEX_INITIALIZER;
/* cufab.pid of the client that has been through imex_setup(), or 0. */
static pid_t imex_done_pid;

/* N of "channelN", or -1. */
static long channel_number(const char *name)
{
	const char *p = name + strlen("channel");
	char *end;
	long n;

	if (strncmp(name, "channel", strlen("channel")) || !isdigit(*p))
		return -1;
	errno = 0;
	n = strtol(p, &end, 10);
	return *end || errno ? -1 : n;
}

/* The lowest-numbered channel node this process can open, or -1. */
static int open_lowest_channel(int *err)
{
	long best = LONG_MAX, n;
	char path[PATH_MAX];
	struct dirent *de;
	int fd = -1;
	DIR *dir;

	*err = ENOENT;
	/* Try in number order: retry past nodes we may not open. */
	for (;;) {
		long next = LONG_MAX;

		dir = opendir(IMEX_DIR);
		if (!dir) {
			*err = errno;
			return -1;
		}
		while ((de = readdir(dir))) {
			n = channel_number(de->d_name);
			if (n >= 0 && n < next && (best == LONG_MAX || n > best))
				next = n;
		}
		closedir(dir);
		if (next == LONG_MAX)
			return -1;
		best = next;
		snprintf(path, sizeof(path), IMEX_DIR "/channel%ld", best);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		*err = errno;
	}
}

static int open_channel(const char *env, char *what, size_t len, int *err)
{
	char path[PATH_MAX];
	int fd;

	if (!env || !*env) {
		snprintf(what, len, "no openable %s/channelN", IMEX_DIR);
		return open_lowest_channel(err);
	}
	if (strspn(env, "0123456789") == strlen(env))
		snprintf(path, sizeof(path), IMEX_DIR "/channel%s", env);
	else
		snprintf(path, sizeof(path), "%s", env);
	snprintf(what, len, "%s (from %s)", path, IMEX_ENV);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	*err = fd < 0 ? errno : 0;
	return fd;
}

static void imex_setup(void)
{
	struct cufab_imex_set_channel arg = { .size = sizeof(arg) };
	char what[PATH_MAX + 64];
	int fd, err, ret;

	fd = open_channel(getenv(IMEX_ENV), what, sizeof(what), &err);
	if (fd < 0) {
		cufab_log("no IMEX channel (%s: %s): FABRIC needs a node %s/channelN this process can open, the same in exporter and importer; load cufab with create_imex_channel0=1 or make one with cufab-imex-channels (Documentation/admin-guide.rst, \"IMEX channels\")",
			  what, strerror(err), IMEX_DIR);
		return;
	}
	arg.fd = fd;
	ret = cufab_ioctl(CUFAB_IOCTL_IMEX_SET_CHANNEL, &arg);
	close(fd);
	if (ret)
		cufab_log("IMEX channel %s refused: %s (not a node of the cufab-imex-channels char device?)",
			  what, strerror(-ret));
	else
		cufab_dbg("IMEX channel %u", arg.out_channel);
}

void cufab_imex_prepare(void)
{
	pid_t pid = cufab.pid;

	if (__atomic_load_n(&imex_done_pid, __ATOMIC_ACQUIRE) == pid)
		return;
	pthread_mutex_lock(&imex_lock);
	if (imex_done_pid != pid) {
		imex_setup();
		__atomic_store_n(&imex_done_pid, pid, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&imex_lock);
}
