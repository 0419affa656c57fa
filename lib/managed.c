// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Managed memory: cuMemAllocManaged, cuMemAdvise (and its CUDA 8.0 form),
 * cuMemPrefetchAsync (and its CUDA 8.0 form), cuMemRangeGetAttribute(s).
 *
 * The kernel owns the allocation (a linear allocation: cuMemFree frees
 * it, cuCtxDestroy of its context too), the advice and the placement of
 * its pages; these calls translate devices and locations between CUdevice
 * ordinals and kernel indexes and format the answers. One ioctl each.
 *
 * A range the kernel does not know as managed memory may be pageable
 * memory, which pageable.c handles on a node whose GPUs can access it.
 *
 * cuStreamAttachMemAsync and cuMemPrefetchAsync are stream operations
 * (CUFAB_OP_ATTACH, CUFAB_OP_PREFETCH): the association changes, and the
 * prefetch records its location and moves the pages, when the stream
 * reaches them. The stream's device must have concurrent managed access
 * for a prefetch.
 */
#include <errno.h>
#include <string.h>

#include "compat.h"
#include "mem.h"
#include "stream.h"

CUFAB_EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr,
						size_t bytesize,
						unsigned int flags)
{
	return cufab_linear_alloc(dptr, bytesize, CUFAB_MEM_ALLOC_MANAGED,
				  flags);
}

/*
 * A CUmemLocation for the kernel. Only DEVICE ids are translated (a bad
 * ordinal is CUDA_ERROR_INVALID_DEVICE); the kernel judges the rest.
 */
static CUresult loc_to_kernel(CUmemLocation loc, __u32 *type, __s32 *id)
{
	return cufab_location_to_kernel(&loc, type, id);
}

/* The CUDA 8.0 calls name a device, or the host as CU_DEVICE_CPU. */
static CUmemLocation device_location(CUdevice dev)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev };

	if (dev == CU_DEVICE_CPU) {
		loc.type = CU_MEM_LOCATION_TYPE_HOST;
		loc.id = 0;
	}
	return loc;
}

/* Advice that reads its location. */
static int advice_has_location(CUmem_advise advice)
{
	return advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
	       advice == CU_MEM_ADVISE_SET_ACCESSED_BY ||
	       advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count,
					     CUmem_advise advice,
					     CUmemLocation location)
{
	struct cufab_mem_advise arg = {
		.size = sizeof(arg), .advice = (__u32)advice, .addr = devPtr,
		.length = count,
	};
	CUresult res;
	int ret;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	if (advice_has_location(advice)) {
		res = loc_to_kernel(location, &arg.location_type,
				    &arg.location_id);
		if (res != CUDA_SUCCESS)
			return res;
	}
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_ADVISE, &arg);
	/* not managed memory: pageable memory, perhaps */
	if (ret == -EINVAL)
		return cufab_pageable_advise(devPtr, count, arg.advice,
					     arg.location_type,
					     arg.location_id);
	return cufab_mem_result(-ret);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count,
					  CUmem_advise advice, CUdevice device)
{
	return cuMemAdvise_v2(devPtr, count, advice, device_location(device));
}

/*
 * A stream operation (CUFAB_OP_PREFETCH): the kernel checks it now and
 * runs it when the stream reaches it.
 */
static CUresult prefetch(CUdeviceptr devPtr, size_t count,
			 CUmemLocation location, unsigned int flags,
			 CUstream hStream, int per_thread)
{
	struct cufab_stream_submit arg = {
		.op = CUFAB_OP_PREFETCH, .dst = devPtr, .length = count,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};
	struct cufab_lstream *s;
	__s32 id;
	CUresult res;

	res = cufab_call_args(!flags);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(hStream, per_thread, &s);
	if (res != CUDA_SUCCESS)
		return res;
	res = loc_to_kernel(location, &arg.value, &id);
	if (res != CUDA_SUCCESS)
		return res;
	arg.elem_size = (__u32)id;
	res = cufab_stream_submit(s, &arg);
	/* not managed memory: pageable memory, perhaps */
	if (res == CUDA_ERROR_INVALID_VALUE)
		res = cufab_pageable_prefetch(devPtr, count, arg.value, id,
					      hStream, per_thread, s);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr,
						    size_t count,
						    CUmemLocation location,
						    unsigned int flags,
						    CUstream hStream)
{
	return prefetch(devPtr, count, location, flags, hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr,
							 size_t count,
							 CUmemLocation location,
							 unsigned int flags,
							 CUstream hStream)
{
	return prefetch(devPtr, count, location, flags, hStream, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr,
						 size_t count,
						 CUdevice dstDevice,
						 CUstream hStream)
{
	return cuMemPrefetchAsync_v2(devPtr, count, device_location(dstDevice),
				     0, hStream);
}

/* Bytes an attribute writes (0: unknown); ACCESSED_BY any multiple of 4. */
static size_t range_attr_size(CUmem_range_attribute attr)
{
	switch (attr) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
		return 4;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		return sizeof(CUmemLocationType);
	default:
		return 0;
	}
}

static int range_attr_ok(const void *data, size_t size,
			 CUmem_range_attribute attr)
{
	size_t want = range_attr_size(attr);

	if (!data || !want)
		return 0;
	if (attr == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY)
		return size && size % 4 == 0;
	return size == want;
}

/* A kernel location as the CUDA 8.0 attributes report it. */
static int attr_location(__u32 type, __s32 id)
{
	int ord;

	switch (type) {
	case CUFAB_LOC_DEVICE:
		ord = cufab_ordinal(id);
		return ord >= 0 ? ord : CU_DEVICE_INVALID;
	case CUFAB_LOC_HOST:
	case CUFAB_LOC_HOST_NUMA:
		return CU_DEVICE_CPU;
	default:
		return CU_DEVICE_INVALID;
	}
}

/* The id of a location: an ordinal for a GPU, the NUMA node, or -1. */
static int location_id(__u32 type, __s32 id)
{
	return type == CUFAB_LOC_DEVICE ? cufab_ordinal(id) : id;
}

/* The devices accessed-by on the whole range, then CU_DEVICE_INVALID. */
static void accessed_by_fill(int *out, size_t n,
			     const struct cufab_mem_range_attrs *a)
{
	size_t k = 0;
	int dev;

	for (dev = 0; dev < cufab.num_dev && k < n; dev++)
		if (a->out_accessed_by & (1ULL << cufab.visible[dev]))
			out[k++] = dev;
	if (a->out_accessed_by_host && k < n)
		out[k++] = CU_DEVICE_CPU;
	while (k < n)
		out[k++] = CU_DEVICE_INVALID;
}

static void range_attr_write(void *data, size_t size,
			     CUmem_range_attribute attr,
			     const struct cufab_mem_range_attrs *a)
{
	int *out = data;

	switch (attr) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
		*out = (int)a->out_read_mostly;
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
		*out = attr_location(a->out_preferred_type,
				     a->out_preferred_id);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
		accessed_by_fill(out, size / 4, a);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
		*out = attr_location(a->out_prefetch_type,
				     a->out_prefetch_id);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
		*(CUmemLocationType *)data = a->out_preferred_type;
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
		*out = location_id(a->out_preferred_type, a->out_preferred_id);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		*(CUmemLocationType *)data = a->out_prefetch_type;
		break;
	default:	/* LAST_PREFETCH_LOCATION_ID */
		*out = location_id(a->out_prefetch_type, a->out_prefetch_id);
		break;
	}
}

static CUresult range_attrs(CUdeviceptr ptr, size_t count,
			    struct cufab_mem_range_attrs *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->addr = ptr;
	a->length = count;
	a->node = -1;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_RANGE_ATTRS, a);
	/* not managed memory: pageable memory, perhaps */
	if (ret == -EINVAL)
		return cufab_pageable_range_attrs(ptr, count, a);
	return cufab_mem_result(-ret);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemRangeGetAttribute(void *data,
						     size_t dataSize,
						     CUmem_range_attribute attribute,
						     CUdeviceptr devPtr,
						     size_t count)
{
	struct cufab_mem_range_attrs a;
	CUresult res;

	res = cufab_call_args(range_attr_ok(data, dataSize, attribute));
	if (res != CUDA_SUCCESS)
		return res;
	res = range_attrs(devPtr, count, &a);
	if (res == CUDA_SUCCESS)
		range_attr_write(data, dataSize, attribute, &a);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemRangeGetAttributes(void **data,
						      size_t *dataSizes,
						      CUmem_range_attribute *attributes,
						      size_t numAttributes,
						      CUdeviceptr devPtr,
						      size_t count)
{
	struct cufab_mem_range_attrs a;
	CUcontext ctx;
	CUresult res;
	size_t i;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = cuCtxGetCurrent(&ctx);
	if (res != CUDA_SUCCESS)
		return res;
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!data || !dataSizes || !attributes || !numAttributes)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < numAttributes; i++)
		if (!range_attr_ok(data[i], dataSizes[i], attributes[i]))
			return CUDA_ERROR_INVALID_VALUE;
	res = range_attrs(devPtr, count, &a);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < numAttributes; i++)
		range_attr_write(data[i], dataSizes[i], attributes[i], &a);
	return CUDA_SUCCESS;
}

/*
 * flags must be exactly one CUmemAttach_flags value: 0 included, anything
 * else is CUDA_ERROR_INVALID_VALUE (NVIDIA's driver crashes on 0). SINGLE
 * cannot go to the NULL stream, a virtual global stream; the legacy and
 * per-thread streams are real ones. The kernel checks the memory.
 */
static CUresult attach(CUstream hStream, CUdeviceptr dptr, size_t length,
		       unsigned int flags, int per_thread)
{
	struct cufab_stream_submit arg = {
		.op = CUFAB_OP_ATTACH, .dst = dptr, .length = length,
		.value = flags, .src_dev = CUFAB_DEV_STREAM,
		.dst_dev = CUFAB_DEV_STREAM,
	};
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_call_args(flags == CU_MEM_ATTACH_GLOBAL ||
			      flags == CU_MEM_ATTACH_HOST ||
			      flags == CU_MEM_ATTACH_SINGLE);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags == CU_MEM_ATTACH_SINGLE && !hStream && !per_thread)
		return CUDA_ERROR_INVALID_VALUE;
	res = cufab_stream_resolve(hStream, per_thread, &s);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_stream_submit(s, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream,
						     CUdeviceptr dptr,
						     size_t length,
						     unsigned int flags)
{
	return attach(hStream, dptr, length, flags, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream hStream,
							  CUdeviceptr dptr,
							  size_t length,
							  unsigned int flags)
{
	return attach(hStream, dptr, length, flags, 1);
}
