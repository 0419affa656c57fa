// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Stream capture: cuStreamBeginCapture (GLOBAL, THREAD_LOCAL, RELAXED),
 * cuThreadExchangeStreamCaptureMode, cuStreamIsCapturing,
 * cuStreamGetCaptureInfo in every form, cuStreamEndCapture, with their
 * _ptsz entry points.
 *
 * A capturing stream queues nothing: the copies, sets and host functions
 * submitted to it become nodes of the capture's graph, each depending on
 * the stream's dependency set (the nodes captured last), which it then
 * replaces. An event recorded on a capturing stream remembers that set;
 * a stream that waits for it joins the capture with it (a fork), and the
 * origin stream waiting for an event recorded on the joined stream takes
 * its nodes back (the join). cuStreamEndCapture refuses a capture whose
 * forks were not joined back (UNJOINED).
 *
 * What cannot be captured ends the capture's usefulness, as in the
 * driver: the call returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (a
 * synchronous call on a capturing stream, a stream callback, an operation
 * that is not a copy, set or host function), _IMPLICIT (work on the legacy
 * stream while a blocking stream of its context captures), _ISOLATION (a
 * wait on an event recorded outside the capture) or _MERGE, and the
 * capture is invalidated: later work on it returns _INVALIDATED and
 * cuStreamEndCapture returns _INVALIDATED with a NULL graph.
 *
 * The legacy stream cannot capture (UNSUPPORTED, as the driver answers);
 * a per-thread stream can.
 */
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "graph.h"
#include "stream.h"

struct cufab_capture {
	unsigned long long id;
	CUstreamCaptureMode mode;
	pthread_t thread;		/* that began it */
	int invalid;
	struct CUgraph_st *graph;
	struct cufab_lstream *origin;
	size_t nstreams, room;
	struct cufab_lstream **streams;	/* the origin and the joined ones */
};

static struct cufab_capture **caps;	/* cufab_graph_lock */
static size_t ncaps, caps_room;
static unsigned long long cap_ids;

/* The calling thread's interaction mode (cuThreadExchangeStreamCaptureMode). */
static __thread CUstreamCaptureMode tls_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static struct cufab_capture *capture_find_locked(unsigned long long id)
{
	size_t i;

	for (i = 0; id && i < ncaps; i++)
		if (caps[i]->id == id)
			return caps[i];
	return NULL;
}

static int deps_room(struct cufab_lstream *s, size_t n)
{
	CUgraphEdgeData *e;
	CUgraphNode *d;
	size_t room;

	if (n <= s->cap_room)
		return 0;
	room = n < 8 ? 8 : 2 * n;
	d = realloc(s->cap_deps, room * sizeof(*d));
	if (!d)
		return -1;
	s->cap_deps = d;
	e = realloc(s->cap_edges, room * sizeof(*e));
	if (!e)
		return -1;
	/* every edge of a capture is a default one */
	memset(e, 0, room * sizeof(*e));
	s->cap_edges = e;
	s->cap_room = room;
	return 0;
}

static CUresult deps_set(struct cufab_lstream *s, const CUgraphNode *deps,
			 size_t n)
{
	if (deps_room(s, n))
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (n)
		memmove(s->cap_deps, deps, n * sizeof(*deps));
	s->cap_n = n;
	return CUDA_SUCCESS;
}

/* The dependency set of @s grows by @deps (each once). */
static CUresult deps_add(struct cufab_lstream *s, const CUgraphNode *deps,
			 size_t n)
{
	size_t i, j;

	if (deps_room(s, s->cap_n + n))
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < n; i++) {
		for (j = 0; j < s->cap_n && s->cap_deps[j] != deps[i]; j++)
			;
		if (j == s->cap_n)
			s->cap_deps[s->cap_n++] = deps[i];
	}
	return CUDA_SUCCESS;
}

static CUresult stream_join_locked(struct cufab_capture *c,
				   struct cufab_lstream *s)
{
	if (c->nstreams == c->room) {
		size_t room = c->room ? 2 * c->room : 4;
		struct cufab_lstream **a = realloc(c->streams,
						   room * sizeof(*a));

		if (!a)
			return CUDA_ERROR_OUT_OF_MEMORY;
		c->streams = a;
		c->room = room;
	}
	c->streams[c->nstreams++] = s;
	s->cap_n = 0;
	__atomic_store_n(&s->cap, c, __ATOMIC_RELEASE);
	return CUDA_SUCCESS;
}

static void stream_leave_locked(struct cufab_lstream *s)
{
	__atomic_store_n(&s->cap, NULL, __ATOMIC_RELEASE);
	free(s->cap_deps);
	free(s->cap_edges);
	s->cap_deps = NULL;
	s->cap_edges = NULL;
	s->cap_n = 0;
	s->cap_room = 0;
}

/* End @c: its streams leave it; the graph is the caller's. */
static void capture_end_locked(struct cufab_capture *c)
{
	size_t i;

	for (i = 0; i < c->nstreams; i++)
		stream_leave_locked(c->streams[i]);
	for (i = 0; i < ncaps; i++)
		if (caps[i] == c) {
			caps[i] = caps[--ncaps];
			break;
		}
	__atomic_sub_fetch(&cufab_captures_live, 1, __ATOMIC_RELEASE);
	free(c->streams);
	free(c);
}

static CUresult invalidate_locked(struct cufab_capture *c, CUresult why,
				  const char *what)
{
	if (!c->invalid)
		cufab_dbg("capture %llu invalidated: %s (%s)", c->id, what,
			  why == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ?
			  "implicit dependency on the legacy stream" :
			  why == CUDA_ERROR_STREAM_CAPTURE_ISOLATION ?
			  "dependency across the capture boundary" :
			  why == CUDA_ERROR_STREAM_CAPTURE_MERGE ?
			  "would merge two captures" :
			  "not permitted while capturing");
	c->invalid = 1;
	return why;
}

/*
 * A capture with a blocking stream of context @ctx_kid: work on that
 * context's legacy stream would depend on it implicitly.
 */
static struct cufab_capture *implicit_locked(__u32 ctx_kid)
{
	const struct cufab_lstream *t;
	size_t i, j;

	for (i = 0; i < ncaps; i++)
		for (j = 0; j < caps[i]->nstreams; j++) {
			t = caps[i]->streams[j];
			if (t->ctx_kid == ctx_kid &&
			    !(t->flags & CU_STREAM_NON_BLOCKING))
				return caps[i];
		}
	return NULL;
}

/* Work on the legacy stream @s while its context captures: refused. */
static CUresult legacy_check_locked(struct cufab_lstream *s, const char *what,
				    int *handled)
{
	struct cufab_capture *c;
	CUresult res = CUDA_SUCCESS;

	if (!s->legacy)
		return CUDA_SUCCESS;
	while ((c = implicit_locked(s->ctx_kid)) && !c->invalid)
		res = invalidate_locked(c, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
					what);
	if (implicit_locked(s->ctx_kid))
		res = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	if (res != CUDA_SUCCESS)
		*handled = 1;
	return res;
}

/* A node like @t at the end of @s's capture, which it then follows. */
static CUresult capture_node_locked(struct cufab_lstream *s,
				    struct CUgraphNode_st *t)
{
	struct cufab_capture *c = s->cap;
	struct CUgraphNode_st *n;
	CUresult res;

	if (deps_room(s, 1))
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = cufab_graph_node_add_locked(c->graph, s->cap_deps, s->cap_n, t,
					  &n);
	if (res != CUDA_SUCCESS)
		return res;
	s->cap_deps[0] = n;
	s->cap_n = 1;
	return CUDA_SUCCESS;
}

static CUresult capture_submit(struct cufab_lstream *s,
			       const struct cufab_stream_submit *arg,
			       int *handled)
{
	struct CUgraphNode_st t = { 0 };
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&cufab_graph_lock);
	if (!s->cap) {
		res = legacy_check_locked(s, "work on the legacy stream",
					  handled);
		goto out;
	}
	*handled = 1;
	if (s->cap->invalid) {
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		goto out;
	}
	if (arg->op != CUFAB_OP_COPY && arg->op != CUFAB_OP_SET) {
		res = invalidate_locked(s->cap,
					CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
					"a stream operation that is not a copy, a set or a host function");
		goto out;
	}
	t.type = arg->op == CUFAB_OP_COPY ? CU_GRAPH_NODE_TYPE_MEMCPY :
		 CU_GRAPH_NODE_TYPE_MEMSET;
	t.ops = malloc(sizeof(*t.ops));
	if (!t.ops) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	*t.ops = *arg;
	t.ops->size = sizeof(*t.ops);
	t.ops->stream_id = 0;
	t.ops->out_seq = 0;
	t.ops->out_event_seq = 0;
	t.nops = 1;
	res = capture_node_locked(s, &t);
	if (res != CUDA_SUCCESS)
		free(t.ops);
out:
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

static CUresult capture_host(struct cufab_lstream *s, CUhostFn fn,
			     int callback, void *data, int *handled)
{
	struct CUgraphNode_st t = {
		.type = CU_GRAPH_NODE_TYPE_HOST, .fn = fn, .data = data,
	};
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&cufab_graph_lock);
	if (!s->cap) {
		res = legacy_check_locked(s, "a host function on the legacy stream",
					  handled);
	} else {
		*handled = 1;
		if (s->cap->invalid)
			res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		else if (callback)
			res = invalidate_locked(s->cap,
						CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
						"cuStreamAddCallback (cuLaunchHostFunc can be captured)");
		else
			res = capture_node_locked(s, &t);
	}
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

/* cuGraphLaunch into a capture: a child-graph node of its graph. */
static CUresult capture_graph(struct cufab_lstream *s,
			      const struct CUgraph_st *g, int *handled)
{
	struct CUgraphNode_st t = { .type = CU_GRAPH_NODE_TYPE_GRAPH };
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&cufab_graph_lock);
	if (!s->cap) {
		res = legacy_check_locked(s, "a graph launch on the legacy stream",
					  handled);
		goto out;
	}
	*handled = 1;
	if (s->cap->invalid) {
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		goto out;
	}
	res = cufab_graph_clone_locked(g, &t.child);
	if (res == CUDA_SUCCESS) {
		res = capture_node_locked(s, &t);
		if (res != CUDA_SUCCESS)
			cufab_graph_free_locked(t.child);
	}
out:
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

/*
 * cuStreamQuery, cuStreamSynchronize, the stream memory operations: not
 * while @s captures (nor on the legacy stream while its context does).
 */
static CUresult capture_refuse(struct cufab_lstream *s, const char *what)
{
	int handled = 0;
	CUresult res;

	pthread_mutex_lock(&cufab_graph_lock);
	if (s->cap)
		res = invalidate_locked(s->cap,
					CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
					what);
	else
		res = legacy_check_locked(s, what, &handled);
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

static void capture_event_clear(struct cufab_capev *ev)
{
	pthread_mutex_lock(&cufab_graph_lock);
	free(ev->deps);
	ev->deps = NULL;
	ev->n = 0;
	ev->cap_id = 0;
	pthread_mutex_unlock(&cufab_graph_lock);
}

static CUresult capture_record(struct cufab_lstream *s,
			       struct cufab_capev *ev, CUevent h, int external,
			       int *handled)
{
	struct CUgraphNode_st t = {
		.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD, .event = h,
	};
	CUgraphNode *deps = NULL;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&cufab_graph_lock);
	if (!s->cap) {
		res = legacy_check_locked(s, "an event record on the legacy stream",
					  handled);
		goto out;
	}
	*handled = 1;
	if (s->cap->invalid) {
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		goto out;
	}
	if (external) {
		/* CU_EVENT_RECORD_EXTERNAL: a record node of the graph */
		res = capture_node_locked(s, &t);
		goto out;
	}
	if (s->cap_n) {
		deps = malloc(s->cap_n * sizeof(*deps));
		if (!deps) {
			res = CUDA_ERROR_OUT_OF_MEMORY;
			goto out;
		}
		memcpy(deps, s->cap_deps, s->cap_n * sizeof(*deps));
	}
	free(ev->deps);
	ev->deps = deps;
	ev->n = s->cap_n;
	ev->cap_id = s->cap->id;
out:
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

/* @s waits for an event recorded in capture @c: a fork or a join. */
static CUresult wait_captured_locked(struct cufab_lstream *s,
				     struct cufab_capture *c,
				     const struct cufab_capev *ev)
{
	CUresult res;

	if (s->cap == c)
		return c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED :
		       deps_add(s, ev->deps, ev->n);
	if (s->cap) {
		invalidate_locked(c, CUDA_ERROR_STREAM_CAPTURE_MERGE,
				  "a stream of another capture waits for its event");
		return invalidate_locked(s->cap,
					 CUDA_ERROR_STREAM_CAPTURE_MERGE,
					 "a wait for an event of another capture");
	}
	if (s->legacy)
		return invalidate_locked(c, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
					 "the legacy stream waits for a captured event");
	res = stream_join_locked(c, s);
	if (res == CUDA_SUCCESS)
		res = deps_set(s, ev->deps, ev->n);
	return res;
}

static CUresult capture_wait(struct cufab_lstream *s, struct cufab_capev *ev,
			     CUevent h, int external, int *handled)
{
	struct CUgraphNode_st t = {
		.type = CU_GRAPH_NODE_TYPE_WAIT_EVENT, .event = h,
	};
	struct cufab_capture *c;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&cufab_graph_lock);
	c = capture_find_locked(ev->cap_id);
	if (c) {
		*handled = 1;
		res = wait_captured_locked(s, c, ev);
	} else if (ev->cap_id && !s->cap) {
		/* its capture ended: the record never ran, nothing to wait for */
		*handled = 1;
	} else if (s->cap) {
		*handled = 1;
		if (s->cap->invalid)
			res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		else if (external)
			res = capture_node_locked(s, &t);
		else
			res = invalidate_locked(s->cap,
						CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
						"a wait for an event recorded outside the capture");
	} else {
		res = legacy_check_locked(s, "an event wait on the legacy stream",
					  handled);
	}
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

/* A destroyed stream leaves its capture, which cannot end well. */
static void capture_stream_gone(struct cufab_lstream *s)
{
	struct cufab_capture *c;
	size_t i;

	pthread_mutex_lock(&cufab_graph_lock);
	c = s->cap;
	if (c) {
		invalidate_locked(c, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
				  "a capturing stream destroyed");
		for (i = 0; i < c->nstreams; i++)
			if (c->streams[i] == s)
				c->streams[i] = c->streams[--c->nstreams];
		if (c->origin == s) {
			cufab_graph_free_locked(c->graph);
			capture_end_locked(c);
		}
		stream_leave_locked(s);
	}
	pthread_mutex_unlock(&cufab_graph_lock);
}

/* Is the calling thread barred from a potentially unsafe call? */
static struct cufab_capture *unsafe_locked(void)
{
	pthread_t self = pthread_self();
	size_t i;

	if (tls_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return NULL;
	for (i = 0; i < ncaps; i++) {
		struct cufab_capture *c = caps[i];

		if (pthread_equal(c->thread, self) &&
		    c->mode != CU_STREAM_CAPTURE_MODE_RELAXED)
			return c;
		if (tls_mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
		    !pthread_equal(c->thread, self) &&
		    c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)
			return c;
	}
	return NULL;
}

static CUresult capture_unsafe(const char *call)
{
	struct cufab_capture *c;
	CUresult res = CUDA_SUCCESS;

	if (!cufab_capture_any())
		return CUDA_SUCCESS;
	pthread_mutex_lock(&cufab_graph_lock);
	c = unsafe_locked();
	if (c) {
		cufab_dbg("%s: refused while capture %llu (mode %d, thread mode %d) is in progress",
			  call, c->id, c->mode, tls_mode);
		res = invalidate_locked(c, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
					call);
	}
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

/* What the calls that submit ask of capture (stream.h). */
static const struct cufab_capture_ops capture_ops = {
	.submit = capture_submit,
	.host = capture_host,
	.graph = capture_graph,
	.record = capture_record,
	.wait = capture_wait,
	.event_clear = capture_event_clear,
	.stream_gone = capture_stream_gone,
	.refuse = capture_refuse,
	.unsafe = capture_unsafe,
};

__attribute__((constructor))
static void capture_hook(void)
{
	cufab_capture_register(&capture_ops);
}

/* Beginning and ending. */

static CUresult begin(CUstream h, int pt, CUstreamCaptureMode mode)
{
	struct cufab_capture *c = NULL;
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_call_args((unsigned int)mode <=
			      CU_STREAM_CAPTURE_MODE_RELAXED);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	if (s->legacy) {
		cufab_dbg("cuStreamBeginCapture: the legacy stream cannot capture");
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	pthread_mutex_lock(&cufab_graph_lock);
	if (s->cap) {
		res = CUDA_ERROR_ILLEGAL_STATE;
		goto out;
	}
	if (ncaps == caps_room) {
		size_t room = caps_room ? 2 * caps_room : 4;
		struct cufab_capture **a = realloc(caps, room * sizeof(*a));

		if (!a) {
			res = CUDA_ERROR_OUT_OF_MEMORY;
			goto out;
		}
		caps = a;
		caps_room = room;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	res = cufab_graph_new_locked(1, &c->graph);
	if (res != CUDA_SUCCESS)
		goto out;
	c->id = ++cap_ids;
	c->mode = mode;
	c->thread = pthread_self();
	c->origin = s;
	res = stream_join_locked(c, s);
	if (res != CUDA_SUCCESS) {
		cufab_graph_free_locked(c->graph);
		goto out;
	}
	caps[ncaps++] = c;
	c = NULL;
	__atomic_add_fetch(&cufab_captures_live, 1, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&cufab_graph_lock);
	free(c);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream,
						      CUstreamCaptureMode mode)
{
	return begin(hStream, 0, mode);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream,
							   CUstreamCaptureMode mode)
{
	return begin(hStream, 1, mode);
}

/* CUDA 10.0, before modes: a capture of the default, GLOBAL, mode. */
CUFAB_EXPORT CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream)
{
	return begin(hStream, 0, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream)
{
	return begin(hStream, 1, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

CUFAB_EXPORT CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	CUstreamCaptureMode old = tls_mode;
	CUresult res;

	res = cufab_call_args(mode &&
			      (unsigned int)*mode <= CU_STREAM_CAPTURE_MODE_RELAXED);
	if (res != CUDA_SUCCESS)
		return res;
	tls_mode = *mode;
	*mode = old;
	return CUDA_SUCCESS;
}

/* Is every node of the joined streams' sets reachable from the origin's? */
static int reach(const struct CUgraphNode_st *from,
		 const struct CUgraphNode_st *to, unsigned int depth)
{
	size_t i;

	if (from == to)
		return 1;
	if (!depth)
		return 0;
	for (i = 0; i < from->ndeps; i++)
		if (reach(from->deps[i], to, depth - 1))
			return 1;
	return 0;
}

static int joined_locked(const struct cufab_capture *c)
{
	const struct cufab_lstream *o = c->origin, *s;
	size_t i, j, k;
	int ok;

	for (i = 0; i < c->nstreams; i++) {
		s = c->streams[i];
		if (s == o)
			continue;
		for (j = 0; j < s->cap_n; j++) {
			ok = 0;
			for (k = 0; !ok && k < o->cap_n; k++)
				ok = reach(o->cap_deps[k], s->cap_deps[j],
					   (unsigned int)c->graph->n);
			if (!ok)
				return 0;
		}
	}
	return 1;
}

static CUresult end(CUstream h, int pt, CUgraph *phGraph)
{
	struct cufab_capture *c;
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_call_args(!!phGraph);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_graph_lock);
	c = s->cap;
	if (!c) {
		res = CUDA_ERROR_ILLEGAL_STATE;
		goto out;
	}
	if (c->origin != s) {
		res = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
		goto out;
	}
	if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
	    !pthread_equal(c->thread, pthread_self())) {
		res = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
		goto out;
	}
	if (c->invalid)
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	else if (!joined_locked(c))
		res = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
	if (res == CUDA_SUCCESS) {
		*phGraph = c->graph;
	} else {
		cufab_graph_free_locked(c->graph);
		*phGraph = NULL;
	}
	capture_end_locked(c);
out:
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream,
						 CUgraph *phGraph)
{
	return end(hStream, 0, phGraph);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream,
						      CUgraph *phGraph)
{
	return end(hStream, 1, phGraph);
}

/* Queries. */

static CUresult capture_status(CUstream h, int pt, CUstreamCaptureStatus *status,
			       cuuint64_t *id, CUgraph *graph,
			       const CUgraphNode **deps,
			       const CUgraphEdgeData **edges, size_t *n)
{
	struct cufab_lstream *s;
	struct cufab_capture *c;
	CUresult res;

	/* edge data parallels the dependencies: not one without the other */
	res = cufab_call_args(status && (!edges || deps));
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	if (!cufab_capture_any()) {
		*status = CU_STREAM_CAPTURE_STATUS_NONE;
		return CUDA_SUCCESS;
	}
	pthread_mutex_lock(&cufab_graph_lock);
	c = s->cap;
	if (!c && s->legacy && implicit_locked(s->ctx_kid)) {
		/* the capture is not invalidated by the question */
		res = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	} else if (!c) {
		*status = CU_STREAM_CAPTURE_STATUS_NONE;
	} else if (c->invalid) {
		*status = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
	} else {
		*status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
		if (id)
			*id = c->id;
		if (graph)
			*graph = c->graph;
		if (deps)
			*deps = s->cap_deps;
		if (edges)
			*edges = s->cap_edges;
		if (n)
			*n = s->cap_n;
	}
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
						  CUstreamCaptureStatus *captureStatus)
{
	return capture_status(hStream, 0, captureStatus, NULL, NULL, NULL,
			      NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream,
						       CUstreamCaptureStatus *captureStatus)
{
	return capture_status(hStream, 1, captureStatus, NULL, NULL, NULL,
			      NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream,
						     CUstreamCaptureStatus *status,
						     cuuint64_t *id)
{
	return capture_status(hStream, 0, status, id, NULL, NULL, NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
							  CUstreamCaptureStatus *status,
							  cuuint64_t *id)
{
	return capture_status(hStream, 1, status, id, NULL, NULL, NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
							CUstreamCaptureStatus *status,
							cuuint64_t *id,
							CUgraph *graph,
							const CUgraphNode **deps,
							size_t *n)
{
	return capture_status(hStream, 0, status, id, graph, deps, NULL, n);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
							     CUstreamCaptureStatus *status,
							     cuuint64_t *id,
							     CUgraph *graph,
							     const CUgraphNode **deps,
							     size_t *n)
{
	return capture_status(hStream, 1, status, id, graph, deps, NULL, n);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream,
							CUstreamCaptureStatus *status,
							cuuint64_t *id,
							CUgraph *graph,
							const CUgraphNode **deps,
							const CUgraphEdgeData **edges,
							size_t *n)
{
	return capture_status(hStream, 0, status, id, graph, deps, edges, n);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
							     CUstreamCaptureStatus *status,
							     cuuint64_t *id,
							     CUgraph *graph,
							     const CUgraphNode **deps,
							     const CUgraphEdgeData **edges,
							     size_t *n)
{
	return capture_status(hStream, 1, status, id, graph, deps, edges, n);
}
