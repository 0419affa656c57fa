// SPDX-License-Identifier: GPL-2.0
/*
 * The local page provider (struct cufab_page_provider): the pages of an
 * allocation come from this node's page allocator, one 4 KiB page at a
 * time on the node asked for, and go back to it. Every allocation of a
 * node alone has its pages from here; they can move between NUMA nodes
 * (managed memory's prefetch and advice), and no other node reaches them.
 *
 * Locks: none; the allocation's page store (alloc.c) serialises nothing
 * either: it publishes with xa_cmpxchg() and gives back a page that lost
 * the race.
 */
#include <linux/gfp.h>
#include <linux/mm.h>

#include "cufab.h"

static struct page *cufab_local_get_page(struct cufab_alloc *alloc,
					 pgoff_t index, int nid, gfp_t gfp)
{
	return alloc_pages_node(nid, gfp, 0);
}

static void cufab_local_put_page(struct cufab_alloc *alloc, pgoff_t index,
				 struct page *page)
{
	__free_page(page);
}

const struct cufab_page_provider cufab_local_pages = {
	.name = "local",
	.flags = CUFAB_PAGES_NUMA,
	.get_page = cufab_local_get_page,
	.put_page = cufab_local_put_page,
};
