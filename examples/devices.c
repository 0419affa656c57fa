// SPDX-License-Identifier: GPL-2.0
/*
 * devices: lists the GPUs of the node and what their fabric can do, using
 * only the CUDA driver API. Builds against cufab/cuda.h or NVIDIA's cuda.h.
 *
 *   devices [-a]    -a: also print every device attribute by number
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cufab/cuda.h>

static int check(CUresult res, const char *what)
{
	const char *name = "?", *text = "?";

	if (res == CUDA_SUCCESS)
		return 0;
	cuGetErrorName(res, &name);
	cuGetErrorString(res, &text);
	fprintf(stderr, "devices: %s: %s (%s)\n", what, name, text);
	return -1;
}

#define LE_OWNER_ACCESS \
	CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED

static int attr(CUdevice dev, CUdevice_attribute a)
{
	int v = 0;

	return cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : -1;
}

static const char *yes(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "?";
}

/* CUmemAllocationHandleType bits as words. */
static void handle_types(int mask, char *out, size_t len)
{
	int fd = mask & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	int fabric = mask & CU_MEM_HANDLE_TYPE_FABRIC;

	snprintf(out, len, "%s%s%s%s", fd ? "posix-fd" : "", fd && fabric ? "," : "",
		 fabric ? "fabric" : "", mask > 0 ? "" : "none");
}

static void print_uuid(const CUuuid *u)
{
	const unsigned char *b = (const unsigned char *)u->bytes;
	int i;

	printf("  UUID        GPU-");
	for (i = 0; i < 16; i++)
		printf("%02x%s", b[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	printf("\n");
}

static int show(CUdevice dev, int all)
{
	char name[128], bus[32], handles[32];
	size_t mem;
	CUuuid uuid;
	int a, le;

	if (check(cuDeviceGetName(name, sizeof(name), dev), "cuDeviceGetName") ||
	    check(cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid") ||
	    check(cuDeviceGetPCIBusId(bus, sizeof(bus), dev), "cuDeviceGetPCIBusId") ||
	    check(cuDeviceTotalMem(&mem, dev), "cuDeviceTotalMem"))
		return -1;

	printf("GPU %d: %s\n", dev, name);
	print_uuid(&uuid);
	printf("  bus id      %s\n", bus);
	printf("  memory      %zu MiB\n", mem >> 20);
	printf("  compute     %d.%d, %d SMs\n",
	       attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
	       attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
	       attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
	printf("  host NUMA   %d\n", attr(dev, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID));
	printf("  fabric      multicast %s, fabric handles %s, VMM %s\n",
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED)),
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED)),
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)));
	handle_types(attr(dev, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES),
		     handles, sizeof(handles));
	printf("  pools       memory pools %s, IPC handles %s\n",
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)), handles);
	printf("  managed     managed memory %s, concurrent %s, pageable %s\n",
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)),
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)),
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS)));
	le = attr(dev, CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES);
	printf("  endpoints   unicast %s, multicast %s, counted ops %s, owner access %s\n",
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED)),
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED)),
	       yes(attr(dev, CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED)),
	       yes(attr(dev, LE_OWNER_ACCESS)));
	/* A mask of CUlogicalEndpointIpcHandleType values. */
	printf("  LE IPC      fabric handles %s (mask 0x%x)\n",
	       yes(le < 0 ? le : !!(le & CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC)),
	       le < 0 ? 0 : le);
	if (all) {
		for (a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++)
			printf("    attribute %3d = %d\n", a, attr(dev, (CUdevice_attribute)a));
	}
	return 0;
}

int main(int argc, char **argv)
{
	int all = argc > 1 && !strcmp(argv[1], "-a");
	int version, count, dev;

	if (check(cuInit(0), "cuInit") ||
	    check(cuDriverGetVersion(&version), "cuDriverGetVersion") ||
	    check(cuDeviceGetCount(&count), "cuDeviceGetCount"))
		return 1;
	printf("CUDA driver API %d.%d, %d GPU%s\n\n", version / 1000,
	       version % 1000 / 10, count, count == 1 ? "" : "s");
	for (dev = 0; dev < count; dev++) {
		if (show(dev, all))
			return 1;
		printf("\n");
	}
	return 0;
}
