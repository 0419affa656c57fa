// SPDX-License-Identifier: GPL-2.0
/*
 * Explicit graphs through libcufab: cuGraphCreate, memset, memcpy, host,
 * event record and wait, empty and child-graph nodes, dependencies,
 * cuGraphInstantiate(WithFlags), cuGraphLaunch (one STREAM_BATCH ioctl per
 * launch, whatever the number of nodes), cuGraphExecUpdate,
 * cuGraphGetNodes, cuGraphNodeGetType, the destroys, every documented
 * error code, the order through the engine, many launches, launches on
 * two streams, and a process killed with a launched graph pending.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cufab.h>
#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"
#include "stream_helpers.h"

#define LEN	4096
#define GARBAGE	((void *)0xdeadbeef0000ULL)

/*
 * Stream submissions the library makes, counted here: libcufab calls
 * ioctl() through its PLT, so this definition sees every call.
 */
static int n_submit, n_batch;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == CUFAB_IOCTL_STREAM_SUBMIT)
		__atomic_add_fetch(&n_submit, 1, __ATOMIC_RELAXED);
	if (req == CUFAB_IOCTL_STREAM_BATCH)
		__atomic_add_fetch(&n_batch, 1, __ATOMIC_RELAXED);
	return syscall(SYS_ioctl, fd, req, arg);
}

static CUDA_MEMSET_NODE_PARAMS set_params(CUdeviceptr d, unsigned int v,
					  unsigned int elem, size_t width)
{
	CUDA_MEMSET_NODE_PARAMS p = {
		.dst = d, .value = v, .elementSize = elem, .width = width,
		.height = 1,
	};

	return p;
}

static CUDA_MEMCPY3D copy_params(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	CUDA_MEMCPY3D p = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = src,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = dst,
		.WidthInBytes = n, .Height = 1, .Depth = 1,
	};

	return p;
}

static void CUDA_CB count_fn(void *p)
{
	__atomic_add_fetch((int *)p, 1, __ATOMIC_RELAXED);
}

TEST(not_initialized)
{
	CUgraph g;
	CUgraphNode n;
	CUgraphExec x;
	CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_GLOBAL;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuGraphCreate(&g, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuGraphAddEmptyNode(&n, NULL, NULL, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuGraphInstantiate(&x, NULL, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuGraphLaunch(NULL, NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuGraphDestroy(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuGraphExecDestroy(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuThreadExchangeStreamCaptureMode(&m));
}

TEST(create_destroy_errors)
{
	CUgraph g;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphCreate(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphCreate(&g, 1));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphDestroy(g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphDestroy(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphDestroy(GARBAGE));
}

/* The arguments every cuGraphAdd*Node checks, and each node's own. */
TEST(node_errors)
{
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn };
	CUDA_KERNEL_NODE_PARAMS kp = { 0 };
	CUDA_MEMSET_NODE_PARAMS sp;
	CUDA_MEMCPY3D cp;
	CUgraphNode a, b, other, deps[2];
	CUgraph g, g2;
	CUcontext ctx, dead;
	CUdeviceptr d;
	CUevent e, gone;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&gone, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventDestroy(gone));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g2, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&a, g, NULL, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&other, g2, NULL, 0));

	/* common: out pointer, graph, dependencies */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(NULL, g, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(&b, NULL, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(&b, GARBAGE, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(&b, g, NULL, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(&b, g, &other, 1));
	deps[0] = a;
	deps[1] = a;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(&b, g, deps, 2));
	deps[1] = GARBAGE;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphAddEmptyNode(&b, g, deps, 2));

	/* memset: element size, width, height, pitch, value, alignment */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, NULL, ctx));
	sp = set_params(d, 1, 3, 16);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, &sp, ctx));
	sp = set_params(d, 1, 4, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, &sp, ctx));
	sp = set_params(d, 0x100, 1, 16);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, &sp, ctx));
	sp = set_params(d + 1, 1, 4, 16);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, &sp, ctx));
	sp = set_params(d, 1, 4, 16);
	sp.height = 2;
	sp.pitch = 32;		/* narrower than a row of 64 bytes */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, &sp, ctx));
	/* a destroyed context */
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&dead, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(dead));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(ctx));
	sp = set_params(d, 1, 4, 16);
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuGraphAddMemsetNode(&b, g, NULL, 0, &sp, dead));

	/* memcpy: arrays, unknown memory types, empty boxes, pitches */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemcpyNode(&b, g, NULL, 0, NULL, ctx));
	cp = copy_params(d, d + 2048, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemcpyNode(&b, g, NULL, 0, &cp, ctx));
	cp = copy_params(d, d + 2048, 16);
	cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemcpyNode(&b, g, NULL, 0, &cp, ctx));
	cp = copy_params(d, d + 2048, 16);
	cp.dstMemoryType = 0;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemcpyNode(&b, g, NULL, 0, &cp, ctx));
	cp = copy_params(d, d + 2048, 16);
	cp.Height = 2;
	cp.srcPitch = 8;
	cp.dstPitch = 16;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemcpyNode(&b, g, NULL, 0, &cp, ctx));
	cp = copy_params(d, d + 2048, 16);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddMemcpyNode(&b, g, NULL, 0, &cp, dead));

	/* host, events, child graphs, kernels */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddHostNode(&b, g, NULL, 0, NULL));
	hp.fn = NULL;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddHostNode(&b, g, NULL, 0, &hp));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddEventRecordNode(&b, g, NULL, 0, gone));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddEventWaitNode(&b, g, NULL, 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddChildGraphNode(&b, g, NULL, 0, g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddChildGraphNode(&b, g, NULL, 0, GARBAGE));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddKernelNode(&b, g, NULL, 0, &kp));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphAddKernelNode(&b, g, NULL, 0, NULL));

	/* nothing of the refused calls was added */
	{
		size_t n = 0;

		EXPECT_CU(CUDA_SUCCESS, cuGraphGetNodes(g, NULL, &n));
		EXPECT_EQ(1, n);
	}
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g2));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(get_nodes_and_types)
{
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn };
	CUDA_MEMSET_NODE_PARAMS sp;
	CUDA_MEMCPY3D cp;
	CUgraphNode n[8], got[10];
	CUgraphNodeType t;
	CUgraph g, child;
	CUcontext ctx;
	CUdeviceptr d;
	CUevent e;
	size_t num, i;
	int count = 0;
	static const CUgraphNodeType want[7] = {
		CU_GRAPH_NODE_TYPE_EMPTY, CU_GRAPH_NODE_TYPE_MEMSET,
		CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_HOST,
		CU_GRAPH_NODE_TYPE_EVENT_RECORD, CU_GRAPH_NODE_TYPE_WAIT_EVENT,
		CU_GRAPH_NODE_TYPE_GRAPH,
	};

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&child, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&n[7], child, NULL, 0));
	hp.userData = &count;
	sp = set_params(d, 7, 4, 16);
	cp = copy_params(d + 2048, d, 64);
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&n[0], g, NULL, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemsetNode(&n[1], g, &n[0], 1, &sp, ctx));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemcpyNode(&n[2], g, &n[1], 1, &cp, ctx));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&n[3], g, &n[2], 1, &hp));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEventRecordNode(&n[4], g, &n[3], 1, e));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEventWaitNode(&n[5], g, &n[4], 1, e));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddChildGraphNode(&n[6], g, &n[5], 1, child));
	for (i = 0; i < 7; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuGraphNodeGetType(n[i], &t));
		EXPECT_EQ(want[i], t);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphNodeGetType(n[0], NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphNodeGetType(GARBAGE, &t));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphNodeGetType(NULL, &t));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphGetNodes(g, got, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphGetNodes(GARBAGE, NULL, &num));
	ASSERT_CU(CUDA_SUCCESS, cuGraphGetNodes(g, NULL, &num));
	EXPECT_EQ(7, num);
	/* fewer places: the first ones */
	num = 3;
	ASSERT_CU(CUDA_SUCCESS, cuGraphGetNodes(g, got, &num));
	EXPECT_EQ(3, num);
	EXPECT_EQ(n[2], got[2]);
	/* more places: the rest NULL, the count the graph's */
	num = 10;
	memset(got, 0x5a, sizeof(got));
	ASSERT_CU(CUDA_SUCCESS, cuGraphGetNodes(g, got, &num));
	EXPECT_EQ(7, num);
	for (i = 0; i < 7; i++)
		EXPECT_EQ(n[i], got[i]);
	EXPECT_EQ(NULL, got[7]);
	EXPECT_EQ(NULL, got[9]);

	/* a destroyed graph's nodes are no nodes */
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphNodeGetType(n[1], &t));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(child));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(instantiate_launch_errors)
{
	CUgraphExec x, x2, x3;
	CUgraphNode n;
	CUcontext ctx;
	CUstream s;
	CUgraph g;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&n, g, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphInstantiate(NULL, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphInstantiate(&x, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphInstantiate(&x, GARBAGE, 0));
	/* no GPU launches graphs here; UPLOAD is for WithParams */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphInstantiate(&x, g,
				     CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGraphInstantiate(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphInstantiate(&x, g, 1ULL << 40));
	ASSERT_CU(CUDA_SUCCESS,
		  cuGraphInstantiate(&x, g,
				     CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x2, g, 0));
	/* the graph may go: the executable has its own */
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphLaunch(NULL, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphLaunch(GARBAGE, s));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuGraphLaunch(x, (CUstream)0xdeadbeef0000ULL));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphLaunch(x, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphExecDestroy(NULL));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x2));
	/* a new one takes a destroyed one's place: the old handles stay refused */
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x3, g, 0));
	EXPECT_NE(x2, x3);
	EXPECT_NE(x, x3);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphLaunch(x, s));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphLaunch(x2, s));
	EXPECT_CU(CUDA_SUCCESS, cuGraphLaunch(x3, s));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x3));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* Executable graphs alive at once in a process (Documentation/limits.rst). */
#define EXEC_LIMIT	65536

/*
 * The bound on executable graphs alive at once: the next instantiate is
 * CUDA_ERROR_OUT_OF_MEMORY, and one destroyed makes room for one more.
 */
TEST(executable_graph_limit)
{
	CUgraphExec *x = calloc(EXEC_LIMIT, sizeof(*x)), extra;
	CUcontext ctx;
	CUgraphNode n;
	int i, made;
	CUgraph g;

	ASSERT_NE(NULL, x);
	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&n, g, NULL, 0));
	for (made = 0; made < EXEC_LIMIT; made++)
		if (cuGraphInstantiate(&x[made], g, 0))
			break;
	EXPECT_EQ(EXEC_LIMIT, made);
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuGraphInstantiate(&extra, g, 0));
	if (made) {
		EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x[made - 1]));
		EXPECT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x[made - 1], g, 0));
	}
	for (i = 0; i < made; i++)
		EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x[i]));
	EXPECT_CU(CUDA_SUCCESS, cuGraphInstantiate(&extra, g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(extra));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	free(x);
}

/*
 * Ten memset and memcpy nodes in a chain: one launch is one STREAM_BATCH
 * ioctl and no STREAM_SUBMIT, and the engine runs them in order: each
 * copy moves what the node before it wrote.
 */
TEST(ten_nodes_one_ioctl_in_order)
{
	unsigned int host[LEN / 4];
	CUDA_MEMSET_NODE_PARAMS sp;
	CUDA_MEMCPY3D cp;
	CUgraphNode n[10];
	CUgraphExec x;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	CUgraph g;
	int i;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 8 * LEN));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	/* set block 0 to 1, copy 0->1, set 0 to 2, copy 1->2, ... */
	for (i = 0; i < 10; i++) {
		if (i % 2 == 0) {
			sp = set_params(d, i + 1, 4, LEN / 4);
			ASSERT_CU(CUDA_SUCCESS,
				  cuGraphAddMemsetNode(&n[i], g, i ? &n[i - 1] : NULL,
						       i ? 1 : 0, &sp, ctx));
		} else {
			/* block i/2+1 gets what block 0 had before */
			cp = copy_params(d + (i / 2 + 1) * LEN, d, LEN);
			ASSERT_CU(CUDA_SUCCESS,
				  cuGraphAddMemcpyNode(&n[i], g, &n[i - 1], 1,
						       &cp, ctx));
		}
	}
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));
	n_submit = n_batch = 0;
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	EXPECT_EQ(1, n_batch);
	EXPECT_EQ(0, n_submit);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	for (i = 1; i <= 5; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(host, d + i * LEN, LEN));
		EXPECT_EQ(2 * i - 1, host[0]);
		EXPECT_EQ(2 * i - 1, host[LEN / 4 - 1]);
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(host, d, LEN));
	EXPECT_EQ(9, host[7]);
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * A diamond (one set, two copies from it, a host node after both), then
 * a 2D set node, a host memcpy and an event record: launched 200 times;
 * the host node ran 200 times, after the copies each time.
 */
struct order_check {
	volatile unsigned int *host;
	int runs, bad;
};

static void CUDA_CB check_fn(void *p)
{
	struct order_check *o = p;

	o->bad += o->host[0] != 0x01010101u;
	o->host[0] = 0;
	o->runs++;
}

TEST(launched_many_times)
{
	static unsigned int host[LEN / 4];
	struct order_check oc = { .host = host };
	CUDA_HOST_NODE_PARAMS hp = { .fn = check_fn, .userData = &oc };
	CUDA_MEMSET_NODE_PARAMS sp;
	CUDA_MEMCPY3D cp;
	CUgraphNode root, c1, c2, h, set2d, rec, deps[2];
	CUgraphExec x;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	CUevent e;
	CUgraph g;
	int i;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4 * LEN));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	sp = set_params(d, 1, 1, LEN);
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemsetNode(&root, g, NULL, 0, &sp, ctx));
	cp = copy_params(d + LEN, d, LEN);
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemcpyNode(&c1, g, &root, 1, &cp, ctx));
	/* device to host: the host node checks it */
	cp = copy_params(0, d, LEN);
	cp.dstMemoryType = CU_MEMORYTYPE_HOST;
	cp.dstHost = host;
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemcpyNode(&c2, g, &root, 1, &cp, ctx));
	deps[0] = c1;
	deps[1] = c2;
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&h, g, deps, 2, &hp));
	/* two rows of 16 bytes, 256 apart */
	sp = set_params(d + 2 * LEN, 0xab, 1, 16);
	sp.height = 2;
	sp.pitch = 256;
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemsetNode(&set2d, g, &h, 1, &sp, ctx));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEventRecordNode(&rec, g, &set2d, 1, e));
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));
	for (i = 0; i < 200; i++)
		ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(e));
	EXPECT_CU(CUDA_SUCCESS, cuEventQuery(e));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(200, oc.runs);
	EXPECT_EQ(0, oc.bad);
	{
		unsigned char b[LEN];

		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(b, d + 2 * LEN, LEN));
		EXPECT_EQ(0xab, b[0]);
		EXPECT_EQ(0xab, b[15]);
		EXPECT_EQ(0, b[16]);
		EXPECT_EQ(0xab, b[256]);
		EXPECT_EQ(0xab, b[271]);
		EXPECT_EQ(0, b[272]);
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(b, d + LEN, 16));
		EXPECT_EQ(1, b[15]);
	}
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * A launch on a second stream waits for the launch on the first, held by
 * a host node (a gate): "each launch is ordered behind ... any previous
 * launches of hGraphExec". An event wait node holds a graph until the
 * event's record, made on another stream, is done.
 */
TEST(launches_on_two_streams_and_event_wait)
{
	static struct gate gate = GATE_INIT;
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn };
	CUgraphNode w, h;
	CUgraphExec x, xw;
	CUcontext ctx;
	CUstream s1, s2, s3;
	CUevent e;
	CUgraph g, gw;
	int count = 0;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	hp.userData = &count;
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&h, g, NULL, 0, &hp));
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));

	/* the first launch stays behind the gate on s1 */
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, gate_fn, &gate));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s1));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s2));
	gate_wait_entered(&gate);
	usleep(20000);
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s2));
	EXPECT_EQ(0, count);
	gate_open(&gate);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s2));
	EXPECT_EQ(2, count);

	/* an event wait node, the record behind a second gate on s3 */
	{
		static struct gate g2 = GATE_INIT;

		ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&gw, 0));
		ASSERT_CU(CUDA_SUCCESS, cuGraphAddEventWaitNode(&w, gw, NULL, 0, e));
		ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&h, gw, &w, 1, &hp));
		ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&xw, gw, 0));
		ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s3, gate_fn, &g2));
		ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s3));
		ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(xw, s1));
		gate_wait_entered(&g2);
		usleep(20000);
		EXPECT_EQ(2, count);
		EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s1));
		gate_open(&g2);
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s1));
		EXPECT_EQ(3, count);
	}
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(xw));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(gw));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s3));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* A child graph is copied when added: later changes stay out. */
TEST(child_graph_is_a_copy)
{
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn };
	CUgraphNode a, b;
	CUgraphExec x;
	CUcontext ctx;
	CUgraph g, child;
	CUstream s;
	int count = 0;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	hp.userData = &count;
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&child, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&a, child, NULL, 0, &hp));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddChildGraphNode(&b, g, NULL, 0, child));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&a, child, &a, 1, &hp));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddChildGraphNode(&a, g, &b, 1, child));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(child));
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	/* one host node from the first copy, two from the second */
	EXPECT_EQ(3, count);
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(exec_update)
{
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn };
	CUgraphExecUpdateResultInfo info;
	CUgraphExecUpdateResult r;
	CUDA_MEMSET_NODE_PARAMS sp;
	CUgraphNode n1, n2, m1, m2, err;
	CUgraph g, g2, g3, g4;
	unsigned int v;
	CUgraphExec x;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	int count = 0;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, 0));
	hp.userData = &count;
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g, 0));
	sp = set_params(d, 5, 4, 1);
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemsetNode(&n1, g, NULL, 0, &sp, ctx));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&n2, g, &n1, 1, &hp));
	ASSERT_CU(CUDA_SUCCESS, cuGraphInstantiate(&x, g, 0));

	/* the same shape, another value and address: updated */
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g2, 0));
	sp = set_params(d + 4, 9, 4, 1);
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemsetNode(&m1, g2, NULL, 0, &sp, ctx));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&m2, g2, &m1, 1, &hp));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphExecUpdate(x, g2, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphExecUpdate(NULL, g2, &info));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGraphExecUpdate(x, GARBAGE, &info));
	ASSERT_CU(CUDA_SUCCESS, cuGraphExecUpdate(x, g2, &info));
	EXPECT_EQ(CU_GRAPH_EXEC_UPDATE_SUCCESS, info.result);
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, d + 4, 4));
	EXPECT_EQ(9, v);
	EXPECT_EQ(1, count);

	/* another node count: topology */
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g3, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddMemsetNode(&m1, g3, NULL, 0, &sp, ctx));
	EXPECT_CU(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		  cuGraphExecUpdate(x, g3, &info));
	EXPECT_EQ(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, info.result);
	EXPECT_EQ(NULL, info.errorNode);
	/* the same count, an edge less: topology, the node named */
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&m2, g3, NULL, 0, &hp));
	EXPECT_CU(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		  cuGraphExecUpdate(x, g3, &info));
	EXPECT_EQ(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, info.result);
	EXPECT_EQ(m2, info.errorNode);
	/* a node of another type */
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&g4, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&m1, g4, NULL, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddHostNode(&m2, g4, &m1, 1, &hp));
	EXPECT_CU(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		  cuGraphExecUpdate(x, g4, &info));
	EXPECT_EQ(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, info.result);
	EXPECT_EQ(m1, info.errorNode);
	/* the CUDA 10.2 form */
	EXPECT_CU(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		  cuGraphExecUpdate_v2(x, g4, &info));
	{
		CUresult (*old)(CUgraphExec, CUgraph, CUgraphNode *,
				CUgraphExecUpdateResult *);
		CUdriverProcAddressQueryResult st;

		ASSERT_CU(CUDA_SUCCESS,
			  cuGetProcAddress("cuGraphExecUpdate", (void **)&old,
					   11000, 0, &st));
		EXPECT_CU(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
			  old(x, g4, &err, &r));
		EXPECT_EQ(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, r);
		EXPECT_EQ(m1, err);
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, old(x, g4, NULL, &r));
	}
	/* a failed update leaves the executable as it was */
	ASSERT_CU(CUDA_SUCCESS, cuGraphLaunch(x, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(2, count);
	EXPECT_CU(CUDA_SUCCESS, cuGraphExecDestroy(x));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g2));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g3));
	EXPECT_CU(CUDA_SUCCESS, cuGraphDestroy(g4));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* The entry points resolve by name and version. */
TEST(proc_address)
{
	CUdriverProcAddressQueryResult st;
	void *fn;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuGraphLaunch", &fn, 13000,
						 CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ((void *)cuGraphLaunch, fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuGraphLaunch", &fn, 13000,
				   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
				   &st));
	EXPECT_EQ(dlsym(RTLD_DEFAULT, "cuGraphLaunch_ptsz"), fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuStreamBeginCapture", &fn, 13000,
				   CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ(dlsym(RTLD_DEFAULT, "cuStreamBeginCapture_v2"), fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuGraphInstantiate", &fn, 13000,
				   CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ((void *)cuGraphInstantiateWithFlags, fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuGraphInstantiate", &fn, 11000,
				   CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ(dlsym(RTLD_DEFAULT, "cuGraphInstantiate_v2"), fn);
	ASSERT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuGraphAddKernelNode", &fn, 13000,
				   CU_GET_PROC_ADDRESS_DEFAULT, &st));
	EXPECT_EQ(dlsym(RTLD_DEFAULT, "cuGraphAddKernelNode_v2"), fn);
}

/*
 * kill -9 with a launched graph pending: a gate holds the stream, the
 * graph's copies and host nodes wait behind it. The client goes,
 * nothing leaks, the kernel is fine.
 */
/* kill_with_graph_pending's child: 16 launches behind a gated stream. */
static int launch_behind_gate(void)
{
	static struct gate gate = GATE_INIT;
	static int count;
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn, .userData = &count };
	CUDA_MEMSET_NODE_PARAMS sp;
	CUDA_MEMCPY3D cp;
	CUgraphNode n[3];
	CUgraphExec x;
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;
	CUgraph g;
	int i;

	if (cuInit(0) || !(ctx = ctx_on(0)) ||
	    cuMemAlloc(&d, 1 << 20) || cuStreamCreate(&s, 0) ||
	    cuGraphCreate(&g, 0))
		return -1;
	sp = set_params(d, 1, 1, 1 << 19);
	cp = copy_params(d + (1 << 19), d, 1 << 19);
	if (cuGraphAddMemsetNode(&n[0], g, NULL, 0, &sp, ctx) ||
	    cuGraphAddMemcpyNode(&n[1], g, &n[0], 1, &cp, ctx) ||
	    cuGraphAddHostNode(&n[2], g, &n[1], 1, &hp) ||
	    cuGraphInstantiate(&x, g, 0))
		return -1;
	cuLaunchHostFunc(s, gate_fn, &gate);
	for (i = 0; i < 16; i++)
		if (cuGraphLaunch(x, s))
			return -1;
	return 0;
}

TEST(kill_with_graph_pending)
{
	long long before = live_objects();

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	EXPECT_EQ(0x100 | SIGKILL, kill_when_ready(launch_behind_gate));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

TEST_HARNESS_MAIN
