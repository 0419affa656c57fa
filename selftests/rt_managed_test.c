// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime managed memory: cudaMallocManaged, cudaStreamAttachMemAsync,
 * cudaMemPrefetchAsync and cudaMemAdvise in their CUDA 13 forms (a
 * cudaMemLocation), cudaMemRangeGetAttribute(s) and the pointer's
 * attributes.
 */
#include "rt_helpers.h"
#include "kselftest_harness.h"

#define PG	4096

static struct cudaMemLocation where(enum cudaMemLocationType type, int id)
{
	struct cudaMemLocation l = { .type = type, .id = id };

	return l;
}

TEST(malloc_managed)
{
	struct cudaPointerAttributes a;
	unsigned char *p = NULL;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaMallocManaged((void **)&p, 2 * PG,
						 cudaMemAttachGlobal));
	memset(p, 7, 2 * PG);	/* the CPU uses it at the returned address */
	ASSERT_RT(cudaSuccess, cudaPointerGetAttributes(&a, p + 10));
	EXPECT_EQ(cudaMemoryTypeManaged, a.type);
	EXPECT_EQ(p + 10, a.devicePointer);
	EXPECT_EQ(p + 10, a.hostPointer);
	EXPECT_RT(cudaSuccess, cudaFree(p));
	ASSERT_RT(cudaSuccess, cudaMallocManaged((void **)&p, PG, cudaMemAttachHost));
	EXPECT_RT(cudaSuccess, cudaFree(p));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocManaged((void **)&p, 0,
							   cudaMemAttachGlobal));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocManaged((void **)&p, PG,
							   cudaMemAttachSingle));
	EXPECT_RT(cudaErrorInvalidValue, cudaMallocManaged(NULL, PG,
							   cudaMemAttachGlobal));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
}

TEST(stream_attach)
{
	unsigned char *p = NULL;
	void *dev = NULL;
	cudaStream_t s;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMallocManaged((void **)&p, 2 * PG,
						 cudaMemAttachGlobal));
	ASSERT_RT(cudaSuccess, cudaMalloc(&dev, PG));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaStreamAttachMemAsync(s, p, 0, cudaMemAttachSingle));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	p[0] = 1;	/* attached to an idle stream: the CPU may touch it */
	ASSERT_RT(cudaSuccess, cudaStreamAttachMemAsync(s, p, 2 * PG,
							cudaMemAttachHost));
	ASSERT_RT(cudaSuccess, cudaStreamAttachMemAsync(cudaStreamLegacy, p, 0,
							cudaMemAttachGlobal));
	ASSERT_RT(cudaSuccess, cudaStreamAttachMemAsync(cudaStreamPerThread, p, 0,
							cudaMemAttachSingle));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(cudaStreamPerThread));
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamAttachMemAsync(s, p, 0, 0x3));
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamAttachMemAsync(s, p + PG, 0,
							cudaMemAttachGlobal));
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamAttachMemAsync(s, p, PG,
							cudaMemAttachGlobal));
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamAttachMemAsync(s, dev, 0,
							cudaMemAttachGlobal));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaErrorInvalidResourceHandle,
		  cudaStreamAttachMemAsync(s, p, 0, cudaMemAttachGlobal));
	cudaGetLastError();
	EXPECT_RT(cudaSuccess, cudaFree(p));
	EXPECT_RT(cudaSuccess, cudaFree(dev));
}

TEST(advise_prefetch_range_attributes)
{
	struct cudaMemLocation gpu0 = where(cudaMemLocationTypeDevice, 0);
	struct cudaMemLocation host = where(cudaMemLocationTypeHost, 0);
	enum cudaMemRangeAttribute attrs[2] = {
		cudaMemRangeAttributeReadMostly,
		cudaMemRangeAttributePreferredLocationType,
	};
	int ro = 0, ltype = -1, id = -5, last = -7;
	void *data[2] = { &ro, &ltype };
	size_t sizes[2] = { sizeof(ro), sizeof(ltype) };
	unsigned char *p = NULL;
	cudaStream_t s;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaMallocManaged((void **)&p, 4 * PG,
						 cudaMemAttachGlobal));
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_RT(cudaSuccess, cudaMemAdvise(p, 4 * PG, cudaMemAdviseSetReadMostly,
					     gpu0));
	ASSERT_RT(cudaSuccess, cudaMemAdvise(p, 4 * PG,
					     cudaMemAdviseSetPreferredLocation, gpu0));
	ASSERT_RT(cudaSuccess, cudaMemRangeGetAttributes(data, sizes, attrs, 2, p,
							 4 * PG));
	EXPECT_EQ(1, ro);
	EXPECT_EQ(cudaMemLocationTypeDevice, ltype);
	ASSERT_RT(cudaSuccess, cudaMemRangeGetAttribute(&id, sizeof(id),
			cudaMemRangeAttributePreferredLocationId, p, 4 * PG));
	EXPECT_EQ(0, id);
	ASSERT_RT(cudaSuccess, cudaMemPrefetchAsync(p, 4 * PG, gpu0, 0, s));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	ASSERT_RT(cudaSuccess, cudaMemRangeGetAttribute(&last, sizeof(last),
			cudaMemRangeAttributeLastPrefetchLocation, p, 4 * PG));
	EXPECT_EQ(0, last);
	ASSERT_RT(cudaSuccess, cudaMemPrefetchAsync(p, 4 * PG, host, 0, 0));
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(0));
	ASSERT_RT(cudaSuccess, cudaMemRangeGetAttribute(&last, sizeof(last),
			cudaMemRangeAttributeLastPrefetchLocationType, p, 4 * PG));
	EXPECT_EQ(cudaMemLocationTypeHost, last);
	ASSERT_RT(cudaSuccess, cudaMemAdvise(p, 4 * PG,
					     cudaMemAdviseUnsetReadMostly, gpu0));
	ASSERT_RT(cudaSuccess, cudaMemRangeGetAttribute(&ro, sizeof(ro),
			cudaMemRangeAttributeReadMostly, p, 4 * PG));
	EXPECT_EQ(0, ro);
	EXPECT_RT(cudaErrorInvalidValue, cudaMemAdvise(p, 4 * PG,
					(enum cudaMemoryAdvise)99, gpu0));
	EXPECT_RT(cudaErrorInvalidDevice, cudaMemPrefetchAsync(p, 4 * PG,
					where(cudaMemLocationTypeDevice, 99), 0, s));
	EXPECT_RT(cudaErrorInvalidValue, cudaMemRangeGetAttribute(&ro, 1,
			cudaMemRangeAttributeReadMostly, p, 4 * PG));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaSuccess, cudaFree(p));
}

TEST_HARNESS_MAIN
