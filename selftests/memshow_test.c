// SPDX-License-Identifier: GPL-2.0
/*
 * "cufabctl mem show" against allocations this process holds: the
 * netlink ALLOC_GET dump reports them with the right owner, location and
 * size while they live, and not once they are released. cufabctl is
 * build/bin/cufabctl, found next to this program's directory.
 */
#include "ctl_helpers.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

#define SZ_2M		(2UL << 20)

/* A 2 MiB allocation on GPU 1 is listed under this pid, then is gone. */
TEST(own_allocation)
{
	CUmemAllocationProp p = dev_prop(1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemGenericAllocationHandle h = 0;
	char args[64], want[64];
	static char out[65536];
	size_t g;

	CTL_OR_SKIP(false);
	INIT_OR_SKIP();
	if (num_devices() < 2)
		SKIP(return, "needs 2 GPUs");
	g = gran(1);
	ASSERT_NE(0, g);
	ASSERT_EQ(0, SZ_2M % g);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, SZ_2M, &p, 0));

	snprintf(args, sizeof(args), "-j mem show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "\"pid\":%d,", getpid());
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, "\"location\":\"gpu1\""));
	EXPECT_NE(NULL, strstr(out, "\"size\":2097152,"));
	EXPECT_NE(NULL, strstr(out, "\"handle_types\":[\"posix-fd\"]"));
	EXPECT_NE(NULL, strstr(out, "\"linear\":false"));

	/* the text table names the process and the allocation */
	snprintf(args, sizeof(args), "mem show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "pid %d (", getpid());
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, "gpu1"));
	EXPECT_NE(NULL, strstr(out, "2 MiB"));

	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	snprintf(args, sizeof(args), "-j mem show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_STREQ("[]\n", out);
}

/*
 * Managed allocations are listed with their attachment: global or host
 * as allocated, the stream's uid once attached SINGLE.
 */
TEST(managed_attachment)
{
	CUdeviceptr g, h;
	unsigned long long uid;
	char args[64], want[64];
	static char out[65536];
	CUcontext ctx;
	CUstream s;

	CTL_OR_SKIP(false);
	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&g, 4096, CU_MEM_ATTACH_GLOBAL));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&h, 4096, CU_MEM_ATTACH_HOST));
	snprintf(args, sizeof(args), "-j mem show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"managed\":\"global\""));
	EXPECT_NE(NULL, strstr(out, "\"managed\":\"host\""));

	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamGetId(s, &uid));
	ASSERT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(s, h, 0,
						       CU_MEM_ATTACH_SINGLE));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "\"managed\":\"single\",\"stream\":%llu", uid);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("no %s in %s", want, out);
	snprintf(args, sizeof(args), "mem show pid %d", getpid());
	ASSERT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "managed global"));
	EXPECT_NE(NULL, strstr(out, "managed single"));

	EXPECT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(g));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(h));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
}

/* Every live allocation is in the unfiltered dump, however many there are. */
TEST(many_allocations)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h[200];
	static char out[1 << 20];
	char args[64];
	const char *s;
	unsigned int i, n = 0;
	size_t g;

	CTL_OR_SKIP(false);
	INIT_OR_SKIP();
	g = gran(0);
	ASSERT_NE(0, g);
	for (i = 0; i < ARRAY_SIZE(h); i++)
		ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h[i], g, &p, 0));
	snprintf(args, sizeof(args), "-j mem show pid %d", getpid());
	EXPECT_EQ(0, ctl_run(args, NULL, out, sizeof(out)));
	for (s = out; (s = strstr(s, "\"id\":")); s++)
		n++;
	EXPECT_EQ(ARRAY_SIZE(h), n);
	for (i = 0; i < ARRAY_SIZE(h); i++)
		EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h[i]));
}

/* A pid with no allocation: nothing listed, success. */
TEST(no_such_pid)
{
	static char out[4096];

	CTL_OR_SKIP(false);
	EXPECT_EQ(0, ctl_run("-j mem show pid 999999", NULL, out, sizeof(out)));
	EXPECT_STREQ("[]\n", out);
	EXPECT_EQ(0, ctl_run("mem show pid 999999", NULL, out, sizeof(out)));
	EXPECT_STREQ("none\n", out);
	EXPECT_EQ(1, ctl_run("mem show pid x 2>/dev/null", NULL, out, sizeof(out)));
}

TEST_HARNESS_MAIN
