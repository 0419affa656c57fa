// SPDX-License-Identifier: GPL-2.0
/*
 * The advice segments of a managed allocation (managed_seg.h): what
 * cuMemAdvise and cuMemPrefetchAsync recorded for each page, as few
 * ranges as the advice is varied. alloc_managed.c owns the allocation
 * and the lock; this file knows only the array.
 */
#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/cufab.h>

#include "managed_seg.h"

/* Segments an allocation starts with room for. */
#define CUFAB_MANAGED_SEGS_FIRST	4

static bool cufab_loc_equal(const struct cufab_managed_loc *a,
			    const struct cufab_managed_loc *b)
{
	return a->type == b->type && (!a->type || a->id == b->id);
}

static bool cufab_advice_equal(const struct cufab_managed_advice *a,
			       const struct cufab_managed_advice *b)
{
	return a->read_mostly == b->read_mostly &&
	       a->accessed_host == b->accessed_host &&
	       a->accessed_gpus == b->accessed_gpus &&
	       cufab_loc_equal(&a->preferred, &b->preferred) &&
	       cufab_loc_equal(&a->prefetch, &b->prefetch);
}

int cufab_managed_segs_init(struct cufab_managed_segs *s, u64 pages)
{
	s->seg = kcalloc(CUFAB_MANAGED_SEGS_FIRST, sizeof(*s->seg),
			 GFP_KERNEL_ACCOUNT);
	if (!s->seg)
		return -ENOMEM;
	s->cap = CUFAB_MANAGED_SEGS_FIRST;
	s->nr = 1;
	s->seg[0].end = pages;
	s->seg[0].adv.preferred.nid = NUMA_NO_NODE;
	s->seg[0].adv.prefetch.nid = NUMA_NO_NODE;
	return 0;
}

void cufab_managed_segs_destroy(struct cufab_managed_segs *s)
{
	kfree(s->seg);
	s->seg = NULL;
	s->nr = 0;
	s->cap = 0;
}

/* Room for two more segments (one range splits at most two). */
static int cufab_managed_segs_reserve(struct cufab_managed_segs *s)
{
	struct cufab_managed_seg *seg;
	u32 cap;

	if (s->nr + 2 <= s->cap)
		return 0;
	cap = max(s->cap * 2, s->nr + 2);
	seg = krealloc_array(s->seg, cap, sizeof(*seg), GFP_KERNEL_ACCOUNT);
	if (!seg)
		return -ENOMEM;
	s->seg = seg;
	s->cap = cap;
	return 0;
}

/* Make @at a segment boundary. Context: room reserved. */
static void cufab_managed_segs_split(struct cufab_managed_segs *s, u64 at)
{
	struct cufab_managed_seg *seg;
	u32 i;

	for (i = 0; i < s->nr; i++) {
		seg = &s->seg[i];
		if (at <= seg->start || at >= seg->end)
			continue;
		memmove(&s->seg[i + 2], &s->seg[i + 1],
			(s->nr - i - 1) * sizeof(*seg));
		s->seg[i + 1] = *seg;
		s->seg[i + 1].start = at;
		seg->end = at;
		s->nr++;
		return;
	}
}

static void cufab_managed_segs_merge(struct cufab_managed_segs *s)
{
	u32 i, out = 0;

	for (i = 1; i < s->nr; i++) {
		if (cufab_advice_equal(&s->seg[out].adv, &s->seg[i].adv))
			s->seg[out].end = s->seg[i].end;
		else
			s->seg[++out] = s->seg[i];
	}
	s->nr = out + 1;
}

static void cufab_advice_apply(struct cufab_managed_advice *adv,
			       const struct cufab_advice_change *c)
{
	bool host = c->loc.type != CUFAB_LOC_DEVICE;
	u64 gpu = host ? 0 : BIT_ULL(c->loc.id);

	switch (c->advice) {
	case CUFAB_ADVISE_SET_READ_MOSTLY:
	case CUFAB_ADVISE_UNSET_READ_MOSTLY:
		adv->read_mostly = c->advice == CUFAB_ADVISE_SET_READ_MOSTLY;
		break;
	case CUFAB_ADVISE_SET_PREFERRED_LOCATION:
		adv->preferred = c->loc;
		break;
	case CUFAB_ADVISE_UNSET_PREFERRED_LOCATION:
		adv->preferred = (struct cufab_managed_loc){ .nid = NUMA_NO_NODE };
		break;
	case CUFAB_ADVISE_SET_ACCESSED_BY:
		adv->accessed_gpus |= gpu;
		adv->accessed_host |= host;
		break;
	case CUFAB_ADVISE_UNSET_ACCESSED_BY:
		adv->accessed_gpus &= ~gpu;
		if (host)
			adv->accessed_host = false;
		break;
	default:	/* a prefetch */
		adv->prefetch = c->loc;
		break;
	}
}

int cufab_managed_segs_change(struct cufab_managed_segs *s, u64 first,
			      u64 last, const struct cufab_advice_change *c)
{
	u32 i;
	int ret;

	ret = cufab_managed_segs_reserve(s);
	if (ret)
		return ret;
	cufab_managed_segs_split(s, first);
	cufab_managed_segs_split(s, last);
	for (i = 0; i < s->nr; i++)
		if (s->seg[i].start >= first && s->seg[i].end <= last)
			cufab_advice_apply(&s->seg[i].adv, c);
	cufab_managed_segs_merge(s);
	return 0;
}

/* A location shared by every segment so far, or none. */
static void cufab_loc_fold(struct cufab_managed_loc *acc,
			   const struct cufab_managed_loc *loc, bool first)
{
	if (first)
		*acc = *loc;
	else if (!cufab_loc_equal(acc, loc))
		acc->type = 0;
}

void cufab_managed_segs_query(const struct cufab_managed_segs *s, u64 first,
			      u64 last, struct cufab_managed_advice *out)
{
	const struct cufab_managed_seg *seg;
	bool none = true;
	u32 i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->nr; i++) {
		seg = &s->seg[i];
		if (seg->end <= first || seg->start >= last)
			continue;
		cufab_loc_fold(&out->preferred, &seg->adv.preferred, none);
		cufab_loc_fold(&out->prefetch, &seg->adv.prefetch, none);
		out->read_mostly = seg->adv.read_mostly &&
				   (none || out->read_mostly);
		out->accessed_host = seg->adv.accessed_host &&
				     (none || out->accessed_host);
		out->accessed_gpus = none ? seg->adv.accessed_gpus :
				     out->accessed_gpus & seg->adv.accessed_gpus;
		none = false;
	}
}

int cufab_managed_segs_nid(const struct cufab_managed_segs *s, u64 index)
{
	const struct cufab_managed_seg *seg;
	u32 i;

	for (i = 0; i < s->nr; i++) {
		seg = &s->seg[i];
		if (index < seg->start || index >= seg->end)
			continue;
		return seg->adv.prefetch.type ? seg->adv.prefetch.nid :
		       seg->adv.preferred.nid;
	}
	return NUMA_NO_NODE;
}
