// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Legacy memory: cuMemAlloc/cuMemFree, cuMemAllocHost/cuMemFreeHost,
 * synchronous copies and memsets, cuMemGetAddressRange; the allocation
 * and freeing of managed memory (managed.c) go the same way.
 *
 * These calls work in the current context, as in CUDA: without one they
 * return CUDA_ERROR_INVALID_CONTEXT, and the context's device is the one
 * that allocates, copies or sets (the kernel checks that device's access
 * to every cufab range touched). One ioctl each.
 *
 * The kernel ties each allocation to the context current at cuMemAlloc
 * (its kernel id) and frees it when that context is destroyed, as CUDA
 * does; the library remembers which context made each legacy allocation
 * for CU_POINTER_ATTRIBUTE_CONTEXT (a small tree keyed by base address)
 * and forgets a destroyed context's.
 */
#include <search.h>
#include <stdlib.h>
#include <unistd.h>

#include "mem.h"

struct legacy_alloc {
	CUdeviceptr base;
	CUcontext ctx;
	CUdevice dev;
	__u32 kid;	/* the context's kernel id */
};

static void *legacy_root;
static pid_t legacy_pid;
static pthread_mutex_t legacy_lock = PTHREAD_MUTEX_INITIALIZER;

static int legacy_cmp(const void *a, const void *b)
{
	const struct legacy_alloc *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * Entries of a parent process mean nothing in a forked child (its client
 * starts empty); they are dropped, not freed, as the child cannot tell
 * which thread of the parent held them.
 */
static void legacy_check_pid_locked(void)
{
	if (legacy_pid != cufab.pid) {
		legacy_root = NULL;
		legacy_pid = cufab.pid;
	}
}

static void legacy_remember(CUdeviceptr base, CUcontext ctx, CUdevice dev,
			    __u32 kid)
{
	struct legacy_alloc *a = malloc(sizeof(*a));

	/* Without memory the CONTEXT attribute of this pointer reads NULL. */
	if (!a)
		return;
	a->base = base;
	a->ctx = ctx;
	a->dev = dev;
	a->kid = kid;
	pthread_mutex_lock(&legacy_lock);
	legacy_check_pid_locked();
	if (!tsearch(a, &legacy_root, legacy_cmp))
		free(a);
	pthread_mutex_unlock(&legacy_lock);
}

static void legacy_forget(CUdeviceptr base)
{
	struct legacy_alloc key = { .base = base }, **found;
	struct legacy_alloc *a = NULL;

	pthread_mutex_lock(&legacy_lock);
	legacy_check_pid_locked();
	found = tfind(&key, &legacy_root, legacy_cmp);
	if (found) {
		a = *found;
		tdelete(&key, &legacy_root, legacy_cmp);
	}
	pthread_mutex_unlock(&legacy_lock);
	free(a);
}

/* The entries of one context, collected by twalk_r() for deletion. */
struct legacy_victims {
	__u32 kid;
	size_t n, cap;
	struct legacy_alloc **a;
};

static void legacy_collect(const void *node, VISIT which, void *arg)
{
	struct legacy_alloc *a = *(struct legacy_alloc * const *)node;
	struct legacy_victims *v = arg;
	struct legacy_alloc **grown;

	if ((which != postorder && which != leaf) || a->kid != v->kid)
		return;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 16;
		grown = realloc(v->a, v->cap * sizeof(*v->a));
		if (!grown)
			return;	/* the rest keep a stale CONTEXT attribute */
		v->a = grown;
	}
	v->a[v->n++] = a;
}

void cufab_legacy_forget_ctx(__u32 kid)
{
	struct legacy_victims v = { .kid = kid };
	size_t i;

	pthread_mutex_lock(&legacy_lock);
	legacy_check_pid_locked();
	twalk_r(legacy_root, legacy_collect, &v);
	for (i = 0; i < v.n; i++) {
		tdelete(v.a[i], &legacy_root, legacy_cmp);
		free(v.a[i]);
	}
	pthread_mutex_unlock(&legacy_lock);
	free(v.a);
}

/* 0 and the allocating context and device, or -1 when unknown. */
int cufab_legacy_lookup(CUdeviceptr base, CUcontext *ctx, CUdevice *dev)
{
	struct legacy_alloc key = { .base = base }, **found;
	int ret = -1;

	pthread_mutex_lock(&legacy_lock);
	legacy_check_pid_locked();
	found = tfind(&key, &legacy_root, legacy_cmp);
	if (found) {
		*ctx = (*found)->ctx;
		*dev = (*found)->dev;
		ret = 0;
	}
	pthread_mutex_unlock(&legacy_lock);
	return ret;
}

/* The current context and the kernel index of its device. */
static CUresult current_device(CUcontext *ctx, CUdevice *dev, __u32 *kindex)
{
	CUresult res;

	if (!cufab_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	res = cuCtxGetDevice(dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (ctx) {
		res = cuCtxGetCurrent(ctx);
		if (res != CUDA_SUCCESS)
			return res;
	}
	*kindex = cufab_device(*dev)->index;
	return CUDA_SUCCESS;
}

/* @request under a current context, its errno as a memory CUresult. */
static CUresult current_ioctl(unsigned long request, void *arg)
{
	CUdevice dev;
	CUresult res;
	__u32 kindex;
	int ret;

	res = current_device(NULL, &dev, &kindex);
	if (res != CUDA_SUCCESS)
		return res;
	ret = cufab_ioctl(request, arg);
	if (ret)
		return cufab_mem_result(-ret);
	return CUDA_SUCCESS;
}

CUresult cufab_legacy_alloc(CUdeviceptr *out, size_t bytesize, __u32 flags,
			    __u32 attach)
{
	struct cufab_mem_alloc arg = {
		.size = sizeof(arg), .flags = flags, .attach = attach,
		.length = bytesize,
	};
	CUcontext ctx;
	CUdevice dev;
	CUresult res;
	int ret;

	if (!cufab_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	res = current_device(&ctx, &dev, &arg.dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuCtxDestroy of this context frees the allocation */
	arg.ctx_id = cufab_ctx_kid(ctx);
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_ALLOC, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	legacy_remember(arg.out_addr, ctx, dev, arg.ctx_id);
	*out = arg.out_addr;
	return CUDA_SUCCESS;
}

static CUresult mem_free(CUdeviceptr addr, __u32 flags)
{
	struct cufab_mem_free arg = {
		.size = sizeof(arg), .flags = flags, .addr = addr,
	};
	CUresult res;

	res = current_ioctl(CUFAB_IOCTL_MEM_FREE, &arg);
	if (res != CUDA_SUCCESS)
		return res;
	legacy_forget(addr);
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	return cufab_legacy_alloc(dptr, bytesize, 0, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	return mem_free(dptr, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	CUdeviceptr p;
	CUresult res;

	if (cufab_ready() && !pp)
		return CUDA_ERROR_INVALID_VALUE;
	res = cufab_legacy_alloc(pp ? &p : NULL, bytesize, CUFAB_MEM_ALLOC_HOST,
				 0);
	if (res == CUDA_SUCCESS)
		*pp = (void *)(uintptr_t)p;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
	return mem_free((uintptr_t)p, CUFAB_MEM_ALLOC_HOST);
}

/* Copies: with unified addressing every direction is the same copy. */
static CUresult mem_copy(CUdeviceptr dst, CUdeviceptr src, size_t count)
{
	struct cufab_mem_copy arg = {
		.size = sizeof(arg), .dst = dst, .src = src, .length = count,
	};
	CUdevice dev;
	CUresult res;

	res = current_device(NULL, &dev, &arg.dev);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_copy_result(-cufab_ioctl(CUFAB_IOCTL_MEM_COPY, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src,
				       size_t ByteCount)
{
	return mem_copy(dst, src, ByteCount);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice,
					      const void *srcHost,
					      size_t ByteCount)
{
	return mem_copy(dstDevice, (uintptr_t)srcHost, ByteCount);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost,
					      CUdeviceptr srcDevice,
					      size_t ByteCount)
{
	return mem_copy((uintptr_t)dstHost, srcDevice, ByteCount);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice,
					      CUdeviceptr srcDevice,
					      size_t ByteCount)
{
	return mem_copy(dstDevice, srcDevice, ByteCount);
}

static CUresult mem_set(CUdeviceptr dst, __u32 value, __u32 elem_size,
			size_t n)
{
	struct cufab_mem_set arg = {
		.size = sizeof(arg), .elem_size = elem_size, .dst = dst,
		.count = n, .value = value,
	};
	CUdevice dev;
	CUresult res;

	res = current_device(NULL, &dev, &arg.dev);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_copy_result(-cufab_ioctl(CUFAB_IOCTL_MEM_SET, &arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice,
					    unsigned char uc, size_t N)
{
	return mem_set(dstDevice, uc, 1, N);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice,
					     unsigned short us, size_t N)
{
	return mem_set(dstDevice, us, 2, N);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice,
					     unsigned int ui, size_t N)
{
	return mem_set(dstDevice, ui, 4, N);
}

/*
 * The allocation (cuMemAlloc, cuMemAllocHost) or mapping (cuMemMap) that
 * contains dptr; anything else is CUDA_ERROR_NOT_FOUND.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase,
						      size_t *psize,
						      CUdeviceptr dptr)
{
	struct cufab_pointer_info arg = { .size = sizeof(arg), .addr = dptr };
	CUresult res;

	res = current_ioctl(CUFAB_IOCTL_POINTER_INFO, &arg);
	if (res != CUDA_SUCCESS)
		return res;
	if (!(arg.out_flags & CUFAB_PTR_F_MAPPED))
		return CUDA_ERROR_NOT_FOUND;
	if (pbase)
		*pbase = arg.out_range_base;
	if (psize)
		*psize = arg.out_range_length;
	return CUDA_SUCCESS;
}
