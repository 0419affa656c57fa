// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The stream-ordered allocator: cudaMemPool* and cudaMallocAsync,
 * cudaMallocFromPoolAsync, cudaFreeAsync (these three compiled twice,
 * internal.h). The rules of the cudaMemPoolCreate page are the driver's
 * (lib/pool.c); the runtime adds its device-ordinal checks.
 *
 * cudaMemPoolProps, cudaMemLocation, cudaMemAccessDesc and
 * cudaMemPoolPtrExportData have the layouts of their driver twins, and
 * cudaMemPoolAttr, cudaMemAllocationHandleType and cudaMemAccessFlags
 * their values: the asserts below hold the two headers to it.
 */
#include <stddef.h>

#include "internal.h"

#define RT_SAME_LAYOUT(rt, cu)						\
	_Static_assert(sizeof(rt) == sizeof(cu), #rt " differs from " #cu)

RT_SAME_LAYOUT(struct cudaMemPoolProps, CUmemPoolProps);
RT_SAME_LAYOUT(struct cudaMemLocation, CUmemLocation);
RT_SAME_LAYOUT(struct cudaMemAccessDesc, CUmemAccessDesc);
RT_SAME_LAYOUT(struct cudaMemPoolPtrExportData, CUmemPoolPtrExportData);
_Static_assert(offsetof(struct cudaMemPoolProps, maxSize) ==
	       offsetof(CUmemPoolProps, maxSize), "cudaMemPoolProps.maxSize");
_Static_assert(offsetof(struct cudaMemPoolProps, usage) ==
	       offsetof(CUmemPoolProps, usage), "cudaMemPoolProps.usage");
_Static_assert((int)cudaMemPoolAttrUsedMemHigh == (int)CU_MEMPOOL_ATTR_USED_MEM_HIGH,
	       "cudaMemPoolAttr");
_Static_assert((int)cudaMemHandleTypeFabric == (int)CU_MEM_HANDLE_TYPE_FABRIC,
	       "cudaMemAllocationHandleType");

RT_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size,
				      cudaStream_t hStream)
{
	return RT_CALL(cuMemAllocAsync((CUdeviceptr *)devPtr, size, hStream));
}

RT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size,
					      cudaMemPool_t memPool,
					      cudaStream_t stream)
{
	return RT_CALL(cuMemAllocFromPoolAsync((CUdeviceptr *)ptr, size, memPool,
					       stream));
}

RT_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
	return RT_CALL(cuMemFreeAsync(rt_dptr(devPtr), hStream));
}

#ifdef RT_ONCE
RT_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
					const struct cudaMemPoolProps *poolProps)
{
	return RT_CALL(cuMemPoolCreate(memPool, (const CUmemPoolProps *)poolProps));
}

RT_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
	return RT_CALL(cuMemPoolDestroy(memPool));
}

RT_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool,
					size_t minBytesToKeep)
{
	return RT_CALL(cuMemPoolTrimTo(memPool, minBytesToKeep));
}

RT_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool,
					      enum cudaMemPoolAttr attr,
					      void *value)
{
	return RT_CALL(cuMemPoolSetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

RT_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool,
					      enum cudaMemPoolAttr attr,
					      void *value)
{
	return RT_CALL(cuMemPoolGetAttribute(memPool, (CUmemPool_attribute)attr, value));
}

RT_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
					   const struct cudaMemAccessDesc *descList,
					   size_t count)
{
	return RT_CALL(cuMemPoolSetAccess(memPool, (const CUmemAccessDesc *)descList,
					  count));
}

RT_EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags,
					   cudaMemPool_t memPool,
					   struct cudaMemLocation *location)
{
	return RT_CALL(cuMemPoolGetAccess((CUmemAccess_flags *)flags, memPool,
					  (CUmemLocation *)location));
}

RT_EXPORT cudaError_t
cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
				   enum cudaMemAllocationHandleType handleType,
				   unsigned int flags)
{
	return RT_CALL(cuMemPoolExportToShareableHandle(shareableHandle, memPool,
							(CUmemAllocationHandleType)handleType,
							flags));
}

RT_EXPORT cudaError_t
cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle,
				     enum cudaMemAllocationHandleType handleType,
				     unsigned int flags)
{
	return RT_CALL(cuMemPoolImportFromShareableHandle(memPool, shareableHandle,
							  (CUmemAllocationHandleType)handleType,
							  flags));
}

RT_EXPORT cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData,
					       void *ptr)
{
	return RT_CALL(cuMemPoolExportPointer((CUmemPoolPtrExportData *)exportData,
					      rt_dptr(ptr)));
}

RT_EXPORT cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool,
					       struct cudaMemPoolPtrExportData *exportData)
{
	return RT_CALL(cuMemPoolImportPointer((CUdeviceptr *)ptr, memPool,
					      (CUmemPoolPtrExportData *)exportData));
}

/* The runtime names devices by ordinal and reports a bad one as such. */
RT_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool,
						  int device)
{
	return RT_CALL(rt_device_check(device) ?:
		       cuDeviceGetDefaultMemPool(memPool, device));
}

RT_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
	return RT_CALL(rt_device_check(device) ?: cuDeviceGetMemPool(memPool, device));
}

RT_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
	return RT_CALL(rt_device_check(device) ?: cuDeviceSetMemPool(device, memPool));
}

RT_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
					       struct cudaMemLocation *location,
					       enum cudaMemAllocationType type)
{
	return RT_CALL(cuMemGetDefaultMemPool(memPool, (CUmemLocation *)location,
					      (CUmemAllocationType)type));
}

RT_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool,
					struct cudaMemLocation *location,
					enum cudaMemAllocationType type)
{
	return RT_CALL(cuMemGetMemPool(memPool, (CUmemLocation *)location,
				       (CUmemAllocationType)type));
}

RT_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location,
					enum cudaMemAllocationType type,
					cudaMemPool_t memPool)
{
	return RT_CALL(cuMemSetMemPool((CUmemLocation *)location,
				       (CUmemAllocationType)type, memPool));
}
#endif
