// SPDX-License-Identifier: GPL-2.0
/*
 * Logical endpoints across processes, as in the programming guide's
 * example: N ranks, one process per GPU, FABRIC handles exchanged over
 * unix sockets. Each rank reserves one id per rank, creates its endpoint
 * at base + rank, exports it, imports every peer's at base + peer, polls
 * cuLogicalEndpointQuery over the whole range, binds, unbinds, destroys
 * and releases. The multicast ring builds one team of N devices, one
 * added by each process. Then kill -9 of an exporter and of an importer
 * in the middle of the sequence: nothing may leak.
 *
 * The parent is the rendezvous: it gathers each rank's handle and sends
 * every rank all of them, and it runs the barriers. It never opens
 * /dev/cufab itself.
 */
#include <signal.h>

#include "le_helpers.h"
#include "topo_helpers.h"
#include "kselftest_harness.h"

#define MAX_RANKS	8
#define HLEN		sizeof(CUlogicalEndpointFabricHandle)

struct ring {
	int n;
	int sock[MAX_RANKS][2];		/* [0] parent, [1] rank */
	pid_t pid[MAX_RANKS];
};

/* ---- rank side ---- */

static int barrier(int sock)
{
	char c = 'b';

	return write(sock, &c, 1) == 1 && read(sock, &c, 1) == 1 ? 0 : -1;
}

/* Send my handle, get all n. */
static int exchange(int sock, const CUlogicalEndpointFabricHandle *mine,
		    CUlogicalEndpointFabricHandle *all, int n)
{
	if (write(sock, mine, HLEN) != (ssize_t)HLEN)
		return -1;
	return read(sock, all, HLEN * n) == (ssize_t)(HLEN * n) ? 0 : -1;
}

static int unicast_rank(int rank, int n, int sock)
{
	CUlogicalEndpointFabricHandle mine, all[MAX_RANKS];
	CUlogicalEndpointProp p = uprop(rank, LE_SIZE, FABRIC);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId base;
	CUcontext ctx;
	int peer;

	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, rank))
		return 10;
	if (mem_on(&h, rank, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC))
		return 11;
	if (cuLogicalEndpointIdReserve(&base, n))
		return 12;
	if (cuLogicalEndpointCreate(base + rank, &p) ||
	    cuLogicalEndpointExport(&mine, base + rank, FABRIC))
		return 13;
	if (exchange(sock, &mine, all, n))
		return 14;
	for (peer = 0; peer < n; peer++)
		if (peer != rank &&
		    cuLogicalEndpointImport(base + peer, &all[peer], FABRIC))
			return 15;
	if (le_wait_ready(base, n, 10000))
		return 16;
	if (cuLogicalEndpointBindMem(base + rank, rank, 0, h, 0, LE_GRAN, 0))
		return 17;
	/* peers' endpoints are imported unicast ones: not bindable here */
	peer = (rank + 1) % n;
	if (n > 1 && cuLogicalEndpointBindMem(base + peer, rank, 0, h, 0,
					      LE_GRAN, 0) !=
	    CUDA_ERROR_NOT_PERMITTED)
		return 18;
	if (barrier(sock))
		return 19;
	if (cuLogicalEndpointUnbind(base + rank, rank, 0, LE_GRAN))
		return 20;
	for (peer = 0; peer < n; peer++)
		if (cuLogicalEndpointDestroy(base + peer))
			return 21;
	if (cuLogicalEndpointIdRelease(base, n) || cuMemRelease(h))
		return 22;
	cuCtxDestroy(ctx);
	return barrier(sock) ? 23 : 0;
}

static int multicast_rank(int rank, int n, int sock)
{
	CUlogicalEndpointFabricHandle mine, all[MAX_RANKS];
	CUlogicalEndpointProp p = mprop(n, LE_SIZE, FABRIC);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;
	CUcontext ctx;

	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, rank))
		return 30;
	if (mem_on(&h, rank, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC) ||
	    cuLogicalEndpointIdReserve(&id, 1))
		return 31;
	memset(&mine, 0, sizeof(mine));
	if (rank == 0 && (cuLogicalEndpointCreate(id, &p) ||
			  cuLogicalEndpointExport(&mine, id, FABRIC)))
		return 32;
	if (exchange(sock, &mine, all, n))
		return 33;
	if (rank != 0 && cuLogicalEndpointImport(id, &all[0], FABRIC))
		return 34;
	if (cuLogicalEndpointAddDevice(id, rank))
		return 35;
	if (le_wait_ready(id, 1, 10000))
		return 36;
	if (cuLogicalEndpointBindMem(id, rank, 0, h, 0, LE_GRAN, 0))
		return 37;
	/* a peer's device is in the team, but not this process's memory's */
	if (n > 1 && cuLogicalEndpointBindMem(id, (rank + 1) % n, LE_GRAN, h,
					      0, LE_GRAN, 0) !=
	    CUDA_ERROR_INVALID_VALUE)
		return 38;
	if (barrier(sock))
		return 39;
	if (cuLogicalEndpointUnbind(id, rank, 0, LE_GRAN) ||
	    cuLogicalEndpointDestroy(id) || cuLogicalEndpointIdRelease(id, 1) ||
	    cuMemRelease(h))
		return 40;
	cuCtxDestroy(ctx);
	return barrier(sock) ? 41 : 0;
}

/* ---- parent side ---- */

static int ring_start(struct ring *r, int n, int (*fn)(int, int, int))
{
	int i, j;

	r->n = n;
	for (i = 0; i < n; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, r->sock[i]))
			return -1;
	for (i = 0; i < n; i++) {
		r->pid[i] = fork();
		if (r->pid[i] < 0)
			return -1;
		if (r->pid[i] == 0) {
			for (j = 0; j < n; j++)
				close(r->sock[j][0]);
			_exit(fn(i, n, r->sock[i][1]));
		}
	}
	for (i = 0; i < n; i++)
		close(r->sock[i][1]);
	return 0;
}

static int ring_exchange(struct ring *r)
{
	CUlogicalEndpointFabricHandle all[MAX_RANKS];
	int i;

	for (i = 0; i < r->n; i++)
		if (read(r->sock[i][0], &all[i], HLEN) != (ssize_t)HLEN)
			return -1;
	for (i = 0; i < r->n; i++)
		if (write(r->sock[i][0], all, HLEN * r->n) !=
		    (ssize_t)(HLEN * r->n))
			return -1;
	return 0;
}

static int ring_barrier(struct ring *r)
{
	char c;
	int i;

	for (i = 0; i < r->n; i++)
		if (read(r->sock[i][0], &c, 1) != 1)
			return -1;
	for (i = 0; i < r->n; i++)
		if (write(r->sock[i][0], &c, 1) != 1)
			return -1;
	return 0;
}

/* Every rank's exit status, 0 when all succeeded. */
static int ring_finish(struct ring *r)
{
	int i, st, bad = 0;

	for (i = 0; i < r->n; i++) {
		close(r->sock[i][0]);
		st = wait_child(r->pid[i]);
		if (st && !bad)
			bad = st;
	}
	return bad;
}

FIXTURE(ring) {
	int n;
	int le_mc;	/* GPU 0 takes multicast endpoints */
	long long live_before;
};

FIXTURE_SETUP(ring)
{
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "cufab.ko not loaded");
	if (le_channel0())
		SKIP(return, "no IMEX channel region (imex_channel_count=0)");
	self->n = gpu_count();
	if (self->n > MAX_RANKS)
		self->n = MAX_RANKS;
	if (self->n < 2)
		SKIP(return, "needs 2 GPUs");
	self->le_mc = le_multicast_supported_forked(0);
	self->live_before = live_objects();
}

FIXTURE_TEARDOWN(ring)
{
	imex_cleanup();
}

/* The parent's side of a whole ring of @rank: every rank exits 0. */
static void ring_run(struct __test_metadata *_metadata, int n,
		     long long live_before, int (*rank)(int, int, int))
{
	struct ring r;

	ASSERT_EQ(0, ring_start(&r, n, rank));
	EXPECT_EQ(0, ring_exchange(&r));
	EXPECT_EQ(0, ring_barrier(&r));
	EXPECT_EQ(0, ring_barrier(&r));
	EXPECT_EQ(0, ring_finish(&r));
	EXPECT_EQ(live_before, live_objects_wait(live_before));
}

TEST_F(ring, unicast)
{
	SETUP_SKIPPED();
	ring_run(_metadata, self->n, self->live_before, unicast_rank);
}

TEST_F(ring, multicast)
{
	SETUP_SKIPPED();
	NEED_LE_MULTICAST();
	ring_run(_metadata, self->n, self->live_before, multicast_rank);
}

/*
 * kill -9: an exporter dies after exporting, before anyone imported: the
 * endpoint died with its only alias, so the handle is refused; nothing
 * leaks.
 */
static int exporter(int sock)
{
	CUlogicalEndpointProp p = mprop(2, LE_SIZE, FABRIC);
	CUlogicalEndpointFabricHandle fh;
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;

	if (cuInit(0) || mem_on(&h, 0, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC) ||
	    cuLogicalEndpointIdReserve(&id, 1000) ||
	    cuLogicalEndpointCreate(id, &p) ||
	    cuLogicalEndpointAddDevice(id, 0) ||
	    cuLogicalEndpointExport(&fh, id, FABRIC))
		return 1;
	if (write(sock, &fh, HLEN) != (ssize_t)HLEN)
		return 2;
	/* wait to be imported (or killed) */
	if (read(sock, &fh, 1) != 1)
		return 3;
	/* the importer completed the team: bind, then wait to be killed */
	if (le_wait_ready(id, 1, 10000) ||
	    cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0))
		return 4;
	if (write(sock, "r", 1) != 1)
		return 5;
	pause();
	return 6;
}

/*
 * Import the handle read from @sock. @expect_gone: the import must fail.
 * Otherwise add gpu1, bind, report, and wait to be killed.
 */
static int importer(int sock, int expect_gone)
{
	CUlogicalEndpointFabricHandle fh;
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;
	CUresult r;

	if (cuInit(0) || mem_on(&h, 1, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC) ||
	    cuLogicalEndpointIdReserve(&id, 1))
		return 1;
	if (read(sock, &fh, HLEN) != (ssize_t)HLEN)
		return 2;
	r = cuLogicalEndpointImport(id, &fh, FABRIC);
	if (expect_gone)
		return r == CUDA_ERROR_INVALID_VALUE ? 0 : 3;
	if (r || cuLogicalEndpointAddDevice(id, 1) ||
	    le_wait_ready(id, 1, 10000) ||
	    cuLogicalEndpointBindMem(id, 1, 0, h, 0, LE_GRAN, 0))
		return 4;
	if (write(sock, "i", 1) != 1)
		return 5;
	pause();
	return 6;
}

/* live_objects() once it dropped below @v (or after 2 s). */
static long long live_objects_below(long long v)
{
	long long now = live_objects();
	int i;

	for (i = 0; i < 200 && now >= v; i++) {
		usleep(10000);
		now = live_objects();
	}
	return now;
}

static pid_t spawn(int sock, int (*fn)(int, int), int arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(sock, arg));
	return pid;
}

static int exporter2(int sock, int unused)
{
	return exporter(sock);
}

TEST_F(ring, kill_exporter_before_import)
{
	int es[2], is[2];
	CUlogicalEndpointFabricHandle fh;
	pid_t ep, ip;

	SETUP_SKIPPED();
	NEED_LE_MULTICAST();
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, es));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, is));
	ep = spawn(es[1], exporter2, 0);
	ASSERT_LT(0, ep);
	ASSERT_EQ((ssize_t)HLEN, read(es[0], &fh, HLEN));
	kill(ep, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(ep));
	ip = spawn(is[1], importer, 1);
	ASSERT_LT(0, ip);
	ASSERT_EQ((ssize_t)HLEN, write(is[0], &fh, HLEN));
	EXPECT_EQ(0, wait_child(ip));
	EXPECT_EQ(self->live_before, live_objects_wait(self->live_before));
	close(es[0]), close(es[1]), close(is[0]), close(is[1]);
}

/*
 * Exporter and importer both bound memory; the exporter is killed: the
 * importer's alias keeps the endpoint (its handle still imports); then the
 * importer is killed too, and everything goes.
 */
TEST_F(ring, kill_exporter_then_importer)
{
	int es[2], is[2];
	CUlogicalEndpointFabricHandle fh;
	long long mid;
	pid_t ep, ip;
	char c;

	SETUP_SKIPPED();
	NEED_LE_MULTICAST();
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, es));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, is));
	ep = spawn(es[1], exporter2, 0);
	ASSERT_LT(0, ep);
	ASSERT_EQ((ssize_t)HLEN, read(es[0], &fh, HLEN));
	ip = spawn(is[1], importer, 0);
	ASSERT_LT(0, ip);
	ASSERT_EQ((ssize_t)HLEN, write(is[0], &fh, HLEN));
	ASSERT_EQ(1, read(is[0], &c, 1));	/* importer bound */
	ASSERT_EQ(1, write(es[0], "g", 1));
	ASSERT_EQ(1, read(es[0], &c, 1));	/* exporter bound */
	mid = live_objects();
	kill(ep, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(ep));
	/* the exporter's objects went, the endpoint stayed for the importer */
	EXPECT_GT(mid, live_objects_below(mid));
	EXPECT_LT(self->live_before, live_objects());
	kill(ip, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(ip));
	EXPECT_EQ(self->live_before, live_objects_wait(self->live_before));
	close(es[0]), close(es[1]), close(is[0]), close(is[1]);
}

TEST_HARNESS_MAIN
