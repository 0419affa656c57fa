// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's errors and initialisation: every cudaError_t of
 * driver_types.h has its name and a description, the last-error slot is
 * per thread (cudaGetLastError resets it, cudaPeekAtLastError keeps it),
 * initialisation is implicit, the current device is per thread, the
 * runtime's context is the device's primary context, one made current
 * through the driver API is adopted, and cudaDeviceReset starts over.
 */
#include <pthread.h>
#include <sys/wait.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

static const struct {
	cudaError_t code;
	const char *name;
} rt_codes[] = {
#include "rt_errors.h"
};

TEST(every_code_has_name_and_string)
{
	size_t i;

	ASSERT_LE(130, sizeof(rt_codes) / sizeof(rt_codes[0]));
	for (i = 0; i < sizeof(rt_codes) / sizeof(rt_codes[0]); i++) {
		const char *s = cudaGetErrorString(rt_codes[i].code);

		EXPECT_STREQ(rt_codes[i].name, cudaGetErrorName(rt_codes[i].code));
		ASSERT_NE(NULL, s);
		EXPECT_STRNE("unrecognized error code", s);
		EXPECT_LT(0, strlen(s));
	}
	EXPECT_STREQ("unrecognized error code", cudaGetErrorName((cudaError_t)12345));
	EXPECT_STREQ("unrecognized error code", cudaGetErrorString((cudaError_t)-1));
	EXPECT_STREQ("invalid argument", cudaGetErrorString(cudaErrorInvalidValue));
	/* naming a code is no error */
	EXPECT_RT(cudaSuccess, cudaPeekAtLastError());
}

TEST(implicit_init)
{
	CUcontext cur = NULL, primary = NULL;
	int dev = -1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaFree(0));
	ASSERT_RT(cudaSuccess, cudaGetDevice(&dev));
	EXPECT_EQ(0, dev);
	/* the runtime's context is device 0's primary context */
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&primary, 0));
	EXPECT_EQ(primary, cur);
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
}

TEST(last_error_not_sticky)
{
	RT_SKIP();
	EXPECT_RT(cudaErrorInvalidDevice, cudaSetDevice(-1));
	EXPECT_RT(cudaSuccess, cudaFree(0));	/* a success keeps the slot */
	EXPECT_RT(cudaErrorInvalidDevice, cudaPeekAtLastError());
	EXPECT_RT(cudaErrorInvalidDevice, cudaPeekAtLastError());
	EXPECT_RT(cudaErrorInvalidValue, cudaGetDeviceCount(NULL));
	/* the latest error wins */
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaPeekAtLastError());
}

static void *other_thread_error(void *arg)
{
	int *seen = arg;

	seen[0] = cudaPeekAtLastError();
	seen[1] = cudaSetDevice(-1);
	seen[2] = cudaGetLastError();
	return NULL;
}

TEST(last_error_per_thread)
{
	int seen[3] = { -1, -1, -1 };
	pthread_t t;

	RT_SKIP();
	EXPECT_RT(cudaErrorInvalidValue, cudaMalloc(NULL, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, other_thread_error, seen));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(cudaSuccess, seen[0]);
	EXPECT_EQ(cudaErrorInvalidDevice, seen[1]);
	EXPECT_EQ(cudaErrorInvalidDevice, seen[2]);
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
}

static void *thread_device(void *arg)
{
	int *dev = arg;

	/* a new thread starts on device 0 whatever others chose */
	if (cudaGetDevice(&dev[0]) != cudaSuccess ||
	    cudaSetDevice(1) != cudaSuccess || cudaGetDevice(&dev[1]))
		dev[0] = -1;
	return NULL;
}

TEST(current_device_per_thread)
{
	int n = 0, mine = -1, theirs[2] = { -1, -1 };
	CUcontext cur = NULL, primary = NULL;
	pthread_t t;

	RT_NEED_GPUS(3);
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&n));
	EXPECT_RT(cudaErrorInvalidDevice, cudaSetDevice(n));
	ASSERT_RT(cudaSuccess, cudaSetDevice(2));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_device, theirs));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, theirs[0]);
	EXPECT_EQ(1, theirs[1]);
	ASSERT_RT(cudaSuccess, cudaGetDevice(&mine));
	EXPECT_EQ(2, mine);
	/* cudaSetDevice made device 2's primary context current */
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&primary, 2));
	EXPECT_EQ(primary, cur);
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(2));
}

/* A context made current with the driver API is the runtime's too. */
static void *adopt_thread(void *arg)
{
	int *out = arg;
	CUcontext ctx;
	CUdevice dev;
	void *p = NULL;

	if (cuDeviceGet(&dev, 1) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
		return NULL;
	out[0] = cudaGetDevice(&out[1]);
	out[2] = cudaMalloc(&p, 4096);
	if (!out[2]) {
		CUdeviceptr d = (CUdeviceptr)(uintptr_t)p;
		CUcontext owner = NULL;

		cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, d);
		out[3] = owner == ctx;
		cudaFree(p);
	}
	cuDevicePrimaryCtxRelease(dev);
	return NULL;
}

TEST(adopts_driver_context)
{
	int out[4] = { -1, -1, -1, -1 };
	pthread_t t;

	RT_NEED_GPUS(2);
	ASSERT_RT(cudaSuccess, cudaFree(0));	/* cuInit */
	ASSERT_EQ(0, pthread_create(&t, NULL, adopt_thread, out));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(cudaSuccess, out[0]);
	EXPECT_EQ(1, out[1]);
	EXPECT_EQ(cudaSuccess, out[2]);
	EXPECT_EQ(1, out[3]);
}

TEST(device_reset)
{
	unsigned int flags = 0;
	int active = 0;
	void *p = NULL;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaMalloc(&p, 1 << 16));
	EXPECT_RT(cudaErrorInvalidValue, cudaMalloc(NULL, 1));
	ASSERT_RT(cudaSuccess, cudaDeviceReset());
	/* the reset cleared this thread's error and destroyed the context */
	EXPECT_RT(cudaSuccess, cudaPeekAtLastError());
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(0, active);
	/* the allocation went with it; the next call starts over */
	EXPECT_RT(cudaErrorInvalidValue, cudaFree(p));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	ASSERT_RT(cudaSuccess, cudaMalloc(&p, 1 << 16));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(0, &flags, &active));
	EXPECT_EQ(1, active);
	EXPECT_RT(cudaSuccess, cudaFree(p));
}

static void *reset_other(void *arg)
{
	int *rc = arg;

	*rc = cudaDeviceReset();
	return NULL;
}

/* A reset by another thread: this thread's next call reactivates. */
TEST(device_reset_other_thread)
{
	int rc = -1;
	pthread_t t;
	void *p = NULL;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaFree(0));
	ASSERT_EQ(0, pthread_create(&t, NULL, reset_other, &rc));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(cudaSuccess, rc);
	EXPECT_RT(cudaSuccess, cudaMalloc(&p, 4096));
	EXPECT_RT(cudaSuccess, cudaFree(p));
	EXPECT_RT(cudaSuccess, cudaDeviceSynchronize());
}

TEST(init_device)
{
	unsigned int flags = 0;
	int active = 0;

	RT_NEED_GPUS(2);
	EXPECT_RT(cudaErrorInvalidValue, cudaInitDevice(1, 0, 0x10));
	EXPECT_RT(cudaErrorInvalidDevice, cudaInitDevice(-1, 0, 0));
	ASSERT_RT(cudaSuccess, cudaInitDevice(1, cudaDeviceScheduleYield,
					      cudaInitDeviceFlagsAreValid));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxGetState(1, &flags, &active));
	EXPECT_EQ(1, active);
	EXPECT_EQ(cudaDeviceScheduleYield, flags & cudaDeviceScheduleMask);
	EXPECT_RT(cudaErrorInvalidDevice, cudaGetLastError());
}

/*
 * No visible GPU: every call that needs the device reports
 * cudaErrorNoDevice, recorded as the last error. A forked child starts
 * the runtime over, so it sees its own CUDA_VISIBLE_DEVICES.
 */
TEST(no_device)
{
	int status = -1;
	pid_t pid;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaFree(0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int n = 7, rc = 0;
		void *p;

		setenv("CUDA_VISIBLE_DEVICES", "", 1);
		if (cudaGetDeviceCount(&n) != cudaErrorNoDevice)
			rc |= 1;
		if (cudaMalloc(&p, 16) != cudaErrorNoDevice)
			rc |= 2;
		if (cudaSetDevice(0) != cudaErrorNoDevice)
			rc |= 4;
		if (cudaGetLastError() != cudaErrorNoDevice)
			rc |= 8;
		/* needs no device */
		if (cudaGetErrorName(cudaErrorNoDevice)[0] != 'c')
			rc |= 16;
		_exit(rc);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
