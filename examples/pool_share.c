// SPDX-License-Identifier: GPL-2.0
/*
 * pool_share: two processes share a memory pool and one of its
 * allocations, using only the CUDA driver API's stream-ordered allocator
 * (cuMemPoolCreate, cuMemAllocFromPoolAsync, cuMemPoolExportToShareableHandle,
 * cuMemPoolExportPointer, ...). Builds against cufab/cuda.h or NVIDIA's
 * cuda.h.
 *
 * The parent creates an exportable pool on GPU 0, allocates 1 MiB from
 * it, fills it and sends the pool's fd and the pointer's export data over
 * a unix socket; the child imports both, checks the parent's data and
 * writes an answer the parent then checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#define EXAMPLE_NAME	"pool_share"
#include "common.h"

#define SIZE		(1 << 20)
#define WORDS		(SIZE / sizeof(unsigned int))

static int child(int sock)
{
	CUmemPoolPtrExportData data;
	CUmemoryPool pool;
	CUcontext ctx;
	CUdeviceptr p;
	unsigned int *w;
	size_t i;
	int fd;

	fd = recv_fd(sock);
	if (fd < 0 || read(sock, &data, sizeof(data)) != sizeof(data)) {
		fprintf(stderr, EXAMPLE_NAME " child: no pool from the parent\n");
		return 1;
	}
	CHECK(cuInit(0), "child");
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0), "child");
	CHECK(cuCtxSetCurrent(ctx), "child");
	CHECK(cuMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "child");
	close(fd);
	CHECK(cuMemPoolImportPointer(&p, pool, &data), "child");
	w = (unsigned int *)(uintptr_t)p;
	for (i = 0; i < WORDS; i++)
		if (w[i] != i) {
			fprintf(stderr, EXAMPLE_NAME " child: word %zu is %u\n", i, w[i]);
			return 1;
		}
	printf("child %d: imported the pool and a 1 MiB pointer, parent's data intact\n",
	       getpid());
	for (i = 0; i < WORDS; i++)
		w[i] = (unsigned int)~i;
	CHECK(cuMemFreeAsync(p, NULL), "child");
	CHECK(cuMemPoolDestroy(pool), "child");
	return write(sock, "d", 1) == 1 ? 0 : 1;
}

int main(void)
{
	CUmemPoolProps props = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
	};
	CUmemPoolPtrExportData data;
	cuuint64_t reserved = 0;
	CUmemoryPool pool;
	unsigned int *w;
	CUcontext ctx;
	CUdeviceptr p;
	int sv[2], fd, status;
	pid_t pid;
	size_t i;
	char done;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror(EXAMPLE_NAME ": socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror(EXAMPLE_NAME ": fork");
		return 1;
	}
	if (!pid) {
		close(sv[0]);
		_exit(child(sv[1]));
	}
	close(sv[1]);
	CHECK(cuInit(0), "parent");
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0), "parent");
	CHECK(cuCtxSetCurrent(ctx), "parent");
	CHECK(cuMemPoolCreate(&pool, &props), "parent");
	CHECK(cuMemAllocFromPoolAsync(&p, SIZE, pool, NULL), "parent");
	w = (unsigned int *)(uintptr_t)p;
	for (i = 0; i < WORDS; i++)
		w[i] = i;
	CHECK(cuMemPoolExportToShareableHandle(&fd, pool,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "parent");
	CHECK(cuMemPoolExportPointer(&data, p), "parent");
	CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
				    &reserved), "parent");
	printf("parent %d: pool on gpu0, 1 MiB allocated, %llu MiB reserved\n",
	       getpid(), (unsigned long long)reserved >> 20);
	if (send_fd(sv[0], fd) ||
	    write(sv[0], &data, sizeof(data)) != sizeof(data) ||
	    read(sv[0], &done, 1) != 1) {
		fprintf(stderr, EXAMPLE_NAME ": the child did not answer\n");
		return 1;
	}
	close(fd);
	for (i = 0; i < WORDS; i++)
		if (w[i] != (unsigned int)~i) {
			fprintf(stderr, EXAMPLE_NAME ": word %zu is %u\n", i, w[i]);
			return 1;
		}
	printf("parent %d: the child's answer is in the pool allocation\n", getpid());
	CHECK(cuMemFreeAsync(p, NULL), "parent");
	CHECK(cuMemPoolDestroy(pool), "parent");
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	return 0;
}
