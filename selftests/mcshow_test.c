// SPDX-License-Identifier: GPL-2.0
/*
 * "cufabctl mc show" against a multicast object of this process: while a
 * bind is blocked the team reads "1 of 2 devices (gpu0), missing: 1,
 * waiters: 1"; once the second device joins the bind completes and its
 * binding is listed. The JSON form passes jsoncheck. "cufabctl monitor"
 * prints the mc-event of a multimem store that skipped replicas. cufabctl
 * and jsoncheck are build/bin/, next to this program's directory.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include <cufab/multimem.h>

#include "ctl_helpers.h"
#include "mc_helpers.h"
#include "kselftest_harness.h"

#define MCSZ	(2 * MC_MIB)

struct binder {
	CUmemGenericAllocationHandle h, mem;
	CUresult res;
};

static void *bind_thread(void *arg)
{
	struct binder *b = arg;

	b->res = cuMulticastBindMem(b->h, 0, b->mem, 0, MCSZ, 0);
	return NULL;
}

TEST(team_waiting_then_bound)
{
	CUmemAllocationProp mp = dev_prop(0, 0);
	char path[PATH_MAX], want[128];
	static char out[65536];
	struct binder b;
	pthread_t th;
	int i;

	MC_OR_SKIP(2);
	if (!tool_path("cufabctl", path, sizeof(path)) ||
	    !tool_path("jsoncheck", path, sizeof(path)))
		SKIP(return, "no cufabctl/jsoncheck next to this test");
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&b.h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ }));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(b.h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&b.mem, MCSZ, &mp, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, bind_thread, &b));

	/* the bind is blocked: one waiter on a team of 1 of 2 */
	snprintf(want, sizeof(want), "pid %d", getpid());
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, ctl_run("mc show", NULL, out, sizeof(out)));
		if (strstr(out, "waiters: 1"))
			break;
		usleep(20000);
	}
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out,
		"team 1 of 2 devices (gpu0), missing: 1, waiters: 1"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, ctl_run("-j mc show", "'.[0].team.missing'", out,
			     sizeof(out)));
	EXPECT_STREQ("1\n", out);

	/* the last device joins: the bind returns and is listed */
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(b.h, 1));
	pthread_join(th, NULL);
	ASSERT_CU(CUDA_SUCCESS, b.res);
	ASSERT_EQ(0, ctl_run("mc show", NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out,
		"team 2 of 2 devices (gpu0,gpu1), missing: 0, waiters: 0"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, ctl_run("-j -p mc show", "-c '.[0].bindings'", out,
			     sizeof(out)));
	EXPECT_STREQ("1\n", out);

	ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(b.h, 0, 0, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(b.mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(b.h));
	/* valid JSON, and no object left */
	EXPECT_EQ(0, ctl_run("-j mc show", "", out, sizeof(out)));
	EXPECT_EQ(1, ctl_run("-j mc show", "'.[0]' 2>/dev/null", out,
			     sizeof(out)));
}

/*
 * A store to a team of 2 with nothing bound skips both replicas: "monitor
 * -j" prints an mc-event with the object, this pid and the count.
 */
TEST(skipped_store_event)
{
	char ctl[PATH_MAX], want[64], path[] = "/tmp/mcshowXXXXXX";
	CUmemGenericAllocationHandle h;
	unsigned int skipped = 0;
	static char out[65536];
	uint32_t v[4] = { 1, 2, 3, 4 };
	CUdeviceptr va;
	CUcontext ctx;
	int fd, i;
	pid_t pid;

	MC_OR_SKIP(2);
	if (!tool_path("cufabctl", ctl, sizeof(ctl)))
		SKIP(return, "no cufabctl next to this test");
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 2, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_map(&va, h, MCSZ, 0));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	pid = monitor_start(ctl, fd);
	ASSERT_LE(0, pid);
	/* the monitor joins the group when it gets there: store until seen */
	for (i = 0; i < 200 && !strstr(out, "mc-event"); i++) {
		EXPECT_CU(CUDA_SUCCESS, cufabMultimemStore(va, CUFAB_MULTIMEM_U32,
							   v, 4, &skipped));
		EXPECT_EQ(2, skipped);
		usleep(100000);
		monitor_read(fd, out, sizeof(out));
	}
	kill(pid, SIGINT);
	EXPECT_EQ(0, wait_child(pid));
	close(fd);
	unlink(path);
	EXPECT_NE(NULL, strstr(out, "\"event\":\"mc-event\"")) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "\"pid\":%d,", getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"skipped\":2")) TH_LOG("%s", out);
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(va, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

TEST_HARNESS_MAIN
