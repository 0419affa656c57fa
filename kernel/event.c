// SPDX-License-Identifier: GPL-2.0
/*
 * Events (CUFAB_IOCTL_EVENT_CREATE; records and waits are stream
 * operations, see engine.c).
 *
 * An event is a completion slot and the fence of its last record. A record
 * gets the event's next record number when it is queued; when the engine
 * reaches it, the number (and the time) go to the event's slot, so the
 * library answers cuEventQuery and computes cuEventElapsedTime from the
 * mapped slots. Destroying a recorded event does not wait: the record
 * operation holds a reference until it has run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/slab.h>

#include "cufab.h"

struct cufab_event_obj {
	struct cufab_object obj;
	struct cufab_event *event;
};

static_assert(offsetof(struct cufab_event_obj, obj) == 0);

static void cufab_event_release(struct kref *ref)
{
	struct cufab_event *event = container_of(ref, struct cufab_event, ref);

	cufab_slot_free(event->space, event->slot);
	dma_fence_put(event->last);
	kfree(event);
	cufab_live_objects_dec();
}

void cufab_event_put(struct cufab_event *event)
{
	kref_put(&event->ref, cufab_event_release);
}

static void cufab_event_obj_destroy(struct cufab_object *obj)
{
	cufab_event_put(container_of(obj, struct cufab_event_obj,
				     obj)->event);
}

const struct cufab_object_ops cufab_event_ops = {
	.name = "event",
	.destroy = cufab_event_obj_destroy,
};

/**
 * cufab_event_lookup() - a reference to an event of the client
 * @client: owner
 * @id: object id
 *
 * Return: the event or ERR_PTR(-ENOENT).
 */
struct cufab_event *cufab_event_lookup(struct cufab_client *client, u32 id)
{
	struct cufab_event *event;
	struct cufab_object *obj;

	obj = cufab_object_get(client, id, CUFAB_OBJ_EVENT);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	event = container_of(obj, struct cufab_event_obj, obj)->event;
	kref_get(&event->ref);
	cufab_object_put(obj);
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
	event->space = space;
	event->flags = cmd->flags;
	event->ctx_id = cmd->ctx_id;
	event->slot = slot;
	cufab_live_objects_inc();
	return event;
}

int cufab_ioctl_event_create(struct cufab_ucmd *ucmd)
{
	struct cufab_event_create *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_stream_space *space;
	struct cufab_event_obj *eo;
	struct cufab_event *event;
	struct cufab_object *ctx;
	int ret;

	if ((cmd->flags & ~CUFAB_EVENT_FLAGS) || cmd->__reserved)
		return -EINVAL;
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
	eo = cufab_object_alloc(client, eo, CUFAB_OBJ_EVENT);
	if (IS_ERR(eo)) {
		cufab_event_put(event);
		return PTR_ERR(eo);
	}
	eo->event = event;
	cmd->out_event_id = eo->obj.id;
	cmd->out_slot = event->slot;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		cufab_object_abort_and_destroy(&eo->obj);
		return ret;
	}
	cufab_object_finalize(&eo->obj);
	return 0;
}

/**
 * cufab_event_wait() - sleep until an event's record @seq has completed
 * @client: owner
 * @id: the event
 * @seq: record number, 0 for the last one; never recorded: at once
 * @out_error: the error the record completed with
 *
 * Return: 0, -ENOENT, -EINVAL for a record not made yet, -ERESTARTSYS.
 */
int cufab_event_wait(struct cufab_client *client, u32 id, u64 seq,
		     int *out_error)
{
	struct cufab_stream_space *space;
	struct cufab_event *event;
	struct cufab_seq_slot *s;
	u64 records;
	int ret;

	event = cufab_event_lookup(client, id);
	if (IS_ERR(event))
		return PTR_ERR(event);
	space = event->space;
	s = &space->slots[event->slot];
	spin_lock(&event->lock);
	records = event->records;
	spin_unlock(&event->lock);
	seq = seq ?: records;
	ret = seq > records ? -EINVAL :
	      wait_event_interruptible(space->done_wq,
				       /* error is read after seq */
				       smp_load_acquire(&s->seq) >= seq);
	if (!ret)
		*out_error = seq ? READ_ONCE(s->error) : 0;
	cufab_event_put(event);
	return ret;
}
