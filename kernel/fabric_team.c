// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast teams across nodes (Documentation/multinode.rst, "Teams across
 * nodes"): a multicast object exported as FABRIC on its home node and
 * imported on others, whose devices join from every node.
 *
 * The home node orders the team: its object's team (team.c) holds every
 * member, this node's and the other nodes', and the other nodes join
 * through it (TEAM_JOIN, answered by a TEAM_STATE that echoes the
 * request). An importing node holds an object of its own for the team
 * (cufab_mc_create_span()), whose team mirrors the home's members. Each
 * node owns the bindings of its own members and tells them (TEAM_STATE):
 * an importer to the home node, the home node to every importer. Another
 * node's binding is a window range of that node; here it becomes an
 * allocation over those window pages (cufab_remote_pages), so multimem
 * stores, loads and reductions reach every member's replica wherever it
 * is, and a bind waits for remote members as for local ones.
 *
 * A lost node (NODE_DOWN) breaks every team with a member on it, every
 * incomplete team it imported, and every team whose home it was: their
 * waits, binds and adds fail with -EHOSTDOWN (CUDA_ERROR_SYSTEM_NOT_READY)
 * and its replicas leave the team.
 *
 * The reclaim fence covers replicas (Documentation/multinode.rst
 * "Failure"): a record describes each binding with its window unit's tag
 * (fabric_domain.c), and a replica is made only while its node's bit for
 * the owner is set and the tag is still that; every round (100 ms while
 * this node holds replicas, a second otherwise) the replicas whose tags
 * moved, ranges their node freed, leave every team, and once none of them
 * is left the node's record counts one round more. The owner keeps a
 * freed range until each node let go (fabric_window.c).
 *
 * Layering: multicast.c calls in through struct cufab_mc_span_ops and
 * fabric_remote.c through struct cufab_remote_team_ops, both registered
 * here; this file calls down into both, never the other way.
 *
 * Locking: cufab_team_fabric_lock protects the requests waiting for an
 * answer and serializes imports (one object per team and node); it is
 * never held across a send, a wait or a call into a team.
 * cufab_team_replicas_lock, a spinlock taken last (a replica's release
 * takes it from wherever its last reference goes), protects the list of
 * replicas and their @stale and @pass. Rounds run under genl_mutex, as
 * the records that make replicas do, so no replica is made during one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <linux/cufab.h>
#include <linux/cufab_imex.h>

#include "cufab.h"
#include "fabric.h"

/* how long a join waits for the home node's answer */
#define CUFAB_TEAM_TIMEOUT	(10 * HZ)
/* bindings one TEAM_STATE carries: 32 bytes each, within the 60000 */
#define CUFAB_TEAM_MAX_BINDINGS	1024
/* how often replicas are checked against their tags, holding some or none */
#define CUFAB_TEAM_ROUND_BUSY	(HZ / 10)
#define CUFAB_TEAM_ROUND_IDLE	HZ

/**
 * struct cufab_team_replica - alloc->priv of another node's binding here
 * @imp: where it is (first: cufab_remote_pages reads alloc->priv as it)
 * @link: on cufab_team_replicas while the allocation lives
 * @tag: its unit's tag when its node described it
 * @stale: the tag moved: its node freed the range
 * @pass: the last round that took its bindings out of every team (one
 *	still alive at the next is taken out again: nothing is assumed)
 */
struct cufab_team_replica {
	struct cufab_remote_import imp;
	struct list_head link;
	u32 tag;
	bool stale;
	u64 pass;
};

/* the state of an object imported from its home node (mc->span) */
struct cufab_mc_span {
	unsigned int home;
	u64 id;
	u64 token;
};

/* a join waiting for the home node's answer */
struct cufab_team_req {
	struct completion done;
	bool answered;
	unsigned int home;
	int status;
};

static DEFINE_MUTEX(cufab_team_fabric_lock);
static DEFINE_MUTEX(cufab_team_import_lock);
static DEFINE_XARRAY_ALLOC1(cufab_team_reqs);
/* every live replica of this node; the lock is taken from any context */
static DEFINE_SPINLOCK(cufab_team_replicas_lock);
static LIST_HEAD(cufab_team_replicas);
static bool cufab_team_rounds_live;
/* rounds run so far, under genl_mutex */
static u64 cufab_team_pass;
static void cufab_team_round_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cufab_team_round_work, cufab_team_round_fn);

/* ---- the record ---- */

static size_t cufab_wire_size(u32 nmembers, u32 nbindings)
{
	return sizeof(struct cufab_wire_team) +
	       nmembers * sizeof(struct cufab_wire_member) +
	       nbindings * sizeof(struct cufab_wire_binding);
}

static struct cufab_wire_binding *cufab_wire_bindings(struct cufab_wire_team *w)
{
	return (struct cufab_wire_binding *)&w->members[le16_to_cpu(w->nmembers)];
}

/*
 * Where a binding's memory starts in the window and its unit's tag;
 * false: not there. This node's memory is marked told: other nodes may
 * hold replicas of it from now on (pages_window.c keeps it when freed).
 */
static bool cufab_team_window_of(const struct cufab_binding *b, u64 *off,
				 u32 *tag)
{
	const struct cufab_alloc *alloc = b->alloc;
	const struct cufab_team_replica *rep;

	if (alloc->provider == &cufab_window_pages) {
		cufab_window_alloc_told(alloc);
		*off = cufab_window_alloc_offset(alloc) + b->mem_offset;
		*tag = cufab_domain_tag(*off);
		return true;
	}
	if (alloc->provider != &cufab_remote_pages)
		return false;
	/* another node's: the tag it was made with, never a newer one */
	rep = alloc->priv;
	*off = rep->imp.offset + b->mem_offset;
	*tag = rep->tag;
	return true;
}

/* One member and its bindings into @w. Context: team->lock held. */
static void cufab_team_fill_member(struct cufab_team *team, u32 i,
				   struct cufab_wire_team *w, u32 max_b)
{
	struct cufab_team_member *m = &team->members[i];
	u16 idx = le16_to_cpu(w->nmembers);
	struct cufab_wire_binding *wb;
	struct cufab_gpu_facts f;
	struct cufab_binding *b;
	u64 window;
	u32 tag;

	w->members[idx].node = cpu_to_le16(m->node);
	w->members[idx].gpu = cpu_to_le16(m->gpu);
	w->members[idx].clique = cpu_to_le32(team->clique);
	if (cufab_team_member_local(m) && !cufab_gpu_facts(m->gpu, &f))
		w->members[idx].clique = cpu_to_le32(f.clique);
	w->nmembers = cpu_to_le16(idx + 1);
	for (b = cufab_bindmap_first_from(&m->map, 0); b;
	     b = cufab_bindmap_next(b)) {
		if (le16_to_cpu(w->nbindings) >= max_b) {
			pr_warn_ratelimited("%s: more than %u bindings: the other nodes see the first %u\n",
					    team->name, max_b, max_b);
			return;
		}
		if (!cufab_team_window_of(b, &window, &tag))
			continue;
		/* bindings follow the members: written once these are */
		wb = (struct cufab_wire_binding *)((u8 *)w + sizeof(*w) +
			team->size * sizeof(struct cufab_wire_member)) +
		     le16_to_cpu(w->nbindings);
		wb->member = cpu_to_le16(idx);
		wb->offset = cpu_to_le64(b->offset);
		wb->size = cpu_to_le64(b->size);
		wb->window = cpu_to_le64(window);
		wb->tag = cpu_to_le32(tag);
		le16_add_cpu(&w->nbindings, 1);
	}
}

/*
 * The record of @team: every member (only this node's when @local) and
 * their bindings. Bindings are written after room for team->size members
 * and moved up to follow the members actually written. NULL on -ENOMEM.
 */
struct cufab_wire_team *cufab_team_build(struct cufab_team *team,
					 unsigned int home, u64 id, u16 kind,
					 bool local, size_t *len)
{
	u32 max_b = min_t(u64, cufab_team_bindings(team) + 16,
			  CUFAB_TEAM_MAX_BINDINGS);
	struct cufab_wire_team *w;
	u32 i, nm, nb;

	w = kvzalloc(cufab_wire_size(team->size, max_b), GFP_KERNEL);
	if (!w)
		return NULL;
	w->id = cpu_to_le64(id);
	w->home = cpu_to_le16(home);
	w->kind = cpu_to_le16(kind);
	w->size = cpu_to_le32(team->size);
	mutex_lock(&team->lock);
	w->status = cpu_to_le32(team->broken);
	for (i = 0; i < team->joined; i++)
		if (!local || cufab_team_member_local(&team->members[i]))
			cufab_team_fill_member(team, i, w, max_b);
	mutex_unlock(&team->lock);
	nm = le16_to_cpu(w->nmembers);
	nb = le16_to_cpu(w->nbindings);
	memmove(&w->members[nm], &w->members[team->size],
		nb * sizeof(struct cufab_wire_binding));
	*len = cufab_wire_size(nm, nb);
	return w;
}

/* Is a record from another node whole and sane? */
struct cufab_wire_team *cufab_wire_check(struct genl_info *info,
					 unsigned int *from)
{
	struct cufab_wire_team *w;
	struct cufab_wire_binding *wb;
	size_t len;
	u32 i, nm;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE) ||
	    GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_TEAM))
		return NULL;
	*from = nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]);
	w = nla_data(info->attrs[CUFAB_IMEX_A_TEAM]);
	len = nla_len(info->attrs[CUFAB_IMEX_A_TEAM]);
	if (*from == cufab_node.node_index || *from >= cufab_domain_nodes() ||
	    len < sizeof(*w))
		return NULL;
	nm = le16_to_cpu(w->nmembers);
	if ((le16_to_cpu(w->kind) != CUFAB_WIRE_KIND_MC &&
	     le16_to_cpu(w->kind) != CUFAB_WIRE_KIND_LE) ||
	    nm > CUFAB_MAX_GPUS ||
	    len != cufab_wire_size(nm, le16_to_cpu(w->nbindings)))
		return NULL;
	for (i = 0; i < nm; i++)
		if (le16_to_cpu(w->members[i].node) >= cufab_domain_nodes() ||
		    le16_to_cpu(w->members[i].gpu) >= CUFAB_MAX_GPUS)
			return NULL;
	wb = cufab_wire_bindings(w);
	for (i = 0; i < le16_to_cpu(w->nbindings); i++)
		if (le16_to_cpu(wb[i].member) >= nm)
			return NULL;
	return w;
}

/* ---- another node's replicas ---- */

/* A listed replica goes: its node's range is no longer held. */
static void cufab_team_replica_free(struct cufab_team_replica *rep)
{
	spin_lock(&cufab_team_replicas_lock);
	list_del(&rep->link);
	spin_unlock(&cufab_team_replicas_lock);
	cufab_revoke_replica(rep->imp.node, false);
	kfree(rep);
}

/* The last reference on a replica. */
static void cufab_team_view_release(struct cufab_alloc *alloc)
{
	cufab_team_replica_free(alloc->priv);
}

/*
 * Another node's bound memory, seen where it is in the window: no pages
 * of this node, never a handle, only a binding of a team.
 */
static const struct cufab_alloc_ops cufab_team_view_ops = {
	.name = "team replica of another node",
	.flags = CUFAB_ALLOC_REMOTE,
	.page = cufab_alloc_store_page,
	.release = cufab_team_view_release,
};

/*
 * A replica of @node's range at @window, described with @tag, listed;
 * NULL when the tag moved (the range was freed since: nothing is made of
 * it) or on -ENOMEM. Its node's bit is set before the tag is read: the
 * owner, which moves the tag before it reads the bit, either sees the
 * bit or has its tag seen here (fabric_domain.c).
 */
static struct cufab_team_replica *cufab_team_replica_new(unsigned int node,
							 u64 window, u32 tag)
{
	struct cufab_team_replica *rep;

	rep = kzalloc(sizeof(*rep), GFP_KERNEL_ACCOUNT);
	if (!rep)
		return NULL;
	cufab_revoke_replica(node, true);
	if (cufab_domain_tag(window) != tag) {
		cufab_revoke_replica(node, false);
		kfree(rep);
		pr_debug("node %u's binding at window 0x%llx was freed since it was described: no replica\n",
			 node, window);
		return NULL;
	}
	rep->imp.node = node;
	rep->imp.offset = window;
	/* the exporter's life the replica belongs to (pages_remote.c) */
	rep->imp.generation = cufab_domain_generation(node);
	rep->tag = tag;
	spin_lock(&cufab_team_replicas_lock);
	list_add_tail(&rep->link, &cufab_team_replicas);
	spin_unlock(&cufab_team_replicas_lock);
	return rep;
}

/* A binding of @team for another node's @wb, or NULL (logged). */
static struct cufab_binding *cufab_team_view(struct cufab_team *team,
					     unsigned int node, u32 gpu,
					     const struct cufab_wire_binding *wb)
{
	u64 off = le64_to_cpu(wb->offset), size = le64_to_cpu(wb->size);
	struct cufab_alloc_desc desc = {
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = gpu,
		.length = size,
		.ops = &cufab_team_view_ops,
		.provider = &cufab_remote_pages,
	};
	struct cufab_team_replica *rep;
	struct cufab_binding *b;
	struct cufab_alloc *alloc;

	if (!size || !IS_ALIGNED(off | size, team->align) ||
	    off > team->length || size > team->length - off ||
	    !cufab_window_owns(le64_to_cpu(wb->window), size, node)) {
		pr_warn_ratelimited("%s: node %u gpu %u: binding [0x%llx, +0x%llx) at window 0x%llx is outside the object or the node's slice: ignored\n",
				    team->name, node, gpu, off, size,
				    le64_to_cpu(wb->window));
		return NULL;
	}
	rep = cufab_team_replica_new(node, le64_to_cpu(wb->window),
				     le32_to_cpu(wb->tag));
	if (!rep)
		return NULL;
	desc.priv = &rep->imp;
	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc)) {
		cufab_team_replica_free(rep);
		return NULL;
	}
	/* the replica's owner: a round takes it out of every team by it */
	b = cufab_binding_new(off, size, alloc, 0, rep, NULL);
	cufab_alloc_put(alloc);		/* the binding's, if any, remains */
	return b;
}

/* Member @idx of @w (another node's) gets exactly the bindings @w lists. */
void cufab_team_apply_bindings(struct cufab_team *team,
			       struct cufab_wire_team *w, u32 idx)
{
	struct cufab_wire_binding *wb = cufab_wire_bindings(w);
	unsigned int node = le16_to_cpu(w->members[idx].node);
	u32 gpu = le16_to_cpu(w->members[idx].gpu), i;
	struct cufab_binding *b;
	LIST_HEAD(fresh);
	LIST_HEAD(old);

	for (i = 0; i < le16_to_cpu(w->nbindings); i++) {
		if (le16_to_cpu(wb[i].member) != idx)
			continue;
		b = cufab_team_view(team, node, gpu, &wb[i]);
		if (b)
			list_add_tail(&b->list, &fresh);
	}
	cufab_team_replace_bindings(team, node, gpu, &fresh, &old);
	/* overlapping ones stayed on @fresh */
	cufab_bindings_free(&fresh);
	cufab_bindings_free(&old);
}

/* ---- sending ---- */

/**
 * cufab_team_tell() - TEAM_STATE of a team this node is the home of
 * @team: the team, of a multicast object or a logical endpoint
 * @id: its id on this node
 * @kind: CUFAB_WIRE_KIND_*
 * @nodes: the nodes to tell (those that imported it); @to is added
 * @skip: a node not to tell, or -1
 * @to: the node whose request @req_id this answers, with @status, or -1
 * @req_id: @to's request
 * @status: the answer to @to's request
 */
void cufab_team_tell(struct cufab_team *team, u64 id, u16 kind,
		     unsigned long *nodes, int skip, int to, u64 req_id,
		     int status)
{
	struct cufab_wire_team *w;
	unsigned int node;
	size_t len;

	if (to >= 0)
		__set_bit(to, nodes);
	if (bitmap_empty(nodes, CUFAB_MAX_NODES))
		return;
	w = cufab_team_build(team, cufab_node.node_index, id, kind, false,
			     &len);
	if (!w)
		return;
	for_each_set_bit(node, nodes, CUFAB_MAX_NODES) {
		if (node == skip)
			continue;
		w->req_id = cpu_to_le64(node == to ? req_id : 0);
		if (node == to && status)
			w->status = cpu_to_le32(status);
		if (cufab_remote_forward(CUFAB_IMEX_CMD_TEAM_STATE, node, w, len))
			pr_info_ratelimited("%s: node %u could not be told the team's state (no cufab-imexd)\n",
					    team->name, node);
		w->status = cpu_to_le32(READ_ONCE(team->broken));
	}
	kvfree(w);
}

/* TEAM_STATE of @mc (this node is its home) to every importer but @skip. */
static void cufab_team_broadcast(struct cufab_mc *mc, int skip, int to,
				 u64 req_id, int status)
{
	unsigned long *nodes = bitmap_zalloc(CUFAB_MAX_NODES, GFP_KERNEL);

	if (!nodes)
		return;
	cufab_remote_importers(mc->alloc, nodes);
	cufab_team_tell(mc->team, mc->alloc->id, CUFAB_WIRE_KIND_MC, nodes,
			skip, to, req_id, status);
	bitmap_free(nodes);
}

/**
 * cufab_team_report() - this node's members and bindings, to the home
 * @team: the team of an object this node imported
 * @home: the node the object is from
 * @id: its id there
 * @kind: CUFAB_WIRE_KIND_*
 */
void cufab_team_report(struct cufab_team *team, unsigned int home, u64 id,
		       u16 kind)
{
	struct cufab_wire_team *w;
	size_t len;

	w = cufab_team_build(team, home, id, kind, true, &len);
	if (!w)
		return;
	if (cufab_remote_forward(CUFAB_IMEX_CMD_TEAM_STATE, home, w, len))
		pr_info_ratelimited("%s: home node %u could not be told this node's bindings (no cufab-imexd)\n",
				    team->name, home);
	kvfree(w);
}

/*
 * Send @w (a JOIN) to the team's @home node and wait for its answer.
 * 0 or the home's refusal; -EHOSTDOWN without a daemon or when the home
 * node is lost; -ETIMEDOUT; -EINTR on a fatal signal.
 */
int cufab_team_ask(unsigned int home, struct cufab_wire_team *w, size_t len)
{
	struct cufab_team_req req = { .home = home };
	u32 id;
	int ret;

	init_completion(&req.done);
	mutex_lock(&cufab_team_fabric_lock);
	ret = xa_alloc(&cufab_team_reqs, &id, &req, xa_limit_32b, GFP_KERNEL);
	mutex_unlock(&cufab_team_fabric_lock);
	if (ret)
		return ret;
	w->req_id = cpu_to_le64(id);
	ret = cufab_remote_forward(CUFAB_IMEX_CMD_TEAM_JOIN, home, w, len);
	if (!ret &&
	    !wait_for_completion_killable_timeout(&req.done,
						  CUFAB_TEAM_TIMEOUT))
		ret = -ETIMEDOUT;
	mutex_lock(&cufab_team_fabric_lock);
	xa_erase(&cufab_team_reqs, id);
	if (req.answered)
		ret = req.status;
	else if (!ret)
		ret = -EINTR;
	mutex_unlock(&cufab_team_fabric_lock);
	return ret;
}

/* Answer request @id of this node, if it still waits. */
void cufab_team_answer(u64 id, unsigned int home, int status)
{
	struct cufab_team_req *req;

	mutex_lock(&cufab_team_fabric_lock);
	req = id <= U32_MAX ? xa_load(&cufab_team_reqs, id) : NULL;
	if (req && !req->answered && req->home == home) {
		req->status = status;
		req->answered = true;
		complete(&req->done);
	}
	mutex_unlock(&cufab_team_fabric_lock);
}

/**
 * cufab_team_join_home() - add a device of this node to an imported team
 * @team: the team of an object this node imported
 * @home: the node the object is from, which orders the joins
 * @id: its id there
 * @kind: CUFAB_WIRE_KIND_*
 * @gpu: the device
 * @who: the call adding it
 *
 * Return: 0, the home's refusal, or what cufab_team_ask() returns.
 */
int cufab_team_join_home(struct cufab_team *team, unsigned int home, u64 id,
			 u16 kind, u32 gpu, const struct cufab_team_who *who)
{
	struct {
		struct cufab_wire_team w;
		struct cufab_wire_member m;
	} __packed rec = {
		.w.id = cpu_to_le64(id),
		.w.home = cpu_to_le16(home),
		.w.kind = cpu_to_le16(kind),
		.w.nmembers = cpu_to_le16(1),
		.w.size = cpu_to_le32(team->size),
		.m.node = cpu_to_le16(cufab_node.node_index),
		.m.gpu = cpu_to_le16(gpu),
	};
	struct cufab_gpu_facts f;
	int ret;

	if (cufab_gpu_facts(gpu, &f))
		return -ENODEV;
	if (READ_ONCE(team->broken))
		return team->broken;
	rec.m.clique = cpu_to_le32(f.clique);
	ret = cufab_team_ask(home, &rec.w, sizeof(rec));
	if (ret && ret != -EEXIST && ret != -ENOSPC)
		pr_info_ratelimited("pid %d (%s): %s: %s: gpu %u: home node %u answered %d\n",
				    pid_nr(who->client->tgid), who->client->comm,
				    who->call, team->name, gpu, home, ret);
	return ret;
}

/* ---- multicast.c's hooks ---- */

static int cufab_team_join(struct cufab_mc *mc, u32 gpu,
			   const struct cufab_team_who *who)
{
	struct cufab_mc_span *span = mc->span;

	return cufab_team_join_home(mc->team, span->home, span->id,
				    CUFAB_WIRE_KIND_MC, gpu, who);
}

static void cufab_team_changed(struct cufab_mc *mc)
{
	struct cufab_mc_span *span = mc->span;

	if (span)
		cufab_team_report(mc->team, span->home, span->id,
				  CUFAB_WIRE_KIND_MC);
	else
		cufab_team_broadcast(mc, -1, -1, 0, 0);
}

static void cufab_team_release(struct cufab_mc *mc)
{
	struct cufab_mc_span *span = mc->span;

	cufab_remote_release_send(span->home, span->token);
	kfree(span);
}

static const struct cufab_mc_span_ops cufab_team_mc_ops = {
	.add_device = cufab_team_join,
	.changed = cufab_team_changed,
	.release = cufab_team_release,
};

/* ---- fabric_remote.c's hooks ---- */

struct cufab_team_find {
	unsigned int home;
	u64 id;
	struct cufab_mc *found;
};

static int cufab_team_find_one(struct cufab_mc *mc, void *arg)
{
	struct cufab_team_find *f = arg;
	struct cufab_mc_span *span = mc->span;

	if (!span || span->home != f->home || span->id != f->id)
		return 0;
	cufab_alloc_get(mc->alloc);
	f->found = mc;
	return 1;
}

/* This node's object for team @id of @home, referenced, or NULL. */
static struct cufab_mc *cufab_team_find(unsigned int home, u64 id)
{
	struct cufab_team_find f = { .home = home, .id = id };

	cufab_mc_for_each(0, cufab_team_find_one, &f);
	return f.found;
}

/* A new object for the team, synchronized with its home node. */
static struct cufab_alloc *cufab_team_import_new(unsigned int home, u64 id,
						 u64 token, u64 length,
						 u32 devices)
{
	struct cufab_wire_team sync = {
		.id = cpu_to_le64(id),
		.home = cpu_to_le16(home),
		.kind = cpu_to_le16(CUFAB_WIRE_KIND_MC),
		.size = cpu_to_le32(devices),
	};
	struct cufab_mc_span *span;
	struct cufab_alloc *alloc;
	int ret;

	span = kzalloc(sizeof(*span), GFP_KERNEL_ACCOUNT);
	if (!span)
		return ERR_PTR(-ENOMEM);
	span->home = home;
	span->id = id;
	alloc = cufab_mc_create_span(length, devices, span);
	if (IS_ERR(alloc)) {
		kfree(span);
		return alloc;
	}
	/* a JOIN of no member: the answer brings the team as it is */
	ret = cufab_team_ask(span->home, &sync, sizeof(sync));
	if (ret) {
		pr_info_ratelimited("multicast %llu of node %u: its home did not tell the team: %d\n",
				    id, home, ret);
		/* the caller releases the token: no release of our own */
		cufab_alloc_mc(alloc)->span = NULL;
		cufab_alloc_put(alloc);
		kfree(span);
		return ERR_PTR(ret);
	}
	span->token = token;
	return alloc;
}

static struct cufab_alloc *cufab_team_import(unsigned int home, u64 id,
					     u64 token, u64 length, u32 devices)
{
	struct cufab_alloc *alloc;
	struct cufab_mc *mc;

	if (!devices || devices > CUFAB_MAX_GPUS || !length) {
		pr_warn("node %u answered an import of multicast %llu with %u devices of %llu bytes\n",
			home, id, devices, length);
		return ERR_PTR(-EPROTO);
	}
	/* one object per team and node: a second import shares it */
	mutex_lock(&cufab_team_import_lock);
	mc = cufab_team_find(home, id);
	if (mc) {
		alloc = mc->alloc;
		cufab_remote_release_send(home, token);
	} else {
		alloc = cufab_team_import_new(home, id, token, length, devices);
	}
	mutex_unlock(&cufab_team_import_lock);
	return alloc;
}

struct cufab_team_down {
	unsigned int node;
	unsigned long *importers;
};

/* @mc's team after the loss of d->node. */
static int cufab_team_node_down_one(struct cufab_mc *mc, void *arg)
{
	struct cufab_team_down *d = arg;
	struct cufab_mc_span *span = mc->span;
	struct cufab_team *team = mc->team;
	bool lost;
	LIST_HEAD(old);

	if (!(mc->alloc->handle_types & CUFAB_HANDLE_FABRIC))
		return 0;
	if (span) {
		lost = span->home == d->node || cufab_team_spans(team, d->node);
	} else {
		bitmap_zero(d->importers, CUFAB_MAX_NODES);
		cufab_remote_importers(mc->alloc, d->importers);
		lost = cufab_team_spans(team, d->node) ||
		       (test_bit(d->node, d->importers) &&
			!cufab_team_complete(team));
	}
	if (!lost)
		return 0;
	pr_info("%s: node %u is lost: the team is broken, waits and binds fail with -EHOSTDOWN\n",
		team->name, d->node);
	cufab_team_break(team, -EHOSTDOWN);
	cufab_team_drop_node(team, d->node, &old);
	cufab_bindings_free(&old);
	if (!span)
		cufab_team_broadcast(mc, d->node, -1, 0, 0);
	return 0;
}

static void cufab_team_node_down(unsigned int node)
{
	struct cufab_team_down d = { .node = node };
	struct cufab_team_req *req;
	unsigned long id;

	mutex_lock(&cufab_team_fabric_lock);
	xa_for_each(&cufab_team_reqs, id, req) {
		if (req->home != node || req->answered)
			continue;
		req->status = -EHOSTDOWN;
		req->answered = true;
		complete(&req->done);
	}
	mutex_unlock(&cufab_team_fabric_lock);
	d.importers = bitmap_zalloc(CUFAB_MAX_NODES, GFP_KERNEL);
	if (!d.importers)
		return;
	cufab_mc_for_each(0, cufab_team_node_down_one, &d);
	bitmap_free(d.importers);
}

static const struct cufab_remote_team_ops cufab_team_remote_ops = {
	.import_mc = cufab_team_import,
	.node_down = cufab_team_node_down,
};

/* ---- from the daemon ---- */

/* records of endpoint teams go to fabric_le.c; set at load, cleared at unload */
static const struct cufab_team_le_ops *cufab_team_le;

void cufab_team_set_le_ops(const struct cufab_team_le_ops *ops)
{
	WRITE_ONCE(cufab_team_le, ops);
}

/* A record of an endpoint team while this node shares none: refused. */
static int cufab_team_no_le(struct genl_info *info)
{
	NL_SET_ERR_MSG(info->extack,
		       "a record of an endpoint team: this node shares no endpoint team");
	return -EOPNOTSUPP;
}

/* Home: member @m of node @from asks to join @team. */
int cufab_team_join_member(struct cufab_team *team, unsigned int from,
			   const struct cufab_wire_member *m)
{
	if (le16_to_cpu(m->node) != from)
		return -EPERM;
	return cufab_team_add_remote(team, from, le16_to_cpu(m->gpu),
				     (s32)le32_to_cpu(m->clique));
}

/* Home: node @from asked to join a team it has not imported: -ENOENT. */
void cufab_team_refuse_join(struct cufab_wire_team *w, unsigned int from,
			    const char *what)
{
	pr_warn_ratelimited("node %u asked to join %s %llu, which it has not imported\n",
			    from, what, le64_to_cpu(w->id));
	w->nmembers = 0;
	w->nbindings = 0;
	w->status = cpu_to_le32(-ENOENT);
	cufab_remote_forward(CUFAB_IMEX_CMD_TEAM_STATE, from, w, sizeof(*w));
}

int cufab_imex_team_join_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct cufab_wire_team *w;
	struct cufab_alloc *alloc;
	unsigned int from;
	struct cufab_mc *mc;
	int status = 0;

	w = cufab_wire_check(info, &from);
	if (w && le16_to_cpu(w->kind) == CUFAB_WIRE_KIND_LE) {
		const struct cufab_team_le_ops *ops = READ_ONCE(cufab_team_le);

		return ops ? ops->join(w, from, info) : cufab_team_no_le(info);
	}
	if (!w || le16_to_cpu(w->home) != cufab_node.node_index ||
	    le16_to_cpu(w->nmembers) > 1) {
		NL_SET_ERR_MSG(info->extack, "not a TEAM_JOIN for this node");
		return -EINVAL;
	}
	alloc = cufab_remote_imported_by(from, le64_to_cpu(w->id));
	mc = alloc ? cufab_alloc_mc(alloc) : NULL;
	if (!mc) {
		if (alloc)
			cufab_alloc_put(alloc);
		cufab_team_refuse_join(w, from, "multicast");
		return 0;
	}
	if (w->nmembers)
		status = cufab_team_join_member(mc->team, from,
						&w->members[0]);
	cufab_team_broadcast(mc, -1, from, le64_to_cpu(w->req_id), status);
	cufab_alloc_put(alloc);
	return 0;
}

/* Home: the bindings of node @from's members in @w. */
void cufab_team_apply_from(struct cufab_team *team, struct cufab_wire_team *w,
			   unsigned int from)
{
	u32 i;

	for (i = 0; i < le16_to_cpu(w->nmembers); i++)
		if (le16_to_cpu(w->members[i].node) == from)
			cufab_team_apply_bindings(team, w, i);
}

/* Home: node @from's members and their bindings, passed on to the others. */
static void cufab_team_from_importer(struct cufab_wire_team *w,
				     unsigned int from)
{
	struct cufab_alloc *alloc;
	struct cufab_mc *mc;

	alloc = cufab_remote_imported_by(from, le64_to_cpu(w->id));
	mc = alloc ? cufab_alloc_mc(alloc) : NULL;
	if (!mc) {
		if (alloc)
			cufab_alloc_put(alloc);
		return;
	}
	cufab_team_apply_from(mc->team, w, from);
	cufab_team_broadcast(mc, from, -1, 0, 0);
	cufab_alloc_put(alloc);
}

/* Importer: one member of the home's record. */
void cufab_team_apply_member(struct cufab_team *team,
			     const struct cufab_wire_member *m)
{
	u16 node = le16_to_cpu(m->node);
	u32 gpu = le16_to_cpu(m->gpu);

	if (cufab_team_has_member(team, node, gpu))
		return;
	if (node == cufab_node.node_index)
		cufab_team_add_device(team, gpu, NULL);
	else
		cufab_team_add_remote(team, node, gpu,
				      (s32)le32_to_cpu(m->clique));
}

/*
 * Importer: the home's record of @team, members first, then the others'
 * bindings; a break the home tells of unasked (no request) breaks it here.
 */
void cufab_team_apply_home(struct cufab_team *team, struct cufab_wire_team *w)
{
	int status = (s32)le32_to_cpu(w->status);
	u32 i;

	for (i = 0; i < le16_to_cpu(w->nmembers); i++)
		cufab_team_apply_member(team, &w->members[i]);
	for (i = 0; i < le16_to_cpu(w->nmembers); i++)
		if (le16_to_cpu(w->members[i].node) != cufab_node.node_index)
			cufab_team_apply_bindings(team, w, i);
	if (!w->req_id && status < 0)
		cufab_team_break(team, status);
}

static void cufab_team_from_home(struct cufab_wire_team *w, unsigned int from)
{
	int status = (s32)le32_to_cpu(w->status);
	u64 req_id = le64_to_cpu(w->req_id);
	struct cufab_mc *mc;

	mc = cufab_team_find(from, le64_to_cpu(w->id));
	if (mc) {
		cufab_team_apply_home(mc->team, w);
		cufab_alloc_put(mc->alloc);
	}
	if (req_id)
		cufab_team_answer(req_id, from, status);
}

int cufab_imex_team_state_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct cufab_wire_team *w;
	unsigned int from, home;

	w = cufab_wire_check(info, &from);
	if (!w) {
		NL_SET_ERR_MSG(info->extack, "not a well-formed TEAM_STATE");
		return -EINVAL;
	}
	if (le16_to_cpu(w->kind) == CUFAB_WIRE_KIND_LE) {
		const struct cufab_team_le_ops *ops = READ_ONCE(cufab_team_le);

		return ops ? ops->state(w, from, info) : cufab_team_no_le(info);
	}
	home = le16_to_cpu(w->home);
	if (home == cufab_node.node_index)
		cufab_team_from_importer(w, from);
	else if (home == from)
		cufab_team_from_home(w, from);
	else
		return -EINVAL;
	return 0;
}

/* ---- rounds: replicas of ranges their node freed leave ---- */

static int cufab_team_unbind_replica_mc(struct cufab_mc *mc, void *owner)
{
	cufab_team_unbind_owner(mc->team, owner, NULL);
	return 0;
}

/*
 * Mark the replicas whose tags moved; the next one not yet taken out of
 * the teams, as an owner to compare (it may be freed meanwhile: no new
 * replica is made while genl_mutex is held, so no other takes its
 * address), or NULL. *@left: whether a stale one still lives.
 */
static const void *cufab_team_next_stale(bool *left)
{
	struct cufab_team_replica *rep;
	const void *owner = NULL;

	*left = false;
	spin_lock(&cufab_team_replicas_lock);
	list_for_each_entry(rep, &cufab_team_replicas, link) {
		if (!rep->stale &&
		    cufab_domain_tag(rep->imp.offset) != rep->tag)
			rep->stale = true;
		if (!rep->stale)
			continue;
		*left = true;
		if (rep->pass != cufab_team_pass && !owner) {
			rep->pass = cufab_team_pass;
			owner = rep;
		}
	}
	spin_unlock(&cufab_team_replicas_lock);
	return owner;
}

/*
 * One round: every replica whose tag moved leaves every team (multicast
 * here, endpoints through fabric_le.c); once none of them lives (a
 * multimem operation holds one for a piece at most), the record counts
 * the round. Under genl_mutex, as the records that make replicas.
 */
static bool cufab_team_round(void)
{
	const struct cufab_team_le_ops *le;
	const void *owner;
	bool left, any;

	/* pairs with the barrier of the node that moved a tag (retag) */
	smp_mb();
	cufab_team_pass++;
	while ((owner = cufab_team_next_stale(&left))) {
		cufab_mc_for_each(0, cufab_team_unbind_replica_mc,
				  (void *)owner);
		le = READ_ONCE(cufab_team_le);
		if (le)
			le->unbind_replica(owner);
	}
	cufab_team_next_stale(&left);
	if (!left)
		cufab_domain_round_done();
	spin_lock(&cufab_team_replicas_lock);
	any = !list_empty(&cufab_team_replicas);
	spin_unlock(&cufab_team_replicas_lock);
	return any;
}

static void cufab_team_round_fn(struct work_struct *work)
{
	bool busy;

	genl_lock();
	busy = cufab_team_round();
	genl_unlock();
	if (READ_ONCE(cufab_team_rounds_live))
		schedule_delayed_work(&cufab_team_round_work,
				      busy ? CUFAB_TEAM_ROUND_BUSY :
				      CUFAB_TEAM_ROUND_IDLE);
}

/* ---- load, unload ---- */

/* Only a node with a window shares teams: a node alone changes nothing. */
void cufab_team_fabric_init(void)
{
	if (!cufab_window_present())
		return;
	cufab_remote_set_team_ops(&cufab_team_remote_ops);
	cufab_mc_set_span_ops(&cufab_team_mc_ops);
	WRITE_ONCE(cufab_team_rounds_live, true);
	schedule_delayed_work(&cufab_team_round_work, CUFAB_TEAM_ROUND_IDLE);
}

/* After cufab_remote_exit(): no client, no import, no request is left. */
void cufab_team_fabric_exit(void)
{
	WRITE_ONCE(cufab_team_rounds_live, false);
	cancel_delayed_work_sync(&cufab_team_round_work);
	cufab_mc_set_span_ops(NULL);
	cufab_remote_set_team_ops(NULL);
	WARN_ON(!xa_empty(&cufab_team_reqs));
	xa_destroy(&cufab_team_reqs);
}
