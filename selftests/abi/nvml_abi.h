/* SPDX-License-Identifier: GPL-2.0 */
/* One ABI fact of an nvml.h (nvml_abi_items.h): a number or a string. */
#ifndef NVML_ABI_H
#define NVML_ABI_H

#include <stddef.h>

struct nvml_abi_fact {
	const char *name;
	long long value;
	const char *text;	/* string macros; NULL for numbers */
};

extern const struct nvml_abi_fact nvml_abi_ours[], nvml_abi_official[];
extern const size_t nvml_abi_ours_count, nvml_abi_official_count;

#define SIZE(t)		{ "sizeof(" #t ")", (long long)sizeof(t), NULL },
#define OFF(t, f)	{ "offsetof(" #t ", " #f ")", (long long)offsetof(t, f), NULL },
#define VAL(x)		{ #x, (long long)(x), NULL },
#define STR(x)		{ #x, 0, x },

#define NVML_ABI_TEXT_(...)	#__VA_ARGS__
#define NVML_ABI_TEXT(...)	NVML_ABI_TEXT_(__VA_ARGS__)
#define EXPANDS(x)	{ #x, 0, NVML_ABI_TEXT(x) },

#endif
