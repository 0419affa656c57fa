// SPDX-License-Identifier: GPL-2.0
/*
 * The same ABI facts computed with NVIDIA's cuda.h, except those it does
 * not have (abi_reference.txt documents them instead).
 */
#include <cuda.h>

#include "abi_layout.h"

#define ABI_NEW_SIZE(...)
#define ABI_NEW_SIGNED(...)
#define ABI_NEW_OFFSET(...)
#define ABI_NEW_MSIZE(...)
#define ABI_NEW_ENUM(...)
#define ABI_NEW_VALUE(...)
#define ABI_NEW_RENAME(...)
#define ABI_MISSING(...)

const struct abi_fact abi_official[] = {
#include "abi_items.h"
};

const size_t abi_official_count = sizeof(abi_official) / sizeof(abi_official[0]);
