// SPDX-License-Identifier: GPL-2.0
/*
 * CUFAB_IOCTL_MEM_RANGE_EXPORT: cuMemGetHandleForAddressRange with
 * CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, a dma-buf of the pages behind an
 * address range of the caller (share_dmabuf.c makes it).
 *
 * The rules are the driver's documentation's:
 *  - address and size are page-aligned and the size is not 0 (-EINVAL);
 *  - the range lies in one cuMemAlloc allocation, or in one reservation
 *    (cuMemAddressReserve, or the pool reservation cuMemAllocAsync carves
 *    from) mapped all along: a range that leaves the allocation or the
 *    reservation, or meets a hole, is -EINVAL, as is an address that is
 *    not cufab memory of the caller;
 *  - "all the physical allocations backing the address range must be
 *    resident on the same device and have identical allocation
 *    properties" (-EINVAL otherwise), so a range of a reservation may
 *    cross several cuMemCreate allocations;
 *  - the memory must be a GPU's own. cuMemAllocHost and cuMemHostAlloc
 *    memory needs CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED, which
 *    reads 0; managed memory migrates under an importer that could not
 *    follow it; a multicast object has no memory of its own; another
 *    node's memory is revoked when that node goes. All -EOPNOTSUPP
 *    (Documentation/differences.rst records the choices the documentation
 *    leaves open).
 *
 * The dma-buf names pages, not addresses: it holds the allocations, so
 * cuMemFree, cuMemUnmap or the end of the process leave it working, and
 * a later mapping at the same address is not what it shows (the
 * documentation asks for a new handle after such a change).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fault.h"

#define CUFAB_RANGE_CALL	"cuMemGetHandleForAddressRange"

/* What one pass over the range's mappings saw or collects. */
struct cufab_range_walk {
	struct cufab_client *client;
	u64 addr;
	u64 length;
	struct cufab_alloc *first;	/* the allocation at @addr */
	struct cufab_dmabuf_seg *seg;	/* NULL: only count */
	unsigned int nr;
};

/* Why the memory of @alloc cannot be exported, or NULL if it can. */
static const char *cufab_range_kind_refused(const struct cufab_alloc *alloc)
{
	if (!cufab_alloc_cpu_mappable(alloc))
		return "a multicast object has no memory of its own";
	if (cufab_alloc_has(alloc, CUFAB_ALLOC_MANAGED))
		return "managed memory migrates, and an importer could not follow it";
	if (cufab_alloc_has(alloc, CUFAB_ALLOC_REMOTE))
		return "another node's memory goes with that node";
	if (alloc->location_type != CUFAB_LOC_DEVICE)
		return "host memory, and HOST_ALLOC_DMA_BUF_SUPPORTED is 0";
	return NULL;
}

/* Same GPU, same kind, same properties as the range's first allocation. */
static bool cufab_range_alike(const struct cufab_alloc *a,
			      const struct cufab_alloc *b)
{
	return a->ops == b->ops && a->location_id == b->location_id &&
	       a->handle_types == b->handle_types &&
	       a->alloc_flags == b->alloc_flags;
}

/*
 * One mapping the range meets at @cur: check it and, on the collecting
 * pass, record its pages. Context: va->lock held (read).
 */
static int cufab_range_step(struct cufab_range_walk *w,
			    const struct cufab_va_map *map, u64 cur, u64 end)
{
	struct cufab_alloc *alloc = map->alloc;
	const char *why = cufab_range_kind_refused(alloc);
	struct cufab_dmabuf_seg *seg;

	if (why) {
		cufab_pr_info(w->client, CUFAB_RANGE_CALL "(0x%llx, %llu): %s allocation %llu at 0x%llx: %s\n",
			      w->addr, w->length, alloc->ops->name, alloc->id,
			      cur, why);
		return -EOPNOTSUPP;
	}
	if (!w->first) {
		w->first = alloc;
	} else if (!cufab_range_alike(w->first, alloc)) {
		cufab_pr_info(w->client, CUFAB_RANGE_CALL "(0x%llx, %llu): allocation %llu at 0x%llx differs from allocation %llu at 0x%llx in GPU or properties; all must be alike\n",
			      w->addr, w->length, alloc->id, cur,
			      w->first->id, w->addr);
		return -EINVAL;
	}
	if (w->seg) {
		seg = &w->seg[w->nr];
		seg->alloc = alloc;
		seg->first = (map->offset + (cur - map->start)) >> PAGE_SHIFT;
		seg->npages = (min(end, map->start + map->length) - cur) >>
			      PAGE_SHIFT;
		cufab_alloc_get(alloc);
	}
	w->nr++;
	return 0;
}

/*
 * A pass over [addr, addr + length) of @va: every byte mapped, every
 * allocation alike. Context: va->lock held (read).
 */
static int cufab_range_pass(struct cufab_range_walk *w, struct cufab_va *va)
{
	u64 cur = w->addr, end = w->addr + w->length;
	struct cufab_va_map *map;
	int ret;

	w->first = NULL;
	w->nr = 0;
	while (cur < end) {
		map = cufab_va_map_load(va, cur);
		if (!map) {
			cufab_pr_info(w->client, CUFAB_RANGE_CALL "(0x%llx, %llu): 0x%llx of reservation [0x%llx, +0x%llx) is not mapped; the whole range must be\n",
				      w->addr, w->length, cur, va->start,
				      va->length);
			return -EINVAL;
		}
		ret = cufab_range_step(w, map, cur, end);
		if (ret)
			return ret;
		cur = map->start + map->length;
	}
	return 0;
}

static void cufab_range_put(struct cufab_dmabuf_seg *seg, unsigned int nr)
{
	while (nr--)
		cufab_alloc_put(seg[nr].alloc);
	kvfree(seg);
}

/*
 * The segments of the range in @va, each with a reference on its
 * allocation: a counting pass, then a collecting one under the same lock,
 * so that both see the same mappings.
 */
static int cufab_range_collect(struct cufab_range_walk *w, struct cufab_va *va)
{
	int ret;

	down_read(&va->lock);
	if (va->dead) {
		cufab_pr_info(w->client, CUFAB_RANGE_CALL "(0x%llx, %llu): the memory was freed meanwhile\n",
			      w->addr, w->length);
		ret = -EINVAL;
		goto out;
	}
	ret = cufab_range_pass(w, va);
	if (ret)
		goto out;
	w->seg = kvmalloc_array(w->nr, sizeof(*w->seg), GFP_KERNEL);
	if (!w->seg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cufab_range_pass(w, va);
	if (ret) {
		/* the lock is held: the second pass sees what the first did */
		cufab_range_put(w->seg, w->nr);
		w->seg = NULL;
	}
out:
	up_read(&va->lock);
	return ret;
}

/* The reservation holding the whole range, with a reference. */
static struct cufab_va *cufab_range_va(struct cufab_client *client, u64 addr,
				       u64 length)
{
	struct cufab_va *va = cufab_va_find(client, addr);

	if (!va) {
		cufab_pr_info(client, CUFAB_RANGE_CALL "(0x%llx, %llu): not cufab memory of this process\n",
			      addr, length);
		return ERR_PTR(-EINVAL);
	}
	if (!cufab_range_inside(addr, length, va->start, va->length)) {
		cufab_pr_info(client, CUFAB_RANGE_CALL "(0x%llx, %llu): runs past the end of the %s [0x%llx, +0x%llx)\n",
			      addr, length,
			      va->linear ? "allocation" : "reservation",
			      va->start, va->length);
		cufab_va_put(va);
		return ERR_PTR(-EINVAL);
	}
	return va;
}

int cufab_ioctl_mem_range_export(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_range_export *cmd = ucmd->cmd;
	struct cufab_range_walk w = {
		.client = ucmd->client, .addr = cmd->addr,
		.length = cmd->length,
	};
	struct dma_buf *dmabuf;
	struct cufab_va *va;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (!PAGE_ALIGNED(w.addr) || !PAGE_ALIGNED(w.length) ||
	    !cufab_range_ok(w.addr, w.length)) {
		cufab_pr_info(w.client, CUFAB_RANGE_CALL "(0x%llx, %llu): address and size must be multiples of the page size (%lu), the size not 0\n",
			      w.addr, w.length, PAGE_SIZE);
		return -EINVAL;
	}
	va = cufab_range_va(w.client, w.addr, w.length);
	if (IS_ERR(va))
		return PTR_ERR(va);
	ret = cufab_range_collect(&w, va);
	cufab_va_put(va);
	if (ret)
		return ret;
	if (cufab_should_fail(CUFAB_FAULT_MEM_SHARE)) {
		ret = -ENOMEM;
		goto out;
	}
	dmabuf = cufab_dmabuf_export_range(w.seg, w.nr);
	ret = IS_ERR(dmabuf) ? PTR_ERR(dmabuf) :
	      cufab_dmabuf_respond_fd(ucmd, dmabuf, &cmd->out_fd,
				      sizeof(*cmd));
out:
	cufab_range_put(w.seg, w.nr);
	return ret;
}
