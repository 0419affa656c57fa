// SPDX-License-Identifier: GPL-2.0
/*
 * The bulk copy of multimem stores with 32-byte AVX2 loads and stores.
 * Kbuild compiles this file with AVX2 enabled; multimem_ops.c calls it
 * only on a CPU with AVX2, between kernel_fpu_begin() and
 * kernel_fpu_end(). See cufab_mm_fp_copy() for why not memcpy.
 */
#include <linux/string.h>

#include "multimem.h"

typedef long long cufab_v32 __attribute__((vector_size(32), aligned(1)));

void cufab_mm_avx_copy(void *dst, const void *src, size_t n)
{
	cufab_v32 *d = dst;
	const cufab_v32 *s = src;
	cufab_v32 a, b, c, e;

	for (; n >= 128; n -= 128, d += 4, s += 4) {
		a = s[0];
		b = s[1];
		c = s[2];
		e = s[3];
		d[0] = a;
		d[1] = b;
		d[2] = c;
		d[3] = e;
		asm volatile("" : : : "memory");
	}
	memcpy(d, s, n);
}
