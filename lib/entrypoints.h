/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Every entry point libcufab exports, the single registry of exported
 * names: cuGetProcAddress resolves through it (lib/procaddr.c) and
 * lib/libcufab.map must list exactly its symbols (selftests/abi checks).
 *
 * CUFAB_ENTRY(symbol, name, version): the exported symbol, the name
 * cuGetProcAddress knows it by, and the CUDA version that introduced that
 * symbol (the suffix of its PFN_<name>_v<version> typedef in NVIDIA's
 * cudaTypedefs.h). cuGetProcAddress(name, v) picks the entry of that name
 * with the highest version <= v.
 *
 * Include after compat.h, and with CUFAB_ENTRY defined. Keep the list
 * grouped as lib/ is; later API groups append their block.
 */

/* error.c */
CUFAB_ENTRY(cuGetErrorString, cuGetErrorString, 6000)
CUFAB_ENTRY(cuGetErrorName, cuGetErrorName, 6000)

/* init.c */
CUFAB_ENTRY(cuInit, cuInit, 2000)
CUFAB_ENTRY(cuDriverGetVersion, cuDriverGetVersion, 2020)

/* device.c, compat.c */
CUFAB_ENTRY(cuDeviceGet, cuDeviceGet, 2000)
CUFAB_ENTRY(cuDeviceGetCount, cuDeviceGetCount, 2000)
CUFAB_ENTRY(cuDeviceGetName, cuDeviceGetName, 2000)
CUFAB_ENTRY(cuDeviceGetUuid, cuDeviceGetUuid, 9020)
CUFAB_ENTRY(cuDeviceGetUuid_v2, cuDeviceGetUuid, 11040)
CUFAB_ENTRY(cuDeviceTotalMem_v2, cuDeviceTotalMem, 3020)
CUFAB_ENTRY(cuDeviceGetAttribute, cuDeviceGetAttribute, 2000)
CUFAB_ENTRY(cuDeviceGetByPCIBusId, cuDeviceGetByPCIBusId, 4010)
CUFAB_ENTRY(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId, 4010)
CUFAB_ENTRY(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer, 4000)
CUFAB_ENTRY(cuDeviceGetP2PAttribute, cuDeviceGetP2PAttribute, 8000)

/* primary.c, compat.c */
CUFAB_ENTRY(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000)
CUFAB_ENTRY(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 7000)
CUFAB_ENTRY(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease, 11000)
CUFAB_ENTRY(cuDevicePrimaryCtxSetFlags, cuDevicePrimaryCtxSetFlags, 7000)
CUFAB_ENTRY(cuDevicePrimaryCtxSetFlags_v2, cuDevicePrimaryCtxSetFlags, 11000)
CUFAB_ENTRY(cuDevicePrimaryCtxGetState, cuDevicePrimaryCtxGetState, 7000)
CUFAB_ENTRY(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset, 7000)
CUFAB_ENTRY(cuDevicePrimaryCtxReset_v2, cuDevicePrimaryCtxReset, 11000)

/* context.c, compat.c */
CUFAB_ENTRY(cuCtxCreate_v2, cuCtxCreate, 3020)
CUFAB_ENTRY(cuCtxCreate_v3, cuCtxCreate, 11040)
CUFAB_ENTRY(cuCtxCreate_v4, cuCtxCreate, 12050)
CUFAB_ENTRY(cuCtxDestroy_v2, cuCtxDestroy, 4000)
CUFAB_ENTRY(cuCtxPushCurrent_v2, cuCtxPushCurrent, 4000)
CUFAB_ENTRY(cuCtxPopCurrent_v2, cuCtxPopCurrent, 4000)
CUFAB_ENTRY(cuCtxSetCurrent, cuCtxSetCurrent, 4000)
CUFAB_ENTRY(cuCtxGetCurrent, cuCtxGetCurrent, 4000)
CUFAB_ENTRY(cuCtxGetDevice, cuCtxGetDevice, 2000)
CUFAB_ENTRY(cuCtxGetDevice_v2, cuCtxGetDevice, 13000)
CUFAB_ENTRY(cuCtxGetFlags, cuCtxGetFlags, 7000)
CUFAB_ENTRY(cuCtxGetId, cuCtxGetId, 12000)
CUFAB_ENTRY(cuCtxSynchronize, cuCtxSynchronize, 2000)
CUFAB_ENTRY(cuCtxSynchronize_v2, cuCtxSynchronize, 13000)
CUFAB_ENTRY(cuCtxGetApiVersion, cuCtxGetApiVersion, 3020)

/* linear_mem.c */
CUFAB_ENTRY(cuMemHostGetDevicePointer_v2, cuMemHostGetDevicePointer, 3020)

/* ipc_mem.c, compat.c */
CUFAB_ENTRY(cuIpcGetMemHandle, cuIpcGetMemHandle, 4010)
CUFAB_ENTRY(cuIpcOpenMemHandle, cuIpcOpenMemHandle, 4010)
CUFAB_ENTRY(cuIpcOpenMemHandle_v2, cuIpcOpenMemHandle, 11000)
CUFAB_ENTRY(cuIpcCloseMemHandle, cuIpcCloseMemHandle, 4010)

/* ctx_config.c */
CUFAB_ENTRY(cuCtxGetLimit, cuCtxGetLimit, 3010)
CUFAB_ENTRY(cuCtxSetLimit, cuCtxSetLimit, 3010)
CUFAB_ENTRY(cuCtxGetCacheConfig, cuCtxGetCacheConfig, 3020)
CUFAB_ENTRY(cuCtxSetCacheConfig, cuCtxSetCacheConfig, 3020)
CUFAB_ENTRY(cuCtxGetSharedMemConfig, cuCtxGetSharedMemConfig, 4020)
CUFAB_ENTRY(cuCtxSetSharedMemConfig, cuCtxSetSharedMemConfig, 4020)
CUFAB_ENTRY(cuCtxResetPersistingL2Cache, cuCtxResetPersistingL2Cache, 11000)

/* peer.c */
CUFAB_ENTRY(cuCtxEnablePeerAccess, cuCtxEnablePeerAccess, 4000)
CUFAB_ENTRY(cuCtxDisablePeerAccess, cuCtxDisablePeerAccess, 4000)

/* procaddr.c, compat.c */
CUFAB_ENTRY(cuGetProcAddress, cuGetProcAddress, 11030)
CUFAB_ENTRY(cuGetProcAddress_v2, cuGetProcAddress, 12000)

/* vmm.c */
CUFAB_ENTRY(cuMemCreate, cuMemCreate, 10020)
CUFAB_ENTRY(cuMemRelease, cuMemRelease, 10020)
CUFAB_ENTRY(cuMemGetAllocationGranularity, cuMemGetAllocationGranularity, 10020)
CUFAB_ENTRY(cuMemRetainAllocationHandle, cuMemRetainAllocationHandle, 11000)
CUFAB_ENTRY(cuMemGetAllocationPropertiesFromHandle, cuMemGetAllocationPropertiesFromHandle, 10020)
CUFAB_ENTRY(cuMemAddressReserve, cuMemAddressReserve, 10020)
CUFAB_ENTRY(cuMemAddressFree, cuMemAddressFree, 10020)
CUFAB_ENTRY(cuMemMap, cuMemMap, 10020)
CUFAB_ENTRY(cuMemUnmap, cuMemUnmap, 10020)
CUFAB_ENTRY(cuMemSetAccess, cuMemSetAccess, 10020)
CUFAB_ENTRY(cuMemGetAccess, cuMemGetAccess, 10020)
CUFAB_ENTRY(cuMemGetInfo_v2, cuMemGetInfo, 3020)

/* share.c */
CUFAB_ENTRY(cuMemExportToShareableHandle, cuMemExportToShareableHandle, 10020)
CUFAB_ENTRY(cuMemImportFromShareableHandle, cuMemImportFromShareableHandle, 10020)

/* dmabuf_range.c */
CUFAB_ENTRY(cuMemGetHandleForAddressRange, cuMemGetHandleForAddressRange, 11070)

/* linear_mem.c */
CUFAB_ENTRY(cuMemAlloc_v2, cuMemAlloc, 3020)
CUFAB_ENTRY(cuMemFree_v2, cuMemFree, 3020)
CUFAB_ENTRY(cuMemAllocHost_v2, cuMemAllocHost, 3020)
CUFAB_ENTRY(cuMemFreeHost, cuMemFreeHost, 2000)
CUFAB_ENTRY(cuMemcpy, cuMemcpy, 4000)
CUFAB_ENTRY(cuMemcpyHtoD_v2, cuMemcpyHtoD, 3020)
CUFAB_ENTRY(cuMemcpyDtoH_v2, cuMemcpyDtoH, 3020)
CUFAB_ENTRY(cuMemcpyDtoD_v2, cuMemcpyDtoD, 3020)
CUFAB_ENTRY(cuMemsetD8_v2, cuMemsetD8, 3020)
CUFAB_ENTRY(cuMemsetD16_v2, cuMemsetD16, 3020)
CUFAB_ENTRY(cuMemsetD32_v2, cuMemsetD32, 3020)
CUFAB_ENTRY(cuMemGetAddressRange_v2, cuMemGetAddressRange, 3020)

/* hostmem.c, compat.c */
CUFAB_ENTRY(cuMemHostAlloc, cuMemHostAlloc, 2020)
CUFAB_ENTRY(cuMemHostGetFlags, cuMemHostGetFlags, 2030)
CUFAB_ENTRY(cuMemHostRegister, cuMemHostRegister, 4000)
CUFAB_ENTRY(cuMemHostRegister_v2, cuMemHostRegister, 6050)
CUFAB_ENTRY(cuMemHostUnregister, cuMemHostUnregister, 4000)

/* managed.c */
CUFAB_ENTRY(cuMemAllocManaged, cuMemAllocManaged, 6000)
CUFAB_ENTRY(cuMemAdvise, cuMemAdvise, 8000)
CUFAB_ENTRY(cuMemAdvise_v2, cuMemAdvise, 12020)
CUFAB_ENTRY(cuMemPrefetchAsync, cuMemPrefetchAsync, 8000)
CUFAB_ENTRY(cuMemPrefetchAsync_v2, cuMemPrefetchAsync, 12020)
CUFAB_ENTRY(cuMemPrefetchAsync_v2_ptsz, cuMemPrefetchAsync_ptsz, 12020)
CUFAB_ENTRY(cuMemRangeGetAttribute, cuMemRangeGetAttribute, 8000)
CUFAB_ENTRY(cuMemRangeGetAttributes, cuMemRangeGetAttributes, 8000)
CUFAB_ENTRY(cuStreamAttachMemAsync, cuStreamAttachMemAsync, 6000)
CUFAB_ENTRY(cuStreamAttachMemAsync_ptsz, cuStreamAttachMemAsync_ptsz, 7000)

/* capture.c */
CUFAB_ENTRY(cuStreamIsCapturing, cuStreamIsCapturing, 10000)
CUFAB_ENTRY(cuStreamIsCapturing_ptsz, cuStreamIsCapturing_ptsz, 10000)
CUFAB_ENTRY(cuStreamGetCaptureInfo, cuStreamGetCaptureInfo, 10010)
CUFAB_ENTRY(cuStreamGetCaptureInfo_ptsz, cuStreamGetCaptureInfo_ptsz, 10010)
CUFAB_ENTRY(cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo, 11030)
CUFAB_ENTRY(cuStreamGetCaptureInfo_v2_ptsz, cuStreamGetCaptureInfo_ptsz, 11030)
CUFAB_ENTRY(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo, 12030)
CUFAB_ENTRY(cuStreamGetCaptureInfo_v3_ptsz, cuStreamGetCaptureInfo_ptsz, 12030)
CUFAB_ENTRY(cuStreamBeginCapture, cuStreamBeginCapture, 10000)
CUFAB_ENTRY(cuStreamBeginCapture_ptsz, cuStreamBeginCapture_ptsz, 10000)
CUFAB_ENTRY(cuStreamBeginCapture_v2, cuStreamBeginCapture, 10010)
CUFAB_ENTRY(cuStreamBeginCapture_v2_ptsz, cuStreamBeginCapture_ptsz, 10010)
CUFAB_ENTRY(cuThreadExchangeStreamCaptureMode, cuThreadExchangeStreamCaptureMode, 10010)
CUFAB_ENTRY(cuStreamEndCapture, cuStreamEndCapture, 10000)
CUFAB_ENTRY(cuStreamEndCapture_ptsz, cuStreamEndCapture_ptsz, 10000)

/* graph.c */
CUFAB_ENTRY(cuGraphCreate, cuGraphCreate, 10000)
CUFAB_ENTRY(cuGraphDestroy, cuGraphDestroy, 10000)
CUFAB_ENTRY(cuGraphAddEmptyNode, cuGraphAddEmptyNode, 10000)
CUFAB_ENTRY(cuGraphAddMemsetNode, cuGraphAddMemsetNode, 10000)
CUFAB_ENTRY(cuGraphAddMemcpyNode, cuGraphAddMemcpyNode, 10000)
CUFAB_ENTRY(cuGraphAddHostNode, cuGraphAddHostNode, 10000)
CUFAB_ENTRY(cuGraphAddChildGraphNode, cuGraphAddChildGraphNode, 10000)
CUFAB_ENTRY(cuGraphAddEventRecordNode, cuGraphAddEventRecordNode, 11010)
CUFAB_ENTRY(cuGraphAddEventWaitNode, cuGraphAddEventWaitNode, 11010)
CUFAB_ENTRY(cuGraphAddKernelNode_v2, cuGraphAddKernelNode, 12000)
CUFAB_ENTRY(cuGraphNodeGetType, cuGraphNodeGetType, 10000)
CUFAB_ENTRY(cuGraphGetNodes, cuGraphGetNodes, 10000)
CUFAB_ENTRY(cuGraphInstantiate_v2, cuGraphInstantiate, 11000)
CUFAB_ENTRY(cuGraphInstantiateWithFlags, cuGraphInstantiateWithFlags, 11040)
CUFAB_ENTRY(cuGraphInstantiateWithFlags, cuGraphInstantiate, 12000)
CUFAB_ENTRY(cuGraphLaunch, cuGraphLaunch, 10000)
CUFAB_ENTRY(cuGraphLaunch_ptsz, cuGraphLaunch_ptsz, 10000)
CUFAB_ENTRY(cuGraphExecDestroy, cuGraphExecDestroy, 10000)
CUFAB_ENTRY(cuGraphExecUpdate, cuGraphExecUpdate, 10020)
CUFAB_ENTRY(cuGraphExecUpdate_v2, cuGraphExecUpdate, 12000)

/* streammem.c */
CUFAB_ENTRY(cuStreamWaitValue32_v2, cuStreamWaitValue32, 11070)
CUFAB_ENTRY(cuStreamWaitValue32_v2_ptsz, cuStreamWaitValue32_ptsz, 11070)
CUFAB_ENTRY(cuStreamWaitValue64_v2, cuStreamWaitValue64, 11070)
CUFAB_ENTRY(cuStreamWaitValue64_v2_ptsz, cuStreamWaitValue64_ptsz, 11070)
CUFAB_ENTRY(cuStreamWriteValue32_v2, cuStreamWriteValue32, 11070)
CUFAB_ENTRY(cuStreamWriteValue32_v2_ptsz, cuStreamWriteValue32_ptsz, 11070)
CUFAB_ENTRY(cuStreamWriteValue64_v2, cuStreamWriteValue64, 11070)
CUFAB_ENTRY(cuStreamWriteValue64_v2_ptsz, cuStreamWriteValue64_ptsz, 11070)
CUFAB_ENTRY(cuStreamBatchMemOp_v2, cuStreamBatchMemOp, 11070)
CUFAB_ENTRY(cuStreamBatchMemOp_v2_ptsz, cuStreamBatchMemOp_ptsz, 11070)

/* pointer.c */
CUFAB_ENTRY(cuPointerGetAttribute, cuPointerGetAttribute, 4000)
CUFAB_ENTRY(cuPointerGetAttributes, cuPointerGetAttributes, 7000)
CUFAB_ENTRY(cuPointerSetAttribute, cuPointerSetAttribute, 6000)

/* pool.c: the stream-ordered allocator */
CUFAB_ENTRY(cuMemPoolCreate, cuMemPoolCreate, 11020)
CUFAB_ENTRY(cuMemPoolDestroy, cuMemPoolDestroy, 11020)
CUFAB_ENTRY(cuMemPoolSetAttribute, cuMemPoolSetAttribute, 11020)
CUFAB_ENTRY(cuMemPoolGetAttribute, cuMemPoolGetAttribute, 11020)
CUFAB_ENTRY(cuMemPoolTrimTo, cuMemPoolTrimTo, 11020)
CUFAB_ENTRY(cuMemPoolSetAccess, cuMemPoolSetAccess, 11020)
CUFAB_ENTRY(cuMemPoolGetAccess, cuMemPoolGetAccess, 11020)
CUFAB_ENTRY(cuMemAllocAsync, cuMemAllocAsync, 11020)
CUFAB_ENTRY(cuMemAllocAsync_ptsz, cuMemAllocAsync_ptsz, 11020)
CUFAB_ENTRY(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync, 11020)
CUFAB_ENTRY(cuMemAllocFromPoolAsync_ptsz, cuMemAllocFromPoolAsync_ptsz, 11020)
CUFAB_ENTRY(cuMemFreeAsync, cuMemFreeAsync, 11020)
CUFAB_ENTRY(cuMemFreeAsync_ptsz, cuMemFreeAsync_ptsz, 11020)
CUFAB_ENTRY(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, 11020)
CUFAB_ENTRY(cuDeviceGetMemPool, cuDeviceGetMemPool, 11020)
CUFAB_ENTRY(cuDeviceSetMemPool, cuDeviceSetMemPool, 11020)
CUFAB_ENTRY(cuMemGetDefaultMemPool, cuMemGetDefaultMemPool, 13000)
CUFAB_ENTRY(cuMemGetMemPool, cuMemGetMemPool, 13000)
CUFAB_ENTRY(cuMemSetMemPool, cuMemSetMemPool, 13000)
CUFAB_ENTRY(cuMemPoolExportToShareableHandle, cuMemPoolExportToShareableHandle, 11020)
CUFAB_ENTRY(cuMemPoolImportFromShareableHandle, cuMemPoolImportFromShareableHandle, 11020)
CUFAB_ENTRY(cuMemPoolExportPointer, cuMemPoolExportPointer, 11020)
CUFAB_ENTRY(cuMemPoolImportPointer, cuMemPoolImportPointer, 11020)

/* le.c (CUDA 13.3) */
CUFAB_ENTRY(cuLogicalEndpointIdReserve, cuLogicalEndpointIdReserve, 13030)
CUFAB_ENTRY(cuLogicalEndpointIdRelease, cuLogicalEndpointIdRelease, 13030)
CUFAB_ENTRY(cuLogicalEndpointGetLimits, cuLogicalEndpointGetLimits, 13030)
CUFAB_ENTRY(cuLogicalEndpointCreate, cuLogicalEndpointCreate, 13030)
CUFAB_ENTRY(cuLogicalEndpointDestroy, cuLogicalEndpointDestroy, 13030)
CUFAB_ENTRY(cuLogicalEndpointAddDevice, cuLogicalEndpointAddDevice, 13030)
CUFAB_ENTRY(cuLogicalEndpointQuery, cuLogicalEndpointQuery, 13030)
CUFAB_ENTRY(cuLogicalEndpointBindMem, cuLogicalEndpointBindMem, 13030)
CUFAB_ENTRY(cuLogicalEndpointBindAddr, cuLogicalEndpointBindAddr, 13030)
CUFAB_ENTRY(cuLogicalEndpointUnbind, cuLogicalEndpointUnbind, 13030)
CUFAB_ENTRY(cuLogicalEndpointExport, cuLogicalEndpointExport, 13030)
CUFAB_ENTRY(cuLogicalEndpointImport, cuLogicalEndpointImport, 13030)

/* clique.c (CUDA 13.3, with the logical endpoints they describe) */
CUFAB_ENTRY(cuDeviceGetCliqueCount, cuDeviceGetCliqueCount, 13030)
CUFAB_ENTRY(cuDeviceGetCliqueInfo, cuDeviceGetCliqueInfo, 13030)
CUFAB_ENTRY(cuDeviceGetFabricClusterUuid, cuDeviceGetFabricClusterUuid, 13030)
/* multicast.c */
CUFAB_ENTRY(cuMulticastCreate, cuMulticastCreate, 12010)
CUFAB_ENTRY(cuMulticastAddDevice, cuMulticastAddDevice, 12010)
CUFAB_ENTRY(cuMulticastBindMem, cuMulticastBindMem, 12010)
CUFAB_ENTRY(cuMulticastBindAddr, cuMulticastBindAddr, 12010)
CUFAB_ENTRY(cuMulticastUnbind, cuMulticastUnbind, 12010)
CUFAB_ENTRY(cuMulticastGetGranularity, cuMulticastGetGranularity, 12010)

/* multimem.c: cufab extension (include/cufab/multimem.h), not CUDA's */
CUFAB_ENTRY(cufabMultimemBroadcast, cufabMultimemBroadcast, 13000)
CUFAB_ENTRY(cufabMultimemStore, cufabMultimemStore, 13000)
CUFAB_ENTRY(cufabMultimemLoadReduce, cufabMultimemLoadReduce, 13000)
CUFAB_ENTRY(cufabMultimemReduce, cufabMultimemReduce, 13000)

/* stream.c */
CUFAB_ENTRY(cuCtxGetStreamPriorityRange, cuCtxGetStreamPriorityRange, 5050)
CUFAB_ENTRY(cuStreamCreate, cuStreamCreate, 2000)
CUFAB_ENTRY(cuStreamCreateWithPriority, cuStreamCreateWithPriority, 5050)
CUFAB_ENTRY(cuStreamDestroy, cuStreamDestroy, 2000)
CUFAB_ENTRY(cuStreamDestroy_v2, cuStreamDestroy, 4000)
CUFAB_ENTRY(cuStreamQuery, cuStreamQuery, 2000)
CUFAB_ENTRY(cuStreamQuery_ptsz, cuStreamQuery_ptsz, 7000)
CUFAB_ENTRY(cuStreamSynchronize, cuStreamSynchronize, 2000)
CUFAB_ENTRY(cuStreamSynchronize_ptsz, cuStreamSynchronize_ptsz, 7000)
CUFAB_ENTRY(cuStreamGetFlags, cuStreamGetFlags, 5050)
CUFAB_ENTRY(cuStreamGetFlags_ptsz, cuStreamGetFlags_ptsz, 7000)
CUFAB_ENTRY(cuStreamGetPriority, cuStreamGetPriority, 5050)
CUFAB_ENTRY(cuStreamGetPriority_ptsz, cuStreamGetPriority_ptsz, 7000)
CUFAB_ENTRY(cuStreamGetId, cuStreamGetId, 12000)
CUFAB_ENTRY(cuStreamGetId_ptsz, cuStreamGetId_ptsz, 12000)
CUFAB_ENTRY(cuStreamGetCtx, cuStreamGetCtx, 9020)
CUFAB_ENTRY(cuStreamGetCtx_ptsz, cuStreamGetCtx_ptsz, 9020)
CUFAB_ENTRY(cuStreamGetCtx_v2, cuStreamGetCtx, 12050)
CUFAB_ENTRY(cuStreamGetCtx_v2_ptsz, cuStreamGetCtx_ptsz, 12050)
CUFAB_ENTRY(cuStreamGetDevice, cuStreamGetDevice, 12080)
CUFAB_ENTRY(cuStreamGetDevice_ptsz, cuStreamGetDevice_ptsz, 12080)
CUFAB_ENTRY(cuStreamAddCallback, cuStreamAddCallback, 5000)
CUFAB_ENTRY(cuStreamAddCallback_ptsz, cuStreamAddCallback_ptsz, 7000)
CUFAB_ENTRY(cuLaunchHostFunc, cuLaunchHostFunc, 10000)
CUFAB_ENTRY(cuLaunchHostFunc_ptsz, cuLaunchHostFunc_ptsz, 10000)
CUFAB_ENTRY(cuMemcpyAsync, cuMemcpyAsync, 4000)
CUFAB_ENTRY(cuMemcpyAsync_ptsz, cuMemcpyAsync_ptsz, 7000)
CUFAB_ENTRY(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync, 3020)
CUFAB_ENTRY(cuMemcpyHtoDAsync_v2_ptsz, cuMemcpyHtoDAsync_ptsz, 7000)
CUFAB_ENTRY(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync, 3020)
CUFAB_ENTRY(cuMemcpyDtoHAsync_v2_ptsz, cuMemcpyDtoHAsync_ptsz, 7000)
CUFAB_ENTRY(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync, 3020)
CUFAB_ENTRY(cuMemcpyDtoDAsync_v2_ptsz, cuMemcpyDtoDAsync_ptsz, 7000)
CUFAB_ENTRY(cuMemcpyPeer, cuMemcpyPeer, 4000)
CUFAB_ENTRY(cuMemcpyPeer_ptds, cuMemcpyPeer_ptds, 7000)
CUFAB_ENTRY(cuMemcpyPeerAsync, cuMemcpyPeerAsync, 4000)
CUFAB_ENTRY(cuMemcpyPeerAsync_ptsz, cuMemcpyPeerAsync_ptsz, 7000)
CUFAB_ENTRY(cuMemsetD8Async, cuMemsetD8Async, 3020)
CUFAB_ENTRY(cuMemsetD8Async_ptsz, cuMemsetD8Async_ptsz, 7000)
CUFAB_ENTRY(cuMemsetD16Async, cuMemsetD16Async, 3020)
CUFAB_ENTRY(cuMemsetD16Async_ptsz, cuMemsetD16Async_ptsz, 7000)
CUFAB_ENTRY(cuMemsetD32Async, cuMemsetD32Async, 3020)
CUFAB_ENTRY(cuMemsetD32Async_ptsz, cuMemsetD32Async_ptsz, 7000)
CUFAB_ENTRY(cuMemsetD2D8Async, cuMemsetD2D8Async, 3020)
CUFAB_ENTRY(cuMemsetD2D8Async_ptsz, cuMemsetD2D8Async_ptsz, 7000)
CUFAB_ENTRY(cuMemsetD2D16Async, cuMemsetD2D16Async, 3020)
CUFAB_ENTRY(cuMemsetD2D16Async_ptsz, cuMemsetD2D16Async_ptsz, 7000)
CUFAB_ENTRY(cuMemsetD2D32Async, cuMemsetD2D32Async, 3020)
CUFAB_ENTRY(cuMemsetD2D32Async_ptsz, cuMemsetD2D32Async_ptsz, 7000)
CUFAB_ENTRY(cuMemcpy_ptds, cuMemcpy_ptds, 7000)
CUFAB_ENTRY(cuMemcpyHtoD_v2_ptds, cuMemcpyHtoD_ptds, 7000)
CUFAB_ENTRY(cuMemcpyDtoH_v2_ptds, cuMemcpyDtoH_ptds, 7000)
CUFAB_ENTRY(cuMemcpyDtoD_v2_ptds, cuMemcpyDtoD_ptds, 7000)
CUFAB_ENTRY(cuMemsetD8_v2_ptds, cuMemsetD8_ptds, 7000)
CUFAB_ENTRY(cuMemsetD16_v2_ptds, cuMemsetD16_ptds, 7000)
CUFAB_ENTRY(cuMemsetD32_v2_ptds, cuMemsetD32_ptds, 7000)

/* event.c */
CUFAB_ENTRY(cuEventCreate, cuEventCreate, 2000)
CUFAB_ENTRY(cuEventDestroy, cuEventDestroy, 2000)
CUFAB_ENTRY(cuEventDestroy_v2, cuEventDestroy, 4000)
CUFAB_ENTRY(cuEventRecord, cuEventRecord, 2000)
CUFAB_ENTRY(cuEventRecord_ptsz, cuEventRecord_ptsz, 7000)
CUFAB_ENTRY(cuEventRecordWithFlags, cuEventRecordWithFlags, 11010)
CUFAB_ENTRY(cuEventRecordWithFlags_ptsz, cuEventRecordWithFlags_ptsz, 11010)
CUFAB_ENTRY(cuEventQuery, cuEventQuery, 2000)
CUFAB_ENTRY(cuEventSynchronize, cuEventSynchronize, 2000)
CUFAB_ENTRY(cuEventElapsedTime, cuEventElapsedTime, 2000)
CUFAB_ENTRY(cuEventElapsedTime_v2, cuEventElapsedTime, 12080)
CUFAB_ENTRY(cuStreamWaitEvent, cuStreamWaitEvent, 3020)
CUFAB_ENTRY(cuStreamWaitEvent_ptsz, cuStreamWaitEvent_ptsz, 7000)
CUFAB_ENTRY(cuIpcGetEventHandle, cuIpcGetEventHandle, 4010)
CUFAB_ENTRY(cuIpcOpenEventHandle, cuIpcOpenEventHandle, 4010)
