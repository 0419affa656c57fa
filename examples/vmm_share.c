// SPDX-License-Identifier: GPL-2.0
/*
 * vmm_share: two processes share one allocation through a POSIX file
 * descriptor, using only the CUDA driver API (cuMemCreate, cuMemMap,
 * cuMemSetAccess, cuMemExportToShareableHandle, ...). Builds against
 * cufab/cuda.h or NVIDIA's cuda.h.
 *
 * The parent creates 2 MiB (or the granularity) on GPU 0, fills it and
 * sends the exported fd over a unix socket; the child imports, maps it,
 * checks the parent's data and writes an answer the parent then checks.
 * Each process calls cuInit itself: a CUDA client is never inherited.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#define EXAMPLE_NAME	"vmm_share"
#include "common.h"

static size_t buffer_size(const CUmemAllocationProp *prop)
{
	size_t g = 0;

	if (cuMemGetAllocationGranularity(&g, prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM))
		return 0;
	return g > (2 << 20) ? g : (2 << 20) / g * g;
}

static int child(int sock, size_t size)
{
	CUmemGenericAllocationHandle h;
	unsigned int *p;
	CUdeviceptr va;
	size_t i;
	int fd;

	CHECK(cuInit(0), "child");
	fd = recv_fd(sock);
	if (fd < 0) {
		fprintf(stderr, "vmm_share child: no fd received\n");
		return 1;
	}
	CHECK(cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
					     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), "child");
	close(fd);
	CHECK(map(h, size, 0, &va), "child");
	p = (unsigned int *)va;
	for (i = 0; i < size / sizeof(*p); i += 1024)
		if (p[i] != (unsigned int)i) {
			fprintf(stderr, "vmm_share child: word %zu is %u, expected %zu\n",
				i, p[i], i);
			return 1;
		}
	for (i = 0; i < size / sizeof(*p); i += 1024)
		p[i + 1] = (unsigned int)~i;
	printf("child  %d: read the parent's pattern, wrote its answer\n", (int)getpid());
	fflush(stdout);
	unmap(va, size);
	CHECK(cuMemRelease(h), "child");
	return write(sock, "k", 1) == 1 ? 0 : 1;
}

int main(void)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
	};
	CUmemGenericAllocationHandle h;
	int sv[2], fd, status, bad = 0;
	unsigned int *p;
	CUdeviceptr va;
	size_t size, i;
	pid_t pid;
	char ok;

	CHECK(cuInit(0), "parent");
	size = buffer_size(&prop);
	if (!size)
		return 1;
	CHECK(cuMemCreate(&h, size, &prop, 0), "parent");
	CHECK(map(h, size, 0, &va), "parent");
	p = (unsigned int *)va;
	for (i = 0; i < size / sizeof(*p); i += 1024)
		p[i] = (unsigned int)i;
	CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
	      "parent");
	printf("parent %d: %zu bytes on GPU 0 exported as fd %d\n", (int)getpid(), size, fd);
	fflush(stdout);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		perror("vmm_share: socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("vmm_share: fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], size));
	}
	close(sv[1]);
	if (send_fd(sv[0], fd)) {
		perror("vmm_share: sendmsg");
		return 1;
	}
	close(fd);
	if (read(sv[0], &ok, 1) == 1)
		for (i = 0; i < size / sizeof(*p); i += 1024)
			bad |= p[i + 1] != (unsigned int)~i;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "vmm_share: child failed\n");
		return 1;
	}
	if (bad) {
		fprintf(stderr, "vmm_share parent: the child's answer is missing\n");
		return 1;
	}
	printf("parent %d: the child's answer is in the shared memory\n", (int)getpid());
	unmap(va, size);
	CHECK(cuMemRelease(h), "parent");
	return 0;
}
