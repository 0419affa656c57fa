// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast teams across processes: one process per device, the handle
 * passed over unix sockets (SCM_RIGHTS for the POSIX fd). Binds block
 * until the last member joins (the last one joins late, and the earlier
 * binds return only after it), then a broadcast and a load-reduce are
 * checked in every replica. Also: the team timeout (mc_team_timeout_ms)
 * turning a stuck team into CUDA_ERROR_SYSTEM_NOT_READY, a signal during
 * a blocked bind (restarted with SA_RESTART, an error and nothing bound
 * without), and kill -9 of one member leaving the others' bindings.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cufab_uapi.h"
#include "mc_helpers.h"
#include "kselftest_harness.h"

#define MCSZ		(2 * MC_MIB)
#define LATE_MS		400	/* the last member joins this late */
#define MAX_MEMBERS	8

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct report {
	int err;		/* first failing CUresult, 0 */
	double t_add;		/* when AddDevice was called */
	double t_bound;		/* when BindMem returned */
	int check_ok;		/* replica holds what the parent wrote */
};

/*
 * Member @dev: import the object from the fd on @sock, join, fill its
 * replica with dev + 1 (as u32), bind (blocking), report; then check the
 * broadcast in its own unicast mapping when told, unbind, exit.
 */
static int member(int sock, int dev, int late)
{
	CUmemGenericAllocationHandle h;
	struct report rep = { 0 };
	struct vbuf b;
	uint32_t *u = NULL;
	size_t i;
	char cmd;
	int fd;

	if (sock_recv(sock, &cmd, 1, &fd) || fd < 0)
		return 10;
	rep.err = cuInit(0);
	if (!rep.err)
		rep.err = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	close(fd);
	if (!rep.err)
		rep.err = vbuf_make(&b, dev, MCSZ,
				    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (!rep.err) {
		u = (uint32_t *)b.va;
		for (i = 0; i < MCSZ / 4; i++)
			u[i] = dev + 1;
	}
	if (late)
		usleep(LATE_MS * 1000);
	rep.t_add = now_ms();
	if (!rep.err)
		rep.err = cuMulticastAddDevice(h, dev);
	if (!rep.err)
		rep.err = cuMulticastBindMem(h, 0, b.h, 0, MCSZ, 0);
	rep.t_bound = now_ms();
	if (sock_send(sock, &rep, sizeof(rep), -1))
		return 11;
	if (rep.err)
		return 12;
	/* parent wrote 0xab.. to the first half: check it here */
	if (sock_recv(sock, &cmd, 1, NULL))
		return 13;
	rep.check_ok = 1;
	for (i = 0; i < MCSZ / 2; i++)
		if (((unsigned char *)b.va)[i] != 0xab)
			rep.check_ok = 0;
	for (i = MCSZ / 8; i < MCSZ / 4; i++)
		if (u[i] != (uint32_t)dev + 1)
			rep.check_ok = 0;
	rep.err = cuMulticastUnbind(h, dev, 0, MCSZ);
	if (sock_send(sock, &rep, sizeof(rep), -1))
		return 14;
	vbuf_drop(&b);
	cuMemRelease(h);
	return 0;
}

TEST(team_forms_across_processes)
{
	CUmemGenericAllocationHandle h;
	struct report rep[MAX_MEMBERS];
	int sock[MAX_MEMBERS][2], n, i, fd = -1;
	pid_t pid[MAX_MEMBERS];
	static unsigned char pattern[MCSZ / 2];
	uint32_t sum[256], want = 0;
	unsigned int skipped = 99;
	long long before;
	CUdeviceptr va;
	char go = 'g';

	MC_OR_SKIP(2);
	n = mc_capable_prefix(num_devices());
	if (n > MAX_MEMBERS)
		n = MAX_MEMBERS;
	before = live_objects();
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = n, .size = MCSZ,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR }));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sock[i]));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			close(sock[i][0]);
			_exit(member(sock[i][1], i, i == n - 1));
		}
		close(sock[i][1]);
		ASSERT_EQ(0, sock_send(sock[i][0], &go, 1, fd));
	}
	close(fd);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, sock_recv(sock[i][0], &rep[i], sizeof(rep[i]), NULL));
	for (i = 0; i < n; i++) {
		ASSERT_CU(CUDA_SUCCESS, rep[i].err) TH_LOG("member %d", i);
		/*
		 * every bind returned after the last member joined: an order,
		 * not a duration (a loaded host starts members late)
		 */
		EXPECT_LE(rep[n - 1].t_add, rep[i].t_bound)
			TH_LOG("member %d bound at %.1f ms, last joined at %.1f ms",
			       i, rep[i].t_bound, rep[n - 1].t_add);
	}

	/* the parent maps the complete team and multimems it */
	ASSERT_CU(CUDA_SUCCESS, mc_map(&va, h, MCSZ, 0));
	memset(pattern, 0xab, sizeof(pattern));
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemBroadcast(va, pattern,
						       sizeof(pattern), &skipped));
	EXPECT_EQ(0, skipped);
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemLoadReduce(sum, va + MCSZ / 2,
			CUFAB_MULTIMEM_U32, CUFAB_MULTIMEM_ADD, 256, &skipped));
	EXPECT_EQ(0, skipped);
	for (i = 0; i < n; i++)
		want += i + 1;
	for (i = 0; i < 256; i++)
		EXPECT_EQ(want, sum[i]);

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, sock_send(sock[i][0], &go, 1, -1));
		ASSERT_EQ(0, sock_recv(sock[i][0], &rep[i], sizeof(rep[i]), NULL));
		EXPECT_TRUE(rep[i].check_ok) TH_LOG("member %d replica", i);
		EXPECT_CU(CUDA_SUCCESS, rep[i].err);
		EXPECT_EQ(0, wait_child(pid[i]));
		close(sock[i][0]);
	}
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(va, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* A team that never completes: binds and maps give up with 802. */
TEST(team_timeout)
{
	CUmemGenericAllocationHandle h, mem;
	CUmemAllocationProp mp = dev_prop(0, 0);
	long saved;
	CUdeviceptr va;
	char buf[32];
	double t;

	MC_OR_SKIP(2);
	saved = cufab_param("mc_team_timeout_ms");
	ASSERT_LE(0, saved);
	ASSERT_EQ(0, cufab_param_set("mc_team_timeout_ms", "300"));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ }));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, MCSZ, &mp, 0));
	t = now_ms();
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY,
		  cuMulticastBindMem(h, 0, mem, 0, MCSZ, 0));
	EXPECT_LE(250, now_ms() - t);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, MCSZ, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, cuMemMap(va, MCSZ, 0, h, 0));
	/* nothing was bound: unbind has nothing to match */
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(h, 0, 0, MCSZ));
	snprintf(buf, sizeof(buf), "%ld", saved);
	ASSERT_EQ(0, cufab_param_set("mc_team_timeout_ms", buf));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* ---- without a limit, as CUDA: a waiter says so and dies cleanly ---- */

/*
 * Child: a team of two with only gpu0, then a bind that waits for ever;
 * writes one byte on @ready just before it.
 */
static void forever_binder(int ready)
{
	CUmemGenericAllocationHandle h, mem;
	CUmemAllocationProp mp = dev_prop(0, 0);

	if (cuInit(0) ||
	    cuMulticastCreate(&h, &(CUmulticastObjectProp){
			.numDevices = 2, .size = MCSZ }) ||
	    cuMulticastAddDevice(h, 0) || cuMemCreate(&mem, MCSZ, &mp, 0))
		_exit(10);
	if (write(ready, "r", 1) != 1)
		_exit(11);
	cuMulticastBindMem(h, 0, mem, 0, MCSZ, 0);
	_exit(12);	/* the team cannot complete: never reached */
}

/* Fork a forever_binder; its pid once it is about to wait, or -1. */
static pid_t start_binder(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		forever_binder(p[1]);
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* Does the kernel log after offset @fd's position hold @needle? */
static int kmsg_has(int fd, const char *needle)
{
	char rec[1024];
	ssize_t n;
	int found = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, needle))
			found = 1;
	}
	return found;
}

/*
 * mc_team_timeout_ms 0: a bind waits without limit, logs every few seconds
 * which devices are missing, and a default-action signal (SIGTERM) or
 * SIGKILL ends the process with nothing left behind.
 */
TEST(wait_forever_dies_on_signal)
{
	static const int sigs[] = { SIGTERM, SIGKILL };
	long long before;
	long saved;
	char buf[32];
	int i, st, kmsg;
	pid_t pid;

	MC_OR_SKIP(2);
	saved = cufab_param("mc_team_timeout_ms");
	ASSERT_LE(0, saved);
	before = live_objects();
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	ASSERT_EQ(0, cufab_param_set("mc_team_timeout_ms", "0"));
	for (i = 0; i < 2; i++) {
		pid = start_binder();
		ASSERT_LT(0, pid);
		/* past one log period the first time, a moment the second */
		usleep(i ? 300 * 1000 : 6500 * 1000);
		ASSERT_EQ(0, waitpid(pid, &st, WNOHANG));	/* still waiting */
		ASSERT_EQ(0, kill(pid, sigs[i]));
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i]) {
			TH_LOG("binder status 0x%x, wanted signal %d", st, sigs[i]);
		}
	}
	snprintf(buf, sizeof(buf), "%ld", saved);
	ASSERT_EQ(0, cufab_param_set("mc_team_timeout_ms", buf));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
	if (kmsg >= 0) {
		EXPECT_TRUE(kmsg_has(kmsg, "bind still waiting after 5000 ms for the team: 1 of 2 devices (gpu0), missing 1; not added yet: gpu1"));
		close(kmsg);
	}
}

/* ---- a signal while a bind waits ---- */

static volatile sig_atomic_t signals;

static void on_usr1(int sig)
{
	signals++;
}

struct poker {
	pthread_t target;
	CUmemGenericAllocationHandle h;
	int add;	/* complete the team after the signal */
};

static void *poke(void *arg)
{
	struct poker *p = arg;

	usleep(200 * 1000);
	pthread_kill(p->target, SIGUSR1);
	usleep(200 * 1000);
	if (p->add)
		cuMulticastAddDevice(p->h, 1);
	return NULL;
}

static void signal_case(struct __test_metadata *_metadata, int restart)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	CUmemGenericAllocationHandle h, mem;
	CUmemAllocationProp mp = dev_prop(0, 0);
	struct poker p;
	pthread_t th;
	CUresult r;

	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ }));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, MCSZ, &mp, 0));
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, &old));
	signals = 0;
	p.target = pthread_self();
	p.h = h;
	p.add = restart;
	ASSERT_EQ(0, pthread_create(&th, NULL, poke, &p));
	r = cuMulticastBindMem(h, 0, mem, 0, MCSZ, 0);
	pthread_join(th, NULL);
	sigaction(SIGUSR1, &old, NULL);
	EXPECT_EQ(1, signals);
	if (restart) {
		/* restarted after the handler, completed by the late member */
		EXPECT_CU(CUDA_SUCCESS, r);
		EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h, 0, 0, MCSZ));
	} else {
		EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, r);
		ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 1));
		/* nothing half-done: nothing to unbind, the bind works now */
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(h, 0, 0, MCSZ));
		EXPECT_CU(CUDA_SUCCESS, cuMulticastBindMem(h, 0, mem, 0, MCSZ, 0));
		EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h, 0, 0, MCSZ));
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

TEST(signal_with_restart)
{
	MC_OR_SKIP(2);
	signal_case(_metadata, 1);
}

TEST(signal_without_restart)
{
	MC_OR_SKIP(2);
	signal_case(_metadata, 0);
}

/* kill -9 of a member: the survivor's binding and the team remain. */
TEST(kill_member)
{
	CUmemGenericAllocationHandle h;
	unsigned int skipped = 0;
	long long before;
	struct report rep;
	struct vbuf b;
	int sock[2], fd = -1, st;
	uint64_t v = 0x1122334455667788ull;
	CUdeviceptr va;
	char go = 'g';
	pid_t pid;

	MC_OR_SKIP(2);
	before = live_objects();
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR }));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sock));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sock[0]);
		_exit(member(sock[1], 1, 0));
	}
	close(sock[1]);
	ASSERT_EQ(0, sock_send(sock[0], &go, 1, fd));
	close(fd);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, MCSZ,
					  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(h, 0, b.h, 0, MCSZ, 0));
	ASSERT_EQ(0, sock_recv(sock[0], &rep, sizeof(rep), NULL));
	ASSERT_CU(CUDA_SUCCESS, rep.err);
	ASSERT_CU(CUDA_SUCCESS, mc_map(&va, h, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemStore(va, CUFAB_MULTIMEM_U64, &v, 1,
						   &skipped));
	EXPECT_EQ(0, skipped);

	kill(pid, SIGKILL);
	st = wait_child(pid);
	EXPECT_EQ(0x100 | SIGKILL, st);
	close(sock[0]);
	/* the dead member's replica is gone: skipped; ours still written */
	v = 42;
	usleep(100 * 1000);	/* its file is released asynchronously */
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemStore(va, CUFAB_MULTIMEM_U64, &v, 1,
						   &skipped));
	EXPECT_EQ(1, skipped);
	EXPECT_EQ(42, *(uint64_t *)b.va);
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h, 0, 0, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(va, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* The fabric software down or broken (fabric_state): 802 and 401. */
TEST(fabric_state)
{
	CUmemGenericAllocationHandle h, mem;
	CUmemAllocationProp mp = dev_prop(0, 0);
	CUdeviceptr va;

	MC_OR_SKIP(1);
	if (access(CUFAB_PARAMS "fabric_state", W_OK))
		SKIP(return, "no fabric_state parameter");
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 1, .size = MCSZ }));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, MCSZ, &mp, 0));
	ASSERT_EQ(0, cufab_param_set("fabric_state", "not-ready"));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, cuMulticastAddDevice(h, 0));
	ASSERT_EQ(0, cufab_param_set("fabric_state", "ok"));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	ASSERT_EQ(0, cufab_param_set("fabric_state", "illegal-state"));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuMulticastBindMem(h, 0, mem, 0, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, MCSZ, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuMemMap(va, MCSZ, 0, h, 0));
	ASSERT_EQ(0, cufab_param_set("fabric_state", "ok"));
	/* nothing was left half-done: the bind and the map work now */
	EXPECT_CU(CUDA_SUCCESS, cuMulticastBindMem(h, 0, mem, 0, MCSZ, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemMap(va, MCSZ, 0, h, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, MCSZ));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h, 0, 0, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

TEST_HARNESS_MAIN
