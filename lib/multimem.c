// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cufab extension (include/cufab/multimem.h): the CPU's multimem
 * operations on a multicast mapping, one CUFAB_IOCTL_MULTIMEM each. The
 * kernel does the work against the bindings; float reductions run there
 * too (under kernel_fpu_begin), so every replica is read exactly once.
 */
#include <cufab/multimem.h>

#include "mem.h"

static CUresult mm_call(struct cufab_multimem *arg, unsigned int *skipped)
{
	int ret;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	arg->size = sizeof(*arg);
	ret = cufab_ioctl(CUFAB_IOCTL_MULTIMEM, arg);
	if (ret == -EACCES)	/* the mapping grants no such access */
		return CUDA_ERROR_NOT_PERMITTED;
	if (ret)
		return cufab_copy_result(-ret);
	if (skipped)
		*skipped = arg->out_skipped;
	return CUDA_SUCCESS;
}

static int mm_type_ok(cufabMultimemType type)
{
	return type >= CUFAB_MULTIMEM_U32 && type <= CUFAB_MULTIMEM_F64;
}

CUFAB_EXPORT CUresult cufabMultimemBroadcast(CUdeviceptr mcPtr, const void *src,
					     size_t bytes, unsigned int *skipped)
{
	struct cufab_multimem arg = {
		.op = CUFAB_MM_STORE,
		.dtype = CUFAB_DT_U8,
		.addr = mcPtr,
		.count = bytes,
		.buf = (__u64)(unsigned long)src,
	};

	if (!src && bytes)
		return CUDA_ERROR_INVALID_VALUE;
	return mm_call(&arg, skipped);
}

/*
 * Store, load-reduce and reduce: elements of a checked type, to or from a
 * buffer that must exist even for count 0 (unlike Broadcast's bytes).
 */
static CUresult mm_typed(__u32 mmop, cufabMultimemOp redop,
			 cufabMultimemType type, CUdeviceptr mcPtr,
			 const void *buf, size_t count, unsigned int *skipped)
{
	struct cufab_multimem arg = {
		.op = mmop,
		.redop = redop,
		.dtype = type,
		.addr = mcPtr,
		.count = count,
		.buf = (__u64)(unsigned long)buf,
	};

	if (!mm_type_ok(type) || !buf)
		return CUDA_ERROR_INVALID_VALUE;
	return mm_call(&arg, skipped);
}

/* A store has no reduction; the kernel ignores redop for it. */
CUFAB_EXPORT CUresult cufabMultimemStore(CUdeviceptr mcPtr, cufabMultimemType type,
					 const void *src, size_t count,
					 unsigned int *skipped)
{
	return mm_typed(CUFAB_MM_STORE, 0, type, mcPtr, src, count, skipped);
}

CUFAB_EXPORT CUresult cufabMultimemLoadReduce(void *dst, CUdeviceptr mcPtr,
					      cufabMultimemType type,
					      cufabMultimemOp op, size_t count,
					      unsigned int *skipped)
{
	return mm_typed(CUFAB_MM_LOAD_REDUCE, op, type, mcPtr, dst, count,
			skipped);
}

CUFAB_EXPORT CUresult cufabMultimemReduce(CUdeviceptr mcPtr, cufabMultimemType type,
					  cufabMultimemOp op, const void *src,
					  size_t count, unsigned int *skipped)
{
	return mm_typed(CUFAB_MM_REDUCE, op, type, mcPtr, src, count, skipped);
}
