// SPDX-License-Identifier: GPL-2.0
/*
 * Float and double reductions of multimem. Kbuild compiles this file with
 * the FPU enabled; its only caller (multimem_ops.c) brackets every call
 * with kernel_fpu_begin()/kernel_fpu_end(), and nothing else lives here,
 * so no FPU register is touched outside that bracket.
 */
#include <linux/types.h>
#include <linux/cufab.h>

#include "cufab.h"

/*
 * Float and double alike. min and max are spelled out, not min()/max():
 * with @s first, a pair that is equal or unordered (a NaN) keeps @d.
 */
#define CUFAB_MM_FP_OP(type, redop, d, s, n)				\
	do {								\
		type *_d = (d);						\
		const type *_s = (s);					\
		const u32 _op = (redop);				\
		size_t _i;						\
									\
		for (_i = 0; _i < (n); _i++) {				\
			if (_op == CUFAB_RED_ADD)			\
				_d[_i] += _s[_i];			\
			else if (_op == CUFAB_RED_MIN)			\
				_d[_i] = _s[_i] < _d[_i] ? _s[_i] : _d[_i]; \
			else						\
				_d[_i] = _s[_i] > _d[_i] ? _s[_i] : _d[_i]; \
		}							\
	} while (0)

void cufab_mm_fp_combine(u32 dtype, u32 redop, void *dst, const void *src,
			 size_t n)
{
	if (dtype == CUFAB_DT_F32)
		CUFAB_MM_FP_OP(float, redop, dst, src, n);
	else
		CUFAB_MM_FP_OP(double, redop, dst, src, n);
}
