// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pools and the stream-ordered allocator through libcufab:
 * cuMemPoolCreate's rules (and where NVIDIA's 13.0 driver departs from
 * its page), attributes and accounting, the 32 MiB chunks and maxSize,
 * the release threshold and cuMemPoolTrimTo, access, the current and
 * default pools, deferred destroy, pool memory in the memory calls,
 * sharing pools and pointers between two processes (POSIX fd and FABRIC),
 * kill -9 of either side, and the fail_pool fault knob.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cufab/cuda.h>

#include "cufab_uapi.h"
#include "ctl_helpers.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

#define CHUNK		(32ULL << 20)
#define FAIL_POOL	CUFAB_DEBUGFS "/fail_pool"

static CUmemPoolProps pool_props(CUmemLocationType type, int id,
				 unsigned int handle_types)
{
	CUmemPoolProps p;

	memset(&p, 0, sizeof(p));
	p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = type;
	p.location.id = id;
	p.handleTypes = (CUmemAllocationHandleType)handle_types;
	return p;
}

static cuuint64_t attr64(CUmemoryPool pool, CUmemPool_attribute a)
{
	cuuint64_t v = ~0ULL;

	if (cuMemPoolGetAttribute(pool, a, &v))
		return ~0ULL;
	return v;
}

static void fill(CUdeviceptr p, size_t len, unsigned char seed)
{
	memset((void *)(uintptr_t)p, seed, len);
}

static int check(CUdeviceptr p, size_t len, unsigned char seed)
{
	const unsigned char *b = (const void *)(uintptr_t)p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != seed)
			return -1;
	return 0;
}

CTX_FIXTURE();

/* ---- cuMemPoolCreate ---- */

TEST_F(ctx, create_destroy)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUmemoryPool pool;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolDestroy(pool));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolDestroy(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(NULL, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, NULL));
}

/* Each rule of the page, and the driver's behaviour where it differs. */
TEST_F(ctx, create_props_rules)
{
	CUmemPoolProps p;
	CUmemoryPool pool;

	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	p.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	/* managed pools: refused (differences.rst) */
	p.allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	/* a bad device is INVALID_VALUE here, unlike cuMemCreate */
	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 999, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, -1, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_INVALID, 0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_HOST_NUMA, 4096, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	/* HOST: the page says invalid; the 13.0 driver accepts it */
	p = pool_props(CU_MEM_LOCATION_TYPE_HOST, 0, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	/* ... but not exportable */
	p = pool_props(CU_MEM_LOCATION_TYPE_HOST, 0,
		       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_HANDLE_TYPE_WIN32);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	p.win32SecurityAttributes = &p;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	p.reserved[53] = 1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	p.usage = 0x4;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate(&pool, &p));
	p.usage = CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMemPoolCreate(&pool, &p));
}

/* ---- attributes and accounting ---- */

TEST_F(ctx, attributes_defaults_and_rules)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUmemoryPool pool;
	cuuint64_t v;
	int i;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	for (i = CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES;
	     i <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES; i++) {
		int on = -1, off = 0;

		EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAttribute(pool, i, &on));
		EXPECT_EQ(1, on);
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool, i, &off));
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAttribute(pool, i, &on));
		EXPECT_EQ(0, on);
	}
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD));
	v = 12345;
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_EQ(12345, attr64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD));
	for (i = CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT;
	     i <= CU_MEMPOOL_ATTR_USED_MEM_HIGH; i++)
		EXPECT_EQ(0, attr64(pool, i));
	/* currents are read-only, highs resettable to 0 only */
	v = 0;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &v));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v));
	v = 1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAttribute(pool, 0, &v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAttribute(pool, 99, &v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAttribute(NULL,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

TEST_F(ctx, used_and_reserved_accounting)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUdeviceptr a, b;
	CUmemoryPool pool;
	cuuint64_t zero = 0;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&b, 1 << 20, pool, NULL));
	EXPECT_EQ(4096 + (1 << 20), attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(b, NULL));
	EXPECT_EQ(4096, attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT));
	EXPECT_EQ(4096 + (1 << 20), attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
	EXPECT_EQ(4096, attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolTrimTo(pool, 0));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* maxSize is rounded up to 32 MiB chunks and caps the reservation. */
TEST_F(ctx, max_size_rounds_to_chunks)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUdeviceptr a, b;
	CUmemoryPool pool;

	p.maxSize = 1;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 16 << 20, pool, NULL));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&b, 20 << 20, pool, NULL));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&b, 64 << 20, pool, NULL));
	/* what is left of the chunk still serves */
	EXPECT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&b, 8 << 20, pool, NULL));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(b, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));

	/* the whole cap in one allocation, aligned, from an empty pool */
	p.maxSize = CHUNK;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, CHUNK, pool, NULL));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* maxSize 0: the device's memory. */
TEST_F(ctx, max_size_zero_is_device_memory)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	size_t total = 0;
	CUdeviceptr a;
	CUmemoryPool pool;

	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&total, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&a, total + 1, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, total / 2, pool, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* Past a synchronization, a pool keeps at most its release threshold. */
TEST_F(ctx, release_threshold_at_sync)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	cuuint64_t keep = CHUNK;
	CUdeviceptr a, b;
	CUmemoryPool pool;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 1 << 20, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&b, 40 << 20, pool, NULL));
	EXPECT_EQ(CHUNK + (64 << 20),
		  attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(b, NULL));
	/* freeing alone returns nothing */
	EXPECT_EQ(CHUNK + (64 << 20),
		  attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
	EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	keep = 0;
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
	EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

TEST_F(ctx, trim_keeps_live_chunks)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUdeviceptr a;
	CUmemoryPool pool;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolTrimTo(pool, 0));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolTrimTo(pool, CHUNK));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolTrimTo(pool, 0));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolTrimTo(NULL, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/*
 * Blocks freed out of address order, on two streams, become one free
 * range again: once synchronized, the whole chunk (kept by the release
 * threshold) serves one allocation at its base, and trimming returns it.
 */
TEST_F(ctx, frees_in_any_order_coalesce)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	static const int order[4] = { 1, 3, 0, 2 };
	cuuint64_t keep = CHUNK;
	CUdeviceptr blk[4], x;
	CUstream s[2];
	CUmemoryPool pool;
	int i;

	p.maxSize = CHUNK;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
	for (i = 0; i < 4; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&blk[i], CHUNK / 4,
								pool, s[0]));
		if (i)
			EXPECT_EQ(blk[i - 1] + CHUNK / 4, blk[i]);
	}
	for (i = 0; i < 4; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[order[i]],
						       s[order[i] & 1]));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, CHUNK, pool, s[1]));
	EXPECT_EQ(blk[0], x);
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	/* the same, with the frees ordered on one stream: merged at once */
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s[1]));
	for (i = 0; i < 4; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&blk[i], CHUNK / 4,
								pool, s[1]));
	for (i = 0; i < 4; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[order[i]], s[1]));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, CHUNK, pool, s[1]));
	EXPECT_EQ(blk[0], x);
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s[1]));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s[1]));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolTrimTo(pool, 0));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	for (i = 0; i < 2; i++)
		EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s[i]));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/*
 * Threads allocating and freeing on their own streams at once, sizes
 * mixed: the library's pool lock is contended (its futex path), and no
 * two live allocations overlap; the pool's accounting ends where it began.
 */
#define THREADS		4
#define THREAD_PAIRS	300

struct pool_thread {
	CUcontext ctx;
	unsigned char seed;
	int err;
};

static void *pool_thread_run(void *arg)
{
	struct pool_thread *t = arg;
	CUdeviceptr held[4] = { 0 };
	size_t size;
	int i, k;

	if (cuCtxSetCurrent(t->ctx)) {
		t->err = 1;
		return NULL;
	}
	for (i = 0; i < THREAD_PAIRS && !t->err; i++) {
		k = i % 4;
		size = (size_t)512 << (i % 7);
		if (held[k] && (check(held[k], 512, t->seed) ||
				cuMemFreeAsync(held[k], CU_STREAM_PER_THREAD)))
			t->err = 2;
		if (cuMemAllocAsync(&held[k], size, CU_STREAM_PER_THREAD))
			t->err = 3;
		else
			fill(held[k], size, t->seed);
	}
	for (k = 0; k < 4; k++)
		if (held[k] && (check(held[k], 512, t->seed) ||
				cuMemFreeAsync(held[k], CU_STREAM_PER_THREAD)))
			t->err = 4;
	if (cuStreamSynchronize(CU_STREAM_PER_THREAD))
		t->err = 5;
	return NULL;
}

TEST_F(ctx, threads_share_the_allocator)
{
	struct pool_thread t[THREADS];
	pthread_t th[THREADS];
	CUmemoryPool pool;
	cuuint64_t used;
	int i;

	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetMemPool(&pool, 0));
	used = attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
	for (i = 0; i < THREADS; i++) {
		t[i] = (struct pool_thread){ .ctx = self->ctx, .seed = 0x40 + i };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, pool_thread_run, &t[i]));
	}
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(th[i], NULL));
		EXPECT_EQ(0, t[i].err) TH_LOG("thread %d", i);
	}
	EXPECT_EQ(used, attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT));
}

/*
 * A CPU thread reading the first page of an allocation at @addr until
 * @stop, through faults once the page is gone.
 */
struct trim_reader {
	CUdeviceptr addr;
	volatile int stop;
	volatile int running;
};

static void *trim_reader_run(void *arg)
{
	struct trim_reader *r = arg;

	while (!r->stop)
		if (!cpu_faults((volatile unsigned char *)(uintptr_t)r->addr, 0))
			r->running = 1;
	return NULL;
}

/*
 * cuMemPoolTrimTo gives a chunk back while another thread keeps faulting
 * on it (a program bug, not the kernel's): a fault that found the chunk's
 * reservation before the trim dropped it must neither map a page after
 * the trim's zap nor look at its mappings while they are freed (KASAN).
 * Once the trim returns, the CPU faults there.
 */
TEST_F(ctx, trim_races_cpu_reader)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	struct trim_reader r = {};
	CUmemoryPool pool;
	int i, stale = 0;
	CUdeviceptr a;
	pthread_t th;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	for (i = 0; i < 20 && !stale; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool,
								NULL));
		ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
		r.addr = a;
		r.stop = 0;
		r.running = 0;
		ASSERT_EQ(0, pthread_create(&th, NULL, trim_reader_run, &r));
		while (!r.running)
			sched_yield();
		ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
		ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
		ASSERT_CU(CUDA_SUCCESS, cuMemPoolTrimTo(pool, 0));
		r.stop = 1;
		ASSERT_EQ(0, pthread_join(th, NULL));
		stale = !cpu_faults((volatile unsigned char *)(uintptr_t)a, 0);
	}
	EXPECT_EQ(0, stale) TH_LOG("iteration %d: a trimmed chunk still maps", i);
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* ---- allocation ---- */

TEST_F(ctx, alloc_free_arguments)
{
	CUdeviceptr a;

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAllocAsync(NULL, 16, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAllocAsync(&a, 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuMemAllocAsync(&a, 16, (CUstream)(uintptr_t)0x1234));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuMemFreeAsync(a, (CUstream)(uintptr_t)0x1234));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&a, 16, CU_STREAM_LEGACY));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, CU_STREAM_PER_THREAD));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFreeAsync(0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAllocFromPoolAsync(&a, 16, NULL, NULL));
	/* no current context: nothing says which device's pool */
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemAllocAsync(&a, 16, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(self->ctx));
}

/* Freed memory is reused at once by the same stream, no chunk added. */
TEST_F(ctx, reuse_on_the_same_stream)
{
	CUmemoryPool pool;
	CUdeviceptr a, b;

	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetMemPool(&pool, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&a, 1 << 20, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&b, 1 << 20, NULL));
	EXPECT_EQ(a, b);
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(b, CU_STREAM_LEGACY));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&b, 1 << 20, CU_STREAM_PER_THREAD));
	/* the legacy stream's free completed when it returned */
	EXPECT_EQ(a, b);
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(b, NULL));
}

/* ---- stream order ---- */

static int gate;

static void CUDA_CB wait_gate(void *arg)
{
	while (!__atomic_load_n(&gate, __ATOMIC_ACQUIRE))
		usleep(1000);
}

/* Set once the work queued before it on its stream has completed. */
static int done;

static void CUDA_CB mark_done(void *arg)
{
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/*
 * A pool of 32 MiB filled with 1 MiB blocks allocated on @s, every
 * reuse policy off; the test turns on the one it is about.
 */
static CUresult full_pool(CUmemoryPool *pool, CUdeviceptr *blk, CUstream s)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	int a, i, off = 0;
	CUresult r;

	p.maxSize = CHUNK;
	r = cuMemPoolCreate(pool, &p);
	for (a = CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES;
	     !r && a <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES; a++)
		r = cuMemPoolSetAttribute(*pool, (CUmemPool_attribute)a, &off);
	for (i = 0; !r && i < 32; i++)
		r = cuMemAllocFromPoolAsync(&blk[i], 1 << 20, *pool, s);
	return r;
}

/* Free what full_pool() allocated, on @s, and destroy the pool. */
static CUresult empty_pool(CUmemoryPool pool, CUdeviceptr *blk, CUstream s)
{
	CUresult r = CUDA_SUCCESS;
	int i;

	for (i = 0; i < 32; i++)
		r = r ?: cuMemFreeAsync(blk[i], s);
	r = r ?: cuStreamSynchronize(s);
	return r ?: cuMemPoolDestroy(pool);
}

/*
 * A full 32 MiB pool of 1 MiB blocks, one freed on stream s1 behind work
 * that has not run: s1 reuses it at once, s2 only once the work completed
 * (REUSE_ALLOW_OPPORTUNISTIC) or, with that policy off, once a
 * synchronization made it everyone's.
 */
TEST_F(ctx, reuse_across_streams_and_policies)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUdeviceptr blk[32], x;
	CUstream s1, s2;
	CUmemoryPool pool;
	int i, on = 1, off = 0;

	p.maxSize = CHUNK;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	/* only the policy under test */
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &off));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &off));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	for (i = 0; i < 32; i++)
		ASSERT_CU(CUDA_SUCCESS,
			  cuMemAllocFromPoolAsync(&blk[i], 1 << 20, pool, s1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));

	__atomic_store_n(&gate, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&done, 0, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, wait_gate, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[0], s1));
	/* the freeing stream reuses at once */
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s1));
	EXPECT_EQ(blk[0], x);
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s1));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, mark_done, NULL));
	/* another stream does not while s1's work before the free is pending */
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
	/* completed, as the completion page shows; nothing synchronized */
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &off));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	/* opportunistic reuse (on by default) takes it */
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &on));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	EXPECT_EQ(blk[0], x);
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s2));

	/* without the policy, a completed free of s2 is not s1's ... */
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &off));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s1));
	/* ... until a synchronization */
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s1));
	EXPECT_EQ(blk[0], x);
	blk[0] = x;

	for (i = 0; i < 32; i++)
		EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[i], s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/*
 * REUSE_FOLLOW_EVENT_DEPENDENCIES: a stream that waited for an event
 * recorded after a free on another stream takes the block at once, even
 * before the free has run; a record made before the last use of the block
 * is not enough, nor, with the policy off, any wait.
 */
TEST_F(ctx, reuse_follows_event_dependencies)
{
	CUdeviceptr blk[32], x;
	CUevent before, after;
	CUmemoryPool pool;
	CUstream s1, s2;
	int on = 1, off = 0;

	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&before, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&after, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, full_pool(&pool, blk, s1));

	__atomic_store_n(&gate, 0, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, wait_gate, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(before, s1));
	/* the last use of the block, which the free follows */
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(blk[0], 0, 16, s1));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[0], s1));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(after, s1));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &on));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(s2, before, 0));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitEvent(s2, after, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &off));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &on));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	EXPECT_EQ(blk[0], x);
	/* s1 waited for nothing of s2's */
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s2));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s1));

	__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&blk[0], 1 << 20, pool,
							s1));
	EXPECT_CU(CUDA_SUCCESS, empty_pool(pool, blk, s1));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(before));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(after));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
}

/*
 * REUSE_ALLOW_INTERNAL_DEPENDENCIES: with nothing else free, an allocation
 * on s2 takes a block freed on s1 before the free has run, and s2 then
 * waits for s1's work; with the policy off it does not.
 */
TEST_F(ctx, reuse_with_internal_dependencies)
{
	CUdeviceptr blk[32], x;
	CUmemoryPool pool;
	CUstream s1, s2;
	int on = 1;

	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, full_pool(&pool, blk, s1));

	__atomic_store_n(&gate, 0, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, wait_gate, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[0], s1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	EXPECT_CU(CUDA_SUCCESS, cuStreamQuery(s2));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &on));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	EXPECT_EQ(blk[0], x);
	/* the inserted dependency: s2 now waits for s1's gated work */
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s2));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(x, 0x5a, 1 << 20, s2));
	__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s2));
	EXPECT_EQ(0, check(x, 1 << 20, 0x5a));
	blk[0] = x;
	EXPECT_CU(CUDA_SUCCESS, empty_pool(pool, blk, s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
}

/* CUFAB_OP_STREAM_WAIT, the operation internal dependencies insert. */
TEST(stream_wait_op_rules)
{
	struct cufab_stream_create a = { .size = sizeof(a) };
	struct cufab_stream_submit op = {
		.size = sizeof(op), .op = CUFAB_OP_STREAM_WAIT,
	};
	struct cufab_stream_create b;
	int fd;

	fd = cufab_open();
	if (fd < 0)
		SKIP(return, CUFAB_DEVICE_PATH " absent (cufab.ko not loaded)");
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &a.ctx_id));
	b = a;
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &a));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &b));
	op.stream_id = b.out_stream_id;
	op.event_id = a.out_stream_id;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	EXPECT_EQ(1, op.out_seq);
	op.event_id = b.out_stream_id;
	EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	op.event_id = a.ctx_id;		/* not a stream */
	EXPECT_EQ(ENOENT, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	op.event_id = a.out_stream_id;
	op.length = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	close(fd);
}

/*
 * With every policy off, a free on one stream serves another once a
 * synchronization saw it complete: cuEventSynchronize of an event
 * recorded after it, cuStreamSynchronize or cuStreamQuery of its stream;
 * synchronizing some other stream is not enough.
 */
TEST_F(ctx, reuse_after_stream_and_event_synchronization)
{
	CUdeviceptr blk[32], x;
	CUmemoryPool pool;
	CUstream s1, s2;
	CUevent e;

	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, full_pool(&pool, blk, s1));

	/* cuEventSynchronize */
	__atomic_store_n(&gate, 0, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, wait_gate, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(blk[0], s1));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s2));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(e));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	EXPECT_EQ(blk[0], x);

	/* cuStreamSynchronize */
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s2));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s1));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s2));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s1));
	EXPECT_EQ(blk[0], x);

	/* cuStreamQuery returning CUDA_SUCCESS */
	__atomic_store_n(&gate, 0, __ATOMIC_RELEASE);
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s1, wait_gate, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s1));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&x, 1 << 20, pool, s2));
	__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
	while (cuStreamQuery(s1) == CUDA_ERROR_NOT_READY)
		usleep(1000);
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&blk[0], 1 << 20, pool,
							s2));
	EXPECT_EQ(x, blk[0]);

	EXPECT_CU(CUDA_SUCCESS, empty_pool(pool, blk, s1));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
}

/* The release threshold applies at cuStreamSynchronize and cuEventSynchronize. */
TEST_F(ctx, release_threshold_at_stream_and_event_sync)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	cuuint64_t keep = 0;
	CUmemoryPool pool;
	CUdeviceptr a;
	CUstream s;
	CUevent e;

	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 1 << 20, pool, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, s));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));

	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 1 << 20, pool, s));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s));
	EXPECT_EQ(CHUNK, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(e));
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
}

/*
 * The race-exposure knob makes a use-after-free-async visible: stream s2
 * still reads a block when s1 frees it without waiting for s2, s1's next
 * allocation gets the same block at once and writes it, and under some
 * seeds of the per-operation delays s2 reads the new value. With an event
 * from s2 before the free, s2 reads the old value under every seed.
 */
TEST_F(ctx, race_knob_exposes_use_after_free_async)
{
	unsigned int v, seed, exposed = 0, wrong = 0;
	CUdeviceptr x, z, y;
	CUstream s1, s2;
	int fixed;
	CUevent e;

	if (access(CUFAB_PARAMS "race_delay_us", F_OK))
		SKIP(return, "no race_delay_us parameter");
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&y, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	ASSERT_EQ(0, cufab_param_set_u("race_delay_us", 50000));
	for (seed = 1; seed <= 8; seed++) {
		ASSERT_EQ(0, cufab_param_set_u("race_seed", seed));
		for (fixed = 0; fixed < 2; fixed++) {
			ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(y, 0, 1));
			ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&x, 4096, s1));
			ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(x, 1, 1, s1));
			ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s1));
			ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(y, x, 4, s2));
			if (fixed) {
				ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s2));
				ASSERT_CU(CUDA_SUCCESS,
					  cuStreamWaitEvent(s1, e, 0));
			}
			ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(x, s1));
			ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&z, 4096, s1));
			EXPECT_EQ(x, z);
			ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(z, 2, 1, s1));
			ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
			ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&v, y, 4));
			if (fixed)
				wrong += v != 1;
			else
				exposed += v == 2;
			ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(z, s1));
		}
	}
	cufab_param_set_u("race_delay_us", 0);
	cufab_param_set_u("race_seed", 0);
	TH_LOG("use-after-free-async exposed under %u of 8 seeds", exposed);
	EXPECT_LT(0, exposed);
	EXPECT_EQ(0, wrong);
	EXPECT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s2));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(y));
}

/* cudaMallocAsync memory binds to a logical endpoint by address. */
TEST_F(ctx, endpoint_bind_addr_pool_memory)
{
	CUlogicalEndpointProp lp = {
		.type = CU_LOGICAL_ENDPOINT_TYPE_UNICAST,
		.unicast.device = 0, .size = 64ULL << 20,
	};
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	cuuint64_t align = 0, max = 0;
	CUlogicalEndpointId id;
	CUmemoryPool pool;
	CUdeviceptr a, small;
	int ready = 0, i;

	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointGetLimits(&align, &max, &lp));
	if (align > gran(0))
		SKIP(return, "bind alignment %llu above the pool's %zu",
		     (unsigned long long)align, gran(0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&small, 4096, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, gran(0), pool, NULL));
	EXPECT_EQ(0, a % align);
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &lp));
	for (i = 0; i < 5000 && !ready; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
		if (!ready)
			usleep(2000);
	}
	ASSERT_EQ(1, ready);
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointBindAddr(id, 0, 0,
			(void *)(uintptr_t)a, align, 0));
	/* a small block is not at the bind alignment */
	if (small % align)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointBindAddr(id,
				0, align, (void *)(uintptr_t)small, align, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 0, align));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(id));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(id, 1));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(small, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* Pool memory works wherever device memory does. */
TEST_F(ctx, pool_memory_in_memory_calls)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	unsigned char host[8192], back[8192];
	CUdeviceptr a, base = 0;
	CUmemoryPool pool, got = NULL;
	size_t size = 0;
	int managed = -1, type = 0;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, sizeof(host), pool,
							NULL));
	memset(host, 0x5a, sizeof(host));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyHtoD(a, host, sizeof(host)));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8(a + 100, 0x11, 10));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyDtoH(back, a, sizeof(back)));
	memset(host + 100, 0x11, 10);
	EXPECT_EQ(0, memcmp(host, back, sizeof(host)));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&got,
			CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a + 10));
	EXPECT_EQ(pool, got);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&managed,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, a));
	EXPECT_EQ(0, managed);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&type,
			CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, type);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&base,
			CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 10));
	EXPECT_EQ(a, base);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&size,
			CU_POINTER_ATTRIBUTE_RANGE_SIZE, a));
	EXPECT_EQ(sizeof(host), size);
	/* not cuMemAlloc memory, nor VMM memory */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(a));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(a, 2 << 20));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	/* freed: no longer an allocation */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&got,
			CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* cudaMallocAsync memory binds to a multicast object by address. */
TEST_F(ctx, multicast_bind_addr_pool_memory)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUmulticastObjectProp mp;
	CUmemGenericAllocationHandle mc;
	size_t g = gran(0);
	CUmemoryPool pool;
	CUdeviceptr a;
	int mcs = 0;

	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&mcs,
			CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0));
	if (!mcs)
		SKIP(return, "gpu 0 has no multicast");
	memset(&mp, 0, sizeof(mp));
	mp.numDevices = 1;
	mp.size = g;
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&mc, &mp));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(mc, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, g, pool, NULL));
	EXPECT_EQ(0, a % g);
	EXPECT_CU(CUDA_SUCCESS, cuMulticastBindAddr(mc, 0, a, g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(mc, 0, 0, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(mc));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* Destroying a pool with live allocations frees it with the last one. */
TEST_F(ctx, destroy_deferred_until_last_free)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	unsigned char byte = 0;
	CUmemoryPool pool;
	long long live;
	CUdeviceptr a;
	cuuint64_t v;

	/* the context's legacy stream comes with its first use: before */
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	live = live_objects();
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAttribute(pool,
			CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAllocFromPoolAsync(&a, 16, pool, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8(a, 7, 4096));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyDtoH(&byte, a + 4095, 1));
	EXPECT_EQ(7, byte);
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	if (live >= 0)
		EXPECT_EQ(live, live_objects_wait(live));
}

/* ---- access ---- */

TEST_F(ctx, access_device_pool)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUmemAccessDesc d = { .location = loc,
			      .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemAccess_flags f = 99;
	CUmemoryPool pool;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &loc));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, f);
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAccess(pool, &d, 1));
	/*
	 * The resident device keeps read-write access; the codes are driver
	 * 580's (Documentation/differences.rst).
	 */
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemPoolSetAccess(pool, &d, 1));
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMemPoolSetAccess(pool, &d, 1));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &loc));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, f);
	d.location.type = CU_MEM_LOCATION_TYPE_HOST;
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAccess(pool, &d, 1));
	d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d.location.id = 99;
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemPoolSetAccess(pool, &d, 1));
	d.location.id = 0;
	d.flags = 7;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAccess(pool, &d, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAccess(pool, NULL, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAccess(pool, &d, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAccess(NULL, pool, &loc));
	loc.type = CU_MEM_LOCATION_TYPE_HOST;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolGetAccess(&f, pool, &loc));
	if (num_devices() > 1) {
		unsigned long long af = 99;
		CUdeviceptr a;

		loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
		loc.id = 1;
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &loc));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, f);
		ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool,
								NULL));
		EXPECT_CU(CUDA_SUCCESS, cuMemGetAccess(&af, &loc, a));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, af);
		d.location = loc;
		/* driver 580: READ for a peer is NOT_SUPPORTED, nothing changes */
		d.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
		EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
			  cuMemPoolSetAccess(pool, &d, 1));
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &loc));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, f);
		d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAccess(pool, &d, 1));
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &loc));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, f);
		/* existing allocations follow */
		EXPECT_CU(CUDA_SUCCESS, cuMemGetAccess(&af, &loc, a));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, af);
		d.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
		EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
			  cuMemPoolSetAccess(pool, &d, 1));
		EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &loc));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, f);
		EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* A host pool is accessible from the host, and from devices once granted. */
TEST_F(ctx, access_host_pool)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_HOST, 0, 0);
	CUmemLocation host = { .type = CU_MEM_LOCATION_TYPE_HOST };
	CUmemLocation dev = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUmemAccessDesc d = { .location = dev,
			      .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemAccess_flags f = 99;
	CUmemoryPool pool;
	CUdeviceptr a;
	int type = 0;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &host));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, f);
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolGetAccess(&f, pool, &dev));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, f);
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&type,
			CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
	EXPECT_EQ(CU_MEMORYTYPE_HOST, type);
	/* the device may not write it yet */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(a, 1, 16));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolSetAccess(pool, &d, 1));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8(a, 1, 16));
	EXPECT_EQ(0, check(a, 16, 1));
	d.location = host;
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolSetAccess(pool, &d, 1));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* ---- current and default pools ---- */

TEST_F(ctx, default_and_current_pools)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUmemoryPool def, cur, pool, got;
	CUdeviceptr a;

	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetDefaultMemPool(&def, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetMemPool(&cur, 0));
	EXPECT_EQ(def, cur);
	EXPECT_CU(CUDA_SUCCESS, cuMemGetDefaultMemPool(&got, &loc,
			CU_MEM_ALLOCATION_TYPE_PINNED));
	EXPECT_EQ(def, got);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolDestroy(def));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_SUCCESS, cuDeviceSetMemPool(0, pool));
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetMemPool(&cur, 0));
	EXPECT_EQ(pool, cur);
	EXPECT_CU(CUDA_SUCCESS, cuMemGetMemPool(&got, &loc,
			CU_MEM_ALLOCATION_TYPE_PINNED));
	EXPECT_EQ(pool, got);
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&a, 64, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&got,
			CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a));
	EXPECT_EQ(pool, got);
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	/* destroying the current pool makes the default current again */
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetMemPool(&cur, 0));
	EXPECT_EQ(def, cur);
	EXPECT_CU(CUDA_SUCCESS, cuMemSetMemPool(&loc,
			CU_MEM_ALLOCATION_TYPE_PINNED, def));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetDefaultMemPool(&got, 99));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetMemPool(&got, 99));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceSetMemPool(99, def));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceSetMemPool(0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetMemPool(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetMemPool(&got, NULL,
			CU_MEM_ALLOCATION_TYPE_PINNED));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetMemPool(&got, &loc,
			CU_MEM_ALLOCATION_TYPE_INVALID));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetDefaultMemPool(&got, &loc,
			CU_MEM_ALLOCATION_TYPE_MANAGED));
	/* the host's default pool of the 13.0 location forms */
	loc.type = CU_MEM_LOCATION_TYPE_HOST;
	EXPECT_CU(CUDA_SUCCESS, cuMemGetDefaultMemPool(&got, &loc,
			CU_MEM_ALLOCATION_TYPE_PINNED));
	EXPECT_NE(def, got);
	/* a device pool is not the host's */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetMemPool(&loc,
			CU_MEM_ALLOCATION_TYPE_PINNED, def));
	if (num_devices() > 1)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceSetMemPool(1, def));
}

/* ---- sharing, within one process ---- */

TEST_F(ctx, export_rules)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CUmemPoolPtrExportData data;
	CUmemoryPool pool, imp;
	CUdeviceptr a, out;
	int fd = -1;

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	/* not created with a handle type */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolExportToShareableHandle(&fd,
			pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolExportPointer(&data, a));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));

	p.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolExportToShareableHandle(&fd,
			pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolExportToShareableHandle(NULL,
			pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolExportToShareableHandle(&fd,
			pool, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportToShareableHandle(&fd, pool,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	/* not a pool's fd */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	close(fd);
	/* imported pools cannot allocate nor be current */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAllocFromPoolAsync(&a, 16, imp, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceSetMemPool(0, imp));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolExportToShareableHandle(&fd,
			imp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	fill(a, 4096, 0x42);
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportPointer(&data, a));
	/* into the exporting pool itself: not an import */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolImportPointer(&out, pool, &data));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportPointer(&out, imp, &data));
	EXPECT_NE(a, out);
	EXPECT_EQ(0, check(out, 4096, 0x42));
	/* a forged record */
	data.reserved[20] ^= 1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPoolImportPointer(&a, imp, &data));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(out, NULL));
	/* driver 580: cuMemFree frees an imported pointer too */
	data.reserved[20] ^= 1;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportPointer(&out, imp, &data));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(out));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(out));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFreeAsync(out, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(imp));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* A refused FABRIC export leaves the pool destroyable (SUCCESS). */
TEST_F(ctx, fabric_refused_export_then_destroy)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0,
				      CU_MEM_HANDLE_TYPE_FABRIC);
	CUmemFabricHandle fh;
	CUmemoryPool pool;

	if (!access("/dev/cufab-imex-channels", F_OK))
		SKIP(return, "an IMEX channel node exists: the export would work");
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_CU(CUDA_ERROR_NOT_PERMITTED, cuMemPoolExportToShareableHandle(&fh,
			pool, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

/* ---- two processes ---- */

struct pool_msg {
	CUmemFabricHandle fabric;
	CUmemPoolPtrExportData data;
};

FIXTURE(two) {
	int sock[2];
	long long live_before;
};

FIXTURE_VARIANT(two) {
	CUmemAllocationHandleType type;
};

FIXTURE_VARIANT_ADD(two, posix_fd) {
	.type = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
};

FIXTURE_VARIANT_ADD(two, fabric) {
	.type = CU_MEM_HANDLE_TYPE_FABRIC,
};

FIXTURE_SETUP(two)
{
	char path[64];

	self->sock[0] = self->sock[1] = -1;
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "%s absent", CUFAB_DEV);
	self->live_before = live_objects();
	if (variant->type == CU_MEM_HANDLE_TYPE_FABRIC) {
		if (!imex_major())
			SKIP(return, "no %s region", IMEX_REGION);
		ASSERT_EQ(0, imex_node(0, path, sizeof(path)));
	}
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->sock));
}

FIXTURE_TEARDOWN(two)
{
	if (self->sock[0] >= 0)
		close(self->sock[0]);
	if (self->sock[1] >= 0)
		close(self->sock[1]);
	imex_cleanup();
	if (self->live_before >= 0)
		EXPECT_EQ(self->live_before,
			  live_objects_wait(self->live_before));
}

static int sig(int sock)
{
	char b = 'x';

	return write(sock, &b, 1) == 1 ? 0 : -1;
}

static int wait_sig(int sock)
{
	char b;

	return read(sock, &b, 1) == 1 ? 0 : -1;
}

/* A process with a primary context on device 0, or a nonzero step. */
static int child_init(void)
{
	CUcontext ctx;

	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) ||
	    cuCtxSetCurrent(ctx))
		return 1;
	return 0;
}

/*
 * The exporter: a pool of @type, 1 MiB of it filled with 0x11, the pool
 * and the pointer sent over @sock. *@a is the allocation.
 */
static int exporter_start(CUmemAllocationHandleType type, int sock,
			  CUmemoryPool *pool, CUdeviceptr *a)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0, type);
	struct pool_msg msg;
	int fd = -1;

	memset(&msg, 0, sizeof(msg));
	if (child_init())
		return 2;
	if (cuMemPoolCreate(pool, &p) ||
	    cuMemAllocFromPoolAsync(a, 1 << 20, *pool, NULL))
		return 3;
	fill(*a, 1 << 20, 0x11);
	if (type == CU_MEM_HANDLE_TYPE_FABRIC ?
	    cuMemPoolExportToShareableHandle(&msg.fabric, *pool, type, 0) :
	    cuMemPoolExportToShareableHandle(&fd, *pool, type, 0))
		return 4;
	if (cuMemPoolExportPointer(&msg.data, *a))
		return 5;
	if (sock_send(sock, &msg, sizeof(msg), fd))
		return 6;
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The importer's half: the pool and the pointer from @sock. */
static int importer_start(CUmemAllocationHandleType type, int sock,
			  CUmemoryPool *pool, CUdeviceptr *a)
{
	cuuint64_t threshold = 1 << 20;
	struct pool_msg msg;
	CUdeviceptr other;
	int fd = -1, off = 0;
	void *h;

	if (child_init())
		return 20;
	if (sock_recv(sock, &msg, sizeof(msg), &fd))
		return 21;
	h = type == CU_MEM_HANDLE_TYPE_FABRIC ? (void *)&msg.fabric :
	    (void *)(uintptr_t)fd;
	if (cuMemPoolImportFromShareableHandle(pool, h, type, 0))
		return 22;
	if (fd >= 0)
		close(fd);
	if (cuMemPoolImportPointer(a, *pool, &msg.data))
		return 23;
	if (check(*a, 1 << 20, 0x11))
		return 24;
	/* imported pools cannot allocate */
	if (cuMemAllocFromPoolAsync(&other, 16, *pool, NULL) !=
	    CUDA_ERROR_INVALID_VALUE)
		return 25;
	/* nor change the exporter's attributes; reading them is fine */
	if (cuMemPoolSetAttribute(*pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
				  &threshold) != CUDA_ERROR_NOT_PERMITTED ||
	    cuMemPoolSetAttribute(*pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
				  &off) != CUDA_ERROR_NOT_PERMITTED ||
	    cuMemPoolGetAttribute(*pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
				  &threshold) || threshold)
		return 39;
	return 0;
}

/*
 * Both see each other's writes; the importer's memory stays valid after
 * the exporter freed its pointer, and the exporter does not hand the
 * range out again while the importer maps it.
 */
TEST_F(two, share_pool_and_pointer)
{
	CUmemAllocationHandleType type = variant->type;
	int s0 = self->sock[0], s1 = self->sock[1];
	CUmemLocation other = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1 };
	pid_t exp, imp;

	exp = fork();
	ASSERT_LE(0, exp);
	if (!exp) {
		CUmemoryPool pool;
		CUdeviceptr a, b;

		int ret;

		close(s1);
		ret = exporter_start(type, s0, &pool, &a);
		if (ret)
			_exit(ret);
		if (wait_sig(s0) || check(a, 4096, 0x22))
			_exit(7);
		if (cuMemFreeAsync(a, NULL))
			_exit(8);
		/* the importer still maps the range: it is not reused */
		if (cuMemAllocFromPoolAsync(&b, 1 << 20, pool, NULL) || b == a)
			_exit(9);
		fill(b, 1 << 20, 0x33);
		if (sig(s0) || wait_sig(s0))
			_exit(10);
		cuMemFreeAsync(b, NULL);
		_exit(cuMemPoolDestroy(pool) ? 11 : 0);
	}
	imp = fork();
	ASSERT_LE(0, imp);
	if (!imp) {
		CUmemAccess_flags f = 9;
		CUmemoryPool pool;
		CUdeviceptr a;
		int ret;

		close(s0);
		ret = importer_start(type, s1, &pool, &a);
		if (ret)
			_exit(ret);
		if (num_devices() > 1 &&
		    (cuMemPoolGetAccess(&f, pool, &other) ||
		     f != CU_MEM_ACCESS_FLAGS_PROT_NONE))
			_exit(26);
		fill(a, 4096, 0x22);
		if (sig(s1) || wait_sig(s1))
			_exit(27);
		/* the exporter freed and reallocated: ours is intact */
		if (check(a + 4096, (1 << 20) - 4096, 0x11))
			_exit(28);
		if (cuMemFreeAsync(a, NULL) || cuMemPoolDestroy(pool))
			_exit(29);
		_exit(sig(s1) ? 30 : 0);
	}
	EXPECT_EQ(0, wait_child(imp));
	EXPECT_EQ(0, wait_child(exp));
}

/* kill -9 of the exporter: the importer's memory lives on. */
TEST_F(two, exporter_killed)
{
	CUmemAllocationHandleType type = variant->type;
	int s0 = self->sock[0], s1 = self->sock[1];
	pid_t exp, imp;

	exp = fork();
	ASSERT_LE(0, exp);
	if (!exp) {
		CUmemoryPool pool;
		CUdeviceptr a;

		close(s1);
		if (exporter_start(type, s0, &pool, &a))
			_exit(1);
		pause();
		_exit(0);
	}
	imp = fork();
	ASSERT_LE(0, imp);
	if (!imp) {
		CUmemoryPool pool;
		CUdeviceptr a;
		int ret;

		close(s0);
		ret = importer_start(type, s1, &pool, &a);
		if (ret)
			_exit(ret);
		if (sig(s1) || wait_sig(s1))
			_exit(31);
		if (check(a, 1 << 20, 0x11))
			_exit(32);
		fill(a, 1 << 20, 0x44);
		if (check(a, 1 << 20, 0x44))
			_exit(33);
		if (cuMemFreeAsync(a, NULL) || cuMemPoolDestroy(pool))
			_exit(34);
		_exit(0);
	}
	ASSERT_EQ(0, wait_sig(s0));
	kill(exp, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(exp));
	ASSERT_EQ(0, sig(s0));
	EXPECT_EQ(0, wait_child(imp));
}

/* kill -9 of the importer: the exporter frees and reuses as usual. */
TEST_F(two, importer_killed)
{
	CUmemAllocationHandleType type = variant->type;
	int s0 = self->sock[0], s1 = self->sock[1];
	int ready[2];
	pid_t exp, imp;

	/* the importer tells the test, not the exporter, that it mapped */
	ASSERT_EQ(0, pipe(ready));

	exp = fork();
	ASSERT_LE(0, exp);
	if (!exp) {
		CUmemoryPool pool;
		CUdeviceptr a, b;

		close(s1);
		if (exporter_start(type, s0, &pool, &a))
			_exit(1);
		if (wait_sig(s0))
			_exit(2);
		if (cuMemFreeAsync(a, NULL))
			_exit(3);
		/* nothing holds the range any more: reused */
		if (cuMemAllocFromPoolAsync(&b, 1 << 20, pool, NULL) || b != a)
			_exit(4);
		cuMemFreeAsync(b, NULL);
		_exit(cuMemPoolDestroy(pool) ? 5 : 0);
	}
	imp = fork();
	ASSERT_LE(0, imp);
	if (!imp) {
		CUmemoryPool pool;
		CUdeviceptr a;
		int ret;

		close(s0);
		ret = importer_start(type, s1, &pool, &a);
		if (ret)
			_exit(ret);
		if (sig(ready[1]))
			_exit(40);
		pause();
		_exit(0);
	}
	ASSERT_EQ(0, wait_sig(ready[0]));
	close(ready[0]);
	close(ready[1]);
	kill(imp, SIGKILL);
	/* reaped: the importer's client and mappings are gone */
	EXPECT_EQ(0x100 | SIGKILL, wait_child(imp));
	ASSERT_EQ(0, sig(s1));
	EXPECT_EQ(0, wait_child(exp));
}

/* ---- cufabctl pool show (CUFAB_NL_CMD_POOL_GET) ---- */

TEST_F(ctx, cufabctl_pool_show)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0,
				      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemPoolPtrExportData data;
	static char out[65536];
	char args[64], want[64];
	cuuint64_t keep = 1 << 20;
	CUmemoryPool pool;
	CUdeviceptr a;
	int off = 0;

	if (!tool_path("cufabctl", args, sizeof(args)))
		SKIP(return, "no cufabctl next to this test");
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportPointer(&data, a));

	snprintf(args, sizeof(args), "-j pool show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "\"pid\":%d,", getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"location\":\"gpu\",\"location_id\":0"));
	EXPECT_NE(NULL, strstr(out, "\"handle_types\":[\"posix-fd\"]"));
	EXPECT_NE(NULL, strstr(out, "\"max_size\":1073741824"));
	EXPECT_NE(NULL, strstr(out, "\"reserved\":33554432"));
	EXPECT_NE(NULL, strstr(out, "\"exported_ptrs\":1"));
	EXPECT_NE(NULL, strstr(out, "\"default\":false"));
	EXPECT_NE(NULL, strstr(out, "\"reuse\":[\"event-deps\",\"opportunistic\",\"internal-deps\"]"))
		TH_LOG("%s", out);
	/* the attributes as set: a policy turned off, a threshold */
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &off));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"reuse\":[\"event-deps\",\"internal-deps\"]"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"release_threshold\":1048576"));

	snprintf(args, sizeof(args), "pool show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "pid %d (", getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "gpu0 handles posix-fd"));
	EXPECT_NE(NULL, strstr(out, "reserved 32 MiB"));
	EXPECT_NE(NULL, strstr(out, " reuse event-deps,internal-deps "))
		TH_LOG("%s", out);

	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	snprintf(args, sizeof(args), "-j pool show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_STREQ("[]\n", out);
}

/* ---- fault injection ---- */

/* Each pool path fails once with OUT_OF_MEMORY and leaves nothing behind. */
/* The line of debugfs "pools" naming this process and @want; 0 if found. */
static int debugfs_pool_line(const char *want)
{
	char line[512], pid[32];
	FILE *f = fopen(CUFAB_DEBUGFS "/pools", "r");
	int found = 0;

	if (!f)
		return -1;
	snprintf(pid, sizeof(pid), " pid=%d ", getpid());
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, pid) && strstr(line, want);
	fclose(f);
	return found ? 0 : -1;
}

/*
 * debugfs "pools" shows a pool's reserved bytes and reuse policies, and
 * the live-object counter counts the pool, its chunk and its records
 * until they go.
 */
TEST_F(ctx, debugfs_pools_and_live_objects)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0,
				      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemPoolPtrExportData data;
	CUmemoryPool pool;
	long long before;
	CUdeviceptr a;
	int off = 0;

	/* the legacy stream, made on first use, is not the pool's */
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	before = live_objects();
	if (before < 0 || access(CUFAB_DEBUGFS "/pools", R_OK))
		SKIP(return, "no debugfs");
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));
	EXPECT_LT(before, live_objects());
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportPointer(&data, a));
	EXPECT_EQ(0, debugfs_pool_line("reserved=33554432 "));
	EXPECT_EQ(0, debugfs_pool_line(" reuse=0xe importers=0 ptrs=1"));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolSetAttribute(pool,
			CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &off));
	EXPECT_EQ(0, debugfs_pool_line(" reuse=0xa "));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	EXPECT_NE(0, debugfs_pool_line(" reuse=0xa "));
	EXPECT_EQ(before, live_objects_wait(before));
}

TEST_F(ctx, fail_pool_every_path)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0,
				      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemPoolPtrExportData data;
	CUmemoryPool pool, imp;
	CUdeviceptr a, out;
	long long live;
	int fd;

	if (access(FAIL_POOL, F_OK))
		SKIP(return, "no %s (kernel without fault injection)", FAIL_POOL);
	/* the context's legacy stream comes with its first use: before */
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));

	live = live_objects();
	ASSERT_EQ(0, fault_arm("fail_pool", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemPoolCreate(&pool, &p));
	EXPECT_EQ(live, live_objects());
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &p));

	live = live_objects();
	ASSERT_EQ(0, fault_arm("fail_pool", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
	EXPECT_EQ(live, live_objects());
	EXPECT_EQ(0, attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));

	ASSERT_EQ(0, fault_arm("fail_pool", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemPoolExportToShareableHandle(&fd,
			pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportToShareableHandle(&fd, pool,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));

	live = live_objects();
	ASSERT_EQ(0, fault_arm("fail_pool", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_EQ(live, live_objects());
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	close(fd);

	live = live_objects();
	ASSERT_EQ(0, fault_arm("fail_pool", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemPoolExportPointer(&data, a));
	EXPECT_EQ(live, live_objects());
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportPointer(&data, a));

	live = live_objects();
	ASSERT_EQ(0, fault_arm("fail_pool", 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemPoolImportPointer(&out, imp, &data));
	EXPECT_EQ(live, live_objects());
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportPointer(&out, imp, &data));

	fault_restore();
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(out, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(imp));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
}

TEST_HARNESS_MAIN
