/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data movement of multimem (multimem.c). Reductions: dst[i] =
 * dst[i] <op> src[i] for @n elements of @dtype (enum cufab_multimem_dtype)
 * with @redop (enum cufab_multimem_redop), checked by the caller. Copies:
 * cufab_mm_copy(), memcpy at the speed of user space's (multimem_ops.c).
 */
#ifndef _CUFAB_MULTIMEM_H
#define _CUFAB_MULTIMEM_H

#include <linux/types.h>

void cufab_mm_combine(u32 dtype, u32 redop, void *dst, const void *src,
		      size_t n);

/*
 * multimem_fp.c, built with the FPU enabled: the float and double
 * reductions. Call only between kernel_fpu_begin() and kernel_fpu_end().
 */
void cufab_mm_fp_combine(u32 dtype, u32 redop, void *dst, const void *src,
			 size_t n);

void cufab_mm_copy(void *dst, const void *src, size_t n);

#endif /* _CUFAB_MULTIMEM_H */
