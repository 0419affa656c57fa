// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The entry points nvcc's generated host code calls: registration of fat
 * binaries, kernels and variables at load time, the <<<>>> configuration
 * stack, and kernel launches.
 *
 * cufab runs no device code: no fat binary has an image for its GPUs. So
 * registration records what the program holds (which host stub is which
 * kernel, by name), programs with device code start and run their host
 * code, and a launch fails as NVIDIA's runtime fails one for a device it
 * has no image for: cudaErrorNoKernelImageForDevice, with a CUFAB_DEBUG
 * line naming the kernel. Nothing pretends a kernel ran.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The fat binary wrapper nvcc emits (__fatDeviceText). */
#define RT_FATBIN_MAGIC	0x466243b1

struct rt_fatbin_wrapper {
	int magic;
	int version;
	const void *data;
	void *filename_or_fatbins;
};

/*
 * One registered fat binary. Its address is the handle the program keeps
 * (void **): the first member is what that handle points at.
 */
struct rt_module {
	void *fatbin;
	struct rt_module *next;
};

/* One registered kernel; its address is the cudaKernel_t of __cudaGetKernel. */
struct rt_kernel {
	const void *host_fun;
	const char *name;
	struct rt_module *module;
	struct rt_kernel *next;
};

static pthread_mutex_t rt_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_module *rt_modules;
static struct rt_kernel *rt_kernels;

RT_EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
	const struct rt_fatbin_wrapper *w = fatCubin;
	struct rt_module *m = calloc(1, sizeof(*m));

	if (!m) {
		rt_log("%s: out of memory", __func__);
		abort();	/* the generated code has no error path */
	}
	m->fatbin = fatCubin;
	if (!w || w->magic != RT_FATBIN_MAGIC)
		rt_log("%s: %p is not a fat binary wrapper (magic %#x)",
		       __func__, fatCubin, w ? (unsigned int)w->magic : 0);
	pthread_mutex_lock(&rt_reg_lock);
	m->next = rt_modules;
	rt_modules = m;
	pthread_mutex_unlock(&rt_reg_lock);
	return &m->fatbin;
}

RT_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
}

/* The module's kernels go with it. */
RT_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	struct rt_module *m = (struct rt_module *)fatCubinHandle, **mp;
	struct rt_kernel **kp, *k;

	pthread_mutex_lock(&rt_reg_lock);
	for (kp = &rt_kernels; (k = *kp);) {
		if (k->module == m) {
			*kp = k->next;
			free(k);
		} else {
			kp = &k->next;
		}
	}
	for (mp = &rt_modules; *mp; mp = &(*mp)->next)
		if (*mp == m) {
			*mp = m->next;
			free(m);
			break;
		}
	pthread_mutex_unlock(&rt_reg_lock);
}

RT_EXPORT void __cudaRegisterFunction(void **fatCubinHandle,
				      const char *hostFun, char *deviceFun,
				      const char *deviceName, int thread_limit,
				      uint3 *tid, uint3 *bid, dim3 *bDim,
				      dim3 *gDim, int *wSize)
{
	struct rt_kernel *k = calloc(1, sizeof(*k));

	if (!k) {
		rt_log("%s: out of memory", __func__);
		abort();
	}
	k->host_fun = hostFun;
	k->name = deviceName;
	k->module = (struct rt_module *)fatCubinHandle;
	pthread_mutex_lock(&rt_reg_lock);
	k->next = rt_kernels;
	rt_kernels = k;
	pthread_mutex_unlock(&rt_reg_lock);
}

/*
 * A __device__ or __constant__ variable lives in the image no device here
 * can load: recorded in the debug log only, so cudaGetSymbolAddress and
 * the symbol copies stay absent rather than answer for memory that
 * does not exist.
 */
RT_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
				 char *deviceAddress, const char *deviceName,
				 int ext, size_t size, int constant, int global)
{
	rt_log("module %p: variable %s (%zu bytes) has no device image",
	       (void *)fatCubinHandle, deviceName, size);
}

RT_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle,
					void **hostVarPtrAddress,
					char *deviceAddress,
					const char *deviceName, int ext,
					size_t size, int constant, int global)
{
	rt_log("module %p: managed variable %s (%zu bytes) has no device image",
	       (void *)fatCubinHandle, deviceName, size);
}

/*
 * Loading the module's image, which the generated code asks for before a
 * __managed__ variable is first used: no device here can load it, so the
 * module stays uninitialised (0) and the program's check fails.
 */
RT_EXPORT char __cudaInitModule(void **fatCubinHandle)
{
	rt_log("module %p: no device image to initialise", (void *)fatCubinHandle);
	return 0;
}

static struct rt_kernel *rt_kernel_find(const void *host_fun)
{
	struct rt_kernel *k;

	pthread_mutex_lock(&rt_reg_lock);
	for (k = rt_kernels; k; k = k->next)
		if (k->host_fun == host_fun || (const void *)k == host_fun)
			break;
	pthread_mutex_unlock(&rt_reg_lock);
	return k;
}

/* ---- <<<grid, block, shared, stream>>> ---- */

struct rt_call_config {
	dim3 grid, block;
	size_t shared;
	cudaStream_t stream;
};

/* Launches nest only through host code; a few levels are plenty. */
#define RT_CONFIG_DEPTH	16
static __thread struct rt_call_config rt_configs[RT_CONFIG_DEPTH];
static __thread unsigned int rt_config_depth;

RT_EXPORT unsigned int __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
						   size_t sharedMem,
						   struct CUstream_st *stream)
{
	struct rt_call_config *c;

	if (rt_config_depth >= RT_CONFIG_DEPTH) {
		rt_log("<<<>>>: more than %d nested launch configurations",
		       RT_CONFIG_DEPTH);
		return 1;
	}
	c = &rt_configs[rt_config_depth++];
	c->grid = gridDim;
	c->block = blockDim;
	c->shared = sharedMem;
	c->stream = stream;
	return 0;
}

RT_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
						 size_t *sharedMem,
						 void *stream)
{
	struct rt_call_config *c;

	if (!rt_config_depth)
		return rt_error(cudaErrorMissingConfiguration);
	c = &rt_configs[--rt_config_depth];
	*gridDim = c->grid;
	*blockDim = c->block;
	*sharedMem = c->shared;
	*(cudaStream_t *)stream = c->stream;
	return cudaSuccess;
}

/* ---- launches ---- */

RT_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
	struct rt_kernel *k;

	if (!kernel)
		return rt_error(cudaErrorInvalidValue);
	k = rt_kernel_find(func);
	if (!k)
		return rt_error(cudaErrorInvalidDeviceFunction);
	*kernel = (cudaKernel_t)k;
	return cudaSuccess;
}

static cudaError_t rt_launch(const void *func, dim3 grid, dim3 block,
			     const char *how)
{
	CUresult res = rt_init();
	struct rt_kernel *k;

	if (res != CUDA_SUCCESS)
		return rt_result(res);
	k = rt_kernel_find(func);
	if (!k) {
		rt_log("%s: %p is no registered kernel", how, func);
		return rt_error(cudaErrorInvalidDeviceFunction);
	}
	rt_log("%s: kernel %s <<<(%u,%u,%u), (%u,%u,%u)>>> on device %d: cufab runs no device code, no image of it can run here",
	       how, k->name, grid.x, grid.y, grid.z, block.x, block.y, block.z,
	       rt_current_device());
	return rt_error(cudaErrorNoKernelImageForDevice);
}

RT_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
				       dim3 blockDim, void **args,
				       size_t sharedMem, cudaStream_t stream)
{
	return rt_launch(func, gridDim, blockDim, "cudaLaunchKernel");
}

RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim,
					    dim3 blockDim, void **args,
					    size_t sharedMem,
					    cudaStream_t stream);
RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim,
					    dim3 blockDim, void **args,
					    size_t sharedMem, cudaStream_t stream)
{
	return rt_launch(func, gridDim, blockDim, "cudaLaunchKernel");
}

RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
					 dim3 blockDim, void **args,
					 size_t sharedMem, cudaStream_t stream);
RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
					 dim3 blockDim, void **args,
					 size_t sharedMem, cudaStream_t stream)
{
	return rt_launch(kernel, gridDim, blockDim, "<<<>>>");
}

RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
					      dim3 blockDim, void **args,
					      size_t sharedMem,
					      cudaStream_t stream);
RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
					      dim3 blockDim, void **args,
					      size_t sharedMem,
					      cudaStream_t stream)
{
	return rt_launch(kernel, gridDim, blockDim, "<<<>>>");
}

RT_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func,
						  dim3 gridDim, dim3 blockDim,
						  void **args, size_t sharedMem,
						  cudaStream_t stream)
{
	return rt_launch(func, gridDim, blockDim, __func__);
}

RT_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func,
						       dim3 gridDim,
						       dim3 blockDim,
						       void **args,
						       size_t sharedMem,
						       cudaStream_t stream);
RT_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func,
						       dim3 gridDim,
						       dim3 blockDim,
						       void **args,
						       size_t sharedMem,
						       cudaStream_t stream)
{
	return rt_launch(func, gridDim, blockDim, "cudaLaunchCooperativeKernel");
}

static cudaError_t rt_launch_ex(const cudaLaunchConfig_t *config,
				const void *func)
{
	if (!config)
		return rt_error(cudaErrorInvalidValue);
	return rt_launch(func, config->gridDim, config->blockDim,
			 "cudaLaunchKernelExC");
}

RT_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
					  const void *func, void **args)
{
	return rt_launch_ex(config, func);
}

RT_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
					       const void *func, void **args);
RT_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
					       const void *func, void **args)
{
	return rt_launch_ex(config, func);
}

/* The handle of a registered kernel, as __cudaGetKernel gives nvcc's code. */
RT_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr,
				    const void *entryFuncAddr)
{
	return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

/* The name nvcc registered: the kernel's mangled device name. */
RT_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func)
{
	struct rt_kernel *k;

	if (!name)
		return rt_error(cudaErrorInvalidValue);
	k = rt_kernel_find(func);
	if (!k)
		return rt_error(cudaErrorInvalidDeviceFunction);
	*name = k->name;
	return cudaSuccess;
}

/*
 * A registered kernel's attributes are those of its image for the
 * device, and there is none: the same answer as its launch.
 */
RT_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
					    const void *func)
{
	CUresult res;

	if (!attr)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	if (res != CUDA_SUCCESS)
		return rt_result(res);
	if (!rt_kernel_find(func))
		return rt_error(cudaErrorInvalidDeviceFunction);
	return rt_error(cudaErrorNoKernelImageForDevice);
}
