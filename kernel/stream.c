// SPDX-License-Identifier: GPL-2.0
/*
 * Streams (CUFAB_IOCTL_STREAM_CREATE, _SUBMIT, _WAIT, _HOSTFN) and the
 * client's completion slots.
 *
 * The slots are one vmalloc()ed array per client that the process maps
 * read-only, like amdkfd's event page: the library answers "is it done"
 * from it without a syscall and only sleeps here (STREAM_WAIT) when it is
 * not. A stream's object is a handle on a refcounted struct cufab_stream,
 * so cuStreamDestroy returns at once while the queued operations, which
 * hold references, still run.
 *
 * Legacy default stream rules (cuda.h, "stream synchronization
 * behavior"): an operation on a context's legacy stream waits for the last
 * operation of every blocking stream of the context, and an operation on
 * a blocking stream waits for the last operation of the legacy stream.
 * Both look at the other streams under space->lock, so of two concurrent
 * submissions one always sees the other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

#include "cufab.h"
#include "trace.h"

/* A stream object: the handle of a refcounted stream. */
struct cufab_stream_obj {
	struct cufab_object obj;
	struct cufab_stream *stream;
};

static_assert(offsetof(struct cufab_stream_obj, obj) == 0);

static atomic64_t cufab_stream_uids = ATOMIC64_INIT(0);

static DEFINE_MUTEX(cufab_space_create_lock);

/**
 * cufab_stream_space() - the client's stream space, made on first use
 * @client: the client
 *
 * Return: the space or ERR_PTR(-ENOMEM).
 */
struct cufab_stream_space *cufab_stream_space(struct cufab_client *client)
{
	struct cufab_stream_space *space = READ_ONCE(client->streams);

	if (space)
		return space;
	mutex_lock(&cufab_space_create_lock);
	space = client->streams;
	if (space)
		goto out;
	space = kzalloc(sizeof(*space), GFP_KERNEL_ACCOUNT);
	if (!space)
		goto err;
	/*
	 * 128 KiB for every client that uses a stream: charged to the
	 * process's memory cgroup (vmalloc_user() charges nobody), mapped
	 * page by page by cufab_streams_mmap().
	 */
	space->slots = __vmalloc(PAGE_ALIGN(CUFAB_SEQ_MMAP_SIZE),
				 GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!space->slots) {
		kfree(space);
		goto err;
	}
	kref_init(&space->ref);
	mutex_init(&space->lock);
	INIT_LIST_HEAD(&space->streams);
	ida_init(&space->slot_ida);
	INIT_LIST_HEAD(&space->kept_streams);
	INIT_LIST_HEAD(&space->host_queue);
	xa_init_flags(&space->host_tokens, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	init_waitqueue_head(&space->host_wq);
	init_waitqueue_head(&space->done_wq);
	spin_lock_init(&space->slot_lock);
	init_waitqueue_head(&space->depth_wq);
	/* pairs with READ_ONCE() (address dependency) of lock-free users */
	smp_store_release(&client->streams, space);
out:
	mutex_unlock(&cufab_space_create_lock);
	return space;
err:
	mutex_unlock(&cufab_space_create_lock);
	return ERR_PTR(-ENOMEM);
}

static void cufab_slot_reset(struct cufab_stream_space *space, u32 slot)
{
	struct cufab_seq_slot *s = &space->slots[slot];

	WRITE_ONCE(s->seq, 0);
	WRITE_ONCE(s->time_ns, 0);
	WRITE_ONCE(s->error, 0);
}

/* A free slot, reset; -ENOSPC when all CUFAB_SEQ_SLOTS are in use. */
int cufab_slot_alloc(struct cufab_stream_space *space)
{
	int slot;

	slot = ida_alloc_max(&space->slot_ida, CUFAB_SEQ_SLOTS - 1,
			     GFP_KERNEL_ACCOUNT);
	if (slot < 0)
		return slot == -ENOMEM ? -ENOMEM : -ENOSPC;
	cufab_slot_reset(space, slot);
	return slot;
}

void cufab_slot_free(struct cufab_stream_space *space, u32 slot)
{
	ida_free(&space->slot_ida, slot);
}

/**
 * cufab_slotted_alloc() - memory for a stream or an event, and its slot
 * @space: the client's stream space
 * @size: bytes of the object, zeroed
 * @slot: out, its completion slot
 *
 * Return: the object, or ERR_PTR(-ENOMEM or -ENOSPC) with nothing held.
 */
static void *__cufab_slotted_alloc(struct cufab_stream_space *space,
				   size_t size, int *slot)
{
	void *obj;

	obj = kzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	*slot = cufab_slot_alloc(space);
	if (*slot < 0) {
		kfree(obj);
		return ERR_PTR(*slot);
	}
	return obj;
}

void *cufab_slotted_alloc(struct cufab_stream_space *space, size_t size,
			  int *slot)
{
	if (cufab_should_fail(CUFAB_FAULT_STREAM))
		return ERR_PTR(-ENOMEM);
	return __cufab_slotted_alloc(space, size, slot);
}

/**
 * cufab_slotted_free() - undo cufab_slotted_alloc() for a released object
 * @space: the slot's space
 * @slot: the object's completion slot
 * @last: the fence of its last operation or record, or NULL
 * @obj: the stream or event
 */
void cufab_slotted_free(struct cufab_stream_space *space, u32 slot,
			struct dma_fence *last, void *obj)
{
	cufab_slot_free(space, slot);
	dma_fence_put(last);
	kfree(obj);
	cufab_live_objects_dec();
}

/*
 * Kept streams: a freed stream keeps its memory and its completion slot on
 * its space's kept_streams, up to CUFAB_STREAMS_KEPT of them, and the
 * space's next create takes it back (cufab_stream_unkeep()): a
 * create/destroy pair then costs no allocation and no slot id. The space's
 * release frees what is left.
 */
#define CUFAB_STREAMS_KEPT	4

/*
 * Keep @stream, released (@listed: taken off space->streams here, in the
 * same hold of the lock) or never listed; true when kept.
 */
static bool cufab_stream_keep(struct cufab_stream *stream, bool listed)
{
	struct cufab_stream_space *space = stream->space;
	bool keep;

	dma_fence_put(stream->last);
	stream->last = NULL;
	mutex_lock(&space->lock);
	if (listed)
		list_del(&stream->node);
	keep = space->nr_kept < CUFAB_STREAMS_KEPT;
	if (keep) {
		list_add(&stream->node, &space->kept_streams);
		space->nr_kept++;
	}
	mutex_unlock(&space->lock);
	if (keep)
		cufab_live_objects_dec();
	return keep;
}

/* A kept stream, zeroed, with its slot reset; NULL when none is kept. */
static struct cufab_stream *cufab_stream_unkeep(struct cufab_stream_space *space,
						int *slot)
{
	struct cufab_stream *stream;

	mutex_lock(&space->lock);
	stream = list_first_entry_or_null(&space->kept_streams,
					  struct cufab_stream, node);
	if (stream) {
		list_del(&stream->node);
		space->nr_kept--;
	}
	mutex_unlock(&space->lock);
	if (!stream)
		return NULL;
	*slot = stream->slot;
	memset(stream, 0, sizeof(*stream));
	cufab_slot_reset(space, *slot);
	return stream;
}

/*
 * The end of a stream, released (@listed) or never listed: its last use of
 * the space, which the client's teardown waits for
 * (cufab_streams_client_free()).
 */
static void cufab_stream_free(struct cufab_stream *stream, bool listed)
{
	struct cufab_stream_space *space = stream->space;

	if (!cufab_stream_keep(stream, listed))
		cufab_slotted_free(space, stream->slot, NULL, stream);
	/* wakes no one but a teardown, which may free the space at once */
	if (atomic_dec_and_test(&space->nr_streams))
		wake_up_var(&space->nr_streams);
}

/* The engine dropped the last reference (cufab_stream_put()). */
static void cufab_stream_release(struct cufab_stream *stream)
{
	trace_cufab_stream_destroy(stream);
	/* destroyed and drained: memory attached to it reverts, and so on */
	cufab_stream_gone(stream);
	cufab_stream_free(stream, true);
}

static const struct cufab_stream_ops cufab_stream_end_ops = {
	.release = cufab_stream_release,
};

static void cufab_stream_obj_destroy(struct cufab_object *obj)
{
	struct cufab_stream_obj *so = container_of(obj, struct cufab_stream_obj,
						   obj);

	/* queued operations hold their own references and still run */
	cufab_stream_put(so->stream);
}

const struct cufab_object_ops cufab_stream_ops = {
	.name = "stream",
	.slab = "cufab_stream_obj",
	.size = sizeof(struct cufab_stream_obj),
	.destroy = cufab_stream_obj_destroy,
};

/* A reference to stream @id of @client, or ERR_PTR(-ENOENT). */
struct cufab_stream *cufab_stream_lookup(struct cufab_client *client, u32 id)
{
	struct cufab_stream *stream;
	struct cufab_object *obj;

	obj = cufab_object_get(client, id, CUFAB_OBJ_STREAM);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	stream = container_of(obj, struct cufab_stream_obj, obj)->stream;
	kref_get(&stream->ref);
	cufab_object_put(obj);
	return stream;
}

/* Is there already a legacy stream in context @ctx_id? space->lock held. */
static bool cufab_ctx_has_legacy(struct cufab_stream_space *space, u32 ctx_id)
{
	struct cufab_stream *s;

	list_for_each_entry(s, &space->streams, node)
		if (s->ctx_id == ctx_id && (s->flags & CUFAB_STREAM_LEGACY) &&
		    !s->dead)
			return true;
	return false;
}

/**
 * cufab_stream_new() - a stream on the engine of GPU @dev, not listed yet
 * @client: owner
 * @space: its stream space
 * @ctx_id: the context
 * @dev: the context's GPU
 * @flags: CUFAB_STREAM_*
 * @priority: as checked by the caller
 *
 * Return: the stream (one reference) or an ERR_PTR.
 */
struct cufab_stream *cufab_stream_new(struct cufab_client *client,
				      struct cufab_stream_space *space,
				      u32 ctx_id, u32 dev, u32 flags,
				      s32 priority)
{
	struct workqueue_struct *wq;
	struct cufab_stream *stream;
	int slot;

	wq = cufab_engine_get(dev, priority);
	if (IS_ERR(wq))
		return ERR_CAST(wq);
	/* before the kept list: the error path is swept either way */
	if (cufab_should_fail(CUFAB_FAULT_STREAM))
		return ERR_PTR(-ENOMEM);
	stream = cufab_stream_unkeep(space, &slot);
	if (!stream)
		stream = __cufab_slotted_alloc(space, sizeof(*stream), &slot);
	if (IS_ERR(stream))
		return stream;
	atomic_inc(&space->nr_streams);
	spin_lock_init(&stream->lock);
	INIT_LIST_HEAD(&stream->ops);
	INIT_LIST_HEAD(&stream->node);
	INIT_LIST_HEAD(&stream->gone_node);
	INIT_LIST_HEAD(&stream->fence_node);
	INIT_LIST_HEAD(&stream->managed_single);
	cufab_stream_init(stream, &cufab_stream_end_ops);
	stream->space = space;
	stream->client = client;
	stream->fence_ctx = dma_fence_context_alloc(1);
	stream->ctx_id = ctx_id;
	stream->dev = dev;
	stream->flags = flags;
	stream->priority = priority;
	stream->slot = slot;
	stream->uid = atomic64_inc_return(&cufab_stream_uids);
	stream->wq = wq;
	cufab_live_objects_inc();
	trace_cufab_stream_create(stream);
	return stream;
}

int cufab_ioctl_stream_create(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_create *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_stream_space *space;
	struct cufab_stream_obj *so;
	struct cufab_stream *stream;
	struct cufab_object *ctx;
	int ret;

	if (cmd->flags & ~CUFAB_STREAM_FLAGS) {
		cufab_pr_info(client, "cuStreamCreate: flags 0x%x: unknown bits (known 0x%x)\n",
			      cmd->flags, CUFAB_STREAM_FLAGS);
		return -EINVAL;
	}
	if (cmd->priority < CUFAB_STREAM_PRIO_GREATEST || cmd->priority > 0) {
		cufab_pr_info(client, "cuStreamCreate: priority %d: must be %d ..0\n",
			      cmd->priority, CUFAB_STREAM_PRIO_GREATEST);
		return -EINVAL;
	}
	space = cufab_stream_space(client);
	if (IS_ERR(space))
		return PTR_ERR(space);
	/* held until the stream is on the list: the context cannot go */
	ctx = cufab_object_get(client, cmd->ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	stream = cufab_stream_new(client, space, cmd->ctx_id,
				  container_of(ctx, struct cufab_ctx, obj)->dev,
				  cmd->flags, cmd->priority);
	if (IS_ERR(stream)) {
		ret = PTR_ERR(stream);
		goto out_ctx;
	}
	so = cufab_object_alloc(client, so, CUFAB_OBJ_STREAM);
	if (IS_ERR(so)) {
		ret = PTR_ERR(so);
		goto err_stream;
	}
	so->stream = stream;

	mutex_lock(&space->lock);
	if ((cmd->flags & CUFAB_STREAM_LEGACY) &&
	    cufab_ctx_has_legacy(space, cmd->ctx_id)) {
		mutex_unlock(&space->lock);
		cufab_pr_info(client, "cuStreamCreate: context %u: already has its legacy stream\n",
			      cmd->ctx_id);
		ret = -EEXIST;
		goto err_obj;
	}
	list_add_tail(&stream->node, &space->streams);
	mutex_unlock(&space->lock);

	cmd->out_stream_id = so->obj.id;
	cmd->out_slot = stream->slot;
	cmd->out_uid = stream->uid;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		cufab_object_abort_and_destroy(&so->obj);
		goto out_ctx;
	}
	cufab_object_finalize(&so->obj);
	goto out_ctx;

err_obj:
	cufab_object_abort(&so->obj);
err_stream:
	/* not on the list: undo cufab_stream_new() by hand */
	cufab_stream_free(stream, false);
out_ctx:
	cufab_object_put(ctx);
	return ret;
}

/*
 * Does an operation on @stream wait for the last one of @s (legacy stream
 * rules)? The legacy stream waits for every blocking stream of its
 * context; the other blocking streams for it.
 */
static bool cufab_stream_orders_after(const struct cufab_stream *stream,
				      const struct cufab_stream *s)
{
	if (s == stream || s->ctx_id != stream->ctx_id ||
	    (s->flags & CUFAB_STREAM_NON_BLOCKING))
		return false;
	return (stream->flags & CUFAB_STREAM_LEGACY) ||
	       (s->flags & CUFAB_STREAM_LEGACY);
}

/* @s's last operation, with a reference, unless it has completed. */
static struct dma_fence *cufab_stream_last_busy(struct cufab_stream *s)
{
	struct dma_fence *f;

	spin_lock(&s->lock);
	f = s->last && !dma_fence_is_signaled(s->last) ?
	    dma_fence_get(s->last) : NULL;
	spin_unlock(&s->lock);
	return f;
}

/*
 * The implicit dependencies of an operation on @stream (legacy stream
 * rules), with references, into @op->deps after @op->nr_deps entries
 * already there. space->lock held.
 */
static int cufab_stream_legacy_deps(struct cufab_stream *stream,
				    struct cufab_op *op)
{
	struct cufab_stream_space *space = stream->space;
	struct dma_fence **deps, *f;
	struct cufab_stream *s;
	unsigned int n = 0;

	list_for_each_entry(s, &space->streams, node)
		n++;
	deps = krealloc_array(op->deps, op->nr_deps + n, sizeof(*deps),
			      GFP_KERNEL_ACCOUNT);
	if (!deps)
		return -ENOMEM;
	op->deps = deps;
	list_for_each_entry(s, &space->streams, node) {
		if (!cufab_stream_orders_after(stream, s))
			continue;
		f = cufab_stream_last_busy(s);
		if (f)
			op->deps[op->nr_deps++] = f;
	}
	return 0;
}

/* No operation on @stream would wait for another stream. space->lock held. */
static bool cufab_stream_legacy_idle(struct cufab_stream *stream)
{
	struct cufab_stream *s;
	struct dma_fence *f;

	list_for_each_entry(s, &stream->space->streams, node) {
		if (!cufab_stream_orders_after(stream, s))
			continue;
		f = cufab_stream_last_busy(s);
		if (f) {
			dma_fence_put(f);
			return false;
		}
	}
	return true;
}

/*
 * An operation that would change nothing, on an idle stream with nothing
 * to wait for, completes at submission: no operation, no sequence number,
 * no fence (struct cufab_op_type.settled). For a blocking stream the
 * legacy stream rules are checked and held under space->lock: a
 * submission they order against waits until the type has looked. Not
 * while the race knob delays every operation, settled or not.
 */
static bool cufab_stream_submit_settled(struct cufab_stream *stream,
					const struct cufab_stream_submit *cmd,
					u64 *seq)
{
	const struct cufab_op_type *type = cufab_op_types[cmd->op];
	bool implicit = !(stream->flags & CUFAB_STREAM_NON_BLOCKING);
	bool done;

	if (!type->settled || READ_ONCE(cufab_race_delay_us))
		return false;
	if (!implicit)
		return type->settled(stream, cmd, seq);
	mutex_lock(&stream->space->lock);
	done = cufab_stream_legacy_idle(stream) &&
	       type->settled(stream, cmd, seq);
	mutex_unlock(&stream->space->lock);
	return done;
}

/* ---- operation types of the stream itself ---- */

static int cufab_op_host_prepare(struct cufab_op *op,
				 const struct cufab_stream_submit *cmd)
{
	if (cmd->dst || cmd->src || cmd->length || cmd->value ||
	    cmd->elem_size || cmd->event_id || !cmd->host_fn)
		return -EINVAL;
	op->u.host.fn = cmd->host_fn;
	op->u.host.data = cmd->host_data;
	return 0;
}

/*
 * Hand the operation to the host thread; CUFAB_IOCTL_HOSTFN completes it.
 * On an idle stream the submitter does this itself (run_inline): the host
 * thread is then woken straight from the submitting call, without a trip
 * through the engine's worker first. A submitter may get here after
 * cufab_stream_cancel() took the host queue (the engine's worker never
 * does: the cancel waits for it), hence the stream's dead flag: it is set
 * before the cancel takes this lock.
 */
static int cufab_op_host_execute(struct cufab_op *op)
{
	struct cufab_stream_space *space = op->stream->space;

	xa_lock(&space->host_tokens);
	if (space->dead || READ_ONCE(op->stream->dead)) {
		xa_unlock(&space->host_tokens);
		return -ECANCELED;
	}
	op->state = CUFAB_OP_HOSTQ;
	list_add_tail(&op->host_node, &space->host_queue);
	xa_unlock(&space->host_tokens);
	wake_up(&space->host_wq);
	return -EINPROGRESS;
}

const struct cufab_op_type cufab_op_host = {
	.name = "host",
	.run_inline = true,
	.prepare = cufab_op_host_prepare,
	.execute = cufab_op_host_execute,
};

/* STREAM_WAIT: the other stream's last operation, if not done yet. */
static int cufab_op_stream_deps(struct cufab_op *op,
				const struct cufab_stream_submit *cmd)
{
	struct cufab_stream *other;
	struct dma_fence *f;

	other = cufab_stream_lookup(op->stream->client, cmd->event_id);
	if (IS_ERR(other))
		return PTR_ERR(other);
	if (other == op->stream) {
		cufab_pr_info(other->client, "cuStreamWaitEvent: stream %llu: a stream cannot wait for itself\n",
			      other->uid);
		cufab_stream_put(other);
		return -EINVAL;
	}
	spin_lock(&other->lock);
	f = other->last && !dma_fence_is_signaled(other->last) ?
	    dma_fence_get(other->last) : NULL;
	spin_unlock(&other->lock);
	cufab_stream_put(other);
	return cufab_op_add_dep(op, f);
}

static int cufab_op_stream_wait_prepare(struct cufab_op *op,
					const struct cufab_stream_submit *cmd)
{
	if (cmd->dst || cmd->src || cmd->length || cmd->value ||
	    cmd->elem_size || cmd->host_fn || cmd->host_data)
		return -EINVAL;
	return 0;
}

/* Waiting is all it does: its dependency holds it back until then. */
static int cufab_op_stream_wait_execute(struct cufab_op *op)
{
	return 0;
}

const struct cufab_op_type cufab_op_stream_wait = {
	.name = "stream wait",
	.prepare = cufab_op_stream_wait_prepare,
	.deps = cufab_op_stream_deps,
	.execute = cufab_op_stream_wait_execute,
};

/**
 * cufab_op_alloc() - a new operation of @stream, with its fence
 * @stream: the stream; the operation takes over the caller's reference
 *	only once it is queued (cufab_stream_submit_op())
 *
 * Return: the operation, with no type yet, or ERR_PTR(-ENOMEM). Undo with
 * cufab_op_free() after clearing op->stream.
 */
struct cufab_op *cufab_op_alloc(struct cufab_stream *stream)
{
	struct cufab_op *op;

	if (cufab_should_fail(CUFAB_FAULT_STREAM))
		return ERR_PTR(-ENOMEM);
	op = kzalloc(sizeof(*op), GFP_KERNEL_ACCOUNT);
	if (!op)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&op->node);
	INIT_LIST_HEAD(&op->host_node);
	op->stream = stream;
	op->fence = kzalloc(sizeof(*op->fence), GFP_KERNEL_ACCOUNT);
	if (!op->fence) {
		kfree(op);
		return ERR_PTR(-ENOMEM);
	}
	spin_lock_init(&op->fence->lock);
	return op;
}

/**
 * cufab_op_new() - the operation @cmd describes, checked and prepared
 * @stream: the stream, whose reference the operation takes over once it
 *	is queued; on error the caller keeps it
 * @cmd: a STREAM_SUBMIT command whose @op is known
 *
 * Return: the operation, or ERR_PTR(-errno).
 */
struct cufab_op *cufab_op_new(struct cufab_stream *stream,
			      const struct cufab_stream_submit *cmd)
{
	const struct cufab_op_type *type = cufab_op_types[cmd->op];
	struct cufab_op *op;
	int ret;

	op = cufab_op_alloc(stream);
	if (IS_ERR(op))
		return op;
	ret = type->prepare(op, cmd);
	if (ret)
		goto err;
	op->type = type;
	ret = type->deps ? type->deps(op, cmd) : 0;
	if (ret)
		goto err;
	return op;
err:
	op->stream = NULL;	/* the caller's reference */
	cufab_op_free(op);
	return ERR_PTR(ret);
}

/**
 * cufab_stream_submit_op() - queue a prepared operation with the legacy
 *	stream rules and run it here when it may (cufab_stream_queue_claim())
 * @stream: the stream, whose reference @op owns from now on
 * @op: typed and prepared
 * @seq: set to its sequence number
 * @aux: set to what its type's @queued left
 *
 * Return: 0, or -errno with @op freed.
 */
int cufab_stream_submit_op(struct cufab_stream *stream, struct cufab_op *op,
			   u64 *seq, u64 *aux)
{
	int ret;

	/* a full queue holds the caller, as a GPU's full push buffer does */
	ret = cufab_stream_queue_reserve(stream->space);
	if (ret) {
		cufab_op_free(op);
		return ret;
	}
	op->reserved = true;
	return cufab_stream_submit_reserved(stream, op, seq, aux);
}

/**
 * cufab_stream_submit_reserved() - cufab_stream_submit_op() for an
 *	operation that already holds its place in the queue bound
 *	(op->reserved set)
 * @stream: the stream, whose reference @op owns from now on
 * @op: typed and prepared
 * @seq: set to its sequence number
 * @aux: set to what its type's @queued left
 *
 * Return: 0, or -errno with @op freed.
 */
int cufab_stream_submit_reserved(struct cufab_stream *stream,
				 struct cufab_op *op, u64 *seq, u64 *aux)
{
	struct cufab_stream_space *space = stream->space;
	bool implicit, claimed;
	int ret;

	implicit = !(stream->flags & CUFAB_STREAM_NON_BLOCKING);
	if (implicit) {
		mutex_lock(&space->lock);
		ret = cufab_stream_legacy_deps(stream, op);
	} else {
		ret = 0;
	}
	if (!ret)
		ret = cufab_stream_queue_claim(stream, op, seq, aux, &claimed);
	if (implicit)
		mutex_unlock(&space->lock);
	if (ret) {
		cufab_op_free(op);
		return ret;
	}
	/* after space->lock: completing may drop the last stream reference */
	if (claimed)
		cufab_op_run(op);
	return 0;
}

/*
 * STREAM_SUBMIT's answer: its out_ fields, the rest is the caller's request
 * unchanged. Copying back only them spares every submission the copy of
 * the whole command, which costs most where copies cost most (TCG).
 */
static int cufab_stream_submit_respond(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_submit *cmd = ucmd->cmd;
	size_t from = offsetof(struct cufab_stream_submit, out_seq);
	size_t to = min_t(size_t, ucmd->user_size, sizeof(*cmd));

	if (to <= from)
		return 0;
	if (copy_to_user(ucmd->ubuffer + from, &cmd->out_seq, to - from))
		return -EFAULT;
	return 0;
}

int cufab_ioctl_stream_submit(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_submit *cmd = ucmd->cmd;
	struct cufab_stream *stream;
	struct cufab_op *op;
	int ret;

	if (cmd->flags || cmd->__reserved || !cmd->op ||
	    cmd->op >= CUFAB_OP_MAX) {
		cufab_pr_info(ucmd->client, "CUFAB_IOCTL_STREAM_SUBMIT: op %u, flags 0x%x: op must be 1 ..%u and flags 0\n",
			      cmd->op, cmd->flags, CUFAB_OP_MAX - 1);
		return -EINVAL;
	}
	stream = cufab_stream_lookup(ucmd->client, cmd->stream_id);
	if (IS_ERR(stream))
		return PTR_ERR(stream);
	if (cufab_stream_submit_settled(stream, cmd, &cmd->out_seq)) {
		cufab_stream_put(stream);
		cmd->out_event_seq = 0;
		return cufab_stream_submit_respond(ucmd);
	}
	op = cufab_op_new(stream, cmd);
	if (IS_ERR(op)) {
		cufab_stream_put(stream);
		return PTR_ERR(op);
	}
	/* from here the op owns the stream reference */
	ret = cufab_stream_submit_op(stream, op, &cmd->out_seq,
				     &cmd->out_event_seq);
	return ret ?: cufab_stream_submit_respond(ucmd);
}

/*
 * Sleep until slot @slot reaches @seq (with @poll: -EAGAIN if it has not);
 * its error then.
 */
int cufab_slot_wait(struct cufab_stream_space *space, u32 slot, u64 seq,
		    bool poll, int *out_error)
{
	struct cufab_seq_slot *s = &space->slots[slot];
	int ret;

	if (poll)
		/* error is read after seq */
		ret = smp_load_acquire(&s->seq) >= seq ? 0 : -EAGAIN;
	else
		ret = wait_event_interruptible(space->done_wq,
					       /* error is read after seq */
					       smp_load_acquire(&s->seq) >= seq);
	if (ret)
		return ret;
	*out_error = READ_ONCE(s->error);
	return 0;
}

static int cufab_stream_wait(struct cufab_client *client, u32 id, u64 seq,
			     bool poll, int *out_error)
{
	struct cufab_stream *stream;
	u64 submitted;
	int ret;

	stream = cufab_stream_lookup(client, id);
	if (IS_ERR(stream))
		return PTR_ERR(stream);
	spin_lock(&stream->lock);
	submitted = stream->submitted;
	spin_unlock(&stream->lock);
	if (seq > submitted) {
		cufab_pr_info(client, "cuStreamSynchronize: stream %llu: operation %llu: only %llu were submitted\n",
			      stream->uid, seq, submitted);
		ret = -EINVAL;
	} else {
		ret = cufab_slot_wait(stream->space, stream->slot,
				      seq ?: submitted, poll, out_error);
	}
	cufab_stream_put(stream);
	return ret;
}

/* The streams of context @ctx_id, referenced, on their gone_node. */
static void cufab_ctx_streams(struct cufab_stream_space *space, u32 ctx_id,
			      struct list_head *out)
{
	struct cufab_stream *s;

	mutex_lock(&space->lock);
	list_for_each_entry(s, &space->streams, node) {
		if (s->ctx_id != ctx_id || !kref_get_unless_zero(&s->ref))
			continue;
		list_add_tail(&s->gone_node, out);
	}
	mutex_unlock(&space->lock);
}

/*
 * Every stream of the context as far as submitted when the call began;
 * there is no sequence number to wait for, and no poll.
 */
static int cufab_ctx_wait(struct cufab_client *client, u32 ctx_id, u64 seq,
			  bool poll, int *out_error)
{
	struct cufab_stream_space *space = cufab_stream_space(client);
	struct cufab_stream *s, *tmp;
	struct cufab_object *ctx;
	LIST_HEAD(streams);
	int ret = 0, err;
	u64 submitted;

	if (seq || poll)
		return -EINVAL;
	if (IS_ERR(space))
		return PTR_ERR(space);
	ctx = cufab_object_get(client, ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cufab_object_put(ctx);
	*out_error = 0;
	cufab_ctx_streams(space, ctx_id, &streams);
	list_for_each_entry_safe(s, tmp, &streams, gone_node) {
		spin_lock(&s->lock);
		submitted = s->submitted;
		spin_unlock(&s->lock);
		if (!ret) {
			ret = cufab_slot_wait(space, s->slot, submitted, false,
					      &err);
			if (!ret && !*out_error)
				*out_error = err;
		}
		list_del_init(&s->gone_node);
		cufab_stream_put(s);
	}
	return ret;
}

/*
 * What STREAM_WAIT waits for, by CUFAB_WAIT_*, each defined beside its
 * concern as the engine's operation types are: an event's wait is
 * event.c's, which stands above this file and is named here, not called.
 */
static int (*const cufab_waits[CUFAB_WAIT_MAX])(struct cufab_client *client,
						u32 id, u64 seq, bool poll,
						int *out_error) = {
	[CUFAB_WAIT_STREAM] = cufab_stream_wait,
	[CUFAB_WAIT_EVENT] = cufab_event_wait,
	[CUFAB_WAIT_CTX] = cufab_ctx_wait,
};

int cufab_ioctl_stream_wait(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_wait *cmd = ucmd->cmd;
	bool poll = cmd->flags & CUFAB_WAIT_POLL;
	int ret, err = 0;

	if ((cmd->flags & ~CUFAB_WAIT_POLL) || cmd->__reserved ||
	    cmd->what >= CUFAB_WAIT_MAX) {
		cufab_pr_info(ucmd->client, "CUFAB_IOCTL_STREAM_WAIT: what %u, flags 0x%x: what must be below %u and flags at most POLL (0x%x)\n",
			      cmd->what, cmd->flags, CUFAB_WAIT_MAX,
			      CUFAB_WAIT_POLL);
		return -EINVAL;
	}
	ret = cufab_waits[array_index_nospec(cmd->what, CUFAB_WAIT_MAX)]
		(ucmd->client, cmd->id, cmd->seq, poll, &err);
	if (ret)
		return ret;
	cmd->out_error = err;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* The host thread says host operation @token has returned. */
static int cufab_hostfn_done(struct cufab_stream_space *space, u64 token)
{
	struct cufab_op *op = NULL;

	if (token && token <= U32_MAX) {
		xa_lock(&space->host_tokens);
		op = __xa_erase(&space->host_tokens, token);
		xa_unlock(&space->host_tokens);
	}
	if (!op)
		return -ENOENT;
	cufab_op_complete(op, 0);
	return 0;
}

/*
 * Hand the oldest ready host operation to the caller: it becomes HOSTRUN
 * under a token and @cmd describes it. 0, -EAGAIN for none, -ENOMEM.
 * The fields are read under the lock: once it is dropped, another thread
 * of the process may already report the operation done.
 */
static int cufab_hostfn_take(struct cufab_stream_space *space,
			     struct cufab_hostfn *cmd)
{
	struct cufab_op *op;
	u32 token;
	int ret;

	xa_lock(&space->host_tokens);
	op = list_first_entry_or_null(&space->host_queue, struct cufab_op,
				      host_node);
	if (!op) {
		ret = -EAGAIN;
		goto out;
	}
	ret = __xa_alloc(&space->host_tokens, &token, op, xa_limit_32b,
			 GFP_ATOMIC);
	if (ret)
		goto out;
	list_del_init(&op->host_node);
	op->token = token;
	op->state = CUFAB_OP_HOSTRUN;
	cmd->out_token = token;
	cmd->out_fn = op->u.host.fn;
	cmd->out_data = op->u.host.data;
	cmd->out_status = op->status;
out:
	xa_unlock(&space->host_tokens);
	return ret;
}

/*
 * The reply naming host operation @token could not be written: the host
 * thread never learns of it, so give it back to the head of the queue for
 * the next call, unless a cancel or a guessed DONE has taken it already.
 */
static void cufab_hostfn_untake(struct cufab_stream_space *space, u32 token)
{
	struct cufab_op *op;

	xa_lock(&space->host_tokens);
	op = __xa_erase(&space->host_tokens, token);
	if (op) {
		op->token = 0;
		op->state = CUFAB_OP_HOSTQ;
		list_add(&op->host_node, &space->host_queue);
	}
	xa_unlock(&space->host_tokens);
	if (op)
		wake_up(&space->host_wq);
}

int cufab_ioctl_hostfn(struct cufab_ucmd *ucmd)
{
	struct cufab_hostfn *cmd = ucmd->cmd;
	bool done = cmd->flags & CUFAB_HOSTFN_DONE;
	struct cufab_stream_space *space;
	int ret;

	if ((cmd->flags & ~CUFAB_HOSTFN_DONE) || cmd->__reserved ||
	    (!done && cmd->done_token))
		return -EINVAL;
	space = cufab_stream_space(ucmd->client);
	if (IS_ERR(space))
		return PTR_ERR(space);
	if (done) {
		ret = cufab_hostfn_done(space, cmd->done_token);
		if (ret)
			return ret;
	}
	cmd->out_token = 0;
	while ((ret = cufab_hostfn_take(space, cmd)) == -EAGAIN) {
		ret = wait_event_interruptible(space->host_wq,
					       !list_empty_careful(&space->host_queue));
		if (ret)
			break;
	}
	/*
	 * A restarted call must not report the same token done twice: after
	 * DONE, a signal returns "no operation" (out_token 0) instead.
	 */
	if (ret && !(done && ret == -ERESTARTSYS))
		return ret;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret && cmd->out_token)
		cufab_hostfn_untake(space, cmd->out_token);
	return ret;
}

/* Cancel every stream on @streams (gone_node) and drop the references. */
static void cufab_streams_cancel_list(struct list_head *streams)
{
	struct cufab_stream *s, *tmp;

	list_for_each_entry_safe(s, tmp, streams, gone_node) {
		cufab_stream_cancel(s, -ECANCELED);
		list_del_init(&s->gone_node);
		cufab_stream_put(s);
	}
}

/**
 * cufab_streams_ctx_destroy() - a context goes: cancel its streams
 * @client: owner
 * @ctx_id: the context
 *
 * The library has drained them first (cuCtxDestroy synchronizes); what is
 * left (a host function that never returns) is cancelled.
 */
void cufab_streams_ctx_destroy(struct cufab_client *client, u32 ctx_id)
{
	struct cufab_stream_space *space = READ_ONCE(client->streams);
	LIST_HEAD(streams);

	if (!space)
		return;
	cufab_ctx_streams(space, ctx_id, &streams);
	cufab_streams_cancel_list(&streams);
}

/*
 * The client closes: stop all its streams. After this no operation of the
 * client runs or will run, so its objects may go. A stream the engine is
 * releasing is not found here (no reference to take) and still uses the
 * client and the space until cufab_streams_client_free() has waited for it.
 */
static void cufab_streams_client_gone(struct cufab_client *client)
{
	struct cufab_stream_space *space = READ_ONCE(client->streams);
	struct cufab_stream *s;
	LIST_HEAD(streams);

	if (!space)
		return;
	xa_lock(&space->host_tokens);
	space->dead = true;
	xa_unlock(&space->host_tokens);
	mutex_lock(&space->lock);
	list_for_each_entry(s, &space->streams, node)
		if (kref_get_unless_zero(&s->ref))
			list_add_tail(&s->gone_node, &streams);
	mutex_unlock(&space->lock);
	cufab_streams_cancel_list(&streams);
}

static void cufab_stream_space_release(struct kref *ref)
{
	struct cufab_stream_space *space =
		container_of(ref, struct cufab_stream_space, ref);
	struct cufab_stream *s, *next;

	WARN_ON(!list_empty(&space->streams));
	WARN_ON(!xa_empty(&space->host_tokens));
	/* their slots go with the ida */
	list_for_each_entry_safe(s, next, &space->kept_streams, node)
		kfree(s);
	xa_destroy(&space->host_tokens);
	ida_destroy(&space->slot_ida);
	vfree(space->slots);
	kfree(space);
}

void cufab_stream_space_put(struct cufab_stream_space *space)
{
	kref_put(&space->ref, cufab_stream_space_release);
}

/*
 * Every stream and event object of the client is gone. Its events that
 * other processes imported keep the slots until they go too.
 *
 * The engine may still be releasing a stream: one whose last reference
 * its work dropped (completing the operation, then the work's own) after
 * the process saw the completion and destroyed the stream, but before the
 * stream work part looked. Wait for it, as it uses the space and the client.
 */
static void cufab_streams_client_free(struct cufab_client *client)
{
	struct cufab_stream_space *space = client->streams;

	if (!space)
		return;
	wait_var_event(&space->nr_streams, !atomic_read(&space->nr_streams));
	WRITE_ONCE(client->streams, NULL);
	/* a STREAM_GET dump or the debugfs file may still walk the space */
	cufab_clients_sync();
	cufab_stream_space_put(space);
}

/* First of all parts: no operation may run while objects go. */
const struct cufab_client_part cufab_stream_work_client_part = {
	.name = "stream work",
	.teardown = cufab_streams_client_gone,
};

/* After the objects part, which destroys the streams and events. */
const struct cufab_client_part cufab_stream_space_client_part = {
	.name = "stream space",
	.teardown = cufab_streams_client_free,
};

/**
 * cufab_streams_mmap() - map the completion slots read-only
 * @filp: the client's file
 * @vma: CUFAB_SEQ_MMAP_SIZE (page aligned) at CUFAB_SEQ_MMAP_OFFSET
 *
 * Context: mmap_lock held for write.
 */
int cufab_streams_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct cufab_client *client = filp->private_data;
	struct cufab_stream_space *space;
	unsigned long off;
	int ret;

	if (!cufab_client_is_owner(client) ||
	    vma->vm_end - vma->vm_start != PAGE_ALIGN(CUFAB_SEQ_MMAP_SIZE) ||
	    (vma->vm_flags & (VM_WRITE | VM_EXEC))) {
		cufab_pr_info(client,
			      "mmap of the completion slots refused: read-only, %lu bytes, by the owner\n",
			      PAGE_ALIGN(CUFAB_SEQ_MMAP_SIZE));
		return -EINVAL;
	}
	space = cufab_stream_space(client);
	if (IS_ERR(space))
		return PTR_ERR(space);
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	/* remap_vmalloc_range() wants VM_USERMAP: vmalloc_user()'s alone */
	for (off = 0; off < PAGE_ALIGN(CUFAB_SEQ_MMAP_SIZE); off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((void *)space->slots +
						     off));
		if (ret)
			return ret;
	}
	return 0;
}

static int cufab_client_streams_show(struct cufab_client *client, void *arg)
{
	struct cufab_stream_space *space = READ_ONCE(client->streams);
	struct seq_file *m = arg;
	struct cufab_stream *s;

	if (!space)
		return 0;
	mutex_lock(&space->lock);
	list_for_each_entry(s, &space->streams, node) {
		spin_lock(&s->lock);
		seq_printf(m, "%d %s stream %llu ctx %u gpu %u flags 0x%x prio %d submitted %llu completed %llu depth %u running %s error %d%s\n",
			   pid_nr(client->tgid), client->comm, s->uid,
			   s->ctx_id, s->dev, s->flags, s->priority,
			   s->submitted, READ_ONCE(space->slots[s->slot].seq),
			   s->depth, s->running ?: "-", s->error,
			   s->dead ? " dead" : "");
		spin_unlock(&s->lock);
	}
	mutex_unlock(&space->lock);
	return 0;
}

/* debugfs "streams": one line per stream of every client. */
void cufab_streams_show(struct seq_file *m)
{
	cufab_clients_for_each(0, cufab_client_streams_show, m);
}
