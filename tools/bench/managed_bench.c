// SPDX-License-Identifier: GPL-2.0
/*
 * Managed memory rows of cufab-bench.
 *
 * cuStreamAttachMemAsync is one stream operation: the row measures the
 * call on an idle stream (what NVIDIA quotes), and the call with the
 * synchronization that waits for the engine to run it. From its second
 * call on, the row attaches what is attached so already: on the idle
 * stream the kernel settles it at submission, without an operation.
 *
 * The CPU fence of CONCURRENT_MANAGED_ACCESS 0 costs, per busy/idle
 * transition of a stream, a walk of the process's reservations zapping
 * the PTEs of managed memory it keeps, and the CPU's faults when it
 * touches that memory again. The "cma0_fence" member times one transition
 * (the CPU writes one byte in each of MB_ALLOCS managed pages, then a
 * one-byte memset on the stream and its synchronization) on a GPU with
 * the setting 0 and on one with it 1; the difference is the fence.
 */
#include <stdlib.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "managed_bench.h"

#define MB_ALLOCS	16
#define MB_PAGE		4096

/* [0]: GPU 0, concurrent managed access 1; [1]: a GPU with it 0. */
struct mb_side {
	CUcontext ctx;
	CUstream stream;
	CUdeviceptr buf;
	CUdeviceptr mem[MB_ALLOCS];
};

static struct mb_side mb[2];
static CUdeviceptr mb_attach;
static int mb_cma0 = -1;	/* the GPU with the setting 0, -1: none */

static int mb_side_setup(struct mb_side *s, CUdevice dev)
{
	int i, ret;

	if (cuDevicePrimaryCtxRetain(&s->ctx, dev) || cuCtxPushCurrent(s->ctx))
		return -1;
	ret = cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING) ||
	      cuMemAlloc(&s->buf, MB_PAGE);
	for (i = 0; i < MB_ALLOCS && !ret; i++)
		ret = cuMemAllocManaged(&s->mem[i], MB_PAGE,
					CU_MEM_ATTACH_GLOBAL);
	cuCtxPopCurrent(NULL);
	return ret ? -1 : 0;
}

int managed_bench_setup(void)
{
	int n, i, v;

	if (cuMemAllocManaged(&mb_attach, MB_PAGE, CU_MEM_ATTACH_GLOBAL) ||
	    cuDeviceGetCount(&n) || mb_side_setup(&mb[0], 0))
		return -1;
	for (i = n - 1; i > 0 && mb_cma0 < 0; i--)
		if (!cuDeviceGetAttribute(&v,
				CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, i) &&
		    !v)
			mb_cma0 = i;
	if (mb_cma0 > 0 && mb_side_setup(&mb[1], mb_cma0))
		return -1;
	return 0;
}

static void mb_side_teardown(struct mb_side *s, CUdevice dev)
{
	int i;

	if (!s->ctx || cuCtxPushCurrent(s->ctx))
		return;
	for (i = 0; i < MB_ALLOCS; i++)
		if (s->mem[i])
			cuMemFree(s->mem[i]);
	cuMemFree(s->buf);
	cuStreamDestroy(s->stream);
	cuCtxPopCurrent(NULL);
	cuDevicePrimaryCtxRelease(dev);
}

void managed_bench_teardown(void)
{
	mb_side_teardown(&mb[0], 0);
	if (mb_cma0 > 0)
		mb_side_teardown(&mb[1], mb_cma0);
	cuMemFree(mb_attach);
}

int mb_step_attach(struct bench *b)
{
	(void)b;
	return cuStreamAttachMemAsync(mb[0].stream, mb_attach, 0,
				      CU_MEM_ATTACH_SINGLE);
}

int mb_step_attach_sync(struct bench *b)
{
	(void)b;
	return cuStreamAttachMemAsync(mb[0].stream, mb_attach, 0,
				      CU_MEM_ATTACH_SINGLE) ||
	       cuStreamSynchronize(mb[0].stream);
}

/* The CPU touches the managed pages, then one busy/idle transition. */
static int mb_transition(struct mb_side *s)
{
	int i, ret;

	if (cuCtxPushCurrent(s->ctx))
		return -1;
	for (i = 0; i < MB_ALLOCS; i++)
		*(volatile char *)s->mem[i] = (char)i;
	ret = cuMemsetD8Async(s->buf, 0, 1, s->stream) ||
	      cuStreamSynchronize(s->stream);
	cuCtxPopCurrent(NULL);
	return ret ? -1 : 0;
}

/* Median over @reps of the mean time of @n transitions of @s. */
static int mb_measure(struct mb_side *s, int reps, long n, double *med)
{
	double *v = calloc(reps, sizeof(*v)), t;
	long i;
	int r;

	if (!v)
		return -1;
	for (r = 0; r < reps; r++) {
		t = now_ns();
		for (i = 0; i < n; i++) {
			if (mb_transition(s)) {
				free(v);
				return -1;
			}
		}
		v[r] = (now_ns() - t) / n;
	}
	*med = median(v, reps);
	free(v);
	return 0;
}

int managed_bench_extra(FILE *out, int reps, long n)
{
	double on, off;

	n = n / 20 ?: 1;
	if (mb_cma0 < 0) {
		fprintf(out, "  \"cma0_fence\": { \"skipped\": \"no GPU with CONCURRENT_MANAGED_ACCESS 0\" },\n");
		return 0;
	}
	if (mb_measure(&mb[0], reps, n, &on) ||
	    mb_measure(&mb[1], reps, n, &off))
		return -1;
	fprintf(out, "  \"cma0_fence\": { \"managed_pages_touched\": %d, \"transition_cma1_ns\": %.0f, \"transition_cma0_ns\": %.0f, \"fence_unfence_ns\": %.0f },\n",
		MB_ALLOCS, on, off, off - on);
	return 0;
}
