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
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "cufab.h"

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

/* Free the built operations ops[from..to). */
static void cufab_batch_free_ops(struct cufab_op **ops, u32 from, u32 to)
{
	while (from < to)
		cufab_op_free(ops[from++]);
}

/* Entries of a run a batch makes one operation of, at most. */
#define CUFAB_BATCH_RUN_MAX	256

static bool cufab_batch_is_mem(const struct cufab_stream_submit *e)
{
	return e->op == CUFAB_OP_COPY || e->op == CUFAB_OP_SET;
}

/*
 * The entries from @i on that become one operation: a run of copies and
 * sets (cufab_op_mem_run_new()), or the one entry.
 */
static u32 cufab_batch_width(const struct cufab_stream_submit *ents, u32 i,
			     u32 count)
{
	u32 n = 1;

	if (!cufab_batch_is_mem(&ents[i]))
		return 1;
	while (i + n < count && n < CUFAB_BATCH_RUN_MAX &&
	       cufab_batch_is_mem(&ents[i + n]))
		n++;
	return n;
}

/* Why an entry of @count is refused, logged; -EINVAL if one is. */
static int cufab_batch_check(struct cufab_stream *stream,
			     const struct cufab_stream_submit *ents, u32 count)
{
	const char *rule;
	u32 i;

	for (i = 0; i < count; i++) {
		rule = cufab_batch_entry_rule(&ents[i]);
		if (rule) {
			cufab_pr_info(stream->client,
				      "cuGraphLaunch: stream %llu: batch entry %u of %u (op %u): %s\n",
				      stream->uid, i, count, ents[i].op, rule);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Build every entry, each operation holding its own reference on @stream;
 * *@nops is set to the number of operations.
 */
static int cufab_batch_build(struct cufab_stream *stream,
			     const struct cufab_stream_submit *ents,
			     struct cufab_op **ops, u32 count, u32 *nops)
{
	struct cufab_op *op;
	u32 i, n = 0, w;

	if (cufab_batch_check(stream, ents, count))
		return -EINVAL;
	for (i = 0; i < count; i += w) {
		w = cufab_batch_width(ents, i, count);
		kref_get(&stream->ref);
		op = w > 1 ? cufab_op_mem_run_new(stream, &ents[i], w) :
		     cufab_op_new(stream, &ents[i]);
		if (IS_ERR(op)) {
			cufab_stream_put(stream);
			cufab_batch_free_ops(ops, 0, n);
			return PTR_ERR(op);
		}
		ops[n++] = op;
	}
	*nops = n;
	return 0;
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
static int cufab_batch_reserve(struct cufab_stream *stream,
			       struct cufab_op **ops, u32 nops, u32 count)
{
	bool too_big = false;
	int ret;
	u32 i;

	ret = wait_event_interruptible(stream->space->depth_wq,
				       cufab_batch_take(stream->space, count,
							&too_big));
	if (ret)
		return ret;
	if (too_big) {
		cufab_pr_info(stream->client,
			      "cuGraphLaunch: stream %llu: %u operations: more than stream_queue_max (%u) can ever be queued\n",
			      stream->uid, count,
			      READ_ONCE(cufab_stream_queue_max));
		return -EINVAL;
	}
	for (i = 0; i < nops; i++)
		ops[i]->reserved = true;
	return 0;
}

/*
 * Queue the built operations in order; a cancelled stream stops it. The
 * entries of an operation of width w get its w sequence numbers.
 */
static int cufab_batch_queue(struct cufab_stream *stream,
			     struct cufab_stream_submit *ents,
			     struct cufab_op **ops, u32 nops)
{
	u64 seq, aux;
	u32 i, k, e = 0, w;
	int ret;

	for (i = 0; i < nops; i++) {
		/* the operation may be done and freed once queued */
		w = ops[i]->width ?: 1;
		ret = cufab_stream_submit_reserved(stream, ops[i], &seq, &aux);
		if (ret) {
			cufab_batch_free_ops(ops, i + 1, nops);
			return ret;
		}
		for (k = 0; k < w; k++, e++) {
			ents[e].out_seq = seq - (w - 1) + k;
			ents[e].out_event_seq = aux;
		}
	}
	return 0;
}

static int cufab_batch_run(struct cufab_stream *stream,
			   struct cufab_stream_submit *ents, u32 count)
{
	struct cufab_op **ops;
	u32 nops;
	int ret;

	ops = kvmalloc_array(count, sizeof(*ops), GFP_KERNEL_ACCOUNT);
	if (!ops)
		return -ENOMEM;
	ret = cufab_batch_build(stream, ents, ops, count, &nops);
	if (ret)
		goto out;
	ret = cufab_batch_reserve(stream, ops, nops, count);
	if (ret) {
		cufab_batch_free_ops(ops, 0, nops);
		goto out;
	}
	ret = cufab_batch_queue(stream, ents, ops, nops);
out:
	kvfree(ops);
	return ret;
}

int cufab_ioctl_stream_batch(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_batch *cmd = ucmd->cmd;
	void __user *uents = u64_to_user_ptr(cmd->ops_ptr);
	struct cufab_stream_submit *ents;
	struct cufab_stream *stream;
	size_t bytes;
	int ret;

	if (cmd->flags || !cmd->count || cmd->count > CUFAB_BATCH_MAX) {
		cufab_pr_info(ucmd->client, "cuGraphLaunch: count %u, flags 0x%x: count must be 1 ..%u and flags 0\n",
			      cmd->count, cmd->flags, CUFAB_BATCH_MAX);
		return -EINVAL;
	}
	bytes = array_size(cmd->count, sizeof(*ents));
	ents = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!ents)
		return -ENOMEM;
	if (copy_from_user(ents, uents, bytes)) {
		ret = -EFAULT;
		goto out;
	}
	stream = cufab_stream_lookup(ucmd->client, cmd->stream_id);
	if (IS_ERR(stream)) {
		ret = PTR_ERR(stream);
		goto out;
	}
	ret = cufab_batch_run(stream, ents, cmd->count);
	cufab_stream_put(stream);
	if (ret)
		goto out;
	cmd->out_seq = ents[cmd->count - 1].out_seq;
	/* queued whatever comes: a fault here is the caller's to read */
	if (copy_to_user(uents, ents, bytes))
		ret = -EFAULT;
	else
		ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
out:
	kvfree(ents);
	return ret;
}
