// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Entry points of older ABIs (see compat.h), each defined by what changed
 * since: usually nothing visible on cufab, so they forward.
 */
#include "compat.h"

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	return cuDeviceGetUuid_v2(uuid, dev);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize,
						unsigned int Flags)
{
	return cuMemHostRegister_v2(p, bytesize, Flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr,
						 CUipcMemHandle handle,
						 unsigned int Flags)
{
	return cuIpcOpenMemHandle_v2(pdptr, handle, Flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
	return cuDevicePrimaryCtxRelease_v2(dev);
}

CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev)
{
	return cuDevicePrimaryCtxReset_v2(dev);
}

/* Before CUDA 11 the flags of an active primary context could not change. */
CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
	return cufab_primary_set_flags_checked(dev, flags, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags,
					     CUdevice dev)
{
	return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

/*
 * Execution affinity needs MPS, which cufab does not emulate: any affinity
 * parameter is unsupported, as on a GPU without MPS.
 */
CUFAB_EXPORT CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx,
					     CUexecAffinityParam *paramsArray,
					     int numParams, unsigned int flags,
					     CUdevice dev)
{
	CUresult res;

	res = cufab_ctx_create_check(pctx, dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (numParams < 0 || (numParams > 0 && !paramsArray))
		return CUDA_ERROR_INVALID_VALUE;
	if (numParams > 0)
		return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
	return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

CUFAB_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn,
					       int cudaVersion, cuuint64_t flags)
{
	return cufab_proc_address(symbol, pfn, cudaVersion, flags, NULL);
}
