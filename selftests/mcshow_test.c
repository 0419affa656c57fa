// SPDX-License-Identifier: GPL-2.0
/*
 * "cufabctl mc show" against a multicast object of this process: while a
 * bind is blocked the team reads "1 of 2 devices (gpu0), missing: 1,
 * waiters: 1"; once the second device joins the bind completes and its
 * binding is listed. The JSON form passes jsoncheck. cufabctl and
 * jsoncheck are build/bin/, next to this program's directory.
 */
#include <pthread.h>
#include <stdlib.h>

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

TEST_HARNESS_MAIN
