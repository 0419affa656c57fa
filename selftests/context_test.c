// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts and primary contexts through libcufab: creation flags and
 * parameters, the per-thread context stack, destruction seen from other
 * threads, primary context reference counts, reset and flags, kernel object
 * accounting and fault injection.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"


/* Never issued by the library: slot far beyond its table. */
#define GARBAGE_CTX	((CUcontext)0xdeadbeefcafeULL)

static CUcontext current(void)
{
	CUcontext c = GARBAGE_CTX;

	if (cuCtxGetCurrent(&c) != CUDA_SUCCESS)
		return GARBAGE_CTX;
	return c;
}

TEST(create_destroy)
{
	unsigned int flags;
	CUcontext ctx;
	CUdevice dev;
	int n, i;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	for (i = 0; i < n; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, i));
		EXPECT_NE(NULL, ctx);
		/* The new context is current. */
		EXPECT_EQ(ctx, current());
		ASSERT_CU(CUDA_SUCCESS, cuCtxGetDevice(&dev));
		EXPECT_EQ(i, dev);
		ASSERT_CU(CUDA_SUCCESS, cuCtxGetFlags(&flags));
		EXPECT_EQ(0U, flags);
		EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize());
		ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
		/* Destroying the current context pops it. */
		EXPECT_EQ(NULL, current());
	}
}

TEST(create_flags)
{
	static const unsigned int good[] = {
		CU_CTX_SCHED_AUTO, CU_CTX_SCHED_SPIN, CU_CTX_SCHED_YIELD,
		CU_CTX_SCHED_BLOCKING_SYNC, CU_CTX_MAP_HOST,
		CU_CTX_LMEM_RESIZE_TO_MAX, CU_CTX_COREDUMP_ENABLE,
		CU_CTX_SYNC_MEMOPS,
		CU_CTX_SCHED_YIELD | CU_CTX_MAP_HOST | CU_CTX_SYNC_MEMOPS,
	};
	static const unsigned int bad[] = {
		/* more than one scheduling mode */
		CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD, 0x5, 0x6, 0x7,
		/* unknown bits */
		0x100, 0x80000000u,
	};
	unsigned int flags;
	CUcontext ctx;
	size_t i;

	INIT_OR_SKIP();
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, good[i], 0));
		ASSERT_CU(CUDA_SUCCESS, cuCtxGetFlags(&flags));
		EXPECT_EQ(good[i], flags);
		ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ctx = GARBAGE_CTX;
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(&ctx, NULL, bad[i], 0)) {
			TH_LOG("flags 0x%x", bad[i]);
		}
		EXPECT_EQ(NULL, current());
	}
}

TEST(create_errors)
{
	CUexecAffinityParam aff = { .type = CU_EXEC_AFFINITY_TYPE_SM_COUNT };
	CUctxCigParam cig = { .sharedDataType = CIG_DATA_TYPE_NV_BLOB };
	CUctxCreateParams p;
	CUcontext ctx;
	int n;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(NULL, NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuCtxCreate(&ctx, NULL, 0, n));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuCtxCreate(&ctx, NULL, 0, -1));

	/* Exactly one of the parameters, and neither is supported. */
	p = (CUctxCreateParams){ .execAffinityParams = &aff, .numExecAffinityParams = 1 };
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuCtxCreate(&ctx, &p, 0, 0));
	p = (CUctxCreateParams){ .cigParams = &cig };
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuCtxCreate(&ctx, &p, 0, 0));
	p = (CUctxCreateParams){ .execAffinityParams = &aff, .numExecAffinityParams = 1,
				 .cigParams = &cig };
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(&ctx, &p, 0, 0));
	p = (CUctxCreateParams){ .execAffinityParams = &aff, .numExecAffinityParams = 0 };
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxCreate(&ctx, &p, 0, 0));
	EXPECT_EQ(NULL, current());
}

/*
 * What every CUDA 13 driver-API sample does: a zeroed parameter struct is
 * no parameters, as with NULL (NVIDIA's 13.0 driver accepts it).
 */
TEST(create_zeroed_params)
{
	CUctxCreateParams p = { 0 };
	CUcontext ctx = NULL;
	CUdevice dev;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGet(&dev, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, &p, 0, dev));
	ASSERT_NE(NULL, ctx);
	EXPECT_EQ(ctx, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* The symbols of older headers: cuCtxCreate_v2 and _v3. */
TEST(create_old_symbols)
{
	CUresult (*v2)(CUcontext *, unsigned int, CUdevice);
	CUresult (*v3)(CUcontext *, CUexecAffinityParam *, int, unsigned int, CUdevice);
	CUexecAffinityParam aff = { .type = CU_EXEC_AFFINITY_TYPE_SM_COUNT };
	CUcontext ctx;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuCtxCreate", (void **)&v2, 3020, 0, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuCtxCreate", (void **)&v3, 11040, 0, NULL));
	ASSERT_CU(CUDA_SUCCESS, v2(&ctx, CU_CTX_SCHED_SPIN, 0));
	EXPECT_EQ(ctx, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_CU(CUDA_SUCCESS, v3(&ctx, NULL, 0, 0, 0));
	EXPECT_EQ(ctx, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, v3(&ctx, &aff, 1, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, v3(&ctx, NULL, 1, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, v3(&ctx, &aff, -1, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, v2(NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, v2(&ctx, 0, -1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, v2(&ctx, 0x3, 0));
}

TEST(push_pop)
{
	CUcontext a, b, c, popped;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	EXPECT_EQ(b, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_EQ(b, popped);
	EXPECT_EQ(a, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_EQ(a, popped);
	EXPECT_EQ(NULL, current());
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxPopCurrent(&popped));

	/* A context may be on the stack several times. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(a));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(a));
	EXPECT_EQ(a, current());
	/* The popped context need not be returned. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
	EXPECT_EQ(b, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&c, NULL, 0, 0));
	EXPECT_EQ(c, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(c));
	EXPECT_EQ(b, current());

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxPushCurrent(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent(GARBAGE_CTX));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent((CUcontext)0x1));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxPushCurrent(c));
	EXPECT_EQ(b, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
}

/* The stack grows past any small fixed size and shrinks back. */
TEST(deep_stack)
{
	CUcontext a, b, popped;
	int i;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	for (i = 0; i < 1000; i++)
		ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(i & 1 ? a : b));
	for (i = 999; i >= 0; i--) {
		ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
		ASSERT_EQ(i & 1 ? a : b, popped);
	}
	/* Back to the two contexts cuCtxCreate pushed. */
	EXPECT_EQ(b, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	EXPECT_EQ(a, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
}

TEST(set_get_current)
{
	CUcontext a, b;

	INIT_OR_SKIP();
	EXPECT_EQ(NULL, current());
	/* NULL on an empty stack does nothing. */
	EXPECT_CU(CUDA_SUCCESS, cuCtxSetCurrent(NULL));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));

	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(a));	/* empty: pushes */
	EXPECT_EQ(a, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));	/* replaces the top */
	EXPECT_EQ(b, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(NULL));	/* pops */
	EXPECT_EQ(NULL, current());

	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxSetCurrent(GARBAGE_CTX));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetCurrent(NULL));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxSetCurrent(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
}

TEST(no_current_context)
{
	unsigned long long id;
	unsigned int flags;
	CUdevice dev;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetDevice(&dev));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetDevice_v2(&dev, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetFlags(&flags));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize());
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize_v2(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetId(NULL, &id));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetApiVersion(NULL, &flags));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetDevice(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetFlags(NULL));
}

TEST(queries)
{
	unsigned long long id_a, id_b, id;
	unsigned int version;
	CUcontext a, b;
	CUdevice dev;
	int n;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, n - 1));

	/* Explicit contexts, whichever is current. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetDevice_v2(&dev, a));
	EXPECT_EQ(0, dev);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetDevice_v2(&dev, b));
	EXPECT_EQ(n - 1, dev);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetDevice_v2(&dev, NULL));
	EXPECT_EQ(n - 1, dev);
	EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize_v2(a));

	ASSERT_CU(CUDA_SUCCESS, cuCtxGetId(a, &id_a));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetId(b, &id_b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetId(NULL, &id));
	EXPECT_NE(id_a, id_b);
	EXPECT_EQ(id_b, id);

	ASSERT_CU(CUDA_SUCCESS, cuCtxGetApiVersion(a, &version));
	EXPECT_EQ(3020U, version);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetApiVersion(NULL, &version));
	EXPECT_EQ(3020U, version);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetDevice_v2(NULL, a));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetId(a, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetApiVersion(a, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetDevice_v2(&dev, GARBAGE_CTX));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetId(GARBAGE_CTX, &id));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetApiVersion(GARBAGE_CTX, &version));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize_v2(GARBAGE_CTX));

	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	/* Ids are never reused; a destroyed context is known as such. */
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxGetId(b, &id));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetDevice_v2(&dev, b));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxSynchronize_v2(b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetId(b, &id));
	EXPECT_NE(id_a, id);
	EXPECT_NE(id_b, id);
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
}

TEST(destroy_errors)
{
	CUcontext a, b, primary;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxDestroy(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(GARBAGE_CTX));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(a));
	/* A reused slot does not revive an old handle. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	/* Primary contexts are released, not destroyed. */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&primary, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(primary));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
}

/* A context below the top stays on the stack once destroyed. */
TEST(destroy_not_current)
{
	unsigned int flags;
	CUcontext a, b, popped;
	CUdevice dev;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_EQ(b, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_EQ(b, popped);
	EXPECT_EQ(a, current());
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxGetDevice(&dev));
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxGetFlags(&flags));
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxSynchronize());
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_EQ(a, popped);
	EXPECT_EQ(NULL, current());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
}

/* Two threads hand a context over and one destroys it under the other. */
struct handover {
	pthread_barrier_t step;
	CUcontext ctx;
	CUresult res[8];
	CUcontext seen[2];
};

static void *other_thread(void *arg)
{
	struct handover *h = arg;
	CUdevice dev;

	/* A new thread has an empty stack. */
	cuCtxGetCurrent(&h->seen[0]);
	h->res[0] = cuCtxSetCurrent(h->ctx);
	h->res[1] = cuCtxGetDevice(&dev);
	pthread_barrier_wait(&h->step);	/* main destroys ctx */
	pthread_barrier_wait(&h->step);
	h->res[2] = cuCtxGetDevice(&dev);
	h->res[3] = cuCtxSynchronize();
	cuCtxGetCurrent(&h->seen[1]);
	h->res[4] = cuCtxPopCurrent(NULL);
	h->res[5] = cuCtxGetDevice(&dev);
	return NULL;
}

TEST(destroyed_in_other_thread)
{
	struct handover h = { 0 };
	pthread_t t;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&h.ctx, NULL, 0, 0));
	ASSERT_EQ(0, pthread_barrier_init(&h.step, NULL, 2));
	ASSERT_EQ(0, pthread_create(&t, NULL, other_thread, &h));
	pthread_barrier_wait(&h.step);
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(h.ctx));
	EXPECT_EQ(NULL, current());
	pthread_barrier_wait(&h.step);
	ASSERT_EQ(0, pthread_join(t, NULL));

	EXPECT_EQ(NULL, h.seen[0]);
	EXPECT_CU(CUDA_SUCCESS, h.res[0]);
	EXPECT_CU(CUDA_SUCCESS, h.res[1]);
	/* Still current there, and known to be destroyed. */
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, h.res[2]);
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, h.res[3]);
	EXPECT_EQ(h.ctx, h.seen[1]);
	EXPECT_CU(CUDA_SUCCESS, h.res[4]);
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, h.res[5]);
	pthread_barrier_destroy(&h.step);
}

/* Many threads each with their own stack, creating and destroying. */
static void *churn_thread(void *arg)
{
	CUcontext ctx, cur;
	CUdevice dev;
	int i;

	for (i = 0; i < 200; i++) {
		if (cuCtxCreate(&ctx, NULL, 0, 0) != CUDA_SUCCESS)
			return (void *)1;
		if (cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != ctx)
			return (void *)2;
		if (cuCtxGetDevice(&dev) != CUDA_SUCCESS || dev != 0)
			return (void *)3;
		if (cuCtxDestroy(ctx) != CUDA_SUCCESS)
			return (void *)4;
		if (cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur)
			return (void *)5;
	}
	return NULL;
}

TEST(threads_churn)
{
	long long before = -1;
	pthread_t t[4];
	void *res;
	int i;

	INIT_OR_SKIP();
	before = live_objects();
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, churn_thread, NULL));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &res));
		EXPECT_EQ(NULL, res);
	}
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
}

TEST(kernel_objects)
{
	long long before;
	CUcontext ctx[8];
	int i;

	INIT_OR_SKIP();
	before = live_objects();
	if (before < 0)
		SKIP(return, CUFAB_DEBUGFS "/live_objects unreadable (debugfs not mounted?)");
	for (i = 0; i < 8; i++)
		ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx[i], NULL, 0, 0));
	EXPECT_EQ(before + 8, live_objects());
	for (i = 0; i < 8; i++)
		ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx[i]));
	EXPECT_EQ(before, live_objects());
}

/* The kernel frees what a dying process held. */
TEST(process_death)
{
	long long before;
	int status, i;
	CUcontext ctx;
	pid_t pid;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	before = live_objects();
	if (before < 0)
		SKIP(return, CUFAB_DEBUGFS "/live_objects unreadable (debugfs not mounted?)");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (cuInit(0) != CUDA_SUCCESS)
			_exit(1);
		for (i = 0; i < 16; i++)
			if (cuCtxCreate(&ctx, NULL, 0, 0) != CUDA_SUCCESS)
				_exit(2);
		if (cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS)
			_exit(3);
		if (live_objects() != before + 17) {
			fprintf(stderr, "# child: %lld live objects, expected %lld\n",
				live_objects(), before + 17);
			_exit(4);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(before, live_objects());
}

TEST(fault_ctx_create)
{
	CUcontext ctx;
	int active;
	unsigned int flags;

	INIT_OR_SKIP();
	if (fault_arm("fail_ctx_create", 1))
		SKIP(return, CUFAB_DEBUGFS "/fail_ctx_create absent (no fault injection)");
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuCtxCreate(&ctx, NULL, 0, 0));
	EXPECT_EQ(NULL, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));

	/* A primary context that could not be created stays inactive. */
	ASSERT_EQ(0, fault_arm("fail_ctx_create", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuDevicePrimaryCtxRetain(&ctx, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(0, active);
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&ctx, 0));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	fault_restore();
}

/* Primary contexts. */

TEST(primary_refcount)
{
	CUcontext p1, p2;
	unsigned int flags;
	int active, n;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(0, active);
	EXPECT_EQ(0U, flags);

	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p2, 0));
	EXPECT_EQ(p1, p2);
	/* Unlike cuCtxCreate, retaining does not push. */
	EXPECT_EQ(NULL, current());
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(1, active);

	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(1, active);
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(0, active);
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));

	/* One primary context per device. */
	if (n > 1) {
		ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p2, 1));
		ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p1, 0));
		EXPECT_NE(p1, p2);
		EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(1));
		EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	}
}

TEST(primary_errors)
{
	unsigned int flags;
	CUcontext ctx;
	int active, n;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxRetain(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxRetain(&ctx, n));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxRelease(n));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxReset(-1));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxSetFlags(n, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDevicePrimaryCtxGetState(n, &flags, &active));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxGetState(0, NULL, &active));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxGetState(0, &flags, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxSetFlags(0, 0x3));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDevicePrimaryCtxSetFlags(0, 0x100));
	/* Reset of an inactive primary context has nothing to do. */
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
}

TEST(primary_flags)
{
	CUresult (*set_flags_v1)(CUdevice, unsigned int);
	unsigned int flags;
	CUcontext ctx;
	int active;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDevicePrimaryCtxSetFlags",
						 (void **)&set_flags_v1, 7000, 0, NULL));
	/* Set while inactive: used by the next activation. */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_YIELD));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_YIELD, flags);
	EXPECT_EQ(0, active);
	ASSERT_CU(CUDA_SUCCESS, set_flags_v1(0, CU_CTX_SCHED_SPIN));

	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&ctx, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(ctx));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetFlags(&flags));
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_SPIN, flags);

	/* Since CUDA 11 they change in place; the 7.0 symbol refuses. */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetFlags(&flags));
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_BLOCKING_SYNC, flags);
	EXPECT_CU(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, set_flags_v1(0, 0));

	/* They outlive the context. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_BLOCKING_SYNC, flags);
	EXPECT_EQ(0, active);
}

TEST(primary_reset)
{
	CUresult (*release_v1)(CUdevice), (*reset_v1)(CUdevice);
	unsigned long long id1, id2;
	CUcontext ctx, again;
	unsigned int flags;
	CUdevice dev;
	int active;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDevicePrimaryCtxRelease",
						 (void **)&release_v1, 7000, 0, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDevicePrimaryCtxReset",
						 (void **)&reset_v1, 7000, 0, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_SPIN));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&ctx, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(ctx));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetId(NULL, &id1));

	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(0, active);
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_SPIN, flags);
	/* Still current to this thread, and gone. */
	EXPECT_EQ(ctx, current());
	EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cuCtxGetDevice(&dev));

	/* The next retain brings it back under the same handle. */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&again, 0));
	EXPECT_EQ(ctx, again);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetDevice(&dev));
	EXPECT_EQ(0, dev);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetId(NULL, &id2));
	EXPECT_NE(id1, id2);

	/* Reset does not release: both retains are still to be released. */
	ASSERT_CU(CUDA_SUCCESS, reset_v1(0));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	EXPECT_CU(CUDA_SUCCESS, release_v1(0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
	/* Release never pops. */
	EXPECT_EQ(ctx, current());
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
}

static void *retain_thread(void *arg)
{
	CUcontext *ctx = arg;

	if (cuDevicePrimaryCtxRetain(ctx, 0) != CUDA_SUCCESS)
		return (void *)1;
	return NULL;
}

/* The primary context is one per process, whichever thread asks. */
TEST(primary_threads)
{
	CUcontext ctx[4], mine;
	long long before;
	pthread_t t[4];
	void *res;
	int i;

	INIT_OR_SKIP();
	before = live_objects();
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, retain_thread, &ctx[i]));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &res));
		EXPECT_EQ(NULL, res);
	}
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&mine, 0));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(mine, ctx[i]);
	if (before >= 0)
		EXPECT_EQ(before + 1, live_objects());
	for (i = 0; i < 5; i++)
		EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
}

TEST_HARNESS_MAIN
