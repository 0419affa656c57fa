// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuMemExportToShareableHandle and cuMemImportFromShareableHandle.
 *
 * POSIX_FILE_DESCRIPTOR: export writes an int (a dma-buf fd, O_CLOEXEC)
 * into *shareableHandle; import takes the fd itself cast to a pointer,
 * (void *)(uintptr_t)fd, as CUDA does. FABRIC: a CUmemFabricHandle, 64
 * opaque bytes; export and import first present this process's IMEX
 * channel (imex.c). Only types requested at cuMemCreate may be exported:
 * the kernel checks.
 */
#include <string.h>

#include "mem.h"

_Static_assert(sizeof(CUmemFabricHandle) == CUFAB_FABRIC_HANDLE_LEN,
	       "CUmemFabricHandle is the kernel's fabric handle");

CUFAB_EXPORT CUresult CUDAAPI
cuMemExportToShareableHandle(void *shareableHandle,
			     CUmemGenericAllocationHandle handle,
			     CUmemAllocationHandleType handleType,
			     unsigned long long flags)
{
	struct cufab_mem_export arg = { .size = sizeof(arg) };
	int ret;
	CUresult res;

	res = cufab_call_args(shareableHandle && cufab_mem_handle_ok(handle) &&
			      flags <= 0xffffffffULL);
	if (res != CUDA_SUCCESS)
		return res;
	arg.flags = (__u32)flags;
	arg.handle = (__u32)handle;
	arg.handle_type = (__u32)handleType;
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC)
		cufab_imex_prepare();
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_EXPORT, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC)
		memcpy(shareableHandle, arg.out_fabric, sizeof(arg.out_fabric));
	else
		*(int *)shareableHandle = arg.out_fd;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI
cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
			       void *osHandle,
			       CUmemAllocationHandleType shHandleType)
{
	struct cufab_mem_import arg = {
		.size = sizeof(arg), .handle_type = (__u32)shHandleType, .fd = -1,
	};
	int ret;
	CUresult res;

	res = cufab_call_args(!!handle);
	if (res != CUDA_SUCCESS)
		return res;
	if (shHandleType == CU_MEM_HANDLE_TYPE_FABRIC) {
		if (!osHandle)
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(arg.fabric, osHandle, sizeof(arg.fabric));
		cufab_imex_prepare();
	} else if (shHandleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		if ((uintptr_t)osHandle > 0x7fffffff)
			return CUDA_ERROR_INVALID_VALUE;
		arg.fd = (__s32)(uintptr_t)osHandle;
	}
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_IMPORT, &arg);
	/* Our own fd works in this process: EBADF is the caller's bad fd. */
	if (ret == -EBADF)
		return CUDA_ERROR_INVALID_VALUE;
	if (ret)
		return cufab_mem_result(-ret);
	*handle = arg.out_handle;
	return CUDA_SUCCESS;
}
