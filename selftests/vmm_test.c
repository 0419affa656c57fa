// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual memory management through libcufab: cuMemCreate and its
 * handles, granularity, address reservations, mappings with real CPU
 * mappings, access, capacity and cuMemGetInfo, lifetimes, and sharing
 * between processes over a unix socket (POSIX fd and FABRIC handles with
 * IMEX channels).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <linux/cufab.h>

#include "ctl_helpers.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

#define IMEX_DIR	"/dev/cufab-imex-channels"
#define NOBODY		65534

/* Every VMM call refuses to work before cuInit. */
TEST(not_initialized)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;
	CUmemAccessDesc d = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
			      CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	unsigned long long f;
	CUdeviceptr va;
	size_t g, fr, tot;
	int fd;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemCreate(&h, 2 << 20, &p, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemRelease(1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemRetainAllocationHandle(&h, &g));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemGetAllocationPropertiesFromHandle(&p, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemAddressReserve(&va, 2 << 20, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemAddressFree(1 << 21, 2 << 20));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemMap(1 << 21, 2 << 20, 0, 1, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemUnmap(1 << 21, 2 << 20));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemSetAccess(1 << 21, 2 << 20, &d, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemGetAccess(&f, &d.location, 1 << 21));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuMemGetInfo(&fr, &tot));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemExportToShareableHandle(&fd, 1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)0,
						 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
}

TEST(granularity)
{
	CUmemAllocationProp p;
	size_t min = 0, rec = 0;
	int dev;

	INIT_OR_SKIP();
	for (dev = 0; dev < num_devices(); dev++) {
		p = dev_prop(dev, 0);
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&min, &p,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM));
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&rec, &p,
				CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
		/* Callers assert powers of two; the default is 2 MiB. */
		EXPECT_NE(0, min);
		EXPECT_EQ(0, min & (min - 1));
		EXPECT_EQ(0, min % sysconf(_SC_PAGESIZE));
		EXPECT_LE(min, rec);
		EXPECT_EQ(0, rec % min);
	}
	p = dev_prop(0, 0);
	p.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	EXPECT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&min, &p,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	EXPECT_EQ(gran(0), min);

	p = dev_prop(0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(NULL, &p,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(&min, NULL,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(&min, &p,
			(CUmemAllocationGranularity_flags)2));
	p.location.id = num_devices();
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(&min, &p,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	p = dev_prop(0, 0);
	p.location.type = CU_MEM_LOCATION_TYPE_INVALID;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationGranularity(&min, &p,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
}

/* No context is needed for VMM calls; released handles are invalid. */
TEST(create_release)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h = 0, h2 = 0, h3 = 0;
	CUcontext cur = (CUcontext)1;
	size_t g;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	ASSERT_EQ(NULL, cur);
	g = gran(0);
	ASSERT_NE(0, g);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, g, &p, 0));
	EXPECT_NE(0, h);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h2, 4 * g, &p, 0));
	EXPECT_NE(h, h2);
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h));
	/* a released handle never names a later allocation */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h3, g, &p, 0));
	EXPECT_NE(h, h3);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h3));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(~0ULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(0x7fffffff));
}

TEST(create_errors)
{
	CUmemGenericAllocationHandle h;
	CUmemAllocationProp p;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_NE(0, g);
	p = dev_prop(0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(NULL, g, &p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, 0, &p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g / 2, &p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g + 4096, &p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 1ULL << 40));
	/* A size no GPU can hold, granularity-aligned: out of memory. */
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemCreate(&h, (SIZE_MAX / 2) & ~(g - 1), &p, 0));

	p.type = CU_MEM_ALLOCATION_TYPE_INVALID;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p.type = CU_MEM_ALLOCATION_TYPE_MANAGED;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMemCreate(&h, g, &p, 0));

	p = dev_prop(num_devices(), 0);
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemCreate(&h, g, &p, 0));
	p = dev_prop(-1, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemCreate(&h, g, &p, 0));
	p = dev_prop(0, 0);
	p.location.type = CU_MEM_LOCATION_TYPE_INVALID;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p.location.type = (CUmemLocationType)77;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));

	/* Windows handle types and unknown bits. */
	p = dev_prop(0, CU_MEM_HANDLE_TYPE_WIN32);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p = dev_prop(0, 0x10);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p = dev_prop(0, 0);
	p.win32HandleMetaData = &p;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));

	p = dev_prop(0, 0);
	p.allocFlags.reserved[3] = 1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p = dev_prop(0, 0);
	p.allocFlags.usage = 0x100;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMemCreate(&h, g, &p, 0));
	p = dev_prop(0, 0);
	p.allocFlags.compressionType = 7;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMemCreate(&h, g, &p, 0));
}

TEST(properties_from_handle)
{
	int dev = num_devices() > 1 ? 1 : 0;
	CUmemAllocationProp p, q;
	CUmemGenericAllocationHandle h;
	size_t g;

	INIT_OR_SKIP();
	dev = num_devices() > 1 ? 1 : 0;
	g = gran(dev);
	p = dev_prop(dev, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	p.allocFlags.gpuDirectRDMACapable = 1;
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * g, &p, 0));
	memset(&q, 0xff, sizeof(q));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	EXPECT_EQ(CU_MEM_ALLOCATION_TYPE_PINNED, q.type);
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_DEVICE, q.location.type);
	EXPECT_EQ(dev, q.location.id);
	EXPECT_EQ(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, q.requestedHandleTypes);
	EXPECT_EQ(1, q.allocFlags.gpuDirectRDMACapable);
	EXPECT_EQ(0, q.allocFlags.compressionType);
	EXPECT_EQ(NULL, q.win32HandleMetaData);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationPropertiesFromHandle(NULL, h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationPropertiesFromHandle(&q, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAllocationPropertiesFromHandle(&q, h));
}

/* Host memory on a NUMA node: not charged to a GPU, the CPU may use it. */
TEST(host_numa)
{
	CUmemAllocationProp p = dev_prop(0, 0), q;
	CUmemAccessDesc d;
	CUmemGenericAllocationHandle h;
	size_t free0, free1, total, g;
	unsigned long long flags;
	CUcontext ctx;
	CUdeviceptr va;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	p.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	p.location.id = 0;
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST_NUMA, q.location.type);
	EXPECT_EQ(0, q.location.id);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, 2 * g, 0, h, 0));
	memset(&d, 0, sizeof(d));
	d.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	d.location.id = 0;
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(va, 2 * g, &d, 1));
	((unsigned char *)va)[g + 1] = 0x42;
	EXPECT_EQ(0x42, ((unsigned char *)va)[g + 1]);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &d.location, va));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));

	/* A node that does not exist; host memory is not IPC capable. */
	p.location.id = 4096;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	p.location.id = -1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, g, &p, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * CU_MEM_LOCATION_TYPE_HOST: accepted by NVIDIA's 13.0 driver, announced
 * by attribute 145; the id means nothing. Its granularity is the largest
 * of all GPUs, and the CPU reaches it through cuMemSetAccess of a HOST
 * location.
 */
TEST(create_host)
{
	CUmemAllocationProp p = dev_prop(0, 0), q;
	CUmemGenericAllocationHandle h;
	size_t free0, free1, total, g, hg, rec, hrec;
	unsigned long long flags;
	CUmemAccessDesc d[2];
	CUcontext ctx;
	CUdeviceptr va;
	int i, v;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
	EXPECT_EQ(1, v);
	for (g = 0, rec = 0, i = 0; i < num_devices(); i++) {
		p = dev_prop(i, 0);
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&hg, &p,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM));
		g = hg > g ? hg : g;
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&hrec, &p,
				CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
		rec = hrec > rec ? hrec : rec;
	}
	p = dev_prop(0, 0);
	p.location.type = CU_MEM_LOCATION_TYPE_HOST;
	p.location.id = 12345;
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&hg, &p,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	EXPECT_EQ(g, hg);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&hrec, &p,
			CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	EXPECT_EQ(rec, hrec);

	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, hg + 4096, &p, 0));
	/* "HOST allocations are not IPC capable" */
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, hg, &p, 0));
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * hg, &p, 0));
	/* Host memory is not charged to a GPU. */
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_HOST, q.location.type);
	EXPECT_EQ(CU_MEM_ALLOCATION_TYPE_PINNED, q.type);

	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 * hg, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, 2 * hg, 0, h, 0));
	memset(d, 0, sizeof(d));
	d[0].location.type = CU_MEM_LOCATION_TYPE_HOST;
	d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	d[1].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d[1].location.id = 0;
	d[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(va, 2 * hg, d, 2));
	((unsigned char *)va)[hg + 7] = 0x5a;
	EXPECT_EQ(0x5a, ((unsigned char *)va)[hg + 7]);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &d[0].location, va));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags);
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &d[1].location, va));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, 2 * hg));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 2 * hg));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* Capacity: cuMemGetInfo is truthful and the GPU refuses past it. */
TEST(out_of_memory)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle big, one, extra;
	size_t free0, total, free1, free2, g, total_dev;
	CUcontext ctx;

	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetInfo(NULL, &total));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetInfo(&free0, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&total_dev, 0));
	EXPECT_EQ(total_dev, total);
	EXPECT_LE(free0, total);
	g = gran(0);

	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&one, g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0 - g, free1);

	/* Fill the GPU exactly; pages are not touched, so this is cheap. */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&big, free1 & ~(g - 1), &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free2, &total));
	EXPECT_LT(free2, g);
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, cuMemCreate(&extra, g, &p, 0));
	/* Another GPU still has room. */
	if (num_devices() > 1) {
		CUmemAllocationProp p1 = dev_prop(1, 0);

		EXPECT_CU(CUDA_SUCCESS, cuMemCreate(&extra, g, &p1, 0));
		EXPECT_CU(CUDA_SUCCESS, cuMemRelease(extra));
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(big));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(one));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free2, &total));
	EXPECT_EQ(free0, free2);
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST(reserve_free)
{
	CUdeviceptr va, va2, hint;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
	EXPECT_NE(0, va);
	EXPECT_EQ(0, va % g);
	/* Reserved, inaccessible until mapped and granted. */
	EXPECT_EQ(1, cpu_faults((unsigned char *)va, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 4 * g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(va, 4 * g));

	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 8 * g, 0, 0));
	EXPECT_EQ(0, va % (8 * g));
	/* A free address given as a hint is used. */
	hint = va;
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va2, g, 0, hint, 0));
	EXPECT_EQ(hint, va2);
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va2, g));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(NULL, g, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, 0, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, 4097, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, g, 3 * 4096, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, g, 0, 0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&va, g, 0, 4097, 0));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY,
		  cuMemAddressReserve(&va, (SIZE_MAX / 2) & ~(g - 1), 0, 0, 0));
	/* Not a reservation: heap memory, address 0. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemAddressFree((CUdeviceptr)(uintptr_t)&va, g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(0, g));
}

/* ---- the VA arena ---- */

/* The line of /proc/self/maps holding @addr into @line; 0 when found. */
static int maps_line(unsigned long addr, char *line, size_t len)
{
	unsigned long lo, hi;
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, len, f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && addr >= lo &&
		    addr < hi)
			ret = 0;
	fclose(f);
	return ret;
}

/* VMAs of VA arenas in this process. */
static int arena_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, "cufab-arena");
	fclose(f);
	return n;
}

/* Is @va carved from an arena (rather than a VMA of its own)? */
static int in_arena(CUdeviceptr va)
{
	char line[512];

	return !maps_line(va, line, sizeof(line)) &&
	       strstr(line, "cufab-arena");
}

/*
 * Reservations are carved from one arena VMA per process, and the CPU
 * view inside it is the usual one: unmapped or inaccessible ranges fault,
 * mapped ones read and write.
 */
TEST(arena_reservations)
{
	CUdeviceptr va[3];
	char l0[512], l1[512];
	struct vbuf b;
	size_t g;
	int i;

	INIT_OR_SKIP();
	g = gran(0);
	for (i = 0; i < 3; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va[i], (i + 1) * g,
							    0, 0, 0));
		EXPECT_EQ(0, va[i] % g);
		ASSERT_TRUE(in_arena(va[i]));
		EXPECT_EQ(1, cpu_faults((unsigned char *)va[i], 0));
	}
	ASSERT_EQ(0, maps_line(va[0], l0, sizeof(l0)));
	ASSERT_EQ(0, maps_line(va[2], l1, sizeof(l1)));
	EXPECT_STREQ(l0, l1);
	/* a mapping in the arena is the CPU view of the allocation */
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	EXPECT_TRUE(in_arena(b.va));
	memset((void *)b.va, 0x5a, g);
	EXPECT_EQ(0x5a, ((unsigned char *)b.va)[g - 1]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	for (i = 0; i < 3; i++)
		EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va[i], (i + 1) * g));
	/* the address of a freed reservation is a valid hint again */
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va[0], g, 0, va[1], 0));
	EXPECT_EQ(va[1], va[0]);
	EXPECT_EQ(1, cpu_faults((unsigned char *)va[0], 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va[0], g));
}

/* A fixed address outside the arena gets a VMA of its own. */
TEST(arena_fixed_address_outside)
{
	CUmemAllocationProp p;
	CUmemGenericAllocationHandle h;
	CUdeviceptr va, want;
	void *probe;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	p = dev_prop(0, 0);
	/* the process's arena exists (the harness forked this test) */
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_TRUE(in_arena(va));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	/* a free, aligned range: mapped, then given back */
	probe = mmap(NULL, 4 * g, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, probe);
	want = ((CUdeviceptr)(uintptr_t)probe + g - 1) & ~(CUdeviceptr)(g - 1);
	ASSERT_EQ(0, munmap(probe, 4 * g));
	ASSERT_FALSE(in_arena(want));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 * g, g, want, 0));
	ASSERT_EQ(want, va);
	EXPECT_FALSE(in_arena(va));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, 2 * g, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(va, 2 * g, 0));
	memset((void *)va, 0x33, 2 * g);
	EXPECT_EQ(0x33, ((unsigned char *)va)[2 * g - 1]);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/*
 * munmap() and mprotect() of a reservation carved from the arena act as on
 * a reservation with a VMA of its own: whole reservations only; munmap()
 * frees it, and its range is left to the process for good.
 */
TEST(arena_munmap_mprotect)
{
	struct vbuf a, b;
	CUdeviceptr va;
	void *fixed;
	size_t g;
	int i;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&a, 0, 2 * g, 0));
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	ASSERT_TRUE(in_arena(a.va));
	memset((void *)a.va, 7, a.len);
	/* never half a reservation */
	EXPECT_EQ(-1, munmap((void *)a.va, g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect((void *)(a.va + g), g, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(7, ((unsigned char *)a.va)[a.len - 1]);
	/* the whole of it: read-only, then gone */
	ASSERT_EQ(0, mprotect((void *)a.va, a.len, PROT_READ));
	EXPECT_EQ(0, cpu_faults((unsigned char *)a.va, 0));
	EXPECT_EQ(1, cpu_faults((unsigned char *)a.va, 1));
	ASSERT_EQ(0, munmap((void *)a.va, a.len));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(a.va, a.len));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(a.va, a.len));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(a.h));
	/* its neighbour lives on */
	memset((void *)b.va, 9, b.len);
	EXPECT_EQ(9, ((unsigned char *)b.va)[0]);
	/* the freed range is the process's: no reservation lands there */
	for (i = 0; i < 4; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, a.va, 0));
		EXPECT_TRUE(va + g <= a.va || va >= a.va + a.len);
		EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	}
	fixed = mmap((void *)a.va, a.len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	EXPECT_EQ((void *)a.va, fixed);
	if (fixed != MAP_FAILED)
		munmap(fixed, a.len);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

/*
 * A freed arena range is kept for the next reservation of its size, yet
 * stays free space: a hint over it is honoured, and once the program
 * unmaps it no reservation lands there.
 */
TEST(arena_kept_range)
{
	CUdeviceptr va, again, big;
	void *fixed;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_TRUE(in_arena(va));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	/* the same size again takes the kept range */
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&again, g, 0, 0, 0));
	EXPECT_EQ(va, again);
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(again, g));
	/* a larger hint over it is a hint over free space */
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&big, 4 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(big, 4 * g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 * g, 0, big, 0));
	EXPECT_EQ(big, va);
	/* a kept range is still free: a fault there is a fault */
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 2 * g));
	EXPECT_EQ(1, cpu_faults((unsigned char *)va, 0));
	/* unmapped by the program, it is the program's */
	ASSERT_EQ(0, munmap((void *)va, 2 * g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&again, 2 * g, 0, 0, 0));
	EXPECT_TRUE(again + 2 * g <= va || again >= va + 2 * g);
	fixed = mmap((void *)va, 2 * g, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	EXPECT_EQ((void *)va, fixed);
	if (fixed != MAP_FAILED)
		munmap(fixed, 2 * g);
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(again, 2 * g));
}

/*
 * cuMemAddressFree refuses a reservation with live mappings; once it is
 * free, a reservation at the same address sees nothing of the old pages.
 */
TEST(arena_free_with_mappings)
{
	CUdeviceptr va;
	struct vbuf b;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	memset((void *)b.va, 0x11, g);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(b.va, g));
	EXPECT_EQ(0x11, ((unsigned char *)b.va)[100]);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(b.va, g));
	EXPECT_EQ(1, cpu_faults((unsigned char *)b.va, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(b.va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, b.va, 0));
	EXPECT_EQ(b.va, va);
	EXPECT_EQ(1, cpu_faults((unsigned char *)va, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(b.h));
}

/* Bytes of address space this process uses (VmSize), 0 if unknown. */
static unsigned long long vm_size(void)
{
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}

/*
 * No room for an arena under RLIMIT_AS: reservations get VMAs of their
 * own and work as before.
 */
TEST(arena_rlimit_as_fallback)
{
	struct rlimit rl;
	CUdeviceptr va[2];
	struct vbuf b;
	int i;

	INIT_OR_SKIP();
	if (arena_vmas() != 0)
		SKIP(return, "this process already has an arena");
	ASSERT_LT(0, vm_size());
	rl.rlim_cur = rl.rlim_max = vm_size() + (512ULL << 20);
	ASSERT_EQ(0, setrlimit(RLIMIT_AS, &rl));
	for (i = 0; i < 2; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va[i], gran(0),
							    0, 0, 0));
		EXPECT_FALSE(in_arena(va[i]));
	}
	EXPECT_EQ(0, arena_vmas());
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, gran(0), 0));
	memset((void *)b.va, 0x44, b.len);
	EXPECT_EQ(0x44, ((unsigned char *)b.va)[b.len - 1]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	for (i = 0; i < 2; i++)
		EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va[i], gran(0)));
}

/*
 * The arena is the process's, not the client's: opening and closing
 * /dev/cufab again and again reuses it, and a closed client with no
 * reservation is gone at once (the arena does not hold it). A forked
 * child has no arena.
 */
TEST(arena_per_process)
{
	struct cufab_va_reserve res = { .size = sizeof(res) };
	struct cufab_va_free fr = { .size = sizeof(fr) };
	long long before;
	int fd, i, n, status;
	struct vbuf b;
	pid_t pid;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, gran(0), 0));
	n = arena_vmas();
	ASSERT_LE(1, n);
	before = live_objects();
	for (i = 0; i < 20; i++) {
		fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		res.length = gran(0);
		res.addr = 0;
		ASSERT_EQ(0, ioctl(fd, CUFAB_IOCTL_VA_RESERVE, &res));
		EXPECT_TRUE(in_arena(res.addr));
		fr.addr = res.addr;
		fr.length = res.length;
		EXPECT_EQ(0, ioctl(fd, CUFAB_IOCTL_VA_FREE, &fr));
		close(fd);
	}
	EXPECT_EQ(n, arena_vmas());
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(arena_vmas() != 0 ? 1 :
		      cpu_faults((unsigned char *)b.va, 0) ? 0 : 2);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

/*
 * A freed reservation is kept as it was and revived by the next of its
 * size: the revived one maps and is touched like a new one, a fork in
 * between changes nothing, and a client closed or killed with kept
 * reservations frees them all.
 */
TEST(arena_kept_fork_close_kill)
{
	CUmemAccessDesc rw = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	struct cufab_va_reserve res = { .size = sizeof(res) };
	struct cufab_va_free fr = { .size = sizeof(fr) };
	CUmemGenericAllocationHandle h;
	CUmemAllocationProp p;
	CUdeviceptr va, again;
	int fd, i, status;
	long long before;
	pid_t pid;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	p = dev_prop(0, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(cpu_faults((unsigned char *)va, 0) ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&again, g, 0, 0, 0));
	EXPECT_EQ(va, again);
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(again, g, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(again, g, &rw, 1));
	*(volatile unsigned char *)again = 7;
	EXPECT_EQ(7, *(volatile unsigned char *)again);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(again, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(again, g));
	/* a kept reservation is no reservation: freed once only */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(again, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));

	before = live_objects();
	/* closed with CUFAB_VA_KEPT and more kept */
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 1; i <= 6; i++) {
		res.length = i * g;
		res.addr = 0;
		ASSERT_EQ(0, ioctl(fd, CUFAB_IOCTL_VA_RESERVE, &res));
		fr.addr = res.addr;
		fr.length = res.length;
		EXPECT_EQ(0, ioctl(fd, CUFAB_IOCTL_VA_FREE, &fr));
	}
	EXPECT_EQ(0, close(fd));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
	/* killed with one kept */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		res.length = g;
		res.addr = 0;
		if (fd < 0 || ioctl(fd, CUFAB_IOCTL_VA_RESERVE, &res))
			_exit(1);
		fr.addr = res.addr;
		fr.length = res.length;
		if (ioctl(fd, CUFAB_IOCTL_VA_FREE, &fr))
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/*
 * mprotect() of the whole arena, no split involved, makes it the
 * program's as mprotect() of a piece does: no reservation is carved where
 * the CPU view could not write, and a new one still reads and writes.
 */
TEST(arena_mprotect_whole)
{
	unsigned long lo, hi;
	char line[512];
	struct vbuf a, b;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&a, 0, g, 0));
	ASSERT_TRUE(in_arena(a.va));
	ASSERT_EQ(0, maps_line(a.va, line, sizeof(line)));
	ASSERT_EQ(2, sscanf(line, "%lx-%lx", &lo, &hi));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&a));
	ASSERT_EQ(0, mprotect((void *)lo, hi - lo, PROT_READ));
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	EXPECT_TRUE(b.va + g <= lo || b.va >= hi);
	EXPECT_EQ(0, cpu_faults((unsigned char *)b.va, 1));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	/* given back read-write, it is carved from again */
	ASSERT_EQ(0, mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE));
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	EXPECT_TRUE(b.va >= lo && b.va + g <= hi);
	EXPECT_EQ(0, cpu_faults((unsigned char *)b.va, 1));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

/*
 * Two clients of one process carve from the one arena. A client closed
 * with a reservation left lives on through it (the reservation holds its
 * file, not the arena), and munmap() of that reservation frees both.
 */
TEST(arena_two_clients)
{
	struct cufab_va_reserve res[2] = {
		{ .size = sizeof(res[0]) }, { .size = sizeof(res[1]) },
	};
	struct cufab_va_free fr = { .size = sizeof(fr) };
	char l0[512], l1[512];
	long long before;
	int fd[2], i;

	INIT_OR_SKIP();
	before = live_objects();
	for (i = 0; i < 2; i++) {
		fd[i] = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd[i]);
		res[i].length = gran(0);
		ASSERT_EQ(0, ioctl(fd[i], CUFAB_IOCTL_VA_RESERVE, &res[i]));
		ASSERT_TRUE(in_arena(res[i].addr));
	}
	ASSERT_EQ(0, maps_line(res[0].addr, l0, sizeof(l0)));
	ASSERT_EQ(0, maps_line(res[1].addr, l1, sizeof(l1)));
	EXPECT_STREQ(l0, l1);
	/* the other client's reservation is not this one's to free */
	fr.addr = res[1].addr;
	fr.length = res[1].length;
	EXPECT_EQ(-1, ioctl(fd[0], CUFAB_IOCTL_VA_FREE, &fr));
	EXPECT_EQ(0, close(fd[1]));
	EXPECT_TRUE(in_arena(res[1].addr));
	EXPECT_EQ(1, cpu_faults((unsigned char *)res[1].addr, 0));
	EXPECT_EQ(0, munmap((void *)res[1].addr, res[1].length));
	fr.addr = res[0].addr;
	fr.length = res[0].length;
	EXPECT_EQ(0, ioctl(fd[0], CUFAB_IOCTL_VA_FREE, &fr));
	EXPECT_EQ(0, close(fd[0]));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/*
 * cuMemUnmap and cuMemSetAccess zap only what the CPU touched: a range
 * touched again after one change is zapped again by the next, and a range
 * remapped after a touch shows the new allocation.
 */
TEST(zap_after_touch)
{
	CUmemAccessDesc ro = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READ,
	};
	volatile unsigned char *p;
	struct vbuf a, b;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&a, 0, g, 0));
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, g, 0));
	p = (volatile unsigned char *)(uintptr_t)a.va;
	memset((void *)a.va, 0x11, g);
	memset((void *)b.va, 0x22, g);
	/* down, up, down again: each change after a touch is seen */
	ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(a.va, g, &ro, 1));
	EXPECT_EQ(1, cpu_faults(p, 1));
	EXPECT_EQ(0x11, p[0]);
	ASSERT_CU(CUDA_SUCCESS, grant(a.va, g, 0));
	p[0] = 0x33;
	ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(a.va, g, &ro, 1));
	EXPECT_EQ(1, cpu_faults(p, 1));
	EXPECT_EQ(0x33, p[0]);
	/* unmapped after a touch, remapped to b's memory: b's bytes */
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(a.va, g));
	EXPECT_EQ(1, cpu_faults(p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(a.va, g, 0, b.h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(a.va, g, 0));
	EXPECT_EQ(0x22, p[g - 1]);
	/* untouched in between: unmap and map back, the old bytes */
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(a.va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(a.va, g, 0, a.h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(a.va, g, &ro, 1));
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(a.va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(a.va, g, 0, a.h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(a.va, g, 0));
	EXPECT_EQ(0x33, p[0]);
	EXPECT_EQ(0x11, p[1]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&a));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

/*
 * An unmapped range is free space again, whole or in parts: mappings
 * over it, smaller or shifted, work, an overlap is still refused, and the
 * reservation is busy exactly while something is mapped.
 */
TEST(remap_unmapped_range)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;
	volatile unsigned char *pv;
	CUdeviceptr v;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&v, 3 * g, 0, 0, 0));
	pv = (volatile unsigned char *)v;
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(v, 2 * g, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(v, 2 * g, 0));
	pv[g] = 0x5a;
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(v, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(v, 3 * g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&v, 3 * g, 0, v, 0));
	pv = (volatile unsigned char *)v;
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(v, 2 * g, 0, h, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(v, 2 * g));
	/* half of the old range, then the other half from the next offset */
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(v + g, g, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(v, g, g, h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(v, 2 * g, 0, h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(v + g, 2 * g, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(v, 2 * g, 0));
	EXPECT_EQ(0x5a, pv[0]);
	EXPECT_EQ(1, cpu_faults((unsigned char *)v + 2 * g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(v, 3 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(v + g, g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(v, 3 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(v, g));
	EXPECT_EQ(1, cpu_faults((unsigned char *)v, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(v, 3 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* Data written through one mapping is read through the other. */
TEST(two_mappings)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;
	CUdeviceptr a, b;
	unsigned char *pa, *pb;
	size_t g, i;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&a, 2 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&b, 2 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(a, 2 * g, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(b, 2 * g, 0, h, 0));
	pa = (unsigned char *)a;
	pb = (unsigned char *)b;
	/* Mapped but no access granted yet. */
	EXPECT_EQ(1, cpu_faults(pa, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(a, 2 * g, 0));
	EXPECT_EQ(0, cpu_faults(pa, 1));
	EXPECT_EQ(1, cpu_faults(pb, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(b, 2 * g, 0));

	/* Fresh memory reads zero. */
	for (i = 0; i < 2 * g; i += 4096)
		ASSERT_EQ(0, pb[i + 17]);
	for (i = 0; i < 2 * g; i += 512)
		pa[i] = (unsigned char)(i / 512 + 1);
	for (i = 0; i < 2 * g; i += 512)
		ASSERT_EQ((unsigned char)(i / 512 + 1), pb[i]);
	pb[g + 3] = 0xab;
	EXPECT_EQ(0xab, pa[g + 3]);

	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(a, 2 * g));
	EXPECT_EQ(1, cpu_faults(pa, 0));
	/* The other mapping keeps working. */
	EXPECT_EQ(0xab, pb[g + 3]);
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_EQ(0xab, pb[g + 3]);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(b, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(a, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(b, 2 * g));
}

/* Offsets into an allocation, several allocations in one reservation. */
TEST(offsets_and_several_allocations)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h1, h2;
	CUdeviceptr r, whole;
	unsigned char *pr, *pw;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h1, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h2, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&r, 4 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&whole, 2 * g, 0, 0, 0));
	/* [r, r+g) = second half of h1; [r+g, r+3g) = h2. */
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(r, g, g, h1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(r + g, 2 * g, 0, h2, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(whole, 2 * g, 0, h1, 0));
	/* One call grants a range covering two mappings. */
	ASSERT_CU(CUDA_SUCCESS, grant(r, 3 * g, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(whole, 2 * g, 0));
	/* Access needs a fully mapped range. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, grant(r, 4 * g, 0));
	pr = (unsigned char *)r;
	pw = (unsigned char *)whole;
	pr[5] = 0x11;
	EXPECT_EQ(0x11, pw[g + 5]);
	pr[g + 5] = 0x22;
	EXPECT_EQ(0, pw[5]);
	EXPECT_EQ(1, cpu_faults(pr + 3 * g, 0));

	/* Already mapped, past the allocation, overflowing offset + size. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r, g, 0, h2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, g, 2 * g, h2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemMap(r + 3 * g, g, SIZE_MAX & ~(g - 1), h2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, 2 * g, 0, h2, 0));
	/* Alignment of address, size, offset; flags; handles. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g + 4096, g - 4096, 0, h2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, g / 2, 0, h2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, g, 4096, h2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, g, 0, h2, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, g, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, g, 0, 0xfffffff, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(r + 3 * g, 0, 0, h2, 0));
	/* Outside any reservation. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemMap((CUdeviceptr)(uintptr_t)&h1 & ~(g - 1), g, 0, h2, 0));
	/* A reservation with mappings cannot be freed. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(r, 4 * g));

	/* Unmapping part of one mapping is refused; whole mappings go. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(r + g, g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(r + 3 * g, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(r, 3 * g));
	EXPECT_EQ(1, cpu_faults(pr, 0));
	EXPECT_EQ(0x11, pw[g + 5]);
	/* Remapped ranges start without access. */
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(r, 2 * g, 0, h2, 0));
	EXPECT_EQ(1, cpu_faults(pr, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(r, 2 * g, 0));
	EXPECT_EQ(0x22, pr[5]);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(r, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(whole, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(r, 4 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(whole, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h1));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(r, 2 * g));
}

TEST(set_get_access)
{
	CUmemAccessDesc d[3];
	CUmemLocation loc;
	unsigned long long flags;
	struct vbuf b;
	CUdeviceptr r;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, 2 * g, 0));
	loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
	loc.id = 0;
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &loc, b.va + g + 8));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags);
	if (num_devices() > 1) {
		loc.id = 1;
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &loc, b.va));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_NONE, flags);
		/* Grant a peer, then read-only for it. */
		memset(d, 0, sizeof(d));
		d[0].location = loc;
		d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
		ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(b.va, b.len, d, 1));
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &loc, b.va));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READ, flags);
		loc.id = 0;
		ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &loc, b.va));
		EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags);
	}
	memset(d, 0, sizeof(d));
	d[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(b.va, b.len, NULL, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(b.va, b.len, d, 0));
	d[0].flags = (CUmemAccess_flags)2;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(b.va, b.len, d, 1));
	d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	d[0].location.id = num_devices();
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemSetAccess(b.va, b.len, d, 1));
	d[0].location.id = 0;
	d[0].location.type = CU_MEM_LOCATION_TYPE_INVALID;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(b.va, b.len, d, 1));
	d[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	/* Unaligned or partly unmapped ranges. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(b.va + 4096, g, d, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemSetAccess(b.va, 4 * g, d, 1));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(NULL, &loc, b.va));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(&flags, NULL, b.va));
	loc.id = num_devices();
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMemGetAccess(&flags, &loc, b.va));
	loc.id = 0;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetAccess(&flags, &loc, (CUdeviceptr)(uintptr_t)&flags));

	/* A reservation without mappings has no access to set. */
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&r, g, 0, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, grant(r, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemGetAccess(&flags, &loc, r));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(r, g));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/*
 * The first touch of a 2 MiB block of device memory maps the whole block
 * (its pages come as one block): touching every 4 KiB page of it costs a
 * fault or two, not 512, whether the first touch reads or writes. The
 * CPU view keeps its rules: the bytes are the allocation's, and access
 * taken away faults again.
 */
TEST(huge_first_touch)
{
	const size_t blk = 2 << 20;
	volatile unsigned char *p;
	struct vbuf b;
	long before;
	size_t i, len;

	INIT_OR_SKIP();
	if (gran(0) % blk)
		SKIP(return, "needs a 2 MiB granularity");
	len = 2 * blk > gran(0) ? 2 * blk : gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, len, 0));
	p = (volatile unsigned char *)(uintptr_t)b.va;

	before = minor_faults();
	for (i = 0; i < blk; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	EXPECT_GE(4, minor_faults() - before);
	before = minor_faults();
	for (i = blk; i < 2 * blk; i += 4096)
		ASSERT_EQ(0, p[i + 7]);
	EXPECT_GE(4, minor_faults() - before);
	for (i = 0; i < blk; i += 4096)
		ASSERT_EQ((unsigned char)(i >> 12), p[i]);

	/* read-only for the device: the CPU view is read-only again */
	{
		CUmemAccessDesc d = {
			.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
			.flags = CU_MEM_ACCESS_FLAGS_PROT_READ,
		};

		ASSERT_CU(CUDA_SUCCESS, cuMemSetAccess(b.va, len, &d, 1));
	}
	EXPECT_EQ(1, cpu_faults(p + 8192, 1));
	EXPECT_EQ(0, cpu_faults(p + 8192, 0));
	EXPECT_EQ(2, p[8192]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

/*
 * cuMemSetAccess: "the range must be a fully mapped address range
 * containing all allocations created by cuMemMap". cufab needs whole
 * mappings: part of one, or a range running into a hole, is refused.
 */
TEST(set_access_whole_mappings)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h1, h2;
	unsigned long long flags;
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	CUdeviceptr va;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h1, 2 * g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h2, g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, 2 * g, 0, h1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va + 2 * g, g, 0, h2, 0));

	/* the first or second half of a mapping */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, grant(va, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, grant(va + g, 2 * g, 0));
	/* whole mappings, then into the unmapped last granule */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, grant(va, 4 * g, 0));
	/* nothing changed on a refusal */
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &loc, va));
	EXPECT_EQ(0, flags);
	/* one or two whole mappings */
	EXPECT_CU(CUDA_SUCCESS, grant(va + 2 * g, g, 0));
	EXPECT_CU(CUDA_SUCCESS, grant(va, 3 * g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAccess(&flags, &loc, va + g));
	EXPECT_EQ(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, flags);

	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, 3 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 4 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h1));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h2));
}

TEST(retain)
{
	CUmemGenericAllocationHandle h;
	CUmemAllocationProp q;
	struct vbuf b;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, 2 * g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRetainAllocationHandle(&h, (void *)(b.va + g + 100)));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationPropertiesFromHandle(&q, h));
	EXPECT_EQ(CU_MEM_LOCATION_TYPE_DEVICE, q.location.type);
	/* One release per retain, then the original one: still mapped. */
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	((unsigned char *)b.va)[7] = 7;
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(b.h));
	EXPECT_EQ(7, ((unsigned char *)b.va)[7]);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(b.h));
	/* The mapping still holds the allocation: retain works again. */
	ASSERT_CU(CUDA_SUCCESS, cuMemRetainAllocationHandle(&h, (void *)b.va));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(NULL, (void *)b.va));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(&h, &h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(&h, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(b.va, b.len));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRetainAllocationHandle(&h, (void *)b.va));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(b.va, b.len));
}

/* "The handle is guaranteed to be the same handle value used to map." */
TEST(retain_returns_mapped_handle)
{
	CUmemGenericAllocationHandle h;
	struct vbuf b;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, gran(0), 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRetainAllocationHandle(&h, (void *)(b.va + 100)));
	EXPECT_EQ(b.h, h);
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

/* A mapping keeps its allocation (and the capacity charge) alive. */
TEST(lifetime_and_accounting)
{
	size_t free0, free1, total, g;
	CUcontext ctx;
	struct vbuf b;

	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 0, 4 * g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(b.h));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0 - 4 * g, free1);
	memset((void *)b.va, 0x3c, b.len);
	EXPECT_EQ(0x3c, ((unsigned char *)b.va)[b.len - 1]);
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(b.va, b.len));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	/* New memory never shows old contents. */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&b.h, 4 * g, &(CUmemAllocationProp){
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } }, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(b.va, b.len, 0, b.h, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(b.va, b.len, 0));
	EXPECT_EQ(0, ((unsigned char *)b.va)[b.len - 1]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* Process death releases handles, reservations, mappings and charge. */
/* The value of @key in @dir/memory.events, or -1. */
static long cg_event(const char *dir, const char *key)
{
	char path[256], k[64];
	long v, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.events", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", k, &v) == 2)
		if (!strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

/*
 * Memory pressure: device memory is host memory charged on first touch
 * to the toucher's memory cgroup. A process over its limit gets SIGBUS
 * at the page it could not have (and a log line); cufab's allocations
 * never wake the OOM killer, so nothing outside the cgroup is killed for
 * it, and the data of other processes stays as it was.
 */
TEST(memcg_limit_sigbus)
{
	struct vbuf keep;
	char dir[128];
	int status;
	pid_t pid;
	size_t i;

	INIT_OR_SKIP();
	if (cg_make(dir, sizeof(dir), "cufab_vmm"))
		SKIP(return, "no cgroup v2 memory controller");
	cg_write(dir, "memory.swap.max", "0");
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&keep, 0, gran(0), 0));
	memset((void *)keep.va, 0x3c, keep.len);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		size_t len = 64 << 20;
		struct vbuf b;

		if (cg_join(dir))
			_exit(10);
		if (cuInit(0) || !gran(0))
			_exit(11);
		len = (len + gran(0) - 1) / gran(0) * gran(0);
		if (vbuf_make(&b, 0, len, 0))
			_exit(11);
		memset((void *)b.va, 1, b.len);
		_exit(12);	/* 64 MiB fit in 16 MiB: wrong */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status)) {
		TH_LOG("child exited with %d", WEXITSTATUS(status));
	}
	/*
	 * SIGBUS where cufab could not have a page; the kernel's own charge
	 * of a page table for the next block may meet the limit first, and
	 * then the cgroup's OOM killer takes the child, inside its cgroup.
	 */
	if (WTERMSIG(status) == SIGKILL) {
		EXPECT_LE(1, cg_event(dir, "oom_kill"));
	} else {
		EXPECT_EQ(SIGBUS, WTERMSIG(status));
	}
	for (i = 0; i < keep.len; i += 4096)
		ASSERT_EQ(0x3c, ((unsigned char *)keep.va)[i]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&keep));
	rmdir(dir);
}

TEST(process_death)
{
	long long before = live_objects();
	size_t free0, free1, total;
	CUcontext ctx;
	int status;
	pid_t pid;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free0, &total));
	before = live_objects();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vbuf b, c;

		if (cuInit(0) || vbuf_make(&b, 0, 4 * gran(0), 0) ||
		    vbuf_make(&c, 0, 2 * gran(0), 0))
			_exit(1);
		memset((void *)b.va, 1, b.len);
		if (cuMemRelease(c.h))
			_exit(2);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&free1, &total));
	EXPECT_EQ(free0, free1);
	if (before >= 0)
		EXPECT_EQ(before, live_objects());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/*
 * Fault injection on the allocation paths: each debugfs fault_attr made
 * to fail once, for this task only (task-filter + make-it-fail). The call
 * fails with CUDA_ERROR_OUT_OF_MEMORY, nothing leaks, the next call works.
 */
enum fault_op { OP_CREATE, OP_MAP, OP_EXPORT };

static CUresult fault_op_run(enum fault_op op, int arm, const char *knob)
{
	CUmemAllocationProp p = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemGenericAllocationHandle h;
	size_t g = gran(0);
	CUresult r, r2;
	CUdeviceptr va;
	int fd;

	r = cuMemCreate(&h, g, &p, 0);
	if (op == OP_CREATE || r)
		goto out;
	r = cuMemAddressReserve(&va, g, 0, 0, 0);
	if (!r && op == OP_MAP) {
		if (arm)
			fault_arm(knob, 1);
		r = cuMemMap(va, g, 0, h, 0);
		if (!r)
			r = cuMemUnmap(va, g);
		r2 = cuMemAddressFree(va, g);
		if (!r)
			r = r2;
	} else if (!r) {
		r = cuMemAddressFree(va, g);
	}
	if (!r && op == OP_EXPORT) {
		if (arm)
			fault_arm(knob, 1);
		r = cuMemExportToShareableHandle(&fd, h,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
		if (!r)
			close(fd);
	}
	r2 = cuMemRelease(h);
	return r ? r : r2;
out:
	if (!r)
		r = cuMemRelease(h);
	return r;
}

FIXTURE(fault) {
	int armed;
};

FIXTURE_VARIANT(fault) {
	const char *knob;
	enum fault_op op;
};

FIXTURE_VARIANT_ADD(fault, fail_mem_create) { "fail_mem_create", OP_CREATE };
FIXTURE_VARIANT_ADD(fault, fail_object_alloc) { "fail_object_alloc", OP_CREATE };
FIXTURE_VARIANT_ADD(fault, fail_mem_map) { "fail_mem_map", OP_MAP };
FIXTURE_VARIANT_ADD(fault, fail_mem_share) { "fail_mem_share", OP_EXPORT };

FIXTURE_SETUP(fault)
{
	char path[128];

	self->armed = 0;
	INIT_OR_SKIP();
	snprintf(path, sizeof(path), CUFAB_DEBUGFS "/%s", variant->knob);
	if (access(path, F_OK))
		SKIP(return, "no fault injection in this kernel (%s absent)", path);
	self->armed = 1;
}

FIXTURE_TEARDOWN(fault)
{
	if (self->armed)
		fault_restore();
}

TEST_F(fault, fails_cleanly)
{
	long long before = live_objects();

	SETUP_SKIPPED();

	/* Warm up: paths paged in, nothing armed. */
	ASSERT_CU(CUDA_SUCCESS, fault_op_run(variant->op, 0, variant->knob));
	ASSERT_EQ(before, live_objects());
	if (variant->op == OP_CREATE)
		ASSERT_EQ(0, fault_arm(variant->knob, 1));
	EXPECT_CU(CUDA_ERROR_OUT_OF_MEMORY, fault_op_run(variant->op, 1, variant->knob));
	fault_arm(variant->knob, 0);
	EXPECT_EQ(before, live_objects());
	EXPECT_CU(CUDA_SUCCESS, fault_op_run(variant->op, 0, variant->knob));
	EXPECT_EQ(before, live_objects());
}

/* cuGetProcAddress finds every memory entry point by its base name. */
TEST(proc_address)
{
	static const struct { const char *name; int version; void *fn; } e[] = {
		{ "cuMemCreate", 10020, (void *)cuMemCreate },
		{ "cuMemRelease", 10020, (void *)cuMemRelease },
		{ "cuMemMap", 10020, (void *)cuMemMap },
		{ "cuMemRetainAllocationHandle", 11000, (void *)cuMemRetainAllocationHandle },
		{ "cuMemGetInfo", 3020, (void *)cuMemGetInfo_v2 },
		{ "cuMemAlloc", 3020, (void *)cuMemAlloc_v2 },
		{ "cuMemcpyHtoD", 3020, (void *)cuMemcpyHtoD_v2 },
		{ "cuMemsetD32", 3020, (void *)cuMemsetD32_v2 },
		{ "cuMemcpy", 4000, (void *)cuMemcpy },
		{ "cuPointerGetAttributes", 7000, (void *)cuPointerGetAttributes },
		{ "cuMemExportToShareableHandle", 10020, (void *)cuMemExportToShareableHandle },
	};
	CUdriverProcAddressQueryResult st;
	unsigned int i;
	void *pfn;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress(e[i].name, &pfn, CUDA_VERSION, 0, &st));
		EXPECT_EQ(e[i].fn, pfn) TH_LOG("%s", e[i].name);
		ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress(e[i].name, &pfn, e[i].version, 0, &st));
		EXPECT_EQ(e[i].fn, pfn) TH_LOG("%s", e[i].name);
		ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress(e[i].name, &pfn, e[i].version - 10, 0, &st));
		EXPECT_EQ(NULL, pfn);
		EXPECT_EQ((int)CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, (int)st);
	}
}

/* ---- sharing ---- */

/*
 * The importer: receives a handle, maps it, checks the exporter's
 * pattern, answers with its own. Exit status says what failed.
 */
static int importer(int sock, CUmemAllocationHandleType type, size_t len)
{
	CUmemFabricHandle fh;
	CUmemGenericAllocationHandle h;
	unsigned char *p;
	CUdeviceptr va;
	void *os;
	int fd = -1;
	CUresult r;
	size_t i;

	if (cuInit(0))
		return 10;
	if (sock_recv(sock, &fh, sizeof(fh), &fd))
		return 11;
	os = type == CU_MEM_HANDLE_TYPE_FABRIC ? (void *)&fh :
	     (void *)(uintptr_t)fd;
	r = cuMemImportFromShareableHandle(&h, os, type);
	if (r == CUDA_ERROR_NOT_PERMITTED)
		return 40;
	if (r)
		return 12;
	if (fd >= 0)
		close(fd);
	if (cuMemAddressReserve(&va, len, 0, 0, 0) || cuMemMap(va, len, 0, h, 0) ||
	    grant(va, len, 0))
		return 13;
	p = (unsigned char *)va;
	for (i = 0; i < len; i += 4096)
		if (p[i] != (unsigned char)(i / 4096 + 1))
			return 14;
	for (i = 0; i < len; i += 4096)
		p[i + 1] = (unsigned char)(i / 4096 + 100);
	if (sock_send(sock, "k", 1, -1))
		return 15;
	if (vbuf_drop(&(struct vbuf){ h, va, len }))
		return 16;
	return 0;
}

static int share_run(struct __test_metadata *_metadata,
		     CUmemAllocationHandleType type, int child_uid)
{
	CUmemGenericAllocationHandle h2;
	CUmemFabricHandle fh;
	unsigned char *p;
	int sv[2], fd = -1, status, bad = 0;
	struct vbuf b;
	size_t i, len;
	char ok;
	pid_t pid;

	len = 2 * gran(0);
	if (vbuf_make(&b, 0, len, type))
		return -1;
	p = (unsigned char *)b.va;
	for (i = 0; i < len; i += 4096)
		p[i] = (unsigned char)(i / 4096 + 1);
	memset(&fh, 0, sizeof(fh));
	if (type == CU_MEM_HANDLE_TYPE_FABRIC) {
		if (cuMemExportToShareableHandle(&fh, b.h, type, 0))
			return -2;
	} else {
		if (cuMemExportToShareableHandle(&fd, b.h, type, 0))
			return -2;
		/* A real fd, usable in this process too. */
		if (fcntl(fd, F_GETFD) < 0 || !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
			return -3;
		if (cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd, type) ||
		    cuMemRelease(h2))
			return -4;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		return -5;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		if (child_uid >= 0 &&
		    setresuid(child_uid, child_uid, child_uid))
			_exit(20);
		_exit(importer(sv[1], type, len));
	}
	close(sv[1]);
	sock_send(sv[0], &fh, sizeof(fh), fd);
	if (fd >= 0)
		close(fd);
	if (sock_recv(sv[0], &ok, 1, NULL) == 0)
		for (i = 0; i < len; i += 4096)
			if (p[i + 1] != (unsigned char)(i / 4096 + 100))
				bad = 1;
	close(sv[0]);
	waitpid(pid, &status, 0);
	if (vbuf_drop(&b))
		return -7;
	if (bad)
		return -6;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

TEST(share_posix_fd)
{
	INIT_OR_SKIP();
	EXPECT_EQ(0, share_run(_metadata, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, -1));
}

/*
 * The importer cannot see the exporter's GPU (CUDA_VISIBLE_DEVICES, like
 * two containers with one GPU each): the import still works, the
 * allocation's location reads -1 (no ordinal of ours), and the importer
 * maps it and reaches it through its own device.
 */
static int hidden_importer(int sock, size_t len)
{
	CUmemGenericAllocationHandle h;
	CUmemAllocationProp q;
	volatile unsigned char *p;
	CUdeviceptr va;
	int fd = -1, n = 0;

	setenv("CUDA_VISIBLE_DEVICES", "0", 1);
	if (cuInit(0) || cuDeviceGetCount(&n) || n != 1)
		return 10;
	if (sock_recv(sock, &n, sizeof(n), &fd) || fd < 0)
		return 11;
	if (cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
		return 12;
	close(fd);
	if (cuMemGetAllocationPropertiesFromHandle(&q, h) ||
	    q.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    q.location.id != -1)
		return 13;
	if (cuMemAddressReserve(&va, len, 0, 0, 0) || cuMemMap(va, len, 0, h, 0) ||
	    grant(va, len, 0))
		return 14;
	p = (volatile unsigned char *)(uintptr_t)va;
	if (p[len - 1] != 0x3c)
		return 15;
	p[0] = 0xc3;
	if (sock_send(sock, "k", 1, -1))
		return 16;
	return vbuf_drop(&(struct vbuf){ h, va, len }) ? 17 : 0;
}

TEST(share_to_process_without_the_gpu)
{
	volatile unsigned char *p;
	int sv[2], fd = -1;
	struct vbuf b;
	size_t len;
	pid_t pid;
	char ok = 0;

	INIT_OR_SKIP();
	if (num_devices() < 2)
		SKIP(return, "needs 2 GPUs");
	len = gran(1);
	ASSERT_CU(CUDA_SUCCESS, vbuf_make(&b, 1, len,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	p = (volatile unsigned char *)(uintptr_t)b.va;
	p[len - 1] = 0x3c;
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, b.h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		_exit(hidden_importer(sv[1], len));
	}
	close(sv[1]);
	EXPECT_EQ(0, sock_send(sv[0], &len, sizeof(int), fd));
	close(fd);
	EXPECT_EQ(0, sock_recv(sv[0], &ok, 1, NULL));
	EXPECT_EQ(0, wait_child(pid));
	close(sv[0]);
	EXPECT_EQ(0xc3, p[0]);
	EXPECT_CU(CUDA_SUCCESS, vbuf_drop(&b));
}

TEST(export_import_errors)
{
	CUmemGenericAllocationHandle h, h2;
	CUmemAllocationProp p;
	CUmemFabricHandle fh;
	int fd, null;
	size_t g;

	INIT_OR_SKIP();
	g = gran(0);
	p = dev_prop(0, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, g, &p, 0));
	/* Only types requested at create may be exported. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	p = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, g, &p, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(NULL, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_FABRIC, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_WIN32, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	/* The fd keeps the allocation alive after release. */
	ASSERT_CU(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h2,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	close(fd);

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(NULL,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	/* A closed fd, a file that is not cufab memory, a garbage value. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	null = open("/dev/null", O_RDONLY);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2,
			(void *)(uintptr_t)null, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(null);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2,
			(void *)~0ULL, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2,
			NULL, CU_MEM_HANDLE_TYPE_FABRIC));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2,
			(void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_WIN32));
}

/* ---- FABRIC handles and IMEX channels ---- */

static unsigned int imex_major(void)
{
	unsigned int major = 0, m;
	char name[64];
	FILE *f = fopen("/proc/devices", "r");
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %63s", &m, name) == 2 &&
		    !strcmp(name, "cufab-imex-channels"))
			major = m;
	fclose(f);
	return major;
}

/*
 * A node of IMEX channel n (mode 0600, root) as an administrator would
 * make one, but private to this test: /tmp/vmm_test_channelN, named by
 * path in CUFAB_IMEX_CHANNEL, so that no other suite sees it.
 */
static const char *channel_path(unsigned int n)
{
	static char path[2][64];

	snprintf(path[n & 1], sizeof(path[0]), "/tmp/vmm_test_channel%u", n);
	return path[n & 1];
}

static int make_channel(unsigned int n)
{
	unsigned int major = imex_major();

	if (!major)
		return -1;
	unlink(channel_path(n));
	return mknod(channel_path(n), S_IFCHR | 0600, makedev(major, n));
}

FIXTURE(channels) {
	int made;
};

FIXTURE_SETUP(channels)
{
	self->made = 0;
	if (make_channel(5) || make_channel(6))
		SKIP(return, "no cufab-imex-channels region or no /tmp");
	self->made = 1;
	INIT_OR_SKIP();
}

FIXTURE_TEARDOWN(channels)
{
	if (!self->made)
		return;
	unlink(channel_path(5));
	unlink(channel_path(6));
}

TEST(fabric_without_channel)
{
	CUmemAllocationProp p = dev_prop(0, CU_MEM_HANDLE_TYPE_FABRIC);
	CUmemGenericAllocationHandle h;
	CUmemFabricHandle fh;

	/* A number names IMEX_DIR/channelN; this one has no node. */
	setenv("CUFAB_IMEX_CHANNEL", "2047", 1);
	INIT_OR_SKIP();
	EXPECT_CU(CUDA_ERROR_NOT_PERMITTED, cuMemCreate(&h, gran(0), &p, 0));
	memset(&fh, 0, sizeof(fh));
	EXPECT_CU(CUDA_ERROR_NOT_PERMITTED, cuMemImportFromShareableHandle(&h, &fh,
			CU_MEM_HANDLE_TYPE_FABRIC));
	/* POSIX fd sharing needs no channel. */
	p = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, gran(0), &p, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

TEST_F(channels, fabric_share)
{
	CUmemFabricHandle fh, fh2;
	CUmemGenericAllocationHandle h, h2;
	CUmemAllocationProp p = dev_prop(0, CU_MEM_HANDLE_TYPE_FABRIC);

	SETUP_SKIPPED();
	setenv("CUFAB_IMEX_CHANNEL", channel_path(5), 1);
	EXPECT_EQ(0, share_run(_metadata, CU_MEM_HANDLE_TYPE_FABRIC, -1));

	/* Handles are unguessable: two exports of two allocations differ. */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, gran(0), &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h2, gran(0), &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fh, h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fh2, h2, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	EXPECT_NE(0, memcmp(&fh, &fh2, sizeof(fh)));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	/* A released allocation's handle no longer imports. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2, &fh2,
			CU_MEM_HANDLE_TYPE_FABRIC));
	fh.data[3] ^= 0x40;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemImportFromShareableHandle(&h2, &fh,
			CU_MEM_HANDLE_TYPE_FABRIC));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* An importer on another channel is refused. */
TEST_F(channels, fabric_other_channel)
{
	CUmemAllocationProp p = dev_prop(0, CU_MEM_HANDLE_TYPE_FABRIC);
	CUmemGenericAllocationHandle h;

	SETUP_SKIPPED();
	setenv("CUFAB_IMEX_CHANNEL", channel_path(5), 1);
	/* This process presents channel 5 once, at its first FABRIC call. */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, gran(0), &p, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	/* The importer, forked after this, opens channel 6. */
	setenv("CUFAB_IMEX_CHANNEL", channel_path(6), 1);
	EXPECT_EQ(40, share_run(_metadata, CU_MEM_HANDLE_TYPE_FABRIC, -1));
}

/* A user who may not open the root-only channel node is refused. */
TEST_F(channels, fabric_unprivileged)
{
	SETUP_SKIPPED();
	setenv("CUFAB_IMEX_CHANNEL", channel_path(5), 1);
	if (access(CUFAB_DEV, R_OK | W_OK))
		SKIP(return, "no access to " CUFAB_DEV);
	{
		struct stat st;

		if (stat(CUFAB_DEV, &st) || !(st.st_mode & S_IWOTH))
			SKIP(return, CUFAB_DEV " not usable by other users");
	}
	EXPECT_EQ(40, share_run(_metadata, CU_MEM_HANDLE_TYPE_FABRIC, NOBODY));
}

/* Number of channelN nodes in IMEX_DIR, 0 when it does not exist. */
static int channels_in_dir(void)
{
	struct dirent *de;
	DIR *d = opendir(IMEX_DIR);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "channel", 7);
	closedir(d);
	return n;
}

/*
 * Without CUFAB_IMEX_CHANNEL each process takes the lowest-numbered
 * channel node of IMEX_DIR it can open: root channel 3, nobody (who may
 * not open it) channel 9, until channel 3 is opened to everyone.
 */
TEST(fabric_default_channel)
{
	unsigned int major = imex_major();
	char c3[64], c9[64];
	int made_dir;

	unsetenv("CUFAB_IMEX_CHANNEL");
	if (!major)
		SKIP(return, "no cufab-imex-channels region");
	if (channels_in_dir())
		SKIP(return, IMEX_DIR " already has channel nodes");
	{
		struct stat st;

		if (stat(CUFAB_DEV, &st) || !(st.st_mode & S_IWOTH))
			SKIP(return, CUFAB_DEV " not usable by other users");
	}
	made_dir = !mkdir(IMEX_DIR, 0755);
	snprintf(c3, sizeof(c3), IMEX_DIR "/channel3");
	snprintf(c9, sizeof(c9), IMEX_DIR "/channel9");
	ASSERT_EQ(0, mknod(c3, S_IFCHR | 0600, makedev(major, 3)));
	ASSERT_EQ(0, mknod(c9, S_IFCHR | 0666, makedev(major, 9)));
	ASSERT_EQ(0, chmod(c9, 0666));
	INIT_OR_SKIP();
	EXPECT_EQ(40, share_run(_metadata, CU_MEM_HANDLE_TYPE_FABRIC, NOBODY));
	ASSERT_EQ(0, chmod(c3, 0666));
	EXPECT_EQ(0, share_run(_metadata, CU_MEM_HANDLE_TYPE_FABRIC, NOBODY));
	unlink(c3);
	unlink(c9);
	if (made_dir)
		rmdir(IMEX_DIR);
}

/* ---- per-GPU granularity, changed with cufabctl while no client is open ---- */

#define MIB		(1ULL << 20)

/* "cufabctl ARGS", stdout and stderr in @out; its exit status. */
static int ctl(char *out, size_t len, const char *fmt, ...)
{
	char args[1024], cmd[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s 2>&1", args);
	return ctl_run(cmd, NULL, out, len);
}

/*
 * GPU @dev's four granularities (mem_gran, mem_gran_rec, mc_gran,
 * mc_gran_rec of "cufabctl -j dev show"); false when one is missing.
 */
static bool dev_grans(int dev, unsigned long long g[4])
{
	static const char * const keys[4] = {
		"\"mem_gran\":", "\"mem_gran_rec\":", "\"mc_gran\":",
		"\"mc_gran_rec\":",
	};
	char out[2048], *p;
	int i;

	if (ctl(out, sizeof(out), "-j dev show gpu%d", dev))
		return false;
	for (i = 0; i < 4; i++) {
		p = strstr(out, keys[i]);
		if (!p)
			return false;
		g[i] = strtoull(p + strlen(keys[i]), NULL, 0);
	}
	return true;
}

/*
 * In a child (its client goes with it): GPU 1 has 4 MiB / 8 MiB, GPU 0 the
 * default 2 MiB. cuMemCreate and cuMemMap follow each allocation's GPU.
 */
/*
 * GPU 1 has multicast off and a 4 MiB multicast granularity, GPU 0 the
 * default 2 MiB: cuMulticastGetGranularity and cuMulticastCreate follow
 * one rule (the largest of every GPU), and cuMulticastBindAddr wants the
 * address itself, not only its offset in the memory, to be a multiple.
 */
static void gran_child_multicast(void)
{
	CUmulticastObjectProp mp = { .numDevices = 1, .size = 2 * MIB };
	CUmemAllocationProp p0 = dev_prop(0, 0);
	CUmemGenericAllocationHandle mc, hm;
	CUdeviceptr va;
	size_t g = 0;
	int on = 0;

	CHILD_CHECK(cuDeviceGetAttribute(&on, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED,
					 0) == CUDA_SUCCESS);
	if (!on)
		return;	/* no NVSwitch: nothing to bind */
	CHILD_CHECK(cuMulticastGetGranularity(&g, &mp, CU_MULTICAST_GRANULARITY_MINIMUM) ==
		    CUDA_SUCCESS);
	CHILD_CHECK(g == 4 * MIB);
	CHILD_CHECK(cuMulticastCreate(&mc, &mp) == CUDA_ERROR_INVALID_VALUE);
	mp.size = g;
	CHILD_CHECK(cuMulticastCreate(&mc, &mp) == CUDA_SUCCESS);
	CHILD_CHECK(cuMulticastAddDevice(mc, 0) == CUDA_SUCCESS);

	CHILD_CHECK(cuMemCreate(&hm, 8 * MIB, &p0, 0) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemAddressReserve(&va, 16 * MIB, 4 * MIB, 0, 0) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemMap(va + 2 * MIB, 8 * MIB, 0, hm, 0) == CUDA_SUCCESS);
	CHILD_CHECK(grant(va + 2 * MIB, 8 * MIB, 0) == CUDA_SUCCESS);
	/* memory offset 0, address 2 MiB past a 4 MiB boundary */
	CHILD_CHECK(cuMulticastBindAddr(mc, 0, va + 2 * MIB, 4 * MIB, 0) ==
		    CUDA_ERROR_INVALID_VALUE);
	/* address on a boundary, memory offset 2 MiB */
	CHILD_CHECK(cuMulticastBindAddr(mc, 0, va + 4 * MIB, 4 * MIB, 0) ==
		    CUDA_ERROR_INVALID_VALUE);
	CHILD_CHECK(cuMemUnmap(va + 2 * MIB, 8 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemMap(va, 8 * MIB, 0, hm, 0) == CUDA_SUCCESS);
	CHILD_CHECK(grant(va, 8 * MIB, 0) == CUDA_SUCCESS);
	CHILD_CHECK(cuMulticastBindAddr(mc, 0, va, 4 * MIB, 0) == CUDA_SUCCESS);
	CHILD_CHECK(cuMulticastUnbind(mc, 0, 0, 4 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemUnmap(va, 8 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemAddressFree(va, 16 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemRelease(hm) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemRelease(mc) == CUDA_SUCCESS);
}

static void gran_child(void)
{
	CUmemGenericAllocationHandle h0, h1, h;
	CUmemAllocationProp p0 = dev_prop(0, 0), p1 = dev_prop(1, 0), pn;
	size_t g = 0;
	CUdeviceptr va;
	int numa = -1;

	CHILD_CHECK(cuInit(0) == CUDA_SUCCESS);
	CHILD_CHECK(gran(0) == 2 * MIB);
	CHILD_CHECK(gran(1) == 4 * MIB);
	CHILD_CHECK(cuMemGetAllocationGranularity(&g, &p1,
			CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS);
	CHILD_CHECK(g == 8 * MIB);
	CHILD_CHECK(cuMemGetAllocationGranularity(&g, &p0,
			CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS);
	CHILD_CHECK(g == 2 * MIB);
	/* host memory next to GPU 1 must suit it: its granularity or more */
	CHILD_CHECK(cuDeviceGetAttribute(&numa, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID,
					 1) == CUDA_SUCCESS);
	if (numa >= 0) {
		pn = dev_prop(0, 0);
		pn.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
		pn.location.id = numa;
		CHILD_CHECK(cuMemGetAllocationGranularity(&g, &pn,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS);
		CHILD_CHECK(g == 4 * MIB);
		CHILD_CHECK(cuMemCreate(&h, 2 * MIB, &pn, 0) ==
			    CUDA_ERROR_INVALID_VALUE);
	}

	/* 2 MiB is a multiple of GPU 0's granularity, not of GPU 1's */
	CHILD_CHECK(cuMemCreate(&h1, 2 * MIB, &p1, 0) == CUDA_ERROR_INVALID_VALUE);
	CHILD_CHECK(cuMemCreate(&h1, 6 * MIB, &p1, 0) == CUDA_ERROR_INVALID_VALUE);
	CHILD_CHECK(cuMemCreate(&h0, 2 * MIB, &p0, 0) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemCreate(&h1, 4 * MIB, &p1, 0) == CUDA_SUCCESS);

	/* the default alignment suits the largest granularity */
	CHILD_CHECK(cuMemAddressReserve(&va, 16 * MIB, 0, 0, 0) == CUDA_SUCCESS);
	CHILD_CHECK(va % (4 * MIB) == 0);
	CHILD_CHECK(cuMemMap(va + 2 * MIB, 4 * MIB, 0, h1, 0) ==
		    CUDA_ERROR_INVALID_VALUE);
	CHILD_CHECK(cuMemMap(va + 8 * MIB, 2 * MIB, 2 * MIB, h1, 0) ==
		    CUDA_ERROR_INVALID_VALUE);
	CHILD_CHECK(cuMemMap(va, 4 * MIB, 0, h1, 0) == CUDA_SUCCESS);
	/* GPU 0's allocation maps at a 2 MiB boundary */
	CHILD_CHECK(cuMemMap(va + 6 * MIB, 2 * MIB, 0, h0, 0) == CUDA_SUCCESS);
	CHILD_CHECK(grant(va, 4 * MIB, 1) == CUDA_SUCCESS);
	CHILD_CHECK(grant(va + 6 * MIB, 2 * MIB, 0) == CUDA_SUCCESS);
	((volatile char *)(uintptr_t)va)[4 * MIB - 1] = 1;
	((volatile char *)(uintptr_t)va)[6 * MIB] = 2;
	CHILD_CHECK(cuMemUnmap(va, 4 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemUnmap(va + 6 * MIB, 2 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemAddressFree(va, 16 * MIB) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemRelease(h0) == CUDA_SUCCESS);
	CHILD_CHECK(cuMemRelease(h1) == CUDA_SUCCESS);
	gran_child_multicast();
	_exit(0);
}

/* cufabctl runs take a second each under the debug kernel: more time. */
FIXTURE(gran) {
	int unused;
};

FIXTURE_SETUP(gran)
{
}

FIXTURE_TEARDOWN(gran)
{
}

TEST_F_TIMEOUT(gran, per_gpu, 240)
{
	unsigned long long old[4], now[4];
	char out[2048];
	pid_t pid;
	int i, fd, st;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	if (!dev_grans(1, old))
		SKIP(return, "no GPU 1, or no cufabctl next to this test");
	if (old[0] != 2 * MIB || old[1] != 2 * MIB)
		SKIP(return, "GPU 1 does not have the default 2 MiB granularity");

	/* refused while a client is open, like every dev set */
	fd = open(CUFAB_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_NE(0, ctl(out, sizeof(out), "dev set gpu1 mem-gran 4M"));
	EXPECT_TRUE(strstr(out, "client") != NULL) TH_LOG("%s", out);
	close(fd);

	/* rules: power of two, at least a page, REC a multiple of MIN */
	EXPECT_NE(0, ctl(out, sizeof(out), "dev set gpu1 mem-gran 3M mem-gran-rec 6M"));
	EXPECT_TRUE(strstr(out, "power of two") != NULL) TH_LOG("%s", out);
	EXPECT_NE(0, ctl(out, sizeof(out), "dev set gpu1 mc-gran 1K"));
	EXPECT_TRUE(strstr(out, "dev-mc-gran") != NULL) TH_LOG("%s", out);
	EXPECT_NE(0, ctl(out, sizeof(out), "dev set gpu1 mem-gran 4M"));
	EXPECT_TRUE(strstr(out, "give both") != NULL) TH_LOG("%s", out);
	EXPECT_NE(0, ctl(out, sizeof(out), "dev set gpu1 mem-gran 4M mem-gran-rec 2M"));
	EXPECT_TRUE(strstr(out, "multiple") != NULL) TH_LOG("%s", out);

	ASSERT_EQ(0, ctl(out, sizeof(out),
			 "dev set gpu1 mem-gran 4M mem-gran-rec 8M mc-gran 4M mc-gran-rec 1G multicast off"))
		TH_LOG("%s", out);
	ASSERT_TRUE(dev_grans(1, now));
	EXPECT_EQ(4 * MIB, now[0]);
	EXPECT_EQ(8 * MIB, now[1]);
	EXPECT_EQ(4 * MIB, now[2]);
	EXPECT_EQ(1024 * MIB, now[3]);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		gran_child();
	st = wait_child(pid);

	/* back to what it was (both of a pair at once: any order is valid) */
	EXPECT_EQ(0, ctl(out, sizeof(out),
			 "dev set gpu1 mem-gran %llu mem-gran-rec %llu mc-gran %llu mc-gran-rec %llu multicast on",
			 old[0], old[1], old[2], old[3])) TH_LOG("%s", out);
	ASSERT_TRUE(dev_grans(1, now));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(old[i], now[i]) TH_LOG("GPU 1 granularity %d not restored", i);
	EXPECT_EQ(0, st);
}

TEST_HARNESS_MAIN
