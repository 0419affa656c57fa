// SPDX-License-Identifier: GPL-2.0
/*
 * The window page provider (struct cufab_page_provider): the pages of
 * an allocation that may be exported as FABRIC come from this node's
 * slice of the fabric window (fabric_window.c), where every other node of
 * the domain maps them too. The range is reserved, zeroed, whole at
 * create, so a full slice fails the create rather than a later fault; a
 * page is then its index in the range, and the range goes whole after the
 * final put; a range a team record described to other nodes goes back
 * only once they let go of their replicas of it (cufab_window_keep()).
 *
 * Locks: none of its own; the slice's, in fabric_window.c.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "cufab.h"
#include "fabric.h"

/*
 * alloc->backing of an allocation with window pages; @told: a team
 * record described it to other nodes (fabric_team.c), which may hold
 * replicas of it
 */
struct cufab_window_extent {
	u64 offset;
	bool told;
};

u64 cufab_window_alloc_offset(const struct cufab_alloc *alloc)
{
	const struct cufab_window_extent *ext = alloc->backing;

	return ext->offset;
}

/* Other nodes may come to hold replicas of @alloc's range. */
void cufab_window_alloc_told(const struct cufab_alloc *alloc)
{
	struct cufab_window_extent *ext = alloc->backing;

	WRITE_ONCE(ext->told, true);
}

static int cufab_window_attach(struct cufab_alloc *alloc)
{
	struct cufab_window_extent *ext;
	int ret;

	ext = kzalloc(sizeof(*ext), GFP_KERNEL_ACCOUNT);
	if (!ext)
		return -ENOMEM;
	ret = cufab_window_reserve(alloc->length, &ext->offset);
	if (ret) {
		kfree(ext);
		return ret;
	}
	alloc->backing = ext;
	return 0;
}

static void cufab_window_detach(struct cufab_alloc *alloc)
{
	struct cufab_window_extent *ext = alloc->backing;

	if (READ_ONCE(ext->told))
		cufab_window_keep(ext->offset, alloc->length);
	else
		cufab_window_unreserve(ext->offset, alloc->length);
	kfree(ext);
}

/* The range was zeroed at attach: every page of it is zeroed already. */
static struct page *cufab_window_get_page(struct cufab_alloc *alloc,
					  pgoff_t index, int nid, gfp_t gfp)
{
	return cufab_window_page(cufab_window_alloc_offset(alloc) +
				 ((u64)index << PAGE_SHIFT));
}

/*
 * Nothing to give back page by page: a page is its index in the range,
 * which goes whole at detach (and a first touch that lost a race was
 * handed the very page the winner stored).
 */
static void cufab_window_put_page(struct cufab_alloc *alloc, pgoff_t index,
				  struct page *page)
{
}

/*
 * This node's slice: FABRIC-exportable memory, which other nodes map
 * where it is. Its pages have one place (no CUFAB_PAGES_NUMA).
 */
const struct cufab_page_provider cufab_window_pages = {
	.name = "window",
	.flags = CUFAB_PAGES_FABRIC,
	.attach = cufab_window_attach,
	.detach = cufab_window_detach,
	.get_page = cufab_window_get_page,
	.put_page = cufab_window_put_page,
};
