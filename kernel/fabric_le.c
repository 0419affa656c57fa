// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoint teams across nodes (Documentation/multinode.rst, "Endpoint
 * teams across nodes"): a logical endpoint exported as FABRIC on its home
 * node and imported on others, whose devices join from every node.
 *
 * The design is the multicast one (fabric_team.c), whose record, join
 * requests and answers this file shares (CUFAB_WIRE_KIND_LE): the home
 * node's endpoint team holds every member, and the other nodes join
 * through it (TEAM_JOIN, answered by a TEAM_STATE that echoes the
 * request). An importing node holds an endpoint of its own for the team
 * (cufab_le_create_span()), whose team mirrors the home's members; every
 * alias a process of that node imports names it. Each node owns the
 * bindings of its own members and tells them (TEAM_STATE): an importer to
 * the home node, the home node to every importer. Another node's binding
 * is a range of that node's window slice; here it is an allocation over
 * those window pages (fabric_team.c's team replica), so the team's
 * bindings name every member's memory wherever it is.
 *
 * The home keeps a reference on its endpoint for each import of another
 * node, named by a token with CUFAB_LE_TOKEN_BIT set (apart from memory's
 * tokens, fabric_remote.c), until that node's RELEASE, its loss or the
 * module's unload.
 *
 * A lost node (NODE_DOWN) breaks every team with a member on it, every
 * incomplete team it imported, and every team whose home it was:
 * cuLogicalEndpointQuery, AddDevice and binds fail with -EHOSTDOWN
 * (CUDA_ERROR_SYSTEM_NOT_READY) and its bindings leave the team.
 *
 * Layering: le.c, le_bind.c and le_share.c call in through struct
 * cufab_le_span_ops, fabric_remote.c through struct cufab_remote_le_ops
 * and fabric_team.c (records of endpoint teams) through struct
 * cufab_team_le_ops, all registered here; this file calls down into them
 * and into fabric_team.c's record, never the other way.
 *
 * Locking: cufab_le_fabric_lock protects the tokens and the list of
 * imported endpoints; it is never held across a send, a wait, a call into
 * a team or an endpoint's put. cufab_le_import_lock serializes imports
 * (one endpoint per team and node).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <linux/cufab.h>
#include <linux/cufab_imex.h>

#include "cufab.h"
#include "fabric.h"

/* the flags an answer carries below the bind alignment (4 KiB at least) */
#define CUFAB_LE_WIRE_FLAGS	(SZ_4K - 1)

/* home: one import of an endpoint by another node */
struct cufab_le_ref {
	struct cufab_le *le;	/* one reference */
	unsigned int node;
};

/* importer: le->span, an endpoint of another node's team */
struct cufab_le_span {
	struct list_head link;
	struct cufab_le *le;	/* weak: valid while on cufab_le_spans */
	unsigned int home;
	u64 id;
	u64 token;
};

static DEFINE_MUTEX(cufab_le_fabric_lock);
static DEFINE_MUTEX(cufab_le_import_lock);
static DEFINE_XARRAY_ALLOC1(cufab_le_refs);
/* cyclic, as memory's: a late RELEASE never names a newer import */
static u32 cufab_le_next_ref;
static LIST_HEAD(cufab_le_spans);

/* ---- home: the imports of other nodes ---- */

/* Set the bit of every node that imported @le. */
static void cufab_le_importers(struct cufab_le *le, unsigned long *nodes)
{
	struct cufab_le_ref *ref;
	unsigned long i;

	mutex_lock(&cufab_le_fabric_lock);
	xa_for_each(&cufab_le_refs, i, ref)
		if (ref->le == le)
			__set_bit(ref->node, nodes);
	mutex_unlock(&cufab_le_fabric_lock);
}

/* The endpoint numbered @id that @node imported, referenced, or NULL. */
static struct cufab_le *cufab_le_imported_by(unsigned int node, u64 id)
{
	struct cufab_le *le = NULL;
	struct cufab_le_ref *ref;
	unsigned long i;

	mutex_lock(&cufab_le_fabric_lock);
	xa_for_each(&cufab_le_refs, i, ref) {
		if (ref->node == node && ref->le->number == id) {
			le = ref->le;
			cufab_le_get(le);
			break;
		}
	}
	mutex_unlock(&cufab_le_fabric_lock);
	return le;
}

/* TEAM_STATE of @le (this node is its home) to every importer but @skip. */
static void cufab_le_broadcast(struct cufab_le *le, int skip, int to,
			       u64 req_id, int status)
{
	unsigned long *nodes = bitmap_zalloc(CUFAB_MAX_NODES, GFP_KERNEL);

	if (!nodes)
		return;
	cufab_le_importers(le, nodes);
	cufab_team_tell(le->team, le->number, CUFAB_WIRE_KIND_LE, nodes, skip,
			to, req_id, status);
	bitmap_free(nodes);
}

/* The team of @le can no longer complete or work: @node is lost. */
static void cufab_le_lost(struct cufab_le *le, unsigned int node, bool home)
{
	LIST_HEAD(old);

	pr_info("%s: node %u is lost: the team is broken, queries, adds and binds fail with -EHOSTDOWN\n",
		le->team->name, node);
	cufab_team_break(le->team, -EHOSTDOWN);
	cufab_team_drop_node(le->team, node, &old);
	cufab_bindings_free(&old);
	if (home)
		cufab_le_broadcast(le, node, -1, 0, 0);
}

/* Does @node still hold an import of @le? */
static bool cufab_le_held_by(struct cufab_le *le, unsigned int node)
{
	struct cufab_le_ref *ref;
	unsigned long i;

	lockdep_assert_held(&cufab_le_fabric_lock);
	xa_for_each(&cufab_le_refs, i, ref)
		if (ref->le == le && ref->node == node)
			return true;
	return false;
}

/*
 * An import ended (@ref is out of the table). Once its node holds no
 * other, what that node bound leaves the team: the memory is its, and it
 * may free it now.
 */
static void cufab_le_ref_free(struct cufab_le_ref *ref)
{
	struct cufab_le *le = ref->le;
	LIST_HEAD(old);
	bool last;

	mutex_lock(&cufab_le_fabric_lock);
	last = !cufab_le_held_by(le, ref->node);
	mutex_unlock(&cufab_le_fabric_lock);
	if (last && cufab_team_drop_node(le->team, ref->node, &old)) {
		cufab_bindings_free(&old);
		cufab_le_broadcast(le, ref->node, -1, 0, 0);
	}
	cufab_le_put(le);
	kfree(ref);
}

/* The first import @node holds (any node: -1), out of the table. */
static struct cufab_le_ref *cufab_le_ref_take(int node)
{
	struct cufab_le_ref *ref;
	unsigned long i;

	mutex_lock(&cufab_le_fabric_lock);
	xa_for_each(&cufab_le_refs, i, ref) {
		if (node < 0 || ref->node == node) {
			xa_erase(&cufab_le_refs, i);
			mutex_unlock(&cufab_le_fabric_lock);
			return ref;
		}
	}
	mutex_unlock(&cufab_le_fabric_lock);
	return NULL;
}

/* ---- fabric_remote.c's hooks ---- */

/* EXPORT_GET: check as a local import does, and name the endpoint. */
static int cufab_le_export(const u8 *handle, u32 channel, u32 node,
			   struct cufab_remote_answer *ans)
{
	struct cufab_le_ref *ref;
	struct cufab_le *le;
	int theirs, ret;
	u32 id;

	le = cufab_le_fabric_lookup(handle, &theirs);
	if (IS_ERR(le)) {
		pr_warn_ratelimited("node %u: endpoint FABRIC handle names no live endpoint of this node (forged, or every alias destroyed)\n",
				    node);
		return PTR_ERR(le);
	}
	if (theirs != channel) {
		pr_warn_ratelimited("node %u: import of endpoint %llu refused: it was exported on IMEX channel %d, the importer has channel %u\n",
				    node, le->number, theirs, channel);
		ret = -EPERM;
		goto err;
	}
	if (le->span) {
		pr_warn_ratelimited("node %u: import of endpoint %llu refused: this node imported it; its home node exports it\n",
				    node, le->number);
		ret = -EOPNOTSUPP;
		goto err;
	}
	ret = -ENOMEM;
	ref = kzalloc(sizeof(*ref), GFP_KERNEL_ACCOUNT);
	if (!ref)
		goto err;
	ref->le = le;
	ref->node = node;
	mutex_lock(&cufab_le_fabric_lock);
	ret = xa_alloc_cyclic(&cufab_le_refs, &id, ref, xa_limit_32b,
			      &cufab_le_next_ref, GFP_KERNEL_ACCOUNT);
	mutex_unlock(&cufab_le_fabric_lock);
	if (ret < 0) {
		kfree(ref);
		goto err;
	}
	ans->offset = le->align | (le->le_flags & CUFAB_LE_WIRE_FLAGS);
	ans->length = le->length;
	ans->token = CUFAB_LE_TOKEN_BIT | id;
	ans->dev = le->owner_dev;
	ans->kind = le->type == CUFAB_LE_TYPE_UNICAST ?
		    CUFAB_IMEX_KIND_LE_UNICAST : CUFAB_IMEX_KIND_LE_MULTICAST;
	ans->devices = le->team->size;
	ans->id = le->number;
	return 0;
err:
	cufab_le_put(le);
	return ret;
}

/* EXPORT_PUT of an endpoint's token: a node gives back what it got. */
static int cufab_le_ref_put(u32 node, u64 token)
{
	u64 id = token & ~CUFAB_LE_TOKEN_BIT;
	struct cufab_le_ref *ref = NULL;

	if (!(token & CUFAB_LE_TOKEN_BIT) || id > U32_MAX)
		return -ENOENT;
	mutex_lock(&cufab_le_fabric_lock);
	ref = xa_load(&cufab_le_refs, id);
	if (ref && ref->node == node)
		xa_erase(&cufab_le_refs, id);
	else
		ref = NULL;
	mutex_unlock(&cufab_le_fabric_lock);
	if (!ref)
		return -ENOENT;
	cufab_le_ref_free(ref);
	return 0;
}

struct cufab_le_spans_of {
	struct cufab_le **les;
	unsigned int n, max;
};

/*
 * Room in @s for every endpoint this node imported (@refs: and one per
 * import others made of this node's); false: none, or no memory.
 */
static bool cufab_le_spans_alloc(struct cufab_le_spans_of *s, bool refs)
{
	struct cufab_le_span *span;
	struct cufab_le_ref *ref;
	unsigned long i;
	size_t count = 0;

	mutex_lock(&cufab_le_fabric_lock);
	if (refs)
		xa_for_each(&cufab_le_refs, i, ref)
			count++;
	list_for_each_entry(span, &cufab_le_spans, link)
		count++;
	mutex_unlock(&cufab_le_fabric_lock);
	if (!count)
		return false;
	s->max = count;
	s->les = kcalloc(count, sizeof(*s->les), GFP_KERNEL);
	return s->les;
}

/* Referenced endpoints of other nodes' teams that @node's loss breaks. */
static void cufab_le_spans_lost(unsigned int node, struct cufab_le_spans_of *s)
{
	struct cufab_le_span *span;

	mutex_lock(&cufab_le_fabric_lock);
	list_for_each_entry(span, &cufab_le_spans, link) {
		if (s->n == s->max)
			break;
		if ((span->home == node || cufab_team_spans(span->le->team, node)) &&
		    kref_get_unless_zero(&span->le->ref))
			s->les[s->n++] = span->le;
	}
	mutex_unlock(&cufab_le_fabric_lock);
}

static void cufab_le_node_down(unsigned int node)
{
	struct cufab_le_spans_of s = {};
	struct cufab_le_ref *ref;
	struct cufab_le *le;
	unsigned int i;

	/* home: its imports end; the teams it was part of, or awaited, break */
	while ((ref = cufab_le_ref_take(node))) {
		le = ref->le;
		if (cufab_team_spans(le->team, node) ||
		    !cufab_team_complete(le->team))
			cufab_le_lost(le, node, true);
		cufab_le_ref_free(ref);
	}
	/* importer: the teams whose home it was, or with a member on it */
	if (!cufab_le_spans_alloc(&s, false))
		return;
	cufab_le_spans_lost(node, &s);
	for (i = 0; i < s.n; i++) {
		cufab_le_lost(s.les[i], node, false);
		cufab_le_put(s.les[i]);
	}
	kfree(s.les);
}

static const struct cufab_remote_le_ops cufab_le_remote_ops = {
	.export = cufab_le_export,
	.put = cufab_le_ref_put,
	.node_down = cufab_le_node_down,
};

/* ---- importer: this node's endpoint of another node's team ---- */

/* This node's endpoint for team @id of @home, referenced, or NULL. */
static struct cufab_le *cufab_le_span_find(unsigned int home, u64 id)
{
	struct cufab_le_span *span;
	struct cufab_le *le = NULL;

	mutex_lock(&cufab_le_fabric_lock);
	list_for_each_entry(span, &cufab_le_spans, link) {
		if (span->home == home && span->id == id &&
		    kref_get_unless_zero(&span->le->ref)) {
			le = span->le;
			break;
		}
	}
	mutex_unlock(&cufab_le_fabric_lock);
	return le;
}

/* A new endpoint for the team, synchronized with its home node. */
static struct cufab_le *cufab_le_import_new(unsigned int home,
					    const struct cufab_remote_answer *a)
{
	struct cufab_wire_team sync = {
		.id = cpu_to_le64(a->id),
		.home = cpu_to_le16(home),
		.kind = cpu_to_le16(CUFAB_WIRE_KIND_LE),
		.size = cpu_to_le32(a->devices),
	};
	u32 type = a->kind == CUFAB_IMEX_KIND_LE_UNICAST ?
		   CUFAB_LE_TYPE_UNICAST : CUFAB_LE_TYPE_MULTICAST;
	struct cufab_le_span *span;
	struct cufab_le *le;
	int ret;

	span = kzalloc(sizeof(*span), GFP_KERNEL_ACCOUNT);
	if (!span)
		return ERR_PTR(-ENOMEM);
	span->home = home;
	span->id = a->id;
	le = cufab_le_create_span(type, a->dev, a->length,
				  a->offset & ~(u64)CUFAB_LE_WIRE_FLAGS,
				  a->offset & CUFAB_LE_WIRE_FLAGS, a->devices,
				  span);
	if (IS_ERR(le)) {
		kfree(span);
		return le;
	}
	span->le = le;
	mutex_lock(&cufab_le_fabric_lock);
	list_add_tail(&span->link, &cufab_le_spans);
	mutex_unlock(&cufab_le_fabric_lock);
	/* a JOIN of no member: the answer brings the team as it is */
	ret = cufab_team_ask(home, &sync, sizeof(sync));
	if (ret) {
		pr_info_ratelimited("endpoint %llu of node %u: its home did not tell the team: %d\n",
				    a->id, home, ret);
		/* the caller releases the token: no release of our own */
		cufab_le_put(le);
		return ERR_PTR(ret);
	}
	span->token = a->token;
	return le;
}

/* Is another node's answer an endpoint this node can hold? */
static bool cufab_le_answer_ok(unsigned int home,
			       const struct cufab_remote_answer *a)
{
	u64 align = a->offset & ~(u64)CUFAB_LE_WIRE_FLAGS;

	if ((a->kind == CUFAB_IMEX_KIND_LE_UNICAST ||
	     a->kind == CUFAB_IMEX_KIND_LE_MULTICAST) &&
	    a->devices && a->devices <= CUFAB_MAX_GPUS &&
	    (a->kind == CUFAB_IMEX_KIND_LE_MULTICAST || a->devices == 1) &&
	    is_power_of_2(align) && a->length && IS_ALIGNED(a->length, align))
		return true;
	pr_warn("node %u answered an import of endpoint %llu with kind %u, %u devices, %llu bytes, alignment and flags 0x%llx\n",
		home, a->id, a->kind, a->devices, a->length, a->offset);
	return false;
}

static struct cufab_le *cufab_le_import(struct cufab_client *client,
					const u8 *handle, unsigned int node)
{
	struct cufab_remote_answer a = {};
	struct cufab_le *le;
	int ret;

	ret = cufab_remote_resolve(client, handle, node, &a);
	if (ret)
		return ERR_PTR(ret);
	if (!cufab_le_answer_ok(node, &a)) {
		cufab_remote_release_send(node, a.token);
		return ERR_PTR(-EPROTO);
	}
	/* one endpoint per team and node: a second import shares it */
	mutex_lock(&cufab_le_import_lock);
	le = cufab_le_span_find(node, a.id);
	if (le)
		cufab_remote_release_send(node, a.token);
	else
		le = cufab_le_import_new(node, &a);
	mutex_unlock(&cufab_le_import_lock);
	if (IS_ERR(le))
		cufab_remote_release_send(node, a.token);
	return le;
}

/* AddDevice of an imported endpoint: the home node orders the joins. */
static int cufab_le_join(struct cufab_le *le, u32 gpu,
			 const struct cufab_team_who *who)
{
	struct cufab_le_span *span = le->span;
	int ret;

	ret = cufab_team_join_home(le->team, span->home, span->id,
				   CUFAB_WIRE_KIND_LE, gpu, who);
	if (!ret)
		WRITE_ONCE(le->ready_at, cufab_le_deadline());
	return ret;
}

static void cufab_le_changed_hook(struct cufab_le *le)
{
	struct cufab_le_span *span = le->span;

	if (span)
		cufab_team_report(le->team, span->home, span->id,
				  CUFAB_WIRE_KIND_LE);
	else
		cufab_le_broadcast(le, -1, -1, 0, 0);
}

/* The final put of an imported endpoint: the home hears of it. */
static void cufab_le_release_hook(struct cufab_le *le)
{
	struct cufab_le_span *span = le->span;

	mutex_lock(&cufab_le_fabric_lock);
	list_del(&span->link);
	mutex_unlock(&cufab_le_fabric_lock);
	/* 0: the import failed, and its caller releases the token */
	if (span->token)
		cufab_remote_release_send(span->home, span->token);
	kfree(span);
}

static const struct cufab_le_span_ops cufab_le_fabric_span_ops = {
	.import = cufab_le_import,
	.add_device = cufab_le_join,
	.changed = cufab_le_changed_hook,
	.release = cufab_le_release_hook,
};

/* ---- from the daemon (fabric_team.c hands over CUFAB_WIRE_KIND_LE) ---- */

/* Home: member @m of node @from asks to join @le. */
static int cufab_le_join_member(struct cufab_le *le, unsigned int from,
				const struct cufab_wire_member *m)
{
	int ret;

	/* a unicast endpoint's team is its owner alone */
	if (le->type != CUFAB_LE_TYPE_MULTICAST)
		return le16_to_cpu(m->node) != from ? -EPERM : -EINVAL;
	ret = cufab_team_join_member(le->team, from, m);
	/* construction restarts with every device that joins */
	if (!ret)
		WRITE_ONCE(le->ready_at, cufab_le_deadline());
	return ret;
}

static int cufab_le_fabric_join(struct cufab_wire_team *w, unsigned int from,
				struct genl_info *info)
{
	struct cufab_le *le;
	int status = 0;

	if (le16_to_cpu(w->home) != cufab_node.node_index ||
	    le16_to_cpu(w->nmembers) > 1) {
		NL_SET_ERR_MSG(info->extack, "not a TEAM_JOIN for this node");
		return -EINVAL;
	}
	le = cufab_le_imported_by(from, le64_to_cpu(w->id));
	if (!le) {
		cufab_team_refuse_join(w, from, "endpoint");
		return 0;
	}
	if (w->nmembers)
		status = cufab_le_join_member(le, from, &w->members[0]);
	cufab_le_broadcast(le, -1, from, le64_to_cpu(w->req_id), status);
	cufab_le_put(le);
	return 0;
}

/* Home: node @from's members and their bindings, passed on to the others. */
static void cufab_le_from_importer(struct cufab_wire_team *w,
				   unsigned int from)
{
	struct cufab_le *le;

	le = cufab_le_imported_by(from, le64_to_cpu(w->id));
	if (!le)
		return;
	cufab_team_apply_from(le->team, w, from);
	cufab_le_broadcast(le, from, -1, 0, 0);
	cufab_le_put(le);
}

/* Importer: the home's team, members first. */
static void cufab_le_from_home(struct cufab_wire_team *w, unsigned int from)
{
	int status = (s32)le32_to_cpu(w->status);
	u64 req_id = le64_to_cpu(w->req_id);
	struct cufab_le *le;

	le = cufab_le_span_find(from, le64_to_cpu(w->id));
	if (le) {
		cufab_team_apply_home(le->team, w);
		cufab_le_put(le);
	}
	if (req_id)
		cufab_team_answer(req_id, from, status);
}

static int cufab_le_fabric_state(struct cufab_wire_team *w,
				 unsigned int from, struct genl_info *info)
{
	unsigned int home = le16_to_cpu(w->home);

	if (home == cufab_node.node_index) {
		cufab_le_from_importer(w, from);
	} else if (home == from) {
		cufab_le_from_home(w, from);
	} else {
		NL_SET_ERR_MSG(info->extack,
			       "TEAM_STATE neither from nor for the team's home");
		return -EINVAL;
	}
	return 0;
}

/*
 * A replica whose range its node freed leaves every endpoint team: the
 * endpoints this node is the home of (an import of them is listed) and
 * those it imported. Under genl_mutex (fabric_team.c's round).
 */
static void cufab_le_unbind_replica(const void *owner)
{
	struct cufab_le_spans_of s = {};
	struct cufab_le_span *span;
	struct cufab_le_ref *ref;
	unsigned long i;

	if (!cufab_le_spans_alloc(&s, true))
		return;
	mutex_lock(&cufab_le_fabric_lock);
	xa_for_each(&cufab_le_refs, i, ref)
		if (s.n < s.max && kref_get_unless_zero(&ref->le->ref))
			s.les[s.n++] = ref->le;
	list_for_each_entry(span, &cufab_le_spans, link)
		if (s.n < s.max && kref_get_unless_zero(&span->le->ref))
			s.les[s.n++] = span->le;
	mutex_unlock(&cufab_le_fabric_lock);
	for (i = 0; i < s.n; i++) {
		cufab_team_unbind_owner(s.les[i]->team, owner, NULL);
		cufab_le_put(s.les[i]);
	}
	kfree(s.les);
}

/* ---- load, unload ---- */

static const struct cufab_team_le_ops cufab_le_team_ops = {
	.join = cufab_le_fabric_join,
	.state = cufab_le_fabric_state,
	.unbind_replica = cufab_le_unbind_replica,
};

/* Only a node with a window shares teams: a node alone changes nothing. */
void cufab_le_fabric_init(void)
{
	if (!cufab_window_present())
		return;
	cufab_team_set_le_ops(&cufab_le_team_ops);
	cufab_remote_set_le_ops(&cufab_le_remote_ops);
	cufab_le_set_span_ops(&cufab_le_fabric_span_ops);
}

/*
 * After cufab_remote_exit(): no client is left, so no imported endpoint;
 * what other nodes imported of this node's is dropped (the module goes).
 */
void cufab_le_fabric_exit(void)
{
	struct cufab_le_ref *ref;

	cufab_le_set_span_ops(NULL);
	cufab_remote_set_le_ops(NULL);
	cufab_team_set_le_ops(NULL);
	while ((ref = cufab_le_ref_take(-1))) {
		cufab_le_put(ref->le);
		kfree(ref);
	}
	WARN_ON(!list_empty(&cufab_le_spans));
	xa_destroy(&cufab_le_refs);
}
