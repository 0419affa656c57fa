// SPDX-License-Identifier: GPL-2.0
/*
 * Linear memory through libcufab: cuMemAlloc/cuMemFree,
 * cuMemAllocHost/cuMemFreeHost, synchronous copies and memsets,
 * cuMemGetAddressRange; every call needs a current context.
 */
#include <sys/mman.h>

#include "mem_helpers.h"
#include "kselftest_harness.h"

CTX_FIXTURE();

/*
 * The end of a mapping followed by reserved, unmapped addresses: copies
 * running past it fail whatever the kernel placed next to linear memory.
 * Leaked on purpose, the test process ends soon.
 */
static CUdeviceptr tail_mapped_end(void)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;
	size_t g = gran(0);
	CUdeviceptr r;

	if (cuMemCreate(&h, g, &p, 0) || cuMemAddressReserve(&r, 2 * g, 0, 0, 0) ||
	    cuMemMap(r, g, 0, h, 0) || grant(r, g, 0))
		return 0;
	return r + g;
}

TEST(not_initialized)
{
	CUdeviceptr d = 0;
	size_t s;
	void *h;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemAlloc(&d, 4096));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemFree(d));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemAllocHost(&h, 4096));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemFreeHost(&d));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemcpy(d, d, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemcpyHtoD(d, &d, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemcpyDtoH(&d, d, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemcpyDtoD(d, d, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemsetD8(d, 0, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemsetD16(d, 0, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemsetD32(d, 0, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemGetAddressRange(&d, &s, d));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemHostGetDevicePointer(&d, &d, 0));
}

/* Linear calls need a current context (VMM calls do not). */
TEST(no_context)
{
	unsigned char buf[16];
	CUdeviceptr d = 0;
	size_t s;
	void *h;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemAlloc(&d, 4096));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemFree(d));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemAllocHost(&h, 4096));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemFreeHost(buf));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemcpy((uintptr_t)buf, (uintptr_t)buf + 8, 8));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemcpyHtoD((uintptr_t)buf, buf + 8, 8));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemcpyDtoH(buf, (uintptr_t)buf + 8, 8));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemcpyDtoD((uintptr_t)buf, (uintptr_t)buf + 8, 8));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemsetD8((uintptr_t)buf, 0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemsetD16((uintptr_t)buf, 0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemsetD32((uintptr_t)buf, 0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemGetAddressRange(&d, &s, (uintptr_t)buf));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemHostGetDevicePointer(&d, buf, 0));
}

/* The device address of cuMemAllocHost memory is its host address. */
TEST_F(ctx, host_device_pointer)
{
	CUdeviceptr d, dev, m;
	char *h, heap[64];
	void *v;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&v, 3 * 4096));
	h = v;
	EXPECT_CU(CUDA_SUCCESS, cuMemHostGetDevicePointer(&d, h, 0));
	EXPECT_EQ((uintptr_t)h, d);
	EXPECT_CU(CUDA_SUCCESS, cuMemHostGetDevicePointer(&d, h + 5000, 0));
	EXPECT_EQ((uintptr_t)h + 5000, d);
	/* the device writes through it, the host reads */
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8(d, 0x3c, 16));
	EXPECT_EQ(0x3c, h[5015]);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(NULL, h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&d, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&d, h, 1));
	/* not page-locked host memory of cufab */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&d, heap, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, 4096));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemHostGetDevicePointer(&d, (void *)dev, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemHostGetDevicePointer(&d, (void *)m, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(m));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemHostGetDevicePointer(&d, h, 0));
}

TEST_F(ctx, alloc_free)
{
	size_t free0, free1, total;
	CUdeviceptr d, d2;
	unsigned char *p;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 1000));
	EXPECT_NE(0, d);
	/* Suitably aligned for any variable. */
	EXPECT_EQ(0, d % 256);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_LT(free1, free0);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d2, 3 << 20));
	EXPECT_TRUE(d2 + (3 << 20) <= d || d + 1000 <= d2);
	/* Device memory of cufab is host memory, mapped for the CPU. */
	p = (unsigned char *)d;
	p[999] = 9;
	EXPECT_EQ(9, p[999]);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d2));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(&d, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAlloc(NULL, 4096));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&d, total + 4096));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemAlloc(&d, SIZE_MAX / 2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree((uintptr_t)&d));
}

/* The allocating device is the current context's. */
TEST_F(ctx, alloc_on_current_device)
{
	size_t free0, free1, total;
	CUcontext c1;
	CUdeviceptr d;

	SETUP_SKIPPED();

	if (num_devices() < 2)
		SKIP(return, "needs 2 GPUs");
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&c1, NULL, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 1 << 20));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(c1));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_LT(free1, total);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(c1));
}

TEST_F(ctx, alloc_host)
{
	size_t free0, free1, total;
	unsigned char *h;
	void *v;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&v, 10000));
	h = v;
	memset(h, 0x77, 10000);
	EXPECT_EQ(0x77, h[9999]);
	/* Host memory is not charged to the GPU. */
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	/* cuMemFree is not for host memory, nor cuMemFreeHost for device. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree((uintptr_t)v));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(v));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAllocHost(NULL, 4096));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAllocHost(&v, 0));
	{
		CUdeviceptr d;

		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost((void *)d));
		EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	}
}

TEST_F(ctx, copies)
{
	unsigned char src[8192], dst[8192];
	CUdeviceptr a, b;
	void *h;
	size_t i;

	SETUP_SKIPPED();

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 3);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&a, sizeof(src)));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&b, sizeof(src)));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&h, sizeof(src)));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyHtoD(a, src, sizeof(src)));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoD(b, a, sizeof(src)));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpy((uintptr_t)h, b, sizeof(src)));
	memset(dst, 0, sizeof(dst));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(dst, (uintptr_t)h, sizeof(src)));
	EXPECT_EQ(0, memcmp(src, dst, sizeof(src)));
	/* Unaligned, partial, and zero-length copies. */
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(dst, a + 3, 100));
	EXPECT_EQ(0, memcmp(src + 3, dst, 100));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpy(a, b, 0));

	/* Past the end of a mapping, unmapped or bad host memory. */
	{
		CUdeviceptr end = tail_mapped_end();

		ASSERT_NE(0, end);
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(end - 16, src, 32));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(dst, end - 16, 32));
		EXPECT_CU(CUDA_SUCCESS, cuMemcpyDtoH(dst, end - 16, 16));
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(dst, 0, 16));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(a, (void *)8, 16));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(b));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoD(b, a, 16));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(a));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(h));
}

/*
 * Copies move page to page: ranges that start and end inside pages, span
 * many of them on both sides, and reach plain memory of every kind (the
 * heap, a shared file mapping whose page cache must see the bytes, a
 * read-only mapping that must stay untouched).
 */
TEST_F(ctx, copies_across_pages)
{
	const size_t n = 5 * 4096 + 123;
	unsigned char *src, *dst, *ro;
	unsigned int v32;
	CUdeviceptr a, b;
	size_t i;
	int fd;

	SETUP_SKIPPED();

	src = malloc(n + 64);
	dst = malloc(n + 64);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	for (i = 0; i < n + 64; i++)
		src[i] = (unsigned char)(i * 13 + 5);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&a, 8 * 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&b, 8 * 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyHtoD(a + 4001, src + 7, n));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoD(b + 17, a + 4001, n));
	memset(dst, 0, n + 64);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(dst + 3, b + 17, n));
	EXPECT_EQ(0, memcmp(src + 7, dst + 3, n));
	EXPECT_EQ(0, dst[2]);
	EXPECT_EQ(0, dst[n + 3]);

	/* a shared file mapping: the file sees what the copy wrote */
	fd = memfd_create("copies_across_pages", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 3 * 4096));
	ro = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(ro + 100, a + 4001, 2 * 4096));
	ASSERT_EQ(2 * 4096, pread(fd, dst, 2 * 4096, 100));
	EXPECT_EQ(0, memcmp(src + 7, dst, 2 * 4096));

	/* read-only plain memory is no destination, and stays as it was */
	ASSERT_EQ(0, mprotect(ro, 3 * 4096, PROT_READ));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyDtoH(ro, b, 4096));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8((uintptr_t)ro, 0, 16));
	EXPECT_EQ(0, ro[0]);
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyHtoD(b, ro + 100, 64));
	EXPECT_EQ(0, memcmp((void *)(uintptr_t)b, src + 7, 64));
	munmap(ro, 3 * 4096);
	close(fd);

	/* a set across page boundaries keeps its element pattern */
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(a + 4092, 0x01020304, 3000));
	for (i = 0; i < 3000; i++) {
		memcpy(&v32, (void *)(uintptr_t)(a + 4092 + 4 * i), 4);
		ASSERT_EQ(0x01020304U, v32);
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD16(b + 4094, 0xa1b2, 5000));
	EXPECT_EQ(0xa1b2, *(unsigned short *)(uintptr_t)(b + 4094));
	EXPECT_EQ(0xa1b2, *(unsigned short *)(uintptr_t)(b + 4094 + 2 * 4999));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(a));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(b));
	free(src);
	free(dst);
}

/* Copies are made by the current context's device: it needs access. */
TEST_F(ctx, copy_checks_device_access)
{
	CUmemGenericAllocationHandle hd;
	CUmemAllocationProp p;
	unsigned char buf[64];
	CUdeviceptr va;
	size_t g;

	SETUP_SKIPPED();

	if (num_devices() < 2)
		SKIP(return, "needs 2 GPUs");
	g = gran(1);
	p = dev_prop(1, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&hd, g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, g, 0, hd, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(va, g, 1));
	/* Context on GPU 0, memory accessible to GPU 1 only. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(va, buf, sizeof(buf)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(va, 1, 64));
	ASSERT_CU(CUDA_SUCCESS, grant(va, g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemcpyHtoD(va, buf, sizeof(buf)));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(hd));
}

TEST_F(ctx, memset)
{
	unsigned char b8[64];
	unsigned short b16[64];
	unsigned int b32[64];
	CUdeviceptr d;
	int i;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(d, 0xa5, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(b8, d + 1000, sizeof(b8)));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0xa5, b8[i]);
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD16(d + 2, 0xbeef, 64));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(b16, d + 2, sizeof(b16)));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0xbeef, b16[i]);
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD32(d + 256, 0xdeadbeef, 64));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(b32, d + 256, sizeof(b32)));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0xdeadbeefU, b32[i]);
	/* Neighbours untouched. */
	EXPECT_EQ(0xa5, ((unsigned char *)d)[255]);
	EXPECT_EQ(0xa5, ((unsigned char *)d)[256 + 256]);

	/* Misaligned destinations, past the end. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD16(d + 1, 0, 4));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD32(d + 2, 0, 4));
	{
		CUdeviceptr end = tail_mapped_end();

		ASSERT_NE(0, end);
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD32(end - 16, 0, 8));
		EXPECT_CU(CUDA_SUCCESS, cuMemsetD32(end - 16, 0, 4));
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(0, 0, 4));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/* A memset one byte past the allocation's range must not touch memory. */
TEST_F(ctx, memset_past_end)
{
	CUdeviceptr d, base;
	size_t size;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(base, 0x11, size + 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemsetD8(base + size - 1, 0x11, 2));
	EXPECT_CU(CUDA_SUCCESS, cuMemsetD8(base, 0x22, size));
	EXPECT_EQ(0x22, ((unsigned char *)(uintptr_t)base)[size - 1]);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

TEST_F(ctx, address_range)
{
	CUdeviceptr d, base = 0;
	size_t size = 0;
	struct vbuf b;
	void *h;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 5000));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, d + 4321));
	EXPECT_EQ(d, base);
	EXPECT_LE(5000, size);
	EXPECT_CU(CUDA_SUCCESS, cuMemGetAddressRange(NULL, &size, d));
	EXPECT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, NULL, d));
	EXPECT_CU(CUDA_SUCCESS, cuMemGetAddressRange(NULL, NULL, d));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&h, 100));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, (uintptr_t)h + 50));
	EXPECT_EQ((uintptr_t)h, base);
	/* A VMM mapping is its own range. */
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, 2 * gran(0), 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, b.va + 12345));
	EXPECT_EQ(b.va, base);
	EXPECT_EQ(b.len, size);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));

	EXPECT_CU(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &size, (uintptr_t)&d));
	EXPECT_CU(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &size, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &size, d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(h));
}

/* Process death frees linear allocations and their charge. */
TEST_F(ctx, process_death)
{
	long long before = live_objects();
	size_t free0, free1, total;
	int status;
	pid_t pid;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CUcontext c;
		CUdeviceptr d;
		void *h;

		if (cuInit(0) || cuCtxCreate(&c, NULL, 0, 0) ||
		    cuMemAlloc(&d, 8 << 20) || cuMemAllocHost(&h, 1 << 20))
			_exit(1);
		memset((void *)d, 1, 8 << 20);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
}

/* Is any byte of [p, p + len) mapped in this process? */
static int range_mapped(CUdeviceptr p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char vec;
	size_t off;

	/* mincore() fails with ENOMEM on an unmapped page */
	for (off = 0; off < len; off += page)
		if (!mincore((void *)(uintptr_t)(p + off), page, &vec) ||
		    errno != ENOMEM)
			return 1;
	return 0;
}

/*
 * cuCtxDestroy frees the allocations made while the context was current
 * (device and host): the capacity comes back, the pointers are no longer
 * cufab memory and their addresses are unmapped (not touched: that would
 * fault). Another context's allocations stay, with their data.
 */
TEST(ctx_destroy_frees_its_allocations)
{
	CUdeviceptr a_dev, b_dev, base;
	size_t free0, free1, free2, total, len = 4 << 20, sz;
	CUcontext a, b, cur;
	unsigned int type;
	unsigned char *b_host, buf[4];
	void *a_host;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&b, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&b_dev, len));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost((void **)&b_host, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(b_dev, 0x5a, len));
	b_host[0] = 0xa5;

	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&a, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&a_dev, len));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&a_host, 8192));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(a_dev, 1, len));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0 - len, free1);
	EXPECT_TRUE(range_mapped(a_dev, len));

	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	/* B is current again: B's GPU is A's, so its use shows the return */
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(b, cur);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free2, &total));
	EXPECT_EQ(free0, free2);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					a_dev));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					(uintptr_t)a_host));
	EXPECT_CU(CUDA_ERROR_NOT_FOUND, cuMemGetAddressRange(&base, &sz, a_dev));
	EXPECT_FALSE(range_mapped(a_dev, len));
	EXPECT_FALSE(range_mapped((uintptr_t)a_host, 8192));
	/* already freed with its context */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(a_dev));

	/* B's allocations survive, data included */
	EXPECT_CU(CUDA_SUCCESS,
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					b_dev));
	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, type);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(buf, b_dev + len - 4, 4));
	EXPECT_EQ(0x5a, buf[3]);
	EXPECT_EQ(0xa5, b_host[0]);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(b_dev));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(b_host));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
}

/* The primary context's reset and final release free its allocations too. */
TEST(primary_ctx_reset_and_release_free)
{
	CUdeviceptr d, keep;
	size_t free0, free1, total;
	CUcontext pctx, other;
	unsigned int type;

	INIT_OR_SKIP();
	/* a context that stays, to read cuMemGetInfo of the same GPU */
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&other, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&keep, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));

	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&pctx, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(pctx));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 2 << 20));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0 - (2 << 20), free1);
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxReset(0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(other));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
	EXPECT_FALSE(range_mapped(d, 2 << 20));

	/* the last release, after a new retain, the same way */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&pctx, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(pctx));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost((void **)&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(other));
	/* two retains (the reset kept the count), two releases */
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	EXPECT_TRUE(range_mapped(d, 4096));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
	EXPECT_FALSE(range_mapped(d, 4096));

	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(other));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	EXPECT_CU(CUDA_SUCCESS,
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					keep));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(keep));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(other));
}

TEST_HARNESS_MAIN
