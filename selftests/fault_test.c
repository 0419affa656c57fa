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

#define DEBUGFS		"/sys/kernel/debug"
#define CUFAB_DEBUGFS	DEBUGFS "/cufab"
#define NCTX		4

/* Debugfs knobs: value strings, saved to be restored. */
struct knob {
	const char *path;
	char saved[64];
	int have;
};

static int knob_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int knob_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Remember the current value; a missing knob is simply not used. */
static void knob_save(struct knob *k, const char *path)
{
	k->path = path;
	k->have = !knob_read(path, k->saved, sizeof(k->saved));
}

static int knob_set(struct knob *k, const char *val)
{
	return k->have ? knob_write(k->path, val) : 0;
}

static void knob_restore(struct knob *k)
{
	if (k->have)
		knob_write(k->path, k->saved);
}

/*
 * Allocations made with GFP_KERNEL must count for fail-nth too, and nobody
 * wants a stack dump per injected fault in the console.
 */
static const char *const quiet_knobs[][2] = {
	{ DEBUGFS "/failslab/ignore-gfp-wait", "N" },
	{ DEBUGFS "/failslab/verbose", "0" },
	{ DEBUGFS "/fail_page_alloc/verbose", "0" },
	{ CUFAB_DEBUGFS "/fail_client_open/verbose", "0" },
	{ CUFAB_DEBUGFS "/fail_object_alloc/verbose", "0" },
	{ CUFAB_DEBUGFS "/fail_ctx_create/verbose", "0" },
	{ CUFAB_DEBUGFS "/fail_stream/verbose", "0" },
	{ CUFAB_DEBUGFS "/fail_stream_exec/verbose", "0" },
};

#define NQUIET ARRAY_SIZE(quiet_knobs)

FIXTURE(fault) {
	struct knob quiet[NQUIET];
	__s64 live_before;
};

FIXTURE_SETUP(fault)
{
	unsigned int i;

	if (access(CUFAB_DEVICE_PATH, F_OK))
		SKIP(return, "%s absent (cufab.ko not loaded)",
		     CUFAB_DEVICE_PATH);
	if (access(CUFAB_DEBUGFS "/fail_object_alloc", F_OK))
		SKIP(return, "no fault injection in this kernel (%s absent)",
		     CUFAB_DEBUGFS "/fail_object_alloc");
	for (i = 0; i < NQUIET; i++) {
		knob_save(&self->quiet[i], quiet_knobs[i][0]);
		ASSERT_EQ(0, knob_set(&self->quiet[i], quiet_knobs[i][1]))
			TH_LOG("%s", quiet_knobs[i][0]);
	}
	self->live_before = live_objects();
	ASSERT_LE(0, self->live_before);
}

FIXTURE_TEARDOWN(fault)
{
	unsigned int i;

	for (i = 0; i < NQUIET; i++)
		knob_restore(&self->quiet[i]);
}

/* The 6.1 harness runs the test body after a SKIP in the fixture setup. */
static bool skipped(struct __test_metadata *_metadata)
{
	return _metadata->skip;
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

TEST_F_TIMEOUT(fault, fail_nth, 600)
{
	unsigned int injected = 0, failed = 0;

	if (skipped(_metadata))
		return;
	/* warm up: code and data paged in, lazy symbols bound */
	ASSERT_EQ(0, scenario());
	ASSERT_EQ(self->live_before, live_objects());

	FAIL_NTH_LOOP(scenario(), ENOMEM, self->live_before, injected,
		      failed);
	/* at least: open, get_version, contexts, object allocations */
	EXPECT_LE(1U + 2 * NCTX, injected);
	EXPECT_LT(0U, failed);
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
	return err;
}

TEST_F_TIMEOUT(fault, fail_nth_streams, 600)
{
	unsigned int n, injected = 0, failed = 0;
	int fd, err, done = 0;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, stream_scenario());
	ASSERT_EQ(self->live_before, live_objects());

	fd = fail_nth_open();
	ASSERT_LE(0, fd) TH_LOG("fail-nth: %s", strerror(errno));
	for (n = 1; n < 10000 && !done; n++) {
		ASSERT_EQ(0, fail_nth_arm(fd, n));
		err = stream_scenario();
		done = fail_nth_disarm(fd);
		ASSERT_LE(0, done);
		if (done) {
			ASSERT_EQ(0, err);
			break;
		}
		injected++;
		if (err) {
			failed++;
			EXPECT_EQ(ENOMEM, err)
				TH_LOG("fault %u: %s", n, strerror(err));
		}
		ASSERT_EQ(self->live_before, live_objects())
			TH_LOG("fault %u leaked objects", n);
	}
	close(fd);
	ASSERT_TRUE(done);
	TH_LOG("%u faults injected, %u surfaced as errors", injected, failed);
	/* streams, event, three operations at least */
	EXPECT_LE(6U, injected);
	EXPECT_LT(0U, failed);
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

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	fd2 = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd2 < 0) {
		err = errno;
		close(fd);
		return err;
	}
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

TEST_F(fault, fail_nth_ipc_events)
{
	unsigned int injected = 0, failed = 0;

	if (skipped(_metadata))
		return;
	ASSERT_EQ(0, ipc_event_scenario());
	ASSERT_EQ(self->live_before, live_objects_wait(self->live_before));
	FAIL_NTH_LOOP(ipc_event_scenario(), ENOMEM, self->live_before,
		      injected, failed);
	/* two clients, contexts, the event, export, import, the stream */
	EXPECT_LE(6U, injected);
	EXPECT_LT(0U, failed);
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
	static const char *const files[][2] = {
		{ "interval", "1" }, { "space", "0" },
		{ "task-filter", "N" }, { "times", "1" },
		{ "probability", "100" },
	};
	struct knob k[5];
	static char paths[5][128];
	unsigned int i;
	int fd;

	if (skipped(_metadata))
		return;
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ctx_create(fd, 0, 0, &sa.ctx_id));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_CREATE, &sa));
	for (i = 0; i < 5; i++) {
		snprintf(paths[i], sizeof(paths[i]),
			 CUFAB_DEBUGFS "/fail_stream_exec/%s", files[i][0]);
		knob_save(&k[i], paths[i]);
		ASSERT_EQ(1, k[i].have) TH_LOG("%s", paths[i]);
	}
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, knob_set(&k[i], files[i][1]));
	op.stream_id = w.id = sa.out_stream_id;
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_SUBMIT, &op));
	EXPECT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_STREAM_WAIT, &w));
	for (i = 5; i-- > 0;)
		knob_restore(&k[i]);
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
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * One debugfs fault_attr: made to fail exactly once, for this task only
 * (task-filter + make-it-fail), so nothing else on the system trips on it.
 */
FIXTURE(knob) {
	struct knob attr[6];
	struct knob make_it_fail;
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

static const char *const knob_files[][2] = {
	{ "verbose", "0" },
	{ "interval", "1" },
	{ "space", "0" },
	{ "task-filter", "Y" },
	{ "times", "1" },
	{ "probability", "100" },	/* last: arms the point */
};

FIXTURE_SETUP(knob)
{
	static char paths[6][128];
	unsigned int i;

	self->fd = -1;
	if (access(CUFAB_DEVICE_PATH, F_OK))
		SKIP(return, "%s absent (cufab.ko not loaded)",
		     CUFAB_DEVICE_PATH);
	snprintf(paths[0], sizeof(paths[0]), CUFAB_DEBUGFS "/%s",
		 variant->name);
	if (access(paths[0], F_OK))
		SKIP(return, "no fault injection in this kernel (%s absent)",
		     paths[0]);
	self->fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);

	knob_save(&self->make_it_fail, "/proc/self/make-it-fail");
	ASSERT_EQ(1, self->make_it_fail.have);
	ASSERT_EQ(0, knob_set(&self->make_it_fail, "1"));
	for (i = 0; i < 6; i++) {
		snprintf(paths[i], sizeof(paths[i]), CUFAB_DEBUGFS "/%s/%s",
			 variant->name, knob_files[i][0]);
		knob_save(&self->attr[i], paths[i]);
		ASSERT_EQ(1, self->attr[i].have) TH_LOG("%s", paths[i]);
	}
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, knob_set(&self->attr[i], knob_files[i][1]))
			TH_LOG("%s", paths[i]);
}

FIXTURE_TEARDOWN(knob)
{
	int i;

	/* disarm first */
	for (i = 5; i >= 0; i--)
		knob_restore(&self->attr[i]);
	knob_restore(&self->make_it_fail);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(knob, fails_once)
{
	__s64 live;

	if (skipped(_metadata))
		return;
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

	if (skipped(_metadata))
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (knob_write("/proc/self/make-it-fail", "0"))
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
