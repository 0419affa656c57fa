// SPDX-License-Identifier: GPL-2.0
/*
 * The bulk copy of multimem stores with 32-byte AVX2 loads and stores.
 * Kbuild compiles this file with AVX2 enabled; multimem_ops.c calls it
 * only on a CPU with AVX2, between kernel_fpu_begin() and
 * kernel_fpu_end(). See multimem_vcopy.h for why not memcpy.
 */
#include "multimem.h"
#include "multimem_vcopy.h"

/* A ymm register's worth; moved with unaligned loads and stores. */
struct cufab_v32 {
	long long __attribute__((vector_size(32))) v;
};

void cufab_mm_avx_copy(void *dst, const void *src, size_t n)
{
	CUFAB_MM_VCOPY(struct cufab_v32, dst, src, n);
}
