// SPDX-License-Identifier: GPL-2.0
/*
 * "cufabctl le show" against endpoints this process holds: the LE_GET
 * dump reports the reserved ranges, each associated id with its endpoint,
 * team and bindings, valid JSON (checked with jsoncheck), and nothing once
 * the ids are released. cufabctl and jsoncheck are build/bin/, next to
 * this program's directory.
 */
#include "ctl_helpers.h"
#include "le_helpers.h"
#include "kselftest_harness.h"

FIXTURE(show) {
	CUcontext ctx;
	char args[64];
};

FIXTURE_SETUP(show)
{
	char path[PATH_MAX];

	self->ctx = NULL;
	INIT_OR_SKIP();
	if (!tool_path("cufabctl", path, sizeof(path)) ||
	    !tool_path("jsoncheck", path, sizeof(path)))
		SKIP(return, "no cufabctl/jsoncheck next to this test");
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));
	snprintf(self->args, sizeof(self->args), "-j le show pid %d", getpid());
}

FIXTURE_TEARDOWN(show)
{
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

/* seven cufabctl runs: minutes on a loaded KASAN guest, not seconds */
TEST_F_TIMEOUT(show, ranges_endpoints_bindings, 180)
{
	CUlogicalEndpointProp u = uprop(0, LE_SIZE, 0);
	CUlogicalEndpointProp m = mprop(2, LE_SIZE, 0);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId base, gap, far;
	char out[16384], want[64];

	SETUP_SKIPPED();
	if (num_devices() < 2)
		SKIP(return, "needs 2 GPUs");
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&base, 4));
	/* a released id between two reservations keeps them two ranges */
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&gap, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&far, 100000));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(gap, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base, &u));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(base + 1, &m));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(base + 1, 1));
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(base, 1, 5000));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(base, 0, LE_GRAN, h, 0, LE_GRAN, 0));

	/* valid JSON, one process */
	ASSERT_EQ(0, ctl_run(self->args, ".", out, sizeof(out)));
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].ranges[1].count'", out, sizeof(out)));
	EXPECT_STREQ("100000\n", out);
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].endpoints[0].type'", out, sizeof(out)));
	EXPECT_STREQ("unicast\n", out);
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].endpoints[0].bindings[0].offset'",
			     out, sizeof(out)));
	EXPECT_EQ((unsigned long long)LE_GRAN, strtoull(out, NULL, 0));
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].endpoints[0].ready'", out, sizeof(out)));
	EXPECT_STREQ("true\n", out);
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].endpoints[1].team.missing'", out, sizeof(out)));
	EXPECT_STREQ("1\n", out);
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].endpoints[1].ready'", out, sizeof(out)));
	EXPECT_STREQ("false\n", out);

	/* the text names the process, the team and the binding */
	snprintf(want, sizeof(want), "le show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(want, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "pid %d (", getpid());
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, "team 1 of 2 (gpu1), missing 1"));
	EXPECT_NE(NULL, strstr(out, "gpu0 [0x200000, +2 MiB)"));

	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointDestroy(base + 1));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(base, 4));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointIdRelease(far, 100000));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_EQ(0, ctl_run(self->args, NULL, out, sizeof(out)));
	EXPECT_STREQ("[]\n", out);
}

/* Thousands of bindings: the dump stays valid (truncated, not failed). */
TEST_F(show, many_bindings)
{
	CUlogicalEndpointProp u = uprop(0, 8192 * LE_GRAN, 0);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;
	char out[4096];
	int i;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &u));
	for (i = 0; i < 8192; i++)
		ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointBindMem(id, 0, (cuuint64_t)i * LE_GRAN,
								 h, 0, LE_GRAN, 0));
	ASSERT_EQ(0, ctl_run(self->args, "'.[0].endpoints[0].id'", out, sizeof(out)));
	EXPECT_EQ(id, strtoul(out, NULL, 0));
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

TEST(usage_errors)
{
	char out[256];
	char path[PATH_MAX];

	if (!tool_path("cufabctl", path, sizeof(path)))
		SKIP(return, "no cufabctl next to this test");
	EXPECT_EQ(1, ctl_run("le show pid 2>/dev/null", NULL, out, sizeof(out)));
	EXPECT_EQ(1, ctl_run("le show pid x 2>/dev/null", NULL, out, sizeof(out)));
	EXPECT_EQ(1, ctl_run("le show bogus 2>/dev/null", NULL, out, sizeof(out)));
	EXPECT_EQ(0, ctl_run("le help", NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "cufabctl le show"));
}

TEST_HARNESS_MAIN
