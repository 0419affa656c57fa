// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's stream-ordered allocator, as a program written against
 * NVIDIA's cuda_runtime_api.h uses it: the seed page cudaMemPoolCreate and
 * the cudaMemPool* family around it, cudaMallocAsync, cudaMallocFromPoolAsync
 * and cudaFreeAsync on the legacy, per-thread and created streams.
 */
#include "rt_helpers.h"
#include "kselftest_harness.h"

static struct cudaMemPoolProps props(enum cudaMemLocationType type, int id,
				     enum cudaMemAllocationHandleType handles)
{
	struct cudaMemPoolProps p;

	memset(&p, 0, sizeof(p));
	p.allocType = cudaMemAllocationTypePinned;
	p.location.type = type;
	p.location.id = id;
	p.handleTypes = handles;
	return p;
}

TEST(implicit_init_and_devices)
{
	int n = 0, dev = -1;

	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaFree(0));
	ASSERT_EQ(cudaSuccess, cudaGetDevice(&dev));
	EXPECT_EQ(0, dev);
	ASSERT_EQ(cudaSuccess, cudaGetDeviceCount(&n));
	ASSERT_LE(1, n);
	EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(n));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetDeviceCount(NULL));
	EXPECT_EQ(cudaSuccess, cudaSetDevice(n - 1));
	EXPECT_EQ(cudaSuccess, cudaGetDevice(&dev));
	EXPECT_EQ(n - 1, dev);
	EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
}

/* Errors are not sticky: GetLastError resets, PeekAtLastError keeps. */
TEST(last_error_slot)
{
	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaFree(0));
	EXPECT_EQ(cudaSuccess, cudaGetLastError());
	EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(-1));
	EXPECT_EQ(cudaSuccess, cudaFree(0));	/* a success keeps the slot */
	EXPECT_EQ(cudaErrorInvalidDevice, cudaPeekAtLastError());
	EXPECT_EQ(cudaErrorInvalidDevice, cudaPeekAtLastError());
	EXPECT_EQ(cudaErrorInvalidDevice, cudaGetLastError());
	EXPECT_EQ(cudaSuccess, cudaGetLastError());
	EXPECT_EQ(cudaSuccess, cudaPeekAtLastError());
	EXPECT_STREQ("cudaErrorInvalidValue", cudaGetErrorName(cudaErrorInvalidValue));
	EXPECT_STREQ("cudaSuccess", cudaGetErrorName(cudaSuccess));
	EXPECT_STREQ("cudaErrorMemoryAllocation",
		     cudaGetErrorName(cudaErrorMemoryAllocation));
	EXPECT_NE(NULL, cudaGetErrorString(cudaErrorInvalidValue));
}

TEST(malloc_free)
{
	void *p = NULL;

	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 4096));
	ASSERT_NE(NULL, p);
	memset(p, 1, 4096);	/* cufab's device memory has a CPU view */
	EXPECT_EQ(cudaSuccess, cudaFree(p));
	EXPECT_EQ(cudaErrorInvalidValue, cudaFree(p));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_EQ(cudaErrorInvalidValue, cudaMalloc(NULL, 16));
}

/* Streams: create, order pool memory on them, synchronize, destroy. */
TEST(streams)
{
	cudaStream_t s = NULL, nb = NULL;
	void *a = NULL, *b = NULL;

	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_NE(NULL, s);
	ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&nb,
			cudaStreamNonBlocking));
	EXPECT_EQ(cudaErrorInvalidValue, cudaStreamCreateWithFlags(&nb, 0x80));
	EXPECT_EQ(cudaErrorInvalidValue, cudaStreamCreate(NULL));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	ASSERT_EQ(cudaSuccess, cudaMallocAsync(&a, 4096, s));
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(a, s));
	/* the freeing stream reuses the block at once */
	ASSERT_EQ(cudaSuccess, cudaMallocAsync(&b, 4096, s));
	EXPECT_EQ(a, b);
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(b, s));
	EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_EQ(cudaSuccess, cudaStreamQuery(s));
	EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(nb));
	EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(0));
	EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(cudaStreamPerThread));
	EXPECT_EQ(cudaSuccess, cudaStreamDestroy(nb));
	EXPECT_EQ(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaStreamSynchronize(s));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaStreamDestroy(s));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaStreamQuery(s));
	EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaGetLastError());
	EXPECT_EQ(cudaSuccess, cudaGetLastError());
}

/* The seed's call and the allocator around it. */
TEST(mem_pool_create_and_allocate)
{
	struct cudaMemPoolProps p = props(cudaMemLocationTypeDevice, 0,
					  cudaMemHandleTypeNone);
	cudaMemPool_t pool, cur;
	unsigned long long used = 1;
	void *a = NULL;

	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaMemPoolCreate(&pool, &p));
	ASSERT_EQ(cudaSuccess, cudaMallocFromPoolAsync(&a, 1 << 20, pool, 0));
	memset(a, 2, 1 << 20);
	EXPECT_EQ(cudaSuccess, cudaMemPoolGetAttribute(pool,
			cudaMemPoolAttrUsedMemCurrent, &used));
	EXPECT_EQ(1 << 20, used);
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(a, 0));
	EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
	EXPECT_EQ(cudaSuccess, cudaMemPoolTrimTo(pool, 0));
	EXPECT_EQ(cudaSuccess, cudaDeviceSetMemPool(0, pool));
	EXPECT_EQ(cudaSuccess, cudaDeviceGetMemPool(&cur, 0));
	EXPECT_EQ(pool, cur);
	ASSERT_EQ(cudaSuccess, cudaMallocAsync(&a, 64, 0));
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(a, 0));
	EXPECT_EQ(cudaSuccess, cudaMemPoolDestroy(pool));
	EXPECT_EQ(cudaSuccess, cudaDeviceGetDefaultMemPool(&pool, 0));
	EXPECT_EQ(cudaSuccess, cudaDeviceGetMemPool(&cur, 0));
	EXPECT_EQ(pool, cur);
	EXPECT_EQ(cudaErrorInvalidDevice, cudaDeviceGetMemPool(&cur, 999));

	/* the page's rules */
	p = props(cudaMemLocationTypeHostNumaCurrent, 0, cudaMemHandleTypeNone);
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemPoolCreate(&pool, &p));
	p = props(cudaMemLocationTypeDevice, 999, cudaMemHandleTypeNone);
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemPoolCreate(&pool, &p));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	/* NVIDIA's 13.0 runtime accepts a HOST pool, as cufab does */
	p = props(cudaMemLocationTypeHost, 0, cudaMemHandleTypeNone);
	ASSERT_EQ(cudaSuccess, cudaMemPoolCreate(&pool, &p));
	EXPECT_EQ(cudaSuccess, cudaMemPoolDestroy(pool));
}

/* Attributes, and the 13.0 location forms of the current/default pool. */
TEST(mem_pool_attributes_and_location_forms)
{
	struct cudaMemPoolProps p = props(cudaMemLocationTypeDevice, 0,
					  cudaMemHandleTypeNone);
	struct cudaMemLocation loc = { .type = cudaMemLocationTypeDevice };
	cudaMemPool_t pool, def, cur;
	unsigned long long v = 1 << 20, high = 1;
	int off = 0, got = 1;
	void *a;

	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaMemPoolCreate(&pool, &p));
	EXPECT_EQ(cudaSuccess, cudaMemPoolSetAttribute(pool,
			cudaMemPoolAttrReleaseThreshold, &v));
	v = 0;
	EXPECT_EQ(cudaSuccess, cudaMemPoolGetAttribute(pool,
			cudaMemPoolAttrReleaseThreshold, &v));
	EXPECT_EQ(1 << 20, v);
	EXPECT_EQ(cudaSuccess, cudaMemPoolSetAttribute(pool,
			cudaMemPoolReuseAllowOpportunistic, &off));
	EXPECT_EQ(cudaSuccess, cudaMemPoolGetAttribute(pool,
			cudaMemPoolReuseAllowOpportunistic, &got));
	EXPECT_EQ(0, got);
	ASSERT_EQ(cudaSuccess, cudaMallocFromPoolAsync(&a, 4096, pool, 0));
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(a, 0));
	EXPECT_EQ(cudaSuccess, cudaMemPoolGetAttribute(pool,
			cudaMemPoolAttrUsedMemHigh, &high));
	EXPECT_EQ(4096, high);
	/* a high-water mark resets to 0 only */
	v = 1;
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemPoolSetAttribute(pool,
			cudaMemPoolAttrUsedMemHigh, &v));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	v = 0;
	EXPECT_EQ(cudaSuccess, cudaMemPoolSetAttribute(pool,
			cudaMemPoolAttrUsedMemHigh, &v));
	EXPECT_EQ(cudaSuccess, cudaMemPoolGetAttribute(pool,
			cudaMemPoolAttrUsedMemHigh, &high));
	EXPECT_EQ(0, high);

	ASSERT_EQ(cudaSuccess, cudaMemGetDefaultMemPool(&def, &loc,
			cudaMemAllocationTypePinned));
	EXPECT_EQ(cudaSuccess, cudaMemSetMemPool(&loc,
			cudaMemAllocationTypePinned, pool));
	EXPECT_EQ(cudaSuccess, cudaMemGetMemPool(&cur, &loc,
			cudaMemAllocationTypePinned));
	EXPECT_EQ(pool, cur);
	EXPECT_EQ(cudaSuccess, cudaDeviceGetMemPool(&cur, 0));
	EXPECT_EQ(pool, cur);
	EXPECT_EQ(cudaSuccess, cudaMemSetMemPool(&loc,
			cudaMemAllocationTypePinned, def));
	EXPECT_EQ(cudaSuccess, cudaMemGetMemPool(&cur, &loc,
			cudaMemAllocationTypePinned));
	EXPECT_EQ(def, cur);
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemGetMemPool(&cur, &loc,
			cudaMemAllocationTypeInvalid));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	loc.id = 999;
	EXPECT_EQ(cudaErrorInvalidValue, cudaMemGetDefaultMemPool(&cur, &loc,
			cudaMemAllocationTypePinned));
	EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_EQ(cudaSuccess, cudaMemPoolDestroy(pool));
}

TEST(mem_pool_access_and_sharing)
{
	struct cudaMemPoolProps p = props(cudaMemLocationTypeDevice, 0,
					  cudaMemHandleTypePosixFileDescriptor);
	struct cudaMemLocation loc = { .type = cudaMemLocationTypeDevice };
	struct cudaMemAccessDesc d = { .location = loc,
				       .flags = cudaMemAccessFlagsProtReadWrite };
	struct cudaMemPoolPtrExportData data;
	enum cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
	cudaMemPool_t pool, imp;
	void *a, *b;
	int fd = -1;

	RT_SKIP();
	ASSERT_EQ(cudaSuccess, cudaMemPoolCreate(&pool, &p));
	EXPECT_EQ(cudaSuccess, cudaMemPoolSetAccess(pool, &d, 1));
	EXPECT_EQ(cudaSuccess, cudaMemPoolGetAccess(&f, pool, &loc));
	EXPECT_EQ(cudaMemAccessFlagsProtReadWrite, f);
	ASSERT_EQ(cudaSuccess, cudaMemPoolExportToShareableHandle(&fd, pool,
			cudaMemHandleTypePosixFileDescriptor, 0));
	ASSERT_EQ(cudaSuccess, cudaMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0));
	close(fd);
	ASSERT_EQ(cudaSuccess, cudaMallocFromPoolAsync(&a, 4096, pool, 0));
	memset(a, 0x3c, 4096);
	ASSERT_EQ(cudaSuccess, cudaMemPoolExportPointer(&data, a));
	ASSERT_EQ(cudaSuccess, cudaMemPoolImportPointer(&b, imp, &data));
	EXPECT_EQ(0x3c, ((unsigned char *)b)[4095]);
	EXPECT_EQ(cudaErrorInvalidValue, cudaMallocFromPoolAsync(&a, 16, imp, 0));
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(b, 0));
	EXPECT_EQ(cudaSuccess, cudaFreeAsync(a, 0));
	EXPECT_EQ(cudaSuccess, cudaMemPoolDestroy(imp));
	EXPECT_EQ(cudaSuccess, cudaMemPoolDestroy(pool));
}

TEST_HARNESS_MAIN
