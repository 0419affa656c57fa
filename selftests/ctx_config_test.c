// SPDX-License-Identifier: GPL-2.0
/*
 * Limits and configuration of a context (lib/ctx_config.c): the H100
 * defaults of every CUlimit, what cuCtxSetLimit stores, rounds, clamps and
 * refuses, the cache and shared memory configurations, and each documented
 * error code; values belong to one context and end with it, a primary
 * context reset included, and a forked child starts from the defaults.
 */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"

TEST(not_initialized)
{
	CUfunc_cache fc;
	CUsharedconfig sc;
	size_t v;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2048));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetCacheConfig(&fc));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetSharedMemConfig(&sc));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxResetPersistingL2Cache());
}

TEST(no_context)
{
	CUfunc_cache fc;
	CUsharedconfig sc;
	size_t v;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2048));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetCacheConfig(&fc));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxGetSharedMemConfig(&sc));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxResetPersistingL2Cache());
	/* a bad argument is found before the missing context */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetCacheConfig(NULL));
}

/* The driver's values on an H100 for a context nobody configured. */
TEST(limit_defaults)
{
	int smem = 0;
	CUcontext ctx;
	size_t v;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_EQ(1024, v);
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
	EXPECT_EQ(1 << 20, v);
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
	EXPECT_EQ(8 << 20, v);
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
		  cuCtxGetLimit(&v, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT));
	EXPECT_EQ(2048, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_MAX_L2_FETCH_GRANULARITY));
	EXPECT_EQ(64, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
	EXPECT_EQ(0, v);
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&smem,
			CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_SHMEM_SIZE));
	EXPECT_EQ((size_t)smem, v);
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_CIG_ENABLED));
	EXPECT_EQ(0, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED));
	EXPECT_EQ(1, v);
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT, cuCtxGetLimit(&v, CU_LIMIT_MAX));
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
		  cuCtxGetLimit(&v, (CUlimit)-1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* What cuCtxSetLimit stores: rounded, clamped or refused as the driver. */
TEST(set_limits)
{
	int sms = 0, threads = 0, persist = 0;
	size_t v, total = 0, max_stack, req;
	CUcontext ctx;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&total, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&sms,
			CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&threads,
			CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&persist,
			CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 0));

	/*
	 * The stack rounds up to 16 bytes, and one for every resident thread
	 * must fit the GPU's memory (mem_mib decides here): else nothing
	 * changes.
	 */
	max_stack = total / ((size_t)sms * threads);
	ASSERT_LE(32, max_stack);
	req = max_stack >= 1008 ? 1000 : (max_stack & ~15UL) - 8;
	EXPECT_CU(CUDA_SUCCESS, cuCtxSetLimit(CU_LIMIT_STACK_SIZE, req));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_EQ((req + 15) & ~15UL, v);
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuCtxSetLimit(CU_LIMIT_STACK_SIZE, max_stack + 16));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuCtxSetLimit(CU_LIMIT_STACK_SIZE, SIZE_MAX));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_EQ((req + 15) & ~15UL, v);

	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 3 << 20));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
	EXPECT_EQ(3 << 20, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 256 << 20));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
	EXPECT_EQ(256 << 20, v);
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, total + 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, total + 1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
	EXPECT_EQ(256 << 20, v);

	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 4096));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT));
	EXPECT_EQ(4096, v);
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
		  cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4));

	/* the two L2 hints are clamped */
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 32));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_MAX_L2_FETCH_GRANULARITY));
	EXPECT_EQ(32, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 4096));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_MAX_L2_FETCH_GRANULARITY));
	EXPECT_EQ(128, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1 << 20));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
	EXPECT_EQ(1 << 20, v);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, SIZE_MAX));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
	EXPECT_EQ((size_t)persist, v);
	/* resetting the persisting lines keeps the set-aside */
	EXPECT_CU(CUDA_SUCCESS, cuCtxResetPersistingL2Cache());
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
	EXPECT_EQ((size_t)persist, v);

	/* the CIG limits: two read-only, one switch */
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
		  cuCtxSetLimit(CU_LIMIT_SHMEM_SIZE, 1024));
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
		  cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED, 0));
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxGetLimit(&v, CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED));
	EXPECT_EQ(0, v);
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT, cuCtxSetLimit(CU_LIMIT_MAX, 1));
	EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
		  cuCtxSetLimit((CUlimit)0x7fffffff, 1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(cache_and_shared_config)
{
	CUfunc_cache fc = 99;
	CUsharedconfig sc = 99;
	CUcontext ctx;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetCacheConfig(&fc));
	EXPECT_EQ(CU_FUNC_CACHE_PREFER_NONE, fc);
	EXPECT_CU(CUDA_SUCCESS, cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetCacheConfig(&fc));
	EXPECT_EQ(CU_FUNC_CACHE_PREFER_SHARED, fc);
	EXPECT_CU(CUDA_SUCCESS, cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_EQUAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxSetCacheConfig((CUfunc_cache)4));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuCtxSetCacheConfig((CUfunc_cache)-1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetCacheConfig(&fc));
	EXPECT_EQ(CU_FUNC_CACHE_PREFER_EQUAL, fc);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetCacheConfig(NULL));

	/* an H100's banks are four bytes wide, whatever is asked */
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetSharedMemConfig(&sc));
	EXPECT_EQ(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE, sc);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetSharedMemConfig(&sc));
	EXPECT_EQ(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE, sc);
	EXPECT_CU(CUDA_SUCCESS,
		  cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuCtxSetSharedMemConfig((CUsharedconfig)3));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxGetSharedMemConfig(NULL));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* Values are the context's: another context, a reset primary, a child. */
TEST(per_context)
{
	CUcontext a, b, prim;
	CUfunc_cache fc;
	pid_t pid;
	size_t v;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 512));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_EQ(1024, v);
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetCacheConfig(&fc));
	EXPECT_EQ(CU_FUNC_CACHE_PREFER_NONE, fc);
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_EQ(512, v);

	/* a forked child has its own contexts, with the defaults */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CUcontext c;

		_exit(cuInit(0) || cuCtxCreate(&c, NULL, 0, 0) ||
		      cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE) || v != 1024);
	}
	EXPECT_EQ(0, wait_child(pid));

	/* a destroyed context's values go with it */
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
	EXPECT_EQ(1024, v);
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));

	/* and a primary context's with cuDevicePrimaryCtxReset */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&prim, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(prim));
	ASSERT_CU(CUDA_SUCCESS,
		  cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 20));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&prim, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
	EXPECT_EQ(8 << 20, v);
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(NULL));
}

TEST_HARNESS_MAIN
