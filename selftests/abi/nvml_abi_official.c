// SPDX-License-Identifier: GPL-2.0
/* The ABI facts of NVIDIA's nvml.h (only it on the include path). */
#include "nvml.h"

#include "nvml_abi.h"

const struct nvml_abi_fact nvml_abi_official[] = {
#include "nvml_abi_items.h"
};

const size_t nvml_abi_official_count = sizeof(nvml_abi_official) / sizeof(nvml_abi_official[0]);
