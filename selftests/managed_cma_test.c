// SPDX-License-Identifier: GPL-2.0
/*
 * CONCURRENT_MANAGED_ACCESS 0: while a stream of such a GPU has work, a
 * CPU access to managed memory attached GLOBAL, or SINGLE to that stream,
 * faults (SIGSEGV) with a log line and a netlink event; memory attached
 * HOST, or SINGLE to an idle stream, stays accessible, and everything is
 * accessible again once the stream is idle.
 *
 * The test process turns the setting off on gpu0 with cufabctl (the kernel
 * refuses while a client is open, so it opens none) and runs the CUDA
 * work in children; a stream stays busy on a host function that waits for
 * a pipe, never on timing.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "topo_helpers.h"
#include "cufab_uapi.h"
#include "kselftest_harness.h"

#define PG	4096UL

/* The child's view: a context on gpu0 and the write end of a report pipe. */
static int report_fd = -1;
static int gate[2] = { -1, -1 };

static void CUDA_CB wait_gate(void *arg)
{
	char c;

	(void)arg;
	if (read(gate[0], &c, 1) < 0)
		_exit(60);
}

static int child_ctx(void)
{
	CUcontext ctx;

	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) ||
	    cuCtxSetCurrent(ctx) || pipe(gate))
		return -1;
	return 0;
}

/* A stream kept busy until the gate opens. */
static int busy_stream(CUstream *s)
{
	if (cuStreamCreate(s, CU_STREAM_NON_BLOCKING))
		return -1;
	return cuLaunchHostFunc(*s, wait_gate, NULL) ? -1 : 0;
}

static void report(CUdeviceptr p)
{
	if (write(report_fd, &p, sizeof(p)) != sizeof(p))
		_exit(62);
}

/*
 * Memory attached HOST, and SINGLE to an idle stream, is the CPU's while
 * another stream is busy; memory attached GLOBAL is not: SIGSEGV.
 */
static int fault_global(void)
{
	CUdeviceptr g, h, one;
	CUstream busy, idle;
	volatile char *p;

	if (child_ctx() ||
	    cuMemAllocManaged(&g, PG, CU_MEM_ATTACH_GLOBAL) ||
	    cuMemAllocManaged(&h, PG, CU_MEM_ATTACH_HOST) ||
	    cuMemAllocManaged(&one, PG, CU_MEM_ATTACH_GLOBAL) ||
	    cuStreamCreate(&idle, CU_STREAM_NON_BLOCKING) ||
	    cuStreamAttachMemAsync(idle, one, 0, CU_MEM_ATTACH_SINGLE) ||
	    cuStreamSynchronize(idle))
		return 10;
	p = (volatile char *)g;
	p[0] = 1;	/* no stream has work: mapped */
	if (busy_stream(&busy))
		return 11;
	((volatile char *)h)[0] = 2;
	((volatile char *)one)[0] = 3;
	report(g);
	p[0] = 4;	/* faults */
	return 12;
}

/* Memory attached SINGLE to the busy stream faults. */
static int fault_single(void)
{
	CUdeviceptr d;
	CUstream s;

	if (child_ctx() || cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_HOST) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) ||
	    cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_SINGLE) ||
	    cuStreamSynchronize(s))
		return 10;
	((volatile char *)d)[0] = 1;	/* idle: mapped */
	if (cuLaunchHostFunc(s, wait_gate, NULL))
		return 11;
	report(d);
	((volatile char *)d)[0] = 2;	/* faults */
	return 12;
}

/*
 * Once the stream is idle the CPU has the memory again, with what the
 * stream wrote; also after a SINGLE attach that ran on a busy stream.
 */
static int idle_again(void)
{
	CUdeviceptr d, e;
	CUstream s;
	unsigned int i;
	char *p;

	if (child_ctx() || cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL) ||
	    cuMemAllocManaged(&e, PG, CU_MEM_ATTACH_HOST) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING))
		return 10;
	p = (char *)d;
	memset(p, 1, PG);
	/* each time: synchronized with the last operation, then touched */
	for (i = 0; i < 32; i++) {
		if (cuMemsetD8Async(d, 0x40 + i, PG, s) ||
		    cuStreamAttachMemAsync(s, e, 0, CU_MEM_ATTACH_SINGLE) ||
		    cuStreamSynchronize(s))
			return 11;
		if (p[0] != (char)(0x40 + i) || p[PG - 1] != (char)(0x40 + i))
			return 12;
		p[1] = 0;
		((volatile char *)e)[0] = (char)i;
	}
	return cuMemFree(d) || cuMemFree(e) || cuStreamDestroy(s) ? 13 : 0;
}

/*
 * Memory attached SINGLE to an idle stream is the CPU's while another
 * stream is busy; once that stream is destroyed it goes back to GLOBAL
 * and faults at once, not at the busy stream's next transition. A
 * system call reading it (write() to a pipe) says when: -EFAULT.
 */
static int revert_fences(void)
{
	CUdeviceptr d;
	CUstream one, busy;
	int fds[2], i;

	if (child_ctx() || pipe(fds) ||
	    cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL) ||
	    cuStreamCreate(&one, CU_STREAM_NON_BLOCKING) ||
	    cuStreamAttachMemAsync(one, d, 0, CU_MEM_ATTACH_SINGLE) ||
	    cuStreamSynchronize(one) || busy_stream(&busy))
		return 10;
	((volatile char *)d)[0] = 1;	/* SINGLE to an idle stream: mapped */
	if (write(fds[1], (void *)d, 1) != 1 || cuStreamDestroy(one))
		return 11;
	/* the engine drops its last reference on the stream shortly after */
	for (i = 0; i < 500; i++) {
		if (write(fds[1], (void *)d, 1) < 0 && errno == EFAULT)
			break;
		usleep(10000);
	}
	if (i == 500)
		return 12;	/* still mapped: not fenced */
	report(d);
	((volatile char *)d)[0] = 2;	/* faults */
	return 13;
}

/*
 * Attached memory on a busy stream, shown by cufabctl mem show, then
 * kill -9: nothing leaks.
 */
static int hold_attached(void)
{
	CUdeviceptr d;
	CUstream s;

	if (child_ctx() || cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) ||
	    cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_SINGLE) ||
	    cuLaunchHostFunc(s, wait_gate, NULL))
		return 10;
	report(d);
	pause();
	return 11;
}

/*
 * "cufabctl -j mem show pid PID" lists the child's managed allocation as
 * attached to a stream (the engine runs the attach soon after the call).
 */
static bool shows_attached(pid_t pid)
{
	char args[64], out[4096];
	int i;

	snprintf(args, sizeof(args), "-j mem show pid %d", (int)pid);
	for (i = 0; i < 100; i++) {
		if (ctl_run(args, NULL, out, sizeof(out)))
			return false;
		if (strstr(out, "\"managed\":\"single\",\"stream\":"))
			return true;
		usleep(20000);
	}
	return false;
}

static bool saw_attached;

/* Runs @fn in a child; its status (wait_child()) and what it reported. */
static int run_reporting(int (*fn)(void), CUdeviceptr *addr, bool kill9)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	*addr = 0;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		report_fd = fds[1];
		_exit(fn());
	}
	close(fds[1]);
	n = read(fds[0], addr, sizeof(*addr));
	if (n != sizeof(*addr))
		*addr = 0;
	if (kill9) {
		saw_attached = shows_attached(pid);
		kill(pid, SIGKILL);
	}
	status = wait_child(pid);
	close(fds[0]);
	return status;
}

/* /dev/kmsg from now on, or -1. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Has a record since kmsg_open() the text @what? */
static bool kmsg_has(int fd, const char *what)
{
	char rec[1024];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			return false;
		rec[n] = 0;
		if (strstr(rec, what))
			return true;
	}
}

/*
 * Each test makes several processes and cufabctl calls: far more than the
 * harness's 30 s on a loaded debug kernel, and a timed-out test would
 * leave gpu0 without the feature for the suites after it.
 */
FIXTURE(cma) {
	bool changed;
};

FIXTURE_SETUP(cma)
{
	self->changed = false;
	if (access(CUFAB_DEVICE_PATH, F_OK))
		SKIP(return, "no " CUFAB_DEVICE_PATH);
	if (ctl("dev set gpu0 managed-concurrent off"))
		SKIP(return, "cufabctl dev set refused (no cufabctl, not root, or a client open)");
	self->changed = true;
}

FIXTURE_TEARDOWN(cma)
{
	if (!self->changed)
		return;
	if (ctl("topo set managed-check off"))
		TH_LOG("could not turn managed-check off");
	if (ctl("dev set gpu0 managed-concurrent on"))
		TH_LOG("could not turn managed-concurrent back on for gpu0");
}

/* The attribute follows the setting. */
static int attr_off(void)
{
	int v = -1;

	if (cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0))
		return 10;
	return v;
}

TEST_F_TIMEOUT(cma, attribute, 600)
{
	if (!self->changed)
		return;
	EXPECT_EQ(0, in_child(attr_off));
}

TEST_F_TIMEOUT(cma, global_faults_host_and_idle_single_do_not, 600)
{
	char what[128];
	CUdeviceptr addr;
	int kmsg;

	if (!self->changed)
		return;
	kmsg = kmsg_open();
	EXPECT_EQ(0x100 | SIGSEGV, run_reporting(fault_global, &addr, false));
	ASSERT_NE(0ULL, addr);
	snprintf(what, sizeof(what),
		 "CPU access to managed memory at 0x%llx (allocation",
		 (unsigned long long)addr);
	if (kmsg >= 0) {
		EXPECT_TRUE(kmsg_has(kmsg, what)) TH_LOG("no log line \"%s\"", what);
		close(kmsg);
	}
}

TEST_F_TIMEOUT(cma, single_to_busy_stream_faults, 600)
{
	CUdeviceptr addr;
	int kmsg;

	if (!self->changed)
		return;
	kmsg = kmsg_open();
	EXPECT_EQ(0x100 | SIGSEGV, run_reporting(fault_single, &addr, false));
	if (kmsg >= 0) {
		EXPECT_TRUE(kmsg_has(kmsg, "attached single) while stream"));
		close(kmsg);
	}
}

TEST_F_TIMEOUT(cma, destroyed_stream_memory_fenced_at_once, 600)
{
	CUdeviceptr addr;
	int kmsg;

	if (!self->changed)
		return;
	kmsg = kmsg_open();
	EXPECT_EQ(0x100 | SIGSEGV, run_reporting(revert_fences, &addr, false));
	EXPECT_NE(0ULL, addr);
	if (kmsg >= 0) {
		EXPECT_TRUE(kmsg_has(kmsg, "attached global) while stream"));
		close(kmsg);
	}
}

TEST_F_TIMEOUT(cma, accessible_when_idle, 600)
{
	if (!self->changed)
		return;
	EXPECT_EQ(0, in_child(idle_again));
}

TEST_F_TIMEOUT(cma, kill_9_attached, 600)
{
	long long before = live_objects();
	CUdeviceptr addr;

	if (!self->changed)
		return;
	EXPECT_EQ(0x100 | SIGKILL, run_reporting(hold_attached, &addr, true));
	EXPECT_NE(0ULL, addr);
	EXPECT_TRUE(saw_attached) TH_LOG("mem show never showed the attachment");
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* "cufabctl -j monitor" prints the fault's event. */
TEST_F_TIMEOUT(cma, monitor_event, 600)
{
	char ctl_path[PATH_MAX], out[8192], want[64];
	char tmpl[] = "/tmp/cma_monitor.XXXXXX";
	CUdeviceptr addr;
	int i, fd, seen = 0;
	pid_t mon;

	if (!self->changed)
		return;
	if (!tool_path("cufabctl", ctl_path, sizeof(ctl_path)))
		SKIP(return, "no build/bin/cufabctl");
	fd = mkstemp(tmpl);
	ASSERT_LE(0, fd);
	mon = monitor_start(ctl_path, fd);
	ASSERT_LE(0, mon);
	/* the monitor joins the group asynchronously: wait for a dev-set */
	for (i = 0; i < 100 && !seen; i++) {
		ASSERT_EQ(0, ctl("dev set gpu0 managed-concurrent off"));
		usleep(50000);
		monitor_read(fd, out, sizeof(out));
		seen = !!strstr(out, "\"dev-set\"");
	}
	ASSERT_TRUE(seen) TH_LOG("the monitor never printed a dev-set event");
	EXPECT_EQ(0x100 | SIGSEGV, run_reporting(fault_single, &addr, false));
	seen = 0;
	for (i = 0; i < 100 && !seen; i++) {
		monitor_read(fd, out, sizeof(out));
		seen = !!strstr(out, "\"managed-event\"");
		if (!seen)
			usleep(50000);
	}
	kill(mon, SIGINT);
	waitpid(mon, NULL, 0);
	EXPECT_TRUE(seen) TH_LOG("no managed-event in: %s", out);
	EXPECT_NE(NULL, strstr(out, "\"kind\":\"cpu-fault\""));
	EXPECT_NE(NULL, strstr(out, "\"attach\":\"single\""));
	/*
	 * it names the process, the allocation and the offset in it, the
	 * stream; never the process's address, which every user would read
	 */
	EXPECT_NE(NULL, strstr(out, "\"comm\":\"managed_cma_tes"));
	EXPECT_NE(NULL, strstr(out, "\"offset\":0,"));
	snprintf(want, sizeof(want), "%llu", (unsigned long long)addr);
	EXPECT_EQ(NULL, strstr(out, want)) TH_LOG("the address %s was sent", want);
	EXPECT_EQ(NULL, strstr(out, "\"addr\":"));
	EXPECT_NE(NULL, strstr(out, "\"alloc_id\":"));
	EXPECT_NE(NULL, strstr(out, "\"stream\":"));
	close(fd);
	unlink(tmpl);
}

/*
 * Check mode: an operation of stream B touching memory attached SINGLE to
 * stream A, or (on this GPU, concurrent managed access 0) attached HOST,
 * is reported; strict also fails B with CUDA_ERROR_ILLEGAL_ADDRESS.
 */
static int cross_stream(void)
{
	CUdeviceptr d, h;
	CUstream a, b;
	int strict = report_fd;	/* see check_mode */

	if (child_ctx() || cuMemAllocManaged(&d, PG, CU_MEM_ATTACH_GLOBAL) ||
	    cuMemAllocManaged(&h, PG, CU_MEM_ATTACH_HOST) ||
	    cuStreamCreate(&a, CU_STREAM_NON_BLOCKING) ||
	    cuStreamCreate(&b, CU_STREAM_NON_BLOCKING) ||
	    cuStreamAttachMemAsync(a, d, 0, CU_MEM_ATTACH_SINGLE) ||
	    cuStreamSynchronize(a))
		return 10;
	/* its own stream may touch it */
	if (cuMemsetD8Async(d, 1, PG, a) || cuStreamSynchronize(a))
		return 11;
	if (cuMemsetD8Async(d, 2, PG, b))
		return 12;
	if (cuStreamSynchronize(b) !=
	    (strict ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS))
		return 13;
	if (strict)
		return 0;
	if (cuMemsetD8Async(h, 3, PG, b) || cuStreamSynchronize(b))
		return 14;
	return ((char *)d)[0] == 2 && ((char *)h)[0] == 3 ? 0 : 15;
}

static int strict_child(void)
{
	report_fd = 1;
	return cross_stream();
}

static int report_child(void)
{
	report_fd = 0;
	return cross_stream();
}

TEST_F_TIMEOUT(cma, check_mode, 600)
{
	char out[64];
	int kmsg;

	if (!self->changed)
		return;
	/* off by default: nothing reported, nothing fails */
	kmsg = kmsg_open();
	EXPECT_EQ(0, in_child(report_child));
	if (kmsg >= 0)
		EXPECT_FALSE(kmsg_has(kmsg, "which the attachment promised"));
	ASSERT_EQ(0, ctl("topo set managed-check report"));
	EXPECT_EQ(0, in_child(report_child));
	if (kmsg >= 0) {
		EXPECT_TRUE(kmsg_has(kmsg, "attached single (stream"));
		EXPECT_TRUE(kmsg_has(kmsg, "attached host (stream 0)"));
	}
	EXPECT_EQ(0, ctl("topo set managed-check strict"));
	EXPECT_EQ(0, in_child(strict_child));
	EXPECT_EQ(0, ctl_run("-j topo show", "'.managed_check'", out,
			     sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "strict"));
	EXPECT_EQ(0, ctl("topo set managed-check off"));
	EXPECT_NE(0, ctl("topo set managed-check sometimes"));
	if (kmsg >= 0)
		close(kmsg);
}

TEST_HARNESS_MAIN
