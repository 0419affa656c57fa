// SPDX-License-Identifier: GPL-2.0
/*
 * CUFAB_IOCTL_STREAM_BATCH below the library: every errno, a refused
 * entry queues nothing, the entries run in order with their sequence
 * numbers written back, runs of copies and sets (longer than one operation
 * takes, a fault ending one), the reply faults (the command, the entries), the
 * queue bound, and submissions racing the destroy of their stream. The
 * size rule is uapi_test's row, the injected faults fault_test's stream
 * scenario.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "cufab_uapi.h"
#include "kselftest_harness.h"
#include "race_helpers.h"

FIXTURE(batch) {
	int fd;
	__u32 ctx;
	__u32 stream;
	__u32 event;
	__u64 page;
	__u8 *host;
};

FIXTURE_SETUP(batch)
{
	struct cufab_stream_create sc = {
		.size = sizeof(sc), .flags = CUFAB_STREAM_NON_BLOCKING,
	};
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };
	struct cufab_event_create ev = { .size = sizeof(ev) };

	self->host = NULL;
	OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, ctx_create(self->fd, 0, 0, &self->ctx));
	sc.ctx_id = a.ctx_id = ev.ctx_id = self->ctx;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_CREATE, &sc));
	self->stream = sc.out_stream_id;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	self->page = a.out_addr;
	ASSERT_EQ(0, cufab_ioc(self->fd, CUFAB_IOCTL_EVENT_CREATE, &ev));
	self->event = ev.out_event_id;
	self->host = calloc(1, 4096);
	ASSERT_NE(NULL, self->host);
}

FIXTURE_TEARDOWN(batch)
{
	if (self->fd >= 0)
		close(self->fd);
	free(self->host);
}

static struct cufab_stream_submit set_op(__u64 dst, __u32 value, __u64 len)
{
	struct cufab_stream_submit e = {
		.size = sizeof(e), .op = CUFAB_OP_SET, .dst = dst,
		.length = len, .value = value, .elem_size = 1,
		.src_dev = CUFAB_DEV_STREAM, .dst_dev = CUFAB_DEV_STREAM,
	};

	return e;
}

static struct cufab_stream_submit copy_op(__u64 dst, __u64 src, __u64 len)
{
	struct cufab_stream_submit e = {
		.size = sizeof(e), .op = CUFAB_OP_COPY, .dst = dst, .src = src,
		.length = len, .src_dev = CUFAB_DEV_STREAM,
		.dst_dev = CUFAB_DEV_STREAM,
	};

	return e;
}

static int batch(int fd, __u32 stream, struct cufab_stream_submit *e,
		 __u32 n, __u64 *out_seq)
{
	struct cufab_stream_batch cmd = {
		.size = sizeof(cmd), .stream_id = stream, .count = n,
		.ops_ptr = (uintptr_t)e,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_STREAM_BATCH, &cmd);

	if (!ret && out_seq)
		*out_seq = cmd.out_seq;
	return ret;
}

static int sync_stream(int fd, __u32 stream, int *err)
{
	struct cufab_stream_wait w = {
		.size = sizeof(w), .what = CUFAB_WAIT_STREAM, .id = stream,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w);

	*err = w.out_error;
	return ret;
}

/* The stream's last submitted number: one more empty set's, minus one. */
static __u64 submitted(int fd, __u32 stream)
{
	struct cufab_stream_submit s = set_op(0, 0, 0);

	s.stream_id = stream;
	if (cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &s))
		return 0;
	return s.out_seq - 1;
}

TEST_F(batch, errnos)
{
	struct cufab_stream_submit e[3];
	struct cufab_stream_batch cmd = { .size = sizeof(cmd) };
	__u64 before;
	int err;

	SETUP_SKIPPED();
	e[0] = set_op(self->page, 1, 16);
	e[1] = set_op(self->page, 2, 16);
	EXPECT_EQ(0, batch(self->fd, self->stream, e, 2, NULL));
	EXPECT_EQ(ENOENT, batch(self->fd, 0xffff, e, 2, NULL));
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 0, NULL));
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, CUFAB_BATCH_MAX + 1,
				NULL));
	EXPECT_EQ(EFAULT, batch(self->fd, self->stream, NULL, 2, NULL));
	cmd.stream_id = self->stream;
	cmd.count = 2;
	cmd.ops_ptr = (uintptr_t)e;
	cmd.flags = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_BATCH, &cmd));

	/* a refused entry, whatever its place, queues nothing at all */
	before = submitted(self->fd, self->stream);
	e[1].size = sizeof(e[1]) - 8;
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 2, NULL));
	e[1] = set_op(self->page, 2, 16);
	e[1].stream_id = self->stream;
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 2, NULL));
	e[1] = set_op(self->page, 2, 16);
	e[1].flags = 1;
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 2, NULL));
	e[1] = set_op(self->page, 2, 16);
	e[1].op = CUFAB_OP_MAX;
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 2, NULL));
	e[1] = set_op(self->page, 0x100, 16);	/* wider than elem_size */
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 2, NULL));
	e[1] = (struct cufab_stream_submit){
		.size = sizeof(e[1]), .op = CUFAB_OP_EVENT_RECORD,
		.event_id = 0xffff,
	};
	EXPECT_EQ(ENOENT, batch(self->fd, self->stream, e, 2, NULL));
	e[1] = copy_op(self->page, self->page, 16);
	e[1].src_dev = 70;
	EXPECT_EQ(ENODEV, batch(self->fd, self->stream, e, 2, NULL));
	EXPECT_EQ(before + 1, submitted(self->fd, self->stream));
	EXPECT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);

	/* the stream's context gone (and its memory): ESHUTDOWN */
	EXPECT_EQ(0, destroy(self->fd, self->ctx));
	e[0] = set_op(0, 0, 0);
	EXPECT_EQ(ESHUTDOWN, batch(self->fd, self->stream, e, 1, NULL));
}

/*
 * Ten entries: sets and copies between host memory and the device page,
 * each reading what the one before wrote; every entry's sequence number
 * comes back, consecutive, the record's number too.
 */
TEST_F(batch, order_and_sequence_numbers)
{
	struct cufab_stream_submit e[11];
	__u64 seq, first;
	int err, i;

	SETUP_SKIPPED();
	for (i = 0; i < 10; i += 2) {
		e[i] = set_op(self->page, i + 1, 64);
		e[i + 1] = copy_op((uintptr_t)self->host + 64 * (i / 2),
				   self->page, 64);
	}
	e[10] = (struct cufab_stream_submit){
		.size = sizeof(e[10]), .op = CUFAB_OP_EVENT_RECORD,
		.event_id = self->event,
	};
	ASSERT_EQ(0, batch(self->fd, self->stream, e, 11, &seq));
	first = e[0].out_seq;
	for (i = 0; i < 11; i++)
		EXPECT_EQ(first + i, e[i].out_seq);
	EXPECT_EQ(seq, e[10].out_seq);
	EXPECT_EQ(1, e[10].out_event_seq);
	ASSERT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(2 * i + 1, self->host[64 * i]);
		EXPECT_EQ(2 * i + 1, self->host[64 * i + 63]);
	}
}

/*
 * More operations than a batch keeps on the stack (8): sets each followed
 * by a record, so no two copies or sets make a run. Every entry gets its
 * number, each record its own, and the sets run in order.
 */
TEST_F(batch, many_operations)
{
	struct cufab_stream_submit e[25];
	__u64 seq;
	int err, i;

	SETUP_SKIPPED();
	for (i = 0; i < 12; i++) {
		e[2 * i] = set_op(self->page + i, i + 1, 1);
		e[2 * i + 1] = (struct cufab_stream_submit){
			.size = sizeof(e[0]), .op = CUFAB_OP_EVENT_RECORD,
			.event_id = self->event,
		};
	}
	e[24] = copy_op((uintptr_t)self->host, self->page, 16);
	ASSERT_EQ(0, batch(self->fd, self->stream, e, 25, &seq));
	for (i = 1; i < 25; i++)
		EXPECT_EQ(e[0].out_seq + i, e[i].out_seq);
	EXPECT_EQ(seq, e[24].out_seq);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(i + 1, e[2 * i + 1].out_event_seq);
	ASSERT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(i + 1, self->host[i]);
	EXPECT_EQ(0, self->host[12]);
}

/*
 * Consecutive copies and sets run as one operation of the stream: a run
 * longer than the kernel makes at once (256) still runs every entry, in
 * order, each with its own sequence number.
 */
TEST_F(batch, long_run_of_sets)
{
	static struct cufab_stream_submit e[301];
	__u64 seq;
	int err, i;

	SETUP_SKIPPED();
	for (i = 0; i < 300; i++)
		e[i] = set_op(self->page + i % 64, i & 0xff, 1);
	e[300] = copy_op((uintptr_t)self->host, self->page, 64);
	ASSERT_EQ(0, batch(self->fd, self->stream, e, 301, &seq));
	for (i = 1; i < 301; i++)
		EXPECT_EQ(e[0].out_seq + i, e[i].out_seq);
	EXPECT_EQ(seq, e[300].out_seq);
	ASSERT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);
	/* byte i was last set by entry 256 + i, or 192 + i past 299 */
	for (i = 0; i < 64; i++)
		EXPECT_EQ((i < 44 ? 256 + i : 192 + i) & 0xff, self->host[i]);
}

/*
 * A copy of a run that faults when it runs ends the run there: the
 * entries before it ran, the one after it did not, and the stream
 * reports the fault.
 */
TEST_F(batch, a_faulting_copy_ends_its_run)
{
	struct cufab_stream_submit e[4];
	void *none;
	int err;

	SETUP_SKIPPED();
	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	e[0] = set_op(self->page, 5, 16);
	e[1] = copy_op((uintptr_t)self->host, self->page, 16);
	e[2] = copy_op((uintptr_t)self->host + 64, (uintptr_t)none, 16);
	e[3] = copy_op((uintptr_t)self->host + 32, self->page, 16);
	ASSERT_EQ(0, batch(self->fd, self->stream, e, 4, NULL));
	EXPECT_EQ(e[0].out_seq + 3, e[3].out_seq);
	ASSERT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(-EFAULT, err);
	EXPECT_EQ(5, self->host[0]);
	EXPECT_EQ(5, self->host[15]);
	EXPECT_EQ(0, self->host[32]);
	EXPECT_EQ(0, self->host[64]);
	munmap(none, 4096);
}

/*
 * The reply cannot be written (the command in a read-only page, or the
 * entries): EFAULT, and the batch ran all the same, as a STREAM_SUBMIT
 * whose reply faults.
 */
TEST_F(batch, reply_faults)
{
	struct cufab_stream_batch *cmd;
	struct cufab_stream_submit *e;
	long long before;
	int err;

	SETUP_SKIPPED();
	cmd = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cmd);
	e = (void *)((char *)cmd + 4096);
	e[0] = copy_op((uintptr_t)self->host, self->page, 8);
	cmd->size = sizeof(*cmd);
	cmd->stream_id = self->stream;
	cmd->count = 1;
	cmd->ops_ptr = (uintptr_t)e;
	self->host[0] = 0xff;
	ASSERT_EQ(0, mprotect(cmd, 4096, PROT_READ));
	before = live_objects();
	EXPECT_EQ(EFAULT, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_BATCH, cmd));
	EXPECT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, self->host[0]);

	ASSERT_EQ(0, mprotect(cmd, 4096, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mprotect(e, 4096, PROT_READ));
	self->host[0] = 0xff;
	EXPECT_EQ(EFAULT, cufab_ioc(self->fd, CUFAB_IOCTL_STREAM_BATCH, cmd));
	EXPECT_EQ(0, sync_stream(self->fd, self->stream, &err));
	EXPECT_EQ(0, self->host[0]);
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
	munmap(cmd, 8192);
}

#define QUEUE_MAX	CUFAB_PARAMS "stream_queue_max"

/* A batch larger than the whole queue bound could never go: EINVAL. */
TEST_F(batch, larger_than_the_queue_bound)
{
	struct cufab_stream_submit e[4];
	char old[32] = "65536";
	FILE *f;
	int i;

	SETUP_SKIPPED();
	f = fopen(QUEUE_MAX, "r");
	if (!f)
		SKIP(return, "no %s", QUEUE_MAX);
	if (!fgets(old, sizeof(old), f))
		strcpy(old, "65536");
	fclose(f);
	for (i = 0; i < 4; i++)
		e[i] = set_op(self->page, i, 8);
	if (write_file(QUEUE_MAX, "3"))
		SKIP(return, "cannot write %s", QUEUE_MAX);
	EXPECT_EQ(EINVAL, batch(self->fd, self->stream, e, 4, NULL));
	EXPECT_EQ(0, batch(self->fd, self->stream, e, 3, NULL));
	EXPECT_EQ(0, write_file(QUEUE_MAX, old));
}

static void *submit_loop(void *p)
{
	struct racer *r = p;
	struct cufab_stream_submit e[8];
	int i, ret;

	for (i = 0; i < 8; i++)
		e[i] = set_op(r->page, i, 4096);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		ret = batch(r->fd, r->stream, e, 8, NULL);
		if (ret && ret != ENOENT && !r->other)
			r->other = ret;
		if (ret == ENOENT)
			break;
	}
	return NULL;
}

/* Batches racing the destroy of their stream (in a child, whose exit ends all). */
TEST(race_with_destroy)
{
	long long before = live_objects();

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "no module");
	EXPECT_EQ(0, stream_destroy_race(0, submit_loop));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

TEST_HARNESS_MAIN
