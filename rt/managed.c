// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Managed memory: cudaMallocManaged, stream attachment, prefetch and
 * advice in their CUDA 13 forms (a cudaMemLocation, not a device ordinal)
 * and range attributes. cudaStreamAttachMemAsync and cudaMemPrefetchAsync
 * are compiled twice (internal.h). The cudaMemAttach* flags, the
 * cudaMemoryAdvise and cudaMemRangeAttribute values are the driver's.
 */
#include "internal.h"

_Static_assert((int)cudaMemAttachSingle == (int)CU_MEM_ATTACH_SINGLE,
	       "cudaMemAttach flags");
_Static_assert((int)cudaMemAdviseUnsetAccessedBy == (int)CU_MEM_ADVISE_UNSET_ACCESSED_BY,
	       "cudaMemoryAdvise");

RT_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream,
					       void *devPtr, size_t length,
					       unsigned int flags)
{
	return RT_CALL(cuStreamAttachMemAsync(stream, rt_dptr(devPtr), length, flags));
}

static CUmemLocation rt_location(struct cudaMemLocation l)
{
	CUmemLocation c = {
		.type = (CUmemLocationType)l.type,
		.id = l.id,
	};

	return c;
}

RT_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
					   struct cudaMemLocation location,
					   unsigned int flags,
					   cudaStream_t stream)
{
	return RT_CALL(cuMemPrefetchAsync(rt_dptr(devPtr), count, rt_location(location),
					  flags, stream));
}

#ifdef RT_ONCE
RT_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size,
					unsigned int flags)
{
	return RT_CALL(cuMemAllocManaged((CUdeviceptr *)devPtr, size, flags));
}

RT_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
				    enum cudaMemoryAdvise advice,
				    struct cudaMemLocation location)
{
	return RT_CALL(cuMemAdvise(rt_dptr(devPtr), count, (CUmem_advise)advice,
				   rt_location(location)));
}

RT_EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
					       enum cudaMemRangeAttribute attribute,
					       const void *devPtr, size_t count)
{
	return RT_CALL(cuMemRangeGetAttribute(data, dataSize,
					      (CUmem_range_attribute)attribute,
					      rt_dptr(devPtr), count));
}

RT_EXPORT cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
						enum cudaMemRangeAttribute *attributes,
						size_t numAttributes,
						const void *devPtr, size_t count)
{
	return RT_CALL(cuMemRangeGetAttributes(data, dataSizes,
					       (CUmem_range_attribute *)attributes,
					       numAttributes, rt_dptr(devPtr), count));
}
#endif
