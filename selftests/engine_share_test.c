// SPDX-License-Identifier: GPL-2.0
/*
 * The engine is shared: each GPU has a few workers for the streams of
 * every process. A stream must never hold one for long: copies and sets
 * run a piece at a time, taking turns with other streams, and a user page
 * that cannot be faulted in without sleeping (userfaultfd here; a FUSE or
 * NFS file alike) gives the worker back instead of sleeping in it.
 *
 * These are liveness checks, not timings: each case makes more stalled or
 * long streams than a GPU has workers and checks that another stream's
 * work still completes while they are unfinished.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"
#include "mem_helpers.h"
#include "stream_helpers.h"

/* More than the workers of one GPU's engine (CUFAB_COPY_ENGINES, 3). */
#define HOGS		4
#define WAIT_S		60	/* a hang, not a speed, fails the case */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Poll @s until it is done: its result, or NOT_READY after WAIT_S. */
static CUresult wait_stream(CUstream s)
{
	double end = now_s() + WAIT_S;
	CUresult r;

	while ((r = cuStreamQuery(s)) == CUDA_ERROR_NOT_READY && now_s() < end)
		usleep(2000);
	return r;
}

/* One short set on a new stream of GPU 0, then its result. */
static CUresult other_stream_runs(CUdeviceptr d)
{
	CUstream s;
	CUresult r;

	if (cuStreamCreate(&s, CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_UNKNOWN;
	r = cuMemsetD8Async(d, 0x5a, 4096, s);
	if (!r)
		r = wait_stream(s);
	cuStreamDestroy(s);
	return r;
}

TEST(userfault_stall_gives_the_worker_back)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	const size_t len = 64 * 1024;
	CUdeviceptr dst[HOGS], probe;
	unsigned char *src, back[16];
	CUstream s[HOGS];
	CUcontext ctx;
	int uffd, i;

	CTX_OR_SKIP(ctx);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(goto out, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, src);
	reg.range.start = (uintptr_t)src;
	reg.range.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	/* nobody serves the faults: each copy stalls on its first page */
	for (i = 0; i < HOGS; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dst[i], len));
		ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemcpyHtoDAsync(dst[i], src, len, s[i]));
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&probe, 4096));
	EXPECT_CU(CUDA_SUCCESS, other_stream_runs(probe));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(back, probe, sizeof(back)));
	EXPECT_EQ(0x5a, back[0]);
	for (i = 0; i < HOGS; i++)
		EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s[i]));
	/* the fault can be served now: an empty page, and the copies end */
	close(uffd);
	for (i = 0; i < HOGS; i++) {
		EXPECT_CU(CUDA_SUCCESS, wait_stream(s[i]));
		ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(back, dst[i], sizeof(back)));
		EXPECT_EQ(0, back[0]);
		cuStreamDestroy(s[i]);
	}
	munmap(src, len);
out:
	cuCtxDestroy(ctx);
}

/*
 * @n bytes of VA where one 2 MiB allocation is mapped again and again: a
 * copy as long as the VA costs no memory.
 */
static CUdeviceptr repeated_mapping(size_t n)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location.type = CU_MEM_LOCATION_TYPE_DEVICE,
	};
	CUmemAccessDesc acc = {
		.location.type = CU_MEM_LOCATION_TYPE_DEVICE,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	size_t g = gran(0), off;
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;

	if (cuMemCreate(&h, g, &prop, 0) ||
	    cuMemAddressReserve(&va, n, 0, 0, 0))
		return 0;
	for (off = 0; off < n; off += g)
		if (cuMemMap(va + off, g, 0, h, 0))
			return 0;
	cuMemRelease(h);
	return cuMemSetAccess(va, n, &acc, 1) ? 0 : va;
}

TEST(long_copies_take_turns)
{
	const size_t len = 1024ULL << 20;	/* per copy, seconds of TCG */
	CUdeviceptr src, dst[HOGS], probe;
	CUstream s[HOGS];
	CUcontext ctx;
	int i;

	CTX_OR_SKIP(ctx);
	src = repeated_mapping(len);
	ASSERT_NE(0, src);
	for (i = 0; i < HOGS; i++) {
		dst[i] = repeated_mapping(len);
		ASSERT_NE(0, dst[i]);
		ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemcpyDtoDAsync(dst[i], src, len, s[i]));
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&probe, 4096));
	EXPECT_CU(CUDA_SUCCESS, other_stream_runs(probe));
	/* one piece (2 MiB) at a time: the long copies are far from done */
	for (i = 0; i < HOGS; i++)
		EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s[i]));
	/*
	 * No cuCtxDestroy, which would wait for them: the process's exit
	 * cancels them, waiting for one piece of each at most.
	 */
}

TEST_HARNESS_MAIN
