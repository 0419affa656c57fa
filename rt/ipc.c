// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * CUDA IPC memory: cudaIpcGetMemHandle, cudaIpcOpenMemHandle and
 * cudaIpcCloseMemHandle over their driver twins. cudaIpcMemHandle_t and
 * CUipcMemHandle are the same 64 bytes, cudaIpcMemLazyEnablePeerAccess is
 * CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, and the driver's codes are the
 * runtime's (INVALID_CONTEXT for the exporting process is
 * cudaErrorInvalidContext ...). The memory opens in the current device's
 * primary context, which the runtime makes current first (rt_init()).
 */
#include <string.h>

#include "internal.h"

_Static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle),
	       "cudaIpcMemHandle_t is CUipcMemHandle");
_Static_assert(cudaIpcMemLazyEnablePeerAccess ==
	       CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS,
	       "cudaIpcMemLazyEnablePeerAccess is the driver's flag");

RT_EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle,
					  void *devPtr)
{
	CUipcMemHandle h;
	CUresult res;

	if (!handle)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	if (res == CUDA_SUCCESS)
		res = cuIpcGetMemHandle(&h, rt_dptr(devPtr));
	if (res == CUDA_SUCCESS)
		memcpy(handle, &h, sizeof(*handle));
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaIpcOpenMemHandle(void **devPtr,
					   cudaIpcMemHandle_t handle,
					   unsigned int flags)
{
	CUdeviceptr d = 0;
	CUipcMemHandle h;
	CUresult res;

	if (!devPtr)
		return rt_error(cudaErrorInvalidValue);
	memcpy(&h, &handle, sizeof(h));
	res = rt_init();
	if (res == CUDA_SUCCESS)
		res = cuIpcOpenMemHandle(&d, h, flags);
	if (res == CUDA_SUCCESS)
		*devPtr = (void *)(uintptr_t)d;
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
	return RT_CALL(cuIpcCloseMemHandle(rt_dptr(devPtr)));
}
