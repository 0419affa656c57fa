// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/cufab ioctl ABI, through raw ioctls: the size rules every
 * command shares (short -> EINVAL, longer with a zero tail -> accepted,
 * non-zero tail -> E2BIG), reserved fields and flags, unknown commands,
 * and what each command returns.
 *
 * Each test opens its own client, so objects never leak between tests.
 * Without /dev/cufab (module not loaded) every test is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/cufab.h>

#include "cufab_uapi.h"
#include "kselftest_harness.h"

/* CUdevice_attribute numbers the tests look at */
#define ATTR_MAX_THREADS_PER_BLOCK	1
#define ATTR_PCI_BUS_ID			33
#define ATTR_PCI_DOMAIN_ID		50
#define ATTR_COMPUTE_CAPABILITY_MAJOR	75
#define ATTR_HANDLE_TYPE_FABRIC		128
#define ATTR_MULTICAST_SUPPORTED	132
#define ATTR_HOST_NUMA_ID		134
#define ATTR_LE_UNICAST			153

#define CANARY		0x5a5a5a5aU

#define CMD_BUF_LEN	1024

/* 0 or the errno of a failed ioctl */
static int device_info(int fd, __u32 index, struct cufab_device_info *info,
		       __s32 *attrs, __u32 num_attrs)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->index = index;
	info->num_attrs = num_attrs;
	info->attrs_ptr = (uintptr_t)attrs;
	return cufab_ioc(fd, CUFAB_IOCTL_DEVICE_INFO, info);
}

FIXTURE(cufab) {
	int fd;
	__u32 num_gpus;
};

FIXTURE_SETUP(cufab)
{
	struct cufab_get_version ver = { .size = sizeof(ver) };

	OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_GET_VERSION, &ver));
	self->num_gpus = ver.num_gpus;
}

FIXTURE_TEARDOWN(cufab)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The 6.1 harness runs the test body after a SKIP in the fixture setup. */
static bool skipped(struct __test_metadata *_metadata)
{
	return _metadata->skip;
}

/*
 * The size rules, once per command. prepare() fills a valid struct
 * (everything but size), creating what the command needs.
 */
FIXTURE(cufab_size) {
	int fd;
	__u64 buf[CMD_BUF_LEN / 8];	/* struct, tail and canary */
};

FIXTURE_VARIANT(cufab_size) {
	unsigned long cmd;
	__u32 size;
	/*
	 * Offset and size of the last field of the struct's first version
	 * (kernel/ioctl.c CUFAB_IOCTL_OP _last): shorter is not a struct.
	 */
	__u32 last_off;
	__u32 last_size;
	void (*prepare)(struct __test_metadata *_metadata, int fd, void *buf);
	/* offsets of the flags and of the reserved fields; 0: none */
	__u32 flags_off;
	__u32 rsv_off[2];
};

static void prepare_nothing(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
}

static void prepare_destroy(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
	struct cufab_destroy *cmd = buf;

	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->id));
}

static void prepare_device_info(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_device_info *cmd = buf;

	cmd->index = 0;
	cmd->num_attrs = 0;
	cmd->attrs_ptr = 0;
}

static void prepare_ctx_create(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_ctx_create *cmd = buf;

	cmd->dev = 0;
	cmd->flags = 0;
}

/* One page of managed memory of @fd's client, for the managed commands. */
static __u64 managed_page(struct __test_metadata *_metadata, int fd)
{
	struct cufab_mem_alloc a = {
		.size = sizeof(a), .flags = CUFAB_MEM_ALLOC_MANAGED,
		.attach = CUFAB_ATTACH_GLOBAL, .length = 4096,
	};

	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	return a.out_addr;
}

static void prepare_mem_advise(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_mem_advise *cmd = buf;

	cmd->addr = managed_page(_metadata, fd);
	cmd->length = 4096;
	cmd->advice = CUFAB_ADVISE_SET_READ_MOSTLY;
}

static void prepare_mem_prefetch(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_mem_prefetch *cmd = buf;

	cmd->addr = managed_page(_metadata, fd);
	cmd->length = 4096;
	cmd->location_type = CUFAB_LOC_HOST;
}

static void prepare_mem_range_attrs(struct __test_metadata *_metadata,
				    int fd, void *buf)
{
	struct cufab_mem_range_attrs *cmd = buf;

	cmd->addr = managed_page(_metadata, fd);
	cmd->length = 4096;
	cmd->node = -1;
}

static void prepare_stream_create(struct __test_metadata *_metadata, int fd,
				  void *buf)
{
	struct cufab_stream_create *cmd = buf;

	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->ctx_id));
}

static void prepare_event_create(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_event_create *cmd = buf;

	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->ctx_id));
}

/* A new stream of a new context on GPU 0. */
static __u32 new_stream(struct __test_metadata *_metadata, int fd)
{
	struct cufab_stream_create sc = { .size = sizeof(sc) };

	EXPECT_EQ(0, ctx_create(fd, 0, 0, &sc.ctx_id));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sc));
	return sc.out_stream_id;
}

/* An empty set: valid, nothing to move. */
static void prepare_stream_submit(struct __test_metadata *_metadata, int fd,
				  void *buf)
{
	struct cufab_stream_submit *cmd = buf;

	cmd->stream_id = new_stream(_metadata, fd);
	cmd->op = CUFAB_OP_SET;
	cmd->elem_size = 1;
	cmd->src_dev = CUFAB_DEV_STREAM;
	cmd->dst_dev = CUFAB_DEV_STREAM;
}

static void prepare_stream_wait(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_stream_wait *cmd = buf;

	cmd->what = CUFAB_WAIT_STREAM;
	cmd->id = new_stream(_metadata, fd);
}

/* A host operation for HOSTFN to hand out, so that it does not sleep. */
static void prepare_hostfn(struct __test_metadata *_metadata, int fd,
			   void *buf)
{
	struct cufab_stream_submit sub = {
		.size = sizeof(sub), .op = CUFAB_OP_HOST, .host_fn = 1,
	};

	sub.stream_id = new_stream(_metadata, fd);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &sub));
}

/* An INTERPROCESS event of a new context; its id, its handle into @handle. */
static __u32 new_ipc_event(struct __test_metadata *_metadata, int fd,
			   __u8 *handle)
{
	struct cufab_event_create ec = {
		.size = sizeof(ec),
		.flags = CUFAB_EVENT_INTERPROCESS | CUFAB_EVENT_DISABLE_TIMING,
	};
	struct cufab_event_export ex = { .size = sizeof(ex) };

	EXPECT_EQ(0, ctx_create(fd, 0, 0, &ec.ctx_id));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_EVENT_CREATE, &ec));
	ex.event_id = ec.out_event_id;
	if (handle) {
		EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_EVENT_EXPORT, &ex));
		memcpy(handle, ex.out_handle, sizeof(ex.out_handle));
	}
	return ec.out_event_id;
}

static void prepare_event_export(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_event_export *cmd = buf;

	cmd->event_id = new_ipc_event(_metadata, fd, NULL);
}

/*
 * The event is another client's: a client importing its own is -ELOOP.
 * The exporter stays open (its export ends with it) until the test's
 * process exits.
 */
static void prepare_event_import(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_event_import *cmd = buf;
	int exporter = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, exporter);
	new_ipc_event(_metadata, exporter, cmd->handle);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->ctx_id));
}

/* ---- memory pools: each prepare makes what its command needs ---- */

static int pool_new(int fd, __u32 handle_types, __u32 *pool)
{
	struct cufab_pool_create c = {
		.size = sizeof(c), .alloc_type = CUFAB_POOL_ALLOC_PINNED,
		.handle_types = handle_types,
		.location_type = CUFAB_LOC_DEVICE, .location_id = 0,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_POOL_CREATE, &c);

	*pool = c.out_pool;
	return ret;
}

static int pool_chunk(int fd, __u32 pool, __u64 *addr)
{
	struct cufab_pool_grow g = {
		.size = sizeof(g), .pool = pool, .length = 1,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_POOL_GROW, &g);

	*addr = g.out_addr;
	return ret;
}

/* An imported pool of @fd and the export data of 4 KiB of its exporter. */
static int pool_import_ptr(int fd, __u32 *imported, __u8 *data)
{
	struct cufab_pool_export e = {
		.size = sizeof(e), .handle_type = CUFAB_HANDLE_POSIX_FD,
	};
	struct cufab_pool_import i = {
		.size = sizeof(i), .handle_type = CUFAB_HANDLE_POSIX_FD,
	};
	struct cufab_pool_ptr_export x = { .size = sizeof(x), .length = 4096 };
	int ret;

	ret = pool_new(fd, CUFAB_HANDLE_POSIX_FD, &e.pool) ||
	      pool_chunk(fd, e.pool, &x.addr) ||
	      cufab_ioc(fd, CUFAB_IOCTL_POOL_EXPORT, &e);
	if (ret)
		return -1;
	i.fd = e.out_fd;
	x.pool = e.pool;
	ret = cufab_ioc(fd, CUFAB_IOCTL_POOL_IMPORT, &i) ||
	      cufab_ioc(fd, CUFAB_IOCTL_POOL_PTR_EXPORT, &x);
	close(e.out_fd);
	*imported = i.out_pool;
	memcpy(data, x.out_data, sizeof(x.out_data));
	return ret ? -1 : 0;
}

static void prepare_pool_create(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_pool_create *cmd = buf;

	cmd->alloc_type = CUFAB_POOL_ALLOC_PINNED;
	cmd->location_type = CUFAB_LOC_DEVICE;
}

static void prepare_pool_attr(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_pool_attr *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, 0, &cmd->pool));
	cmd->attr = CUFAB_POOL_ATTR_RELEASE_THRESHOLD;
}

static void prepare_pool_grow(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_pool_grow *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, 0, &cmd->pool));
	cmd->length = 1;
}

static void prepare_pool_shrink(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_pool_shrink *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, 0, &cmd->pool));
	ASSERT_EQ(0, pool_chunk(fd, cmd->pool, &cmd->addr));
}

static struct cufab_mem_access pool_access_desc = {
	.location_type = CUFAB_LOC_DEVICE, .flags = 3,
};

static void prepare_pool_set_access(struct __test_metadata *_metadata, int fd,
				    void *buf)
{
	struct cufab_pool_set_access *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, 0, &cmd->pool));
	cmd->num_descs = 1;
	cmd->descs_ptr = (uintptr_t)&pool_access_desc;
}

static void prepare_pool_get_access(struct __test_metadata *_metadata, int fd,
				    void *buf)
{
	struct cufab_pool_get_access *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, 0, &cmd->pool));
	cmd->location_type = CUFAB_LOC_DEVICE;
}

static void prepare_pool_export(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_pool_export *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, CUFAB_HANDLE_POSIX_FD, &cmd->pool));
	cmd->handle_type = CUFAB_HANDLE_POSIX_FD;
}

static void prepare_pool_import(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_pool_export e = {
		.size = sizeof(e), .handle_type = CUFAB_HANDLE_POSIX_FD,
	};
	struct cufab_pool_import *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, CUFAB_HANDLE_POSIX_FD, &e.pool));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_POOL_EXPORT, &e));
	cmd->handle_type = CUFAB_HANDLE_POSIX_FD;
	cmd->fd = e.out_fd;	/* closed with the test's client */
}

static void prepare_pool_ptr_export(struct __test_metadata *_metadata, int fd,
				    void *buf)
{
	struct cufab_pool_ptr_export *cmd = buf;

	ASSERT_EQ(0, pool_new(fd, CUFAB_HANDLE_POSIX_FD, &cmd->pool));
	ASSERT_EQ(0, pool_chunk(fd, cmd->pool, &cmd->addr));
	cmd->length = 4096;
}

static void prepare_pool_ptr_import(struct __test_metadata *_metadata, int fd,
				    void *buf)
{
	struct cufab_pool_ptr_import *cmd = buf;

	ASSERT_EQ(0, pool_import_ptr(fd, &cmd->pool, cmd->data));
}

static void prepare_pool_ptr_release(struct __test_metadata *_metadata, int fd,
				     void *buf)
{
	struct cufab_pool_ptr_release *cmd = buf;
	struct cufab_pool_ptr_export x = { .size = sizeof(x), .length = 4096 };

	ASSERT_EQ(0, pool_new(fd, CUFAB_HANDLE_POSIX_FD, &x.pool));
	ASSERT_EQ(0, pool_chunk(fd, x.pool, &x.addr));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_POOL_PTR_EXPORT, &x));
	cmd->pool = x.pool;
	cmd->addr = x.addr;
}

/* ---- memory, sharing, endpoints, multicast, peers ---- */

static void prepare_imex_set_channel(struct __test_metadata *_metadata,
				     int fd, void *buf)
{
	struct cufab_imex_set_channel *cmd = buf;

	cmd->fd = -1;		/* leave the channel: valid with none */
}

static void prepare_mem_create(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_mem_create *cmd = buf;

	cmd->location_type = CUFAB_LOC_DEVICE;
	cmd->handle_types = CUFAB_HANDLE_POSIX_FD;
	cmd->length = ALLOC_LEN;
}

static __u32 new_handle(struct __test_metadata *_metadata, int fd)
{
	__u32 h = 0;

	EXPECT_EQ(0, mem_create(fd, CUFAB_HANDLE_POSIX_FD, ALLOC_LEN, &h));
	return h;
}

/* A reservation of ALLOC_LEN with a new allocation mapped in: its address. */
static __u64 new_mapping(struct __test_metadata *_metadata, int fd,
			 __u32 *handle)
{
	struct cufab_va_reserve r = { .size = sizeof(r), .length = ALLOC_LEN };
	struct cufab_mem_map m = { .size = sizeof(m), .length = ALLOC_LEN };

	m.handle = new_handle(_metadata, fd);
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &r));
	m.addr = r.addr;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_MAP, &m));
	if (handle)
		*handle = m.handle;
	return r.addr;
}

static void prepare_mem_release(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_mem_release *cmd = buf;

	cmd->handle = new_handle(_metadata, fd);
}

static void prepare_mem_retain(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_mem_retain *cmd = buf;

	cmd->addr = new_mapping(_metadata, fd, NULL);
}

static void prepare_mem_get_props(struct __test_metadata *_metadata, int fd,
				  void *buf)
{
	struct cufab_mem_get_props *cmd = buf;

	cmd->handle = new_handle(_metadata, fd);
}

static void prepare_va_reserve(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_va_reserve *cmd = buf;

	cmd->length = ALLOC_LEN;
}

static void prepare_va_free(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
	struct cufab_va_reserve r = { .size = sizeof(r), .length = ALLOC_LEN };
	struct cufab_va_free *cmd = buf;

	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &r));
	cmd->addr = r.addr;
	cmd->length = ALLOC_LEN;
}

static void prepare_mem_map(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
	struct cufab_va_reserve r = { .size = sizeof(r), .length = ALLOC_LEN };
	struct cufab_mem_map *cmd = buf;

	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &r));
	cmd->addr = r.addr;
	cmd->length = ALLOC_LEN;
	cmd->handle = new_handle(_metadata, fd);
}

static void prepare_mem_unmap(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_mem_unmap *cmd = buf;

	cmd->addr = new_mapping(_metadata, fd, NULL);
	cmd->length = ALLOC_LEN;
}

static struct cufab_mem_access gpu0_rw = {
	.location_type = CUFAB_LOC_DEVICE, .location_id = 0, .flags = 3,
};

static void prepare_mem_set_access(struct __test_metadata *_metadata,
				   int fd, void *buf)
{
	struct cufab_mem_set_access *cmd = buf;

	cmd->addr = new_mapping(_metadata, fd, NULL);
	cmd->length = ALLOC_LEN;
	cmd->num_descs = 1;
	cmd->descs_ptr = (uintptr_t)&gpu0_rw;
}

static void prepare_mem_get_access(struct __test_metadata *_metadata,
				   int fd, void *buf)
{
	struct cufab_mem_get_access *cmd = buf;

	cmd->addr = new_mapping(_metadata, fd, NULL);
	cmd->location_type = CUFAB_LOC_DEVICE;
}

static void prepare_mem_alloc(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_mem_alloc *cmd = buf;

	cmd->length = 4096;
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->ctx_id));
}

/* cuMemAlloc of one page of GPU 0: its address. */
static __u64 linear_page(struct __test_metadata *_metadata, int fd)
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };

	EXPECT_EQ(0, ctx_create(fd, 0, 0, &a.ctx_id));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	return a.out_addr;
}

static void prepare_mem_free(struct __test_metadata *_metadata, int fd,
			     void *buf)
{
	struct cufab_mem_free *cmd = buf;

	cmd->addr = linear_page(_metadata, fd);
}

static void prepare_ipc_mem_export(struct __test_metadata *_metadata, int fd,
				   void *buf)
{
	struct cufab_ipc_mem_export *cmd = buf;

	cmd->addr = linear_page(_metadata, fd);
}

/*
 * The handle of a page another process allocated (a process cannot open
 * its own): a child that holds it until this test's process exits and
 * its end of the pipe closes.
 */
static void ipc_mem_foreign_handle(struct __test_metadata *_metadata,
				   __u8 *handle)
{
	struct cufab_ipc_mem_export ex = { .size = sizeof(ex) };
	int to_child[2], to_parent[2], cfd;
	char c;

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	if (!fork()) {
		close(to_child[1]);
		cfd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		ex.addr = linear_page(_metadata, cfd);
		if (cfd < 0 || cufab_ioc(cfd, CUFAB_IOCTL_IPC_MEM_EXPORT, &ex))
			memset(ex.out_handle, 0, sizeof(ex.out_handle));
		if (write(to_parent[1], ex.out_handle,
			  sizeof(ex.out_handle)) < 0)
			_exit(1);
		/* until the parent exits */
		while (read(to_child[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	ASSERT_EQ(CUFAB_IPC_MEM_HANDLE_LEN,
		  read(to_parent[0], handle, CUFAB_IPC_MEM_HANDLE_LEN));
	close(to_parent[0]);
}

static void prepare_mem_range_export(struct __test_metadata *_metadata,
				     int fd, void *buf)
{
	struct cufab_mem_range_export *cmd = buf;

	cmd->addr = linear_page(_metadata, fd);
	cmd->length = 4096;
}

static void prepare_ipc_mem_import(struct __test_metadata *_metadata, int fd,
				   void *buf)
{
	struct cufab_ipc_mem_import *cmd = buf;

	ipc_mem_foreign_handle(_metadata, cmd->handle);
	cmd->peer_dev = CUFAB_DEV_STREAM;
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->ctx_id));
}

/* A fresh page of this process, never registered (leaked on purpose). */
static __u64 fresh_page(struct __test_metadata *_metadata)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	EXPECT_NE(MAP_FAILED, p);
	return (uintptr_t)p;
}

static void prepare_host_register(struct __test_metadata *_metadata, int fd,
				  void *buf)
{
	struct cufab_host_register *cmd = buf;

	cmd->addr = fresh_page(_metadata);
	cmd->length = 4096;
}

static void prepare_host_unregister(struct __test_metadata *_metadata,
				    int fd, void *buf)
{
	struct cufab_host_register reg = {
		.size = sizeof(reg), .addr = fresh_page(_metadata),
		.length = 4096,
	};
	struct cufab_host_unregister *cmd = buf;

	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_HOST_REGISTER, &reg));
	cmd->addr = reg.addr;
}

static unsigned char host_bytes[64];

static void prepare_mem_copy(struct __test_metadata *_metadata, int fd,
			     void *buf)
{
	struct cufab_mem_copy *cmd = buf;

	cmd->dst = linear_page(_metadata, fd);
	cmd->src = (uintptr_t)host_bytes;
	cmd->length = sizeof(host_bytes);
}

static void prepare_mem_set(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
	struct cufab_mem_set *cmd = buf;

	cmd->dst = linear_page(_metadata, fd);
	cmd->elem_size = 1;
	cmd->count = 64;
}

/* A one-entry batch: a write to a page of cuMemAlloc memory. */
static struct cufab_memop memop_entry;

static void prepare_stream_memop(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_stream_memop *cmd = buf;

	memop_entry.op = CUFAB_MEMOP_WRITE32;
	memop_entry.addr = linear_page(_metadata, fd);
	memop_entry.value = 1;
	cmd->stream_id = new_stream(_metadata, fd);
	cmd->count = 1;
	cmd->ops_ptr = (uintptr_t)&memop_entry;
}

/* A one-entry batch: an empty set. */
static struct cufab_stream_submit batch_entry;

static void prepare_stream_batch(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_stream_batch *cmd = buf;

	memset(&batch_entry, 0, sizeof(batch_entry));
	batch_entry.size = sizeof(batch_entry);
	batch_entry.op = CUFAB_OP_SET;
	batch_entry.elem_size = 1;
	batch_entry.src_dev = CUFAB_DEV_STREAM;
	batch_entry.dst_dev = CUFAB_DEV_STREAM;
	cmd->stream_id = new_stream(_metadata, fd);
	cmd->count = 1;
	cmd->ops_ptr = (uintptr_t)&batch_entry;
}

static void prepare_pointer_info(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_pointer_info *cmd = buf;

	cmd->addr = linear_page(_metadata, fd);
}

static void prepare_mem_export(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_mem_export *cmd = buf;

	cmd->handle = new_handle(_metadata, fd);
	cmd->handle_type = CUFAB_HANDLE_POSIX_FD;
}

static void prepare_mem_import(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_mem_import *cmd = buf;

	cmd->handle_type = CUFAB_HANDLE_POSIX_FD;
	ASSERT_EQ(0, mem_export_fd(fd, new_handle(_metadata, fd), &cmd->fd));
}

static __u32 le_ids(struct __test_metadata *_metadata, int fd, __u32 count)
{
	struct cufab_le_id_reserve r = { .size = sizeof(r), .count = count };

	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_LE_ID_RESERVE, &r));
	return r.out_base;
}

static void prepare_le_id_reserve(struct __test_metadata *_metadata, int fd,
				  void *buf)
{
	struct cufab_le_id_reserve *cmd = buf;

	cmd->count = 1;
}

static void prepare_le_id_release(struct __test_metadata *_metadata, int fd,
				  void *buf)
{
	struct cufab_le_id_release *cmd = buf;

	cmd->base = le_ids(_metadata, fd, 1);
	cmd->count = 1;
}

/* A unicast endpoint of GPU 0 (@ipc: exportable as FABRIC): its id. */
static void prepare_le_create(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_le_create *cmd = buf;

	cmd->id = le_ids(_metadata, fd, 1);
	cmd->prop.type = CUFAB_LE_TYPE_UNICAST;
	cmd->prop.length = ALLOC_LEN;
}

static __u32 new_le(struct __test_metadata *_metadata, int fd, __u32 type,
		    __u32 ipc)
{
	struct cufab_le_create c = { .size = sizeof(c) };

	prepare_le_create(_metadata, fd, &c);
	c.size = sizeof(c);
	c.prop.type = type;
	c.prop.dev_or_num = type == CUFAB_LE_TYPE_MULTICAST;
	c.prop.ipc_handle_types = ipc;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_LE_CREATE, &c));
	return c.id;
}

/* A unicast endpoint of GPU 0 that LE_QUERY found ready: its id. */
static __u32 ready_le(struct __test_metadata *_metadata, int fd)
{
	struct cufab_le_query q = { .size = sizeof(q), .count = 1 };

	q.id = new_le(_metadata, fd, CUFAB_LE_TYPE_UNICAST, 0);
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_LE_QUERY, &q));
	EXPECT_EQ(1, q.out_ready);
	return q.id;
}

static void prepare_le_destroy(struct __test_metadata *_metadata, int fd,
			       void *buf)
{
	struct cufab_le_destroy *cmd = buf;

	cmd->id = new_le(_metadata, fd, CUFAB_LE_TYPE_UNICAST, 0);
}

static void prepare_le_add_device(struct __test_metadata *_metadata,
				  int fd, void *buf)
{
	struct cufab_le_add_device *cmd = buf;

	cmd->id = new_le(_metadata, fd, CUFAB_LE_TYPE_MULTICAST, 0);
}

static void prepare_le_query(struct __test_metadata *_metadata, int fd,
			     void *buf)
{
	struct cufab_le_query *cmd = buf;

	cmd->id = new_le(_metadata, fd, CUFAB_LE_TYPE_UNICAST, 0);
	cmd->count = 1;
}

static void prepare_le_get_limits(struct __test_metadata *_metadata,
				  int fd, void *buf)
{
	struct cufab_le_get_limits *cmd = buf;

	cmd->prop.type = CUFAB_LE_TYPE_UNICAST;
	cmd->prop.length = ALLOC_LEN;
}

static void prepare_le_bind(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
	struct cufab_le_bind *cmd = buf;

	cmd->id = ready_le(_metadata, fd);
	cmd->length = ALLOC_LEN;
	ASSERT_EQ(0, mem_create(fd, 0, ALLOC_LEN, &cmd->mem_handle));
}

static void prepare_le_unbind(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_le_bind b = { .size = sizeof(b) };
	struct cufab_le_unbind *cmd = buf;

	prepare_le_bind(_metadata, fd, &b);
	b.size = sizeof(b);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_LE_BIND, &b));
	cmd->id = b.id;
	cmd->length = ALLOC_LEN;
}

static void prepare_le_export(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_le_share *cmd = buf;

	ASSERT_EQ(0, imex_join(fd, 0));
	cmd->id = new_le(_metadata, fd, CUFAB_LE_TYPE_UNICAST,
			 CUFAB_LE_IPC_FABRIC);
	cmd->handle_type = CUFAB_LE_IPC_FABRIC;
}

static void prepare_le_import(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_le_share *cmd = buf;

	prepare_le_export(_metadata, fd, buf);
	cmd->size = sizeof(*cmd);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_LE_EXPORT, cmd));
	cmd->id = le_ids(_metadata, fd, 1);
	cmd->dev = -1;
}

static void prepare_mc_create(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_mc_create *cmd = buf;

	cmd->num_devices = 1;
	cmd->length = ALLOC_LEN;
}

static __u32 new_mc(struct __test_metadata *_metadata, int fd, int add)
{
	struct cufab_mc_create c = { .size = sizeof(c), .num_devices = 1,
				     .length = ALLOC_LEN };
	struct cufab_mc_add_device a = { .size = sizeof(a) };

	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MC_CREATE, &c));
	a.handle = c.out_handle;
	if (add)
		EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MC_ADD_DEVICE, &a));
	return c.out_handle;
}

static void prepare_mc_add_device(struct __test_metadata *_metadata,
				  int fd, void *buf)
{
	struct cufab_mc_add_device *cmd = buf;

	cmd->handle = new_mc(_metadata, fd, 0);
}

static void prepare_mc_bind(struct __test_metadata *_metadata, int fd,
			    void *buf)
{
	struct cufab_mc_bind *cmd = buf;

	cmd->handle = new_mc(_metadata, fd, 1);
	cmd->length = ALLOC_LEN;
	ASSERT_EQ(0, mem_create(fd, 0, ALLOC_LEN, &cmd->mem_handle));
}

static void prepare_mc_unbind(struct __test_metadata *_metadata, int fd,
			      void *buf)
{
	struct cufab_mc_bind b = { .size = sizeof(b) };
	struct cufab_mc_unbind *cmd = buf;

	prepare_mc_bind(_metadata, fd, &b);
	b.size = sizeof(b);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MC_BIND, &b));
	cmd->handle = b.handle;
	cmd->length = ALLOC_LEN;
}

static unsigned char mm_bytes[4096];

/* A multicast mapping of GPU 0 with one bound replica. */
static void prepare_multimem(struct __test_metadata *_metadata, int fd,
			     void *buf)
{
	struct cufab_va_reserve r = { .size = sizeof(r), .length = ALLOC_LEN };
	struct cufab_mem_map m = { .size = sizeof(m), .length = ALLOC_LEN };
	struct cufab_mem_set_access s = {
		.size = sizeof(s), .num_descs = 1, .length = ALLOC_LEN,
		.descs_ptr = (uintptr_t)&gpu0_rw,
	};
	struct cufab_mc_bind b = { .size = sizeof(b) };
	struct cufab_multimem *cmd = buf;

	prepare_mc_bind(_metadata, fd, &b);
	b.size = sizeof(b);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MC_BIND, &b));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &r));
	m.addr = s.addr = r.addr;
	m.handle = b.handle;
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_MAP, &m));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MEM_SET_ACCESS, &s));
	cmd->op = CUFAB_MM_STORE;
	cmd->dtype = CUFAB_DT_U8;
	cmd->addr = r.addr;
	cmd->count = sizeof(mm_bytes);
	cmd->buf = (uintptr_t)mm_bytes;
}

static void prepare_peer_enable(struct __test_metadata *_metadata, int fd,
				void *buf)
{
	struct cufab_peer *cmd = buf;

	ASSERT_EQ(0, ctx_create(fd, 0, 0, &cmd->ctx_id));
	ASSERT_EQ(0, ctx_create(fd, 1, 0, &cmd->peer_ctx_id));
}

static void prepare_peer_disable(struct __test_metadata *_metadata, int fd,
				 void *buf)
{
	struct cufab_peer *cmd = buf;

	prepare_peer_enable(_metadata, fd, buf);
	cmd->size = sizeof(*cmd);
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_PEER_ENABLE, cmd));
}

#define prepare_get_version	prepare_nothing
#define prepare_noop		prepare_nothing
#define prepare_mem_get_info	prepare_nothing

#define OFF(_struct, _field)	offsetof(struct _struct, _field)

/*
 * One row per ioctl: its command and struct, the last field of the
 * struct's first version (kernel/ioctl.c), prepare_<name>() that makes a
 * valid call, then the offset of its flags and of its reserved fields
 * (0: none), which must be refused when not 0.
 */
#define SIZE_ROW(_name, _cmd, _struct, _last, _flags, ...)		\
FIXTURE_VARIANT_ADD(cufab_size, _name) {				\
	.cmd = CUFAB_IOCTL_##_cmd,					\
	.size = sizeof(struct _struct),					\
	.last_off = offsetof(struct _struct, _last),			\
	.last_size = sizeof(((struct _struct *)0)->_last),		\
	.prepare = prepare_##_name,					\
	.flags_off = _flags,						\
	.rsv_off = { __VA_ARGS__ },					\
}

SIZE_ROW(get_version, GET_VERSION, cufab_get_version, __reserved,
	 OFF(cufab_get_version, flags), OFF(cufab_get_version, __reserved));
SIZE_ROW(noop, NOOP, cufab_noop, flags, OFF(cufab_noop, flags));
SIZE_ROW(destroy, DESTROY, cufab_destroy, id, 0);
/* DEVICE_INFO's flags are an output: the GPU's features */
SIZE_ROW(device_info, DEVICE_INFO, cufab_device_info, name, 0,
	 OFF(cufab_device_info, __reserved));
SIZE_ROW(ctx_create, CTX_CREATE, cufab_ctx_create, out_ctx_id,
	 OFF(cufab_ctx_create, flags));
SIZE_ROW(mem_create, MEM_CREATE, cufab_mem_create, __reserved,
	 OFF(cufab_mem_create, flags), OFF(cufab_mem_create, __reserved));
SIZE_ROW(mem_release, MEM_RELEASE, cufab_mem_release, handle, 0);
SIZE_ROW(mem_retain, MEM_RETAIN, cufab_mem_retain, __reserved,
	 OFF(cufab_mem_retain, flags), OFF(cufab_mem_retain, __reserved));
SIZE_ROW(mem_get_props, MEM_GET_PROPS, cufab_mem_get_props, out_length, 0);
SIZE_ROW(mem_get_info, MEM_GET_INFO, cufab_mem_get_info, out_total, 0);
SIZE_ROW(va_reserve, VA_RESERVE, cufab_va_reserve, addr,
	 OFF(cufab_va_reserve, flags));
SIZE_ROW(va_free, VA_FREE, cufab_va_free, length, OFF(cufab_va_free, flags));
SIZE_ROW(mem_map, MEM_MAP, cufab_mem_map, __reserved, OFF(cufab_mem_map, flags),
	 OFF(cufab_mem_map, __reserved));
SIZE_ROW(mem_unmap, MEM_UNMAP, cufab_mem_unmap, length,
	 OFF(cufab_mem_unmap, flags));
SIZE_ROW(mem_set_access, MEM_SET_ACCESS, cufab_mem_set_access, descs_ptr, 0);
SIZE_ROW(mem_get_access, MEM_GET_ACCESS, cufab_mem_get_access, addr, 0);
SIZE_ROW(mem_alloc, MEM_ALLOC, cufab_mem_alloc, out_addr,
	 OFF(cufab_mem_alloc, flags));
SIZE_ROW(mem_free, MEM_FREE, cufab_mem_free, addr, OFF(cufab_mem_free, flags));
SIZE_ROW(mem_copy, MEM_COPY, cufab_mem_copy, length, OFF(cufab_mem_copy, flags),
	 OFF(cufab_mem_copy, __reserved));
SIZE_ROW(mem_set, MEM_SET, cufab_mem_set, __reserved, OFF(cufab_mem_set, flags),
	 OFF(cufab_mem_set, __reserved));
SIZE_ROW(pointer_info, POINTER_INFO, cufab_pointer_info, out_alloc_flags,
	 OFF(cufab_pointer_info, flags), OFF(cufab_pointer_info, __reserved),
	 OFF(cufab_pointer_info, __reserved2));
SIZE_ROW(imex_set_channel, IMEX_SET_CHANNEL, cufab_imex_set_channel,
	 out_channel, OFF(cufab_imex_set_channel, flags));
SIZE_ROW(mem_export, MEM_EXPORT, cufab_mem_export, out_fabric,
	 OFF(cufab_mem_export, flags), OFF(cufab_mem_export, __reserved));
SIZE_ROW(mem_import, MEM_IMPORT, cufab_mem_import, __reserved,
	 OFF(cufab_mem_import, flags), OFF(cufab_mem_import, __reserved));
SIZE_ROW(le_id_reserve, LE_ID_RESERVE, cufab_le_id_reserve, out_base,
	 OFF(cufab_le_id_reserve, flags));
SIZE_ROW(le_id_release, LE_ID_RELEASE, cufab_le_id_release, count,
	 OFF(cufab_le_id_release, flags));
SIZE_ROW(le_create, LE_CREATE, cufab_le_create, prop,
	 OFF(cufab_le_create, flags), OFF(cufab_le_create, __reserved));
SIZE_ROW(le_destroy, LE_DESTROY, cufab_le_destroy, id, 0);
SIZE_ROW(le_add_device, LE_ADD_DEVICE, cufab_le_add_device, __reserved, 0,
	 OFF(cufab_le_add_device, __reserved));
SIZE_ROW(le_query, LE_QUERY, cufab_le_query, __reserved,
	 OFF(cufab_le_query, flags), OFF(cufab_le_query, __reserved));
SIZE_ROW(le_get_limits, LE_GET_LIMITS, cufab_le_get_limits, out_max_size,
	 OFF(cufab_le_get_limits, flags));
SIZE_ROW(le_bind, LE_BIND, cufab_le_bind, bind_flags, OFF(cufab_le_bind, flags),
	 OFF(cufab_le_bind, __reserved));
SIZE_ROW(le_unbind, LE_UNBIND, cufab_le_unbind, length,
	 OFF(cufab_le_unbind, flags));
SIZE_ROW(le_export, LE_EXPORT, cufab_le_share, __reserved,
	 OFF(cufab_le_share, flags), OFF(cufab_le_share, __reserved));
SIZE_ROW(le_import, LE_IMPORT, cufab_le_share, __reserved,
	 OFF(cufab_le_share, flags), OFF(cufab_le_share, __reserved));
SIZE_ROW(mc_create, MC_CREATE, cufab_mc_create, __reserved,
	 OFF(cufab_mc_create, flags), OFF(cufab_mc_create, __reserved));
SIZE_ROW(mc_add_device, MC_ADD_DEVICE, cufab_mc_add_device, __reserved, 0,
	 OFF(cufab_mc_add_device, __reserved));
SIZE_ROW(mc_bind, MC_BIND, cufab_mc_bind, bind_flags, OFF(cufab_mc_bind, flags),
	 OFF(cufab_mc_bind, __reserved));
SIZE_ROW(mc_unbind, MC_UNBIND, cufab_mc_unbind, length,
	 OFF(cufab_mc_unbind, flags));
SIZE_ROW(multimem, MULTIMEM, cufab_multimem, out_skipped,
	 OFF(cufab_multimem, flags), OFF(cufab_multimem, __reserved));
SIZE_ROW(peer_enable, PEER_ENABLE, cufab_peer, peer_ctx_id,
	 OFF(cufab_peer, flags));
SIZE_ROW(peer_disable, PEER_DISABLE, cufab_peer, peer_ctx_id,
	 OFF(cufab_peer, flags));
SIZE_ROW(stream_create, STREAM_CREATE, cufab_stream_create, out_uid,
	 OFF(cufab_stream_create, flags));
SIZE_ROW(event_create, EVENT_CREATE, cufab_event_create, __reserved,
	 OFF(cufab_event_create, flags), OFF(cufab_event_create, __reserved));
SIZE_ROW(stream_submit, STREAM_SUBMIT, cufab_stream_submit, out_event_seq,
	 OFF(cufab_stream_submit, flags), OFF(cufab_stream_submit, __reserved));
SIZE_ROW(stream_wait, STREAM_WAIT, cufab_stream_wait, __reserved,
	 OFF(cufab_stream_wait, flags), OFF(cufab_stream_wait, __reserved));
SIZE_ROW(event_export, EVENT_EXPORT, cufab_event_export, out_handle,
	 OFF(cufab_event_export, flags), OFF(cufab_event_export, __reserved));
SIZE_ROW(event_import, EVENT_IMPORT, cufab_event_import, handle,
	 OFF(cufab_event_import, flags));
SIZE_ROW(ipc_mem_export, IPC_MEM_EXPORT, cufab_ipc_mem_export, out_handle,
	 OFF(cufab_ipc_mem_export, flags));
SIZE_ROW(ipc_mem_import, IPC_MEM_IMPORT, cufab_ipc_mem_import, __reserved,
	 OFF(cufab_ipc_mem_import, flags),
	 OFF(cufab_ipc_mem_import, __reserved));
SIZE_ROW(host_register, HOST_REGISTER, cufab_host_register, out_id,
	 OFF(cufab_host_register, flags), OFF(cufab_host_register, __reserved));
SIZE_ROW(host_unregister, HOST_UNREGISTER, cufab_host_unregister, addr,
	 OFF(cufab_host_unregister, flags));
SIZE_ROW(hostfn, HOSTFN, cufab_hostfn, __reserved, OFF(cufab_hostfn, flags),
	 OFF(cufab_hostfn, __reserved));
SIZE_ROW(pool_create, POOL_CREATE, cufab_pool_create, out_max_size,
	 OFF(cufab_pool_create, flags));
SIZE_ROW(pool_attr, POOL_ATTR, cufab_pool_attr, value,
	 OFF(cufab_pool_attr, flags));
SIZE_ROW(pool_grow, POOL_GROW, cufab_pool_grow, out_alloc_id,
	 OFF(cufab_pool_grow, flags), OFF(cufab_pool_grow, __reserved));
SIZE_ROW(pool_shrink, POOL_SHRINK, cufab_pool_shrink, addr,
	 OFF(cufab_pool_shrink, flags), OFF(cufab_pool_shrink, __reserved));
SIZE_ROW(pool_set_access, POOL_SET_ACCESS, cufab_pool_set_access, descs_ptr,
	 OFF(cufab_pool_set_access, flags));
SIZE_ROW(pool_get_access, POOL_GET_ACCESS, cufab_pool_get_access, out_flags,
	 OFF(cufab_pool_get_access, flags));
SIZE_ROW(pool_export, POOL_EXPORT, cufab_pool_export, out_fabric,
	 OFF(cufab_pool_export, flags), OFF(cufab_pool_export, __reserved));
SIZE_ROW(pool_import, POOL_IMPORT, cufab_pool_import, out_pool_id,
	 OFF(cufab_pool_import, flags));
SIZE_ROW(pool_ptr_export, POOL_PTR_EXPORT, cufab_pool_ptr_export, out_data,
	 OFF(cufab_pool_ptr_export, flags), OFF(cufab_pool_ptr_export, __reserved));
SIZE_ROW(pool_ptr_import, POOL_PTR_IMPORT, cufab_pool_ptr_import, out_length,
	 OFF(cufab_pool_ptr_import, flags), OFF(cufab_pool_ptr_import, __reserved));
SIZE_ROW(pool_ptr_release, POOL_PTR_RELEASE, cufab_pool_ptr_release, addr,
	 OFF(cufab_pool_ptr_release, flags), OFF(cufab_pool_ptr_release, __reserved));
SIZE_ROW(mem_advise, MEM_ADVISE, cufab_mem_advise, location_id, 0);
SIZE_ROW(mem_prefetch, MEM_PREFETCH, cufab_mem_prefetch, __reserved,
	 OFF(cufab_mem_prefetch, flags), OFF(cufab_mem_prefetch, __reserved));
SIZE_ROW(stream_memop, STREAM_MEMOP, cufab_stream_memop, out_seq,
	 OFF(cufab_stream_memop, flags));
SIZE_ROW(stream_batch, STREAM_BATCH, cufab_stream_batch, out_seq,
	 OFF(cufab_stream_batch, flags));
SIZE_ROW(mem_range_attrs, MEM_RANGE_ATTRS, cufab_mem_range_attrs,
	 out_resident_on_node, OFF(cufab_mem_range_attrs, flags),
	 OFF(cufab_mem_range_attrs, __reserved),
	 OFF(cufab_mem_range_attrs, __reserved2));
SIZE_ROW(mem_range_export, MEM_RANGE_EXPORT, cufab_mem_range_export,
	 __reserved, OFF(cufab_mem_range_export, flags),
	 OFF(cufab_mem_range_export, __reserved));

FIXTURE_SETUP(cufab_size)
{
	OPEN_OR_SKIP(self->fd);
}

FIXTURE_TEARDOWN(cufab_size)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* A valid struct declaring @size bytes; bytes past the struct are zero. */
static void sized_cmd(struct __test_metadata *_metadata, int fd, __u64 *buf,
		      void (*prepare)(struct __test_metadata *, int, void *),
		      __u32 size)
{
	memset(buf, 0, CMD_BUF_LEN);
	prepare(_metadata, fd, buf);
	memcpy(buf, &size, sizeof(size));
}

TEST_F(cufab_size, exact_size)
{
	if (skipped(_metadata))
		return;
	sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
		  variant->size);
	ASSERT_EQ(0, cufab_ioc(self->fd, variant->cmd, self->buf));
}

TEST_F(cufab_size, short_size_is_einval)
{
	/* shorter than the first version of the struct */
	__u32 sizes[] = { 0, 1, sizeof(__u32),
			  variant->last_off + variant->last_size - 1 };
	unsigned int i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
			  sizes[i]);
		EXPECT_EQ(EINVAL, cufab_ioc(self->fd, variant->cmd,
					    self->buf))
			TH_LOG("size %u", sizes[i]);
	}
}

TEST_F(cufab_size, longer_size_zero_tail_ok)
{
	const __u32 extra = 64;
	unsigned char *tail = (unsigned char *)self->buf + variant->size;
	unsigned int i;

	if (skipped(_metadata))
		return;
	sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
		  variant->size + extra);
	ASSERT_EQ(0, cufab_ioc(self->fd, variant->cmd, self->buf));
	/* the kernel writes back only what it knows: the tail stays zero */
	for (i = 0; i < extra; i++)
		ASSERT_EQ(0, tail[i]) TH_LOG("tail byte %u", i);
}

TEST_F(cufab_size, page_sized_zero_tail_ok)
{
	if (skipped(_metadata))
		return;
	sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
		  sizeof(self->buf));
	ASSERT_EQ(0, cufab_ioc(self->fd, variant->cmd, self->buf));
}

TEST_F(cufab_size, nonzero_tail_is_e2big)
{
	unsigned char *tail = (unsigned char *)self->buf + variant->size;

	if (skipped(_metadata))
		return;
	sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
		  variant->size + 8);
	tail[7] = 1;
	ASSERT_EQ(E2BIG, cufab_ioc(self->fd, variant->cmd, self->buf));
	sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
		  variant->size + 8);
	tail[0] = 0x80;
	ASSERT_EQ(E2BIG, cufab_ioc(self->fd, variant->cmd, self->buf));
}

TEST_F(cufab_size, no_write_past_user_size)
{
	__u32 *canary = (__u32 *)((char *)self->buf + variant->size);

	if (skipped(_metadata))
		return;
	sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
		  variant->size);
	canary[0] = CANARY;
	canary[1] = CANARY;
	/* a non-zero byte past the declared size is not part of the struct */
	ASSERT_EQ(0, cufab_ioc(self->fd, variant->cmd, self->buf));
	ASSERT_EQ(CANARY, canary[0]);
	ASSERT_EQ(CANARY, canary[1]);
}

TEST_F(cufab_size, bad_pointer_is_efault)
{
	if (skipped(_metadata))
		return;
	ASSERT_EQ(EFAULT, cufab_ioc(self->fd, variant->cmd, NULL));
	ASSERT_EQ(EFAULT, cufab_ioc(self->fd, variant->cmd,
				    (void *)(uintptr_t)8));
}

/* A page whose first bytes are a valid struct, the page then read-only. */
static __u64 *ro_cmd(struct __test_metadata *_metadata, int fd,
		     void (*prepare)(struct __test_metadata *, int, void *),
		     __u32 size)
{
	__u64 *page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		return NULL;
	sized_cmd(_metadata, fd, page, prepare, size);
	if (mprotect(page, getpagesize(), PROT_READ)) {
		munmap(page, getpagesize());
		return NULL;
	}
	return page;
}

/*
 * The reply cannot be written back (the struct sits in a read-only page):
 * EFAULT, or the command's own result when it answers nothing, and what
 * the command made for the reply it could not give is gone again.
 */
TEST_F(cufab_size, reply_fault_leaks_nothing)
{
	long long before;
	__u64 *page;
	int ret;

	if (skipped(_metadata))
		return;
	page = ro_cmd(_metadata, self->fd, variant->prepare, variant->size);
	ASSERT_NE(NULL, page);
	before = live_objects();
	ret = cufab_ioc(self->fd, variant->cmd, page);
	EXPECT_TRUE(ret == 0 || ret == EFAULT) TH_LOG("errno %d", ret);
	if (ret == EFAULT && before >= 0)
		EXPECT_GE(before, live_objects_wait(before));
	munmap(page, getpagesize());
}

/* No struct grows past a page: a larger size is refused unread. */
TEST_F(cufab_size, size_over_a_page_is_e2big)
{
	__u32 sizes[] = { 4097, 0x10000, 0xffffffffU };
	unsigned int i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
			  sizes[i]);
		EXPECT_EQ(E2BIG, cufab_ioc(self->fd, variant->cmd, self->buf))
			TH_LOG("size %u", sizes[i]);
	}
}

static void set_u32(void *buf, __u32 off, __u32 val)
{
	memcpy((char *)buf + off, &val, sizeof(val));
}

/* An unknown flag (bit 31) and each reserved field not 0: EINVAL. */
TEST_F(cufab_size, reserved_and_unknown_flags_are_einval)
{
	__u32 flags;
	unsigned int i;

	if (skipped(_metadata))
		return;
	if (!variant->flags_off && !variant->rsv_off[0])
		SKIP(return, "the struct has no flags and no reserved field");
	if (variant->flags_off) {
		sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
			  variant->size);
		memcpy(&flags, (char *)self->buf + variant->flags_off,
		       sizeof(flags));
		set_u32(self->buf, variant->flags_off, flags | 1U << 31);
		EXPECT_EQ(EINVAL, cufab_ioc(self->fd, variant->cmd, self->buf))
			TH_LOG("flags 0x%x", flags | 1U << 31);
	}
	for (i = 0; i < ARRAY_SIZE(variant->rsv_off); i++) {
		if (!variant->rsv_off[i])
			continue;
		sized_cmd(_metadata, self->fd, self->buf, variant->prepare,
			  variant->size);
		set_u32(self->buf, variant->rsv_off[i], 1);
		EXPECT_EQ(EINVAL, cufab_ioc(self->fd, variant->cmd, self->buf))
			TH_LOG("reserved field at offset %u", variant->rsv_off[i]);
	}
}

TEST_F(cufab, unknown_ioctl_is_enotty)
{
	struct cufab_noop noop = { .size = sizeof(noop) };
	unsigned long bad[] = {
		_IO(CUFAB_TYPE, CUFAB_CMD_LAST),
		_IO(CUFAB_TYPE, CUFAB_CMD_BASE - 1),
		_IO(CUFAB_TYPE, 0),
		_IO(CUFAB_TYPE, 0xff),
		_IO('x', CUFAB_CMD_NOOP),
		/* right number, other direction/size bits */
		_IOWR(CUFAB_TYPE, CUFAB_CMD_NOOP, struct cufab_noop),
	};
	unsigned int i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(ENOTTY, cufab_ioc(self->fd, bad[i], &noop))
			TH_LOG("cmd 0x%lx", bad[i]);
	}
}

TEST_F(cufab, get_version)
{
	struct cufab_get_version ver = { .size = sizeof(ver) };

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_GET_VERSION, &ver));
	EXPECT_EQ((__u32)CUFAB_VERSION_MAJOR, ver.major);
	EXPECT_EQ((__u32)CUFAB_VERSION_MINOR, ver.minor);
	EXPECT_LE(1U, ver.num_gpus);
	EXPECT_GE((__u32)CUFAB_MAX_GPUS, ver.num_gpus);
	EXPECT_EQ(sizeof(ver), ver.size);
}

TEST_F(cufab, get_version_flags_and_reserved)
{
	struct cufab_get_version ver = { .size = sizeof(ver), .flags = 1 };

	if (skipped(_metadata))
		return;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_GET_VERSION, &ver));
	ver.flags = 0x80000000;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_GET_VERSION, &ver));
	ver.flags = 0;
	ver.__reserved = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_GET_VERSION, &ver));
}

TEST_F(cufab, noop_flags)
{
	struct cufab_noop noop = { .size = sizeof(noop) };

	if (skipped(_metadata))
		return;
	EXPECT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_NOOP, &noop));
	noop.flags = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_NOOP, &noop));
}

TEST_F(cufab, not_seekable)
{
	if (skipped(_metadata))
		return;
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_F(cufab, device_info_bad_index_is_enodev)
{
	struct cufab_device_info info;

	if (skipped(_metadata))
		return;
	EXPECT_EQ(ENODEV, device_info(self->fd, self->num_gpus, &info, NULL, 0));
	EXPECT_EQ(ENODEV, device_info(self->fd, CUFAB_MAX_GPUS, &info, NULL, 0));
	EXPECT_EQ(ENODEV, device_info(self->fd, UINT32_MAX, &info, NULL, 0));
	EXPECT_EQ(0, device_info(self->fd, self->num_gpus - 1, &info, NULL, 0));
}

TEST_F(cufab, device_info_reserved_is_einval)
{
	struct cufab_device_info info;

	if (skipped(_metadata))
		return;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.__reserved = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_DEVICE_INFO, &info));
}

TEST_F(cufab, device_info_identity)
{
	struct cufab_device_info info[CUFAB_MAX_GPUS];
	__u32 i, j;

	if (skipped(_metadata))
		return;
	for (i = 0; i < self->num_gpus; i++) {
		ASSERT_EQ(0, device_info(self->fd, i, &info[i], NULL, 0));
		EXPECT_EQ((__u32)CUFAB_NUM_DEVICE_ATTRS, info[i].num_attrs);
		/* NUL-terminated, non-empty name */
		EXPECT_NE(0, info[i].name[0]);
		EXPECT_GT(sizeof(info[i].name),
			  strnlen(info[i].name, sizeof(info[i].name)));
		/* RFC 4122 version 4, variant 10xx */
		EXPECT_EQ(4, info[i].uuid[6] >> 4);
		EXPECT_EQ(2, info[i].uuid[8] >> 6);
		EXPECT_LT(0ULL, info[i].total_mem);
		EXPECT_EQ(0ULL, info[i].total_mem % (1024 * 1024));
		EXPECT_EQ(0U, info[i].flags & ~(__u32)CUFAB_DEV_F_ALL);
		EXPECT_LE(-1, info[i].host_numa_node);
		for (j = 0; j < i; j++) {
			EXPECT_NE(0, memcmp(info[i].uuid, info[j].uuid,
					    CUFAB_UUID_LEN))
				TH_LOG("GPUs %u and %u share a UUID", i, j);
			EXPECT_FALSE(info[i].pci_domain == info[j].pci_domain &&
				     info[i].pci_bus == info[j].pci_bus &&
				     info[i].pci_device == info[j].pci_device);
		}
	}
}

TEST_F(cufab, device_info_uuid_stable)
{
	struct cufab_device_info a, b;
	int fd2;

	if (skipped(_metadata))
		return;
	fd2 = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, device_info(self->fd, 0, &a, NULL, 0));
	ASSERT_EQ(0, device_info(fd2, 0, &b, NULL, 0));
	EXPECT_EQ(0, memcmp(a.uuid, b.uuid, CUFAB_UUID_LEN));
	close(fd2);
}

TEST_F(cufab, device_info_peers)
{
	struct cufab_device_info info[CUFAB_MAX_GPUS];
	__u64 valid;
	__u32 i, j;

	if (skipped(_metadata))
		return;
	valid = self->num_gpus == 64 ? ~0ULL : (1ULL << self->num_gpus) - 1;
	for (i = 0; i < self->num_gpus; i++)
		ASSERT_EQ(0, device_info(self->fd, i, &info[i], NULL, 0));
	for (i = 0; i < self->num_gpus; i++) {
		EXPECT_EQ(0ULL, info[i].peer_mask & (1ULL << i))
			TH_LOG("GPU %u is its own peer", i);
		EXPECT_EQ(0ULL, info[i].peer_mask & ~valid);
		for (j = 0; j < self->num_gpus; j++) {
			int ij = !!(info[i].peer_mask & (1ULL << j));
			int ji = !!(info[j].peer_mask & (1ULL << i));

			EXPECT_EQ(ij, ji) TH_LOG("peers %u-%u not symmetric",
						 i, j);
		}
	}
}

TEST_F(cufab, device_info_attributes)
{
	__s32 attrs[CUFAB_NUM_DEVICE_ATTRS];
	struct cufab_device_info info;
	__u32 i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < self->num_gpus; i++) {
		memset(attrs, 0xff, sizeof(attrs));
		ASSERT_EQ(0, device_info(self->fd, i, &info, attrs,
					 CUFAB_NUM_DEVICE_ATTRS));
		EXPECT_EQ(0, attrs[0]);
		EXPECT_EQ(1024, attrs[ATTR_MAX_THREADS_PER_BLOCK]);
		EXPECT_EQ(9, attrs[ATTR_COMPUTE_CAPABILITY_MAJOR]);
		EXPECT_EQ((__s32)info.pci_bus, attrs[ATTR_PCI_BUS_ID]);
		EXPECT_EQ((__s32)info.pci_domain, attrs[ATTR_PCI_DOMAIN_ID]);
		EXPECT_EQ(info.host_numa_node, attrs[ATTR_HOST_NUMA_ID]);
		EXPECT_EQ(!!(info.flags & CUFAB_DEV_F_MULTICAST),
			  attrs[ATTR_MULTICAST_SUPPORTED]);
		EXPECT_EQ(!!(info.flags & CUFAB_DEV_F_FABRIC_HANDLE),
			  attrs[ATTR_HANDLE_TYPE_FABRIC]);
		EXPECT_EQ(!!(info.flags & CUFAB_DEV_F_LE_UNICAST),
			  attrs[ATTR_LE_UNICAST]);
	}
}

/* The kernel writes min(num_attrs, CUFAB_NUM_DEVICE_ATTRS) entries. */
TEST_F(cufab, device_info_short_attr_buffer)
{
	__s32 buf[CUFAB_NUM_DEVICE_ATTRS + 8];
	struct cufab_device_info info;
	const __u32 n = 10;
	__u32 i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(buf); i++)
		buf[i] = CANARY;
	ASSERT_EQ(0, device_info(self->fd, 0, &info, buf, n));
	EXPECT_EQ((__u32)CUFAB_NUM_DEVICE_ATTRS, info.num_attrs);
	EXPECT_EQ(1024, buf[ATTR_MAX_THREADS_PER_BLOCK]);
	for (i = n; i < ARRAY_SIZE(buf); i++) {
		ASSERT_EQ((__s32)CANARY, buf[i])
			TH_LOG("entry %u overwritten", i);
	}
}

TEST_F(cufab, device_info_long_attr_buffer)
{
	__s32 buf[CUFAB_NUM_DEVICE_ATTRS + 40];
	struct cufab_device_info info;
	__u32 i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(buf); i++)
		buf[i] = CANARY;
	ASSERT_EQ(0, device_info(self->fd, 0, &info, buf, ARRAY_SIZE(buf)));
	EXPECT_EQ((__u32)CUFAB_NUM_DEVICE_ATTRS, info.num_attrs);
	EXPECT_EQ(0, buf[0]);
	for (i = CUFAB_NUM_DEVICE_ATTRS; i < ARRAY_SIZE(buf); i++) {
		ASSERT_EQ((__s32)CANARY, buf[i])
			TH_LOG("entry %u overwritten", i);
	}
}

TEST_F(cufab, device_info_bad_attr_pointer)
{
	struct cufab_device_info info;
	void *ro;

	if (skipped(_metadata))
		return;
	EXPECT_EQ(EFAULT, device_info(self->fd, 0, &info,
				      (__s32 *)(uintptr_t)8, 4));
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(EFAULT, device_info(self->fd, 0, &info, ro, 4));
	munmap(ro, 4096);
	/* no entries asked: the pointer is not used */
	EXPECT_EQ(0, device_info(self->fd, 0, &info,
				 (__s32 *)(uintptr_t)8, 0));
}

TEST_F(cufab, ctx_create_destroy)
{
	__u32 a, b;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &a));
	ASSERT_EQ(0, ctx_create(self->fd, self->num_gpus - 1, 0, &b));
	EXPECT_NE(0U, a);
	EXPECT_NE(0U, b);
	EXPECT_NE(a, b);
	EXPECT_EQ(0, destroy(self->fd, a));
	EXPECT_EQ(ENOENT, destroy(self->fd, a));
	EXPECT_EQ(0, destroy(self->fd, b));
}

TEST_F(cufab, ctx_create_every_gpu_and_policy)
{
	const __u32 policies[] = { 0x0, 0x1, 0x2, 0x4 };
	__u32 dev, p, id;

	if (skipped(_metadata))
		return;
	for (dev = 0; dev < self->num_gpus; dev++) {
		for (p = 0; p < ARRAY_SIZE(policies); p++) {
			__u32 flags = policies[p] | 0x08 /* MAP_HOST */;

			ASSERT_EQ(0, ctx_create(self->fd, dev, flags, &id))
				TH_LOG("dev %u flags 0x%x", dev, flags);
			ASSERT_EQ(0, destroy(self->fd, id));
		}
	}
}

TEST_F(cufab, ctx_create_bad_flags_is_einval)
{
	const __u32 bad[] = { 0x3, 0x5, 0x6, 0x7, 0x100, 0x80000000 };
	unsigned int i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, ctx_create(self->fd, 0, bad[i], NULL))
			TH_LOG("flags 0x%x", bad[i]);
	}
}

TEST_F(cufab, ctx_create_bad_device_is_enodev)
{
	if (skipped(_metadata))
		return;
	EXPECT_EQ(ENODEV, ctx_create(self->fd, self->num_gpus, 0, NULL));
	EXPECT_EQ(ENODEV, ctx_create(self->fd, UINT32_MAX, 0, NULL));
}

TEST_F(cufab, destroy_unknown_is_enoent)
{
	if (skipped(_metadata))
		return;
	EXPECT_EQ(ENOENT, destroy(self->fd, 0));
	EXPECT_EQ(ENOENT, destroy(self->fd, 1));
	EXPECT_EQ(ENOENT, destroy(self->fd, UINT32_MAX));
}

/*
 * A destroyed id names nothing, not even the objects created after it (the
 * kernel reuses their memory, never their ids): a second destroy is ENOENT
 * and leaves the new object alone, whichever its type.
 */
TEST_F(cufab, destroyed_id_names_no_later_object)
{
	struct cufab_stream_create sc = { .size = sizeof(sc) };
	__u32 ids[8], live;
	unsigned int i;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &ids[0]));
	for (i = 1; i < ARRAY_SIZE(ids); i++) {
		ASSERT_EQ(0, destroy(self->fd, ids[i - 1]));
		ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &ids[i]));
		EXPECT_GT(ids[i], ids[i - 1]);
		EXPECT_EQ(ENOENT, destroy(self->fd, ids[i - 1]))
			TH_LOG("destroyed id %u, new id %u", ids[i - 1], ids[i]);
	}
	live = ids[i - 1];
	for (i = 0; i + 1 < ARRAY_SIZE(ids); i++)
		EXPECT_EQ(ENOENT, destroy(self->fd, ids[i]));
	/* a stream, another type, made after the destroys */
	sc.ctx_id = live;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_CREATE, &sc));
	for (i = 0; i + 1 < ARRAY_SIZE(ids); i++)
		EXPECT_EQ(ENOENT, destroy(self->fd, ids[i]));
	EXPECT_EQ(0, destroy(self->fd, sc.out_stream_id));
	EXPECT_EQ(ENOENT, destroy(self->fd, sc.out_stream_id));
	EXPECT_EQ(0, destroy(self->fd, live));
}

/* Ids name objects of one client only. */
TEST_F(cufab, ids_are_per_client)
{
	__u32 id;
	int fd2;

	if (skipped(_metadata))
		return;
	fd2 = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &id));
	EXPECT_EQ(ENOENT, destroy(fd2, id));
	EXPECT_EQ(0, destroy(self->fd, id));
	close(fd2);
}

TEST_F(cufab, many_contexts)
{
	enum { N = 1000 };
	static __u32 ids[N];
	unsigned int i;

	if (skipped(_metadata))
		return;
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, ctx_create(self->fd, i % self->num_gpus, 0,
					&ids[i]));
	/* destroy in an order unrelated to creation */
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, destroy(self->fd, ids[(i * 7) % N]));
	EXPECT_EQ(ENOENT, destroy(self->fd, ids[0]));
}

/* ---- replies that cannot be written, racing the destroy of what they made ---- */

struct addr_race {
	int fd;
	unsigned long call;	/* POOL_GROW or POOL_PTR_IMPORT, faulting */
	unsigned long cmd;	/* POOL_SHRINK or POOL_PTR_RELEASE */
	__u32 pool;
	__u64 addr;
	volatile int stop;
	unsigned int hits;
};

/* Gives back the range at the address the next call will get, forever. */
static void *addr_release_loop(void *arg)
{
	struct addr_race *r = arg;
	struct cufab_pool_shrink cmd = {
		.size = sizeof(cmd), .pool = r->pool, .addr = r->addr,
	};

	/* POOL_SHRINK and POOL_PTR_RELEASE share this layout */
	while (!r->stop)
		if (!cufab_ioc(r->fd, r->cmd, &cmd))
			r->hits++;
	return NULL;
}

#define REPLY_RACE_ROUNDS	300

/*
 * @page holds a POOL_GROW or POOL_PTR_IMPORT whose reply faults, each
 * round; a second thread releases, by address, the range each round
 * makes. A range the caller never learnt is the call's own to free: the
 * release must never find it (on the old module, it did, and the grow's
 * cleanup then freed NULL under the pool's lock).
 */
static void reply_fault_race(struct __test_metadata *_metadata,
			     struct addr_race *r, const void *page)
{
	long long before = live_objects();
	pthread_t t;
	int i;

	ASSERT_EQ(0, pthread_create(&t, NULL, addr_release_loop, r));
	for (i = 0; i < REPLY_RACE_ROUNDS; i++)
		ASSERT_EQ(EFAULT, cufab_ioc(r->fd, r->call, (void *)page));
	r->stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(0U, r->hits) TH_LOG("a release found a range no reply named");
	if (before >= 0)
		EXPECT_GE(before, live_objects_wait(before));
}

TEST_F(cufab, pool_grow_reply_fault_races_shrink)
{
	struct addr_race r = { .fd = self->fd, .call = CUFAB_IOCTL_POOL_GROW,
			       .cmd = CUFAB_IOCTL_POOL_SHRINK };
	struct cufab_pool_shrink sh = { .size = sizeof(sh) };
	struct cufab_pool_grow *g;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, pool_new(self->fd, 0, &r.pool));
	/* the address a chunk gets, given back: the next one gets it too */
	ASSERT_EQ(0, pool_chunk(self->fd, r.pool, &r.addr));
	sh.pool = r.pool;
	sh.addr = r.addr;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_POOL_SHRINK, &sh));
	g = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g);
	*g = (struct cufab_pool_grow){ .size = sizeof(*g), .pool = r.pool,
				       .length = 1 };
	ASSERT_EQ(0, mprotect(g, getpagesize(), PROT_READ));
	reply_fault_race(_metadata, &r, g);
	/* the pool still works */
	EXPECT_EQ(0, pool_chunk(self->fd, r.pool, &sh.addr));
	EXPECT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_POOL_SHRINK, &sh));
	munmap(g, getpagesize());
}

TEST_F(cufab, pool_ptr_import_reply_fault_races_release)
{
	struct addr_race r = { .fd = self->fd,
			       .call = CUFAB_IOCTL_POOL_PTR_IMPORT,
			       .cmd = CUFAB_IOCTL_POOL_PTR_RELEASE };
	struct cufab_pool_ptr_import imp = { .size = sizeof(imp) };
	struct cufab_pool_ptr_release rel = { .size = sizeof(rel) };
	struct cufab_pool_ptr_import *page;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, pool_import_ptr(self->fd, &imp.pool, imp.data));
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_POOL_PTR_IMPORT, &imp));
	rel.pool = r.pool = imp.pool;
	rel.addr = r.addr = imp.out_addr;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_POOL_PTR_RELEASE, &rel));
	page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	*page = imp;
	page->out_addr = 0;
	page->out_length = 0;
	ASSERT_EQ(0, mprotect(page, getpagesize(), PROT_READ));
	reply_fault_race(_metadata, &r, page);
	/* the pointer can still be imported, and released */
	EXPECT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_POOL_PTR_IMPORT, &imp));
	rel.addr = imp.out_addr;
	EXPECT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_POOL_PTR_RELEASE, &rel));
	munmap(page, getpagesize());
}

/* Unregisters @addr forever, counting the registrations it found. */
struct hostreg_race {
	int fd;
	__u64 addr;
	volatile int stop;
	unsigned int hits;
};

static void *hostreg_unregister_loop(void *arg)
{
	struct hostreg_race *r = arg;
	struct cufab_host_unregister cmd = {
		.size = sizeof(cmd), .addr = r->addr,
	};

	while (!r->stop)
		if (!cufab_ioc(r->fd, CUFAB_IOCTL_HOST_UNREGISTER, &cmd))
			r->hits++;
	return NULL;
}

/*
 * A registration whose reply faults was never published: the unregister
 * racing it by the same address never finds it, and nothing stays pinned.
 */
TEST_F(cufab, host_register_reply_fault_races_unregister)
{
	struct hostreg_race r = { .fd = self->fd };
	struct cufab_host_register *page, ok = { .size = sizeof(ok) };
	long long before = live_objects();
	pthread_t t;
	int i;

	if (skipped(_metadata))
		return;
	r.addr = fresh_page(_metadata);
	page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	*page = (struct cufab_host_register){ .size = sizeof(*page),
					      .addr = r.addr, .length = 4096 };
	ASSERT_EQ(0, mprotect(page, getpagesize(), PROT_READ));
	ASSERT_EQ(0, pthread_create(&t, NULL, hostreg_unregister_loop, &r));
	for (i = 0; i < REPLY_RACE_ROUNDS; i++)
		ASSERT_EQ(EFAULT, cufab_ioc(self->fd, CUFAB_IOCTL_HOST_REGISTER,
					    page));
	r.stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(0U, r.hits) TH_LOG("an unregister found a registration no reply named");
	if (before >= 0)
		EXPECT_GE(before, live_objects_wait(before));
	/* the page can still be registered, and unregistered */
	ok.addr = r.addr;
	ok.length = 4096;
	EXPECT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_HOST_REGISTER, &ok));
	EXPECT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_HOST_UNREGISTER,
			       &(struct cufab_host_unregister){
				       .size = sizeof(struct cufab_host_unregister),
				       .addr = r.addr }));
	munmap(page, getpagesize());
}

static void on_alarm(int sig)
{
}

/*
 * A host operation handed out in a reply that faults goes back to the
 * queue: the next HOSTFN call gets it. On the old module its token was
 * lost and the stream stuck until the context went.
 */
TEST_F(cufab, hostfn_reply_fault_keeps_the_operation)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct cufab_hostfn h = { .size = sizeof(h) };
	__u64 *page;
	int ret;

	if (skipped(_metadata))
		return;
	page = ro_cmd(_metadata, self->fd, prepare_hostfn, sizeof(h));
	ASSERT_NE(NULL, page);
	ASSERT_EQ(EFAULT, cufab_ioc(self->fd, CUFAB_IOCTL_HOSTFN, page));
	/* no SA_RESTART: a HOSTFN that finds nothing ends with EINTR */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	alarm(10);
	ret = cufab_ioc(self->fd, CUFAB_IOCTL_HOSTFN, &h);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	ASSERT_EQ(0, ret) TH_LOG("the host operation was lost");
	EXPECT_NE(0ULL, h.out_token);
	EXPECT_EQ(1ULL, h.out_fn);
	munmap(page, getpagesize());
}

TEST_HARNESS_MAIN
