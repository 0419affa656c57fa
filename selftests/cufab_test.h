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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* Writes @val to the file @dir/@name; 0 or -1. */
static inline int cg_write(const char *dir, const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return write_file(path, val);
}

/*
 * A child cgroup /sys/fs/cgroup/@name_PID with the memory controller and a
 * 16 MiB limit (cgroup v2, mounted here if the system has not); 0 or -1.
 */
static inline int cg_make(char *dir, size_t len, const char *name)
{
	const char *root = "/sys/fs/cgroup";
	char path[256];

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (access(path, F_OK) && mount("cgroup2", root, "cgroup2", 0, NULL))
		return -1;
	if (cg_write(root, "cgroup.subtree_control", "+memory"))
		return -1;
	snprintf(dir, len, "%s/%s_%d", root, name, getpid());
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	return cg_write(dir, "memory.max", "16M");
}

/* Moves the calling process into the cgroup @dir; 0 or -1. */
static inline int cg_join(const char *dir)
{
	char me[32];

	snprintf(me, sizeof(me), "%d", getpid());
	return cg_write(dir, "cgroup.procs", me);
}

/*
 * A child that fills its memory cgroup to the limit on purpose is
 * OOM-killed by its next charge (a stack page, a page table, a kernel
 * object of its next call): memcg doing its job, not what a test checks,
 * and a matter of timing. So the child stops at a gate once the operation
 * under test is over, and the parent lifts the limit before it lets the
 * child go on. The gate is a shared page the child writes before the fill
 * (cg_gate_arm()), and it waits with sched_yield(), also called before:
 * waiting at the gate charges nothing.
 */
static inline volatile int *cg_gate_make(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	*(volatile int *)p = 0;
	return p;
}

/* In the child, before the fill: what the wait touches is in place. */
static inline void cg_gate_arm(volatile int *gate)
{
	*gate = 0;
	sched_yield();
}

/* In the child, after the fill: wait until the limit is lifted. */
static inline void cg_gate_wait(volatile int *gate)
{
	*gate = 1;
	while (*gate != 2)
		sched_yield();
}

/*
 * In the parent: once child @pid waits at @gate (or has ended), lift the
 * limit of @dir and let the child go on. The caller sets the limit again
 * before its next child.
 */
static inline void cg_gate_open(volatile int *gate, const char *dir, pid_t pid)
{
	siginfo_t si;

	while (*gate != 1) {
		si.si_pid = 0;
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid)
			return;
		usleep(1000);
	}
	cg_write(dir, "memory.max", "max");
	*gate = 2;
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

/* Write a numeric module parameter; 0 or -1. */
static inline int cufab_param_set_u(const char *name, unsigned int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", v);
	return cufab_param_set(name, buf);
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
 * A process killed with work in flight: @setup runs in a child, which
 * then waits; once it returned 0 the child gets SIGKILL. Returns
 * wait_child()'s status (0x100 | SIGKILL when all went so), or -1 when
 * the child never got ready.
 */
static inline int kill_when_ready(int (*setup)(void))
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (setup() || write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) == 1)
		kill(pid, SIGKILL);
	close(ready[0]);
	return wait_child(pid);
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

/* The uid and gid of "nobody", for the unprivileged cases. */
#define NOBODY			65534

/* In a forked child of a root test: drop every group and become nobody. */
static inline void become_nobody(void)
{
	CHILD_CHECK(setgroups(0, NULL) == 0);
	CHILD_CHECK(setresgid(NOBODY, NOBODY, NOBODY) == 0);
	CHILD_CHECK(setresuid(NOBODY, NOBODY, NOBODY) == 0);
}

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
 * Fault injection knobs, the one way every suite sets them.
 *
 * @attr names a fault_attr directory: one of cufab's (fail_mem_create,
 * under CUFAB_DEBUGFS), else the kernel's (failslab, fail_page_alloc,
 * under KERNEL_DEBUGFS); an absolute path (/proc/self/make-it-fail) is a
 * file of its own and @file is NULL. The first value a file had before
 * this process wrote it is kept, and fault_restore() puts every one back,
 * last written first, so a suite leaves the knobs as it found them.
 */
#define KERNEL_DEBUGFS		"/sys/kernel/debug"
#define CUFAB_DEBUGFS		KERNEL_DEBUGFS "/cufab"

struct fault_saved {
	char path[160];
	char val[64];
};

static struct fault_saved fault_saved[48];
static unsigned int fault_nsaved;

static inline void fault_path(char *path, size_t len, const char *attr,
			      const char *file)
{
	if (attr[0] == '/') {
		snprintf(path, len, "%s", attr);
		return;
	}
	snprintf(path, len, CUFAB_DEBUGFS "/%s", attr);
	if (access(path, F_OK))
		snprintf(path, len, KERNEL_DEBUGFS "/%s", attr);
	if (file)
		snprintf(path + strlen(path), len - strlen(path), "/%s", file);
}

static inline void fault_save(const char *path)
{
	struct fault_saved *s;
	unsigned int i;
	ssize_t n;
	int fd;

	for (i = 0; i < fault_nsaved; i++)
		if (!strcmp(fault_saved[i].path, path))
			return;
	if (fault_nsaved == sizeof(fault_saved) / sizeof(fault_saved[0]))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	s = &fault_saved[fault_nsaved];
	n = read(fd, s->val, sizeof(s->val) - 1);
	close(fd);
	if (n <= 0)
		return;
	s->val[n] = '\0';
	snprintf(s->path, sizeof(s->path), "%s", path);
	fault_nsaved++;
}

/* Set @file of fault_attr @attr to @val; 0, or -1 when it is absent. */
static inline int fault_knob(const char *attr, const char *file,
			     const char *val)
{
	char path[160];

	fault_path(path, sizeof(path), attr, file);
	fault_save(path);
	return write_file(path, val);
}

/* Put back every knob fault_knob() changed, last written first. */
static inline void fault_restore(void)
{
	while (fault_nsaved) {
		fault_nsaved--;
		write_file(fault_saved[fault_nsaved].path,
			   fault_saved[fault_nsaved].val);
	}
}

/*
 * Make the next @times passes of @attr's injection point fail, for this
 * task only (task-filter + make-it-fail), quietly, once passes asking for
 * @space bytes in all went through; @times 0 disarms it. 0, or -1 when
 * the kernel has no such knob (no fault injection).
 */
static inline int fault_arm_after(const char *attr, unsigned int times,
				  unsigned long space)
{
	static const char *const files[][2] = {
		{ "verbose", "0" }, { "interval", "1" },
		{ "task-filter", "Y" },
	};
	char val[24];
	unsigned int i;

	if (!times)
		return fault_knob(attr, "probability", "0");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (fault_knob(attr, files[i][0], files[i][1]))
			return -1;
	snprintf(val, sizeof(val), "%lu", space);
	if (fault_knob(attr, "space", val))
		return -1;
	snprintf(val, sizeof(val), "%u", times);
	if (fault_knob(attr, "times", val) ||
	    fault_knob("/proc/self/make-it-fail", NULL, "1"))
		return -1;
	/* last: arms the point */
	return fault_knob(attr, "probability", "100");
}

/* fault_arm_after() from the next pass on. */
static inline int fault_arm(const char *attr, unsigned int times)
{
	return fault_arm_after(attr, times, 0);
}

/*
 * For fail-nth: allocations made with GFP_KERNEL count too, and no
 * injection point prints a stack dump (each of cufab's and the kernel's).
 */
static inline void fault_quiet(void)
{
	struct dirent *d;
	DIR *dir;

	fault_knob("failslab", "ignore-gfp-wait", "N");
	fault_knob("failslab", "verbose", "0");
	fault_knob("fail_page_alloc", "verbose", "0");
	dir = opendir(CUFAB_DEBUGFS);
	while (dir && (d = readdir(dir))) {
		if (!strncmp(d->d_name, "fail_", 5))
			fault_knob(d->d_name, "verbose", "0");
	}
	if (dir)
		closedir(dir);
}

/*
 * Fault injection by count: writing n to this task's fail-nth makes the
 * n-th injection point the task passes fail, whatever its fault_attr.
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

/**
 * struct fail_nth - one fail-nth sweep, as its scenario sees it
 * @oom: what an injected failure returns when it surfaces: ENOMEM for
 *	 raw ioctls (the default), CUDA_ERROR_OUT_OF_MEMORY through the
 *	 library; the scenario sets it
 * @min_injected: the sweep must inject at least this many faults
 * @min_failed: and at least this many must surface as errors
 * @n: the injection point that fails in this run (0: the warm-up run)
 * @injected: faults injected so far
 * @failed: of those, the ones the scenario returned
 * @live: live_objects() before the sweep, where every run must leave it
 */
struct fail_nth {
	long long oom;
	unsigned int min_injected, min_failed;
	unsigned int n, injected, failed;
	long long live;
};

/*
 * TEST_FAIL_NTH(fixture, name) { scenario }: a test of @fixture that
 * sweeps fail-nth over the scenario, a function body that returns 0 or
 * the first error it met and always undoes what it did. It sees
 * _metadata, self, variant and nth (struct fail_nth, where it sets @oom
 * and the minimums). The scenario runs once without faults (warm-up:
 * pages in, symbols bound; it may SKIP here), then with the n-th
 * injection point failing, n = 1, 2, ... until it passes fewer than n
 * points, when it must return 0. Every run with a fault injected returns
 * 0 (the fault was absorbed) or nth->oom, and leaves live_objects() where
 * it was; the VM runner catches KASAN, lockdep and WARN splats on the
 * unwind paths, which is what the sweep is really after.
 */
#define TEST_FAIL_NTH(fixture, name)						\
	static int fail_nth_##fixture##_##name(					\
		struct __test_metadata *_metadata,				\
		FIXTURE_DATA(fixture) *self,					\
		const FIXTURE_VARIANT(fixture) *variant,			\
		struct fail_nth *nth);						\
	TEST_F_TIMEOUT(fixture, name, 900)					\
	{									\
		struct fail_nth __nth = { .oom = ENOMEM };			\
		long long __err;						\
		int __fd, __done = 0;						\
										\
		SETUP_SKIPPED();						\
		__fd = fail_nth_open();						\
		if (__fd < 0)							\
			SKIP(return, "no fail-nth: %s", strerror(errno));	\
		if (access(CUFAB_DEBUGFS "/fail_object_alloc", F_OK))		\
			SKIP(return, "no fault injection in cufab.ko");	\
		__nth.live = live_objects();					\
		ASSERT_LE(0, __nth.live);					\
		__err = fail_nth_##fixture##_##name(_metadata, self, variant,	\
						    &__nth);			\
		if (_metadata->skip)						\
			return;							\
		ASSERT_EQ(0, __err) TH_LOG("warm-up run failed");		\
		ASSERT_EQ(__nth.live, live_objects_wait(__nth.live));		\
		fault_quiet();							\
		for (__nth.n = 1; __nth.n < 10000; __nth.n++) {			\
			ASSERT_EQ(0, fail_nth_arm(__fd, __nth.n));		\
			__err = fail_nth_##fixture##_##name(_metadata, self,	\
							    variant, &__nth);	\
			__done = fail_nth_disarm(__fd);				\
			ASSERT_LE(0, __done);					\
			ASSERT_FALSE(_metadata->skip)				\
				TH_LOG("fault %u: a scenario skips in its warm-up only", \
				       __nth.n);				\
			if (__done) {						\
				ASSERT_EQ(0, __err);				\
				break;						\
			}							\
			__nth.injected++;					\
			if (__err) {						\
				__nth.failed++;					\
				EXPECT_EQ(__nth.oom, __err)			\
					TH_LOG("fault %u", __nth.n);		\
			}							\
			ASSERT_EQ(__nth.live, live_objects_wait(__nth.live))	\
				TH_LOG("fault %u leaked objects", __nth.n);	\
		}								\
		close(__fd);							\
		fault_restore();						\
		ASSERT_TRUE(__done);						\
		TH_LOG("%u faults injected, %u surfaced as errors",		\
		       __nth.injected, __nth.failed);				\
		EXPECT_LE(__nth.min_injected, __nth.injected);			\
		EXPECT_LE(__nth.min_failed, __nth.failed);			\
	}									\
	static int fail_nth_##fixture##_##name(					\
		struct __test_metadata *_metadata,				\
		FIXTURE_DATA(fixture) *self,					\
		const FIXTURE_VARIANT(fixture) *variant,			\
		struct fail_nth *nth)

#endif /* _CUFAB_SELFTEST_H */
