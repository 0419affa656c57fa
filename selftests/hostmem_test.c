// SPDX-License-Identifier: GPL-2.0
/*
 * Page-locked host memory through libcufab: cuMemHostAlloc and
 * cuMemHostGetFlags, cuMemHostRegister/cuMemHostUnregister (pinned by the
 * kernel, charged to RLIMIT_MEMLOCK), their pointer attributes, the
 * engine's copies and sets on registered memory, two processes and a
 * process that dies with memory registered; cuPointerSetAttribute.
 */
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mem_helpers.h"
#include "kselftest_harness.h"

CTX_FIXTURE();

#define PG	4096

static void *pages(size_t n)
{
	void *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int filled(const void *p, size_t len, unsigned char c)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return 0;
	return 1;
}

/* VmLck of this process in kB, from /proc/self/status. */
static long vm_locked_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Drop CAP_IPC_LOCK from the effective set: RLIMIT_MEMLOCK then binds. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[0].effective &= ~(1u << CAP_IPC_LOCK);
	return syscall(SYS_capset, &hdr, data);
}

TEST(not_initialized)
{
	unsigned int flags = 0, one = 1;
	char buf[64];
	void *p;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemHostAlloc(&p, PG, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemHostGetFlags(&flags, buf));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemHostRegister(buf, 64, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemHostUnregister(buf));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					(uintptr_t)buf));
}

TEST(no_context)
{
	unsigned int flags = 0, one = 1;
	char buf[64];
	void *p;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemHostAlloc(&p, PG, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemHostGetFlags(&flags, buf));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemHostRegister(buf, 64, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemHostUnregister(buf));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					(uintptr_t)buf));
}

/* Every flag combination is kept; anything else is INVALID_VALUE. */
TEST_F(ctx, host_alloc_flags)
{
	unsigned int f, got;
	CUdeviceptr d, dev;
	void *p;

	for (f = 0; f <= 7; f++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemHostAlloc(&p, 3 * PG + 5, f));
		got = ~0u;
		EXPECT_CU(CUDA_SUCCESS, cuMemHostGetFlags(&got, p));
		EXPECT_EQ(f, got);
		/* any address inside it */
		EXPECT_CU(CUDA_SUCCESS, cuMemHostGetFlags(&got, (char *)p + PG));
		EXPECT_EQ(f, got);
		/* unified addressing: even WRITECOMBINED memory, same address */
		EXPECT_CU(CUDA_SUCCESS, cuMemHostGetDevicePointer(&d, p, 0));
		EXPECT_EQ((uintptr_t)p, d);
		memset(p, 0x11, 3 * PG + 5);
		EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(p));
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostAlloc(&p, PG, 0x8));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostAlloc(&p, PG, 0x100));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostAlloc(NULL, PG, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostAlloc(&p, 0, 0));

	/* cuMemAllocHost: no flags; other memory has none to report */
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&p, PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostGetFlags(&got, p));
	EXPECT_EQ(0, got);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(NULL, p));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(p));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemHostGetFlags(&got, (void *)(uintptr_t)dev));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&got, &got));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&got, NULL));
}

/* Registered memory and every attribute a host can see of it. */
TEST_F(ctx, register_attributes)
{
	unsigned long long id1 = 0, id2 = 0, types = 1;
	unsigned int type = 0, access = 0, flags;
	int managed = -1, mapped = -1, ordinal = -2, ipc = -1;
	char *a = pages(4), *b = pages(1);
	CUdeviceptr d = 0, base = 0;
	size_t size = 0;
	CUcontext c = NULL;
	void *h = NULL;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	/* any alignment: the pages around the bytes are pinned */
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(a + 100, 2 * PG, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(b, PG,
						  CU_MEMHOSTREGISTER_PORTABLE |
						  CU_MEMHOSTREGISTER_DEVICEMAP));
#define ATTR(v, which, p) cuPointerGetAttribute(&(v), CU_POINTER_ATTRIBUTE_##which, \
						(uintptr_t)(p))
	EXPECT_CU(CUDA_SUCCESS, ATTR(type, MEMORY_TYPE, a + 200));
	EXPECT_EQ(CU_MEMORYTYPE_HOST, type);
	EXPECT_CU(CUDA_SUCCESS, ATTR(h, HOST_POINTER, a + 200));
	EXPECT_EQ(a + 200, (char *)h);
	EXPECT_CU(CUDA_SUCCESS, ATTR(d, DEVICE_POINTER, a + 200));
	EXPECT_EQ((uintptr_t)(a + 200), d);
	EXPECT_CU(CUDA_SUCCESS, ATTR(c, CONTEXT, a + 200));
	EXPECT_EQ(self->ctx, c);
	EXPECT_CU(CUDA_SUCCESS, ATTR(base, RANGE_START_ADDR, a + PG));
	EXPECT_EQ((uintptr_t)(a + 100), base);
	EXPECT_CU(CUDA_SUCCESS, ATTR(size, RANGE_SIZE, a + PG));
	EXPECT_EQ(2 * PG, size);
	EXPECT_CU(CUDA_SUCCESS, ATTR(id1, BUFFER_ID, a + 100));
	EXPECT_CU(CUDA_SUCCESS, ATTR(id2, BUFFER_ID, b));
	EXPECT_NE(0, id1);
	EXPECT_NE(id1, id2);
	EXPECT_CU(CUDA_SUCCESS, ATTR(managed, IS_MANAGED, a + 100));
	EXPECT_EQ(0, managed);
	EXPECT_CU(CUDA_SUCCESS, ATTR(mapped, MAPPED, a + 100));
	EXPECT_EQ(1, mapped);
	EXPECT_CU(CUDA_SUCCESS, ATTR(ordinal, DEVICE_ORDINAL, a + 100));
	EXPECT_EQ(0, ordinal);
	EXPECT_CU(CUDA_SUCCESS, ATTR(ipc, IS_LEGACY_CUDA_IPC_CAPABLE, a + 100));
	EXPECT_EQ(0, ipc);
	EXPECT_CU(CUDA_SUCCESS, ATTR(types, ALLOWED_HANDLE_TYPES, a + 100));
	EXPECT_EQ(0, types);
	EXPECT_CU(CUDA_SUCCESS, ATTR(access, ACCESS_FLAGS, a + 100));
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE, access);
	/* the bytes of the first page before the registered ones are not */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, ATTR(type, MEMORY_TYPE, a + 99));

	EXPECT_CU(CUDA_SUCCESS, cuMemHostGetDevicePointer(&d, a + 300, 0));
	EXPECT_EQ((uintptr_t)(a + 300), d);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&d, a + 300, 1));
	/* no allocation of CUDA, and no cuMemHostAlloc flags */
	EXPECT_CU(CUDA_ERROR_NOT_FOUND,
		  cuMemGetAddressRange(&base, &size, (uintptr_t)(a + 100)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetFlags(&flags, a + 100));

	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(a + 100));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, ATTR(type, MEMORY_TYPE, a + 200));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&d, a + 200, 0));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(a + 100));
	/* registered again: a new buffer id */
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(a, PG, 0));
	EXPECT_CU(CUDA_SUCCESS, ATTR(id2, BUFFER_ID, a));
	EXPECT_NE(id1, id2);
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(a));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(b));
#undef ATTR
	munmap(a, 4 * PG);
	munmap(b, PG);
}

/* Every documented error of cuMemHostRegister and cuMemHostUnregister. */
TEST_F(ctx, register_errors)
{
	char *a = pages(4), *ro;
	CUdeviceptr dev;
	unsigned int access = 0;
	void *host;

	ASSERT_NE(NULL, a);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(NULL, PG, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(a, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(a, PG, 0x10));
	/* ordinary memory is no I/O space */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemHostRegister(a, PG, CU_MEMHOSTREGISTER_IOMEMORY));

	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(a + PG, 2 * PG, 0));
	/* any page of it again, even by other bytes of a page */
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  cuMemHostRegister(a + PG, 2 * PG, 0));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  cuMemHostRegister(a, 2 * PG, 0));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  cuMemHostRegister(a + 3 * PG - 8, 8, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostRegister(a + 3 * PG, PG, 0));
	/* only the base unregisters */
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(a + 2 * PG));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(a));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostUnregister(NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(a + PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(a + 3 * PG));

	/* cuMemHostAlloc memory is registered already; device memory is not host */
	ASSERT_CU(CUDA_SUCCESS, cuMemHostAlloc(&host, PG, 0));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  cuMemHostRegister(host, PG, 0));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(host));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(host));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemHostRegister((void *)(uintptr_t)dev, PG, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));

	/* unmapped memory */
	munmap(a + 2 * PG, PG);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(a + PG, 2 * PG, 0));
	EXPECT_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cuMemHostUnregister(a + PG));

	/* read-only memory needs READ_ONLY, and then reads as read-only */
	ro = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostRegister(ro, PG, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(ro, PG, CU_MEMHOSTREGISTER_READ_ONLY));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&access,
						      CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
						      (uintptr_t)ro));
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ, access);
	/* a device write into it fails, a read works */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8((uintptr_t)ro, 1, 16));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyHtoD(dev, ro, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(ro, dev, PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(ro));
	munmap(ro, PG);
	munmap(a, 4 * PG);
}

/* The engine copies and sets registered memory in stream order. */
TEST_F(ctx, engine_copy)
{
	const size_t len = 64 * PG;
	char *src = pages(64), *dst = pages(64);
	CUdeviceptr dev;
	CUstream s;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	memset(src, 0x3c, len);
	memset(dst, 0, len);
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(src, len, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(dst, len, CU_MEMHOSTREGISTER_DEVICEMAP));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, len));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyHtoDAsync(dev, src, len, s));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyDtoHAsync(dst, dev, len, s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_TRUE(filled(dst, len, 0x3c));
	/* a set into registered memory, by the engine and synchronously */
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD32Async((uintptr_t)dst, 0x5a5a5a5a,
						 len / 4, s));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_TRUE(filled(dst, len, 0x5a));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8((uintptr_t)dst + 8, 0x77, PG));
	EXPECT_TRUE(filled(dst + 8, PG, 0x77));
	/* device to registered host memory, host to host through the GPU */
	EXPECT_CU(CUDA_SUCCESS, cuMemcpy((uintptr_t)dst, (uintptr_t)src, len));
	EXPECT_TRUE(filled(dst, len, 0x3c));
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(src));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(dst));
	munmap(src, len);
	munmap(dst, len);
}

/*
 * The engine reaches the pages pinned at registration, as a device does,
 * even after the process replaced its mapping (the result CUDA calls
 * undefined; cufab's is the pinned page).
 */
TEST_F(ctx, pinned_pages_stay)
{
	char *a = pages(1), *b;
	void *keep;

	ASSERT_NE(NULL, a);
	memset(a, 1, PG);
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(a, PG, 0));
	keep = a;
	b = mmap(a, PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(keep, (void *)b);
	/* the set goes to the pinned page, not the new one */
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8((uintptr_t)a, 9, PG));
	EXPECT_TRUE(filled(b, PG, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(a));
	munmap(b, PG);
}

/* Registration is charged to locked_vm and bounded by RLIMIT_MEMLOCK. */
TEST(memlock)
{
	pid_t pid;

	INIT_OR_SKIP();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 16 * PG, 16 * PG };
		char *a = pages(64);
		CUcontext ctx;
		long before;

		CHILD_CHECK(a);
		CHILD_CHECK(drop_ipc_lock() == 0);
		CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
		CHILD_CHECK(cuInit(0) == CUDA_SUCCESS);
		CHILD_CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
		before = vm_locked_kb();
		CHILD_CHECK(cuMemHostRegister(a, 64 * PG, 0) ==
			    CUDA_ERROR_OUT_OF_MEMORY);
		CHILD_CHECK(vm_locked_kb() == before);
		CHILD_CHECK(cuMemHostRegister(a, 8 * PG, 0) == CUDA_SUCCESS);
		CHILD_CHECK(vm_locked_kb() == before + 8 * PG / 1024);
		/* 8 + 9 pages: past the limit of 16 */
		CHILD_CHECK(cuMemHostRegister(a + 8 * PG, 9 * PG, 0) ==
			    CUDA_ERROR_OUT_OF_MEMORY);
		CHILD_CHECK(cuMemHostRegister(a + 8 * PG, 8 * PG, 0) ==
			    CUDA_SUCCESS);
		CHILD_CHECK(cuMemHostUnregister(a) == CUDA_SUCCESS);
		CHILD_CHECK(cuMemHostUnregister(a + 8 * PG) == CUDA_SUCCESS);
		CHILD_CHECK(vm_locked_kb() == before);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(pid));
}

/*
 * Two processes register the same shared page, each its own registration;
 * the child's device write is seen by the parent, and the child's
 * unregister leaves the parent's registration alone.
 */
TEST_F(ctx, two_processes)
{
	unsigned char *shared = mmap(NULL, PG, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned int type = 0;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, shared);
	memset(shared, 0, PG);
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(shared, PG, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CUcontext ctx;

		CHILD_CHECK(cuInit(0) == CUDA_SUCCESS);
		CHILD_CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
		/* the parent's registration is not the child's */
		CHILD_CHECK(cuMemHostUnregister(shared) ==
			    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
		CHILD_CHECK(cuMemHostRegister(shared, PG, 0) == CUDA_SUCCESS);
		CHILD_CHECK(cuMemsetD8((uintptr_t)shared, 0xab, PG) ==
			    CUDA_SUCCESS);
		CHILD_CHECK(cuMemHostUnregister(shared) == CUDA_SUCCESS);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	EXPECT_TRUE(filled(shared, PG, 0xab));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&type,
						      CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
						      (uintptr_t)shared));
	EXPECT_EQ(CU_MEMORYTYPE_HOST, type);
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8((uintptr_t)shared, 0xcd, PG));
	EXPECT_TRUE(filled(shared, PG, 0xcd));
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(shared));
	munmap(shared, PG);
}

/*
 * A process killed with memory registered: its registrations go with its
 * client (live objects back where they were; kmemleak in the debug VM
 * sees no pinned page left).
 */
TEST(process_death)
{
	long long before;
	int sync[2];
	pid_t pid;
	char c;

	INIT_OR_SKIP();
	before = live_objects();
	ASSERT_EQ(0, pipe(sync));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *a = pages(256);
		CUcontext ctx;

		CHILD_CHECK(a);
		CHILD_CHECK(cuInit(0) == CUDA_SUCCESS);
		CHILD_CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
		CHILD_CHECK(cuMemHostRegister(a, 128 * PG, 0) == CUDA_SUCCESS);
		CHILD_CHECK(cuMemHostRegister(a + 128 * PG, 128 * PG,
					      CU_MEMHOSTREGISTER_READ_ONLY) ==
			    CUDA_SUCCESS);
		CHILD_CHECK(write(sync[1], "r", 1) == 1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	ASSERT_EQ(1, read(sync[0], &c, 1));
	close(sync[0]);
	kill(pid, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(pid));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* SYNC_MEMOPS: set and read back on CUDA memory, refused elsewhere. */
TEST_F(ctx, sync_memops)
{
	unsigned int one = 1, zero = 0;
	int got = -1;
	char buf[64];
	CUdeviceptr d;

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, PG));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
						      d + 16));
	EXPECT_EQ(0, got);
	EXPECT_CU(CUDA_SUCCESS, cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
						      d + 16));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
						      d));
	EXPECT_EQ(1, got);
	EXPECT_CU(CUDA_SUCCESS, cuPointerSetAttribute(&zero, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
						      d));
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
						      d));
	EXPECT_EQ(0, got);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerSetAttribute(NULL, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_BUFFER_ID, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					(uintptr_t)buf));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/* The attributes that promise registration read 1 on every device. */
TEST_F(ctx, attributes)
{
	int v, i, n = num_devices();

	for (i = 0; i < n; i++) {
		EXPECT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, i));
		EXPECT_EQ(1, v);
		EXPECT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, i));
		EXPECT_EQ(1, v);
		EXPECT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, i));
		EXPECT_EQ(1, v);
	}
}

TEST_HARNESS_MAIN
