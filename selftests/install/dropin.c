// SPDX-License-Identifier: GPL-2.0
/*
 * A program as CUDA users write it: NVIDIA's cuda.h, linked with -lcuda
 * (the toolkit's stub libcuda.so at link time). install_test.sh runs it
 * with LD_LIBRARY_PATH pointing at cufab's drop-in libcuda.so.1.
 *
 * Built with -DCALL_UNCOVERED it then calls cuLaunchKernel, which cufab
 * does not provide: the dynamic loader must stop it at that symbol, by
 * name, instead of letting it run into a crash.
 */
#include <stdio.h>

#include <cuda.h>

int main(void)
{
	int count = 0, version = 0;
	char name[128];
	size_t mem = 0;
	CUdevice dev;

	if (cuInit(0) != CUDA_SUCCESS || cuDriverGetVersion(&version) ||
	    cuDeviceGetCount(&count) || count < 1 || cuDeviceGet(&dev, 0) ||
	    cuDeviceGetName(name, sizeof(name), dev) ||
	    cuDeviceTotalMem(&mem, dev)) {
		fprintf(stderr, "dropin: a covered call failed\n");
		return 1;
	}
	printf("dropin: driver %d, %d devices, device 0 \"%s\", %zu bytes\n",
	       version, count, name, mem);
	fflush(stdout);
#ifdef CALL_UNCOVERED
	/* never returns: the lazy binding of cuLaunchKernel fails first */
	cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
	fprintf(stderr, "dropin: cuLaunchKernel returned\n");
	return 2;
#endif
	return 0;
}
