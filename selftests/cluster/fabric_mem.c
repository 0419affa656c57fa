// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_mem: FABRIC memory across the nodes of the test cluster, through
 * the CUDA driver API only (selftests/cluster/fabric.sh runs it).
 *
 *   fabric_mem export FILE SIZE    cuMemCreate SIZE bytes on GPU 0 with
 *       CU_MEM_HANDLE_TYPE_FABRIC, fill them with this node's pattern,
 *       write the handle to FILE, wait for FILE.checked (an importer on
 *       another node wrote its pattern into the second half), check it
 *   fabric_mem offer FILE SIZE     the same, for an importer that is to
 *       fail: waits for FILE.checked, checks nothing
 *   fabric_mem import FILE SIZE [ERROR]   import FILE's handle, map it,
 *       check the exporter's pattern in the first half, write this node's
 *       pattern into the second half, time a copy out of it against a
 *       copy between two local allocations, touch FILE.checked; with
 *       ERROR (a CUresult name), the import must fail with exactly that
 *   fabric_mem lend FILE SIZE      the exporter's side of hold: export,
 *       wait for FILE.mapped, then unmap and release its own handle, so
 *       that only the importer's reference keeps the memory
 *   fabric_mem hold FILE SIZE      import and map, touch FILE.mapped,
 *       wait for FILE.gone (the exporting node died, was cut off, or ended
 *       its exports), then check that the import was revoked: a new import
 *       is CUDA_ERROR_SYSTEM_NOT_READY, a CPU load of the mapping SIGBUS,
 *       cuMemcpyDtoD out of it, cuMemMap and cuMemExportToShareableHandle
 *       of it CUDA_ERROR_ILLEGAL_STATE; unmap and release succeed
 *
 * Patterns are derived from the writer's node (CUFAB_NODE_INDEX), so data
 * of the wrong node or a stale run cannot pass. Waits give up after 120 s.
 * Exit status 0, 1 on a failure (explained on stderr), 2 usage.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>

static int node;

static int fail(const char *what, CUresult res)
{
	const char *name = "?";

	cuGetErrorName(res, &name);
	fprintf(stderr, "fabric_mem (node %d): %s: %s\n", node, what, name);
	return 1;
}

#define TRY(call) do { CUresult r_ = (call); if (r_) return fail(#call, r_); } while (0)

static uint64_t word(int writer, size_t i)
{
	return ((uint64_t)(writer + 1) * 0x9e3779b97f4a7c15ull) ^ i;
}

static void fill(uint64_t *p, size_t n, int writer)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = word(writer, i);
}

/* -1 when every word is @writer's, else the first wrong index. */
static long check(const uint64_t *p, size_t n, int writer)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != word(writer, i))
			return (long)i;
	return -1;
}

static int wait_file(const char *path)
{
	int i;

	for (i = 0; i < 1200; i++) {
		if (!access(path, F_OK))
			return 0;
		usleep(100000);
	}
	fprintf(stderr, "fabric_mem (node %d): %s never came\n", node, path);
	return -1;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

static CUresult create(size_t size, CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	};

	return cuMemCreate(h, size, &prop, 0);
}

static CUresult map(CUmemGenericAllocationHandle h, size_t size,
		    CUdeviceptr *va)
{
	CUmemAccessDesc acc = {
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUresult res;

	res = cuMemAddressReserve(va, size, 0, 0, 0);
	if (!res)
		res = cuMemMap(*va, size, 0, h, 0);
	if (!res)
		res = cuMemSetAccess(*va, size, &acc, 1);
	return res;
}

static CUresult unmap(CUdeviceptr va, size_t size)
{
	CUresult res = cuMemUnmap(va, size);

	return res ? res : cuMemAddressFree(va, size);
}

/*
 * FABRIC memory of @size bytes, mapped at *@va and filled with this node's
 * pattern, its handle written to @file for the other node (atomically).
 */
static int publish(const char *file, size_t size,
		   CUmemGenericAllocationHandle *h, CUdeviceptr *va)
{
	CUmemFabricHandle fh;
	char tmp[512];
	FILE *f;

	TRY(create(size, h));
	TRY(map(*h, size, va));
	fill((uint64_t *)*va, size / 8, node);
	TRY(cuMemExportToShareableHandle(&fh, *h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f || fwrite(&fh, sizeof(fh), 1, f) != 1 || fclose(f) ||
	    rename(tmp, file)) {
		fprintf(stderr, "fabric_mem: cannot write %s: %s\n", file,
			strerror(errno));
		return 1;
	}
	return 0;
}

static int do_export(const char *file, size_t size, bool offer)
{
	CUmemGenericAllocationHandle h;
	char path[512];
	CUdeviceptr va;

	if (publish(file, size, &h, &va))
		return 1;
	snprintf(path, sizeof(path), "%s.checked", file);
	if (wait_file(path))
		return 1;
	if (offer)
		return 0;
	/* the importer's node wrote it: any node but this one */
	for (int w = 0; w < 64; w++) {
		if (w != node && check((uint64_t *)(va + size / 2), size / 16, w) < 0) {
			printf("# node %d sees node %d's writes in its own FABRIC memory\n",
			       node, w);
			TRY(unmap(va, size));
			TRY(cuMemRelease(h));
			return 0;
		}
	}
	fprintf(stderr, "fabric_mem (node %d): second half of %s holds no other node's pattern\n",
		node, file);
	return 1;
}

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* MB/s of @reps copies of @size bytes from @src to @dst. */
static double bandwidth(CUdeviceptr dst, CUdeviceptr src, size_t size,
			int reps, CUresult *res)
{
	double t = secs();
	int i;

	for (i = 0; i < reps && !*res; i++)
		*res = cuMemcpyDtoD(dst, src, size);
	return (double)size * reps / (secs() - t) / 1e6;
}

static int copies(CUdeviceptr remote, size_t size)
{
	CUdeviceptr a, b;
	CUresult res = CUDA_SUCCESS;
	double from_remote, local;
	void *buf;

	TRY(cuMemAlloc(&a, size));
	TRY(cuMemAlloc(&b, size));
	/* fault everything in first: the figures are of copies, not faults */
	TRY(cuMemcpyDtoD(a, remote, size));
	TRY(cuMemcpyDtoD(b, a, size));
	from_remote = bandwidth(a, remote, size, 4, &res);
	local = bandwidth(b, a, size, 4, &res);
	if (res)
		return fail("cuMemcpyDtoD", res);
	buf = malloc(size);
	if (!buf)
		return 1;
	TRY(cuMemcpyDtoH(buf, a, size));
	if (memcmp(buf, (void *)remote, size)) {
		fprintf(stderr, "fabric_mem (node %d): the copy out of the import differs\n",
			node);
		return 1;
	}
	free(buf);
	printf("# copy of %zu KiB: from another node's FABRIC memory %.0f MB/s, between local allocations %.0f MB/s\n",
	       size >> 10, from_remote, local);
	TRY(cuMemFree(a));
	TRY(cuMemFree(b));
	return 0;
}

static int import(const char *file, CUmemGenericAllocationHandle *h,
		  CUresult *res)
{
	CUmemFabricHandle fh;
	FILE *f;

	if (wait_file(file))
		return 1;
	f = fopen(file, "r");
	if (!f || fread(&fh, sizeof(fh), 1, f) != 1) {
		fprintf(stderr, "fabric_mem: cannot read %s\n", file);
		return 1;
	}
	fclose(f);
	*res = cuMemImportFromShareableHandle(h, &fh, CU_MEM_HANDLE_TYPE_FABRIC);
	return 0;
}

/* The exporter's node: the one whose pattern the first half holds. */
static int writer_of(const uint64_t *p, size_t n)
{
	for (int w = 0; w < 64; w++)
		if (check(p, n, w) < 0)
			return w;
	return -1;
}

static int do_import(const char *file, size_t size, const char *expect)
{
	CUmemGenericAllocationHandle h;
	CUresult res;
	const char *name = "?";
	char path[512];
	CUdeviceptr va;
	int w;

	if (import(file, &h, &res))
		return 1;
	cuGetErrorName(res, &name);
	if (expect) {
		if (strcmp(name, expect)) {
			fprintf(stderr, "fabric_mem (node %d): import of %s gave %s, expected %s\n",
				node, file, name, expect);
			return 1;
		}
		printf("# node %d: import of %s: %s, as expected\n", node, file, name);
		return 0;
	}
	if (res)
		return fail("cuMemImportFromShareableHandle", res);
	TRY(map(h, size, &va));
	w = writer_of((uint64_t *)va, size / 16);
	if (w < 0 || w == node) {
		fprintf(stderr, "fabric_mem (node %d): the first half of %s is not another node's pattern\n",
			node, file);
		return 1;
	}
	printf("# node %d reads node %d's FABRIC memory\n", node, w);
	if (copies(va, size))
		return 1;
	fill((uint64_t *)(va + size / 2), size / 16, node);
	TRY(unmap(va, size));
	TRY(cuMemRelease(h));
	snprintf(path, sizeof(path), "%s.checked", file);
	touch(path);
	return 0;
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* Does a CPU load of @p end in SIGBUS? */
static bool load_faults(const volatile uint64_t *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	bool bus = true;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(bus_jmp, 1)) {
		(void)*p;
		bus = false;
	}
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

static int expect(const char *what, CUresult res, CUresult want)
{
	const char *name = "?", *wname = "?";

	if (res == want)
		return 0;
	cuGetErrorName(res, &name);
	cuGetErrorName(want, &wname);
	fprintf(stderr, "fabric_mem (node %d): %s on a revoked import gave %s, expected %s\n",
		node, what, name, wname);
	return 1;
}

/* Every call on the revoked import @h, mapped at @va. */
static int revoked_checks(CUmemGenericAllocationHandle h, CUdeviceptr va,
			  size_t size)
{
	CUmemFabricHandle fh;
	CUdeviceptr local, va2;
	int bad = 0;

	if (!load_faults((const uint64_t *)va)) {
		fprintf(stderr, "fabric_mem (node %d): a CPU load of the revoked import did not fault\n",
			node);
		bad = 1;
	}
	TRY(cuMemAlloc(&local, size));
	bad |= expect("cuMemcpyDtoD", cuMemcpyDtoD(local, va, size),
		      CUDA_ERROR_ILLEGAL_STATE);
	TRY(cuMemFree(local));
	TRY(cuMemAddressReserve(&va2, size, 0, 0, 0));
	bad |= expect("cuMemMap", cuMemMap(va2, size, 0, h, 0),
		      CUDA_ERROR_ILLEGAL_STATE);
	TRY(cuMemAddressFree(va2, size));
	bad |= expect("cuMemExportToShareableHandle",
		      cuMemExportToShareableHandle(&fh, h,
						   CU_MEM_HANDLE_TYPE_FABRIC, 0),
		      CUDA_ERROR_ILLEGAL_STATE);
	return bad;
}

/* The exporter's side of do_hold(): only the importer keeps the memory. */
static int do_lend(const char *file, size_t size)
{
	CUmemGenericAllocationHandle h;
	char path[512];
	CUdeviceptr va;

	if (publish(file, size, &h, &va))
		return 1;
	snprintf(path, sizeof(path), "%s.mapped", file);
	if (wait_file(path))
		return 1;
	TRY(unmap(va, size));
	TRY(cuMemRelease(h));
	return 0;
}

/*
 * The exporting node dies, is cut off or ends its exports while this node
 * maps its memory.
 */
static int do_hold(const char *file, size_t size)
{
	CUmemGenericAllocationHandle h, again;
	CUresult res;
	const char *name = "?";
	char path[512];
	CUdeviceptr va;

	if (import(file, &h, &res))
		return 1;
	if (res)
		return fail("cuMemImportFromShareableHandle", res);
	TRY(map(h, size, &va));
	if (writer_of((uint64_t *)va, size / 16) < 0)
		return fail("reading the import: nobody's pattern", CUDA_ERROR_UNKNOWN);
	snprintf(path, sizeof(path), "%s.mapped", file);
	touch(path);
	snprintf(path, sizeof(path), "%s.gone", file);
	if (wait_file(path))
		return 1;
	if (import(file, &again, &res))
		return 1;
	cuGetErrorName(res, &name);
	if (res != CUDA_ERROR_SYSTEM_NOT_READY) {
		fprintf(stderr, "fabric_mem (node %d): import from a dead node gave %s, expected CUDA_ERROR_SYSTEM_NOT_READY\n",
			node, name);
		return 1;
	}
	if (revoked_checks(h, va, size))
		return 1;
	TRY(unmap(va, size));
	TRY(cuMemRelease(h));
	printf("# node %d: exporter gone: new import %s, the import revoked (SIGBUS, CUDA_ERROR_ILLEGAL_STATE), unmap and release succeeded\n",
	       node, name);
	return 0;
}

int main(int argc, char **argv)
{
	CUcontext ctx;
	size_t size;

	if (argc < 4 || argc > 5)
		goto usage;
	node = atoi(getenv("CUFAB_NODE_INDEX") ?: "0");
	size = strtoull(argv[3], NULL, 0);
	if (!size || size % (4 << 20))
		goto usage;
	TRY(cuInit(0));
	TRY(cuDevicePrimaryCtxRetain(&ctx, 0));
	TRY(cuCtxSetCurrent(ctx));
	if (!strcmp(argv[1], "export") && argc == 4)
		return do_export(argv[2], size, false);
	if (!strcmp(argv[1], "offer") && argc == 4)
		return do_export(argv[2], size, true);
	if (!strcmp(argv[1], "import"))
		return do_import(argv[2], size, argc == 5 ? argv[4] : NULL);
	if (!strcmp(argv[1], "hold") && argc == 4)
		return do_hold(argv[2], size);
	if (!strcmp(argv[1], "lend") && argc == 4)
		return do_lend(argv[2], size);
usage:
	fprintf(stderr, "usage: fabric_mem export|offer|import|hold|lend FILE SIZE [ERROR]\n"
		"       (SIZE a multiple of 4 MiB)\n");
	return 2;
}
