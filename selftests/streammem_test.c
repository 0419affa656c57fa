// SPDX-License-Identifier: GPL-2.0
/*
 * Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64
 * and cuStreamBatchMemOp through libcufab (their _v2 and _ptsz symbols),
 * and CUFAB_IOCTL_STREAM_MEMOP below it.
 *
 * Order through the engine, every condition, every documented error and
 * the asynchronous one of an access the GPU may not make; a
 * wait parks its stream and not the engine (more parked streams than the
 * GPU has engines while another stream runs); a write of another stream,
 * a CPU store of the process and a CPU store of another process through
 * shared memory each satisfy a wait; a process killed with a parked wait,
 * a stream destroyed with one, and a submission racing the destroy of its
 * stream leave the live-object count where it was.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "cufab_uapi.h"
#include "kselftest_harness.h"
#include "race_helpers.h"
#include "mem_helpers.h"
#include "stream_helpers.h"

#define GARBAGE_STREAM	((CUstream)0xdeadbeef0000ULL)
/* long enough for the engine to have run anything it was going to */
#define SETTLE_US	30000

CUresult cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr,
				     cuuint32_t value, unsigned int flags);
CUresult cuStreamWriteValue32_v2_ptsz(CUstream stream, CUdeviceptr addr,
				      cuuint32_t value, unsigned int flags);

static volatile uint32_t *u32p(CUdeviceptr p)
{
	return (volatile uint32_t *)(uintptr_t)p;
}

static volatile uint64_t *u64p(CUdeviceptr p)
{
	return (volatile uint64_t *)(uintptr_t)p;
}

/* Is stream @s still held (by a parked wait) after the engine settled? */
static int still_waiting(CUstream s)
{
	usleep(SETTLE_US);
	return cuStreamQuery(s) == CUDA_ERROR_NOT_READY;
}

TEST(not_initialized)
{
	CUstreamBatchMemOpParams p = {};

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamWaitValue32(NULL, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamWaitValue64(NULL, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamWriteValue32(NULL, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamWriteValue64(NULL, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuStreamBatchMemOp(NULL, 1, &p, 0));
}

FIXTURE(mo) {
	CUcontext ctx;
	CUstream s;
	CUdeviceptr d;		/* cuMemAlloc, 4096 bytes, zeroed */
};

FIXTURE_SETUP(mo)
{
	self->ctx = NULL;
	INIT_OR_SKIP();
	self->ctx = ctx_on(0);
	ASSERT_NE(NULL, self->ctx);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&self->s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&self->d, 4096));
	memset((void *)(uintptr_t)self->d, 0, 4096);
}

FIXTURE_TEARDOWN(mo)
{
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

TEST_F(mo, errors)
{
	CUstreamBatchMemOpParams p[2] = {};
	CUdeviceptr d = self->d;
	static uint32_t pageable[4];

	SETUP_SKIPPED();
	/* the stream */
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamWaitValue32(GARBAGE_STREAM, d, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamWriteValue64(GARBAGE_STREAM, d, 0, 0));
	/* flags */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamWaitValue32(self->s, d, 0, 4));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamWaitValue64(self->s, d, 0, 0x80000000u));
	/* driver 580 refuses the documented flag */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamWriteValue32(self->s, d, 1,
				       CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamWriteValue64(self->s, d, 1, 2));
	/* CAN_FLUSH_REMOTE_WRITES reads 0 */
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
		  cuStreamWaitValue32(self->s, d, 0, CU_STREAM_WAIT_VALUE_FLUSH));
	/* addresses: NULL, misaligned, pageable memory without the feature */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamWriteValue32(self->s, 0, 1, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamWriteValue32(self->s, d + 2, 1, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamWaitValue64(self->s, d + 4, 1, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamWriteValue32(self->s, (uintptr_t)pageable, 1, 0));
	/* batches */
	p[0].operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	p[0].writeValue.address = d;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamBatchMemOp(self->s, 0, p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamBatchMemOp(self->s, 256, p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamBatchMemOp(self->s, 1, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamBatchMemOp(self->s, 1, p, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamBatchMemOp(GARBAGE_STREAM, 1, p, 0));
	p[1].operation = 7;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamBatchMemOp(self->s, 2, p, 0));
	p[1].operation = CU_STREAM_MEM_OP_BARRIER;
	p[1].memoryBarrier.flags = 2;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuStreamBatchMemOp(self->s, 2, p, 0));
	p[1].operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
	p[1].flushRemoteWrites.flags = 0;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuStreamBatchMemOp(self->s, 2, p, 0));
	p[1].operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
	p[1].waitValue.address = d;
	p[1].waitValue.flags = CU_STREAM_WAIT_VALUE_FLUSH;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuStreamBatchMemOp(self->s, 2, p, 0));
	/* nothing refused reached the stream */
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(self->s));
	EXPECT_EQ(0, *u32p(d));
	/* no context current: the legacy stream has none */
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuStreamWriteValue32(NULL, d, 1, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxSetCurrent(self->ctx));
}

/* Writes and waits run in stream order, with copies and sets between. */
TEST_F(mo, order)
{
	CUdeviceptr d = self->d;
	uint64_t big = 0x123456789abcdef0ULL;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32Async(d, 0xffffffff, 16, self->s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32(self->s, d, 5, 0));
	ASSERT_CU(CUDA_SUCCESS,
		  cuStreamWaitValue32(self->s, d, 5, CU_STREAM_WAIT_VALUE_EQ));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue64(self->s, d + 8, big, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoDAsync(d + 16, d + 8, 8, self->s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue64(self->s, d + 16, big,
						    CU_STREAM_WAIT_VALUE_EQ));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32_v2_ptsz(self->s, d + 24,
							     9, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(self->s));
	EXPECT_EQ(5, *u32p(d));
	EXPECT_EQ(0xffffffff, *u32p(d + 4));
	EXPECT_EQ(big, *u64p(d + 8));
	EXPECT_EQ(big, *u64p(d + 16));
	EXPECT_EQ(9, *u32p(d + 24));
}

/* Each condition, met and not met, in both widths. */
TEST_F(mo, conditions)
{
	static const struct {
		uint64_t v, operand;
		unsigned int flags;
		int met32, met64;
	} c[] = {
		{ 5, 5, CU_STREAM_WAIT_VALUE_GEQ, 1, 1 },
		{ 4, 5, CU_STREAM_WAIT_VALUE_GEQ, 0, 0 },
		/* cyclic: 5 is "after" 0xfffffff0 in 32 bits */
		{ 5, 0xfffffff0, CU_STREAM_WAIT_VALUE_GEQ, 1, 0 },
		{ 7, 7, CU_STREAM_WAIT_VALUE_EQ, 1, 1 },
		{ 7, 8, CU_STREAM_WAIT_VALUE_EQ, 0, 0 },
		{ 6, 2, CU_STREAM_WAIT_VALUE_AND, 1, 1 },
		{ 6, 1, CU_STREAM_WAIT_VALUE_AND, 0, 0 },
		{ 6, 1, CU_STREAM_WAIT_VALUE_NOR, 1, 1 },
		{ 0xffffffff, 0, CU_STREAM_WAIT_VALUE_NOR, 0, 1 },
	};
	unsigned int i, wide;
	CUstream s;
	int met;

	SETUP_SKIPPED();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (wide = 0; wide < 2; wide++) {
			ASSERT_CU(CUDA_SUCCESS,
				  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
			*u64p(self->d) = c[i].v;
			ASSERT_CU(CUDA_SUCCESS, wide ?
				  cuStreamWaitValue64(s, self->d, c[i].operand,
						      c[i].flags) :
				  cuStreamWaitValue32(s, self->d, c[i].operand,
						      c[i].flags));
			met = wide ? c[i].met64 : c[i].met32;
			EXPECT_EQ(!met, still_waiting(s))
				TH_LOG("case %u, %u bits", i, wide ? 64 : 32);
			/* an unmet wait is let go by the value it waits for */
			if (!met)
				*u64p(self->d) = c[i].flags ==
						 CU_STREAM_WAIT_VALUE_NOR ? 0 :
						 c[i].operand;
			EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
			EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
		}
	}
}

/*
 * More parked streams than the GPU has engines: another stream still
 * runs, and one write of another stream lets every wait go.
 */
TEST_F(mo, parks_the_stream_not_the_engine)
{
	CUstream w[6], other;
	int engines = 0, i;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&engines,
			CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 0));
	ASSERT_GT(6, engines);
	for (i = 0; i < 6; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&w[i],
						       CU_STREAM_NON_BLOCKING));
		ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(w[i], self->d, 1, 0));
		ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(self->d + 64 + i, 1, 1,
							w[i]));
	}
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(self->d + 128, 2, 1, other));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(other));
	EXPECT_EQ(2, *(volatile uint8_t *)(uintptr_t)(self->d + 128));
	for (i = 0; i < 6; i++) {
		EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(w[i]));
		EXPECT_EQ(0, *(volatile uint8_t *)(uintptr_t)(self->d + 64 + i));
	}
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32(other, self->d, 1, 0));
	for (i = 0; i < 6; i++) {
		EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(w[i]));
		EXPECT_EQ(1, *(volatile uint8_t *)(uintptr_t)(self->d + 64 + i));
	}
}

static void *store_later(void *p)
{
	usleep(SETTLE_US);
	*(volatile uint32_t *)p = 3;
	return NULL;
}

/* A CPU store of the process itself, from another thread. */
TEST_F(mo, cpu_store_satisfies)
{
	pthread_t t;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(self->s, self->d, 3,
						    CU_STREAM_WAIT_VALUE_EQ));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32(self->s, self->d + 4, 1, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, store_later,
				    (void *)(uintptr_t)self->d));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(self->s));
	EXPECT_EQ(1, *u32p(self->d + 4));
	pthread_join(t, NULL);
}

/*
 * A parked wait makes the CPU's next store to its page fault, and the
 * fault wakes it: stores to that page which do not satisfy it land and
 * leave it parked (watching again), the one that does completes it.
 */
TEST_F(mo, cpu_store_to_watched_page)
{
	SETUP_SKIPPED();
	*u32p(self->d) = 0;
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(self->s, self->d, 3,
						    CU_STREAM_WAIT_VALUE_EQ));
	ASSERT_TRUE(still_waiting(self->s));
	/* the same page, another word: the store lands, the wait stays */
	*u32p(self->d + 8) = 3;
	ASSERT_TRUE(still_waiting(self->s));
	EXPECT_EQ(3, *u32p(self->d + 8));
	/* the word, a value that does not satisfy it */
	*u32p(self->d) = 2;
	ASSERT_TRUE(still_waiting(self->s));
	EXPECT_EQ(2, *u32p(self->d));
	*u32p(self->d) = 3;
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(self->s));
	EXPECT_EQ(3, *u32p(self->d));
}

/* A batch: a barrier takes no place, the rest runs in order. */
TEST_F(mo, batch)
{
	CUstreamBatchMemOpParams p[5] = {};
	CUdeviceptr d = self->d;

	SETUP_SKIPPED();
	p[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	p[0].writeValue.address = d;
	p[0].writeValue.value = 11;
	p[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
	p[1].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
	p[2].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
	p[2].waitValue.address = d;
	p[2].waitValue.value = 11;
	p[2].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
	p[3].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
	p[3].waitValue.address = d + 8;
	p[3].waitValue.value64 = 1ULL << 40;
	p[4].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
	p[4].writeValue.address = d + 16;
	p[4].writeValue.value64 = 1ULL << 50;
	ASSERT_CU(CUDA_SUCCESS, cuStreamBatchMemOp(self->s, 5, p, 0));
	EXPECT_TRUE(still_waiting(self->s));
	EXPECT_EQ(11, *u32p(d));
	EXPECT_EQ(0, *u64p(d + 16));
	*u64p(d + 8) = 1ULL << 40;
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(self->s));
	EXPECT_EQ(1ULL << 50, *u64p(d + 16));
	/* a batch of barriers only: nothing to run, the stream is checked */
	EXPECT_CU(CUDA_SUCCESS, cuStreamBatchMemOp(self->s, 1, &p[1], 0));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamBatchMemOp(GARBAGE_STREAM, 1, &p[1], 0));
}

/* Managed memory and cuMemAllocHost memory are reachable too. */
TEST_F(mo, managed_and_host_memory)
{
	CUdeviceptr m;
	void *h;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&h, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32(self->s, m, 21, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(self->s, (uintptr_t)h, 22,
						    CU_STREAM_WAIT_VALUE_EQ));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue64(self->s, m + 8, 23, 0));
	EXPECT_TRUE(still_waiting(self->s));
	*(volatile uint32_t *)h = 22;
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(self->s));
	EXPECT_EQ(21, *u32p(m));
	EXPECT_EQ(23, *u64p(m + 8));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(h));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(m));
}

/*
 * The GPU checks access when the entry runs: VMM memory only GPU 0 may
 * access, written or waited on by a stream of GPU 1, fails that stream
 * (ILLEGAL_ADDRESS at the synchronization), as the GPU faults.
 */
TEST(access_checked_when_run)
{
	struct vbuf b;
	CUcontext c0, c1;
	CUstream s;

	INIT_OR_SKIP();
	if (num_devices() < 2)
		SKIP(return, "one GPU");
	c0 = ctx_on(0);
	ASSERT_NE(NULL, c0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, gran(0), 0));
	c1 = ctx_on(1);
	ASSERT_NE(NULL, c1);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32(s, b.va, 1, 0));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuStreamSynchronize(s));
	EXPECT_EQ(0, *u32p(b.va));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(s, b.va, 0, 0));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(c1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxSetCurrent(c0));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(c0));
}

/*
 * cuStreamDestroy with a wait parked returns at once and leaves the wait
 * parked, as a GPU would; once the value comes, cuCtxDestroy (which waits
 * for the context's work) ends it all without a leak.
 */
TEST(destroy_with_parked_wait)
{
	long long before = live_objects();
	CUcontext ctx;
	CUdeviceptr d;
	CUstream s, t;

	INIT_OR_SKIP();
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	memset((void *)(uintptr_t)d, 0, 4096);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&t, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(s, d, 1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue64(t, d + 8, 1, 0));
	EXPECT_TRUE(still_waiting(s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_TRUE(still_waiting(t));
	*u32p(d) = 1;
	*u64p(d + 8) = 1;
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/*
 * Two processes: the child imports the parent's memory and stores the
 * value the parent's stream waits for, with its CPU.
 */
TEST(other_process_store_satisfies)
{
	CUmemGenericAllocationHandle h;
	struct vbuf b;
	CUcontext ctx;
	CUstream s;
	int sv[2], fd = -1;
	size_t len;
	char c = 'g';
	pid_t pid;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CUdeviceptr va;

		close(sv[0]);
		CHILD_CHECK(cuInit(0) == CUDA_SUCCESS && ctx_on(0));
		CHILD_CHECK(!sock_recv(sv[1], &len, sizeof(len), &fd) && fd >= 0);
		CHILD_CHECK(cuMemImportFromShareableHandle(&h,
				(void *)(uintptr_t)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0);
		CHILD_CHECK(cuMemAddressReserve(&va, len, 0, 0, 0) == 0);
		CHILD_CHECK(cuMemMap(va, len, 0, h, 0) == 0);
		CHILD_CHECK(grant(va, len, 0) == 0);
		/* the parent's wait is parked: store what it waits for */
		CHILD_CHECK(read(sv[1], &c, 1) == 1);
		*u32p(va) = 0xcafe;
		_exit(0);
	}
	close(sv[1]);
	INIT_OR_SKIP();
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	len = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, len,
					  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	memset((void *)(uintptr_t)b.va, 0, 64);
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, b.h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(0, sock_send(sv[0], &len, sizeof(len), fd));
	close(fd);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWaitValue32(s, b.va, 0xcafe,
						    CU_STREAM_WAIT_VALUE_EQ));
	ASSERT_CU(CUDA_SUCCESS, cuStreamWriteValue32(s, b.va + 4, 1, 0));
	EXPECT_TRUE(still_waiting(s));
	ASSERT_EQ(1, write(sv[0], &c, 1));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(1, *u32p(b.va + 4));
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* A process killed with waits parked: its streams go, nothing leaks. */
/* The child of kill_with_parked_wait: waits parked on two streams. */
static int park_waits(void)
{
	CUdeviceptr d;
	CUstream s[2];

	if (cuInit(0) || !ctx_on(0) || cuMemAlloc(&d, 4096))
		return -1;
	memset((void *)(uintptr_t)d, 0, 4096);
	cuStreamCreate(&s[0], CU_STREAM_NON_BLOCKING);
	cuStreamCreate(&s[1], 0);
	cuStreamWaitValue32(s[0], d, 1, 0);
	cuStreamWaitValue64(s[1], d + 8, 1, 0);
	cuStreamWriteValue32(s[1], d + 16, 1, 0);
	usleep(SETTLE_US);
	return 0;
}

TEST(kill_with_parked_wait)
{
	long long before = live_objects();

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	EXPECT_EQ(0x100 | SIGKILL, kill_when_ready(park_waits));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* ---- below the library: CUFAB_IOCTL_STREAM_MEMOP ---- */

FIXTURE(raw) {
	int fd;
	__u32 ctx;
	__u32 stream;
	__u64 page;
};

FIXTURE_SETUP(raw)
{
	struct cufab_stream_create sc = { .size = sizeof(sc) };
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };

	OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &self->ctx));
	sc.ctx_id = a.ctx_id = self->ctx;
	sc.flags = CUFAB_STREAM_NON_BLOCKING;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_CREATE, &sc));
	self->stream = sc.out_stream_id;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	self->page = a.out_addr;
}

FIXTURE_TEARDOWN(raw)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int memop(int fd, __u32 stream, struct cufab_memop *ops, __u32 n)
{
	struct cufab_stream_memop cmd = {
		.size = sizeof(cmd), .stream_id = stream, .count = n,
		.ops_ptr = (uintptr_t)ops,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_STREAM_MEMOP, &cmd);
}

static int stream_sync(int fd, __u32 stream, int *err)
{
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_STREAM, .id = stream,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w);

	*err = w.out_error;
	return ret;
}

TEST_F(raw, errnos)
{
	struct cufab_memop m = {
		.op = CUFAB_MEMOP_WRITE32, .addr = self->page, .value = 1,
	};
	struct cufab_stream_memop cmd = {
		.size = sizeof(cmd), .stream_id = self->stream, .count = 1,
		.ops_ptr = (uintptr_t)&m,
	};
	struct cufab_memop big[CUFAB_MEMOP_MAX_BATCH + 1];
	int err;

	SETUP_SKIPPED();
	EXPECT_EQ(0, memop(self->fd, self->stream, &m, 1));
	EXPECT_EQ(ENOENT, memop(self->fd, 0xffff, &m, 1));
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 0));
	memset(big, 0, sizeof(big));
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, big,
				CUFAB_MEMOP_MAX_BATCH + 1));
	EXPECT_EQ(EFAULT, memop(self->fd, self->stream, NULL, 1));
	cmd.flags = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_MEMOP, &cmd));
	m.op = CUFAB_MEMOP_MAX;
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 1));
	m.op = CUFAB_MEMOP_WRITE32;
	m.flags = 1;
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 1));
	m.op = CUFAB_MEMOP_WAIT32;
	m.flags = CUFAB_MEMOP_COND_MAX;
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 1));
	m.flags = CUFAB_MEMOP_GEQ;
	m.value = 1ULL << 32;
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 1));
	m.op = CUFAB_MEMOP_WAIT64;
	m.value = 0;
	m.addr = self->page + 4;
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 1));
	m.addr = -8ULL;
	EXPECT_EQ(EINVAL, memop(self->fd, self->stream, &m, 1));
	EXPECT_EQ(0, stream_sync(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);
}

/* The reply cannot be written: EFAULT, the batch ran all the same. */
TEST_F(raw, reply_fault)
{
	struct cufab_memop m = {
		.op = CUFAB_MEMOP_WRITE32, .addr = self->page, .value = 1,
	};
	struct cufab_stream_memop *cmd;
	long long before;
	int err;

	SETUP_SKIPPED();
	cmd = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cmd);
	cmd->size = sizeof(*cmd);
	cmd->stream_id = self->stream;
	cmd->count = 1;
	cmd->ops_ptr = (uintptr_t)&m;
	ASSERT_EQ(0, mprotect(cmd, 4096, PROT_READ));
	before = live_objects();
	EXPECT_EQ(EFAULT, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_MEMOP, cmd));
	EXPECT_EQ(0, stream_sync(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
	munmap(cmd, 4096);
}

static void *submit_loop(void *p)
{
	struct racer *r = p;
	struct cufab_memop m[2] = {
		{ .op = CUFAB_MEMOP_WRITE32, .addr = r->page, .value = 1 },
		{ .op = CUFAB_MEMOP_WAIT32, .addr = r->page + 4, .value = 1 },
	};
	int ret;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		ret = memop(r->fd, r->stream, m, 2);
		if (ret && ret != ENOENT && !r->other)
			r->other = ret;
		if (ret == ENOENT)
			break;
	}
	return NULL;
}

/*
 * Submissions racing the destroy of their stream, each leaving a wait
 * parked (in a child: its exit ends the client, cancelling them all).
 */
TEST(raw_race_with_destroy)
{
	long long before = live_objects();

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	EXPECT_EQ(0, stream_destroy_race(CUFAB_STREAM_NON_BLOCKING, submit_loop));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

TEST_HARNESS_MAIN
