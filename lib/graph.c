// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Graphs whose nodes need no device code: cuGraphCreate, memset, memcpy,
 * host, event record and wait, empty and child-graph nodes,
 * cuGraphInstantiate(WithFlags), cuGraphLaunch, cuGraphExecUpdate,
 * cuGraphGetNodes, cuGraphNodeGetType and the destroys.
 *
 * A node keeps the stream operations it stands for, checked and resolved
 * (a context's GPU) when it is added, so that launching costs no more than
 * handing them to the kernel. An executable graph owns a copy of its graph
 * (NVIDIA's too: the graph may be destroyed or changed after
 * instantiation) and the operations of that copy in dependency order, with
 * a place in front for the wait on the stream of its previous launch
 * ("each launch is ordered behind ... any previous launches of
 * hGraphExec"). cuGraphLaunch is one CUFAB_IOCTL_STREAM_BATCH, whatever
 * the number of nodes (up to CUFAB_BATCH_MAX operations per call).
 *
 * Handles are checked against the live ones: a destroyed or made-up graph
 * or node is CUDA_ERROR_INVALID_VALUE, as the graph calls document, never
 * a crash. Kernel nodes are refused: cufab runs no device code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "graph.h"
#include "stream.h"

pthread_mutex_t cufab_graph_lock = PTHREAD_MUTEX_INITIALIZER;

/* The program's graphs (cufab_graph_lock). */
static struct CUgraph_st **graphs;
static size_t ngraphs, graphs_cap;

struct cufab_exec_rec {
	size_t idx;		/* its entry in ents */
	CUevent event;
};

/*
 * An executable graph lives in a slot that is never freed: its handle
 * names the slot by index and generation, as a stream's does, so that
 * cuGraphLaunch finds it with no global lock and no list scan, and a
 * destroyed or made-up handle is refused without reading freed memory.
 * Slots come EXEC_CHUNK at a time; a destroyed one is reused.
 */
#define EXEC_CHUNK	64
#define EXEC_CHUNKS	1024	/* executable graphs alive at once: 65536 */

struct CUgraphExec_st {
	pthread_mutex_t lock;	/* one launch at a time; @live, @gen */
	int live;
	__u32 gen;		/* one more at each destroy */
	__u32 idx;		/* its slot */
	__u32 next_free;	/* a destroyed one: the next free slot + 1 */
	struct CUgraph_st *graph;	/* the executable's own copy */
	size_t n;		/* operations, from ents[1] */
	struct cufab_stream_submit *ents;
	size_t nhosts;
	void **hosts;		/* host calls the HOST entries name */
	size_t nrecs;
	struct cufab_exec_rec *recs;
	struct cufab_lstream *last;	/* stream of the previous launch */
	__u32 last_gen;
};

/* Chunks of slots, published once made; the free slots (cufab_graph_lock). */
static struct CUgraphExec_st *exec_chunks[EXEC_CHUNKS];
static __u32 exec_slots, exec_first_free;	/* first_free: index + 1 */

static int ptr_add(void ***arr, size_t *n, size_t *cap, void *p)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void **a = realloc(*arr, c * sizeof(*a));

		if (!a)
			return -1;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

static void ptr_del(void **arr, size_t *n, const void *p)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (arr[i] == p) {
			arr[i] = arr[--*n];
			return;
		}
}

static int ptr_has(void *const *arr, size_t n, const void *p)
{
	size_t i;

	for (i = 0; p && i < n; i++)
		if (arr[i] == p)
			return 1;
	return 0;
}

int cufab_graph_live_locked(const struct CUgraph_st *g)
{
	return ptr_has((void *const *)graphs, ngraphs, g);
}

static int node_of(const struct CUgraph_st *g, const struct CUgraphNode_st *n)
{
	return ptr_has((void *const *)g->nodes, g->n, n);
}

/* The program's graph that holds @n, or NULL. */
static struct CUgraph_st *node_graph_locked(const struct CUgraphNode_st *n)
{
	size_t i;

	for (i = 0; n && i < ngraphs; i++)
		if (node_of(graphs[i], n))
			return graphs[i];
	return NULL;
}

CUresult cufab_graph_new_locked(int user, struct CUgraph_st **out)
{
	struct CUgraph_st *g = calloc(1, sizeof(*g));

	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	g->user = user;
	if (user && ptr_add((void ***)&graphs, &ngraphs, &graphs_cap, g)) {
		free(g);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*out = g;
	return CUDA_SUCCESS;
}

static void node_free(struct CUgraphNode_st *n)
{
	if (n->child)
		cufab_graph_free_locked(n->child);
	free(n->deps);
	free(n->ops);
	free(n);
}

void cufab_graph_free_locked(struct CUgraph_st *g)
{
	size_t i;

	if (g->user)
		ptr_del((void **)graphs, &ngraphs, g);
	for (i = 0; i < g->n; i++)
		node_free(g->nodes[i]);
	free(g->nodes);
	free(g);
}

/*
 * Add a node like @tmpl (its ops, fn, data, event, child are taken over on
 * success) depending on @deps, which the caller has checked.
 */
CUresult cufab_graph_node_add_locked(struct CUgraph_st *g,
				     const CUgraphNode *deps, size_t ndeps,
				     const struct CUgraphNode_st *tmpl,
				     struct CUgraphNode_st **out)
{
	struct CUgraphNode_st *n = calloc(1, sizeof(*n));

	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*n = *tmpl;
	n->graph = g;
	n->ndeps = ndeps;
	n->deps = NULL;
	if (ndeps) {
		n->deps = malloc(ndeps * sizeof(*n->deps));
		if (!n->deps)
			goto nomem;
		memcpy(n->deps, deps, ndeps * sizeof(*n->deps));
	}
	if (ptr_add((void ***)&g->nodes, &g->n, &g->cap, n))
		goto nomem;
	*out = n;
	return CUDA_SUCCESS;
nomem:
	free(n->deps);
	free(n);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

/* The index of @n in its graph (it is there). */
static size_t node_index(const struct CUgraphNode_st *n)
{
	size_t i;

	for (i = 0; n->graph->nodes[i] != n; i++)
		;
	return i;
}

CUresult cufab_graph_clone_locked(const struct CUgraph_st *g,
				  struct CUgraph_st **out)
{
	struct CUgraph_st *c;
	CUresult res;
	size_t i, j;

	res = cufab_graph_new_locked(0, &c);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; res == CUDA_SUCCESS && i < g->n; i++) {
		const struct CUgraphNode_st *src = g->nodes[i];
		struct CUgraphNode_st t = *src, *n;
		CUgraphNode deps[src->ndeps ? src->ndeps : 1];

		for (j = 0; j < src->ndeps; j++)
			deps[j] = c->nodes[node_index(src->deps[j])];
		t.ops = NULL;
		t.child = NULL;
		if (src->nops) {
			t.ops = malloc(src->nops * sizeof(*t.ops));
			if (!t.ops) {
				res = CUDA_ERROR_OUT_OF_MEMORY;
				break;
			}
			memcpy(t.ops, src->ops, src->nops * sizeof(*t.ops));
		}
		if (src->child)
			res = cufab_graph_clone_locked(src->child, &t.child);
		if (res == CUDA_SUCCESS)
			res = cufab_graph_node_add_locked(c, deps, src->ndeps,
							  &t, &n);
		if (res != CUDA_SUCCESS) {
			free(t.ops);
			if (t.child)
				cufab_graph_free_locked(t.child);
		}
	}
	if (res != CUDA_SUCCESS) {
		cufab_graph_free_locked(c);
		return res;
	}
	*out = c;
	return CUDA_SUCCESS;
}

/* Creation and destruction. */

CUFAB_EXPORT CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph,
					    unsigned int flags)
{
	CUresult res;

	res = cufab_call_args(phGraph && !flags);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_graph_lock);
	res = cufab_graph_new_locked(1, phGraph);
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_graph_lock);
	if (!cufab_graph_live_locked(hGraph)) {
		pthread_mutex_unlock(&cufab_graph_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	cufab_graph_free_locked(hGraph);
	pthread_mutex_unlock(&cufab_graph_lock);
	return CUDA_SUCCESS;
}

/* Nodes. */

/*
 * The checks every cuGraphAdd*Node makes: the out pointer, the graph, the
 * dependencies (all of @g, none twice). cufab_graph_lock held.
 */
static CUresult add_check_locked(CUgraphNode *out, CUgraph g,
				 const CUgraphNode *deps, size_t ndeps)
{
	size_t i, j;

	if (!out || (ndeps && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	if (!cufab_graph_live_locked(g)) {
		cufab_dbg("refused: graph %p: not a live graph of this process",
			  (void *)g);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < ndeps; i++) {
		if (!node_of(g, deps[i])) {
			cufab_dbg("refused: dependency %zu (node %p): not a node of graph %p",
				  i, (void *)deps[i], (void *)g);
			return CUDA_ERROR_INVALID_VALUE;
		}
		for (j = 0; j < i; j++)
			if (deps[j] == deps[i]) {
				cufab_dbg("refused: dependency %zu (node %p): listed twice",
					  i, (void *)deps[i]);
				return CUDA_ERROR_INVALID_VALUE;
			}
	}
	return CUDA_SUCCESS;
}

static CUresult add_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			 size_t ndeps, struct CUgraphNode_st *t)
{
	CUresult res;

	pthread_mutex_lock(&cufab_graph_lock);
	res = add_check_locked(out, g, deps, ndeps);
	if (res == CUDA_SUCCESS)
		res = cufab_graph_node_add_locked(g, deps, ndeps, t, out);
	pthread_mutex_unlock(&cufab_graph_lock);
	if (res != CUDA_SUCCESS) {
		free(t->ops);
		if (t->child) {
			pthread_mutex_lock(&cufab_graph_lock);
			cufab_graph_free_locked(t->child);
			pthread_mutex_unlock(&cufab_graph_lock);
		}
	}
	return res;
}

/* The kernel GPU index of @ctx, or of the current context for NULL. */
static CUresult node_kdev(CUcontext ctx, __u32 *kdev)
{
	CUdevice dev;
	CUresult res;

	if (ctx) {
		res = cuCtxGetDevice_v2(&dev, ctx);
		if (res != CUDA_SUCCESS)
			return CUDA_ERROR_INVALID_CONTEXT;
	} else {
		res = cuCtxGetDevice(&dev);
		if (res != CUDA_SUCCESS)
			return res;
	}
	*kdev = cufab_device(dev)->index;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode,
						  CUgraph hGraph,
						  const CUgraphNode *dependencies,
						  size_t numDependencies)
{
	struct CUgraphNode_st t = { .type = CU_GRAPH_NODE_TYPE_EMPTY };
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	return add_node(phGraphNode, hGraph, dependencies, numDependencies,
			&t);
}

/* One SET per row, as cuMemsetD2D*Async queues them. */
static CUresult memset_ops(const CUDA_MEMSET_NODE_PARAMS *p, __u32 kdev,
			   struct CUgraphNode_st *t)
{
	size_t bytes, span, row, rows = p->height;

	if ((p->elementSize != 1 && p->elementSize != 2 &&
	     p->elementSize != 4) || !p->width || !rows ||
	    p->dst % p->elementSize ||
	    (p->elementSize < 4 && p->value >> (8 * p->elementSize)) ||
	    __builtin_mul_overflow(p->width, (size_t)p->elementSize, &bytes))
		return CUDA_ERROR_INVALID_VALUE;
	if (rows > 1 &&
	    (p->pitch < bytes || p->pitch % p->elementSize ||
	     __builtin_mul_overflow(p->pitch, rows - 1, &span) ||
	     __builtin_add_overflow(span, bytes, &span) ||
	     __builtin_add_overflow((size_t)p->dst, span, &span)))
		return CUDA_ERROR_INVALID_VALUE;
	t->ops = calloc(rows, sizeof(*t->ops));
	if (!t->ops)
		return CUDA_ERROR_OUT_OF_MEMORY;
	t->nops = rows;
	for (row = 0; row < rows; row++) {
		struct cufab_stream_submit *o = &t->ops[row];

		o->size = sizeof(*o);
		o->op = CUFAB_OP_SET;
		o->dst = p->dst + row * p->pitch;
		o->length = p->width;
		o->value = p->value;
		o->elem_size = p->elementSize;
		o->src_dev = CUFAB_DEV_STREAM;
		o->dst_dev = kdev;
	}
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode,
						   CUgraph hGraph,
						   const CUgraphNode *dependencies,
						   size_t numDependencies,
						   const CUDA_MEMSET_NODE_PARAMS *memsetParams,
						   CUcontext ctx)
{
	struct CUgraphNode_st t = { .type = CU_GRAPH_NODE_TYPE_MEMSET };
	CUresult res;
	__u32 kdev;

	res = cufab_call_args(!!memsetParams);
	if (res != CUDA_SUCCESS)
		return res;
	res = node_kdev(ctx, &kdev);
	if (res == CUDA_SUCCESS)
		res = memset_ops(memsetParams, kdev, &t);
	if (res != CUDA_SUCCESS)
		return res;
	return add_node(phGraphNode, hGraph, dependencies, numDependencies,
			&t);
}

/* One side of a CUDA_MEMCPY3D: its first byte, or 0 if unusable. */
static __u64 copy_side(CUmemorytype type, const void *host, CUdeviceptr dev,
		       CUarray array, const void *reserved, size_t x, size_t y,
		       size_t z, size_t lod, size_t pitch, size_t height)
{
	__u64 base;

	if (array || reserved || lod)
		return 0;
	if (type == CU_MEMORYTYPE_HOST)
		base = (uintptr_t)host;
	else if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED)
		base = dev;
	else
		return 0;
	return base ? base + x + (y + z * height) * pitch : 0;
}

/* One COPY per row of the box, each row read and written by @kdev. */
static CUresult memcpy_ops(const CUDA_MEMCPY3D *p, __u32 kdev,
			   struct CUgraphNode_st *t)
{
	size_t rows, r, depth = p->Depth, height = p->Height;
	__u64 src, dst;

	src = copy_side(p->srcMemoryType, p->srcHost, p->srcDevice,
			p->srcArray, p->reserved0, p->srcXInBytes, p->srcY,
			p->srcZ, p->srcLOD, p->srcPitch, p->srcHeight);
	dst = copy_side(p->dstMemoryType, p->dstHost, p->dstDevice,
			p->dstArray, p->reserved1, p->dstXInBytes, p->dstY,
			p->dstZ, p->dstLOD, p->dstPitch, p->dstHeight);
	if (!src || !dst || !p->WidthInBytes || !height || !depth ||
	    __builtin_mul_overflow(height, depth, &rows))
		return CUDA_ERROR_INVALID_VALUE;
	if (rows > 1 && (p->srcPitch < p->WidthInBytes ||
			 p->dstPitch < p->WidthInBytes))
		return CUDA_ERROR_INVALID_VALUE;
	if (depth > 1 && (p->srcHeight < height || p->dstHeight < height))
		return CUDA_ERROR_INVALID_VALUE;
	t->ops = calloc(rows, sizeof(*t->ops));
	if (!t->ops)
		return CUDA_ERROR_OUT_OF_MEMORY;
	t->nops = rows;
	for (r = 0; r < rows; r++) {
		struct cufab_stream_submit *o = &t->ops[r];
		size_t y = r % height, z = r / height;

		o->size = sizeof(*o);
		o->op = CUFAB_OP_COPY;
		o->src = src + (y + z * p->srcHeight) * p->srcPitch;
		o->dst = dst + (y + z * p->dstHeight) * p->dstPitch;
		o->length = p->WidthInBytes;
		/* host memory: whichever GPU runs the copy reaches it */
		o->src_dev = p->srcMemoryType == CU_MEMORYTYPE_HOST ?
			     CUFAB_DEV_STREAM : kdev;
		o->dst_dev = p->dstMemoryType == CU_MEMORYTYPE_HOST ?
			     CUFAB_DEV_STREAM : kdev;
	}
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode,
						   CUgraph hGraph,
						   const CUgraphNode *dependencies,
						   size_t numDependencies,
						   const CUDA_MEMCPY3D *copyParams,
						   CUcontext ctx)
{
	struct CUgraphNode_st t = { .type = CU_GRAPH_NODE_TYPE_MEMCPY };
	CUresult res;
	__u32 kdev;

	res = cufab_call_args(!!copyParams);
	if (res != CUDA_SUCCESS)
		return res;
	res = node_kdev(ctx, &kdev);
	if (res == CUDA_ERROR_INVALID_CONTEXT && ctx)
		/* cuGraphAddMemcpyNode documents no INVALID_CONTEXT */
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = memcpy_ops(copyParams, kdev, &t);
	if (res != CUDA_SUCCESS)
		return res;
	return add_node(phGraphNode, hGraph, dependencies, numDependencies,
			&t);
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode,
						 CUgraph hGraph,
						 const CUgraphNode *dependencies,
						 size_t numDependencies,
						 const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	struct CUgraphNode_st t = { .type = CU_GRAPH_NODE_TYPE_HOST };
	CUresult res;

	res = cufab_call_args(nodeParams && nodeParams->fn);
	if (res != CUDA_SUCCESS)
		return res;
	t.fn = nodeParams->fn;
	t.data = nodeParams->userData;
	return add_node(phGraphNode, hGraph, dependencies, numDependencies,
			&t);
}

static CUresult add_event_node(CUgraphNode *out, CUgraph g,
			       const CUgraphNode *deps, size_t ndeps,
			       CUevent event, CUgraphNodeType type)
{
	struct CUgraphNode_st t = { .type = type, .event = event };
	__u32 kid, ctx_kid;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	if (cufab_event_info(event, &kid, &ctx_kid) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	return add_node(out, g, deps, ndeps, &t);
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode,
							CUgraph hGraph,
							const CUgraphNode *dependencies,
							size_t numDependencies,
							CUevent event)
{
	return add_event_node(phGraphNode, hGraph, dependencies,
			      numDependencies, event,
			      CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode,
						      CUgraph hGraph,
						      const CUgraphNode *dependencies,
						      size_t numDependencies,
						      CUevent event)
{
	return add_event_node(phGraphNode, hGraph, dependencies,
			      numDependencies, event,
			      CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

/* The child graph is copied: later changes to it do not reach the node. */
CUFAB_EXPORT CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode,
						       CUgraph hGraph,
						       const CUgraphNode *dependencies,
						       size_t numDependencies,
						       CUgraph childGraph)
{
	struct CUgraphNode_st t = { .type = CU_GRAPH_NODE_TYPE_GRAPH };
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_graph_lock);
	res = cufab_graph_live_locked(childGraph) && childGraph != hGraph ?
	      cufab_graph_clone_locked(childGraph, &t.child) :
	      CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&cufab_graph_lock);
	if (res != CUDA_SUCCESS)
		return res;
	return add_node(phGraphNode, hGraph, dependencies, numDependencies,
			&t);
}

/* cufab runs no device code: no function of a module can exist. */
CUFAB_EXPORT CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode,
						      CUgraph hGraph,
						      const CUgraphNode *dependencies,
						      size_t numDependencies,
						      const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	CUresult res;

	(void)phGraphNode;
	(void)hGraph;
	(void)dependencies;
	(void)numDependencies;
	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	cufab_dbg("refused: function %p: cufab runs no device code, a graph can hold memset, memcpy, host, event, empty and child-graph nodes",
		  nodeParams ? (void *)nodeParams->func : NULL);
	return CUDA_ERROR_INVALID_VALUE;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode,
						 CUgraphNodeType *type)
{
	CUresult res;

	res = cufab_call_args(!!type);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_graph_lock);
	if (node_graph_locked(hNode))
		*type = hNode->type;
	else
		res = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&cufab_graph_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph,
					      CUgraphNode *nodes,
					      size_t *numNodes)
{
	size_t i;
	CUresult res;

	res = cufab_call_args(!!numNodes);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_graph_lock);
	if (!cufab_graph_live_locked(hGraph)) {
		pthread_mutex_unlock(&cufab_graph_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (nodes) {
		/* the places past the graph's nodes read NULL */
		for (i = 0; i < *numNodes; i++)
			nodes[i] = i < hGraph->n ? hGraph->nodes[i] : NULL;
		if (*numNodes > hGraph->n)
			*numNodes = hGraph->n;
	} else {
		*numNodes = hGraph->n;
	}
	pthread_mutex_unlock(&cufab_graph_lock);
	return CUDA_SUCCESS;
}

/* Executable graphs. */

static void exec_clear(struct CUgraphExec_st *x)
{
	size_t i;

	for (i = 0; i < x->nhosts; i++)
		cufab_host_call_free(x->hosts[i]);
	free(x->hosts);
	free(x->recs);
	free(x->ents);
	x->hosts = NULL;
	x->recs = NULL;
	x->ents = NULL;
	x->n = 0;
	x->nhosts = 0;
	x->nrecs = 0;
}

struct exec_build {
	struct CUgraphExec_st *x;
	size_t cap, hosts_cap, recs_cap;
};

static struct cufab_stream_submit *exec_slot(struct exec_build *b)
{
	struct CUgraphExec_st *x = b->x;

	/* ents[0] is the place of the wait on the previous launch */
	if (x->n + 1 == b->cap) {
		size_t c = b->cap ? 2 * b->cap : 16;
		struct cufab_stream_submit *e = realloc(x->ents,
							c * sizeof(*e));

		if (!e)
			return NULL;
		x->ents = e;
		b->cap = c;
	}
	x->n++;
	memset(&x->ents[x->n], 0, sizeof(x->ents[x->n]));
	x->ents[x->n].size = sizeof(x->ents[x->n]);
	return &x->ents[x->n];
}

static CUresult exec_node(struct exec_build *b, const struct CUgraphNode_st *n);

/* The nodes of @g in the order they were added: dependencies first. */
static CUresult exec_graph(struct exec_build *b, const struct CUgraph_st *g)
{
	CUresult res = CUDA_SUCCESS;
	size_t i;

	for (i = 0; res == CUDA_SUCCESS && i < g->n; i++)
		res = exec_node(b, g->nodes[i]);
	return res;
}

static CUresult exec_event_node(struct exec_build *b,
				const struct CUgraphNode_st *n)
{
	struct CUgraphExec_st *x = b->x;
	struct cufab_stream_submit *o;
	__u32 kid, ctx_kid;

	if (cufab_event_info(n->event, &kid, &ctx_kid) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;	/* destroyed since */
	o = exec_slot(b);
	if (!o)
		return CUDA_ERROR_OUT_OF_MEMORY;
	o->event_id = kid;
	if (n->type == CU_GRAPH_NODE_TYPE_WAIT_EVENT) {
		o->op = CUFAB_OP_EVENT_WAIT;
		return CUDA_SUCCESS;
	}
	o->op = CUFAB_OP_EVENT_RECORD;
	if (x->nrecs == b->recs_cap) {
		size_t c = b->recs_cap ? 2 * b->recs_cap : 8;
		struct cufab_exec_rec *r = realloc(x->recs, c * sizeof(*r));

		if (!r)
			return CUDA_ERROR_OUT_OF_MEMORY;
		x->recs = r;
		b->recs_cap = c;
	}
	x->recs[x->nrecs].idx = x->n;
	x->recs[x->nrecs++].event = n->event;
	return CUDA_SUCCESS;
}

static CUresult exec_node(struct exec_build *b, const struct CUgraphNode_st *n)
{
	struct CUgraphExec_st *x = b->x;
	struct cufab_stream_submit *o;
	void *c;
	size_t i;

	switch (n->type) {
	case CU_GRAPH_NODE_TYPE_MEMCPY:
	case CU_GRAPH_NODE_TYPE_MEMSET:
		for (i = 0; i < n->nops; i++) {
			o = exec_slot(b);
			if (!o)
				return CUDA_ERROR_OUT_OF_MEMORY;
			*o = n->ops[i];
		}
		return CUDA_SUCCESS;
	case CU_GRAPH_NODE_TYPE_HOST:
		c = cufab_host_call_keep(n->fn, n->data);
		if (!c || ptr_add(&x->hosts, &x->nhosts, &b->hosts_cap, c)) {
			cufab_host_call_free(c);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		o = exec_slot(b);
		if (!o)
			return CUDA_ERROR_OUT_OF_MEMORY;
		o->op = CUFAB_OP_HOST;
		o->host_fn = (uintptr_t)c;
		return CUDA_SUCCESS;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		return exec_event_node(b, n);
	case CU_GRAPH_NODE_TYPE_GRAPH:
		return exec_graph(b, n->child);
	default:
		return CUDA_SUCCESS;	/* EMPTY: an edge junction only */
	}
}

/* (Re)build @x's operations from its graph copy. */
static CUresult exec_build(struct CUgraphExec_st *x)
{
	struct exec_build b = { .x = x };
	CUresult res;

	x->ents = calloc(16, sizeof(*x->ents));
	if (!x->ents)
		return CUDA_ERROR_OUT_OF_MEMORY;
	b.cap = 16;
	res = exec_graph(&b, x->graph);
	if (res != CUDA_SUCCESS)
		exec_clear(x);
	else if (x->nhosts)
		res = cufab_host_thread_start();
	return res;
}

static CUgraphExec exec_handle(const struct CUgraphExec_st *x)
{
	return (CUgraphExec)(uintptr_t)(((__u64)x->gen << 32) |
					((__u64)(x->idx + 1) << 2));
}

/* A free slot, made if there is none; NULL without memory. */
static struct CUgraphExec_st *exec_take_locked(void)
{
	struct CUgraphExec_st *x, *chunk;
	__u32 i;

	if (exec_first_free) {
		x = &exec_chunks[(exec_first_free - 1) / EXEC_CHUNK]
				[(exec_first_free - 1) % EXEC_CHUNK];
		exec_first_free = x->next_free;
		return x;
	}
	if (exec_slots == EXEC_CHUNK * EXEC_CHUNKS)
		return NULL;
	if (!(exec_slots % EXEC_CHUNK)) {
		chunk = calloc(EXEC_CHUNK, sizeof(*chunk));
		if (!chunk)
			return NULL;
		for (i = 0; i < EXEC_CHUNK; i++) {
			pthread_mutex_init(&chunk[i].lock, NULL);
			chunk[i].idx = exec_slots + i;
		}
		__atomic_store_n(&exec_chunks[exec_slots / EXEC_CHUNK], chunk,
				 __ATOMIC_RELEASE);
	}
	x = &exec_chunks[exec_slots / EXEC_CHUNK][exec_slots % EXEC_CHUNK];
	exec_slots++;
	return x;
}

/* Put dead slot @x back among the free ones, emptied. */
static void exec_give_locked(struct CUgraphExec_st *x)
{
	x->graph = NULL;
	x->last = NULL;
	x->last_gen = 0;
	x->next_free = exec_first_free;
	exec_first_free = x->idx + 1;
}

#define INSTANTIATE_FLAGS (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | \
			   CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)

CUFAB_EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec,
							  CUgraph hGraph,
							  unsigned long long flags)
{
	struct CUgraphExec_st *x;
	CUresult res;

	/*
	 * AUTO_FREE_ON_LAUNCH concerns allocation nodes and USE_NODE_PRIORITY
	 * kernel nodes, neither of which a graph here can hold; DEVICE_LAUNCH
	 * needs a GPU that launches, and UPLOAD is for WithParams only.
	 */
	res = cufab_call_args(phGraphExec &&
			      !(flags & ~(unsigned long long)INSTANTIATE_FLAGS));
	if (res != CUDA_SUCCESS)
		return res;
	x = NULL;
	res = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&cufab_graph_lock);
	if (cufab_graph_live_locked(hGraph)) {
		x = exec_take_locked();
		res = x ? cufab_graph_clone_locked(hGraph, &x->graph) :
		      CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (res == CUDA_SUCCESS) {
		res = exec_build(x);
		if (res != CUDA_SUCCESS)
			cufab_graph_free_locked(x->graph);
	}
	if (res != CUDA_SUCCESS) {
		if (x)
			exec_give_locked(x);
		pthread_mutex_unlock(&cufab_graph_lock);
		return res;
	}
	/* a free slot: nobody else holds its lock but to find it dead */
	pthread_mutex_lock(&x->lock);
	x->live = 1;
	*phGraphExec = exec_handle(x);
	pthread_mutex_unlock(&x->lock);
	pthread_mutex_unlock(&cufab_graph_lock);
	return CUDA_SUCCESS;
}

/* CUDA 11.0: with an error node and a log, which cufab never fills. */
CUFAB_EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec,
						    CUgraph hGraph,
						    CUgraphNode *phErrorNode,
						    char *logBuffer,
						    size_t bufferSize)
{
	CUresult res = cuGraphInstantiateWithFlags(phGraphExec, hGraph, 0);

	if (res == CUDA_SUCCESS && logBuffer && bufferSize)
		logBuffer[0] = '\0';
	if (phErrorNode)
		*phErrorNode = NULL;
	return res;
}

/*
 * Has a launch of @x not finished? Then the host thread may still read
 * the host calls its entries name.
 */
static int exec_pending(const struct CUgraphExec_st *x)
{
	__u64 last;

	if (!x->last)
		return 0;
	last = __atomic_load_n(&x->last->last, __ATOMIC_ACQUIRE);
	return !cufab_slot_done(x->last->slot, last);
}

/*
 * The executable graph @h, locked, or NULL: its slot, if @h names one,
 * and the slot's generation, if it is live.
 */
static struct CUgraphExec_st *exec_get(CUgraphExec h)
{
	__u64 v = (uintptr_t)h;
	__u32 idx = (__u32)(v >> 2) & 0x3fffffff;
	struct CUgraphExec_st *chunk, *x;

	if ((v & 3) || !idx || idx > EXEC_CHUNK * EXEC_CHUNKS)
		return NULL;
	idx--;
	chunk = __atomic_load_n(&exec_chunks[idx / EXEC_CHUNK],
				__ATOMIC_ACQUIRE);
	if (!chunk)
		return NULL;
	x = &chunk[idx % EXEC_CHUNK];
	pthread_mutex_lock(&x->lock);
	if (x->live && x->gen == (__u32)(v >> 32))
		return x;
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	struct CUgraphExec_st *x;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	/* a launch in progress finishes first: it holds the lock */
	x = exec_get(hGraphExec);
	if (!x)
		return CUDA_ERROR_INVALID_VALUE;
	x->live = 0;
	x->gen++;
	/*
	 * Host calls of launches still queued are read by the host thread
	 * when they run: they stay (a few bytes each) until the process
	 * ends, as the driver keeps a launched graph's resources.
	 */
	if (exec_pending(x))
		x->nhosts = 0;
	exec_clear(x);
	pthread_mutex_lock(&cufab_graph_lock);
	cufab_graph_free_locked(x->graph);
	exec_give_locked(x);
	pthread_mutex_unlock(&cufab_graph_lock);
	pthread_mutex_unlock(&x->lock);
	return CUDA_SUCCESS;
}

/* Hand ents[from..from+n) to the kernel, CUFAB_BATCH_MAX at a time. */
static CUresult launch_batches(struct cufab_lstream *s,
			       struct cufab_stream_submit *ents, size_t n)
{
	struct cufab_stream_batch arg = { .size = sizeof(arg) };
	size_t done = 0, k;
	int ret;

	while (done < n) {
		k = n - done < CUFAB_BATCH_MAX ? n - done : CUFAB_BATCH_MAX;
		arg.stream_id = s->kid;
		arg.count = k;
		arg.ops_ptr = (uintptr_t)&ents[done];
		ret = cufab_ioctl(CUFAB_IOCTL_STREAM_BATCH, &arg);
		if (ret)
			return cufab_submit_result(-ret);
		cufab_atomic_max(&s->last, arg.out_seq);
		done += k;
	}
	return CUDA_SUCCESS;
}

static CUresult launch(CUgraphExec h, CUstream hs, int pt)
{
	struct cufab_stream_submit *ents;
	struct CUgraphExec_st *x;
	struct cufab_lstream *s;
	CUresult res;
	int handled = 0;
	size_t i, n;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(hs, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	x = exec_get(h);
	if (!x)
		return CUDA_ERROR_INVALID_VALUE;
	if (cufab_capture_any()) {
		/* launched into a capture: the graph becomes a child node */
		res = cufab_capture_graph(s, x->graph, &handled);
		if (handled) {
			pthread_mutex_unlock(&x->lock);
			return res;
		}
	}
	ents = &x->ents[1];
	n = x->n;
	if (x->last && (x->last != s || x->last_gen != s->gen) &&
	    __atomic_load_n(&x->last->gen, __ATOMIC_RELAXED) == x->last_gen &&
	    __atomic_load_n(&x->last->live, __ATOMIC_ACQUIRE)) {
		/* behind the previous launch, made on another stream */
		memset(&x->ents[0], 0, sizeof(x->ents[0]));
		x->ents[0].size = sizeof(x->ents[0]);
		x->ents[0].op = CUFAB_OP_STREAM_WAIT;
		x->ents[0].event_id = x->last->kid;
		ents = x->ents;
		n++;
	}
	res = n ? launch_batches(s, ents, n) : CUDA_SUCCESS;
	if (res == CUDA_SUCCESS) {
		for (i = 0; i < x->nrecs; i++)
			cufab_event_recorded(x->recs[i].event, s,
					     x->ents[x->recs[i].idx].out_seq,
					     x->ents[x->recs[i].idx].out_event_seq);
		x->last = s;
		x->last_gen = s->gen;
	}
	pthread_mutex_unlock(&x->lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec,
					    CUstream hStream)
{
	return launch(hGraphExec, hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec,
						 CUstream hStream)
{
	return launch(hGraphExec, hStream, 1);
}

/* Update. */

static int same_devices(const struct CUgraphNode_st *a,
			const struct CUgraphNode_st *b)
{
	size_t i;

	for (i = 0; i < a->nops; i++)
		if (a->ops[i].src_dev != b->ops[i].src_dev ||
		    a->ops[i].dst_dev != b->ops[i].dst_dev)
			return 0;
	return 1;
}

/*
 * Can @to's parameters replace @from's? The topology must be the same:
 * nodes paired in order, each with the same type and the same
 * dependencies; memsets and copies keep their shape and their GPUs.
 */
static CUgraphExecUpdateResult update_check(const struct CUgraph_st *from,
					    const struct CUgraph_st *to,
					    CUgraphNode *err, CUgraphNode *err_from)
{
	CUgraphExecUpdateResult r;
	size_t i, j;

	*err = NULL;
	*err_from = NULL;
	if (from->n != to->n)
		return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	for (i = 0; i < to->n; i++) {
		const struct CUgraphNode_st *a = from->nodes[i], *b = to->nodes[i];

		*err = to->nodes[i];
		if (a->ndeps != b->ndeps)
			return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
		for (j = 0; j < b->ndeps; j++)
			if (node_index(a->deps[j]) != node_index(b->deps[j])) {
				*err_from = b->deps[j];
				return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
			}
		if (a->type != b->type)
			return CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
		if (a->nops != b->nops || !same_devices(a, b))
			return CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
		if (a->type == CU_GRAPH_NODE_TYPE_GRAPH) {
			CUgraphNode e2, f2;

			r = update_check(a->child, b->child, &e2, &f2);
			if (r != CU_GRAPH_EXEC_UPDATE_SUCCESS)
				return CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
		}
	}
	*err = NULL;
	return CU_GRAPH_EXEC_UPDATE_SUCCESS;
}

static CUresult exec_update(CUgraphExec h, CUgraph g,
			    CUgraphExecUpdateResultInfo *info)
{
	struct CUgraph_st *copy, *old;
	struct CUgraphExec_st *x;
	CUresult res;

	res = cufab_call_args(!!info);
	if (res != CUDA_SUCCESS)
		return res;
	x = exec_get(h);
	if (!x)
		return CUDA_ERROR_INVALID_VALUE;
	info->result = CU_GRAPH_EXEC_UPDATE_ERROR;
	info->errorNode = NULL;
	info->errorFromNode = NULL;
	pthread_mutex_lock(&cufab_graph_lock);
	if (!cufab_graph_live_locked(g)) {
		res = CUDA_ERROR_INVALID_VALUE;
		goto out;
	}
	info->result = update_check(x->graph, g, &info->errorNode,
				    &info->errorFromNode);
	if (info->result != CU_GRAPH_EXEC_UPDATE_SUCCESS) {
		res = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
		goto out;
	}
	res = cufab_graph_clone_locked(g, &copy);
	if (res != CUDA_SUCCESS) {
		info->result = CU_GRAPH_EXEC_UPDATE_ERROR;
		goto out;
	}
	old = x->graph;
	/* the host calls of launches still queued stay valid: see destroy */
	if (exec_pending(x))
		x->nhosts = 0;
	exec_clear(x);
	x->graph = copy;
	res = exec_build(x);
	if (res != CUDA_SUCCESS) {
		/* nothing to launch is left: the old graph comes back */
		x->graph = old;
		cufab_graph_free_locked(copy);
		if (exec_build(x) != CUDA_SUCCESS)
			x->n = 0;
		info->result = CU_GRAPH_EXEC_UPDATE_ERROR;
	} else {
		cufab_graph_free_locked(old);
	}
out:
	pthread_mutex_unlock(&cufab_graph_lock);
	pthread_mutex_unlock(&x->lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec,
						   CUgraph hGraph,
						   CUgraphExecUpdateResultInfo *resultInfo)
{
	return exec_update(hGraphExec, hGraph, resultInfo);
}

/* CUDA 10.2: the error node and the result as two outputs. */
CUFAB_EXPORT CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec,
						CUgraph hGraph,
						CUgraphNode *hErrorNode_out,
						CUgraphExecUpdateResult *updateResult_out)
{
	CUgraphExecUpdateResultInfo info;
	CUresult res;

	if (cufab_call_args(hErrorNode_out && updateResult_out) ==
	    CUDA_ERROR_INVALID_VALUE)
		return CUDA_ERROR_INVALID_VALUE;
	res = exec_update(hGraphExec, hGraph, &info);
	if (res == CUDA_SUCCESS || res == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) {
		*hErrorNode_out = info.errorNode;
		*updateResult_out = info.result;
	}
	return res;
}
