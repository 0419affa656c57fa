// SPDX-License-Identifier: GPL-2.0
/*
 * The remote page provider (struct cufab_page_provider): the pages of an
 * import of another node's FABRIC export (fabric_remote.c) are that
 * node's range of the fabric window, which this node maps too. Nothing
 * is reserved or freed here: the range is the exporter's, and lives until
 * the exporter hears that the import let go.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>

#include "cufab.h"
#include "fabric.h"

/*
 * The exporter's page at @index: its window range, mapped on every node.
 * None once the exporter joined the domain again (its generation in the
 * window's header moved on): the range may be another allocation of its
 * new life, which this import must not reach. The fence.
 */
static struct page *cufab_remote_get_page(struct cufab_alloc *alloc,
					  pgoff_t index, int nid, gfp_t gfp)
{
	const struct cufab_remote_import *imp = alloc->priv;
	u64 gen = cufab_domain_generation(imp->node);

	if (gen != imp->generation) {
		pr_warn_ratelimited("import %llu of node %u's memory is fenced: node %u is at generation %llu, the import of generation %llu\n",
				    alloc->id, imp->node, imp->node, gen,
				    imp->generation);
		return NULL;
	}
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
