// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_team: a multicast team over the nodes of the test cluster,
 * through the CUDA driver API and cufab's multimem calls only
 * (selftests/cluster/fabric.sh runs it).
 *
 *   fabric_team run DIR    node 0 creates a multicast object of two
 *       devices per node, exportable as FABRIC, and writes its handle to
 *       DIR/mc; the others import it. Every node adds its GPUs 0 and 1
 *       and binds FABRIC memory on each (the bind waits for the whole
 *       team, which forms across the nodes), maps the object, then:
 *       node 0 broadcasts a pattern and every node finds it in both its
 *       replicas; every node fills its replicas with their member
 *       numbers and every node's load-reduce (add) sees the sum over all
 *       members; the last node's reduce (add 1000) reaches every replica.
 *       Before binding, memory with local pages (POSIX_FD only) must
 *       be refused by the FABRIC object (CUDA_ERROR_INVALID_VALUE).
 *   fabric_team pool DIR   a pool whose handle types include FABRIC
 *       takes its chunk from this node's window slice
 *       (debugfs/cufab/window's free bytes shrink by the chunk)
 *   fabric_team fence DIR  the reclaim fence of team replicas: a team of
 *       one device per node (handle DIR/mc-fence); node 0 binds X and Z
 *       (one granule each), every other node binds one memory over both;
 *       a broadcast from the last node reaches X and Z (node 0 reads its
 *       pattern there); node 0 unbinds and frees X while the others still
 *       hold their replica of Z, waits until its window keeps no freed
 *       range (fabric.sh finds X kept in its slice until the others'
 *       rounds let go) and touches DIR/team-fence-freed; the
 *       last node's broadcast over X's range
 *       then skips node 0's member (it reaches X no more), within 5 s
 *   fabric_team cut DIR    the same with node 1's link cut once both
 *       nodes touched DIR/team-cut-ready.N (the barrier after the
 *       broadcast): node 0 frees X once fabric.sh touched
 *       DIR/team-cut-down0 (node 0 cleaned node 1 up), and node 1 must
 *       drop its replica through the window alone, no state reaching it
 *   fabric_team half DIR   node 0: a team of four devices of which it
 *       adds one, handle in DIR/mc-kill; waits to be killed
 *   fabric_team hold DIR   node 1: imports DIR/mc-kill, adds its two
 *       GPUs, touches DIR/mc-kill.waiting and binds: the bind waits for
 *       the missing device of node 0, which is killed, and must fail with
 *       CUDA_ERROR_SYSTEM_NOT_READY; so must a second bind; releases
 *
 * Nodes meet at files in DIR (barriers), as a job launcher's ranks would.
 * Waits give up after 120 s. Exit status 0, 1 on a failure (explained on
 * stderr), 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>
#include <cufab/multimem.h>

#define PROG	"fabric_team"
#define BARRIER	"team"
#include "node.h"

#define GPUS	2
#define WORDS	256

static CUresult grant(CUdeviceptr va, size_t size, int dev)
{
	CUmemAccessDesc acc = {
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};

	return cuMemSetAccess(va, size, &acc, 1);
}

static CUresult map(CUmemGenericAllocationHandle h, size_t size, int dev,
		    CUdeviceptr *va)
{
	CUresult res = cuMemAddressReserve(va, size, 0, 0, 0);

	if (!res)
		res = cuMemMap(*va, size, 0, h, 0);
	if (!res)
		res = grant(*va, size, dev);
	return res;
}

static CUresult unmap(CUdeviceptr va, size_t size)
{
	CUresult res = cuMemUnmap(va, size);

	return res ? res : cuMemAddressFree(va, size);
}

static size_t granularity(void)
{
	CUmulticastObjectProp p = { .numDevices = 1, .size = 2 << 20 };
	size_t g = 0;

	cuMulticastGetGranularity(&g, &p, CU_MULTICAST_GRANULARITY_MINIMUM);
	return g;
}

/* Node 0 creates and writes the handle; the others read and import it. */
static CUresult share(const char *name, unsigned int devices, size_t size,
		      CUmemGenericAllocationHandle *mc)
{
	CUmulticastObjectProp p = {
		.numDevices = devices, .size = size,
		.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	};
	CUmemFabricHandle fh;
	char path[512], tmp[520];
	CUresult res;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (node == 0) {
		res = cuMulticastCreate(mc, &p);
		if (!res)
			res = cuMemExportToShareableHandle(&fh, *mc,
							   CU_MEM_HANDLE_TYPE_FABRIC, 0);
		if (res)
			return res;
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		f = fopen(tmp, "w");
		if (!f || fwrite(&fh, sizeof(fh), 1, f) != 1 || fclose(f) ||
		    rename(tmp, path))
			return CUDA_ERROR_UNKNOWN;
		return CUDA_SUCCESS;
	}
	if (wait_file(name))
		return CUDA_ERROR_UNKNOWN;
	f = fopen(path, "r");
	if (!f || fread(&fh, sizeof(fh), 1, f) != 1) {
		if (f)
			fclose(f);
		return CUDA_ERROR_UNKNOWN;
	}
	fclose(f);
	return cuMemImportFromShareableHandle(mc, &fh, CU_MEM_HANDLE_TYPE_FABRIC);
}

static CUresult replica(int gpu, size_t size, CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = gpu },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	};

	return cuMemCreate(h, size, &prop, 0);
}

/* A replica another node could not reach: memory with local pages. */
static int local_refused(CUmemGenericAllocationHandle mc, size_t size)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};
	CUmemGenericAllocationHandle h;
	CUresult res;

	TRY(cuMemCreate(&h, size, &prop, 0));
	res = cuMulticastBindMem(mc, 0, h, 0, size, 0);
	TRY(cuMemRelease(h));
	if (res != CUDA_ERROR_INVALID_VALUE)
		return fail("binding local pages to a FABRIC object", res);
	return 0;
}

static uint32_t member_no(int n, int gpu)
{
	return n * GPUS + gpu + 1;
}

/* Broadcast from node 0, then load-reduce and reduce on every node. */
static int exercise(CUdeviceptr va, uint32_t *rep[GPUS], size_t size)
{
	uint32_t sum[WORDS], add[WORDS], want = 0;
	unsigned int skipped = 99;
	int g, i;

	if (node == 0) {
		for (i = 0; i < WORDS; i++)
			sum[i] = 0xb0000000u + i;
		TRY(cufabMultimemBroadcast(va, sum, sizeof(sum), &skipped));
		if (skipped)
			return fail("broadcast skipped replicas", CUDA_ERROR_UNKNOWN);
	}
	if (barrier("stored"))
		return 1;
	for (g = 0; g < GPUS; g++)
		for (i = 0; i < WORDS; i++)
			if (rep[g][i] != 0xb0000000u + i) {
				fprintf(stderr, "fabric_team (node %d): gpu %d word %d is 0x%x after node 0's broadcast\n",
					node, g, i, rep[g][i]);
				return 1;
			}
	printf("# node %d: node 0's broadcast reached both replicas of this node\n",
	       node);
	if (barrier("checked"))
		return 1;

	for (g = 0; g < GPUS; g++)
		for (i = 0; i < WORDS; i++)
			rep[g][i] = member_no(node, g);
	for (i = 0; i < nodes * GPUS; i++)
		want += i + 1;
	if (barrier("filled"))
		return 1;
	TRY(cufabMultimemLoadReduce(sum, va, CUFAB_MULTIMEM_U32,
				    CUFAB_MULTIMEM_ADD, WORDS, &skipped));
	for (i = 0; i < WORDS; i++)
		if (sum[i] != want || skipped) {
			fprintf(stderr, "fabric_team (node %d): load-reduce word %d: %u, want %u (skipped %u)\n",
				node, i, sum[i], want, skipped);
			return 1;
		}
	printf("# node %d: load-reduce over %d members of %d nodes: %u\n",
	       node, nodes * GPUS, nodes, want);
	if (barrier("loaded"))
		return 1;
	if (node == nodes - 1) {
		for (i = 0; i < WORDS; i++)
			add[i] = 1000;
		TRY(cufabMultimemReduce(va, CUFAB_MULTIMEM_U32,
					CUFAB_MULTIMEM_ADD, add, WORDS,
					&skipped));
	}
	if (barrier("reduced"))
		return 1;
	for (g = 0; g < GPUS; g++)
		if (rep[g][0] != member_no(node, g) + 1000 ||
		    rep[g][WORDS - 1] != member_no(node, g) + 1000) {
			fprintf(stderr, "fabric_team (node %d): gpu %d holds %u after node %d's reduce, want %u\n",
				node, g, rep[g][0], nodes - 1,
				member_no(node, g) + 1000);
			return 1;
		}
	(void)size;
	return 0;
}

static int run(void)
{
	CUmemGenericAllocationHandle mc, mem[GPUS];
	CUdeviceptr va, rva[GPUS];
	size_t size = granularity();
	uint32_t *rep[GPUS];
	double t0, formed;
	int g, ret;

	TRY(share("mc", nodes * GPUS, size, &mc));
	t0 = ms();
	for (g = 0; g < GPUS; g++)
		TRY(cuMulticastAddDevice(mc, g));
	if (local_refused(mc, size))
		return 1;
	for (g = 0; g < GPUS; g++) {
		TRY(replica(g, size, &mem[g]));
		TRY(map(mem[g], size, g, &rva[g]));
		rep[g] = (uint32_t *)(uintptr_t)rva[g];
		/* the first bind waits for the last device of any node */
		TRY(cuMulticastBindMem(mc, 0, mem[g], 0, size, 0));
		if (!g)
			formed = ms() - t0;
	}
	printf("# node %d: team of %d devices over %d nodes formed %.0f ms after this node's first add\n",
	       node, nodes * GPUS, nodes, formed);
	if (barrier("bound"))
		return 1;
	TRY(map(mc, size, 0, &va));
	ret = exercise(va, rep, size);
	if (barrier("done"))
		ret = 1;
	TRY(unmap(va, size));
	for (g = 0; g < GPUS; g++) {
		TRY(cuMulticastUnbind(mc, g, 0, size));
		TRY(unmap(rva[g], size));
		TRY(cuMemRelease(mem[g]));
	}
	TRY(cuMemRelease(mc));
	return ret;
}

/* Store @value over @bytes of the object from this node: 0 or 1. */
static int fence_broadcast(CUdeviceptr va, size_t bytes, uint32_t value,
			   unsigned int *skipped)
{
	size_t i, n = bytes / sizeof(uint32_t);
	uint32_t *buf = malloc(bytes);
	CUresult res;

	if (!buf)
		return fail("fence: no memory for the pattern", CUDA_ERROR_OUT_OF_MEMORY);
	for (i = 0; i < n; i++)
		buf[i] = value;
	res = cufabMultimemBroadcast(va, buf, bytes, skipped);
	free(buf);
	return res ? fail("cufabMultimemBroadcast", res) : 0;
}

/*
 * Until this node's window keeps no freed range (debugfs window's "kept"
 * lines), 10 s at most: the others let go of their replicas.
 */
static int fence_wait_unkept(void)
{
	char line[512];
	double t = ms();
	int kept;
	FILE *f;

	do {
		kept = 0;
		f = fopen("/sys/kernel/debug/cufab/window", "r");
		if (!f)
			return fail("fence: no debugfs window", CUDA_ERROR_UNKNOWN);
		while (fgets(line, sizeof(line), f))
			kept |= !strncmp(line, "kept ", 5);
		fclose(f);
		if (!kept)
			return 0;
		usleep(20000);
	} while (ms() - t < 10000);
	return fail("fence: a freed range still kept after 10 s", CUDA_ERROR_UNKNOWN);
}

/* The last node's broadcast over X's range skips node 0's member. */
static int fence_unreached(CUdeviceptr va, size_t size)
{
	unsigned int skipped = 0;
	double t = ms();

	do {
		if (fence_broadcast(va, size, 0xdead, &skipped))
			return 1;
		if (skipped == 1)
			break;
		usleep(20000);
	} while (ms() - t < 5000);
	if (skipped != 1) {
		fprintf(stderr, PROG " (node %d): broadcast over node 0's freed binding skipped %u members, want 1\n",
			node, skipped);
		return 1;
	}
	printf("# node %d: node 0's freed binding is out of this node's team %.0f ms after node 0 freed it\n",
	       node, ms() - t);
	return 0;
}

/*
 * The fence cases: the handle is DIR/mc-NAME, the files DIR/team-NAME-*;
 * @cut: node 1's link is cut once every node touched team-NAME-ready.N
 * (fabric.sh), and node 0 frees X only once it cleaned node 1 up
 * (DIR/team-NAME-down0), so that node 1 drops its replica through the
 * window alone.
 */
static int fence(const char *name, int cut)
{
	CUmemGenericAllocationHandle mc, x, z, v;
	size_t size = granularity();
	CUdeviceptr va, xva;
	unsigned int skipped = 99;
	char file[128];
	uint32_t *p;
	int ret = 0;

	snprintf(file, sizeof(file), "mc-%s", name);
	TRY(share(file, nodes, 2 * size, &mc));
	TRY(cuMulticastAddDevice(mc, 0));
	if (node == 0) {
		TRY(replica(0, size, &x));
		TRY(replica(0, size, &z));
		TRY(map(x, size, 0, &xva));
		TRY(cuMulticastBindMem(mc, 0, x, 0, size, 0));
		TRY(cuMulticastBindMem(mc, size, z, 0, size, 0));
	} else {
		TRY(replica(0, 2 * size, &v));
		TRY(cuMulticastBindMem(mc, 0, v, 0, 2 * size, 0));
	}
	TRY(map(mc, 2 * size, 0, &va));
	snprintf(file, sizeof(file), "%s-bound", name);
	if (barrier(file))
		return 1;
	if (node == nodes - 1) {
		if (fence_broadcast(va, 2 * size, 0xfe0ce, &skipped))
			return 1;
		if (skipped)
			return fail("fence: broadcast skipped a member", CUDA_ERROR_UNKNOWN);
	}
	snprintf(file, sizeof(file), "%s-ready", name);
	if (barrier(file))
		return 1;
	if (node == 0) {
		p = (uint32_t *)(uintptr_t)xva;
		if (p[0] != 0xfe0ce || p[size / 4 - 1] != 0xfe0ce) {
			fprintf(stderr, PROG " (node 0): X holds 0x%x after node %d's broadcast\n",
				p[0], nodes - 1);
			return 1;
		}
		printf("# node 0: node %d's broadcast reached X through its replica there\n",
		       nodes - 1);
		snprintf(file, sizeof(file), "team-%s-down0", name);
		if (cut && wait_file(file))
			return 1;
		TRY(cuMulticastUnbind(mc, 0, 0, size));
		TRY(unmap(xva, size));
		TRY(cuMemRelease(x));
		/* the others hold their replica of Z meanwhile */
		if (fence_wait_unkept())
			return 1;
		snprintf(file, sizeof(file), "team-%s-freed", name);
		touch(file);
	} else {
		snprintf(file, sizeof(file), "team-%s-freed", name);
		if (wait_file(file))
			return 1;
	}
	if (node == nodes - 1)
		ret = fence_unreached(va, size);
	snprintf(file, sizeof(file), "team-%s-unreached", name);
	if (node == nodes - 1)
		touch(file);
	else if (wait_file(file))
		ret = 1;
	TRY(unmap(va, 2 * size));
	if (node == 0) {
		TRY(cuMulticastUnbind(mc, 0, size, size));
		TRY(cuMemRelease(z));
	} else {
		TRY(cuMulticastUnbind(mc, 0, 0, 2 * size));
		TRY(cuMemRelease(v));
	}
	TRY(cuMemRelease(mc));
	return ret;
}

/* The free bytes of this node's window slice, -1 when unknown. */
static long long window_free(void)
{
	char line[512], *p;
	long long n = -1;
	FILE *f = fopen("/sys/kernel/debug/cufab/window", "r");

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		p = strstr(line, " free ");
		if (p)
			n = strtoll(p + 6, NULL, 10);
	}
	fclose(f);
	return n;
}

static int pool(void)
{
	CUmemPoolProps props = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
	};
	size_t size = 2 << 20;
	long long before, after;
	CUmemoryPool mp;
	CUdeviceptr p;

	before = window_free();
	TRY(cuMemPoolCreate(&mp, &props));
	TRY(cuMemAllocFromPoolAsync(&p, size, mp, NULL));
	TRY(cuStreamSynchronize(NULL));
	after = window_free();
	printf("# node %d: a FABRIC pool's chunk took %lld bytes of the window slice\n",
	       node, before - after);
	TRY(cuMemFreeAsync(p, NULL));
	TRY(cuStreamSynchronize(NULL));
	TRY(cuMemPoolDestroy(mp));
	if (before < 0 || before - after < (long long)size)
		return fail("FABRIC pool chunk outside the window", CUDA_ERROR_UNKNOWN);
	return 0;
}

/* Node 0 of the kill case: one of its two devices joins, then it dies. */
static int half(void)
{
	CUmemGenericAllocationHandle mc;

	TRY(share("mc-kill", nodes * GPUS, granularity(), &mc));
	TRY(cuMulticastAddDevice(mc, 0));
	/* killed while waiting here (fabric.sh touches kill0) */
	wait_file("never");
	return 1;
}

static int hold(void)
{
	CUmemGenericAllocationHandle mc, mem;
	size_t size = granularity();
	CUresult res;
	double t;
	int g;

	TRY(share("mc-kill", nodes * GPUS, size, &mc));
	for (g = 0; g < GPUS; g++)
		TRY(cuMulticastAddDevice(mc, g));
	TRY(replica(0, size, &mem));
	touch("mc-kill.waiting");
	t = ms();
	res = cuMulticastBindMem(mc, 0, mem, 0, size, 0);
	if (res != CUDA_ERROR_SYSTEM_NOT_READY)
		return fail("bind waiting for a lost node's device", res);
	printf("# node %d: the waiting bind failed %.0f ms after it started, node 0 gone\n",
	       node, ms() - t);
	res = cuMulticastBindMem(mc, 0, mem, 0, size, 0);
	if (res != CUDA_ERROR_SYSTEM_NOT_READY)
		return fail("bind to a team broken by a lost node", res);
	TRY(cuMemRelease(mem));
	TRY(cuMemRelease(mc));
	return 0;
}

int main(int argc, char **argv)
{
	const char *env_node = getenv("CUFAB_NODE_INDEX");
	const char *env_nodes = getenv("CUFAB_NODES");
	CUdevice dev;
	CUcontext ctx;

	if (argc != 3 || !env_node || !env_nodes) {
		fprintf(stderr, "usage: fabric_team run|pool|fence|cut|half|hold DIR (under tools/vm/cluster)\n");
		return 2;
	}
	node = atoi(env_node);
	nodes = atoi(env_nodes);
	dir = argv[2];
	if (cuInit(0) || cuDeviceGet(&dev, 0) ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
		fprintf(stderr, "fabric_team (node %d): no CUDA device\n", node);
		return 1;
	}
	if (!strcmp(argv[1], "run"))
		return run();
	if (!strcmp(argv[1], "pool"))
		return pool();
	if (!strcmp(argv[1], "fence"))
		return fence("fence", 0);
	if (!strcmp(argv[1], "cut"))
		return fence("cut", 1);
	if (!strcmp(argv[1], "half"))
		return half();
	if (!strcmp(argv[1], "hold"))
		return hold();
	return 2;
}
