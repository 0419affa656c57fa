// SPDX-License-Identifier: GPL-2.0
/*
 * Memory operations: cuMemcpy*, cuMemsetD*, cuPointerGetAttribute(s),
 * cuMemGetAddressRange, cuMemGetInfo, and the stream operations copy and
 * set (CUFAB_OP_COPY, CUFAB_OP_SET: cuMemcpyAsync, cuMemsetD*Async), which
 * the engine runs a piece at a time in the process's address space.
 *
 * Copies and sets are "performed by a device": every cufab range they touch
 * must grant that device access (read for sources, write for
 * destinations); plain host memory is always fine. The bytes move page
 * to page, with no bounce buffer: pages of cufab mappings are looked up
 * by the rules of the CPU view's fault handler (cufab_va_get_pages()), so
 * a copy reaches exactly what a CPU access would, and plain memory is
 * pinned from the mm.
 *
 * Locks: none of its own; see va.c. No lock is held across user copies.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/cufab.h>

#include "cufab.h"

/* Pages of one side of a copy taken at a time. */
#define CUFAB_COPY_BATCH	16

/*
 * A copy or set whose user page cannot be faulted in without sleeping
 * (userfaultfd, a FUSE or NFS file) gives its worker back and retries,
 * backing off up to CUFAB_STALL_MAX_US between tries; after this long it
 * fails with -EFAULT (CUDA_ERROR_ILLEGAL_ADDRESS on its stream), as a GPU
 * faulting on a page nobody provides would.
 */
static unsigned int cufab_fault_timeout_ms = 30000;
module_param_named(fault_timeout_ms, cufab_fault_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fault_timeout_ms,
		 "A stream copy or set waiting this long for a user page that cannot be faulted in fails with an illegal address (default 30000)");

#define CUFAB_STALL_MAX_US	(64 * USEC_PER_MSEC)

/*
 * One side of a copy: the user range walked page by page. Pages of cufab
 * mappings come from their allocation (cufab_va_get_pages()), plain
 * memory is pinned from the mm.
 */
struct cufab_span {
	struct cufab_client *client;
	u64 addr;
	bool write;
	bool nowait;	/* the engine's: never sleep in a fault */
	bool pinned;
	bool plain;	/* known to be plain memory: no lookup */
	unsigned int nr;
	unsigned int next;
	struct page *pages[CUFAB_COPY_BATCH];
};

static void cufab_span_release(struct cufab_span *sp)
{
	unsigned int i;

	if (sp->pinned)
		unpin_user_pages_dirty_lock(sp->pages, sp->nr, sp->write);
	else
		for (i = 0; i < sp->nr; i++)
			put_page(sp->pages[i]);
	sp->nr = 0;
	sp->next = 0;
}

/* Pages of the next @left bytes to take at once: at most a batch. */
static unsigned int cufab_span_want(const struct cufab_span *sp, u64 left)
{
	return min_t(u64, CUFAB_COPY_BATCH,
		     DIV_ROUND_UP(offset_in_page(sp->addr) + left, PAGE_SIZE));
}

/*
 * Pin @nr pages of current->mm from @start without sleeping in a fault: a
 * page whose fault would wait (userfaultfd, a FUSE or NFS file, a page
 * under I/O) ends the pin there. -EBUSY when that is the first page.
 */
static int cufab_pin_nowait(unsigned long start, unsigned int nr, bool write,
			    struct page **pages)
{
	struct mm_struct *mm = current->mm;
	long ret;

	mmap_read_lock(mm);
	ret = pin_user_pages_remote(mm, start, nr,
				    FOLL_NOWAIT | (write ? FOLL_WRITE : 0),
				    pages, NULL, NULL);
	mmap_read_unlock(mm);
	return ret ?: -EBUSY;
}

/* Take the pages of the next @left bytes, at most a batch of them. */
static int cufab_span_fill(struct cufab_span *sp, u64 left)
{
	unsigned int want = cufab_span_want(sp, left);
	int ret;

	cufab_span_release(sp);
	ret = sp->plain ? -ENOENT :
	      cufab_va_get_pages(sp->client, sp->addr, sp->write, sp->pages,
				 want);
	/* registered memory: the pages pinned at cuMemHostRegister */
	if (ret == -ENOENT)
		ret = cufab_hostreg_get_pages(sp->client, sp->addr, sp->write,
					      sp->pages, want);
	sp->pinned = ret == -ENOENT;
	if (sp->pinned && sp->nowait)
		ret = cufab_pin_nowait(sp->addr & PAGE_MASK, want, sp->write,
				       sp->pages);
	else if (sp->pinned)
		ret = pin_user_pages_fast(sp->addr & PAGE_MASK, want,
					  sp->write ? FOLL_WRITE : 0,
					  sp->pages);
	if (ret <= 0)
		return ret ?: -EFAULT;
	sp->nr = ret;
	return 0;
}

/* The page at sp->addr, mapped; @left bytes remain to be copied. */
static void *cufab_span_map(struct cufab_span *sp, u64 left, int *err)
{
	if (sp->next == sp->nr) {
		*err = cufab_span_fill(sp, left);
		if (*err)
			return NULL;
	}
	return kmap_local_page(sp->pages[sp->next]) + offset_in_page(sp->addr);
}

static void cufab_span_advance(struct cufab_span *sp, size_t n)
{
	sp->addr += n;
	if (!offset_in_page(sp->addr))
		sp->next++;
}

/* The cu* call of a set of @elem-byte elements (1, 2 or 4), for its lines. */
static const char *cufab_set_call(u32 elem, bool async)
{
	static const char *const calls[2][3] = {
		{ "cuMemsetD8", "cuMemsetD16", "cuMemsetD32" },
		{ "cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async" },
	};

	return calls[async][elem == 1 ? 0 : elem == 2 ? 1 : 2];
}

/*
 * A copy or set names a GPU the node does not have: the library sends the
 * current context's, so only a GPU removed since gets here.
 */
static int cufab_memop_no_gpu(const struct cufab_client *client,
			      const char *call, u32 dev)
{
	cufab_pr_info(client, "%s: gpu %u: no such GPU on this node\n",
		      call, dev);
	return -ENODEV;
}

/*
 * The line of a copy or set that stopped after @moved bytes: a page of
 * plain memory not there or read-only (-EFAULT), or no memory for a page
 * of a cufab allocation (-ENOMEM). @src is 0 for a set.
 */
static void cufab_move_failed(const struct cufab_client *client,
			      const char *call, u64 dst, u64 src, u64 moved,
			      u64 length, int err)
{
	if (err == -EFAULT)
		cufab_pr_info(client, "%s: dst 0x%llx src 0x%llx size %llu: at byte %llu: no page there, or a read-only one to write\n",
			      call, dst, src, length, moved);
	else if (err == -ENOMEM)
		cufab_pr_info(client, "%s: dst 0x%llx src 0x%llx size %llu: at byte %llu: no memory for a page (the GPU's capacity or the kernel's)\n",
			      call, dst, src, length, moved);
}

/* Fill @len bytes at @p with @value in units of @elem bytes. */
static void cufab_fill_pattern(void *p, size_t len, u32 value, u32 elem)
{
	switch (elem) {
	case 1:
		memset(p, value, len);
		break;
	case 2:
		memset16(p, value, len / 2);
		break;
	default:
		memset32(p, value, len / 4);
		break;
	}
}

/*
 * Check one side of a copy by @dev over @length bytes and take its first
 * pages in the same pass (cufab_va_check_take()).
 */
static int cufab_span_check(struct cufab_span *sp, const char *call,
			    u64 length, s32 dev, u32 need)
{
	struct cufab_va_first first = {
		.write = sp->write,
		.max = cufab_span_want(sp, length),
		.pages = sp->pages,
	};
	int ret;

	ret = cufab_va_check_take(sp->client, call, sp->addr, length, dev,
				  need, &first);
	if (ret)
		return ret;
	sp->plain = first.nr == -ENOENT;
	sp->nr = max(first.nr, 0);
	return 0;
}

/*
 * Move @length bytes to user range @d from user range @s, or when @fill,
 * set them to @value in @elem-byte units, one page at a time with no
 * bounce buffer. A set's pieces stay element-aligned: @d is, and pages
 * are multiples of every element size. No lock is held while bytes move.
 * The spans may hold their first pages already; they are released.
 * *@moved (when not NULL): the bytes moved, also when it fails.
 */
static int cufab_move_spans(struct cufab_span *dst, struct cufab_span *src,
			    u64 length, bool fill, u32 value, u32 elem,
			    u64 *moved)
{
	void *dp, *sp = NULL;
	u64 done = 0;
	int ret = 0;

	while (done < length) {
		size_t n = min_t(u64, length - done,
				 PAGE_SIZE - offset_in_page(dst->addr));

		if (!fill) {
			n = min_t(size_t, n, PAGE_SIZE - offset_in_page(src->addr));
			sp = cufab_span_map(src, length - done, &ret);
			if (!sp)
				break;
		}
		dp = cufab_span_map(dst, length - done, &ret);
		if (dp) {
			if (fill)
				cufab_fill_pattern(dp, n, value, elem);
			else
				memcpy(dp, sp, n);
			kunmap_local(dp);
		}
		if (sp)
			kunmap_local(sp);
		if (!dp)
			break;
		cufab_span_advance(dst, n);
		if (!fill)
			cufab_span_advance(src, n);
		done += n;
		/* between pages only: a one-page copy has nothing to yield for */
		if (done == length)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	cufab_span_release(dst);
	cufab_span_release(src);
	if (moved)
		*moved = done;
	return ret;
}

/**
 * cufab_move_user_step() - the engine's copy or set, one piece at a time
 * @client: whose cufab mappings the ranges may lie in
 * @mv: the ranges, checked by cufab_va_check_access(), and the progress:
 *	@mv->done bytes are moved already and more are added
 *
 * Moves at most CUFAB_ENGINE_PIECE bytes, so that the engine's workers
 * take turns between streams and a cancel waits for one piece at most.
 * Plain memory is faulted in without sleeping: a page whose fault would
 * wait ends the piece instead of holding the worker, which other
 * processes' streams share.
 *
 * Context: the caller's mm is current's (kthread_use_mm()).
 * Return: 0 when everything is moved, -EAGAIN when more remains, -EBUSY
 * when a fault would have slept before any byte of this piece moved,
 * else -EFAULT or -ENOMEM.
 */
int cufab_move_user_step(struct cufab_client *client, struct cufab_move *mv)
{
	struct cufab_span d = { .client = client, .addr = mv->dst + mv->done,
				.write = true, .nowait = true };
	struct cufab_span s = { .client = client, .addr = mv->src + mv->done,
				.nowait = true };
	u64 piece = min_t(u64, mv->length - mv->done, CUFAB_ENGINE_PIECE);
	u64 moved = 0;
	int ret;

	if (mv->fill)
		s.addr = 0;
	ret = cufab_move_spans(&d, &s, piece, mv->fill, mv->value, mv->elem,
			       &moved);
	mv->done += moved;
	if (ret == -EBUSY && moved)
		ret = 0;	/* it moved: come back at once */
	if (ret)
		return ret;
	return mv->done < mv->length ? -EAGAIN : 0;
}

/**
 * cufab_set_unreachable() - is @dst memory a set by @dev may not write?
 * @client: whose reservations @dst may lie in
 * @dst: the set's first byte (a set's range is all plain memory or all
 *	cufab mappings: cufab_va_check_access())
 * @dev: the GPU that sets it
 *
 * cuMemsetD* is done by the device, which reaches plain host memory
 * (malloc(), not cufab's) only with PAGEABLE_MEMORY_ACCESS (HMM or ATS):
 * without it the real driver refuses the set (CUDA_ERROR_INVALID_VALUE).
 * A copy may have plain memory on either side: the driver stages it.
 * Registered memory (cuMemHostRegister) is page-locked host memory every
 * device reaches.
 *
 * Return: true when @dst is plain, unregistered memory and @dev has no
 * pageable access.
 */
bool cufab_set_unreachable(struct cufab_client *client, u64 dst, s32 dev)
{
	struct cufab_gpu_facts f;
	struct cufab_va *va = cufab_va_find(client, dst);

	if (va) {
		cufab_va_put(va);
		return false;
	}
	if (cufab_hostreg_contains(client, dst))
		return false;
	return cufab_gpu_facts(dev, &f) ||
	       !(f.features & CUFAB_DEV_F_PAGEABLE_ACCESS);
}

int cufab_ioctl_mem_copy(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_copy *cmd = ucmd->cmd;
	struct cufab_span d = {
		.client = ucmd->client, .addr = cmd->dst, .write = true,
	};
	struct cufab_span s = { .client = ucmd->client, .addr = cmd->src };
	u64 moved;
	int ret;

	if (cmd->flags || cmd->__reserved) {
		cufab_pr_info(ucmd->client, "cuMemcpy: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	if (!cufab_node_gpu_exists(cmd->dev))
		return cufab_memop_no_gpu(ucmd->client, "cuMemcpy", cmd->dev);
	if (!cmd->length)
		return 0;
	if (!cufab_range_ok(cmd->src, cmd->length) ||
	    !cufab_range_ok(cmd->dst, cmd->length)) {
		cufab_pr_info(ucmd->client, "cuMemcpy: dst 0x%llx src 0x%llx size %llu: a range wraps past the end of the address space\n",
			      cmd->dst, cmd->src, cmd->length);
		return -EINVAL;
	}
	/* both ranges checked before a byte moves, pages taken meanwhile */
	ret = cufab_span_check(&s, "cuMemcpy", cmd->length, cmd->dev,
			       CUFAB_ACCESS_READ);
	if (!ret)
		ret = cufab_span_check(&d, "cuMemcpy", cmd->length, cmd->dev,
				       CUFAB_ACCESS_RW);
	if (ret) {
		cufab_span_release(&s);
		return ret;
	}
	ret = cufab_move_spans(&d, &s, cmd->length, false, 0, 0, &moved);
	if (ret)
		cufab_move_failed(ucmd->client, "cuMemcpy", cmd->dst, cmd->src,
				  moved, cmd->length, ret);
	return ret;
}

int cufab_ioctl_mem_set(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_set *cmd = ucmd->cmd;
	struct cufab_span d = { .client = ucmd->client, .write = true };
	struct cufab_span s = { .client = ucmd->client };
	u64 length, moved;
	int ret;

	if (cmd->flags || cmd->__reserved) {
		cufab_pr_info(ucmd->client, "cuMemsetD8/D16/D32: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	if (cmd->elem_size != 1 && cmd->elem_size != 2 && cmd->elem_size != 4) {
		cufab_pr_info(ucmd->client, "cuMemsetD8/D16/D32: element size %u: must be 1, 2 or 4\n",
			      cmd->elem_size);
		return -EINVAL;
	}
	/* cuMemsetD16/D32 need an element-aligned destination */
	if (!IS_ALIGNED(cmd->dst, cmd->elem_size)) {
		cufab_pr_info(ucmd->client, "cuMemsetD%u: dst 0x%llx: must be aligned to the %u-byte element\n",
			      cmd->elem_size * 8, cmd->dst, cmd->elem_size);
		return -EINVAL;
	}
	if (cmd->elem_size < 4 && cmd->value >> (8 * cmd->elem_size)) {
		cufab_pr_info(ucmd->client, "cuMemsetD%u: value 0x%x: wider than the %u-byte element\n",
			      cmd->elem_size * 8, cmd->value, cmd->elem_size);
		return -EINVAL;
	}
	if (!cufab_node_gpu_exists(cmd->dev))
		return cufab_memop_no_gpu(ucmd->client,
					  cufab_set_call(cmd->elem_size, false),
					  cmd->dev);
	if (check_mul_overflow(cmd->count, (u64)cmd->elem_size, &length)) {
		cufab_pr_info(ucmd->client, "cuMemsetD%u: count %llu: the size in bytes overflows 64 bits\n",
			      cmd->elem_size * 8, cmd->count);
		return -EINVAL;
	}
	if (!length)
		return 0;
	if (!cufab_range_ok(cmd->dst, length)) {
		cufab_pr_info(ucmd->client, "cuMemsetD%u: dst 0x%llx size %llu: the range wraps past the end of the address space\n",
			      cmd->elem_size * 8, cmd->dst, length);
		return -EINVAL;
	}
	d.addr = cmd->dst;
	ret = cufab_span_check(&d, cufab_set_call(cmd->elem_size, false),
			       length, cmd->dev, CUFAB_ACCESS_RW);
	if (ret)
		return ret;
	if (d.plain && cufab_set_unreachable(ucmd->client, cmd->dst, cmd->dev)) {
		cufab_pr_info(ucmd->client, "cuMemsetD%u: 0x%llx is pageable host memory and GPU %u has PAGEABLE_MEMORY_ACCESS 0\n",
			      cmd->elem_size * 8, cmd->dst, cmd->dev);
		return -EINVAL;
	}
	ret = cufab_move_spans(&d, &s, length, true, cmd->value,
			       cmd->elem_size, &moved);
	if (ret)
		cufab_move_failed(ucmd->client,
				  cufab_set_call(cmd->elem_size, false),
				  cmd->dst, 0, moved, length, ret);
	return ret;
}

/* Fill the answer from the mapping at the address. */
static void cufab_pointer_info_fill(struct cufab_pointer_info *cmd,
				    const struct cufab_va *va,
				    const struct cufab_va_map *map)
{
	const struct cufab_alloc *alloc = map->alloc;

	cmd->out_flags |= CUFAB_PTR_F_MAPPED;
	if (cufab_alloc_has(alloc, CUFAB_ALLOC_MANAGED))
		cmd->out_flags |= CUFAB_PTR_F_MANAGED;
	/*
	 * a range without memory of its own (multicast) is device memory;
	 * so is managed memory, as CUDA reports it
	 */
	cmd->out_memory_type = alloc->location_type == CUFAB_LOC_DEVICE ||
			       !cufab_alloc_cpu_mappable(alloc) ||
			       cufab_alloc_has(alloc, CUFAB_ALLOC_MANAGED) ?
			       2 : 1;	/* CU_MEMORYTYPE_DEVICE : _HOST */
	cmd->out_dev = alloc->gpu >= 0 ? alloc->gpu :
		       va->linear ? va->linear_dev : -1;
	cmd->out_handle_types = alloc->handle_types;
	cmd->out_alloc_id = alloc->id;
	cmd->out_access_flags = map->host;
	cmd->out_alloc_flags = alloc->alloc_flags;
	if (va->linear) {
		cmd->out_flags |= CUFAB_PTR_F_LINEAR;
		cmd->out_host_flags = READ_ONCE(va->host_flags);
		cmd->out_ctx_id = READ_ONCE(va->linear_ctx);
		cmd->out_range_base = va->start;
		cmd->out_range_length = va->length;
	} else {
		cmd->out_flags |= va->pool ? CUFAB_PTR_F_POOL : CUFAB_PTR_F_VMM;
		cmd->out_range_base = map->start;
		cmd->out_range_length = map->length;
	}
}

int cufab_ioctl_pointer_info(struct cufab_ucmd *ucmd)
{
	struct cufab_pointer_info *cmd = ucmd->cmd;
	struct cufab_va_map *map;
	struct cufab_va *va;
	u64 addr = cmd->addr;

	if (cmd->flags || cmd->__reserved || cmd->__reserved2) {
		cufab_pr_info(ucmd->client, "cuPointerGetAttribute: flags 0x%x: flags and reserved fields must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->addr = addr;
	cmd->out_dev = -1;

	va = cufab_va_find(ucmd->client, addr);
	if (va) {
		cmd->out_flags = CUFAB_PTR_F_CUFAB;
		/*
		 * RANGE_START_ADDR/RANGE_SIZE of VMM memory report the
		 * reservation, not the mapping (cuPointerGetAttribute).
		 */
		cmd->out_va_base = va->start;
		cmd->out_va_length = va->length;
		down_read(&va->lock);
		map = va->dead ? NULL : cufab_va_map_load(va, addr);
		if (map)
			cufab_pointer_info_fill(cmd, va, map);
		up_read(&va->lock);
		cufab_va_put(va);
	} else {
		cufab_hostreg_pointer_info(ucmd->client, cmd);
	}
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

int cufab_ioctl_mem_get_info(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_get_info *cmd = ucmd->cmd;
	struct cufab_gpu *gpu;
	s64 used;

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(cmd->dev);
	if (gpu) {
		used = atomic64_read(&gpu->mem_used);
		cmd->out_total = gpu->mem_total;
		cmd->out_free = gpu->mem_total - clamp_t(s64, used, 0,
							 gpu->mem_total);
	}
	up_read(&cufab_topo_rwsem);
	if (!gpu)
		return cufab_memop_no_gpu(ucmd->client, "cuMemGetInfo",
					  cmd->dev);
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* ---- stream operations: copy and set ---- */

/*
 * Check a STREAM_SUBMIT copy or set on @stream and fill @d. A set's
 * destination is checked against the device's reach now, so that
 * cuMemsetD*Async refuses pageable memory as the driver does.
 */
static int cufab_mem_desc_check(struct cufab_stream *stream,
				const struct cufab_stream_submit *cmd,
				struct cufab_mem_desc *d)
{
	u32 src_dev = cmd->src_dev, dst_dev = cmd->dst_dev;
	u64 length = cmd->length;

	if (src_dev == CUFAB_DEV_STREAM)
		src_dev = stream->dev;
	if (dst_dev == CUFAB_DEV_STREAM)
		dst_dev = stream->dev;
	if (cmd->op == CUFAB_OP_SET) {
		if (cmd->src || cmd->src_dev != CUFAB_DEV_STREAM) {
			cufab_pr_info(stream->client, "cuMemsetD8/D16/D32Async: src 0x%llx src_dev %u: a set has no source\n",
				      cmd->src, cmd->src_dev);
			return -EINVAL;
		}
		if (cmd->elem_size != 1 && cmd->elem_size != 2 &&
		    cmd->elem_size != 4) {
			cufab_pr_info(stream->client, "cuMemsetD8/D16/D32Async: element size %u: must be 1, 2 or 4\n",
				      cmd->elem_size);
			return -EINVAL;
		}
		if (!IS_ALIGNED(cmd->dst, cmd->elem_size) ||
		    (cmd->elem_size < 4 &&
		     cmd->value >> (8 * cmd->elem_size))) {
			cufab_pr_info(stream->client, "cuMemsetD%uAsync: dst 0x%llx value 0x%x: dst must be aligned to the %u-byte element and the value fit in it\n",
				      cmd->elem_size * 8, cmd->dst, cmd->value,
				      cmd->elem_size);
			return -EINVAL;
		}
		if (check_mul_overflow(cmd->length, (u64)cmd->elem_size,
				       &length)) {
			cufab_pr_info(stream->client, "cuMemsetD%uAsync: count %llu: the size in bytes overflows 64 bits\n",
				      cmd->elem_size * 8, cmd->length);
			return -EINVAL;
		}
	} else if (cmd->value || cmd->elem_size) {
		cufab_pr_info(stream->client, "cuMemcpyAsync: value 0x%x element size %u: a copy has neither\n",
			      cmd->value, cmd->elem_size);
		return -EINVAL;
	}
	if (cmd->host_fn || cmd->host_data || cmd->event_id) {
		cufab_pr_info(stream->client, "%s: host_fn, host_data and event_id: must be 0 for a copy or set\n",
			      cmd->op == CUFAB_OP_SET ? "cuMemsetD8/D16/D32Async" :
			      "cuMemcpyAsync");
		return -EINVAL;
	}
	if (!cufab_node_gpu_exists(src_dev) || !cufab_node_gpu_exists(dst_dev))
		return cufab_memop_no_gpu(stream->client,
					  cmd->op == CUFAB_OP_SET ?
					  cufab_set_call(cmd->elem_size, true) :
					  "cuMemcpyAsync",
					  cufab_node_gpu_exists(src_dev) ?
					  dst_dev : src_dev);
	if (length && (!cufab_range_ok(cmd->dst, length) ||
		       (cmd->op == CUFAB_OP_COPY &&
			!cufab_range_ok(cmd->src, length)))) {
		cufab_pr_info(stream->client, "%s: dst 0x%llx src 0x%llx size %llu: a range wraps past the end of the address space\n",
			      cmd->op == CUFAB_OP_SET ? "cuMemsetD8/D16/D32Async" :
			      "cuMemcpyAsync", cmd->dst, cmd->src, length);
		return -EINVAL;
	}
	if (length && cmd->op == CUFAB_OP_SET &&
	    cufab_set_unreachable(stream->client, cmd->dst, dst_dev)) {
		cufab_pr_info(stream->client, "cuMemsetD%uAsync: 0x%llx is pageable host memory and GPU %u has PAGEABLE_MEMORY_ACCESS 0\n",
			      cmd->elem_size * 8, cmd->dst, dst_dev);
		return -EINVAL;
	}
	d->dst = cmd->dst;
	d->src = cmd->src;
	d->length = length;
	d->src_dev = src_dev;
	d->dst_dev = dst_dev;
	d->value = cmd->value;
	d->elem_size = cmd->elem_size;
	d->fill = cmd->op == CUFAB_OP_SET;
	return 0;
}

static int cufab_op_mem_prepare(struct cufab_op *op,
				const struct cufab_stream_submit *cmd)
{
	int ret = cufab_mem_desc_check(op->stream, cmd, &op->u.mem.one);

	if (ret)
		return ret;
	op->u.mem.descs = &op->u.mem.one;
	op->u.mem.nr = 1;
	op->u.mem.mm = current->mm;
	mmgrab(op->u.mem.mm);
	return 0;
}

static void cufab_op_mem_cleanup(struct cufab_op *op)
{
	mmdrop(op->u.mem.mm);
	if (op->u.mem.descs != &op->u.mem.one)
		kvfree(op->u.mem.descs);
}

/* The copy or set moving now. */
static const struct cufab_mem_desc *cufab_op_mem_desc(const struct cufab_op *op)
{
	return &op->u.mem.descs[op->u.mem.cur];
}

/*
 * A piece of a copy or set stopped at a page whose fault would sleep:
 * give the worker back and try again later, backing off, until
 * cufab_fault_timeout_ms have passed with no byte moved.
 */
static int cufab_op_mem_stalled(struct cufab_op *op)
{
	unsigned long timeout =
		msecs_to_jiffies(READ_ONCE(cufab_fault_timeout_ms));

	if (!op->stalled_since) {
		op->stalled_since = jiffies;
		op->resume_us = 0;
	}
	if (time_after(jiffies, op->stalled_since + timeout)) {
		cufab_pr_info(op->stream->client,
			      "stream %llu: %s (seq %llu) at 0x%llx: a user page could not be faulted in for %u ms (fault_timeout_ms): illegal address\n",
			      op->stream->uid, op->type->name, op->seq,
			      cufab_op_mem_desc(op)->dst + op->u.mem.done,
			      cufab_fault_timeout_ms);
		return -EFAULT;
	}
	return cufab_op_yield(op, clamp_t(unsigned int, op->resume_us * 2,
					  USEC_PER_MSEC, CUFAB_STALL_MAX_US));
}

/* The next piece of the copy or set moving, in the process's address space. */
static int cufab_op_mem_step(struct cufab_op *op)
{
	const struct cufab_mem_desc *d = cufab_op_mem_desc(op);
	struct cufab_move mv = {
		.dst = d->dst, .src = d->src, .length = d->length,
		.done = op->u.mem.done, .value = d->value,
		.elem = d->elem_size, .fill = d->fill,
	};
	int ret = cufab_move_user_step(op->stream->client, &mv);

	op->u.mem.done = mv.done;
	if (ret == -EBUSY)
		return cufab_op_mem_stalled(op);
	op->stalled_since = 0;
	if (ret == -EAGAIN)
		return cufab_op_yield(op, 0);
	if (ret)
		cufab_move_failed(op->stream->client,
				  mv.fill ? cufab_set_call(mv.elem, true) :
				  "cuMemcpyAsync", mv.dst, mv.fill ? 0 : mv.src,
				  mv.done, mv.length, ret);
	return ret;
}

/*
 * Start the copy or set descs[cur]: check access, as a GPU would fault
 * then, and move its first piece.
 */
static int cufab_op_mem_start(struct cufab_op *op)
{
	struct cufab_client *client = op->stream->client;
	const struct cufab_mem_desc *d = cufab_op_mem_desc(op);
	const char *call = d->fill ? cufab_set_call(d->elem_size, true) :
				     "cuMemcpyAsync";
	int ret;

	if (!d->length)
		return 0;
	ret = cufab_va_check_access(client, call, d->dst, d->length,
				    d->dst_dev, CUFAB_ACCESS_RW);
	if (!ret && !d->fill)
		ret = cufab_va_check_access(client, call, d->src, d->length,
					    d->src_dev, CUFAB_ACCESS_READ);
	if (!ret)
		ret = cufab_stream_access(op, d->dst, d->length);
	if (!ret && !d->fill)
		ret = cufab_stream_access(op, d->src, d->length);
	/*
	 * a set checked at submission whose device memory was freed since:
	 * the GPU faults there, whatever the process mapped there meanwhile
	 */
	if (!ret && d->fill &&
	    cufab_set_unreachable(client, d->dst, d->dst_dev)) {
		cufab_pr_info(client, "%s: dst 0x%llx: not cufab memory any more and GPU %u has PAGEABLE_MEMORY_ACCESS 0: freed since the set was queued\n",
			      call, d->dst, d->dst_dev);
		ret = -EFAULT;
	}
	return ret ?: cufab_op_mem_step(op);
}

/*
 * Copies and sets of a run that one turn of the engine may start: a run
 * gives its worker back as a single copy does after CUFAB_ENGINE_PIECE.
 */
#define CUFAB_RUN_TURN	64

/*
 * Move the copies and sets from descs[cur] on, a piece at a time
 * (cufab_op_yield(): the engine comes back for the rest), one after the
 * other. Context: the process's mm in use.
 */
static int cufab_op_mem_turn(struct cufab_op *op)
{
	u64 budget = CUFAB_ENGINE_PIECE;
	unsigned int started = 0;
	int ret;

	for (;;) {
		/* started already: its checks were made when it began */
		if (op->u.mem.done || op->stalled_since)
			ret = cufab_op_mem_step(op);
		else
			ret = cufab_op_mem_start(op);
		if (ret)
			return ret;	/* failed, or parked until the rest */
		budget -= min(budget, cufab_op_mem_desc(op)->length);
		op->u.mem.done = 0;
		if (++op->u.mem.cur == op->u.mem.nr)
			return 0;
		if (!budget || ++started == CUFAB_RUN_TURN)
			return cufab_op_yield(op, 0);
	}
}

/*
 * A process whose address space is already gone fails the operation
 * (-ESRCH): nobody is left to see it.
 */
static int cufab_op_mem_execute(struct cufab_op *op)
{
	struct mm_struct *mm = op->u.mem.mm;
	struct cufab_charge charge;
	int ret;

	if (op->u.mem.descs == &op->u.mem.one && !op->u.mem.one.length)
		return 0;
	if (!mmget_not_zero(mm))
		return -ESRCH;
	kthread_use_mm(mm);
	cufab_charge_begin(&charge, mm);
	ret = cufab_op_mem_turn(op);
	cufab_charge_end(&charge);
	kthread_unuse_mm(mm);
	/* the last user may be us: exit_mmap() does not belong here */
	mmput_async(mm);
	return ret;
}

const struct cufab_op_type cufab_op_copy = {
	.name = "copy",
	.skip_on_error = true,
	.prepare = cufab_op_mem_prepare,
	.execute = cufab_op_mem_execute,
	.cleanup = cufab_op_mem_cleanup,
};

const struct cufab_op_type cufab_op_set = {
	.name = "set",
	.skip_on_error = true,
	.prepare = cufab_op_mem_prepare,
	.execute = cufab_op_mem_execute,
	.cleanup = cufab_op_mem_cleanup,
};

/* A batch's consecutive copies and sets (cufab_op_mem_run_new()). */
static const struct cufab_op_type cufab_op_mem_run = {
	.name = "copies and sets",
	.skip_on_error = true,
	.execute = cufab_op_mem_execute,
	.cleanup = cufab_op_mem_cleanup,
};

/**
 * cufab_op_mem_run_new() - an operation for up to @max consecutive copies
 *	and sets of a batch, each added by cufab_op_mem_run_add()
 * @stream: the stream, whose reference the operation takes over: on
 *	error the caller keeps it, else cufab_op_free() drops it
 * @max: at least 1; the entries it has room for
 *
 * The entries run as STREAM_SUBMIT's would, in order; the first that
 * fails ends the operation with its error, which becomes the stream's, so
 * the entries after it would not have run either (skip_on_error). One
 * operation costs one allocation, one fence and one trip through the
 * queue where n entries would cost n of each: what makes a graph launch
 * of many nodes cheaper than as many stream calls. It stands for its
 * entries (op->width): as many sequence numbers and places.
 *
 * Return: the operation, with no entry yet, or ERR_PTR(-errno).
 */
struct cufab_op *cufab_op_mem_run_new(struct cufab_stream *stream, u32 max)
{
	struct cufab_mem_desc *descs;
	struct cufab_op *op;

	descs = kvmalloc_array(max, sizeof(*descs), GFP_KERNEL_ACCOUNT);
	if (!descs)
		return ERR_PTR(-ENOMEM);
	op = cufab_op_alloc(stream);
	if (IS_ERR(op)) {
		kvfree(descs);
		return op;
	}
	op->type = &cufab_op_mem_run;
	op->u.mem.descs = descs;
	op->u.mem.mm = current->mm;
	mmgrab(op->u.mem.mm);
	return op;
}

/**
 * cufab_op_mem_run_add() - one more copy or set of a run
 * @op: from cufab_op_mem_run_new(), with room for one more entry
 * @e: a STREAM_BATCH entry, CUFAB_OP_COPY or CUFAB_OP_SET
 *
 * @e is checked as STREAM_SUBMIT checks it.
 *
 * Return: 0, or -errno (with its line) and @op unchanged.
 */
int cufab_op_mem_run_add(struct cufab_op *op,
			 const struct cufab_stream_submit *e)
{
	int ret = cufab_mem_desc_check(op->stream, e,
				       &op->u.mem.descs[op->u.mem.nr]);

	if (ret)
		return ret;
	op->width = ++op->u.mem.nr;
	return 0;
}
