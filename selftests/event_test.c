// SPDX-License-Identifier: GPL-2.0
/*
 * Events through libcufab: cuEventCreate's flags, Record and
 * RecordWithFlags, Query and Synchronize (never recorded, pending, done,
 * failed), ElapsedTime and each of its codes, BLOCKING_SYNC, destroy while
 * pending, and cuStreamWaitEvent between streams.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"
#include "stream_helpers.h"

#define GARBAGE_EVENT	((CUevent)0xdeadbeef0002ULL)

TEST(not_initialized)
{
	CUevent e;
	float ms;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuEventCreate(&e, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuEventQuery(GARBAGE_EVENT));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuEventSynchronize(GARBAGE_EVENT));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuEventElapsedTime(&ms, GARBAGE_EVENT, GARBAGE_EVENT));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuEventDestroy(GARBAGE_EVENT));
}

TEST(create_flags)
{
	CUcontext ctx;
	CUevent e;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuEventCreate(&e, 0));
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuEventCreate(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuEventCreate(&e, 8));
	/* INTERPROCESS needs DISABLE_TIMING */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuEventCreate(&e, CU_EVENT_INTERPROCESS));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_INTERPROCESS |
					      CU_EVENT_DISABLE_TIMING));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventDestroy(e));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventQuery(e));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventDestroy(GARBAGE_EVENT));
	cuCtxDestroy(ctx);
}

/* Never recorded: done, nothing to wait for, no time. */
TEST(never_recorded)
{
	CUcontext ctx;
	CUevent a, b;
	CUstream s;
	float ms = -1;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&a, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&b, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	EXPECT_CU(CUDA_SUCCESS, cuEventQuery(a));
	EXPECT_CU(CUDA_SUCCESS, cuEventSynchronize(a));
	EXPECT_CU(CUDA_SUCCESS, cuStreamWaitEvent(s, a, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, a, b));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(a, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(a));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, a, b));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventElapsedTime(&ms, b, a));
	cuCtxDestroy(ctx);
}

TEST(elapsed_time)
{
	struct gate g = GATE_INIT;
	CUevent a, b, untimed;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	float ms = -1;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 8 << 20));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&a, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&b, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&untimed,
					      CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(a, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 1, (8 << 20) / 4, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(b, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(untimed, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(b));
	ASSERT_CU(CUDA_SUCCESS, cuEventElapsedTime(&ms, a, b));
	EXPECT_LE(0.0f, ms);
	ASSERT_CU(CUDA_SUCCESS, cuEventElapsedTime(&ms, b, a));
	EXPECT_GE(0.0f, ms);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuEventElapsedTime(NULL, a, b));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuEventElapsedTime(&ms, a, untimed));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuEventElapsedTime(&ms, untimed, b));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuEventElapsedTime(&ms, a, GARBAGE_EVENT));

	/* b recorded again behind a held host function: not ready */
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(b, s));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuEventQuery(b));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuEventElapsedTime(&ms, a, b));
	gate_open(&g);
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(b));
	EXPECT_CU(CUDA_SUCCESS, cuEventElapsedTime(&ms, a, b));
	EXPECT_LE(0.0f, ms);
	cuCtxDestroy(ctx);
}

TEST(record_errors)
{
	CUcontext ctx, other;
	CUstream s;
	CUevent e;

	INIT_OR_SKIP();
	other = ctx_on(0);
	ASSERT_NE(NULL, other);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventRecord(GARBAGE_EVENT, s));
	/* an event of another context */
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventRecord(e, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuEventRecord(e, (CUstream)0xdeadbeef0000ULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_EXTERNAL));
	EXPECT_CU(CUDA_SUCCESS,
		  cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_DEFAULT));
	EXPECT_CU(CUDA_SUCCESS, cuEventRecord(e, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuEventRecord(e, CU_STREAM_PER_THREAD));
	EXPECT_CU(CUDA_SUCCESS, cuEventSynchronize(e));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamWaitEvent(s, e, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamWaitEvent(s, GARBAGE_EVENT, 0));
	cuCtxDestroy(ctx);
	cuCtxDestroy(other);
}

/* Stream B waits for an event of stream A, whatever their flags. */
TEST(cross_stream_wait)
{
	struct gate g = GATE_INIT;
	unsigned int v = 0;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream a, b;
	CUevent e;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(a, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 1, 1, a));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, a));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(b, e, 0));
	/* b's copy must see a's set */
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(d + 4, d, 4, b));
	usleep(20000);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(b));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuEventQuery(e));
	gate_open(&g);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(b));
	EXPECT_CU(CUDA_SUCCESS, cuEventQuery(e));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d + 4, 4));
	EXPECT_EQ(1, v);
	/* re-recording later does not change what b waited for */
	cuCtxDestroy(ctx);
}

/* Destroying an event with a record pending: the record still runs. */
TEST(destroy_pending)
{
	struct gate g = GATE_INIT;
	CUcontext ctx;
	CUstream s;
	CUevent e;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuEventQuery(e));
	gate_open(&g);
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	cuCtxDestroy(ctx);
}

/* BLOCKING_SYNC sleeps in the kernel until the record completes. */
TEST(blocking_sync)
{
	struct gate g = GATE_INIT;
	CUcontext ctx;
	pthread_t t;
	CUstream s;
	CUevent e;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s));
	ASSERT_EQ(0, pthread_create(&t, NULL, gate_open_later, &g));
	EXPECT_CU(CUDA_SUCCESS, cuEventSynchronize(e));
	EXPECT_EQ(1, g.open);
	pthread_join(t, NULL);
	cuCtxDestroy(ctx);
}

/* An event recorded behind a failed operation reports the failure. */
TEST(failed_stream)
{
	CUdeviceptr va, d;
	CUcontext ctx;
	CUstream s;
	CUevent e;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 << 20, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyAsync(d, va, 4096, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuEventSynchronize(e));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuEventQuery(e));
	cuMemAddressFree(va, 2 << 20);
	cuCtxDestroy(ctx);
}

TEST_HARNESS_MAIN
