// SPDX-License-Identifier: GPL-2.0
/* The ABI facts of cufab's include/cufab/nvml.h. */
#include "cufab/nvml.h"

#include "nvml_abi.h"

const struct nvml_abi_fact nvml_abi_ours[] = {
#include "nvml_abi_items.h"
};

const size_t nvml_abi_ours_count = sizeof(nvml_abi_ours) / sizeof(nvml_abi_ours[0]);
