// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime stream capture and graphs: cudaStreamBeginCapture/EndCapture/
 * IsCapturing/GetCaptureInfo, cudaThreadExchangeStreamCaptureMode,
 * cudaGraphCreate/Instantiate(WithFlags)/Launch/Destroy/ExecDestroy, the
 * memset, memcpy (3D and 1D), host, event record and wait, empty and
 * child-graph nodes, cudaGraphGetNodes, cudaGraphNodeGetType and
 * cudaGraphExecUpdate, with their runtime error codes and the sticky
 * last error, the legacy stream refused, invalidation, and capture
 * across two streams.
 */
#include <pthread.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

#define LEN	4096

static void CUDART_CB count_fn(void *p)
{
	__atomic_add_fetch((int *)p, 1, __ATOMIC_RELAXED);
}

/* A captured sequence, launched three times, does what the calls do. */
TEST(capture_and_launch)
{
	enum cudaStreamCaptureStatus st;
	const cudaGraphNode_t *deps;
	unsigned int host[4] = { 0 };
	unsigned long long id = 0;
	cudaGraphExec_t x;
	cudaStream_t s;
	cudaGraph_t g, gi;
	size_t n = 9;
	int count = 0;
	void *d;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, LEN));
	ASSERT_RT(cudaSuccess, cudaMemset(d, 0, LEN));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	ASSERT_RT(cudaSuccess, cudaStreamIsCapturing(s, &st));
	EXPECT_EQ(cudaStreamCaptureStatusActive, st);
	ASSERT_RT(cudaSuccess, cudaMemsetAsync(d, 0x11, 16, s));
	ASSERT_RT(cudaSuccess, cudaMemcpyAsync((char *)d + 16, d, 16,
					       cudaMemcpyDeviceToDevice, s));
	ASSERT_RT(cudaSuccess, cudaLaunchHostFunc(s, count_fn, &count));
	ASSERT_RT(cudaSuccess, cudaStreamGetCaptureInfo(s, &st, &id, &gi, &deps,
							NULL, &n));
	EXPECT_NE(0, id);
	EXPECT_EQ(1, n);
	ASSERT_RT(cudaSuccess, cudaStreamEndCapture(s, &g));
	EXPECT_EQ(gi, g);
	ASSERT_RT(cudaSuccess, cudaGraphGetNodes(g, NULL, &n));
	EXPECT_EQ(3, n);
	ASSERT_RT(cudaSuccess, cudaGraphInstantiate(&x, g, 0));
	ASSERT_RT(cudaSuccess, cudaGraphLaunch(x, s));
	ASSERT_RT(cudaSuccess, cudaGraphLaunch(x, s));
	ASSERT_RT(cudaSuccess, cudaGraphLaunch(x, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_EQ(3, count);
	ASSERT_RT(cudaSuccess, cudaMemcpy(host, (char *)d + 12, 8,
					  cudaMemcpyDeviceToHost));
	EXPECT_EQ(0x11111111u, host[0]);
	EXPECT_EQ(0x11111111u, host[1]);
	EXPECT_RT(cudaSuccess, cudaGraphExecDestroy(x));
	EXPECT_RT(cudaSuccess, cudaGraphDestroy(g));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

/* The runtime's codes, and the last error they leave. */
TEST(capture_errors)
{
	enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
	enum cudaStreamCaptureStatus st;
	cudaStream_t s;
	cudaGraph_t g;
	void *d;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, LEN));
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	EXPECT_RT(cudaErrorStreamCaptureUnsupported,
		  cudaStreamBeginCapture(cudaStreamLegacy,
					 cudaStreamCaptureModeGlobal));
	EXPECT_RT(cudaErrorStreamCaptureUnsupported, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaGetLastError());
	EXPECT_RT(cudaErrorIllegalState, cudaStreamEndCapture(s, &g));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)7));
	ASSERT_RT(cudaSuccess, cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	/* the legacy stream while a blocking stream captures */
	EXPECT_RT(cudaErrorStreamCaptureImplicit,
		  cudaStreamIsCapturing(cudaStreamLegacy, &st));
	EXPECT_RT(cudaErrorStreamCaptureUnsupported, cudaStreamSynchronize(s));
	EXPECT_RT(cudaErrorStreamCaptureInvalidated,
		  cudaMemsetAsync(d, 1, 16, s));
	EXPECT_RT(cudaErrorStreamCaptureInvalidated, cudaStreamEndCapture(s, &g));
	EXPECT_EQ(NULL, g);
	/* a potentially unsafe call in a GLOBAL capture */
	ASSERT_RT(cudaSuccess, cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	EXPECT_RT(cudaErrorStreamCaptureUnsupported, cudaMalloc(&d, LEN));
	EXPECT_RT(cudaErrorStreamCaptureInvalidated, cudaStreamEndCapture(s, &g));
	ASSERT_RT(cudaSuccess, cudaThreadExchangeStreamCaptureMode(&m));
	EXPECT_EQ(cudaStreamCaptureModeGlobal, m);
	ASSERT_RT(cudaSuccess, cudaThreadExchangeStreamCaptureMode(&m));
	EXPECT_EQ(cudaStreamCaptureModeRelaxed, m);
	EXPECT_RT(cudaErrorInvalidValue, cudaThreadExchangeStreamCaptureMode(NULL));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

/* Fork into a second stream with an event, join back with another. */
TEST(two_streams)
{
	cudaEvent_t fork, join;
	unsigned char b[32];
	cudaStream_t s1, s2;
	cudaGraphExec_t x;
	cudaGraph_t g;
	size_t n = 0;
	void *d;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, LEN));
	ASSERT_RT(cudaSuccess, cudaMemset(d, 0, LEN));
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s1));
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s2));
	ASSERT_RT(cudaSuccess, cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	ASSERT_RT(cudaSuccess, cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
	ASSERT_RT(cudaSuccess, cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
	ASSERT_RT(cudaSuccess, cudaMemsetAsync(d, 1, 8, s1));
	ASSERT_RT(cudaSuccess, cudaEventRecord(fork, s1));
	ASSERT_RT(cudaSuccess, cudaStreamWaitEvent(s2, fork, 0));
	ASSERT_RT(cudaSuccess, cudaMemcpyAsync((char *)d + 8, d, 8,
					       cudaMemcpyDefault, s2));
	ASSERT_RT(cudaSuccess, cudaMemsetAsync((char *)d + 16, 2, 8, s1));
	ASSERT_RT(cudaSuccess, cudaEventRecord(join, s2));
	ASSERT_RT(cudaSuccess, cudaStreamWaitEvent(s1, join, 0));
	ASSERT_RT(cudaSuccess, cudaStreamEndCapture(s1, &g));
	ASSERT_RT(cudaSuccess, cudaGraphGetNodes(g, NULL, &n));
	EXPECT_EQ(3, n);
	ASSERT_RT(cudaSuccess, cudaGraphInstantiateWithFlags(&x, g, 0));
	ASSERT_RT(cudaSuccess, cudaGraphLaunch(x, s1));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s1));
	ASSERT_RT(cudaSuccess, cudaMemcpy(b, d, 32, cudaMemcpyDeviceToHost));
	EXPECT_EQ(1, b[0]);
	EXPECT_EQ(1, b[15]);
	EXPECT_EQ(2, b[16]);
	EXPECT_EQ(0, b[24]);
	EXPECT_RT(cudaSuccess, cudaGraphExecDestroy(x));
	EXPECT_RT(cudaSuccess, cudaGraphDestroy(g));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(fork));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(join));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s1));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s2));
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

/*
 * An explicit graph of every node kind: memset, a 3D memcpy of two rows,
 * a 1D memcpy to the host, a host node, an event record and wait, an
 * empty node, a child graph; then updated with another memset value.
 */
TEST(explicit_graph)
{
	struct cudaHostNodeParams hp = { .fn = count_fn };
	struct cudaMemsetParams sp = {
		.value = 7, .elementSize = 4, .width = 64, .height = 1,
	};
	struct cudaMemcpy3DParms cp = { 0 };
	cudaGraphExecUpdateResultInfo info;
	enum cudaGraphNodeType t;
	cudaGraphNode_t n[9], m[9];
	unsigned int host[64];
	cudaGraph_t g, g2, child;
	cudaGraphExec_t x;
	cudaStream_t s;
	cudaEvent_t e;
	int count = 0;
	char *d;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc((void **)&d, 4 * LEN));
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_RT(cudaSuccess, cudaEventCreate(&e));
	hp.userData = &count;
	sp.dst = d;
	/* two rows of 128 bytes, 128 apart in the source, 256 in the copy */
	cp.srcPtr = (struct cudaPitchedPtr){ d, 128, 128, 2 };
	cp.dstPtr = (struct cudaPitchedPtr){ d + LEN, 256, 128, 2 };
	cp.extent = (struct cudaExtent){ 128, 2, 1 };
	cp.kind = cudaMemcpyDeviceToDevice;
	ASSERT_RT(cudaSuccess, cudaGraphCreate(&child, 0));
	ASSERT_RT(cudaSuccess, cudaGraphAddHostNode(&m[0], child, NULL, 0, &hp));
	ASSERT_RT(cudaSuccess, cudaGraphCreate(&g, 0));
	ASSERT_RT(cudaSuccess, cudaGraphAddMemsetNode(&n[0], g, NULL, 0, &sp));
	ASSERT_RT(cudaSuccess, cudaGraphAddMemcpyNode(&n[1], g, &n[0], 1, &cp));
	ASSERT_RT(cudaSuccess, cudaGraphAddMemcpyNode1D(&n[2], g, &n[1], 1, host,
							d + LEN + 256, 256,
							cudaMemcpyDeviceToHost));
	ASSERT_RT(cudaSuccess, cudaGraphAddHostNode(&n[3], g, &n[2], 1, &hp));
	ASSERT_RT(cudaSuccess, cudaGraphAddEventRecordNode(&n[4], g, &n[3], 1, e));
	ASSERT_RT(cudaSuccess, cudaGraphAddEventWaitNode(&n[5], g, &n[4], 1, e));
	ASSERT_RT(cudaSuccess, cudaGraphAddEmptyNode(&n[6], g, &n[5], 1));
	ASSERT_RT(cudaSuccess, cudaGraphAddChildGraphNode(&n[7], g, &n[6], 1, child));
	ASSERT_RT(cudaSuccess, cudaGraphNodeGetType(n[1], &t));
	EXPECT_EQ(cudaGraphNodeTypeMemcpy, t);
	ASSERT_RT(cudaSuccess, cudaGraphNodeGetType(n[7], &t));
	EXPECT_EQ(cudaGraphNodeTypeGraph, t);
	ASSERT_RT(cudaSuccess, cudaGraphInstantiate(&x, g, 0));
	ASSERT_RT(cudaSuccess, cudaGraphLaunch(x, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_EQ(2, count);
	EXPECT_EQ(7, host[0]);
	EXPECT_EQ(7, host[31]);
	EXPECT_RT(cudaSuccess, cudaEventQuery(e));

	/* the same graph with 9 in place of 7: updated in place */
	sp.value = 9;
	ASSERT_RT(cudaSuccess, cudaGraphCreate(&g2, 0));
	ASSERT_RT(cudaSuccess, cudaGraphAddMemsetNode(&m[0], g2, NULL, 0, &sp));
	ASSERT_RT(cudaSuccess, cudaGraphAddMemcpyNode(&m[1], g2, &m[0], 1, &cp));
	ASSERT_RT(cudaSuccess, cudaGraphAddMemcpyNode1D(&m[2], g2, &m[1], 1, host,
							d + LEN + 256, 256,
							cudaMemcpyDeviceToHost));
	ASSERT_RT(cudaSuccess, cudaGraphAddHostNode(&m[3], g2, &m[2], 1, &hp));
	ASSERT_RT(cudaSuccess, cudaGraphAddEventRecordNode(&m[4], g2, &m[3], 1, e));
	ASSERT_RT(cudaSuccess, cudaGraphAddEventWaitNode(&m[5], g2, &m[4], 1, e));
	ASSERT_RT(cudaSuccess, cudaGraphAddEmptyNode(&m[6], g2, &m[5], 1));
	EXPECT_RT(cudaErrorGraphExecUpdateFailure, cudaGraphExecUpdate(x, g2, &info));
	EXPECT_EQ(cudaGraphExecUpdateErrorTopologyChanged, info.result);
	ASSERT_RT(cudaSuccess, cudaGraphAddChildGraphNode(&m[7], g2, &m[6], 1, child));
	ASSERT_RT(cudaSuccess, cudaGraphExecUpdate(x, g2, &info));
	EXPECT_EQ(cudaGraphExecUpdateSuccess, info.result);
	ASSERT_RT(cudaSuccess, cudaGraphLaunch(x, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_EQ(9, host[0]);
	EXPECT_EQ(4, count);

	/* errors: kinds, arrays, kernels, bad handles */
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaGraphAddMemcpyNode1D(&m[8], g2, NULL, 0, host, d, 8,
					   (enum cudaMemcpyKind)9));
	EXPECT_RT(cudaErrorInvalidValue, cudaGraphAddMemcpyNode(&m[8], g2, NULL, 0, NULL));
	EXPECT_RT(cudaErrorInvalidValue, cudaGraphAddMemsetNode(&m[8], g2, NULL, 0, NULL));
	{
		struct cudaKernelNodeParams kp = { .func = (void *)count_fn };

		EXPECT_RT(cudaErrorInvalidValue,
			  cudaGraphAddKernelNode(&m[8], g2, NULL, 0, &kp));
	}
	EXPECT_RT(cudaErrorInvalidValue, cudaGraphInstantiate(&x, NULL, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaGraphCreate(&g, 3));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaGraphExecDestroy(x));
	EXPECT_RT(cudaErrorInvalidValue, cudaGraphExecDestroy(x));
	EXPECT_RT(cudaSuccess, cudaGraphDestroy(g));
	EXPECT_RT(cudaSuccess, cudaGraphDestroy(g2));
	EXPECT_RT(cudaSuccess, cudaGraphDestroy(child));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(e));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

TEST_HARNESS_MAIN
