// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Virtual memory management: cuMemCreate and its handles, address
 * reservations, mappings, access, and cuMemGetInfo.
 *
 * Each call is one ioctl (cuMemGetAllocationGranularity none: the
 * granularities came with the device table at cuInit). None needs a
 * current context, as in CUDA. The library checks only what does not fit
 * the uAPI (NULL pointers, 64-bit values for 32-bit fields, CUDA fields
 * the kernel has no slot for); sizes, alignment, locations, handle types
 * and capacity are the kernel's to judge.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem.h"

/* cuMemCreate's allocFlags the kernel has a bit for. */
static CUresult create_alloc_flags(const CUmemAllocationProp *prop, __u32 *out)
{
	unsigned int i;

	*out = 0;
	for (i = 0; i < sizeof(prop->allocFlags.reserved); i++)
		if (prop->allocFlags.reserved[i]) {
			cufab_dbg("refused: allocFlags.reserved[%u] 0x%x: must be 0",
				  i, prop->allocFlags.reserved[i]);
			return CUDA_ERROR_INVALID_VALUE;
		}
	if (prop->allocFlags.usage & ~(CU_MEM_CREATE_USAGE_TILE_POOL |
				       CU_MEM_CREATE_USAGE_HW_DECOMPRESS)) {
		cufab_dbg("refused: allocFlags.usage 0x%x: unknown bits",
			  prop->allocFlags.usage);
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* No sparse arrays and no decompression engine to serve them. */
	if (prop->allocFlags.usage) {
		cufab_dbg("refused: allocFlags.usage 0x%x: no virtual GPU has tile pools or a decompression engine",
			  prop->allocFlags.usage);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	switch (prop->allocFlags.compressionType) {
	case CU_MEM_ALLOCATION_COMP_NONE:
		break;
	case CU_MEM_ALLOCATION_COMP_GENERIC:
		*out |= CUFAB_ALLOC_F_COMPRESSIBLE;
		break;
	default:
		cufab_dbg("refused: allocFlags.compressionType 0x%x: must be NONE or GENERIC",
			  prop->allocFlags.compressionType);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (prop->allocFlags.gpuDirectRDMACapable)
		*out |= CUFAB_ALLOC_F_GPU_DIRECT_RDMA;
	return CUDA_SUCCESS;
}

static CUresult create_args(const CUmemAllocationProp *prop, size_t size,
			    unsigned long long flags,
			    struct cufab_mem_create *arg)
{
	CUresult res;

	if (flags > 0xffffffffULL || prop->win32HandleMetaData) {
		cufab_dbg("refused: flags 0x%llx win32HandleMetaData %p: flags of 32 bits, no Windows metadata",
			  flags, prop->win32HandleMetaData);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) {
		cufab_dbg("refused: type %d: only CU_MEM_ALLOCATION_TYPE_PINNED (1)%s",
			  (int)prop->type,
			  prop->type == CU_MEM_ALLOCATION_TYPE_MANAGED ?
			  "; MANAGED is not supported" : "");
		return prop->type == CU_MEM_ALLOCATION_TYPE_MANAGED ?
		       CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
	}
	res = cufab_location_to_kernel(&prop->location, &arg->location_type,
				       &arg->location_id);
	if (res != CUDA_SUCCESS)
		return res;
	res = create_alloc_flags(prop, &arg->alloc_flags);
	if (res != CUDA_SUCCESS)
		return res;
	arg->flags = (__u32)flags;
	arg->handle_types = (__u32)prop->requestedHandleTypes;
	arg->length = size;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle,
					  size_t size,
					  const CUmemAllocationProp *prop,
					  unsigned long long flags)
{
	struct cufab_mem_create arg = { .size = sizeof(arg) };
	CUresult res;
	int ret;

	res = cufab_call_args(handle && prop);
	if (res != CUDA_SUCCESS)
		return res;
	res = create_args(prop, size, flags, &arg);
	if (res != CUDA_SUCCESS)
		return res;
	if (arg.handle_types & CUFAB_HANDLE_FABRIC)
		cufab_imex_prepare();
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_CREATE, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*handle = arg.out_handle;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	struct cufab_mem_release arg = { .size = sizeof(arg) };
	CUresult res;

	res = cufab_call_args(cufab_mem_handle_ok(handle));
	if (res != CUDA_SUCCESS)
		return res;
	arg.handle = (__u32)handle;
	return cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_MEM_RELEASE, &arg));
}

/* One of a GPU's two cuMemCreate granularities. */
static __u64 dev_gran(const struct cufab_device *d, int recommended)
{
	return recommended ? d->mem_granularity_rec : d->mem_granularity;
}

/*
 * The kernel's rule for host memory (kernel/device.c): the largest
 * granularity among the GPUs next to the NUMA node, else (a node without
 * GPUs, or CU_MEM_LOCATION_TYPE_HOST) the largest of all GPUs, hidden
 * ones included, so that a size valid there is valid everywhere.
 */
static __u64 host_gran(int numa_id, int recommended)
{
	__u64 near = 0, any = 0, g;
	int i;

	for (i = 0; i < cufab.num_kdev; i++) {
		g = dev_gran(&cufab.kdev[i], recommended);
		if (g > any)
			any = g;
		if (numa_id >= 0 && cufab.kdev[i].host_numa_node == numa_id &&
		    g > near)
			near = g;
	}
	return near ? near : any;
}

/*
 * Each GPU has its own granularities (cufabctl dev set); a DEVICE location
 * reads its GPU's, host locations follow host_gran().
 */
CUFAB_EXPORT CUresult CUDAAPI
cuMemGetAllocationGranularity(size_t *granularity,
			      const CUmemAllocationProp *prop,
			      CUmemAllocationGranularity_flags option)
{
	const struct cufab_device *d;
	int rec;
	CUresult res;

	res = cufab_call_args(granularity && prop);
	if (res != CUDA_SUCCESS)
		return res;
	if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
	    option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
		return CUDA_ERROR_INVALID_VALUE;
	rec = option == CU_MEM_ALLOC_GRANULARITY_RECOMMENDED;
	switch (prop->location.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		/* Not in this call's documented codes: INVALID_DEVICE. */
		d = cufab_device(prop->location.id);
		if (!d)
			return CUDA_ERROR_INVALID_VALUE;
		*granularity = dev_gran(d, rec);
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		if (prop->location.id < 0)
			return CUDA_ERROR_INVALID_VALUE;
		*granularity = host_gran(prop->location.id, rec);
		return CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST:
		*granularity = host_gran(-1, rec);
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUFAB_EXPORT CUresult CUDAAPI
cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	struct cufab_mem_retain arg = { .size = sizeof(arg) };
	int ret;
	CUresult res;

	res = cufab_call_args(!!handle);
	if (res != CUDA_SUCCESS)
		return res;
	arg.addr = (uintptr_t)addr;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_RETAIN, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*handle = arg.out_handle;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI
cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
				       CUmemGenericAllocationHandle handle)
{
	struct cufab_mem_get_props arg = { .size = sizeof(arg) };
	int ret;
	CUresult res;

	res = cufab_call_args(prop && cufab_mem_handle_ok(handle));
	if (res != CUDA_SUCCESS)
		return res;
	arg.handle = (__u32)handle;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_GET_PROPS, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	memset(prop, 0, sizeof(*prop));
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->requestedHandleTypes = (CUmemAllocationHandleType)arg.out_handle_types;
	prop->location.type = (CUmemLocationType)arg.out_location_type;
	prop->location.id = arg.out_location_id;
	/* An imported allocation may live on a GPU hidden from us: -1. */
	if (arg.out_location_type == CUFAB_LOC_DEVICE)
		prop->location.id = cufab_ordinal(arg.out_location_id);
	if (arg.out_alloc_flags & CUFAB_ALLOC_F_GPU_DIRECT_RDMA)
		prop->allocFlags.gpuDirectRDMACapable = 1;
	if (arg.out_alloc_flags & CUFAB_ALLOC_F_COMPRESSIBLE)
		prop->allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
	return CUDA_SUCCESS;
}

static __u64 cufab_page_size(void)
{
	static __u64 page_size;

	if (!page_size)
		page_size = (__u64)sysconf(_SC_PAGESIZE);
	return page_size;
}

/* The largest minimum granularity: a reservation may map any GPU's memory. */
static __u64 reserve_alignment_floor(void)
{
	__u64 g = 0;
	int i;

	for (i = 0; i < cufab.num_kdev; i++)
		if (cufab.kdev[i].mem_granularity > g)
			g = cufab.kdev[i].mem_granularity;
	return g;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size,
						  size_t alignment,
						  CUdeviceptr addr,
						  unsigned long long flags)
{
	struct cufab_va_reserve arg = { .size = sizeof(arg) };
	__u64 floor = reserve_alignment_floor();
	int ret;
	CUresult res;

	res = cufab_call_args(ptr && flags <= 0xffffffffULL);
	if (res != CUDA_SUCCESS)
		return res;
	/*
	 * CUDA's rule for the hint; the kernel takes any hint as advice and
	 * ignores one it cannot use.
	 */
	if (addr & (cufab_page_size() - 1))
		return CUDA_ERROR_INVALID_VALUE;
	arg.flags = (__u32)flags;
	arg.length = size;
	arg.addr = addr;
	/*
	 * No alignment, or a power of two below the largest granularity, is
	 * raised to it so that any GPU's granularity-aligned mapping fits;
	 * anything else goes to the kernel unchanged for it to judge.
	 */
	arg.alignment = alignment;
	if (!(alignment & (alignment - 1)) && alignment < floor)
		arg.alignment = floor;
	ret = cufab_ioctl(CUFAB_IOCTL_VA_RESERVE, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*ptr = (CUdeviceptr)arg.addr;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	struct cufab_va_free arg = {
		.size = sizeof(arg), .addr = ptr, .length = size,
	};
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_VA_FREE, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size,
				       size_t offset,
				       CUmemGenericAllocationHandle handle,
				       unsigned long long flags)
{
	struct cufab_mem_map arg = {
		.size = sizeof(arg), .addr = ptr, .length = size,
		.offset = offset,
	};
	CUresult res;

	res = cufab_call_args(cufab_mem_handle_ok(handle) &&
			      flags <= 0xffffffffULL);
	if (res != CUDA_SUCCESS)
		return res;
	arg.handle = (__u32)handle;
	arg.flags = (__u32)flags;
	return cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_MEM_MAP, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	struct cufab_mem_unmap arg = {
		.size = sizeof(arg), .addr = ptr, .length = size,
	};
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_MEM_UNMAP, &arg));
}

/* Descriptors on the stack up to this many; a caller may repeat devices. */
#define ACCESS_DESCS_INLINE	(CUFAB_MAX_GPUS + 2)

CUFAB_EXPORT CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size,
					     const CUmemAccessDesc *desc,
					     size_t count)
{
	struct cufab_mem_access inline_descs[ACCESS_DESCS_INLINE];
	struct cufab_mem_set_access arg = {
		.size = sizeof(arg), .addr = ptr, .length = size,
	};
	struct cufab_mem_access *kd = inline_descs;
	CUresult res = CUDA_SUCCESS;
	size_t i;

	res = cufab_call_args(desc && count && count <= 0xffffffffULL);
	if (res != CUDA_SUCCESS)
		return res;
	if (count > ACCESS_DESCS_INLINE) {
		kd = calloc(count, sizeof(*kd));
		if (!kd)
			return CUDA_ERROR_OUT_OF_MEMORY;
	}
	for (i = 0; i < count && res == CUDA_SUCCESS; i++) {
		memset(&kd[i], 0, sizeof(kd[i]));
		res = cufab_location_to_kernel(&desc[i].location,
					       &kd[i].location_type,
					       &kd[i].location_id);
		kd[i].flags = (__u32)desc[i].flags;
	}
	if (res == CUDA_SUCCESS) {
		arg.num_descs = (__u32)count;
		arg.descs_ptr = (uintptr_t)kd;
		res = cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_MEM_SET_ACCESS,
						    &arg));
	}
	if (kd != inline_descs)
		free(kd);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags,
					     const CUmemLocation *location,
					     CUdeviceptr ptr)
{
	struct cufab_mem_get_access arg = { .size = sizeof(arg), .addr = ptr };
	CUresult res;
	int ret;

	res = cufab_call_args(flags && location);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_location_to_kernel(location, &arg.location_type,
				       &arg.location_id);
	if (res != CUDA_SUCCESS)
		return res;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_GET_ACCESS, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*flags = arg.out_flags;
	return CUDA_SUCCESS;
}

/* Free and total memory of the current context's device. */
CUFAB_EXPORT CUresult CUDAAPI cuMemGetInfo_v2(size_t *free, size_t *total)
{
	struct cufab_mem_get_info arg = { .size = sizeof(arg) };
	CUdevice dev;
	CUresult res;
	int ret;

	res = cufab_call_args(free && total);
	if (res != CUDA_SUCCESS)
		return res;
	res = cuCtxGetDevice(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	arg.dev = cufab_device(dev)->index;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_GET_INFO, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*free = arg.out_free;
	*total = arg.out_total;
	return CUDA_SUCCESS;
}
