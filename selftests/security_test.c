// SPDX-License-Identifier: GPL-2.0
/*
 * The claims of Documentation/security.rst, one test each, run as an
 * unprivileged user and as root of a new user namespace where the claim
 * is about who may do what:
 *
 * - administration over netlink needs CAP_NET_ADMIN in the initial user
 *   namespace: nobody, and root of a user namespace (a container), are
 *   refused; reading state is open to them;
 * - a container's root may still use the device;
 * - a process's handles mean nothing to another process: the same number
 *   used elsewhere names nothing;
 * - /dev/cufab cannot be mmapped by hand: reservations are made by the
 *   kernel for cuMemAddressReserve only.
 *
 * FABRIC handles and IMEX channels have their claims tested where they are
 * built (vmm_test channels.*, share_test, le_test unprivileged_*).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <linux/cufab.h>

#include "ctl_helpers.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

/* The exit status of child @pid, or -1 when it did not exit. */
static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Root (uid 0 mapped to our uid) of a new user namespace, as containers. */
static void become_userns_root(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	CHILD_CHECK(unshare(CLONE_NEWUSER) == 0);
	CHILD_CHECK(write_file("/proc/self/setgroups", "deny") == 0);
	snprintf(map, sizeof(map), "0 %u 1", uid);
	CHILD_CHECK(write_file("/proc/self/uid_map", map) == 0);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	CHILD_CHECK(write_file("/proc/self/gid_map", map) == 0);
}

enum who { NOBODY_USER, USERNS_ROOT };

/*
 * Runs cufabctl @args as @who; exit 0 when cufabctl's status is @want
 * and, for a refusal, it said the operation was not permitted.
 */
static int ctl_as(enum who who, const char *args, int want)
{
	char ctl[PATH_MAX], cmd[PATH_MAX + 256], out[4096];
	pid_t pid;

	if (!tool_path("cufabctl", ctl, sizeof(ctl)))
		return -2;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int st;

		if (who == NOBODY_USER)
			become_nobody();
		else
			become_userns_root();
		snprintf(cmd, sizeof(cmd), "%s %s 2>&1", ctl, args);
		st = run_cmd(cmd, out, sizeof(out));
		if (st != want) {
			fprintf(stderr, "# %s: status %d, wanted %d: %s\n",
				args, st, want, out);
			_exit(1);
		}
		if (want && !strstr(out, "not permitted")) {
			fprintf(stderr, "# %s: no \"not permitted\" in: %s\n",
				args, out);
			_exit(1);
		}
		_exit(0);
	}
	return child_status(pid);
}

FIXTURE(sec) {
	int skip;
};

FIXTURE_SETUP(sec)
{
	char ctl[PATH_MAX];

	self->skip = geteuid() != 0 || !tool_path("cufabctl", ctl, sizeof(ctl));
}

FIXTURE_TEARDOWN(sec)
{
}

/* Changes need CAP_NET_ADMIN in the initial namespace; nobody has none. */
TEST_F(sec, admin_refused_to_unprivileged)
{
	if (self->skip)
		SKIP(return, "needs root (to switch users) and build/bin/cufabctl");
	EXPECT_EQ(0, ctl_as(NOBODY_USER, "dev set gpu0 multicast on", 1));
	EXPECT_EQ(0, ctl_as(NOBODY_USER, "topo set nvswitch on", 1));
	/* what the node is made of is not secret, like lspci */
	EXPECT_EQ(0, ctl_as(NOBODY_USER, "dev show", 0));
}

/* Root of a user namespace holds CAP_NET_ADMIN there, not where it counts. */
TEST_F(sec, admin_refused_in_user_namespace)
{
	if (self->skip)
		SKIP(return, "needs root (to switch users) and build/bin/cufabctl");
	if (access("/proc/self/uid_map", F_OK))
		SKIP(return, "no user namespaces in this kernel");
	EXPECT_EQ(0, ctl_as(USERNS_ROOT, "dev set gpu0 multicast on", 1));
	EXPECT_EQ(0, ctl_as(USERNS_ROOT, "dev show", 0));
}

/* A container may run CUDA programs: the device does not need privilege. */
TEST_F(sec, device_usable_in_user_namespace)
{
	pid_t pid;

	if (self->skip)
		SKIP(return, "needs root and build/bin/cufabctl");
	if (access("/proc/self/uid_map", F_OK))
		SKIP(return, "no user namespaces in this kernel");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct vbuf b;

		become_userns_root();
		CHILD_CHECK(cuInit(0) == CUDA_SUCCESS);
		CHILD_CHECK(vbuf_make(&b, 0, gran(0), 0) == CUDA_SUCCESS);
		memset((void *)b.va, 7, b.len);
		CHILD_CHECK(vbuf_drop(&b) == CUDA_SUCCESS);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(pid));
}

/*
 * Handles are numbers in their process's table: another process using the
 * same number reaches nothing of the first one's.
 */
TEST(handles_are_per_process)
{
	CUmemGenericAllocationHandle h;
	CUmemAllocationProp p;
	pid_t pid;

	INIT_OR_SKIP();
	p = dev_prop(0, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&h, gran(0), &p, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CUdeviceptr va;

		CHILD_CHECK(cuInit(0) == CUDA_SUCCESS);
		CHILD_CHECK(cuMemAddressReserve(&va, gran(0), 0, 0, 0) ==
			    CUDA_SUCCESS);
		CHILD_CHECK(cuMemMap(va, gran(0), 0, h, 0) ==
			    CUDA_ERROR_INVALID_VALUE);
		CHILD_CHECK(cuMemRelease(h) == CUDA_ERROR_INVALID_VALUE);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(pid));
	/* and the owner's handle is as it was */
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* Only cuMemAddressReserve makes mappings of /dev/cufab. */
TEST(no_mmap_by_hand)
{
	void *p;
	int fd;

	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "no %s", CUFAB_DEVICE_PATH);
	p = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	close(fd);
}

TEST_HARNESS_MAIN
