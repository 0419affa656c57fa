// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-bench: cost of driver API calls relative to the cheapest possible
 * trip into the kernel (CUFAB_IOCTL_NOOP), printed as JSON.
 *
 *   cufab-bench [-n iterations] [-r repetitions] [-o file]
 *
 * Each row is timed over n calls, r times, in bursts of 8 calls; the
 * figures are the median, 10th and 90th percentile of the per-call time
 * of each burst. A burst of no-op ioctls runs before each burst of a
 * row, and the row's ratio is the median of its calls over the median of
 * those no-ops (noop_median_ns): both are taken under the same host load,
 * and a preempted burst does not move a median. Run it in
 * the VM (make bench-run): on TCG absolute numbers are slow, ratios are
 * what matter.
 *
 * A row is one line in rows[] and a step function; later API groups add
 * theirs the same way. A step may make more than one API call (a create
 * and its destroy): the row says how many, and the JSON gives the ratio
 * per call next to the row's. Rows of one call each time the calls of
 * such pairs alone (ctl_bench.c, le_bench.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>
#include <cufab/multimem.h>
#include <linux/cufab.h>

#include "bench.h"
#include "le_bench.h"
#include "ctl_bench.h"
#include "copy_bench.h"
#include "graph_bench.h"
#include "stream_bench.h"
#include "managed_bench.h"
#include "streammem_bench.h"
#include "ipc_bench.h"
#include "nvml_bench.h"
#include "rt_bench.h"

struct bench {
	int fd;			/* a raw client, for the no-op ioctl */
	CUcontext ctx;		/* created by main, current while rows run */
	size_t mem_size;	/* memory rows: 2 MiB (a granularity multiple) */
	CUmemGenericAllocationHandle mem;	/* for the map row */
	CUdeviceptr va;		/* a reservation of mem_size, for the map row */
	CUdeviceptr fixed;	/* an address outside the VA arena, */
	void *probe;		/* kept mapped until its row runs */
	CUmemGenericAllocationHandle mc1;	/* team of GPU 0, bind row */
	int mc_ok;		/* multicast works: its rows run */
	int have;		/* NEED_* this run has */
};

struct stats {
	double median, p10, p90;
};

/* One call of the measured operation; non-zero stops the benchmark. */
typedef int (*bench_step)(struct bench *b);

/* Untimed work around each burst of @burst steps; non-zero stops. */
typedef int (*bench_burst)(struct bench *b, long burst);

struct row {
	const char *name;
	bench_step step;
	int divisor;		/* slow rows run n / divisor calls */
	int needs;		/* NEED_*: skipped without */
	int calls;		/* API calls per step; 0 means 1 */
	bench_burst prep;	/* before each burst, or NULL */
	bench_burst undo;	/* after each burst, or NULL */
};

/* What a row needs of the node and the build. */
#define NEED_MC		1	/* multicast */
#define NEED_RT		2	/* libcufabrt */

static int step_noop(struct bench *b)
{
	struct cufab_noop arg = { .size = sizeof(arg) };

	return ioctl(b->fd, CUFAB_IOCTL_NOOP, &arg);
}

static int step_attribute(struct bench *b)
{
	int v;

	return cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0);
}

static int step_get_current(struct bench *b)
{
	CUcontext c;

	return cuCtxGetCurrent(&c);
}

static int step_push_pop(struct bench *b)
{
	return cuCtxPushCurrent(b->ctx) || cuCtxPopCurrent(NULL);
}

static int step_create_destroy(struct bench *b)
{
	CUcontext c;

	return cuCtxCreate(&c, NULL, 0, 0) || cuCtxDestroy(c);
}

/* Memory rows (cuMemCreate and VMM), each 2 MiB on GPU 0. */
static CUmemAllocationProp mem_prop(void)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 0;
	return p;
}

static int step_mem_create_release(struct bench *b)
{
	CUmemAllocationProp p = mem_prop();
	CUmemGenericAllocationHandle h;

	return cuMemCreate(&h, b->mem_size, &p, 0) || cuMemRelease(h);
}

static int step_va_reserve_free(struct bench *b)
{
	CUdeviceptr va;

	return cuMemAddressReserve(&va, b->mem_size, 0, 0, 0) ||
	       cuMemAddressFree(va, b->mem_size);
}

/*
 * A fixed address outside the VA arena gets a VMA of its own: the
 * vm_mmap()/vm_munmap() every reservation cost before the arena.
 */
static int step_va_reserve_free_fixed(struct bench *b)
{
	CUdeviceptr va;

	if (b->probe) {
		munmap(b->probe, 2 * b->mem_size);
		b->probe = NULL;
	}
	return cuMemAddressReserve(&va, b->mem_size, 0, b->fixed, 0) ||
	       va != b->fixed || cuMemAddressFree(va, b->mem_size);
}

static int step_map_access_unmap(struct bench *b)
{
	CUmemAccessDesc d = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};

	return cuMemMap(b->va, b->mem_size, 0, b->mem, 0) ||
	       cuMemSetAccess(b->va, b->mem_size, &d, 1) ||
	       cuMemUnmap(b->va, b->mem_size);
}

/* Multicast rows: a 2 MiB object, a team of one (GPU 0) for binds. */
static CUmulticastObjectProp mc_prop(unsigned int n, size_t size)
{
	CUmulticastObjectProp p;

	memset(&p, 0, sizeof(p));
	p.numDevices = n;
	p.size = size;
	return p;
}

static int step_mc_create_release(struct bench *b)
{
	CUmulticastObjectProp p = mc_prop(1, b->mem_size);
	CUmemGenericAllocationHandle h;

	return cuMulticastCreate(&h, &p) || cuMemRelease(h);
}

static int step_mc_create_add_release(struct bench *b)
{
	CUmulticastObjectProp p = mc_prop(1, b->mem_size);
	CUmemGenericAllocationHandle h;

	return cuMulticastCreate(&h, &p) || cuMulticastAddDevice(h, 0) ||
	       cuMemRelease(h);
}

static int step_mc_bind_unbind(struct bench *b)
{
	return cuMulticastBindMem(b->mc1, 0, b->mem, 0, b->mem_size, 0) ||
	       cuMulticastUnbind(b->mc1, 0, 0, b->mem_size);
}

/*
 * The stream-ordered allocator from a warm pool (the default pool of
 * GPU 0, which main() warms with one pair of each size), against glibc's
 * malloc+free of the same size in the same process.
 */
static int async_pair(size_t size)
{
	CUdeviceptr p;

	return cuMemAllocAsync(&p, size, NULL) || cuMemFreeAsync(p, NULL);
}

static int step_async_4k(struct bench *b)
{
	return async_pair(4096);
}

static int step_async_1m(struct bench *b)
{
	return async_pair(1 << 20);
}

static int malloc_pair(size_t size)
{
	/* volatile: the compiler may not drop the pair */
	void *volatile p = malloc(size);

	if (!p)
		return -1;
	free(p);
	return 0;
}

static int step_malloc_4k(struct bench *b)
{
	return malloc_pair(4096);
}

static int step_malloc_1m(struct bench *b)
{
	return malloc_pair(1 << 20);
}

static int step_pool_create_destroy(struct bench *b)
{
	CUmemPoolProps p;
	CUmemoryPool pool;

	memset(&p, 0, sizeof(p));
	p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	return cuMemPoolCreate(&pool, &p) || cuMemPoolDestroy(pool);
}

static void mc_setup(struct bench *b)
{
	CUmulticastObjectProp p = mc_prop(1, b->mem_size);

	b->mc_ok = !cuMulticastCreate(&b->mc1, &p) &&
		   !cuMulticastAddDevice(b->mc1, 0);
}

static int mem_setup(struct bench *b)
{
	CUmemAllocationProp p = mem_prop();
	size_t g;

	if (cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM))
		return -1;
	b->mem_size = (2 << 20) > g ? 2 << 20 : g;
	if (cuMemCreate(&b->mem, b->mem_size, &p, 0) ||
	    cuMemAddressReserve(&b->va, b->mem_size, 0, 0, 0))
		return -1;
	/* the arena exists now: a range the kernel placed is outside it */
	b->probe = mmap(NULL, 2 * b->mem_size, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->probe == MAP_FAILED)
		return -1;
	b->fixed = ((uintptr_t)b->probe + b->mem_size - 1) &
		   ~(b->mem_size - 1);
	return 0;
}

static void mem_teardown(struct bench *b)
{
	cuMemAddressFree(b->va, b->mem_size);
	cuMemRelease(b->mem);
	if (b->probe)
		munmap(b->probe, 2 * b->mem_size);
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct row rows[] = {
	{ "cuDeviceGetAttribute", step_attribute, 1 },
	{ "cuCtxGetCurrent", step_get_current, 1 },
	{ "cuCtxPushCurrent+cuCtxPopCurrent", step_push_pop, 1, 0, 2 },
	{ "cuCtxCreate+cuCtxDestroy", step_create_destroy, 10, 0, 2 },
	/* one call per step (ctl_bench.c) */
	{ "cuCtxCreate", ctl_step_ctx_create, 10, 0, 1, NULL,
	  ctl_undo_ctx_create },
	{ "cuCtxDestroy", ctl_step_ctx_destroy, 10, 0, 1,
	  ctl_prep_ctx_destroy },
	{ "cuMemCreate+cuMemRelease 2MiB", step_mem_create_release, 10, 0, 2 },
	{ "cuMemCreate 2MiB", ctl_step_mem_create, 10, 0, 1, NULL,
	  ctl_undo_release },
	{ "cuMemRelease 2MiB", ctl_step_release, 10, 0, 1,
	  ctl_prep_mem_release },
	{ "cuMemAddressReserve+cuMemAddressFree 2MiB", step_va_reserve_free, 10,
	  0, 2 },
	{ "cuMemAddressReserve+cuMemAddressFree 2MiB fixed address outside the arena",
	  step_va_reserve_free_fixed, 10, 0, 2 },
	{ "cuMemMap+cuMemSetAccess+cuMemUnmap 2MiB", step_map_access_unmap, 10,
	  0, 3 },
	/* each logical endpoint row undoes the one before (le_bench.c) */
	{ "cuLogicalEndpointIdReserve 1", le_step_reserve, 10 },
	{ "cuLogicalEndpointIdRelease 1", le_step_release, 10 },
	{ "cuLogicalEndpointCreate unicast 2MiB", le_step_create, 10 },
	{ "cuLogicalEndpointDestroy", le_step_destroy, 10 },
	{ "cuLogicalEndpointQuery 1", le_step_query, 1 },
	{ "cuLogicalEndpointBindMem 2MiB", le_step_bind, 10 },
	{ "cuLogicalEndpointUnbind 2MiB", le_step_unbind, 10 },
	{ "cuMulticastCreate+cuMemRelease 2MiB", step_mc_create_release, 10, 1,
	  2 },
	{ "cuMulticastCreate+cuMulticastAddDevice+cuMemRelease",
	  step_mc_create_add_release, 10, 1, 3 },
	{ "cuMulticastBindMem+cuMulticastUnbind 2MiB", step_mc_bind_unbind, 10,
	  1, 2 },
	{ "cuMulticastCreate 2MiB", ctl_step_mc_create, 10, 1, 1, NULL,
	  ctl_undo_release },
	{ "cuMemRelease multicast 2MiB", ctl_step_release, 10, 1, 1,
	  ctl_prep_mc_release },
	{ "cuMulticastAddDevice", ctl_step_mc_add, 10, 1, 1,
	  ctl_prep_mc_release, ctl_undo_release },
	{ "cuMulticastBindMem 2MiB", ctl_step_mc_bind, 10, 1, 1, NULL,
	  ctl_undo_mc_bind },
	{ "cuMulticastUnbind 2MiB", ctl_step_mc_unbind, 10, 1, 1,
	  ctl_prep_mc_unbind },
	/* no syscall: finished work, read from the mapped completion slots */
	{ "cuStreamQuery done", sb_step_stream_query, 1 },
	{ "cuEventQuery done", sb_step_event_query, 1 },
	{ "cuStreamSynchronize idle", sb_step_stream_sync_idle, 1 },
	{ "cuStreamCreate+cuStreamDestroy", sb_step_create_destroy, 10, 0, 2 },
	{ "cuEventRecord+cuEventSynchronize", sb_step_record_sync, 10, 0, 2 },
	{ "cuMemAllocAsync+cuMemFreeAsync 4KiB warm", step_async_4k, 1, 0, 2 },
	{ "malloc+free 4KiB (glibc)", step_malloc_4k, 1 },
	{ "cuMemAllocAsync+cuMemFreeAsync 1MiB warm", step_async_1m, 1, 0, 2 },
	{ "malloc+free 1MiB (glibc)", step_malloc_1m, 1 },
	{ "cuMemPoolCreate+cuMemPoolDestroy", step_pool_create_destroy, 10, 0, 2 },
	/* page to page in the kernel, no bounce buffer (copy_bench.c) */
	{ "cuMemcpyDtoD 4KiB", cb_step_dtod_4k, 1 },
	{ "cuMemcpyHtoD 4KiB", cb_step_htod_4k, 1 },
	{ "cuMemsetD8 4KiB", cb_step_memset_4k, 1 },
	{ "cuStreamAttachMemAsync SINGLE idle stream", mb_step_attach, 10 },
	{ "cuStreamAttachMemAsync SINGLE+cuStreamSynchronize", mb_step_attach_sync, 10, 0, 2 },
	/* stream memory operations (streammem_bench.c) */
	{ "cuStreamWriteValue32 enqueue", smb_step_write_value, 1, 0, 1, NULL,
	  smb_undo_sync },
	/* CUDA IPC from another process (ipc_bench.c) */
	{ "cuIpcOpenMemHandle+cuIpcCloseMemHandle", ipcb_step_open_close, 10, 0, 2 },
	/* NVML: one netlink request each (nvml_bench.c) */
	{ "nvmlDeviceGetHandleByIndex", nvb_step_handle, 1 },
	{ "nvmlDeviceGetMemoryInfo", nvb_step_memory_info, 1 },
	{ "nvmlDeviceGetGpuFabricInfo", nvb_step_fabric_info, 1 },
	/* the runtime beside the driver calls serving it (rt_bench.c) */
	{ "cuMemAlloc+cuMemFree 2MiB", rtb_step_cu_alloc_free, 10, 0, 2 },
	{ "cudaMalloc+cudaFree 2MiB", rtb_step_rt_malloc_free, 10, NEED_RT, 2 },
	{ "cuMemcpyAsync DtoD 4KiB+cuStreamSynchronize", rtb_step_cu_copy_sync, 1, 0, 2 },
	{ "cudaMemcpyAsync DtoD 4KiB+cudaStreamSynchronize", rtb_step_rt_copy_sync, 1,
	  NEED_RT, 2 },
	{ "cuMemAllocAsync+cuMemFreeAsync 4KiB stream", rtb_step_cu_async_pair, 1, 0, 2 },
	{ "cudaMallocAsync+cudaFreeAsync 4KiB stream", rtb_step_rt_async_pair, 1,
	  NEED_RT, 2 },
};

/*
 * Runtime row and the row it is measured against, "runtime_overhead": the
 * driver calls serving it (NVIDIA's runtime: about 1.1), and for the
 * stream-ordered allocator also glibc's malloc+free of the same size. The
 * ratio is of the two rows' ratios to the no-op, as every figure here: the
 * rows run one after the other, and a host whose load changes in between
 * would move a ratio of their medians by as much.
 */
static const char *const rt_pairs[][2] = {
	{ "cudaMalloc+cudaFree 2MiB", "cuMemAlloc+cuMemFree 2MiB" },
	{ "cudaMemcpyAsync DtoD 4KiB+cudaStreamSynchronize",
	  "cuMemcpyAsync DtoD 4KiB+cuStreamSynchronize" },
	{ "cudaMallocAsync+cudaFreeAsync 4KiB stream",
	  "cuMemAllocAsync+cuMemFreeAsync 4KiB stream" },
	{ "cudaMallocAsync+cudaFreeAsync 4KiB stream", "malloc+free 4KiB (glibc)" },
};

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double percentile(const double *v, long n, int pct)
{
	long i = (pct * n + 99) / 100 - 1;

	return v[i < 0 ? 0 : i];
}

double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return percentile(v, n, 50);
}

/* A mapped, accessible view of h; 0 on failure. */
static CUdeviceptr map_view(CUmemGenericAllocationHandle h, size_t size)
{
	CUmemAccessDesc d = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	if (cuMemAddressReserve(&va, size, 0, 0, 0))
		return 0;
	if (cuMemMap(va, size, 0, h, 0) || cuMemSetAccess(va, size, &d, 1)) {
		cuMemAddressFree(va, size);
		return 0;
	}
	return va;
}

static void unmap_view(CUdeviceptr va, size_t size)
{
	cuMemUnmap(va, size);
	cuMemAddressFree(va, size);
}

/* ns per page to write one byte in each page of [va, va + size). */
static double touch_pages(CUdeviceptr va, size_t size, long page)
{
	volatile unsigned char *p = (volatile unsigned char *)va;
	double t = now_ns();
	size_t off;

	for (off = 0; off < size; off += page)
		p[off] = 1;
	return (now_ns() - t) / (size / page);
}

/*
 * First touch of 2 MiB of anonymous memory with transparent huge pages
 * asked for (MADV_HUGEPAGE): the yardstick of device memory's first touch.
 */
static double touch_anon_thp(size_t size, long page)
{
	size_t span = 2 * size;
	char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t p;
	double t;

	if (raw == MAP_FAILED)
		return -1;
	p = ((uintptr_t)raw + size - 1) & ~(uintptr_t)(size - 1);
	madvise((void *)p, size, MADV_HUGEPAGE);
	t = touch_pages(p, size, page);
	munmap(raw, span);
	return t;
}

/*
 * CPU write cost per page of a 2 MiB mapping: first touch (the page is
 * allocated, zeroed and mapped), a fresh mapping of pages that another
 * mapping already populated (the fault only maps), resident pages, and
 * the first touch of anonymous THP memory to compare with.
 */
static int measure_touch(struct bench *b, int reps, double med[4])
{
	CUmemAllocationProp p = mem_prop();
	long page = sysconf(_SC_PAGESIZE);
	double *v = calloc(4 * reps, sizeof(*v));
	CUmemGenericAllocationHandle h;
	CUdeviceptr a, c;
	int k, j;

	if (!v)
		return -1;
	for (k = 0; k < reps; k++) {
		if (cuMemCreate(&h, b->mem_size, &p, 0))
			goto fail;
		a = map_view(h, b->mem_size);
		c = map_view(h, b->mem_size);
		if (!a || !c)
			goto fail;
		v[k] = touch_pages(a, b->mem_size, page);
		v[reps + k] = touch_pages(c, b->mem_size, page);
		v[2 * reps + k] = touch_pages(a, b->mem_size, page);
		v[3 * reps + k] = touch_anon_thp(b->mem_size, page);
		unmap_view(a, b->mem_size);
		unmap_view(c, b->mem_size);
		cuMemRelease(h);
	}
	for (j = 0; j < 4; j++) {
		qsort(v + j * reps, reps, sizeof(*v), cmp_double);
		med[j] = percentile(v + j * reps, reps, 50);
	}
	free(v);
	return 0;
fail:
	fprintf(stderr, "cufab-bench: first-touch setup failed\n");
	free(v);
	return -1;
}

/* ns for @calls calls of @step; -1 when one fails. */
static double timed_calls(struct bench *b, const struct row *r, long calls)
{
	double t = now_ns();
	long i;

	for (i = 0; i < calls; i++) {
		if (r->step(b)) {
			fprintf(stderr, "cufab-bench: %s failed (errno %d)\n",
				r->name, errno);
			return -1;
		}
	}
	return now_ns() - t;
}

static void fill_stats(double *v, long nv, struct stats *s)
{
	qsort(v, nv, sizeof(*v), cmp_double);
	s->median = percentile(v, nv, 50);
	s->p10 = percentile(v, nv, 10);
	s->p90 = percentile(v, nv, 90);
}

/*
 * n / divisor calls of @r, r times, timed in bursts of BURST calls; the
 * figures are over the per-call time of each burst. With @base the no-op
 * ioctl runs a burst before each burst of @r and @base gets its figures:
 * a row's ratio is then the ratio of two medians taken under the same
 * load. A burst lasts microseconds, so the host preempting the VM spoils
 * a few bursts, which the medians ignore, not whole repetitions.
 */
static int measure(struct bench *b, const struct row *r, long n, int reps,
		   struct stats *s, struct stats *base)
{
	static const struct row noop = { "CUFAB_IOCTL_NOOP", step_noop, 1 };
	long done, burst, nb = 0, max;
	double *v, *vn, t;
	int k, ret = -1;

	n = n / r->divisor ?: 1;
	max = reps * ((n + BURST - 1) / BURST);
	v = calloc(2 * max, sizeof(*v));
	if (!v)
		return -1;
	vn = v + max;
	for (k = 0; k < reps; k++) {
		for (done = 0; done < n; done += burst, nb++) {
			burst = n - done < BURST ? n - done : BURST;
			if (base) {
				t = timed_calls(b, &noop, burst);
				if (t < 0)
					goto out;
				vn[nb] = t / burst;
			}
			if (r->prep && r->prep(b, burst))
				goto fail;
			t = timed_calls(b, r, burst);
			if (t < 0)
				goto out;
			v[nb] = t / burst;
			if (r->undo && r->undo(b, burst))
				goto fail;
		}
	}
	fill_stats(v, nb, s);
	if (base)
		fill_stats(vn, nb, base);
	ret = 0;
out:
	free(v);
	return ret;
fail:
	fprintf(stderr, "cufab-bench: %s: setup or cleanup of a burst failed\n",
		r->name);
	goto out;
}

static void print_stats(FILE *f, const struct stats *s)
{
	fprintf(f, "\"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f",
		s->median, s->p10, s->p90);
}

/*
 * Bind+Unbind with 10 to 10^5 live bindings: the map scales (a curve in
 * build/bench/bind_by_live.svg), summed up by the 10^2 / 10^5 ratio.
 */
static int bench_le_live(FILE *out, long n, int reps)
{
	static const long live[] = { 10, 100, 1000, 10000, 100000 };
	double ns[ARRAY_SIZE(live)];
	long calls = n / 10 ?: 1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(live); i++) {
		ns[i] = le_bench_bind_with_live(live[i], reps, calls);
		if (ns[i] <= 0) {
			le_bench_teardown();
			fprintf(stderr, "cufab-bench: endpoint bind with %ld live bindings failed\n",
				live[i]);
			return -1;
		}
	}
	le_bench_teardown();
	fprintf(out, "  \"le_bind_unbind_ns\": { \"live_100\": %.1f, \"live_100000\": %.1f, \"ratio\": %.3f },\n",
		ns[1], ns[4], ns[4] / ns[1]);
	fprintf(out, "  \"le_bind_unbind_by_live\": [");
	for (i = 0; i < ARRAY_SIZE(live); i++)
		fprintf(out, "%s\n    { \"live\": %ld, \"ns\": %.1f }", i ? "," : "",
			live[i], ns[i]);
	fprintf(out, "\n  ],\n");
	return 0;
}

/*
 * Multicast broadcast: cufabMultimemBroadcast of @bytes to k replicas
 * (one per GPU, bound to a team of k) against k plain memcpys of the same
 * bytes into the same replicas through their unicast mappings. The ratio
 * is memcpy time / broadcast time: 1.0 means the broadcast moves data as
 * fast as the CPU can copy it.
 */
struct mc_team {
	CUmemGenericAllocationHandle h, mem[8];
	CUdeviceptr va[8], mc;
	size_t size;
	int k;
};

static void mc_team_drop(struct mc_team *t)
{
	int i;

	if (t->mc)
		unmap_view(t->mc, t->size);
	for (i = 0; i < t->k; i++) {
		if (t->va[i]) {
			cuMulticastUnbind(t->h, i, 0, t->size);
			unmap_view(t->va[i], t->size);
		}
		if (t->mem[i])
			cuMemRelease(t->mem[i]);
	}
	if (t->h)
		cuMemRelease(t->h);
}

static int mc_team_make(struct mc_team *t, int k, size_t size)
{
	CUmulticastObjectProp p = mc_prop(k, size);
	CUmemAllocationProp mp = mem_prop();
	int i;

	memset(t, 0, sizeof(*t));
	t->size = size;
	if (cuMulticastCreate(&t->h, &p))
		return -1;
	for (i = 0; i < k; i++)
		if (cuMulticastAddDevice(t->h, i))
			return -1;
	for (i = 0; i < k; i++) {
		mp.location.id = i;
		t->k = i + 1;
		if (cuMemCreate(&t->mem[i], size, &mp, 0))
			return -1;
		t->va[i] = map_view(t->mem[i], size);
		if (!t->va[i] ||
		    cuMulticastBindMem(t->h, 0, t->mem[i], 0, size, 0))
			return -1;
	}
	t->mc = map_view(t->h, size);
	return t->mc ? 0 : -1;
}

/* The baseline: k memcpys of @bytes, one into each replica. */
static double k_memcpy_ns(const struct mc_team *t, const void *src,
			  size_t bytes)
{
	double t0 = now_ns();
	int i;

	for (i = 0; i < t->k; i++)
		memcpy((void *)t->va[i], src, bytes);
	return now_ns() - t0;
}

/*
 * Small sizes take more repetitions (up to 64 times as many), so that a
 * row's median is taken over about as many bytes as the 8 MiB row's:
 * one preempted repetition moves the median of 11 by a step.
 */
static int mc_broadcast_reps(size_t bytes, int reps)
{
	size_t scale = (8 << 20) / bytes;

	return reps * (scale < 1 ? 1 : scale > 64 ? 64 : (int)scale);
}

static int mc_broadcast_row(FILE *out, int k, size_t bytes, int reps,
			    int first)
{
	size_t size = bytes < (2 << 20) ? 2 << 20 : bytes;
	double *bc, *cp;
	unsigned char *src = malloc(bytes);
	struct mc_team t = { 0 };
	int r, ret = -1;
	double t0;

	reps = mc_broadcast_reps(bytes, reps);
	bc = calloc(reps, sizeof(*bc));
	cp = calloc(reps, sizeof(*cp));
	if (!bc || !cp || !src || mc_team_make(&t, k, size))
		goto out;
	memset(src, 0x5a, bytes);
	/* warm up: every replica page populated, caches as in the loop */
	if (cufabMultimemBroadcast(t.mc, src, bytes, NULL))
		goto out;
	/* turns at going first: neither always finds the other's caches */
	for (r = 0; r < reps; r++) {
		if (r & 1)
			cp[r] = k_memcpy_ns(&t, src, bytes);
		t0 = now_ns();
		if (cufabMultimemBroadcast(t.mc, src, bytes, NULL))
			goto out;
		bc[r] = now_ns() - t0;
		if (!(r & 1))
			cp[r] = k_memcpy_ns(&t, src, bytes);
	}
	qsort(bc, reps, sizeof(*bc), cmp_double);
	qsort(cp, reps, sizeof(*cp), cmp_double);
	fprintf(out, "%s    { \"replicas\": %d, \"bytes\": %zu, \"broadcast_ns\": %.0f, \"k_memcpy_ns\": %.0f, \"ratio_to_k_memcpy\": %.3f, \"repetitions\": %d }",
		first ? "" : ",\n", k, bytes, percentile(bc, reps, 50),
		percentile(cp, reps, 50),
		percentile(cp, reps, 50) / percentile(bc, reps, 50), reps);
	ret = 0;
out:
	mc_team_drop(&t);
	free(src);
	free(bc);
	free(cp);
	return ret;
}

/* k = 2, 4, 8 (as many as the node has GPUs), 64 KiB to 64 MiB. */
static void mc_broadcast_rows(FILE *out, int reps)
{
	static const size_t sizes[] = { 64 << 10, 1 << 20, 8 << 20, 64 << 20 };
	int ks[] = { 2, 4, 8 }, n = 0, first = 1;
	size_t i, j;

	cuDeviceGetCount(&n);
	fprintf(out, ",\n  \"multicast_broadcast\": [\n");
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		if (ks[i] > n)
			continue;
		for (j = 0; j < ARRAY_SIZE(sizes); j++)
			if (!mc_broadcast_row(out, ks[i], sizes[j], reps, first))
				first = 0;
	}
	fprintf(out, "\n  ]");
}

/* What the figures were taken on, so that runs can be compared. */
static void print_config(FILE *out)
{
	CUmemAllocationProp p = mem_prop();
	size_t gran = 0;
	struct utsname u;
	int gpus = 0;

	cuDeviceGetCount(&gpus);
	cuMemGetAllocationGranularity(&gran, &p,
				      CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(out, "  \"config\": { \"gpus\": %d, \"granularity\": %zu, \"kernel\": \"%s\", \"cpus\": %ld },\n",
		gpus, gran, u.release, sysconf(_SC_NPROCESSORS_ONLN));
}

static int usage(void)
{
	fprintf(stderr, "usage: cufab-bench [-q] [-n iterations] [-r repetitions] [-o file] [-f text]...\n"
		"  -q  quick: 2000 iterations, 3 repetitions (a smoke run, not figures)\n"
		"  -f  only the call rows whose name contains text (repeatable), and of the\n"
		"      other figures only multicast_broadcast, graph_launch,\n"
		"      host_function_latency and wait_value_cpu_write_latency, when text\n"
		"      is part of that name\n");
	return 2;
}

/* -f: the rows a targeted run measures; none given, all of them. */
#define MAX_FILTERS	16
static const char *filters[MAX_FILTERS];
static int nfilters;

static int row_wanted(const struct row *r)
{
	int i;

	for (i = 0; i < nfilters; i++)
		if (strstr(r->name, filters[i]))
			return 1;
	return !nfilters;
}

static double row_ratio_of(const double *ratio, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		if (!strcmp(rows[i].name, name))
			return ratio[i];
	return 0;
}

/* Each runtime row over the row it is measured against, where both ran. */
static void print_rt_overhead(FILE *out, const double *ratio)
{
	const char *sep = "";
	double rtm, cum;
	size_t i;

	fprintf(out, ",\n  \"runtime_overhead\": [");
	for (i = 0; i < ARRAY_SIZE(rt_pairs); i++) {
		rtm = row_ratio_of(ratio, rt_pairs[i][0]);
		cum = row_ratio_of(ratio, rt_pairs[i][1]);
		if (!rtm || !cum)
			continue;
		fprintf(out, "%s\n    { \"runtime\": \"%s\", \"against\": \"%s\", \"ratio\": %.3f }",
			sep, rt_pairs[i][0], rt_pairs[i][1], rtm / cum);
		sep = ",";
	}
	fprintf(out, "\n  ]");
}

/* -f also picks a figure by its JSON name, e.g. -f broadcast. */
static int figure_wanted(const char *name)
{
	int i;

	for (i = 0; i < nfilters; i++)
		if (strstr(name, filters[i]))
			return 1;
	return 0;
}

/*
 * -f host_function, -f wait_value: the two latency figures alone (each
 * line of theirs ends in a comma, closed by "latency_figures").
 */
static int figure_wanted_latency(FILE *out, int reps)
{
	int host = figure_wanted("host_function_latency");
	int wait = figure_wanted("wait_value_cpu_write_latency");

	if (!host && !wait)
		return 0;
	fprintf(out, ",\n");
	if ((host && stream_bench_host_row(out, reps)) ||
	    (wait && streammem_bench_extra(out, reps)))
		return -1;
	fprintf(out, "  \"latency_figures\": %d", host + wait);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct row noop = { "CUFAB_IOCTL_NOOP", step_noop, 1 };
	struct bench b = { .fd = -1 };
	struct stats base, s, near;
	double touch[4];
	long n = 20000;
	double row_ratio[ARRAY_SIZE(rows)] = { 0 };
	int reps = 11, opt, first = 1, calls, rt;
	FILE *out = stdout;
	size_t i;

	while ((opt = getopt(argc, argv, "qn:r:o:f:h")) != -1) {
		switch (opt) {
		case 'f':
			if (nfilters == MAX_FILTERS)
				return usage();
			filters[nfilters++] = optarg;
			break;
		case 'q':
			n = 2000;
			reps = 3;
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'o':
			out = fopen(optarg, "w");
			if (!out) {
				perror(optarg);
				return 1;
			}
			break;
		default:
			return usage();
		}
	}
	if (n <= 0 || reps <= 0)
		return usage();

	b.fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (b.fd < 0) {
		fprintf(stderr, "cufab-bench: %s: %s (run it in the VM: make bench-run)\n",
			CUFAB_DEVICE_PATH, strerror(errno));
		return 1;
	}
	if (cuInit(0) || cuCtxCreate(&b.ctx, NULL, 0, 0)) {
		fprintf(stderr, "cufab-bench: cuInit or cuCtxCreate failed\n");
		return 1;
	}
	if (mem_setup(&b)) {
		fprintf(stderr, "cufab-bench: memory rows setup failed\n");
		return 1;
	}
	mc_setup(&b);
	if (async_pair(4096) || async_pair(1 << 20)) {
		fprintf(stderr, "cufab-bench: cuMemAllocAsync rows setup failed\n");
		return 1;
	}
	if (measure(&b, &noop, n, reps, &base, NULL))
		return 1;
	if (copy_bench_setup()) {
		fprintf(stderr, "cufab-bench: copy rows setup failed\n");
		return 1;
	}
	if (stream_bench_setup()) {
		fprintf(stderr, "cufab-bench: stream rows setup failed\n");
		return 1;
	}
	if (managed_bench_setup()) {
		fprintf(stderr, "cufab-bench: managed memory rows setup failed\n");
		return 1;
	}
	if (ctl_bench_setup(b.mc_ok)) {
		fprintf(stderr, "cufab-bench: control call rows setup failed\n");
		return 1;
	}
	if (le_bench_setup((n / 10 ?: 1) * reps)) {
		fprintf(stderr, "cufab-bench: logical endpoint rows setup failed\n");
		return 1;
	}
	if (streammem_bench_setup() || ipc_bench_setup() || nvml_bench_setup()) {
		fprintf(stderr, "cufab-bench: stream memory, IPC or NVML rows setup failed\n");
		return 1;
	}
	rt = rt_bench_setup();
	if (rt < 0) {
		fprintf(stderr, "cufab-bench: runtime rows setup failed\n");
		return 1;
	}
	b.have = (b.mc_ok ? NEED_MC : 0) | (rt ? NEED_RT : 0);

	fprintf(out, "{\n  \"iterations\": %ld, \"repetitions\": %d,\n", n, reps);
	print_config(out);
	fprintf(out, "  \"noop_ioctl_ns\": %.1f,\n  \"noop_ioctl\": { ", base.median);
	print_stats(out, &base);
	fprintf(out, " },\n  \"calls\": [\n");
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if ((rows[i].needs & ~b.have) || !row_wanted(&rows[i]))
			continue;
		if (measure(&b, &rows[i], n, reps, &s, &near))
			return 1;
		row_ratio[i] = s.median / near.median;
		fprintf(out, "%s    { \"name\": \"%s\", ", first ? "" : ",\n",
			rows[i].name);
		first = 0;
		print_stats(out, &s);
		calls = rows[i].calls ?: 1;
		fprintf(out, ", \"noop_median_ns\": %.1f, \"ratio_to_noop\": %.3f, \"calls_per_step\": %d, \"ratio_per_call\": %.3f }",
			near.median, s.median / near.median, calls,
			s.median / near.median / calls);
	}
	fprintf(out, "\n  ]");
	print_rt_overhead(out, row_ratio);
	if (nfilters) {
		if (b.mc_ok && figure_wanted("multicast_broadcast"))
			mc_broadcast_rows(out, reps);
		if (figure_wanted_latency(out, reps))
			return 1;
		if (figure_wanted("graph_launch") &&
		    (fprintf(out, ",\n") < 0 || graph_bench_extra(out, reps, 1)))
			return 1;
		fprintf(out, "\n}\n");
		goto teardown;
	}
	fprintf(out, ",\n");
	if (bench_le_live(out, n, reps))
		return 1;
	if (stream_bench_extra(out, reps) || copy_bench_extra(out, reps) ||
	    streammem_bench_extra(out, reps) ||
	    graph_bench_extra(out, reps, 0))
		return 1;
	if (managed_bench_extra(out, reps, n))
		return 1;
	if (measure_touch(&b, reps, touch))
		return 1;
	fprintf(out, "  \"write_2MiB_mapping_ns_per_page\": { \"first_touch\": %.1f, \"populated_new_mapping\": %.1f, \"resident\": %.1f, \"anon_thp_first_touch\": %.1f, \"first_touch_ratio_to_anon_thp\": %.2f }",
		touch[0], touch[1], touch[2], touch[3], touch[0] / touch[3]);
	if (b.mc_ok)
		mc_broadcast_rows(out, reps);
	fprintf(out, "\n}\n");
teardown:
	if (b.mc_ok)
		cuMemRelease(b.mc1);
	ctl_bench_teardown();
	rt_bench_teardown();
	nvml_bench_teardown();
	ipc_bench_teardown();
	streammem_bench_teardown();
	stream_bench_teardown();
	managed_bench_teardown();
	copy_bench_teardown();
	mem_teardown(&b);
	cuCtxDestroy(b.ctx);
	close(b.fd);
	return out != stdout && fclose(out) ? 1 : 0;
}
