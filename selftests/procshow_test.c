// SPDX-License-Identifier: GPL-2.0
/*
 * Processes seen through cufabctl: "proc show" (netlink PROC_GET) lists
 * this process with the objects it holds by kind and the bytes behind its
 * memory handles. That its JSON stays valid while processes open
 * /dev/cufab, create objects and exit under the dump is dump_race_test's.
 */

#include "ctl_helpers.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

FIXTURE(proc) {};
FIXTURE_SETUP(proc) {}
FIXTURE_TEARDOWN(proc) {}

/* Its own line: one context, two handles of 2 granules, one stream. */
TEST_F_TIMEOUT(proc, own_process, 300)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h[2];
	static char out[65536];
	char args[64], want[128];
	CUcontext ctx;
	CUstream s;
	size_t g;

	CTL_OR_SKIP(true);
	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	g = gran(0);
	ASSERT_LT(0, g);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h[0], g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h[1], g, &p, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

	snprintf(args, sizeof(args), "-j proc show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want),
		 "{\"pid\":%d,\"comm\":\"procshow_test\",\"contexts\":1,\"mem_handles\":2,\"streams\":1,\"events\":0,\"pools\":0,\"mem_bytes\":%zu}",
		 getpid(), 2 * g);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("want %s in %s", want, out);

	snprintf(args, sizeof(args), "proc show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "pid %d (procshow_test) contexts 1 mem 2 streams 1",
		 getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);

	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h[0]));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h[1]));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	/* an empty list: "[]" in JSON, "none" in text */
	ASSERT_EQ(0, ctl_run("-j proc show pid 2147483647", NULL, out,
			     sizeof(out)));
	EXPECT_STREQ("[]\n", out);
	ASSERT_EQ(0, ctl_run("proc show pid 2147483647", NULL, out,
			     sizeof(out)));
	EXPECT_STREQ("none\n", out);
}

TEST_HARNESS_MAIN
