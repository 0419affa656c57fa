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
CUresult cufab_stream_pt_drain(void);

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

/* What an event recorded in a capture joins a stream to (capture.c). */
struct cufab_capev {
	unsigned long long cap_id;	/* 0: not recorded in a capture */
	CUgraphNode *deps;
	size_t n;
};

/**
 * struct cufab_capture_ops - stream capture, as the calls that submit see it
 * @submit: a copy or set submitted to @s
 * @host: a host function on @s (@callback: cuStreamAddCallback's)
 * @graph: graph @g launched on @s
 * @record: event @h (its capture state @ev) recorded on @s
 * @wait: @s waits for event @h
 * @event_clear: event @ev forgets the capture it was recorded in
 * @stream_gone: @s is destroyed
 * @refuse: a call on @s that cannot be captured (@what it is)
 * @unsafe: cuMemAlloc, cuMemFree, cuCtxSynchronize: calls "potentially
 *	unsafe" while a capture is in progress
 *
 * Where one takes @handled it sets it when the capture took the work (as
 * a node of its graph) or refused it: the caller then submits nothing
 * and returns the result.
 *
 * Stream capture (capture.c) registers them from a constructor, as the
 * stream-ordered allocator registers its sync observer. Streams, events,
 * graphs, pools, linear memory and the stream memory operations ask
 * through the cufab_capture_*() below (behind cufab_capture_any(), one
 * load while no capture is in progress) and know nothing of capture.c,
 * which builds on them.
 */
struct cufab_capture_ops {
	CUresult (*submit)(struct cufab_lstream *s,
			   const struct cufab_stream_submit *arg, int *handled);
	CUresult (*host)(struct cufab_lstream *s, CUhostFn fn, int callback,
			 void *data, int *handled);
	CUresult (*graph)(struct cufab_lstream *s, const struct CUgraph_st *g,
			  int *handled);
	CUresult (*record)(struct cufab_lstream *s, struct cufab_capev *ev,
			   CUevent h, int external, int *handled);
	CUresult (*wait)(struct cufab_lstream *s, struct cufab_capev *ev,
			 CUevent h, int external, int *handled);
	void (*event_clear)(struct cufab_capev *ev);
	void (*stream_gone)(struct cufab_lstream *s);
	CUresult (*refuse)(struct cufab_lstream *s, const char *what);
	CUresult (*unsafe)(const char *call);
};

/* stream.c: set once by a constructor, before any call can capture */
extern const struct cufab_capture_ops *cufab_capture_hooks;
/* Captures in progress in the process (capture.c counts them). */
extern int cufab_captures_live;

void cufab_capture_register(const struct cufab_capture_ops *ops);

static inline int cufab_capture_any(void)
{
	return __atomic_load_n(&cufab_captures_live, __ATOMIC_ACQUIRE) != 0;
}

/* The hooks (NULL only in a library built without capture.c). */
static inline const struct cufab_capture_ops *cufab_capture_ops(void)
{
	return __atomic_load_n(&cufab_capture_hooks, __ATOMIC_ACQUIRE);
}

static inline CUresult cufab_capture_submit(struct cufab_lstream *s,
					    const struct cufab_stream_submit *arg,
					    int *handled)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->submit(s, arg, handled) : CUDA_SUCCESS;
}

static inline CUresult cufab_capture_host(struct cufab_lstream *s,
					  CUhostFn fn, int callback,
					  void *data, int *handled)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->host(s, fn, callback, data, handled) : CUDA_SUCCESS;
}

static inline CUresult cufab_capture_graph(struct cufab_lstream *s,
					   const struct CUgraph_st *g,
					   int *handled)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->graph(s, g, handled) : CUDA_SUCCESS;
}

static inline CUresult cufab_capture_record(struct cufab_lstream *s,
					    struct cufab_capev *ev, CUevent h,
					    int external, int *handled)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->record(s, ev, h, external, handled) : CUDA_SUCCESS;
}

static inline CUresult cufab_capture_wait(struct cufab_lstream *s,
					  struct cufab_capev *ev, CUevent h,
					  int external, int *handled)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->wait(s, ev, h, external, handled) : CUDA_SUCCESS;
}

/* Before any capture no event holds capture state: nothing to clear. */
static inline void cufab_capture_event_clear(struct cufab_capev *ev)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	if (c)
		c->event_clear(ev);
}

static inline void cufab_capture_stream_gone(struct cufab_lstream *s)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	if (c)
		c->stream_gone(s);
}

static inline CUresult cufab_capture_refuse(struct cufab_lstream *s,
					    const char *what)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->refuse(s, what) : CUDA_SUCCESS;
}

static inline CUresult cufab_capture_unsafe(const char *call)
{
	const struct cufab_capture_ops *c = cufab_capture_ops();

	return c ? c->unsafe(call) : CUDA_SUCCESS;
}

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
