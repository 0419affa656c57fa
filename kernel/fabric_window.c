// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric window (Documentation/multinode.rst): memory every node of
 * the domain can load and store, where FABRIC-exportable allocations live
 * so that another node's import maps the very same pages.
 *
 * In the test cluster the window is an ivshmem-plain PCI device (1af4:1110)
 * whose BAR 2 is one host file shared by every guest. This file binds it,
 * gives the whole BAR struct pages (memremap_pages(), MEMORY_DEVICE_GENERIC:
 * the CPU view, copies and dma-bufs keep working on pages) and cuts it:
 *
 *   [0, H)                   the domain header (fabric_domain.c)
 *   [H + n * S, H + (n+1) S) the slice of node n, S = the rest / N
 *
 * in 2 MiB units, N being the module parameter num_nodes and H the
 * header's size (records and unit tags) rounded up to the unit (2 MiB up
 * to 1024 nodes and a 256 GiB window). Node 0
 * writes the geometry into the header; every other node checks it there
 * and refuses the window when it differs. A node allocates
 * only from its own slice, a bitmap of its units (the kernel's genalloc
 * is not built into every kernel: only drivers select it), so no
 * allocator state is shared
 * between nodes, so a node that dies leaves nothing half-updated in the
 * others'. Every node maps the whole window, so it can also reach any
 * other node's slice at the offset an import names (fabric_remote.c).
 *
 * FABRIC-exportable allocations take their pages through the window page
 * provider (pages_window.c), imports of other nodes' through the remote
 * one (pages_remote.c). Without the device (a node alone, or num_nodes=1)
 * there is no window and FABRIC allocations stay in local pages, as
 * always.
 *
 * Ranges other nodes may hold team replicas of (fabric_team.c) are not
 * freed at once: their units' tags move on (fabric_domain.c) and the
 * range stays reserved, kept, until every node that may still reach it
 * let go (the reclaim fence, Documentation/multinode.rst "Failure"),
 * polled every CUFAB_WINDOW_KEPT_POLL.
 *
 * Lifetime: the driver is bound at module load and unbound at unload only
 * (no sysfs unbind), when no allocation is left, so readers of
 * cufab_window need no lock beyond the module's own lifetime.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

#define CUFAB_WINDOW_BAR	2
#define CUFAB_WINDOW_UNIT	SZ_2M
#define CUFAB_WINDOW_KEPT_POLL	(HZ / 10)

static unsigned int num_nodes = 1;
module_param(num_nodes, uint, 0444);
MODULE_PARM_DESC(num_nodes,
		 "Nodes in the fabric domain, 1..1024: the fabric window is cut into that many slices (default 1)");

/**
 * struct cufab_window - the bound window
 * @pdev: the ivshmem device
 * @base: physical address of BAR 2
 * @size: its length
 * @virt: the kernel's mapping of the whole window
 * @pgmap: its ZONE_DEVICE pages
 * @used: this node's slice, a bit per 2 MiB unit
 * @units: units in a slice
 * @free: units not reserved
 * @slice: bytes per node
 * @slice_start: where node 0's slice starts, after the domain header
 */
struct cufab_window {
	struct pci_dev *pdev;
	phys_addr_t base;
	u64 size;
	void *virt;
	struct dev_pagemap pgmap;
	struct mutex lock;		/* guards used and free */
	unsigned long *used;
	unsigned long units;
	unsigned long free;
	u64 slice;
	u64 slice_start;
};

static struct cufab_window *cufab_window;

bool cufab_window_present(void)
{
	return cufab_window;
}

/*
 * The window's allocation unit: FABRIC memory pools grow by it instead of
 * by CUFAB_POOL_CHUNK, since a slice is much smaller than a GPU.
 */
u64 cufab_window_unit(void)
{
	return CUFAB_WINDOW_UNIT;
}

unsigned int cufab_domain_nodes(void)
{
	return num_nodes;
}

static u64 cufab_window_slice_start(const struct cufab_window *w,
				    unsigned int node)
{
	return w->slice_start + (u64)node * w->slice;
}

/* Read without the lock: a figure for messages and debugfs. */
static u64 cufab_window_free_bytes(const struct cufab_window *w)
{
	return (u64)READ_ONCE(w->free) * CUFAB_WINDOW_UNIT;
}

/**
 * cufab_window_page() - the struct page at a window offset
 * @offset: bytes from the window's start, any node's slice
 *
 * Return: the page, or NULL without a window or past its end.
 */
struct page *cufab_window_page(u64 offset)
{
	struct cufab_window *w = cufab_window;

	if (!w || offset >= w->size)
		return NULL;
	return pfn_to_page(PHYS_PFN(w->base + offset));
}

/*
 * Is [offset, offset + length) inside the slice of @node? An import must
 * name memory of its exporter's slice, nothing else of the window.
 */
bool cufab_window_owns(u64 offset, u64 length, unsigned int node)
{
	struct cufab_window *w = cufab_window;
	u64 start;

	if (!w || node >= num_nodes || !length)
		return false;
	start = cufab_window_slice_start(w, node);
	return offset >= start && length <= w->slice &&
	       offset - start <= w->slice - length &&
	       IS_ALIGNED(offset, PAGE_SIZE) && IS_ALIGNED(length, PAGE_SIZE);
}

/**
 * cufab_window_reserve() - zeroed window memory from this node's slice
 * @length: bytes, rounded up to 2 MiB
 * @offset: out, where it starts in the window
 *
 * One contiguous range, so that an import is one (offset, length) pair.
 * Reserved whole at create, not at first touch: a full slice fails
 * cuMemCreate, as a full GPU does, never a later fault.
 *
 * Context: may sleep (zeroing). Return: 0, -ENOMEM when the slice has no
 * such range or is still fenced (another node maps pages of this node's
 * previous generation), -ENODEV without a window.
 */
int cufab_window_reserve(u64 length, u64 *offset)
{
	struct cufab_window *w = cufab_window;
	u64 len = round_up(length, CUFAB_WINDOW_UNIT), done;
	unsigned long n, idx;
	int holder;

	if (!w)
		return -ENODEV;
	holder = cufab_domain_slice_fenced();
	if (holder >= 0) {
		pr_warn_ratelimited("fabric window: node %u's slice is fenced: node %d still maps memory of its previous generation\n",
				    cufab_node.node_index, holder);
		return -ENOMEM;
	}
	n = div_u64(len, CUFAB_WINDOW_UNIT);
	mutex_lock(&w->lock);
	idx = n <= w->units ?
	      bitmap_find_next_zero_area(w->used, w->units, 0, n, 0) : w->units;
	if (idx < w->units) {
		bitmap_set(w->used, idx, n);
		w->free -= n;
	}
	mutex_unlock(&w->lock);
	if (idx >= w->units) {
		pr_warn_ratelimited("fabric window: no %llu contiguous bytes left in node %u's slice (%llu of %llu free)\n",
				    len, cufab_node.node_index,
				    cufab_window_free_bytes(w), w->slice);
		return -ENOMEM;
	}
	*offset = cufab_window_slice_start(w, cufab_node.node_index) +
		  (u64)idx * CUFAB_WINDOW_UNIT;
	/* what another process, or a previous run, left there */
	for (done = 0; done < len; done += CUFAB_WINDOW_UNIT) {
		memset(w->virt + *offset + done, 0, CUFAB_WINDOW_UNIT);
		cond_resched();
	}
	return 0;
}

void cufab_window_unreserve(u64 offset, u64 length)
{
	struct cufab_window *w = cufab_window;
	unsigned long idx, n;

	if (WARN_ON_ONCE(!w))
		return;
	idx = div_u64(offset - cufab_window_slice_start(w, cufab_node.node_index),
		      CUFAB_WINDOW_UNIT);
	n = div_u64(round_up(length, CUFAB_WINDOW_UNIT), CUFAB_WINDOW_UNIT);
	mutex_lock(&w->lock);
	bitmap_clear(w->used, idx, n);
	w->free += n;
	mutex_unlock(&w->lock);
}

/*
 * A freed range other nodes may hold team replicas of: reserved until
 * each node of @pending let go (cufab_domain_replicas_let_go() of its
 * generation and rounds when it was freed).
 */
struct cufab_window_kept {
	struct list_head link;
	u64 offset;
	u64 length;
	unsigned long since;
	unsigned long *pending;
	struct {
		u64 gen;
		u64 rounds;
	} at[];
};

static DEFINE_MUTEX(cufab_window_kept_lock);
static LIST_HEAD(cufab_window_kept_list);
static void cufab_window_kept_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cufab_window_kept_work, cufab_window_kept_fn);

static void cufab_window_kept_free(struct cufab_window_kept *k)
{
	bitmap_free(k->pending);
	kfree(k);
}

/**
 * cufab_window_keep() - free a range other nodes may hold replicas of
 * @offset: its window offset, in this node's slice
 * @length: its bytes
 *
 * Its tags move on first, so that no node makes a replica of it after;
 * the nodes that may hold one are read after that, and the range goes
 * back to the slice once each let go. Without memory for the record, the
 * range stays reserved for the module's life: never reused under a
 * replica is the rule.
 */
void cufab_window_keep(u64 offset, u64 length)
{
	unsigned int me = cufab_node.node_index, n;
	struct cufab_window_kept *k;

	cufab_domain_retag(offset, length);
	k = kzalloc(struct_size(k, at, num_nodes), GFP_KERNEL);
	if (k)
		k->pending = bitmap_zalloc(num_nodes, GFP_KERNEL);
	if (!k || !k->pending) {
		kfree(k);
		pr_warn("fabric window: no memory to keep [0x%llx, +0x%llx) until other nodes let go of it: it stays reserved\n",
			offset, length);
		return;
	}
	k->offset = offset;
	k->length = length;
	k->since = jiffies;
	for (n = 0; n < num_nodes; n++) {
		if (n == me)
			continue;
		k->at[n].gen = cufab_domain_generation(n);
		k->at[n].rounds = cufab_domain_rounds(n);
		if (!cufab_domain_replicas_let_go(n, k->at[n].gen,
						  k->at[n].rounds))
			__set_bit(n, k->pending);
	}
	if (bitmap_empty(k->pending, num_nodes)) {
		cufab_window_kept_free(k);
		cufab_window_unreserve(offset, length);
		return;
	}
	pr_info("fabric window: [0x%llx, +0x%llx) freed: kept until node %lu (and %u in all) let go of its team replicas (reclaim fence)\n",
		offset, length, find_first_bit(k->pending, num_nodes),
		bitmap_weight(k->pending, num_nodes));
	mutex_lock(&cufab_window_kept_lock);
	list_add_tail(&k->link, &cufab_window_kept_list);
	mutex_unlock(&cufab_window_kept_lock);
	mod_delayed_work(system_wq, &cufab_window_kept_work,
			 CUFAB_WINDOW_KEPT_POLL);
}

/* Has every node of @k let go? The last reason, for the log line. */
static bool cufab_window_kept_try(struct cufab_window_kept *k,
				  const char **why, unsigned int *last)
{
	unsigned int n;
	const char *r;

	for_each_set_bit(n, k->pending, num_nodes) {
		r = cufab_domain_replicas_let_go(n, k->at[n].gen,
						 k->at[n].rounds);
		if (!r)
			continue;
		__clear_bit(n, k->pending);
		*why = r;
		*last = n;
	}
	return bitmap_empty(k->pending, num_nodes);
}

static void cufab_window_kept_fn(struct work_struct *work)
{
	struct cufab_window_kept *k, *tmp;
	unsigned int last = 0;
	const char *why = "";
	LIST_HEAD(done);
	bool left;

	mutex_lock(&cufab_window_kept_lock);
	list_for_each_entry_safe(k, tmp, &cufab_window_kept_list, link)
		if (cufab_window_kept_try(k, &why, &last))
			list_move_tail(&k->link, &done);
	left = !list_empty(&cufab_window_kept_list);
	mutex_unlock(&cufab_window_kept_lock);
	list_for_each_entry_safe(k, tmp, &done, link) {
		pr_info("fabric window: [0x%llx, +0x%llx) back in the slice after %u ms (node %u: %s)\n",
			k->offset, k->length,
			jiffies_to_msecs(jiffies - k->since), last, why);
		cufab_window_unreserve(k->offset, k->length);
		cufab_window_kept_free(k);
	}
	if (left)
		mod_delayed_work(system_wq, &cufab_window_kept_work,
				 CUFAB_WINDOW_KEPT_POLL);
}

/* Unload: the window goes, and what it kept with it. */
static void cufab_window_kept_drop(void)
{
	struct cufab_window_kept *k, *tmp;

	cancel_delayed_work_sync(&cufab_window_kept_work);
	list_for_each_entry_safe(k, tmp, &cufab_window_kept_list, link) {
		list_del(&k->link);
		cufab_window_kept_free(k);
	}
}

static void cufab_window_kept_show(struct seq_file *m)
{
	struct cufab_window_kept *k;

	mutex_lock(&cufab_window_kept_lock);
	list_for_each_entry(k, &cufab_window_kept_list, link)
		seq_printf(m, "kept offset %llu length %llu for %u ms, nodes %*pbl\n",
			   k->offset, k->length,
			   jiffies_to_msecs(jiffies - k->since), num_nodes,
			   k->pending);
	mutex_unlock(&cufab_window_kept_lock);
}

/* debugfs "window": the geometry and what is left of this node's slice. */
void cufab_window_show(struct seq_file *m)
{
	struct cufab_window *w = cufab_window;

	if (!w) {
		seq_puts(m, "none\n");
		return;
	}
	seq_printf(m, "device %s base %pa size %llu nodes %u slice %llu node %u start %llu free %llu\n",
		   pci_name(w->pdev), &w->base, w->size, num_nodes, w->slice,
		   cufab_node.node_index,
		   cufab_window_slice_start(w, cufab_node.node_index),
		   cufab_window_free_bytes(w));
	cufab_window_kept_show(m);
	cufab_domain_show(m);
}

/* ---- the PCI device ---- */

/*
 * Window pages are never freed to the page allocator: their allocation
 * holds the one reference they are born with, so the count never drops
 * to zero and this is never called. It must exist all the same.
 */
static void cufab_window_page_free(struct page *page)
{
	WARN_ONCE(1, "fabric window page %lx freed\n", page_to_pfn(page));
}

static const struct dev_pagemap_ops cufab_window_pgmap_ops = {
	.page_free = cufab_window_page_free,
};

/* The geometry: 0 or -EINVAL with a log line naming what does not fit. */
static int cufab_window_geometry(struct cufab_window *w)
{
	u64 usable;

	if (num_nodes < 1 || num_nodes > CUFAB_MAX_NODES) {
		pr_err("fabric window: num_nodes=%u: must be 1..%u\n",
		       num_nodes, CUFAB_MAX_NODES);
		return -EINVAL;
	}
	if (cufab_node.node_index >= num_nodes) {
		pr_err("fabric window: node_index=%u is not below num_nodes=%u: the node has no slice\n",
		       cufab_node.node_index, num_nodes);
		return -EINVAL;
	}
	w->slice_start = cufab_domain_header_size(num_nodes, CUFAB_WINDOW_UNIT,
						  w->size);
	usable = w->size > w->slice_start ? w->size - w->slice_start : 0;
	w->slice = round_down(div_u64(usable, num_nodes), CUFAB_WINDOW_UNIT);
	if (!w->slice) {
		pr_err("fabric window: %llu bytes cannot hold a %llu-byte domain header and %u slices of 2 MiB\n",
		       w->size, w->slice_start, num_nodes);
		return -EINVAL;
	}
	return 0;
}

static int cufab_window_pool(struct cufab_window *w)
{
	mutex_init(&w->lock);
	w->units = div_u64(w->slice, CUFAB_WINDOW_UNIT);
	w->free = w->units;
	w->used = bitmap_zalloc(w->units, GFP_KERNEL);
	return w->used ? 0 : -ENOMEM;
}

/* The domain header: node 0 writes it, the others check theirs against it. */
static int cufab_window_join(struct cufab_window *w)
{
	struct cufab_domain_geometry g = {
		.size = w->size,
		.slice_start = w->slice_start,
		.slice = w->slice,
		.unit = CUFAB_WINDOW_UNIT,
		.nodes = num_nodes,
	};

	return cufab_domain_join(w->virt, &g);
}

static int cufab_window_probe(struct pci_dev *pdev,
			      const struct pci_device_id *id)
{
	struct cufab_window *w;
	int ret;

	/* one domain, one window: a second device is not ours */
	if (cufab_window || num_nodes < 2)
		return -ENODEV;
	w = devm_kzalloc(&pdev->dev, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->pdev = pdev;
	w->base = pci_resource_start(pdev, CUFAB_WINDOW_BAR);
	w->size = pci_resource_len(pdev, CUFAB_WINDOW_BAR);
	ret = cufab_window_geometry(w);
	if (ret)
		return ret;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, CUFAB_WINDOW_BAR, "cufab window");
	if (ret)
		return ret;
	w->pgmap.type = MEMORY_DEVICE_GENERIC;
	w->pgmap.range.start = w->base;
	w->pgmap.range.end = w->base + w->size - 1;
	w->pgmap.nr_range = 1;
	w->pgmap.ops = &cufab_window_pgmap_ops;
	w->virt = devm_memremap_pages(&pdev->dev, &w->pgmap);
	if (IS_ERR(w->virt)) {
		ret = PTR_ERR(w->virt);
		pr_err("fabric window %s: cannot give %llu bytes at %pa struct pages: %d\n",
		       pci_name(pdev), w->size, &w->base, ret);
		goto err_region;
	}
	ret = cufab_window_join(w);
	if (ret)
		goto err_region;
	ret = cufab_window_pool(w);
	if (ret)
		goto err_leave;
	pci_set_drvdata(pdev, w);
	cufab_window = w;
	pr_info("fabric window %s: %llu MiB, %u nodes, node %u's slice %llu MiB at offset %llu MiB\n",
		pci_name(pdev), w->size >> 20, num_nodes,
		cufab_node.node_index, w->slice >> 20,
		cufab_window_slice_start(w, cufab_node.node_index) >> 20);
	return 0;

err_leave:
	cufab_domain_leave();
err_region:
	pci_release_region(pdev, CUFAB_WINDOW_BAR);
	return ret;
}

static void cufab_window_remove(struct pci_dev *pdev)
{
	struct cufab_window *w = pci_get_drvdata(pdev);

	cufab_window_kept_drop();
	cufab_window = NULL;
	cufab_domain_leave();
	bitmap_free(w->used);
	/* the pages go with the device (devm), before the region */
	devm_memunmap_pages(&pdev->dev, &w->pgmap);
	pci_release_region(pdev, CUFAB_WINDOW_BAR);
}

static const struct pci_device_id cufab_window_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};

/*
 * No MODULE_DEVICE_TABLE: an ivshmem device must not load cufab by
 * itself; the node's administrator loads it with its domain's parameters.
 */
static struct pci_driver cufab_window_driver = {
	.name = "cufab-window",
	.id_table = cufab_window_ids,
	.probe = cufab_window_probe,
	.remove = cufab_window_remove,
	.driver.suppress_bind_attrs = true,
};

int cufab_window_init(void)
{
	return pci_register_driver(&cufab_window_driver);
}

void cufab_window_exit(void)
{
	pci_unregister_driver(&cufab_window_driver);
}
