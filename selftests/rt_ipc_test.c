// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's CUDA IPC memory (cudaIpcGetMemHandle, OpenMemHandle,
 * CloseMemHandle) and its device limits (cudaDeviceGetLimit/SetLimit),
 * written against NVIDIA's cuda_runtime_api.h as a user's program is.
 */
#include <sys/wait.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

#define LEN	(64 * 1024)

/* A child process opens @h, reads the first byte, closes: exit status. */
static int child_reads(cudaIpcMemHandle_t h, unsigned char want)
{
	unsigned char b = 0;
	void *p = NULL;
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		if (cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess))
			_exit(10);
		if (cudaMemcpy(&b, p, 1, cudaMemcpyDeviceToHost) || b != want)
			_exit(11);
		if (cudaIpcCloseMemHandle(p) != cudaSuccess)
			_exit(12);
		/* closed: no longer a pointer Open returned */
		if (cudaIpcCloseMemHandle(p) != cudaErrorInvalidValue)
			_exit(13);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

TEST(ipc_memory)
{
	cudaIpcMemHandle_t h;
	void *d, *host, *p;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, LEN));
	ASSERT_RT(cudaSuccess, cudaMemset(d, 0x5a, LEN));
	EXPECT_RT(cudaErrorInvalidValue, cudaIpcGetMemHandle(NULL, d));
	ASSERT_RT(cudaSuccess, cudaIpcGetMemHandle(&h, d));
	EXPECT_EQ(0, child_reads(h, 0x5a));
	/* not in the process that exported it, as driver 580 answers */
	EXPECT_RT(cudaErrorDeviceUninitialized,
		  cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaIpcOpenMemHandle(NULL, h, cudaIpcMemLazyEnablePeerAccess));
	/* only cudaMalloc memory has a handle */
	ASSERT_RT(cudaSuccess, cudaMallocHost(&host, LEN));
	EXPECT_RT(cudaErrorInvalidValue, cudaIpcGetMemHandle(&h, host));
	EXPECT_RT(cudaSuccess, cudaFreeHost(host));
	EXPECT_RT(cudaErrorInvalidValue, cudaIpcCloseMemHandle(d));
	cudaGetLastError();
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

TEST(device_limits)
{
	size_t v = 0, stack = 0;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaDeviceGetLimit(&stack, cudaLimitStackSize));
	ASSERT_NE(0U, stack);
	/* a little more: the stack of every thread the GPU holds must fit */
	ASSERT_RT(cudaSuccess, cudaDeviceSetLimit(cudaLimitStackSize, stack + 16));
	ASSERT_RT(cudaSuccess, cudaDeviceGetLimit(&v, cudaLimitStackSize));
	EXPECT_EQ(stack + 16, v);
	ASSERT_RT(cudaSuccess, cudaDeviceSetLimit(cudaLimitMallocHeapSize,
						  16 << 20));
	ASSERT_RT(cudaSuccess, cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
	EXPECT_EQ((size_t)16 << 20, v);
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaDeviceGetLimit(NULL, cudaLimitStackSize));
	/* compute capability 9.0 has no device-runtime sync depth */
	EXPECT_RT(cudaErrorUnsupportedLimit,
		  cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 1));
	EXPECT_RT(cudaErrorUnsupportedLimit,
		  cudaDeviceGetLimit(&v, (enum cudaLimit)0x7f));
	cudaGetLastError();
}

TEST_HARNESS_MAIN
