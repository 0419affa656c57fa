/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * cufab/cuda.h - the part of the CUDA driver API that libcufab implements.
 *
 * Names, enumerator values, struct layouts and the _v2/_v4 symbol renames
 * are those of NVIDIA's cuda.h (CUDA 13.x), so a program may be built
 * against either header and run on libcufab.  Values that appeared after
 * CUDA 13.0 (logical endpoints, device attributes 148 and up, cliques) follow
 * the CUDA 13.3/13.4 driver API documentation.
 *
 * Only functions libcufab implements are declared; the types the fabric
 * APIs need are all here so that the header stays stable while the
 * library grows.  selftests/abi/ checks every type against NVIDIA's header.
 */
#ifndef __cuda_cuda_h__
/* Same guard as NVIDIA's header: the two are interchangeable, never both. */
#define __cuda_cuda_h__

#include <stddef.h>
#include <stdint.h>

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

/*
 * Entry points whose ABI changed keep the old symbol for old binaries; the
 * current one carries a _vN suffix and the plain name maps to it.
 */
#define cuDeviceTotalMem		cuDeviceTotalMem_v2
#define cuCtxCreate			cuCtxCreate_v4
#define cuMemGetInfo			cuMemGetInfo_v2
#define cuMemAlloc			cuMemAlloc_v2
#define cuMemAllocPitch			cuMemAllocPitch_v2
#define cuMemFree			cuMemFree_v2
#define cuMemGetAddressRange		cuMemGetAddressRange_v2
#define cuMemAllocHost			cuMemAllocHost_v2
#define cuMemHostGetDevicePointer	cuMemHostGetDevicePointer_v2
#define cuMemAdvise			cuMemAdvise_v2
#define cuMemPrefetchAsync		__CUDA_API_PTSZ(cuMemPrefetchAsync_v2)
#define cuCtxDestroy			cuCtxDestroy_v2
#define cuCtxPopCurrent			cuCtxPopCurrent_v2
#define cuCtxPushCurrent		cuCtxPushCurrent_v2
#define cuStreamDestroy			cuStreamDestroy_v2
#define cuEventDestroy			cuEventDestroy_v2
#define cuMemHostRegister		cuMemHostRegister_v2
#define cuDevicePrimaryCtxRelease	cuDevicePrimaryCtxRelease_v2
#define cuDevicePrimaryCtxReset		cuDevicePrimaryCtxReset_v2
#define cuDevicePrimaryCtxSetFlags	cuDevicePrimaryCtxSetFlags_v2
#define cuDeviceGetUuid			cuDeviceGetUuid_v2
#define cuIpcOpenMemHandle		cuIpcOpenMemHandle_v2
#define cuGetProcAddress		cuGetProcAddress_v2
#define cuEventElapsedTime		cuEventElapsedTime_v2

/*
 * A program built with CUDA_API_PER_THREAD_DEFAULT_STREAM calls the
 * _ptds/_ptsz entry points, whose NULL stream is the per-thread default
 * stream instead of the legacy one.
 */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define __CUDA_API_PER_THREAD_DEFAULT_STREAM
#define __CUDA_API_PTDS(api) api ## _ptds
#define __CUDA_API_PTSZ(api) api ## _ptsz
#else
#define __CUDA_API_PTDS(api) api
#define __CUDA_API_PTSZ(api) api
#endif

#define cuMemcpyHtoD			__CUDA_API_PTDS(cuMemcpyHtoD_v2)
#define cuStreamWriteValue32		__CUDA_API_PTSZ(cuStreamWriteValue32_v2)
#define cuStreamWaitValue32		__CUDA_API_PTSZ(cuStreamWaitValue32_v2)
#define cuStreamWriteValue64		__CUDA_API_PTSZ(cuStreamWriteValue64_v2)
#define cuStreamWaitValue64		__CUDA_API_PTSZ(cuStreamWaitValue64_v2)
#define cuStreamBatchMemOp		__CUDA_API_PTSZ(cuStreamBatchMemOp_v2)
#define cuStreamGetCaptureInfo		__CUDA_API_PTSZ(cuStreamGetCaptureInfo_v3)
#define cuStreamBeginCapture		__CUDA_API_PTSZ(cuStreamBeginCapture_v2)
#define cuGraphInstantiate		cuGraphInstantiateWithFlags
#define cuGraphExecUpdate		cuGraphExecUpdate_v2
#define cuGraphAddKernelNode		cuGraphAddKernelNode_v2
#define cuMemcpyDtoH			__CUDA_API_PTDS(cuMemcpyDtoH_v2)
#define cuMemcpyDtoD			__CUDA_API_PTDS(cuMemcpyDtoD_v2)
#define cuMemcpyHtoDAsync		__CUDA_API_PTSZ(cuMemcpyHtoDAsync_v2)
#define cuMemcpyDtoHAsync		__CUDA_API_PTSZ(cuMemcpyDtoHAsync_v2)
#define cuMemcpyDtoDAsync		__CUDA_API_PTSZ(cuMemcpyDtoDAsync_v2)
#define cuMemsetD8			__CUDA_API_PTDS(cuMemsetD8_v2)
#define cuMemsetD16			__CUDA_API_PTDS(cuMemsetD16_v2)
#define cuMemsetD32			__CUDA_API_PTDS(cuMemsetD32_v2)

#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemcpy			__CUDA_API_PTDS(cuMemcpy)
#define cuMemcpyAsync			__CUDA_API_PTSZ(cuMemcpyAsync)
#define cuMemcpyPeer			__CUDA_API_PTDS(cuMemcpyPeer)
#define cuMemcpyPeerAsync		__CUDA_API_PTSZ(cuMemcpyPeerAsync)
#define cuMemsetD8Async			__CUDA_API_PTSZ(cuMemsetD8Async)
#define cuMemsetD16Async		__CUDA_API_PTSZ(cuMemsetD16Async)
#define cuMemsetD32Async		__CUDA_API_PTSZ(cuMemsetD32Async)
#define cuMemsetD2D8Async		__CUDA_API_PTSZ(cuMemsetD2D8Async)
#define cuMemsetD2D16Async		__CUDA_API_PTSZ(cuMemsetD2D16Async)
#define cuMemsetD2D32Async		__CUDA_API_PTSZ(cuMemsetD2D32Async)
#define cuStreamGetPriority		__CUDA_API_PTSZ(cuStreamGetPriority)
#define cuStreamGetId			__CUDA_API_PTSZ(cuStreamGetId)
#define cuStreamGetFlags		__CUDA_API_PTSZ(cuStreamGetFlags)
#define cuStreamGetDevice		__CUDA_API_PTSZ(cuStreamGetDevice)
#define cuStreamGetCtx			__CUDA_API_PTSZ(cuStreamGetCtx)
#define cuStreamGetCtx_v2		__CUDA_API_PTSZ(cuStreamGetCtx_v2)
#define cuStreamWaitEvent		__CUDA_API_PTSZ(cuStreamWaitEvent)
#define cuStreamAddCallback		__CUDA_API_PTSZ(cuStreamAddCallback)
#define cuStreamQuery			__CUDA_API_PTSZ(cuStreamQuery)
#define cuStreamSynchronize		__CUDA_API_PTSZ(cuStreamSynchronize)
#define cuEventRecord			__CUDA_API_PTSZ(cuEventRecord)
#define cuEventRecordWithFlags		__CUDA_API_PTSZ(cuEventRecordWithFlags)
#define cuLaunchHostFunc		__CUDA_API_PTSZ(cuLaunchHostFunc)
#define cuMemFreeAsync			__CUDA_API_PTSZ(cuMemFreeAsync)
#define cuMemAllocAsync			__CUDA_API_PTSZ(cuMemAllocAsync)
#define cuMemAllocFromPoolAsync		__CUDA_API_PTSZ(cuMemAllocFromPoolAsync)
#define cuStreamAttachMemAsync		__CUDA_API_PTSZ(cuStreamAttachMemAsync)
#define cuStreamIsCapturing		__CUDA_API_PTSZ(cuStreamIsCapturing)
#define cuStreamEndCapture		__CUDA_API_PTSZ(cuStreamEndCapture)
#define cuGraphLaunch			__CUDA_API_PTSZ(cuGraphLaunch)
#endif

/* The driver API version this header describes: CUDA 13.3. */
#define CUDA_VERSION 13030

#ifdef _WIN32
#define CUDAAPI __stdcall
#else
#define CUDAAPI
#endif

#ifdef _WIN32
#define CUDA_CB __stdcall
#else
#define CUDA_CB
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A device address; as wide as a host pointer. */
#if defined(_WIN64) || defined(__LP64__)
typedef unsigned long long CUdeviceptr_v2;
#else
typedef unsigned int CUdeviceptr_v2;
#endif
typedef CUdeviceptr_v2 CUdeviceptr;

/* A device ordinal, 0 .. cuDeviceGetCount() - 1. */
typedef int CUdevice_v1;
typedef CUdevice_v1 CUdevice;

/* Opaque handles. */
typedef struct CUctx_st *CUcontext;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;

/* Implicit streams: the legacy NULL stream and the per-thread stream. */
#define CU_STREAM_LEGACY     ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

#ifndef CU_UUID_HAS_BEEN_DEFINED
#define CU_UUID_HAS_BEEN_DEFINED
typedef struct CUuuid_st {
	char bytes[16];
} CUuuid;
#endif

/* Size of every IPC and fabric handle. */
#define CU_IPC_HANDLE_SIZE 64

/* An allocation exported for import by processes on this or other nodes. */
typedef struct CUmemFabricHandle_st {
	unsigned char data[CU_IPC_HANDLE_SIZE];
} CUmemFabricHandle_v1;
typedef CUmemFabricHandle_v1 CUmemFabricHandle;

/* A cuMemAlloc allocation shared with another process (cuIpcGetMemHandle). */
typedef struct CUipcMemHandle_st {
	char reserved[CU_IPC_HANDLE_SIZE];
} CUipcMemHandle_v1;
typedef CUipcMemHandle_v1 CUipcMemHandle;

typedef enum CUipcMem_flags_enum {
	CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1
} CUipcMem_flags;

/* An event shared with another process (cuIpcGetEventHandle). */
typedef struct CUipcEventHandle_st {
	char reserved[CU_IPC_HANDLE_SIZE];
} CUipcEventHandle_v1;
typedef CUipcEventHandle_v1 CUipcEventHandle;

typedef struct CUgreenCtx_st *CUgreenCtx;

/* cuStreamCreate flags. */
typedef enum CUstream_flags_enum {
	CU_STREAM_DEFAULT = 0x0,
	CU_STREAM_NON_BLOCKING = 0x1	/* no implicit sync with the NULL stream */
} CUstream_flags;

/* The legacy default stream, and the calling thread's default stream. */
#define CU_STREAM_LEGACY	((CUstream)0x1)
#define CU_STREAM_PER_THREAD	((CUstream)0x2)

/* cuEventCreate flags. */
typedef enum CUevent_flags_enum {
	CU_EVENT_DEFAULT = 0x0,
	CU_EVENT_BLOCKING_SYNC = 0x1,
	CU_EVENT_DISABLE_TIMING = 0x2,
	CU_EVENT_INTERPROCESS = 0x4	/* needs CU_EVENT_DISABLE_TIMING */
} CUevent_flags;

/* cuEventRecordWithFlags flags. */
typedef enum CUevent_record_flags_enum {
	CU_EVENT_RECORD_DEFAULT = 0x0,
	CU_EVENT_RECORD_EXTERNAL = 0x1	/* stream capture only */
} CUevent_record_flags;

/* cuStreamWaitEvent flags. */
typedef enum CUevent_wait_flags_enum {
	CU_EVENT_WAIT_DEFAULT = 0x0,
	CU_EVENT_WAIT_EXTERNAL = 0x1	/* stream capture only */
} CUevent_wait_flags;

/* Context limits (cuCtxGetLimit, cuCtxSetLimit). */
typedef enum CUlimit_enum {
	CU_LIMIT_STACK_SIZE = 0x00,
	CU_LIMIT_PRINTF_FIFO_SIZE = 0x01,
	CU_LIMIT_MALLOC_HEAP_SIZE = 0x02,
	CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 0x03,
	CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 0x04,
	CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 0x05,
	CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06,
	CU_LIMIT_SHMEM_SIZE = 0x07,
	CU_LIMIT_CIG_ENABLED = 0x08,
	CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED = 0x09,
	CU_LIMIT_MAX
} CUlimit;

/* A context's cache preference (cuCtxGetCacheConfig, cuCtxSetCacheConfig). */
typedef enum CUfunc_cache_enum {
	CU_FUNC_CACHE_PREFER_NONE = 0x00,
	CU_FUNC_CACHE_PREFER_SHARED = 0x01,
	CU_FUNC_CACHE_PREFER_L1 = 0x02,
	CU_FUNC_CACHE_PREFER_EQUAL = 0x03
} CUfunc_cache;

/* Shared memory bank width (cuCtxGetSharedMemConfig, cuCtxSetSharedMemConfig). */
typedef enum CUsharedconfig_enum {
	CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE = 0x00,
	CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE = 0x01,
	CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 0x02
} CUsharedconfig;

/* Stream attachment of managed memory (cuMemAllocManaged, cuStreamAttachMemAsync). */
typedef enum CUmemAttach_flags_enum {
	CU_MEM_ATTACH_GLOBAL = 0x1,
	CU_MEM_ATTACH_HOST = 0x2,
	CU_MEM_ATTACH_SINGLE = 0x4
} CUmemAttach_flags;

/* Managed memory advice (cuMemAdvise). */
typedef enum CUmem_advise_enum {
	CU_MEM_ADVISE_SET_READ_MOSTLY = 1,
	CU_MEM_ADVISE_UNSET_READ_MOSTLY = 2,
	CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3,
	CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
	CU_MEM_ADVISE_SET_ACCESSED_BY = 5,
	CU_MEM_ADVISE_UNSET_ACCESSED_BY = 6
} CUmem_advise;

/* What cuMemRangeGetAttribute(s) report about a managed range. */
typedef enum CUmem_range_attribute_enum {
	CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
	CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
	CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
	CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4,
	CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE = 5,
	CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID = 6,
	CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE = 7,
	CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID = 8
} CUmem_range_attribute;

/* Context creation flags: one scheduling mode (low three bits) plus options. */
typedef enum CUctx_flags_enum {
	CU_CTX_SCHED_AUTO = 0x00,
	CU_CTX_SCHED_SPIN = 0x01,
	CU_CTX_SCHED_YIELD = 0x02,
	CU_CTX_SCHED_BLOCKING_SYNC = 0x04,
	CU_CTX_BLOCKING_SYNC = 0x04,		/* deprecated spelling */
	CU_CTX_SCHED_MASK = 0x07,
	CU_CTX_MAP_HOST = 0x08,			/* deprecated, no effect */
	CU_CTX_LMEM_RESIZE_TO_MAX = 0x10,
	CU_CTX_COREDUMP_ENABLE = 0x20,
	CU_CTX_USER_COREDUMP_ENABLE = 0x40,
	CU_CTX_SYNC_MEMOPS = 0x80,
	CU_CTX_FLAGS_MASK = 0xFF
} CUctx_flags;

/* cuGetProcAddress search options. */
typedef enum CUdriverProcAddress_flags_enum {
	CU_GET_PROC_ADDRESS_DEFAULT = 0,
	CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1 << 0,
	CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 1 << 1
} CUdriverProcAddress_flags;

/* What cuGetProcAddress found for a symbol name and version. */
typedef enum CUdriverProcAddressQueryResult_enum {
	CU_GET_PROC_ADDRESS_SUCCESS = 0,
	CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
	CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
} CUdriverProcAddressQueryResult;

/* Execution affinity (MPS only; cufab reports no support). */
typedef enum CUexecAffinityType_enum {
	CU_EXEC_AFFINITY_TYPE_SM_COUNT = 0,
	CU_EXEC_AFFINITY_TYPE_MAX
} CUexecAffinityType;

typedef struct CUexecAffinitySmCount_st {
	unsigned int val;
} CUexecAffinitySmCount_v1;
typedef CUexecAffinitySmCount_v1 CUexecAffinitySmCount;

typedef struct CUexecAffinityParam_st {
	CUexecAffinityType type;
	union {
		CUexecAffinitySmCount smCount;
	} param;
} CUexecAffinityParam_v1;
typedef CUexecAffinityParam_v1 CUexecAffinityParam;

/* CUDA in Graphics contexts (cufab reports no support). */
typedef enum CUcigDataType_enum {
	CIG_DATA_TYPE_D3D12_COMMAND_QUEUE = 0x1,
	CIG_DATA_TYPE_NV_BLOB = 0x2,
} CUcigDataType;

typedef struct CUctxCigParam_st {
	CUcigDataType sharedDataType;
	void *sharedData;
} CUctxCigParam;

/* Optional cuCtxCreate parameters: exactly one member may be set. */
typedef struct CUctxCreateParams_st {
	CUexecAffinityParam *execAffinityParams;
	int numExecAffinityParams;
	CUctxCigParam *cigParams;
} CUctxCreateParams;

/* Result of every driver API call. */
typedef enum cudaError_enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_PROFILER_DISABLED = 5,
	CUDA_ERROR_PROFILER_NOT_INITIALIZED = 6,
	CUDA_ERROR_PROFILER_ALREADY_STARTED = 7,
	CUDA_ERROR_PROFILER_ALREADY_STOPPED = 8,
	CUDA_ERROR_STUB_LIBRARY = 34,
	CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202,
	CUDA_ERROR_MAP_FAILED = 205,
	CUDA_ERROR_UNMAP_FAILED = 206,
	CUDA_ERROR_ARRAY_IS_MAPPED = 207,
	CUDA_ERROR_ALREADY_MAPPED = 208,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_ALREADY_ACQUIRED = 210,
	CUDA_ERROR_NOT_MAPPED = 211,
	CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
	CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213,
	CUDA_ERROR_ECC_UNCORRECTABLE = 214,
	CUDA_ERROR_UNSUPPORTED_LIMIT = 215,
	CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216,
	CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219,
	CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
	CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224,
	CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225,
	CUDA_ERROR_CONTAINED = 226,
	CUDA_ERROR_INVALID_SOURCE = 300,
	CUDA_ERROR_FILE_NOT_FOUND = 301,
	CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
	CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_ILLEGAL_STATE = 401,
	CUDA_ERROR_LOSSY_QUERY = 402,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
	CUDA_ERROR_LAUNCH_TIMEOUT = 702,
	CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
	CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
	CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
	CUDA_ERROR_ASSERT = 710,
	CUDA_ERROR_TOO_MANY_PEERS = 711,
	CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
	CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
	CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
	CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
	CUDA_ERROR_MISALIGNED_ADDRESS = 716,
	CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
	CUDA_ERROR_INVALID_PC = 718,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
	CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
	CUDA_ERROR_NOT_PERMITTED = 800,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_SYSTEM_NOT_READY = 802,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
	CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
	CUDA_ERROR_MPS_CONNECTION_FAILED = 805,
	CUDA_ERROR_MPS_RPC_FAILURE = 806,
	CUDA_ERROR_MPS_SERVER_NOT_READY = 807,
	CUDA_ERROR_MPS_MAX_CLIENTS_REACHED = 808,
	CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED = 809,
	CUDA_ERROR_MPS_CLIENT_TERMINATED = 810,
	CUDA_ERROR_CDP_NOT_SUPPORTED = 811,
	CUDA_ERROR_CDP_VERSION_MISMATCH = 812,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
	CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
	CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
	CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
	CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
	CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
	CUDA_ERROR_CAPTURED_EVENT = 907,
	CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
	CUDA_ERROR_TIMEOUT = 909,
	CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
	CUDA_ERROR_EXTERNAL_DEVICE = 911,
	CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
	CUDA_ERROR_FUNCTION_NOT_LOADED = 913,
	CUDA_ERROR_INVALID_RESOURCE_TYPE = 914,
	CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION = 915,
	CUDA_ERROR_KEY_ROTATION = 916,
	CUDA_ERROR_UNKNOWN = 999,
} CUresult;

/* Host work in a stream (cuLaunchHostFunc, cuStreamAddCallback). */
typedef void (CUDA_CB *CUhostFn)(void *userData);
typedef void (CUDA_CB *CUstreamCallback)(CUstream hStream, CUresult status, void *userData);

/*
 * Device attributes for cuDeviceGetAttribute.  1 .. 147 are those of
 * CUDA 13.0; 148 .. 159 were added by CUDA 13.1 .. 13.4.
 */
typedef enum CUdevice_attribute_enum {
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8,
	CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
	CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
	CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
	CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12,
	CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
	CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
	CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
	CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
	CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
	CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29,
	CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
	CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
	CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35,
	CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
	CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
	CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43,
	CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER = 44,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49,
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
	CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH = 55,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH = 56,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT = 57,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH = 58,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT = 59,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH = 60,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH = 66,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77,
	CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = 78,
	CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = 79,
	CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = 80,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
	CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
	CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84,
	CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = 85,
	CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 86,
	CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
	CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
	CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = 90,
	CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
	CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92,
	CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93,
	CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94,
	CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
	CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 98,
	CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED = 99,
	CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
	CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101,
	CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102,
	CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
	CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 107,
	CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108,
	CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110,
	CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
	CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED = 112,
	CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED = 113,
	CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114,
	CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118,
	CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,
	CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
	CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121,
	CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122,
	CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR = 123,
	CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,
	CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED = 125,
	CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT = 126,
	CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED = 127,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED = 128,
	CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS = 129,
	CU_DEVICE_ATTRIBUTE_NUMA_CONFIG = 130,
	CU_DEVICE_ATTRIBUTE_NUMA_ID = 131,
	CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 132,
	CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 133,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134,
	CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED = 135,
	CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK = 136,
	CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH = 137,
	CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED = 138,
	CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID = 139,
	CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID = 140,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143,
	CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED = 144,
	CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145,
	CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED = 146,
	CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147,
	CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED = 148,
	CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_COUNT = 149,
	CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK = 150,
	CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED = 151,
	CU_DEVICE_ATTRIBUTE_DMA_BUF_MMAP_SUPPORTED = 152,
	CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED = 153,
	CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED = 154,
	CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED = 155,
	CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED = 156,
	CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT = 157,
	CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES = 158,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED = 159,
	CU_DEVICE_ATTRIBUTE_MAX
} CUdevice_attribute;

/* Attributes of the link between two devices (cuDeviceGetP2PAttribute). */
typedef enum CUdevice_P2PAttribute_enum {
	CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK = 0x01,
	CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 0x02,
	CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 0x03,
	CU_DEVICE_P2P_ATTRIBUTE_ACCESS_ACCESS_SUPPORTED = 0x04,
	CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED = 0x04,
	CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED = 0x05
} CUdevice_P2PAttribute;

/* Pointer attributes for cuPointerGetAttribute(s). */
typedef enum CUpointer_attribute_enum {
	CU_POINTER_ATTRIBUTE_CONTEXT = 1,
	CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
	CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
	CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
	CU_POINTER_ATTRIBUTE_P2P_TOKENS = 5,
	CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
	CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
	CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
	CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
	CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10,
	CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
	CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
	CU_POINTER_ATTRIBUTE_MAPPED = 13,
	CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES = 14,
	CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE = 15,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAGS = 16,
	CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
	CU_POINTER_ATTRIBUTE_MAPPING_SIZE = 18,
	CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR = 19,
	CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID = 20,
	CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE = 21
} CUpointer_attribute;

/* Virtual memory management (cuMemCreate and friends). */
typedef unsigned long long CUmemGenericAllocationHandle_v1;
typedef CUmemGenericAllocationHandle_v1 CUmemGenericAllocationHandle;

/* Ways an allocation may be shared; a bitmask where several are allowed. */
typedef enum CUmemAllocationHandleType_enum {
	CU_MEM_HANDLE_TYPE_NONE = 0x0,
	CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
	CU_MEM_HANDLE_TYPE_WIN32 = 0x2,
	CU_MEM_HANDLE_TYPE_WIN32_KMT = 0x4,
	CU_MEM_HANDLE_TYPE_FABRIC = 0x8,
	CU_MEM_HANDLE_TYPE_MAX = 0x7FFFFFFF
} CUmemAllocationHandleType;

/* cuMemGetHandleForAddressRange: what kind of handle of a range. */
typedef enum CUmemRangeHandleType_enum {
	CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 0x1,
	CU_MEM_RANGE_HANDLE_TYPE_MAX = 0x7FFFFFFF
} CUmemRangeHandleType;

typedef enum CUmemRangeFlags_enum {
	/* through the PCIe BAR1 (NOT_SUPPORTED on cufab: lib/dmabuf_range.c) */
	CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 0x1
} CUmemRangeFlags;

typedef enum CUmemAccess_flags_enum {
	CU_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
	CU_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
	CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
	CU_MEM_ACCESS_FLAGS_PROT_MAX = 0x7FFFFFFF
} CUmemAccess_flags;

typedef enum CUmemLocationType_enum {
	CU_MEM_LOCATION_TYPE_INVALID = 0x0,
	CU_MEM_LOCATION_TYPE_NONE = 0x0,
	CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
	CU_MEM_LOCATION_TYPE_HOST = 0x2,
	CU_MEM_LOCATION_TYPE_HOST_NUMA = 0x3,
	CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 0x4,
	CU_MEM_LOCATION_TYPE_MAX = 0x7FFFFFFF
} CUmemLocationType;

typedef enum CUmemAllocationType_enum {
	CU_MEM_ALLOCATION_TYPE_INVALID = 0x0,
	CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
	CU_MEM_ALLOCATION_TYPE_MANAGED = 0x2,
	CU_MEM_ALLOCATION_TYPE_MAX = 0x7FFFFFFF
} CUmemAllocationType;

typedef enum CUmemAllocationGranularity_flags_enum {
	CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
	CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1
} CUmemAllocationGranularity_flags;

/* Where memory lives: a device ordinal, the host or a host NUMA node. */
typedef struct CUmemLocation_st {
	CUmemLocationType type;
	int id;
} CUmemLocation_v1;
typedef CUmemLocation_v1 CUmemLocation;

typedef enum CUmemAllocationCompType_enum {
	CU_MEM_ALLOCATION_COMP_NONE = 0x0,
	CU_MEM_ALLOCATION_COMP_GENERIC = 0x1
} CUmemAllocationCompType;

/* CUmemAllocationProp.allocFlags.usage bits. */
#define CU_MEM_CREATE_USAGE_TILE_POOL		0x1
#define CU_MEM_CREATE_USAGE_HW_DECOMPRESS	0x2

typedef struct CUmemAllocationProp_st {
	CUmemAllocationType type;
	CUmemAllocationHandleType requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;	/* must be NULL on Linux */
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp_v1;
typedef CUmemAllocationProp_v1 CUmemAllocationProp;

typedef enum CUmulticastGranularity_flags_enum {
	CU_MULTICAST_GRANULARITY_MINIMUM = 0x0,
	CU_MULTICAST_GRANULARITY_RECOMMENDED = 0x1
} CUmulticastGranularity_flags;

/* A multicast team: numDevices members, each binding up to size bytes. */
typedef struct CUmulticastObjectProp_st {
	unsigned int numDevices;
	size_t size;
	unsigned long long handleTypes;	/* CUmemAllocationHandleType bits */
	unsigned long long flags;	/* must be 0 */
} CUmulticastObjectProp_v1;
typedef CUmulticastObjectProp_v1 CUmulticastObjectProp;

typedef struct CUmemAccessDesc_st {
	CUmemLocation location;
	CUmemAccess_flags flags;
} CUmemAccessDesc_v1;
typedef CUmemAccessDesc_v1 CUmemAccessDesc;

/* Kinds of memory (CU_POINTER_ATTRIBUTE_MEMORY_TYPE). */
typedef enum CUmemorytype_enum {
	CU_MEMORYTYPE_HOST = 0x01,
	CU_MEMORYTYPE_DEVICE = 0x02,
	CU_MEMORYTYPE_ARRAY = 0x03,
	CU_MEMORYTYPE_UNIFIED = 0x04
} CUmemorytype;

/* CU_POINTER_ATTRIBUTE_ACCESS_FLAGS values. */
typedef enum CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS_enum {
	CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE = 0x0,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ = 0x1,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE = 0x3
} CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS;

/* Stream-ordered allocator pools. */
typedef enum CUmemPool_attribute_enum {
	CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,	/* int */
	CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,		/* int */
	CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,	/* int */
	CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_USED_MEM_CURRENT,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_USED_MEM_HIGH				/* cuuint64_t */
} CUmemPool_attribute;

/* CUmemPoolProps.usage bits. */
#define CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS 0x2

typedef struct CUmemPoolProps_st {
	CUmemAllocationType allocType;
	CUmemAllocationHandleType handleTypes;
	CUmemLocation location;
	void *win32SecurityAttributes;	/* must be NULL on Linux */
	size_t maxSize;			/* 0: system default */
	unsigned short usage;
	unsigned char reserved[54];	/* must be 0 */
} CUmemPoolProps_v1;
typedef CUmemPoolProps_v1 CUmemPoolProps;

/* Opaque description of one pool allocation, for cuMemPoolImportPointer. */
typedef struct CUmemPoolPtrExportData_st {
	unsigned char reserved[64];
} CUmemPoolPtrExportData_v1;
typedef CUmemPoolPtrExportData_v1 CUmemPoolPtrExportData;

/*
 * Logical endpoints (Compute Fabric Transport, CUDA 13.3): a process-local
 * id names a unicast or multicast endpoint that fabric operations address
 * by (id, offset).
 */
typedef cuuint32_t CUlogicalEndpointId;

typedef enum CUlogicalEndpointType_enum {
	CU_LOGICAL_ENDPOINT_TYPE_INVALID = 0,
	CU_LOGICAL_ENDPOINT_TYPE_UNICAST = 1,
	CU_LOGICAL_ENDPOINT_TYPE_MULTICAST = 2
} CUlogicalEndpointType;

typedef enum CUlogicalEndpointIpcHandleType_enum {
	CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_NONE = 0,
	CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC = 1
} CUlogicalEndpointIpcHandleType;

typedef enum CUlogicalEndpointFlag_enum {
	CU_LOGICAL_ENDPOINT_FLAG_NONE = 0,
	CU_LOGICAL_ENDPOINT_FLAG_COUNTED_OPS = 1
} CUlogicalEndpointFlag;

typedef struct CUlogicalEndpointFabricHandle_st {
	unsigned char data[CU_IPC_HANDLE_SIZE];
} CUlogicalEndpointFabricHandle;

typedef struct CUlogicalEndpointProp_st {
	CUlogicalEndpointType type;
	union {
		struct {
			CUdevice device;	/* owner of a unicast endpoint */
		} unicast;
		struct {
			unsigned int numDevices;	/* team size */
		} multicast;
	};
	unsigned long long size;
	unsigned int ipcHandleTypes;	/* CUlogicalEndpointIpcHandleType bits */
	unsigned int flags;		/* CUlogicalEndpointFlag bits */
} CUlogicalEndpointProp;

/* Fabric cliques: groups of devices that reach each other a given way. */
typedef enum CUcliqueType_enum {
	CU_CLIQUE_TYPE_UNICAST_POINTER = 0,
	CU_CLIQUE_TYPE_MULTICAST_POINTER = 1,
	CU_CLIQUE_TYPE_UNICAST_LOGICAL_ENDPOINT = 2,
	CU_CLIQUE_TYPE_MULTICAST_LOGICAL_ENDPOINT = 3
} CUcliqueType;

typedef struct CUcliqueInfo_st {
	CUcliqueType type;
	unsigned int id;
} CUcliqueInfo;

/* Error handling: work before cuInit. */
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr);
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr);

/* Initialization and version. */
CUresult CUDAAPI cuInit(unsigned int Flags);
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion);

/* Devices. */
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal);
CUresult CUDAAPI cuDeviceGetCount(int *count);
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev);
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
				      CUdevice dev);
CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId);
CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
				       CUdevice peerDev);
CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
					 CUdevice srcDevice, CUdevice dstDevice);

/* Primary contexts: one per device, shared by every user in the process. */
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
					    int *active);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);

/* Contexts and the calling thread's context stack. */
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
			     unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device);
CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags);
CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId);
CUresult CUDAAPI cuCtxSynchronize(void);
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx);
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);

/* Limits and configuration of the current context (ctx_config.c). */
CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit);
CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value);
CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig);
CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config);
CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig);
CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config);
CUresult CUDAAPI cuCtxResetPersistingL2Cache(void);

/* Peer context memory access: one way, per pair of contexts. */
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags);
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext);

/* Driver entry points by name and CUDA version. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				  cuuint64_t flags,
				  CUdriverProcAddressQueryResult *symbolStatus);

/* Virtual memory management: no current context needed. */
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			     const CUmemAllocationProp *prop,
			     unsigned long long flags);
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
					       const CUmemAllocationProp *prop,
					       CUmemAllocationGranularity_flags option);
CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
					     void *addr);
CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							CUmemGenericAllocationHandle handle);
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
				     CUdeviceptr addr, unsigned long long flags);
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle,
			  unsigned long long flags);
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size,
				const CUmemAccessDesc *desc, size_t count);
CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags,
				const CUmemLocation *location, CUdeviceptr ptr);
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle,
					      CUmemGenericAllocationHandle handle,
					      CUmemAllocationHandleType handleType,
					      unsigned long long flags);
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
						void *osHandle,
						CUmemAllocationHandleType shHandleType);
CUresult CUDAAPI cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr,
					       size_t size,
					       CUmemRangeHandleType handleType,
					       unsigned long long flags);

/* Legacy memory: in the current context. */
CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total);
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
CUresult CUDAAPI cuMemFree(CUdeviceptr dptr);
CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize);
CUresult CUDAAPI cuMemFreeHost(void *p);
/* Host memory is the device's at the same address (unified addressing). */
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p,
					   unsigned int Flags);

/* cuMemHostAlloc flags */
#define CU_MEMHOSTALLOC_PORTABLE	0x01
#define CU_MEMHOSTALLOC_DEVICEMAP	0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED	0x04
/* cuMemHostRegister flags */
#define CU_MEMHOSTREGISTER_PORTABLE	0x01
#define CU_MEMHOSTREGISTER_DEVICEMAP	0x02
#define CU_MEMHOSTREGISTER_IOMEMORY	0x04
#define CU_MEMHOSTREGISTER_READ_ONLY	0x08

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p);
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
CUresult CUDAAPI cuMemHostUnregister(void *p);
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize,
				      CUdeviceptr dptr);
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost,
			      size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
			      size_t ByteCount);
CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult CUDAAPI cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, size_t N);
CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N);

CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
			      CUdeviceptr srcDevice, CUcontext srcContext,
			      size_t ByteCount);

/* Streams: ordered queues of work run by the GPU's engine. */
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority,
					     int *greatestPriority);
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
					    unsigned int flags, int priority);
CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority);
CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device);
CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags);
CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId);
CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx);
CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx,
				   CUgreenCtx *pGreenCtx);
CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
				   unsigned int Flags);
CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
				     void *userData, unsigned int flags);
CUresult CUDAAPI cuStreamQuery(CUstream hStream);
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream);
CUresult CUDAAPI cuStreamDestroy(CUstream hStream);
CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData);
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
			       size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
				   CUdeviceptr srcDevice, CUcontext srcContext,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc,
				 size_t N, CUstream hStream);
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us,
				  size_t N, CUstream hStream);
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui,
				  size_t N, CUstream hStream);
/* 2D: Height rows of Width elements, dstPitch bytes apart. */
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch,
				   unsigned char uc, size_t Width,
				   size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch,
				    unsigned short us, size_t Width,
				    size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch,
				    unsigned int ui, size_t Width,
				    size_t Height, CUstream hStream);

/* Events: completion markers in streams. */
CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream,
					unsigned int flags);
CUresult CUDAAPI cuEventQuery(CUevent hEvent);
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent);
CUresult CUDAAPI cuEventDestroy(CUevent hEvent);
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
				    CUevent hEnd);
/* Interprocess events: CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING. */
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event);
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent,
				      CUipcEventHandle handle);
/* Interprocess cuMemAlloc memory (ipc_mem.c). */
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr);
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
				    unsigned int Flags);
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr);
/* Managed memory: in the current context; freed with cuMemFree. */
#define CU_DEVICE_CPU			((CUdevice)-1)
#define CU_DEVICE_INVALID		((CUdevice)-2)
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
				   unsigned int flags);
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count,
			     CUmem_advise advice, CUmemLocation location);
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count,
				    CUmemLocation location, unsigned int flags,
				    CUstream hStream);
CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t dataSize,
					CUmem_range_attribute attribute,
					CUdeviceptr devPtr, size_t count);
CUresult CUDAAPI cuMemRangeGetAttributes(void **data, size_t *dataSizes,
					 CUmem_range_attribute *attributes,
					 size_t numAttributes, CUdeviceptr devPtr,
					 size_t count);
CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr,
					size_t length, unsigned int flags);

/* Stream memory operations. */
typedef enum CUstreamWaitValue_flags_enum {
	CU_STREAM_WAIT_VALUE_GEQ = 0x0,
	CU_STREAM_WAIT_VALUE_EQ = 0x1,
	CU_STREAM_WAIT_VALUE_AND = 0x2,
	CU_STREAM_WAIT_VALUE_NOR = 0x3,
	CU_STREAM_WAIT_VALUE_FLUSH = 1 << 30,
} CUstreamWaitValue_flags;

typedef enum CUstreamWriteValue_flags_enum {
	CU_STREAM_WRITE_VALUE_DEFAULT = 0x0,
	CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER = 0x1,
} CUstreamWriteValue_flags;

typedef enum CUstreamBatchMemOpType_enum {
	CU_STREAM_MEM_OP_WAIT_VALUE_32 = 1,
	CU_STREAM_MEM_OP_WRITE_VALUE_32 = 2,
	CU_STREAM_MEM_OP_WAIT_VALUE_64 = 4,
	CU_STREAM_MEM_OP_WRITE_VALUE_64 = 5,
	CU_STREAM_MEM_OP_BARRIER = 6,
	CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES = 3,
} CUstreamBatchMemOpType;

typedef enum CUstreamMemoryBarrier_flags_enum {
	CU_STREAM_MEMORY_BARRIER_TYPE_SYS = 0x0,
	CU_STREAM_MEMORY_BARRIER_TYPE_GPU = 0x1,
} CUstreamMemoryBarrier_flags;

typedef union CUstreamBatchMemOpParams_union {
	CUstreamBatchMemOpType operation;
	struct CUstreamMemOpWaitValueParams_st {
		CUstreamBatchMemOpType operation;
		CUdeviceptr address;
		union {
			cuuint32_t value;
			cuuint64_t value64;
		};
		unsigned int flags;
		CUdeviceptr alias;
	} waitValue;
	struct CUstreamMemOpWriteValueParams_st {
		CUstreamBatchMemOpType operation;
		CUdeviceptr address;
		union {
			cuuint32_t value;
			cuuint64_t value64;
		};
		unsigned int flags;
		CUdeviceptr alias;
	} writeValue;
	struct CUstreamMemOpFlushRemoteWritesParams_st {
		CUstreamBatchMemOpType operation;
		unsigned int flags;
	} flushRemoteWrites;
	struct CUstreamMemOpMemoryBarrierParams_st {
		CUstreamBatchMemOpType operation;
		unsigned int flags;
	} memoryBarrier;
	cuuint64_t pad[6];
} CUstreamBatchMemOpParams_v1;
typedef CUstreamBatchMemOpParams_v1 CUstreamBatchMemOpParams;

CUresult CUDAAPI cuStreamWaitValue32(CUstream stream, CUdeviceptr addr,
				     cuuint32_t value, unsigned int flags);
CUresult CUDAAPI cuStreamWaitValue64(CUstream stream, CUdeviceptr addr,
				     cuuint64_t value, unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue32(CUstream stream, CUdeviceptr addr,
				      cuuint32_t value, unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue64(CUstream stream, CUdeviceptr addr,
				      cuuint64_t value, unsigned int flags);
CUresult CUDAAPI cuStreamBatchMemOp(CUstream stream, unsigned int count,
				    CUstreamBatchMemOpParams *paramArray,
				    unsigned int flags);

/* Stream capture state. */
typedef enum CUstreamCaptureStatus_enum {
	CU_STREAM_CAPTURE_STATUS_NONE = 0,
	CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
	CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
} CUstreamCaptureStatus;

typedef struct CUgraphEdgeData_st {
	unsigned char from_port;
	unsigned char to_port;
	unsigned char type;
	unsigned char reserved[5];
} CUgraphEdgeData;

CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
				     CUstreamCaptureStatus *captureStatus);
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream,
					CUstreamCaptureStatus *captureStatus_out,
					cuuint64_t *id_out, CUgraph *graph_out,
					const CUgraphNode **dependencies_out,
					const CUgraphEdgeData **edgeData_out,
					size_t *numDependencies_out);

/* Stream capture and graphs whose nodes need no device code. */
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUarray_st *CUarray;
typedef struct CUfunc_st *CUfunction;
typedef struct CUkern_st *CUkernel;

typedef enum CUstreamCaptureMode_enum {
	CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
	CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
	CU_STREAM_CAPTURE_MODE_RELAXED = 2
} CUstreamCaptureMode;

typedef enum CUgraphNodeType_enum {
	CU_GRAPH_NODE_TYPE_KERNEL = 0,
	CU_GRAPH_NODE_TYPE_MEMCPY = 1,
	CU_GRAPH_NODE_TYPE_MEMSET = 2,
	CU_GRAPH_NODE_TYPE_HOST = 3,
	CU_GRAPH_NODE_TYPE_GRAPH = 4,
	CU_GRAPH_NODE_TYPE_EMPTY = 5,
	CU_GRAPH_NODE_TYPE_WAIT_EVENT = 6,
	CU_GRAPH_NODE_TYPE_EVENT_RECORD = 7,
	CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL = 8,
	CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT = 9,
	CU_GRAPH_NODE_TYPE_MEM_ALLOC = 10,
	CU_GRAPH_NODE_TYPE_MEM_FREE = 11,
	CU_GRAPH_NODE_TYPE_BATCH_MEM_OP = 12,
	CU_GRAPH_NODE_TYPE_CONDITIONAL = 13
} CUgraphNodeType;

typedef enum CUgraphInstantiate_flags_enum {
	CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH = 1,
	CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD = 2,
	CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH = 4,
	CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY = 8
} CUgraphInstantiate_flags;

typedef enum CUgraphExecUpdateResult_enum {
	CU_GRAPH_EXEC_UPDATE_SUCCESS = 0x0,
	CU_GRAPH_EXEC_UPDATE_ERROR = 0x1,
	CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED = 0x2,
	CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED = 0x3,
	CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED = 0x4,
	CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED = 0x5,
	CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED = 0x6,
	CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE = 0x7,
	CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED = 0x8
} CUgraphExecUpdateResult;

typedef struct CUgraphExecUpdateResultInfo_st {
	CUgraphExecUpdateResult result;
	CUgraphNode errorNode;
	CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo_v1;
typedef CUgraphExecUpdateResultInfo_v1 CUgraphExecUpdateResultInfo;

typedef struct CUDA_MEMCPY3D_st {
	size_t srcXInBytes;
	size_t srcY;
	size_t srcZ;
	size_t srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	void *reserved0;
	size_t srcPitch;
	size_t srcHeight;
	size_t dstXInBytes;
	size_t dstY;
	size_t dstZ;
	size_t dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	void *reserved1;
	size_t dstPitch;
	size_t dstHeight;
	size_t WidthInBytes;
	size_t Height;
	size_t Depth;
} CUDA_MEMCPY3D_v2;
typedef CUDA_MEMCPY3D_v2 CUDA_MEMCPY3D;

typedef struct CUDA_MEMSET_NODE_PARAMS_st {
	CUdeviceptr dst;
	size_t pitch;
	unsigned int value;
	unsigned int elementSize;
	size_t width;
	size_t height;
} CUDA_MEMSET_NODE_PARAMS_v1;
typedef CUDA_MEMSET_NODE_PARAMS_v1 CUDA_MEMSET_NODE_PARAMS;

typedef struct CUDA_HOST_NODE_PARAMS_st {
	CUhostFn fn;
	void *userData;
} CUDA_HOST_NODE_PARAMS_v1;
typedef CUDA_HOST_NODE_PARAMS_v1 CUDA_HOST_NODE_PARAMS;

typedef struct CUDA_KERNEL_NODE_PARAMS_v2_st {
	CUfunction func;
	unsigned int gridDimX;
	unsigned int gridDimY;
	unsigned int gridDimZ;
	unsigned int blockDimX;
	unsigned int blockDimY;
	unsigned int blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	CUkernel kern;
	CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS_v2;
typedef CUDA_KERNEL_NODE_PARAMS_v2 CUDA_KERNEL_NODE_PARAMS;

CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode);
CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode);
CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph);
CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags);
CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_KERNEL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMCPY3D *copyParams,
				      CUcontext ctx);
CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMSET_NODE_PARAMS *memsetParams,
				      CUcontext ctx);
CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    const CUDA_HOST_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					  const CUgraphNode *dependencies,
					  size_t numDependencies,
					  CUgraph childGraph);
CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies);
CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					   const CUgraphNode *dependencies,
					   size_t numDependencies, CUevent event);
CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					 const CUgraphNode *dependencies,
					 size_t numDependencies, CUevent event);
CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type);
CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes);
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
				    unsigned long long flags);
CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec);
CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph);
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph,
				   CUgraphExecUpdateResultInfo *resultInfo);

/* Pointer classification. */
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
				       CUdeviceptr ptr);
CUresult CUDAAPI cuPointerSetAttribute(const void *value,
				       CUpointer_attribute attribute,
				       CUdeviceptr ptr);
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
					CUpointer_attribute *attributes,
					void **data, CUdeviceptr ptr);

/* Stream-ordered allocator and memory pools. */
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps);
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool);
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
				       void *value);
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
				       void *value);
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep);
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map,
				    size_t count);
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool,
				    CUmemLocation *location);
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize,
					 CUmemoryPool pool, CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev);
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool);
CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
					CUmemAllocationType type);
CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
				 CUmemAllocationType type);
CUresult CUDAAPI cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type,
				 CUmemoryPool pool);
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
						  CUmemAllocationHandleType handleType,
						  unsigned long long flags);
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
						    CUmemAllocationHandleType handleType,
						    unsigned long long flags);
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out,
					CUdeviceptr ptr);
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
					CUmemPoolPtrExportData *shareData);

/* Logical endpoints (CUDA 13.3): ids are per process. */
CUresult CUDAAPI cuLogicalEndpointIdReserve(CUlogicalEndpointId *baseLeId,
					    cuuint32_t count);
CUresult CUDAAPI cuLogicalEndpointIdRelease(CUlogicalEndpointId baseLeId,
					    cuuint32_t count);
CUresult CUDAAPI cuLogicalEndpointGetLimits(cuuint64_t *bindAlignment,
					    cuuint64_t *maxSize,
					    const CUlogicalEndpointProp *prop);
CUresult CUDAAPI cuLogicalEndpointCreate(CUlogicalEndpointId leId,
					 const CUlogicalEndpointProp *prop);
CUresult CUDAAPI cuLogicalEndpointDestroy(CUlogicalEndpointId leId);
CUresult CUDAAPI cuLogicalEndpointAddDevice(CUlogicalEndpointId leId,
					    CUdevice dev);
CUresult CUDAAPI cuLogicalEndpointQuery(CUlogicalEndpointId leId,
					cuuint32_t count, int *queryStatus);
CUresult CUDAAPI cuLogicalEndpointBindMem(CUlogicalEndpointId leId, CUdevice dev,
					  cuuint64_t offset,
					  CUmemGenericAllocationHandle memHandle,
					  cuuint64_t memOffset, cuuint64_t size,
					  unsigned long long flags);
CUresult CUDAAPI cuLogicalEndpointBindAddr(CUlogicalEndpointId leId, CUdevice dev,
					   cuuint64_t offset, void *ptr,
					   cuuint64_t size,
					   unsigned long long flags);
CUresult CUDAAPI cuLogicalEndpointUnbind(CUlogicalEndpointId leId, CUdevice dev,
					 cuuint64_t offset, cuuint64_t size);
CUresult CUDAAPI cuLogicalEndpointExport(void *handle, CUlogicalEndpointId leId,
					 CUlogicalEndpointIpcHandleType handleType);
CUresult CUDAAPI cuLogicalEndpointImport(CUlogicalEndpointId leId,
					 const void *handle,
					 CUlogicalEndpointIpcHandleType handleType);

/* Fabric cliques of a device (CUDA 13.3). */
CUresult CUDAAPI cuDeviceGetCliqueCount(size_t *count, CUdevice dev);
CUresult CUDAAPI cuDeviceGetCliqueInfo(CUcliqueInfo *info, size_t *count,
				       CUdevice dev);
CUresult CUDAAPI cuDeviceGetFabricClusterUuid(CUuuid *uuid, CUdevice dev);
/* Multicast objects: the handle is a CUmemGenericAllocationHandle. */
CUresult CUDAAPI cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle,
				   const CUmulticastObjectProp *prop);
CUresult CUDAAPI cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle,
				      CUdevice dev);
CUresult CUDAAPI cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle,
				    size_t mcOffset,
				    CUmemGenericAllocationHandle memHandle,
				    size_t memOffset, size_t size,
				    unsigned long long flags);
CUresult CUDAAPI cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle,
				     size_t mcOffset, CUdeviceptr memptr,
				     size_t size, unsigned long long flags);
CUresult CUDAAPI cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle,
				   CUdevice dev, size_t mcOffset, size_t size);
CUresult CUDAAPI cuMulticastGetGranularity(size_t *granularity,
					   const CUmulticastObjectProp *prop,
					   CUmulticastGranularity_flags option);

#ifdef __cplusplus
}
#endif

#endif /* __cuda_cuda_h__ */
