// SPDX-License-Identifier: GPL-2.0
/*
 * mc_team: a multicast team forming across processes, then a broadcast.
 *
 * The parent creates a multicast object for N devices (N = GPUs, at most
 * 4) and hands its POSIX fd to N member processes over unix sockets. Each
 * member imports it, joins with its own GPU (cuMulticastAddDevice), one
 * after the other, and binds memory of that GPU: cuMulticastBindMem
 * blocks until the last member has joined. Meanwhile the parent shows
 * the team with "cufabctl mc show" ("k of n devices, missing ...").
 * Once the team is complete, the parent maps the object and broadcasts a
 * message with cufabMultimemBroadcast (the cufab stand-in for multimem
 * stores); every member reads it in its own memory, and the parent sums
 * the members' ranks with cufabMultimemLoadReduce.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>
#include <cufab/multimem.h>

#define EXAMPLE_NAME	"mc_team"
#include "common.h"

#define MAX_MEMBERS	4
#define JOIN_GAP_MS	300

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Member @rank: join with GPU rank, bind (blocks), then read the message. */
static int member(int sock, int rank, size_t size, double t0)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = rank },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};
	CUmemGenericAllocationHandle mc, mem;
	char who[16], msg[64];
	CUdeviceptr va;
	int fd = recv_fd(sock);

	snprintf(who, sizeof(who), "member %d", rank);
	if (fd < 0)
		return 1;
	CHECK(cuInit(0), who);
	CHECK(cuMemImportFromShareableHandle(&mc, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), who);
	close(fd);
	CHECK(cuMemCreate(&mem, size, &prop, 0), who);
	CHECK(map(mem, size, rank, &va), who);
	((uint32_t *)va)[1024] = rank + 1;	/* for the load-reduce */
	usleep(rank * JOIN_GAP_MS * 1000);
	CHECK(cuMulticastAddDevice(mc, rank), who);
	printf("  %5.2fs  member %d (pid %d) joined with gpu%d, binding...\n",
	       now_s() - t0, rank, getpid(), rank);
	fflush(stdout);
	CHECK(cuMulticastBindMem(mc, 0, mem, 0, size, 0), who);
	printf("  %5.2fs  member %d: bind returned, the team is complete\n",
	       now_s() - t0, rank);
	fflush(stdout);
	if (write(sock, "b", 1) != 1 || read(sock, msg, 1) != 1)
		return 1;
	memcpy(msg, (void *)va, sizeof(msg));
	msg[sizeof(msg) - 1] = 0;
	printf("  member %d reads in its own gpu%d memory: \"%s\"\n", rank,
	       rank, msg);
	fflush(stdout);
	CHECK(cuMulticastUnbind(mc, rank, 0, size), who);
	if (write(sock, "d", 1) != 1)
		return 1;
	return 0;
}

/* "cufabctl mc show" next to this program (build/bin), if it is there. */
static void show_team(void)
{
	char self[PATH_MAX], cmd[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(cmd, sizeof(cmd), "%s/../bin/cufabctl mc show", self);
	fflush(stdout);
	if (system(cmd))
		printf("  (cufabctl not available)\n");
}

int main(void)
{
	CUmemGenericAllocationHandle mc;
	CUmulticastObjectProp prop = {
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};
	int sock[MAX_MEMBERS][2], n = 0, i, fd, supported = 0, rc = 0, st;
	const char message[64] = "hello from the multicast object";
	pid_t pid[MAX_MEMBERS];
	uint32_t sum = 0;
	CUdeviceptr va;
	double t0 = now_s();
	size_t gran;
	char c;

	CHECK(cuInit(0), "parent");
	CHECK(cuDeviceGetCount(&n), "parent");
	cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0);
	if (n < 2 || !supported) {
		printf("mc_team: needs 2 GPUs with multicast (have %d, supported %d)\n",
		       n, supported);
		return 0;
	}
	prop.numDevices = n > MAX_MEMBERS ? MAX_MEMBERS : n;
	prop.size = 2 << 20;
	CHECK(cuMulticastGetGranularity(&gran, &prop,
					CU_MULTICAST_GRANULARITY_MINIMUM), "parent");
	prop.size = (prop.size + gran - 1) / gran * gran;
	CHECK(cuMulticastCreate(&mc, &prop), "parent");
	CHECK(cuMemExportToShareableHandle(&fd, mc,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "parent");
	printf("multicast object for %u devices, %zu bytes each; members join %d ms apart\n",
	       prop.numDevices, prop.size, JOIN_GAP_MS);
	for (i = 0; i < (int)prop.numDevices; i++) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sock[i]))
			return 1;
		pid[i] = fork();
		if (pid[i] == 0) {
			close(sock[i][0]);
			_exit(member(sock[i][1], i, prop.size, t0));
		}
		close(sock[i][1]);
		send_fd(sock[i][0], fd);
	}
	close(fd);

	/* half way through the joins: the team is incomplete, binds wait */
	usleep((prop.numDevices / 2 * JOIN_GAP_MS + JOIN_GAP_MS / 2) * 1000);
	printf("  %5.2fs  parent: cufabctl mc show\n", now_s() - t0);
	show_team();
	for (i = 0; i < (int)prop.numDevices; i++)
		if (read(sock[i][0], &c, 1) != 1)
			return 1;

	CHECK(map(mc, prop.size, 0, &va), "parent");
	CHECK(cufabMultimemBroadcast(va, message, sizeof(message), NULL), "parent");
	CHECK(cufabMultimemLoadReduce(&sum, va + 4096, CUFAB_MULTIMEM_U32,
				      CUFAB_MULTIMEM_ADD, 1, NULL), "parent");
	printf("parent broadcast \"%s\"; load-reduce of the ranks + 1: %u\n",
	       message, sum);
	fflush(stdout);
	for (i = 0; i < (int)prop.numDevices; i++) {
		if (write(sock[i][0], "r", 1) != 1 || read(sock[i][0], &c, 1) != 1)
			rc = 1;
		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			rc = 1;
	}
	unmap(va, prop.size);
	CHECK(cuMemRelease(mc), "parent");
	return rc;
}
