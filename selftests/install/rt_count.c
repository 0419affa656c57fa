// SPDX-License-Identifier: GPL-2.0
/*
 * A runtime-API program as CUDA users write it: CUDA's own
 * cuda_runtime_api.h, built with nothing but
 * cc $(pkg-config --cflags --libs cufabrt) against the installed tree
 * (install_test.sh runs it).
 */
#include <stdio.h>

#include <cuda_runtime_api.h>

int main(void)
{
	cudaError_t err;
	void *p = NULL;
	int n = 0;

	err = cudaGetDeviceCount(&n);
	if (err == cudaSuccess)
		err = cudaMalloc(&p, 4096);
	if (err == cudaSuccess)
		err = cudaFree(p);
	if (err != cudaSuccess) {
		fprintf(stderr, "rt_count: %s\n", cudaGetErrorName(err));
		return 1;
	}
	printf("rt_count: %d devices\n", n);
	return 0;
}
