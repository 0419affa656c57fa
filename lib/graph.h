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

extern pthread_mutex_t cufab_graph_lock;

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

/* event.c */
CUresult cufab_event_info(CUevent h, __u32 *kid, __u32 *ctx_kid);
void cufab_event_recorded(CUevent h, struct cufab_lstream *s, __u64 seq,
			  __u64 event_seq);

/* stream.c: a host call that stays for every launch of a graph */
void *cufab_host_call_keep(CUhostFn fn, void *data);
void cufab_host_call_free(void *c);
CUresult cufab_host_thread_start(void);

#endif /* CUFAB_LIB_GRAPH_H */
