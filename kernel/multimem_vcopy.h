/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the bulk copies of multimem stores, for one vector width:
 * cufab_mm_fp_copy() (SSE2, multimem_fp.c) and cufab_mm_avx_copy() (AVX2,
 * multimem_avx.c). Each width lives in a file of its own because Kbuild
 * enables its instructions for that file alone.
 *
 * Why not memcpy: the kernel's own memcpy and copy_from_user are
 * "rep movsb", which a CPU emulator (qemu TCG, where the tests and the
 * bench run) executes a byte at a time, while user space copies with
 * vector registers.
 */
#ifndef _CUFAB_MULTIMEM_VCOPY_H
#define _CUFAB_MULTIMEM_VCOPY_H

#include <linux/string.h>

/*
 * Copy @n bytes from @src to @dst, four @vec registers at a time, with
 * unaligned loads and stores; @vec is a struct of one vector. The empty
 * asm keeps the compiler from turning the loop back into a memcpy call.
 */
#define CUFAB_MM_VCOPY(vec, dst, src, n)				\
	do {								\
		const size_t _w = sizeof(vec);				\
		const char *_s = (src);					\
		char *_d = (dst);					\
		size_t _n = (n);					\
		vec _a, _b, _c, _e;					\
									\
		for (; _n >= 4 * _w; _n -= 4 * _w, _d += 4 * _w,	\
		     _s += 4 * _w) {					\
			__builtin_memcpy(&_a, _s, _w);			\
			__builtin_memcpy(&_b, _s + _w, _w);		\
			__builtin_memcpy(&_c, _s + 2 * _w, _w);		\
			__builtin_memcpy(&_e, _s + 3 * _w, _w);		\
			__builtin_memcpy(_d, &_a, _w);			\
			__builtin_memcpy(_d + _w, &_b, _w);		\
			__builtin_memcpy(_d + 2 * _w, &_c, _w);		\
			__builtin_memcpy(_d + 3 * _w, &_e, _w);		\
			asm volatile("" : : : "memory");		\
		}							\
		memcpy(_d, _s, _n);					\
	} while (0)

#endif /* _CUFAB_MULTIMEM_VCOPY_H */
