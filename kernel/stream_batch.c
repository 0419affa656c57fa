// SPDX-License-Identifier: GPL-2.0
/*
 * CUFAB_IOCTL_STREAM_BATCH: many operations of one stream in one call.
 *
 * A graph launch (cuGraphLaunch) is n operations that must reach the
 * engine together: one syscall, not n. The library puts the graph's nodes
 * in an order that respects their dependencies and hands the whole order
 * here; the stream runs its operations one after the other, so that order
 * is all the dependency the engine needs.
 *
 * Every entry is built with the constructor STREAM_SUBMIT uses
 * (cufab_op_new()) before any is queued, so a refused entry queues
 * nothing; then the batch takes its n places in the client's queue bound
 * at once (a batch never holds part of the bound while it waits for the
 * rest, so two batches cannot starve each other), and the operations are
 * queued in order.
 *
 * A launch is on the path of every graph: the entries are read from user
 * memory one at a time, each once, as they are built (no copy of the
 * array), the built operations of a short batch are kept on the stack,
 * and only the two numbers of each entry the caller reads are written
 * back.
 *
 * Consecutive copies and sets, checked one by one as STREAM_SUBMIT would,
 * become one operation that runs them in order (cufab_op_mem_run_new()):
 * most of what a submission costs is the operation, its fence and its trip
 * through the queue, and a graph of memset and memcpy nodes would pay it
 * per node. Such an operation still counts as its entries: each gets its
 * own sequence number (the stream reaches them all when the run is done)
 * and its place in the queue bound.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "cufab.h"

/* Entries of a run a batch makes one operation of, at most. */
#define CUFAB_BATCH_RUN_MAX	256

/* Operations a batch keeps on the stack; more take an array. */
#define CUFAB_BATCH_ON_STACK	8

/* A built operation and, once queued, the numbers its entries get. */
struct cufab_batch_slot {
	struct cufab_op *op;
	u64 seq;	/* the last of its sequence numbers */
	u64 aux;	/* what its type's @queued left (out_event_seq) */
	u32 width;	/* its entries */
};

/* One STREAM_BATCH call. */
struct cufab_batch {
	struct cufab_stream *stream;
	struct cufab_stream_submit __user *uents;
	u32 count;
	struct cufab_batch_slot *slots;	/* @stack, or an array of @count */
	u32 nops;
	struct cufab_batch_slot stack[CUFAB_BATCH_ON_STACK];
};

/* Why entry @e of a batch is refused, or NULL. */
static const char *cufab_batch_entry_rule(const struct cufab_stream_submit *e)
{
	if (e->size != sizeof(*e))
		return "size is not sizeof(struct cufab_stream_submit)";
	if (e->stream_id)
		return "stream_id is not 0 (the batch names the stream)";
	if (e->flags || e->__reserved)
		return "flags or __reserved not 0";
	if (!e->op || e->op >= CUFAB_OP_MAX)
		return "unknown op";
	return NULL;
}

static bool cufab_batch_op_is_mem(u32 op)
{
	return op == CUFAB_OP_COPY || op == CUFAB_OP_SET;
}

/* Read entry @i into @e and check it, with a line if it is refused. */
static int cufab_batch_read(struct cufab_batch *b, u32 i,
			    struct cufab_stream_submit *e)
{
	const char *rule;

	if (copy_from_user(e, &b->uents[i], sizeof(*e)))
		return -EFAULT;
	rule = cufab_batch_entry_rule(e);
	if (rule) {
		cufab_pr_info(b->stream->client,
			      "cuGraphLaunch: stream %llu: batch entry %u of %u (op %u): %s\n",
			      b->stream->uid, i, b->count, e->op, rule);
		return -EINVAL;
	}
	return 0;
}

/*
 * Room for one more operation: past the stack's, an array for as many as
 * the batch has entries (never more operations than that).
 */
static int cufab_batch_slot_room(struct cufab_batch *b)
{
	struct cufab_batch_slot *slots;

	if (b->nops < CUFAB_BATCH_ON_STACK || b->slots != b->stack)
		return 0;
	slots = kvmalloc_array(b->count, sizeof(*slots), GFP_KERNEL_ACCOUNT);
	if (!slots)
		return -ENOMEM;
	memcpy(slots, b->stack, sizeof(b->stack));
	b->slots = slots;
	return 0;
}

/*
 * Keep @op, built with a reference on the stream of its own; an error
 * frees it. Entries after it are read only if it is kept.
 */
static int cufab_batch_keep(struct cufab_batch *b, struct cufab_op *op)
{
	int ret;

	if (IS_ERR(op)) {
		cufab_stream_put(b->stream);
		return PTR_ERR(op);
	}
	ret = cufab_batch_slot_room(b);
	if (ret) {
		cufab_op_free(op);
		return ret;
	}
	b->slots[b->nops++].op = op;
	return 0;
}

/*
 * The entries from @i on a run may take: @i's and the copies and sets
 * after it, by their op alone. What is read in full when each is added
 * decides; this only sizes the run.
 */
static u32 cufab_batch_run_room(struct cufab_batch *b, u32 i)
{
	u32 n = 1, op;

	while (i + n < b->count && n < CUFAB_BATCH_RUN_MAX &&
	       !get_user(op, &b->uents[i + n].op) && cufab_batch_op_is_mem(op))
		n++;
	return n;
}

/*
 * A run of copies and sets from entry *@i on (read into @e already), as
 * one operation; *@i is moved past it.
 */
static int cufab_batch_build_run(struct cufab_batch *b,
				 struct cufab_stream_submit *e, u32 *i,
				 u32 room)
{
	struct cufab_op *op;
	int ret;

	kref_get(&b->stream->ref);
	op = cufab_op_mem_run_new(b->stream, room);
	ret = cufab_batch_keep(b, op);
	while (!ret) {
		ret = cufab_op_mem_run_add(op, e);
		if (ret || ++*i == b->count || op->width == room)
			break;
		ret = cufab_batch_read(b, *i, e);
		/* changed since its op was peeked: the next turn's */
		if (!ret && !cufab_batch_op_is_mem(e->op))
			break;
	}
	return ret;
}

/*
 * Build every entry, each operation holding its own reference on the
 * stream. On error the operations built are the caller's to free.
 */
static int cufab_batch_build(struct cufab_batch *b)
{
	struct cufab_stream_submit e;
	u32 i = 0, room;
	int ret;

	while (i < b->count) {
		ret = cufab_batch_read(b, i, &e);
		if (ret)
			return ret;
		room = cufab_batch_op_is_mem(e.op) ?
		       cufab_batch_run_room(b, i) : 1;
		if (room > 1) {
			ret = cufab_batch_build_run(b, &e, &i, room);
		} else {
			kref_get(&b->stream->ref);
			ret = cufab_batch_keep(b, cufab_op_new(b->stream, &e));
			i++;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Free the built operations slots[from..nops). */
static void cufab_batch_free_ops(struct cufab_batch *b, u32 from)
{
	while (from < b->nops)
		cufab_op_free(b->slots[from++].op);
}

/* Take @n places of @space's queue bound at once, if they are free. */
static bool cufab_batch_take(struct cufab_stream_space *space, u32 n,
			     bool *too_big)
{
	unsigned int limit = max(READ_ONCE(cufab_stream_queue_max), 1U);
	int old = atomic_read(&space->queued);

	if (n > limit) {
		*too_big = true;
		return true;
	}
	do {
		if ((unsigned int)old + n > limit)
			return false;
	} while (!atomic_try_cmpxchg(&space->queued, &old, old + n));
	return true;
}

/*
 * Wait for @count places (as cufab_stream_queue_reserve() for one), one
 * per entry; each operation then gives its own back (its width) when it
 * completes or is freed.
 */
static int cufab_batch_reserve(struct cufab_batch *b)
{
	struct cufab_stream *stream = b->stream;
	bool too_big = false;
	int ret;
	u32 i;

	ret = wait_event_interruptible(stream->space->depth_wq,
				       cufab_batch_take(stream->space, b->count,
							&too_big));
	if (ret)
		return ret;
	if (too_big) {
		cufab_pr_info(stream->client,
			      "cuGraphLaunch: stream %llu: %u operations: more than stream_queue_max (%u) can ever be queued\n",
			      stream->uid, b->count,
			      READ_ONCE(cufab_stream_queue_max));
		return -EINVAL;
	}
	for (i = 0; i < b->nops; i++)
		b->slots[i].op->reserved = true;
	return 0;
}

/*
 * Queue the built operations in order; a cancelled stream stops it. Each
 * slot keeps its operation's numbers: the operation may be done and
 * freed once queued.
 */
static int cufab_batch_queue(struct cufab_batch *b)
{
	struct cufab_batch_slot *sl;
	u32 i;
	int ret;

	for (i = 0; i < b->nops; i++) {
		sl = &b->slots[i];
		sl->width = sl->op->width ?: 1;
		ret = cufab_stream_submit_reserved(b->stream, sl->op, &sl->seq,
						   &sl->aux);
		if (ret) {
			cufab_batch_free_ops(b, i + 1);
			return ret;
		}
	}
	return 0;
}

/*
 * Each entry's out_seq and out_event_seq, at its place in user memory:
 * the entries of an operation of width w get its w sequence numbers.
 */
static int cufab_batch_reply(struct cufab_batch *b)
{
	struct cufab_stream_submit __user *u = b->uents;
	const struct cufab_batch_slot *sl;
	u32 i, k;

	if (!user_access_begin(u, array_size(b->count, sizeof(*u))))
		return -EFAULT;
	for (i = 0; i < b->nops; i++) {
		sl = &b->slots[i];
		for (k = 0; k < sl->width; k++, u++) {
			unsafe_put_user(sl->seq - (sl->width - 1) + k,
					&u->out_seq, fault);
			unsafe_put_user(sl->aux, &u->out_event_seq, fault);
		}
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

static int cufab_batch_run(struct cufab_batch *b)
{
	int ret;

	ret = cufab_batch_build(b);
	if (!ret)
		ret = cufab_batch_reserve(b);
	if (ret) {
		cufab_batch_free_ops(b, 0);
		return ret;
	}
	return cufab_batch_queue(b);
}

int cufab_ioctl_stream_batch(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_batch *cmd = ucmd->cmd;
	struct cufab_batch b = {
		.uents = u64_to_user_ptr(cmd->ops_ptr),
		.count = cmd->count,
	};
	int ret;

	if (cmd->flags || !cmd->count || cmd->count > CUFAB_BATCH_MAX) {
		cufab_pr_info(ucmd->client, "cuGraphLaunch: count %u, flags 0x%x: count must be 1 ..%u and flags 0\n",
			      cmd->count, cmd->flags, CUFAB_BATCH_MAX);
		return -EINVAL;
	}
	b.slots = b.stack;
	b.stream = cufab_stream_lookup(ucmd->client, cmd->stream_id);
	if (IS_ERR(b.stream))
		return PTR_ERR(b.stream);
	ret = cufab_batch_run(&b);
	cufab_stream_put(b.stream);
	if (!ret) {
		cmd->out_seq = b.slots[b.nops - 1].seq;
		/* queued whatever comes: a fault here is the caller's to read */
		ret = cufab_batch_reply(&b);
	}
	if (!ret)
		ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (b.slots != b.stack)
		kvfree(b.slots);
	return ret;
}
