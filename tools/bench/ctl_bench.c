// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-bench rows of single control calls (see ctl_bench.h).
 *
 * The pair rows of bench.c (cuCtxCreate+cuCtxDestroy, ...) time two calls
 * per step; these time one. Each step takes the next slot of a burst's
 * array: a create row fills the slots and its undo empties them, a
 * destroy row's prep fills them and the step empties one per call. Every
 * burst starts from the same state, so no row's figure depends on how
 * many calls came before.
 */
#include <string.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "ctl_bench.h"

#define GRAN	(2ULL << 20)

static struct {
	CUcontext ctx[BURST];
	CUmemGenericAllocationHandle h[BURST];
	long n;			/* slots the current burst has filled */
	long k;			/* of those, slots a step has used */
	CUmemGenericAllocationHandle mc;	/* BURST * 2 MiB, team of GPU 0 */
	CUmemGenericAllocationHandle mem;	/* 2 MiB on GPU 0, bound to mc */
} ctl;

static CUmemAllocationProp mem_prop(void)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	return p;
}

static CUmulticastObjectProp mc_prop(size_t size)
{
	CUmulticastObjectProp p;

	memset(&p, 0, sizeof(p));
	p.numDevices = 1;
	p.size = size;
	return p;
}

int ctl_bench_setup(int mc)
{
	CUmulticastObjectProp q = mc_prop(BURST * GRAN);
	CUmemAllocationProp p = mem_prop();

	memset(&ctl, 0, sizeof(ctl));
	if (cuMemCreate(&ctl.mem, GRAN, &p, 0))
		return -1;
	if (mc && (cuMulticastCreate(&ctl.mc, &q) ||
		   cuMulticastAddDevice(ctl.mc, 0)))
		return -1;
	return 0;
}

void ctl_bench_teardown(void)
{
	if (ctl.mc)
		cuMemRelease(ctl.mc);
	cuMemRelease(ctl.mem);
}

/* cuCtxCreate pushes the context: undone newest first, each pops itself */
int ctl_step_ctx_create(struct bench *b)
{
	return cuCtxCreate(&ctl.ctx[ctl.n++], NULL, 0, 0);
}

int ctl_undo_ctx_create(struct bench *b, long burst)
{
	while (ctl.n)
		if (cuCtxDestroy(ctl.ctx[--ctl.n]))
			return -1;
	return 0;
}

int ctl_prep_ctx_destroy(struct bench *b, long burst)
{
	for (ctl.n = 0; ctl.n < burst; ctl.n++)
		if (cuCtxCreate(&ctl.ctx[ctl.n], NULL, 0, 0))
			return -1;
	return 0;
}

int ctl_step_ctx_destroy(struct bench *b)
{
	return cuCtxDestroy(ctl.ctx[--ctl.n]);
}

int ctl_step_mem_create(struct bench *b)
{
	CUmemAllocationProp p = mem_prop();

	return cuMemCreate(&ctl.h[ctl.n++], GRAN, &p, 0);
}

/* for both kinds of handle: memory and multicast objects */
int ctl_undo_release(struct bench *b, long burst)
{
	ctl.k = 0;
	while (ctl.n)
		if (cuMemRelease(ctl.h[--ctl.n]))
			return -1;
	return 0;
}

int ctl_prep_mem_release(struct bench *b, long burst)
{
	CUmemAllocationProp p = mem_prop();

	for (ctl.n = 0; ctl.n < burst; ctl.n++)
		if (cuMemCreate(&ctl.h[ctl.n], GRAN, &p, 0))
			return -1;
	return 0;
}

int ctl_step_release(struct bench *b)
{
	return cuMemRelease(ctl.h[--ctl.n]);
}

int ctl_step_mc_create(struct bench *b)
{
	CUmulticastObjectProp q = mc_prop(GRAN);

	return cuMulticastCreate(&ctl.h[ctl.n++], &q);
}

int ctl_prep_mc_release(struct bench *b, long burst)
{
	CUmulticastObjectProp q = mc_prop(GRAN);

	ctl.k = 0;
	for (ctl.n = 0; ctl.n < burst; ctl.n++)
		if (cuMulticastCreate(&ctl.h[ctl.n], &q))
			return -1;
	return 0;
}

/* prep: ctl_prep_mc_release's objects; undo: ctl_undo_release */
int ctl_step_mc_add(struct bench *b)
{
	return cuMulticastAddDevice(ctl.h[ctl.k++], 0);
}

/* one 2 MiB slice of the object per call, ctl.mem in each */
int ctl_step_mc_bind(struct bench *b)
{
	return cuMulticastBindMem(ctl.mc, ctl.k++ * GRAN, ctl.mem, 0, GRAN, 0);
}

int ctl_undo_mc_bind(struct bench *b, long burst)
{
	while (ctl.k)
		if (cuMulticastUnbind(ctl.mc, 0, --ctl.k * GRAN, GRAN))
			return -1;
	return 0;
}

int ctl_prep_mc_unbind(struct bench *b, long burst)
{
	for (ctl.k = 0; ctl.k < burst; ctl.k++)
		if (cuMulticastBindMem(ctl.mc, ctl.k * GRAN, ctl.mem, 0, GRAN, 0))
			return -1;
	return 0;
}

int ctl_step_mc_unbind(struct bench *b)
{
	return cuMulticastUnbind(ctl.mc, 0, --ctl.k * GRAN, GRAN);
}
