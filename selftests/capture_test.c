// SPDX-License-Identifier: GPL-2.0
/*
 * Stream capture: cuStreamIsCapturing and cuStreamGetCaptureInfo in every
 * form (a stream not capturing reports NONE and nothing else is written),
 * cuStreamBeginCapture in its three modes and their rules on other
 * threads' unsafe calls, cuThreadExchangeStreamCaptureMode,
 * cuStreamEndCapture, capture across streams joined by events, the
 * legacy stream refused, invalidation, and every documented code.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"
#include "stream_helpers.h"

#define GARBAGE_STREAM	((CUstream)0xdeadbeef0000ULL)
#define POISON		0x5a

#undef cuStreamGetCaptureInfo
CUresult cuStreamIsCapturing_ptsz(CUstream hStream,
				  CUstreamCaptureStatus *captureStatus);
CUresult cuStreamGetCaptureInfo(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out);
CUresult cuStreamGetCaptureInfo_v2(CUstream hStream,
				   CUstreamCaptureStatus *captureStatus_out,
				   cuuint64_t *id_out, CUgraph *graph_out,
				   const CUgraphNode **dependencies_out,
				   size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
					CUstreamCaptureStatus *captureStatus_out,
					cuuint64_t *id_out, CUgraph *graph_out,
					const CUgraphNode **dependencies_out,
					const CUgraphEdgeData **edgeData_out,
					size_t *numDependencies_out);

TEST(not_initialized)
{
	CUstreamCaptureStatus st;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamIsCapturing(NULL, &st));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuStreamGetCaptureInfo_v3(NULL, &st, NULL, NULL, NULL, NULL,
					    NULL));
}

/* Every stream reads NONE; the optional outputs stay untouched. */
TEST(every_stream_is_not_capturing)
{
	CUstream handles[4] = { NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD };
	CUstreamCaptureStatus st;
	const CUgraphEdgeData *edges;
	const CUgraphNode *deps;
	CUcontext ctx;
	cuuint64_t id;
	CUgraph graph;
	size_t n;
	unsigned int i;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&handles[3], 0));
	for (i = 0; i < 4; i++) {
		st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
		EXPECT_CU(CUDA_SUCCESS, cuStreamIsCapturing(handles[i], &st));
		EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
		st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
		EXPECT_CU(CUDA_SUCCESS,
			  cuStreamIsCapturing_ptsz(handles[i], &st));
		EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);

		memset(&id, POISON, sizeof(id));
		memset(&graph, POISON, sizeof(graph));
		memset(&deps, POISON, sizeof(deps));
		memset(&edges, POISON, sizeof(edges));
		memset(&n, POISON, sizeof(n));
		st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
		EXPECT_CU(CUDA_SUCCESS,
			  cuStreamGetCaptureInfo_v3(handles[i], &st, &id,
						    &graph, &deps, &edges,
						    &n));
		EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
		EXPECT_CU(CUDA_SUCCESS,
			  cuStreamGetCaptureInfo_v3_ptsz(handles[i], &st, &id,
							 &graph, &deps,
							 &edges, &n));
		EXPECT_CU(CUDA_SUCCESS,
			  cuStreamGetCaptureInfo_v2(handles[i], &st, &id,
						    &graph, &deps, &n));
		EXPECT_CU(CUDA_SUCCESS,
			  cuStreamGetCaptureInfo(handles[i], &st, &id));
		EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
		/* valid data only for an ACTIVE capture: nothing written */
		EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, id);
		EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, (uintptr_t)graph);
		EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, (uintptr_t)deps);
		EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, (uintptr_t)edges);
		EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, n);
	}
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(handles[3]));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(errors)
{
	const CUgraphEdgeData *edges;
	CUstreamCaptureStatus st;
	CUcontext ctx;
	CUstream s;

	INIT_OR_SKIP();
	/* the NULL stream is the current context's */
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuStreamIsCapturing(NULL, &st));
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamIsCapturing(NULL, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamGetCaptureInfo_v3(NULL, NULL, NULL, NULL, NULL, NULL,
					    NULL));
	/* edge data without the dependencies it parallels */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamGetCaptureInfo_v3(NULL, &st, NULL, NULL, NULL,
					    &edges, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamIsCapturing(GARBAGE_STREAM, &st));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamGetCaptureInfo_v3(GARBAGE_STREAM, &st, NULL, NULL,
					    NULL, NULL, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuStreamIsCapturing(s, &st));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

static void CUDA_CB count_fn(void *p)
{
	__atomic_add_fetch((int *)p, 1, __ATOMIC_RELAXED);
}

static void CUDA_CB callback_fn(CUstream s, CUresult r, void *p)
{
	(void)s;
	(void)r;
	(void)p;
}

static size_t graph_nodes(CUgraph g)
{
	size_t n = 0;

	if (cuGraphGetNodes(g, NULL, &n) != CUDA_SUCCESS)
		return (size_t)-1;
	return n;
}

/*
 * A set, a copy and a host function captured on a stream: nothing runs
 * while capturing, the graph has the three nodes in a chain, and its
 * launch does what the calls would have done.
 */
TEST(capture_and_launch)
{
	const CUgraphEdgeData *edges;
	const CUgraphNode *deps;
	CUstreamCaptureStatus st;
	CUgraphNode nodes[3];
	CUgraphNodeType t;
	unsigned int v[2];
	cuuint64_t id, id2;
	CUgraph g, gi;
	CUgraphExec x;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	size_t n;
	int count = 0;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d, 0, 1024));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_ACTIVE, st);
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamGetCaptureInfo_v3(s, &st, &id, &gi, &deps, &edges, &n));
	EXPECT_EQ(0, n);
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 7, 1, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(d + 4, d, 4, s));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, count_fn, &count));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamGetCaptureInfo_v3(s, &st, &id2, &g, &deps, &edges, &n));
	EXPECT_EQ(id, id2);
	EXPECT_EQ(gi, g);
	ASSERT_EQ(1, n);
	EXPECT_EQ(0, edges[0].type);
	ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(deps[0], &t));
	EXPECT_EQ(CU_GRAPH_NODE_TYPE_HOST, t);
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(s, &g));
	EXPECT_EQ(gi, g);
	/* nothing ran */
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(0, count);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(v, d, 8));
	EXPECT_EQ(0, v[0]);
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
	n = 3;
	ASSERT_CU(CUDA_SUCCESS, cuGraphGetNodes(g, nodes, &n));
	ASSERT_EQ(3, n);
	ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(nodes[0], &t));
	EXPECT_EQ(CU_GRAPH_NODE_TYPE_MEMSET, t);
	ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(nodes[1], &t));
	EXPECT_EQ(CU_GRAPH_NODE_TYPE_MEMCPY, t);
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(2, count);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(v, d, 8));
	EXPECT_EQ(7, v[0]);
	EXPECT_EQ(7, v[1]);
	/* a launch captured into another capture: a child graph node */
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(s, &gi));
	n = 1;
	ASSERT_CU(CUDA_SUCCESS, cuGraphGetNodes(gi, nodes, &n));
	ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(nodes[0], &t));
	EXPECT_EQ(CU_GRAPH_NODE_TYPE_GRAPH, t);
	EXPECT_EQ(2, count);
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(gi));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph);

TEST(begin_end_errors)
{
	CUstreamCaptureStatus st;
	CUcontext ctx;
	CUstream s, s2;
	CUgraph g;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, 0));
	/* the legacy stream cannot capture; the per-thread one can */
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		  cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		  cuStreamBeginCapture(CU_STREAM_LEGACY,
				       CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture_v2_ptsz(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_SUCCESS, cuStreamIsCapturing(CU_STREAM_PER_THREAD, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_ACTIVE, st);
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture_ptsz(NULL, &g));
	EXPECT_EQ(0, graph_nodes(g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamBeginCapture(s, (CUstreamCaptureMode)3));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamBeginCapture(GARBAGE_STREAM,
				       CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuStreamEndCapture(s, &g));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamEndCapture(s, NULL));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuStreamEndCapture(s2, &g));
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(s, &g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * A synchronous call on a capturing stream is refused and invalidates
 * the capture: what follows is INVALIDATED, the end returns no graph,
 * and the stream works again after it.
 */
TEST(invalidation)
{
	CUstreamCaptureStatus st;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	CUgraph g;
	int count = 0;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d, 0, 1024));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 1, 16, s));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_INVALIDATED, st);
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuMemsetD8Async(d, 1, 16, s));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuLaunchHostFunc(s, count_fn, &count));
	g = (CUgraph)0x1;
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	EXPECT_EQ(NULL, g);
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));

	/* a query, a stream callback, an attach: the same */
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuStreamQuery(s));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		  cuStreamAddCallback(s, callback_fn, NULL, 0));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		  cuStreamWriteValue32(s, d, 1, 0));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	{
		CUdeviceptr p;

		ASSERT_CU(CUDA_SUCCESS,
			  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
		EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
			  cuMemAllocAsync(&p, 4096, s));
		EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
			  cuStreamEndCapture(s, &g));
	}
	/* nothing captured ran */
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(0, count);
	{
		unsigned int v = 5;

		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d, 4));
		EXPECT_EQ(0, v);
	}
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * Capture across two streams: an event recorded on the origin brings a
 * second stream into the capture (fork), an event recorded there brings
 * its work back (join). The graph's launch runs both branches before the
 * joined node.
 */
TEST(two_streams_fork_join)
{
	CUstreamCaptureStatus st;
	const CUgraphNode *deps;
	unsigned int v[3];
	cuuint64_t id1, id2;
	CUevent fork, join;
	CUgraph g;
	CUgraphExec x;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s1, s2;
	size_t n;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d, 0, 1024));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 1, 1, s1));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(fork, s1));
	/* an event recorded in a capture has no completion to ask about */
	EXPECT_CU(CUDA_ERROR_CAPTURED_EVENT, cuEventQuery(fork));
	EXPECT_CU(CUDA_ERROR_CAPTURED_EVENT, cuEventSynchronize(fork));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(s2, fork, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s2, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_ACTIVE, st);
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamGetCaptureInfo_v3(s1, &st, &id1, NULL, NULL, NULL, NULL));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamGetCaptureInfo_v3(s2, &st, &id2, NULL, &deps, NULL, &n));
	EXPECT_EQ(id1, id2);
	EXPECT_EQ(1, n);
	/* the joined stream cannot end the capture */
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, cuStreamEndCapture(s2, &g));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(d + 4, d, 4, s2));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d + 8, 3, 1, s1));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(join, s2));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(s1, join, 0));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamGetCaptureInfo_v3(s1, &st, NULL, NULL, &deps, NULL, &n));
	EXPECT_EQ(2, n);
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(s1, &g));
	EXPECT_EQ(3, graph_nodes(g));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s2, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s1));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(v, d, 12));
	EXPECT_EQ(1, v[0]);
	EXPECT_EQ(1, v[1]);
	EXPECT_EQ(3, v[2]);

	/* a fork not joined back: UNJOINED, and every stream leaves */
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(fork, s1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(s2, fork, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 5, 1, s2));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, cuStreamEndCapture(s1, &g));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s2, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);

	/* a wait for an event recorded outside the capture: ISOLATION */
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(join, s2));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
		  cuStreamWaitEvent(s1, join, 0));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s1, &g));
	/* ... unless it is EXTERNAL: a wait node, as a record is a record node */
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamWaitEvent(s1, join, CU_EVENT_WAIT_EXTERNAL));
	ASSERT_CU(CUDA_SUCCESS,
		  cuEventRecordWithFlags(join, s1, CU_EVENT_RECORD_EXTERNAL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(s1, &g));
	{
		CUgraphNode nd[2];
		CUgraphNodeType t;

		n = 2;
		ASSERT_CU(CUDA_SUCCESS, cuGraphGetNodes(g, nd, &n));
		ASSERT_EQ(2, n);
		ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(nd[0], &t));
		EXPECT_EQ(CU_GRAPH_NODE_TYPE_WAIT_EVENT, t);
		ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(nd[1], &t));
		EXPECT_EQ(CU_GRAPH_NODE_TYPE_EVENT_RECORD, t);
	}
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(fork));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(join));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* Two captures cannot merge. */
TEST(merge_refused)
{
	CUstream s1, s2;
	CUcontext ctx;
	CUevent e;
	CUgraph g;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_RELAXED));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s1));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_MERGE, cuStreamWaitEvent(s2, e, 0));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s1, &g));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s2, &g));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * While a blocking stream captures, the legacy stream of its context has
 * an implicit dependency on it: the question is IMPLICIT (the capture
 * stays valid), work there is IMPLICIT and invalidates the capture. A
 * non-blocking capturing stream leaves the legacy stream alone.
 */
TEST(legacy_stream_implicit)
{
	CUstreamCaptureStatus st;
	CUstream s, nb;
	CUdeviceptr d;
	CUcontext ctx;
	CUgraph g;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_RELAXED));
	EXPECT_CU(CUDA_SUCCESS, cuStreamIsCapturing(NULL, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_NONE, st);
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 1, 16, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(nb, &g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));

	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
		  cuStreamIsCapturing(NULL, &st));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
		  cuStreamIsCapturing(CU_STREAM_LEGACY, &st));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_ACTIVE, st);
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
		  cuMemsetD8Async(d, 1, 16, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamIsCapturing(s, &st));
	EXPECT_EQ(CU_STREAM_CAPTURE_STATUS_INVALIDATED, st);
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 1, 16, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(nb));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(exchange_mode)
{
	CUstreamCaptureMode m;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuThreadExchangeStreamCaptureMode(NULL));
	m = (CUstreamCaptureMode)3;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuThreadExchangeStreamCaptureMode(&m));
	m = CU_STREAM_CAPTURE_MODE_RELAXED;
	ASSERT_CU(CUDA_SUCCESS, cuThreadExchangeStreamCaptureMode(&m));
	EXPECT_EQ(CU_STREAM_CAPTURE_MODE_GLOBAL, m);
	m = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
	ASSERT_CU(CUDA_SUCCESS, cuThreadExchangeStreamCaptureMode(&m));
	EXPECT_EQ(CU_STREAM_CAPTURE_MODE_RELAXED, m);
	ASSERT_CU(CUDA_SUCCESS, cuThreadExchangeStreamCaptureMode(&m));
	EXPECT_EQ(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, m);
}

/* What another thread's cuMemAlloc gets, with its mode set to @mode. */
struct other {
	CUcontext ctx;
	CUstreamCaptureMode mode;
	CUresult res;
	CUstream s;		/* set: end this capture there instead */
	CUgraph g;
};

static void *other_thread(void *p)
{
	struct other *o = p;
	CUstreamCaptureMode m = o->mode;
	CUdeviceptr d;

	cuCtxSetCurrent(o->ctx);
	cuThreadExchangeStreamCaptureMode(&m);
	if (o->s) {
		o->res = cuStreamEndCapture(o->s, &o->g);
		return NULL;
	}
	o->res = cuMemAlloc(&d, 4096);
	if (o->res == CUDA_SUCCESS)
		cuMemFree(d);
	return NULL;
}

static CUresult in_other_thread(CUcontext ctx, CUstreamCaptureMode mode,
				CUstream end, CUgraph *g)
{
	struct other o = { .ctx = ctx, .mode = mode, .s = end };
	pthread_t t;

	if (pthread_create(&t, NULL, other_thread, &o))
		return CUDA_ERROR_UNKNOWN;
	pthread_join(t, NULL);
	if (g)
		*g = o.g;
	return o.res;
}

/*
 * The modes. GLOBAL: unsafe calls are refused in the capturing thread and
 * in every thread whose own mode is GLOBAL. THREAD_LOCAL: only in the
 * capturing thread. RELAXED: nowhere. A refused call invalidates the
 * capture. The end must come from the beginning thread unless RELAXED.
 */
TEST(modes)
{
	CUstreamCaptureMode m;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	CUgraph g;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));

	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_SUCCESS,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_RELAXED, NULL, NULL));
	EXPECT_CU(CUDA_SUCCESS,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, NULL,
				  NULL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_GLOBAL, s, &g));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL, NULL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));

	/* this thread: refused in GLOBAL and THREAD_LOCAL, not RELAXED */
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_CU(CUDA_SUCCESS,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL, NULL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuMemAlloc(&d, 4096));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cuCtxSynchronize());
	EXPECT_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		  cuStreamEndCapture(s, &g));
	/* the thread's own mode RELAXED: its calls are not checked */
	m = CU_STREAM_CAPTURE_MODE_RELAXED;
	ASSERT_CU(CUDA_SUCCESS, cuThreadExchangeStreamCaptureMode(&m));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_CU(CUDA_SUCCESS, cuStreamEndCapture(s, &g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	ASSERT_CU(CUDA_SUCCESS, cuThreadExchangeStreamCaptureMode(&m));

	/* RELAXED: no check anywhere; ended by another thread */
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
	EXPECT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL, NULL));
	EXPECT_CU(CUDA_SUCCESS,
		  in_other_thread(ctx, CU_STREAM_CAPTURE_MODE_GLOBAL, s, &g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST_HARNESS_MAIN
