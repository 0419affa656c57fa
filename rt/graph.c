// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Stream capture and graphs whose nodes need no device code, over the
 * driver's (lib/capture.c, lib/graph.c): the runtime's types are the
 * driver's (cudaGraph_t is CUgraph, cudaStreamCaptureMode and
 * cudaGraphNodeType have the driver's values, cudaHostNodeParams and
 * cudaGraphExecUpdateResultInfo its layouts), so most calls pass through.
 * The runtime's own forms are converted: a memset node runs in the
 * current context, a memcpy node's cudaMemcpy3DParms and kind become a
 * CUDA_MEMCPY3D. Compiled twice (internal.h): the capture calls and
 * cudaGraphLaunch have _ptsz entry points.
 */
#include "internal.h"

RT_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
					     enum cudaStreamCaptureMode mode)
{
	return RT_CALL(cuStreamBeginCapture(stream, (CUstreamCaptureMode)mode));
}

RT_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream,
					   cudaGraph_t *pGraph)
{
	return RT_CALL(cuStreamEndCapture(stream, pGraph));
}

RT_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
					    enum cudaStreamCaptureStatus *pCaptureStatus)
{
	return RT_CALL(cuStreamIsCapturing(stream,
					   (CUstreamCaptureStatus *)pCaptureStatus));
}

RT_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
					       enum cudaStreamCaptureStatus *captureStatus_out,
					       unsigned long long *id_out,
					       cudaGraph_t *graph_out,
					       const cudaGraphNode_t **dependencies_out,
					       const cudaGraphEdgeData **edgeData_out,
					       size_t *numDependencies_out)
{
	/* cudaGraphEdgeData is CUgraphEdgeData, member for member */
	void *edges = edgeData_out;

	return RT_CALL(cuStreamGetCaptureInfo(stream,
					      (CUstreamCaptureStatus *)captureStatus_out,
					      (cuuint64_t *)id_out, graph_out,
					      dependencies_out, edges,
					      numDependencies_out));
}

RT_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec,
				      cudaStream_t stream)
{
	return RT_CALL(cuGraphLaunch(graphExec, stream));
}

#ifdef RT_ONCE
RT_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	return RT_CALL(cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
}

RT_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
	return RT_CALL(cuGraphCreate(pGraph, flags));
}

RT_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	return RT_CALL(cuGraphDestroy(graph));
}

RT_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode,
					    cudaGraph_t graph,
					    const cudaGraphNode_t *pDependencies,
					    size_t numDependencies)
{
	return RT_CALL(cuGraphAddEmptyNode(pGraphNode, graph, pDependencies,
					   numDependencies));
}

RT_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode,
					     cudaGraph_t graph,
					     const cudaGraphNode_t *pDependencies,
					     size_t numDependencies,
					     const struct cudaMemsetParams *p)
{
	CUDA_MEMSET_NODE_PARAMS d;

	if (!p)
		return RT_CALL(CUDA_ERROR_INVALID_VALUE);
	d.dst = rt_dptr(p->dst);
	d.pitch = p->pitch;
	d.value = p->value;
	d.elementSize = p->elementSize;
	d.width = p->width;
	d.height = p->height;
	return RT_CALL(cuGraphAddMemsetNode(pGraphNode, graph, pDependencies,
					    numDependencies, &d, NULL));
}

/* The memory types of a copy @kind, or -1 for no kind. */
static int copy_types(enum cudaMemcpyKind kind, CUmemorytype *src,
		      CUmemorytype *dst)
{
	static const CUmemorytype t[5][2] = {
		[cudaMemcpyHostToHost] = { CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST },
		[cudaMemcpyHostToDevice] = { CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE },
		[cudaMemcpyDeviceToHost] = { CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST },
		[cudaMemcpyDeviceToDevice] = { CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE },
		/* the pointers say where they point */
		[cudaMemcpyDefault] = { CU_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED },
	};

	if ((unsigned int)kind > cudaMemcpyDefault)
		return -1;
	*src = t[kind][0];
	*dst = t[kind][1];
	return 0;
}

RT_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode,
					     cudaGraph_t graph,
					     const cudaGraphNode_t *pDependencies,
					     size_t numDependencies,
					     const struct cudaMemcpy3DParms *p)
{
	CUDA_MEMCPY3D d = { 0 };

	/* arrays need device code to lay out: cufab has none */
	if (!p || p->srcArray || p->dstArray ||
	    copy_types(p->kind, &d.srcMemoryType, &d.dstMemoryType))
		return RT_CALL(CUDA_ERROR_INVALID_VALUE);
	d.srcXInBytes = p->srcPos.x;
	d.srcY = p->srcPos.y;
	d.srcZ = p->srcPos.z;
	d.srcHost = p->srcPtr.ptr;
	d.srcDevice = rt_dptr(p->srcPtr.ptr);
	d.srcPitch = p->srcPtr.pitch;
	d.srcHeight = p->srcPtr.ysize;
	d.dstXInBytes = p->dstPos.x;
	d.dstY = p->dstPos.y;
	d.dstZ = p->dstPos.z;
	d.dstHost = p->dstPtr.ptr;
	d.dstDevice = rt_dptr(p->dstPtr.ptr);
	d.dstPitch = p->dstPtr.pitch;
	d.dstHeight = p->dstPtr.ysize;
	d.WidthInBytes = p->extent.width;
	d.Height = p->extent.height;
	d.Depth = p->extent.depth;
	return RT_CALL(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies,
					    numDependencies, &d, NULL));
}

RT_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode,
					       cudaGraph_t graph,
					       const cudaGraphNode_t *pDependencies,
					       size_t numDependencies,
					       void *dst, const void *src,
					       size_t count,
					       enum cudaMemcpyKind kind)
{
	CUDA_MEMCPY3D d = {
		.srcHost = src, .srcDevice = rt_dptr(src),
		.dstHost = dst, .dstDevice = rt_dptr(dst),
		.WidthInBytes = count, .Height = 1, .Depth = 1,
	};

	if (copy_types(kind, &d.srcMemoryType, &d.dstMemoryType))
		return RT_CALL(CUDA_ERROR_INVALID_VALUE);
	return RT_CALL(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies,
					    numDependencies, &d, NULL));
}

RT_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode,
					   cudaGraph_t graph,
					   const cudaGraphNode_t *pDependencies,
					   size_t numDependencies,
					   const struct cudaHostNodeParams *pNodeParams)
{
	return RT_CALL(cuGraphAddHostNode(pGraphNode, graph, pDependencies,
					  numDependencies,
					  (const CUDA_HOST_NODE_PARAMS *)pNodeParams));
}

RT_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode,
						 cudaGraph_t graph,
						 const cudaGraphNode_t *pDependencies,
						 size_t numDependencies,
						 cudaGraph_t childGraph)
{
	return RT_CALL(cuGraphAddChildGraphNode(pGraphNode, graph,
						pDependencies, numDependencies,
						childGraph));
}

RT_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode,
						  cudaGraph_t graph,
						  const cudaGraphNode_t *pDependencies,
						  size_t numDependencies,
						  cudaEvent_t event)
{
	return RT_CALL(cuGraphAddEventRecordNode(pGraphNode, graph,
						 pDependencies,
						 numDependencies, event));
}

RT_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode,
						cudaGraph_t graph,
						const cudaGraphNode_t *pDependencies,
						size_t numDependencies,
						cudaEvent_t event)
{
	return RT_CALL(cuGraphAddEventWaitNode(pGraphNode, graph,
					       pDependencies, numDependencies,
					       event));
}

/* cufab runs no device code: the driver refuses every kernel node. */
RT_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode,
					     cudaGraph_t graph,
					     const cudaGraphNode_t *pDependencies,
					     size_t numDependencies,
					     const struct cudaKernelNodeParams *pNodeParams)
{
	CUDA_KERNEL_NODE_PARAMS d = { 0 };

	if (pNodeParams) {
		rt_log("%s: kernel %p refused: cufab runs no device code",
		       __func__, pNodeParams->func);
		d.func = (CUfunction)pNodeParams->func;
	}
	return RT_CALL(cuGraphAddKernelNode(pGraphNode, graph, pDependencies,
					    numDependencies,
					    pNodeParams ? &d : NULL));
}

RT_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
					   enum cudaGraphNodeType *pType)
{
	return RT_CALL(cuGraphNodeGetType(node, (CUgraphNodeType *)pType));
}

RT_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph,
					cudaGraphNode_t *nodes,
					size_t *numNodes)
{
	return RT_CALL(cuGraphGetNodes(graph, nodes, numNodes));
}

RT_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
					   cudaGraph_t graph,
					   unsigned long long flags)
{
	return RT_CALL(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

RT_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
						    cudaGraph_t graph,
						    unsigned long long flags)
{
	return RT_CALL(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

RT_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	return RT_CALL(cuGraphExecDestroy(graphExec));
}

RT_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec,
					  cudaGraph_t hGraph,
					  cudaGraphExecUpdateResultInfo *resultInfo)
{
	return RT_CALL(cuGraphExecUpdate(hGraphExec, hGraph,
					 (CUgraphExecUpdateResultInfo *)resultInfo));
}
#endif
