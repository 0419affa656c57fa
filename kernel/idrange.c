// SPDX-License-Identifier: GPL-2.0
/*
 * Logical endpoint id spaces (idrange.h): reserved ids as disjoint,
 * non-touching ranges in an rbtree ordered by base.
 *
 * Reservation is lowest fit: walk the ranges in order, looking at the hole
 * before each, and take the first hole long enough. That walk is O(ranges),
 * not O(log ranges): the tree is not augmented with the largest hole of
 * each subtree, because a process holds few ranges (adjacent reservations
 * merge, so even a million single-id reservations in a row stay one node)
 * and reservation is rare next to bind and lookup. Lookup and release are
 * O(log ranges).
 *
 * Arithmetic on range ends is done in u64: a range may end at the top of
 * the 32-bit id space.
 */
#include <linux/slab.h>

#include "fault.h"
#include "idrange.h"

static inline u64 cufab_idrange_end(const struct cufab_idrange *r)
{
	return (u64)r->base + r->count;
}

static inline struct cufab_idrange *cufab_idrange_of(struct rb_node *n)
{
	return n ? rb_entry(n, struct cufab_idrange, node) : NULL;
}

static bool cufab_idrange_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct cufab_idrange, node)->base <
	       rb_entry(b, struct cufab_idrange, node)->base;
}

void cufab_idspace_init(struct cufab_idspace *space, u32 first, u32 last)
{
	space->root = RB_ROOT;
	space->first = first;
	space->last = last;
	space->reserved = 0;
	space->ranges = 0;
}

void cufab_idspace_destroy(struct cufab_idspace *space)
{
	struct cufab_idrange *r, *tmp;

	rbtree_postorder_for_each_entry_safe(r, tmp, &space->root, node)
		kfree(r);
	cufab_idspace_init(space, space->first, space->last);
}

static struct cufab_idrange *cufab_idrange_new(u32 base, u32 count)
{
	struct cufab_idrange *r;

	if (cufab_should_fail(CUFAB_FAULT_BIND))
		return NULL;
	r = kmalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;
	RB_CLEAR_NODE(&r->node);
	r->base = base;
	r->count = count;
	return r;
}

static void cufab_idrange_insert(struct cufab_idspace *space,
				 struct cufab_idrange *r)
{
	rb_add(&r->node, &space->root, cufab_idrange_less);
	space->ranges++;
}

static void cufab_idrange_erase(struct cufab_idspace *space,
				struct cufab_idrange *r)
{
	rb_erase(&r->node, &space->root);
	space->ranges--;
	kfree(r);
}

/* The range containing @id, or NULL. */
static struct cufab_idrange *cufab_idrange_find(struct cufab_idspace *space,
						u32 id)
{
	struct rb_node *n = space->root.rb_node;
	struct cufab_idrange *r;

	while (n) {
		r = cufab_idrange_of(n);
		if (id < r->base)
			n = n->rb_left;
		else if (id >= cufab_idrange_end(r))
			n = n->rb_right;
		else
			return r;
	}
	return NULL;
}

/*
 * Place [base, base + count) in the hole between @prev and @next (either
 * may be NULL), merging with the neighbours it touches so that ranges
 * never touch. Only a hole touching neither needs a new node.
 */
static int cufab_idspace_fill(struct cufab_idspace *space,
			      struct cufab_idrange *prev,
			      struct cufab_idrange *next, u32 base, u32 count)
{
	bool join_prev = prev && cufab_idrange_end(prev) == base;
	bool join_next = next && (u64)base + count == next->base;
	struct cufab_idrange *r;

	if (join_prev && join_next) {
		prev->count += count + next->count;
		cufab_idrange_erase(space, next);
	} else if (join_prev) {
		prev->count += count;
	} else if (join_next) {
		/* still ordered: nothing lies between prev and next */
		next->base = base;
		next->count += count;
	} else {
		r = cufab_idrange_new(base, count);
		if (!r)
			return -ENOMEM;
		cufab_idrange_insert(space, r);
	}
	space->reserved += count;
	return 0;
}

int cufab_idspace_reserve(struct cufab_idspace *space, u32 count, u32 *base)
{
	struct cufab_idrange *prev = NULL, *r;
	u64 cand = space->first, last = space->last;
	struct rb_node *n;
	int ret;

	if (!count)
		return -EINVAL;
	/* O(ranges): see the comment at the top of the file */
	for (n = rb_first(&space->root); n; n = rb_next(n)) {
		r = cufab_idrange_of(n);
		if (r->base >= cand && r->base - cand >= count)
			break;
		if (cufab_idrange_end(r) > cand)
			cand = cufab_idrange_end(r);
		prev = r;
	}
	r = cufab_idrange_of(n);
	if (cand > last || last - cand + 1 < count)
		return -ENOSPC;
	ret = cufab_idspace_fill(space, prev, r, cand, count);
	if (!ret)
		*base = cand;
	return ret;
}

bool cufab_idspace_is_reserved(struct cufab_idspace *space, u32 base,
			       u32 count)
{
	struct cufab_idrange *r;

	if (!count)
		return false;
	/* ranges never touch, so a reserved run lies inside one node */
	r = cufab_idrange_find(space, base);
	return r && (u64)base + count <= cufab_idrange_end(r);
}

int cufab_idspace_release(struct cufab_idspace *space, u32 base, u32 count)
{
	struct cufab_idrange *r, *tail;
	u64 end = (u64)base + count;

	if (!cufab_idspace_is_reserved(space, base, count))
		return -EINVAL;
	r = cufab_idrange_find(space, base);
	if (r->base == base && cufab_idrange_end(r) == end) {
		cufab_idrange_erase(space, r);
	} else if (r->base == base) {
		r->base += count;
		r->count -= count;
	} else if (cufab_idrange_end(r) == end) {
		r->count -= count;
	} else {
		/* a hole in the middle: the part after it needs a node */
		tail = cufab_idrange_new(end, cufab_idrange_end(r) - end);
		if (!tail)
			return -ENOMEM;
		r->count = base - r->base;
		cufab_idrange_insert(space, tail);
	}
	space->reserved -= count;
	return 0;
}

int cufab_idspace_for_each(struct cufab_idspace *space,
			   int (*fn)(u32 base, u32 count, void *arg),
			   void *arg)
{
	struct cufab_idrange *r;
	struct rb_node *n;
	int ret = 0;

	for (n = rb_first(&space->root); n && !ret; n = rb_next(n)) {
		r = cufab_idrange_of(n);
		ret = fn(r->base, r->count, arg);
	}
	return ret;
}
