// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Linear memory: cuMemAlloc/cuMemFree, cuMemAllocHost/cuMemFreeHost,
 * synchronous copies and memsets, cuMemGetAddressRange; the allocation
 * and freeing of managed memory (managed.c) go the same way.
 *
 * These calls work in the current context, as in CUDA: without one they
 * return CUDA_ERROR_INVALID_CONTEXT, and the context's device is the one
 * that allocates, copies or sets (the kernel checks that device's access
 * to every cufab range touched). One ioctl each.
 *
 * The kernel ties each allocation to the context current at cuMemAlloc
 * (its kernel id), frees it when that context is destroyed, as CUDA
 * does, and reports it for CU_POINTER_ATTRIBUTE_CONTEXT
 * (struct cufab_pointer_info's out_ctx_id): the library keeps no copy.
 */

#include "mem.h"
#include "pool.h"
#include "stream.h"

/* @request under a current context, its errno as a memory CUresult. */
static CUresult current_ioctl(unsigned long request, void *arg)
{
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, 1);

	if (res != CUDA_SUCCESS)
		return res;
	return cufab_mem_result(-cufab_ioctl(request, arg));
}

CUresult cufab_linear_alloc(CUdeviceptr *out, size_t bytesize, __u32 flags,
			    __u32 attach)
{
	return cufab_linear_alloc_host(out, bytesize, flags, attach, 0);
}

CUresult cufab_linear_alloc_host(CUdeviceptr *out, size_t bytesize,
				 __u32 flags, __u32 attach, __u32 host_flags)
{
	struct cufab_mem_alloc arg = {
		.size = sizeof(arg), .flags = flags, .attach = attach,
		.length = bytesize, .host_flags = host_flags,
	};
	struct cufab_call c;
	CUresult res;
	int ret;

	res = cufab_call_ctx_rule(&c, !!out,
				  "the pointer for the address (dptr or pp) is not NULL");
	if (res != CUDA_SUCCESS)
		return res;
	if (bytesize == 0) {
		cufab_dbg("refused: bytesize 0: an allocation has a size");
		return CUDA_ERROR_INVALID_VALUE;
	}
	arg.dev = c.d->index;
	/* cuCtxDestroy of this context frees the allocation */
	arg.ctx_id = c.ctx_kid;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_ALLOC, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*out = arg.out_addr;
	return CUDA_SUCCESS;
}

static CUresult mem_free(CUdeviceptr addr, __u32 flags)
{
	struct cufab_mem_free arg = {
		.size = sizeof(arg), .flags = flags, .addr = addr,
	};

	return current_ioctl(CUFAB_IOCTL_MEM_FREE, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	/* not stream ordered: a capture would not see it */
	CUresult res = cufab_capture_unsafe("cuMemAlloc");

	return res ?: cufab_linear_alloc(dptr, bytesize, 0, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	struct cufab_mem_free arg = { .size = sizeof(arg), .addr = dptr };
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, 1);

	if (res == CUDA_SUCCESS)
		res = cufab_capture_unsafe("cuMemFree");
	if (res != CUDA_SUCCESS)
		return res;
	/* as driver 580: a pointer cuMemPoolImportPointer gave is freed too */
	if (cufab_pool_free_imported(dptr))
		return CUDA_SUCCESS;
	return cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_MEM_FREE, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	CUdeviceptr p;
	CUresult res;

	res = cufab_call_args(!!pp);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_linear_alloc(&p, bytesize, CUFAB_MEM_ALLOC_HOST,
				 0);
	if (res == CUDA_SUCCESS)
		*pp = (void *)(uintptr_t)p;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
	return mem_free((uintptr_t)p, CUFAB_MEM_ALLOC_HOST);
}

/*
 * The device address of page-locked host memory: with unified addressing
 * the host address itself, for memory cuMemAllocHost or cuMemHostAlloc
 * made or cuMemHostRegister registered (any address inside it), with or
 * without their DEVICEMAP flag (unified addressing maps all of it); Flags
 * must be 0. Anything else is INVALID_VALUE.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr,
							   void *p,
							   unsigned int Flags)
{
	struct cufab_pointer_info info = {
		.size = sizeof(info), .addr = (uintptr_t)p,
	};
	const __u32 want = CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED;
	struct cufab_call c;
	CUresult res;

	res = cufab_call_ctx(&c, pdptr && p && !Flags);
	if (res != CUDA_SUCCESS)
		return res;
	if (cufab_ioctl(CUFAB_IOCTL_POINTER_INFO, &info) ||
	    (info.out_flags & (want | CUFAB_PTR_F_MANAGED)) != want ||
	    !(info.out_flags & (CUFAB_PTR_F_LINEAR | CUFAB_PTR_F_HOSTREG)) ||
	    info.out_memory_type != CU_MEMORYTYPE_HOST) {
		cufab_dbg("refused: %p: not page-locked host memory (cuMemAllocHost, cuMemHostAlloc, cuMemHostRegister)",
			  p);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*pdptr = (uintptr_t)p;
	return CUDA_SUCCESS;
}

/* Copies: with unified addressing every direction is the same copy. */
static CUresult mem_copy(CUdeviceptr dst, CUdeviceptr src, size_t count)
{
	struct cufab_mem_copy arg = {
		.size = sizeof(arg), .dst = dst, .src = src, .length = count,
	};
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, 1);

	if (res != CUDA_SUCCESS)
		return res;
	arg.dev = c.d->index;
	return cufab_copy_result(-cufab_ioctl(CUFAB_IOCTL_MEM_COPY, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src,
				       size_t ByteCount)
{
	return mem_copy(dst, src, ByteCount);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice,
					      const void *srcHost,
					      size_t ByteCount)
{
	return mem_copy(dstDevice, (uintptr_t)srcHost, ByteCount);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost,
					      CUdeviceptr srcDevice,
					      size_t ByteCount)
{
	return mem_copy((uintptr_t)dstHost, srcDevice, ByteCount);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice,
					      CUdeviceptr srcDevice,
					      size_t ByteCount)
{
	return mem_copy(dstDevice, srcDevice, ByteCount);
}

static CUresult mem_set(CUdeviceptr dst, __u32 value, __u32 elem_size,
			size_t n)
{
	struct cufab_mem_set arg = {
		.size = sizeof(arg), .elem_size = elem_size, .dst = dst,
		.count = n, .value = value,
	};
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, 1);

	if (res != CUDA_SUCCESS)
		return res;
	arg.dev = c.d->index;
	return cufab_copy_result(-cufab_ioctl(CUFAB_IOCTL_MEM_SET, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice,
					    unsigned char uc, size_t N)
{
	return mem_set(dstDevice, uc, 1, N);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice,
					     unsigned short us, size_t N)
{
	return mem_set(dstDevice, us, 2, N);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice,
					     unsigned int ui, size_t N)
{
	return mem_set(dstDevice, ui, 4, N);
}

/*
 * The allocation (cuMemAlloc, cuMemAllocHost) or mapping (cuMemMap) that
 * contains dptr; anything else is CUDA_ERROR_NOT_FOUND.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase,
						      size_t *psize,
						      CUdeviceptr dptr)
{
	struct cufab_pointer_info arg = { .size = sizeof(arg), .addr = dptr };
	CUresult res;

	res = current_ioctl(CUFAB_IOCTL_POINTER_INFO, &arg);
	if (res != CUDA_SUCCESS)
		return res;
	/* registered memory is the process's, no allocation of CUDA */
	if (!(arg.out_flags & CUFAB_PTR_F_MAPPED) ||
	    (arg.out_flags & CUFAB_PTR_F_HOSTREG))
		return CUDA_ERROR_NOT_FOUND;
	if (pbase)
		*pbase = arg.out_range_base;
	if (psize)
		*psize = arg.out_range_length;
	return CUDA_SUCCESS;
}

/*
 * The synchronous copies and sets of a per-thread build: ordered after the
 * calling thread's default stream (when it has one) instead of the
 * legacy stream, then as above.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src,
					    size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemcpy(dst, src, n) : res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dst,
						   const void *src, size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemcpyHtoD_v2(dst, src, n) : res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src,
						   size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemcpyDtoH_v2(dst, src, n) : res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dst,
						   CUdeviceptr src, size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemcpyDtoD_v2(dst, src, n) : res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dst,
						 unsigned char v, size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemsetD8_v2(dst, v, n) : res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dst,
						  unsigned short v, size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemsetD16_v2(dst, v, n) : res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dst,
						  unsigned int v, size_t n)
{
	CUresult res = cufab_stream_pt_drain();

	return res == CUDA_SUCCESS ? cuMemsetD32_v2(dst, v, n) : res;
}
