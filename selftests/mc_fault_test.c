// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection over the multicast paths: a scenario (create, add,
 * bind, map, multimem, unbind, close) is replayed with
 * /proc/self/task/<tid>/fail-nth = 1, 2, 3 ... so that every injection
 * point on the way (fail_mc, fail_bind, fail_mem_*, slab) fails once in
 * turn. Each failure must surface as an error, and nothing may leak:
 * live_objects is back where it was after every run. Skips on kernels
 * without fault injection (the Debian one).
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cufab_uapi.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

#define LEN	(2UL * 1024 * 1024)

static unsigned char sbuf[4096];
static struct cufab_mem_access acc = {
	.location_type = CUFAB_LOC_DEVICE, .location_id = 0,
	.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
};

/* Create, bind, map and multimem; 0 or the errno of the first failure. */
static int mc_steps(int fd, __u64 *va)
{
	struct cufab_mc_create c = { .size = sizeof(c), .num_devices = 1,
				     .length = LEN };
	struct cufab_mc_add_device a = { .size = sizeof(a) };
	struct cufab_mc_bind b = { .size = sizeof(b), .dev = -1,
				   .length = LEN };
	struct cufab_va_reserve r = { .size = sizeof(r), .length = LEN };
	struct cufab_mem_map m = { .size = sizeof(m), .length = LEN };
	struct cufab_mem_set_access s = { .size = sizeof(s), .num_descs = 1,
					  .length = LEN,
					  .descs_ptr = (uintptr_t)&acc };
	struct cufab_multimem mm = { .size = sizeof(mm), .op = CUFAB_MM_STORE,
				     .dtype = CUFAB_DT_U8, .count = 4096,
				     .buf = (uintptr_t)sbuf };
	struct cufab_mc_unbind u = { .size = sizeof(u), .length = LEN };
	__u32 mem;
	int err;

	err = mem_create(fd, 0, LEN, &mem);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MC_CREATE, &c);
	a.handle = b.handle = m.handle = u.handle = c.out_handle;
	b.mem_handle = mem;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MC_ADD_DEVICE, &a);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MC_BIND, &b);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &r);
	if (!err) {
		*va = r.addr;
		m.addr = s.addr = mm.addr = r.addr;
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_MAP, &m);
	}
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_SET_ACCESS, &s);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MULTIMEM, &mm);
	if (!err) {
		mm.op = CUFAB_MM_LOAD_REDUCE;
		mm.dtype = CUFAB_DT_U32;
		mm.count = 1024;
		err = cufab_ioc(fd, CUFAB_IOCTL_MULTIMEM, &mm);
	}
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MC_UNBIND, &u);
	return err;
}

static int scenario(void)
{
	__u64 va = 0;
	int fd, err;

	fd = open(CUFAB_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = mc_steps(fd, &va);
	/*
	 * The reservation's VMA holds the file: unmap it, then close. The
	 * injected fault may be munmap's own allocation: the second try
	 * goes through.
	 */
	if (va && munmap((void *)(uintptr_t)va, LEN))
		munmap((void *)(uintptr_t)va, LEN);
	close(fd);
	return err;
}

FIXTURE(mc) {
	int unused;
};

FIXTURE_SETUP(mc)
{
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
}

FIXTURE_TEARDOWN(mc)
{
}

TEST_FAIL_NTH(mc, fail_nth)
{
	int err = scenario();

	if (err == EOPNOTSUPP && !nth->n)
		SKIP(return 0, "no multicast on this node");
	nth->min_failed = 6;
	return err;
}

TEST_HARNESS_MAIN
