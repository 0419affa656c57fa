// SPDX-License-Identifier: GPL-2.0
/*
 * Stream capture state: cuStreamIsCapturing and cuStreamGetCaptureInfo in
 * every form. cufab has no cuStreamBeginCapture, so every stream (created,
 * NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, _ptsz) reports NONE and
 * nothing else is written; the codes are the driver's.
 */
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

TEST_HARNESS_MAIN
