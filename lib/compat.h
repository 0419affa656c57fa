/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Entry points of older ABIs, kept for binaries built against older CUDA
 * headers and for cuGetProcAddress with an older cudaVersion. cuda.h maps
 * their plain names to the current _vN symbols; this header undoes that
 * for the files that define or list them. NVIDIA's header declares them
 * only for its own internal build, so they are not in cufab/cuda.h.
 */
#ifndef CUFAB_LIB_COMPAT_H
#define CUFAB_LIB_COMPAT_H

#include "internal.h"

#undef cuDeviceGetUuid
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuGetProcAddress

/* CUDA 9.2: the same UUID as _v2 (they differ only for MIG instances). */
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
/* CUDA 7.0 primary context calls. */
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
/* CUDA 3.2 and 11.4 context creation. */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
				int numParams, unsigned int flags, CUdevice dev);
/* CUDA 11.3: without the symbol status. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				  cuuint64_t flags);

#endif /* CUFAB_LIB_COMPAT_H */
