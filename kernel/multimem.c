// SPDX-License-Identifier: GPL-2.0
/*
 * CUFAB_IOCTL_MULTIMEM: what multimem.st / multimem.ld_reduce /
 * multimem.red do on an NVSwitch, done by the CPU against the bindings of
 * a multicast object: a store goes to every bound replica, a load-reduce
 * combines all bound replicas, a reduce updates each replica in place.
 * A team member with nothing bound at a touched offset is skipped, as the
 * hardware does, and counted (out_skipped, the object's counter, an
 * event).
 *
 * The range is cut into pieces over which every member is either bound
 * by one binding or not bound at all. For each piece the bindings are
 * looked up under team->lock and their allocations referenced; the data
 * moves after the lock is dropped, so user copies (which may fault and
 * take mmap_lock) never nest inside team->lock. A store copies from the
 * user's pages, pinned a window at a time, into the replicas (k copies, no
 * bounce); the reductions go through a small kernel buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/cufab.h>

#include "cufab.h"

/* Largest piece a store handles per lookup, and the reduction buffer. */
#define CUFAB_MM_STORE_CHUNK	(4ULL << 20)
#define CUFAB_MM_REDUCE_CHUNK	(64ULL << 10)

/* Teams up to this size need no allocation for their segments. */
#define CUFAB_MM_INLINE_SEGS	8
/* User pages a store pins at a time: 128 KiB, an array on the stack. */
#define CUFAB_MM_PIN_PAGES	32

/**
 * struct cufab_mm_seg - one member's part of a piece
 * @alloc: its bound memory (referenced), NULL: nothing bound there
 * @mem_offset: where the piece starts in @alloc
 * @skipped: some piece of the call found nothing bound for this member
 */
struct cufab_mm_seg {
	struct cufab_alloc *alloc;
	u64 mem_offset;
	bool skipped;
};

struct cufab_mm_ctx {
	struct cufab_mc *mc;
	const struct cufab_multimem *cmd;
	void __user *ubuf;
	u32 esize;
	u32 members;
	struct cufab_mm_seg *segs;	/* @inline_segs or allocated */
	void *bounce;
	struct cufab_mm_seg inline_segs[CUFAB_MM_INLINE_SEGS];
	/* store: the window of the user's pages being copied */
	struct page *src[CUFAB_MM_PIN_PAGES];
	unsigned int pinned;	/* pages in @src, 0: not pinned */
	unsigned long src_off;	/* offset of the window's start in src[0] */
};

static u32 cufab_mm_esize(u32 dtype)
{
	switch (dtype) {
	case CUFAB_DT_U8:
		return 1;
	case CUFAB_DT_U32:
	case CUFAB_DT_S32:
	case CUFAB_DT_F32:
		return 4;
	case CUFAB_DT_U64:
	case CUFAB_DT_S64:
	case CUFAB_DT_F64:
		return 8;
	default:
		return 0;
	}
}

static bool cufab_mm_is_float(u32 dtype)
{
	return dtype == CUFAB_DT_F32 || dtype == CUFAB_DT_F64;
}

/* Operation, reduction and type go together as multimem allows. */
static int cufab_mm_check(const struct cufab_multimem *cmd)
{
	if (cmd->flags || cmd->__reserved || !cufab_mm_esize(cmd->dtype))
		return -EINVAL;
	switch (cmd->op) {
	case CUFAB_MM_STORE:
		return 0;
	case CUFAB_MM_LOAD_REDUCE:
	case CUFAB_MM_REDUCE:
		if (cmd->dtype == CUFAB_DT_U8 || cmd->redop > CUFAB_RED_XOR)
			return -EINVAL;
		if (cufab_mm_is_float(cmd->dtype) && cmd->redop > CUFAB_RED_MAX)
			return -EINVAL;
		/* float math needs kernel_fpu_begin() (multimem_ops.c) */
		if (cufab_mm_is_float(cmd->dtype) && !IS_ENABLED(CONFIG_X86))
			return -EOPNOTSUPP;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The multicast object mapped at [addr, addr + bytes) of @client and the
 * offset of @addr in it, with a reference. The whole range must lie in
 * one multicast mapping granting @need.
 */
static struct cufab_alloc *cufab_mm_resolve(struct cufab_client *client,
					    u64 addr, u64 bytes, u32 need,
					    u64 *offset)
{
	struct cufab_alloc *alloc = ERR_PTR(-EINVAL);
	struct cufab_va_map *map;
	struct cufab_va *va;

	va = cufab_va_find(client, addr);
	if (!va)
		return alloc;
	down_read(&va->lock);
	map = va->dead ? NULL : cufab_va_map_load(va, addr);
	if (!map || !cufab_alloc_mc(map->alloc) ||
	    !cufab_range_inside(addr, bytes, map->start, map->length)) {
		pr_info_ratelimited("pid %d (%s): multimem at 0x%llx size %llu: not inside one multicast mapping\n",
				    task_tgid_nr(current), current->comm,
				    addr, bytes);
	} else if ((cufab_map_cpu_access(map) & need) != need) {
		pr_info_ratelimited("pid %d (%s): multimem at 0x%llx: the multicast mapping grants no %s access (cuMemSetAccess)\n",
				    task_tgid_nr(current), current->comm, addr,
				    need == CUFAB_ACCESS_RW ? "write" : "read");
		alloc = ERR_PTR(-EACCES);
	} else {
		alloc = map->alloc;
		cufab_alloc_get(alloc);
		*offset = map->offset + (addr - map->start);
	}
	up_read(&va->lock);
	cufab_va_put(va);
	return alloc;
}

static void cufab_mm_segs_put(struct cufab_mm_ctx *ctx)
{
	u32 i;

	for (i = 0; i < ctx->members; i++) {
		if (ctx->segs[i].alloc)
			cufab_alloc_put(ctx->segs[i].alloc);
		ctx->segs[i].alloc = NULL;
	}
}

/*
 * Look up every member at @off and cut the piece so that each member is
 * uniformly bound or unbound over [off, off + return value).
 */
static u64 cufab_mm_segs_get(struct cufab_mm_ctx *ctx, u64 off, u64 len)
{
	struct cufab_team *team = ctx->mc->team;
	struct cufab_binding *b;
	u64 end = off + len;
	u32 i;

	mutex_lock(&team->lock);
	for (i = 0; i < ctx->members; i++) {
		b = cufab_bindmap_first_from(&team->members[i].map, off);
		if (b && b->offset <= off) {
			ctx->segs[i].alloc = b->alloc;
			ctx->segs[i].mem_offset = b->mem_offset +
						  (off - b->offset);
			cufab_alloc_get(b->alloc);
			end = min(end, b->offset + b->size);
		} else {
			ctx->segs[i].alloc = NULL;
			ctx->segs[i].skipped = true;
			if (b)
				end = min(end, b->offset);
		}
	}
	mutex_unlock(&team->lock);
	return end - off;
}

/*
 * Visit [mem_offset, mem_offset + len) of @alloc page by page: @fn gets
 * the kernel address of each part and where it lies in the piece.
 */
static int cufab_mm_pages(struct cufab_alloc *alloc, u64 mem_offset, u64 len,
			  int (*fn)(struct cufab_mm_ctx *ctx, void *kaddr,
				    u64 pos, u64 n),
			  struct cufab_mm_ctx *ctx)
{
	u64 pos = 0, n, in_page;
	struct page *page;
	void *kaddr;
	int ret;

	while (pos < len) {
		page = cufab_alloc_page(alloc, (mem_offset + pos) >> PAGE_SHIFT);
		if (IS_ERR(page))
			return PTR_ERR(page);
		in_page = (mem_offset + pos) & ~PAGE_MASK;
		n = min_t(u64, PAGE_SIZE - in_page, len - pos);
		kaddr = kmap_local_page(page);
		ret = fn(ctx, kaddr + in_page, pos, n);
		kunmap_local(kaddr);
		if (ret)
			return ret;
		pos += n;
		cond_resched();
	}
	return 0;
}

/* ---- store ---- */

/*
 * Bytes from @pos on that lie in one page of every bound replica: a step
 * of the store.
 */
static u64 cufab_mm_step(const struct cufab_mm_ctx *ctx, u64 pos, u64 len)
{
	u64 n = len - pos, in_page;
	u32 i;

	for (i = 0; i < ctx->members; i++) {
		if (!ctx->segs[i].alloc)
			continue;
		in_page = (ctx->segs[i].mem_offset + pos) & ~PAGE_MASK;
		n = min_t(u64, n, PAGE_SIZE - in_page);
	}
	return n;
}

/* [at, at + n) of the pinned window to @dst, page by source page. */
static void cufab_mm_copy_pinned(struct cufab_mm_ctx *ctx, void *dst, u64 at,
				 u64 n)
{
	u64 chunk;
	void *src;

	at += ctx->src_off;
	while (n) {
		chunk = min_t(u64, n, PAGE_SIZE - (at & ~PAGE_MASK));
		src = kmap_local_page(ctx->src[at >> PAGE_SHIFT]);
		cufab_mm_copy(dst, src + (at & ~PAGE_MASK), chunk);
		kunmap_local(src);
		dst += chunk;
		at += chunk;
		n -= chunk;
	}
}

/*
 * Bytes [pos, pos + n) of the piece, at @at in the window, into @seg's
 * replica: one page of it.
 */
static int cufab_mm_store_step(struct cufab_mm_ctx *ctx,
			       struct cufab_mm_seg *seg, u64 pos, u64 at, u64 n)
{
	u64 mem = seg->mem_offset + pos;
	struct page *page;
	void *kaddr;
	int ret = 0;

	page = cufab_alloc_page(seg->alloc, mem >> PAGE_SHIFT);
	if (IS_ERR(page))
		return PTR_ERR(page);
	kaddr = kmap_local_page(page) + (mem & ~PAGE_MASK);
	if (ctx->pinned)
		cufab_mm_copy_pinned(ctx, kaddr, at, n);
	else if (copy_from_user(kaddr, ctx->ubuf + pos, n))
		ret = -EFAULT;
	kunmap_local(kaddr);
	return ret;
}

/*
 * Pin the user's pages of the window that starts at @pos of the piece and
 * return its length. A source that cannot be pinned (say a cufab mapping,
 * which has no struct pages to lend) is left unpinned (ctx->pinned 0) and
 * goes through copy_from_user().
 */
static u64 cufab_mm_pin_window(struct cufab_mm_ctx *ctx, u64 pos, u64 len)
{
	unsigned long start = (unsigned long)ctx->ubuf + pos;
	int npages, got;
	u64 wlen;

	ctx->src_off = start & ~PAGE_MASK;
	wlen = min_t(u64, len - pos,
		     CUFAB_MM_PIN_PAGES * PAGE_SIZE - ctx->src_off);
	npages = DIV_ROUND_UP(ctx->src_off + wlen, PAGE_SIZE);
	got = pin_user_pages_fast(start & PAGE_MASK, npages, 0, ctx->src);
	ctx->pinned = got == npages ? npages : 0;
	if (got > 0 && got < npages)
		unpin_user_pages(ctx->src, got);
	return wlen;
}

/*
 * The window [pos, pos + wlen) of the piece, a step at a time. Each step
 * goes to every replica before the next one is read, so the source is
 * read from memory once and from the cache k - 1 times, where k copies of
 * the whole buffer read it from memory k times.
 */
static int cufab_mm_store_window(struct cufab_mm_ctx *ctx, u64 pos, u64 wlen)
{
	u64 at, n;
	int ret;
	u32 i;

	for (at = 0; at < wlen; at += n) {
		n = cufab_mm_step(ctx, pos + at, pos + wlen);
		for (i = 0; i < ctx->members; i++) {
			if (!ctx->segs[i].alloc)
				continue;
			ret = cufab_mm_store_step(ctx, &ctx->segs[i], pos + at,
						  at, n);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Pinning a window at a time keeps the page array off the heap. */
static int cufab_mm_store_piece(struct cufab_mm_ctx *ctx, u64 len)
{
	u64 pos = 0, wlen;
	int ret = 0;

	while (pos < len && !ret) {
		wlen = cufab_mm_pin_window(ctx, pos, len);
		ret = cufab_mm_store_window(ctx, pos, wlen);
		if (ctx->pinned)
			unpin_user_pages(ctx->src, ctx->pinned);
		pos += wlen;
		cond_resched();
	}
	return ret;
}

/* ---- reductions ---- */

static int cufab_mm_load_first(struct cufab_mm_ctx *ctx, void *kaddr, u64 pos,
			       u64 n)
{
	cufab_mm_copy(ctx->bounce + pos, kaddr, n);
	return 0;
}

static int cufab_mm_load_more(struct cufab_mm_ctx *ctx, void *kaddr, u64 pos,
			      u64 n)
{
	cufab_mm_combine(ctx->cmd->dtype, ctx->cmd->redop, ctx->bounce + pos,
			 kaddr, n / ctx->esize);
	return 0;
}

static int cufab_mm_reduce_page(struct cufab_mm_ctx *ctx, void *kaddr,
				u64 pos, u64 n)
{
	cufab_mm_combine(ctx->cmd->dtype, ctx->cmd->redop, kaddr,
			 ctx->bounce + pos, n / ctx->esize);
	return 0;
}

static int cufab_mm_load_piece(struct cufab_mm_ctx *ctx, u64 len)
{
	bool first = true;
	int ret = 0;
	u32 i;

	for (i = 0; i < ctx->members && !ret; i++) {
		if (!ctx->segs[i].alloc)
			continue;
		ret = cufab_mm_pages(ctx->segs[i].alloc, ctx->segs[i].mem_offset,
				     len, first ? cufab_mm_load_first :
				     cufab_mm_load_more, ctx);
		first = false;
	}
	/* nothing bound anywhere: the load reads nothing, zeros */
	if (first)
		memset(ctx->bounce, 0, len);
	if (!ret && copy_to_user(ctx->ubuf, ctx->bounce, len))
		ret = -EFAULT;
	return ret;
}

static int cufab_mm_reduce_piece(struct cufab_mm_ctx *ctx, u64 len)
{
	int ret = 0;
	u32 i;

	if (copy_from_user(ctx->bounce, ctx->ubuf, len))
		return -EFAULT;
	for (i = 0; i < ctx->members && !ret; i++)
		if (ctx->segs[i].alloc)
			ret = cufab_mm_pages(ctx->segs[i].alloc,
					     ctx->segs[i].mem_offset, len,
					     cufab_mm_reduce_page, ctx);
	return ret;
}

/* Every piece of [offset, offset + bytes). */
static int cufab_mm_run(struct cufab_mm_ctx *ctx, u64 offset, u64 bytes)
{
	u32 op = ctx->cmd->op;
	u64 chunk = op == CUFAB_MM_STORE ? CUFAB_MM_STORE_CHUNK :
		    CUFAB_MM_REDUCE_CHUNK;
	u64 done = 0, len;
	int ret = 0;

	while (done < bytes && !ret) {
		if (fatal_signal_pending(current))
			return -EINTR;
		len = cufab_mm_segs_get(ctx, offset + done,
					min(chunk, bytes - done));
		if (op == CUFAB_MM_STORE)
			ret = cufab_mm_store_piece(ctx, len);
		else if (op == CUFAB_MM_LOAD_REDUCE)
			ret = cufab_mm_load_piece(ctx, len);
		else
			ret = cufab_mm_reduce_piece(ctx, len);
		cufab_mm_segs_put(ctx);
		ctx->ubuf += len;
		done += len;
	}
	return ret;
}

static int cufab_mm_exec(struct cufab_mm_ctx *ctx, u64 offset, u64 bytes)
{
	struct cufab_multimem *cmd = (struct cufab_multimem *)ctx->cmd;
	u32 i, skipped = 0;
	int ret = -ENOMEM;

	ctx->members = READ_ONCE(ctx->mc->team->joined);
	ctx->segs = ctx->inline_segs;
	if (ctx->members > CUFAB_MM_INLINE_SEGS)
		ctx->segs = kcalloc(ctx->members, sizeof(*ctx->segs),
				    GFP_KERNEL);
	if (cmd->op != CUFAB_MM_STORE)
		ctx->bounce = kmalloc(min(bytes, CUFAB_MM_REDUCE_CHUNK),
				      GFP_KERNEL);
	if (!ctx->segs || (cmd->op != CUFAB_MM_STORE && !ctx->bounce))
		goto out;
	ret = cufab_mm_run(ctx, offset, bytes);
	for (i = 0; i < ctx->members; i++)
		skipped += ctx->segs[i].skipped;
	cmd->out_replicas = ctx->members - skipped;
	cmd->out_skipped = skipped;
	cufab_mc_skipped(ctx->mc, skipped);
out:
	kfree(ctx->bounce);
	if (ctx->segs != ctx->inline_segs)
		kfree(ctx->segs);
	return ret;
}

int cufab_ioctl_multimem(struct cufab_ucmd *ucmd)
{
	struct cufab_multimem *cmd = ucmd->cmd;
	struct cufab_mm_ctx ctx = { .cmd = cmd };
	struct cufab_alloc *alloc;
	u64 bytes, offset;
	int ret;

	ret = cufab_mm_check(cmd);
	if (ret)
		return ret;
	ctx.esize = cufab_mm_esize(cmd->dtype);
	if (!cmd->count || check_mul_overflow(cmd->count, (u64)ctx.esize,
					      &bytes) ||
	    !IS_ALIGNED(cmd->addr, ctx.esize))
		return -EINVAL;
	alloc = cufab_mm_resolve(ucmd->client, cmd->addr, bytes,
				 cmd->op == CUFAB_MM_LOAD_REDUCE ?
				 CUFAB_ACCESS_READ : CUFAB_ACCESS_RW, &offset);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	ctx.mc = cufab_alloc_mc(alloc);
	ctx.ubuf = u64_to_user_ptr(cmd->buf);
	ret = cufab_should_fail(CUFAB_FAULT_MC) ? -ENOMEM :
	      cufab_mm_exec(&ctx, offset, bytes);
	cufab_alloc_put(alloc);
	if (ret)
		return ret;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}
