// SPDX-License-Identifier: GPL-2.0
/*
 * cuMemGetHandleForAddressRange with CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD
 * (lib/dmabuf_range.c, kernel/dmabuf_range.c, kernel/share_dmabuf.c).
 *
 * The fd is a dma-buf ("/dmabuf:", cufab the exporter in its fdinfo,
 * DMA_BUF_IOCTL_SYNC, its size the range's), mmap() of it shows the device
 * memory's bytes and writes through it reach the device memory, for
 * cuMemAlloc, VMM (across two allocations of one reservation) and pool
 * memory; it keeps the pages after cuMemFree and in another process; each
 * documented code (INVALID_VALUE, NOT_SUPPORTED) for each kind of memory a
 * program can pass, multicast mappings included; attribute 124 says 1.
 * The raw ioctl: a reply fault leaks no fd, export races cuMemFree of the
 * allocation, and a fail-nth sweep.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/cufab.h>
#include <linux/dma-buf.h>

#include "mem_helpers.h"
#include "mc_helpers.h"
#include "cufab_uapi.h"
#include "kselftest_harness.h"

#define PAGE		4096UL
#define DMA_BUF_FD	CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

/* The byte at offset @i of a test pattern. */
static unsigned char pat(size_t i, unsigned char seed)
{
	return (unsigned char)(i * 31 + seed + (i >> 12));
}

/* Fills @len bytes of device memory at @d with the pattern of @seed. */
static CUresult fill(CUdeviceptr d, size_t len, unsigned char seed)
{
	unsigned char *buf = malloc(len);
	CUresult r;
	size_t i;

	if (!buf)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < len; i++)
		buf[i] = pat(i, seed);
	r = cuMemcpyHtoD(d, buf, len);
	free(buf);
	return r;
}

/*
 * 1 when @len bytes of @fd (a dma-buf), mapped shared, are the pattern of
 * @seed from byte @skip of the pattern on.
 */
static int fd_shows(int fd, size_t len, size_t skip, unsigned char seed)
{
	unsigned char *p;
	size_t i;
	int ok = 1;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 0;
	for (i = 0; ok && i < len; i++)
		ok = p[i] == pat(skip + i, seed);
	munmap(p, len);
	return ok;
}

/*
 * The fd's file is a dma-buf of this module: the dma-buf filesystem's
 * name ("/dmabuf:" and the buffer's name, none here), the exporter in its
 * fdinfo, and its size (the only seek a dma-buf knows) @len.
 */
static int is_dmabuf(int fd, size_t len)
{
	char path[64], target[64] = "", line[128];
	int exporter = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0 || strcmp(target, "/dmabuf:"))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		exporter |= !strcmp(line, "exp_name:\tcufab\n");
	fclose(f);
	return exporter && lseek(fd, 0, SEEK_END) == (off_t)len;
}

/* The handle of [d, d + len), or -1 with the result in *res. */
static int range_fd(CUdeviceptr d, size_t len, CUresult *res)
{
	int fd = -1;

	*res = cuMemGetHandleForAddressRange(&fd, d, len, DMA_BUF_FD, 0);
	return *res == CUDA_SUCCESS ? fd : -1;
}

CTX_FIXTURE();

TEST(not_initialized)
{
	int fd;

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuMemGetHandleForAddressRange(&fd, PAGE, PAGE, DMA_BUF_FD, 0));
}

/* 124 tells the truth now; host memory's own attribute (146) stays 0. */
TEST_F(ctx, attributes)
{
	int i, v;

	for (i = 0; i < num_devices(); i++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, i));
		EXPECT_EQ(1, v);
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			  CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED, i));
		EXPECT_EQ(0, v);
	}
}

/*
 * Two pages inside four of cuMemAlloc memory: a dma-buf of exactly those,
 * whose mapping reads what cuMemcpyHtoD wrote and whose writes
 * cuMemcpyDtoH reads.
 */
TEST_F(ctx, linear_range)
{
	unsigned char back[64];
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW,
	};
	unsigned char *p;
	CUdeviceptr d;
	CUresult res;
	int fd;

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4 * PAGE));
	ASSERT_CU(CUDA_SUCCESS, fill(d, 4 * PAGE, 1));
	fd = range_fd(d + PAGE, 2 * PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	EXPECT_TRUE(is_dmabuf(fd, 2 * PAGE));
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	EXPECT_EQ(0, ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));
	EXPECT_TRUE(fd_shows(fd, 2 * PAGE, PAGE, 1));

	/* a write through the fd is a write of the device memory */
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p + PAGE, 0xa5, sizeof(back));
	ASSERT_CU(CUDA_SUCCESS, cuMemcpyDtoH(back, d + 2 * PAGE, sizeof(back)));
	EXPECT_EQ(0xa5, back[0]);
	EXPECT_EQ(0xa5, back[sizeof(back) - 1]);
	/* a private copy of device memory would not be what it shows */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0));
	/* past the end of the dma-buf */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 3 * PAGE, PROT_READ, MAP_SHARED, fd, 0));
	munmap(p, 2 * PAGE);

	/* the whole allocation, at its start */
	close(fd);
	fd = range_fd(d, 4 * PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	EXPECT_TRUE(is_dmabuf(fd, 4 * PAGE));
	EXPECT_TRUE(fd_shows(fd, PAGE, 0, 1));
	close(fd);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/* GPU 0's free memory, 0 on failure (a context is current). */
static size_t free_mem(void)
{
	size_t free = 0, total = 0;

	return cuMemGetInfo(&free, &total) ? 0 : free;
}

/*
 * The dma-buf holds the pages: cuMemFree, the context's destroy and
 * another process's view leave them readable through the fd and charged
 * to the GPU; the last close gives them back.
 */
TEST_F(ctx, fd_outlives_free)
{
	size_t free0, now;
	int sv[2], fd, got, i;
	CUdeviceptr d;
	CUresult res;
	char c = 0;
	pid_t pid;

	free0 = free_mem();
	ASSERT_NE(0, free0);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 2 * PAGE));
	ASSERT_CU(CUDA_SUCCESS, fill(d, 2 * PAGE, 7));
	fd = range_fd(d, 2 * PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(d));
	EXPECT_GE(free0 - 2 * PAGE, free_mem());
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(self->ctx));
	self->ctx = NULL;
	EXPECT_TRUE(fd_shows(fd, 2 * PAGE, 0, 7));

	/* a process with no client of its own maps it from a unix socket */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		if (sock_recv(sv[1], &c, 1, &got) || got < 0)
			_exit(2);
		_exit(fd_shows(got, 2 * PAGE, 0, 7) ? 0 : 1);
	}
	close(sv[1]);
	EXPECT_EQ(0, sock_send(sv[0], &c, 1, fd));
	close(fd);
	EXPECT_EQ(0, wait_child(pid));
	close(sv[0]);

	/* the last reference went: the memory is the GPU's again */
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));
	for (i = 0; i < 100 && (now = free_mem()) != free0; i++)
		usleep(10000);
	EXPECT_EQ(free0, now);
}

/*
 * A range of a reservation crosses two cuMemCreate allocations alike: the
 * documentation allows it, and the dma-buf shows both in order.
 */
TEST_F(ctx, vmm_across_two_allocations)
{
	size_t g = gran(0);
	CUmemGenericAllocationHandle h[2];
	CUmemAllocationProp p = dev_prop(0, 0);
	CUdeviceptr va;
	CUresult res;
	int fd;

	ASSERT_NE(0, g);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h[0], g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h[1], g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, g, 0, h[0], 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va + g, g, 0, h[1], 0));
	ASSERT_CU(CUDA_SUCCESS, grant(va, 2 * g, 0));
	ASSERT_CU(CUDA_SUCCESS, fill(va, 2 * g, 3));

	fd = range_fd(va + g - PAGE, 3 * PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	EXPECT_TRUE(is_dmabuf(fd, 3 * PAGE));
	EXPECT_TRUE(fd_shows(fd, 3 * PAGE, g - PAGE, 3));
	/* pages, not addresses: unmapped and released, it still shows them */
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h[0]));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h[1]));
	EXPECT_TRUE(fd_shows(fd, 3 * PAGE, g - PAGE, 3));
	close(fd);

	/* the unmapped reservation has nothing to export */
	range_fd(va, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 2 * g));
}

/*
 * A reservation mapped in part: a range inside the mapped part goes, one
 * meeting the hole does not; allocations of other properties or another
 * GPU in the range are refused.
 */
TEST_F(ctx, vmm_rules)
{
	size_t g = gran(0);
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemAllocationProp px = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemGenericAllocationHandle h, hx, h1 = 0;
	CUdeviceptr va;
	CUresult res;
	int fd;

	ASSERT_NE(0, g);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 3 * g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, g, 0, h, 0));
	fd = range_fd(va, g, &res);
	EXPECT_CU(CUDA_SUCCESS, res);
	if (fd >= 0)
		close(fd);
	range_fd(va, g + PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	range_fd(va + g, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	/* past the end of the reservation */
	range_fd(va, 4 * g, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);

	/* other handle types: not identical allocation properties */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&hx, g, &px, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va + g, g, 0, hx, 0));
	range_fd(va + g - PAGE, 2 * PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	fd = range_fd(va + g, PAGE, &res);
	EXPECT_CU(CUDA_SUCCESS, res);
	if (fd >= 0)
		close(fd);

	/* another GPU's memory after GPU 0's: not resident on one device */
	if (num_devices() > 1) {
		p = dev_prop(1, 0);
		ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h1, g, &p, 0));
		ASSERT_CU(CUDA_SUCCESS, cuMemMap(va + 2 * g, g, 0, h1, 0));
		range_fd(va + 2 * g - PAGE, 2 * PAGE, &res);
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
		fd = range_fd(va + 2 * g, g, &res);
		EXPECT_CU(CUDA_SUCCESS, res);
		if (fd >= 0)
			close(fd);
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, h1 ? 3 * g : 2 * g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(hx));
	if (h1)
		EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h1));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 3 * g));
}

/* cuMemAllocAsync memory (the device's default pool, then its own). */
TEST_F(ctx, pool_memory)
{
	CUmemPoolProps pp = { .allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
			      .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
	CUmemoryPool pool;
	CUdeviceptr d;
	CUresult res;
	int fd;

	ASSERT_CU(CUDA_SUCCESS, cuMemAllocAsync(&d, 3 * PAGE, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	ASSERT_CU(CUDA_SUCCESS, fill(d, 3 * PAGE, 5));
	fd = range_fd(d, 3 * PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	EXPECT_TRUE(is_dmabuf(fd, 3 * PAGE));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(d, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	EXPECT_TRUE(fd_shows(fd, 3 * PAGE, 0, 5));
	close(fd);

	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&pool, &pp));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&d, PAGE, pool, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(NULL));
	ASSERT_CU(CUDA_SUCCESS, fill(d, PAGE, 6));
	fd = range_fd(d, PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	EXPECT_TRUE(fd_shows(fd, PAGE, 0, 6));
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeAsync(d, NULL));
	EXPECT_CU(CUDA_SUCCESS, cuMemPoolDestroy(pool));
	close(fd);
}

/* The arguments: handle, type, flags, alignment, size. */
TEST_F(ctx, argument_errors)
{
	CUdeviceptr d;
	int fd = -1;

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4 * PAGE));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(NULL, d, PAGE, DMA_BUF_FD, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, PAGE, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, PAGE, 2, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, PAGE, DMA_BUF_FD, 2));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, PAGE, DMA_BUF_FD, 1ULL << 32));
	/* no BAR1 mapping on a platform like the one cufab models */
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
		  cuMemGetHandleForAddressRange(&fd, d, PAGE, DMA_BUF_FD,
						CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d + 8, PAGE, DMA_BUF_FD, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, PAGE + 8, DMA_BUF_FD, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, 100, DMA_BUF_FD, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, 0, DMA_BUF_FD, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemGetHandleForAddressRange(&fd, d, -PAGE, DMA_BUF_FD, 0));
	EXPECT_EQ(-1, fd);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/* Addresses that are not one allocation of device memory of the caller. */
TEST_F(ctx, address_errors)
{
	static unsigned char plain[2 * PAGE] __attribute__((aligned(4096)));
	CUdeviceptr a, b;
	CUresult res;

	EXPECT_LE(range_fd(0, PAGE, &res), -1);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	range_fd((uintptr_t)plain, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	/* registered host memory is not a device allocation */
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(plain, sizeof(plain), 0));
	range_fd((uintptr_t)plain, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemHostUnregister(plain));

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&a, 2 * PAGE));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&b, 2 * PAGE));
	/* past the end of the allocation, into whatever follows */
	range_fd(a, 3 * PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	range_fd(a + PAGE, 2 * PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	/* spanning both, whichever lies first */
	if (b > a)
		range_fd(a, b + 2 * PAGE - a, &res);
	else
		range_fd(b, a + 2 * PAGE - b, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(b));
	/* freed */
	range_fd(b, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(a));
}

/*
 * Memory that is not a GPU's own: host memory needs attribute 146 (0),
 * managed memory migrates, host-located VMM memory is no device's.
 */
TEST_F(ctx, memory_not_supported)
{
	CUmemAllocationProp hp = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;
	CUdeviceptr m, va;
	CUresult res;
	size_t g = 0;
	void *host;

	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&host, PAGE));
	range_fd((uintptr_t)host, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(host));
	ASSERT_CU(CUDA_SUCCESS, cuMemHostAlloc(&host, PAGE,
					       CU_MEMHOSTALLOC_DEVICEMAP));
	range_fd((uintptr_t)host, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemFreeHost(host));

	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&m, PAGE,
						  CU_MEM_ATTACH_GLOBAL));
	range_fd(m, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(m));

	hp.location.type = CU_MEM_LOCATION_TYPE_HOST;
	hp.location.id = 0;
	ASSERT_CU(CUDA_SUCCESS, cuMemGetAllocationGranularity(&g, &hp,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, g, &hp, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, g, 0, h, 0));
	range_fd(va, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, res);
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* A multicast mapping has no memory of its own to export. */
TEST(multicast_not_supported)
{
	CUmemGenericAllocationHandle h;
	CUcontext ctx;
	CUdeviceptr va;
	CUresult res;
	size_t g;

	MC_OR_SKIP(1);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	g = mc_gran();
	ASSERT_NE(0, g);
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, g, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_map(&va, h, g, 0));
	range_fd(va, PAGE, &res);
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, res);
	EXPECT_CU(CUDA_SUCCESS, mc_unmap(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* A range's dma-buf is pages, not an allocation a handle can name. */
TEST_F(ctx, not_a_shareable_handle)
{
	CUmemGenericAllocationHandle h;
	CUdeviceptr d;
	CUresult res;
	int fd;

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, PAGE));
	fd = range_fd(d, PAGE, &res);
	ASSERT_CU(CUDA_SUCCESS, res);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(fd);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d));
}

/* ---- the raw ioctl ---- */

/*
 * A client with a context and @pages of cuMemAlloc memory at *@addr:
 * its fd, or -errno.
 */
static int raw_client(unsigned int pages, __u64 *addr, __u32 *ctx)
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = pages * PAGE };
	int fd = cufab_open(), err;

	if (fd < 0)
		return -errno;
	err = ctx_create(fd, 0, 0, &a.ctx_id);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a);
	if (err) {
		close(fd);
		return -err;
	}
	*addr = a.out_addr;
	if (ctx)
		*ctx = a.ctx_id;
	return fd;
}

/*
 * munmap() of MEM_ALLOC memory after close(): its mapping holds the
 * client's file. Splitting the VMA allocates, so an injected fault may
 * fail the first call; the fault is injected once, the second goes.
 */
static void unmap_pages(__u64 addr, size_t len)
{
	if (munmap((void *)(uintptr_t)addr, len))
		munmap((void *)(uintptr_t)addr, len);
}

/* Open fds of this process. */
static int count_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

/* The reply cannot be written: EFAULT, and no fd is left behind. */
TEST(reply_fault_leaks_no_fd)
{
	struct cufab_mem_range_export *cmd;
	__u64 addr;
	int fd, before;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	fd = raw_client(2, &addr, NULL);
	ASSERT_LE(0, fd);
	cmd = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cmd);
	*cmd = (struct cufab_mem_range_export){
		.size = sizeof(*cmd), .addr = addr, .length = 2 * PAGE,
	};
	ASSERT_EQ(0, mprotect(cmd, PAGE, PROT_READ));
	before = count_fds();
	EXPECT_EQ(EFAULT, cufab_ioc(fd, CUFAB_IOCTL_MEM_RANGE_EXPORT, cmd));
	EXPECT_EQ(before, count_fds());
	munmap(cmd, PAGE);
	close(fd);
}

struct race {
	int fd;
	__u64 addr;
	int stop;
	int exported;
	int other;	/* an errno neither 0 nor EINVAL */
};

/* Export the page over and over while it is freed and allocated again. */
static void *race_export(void *arg)
{
	struct race *r = arg;
	struct cufab_mem_range_export cmd;
	int ret;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		cmd = (struct cufab_mem_range_export){
			.size = sizeof(cmd),
			.addr = __atomic_load_n(&r->addr, __ATOMIC_ACQUIRE),
			.length = PAGE,
		};
		ret = cufab_ioc(r->fd, CUFAB_IOCTL_MEM_RANGE_EXPORT, &cmd);
		if (!ret) {
			r->exported++;
			close(cmd.out_fd);
		} else if (ret != EINVAL) {
			r->other = ret;
		}
	}
	return NULL;
}

/*
 * An export racing the cuMemFree of its allocation: it sees the
 * allocation whole or not at all (0 or EINVAL), and what it exported
 * stays readable.
 */
TEST(export_races_free)
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = PAGE };
	struct cufab_mem_free f = { .size = sizeof(f) };
	struct race r = {};
	pthread_t t;
	int i;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	r.fd = raw_client(1, &r.addr, &a.ctx_id);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, pthread_create(&t, NULL, race_export, &r));
	for (i = 0; i < 200; i++) {
		f.addr = r.addr;
		ASSERT_EQ(0, cufab_ioc(r.fd, CUFAB_IOCTL_MEM_FREE, &f));
		ASSERT_EQ(0, cufab_ioc(r.fd, CUFAB_IOCTL_MEM_ALLOC, &a));
		__atomic_store_n(&r.addr, a.out_addr, __ATOMIC_RELEASE);
		usleep(i % 7 * 20);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.other);
	TH_LOG("%d exports during 200 frees", r.exported);
	close(r.fd);
}

FIXTURE(nth) {
	int unused;
};

FIXTURE_SETUP(nth)
{
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
}

FIXTURE_TEARDOWN(nth)
{
	fault_restore();
}

/*
 * A client, three pages, a dma-buf of two of them, the client closed
 * before the fd. 0 or the first errno. The scenario does not touch the
 * dma-buf's mapping: a page it could not allocate there is a SIGBUS, as
 * for every mapping of device memory.
 */
static int range_scenario(void)
{
	struct cufab_mem_range_export cmd = {
		.size = sizeof(cmd), .length = 2 * PAGE,
	};
	__u64 addr;
	int fd, err;

	fd = raw_client(3, &addr, NULL);
	if (fd < 0)
		return -fd;
	cmd.addr = addr + PAGE;
	err = cufab_ioc(fd, CUFAB_IOCTL_MEM_RANGE_EXPORT, &cmd);
	close(fd);
	unmap_pages(addr, 3 * PAGE);
	if (!err && lseek(cmd.out_fd, 0, SEEK_END) != 2 * PAGE)
		err = EPROTO;
	if (cmd.out_fd > 0)
		close(cmd.out_fd);
	return err;
}

TEST_FAIL_NTH(nth, fail_nth)
{
	/* open, context, allocation, and the export's own points */
	nth->min_injected = 4;
	nth->min_failed = 1;
	return range_scenario();
}

TEST_HARNESS_MAIN
