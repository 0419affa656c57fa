// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The runtime's state: implicit initialisation, each thread's current
 * device and last error, and the primary contexts the runtime holds.
 *
 * The first call that needs the device initialises the driver and makes a
 * context current on the calling thread: one already current there
 * through the driver API (the runtime adopts it, as NVIDIA's does), else
 * the primary context of the thread's current device (0 until
 * cudaSetDevice). The runtime retains each primary context once for the
 * process, so it is the very context cuDevicePrimaryCtxRetain returns.
 *
 * cudaDeviceReset destroys a primary context under every thread that has
 * it current: it starts a new generation of the device, and a thread that
 * activated an older one makes the device's context current again on its
 * next call.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct rt_device {
	CUcontext ctx;		/* retained primary context, NULL after reset */
	unsigned int gen;	/* bumped by cudaDeviceReset */
};

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_device rt_devices[RT_MAX_DEVICES];

static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static CUresult rt_init_result;
/* rt_once has run: every runtime call checks this before pthread_once */
static int rt_init_done;

struct rt_thread {
	int device;		/* cudaSetDevice's, or the adopted context's */
	int active;		/* a context of @device is current here */
	unsigned int gen;	/* generation of @device that was activated */
	cudaError_t last_error;
	int sticky;		/* last_error survives cudaGetLastError */
};

/*
 * initial-exec: every runtime call reads it (rt_init, rt_error), and the
 * default model for a shared library costs a __tls_get_addr() call per
 * function; it is small enough for the static TLS surplus a dlopen()ed
 * library may use, as libcufab's thread state is.
 */
static __thread struct rt_thread rt_self __attribute__((tls_model("initial-exec")));

/* rt_init()'s fast path (internal.h): bumped by cudaDeviceReset. */
unsigned int rt_epoch = 1;
__thread unsigned int rt_ready __attribute__((tls_model("initial-exec")));

void rt_log(const char *fmt, ...)
{
	const char *dbg = getenv("CUFAB_DEBUG");
	va_list ap;

	if (!dbg || !*dbg)
		return;
	va_start(ap, fmt);
	fputs("cufabrt: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * The errors that leave the context unusable: NVIDIA's runtime keeps
 * returning them until cudaDeviceReset. libcufab reports none of them
 * today (no kernel runs), but a driver that did would get these semantics.
 */
static int rt_sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorECCUncorrectable:
	case cudaErrorNvlinkUncorrectable:
	case cudaErrorContained:
	case cudaErrorIllegalAddress:
	case cudaErrorAssert:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorLaunchFailure:
	case cudaErrorTensorMemoryLeak:
		return 1;
	default:
		return 0;
	}
}

cudaError_t rt_error(cudaError_t e)
{
	if (e != cudaSuccess && !rt_self.sticky) {
		rt_self.last_error = e;
		rt_self.sticky = rt_sticky(e);
	}
	return e;
}

RT_EXPORT cudaError_t cudaGetLastError(void)
{
	cudaError_t e = rt_self.last_error;

	if (!rt_self.sticky)
		rt_self.last_error = cudaSuccess;
	return e;
}

RT_EXPORT cudaError_t cudaPeekAtLastError(void)
{
	return rt_self.last_error;
}

/*
 * A forked child starts over, as libcufab's own state does: it initialises
 * the driver again on its first call and holds no primary context yet.
 */
static void rt_atfork_child(void)
{
	pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	rt_once = once;
	__atomic_store_n(&rt_init_done, 0, __ATOMIC_RELAXED);
	rt_lock = lock;
	memset(rt_devices, 0, sizeof(rt_devices));
	rt_self.active = 0;
	rt_ready = 0;
}

static void rt_driver_once(void)
{
	static int registered;

	if (!registered) {
		registered = 1;
		pthread_atfork(NULL, NULL, rt_atfork_child);
	}
	rt_init_result = cuInit(0);
	if (rt_init_result != CUDA_SUCCESS)
		rt_log("cuInit failed with %d: no runtime call can succeed",
		       rt_init_result);
	__atomic_store_n(&rt_init_done, 1, __ATOMIC_RELEASE);
}

CUresult rt_driver_init(void)
{
	/* pairs with the release in rt_driver_once(): the result is set */
	if (!__atomic_load_n(&rt_init_done, __ATOMIC_ACQUIRE))
		pthread_once(&rt_once, rt_driver_once);
	return rt_init_result;
}

CUresult rt_device_check(int device)
{
	int n = 0;

	if (cuDeviceGetCount(&n) != CUDA_SUCCESS || device < 0 || device >= n)
		return CUDA_ERROR_INVALID_DEVICE;
	return CUDA_SUCCESS;
}

CUresult rt_primary(int dev, CUcontext *ctx, unsigned int *gen)
{
	CUresult res = rt_device_check(dev);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&rt_lock);
	if (!rt_devices[dev].ctx)
		res = cuDevicePrimaryCtxRetain(&rt_devices[dev].ctx, dev);
	*ctx = rt_devices[dev].ctx;
	if (gen)
		*gen = rt_devices[dev].gen;
	pthread_mutex_unlock(&rt_lock);
	return res;
}

/* Make @dev's primary context current on this thread. */
static CUresult rt_activate(int dev)
{
	unsigned int gen;
	CUcontext ctx;
	CUresult res;

	res = rt_primary(dev, &ctx, &gen);
	if (res == CUDA_SUCCESS)
		res = cuCtxSetCurrent(ctx);
	if (res != CUDA_SUCCESS)
		return res;
	rt_self.device = dev;
	rt_self.active = 1;
	rt_self.gen = gen;
	return CUDA_SUCCESS;
}

/* A context the program made current through the driver API. */
static int rt_adopt(void)
{
	CUcontext cur = NULL;
	CUdevice dev;

	if (cuCtxGetCurrent(&cur) != CUDA_SUCCESS || !cur ||
	    cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
	    dev < 0 || dev >= RT_MAX_DEVICES)
		return 0;
	rt_self.device = dev;
	rt_self.active = 1;
	pthread_mutex_lock(&rt_lock);
	rt_self.gen = rt_devices[dev].gen;
	pthread_mutex_unlock(&rt_lock);
	return 1;
}

/* Read without the lock: cudaDeviceReset bumps it after its work is done. */
static int rt_current_gen(int dev)
{
	return __atomic_load_n(&rt_devices[dev].gen, __ATOMIC_ACQUIRE) ==
	       rt_self.gen;
}

/*
 * The epoch is read first: a reset after it leaves rt_ready behind the
 * epoch it bumps, and the next call comes here again.
 */
CUresult rt_init_slow(void)
{
	unsigned int epoch = __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE);
	CUresult res = rt_driver_init();

	if (res != CUDA_SUCCESS)
		return res;
	if (rt_self.active && rt_current_gen(rt_self.device))
		res = CUDA_SUCCESS;
	else if (!rt_self.active && rt_adopt())
		res = CUDA_SUCCESS;
	else
		res = rt_activate(rt_self.device);
	if (res == CUDA_SUCCESS)
		rt_ready = epoch;
	return res;
}

int rt_current_device(void)
{
	return rt_self.device;
}

CUresult rt_device_reset(int dev)
{
	CUcontext ctx;
	CUresult res;

	pthread_mutex_lock(&rt_lock);
	res = cuDevicePrimaryCtxReset(dev);
	ctx = rt_devices[dev].ctx;
	if (res == CUDA_SUCCESS && ctx) {
		/* the reset kept our retain; drop it with the generation */
		cuDevicePrimaryCtxRelease(dev);
		rt_devices[dev].ctx = NULL;
	}
	if (res == CUDA_SUCCESS) {
		__atomic_store_n(&rt_devices[dev].gen, rt_devices[dev].gen + 1,
				 __ATOMIC_RELEASE);
		/* after the generation: every thread checks it again */
		__atomic_store_n(&rt_epoch, rt_epoch + 1 ?: 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&rt_lock);
	if (res == CUDA_SUCCESS) {
		rt_ready = 0;
		rt_self.active = 0;
		rt_self.last_error = cudaSuccess;
		rt_self.sticky = 0;
		if (rt_self.device == dev)
			cuCtxSetCurrent(NULL);
	}
	return res;
}

/* ---- the current device ---- */

RT_EXPORT cudaError_t cudaSetDevice(int device)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS)
		res = rt_activate(device);
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaInitDevice(int device, unsigned int deviceFlags,
				     unsigned int flags)
{
	CUresult res = rt_driver_init();
	CUcontext ctx;

	if (res == CUDA_SUCCESS && (flags & ~(unsigned int)cudaInitDeviceFlagsAreValid))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = rt_device_check(device);
	if (res == CUDA_SUCCESS && (flags & cudaInitDeviceFlagsAreValid))
		res = cuDevicePrimaryCtxSetFlags(device, deviceFlags);
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	/* initialise the primary context without making it current */
	return rt_result(rt_primary(device, &ctx, NULL));
}

RT_EXPORT cudaError_t cudaGetDevice(int *device)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && !device)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	if (!rt_self.active)
		rt_adopt();
	*device = rt_self.device;
	return cudaSuccess;
}

RT_EXPORT cudaError_t cudaDeviceReset(void)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && !rt_self.active)
		rt_adopt();
	if (res == CUDA_SUCCESS)
		res = rt_device_reset(rt_self.device);
	return rt_result(res);
}
