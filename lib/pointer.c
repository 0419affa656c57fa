// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuPointerGetAttribute and cuPointerGetAttributes: what a pointer is,
 * from one CUFAB_IOCTL_POINTER_INFO (plus one MEM_GET_ACCESS when the
 * access flags of the current context's device are asked for; alone,
 * that attribute costs only the latter).
 *
 * A pointer cufab knows nothing about is CUDA_ERROR_INVALID_VALUE for
 * cuPointerGetAttribute, like unregistered host memory in CUDA;
 * cuPointerGetAttributes answers it with zeroed values instead.
 *
 * cuPointerSetAttribute(SYNC_MEMOPS) is kept here, by allocation
 * (BUFFER_ID, never reused): every synchronous copy and set of cufab is
 * synchronous already (its ioctl returns when the bytes moved), so the
 * attribute changes no behaviour and only reads back what was set.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "pool.h"

struct ptr_query {
	CUdeviceptr ptr;
	struct cufab_pointer_info info;
	CUmemoryPool pool;	/* pool memory: its pool and allocation */
	CUdeviceptr pool_base;
	size_t pool_size;
};

static CUresult ptr_info(struct ptr_query *q)
{
	int ret;

	memset(&q->info, 0, sizeof(q->info));
	q->info.size = sizeof(q->info);
	q->info.addr = q->ptr;
	ret = cufab_ioctl(CUFAB_IOCTL_POINTER_INFO, &q->info);
	if (ret)
		return cufab_mem_result(-ret);
	q->pool = NULL;
	/* a pool's allocation, not the chunk the kernel knows, is the range */
	if (q->info.out_flags & CUFAB_PTR_F_POOL &&
	    !cufab_pool_ptr_info(q->ptr, &q->pool, &q->pool_base, &q->pool_size))
		q->info.out_flags &= ~CUFAB_PTR_F_MAPPED;
	return CUDA_SUCCESS;
}

static int ptr_mapped(const struct ptr_query *q)
{
	return (q->info.out_flags & (CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED)) ==
	       (CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED);
}

static int ptr_linear(const struct ptr_query *q)
{
	return ptr_mapped(q) && (q->info.out_flags & CUFAB_PTR_F_LINEAR);
}

/* cuMemHostRegister memory */
static int ptr_hostreg(const struct ptr_query *q)
{
	return ptr_mapped(q) && (q->info.out_flags & CUFAB_PTR_F_HOSTREG);
}

/* ---- SYNC_MEMOPS: the allocations it is set on ---- */

static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long *sync_ids;
static size_t sync_nr, sync_cap;

static int sync_find(unsigned long long id, size_t *at)
{
	size_t i;

	for (i = 0; i < sync_nr; i++) {
		if (sync_ids[i] == id) {
			*at = i;
			return 1;
		}
	}
	return 0;
}

static int sync_get(unsigned long long id)
{
	size_t at;
	int ret;

	pthread_mutex_lock(&sync_lock);
	ret = sync_find(id, &at);
	pthread_mutex_unlock(&sync_lock);
	return ret;
}

static CUresult sync_set(unsigned long long id, int on)
{
	unsigned long long *n;
	CUresult res = CUDA_SUCCESS;
	size_t at;

	pthread_mutex_lock(&sync_lock);
	if (sync_find(id, &at)) {
		if (!on)
			sync_ids[at] = sync_ids[--sync_nr];
	} else if (on) {
		if (sync_nr == sync_cap) {
			n = realloc(sync_ids, (sync_cap * 2 + 16) * sizeof(*n));
			if (!n) {
				res = CUDA_ERROR_OUT_OF_MEMORY;
				goto out;
			}
			sync_ids = n;
			sync_cap = sync_cap * 2 + 16;
		}
		sync_ids[sync_nr++] = id;
	}
out:
	pthread_mutex_unlock(&sync_lock);
	return res;
}

static int ptr_managed(const struct ptr_query *q)
{
	return ptr_mapped(q) && (q->info.out_flags & CUFAB_PTR_F_MANAGED);
}

/* cuMemAlloc device memory (not managed memory, which reads as device) */
static int ptr_linear_device(const struct ptr_query *q)
{
	return ptr_linear(q) && !ptr_managed(q) &&
	       q->info.out_memory_type == CU_MEMORYTYPE_DEVICE;
}

/* The access flags of the current context's device on ptr. */
static CUresult ptr_access(const struct ptr_query *q, unsigned int *out)
{
	struct cufab_mem_get_access arg = {
		.size = sizeof(arg), .location_type = CUFAB_LOC_DEVICE,
		.addr = q->ptr,
	};
	CUdevice dev;
	CUresult res;
	int ret;

	res = cuCtxGetDevice(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	arg.location_id = (__s32)cufab_device(dev)->index;
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_GET_ACCESS, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*out = arg.out_flags;
	return CUDA_SUCCESS;
}

/* The device ordinal the memory belongs to (host memory: its context's). */
static int ptr_ordinal(const struct ptr_query *q)
{
	/* cuMemAllocHost memory: the kernel reports its context's GPU */
	return q->info.out_dev >= 0 ? cufab_ordinal(q->info.out_dev) : -1;
}

/*
 * cuMemAlloc memory is GPUDirect RDMA capable when its GPU is, cuMemCreate
 * memory when it was asked for.
 */
static int ptr_gdr(const struct ptr_query *q)
{
	const struct cufab_device *d = cufab_device(ptr_ordinal(q));

	if (q->info.out_alloc_flags & CUFAB_ALLOC_F_GPU_DIRECT_RDMA)
		return 1;
	return ptr_linear_device(q) &&
	       d && d->attrs[CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED];
}

/* Writes one attribute of a mapped cufab pointer. */
static CUresult ptr_attr(const struct ptr_query *q, CUpointer_attribute attr,
			 void *data)
{
	const struct cufab_pointer_info *i = &q->info;
	CUcontext ctx = NULL, cur;

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		/*
		 * Only linear and registered memory belong to a context;
		 * VMM memory: NULL.
		 */
		if ((ptr_linear(q) || ptr_hostreg(q)) && i->out_ctx_id) {
			ctx = cufab_ctx_by_kid(i->out_ctx_id);
			if (!ctx)
				return CUDA_ERROR_INVALID_VALUE;
		}
		*(CUcontext *)data = ctx;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)data = i->out_memory_type;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		if (cuCtxGetCurrent(&cur) != CUDA_SUCCESS || !cur)
			return CUDA_ERROR_INVALID_CONTEXT;
		*(CUdeviceptr *)data = q->ptr;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		/* managed memory is the CPU's at the same address */
		if (i->out_memory_type != CU_MEMORYTYPE_HOST && !ptr_managed(q))
			return CUDA_ERROR_INVALID_VALUE;
		*(void **)data = (void *)(uintptr_t)q->ptr;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		*(unsigned long long *)data = i->out_alloc_id;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		*(int *)data = ptr_managed(q);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = ptr_ordinal(q);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
		*(int *)data = ptr_linear_device(q);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		/* The reservation; a module that does not report it: the mapping. */
		*(CUdeviceptr *)data = q->pool ? q->pool_base :
				       i->out_va_length ? i->out_va_base :
				       i->out_range_base;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = q->pool ? q->pool_size :
				  i->out_va_length ? i->out_va_length :
				  i->out_range_length;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		*(unsigned long long *)data = i->out_handle_types;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
		*(int *)data = ptr_gdr(q);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		/* registered memory: READ_ONLY or read-write for every device */
		if (ptr_hostreg(q)) {
			*(unsigned int *)data = i->out_access_flags;
			return CUDA_SUCCESS;
		}
		return ptr_access(q, (unsigned int *)data);
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		*(int *)data = sync_get(i->out_alloc_id);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		*(CUmemoryPool *)data = q->pool;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* The attributes cufab answers, for memory or not. */
static int attr_known(CUpointer_attribute attr)
{
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
	case CU_POINTER_ATTRIBUTE_MAPPED:
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		return 1;
	default:
		return 0;
	}
}

/* Bytes each attribute writes: the zeroed answer for unknown memory. */
static size_t attr_size(CUpointer_attribute attr)
{
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		return 8;
	default:
		return 4;
	}
}

/*
 * MAPPED is the one attribute of an address inside a reservation that is
 * not mapped (0); every other attribute needs mapped cufab memory.
 */
static CUresult ptr_get(const struct ptr_query *q, CUpointer_attribute attr,
			void *data)
{
	if (attr == CU_POINTER_ATTRIBUTE_MAPPED) {
		if (!(q->info.out_flags & CUFAB_PTR_F_CUFAB))
			return CUDA_ERROR_INVALID_VALUE;
		*(int *)data = ptr_mapped(q);
		return CUDA_SUCCESS;
	}
	if (!ptr_mapped(q))
		return CUDA_ERROR_INVALID_VALUE;
	return ptr_attr(q, attr, data);
}

CUFAB_EXPORT CUresult CUDAAPI cuPointerGetAttribute(void *data,
						    CUpointer_attribute attribute,
						    CUdeviceptr ptr)
{
	struct ptr_query q = { .ptr = ptr };
	unsigned int flags;
	CUresult res;

	res = cufab_call_args(data && attr_known(attribute));
	if (res != CUDA_SUCCESS)
		return res;
	/*
	 * The kernel answers for unmapped or foreign addresses itself;
	 * registered memory is in no reservation, so it is asked as below.
	 */
	if (attribute == CU_POINTER_ATTRIBUTE_ACCESS_FLAGS) {
		res = ptr_access(&q, &flags);
		if (res == CUDA_SUCCESS)
			*(unsigned int *)data = flags;
		if (res != CUDA_ERROR_INVALID_VALUE)
			return res;
	}
	res = ptr_info(&q);
	if (res != CUDA_SUCCESS)
		return res;
	return ptr_get(&q, attribute, data);
}

CUFAB_EXPORT CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
						     CUpointer_attribute *attributes,
						     void **data, CUdeviceptr ptr)
{
	struct ptr_query q = { .ptr = ptr };
	unsigned int i;
	CUresult res;

	res = cufab_call_args(numAttributes && attributes && data);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < numAttributes; i++)
		if (!data[i] || !attr_known(attributes[i]))
			return CUDA_ERROR_INVALID_VALUE;
	res = ptr_info(&q);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < numAttributes; i++) {
		if (!ptr_mapped(&q)) {
			/* Not CUDA memory: default values, not an error. */
			memset(data[i], 0, attr_size(attributes[i]));
			if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
				*(int *)data[i] = -1;
			continue;
		}
		res = ptr_get(&q, attributes[i], data[i]);
		if (res != CUDA_SUCCESS)
			return res;
	}
	return CUDA_SUCCESS;
}

/*
 * SYNC_MEMOPS, the one attribute that can be set, on memory cufab mapped
 * (any kind, registered memory included); 0 or 1 (any nonzero value sets
 * it, as the attribute is a boolean).
 */
CUFAB_EXPORT CUresult CUDAAPI cuPointerSetAttribute(const void *value,
						    CUpointer_attribute attribute,
						    CUdeviceptr ptr)
{
	struct ptr_query q = { .ptr = ptr };
	CUcontext cur;
	CUresult res;

	res = cufab_call_args(value &&
			      attribute == CU_POINTER_ATTRIBUTE_SYNC_MEMOPS);
	if (res != CUDA_SUCCESS)
		return res;
	res = cuCtxGetCurrent(&cur);
	if (res == CUDA_SUCCESS && !cur)
		res = CUDA_ERROR_INVALID_CONTEXT;
	if (res == CUDA_SUCCESS)
		res = ptr_info(&q);
	if (res != CUDA_SUCCESS)
		return res;
	if (!ptr_mapped(&q)) {
		cufab_dbg("cuPointerSetAttribute: 0x%llx is not CUDA memory",
			  (unsigned long long)ptr);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return sync_set(q.info.out_alloc_id, *(const unsigned int *)value != 0);
}
