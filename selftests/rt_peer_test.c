// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime peer access: cudaDeviceCanAccessPeer, cudaDeviceGetP2PAttribute,
 * cudaDeviceEnablePeerAccess / DisablePeerAccess with their runtime error
 * codes, and a device reading its peer's memory once access is enabled.
 */
#include "rt_helpers.h"
#include "kselftest_harness.h"

/* Skip unless GPUs 0 and 1 are peers both ways. */
#define PAIR_OR_SKIP() do {						\
	int __a = 0, __b = 0;						\
									\
	RT_NEED_GPUS(2);						\
	ASSERT_RT(cudaSuccess, cudaDeviceCanAccessPeer(&__a, 0, 1));	\
	ASSERT_RT(cudaSuccess, cudaDeviceCanAccessPeer(&__b, 1, 0));	\
	if (!__a || !__b)						\
		SKIP(return, "GPUs 0 and 1 are not peers (nvswitch=0?)"); \
} while (0)

TEST(can_access_and_attributes)
{
	int can = -1, v = -1, d = -1, n = 0;

	PAIR_OR_SKIP();
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_RT(cudaSuccess, cudaDeviceCanAccessPeer(&can, 0, 1));
	EXPECT_EQ(1, can);
	ASSERT_RT(cudaSuccess, cudaDeviceGetP2PAttribute(&v,
			cudaDevP2PAttrAccessSupported, 0, 1));
	EXPECT_EQ(1, v);
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&d,
			CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1));
	ASSERT_RT(cudaSuccess, cudaDeviceGetP2PAttribute(&v,
			cudaDevP2PAttrPerformanceRank, 0, 1));
	EXPECT_EQ(d, v);
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceCanAccessPeer(NULL, 0, 1));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceCanAccessPeer(&can, 0, n));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceCanAccessPeer(&can, -1, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetP2PAttribute(NULL,
			cudaDevP2PAttrAccessSupported, 0, 1));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceGetP2PAttribute(&v,
			cudaDevP2PAttrAccessSupported, 0, n));
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceGetP2PAttribute(&v,
			(enum cudaDeviceP2PAttr)77, 0, 1));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
}

TEST(enable_disable)
{
	unsigned char *remote = NULL, *local = NULL;
	int n = 0;

	PAIR_OR_SKIP();
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_RT(cudaSuccess, cudaSetDevice(1));
	ASSERT_RT(cudaSuccess, cudaMalloc((void **)&remote, 4096));
	ASSERT_RT(cudaSuccess, cudaMemset(remote, 0x5a, 4096));
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaMalloc((void **)&local, 4096));
	EXPECT_RT(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess(1));
	ASSERT_RT(cudaSuccess, cudaDeviceEnablePeerAccess(1, 0));
	EXPECT_RT(cudaErrorPeerAccessAlreadyEnabled, cudaDeviceEnablePeerAccess(1, 0));
	EXPECT_RT(cudaErrorPeerAccessAlreadyEnabled, cudaGetLastError());
	/* device 0's context copies from device 1's memory */
	ASSERT_RT(cudaSuccess, cudaMemcpy(local, remote, 4096,
					  cudaMemcpyDeviceToDevice));
	EXPECT_EQ(0x5a, local[4095]);
	EXPECT_RT(cudaErrorInvalidValue, cudaDeviceEnablePeerAccess(1, 1));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess(0, 0));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess(n, 0));
	EXPECT_RT(cudaErrorInvalidDevice, cudaDeviceDisablePeerAccess(-1));
	EXPECT_RT(cudaErrorInvalidDevice, cudaGetLastError());
	ASSERT_RT(cudaSuccess, cudaDeviceDisablePeerAccess(1));
	EXPECT_RT(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess(1));
	cudaGetLastError();
	EXPECT_RT(cudaSuccess, cudaFree(local));
	EXPECT_RT(cudaSuccess, cudaFree(remote));
}

/* Peer access is per direction: 1 -> 0 needs its own enable. */
TEST(per_direction)
{
	PAIR_OR_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaDeviceEnablePeerAccess(1, 0));
	ASSERT_RT(cudaSuccess, cudaSetDevice(1));
	EXPECT_RT(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess(0));
	ASSERT_RT(cudaSuccess, cudaDeviceEnablePeerAccess(0, 0));
	EXPECT_RT(cudaSuccess, cudaDeviceDisablePeerAccess(0));
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	EXPECT_RT(cudaSuccess, cudaDeviceDisablePeerAccess(1));
	cudaGetLastError();
}

TEST_HARNESS_MAIN
