// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing allocations between processes (CUFAB_IOCTL_MEM_EXPORT/IMPORT).
 *
 * Two processes talk over a unix socketpair: a POSIX_FD handle (a dma-buf)
 * crosses it with SCM_RIGHTS, a FABRIC handle as 64 bytes. Data written
 * through either process's CPU mapping must be visible to the other. The
 * kernel's rules are checked with raw ioctls: only requested handle types
 * export, FABRIC needs an IMEX channel and the exporter's channel to
 * import, forged handles are refused, an allocation lives while anyone
 * imported it, and a killed importer leaks nothing.
 *
 * The tests run as root and create channel nodes with mknod, as an
 * administrator would. Without /dev/cufab (or without the memory API)
 * every test is skipped; without the IMEX region, the FABRIC ones are.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cufab_uapi.h"
#include "kselftest_harness.h"

#define FAIL_MEM_SHARE	CUFAB_DEBUGFS "/fail_mem_share"
#define FABRIC_EXPORTS	"/sys/kernel/debug/cufab/fabric_exports"

/* ---- the unix socket ---- */

static int sock_signal(int sock)
{
	char b = 'x';

	return write(sock, &b, 1) == 1 ? 0 : -1;
}

static int sock_wait(int sock)
{
	char b;

	return read(sock, &b, 1) == 1 ? 0 : -1;
}

/* ---- data patterns ---- */

static void fill(void *p, size_t len, __u32 seed)
{
	__u32 *w = p;
	size_t i;

	for (i = 0; i < len / 4; i++)
		w[i] = seed ^ (__u32)(i * 2654435761u);
}

static int check(const void *p, size_t len, __u32 seed)
{
	const __u32 *w = p;
	size_t i;

	for (i = 0; i < len / 4; i++)
		if (w[i] != (seed ^ (__u32)(i * 2654435761u)))
			return -1;
	return 0;
}

/*
 * The first half of the allocation is the exporter's, the second the
 * importer's: each writes its half and checks the other's.
 */
#define HALF		(ALLOC_LEN / 2)
#define SEED_EXP	0x5eed0001u
#define SEED_IMP	0x5eed0002u

/* Message from exporter to importer. */
struct share_msg {
	__u32 handle_type;
	__u8 fabric[CUFAB_FABRIC_HANDLE_LEN];
};

/*
 * An importer process: its own client (on @channel for FABRIC), imports
 * what comes over @sock. Returns 0 with the mapping, or a distinct
 * nonzero step number for the exit status.
 */
static int importer_setup(int sock, int channel, int *cfd, __u32 *handle,
			  void **mem)
{
	struct share_msg msg;
	int dmabuf, ret;

	*cfd = cufab_open();
	if (*cfd < 0)
		return 20;
	if (channel >= 0 && imex_join(*cfd, channel))
		return 21;
	if (sock_recv(sock, &msg, sizeof(msg), &dmabuf))
		return 22;
	if (msg.handle_type == CUFAB_HANDLE_POSIX_FD) {
		if (dmabuf < 0)
			return 23;
		ret = mem_import_fd(*cfd, dmabuf, handle);
		close(dmabuf);
	} else {
		ret = mem_import_fabric(*cfd, msg.fabric, handle);
	}
	if (ret)
		return 24;
	if (mem && mem_map_rw(*cfd, *handle, ALLOC_LEN, mem))
		return 25;
	return 0;
}

/* Send the handle of @handle (a client of this process) over @sock. */
static int exporter_send(int cfd, __u32 handle, __u32 type, int sock)
{
	struct share_msg msg = { .handle_type = type };
	int dmabuf = -1, ret;

	if (type == CUFAB_HANDLE_POSIX_FD)
		ret = mem_export_fd(cfd, handle, &dmabuf);
	else
		ret = mem_export_fabric(cfd, handle, msg.fabric);
	if (ret)
		return ret;
	ret = sock_send(sock, &msg, sizeof(msg), dmabuf) ? errno : 0;
	if (dmabuf >= 0)
		close(dmabuf);
	return ret;
}

/* ---- two processes, each handle type ---- */

FIXTURE(share) {
	int fd;
	__u32 handle;
	void *mem;
	int sock[2];
	long long live_before;
};

FIXTURE_VARIANT(share) {
	__u32 handle_type;
};

FIXTURE_VARIANT_ADD(share, posix_fd) {
	.handle_type = CUFAB_HANDLE_POSIX_FD,
};

FIXTURE_VARIANT_ADD(share, fabric) {
	.handle_type = CUFAB_HANDLE_FABRIC,
};

FIXTURE_SETUP(share)
{
	self->fd = cufab_open();
	self->sock[0] = -1;
	self->sock[1] = -1;
	if (self->fd < 0)
		SKIP(return, "%s: %s (cufab.ko not loaded)", CUFAB_DEVICE_PATH,
		     strerror(errno));
	if (!mem_api_present(self->fd))
		SKIP(return, "the module has no memory API");
	self->live_before = live_objects();
	if (variant->handle_type == CUFAB_HANDLE_FABRIC) {
		if (!imex_major())
			SKIP(return, "no %s region", IMEX_REGION);
		ASSERT_EQ(0, imex_join(self->fd, 0));
	}
	ASSERT_EQ(0, mem_create(self->fd, variant->handle_type, ALLOC_LEN,
				&self->handle));
	ASSERT_EQ(0, mem_map_rw(self->fd, self->handle, ALLOC_LEN,
				&self->mem));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->sock));
}

FIXTURE_TEARDOWN(share)
{
	if (self->sock[0] >= 0)
		close(self->sock[0]);
	if (self->sock[1] >= 0)
		close(self->sock[1]);
	imex_cleanup();
	mem_unmap_all();
	if (self->fd >= 0)
		close(self->fd);
	/* Everything of this test's processes is gone again. */
	if (self->live_before >= 0)
		EXPECT_EQ(self->live_before,
			  live_objects_wait(self->live_before));
}

static int channel_of(const FIXTURE_VARIANT(share) *variant)
{
	return variant->handle_type == CUFAB_HANDLE_FABRIC ? 0 : -1;
}

/* Data checked both ways through the two processes' CPU mappings. */
TEST_F(share, two_processes_see_each_others_writes)
{
	pid_t pid;

	fill(self->mem, HALF, SEED_EXP);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 handle;
		void *mem;
		int cfd, ret;

		close(self->sock[0]);
		ret = importer_setup(self->sock[1], channel_of(variant), &cfd,
				     &handle, &mem);
		if (ret)
			_exit(ret);
		if (check(mem, HALF, SEED_EXP))
			_exit(30);
		fill((char *)mem + HALF, HALF, SEED_IMP);
		if (sock_signal(self->sock[1]) || sock_wait(self->sock[1]))
			_exit(31);
		_exit(0);
	}
	ASSERT_EQ(0, exporter_send(self->fd, self->handle,
				   variant->handle_type, self->sock[0]));
	ASSERT_EQ(0, sock_wait(self->sock[0]));
	EXPECT_EQ(0, check((char *)self->mem + HALF, HALF, SEED_IMP));
	ASSERT_EQ(0, sock_signal(self->sock[0]));
	EXPECT_EQ(0, wait_child(pid));
}

/*
 * The exporter creates, writes, exports and exits after the import: the
 * allocation lives on through the import, and the importer maps it only
 * then and sees the data.
 */
TEST_F(share, exporter_exits_before_importer_maps)
{
	__u32 handle;
	void *mem;
	pid_t pid;
	int cfd;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 h;
		void *m;
		int fd = cufab_open();

		if (fd < 0)
			_exit(40);
		if (channel_of(variant) >= 0 && imex_join(fd, 0))
			_exit(41);
		if (mem_create(fd, variant->handle_type, ALLOC_LEN, &h) ||
		    mem_map_rw(fd, h, ALLOC_LEN, &m))
			_exit(42);
		fill(m, ALLOC_LEN, SEED_EXP);
		if (exporter_send(fd, h, variant->handle_type, self->sock[1]))
			_exit(43);
		if (sock_wait(self->sock[1]))
			_exit(44);
		_exit(0);	/* closes the client: handle and mapping go */
	}
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, importer_setup(self->sock[0], channel_of(variant), &cfd,
				    &handle, NULL));
	ASSERT_EQ(0, sock_signal(self->sock[0]));
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, mem_map_rw(cfd, handle, ALLOC_LEN, &mem));
	EXPECT_EQ(0, check(mem, ALLOC_LEN, SEED_EXP));
	close(cfd);
}

/* A SIGKILLed importer leaves nothing behind. */
TEST_F(share, importer_killed_leaks_nothing)
{
	long long live;
	pid_t pid;

	live = live_objects();
	fill(self->mem, HALF, SEED_EXP);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 handle;
		void *mem;
		int cfd, ret;

		ret = importer_setup(self->sock[1], channel_of(variant), &cfd,
				     &handle, &mem);
		if (ret)
			_exit(ret);
		fill((char *)mem + HALF, HALF, SEED_IMP);
		sock_signal(self->sock[1]);
		pause();
		_exit(0);
	}
	ASSERT_EQ(0, exporter_send(self->fd, self->handle,
				   variant->handle_type, self->sock[0]));
	ASSERT_EQ(0, sock_wait(self->sock[0]));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	EXPECT_EQ(0x100 | SIGKILL, wait_child(pid));
	if (live >= 0)
		EXPECT_EQ(live, live_objects_wait(live));
	/* the exporter's allocation is intact, with the importer's data */
	EXPECT_EQ(0, check((char *)self->mem + HALF, HALF, SEED_IMP));
}

/* Importing one's own handle is cheap and gives the same pages. */
TEST_F(share, self_import_same_pages)
{
	struct share_msg msg;
	__u32 handle;
	void *mem;
	int dmabuf = -1;

	fill(self->mem, ALLOC_LEN, SEED_EXP);
	ASSERT_EQ(0, exporter_send(self->fd, self->handle,
				   variant->handle_type, self->sock[0]));
	ASSERT_EQ(0, sock_recv(self->sock[1], &msg, sizeof(msg), &dmabuf));
	if (msg.handle_type == CUFAB_HANDLE_POSIX_FD) {
		ASSERT_LE(0, dmabuf);
		ASSERT_EQ(0, mem_import_fd(self->fd, dmabuf, &handle));
		close(dmabuf);
	} else {
		ASSERT_EQ(0, mem_import_fabric(self->fd, msg.fabric, &handle));
	}
	EXPECT_NE(self->handle, handle);
	ASSERT_EQ(0, mem_map_rw(self->fd, handle, ALLOC_LEN, &mem));
	EXPECT_EQ(0, check(mem, ALLOC_LEN, SEED_EXP));
	fill(mem, 4096, SEED_IMP);
	EXPECT_EQ(0, check(self->mem, 4096, SEED_IMP));
}

/* ---- the rules, one process unless said otherwise ---- */

FIXTURE(rules) {
	int fd;
	long long live_before;
};

FIXTURE_SETUP(rules)
{
	self->fd = cufab_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s (cufab.ko not loaded)", CUFAB_DEVICE_PATH,
		     strerror(errno));
	if (!mem_api_present(self->fd))
		SKIP(return, "the module has no memory API");
	self->live_before = live_objects();
}

FIXTURE_TEARDOWN(rules)
{
	imex_cleanup();
	mem_unmap_all();
	if (self->fd >= 0)
		close(self->fd);
	if (self->live_before >= 0)
		EXPECT_EQ(self->live_before,
			  live_objects_wait(self->live_before));
}

#define NEED_IMEX()							\
	do {								\
		if (!imex_major())					\
			SKIP(return, "no %s region", IMEX_REGION);	\
	} while (0)

/* Only handle types requested at cuMemCreate may be exported. */
TEST_F(rules, export_type_not_requested)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 none, posix;
	int dmabuf;

	ASSERT_EQ(0, mem_create(self->fd, 0, ALLOC_LEN, &none));
	EXPECT_EQ(EINVAL, mem_export_fd(self->fd, none, &dmabuf));
	EXPECT_EQ(EINVAL, mem_export_fabric(self->fd, none, fab));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_POSIX_FD, ALLOC_LEN,
				&posix));
	if (imex_major())
		ASSERT_EQ(0, imex_join(self->fd, 0));
	EXPECT_EQ(EINVAL, mem_export_fabric(self->fd, posix, fab));
}

TEST_F(rules, export_bad_arguments)
{
	struct cufab_mem_export cmd = { .size = sizeof(cmd) };
	__u32 h;
	int dmabuf;

	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_POSIX_FD, ALLOC_LEN,
				&h));
	EXPECT_EQ(ENOENT, mem_export_fd(self->fd, h + 100, &dmabuf));
	cmd.handle = h;
	cmd.handle_type = 0x2;		/* CU_MEM_HANDLE_TYPE_WIN32 */
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_MEM_EXPORT, &cmd));
	cmd.handle_type = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_MEM_EXPORT, &cmd));
	cmd.handle_type = CUFAB_HANDLE_POSIX_FD;
	cmd.flags = 1;
	EXPECT_EQ(EINVAL, cufab_ioc(self->fd, CUFAB_IOCTL_MEM_EXPORT, &cmd));
	/* the export fd is close-on-exec */
	ASSERT_EQ(0, mem_export_fd(self->fd, h, &dmabuf));
	EXPECT_EQ(FD_CLOEXEC, fcntl(dmabuf, F_GETFD) & FD_CLOEXEC);
	close(dmabuf);
}

TEST_F(rules, import_fd_not_a_cufab_dmabuf)
{
	int null = open("/dev/null", O_RDONLY);
	__u32 h;

	ASSERT_LE(0, null);
	EXPECT_EQ(EINVAL, mem_import_fd(self->fd, null, &h));
	EXPECT_EQ(EINVAL, mem_import_fd(self->fd, self->fd, &h));
	EXPECT_EQ(EBADF, mem_import_fd(self->fd, 9999, &h));
	close(null);
}

TEST_F(rules, fabric_create_without_channel)
{
	__u32 h;

	EXPECT_EQ(EPERM, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN,
				    &h));
	EXPECT_EQ(EPERM, mem_create(self->fd, CUFAB_HANDLE_FABRIC |
				    CUFAB_HANDLE_POSIX_FD, ALLOC_LEN, &h));
}

TEST_F(rules, fabric_export_without_channel)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h;
	int dmabuf;

	NEED_IMEX();
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC |
				CUFAB_HANDLE_POSIX_FD, ALLOC_LEN, &h));
	ASSERT_EQ(0, imex_set_channel(self->fd, -1, NULL));
	EXPECT_EQ(EPERM, mem_export_fabric(self->fd, h, fab));
	/* POSIX fds never need a channel */
	ASSERT_EQ(0, mem_export_fd(self->fd, h, &dmabuf));
	close(dmabuf);
}

/* Same handle for the same allocation and channel. */
TEST_F(rules, fabric_export_is_stable)
{
	__u8 a[CUFAB_FABRIC_HANDLE_LEN], b[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h;

	NEED_IMEX();
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, a));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, b));
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
}

TEST_F(rules, fabric_import_without_channel)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h, imp;
	int other;

	NEED_IMEX();
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	other = cufab_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(EPERM, mem_import_fabric(other, fab, &imp));
	close(other);
}

TEST_F(rules, fabric_import_on_other_channel)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h, imp;
	int other;

	NEED_IMEX();
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	other = cufab_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, imex_join(other, 1));
	EXPECT_EQ(EPERM, mem_import_fabric(other, fab, &imp));
	/* on the exporter's channel it works */
	ASSERT_EQ(0, imex_join(other, 0));
	EXPECT_EQ(0, mem_import_fabric(other, fab, &imp));
	close(other);
}

TEST_F(rules, fabric_forged_handle)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN], bad[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h, imp;
	int i;

	NEED_IMEX();
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	/* a flipped bit anywhere, all zeros, random bytes */
	for (i = 0; i < CUFAB_FABRIC_HANDLE_LEN; i += 5) {
		memcpy(bad, fab, sizeof(bad));
		bad[i] ^= 0x01;
		EXPECT_EQ(EINVAL, mem_import_fabric(self->fd, bad, &imp));
	}
	memset(bad, 0, sizeof(bad));
	EXPECT_EQ(EINVAL, mem_import_fabric(self->fd, bad, &imp));
	for (i = 0; i < CUFAB_FABRIC_HANDLE_LEN; i++)
		bad[i] = rand();
	EXPECT_EQ(EINVAL, mem_import_fabric(self->fd, bad, &imp));
	EXPECT_EQ(0, mem_import_fabric(self->fd, fab, &imp));
}

/* A FABRIC handle is valid while the allocation lives, not longer. */
TEST_F(rules, fabric_handle_dies_with_allocation)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h, imp;

	NEED_IMEX();
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	ASSERT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(EINVAL, mem_import_fabric(self->fd, fab, &imp));
}

/* Lines of debugfs fabric_exports on @channel owned by this process. */
static int fabric_exports_of_mine(int channel)
{
	unsigned int id;
	unsigned long long alloc, len;
	int ch, pid, n = 0;
	char line[256];
	FILE *f = fopen(FABRIC_EXPORTS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %d %llu %llu %d", &id, &ch, &alloc, &len,
			   &pid) == 5 && ch == channel && pid == getpid())
			n++;
	fclose(f);
	return n;
}

/* debugfs lists each FABRIC export with its channel, until freed. */
TEST_F(rules, fabric_exports_listed_in_debugfs)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	__u32 h;

	NEED_IMEX();
	if (access(FABRIC_EXPORTS, R_OK))
		SKIP(return, "no %s", FABRIC_EXPORTS);
	ASSERT_EQ(0, imex_join(self->fd, 2));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	EXPECT_EQ(0, fabric_exports_of_mine(2));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	EXPECT_EQ(1, fabric_exports_of_mine(2));
	ASSERT_EQ(0, mem_release(self->fd, h));
	EXPECT_EQ(0, fabric_exports_of_mine(2));
}

/* The dma-buf itself can be mmapped: same pages as the cufab mapping. */
TEST_F(rules, dmabuf_mmap_shows_data)
{
	void *mem, *buf;
	__u32 h;
	int dmabuf;

	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_POSIX_FD, ALLOC_LEN,
				&h));
	ASSERT_EQ(0, mem_map_rw(self->fd, h, ALLOC_LEN, &mem));
	fill(mem, HALF, SEED_EXP);
	ASSERT_EQ(0, mem_export_fd(self->fd, h, &dmabuf));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ALLOC_LEN, PROT_READ, MAP_PRIVATE,
				   dmabuf, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ALLOC_LEN + 4096, PROT_READ,
				   MAP_SHARED, dmabuf, 0));
	buf = mmap(NULL, ALLOC_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
		   dmabuf, 0);
	ASSERT_NE(MAP_FAILED, buf);
	close(dmabuf);
	EXPECT_EQ(0, check(buf, HALF, SEED_EXP));
	fill((char *)buf + HALF, HALF, SEED_IMP);
	EXPECT_EQ(0, check((char *)mem + HALF, HALF, SEED_IMP));
	/* the mapping keeps the allocation: release the handle, still there */
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	EXPECT_EQ(0, check(buf, HALF, SEED_EXP));
	munmap(buf, ALLOC_LEN);
}

/*
 * A user who cannot open the (root-only) channel node gets no channel, and
 * FABRIC create/export/import are refused.
 */
TEST_F(rules, unprivileged_user_without_channel)
{
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	char path[64];
	int sock[2], dmabuf;
	__u32 h, both;
	pid_t pid;

	NEED_IMEX();
	ASSERT_EQ(0, imex_node(0, path, sizeof(path)));
	ASSERT_EQ(0, chmod(path, 0600));
	ASSERT_EQ(0, chown(path, 0, 0));
	ASSERT_EQ(0, imex_join(self->fd, 0));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &h));
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_FABRIC |
				CUFAB_HANDLE_POSIX_FD, ALLOC_LEN, &both));
	ASSERT_EQ(0, mem_export_fabric(self->fd, h, fab));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sock));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u8 got[CUFAB_FABRIC_HANDLE_LEN];
		__u32 mine, imp;
		int fd;

		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(50);
		if (open(path, O_RDONLY) >= 0 || errno != EACCES)
			_exit(51);
		fd = cufab_open();
		if (fd < 0)
			_exit(52);
		if (mem_create(fd, CUFAB_HANDLE_FABRIC, ALLOC_LEN, &mine) !=
		    EPERM)
			_exit(53);
		if (read(sock[1], got, sizeof(got)) != sizeof(got))
			_exit(54);
		if (mem_import_fabric(fd, got, &imp) != EPERM)
			_exit(55);
		/*
		 * A POSIX fd needs no channel, but exporting what it names
		 * as FABRIC does, even though FABRIC was requested at create.
		 */
		if (sock_recv(sock[1], got, 1, &dmabuf) || dmabuf < 0 ||
		    mem_import_fd(fd, dmabuf, &imp))
			_exit(56);
		if (mem_export_fabric(fd, imp, got) != EPERM)
			_exit(57);
		_exit(0);
	}
	ASSERT_EQ((ssize_t)sizeof(fab), write(sock[0], fab, sizeof(fab)));
	ASSERT_EQ(0, mem_export_fd(self->fd, both, &dmabuf));
	ASSERT_EQ(0, sock_send(sock[0], "d", 1, dmabuf));
	close(dmabuf);
	EXPECT_EQ(0, wait_child(pid));
	close(sock[0]);
	close(sock[1]);
}

/* fail_mem_share: a failed export or import leaves nothing behind. */
TEST_F(rules, fault_injection_export_import)
{
	long long live;
	__u32 h, imp;
	int dmabuf, fd2 = -1;

	if (access(FAIL_MEM_SHARE, F_OK))
		SKIP(return, "no %s (kernel without fault injection)",
		     FAIL_MEM_SHARE);
	ASSERT_EQ(0, mem_create(self->fd, CUFAB_HANDLE_POSIX_FD, ALLOC_LEN,
				&h));
	ASSERT_EQ(0, mem_export_fd(self->fd, h, &dmabuf));
	live = live_objects();

	/* the next two calls */
	ASSERT_EQ(0, fault_arm("fail_mem_share", 2));

	EXPECT_EQ(ENOMEM, mem_import_fd(self->fd, dmabuf, &imp));
	EXPECT_EQ(ENOMEM, mem_export_fd(self->fd, h, &fd2));
	EXPECT_EQ(live, live_objects());
	/* times is used up: both work again */
	EXPECT_EQ(0, mem_import_fd(self->fd, dmabuf, &imp));
	EXPECT_EQ(0, mem_export_fd(self->fd, h, &fd2));
	close(fd2);
	close(dmabuf);
	fault_restore();
}

TEST_HARNESS_MAIN
