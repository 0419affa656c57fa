// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime device management against the driver API's answers: count,
 * cudaDeviceProp (13.0), attributes, PCI bus ids, cudaChooseDevice, device
 * flags, memory info, versions and cudaGetDriverEntryPoint(ByVersion).
 */
#include <dlfcn.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

TEST(device_count)
{
	int n = 0, drv = 0;

	RT_SKIP();
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDeviceCount(NULL));
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&drv));
	EXPECT_EQ(drv, n);
	EXPECT_LE(1, n);
	cudaGetLastError();
}

TEST(properties_match_the_driver)
{
	struct cudaDeviceProp prop;
	char name[256];
	size_t total = 0;
	int n = 0, dev, v;
	CUuuid uuid;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDeviceProperties(NULL, 0));
	EXPECT_RT(cudaErrorInvalidDevice, cudaGetDeviceProperties(&prop, n));
	EXPECT_RT(cudaErrorInvalidDevice, cudaGetDeviceProperties(&prop, -1));
	for (dev = 0; dev < n; dev++) {
		ASSERT_RT(cudaSuccess, cudaGetDeviceProperties(&prop, dev));
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetName(name, sizeof(name), dev));
		EXPECT_STREQ(name, prop.name);
		ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&total, dev));
		EXPECT_EQ(total, prop.totalGlobalMem);
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetUuid(&uuid, dev));
		EXPECT_EQ(0, memcmp(&uuid, &prop.uuid, sizeof(uuid)));
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		EXPECT_EQ(v, prop.major);
		EXPECT_LT(0, prop.major);
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
		EXPECT_EQ(v, prop.pciBusID);
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
		EXPECT_EQ(v, prop.multiProcessorCount);
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev);
		EXPECT_EQ((size_t)v, prop.sharedMemPerBlock);
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev);
		EXPECT_EQ(v, prop.memoryPoolsSupported);
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, dev);
		EXPECT_EQ(v, prop.managedMemory);
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev);
		EXPECT_EQ(v, prop.unifiedAddressing);
		EXPECT_EQ(1, prop.unifiedAddressing);
		EXPECT_EQ(32, prop.warpSize);
	}
	EXPECT_RT(cudaErrorInvalidDevice, cudaGetLastError());
}

TEST(attributes)
{
	int v = -1, d = -2, n = 0;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_RT(cudaSuccess, cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
	EXPECT_EQ(32, v);
	ASSERT_RT(cudaSuccess, cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported,
						      n - 1));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&d,
			CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, n - 1));
	EXPECT_EQ(d, v);
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0));
	EXPECT_RT(cudaErrorInvalidDevice,
		  cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, n));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)0, 0));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)100000, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
}

TEST(pci_bus_id)
{
	char id[32], shortid[4];
	int n = 0, dev, back = -1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	for (dev = 0; dev < n; dev++) {
		ASSERT_RT(cudaSuccess, cudaDeviceGetPCIBusId(id, sizeof(id), dev));
		ASSERT_RT(cudaSuccess, cudaDeviceGetByPCIBusId(&back, id));
		EXPECT_EQ(dev, back);
	}
	/* truncated to len - 1, as the driver does */
	ASSERT_RT(cudaSuccess, cudaDeviceGetPCIBusId(shortid, sizeof(shortid), 0));
	EXPECT_EQ(3, strlen(shortid));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetPCIBusId(NULL, 32, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetPCIBusId(id, 0, 0));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceGetPCIBusId(id, sizeof(id), n));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetByPCIBusId(NULL, id));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetByPCIBusId(&back, NULL));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetByPCIBusId(&back, "not a bus id"));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceGetByPCIBusId(&back, "ffff:ff:1f.0"));
	cudaGetLastError();
}

TEST(choose_device)
{
	struct cudaDeviceProp want, last, got;
	int n = 0, dev = -1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	memset(&want, 0, sizeof(want));
	ASSERT_RT(cudaSuccess, cudaChooseDevice(&dev, &want));
	EXPECT_EQ(0, dev);
	/* asking for the last device's name picks a device of that name */
	ASSERT_RT(cudaSuccess, cudaGetDeviceProperties(&last, n - 1));
	strcpy(want.name, last.name);
	want.major = last.major;
	ASSERT_RT(cudaSuccess, cudaChooseDevice(&dev, &want));
	ASSERT_RT(cudaSuccess, cudaGetDeviceProperties(&got, dev));
	EXPECT_STREQ(last.name, got.name);
	/* more memory than any device has still chooses one */
	want.totalGlobalMem = (size_t)1 << 62;
	ASSERT_RT(cudaSuccess, cudaChooseDevice(&dev, &want));
	EXPECT_LE(0, dev);
	EXPECT_GT(n, dev);
	EXPECT_RT(cudaErrorInvalidValue, cudaChooseDevice(NULL, &want));
	EXPECT_RT(cudaErrorInvalidValue, cudaChooseDevice(&dev, NULL));
	cudaGetLastError();
}

TEST(device_flags)
{
	unsigned int flags = 0, drv = 0;
	int active;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
	ASSERT_RT(cudaSuccess, cudaGetDeviceFlags(&flags));
	EXPECT_EQ(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost, flags);
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &drv, &active));
	EXPECT_EQ(CU_CTX_SCHED_BLOCKING_SYNC, drv & CU_CTX_SCHED_MASK);
	EXPECT_RT(cudaErrorInvalidValue, cudaSetDeviceFlags(0x100));
	EXPECT_RT(cudaErrorInvalidValue, cudaSetDeviceFlags(
			cudaDeviceScheduleSpin | cudaDeviceScheduleYield));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDeviceFlags(NULL));
	ASSERT_RT(cudaSuccess, cudaSetDeviceFlags(cudaDeviceScheduleAuto));
	cudaGetLastError();
}

TEST(synchronize_and_mem_info)
{
	size_t free = 0, total = 0, dtotal = 0;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	EXPECT_RT(cudaSuccess, cudaDeviceSynchronize());
	ASSERT_RT(cudaSuccess, cudaMemGetInfo(&free, &total));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&dtotal, 0));
	EXPECT_EQ(dtotal, total);
	EXPECT_GE(total, free);
	EXPECT_LT(0, free);
	EXPECT_RT(cudaErrorInvalidValue, cudaMemGetInfo(NULL, &total));
	EXPECT_RT(cudaErrorInvalidValue, cudaMemGetInfo(&free, NULL));
	cudaGetLastError();
}

TEST(versions)
{
	int rt = 0, drv = 0, cu = 0;

	ASSERT_RT(cudaSuccess, cudaRuntimeGetVersion(&rt));
	EXPECT_EQ(13000, rt);
	EXPECT_EQ(CUDART_VERSION, rt);
	ASSERT_RT(cudaSuccess, cudaDriverGetVersion(&drv));
	ASSERT_CU(CUDA_SUCCESS, cuDriverGetVersion(&cu));
	EXPECT_EQ(cu, drv);
	EXPECT_LE(rt, drv);
	EXPECT_RT(cudaErrorInvalidValue, cudaRuntimeGetVersion(NULL));
	EXPECT_RT(cudaErrorInvalidValue, cudaDriverGetVersion(NULL));
	cudaGetLastError();
}

TEST(driver_entry_points)
{
	enum cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSymbolNotFound;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *fn = (void *)1;

	RT_SKIP();
	/* libcufab is what the runtime runs on: it is loaded as libcufab.so.1 */
	if (!lib)
		lib = dlopen("libcufab.so.1", RTLD_NOW | RTLD_NOLOAD);
	ASSERT_NE(NULL, lib);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPoint("cuMemAlloc", &fn,
						       cudaEnableDefault, &st));
	EXPECT_EQ(cudaDriverEntryPointSuccess, st);
	EXPECT_EQ(dlsym(lib, "cuMemAlloc_v2"), fn);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPoint("cuStreamQuery", &fn,
						       cudaEnableDefault, NULL));
	EXPECT_EQ(dlsym(lib, "cuStreamQuery"), fn);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPoint("cuStreamQuery", &fn,
				cudaEnablePerThreadDefaultStream, &st));
	EXPECT_EQ(dlsym(lib, "cuStreamQuery_ptsz"), fn);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPoint("cuNoSuchCall", &fn,
						       cudaEnableDefault, &st));
	EXPECT_EQ(NULL, fn);
	EXPECT_EQ(cudaDriverEntryPointSymbolNotFound, st);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn,
					12000, cudaEnableDefault, &st));
	EXPECT_EQ(dlsym(lib, "cuMemAlloc_v2"), fn);
	/* cuMemPoolCreate appeared in 11.2 */
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPointByVersion("cuMemPoolCreate",
					&fn, 11000, cudaEnableDefault, &st));
	EXPECT_EQ(NULL, fn);
	EXPECT_EQ(cudaDriverEntryPointVersionNotSufficent, st);
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDriverEntryPointByVersion(
			"cuMemAlloc", &fn, 99000, cudaEnableDefault, &st));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDriverEntryPoint(NULL, &fn, 0, &st));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDriverEntryPoint("cuMemAlloc", NULL,
								0, &st));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDriverEntryPoint("cuMemAlloc", &fn,
								 0x10, &st));
	cudaGetLastError();
	dlclose(lib);
}

TEST_HARNESS_MAIN
