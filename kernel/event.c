// SPDX-License-Identifier: GPL-2.0
/*
 * Events (CUFAB_IOCTL_EVENT_CREATE) and their stream operations, records
 * and waits (CUFAB_OP_EVENT_RECORD, CUFAB_OP_EVENT_WAIT), which the engine
 * runs (engine.c).
 *
 * An event is a completion slot and the fence of its last record. A record
 * gets the event's next record number when it is queued; when the engine
 * reaches it, the number (and the time) go to the event's slot, so the
 * library answers cuEventQuery and computes cuEventElapsedTime from the
 * mapped slots. Destroying a recorded event does not wait: the record
 * operation holds a reference until it has run.
 *
 * An INTERPROCESS event may be exported (cuIpcGetEventHandle): it enters a
 * node-wide table under a random secret, and a process that presents the
 * handle gets an event object of its own on the same struct cufab_event,
 * so records and waits of either process act on one record sequence and
 * one slot (in the exporter's space, which the event keeps). The export
 * ends with the exporter's object; imports made before stay usable.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/xarray.h>

#include "cufab.h"
#include "trace.h"

/* An event object: the exporter's (or only) handle, or an import. */
struct cufab_event_obj {
	struct cufab_object obj;
	struct cufab_event *event;
	bool imported;
};

static_assert(offsetof(struct cufab_event_obj, obj) == 0);

/* Exported events by export id; the lock also guards event->export_id. */
static DEFINE_XARRAY_ALLOC1(cufab_event_exports);
static DEFINE_MUTEX(cufab_event_export_lock);
static u32 cufab_event_next_export;

static void cufab_event_release(struct kref *ref)
{
	struct cufab_event *event = container_of(ref, struct cufab_event, ref);
	struct cufab_stream_space *space = event->space;

	cufab_slotted_free(space, event->slot, event->last, event);
	cufab_stream_space_put(space);
}

void cufab_event_put(struct cufab_event *event)
{
	kref_put(&event->ref, cufab_event_release);
}

/* The exporter's object goes: its handle names nothing from now on. */
static void cufab_event_unexport(struct cufab_event *event)
{
	mutex_lock(&cufab_event_export_lock);
	if (event->export_id) {
		xa_erase(&cufab_event_exports, event->export_id);
		event->export_id = 0;
	}
	mutex_unlock(&cufab_event_export_lock);
}

static void cufab_event_obj_destroy(struct cufab_object *obj)
{
	struct cufab_event_obj *eo = container_of(obj, struct cufab_event_obj,
						  obj);

	trace_cufab_event_destroy(obj->id, eo->event);
	if (!eo->imported)
		cufab_event_unexport(eo->event);
	cufab_event_put(eo->event);
}

const struct cufab_object_ops cufab_event_ops = {
	.name = "event",
	.slab = "cufab_event_obj",
	.size = sizeof(struct cufab_event_obj),
	.destroy = cufab_event_obj_destroy,
};

static struct cufab_event_obj *cufab_event_obj_get(struct cufab_client *client,
						   u32 id)
{
	struct cufab_object *obj;

	obj = cufab_object_get(client, id, CUFAB_OBJ_EVENT);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	return container_of(obj, struct cufab_event_obj, obj);
}

/**
 * cufab_event_lookup() - a reference to an event of the client
 * @client: owner
 * @id: object id
 *
 * Return: the event or ERR_PTR(-ENOENT).
 */
struct cufab_event *cufab_event_lookup(struct cufab_client *client, u32 id)
{
	struct cufab_event_obj *eo = cufab_event_obj_get(client, id);
	struct cufab_event *event;

	if (IS_ERR(eo))
		return ERR_CAST(eo);
	event = eo->event;
	kref_get(&event->ref);
	cufab_object_put(&eo->obj);
	return event;
}

static struct cufab_event *cufab_event_new(struct cufab_stream_space *space,
					   const struct cufab_event_create *cmd)
{
	struct cufab_event *event;
	int slot;

	event = cufab_slotted_alloc(space, sizeof(*event), &slot);
	if (IS_ERR(event))
		return event;
	kref_init(&event->ref);
	spin_lock_init(&event->lock);
	kref_get(&space->ref);
	event->space = space;
	event->flags = cmd->flags;
	event->ctx_id = cmd->ctx_id;
	event->slot = slot;
	cufab_live_objects_inc();
	return event;
}

/* A handle of @client for @event, taking over the caller's reference. */
static struct cufab_event_obj *cufab_event_obj_new(struct cufab_client *client,
						   struct cufab_event *event)
{
	struct cufab_event_obj *eo;

	eo = cufab_object_alloc(client, eo, CUFAB_OBJ_EVENT);
	if (IS_ERR(eo)) {
		cufab_event_put(event);
		return eo;
	}
	eo->event = event;
	return eo;
}

/* Answer the ioctl, then let the handle be found; or it goes. */
static int cufab_event_obj_publish(struct cufab_ucmd *ucmd,
				   struct cufab_event_obj *eo, size_t len)
{
	int ret = cufab_ucmd_respond(ucmd, len);

	if (ret) {
		cufab_object_abort_and_destroy(&eo->obj);
		return ret;
	}
	cufab_object_finalize(&eo->obj);
	return 0;
}

int cufab_ioctl_event_create(struct cufab_ucmd *ucmd)
{
	struct cufab_event_create *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_stream_space *space;
	struct cufab_event_obj *eo;
	struct cufab_event *event;
	struct cufab_object *ctx;

	if ((cmd->flags & ~CUFAB_EVENT_FLAGS) || cmd->__reserved) {
		cufab_pr_info(client, "cuEventCreate: flags 0x%x: unknown bits (known 0x%x)\n",
			      cmd->flags, CUFAB_EVENT_FLAGS);
		return -EINVAL;
	}
	/* another process's records could not be timed here */
	if ((cmd->flags & CUFAB_EVENT_INTERPROCESS) &&
	    !(cmd->flags & CUFAB_EVENT_DISABLE_TIMING)) {
		cufab_pr_info(client, "cuEventCreate: flags 0x%x: an interprocess event must disable timing\n",
			      cmd->flags);
		return -EINVAL;
	}
	space = cufab_stream_space(client);
	if (IS_ERR(space))
		return PTR_ERR(space);
	ctx = cufab_object_get(client, cmd->ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cufab_object_put(ctx);
	event = cufab_event_new(space, cmd);
	if (IS_ERR(event))
		return PTR_ERR(event);
	eo = cufab_event_obj_new(client, event);
	if (IS_ERR(eo))
		return PTR_ERR(eo);
	cmd->out_event_id = eo->obj.id;
	cmd->out_slot = event->slot;
	trace_cufab_event_create(eo->obj.id, event);
	return cufab_event_obj_publish(ucmd, eo, sizeof(*cmd));
}

/**
 * cufab_event_wait() - sleep until an event's record @seq has completed
 * @client: owner
 * @id: the event
 * @seq: record number, 0 for the last one; never recorded: at once
 * @poll: do not sleep: -EAGAIN if the record has not completed
 * @out_error: the error the record completed with
 *
 * Return: 0, -ENOENT, -EINVAL for a record not made yet, -EAGAIN,
 * -ERESTARTSYS.
 */
int cufab_event_wait(struct cufab_client *client, u32 id, u64 seq, bool poll,
		     int *out_error)
{
	struct cufab_event *event;
	u64 records;
	int ret;

	event = cufab_event_lookup(client, id);
	if (IS_ERR(event))
		return PTR_ERR(event);
	spin_lock(&event->lock);
	records = event->records;
	spin_unlock(&event->lock);
	seq = seq ?: records;
	if (seq > records) {
		cufab_pr_info(client, "cuEventSynchronize: event %u: record %llu: only %llu were made\n",
			      id, seq, records);
		ret = -EINVAL;
	} else {
		ret = cufab_slot_wait(event->space, event->slot, seq, poll,
				      out_error);
	}
	/* a never recorded event has completed, without error */
	if (!ret && !seq)
		*out_error = 0;
	cufab_event_put(event);
	return ret;
}

/* Export @event on first use; its handle into @out. */
static int cufab_event_export(struct cufab_event *event,
			      u8 out[CUFAB_EVENT_HANDLE_LEN])
{
	int ret = 0;

	mutex_lock(&cufab_event_export_lock);
	if (event->export_id)
		goto encode;
	if (cufab_should_fail(CUFAB_FAULT_STREAM)) {
		ret = -ENOMEM;
		goto out;
	}
	get_random_bytes(event->secret, sizeof(event->secret));
	ret = xa_alloc_cyclic(&cufab_event_exports, &event->export_id, event,
			      xa_limit_32b, &cufab_event_next_export,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		event->export_id = 0;
		goto out;
	}
	ret = 0;
encode:
	cufab_fabric_encode_as(CUFAB_FABRIC_EVENT_MAGIC, event->export_id,
			       event->secret, out);
out:
	mutex_unlock(&cufab_event_export_lock);
	return ret;
}

int cufab_ioctl_event_export(struct cufab_ucmd *ucmd)
{
	struct cufab_event_export *cmd = ucmd->cmd;
	struct cufab_event_obj *eo;
	int ret;

	if (cmd->flags || cmd->__reserved) {
		cufab_pr_info(ucmd->client, "cuIpcGetEventHandle: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	eo = cufab_event_obj_get(ucmd->client, cmd->event_id);
	if (IS_ERR(eo))
		return PTR_ERR(eo);
	if (!(eo->event->flags & CUFAB_EVENT_INTERPROCESS)) {
		cufab_pr_info(ucmd->client,
			      "cuIpcGetEventHandle: event %u was created without CU_EVENT_INTERPROCESS\n",
			      cmd->event_id);
		ret = -EINVAL;
	} else if (eo->imported) {
		/* its exporter's handle, while that export lasts */
		mutex_lock(&cufab_event_export_lock);
		ret = eo->event->export_id ? 0 : -ESRCH;
		if (!ret)
			cufab_fabric_encode_as(CUFAB_FABRIC_EVENT_MAGIC,
					       eo->event->export_id,
					       eo->event->secret,
					       cmd->out_handle);
		mutex_unlock(&cufab_event_export_lock);
	} else {
		ret = cufab_event_export(eo->event, cmd->out_handle);
	}
	if (!ret)
		trace_cufab_event_export(eo->obj.id, eo->event);
	cufab_object_put(&eo->obj);
	return ret ?: cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* A reference to the exported event @handle names, or an ERR_PTR. */
static struct cufab_event *cufab_event_find_export(const u8 *handle)
{
	struct cufab_event *event;
	const u8 *secret;
	u32 export_id;
	int ret;

	ret = cufab_fabric_decode_as(CUFAB_FABRIC_EVENT_MAGIC, handle,
				     &export_id, &secret);
	if (ret)
		return ERR_PTR(ret);
	/* the exporter's object holds a reference while the entry exists */
	xa_lock(&cufab_event_exports);
	event = xa_load(&cufab_event_exports, export_id);
	if (event && cufab_fabric_secret_ok(event->secret, secret))
		kref_get(&event->ref);
	else
		event = ERR_PTR(-ESRCH);
	xa_unlock(&cufab_event_exports);
	return event;
}

int cufab_ioctl_event_import(struct cufab_ucmd *ucmd)
{
	struct cufab_event_import *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_event_obj *eo;
	struct cufab_event *event;
	struct cufab_object *ctx;

	if (cmd->flags) {
		cufab_pr_info(client, "cuIpcOpenEventHandle: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	ctx = cufab_object_get(client, cmd->ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cufab_object_put(ctx);
	event = cufab_event_find_export(cmd->handle);
	if (IS_ERR(event)) {
		cufab_pr_info(client,
			      "cuIpcOpenEventHandle: the handle names no exported event (%ld): %s\n",
			      PTR_ERR(event), PTR_ERR(event) == -EINVAL ?
			      "not an event handle of this module" :
			      "never exported, its event destroyed, or a wrong secret");
		return PTR_ERR(event);
	}
	/* driver 580: INVALID_CONTEXT; the event's space is its creator's */
	if (event->space == READ_ONCE(client->streams)) {
		cufab_pr_info(client,
			      "cuIpcOpenEventHandle: the handle names an event of this process: open it in another one\n");
		cufab_event_put(event);
		return -ELOOP;
	}
	eo = cufab_event_obj_new(client, event);
	if (IS_ERR(eo))
		return PTR_ERR(eo);
	eo->imported = true;
	cmd->out_event_id = eo->obj.id;
	trace_cufab_event_import(eo->obj.id, event);
	return cufab_event_obj_publish(ucmd, eo, sizeof(*cmd));
}

/* ---- stream operations: record and wait ---- */

static int cufab_op_event_prepare(struct cufab_op *op,
				  const struct cufab_stream_submit *cmd)
{
	struct cufab_event *event;

	if (cmd->dst || cmd->src || cmd->length || cmd->value ||
	    cmd->elem_size || cmd->host_fn || cmd->host_data)
		return -EINVAL;
	event = cufab_event_lookup(op->stream->client, cmd->event_id);
	if (IS_ERR(event))
		return PTR_ERR(event);
	op->u.event.event = event;
	return 0;
}

static void cufab_op_event_cleanup(struct cufab_op *op)
{
	cufab_event_put(op->u.event.event);
}

/* Under the stream lock: this op is the event's newest record. */
static void cufab_op_record_queued(struct cufab_op *op)
{
	struct cufab_event *event = op->u.event.event;
	struct dma_fence *prev;

	spin_lock(&event->lock);
	op->u.event.record = ++event->records;
	op->aux = op->u.event.record;
	prev = event->last;
	event->last = dma_fence_get(&op->fence->base);
	spin_unlock(&event->lock);
	dma_fence_put(prev);
}

static int cufab_op_record_execute(struct cufab_op *op)
{
	struct cufab_event *event = op->u.event.event;

	cufab_slot_publish(event->space, event->slot, op->u.event.record,
			   event->flags & CUFAB_EVENT_DISABLE_TIMING ?
			   0 : ktime_get_ns(), op->status);
	return 0;
}

/*
 * A record that never ran (cancelled) still completes its number, or a
 * waiter for it would sleep forever; one that ran changes nothing here.
 */
static void cufab_op_record_cleanup(struct cufab_op *op)
{
	struct cufab_event *event = op->u.event.event;

	cufab_slot_publish(event->space, event->slot, op->u.event.record, 0,
			   -ECANCELED);
	cufab_event_put(event);
}

const struct cufab_op_type cufab_op_record = {
	.name = "event record",
	.run_inline = true,
	.prepare = cufab_op_event_prepare,
	.queued = cufab_op_record_queued,
	.execute = cufab_op_record_execute,
	.cleanup = cufab_op_record_cleanup,
};

/* EVENT_WAIT: the event's last record, if not done yet. */
static int cufab_op_wait_deps(struct cufab_op *op,
			      const struct cufab_stream_submit *cmd)
{
	struct cufab_event *event = op->u.event.event;
	struct dma_fence *f;

	spin_lock(&event->lock);
	f = event->last && !dma_fence_is_signaled(event->last) ?
	    dma_fence_get(event->last) : NULL;
	spin_unlock(&event->lock);
	return cufab_op_add_dep(op, f);
}

/* Waiting is all it does: its dependency holds it back until then. */
static int cufab_op_wait_execute(struct cufab_op *op)
{
	return 0;
}

const struct cufab_op_type cufab_op_wait = {
	.name = "event wait",
	.run_inline = true,
	.prepare = cufab_op_event_prepare,
	.deps = cufab_op_wait_deps,
	.execute = cufab_op_wait_execute,
	.cleanup = cufab_op_event_cleanup,
};
