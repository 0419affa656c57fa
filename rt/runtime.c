// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libcufabrt: the CUDA runtime API calls a program needs around the
 * stream-ordered allocator, on top of libcufab's driver API. Its exports
 * are ABI-compatible with NVIDIA's cuda_runtime_api.h for these calls
 * (selftests/rt/rt_test builds against that header and links this).
 *
 * Like NVIDIA's runtime: the first call initializes the driver and makes
 * the current device's primary context current on the calling thread
 * (cudaFree(0) is the usual way to force it); each thread has a current
 * device (0 until cudaSetDevice) and a last error, which every failing
 * call records, cudaGetLastError returns and resets, and
 * cudaPeekAtLastError returns and keeps. No call here can produce one of
 * the runtime's sticky errors (those of a failed kernel launch), so every
 * recorded error is reset by cudaGetLastError.
 *
 * cudaError_t values equal the CUresult values of the same condition for
 * every code these calls return, so results pass through unchanged.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cufab/cuda.h>

#define RT_EXPORT	__attribute__((visibility("default")))
#define RT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef int cudaError_t;		/* enum cudaError */
typedef CUstream cudaStream_t;
typedef CUmemoryPool cudaMemPool_t;

/*
 * cudaMemPoolProps, cudaMemLocation, cudaMemAccessDesc and
 * cudaMemPoolPtrExportData have the layouts of their driver twins.
 */
typedef CUmemPoolProps rt_pool_props;
typedef CUmemLocation rt_location;
typedef CUmemAccessDesc rt_access_desc;
typedef CUmemPoolPtrExportData rt_ptr_export_data;

enum {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorInvalidDevice = 101,
};

static __thread cudaError_t rt_last_error;
static __thread int rt_device;
static __thread int rt_device_set;	/* the thread's context is current */

static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static CUresult rt_init_result;

static void rt_driver_init(void)
{
	rt_init_result = cuInit(0);
}

static cudaError_t rt_record(CUresult res)
{
	if (res != CUDA_SUCCESS)
		rt_last_error = (cudaError_t)res;
	return (cudaError_t)res;
}

/* The primary context of each device, retained once for the process. */
#define RT_MAX_DEVICES	64
static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext rt_primary[RT_MAX_DEVICES];

/* Make @dev's primary context current on this thread. */
static CUresult rt_activate(int dev)
{
	CUresult res = CUDA_SUCCESS;
	CUcontext ctx;

	if (dev < 0 || dev >= RT_MAX_DEVICES)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&rt_lock);
	if (!rt_primary[dev])
		res = cuDevicePrimaryCtxRetain(&rt_primary[dev], dev);
	ctx = rt_primary[dev];
	pthread_mutex_unlock(&rt_lock);
	if (res == CUDA_SUCCESS)
		res = cuCtxSetCurrent(ctx);
	if (res == CUDA_SUCCESS) {
		rt_device = dev;
		rt_device_set = 1;
	}
	return res;
}

/* Implicit initialization: the driver, then the thread's context. */
static CUresult rt_init(void)
{
	pthread_once(&rt_once, rt_driver_init);
	if (rt_init_result != CUDA_SUCCESS)
		return rt_init_result;
	return rt_device_set ? CUDA_SUCCESS : rt_activate(rt_device);
}

#define RT_CALL(expr)							\
	do {								\
		CUresult __res = rt_init();				\
									\
		if (__res == CUDA_SUCCESS)				\
			__res = (expr);					\
		return rt_record(__res);				\
	} while (0)

/* ---- errors ---- */

RT_EXPORT cudaError_t cudaGetLastError(void)
{
	cudaError_t e = rt_last_error;

	rt_last_error = cudaSuccess;
	return e;
}

RT_EXPORT cudaError_t cudaPeekAtLastError(void)
{
	return rt_last_error;
}

static const struct {
	int code;
	const char *name;
} rt_names[] = {
	{ 0, "cudaSuccess" },
	{ 1, "cudaErrorInvalidValue" },
	{ 2, "cudaErrorMemoryAllocation" },
	{ 3, "cudaErrorInitializationError" },
	{ 4, "cudaErrorCudartUnloading" },
	{ 34, "cudaErrorStubLibrary" },
	{ 35, "cudaErrorInsufficientDriver" },
	{ 46, "cudaErrorDevicesUnavailable" },
	{ 100, "cudaErrorNoDevice" },
	{ 101, "cudaErrorInvalidDevice" },
	{ 201, "cudaErrorDeviceUninitialized" },
	{ 304, "cudaErrorOperatingSystem" },
	{ 400, "cudaErrorInvalidResourceHandle" },
	{ 401, "cudaErrorIllegalState" },
	{ 500, "cudaErrorSymbolNotFound" },
	{ 600, "cudaErrorNotReady" },
	{ 709, "cudaErrorContextIsDestroyed" },
	{ 800, "cudaErrorNotPermitted" },
	{ 801, "cudaErrorNotSupported" },
	{ 802, "cudaErrorSystemNotReady" },
	{ 803, "cudaErrorSystemDriverMismatch" },
	{ 909, "cudaErrorTimeout" },
	{ 999, "cudaErrorUnknown" },
};

RT_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	size_t i;

	for (i = 0; i < RT_ARRAY_SIZE(rt_names); i++)
		if (rt_names[i].code == error)
			return rt_names[i].name;
	return "cudaErrorUnknown";
}

RT_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	const char *s = NULL;

	if (cuGetErrorString((CUresult)error, &s) != CUDA_SUCCESS || !s)
		return "unrecognized error code";
	return s;
}

/* ---- devices ---- */

RT_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
	pthread_once(&rt_once, rt_driver_init);
	if (rt_init_result != CUDA_SUCCESS)
		return rt_record(rt_init_result);
	if (!count)
		return rt_record(CUDA_ERROR_INVALID_VALUE);
	return rt_record(cuDeviceGetCount(count));
}

RT_EXPORT cudaError_t cudaSetDevice(int device)
{
	int n = 0;

	pthread_once(&rt_once, rt_driver_init);
	if (rt_init_result != CUDA_SUCCESS)
		return rt_record(rt_init_result);
	cuDeviceGetCount(&n);
	if (device < 0 || device >= n)
		return rt_record(CUDA_ERROR_INVALID_DEVICE);
	return rt_record(rt_activate(device));
}

RT_EXPORT cudaError_t cudaGetDevice(int *device)
{
	if (!device)
		return rt_record(CUDA_ERROR_INVALID_VALUE);
	RT_CALL((*device = rt_device, CUDA_SUCCESS));
}

RT_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	RT_CALL(cuCtxSynchronize());
}

/* ---- memory ---- */

RT_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	CUdeviceptr p = 0;
	CUresult res;

	if (!devPtr)
		return rt_record(CUDA_ERROR_INVALID_VALUE);
	res = rt_init();
	/* a zero size succeeds with NULL, as in NVIDIA's runtime */
	if (res == CUDA_SUCCESS && size)
		res = cuMemAlloc(&p, size);
	if (res == CUDA_SUCCESS)
		*devPtr = (void *)(uintptr_t)p;
	return rt_record(res);
}

/* cudaFree(NULL) only initializes: the usual way to create the context. */
RT_EXPORT cudaError_t cudaFree(void *devPtr)
{
	RT_CALL(devPtr ? cuMemFree((CUdeviceptr)(uintptr_t)devPtr) :
		CUDA_SUCCESS);
}

/* ---- streams ---- */

RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
						unsigned int flags)
{
	/* cudaStreamDefault and cudaStreamNonBlocking are the driver's flags */
	RT_CALL(cuStreamCreate(pStream, flags));
}

RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return cudaStreamCreateWithFlags(pStream, CU_STREAM_DEFAULT);
}

RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	RT_CALL(cuStreamSynchronize(stream));
}

RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	CUresult res = rt_init();

	if (res == CUDA_SUCCESS)
		res = cuStreamQuery(stream);
	/* cudaErrorNotReady is an answer, not an error: the slot keeps it */
	return res == CUDA_ERROR_NOT_READY ? (cudaError_t)res : rt_record(res);
}

RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	RT_CALL(cuStreamDestroy(stream));
}

/* ---- the stream-ordered allocator ---- */

RT_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
					const rt_pool_props *poolProps)
{
	RT_CALL(cuMemPoolCreate(memPool, poolProps));
}

RT_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
	RT_CALL(cuMemPoolDestroy(memPool));
}

RT_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size,
				      cudaStream_t hStream)
{
	RT_CALL(cuMemAllocAsync((CUdeviceptr *)devPtr, size, hStream));
}

RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size,
					      cudaMemPool_t memPool,
					      cudaStream_t stream)
{
	RT_CALL(cuMemAllocFromPoolAsync((CUdeviceptr *)ptr, size, memPool,
					stream));
}

RT_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
	RT_CALL(cuMemFreeAsync((CUdeviceptr)(uintptr_t)devPtr, hStream));
}

RT_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool,
					size_t minBytesToKeep)
{
	RT_CALL(cuMemPoolTrimTo(memPool, minBytesToKeep));
}

RT_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, int attr,
					      void *value)
{
	RT_CALL(cuMemPoolSetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

RT_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, int attr,
					      void *value)
{
	RT_CALL(cuMemPoolGetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

RT_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
					   const rt_access_desc *descList,
					   size_t count)
{
	RT_CALL(cuMemPoolSetAccess(memPool, descList, count));
}

RT_EXPORT cudaError_t cudaMemPoolGetAccess(int *flags, cudaMemPool_t memPool,
					   rt_location *location)
{
	RT_CALL(cuMemPoolGetAccess((CUmemAccess_flags *)flags, memPool,
				   location));
}

RT_EXPORT cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle,
							 cudaMemPool_t memPool,
							 int handleType,
							 unsigned int flags)
{
	RT_CALL(cuMemPoolExportToShareableHandle(shareableHandle, memPool,
						 (CUmemAllocationHandleType)handleType,
						 flags));
}

RT_EXPORT cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool,
							   void *shareableHandle,
							   int handleType,
							   unsigned int flags)
{
	RT_CALL(cuMemPoolImportFromShareableHandle(memPool, shareableHandle,
						   (CUmemAllocationHandleType)handleType,
						   flags));
}

RT_EXPORT cudaError_t cudaMemPoolExportPointer(rt_ptr_export_data *exportData,
					       void *ptr)
{
	RT_CALL(cuMemPoolExportPointer(exportData, (CUdeviceptr)(uintptr_t)ptr));
}

RT_EXPORT cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool,
					       rt_ptr_export_data *exportData)
{
	RT_CALL(cuMemPoolImportPointer((CUdeviceptr *)ptr, memPool, exportData));
}

/* The runtime names devices by ordinal and reports a bad one as such. */
static CUresult rt_device_ok(int device)
{
	int n = 0;

	cuDeviceGetCount(&n);
	return device >= 0 && device < n ? CUDA_SUCCESS :
	       (CUresult)cudaErrorInvalidDevice;
}

RT_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool,
						  int device)
{
	RT_CALL(rt_device_ok(device) ?: cuDeviceGetDefaultMemPool(memPool, device));
}

RT_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
	RT_CALL(rt_device_ok(device) ?: cuDeviceGetMemPool(memPool, device));
}

RT_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
	RT_CALL(rt_device_ok(device) ?: cuDeviceSetMemPool(device, memPool));
}

RT_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
					       rt_location *location, int type)
{
	RT_CALL(cuMemGetDefaultMemPool(memPool, location, (CUmemAllocationType)type));
}

RT_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool,
					rt_location *location, int type)
{
	RT_CALL(cuMemGetMemPool(memPool, location, (CUmemAllocationType)type));
}

RT_EXPORT cudaError_t cudaMemSetMemPool(rt_location *location, int type,
					cudaMemPool_t memPool)
{
	RT_CALL(cuMemSetMemPool(location, (CUmemAllocationType)type, memPool));
}
