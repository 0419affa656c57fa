// SPDX-License-Identifier: GPL-2.0
/*
 * cuPointerGetAttribute(s) through libcufab for every kind of memory:
 * cuMemAlloc, cuMemAllocHost, cuMemCreate mappings (with and without
 * access, GPUDirect RDMA and handle types), an imported allocation,
 * reserved but unmapped addresses and ordinary host memory.
 */
#include "mem_helpers.h"
#include "kselftest_harness.h"

CTX_FIXTURE();

static unsigned int u32_attr(CUpointer_attribute a, CUdeviceptr p, CUresult *r)
{
	unsigned int v = 0xdeadbeef;

	*r = cuPointerGetAttribute(&v, a, p);
	return v;
}

static unsigned long long u64_attr(CUpointer_attribute a, CUdeviceptr p,
				   CUresult *r)
{
	unsigned long long v = 0xdeadbeefULL;

	*r = cuPointerGetAttribute(&v, a, p);
	return v;
}

#define U32(attr, ptr) ({ CUresult __r; unsigned int __v = u32_attr(attr, ptr, &__r); \
	ASSERT_CU(CUDA_SUCCESS, __r); __v; })
#define U64(attr, ptr) ({ CUresult __r; unsigned long long __v = u64_attr(attr, ptr, &__r); \
	ASSERT_CU(CUDA_SUCCESS, __r); __v; })

TEST(not_initialized)
{
	CUpointer_attribute a = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
	unsigned int v;
	void *data = &v;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuPointerGetAttribute(&v, a, 4096));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuPointerGetAttributes(1, &a, &data, 4096));
}

TEST_F(ctx, linear_device)
{
	CUdeviceptr d, d2, ptr;
	CUcontext c;
	void *hp;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 10000));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d2, 10000));
	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, U32(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 5));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d + 5));
	EXPECT_EQ(d, U64(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 9999));
	EXPECT_LE(10000, U64(CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 9999));
	EXPECT_EQ(1, U32(CU_POINTER_ATTRIBUTE_MAPPED, d));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
	EXPECT_EQ(1, U32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d));
	{
		int gdr = -1;

		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&gdr,
				CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0));
		EXPECT_EQ(!!gdr, U32(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, d));
	}
	EXPECT_EQ(0, U64(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, d));
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE,
		  U32(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, d));
	EXPECT_EQ(0, U64(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d));
	/* Buffer ids: unique, stable within the allocation. */
	EXPECT_NE(0, U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d));
	EXPECT_EQ(U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d),
		  U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d + 100));
	EXPECT_NE(U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d),
		  U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d2));
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d));
	EXPECT_EQ(self->ctx, c);
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&ptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
						      d + 7));
	EXPECT_EQ(d + 7, ptr);
	/* Device memory has no host pointer. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d));
	/* DEVICE_POINTER is for the current context. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuPointerGetAttribute(&ptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d));
	ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(self->ctx));

	{
		unsigned long long buf_id = U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d);

		EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuPointerGetAttribute(&ptr, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
		/* A new allocation never reuses an id. */
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 10000));
		EXPECT_NE(buf_id, U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d));
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d2));
}

TEST_F(ctx, linear_host)
{
	CUcontext c;
	void *h, *hp;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&h, 5000));
	EXPECT_EQ(CU_MEMORYTYPE_HOST,
		  U32(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)h));
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER,
						      (uintptr_t)h + 3));
	EXPECT_EQ((char *)h + 3, hp);
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT,
						      (uintptr_t)h));
	EXPECT_EQ(self->ctx, c);
	/* Allocated in a context of GPU 0. */
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (uintptr_t)h));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, (uintptr_t)h));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, (uintptr_t)h));
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE,
		  U32(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, (uintptr_t)h));
	EXPECT_EQ((uintptr_t)h, U64(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, (uintptr_t)h + 10));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(h));
}

TEST_F(ctx, vmm)
{
	CUmemAllocationProp p;
	unsigned int dev = num_devices() > 1 ? 1 : 0;
	CUmemGenericAllocationHandle h;
	CUdeviceptr r, ptr;
	size_t g;
	CUcontext c;
	CUresult res;

	SETUP_SKIPPED();

	g = gran(dev);
	p = dev_prop(dev, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	p.allocFlags.gpuDirectRDMACapable = 1;
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&r, 4 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(r + g, 2 * g, 0, h, 0));

	/* Reserved but unmapped: only MAPPED answers. */
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_MAPPED, r));
	u32_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, r, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	/* Mapped, no access granted yet. */
	EXPECT_EQ(1, U32(CU_POINTER_ATTRIBUTE_MAPPED, r + g));
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE,
		  U32(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, r + g));
	ASSERT_CU(CUDA_SUCCESS, grant(r + g, 2 * g, 0));
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE,
		  U32(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, r + g));

	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, U32(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, r + g));
	EXPECT_EQ(dev, U32(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, r + 2 * g));
	EXPECT_EQ(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		  U64(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, r + g));
	EXPECT_EQ(1, U32(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, r + g));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, r + g));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_IS_MANAGED, r + g));
	EXPECT_NE(0, U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, r + g));
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&ptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
						      r + g + 5));
	EXPECT_EQ(r + g + 5, ptr);
	/* VMM memory belongs to no context. */
	c = (CUcontext)1;
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, r + g));
	EXPECT_EQ(NULL, c);

	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(r + g, 2 * g));
	EXPECT_EQ(0, U32(CU_POINTER_ATTRIBUTE_MAPPED, r + g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(r, 4 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/*
 * RANGE_START_ADDR and RANGE_SIZE of VMM memory name "the mappable
 * address range (e.g. from cuMemAddressReserve)", not the mapping, which
 * cuMemGetAddressRange reports.
 */
TEST_F(ctx, vmm_range_is_reservation)
{
	CUdeviceptr r, base;
	struct vbuf b;
	size_t g, size;

	SETUP_SKIPPED();

	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(b.va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(b.va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&r, 3 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(r + g, g, 0, b.h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(r + g, g, 0));
	EXPECT_EQ(r, U64(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, r + g + 5));
	EXPECT_EQ(3 * g, U64(CU_POINTER_ATTRIBUTE_RANGE_SIZE, r + g + 5));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, r + g + 5));
	EXPECT_EQ(r + g, base);
	EXPECT_EQ(g, size);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(r + g, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(r, 3 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(b.h));
}

/* An imported allocation keeps its buffer id and handle types. */
TEST_F(ctx, imported)
{
	CUmemGenericAllocationHandle h2;
	struct vbuf a, b;
	int fd;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&a, 0, gran(0),
					  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, a.h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(fd);
	b.h = h2;
	b.len = a.len;
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&b.va, b.len, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(b.va, b.len, 0, b.h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(b.va, b.len, 0));
	EXPECT_EQ(U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, a.va),
		  U64(CU_POINTER_ATTRIBUTE_BUFFER_ID, b.va));
	EXPECT_EQ(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		  U64(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, b.va));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&a));
}

/* Memory cufab does not know: an error alone, defaults together. */
TEST_F(ctx, not_cufab_memory)
{
	CUpointer_attribute attrs[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
		CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_BUFFER_ID,
	};
	unsigned int type = 77, mapped = 77;
	unsigned long long size = 77, id = 77;
	int ordinal = 77, stack_var;
	CUcontext c = (CUcontext)1;
	void *data[] = { &type, &c, &ordinal, &size, &mapped, &id };
	CUresult r;

	SETUP_SKIPPED();

	u32_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)&stack_var, &r);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, r);
	u32_attr(CU_POINTER_ATTRIBUTE_MAPPED, (uintptr_t)&stack_var, &r);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, r);
	u32_attr(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, (uintptr_t)&stack_var, &r);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, r);
	u64_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, 0, &r);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, r);

	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttributes(6, attrs, data,
						       (uintptr_t)&stack_var));
	EXPECT_EQ(0, type);
	EXPECT_EQ(NULL, c);
	EXPECT_EQ(-1, ordinal);
	EXPECT_EQ(0, size);
	EXPECT_EQ(0, mapped);
	EXPECT_EQ(0, id);
}

TEST_F(ctx, get_attributes)
{
	CUpointer_attribute attrs[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
		CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_MAPPED,
		CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, CU_POINTER_ATTRIBUTE_IS_MANAGED,
	};
	unsigned int type, mapped, access, managed;
	unsigned long long start, size;
	CUcontext c;
	int ordinal;
	void *data[] = { &type, &c, &ordinal, &start, &size, &mapped, &access, &managed };
	CUpointer_attribute bad = (CUpointer_attribute)999;
	CUdeviceptr d;

	SETUP_SKIPPED();

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuPointerGetAttributes(8, attrs, data, d + 10));
	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, type);
	EXPECT_EQ(self->ctx, c);
	EXPECT_EQ(0, ordinal);
	EXPECT_EQ(d, start);
	EXPECT_LE(4096, size);
	EXPECT_EQ(1, mapped);
	EXPECT_EQ(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE, access);
	EXPECT_EQ(0, managed);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(0, attrs, data, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(8, NULL, data, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(8, attrs, NULL, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttributes(1, &bad, data, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&type, bad, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_P2P_TOKENS, d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

TEST_HARNESS_MAIN
