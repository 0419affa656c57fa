// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: threads of one process and whole processes racing on the
 * same multicast objects and logical endpoints. Each thread owns its
 * (device, offset) ranges, so every call must succeed; what is checked is
 * that the kernel's team and binding locks keep every call whole (a bind,
 * an unbind, a broadcast, a destroy) and that nothing leaks, also when
 * processes die in the middle. Under the debug kernel lockdep, KASAN and
 * kmemleak watch the same runs.
 *
 * Iteration counts, not time, bound every loop: the results do not depend
 * on the speed of the machine.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "le_helpers.h"
#include "mc_helpers.h"

#define ROUNDS		5000	/* bind+unbind pairs per thread */
#define SLOTS		2	/* offsets each device binds at */
#define USES		3	/* user calls that must overlap the binders */
#define KILL_ROUNDS	4
#define KILL_CHILDREN	3

FIXTURE(stress) {
	CUcontext ctx;
	long long live_before;
	size_t g;
	int le_mc;
};

FIXTURE_SETUP(stress)
{
	self->ctx = NULL;
	MC_OR_SKIP(2);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));
	self->g = mc_gran();
	ASSERT_NE(0, self->g);
	self->le_mc = le_multicast_supported(0);
	cufab_param_set("le_construct_delay_ms", "0");
	self->live_before = live_objects();
}

FIXTURE_TEARDOWN(stress)
{
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

/* What every thread of a run shares; @errors counts unexpected results. */
struct race {
	const struct race_ops *ops;
	CUcontext ctx;
	CUmemGenericAllocationHandle obj;	/* multicast object */
	CUlogicalEndpointId id;			/* multicast endpoint */
	CUmemGenericAllocationHandle mem[2];	/* per device, SLOTS * g */
	CUdeviceptr va;				/* the object's mapping */
	size_t g;
	atomic_int errors;
	atomic_int stop;
	atomic_int uses;	/* broadcasts or queries done meanwhile */
};

struct worker {
	struct race *r;
	int dev;
	pthread_t t;
};

static void race_bad(struct race *r, const char *what, CUresult res)
{
	fprintf(stderr, "# %s: unexpected %d\n", what, (int)res);
	atomic_fetch_add(&r->errors, 1);
}

/* One (device, offset) slot of the object or the endpoint of the run. */
struct race_ops {
	const char *what;
	CUresult (*bind)(struct race *r, int dev, size_t off);
	CUresult (*unbind)(struct race *r, int dev, size_t off);
};

static CUresult mc_bind(struct race *r, int dev, size_t off)
{
	return cuMulticastBindMem(r->obj, off, r->mem[dev], off, r->g, 0);
}

static CUresult mc_unbind(struct race *r, int dev, size_t off)
{
	return cuMulticastUnbind(r->obj, dev, off, r->g);
}

static const struct race_ops mc_ops = {
	"cuMulticastBindMem/Unbind", mc_bind, mc_unbind,
};

static CUresult le_bind(struct race *r, int dev, size_t off)
{
	return cuLogicalEndpointBindMem(r->id, dev, off, r->mem[dev], off,
					r->g, 0);
}

static CUresult le_unbind(struct race *r, int dev, size_t off)
{
	return cuLogicalEndpointUnbind(r->id, dev, off, r->g);
}

static const struct race_ops le_ops = {
	"cuLogicalEndpointBindMem/Unbind", le_bind, le_unbind,
};

/*
 * Bind and unbind this device's slots, in turn, ROUNDS times and until
 * the user thread has made USES calls meanwhile (a first broadcast may
 * take longer than all the rounds, while it allocates the replicas).
 */
static void *binder(void *arg)
{
	struct worker *w = arg;
	struct race *r = w->r;
	size_t off;
	CUresult res;
	int i;

	cuCtxSetCurrent(r->ctx);
	for (i = 0; i < ROUNDS || atomic_load(&r->uses) < USES; i++) {
		off = (i % SLOTS) * r->g;
		res = r->ops->bind(r, w->dev, off);
		if (!res)
			res = r->ops->unbind(r, w->dev, off);
		if (res)
			race_bad(r, r->ops->what, res);
	}
	return NULL;
}

/* Broadcast and load-reduce over the whole object while binds come and go. */
static void *mc_user(void *arg)
{
	struct race *r = arg;
	size_t len = SLOTS * r->g;
	unsigned int skipped;
	unsigned char *buf = malloc(len);
	uint32_t sum[64];
	CUresult res;

	cuCtxSetCurrent(r->ctx);
	if (!buf) {
		race_bad(r, "malloc", CUDA_ERROR_OUT_OF_MEMORY);
		return NULL;
	}
	memset(buf, 0x5a, len);
	while (!atomic_load(&r->stop)) {
		res = cufabMultimemBroadcast(r->va, buf, len, &skipped);
		if (res || skipped > 2)
			race_bad(r, "cufabMultimemBroadcast", res);
		res = cufabMultimemLoadReduce(sum, r->va, CUFAB_MULTIMEM_U32,
					      CUFAB_MULTIMEM_ADD, 64, NULL);
		if (res)
			race_bad(r, "cufabMultimemLoadReduce", res);
		atomic_fetch_add(&r->uses, 1);
	}
	free(buf);
	return NULL;
}

static void start(struct worker *w, void *(*fn)(void *), void *arg)
{
	if (pthread_create(&w->t, NULL, fn, arg))
		abort();
}

/* A binder per device and one @user thread until the binders are done. */
static void race_run(struct race *r, void *(*user)(void *))
{
	struct worker w[2], u;
	int d;

	start(&u, user, r);
	for (d = 0; d < 2; d++) {
		w[d] = (struct worker){ .r = r, .dev = d };
		start(&w[d], binder, &w[d]);
	}
	for (d = 0; d < 2; d++)
		pthread_join(w[d].t, NULL);
	atomic_store(&r->stop, 1);
	pthread_join(u.t, NULL);
}

/*
 * Two devices' binders, at the same offsets, and a broadcaster on one
 * multicast object: the bindings and the multimem walk take the team lock
 * in turn; a broadcast skips the replicas unbound at that moment.
 */
TEST_F(stress, multicast_binds_and_broadcasts)
{
	CUmulticastObjectProp p;
	struct race r = { .ops = &mc_ops, .ctx = self->ctx, .g = self->g };
	int d;

	SETUP_SKIPPED();
	p = mc_prop(2, SLOTS * r.g, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&r.obj, &p));
	for (d = 0; d < 2; d++) {
		ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(r.obj, d));
		ASSERT_CU(CUDA_SUCCESS, mem_on(&r.mem[d], d, SLOTS * r.g, 0));
	}
	ASSERT_CU(CUDA_SUCCESS, mc_map(&r.va, r.obj, SLOTS * r.g, 0));

	race_run(&r, mc_user);
	EXPECT_EQ(0, atomic_load(&r.errors));
	EXPECT_LE(USES, atomic_load(&r.uses));

	/* every bind was undone: nothing left to unbind */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMulticastUnbind(r.obj, 0, 0, r.g));
	EXPECT_CU(CUDA_SUCCESS, mc_unmap(r.va, SLOTS * r.g));
	for (d = 0; d < 2; d++)
		EXPECT_CU(CUDA_SUCCESS, cuMemRelease(r.mem[d]));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(r.obj));
	EXPECT_EQ(self->live_before, live_objects());
}

static void *le_querier(void *arg)
{
	struct race *r = arg;
	CUresult res;
	int ready;

	cuCtxSetCurrent(r->ctx);
	while (!atomic_load(&r->stop)) {
		res = cuLogicalEndpointQuery(r->id, 1, &ready);
		if (res || !ready)
			race_bad(r, "cuLogicalEndpointQuery", res);
		atomic_fetch_add(&r->uses, 1);
	}
	return NULL;
}

/* Two devices bind the same multicast endpoint while a third thread polls. */
TEST_F(stress, endpoint_binds_and_queries)
{
	CUlogicalEndpointProp m = mprop(2, 0, 0);
	struct race r = { .ops = &le_ops, .ctx = self->ctx, .g = self->g };
	int d;

	SETUP_SKIPPED();
	if (!self->le_mc)
		SKIP(return, "no multicast endpoints on GPU 0 (nvswitch=0?)");
	m.size = SLOTS * r.g;
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&r.id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(r.id, &m));
	for (d = 0; d < 2; d++) {
		ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(r.id, d));
		ASSERT_CU(CUDA_SUCCESS, mem_on(&r.mem[d], d, SLOTS * r.g, 0));
	}
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(r.id, 1, 5000));

	race_run(&r, le_querier);
	EXPECT_EQ(0, atomic_load(&r.errors));
	EXPECT_LE(USES, atomic_load(&r.uses));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointUnbind(r.id, 0, 0, r.g));
	EXPECT_CU(CUDA_SUCCESS, le_drop(r.id));
	for (d = 0; d < 2; d++)
		EXPECT_CU(CUDA_SUCCESS, cuMemRelease(r.mem[d]));
	EXPECT_EQ(self->live_before, live_objects());
}

/* Binds until the endpoint is destroyed under it, then stops. */
static void *le_until_gone(void *arg)
{
	struct worker *w = arg;
	struct race *r = w->r;
	CUresult res;

	cuCtxSetCurrent(r->ctx);
	while (!atomic_load(&r->stop)) {
		res = cuLogicalEndpointBindMem(r->id, w->dev, 0, r->mem[w->dev],
					       0, r->g, 0);
		if (res == CUDA_SUCCESS)
			res = cuLogicalEndpointUnbind(r->id, w->dev, 0, r->g);
		/* after the destroy the id is only reserved: INVALID_VALUE */
		if (res != CUDA_SUCCESS && res != CUDA_ERROR_INVALID_VALUE)
			race_bad(r, "bind or unbind during destroy", res);
		if (res == CUDA_ERROR_INVALID_VALUE)
			break;
	}
	return NULL;
}

/*
 * Destroy while another thread binds: a bind is either whole before the
 * destroy (and the destroy unbinds it) or refused after it.
 */
TEST_F(stress, endpoint_destroy_while_binding)
{
	CUlogicalEndpointProp u = uprop(0, 0, 0);
	struct race r = { .ctx = self->ctx, .g = self->g };
	struct worker w = { .r = &r, .dev = 0 };
	int round;

	SETUP_SKIPPED();
	u.size = r.g;
	ASSERT_CU(CUDA_SUCCESS, mem_on(&r.mem[0], 0, r.g, 0));
	for (round = 0; round < 20; round++) {
		ASSERT_CU(CUDA_SUCCESS, le_make(&r.id, &u));
		atomic_store(&r.stop, 0);
		start(&w, le_until_gone, &w);
		usleep(round * 500);
		EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(r.id));
		atomic_store(&r.stop, 1);
		pthread_join(w.t, NULL);
		EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(r.id, 1));
	}
	EXPECT_EQ(0, atomic_load(&r.errors));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(r.mem[0]));
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * One child's life: memory, an endpoint and a multicast object made,
 * bound and taken apart in a loop until it is killed.
 */
static int churn(int dev, size_t g)
{
	CUlogicalEndpointProp u = uprop(dev, 0, 0);
	CUmulticastObjectProp p = mc_prop(1, g, 0);
	CUmemGenericAllocationHandle h, obj;
	CUlogicalEndpointId id;
	CUcontext ctx;

	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, dev))
		return 1;
	u.size = g;
	for (;;) {
		if (mem_on(&h, dev, g, 0) || le_make(&id, &u) ||
		    cuLogicalEndpointBindMem(id, dev, 0, h, 0, g, 0))
			return 2;
		if (cuMulticastCreate(&obj, &p) || cuMulticastAddDevice(obj, dev) ||
		    cuMulticastBindMem(obj, 0, h, 0, g, 0))
			return 3;
		if (cuMulticastUnbind(obj, dev, 0, g) || cuMemRelease(obj) ||
		    le_drop(id) || cuMemRelease(h))
			return 4;
	}
}

/*
 * kill -9 at arbitrary points of that loop: process death must undo
 * whatever was half made, and nothing may leak.
 */
TEST_F(stress, kill_during_churn)
{
	pid_t pid[KILL_CHILDREN];
	int round, i, status;

	SETUP_SKIPPED();
	for (round = 0; round < KILL_ROUNDS; round++) {
		for (i = 0; i < KILL_CHILDREN; i++) {
			pid[i] = fork();
			ASSERT_LE(0, pid[i]);
			if (pid[i] == 0)
				_exit(churn(i % 2, self->g));
		}
		usleep(20000 + round * 30000);
		for (i = 0; i < KILL_CHILDREN; i++) {
			kill(pid[i], SIGKILL);
			ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
			/* killed mid-loop, never an early exit with an error */
			EXPECT_TRUE(WIFSIGNALED(status));
			if (WIFEXITED(status))
				fprintf(stderr, "# child %d exited %d\n", i,
					WEXITSTATUS(status));
		}
	}
	EXPECT_EQ(self->live_before, live_objects_wait(self->live_before));
}

TEST_HARNESS_MAIN
