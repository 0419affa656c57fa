// SPDX-License-Identifier: GPL-2.0
/*
 * Error paths of cufab.ko under fault injection.
 *
 * fail_nth: a scenario (open, version, contexts, device info, destroy,
 * close) is replayed with /proc/self/task/<tid>/fail-nth = 1, 2, 3 ...
 * until no injection point is left to hit: every allocation (failslab, with
 * GFP_KERNEL included) and every cufab fault point fails once in turn.
 * Each run must fail with a clean errno or absorb the failure, and leave
 * live_objects where it was. What it is really after are KASAN, lockdep
 * and WARN splats on unwind paths, which the VM runner catches.
 *
 * knobs: the debugfs fault_attr directories, one per operation class,
 * each made to fail exactly once.
 *
 * Skipped on kernels without fault injection (Debian's), or without the
 * module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cufab.h>

#include "cufab_uapi.h"
#include "kselftest_harness.h"

#define NCTX		4

FIXTURE(fault) {
	int unused;
};

FIXTURE_SETUP(fault)
{
	if (access(CUFAB_DEVICE_PATH, F_OK))
		SKIP(return, "%s absent (cufab.ko not loaded)",
		     CUFAB_DEVICE_PATH);
	if (access(CUFAB_DEBUGFS "/fail_object_alloc", F_OK))
		SKIP(return, "no fault injection in this kernel (%s absent)",
		     CUFAB_DEBUGFS "/fail_object_alloc");
}

FIXTURE_TEARDOWN(fault)
{
	fault_restore();
}

/*
 * The scenario: what a library does at cuInit plus a few contexts. Returns
 * 0 or the errno of the first step that failed; always closes what it
 * opened. Its buffers are static so that no page fault happens under
 * fail-nth.
 */
static __s32 scenario_attrs[CUFAB_NUM_DEVICE_ATTRS];

static int scenario(void)
{
	struct cufab_get_version ver = { .size = sizeof(ver) };
	struct cufab_device_info info = {
		.size = sizeof(info),
		.num_attrs = CUFAB_NUM_DEVICE_ATTRS,
		.attrs_ptr = (uintptr_t)scenario_attrs,
	};
	__u32 ids[NCTX];
	int fd, err, i, n = 0;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = cufab_ioc(fd, CUFAB_IOCTL_GET_VERSION, &ver);
	for (i = 0; !err && i < NCTX; i++) {
		err = ctx_create(fd, 0, 0, &ids[i]);
		n += !err;
	}
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_DEVICE_INFO, &info);
	/* destroy half explicitly, leave the rest to close() */
	for (i = 0; i < n / 2; i++) {
		struct cufab_destroy d = { .size = sizeof(d), .id = ids[i] };
		int e = cufab_ioc(fd, CUFAB_IOCTL_DESTROY, &d);

		if (!err)
			err = e;
	}
	close(fd);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth)
{
	/* at least: open, get_version, contexts, object allocations */
	nth->min_injected = 1 + 2 * NCTX;
	nth->min_failed = 1;
	return scenario();
}

/*
 * munmap() a page of MEM_ALLOC memory after close(): its mapping holds the
 * client's file. Splitting the VMA allocates, so an injected fault may
 * fail the first munmap(); the fault is injected once, the second goes.
 */
static void unmap_page(__u64 addr)
{
	if (addr && munmap((void *)(uintptr_t)addr, 4096))
		munmap((void *)(uintptr_t)addr, 4096);
}

/*
 * Streams: the submission paths (stream and event objects, operations,
 * their fences and dependencies, slots), then close() cancelling what is
 * still queued. Every step's errno, 0 if all went through.
 */
static int stream_scenario(void)
{
	struct cufab_stream_create sa = { .size = sizeof(sa) };
	struct cufab_stream_create sb = {
		.size = sizeof(sb), .flags = CUFAB_STREAM_NON_BLOCKING,
	};
	struct cufab_event_create ev = { .size = sizeof(ev) };
	struct cufab_stream_submit op = {
		.size = sizeof(op), .op = CUFAB_OP_SET, .elem_size = 1,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_CTX,
	};
	struct cufab_stream_create sm = {
		.size = sizeof(sm), .flags = CUFAB_STREAM_NON_BLOCKING,
	};
	struct cufab_mem_alloc page = { .size = sizeof(page), .length = 4096 };
	/* a write, a wait it satisfies, and a wait left parked for close() */
	static struct cufab_memop mo[3] = {
		{ .op = CUFAB_MEMOP_WRITE32, .value = 1 },
		{ .op = CUFAB_MEMOP_WAIT32, .value = 1 },
		{ .op = CUFAB_MEMOP_WAIT64, .value = 1 },
	};
	struct cufab_stream_memop memop = {
		.size = sizeof(memop), .count = 3, .ops_ptr = (uintptr_t)mo,
	};
	/* a graph launch: a set, a host operation and a record at once */
	static struct cufab_stream_submit bat[3] = {
		{ .size = sizeof(bat[0]), .op = CUFAB_OP_SET, .elem_size = 1,
		  .src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM },
		{ .size = sizeof(bat[0]), .op = CUFAB_OP_HOST, .host_fn = 2 },
		{ .size = sizeof(bat[0]), .op = CUFAB_OP_EVENT_RECORD },
	};
	struct cufab_stream_batch batch = {
		.size = sizeof(batch), .count = 3, .ops_ptr = (uintptr_t)bat,
	};
	int fd, err;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = ctx_create(fd, 0, 0, &sa.ctx_id);
	sb.ctx_id = ev.ctx_id = w.id = sa.ctx_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sa);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sb);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_EVENT_CREATE, &ev);
	op.stream_id = sa.out_stream_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	op.op = CUFAB_OP_HOST;
	op.elem_size = 0;
	op.host_fn = 1;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	op.host_fn = 0;
	op.op = CUFAB_OP_EVENT_RECORD;
	op.event_id = ev.out_event_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	op.op = CUFAB_OP_EVENT_WAIT;
	op.stream_id = sb.out_stream_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	op.op = CUFAB_OP_STREAM_WAIT;
	op.event_id = sa.out_stream_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	page.ctx_id = sm.ctx_id = sa.ctx_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &page);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sm);
	mo[0].addr = mo[1].addr = page.out_addr;
	mo[2].addr = page.out_addr + 8;
	memop.stream_id = sm.out_stream_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_MEMOP, &memop);
	bat[2].event_id = ev.out_event_id;
	batch.stream_id = sa.out_stream_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_BATCH, &batch);
	/* the legacy stream waits for sa, which a host operation holds */
	sb.flags = CUFAB_STREAM_LEGACY;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sb);
	op.op = CUFAB_OP_SET;
	op.elem_size = 1;
	op.event_id = 0;
	op.src_dev = op.dst_dev = CUFAB_DEV_STREAM;
	op.stream_id = sb.out_stream_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	close(fd);
	/*
	 * The page's mapping holds the file: its munmap() drops the client's
	 * last reference, whose release cancels the parked wait.
	 */
	unmap_page(page.out_addr);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_streams)
{
	/* streams, event, page, four operations at least */
	nth->min_injected = 8;
	nth->min_failed = 1;
	return stream_scenario();
}

/*
 * Sharing: a POSIX fd (dma-buf) and a FABRIC export of one allocation,
 * both imported by a second client on IMEX channel @chfd, then released.
 * 0 or the first errno.
 */
static int share_scenario(int chfd)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h = 0, by_fd = 0, by_fab = 0;
	int fd, other, dmabuf = -1, err;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	other = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	err = other < 0 ? errno : imex_set_channel(fd, chfd, NULL);
	if (!err)
		err = imex_set_channel(other, chfd, NULL);
	if (!err)
		err = mem_create(fd, CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC,
				 ALLOC_LEN, &h);
	if (!err)
		err = mem_export_fd(fd, h, &dmabuf);
	if (!err)
		err = mem_import_fd(other, dmabuf, &by_fd);
	if (!err)
		err = mem_export_fabric(fd, h, fab);
	if (!err)
		err = mem_import_fabric(other, fab, &by_fab);
	/* the importer lets go first, then the exporter */
	if (by_fab && !err)
		err = mem_release(other, by_fab);
	if (by_fd && !err)
		err = mem_release(other, by_fd);
	if (dmabuf >= 0)
		close(dmabuf);
	if (h && !err)
		err = mem_release(fd, h);
	if (other >= 0)
		close(other);
	close(fd);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_share)
{
	static int chfd = -1;

	if (!nth->n) {
		if (chfd < 0)
			chfd = imex_open(0);
		if (chfd < 0)
			SKIP(return 0, "no IMEX channel 0: %s", strerror(-chfd));
	}
	/* create, two exports, two imports, each with objects */
	nth->min_injected = 5;
	nth->min_failed = 5;
	return share_scenario(chfd);
}

/*
 * Peer access: links both ways between contexts on GPUs 0 and 1, one
 * disabled, the other going with its context. 0 or the first errno.
 */
static int peer_scenario(void)
{
	struct cufab_peer a = { .size = sizeof(a) }, b = { .size = sizeof(b) };
	int fd, err;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = ctx_create(fd, 0, 0, &a.ctx_id);
	if (!err)
		err = ctx_create(fd, 1, 0, &a.peer_ctx_id);
	b.ctx_id = a.peer_ctx_id;
	b.peer_ctx_id = a.ctx_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_PEER_ENABLE, &a);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_PEER_ENABLE, &b);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_PEER_DISABLE, &a);
	if (!err)
		err = destroy(fd, b.ctx_id);
	close(fd);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_peer)
{
	/* two contexts, two links */
	nth->min_injected = 4;
	nth->min_failed = 4;
	return peer_scenario();
}

/*
 * cuMemRetainAllocationHandle: a handle retained through its mapping and
 * released, the mapping and the allocation undone. 0 or the first errno.
 */
static int retain_scenario(void)
{
	struct cufab_va_reserve res = { .size = sizeof(res), .length = ALLOC_LEN };
	struct cufab_mem_map map = { .size = sizeof(map), .length = ALLOC_LEN };
	struct cufab_mem_retain ret = { .size = sizeof(ret) };
	struct cufab_mem_unmap unmap = { .size = sizeof(unmap),
					 .length = ALLOC_LEN };
	struct cufab_va_free vfree = { .size = sizeof(vfree),
				       .length = ALLOC_LEN };
	int fd, err, mapped = 0;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = mem_create(fd, 0, ALLOC_LEN, &map.handle);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &res);
	map.addr = ret.addr = unmap.addr = vfree.addr = res.addr;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_MAP, &map);
	mapped = !err;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_RETAIN, &ret);
	if (!err)
		err = mem_release(fd, ret.out_handle);
	if (mapped) {
		int e = cufab_ioc(fd, CUFAB_IOCTL_MEM_UNMAP, &unmap);

		if (!err)
			err = e;
	}
	/* the reservation's VMA holds the file: it must go before close */
	if (res.addr) {
		int e = cufab_ioc(fd, CUFAB_IOCTL_VA_FREE, &vfree);

		if (e)
			munmap((void *)(uintptr_t)res.addr, ALLOC_LEN);
		if (!err)
			err = e;
	}
	if (map.handle && !err)
		err = mem_release(fd, map.handle);
	close(fd);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_retain)
{
	/* create, reserve, map */
	nth->min_injected = 3;
	nth->min_failed = 3;
	return retain_scenario();
}

/*
 * cuMemAddressReserve and cuMemAddressFree of one size, twice: the free
 * keeps an arena reservation and the second reserve revives it
 * (va_arena.c). A reserve failing after its carve, and the close, must
 * free what the arena kept. 0 or the first errno.
 */
static int va_keep_scenario(void)
{
	struct cufab_va_reserve res = { .size = sizeof(res), .length = ALLOC_LEN };
	struct cufab_va_free vfree = { .size = sizeof(vfree),
				       .length = ALLOC_LEN };
	int fd, err = 0, i;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	for (i = 0; i < 2 && !err; i++) {
		res.addr = 0;
		err = cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &res);
		if (err)
			break;
		vfree.addr = res.addr;
		err = cufab_ioc(fd, CUFAB_IOCTL_VA_FREE, &vfree);
		/* the reservation holds the file: it must go before close */
		if (err)
			munmap((void *)(uintptr_t)res.addr, ALLOC_LEN);
	}
	close(fd);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_va_keep)
{
	/* the reservation, its place in the arena and in the client's tree */
	nth->min_injected = 2;
	nth->min_failed = 2;
	return va_keep_scenario();
}

/*
 * Two allocations in a row failing in cuMemAddressReserve, which is how a
 * maple tree insertion fails (it retries one failed node allocation, so
 * fail-nth never makes it fail), swept over where the pair falls
 * (failslab's space: the bytes allocated before it). A reservation carved
 * from the arena that the client's tree then refuses must go, not be
 * kept for the next reserve: the close looked at it after freeing it
 * (KASAN in the debug boot).
 */
TEST_F(fault, va_reserve_fails_twice)
{
	struct cufab_va_reserve res = { .size = sizeof(res), .length = ALLOC_LEN };
	struct cufab_va_free vfree = { .size = sizeof(vfree),
				       .length = ALLOC_LEN };
	__s64 live_before = live_objects();
	unsigned long space;
	int fd, err, failed = 0;

	SETUP_SKIPPED();
	if (access(KERNEL_DEBUGFS "/failslab", F_OK))
		SKIP(return, "no failslab in this kernel");
	fault_quiet();
	/* the process's arena, made once */
	ASSERT_EQ(0, va_keep_scenario());
	for (space = 0; space <= 4096; space += 32) {
		fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		res.addr = 0;
		ASSERT_EQ(0, fault_arm_after("failslab", 2, space));
		err = cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &res);
		/* each open of a knob that fails takes one of the two */
		while (fault_arm("failslab", 0))
			;
		if (!err) {
			vfree.addr = res.addr;
			EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_VA_FREE, &vfree));
		} else {
			EXPECT_EQ(ENOMEM, err);
			failed++;
		}
		close(fd);
	}
	fault_restore();
	EXPECT_LT(0, failed);
	EXPECT_EQ(live_before, live_objects_wait(live_before));
}

/* Two clients of this task, for the scenarios that share across them. */
static int open_two(int *fd, int *fd2)
{
	int err;

	*fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return errno;
	*fd2 = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (*fd2 < 0) {
		err = errno;
		close(*fd);
		return err;
	}
	return 0;
}

/*
 * Interprocess events: one client exports, another imports and records
 * the event in a stream of its own and waits for it; the exporter closes
 * first, so the importer's record lands in the slots of a closed client.
 */
static int ipc_event_scenario(void)
{
	struct cufab_event_create ec = {
		.size = sizeof(ec),
		.flags = CUFAB_EVENT_INTERPROCESS | CUFAB_EVENT_DISABLE_TIMING,
	};
	struct cufab_event_export ex = { .size = sizeof(ex) };
	struct cufab_event_import im = { .size = sizeof(im) };
	struct cufab_stream_create sc = { .size = sizeof(sc) };
	struct cufab_stream_submit op = {
		.size = sizeof(op), .op = CUFAB_OP_EVENT_RECORD,
	};
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_EVENT,
	};
	int fd, fd2, err;

	err = open_two(&fd, &fd2);
	if (err)
		return err;
	err = ctx_create(fd, 0, 0, &ec.ctx_id);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_EVENT_CREATE, &ec);
	ex.event_id = ec.out_event_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_EVENT_EXPORT, &ex);
	memcpy(im.handle, ex.out_handle, sizeof(im.handle));
	if (!err)
		err = ctx_create(fd2, 1, 0, &im.ctx_id);
	sc.ctx_id = im.ctx_id;
	if (!err)
		err = cufab_ioc(fd2, CUFAB_IOCTL_EVENT_IMPORT, &im);
	if (!err)
		err = cufab_ioc(fd2, CUFAB_IOCTL_STREAM_CREATE, &sc);
	close(fd);
	op.stream_id = sc.out_stream_id;
	op.event_id = w.id = im.out_event_id;
	if (!err)
		err = cufab_ioc(fd2, CUFAB_IOCTL_STREAM_SUBMIT, &op);
	if (!err)
		err = cufab_ioc(fd2, CUFAB_IOCTL_STREAM_WAIT, &w);
	close(fd2);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_ipc_events)
{
	/* two clients, contexts, the event, export, import, the stream */
	nth->min_injected = 6;
	nth->min_failed = 1;
	return ipc_event_scenario();
}

/*
 * The exporter of ipc_mem_scenario: a child with a page of cuMemAlloc
 * memory and its IPC handle, until the parent writes to @rd (or exits).
 */
static void ipc_mem_exporter(int rd, int wr)
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };
	struct cufab_ipc_mem_export ex = { .size = sizeof(ex) };
	int fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	char c;

	if (fd < 0 || ctx_create(fd, 0, 0, &a.ctx_id) ||
	    cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a))
		_exit(1);
	ex.addr = a.out_addr;
	if (cufab_ioc(fd, CUFAB_IOCTL_IPC_MEM_EXPORT, &ex) ||
	    write(wr, ex.out_handle, sizeof(ex.out_handle)) < 0)
		_exit(2);
	if (read(rd, &c, 1) < 0)
		_exit(3);
	_exit(0);
}

/*
 * MEM_FREE of a linear range (@flags 0: cuMemFree; CUFAB_MEM_FREE_IPC:
 * cuIpcCloseMemHandle), else munmap() when an injected fault made MEM_FREE
 * fail: the range's VMA holds the file, so what it maps would outlive
 * close() and stay in live_objects. Its error goes to *@err if none yet.
 */
static void ipc_mem_unmap(int fd, __u64 addr, __u64 length, __u32 flags,
			  int *err)
{
	struct cufab_mem_free f = {
		.size = sizeof(f), .flags = flags, .addr = addr,
	};
	int e = cufab_ioc(fd, CUFAB_IOCTL_MEM_FREE, &f);

	if (e)
		munmap((void *)(uintptr_t)addr, length);
	if (!*err)
		*err = e;
}

/*
 * pipe(), 0 or an errno: it reports any failed allocation of its inode as
 * ENFILE (fs/pipe.c, get_pipe_inode()), which under fail-nth is the
 * injected fault, so that is ENOMEM like every other one.
 */
static int ipc_mem_pipe(int fds[2])
{
	if (!pipe(fds))
		return 0;
	return errno == ENFILE ? ENOMEM : errno;
}

/*
 * CUDA IPC memory: this process exports a page of its own, and opens
 * and closes a child's (a process cannot open its own), then frees its
 * page. The child is reaped before returning, so its objects are gone
 * too. 0 or an errno.
 */
static int ipc_mem_scenario(void)
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };
	struct cufab_ipc_mem_export ex = { .size = sizeof(ex) };
	struct cufab_ipc_mem_import im = {
		.size = sizeof(im), .peer_dev = 1,
	};
	int to_child[2], to_parent[2], fd, err;
	pid_t pid;

	err = ipc_mem_pipe(to_child);
	if (err)
		return err;
	err = ipc_mem_pipe(to_parent);
	if (err)
		goto out_pipe;
	pid = fork();
	if (pid < 0) {
		err = errno;
		goto out_pipes;
	}
	if (!pid)
		ipc_mem_exporter(to_child[0], to_parent[1]);
	err = read(to_parent[0], im.handle, sizeof(im.handle)) ==
	      sizeof(im.handle) ? 0 : EPIPE;
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 && !err)
		err = errno;
	if (!err)
		err = ctx_create(fd, 0, 0, &a.ctx_id);
	im.ctx_id = a.ctx_id;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a);
	ex.addr = a.out_addr;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_IPC_MEM_EXPORT, &ex);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_IPC_MEM_IMPORT, &im);
	/* cuIpcCloseMemHandle, then cuMemFree of this process's own page */
	if (im.out_addr)
		ipc_mem_unmap(fd, im.out_addr, im.out_length, CUFAB_MEM_FREE_IPC,
			      &err);
	if (a.out_addr)
		ipc_mem_unmap(fd, a.out_addr, a.length, 0, &err);
	if (fd >= 0)
		close(fd);
	if (write(to_child[1], "x", 1) < 0 && !err)
		err = errno;
	if (wait_child(pid) && !err)
		err = ECHILD;
out_pipes:
	close(to_parent[0]);
	close(to_parent[1]);
out_pipe:
	close(to_child[0]);
	close(to_child[1]);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_ipc_mem)
{
	/* context, allocation, export, import (map), close, free */
	nth->min_injected = 5;
	nth->min_failed = 1;
	return ipc_mem_scenario();
}

/*
 * Undo a step of pool_scenario: the fault is injected once, so a release
 * that failed under it goes through the second time, and nothing mapped
 * outlives close() in live_objects.
 */
static void pool_undo(int fd, unsigned long req, void *arg)
{
	if (cufab_ioc(fd, req, arg))
		cufab_ioc(fd, req, arg);
}

/*
 * Pools, their six injection points: create, grow (a chunk), export as a
 * file descriptor, import in a second client, a pointer's export and its
 * import (a mapping in the importer); then every step undone in reverse.
 * Returns the errno of the first step that failed, 0 if all went through.
 */
static int pool_scenario(void)
{
	struct cufab_pool_create pc = {
		.size = sizeof(pc), .alloc_type = CUFAB_POOL_ALLOC_PINNED,
		.handle_types = CUFAB_HANDLE_POSIX_FD,
		.location_type = CUFAB_LOC_DEVICE,
	};
	struct cufab_pool_grow g = { .size = sizeof(g), .length = 4096 };
	struct cufab_pool_export ex = {
		.size = sizeof(ex), .handle_type = CUFAB_HANDLE_POSIX_FD,
		.out_fd = -1,
	};
	struct cufab_pool_import im = {
		.size = sizeof(im), .handle_type = CUFAB_HANDLE_POSIX_FD,
	};
	struct cufab_pool_ptr_export pe = {
		.size = sizeof(pe), .length = 4096,
	};
	struct cufab_pool_ptr_import pi = { .size = sizeof(pi) };
	struct cufab_pool_ptr_release rel = { .size = sizeof(rel) };
	struct cufab_pool_shrink sh = { .size = sizeof(sh) };
	bool exported = false;
	int fd, fd2, err;

	err = open_two(&fd, &fd2);
	if (err)
		return err;
	err = cufab_ioc(fd, CUFAB_IOCTL_POOL_CREATE, &pc);
	g.pool = ex.pool = pe.pool = pc.out_pool;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_POOL_GROW, &g);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_POOL_EXPORT, &ex);
	im.fd = ex.out_fd;
	if (!err)
		err = cufab_ioc(fd2, CUFAB_IOCTL_POOL_IMPORT, &im);
	pe.addr = g.out_addr;
	if (!err) {
		err = cufab_ioc(fd, CUFAB_IOCTL_POOL_PTR_EXPORT, &pe);
		exported = !err;
	}
	pi.pool = im.out_pool;
	memcpy(pi.data, pe.out_data, sizeof(pi.data));
	if (!err)
		err = cufab_ioc(fd2, CUFAB_IOCTL_POOL_PTR_IMPORT, &pi);
	if (pi.out_addr) {
		rel.pool = im.out_pool;
		rel.addr = pi.out_addr;
		pool_undo(fd2, CUFAB_IOCTL_POOL_PTR_RELEASE, &rel);
	}
	if (g.out_addr) {
		/* the export ends, then the chunk goes back */
		rel.pool = sh.pool = pc.out_pool;
		rel.addr = sh.addr = g.out_addr;
		if (exported)
			pool_undo(fd, CUFAB_IOCTL_POOL_PTR_RELEASE, &rel);
		pool_undo(fd, CUFAB_IOCTL_POOL_SHRINK, &sh);
	}
	if (ex.out_fd >= 0)
		close(ex.out_fd);
	close(fd2);
	close(fd);
	return err;
}

/*
 * cuMemHostRegister and cuMemHostUnregister: register, set through the
 * registration, read its pointer info, unregister, register again and
 * leave that one to close(). Static pages, touched before the run, so
 * that pinning them faults nothing in. 0 or the first errno.
 */
static unsigned char hostreg_buf[4 * 4096] __attribute__((aligned(4096)));

static int hostreg_scenario(void)
{
	struct cufab_host_register reg = {
		.size = sizeof(reg), .addr = (uintptr_t)hostreg_buf + 8,
		.length = 2 * 4096,
	};
	struct cufab_host_unregister unreg = {
		.size = sizeof(unreg), .addr = reg.addr,
	};
	struct cufab_mem_set set = {
		.size = sizeof(set), .elem_size = 1, .dst = reg.addr,
		.count = 4096, .value = 0x5a,
	};
	struct cufab_pointer_info info = {
		.size = sizeof(info), .addr = reg.addr + 4096,
	};
	int fd, err;

	memset(hostreg_buf, 1, sizeof(hostreg_buf));
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = ctx_create(fd, 0, 0, &reg.ctx_id);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_HOST_REGISTER, &reg);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_MEM_SET, &set);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_POINTER_INFO, &info);
	if (!err && !(info.out_flags & CUFAB_PTR_F_HOSTREG))
		err = EPROTO;
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_HOST_UNREGISTER, &unreg);
	if (!err)
		err = cufab_ioc(fd, CUFAB_IOCTL_HOST_REGISTER, &reg);
	close(fd);
	return err;
}

TEST_FAIL_NTH(fault, fail_nth_pools)
{
	/* the six cufab fault points, and allocations besides */
	nth->min_injected = 6;
	nth->min_failed = 1;
	return pool_scenario();
}

TEST_FAIL_NTH(fault, fail_nth_hostreg)
{
	/* context, the registration's pin, allocation and tree node */
	nth->min_injected = 3;
	nth->min_failed = 1;
	return hostreg_scenario();
}

/*
 * An operation failing on the engine (fail_stream_exec, which the engine's
 * worker hits, so no task filter): its stream reports -ENOMEM from then
 * on, other streams are unaffected.
 */
TEST_F(fault, stream_exec_fails)
{
	struct cufab_stream_create sa = { .size = sizeof(sa) };
	struct cufab_stream_submit op = {
		.size = sizeof(op), .op = CUFAB_OP_SET, .elem_size = 1,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_STREAM,
	};
	__s64 live_before = live_objects();
	int fd;

	SETUP_SKIPPED();
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &sa.ctx_id));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sa));
	/* the worker hits it, not this task: no task filter */
	ASSERT_EQ(0, fault_arm("fail_stream_exec", 1));
	ASSERT_EQ(0, fault_knob("fail_stream_exec", "task-filter", "N"));
	op.stream_id = w.id = sa.out_stream_id;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w));
	fault_restore();
	EXPECT_EQ(-ENOMEM, w.out_error);
	/* sticky: later operations of the stream complete with it */
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w));
	EXPECT_EQ(-ENOMEM, w.out_error);
	/* another stream runs */
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sa));
	op.stream_id = w.id = sa.out_stream_id;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w));
	EXPECT_EQ(0, w.out_error);
	close(fd);
	EXPECT_EQ(live_before, live_objects());
}

/*
 * One debugfs fault_attr: made to fail exactly once, for this task only
 * (task-filter + make-it-fail), so nothing else on the system trips on it.
 */
FIXTURE(knob) {
	int fd;
};

FIXTURE_VARIANT(knob) {
	const char *name;
	int (*op)(int fd);
};

/* 0 or errno; opens its own client for fail_client_open */
static int op_open(int fd)
{
	int nfd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (nfd < 0)
		return errno;
	close(nfd);
	return 0;
}

static int op_ctx_create(int fd)
{
	return ctx_create(fd, 0, 0, NULL);
}

/*
 * A peer link from a context on GPU 0 to one on GPU 1 (peers on the
 * default node); the contexts go again, so live objects come back.
 */
static int op_peer_enable(int fd)
{
	struct cufab_peer cmd = { .size = sizeof(cmd) };
	int err;

	err = ctx_create(fd, 0, 0, &cmd.ctx_id);
	if (err)
		return err;
	err = ctx_create(fd, 1, 0, &cmd.peer_ctx_id);
	if (!err) {
		err = cufab_ioc(fd, CUFAB_IOCTL_PEER_ENABLE, &cmd);
		destroy(fd, cmd.peer_ctx_id);
	}
	destroy(fd, cmd.ctx_id);
	return err;
}

FIXTURE_VARIANT_ADD(knob, fail_client_open) {
	.name = "fail_client_open",
	.op = op_open,
};

FIXTURE_VARIANT_ADD(knob, fail_object_alloc) {
	.name = "fail_object_alloc",
	.op = op_ctx_create,
};

FIXTURE_VARIANT_ADD(knob, fail_ctx_create) {
	.name = "fail_ctx_create",
	.op = op_ctx_create,
};

/* A stream of a new context, then both go: live objects come back. */
static int op_stream_create(int fd)
{
	struct cufab_stream_create cmd = { .size = sizeof(cmd) };
	int err;

	err = ctx_create(fd, 0, 0, &cmd.ctx_id);
	if (err)
		return err;
	err = cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &cmd);
	if (!err)
		destroy(fd, cmd.out_stream_id);
	destroy(fd, cmd.ctx_id);
	return err;
}

FIXTURE_VARIANT_ADD(knob, fail_stream) {
	.name = "fail_stream",
	.op = op_stream_create,
};

FIXTURE_VARIANT_ADD(knob, fail_peer) {
	.name = "fail_peer",
	.op = op_peer_enable,
};

FIXTURE_SETUP(knob)
{
	char path[128];

	self->fd = -1;
	if (access(CUFAB_DEVICE_PATH, F_OK))
		SKIP(return, "%s absent (cufab.ko not loaded)",
		     CUFAB_DEVICE_PATH);
	snprintf(path, sizeof(path), CUFAB_DEBUGFS "/%s", variant->name);
	if (access(path, F_OK))
		SKIP(return, "no fault injection in this kernel (%s absent)",
		     path);
	self->fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, fault_arm(variant->name, 1)) TH_LOG("%s", path);
}

FIXTURE_TEARDOWN(knob)
{
	fault_restore();
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(knob, fails_once)
{
	__s64 live;

	SETUP_SKIPPED();
	live = live_objects();
	EXPECT_EQ(ENOMEM, variant->op(self->fd));
	EXPECT_EQ(live, live_objects());
	/* times was 1: the next call goes through */
	EXPECT_EQ(0, variant->op(self->fd));
	EXPECT_EQ(0, variant->op(self->fd));
}

/* With the knob armed, another task (no make-it-fail) is not affected. */
TEST_F(knob, task_filter)
{
	int status;
	pid_t pid;

	SETUP_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (write_file("/proc/self/make-it-fail", "0"))
			_exit(2);
		fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(3);
		_exit(variant->op(fd) ? 4 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* still armed for us */
	EXPECT_EQ(ENOMEM, variant->op(self->fd));
}

TEST_HARNESS_MAIN
