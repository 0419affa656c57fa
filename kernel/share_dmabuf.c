// SPDX-License-Identifier: GPL-2.0
/*
 * The dma-bufs of cufab memory: POSIX_FD handles of an allocation
 * (CUFAB_IOCTL_MEM_EXPORT) and the pages of an address range
 * (CUFAB_IOCTL_MEM_RANGE_EXPORT, dmabuf_range.c).
 *
 * A dma-buf is a real file descriptor that can cross a unix socket, and
 * other drivers can import it (map_dma_buf), which is what a POSIX fd of
 * real GPU memory is good for. It holds a reference on each allocation it
 * shows, so the memory lives while any process holds the fd. Mapping the
 * fd with mmap() shows the same pages as every cufab mapping of those
 * allocations. Modelled on drivers/dma-buf/udmabuf.c.
 *
 * The two kinds have their own ops tables, so that only a handle's
 * dma-buf is taken back by MEM_IMPORT: a range is pages, not an
 * allocation a handle could name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "cufab.h"

MODULE_IMPORT_NS(DMA_BUF);

/**
 * struct cufab_dmabuf_range - what the dma-buf of an address range shows
 * @nr: number of segments
 * @seg: the range's pages in order, each segment holding a reference on
 *	its allocation
 */
struct cufab_dmabuf_range {
	unsigned int nr;
	struct cufab_dmabuf_seg seg[];
};

static const struct dma_buf_ops cufab_dmabuf_ops;

static const struct dma_buf_ops cufab_dmabuf_range_ops;

/*
 * Page @index of a range: a walk of its segments, which are few (the
 * mappings of one reservation the range crosses).
 */
static struct page *cufab_dmabuf_range_page(const struct cufab_dmabuf_range *r,
					    pgoff_t index)
{
	const struct cufab_dmabuf_seg *seg;
	unsigned int i;

	for (i = 0; i < r->nr; i++) {
		seg = &r->seg[i];
		if (index < seg->npages)
			return cufab_alloc_page(seg->alloc, seg->first + index);
		index -= seg->npages;
	}
	return ERR_PTR(-EINVAL);
}

/* The page behind page @index of the dma-buf. */
static struct page *cufab_dmabuf_page(struct dma_buf *dmabuf, pgoff_t index)
{
	if (dmabuf->ops == &cufab_dmabuf_range_ops)
		return cufab_dmabuf_range_page(dmabuf->priv, index);
	return cufab_alloc_page(dmabuf->priv, index);
}

/*
 * A range is made only of memory with pages (dmabuf_range.c refuses the
 * rest); a handle may be of a kind without (multicast).
 */
static bool cufab_dmabuf_has_memory(struct dma_buf *dmabuf)
{
	return dmabuf->ops == &cufab_dmabuf_range_ops ||
	       cufab_alloc_cpu_mappable(dmabuf->priv);
}

/* Every page of the dma-buf, in order, one entry each. */
static struct sg_table *cufab_dmabuf_sgt(struct dma_buf *dmabuf)
{
	unsigned int i, npages = dmabuf->size >> PAGE_SHIFT;
	struct scatterlist *sg;
	struct sg_table *sgt;
	struct page *page;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, npages, GFP_KERNEL);
	if (ret)
		goto err_free;
	for_each_sgtable_sg(sgt, sg, i) {
		page = cufab_dmabuf_page(dmabuf, i);
		if (IS_ERR(page)) {
			ret = PTR_ERR(page);
			goto err_table;
		}
		sg_set_page(sg, page, PAGE_SIZE, 0);
	}
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

/*
 * The fd of a kind with no memory of its own (multicast) carries the
 * handle, not memory: no importer.
 */
static int cufab_dmabuf_attach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *at)
{
	struct cufab_alloc *alloc;

	if (cufab_dmabuf_has_memory(dmabuf))
		return 0;
	alloc = dmabuf->priv;	/* a handle's: a range always has memory */
	pr_info_ratelimited("dma-buf of %s allocation %llu: cannot be attached, it has no memory of its own\n",
			    alloc->ops->name, alloc->id);
	return -EINVAL;
}

static struct sg_table *cufab_dmabuf_map(struct dma_buf_attachment *at,
					 enum dma_data_direction dir)
{
	struct sg_table *sgt = cufab_dmabuf_sgt(at->dmabuf);
	int ret;

	if (IS_ERR(sgt))
		return sgt;
	ret = dma_map_sgtable(at->dev, sgt, dir, 0);
	if (ret) {
		sg_free_table(sgt);
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;
}

static void cufab_dmabuf_unmap(struct dma_buf_attachment *at,
			       struct sg_table *sgt,
			       enum dma_data_direction dir)
{
	dma_unmap_sgtable(at->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void cufab_dmabuf_release(struct dma_buf *dmabuf)
{
	cufab_alloc_put(dmabuf->priv);
}

static void cufab_dmabuf_range_release(struct dma_buf *dmabuf)
{
	struct cufab_dmabuf_range *r = dmabuf->priv;
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		cufab_alloc_put(r->seg[i].alloc);
	kvfree(r);
}

/* First touch through the dma-buf mapping allocates the zeroed page. */
static vm_fault_t cufab_dmabuf_fault(struct vm_fault *vmf)
{
	struct dma_buf *dmabuf = vmf->vma->vm_private_data;
	struct page *page;

	page = cufab_dmabuf_page(dmabuf, vmf->pgoff);
	if (IS_ERR(page))
		return VM_FAULT_SIGBUS;	/* no memory: as cufab_va_vm_fault() */
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct cufab_dmabuf_vm_ops = {
	.fault = cufab_dmabuf_fault,
};

/*
 * dma_buf_mmap_internal() already checked that the range fits, and the
 * VMA holds the dma-buf's file, so the dma-buf outlives it. Only shared
 * mappings: a private copy of device memory would not be what it shows.
 */
static int cufab_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (!cufab_dmabuf_has_memory(dmabuf))
		return -EINVAL;	/* no memory to show: see cufab_dmabuf_attach */
	vma->vm_ops = &cufab_dmabuf_vm_ops;
	vma->vm_private_data = dmabuf;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return 0;
}

/* CPU and "device" see the same coherent host pages: nothing to flush. */
static int cufab_dmabuf_begin_cpu_access(struct dma_buf *dmabuf,
					 enum dma_data_direction dir)
{
	return 0;
}

static int cufab_dmabuf_end_cpu_access(struct dma_buf *dmabuf,
				       enum dma_data_direction dir)
{
	return 0;
}

static const struct dma_buf_ops cufab_dmabuf_ops = {
	.attach = cufab_dmabuf_attach,
	.map_dma_buf = cufab_dmabuf_map,
	.unmap_dma_buf = cufab_dmabuf_unmap,
	.release = cufab_dmabuf_release,
	.mmap = cufab_dmabuf_mmap,
	.begin_cpu_access = cufab_dmabuf_begin_cpu_access,
	.end_cpu_access = cufab_dmabuf_end_cpu_access,
};

static const struct dma_buf_ops cufab_dmabuf_range_ops = {
	.attach = cufab_dmabuf_attach,
	.map_dma_buf = cufab_dmabuf_map,
	.unmap_dma_buf = cufab_dmabuf_unmap,
	.release = cufab_dmabuf_range_release,
	.mmap = cufab_dmabuf_mmap,
	.begin_cpu_access = cufab_dmabuf_begin_cpu_access,
	.end_cpu_access = cufab_dmabuf_end_cpu_access,
};

/**
 * cufab_dmabuf_export() - a new dma-buf of an allocation
 * @alloc: the caller's reference stays the caller's; the dma-buf takes one
 *
 * The caller installs dmabuf->file in an fd, or drops it with
 * dma_buf_put().
 *
 * Return: the dma-buf or an ERR_PTR.
 */
struct dma_buf *cufab_dmabuf_export(struct cufab_alloc *alloc)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct dma_buf *dmabuf;

	exp.ops = &cufab_dmabuf_ops;
	exp.size = alloc->length;
	exp.flags = O_RDWR;
	exp.priv = alloc;
	cufab_alloc_get(alloc);
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf))
		cufab_alloc_put(alloc);
	return dmabuf;
}

/**
 * cufab_dmabuf_export_range() - a new dma-buf of pages of allocations
 * @seg: the segments, in order, each of an allocation with memory of its
 *	own (cufab_alloc_cpu_mappable()) and inside it
 * @nr: how many (not 0)
 *
 * The caller's references stay the caller's; the dma-buf takes one on
 * each segment's allocation. The caller installs dmabuf->file in an fd,
 * or drops it with dma_buf_put().
 *
 * Return: the dma-buf or an ERR_PTR.
 */
struct dma_buf *cufab_dmabuf_export_range(const struct cufab_dmabuf_seg *seg,
					  unsigned int nr)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct cufab_dmabuf_range *r;
	struct dma_buf *dmabuf;
	unsigned int i;

	r = kvmalloc(struct_size(r, seg, nr), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->nr = nr;
	memcpy(r->seg, seg, flex_array_size(r, seg, nr));
	for (i = 0; i < nr; i++) {
		cufab_alloc_get(seg[i].alloc);
		exp.size += seg[i].npages << PAGE_SHIFT;
	}
	exp.ops = &cufab_dmabuf_range_ops;
	exp.flags = O_RDWR;
	exp.priv = r;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		for (i = 0; i < nr; i++)
			cufab_alloc_put(seg[i].alloc);
		kvfree(r);
	}
	return dmabuf;
}

/**
 * cufab_dmabuf_respond_fd() - answer a command with a new fd of a dma-buf
 * @ucmd: the command
 * @dmabuf: consumed: installed in the fd, or put
 * @out_fd: the command's field for the fd
 * @cmd_len: the command's struct size
 *
 * The fd goes into the caller's table only once the reply is written, so
 * a faulting reply leaks neither fd nor dma-buf.
 *
 * Return: 0 or -errno.
 */
int cufab_dmabuf_respond_fd(struct cufab_ucmd *ucmd, struct dma_buf *dmabuf,
			    s32 *out_fd, size_t cmd_len)
{
	int fd, ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	*out_fd = fd;
	ret = cufab_ucmd_respond(ucmd, cmd_len);
	if (ret) {
		put_unused_fd(fd);
		dma_buf_put(dmabuf);
		return ret;
	}
	fd_install(fd, dmabuf->file);
	return 0;
}

/**
 * cufab_dmabuf_to_alloc() - the allocation behind a POSIX_FD handle
 * @fd: a dma-buf fd made by cufab_dmabuf_export(), in any process
 *
 * Return: the allocation with a reference, ERR_PTR(-EBADF) for a bad fd,
 * -EINVAL for a file that is not a cufab dma-buf.
 */
struct cufab_alloc *cufab_dmabuf_to_alloc(int fd)
{
	struct cufab_alloc *alloc;
	struct dma_buf *dmabuf;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf)) {
		if (PTR_ERR(dmabuf) == -EINVAL)
			pr_warn_ratelimited("pid %d (%s): cuMemImportFromShareableHandle: fd %d: not a dma-buf, so not a POSIX_FD handle of a cufab allocation\n",
					    task_tgid_nr(current), current->comm,
					    fd);
		return ERR_CAST(dmabuf);
	}
	if (dmabuf->ops == &cufab_dmabuf_range_ops) {
		pr_warn_ratelimited("pid %d (%s): cuMemImportFromShareableHandle: fd %d: the dma-buf of an address range (cuMemGetHandleForAddressRange), not a POSIX_FD handle of an allocation\n",
				    task_tgid_nr(current), current->comm, fd);
		dma_buf_put(dmabuf);
		return ERR_PTR(-EINVAL);
	}
	if (dmabuf->ops != &cufab_dmabuf_ops) {
		pr_warn_ratelimited("pid %d (%s): cuMemImportFromShareableHandle: fd %d: a dma-buf of %s, not a POSIX_FD handle of a cufab allocation\n",
				    task_tgid_nr(current), current->comm, fd,
				    dmabuf->exp_name);
		dma_buf_put(dmabuf);
		return ERR_PTR(-EINVAL);
	}
	alloc = dmabuf->priv;
	cufab_alloc_get(alloc);
	dma_buf_put(dmabuf);
	return alloc;
}
