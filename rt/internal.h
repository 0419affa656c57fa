/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libcufabrt: the host side of the CUDA 13.0 runtime API over libcufab.
 *
 * Every file includes NVIDIA's cuda_runtime_api.h, so the types, struct
 * layouts, enum values and prototypes of what we export are NVIDIA's own,
 * then cufab/cuda.h for the driver calls that serve them. Nothing here
 * talks to /dev/cufab: every runtime call is a sequence of cu* calls.
 *
 * Files that take a stream are compiled twice (see the Makefile): once as
 * they stand, giving the legacy-default-stream entry points, and once with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM defined, when both headers rename
 * cudaX to cudaX_ptsz / cudaX_ptds and cuY to cuY_ptsz / cuY_ptds, so the
 * same source gives the per-thread-default-stream entry points calling the
 * driver's per-thread ones. Code of such a file that has no _ptsz twin
 * sits under RT_ONCE.
 */
#ifndef CUFAB_RT_INTERNAL_H
#define CUFAB_RT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>
#include <cufab/cuda.h>

#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define RT_ONCE	1
#endif

#define RT_EXPORT	__attribute__((visibility("default")))
#define RT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* The ordinals a process can name; libcufab handles fewer GPUs. */
#define RT_MAX_DEVICES	64
/* cudaRuntimeGetVersion: the cuda_runtime_api.h this is built from. */
#define RT_VERSION	CUDART_VERSION

/* One line on stderr when CUFAB_DEBUG is set, as libcufab's own log. */
void rt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records @e in the calling thread's last-error slot (not cudaSuccess). */
cudaError_t rt_error(cudaError_t e);

/*
 * The runtime code of a driver result, recorded when it is an error.
 * CUresult and cudaError_t agree on the number of every condition the
 * driver reports (CUDA_ERROR_INVALID_CONTEXT is cudaErrorDeviceUninitialized,
 * CUDA_ERROR_NOT_FOUND cudaErrorSymbolNotFound ...), so a driver result is
 * its own runtime code. Inline: every runtime call ends here, and a
 * success costs a compare.
 */
static inline cudaError_t rt_result(CUresult res)
{
	return res == CUDA_SUCCESS ? cudaSuccess : rt_error((cudaError_t)res);
}

/* cuInit once per process; its result for every later caller. */
CUresult rt_driver_init(void);
/*
 * The runtime's implicit initialisation: the driver, then a context
 * current on the calling thread: the one the thread already has (made
 * current through the driver API) or its current device's primary context.
 */
CUresult rt_init_slow(void);

/*
 * rt_epoch counts cudaDeviceReset calls (from 1); rt_ready is the epoch
 * in which the calling thread last passed rt_init_slow(), 0 before. While
 * they agree, the driver is initialised and the thread's context is of
 * its device's live generation: what rt_init() needs, in two loads, on
 * the path of every runtime call.
 */
extern unsigned int rt_epoch;
extern __thread unsigned int rt_ready __attribute__((tls_model("initial-exec")));

static inline CUresult rt_init(void)
{
	if (__builtin_expect(rt_ready ==
			     __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE), 1))
		return CUDA_SUCCESS;
	return rt_init_slow();
}

/* INVALID_DEVICE unless 0 <= @device < cuDeviceGetCount. */
CUresult rt_device_check(int device);
/*
 * @dev's primary context, retained by the runtime once for the process
 * (until cudaDeviceReset); @gen, if set, receives its generation.
 */
CUresult rt_primary(int dev, CUcontext *ctx, unsigned int *gen);
/* The calling thread's current device (rt_init has run). */
int rt_current_device(void);
/* cudaDeviceReset: a new generation of @device's primary context. */
CUresult rt_device_reset(int device);

/*
 * The runtime's body: initialise, then evaluate the driver call @expr
 * (only if that succeeded), and record the result: return RT_CALL(cuX()).
 */
#define RT_CALL(expr)	rt_result(rt_init() ?: (expr))

static inline CUdeviceptr rt_dptr(const void *p)
{
	return (CUdeviceptr)(uintptr_t)p;
}

#endif
