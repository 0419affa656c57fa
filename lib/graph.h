/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Graphs and stream capture of libcufab (lib/graph.c, lib/capture.c).
 *
 * A graph is library state only: its nodes keep, ready made, the stream
 * operations (struct cufab_stream_submit) they stand for. Instantiation
 * lays the nodes out in an order that respects every dependency (the
 * order they were added in: a node's dependencies exist before it) and a
 * launch hands the whole order to the kernel in one CUFAB_IOCTL_STREAM_BATCH
 * on the launch stream, which runs it in that order.
 *
 * One mutex, cufab_graph_lock, guards every graph, node and capture; a
 * launch takes only its executable graph's own lock.
 */
#ifndef CUFAB_LIB_GRAPH_H
#define CUFAB_LIB_GRAPH_H

#include "internal.h"

struct cufab_lstream;

struct CUgraphNode_st {
	struct CUgraph_st *graph;
	CUgraphNodeType type;
	size_t ndeps;
	struct CUgraphNode_st **deps;
	/* MEMCPY, MEMSET: one operation per row, stream_id 0 */
	size_t nops;
	struct cufab_stream_submit *ops;
	CUhostFn fn;			/* HOST */
	void *data;
	CUevent event;			/* EVENT_RECORD, WAIT_EVENT */
	struct CUgraph_st *child;	/* GRAPH: the node's own copy */
};

struct CUgraph_st {
	int user;		/* a handle of the program (else a node's copy) */
	size_t n, cap;
	struct CUgraphNode_st **nodes;
};

/* What an event recorded in a capture joins a stream to. */
struct cufab_capev {
	unsigned long long cap_id;	/* 0: not recorded in a capture */
	CUgraphNode *deps;
	size_t n;
};

extern pthread_mutex_t cufab_graph_lock;
/* Captures in progress in the process: hooks cost one load while 0. */
extern int cufab_captures_live;

static inline int cufab_capture_any(void)
{
	return __atomic_load_n(&cufab_captures_live, __ATOMIC_ACQUIRE) != 0;
}

/* graph.c, cufab_graph_lock held */
CUresult cufab_graph_new_locked(int user, struct CUgraph_st **out);
void cufab_graph_free_locked(struct CUgraph_st *g);
int cufab_graph_live_locked(const struct CUgraph_st *g);
CUresult cufab_graph_node_add_locked(struct CUgraph_st *g,
				     const CUgraphNode *deps, size_t ndeps,
				     const struct CUgraphNode_st *tmpl,
				     struct CUgraphNode_st **out);
CUresult cufab_graph_clone_locked(const struct CUgraph_st *g,
				  struct CUgraph_st **out);

/* capture.c: hooks of the stream and event calls */
CUresult cufab_capture_submit(struct cufab_lstream *s,
			      const struct cufab_stream_submit *arg,
			      int *handled);
CUresult cufab_capture_host(struct cufab_lstream *s, CUhostFn fn,
			    int callback, void *data, int *handled);
/* a call on @s that cannot be captured (@what it is) */
CUresult cufab_capture_refuse(struct cufab_lstream *s, const char *what);
CUresult cufab_capture_graph(struct cufab_lstream *s,
			     const struct CUgraph_st *g, int *handled);
CUresult cufab_capture_record(struct cufab_lstream *s,
			      struct cufab_capev *ev, CUevent h, int external,
			      int *handled);
CUresult cufab_capture_wait(struct cufab_lstream *s, struct cufab_capev *ev,
			    CUevent h, int external, int *handled);
void cufab_capture_event_clear(struct cufab_capev *ev);
void cufab_capture_stream_gone(struct cufab_lstream *s);
/* cuMemAlloc, cuMemFree, cuCtxSynchronize: "potentially unsafe" calls */
CUresult cufab_capture_unsafe(const char *call);

/* event.c */
CUresult cufab_event_info(CUevent h, __u32 *kid, __u32 *ctx_kid);
void cufab_event_recorded(CUevent h, struct cufab_lstream *s, __u64 seq,
			  __u64 event_seq);

/* stream.c: a host call that stays for every launch of a graph */
void *cufab_host_call_keep(CUhostFn fn, void *data);
void cufab_host_call_free(void *c);
CUresult cufab_host_thread_start(void);

#endif /* CUFAB_LIB_GRAPH_H */
