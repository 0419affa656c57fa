// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Device management: cuDeviceGet*, cuDeviceTotalMem, cuDeviceGetAttribute,
 * PCI bus ids, peer reachability and the attributes of peer links.
 *
 * cuInit reads each GPU's description (name, UUID, memory, PCI location,
 * topology and the whole attribute table) with one CUFAB_IOCTL_DEVICE_INFO
 * per GPU. The kernel refuses to change a GPU while any client is open, so
 * the copy stays exact for the life of this client and the queries below
 * are plain loads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static CUresult device_load(__u32 index, struct cufab_device *d)
{
	struct cufab_device_info info = {
		.size = sizeof(info),
		.index = index,
		.num_attrs = CUFAB_NUM_DEVICE_ATTRS,
		.attrs_ptr = (uintptr_t)d->attrs,
	};
	int ret;

	memset(d->attrs, 0, sizeof(d->attrs));
	ret = cufab_ioctl(CUFAB_IOCTL_DEVICE_INFO, &info);
	if (ret) {
		cufab_log("gpu %u: device query failed: %s", index,
			  strerror(-ret));
		return cufab_errno_result(-ret);
	}
	d->index = index;
	d->features = info.flags;
	d->host_numa_node = info.host_numa_node;
	d->clique_id = info.clique_id;
	d->total_mem = info.total_mem;
	d->peer_mask = info.peer_mask;
	d->pci_domain = info.pci_domain;
	d->pci_bus = info.pci_bus;
	d->pci_device = info.pci_device;
	/* The kernel wrote min(ours, its own) entries. */
	d->num_attrs = info.num_attrs < CUFAB_NUM_DEVICE_ATTRS ?
		       info.num_attrs : CUFAB_NUM_DEVICE_ATTRS;
	memcpy(d->uuid, info.uuid, sizeof(d->uuid));
	memcpy(d->name, info.name, sizeof(d->name));
	d->name[sizeof(d->name) - 1] = '\0';
	d->mem_granularity = info.mem_granularity;
	d->mem_granularity_rec = info.mem_granularity_rec;
	d->mc_granularity = info.mc_granularity;
	d->mc_granularity_rec = info.mc_granularity_rec;
	memcpy(d->cluster_uuid, info.cluster_uuid, sizeof(d->cluster_uuid));
	return CUDA_SUCCESS;
}

/* Called by cuInit with cufab_lock held. */
CUresult cufab_devices_load(int num_gpus)
{
	CUresult res;
	int i;

	if (num_gpus > CUFAB_MAX_GPUS) {
		cufab_log("module reports %d GPUs, the library handles at most %d",
			  num_gpus, CUFAB_MAX_GPUS);
		return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	}
	for (i = 0; i < num_gpus; i++) {
		res = device_load(i, &cufab.kdev[i]);
		if (res != CUDA_SUCCESS)
			return res;
	}
	cufab.num_kdev = num_gpus;
	return CUDA_SUCCESS;
}

/* Formats a UUID the way CUDA tools print it: "GPU-xxxxxxxx-xxxx-...". */
void cufab_uuid_format(const __u8 *u, char *out)
{
	snprintf(out, CUFAB_UUID_STR_LEN,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * The common prologue of the device queries: initialised, a place to store
 * the answer, a valid ordinal.
 */
static CUresult device_get(const void *out, CUdevice dev,
			   const struct cufab_device **d)
{
	return cufab_call_dev(!!out, dev, CUDA_ERROR_INVALID_DEVICE, d);
}

/* Copies src into a caller buffer of len bytes, truncating like CUDA. */
static CUresult copy_string(char *dst, int len, const char *src)
{
	if (len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(dst, len, "%s", src);
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	const struct cufab_device *d;
	CUresult res = device_get(device, ordinal, &d);

	if (res == CUDA_SUCCESS)
		*device = ordinal;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	CUresult res;

	res = cufab_call_args(!!count);
	if (res != CUDA_SUCCESS)
		return res;
	*count = cufab.num_dev;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	const struct cufab_device *d;
	CUresult res = device_get(name, dev, &d);

	if (res != CUDA_SUCCESS)
		return res;
	return copy_string(name, len, d->name);
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	const struct cufab_device *d;
	CUresult res = device_get(uuid, dev, &d);

	if (res == CUDA_SUCCESS)
		memcpy(uuid->bytes, d->uuid, sizeof(uuid->bytes));
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	const struct cufab_device *d;
	CUresult res = device_get(bytes, dev, &d);

	if (res == CUDA_SUCCESS)
		*bytes = d->total_mem;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
						   CUdevice dev)
{
	const struct cufab_device *d;
	CUresult res = device_get(pi, dev, &d);

	if (res != CUDA_SUCCESS)
		return res;
	/* Attributes this module does not know are unknown to this "driver". */
	if ((int)attrib <= 0 || (unsigned int)attrib >= d->num_attrs)
		return CUDA_ERROR_INVALID_VALUE;
	*pi = d->attrs[attrib];
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	const struct cufab_device *d;
	CUresult res = device_get(pciBusId, dev, &d);
	char id[32];

	if (res != CUDA_SUCCESS)
		return res;
	snprintf(id, sizeof(id), "%04x:%02x:%02x.0", d->pci_domain, d->pci_bus,
		 d->pci_device);
	return copy_string(pciBusId, len, id);
}

/*
 * Parses "domain:bus:device.function", "domain:bus:device" or
 * "bus:device.function" (hexadecimal fields).
 */
static int parse_bus_id(const char *s, unsigned int *domain, unsigned int *bus,
			unsigned int *device)
{
	unsigned int a, b, c, fn = 0;
	int n = 0;

	if (sscanf(s, "%x:%x:%x.%x%n", &a, &b, &c, &fn, &n) == 4 && !s[n])
		goto full;
	n = 0;
	fn = 0;
	if (sscanf(s, "%x:%x:%x%n", &a, &b, &c, &n) == 3 && !s[n])
		goto full;
	n = 0;
	if (sscanf(s, "%x:%x.%x%n", &b, &c, &fn, &n) == 3 && !s[n]) {
		a = 0;
		goto full;
	}
	return -1;
full:
	/* Every virtual GPU is function 0. */
	if (fn != 0)
		return 0;
	*domain = a;
	*bus = b;
	*device = c;
	return 1;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
	unsigned int domain, bus, device;
	int i, ret;
	CUresult res;

	res = cufab_call_args(dev && pciBusId);
	if (res != CUDA_SUCCESS)
		return res;
	ret = parse_bus_id(pciBusId, &domain, &bus, &device);
	if (ret < 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; ret && i < cufab.num_dev; i++) {
		const struct cufab_device *d = cufab_device(i);

		if (d->pci_domain == domain && d->pci_bus == bus &&
		    d->pci_device == device) {
			*dev = i;
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_INVALID_DEVICE;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
						    CUdevice peerDev)
{
	const struct cufab_device *d, *peer;
	CUresult res = device_get(canAccessPeer, dev, &d);

	if (res != CUDA_SUCCESS)
		return res;
	peer = cufab_device(peerDev);
	if (!peer)
		return CUDA_ERROR_INVALID_DEVICE;
	/* A device is not its own peer. */
	*canAccessPeer = d != peer && (d->peer_mask >> peer->index) & 1;
	return CUDA_SUCCESS;
}

/*
 * Every peer pair of the virtual node is an NVLink connection between two
 * H100s (through the NVSwitch, or a link of the peers= parameter), which
 * NVIDIA's driver reports as rank 0, access, native atomics and CUDA array
 * access; a pair without a link reports 0 for each.
 */
CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value,
						      CUdevice_P2PAttribute attrib,
						      CUdevice srcDevice,
						      CUdevice dstDevice)
{
	const struct cufab_device *src, *dst;
	CUresult res = device_get(value, srcDevice, &src);
	int link;

	if (res != CUDA_SUCCESS)
		return res;
	dst = cufab_device(dstDevice);
	if (!dst || dst == src)
		return CUDA_ERROR_INVALID_DEVICE;
	link = (src->peer_mask >> dst->index) & 1;
	switch (attrib) {
	case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
	case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
		*value = 0;
		return CUDA_SUCCESS;
	case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
		*value = link;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}
