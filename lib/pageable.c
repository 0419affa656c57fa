// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Pageable (system-allocated) memory under cuMemAdvise, cuMemPrefetchAsync
 * and cuMemRangeGetAttribute(s), on a node with a GPU that reports
 * PAGEABLE_MEMORY_ACCESS: what CUDA documents for such memory.
 *
 * The memory is the process's own, and so is its advice: the library
 * keeps it, a sorted array of address segments, each with the advice of
 * its pages (a page in no segment has none), in the form the kernel
 * reports managed advice in (struct cufab_mem_range_attrs), so that the
 * attribute calls format both alike. A range qualifies when every byte of
 * it is mapped readable and none of it is cufab memory (/proc/self/maps).
 *
 * A prefetch is a host operation of its stream: when the stream reaches
 * it, it records the location and moves the range's pages that exist to
 * the location's NUMA node with move_pages(2) (a GPU's: its host NUMA
 * node). Pages populated later go where the process's memory policy puts
 * them: a preferred location is recorded and reported, not enforced
 * (differences.rst), since overriding the program's own mbind() would
 * be worse.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/mempolicy.h>

#include "mem.h"
#include "stream.h"

/* pages one move_pages(2) call takes */
#define PAGEABLE_MOVE_BATCH	512

struct padv {
	__u32 read_mostly;
	__u32 pref_type;	/* 0: none */
	__s32 pref_id;
	__u32 pf_type;		/* 0: never prefetched */
	__s32 pf_id;
	__u32 acc_host;
	__u64 acc_gpus;		/* bit = kernel GPU index */
};

struct pseg {
	uintptr_t start;
	uintptr_t end;
	struct padv adv;
};

static pthread_mutex_t pageable_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pseg *segs;
static size_t nr_segs, cap_segs;

static const struct padv no_advice;

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Does a GPU of the process have PAGEABLE_MEMORY_ACCESS? */
static int any_gpu_pageable(void)
{
	int dev;

	for (dev = 0; dev < cufab.num_dev; dev++)
		if (cufab_device(dev)->features & CUFAB_DEV_F_PAGEABLE_ACCESS)
			return 1;
	return 0;
}

static int kgpu_pageable(__s32 kindex)
{
	return kindex >= 0 && kindex < cufab.num_kdev &&
	       (cufab.kdev[kindex].features & CUFAB_DEV_F_PAGEABLE_ACCESS);
}

/*
 * Is [start, end) mapped readable in the process, and none of it cufab
 * memory? One pass over /proc/self/maps, whose lines are sorted.
 */
static int range_is_pageable(uintptr_t start, uintptr_t end)
{
	unsigned long lo, hi;
	uintptr_t cur = start;
	char perms[8], line[PATH_MAX + 128], *path;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	while (cur < end && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			break;
		if (hi <= cur)
			continue;
		if (lo > cur || perms[0] != 'r')
			break;
		path = strchr(line, '/');
		if (path && !strncmp(path, CUFAB_DEVICE_PATH,
				     strlen(CUFAB_DEVICE_PATH)))
			break;
		cur = hi;
	}
	fclose(f);
	return cur >= end;
}

/*
 * [ptr, ptr + count) widened to pages, if it is pageable memory a GPU of
 * the process can use: 1 and *@start, *@end set, else 0.
 */
static int pageable_range(CUdeviceptr ptr, size_t count, uintptr_t *start,
			  uintptr_t *end)
{
	uintptr_t pg = (uintptr_t)page_size(), e;

	if (!count || !ptr || __builtin_add_overflow(ptr, count, &e) ||
	    e > UINTPTR_MAX - pg || !any_gpu_pageable())
		return 0;
	*start = ptr & ~(pg - 1);
	*end = (e + pg - 1) & ~(pg - 1);
	return range_is_pageable(*start, *end);
}

/* ---- the segments (pageable_lock held) ---- */

static int seg_insert(size_t at, uintptr_t start, uintptr_t end,
		      const struct padv *adv)
{
	struct pseg *n;

	if (nr_segs == cap_segs) {
		n = realloc(segs, (cap_segs * 2 + 8) * sizeof(*n));
		if (!n)
			return -1;
		segs = n;
		cap_segs = cap_segs * 2 + 8;
	}
	memmove(&segs[at + 1], &segs[at], (nr_segs - at) * sizeof(*segs));
	segs[at].start = start;
	segs[at].end = end;
	segs[at].adv = *adv;
	nr_segs++;
	return 0;
}

/* Make @at a segment boundary. */
static int seg_split(uintptr_t at)
{
	size_t i;

	for (i = 0; i < nr_segs; i++) {
		if (segs[i].start < at && at < segs[i].end) {
			if (seg_insert(i + 1, at, segs[i].end, &segs[i].adv))
				return -1;
			segs[i].end = at;
			return 0;
		}
	}
	return 0;
}

/* Segments without advice over the holes of [start, end). */
static int seg_fill(uintptr_t start, uintptr_t end)
{
	uintptr_t cur = start, next;
	size_t i = 0;

	while (cur < end) {
		while (i < nr_segs && segs[i].end <= cur)
			i++;
		if (i < nr_segs && segs[i].start <= cur) {
			cur = segs[i].end;
			continue;
		}
		next = i < nr_segs && segs[i].start < end ? segs[i].start : end;
		if (seg_insert(i, cur, next, &no_advice))
			return -1;
		cur = next;
	}
	return 0;
}

/* Drop segments without advice, merge equal neighbours. */
static void seg_compact(void)
{
	size_t i, out = 0;

	for (i = 0; i < nr_segs; i++) {
		if (!memcmp(&segs[i].adv, &no_advice, sizeof(no_advice)))
			continue;
		if (out && segs[out - 1].end == segs[i].start &&
		    !memcmp(&segs[out - 1].adv, &segs[i].adv,
			    sizeof(segs[i].adv))) {
			segs[out - 1].end = segs[i].end;
			continue;
		}
		segs[out++] = segs[i];
	}
	nr_segs = out;
}

/* One change, as the kernel applies it to managed memory. */
struct pchange {
	__u32 advice;		/* enum cufab_mem_advice, 0: a prefetch */
	__u32 type;
	__s32 id;
};

static void adv_apply(struct padv *a, const struct pchange *c)
{
	int host = c->type != CUFAB_LOC_DEVICE;
	__u64 gpu = host ? 0 : 1ULL << c->id;

	switch (c->advice) {
	case CUFAB_ADVISE_SET_READ_MOSTLY:
	case CUFAB_ADVISE_UNSET_READ_MOSTLY:
		a->read_mostly = c->advice == CUFAB_ADVISE_SET_READ_MOSTLY;
		break;
	case CUFAB_ADVISE_SET_PREFERRED_LOCATION:
		a->pref_type = c->type;
		a->pref_id = c->id;
		break;
	case CUFAB_ADVISE_UNSET_PREFERRED_LOCATION:
		a->pref_type = 0;
		a->pref_id = 0;
		break;
	case CUFAB_ADVISE_SET_ACCESSED_BY:
		a->acc_gpus |= gpu;
		a->acc_host |= host;
		break;
	case CUFAB_ADVISE_UNSET_ACCESSED_BY:
		a->acc_gpus &= ~gpu;
		if (host)
			a->acc_host = 0;
		break;
	default:
		a->pf_type = c->type;
		a->pf_id = c->id;
		break;
	}
}

/* Apply @c to [start, end): 0, or -1 (out of memory, advice unchanged). */
static int pageable_change(uintptr_t start, uintptr_t end,
			   const struct pchange *c)
{
	int ret;
	size_t i;

	pthread_mutex_lock(&pageable_lock);
	ret = seg_split(start) || seg_split(end) || seg_fill(start, end) ?
	      -1 : 0;
	for (i = 0; !ret && i < nr_segs; i++)
		if (segs[i].start >= start && segs[i].end <= end)
			adv_apply(&segs[i].adv, c);
	seg_compact();
	pthread_mutex_unlock(&pageable_lock);
	return ret;
}

/* A location shared by every piece so far, or none. */
static void loc_fold(__u32 *type, __s32 *id, __u32 t, __s32 i, int first)
{
	if (first) {
		*type = t;
		*id = i;
	} else if (*type != t || (t && *id != i)) {
		*type = 0;
	}
}

static void adv_fold(struct padv *out, const struct padv *a, int first)
{
	loc_fold(&out->pref_type, &out->pref_id, a->pref_type, a->pref_id,
		 first);
	loc_fold(&out->pf_type, &out->pf_id, a->pf_type, a->pf_id, first);
	out->read_mostly = a->read_mostly && (first || out->read_mostly);
	out->acc_host = a->acc_host && (first || out->acc_host);
	out->acc_gpus = first ? a->acc_gpus : out->acc_gpus & a->acc_gpus;
}

/* What every page of [start, end) shares; a hole has no advice. */
static void pageable_query(uintptr_t start, uintptr_t end, struct padv *out)
{
	uintptr_t cur = start;
	int first = 1;
	size_t i;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&pageable_lock);
	for (i = 0; i < nr_segs && cur < end; i++) {
		if (segs[i].end <= cur)
			continue;
		if (segs[i].start >= end)
			break;
		if (segs[i].start > cur) {
			adv_fold(out, &no_advice, first);
			first = 0;
		}
		adv_fold(out, &segs[i].adv, first);
		first = 0;
		cur = segs[i].end;
	}
	if (cur < end)
		adv_fold(out, &no_advice, first);
	pthread_mutex_unlock(&pageable_lock);
}

/* ---- locations ---- */

static int numa_node_online(int node)
{
	char path[64];

	if (node < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	return access(path, F_OK) == 0;
}

static int current_node(void)
{
	unsigned int cpu, node;

	if (syscall(SYS_getcpu, &cpu, &node, NULL))
		return 0;
	return (int)node;
}

/*
 * A kernel-form location (DEVICE ids are kernel indexes) checked for
 * pageable memory: a GPU must have PAGEABLE_MEMORY_ACCESS, a NUMA node be
 * online; HOST_NUMA_CURRENT becomes the caller's node. @host_only: DEVICE
 * and HOST only (accessed-by).
 */
static CUresult pageable_loc(__u32 *type, __s32 *id, int host_only)
{
	switch (*type) {
	case CUFAB_LOC_DEVICE:
		return kgpu_pageable(*id) ? CUDA_SUCCESS :
		       CUDA_ERROR_INVALID_DEVICE;
	case CUFAB_LOC_HOST:
		*id = -1;
		return CUDA_SUCCESS;
	case CUFAB_LOC_HOST_NUMA_CURRENT:
		if (host_only)
			return CUDA_ERROR_INVALID_VALUE;
		*type = CUFAB_LOC_HOST_NUMA;
		*id = current_node();
		return CUDA_SUCCESS;
	case CUFAB_LOC_HOST_NUMA:
		return !host_only && numa_node_online(*id) ? CUDA_SUCCESS :
		       CUDA_ERROR_INVALID_VALUE;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* ---- the calls ---- */

CUresult cufab_pageable_advise(CUdeviceptr ptr, size_t count, __u32 advice,
			       __u32 type, __s32 id)
{
	struct pchange c = { .advice = advice, .type = type, .id = id };
	uintptr_t start, end;
	CUresult res;

	switch (advice) {
	case CUFAB_ADVISE_SET_PREFERRED_LOCATION:
	case CUFAB_ADVISE_SET_ACCESSED_BY:
	case CUFAB_ADVISE_UNSET_ACCESSED_BY:
		res = pageable_loc(&c.type, &c.id,
				   advice != CUFAB_ADVISE_SET_PREFERRED_LOCATION);
		if (res != CUDA_SUCCESS)
			return res;
		break;
	case CUFAB_ADVISE_SET_READ_MOSTLY:
	case CUFAB_ADVISE_UNSET_READ_MOSTLY:
	case CUFAB_ADVISE_UNSET_PREFERRED_LOCATION:
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!pageable_range(ptr, count, &start, &end))
		return CUDA_ERROR_INVALID_VALUE;
	return pageable_change(start, end, &c) ? CUDA_ERROR_OUT_OF_MEMORY :
	       CUDA_SUCCESS;
}

CUresult cufab_pageable_range_attrs(CUdeviceptr ptr, size_t count,
				    struct cufab_mem_range_attrs *a)
{
	uintptr_t start, end;
	struct padv adv;

	if (!pageable_range(ptr, count, &start, &end))
		return CUDA_ERROR_INVALID_VALUE;
	pageable_query(start, end, &adv);
	a->out_read_mostly = adv.read_mostly;
	a->out_preferred_type = adv.pref_type;
	a->out_preferred_id = adv.pref_type ? adv.pref_id : -1;
	a->out_prefetch_type = adv.pf_type;
	a->out_prefetch_id = adv.pf_type ? adv.pf_id : -1;
	a->out_accessed_by_host = adv.acc_host;
	a->out_accessed_by = adv.acc_gpus;
	return CUDA_SUCCESS;
}

/* A prefetch waiting for its stream. */
struct pageable_prefetch {
	uintptr_t start;
	uintptr_t end;
	struct pchange c;
	int node;		/* where the pages go, -1: they stay */
};

/* Move the pages of [start, end) that exist to @node; a hint: no error. */
static void pageable_move(uintptr_t start, uintptr_t end, int node)
{
	void *pages[PAGEABLE_MOVE_BATCH];
	int nodes[PAGEABLE_MOVE_BATCH], status[PAGEABLE_MOVE_BATCH];
	uintptr_t pg = (uintptr_t)page_size(), cur = start;
	unsigned long n;

	while (cur < end) {
		for (n = 0; n < PAGEABLE_MOVE_BATCH && cur < end;
		     n++, cur += pg) {
			pages[n] = (void *)cur;
			nodes[n] = node;
		}
		syscall(SYS_move_pages, 0, n, pages, nodes, status,
			MPOL_MF_MOVE);
	}
}

/* The stream reached the prefetch (host thread): record, then move. */
static void CUDA_CB pageable_prefetch_run(CUstream h, CUresult status,
					  void *data)
{
	struct pageable_prefetch *p = data;

	(void)h;
	/* a failed stream does not reach it */
	if (status == CUDA_SUCCESS &&
	    !pageable_change(p->start, p->end, &p->c) && p->node >= 0)
		pageable_move(p->start, p->end, p->node);
	free(p);
}

/*
 * cuMemPrefetchAsync of pageable memory to a kernel-form location, in the
 * order of stream @h (resolved to @s; @per_thread as for the NULL stream).
 */
CUresult cufab_pageable_prefetch(CUdeviceptr ptr, size_t count, __u32 type,
				 __s32 id, CUstream h, int per_thread,
				 const struct cufab_lstream *s)
{
	struct pageable_prefetch *p;
	uintptr_t start, end;
	CUresult res;
	int node = -1;

	if (!kgpu_pageable((__s32)s->kdev) ||
	    !pageable_range(ptr, count, &start, &end))
		return CUDA_ERROR_INVALID_VALUE;
	res = pageable_loc(&type, &id, 0);
	if (res != CUDA_SUCCESS)
		return res;
	if (type == CUFAB_LOC_DEVICE)
		node = cufab.kdev[id].host_numa_node;
	else if (type == CUFAB_LOC_HOST_NUMA)
		node = id;
	p = malloc(sizeof(*p));
	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	p->start = start;
	p->end = end;
	p->c = (struct pchange){ .type = type, .id = id };
	p->node = node;
	res = cufab_stream_host_call(h, per_thread, pageable_prefetch_run, p);
	if (res != CUDA_SUCCESS)
		free(p);
	return res;
}
