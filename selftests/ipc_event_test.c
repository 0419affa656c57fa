// SPDX-License-Identifier: GPL-2.0
/*
 * Interprocess events: cuIpcGetEventHandle and cuIpcOpenEventHandle, each
 * documented code, and two processes (fork, the handle over a pipe) that
 * record, query, synchronize and wait on one event from either side; the
 * handle refused once the exporter's event is destroyed, or the exporter
 * killed with a record pending.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "ipc_helpers.h"
#include "kselftest_harness.h"
#include "stream_helpers.h"

#define GARBAGE_EVENT	((CUevent)0xdeadbeef0002ULL)
#define IPC_FLAGS	(CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING)

TEST(not_initialized)
{
	CUipcEventHandle h = { 0 };
	CUevent e;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuIpcGetEventHandle(&h, GARBAGE_EVENT));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuIpcOpenEventHandle(&e, h));
}

TEST(get_errors)
{
	CUipcEventHandle h;
	CUevent plain, timed, ipc;
	CUcontext ctx;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&plain, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&ipc, IPC_FLAGS));
	/* INTERPROCESS needs DISABLE_TIMING */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuEventCreate(&timed, CU_EVENT_INTERPROCESS));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuIpcGetEventHandle(&h, GARBAGE_EVENT));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuIpcGetEventHandle(&h, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetEventHandle(NULL, ipc));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetEventHandle(&h, plain));
	EXPECT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&h, ipc));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(ipc));
	/* a destroyed event's handle is stale like any other */
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuIpcGetEventHandle(&h, ipc));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(plain));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * The other side of open_errors: opens @h, then waits for the exporter to
 * destroy its event. Exit status: 0, or the number of the step that failed.
 */
static int open_then_stale(int rd, int wr)
{
	CUipcEventHandle h, again;
	CUcontext ctx;
	CUevent e, e2;

	if (read(rd, &h, sizeof(h)) != sizeof(h))
		return 1;
	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0))
		return 2;
	if (cuIpcOpenEventHandle(&e, h) || cuEventQuery(e))
		return 3;
	if (step_send(wr, 'o') || step_recv(rd) != 'd')
		return 4;
	/* the exporter destroyed its event: the export ended with it */
	if (cuIpcOpenEventHandle(&e2, h) != CUDA_ERROR_INVALID_HANDLE)
		return 5;
	/* the import outlives the export, and says so when re-exported */
	if (cuEventSynchronize(e) ||
	    cuIpcGetEventHandle(&again, e) != CUDA_ERROR_INVALID_HANDLE)
		return 6;
	return cuEventDestroy(e) || cuCtxDestroy(ctx) ? 7 : 0;
}

TEST(open_errors)
{
	CUipcEventHandle h, bad;
	struct peer peer;
	CUcontext ctx, popped;
	CUevent ipc, e;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&ipc, IPC_FLAGS));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&h, ipc));
	/* the same event gives the same handle */
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&bad, ipc));
	EXPECT_EQ(0, memcmp(&h, &bad, sizeof(h)));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcOpenEventHandle(NULL, h));
	memset(&bad, 0, sizeof(bad));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcOpenEventHandle(&e, bad));
	/* a forged secret: the handle names nothing */
	bad = h;
	bad.reserved[sizeof(bad.reserved) - 1] ^= 1;
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuIpcOpenEventHandle(&e, bad));

	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuIpcOpenEventHandle(&e, h));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(ctx));

	/*
	 * Driver 580 refuses the exporting process its own handle with
	 * INVALID_CONTEXT (Documentation/differences.rst).
	 */
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuIpcOpenEventHandle(&e, h));

	/* another process opens it; destroying the event ends the export */
	ASSERT_EQ(0, peer_start(&peer, open_then_stale));
	ASSERT_EQ(0, peer_send(&peer, &h, sizeof(h)));
	ASSERT_EQ('o', step_recv(peer.rd));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(ipc));
	ASSERT_EQ(0, step_send(peer.wr, 'd'));
	EXPECT_EQ(0, peer_end(&peer));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* imported_is_untimed in the importing process; 0 or the failed step. */
static int untimed_child(int rd, int wr)
{
	CUipcEventHandle h;
	CUcontext ctx;
	CUevent e, t;
	float ms;

	if (read(rd, &h, sizeof(h)) != sizeof(h))
		return 1;
	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
	    cuEventCreate(&t, 0) || cuIpcOpenEventHandle(&e, h))
		return 2;
	if (cuEventRecord(e, NULL) || cuEventRecord(t, NULL) ||
	    cuEventSynchronize(e) || cuEventSynchronize(t))
		return 3;
	if (cuEventElapsedTime(&ms, e, t) != CUDA_ERROR_INVALID_HANDLE ||
	    cuEventElapsedTime(&ms, t, e) != CUDA_ERROR_INVALID_HANDLE)
		return 4;
	return cuEventDestroy(e) || cuEventDestroy(t) || cuCtxDestroy(ctx) ?
	       5 : 0;
}

/* The imported event behaves like a local DISABLE_TIMING event. */
TEST(imported_is_untimed)
{
	CUipcEventHandle h;
	struct peer peer;
	CUcontext ctx;
	CUevent ipc;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&ipc, IPC_FLAGS));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&h, ipc));
	ASSERT_EQ(0, peer_start(&peer, untimed_child));
	ASSERT_EQ(0, peer_send(&peer, &h, sizeof(h)));
	EXPECT_EQ(0, peer_end(&peer));
	/* the record made through the import is the exporter's too */
	EXPECT_CU(CUDA_SUCCESS, cuEventQuery(ipc));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(ipc));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * The importer (a child, fresh library): waits on the exporter's pending
 * record from a stream of its own, then records the event itself behind a
 * gate. Exit status: 0, or the number of the step that failed.
 */
static int importer(int rd, int wr)
{
	struct gate g = GATE_INIT;
	CUipcEventHandle h;
	CUstream s, s2;
	CUcontext ctx;
	CUevent e;
	int ret;

	ret = peer_import_start(rd, &h, sizeof(h), &ctx);
	if (ret)
		return ret;
	if (cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) ||
	    cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING))
		return 2;
	if (cuIpcOpenEventHandle(&e, h))
		return 3;
	/* the exporter's record waits behind its gate */
	if (cuEventQuery(e) != CUDA_ERROR_NOT_READY)
		return 4;
	if (cuStreamWaitEvent(s, e, 0) || cuStreamQuery(s) != CUDA_ERROR_NOT_READY)
		return 5;
	if (step_send(wr, 'q'))		/* open your gate */
		return 6;
	if (cuEventSynchronize(e) || cuStreamSynchronize(s) ||
	    cuEventQuery(e))
		return 7;
	/* now a record of ours, behind our own gate */
	if (cuLaunchHostFunc(s2, gate_fn, &g) || cuEventRecord(e, s2))
		return 8;
	if (step_send(wr, 'r') || step_recv(rd) != 'o')
		return 9;
	gate_open(&g);
	if (cuStreamSynchronize(s2) || cuEventDestroy(e))
		return 10;
	if (step_send(wr, 'd'))
		return 11;
	return cuCtxDestroy(ctx) ? 12 : 0;
}

TEST(two_processes)
{
	struct peer peer;
	struct gate g = GATE_INIT;
	CUipcEventHandle h;
	CUcontext ctx;
	CUstream s;
	CUevent ev;

	INIT_OR_SKIP();
	ASSERT_EQ(0, peer_start(&peer, importer));

	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&ev, IPC_FLAGS));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(ev, s));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&h, ev));
	ASSERT_EQ(0, peer_send(&peer, &h, sizeof(h)));

	ASSERT_EQ('q', step_recv(peer.rd));
	gate_open(&g);
	/* the child's record is pending behind the child's gate */
	ASSERT_EQ('r', step_recv(peer.rd));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuEventQuery(ev));
	ASSERT_EQ(0, step_send(peer.wr, 'o'));
	EXPECT_CU(CUDA_SUCCESS, cuEventSynchronize(ev));
	EXPECT_CU(CUDA_SUCCESS, cuEventQuery(ev));
	ASSERT_EQ('d', step_recv(peer.rd));
	EXPECT_EQ(0, peer_end(&peer));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(ev));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* The exporter: a record behind a gate never opened; then it is killed. */
static void exporter(int wr)
{
	static struct gate g = GATE_INIT;
	CUipcEventHandle h;
	CUcontext ctx;
	CUstream s;
	CUevent ev;

	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) ||
	    cuEventCreate(&ev, IPC_FLAGS) ||
	    cuLaunchHostFunc(s, gate_fn, &g) || cuEventRecord(ev, s) ||
	    cuIpcGetEventHandle(&h, ev))
		memset(&h, 0, sizeof(h));
	if (write(wr, &h, sizeof(h)) != sizeof(h))
		_exit(1);
	for (;;)
		pause();
}

TEST(exporter_killed)
{
	CUipcEventHandle h;
	long long before;
	CUcontext ctx;
	int pipefd[2];
	CUevent e;
	pid_t pid;

	INIT_OR_SKIP();
	before = live_objects();
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		exporter(pipefd[1]);
	ASSERT_EQ(sizeof(h), read(pipefd[0], &h, sizeof(h)));
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	ASSERT_CU(CUDA_SUCCESS, cuIpcOpenEventHandle(&e, h));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuEventQuery(e));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* the pending record was cancelled with its process, not lost */
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuEventSynchronize(e));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuIpcOpenEventHandle(&e, h));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/*
 * The import half of the fail-nth sweep, in the importing process: 0 when
 * every failure was MAP_FAILED and at least one happened, else the failed
 * step.
 */
static int open_failures(int rd, int wr)
{
	unsigned int n, got_map = 0;
	CUipcEventHandle h;
	CUcontext ctx;
	int fd, done;
	CUresult res;
	CUevent e;

	if (read(rd, &h, sizeof(h)) != sizeof(h))
		return 1;
	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0))
		return 2;
	fd = fail_nth_open();
	if (fd < 0)
		return 3;
	for (n = 1, done = 0; !done; n++) {
		if (fail_nth_arm(fd, n))
			return 4;
		res = cuIpcOpenEventHandle(&e, h);
		done = fail_nth_disarm(fd);
		if (done < 0 || (done && res))
			return 5;
		if (res && res != CUDA_ERROR_MAP_FAILED)
			return 6;
		got_map += res == CUDA_ERROR_MAP_FAILED;
		if (res == CUDA_SUCCESS && cuEventDestroy(e))
			return 7;
	}
	close(fd);
	if (!got_map)
		return 8;
	return cuCtxDestroy(ctx) ? 9 : 0;
}

FIXTURE(ipc) {
	CUcontext ctx;
};

FIXTURE_SETUP(ipc)
{
	self->ctx = NULL;
	CTX_OR_SKIP(self->ctx);
}

FIXTURE_TEARDOWN(ipc)
{
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

/*
 * The kernel failing to set up the exporter's side (fail-nth): Get reports
 * OUT_OF_MEMORY, a failed export leaves the event exportable (the same
 * handle once it goes through), and nothing is left behind.
 */
TEST_FAIL_NTH(ipc, export_fail_nth)
{
	CUipcEventHandle h, h2;
	CUresult res, again;
	CUevent ipc;

	nth->oom = CUDA_ERROR_OUT_OF_MEMORY;
	nth->min_failed = 1;
	res = cuEventCreate(&ipc, IPC_FLAGS);
	if (res)
		return res;
	res = cuIpcGetEventHandle(&h, ipc);
	again = cuIpcGetEventHandle(&h2, ipc);
	if (!res && !again && memcmp(&h, &h2, sizeof(h)))
		res = CUDA_ERROR_INVALID_HANDLE;
	if (cuEventDestroy(ipc) && !res)
		res = CUDA_ERROR_UNKNOWN;
	return res ? res : again;
}

/*
 * The importer's side fails in another process (driver 580's rule), whose
 * own fail-nth the harness cannot arm: open_failures() sweeps it there.
 */
TEST_F(ipc, import_fail_nth)
{
	struct peer peer;
	CUipcEventHandle h;
	CUevent ipc;

	SETUP_SKIPPED();
	if (access(CUFAB_DEBUGFS "/fail_object_alloc", F_OK))
		SKIP(return, "no fault injection in cufab.ko");
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&ipc, IPC_FLAGS));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&h, ipc));
	ASSERT_EQ(0, peer_start(&peer, open_failures));
	ASSERT_EQ(0, peer_send(&peer, &h, sizeof(h)));
	EXPECT_EQ(0, peer_end(&peer));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(ipc));
}

TEST_HARNESS_MAIN
