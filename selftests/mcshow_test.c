// SPDX-License-Identifier: GPL-2.0
/*
 * "cufabctl mc show" against a multicast object of this process: while a
 * bind is blocked the team reads "1 of 2 devices (gpu0), missing: 1,
 * waiters: 1"; once the second device joins the bind completes and its
 * binding is listed. The JSON form passes jsoncheck. cufabctl and
 * jsoncheck are build/bin/, next to this program's directory.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "mc_helpers.h"
#include "kselftest_harness.h"

#define MCSZ	(2 * MC_MIB)

/* @path = build/bin/@tool next to this selftest; false when absent. */
static bool tool_path(const char *tool, char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = '\0';
	if (snprintf(path, len, "%s/../bin/%s", self, tool) >= (int)len)
		return false;
	return access(path, X_OK) == 0;
}

/* Run a shell command line; its stdout in @out, its exit status. */
static int run(const char *cmd, char *out, size_t len)
{
	size_t n = 0, got;
	FILE *f;
	int status;

	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < len - 1 && (got = fread(out + n, 1, len - 1 - n, f)) > 0)
		n += got;
	out[n] = '\0';
	status = pclose(f);
	if (status < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

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
	char ctl[PATH_MAX], jc[PATH_MAX], cmd[3 * PATH_MAX], want[128];
	static char out[65536];
	struct binder b;
	pthread_t th;
	int i;

	MC_OR_SKIP(2);
	if (!tool_path("cufabctl", ctl, sizeof(ctl)) ||
	    !tool_path("jsoncheck", jc, sizeof(jc)))
		SKIP(return, "no cufabctl/jsoncheck next to this test");
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&b.h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ }));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(b.h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&b.mem, MCSZ, &mp, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, bind_thread, &b));

	/* the bind is blocked: one waiter on a team of 1 of 2 */
	snprintf(want, sizeof(want), "pid %d", getpid());
	snprintf(cmd, sizeof(cmd), "%s mc show", ctl);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, run(cmd, out, sizeof(out)));
		if (strstr(out, "waiters: 1"))
			break;
		usleep(20000);
	}
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out,
		"team 1 of 2 devices (gpu0), missing: 1, waiters: 1"))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "%s -j mc show | %s '.[0].team.missing'",
		 ctl, jc);
	EXPECT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_STREQ("1\n", out);

	/* the last device joins: the bind returns and is listed */
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(b.h, 1));
	pthread_join(th, NULL);
	ASSERT_CU(CUDA_SUCCESS, b.res);
	snprintf(cmd, sizeof(cmd), "%s mc show", ctl);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out,
		"team 2 of 2 devices (gpu0,gpu1), missing: 0, waiters: 0"))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "%s -j -p mc show | %s -c '.[0].bindings'",
		 ctl, jc);
	EXPECT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_STREQ("1\n", out);

	ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(b.h, 0, 0, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(b.mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(b.h));
	/* valid JSON, and no object left */
	snprintf(cmd, sizeof(cmd), "%s -j mc show | %s", ctl, jc);
	EXPECT_EQ(0, run(cmd, out, sizeof(out)));
	snprintf(cmd, sizeof(cmd), "%s -j mc show | %s '.[0]' 2>/dev/null",
		 ctl, jc);
	EXPECT_EQ(1, run(cmd, out, sizeof(out)));
}

TEST_HARNESS_MAIN
