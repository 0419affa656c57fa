/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Streams and events of libcufab (lib/stream.c, lib/event.c).
 *
 * The kernel runs the work; the library keeps, per stream and event, the
 * sequence number of the last operation it submitted and reads the
 * completed one from the slots the kernel maps read-only, so checks on
 * finished work cost no syscall.
 */
#ifndef CUFAB_LIB_STREAM_H
#define CUFAB_LIB_STREAM_H

#include "internal.h"

/* Streams and events together cannot exceed the kernel's slots. */
#define CUFAB_LIB_MAX_STREAMS	CUFAB_SEQ_SLOTS
#define CUFAB_LIB_MAX_EVENTS	CUFAB_SEQ_SLOTS
/* kernel objects of a destroyed context freed per pass (*_forget_ctx) */
#define CUFAB_FORGET_BATCH	32

struct cufab_lstream {
	__u32 gen;		/* bumped whenever a handle stops being valid */
	__u32 live;
	__u32 kid;		/* kernel stream id */
	__u32 slot;
	__u32 ctx_kid;
	__u32 kdev;		/* kernel GPU index */
	CUcontext ctx;
	CUdevice dev;
	unsigned int flags;	/* CU_STREAM_* as created */
	int priority;
	unsigned long long uid;
	__u64 last;		/* last submitted sequence number (atomic) */
	__u32 next_free;
	int legacy;		/* a context's legacy stream */
	/* stream capture (capture.c, under cufab_graph_lock) */
	struct cufab_capture *cap;	/* NULL: not capturing */
	CUgraphNode *cap_deps;		/* what the next node depends on */
	CUgraphEdgeData *cap_edges;	/* parallel, all default edges */
	size_t cap_n, cap_room;
};

/* read with __atomic loads: the kernel writes them */
extern const struct cufab_seq_slot *cufab_slots;
extern pthread_mutex_t cufab_stream_lock;

/* stream.c */
CUresult cufab_slots_map(void);
CUresult cufab_stream_resolve(CUstream h, int per_thread,
			      struct cufab_lstream **out);
CUresult cufab_stream_submit(struct cufab_lstream *s,
			     struct cufab_stream_submit *arg);
CUresult cufab_stream_host_call(CUstream h, int per_thread,
				CUstreamCallback cb, void *data);

/**
 * struct cufab_sync_observer - told when the library sees work complete
 * @ctx_synced: a context synchronization completed: every stream's work
 *	is done
 * @stream_synced: cuStreamSynchronize, cuStreamQuery, cuEventSynchronize
 *	or cuEventQuery saw stream @s of generation @gen complete its work up
 *	to @seq
 * @stream_waited: cuStreamWaitEvent: @waiter's later work runs after
 *	@src's up to @seq
 *
 * The stream-ordered allocator (pool.c) registers one to reuse what was
 * freed before that point; streams, events and contexts report to it
 * without knowing who listens.
 */
struct cufab_sync_observer {
	void (*ctx_synced)(void);
	void (*stream_synced)(const struct cufab_lstream *s, __u32 gen,
			      __u64 seq);
	void (*stream_waited)(const struct cufab_lstream *waiter,
			      const struct cufab_lstream *src, __u32 gen,
			      __u64 seq);
};

void cufab_sync_observe(const struct cufab_sync_observer *obs);
void cufab_sync_ctx_done(void);
void cufab_sync_stream_done(const struct cufab_lstream *s, __u32 gen,
			    __u64 seq);
void cufab_sync_stream_waited(const struct cufab_lstream *waiter,
			      const struct cufab_lstream *src, __u32 gen,
			      __u64 seq);

/* errno of an operation that failed on the engine, as a CUresult. */
static inline CUresult cufab_async_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_ASYNC, err);
}

/* errno of a refused submission, as a CUresult. */
static inline CUresult cufab_submit_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_SUBMIT, err);
}

void cufab_atomic_max(__u64 *p, __u64 v);

/* Has slot @slot reached @seq?  Acquire: its error may be read after. */
static inline int cufab_slot_done(__u32 slot, __u64 seq)
{
	return __atomic_load_n(&cufab_slots[slot].seq, __ATOMIC_ACQUIRE) >= seq;
}

#endif /* CUFAB_LIB_STREAM_H */
