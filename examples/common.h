/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the multi-process examples (vmm_share, mc_team, pool_share) would
 * otherwise each spell out: reporting a failed call, mapping an
 * allocation, and passing an exported POSIX fd over a unix socket
 * (SCM_RIGHTS).  Only the
 * CUDA driver API is used, so the examples still build against NVIDIA's
 * cuda.h.  An example defines EXAMPLE_NAME, for its messages, first.
 */
#ifndef CUFAB_EXAMPLES_COMMON_H
#define CUFAB_EXAMPLES_COMMON_H

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cufab/cuda.h>

#ifndef EXAMPLE_NAME
#error "define EXAMPLE_NAME before including common.h"
#endif

static inline int check(CUresult res, const char *who, const char *what)
{
	const char *name = "?";

	if (res == CUDA_SUCCESS)
		return 0;
	cuGetErrorName(res, &name);
	fprintf(stderr, EXAMPLE_NAME " %s: %s: %s\n", who, what, name);
	return -1;
}

/* A failed call ends the process (or child) with status 1, named in full. */
#define CHECK(call, who)	do { if (check((call), who, #call)) return 1; } while (0)

/* Reserves an address range, maps h there and lets GPU dev (and the CPU) in. */
static inline CUresult map(CUmemGenericAllocationHandle h, size_t size,
			   int dev, CUdeviceptr *va)
{
	CUmemAccessDesc access = {
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUresult res;

	res = cuMemAddressReserve(va, size, 0, 0, 0);
	if (res == CUDA_SUCCESS)
		res = cuMemMap(*va, size, 0, h, 0);
	if (res == CUDA_SUCCESS)
		res = cuMemSetAccess(*va, size, &access, 1);
	return res;
}

static inline void unmap(CUdeviceptr va, size_t size)
{
	cuMemUnmap(va, size);
	cuMemAddressFree(va, size);
}

/*
 * An exported POSIX handle is an fd of this process: another process gets
 * it only as SCM_RIGHTS, with at least one byte of data travelling along
 * (@len bytes at @data: what else the receiver needs, e.g. the export data
 * of a pool pointer).
 */
static inline int send_fd_data(int sock, int fd, const void *data,
			       size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)data, len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == (ssize_t)len ? 0 : -1;
}

/* The fd send_fd_data() passed, its @len bytes in @data; or -1. */
static inline int recv_fd_data(int sock, void *data, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { data, len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != (ssize_t)len)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* An fd alone (one byte of data travels with it). */
static inline int send_fd(int sock, int fd)
{
	char byte = 'f';

	return send_fd_data(sock, fd, &byte, 1);
}

/* The fd send_fd() passed, or -1. */
static inline int recv_fd(int sock)
{
	char byte;

	return recv_fd_data(sock, &byte, 1);
}

#endif /* CUFAB_EXAMPLES_COMMON_H */
