// SPDX-License-Identifier: GPL-2.0
/*
 * The remote page provider (struct cufab_page_provider): the pages of an
 * import of another node's FABRIC export (fabric_remote.c) are that
 * node's range of the fabric window, which this node maps too. Nothing
 * is reserved or freed here: the range is the exporter's, and lives until
 * the exporter hears that the import let go.
 */
#include <linux/mm.h>

#include "cufab.h"
#include "fabric.h"

/* The exporter's page at @index: its window range, mapped on every node. */
static struct page *cufab_remote_get_page(struct cufab_alloc *alloc,
					  pgoff_t index, int nid, gfp_t gfp)
{
	const struct cufab_remote_import *imp = alloc->priv;

	return cufab_window_page(imp->offset + ((u64)index << PAGE_SHIFT));
}

/* The exporter's pages are its own: nothing of them is this node's. */
static void cufab_remote_put_page(struct cufab_alloc *alloc, pgoff_t index,
				  struct page *page)
{
}

const struct cufab_page_provider cufab_remote_pages = {
	.name = "remote",
	.flags = CUFAB_PAGES_FABRIC,
	.get_page = cufab_remote_get_page,
	.put_page = cufab_remote_put_page,
};
