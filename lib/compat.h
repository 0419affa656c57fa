/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Entry points of older ABIs, kept for binaries built against older CUDA
 * headers and for cuGetProcAddress with an older cudaVersion. cuda.h maps
 * their plain names to the current _vN symbols; this header undoes that
 * for the files that define or list them. NVIDIA's header declares them
 * only for its own internal build, so they are not in cufab/cuda.h.
 */
#ifndef CUFAB_LIB_COMPAT_H
#define CUFAB_LIB_COMPAT_H

#include "internal.h"

#undef cuDeviceGetUuid
#undef cuIpcOpenMemHandle
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuGetProcAddress
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
#undef cuMemAdvise
#undef cuMemPrefetchAsync
#undef cuStreamGetCaptureInfo
#undef cuMemHostRegister
#undef cuStreamBeginCapture
#undef cuGraphExecUpdate
#undef cuGraphInstantiate
#undef cuGraphAddKernelNode

/* CUDA 9.2: the same UUID as _v2 (they differ only for MIG instances). */
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
/* CUDA 7.0 primary context calls. */
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
/* CUDA 3.2 and 11.4 context creation. */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
				int numParams, unsigned int flags, CUdevice dev);
/* CUDA 11.3: without the symbol status. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				  cuuint64_t flags);
/* CUDA 4.1: the same call as _v2, which only renamed it. */
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
				    unsigned int Flags);
/* CUDA 4.0: the same call as _v2 (6.5), which only renamed it. */
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
/* CUDA 2.0 stream and event calls, before their _v2. */
CUresult CUDAAPI cuStreamDestroy(CUstream hStream);
CUresult CUDAAPI cuEventDestroy(CUevent hEvent);
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
				    CUevent hEnd);

/*
 * Per-thread default stream variants (CUDA 7.0): what cuda.h maps the
 * plain names to in a CUDA_API_PER_THREAD_DEFAULT_STREAM build, which
 * this library is not; their NULL stream is the calling thread's.
 */
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream);
CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count,
					    CUmemLocation location,
					    unsigned int flags,
					    CUstream hStream);
CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr,
					     cuuint32_t value,
					     unsigned int flags);
CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream stream, CUdeviceptr addr,
					     cuuint64_t value,
					     unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue32_v2_ptsz(CUstream stream,
					      CUdeviceptr addr,
					      cuuint32_t value,
					      unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue64_v2_ptsz(CUstream stream,
					      CUdeviceptr addr,
					      cuuint64_t value,
					      unsigned int flags);
CUresult CUDAAPI cuStreamBatchMemOp_v2_ptsz(CUstream stream,
					    unsigned int count,
					    CUstreamBatchMemOpParams *paramArray,
					    unsigned int flags);
/* CUDA 10.0: capture without a mode; 10.2: update with two outputs. */
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream);
CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream);
CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream,
					      CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph);
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph,
				   CUgraphNode *hErrorNode_out,
				   CUgraphExecUpdateResult *updateResult_out);
CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
				      CUgraphExecUpdateResultInfo *resultInfo);
CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec,
					     CUgraph hGraph,
					     unsigned long long flags);
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
				       CUgraphNode *phErrorNode, char *logBuffer,
				       size_t bufferSize);
CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
					 const CUgraphNode *dependencies,
					 size_t numDependencies,
					 const CUDA_KERNEL_NODE_PARAMS *nodeParams);
/* CUDA 10.0, 10.1 and 11.3 capture queries, before the 12.3 one. */
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream,
					  CUstreamCaptureStatus *captureStatus);
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream,
					CUstreamCaptureStatus *captureStatus_out,
					cuuint64_t *id_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
					     CUstreamCaptureStatus *captureStatus_out,
					     cuuint64_t *id_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
					   CUstreamCaptureStatus *captureStatus_out,
					   cuuint64_t *id_out, CUgraph *graph_out,
					   const CUgraphNode **dependencies_out,
					   size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
						CUstreamCaptureStatus *captureStatus_out,
						cuuint64_t *id_out,
						CUgraph *graph_out,
						const CUgraphNode **dependencies_out,
						size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
						CUstreamCaptureStatus *captureStatus_out,
						cuuint64_t *id_out,
						CUgraph *graph_out,
						const CUgraphNode **dependencies_out,
						const CUgraphEdgeData **edgeData_out,
						size_t *numDependencies_out);
CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream hStream,
					     CUdeviceptr dptr, size_t length,
					     unsigned int flags);
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream);
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags);
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority);
CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream,
				    unsigned long long *streamId);
CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx);
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx,
					CUgreenCtx *pGreenCtx);
CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device);
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent,
					unsigned int Flags);
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream,
					  CUstreamCallback callback,
					  void *userData, unsigned int flags);
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn,
				       void *userData);
CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream,
					     unsigned int flags);
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src,
				    size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice,
					   const void *srcHost,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice,
					   CUdeviceptr srcDevice,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice,
					CUcontext dstContext,
					CUdeviceptr srcDevice,
					CUcontext srcContext,
					size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext,
				   CUdeviceptr srcDevice, CUcontext srcContext,
				   size_t ByteCount);
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc,
				      size_t N, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch,
					unsigned char uc, size_t Width,
					size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch,
					 unsigned short us, size_t Width,
					 size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch,
					 unsigned int ui, size_t Width,
					 size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
				      CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr,
					      size_t bytesize,
					      CUmemoryPool pool,
					      CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dstDevice,
				       unsigned short us, size_t N,
				       CUstream hStream);
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui,
				       size_t N, CUstream hStream);
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src,
			       size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost,
				      size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice,
				      size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice,
				      CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc,
				    size_t N);
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us,
				     size_t N);
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui,
				     size_t N);
/* CUDA 8.0 managed memory calls naming a CUdevice (CU_DEVICE_CPU: host). */
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count,
			     CUmem_advise advice, CUdevice device);
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count,
				    CUdevice dstDevice, CUstream hStream);

#endif /* CUFAB_LIB_COMPAT_H */
