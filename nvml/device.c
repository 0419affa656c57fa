// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Device queries: index, name, UUID, PCI location, minor number, compute
 * capability, memory and NUMA node, each read from the kernel when asked
 * (DEV_GET of the one GPU), so they say what libcufab's cuDeviceGet* say
 * for the same GPU.
 */
#include <stdio.h>
#include <string.h>

#include "nvml_internal.h"

void nvml_pci_info(const struct nvml_gpu *g, nvmlPciInfo_t *pci)
{
	unsigned int domain = 0, bus = 0, device = 0;

	memset(pci, 0, sizeof(*pci));
	/*
	 * The kernel's "0000:41:00.0", cuDeviceGetPCIBusId's string (nl.c
	 * refused a node whose GPUs' ids do not parse).
	 */
	if (sscanf(g->bus_id, "%x:%x:%x", &domain, &bus, &device) != 3)
		return;
	pci->domain = domain;
	pci->bus = bus;
	pci->device = device;
	pci->pciDeviceId = g->pci_device_id;
	pci->pciSubSystemId = g->pci_subsys_id;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy),
		 NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT,
		 NVML_DEVICE_PCI_BUS_ID_FMT_ARGS(pci));
	snprintf(pci->busId, sizeof(pci->busId), NVML_DEVICE_PCI_BUS_ID_FMT,
		 NVML_DEVICE_PCI_BUS_ID_FMT_ARGS(pci));
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device,
					    unsigned int *index)
{
	if (!nvml_initialised())
		return NVML_ERROR_UNINITIALIZED;
	if (!nvml_handle_ok(device) || !index)
		return NVML_ERROR_INVALID_ARGUMENT;
	*index = device->index;
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
					   unsigned int length)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!name, &g);
	if (res != NVML_SUCCESS)
		return res;
	return nvml_copy_string(name, length, g.name);
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
					   unsigned int length)
{
	char s[NVML_UUID_STR_LEN];
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!uuid, &g);
	if (res != NVML_SUCCESS)
		return res;
	nvml_uuid_format(g.uuid, s);
	return nvml_copy_string(uuid, length, s);
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device,
						 nvmlPciInfo_t *pci)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!pci, &g);
	if (res != NVML_SUCCESS)
		return res;
	nvml_pci_info(&g, pci);
	return NVML_SUCCESS;
}

/*
 * cufab has one device node, /dev/cufab, not one per GPU: the minor number
 * is the GPU's index, the number /dev/nvidiaN would carry for the N-th GPU
 * in PCI order (cufab's GPUs are in bus order).
 */
NVML_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
						  unsigned int *minorNumber)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!minorNumber, &g);
	if (res != NVML_SUCCESS)
		return res;
	*minorNumber = g.index;
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device,
							    int *major,
							    int *minor)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, major && minor, &g);
	if (res != NVML_SUCCESS)
		return res;
	*major = g.cc_major;
	*minor = g.cc_minor;
	return NVML_SUCCESS;
}

/* Nothing is reserved: all of a virtual GPU's memory is allocatable. */
static void memory_of(const struct nvml_gpu *g, unsigned long long *total,
		      unsigned long long *free, unsigned long long *used)
{
	*total = g->mem_total;
	*used = g->mem_used < g->mem_total ? g->mem_used : g->mem_total;
	*free = *total - *used;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
						 nvmlMemory_t *memory)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!memory, &g);
	if (res != NVML_SUCCESS)
		return res;
	memory_of(&g, &memory->total, &memory->free, &memory->used);
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
						    nvmlMemory_v2_t *memory)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!memory, &g);
	if (res != NVML_SUCCESS)
		return res;
	if (memory->version != nvmlMemory_v2) {
		res = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	} else {
		memory->reserved = 0;
		memory_of(&g, &memory->total, &memory->free, &memory->used);
	}
	return res;
}

/*
 * A virtual GPU's memory is no NUMA node of its own: the node reported is
 * the GPU's host NUMA node (CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID), and a GPU
 * without one (module parameter numa -1) gets NOT_SUPPORTED, as NVML says
 * on platforms whose GPUs are not NUMA nodes.
 */
NVML_EXPORT nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device,
						 unsigned int *node)
{
	struct nvml_gpu g;
	nvmlReturn_t res;

	res = nvml_gpu_get(device, !!node, &g);
	if (res != NVML_SUCCESS)
		return res;
	if (g.numa_node < 0)
		res = NVML_ERROR_NOT_SUPPORTED;
	else
		*node = g.numa_node;
	return res;
}
