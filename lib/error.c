// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuGetErrorName and cuGetErrorString for every CUresult of cufab/cuda.h.
 * Both work before cuInit. The descriptions are cufab's own short wording.
 */
#include "internal.h"

struct cufab_error {
	CUresult code;
	const char *name;
	const char *text;
};

#define E(code, text)	{ code, #code, text }

static const struct cufab_error cufab_errors[] = {
	E(CUDA_SUCCESS, "no error"),
	E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
	E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
	E(CUDA_ERROR_NOT_INITIALIZED, "initialization error: cuInit not called in this process"),
	E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
	E(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled while using an external profiling tool"),
	E(CUDA_ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized"),
	E(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started"),
	E(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped"),
	E(CUDA_ERROR_STUB_LIBRARY, "the driver library is a stub"),
	E(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "the call needs a newer driver"),
	E(CUDA_ERROR_DEVICE_UNAVAILABLE, "device busy or unavailable"),
	E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
	E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
	E(CUDA_ERROR_DEVICE_NOT_LICENSED, "device has no valid license"),
	E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
	E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
	E(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current"),
	E(CUDA_ERROR_MAP_FAILED, "mapping failed"),
	E(CUDA_ERROR_UNMAP_FAILED, "unmapping failed"),
	E(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped"),
	E(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
	E(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for the device"),
	E(CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired"),
	E(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
	E(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as an array"),
	E(CUDA_ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as a pointer"),
	E(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error"),
	E(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit not supported by the device"),
	E(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "context already in use by another thread"),
	E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these devices"),
	E(CUDA_ERROR_INVALID_PTX, "PTX JIT compilation failed"),
	E(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid graphics context"),
	E(CUDA_ERROR_NVLINK_UNCORRECTABLE, "uncorrectable NVLink error"),
	E(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"),
	E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "unsupported PTX version"),
	E(CUDA_ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation is disabled"),
	E(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "execution affinity not supported"),
	E(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, "device-side synchronization not supported"),
	E(CUDA_ERROR_CONTAINED, "contained error: the device needs a reset"),
	E(CUDA_ERROR_INVALID_SOURCE, "invalid kernel source"),
	E(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
	E(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"),
	E(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
	E(CUDA_ERROR_OPERATING_SYSTEM, "operating system call failed"),
	E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
	E(CUDA_ERROR_ILLEGAL_STATE, "the operation is not allowed in the present state"),
	E(CUDA_ERROR_LOSSY_QUERY, "the query cannot be answered without loss"),
	E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
	E(CUDA_ERROR_NOT_READY, "device not ready"),
	E(CUDA_ERROR_ILLEGAL_ADDRESS, "illegal memory access"),
	E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
	E(CUDA_ERROR_LAUNCH_TIMEOUT, "launch timed out"),
	E(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch uses an incompatible texturing mode"),
	E(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
	E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
	E(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "primary context is active"),
	E(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
	E(CUDA_ERROR_ASSERT, "device-side assert triggered"),
	E(CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources exhausted"),
	E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "host memory already registered"),
	E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "host memory not registered"),
	E(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error"),
	E(CUDA_ERROR_ILLEGAL_INSTRUCTION, "illegal instruction"),
	E(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
	E(CUDA_ERROR_INVALID_ADDRESS_SPACE, "operation not allowed on this address space"),
	E(CUDA_ERROR_INVALID_PC, "invalid program counter"),
	E(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
	E(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch"),
	E(CUDA_ERROR_TENSOR_MEMORY_LEAK, "tensor memory not freed before kernel exit"),
	E(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
	E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
	E(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
	E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "library and kernel module versions do not match"),
	E(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "forward compatibility unsupported here"),
	E(CUDA_ERROR_MPS_CONNECTION_FAILED, "cannot connect to the MPS server"),
	E(CUDA_ERROR_MPS_RPC_FAILURE, "MPS remote procedure call failed"),
	E(CUDA_ERROR_MPS_SERVER_NOT_READY, "MPS server not ready"),
	E(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, "MPS client limit reached"),
	E(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, "MPS connection limit reached"),
	E(CUDA_ERROR_MPS_CLIENT_TERMINATED, "MPS client terminated"),
	E(CUDA_ERROR_CDP_NOT_SUPPORTED, "CUDA dynamic parallelism not supported"),
	E(CUDA_ERROR_CDP_VERSION_MISMATCH, "CUDA dynamic parallelism version mismatch"),
	E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "not permitted while capturing"),
	E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "stream capture invalidated by an earlier error"),
	E(CUDA_ERROR_STREAM_CAPTURE_MERGE, "stream capture would merge two captures"),
	E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not started in this stream"),
	E(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capture forked into a stream that was not joined"),
	E(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "dependency would cross the capture boundary"),
	E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "implicit dependency on a capturing stream"),
	E(CUDA_ERROR_CAPTURED_EVENT, "operation not permitted on an event of a capture"),
	E(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "capture ended in another thread"),
	E(CUDA_ERROR_TIMEOUT, "wait timed out"),
	E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update not performed"),
	E(CUDA_ERROR_EXTERNAL_DEVICE, "error in an external device"),
	E(CUDA_ERROR_INVALID_CLUSTER_SIZE, "invalid cluster size"),
	E(CUDA_ERROR_FUNCTION_NOT_LOADED, "function not loaded"),
	E(CUDA_ERROR_INVALID_RESOURCE_TYPE, "invalid resource type"),
	E(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "invalid resource configuration"),
	E(CUDA_ERROR_KEY_ROTATION, "encryption key rotation error"),
	E(CUDA_ERROR_UNKNOWN, "unknown error"),
};

#undef E

static const struct cufab_error *error_find(CUresult code)
{
	size_t i;

	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_errors); i++)
		if (cufab_errors[i].code == code)
			return &cufab_errors[i];
	return NULL;
}

CUFAB_EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	const struct cufab_error *e;

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	e = error_find(error);
	*pStr = e ? e->text : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUFAB_EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	const struct cufab_error *e;

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	e = error_find(error);
	*pStr = e ? e->name : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
