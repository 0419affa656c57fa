// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime API rows of cufab-bench: cudaMalloc+cudaFree,
 * cudaMemcpyAsync+cudaStreamSynchronize and cudaMallocAsync+cudaFreeAsync,
 * each next to the driver calls that serve it in the same context, so that
 * the pair's ratio ("runtime_overhead" in the JSON) is libcufabrt's own
 * cost (NVIDIA's runtime on an H200: about 1.1).
 *
 * libcufabrt is loaded with dlopen() from the build tree, beside the
 * libcufab the bench links: the bench then builds without NVIDIA's
 * cuda_runtime_api.h, which libcufabrt needs, and its runtime rows skip
 * where libcufabrt was not built. The runtime adopts the context the bench
 * made current (rt/init.c), so both sides of a pair work in one context.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "rt_bench.h"

/* cuda_runtime_api.h's prototypes, as far as these rows use them. */
typedef int rt_err;
#define RT_MEMCPY_DEVICE_TO_DEVICE	3
#define RT_STREAM_NON_BLOCKING		1

static struct {
	void *lib;
	rt_err (*malloc)(void **p, size_t size);
	rt_err (*free)(void *p);
	rt_err (*memcpy_async)(void *dst, const void *src, size_t n, int kind,
			       void *stream);
	rt_err (*stream_create)(void **s, unsigned int flags);
	rt_err (*stream_destroy)(void *s);
	rt_err (*stream_sync)(void *s);
	rt_err (*malloc_async)(void **p, size_t size, void *stream);
	rt_err (*free_async)(void *p, void *stream);
	void *stream;
} rt;

static CUstream cu_stream;
static CUdeviceptr cu_src, cu_dst;
static void *rt_src, *rt_dst;

#define RT_COPY_SIZE	4096

/* build/bench/cufab-bench -> build/lib/libcufabrt.so.1 */
static void *rt_open(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/../lib/libcufabrt.so.1", dirname(exe));
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static int rt_resolve(void)
{
	struct { void **fn; const char *name; } syms[] = {
		{ (void **)&rt.malloc, "cudaMalloc" },
		{ (void **)&rt.free, "cudaFree" },
		{ (void **)&rt.memcpy_async, "cudaMemcpyAsync" },
		{ (void **)&rt.stream_create, "cudaStreamCreateWithFlags" },
		{ (void **)&rt.stream_destroy, "cudaStreamDestroy" },
		{ (void **)&rt.stream_sync, "cudaStreamSynchronize" },
		{ (void **)&rt.malloc_async, "cudaMallocAsync" },
		{ (void **)&rt.free_async, "cudaFreeAsync" },
	};
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].fn = dlsym(rt.lib, syms[i].name);
		if (!*syms[i].fn) {
			fprintf(stderr, "cufab-bench: libcufabrt lacks %s\n",
				syms[i].name);
			return -1;
		}
	}
	return 0;
}

int rt_bench_setup(void)
{
	rt.lib = rt_open();
	if (!rt.lib) {
		fprintf(stderr, "cufab-bench: no libcufabrt (%s): runtime rows skipped\n",
			dlerror());
		return 0;
	}
	if (rt_resolve() ||
	    rt.stream_create(&rt.stream, RT_STREAM_NON_BLOCKING) ||
	    rt.malloc(&rt_src, RT_COPY_SIZE) || rt.malloc(&rt_dst, RT_COPY_SIZE) ||
	    cuStreamCreate(&cu_stream, CU_STREAM_NON_BLOCKING) ||
	    cuMemAlloc(&cu_src, RT_COPY_SIZE) || cuMemAlloc(&cu_dst, RT_COPY_SIZE))
		return -1;
	/* warm both pools, as the driver's warm row is */
	return rtb_step_cu_async_pair(NULL) || rtb_step_rt_async_pair(NULL) ? -1 : 1;
}

void rt_bench_teardown(void)
{
	if (!rt.lib)
		return;
	if (cu_src)
		cuMemFree(cu_src);
	if (cu_dst)
		cuMemFree(cu_dst);
	if (cu_stream)
		cuStreamDestroy(cu_stream);
	if (rt_src)
		rt.free(rt_src);
	if (rt_dst)
		rt.free(rt_dst);
	if (rt.stream)
		rt.stream_destroy(rt.stream);
	/* libcufabrt stays loaded: its exit handlers run at exit() */
}

int rtb_step_cu_alloc_free(struct bench *b)
{
	CUdeviceptr p;

	return cuMemAlloc(&p, 2 << 20) || cuMemFree(p);
}

int rtb_step_rt_malloc_free(struct bench *b)
{
	void *p;

	return rt.malloc(&p, 2 << 20) || rt.free(p);
}

int rtb_step_cu_copy_sync(struct bench *b)
{
	return cuMemcpyAsync(cu_dst, cu_src, RT_COPY_SIZE, cu_stream) ||
	       cuStreamSynchronize(cu_stream);
}

int rtb_step_rt_copy_sync(struct bench *b)
{
	return rt.memcpy_async(rt_dst, rt_src, RT_COPY_SIZE,
			       RT_MEMCPY_DEVICE_TO_DEVICE, rt.stream) ||
	       rt.stream_sync(rt.stream);
}

int rtb_step_cu_async_pair(struct bench *b)
{
	CUdeviceptr p;

	return cuMemAllocAsync(&p, 4096, cu_stream) ||
	       cuMemFreeAsync(p, cu_stream);
}

int rtb_step_rt_async_pair(struct bench *b)
{
	void *p;

	return rt.malloc_async(&p, 4096, rt.stream) ||
	       rt.free_async(p, rt.stream);
}
