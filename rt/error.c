// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cudaGetErrorName and cudaGetErrorString for every cudaError_t of NVIDIA's
 * driver_types.h (13.0). They need no initialisation and record nothing.
 * The descriptions are cufab's own short wording, the driver's (lib/error.c)
 * for a code the driver shares.
 */
#include "internal.h"

struct rt_error_desc {
	cudaError_t code;
	const char *name;
	const char *text;
};

#define E(code, text)	{ code, #code, text }

static const struct rt_error_desc rt_errors[] = {
	E(cudaSuccess, "no error"),
	E(cudaErrorInvalidValue, "invalid argument"),
	E(cudaErrorMemoryAllocation, "out of memory"),
	E(cudaErrorInitializationError, "initialization error: cuInit not called in this process"),
	E(cudaErrorCudartUnloading, "driver shutting down"),
	E(cudaErrorProfilerDisabled, "profiler disabled while using an external profiling tool"),
	E(cudaErrorProfilerNotInitialized, "profiler not initialized"),
	E(cudaErrorProfilerAlreadyStarted, "profiler already started"),
	E(cudaErrorProfilerAlreadyStopped, "profiler already stopped"),
	E(cudaErrorInvalidConfiguration, "invalid launch configuration"),
	E(cudaErrorInvalidPitchValue, "invalid pitch argument"),
	E(cudaErrorInvalidSymbol, "invalid device symbol"),
	E(cudaErrorInvalidHostPointer, "invalid host pointer"),
	E(cudaErrorInvalidDevicePointer, "invalid device pointer"),
	E(cudaErrorInvalidTexture, "invalid texture reference"),
	E(cudaErrorInvalidTextureBinding, "texture is not bound to a valid address"),
	E(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
	E(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
	E(cudaErrorAddressOfConstant, "cannot take the address of a constant"),
	E(cudaErrorTextureFetchFailed, "texture fetch failed"),
	E(cudaErrorTextureNotBound, "texture not bound"),
	E(cudaErrorSynchronizationError, "synchronization error"),
	E(cudaErrorInvalidFilterSetting, "invalid texture filter setting"),
	E(cudaErrorInvalidNormSetting, "invalid texture normalization setting"),
	E(cudaErrorMixedDeviceExecution, "mixed device and device-emulation execution"),
	E(cudaErrorNotYetImplemented, "feature not yet implemented"),
	E(cudaErrorMemoryValueTooLarge, "emulated memory value too large"),
	E(cudaErrorStubLibrary, "the driver library is a stub"),
	E(cudaErrorInsufficientDriver, "the driver is older than the runtime"),
	E(cudaErrorCallRequiresNewerDriver, "the call needs a newer driver"),
	E(cudaErrorInvalidSurface, "invalid surface reference"),
	E(cudaErrorDuplicateVariableName, "duplicate global variable name"),
	E(cudaErrorDuplicateTextureName, "duplicate texture name"),
	E(cudaErrorDuplicateSurfaceName, "duplicate surface name"),
	E(cudaErrorDevicesUnavailable, "device busy or unavailable"),
	E(cudaErrorIncompatibleDriverContext, "driver API context incompatible with the runtime"),
	E(cudaErrorMissingConfiguration, "launch has no configuration"),
	E(cudaErrorPriorLaunchFailure, "a prior launch failed"),
	E(cudaErrorLaunchMaxDepthExceeded, "launch nesting depth exceeded"),
	E(cudaErrorLaunchFileScopedTex, "launch uses a file-scoped texture"),
	E(cudaErrorLaunchFileScopedSurf, "launch uses a file-scoped surface"),
	E(cudaErrorSyncDepthExceeded, "device synchronization depth exceeded"),
	E(cudaErrorLaunchPendingCountExceeded, "too many pending device launches"),
	E(cudaErrorInvalidDeviceFunction, "invalid device function"),
	E(cudaErrorNoDevice, "no CUDA-capable device is detected"),
	E(cudaErrorInvalidDevice, "invalid device ordinal"),
	E(cudaErrorDeviceNotLicensed, "device has no valid license"),
	E(cudaErrorSoftwareValidityNotEstablished, "software validity not established"),
	E(cudaErrorStartupFailure, "runtime startup failure"),
	E(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
	E(cudaErrorDeviceUninitialized, "invalid device context"),
	E(cudaErrorMapBufferObjectFailed, "mapping failed"),
	E(cudaErrorUnmapBufferObjectFailed, "unmapping failed"),
	E(cudaErrorArrayIsMapped, "array is mapped"),
	E(cudaErrorAlreadyMapped, "resource already mapped"),
	E(cudaErrorNoKernelImageForDevice, "no kernel image is available for the device"),
	E(cudaErrorAlreadyAcquired, "resource already acquired"),
	E(cudaErrorNotMapped, "resource not mapped"),
	E(cudaErrorNotMappedAsArray, "resource not mapped as an array"),
	E(cudaErrorNotMappedAsPointer, "resource not mapped as a pointer"),
	E(cudaErrorECCUncorrectable, "uncorrectable ECC error"),
	E(cudaErrorUnsupportedLimit, "limit not supported by the device"),
	E(cudaErrorDeviceAlreadyInUse, "context already in use by another thread"),
	E(cudaErrorPeerAccessUnsupported, "peer access is not supported between these devices"),
	E(cudaErrorInvalidPtx, "PTX JIT compilation failed"),
	E(cudaErrorInvalidGraphicsContext, "invalid graphics context"),
	E(cudaErrorNvlinkUncorrectable, "uncorrectable NVLink error"),
	E(cudaErrorJitCompilerNotFound, "PTX JIT compiler library not found"),
	E(cudaErrorUnsupportedPtxVersion, "unsupported PTX version"),
	E(cudaErrorJitCompilationDisabled, "PTX JIT compilation is disabled"),
	E(cudaErrorUnsupportedExecAffinity, "execution affinity not supported"),
	E(cudaErrorUnsupportedDevSideSync, "device-side synchronization not supported"),
	E(cudaErrorContained, "contained error: the device needs a reset"),
	E(cudaErrorInvalidSource, "invalid kernel source"),
	E(cudaErrorFileNotFound, "file not found"),
	E(cudaErrorSharedObjectSymbolNotFound, "shared object symbol not found"),
	E(cudaErrorSharedObjectInitFailed, "shared object initialization failed"),
	E(cudaErrorOperatingSystem, "operating system call failed"),
	E(cudaErrorInvalidResourceHandle, "invalid resource handle"),
	E(cudaErrorIllegalState, "the operation is not allowed in the present state"),
	E(cudaErrorLossyQuery, "the query cannot be answered without loss"),
	E(cudaErrorSymbolNotFound, "named symbol not found"),
	E(cudaErrorNotReady, "device not ready"),
	E(cudaErrorIllegalAddress, "illegal memory access"),
	E(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
	E(cudaErrorLaunchTimeout, "launch timed out"),
	E(cudaErrorLaunchIncompatibleTexturing, "launch uses an incompatible texturing mode"),
	E(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
	E(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
	E(cudaErrorSetOnActiveProcess, "primary context is active"),
	E(cudaErrorContextIsDestroyed, "context is destroyed"),
	E(cudaErrorAssert, "device-side assert triggered"),
	E(cudaErrorTooManyPeers, "peer mapping resources exhausted"),
	E(cudaErrorHostMemoryAlreadyRegistered, "host memory already registered"),
	E(cudaErrorHostMemoryNotRegistered, "host memory not registered"),
	E(cudaErrorHardwareStackError, "hardware stack error"),
	E(cudaErrorIllegalInstruction, "illegal instruction"),
	E(cudaErrorMisalignedAddress, "misaligned address"),
	E(cudaErrorInvalidAddressSpace, "operation not allowed on this address space"),
	E(cudaErrorInvalidPc, "invalid program counter"),
	E(cudaErrorLaunchFailure, "unspecified launch failure"),
	E(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
	E(cudaErrorTensorMemoryLeak, "tensor memory not freed before kernel exit"),
	E(cudaErrorNotPermitted, "operation not permitted"),
	E(cudaErrorNotSupported, "operation not supported"),
	E(cudaErrorSystemNotReady, "system not yet initialized"),
	E(cudaErrorSystemDriverMismatch, "library and kernel module versions do not match"),
	E(cudaErrorCompatNotSupportedOnDevice, "forward compatibility unsupported here"),
	E(cudaErrorMpsConnectionFailed, "cannot connect to the MPS server"),
	E(cudaErrorMpsRpcFailure, "MPS remote procedure call failed"),
	E(cudaErrorMpsServerNotReady, "MPS server not ready"),
	E(cudaErrorMpsMaxClientsReached, "MPS client limit reached"),
	E(cudaErrorMpsMaxConnectionsReached, "MPS connection limit reached"),
	E(cudaErrorMpsClientTerminated, "MPS client terminated"),
	E(cudaErrorCdpNotSupported, "CUDA dynamic parallelism not supported"),
	E(cudaErrorCdpVersionMismatch, "CUDA dynamic parallelism version mismatch"),
	E(cudaErrorStreamCaptureUnsupported, "not permitted while capturing"),
	E(cudaErrorStreamCaptureInvalidated, "stream capture invalidated by an earlier error"),
	E(cudaErrorStreamCaptureMerge, "stream capture would merge two captures"),
	E(cudaErrorStreamCaptureUnmatched, "capture was not started in this stream"),
	E(cudaErrorStreamCaptureUnjoined, "capture forked into a stream that was not joined"),
	E(cudaErrorStreamCaptureIsolation, "dependency would cross the capture boundary"),
	E(cudaErrorStreamCaptureImplicit, "implicit dependency on a capturing stream"),
	E(cudaErrorCapturedEvent, "operation not permitted on an event of a capture"),
	E(cudaErrorStreamCaptureWrongThread, "capture ended in another thread"),
	E(cudaErrorTimeout, "wait timed out"),
	E(cudaErrorGraphExecUpdateFailure, "graph update not performed"),
	E(cudaErrorExternalDevice, "error in an external device"),
	E(cudaErrorInvalidClusterSize, "invalid cluster size"),
	E(cudaErrorFunctionNotLoaded, "function not loaded"),
	E(cudaErrorInvalidResourceType, "invalid resource type"),
	E(cudaErrorInvalidResourceConfiguration, "invalid resource configuration"),
	E(cudaErrorUnknown, "unknown error"),
	E(cudaErrorApiFailureBase, "API failure base"),
};

#undef E

static const struct rt_error_desc *rt_error_find(cudaError_t code)
{
	size_t i;

	for (i = 0; i < RT_ARRAY_SIZE(rt_errors); i++)
		if (rt_errors[i].code == code)
			return &rt_errors[i];
	return NULL;
}

/* An unknown code: NVIDIA's runtime answers with these two strings. */
RT_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	const struct rt_error_desc *e = rt_error_find(error);

	return e ? e->name : "unrecognized error code";
}

RT_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	const struct rt_error_desc *e = rt_error_find(error);

	return e ? e->text : "unrecognized error code";
}
