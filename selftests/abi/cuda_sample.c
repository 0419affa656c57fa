// SPDX-License-Identifier: GPL-2.0
/*
 * A program written the way NVIDIA's driver-API samples are: NVIDIA's
 * cuda.h, linked through NVIDIA's stub libcuda.so (-lcuda, nothing of
 * cufab's), a zeroed CUctxCreateParams, and every optional feature used
 * only after its device attribute says yes. It runs on libcufab installed
 * under the drop-in name (build/lib/cuda/libcuda.so.1) through
 * LD_LIBRARY_PATH; selftests/abi/libcuda_dropin_test.sh runs it.
 *
 * A feature attribute that said yes without the calls behind it would end
 * this program with "symbol lookup error" (lazy binding: only the calls
 * made must exist), which is what Documentation/attributes.rst forbids.
 * Prints "Test PASSED" on success, like the samples.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define checkCudaErrors(call) check((call), #call, __LINE__)

static void check(CUresult res, const char *what, int line)
{
	const char *name = NULL;

	if (res == CUDA_SUCCESS)
		return;
	cuGetErrorName(res, &name);
	fprintf(stdout, "line %d: %s failed: %s (%d)\nTest FAILED\n", line, what,
		name ? name : "?", (int)res);
	exit(EXIT_FAILURE);
}

static int attribute(CUdevice_attribute a, CUdevice dev)
{
	int v = 0;

	checkCudaErrors(cuDeviceGetAttribute(&v, a, dev));
	return v;
}

/* The memMapIPCDrv / simpleVMM pattern: create, reserve, map, access, copy. */
static void vmm_roundtrip(CUdevice dev)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	CUmemGenericAllocationHandle h;
	CUdeviceptr ptr;
	size_t gran = 0;
	char in[64] = "through NVIDIA's stub", out[64] = "";

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	checkCudaErrors(cuMemGetAllocationGranularity(&gran, &prop,
					CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	checkCudaErrors(cuMemCreate(&h, gran, &prop, 0));
	checkCudaErrors(cuMemAddressReserve(&ptr, gran, 0, 0, 0));
	checkCudaErrors(cuMemMap(ptr, gran, 0, h, 0));
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	checkCudaErrors(cuMemSetAccess(ptr, gran, &access, 1));
	checkCudaErrors(cuMemcpyHtoD(ptr, in, sizeof(in)));
	checkCudaErrors(cuMemcpyDtoH(out, ptr, sizeof(out)));
	if (strcmp(in, out))
		check(CUDA_ERROR_UNKNOWN, "VMM round trip", __LINE__);
	checkCudaErrors(cuMemUnmap(ptr, gran));
	checkCudaErrors(cuMemAddressFree(ptr, gran));
	checkCudaErrors(cuMemRelease(h));
	printf("VMM: %zu-byte granularity, round trip ok\n", gran);
}

/* The streamOrderedAllocation pattern, only where pools are supported. */
static void pools(CUdevice dev)
{
	CUdeviceptr p;

	if (!attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev)) {
		printf("memory pools: not supported, skipped\n");
		return;
	}
	checkCudaErrors(cuMemAllocAsync(&p, 1 << 20, NULL));
	checkCudaErrors(cuMemFreeAsync(p, NULL));
	checkCudaErrors(cuStreamSynchronize(NULL));
	printf("memory pools: ok\n");
}

static void managed(CUdevice dev)
{
	CUdeviceptr p;

	if (!attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, dev)) {
		printf("managed memory: not supported, skipped\n");
		return;
	}
	checkCudaErrors(cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	checkCudaErrors(cuMemFree(p));
	printf("managed memory: ok\n");
}

static void host_register(CUdevice dev)
{
	static char buf[1 << 16] __attribute__((aligned(4096)));

	if (!attribute(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, dev)) {
		printf("host registration: not supported, skipped\n");
		return;
	}
	checkCudaErrors(cuMemHostRegister(buf, sizeof(buf), 0));
	checkCudaErrors(cuMemHostUnregister(buf));
	printf("host registration: ok\n");
}

static void stream_mem_ops(CUdevice dev)
{
	CUdeviceptr p;

	if (!attribute(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev)) {
		printf("stream memory operations: not supported, skipped\n");
		return;
	}
	checkCudaErrors(cuMemAlloc(&p, 8));
	checkCudaErrors(cuStreamWriteValue64(NULL, p, 42, 0));
	checkCudaErrors(cuStreamWaitValue64(NULL, p, 42, CU_STREAM_WAIT_VALUE_EQ));
	checkCudaErrors(cuStreamSynchronize(NULL));
	checkCudaErrors(cuMemFree(p));
	printf("stream memory operations: ok\n");
}

/* The simpleP2P pattern: ask, then enable; copies work either way. */
static void peers(CUcontext ctx0, int count)
{
	CUdeviceptr a, b;
	CUcontext ctx1;
	int can = 0, rank = -1;
	CUctxCreateParams params;

	if (count < 2) {
		printf("peer access: one GPU, skipped\n");
		return;
	}
	memset(&params, 0, sizeof(params));
	checkCudaErrors(cuCtxCreate(&ctx1, &params, 0, 1));
	checkCudaErrors(cuMemAlloc(&b, 4096));
	checkCudaErrors(cuCtxSetCurrent(ctx0));
	checkCudaErrors(cuMemAlloc(&a, 4096));
	checkCudaErrors(cuMemsetD8(a, 0x5a, 4096));
	checkCudaErrors(cuMemcpyDtoD(b, a, 4096));
	checkCudaErrors(cuDeviceCanAccessPeer(&can, 0, 1));
	if (can) {
		checkCudaErrors(cuDeviceGetP2PAttribute(&rank,
				CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1));
		checkCudaErrors(cuCtxEnablePeerAccess(ctx1, 0));
		checkCudaErrors(cuMemcpyDtoD(a, b, 4096));
		checkCudaErrors(cuCtxDisablePeerAccess(ctx1));
	}
	checkCudaErrors(cuMemFree(a));
	checkCudaErrors(cuCtxSetCurrent(ctx1));
	checkCudaErrors(cuMemFree(b));
	checkCudaErrors(cuCtxSetCurrent(ctx0));
	checkCudaErrors(cuCtxDestroy(ctx1));
	printf("peer access: %s (rank %d)\n", can ? "enabled" : "not possible", rank);
}

int main(void)
{
	CUctxCreateParams params;
	CUcontext ctx;
	CUdevice dev;
	char name[256];
	int version = 0, count = 0;

	checkCudaErrors(cuInit(0));
	checkCudaErrors(cuDriverGetVersion(&version));
	checkCudaErrors(cuDeviceGetCount(&count));
	checkCudaErrors(cuDeviceGet(&dev, 0));
	checkCudaErrors(cuDeviceGetName(name, sizeof(name), dev));
	printf("driver %d, %d device(s), device 0: %s, compute capability %d.%d\n",
	       version, count, name,
	       attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
	       attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));

	/* Every CUDA 13 driver sample creates its context this way. */
	memset(&params, 0, sizeof(params));
	checkCudaErrors(cuCtxCreate(&ctx, &params, 0, dev));

	if (attribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev))
		vmm_roundtrip(dev);
	pools(dev);
	managed(dev);
	host_register(dev);
	stream_mem_ops(dev);
	peers(ctx, count);

	checkCudaErrors(cuCtxDestroy(ctx));
	printf("Test PASSED\n");
	return EXIT_SUCCESS;
}
