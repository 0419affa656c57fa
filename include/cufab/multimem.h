/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * cufab extension, not part of CUDA: CPU stand-ins for the multimem
 * instructions (multimem.st, multimem.ld_reduce, multimem.red) that a GPU
 * issues on a multicast address (a cuMemMap of a cuMulticastCreate
 * handle).
 *
 * The CPU cannot load or store through a multicast mapping (a touch is
 * SIGBUS, as only multimem instructions may use one on hardware). These
 * calls do what the NVSwitch does instead, against the memory bound to the
 * object: a store reaches every bound replica, a load-reduce combines all
 * of them, a reduce updates each in place. Replicas of team members that
 * have nothing bound at a touched offset are skipped, as on hardware; the
 * calls report how many through *skipped (may be NULL), and cufabctl
 * monitor shows the event.
 *
 * mcPtr must lie in a multicast mapping of the caller (with write access
 * for stores and reductions, read access for loads) and be aligned to the
 * element size; [mcPtr, mcPtr + count * size) must stay in that mapping.
 * Return values are CUresult codes: CUDA_ERROR_INVALID_VALUE for a bad
 * pointer, range, type or operation (bitwise operations on floats),
 * CUDA_ERROR_NOT_PERMITTED without access, CUDA_ERROR_OUT_OF_MEMORY.
 */
#ifndef CUFAB_MULTIMEM_H
#define CUFAB_MULTIMEM_H

#include <stddef.h>

#include <cufab/cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cufabMultimemType_enum {
	CUFAB_MULTIMEM_U32 = 1,
	CUFAB_MULTIMEM_S32 = 2,
	CUFAB_MULTIMEM_U64 = 3,
	CUFAB_MULTIMEM_S64 = 4,
	CUFAB_MULTIMEM_F32 = 5,
	CUFAB_MULTIMEM_F64 = 6
} cufabMultimemType;

/* add, min, max for every type; and, or, xor for the integer types. */
typedef enum cufabMultimemOp_enum {
	CUFAB_MULTIMEM_ADD = 0,
	CUFAB_MULTIMEM_MIN = 1,
	CUFAB_MULTIMEM_MAX = 2,
	CUFAB_MULTIMEM_AND = 3,
	CUFAB_MULTIMEM_OR = 4,
	CUFAB_MULTIMEM_XOR = 5
} cufabMultimemOp;

/* Bulk broadcast: bytes of src to every bound replica at mcPtr. */
CUresult cufabMultimemBroadcast(CUdeviceptr mcPtr, const void *src,
				size_t bytes, unsigned int *skipped);
/* multimem.st: count elements of src to every bound replica. */
CUresult cufabMultimemStore(CUdeviceptr mcPtr, cufabMultimemType type,
			    const void *src, size_t count,
			    unsigned int *skipped);
/* multimem.ld_reduce: dst[i] = op over the bound replicas of element i. */
CUresult cufabMultimemLoadReduce(void *dst, CUdeviceptr mcPtr,
				 cufabMultimemType type, cufabMultimemOp op,
				 size_t count, unsigned int *skipped);
/* multimem.red: replica[i] = replica[i] op src[i], in every replica. */
CUresult cufabMultimemReduce(CUdeviceptr mcPtr, cufabMultimemType type,
			     cufabMultimemOp op, const void *src,
			     size_t count, unsigned int *skipped);

#ifdef __cplusplus
}
#endif

#endif /* CUFAB_MULTIMEM_H */
