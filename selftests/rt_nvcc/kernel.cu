// SPDX-License-Identifier: GPL-2.0
/*
 * A CUDA program with device code, built by nvcc -cudart shared: it starts
 * (its fat binary and kernel are registered at load time) and runs its
 * host code on cufab. Its one launch fails as NVIDIA's runtime fails a
 * launch on a device it has no image for.
 */
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

__global__ void scale(float *p, float f, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] *= f;
}

int main(void)
{
	const char *name = nullptr;
	float *d = nullptr;
	int failures = 0;

	if (cudaMalloc(&d, 256 * sizeof(float)) != cudaSuccess)
		failures++;
	scale<<<1, 256>>>(d, 2.0f, 256);
	if (cudaGetLastError() != cudaErrorNoKernelImageForDevice)
		failures++;
	if (cudaLaunchKernel((const void *)scale, dim3(1), dim3(1), nullptr, 0, 0) !=
	    cudaErrorNoKernelImageForDevice)
		failures++;
	if (cudaPeekAtLastError() != cudaErrorNoKernelImageForDevice ||
	    cudaGetLastError() != cudaErrorNoKernelImageForDevice ||
	    cudaGetLastError() != cudaSuccess)
		failures++;
	if (cudaFuncGetName(&name, (const void *)scale) != cudaSuccess ||
	    strcmp(name, "_Z5scalePffi"))
		failures++;
	if (cudaFree(d) != cudaSuccess)
		failures++;
	printf("kernel: %s, %d failures\n", name ? name : "(none)", failures);
	return failures;
}
