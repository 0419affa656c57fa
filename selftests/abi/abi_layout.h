/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ABI fact (a size, offset, signedness, enumerator or macro value) as
 * a translation unit computed it. abi_layout_ours.c and
 * abi_layout_official.c each evaluate the facts listed by abi_items.awk,
 * one with include/cufab/cuda.h and one with NVIDIA's cuda.h;
 * abi_layout_test.c compares the two tables.
 */
#ifndef ABI_LAYOUT_H
#define ABI_LAYOUT_H

#include <stddef.h>

#define ABI_F_MISSING	1	/* enumerator only NVIDIA's header has */

struct abi_fact {
	const char *group;	/* the type or macro family */
	const char *fact;	/* "offsetof(T, m)", enumerator name, ... */
	long long value;
	const char *text;	/* symbol renames: the expansion */
	int flags;
};

struct abi_reference {
	const char *fact;
	long long value;
	const char *source;
};

extern const struct abi_fact abi_ours[];
extern const size_t abi_ours_count;
extern const struct abi_fact abi_official[];
extern const size_t abi_official_count;
extern const struct abi_reference abi_reference[];
extern const size_t abi_reference_count;

#define ABI_STR(x)		#x
#define ABI_XSTR(x)		ABI_STR(x)

#define ABI_SIZE(T)		{ #T, "sizeof(" #T ")", (long long)sizeof(T) },
/* -1 < 1, not < 0: the latter draws -Wtype-limits for unsigned types. */
#define ABI_SIGNED(T)		{ #T, #T " is signed", (T)-1 < (T)1 },
#define ABI_OFFSET(T, m)	{ #T, "offsetof(" #T ", " #m ")", (long long)offsetof(T, m) },
#define ABI_MSIZE(T, m)		{ #T, "sizeof(" #T "." #m ")", (long long)sizeof(((T *)0)->m) },
#define ABI_ENUM(T, E)		{ #T, #E, (long long)(E) },
#define ABI_VALUE(M)		{ "macros", #M, (long long)(M) },
#define ABI_RENAME(F)		{ "symbol renames", #F, 0, ABI_XSTR(F) },

#endif /* ABI_LAYOUT_H */
