// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Page-locked host memory: cuMemHostAlloc and cuMemHostGetFlags (memory
 * made by MEM_ALLOC, as cuMemAllocHost's), cuMemHostRegister and
 * cuMemHostUnregister (the process's own memory, pinned by the kernel:
 * HOST_REGISTER, kernel/alloc_hostreg.c).
 *
 * cufab has unified addressing, so all of this memory is portable and
 * mapped whatever the flags say, at the host address on every device
 * (attribute 91, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, reads 1); the
 * flags are kept and reported (cuMemHostGetFlags, the kernel's
 * out_host_flags). The calls work in the current context, whose GPU
 * registered memory reports as its device ordinal.
 */
#include "mem.h"

/* cuMemHostAlloc's flags; anything else is INVALID_VALUE */
#define HOSTALLOC_FLAGS	(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | \
			 CU_MEMHOSTALLOC_WRITECOMBINED)
#define HOSTREG_FLAGS	(CU_MEMHOSTREGISTER_PORTABLE | \
			 CU_MEMHOSTREGISTER_DEVICEMAP | \
			 CU_MEMHOSTREGISTER_IOMEMORY | \
			 CU_MEMHOSTREGISTER_READ_ONLY)

CUFAB_EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize,
					     unsigned int Flags)
{
	CUdeviceptr p;
	CUresult res;

	res = cufab_call_args(pp && !(Flags & ~HOSTALLOC_FLAGS));
	if (res != CUDA_SUCCESS) {
		if (res == CUDA_ERROR_INVALID_VALUE && (Flags & ~HOSTALLOC_FLAGS))
			cufab_dbg("cuMemHostAlloc: flags 0x%x: only PORTABLE, DEVICEMAP and WRITECOMBINED exist",
				  Flags);
		return res;
	}
	res = cufab_linear_alloc_host(pp ? &p : NULL, bytesize,
				      CUFAB_MEM_ALLOC_HOST, 0, Flags);
	if (res == CUDA_SUCCESS)
		*pp = (void *)(uintptr_t)p;
	return res;
}

/* POINTER_INFO of @p. */
static CUresult host_info(void *p, struct cufab_pointer_info *info)
{
	info->size = sizeof(*info);
	info->addr = (uintptr_t)p;
	return cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_POINTER_INFO, info));
}

/*
 * The flags cuMemHostAlloc was given (0 for cuMemAllocHost), for any
 * address inside such an allocation; registered, device or managed
 * memory is INVALID_VALUE, as documented.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
	const __u32 want = CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED |
			   CUFAB_PTR_F_LINEAR;
	struct cufab_pointer_info info = { 0 };
	struct cufab_call c;
	CUresult res;

	res = cufab_call_ctx(&c, pFlags && p);
	if (res == CUDA_SUCCESS)
		res = host_info(p, &info);
	if (res != CUDA_SUCCESS)
		return res;
	if ((info.out_flags & (want | CUFAB_PTR_F_MANAGED)) != want ||
	    info.out_memory_type != CU_MEMORYTYPE_HOST) {
		cufab_dbg("refused: %p: not cuMemHostAlloc or cuMemAllocHost memory", p);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*pFlags = info.out_host_flags;
	return CUDA_SUCCESS;
}

/* errno of HOST_REGISTER and HOST_UNREGISTER -> CUresult */
static CUresult hostreg_result(int err)
{
	switch (err) {
	case EEXIST:
		return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	case EFAULT:	/* unmapped, or not writable without READ_ONLY */
		return CUDA_ERROR_INVALID_VALUE;
	case ENOENT:	/* the context went between the check and the call */
		return CUDA_ERROR_INVALID_CONTEXT;
	default:
		return cufab_errno_result(err);
	}
}

CUFAB_EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize,
						   unsigned int Flags)
{
	struct cufab_host_register arg = {
		.size = sizeof(arg), .flags = Flags, .addr = (uintptr_t)p,
		.length = bytesize,
	};
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, p && bytesize &&
				      !(Flags & ~HOSTREG_FLAGS));

	if (res == CUDA_ERROR_INVALID_VALUE && (Flags & ~HOSTREG_FLAGS))
		cufab_dbg("refused: Flags 0x%x: unknown bits (CU_MEMHOSTREGISTER_* are 0x%x)",
			  Flags, (unsigned int)HOSTREG_FLAGS);
	if (res != CUDA_SUCCESS)
		return res;
	/* a device without attribute 113 refuses READ_ONLY */
	if ((Flags & CU_MEMHOSTREGISTER_READ_ONLY) &&
	    !c.d->attrs[CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED]) {
		cufab_dbg("refused: Flags 0x%x: READ_ONLY, and the device's READ_ONLY_HOST_REGISTER_SUPPORTED is 0",
			  Flags);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	arg.ctx_id = c.ctx_kid;
	return hostreg_result(-cufab_ioctl(CUFAB_IOCTL_HOST_REGISTER, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p)
{
	struct cufab_host_unregister arg = {
		.size = sizeof(arg), .addr = (uintptr_t)p,
	};
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, !!p);
	int ret;

	if (res != CUDA_SUCCESS)
		return res;
	ret = cufab_ioctl(CUFAB_IOCTL_HOST_UNREGISTER, &arg);
	if (ret == -ENOENT)
		return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	return hostreg_result(-ret);
}
