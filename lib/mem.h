/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Helpers shared by the memory API groups (vmm.c, linear_mem.c,
 * pointer.c, share.c, imex.c).
 *
 * The kernel owns allocations, reservations, mappings and every rule about
 * them; these calls validate only the shape of their arguments (NULL
 * pointers, values that do not fit the uAPI fields) and translate devices
 * and errno.
 */
#ifndef CUFAB_LIB_MEM_H
#define CUFAB_LIB_MEM_H

#include <errno.h>

#include "internal.h"

/* errno -> CUresult for the memory calls (error.c, CUFAB_ERRMAP_MEM). */
static inline CUresult cufab_mem_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_MEM, err);
}

/* errno -> CUresult for copies and memsets (CUFAB_ERRMAP_COPY). */
static inline CUresult cufab_copy_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_COPY, err);
}

/* A CUmemGenericAllocationHandle is a kernel handle id (u32, never 0). */
static inline int cufab_mem_handle_ok(CUmemGenericAllocationHandle h)
{
	return h != 0 && h <= 0xffffffffULL;
}

/* The CUdevice ordinal of kernel GPU kindex, or -1 when it is not visible. */
static inline int cufab_ordinal(int kindex)
{
	int i;

	for (i = 0; i < cufab.num_dev; i++)
		if (cufab.visible[i] == kindex)
			return i;
	return -1;
}

/*
 * A CUmemLocation as the kernel names it: DEVICE ids are CUdevice
 * ordinals here and kernel indexes there. Other types pass through for
 * the kernel to judge. Returns CUDA_ERROR_INVALID_DEVICE for a bad
 * ordinal.
 */
static inline CUresult cufab_location_to_kernel(const CUmemLocation *loc,
						__u32 *type, __s32 *id)
{
	const struct cufab_device *d;

	*type = (__u32)loc->type;
	*id = loc->id;
	if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_SUCCESS;
	d = cufab_device(loc->id);
	if (!d) {
		cufab_dbg("refused: location device %d: no such device (%d visible)",
			  loc->id, cufab.num_dev);
		return CUDA_ERROR_INVALID_DEVICE;
	}
	*id = (__s32)d->index;
	return CUDA_SUCCESS;
}

/* imex.c: make sure the client presented an IMEX channel (FABRIC calls). */
void cufab_imex_prepare(void);

/*
 * linear_mem.c: MEM_ALLOC in the current context (cuMemAlloc,
 * cuMemAllocHost, cuMemAllocManaged with its attach flags).
 */
CUresult cufab_linear_alloc(CUdeviceptr *out, size_t bytesize, __u32 flags,
			    __u32 attach);
/* the same with cuMemHostAlloc's flags (CUFAB_HOSTALLOC_*) */
CUresult cufab_linear_alloc_host(CUdeviceptr *out, size_t bytesize,
				 __u32 flags, __u32 attach, __u32 host_flags);

/*
 * pageable.c: cuMemAdvise, cuMemPrefetchAsync and cuMemRangeGetAttribute(s)
 * on pageable memory, for managed.c once the kernel said the range is not
 * managed. Locations in kernel form (DEVICE: kernel index).
 */
struct cufab_lstream;
CUresult cufab_pageable_advise(CUdeviceptr ptr, size_t count, __u32 advice,
			       __u32 type, __s32 id);
CUresult cufab_pageable_range_attrs(CUdeviceptr ptr, size_t count,
				    struct cufab_mem_range_attrs *a);
CUresult cufab_pageable_prefetch(CUdeviceptr ptr, size_t count, __u32 type,
				 __s32 id, CUstream h, int per_thread,
				 const struct cufab_lstream *s);

#endif /* CUFAB_LIB_MEM_H */
