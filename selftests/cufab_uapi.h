/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw /dev/cufab ioctls for the sharing and IMEX selftests.
 *
 * The kernel's rules are tested below the library on purpose: every
 * helper returns 0 or the positive errno of the ioctl, so a test names
 * the exact errno the kernel promises.
 */
#ifndef _CUFAB_SELFTEST_UAPI_H
#define _CUFAB_SELFTEST_UAPI_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/cufab.h>

#include "cufab_test.h"

#define IMEX_REGION		"cufab-imex-channels"
#define IMEX_DIR		"/dev/cufab-imex-channels"

static inline int cufab_ioc(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? errno : 0;
}

static inline int cufab_open(void)
{
	return open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

/* A context on GPU @dev; its id in *@id when @id. */
static inline int ctx_create(int fd, __u32 dev, __u32 flags, __u32 *id)
{
	struct cufab_ctx_create cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.dev = dev,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_CTX_CREATE, &cmd);

	if (!ret && id)
		*id = cmd.out_ctx_id;
	return ret;
}

/* Destroy object @id (a context, a handle...) of the client. */
static inline int destroy(int fd, __u32 id)
{
	struct cufab_destroy cmd = { .size = sizeof(cmd), .id = id };

	return cufab_ioc(fd, CUFAB_IOCTL_DESTROY, &cmd);
}

/* Major of a char-device region in /proc/devices, 0 when absent. */
static inline unsigned int proc_devices_major(const char *name)
{
	char line[128], n[96];
	unsigned int major, found = 0;
	int in_char = 0;
	FILE *f = fopen("/proc/devices", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Character devices:", 18)) {
			in_char = 1;
			continue;
		}
		if (!strncmp(line, "Block devices:", 14))
			break;
		if (in_char && sscanf(line, "%u %95s", &major, n) == 2 &&
		    !strcmp(n, name))
			found = major;
	}
	fclose(f);
	return found;
}

static inline unsigned int imex_major(void)
{
	return proc_devices_major(IMEX_REGION);
}

/*
 * Nodes (and the directory) this process created; imex_cleanup() removes
 * them so that later suites find /dev as it was.
 */
#define MAX_NODES	8
static char made_nodes[MAX_NODES][64];
static unsigned int nr_made_nodes;
static int made_dir;

static inline void imex_cleanup(void)
{
	while (nr_made_nodes)
		unlink(made_nodes[--nr_made_nodes]);
	if (made_dir)
		rmdir(IMEX_DIR);
	made_dir = 0;
}

/*
 * Make sure /dev/cufab-imex-channels/channelN exists, as an administrator
 * would: mknod with the region's major. Returns 0 or a positive errno
 * (ENODEV without the region), like every helper here.
 */
static inline int imex_node(unsigned int channel, char *path, size_t len)
{
	unsigned int major = imex_major();
	struct stat st;

	if (!major)
		return errno = ENODEV;
	snprintf(path, len, IMEX_DIR "/channel%u", channel);
	if (!stat(path, &st)) {
		if (S_ISCHR(st.st_mode) && major(st.st_rdev) == major &&
		    minor(st.st_rdev) == channel)
			return 0;
		if (unlink(path))
			return errno;
	}
	if (!mkdir(IMEX_DIR, 0755))
		made_dir = 1;
	else if (errno != EEXIST)
		return errno;
	if (mknod(path, S_IFCHR | 0600, makedev(major, channel)))
		return errno;
	if (nr_made_nodes < MAX_NODES)
		snprintf(made_nodes[nr_made_nodes++], sizeof(made_nodes[0]),
			 "%s", path);
	return 0;
}

/* Open channel N (creating the node if needed); fd or -errno. */
static inline int imex_open(unsigned int channel)
{
	char path[64];
	int ret = imex_node(channel, path, sizeof(path));
	int fd;

	if (ret)
		return -ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static inline int imex_set_channel(int fd, int chfd, __u32 *out)
{
	struct cufab_imex_set_channel cmd = {
		.size = sizeof(cmd), .fd = chfd,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_IMEX_SET_CHANNEL, &cmd);

	if (!ret && out)
		*out = cmd.out_channel;
	return ret;
}

/* Open channel N and record it for client fd; 0 or an errno. */
static inline int imex_join(int fd, unsigned int channel)
{
	int chfd = imex_open(channel);
	int ret;

	if (chfd < 0)
		return -chfd;
	ret = imex_set_channel(fd, chfd, NULL);
	close(chfd);
	return ret;
}

/* ---- memory: create, map, share ---- */

#define MIB			(1024UL * 1024)
#define ALLOC_LEN		(2 * MIB)	/* default granularity */

static inline int mem_create(int fd, __u32 handle_types, __u64 len,
			     __u32 *handle)
{
	struct cufab_mem_create cmd = {
		.size = sizeof(cmd), .location_type = CUFAB_LOC_DEVICE,
		.location_id = 0, .handle_types = handle_types, .length = len,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_CREATE, &cmd);

	if (!ret)
		*handle = cmd.out_handle;
	return ret;
}

static inline int mem_release(int fd, __u32 handle)
{
	struct cufab_mem_release cmd = { .size = sizeof(cmd), .handle = handle };

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_RELEASE, &cmd);
}

static inline int mem_export_fd(int fd, __u32 handle, int *out_fd)
{
	struct cufab_mem_export cmd = {
		.size = sizeof(cmd), .handle = handle,
		.handle_type = CUFAB_HANDLE_POSIX_FD,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_EXPORT, &cmd);

	if (!ret)
		*out_fd = cmd.out_fd;
	return ret;
}

static inline int mem_export_fabric(int fd, __u32 handle,
				    __u8 out[CUFAB_FABRIC_HANDLE_LEN])
{
	struct cufab_mem_export cmd = {
		.size = sizeof(cmd), .handle = handle,
		.handle_type = CUFAB_HANDLE_FABRIC,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_EXPORT, &cmd);

	if (!ret)
		memcpy(out, cmd.out_fabric, CUFAB_FABRIC_HANDLE_LEN);
	return ret;
}

static inline int mem_import_fd(int fd, int dmabuf, __u32 *handle)
{
	struct cufab_mem_import cmd = {
		.size = sizeof(cmd), .handle_type = CUFAB_HANDLE_POSIX_FD,
		.fd = dmabuf,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_IMPORT, &cmd);

	if (!ret)
		*handle = cmd.out_handle;
	return ret;
}

static inline int mem_import_fabric(int fd,
				    const __u8 h[CUFAB_FABRIC_HANDLE_LEN],
				    __u32 *handle)
{
	struct cufab_mem_import cmd = {
		.size = sizeof(cmd), .handle_type = CUFAB_HANDLE_FABRIC,
		.fd = -1,
	};
	int ret;

	memcpy(cmd.fabric, h, CUFAB_FABRIC_HANDLE_LEN);
	ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_IMPORT, &cmd);
	if (!ret)
		*handle = cmd.out_handle;
	return ret;
}

/*
 * Reservations made by mem_map_rw() in this process. Each is a mapping of
 * the client's file, which keeps the client alive after close(): a test
 * that checks for leaks unmaps them first with mem_unmap_all().
 */
#define MAX_MAPS	16
static struct { void *addr; __u64 len; } maps[MAX_MAPS];
static unsigned int nr_maps;

static inline void mem_unmap_all(void)
{
	while (nr_maps) {
		nr_maps--;
		munmap(maps[nr_maps].addr, maps[nr_maps].len);
	}
}

/*
 * cuMemAddressReserve + cuMemMap + cuMemSetAccess (host and GPU 0 read
 * write) of a whole allocation. Returns 0 and the CPU address, or an errno.
 */
static inline int mem_map_rw(int fd, __u32 handle, __u64 len, void **out)
{
	struct cufab_va_reserve res = { .size = sizeof(res), .length = len };
	struct cufab_mem_map map = { .size = sizeof(map), .length = len,
				     .handle = handle };
	struct cufab_mem_access descs[2] = {
		{ .location_type = CUFAB_LOC_HOST, .location_id = 0,
		  .flags = 3 },
		{ .location_type = CUFAB_LOC_DEVICE, .location_id = 0,
		  .flags = 3 },
	};
	struct cufab_mem_set_access acc = {
		.size = sizeof(acc), .num_descs = 2, .length = len,
		.descs_ptr = (__u64)(unsigned long)descs,
	};
	int ret;

	ret = cufab_ioc(fd, CUFAB_IOCTL_VA_RESERVE, &res);
	if (ret)
		return ret;
	if (nr_maps < MAX_MAPS) {
		maps[nr_maps].addr = (void *)(unsigned long)res.addr;
		maps[nr_maps++].len = len;
	}
	map.addr = res.addr;
	acc.addr = res.addr;
	ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_MAP, &map);
	if (!ret)
		ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_SET_ACCESS, &acc);
	if (!ret)
		*out = (void *)(unsigned long)res.addr;
	return ret;
}

/* Is the memory API there at all (a kernel of an older issue is not)? */
static inline int mem_api_present(int fd)
{
	struct cufab_mem_release cmd = { .size = sizeof(cmd), .handle = 0 };

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_RELEASE, &cmd) != ENOTTY &&
	       cufab_ioc(fd, CUFAB_IOCTL_MEM_EXPORT, &cmd) != ENOTTY;
}

#endif /* _CUFAB_SELFTEST_UAPI_H */
