// SPDX-License-Identifier: GPL-2.0
/*
 * Float and double reductions of multimem. Kbuild compiles this file with
 * the FPU enabled; its only caller (multimem_ops.c) brackets every call
 * with kernel_fpu_begin()/kernel_fpu_end(), and nothing else lives here,
 * so no FPU register is touched outside that bracket.
 */
#include <linux/string.h>
#include <linux/cufab.h>

#include "multimem.h"

static void cufab_mm_f32(u32 redop, float *d, const float *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (redop == CUFAB_RED_ADD)
			d[i] += s[i];
		else if (redop == CUFAB_RED_MIN)
			d[i] = s[i] < d[i] ? s[i] : d[i];
		else
			d[i] = s[i] > d[i] ? s[i] : d[i];
	}
}

static void cufab_mm_f64(u32 redop, double *d, const double *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (redop == CUFAB_RED_ADD)
			d[i] += s[i];
		else if (redop == CUFAB_RED_MIN)
			d[i] = s[i] < d[i] ? s[i] : d[i];
		else
			d[i] = s[i] > d[i] ? s[i] : d[i];
	}
}

/*
 * Bulk copy with 16-byte SSE2 loads and stores (unaligned): the kernel's
 * own memcpy and copy_from_user are "rep movsb", which a CPU emulator
 * (qemu TCG, where the tests and the bench run) executes a byte at a
 * time, while user space copies with vector registers. The empty asm keeps
 * the compiler from turning the loop back into a memcpy call.
 */
struct cufab_v16 {
	long long __attribute__((vector_size(16))) v;
};

void cufab_mm_fp_copy(void *dst, const void *src, size_t n)
{
	struct cufab_v16 a, b, c, e;
	const char *s = src;
	char *d = dst;

	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__builtin_memcpy(&a, s, 16);
		__builtin_memcpy(&b, s + 16, 16);
		__builtin_memcpy(&c, s + 32, 16);
		__builtin_memcpy(&e, s + 48, 16);
		__builtin_memcpy(d, &a, 16);
		__builtin_memcpy(d + 16, &b, 16);
		__builtin_memcpy(d + 32, &c, 16);
		__builtin_memcpy(d + 48, &e, 16);
		asm volatile("" : : : "memory");
	}
	memcpy(d, s, n);
}

void cufab_mm_fp_combine(u32 dtype, u32 redop, void *dst, const void *src,
			 size_t n)
{
	if (dtype == CUFAB_DT_F32)
		cufab_mm_f32(redop, dst, src, n);
	else
		cufab_mm_f64(redop, dst, src, n);
}
