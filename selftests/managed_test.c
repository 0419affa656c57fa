// SPDX-License-Identifier: GPL-2.0
/*
 * Managed memory: cuMemAllocManaged, cuMemFree of it, its pointer
 * attributes, cuMemAdvise, cuMemPrefetchAsync, cuMemRangeGetAttribute(s)
 * and the device attributes that describe it; through libcufab, and
 * through raw ioctls where the test needs what the library does not show
 * (where pages live, fail-nth).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "mem_helpers.h"
#include "cufab_uapi.h"
#include "kselftest_harness.h"
#include "race_helpers.h"

#define PG	4096UL

CTX_FIXTURE();

/* The CUDA 8.0 symbols, which cuda.h names only through their _v2 forms. */
CUresult cuMemAdvise_v1(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
			CUdevice device) __asm__("cuMemAdvise");
CUresult cuMemPrefetchAsync_v1(CUdeviceptr devPtr, size_t count,
			       CUdevice dstDevice, CUstream hStream)
	__asm__("cuMemPrefetchAsync");

/* The features= module parameter was given (not "(null)"). */
static int features_param_set(void)
{
	char buf[64] = "";
	FILE *f = fopen(CUFAB_PARAMS "features", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] && strncmp(buf, "(null)", 6);
}

static CUmemLocation loc(CUmemLocationType type, int id)
{
	CUmemLocation l = { .type = type, .id = id };

	return l;
}

static int range_int(CUmem_range_attribute attr, CUdeviceptr p, size_t len)
{
	int v = 0x7777;

	if (cuMemRangeGetAttribute(&v, sizeof(v), attr, p, len))
		return 0x6666;
	return v;
}

TEST(not_initialized)
{
	CUdeviceptr d = 0;
	int v;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_READ_MOSTLY,
			      loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemPrefetchAsync(d, PG, loc(CU_MEM_LOCATION_TYPE_HOST, 0),
				     0, NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
					 d, PG));
}

/* Allocation, prefetch and the attribute list work in a context. */
TEST(no_context)
{
	CUmem_range_attribute a = CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY;
	size_t sz = 4;
	CUdeviceptr d;
	void *data;
	int v;

	INIT_OR_SKIP();
	data = &v;
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemPrefetchAsync(PG, PG, loc(CU_MEM_LOCATION_TYPE_HOST, 0),
				     0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuMemRangeGetAttributes(&data, &sz, &a, 1, PG, PG));
}

/* flags must be exactly GLOBAL or HOST; size 0 and a NULL dptr refused. */
TEST_F(ctx, alloc_flags)
{
	static const unsigned int bad[] = { 0, CU_MEM_ATTACH_SINGLE, 0x3, 0x5,
					    0x6, 0x7, 0x8, 0x80000000u };
	CUdeviceptr d;
	unsigned int i;

	SETUP_SKIPPED();
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuMemAllocManaged(&d, PG, bad[i]))
			TH_LOG("flags 0x%x", bad[i]);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAllocManaged(&d, 0, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAllocManaged(NULL, PG, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_HOST));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/*
 * The CPU reads and writes it at the returned address, the context's
 * device copies and sets it, no GPU capacity is charged; cuMemFree (not
 * cuMemFreeHost) frees it.
 */
TEST_F(ctx, cpu_and_device_access)
{
	size_t free0, free1, total, len = 3 * PG + 100;
	unsigned char *p, buf[64];
	CUdeviceptr d, base;
	size_t size;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, len, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	p = (unsigned char *)(uintptr_t)d;
	memset(p, 0x11, len);
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8(d + PG, 0x22, PG));
	EXPECT_EQ(0x11, p[PG - 1]);
	EXPECT_EQ(0x22, p[PG]);
	EXPECT_EQ(0x22, p[2 * PG - 1]);
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(buf, d + PG, sizeof(buf)));
	EXPECT_EQ(0x22, buf[63]);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAddressRange(&base, &size, d + 5000));
	EXPECT_EQ(d, base);
	EXPECT_LE(len, size);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFreeHost(p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(d + PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemFree(d));
	EXPECT_EQ(1, cpu_faults(p, 0));
}

TEST_F(ctx, pointer_attributes)
{
	CUdeviceptr d, dev, start;
	unsigned long long id = 0;
	int managed, ordinal, ipc;
	unsigned int type;
	CUcontext c;
	size_t size;
	void *hp, *host;
	CUpointer_attribute attrs[] = { CU_POINTER_ATTRIBUTE_IS_MANAGED,
					CU_POINTER_ATTRIBUTE_MEMORY_TYPE };
	void *data[] = { &managed, &type };

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 2 * PG, CU_MEM_ATTACH_HOST));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&host, PG));

	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&managed,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, d + PG));
	EXPECT_EQ(1, managed);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&managed,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, dev));
	EXPECT_EQ(0, managed);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&managed,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, (uintptr_t)host));
	EXPECT_EQ(0, managed);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&managed,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, (uintptr_t)&managed));

	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&type,
			CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, type);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&hp,
			CU_POINTER_ATTRIBUTE_HOST_POINTER, d + 8));
	EXPECT_EQ((void *)(uintptr_t)(d + 8), hp);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&ordinal,
			CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
	EXPECT_EQ(0, ordinal);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&c,
			CU_POINTER_ATTRIBUTE_CONTEXT, d));
	EXPECT_EQ(self->ctx, c);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&ipc,
			CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d));
	EXPECT_EQ(0, ipc);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&ipc,
			CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, d));
	EXPECT_EQ(0, ipc);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&id,
			CU_POINTER_ATTRIBUTE_BUFFER_ID, d));
	EXPECT_NE(0ULL, id);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&start,
			CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + PG + 1));
	EXPECT_EQ(d, start);
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttribute(&size,
			CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 1));
	EXPECT_EQ(2 * PG, size);

	managed = 0;
	type = 0;
	EXPECT_CU(CUDA_SUCCESS, cuPointerGetAttributes(2, attrs, data, d));
	EXPECT_EQ(1, managed);
	EXPECT_EQ(CU_MEMORYTYPE_DEVICE, type);

	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(host));
}

/*
 * MANAGED_MEMORY reads 1 once both calls of the family exist
 * (Documentation/attributes.rst); CONCURRENT_MANAGED_ACCESS and
 * PAGEABLE_MEMORY_ACCESS then follow the GPU's settings, by default an
 * H100's (1 and 0).
 */
/*
 * Every GPU's stream operations reach managed memory at the CPU's address:
 * a set from a stream of each GPU's context, a copy from there to that
 * GPU's memory and back.
 */
TEST_F(ctx, every_gpu_stream_access)
{
	CUdeviceptr d, dev;
	CUcontext pctx;
	unsigned char *p;
	CUstream s;
	int n, i;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, (size_t)n * 2 * PG,
						  CU_MEM_ATTACH_GLOBAL));
	p = (unsigned char *)(uintptr_t)d;
	for (i = 0; i < n; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&pctx, i));
		ASSERT_CU(CUDA_SUCCESS, cuCtxPushCurrent(pctx));
		ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
		ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
		EXPECT_CU(CUDA_SUCCESS, cuMemsetD8Async(d + i * 2 * PG,
				(unsigned char)(0x30 + i), PG, s));
		EXPECT_CU(CUDA_SUCCESS, cuMemcpyAsync(dev, d + i * 2 * PG, PG, s));
		EXPECT_CU(CUDA_SUCCESS, cuMemcpyAsync(d + i * 2 * PG + PG, dev,
						      PG, s));
		EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		EXPECT_EQ(0x30 + i, p[i * 2 * PG]) TH_LOG("gpu %d", i);
		EXPECT_EQ(0x30 + i, p[i * 2 * PG + 2 * PG - 1]) TH_LOG("gpu %d", i);
		EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
		EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
		ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&pctx));
		EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(i));
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

TEST(device_attributes)
{
	int v, n, i, fd, family;
	struct cufab_device_info info;

	INIT_OR_SKIP();
	OPEN_OR_SKIP(fd);
	family = dlsym(RTLD_DEFAULT, "cuMemAllocManaged") &&
		 dlsym(RTLD_DEFAULT, "cuStreamAttachMemAsync");
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	for (i = 0; i < n; i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		info.index = i;
		ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_DEVICE_INFO, &info));
		EXPECT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
				CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, i));
		EXPECT_EQ(family, v);
		EXPECT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
				CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, i));
		EXPECT_EQ(family &&
			  !!(info.flags & CUFAB_DEV_F_CONCURRENT_MANAGED), v);
		EXPECT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
				CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, i));
		EXPECT_EQ(family && !!(info.flags & CUFAB_DEV_F_PAGEABLE_ACCESS),
			  v);
		if (!features_param_set()) {
			EXPECT_NE(0U, info.flags & CUFAB_DEV_F_CONCURRENT_MANAGED);
			EXPECT_EQ(0U, info.flags & CUFAB_DEV_F_PAGEABLE_ACCESS);
		}
	}
	close(fd);
}

TEST_F(ctx, read_mostly)
{
	CUmemLocation any = loc(CU_MEM_LOCATION_TYPE_HOST, 0);
	CUdeviceptr d;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 4 * PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4 * PG));
	/* the range widens to whole pages */
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d + 10, PG,
			CU_MEM_ADVISE_SET_READ_MOSTLY, any));
	EXPECT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 2 * PG));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 3 * PG));
	EXPECT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d + PG, 1));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, 4 * PG,
			CU_MEM_ADVISE_SET_READ_MOSTLY, any));
	EXPECT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d + 3 * PG, PG,
			CU_MEM_ADVISE_UNSET_READ_MOSTLY, any));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4 * PG));
	EXPECT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 3 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

TEST_F(ctx, preferred_location)
{
	CUmemLocationType t;
	CUdeviceptr d;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 4 * PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(&t, sizeof(t),
			CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, d, PG));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_INVALID, t);

	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, 2 * PG,
			CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, 2 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(&t, sizeof(t),
			CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, d, 2 * PG));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_DEVICE, t);
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, d, PG));
	/* some pages have none */
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, 3 * PG));

	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d + 2 * PG, 2 * PG,
			CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_HOST, 77)));
	EXPECT_EQ(CU_DEVICE_CPU, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
					   d + 2 * PG, 2 * PG));
	/* pages differ */
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, 4 * PG));

	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, 4 * PG,
			CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0)));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(&t, sizeof(t),
			CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, d, 4 * PG));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA, t);
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
			       d, 4 * PG));
	EXPECT_EQ(CU_DEVICE_CPU, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
					   d, 4 * PG));
	/* the CUDA 8.0 form with a device */
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise_v1(d, PG,
			CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 0));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, 4 * PG,
			CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_INVALID, 0)));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, 4 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

TEST_F(ctx, accessed_by)
{
	int list[4], one;
	CUdeviceptr d;
	int n;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 2 * PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(list, sizeof(list),
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, 2 * PG));
	EXPECT_EQ(CU_DEVICE_INVALID, list[0]);
	EXPECT_EQ(CU_DEVICE_INVALID, list[3]);

	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, 2 * PG, CU_MEM_ADVISE_SET_ACCESSED_BY,
					    loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise_v1(d, PG, CU_MEM_ADVISE_SET_ACCESSED_BY,
					       CU_DEVICE_CPU));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(list, sizeof(list),
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, PG));
	EXPECT_EQ(0, list[0]);
	EXPECT_EQ(CU_DEVICE_CPU, list[1]);
	EXPECT_EQ(CU_DEVICE_INVALID, list[2]);
	/* the host only on the first page */
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(list, sizeof(list),
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, 2 * PG));
	EXPECT_EQ(0, list[0]);
	EXPECT_EQ(CU_DEVICE_INVALID, list[1]);
	/* a short array holds what fits */
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(&one, sizeof(one),
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, PG));
	EXPECT_EQ(0, one);
	if (n > 1) {
		EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, PG,
				CU_MEM_ADVISE_SET_ACCESSED_BY,
				loc(CU_MEM_LOCATION_TYPE_DEVICE, 1)));
		EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(list, sizeof(list),
				CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, PG));
		EXPECT_EQ(0, list[0]);
		EXPECT_EQ(1, list[1]);
		EXPECT_EQ(CU_DEVICE_CPU, list[2]);
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(d, 2 * PG,
			CU_MEM_ADVISE_UNSET_ACCESSED_BY,
			loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttribute(list, sizeof(list),
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, 2 * PG));
	EXPECT_NE(0, list[0]);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

TEST_F(ctx, advise_errors)
{
	CUmemLocation host = loc(CU_MEM_LOCATION_TYPE_HOST, 0);
	CUdeviceptr d, dev;
	int n, pageable;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 2 * PG, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, host));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, 3 * PG, CU_MEM_ADVISE_SET_READ_MOSTLY, host));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(dev, PG, CU_MEM_ADVISE_SET_READ_MOSTLY, host));
	/* the stack is pageable memory: valid where GPUs can access it */
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&pageable,
			CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
	EXPECT_CU(pageable ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise((uintptr_t)&n, 4, CU_MEM_ADVISE_SET_READ_MOSTLY, host));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(0, PG, CU_MEM_ADVISE_SET_READ_MOSTLY, host));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, PG, (CUmem_advise)0, host));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, PG, (CUmem_advise)7, host));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			      loc(CU_MEM_LOCATION_TYPE_DEVICE, n)));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_ACCESSED_BY,
			      loc(CU_MEM_LOCATION_TYPE_DEVICE, -3)));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuMemAdvise_v1(d, PG, CU_MEM_ADVISE_SET_ACCESSED_BY, n + 5));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_ACCESSED_BY,
			      loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			      loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 999)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			      loc((CUmemLocationType)9, 0)));
	/* advice without a location ignores it */
	EXPECT_CU(CUDA_SUCCESS,
		  cuMemAdvise(d, PG, CU_MEM_ADVISE_UNSET_READ_MOSTLY,
			      loc((CUmemLocationType)9, 99)));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
}

TEST_F(ctx, prefetch)
{
	CUdeviceptr d, dev;
	unsigned char *p;
	int n;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 4 * PG, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	p = (unsigned char *)(uintptr_t)d;
	memset(p, 0x3c, 2 * PG);
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, PG));

	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync(d, 4 * PG,
			loc(CU_MEM_LOCATION_TYPE_DEVICE, 0), 0, NULL));
	/* a stream operation: done once the stream is */
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			       d, 4 * PG));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_DEVICE,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
			    d, 4 * PG));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
			       d, 4 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync_v1(d, PG, CU_DEVICE_CPU,
						      (CUstream)0x1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	EXPECT_EQ(CU_DEVICE_CPU,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, PG));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			    d, 2 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync(d, PG,
			loc(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0), 0,
			(CUstream)0x2));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
			    d, PG));
	/* the data stays where the program put it */
	EXPECT_EQ(0x3c, p[0]);
	EXPECT_EQ(0x3c, p[2 * PG - 1]);
	EXPECT_EQ(0, p[2 * PG]);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(d, PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cuMemPrefetchAsync(d, PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, (CUstream)0x1234));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemPrefetchAsync(d, PG,
			loc(CU_MEM_LOCATION_TYPE_DEVICE, n), 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(d, PG,
			loc(CU_MEM_LOCATION_TYPE_INVALID, 0), 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(dev, PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(d, 0,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
}

static int gate_fds[2] = { -1, -1 };

static void CUDA_CB gate_wait(void *arg)
{
	char c;

	(void)arg;
	if (read(gate_fds[0], &c, 1) != 1)
		_exit(60);
}

/*
 * Stream @s behind a closed gate: it waits for an event recorded after a
 * host function of another stream, which blocks until gate_release().
 */
struct gated {
	CUstream gate, s;
	CUevent e;
};

static int gated_open(struct gated *g)
{
	if (pipe(gate_fds) ||
	    cuStreamCreate(&g->gate, CU_STREAM_NON_BLOCKING) ||
	    cuStreamCreate(&g->s, CU_STREAM_NON_BLOCKING) ||
	    cuEventCreate(&g->e, CU_EVENT_DISABLE_TIMING) ||
	    cuLaunchHostFunc(g->gate, gate_wait, NULL) ||
	    cuEventRecord(g->e, g->gate) ||
	    cuStreamWaitEvent(g->s, g->e, 0))
		return -1;
	return 0;
}

static int gate_release(void)
{
	return write(gate_fds[1], "g", 1) == 1 ? 0 : -1;
}

static int gated_close(struct gated *g)
{
	int ret = cuEventDestroy(g->e) || cuStreamDestroy(g->s) ||
		  cuStreamDestroy(g->gate);

	close(gate_fds[0]);
	close(gate_fds[1]);
	return ret ? -1 : 0;
}

/*
 * A prefetch runs when its stream reaches it: behind a wait for an event
 * that a host function holds back until the test opens the gate.
 */
TEST_F(ctx, prefetch_in_stream_order)
{
	struct gated g;
	CUstream s;
	CUdeviceptr d;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 2 * PG, CU_MEM_ATTACH_GLOBAL));
	ASSERT_EQ(0, gated_open(&g));
	s = g.s;
	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync(d, 2 * PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, s));
	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync_v1(d, PG, 0, s));
	/* the gate is closed: neither has run */
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			    d + PG, PG));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			    d, PG));
	EXPECT_CU(CUDA_ERROR_NOT_READY, cuStreamQuery(s));
	ASSERT_EQ(0, gate_release());
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	/* in order: the device prefetch came last on the first page */
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			       d, PG));
	EXPECT_EQ(CU_DEVICE_CPU,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			    d + PG, PG));
	/* checked when called: a range past the allocation is refused at once */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(d + PG, 2 * PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, s));
	EXPECT_EQ(0, gated_close(&g));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/* The NUMA node of the page at @p (move_pages(2) asking), or -1. */
static int page_node(void *p)
{
	int status = -1;

	if (syscall(SYS_move_pages, 0, 1UL, &p, NULL, &status, 0))
		return -1;
	return status;
}

/*
 * Pageable (malloc) memory under cuMemAdvise, cuMemPrefetchAsync and
 * cuMemRangeGetAttribute(s): with PAGEABLE_MEMORY_ACCESS (the "cliques"
 * boot of tools/check) advice is kept and reported, a prefetch runs in
 * stream order and moves the pages to a NUMA node; without it, such a
 * range is not valid memory for the calls.
 */
TEST_F(ctx, pageable_memory)
{
	CUmem_range_attribute attrs[2] = {
		CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
		CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
	};
	int rm = -1, ab[3], pageable, i;
	void *data[2] = { &rm, ab };
	size_t sizes[2] = { 4, sizeof(ab) };
	CUdeviceptr h, dev;
	struct gated g;
	CUstream s;
	unsigned char *p;
	void *u;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&pageable,
			CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
	p = aligned_alloc(PG, 4 * PG);
	ASSERT_NE(NULL, p);
	memset(p, 0x6b, 4 * PG);
	h = (uintptr_t)p;
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	if (!pageable) {
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(h, PG,
				CU_MEM_ADVISE_SET_READ_MOSTLY,
				loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(h, PG,
				loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, NULL));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm,
				4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, h, PG));
		goto out;
	}
	/* nothing advised yet */
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, h, 4 * PG));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, h, PG));
	/* advice is kept per page, reported for what the pages share */
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h + 10, 2 * PG,
			CU_MEM_ADVISE_SET_READ_MOSTLY,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, h, 3 * PG));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, h, 4 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h + PG, PG,
			CU_MEM_ADVISE_UNSET_READ_MOSTLY,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_EQ(1, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, h, PG));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, h, 2 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h, 2 * PG,
			CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
			       h, 2 * PG));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
			    h, 3 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h, 4 * PG,
			CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0)));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
			    h, 4 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h, 4 * PG,
			CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
			    h, 4 * PG));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h, PG,
			CU_MEM_ADVISE_SET_ACCESSED_BY,
			loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)));
	EXPECT_CU(CUDA_SUCCESS, cuMemAdvise(h, PG,
			CU_MEM_ADVISE_SET_ACCESSED_BY,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttributes(data, sizes, attrs, 2,
							h, PG));
	EXPECT_EQ(1, rm);
	EXPECT_EQ(0, ab[0]);
	EXPECT_EQ(CU_DEVICE_CPU, ab[1]);
	EXPECT_EQ(CU_DEVICE_INVALID, ab[2]);
	/* the rules of each advice, and of the range */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(h, PG,
			CU_MEM_ADVISE_SET_ACCESSED_BY,
			loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(h, PG,
			(CUmem_advise)7, loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(h, 0,
			CU_MEM_ADVISE_SET_READ_MOSTLY,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(PG, PG,
			CU_MEM_ADVISE_SET_READ_MOSTLY,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAdvise(dev, PG,
			CU_MEM_ADVISE_SET_READ_MOSTLY,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, dev, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, PG, PG));

	/* a prefetch runs when its stream reaches it */
	ASSERT_EQ(0, gated_open(&g));
	s = g.s;
	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync(h, 4 * PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, s));
	EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync_v1(h, PG, 0, s));
	EXPECT_EQ(CU_DEVICE_INVALID,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			    h + PG, PG));
	ASSERT_EQ(0, gate_release());
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_EQ(0, range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			       h, PG));
	EXPECT_EQ(CU_DEVICE_CPU,
		  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
			    h + PG, 3 * PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemPrefetchAsync(PG, PG,
			loc(CU_MEM_LOCATION_TYPE_HOST, 0), 0, s));
	/* to a NUMA node: the pages move there with their data */
	if (access("/sys/devices/system/node/node1", F_OK) == 0) {
		EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync(h, 4 * PG,
				loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 1), 0, s));
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		for (i = 0; i < 4; i++)
			EXPECT_EQ(1, page_node(p + i * PG)) TH_LOG("page %d", i);
		EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync(h, PG,
				loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0), 0, s));
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		EXPECT_EQ(0, page_node(p));
		EXPECT_EQ(1, page_node(p + PG));
		EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA,
			  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
				    h, PG));
		/* a page never touched is not populated (differences.rst) */
		u = mmap(NULL, PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, u);
		EXPECT_CU(CUDA_SUCCESS, cuMemPrefetchAsync((uintptr_t)u, PG,
				loc(CU_MEM_LOCATION_TYPE_HOST_NUMA, 1), 0, s));
		ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
		/* no page: -ENOENT or, on 6.1, -EFAULT */
		EXPECT_GT(0, page_node(u));
		EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA,
			  range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
				    (uintptr_t)u, PG));
		munmap(u, PG);
	}
	for (i = 0; i < 4 * (int)PG; i++)
		if (p[i] != 0x6b)
			break;
	EXPECT_EQ(4 * (int)PG, i);
	EXPECT_EQ(0, gated_close(&g));
out:
	free(p);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
}

TEST_F(ctx, range_attribute_errors)
{
	CUmem_range_attribute attrs[2] = { CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
					   CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY };
	int rm = -1, ab[3];
	void *data[2] = { &rm, ab };
	size_t sizes[2] = { 4, sizeof(ab) };
	CUdeviceptr d, dev;
	long long wide;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&wide, 8,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(ab, 6,
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(ab, 0,
			CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(NULL, 4,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			(CUmem_range_attribute)0, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			(CUmem_range_attribute)9, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 2 * PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttribute(&rm, 4,
			CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, dev, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, sizes,
			attrs, 0, d, PG));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(NULL, sizes,
			attrs, 2, d, PG));
	sizes[0] = 2;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRangeGetAttributes(data, sizes,
			attrs, 2, d, PG));
	sizes[0] = 4;
	EXPECT_CU(CUDA_SUCCESS, cuMemRangeGetAttributes(data, sizes, attrs, 2,
							d, PG));
	EXPECT_EQ(0, rm);
	EXPECT_EQ(CU_DEVICE_INVALID, ab[0]);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
}

/* Every rule of cuStreamAttachMemAsync and its codes. */
TEST_F(ctx, attach_rules)
{
	static const unsigned int bad[] = { 0, 0x3, 0x5, 0x6, 0x7, 0x8 };
	CUdeviceptr d, dev;
	CUstream s;
	unsigned int i;
	int pageable;
	void *host;
	char *heap;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 2 * PG, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&dev, PG));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&host, PG));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	heap = malloc(3 * PG);
	ASSERT_NE(NULL, heap);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuStreamAttachMemAsync(s, d, 0, bad[i]))
			TH_LOG("flags 0x%x", bad[i]);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(NULL, d, 0, CU_MEM_ATTACH_SINGLE));
	EXPECT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(CU_STREAM_LEGACY, d, 0,
						       CU_MEM_ATTACH_SINGLE));
	EXPECT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(CU_STREAM_PER_THREAD, d,
						       2 * PG,
						       CU_MEM_ATTACH_SINGLE));
	EXPECT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(NULL, d, 0,
						       CU_MEM_ATTACH_HOST));
	EXPECT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(s, d, 2 * PG,
						       CU_MEM_ATTACH_SINGLE));
	EXPECT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(s, d, 0,
						       CU_MEM_ATTACH_GLOBAL));
	/* interior pointer, partial length */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(s, d + PG, 0, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(s, d, PG, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(s, d, 3 * PG, CU_MEM_ATTACH_GLOBAL));
	/* not managed memory */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(s, dev, 0, CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(s, (uintptr_t)host, 0,
					 CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuStreamAttachMemAsync(s, 0, 0, CU_MEM_ATTACH_GLOBAL));
	/*
	 * Pageable memory needs PAGEABLE_MEMORY_ACCESS (an H100 has 0; the
	 * "cliques" boot of tools/check turns it on), then a non-zero length
	 * of mapped memory. Without it driver 580 answers INVALID_VALUE for
	 * any flags, length and alignment.
	 */
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&pageable,
			CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
	if (!pageable) {
		static const unsigned int fl[] = { CU_MEM_ATTACH_SINGLE,
						   CU_MEM_ATTACH_GLOBAL };
		static const size_t len[] = { 0, PG };
		uintptr_t base = ((uintptr_t)heap + PG - 1) & ~(PG - 1);
		unsigned int f, l, o;

		for (f = 0; f < ARRAY_SIZE(fl); f++)
			for (l = 0; l < ARRAY_SIZE(len); l++)
				for (o = 0; o < 2; o++)
					EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
						  cuStreamAttachMemAsync(s,
							base + o * 8,
							len[l], fl[f]))
						TH_LOG("flags %u length %zu offset %u",
						       fl[f], len[l], o * 8);
	} else {
		EXPECT_CU(CUDA_SUCCESS,
			  cuStreamAttachMemAsync(s, (uintptr_t)heap, PG,
						 CU_MEM_ATTACH_SINGLE));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuStreamAttachMemAsync(s, (uintptr_t)heap, 0,
						 CU_MEM_ATTACH_GLOBAL));
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuStreamAttachMemAsync(s, PG, PG,
						 CU_MEM_ATTACH_GLOBAL));
	}
	EXPECT_CU(CUDA_ERROR_INVALID_HANDLE,
		  cuStreamAttachMemAsync((CUstream)0x4321, d, 0,
					 CU_MEM_ATTACH_GLOBAL));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	/* the memory stays valid and keeps its data */
	memset((void *)(uintptr_t)d, 0x5e, 2 * PG);
	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_EQ(0x5e, ((unsigned char *)(uintptr_t)d)[2 * PG - 1]);
	free(heap);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(dev));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(host));
}

TEST(attach_not_initialized)
{
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuStreamAttachMemAsync(NULL, PG, 0, CU_MEM_ATTACH_GLOBAL));
}

/* cuCtxDestroy frees what cuMemAllocManaged made in the context. */
TEST(ctx_destroy_frees)
{
	long long before;
	CUdeviceptr d;
	CUcontext c;
	int managed;

	INIT_OR_SKIP();
	before = live_objects();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&c, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&d, 8 * PG, CU_MEM_ATTACH_GLOBAL));
	memset((void *)(uintptr_t)d, 1, 8 * PG);
	ASSERT_CU(CUDA_SUCCESS, cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_READ_MOSTLY,
					    loc(CU_MEM_LOCATION_TYPE_HOST, 0)));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(c));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&c, NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuPointerGetAttribute(&managed,
			CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(c));
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
}

/* kill -9 with managed memory, advice and prefetched pages leaks nothing. */
TEST(kill_9)
{
	long long before = live_objects();
	int status, ready[2];
	pid_t pid;
	char c;

	INIT_OR_SKIP();
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CUcontext ctx;
		CUdeviceptr d;

		if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
		    cuMemAllocManaged(&d, 16 * PG, CU_MEM_ATTACH_HOST))
			_exit(1);
		memset((void *)(uintptr_t)d, 7, 16 * PG);
		if (cuMemAdvise(d + PG, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				loc(CU_MEM_LOCATION_TYPE_DEVICE, 0)) ||
		    cuMemPrefetchAsync(d, 16 * PG,
				       loc(CU_MEM_LOCATION_TYPE_DEVICE, 0), 0,
				       NULL))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		pause();
		_exit(4);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* ---- raw ioctls: where pages live, and fail-nth ---- */

static int m_alloc(int fd, __u32 attach, __u64 len, __u64 *addr)
{
	struct cufab_mem_alloc a = {
		.size = sizeof(a), .flags = CUFAB_MEM_ALLOC_MANAGED,
		.attach = attach, .length = len,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a);

	*addr = a.out_addr;
	return ret;
}

static int m_free(int fd, __u64 addr)
{
	struct cufab_mem_free f = { .size = sizeof(f), .addr = addr };

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_FREE, &f);
}

static int m_prefetch(int fd, __u64 addr, __u64 len, __u32 type, __s32 id)
{
	struct cufab_mem_prefetch p = {
		.size = sizeof(p), .addr = addr, .length = len,
		.location_type = type, .location_id = id,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_PREFETCH, &p);
}

static int m_advise(int fd, __u64 addr, __u64 len, __u32 advice, __u32 type,
		    __s32 id)
{
	struct cufab_mem_advise a = {
		.size = sizeof(a), .advice = advice, .addr = addr,
		.length = len, .location_type = type, .location_id = id,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_ADVISE, &a);
}

/* Pages of the range with memory, and those on @node. */
static int m_resident(int fd, __u64 addr, __u64 len, int node, __u64 *all,
		      __u64 *on)
{
	struct cufab_mem_range_attrs r = {
		.size = sizeof(r), .addr = addr, .length = len, .node = node,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_RANGE_ATTRS, &r);

	*all = r.out_resident;
	*on = r.out_resident_on_node;
	return ret;
}

static int raw_stream(int fd, __u32 ctx, __u32 *id, __u64 *uid)
{
	struct cufab_stream_create c = {
		.size = sizeof(c), .flags = CUFAB_STREAM_NON_BLOCKING,
		.ctx_id = ctx,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &c);

	*id = c.out_stream_id;
	*uid = c.out_uid;
	return ret;
}

static int raw_attach(int fd, __u32 stream, __u64 addr, __u64 len,
		      __u32 flags)
{
	struct cufab_stream_submit c = {
		.size = sizeof(c), .stream_id = stream, .op = CUFAB_OP_ATTACH,
		.dst = addr, .length = len, .value = flags,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c);
}

static int raw_prefetch(int fd, __u32 stream, __u64 addr, __u64 len,
			__u32 type, __s32 id)
{
	struct cufab_stream_submit c = {
		.size = sizeof(c), .stream_id = stream,
		.op = CUFAB_OP_PREFETCH, .dst = addr, .length = len,
		.value = type, .elem_size = (__u32)id,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c);
}

static int raw_sync(int fd, __u32 stream)
{
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_STREAM, .id = stream,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w);
}

static int m_attach_now(int fd, __u64 addr, __u64 *uid)
{
	struct cufab_mem_range_attrs r = {
		.size = sizeof(r), .addr = addr, .length = 1, .node = -1,
	};

	if (cufab_ioc(fd, CUFAB_IOCTL_MEM_RANGE_ATTRS, &r))
		return -1;
	*uid = r.out_attach_stream;
	return r.out_attach;
}

/*
 * The association changes when the stream reaches the operation, and
 * goes back to the default once the stream is destroyed and drained.
 */
TEST(uapi_attach_lifetime)
{
	__u64 d, uid, now;
	__u32 ctx, st;
	int fd, i;

	OPEN_OR_SKIP(fd);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &ctx));
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_HOST, 2 * PG, &d));
	EXPECT_EQ(CUFAB_ATTACH_HOST, m_attach_now(fd, d, &now));
	ASSERT_EQ(0, raw_stream(fd, ctx, &st, &uid));
	EXPECT_EQ(0, raw_attach(fd, st, d, 0, CUFAB_ATTACH_SINGLE));
	EXPECT_EQ(0, raw_sync(fd, st));
	EXPECT_EQ(CUFAB_ATTACH_SINGLE, m_attach_now(fd, d, &now));
	EXPECT_EQ(uid, now);
	EXPECT_EQ(0, raw_attach(fd, st, d, 2 * PG, CUFAB_ATTACH_GLOBAL));
	EXPECT_EQ(0, raw_sync(fd, st));
	EXPECT_EQ(CUFAB_ATTACH_GLOBAL, m_attach_now(fd, d, &now));
	EXPECT_EQ(0ULL, now);
	EXPECT_EQ(0, raw_attach(fd, st, d, 0, CUFAB_ATTACH_SINGLE));
	EXPECT_EQ(0, raw_sync(fd, st));
	/* the other fields of the operation must be zero */
	{
		struct cufab_stream_submit c = {
			.size = sizeof(c), .stream_id = st,
			.op = CUFAB_OP_ATTACH, .dst = d,
			.value = CUFAB_ATTACH_GLOBAL, .src = 1,
			.src_dev = CUFAB_DEV_STREAM,
			.dst_dev = CUFAB_DEV_STREAM,
		};

		EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c));
	}
	EXPECT_EQ(EINVAL, raw_attach(fd, st, d, 0, 0));
	EXPECT_EQ(EINVAL, raw_attach(fd, st, d + PG, 0, CUFAB_ATTACH_GLOBAL));
	EXPECT_EQ(0, destroy(fd, st));
	/* the engine drops its last reference on the stream shortly after */
	for (i = 0; i < 200 && m_attach_now(fd, d, &now) != CUFAB_ATTACH_HOST; i++)
		usleep(10000);
	EXPECT_EQ(CUFAB_ATTACH_HOST, m_attach_now(fd, d, &now));
	EXPECT_EQ(0ULL, now);
	EXPECT_EQ(0, m_free(fd, d));
	close(fd);
}

/* A HOST operation on @stream: it holds the stream until taken and done. */
static int raw_hold(int fd, __u32 stream)
{
	struct cufab_stream_submit c = {
		.size = sizeof(c), .stream_id = stream, .op = CUFAB_OP_HOST,
		.host_fn = 1, .src_dev = CUFAB_DEV_STREAM,
		.dst_dev = CUFAB_DEV_STREAM,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c);
}

/* Play the host thread: the next host operation's token (it sleeps for one). */
static __u64 raw_host_take(int fd)
{
	struct cufab_hostfn h = { .size = sizeof(h) };

	return cufab_ioc(fd, CUFAB_IOCTL_HOSTFN, &h) ? 0 : h.out_token;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Report host operation @token done. HOSTFN then sleeps for the next
 * one; a signal ends that sleep with "no operation" (out_token 0), so an
 * interval timer interrupts it (without SA_RESTART).
 */
static int raw_host_done(int fd, __u64 token)
{
	struct cufab_hostfn h = {
		.size = sizeof(h), .flags = CUFAB_HOSTFN_DONE,
		.done_token = token,
	};
	struct itimerval on = { { 0, 20000 }, { 0, 20000 } }, off = {};
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	int ret;

	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &on, NULL);
	ret = cufab_ioc(fd, CUFAB_IOCTL_HOSTFN, &h);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return ret ?: (h.out_token ? -1 : 0);
}

/* Play the host thread for the one host operation queued: run it. */
static int raw_host_run(int fd)
{
	__u64 tok = raw_host_take(fd);

	return tok ? raw_host_done(fd, tok) : -1;
}

/*
 * The association changes only when the stream reaches the attach, and a
 * destroyed stream's SINGLE memory stays SINGLE until its work drained:
 * a host operation nobody has completed yet holds the stream.
 */
TEST(uapi_attach_in_stream_order)
{
	__u64 d, uid, now, tok;
	__u32 ctx, st;
	int fd, i;

	OPEN_OR_SKIP(fd);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &ctx));
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_HOST, PG, &d));
	ASSERT_EQ(0, raw_stream(fd, ctx, &st, &uid));
	ASSERT_EQ(0, raw_hold(fd, st));
	ASSERT_EQ(0, raw_attach(fd, st, d, 0, CUFAB_ATTACH_SINGLE));
	tok = raw_host_take(fd);
	ASSERT_NE(0ULL, tok);
	/* the stream is held before the attach: nothing changed */
	EXPECT_EQ(CUFAB_ATTACH_HOST, m_attach_now(fd, d, &now));
	ASSERT_EQ(0, raw_host_done(fd, tok));
	EXPECT_EQ(0, raw_sync(fd, st));
	EXPECT_EQ(CUFAB_ATTACH_SINGLE, m_attach_now(fd, d, &now));
	EXPECT_EQ(uid, now);

	/* destroyed with work left: still attached until it drains */
	ASSERT_EQ(0, raw_hold(fd, st));
	ASSERT_EQ(0, destroy(fd, st));
	EXPECT_EQ(CUFAB_ATTACH_SINGLE, m_attach_now(fd, d, &now));
	tok = raw_host_take(fd);
	ASSERT_NE(0ULL, tok);
	EXPECT_EQ(CUFAB_ATTACH_SINGLE, m_attach_now(fd, d, &now));
	ASSERT_EQ(0, raw_host_done(fd, tok));
	/* the engine drops its last reference on the stream shortly after */
	for (i = 0; i < 200 && m_attach_now(fd, d, &now) != CUFAB_ATTACH_HOST; i++)
		usleep(10000);
	EXPECT_EQ(CUFAB_ATTACH_HOST, m_attach_now(fd, d, &now));
	EXPECT_EQ(0ULL, now);
	EXPECT_EQ(0, m_free(fd, d));
	close(fd);
}

static int raw_stream_flags(int fd, __u32 ctx, __u32 flags, __u32 *id)
{
	struct cufab_stream_create c = {
		.size = sizeof(c), .flags = flags, .ctx_id = ctx,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &c);

	*id = c.out_stream_id;
	return ret;
}

/* raw_attach() of a whole allocation; *@seq: the operation's number. */
static int raw_attach_seq(int fd, __u32 stream, __u64 addr, __u32 flags,
			  __u64 *seq)
{
	struct cufab_stream_submit c = {
		.size = sizeof(c), .stream_id = stream, .op = CUFAB_OP_ATTACH,
		.dst = addr, .value = flags,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
		.out_seq = ~0ULL,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c);

	*seq = c.out_seq;
	return ret;
}

/*
 * An attach that would change nothing, on an idle stream with nothing to
 * wait for, is settled at submission: no operation, the stream's last
 * sequence number. Another association, a busy stream, or a blocking
 * stream behind busy legacy work, is an operation in stream order.
 */
TEST(uapi_attach_settled)
{
	__u64 d, e, uid, now, seq, seq2;
	__u32 ctx, a, b, legacy, blk;
	int fd;

	OPEN_OR_SKIP(fd);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &ctx));
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_GLOBAL, PG, &d));
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_GLOBAL, PG, &e));
	ASSERT_EQ(0, raw_stream(fd, ctx, &a, &uid));
	ASSERT_EQ(0, raw_stream(fd, ctx, &b, &now));

	/* a change is an operation; the same again is settled */
	ASSERT_EQ(0, raw_attach_seq(fd, a, d, CUFAB_ATTACH_SINGLE, &seq));
	EXPECT_EQ(1ULL, seq);
	EXPECT_EQ(0, raw_sync(fd, a));
	ASSERT_EQ(0, raw_attach_seq(fd, a, d, CUFAB_ATTACH_SINGLE, &seq));
	EXPECT_EQ(1ULL, seq);
	EXPECT_EQ(CUFAB_ATTACH_SINGLE, m_attach_now(fd, d, &now));
	EXPECT_EQ(uid, now);
	/* SINGLE to another stream is a change */
	ASSERT_EQ(0, raw_attach_seq(fd, b, d, CUFAB_ATTACH_SINGLE, &seq));
	EXPECT_EQ(1ULL, seq);
	EXPECT_EQ(0, raw_sync(fd, b));
	ASSERT_NE(0, m_attach_now(fd, d, &now));
	EXPECT_NE(uid, now);
	ASSERT_EQ(0, raw_attach_seq(fd, a, d, CUFAB_ATTACH_SINGLE, &seq));
	EXPECT_EQ(2ULL, seq);
	EXPECT_EQ(0, raw_sync(fd, a));
	EXPECT_EQ(CUFAB_ATTACH_SINGLE, m_attach_now(fd, d, &now));
	EXPECT_EQ(uid, now);
	/* GLOBAL is the same from any stream */
	ASSERT_EQ(0, raw_attach_seq(fd, b, e, CUFAB_ATTACH_GLOBAL, &seq));
	EXPECT_EQ(1ULL, seq);

	/* a busy stream: in stream order, behind the held operation */
	ASSERT_EQ(0, raw_hold(fd, a));
	ASSERT_EQ(0, raw_attach_seq(fd, a, d, CUFAB_ATTACH_SINGLE, &seq));
	EXPECT_EQ(4ULL, seq);
	ASSERT_EQ(0, raw_host_run(fd));
	EXPECT_EQ(0, raw_sync(fd, a));

	/* a blocking stream waits for busy legacy work, settled or not */
	ASSERT_EQ(0, raw_stream_flags(fd, ctx, CUFAB_STREAM_LEGACY, &legacy));
	ASSERT_EQ(0, raw_stream_flags(fd, ctx, 0, &blk));
	ASSERT_EQ(0, raw_hold(fd, legacy));
	ASSERT_EQ(0, raw_attach_seq(fd, blk, e, CUFAB_ATTACH_GLOBAL, &seq));
	EXPECT_EQ(1ULL, seq);
	/* the non-blocking stream does not */
	ASSERT_EQ(0, raw_attach_seq(fd, b, e, CUFAB_ATTACH_GLOBAL, &seq2));
	EXPECT_EQ(1ULL, seq2);
	ASSERT_EQ(0, raw_host_run(fd));
	EXPECT_EQ(0, raw_sync(fd, blk));
	ASSERT_EQ(0, raw_attach_seq(fd, blk, e, CUFAB_ATTACH_GLOBAL, &seq));
	EXPECT_EQ(1ULL, seq);
	/* nor does the legacy stream wait for an idle blocking stream */
	ASSERT_EQ(0, raw_attach_seq(fd, legacy, e, CUFAB_ATTACH_GLOBAL, &seq));
	EXPECT_EQ(1ULL, seq);

	/* what is refused stays refused: a freed allocation, a bad length */
	EXPECT_EQ(EINVAL, raw_attach(fd, a, d, 2 * PG, CUFAB_ATTACH_SINGLE));
	EXPECT_EQ(0, m_free(fd, e));
	EXPECT_EQ(EINVAL, raw_attach(fd, b, e, 0, CUFAB_ATTACH_GLOBAL));
	EXPECT_EQ(0, destroy(fd, a));
	EXPECT_EQ(0, destroy(fd, b));
	EXPECT_EQ(0, destroy(fd, blk));
	EXPECT_EQ(0, destroy(fd, legacy));
	EXPECT_EQ(0, m_free(fd, d));
	close(fd);
}

/* Settled and queued attaches racing the destroy of their stream. */
static void *attach_loop(void *p)
{
	struct racer *r = p;
	__u64 d;
	int ret;

	ret = m_alloc(r->fd, CUFAB_ATTACH_GLOBAL, PG, &d);
	if (ret) {
		r->other = ret;
		return NULL;
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		ret = raw_attach(r->fd, r->stream, d, 0, CUFAB_ATTACH_SINGLE);
		if (ret && ret != ENOENT && !r->other)
			r->other = ret;
		if (ret == ENOENT)
			break;
	}
	ret = m_free(r->fd, d);
	if (ret && !r->other)
		r->other = ret;
	return NULL;
}

TEST(uapi_attach_race_with_destroy)
{
	long long before = live_objects();

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	EXPECT_EQ(0, stream_destroy_race(CUFAB_STREAM_NON_BLOCKING,
					 attach_loop));
	EXPECT_EQ(0, stream_destroy_race(0, attach_loop));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* CUFAB_OP_PREFETCH: checked when submitted, recorded when reached. */
TEST(uapi_prefetch_op)
{
	struct cufab_mem_range_attrs r = {
		.size = sizeof(r), .length = PG, .node = -1,
	};
	__u64 d, uid;
	__u32 ctx, st;
	int fd;

	OPEN_OR_SKIP(fd);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &ctx));
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_GLOBAL, 2 * PG, &d));
	ASSERT_EQ(0, raw_stream(fd, ctx, &st, &uid));
	EXPECT_EQ(0, raw_prefetch(fd, st, d + PG, PG, CUFAB_LOC_HOST_NUMA, 0));
	EXPECT_EQ(0, raw_sync(fd, st));
	r.addr = d + PG;
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_RANGE_ATTRS, &r));
	EXPECT_EQ((__u32)CUFAB_LOC_HOST_NUMA, r.out_prefetch_type);
	EXPECT_EQ(0, r.out_prefetch_id);
	r.addr = d;
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_RANGE_ATTRS, &r));
	EXPECT_EQ(0U, r.out_prefetch_type);
	/* the range, the location and the other fields */
	EXPECT_EQ(EINVAL, raw_prefetch(fd, st, d, 3 * PG, CUFAB_LOC_HOST, 0));
	EXPECT_EQ(EINVAL, raw_prefetch(fd, st, d, 0, CUFAB_LOC_HOST, 0));
	EXPECT_EQ(EINVAL, raw_prefetch(fd, st, d, PG, 0, 0));
	EXPECT_EQ(EINVAL, raw_prefetch(fd, st, d, PG, CUFAB_LOC_HOST_NUMA,
				       1 << 20));
	EXPECT_EQ(ENODEV, raw_prefetch(fd, st, d, PG, CUFAB_LOC_DEVICE, 1000));
	{
		struct cufab_stream_submit c = {
			.size = sizeof(c), .stream_id = st,
			.op = CUFAB_OP_PREFETCH, .dst = d, .length = PG,
			.value = CUFAB_LOC_HOST, .src = 1,
			.src_dev = CUFAB_DEV_STREAM,
			.dst_dev = CUFAB_DEV_STREAM,
		};

		EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c));
		c.src = 0;
		c.dst_dev = 0;
		EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c));
	}
	/* freed before the stream reaches it: nothing to move, no error */
	EXPECT_EQ(0, raw_prefetch(fd, st, d, 2 * PG, CUFAB_LOC_HOST, 0));
	EXPECT_EQ(0, m_free(fd, d));
	{
		struct cufab_stream_wait w = {
			.size = sizeof(w), .what = CUFAB_WAIT_STREAM, .id = st,
		};

		EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w));
		EXPECT_EQ(0, w.out_error);
	}
	EXPECT_EQ(0, destroy(fd, st));
	close(fd);
}

#define MEMCG_SPAN	(64UL << 20)

/* In the cgroup of @dir: prefetch 64 MiB in stream order. */
static int memcg_prefetch_child(const char *dir, volatile int *gate)
{
	__u64 d, uid, all, on;
	__u32 ctx, st;
	int fd;

	if (cg_join(dir))
		return 10;
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ctx_create(fd, 0, 0, &ctx) ||
	    m_alloc(fd, CUFAB_ATTACH_GLOBAL, MEMCG_SPAN, &d) ||
	    raw_stream(fd, ctx, &st, &uid))
		return 11;
	cg_gate_arm(gate);
	if (raw_prefetch(fd, st, d, MEMCG_SPAN, CUFAB_LOC_HOST, 0) ||
	    raw_sync(fd, st))
		return 12;
	cg_gate_wait(gate);
	if (m_resident(fd, d, MEMCG_SPAN, -1, &all, &on))
		return 13;
	/* the cgroup's limit held the prefetch back: its pages were charged */
	return all < MEMCG_SPAN / PG ? 0 : 14;
}

/*
 * In the cgroup of @dir: a stream-ordered set of 64 MiB of managed memory
 * fails for want of memory instead of populating it uncharged.
 */
static int memcg_set_child(const char *dir, volatile int *gate)
{
	struct cufab_stream_wait w = { .size = sizeof(w),
				       .what = CUFAB_WAIT_STREAM };
	struct cufab_stream_submit c = {
		.size = sizeof(c), .op = CUFAB_OP_SET, .length = MEMCG_SPAN,
		.value = 1, .elem_size = 1, .src_dev = CUFAB_DEV_STREAM,
		.dst_dev = CUFAB_DEV_STREAM,
	};
	__u64 d, uid;
	__u32 ctx, st;
	int fd;

	if (cg_join(dir))
		return 10;
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ctx_create(fd, 0, 0, &ctx) ||
	    m_alloc(fd, CUFAB_ATTACH_GLOBAL, MEMCG_SPAN, &d) ||
	    raw_stream(fd, ctx, &st, &uid))
		return 11;
	c.stream_id = st;
	c.dst = d;
	w.id = st;
	cg_gate_arm(gate);
	if (cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c) ||
	    cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w))
		return 12;
	cg_gate_wait(gate);
	return w.out_error == -ENOMEM ? 0 : 13;
}

/*
 * The engine populates a prefetch's pages, and a set's, for the process:
 * they count against its memory cgroup, as if it had touched them (a
 * prefetch is a hint: what does not fit is skipped; a set fails with
 * ENOMEM; nobody is OOM-killed). Each child then waits at a gate while
 * its cgroup's limit is lifted: a cgroup left full OOM-kills whatever it
 * charges next.
 */
TEST(stream_ops_charged_to_memcg)
{
	volatile int *gate = cg_gate_make();
	char dir[128];
	int fd, status;
	pid_t pid;

	OPEN_OR_SKIP(fd);
	close(fd);
	ASSERT_NE(NULL, gate);
	if (cg_make(dir, sizeof(dir), "cufab_managed"))
		SKIP(return, "no cgroup v2 memory controller");
	cg_write(dir, "memory.swap.max", "0");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(memcg_prefetch_child(dir, gate));
	cg_gate_open(gate, dir, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* so are the pages a stream's set populates */
	ASSERT_EQ(0, cg_write(dir, "memory.max", "16M"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(memcg_set_child(dir, gate));
	cg_gate_open(gate, dir, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("13: the set was not held back");
	rmdir(dir);
}

TEST(uapi_alloc_rules)
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = PG };
	__u64 d;
	int fd;

	OPEN_OR_SKIP(fd);
	a.flags = CUFAB_MEM_ALLOC_MANAGED | CUFAB_MEM_ALLOC_HOST;
	a.attach = CUFAB_ATTACH_GLOBAL;
	EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	a.flags = 0;
	EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	a.flags = CUFAB_MEM_ALLOC_HOST;
	EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	EXPECT_EQ(EINVAL, m_alloc(fd, 0, PG, &d));
	EXPECT_EQ(EINVAL, m_alloc(fd, CUFAB_ATTACH_SINGLE, PG, &d));
	EXPECT_EQ(0, m_alloc(fd, CUFAB_ATTACH_HOST, PG, &d));
	/* MEM_FREE of host memory does not free managed memory */
	{
		struct cufab_mem_free f = { .size = sizeof(f),
					    .flags = CUFAB_MEM_ALLOC_HOST,
					    .addr = d };

		EXPECT_EQ(EINVAL, cufab_ioc(fd, CUFAB_IOCTL_MEM_FREE, &f));
	}
	EXPECT_EQ(0, m_free(fd, d));
	EXPECT_EQ(EINVAL, m_advise(fd, PG, PG, CUFAB_ADVISE_SET_READ_MOSTLY, 0, 0));
	close(fd);
}

static int node_online(int node)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	return access(path, F_OK) == 0;
}

/*
 * A prefetch to a NUMA node moves the pages there with their data; a
 * preferred location decides where pages populated later go.
 */
TEST(prefetch_moves_pages)
{
	unsigned char *p;
	__u64 d, all, on, i, n = 8;
	int fd;

	OPEN_OR_SKIP(fd);
	if (!node_online(1)) {
		close(fd);
		SKIP(return, "one NUMA node (tools/vm/run --numa 2)");
	}
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_GLOBAL, n * PG, &d));
	p = (unsigned char *)(uintptr_t)d;
	for (i = 0; i < n * PG; i += PG)
		p[i] = (unsigned char)(i / PG + 1);
	ASSERT_EQ(0, m_resident(fd, d, n * PG, 1, &all, &on));
	EXPECT_EQ(n, all);

	ASSERT_EQ(0, m_prefetch(fd, d, n * PG, CUFAB_LOC_HOST_NUMA, 1));
	ASSERT_EQ(0, m_resident(fd, d, n * PG, 1, &all, &on));
	EXPECT_EQ(n, on);
	for (i = 0; i < n * PG; i += PG)
		EXPECT_EQ((unsigned char)(i / PG + 1), p[i]);
	ASSERT_EQ(0, m_prefetch(fd, d, 2 * PG, CUFAB_LOC_HOST_NUMA, 0));
	ASSERT_EQ(0, m_resident(fd, d, n * PG, 0, &all, &on));
	EXPECT_EQ(2ULL, on);
	EXPECT_EQ(1, p[0]);
	EXPECT_EQ(2, p[PG]);
	EXPECT_EQ(0, m_free(fd, d));

	/* first touch follows the preferred location */
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_GLOBAL, n * PG, &d));
	ASSERT_EQ(0, m_advise(fd, d, n * PG, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
			      CUFAB_LOC_HOST_NUMA, 1));
	memset((void *)(uintptr_t)d, 9, n * PG);
	ASSERT_EQ(0, m_resident(fd, d, n * PG, 1, &all, &on));
	EXPECT_EQ(n, all);
	EXPECT_EQ(n, on);
	EXPECT_EQ(0, m_free(fd, d));
	close(fd);
}

#define RACE_LEN	(8UL << 20)

/* The first page of @p whose last byte is not @v yet, or @n. */
static __u64 copy_frontier(const volatile unsigned char *p, __u64 from,
			   __u64 n, unsigned char v)
{
	while (from < n && p[(from + 1) * PG - 1] == v)
		from++;
	return from;
}

static volatile int hogs_stop;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Compete with the engine's worker for the CPUs. */
static void *hog(void *unused)
{
	while (!hogs_stop)
		;
	return NULL;
}

/*
 * A prefetch moves pages a stream's copy is writing: what the copy writes
 * must land in the page that stays, never in one the move let go.
 *
 * The copy takes its destination pages 16 at a time and writes them one
 * by one, yielding the CPU between pages. Two busy threads make the
 * engine's worker lose the CPU often, in the middle of such a batch;
 * meanwhile the test, at real-time priority, finds where the copy is (the
 * first page not written yet, read from the CPU) and prefetches that page
 * and the next 15 to the other node, again and again until the copy is
 * done. Afterwards every byte holds the copy's value.
 */
TEST(prefetch_keeps_a_copys_writes)
{
	struct cufab_stream_submit c = {
		.size = sizeof(c), .op = CUFAB_OP_COPY, .length = RACE_LEN,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_STREAM,
		.flags = CUFAB_WAIT_POLL,
	};
	__u64 d, uid, i, at, lost, n = RACE_LEN / PG, moves = 0;
	struct sched_param fifo = { .sched_priority = 1 };
	struct sched_param other = { .sched_priority = 0 };
	unsigned char *src, *dst, v;
	int fd, round, node = 0;
	pthread_t hogs[2];
	long long t0;
	__u32 ctx, st;

	OPEN_OR_SKIP(fd);
	if (!node_online(1)) {
		close(fd);
		SKIP(return, "one NUMA node (tools/vm/run --numa 2)");
	}
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &ctx));
	ASSERT_EQ(0, raw_stream(fd, ctx, &st, &uid));
	ASSERT_EQ(0, m_alloc(fd, CUFAB_ATTACH_GLOBAL, RACE_LEN, &d));
	src = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, src);
	dst = (unsigned char *)(uintptr_t)d;
	c.stream_id = st;
	c.dst = d;
	c.src = (uintptr_t)src;
	w.id = st;
	hogs_stop = 0;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&hogs[i], NULL, hog, NULL));
	/* without the privilege the race is met less often, still checked */
	sched_setscheduler(0, SCHED_FIFO, &fifo);
	for (round = 1; round <= 3; round++) {
		v = (unsigned char)(0x10 * round);
		memset(src, v, RACE_LEN);
		memset(dst, 0, RACE_LEN);
		ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &c));
		at = 0;
		t0 = now_ms();
		while (cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w) == EAGAIN) {
			/* bounded: a slow machine checks less, never hangs */
			if (now_ms() - t0 > 2000) {
				w.flags = 0;
				ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT,
						       &w));
				w.flags = CUFAB_WAIT_POLL;
				break;
			}
			at = copy_frontier(dst, at, n, v);
			if (at >= n)
				continue;
			node ^= 1;
			ASSERT_EQ(0, m_prefetch(fd, d + at * PG,
						(n - at < 16 ? n - at : 16) * PG,
						CUFAB_LOC_HOST_NUMA, node));
			moves++;
		}
		EXPECT_EQ(0, w.out_error);
		for (i = 0, lost = 0; i < RACE_LEN; i++)
			lost += dst[i] != v;
		EXPECT_EQ(0ULL, lost) TH_LOG("round %d: %llu bytes of the copy lost",
					     round, (unsigned long long)lost);
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	hogs_stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(hogs[i], NULL);
	TH_LOG("%llu prefetches met the copy", (unsigned long long)moves);
	munmap(src, RACE_LEN);
	EXPECT_EQ(0, m_free(fd, d));
	close(fd);
}

/*
 * Every allocation of managed memory, advice, prefetch, attribute query
 * and stream attach failed in turn: each step fails cleanly or succeeds,
 * nothing leaks. Like a real program, the scenario frees its allocation
 * whatever failed after it: an allocation left mapped stays alive with the
 * process (its mapping holds the client), which is no leak. *@step names
 * the step that failed. Nothing is touched from user space meanwhile.
 */
static int managed_scenario(const char **step)
{
	__u64 d, all, on, uid;
	__u32 ctx, st;
	int fd, err, i;

	*step = "open";
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	*step = "alloc";
	err = m_alloc(fd, CUFAB_ATTACH_GLOBAL, 8 * PG, &d);
	if (err)
		goto out;
	/* enough distinct segments to grow the advice array */
	*step = "advise";
	for (i = 0; i < 8 && !err; i += 2)
		err = m_advise(fd, d + i * PG, PG,
			       CUFAB_ADVISE_SET_READ_MOSTLY, 0, 0);
	if (!err) {
		*step = "prefetch";
		err = m_prefetch(fd, d, 8 * PG, CUFAB_LOC_HOST_NUMA, 0);
	}
	if (!err) {
		*step = "range attributes";
		err = m_resident(fd, d, 8 * PG, 0, &all, &on);
	}
	if (!err) {
		*step = "context";
		err = ctx_create(fd, 0, 0, &ctx);
	}
	if (!err) {
		*step = "stream";
		err = raw_stream(fd, ctx, &st, &uid);
	}
	if (!err) {
		*step = "attach";
		err = raw_attach(fd, st, d, 0, CUFAB_ATTACH_SINGLE);
	}
	if (!err) {
		*step = "prefetch op";
		err = raw_prefetch(fd, st, d, 8 * PG, CUFAB_LOC_HOST, 0);
	}
	if (!err) {
		*step = "sync";
		err = raw_sync(fd, st);
	}
	if (!err) {
		/* idle, and attached so already: settled at submission */
		*step = "attach again";
		err = raw_attach(fd, st, d, 0, CUFAB_ATTACH_SINGLE);
	}
	i = m_free(fd, d);
	/* its mapping holds the file: free it for real when the fault was the free's */
	if (i == ENOMEM)
		m_free(fd, d);
	if (!err && i)
		*step = "free";
	err = err ?: i;
out:
	close(fd);
	return err;
}

FIXTURE(nth) {
	int unused;
};

FIXTURE_SETUP(nth)
{
}

FIXTURE_TEARDOWN(nth)
{
}

/*
 * The engine lets go of a closed client's streams shortly after: the
 * sweep waits for live objects to settle.
 */
TEST_FAIL_NTH(nth, fail_nth)
{
	const char *step;

	nth->min_injected = 4;
	return managed_scenario(&step);
}

TEST_HARNESS_MAIN
