// SPDX-License-Identifier: GPL-2.0
/*
 * IMEX channels: the cufab-imex-channels char-device region and
 * CUFAB_IOCTL_IMEX_SET_CHANNEL, which accepts only an open channel node
 * and records its minor as the client's channel.
 *
 * Channel nodes are created here with mknod when missing, as an
 * administrator does (the tests run as root). Without /dev/cufab every
 * test is skipped; with imex_channel_count=0 the channel tests are.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl_helpers.h"
#include "cufab_uapi.h"
#include "kselftest_harness.h"

FIXTURE(imex) {
	int fd;
	unsigned int major;
};

FIXTURE_SETUP(imex)
{
	self->fd = cufab_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s (cufab.ko not loaded)", CUFAB_DEVICE_PATH,
		     strerror(errno));
	self->major = imex_major();
}

FIXTURE_TEARDOWN(imex)
{
	imex_cleanup();
	if (self->fd >= 0)
		close(self->fd);
}

#define NEED_CHANNELS()							\
	do {								\
		if (!self->major)					\
			SKIP(return, "no %s region (imex_channel_count=0)", \
			     IMEX_REGION);				\
	} while (0)

/* The region is registered like NVIDIA's, visible in /proc/devices. */
TEST_F(imex, proc_devices_lists_region)
{
	long count = cufab_param("imex_channel_count");

	if (count == 0) {
		EXPECT_EQ(0U, self->major);
		return;
	}
	EXPECT_NE(0U, self->major);
}

/* A file that is not a channel node proves nothing: -EINVAL. */
TEST_F(imex, set_channel_rejects_other_files)
{
	int null = open("/dev/null", O_RDONLY);
	char path[64];
	int node;

	ASSERT_LE(0, null);
	EXPECT_EQ(EINVAL, imex_set_channel(self->fd, null, NULL));
	EXPECT_EQ(EINVAL, imex_set_channel(self->fd, self->fd, NULL));
	close(null);

	/* A char node with another major (here /dev/null's) is no channel. */
	snprintf(path, sizeof(path), "/tmp/imex_fake_%d", getpid());
	ASSERT_EQ(0, mknod(path, S_IFCHR | 0600, makedev(1, 3)));
	node = open(path, O_RDONLY);
	unlink(path);
	ASSERT_LE(0, node);
	EXPECT_EQ(EINVAL, imex_set_channel(self->fd, node, NULL));
	close(node);
}

TEST_F(imex, set_channel_bad_fd)
{
	EXPECT_EQ(EBADF, imex_set_channel(self->fd, 9999, NULL));
	EXPECT_EQ(EBADF, imex_set_channel(self->fd, -2, NULL));
}

TEST_F(imex, set_channel_unknown_flags)
{
	struct cufab_imex_set_channel cmd = {
		.size = sizeof(cmd), .flags = 1, .fd = -1,
	};

	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_IMEX_SET_CHANNEL,
				    &cmd));
}

/* The minor of the node is what gets recorded; fd -1 clears it. */
TEST_F(imex, set_channel_records_minor)
{
	__u32 out = 12345;
	int ch0, ch7;

	NEED_CHANNELS();
	ch0 = imex_open(0);
	ch7 = imex_open(7);
	ASSERT_LE(0, ch0);
	ASSERT_LE(0, ch7);

	EXPECT_EQ(0, imex_set_channel(self->fd, ch0, &out));
	EXPECT_EQ(0U, out);
	EXPECT_EQ(0, imex_set_channel(self->fd, ch7, &out));
	EXPECT_EQ(7U, out);
	/* The fd is only the proof: closing it keeps the channel. */
	close(ch7);
	EXPECT_EQ(0, imex_set_channel(self->fd, -1, &out));
	EXPECT_EQ((__u32)-1, out);
	close(ch0);
}

/* A minor past imex_channel_count is not a channel: the open fails. */
TEST_F(imex, minor_past_count_cannot_open)
{
	long count = cufab_param("imex_channel_count");
	char path[64];
	int fd;

	NEED_CHANNELS();
	ASSERT_LT(0, count);
	if (count > 0xfffff)
		SKIP(return, "every minor is a channel");
	snprintf(path, sizeof(path), "/tmp/imex_past_%d", getpid());
	ASSERT_EQ(0, mknod(path, S_IFCHR | 0600,
			   makedev(self->major, (unsigned int)count)));
	fd = open(path, O_RDONLY);
	EXPECT_GT(0, fd);
	EXPECT_EQ(ENXIO, errno);
	unlink(path);
	if (fd >= 0)
		close(fd);
}

/* Unix permissions on the node are the access control. */
TEST_F(imex, unprivileged_user_cannot_open_root_node)
{
	char path[64];
	pid_t pid;
	int status;

	NEED_CHANNELS();
	ASSERT_EQ(0, imex_node(3, path, sizeof(path)));
	ASSERT_EQ(0, chmod(path, 0600));
	ASSERT_EQ(0, chown(path, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(10);
		if (open(path, O_RDONLY) >= 0)
			_exit(11);
		_exit(errno == EACCES ? 0 : 12);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* create_imex_channel0=1: the module made channel0 itself, root only. */
TEST_F(imex, channel0_created_by_module)
{
	char path[] = IMEX_DIR "/channel0";
	struct stat st;

	NEED_CHANNELS();
	if (cufab_param("create_imex_channel0") != 1)
		SKIP(return, "create_imex_channel0 is not set");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(self->major, major(st.st_rdev));
	EXPECT_EQ(0U, minor(st.st_rdev));
	EXPECT_EQ(0600U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
}

/* cufabctl imex status: region, count, nodes, stale nodes flagged. */
TEST_F(imex, cufabctl_imex_status)
{
	char out[4096], want[128], path[PATH_MAX];
	const char *stale = IMEX_DIR "/channel4095";
	int ret;

	NEED_CHANNELS();
	if (!tool_path("cufabctl", path, sizeof(path)))
		SKIP(return, "no build/bin/cufabctl");
	ASSERT_EQ(0, imex_node(0, path, sizeof(path)));
	ASSERT_EQ(0, ctl_run("-j imex status", NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "\"major\":%u", self->major);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "\"channels\":%ld",
		 cufab_param("imex_channel_count"));
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"path\":\"" IMEX_DIR "/channel0\""))
		TH_LOG("%s", out);

	/* a node left from another major is flagged */
	unlink(stale);
	ASSERT_EQ(0, mknod(stale, S_IFCHR | 0600, makedev(1, 3)));
	ret = ctl_run("imex status", NULL, out, sizeof(out));
	unlink(stale);
	ASSERT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(out, "channel4095")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "STALE")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
