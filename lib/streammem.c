// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64
 * and cuStreamBatchMemOp, the _v2 names cuda.h maps them to and their
 * _ptsz forms. The v1 ABI of CUDA before 11.7 (the unsuffixed symbols) is
 * absent: its attributes (92..94) read 0, as on a driver without the
 * module parameter that enabled it.
 *
 * Each call is one CUFAB_IOCTL_STREAM_MEMOP: a batch the engine runs in
 * stream order, parking the stream while a wait's condition does not hold
 * (kernel/streammem.c). The checks here are the driver's:
 *
 * - CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER is INVALID_VALUE (driver 580
 *   refuses it in the v2 API, which the header notes);
 * - CU_STREAM_WAIT_VALUE_FLUSH and CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES
 *   are NOT_SUPPORTED: CAN_FLUSH_REMOTE_WRITES (98) reads 0, as on every
 *   x86 platform;
 * - CU_STREAM_MEM_OP_BARRIER (SYS or GPU scope) needs no entry: every
 *   write of the engine is preceded by a full barrier.
 */
#include <errno.h>
#include <string.h>

#include "compat.h"
#include "stream.h"

/* The condition bits of a wait's flags. */
#define WAIT_COND_MASK	0x3u

/* A CUstreamWaitValue_flags value as a kernel condition. */
static CUresult wait_cond(unsigned int flags, __u32 *cond)
{
	if (flags & ~(WAIT_COND_MASK | CU_STREAM_WAIT_VALUE_FLUSH)) {
		cufab_dbg("refused: flags 0x%x: must be CU_STREAM_WAIT_VALUE_GEQ, EQ, AND or NOR (0x0 ..0x3)",
			  flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (flags & CU_STREAM_WAIT_VALUE_FLUSH) {
		cufab_dbg("refused: flags 0x%x: CU_STREAM_WAIT_VALUE_FLUSH needs CAN_FLUSH_REMOTE_WRITES, which reads 0",
			  flags);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	*cond = flags & WAIT_COND_MASK;
	return CUDA_SUCCESS;
}

static CUresult write_flags(unsigned int flags)
{
	if (!flags)
		return CUDA_SUCCESS;
	cufab_dbg("refused: flags 0x%x: must be CU_STREAM_WRITE_VALUE_DEFAULT (0x0); the v2 API has no NO_MEMORY_BARRIER",
		  flags);
	return CUDA_ERROR_INVALID_VALUE;
}

/* Submit @n kernel entries to stream @h. */
static CUresult memop_submit(CUstream h, int pt, struct cufab_memop *ops,
			     unsigned int n)
{
	struct cufab_stream_memop arg = {
		.size = sizeof(arg), .count = n, .ops_ptr = (uintptr_t)ops,
	};
	struct cufab_lstream *s;
	CUresult res;
	int ret;

	res = cufab_stream_resolve(h, pt, &s);
	/* not captured into nodes: refused in a capture */
	if (res == CUDA_SUCCESS && cufab_capture_any())
		res = cufab_capture_refuse(s, "a stream memory operation");
	if (res != CUDA_SUCCESS || !n)
		return res;
	arg.stream_id = s->kid;
	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_MEMOP, &arg);
	if (ret)
		return cufab_submit_result(-ret);
	cufab_atomic_max(&s->last, arg.out_seq);
	return CUDA_SUCCESS;
}

static CUresult wait_value(CUstream h, CUdeviceptr addr, cuuint64_t value,
			   unsigned int flags, int wide, int pt)
{
	struct cufab_memop m = {
		.op = wide ? CUFAB_MEMOP_WAIT64 : CUFAB_MEMOP_WAIT32,
		.addr = addr, .value = value,
	};
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = wait_cond(flags, &m.flags);
	return res == CUDA_SUCCESS ? memop_submit(h, pt, &m, 1) : res;
}

static CUresult write_value(CUstream h, CUdeviceptr addr, cuuint64_t value,
			    unsigned int flags, int wide, int pt)
{
	struct cufab_memop m = {
		.op = wide ? CUFAB_MEMOP_WRITE64 : CUFAB_MEMOP_WRITE32,
		.addr = addr, .value = value,
	};
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = write_flags(flags);
	return res == CUDA_SUCCESS ? memop_submit(h, pt, &m, 1) : res;
}

/*
 * One CUstreamBatchMemOpParams as a kernel entry: *@n grows by one, or
 * stays for a barrier.
 */
static CUresult batch_entry(const CUstreamBatchMemOpParams *p,
			    struct cufab_memop *m, unsigned int *n)
{
	int wide = p->operation == CU_STREAM_MEM_OP_WAIT_VALUE_64 ||
		   p->operation == CU_STREAM_MEM_OP_WRITE_VALUE_64;
	CUresult res;

	memset(m, 0, sizeof(*m));
	switch (p->operation) {
	case CU_STREAM_MEM_OP_WAIT_VALUE_32:
	case CU_STREAM_MEM_OP_WAIT_VALUE_64:
		res = wait_cond(p->waitValue.flags, &m->flags);
		m->op = wide ? CUFAB_MEMOP_WAIT64 : CUFAB_MEMOP_WAIT32;
		m->addr = p->waitValue.address;
		m->value = wide ? p->waitValue.value64 : p->waitValue.value;
		break;
	case CU_STREAM_MEM_OP_WRITE_VALUE_32:
	case CU_STREAM_MEM_OP_WRITE_VALUE_64:
		res = write_flags(p->writeValue.flags);
		m->op = wide ? CUFAB_MEMOP_WRITE64 : CUFAB_MEMOP_WRITE32;
		m->addr = p->writeValue.address;
		m->value = wide ? p->writeValue.value64 : p->writeValue.value;
		break;
	case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
		return p->flushRemoteWrites.flags ? CUDA_ERROR_INVALID_VALUE :
		       CUDA_ERROR_NOT_SUPPORTED;
	case CU_STREAM_MEM_OP_BARRIER:
		return p->memoryBarrier.flags > CU_STREAM_MEMORY_BARRIER_TYPE_GPU ?
		       CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	default:
		cufab_dbg("refused: operation %d: not a CUstreamBatchMemOpType",
			  (int)p->operation);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (res == CUDA_SUCCESS)
		(*n)++;
	return res;
}

static CUresult batch(CUstream h, unsigned int count,
		      CUstreamBatchMemOpParams *params, unsigned int flags,
		      int pt)
{
	struct cufab_memop ops[CUFAB_MEMOP_MAX_BATCH];
	unsigned int i, n = 0;
	CUresult res;

	res = cufab_call_args(!!params);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags || !count || count > CUFAB_MEMOP_MAX_BATCH) {
		cufab_dbg("refused: count %u, flags 0x%x: count must be 1 ..%u and flags 0",
			  count, flags, CUFAB_MEMOP_MAX_BATCH);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < count; i++) {
		res = batch_entry(&params[i], &ops[n], &n);
		if (res != CUDA_SUCCESS)
			return res;
	}
	return memop_submit(h, pt, ops, n);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWaitValue32_v2(CUstream stream,
						     CUdeviceptr addr,
						     cuuint32_t value,
						     unsigned int flags)
{
	return wait_value(stream, addr, value, flags, 0, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream stream,
							  CUdeviceptr addr,
							  cuuint32_t value,
							  unsigned int flags)
{
	return wait_value(stream, addr, value, flags, 0, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWaitValue64_v2(CUstream stream,
						     CUdeviceptr addr,
						     cuuint64_t value,
						     unsigned int flags)
{
	return wait_value(stream, addr, value, flags, 1, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream stream,
							  CUdeviceptr addr,
							  cuuint64_t value,
							  unsigned int flags)
{
	return wait_value(stream, addr, value, flags, 1, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWriteValue32_v2(CUstream stream,
						      CUdeviceptr addr,
						      cuuint32_t value,
						      unsigned int flags)
{
	return write_value(stream, addr, value, flags, 0, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWriteValue32_v2_ptsz(CUstream stream,
							   CUdeviceptr addr,
							   cuuint32_t value,
							   unsigned int flags)
{
	return write_value(stream, addr, value, flags, 0, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWriteValue64_v2(CUstream stream,
						      CUdeviceptr addr,
						      cuuint64_t value,
						      unsigned int flags)
{
	return write_value(stream, addr, value, flags, 1, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWriteValue64_v2_ptsz(CUstream stream,
							   CUdeviceptr addr,
							   cuuint64_t value,
							   unsigned int flags)
{
	return write_value(stream, addr, value, flags, 1, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamBatchMemOp_v2(CUstream stream,
						    unsigned int count,
						    CUstreamBatchMemOpParams *paramArray,
						    unsigned int flags)
{
	return batch(stream, count, paramArray, flags, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamBatchMemOp_v2_ptsz(CUstream stream,
							 unsigned int count,
							 CUstreamBatchMemOpParams *paramArray,
							 unsigned int flags)
{
	return batch(stream, count, paramArray, flags, 1);
}
