// SPDX-License-Identifier: GPL-2.0
/*
 * cuGraphLaunch of n memset and memcpy nodes in a chain against the same
 * n calls on a stream (cuMemsetD32Async, cuMemcpyDtoDAsync alternating,
 * 256 bytes each, so that the submission, not the bytes, is measured).
 * Each repetition holds the stream with a host function, times a batch
 * of submissions, then lets the stream go and waits for it outside the
 * timed part: what a program pays to hand the work over, as on a GPU,
 * where the work does not run on the submitting CPUs. A launch is one STREAM_BATCH ioctl, the stream calls n
 * STREAM_SUBMITs; the ratio (launch / calls) is the figure of issue 27
 * (goal <= 0.3 for n = 10; NVIDIA's driver on an H200: 0.87).
 */
#include <pthread.h>
#include <stdlib.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "graph_bench.h"

#define NODE_BYTES	256
#define PER_REP		8	/* submissions timed together */

static CUgraphExec graph_make(CUcontext ctx, CUdeviceptr d, int n)
{
	CUDA_MEMSET_NODE_PARAMS sp = {
		.dst = d, .value = 1, .elementSize = 4,
		.width = NODE_BYTES / 4, .height = 1,
	};
	CUDA_MEMCPY3D cp = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = d,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE,
		.dstDevice = d + NODE_BYTES, .WidthInBytes = NODE_BYTES,
		.Height = 1, .Depth = 1,
	};
	CUgraphNode prev = NULL, node;
	CUgraphExec x = NULL;
	CUgraph g;
	int i, bad = 0;

	if (cuGraphCreate(&g, 0))
		return NULL;
	for (i = 0; i < n && !bad; i++) {
		bad = i % 2 ?
		      cuGraphAddMemcpyNode(&node, g, prev ? &prev : NULL, !!prev,
					   &cp, ctx) :
		      cuGraphAddMemsetNode(&node, g, prev ? &prev : NULL, !!prev,
					   &sp, ctx);
		prev = node;
	}
	if (bad || cuGraphInstantiate(&x, g, 0))
		x = NULL;
	cuGraphDestroy(g);
	return x;
}

static int calls(CUstream s, CUdeviceptr d, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (i % 2 ? cuMemcpyDtoDAsync(d + NODE_BYTES, d, NODE_BYTES, s) :
		    cuMemsetD32Async(d, 1, NODE_BYTES / 4, s))
			return -1;
	return 0;
}

/* A host function that holds its stream until the bench lets it go. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void CUDA_CB gate_fn(void *p)
{
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
}

static int gate_close(CUstream s)
{
	gate_open = 0;
	return cuLaunchHostFunc(s, gate_fn, NULL) ? -1 : 0;
}

static int gate_release(CUstream s)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = 1;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	return cuStreamSynchronize(s) ? -1 : 0;
}

/* Median ns of one launch and of n stream calls, over @reps. */
static int graph_row(CUcontext ctx, CUstream s, CUdeviceptr d, int n,
		     int reps, double *launch, double *stream)
{
	double *tl = calloc(reps, sizeof(double));
	double *ts = calloc(reps, sizeof(double));
	CUgraphExec x = graph_make(ctx, d, n);
	int r, k, ret = -1;
	double t;

	if (!tl || !ts || !x)
		goto out;
	for (r = 0; r < reps; r++) {
		if (gate_close(s))
			goto out;
		t = now_ns();
		for (k = 0; k < PER_REP; k++)
			if (cuGraphLaunch(x, s))
				goto out;
		tl[r] = (now_ns() - t) / PER_REP;
		if (gate_release(s) || gate_close(s))
			goto out;
		t = now_ns();
		for (k = 0; k < PER_REP; k++)
			if (calls(s, d, n))
				goto out;
		ts[r] = (now_ns() - t) / PER_REP;
		if (gate_release(s))
			goto out;
	}
	*launch = median(tl, reps);
	*stream = median(ts, reps);
	ret = 0;
out:
	if (x)
		cuGraphExecDestroy(x);
	free(tl);
	free(ts);
	return ret;
}

int graph_bench_extra(FILE *out, int reps, int last)
{
	static const int nodes[] = { 1, 10, 100 };
	double launch, stream;
	CUdeviceptr d = 0;
	CUcontext ctx;
	CUstream s = NULL;
	unsigned int i;
	int ret = -1;

	if (cuCtxGetCurrent(&ctx) || cuMemAlloc(&d, 2 * NODE_BYTES) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING))
		goto out;
	fprintf(out, "  \"graph_launch\": [");
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		if (graph_row(ctx, s, d, nodes[i], reps, &launch, &stream))
			goto out;
		fprintf(out, "%s\n    { \"nodes\": %d, \"node_bytes\": %d, \"cuGraphLaunch_ns\": %.0f, \"stream_calls_ns\": %.0f, \"ratio_to_stream_calls\": %.3f }",
			i ? "," : "", nodes[i], NODE_BYTES, launch, stream,
			launch / stream);
	}
	fprintf(out, "\n  ]%s", last ? "" : ",\n");
	ret = 0;
out:
	if (s)
		cuStreamDestroy(s);
	if (d)
		cuMemFree(d);
	return ret;
}
