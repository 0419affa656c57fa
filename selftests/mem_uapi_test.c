// SPDX-License-Identifier: GPL-2.0
/*
 * Memory ioctls through raw ioctls (uAPI header only): cuMemCreate and
 * friends, VA reservations with their CPU view, cuMemMap/Unmap/SetAccess,
 * linear allocations, copies, sets, pointer info, accounting, process
 * death, fault injection and host-NUMA placement.
 *
 * Each test opens its own client. Without /dev/cufab every test skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cufab.h>

#include "cufab_test.h"
#include "kselftest_harness.h"

#define MIB		(1024ULL * 1024)
#define PG		4096ULL

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static int mem_create(int fd, __u32 type, __s32 id, __u32 htypes,
		      __u32 aflags, __u64 len, __u32 *h)
{
	struct cufab_mem_create c = {
		.size = sizeof(c), .location_type = type, .location_id = id,
		.handle_types = htypes, .alloc_flags = aflags, .length = len,
	};
	int ret = xioctl(fd, CUFAB_IOCTL_MEM_CREATE, &c);

	if (!ret && h)
		*h = c.out_handle;
	return ret;
}

static int dev_create(int fd, __s32 dev, __u64 len, __u32 *h)
{
	return mem_create(fd, CUFAB_LOC_DEVICE, dev, 0, 0, len, h);
}

static int mem_release(int fd, __u32 h)
{
	struct cufab_mem_release c = { .size = sizeof(c), .handle = h };

	return xioctl(fd, CUFAB_IOCTL_MEM_RELEASE, &c);
}

static int va_reserve(int fd, __u64 hint, __u64 len, __u64 align, __u64 *addr)
{
	struct cufab_va_reserve c = {
		.size = sizeof(c), .length = len, .alignment = align,
		.addr = hint,
	};
	int ret = xioctl(fd, CUFAB_IOCTL_VA_RESERVE, &c);

	if (!ret && addr)
		*addr = c.addr;
	return ret;
}

static int va_free(int fd, __u64 addr, __u64 len)
{
	struct cufab_va_free c = { .size = sizeof(c), .addr = addr,
				   .length = len };

	return xioctl(fd, CUFAB_IOCTL_VA_FREE, &c);
}

static int mem_map(int fd, __u64 addr, __u64 len, __u64 off, __u32 h)
{
	struct cufab_mem_map c = { .size = sizeof(c), .addr = addr,
				   .length = len, .offset = off, .handle = h };

	return xioctl(fd, CUFAB_IOCTL_MEM_MAP, &c);
}

static int mem_unmap(int fd, __u64 addr, __u64 len)
{
	struct cufab_mem_unmap c = { .size = sizeof(c), .addr = addr,
				     .length = len };

	return xioctl(fd, CUFAB_IOCTL_MEM_UNMAP, &c);
}

static int set_access(int fd, __u64 addr, __u64 len, __u32 type, __s32 id,
		      __u32 flags)
{
	struct cufab_mem_access d = { .location_type = type,
				      .location_id = id, .flags = flags };
	struct cufab_mem_set_access c = {
		.size = sizeof(c), .num_descs = 1, .addr = addr, .length = len,
		.descs_ptr = (uintptr_t)&d,
	};

	return xioctl(fd, CUFAB_IOCTL_MEM_SET_ACCESS, &c);
}

static int get_access(int fd, __u64 addr, __u32 type, __s32 id, __u32 *flags)
{
	struct cufab_mem_get_access c = { .size = sizeof(c), .addr = addr,
					  .location_type = type,
					  .location_id = id };
	int ret = xioctl(fd, CUFAB_IOCTL_MEM_GET_ACCESS, &c);

	if (!ret)
		*flags = c.out_flags;
	return ret;
}

static int mem_info(int fd, __u32 dev, __u64 *free_b, __u64 *total)
{
	struct cufab_mem_get_info c = { .size = sizeof(c), .dev = dev };
	int ret = xioctl(fd, CUFAB_IOCTL_MEM_GET_INFO, &c);

	if (!ret) {
		*free_b = c.out_free;
		if (total)
			*total = c.out_total;
	}
	return ret;
}

static int mem_alloc(int fd, __u32 dev, __u32 flags, __u64 len, __u64 *addr)
{
	struct cufab_mem_alloc c = { .size = sizeof(c), .flags = flags,
				     .dev = dev, .length = len };
	int ret = xioctl(fd, CUFAB_IOCTL_MEM_ALLOC, &c);

	if (!ret)
		*addr = c.out_addr;
	return ret;
}

static int mem_free(int fd, __u32 flags, __u64 addr)
{
	struct cufab_mem_free c = { .size = sizeof(c), .flags = flags,
				    .addr = addr };

	return xioctl(fd, CUFAB_IOCTL_MEM_FREE, &c);
}

static int mem_copy(int fd, __u32 dev, __u64 dst, __u64 src, __u64 len)
{
	struct cufab_mem_copy c = { .size = sizeof(c), .dev = dev, .dst = dst,
				    .src = src, .length = len };

	return xioctl(fd, CUFAB_IOCTL_MEM_COPY, &c);
}

static int mem_set(int fd, __u32 dev, __u64 dst, __u32 elem, __u32 value,
		   __u64 count)
{
	struct cufab_mem_set c = { .size = sizeof(c), .dev = dev, .dst = dst,
				   .elem_size = elem, .value = value,
				   .count = count };

	return xioctl(fd, CUFAB_IOCTL_MEM_SET, &c);
}

static int ptr_info(int fd, __u64 addr, struct cufab_pointer_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	pi->addr = addr;
	return xioctl(fd, CUFAB_IOCTL_POINTER_INFO, pi);
}

/* ---- touching memory: 0, or the signal it raised ---- */

static sigjmp_buf probe_env;

static void probe_handler(int sig)
{
	siglongjmp(probe_env, sig);
}

static int probe(__u64 addr, bool write, unsigned char val,
		 unsigned char *out)
{
	struct sigaction sa = { .sa_handler = probe_handler }, old_segv,
			 old_bus;
	unsigned char *p = (unsigned char *)(uintptr_t)addr;
	unsigned char v;
	int sig;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(probe_env, 1);
	if (sig == 0) {
		/* atomics: the compiler must really touch the memory */
		if (write) {
			__atomic_store_n(p, val, __ATOMIC_RELAXED);
		} else {
			v = __atomic_load_n(p, __ATOMIC_RELAXED);
			if (out)
				*out = v;
		}
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

FIXTURE(mem) {
	int fd;
	__u32 num_gpus;
	__u64 gran;
};

FIXTURE_SETUP(mem)
{
	struct cufab_get_version ver = { .size = sizeof(ver) };
	struct cufab_device_info info = { .size = sizeof(info) };

	OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_GET_VERSION, &ver));
	self->num_gpus = ver.num_gpus;
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_DEVICE_INFO, &info));
	self->gran = info.mem_granularity;
	ASSERT_NE(0U, self->gran);
}

FIXTURE_TEARDOWN(mem)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The 6.1 harness runs the test body after a SKIP in the fixture setup. */
static bool skipped(struct __test_metadata *_metadata)
{
	return _metadata->skip;
}

TEST_F(mem, granularity)
{
	struct cufab_device_info info = { .size = sizeof(info) };
	__u32 i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < self->num_gpus; i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		info.index = i;
		ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_DEVICE_INFO, &info));
		EXPECT_EQ(2 * MIB, info.mem_granularity);
		EXPECT_EQ(2 * MIB, info.mem_granularity_rec);
		EXPECT_EQ(2 * MIB, info.mc_granularity);
		EXPECT_EQ(512 * MIB, info.mc_granularity_rec);
	}
}

TEST_F(mem, create_errors)
{
	struct cufab_mem_create c = { .size = sizeof(c),
				      .location_type = CUFAB_LOC_DEVICE,
				      .length = self->gran };
	__u64 g = self->gran;
	__u32 host;

	if (skipped(_metadata))
		return;
	EXPECT_EQ(EINVAL, dev_create(self->fd, 0, 0, NULL));
	EXPECT_EQ(EINVAL, dev_create(self->fd, 0, g + PG, NULL));
	EXPECT_EQ(EINVAL, dev_create(self->fd, 0, g / 2, NULL));
	EXPECT_EQ(ENODEV, dev_create(self->fd, self->num_gpus, g, NULL));
	EXPECT_EQ(ENODEV, dev_create(self->fd, -1, g, NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, 0, 0, 0, 0, g, NULL));
	/* HOST: the id means nothing; the size is a multiple of granularity */
	EXPECT_EQ(0, mem_create(self->fd, CUFAB_LOC_HOST, 77, 0, 0, g, &host));
	EXPECT_EQ(0, mem_release(self->fd, host));
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_HOST, 0, 0, 0, g + PG,
				     NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_HOST, 0,
				     CUFAB_HANDLE_POSIX_FD, 0, g, NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, 7, 0, 0, 0, g, NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_HOST_NUMA, 4096, 0,
				     0, g, NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_HOST_NUMA, -1, 0, 0,
				     g, NULL));
	/* WIN32 handle types, unknown bits */
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_DEVICE, 0, 0x2, 0, g,
				     NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_DEVICE, 0, 0x100, 0,
				     g, NULL));
	EXPECT_EQ(EINVAL, mem_create(self->fd, CUFAB_LOC_DEVICE, 0, 0, 0x4, g,
				     NULL));
	EXPECT_EQ(EOPNOTSUPP, mem_create(self->fd, CUFAB_LOC_DEVICE, 0, 0,
					 CUFAB_ALLOC_F_COMPRESSIBLE, g, NULL));
	/* FABRIC needs an IMEX channel, which this client has not set */
	EXPECT_EQ(EPERM, mem_create(self->fd, CUFAB_LOC_DEVICE, 0,
				    CUFAB_HANDLE_FABRIC, 0, g, NULL));
	c.flags = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_CREATE, &c));
	c.flags = 0;
	c.__reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_CREATE, &c));
}

TEST_F(mem, create_props_release)
{
	struct cufab_mem_get_props p = { .size = sizeof(p) };
	struct cufab_ctx_create ctx = { .size = sizeof(ctx) };
	__u32 h, h2;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_LOC_DEVICE, 1 % self->num_gpus,
				CUFAB_HANDLE_POSIX_FD,
				CUFAB_ALLOC_F_GPU_DIRECT_RDMA, 2 * self->gran,
				&h));
	ASSERT_EQ(0, dev_create(self->fd, 0, self->gran, &h2));
	EXPECT_NE(h, h2);
	p.handle = h;
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_GET_PROPS, &p));
	EXPECT_EQ((__u32)CUFAB_LOC_DEVICE, p.out_location_type);
	EXPECT_EQ((__s32)(1 % self->num_gpus), p.out_location_id);
	EXPECT_EQ((__u32)CUFAB_HANDLE_POSIX_FD, p.out_handle_types);
	EXPECT_EQ((__u32)CUFAB_ALLOC_F_GPU_DIRECT_RDMA, p.out_alloc_flags);
	EXPECT_EQ(2 * self->gran, p.out_length);
	EXPECT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(ENOENT, xioctl(self->fd, CUFAB_IOCTL_MEM_GET_PROPS, &p));
	EXPECT_EQ(ENOENT, mem_release(self->fd, h));
	EXPECT_EQ(ENOENT, mem_release(self->fd, 0));
	/* a context id is not a memory handle */
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_CTX_CREATE, &ctx));
	EXPECT_EQ(ENOENT, mem_release(self->fd, ctx.out_ctx_id));
	EXPECT_EQ(0, mem_release(self->fd, h2));
}

/* Handle ids are per client: another client's id names nothing here. */
TEST_F(mem, foreign_handle)
{
	int fd2 = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	__u64 addr;
	__u32 h;

	if (skipped(_metadata))
		return;
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, dev_create(fd2, 0, self->gran, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, self->gran, 0, &addr));
	EXPECT_EQ(ENOENT, mem_map(self->fd, addr, self->gran, 0, h));
	EXPECT_EQ(ENOENT, mem_release(self->fd, h));
	EXPECT_EQ(0, va_free(self->fd, addr, self->gran));
	EXPECT_EQ(0, mem_release(fd2, h));
	close(fd2);
}

TEST_F(mem, capacity_and_info)
{
	__u64 free0, total, free1, other0 = 0, other1 = 0;
	__u32 h, h2;

	if (skipped(_metadata))
		return;
	EXPECT_EQ(ENODEV, mem_info(self->fd, self->num_gpus, &free0, &total));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free0, &total));
	ASSERT_LE(free0, total);
	if (self->num_gpus > 1)
		ASSERT_EQ(0, mem_info(self->fd, 1, &other0, NULL));
	EXPECT_EQ(ENOMEM, dev_create(self->fd, 0, total + self->gran, NULL));
	ASSERT_EQ(0, dev_create(self->fd, 0, free0 & ~(self->gran - 1), &h));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0 % self->gran, free1);
	EXPECT_EQ(ENOMEM, dev_create(self->fd, 0, self->gran, &h2));
	if (self->num_gpus > 1) {
		/* another GPU is not affected */
		ASSERT_EQ(0, mem_info(self->fd, 1, &other1, NULL));
		EXPECT_EQ(other0, other1);
		ASSERT_EQ(0, dev_create(self->fd, 1, self->gran, &h2));
		EXPECT_EQ(0, mem_release(self->fd, h2));
	}
	EXPECT_EQ(0, mem_release(self->fd, h));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0, free1);
}

TEST_F(mem, reserve_errors_and_alignment)
{
	__u64 g = self->gran, a, b;

	if (skipped(_metadata))
		return;
	EXPECT_EQ(EINVAL, va_reserve(self->fd, 0, 0, 0, &a));
	EXPECT_EQ(EINVAL, va_reserve(self->fd, 0, PG + 1, 0, &a));
	EXPECT_EQ(EINVAL, va_reserve(self->fd, 0, g, 3 * PG, &a));
	EXPECT_EQ(ENOMEM, va_reserve(self->fd, 0, 1ULL << 62, 0, &a));

	ASSERT_EQ(0, va_reserve(self->fd, 0, 2 * g, 0, &a));
	EXPECT_EQ(0U, a % g);
	EXPECT_EQ(EINVAL, va_free(self->fd, a, g));
	EXPECT_EQ(EINVAL, va_free(self->fd, a + g, g));
	EXPECT_EQ(EINVAL, va_free(self->fd, a, 0));
	EXPECT_EQ(0, va_free(self->fd, a, 2 * g));
	EXPECT_EQ(EINVAL, va_free(self->fd, a, 2 * g));

	/* the hint is honoured when free and aligned */
	ASSERT_EQ(0, va_reserve(self->fd, a, 2 * g, 0, &b));
	EXPECT_EQ(a, b);
	EXPECT_EQ(0, va_free(self->fd, b, 2 * g));

	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 1ULL << 30, &a));
	EXPECT_EQ(0U, a & ((1ULL << 30) - 1));
	EXPECT_EQ(0, va_free(self->fd, a, g));
}

/* Userspace cannot mmap /dev/cufab nor reshape a reservation's VMA. */
TEST_F(mem, vma_is_fixed)
{
	__u64 g = self->gran, a;
	void *p;

	if (skipped(_metadata))
		return;
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, va_reserve(self->fd, 0, 2 * g, 0, &a));
	EXPECT_EQ(-1, munmap((void *)(uintptr_t)a, g));
	EXPECT_EQ(-1, mprotect((void *)(uintptr_t)(a + g), g, PROT_READ));
	p = mremap((void *)(uintptr_t)a, 2 * g, 4 * g, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);
	/* no way to make a child inherit it, nor to execute it */
	EXPECT_EQ(-1, madvise((void *)(uintptr_t)a, 2 * g, MADV_DOFORK));
	EXPECT_EQ(-1, mprotect((void *)(uintptr_t)a, 2 * g, PROT_EXEC));
	EXPECT_EQ(0, va_free(self->fd, a, 2 * g));
}

/* munmap() of a whole reservation by userspace drops it cleanly. */
TEST_F(mem, user_munmap)
{
	struct cufab_pointer_info pi;
	long long live = live_objects();
	__u64 g = self->gran, a;
	__u32 h;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &a));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 3));
	ASSERT_EQ(0, probe(a, true, 7, NULL));
	ASSERT_EQ(0, munmap((void *)(uintptr_t)a, g));
	ASSERT_EQ(0, ptr_info(self->fd, a, &pi));
	EXPECT_EQ(0U, pi.out_flags);
	EXPECT_EQ(EINVAL, va_free(self->fd, a, g));
	EXPECT_EQ(0, mem_release(self->fd, h));
	if (live >= 0)
		EXPECT_EQ(live, live_objects());
}

TEST_F(mem, map_errors)
{
	__u64 g = self->gran, a, b;
	__u32 h, h2;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, dev_create(self->fd, 0, 2 * g, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, 4 * g, 0, &a));
	/* alignment of address, length, offset */
	EXPECT_EQ(EINVAL, mem_map(self->fd, a + PG, g, 0, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, g + PG, 0, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, g, PG, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, 0, 0, h));
	/* offset + size past the allocation, and wrapping */
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, 2 * g, g, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, 3 * g, 0, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, 2 * g, -(2 * g), h));
	/* outside any reservation, past its end */
	EXPECT_EQ(EINVAL, mem_map(self->fd, g, g, 0, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a + 3 * g, 2 * g, 0, h));
	/* handles */
	EXPECT_EQ(ENOENT, mem_map(self->fd, a, g, 0, h + 100));
	/* overlap */
	ASSERT_EQ(0, mem_map(self->fd, a + g, 2 * g, 0, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a, 2 * g, 0, h));
	EXPECT_EQ(EINVAL, mem_map(self->fd, a + 2 * g, g, 0, h));
	/* several allocations in one reservation */
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h2));
	EXPECT_EQ(0, mem_map(self->fd, a, g, 0, h2));
	EXPECT_EQ(0, mem_map(self->fd, a + 3 * g, g, g, h));
	/* released handle */
	EXPECT_EQ(0, mem_release(self->fd, h2));
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &b));
	EXPECT_EQ(ENOENT, mem_map(self->fd, b, g, 0, h2));
	EXPECT_EQ(0, va_free(self->fd, b, g));
	/* free with mappings, unmap of partial ranges */
	EXPECT_EQ(EINVAL, va_free(self->fd, a, 4 * g));
	EXPECT_EQ(EINVAL, mem_unmap(self->fd, a + g, g));
	EXPECT_EQ(EINVAL, mem_unmap(self->fd, a, 4 * g + g));
	/* unmap of several whole mappings at once */
	EXPECT_EQ(0, mem_unmap(self->fd, a, 3 * g));
	EXPECT_EQ(EINVAL, mem_unmap(self->fd, a, g));
	EXPECT_EQ(0, mem_unmap(self->fd, a + 3 * g, g));
	EXPECT_EQ(0, va_free(self->fd, a, 4 * g));
	EXPECT_EQ(0, mem_release(self->fd, h));
}

TEST_F(mem, access_and_cpu_view)
{
	__u64 g = self->gran, a;
	unsigned char v = 0xff;
	__u32 h, h2, fl;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h));
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h2));
	ASSERT_EQ(0, va_reserve(self->fd, 0, 3 * g, 0, &a));
	/* reserved but unmapped, then mapped without access: inaccessible */
	EXPECT_EQ(SIGSEGV, probe(a, false, 0, NULL));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h));
	ASSERT_EQ(0, mem_map(self->fd, a + g, g, 0, h2));
	EXPECT_EQ(SIGSEGV, probe(a, false, 0, NULL));
	EXPECT_EQ(SIGSEGV, probe(a, true, 1, NULL));
	EXPECT_EQ(0, get_access(self->fd, a, CUFAB_LOC_DEVICE, 0, &fl));
	EXPECT_EQ(0U, fl);

	/* set-access errors */
	EXPECT_EQ(EINVAL, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 2));
	EXPECT_EQ(ENODEV, set_access(self->fd, a, g, CUFAB_LOC_DEVICE,
				     self->num_gpus, 3));
	EXPECT_EQ(EINVAL, set_access(self->fd, a, g, 9, 0, 3));
	EXPECT_EQ(EINVAL, set_access(self->fd, a, 3 * g, CUFAB_LOC_DEVICE, 0,
				     3));
	EXPECT_EQ(EINVAL, set_access(self->fd, a + g / 2, g,
				     CUFAB_LOC_DEVICE, 0, 3));
	EXPECT_EQ(ENODEV, get_access(self->fd, a, CUFAB_LOC_DEVICE,
				     self->num_gpus, &fl));
	EXPECT_EQ(EINVAL, get_access(self->fd, a + 2 * g, CUFAB_LOC_DEVICE, 0,
				     &fl));

	/* read-write for device 0 over both mappings */
	ASSERT_EQ(0, set_access(self->fd, a, 2 * g, CUFAB_LOC_DEVICE, 0, 3));
	EXPECT_EQ(0, get_access(self->fd, a + g, CUFAB_LOC_DEVICE, 0, &fl));
	EXPECT_EQ(3U, fl);
	if (self->num_gpus > 1) {
		EXPECT_EQ(0, get_access(self->fd, a, CUFAB_LOC_DEVICE, 1, &fl));
		EXPECT_EQ(0U, fl);
	}
	EXPECT_EQ(0, get_access(self->fd, a, CUFAB_LOC_HOST, 0, &fl));
	EXPECT_EQ(0U, fl);
	/* pages are zero on first touch */
	EXPECT_EQ(0, probe(a + 123, false, 0, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, probe(a + g + 5, true, 0x42, NULL));
	EXPECT_EQ(0, probe(a + g + 5, false, 0, &v));
	EXPECT_EQ(0x42, v);
	/* the tail of the reservation stays unmapped */
	EXPECT_EQ(SIGSEGV, probe(a + 2 * g, false, 0, NULL));

	/* read-only for the host, nothing for the device: writes refused */
	ASSERT_EQ(0, set_access(self->fd, a + g, g, CUFAB_LOC_DEVICE, 0, 0));
	ASSERT_EQ(0, set_access(self->fd, a + g, g, CUFAB_LOC_HOST, 0, 1));
	EXPECT_EQ(0, probe(a + g + 5, false, 0, &v));
	EXPECT_EQ(0x42, v);
	EXPECT_EQ(SIGSEGV, probe(a + g + 5, true, 1, NULL));
	/* and back to read-write */
	ASSERT_EQ(0, set_access(self->fd, a + g, g, CUFAB_LOC_HOST, 0, 3));
	EXPECT_EQ(0, probe(a + g + 5, true, 0x43, NULL));
	/* revoking everything makes it inaccessible again */
	ASSERT_EQ(0, set_access(self->fd, a + g, g, CUFAB_LOC_HOST, 0, 0));
	EXPECT_EQ(SIGSEGV, probe(a + g + 5, false, 0, NULL));

	/* after unmap the range faults */
	ASSERT_EQ(0, mem_unmap(self->fd, a, g));
	EXPECT_EQ(SIGSEGV, probe(a + 123, false, 0, NULL));
	EXPECT_EQ(0, mem_unmap(self->fd, a + g, g));
	EXPECT_EQ(0, va_free(self->fd, a, 3 * g));
	EXPECT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(0, mem_release(self->fd, h2));
}

/* Two reservations map one allocation: one set of pages. */
TEST_F(mem, shared_pages_two_mappings)
{
	__u64 g = self->gran, a, b;
	unsigned char v = 0;
	__u32 h;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, dev_create(self->fd, 0, 2 * g, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, 2 * g, 0, &a));
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &b));
	ASSERT_EQ(0, mem_map(self->fd, a, 2 * g, 0, h));
	/* b shows the second half of the allocation */
	ASSERT_EQ(0, mem_map(self->fd, b, g, g, h));
	ASSERT_EQ(0, set_access(self->fd, a, 2 * g, CUFAB_LOC_HOST, 0, 3));
	ASSERT_EQ(0, set_access(self->fd, b, g, CUFAB_LOC_DEVICE, 0, 3));
	EXPECT_EQ(0, probe(a + g + 77, true, 0x5a, NULL));
	EXPECT_EQ(0, probe(b + 77, false, 0, &v));
	EXPECT_EQ(0x5a, v);
	EXPECT_EQ(0, probe(b + 78, true, 0xa5, NULL));
	EXPECT_EQ(0, probe(a + g + 78, false, 0, &v));
	EXPECT_EQ(0xa5, v);
	/* released while mapped: the memory stays */
	EXPECT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(0, probe(b + 77, false, 0, &v));
	EXPECT_EQ(0x5a, v);
	EXPECT_EQ(0, mem_unmap(self->fd, a, 2 * g));
	EXPECT_EQ(0, probe(b + 78, false, 0, &v));
	EXPECT_EQ(0xa5, v);
	EXPECT_EQ(0, mem_unmap(self->fd, b, g));
	EXPECT_EQ(0, va_free(self->fd, a, 2 * g));
	EXPECT_EQ(0, va_free(self->fd, b, g));
}

TEST_F(mem, retain_and_pointer_info)
{
	struct cufab_mem_retain r = { .size = sizeof(r) };
	struct cufab_mem_get_props p = { .size = sizeof(p) };
	struct cufab_pointer_info pi, pi2;
	__u64 g = self->gran, a, b;
	int local = 0;
	__u32 h;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_LOC_DEVICE, 0,
				CUFAB_HANDLE_POSIX_FD, 0, 2 * g, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, 3 * g, 0, &a));
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &b));
	ASSERT_EQ(0, mem_map(self->fd, a + g, 2 * g, 0, h));
	ASSERT_EQ(0, mem_map(self->fd, b, g, g, h));
	ASSERT_EQ(0, set_access(self->fd, a + g, 2 * g, CUFAB_LOC_HOST, 0, 1));

	ASSERT_EQ(0, ptr_info(self->fd, (uintptr_t)&local, &pi));
	EXPECT_EQ(0U, pi.out_flags);
	EXPECT_EQ(-1, pi.out_dev);
	ASSERT_EQ(0, ptr_info(self->fd, a + 5, &pi));
	EXPECT_EQ((__u32)CUFAB_PTR_F_CUFAB, pi.out_flags);
	ASSERT_EQ(0, ptr_info(self->fd, a + g + 5, &pi));
	EXPECT_EQ((__u32)CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED | CUFAB_PTR_F_VMM,
		  pi.out_flags);
	EXPECT_EQ(2U, pi.out_memory_type);
	EXPECT_EQ(0, pi.out_dev);
	EXPECT_EQ(a + g, pi.out_range_base);
	EXPECT_EQ(2 * g, pi.out_range_length);
	EXPECT_EQ(a, pi.out_va_base);		/* the reservation */
	EXPECT_EQ(3 * g, pi.out_va_length);
	EXPECT_EQ((__u32)CUFAB_HANDLE_POSIX_FD, pi.out_handle_types);
	EXPECT_EQ(1U, pi.out_access_flags);
	EXPECT_NE(0U, pi.out_alloc_id);
	ASSERT_EQ(0, ptr_info(self->fd, b, &pi2));
	EXPECT_EQ(pi.out_alloc_id, pi2.out_alloc_id);
	EXPECT_EQ(b, pi2.out_range_base);

	/* retain returns the handle mapped with; it needs two releases */
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_RETAIN, &r));
	r.addr = a + 5;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_RETAIN, &r));
	r.addr = a + g + 3 * PG;
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_RETAIN, &r));
	EXPECT_EQ(h, r.out_handle);
	EXPECT_EQ(0, mem_release(self->fd, h));
	p.handle = h;
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_GET_PROPS, &p));
	EXPECT_EQ(2 * g, p.out_length);
	EXPECT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(ENOENT, mem_release(self->fd, h));
	EXPECT_EQ(ENOENT, xioctl(self->fd, CUFAB_IOCTL_MEM_GET_PROPS, &p));

	/* once released, a retain makes a new handle on the allocation */
	r.addr = b;
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_RETAIN, &r));
	p.handle = r.out_handle;
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_GET_PROPS, &p));
	EXPECT_EQ(2 * g, p.out_length);
	EXPECT_EQ(0, mem_release(self->fd, r.out_handle));
	EXPECT_EQ(ENOENT, mem_release(self->fd, r.out_handle));

	EXPECT_EQ(0, mem_unmap(self->fd, a + g, 2 * g));
	EXPECT_EQ(0, mem_unmap(self->fd, b, g));
	EXPECT_EQ(0, va_free(self->fd, a, 3 * g));
	EXPECT_EQ(0, va_free(self->fd, b, g));
}

TEST_F(mem, linear_alloc_free)
{
	struct cufab_mem_retain r = { .size = sizeof(r) };
	struct cufab_pointer_info pi;
	__u64 d, hst, free0, free1, va;
	unsigned char v = 1;

	if (skipped(_metadata))
		return;
	EXPECT_EQ(EINVAL, mem_alloc(self->fd, 0, 0, 0, &d));
	EXPECT_EQ(EINVAL, mem_alloc(self->fd, 0, 2, PG, &d));
	EXPECT_EQ(ENODEV, mem_alloc(self->fd, self->num_gpus, 0, PG, &d));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free0, NULL));
	ASSERT_EQ(0, mem_alloc(self->fd, 0, 0, 10000, &d));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0 - 3 * PG, free1);
	ASSERT_EQ(0, mem_alloc(self->fd, 0, CUFAB_MEM_ALLOC_HOST, 100, &hst));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0 - 3 * PG, free1);

	/* accessible right away, zeroed */
	EXPECT_EQ(0, probe(d + 9999, false, 0, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, probe(d + 9999, true, 9, NULL));
	EXPECT_EQ(0, probe(hst + 99, true, 9, NULL));

	ASSERT_EQ(0, ptr_info(self->fd, d + 5000, &pi));
	EXPECT_EQ((__u32)CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED | CUFAB_PTR_F_LINEAR,
		  pi.out_flags);
	EXPECT_EQ(2U, pi.out_memory_type);
	EXPECT_EQ(0, pi.out_dev);
	EXPECT_EQ(d, pi.out_range_base);
	EXPECT_EQ(3 * PG, pi.out_range_length);
	ASSERT_EQ(0, ptr_info(self->fd, hst, &pi));
	EXPECT_EQ(1U, pi.out_memory_type);
	EXPECT_EQ(0, pi.out_dev);

	/* the VMM calls refuse linear memory */
	r.addr = d;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_RETAIN, &r));
	EXPECT_EQ(EINVAL, mem_unmap(self->fd, d, 3 * PG));
	EXPECT_EQ(EINVAL, va_free(self->fd, d, 3 * PG));
	/* and MEM_FREE refuses VMM memory, interior pointers, wrong kind */
	ASSERT_EQ(0, va_reserve(self->fd, 0, self->gran, 0, &va));
	EXPECT_EQ(EINVAL, mem_free(self->fd, 0, va));
	EXPECT_EQ(0, va_free(self->fd, va, self->gran));
	EXPECT_EQ(EINVAL, mem_free(self->fd, 0, d + PG));
	EXPECT_EQ(EINVAL, mem_free(self->fd, CUFAB_MEM_ALLOC_HOST, d));
	EXPECT_EQ(EINVAL, mem_free(self->fd, 0, hst));
	EXPECT_EQ(EINVAL, mem_free(self->fd, 4, d));

	EXPECT_EQ(0, mem_free(self->fd, 0, d));
	EXPECT_EQ(EINVAL, mem_free(self->fd, 0, d));
	EXPECT_EQ(SIGSEGV, probe(d, false, 0, NULL));
	EXPECT_EQ(0, mem_free(self->fd, CUFAB_MEM_ALLOC_HOST, hst));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0, free1);
}

static int ctx_new(int fd, __u32 dev, __u32 *id)
{
	struct cufab_ctx_create c = { .size = sizeof(c), .dev = dev };
	int ret = xioctl(fd, CUFAB_IOCTL_CTX_CREATE, &c);

	if (!ret)
		*id = c.out_ctx_id;
	return ret;
}

static int obj_destroy(int fd, __u32 id)
{
	struct cufab_destroy c = { .size = sizeof(c), .id = id };

	return xioctl(fd, CUFAB_IOCTL_DESTROY, &c);
}

/*
 * MEM_ALLOC's ctx_id: the allocation goes with its context's DESTROY; an
 * unknown context is ENOENT, one of another GPU EINVAL, __reserved2 EINVAL,
 * and a caller compiled before the field (shorter size) gets no context.
 * POINTER_INFO reports the context in out_ctx_id.
 */
TEST_F(mem, linear_alloc_ctx)
{
	struct cufab_mem_alloc c = { .size = sizeof(c), .length = PG };
	struct cufab_pointer_info pi;
	__u64 free0, free1, d_ctx, d_old;
	__u32 ctx, ctx1;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, ctx_new(self->fd, 0, &ctx));
	c.ctx_id = ctx + 100;
	EXPECT_EQ(ENOENT, xioctl(self->fd, CUFAB_IOCTL_MEM_ALLOC, &c));
	c.ctx_id = ctx;
	/* cuMemHostAlloc's flags: for host memory only, and only those */
	c.host_flags = CUFAB_HOSTALLOC_PORTABLE;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_ALLOC, &c));
	c.flags = CUFAB_MEM_ALLOC_HOST;
	c.host_flags = 0x8;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_ALLOC, &c));
	c.flags = 0;
	c.host_flags = 0;
	if (self->num_gpus > 1) {
		ASSERT_EQ(0, ctx_new(self->fd, 1, &ctx1));
		c.ctx_id = ctx1;
		EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_MEM_ALLOC, &c));
		EXPECT_EQ(0, obj_destroy(self->fd, ctx1));
		c.ctx_id = ctx;
	}

	ASSERT_EQ(0, mem_info(self->fd, 0, &free0, NULL));
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_ALLOC, &c));
	d_ctx = c.out_addr;
	/* the old layout: size up to out_addr, no ctx_id */
	c.size = offsetof(struct cufab_mem_alloc, ctx_id);
	ASSERT_EQ(0, xioctl(self->fd, CUFAB_IOCTL_MEM_ALLOC, &c));
	d_old = c.out_addr;
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0 - 2 * PG, free1);

	/* pointer info names the context (1.4), 0 for none */
	ASSERT_EQ(0, ptr_info(self->fd, d_ctx + 1, &pi));
	EXPECT_EQ(ctx, pi.out_ctx_id);
	ASSERT_EQ(0, ptr_info(self->fd, d_old, &pi));
	EXPECT_EQ(0, pi.out_ctx_id);
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	pi.addr = d_ctx;
	pi.__reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, CUFAB_IOCTL_POINTER_INFO, &pi));

	EXPECT_EQ(0, obj_destroy(self->fd, ctx));
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0 - PG, free1);
	EXPECT_EQ(EINVAL, mem_free(self->fd, 0, d_ctx));
	EXPECT_EQ(SIGSEGV, probe(d_ctx, false, 0, NULL));
	EXPECT_EQ(0, mem_free(self->fd, 0, d_old));
}

TEST_F(mem, copy_and_set)
{
	__u64 g = self->gran, d1, d2, a, n = 3 * PG + 17;
	unsigned char *buf = malloc(n), *out = malloc(n);
	__u32 h, *w;
	__u64 i;

	if (skipped(_metadata))
		return;
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, out);
	for (i = 0; i < n; i++)
		buf[i] = i * 7;
	ASSERT_EQ(0, mem_alloc(self->fd, 0, 0, n, &d1));
	ASSERT_EQ(0, mem_alloc(self->fd, 0, 0, n, &d2));
	EXPECT_EQ(ENODEV, mem_copy(self->fd, self->num_gpus, d1,
				   (uintptr_t)buf, n));
	EXPECT_EQ(0, mem_copy(self->fd, 0, d1, (uintptr_t)buf, n));	/* HtoD */
	EXPECT_EQ(0, mem_copy(self->fd, 0, d2, d1, n));			/* DtoD */
	memset(out, 0, n);
	EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)out, d2, n));	/* DtoH */
	EXPECT_EQ(0, memcmp(buf, out, n));
	EXPECT_EQ(0, mem_copy(self->fd, 0, d2, d1, 0));
	EXPECT_EQ(EINVAL, mem_copy(self->fd, 0, d2, -PG, 2 * PG));
	if (self->num_gpus > 1) {
		/*
		 * GPU 0's cuMemAlloc memory copied by GPU 1: NVIDIA's driver
		 * stages it, peer access or not (VMM memory below is
		 * different: cuMemSetAccess decides)
		 */
		memset(out, 0, n);
		EXPECT_EQ(0, mem_copy(self->fd, 1, (uintptr_t)out, d1, n));
		EXPECT_EQ(0, memcmp(buf, out, n));
	}

	/* memset D8/D16/D32 */
	EXPECT_EQ(0, mem_set(self->fd, 0, d1, 4, 0xdeadbeef, n / 4));
	w = (__u32 *)(uintptr_t)d1;
	EXPECT_EQ(0xdeadbeef, w[0]);
	EXPECT_EQ(0xdeadbeef, w[n / 4 - 1]);
	EXPECT_EQ(buf[n - 1], ((unsigned char *)(uintptr_t)d1)[n - 1]);
	EXPECT_EQ(0, mem_set(self->fd, 0, d1 + 1, 1, 0x11, 2));
	EXPECT_EQ(0xde1111ef, w[0]);
	EXPECT_EQ(0, mem_set(self->fd, 0, d1 + 2, 2, 0xabcd, 1));
	EXPECT_EQ(0xabcd11ef, w[0]);
	EXPECT_EQ(0xdeadbeef, w[1]);
	EXPECT_EQ(EINVAL, mem_set(self->fd, 0, d1 + 1, 4, 0, 1));
	EXPECT_EQ(EINVAL, mem_set(self->fd, 0, d1 + 1, 2, 0, 1));
	EXPECT_EQ(EINVAL, mem_set(self->fd, 0, d1, 3, 0, 1));
	EXPECT_EQ(EINVAL, mem_set(self->fd, 0, d1, 1, 0x100, 1));
	EXPECT_EQ(EINVAL, mem_set(self->fd, 0, d1, 4, 0, 1ULL << 63));

	/* VMM memory: copies need the device's access */
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, 2 * g, 0, &a));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h));
	EXPECT_EQ(EACCES, mem_copy(self->fd, 0, a, (uintptr_t)buf, n));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 1));
	EXPECT_EQ(EACCES, mem_copy(self->fd, 0, a, (uintptr_t)buf, n));
	EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)out, a, n));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 3));
	EXPECT_EQ(0, mem_copy(self->fd, 0, a, (uintptr_t)buf, n));
	memset(out, 0, n);
	EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)out, a, n));
	EXPECT_EQ(0, memcmp(buf, out, n));
	/* a copy running into the unmapped half of the reservation */
	EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, (uintptr_t)out,
				   a + g - PG, 2 * PG));
	EXPECT_EQ(0, mem_unmap(self->fd, a, g));
	EXPECT_EQ(0, va_free(self->fd, a, 2 * g));
	EXPECT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(0, mem_free(self->fd, 0, d1));
	EXPECT_EQ(0, mem_free(self->fd, 0, d2));
	free(buf);
	free(out);
}

/*
 * One-page copies repeat at the same pages, which the kernel remembers
 * (Documentation/architecture.rst "Copies"): every change of a mapping,
 * its access or its reservation must be seen by the next copy there.
 */
TEST_F(mem, short_copy_sees_changes)
{
	__u64 g = self->gran, a, d, i;
	unsigned char buf[PG], out[PG];
	__u32 h1, h2;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &a));
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h1));
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h2));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h1));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 3));
	memset(buf, 0x5a, PG);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, mem_copy(self->fd, 0, a, (uintptr_t)buf, PG));
		memset(out, 0, PG);
		EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)out, a, PG));
		EXPECT_EQ(0, memcmp(buf, out, PG));
	}
	/* read-only for the device: its writes are refused, reads not */
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 1));
	EXPECT_EQ(EACCES, mem_copy(self->fd, 0, a, (uintptr_t)buf, PG));
	EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)out, a, PG));
	if (self->num_gpus > 1)	/* another device, never granted */
		EXPECT_EQ(EACCES, mem_copy(self->fd, 1, (uintptr_t)out, a, PG));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 0));
	EXPECT_EQ(EACCES, mem_copy(self->fd, 0, (uintptr_t)out, a, PG));
	/* unmapped: nothing there; mapped again, the other allocation */
	ASSERT_EQ(0, mem_unmap(self->fd, a, g));
	EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, (uintptr_t)out, a, PG));
	ASSERT_EQ(0, mem_release(self->fd, h1));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h2));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 3));
	memset(out, 0xff, PG);
	EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)out, a, PG));
	memset(buf, 0, PG);	/* a new allocation reads as zeroes */
	EXPECT_EQ(0, memcmp(buf, out, PG));
	ASSERT_EQ(0, mem_unmap(self->fd, a, g));
	ASSERT_EQ(0, mem_release(self->fd, h2));
	ASSERT_EQ(0, va_free(self->fd, a, g));
	EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, (uintptr_t)out, a, PG));

	/* a page in no reservation (plain), then reserved and mapped there */
	for (i = 0; i < 3; i++)
		EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, a, (uintptr_t)buf, PG));
	ASSERT_EQ(0, va_reserve(self->fd, a, g, 0, &d));
	ASSERT_EQ(a, d);
	ASSERT_EQ(0, dev_create(self->fd, 0, g, &h1));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h1));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 3));
	EXPECT_EQ(0, mem_copy(self->fd, 0, a, (uintptr_t)buf, PG));
	ASSERT_EQ(0, mem_unmap(self->fd, a, g));
	ASSERT_EQ(0, mem_release(self->fd, h1));
	ASSERT_EQ(0, va_free(self->fd, a, g));

	/* cuMemAlloc memory, freed: the copy does not reach its page */
	ASSERT_EQ(0, mem_alloc(self->fd, 0, 0, PG, &d));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, mem_copy(self->fd, 0, d, (uintptr_t)buf, PG));
	ASSERT_EQ(0, mem_free(self->fd, 0, d));
	EXPECT_NE(0, mem_copy(self->fd, 0, d, (uintptr_t)buf, PG));
	EXPECT_NE(0, mem_copy(self->fd, 0, (uintptr_t)out, d, PG));
}

struct copy_racer {
	int fd;
	__u64 a;	/* the VMM page the other thread maps and unmaps */
	__u64 d;	/* a cuMemAlloc page */
	int stop;
	int bad;	/* an errno neither 0, EFAULT nor EACCES */
	long ok;
};

/* One-page copies both ways between the VMM page and the linear one. */
static void *copy_racer_loop(void *arg)
{
	struct copy_racer *r = arg;
	int ret, i = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		__u64 a = __atomic_load_n(&r->a, __ATOMIC_ACQUIRE);

		ret = i++ & 1 ? mem_copy(r->fd, 0, r->d, a, PG) :
				mem_copy(r->fd, 0, a, r->d, PG);
		if (!ret)
			r->ok++;
		else if (ret != EFAULT && ret != EACCES)
			r->bad = ret;
	}
	return NULL;
}

/*
 * One-page copies racing unmap, release, access changes and the free of
 * the reservation on another thread: each copy succeeds or is refused,
 * and never touches a page given back (KASAN, on the debug kernel).
 */
TEST_F(mem, short_copy_races_unmap)
{
	struct copy_racer r = { .fd = self->fd };
	__u64 g = self->gran, a;
	pthread_t t;
	__u32 h;
	int i;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, mem_alloc(self->fd, 0, 0, PG, &r.d));
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &a));
	r.a = a;
	ASSERT_EQ(0, pthread_create(&t, NULL, copy_racer_loop, &r));
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, dev_create(self->fd, 0, g, &h));
		ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h));
		ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_DEVICE, 0, 3));
		/* the allocation goes with its last mapping */
		ASSERT_EQ(0, mem_release(self->fd, h));
		usleep(i % 4 * 50);
		if (i % 3 == 1)
			ASSERT_EQ(0, set_access(self->fd, a, g,
						CUFAB_LOC_DEVICE, 0, 1));
		ASSERT_EQ(0, mem_unmap(self->fd, a, g));
		if (i % 10 == 9) {
			/* and the reservation itself, made again */
			ASSERT_EQ(0, va_free(self->fd, a, g));
			ASSERT_EQ(0, va_reserve(self->fd, a, g, 0, &a));
			__atomic_store_n(&r.a, a, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.bad);
	EXPECT_LT(0, r.ok);
	EXPECT_EQ(0, va_free(self->fd, a, g));
	EXPECT_EQ(0, mem_free(self->fd, 0, r.d));
}

/* A plain page at @addr, only if nothing is mapped there. */
static unsigned char *guard_at(__u64 addr)
{
	void *g = mmap((void *)(uintptr_t)addr, PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (g == MAP_FAILED)
		return NULL;
	if (g != (void *)(uintptr_t)addr) {	/* kernel without NOREPLACE */
		munmap(g, PG);
		return NULL;
	}
	return g;
}

/*
 * A linear allocation with a plain page right after its range, so that a
 * set or copy running past the end would land in memory we can inspect.
 * Placement is the kernel's (top down): when the next allocation lands
 * right below the previous one, freeing the previous one makes room.
 */
static int linear_with_guard(int fd, __u64 *base, __u64 *len,
			     unsigned char **guard)
{
	struct cufab_pointer_info pi;
	__u64 prev = 0;
	int i;

	for (i = 0; i < 8; i++) {
		if (mem_alloc(fd, 0, 0, PG, base) ||
		    ptr_info(fd, *base, &pi))
			return -1;
		*base = pi.out_range_base;
		*len = pi.out_range_length;
		*guard = guard_at(*base + *len);
		if (!*guard && prev == *base + *len &&
		    !mem_free(fd, 0, prev))
			*guard = guard_at(*base + *len);
		if (*guard)
			return 0;
		/* kept until the fd closes: the next try lands elsewhere */
		prev = *base;
	}
	return -1;
}

/* Sets and copies must not run off a cufab range into plain memory. */
TEST_F(mem, range_past_end_is_efault)
{
	unsigned char *guard = NULL, src[2] = { 1, 2 };
	__u64 base = 0, len = 0, i;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, linear_with_guard(self->fd, &base, &len, &guard));
	memset(guard, 0x5a, PG);
	EXPECT_EQ(0, mem_set(self->fd, 0, base, 1, 0xa5, len));
	EXPECT_EQ(EFAULT, mem_set(self->fd, 0, base, 1, 0xa5, len + 1));
	EXPECT_EQ(EFAULT, mem_set(self->fd, 0, base + len - 4, 4, 0, 2));
	EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, base + len - 1,
				   (uintptr_t)src, 2));
	EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, (uintptr_t)guard,
				   base + len - 1, 2));
	/* plain memory running into the reservation */
	EXPECT_EQ(EFAULT, mem_copy(self->fd, 0, (uintptr_t)guard - 1,
				   (uintptr_t)src, 2));
	for (i = 0; i < PG; i++)
		ASSERT_EQ(0x5a, guard[i]) TH_LOG("guard byte %llu", i);
	EXPECT_EQ(0xa5, ((unsigned char *)(uintptr_t)base)[len - 1]);
	EXPECT_EQ(0, mem_copy(self->fd, 0, (uintptr_t)guard,
			      (uintptr_t)src, 2));
	EXPECT_EQ(0, mem_free(self->fd, 0, base));
	munmap(guard, PG);
}

/* Mappings are not inherited; a killed process leaves nothing behind. */
TEST_F(mem, fork_and_process_death)
{
	__u64 g = self->gran, a, free0, free1;
	long long live;
	int status;
	pid_t pid;
	__u32 h;

	if (skipped(_metadata))
		return;
	live = live_objects();
	ASSERT_EQ(0, mem_info(self->fd, 0, &free0, NULL));
	ASSERT_EQ(0, mem_alloc(self->fd, 0, 0, PG, &a));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(probe(a, false, 0, NULL) == SIGSEGV ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0, mem_free(self->fd, 0, a));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);

		if (fd < 0 || dev_create(fd, 0, 2 * g, &h) ||
		    va_reserve(fd, 0, 2 * g, 0, &a) ||
		    mem_map(fd, a, 2 * g, 0, h) ||
		    set_access(fd, a, 2 * g, CUFAB_LOC_HOST, 0, 3) ||
		    mem_alloc(fd, 0, 0, 5 * PG, &a))
			_exit(1);
		memset((void *)(uintptr_t)a, 1, 5 * PG);
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ASSERT_EQ(0, mem_info(self->fd, 0, &free1, NULL));
	EXPECT_EQ(free0, free1);
	if (live >= 0)
		EXPECT_EQ(live, live_objects());
}

/*
 * Fault injection: every failure of the create/reserve/map/touch paths
 * comes back as an error, and nothing leaks (objects, capacity).
 */
static char fault_buf[4 * 4096];

/*
 * Undo one step; the fault is injected once, so a second try of a step
 * that failed under it goes through.
 */
#define UNDO(call) do {							\
	if (call)							\
		call;							\
} while (0)

static int fault_scenario(int fd, __u64 gran)
{
	__u64 a = 0, d = 0;
	__u32 h = 0;
	int err;

	err = dev_create(fd, 0, gran, &h);
	if (!err)
		err = va_reserve(fd, 0, gran, 0, &a);
	if (!err)
		err = mem_map(fd, a, gran, 0, h);
	if (!err)
		err = set_access(fd, a, gran, CUFAB_LOC_DEVICE, 0, 3);
	if (!err)
		err = mem_set(fd, 0, a, 1, 0x33, 2 * 4096);
	if (!err)
		err = mem_alloc(fd, 0, 0, sizeof(fault_buf), &d);
	if (!err)
		err = mem_copy(fd, 0, d, a, sizeof(fault_buf));
	if (d)
		UNDO(mem_free(fd, 0, d));
	if (a) {
		UNDO(mem_unmap(fd, a, gran));
		UNDO(va_free(fd, a, gran));
	}
	if (h)
		UNDO(mem_release(fd, h));
	return err;
}

TEST_FAIL_NTH(mem, fail_nth)
{
	__u64 free0 = 0, free1 = 0;
	int err;

	nth->min_injected = 1;
	err = mem_info(self->fd, 0, &free0, NULL);
	if (!err)
		err = fault_scenario(self->fd, self->gran);
	/* a page the kernel could not give the engine: a fault of the copy */
	if (err == EFAULT && nth->n)
		err = ENOMEM;
	if (!err && (mem_info(self->fd, 0, &free1, NULL) || free1 != free0))
		return ENOSPC;	/* capacity leaked */
	return err;
}

/*
 * Resident pages of allocation @id on NUMA node @node, from debugfs "mem"
 * (the kernel's page_to_nid() of every page: pagemap and numa_maps skip
 * VM_PFNMAP mappings). -1 when the allocation is not listed.
 */
static long alloc_pages_on_node(__u64 id, int node)
{
	char line[512], key[32], *p;
	FILE *f = fopen(CUFAB_DEBUGFS "/mem", "r");
	long ret = -1;
	size_t klen;

	if (!f)
		return -1;
	klen = snprintf(key, sizeof(key), "alloc %llu ", (unsigned long long)id);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen))
			continue;
		ret = 0;
		p = strstr(line, " nodes=");
		for (p = p ? p + 7 : NULL; p && *p && *p != '-';) {
			int nid = strtol(p, &p, 10);
			long cnt = strtol(p + 1, &p, 10);

			if (nid == node)
				ret = cnt;
			if (*p != ',')
				break;
			p++;
		}
	}
	fclose(f);
	return ret;
}

TEST_F(mem, host_numa_placement)
{
	struct cufab_pointer_info pi;
	__u64 g = self->gran, a, off;
	__u32 h;

	if (skipped(_metadata))
		return;
	if (access("/sys/devices/system/node/node1", F_OK))
		SKIP(return, "one NUMA node (run with tools/vm/run --numa 2)");
	if (access(CUFAB_DEBUGFS "/mem", F_OK))
		SKIP(return, "no debugfs");
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_LOC_HOST_NUMA, 1, 0, 0, g, &h));
	ASSERT_EQ(0, va_reserve(self->fd, 0, g, 0, &a));
	ASSERT_EQ(0, mem_map(self->fd, a, g, 0, h));
	ASSERT_EQ(0, set_access(self->fd, a, g, CUFAB_LOC_HOST, 0, 3));
	ASSERT_EQ(0, ptr_info(self->fd, a, &pi));
	EXPECT_EQ(-1, pi.out_dev);
	EXPECT_EQ(1U, pi.out_memory_type);
	EXPECT_EQ(0, alloc_pages_on_node(pi.out_alloc_id, 1));
	for (off = 0; off < g; off += PG)
		ASSERT_EQ(0, probe(a + off, true, 1, NULL));
	/* every page on node 1, none elsewhere */
	EXPECT_EQ((long)(g / PG), alloc_pages_on_node(pi.out_alloc_id, 1));
	EXPECT_EQ(0, alloc_pages_on_node(pi.out_alloc_id, 0));
	EXPECT_EQ(0, mem_unmap(self->fd, a, g));
	EXPECT_EQ(0, va_free(self->fd, a, g));
	EXPECT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(-1, alloc_pages_on_node(pi.out_alloc_id, 1));
}

TEST_HARNESS_MAIN
