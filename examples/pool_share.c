// SPDX-License-Identifier: GPL-2.0
/*
 * pool_share: two processes share a memory pool and a pointer into it,
 * using only the CUDA driver API's stream-ordered allocator
 * (cuMemPoolCreate, cuMemAllocFromPoolAsync,
 * cuMemPoolExportToShareableHandle, cuMemPoolExportPointer, ...).
 *
 * The owner creates a pool on GPU 0 that exports as a POSIX fd, allocates
 * 1 MiB from it on a stream, fills it and hands the pool's fd and the
 * pointer's export data to a second process over a unix socket. The
 * importer maps the same memory, reads the owner's data and writes its
 * answer. Then the owner frees its pointer first: the importer's mapping
 * stays valid and unchanged until the importer frees it too, and the
 * owner's next allocations do not reuse the range meanwhile.
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

/* The second process: import, check, answer, and outlive the owner's free. */
static int importer(int sock)
{
	CUmemPoolPtrExportData data;
	CUmemoryPool pool;
	CUcontext ctx;
	CUdeviceptr p;
	unsigned int *w;
	size_t i;
	char go;
	int fd;

	fd = recv_fd_data(sock, &data, sizeof(data));
	if (fd < 0) {
		fprintf(stderr, "pool_share importer: nothing from the owner\n");
		return 1;
	}
	CHECK(cuInit(0), "importer");
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0), "importer");
	CHECK(cuCtxSetCurrent(ctx), "importer");
	CHECK(cuMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "importer");
	close(fd);
	CHECK(cuMemPoolImportPointer(&p, pool, &data), "importer");
	w = (unsigned int *)(uintptr_t)p;
	for (i = 0; i < WORDS && w[i] == i; i++)
		;
	printf("importer %d: pointer 0x%llx of the owner's pool: %s\n",
	       getpid(), (unsigned long long)p,
	       i == WORDS ? "the owner's data" : "WRONG data");
	for (i = 0; i < WORDS; i++)
		w[i] = (unsigned int)~i;
	if (write(sock, "a", 1) != 1 || read(sock, &go, 1) != 1)
		return 1;
	/* the owner has freed its pointer and allocated again */
	for (i = 0; i < WORDS && w[i] == (unsigned int)~i; i++)
		;
	printf("importer %d: after the owner's free, the memory is %s\n",
	       getpid(), i == WORDS ? "still mine, unchanged" : "CHANGED");
	CHECK(cuMemFreeAsync(p, NULL), "importer");
	CHECK(cuMemPoolDestroy(pool), "importer");
	return i == WORDS ? 0 : 1;
}

static int owner(int sock, pid_t pid)
{
	CUmemPoolProps props = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
	};
	CUmemPoolPtrExportData data;
	cuuint64_t reserved = 0;
	CUdeviceptr p, again;
	CUmemoryPool pool;
	CUcontext ctx;
	CUstream s;
	unsigned int *w;
	size_t i;
	int fd, status;
	char ack;

	CHECK(cuInit(0), "owner");
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0), "owner");
	CHECK(cuCtxSetCurrent(ctx), "owner");
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "owner");
	CHECK(cuMemPoolCreate(&pool, &props), "owner");
	CHECK(cuMemAllocFromPoolAsync(&p, SIZE, pool, s), "owner");
	CHECK(cuMemsetD32Async(p, 0, WORDS, s), "owner");
	CHECK(cuStreamSynchronize(s), "owner");
	w = (unsigned int *)(uintptr_t)p;
	for (i = 0; i < WORDS; i++)
		w[i] = i;
	CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
				    &reserved), "owner");
	printf("owner %d: pool on gpu0 (%llu MiB reserved), 1 MiB at 0x%llx\n",
	       getpid(), (unsigned long long)reserved >> 20,
	       (unsigned long long)p);
	CHECK(cuMemPoolExportToShareableHandle(&fd, pool,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "owner");
	CHECK(cuMemPoolExportPointer(&data, p), "owner");
	if (send_fd_data(sock, fd, &data, sizeof(data)) || read(sock, &ack, 1) != 1) {
		fprintf(stderr, "pool_share owner: the importer did not answer\n");
		return 1;
	}
	close(fd);
	for (i = 0; i < WORDS && w[i] == (unsigned int)~i; i++)
		;
	printf("owner %d: the importer's answer is in my allocation: %s\n",
	       getpid(), i == WORDS ? "yes" : "NO");
	CHECK(cuMemFreeAsync(p, s), "owner");
	CHECK(cuMemAllocFromPoolAsync(&again, SIZE, pool, s), "owner");
	printf("owner %d: freed it first; my next 1 MiB is at 0x%llx (%s)\n",
	       getpid(), (unsigned long long)again,
	       again == p ? "SAME range" : "another range");
	if (write(sock, "g", 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 1;
	CHECK(cuMemFreeAsync(again, s), "owner");
	CHECK(cuStreamSynchronize(s), "owner");
	CHECK(cuMemPoolDestroy(pool), "owner");
	CHECK(cuStreamDestroy(s), "owner");
	return WIFEXITED(status) && !WEXITSTATUS(status) && again != p ? 0 : 1;
}

int main(void)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("pool_share: socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pool_share: fork");
		return 1;
	}
	if (!pid) {
		close(sv[0]);
		_exit(importer(sv[1]));
	}
	close(sv[1]);
	return owner(sv[0], pid);
}
