// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-bench rows of the logical endpoint calls (see le_bench.h).
 *
 * Every step is a single API call. The Reserve row reserves one id per
 * call and the Release row gives them back in the same order; Create
 * fills a block of ids reserved at setup and Destroy empties it; BindMem
 * binds one 2 MiB allocation at consecutive offsets of a large unicast
 * endpoint and Unbind removes those binds. Query asks about one ready
 * endpoint. The binding map is an rbtree, so Bind+Unbind must cost about
 * the same with 10^2 or 10^5 bindings already live: that is measured by
 * le_bench_bind_with_live().
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "le_bench.h"

#define GRAN		(2ULL << 20)

static struct {
	long calls;
	CUlogicalEndpointId *reserved;	/* the Reserve row's ids */
	long nres, nrel;
	CUlogicalEndpointId block;	/* Create/Destroy ids */
	long ncreate, ndestroy;
	CUlogicalEndpointId query;	/* one ready endpoint */
	CUlogicalEndpointId bind;	/* calls * 2 MiB unicast endpoint */
	long nbind, nunbind;
	CUmemGenericAllocationHandle mem;
} le;

static CUlogicalEndpointProp le_prop(unsigned long long size)
{
	CUlogicalEndpointProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_LOGICAL_ENDPOINT_TYPE_UNICAST;
	p.unicast.device = 0;
	p.size = size;
	return p;
}

static int le_ready(CUlogicalEndpointId id)
{
	struct timespec ts = { 0, 1000000 };
	int ready = 0, i;

	for (i = 0; i < 5000 && !ready; i++) {
		if (cuLogicalEndpointQuery(id, 1, &ready))
			return -1;
		if (!ready)
			nanosleep(&ts, NULL);
	}
	return ready ? 0 : -1;
}

/* A ready unicast endpoint of @size on GPU 0 at a new id. */
static int le_endpoint(CUlogicalEndpointId *id, unsigned long long size)
{
	CUlogicalEndpointProp p = le_prop(size);

	return cuLogicalEndpointIdReserve(id, 1) ||
	       cuLogicalEndpointCreate(*id, &p) || le_ready(*id);
}

int le_bench_setup(long calls)
{
	CUmemAllocationProp mp;

	memset(&le, 0, sizeof(le));
	le.calls = calls;
	le.reserved = calloc(calls, sizeof(*le.reserved));
	memset(&mp, 0, sizeof(mp));
	mp.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	mp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	return !le.reserved ||
	       cuMemCreate(&le.mem, GRAN, &mp, 0) ||
	       cuLogicalEndpointIdReserve(&le.block, calls) ||
	       le_endpoint(&le.query, GRAN) ||
	       le_endpoint(&le.bind, calls * GRAN) ? -1 : 0;
}

void le_bench_teardown(void)
{
	cuLogicalEndpointDestroy(le.bind);
	cuLogicalEndpointIdRelease(le.bind, 1);
	cuLogicalEndpointDestroy(le.query);
	cuLogicalEndpointIdRelease(le.query, 1);
	cuLogicalEndpointIdRelease(le.block, le.calls);
	cuMemRelease(le.mem);
	free(le.reserved);
}

int le_step_reserve(struct bench *b)
{
	return le.nres >= le.calls ||
	       cuLogicalEndpointIdReserve(&le.reserved[le.nres++], 1);
}

int le_step_release(struct bench *b)
{
	return le.nrel >= le.nres ||
	       cuLogicalEndpointIdRelease(le.reserved[le.nrel++], 1);
}

int le_step_create(struct bench *b)
{
	CUlogicalEndpointProp p = le_prop(GRAN);

	return le.ncreate >= le.calls ||
	       cuLogicalEndpointCreate(le.block + le.ncreate++, &p);
}

int le_step_query(struct bench *b)
{
	int ready;

	return cuLogicalEndpointQuery(le.query, 1, &ready) || !ready;
}

int le_step_bind(struct bench *b)
{
	return le.nbind >= le.calls ||
	       cuLogicalEndpointBindMem(le.bind, 0, le.nbind++ * GRAN, le.mem,
					0, GRAN, 0);
}

int le_step_unbind(struct bench *b)
{
	return le.nunbind >= le.nbind ||
	       cuLogicalEndpointUnbind(le.bind, 0, le.nunbind++ * GRAN, GRAN);
}

int le_step_destroy(struct bench *b)
{
	return le.ndestroy >= le.ncreate ||
	       cuLogicalEndpointDestroy(le.block + le.ndestroy++);
}

/* Median of @reps averages of @calls Bind+Unbind pairs at 2 MiB * @slot. */
static double le_time_pairs(CUlogicalEndpointId id, long slot, int reps,
			    long calls)
{
	double *avg = calloc(reps, sizeof(*avg)), t, med;
	unsigned long long off = slot * GRAN;
	long i;
	int k;

	if (!avg)
		return -1;
	for (k = 0; k < reps; k++) {
		t = now_ns();
		for (i = 0; i < calls; i++)
			if (cuLogicalEndpointBindMem(id, 0, off, le.mem, 0, GRAN, 0) ||
			    cuLogicalEndpointUnbind(id, 0, off, GRAN)) {
				free(avg);
				return -1;
			}
		avg[k] = (now_ns() - t) / calls;
	}
	qsort(avg, reps, sizeof(*avg), cmp_double);
	med = avg[reps / 2];
	free(avg);
	return med;
}

/*
 * @live bindings at every 2 MiB offset of [0, live + 1) but the middle
 * one, where the pairs are timed: a lookup through the whole tree.
 */
double le_bench_bind_with_live(long live, int reps, long calls)
{
	CUlogicalEndpointId id;
	long i, hole = live / 2;
	double med = -1;

	if (le_endpoint(&id, (live + 1) * GRAN))
		return -1;
	for (i = 0; i <= live; i++)
		if (i != hole &&
		    cuLogicalEndpointBindMem(id, 0, i * GRAN, le.mem, 0, GRAN, 0))
			goto out;
	med = le_time_pairs(id, hole, reps, calls);
out:
	/* Destroy unbinds all of them at once */
	cuLogicalEndpointDestroy(id);
	cuLogicalEndpointIdRelease(id, 1);
	return med;
}
