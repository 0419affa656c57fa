// SPDX-License-Identifier: GPL-2.0
/*
 * A program built against NVIDIA's cuda.h (not cufab's) runs on libcufab:
 * the _v2/_v4 renames of that header must land on symbols libcufab exports
 * with the same ABI, and the answers must match what the kernel reports.
 * Built only where /usr/local/cuda/include/cuda.h exists (selftests/abi/abi.mk).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cuda.h>
#include <linux/cufab.h>

#include "../cufab_test.h"
#include "kselftest_harness.h"

/* Kernel GPU 0 (no CUDA_VISIBLE_DEVICES here: ordinal 0 is kernel GPU 0). */
static int gpu0_info(struct cufab_device_info *info, int *attrs, int *num_gpus)
{
	struct cufab_get_version ver = { .size = sizeof(ver) };
	int fd, ret;

	fd = open(CUFAB_DEV, O_RDWR);
	if (fd < 0)
		return -1;
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->num_attrs = CUFAB_NUM_DEVICE_ATTRS;
	info->attrs_ptr = (uintptr_t)attrs;
	ret = ioctl(fd, CUFAB_IOCTL_GET_VERSION, &ver) ||
	      ioctl(fd, CUFAB_IOCTL_DEVICE_INFO, info);
	*num_gpus = ver.num_gpus;
	close(fd);
	return ret ? -1 : 0;
}

TEST(version_errors_entry_points)
{
	CUdriverProcAddressQueryResult st;
	const char *name;
	void *pfn;
	int v;

	ASSERT_CU(CUDA_SUCCESS, cuDriverGetVersion(&v));
	EXPECT_LE(CUDA_VERSION, v);
	ASSERT_CU(CUDA_SUCCESS, cuGetErrorName(CUDA_ERROR_NOT_PERMITTED, &name));
	EXPECT_STREQ("CUDA_ERROR_NOT_PERMITTED", name);
	/* cuGetProcAddress is cuGetProcAddress_v2 in this header. */
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuCtxCreate", &pfn, CUDA_VERSION, 0, &st));
	EXPECT_EQ((int)CU_GET_PROC_ADDRESS_SUCCESS, (int)st);
	EXPECT_EQ((void *)cuCtxCreate, pfn);
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDeviceTotalMem", &pfn, CUDA_VERSION, 0, &st));
	EXPECT_EQ((void *)cuDeviceTotalMem, pfn);
}

TEST(devices)
{
	static int attrs[CUFAB_NUM_DEVICE_ATTRS];
	struct cufab_device_info info;
	char name[256], bus[32];
	int n, num_gpus, v;
	CUdevice dev;
	size_t mem;
	CUuuid u;

	INIT_OR_SKIP();
	ASSERT_EQ(0, gpu0_info(&info, attrs, &num_gpus));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	EXPECT_EQ(num_gpus, n);
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGet(&dev, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetName(name, sizeof(name), dev));
	EXPECT_STREQ(info.name, name);
	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&mem, dev));
	EXPECT_EQ(info.total_mem, mem);
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetUuid(&u, dev));
	EXPECT_EQ(0, memcmp(u.bytes, info.uuid, sizeof(u.bytes)));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetPCIBusId(bus, sizeof(bus), dev));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetByPCIBusId(&dev, bus));
	EXPECT_EQ(0, dev);
	ASSERT_CU(CUDA_SUCCESS,
		  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev));
	EXPECT_EQ(attrs[CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED], v);
	ASSERT_CU(CUDA_SUCCESS,
		  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev));
	EXPECT_EQ(attrs[CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED], v);
	ASSERT_CU(CUDA_SUCCESS,
		  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	EXPECT_EQ(attrs[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR], v);
}

TEST(contexts)
{
	CUexecAffinityParam aff = { .type = CU_EXEC_AFFINITY_TYPE_SM_COUNT };
	CUctxCreateParams params = { .execAffinityParams = &aff,
				     .numExecAffinityParams = 1 };
	CUcontext ctx, cur, primary;
	unsigned int flags;
	CUdevice dev;
	int active;

	INIT_OR_SKIP();
	/* cuCtxCreate_v4, with the 13.0 parameter struct. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, CU_CTX_SCHED_YIELD, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	EXPECT_EQ(ctx, cur);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetDevice(&dev));
	EXPECT_EQ(0, dev);
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetFlags(&flags));
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_YIELD, flags);
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuCtxCreate(&cur, &params, 0, 0));
	/* _v2 push, pop and destroy. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&cur));
	EXPECT_EQ(ctx, cur);
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(ctx));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(ctx));

	/* Primary context: retain, _v2 set flags, release and reset. */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_SPIN));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&primary, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(1, active);
	EXPECT_EQ((unsigned int)CU_CTX_SCHED_SPIN, flags);
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0));
}

TEST_HARNESS_MAIN
