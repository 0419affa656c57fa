// SPDX-License-Identifier: GPL-2.0
/*
 * NVML rows of cufab-bench: the queries a fabric-memory program makes at
 * start (a GPU's handle, its memory, its fabric state). Each is one
 * generic netlink request to the module (nvml/), not an ioctl, so its
 * ratio to the no-op ioctl is the price of that path.
 */
#include <cufab/nvml.h>

#include "bench.h"
#include "nvml_bench.h"

static nvmlDevice_t nvb_dev;

int nvml_bench_setup(void)
{
	if (nvmlInit_v2() != NVML_SUCCESS)
		return -1;
	return nvmlDeviceGetHandleByIndex_v2(0, &nvb_dev) == NVML_SUCCESS ? 0 : -1;
}

void nvml_bench_teardown(void)
{
	nvmlShutdown();
}

int nvb_step_handle(struct bench *b)
{
	nvmlDevice_t d;

	return nvmlDeviceGetHandleByIndex_v2(0, &d) != NVML_SUCCESS;
}

int nvb_step_memory_info(struct bench *b)
{
	nvmlMemory_t m;

	return nvmlDeviceGetMemoryInfo(nvb_dev, &m) != NVML_SUCCESS;
}

int nvb_step_fabric_info(struct bench *b)
{
	nvmlGpuFabricInfo_t f;

	return nvmlDeviceGetGpuFabricInfo(nvb_dev, &f) != NVML_SUCCESS;
}
