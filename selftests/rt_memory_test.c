// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime memory: cudaMalloc/Free, pinned host memory, pitched memory,
 * cudaMemcpy(Async) of every kind, the 2D and peer copies, the memsets and
 * cudaPointerGetAttributes, each checked by reading the bytes back.
 */
#include <stdlib.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

#define N	8192

static void fill(unsigned char *p, size_t n, unsigned char seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7);
}

static int same(const unsigned char *p, size_t n, unsigned char seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed + i * 7))
			return 0;
	return 1;
}

TEST(malloc_free)
{
	void *p = (void *)1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc(&p, 0));
	EXPECT_EQ(NULL, p);
	ASSERT_RT(cudaSuccess, cudaMalloc(&p, 4096));
	ASSERT_NE(NULL, p);
	EXPECT_RT(cudaSuccess, cudaFree(p));
	EXPECT_RT(cudaErrorInvalidValue, cudaFree(p));
	EXPECT_RT(cudaErrorInvalidValue, cudaMalloc(NULL, 16));
	EXPECT_RT(cudaErrorMemoryAllocation, cudaMalloc(&p, (size_t)1 << 60));
	EXPECT_RT(cudaErrorMemoryAllocation, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaFree(NULL));
}

TEST(host_memory)
{
	void *h = NULL, *d = NULL, *m;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMallocHost(&h, N));
	memset(h, 5, N);
	ASSERT_RT(cudaSuccess, cudaHostGetDevicePointer(&d, h, 0));
	EXPECT_EQ(h, d);	/* unified addressing */
	EXPECT_RT(cudaErrorInvalidValue, cudaHostGetDevicePointer(&d, h, 1));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostGetDevicePointer(NULL, h, 0));
	m = malloc(64);
	ASSERT_NE(NULL, m);
	EXPECT_RT(cudaErrorInvalidValue, cudaHostGetDevicePointer(&d, m, 0));
	free(m);
	EXPECT_RT(cudaSuccess, cudaFreeHost(h));
	EXPECT_RT(cudaErrorInvalidValue, cudaFreeHost(h));
	ASSERT_RT(cudaSuccess, cudaHostAlloc(&h, N, cudaHostAllocPortable |
					     cudaHostAllocMapped));
	ASSERT_RT(cudaSuccess, cudaHostGetDevicePointer(&d, h, 0));
	EXPECT_EQ(h, d);
	EXPECT_RT(cudaSuccess, cudaFreeHost(h));
	ASSERT_RT(cudaSuccess, cudaHostAlloc(&h, N, cudaHostAllocWriteCombined));
	EXPECT_RT(cudaSuccess, cudaFreeHost(h));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostAlloc(&h, N, 0x10));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocHost(NULL, N));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
}

/*
 * cudaHostAlloc's flags read back, cudaHostRegister and its errors,
 * cudaPointerGetAttributes of registered memory, a copy into it.
 */
TEST(host_register)
{
	struct cudaPointerAttributes a;
	unsigned char *m = aligned_alloc(4096, 4 * 4096), *src;
	unsigned int flags = 0;
	void *h = NULL, *d = NULL, *dev = NULL;

	RT_SKIP();
	ASSERT_NE(NULL, m);
	ASSERT_RT(cudaSuccess, cudaHostAlloc(&h, N, cudaHostAllocMapped |
					     cudaHostAllocWriteCombined));
	EXPECT_RT(cudaSuccess, cudaHostGetFlags(&flags, h));
	EXPECT_EQ(cudaHostAllocMapped | cudaHostAllocWriteCombined, flags);
	EXPECT_RT(cudaErrorHostMemoryAlreadyRegistered,
		  cudaHostRegister(h, N, cudaHostRegisterDefault));
	EXPECT_RT(cudaSuccess, cudaFreeHost(h));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostGetFlags(&flags, m));

	ASSERT_RT(cudaSuccess, cudaHostRegister(m + 16, 2 * 4096,
						cudaHostRegisterMapped |
						cudaHostRegisterPortable));
	EXPECT_RT(cudaErrorHostMemoryAlreadyRegistered,
		  cudaHostRegister(m + 4096, 4096, cudaHostRegisterDefault));
	EXPECT_RT(cudaErrorHostMemoryAlreadyRegistered, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaHostGetDevicePointer(&d, m + 32, 0));
	EXPECT_EQ(m + 32, (unsigned char *)d);
	EXPECT_RT(cudaSuccess, cudaPointerGetAttributes(&a, m + 32));
	EXPECT_EQ(cudaMemoryTypeHost, a.type);
	EXPECT_EQ(0, a.device);
	EXPECT_EQ(m + 32, (unsigned char *)a.devicePointer);
	EXPECT_EQ(m + 32, (unsigned char *)a.hostPointer);
	EXPECT_RT(cudaErrorInvalidValue, cudaHostGetFlags(&flags, m + 32));

	/* a copy through the device into registered memory */
	src = malloc(4096);
	ASSERT_NE(NULL, src);
	fill(src, 4096, 3);
	ASSERT_RT(cudaSuccess, cudaMalloc(&dev, 4096));
	EXPECT_RT(cudaSuccess, cudaMemcpy(dev, src, 4096, cudaMemcpyHostToDevice));
	EXPECT_RT(cudaSuccess, cudaMemcpyAsync(m + 16, dev, 4096,
					       cudaMemcpyDeviceToHost, 0));
	EXPECT_RT(cudaSuccess, cudaDeviceSynchronize());
	EXPECT_TRUE(same(m + 16, 4096, 3));
	EXPECT_RT(cudaSuccess, cudaFree(dev));
	free(src);

	EXPECT_RT(cudaErrorHostMemoryNotRegistered, cudaHostUnregister(m + 32));
	EXPECT_RT(cudaSuccess, cudaHostUnregister(m + 16));
	EXPECT_RT(cudaErrorHostMemoryNotRegistered, cudaHostUnregister(m + 16));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostGetDevicePointer(&d, m + 32, 0));
	EXPECT_RT(cudaSuccess, cudaPointerGetAttributes(&a, m + 32));
	EXPECT_EQ(cudaMemoryTypeUnregistered, a.type);
	EXPECT_RT(cudaErrorInvalidValue, cudaHostRegister(NULL, 4096, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostRegister(m, 0, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostRegister(m, 4096, 0x20));
	EXPECT_RT(cudaErrorInvalidValue,
		  cudaHostRegister(m, 4096, cudaHostRegisterIoMemory));
	EXPECT_RT(cudaErrorInvalidValue, cudaHostUnregister(NULL));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	free(m);
}

TEST(malloc_pitch)
{
	size_t pitch = 0;
	int align = 0;
	void *p = NULL;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaDeviceGetAttribute(&align,
			cudaDevAttrTexturePitchAlignment, 0));
	ASSERT_RT(cudaSuccess, cudaMallocPitch(&p, &pitch, 100, 10));
	ASSERT_NE(NULL, p);
	EXPECT_LE(100, pitch);
	if (align > 0)
		EXPECT_EQ(0, pitch % align);
	memset(p, 1, pitch * 10);	/* all rows are there */
	EXPECT_RT(cudaSuccess, cudaFree(p));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocPitch(NULL, &pitch, 1, 1));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocPitch(&p, NULL, 1, 1));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocPitch(&p, &pitch,
							 SIZE_MAX / 2, 4));
	cudaGetLastError();
}

/* Host -> device -> device -> host -> host, by each kind. */
TEST(memcpy_every_kind)
{
	unsigned char *h1 = malloc(N), *h2 = malloc(N), *h3 = malloc(N);
	void *d1 = NULL, *d2 = NULL;
	enum cudaMemcpyKind k;

	RT_SKIP();
	ASSERT_NE(NULL, h1);
	ASSERT_NE(NULL, h2);
	ASSERT_NE(NULL, h3);
	ASSERT_RT(cudaSuccess, cudaMalloc(&d1, N));
	ASSERT_RT(cudaSuccess, cudaMalloc(&d2, N));
	for (k = cudaMemcpyHostToHost; k <= cudaMemcpyDefault; k++) {
		enum cudaMemcpyKind hd = k == cudaMemcpyDefault ? k : cudaMemcpyHostToDevice;
		enum cudaMemcpyKind dd = k == cudaMemcpyDefault ? k : cudaMemcpyDeviceToDevice;
		enum cudaMemcpyKind dh = k == cudaMemcpyDefault ? k : cudaMemcpyDeviceToHost;
		enum cudaMemcpyKind hh = k == cudaMemcpyDefault ? k : cudaMemcpyHostToHost;

		fill(h1, N, (unsigned char)k);
		memset(h3, 0, N);
		ASSERT_RT(cudaSuccess, cudaMemcpy(d1, h1, N, hd));
		ASSERT_RT(cudaSuccess, cudaMemcpy(d2, d1, N, dd));
		ASSERT_RT(cudaSuccess, cudaMemcpy(h2, d2, N, dh));
		ASSERT_RT(cudaSuccess, cudaMemcpy(h3, h2, N, hh));
		EXPECT_TRUE(same(h3, N, (unsigned char)k));
	}
	EXPECT_RT(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpy(d1, h1, N, (enum cudaMemcpyKind)5));
	EXPECT_RT(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaMemcpy(d1, h1, 0, cudaMemcpyHostToDevice));
	EXPECT_RT(cudaSuccess, cudaFree(d1));
	EXPECT_RT(cudaSuccess, cudaFree(d2));
	free(h1);
	free(h2);
	free(h3);
}

TEST(memcpy_async_on_streams)
{
	unsigned char *h = NULL, *back = NULL;
	cudaStream_t s = NULL;
	void *d = NULL;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMallocHost((void **)&h, N));
	ASSERT_RT(cudaSuccess, cudaMallocHost((void **)&back, N));
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, N));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	fill(h, N, 3);
	ASSERT_RT(cudaSuccess, cudaMemcpyAsync(d, h, N, cudaMemcpyHostToDevice, s));
	ASSERT_RT(cudaSuccess, cudaMemcpyAsync(back, d, N, cudaMemcpyDeviceToHost, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_TRUE(same(back, N, 3));
	fill(h, N, 4);
	ASSERT_RT(cudaSuccess, cudaMemcpyAsync(d, h, N, cudaMemcpyDefault, 0));
	ASSERT_RT(cudaSuccess, cudaMemcpyAsync(back, d, N, cudaMemcpyDefault,
					       cudaStreamPerThread));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(cudaStreamPerThread));
	EXPECT_TRUE(same(back, N, 4));
	EXPECT_RT(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpyAsync(d, h, N, (enum cudaMemcpyKind)9, s));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaErrorInvalidResourceHandle,
		  cudaMemcpyAsync(d, h, N, cudaMemcpyHostToDevice, s));
	cudaGetLastError();
	cudaFree(d);
	cudaFreeHost(h);
	cudaFreeHost(back);
}

/* A 16 x 8 block between a 40-byte-pitch host array and pitched memory. */
TEST(memcpy_2d)
{
	unsigned char host[8][40], back[8][24];
	size_t pitch = 0, r, c;
	cudaStream_t s;
	void *d = NULL;
	int ok = 1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMallocPitch(&d, &pitch, 16, 8));
	for (r = 0; r < 8; r++)
		for (c = 0; c < 40; c++)
			host[r][c] = (unsigned char)(r * 40 + c);
	ASSERT_RT(cudaSuccess, cudaMemcpy2D(d, pitch, host, 40, 16, 8,
					    cudaMemcpyHostToDevice));
	memset(back, 0xee, sizeof(back));
	ASSERT_RT(cudaSuccess, cudaMemcpy2D(back, 24, d, pitch, 16, 8,
					    cudaMemcpyDeviceToHost));
	for (r = 0; r < 8; r++)
		for (c = 0; c < 24; c++)
			ok &= back[r][c] == (c < 16 ? host[r][c] : 0xee);
	EXPECT_TRUE(ok);
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	memset(back, 0, sizeof(back));
	ASSERT_RT(cudaSuccess, cudaMemcpy2DAsync(back, 24, d, pitch, 16, 8,
						 cudaMemcpyDefault, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_EQ(0, memcmp(back[7], host[7], 16));
	EXPECT_RT(cudaErrorInvalidPitchValue,
		  cudaMemcpy2D(back, 8, d, pitch, 16, 8, cudaMemcpyDeviceToHost));
	EXPECT_RT(cudaErrorInvalidPitchValue,
		  cudaMemcpy2DAsync(d, pitch, host, 8, 16, 8,
				    cudaMemcpyHostToDevice, s));
	EXPECT_RT(cudaErrorInvalidMemcpyDirection,
		  cudaMemcpy2D(back, 24, d, pitch, 16, 8, (enum cudaMemcpyKind)7));
	EXPECT_RT(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

TEST(memsets)
{
	unsigned char back[4096];
	size_t pitch = 0, r;
	cudaStream_t s;
	void *d = NULL;
	int ok = 1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, sizeof(back)));
	ASSERT_RT(cudaSuccess, cudaMemset(d, 0x1ab, sizeof(back)));
	ASSERT_RT(cudaSuccess, cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost));
	EXPECT_EQ(0xab, back[0]);
	EXPECT_EQ(0xab, back[sizeof(back) - 1]);
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_RT(cudaSuccess, cudaMemsetAsync(d, 0x11, 100, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_RT(cudaSuccess, cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost));
	EXPECT_EQ(0x11, back[99]);
	EXPECT_EQ(0xab, back[100]);
	EXPECT_RT(cudaSuccess, cudaFree(d));
	EXPECT_RT(cudaErrorInvalidValue, cudaMemset(d, 0, 16));

	ASSERT_RT(cudaSuccess, cudaMallocPitch(&d, &pitch, 32, 4));
	ASSERT_RT(cudaSuccess, cudaMemset(d, 0, pitch * 4));
	ASSERT_RT(cudaSuccess, cudaMemset2D(d, pitch, 0x22, 20, 4));
	ASSERT_RT(cudaSuccess, cudaMemset2DAsync(d, pitch, 0x33, 4, 2, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_RT(cudaSuccess, cudaMemcpy(back, d, pitch * 4, cudaMemcpyDefault));
	for (r = 0; r < 4; r++) {
		ok &= back[r * pitch + 3] == (r < 2 ? 0x33 : 0x22);
		ok &= back[r * pitch + 19] == 0x22;
		ok &= back[r * pitch + 20] == 0;
	}
	EXPECT_TRUE(ok);
	EXPECT_RT(cudaErrorInvalidPitchValue, cudaMemset2D(d, 8, 0, 16, 4));
	EXPECT_RT(cudaErrorInvalidPitchValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(d));
}

TEST(memcpy_peer)
{
	unsigned char h[N], back[N];
	void *d0 = NULL, *d1 = NULL;
	cudaStream_t s;

	RT_NEED_GPUS(2);
	ASSERT_RT(cudaSuccess, cudaSetDevice(1));
	ASSERT_RT(cudaSuccess, cudaMalloc(&d1, N));
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaMalloc(&d0, N));
	fill(h, N, 9);
	ASSERT_RT(cudaSuccess, cudaMemcpy(d0, h, N, cudaMemcpyHostToDevice));
	ASSERT_RT(cudaSuccess, cudaMemcpyPeer(d1, 1, d0, 0, N));
	memset(back, 0, N);
	ASSERT_RT(cudaSuccess, cudaMemcpy(back, d1, N, cudaMemcpyDeviceToHost));
	EXPECT_TRUE(same(back, N, 9));
	ASSERT_RT(cudaSuccess, cudaMemset(d0, 0, N));
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_RT(cudaSuccess, cudaMemcpyPeerAsync(d0, 0, d1, 1, N, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_RT(cudaSuccess, cudaMemcpy(back, d0, N, cudaMemcpyDeviceToHost));
	EXPECT_TRUE(same(back, N, 9));
	EXPECT_RT(cudaErrorInvalidDevice, cudaMemcpyPeer(d1, 64, d0, 0, N));
	EXPECT_RT(cudaErrorInvalidDevice, cudaMemcpyPeerAsync(d1, 1, d0, -1, N, s));
	EXPECT_RT(cudaErrorInvalidDevice, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(d0));
	EXPECT_RT(cudaSuccess, cudaFree(d1));
}

TEST(pointer_attributes)
{
	struct cudaPointerAttributes a;
	void *d = NULL, *h = NULL;
	char stack[16];

	RT_NEED_GPUS(2);
	ASSERT_RT(cudaSuccess, cudaSetDevice(1));
	ASSERT_RT(cudaSuccess, cudaMalloc(&d, 4096));
	ASSERT_RT(cudaSuccess, cudaPointerGetAttributes(&a, (char *)d + 100));
	EXPECT_EQ(cudaMemoryTypeDevice, a.type);
	EXPECT_EQ(1, a.device);
	EXPECT_EQ((char *)d + 100, a.devicePointer);
	EXPECT_EQ(NULL, a.hostPointer);
	ASSERT_RT(cudaSuccess, cudaMallocHost(&h, 4096));
	ASSERT_RT(cudaSuccess, cudaPointerGetAttributes(&a, h));
	EXPECT_EQ(cudaMemoryTypeHost, a.type);
	EXPECT_EQ(h, a.hostPointer);
	EXPECT_EQ(h, a.devicePointer);
	ASSERT_RT(cudaSuccess, cudaPointerGetAttributes(&a, stack));
	EXPECT_EQ(cudaMemoryTypeUnregistered, a.type);
	EXPECT_EQ(cudaInvalidDeviceId, a.device);
	EXPECT_EQ(NULL, a.devicePointer);
	EXPECT_EQ((void *)stack, a.hostPointer);
	EXPECT_RT(cudaErrorInvalidValue, cudaPointerGetAttributes(NULL, d));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	cudaFree(d);
	cudaFreeHost(h);
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
}

TEST_HARNESS_MAIN
