// SPDX-License-Identifier: GPL-2.0
/*
 * Binding maps (bindmap.h): the memory bound on one device of a logical
 * endpoint or multicast object, as non-overlapping [offset, offset + size)
 * intervals in an rbtree ordered by offset.
 *
 * Because the intervals are disjoint, ordering by start also orders them
 * by end, so one descent finds the interval containing an offset, the
 * first one ending after an offset, or an interval overlapping a new one:
 * every operation is O(log n) plus the bindings it returns.
 *
 * No locking here: the team's lock covers the map (team.h). Bindings hold
 * a reference on their allocation; they are freed only after the caller
 * dropped that lock, because the last put of an allocation frees its pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/slab.h>

#include "cufab.h"

static inline u64 cufab_binding_end(const struct cufab_binding *b)
{
	return b->offset + b->size;
}

void cufab_bindmap_init(struct cufab_bindmap *map)
{
	map->root = RB_ROOT;
	map->count = 0;
	map->bytes = 0;
}

struct cufab_binding *cufab_binding_new(u64 offset, u64 size,
					struct cufab_alloc *alloc,
					u64 mem_offset, const void *owner,
					const void *tag)
{
	struct cufab_binding *b;

	if (cufab_should_fail(CUFAB_FAULT_BIND))
		return NULL;
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return NULL;
	RB_CLEAR_NODE(&b->node);
	INIT_LIST_HEAD(&b->list);
	b->offset = offset;
	b->size = size;
	b->alloc = alloc;
	b->mem_offset = mem_offset;
	b->owner = owner;
	b->tag = tag;
	b->pid = task_tgid_nr(current);
	cufab_alloc_get(alloc);
	cufab_live_objects_inc();
	return b;
}

void cufab_binding_free(struct cufab_binding *b)
{
	WARN_ON_ONCE(!RB_EMPTY_NODE(&b->node));
	cufab_alloc_put(b->alloc);
	kfree(b);
	cufab_live_objects_dec();
}

void cufab_bindings_free(struct list_head *list)
{
	struct cufab_binding *b, *tmp;

	list_for_each_entry_safe(b, tmp, list, list) {
		list_del(&b->list);
		cufab_binding_free(b);
	}
}

int cufab_bindmap_insert(struct cufab_bindmap *map, struct cufab_binding *b,
			 struct cufab_binding **clash)
{
	struct rb_node **link = &map->root.rb_node, *parent = NULL;
	struct cufab_binding *cur;

	if (!b->size || b->offset + b->size < b->offset)
		return -EINVAL;
	/*
	 * A node wholly after @b has every node of its right subtree after
	 * @b too, so an overlapping node, if any, lies on this one path.
	 */
	while (*link) {
		parent = *link;
		cur = rb_entry(parent, struct cufab_binding, node);
		if (cufab_binding_end(b) <= cur->offset) {
			link = &parent->rb_left;
		} else if (b->offset >= cufab_binding_end(cur)) {
			link = &parent->rb_right;
		} else {
			if (clash)
				*clash = cur;
			return -EEXIST;
		}
	}
	rb_link_node(&b->node, parent, link);
	rb_insert_color(&b->node, &map->root);
	map->count++;
	map->bytes += b->size;
	return 0;
}

struct cufab_binding *cufab_bindmap_lookup(struct cufab_bindmap *map,
					   u64 offset)
{
	struct rb_node *n = map->root.rb_node;
	struct cufab_binding *b;

	while (n) {
		b = rb_entry(n, struct cufab_binding, node);
		if (offset < b->offset)
			n = n->rb_left;
		else if (offset >= cufab_binding_end(b))
			n = n->rb_right;
		else
			return b;
	}
	return NULL;
}

struct cufab_binding *cufab_bindmap_first_from(struct cufab_bindmap *map,
					       u64 offset)
{
	struct rb_node *n = map->root.rb_node;
	struct cufab_binding *b, *found = NULL;

	/* ends grow with starts: the leftmost node ending after @offset */
	while (n) {
		b = rb_entry(n, struct cufab_binding, node);
		if (cufab_binding_end(b) > offset) {
			found = b;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return found;
}

struct cufab_binding *cufab_bindmap_next(struct cufab_binding *b)
{
	struct rb_node *n = rb_next(&b->node);

	return n ? rb_entry(n, struct cufab_binding, node) : NULL;
}

static void cufab_bindmap_erase(struct cufab_bindmap *map,
				struct cufab_binding *b, struct list_head *out)
{
	rb_erase(&b->node, &map->root);
	RB_CLEAR_NODE(&b->node);
	map->count--;
	map->bytes -= b->size;
	list_add_tail(&b->list, out);
}

/*
 * Check [offset, offset + size) against the unbind rules without touching
 * the map. The shape of the range (a bind starts at @offset, no gap, no
 * bind cut at the end) is judged first: a malformed request is invalid
 * whoever owns the bindings it names.
 */
static int cufab_bindmap_check_range(struct cufab_bindmap *map, u64 offset,
				     u64 size, const void *owner, u64 *bad)
{
	u64 cur = offset, end = offset + size, eperm_at = 0;
	struct cufab_binding *b;
	bool eperm = false;

	b = cufab_bindmap_lookup(map, offset);
	if (!b || b->offset != offset) {
		*bad = offset;
		return -ENOENT;
	}
	while (cur < end) {
		if (!b || b->offset != cur) {
			*bad = cur;		/* a gap before the end */
			return -EINVAL;
		}
		if (b->size > end - cur) {
			*bad = b->offset;	/* the range ends inside b */
			return -EINVAL;
		}
		if (b->owner != owner && !eperm) {
			eperm = true;
			eperm_at = b->offset;
		}
		cur += b->size;
		b = cufab_bindmap_next(b);
	}
	if (eperm) {
		*bad = eperm_at;
		return -EPERM;
	}
	return 0;
}

int cufab_bindmap_remove_range(struct cufab_bindmap *map, u64 offset,
			       u64 size, const void *owner,
			       struct list_head *out, u64 *bad)
{
	struct cufab_binding *b, *next;
	u64 cur, unused;
	int ret;

	if (!bad)
		bad = &unused;
	if (!size || offset + size < offset) {
		*bad = offset;
		return -EINVAL;
	}
	ret = cufab_bindmap_check_range(map, offset, size, owner, bad);
	if (ret)
		return ret;
	b = cufab_bindmap_lookup(map, offset);
	for (cur = offset; cur < offset + size; b = next) {
		next = cufab_bindmap_next(b);
		cur += b->size;
		cufab_bindmap_erase(map, b, out);
	}
	return 0;
}

u64 cufab_bindmap_remove_owner(struct cufab_bindmap *map, const void *owner,
			       const void *tag, struct list_head *out)
{
	struct rb_node *n = rb_first(&map->root), *next;
	struct cufab_binding *b;
	u64 removed = 0;

	for (; n; n = next) {
		next = rb_next(n);
		b = rb_entry(n, struct cufab_binding, node);
		if (b->owner != owner || (tag && b->tag != tag))
			continue;
		cufab_bindmap_erase(map, b, out);
		removed++;
	}
	return removed;
}

void cufab_bindmap_remove_all(struct cufab_bindmap *map,
			      struct list_head *out)
{
	struct cufab_binding *b, *tmp;

	/* postorder: no rebalancing, every node is visited once */
	rbtree_postorder_for_each_entry_safe(b, tmp, &map->root, node) {
		RB_CLEAR_NODE(&b->node);
		list_add_tail(&b->list, out);
	}
	cufab_bindmap_init(map);
}
