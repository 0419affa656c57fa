// SPDX-License-Identifier: GPL-2.0
/*
 * The daemons' handshake (tools/imexd/auth.c), on the host: two daemons
 * of one process, node 0 connecting to node 1 over 127.0.0.1, node 1
 * accepting in a child process (its side of the handshake blocks). The
 * real peer.c and auth.c; the kernel's side is absent (nothing here
 * reaches it). make check runs it as "static imexd-handshake". KTAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../imexd.h"

static char logbuf[4096];

void imexd_log(const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logbuf + n, sizeof(logbuf) - n, fmt, ap);
	va_end(ap);
	n = strlen(logbuf);
	if (n + 1 < sizeof(logbuf))
		strcpy(logbuf + n, "\n");
}

/* The kernel is not part of the handshake: nothing below may be called. */
int kernel_resolved(uint64_t req_id, const struct imexd_resolved *r)
{
	return 0;
}

int kernel_node_down(int node)
{
	return 0;
}

int kernel_export_get(const uint8_t *handle, uint32_t channel, int node,
		      struct imexd_resolved *r)
{
	return -EOPNOTSUPP;
}

int kernel_export_put(int node, uint64_t token)
{
	return -EOPNOTSUPP;
}

int kernel_revoke(int node)
{
	return -EOPNOTSUPP;
}

void kernel_drain(struct imexd *d)
{
}

int kernel_team(uint16_t type, int node, const void *rec, uint32_t len)
{
	return -EOPNOTSUPP;
}

static int failed, tests;

static void result(bool ok, const char *what)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++tests, what);
	if (!ok) {
		failed = 1;
		printf("# log:\n");
		fputs(logbuf, stdout);
	}
}

static char dir[64];

/* A key file of @len bytes of @fill, mode @mode. */
static const char *key_file(const char *name, int fill, size_t len, mode_t mode)
{
	unsigned char key[64];
	char *p;
	int fd;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		exit(1);
	memset(key, fill, sizeof(key));
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, key, len) != (ssize_t)len || fchmod(fd, mode)) {
		perror(p);
		exit(1);
	}
	close(fd);
	return p;
}

static void init(struct imexd *d, int me, uint64_t instance)
{
	memset(d, 0, sizeof(*d));
	d->me = me;
	d->nodes = 2;
	d->instance = instance;
	d->grace = -1;
	snprintf(d->peers[0].addr, sizeof(d->peers[0].addr), "127.0.0.1");
	snprintf(d->peers[1].addr, sizeof(d->peers[1].addr), "127.0.0.1");
	peer_init(d);
}

static int listener(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&sa, &len)) {
		perror("listen");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Bit 0: node 0 saw node 1 up; bit 1: node 1 saw node 0 up; bits 2, 3:
 * node 0's, node 1's log names the failure.
 */
static int handshake(const char *key0, const char *key1)
{
	static struct imexd d0, d1;
	struct pollfd pfd;
	struct peer *p = &d0.peers[1];
	int lfd, port, status, i, out = 0;
	pid_t child;

	init(&d0, 0, 0x1111);
	init(&d1, 1, 0x2222);
	logbuf[0] = '\0';
	if ((key0 && auth_load_key(&d0.auth, key0)) ||
	    (key1 && auth_load_key(&d1.auth, key1)))
		return -1;
	lfd = listener(&port);
	d0.port = port;
	d1.lfd = lfd;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		peer_accept(&d1);
		/* the connector's answer to a failure is its close: wait */
		usleep(100000);
		_exit((d1.peers[0].state == PEER_UP ? 1 : 0) |
		      (strstr(logbuf, "node 0 at 127.0.0.1: authentication failed") ? 2 : 0));
	}
	close(lfd);
	peer_tick(&d0, time(NULL));
	for (i = 0; i < 100 && p->fd >= 0 && p->state != PEER_UP; i++) {
		pfd = (struct pollfd){ .fd = p->fd, .events =
			p->state == PEER_CONNECTING ? POLLOUT : POLLIN };
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (p->state == PEER_CONNECTING)
			peer_writable(&d0, p);
		else
			peer_readable(&d0, p->fd);
	}
	if (p->state == PEER_UP)
		out |= 1;
	if (strstr(logbuf, "node 1 at 127.0.0.1: authentication failed"))
		out |= 4;
	if (p->fd >= 0)
		close(p->fd);
	waitpid(child, &status, 0);
	if (WIFEXITED(status))
		out |= (WEXITSTATUS(status) & 1) << 1 | (WEXITSTATUS(status) & 2) << 2;
	return out;
}

int main(void)
{
	struct imexd_auth a = { 0 };
	const char *k1, *k2;
	int r;

	snprintf(dir, sizeof(dir), "/tmp/imexd-handshake-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	k1 = key_file("k1", 0x5a, IMEXD_KEY_LEN, 0400);
	k2 = key_file("k2", 0xa5, IMEXD_KEY_LEN, 0600);
	printf("TAP version 13\n1..8\n");

	result(auth_load_key(&a, key_file("group", 1, IMEXD_KEY_LEN, 0440)) &&
	       auth_load_key(&a, key_file("other", 1, IMEXD_KEY_LEN, 0604)) &&
	       !a.keyed, "a key file group or others may read is refused");
	result(auth_load_key(&a, key_file("short", 1, IMEXD_KEY_LEN - 1, 0400)) &&
	       auth_load_key(&a, key_file("long", 1, IMEXD_KEY_LEN + 1, 0400)) &&
	       !a.keyed, "a key file of other than 32 bytes is refused");

	r = handshake(k1, k1);
	result(r == 3, "the same key: both nodes see each other up");
	r = handshake(k1, k2);
	result(r == 12, "different keys: both refuse, both log the peer's address and index");
	r = handshake(NULL, NULL);
	result(r == 3, "no key on either node: trusted, both up");
	r = handshake(NULL, k1);
	/* the node without a key trusts, until the other closes */
	result(!(r & 2) && (r & 8),
	       "the accepting node has a key, the connecting one none: refused");
	r = handshake(k1, NULL);
	result((r & 3) == 0 && (r & 4),
	       "the connecting node has a key, the accepting one none: refused");
	r = handshake(k2, k2);
	result(r == 3, "the same key again (mode 0600): both up");

	unlink(k1);
	unlink(k2);
	for (r = 0; r < 4; r++) {
		static const char *const n[] = { "group", "other", "short", "long" };
		char p[256];

		snprintf(p, sizeof(p), "%s/%s", dir, n[r]);
		unlink(p);
	}
	rmdir(dir);
	printf("# %s\n", failed ? "FAIL" : "PASS");
	return failed;
}
