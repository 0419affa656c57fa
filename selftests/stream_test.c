// SPDX-License-Identifier: GPL-2.0
/*
 * Streams through libcufab: cuStreamCreate/WithPriority/Destroy, the
 * getters, Query and Synchronize, the special handles (NULL,
 * CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, the _ptsz entry points), the
 * stream-ordered copies and sets, host functions and callbacks, the
 * legacy-stream rules, asynchronous errors, cuCtxSynchronize and
 * cuCtxDestroy with work queued, and a process killed with work queued.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"
#include "mem_helpers.h"
#include "cufab_uapi.h"
#include "stream_helpers.h"

/* Never issued by the library: slot far beyond its table. */
#define GARBAGE_STREAM	((CUstream)0xdeadbeef0000ULL)

CUresult cuStreamQuery_ptsz(CUstream hStream);
CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long *id);

TEST(not_initialized)
{
	CUstream s;
	int lo, hi;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamCreate(&s, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamQuery(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamSynchronize(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamDestroy(GARBAGE_STREAM));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuCtxGetStreamPriorityRange(&lo, &hi));
}

TEST(create_flags_and_context)
{
	CUstream s;
	CUcontext ctx;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuStreamCreate(&s, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuStreamQuery(NULL));
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(&s, 2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamCreate(&s, 0x80000000u));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_DEFAULT));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(GARBAGE_STREAM));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(CU_STREAM_LEGACY));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamDestroy(CU_STREAM_PER_THREAD));
	cuCtxDestroy(ctx);
}

TEST(priority)
{
	CUcontext ctx;
	CUstream s;
	int lo = 1, hi = 1, p = 1;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetStreamPriorityRange(&lo, &hi));
	EXPECT_EQ(0, lo);
	EXPECT_EQ(-5, hi);
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetStreamPriorityRange(NULL, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreateWithPriority(&s, 0, -3));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetPriority(s, &p));
	EXPECT_EQ(-3, p);
	cuStreamDestroy(s);
	/* out of range: clamped */
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreateWithPriority(&s, 0, -100));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetPriority(s, &p));
	EXPECT_EQ(-5, p);
	cuStreamDestroy(s);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreateWithPriority(&s, 0, 7));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetPriority(s, &p));
	EXPECT_EQ(0, p);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamGetPriority(s, NULL));
	cuStreamDestroy(s);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamCreateWithPriority(&s, 4, 0));
	cuCtxDestroy(ctx);
}

/*
 * Priority decides who gets an engine: with every copy engine of the GPU
 * busy with long copies of default-priority streams, a greater-priority
 * stream's work does not wait for any of them to finish.
 */
TEST(priority_runs_ahead)
{
	const size_t len = 64 << 20;
	CUdeviceptr src, dst[3], small;
	CUstream lo[3], hi;
	CUevent done[3];
	CUcontext ctx;
	int least, greatest, i, pending = 0;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetStreamPriorityRange(&least, &greatest));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&src, len));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&small, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(src, 1, len));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamCreateWithPriority(&hi, CU_STREAM_NON_BLOCKING,
					     greatest));
	for (i = 0; i < 3; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dst[i], len));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(dst[i], 0, len));
		ASSERT_CU(CUDA_SUCCESS,
			  cuStreamCreateWithPriority(&lo[i],
						     CU_STREAM_NON_BLOCKING,
						     least));
		ASSERT_CU(CUDA_SUCCESS,
			  cuEventCreate(&done[i], CU_EVENT_DISABLE_TIMING));
	}
	/* one long copy per engine (ASYNC_ENGINE_COUNT 3), then the small set */
	for (i = 0; i < 3; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyAsync(dst[i], src, len, lo[i]));
		ASSERT_CU(CUDA_SUCCESS, cuEventRecord(done[i], lo[i]));
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(small, 7, 4096, hi));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(hi));
	for (i = 0; i < 3; i++)
		pending += cuEventQuery(done[i]) == CUDA_ERROR_NOT_READY;
	EXPECT_EQ(3, pending) TH_LOG("a default-priority copy finished before the greater-priority set");
	EXPECT_EQ(7, *(volatile unsigned char *)(uintptr_t)small);
	for (i = 0; i < 3; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(lo[i]));
		EXPECT_EQ(1, *(volatile unsigned char *)(uintptr_t)(dst[i] + len - 1));
		cuEventDestroy(done[i]);
		cuStreamDestroy(lo[i]);
		cuMemFree(dst[i]);
	}
	cuStreamDestroy(hi);
	cuMemFree(small);
	cuMemFree(src);
	cuCtxDestroy(ctx);
}

TEST(getters)
{
	unsigned long long id1 = 0, id2 = 0, idn = 0, idl = 0, idp = 0;
	CUcontext ctx, got = NULL;
	CUgreenCtx green = (CUgreenCtx)1;
	unsigned int flags = 9;
	CUdevice dev = -1;
	CUstream s1, s2;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetFlags(s1, &flags));
	EXPECT_EQ(CU_STREAM_NON_BLOCKING, flags);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetFlags(s2, &flags));
	EXPECT_EQ(0, flags);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetCtx(s1, &got));
	EXPECT_EQ(ctx, got);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetCtx_v2(s1, &got, &green));
	EXPECT_EQ(ctx, got);
	EXPECT_EQ(NULL, green);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamGetCtx_v2(s1, &got, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetDevice(s1, &dev));
	EXPECT_EQ(0, dev);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(s1, &id1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(s2, &id2));
	EXPECT_NE(id1, id2);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(NULL, &idn));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(CU_STREAM_LEGACY, &idl));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(CU_STREAM_PER_THREAD, &idp));
	EXPECT_EQ(idn, idl);
	EXPECT_NE(idn, idp);
	EXPECT_NE(idn, id1);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId_ptsz(NULL, &idn));
	EXPECT_EQ(idp, idn);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetCtx(NULL, &got));
	EXPECT_EQ(ctx, got);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamGetFlags(s1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamGetId(s1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamGetCtx(s1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamGetDevice(s1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamGetFlags(GARBAGE_STREAM, &flags));
	cuStreamDestroy(s1);
	cuStreamDestroy(s2);
	cuCtxDestroy(ctx);
}

/* Copies and sets of one stream run in order. */
TEST(ordering)
{
	enum { N = 8, LEN = 256 * 1024 };
	CUdeviceptr buf[N];
	unsigned int *host;
	CUcontext ctx;
	CUstream s;
	int i, bad = 0;

	CTX_OR_SKIP(ctx);
	host = malloc(LEN);
	ASSERT_NE(NULL, host);
	for (i = 0; i < N; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&buf[i], LEN));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	for (i = 0; i < N; i++)
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemsetD32Async(buf[i], i + 1, LEN / 4, s));
	/* a chain: each copy sees the previous one's result */
	for (i = 1; i < N; i++)
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemcpyDtoDAsync(buf[i], buf[i - 1], LEN, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(buf[N - 1], 0x7f, 16, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoHAsync(host, buf[N - 1], LEN, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamQuery(s));
	EXPECT_EQ(0x7f7f7f7fu, host[0]);
	for (i = 4; i < LEN / 4; i++)
		bad += host[i] != 1;
	EXPECT_EQ(0, bad);
	/* HtoD then D16 on part of it */
	memset(host, 0x11, LEN);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyHtoDAsync(buf[0], host, LEN, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD16Async(buf[0], 0xabcd, 2, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyAsync((CUdeviceptr)host, buf[0], 8, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(0xabcdabcdu, host[0]);
	EXPECT_EQ(0x11111111u, host[1]);
	cuStreamDestroy(s);
	free(host);
	cuCtxDestroy(ctx);
}

/* Arguments the kernel refuses at submission come back at once. */
TEST(submit_errors)
{
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD16Async(d + 1, 1, 4, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD32Async(d + 2, 1, 4, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemcpyAsync(d, (CUdeviceptr)-4096, 8192, s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuMemcpyAsync(d, d, 8, GARBAGE_STREAM));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLaunchHostFunc(s, NULL, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAddCallback(s, NULL, NULL, 0));
	/* zero bytes: nothing to do, still in order */
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyAsync(d, d, 0, s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
}

/*
 * Access is checked when the operation runs; the failure shows in the
 * next Query and Synchronize of the stream (and stays), later copies of
 * the stream do not run.
 */
TEST(async_error)
{
	CUdeviceptr va, d;
	unsigned int v = 0;
	CUcontext ctx;
	CUstream s;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 << 20, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d, 5, 1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	/* reserved but unmapped: the engine's access check fails */
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyAsync(d, va, 4096, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 7, 1, s));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuStreamQuery(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d, 4));
	EXPECT_EQ(5, v);
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuCtxSynchronize());
	cuStreamDestroy(s);
	cuMemAddressFree(va, 2 << 20);
	cuCtxDestroy(ctx);
}

/* Does GPU 0 reach pageable (malloc) memory: HMM or ATS? */
static int pageable_access(void)
{
	int v = 0;

	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0);
	return v;
}

/*
 * cuMemsetD* is done by the GPU: without PAGEABLE_MEMORY_ACCESS it cannot
 * reach malloc'ed memory, and the set is refused (INVALID_VALUE) with the
 * memory untouched; a copy to or from it is staged and succeeds.
 */
TEST(set_of_pageable_memory)
{
	unsigned char *buf = malloc(4096);
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	CUresult want;

	ASSERT_NE(NULL, buf);
	CTX_OR_SKIP(ctx);
	/* after cuInit: before it, the attribute query fails and says 0 */
	want = pageable_access() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	memset(buf, 0x11, 4096);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	EXPECT_CU(want, cuMemsetD8((uintptr_t)buf, 0x22, 4096));
	EXPECT_CU(want, cuMemsetD32Async((uintptr_t)buf, 0x22222222, 1024, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(want ? 0x11 : 0x22, buf[0]);
	EXPECT_EQ(want ? 0x11 : 0x22, buf[4095]);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(d, 0x33, 4096));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyAsync((uintptr_t)buf, d, 4096, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(0x33, buf[4095]);
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
	free(buf);
}

/*
 * A set queued on device memory that is unmapped and freed before its
 * stream reaches it faults there (ILLEGAL_ADDRESS), as the GPU would. It
 * never writes the process's own memory mapped at that address since.
 */
TEST(set_after_free_faults)
{
	struct gate g = GATE_INIT;
	unsigned char *p;
	CUcontext ctx;
	struct vbuf b;
	CUstream s;
	int hmm;

	CTX_OR_SKIP(ctx);
	hmm = pageable_access();
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, gran(0), 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	gate_wait_entered(&g);
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(b.va, 0xab, 4096, s));
	ASSERT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	/* the freed range becomes memory of the process's own */
	ASSERT_EQ(0, munmap((void *)(uintptr_t)b.va, b.len));
	p = mmap((void *)(uintptr_t)b.va, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ((void *)(uintptr_t)b.va, p);
	memset(p, 0x11, 4096);
	gate_open(&g);
	/* with HMM the GPU's address is the process's: it writes there */
	EXPECT_CU(hmm ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_ADDRESS,
		  cuStreamSynchronize(s));
	EXPECT_EQ(hmm ? 0xab : 0x11, p[0]);
	EXPECT_EQ(hmm ? 0xab : 0x11, p[4095]);
	munmap(p, 4096);
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
}

/*
 * A prefetch queued on managed memory that is freed before its stream
 * reaches it, while the range has become a cuMemAddressReserve range with
 * a mapping made and unmapped again at the prefetched address: nothing to
 * move, as for any freed range (the unmapped part is no mapping).
 */
TEST(prefetch_after_free_meets_unmapped_range)
{
	CUmemAllocationProp prop = dev_prop(0, 0);
	CUmemLocation host = { .type = CU_MEM_LOCATION_TYPE_HOST };
	CUmemGenericAllocationHandle h;
	struct gate g = GATE_INIT;
	CUdeviceptr m, a, va;
	CUcontext ctx;
	CUstream s;
	size_t len;
	CUresult r;

	CTX_OR_SKIP(ctx);
	len = gran(0);
	/* a range of it aligned as a reservation there must be */
	ASSERT_CU(CUDA_SUCCESS,
		  cuMemAllocManaged(&m, 2 * len, CU_MEM_ATTACH_GLOBAL));
	a = (m + len - 1) & ~(CUdeviceptr)(len - 1);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	gate_wait_entered(&g);
	r = cuMemPrefetchAsync(a, 4096, host, 0, s);
	if (r != CUDA_SUCCESS) {
		gate_open(&g);
		cuStreamSynchronize(s);
		cuMemFree(m);
		SKIP(return, "cuMemPrefetchAsync: %d", r);
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(m));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, len, 0, a, 0));
	if (va != a) {
		gate_open(&g);
		cuStreamSynchronize(s);
		cuMemAddressFree(va, len);
		SKIP(return, "the hint 0x%llx was not honoured",
		     (unsigned long long)a);
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, len, &prop, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, len, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(va, len));
	gate_open(&g);
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, len));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
}

/* A host function blocks its stream; it runs on another thread. */
TEST(host_function_blocks)
{
	struct gate g = GATE_INIT;
	unsigned int v = 0;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 42, 1, s));
	gate_wait_entered(&g);
	EXPECT_NE(syscall(SYS_gettid), g.tid);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s));
	usleep(20000);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d, 4));
	EXPECT_NE(42, v);
	gate_open(&g);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d, 4));
	EXPECT_EQ(42, v);
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
}

struct order {
	int n;
	int seen[16];
	CUstream stream[16];
	CUresult status[16];
};

static void CUDA_CB order_cb(CUstream s, CUresult status, void *p)
{
	struct order *o = p;

	o->stream[o->n] = s;
	o->status[o->n] = status;
	o->seen[o->n] = o->n;
	o->n++;
}

/* Callbacks run in stream order with the stream and its status. */
TEST(callbacks_in_order)
{
	struct order o = { 0 };
	CUcontext ctx;
	CUstream s;
	int i;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAddCallback(s, order_cb, &o, 1));
	for (i = 0; i < 16; i++)
		ASSERT_CU(CUDA_SUCCESS, cuStreamAddCallback(s, order_cb, &o, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_EQ(16, o.n);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(i, o.seen[i]);
		EXPECT_EQ(s, o.stream[i]);
		EXPECT_CU(CUDA_SUCCESS, o.status[i]);
	}
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
}

/*
 * The legacy stream waits for blocking streams, not for non-blocking
 * ones; a blocking stream waits for the legacy stream.
 */
TEST(legacy_stream_rules)
{
	struct gate g = GATE_INIT, g2 = GATE_INIT;
	CUstream blocking, nonblocking;
	CUdeviceptr d;
	CUcontext ctx;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&blocking, 0));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING));

	/* blocking stream held: the NULL stream's work waits for it */
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(blocking, gate_fn, &g));
	gate_wait_entered(&g);
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 1, 16, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 2, 16, nonblocking));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(nonblocking));
	usleep(20000);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(CU_STREAM_LEGACY));
	/* and a blocking stream's new work waits for the NULL stream */
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&nonblocking, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 3, 16, nonblocking));
	usleep(20000);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(nonblocking));
	gate_open(&g);
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(nonblocking));
	EXPECT_CU(CUDA_SUCCESS, cuStreamQuery(NULL));

	/* the per-thread stream is blocking: it waits for the legacy one */
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(NULL, gate_fn, &g2));
	gate_wait_entered(&g2);
	ASSERT_CU(CUDA_SUCCESS,
		  cuMemsetD8Async(d, 4, 16, CU_STREAM_PER_THREAD));
	usleep(20000);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(CU_STREAM_PER_THREAD));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery_ptsz(NULL));
	gate_open(&g2);
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(CU_STREAM_PER_THREAD));
	EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	cuCtxDestroy(ctx);
}

/* cuStreamDestroy returns at once; the queued work still runs. */
TEST(destroy_with_work_queued)
{
	struct gate g = GATE_INIT;
	unsigned int v = 0;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 9, 1, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	gate_open(&g);
	for (int i = 0; i < 500 && v != 9; i++) {
		usleep(10000);
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d, 4));
	}
	EXPECT_EQ(9, v);
	cuCtxDestroy(ctx);
}

/* cuCtxSynchronize waits for every stream of the context. */
TEST(ctx_synchronize)
{
	enum { LEN = 1 << 20 };
	unsigned int *host = malloc(LEN);
	CUdeviceptr d;
	CUstream s[4];
	CUcontext ctx;
	int i;

	CTX_OR_SKIP(ctx);
	ASSERT_NE(NULL, host);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	for (i = 0; i < 4; i++) {
		ASSERT_CU(CUDA_SUCCESS,
			  cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemsetD32Async(d + i * (LEN / 4), i, LEN / 16,
					   s[i]));
	}
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	for (i = 0; i < 4; i++)
		EXPECT_CU(CUDA_SUCCESS, cuStreamQuery(s[i]));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(host, d, LEN));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i, host[i * (LEN / 16) + 5]);
	free(host);
	cuCtxDestroy(ctx);
}

/* cuCtxDestroy finishes queued work first; its streams are gone. */
TEST(ctx_destroy_with_work_queued)
{
	long long before = live_objects();
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	int i;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 1 << 20));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	for (i = 0; i < 64; i++)
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemsetD32Async(d, i, (1 << 20) / 4, s));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamQuery(s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamDestroy(s));
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
}

/* cuMemcpyPeer(Async) between GPUs, with and without peer access. */
/* Copies between two GPUs' memory, before and after peer access. */
TEST(peer_copy)
{
	CUdeviceptr a, b;
	CUcontext c0, c1;
	unsigned int v = 0;
	CUstream s;
	int n = 0, pass;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	if (n < 2)
		SKIP(return, "needs 2 GPUs");
	c1 = ctx_on(1);
	ASSERT_NE(NULL, c1);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&b, 4096));
	c0 = ctx_on(0);
	ASSERT_NE(NULL, c0);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&a, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	for (pass = 0; pass < 2; pass++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(a, 100 + pass, 1));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyPeer(b, c1, a, c0, 4));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(a, 0, 1));
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemcpyPeerAsync(a, c0, b, c1, 4, s));
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, a, 4));
		EXPECT_EQ(100 + pass, v);
		/*
		 * Unified addressing: plain copies and sets between the two
		 * GPUs' cuMemAlloc memory on a stream of GPU 0, as with
		 * NVIDIA's driver, with or without peer access.
		 */
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(b, 200 + pass, 1, s));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyAsync(a, b, 4, s));
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, a, 4));
		EXPECT_EQ(200 + pass, v);
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(a, 300 + pass, 1, s));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(b, a, 4, s));
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, b, 4));
		EXPECT_EQ(300 + pass, v);
		if (!pass && cuCtxEnablePeerAccess(c1, 0) != CUDA_SUCCESS)
			break;
	}
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemcpyPeerAsync(a, NULL, b, c1, 4, s));
	cuCtxDestroy(c0);
	cuCtxDestroy(c1);
}

/*
 * cuMemsetD2D8/16/32Async: Height rows of Width elements, dstPitch bytes
 * apart, and nothing between the rows; each documented code.
 */
TEST(memset_2d_async)
{
	enum { PITCH = 256, W = 40, H = 5 };
	unsigned char buf[PITCH * H];
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	int r, i, bad = 0;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemsetD2D8Async(0, PITCH, 1, W, H, NULL));
	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, sizeof(buf)));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(d, 0xee, sizeof(buf)));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD2D8Async(d, PITCH, 0x11, W, H, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD2D16Async(d + 64, PITCH, 0x2222, W, H, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD2D32Async(d + 160, PITCH, 0x33333333,
						   W / 4, H, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(buf, d, sizeof(buf)));
	for (r = 0; r < H; r++)
		for (i = 0; i < PITCH; i++) {
			unsigned char want = i < W ? 0x11 :
					     i >= 64 && i < 64 + 2 * W ? 0x22 :
					     i >= 160 && i < 160 + W ? 0x33 : 0xee;

			bad += buf[r * PITCH + i] != want;
		}
	EXPECT_EQ(0, bad);

	/* nothing to set; one row ignores the pitch */
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD2D8Async(d, PITCH, 1, 0, H, s));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD2D8Async(d, PITCH, 1, W, 0, s));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD2D8Async(d, 0, 0x11, W, 1, s));
	/* pitch narrower than a row, misaligned, past the address space */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD2D8Async(d, W - 1, 1, W, H, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemsetD2D16Async(d + 1, PITCH, 1, W, H, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemsetD2D32Async(d, PITCH + 2, 1, W / 4, H, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemsetD2D8Async(d, (size_t)-1 / 2, 1, W, H, s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuMemsetD2D8Async(d, PITCH, 1, W, H, GARBAGE_STREAM));
	/* nothing of the refused calls ran */
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(buf, d, 2));
	EXPECT_EQ(0x11, buf[1]);
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	/* no current context: the NULL stream has none */
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemsetD2D8Async(0, PITCH, 1, W, H, NULL));
}

/* Per-thread default streams: one per thread. */
static void *thread_stream_id(void *p)
{
	CUcontext ctx = p;
	unsigned long long *id = malloc(sizeof(*id));

	*id = 0;
	cuCtxSetCurrent(ctx);
	cuStreamGetId(CU_STREAM_PER_THREAD, id);
	return id;
}

TEST(per_thread_streams)
{
	unsigned long long mine = 0, *theirs;
	CUcontext ctx;
	pthread_t t;
	void *r;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(CU_STREAM_PER_THREAD, &mine));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_stream_id, ctx));
	ASSERT_EQ(0, pthread_join(t, &r));
	theirs = r;
	EXPECT_NE(0, *theirs);
	EXPECT_NE(mine, *theirs);
	free(theirs);
	cuCtxDestroy(ctx);
}

/* cuGetProcAddress hands out the per-thread variants when asked. */
TEST(proc_address_per_thread)
{
	CUdriverProcAddressQueryResult st;
	void *fn = NULL;

	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuStreamQuery", &fn, 13000,
				   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
				   &st));
	EXPECT_EQ((void *)cuStreamQuery_ptsz, fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuStreamQuery", &fn, 13000,
				   CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ((void *)cuStreamQuery, fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuMemcpyHtoD", &fn, 13000,
				   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
				   &st));
	EXPECT_NE(NULL, fn);
	EXPECT_NE((void *)cuMemcpyHtoD, fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuEventElapsedTime", &fn, 13000,
				   CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ((void *)cuEventElapsedTime, fn);
}

/*
 * kill -9 with work queued: a host function holds the stream, copies
 * wait behind it. The client goes, nothing leaks, the kernel is fine.
 */
/* The child of kill_with_work_queued: a gated stream, copies behind it. */
static int queue_work(void)
{
	static struct gate g = GATE_INIT;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s[3];
	void *host = malloc(1 << 20);
	int i;

	if (cuInit(0) || !(ctx = ctx_on(0)) || cuMemAlloc(&d, 1 << 20))
		return -1;
	for (i = 0; i < 3; i++)
		cuStreamCreate(&s[i], 0);
	cuLaunchHostFunc(s[0], gate_fn, &g);
	for (i = 0; i < 32; i++) {
		cuMemcpyHtoDAsync(d, host, 1 << 20, s[i % 3]);
		cuMemsetD8Async(d, i, 1 << 20, NULL);
	}
	return 0;
}

TEST(kill_with_work_queued)
{
	long long before = live_objects();

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	EXPECT_EQ(0x100 | SIGKILL, kill_when_ready(queue_work));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/*
 * The race-exposure knob: with completions delayed, a program that reads
 * stream results without synchronizing sees stale data every time, and
 * with seeded per-operation delays two streams without an event between
 * them run in the wrong order for some seeds, the same ones every run;
 * the synchronized version is right under every seed.
 */
TEST(race_knob_exposes_missing_sync)
{
	unsigned int v = 0, seed, exposed = 0, wrong = 0;
	CUdeviceptr x, y;
	CUcontext ctx;
	CUstream a, b;
	CUevent e;

	if (access(CUFAB_PARAMS "race_delay_us", F_OK))
		SKIP(return, "no race_delay_us parameter");
	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&x, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&y, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));

	/* fixed delay: the host forgot cuStreamSynchronize */
	ASSERT_EQ(0, cufab_param_set_u("race_seed", 0));
	ASSERT_EQ(0, cufab_param_set_u("race_delay_us", 500000));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(x, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(x, 7, 1, a));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, x, 4));
	EXPECT_EQ(0, v);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(a));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, x, 4));
	EXPECT_EQ(7, v);

	ASSERT_EQ(0, cufab_param_set_u("race_delay_us", 50000));
	for (seed = 1; seed <= 8; seed++) {
		ASSERT_EQ(0, cufab_param_set_u("race_seed", seed));
		/* stream b copies x without waiting for a's set */
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(x, 0, 1));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(y, 0, 1));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(x, 1, 1, a));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(y, x, 4, b));
		ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, y, 4));
		exposed += v == 0;
		/* the same with the event: always right */
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(x, 0, 1));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(y, 0, 1));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(x, 1, 1, a));
		ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, a));
		ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(b, e, 0));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(y, x, 4, b));
		ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, y, 4));
		wrong += v != 1;
	}
	cufab_param_set_u("race_delay_us", 0);
	cufab_param_set_u("race_seed", 0);
	TH_LOG("missing synchronization exposed under %u of 8 seeds",
	       exposed);
	EXPECT_LT(0, exposed);
	EXPECT_EQ(0, wrong);
	cuCtxDestroy(ctx);
}

/*
 * The nice value of a kernel worker running work of a cufab engine now
 * ("+cufab-ce" in its comm), its comm in @comm; 100 when none is seen.
 */
static int engine_worker_nice(char *comm, size_t len)
{
	char path[300], buf[512], *p, *end;
	struct dirent *e;
	int nice = 100, i;
	DIR *d;
	FILE *f;

	d = opendir("/proc");
	if (!d)
		return 100;
	while (nice == 100 && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strstr(buf, "+cufab-ce") : NULL;
		fclose(f);
		if (!p)
			continue;
		end = strchr(p, ')');
		snprintf(comm, len, "%.*s", end ? (int)(end - p) : 0, p);
		p = strrchr(buf, ')');
		/* after "comm)": state is field 3, nice field 19 */
		for (i = 3; p && i <= 19; i++)
			p = strchr(p + 1, ' ');
		if (p)
			nice = atoi(p + 1);
	}
	closedir(d);
	return nice;
}

/* Copies on a greatest-priority stream until killed; ready on @fd. */
static int busy_priority_stream(int fd, int nobody)
{
	const size_t len = 32 << 20;
	CUdeviceptr a, b;
	CUcontext ctx;
	int greatest, least;
	CUstream s;

	if (nobody)
		become_nobody();
	if (cuInit(0) || !(ctx = ctx_on(0)) ||
	    cuCtxGetStreamPriorityRange(&least, &greatest) ||
	    cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, greatest) ||
	    cuMemAlloc(&a, len) || cuMemAlloc(&b, len) ||
	    cuMemsetD8(a, 1, len))
		return 1;
	if (write(fd, "r", 1) != 1)
		return 2;
	for (;;)
		if (cuMemcpyAsync(b, a, len, s) || cuStreamSynchronize(s))
			return 3;
}

/* The nice of the worker seen running @nobody's greatest-priority copies. */
static int priority_worker_nice(int nobody, char *comm, size_t len)
{
	int ready[2], nice = 100, i;
	char c;
	pid_t pid;

	if (pipe(ready))
		return 101;
	pid = fork();
	if (pid < 0)
		return 102;
	if (!pid)
		_exit(busy_priority_stream(ready[1], nobody));
	close(ready[1]);
	if (read(ready[0], &c, 1) == 1)
		for (i = 0; i < 2000 && nice == 100; i++) {
			nice = engine_worker_nice(comm, len);
			if (nice == 100)
				usleep(1000);
		}
	close(ready[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return nice;
}

/*
 * A greatest-priority stream's work runs in a nice -20 worker only for a
 * process with CAP_SYS_NICE (root here); anybody else's runs at nice 0,
 * still on its own queue ahead of default-priority work.
 */
TEST(priority_worker_needs_cap_sys_nice)
{
	char comm[64] = "";
	int nice;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	nice = priority_worker_nice(1, comm, sizeof(comm));
	ASSERT_NE(100, nice) TH_LOG("no worker seen running the copies");
	EXPECT_EQ(0, nice) TH_LOG("nobody's priority work ran in %s at nice %d",
				  comm, nice);
	nice = priority_worker_nice(0, comm, sizeof(comm));
	ASSERT_NE(100, nice) TH_LOG("no worker seen running the copies");
	EXPECT_EQ(-20, nice) TH_LOG("root's priority work ran in %s at nice %d",
				    comm, nice);
}

/* Open the gate 300 ms later, while the submitter is held. */
static void *gate_open_300ms(void *p)
{
	usleep(300000);
	gate_open(p);
	return NULL;
}

/*
 * stream_queue_max bounds the operations a process has queued: with a
 * host function holding the stream and the bound at 16, the 64 sets
 * behind it do not all go in; the submitter waits until the gate opens
 * and the queue drains, then every set runs.
 */
TEST(queue_depth_bound_blocks)
{
	static struct gate g = GATE_INIT;
	long saved = cufab_param("stream_queue_max");
	unsigned char last = 0;
	CUdeviceptr d;
	pthread_t opener;
	CUcontext ctx;
	int i, held;
	CUstream s;

	CTX_OR_SKIP(ctx);
	ASSERT_LE(0, saved) TH_LOG("no stream_queue_max parameter");
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_EQ(0, cufab_param_set_u("stream_queue_max", 16));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_EQ(0, pthread_create(&opener, NULL, gate_open_300ms, &g));
	for (i = 0; i < 64; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, i, 4096, s));
	pthread_mutex_lock(&g.lock);
	held = g.open;
	pthread_mutex_unlock(&g.lock);
	EXPECT_EQ(1, held) TH_LOG("64 submissions went in past a bound of 16");
	pthread_join(opener, NULL);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&last, d + 4095, 1));
	EXPECT_EQ(63, last);
	cufab_param_set_u("stream_queue_max", (unsigned int)saved);
	cuStreamDestroy(s);
	cuMemFree(d);
	cuCtxDestroy(ctx);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Raw: a submission held by the queue bound returns EINTR when a signal
 * without SA_RESTART arrives, and nothing was queued.
 */
TEST(queue_depth_bound_eintr)
{
	struct cufab_stream_create c = {
		.size = sizeof(c), .flags = CUFAB_STREAM_NON_BLOCKING,
	};
	struct cufab_stream_submit host = {
		.size = sizeof(host), .op = CUFAB_OP_HOST, .host_fn = 1,
	};
	struct cufab_stream_submit wait = {
		.size = sizeof(wait), .op = CUFAB_OP_STREAM_WAIT,
	};
	long saved = cufab_param("stream_queue_max");
	struct cufab_stream_wait poll = {
		.size = sizeof(poll), .what = CUFAB_WAIT_STREAM, .seq = 3,
		.flags = CUFAB_WAIT_POLL,
	};
	struct sigaction sa = { .sa_handler = on_alarm };
	struct cufab_stream_create c2;
	int fd;

	OPEN_OR_SKIP(fd);
	ASSERT_LE(0, saved) TH_LOG("no stream_queue_max parameter");
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &c.ctx_id));
	c2 = c;
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &c));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &c2));
	ASSERT_EQ(0, cufab_param_set_u("stream_queue_max", 2));
	/* nobody serves host operations here: the first holds the stream */
	host.stream_id = c.out_stream_id;
	wait.stream_id = c.out_stream_id;
	wait.event_id = c2.out_stream_id;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &host));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &host));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	EXPECT_EQ(EINTR, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &wait));
	alarm(0);
	/* nothing was queued: sequence 3 was never submitted */
	poll.id = c.out_stream_id;
	EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &poll));
	cufab_param_set_u("stream_queue_max", (unsigned int)saved);
	/* closing cancels the held host operations */
	close(fd);
}

/* memory.stat "vmalloc" of the cgroup @dir, or -1. */
static long long cg_vmalloc(const char *dir)
{
	long long vmalloc = -1;
	char path[256], key[64];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		if (!strcmp(key, "vmalloc"))
			vmalloc = v;
	fclose(f);
	return vmalloc;
}

/* In the cgroup @dir: a client's first stream; 0 if its slots are charged. */
static int slots_child(const char *dir)
{
	struct cufab_stream_create c = { .size = sizeof(c) };
	long long before, after;
	int fd;

	if (cg_join(dir))
		return 10;
	before = cg_vmalloc(dir);
	fd = cufab_open();
	if (before < 0 || fd < 0 || ctx_create(fd, 0, 0, &c.ctx_id) ||
	    cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &c))
		return 11;
	after = cg_vmalloc(dir);
	fprintf(stderr, "# vmalloc charged to the cgroup: %lld bytes\n",
		after - before);
	/* the client's 128 KiB of completion slots */
	return after - before >= 128 << 10 ? 0 : 14;
}

/*
 * The 128 KiB of completion slots a client gets with its first stream
 * count against the process's memory cgroup (memory.stat "vmalloc"):
 * opening many clients cannot put memory outside every limit.
 */
TEST(slots_charged_to_memcg)
{
	char dir[128];
	pid_t pid;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	if (cg_make(dir, sizeof(dir), "cufab_slots"))
		SKIP(return, "no cgroup v2 memory controller");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(slots_child(dir));
	EXPECT_EQ(0, wait_child(pid)) TH_LOG("14: the slots were not charged");
	rmdir(dir);
}

TEST_HARNESS_MAIN
