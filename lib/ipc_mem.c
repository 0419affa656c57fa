// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * CUDA IPC memory: cuIpcGetMemHandle, cuIpcOpenMemHandle_v2 and
 * cuIpcCloseMemHandle for cuMemAlloc memory (kernel/share_ipc.c).
 *
 * The kernel owns the handle (64 bytes only it reads) and the mapping; the
 * library keeps what CUDA counts per context: a handle opened again in the
 * same context returns the same pointer with one more reference, and
 * cuIpcCloseMemHandle unmaps when the last one goes. A context's opened
 * memory is unmapped with it (the kernel does so at its destroy).
 */
#include <stdlib.h>
#include <string.h>

#include "mem.h"

_Static_assert(sizeof(CUipcMemHandle) == CUFAB_IPC_MEM_HANDLE_LEN,
	       "CUipcMemHandle is the kernel's IPC memory handle");

struct ipc_open {
	__u32 ctx_kid;
	unsigned int refs;
	CUdeviceptr addr;
	CUipcMemHandle handle;
	struct ipc_open *next;
};

static struct ipc_open *opened;
static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;

CUFAB_EXPORT CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle,
						CUdeviceptr dptr)
{
	struct cufab_ipc_mem_export arg = { .size = sizeof(arg), .addr = dptr };
	struct cufab_call c;
	CUresult res;
	int ret;

	res = cufab_call_ctx(&c, pHandle);
	if (res != CUDA_SUCCESS)
		return res;
	ret = cufab_ioctl(CUFAB_IOCTL_IPC_MEM_EXPORT, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	memcpy(pHandle->reserved, arg.out_handle, sizeof(arg.out_handle));
	return CUDA_SUCCESS;
}

/* The entry of @handle opened in @ctx_kid, under ipc_lock. */
static struct ipc_open *ipc_find_locked(__u32 ctx_kid,
					const CUipcMemHandle *handle)
{
	struct ipc_open *o;

	for (o = opened; o; o = o->next)
		if (o->ctx_kid == ctx_kid &&
		    !memcmp(&o->handle, handle, sizeof(*handle)))
			return o;
	return NULL;
}

static CUresult ipc_import(const struct cufab_call *c,
			   const CUipcMemHandle *handle, CUdeviceptr *addr)
{
	struct cufab_ipc_mem_import arg = {
		.size = sizeof(arg), .ctx_id = c->ctx_kid,
		/* LAZY_ENABLE_PEER_ACCESS: the context's GPU, if a peer */
		.peer_dev = c->d->index,
	};
	int ret;

	memcpy(arg.handle, handle->reserved, sizeof(arg.handle));
	ret = cufab_ioctl(CUFAB_IOCTL_IPC_MEM_IMPORT, &arg);
	if (!ret)
		*addr = arg.out_addr;
	return cufab_result(CUFAB_ERRMAP_IPC_MEM_IMPORT, -ret);
}

/*
 * Flags must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, as the page says. The
 * lock is held across the import so that two threads opening one handle
 * in one context share a mapping.
 */
CUFAB_EXPORT CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr,
						    CUipcMemHandle handle,
						    unsigned int Flags)
{
	struct cufab_call c;
	struct ipc_open *o;
	CUresult res;

	res = cufab_call_ctx(&c, pdptr &&
			     Flags == CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
	if (res == CUDA_ERROR_INVALID_VALUE &&
	    Flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
		cufab_dbg("refused: Flags 0x%x: must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (0x1)",
			  Flags);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&ipc_lock);
	o = ipc_find_locked(c.ctx_kid, &handle);
	if (o) {
		o->refs++;
		*pdptr = o->addr;
		goto out;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	res = ipc_import(&c, &handle, &o->addr);
	if (res != CUDA_SUCCESS) {
		free(o);
		goto out;
	}
	o->ctx_kid = c.ctx_kid;
	o->refs = 1;
	o->handle = handle;
	o->next = opened;
	opened = o;
	*pdptr = o->addr;
out:
	pthread_mutex_unlock(&ipc_lock);
	return res;
}

/* Any context may close what any context of the process opened. */
CUFAB_EXPORT CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	struct cufab_mem_free arg = {
		.size = sizeof(arg), .flags = CUFAB_MEM_FREE_IPC, .addr = dptr,
	};
	struct ipc_open **pp, *o;
	struct cufab_call c;
	CUresult res;

	res = cufab_call_ctx(&c, 1);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&ipc_lock);
	for (pp = &opened; (o = *pp); pp = &o->next)
		if (o->addr == dptr)
			break;
	if (!o) {
		cufab_dbg("refused: 0x%llx: not an address cuIpcOpenMemHandle returned in this process",
			  (unsigned long long)dptr);
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (--o->refs == 0) {
		*pp = o->next;
		free(o);
		res = cufab_mem_result(-cufab_ioctl(CUFAB_IOCTL_MEM_FREE, &arg));
	}
	pthread_mutex_unlock(&ipc_lock);
	return res;
}

void cufab_ipc_mem_forget_ctx(__u32 ctx_kid)
{
	struct ipc_open **pp, *o;

	/* every cuCtxDestroy comes here; most programs open no IPC memory */
	if (!__atomic_load_n(&opened, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&ipc_lock);
	for (pp = &opened; (o = *pp);) {
		if (o->ctx_kid == ctx_kid) {
			*pp = o->next;
			free(o);
		} else {
			pp = &o->next;
		}
	}
	pthread_mutex_unlock(&ipc_lock);
}

/* A forked child: the parent's mappings are not the child's. */
void cufab_ipc_mem_reset_locked(void)
{
	struct ipc_open *o;

	while ((o = opened)) {
		opened = o->next;
		free(o);
	}
	pthread_mutex_init(&ipc_lock, NULL);
}
