// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Primary contexts: one per device, shared by every user in the process
 * (the CUDA runtime among them) and reference counted.
 *
 * The first retain creates the kernel context with the flags last set by
 * cuDevicePrimaryCtxSetFlags; the last release destroys it. Reset destroys
 * it at once but keeps the count, so that users who retained it may still
 * release it; the next retain creates it again. The flags survive both.
 * The handle is the same for every activation of a device's primary
 * context; while inactive it reports CUDA_ERROR_CONTEXT_IS_DESTROYED to
 * threads that still have it current.
 *
 * All state is under cufab_lock.
 */
#include <string.h>

#include "internal.h"

struct cufab_primary {
	unsigned int refcount;	/* retains not yet released */
	unsigned int flags;
	int active;
	__u32 kid;
};

static struct cufab_primary primaries[CUFAB_MAX_GPUS];

/* In a forked child: the parent's primary contexts are not ours. */
void cufab_primary_reset_locked(void)
{
	int i;

	for (i = 0; i < CUFAB_MAX_GPUS; i++)
		cufab_primary_deactivate(i);
	memset(primaries, 0, sizeof(primaries));
}

static CUresult primary_check(CUdevice dev)
{
	return cufab_call_dev(1, dev, CUDA_ERROR_INVALID_DEVICE, NULL);
}

/* Destroys the kernel context of an active primary context. */
static CUresult primary_deactivate_locked(CUdevice dev)
{
	struct cufab_primary *p = &primaries[dev];
	CUresult res;

	res = cufab_ctx_kernel_destroy(p->kid);
	if (res != CUDA_SUCCESS)
		return res;
	cufab_primary_deactivate(dev);
	p->active = 0;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	struct cufab_primary *p;
	CUresult res;

	res = cufab_call_args(!!pctx);
	if (res != CUDA_SUCCESS)
		return res;
	res = primary_check(dev);
	if (res != CUDA_SUCCESS)
		return res;

	pthread_mutex_lock(&cufab_lock);
	p = &primaries[dev];
	if (!p->active) {
		res = cufab_ctx_kernel_create(p->flags, dev, &p->kid);
		if (res == CUDA_SUCCESS) {
			cufab_primary_activate(dev, p->kid, p->flags);
			p->active = 1;
		}
	}
	if (res == CUDA_SUCCESS) {
		p->refcount++;
		*pctx = cufab_primary_handle(dev);
	}
	pthread_mutex_unlock(&cufab_lock);
	return res;
}

/* Unlike cuCtxDestroy, never pops the context from any thread's stack. */
CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	struct cufab_primary *p;
	CUresult res = primary_check(dev);

	if (res != CUDA_SUCCESS)
		return res;

	pthread_mutex_lock(&cufab_lock);
	p = &primaries[dev];
	if (!p->refcount)
		res = CUDA_ERROR_INVALID_CONTEXT;
	else if (p->refcount == 1 && p->active)
		res = primary_deactivate_locked(dev);
	if (res == CUDA_SUCCESS)
		p->refcount--;
	pthread_mutex_unlock(&cufab_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	CUresult res = primary_check(dev);

	if (res != CUDA_SUCCESS)
		return res;

	pthread_mutex_lock(&cufab_lock);
	if (primaries[dev].active)
		res = primary_deactivate_locked(dev);
	pthread_mutex_unlock(&cufab_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
							 int *active)
{
	CUresult res = primary_check(dev);

	if (res != CUDA_SUCCESS)
		return res;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&cufab_lock);
	*flags = primaries[dev].flags;
	*active = primaries[dev].active;
	pthread_mutex_unlock(&cufab_lock);
	return CUDA_SUCCESS;
}

/*
 * Since CUDA 11 the flags of an active primary context change in place;
 * before (the unversioned symbol) that was CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE.
 */
CUresult cufab_primary_set_flags_checked(CUdevice dev, unsigned int flags,
					 int refuse_active)
{
	struct cufab_primary *p;
	CUresult res = primary_check(dev);

	if (res != CUDA_SUCCESS)
		return res;
	if (!cufab_ctx_flags_ok(flags))
		return CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&cufab_lock);
	p = &primaries[dev];
	if (p->active && refuse_active) {
		res = CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
	} else {
		p->flags = flags;
		if (p->active)
			cufab_primary_set_flags(dev, flags);
	}
	pthread_mutex_unlock(&cufab_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
	return cufab_primary_set_flags_checked(dev, flags, 0);
}
