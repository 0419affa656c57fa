// SPDX-License-Identifier: GPL-2.0
/*
 * Clients of /dev/cufab: an open file belongs to the process that opened
 * it, everything it holds is freed when the last reference goes (close,
 * exit, SIGKILL), many clients and threads work at once, and an
 * unprivileged user can use the device.
 *
 * Leak checks read /sys/kernel/debug/cufab/live_objects (objects of all
 * clients): after a process is gone it must be back to the value it had
 * before the process started, and its client must have left
 * /sys/kernel/debug/cufab/clients. Without /dev/cufab every test is skipped;
 * without debugfs the leak checks are.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/cufab.h>

#include "cufab_uapi.h"
#include "kselftest_harness.h"

#define CLIENTS		"/sys/kernel/debug/cufab/clients"

static int noop(int fd)
{
	struct cufab_noop cmd = { .size = sizeof(cmd) };

	return cufab_ioc(fd, CUFAB_IOCTL_NOOP, &cmd);
}

static int get_version(int fd, __u32 *num_gpus)
{
	struct cufab_get_version cmd = { .size = sizeof(cmd) };
	int ret = cufab_ioc(fd, CUFAB_IOCTL_GET_VERSION, &cmd);

	if (!ret && num_gpus)
		*num_gpus = cmd.num_gpus;
	return ret;
}

/*
 * Release of a dying process's files completes before it is reaped, but
 * allow for a delayed final fput anyway: poll for up to 5 s.
 */
static __s64 wait_live(__s64 want)
{
	struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	__s64 v = live_objects();
	int i;

	for (i = 0; i < 250 && v != want; i++) {
		nanosleep(&ts, NULL);
		v = live_objects();
	}
	return v;
}

static int count_lines_with_pid(const char *path, pid_t *pids, int n);

/* Is a client of @pid still listed? Waits like wait_live(). */
static int client_listed(pid_t pid)
{
	struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	int i, n = count_lines_with_pid(CLIENTS, &pid, 1);

	for (i = 0; i < 250 && n > 0; i++) {
		nanosleep(&ts, NULL);
		n = count_lines_with_pid(CLIENTS, &pid, 1);
	}
	return n;
}

FIXTURE(client) {
	int fd;
	__u32 num_gpus;
	__s64 live_before;
};

FIXTURE_SETUP(client)
{
	self->fd = -1;
	if (access(CUFAB_DEVICE_PATH, F_OK))
		SKIP(return, "%s absent (cufab.ko not loaded)",
		     CUFAB_DEVICE_PATH);
	self->live_before = live_objects();
	self->fd = cufab_open();
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, get_version(self->fd, &self->num_gpus));
}

FIXTURE_TEARDOWN(client)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The 6.1 harness runs the test body after a SKIP in the fixture setup. */
static bool skipped(struct __test_metadata *_metadata)
{
	return _metadata->skip;
}

TEST_F(client, forked_child_gets_ebadf)
{
	__u32 id, num_gpus;
	pid_t pid;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &id));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct cufab_noop bogus = { .size = sizeof(bogus) };
		int own;

		/* every command, even an unknown one, is refused */
		CHILD_CHECK(noop(self->fd) == EBADF);
		CHILD_CHECK(get_version(self->fd, NULL) == EBADF);
		CHILD_CHECK(ctx_create(self->fd, 0, 0, NULL) == EBADF);
		CHILD_CHECK(destroy(self->fd, id) == EBADF);
		CHILD_CHECK(cufab_ioc(self->fd, _IO(CUFAB_TYPE, 0xff),
				      &bogus) == EBADF);
		/* its own client works, and does not see the parent's ids */
		own = cufab_open();
		CHILD_CHECK(own >= 0);
		CHILD_CHECK(get_version(own, &num_gpus) == 0);
		CHILD_CHECK(destroy(own, id) == ENOENT);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	/* the parent's client is untouched */
	EXPECT_EQ(0, noop(self->fd));
	EXPECT_EQ(0, destroy(self->fd, id));
}

TEST_F(client, process_exit_frees_everything)
{
	pid_t pid;

	if (skipped(_metadata))
		return;
	if (self->live_before < 0)
		SKIP(return, "%s absent (no debugfs)", CUFAB_LIVE_OBJECTS);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = cufab_open();
		__u32 i;

		CHILD_CHECK(fd >= 0);
		for (i = 0; i < 64; i++)
			CHILD_CHECK(ctx_create(fd, i % self->num_gpus, 0, NULL) == 0);
		_exit(0);	/* no close, no destroy */
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_EQ(self->live_before, wait_live(self->live_before));
	EXPECT_EQ(0, client_listed(pid));
}

TEST_F(client, sigkill_frees_everything)
{
	__s64 during;
	int sync[2];
	char c;
	pid_t pid;

	if (skipped(_metadata))
		return;
	if (self->live_before < 0)
		SKIP(return, "%s absent (no debugfs)", CUFAB_LIVE_OBJECTS);
	ASSERT_EQ(0, pipe(sync));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = cufab_open();
		__u32 i;

		CHILD_CHECK(fd >= 0);
		for (i = 0; i < 100; i++)
			CHILD_CHECK(ctx_create(fd, i % self->num_gpus, 0, NULL) == 0);
		CHILD_CHECK(write(sync[1], "r", 1) == 1);
		for (;;)
			pause();
	}
	ASSERT_EQ(1, read(sync[0], &c, 1));
	during = live_objects();
	/* its 100 contexts */
	EXPECT_LE(self->live_before + 100, during);
	EXPECT_EQ(1, count_lines_with_pid(CLIENTS, &pid, 1));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(0x100 | SIGKILL, wait_child(pid));
	EXPECT_EQ(self->live_before, wait_live(self->live_before));
	EXPECT_EQ(0, client_listed(pid));
	close(sync[0]);
	close(sync[1]);
}

/* The file outlives its opener's fd: release runs when the last holder,
 * here a forked child that never used it, lets go.
 */
TEST_F(client, last_reference_frees)
{
	pid_t opener = getpid();
	int go[2];
	pid_t pid;
	__u32 i;

	if (skipped(_metadata))
		return;
	if (self->live_before < 0)
		SKIP(return, "%s absent (no debugfs)", CUFAB_LIVE_OBJECTS);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, ctx_create(self->fd, 0, 0, NULL));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char c;

		close(go[1]);
		CHILD_CHECK(read(go[0], &c, 1) == 0);
		_exit(0);
	}
	close(go[0]);
	close(self->fd);
	self->fd = -1;
	/* the child still holds the file: the client and 10 contexts live */
	EXPECT_EQ(self->live_before + 10, live_objects());
	EXPECT_EQ(1, count_lines_with_pid(CLIENTS, &opener, 1));
	close(go[1]);
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_EQ(self->live_before, wait_live(self->live_before));
	EXPECT_EQ(0, client_listed(opener));
}

static int count_lines_with_pid(const char *path, pid_t *pids, int n)
{
	char line[256];
	int found = 0, i;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < n; i++)
			if (atoi(line) == pids[i])
				found++;
	}
	fclose(f);
	return found;
}

/* Child of parallel_clients: a client of its own, all at the same time. */
static int parallel_client(int ready, int go, __u32 num_gpus)
{
	enum { N = 100 };
	__u32 ids[N];
	int fd, i, j;
	char c;

	fd = cufab_open();
	CHILD_CHECK(fd >= 0);
	for (i = 0; i < N; i++)
		CHILD_CHECK(ctx_create(fd, i % num_gpus, 0, &ids[i]) == 0);
	for (i = 0; i < N; i++)
		for (j = 0; j < i; j++)
			CHILD_CHECK(ids[i] != ids[j]);
	for (i = 0; i < N; i += 2)
		CHILD_CHECK(destroy(fd, ids[i]) == 0);
	for (i = 0; i < N; i += 2)
		CHILD_CHECK(destroy(fd, ids[i]) == ENOENT);
	CHILD_CHECK(write(ready, "r", 1) == 1);
	CHILD_CHECK(read(go, &c, 1) == 0);
	return 0;	/* exit with 50 contexts still held */
}

TEST_F(client, parallel_clients)
{
	enum { NCHILD = 8 };
	pid_t pids[NCHILD];
	int ready[2], go[2], i;
	char c;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < NCHILD; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			close(go[1]);
			_exit(parallel_client(ready[1], go[0], self->num_gpus));
		}
	}
	close(go[0]);
	for (i = 0; i < NCHILD; i++)
		ASSERT_EQ(1, read(ready[0], &c, 1));
	if (self->live_before >= 0) {
		/* every child's client shows up, and its 50 contexts count */
		EXPECT_EQ(NCHILD, count_lines_with_pid(CLIENTS, pids, NCHILD));
		EXPECT_LE(self->live_before + NCHILD * 50, live_objects());
	}
	close(go[1]);
	for (i = 0; i < NCHILD; i++)
		EXPECT_EQ(0, wait_child(pids[i])) TH_LOG("child %d", i);
	if (self->live_before >= 0) {
		EXPECT_EQ(self->live_before, wait_live(self->live_before));
		EXPECT_EQ(0, count_lines_with_pid(CLIENTS, pids, NCHILD));
	}
	close(ready[0]);
	close(ready[1]);
}

struct thread_arg {
	int fd;
	__u32 num_gpus;
	int err;
};

static void *thread_create_destroy(void *p)
{
	struct thread_arg *arg = p;
	__u32 id;
	int i;

	for (i = 0; i < 300 && !arg->err; i++) {
		arg->err = ctx_create(arg->fd, i % arg->num_gpus, 0, &id);
		if (!arg->err)
			arg->err = destroy(arg->fd, id);
	}
	return NULL;
}

/* Threads of the opening process share its client. */
TEST_F(client, threads_share_client)
{
	enum { NTHREAD = 4 };
	struct thread_arg args[NTHREAD];
	pthread_t threads[NTHREAD];
	int i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < NTHREAD; i++) {
		args[i] = (struct thread_arg){ self->fd, self->num_gpus, 0 };
		ASSERT_EQ(0, pthread_create(&threads[i], NULL,
					    thread_create_destroy, &args[i]));
	}
	for (i = 0; i < NTHREAD; i++) {
		ASSERT_EQ(0, pthread_join(threads[i], NULL));
		EXPECT_EQ(0, args[i].err) TH_LOG("thread %d: %s", i,
						 strerror(args[i].err));
	}
	if (self->live_before >= 0)
		EXPECT_EQ(self->live_before, live_objects());
}

/*
 * Reading the clients file counts a client's objects while its threads
 * create and destroy them: the count must not look at an object being
 * freed (KASAN in the debug boot).
 */
TEST_F(client, debugfs_count_races_destroy)
{
	enum { NTHREAD = 2 };
	struct thread_arg args[NTHREAD];
	pthread_t threads[NTHREAD];
	char line[256];
	int i, reads = 0;
	FILE *f;

	if (skipped(_metadata))
		return;
	if (access(CLIENTS, R_OK))
		SKIP(return, "%s absent (no debugfs)", CLIENTS);
	for (i = 0; i < NTHREAD; i++) {
		args[i] = (struct thread_arg){ self->fd, self->num_gpus, 0 };
		ASSERT_EQ(0, pthread_create(&threads[i], NULL,
					    thread_create_destroy, &args[i]));
	}
	for (i = 0; i < NTHREAD; i++) {
		while (pthread_tryjoin_np(threads[i], NULL) == EBUSY) {
			f = fopen(CLIENTS, "r");
			ASSERT_NE(NULL, f);
			while (fgets(line, sizeof(line), f))
				;
			fclose(f);
			reads++;
		}
		EXPECT_EQ(0, args[i].err) TH_LOG("thread %d: %s", i,
						 strerror(args[i].err));
	}
	TH_LOG("%d reads of %s", reads, CLIENTS);
}

TEST_F(client, debugfs_lists_client)
{
	char comm[32] = "", line[256], want[64];
	int found = 0, i, len;
	FILE *f;

	if (skipped(_metadata))
		return;
	if (self->live_before < 0)
		SKIP(return, "%s absent (no debugfs)", CUFAB_LIVE_OBJECTS);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ctx_create(self->fd, 0, 0, NULL));
	f = fopen("/proc/self/comm", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	len = snprintf(want, sizeof(want), "%d %s 3\n", getpid(), comm);
	ASSERT_LT(len, (int)sizeof(want));

	f = fopen(CLIENTS, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		found += !strcmp(line, want);
	fclose(f);
	EXPECT_EQ(1, found) TH_LOG("no line \"%.*s\" in %s", len - 1, want,
				   CLIENTS);
}

TEST_F(client, unprivileged_user)
{
	struct stat st;
	pid_t pid;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, stat(CUFAB_DEVICE_PATH, &st));
	EXPECT_EQ(0666U, st.st_mode & 0777);
	if (geteuid())
		SKIP(return, "needs root to switch to uid %d", NOBODY);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		__u32 id, num_gpus;
		int fd;

		become_nobody();
		CHILD_CHECK(geteuid() == NOBODY);
		fd = cufab_open();
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(get_version(fd, &num_gpus) == 0);
		CHILD_CHECK(ctx_create(fd, num_gpus - 1, 0, &id) == 0);
		CHILD_CHECK(destroy(fd, id) == 0);
		CHILD_CHECK(noop(fd) == 0);
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
}

TEST_HARNESS_MAIN
