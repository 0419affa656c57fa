// SPDX-License-Identifier: GPL-2.0
/*
 * The entry points nvcc's generated host code calls, driven here as that
 * code drives them: a fat binary and a kernel registered at load time,
 * the <<<>>> configuration pushed and popped, launches by host stub
 * (cudaLaunchKernel) and by handle (__cudaGetKernel, __cudaLaunchKernel).
 * cufab runs no device code: every launch of a registered kernel is
 * cudaErrorNoKernelImageForDevice, with a CUFAB_DEBUG line naming it.
 * (selftests/rt_nvcc_test.sh runs a program nvcc built.)
 */
#include <fcntl.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
			    char *deviceFun, const char *deviceName,
			    int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
		       char *deviceAddress, const char *deviceName, int ext,
		       size_t size, int constant, int global);
unsigned int __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
					 size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
				       size_t *sharedMem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
			       dim3 blockDim, void **args, size_t sharedMem,
			       cudaStream_t stream);

static const unsigned long long fake_image[4] = { 0xba55ed50ULL };

static struct {
	int magic, version;
	const void *data;
	void *filename_or_fatbins;
} fatbin = { 0x466243b1, 1, fake_image, NULL };

static char device_var[4];
static char kernel_name[] = "_Z6scaleRPfi";
static char var_name[] = "counter";

/* What nvcc's stub for a kernel would be. */
static void scale_stub(float *p, int n)
{
}

static void **module(void)
{
	void **h = __cudaRegisterFatBinary(&fatbin);

	__cudaRegisterFunction(h, (const char *)scale_stub, kernel_name,
			       kernel_name, -1, NULL, NULL, NULL, NULL, NULL);
	__cudaRegisterVar(h, device_var, var_name, var_name, 0,
			  sizeof(device_var), 0, 0);
	__cudaRegisterFatBinaryEnd(h);
	return h;
}

TEST(launch_has_no_image)
{
	dim3 grid = { 4, 1, 1 }, block = { 128, 1, 1 };
	cudaLaunchConfig_t config = { 0 };
	struct cudaFuncAttributes attr;
	const char *name = NULL;
	cudaKernel_t k = NULL;
	float *p = NULL;
	int n = 16;
	void *args[] = { &p, &n };
	void **h;

	RT_SKIP();
	h = module();
	ASSERT_NE(NULL, h);
	EXPECT_RT(cudaErrorNoKernelImageForDevice,
		  cudaLaunchKernel((const void *)scale_stub, grid, block, args, 0, 0));
	EXPECT_RT(cudaErrorNoKernelImageForDevice, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaGetLastError());	/* not sticky */
	ASSERT_RT(cudaSuccess, cudaFuncGetName(&name, (const void *)scale_stub));
	EXPECT_STREQ(kernel_name, name);
	EXPECT_RT(cudaErrorNoKernelImageForDevice,
		  cudaFuncGetAttributes(&attr, (const void *)scale_stub));
	EXPECT_RT(cudaErrorNoKernelImageForDevice,
		  cudaLaunchCooperativeKernel((const void *)scale_stub, grid, block,
					      args, 0, 0));
	config.gridDim = grid;
	config.blockDim = block;
	EXPECT_RT(cudaErrorNoKernelImageForDevice,
		  cudaLaunchKernelExC(&config, (const void *)scale_stub, args));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaLaunchKernelExC(NULL, (const void *)scale_stub, args));
	/* the handle of cudaGetKernel launches as the stub does */
	ASSERT_RT(cudaSuccess, cudaGetKernel(&k, (const void *)scale_stub));
	EXPECT_RT(cudaErrorNoKernelImageForDevice,
		  cudaLaunchKernel((const void *)k, grid, block, args, 0, 0));
	/* not a kernel */
	EXPECT_RT(cudaErrorInvalidDeviceFunction,
		  cudaLaunchKernel((const void *)module, grid, block, args, 0, 0));
	EXPECT_RT(cudaErrorInvalidDeviceFunction,
		  cudaFuncGetName(&name, (const void *)module));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaFuncGetName(NULL, (const void *)scale_stub));
	cudaGetLastError();
	__cudaUnregisterFatBinary(h);
	EXPECT_RT(cudaErrorInvalidDeviceFunction,
		  cudaLaunchKernel((const void *)scale_stub, grid, block, args, 0, 0));
	cudaGetLastError();
}

/* scale_stub<<<grid, block, 64, s>>>(p, n) as nvcc 13 generates it. */
TEST(triple_chevron)
{
	dim3 grid = { 2, 3, 1 }, block = { 32, 4, 1 }, g, b;
	cudaStream_t s = NULL, popped = NULL;
	cudaKernel_t k = NULL;
	size_t shared = 0;
	float *p = NULL;
	int n = 1;
	void *args[] = { &p, &n };
	void **h;

	RT_SKIP();
	h = module();
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_EQ(0, __cudaPushCallConfiguration(grid, block, 64, s));
	ASSERT_RT(cudaSuccess, __cudaGetKernel(&k, (const void *)scale_stub));
	ASSERT_NE(NULL, k);
	ASSERT_RT(cudaSuccess, __cudaPopCallConfiguration(&g, &b, &shared, &popped));
	EXPECT_EQ(2, g.x);
	EXPECT_EQ(3, g.y);
	EXPECT_EQ(4, b.y);
	EXPECT_EQ(64, shared);
	EXPECT_EQ(s, popped);
	EXPECT_RT(cudaErrorNoKernelImageForDevice,
		  __cudaLaunchKernel(k, g, b, args, shared, popped));
	/* a pop without its push */
	EXPECT_RT(cudaErrorMissingConfiguration,
		  __cudaPopCallConfiguration(&g, &b, &shared, &popped));
	EXPECT_RT(cudaErrorInvalidDeviceFunction,
		  __cudaGetKernel(&k, (const void *)module));
	EXPECT_RT(cudaErrorInvalidDeviceFunction, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	__cudaUnregisterFatBinary(h);
}

/* CUFAB_DEBUG=1: the failed launch names the kernel on stderr. */
TEST(debug_message_names_kernel)
{
	dim3 one = { 1, 1, 1 };
	char buf[4096] = "";
	int pipefd[2], saved;
	ssize_t len;
	void **h;

	RT_SKIP();
	h = module();
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, fcntl(pipefd[0], F_SETFL, O_NONBLOCK));
	saved = dup(2);
	ASSERT_LE(0, saved);
	ASSERT_EQ(2, dup2(pipefd[1], 2));
	setenv("CUFAB_DEBUG", "1", 1);
	cudaLaunchKernel((const void *)scale_stub, one, one, NULL, 0, 0);
	unsetenv("CUFAB_DEBUG");
	dup2(saved, 2);
	close(saved);
	close(pipefd[1]);
	len = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	ASSERT_LT(0, len);
	buf[len] = 0;
	EXPECT_NE(NULL, strstr(buf, kernel_name)) TH_LOG("stderr: %s", buf);
	EXPECT_NE(NULL, strstr(buf, "cudaLaunchKernel"));
	cudaGetLastError();
	__cudaUnregisterFatBinary(h);
}

TEST_HARNESS_MAIN
