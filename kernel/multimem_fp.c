// SPDX-License-Identifier: GPL-2.0
/*
 * Float and double reductions of multimem. Kbuild compiles this file with
 * the FPU enabled; its only caller (multimem_ops.c) brackets every call
 * with kernel_fpu_begin()/kernel_fpu_end(), and nothing else lives here,
 * so no FPU register is touched outside that bracket.
 */
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

void cufab_mm_fp_combine(u32 dtype, u32 redop, void *dst, const void *src,
			 size_t n)
{
	if (dtype == CUFAB_DT_F32)
		cufab_mm_f32(redop, dst, src, n);
	else
		cufab_mm_f64(redop, dst, src, n);
}
