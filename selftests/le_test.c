// SPDX-License-Identifier: GPL-2.0
/*
 * Logical endpoints through libcufab: every cuLogicalEndpoint* call and
 * every error code of its page that the emulation can produce, the id
 * state machine, readiness polling, bind and unbind rules, aliases, the
 * clique and fabric cluster queries, an unprivileged process, process death and fault
 * injection.
 *
 * Tests that change the topology (a GPU without endpoint support, a GPU
 * in another clique) are plain TESTs: the harness runs each in a fresh
 * process, so no client is open while cufabctl changes a GPU, and the
 * endpoint calls run in a child that opens its own.
 */
#include <pthread.h>

#include "topo_helpers.h"
#include "le_helpers.h"
#include "kselftest_harness.h"

FIXTURE(le) {
	CUcontext ctx;
	int ndev;
	int fabric;		/* the IMEX channel node exists */
	int le_mc;		/* GPU 0 takes multicast endpoints */
	long long live_before;
};

FIXTURE_SETUP(le)
{
	self->ctx = NULL;
	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));
	self->ndev = num_devices();
	self->fabric = le_channel0() == 0;
	self->le_mc = le_multicast_supported(0);
	cufab_param_set("le_construct_delay_ms", "0");
	self->live_before = live_objects();
}

FIXTURE_TEARDOWN(le)
{
	cufab_param_set("le_construct_delay_ms", "0");
	imex_cleanup();
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

#define NEED_FABRIC() do {						\
	if (!self->fabric)						\
		SKIP(return, "no IMEX channel region (imex_channel_count=0)"); \
} while (0)

#define NEED_DEVICES(n) do {						\
	if (self->ndev < (n))						\
		SKIP(return, "needs %d GPUs, the node has %d", (n), self->ndev); \
} while (0)

/* ---- ids ---- */

/* Before cuInit (here: in a forked child) every call is refused. */
TEST_F(le, not_initialized)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUlogicalEndpointFabricHandle fh;
	cuuint64_t a, m;
	CUlogicalEndpointId id;
	size_t n;
	int st;
	pid_t pid;

	SETUP_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CUresult r[] = {
			cuLogicalEndpointIdReserve(&id, 1),
			cuLogicalEndpointIdRelease(1, 1),
			cuLogicalEndpointGetLimits(&a, &m, &p),
			cuLogicalEndpointCreate(1, &p),
			cuLogicalEndpointDestroy(1),
			cuLogicalEndpointAddDevice(1, 0),
			cuLogicalEndpointQuery(1, 1, &st),
			cuLogicalEndpointBindMem(1, 0, 0, 1, 0, LE_GRAN, 0),
			cuLogicalEndpointBindAddr(1, 0, 0, &st, LE_GRAN, 0),
			cuLogicalEndpointUnbind(1, 0, 0, LE_GRAN),
			cuLogicalEndpointExport(&fh, 1, FABRIC),
			cuLogicalEndpointImport(1, &fh, FABRIC),
			cuDeviceGetCliqueCount(&n, 0),
			cuDeviceGetFabricClusterUuid((CUuuid *)&fh, 0),
		};
		unsigned int i;

		for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
			if (r[i] != CUDA_ERROR_NOT_INITIALIZED)
				_exit(10 + i);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
}

TEST_F(le, reserve_release)
{
	CUlogicalEndpointId a, b, c;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&a, 1));
	EXPECT_NE(0U, a);	/* CU_LOGICAL_ENDPOINT_ID_INVALID never */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&b, 10));
	EXPECT_NE(0U, b);
	EXPECT_TRUE(b + 10 <= a || a + 1 <= b);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdReserve(NULL, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdReserve(&c, 0));
	/* a sub-range may go, the rest stays reserved */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(b + 3, 4));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(b + 3, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(b, 10));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(b, 3));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(b + 7, 3));
	/* never reserved, zero count, id 0, past the end */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(a, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(0xffffffffU, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(a, 0xffffffffU));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(a, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(a, 1));
	/* released ids may be handed out again */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&c, 1));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(c, 1));
	EXPECT_EQ(self->live_before, live_objects());
}

/* A million ids are one range: instant, and one release frees them. */
TEST_F(le, reserve_a_million)
{
	CUlogicalEndpointId base, one;
	double t0;

	SETUP_SKIPPED();
	t0 = now_ms();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&base, 1000000));
	EXPECT_LT(now_ms() - t0, 500.0);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&one, 1));
	EXPECT_TRUE(one < base || one >= base + 1000000);
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(base, 1000000));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(one, 1));
}

/* No contiguous free range: CUDA_ERROR_OUT_OF_MEMORY, nothing changed. */
TEST_F(le, reserve_exhaustion)
{
	const cuuint32_t all = 0xfffffffeU;	/* ids 1 .. 0xfffffffe */
	CUlogicalEndpointId base, x;

	SETUP_SKIPPED();
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuLogicalEndpointIdReserve(&x, 0xffffffffU));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&base, all));
	EXPECT_EQ(1U, base);
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuLogicalEndpointIdReserve(&x, 1));
	/* a hole of 10 fits 10, not 11 */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(1000, 10));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuLogicalEndpointIdReserve(&x, 11));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&x, 10));
	EXPECT_EQ(1000U, x);
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(base, all));
	EXPECT_EQ(self->live_before, live_objects());
}

/* not reserved -> reserved -> associated -> reserved -> not reserved */
TEST_F(le, id_state_machine)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUlogicalEndpointId id;
	int st;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 2));
	/* not reserved */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id + 2, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(0, &p));
	/* reserved: no endpoint to destroy, query, add to */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointDestroy(id));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointQuery(id, 1, &st));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, 0));
	/* associated */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &st));
	/* a range with one unassociated id */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointQuery(id, 2, &st));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointQuery(id, 0, &st));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointQuery(id, 1, NULL));
	/* releasing an associated id is refused, not undefined */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(id, 2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointIdRelease(id, 1));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(id + 1, 1));
	/* back to reserved, and associated again */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(id));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointDestroy(id));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(id));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(id, 1));
	/* not reserved again */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	EXPECT_EQ(self->live_before, live_objects());
}

/* ---- limits and create ---- */

TEST_F(le, get_limits)
{
	CUlogicalEndpointProp p = uprop(0, 0, 0);
	cuuint64_t align = 0, max = 0;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointGetLimits(&align, &max, &p));
	EXPECT_EQ(gran(0), align);
	EXPECT_EQ((cuuint64_t)cufab_param("le_max_size_gib") * GIB, max);
	p.flags = CU_LOGICAL_ENDPOINT_FLAG_COUNTED_OPS;
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointGetLimits(&align, &max, &p));
	EXPECT_EQ(256 * GIB, max);
	p = mprop(self->ndev, 0, FABRIC);
	if (self->le_mc) {
		ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointGetLimits(&align, &max, &p));
		EXPECT_EQ(LE_GRAN, align);
	} else {
		EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
			  cuLogicalEndpointGetLimits(&align, &max, &p));
	}

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(NULL, &max, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, NULL, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, NULL));
	p = mprop(0, 0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
	p = mprop(self->ndev + 1, 0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
	p = uprop(0, 0, 0x2);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
	p = uprop(0, 0, 0);
	p.flags = 0x2;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
	p = uprop(0, 0, 0);
	p.type = CU_LOGICAL_ENDPOINT_TYPE_INVALID;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
	p.type = (CUlogicalEndpointType)3;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
	p = uprop(self->ndev, 0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointGetLimits(&align, &max, &p));
}

/* maxSize follows the module parameter le_max_size_gib. */
TEST_F(le, max_size_parameter)
{
	CUlogicalEndpointProp p = uprop(0, 4 * GIB, 0);
	long old = cufab_param("le_max_size_gib");
	cuuint64_t align, max;
	CUlogicalEndpointId id;
	char buf[32];

	SETUP_SKIPPED();
	ASSERT_LT(0, old);
	ASSERT_EQ(0, cufab_param_set("le_max_size_gib", "2"));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointGetLimits(&align, &max, &p));
	EXPECT_EQ(2 * GIB, max);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p.size = 2 * GIB;
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	snprintf(buf, sizeof(buf), "%ld", old);
	ASSERT_EQ(0, cufab_param_set("le_max_size_gib", buf));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
}

TEST_F(le, create_rules)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUlogicalEndpointId id;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, NULL));
	p.size = 0;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p.size = LE_GRAN + 4096;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p.size = 2048 * GIB;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p = uprop(0, 512 * GIB, 0);
	p.flags = CU_LOGICAL_ENDPOINT_FLAG_COUNTED_OPS;	/* 256 GiB cap */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p = uprop(self->ndev, LE_SIZE, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p = mprop(0, LE_SIZE, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	p = uprop(0, LE_SIZE, 0x4);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointCreate(id, &p));
	/* nothing of the failed creates stuck to the id */
	p = uprop(0, 256 * GIB, 0);
	p.flags = CU_LOGICAL_ENDPOINT_FLAG_COUNTED_OPS;
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_EQ(self->live_before, live_objects());
}

/* ---- readiness ---- */

/*
 * Create does not block; binds before a ready Query are refused; the
 * caller polls until the construction delay has passed.
 */
TEST_F(le, query_polling)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;
	int ready = 1, polls = 0;
	double t0, waited;

	SETUP_SKIPPED();
	ASSERT_EQ(0, cufab_param_set("le_construct_delay_ms", "200"));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	t0 = now_ms();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	EXPECT_LT(now_ms() - t0, 150.0);	/* did not wait */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(0, ready);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 0, LE_GRAN));
	while (!ready && now_ms() - t0 < 5000) {
		usleep(10000);
		polls++;
		ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	}
	waited = now_ms() - t0;
	EXPECT_EQ(1, ready);
	EXPECT_LT(1, polls);
	EXPECT_LE(150.0, waited);
	/* Export and Destroy never needed readiness; Bind now works */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 0, LE_GRAN));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* A range is ready only when every endpoint of it is. */
TEST_F(le, query_range)
{
	CUlogicalEndpointProp u = uprop(0, LE_SIZE, 0);
	CUlogicalEndpointProp m = mprop(2, LE_SIZE, 0);
	CUlogicalEndpointId base;
	int ready;

	SETUP_SKIPPED();
	NEED_LE_MULTICAST();
	NEED_DEVICES(2);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&base, 3));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base, &u));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base + 1, &u));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base + 2, &m));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(base, 2, &ready));
	EXPECT_NE(0, ready);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(base, 3, &ready));
	EXPECT_EQ(0, ready);	/* the multicast team is empty */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(base + 2, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(base + 2, 1));
	EXPECT_CU(CUDA_SUCCESS, le_wait_ready(base, 3, 5000));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base + 1));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base + 2));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(base, 3));
}

/* ---- multicast teams ---- */

TEST_F(le, multicast_team)
{
	CUlogicalEndpointProp m = mprop(2, LE_SIZE, 0);
	CUmemGenericAllocationHandle h0, h1;
	CUlogicalEndpointId id, uid;
	int ready;

	SETUP_SKIPPED();
	NEED_LE_MULTICAST();
	NEED_DEVICES(3);
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h0, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h1, 1, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &m));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(0, ready);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(id, 0, 0, h0, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, 0));
	/* no endpoint page lists INVALID_DEVICE: a bad ordinal is a bad value */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, self->ndev));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, -1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(0, ready);	/* 1 of 2 */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, 2));
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(id, 1, 5000));
	/* only added devices, only their own memory */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(id, 2, 0, h0, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(id, 1, 0, h0, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 0, h0, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 1, 0, h1, 0, LE_GRAN, 0));
	/* a unicast endpoint takes no devices */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&uid, 1));
	m = uprop(0, LE_SIZE, 0);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(uid, &m));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(uid, 1));
	EXPECT_CU(CUDA_SUCCESS, le_drop(uid));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));	/* unbinds both */
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h0));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h1));
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * The construction delay counts again from the last AddDevice, and only
 * from an AddDevice that succeeded.
 */
TEST_F(le, multicast_delay_from_last_add)
{
	CUlogicalEndpointProp m = mprop(2, LE_SIZE, 0);
	CUlogicalEndpointId id;
	double t;
	int ready;

	SETUP_SKIPPED();
	NEED_LE_MULTICAST();
	NEED_DEVICES(2);
	ASSERT_EQ(0, cufab_param_set("le_construct_delay_ms", "200"));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &m));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 0));
	usleep(300000);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 1));
	t = now_ms();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(0, ready);
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(id, 1, 5000));
	EXPECT_LE(150.0, now_ms() - t);
	/* refused adds (a repeat, a full team) restart nothing */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, 0));
	if (self->ndev > 2)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuLogicalEndpointAddDevice(id, 2));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(1, ready);
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
}

/* ---- binds ---- */

TEST_F(le, unicast_bind_rules)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUmemGenericAllocationHandle h, h1, big;
	CUlogicalEndpointId id;
	CUdeviceptr linear;
	struct vbuf vb;

	SETUP_SKIPPED();
	NEED_DEVICES(2);
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h1, 1, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&big, 0, 2 * LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &p));

	/* flags, owner, alignment, bounds */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 1, 0, h1, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, self->ndev, 0, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 4096, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, h, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, h, 0, 4096, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, LE_SIZE, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, h, 0, 2 * LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, big, 4096, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, big, LE_GRAN, 2 * LE_GRAN, 0));
	/* memory of another device, unknown handles */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, h1, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, 0, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, 0xfffff, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id + 1, 0, 0, h, 0, LE_GRAN, 0));

	/* the same allocation may back several offsets; overlaps may not */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, LE_GRAN, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 4 * LE_GRAN, big, LE_GRAN, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 0, big, 0, 2 * LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindMem(id, 0, 3 * LE_GRAN, big, 0, 2 * LE_GRAN, 0));

	/* BindAddr: a cuMemMap'ed address, aligned; not cuMemAlloc memory */
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&vb, 0, 2 * LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindAddr(id, 0, 8 * LE_GRAN,
		  (void *)(vb.va + LE_GRAN), LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id, 0, 10 * LE_GRAN,
		  (void *)(vb.va + 4096), LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id, 0, 10 * LE_GRAN,
		  (void *)vb.va, 3 * LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id, 0, 10 * LE_GRAN,
		  (void *)vb.va, LE_GRAN, 2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id, 0, 10 * LE_GRAN,
		  NULL, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id, 0, 10 * LE_GRAN,
		  (void *)(uintptr_t)(64 * GIB), LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&linear, 2 * LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id, 0, 10 * LE_GRAN,
		  (void *)((linear + LE_GRAN - 1) & ~(LE_GRAN - 1)), LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(linear));

	/* bindings keep the memory: release and unmap everything first */
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&vb));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h1));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(big));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 0, 2 * LE_GRAN));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_EQ(self->live_before, live_objects());
}

/* Exportable endpoints bind only exportable memory. */
TEST_F(le, exportable_needs_exportable_memory)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, FABRIC);
	CUmemGenericAllocationHandle plain, shareable;
	CUlogicalEndpointId id;

	SETUP_SKIPPED();
	NEED_FABRIC();
	ASSERT_CU(CUDA_SUCCESS, mem_on(&plain, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&shareable, 0, LE_GRAN,
				       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(id, 0, 0, plain, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS,
		  cuLogicalEndpointBindMem(id, 0, 0, shareable, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(plain));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(shareable));
}

/* HOST_NUMA memory binds on a device whose HOST_NUMA_ID is its node. */
TEST_F(le, host_numa_memory)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUmemGenericAllocationHandle near, far;
	CUmemAllocationProp mp = dev_prop(0, 0);
	int n0 = -1, other = -1, d, n;
	CUlogicalEndpointId id;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&n0, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, 0));
	for (d = 1; d < self->ndev; d++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&n, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, d));
		if (n != n0 && n >= 0)
			other = n;
	}
	if (n0 < 0 || other < 0)
		SKIP(return, "needs GPUs on two host NUMA nodes (run with --numa 2)");
	mp.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	mp.location.id = n0;
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&near, LE_GRAN, &mp, 0));
	mp.location.id = other;
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&far, LE_GRAN, &mp, 0));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(id, 0, 0, far, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS,
		  cuLogicalEndpointBindMem(id, 0, 0, near, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(near));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(far));
}

/*
 * Unbind: the offset of a bind, the size of one bind or of adjacent binds
 * fully enclosed. A = [0, 4M), B = [4M, 6M), gap, C = [10M, 12M).
 */
TEST_F(le, unbind_rules)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, 2 * LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &p));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 0, h, 0, 2 * LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 2 * LE_GRAN, h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 5 * LE_GRAN, h, LE_GRAN, LE_GRAN, 0));

	/* inside A, A cut short, B plus the gap, nothing there */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, LE_GRAN, LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 0, LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 2 * LE_GRAN, 2 * LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 2 * LE_GRAN, 4 * LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 3 * LE_GRAN, LE_GRAN));
	/* shape errors */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 4096, LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 1, 0, 2 * LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, self->ndev, 0, 2 * LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id + 1, 0, 0, 2 * LE_GRAN));
	/* A and B together, then C alone */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 0, 3 * LE_GRAN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointUnbind(id, 0, 0, 3 * LE_GRAN));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 5 * LE_GRAN, LE_GRAN));
	/* everything unbound: the range can be bound again */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, 0, h, 0, 2 * LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 0, 2 * LE_GRAN));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_EQ(self->live_before, live_objects());
}

/* Destroy unbinds what this process bound; the memory is freed after. */
TEST_F(le, destroy_with_bindings)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;
	int i;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &p));
	for (i = 0; i < 8; i++)
		ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, i * LE_GRAN, h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_LT(self->live_before, live_objects());
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(id));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(id, 1));
	EXPECT_EQ(self->live_before, live_objects());
}

/* ---- export, import, aliases ---- */

TEST_F(le, export_import_errors)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, FABRIC);
	CUlogicalEndpointFabricHandle fh, bad;
	CUlogicalEndpointId id, plain, free_id;
	CUmemGenericAllocationHandle h;
	CUmemFabricHandle mfh;
	unsigned int i;

	SETUP_SKIPPED();
	NEED_FABRIC();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	/* export needs no readiness */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointExport(&fh, id, FABRIC));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointExport(NULL, id, FABRIC));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointExport(&bad, id,
		  CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_NONE));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointExport(&bad, id,
		  (CUlogicalEndpointIpcHandleType)7));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointExport(&bad, id + 1, FABRIC));
	/* not created exportable */
	p.ipcHandleTypes = 0;
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&plain, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(plain, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointExport(&bad, plain, FABRIC));

	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&free_id, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id, NULL, FABRIC));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id, &fh,
		  CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_NONE));
	/* into an associated id, an id not reserved */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(plain, &fh, FABRIC));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id + 1000, &fh, FABRIC));
	/* forged handles, a memory handle */
	for (i = 0; i < sizeof(fh.data); i += 7) {
		bad = fh;
		bad.data[i] ^= 0x40;
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id, &bad, FABRIC));
	}
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&mfh, h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id, &mfh, FABRIC));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	/* the genuine one works; the same handle again for the same endpoint */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointImport(free_id, &fh, FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointExport(&bad, id, FABRIC));
	EXPECT_EQ(0, memcmp(&fh, &bad, sizeof(fh)));
	EXPECT_CU(CUDA_SUCCESS, le_drop(free_id));
	EXPECT_CU(CUDA_SUCCESS, le_drop(plain));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	/* the endpoint is gone: its handle with it */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&free_id, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id, &fh, FABRIC));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(free_id, 1));
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * Two ids of one process alias one unicast endpoint: the imported alias
 * cannot bind; destroying the creator's id leaves the endpoint to the
 * other alias, which can export it again.
 */
TEST_F(le, unicast_aliases)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, FABRIC);
	CUlogicalEndpointFabricHandle fh, fh2;
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId base, free_id;

	SETUP_SKIPPED();
	NEED_FABRIC();
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&base, 3));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base, &p));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointExport(&fh, base, FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointImport(base + 1, &fh, FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointImport(base + 2, &fh, FABRIC));
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(base, 3, 5000));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(base, 0, 0, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_ERROR_NOT_PERMITTED,
		  cuLogicalEndpointBindMem(base + 1, 0, LE_GRAN, h, 0, LE_GRAN, 0));
	/* the creator's id goes; the endpoint lives on in the aliases */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base));
	EXPECT_CU(CUDA_SUCCESS, le_wait_ready(base + 1, 2, 5000));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointExport(&fh2, base + 1, FABRIC));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base + 1));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointImport(base, &fh2, FABRIC));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base + 2));
	/* the last alias went: the endpoint and its handles are gone */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&free_id, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointImport(free_id, &fh, FABRIC));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(free_id, 1));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(base, 3));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_EQ(self->live_before, live_objects());
}

/* Imported multicast endpoints bind, but only exportable memory. */
TEST_F(le, multicast_alias_binds_exportable)
{
	CUlogicalEndpointProp p = mprop(2, LE_SIZE, FABRIC);
	CUmemGenericAllocationHandle plain, shareable;
	CUlogicalEndpointFabricHandle fh;
	CUlogicalEndpointId base;

	SETUP_SKIPPED();
	NEED_FABRIC();
	NEED_LE_MULTICAST();
	NEED_DEVICES(2);
	ASSERT_CU(CUDA_SUCCESS, mem_on(&plain, 1, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&shareable, 1, LE_GRAN, CU_MEM_HANDLE_TYPE_FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&base, 2));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base, &p));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(base, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointExport(&fh, base, FABRIC));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointImport(base + 1, &fh, FABRIC));
	/* an importer adds its own device */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(base + 1, 1));
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(base, 2, 5000));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointBindMem(base + 1, 1, 0, plain, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS,
		  cuLogicalEndpointBindMem(base + 1, 1, 0, shareable, 0, LE_GRAN, 0));
	/* Destroy of the alias unbinds what was bound through it */
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base + 1));
	EXPECT_CU(CUDA_SUCCESS,
		  cuLogicalEndpointBindMem(base, 1, 0, shareable, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(base, 2));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(plain));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(shareable));
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * An unprivileged process that cannot open the (root-only) channel node
 * gets CUDA_ERROR_NOT_PERMITTED for FABRIC create and import; endpoints
 * without IPC need no channel.
 */
TEST_F(le, unprivileged_without_channel)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, FABRIC);
	CUlogicalEndpointFabricHandle fh;
	CUlogicalEndpointId id;
	pid_t pid;

	SETUP_SKIPPED();
	NEED_FABRIC();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &p));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointExport(&fh, id, FABRIC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CUlogicalEndpointId mine;

		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(50);
		if (open(IMEX_DIR "/channel0", O_RDONLY) >= 0)
			_exit(51);
		if (cuInit(0) || cuLogicalEndpointIdReserve(&mine, 2))
			_exit(52);
		if (cuLogicalEndpointCreate(mine, &p) != CUDA_ERROR_NOT_PERMITTED)
			_exit(53);
		if (cuLogicalEndpointImport(mine, &fh, FABRIC) !=
		    CUDA_ERROR_NOT_PERMITTED)
			_exit(54);
		p.ipcHandleTypes = 0;
		if (cuLogicalEndpointCreate(mine + 1, &p) ||
		    cuLogicalEndpointExport(&fh, mine + 1, FABRIC) !=
		    CUDA_ERROR_NOT_PERMITTED)
			_exit(55);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_EQ(self->live_before, live_objects_wait(self->live_before));
}

/* Process death is a Destroy of every alias: nothing stays behind. */
TEST_F(le, process_death)
{
	pid_t pid;

	SETUP_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
		CUmemGenericAllocationHandle h;
		CUlogicalEndpointId id, many;

		if (cuInit(0) || mem_on(&h, 0, LE_GRAN, 0) ||
		    le_make(&id, &p) ||
		    cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0) ||
		    cuLogicalEndpointIdReserve(&many, 100000))
			_exit(1);
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	EXPECT_EQ(0x100 | SIGKILL, wait_child(pid));
	EXPECT_EQ(self->live_before, live_objects_wait(self->live_before));
}

/* ---- cliques and attributes ---- */

TEST_F(le, cliques)
{
	CUcliqueInfo info[8];
	size_t count = 0, n;
	int v, d;

	SETUP_SKIPPED();
	for (d = 0; d < self->ndev; d++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCliqueCount(&count, d));
		ASSERT_LE(1U, count);
		ASSERT_GE(4U, count);
		n = 8;
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCliqueInfo(info, &n, d));
		ASSERT_EQ(count, n);
		EXPECT_EQ(CU_CLIQUE_TYPE_UNICAST_POINTER, info[0].type);
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED, d));
		EXPECT_EQ(v != 0, info[n - 1].type >= CU_CLIQUE_TYPE_UNICAST_LOGICAL_ENDPOINT);
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES, d));
		EXPECT_EQ(CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC, v);	/* a mask of values */
	}
	/* every GPU of the default node: one clique, all four ways */
	n = 8;
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCliqueInfo(info, &n, 0));
	if (self->le_mc) {
		EXPECT_EQ(4U, n);
		for (d = 0; d < (int)n; d++)
			EXPECT_EQ((CUcliqueType)d, info[d].type);
	}
	/* a shorter array gets the first entries */
	n = 2;
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCliqueInfo(info, &n, 0));
	EXPECT_EQ(2U, n);
	n = 0;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetCliqueInfo(NULL, &n, 0));
	EXPECT_EQ(0U, n);
	n = 1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetCliqueInfo(NULL, &n, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetCliqueInfo(info, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetCliqueCount(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetCliqueCount(&count, self->ndev));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetCliqueInfo(info, &n, -1));
}

/* ---- the fabric cluster ---- */

/* "cufabctl -j topo show | jsoncheck PATH" in @out, one line; 0 on success. */
static int topo_json(const char *path, char *out, size_t len)
{
	char jargs[64];
	int ret;

	snprintf(jargs, sizeof(jargs), "'%s'", path);
	ret = ctl_run("-j topo show", jargs, out, len);
	out[strcspn(out, "\n")] = '\0';
	return ret;
}

/* xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as cufabctl and the parameter print */
static void uuid_str(const CUuuid *uuid, char buf[37])
{
	const unsigned char *u = (const unsigned char *)uuid->bytes;

	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * Every GPU on the fabric (fabric handles, and the node has the NVSwitch)
 * reports the one non-nil UUID of the node, the same in every call and
 * every process, and the one cufabctl and the module parameter show; any
 * other GPU is in no cluster: NOT_SUPPORTED.
 */
TEST_F(le, fabric_cluster_uuid)
{
	static const CUuuid nil;
	char got[64], want[37], param[64] = "";
	CUuuid first = nil, u, theirs;
	int d, v, on_switch, d_first = -1, fds[2];
	CUresult res;
	FILE *f;
	pid_t pid;

	SETUP_SKIPPED();
	if (topo_json(".nvswitch", got, sizeof(got)))
		SKIP(return, "no cufabctl or jsoncheck next to the selftests");
	on_switch = !strcmp(got, "true");
	for (d = 0; d < self->ndev; d++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, d));
		memset(&u, 0xa5, sizeof(u));
		if (!on_switch || !v) {
			EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
				  cuDeviceGetFabricClusterUuid(&u, d));
			continue;
		}
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetFabricClusterUuid(&u, d));
		EXPECT_NE(0, memcmp(&u, &nil, sizeof(u)));
		if (d_first < 0) {
			first = u;
			d_first = d;
		}
		EXPECT_EQ(0, memcmp(&u, &first, sizeof(u)));
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetFabricClusterUuid(&u, d));
		EXPECT_EQ(0, memcmp(&u, &first, sizeof(u)));
	}

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetFabricClusterUuid(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuDeviceGetFabricClusterUuid(&u, self->ndev));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetFabricClusterUuid(&u, -1));

	/* cufabctl and the module parameter show the node's UUID */
	ASSERT_EQ(0, topo_json(".cluster_uuid", got, sizeof(got)));
	EXPECT_EQ(36U, strlen(got));
	EXPECT_STRNE("00000000-0000-0000-0000-000000000000", got);
	f = fopen(CUFAB_PARAMS "cluster_uuid", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(param, sizeof(param), f));
	fclose(f);
	param[strcspn(param, "\n")] = '\0';
	EXPECT_STREQ(got, param);
	/* a node loaded with cluster_uuid=...: the value given (tools/check) */
	if (getenv("CUFAB_CLUSTER_UUID"))
		EXPECT_STREQ(getenv("CUFAB_CLUSTER_UUID"), got);
	if (d_first < 0)
		return;
	uuid_str(&first, want);
	EXPECT_STREQ(want, got);

	/* another process: refused before its cuInit, then the same UUID */
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(fds[0]);
		if (cuDeviceGetFabricClusterUuid(&theirs, d_first) !=
		    CUDA_ERROR_NOT_INITIALIZED)
			_exit(10);
		if (cuInit(0))
			_exit(11);
		res = cuDeviceGetFabricClusterUuid(&theirs, d_first);
		if (res)
			_exit(12);
		_exit(write(fds[1], &theirs, sizeof(theirs)) == sizeof(theirs) ?
		      0 : 13);
	}
	close(fds[1]);
	memset(&theirs, 0, sizeof(theirs));
	EXPECT_EQ((ssize_t)sizeof(theirs), read(fds[0], &theirs, sizeof(theirs)));
	close(fds[0]);
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(0, memcmp(&theirs, &first, sizeof(first)));
}

/* cuGetProcAddress finds the 13.3 calls, not for older versions. */
TEST_F(le, proc_address)
{
	CUdriverProcAddressQueryResult st;
	void *fn = NULL;

	SETUP_SKIPPED();
	EXPECT_CU(CUDA_SUCCESS, cuGetProcAddress("cuLogicalEndpointCreate", &fn,
						 13030, 0, &st));
	EXPECT_EQ((void *)cuLogicalEndpointCreate, fn);
	EXPECT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDeviceGetCliqueInfo", &fn,
						 13030, 0, &st));
	EXPECT_EQ((void *)cuDeviceGetCliqueInfo, fn);
	EXPECT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDeviceGetFabricClusterUuid",
						 &fn, 13030, 0, &st));
	EXPECT_EQ((void *)cuDeviceGetFabricClusterUuid, fn);
	cuGetProcAddress("cuDeviceGetFabricClusterUuid", &fn, 13020, 0, &st);
	EXPECT_EQ(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, st);
	cuGetProcAddress("cuLogicalEndpointCreate", &fn, 12000, 0, &st);
	EXPECT_EQ(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, st);
}

/* ---- fault injection ---- */

/* One pass over every allocating endpoint path; 0 or the first error. */
static CUresult le_scenario(int fabric)
{
	CUlogicalEndpointProp u = uprop(0, LE_SIZE, fabric ? FABRIC : 0);
	CUlogicalEndpointProp m = mprop(1, LE_SIZE, 0);
	CUlogicalEndpointFabricHandle fh;
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId base = 0;
	CUresult r, r2;
	int have_h;

	r = mem_on(&h, 0, LE_GRAN, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	have_h = r == CUDA_SUCCESS;
	if (!r)
		r = cuLogicalEndpointIdReserve(&base, 4);
	if (!r)
		r = cuLogicalEndpointCreate(base, &u);
	if (!r)
		r = cuLogicalEndpointCreate(base + 1, &m);
	if (!r)
		r = cuLogicalEndpointAddDevice(base + 1, 0);
	if (!r && fabric)
		r = cuLogicalEndpointExport(&fh, base, FABRIC);
	if (!r && fabric)
		r = cuLogicalEndpointImport(base + 2, &fh, FABRIC);
	if (!r)
		r = le_wait_ready(base, 2, 5000);
	if (!r)
		r = cuLogicalEndpointBindMem(base, 0, 0, h, 0, LE_GRAN, 0);
	if (!r)
		r = cuLogicalEndpointBindMem(base + 1, 0, LE_GRAN, h, 0, LE_GRAN, 0);
	if (!r)
		r = cuLogicalEndpointUnbind(base, 0, 0, LE_GRAN);
	if (!r)
		r = cuLogicalEndpointIdRelease(base + 3, 1);
	/* cleanup: whatever exists goes, errors of absent ids ignored */
	if (base) {
		cuLogicalEndpointDestroy(base);
		cuLogicalEndpointDestroy(base + 1);
		cuLogicalEndpointDestroy(base + 2);
		cuLogicalEndpointIdRelease(base, 3);
		cuLogicalEndpointIdRelease(base + 3, 1);
	}
	if (have_h) {
		r2 = cuMemRelease(h);
		if (!r)
			r = r2;
	}
	return r;
}

TEST_FAIL_NTH(le, fail_nth)
{
	/* checked once: under fail-nth, access() itself may fail */
	if (!nth->n && access(CUFAB_DEBUGFS "/fail_le", F_OK))
		SKIP(return 0, "no %s", CUFAB_DEBUGFS "/fail_le");
	nth->oom = CUDA_ERROR_OUT_OF_MEMORY;
	nth->min_failed = 1;
	return le_scenario(self->fabric);
}

/* ---- topology-dependent errors (a client-less process changes a GPU) ---- */


/*
 * Runs @fn in a child while gpu1 is changed by "cufabctl dev set gpu1
 * @change"; @undo puts it back. cufabctl cannot change a GPU while a
 * client is open, so this process opens none: @fn gets its own client.
 */
static void with_gpu1(struct __test_metadata *_metadata, const char *change,
		      const char *undo, int (*fn)(void))
{
	char cmd[128];
	int ret;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "cufab.ko not loaded");
	if (gpu_count() < 2)
		SKIP(return, "needs 2 GPUs");
	snprintf(cmd, sizeof(cmd), "dev set gpu1 %s", change);
	if (ctl(cmd))
		SKIP(return, "cufabctl cannot change gpu1 (a client is open?)");
	ret = in_child(fn);
	snprintf(cmd, sizeof(cmd), "dev set gpu1 %s", undo);
	ASSERT_EQ(0, ctl(cmd));
	EXPECT_EQ(0, ret);
}

/* gpu1 without endpoint support: NOT_SUPPORTED for it. */
static int no_le_support(void)
{
	CUlogicalEndpointProp p = uprop(1, LE_SIZE, 0);
	CUlogicalEndpointId id;
	cuuint64_t a, m;
	size_t n = 8;
	CUcliqueInfo info[8];
	int n_all = 0;

	if (cuLogicalEndpointGetLimits(&a, &m, &p) != CUDA_ERROR_NOT_SUPPORTED)
		return 10;
	if (cuLogicalEndpointIdReserve(&id, 2) ||
	    cuLogicalEndpointCreate(id, &p) != CUDA_ERROR_NOT_SUPPORTED)
		return 11;
	cuDeviceGetCount(&n_all);
	p = mprop(n_all, LE_SIZE, 0);
	if (cuLogicalEndpointCreate(id, &p) != CUDA_ERROR_NOT_SUPPORTED)
		return 12;
	p = mprop(2, LE_SIZE, 0);
	if (cuLogicalEndpointCreate(id, &p) ||
	    cuLogicalEndpointAddDevice(id, 1) != CUDA_ERROR_NOT_SUPPORTED ||
	    cuLogicalEndpointAddDevice(id, 0))
		return 13;
	if (cuDeviceGetCliqueInfo(info, &n, 1) || n != 2)
		return 14;
	return 0;
}

TEST(le_without_support)
{
	if (!le_multicast_supported_forked(0))
		SKIP(return, "no multicast endpoints on GPU 0 (nvswitch=0?)");
	with_gpu1(_metadata, "le-unicast off le-multicast off",
		  "le-unicast on le-multicast on", no_le_support);
}

/* gpu1 in another clique than gpu0. */
static int other_clique(void)
{
	CUlogicalEndpointProp p = mprop(2, LE_SIZE, 0);
	CUlogicalEndpointFabricHandle fh;
	CUlogicalEndpointId id;
	CUcontext ctx;
	CUcliqueInfo a[4], b[4];
	size_t n = 4;

	if (cuDeviceGetCliqueInfo(a, &n, 0) || cuDeviceGetCliqueInfo(b, &n, 1) ||
	    a[0].id == b[0].id)
		return 20;
	if (cuLogicalEndpointIdReserve(&id, 2) || cuLogicalEndpointCreate(id, &p) ||
	    cuLogicalEndpointAddDevice(id, 0))
		return 21;
	/* the code cuLogicalEndpointImport gives for the same GPU below */
	if (cuLogicalEndpointAddDevice(id, 1) != CUDA_ERROR_NOT_SUPPORTED)
		return 22;
	if (le_channel0())
		return 0;	/* no IMEX region: the import half is moot */
	p = uprop(0, LE_SIZE, FABRIC);
	if (cuLogicalEndpointCreate(id + 1, &p) ||
	    cuLogicalEndpointExport(&fh, id + 1, FABRIC) ||
	    cuLogicalEndpointDestroy(id))
		return 23;
	/* an importer working on gpu1 cannot use gpu0's endpoint */
	if (cuCtxCreate(&ctx, NULL, 0, 1))
		return 24;
	if (cuLogicalEndpointImport(id, &fh, FABRIC) != CUDA_ERROR_NOT_SUPPORTED)
		return 25;
	cuCtxDestroy(ctx);
	imex_cleanup();
	return 0;
}

TEST(le_other_clique)
{
	if (!le_multicast_supported_forked(0))
		SKIP(return, "no multicast endpoints on GPU 0 (nvswitch=0?)");
	with_gpu1(_metadata, "clique 1", "clique 0", other_clique);
}

/* gpu1 without fabric handles: off the fabric, in no cluster. */
static int no_fabric(void)
{
	CUuuid a, b;

	if (cuDeviceGetFabricClusterUuid(&b, 1) != CUDA_ERROR_NOT_SUPPORTED)
		return 30;
	if (cuDeviceGetFabricClusterUuid(&a, 0))
		return 31;
	return 0;
}

TEST(le_cluster_without_fabric)
{
	if (!le_multicast_supported_forked(0))
		SKIP(return, "no NVSwitch on GPU 0 (nvswitch=0?)");
	with_gpu1(_metadata, "fabric off", "fabric on", no_fabric);
}

TEST_HARNESS_MAIN
