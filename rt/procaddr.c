// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cudaGetDriverEntryPoint(ByVersion): libcufab's own entry points through
 * cuGetProcAddress, as NCCL and PyTorch load the driver calls they use.
 * Compiled twice: the _ptsz build resolves cudaEnableDefault to the
 * per-thread-default-stream symbols, the plain one to the legacy ones.
 */
#include "internal.h"

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define RT_DEFAULT_PROC_FLAGS	CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
#else
#define RT_DEFAULT_PROC_FLAGS	CU_GET_PROC_ADDRESS_LEGACY_STREAM
#endif

static cudaError_t rt_entry_point(const char *symbol, void **funcPtr,
				  unsigned int cudaVersion,
				  unsigned long long flags,
				  enum cudaDriverEntryPointQueryResult *status)
{
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && (!symbol || !funcPtr ||
				    (flags & ~(unsigned long long)
				     (cudaEnableLegacyStream |
				      cudaEnablePerThreadDefaultStream))))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	if (flags == cudaEnableDefault)
		flags = RT_DEFAULT_PROC_FLAGS;
	res = cuGetProcAddress(symbol, funcPtr, (int)cudaVersion, flags, &st);
	if (res == CUDA_SUCCESS && status)
		*status = (enum cudaDriverEntryPointQueryResult)st;
	if (res != CUDA_SUCCESS)
		rt_log("driver entry point \"%s\", version %u, flags %#llx: %d",
		       symbol, cudaVersion, flags, res);
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol,
					      void **funcPtr,
					      unsigned long long flags,
					      enum cudaDriverEntryPointQueryResult *driverStatus)
{
	return rt_entry_point(symbol, funcPtr, RT_VERSION, flags, driverStatus);
}

RT_EXPORT cudaError_t
cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
				 unsigned int cudaVersion, unsigned long long flags,
				 enum cudaDriverEntryPointQueryResult *driverStatus)
{
	return rt_entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}
