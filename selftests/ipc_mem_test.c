// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA IPC memory (lib/ipc_mem.c, kernel/share_ipc.c): cuIpcGetMemHandle,
 * cuIpcOpenMemHandle and cuIpcCloseMemHandle between two processes, each
 * documented code, the driver's rules (cuMemAlloc memory only, not in the
 * exporting process, handles of freed memory, per-context reference
 * counts), the exporter freeing or dying under an importer, a reply
 * fault, a race of export and import against cuMemFree, and fail-nth.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cufab.h>
#include <cufab/cuda.h>

#include "cufab_test.h"
#include "cufab_uapi.h"
#include "ipc_helpers.h"
#include "kselftest_harness.h"
#include "stream_helpers.h"

#define LEN	(3 * 4096 + 100)

/* Every byte of @len at @p is @v. */
static int filled(CUdeviceptr p, size_t len, unsigned char v)
{
	unsigned char *buf = malloc(len);
	size_t i;
	int ok;

	if (!buf)
		return 0;
	ok = cuMemcpyDtoH(buf, p, len) == CUDA_SUCCESS;
	for (i = 0; ok && i < len; i++)
		ok = buf[i] == v;
	free(buf);
	return ok;
}

TEST(not_initialized)
{
	CUipcMemHandle h = { 0 };
	CUdeviceptr p;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuIpcGetMemHandle(&h, 4096));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuIpcCloseMemHandle(4096));
}

/* Only cuMemAlloc memory has a handle; any address inside names it all. */
TEST(get_errors)
{
	CUmemPoolProps pp = { .allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
			      .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
	CUipcMemHandle h, h2;
	CUdeviceptr d, m, pd;
	CUcontext ctx, popped;
	CUmemoryPool pool;
	void *host;

	_Static_assert(sizeof(CUipcMemHandle) == 64, "CUipcMemHandle");
	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetMemHandle(NULL, d));
	EXPECT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, d));
	EXPECT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h2, d + 4097));
	EXPECT_EQ(0, memcmp(&h, &h2, sizeof(h)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetMemHandle(&h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuIpcGetMemHandle(&h, (uintptr_t)&h));

	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&host, 4096));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuIpcGetMemHandle(&h, (uintptr_t)host));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(host));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&m, 4096,
						  CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetMemHandle(&h, m));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(m));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &pp));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&pd, 4096, pool, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetMemHandle(&h, pd));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(pd, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));

	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuIpcGetMemHandle(&h, d));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(ctx));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	/* freed: no allocation there any more */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcGetMemHandle(&h, d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* What the exporting process may not do, and the checks of arguments. */
TEST(open_errors)
{
	CUipcMemHandle h, bad;
	CUcontext ctx, popped;
	CUdeviceptr d, p;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, d));
	/* the driver's rule: not in the process that made it */
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuIpcOpenMemHandle(NULL, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcOpenMemHandle(&p, h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcOpenMemHandle(&p, h, 2));
	memset(&bad, 0, sizeof(bad));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuIpcOpenMemHandle(&p, bad, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	bad = h;
	bad.reserved[sizeof(bad.reserved) - 1] ^= 1;
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuIpcOpenMemHandle(&p, bad, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	/* an event handle is not a memory handle */
	memcpy(bad.reserved, "CFEV", 4);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuIpcOpenMemHandle(&p, bad, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcCloseMemHandle(d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuIpcCloseMemHandle(0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuIpcCloseMemHandle(d));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(ctx));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * The importer: opens the handle twice (one mapping, two references),
 * checks the exporter's bytes, writes its own, refuses cuMemFree, closes
 * twice. Exit status: 0, or the number of the step that failed.
 */
static int importer(int rd, int wr)
{
	CUdeviceptr p, p2, base;
	CUcontext ctx, owner;
	unsigned int type;
	CUipcMemHandle h;
	size_t size;
	int ret;

	ret = peer_import_start(rd, &h, sizeof(h), &ctx);
	if (ret)
		return ret;
	if (cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
		return 3;
	if (cuIpcOpenMemHandle(&p2, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ||
	    p2 != p)
		return 4;
	if (!filled(p, LEN, 0x5a))
		return 5;
	/* the whole allocation, device memory of the opening context */
	if (cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
				  p + 4097) || base != p ||
	    cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p) ||
	    size != (LEN + 4095) / 4096 * 4096 ||
	    cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) ||
	    type != CU_MEMORYTYPE_DEVICE ||
	    cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p) ||
	    owner != ctx)
		return 13;
	if (cuMemsetD8(p + 4096, 0xa5, 4096))
		return 6;
	if (cuMemFree(p) != CUDA_ERROR_INVALID_VALUE)
		return 7;
	if (cuIpcCloseMemHandle(p) || !filled(p, 16, 0x5a))
		return 8;
	if (step_send(wr, 'w') || step_recv(rd) != 'c')
		return 9;
	if (cuIpcCloseMemHandle(p) ||
	    cuIpcCloseMemHandle(p) != CUDA_ERROR_INVALID_VALUE)
		return 10;
	/* the handle again, then the context's destroy unmaps it */
	if (cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
		return 11;
	return cuCtxDestroy(ctx) ? 12 : 0;
}

TEST(two_processes)
{
	struct peer peer;
	CUipcMemHandle h;
	CUcontext ctx;
	CUdeviceptr d;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(d, 0x5a, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, d));
	ASSERT_EQ(0, peer_start(&peer, importer));
	ASSERT_EQ(0, peer_send(&peer, &h, sizeof(h)));
	ASSERT_EQ('w', step_recv(peer.rd));
	/* the child's write is in the exporter's memory */
	EXPECT_TRUE(filled(d + 4096, 4096, 0xa5));
	EXPECT_TRUE(filled(d, 4096, 0x5a));
	ASSERT_EQ(0, step_send(peer.wr, 'c'));
	EXPECT_EQ(0, peer_end(&peer));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * Opens @h in a new process: CUDA_SUCCESS, CUDA_ERROR_INVALID_HANDLE, or
 * -1 for anything else (an exit status cannot carry a CUresult).
 */
static int open_elsewhere(const CUipcMemHandle *h)
{
	CUcontext ctx;
	CUdeviceptr p;
	CUresult res;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0))
			_exit(99);
		res = cuIpcOpenMemHandle(&p, *h,
					 CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
		_exit(res == CUDA_SUCCESS ? 0 :
		      res == CUDA_ERROR_INVALID_HANDLE ? 1 : 2);
	}
	switch (wait_child(pid)) {
	case 0:
		return CUDA_SUCCESS;
	case 1:
		return CUDA_ERROR_INVALID_HANDLE;
	default:
		return -1;
	}
}

/*
 * A handle of freed memory names nothing; memory an importer maps stays
 * its contents after the exporter frees it, until the importer closes.
 */
static int keeper(int rd, int wr)
{
	CUipcMemHandle h;
	CUcontext ctx;
	CUdeviceptr p;

	if (read(rd, &h, sizeof(h)) != sizeof(h))
		return 1;
	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
	    cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
		return 2;
	if (step_send(wr, 'o') || step_recv(rd) != 'f')
		return 3;
	if (!filled(p, LEN, 0x33))
		return 4;
	return cuIpcCloseMemHandle(p) || cuCtxDestroy(ctx) ? 5 : 0;
}

TEST(freed_memory)
{
	struct peer peer;
	CUipcMemHandle h;
	CUcontext ctx;
	CUdeviceptr d;

	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_EQ(CUDA_ERROR_INVALID_HANDLE, open_elsewhere(&h));

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(d, 0x33, LEN));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, d));
	EXPECT_EQ(CUDA_SUCCESS, open_elsewhere(&h));
	ASSERT_EQ(0, peer_start(&peer, keeper));
	ASSERT_EQ(0, peer_send(&peer, &h, sizeof(h)));
	ASSERT_EQ('o', step_recv(peer.rd));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_EQ(0, step_send(peer.wr, 'f'));
	EXPECT_EQ(0, peer_end(&peer));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* The exporter dies: an importer's mapping keeps the memory. */
TEST(exporter_killed)
{
	int to_parent[2];
	CUipcMemHandle h;
	long long before;
	CUcontext ctx;
	CUdeviceptr p;
	pid_t pid;

	INIT_OR_SKIP();
	before = live_objects();
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CUdeviceptr d;

		if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
		    cuMemAlloc(&d, LEN) || cuMemsetD8(d, 0x77, LEN) ||
		    cuIpcGetMemHandle(&h, d))
			memset(&h, 0, sizeof(h));
		if (write(to_parent[1], &h, sizeof(h)) != sizeof(h))
			_exit(1);
		for (;;)
			pause();
	}
	ASSERT_EQ(sizeof(h), read(to_parent[0], &h, sizeof(h)));
	ctx = ctx_on(0);
	ASSERT_NE(NULL, ctx);
	ASSERT_CU(CUDA_SUCCESS,
		  cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(filled(p, LEN, 0x77));
	EXPECT_CU(CUDA_SUCCESS, cuIpcCloseMemHandle(p));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/*
 * A reply that cannot be written: EFAULT, and the import leaves no
 * mapping behind (the address space is as it was).
 */
TEST(reply_fault)
{
	struct cufab_ipc_mem_export ex = { .size = sizeof(ex) };
	struct cufab_ipc_mem_import *im;
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };
	struct cufab_ctx_create cc = { .size = sizeof(cc) };
	long long before;
	int fd, fd2;
	pid_t pid;

	OPEN_OR_SKIP(fd);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_CTX_CREATE, &cc));
	a.ctx_id = cc.out_ctx_id;
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	ex.addr = a.out_addr;
	im = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, im);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_IPC_MEM_EXPORT, &ex));
	/* the export's reply into read-only memory */
	memcpy(im, &ex, sizeof(ex));
	ASSERT_EQ(0, mprotect(im, 4096, PROT_READ));
	EXPECT_EQ(EFAULT, cufab_ioc(fd, CUFAB_IOCTL_IPC_MEM_EXPORT, im));
	ASSERT_EQ(0, mprotect(im, 4096, PROT_READ | PROT_WRITE));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		fd2 = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		memset(im, 0, sizeof(*im));
		im->size = sizeof(*im);
		im->peer_dev = CUFAB_DEV_STREAM;
		memcpy(im->handle, ex.out_handle, sizeof(im->handle));
		if (fd2 < 0 || cufab_ioc(fd2, CUFAB_IOCTL_CTX_CREATE, &cc))
			_exit(1);
		im->ctx_id = cc.out_ctx_id;
		before = live_objects();
		mprotect(im, 4096, PROT_READ);
		if (cufab_ioc(fd2, CUFAB_IOCTL_IPC_MEM_IMPORT, im) != EFAULT)
			_exit(2);
		if (before >= 0 && live_objects() != before)
			_exit(3);
		mprotect(im, 4096, PROT_READ | PROT_WRITE);
		if (cufab_ioc(fd2, CUFAB_IOCTL_IPC_MEM_IMPORT, im))
			_exit(4);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
	munmap(im, 4096);
	close(fd);
}

struct race {
	CUdeviceptr d;
	CUcontext ctx;
	int stop;
};

static void *race_free(void *arg)
{
	struct race *r = arg;

	cuCtxSetCurrent(r->ctx);
	cuMemFree(r->d);
	return NULL;
}

/*
 * cuIpcGetMemHandle against cuMemFree of the same memory in another
 * thread, and an importer against the exporter's cuMemFree: each ends in
 * a handle or INVALID_VALUE, an open or INVALID_HANDLE, nothing between.
 */
TEST(race_against_free)
{
	CUipcMemHandle h;
	struct race r;
	pthread_t t;
	CUresult res;
	int i, got;

	CTX_OR_SKIP(r.ctx);
	for (i = 0; i < 50; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&r.d, LEN));
		ASSERT_EQ(0, pthread_create(&t, NULL, race_free, &r));
		res = cuIpcGetMemHandle(&h, r.d);
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_TRUE(res == CUDA_SUCCESS ||
			    res == CUDA_ERROR_INVALID_VALUE) TH_LOG("%d", res);
	}
	for (i = 0; i < 10; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&r.d, LEN));
		ASSERT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, r.d));
		ASSERT_EQ(0, pthread_create(&t, NULL, race_free, &r));
		got = open_elsewhere(&h);
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_TRUE(got == CUDA_SUCCESS ||
			    got == CUDA_ERROR_INVALID_HANDLE) TH_LOG("%d", got);
	}
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(r.ctx));
}

/* The open half of fail_nth, in the importing process: 0 or the step. */
static int open_failures(const CUipcMemHandle *h)
{
	unsigned int n, got_map = 0;
	CUcontext ctx;
	CUdeviceptr p;
	int fd, done;
	CUresult res;

	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0))
		return 2;
	fd = fail_nth_open();
	if (fd < 0)
		return 3;
	for (n = 1, done = 0; !done; n++) {
		if (fail_nth_arm(fd, n))
			return 4;
		res = cuIpcOpenMemHandle(&p, *h,
					 CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
		done = fail_nth_disarm(fd);
		if (done < 0 || (done && res))
			return 5;
		if (res && res != CUDA_ERROR_MAP_FAILED &&
		    res != CUDA_ERROR_OUT_OF_MEMORY)
			return 6;
		got_map += res != CUDA_SUCCESS;
		if (res == CUDA_SUCCESS && cuIpcCloseMemHandle(p))
			return 7;
	}
	close(fd);
	if (!got_map)
		return 8;
	return cuCtxDestroy(ctx) ? 9 : 0;
}

/* The kernel failing any step of either side: a clean error each time. */
TEST(fail_nth)
{
	unsigned int n, got_oom = 0;
	CUipcMemHandle h;
	CUcontext ctx;
	CUdeviceptr d;
	int fd, done;
	CUresult res;
	pid_t pid;

	CTX_OR_SKIP(ctx);
	fd = fail_nth_open();
	if (fd < 0 || access(CUFAB_DEBUGFS "/fail_mem_share", F_OK))
		SKIP(return, "no fault injection in this kernel");
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, LEN));
	for (n = 1, done = 0; !done; n++) {
		ASSERT_EQ(0, fail_nth_arm(fd, n));
		res = cuIpcGetMemHandle(&h, d);
		done = fail_nth_disarm(fd);
		ASSERT_LE(0, done);
		if (done) {
			ASSERT_CU(CUDA_SUCCESS, res);
		} else if (res) {
			EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, res);
		}
		got_oom += res == CUDA_ERROR_OUT_OF_MEMORY;
	}
	close(fd);
	EXPECT_LT(0U, got_oom);
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetMemHandle(&h, d));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(open_failures(&h));
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST_HARNESS_MAIN
