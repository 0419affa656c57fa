// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Device management: counting, properties and attributes, PCI bus ids,
 * device flags, synchronisation, memory info and versions.
 *
 * Queries of a device need the driver, not a context: like NVIDIA's
 * runtime they create none. cudaDeviceAttr has the values of
 * CUdevice_attribute, so an attribute passes through; cudaDeviceProp is
 * filled from the same attributes, field by field.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"

RT_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS)
		res = count ? cuDeviceGetCount(count) : CUDA_ERROR_INVALID_VALUE;
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value,
					     enum cudaDeviceAttr attr,
					     int device)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && !value)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = rt_device_check(device);
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetAttribute(value, (CUdevice_attribute)attr,
					   device);
	return rt_result(res);
}

/* One field of cudaDeviceProp and the attribute that answers it. */
struct rt_prop_field {
	unsigned short offset;
	unsigned char width;	/* 4: int or unsigned int, 8: size_t */
	int attr;
};

/* @field is named twice, to offsetof and sizeof: nothing is evaluated. */
#define F(field, attr)							\
	{ offsetof(struct cudaDeviceProp, field),			\
	  sizeof(((struct cudaDeviceProp *)0)->field), cudaDevAttr##attr }

static const struct rt_prop_field rt_prop_fields[] = {
	F(sharedMemPerBlock, MaxSharedMemoryPerBlock),
	F(regsPerBlock, MaxRegistersPerBlock),
	F(warpSize, WarpSize),
	F(memPitch, MaxPitch),
	F(maxThreadsPerBlock, MaxThreadsPerBlock),
	F(maxThreadsDim[0], MaxBlockDimX),
	F(maxThreadsDim[1], MaxBlockDimY),
	F(maxThreadsDim[2], MaxBlockDimZ),
	F(maxGridSize[0], MaxGridDimX),
	F(maxGridSize[1], MaxGridDimY),
	F(maxGridSize[2], MaxGridDimZ),
	F(totalConstMem, TotalConstantMemory),
	F(major, ComputeCapabilityMajor),
	F(minor, ComputeCapabilityMinor),
	F(textureAlignment, TextureAlignment),
	F(texturePitchAlignment, TexturePitchAlignment),
	F(multiProcessorCount, MultiProcessorCount),
	F(integrated, Integrated),
	F(canMapHostMemory, CanMapHostMemory),
	F(maxTexture1D, MaxTexture1DWidth),
	F(maxTexture1DMipmap, MaxTexture1DMipmappedWidth),
	F(maxTexture2D[0], MaxTexture2DWidth),
	F(maxTexture2D[1], MaxTexture2DHeight),
	F(maxTexture2DMipmap[0], MaxTexture2DMipmappedWidth),
	F(maxTexture2DMipmap[1], MaxTexture2DMipmappedHeight),
	F(maxTexture2DLinear[0], MaxTexture2DLinearWidth),
	F(maxTexture2DLinear[1], MaxTexture2DLinearHeight),
	F(maxTexture2DLinear[2], MaxTexture2DLinearPitch),
	F(maxTexture2DGather[0], MaxTexture2DGatherWidth),
	F(maxTexture2DGather[1], MaxTexture2DGatherHeight),
	F(maxTexture3D[0], MaxTexture3DWidth),
	F(maxTexture3D[1], MaxTexture3DHeight),
	F(maxTexture3D[2], MaxTexture3DDepth),
	F(maxTexture3DAlt[0], MaxTexture3DWidthAlt),
	F(maxTexture3DAlt[1], MaxTexture3DHeightAlt),
	F(maxTexture3DAlt[2], MaxTexture3DDepthAlt),
	F(maxTextureCubemap, MaxTextureCubemapWidth),
	F(maxTexture1DLayered[0], MaxTexture1DLayeredWidth),
	F(maxTexture1DLayered[1], MaxTexture1DLayeredLayers),
	F(maxTexture2DLayered[0], MaxTexture2DLayeredWidth),
	F(maxTexture2DLayered[1], MaxTexture2DLayeredHeight),
	F(maxTexture2DLayered[2], MaxTexture2DLayeredLayers),
	F(maxTextureCubemapLayered[0], MaxTextureCubemapLayeredWidth),
	F(maxTextureCubemapLayered[1], MaxTextureCubemapLayeredLayers),
	F(maxSurface1D, MaxSurface1DWidth),
	F(maxSurface2D[0], MaxSurface2DWidth),
	F(maxSurface2D[1], MaxSurface2DHeight),
	F(maxSurface3D[0], MaxSurface3DWidth),
	F(maxSurface3D[1], MaxSurface3DHeight),
	F(maxSurface3D[2], MaxSurface3DDepth),
	F(maxSurface1DLayered[0], MaxSurface1DLayeredWidth),
	F(maxSurface1DLayered[1], MaxSurface1DLayeredLayers),
	F(maxSurface2DLayered[0], MaxSurface2DLayeredWidth),
	F(maxSurface2DLayered[1], MaxSurface2DLayeredHeight),
	F(maxSurface2DLayered[2], MaxSurface2DLayeredLayers),
	F(maxSurfaceCubemap, MaxSurfaceCubemapWidth),
	F(maxSurfaceCubemapLayered[0], MaxSurfaceCubemapLayeredWidth),
	F(maxSurfaceCubemapLayered[1], MaxSurfaceCubemapLayeredLayers),
	F(surfaceAlignment, SurfaceAlignment),
	F(concurrentKernels, ConcurrentKernels),
	F(ECCEnabled, EccEnabled),
	F(pciBusID, PciBusId),
	F(pciDeviceID, PciDeviceId),
	F(pciDomainID, PciDomainId),
	F(tccDriver, TccDriver),
	F(asyncEngineCount, AsyncEngineCount),
	F(unifiedAddressing, UnifiedAddressing),
	F(memoryBusWidth, GlobalMemoryBusWidth),
	F(l2CacheSize, L2CacheSize),
	F(persistingL2CacheMaxSize, MaxPersistingL2CacheSize),
	F(maxThreadsPerMultiProcessor, MaxThreadsPerMultiProcessor),
	F(streamPrioritiesSupported, StreamPrioritiesSupported),
	F(globalL1CacheSupported, GlobalL1CacheSupported),
	F(localL1CacheSupported, LocalL1CacheSupported),
	F(sharedMemPerMultiprocessor, MaxSharedMemoryPerMultiprocessor),
	F(regsPerMultiprocessor, MaxRegistersPerMultiprocessor),
	F(managedMemory, ManagedMemory),
	F(isMultiGpuBoard, IsMultiGpuBoard),
	F(multiGpuBoardGroupID, MultiGpuBoardGroupID),
	F(hostNativeAtomicSupported, HostNativeAtomicSupported),
	F(pageableMemoryAccess, PageableMemoryAccess),
	F(concurrentManagedAccess, ConcurrentManagedAccess),
	F(computePreemptionSupported, ComputePreemptionSupported),
	F(canUseHostPointerForRegisteredMem, CanUseHostPointerForRegisteredMem),
	F(cooperativeLaunch, CooperativeLaunch),
	F(sharedMemPerBlockOptin, MaxSharedMemoryPerBlockOptin),
	F(pageableMemoryAccessUsesHostPageTables, PageableMemoryAccessUsesHostPageTables),
	F(directManagedMemAccessFromHost, DirectManagedMemAccessFromHost),
	F(maxBlocksPerMultiProcessor, MaxBlocksPerMultiprocessor),
	F(accessPolicyMaxWindowSize, MaxAccessPolicyWindowSize),
	F(reservedSharedMemPerBlock, ReservedSharedMemoryPerBlock),
	F(hostRegisterSupported, HostRegisterSupported),
	F(sparseCudaArraySupported, SparseCudaArraySupported),
	F(hostRegisterReadOnlySupported, HostRegisterReadOnlySupported),
	F(timelineSemaphoreInteropSupported, TimelineSemaphoreInteropSupported),
	F(memoryPoolsSupported, MemoryPoolsSupported),
	F(gpuDirectRDMASupported, GPUDirectRDMASupported),
	F(gpuDirectRDMAFlushWritesOptions, GPUDirectRDMAFlushWritesOptions),
	F(gpuDirectRDMAWritesOrdering, GPUDirectRDMAWritesOrdering),
	F(memoryPoolSupportedHandleTypes, MemoryPoolSupportedHandleTypes),
	F(deferredMappingCudaArraySupported, DeferredMappingCudaArraySupported),
	F(ipcEventSupported, IpcEventSupport),
	F(clusterLaunch, ClusterLaunch),
	{ offsetof(struct cudaDeviceProp, unifiedFunctionPointers), sizeof(int),
	  CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS },
	F(deviceNumaConfig, NumaConfig),
	F(deviceNumaId, NumaId),
	F(mpsEnabled, MpsEnabled),
	F(hostNumaId, HostNumaId),
	F(gpuPciDeviceID, GpuPciDeviceId),
	F(gpuPciSubsystemID, GpuPciSubsystemId),
	F(hostNumaMultinodeIpcSupported, HostNumaMultinodeIpcSupported),
};

#undef F

/*
 * An attribute the driver does not know (past the end of its table)
 * leaves its field 0, as for a device without the feature.
 */
static void rt_prop_fill(struct cudaDeviceProp *prop, int device)
{
	const struct rt_prop_field *f;
	char *base = (char *)prop;
	size_t wide;
	int v;

	for (f = rt_prop_fields;
	     f < rt_prop_fields + RT_ARRAY_SIZE(rt_prop_fields); f++) {
		v = 0;
		if (cuDeviceGetAttribute(&v, (CUdevice_attribute)f->attr,
					 device) != CUDA_SUCCESS)
			v = 0;
		if (f->width == sizeof(size_t)) {
			wide = (size_t)(unsigned int)v;
			memcpy(base + f->offset, &wide, sizeof(wide));
		} else {
			memcpy(base + f->offset, &v, sizeof(v));
		}
	}
}

RT_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop,
					      int device)
{
	CUresult res = rt_driver_init();
	size_t total = 0;
	CUuuid uuid;

	if (res == CUDA_SUCCESS && !prop)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = rt_device_check(device);
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	memset(prop, 0, sizeof(*prop));
	res = cuDeviceGetName(prop->name, sizeof(prop->name), device);
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetUuid_v2(&uuid, device);
	if (res == CUDA_SUCCESS)
		res = cuDeviceTotalMem(&total, device);
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	memcpy(&prop->uuid, &uuid, sizeof(prop->uuid));
	prop->totalGlobalMem = total;
	rt_prop_fill(prop, device);
	return cudaSuccess;
}

/*
 * The device closest to @prop: every device is scored by the fields set
 * in @prop it meets (compute capability at least major.minor, at least
 * totalGlobalMem, at least multiProcessorCount, the same name); ties go to
 * the lowest ordinal. NVIDIA documents only "best match".
 */
static int rt_choose_score(const struct cudaDeviceProp *want, int device)
{
	struct cudaDeviceProp have;
	int score = 0;

	if (cudaGetDeviceProperties(&have, device) != cudaSuccess)
		return -1;
	if (want->major > 0 &&
	    (have.major > want->major ||
	     (have.major == want->major && have.minor >= want->minor)))
		score += 4;
	if (want->totalGlobalMem && have.totalGlobalMem >= want->totalGlobalMem)
		score += 2;
	if (want->multiProcessorCount &&
	    have.multiProcessorCount >= want->multiProcessorCount)
		score += 1;
	if (want->name[0] && !strncmp(want->name, have.name, sizeof(have.name)))
		score += 8;
	return score;
}

RT_EXPORT cudaError_t cudaChooseDevice(int *device,
				       const struct cudaDeviceProp *prop)
{
	CUresult res = rt_driver_init();
	int best = 0, best_score = -1, n = 0, i, s;

	if (res == CUDA_SUCCESS && (!device || !prop))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetCount(&n);
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	for (i = 0; i < n; i++) {
		s = rt_choose_score(prop, i);
		if (s > best_score) {
			best = i;
			best_score = s;
		}
	}
	*device = best;
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device,
					      const char *pciBusId)
{
	CUresult res = rt_driver_init();
	CUdevice dev;

	if (res == CUDA_SUCCESS && !device)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetByPCIBusId(&dev, pciBusId);
	if (res == CUDA_SUCCESS)
		*device = dev;
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len,
					    int device)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && (!pciBusId || len <= 0))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = rt_device_check(device);
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetPCIBusId(pciBusId, len, device);
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	return RT_CALL(cuCtxSynchronize());
}

/*
 * The limits are the current device's primary context's: cudaLimit and
 * CUlimit number them alike, and the driver's codes are the runtime's
 * (UNSUPPORTED_LIMIT is cudaErrorUnsupportedLimit).
 */
_Static_assert((int)cudaLimitStackSize == CU_LIMIT_STACK_SIZE &&
	       (int)cudaLimitPrintfFifoSize == CU_LIMIT_PRINTF_FIFO_SIZE &&
	       (int)cudaLimitMallocHeapSize == CU_LIMIT_MALLOC_HEAP_SIZE &&
	       (int)cudaLimitDevRuntimeSyncDepth == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH &&
	       (int)cudaLimitDevRuntimePendingLaunchCount ==
	       CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT &&
	       (int)cudaLimitMaxL2FetchGranularity ==
	       CU_LIMIT_MAX_L2_FETCH_GRANULARITY &&
	       (int)cudaLimitPersistingL2CacheSize ==
	       CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
	       "cudaLimit is CUlimit");

RT_EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
	if (!pValue)
		return rt_error(cudaErrorInvalidValue);
	return RT_CALL(cuCtxGetLimit(pValue, (CUlimit)limit));
}

RT_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	return RT_CALL(cuCtxSetLimit((CUlimit)limit, value));
}

/*
 * cudaDeviceFlags have the values of the primary context's CU_CTX_*
 * flags; the driver checks them. cudaDeviceMapHost is always in effect
 * (unified addressing), so it is accepted and reported.
 */
RT_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	CUresult res = rt_driver_init();
	int dev;

	if (res == CUDA_SUCCESS && (flags & ~(unsigned int)cudaDeviceMask))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	cudaGetDevice(&dev);
	return rt_result(cuDevicePrimaryCtxSetFlags(dev, flags));
}

RT_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	CUresult res = rt_driver_init();
	unsigned int f = 0;
	int dev, active;

	if (res == CUDA_SUCCESS && !flags)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	cudaGetDevice(&dev);
	res = cuDevicePrimaryCtxGetState(dev, &f, &active);
	if (res == CUDA_SUCCESS)
		*flags = f | cudaDeviceMapHost;
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
	if (!free || !total)
		return rt_error(cudaErrorInvalidValue);
	return RT_CALL(cuMemGetInfo(free, total));
}

RT_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return rt_error(cudaErrorInvalidValue);
	return rt_result(cuDriverGetVersion(driverVersion));
}

RT_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	if (!runtimeVersion)
		return rt_error(cudaErrorInvalidValue);
	*runtimeVersion = RT_VERSION;
	return cudaSuccess;
}
