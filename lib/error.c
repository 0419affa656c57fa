// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * CUresult in both directions: the errno -> CUresult table every call
 * translates the kernel's answers with, and cuGetErrorName and
 * cuGetErrorString for every CUresult of cufab/cuda.h (both work before
 * cuInit; the descriptions are cufab's own short wording).
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/*
 * errno -> CUresult (Documentation/uapi.rst). The generic rows hold for
 * every call; a call group whose documentation asks for other codes has
 * its own rows, looked at first, and falls back to its parent group's.
 */
struct cufab_errno_row {
	enum cufab_errmap map;
	int err;
	CUresult res;
};

static const enum cufab_errmap cufab_errmap_parent[CUFAB_ERRMAP_COUNT] = {
	[CUFAB_ERRMAP_GENERIC]		= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_MEM]		= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_COPY]		= CUFAB_ERRMAP_MEM,
	[CUFAB_ERRMAP_MC]		= CUFAB_ERRMAP_MEM,
	[CUFAB_ERRMAP_LE]		= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_PEER]		= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_ASYNC]		= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_SUBMIT]		= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_IPC_EVENT_IMPORT]	= CUFAB_ERRMAP_GENERIC,
	[CUFAB_ERRMAP_IPC_MEM_IMPORT]	= CUFAB_ERRMAP_MEM,
};

#define R(map, err, res)	{ CUFAB_ERRMAP_##map, err, CUDA_##res }

static const struct cufab_errno_row cufab_errno_rows[] = {
	R(GENERIC, 0, SUCCESS),
	R(GENERIC, EINVAL, ERROR_INVALID_VALUE),
	R(GENERIC, ENOMEM, ERROR_OUT_OF_MEMORY),
	R(GENERIC, ENODEV, ERROR_INVALID_DEVICE),
	R(GENERIC, ENOENT, ERROR_INVALID_HANDLE),
	R(GENERIC, EPERM, ERROR_NOT_PERMITTED),
	R(GENERIC, EACCES, ERROR_NOT_PERMITTED),
	R(GENERIC, EOPNOTSUPP, ERROR_NOT_SUPPORTED),
	/* a wait for something outside the caller (a team) gave up */
	R(GENERIC, ETIMEDOUT, ERROR_SYSTEM_NOT_READY),
	/* a team that never completed; the fabric software is down */
	R(GENERIC, EHOSTDOWN, ERROR_SYSTEM_NOT_READY),
	R(GENERIC, ENOTRECOVERABLE, ERROR_ILLEGAL_STATE),
	/* the fd belongs to another process: we were forked */
	R(GENERIC, EBADF, ERROR_NOT_INITIALIZED),
	/* the module does not know this ioctl or struct tail */
	R(GENERIC, ENOTTY, ERROR_SYSTEM_DRIVER_MISMATCH),
	R(GENERIC, E2BIG, ERROR_SYSTEM_DRIVER_MISMATCH),

	/*
	 * Memory calls: their documentation lists INVALID_VALUE, not
	 * INVALID_HANDLE, for a released or foreign handle and for an
	 * address that is not (or already) mapped.
	 */
	R(MEM, ENOENT, ERROR_INVALID_VALUE),	/* no such handle or mapping */
	R(MEM, EEXIST, ERROR_INVALID_VALUE),	/* range already mapped */
	R(MEM, EBUSY, ERROR_INVALID_VALUE),	/* reservation still mapped */
	R(MEM, ERANGE, ERROR_INVALID_VALUE),	/* offset + size past the end */

	/*
	 * Copies and memsets: no NOT_PERMITTED in their documentation; a
	 * range the device may not access is, like a bad host pointer, an
	 * invalid argument.
	 */
	R(COPY, EACCES, ERROR_INVALID_VALUE),
	R(COPY, EPERM, ERROR_INVALID_VALUE),
	R(COPY, EFAULT, ERROR_INVALID_VALUE),

	/* Multicast: the team did not complete, or a signal ended the wait. */
	R(MC, ETIMEDOUT, ERROR_SYSTEM_NOT_READY),
	R(MC, EINTR, ERROR_SYSTEM_NOT_READY),

	/*
	 * Logical endpoints: no INVALID_HANDLE nor INVALID_DEVICE on their
	 * pages. EBUSY is IdRelease of an id still associated; ENOSPC an id
	 * space with no free range that long.
	 */
	R(LE, ENOENT, ERROR_INVALID_VALUE),
	R(LE, EBUSY, ERROR_INVALID_VALUE),
	R(LE, EEXIST, ERROR_INVALID_VALUE),
	R(LE, ENOSPC, ERROR_OUT_OF_MEMORY),
	R(LE, ENODEV, ERROR_INVALID_VALUE),

	/* Peer access: the peer is a context. */
	R(PEER, ENOENT, ERROR_INVALID_CONTEXT),
	R(PEER, ELOOP, ERROR_INVALID_CONTEXT),
	R(PEER, EOPNOTSUPP, ERROR_PEER_ACCESS_UNSUPPORTED),
	R(PEER, EEXIST, ERROR_PEER_ACCESS_ALREADY_ENABLED),
	R(PEER, ENOLINK, ERROR_PEER_ACCESS_NOT_ENABLED),
	R(PEER, EBUSY, ERROR_TOO_MANY_PEERS),

	/* An operation that failed on the engine. */
	R(ASYNC, EACCES, ERROR_ILLEGAL_ADDRESS),	/* as a GPU fault */
	R(ASYNC, EPERM, ERROR_ILLEGAL_ADDRESS),
	R(ASYNC, EFAULT, ERROR_ILLEGAL_ADDRESS),
	R(ASYNC, ECANCELED, ERROR_CONTEXT_IS_DESTROYED),
	R(ASYNC, ESRCH, ERROR_CONTEXT_IS_DESTROYED),

	/* A refused submission. */
	R(SUBMIT, ESHUTDOWN, ERROR_CONTEXT_IS_DESTROYED),
	R(SUBMIT, ENOENT, ERROR_INVALID_HANDLE),

	/*
	 * Opening an IPC handle: EINVAL is not a handle of that kind, ESRCH
	 * an export that ended (or a forged one), ELOOP the exporting
	 * process itself (driver 580's answer), ENOMEM (and for memory,
	 * ENODEV: the allocation's GPU is gone) an importer's side that
	 * could not be set up.
	 */
	R(IPC_EVENT_IMPORT, ESRCH, ERROR_INVALID_HANDLE),
	R(IPC_EVENT_IMPORT, ENOENT, ERROR_INVALID_CONTEXT),
	R(IPC_EVENT_IMPORT, ELOOP, ERROR_INVALID_CONTEXT),
	R(IPC_EVENT_IMPORT, ENOMEM, ERROR_MAP_FAILED),
	R(IPC_MEM_IMPORT, ESRCH, ERROR_INVALID_HANDLE),
	R(IPC_MEM_IMPORT, ENOENT, ERROR_INVALID_CONTEXT),
	R(IPC_MEM_IMPORT, ELOOP, ERROR_INVALID_CONTEXT),
	R(IPC_MEM_IMPORT, ENOMEM, ERROR_MAP_FAILED),
	R(IPC_MEM_IMPORT, ENODEV, ERROR_MAP_FAILED),
};

#undef R

static const struct cufab_errno_row *errno_row(enum cufab_errmap map, int err)
{
	size_t i;

	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_errno_rows); i++)
		if (cufab_errno_rows[i].map == map &&
		    cufab_errno_rows[i].err == err)
			return &cufab_errno_rows[i];
	return NULL;
}

CUresult cufab_result(enum cufab_errmap map, int err)
{
	const struct cufab_errno_row *row;

	/*
	 * Every call that succeeds comes here: only GENERIC's row maps 0,
	 * and every map falls back to GENERIC, so 0 needs no scan.
	 */
	if (!err)
		return CUDA_SUCCESS;
	for (;;) {
		row = errno_row(map, err);
		if (row)
			return row->res;
		if (map == CUFAB_ERRMAP_GENERIC)
			break;
		map = cufab_errmap_parent[map];
	}
	cufab_dbg("no CUresult for errno %d (%s)", err, strerror(err));
	return CUDA_ERROR_UNKNOWN;
}

CUresult cufab_errno_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_GENERIC, err);
}

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
