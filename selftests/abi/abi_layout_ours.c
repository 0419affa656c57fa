// SPDX-License-Identifier: GPL-2.0
/* The ABI facts of include/cufab/cuda.h, all of them. */
#include <cufab/cuda.h>

#include "abi_layout.h"

#define ABI_NEW_SIZE		ABI_SIZE
#define ABI_NEW_SIGNED		ABI_SIGNED
#define ABI_NEW_OFFSET		ABI_OFFSET
#define ABI_NEW_MSIZE		ABI_MSIZE
#define ABI_NEW_ENUM		ABI_ENUM
#define ABI_NEW_VALUE		ABI_VALUE
#define ABI_NEW_RENAME		ABI_RENAME
#define ABI_MISSING(T, E)	{ #T, #E, 0, NULL, ABI_F_MISSING },

const struct abi_fact abi_ours[] = {
#include "abi_items.h"
};

const size_t abi_ours_count = sizeof(abi_ours) / sizeof(abi_ours[0]);
