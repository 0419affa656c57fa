// SPDX-License-Identifier: GPL-2.0
/*
 * topology: the peer matrix of the node (cuDeviceCanAccessPeer) and which
 * GPUs can join switch multicast teams, like `nvidia-smi topo -m`.
 */
#include <stdio.h>

#include <cufab/cuda.h>

static int check(CUresult res, const char *what)
{
	const char *name = "?";

	if (res == CUDA_SUCCESS)
		return 0;
	cuGetErrorName(res, &name);
	fprintf(stderr, "topology: %s: %s\n", what, name);
	return -1;
}

int main(void)
{
	int count, i, j, can, mc;
	char bus[32];

	if (check(cuInit(0), "cuInit") ||
	    check(cuDeviceGetCount(&count), "cuDeviceGetCount"))
		return 1;

	printf("%-6s", "");
	for (j = 0; j < count; j++)
		printf(" GPU%-2d", j);
	printf("  %-14s %s\n", "bus id", "multicast");
	for (i = 0; i < count; i++) {
		printf("GPU%-3d", i);
		for (j = 0; j < count; j++) {
			if (i == j) {
				printf(" %-5s", "X");
				continue;
			}
			if (check(cuDeviceCanAccessPeer(&can, i, j), "cuDeviceCanAccessPeer"))
				return 1;
			printf(" %-5s", can ? "P2P" : "-");
		}
		if (check(cuDeviceGetPCIBusId(bus, sizeof(bus), i), "cuDeviceGetPCIBusId") ||
		    check(cuDeviceGetAttribute(&mc, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, i),
			  "cuDeviceGetAttribute"))
			return 1;
		printf("  %-14s %s\n", bus, mc ? "yes" : "no");
	}
	printf("\nX: the GPU itself, P2P: peer access possible, -: no path\n");
	return 0;
}
