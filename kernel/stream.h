/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streams, events and the per-GPU engine that runs stream operations.
 *
 * A stream is an ordered queue of operations (struct cufab_op). Only the
 * head of a queue is ever considered: once the fences it depends on have
 * signalled, the engine of the stream's GPU runs it, signals its fence and
 * publishes its sequence number in the stream's completion slot, which
 * the process maps read-only (CUFAB_SEQ_MMAP_OFFSET).
 *
 * What an operation does is in its struct cufab_op_type; a new kind of
 * operation is a new entry of cufab_op_types[] (engine.c).
 */
#ifndef _CUFAB_STREAM_H
#define _CUFAB_STREAM_H

#include <linux/dma-fence.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/cufab.h>

#include "object.h"

struct cufab_client;
struct cufab_ucmd;
struct cufab_op;
struct file;
struct mm_struct;
struct seq_file;
struct vm_area_struct;

/**
 * struct cufab_fence - completion of one operation
 * @base: the dma_fence; seqno is the operation's sequence number
 * @lock: its lock, here so that the fence may outlive its stream
 */
struct cufab_fence {
	struct dma_fence base;
	spinlock_t lock;
};

/**
 * struct cufab_stream_space - a client's streams, events and slots
 * @lock: @streams, @slot_ida
 * @streams: every stream of the client (struct cufab_stream.node)
 * @slots: CUFAB_SEQ_SLOTS completion slots (vmalloc_user), mapped by the
 *	process read-only
 * @slot_ida: slot allocator
 * @host_queue: host operations ready to run, oldest first; under the
 *	lock of @host_tokens
 * @host_tokens: host operations handed to the host thread, by token; its
 *	lock also guards @host_queue and @dead
 * @host_wq: the host thread sleeps here
 * @done_wq: STREAM_WAIT callers sleep here until a slot advances
 * @dead: the client is closing; nothing new runs
 */
struct cufab_stream_space {
	struct mutex lock;
	struct list_head streams;
	struct cufab_seq_slot *slots;
	struct ida slot_ida;
	struct list_head host_queue;
	struct xarray host_tokens;
	wait_queue_head_t host_wq;
	wait_queue_head_t done_wq;
	bool dead;
};

/**
 * struct cufab_stream - an ordered queue of operations on one GPU
 * @ref: the stream object, each queued operation, a queued @work
 * @lock: @ops, @last, @submitted, @error, @dead, @running
 * @ops: queued operations, head first; the head may be running
 * @node: entry in the space's @streams
 * @work: runs the head operation on the engine of @dev
 * @space: the client's stream space
 * @client: owner
 * @fence_ctx: dma_fence context of the stream's fences
 * @submitted: sequence number of the last submitted operation
 * @last: fence of the last submitted operation (NULL before the first)
 * @error: sticky error of the stream (0 or -errno)
 * @dead: cancelled (context or client gone); submits are -ESHUTDOWN
 * @running: name of the operation running, for stream show
 * @ctx_id: the context
 * @dev: kernel GPU index of the context
 * @flags: CUFAB_STREAM_*
 * @priority: CUFAB_STREAM_PRIO_GREATEST..0
 * @slot: index of the completion slot
 * @uid: node-wide unique id
 * @depth: operations queued
 * @wq: the engine of @dev
 * @gone_node: entry in a list of streams being cancelled
 */
struct cufab_stream {
	struct kref ref;
	spinlock_t lock;
	struct list_head ops;
	struct list_head node;
	struct delayed_work work;
	struct cufab_stream_space *space;
	struct cufab_client *client;
	u64 fence_ctx;
	u64 submitted;
	struct dma_fence *last;
	int error;
	bool dead;
	const char *running;
	u32 ctx_id;
	u32 dev;
	u32 flags;
	s32 priority;
	u32 slot;
	u64 uid;
	u32 depth;
	struct workqueue_struct *wq;
	struct list_head gone_node;
};

/**
 * struct cufab_event - the kernel half of a CUevent
 * @ref: the event object and each record operation
 * @lock: @last, @records
 * @space: the client's stream space (for the slot)
 * @last: fence of the last record (NULL before the first)
 * @records: number of the last record
 * @flags: CUFAB_EVENT_*
 * @ctx_id: the context
 * @slot: index of the completion slot
 */
struct cufab_event {
	struct kref ref;
	spinlock_t lock;
	struct cufab_stream_space *space;
	struct dma_fence *last;
	u64 records;
	u32 flags;
	u32 ctx_id;
	u32 slot;
};

/* Where an operation is on its way through the engine. */
enum cufab_op_state {
	CUFAB_OP_QUEUED,	/* behind the head, or a head not looked at */
	CUFAB_OP_WAITING,	/* head, a callback on an unsignalled dep */
	CUFAB_OP_RUNNING,	/* the engine runs it */
	CUFAB_OP_HOSTQ,		/* on the space's host queue */
	CUFAB_OP_HOSTRUN,	/* handed to the host thread */
};

/**
 * struct cufab_op_type - what one kind of operation does
 * @name: for messages and stream show
 * @skip_on_error: does not run once the stream has an error; completes
 *	with it instead
 * @prepare: check and take what the operation needs at submit time
 *	(called before the operation is queued); may be NULL
 * @queued: called under the stream's lock once the operation has its
 *	sequence number and fence, before it can run; may be NULL
 * @execute: run it on the engine. Return 0 when done, -EINPROGRESS when
 *	someone else completes it later (cufab_op_complete()), or -errno
 * @cleanup: release what @prepare took; called once, also for an
 *	operation cancelled before it ran; may be NULL
 */
struct cufab_op_type {
	const char *name;
	bool skip_on_error;
	int (*prepare)(struct cufab_op *op, const struct cufab_stream_submit *cmd);
	void (*queued)(struct cufab_op *op);
	int (*execute)(struct cufab_op *op);
	void (*cleanup)(struct cufab_op *op);
};

/**
 * struct cufab_op - one queued operation
 * @node: entry in the stream's @ops
 * @type: what it does
 * @stream: the stream (a reference)
 * @fence: signalled when it completes (the op holds a reference)
 * @seq: its sequence number
 * @deps: fences to wait for before it runs (references)
 * @nr_deps: entries of @deps
 * @next_dep: first entry not known to be signalled
 * @dep_cb: callback on @deps[@next_dep] while WAITING
 * @dep_fired: @dep_cb has run
 * @delayed: the race knob has had its say
 * @state: enum cufab_op_state
 * @status: the stream's error when the op was reached (HOST ops)
 * @aux: set by @type->queued for the submitter (a record's number)
 * @host_node: entry in the host queue (HOSTQ)
 * @token: the host token (HOSTRUN)
 * @u: per-type arguments
 */
struct cufab_op {
	struct list_head node;
	const struct cufab_op_type *type;
	struct cufab_stream *stream;
	struct cufab_fence *fence;
	u64 seq;
	struct dma_fence **deps;
	unsigned int nr_deps;
	unsigned int next_dep;
	struct dma_fence_cb dep_cb;
	bool dep_fired;
	bool delayed;
	enum cufab_op_state state;
	int status;
	u64 aux;
	struct list_head host_node;
	u32 token;
	union {
		struct {
			struct mm_struct *mm;
			u64 dst, src, length;
			u32 src_dev, dst_dev;
			u32 value, elem_size;
		} mem;
		struct {
			u64 fn, data;
		} host;
		struct {
			struct cufab_event *event;
			u64 record;
		} event;
	} u;
};

extern const struct cufab_op_type *const cufab_op_types[CUFAB_OP_MAX];

/* engine.c */
struct workqueue_struct *cufab_engine_get(u32 dev);
void cufab_engine_exit(void);
struct cufab_fence *cufab_fence_create(struct cufab_stream *stream, u64 seq);
int cufab_stream_queue(struct cufab_stream *stream, struct cufab_op *op,
		       u64 *seq, u64 *aux);
void cufab_stream_kick(struct cufab_stream *stream);
void cufab_stream_cancel(struct cufab_stream *stream, int err);
void cufab_stream_init_work(struct cufab_stream *stream);
void cufab_op_complete(struct cufab_op *op, int err);
void cufab_op_free(struct cufab_op *op);
void cufab_slot_publish(struct cufab_stream_space *space, u32 slot, u64 seq,
			u64 time_ns, int err);
extern unsigned int cufab_race_delay_us;
extern unsigned int cufab_race_seed;

/* stream.c */
extern const struct cufab_object_ops cufab_stream_ops;
struct cufab_stream_space *cufab_stream_space(struct cufab_client *client);
void cufab_stream_put(struct cufab_stream *stream);
void cufab_streams_client_gone(struct cufab_client *client);
void cufab_streams_client_free(struct cufab_client *client);
void cufab_streams_ctx_destroy(struct cufab_client *client, u32 ctx_id);
int cufab_streams_mmap(struct file *filp, struct vm_area_struct *vma);
void cufab_streams_show(struct seq_file *m);
int cufab_slot_alloc(struct cufab_stream_space *space);
void cufab_slot_free(struct cufab_stream_space *space, u32 slot);
int cufab_ioctl_stream_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_stream_submit(struct cufab_ucmd *ucmd);
int cufab_ioctl_stream_wait(struct cufab_ucmd *ucmd);
int cufab_ioctl_hostfn(struct cufab_ucmd *ucmd);

/* event.c */
extern const struct cufab_object_ops cufab_event_ops;
struct cufab_event *cufab_event_lookup(struct cufab_client *client, u32 id);
void cufab_event_put(struct cufab_event *event);
int cufab_ioctl_event_create(struct cufab_ucmd *ucmd);
int cufab_event_wait(struct cufab_client *client, u32 id, u64 seq,
		     int *out_error);

#endif /* _CUFAB_STREAM_H */
