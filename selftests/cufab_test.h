/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by every cufab selftest.
 *
 * This is the base of the selftest headers: mem_helpers.h (memory through
 * libcufab) and cufab_uapi.h (raw ioctls) build on it. It includes no
 * cuda.h of its own, so selftests/abi/abi_official_test.c, built against
 * NVIDIA's cuda.h, can use it too: the CUresult macros below only expand
 * in a file that has some cuda.h. Include it before kselftest_harness.h or
 * after, the macros only need the harness where they are used.
 */
#ifndef _CUFAB_SELFTEST_H
#define _CUFAB_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define CUFAB_DEV		"/dev/cufab"
#define CUFAB_LIVE_OBJECTS	"/sys/kernel/debug/cufab/live_objects"
#define CUFAB_PARAMS		"/sys/module/cufab/parameters/"

/* CUresult is unsigned, its enumerators are int: compare as int. */
#define EXPECT_CU(expected, call)	EXPECT_EQ((int)(expected), (int)(call))
#define ASSERT_CU(expected, call)	ASSERT_EQ((int)(expected), (int)(call))

/* Skip without the module, else cuInit(0) must succeed. */
#define INIT_OR_SKIP() do {						\
	if (access(CUFAB_DEV, F_OK))					\
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");	\
	ASSERT_CU(CUDA_SUCCESS, cuInit(0));				\
} while (0)

/*
 * @fd = a new client of /dev/cufab; skip when the module is not loaded
 * (no device node), any other failure fails the test.
 */
#define OPEN_OR_SKIP(fd) do {						\
	int *__fdp = &(fd);						\
									\
	*__fdp = open(CUFAB_DEV, O_RDWR | O_CLOEXEC);			\
	if (*__fdp < 0 && errno == ENOENT)				\
		SKIP(return, "%s absent (cufab.ko not loaded)", CUFAB_DEV); \
	ASSERT_LE(0, *__fdp)						\
		TH_LOG("open %s: %s", CUFAB_DEV, strerror(errno));	\
} while (0)

/* The 6.1 harness runs a test body even when its setup skipped. */
#define SETUP_SKIPPED() do {						\
	if (_metadata->skip)						\
		return;							\
} while (0)

/* Kernel objects alive (all clients), or -1 without debugfs. */
static inline long long live_objects(void)
{
	long long v = -1;
	FILE *f = fopen(CUFAB_LIVE_OBJECTS, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Writes val to a file; 0 or -1. */
static inline int write_file(const char *path, const char *val)
{
	int fd, ok;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* Read a module parameter as an unsigned number (Y/N as 1/0), -1 if none. */
static inline long cufab_param(const char *name)
{
	char path[256], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), CUFAB_PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return strtol(buf, NULL, 0);
}

/* Write a module parameter; 0 or -1. */
static inline int cufab_param_set(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), CUFAB_PARAMS "%s", name);
	return write_file(path, val);
}

/*
 * Reap child @pid: its exit status, 0x100 | signal when a signal killed it
 * (never mistaken for an exit status), -1 when waitpid() fails.
 */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 0x100 | (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/*
 * In a forked child, where the harness's ASSERTs do not reach the parent:
 * report the failed condition with errno and exit 1.
 */
#define CHILD_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "# child %d: line %d: %s failed (%s)\n",	\
			getpid(), __LINE__, #cond, strerror(errno));	\
		_exit(1);						\
	}								\
} while (0)

/* Send @len bytes on a unix socket and, when @fd >= 0, @fd (SCM_RIGHTS). */
static inline int sock_send(int sock, const void *buf, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, 0) == (ssize_t)len ? 0 : -1;
}

/* Receive @len bytes and, when @fd, the fd that came with them or -1. */
static inline int sock_recv(int sock, void *buf, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)len)
		return -1;
	if (fd) {
		*fd = -1;
		c = CMSG_FIRSTHDR(&msg);
		if (c && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	}
	return 0;
}

/*
 * Fault injection by count: writing n to this task's fail-nth makes the
 * n-th injection point the task passes fail, whatever its fault_attr.
 * The suites replay a scenario with n = 1, 2, 3 ... until it passes fewer
 * than n points, so that every point on its way fails once.
 */
static inline int fail_nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Make the @n-th injection point from now on fail; 0 or -1. */
static inline int fail_nth_arm(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return write(fd, buf, len) == len ? 0 : -1;
}

/*
 * Stop injecting, before anything but the scenario runs. 1 when the fault
 * was not injected (fewer than n points: all of them were covered), 0
 * when it was, -1 when fail-nth cannot be read or reset.
 */
static inline int fail_nth_disarm(int fd)
{
	char buf[16];
	ssize_t r;

	r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (write(fd, "0", 1) != 1 || r <= 0)
		return -1;
	buf[r] = '\0';
	return atoi(buf) != 0;
}

/* live_objects settles asynchronously after a process dies (fput). */
static inline long long live_objects_wait(long long want)
{
	long long v = live_objects();
	int i;

	for (i = 0; i < 200 && v != want; i++) {
		usleep(10000);
		v = live_objects();
	}
	return v;
}

/*
 * The fail-nth loop of every suite: evaluate @call (an expression giving 0
 * or an error code) with the n-th injection point failing, n = 1, 2, ...
 * until it passes fewer than n points, when it must succeed. An injected
 * failure surfaces as @oom (ENOMEM, or CUDA_ERROR_OUT_OF_MEMORY through
 * the library) or not at all, and leaves live_objects() at @live. The
 * faults injected and those that surfaced are added to @injected and
 * @failed. Use inside a kselftest_harness test.
 */
#define FAIL_NTH_LOOP(call, oom, live, injected, failed)			\
	do {									\
		int __fnfd = fail_nth_open(), __fndone = 0;			\
		long long __fnerr;						\
		unsigned int __fnn;						\
										\
		ASSERT_LE(0, __fnfd) TH_LOG("fail-nth: %s", strerror(errno));	\
		for (__fnn = 1; __fnn < 10000 && !__fndone; __fnn++) {		\
			ASSERT_EQ(0, fail_nth_arm(__fnfd, __fnn));		\
			__fnerr = (call);					\
			__fndone = fail_nth_disarm(__fnfd);			\
			ASSERT_LE(0, __fndone);					\
			if (__fndone) {						\
				ASSERT_EQ(0, __fnerr);				\
				break;						\
			}							\
			(injected)++;						\
			if (__fnerr) {						\
				(failed)++;					\
				EXPECT_EQ((long long)(oom), __fnerr)		\
					TH_LOG("fault %u", __fnn);		\
			}							\
			ASSERT_EQ((live), live_objects_wait(live))		\
				TH_LOG("fault %u leaked objects", __fnn);	\
		}								\
		close(__fnfd);							\
		ASSERT_TRUE(__fndone);						\
		TH_LOG("%u faults injected, %u surfaced as errors",		\
		       (injected), (failed));					\
	} while (0)

#endif /* _CUFAB_SELFTEST_H */
