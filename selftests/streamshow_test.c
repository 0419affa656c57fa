// SPDX-License-Identifier: GPL-2.0
/*
 * Streams seen through cufabctl: "stream show" lists this process's
 * streams with their state (netlink STREAM_GET), "monitor" prints the
 * STREAM_EVENT of a stream that failed, and "topo set race-delay-us"
 * changes the race-exposure knob while this process has /dev/cufab open.
 */
#include <signal.h>
#include <sys/wait.h>

#include "ctl_helpers.h"
#include "cufab_test.h"
#include "kselftest_harness.h"
#include "stream_helpers.h"

/*
 * Each test runs cufabctl a few times: seconds each under the debug
 * kernel on a loaded machine, past the harness's default 30 s.
 */
FIXTURE(show) {};
FIXTURE_SETUP(show) {}
FIXTURE_TEARDOWN(show) {}

/* A blocked stream, then drained, then destroyed, as "stream show" sees it. */
TEST_F_TIMEOUT(show, own_stream, 300)
{
	struct gate g = GATE_INIT;
	static char out[65536];
	char args[64], want[64];
	CUdeviceptr d;
	CUcontext ctx;
	CUstream s;

	CTL_OR_SKIP(false);
	CTX_OR_SKIP(ctx);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -2));
	ASSERT_CU(CUDA_SUCCESS, cuLaunchHostFunc(s, gate_fn, &g));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(d, 1, 4096, s));
	gate_wait_entered(&g);

	snprintf(args, sizeof(args), "-j stream show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "\"pid\":%d,", getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"gpu\":0,"));
	EXPECT_NE(NULL, strstr(out, "\"kind\":\"non-blocking\""));
	EXPECT_NE(NULL, strstr(out, "\"priority\":-2,"));
	EXPECT_NE(NULL, strstr(out, "\"depth\":2,"));
	EXPECT_NE(NULL, strstr(out, "\"submitted\":2,"));
	EXPECT_NE(NULL, strstr(out, "\"running\":\"host\""));
	EXPECT_NE(NULL, strstr(out, "\"error\":0"));

	gate_open(&g);
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"depth\":0,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"completed\":2,"));
	EXPECT_NE(NULL, strstr(out, "\"running\":\"-\""));

	/* the text form names the process and the stream */
	snprintf(args, sizeof(args), "stream show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "pid %d (", getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " non-blocking prio -2 depth 0"));

	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	snprintf(args, sizeof(args), "-j stream show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_STREQ("[]\n", out);
}

/* A copy from reserved memory without access fails its stream. */
static CUresult fail_a_stream(void)
{
	CUdeviceptr d, va;
	CUresult res;
	CUstream s;

	if (cuMemAlloc(&d, 4096) || cuMemAddressReserve(&va, 2 << 20, 0, 0, 0) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) ||
	    cuMemcpyAsync(d, va, 4096, s))
		return CUDA_ERROR_UNKNOWN;
	res = cuStreamSynchronize(s);
	cuStreamDestroy(s);
	cuMemAddressFree(va, 2 << 20);
	cuMemFree(d);
	return res;
}

TEST_F_TIMEOUT(show, failure_event, 300)
{
	char ctl[PATH_MAX], cmd[PATH_MAX + 64], path[] = "/tmp/streamshowXXXXXX";
	static char out[65536];
	CUcontext ctx;
	int fd, i;
	pid_t pid;

	CTL_OR_SKIP(false);
	CTX_OR_SKIP(ctx);
	ASSERT_TRUE(tool_path("cufabctl", ctl, sizeof(ctl)));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	pid = monitor_start(ctl, fd);
	ASSERT_LE(0, pid);
	/* the monitor joins the group when it gets there: fail until seen */
	for (i = 0; i < 200 && !strstr(out, "stream-event"); i++) {
		EXPECT_CU(CUDA_ERROR_ILLEGAL_ADDRESS, fail_a_stream());
		usleep(100000);
		monitor_read(fd, out, sizeof(out));
	}
	kill(pid, SIGINT);
	EXPECT_EQ(0, wait_child(pid));
	close(fd);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "\"pid\":%d,", getpid());
	EXPECT_NE(NULL, strstr(out, "\"event\":\"stream-event\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, cmd));
	EXPECT_NE(NULL, strstr(out, "\"failed_op\":\"copy\""));
	/* the sticky error, a negative errno */
	EXPECT_NE(NULL, strstr(out, "\"error\":-"));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* The knob changes while a client is open; netlink and the parameter agree. */
TEST_F_TIMEOUT(show, race_knob, 300)
{
	static char out[4096];
	long delay, seed;
	char args[96];
	CUcontext ctx;

	CTL_OR_SKIP(false);
	CTX_OR_SKIP(ctx);
	delay = cufab_param("race_delay_us");
	seed = cufab_param("race_seed");
	ASSERT_LE(0, delay);
	ASSERT_LE(0, seed);
	ASSERT_EQ(0, ctl_run("topo set race-delay-us 1234 race-seed 5", NULL,
			     out, sizeof(out)));
	EXPECT_EQ(1234, cufab_param("race_delay_us"));
	EXPECT_EQ(5, cufab_param("race_seed"));
	ASSERT_EQ(0, ctl_run("-j topo show", NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"race_delay_us\":1234,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"race_seed\":5"));
	/* more than a second is refused, nothing changes */
	EXPECT_EQ(1, ctl_run("topo set race-delay-us 1000001 2>/dev/null", NULL,
			     out, sizeof(out)));
	EXPECT_EQ(1234, cufab_param("race_delay_us"));
	snprintf(args, sizeof(args), "topo set race-delay-us %ld race-seed %ld",
		 delay, seed);
	EXPECT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_EQ(delay, cufab_param("race_delay_us"));
	EXPECT_EQ(seed, cufab_param("race_seed"));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST_HARNESS_MAIN
