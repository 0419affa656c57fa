// SPDX-License-Identifier: GPL-2.0
/*
 * The bulk copy of multimem stores with 32-byte AVX2 loads and stores.
 * Kbuild compiles this file with AVX2 enabled; multimem_ops.c calls it
 * only on a CPU with AVX2, between kernel_fpu_begin() and
 * kernel_fpu_end(). See cufab_mm_fp_copy() for why not memcpy.
 */
#include <linux/string.h>

#include "multimem.h"

/* A ymm register's worth; moved with unaligned loads and stores. */
struct cufab_v32 {
	long long __attribute__((vector_size(32))) v;
};

void cufab_mm_avx_copy(void *dst, const void *src, size_t n)
{
	struct cufab_v32 a, b, c, e;
	const char *s = src;
	char *d = dst;

	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__builtin_memcpy(&a, s, 32);
		__builtin_memcpy(&b, s + 32, 32);
		__builtin_memcpy(&c, s + 64, 32);
		__builtin_memcpy(&e, s + 96, 32);
		__builtin_memcpy(d, &a, 32);
		__builtin_memcpy(d + 32, &b, 32);
		__builtin_memcpy(d + 64, &c, 32);
		__builtin_memcpy(d + 96, &e, 32);
		asm volatile("" : : : "memory");
	}
	memcpy(d, s, n);
}
