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

/* Build every entry, each holding its own reference on @stream. */
static int cufab_batch_build(struct cufab_stream *stream,
			     const struct cufab_stream_submit *ents,
			     struct cufab_op **ops, u32 count)
{
	const char *rule;
	struct cufab_op *op;
	u32 i;

	for (i = 0; i < count; i++) {
		rule = cufab_batch_entry_rule(&ents[i]);
		if (rule) {
			cufab_pr_info(stream->client,
				      "cuGraphLaunch: stream %llu: batch entry %u of %u (op %u): %s\n",
				      stream->uid, i, count, ents[i].op, rule);
			cufab_batch_free_ops(ops, 0, i);
			return -EINVAL;
		}
		kref_get(&stream->ref);
		op = cufab_op_new(stream, &ents[i]);
		if (IS_ERR(op)) {
			cufab_stream_put(stream);
			cufab_batch_free_ops(ops, 0, i);
			return PTR_ERR(op);
		}
		ops[i] = op;
	}
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
 * Wait for @count places (as cufab_stream_queue_reserve() for one); each
 * operation then gives its own back when it completes or is freed.
 */
static int cufab_batch_reserve(struct cufab_stream *stream,
			       struct cufab_op **ops, u32 count)
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
	for (i = 0; i < count; i++)
		ops[i]->reserved = true;
	return 0;
}

/* Queue the built operations in order; a cancelled stream stops it. */
static int cufab_batch_queue(struct cufab_stream *stream,
			     struct cufab_stream_submit *ents,
			     struct cufab_op **ops, u32 count)
{
	int ret;
	u32 i;

	for (i = 0; i < count; i++) {
		ret = cufab_stream_submit_reserved(stream, ops[i],
						   &ents[i].out_seq,
						   &ents[i].out_event_seq);
		if (ret) {
			cufab_batch_free_ops(ops, i + 1, count);
			return ret;
		}
	}
	return 0;
}

static int cufab_batch_run(struct cufab_stream *stream,
			   struct cufab_stream_submit *ents, u32 count)
{
	struct cufab_op **ops;
	int ret;

	ops = kvmalloc_array(count, sizeof(*ops), GFP_KERNEL_ACCOUNT);
	if (!ops)
		return -ENOMEM;
	ret = cufab_batch_build(stream, ents, ops, count);
	if (ret)
		goto out;
	ret = cufab_batch_reserve(stream, ops, count);
	if (ret) {
		cufab_batch_free_ops(ops, 0, count);
		goto out;
	}
	ret = cufab_batch_queue(stream, ents, ops, count);
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
