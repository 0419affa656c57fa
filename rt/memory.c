// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Device and pinned host memory: allocation, pitch, device pointers of
 * host memory and the attributes of a pointer.
 *
 * cufab has unified addressing: cuMemHostAlloc memory and memory
 * cudaHostRegister registers are page-locked, portable to every context
 * and mapped at the same address on every device, which is what the
 * Portable and Mapped flags ask for; the flags are kept for
 * cudaHostGetFlags.
 */
#include <string.h>

#include "internal.h"

RT_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	CUdeviceptr p = 0;
	CUresult res;

	if (!devPtr)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	/* a zero size succeeds with NULL, as in NVIDIA's runtime */
	if (res == CUDA_SUCCESS && size)
		res = cuMemAlloc(&p, size);
	if (res == CUDA_SUCCESS)
		*devPtr = (void *)(uintptr_t)p;
	return rt_result(res);
}

/* cudaFree(NULL) only initialises: the usual way to create the context. */
RT_EXPORT cudaError_t cudaFree(void *devPtr)
{
	return RT_CALL(devPtr ? cuMemFree(rt_dptr(devPtr)) : CUDA_SUCCESS);
}

RT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	CUresult res;

	if (!ptr)
		return rt_error(cudaErrorInvalidValue);
	*ptr = NULL;
	res = rt_init();
	if (res == CUDA_SUCCESS && size)
		res = cuMemAllocHost(ptr, size);
	return rt_result(res);
}

/*
 * cuMemHostAlloc with the same flags (their values are the driver's).
 * WriteCombined is a caching hint cufab's host memory cannot take; the
 * memory is ordinary cached memory (Documentation/differences.rst).
 */
RT_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size,
				    unsigned int flags)
{
	CUresult res;

	if (flags & ~(unsigned int)(cudaHostAllocPortable | cudaHostAllocMapped |
				    cudaHostAllocWriteCombined)) {
		rt_log("%s: flags %#x: only Portable, Mapped and WriteCombined exist",
		       __func__, flags);
		return rt_error(cudaErrorInvalidValue);
	}
	if (!pHost)
		return rt_error(cudaErrorInvalidValue);
	*pHost = NULL;
	res = rt_init();
	if (res == CUDA_SUCCESS && size)
		res = cuMemHostAlloc(pHost, size, flags);
	return rt_result(res);
}

/* The flags cudaHostAlloc was given; InvalidValue for other memory. */
RT_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
	if (!pFlags || !pHost)
		return rt_error(cudaErrorInvalidValue);
	return RT_CALL(cuMemHostGetFlags(pFlags, pHost));
}

/*
 * cuMemHostRegister: the flags' values are the driver's
 * (cudaHostRegisterPortable, Mapped, IoMemory, ReadOnly).
 */
RT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size,
				       unsigned int flags)
{
	if (!ptr || !size ||
	    (flags & ~(unsigned int)(cudaHostRegisterPortable |
				     cudaHostRegisterMapped |
				     cudaHostRegisterIoMemory |
				     cudaHostRegisterReadOnly))) {
		rt_log("%s: %p, %zu bytes, flags %#x: a NULL pointer, no bytes or an unknown flag",
		       __func__, ptr, size, flags);
		return rt_error(cudaErrorInvalidValue);
	}
	return RT_CALL(cuMemHostRegister(ptr, size, flags));
}

RT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
	if (!ptr)
		return rt_error(cudaErrorInvalidValue);
	return RT_CALL(cuMemHostUnregister(ptr));
}

RT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
	return RT_CALL(ptr ? cuMemFreeHost(ptr) : CUDA_SUCCESS);
}

/*
 * The device address of pinned host memory (cudaHostAlloc'd or
 * registered): the same address (UVA).
 */
RT_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
					       unsigned int flags)
{
	CUdeviceptr d = 0;
	CUresult res;

	if (!pDevice || !pHost || flags)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	if (res == CUDA_SUCCESS)
		res = cuMemHostGetDevicePointer(&d, pHost, 0);
	if (res == CUDA_SUCCESS)
		*pDevice = (void *)(uintptr_t)d;
	return rt_result(res);
}

/*
 * Rows start at multiples of the device's texture pitch alignment, which
 * is what a pitched allocation is for; libcufab has no cuMemAllocPitch,
 * so the runtime lays the rows out itself in one cuMemAlloc.
 */
RT_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch,
				      size_t width, size_t height)
{
	CUdeviceptr p = 0;
	int align = 0;
	CUresult res;
	size_t w;

	if (!devPtr || !pitch)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetAttribute(&align,
					   CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
					   rt_current_device());
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	if (align <= 0)
		align = 512;
	w = (width + (size_t)align - 1) / (size_t)align * (size_t)align;
	if (w < width || (height && w > SIZE_MAX / height))
		return rt_error(cudaErrorInvalidValue);
	if (w && height)
		res = cuMemAlloc(&p, w * height);
	if (res == CUDA_SUCCESS) {
		*devPtr = (void *)(uintptr_t)p;
		*pitch = w;
	}
	return rt_result(res);
}

/*
 * Memory cufab does not know is cudaMemoryTypeUnregistered with no device
 * pointer, as CUDA 11 and later report ordinary host memory.
 */
RT_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
					       const void *ptr)
{
	CUpointer_attribute which[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
		CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
		CU_POINTER_ATTRIBUTE_IS_MANAGED,
	};
	unsigned int type = 0;
	int ordinal = -2, managed = 0;
	void *dptr = NULL, *hptr = NULL;
	void *data[] = { &type, &ordinal, &dptr, &managed };
	CUresult res;

	if (!attributes)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	if (res == CUDA_SUCCESS)
		res = cuPointerGetAttributes(RT_ARRAY_SIZE(which), which, data,
					     rt_dptr(ptr));
	/* only host and managed memory have a host pointer */
	if (res == CUDA_SUCCESS && (managed || type == CU_MEMORYTYPE_HOST))
		res = cuPointerGetAttribute(&hptr, CU_POINTER_ATTRIBUTE_HOST_POINTER,
					    rt_dptr(ptr));
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	memset(attributes, 0, sizeof(*attributes));
	if (managed)
		attributes->type = cudaMemoryTypeManaged;
	else if (type == CU_MEMORYTYPE_DEVICE)
		attributes->type = cudaMemoryTypeDevice;
	else if (type == CU_MEMORYTYPE_HOST)
		attributes->type = cudaMemoryTypeHost;
	else
		attributes->type = cudaMemoryTypeUnregistered;
	if (attributes->type == cudaMemoryTypeUnregistered) {
		attributes->device = cudaInvalidDeviceId;
		attributes->hostPointer = (void *)ptr;
		return cudaSuccess;
	}
	attributes->device = ordinal;
	attributes->devicePointer = dptr;
	attributes->hostPointer = hptr;
	return cudaSuccess;
}
