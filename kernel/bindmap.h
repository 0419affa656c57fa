/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A binding map: what memory is bound at which offset of one device's
 * slice of a logical endpoint or multicast object. Bindings never overlap;
 * the map is an rbtree ordered by offset, so bind, unbind and lookup are
 * O(log n) whatever the number of live bindings.
 *
 * The map does no locking: its team's lock protects it (team.h).
 */
#ifndef _CUFAB_BINDMAP_H
#define _CUFAB_BINDMAP_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>

struct cufab_alloc;

/**
 * struct cufab_binding - [offset, offset + size) of the object is
 *	[mem_offset, mem_offset + size) of @alloc
 * @node: in the map's tree
 * @list: on a caller's list once removed from the map
 * @offset: in the endpoint or multicast object
 * @size: bytes, > 0
 * @alloc: one reference, dropped by cufab_binding_free()
 * @mem_offset: into @alloc
 * @owner: who may unbind it and whose death removes it (the client)
 * @tag: finer owner within @owner (an endpoint alias, NULL for none);
 *	cufab_bindmap_remove_owner() matches it when given
 * @pid: tgid of the binding process, for netlink
 */
struct cufab_binding {
	struct rb_node node;
	struct list_head list;
	u64 offset;
	u64 size;
	struct cufab_alloc *alloc;
	u64 mem_offset;
	const void *owner;
	const void *tag;
	pid_t pid;
};

/**
 * struct cufab_bindmap - the bindings of one device
 * @root: struct cufab_binding by offset
 * @count: bindings in @root
 * @bytes: sum of their sizes
 */
struct cufab_bindmap {
	struct rb_root root;
	u64 count;
	u64 bytes;
};

void cufab_bindmap_init(struct cufab_bindmap *map);

/*
 * Allocate a binding (GFP_KERNEL_ACCOUNT) taking a reference on @alloc.
 * NULL on -ENOMEM. Free with cufab_binding_free() unless inserted.
 */
struct cufab_binding *cufab_binding_new(u64 offset, u64 size,
					struct cufab_alloc *alloc,
					u64 mem_offset, const void *owner,
					const void *tag);
/* Drop the allocation reference and free. @b must not be in a map. */
void cufab_binding_free(struct cufab_binding *b);
/* cufab_binding_free() every entry of a list built by the remove calls. */
void cufab_bindings_free(struct list_head *list);

/*
 * Insert @b. -EEXIST when [offset, offset + size) overlaps a binding
 * (which one is returned in *@clash when @clash is not NULL), -EINVAL for
 * a zero size or an offset + size overflow. The map owns @b on success.
 */
int cufab_bindmap_insert(struct cufab_bindmap *map, struct cufab_binding *b,
			 struct cufab_binding **clash);

/* The binding containing @offset, or NULL. */
struct cufab_binding *cufab_bindmap_lookup(struct cufab_bindmap *map,
					   u64 offset);
/* The first binding ending after @offset (containing or after it), or NULL. */
struct cufab_binding *cufab_bindmap_first_from(struct cufab_bindmap *map,
					       u64 offset);
struct cufab_binding *cufab_bindmap_next(struct cufab_binding *b);

/*
 * Unbind with the rules of cuLogicalEndpointUnbind / cuMulticastUnbind:
 * a binding must start exactly at @offset, and [offset, offset + size)
 * must be exactly the union of the consecutive, adjacent bindings that
 * start there (one bind, or several back to back, fully enclosed). Every
 * one of them must belong to @owner. On success they leave the map and
 * are added to @out (free them with cufab_bindings_free() after dropping
 * the team lock); on error the map is unchanged and the return value says
 * which rule broke:
 *   -ENOENT  no binding starts at @offset
 *   -EINVAL  @size ends inside a binding, or there is a gap before it ends
 *   -EPERM   a binding in the range belongs to another owner
 * *@bad (when not NULL) gets the offset where the rule broke, for the
 * caller's log line.
 */
int cufab_bindmap_remove_range(struct cufab_bindmap *map, u64 offset,
			       u64 size, const void *owner,
			       struct list_head *out, u64 *bad);

/*
 * Move every binding of @owner (and of @tag too, when @tag is not NULL)
 * to @out. Returns how many.
 */
u64 cufab_bindmap_remove_owner(struct cufab_bindmap *map, const void *owner,
			       const void *tag, struct list_head *out);
/* Move every binding to @out (teardown). */
void cufab_bindmap_remove_all(struct cufab_bindmap *map,
			      struct list_head *out);

#endif /* _CUFAB_BINDMAP_H */
