// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_le: endpoint teams over the nodes of the test cluster, through
 * the CUDA driver API only (selftests/cluster/fabric.sh and kill.sh run
 * it).
 *
 *   fabric_le run DIR    both ways: every node creates a unicast endpoint
 *       on its GPU 0, exportable as FABRIC, binds FABRIC memory to it and
 *       writes its handle to DIR/le-uN; every node imports every other
 *       node's, which is ready at once (a team of one, on its home node)
 *       and may not be bound (CUDA_ERROR_NOT_PERMITTED); its home's
 *       binding is seen in the imported team; an importer on another IMEX
 *       channel is refused (fabric_le refuse). Then node 0 creates a
 *       multicast endpoint of two devices per node and writes its handle
 *       to DIR/le-m; the others import it. Every node adds its GPUs 0 and
 *       1 and polls cuLogicalEndpointQuery until the team, formed across
 *       the nodes, is ready (the time is printed); every node binds FABRIC
 *       memory on both its devices, and each node's team holds the
 *       bindings of every member of every node; after every node but 0
 *       unbound, node 0's team holds only its own. Memory with local pages
 *       (POSIX_FD only) is refused by the FABRIC endpoint
 *       (CUDA_ERROR_INVALID_VALUE).
 *   fabric_le refuse DIR    (run by run, on IMEX channel 1, while the
 *       unicast endpoints live) another channel than the exporter's:
 *       importing DIR/le-u<other> fails with CUDA_ERROR_NOT_PERMITTED
 *   fabric_le half DIR   node 0: a multicast endpoint of four devices of
 *       which it adds one, handle in DIR/le-kill; waits to be killed
 *   fabric_le hold DIR   node 1: imports DIR/le-kill, adds its two GPUs,
 *       touches DIR/le-kill.waiting and polls Query: once node 0 is
 *       killed, Query fails with CUDA_ERROR_SYSTEM_NOT_READY, and so do
 *       AddDevice and a bind; destroys and releases
 *
 * Bindings are counted in cufabctl le show's lines of this process
 * (build/bin/cufabctl). Nodes meet at files in DIR. Waits give up after
 * 120 s. Exit status 0, 1 on a failure (explained on stderr), 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>

#define PROG	"fabric_le"
#define BARRIER	"le"
#include "node.h"

#define GPUS	2
#define FABRIC	CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC

static const char *ctl, *self;

static int put_handle(const char *name, const CUlogicalEndpointFabricHandle *h)
{
	char path[512], tmp[520];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fwrite(h, sizeof(*h), 1, f) != 1 || fclose(f) ||
	    rename(tmp, path))
		return -1;
	return 0;
}

static int get_handle(const char *name, CUlogicalEndpointFabricHandle *h)
{
	char path[512];
	FILE *f;
	int ok;

	if (wait_file(name))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fread(h, sizeof(*h), 1, f) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static CUresult memory(int gpu, size_t size, CUmemAllocationHandleType type,
		       CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = gpu },
		.requestedHandleTypes = type,
	};

	return cuMemCreate(h, size, &prop, 0);
}

/* Poll Query until ready: its time in ms, or -1 (logged). */
static double wait_ready(CUlogicalEndpointId id)
{
	double t0 = ms();
	int ready = 0;
	CUresult r;

	while (ms() - t0 < 120000) {
		r = cuLogicalEndpointQuery(id, 1, &ready);
		if (r) {
			fail("cuLogicalEndpointQuery", r);
			return -1;
		}
		if (ready)
			return ms() - t0;
		usleep(2000);
	}
	fail("endpoint never ready", CUDA_ERROR_TIMEOUT);
	return -1;
}

/* Bindings of endpoint id @id of this process, in cufabctl le show. */
static int bindings(CUlogicalEndpointId id)
{
	char cmd[600], line[512], head[32];
	int n = 0, in = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s le show pid %d 2>&1", ctl, getpid());
	snprintf(head, sizeof(head), "    id %u:", id);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "    id ", 7))
			in = !strncmp(line, head, strlen(head));
		else if (in && strstr(line, " <- allocation "))
			n++;
	}
	pclose(p);
	return n;
}

/* Until endpoint @id shows @want bindings (10 s at most). */
static int wait_bindings(CUlogicalEndpointId id, int want, const char *what)
{
	int i, n = -1;

	for (i = 0; i < 200; i++) {
		n = bindings(id);
		if (n == want)
			return 0;
		usleep(50000);
	}
	fprintf(stderr, "fabric_le (node %d): %s: %d bindings, want %d\n",
		node, what, n, want);
	return 1;
}

/* Both ways: each node's unicast endpoint imported by every other node. */
static int unicast(CUlogicalEndpointId base, size_t size)
{
	CUlogicalEndpointProp p = {
		.type = CU_LOGICAL_ENDPOINT_TYPE_UNICAST,
		.unicast.device = 0, .size = size, .ipcHandleTypes = FABRIC,
	};
	CUlogicalEndpointFabricHandle h;
	CUmemGenericAllocationHandle mem;
	CUlogicalEndpointId mine = base + node;
	char name[32], cmd[1100];
	double t;
	int n;

	TRY(cuLogicalEndpointCreate(mine, &p));
	if (wait_ready(mine) < 0)
		return 1;
	TRY(memory(0, size, CU_MEM_HANDLE_TYPE_FABRIC, &mem));
	TRY(cuLogicalEndpointBindMem(mine, 0, 0, mem, 0, size, 0));
	TRY(cuLogicalEndpointExport(&h, mine, FABRIC));
	snprintf(name, sizeof(name), "le-u%d", node);
	if (put_handle(name, &h))
		return fail("writing the handle", CUDA_ERROR_UNKNOWN);
	for (n = 0; n < nodes; n++) {
		if (n == node)
			continue;
		snprintf(name, sizeof(name), "le-u%d", n);
		if (get_handle(name, &h))
			return 1;
		t = ms();
		TRY(cuLogicalEndpointImport(base + n, &h, FABRIC));
		if (wait_ready(base + n) < 0)
			return 1;
		printf("# node %d: node %d's unicast endpoint imported and ready in %.0f ms\n",
		       node, n, ms() - t);
		WANT(CUDA_ERROR_NOT_PERMITTED,
		     cuLogicalEndpointBindMem(base + n, 0, 0, mem, 0, size, 0));
		/* its home's binding, told by the home */
		if (wait_bindings(base + n, 1, "imported unicast endpoint"))
			return 1;
	}
	/* while the endpoints live: an importer on another channel */
	snprintf(cmd, sizeof(cmd), "CUFAB_IMEX_CHANNEL=1 %s refuse %s", self,
		 dir);
	if (system(cmd))
		return fail("the importer on IMEX channel 1", CUDA_ERROR_UNKNOWN);
	if (barrier("unicast"))
		return 1;
	for (n = 0; n < nodes; n++)
		if (n != node)
			TRY(cuLogicalEndpointDestroy(base + n));
	TRY(cuLogicalEndpointUnbind(mine, 0, 0, size));
	TRY(cuLogicalEndpointDestroy(mine));
	TRY(cuMemRelease(mem));
	return 0;
}

/* Memory with local pages cannot serve another node: refused. */
static int local_refused(CUlogicalEndpointId id, size_t size)
{
	CUmemGenericAllocationHandle h;
	CUresult res;

	TRY(memory(0, size, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, &h));
	res = cuLogicalEndpointBindMem(id, 0, 0, h, 0, size, 0);
	TRY(cuMemRelease(h));
	if (res != CUDA_ERROR_INVALID_VALUE)
		return fail("binding local pages to a FABRIC endpoint", res);
	return 0;
}

/* A multicast endpoint of GPUS devices per node, home node 0. */
static int multicast(CUlogicalEndpointId id, size_t size)
{
	CUlogicalEndpointProp p = {
		.type = CU_LOGICAL_ENDPOINT_TYPE_MULTICAST,
		.multicast.numDevices = nodes * GPUS, .size = size,
		.ipcHandleTypes = FABRIC,
	};
	CUmemGenericAllocationHandle mem[GPUS];
	CUlogicalEndpointFabricHandle h;
	double t0, formed;
	int g;

	if (node == 0) {
		TRY(cuLogicalEndpointCreate(id, &p));
		TRY(cuLogicalEndpointExport(&h, id, FABRIC));
		if (put_handle("le-m", &h))
			return fail("writing the handle", CUDA_ERROR_UNKNOWN);
	} else {
		if (get_handle("le-m", &h))
			return 1;
		TRY(cuLogicalEndpointImport(id, &h, FABRIC));
	}
	t0 = ms();
	for (g = 0; g < GPUS; g++)
		TRY(cuLogicalEndpointAddDevice(id, g));
	formed = wait_ready(id);
	if (formed < 0)
		return 1;
	printf("# node %d: endpoint team of %d devices over %d nodes ready %.0f ms after this node's first add (%.0f ms from it to ready)\n",
	       node, nodes * GPUS, nodes, ms() - t0, formed);
	if (local_refused(id, size))
		return 1;
	for (g = 0; g < GPUS; g++) {
		TRY(memory(g, size, CU_MEM_HANDLE_TYPE_FABRIC, &mem[g]));
		TRY(cuLogicalEndpointBindMem(id, g, 0, mem[g], 0, size, 0));
	}
	if (barrier("bound"))
		return 1;
	/* every member's binding, this node's and the other nodes' */
	if (wait_bindings(id, nodes * GPUS, "multicast team after every bind"))
		return 1;
	printf("# node %d: the team holds the bindings of all %d members of %d nodes\n",
	       node, nodes * GPUS, nodes);
	if (barrier("counted"))
		return 1;
	if (node != 0)
		for (g = 0; g < GPUS; g++)
			TRY(cuLogicalEndpointUnbind(id, g, 0, size));
	if (barrier("unbound"))
		return 1;
	if (node == 0 &&
	    wait_bindings(id, GPUS, "node 0's team after the others unbound"))
		return 1;
	if (barrier("checked"))
		return 1;
	TRY(cuLogicalEndpointDestroy(id));
	for (g = 0; g < GPUS; g++)
		TRY(cuMemRelease(mem[g]));
	return 0;
}

static size_t alignment(void)
{
	CUlogicalEndpointProp p = {
		.type = CU_LOGICAL_ENDPOINT_TYPE_MULTICAST,
		.multicast.numDevices = 1, .size = 0, .ipcHandleTypes = FABRIC,
	};
	cuuint64_t align = 0, max = 0;

	cuLogicalEndpointGetLimits(&align, &max, &p);
	return align;
}

static int run(void)
{
	size_t size = alignment();
	CUlogicalEndpointId base;
	int ret;

	if (!size)
		return fail("cuLogicalEndpointGetLimits", CUDA_ERROR_UNKNOWN);
	TRY(cuLogicalEndpointIdReserve(&base, nodes + 1));
	ret = unicast(base, size) || multicast(base + nodes, size);
	TRY(cuLogicalEndpointIdRelease(base, nodes + 1));
	return ret;
}

/* Another channel than the exporter's: the home node refuses. */
static int refuse(void)
{
	CUlogicalEndpointFabricHandle h;
	CUlogicalEndpointId id;
	char name[32];

	snprintf(name, sizeof(name), "le-u%d", (node + 1) % nodes);
	if (get_handle(name, &h))
		return 1;
	TRY(cuLogicalEndpointIdReserve(&id, 1));
	WANT(CUDA_ERROR_NOT_PERMITTED, cuLogicalEndpointImport(id, &h, FABRIC));
	TRY(cuLogicalEndpointIdRelease(id, 1));
	return 0;
}

/* Node 0 of the kill case: one of its two devices joins, then it dies. */
static int half(void)
{
	CUlogicalEndpointProp p = {
		.type = CU_LOGICAL_ENDPOINT_TYPE_MULTICAST,
		.multicast.numDevices = nodes * GPUS, .size = alignment(),
		.ipcHandleTypes = FABRIC,
	};
	CUlogicalEndpointFabricHandle h;
	CUlogicalEndpointId id;

	TRY(cuLogicalEndpointIdReserve(&id, 1));
	TRY(cuLogicalEndpointCreate(id, &p));
	TRY(cuLogicalEndpointAddDevice(id, 0));
	TRY(cuLogicalEndpointExport(&h, id, FABRIC));
	if (put_handle("le-kill", &h))
		return fail("writing the handle", CUDA_ERROR_UNKNOWN);
	/* killed while waiting here (kill.sh touches kill0) */
	wait_file("never");
	return 1;
}

static int hold(void)
{
	CUlogicalEndpointFabricHandle h;
	CUmemGenericAllocationHandle mem;
	size_t size = alignment();
	CUlogicalEndpointId id;
	int g, ready = 0;
	CUresult res;
	double t;

	if (get_handle("le-kill", &h))
		return 1;
	TRY(cuLogicalEndpointIdReserve(&id, 1));
	TRY(cuLogicalEndpointImport(id, &h, FABRIC));
	for (g = 0; g < GPUS; g++)
		TRY(cuLogicalEndpointAddDevice(id, g));
	TRY(memory(0, size, CU_MEM_HANDLE_TYPE_FABRIC, &mem));
	touch("le-kill.waiting");
	t = ms();
	do {
		res = cuLogicalEndpointQuery(id, 1, &ready);
		usleep(10000);
	} while (!res && !ready && ms() - t < 120000);
	if (res != CUDA_ERROR_SYSTEM_NOT_READY)
		return fail(ready ? "an endpoint missing a lost node's device is ready" :
			    "query of an endpoint waiting for a lost node's device", res);
	printf("# node %d: the waiting endpoint's query failed %.0f ms after the wait started, node 0 gone\n",
	       node, ms() - t);
	WANT(CUDA_ERROR_SYSTEM_NOT_READY, cuLogicalEndpointQuery(id, 1, &ready));
	WANT(CUDA_ERROR_SYSTEM_NOT_READY, cuLogicalEndpointAddDevice(id, 0));
	WANT(CUDA_ERROR_INVALID_VALUE,
	     cuLogicalEndpointBindMem(id, 0, 0, mem, 0, size, 0));
	TRY(cuLogicalEndpointDestroy(id));
	TRY(cuLogicalEndpointIdRelease(id, 1));
	TRY(cuMemRelease(mem));
	return 0;
}

int main(int argc, char **argv)
{
	const char *env_node = getenv("CUFAB_NODE_INDEX");
	const char *env_nodes = getenv("CUFAB_NODES");
	static char ctl_path[512];
	CUdevice dev;
	CUcontext ctx;
	char *slash;

	if (argc != 3 || !env_node || !env_nodes) {
		fprintf(stderr, "usage: fabric_le run|refuse|half|hold DIR (under tools/vm/cluster)\n");
		return 2;
	}
	node = atoi(env_node);
	nodes = atoi(env_nodes);
	dir = argv[2];
	self = argv[0];
	/* cufabctl is build/bin/cufabctl, this program build/cluster/fabric_le */
	snprintf(ctl_path, sizeof(ctl_path), "%s", argv[0]);
	slash = strrchr(ctl_path, '/');
	if (slash)
		snprintf(slash, ctl_path + sizeof(ctl_path) - slash,
			 "/../bin/cufabctl");
	else
		snprintf(ctl_path, sizeof(ctl_path), "../bin/cufabctl");
	ctl = ctl_path;
	if (cuInit(0) || cuDeviceGet(&dev, 0) ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
		fprintf(stderr, "fabric_le (node %d): no CUDA device\n", node);
		return 1;
	}
	if (!strcmp(argv[1], "run"))
		return run();
	if (!strcmp(argv[1], "refuse"))
		return refuse();
	if (!strcmp(argv[1], "half"))
		return half();
	if (!strcmp(argv[1], "hold"))
		return hold();
	return 2;
}
