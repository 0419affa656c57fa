/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The advice segments of one managed allocation (alloc_managed.c): a
 * sorted array of page ranges covering the allocation, each with the
 * read-mostly, preferred-location, accessed-by and last-prefetch state of
 * its pages. A change splits at most two segments and merges equal
 * neighbours after, so the array is only as long as the advice is varied.
 * No locking: the owner's lock covers it (struct cufab_managed.lock).
 */
#ifndef _CUFAB_MANAGED_SEG_H
#define _CUFAB_MANAGED_SEG_H

#include <linux/types.h>

/* A location as advice and prefetches record it. */
struct cufab_managed_loc {
	u32 type;	/* CUFAB_LOC_*, 0: none */
	s32 id;
	int nid;	/* where its pages go, NUMA_NO_NODE: anywhere */
};

struct cufab_managed_advice {
	bool read_mostly;
	bool accessed_host;
	u64 accessed_gpus;
	struct cufab_managed_loc preferred;
	struct cufab_managed_loc prefetch;
};

/* Pages [start, end) of the allocation. */
struct cufab_managed_seg {
	u64 start;
	u64 end;
	struct cufab_managed_advice adv;
};

/**
 * struct cufab_managed_segs - the segments of one allocation
 * @nr: segments in use, >= 1
 * @cap: segments allocated
 * @seg: sorted, contiguous, non-empty (but for an allocation of no page),
 *	covering every page; no two neighbours have equal advice
 */
struct cufab_managed_segs {
	u32 nr;
	u32 cap;
	struct cufab_managed_seg *seg;
};

/* One change of advice, applied to every page of a range. */
struct cufab_advice_change {
	u32 advice;	/* enum cufab_mem_advice, or 0 for a prefetch */
	struct cufab_managed_loc loc;
};

/* One segment of @pages pages with no advice: 0 or -ENOMEM. */
int cufab_managed_segs_init(struct cufab_managed_segs *s, u64 pages);
void cufab_managed_segs_destroy(struct cufab_managed_segs *s);

/*
 * Apply @c to pages [first, last), first <= last <= the allocation's
 * pages (an empty range changes nothing): 0, or -ENOMEM and nothing
 * changed.
 */
int cufab_managed_segs_change(struct cufab_managed_segs *s, u64 first,
			      u64 last, const struct cufab_advice_change *c);

/*
 * What pages [first, last) have in common: a flag or location only if
 * every page has it, accessed-by GPUs every page has.
 */
void cufab_managed_segs_query(const struct cufab_managed_segs *s, u64 first,
			      u64 last, struct cufab_managed_advice *out);

/* The node page @index populated now goes to, NUMA_NO_NODE: anywhere. */
int cufab_managed_segs_nid(const struct cufab_managed_segs *s, u64 index);

#endif /* _CUFAB_MANAGED_SEG_H */
