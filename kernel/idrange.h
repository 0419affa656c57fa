/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logical endpoint ids of one client (cuLogicalEndpointIdReserve/Release).
 *
 * Ids are per process. Reserved ids are kept as ranges in an rbtree, so a
 * reservation of a million ids costs one node; ids associated with an
 * endpoint are the only per-id state and live in an xarray (le.c). The
 * allocator hands out [CUFAB_LE_ID_FIRST, CUFAB_LE_ID_LAST]; id 0
 * (CUFAB_LE_ID_INVALID) never is. No locking: the owner's lock covers it.
 */
#ifndef _CUFAB_IDRANGE_H
#define _CUFAB_IDRANGE_H

#include <linux/rbtree.h>
#include <linux/types.h>

#define CUFAB_LE_ID_FIRST	1U
#define CUFAB_LE_ID_LAST	0xfffffffeU

/**
 * struct cufab_idrange - one reserved range [base, base + count)
 * @node: in struct cufab_idspace.root, ordered by @base
 * @base: first id
 * @count: ids, >= 1
 */
struct cufab_idrange {
	struct rb_node node;
	u32 base;
	u32 count;
};

/**
 * struct cufab_idspace - the reserved ranges of one client
 * @root: struct cufab_idrange by base; ranges never overlap or touch
 *	(adjacent reservations are merged)
 * @first: lowest id the allocator may return
 * @last: highest id the allocator may return
 * @reserved: ids reserved in total
 * @ranges: nodes in @root
 */
struct cufab_idspace {
	struct rb_root root;
	u32 first;
	u32 last;
	u64 reserved;
	u32 ranges;
};

/* [first, last] is the id space (tests shrink it to force exhaustion). */
void cufab_idspace_init(struct cufab_idspace *space, u32 first, u32 last);
void cufab_idspace_destroy(struct cufab_idspace *space);

/*
 * Reserve @count contiguous ids at the lowest free fit: 0 and *@base, or
 * -EINVAL (@count 0), -ENOSPC (no contiguous free range that long),
 * -ENOMEM. The caller cannot choose the range.
 */
int cufab_idspace_reserve(struct cufab_idspace *space, u32 count, u32 *base);

/* True when every id of [base, base + count) is reserved. */
bool cufab_idspace_is_reserved(struct cufab_idspace *space, u32 base,
			       u32 count);

/*
 * Release [base, base + count): every id must be reserved (-EINVAL,
 * nothing changed). Splits a range when releasing from its middle, which
 * may need memory (-ENOMEM, nothing changed). Whether the ids are still
 * associated is the caller's check, made before.
 */
int cufab_idspace_release(struct cufab_idspace *space, u32 base, u32 count);

/* Walk the ranges in order; stops at the first non-zero return. */
int cufab_idspace_for_each(struct cufab_idspace *space,
			   int (*fn)(u32 base, u32 count, void *arg),
			   void *arg);

#endif /* _CUFAB_IDRANGE_H */
