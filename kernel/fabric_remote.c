// SPDX-License-Identifier: GPL-2.0
/*
 * FABRIC imports across nodes (Documentation/multinode.rst), through the
 * node's daemon cufab-imexd and the generic netlink family "cufab_imex"
 * (include/uapi/linux/cufab_imex.h).
 *
 * Importing side: a FABRIC handle whose node is not this one goes to the
 * daemon as a RESOLVE request; the importer sleeps until the answer
 * (RESOLVED), the daemon's death, or a timeout. The answer names where the
 * exporter's allocation sits in the fabric window; the import is a
 * cufab_remote_alloc_ops allocation whose page provider hands out those
 * window pages, so
 * CPU loads and stores, copies and dma-bufs see the exporter's memory. Its
 * final put tells the exporter (RELEASE) that this import let go.
 *
 * Exporting side: EXPORT_GET checks the handle and the importer's IMEX
 * channel exactly as a local import does, and keeps a reference on the
 * allocation for the remote importer, named by a token, until EXPORT_PUT,
 * NODE_DOWN for that node, or module unload: the window pages live while
 * any node may still map them.
 *
 * Without a registered daemon, an import of another node's handle fails
 * with -EHOSTDOWN (CUDA_ERROR_SYSTEM_NOT_READY, as with IMEX down).
 *
 * Failure: NODE_DOWN (the node is lost and cleaned up) and REVOKE (its
 * exports ended) revoke this node's imports of that node's memory
 * (fabric_revoke.c) before anything of it is dropped here.
 *
 * Locking: cufab_remote_lock protects the daemon's port id, the pending
 * requests, the unsent releases and the remote references; it is never held across a send or
 * an allocation's put. The family is not parallel_ops: genl_mutex
 * serialises the handlers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <linux/cufab.h>
#include <linux/cufab_imex.h>

#include "cufab.h"
#include "fabric.h"

/* how long an import waits for the other node's answer */
#define CUFAB_REMOTE_TIMEOUT	(10 * HZ)

static DEFINE_MUTEX(cufab_remote_lock);
/* the registered daemon's netlink port, 0 while none */
static u32 cufab_imexd_portid;
static DEFINE_XARRAY_ALLOC1(cufab_remote_reqs);
static DEFINE_XARRAY_ALLOC1(cufab_remote_refs);
/*
 * Tokens are handed out cyclically: a RELEASE of a token the exporter
 * dropped when it cleaned up a node (delivered late, after the node came
 * back) must not name a newer import.
 */
static u32 cufab_remote_next_token;

/**
 * struct cufab_remote_req - an import waiting for the exporter's answer
 * @done: completed by RESOLVED, or by the daemon's or the node's end
 * @answered: set with @done, under cufab_remote_lock (a wait consumes
 *	@done, so completion_done() cannot tell afterwards)
 * @node: the exporting node
 * @status: 0 or a negative errno, valid once @answered
 * @ans: what the exporter answered, valid once @answered with @status 0
 */
struct cufab_remote_req {
	struct completion done;
	bool answered;
	unsigned int node;
	int status;
	struct cufab_remote_answer ans;
};

/*
 * exporting side: one import of one of this node's allocations; @fenced:
 * its node was cleaned up, the reference goes once that node let go of
 * the memory (fabric_fence.c)
 */
struct cufab_remote_ref {
	struct cufab_alloc *alloc;
	unsigned int node;
	bool fenced;
};

static struct genl_family cufab_imex_family;

/* Fail every request waiting for @node (every node: -1). */
static void cufab_remote_fail_reqs(int node)
{
	struct cufab_remote_req *req;
	unsigned long id;

	lockdep_assert_held(&cufab_remote_lock);
	xa_for_each(&cufab_remote_reqs, id, req) {
		if ((node >= 0 && req->node != node) || req->answered)
			continue;
		req->status = -EHOSTDOWN;
		req->answered = true;
		complete(&req->done);
	}
}

/* A message of @cmd for the daemon, or NULL. */
static struct sk_buff *cufab_remote_msg(u8 cmd, void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &cufab_imex_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Finish and send @msg to the daemon at @portid (consumes @msg). */
static int cufab_remote_send(struct sk_buff *msg, void *hdr, u32 portid)
{
	genlmsg_end(msg, hdr);
	return genlmsg_unicast(&init_net, msg, portid) ? -EHOSTDOWN : 0;
}

/* ---- importing side ---- */

/*
 * Releases no daemon took: the exporter keeps the memory until it hears
 * of them, so they wait here for the next daemon (cufab_remote_flush()).
 */
static LIST_HEAD(cufab_remote_unsent);

struct cufab_remote_unsent {
	struct list_head node;
	unsigned int peer;
	u64 token;
};

/* RELEASE of import @token of @node to the daemon at @portid; 0 or -errno. */
static int cufab_remote_release_msg(u32 portid, unsigned int node, u64 token)
{
	struct sk_buff *msg;
	void *hdr;

	msg = cufab_remote_msg(CUFAB_IMEX_CMD_RELEASE, &hdr);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, CUFAB_IMEX_A_NODE, node) ||
	    nla_put_u64_64bit(msg, CUFAB_IMEX_A_TOKEN, token,
			      CUFAB_IMEX_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return cufab_remote_send(msg, hdr, portid);
}

static void cufab_remote_unsent_add(struct cufab_remote_unsent *u)
{
	lockdep_assert_held(&cufab_remote_lock);
	list_add_tail(&u->node, &cufab_remote_unsent);
}

/* Tell the exporter that import @token of its memory let go. */
void cufab_remote_release_send(unsigned int node, u64 token)
{
	struct cufab_remote_unsent *u;
	u32 portid;

	/*
	 * Without memory to keep it, the release is lost: the exporter keeps
	 * the memory until it learns this node is down (safe, not freed).
	 */
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return;
	u->peer = node;
	u->token = token;
	mutex_lock(&cufab_remote_lock);
	portid = cufab_imexd_portid;
	if (!portid)
		cufab_remote_unsent_add(u);
	mutex_unlock(&cufab_remote_lock);
	if (!portid)
		return;
	if (!cufab_remote_release_msg(portid, node, token)) {
		kfree(u);
		return;
	}
	mutex_lock(&cufab_remote_lock);
	cufab_remote_unsent_add(u);
	mutex_unlock(&cufab_remote_lock);
}

/*
 * Teams across nodes (fabric_team.c): what a multicast object's import
 * becomes, and what a lost node ends. Set at load, cleared at unload.
 */
static const struct cufab_remote_team_ops *cufab_remote_team;

void cufab_remote_set_team_ops(const struct cufab_remote_team_ops *ops)
{
	WRITE_ONCE(cufab_remote_team, ops);
}

/**
 * cufab_remote_forward() - a team message for another node's kernel
 * @cmd: CUFAB_IMEX_CMD_TEAM_JOIN or CUFAB_IMEX_CMD_TEAM_STATE
 * @node: the node it is for
 * @blob: the message, which the daemons carry as it is
 * @len: its bytes
 *
 * Return: 0 once the daemon has it, -EHOSTDOWN without a daemon, -ENOMEM.
 */
int cufab_remote_forward(u8 cmd, unsigned int node, const void *blob,
			 size_t len)
{
	struct sk_buff *msg;
	u32 portid;
	void *hdr;

	mutex_lock(&cufab_remote_lock);
	portid = cufab_imexd_portid;
	mutex_unlock(&cufab_remote_lock);
	if (!portid)
		return -EHOSTDOWN;
	msg = genlmsg_new(nla_total_size(len) + nla_total_size(4),
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &cufab_imex_family, 0, cmd);
	if (!hdr || nla_put_u32(msg, CUFAB_IMEX_A_NODE, node) ||
	    nla_put(msg, CUFAB_IMEX_A_TEAM, len, blob)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return cufab_remote_send(msg, hdr, portid);
}

/* A daemon registered at @portid: the releases that waited for one. */
static void cufab_remote_flush(u32 portid)
{
	struct cufab_remote_unsent *u, *tmp;
	LIST_HEAD(todo);

	mutex_lock(&cufab_remote_lock);
	list_splice_init(&cufab_remote_unsent, &todo);
	mutex_unlock(&cufab_remote_lock);
	list_for_each_entry_safe(u, tmp, &todo, node) {
		if (cufab_remote_release_msg(portid, u->peer, u->token))
			continue;
		list_del(&u->node);
		kfree(u);
	}
	mutex_lock(&cufab_remote_lock);
	list_splice(&todo, &cufab_remote_unsent);
	mutex_unlock(&cufab_remote_lock);
}

/*
 * The exporter hears of the final put only once no copy holds a page of
 * the import, and not at all when the import was revoked (its RELEASE
 * went then) or its node was lost.
 */
static void cufab_remote_alloc_release(struct cufab_alloc *alloc)
{
	struct cufab_remote_import *imp = alloc->priv;

	if (cufab_revoke_untrack(imp))
		cufab_remote_release_send(imp->node, imp->token);
	kfree(imp);
}

/* The store's page, none once revoked (copies: CUDA_ERROR_ILLEGAL_STATE). */
static struct page *cufab_remote_page(struct cufab_alloc *alloc,
				      pgoff_t index)
{
	int ret = cufab_remote_revoked_err(alloc, "copy or set");

	return ret ? ERR_PTR(ret) : cufab_alloc_store_page(alloc, index);
}

static int cufab_remote_map_prepare(struct cufab_alloc *alloc, u64 addr,
				    u64 length, u64 offset)
{
	return cufab_remote_revoked_err(alloc, "cuMemMap") ?:
	       cufab_alloc_map_check(alloc, addr, length, offset);
}

/*
 * Another node's memory, mapped where it lives: no pages of this node,
 * not bindable to teams (teams across nodes are not built), never
 * exported again; revoked when its node goes (fabric_revoke.c).
 */
static const struct cufab_alloc_ops cufab_remote_alloc_ops = {
	.name = "FABRIC import of another node",
	.flags = CUFAB_ALLOC_REMOTE,
	.page = cufab_remote_page,
	.map_prepare = cufab_remote_map_prepare,
	.release = cufab_remote_alloc_release,
	.cpu_fault = cufab_remote_cpu_fault,
};

/* Ask the daemon for @handle of @node; fills @req. */
static int cufab_remote_ask(struct cufab_remote_req *req, const u8 *handle,
			    int channel)
{
	struct sk_buff *msg;
	u32 id, portid;
	void *hdr;
	int ret;

	mutex_lock(&cufab_remote_lock);
	portid = cufab_imexd_portid;
	ret = portid ? xa_alloc(&cufab_remote_reqs, &id, req, xa_limit_32b,
				GFP_KERNEL) : -EHOSTDOWN;
	mutex_unlock(&cufab_remote_lock);
	if (ret)
		return ret;

	msg = cufab_remote_msg(CUFAB_IMEX_CMD_RESOLVE, &hdr);
	if (!msg) {
		ret = -ENOMEM;
	} else if (nla_put_u64_64bit(msg, CUFAB_IMEX_A_REQ_ID, id,
				     CUFAB_IMEX_A_PAD) ||
		   nla_put_u32(msg, CUFAB_IMEX_A_NODE, req->node) ||
		   nla_put(msg, CUFAB_IMEX_A_HANDLE, CUFAB_FABRIC_HANDLE_LEN,
			   handle) ||
		   nla_put_u32(msg, CUFAB_IMEX_A_CHANNEL, channel)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
	} else {
		ret = cufab_remote_send(msg, hdr, portid);
	}
	if (!ret &&
	    !wait_for_completion_killable_timeout(&req->done,
						  CUFAB_REMOTE_TIMEOUT))
		ret = -ETIMEDOUT;

	mutex_lock(&cufab_remote_lock);
	xa_erase(&cufab_remote_reqs, id);
	/* an answer that came before the erase counts, even past a signal */
	if (req->answered)
		ret = req->status;
	else if (!ret)
		ret = -EINTR;
	mutex_unlock(&cufab_remote_lock);
	return ret;
}

static struct cufab_alloc *cufab_remote_alloc(struct cufab_remote_req *req,
					      const u8 *handle, u32 gen)
{
	struct cufab_alloc_desc desc = {
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = req->ans.dev,
		.length = req->ans.length,
		.ops = &cufab_remote_alloc_ops,
		.provider = &cufab_remote_pages,
	};
	struct cufab_remote_import *imp;
	struct cufab_fabric_handle h;
	struct cufab_alloc *alloc;

	imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);
	if (!imp) {
		cufab_remote_release_send(req->node, req->ans.token);
		return ERR_PTR(-ENOMEM);
	}
	imp->node = req->node;
	imp->offset = req->ans.offset;
	imp->token = req->ans.token;
	INIT_LIST_HEAD(&imp->link);
	/* the handle was well-formed to be sent: its id is at most 32 bits */
	memcpy(&h, handle, sizeof(h));
	imp->export_id = le64_to_cpu(h.export_id);
	/* the exporter's life this import belongs to (pages_remote.c) */
	imp->generation = cufab_domain_generation(req->node);
	desc.priv = imp;
	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc)) {
		kfree(imp);
		cufab_remote_release_send(req->node, req->ans.token);
		return alloc;
	}
	imp->alloc = alloc;
	if (cufab_revoke_track(imp, gen)) {
		pr_info("import of export %u of node %u: revoked while it was answered\n",
			imp->export_id, req->node);
		/* the final put releases the token */
		cufab_alloc_put(alloc);
		return ERR_PTR(-EHOSTDOWN);
	}
	return alloc;
}

/* A multicast object of another node: this node's part of its team. */
static struct cufab_alloc *cufab_remote_import_team(struct cufab_remote_req *req)
{
	const struct cufab_remote_team_ops *ops = READ_ONCE(cufab_remote_team);
	struct cufab_alloc *alloc = ERR_PTR(-EOPNOTSUPP);

	if (ops)
		alloc = ops->import_mc(req->node, req->ans.id, req->ans.token,
				       req->ans.length, req->ans.devices);
	if (IS_ERR(alloc))
		cufab_remote_release_send(req->node, req->ans.token);
	return alloc;
}

/**
 * cufab_remote_import() - import another node's FABRIC export
 * @client: the importer, its IMEX channel already checked
 * @handle: the 64-byte handle
 * @node: the node that exported it (not this one)
 *
 * Return: an allocation with one reference, whose pages are the
 * exporter's in the fabric window; ERR_PTR(-EINVAL) for a node outside
 * the domain; -EHOSTDOWN without a daemon, a window, or with the exporter
 * unreachable; -ETIMEDOUT when it does not
 * answer in time; whatever the exporter's checks say (-EINVAL for a handle
 * that names nothing, -EPERM for another IMEX channel).
 */
/* What the exporter answers becomes the import; its request is in flight. */
static struct cufab_alloc *cufab_remote_import_asked(struct cufab_client *client,
						     const u8 *handle,
						     unsigned int node, u32 gen)
{
	struct cufab_remote_req req = { .node = node };
	int ret;

	init_completion(&req.done);
	ret = cufab_remote_ask(&req, handle, cufab_imex_channel(client));
	if (ret) {
		pr_warn_ratelimited("pid %d (%s): FABRIC import from node %u failed: %d%s\n",
				    pid_nr(client->tgid), client->comm, node,
				    ret, ret == -EHOSTDOWN ?
				    " (cufab-imexd not running, or node unreachable)" : "");
		return ERR_PTR(ret);
	}
	if (req.ans.kind == CUFAB_IMEX_KIND_MULTICAST)
		return cufab_remote_import_team(&req);
	if (req.ans.kind != CUFAB_IMEX_KIND_MEMORY) {
		pr_warn("node %u answered an import with an unknown kind %u\n",
			node, req.ans.kind);
		cufab_remote_release_send(node, req.ans.token);
		return ERR_PTR(-EPROTO);
	}
	if (!cufab_window_owns(req.ans.offset, req.ans.length, node)) {
		pr_warn("node %u answered an import with [%llu, +%llu), outside its window slice\n",
			node, req.ans.offset, req.ans.length);
		cufab_remote_release_send(node, req.ans.token);
		return ERR_PTR(-EPROTO);
	}
	return cufab_remote_alloc(&req, handle, gen);
}

struct cufab_alloc *cufab_remote_import(struct cufab_client *client,
					const u8 *handle, unsigned int node)
{
	struct cufab_alloc *alloc;
	u32 gen;

	/* a node outside the domain produced nothing: a forged handle */
	if (node >= cufab_domain_nodes()) {
		pr_warn_ratelimited("pid %d (%s): FABRIC handle of node %u: the domain has %u nodes (num_nodes)\n",
				    pid_nr(client->tgid), client->comm, node,
				    cufab_domain_nodes());
		return ERR_PTR(-EINVAL);
	}
	if (!cufab_window_present()) {
		pr_warn_ratelimited("pid %d (%s): FABRIC handle of node %u: this node has no fabric window to reach it\n",
				    pid_nr(client->tgid), client->comm, node);
		return ERR_PTR(-EHOSTDOWN);
	}
	/* the exporter must not reclaim what it answers on the way (the fence) */
	gen = cufab_revoke_ask(node);
	alloc = cufab_remote_import_asked(client, handle, node, gen);
	cufab_revoke_asked(node);
	return alloc;
}

/**
 * cufab_remote_resolve() - ask another node what one of its handles names
 * @client: the importer, its IMEX channel already checked
 * @handle: the 64-byte handle
 * @node: the node that exported it (not this one)
 * @ans: out, the exporter's answer; its token is the caller's to release
 *
 * For handles other than memory's (fabric_le.c): the exporter checks the
 * handle and the channel as for memory. Return: 0; -EINVAL for a node
 * outside the domain; -EHOSTDOWN without a daemon or a window, or with the
 * exporter unreachable; -ETIMEDOUT; -EINTR; the exporter's refusal.
 */
int cufab_remote_resolve(struct cufab_client *client, const u8 *handle,
			 unsigned int node, struct cufab_remote_answer *ans)
{
	struct cufab_remote_req req = { .node = node };
	int ret;

	if (node >= cufab_domain_nodes())
		return -EINVAL;
	if (!cufab_window_present())
		return -EHOSTDOWN;
	init_completion(&req.done);
	ret = cufab_remote_ask(&req, handle, cufab_imex_channel(client));
	if (ret)
		return ret;
	*ans = req.ans;
	return 0;
}

/* ---- exporting side ---- */

/*
 * Endpoint teams across nodes (fabric_le.c): what an endpoint's handle
 * exports, and what a lost node ends. Set at load, cleared at unload.
 */
static const struct cufab_remote_le_ops *cufab_remote_le;

void cufab_remote_set_le_ops(const struct cufab_remote_le_ops *ops)
{
	WRITE_ONCE(cufab_remote_le, ops);
}

/* Is @handle an endpoint's (whichever node made it)? */
static bool cufab_remote_is_le(const u8 *handle)
{
	unsigned int node;

	return !cufab_fabric_handle_node(CUFAB_FABRIC_LE_MAGIC, handle, &node);
}

/* EXPORT_GET of an endpoint: fabric_le.c checks and names it. */
static int cufab_remote_export_le(const u8 *handle, u32 channel, u32 node,
				  struct cufab_remote_answer *ans)
{
	const struct cufab_remote_le_ops *ops = READ_ONCE(cufab_remote_le);

	if (!ops) {
		pr_warn_ratelimited("node %u: import of an endpoint refused: this node has no fabric window\n",
				    node);
		return -EOPNOTSUPP;
	}
	return ops->export(handle, channel, node, ans);
}

static int cufab_remote_put_answer(struct sk_buff *msg,
				   const struct cufab_remote_answer *ans)
{
	return nla_put_u64_64bit(msg, CUFAB_IMEX_A_OFFSET, ans->offset,
				 CUFAB_IMEX_A_PAD) ||
	       nla_put_u64_64bit(msg, CUFAB_IMEX_A_LENGTH, ans->length,
				 CUFAB_IMEX_A_PAD) ||
	       nla_put_u64_64bit(msg, CUFAB_IMEX_A_TOKEN, ans->token,
				 CUFAB_IMEX_A_PAD) ||
	       nla_put_u32(msg, CUFAB_IMEX_A_DEV, ans->dev) ||
	       nla_put_u32(msg, CUFAB_IMEX_A_KIND, ans->kind) ||
	       nla_put_u32(msg, CUFAB_IMEX_A_DEVICES, ans->devices) ||
	       nla_put_u64_64bit(msg, CUFAB_IMEX_A_ID, ans->id,
				 CUFAB_IMEX_A_PAD) ? -EMSGSIZE : 0;
}

/* EXPORT_GET's reply for an endpoint's handle. */
static int cufab_imex_export_le(struct genl_info *info, const u8 *handle,
				u32 channel, u32 node)
{
	const struct cufab_remote_le_ops *ops;
	struct cufab_remote_answer ans = {};
	struct sk_buff *msg;
	void *hdr;
	int status;

	status = cufab_remote_export_le(handle, channel, node, &ans);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto err;
	hdr = genlmsg_put_reply(msg, info, &cufab_imex_family, 0,
				CUFAB_IMEX_CMD_EXPORT_GET);
	if (!hdr || nla_put_s32(msg, CUFAB_IMEX_A_STATUS, status) ||
	    (!status && cufab_remote_put_answer(msg, &ans))) {
		nlmsg_free(msg);
		goto err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	ops = READ_ONCE(cufab_remote_le);
	if (!status && ops)
		ops->put(node, ans.token);
	return -ENOMEM;
}

static void cufab_remote_ref_drop(unsigned long token)
{
	struct cufab_remote_ref *ref;

	mutex_lock(&cufab_remote_lock);
	ref = xa_erase(&cufab_remote_refs, token);
	mutex_unlock(&cufab_remote_lock);
	if (ref) {
		cufab_alloc_put(ref->alloc);
		kfree(ref);
	}
}

/* The exporter's checks of an import from @node; 0 or a negative errno. */
static int cufab_remote_export_check(struct cufab_alloc *alloc, int theirs,
				     u32 channel, u32 node)
{
	if (theirs != channel) {
		pr_warn_ratelimited("node %u: import of allocation %llu refused: it was exported on IMEX channel %d, the importer has channel %u\n",
				    node, alloc->id, theirs, channel);
		return -EPERM;
	}
	/* a multicast object has no pages: its team spans the nodes */
	if (cufab_alloc_mc(alloc) && cufab_alloc_mc(alloc)->span) {
		pr_warn_ratelimited("node %u: import of multicast %llu refused: this node imported it; its home node exports it\n",
				    node, alloc->id);
		return -EOPNOTSUPP;
	}
	if (cufab_alloc_mc(alloc) && READ_ONCE(cufab_remote_team))
		return 0;
	if (alloc->provider != &cufab_window_pages) {
		pr_warn_ratelimited("node %u: import of allocation %llu refused: its pages are not in the fabric window (%s)\n",
				    node, alloc->id,
				    alloc->provider ? alloc->provider->name : "none");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* EXPORT_GET: the importer's reference and where the memory is. */
static int cufab_remote_export(const u8 *handle, u32 channel, u32 node,
			       struct cufab_remote_ref **out, u32 *token)
{
	struct cufab_remote_ref *ref;
	struct cufab_alloc *alloc;
	int theirs, ret;

	alloc = cufab_fabric_import(handle, &theirs);
	if (IS_ERR(alloc)) {
		pr_warn_ratelimited("node %u: FABRIC handle names no live allocation of this node (forged, or freed)\n",
				    node);
		return PTR_ERR(alloc);
	}
	ret = cufab_remote_export_check(alloc, theirs, channel, node);
	if (ret)
		goto err;
	ret = -ENOMEM;
	ref = kzalloc(sizeof(*ref), GFP_KERNEL_ACCOUNT);
	if (!ref)
		goto err;
	ref->alloc = alloc;
	ref->node = node;
	mutex_lock(&cufab_remote_lock);
	ret = xa_alloc_cyclic(&cufab_remote_refs, token, ref, xa_limit_32b,
			      &cufab_remote_next_token, GFP_KERNEL_ACCOUNT);
	mutex_unlock(&cufab_remote_lock);
	if (ret < 0) {
		kfree(ref);
		goto err;
	}
	*out = ref;
	return 0;
err:
	cufab_alloc_put(alloc);
	return ret;
}

/* EXPORT_GET of a multicast object: its size, team size and name. */
static int cufab_remote_put_mc(struct sk_buff *msg, struct cufab_alloc *alloc,
			       u32 token)
{
	return nla_put_u64_64bit(msg, CUFAB_IMEX_A_OFFSET, 0,
				 CUFAB_IMEX_A_PAD) ||
	       nla_put_u64_64bit(msg, CUFAB_IMEX_A_LENGTH, alloc->length,
				 CUFAB_IMEX_A_PAD) ||
	       nla_put_u64_64bit(msg, CUFAB_IMEX_A_TOKEN, token,
				 CUFAB_IMEX_A_PAD) ||
	       nla_put_u32(msg, CUFAB_IMEX_A_DEV, 0) ||
	       nla_put_u32(msg, CUFAB_IMEX_A_KIND, CUFAB_IMEX_KIND_MULTICAST) ||
	       nla_put_u32(msg, CUFAB_IMEX_A_DEVICES,
			   cufab_alloc_mc(alloc)->team->size) ||
	       nla_put_u64_64bit(msg, CUFAB_IMEX_A_ID, alloc->id,
				 CUFAB_IMEX_A_PAD) ? -EMSGSIZE : 0;
}

/**
 * cufab_remote_imported_by() - an allocation @node imported, by its id
 * @node: the importing node
 * @id: the allocation's id on this node
 *
 * Return: the allocation with a reference, or NULL when @node holds no
 * import of it (a node speaks only of what it imported).
 */
struct cufab_alloc *cufab_remote_imported_by(unsigned int node, u64 id)
{
	struct cufab_remote_ref *ref;
	struct cufab_alloc *alloc = NULL;
	unsigned long token;

	mutex_lock(&cufab_remote_lock);
	xa_for_each(&cufab_remote_refs, token, ref) {
		if (ref->node == node && ref->alloc->id == id) {
			alloc = ref->alloc;
			cufab_alloc_get(alloc);
			break;
		}
	}
	mutex_unlock(&cufab_remote_lock);
	return alloc;
}

/* Set the bit of every node that holds an import of @alloc in @nodes. */
void cufab_remote_importers(struct cufab_alloc *alloc, unsigned long *nodes)
{
	struct cufab_remote_ref *ref;
	unsigned long token;

	mutex_lock(&cufab_remote_lock);
	xa_for_each(&cufab_remote_refs, token, ref)
		if (ref->alloc == alloc)
			__set_bit(ref->node, nodes);
	mutex_unlock(&cufab_remote_lock);
}

static int cufab_imex_export_get_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	struct cufab_remote_ref *ref = NULL;
	struct sk_buff *msg;
	u32 token = 0, node;
	void *hdr;
	int status;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_HANDLE) ||
	    GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_CHANNEL) ||
	    GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE))
		return -EINVAL;
	node = nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]);
	if (cufab_remote_is_le(nla_data(info->attrs[CUFAB_IMEX_A_HANDLE])))
		return cufab_imex_export_le(info,
				nla_data(info->attrs[CUFAB_IMEX_A_HANDLE]),
				nla_get_u32(info->attrs[CUFAB_IMEX_A_CHANNEL]),
				node);
	status = cufab_remote_export(nla_data(info->attrs[CUFAB_IMEX_A_HANDLE]),
				     nla_get_u32(info->attrs[CUFAB_IMEX_A_CHANNEL]),
				     node, &ref, &token);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto err;
	hdr = genlmsg_put_reply(msg, info, &cufab_imex_family, 0,
				CUFAB_IMEX_CMD_EXPORT_GET);
	if (!hdr || nla_put_s32(msg, CUFAB_IMEX_A_STATUS, status))
		goto err_msg;
	if (!status && cufab_alloc_mc(ref->alloc)) {
		if (cufab_remote_put_mc(msg, ref->alloc, token))
			goto err_msg;
	} else if (!status &&
	    (nla_put_u64_64bit(msg, CUFAB_IMEX_A_OFFSET,
			       cufab_window_alloc_offset(ref->alloc),
			       CUFAB_IMEX_A_PAD) ||
	     nla_put_u64_64bit(msg, CUFAB_IMEX_A_LENGTH, ref->alloc->length,
			       CUFAB_IMEX_A_PAD) ||
	     nla_put_u64_64bit(msg, CUFAB_IMEX_A_TOKEN, token,
			       CUFAB_IMEX_A_PAD) ||
	     nla_put_u32(msg, CUFAB_IMEX_A_DEV, ref->alloc->location_id)))
		goto err_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
err:
	if (!status)
		cufab_remote_ref_drop(token);
	return -ENOMEM;
}

static int cufab_imex_export_put_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	struct cufab_remote_ref *ref;
	u64 token;
	u32 node;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE) ||
	    GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_TOKEN))
		return -EINVAL;
	node = nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]);
	token = nla_get_u64(info->attrs[CUFAB_IMEX_A_TOKEN]);
	if (token & CUFAB_LE_TOKEN_BIT) {
		const struct cufab_remote_le_ops *ops = READ_ONCE(cufab_remote_le);

		return ops ? ops->put(node, token) : -ENOENT;
	}
	if (token > U32_MAX)
		return -ENOENT;
	/* a node may only give back what it was given */
	mutex_lock(&cufab_remote_lock);
	ref = xa_load(&cufab_remote_refs, token);
	if (ref && ref->node != node)
		ref = NULL;
	mutex_unlock(&cufab_remote_lock);
	if (!ref) {
		NL_SET_ERR_MSG(info->extack,
			       "that node holds no import of that token");
		return -ENOENT;
	}
	cufab_remote_ref_drop(token);
	return 0;
}

/* Every import @node holds of this node's memory (every node: -1). */
static void cufab_remote_drop_node(int node)
{
	struct cufab_remote_ref *ref;
	unsigned long token;

	xa_for_each(&cufab_remote_refs, token, ref)
		if (node < 0 || ref->node == node)
			cufab_remote_ref_drop(token);
}

/*
 * @node was cleaned up: the imports it holds of this node's memory go, but
 * only once it let go of them (the reclaim fence, fabric_fence.c): its
 * kernel may not have revoked them yet.
 */
static void cufab_remote_fence_node(unsigned int node)
{
	struct cufab_remote_ref *ref;
	unsigned long token;
	unsigned int n = 0;

	mutex_lock(&cufab_remote_lock);
	xa_for_each(&cufab_remote_refs, token, ref) {
		if (ref->node == node) {
			ref->fenced = true;
			n++;
		}
	}
	mutex_unlock(&cufab_remote_lock);
	if (n)
		cufab_fence_hold(node, n);
}

/**
 * cufab_remote_drop_fenced() - the fence of @node is lifted
 * @node: an importer that let go of this node's memory
 *
 * Return: the number of its imports dropped.
 */
unsigned int cufab_remote_drop_fenced(unsigned int node)
{
	struct cufab_remote_ref *ref;
	unsigned long token;
	unsigned int n = 0;

	xa_for_each(&cufab_remote_refs, token, ref) {
		if (ref->node == node && READ_ONCE(ref->fenced)) {
			cufab_remote_ref_drop(token);
			n++;
		}
	}
	return n;
}

static int cufab_imex_node_down_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	u32 node;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE))
		return -EINVAL;
	node = nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]);
	if (node == cufab_node.node_index || node >= cufab_domain_nodes()) {
		NL_SET_ERR_MSG(info->extack,
			       "NODE is not another node of this domain (num_nodes)");
		return -EINVAL;
	}
	pr_info("node %u is down: revoking this node's imports of its memory, dropping its imports of this node's\n",
		node);
	cufab_remote_node_down(node);
	return 0;
}

/**
 * cufab_remote_node_down() - @node is lost and cleaned up
 * @node: another node of the domain
 *
 * Requests waiting for it fail, its teams break, this node's imports of
 * its memory are revoked, and its imports of this node's memory go once
 * it let go of them (the fence). Context: under genl_mutex (the daemon's
 * commands, or fabric_fence.c), may sleep.
 * Return: the number of this node's imports revoked.
 */
unsigned int cufab_remote_node_down(unsigned int node)
{
	unsigned int n;

	cufab_remote_fail_node(node, true);
	/* the teams first: which objects the node imported tells which */
	if (READ_ONCE(cufab_remote_team))
		cufab_remote_team->node_down(node);
	if (READ_ONCE(cufab_remote_le))
		cufab_remote_le->node_down(node);
	n = cufab_revoke_node(node, true);
	cufab_remote_fence_node(node);
	return n;
}

/* Another node of the domain, from a daemon's command; else -EINVAL. */
static int cufab_imex_other_node(struct genl_info *info, u32 *node)
{
	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE))
		return -EINVAL;
	*node = nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]);
	if (*node == cufab_node.node_index || *node >= cufab_domain_nodes()) {
		NL_SET_ERR_MSG(info->extack,
			       "NODE is not another node of this domain (num_nodes)");
		return -EINVAL;
	}
	return 0;
}

/*
 * REVOKE: the node's exports ended (its daemon stops): revoke this node's
 * imports of its memory and release each once no page of it is in use.
 * Returns when done, so the daemon's confirmation follows the RELEASEs.
 */
static int cufab_imex_revoke_doit(struct sk_buff *skb,
				  struct genl_info *info)
{
	unsigned int n;
	u32 node;
	int ret;

	ret = cufab_imex_other_node(info, &node);
	if (ret)
		return ret;
	cufab_remote_fail_node(node, false);
	n = cufab_revoke_node(node, false);
	pr_info("node %u ended its exports: %u imports of its memory revoked and released\n",
		node, n);
	return 0;
}

/**
 * cufab_remote_fail_node() - nothing more is asked of @node
 * @node: another node of the domain
 * @lost: it is lost and cleaned up: the releases still waiting for a
 *	daemon are dropped too (it forgot their tokens)
 */
void cufab_remote_fail_node(unsigned int node, bool lost)
{
	struct cufab_remote_unsent *u, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&cufab_remote_lock);
	cufab_remote_fail_reqs(node);
	if (lost)
		list_for_each_entry_safe(u, tmp, &cufab_remote_unsent, node)
			if (u->peer == node)
				list_move(&u->node, &gone);
	mutex_unlock(&cufab_remote_lock);
	list_for_each_entry_safe(u, tmp, &gone, node) {
		list_del(&u->node);
		kfree(u);
	}
}

/* ---- the daemon ---- */

static int cufab_imex_register_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	u32 node;
	int ret = 0;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE))
		return -EINVAL;
	node = nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]);
	if (node != cufab_node.node_index) {
		pr_warn("cufab-imexd of node %u refused: this module is node_index=%u\n",
			node, cufab_node.node_index);
		NL_SET_ERR_MSG(info->extack,
			       "NODE is not this module's node_index");
		return -EINVAL;
	}
	mutex_lock(&cufab_remote_lock);
	if (cufab_imexd_portid && cufab_imexd_portid != info->snd_portid) {
		NL_SET_ERR_MSG(info->extack,
			       "another cufab-imexd is registered already");
		ret = -EBUSY;
	} else {
		cufab_imexd_portid = info->snd_portid;
		cufab_domain_forget_links();
	}
	mutex_unlock(&cufab_remote_lock);
	if (!ret) {
		pr_info("cufab-imexd registered (netlink port %u)\n",
			info->snd_portid);
		/* before the releases: a previous daemon's death ends them */
		cufab_fence_daemon_register(info->attrs[CUFAB_IMEX_A_GRACE] ?
			nla_get_s32(info->attrs[CUFAB_IMEX_A_GRACE]) : -1);
		cufab_remote_flush(info->snd_portid);
	}
	return ret;
}

/*
 * The daemon's end, its socket's close (@died) or UNREGISTER: nothing more
 * goes to it. Return: @portid was the registered daemon's.
 */
static bool cufab_remote_daemon_end(u32 portid, bool died)
{
	bool was;

	mutex_lock(&cufab_remote_lock);
	was = cufab_imexd_portid && portid == cufab_imexd_portid;
	if (was) {
		cufab_imexd_portid = 0;
		cufab_remote_fail_reqs(-1);
		cufab_domain_forget_links();
	}
	mutex_unlock(&cufab_remote_lock);
	if (was)
		pr_info("cufab-imexd %s: imports from other nodes fail with -EHOSTDOWN until one registers\n",
			died ? "is gone" : "stopped");
	return was;
}

/*
 * UNREGISTER (fabric_fence.c's): the registered daemon stops cleanly,
 * after it ended this node's exports and said BYE; its socket's close
 * that follows is no death.
 */
static int cufab_imex_unregister_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	if (!cufab_remote_daemon_end(info->snd_portid, false)) {
		NL_SET_ERR_MSG(info->extack,
			       "this socket is not the registered cufab-imexd's");
		return -ENOENT;
	}
	return 0;
}

/* What a RESOLVED names beyond memory (absent: memory, as before). */
static void cufab_remote_resolved_kind(struct cufab_remote_req *req,
				       struct nlattr **a)
{
	if (a[CUFAB_IMEX_A_KIND])
		req->ans.kind = nla_get_u32(a[CUFAB_IMEX_A_KIND]);
	if (a[CUFAB_IMEX_A_DEVICES])
		req->ans.devices = nla_get_u32(a[CUFAB_IMEX_A_DEVICES]);
	if (a[CUFAB_IMEX_A_ID])
		req->ans.id = nla_get_u64(a[CUFAB_IMEX_A_ID]);
}

static int cufab_imex_resolved_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct cufab_remote_req *req;
	u64 id;
	int status, ret = 0;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_REQ_ID) ||
	    GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_STATUS))
		return -EINVAL;
	id = nla_get_u64(a[CUFAB_IMEX_A_REQ_ID]);
	status = nla_get_s32(a[CUFAB_IMEX_A_STATUS]);
	/* an errno, or the extent */
	if (status > 0 || status < -MAX_ERRNO ||
	    (!status && (!a[CUFAB_IMEX_A_OFFSET] || !a[CUFAB_IMEX_A_LENGTH] ||
			 !a[CUFAB_IMEX_A_TOKEN] || !a[CUFAB_IMEX_A_DEV]))) {
		NL_SET_ERR_MSG(info->extack,
			       "RESOLVED wants a negative errno, or OFFSET, LENGTH, TOKEN and DEV");
		return -EINVAL;
	}
	mutex_lock(&cufab_remote_lock);
	req = id <= U32_MAX ? xa_load(&cufab_remote_reqs, id) : NULL;
	if (!req || req->answered) {
		ret = -ENOENT;
	} else {
		req->status = status;
		req->answered = true;
		if (!status) {
			req->ans.offset = nla_get_u64(a[CUFAB_IMEX_A_OFFSET]);
			req->ans.length = nla_get_u64(a[CUFAB_IMEX_A_LENGTH]);
			req->ans.token = nla_get_u64(a[CUFAB_IMEX_A_TOKEN]);
			req->ans.dev = nla_get_u32(a[CUFAB_IMEX_A_DEV]);
			cufab_remote_resolved_kind(req, a);
		}
		complete(&req->done);
	}
	mutex_unlock(&cufab_remote_lock);
	if (ret)
		NL_SET_ERR_MSG(info->extack,
			       "no import waits for that request (it gave up)");
	return ret;
}

/* Is a daemon registered? For DOMAIN_GET (domain_netlink.c). */
bool cufab_remote_daemon(void)
{
	bool ret;

	mutex_lock(&cufab_remote_lock);
	ret = cufab_imexd_portid;
	mutex_unlock(&cufab_remote_lock);
	return ret;
}

/* LINK: the daemon's connection to a node, shown by DOMAIN_GET. */
static int cufab_imex_link_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_NODE) ||
	    GENL_REQ_ATTR_CHECK(info, CUFAB_IMEX_A_LINK))
		return -EINVAL;
	cufab_domain_set_link(nla_get_u32(info->attrs[CUFAB_IMEX_A_NODE]),
			      nla_get_u32(info->attrs[CUFAB_IMEX_A_LINK]));
	return 0;
}

/*
 * The daemon's socket closed without UNREGISTER: it died (SIGKILL, a
 * crash), and its peers will clean this node up (fabric_fence.c).
 */
static int cufab_imex_netlink_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net))
		return NOTIFY_DONE;
	if (cufab_remote_daemon_end(n->portid, true))
		cufab_fence_daemon_died();
	return NOTIFY_DONE;
}

static struct notifier_block cufab_imex_notifier = {
	.notifier_call = cufab_imex_netlink_event,
};

static const struct nla_policy cufab_imex_policy[CUFAB_IMEX_A_MAX + 1] = {
	[CUFAB_IMEX_A_NODE] = NLA_POLICY_MAX(NLA_U32, CUFAB_MAX_NODES - 1),
	[CUFAB_IMEX_A_REQ_ID] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_HANDLE] = NLA_POLICY_EXACT_LEN(CUFAB_FABRIC_HANDLE_LEN),
	[CUFAB_IMEX_A_CHANNEL] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_STATUS] = { .type = NLA_S32 },
	[CUFAB_IMEX_A_OFFSET] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_LENGTH] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_TOKEN] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_DEV] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_TEAM] = { .type = NLA_BINARY,
				.len = CUFAB_IMEX_TEAM_MAX },
	[CUFAB_IMEX_A_KIND] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_DEVICES] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_ID] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_LINK] = NLA_POLICY_MAX(NLA_U32, CUFAB_LINK_GONE),
	/* the reclaim fence's */
	[CUFAB_IMEX_A_GRACE] = NLA_POLICY_MIN(NLA_S32, -1),
};

static const struct genl_ops cufab_imex_ops[] = {
	{
		.cmd = CUFAB_IMEX_CMD_REGISTER,
		.doit = cufab_imex_register_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_RESOLVED,
		.doit = cufab_imex_resolved_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_EXPORT_GET,
		.doit = cufab_imex_export_get_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_EXPORT_PUT,
		.doit = cufab_imex_export_put_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_NODE_DOWN,
		.doit = cufab_imex_node_down_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_REVOKE,
		.doit = cufab_imex_revoke_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_TEAM_JOIN,
		.doit = cufab_imex_team_join_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_TEAM_STATE,
		.doit = cufab_imex_team_state_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_IMEX_CMD_LINK,
		.doit = cufab_imex_link_doit,
		.flags = GENL_ADMIN_PERM,
	},
	/* the reclaim fence's: a daemon that stops, not dies */
	{
		.cmd = CUFAB_IMEX_CMD_UNREGISTER,
		.doit = cufab_imex_unregister_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family cufab_imex_family __ro_after_init = {
	.name = CUFAB_IMEX_GENL_NAME,
	.version = CUFAB_IMEX_GENL_VERSION,
	.maxattr = CUFAB_IMEX_A_MAX,
	.policy = cufab_imex_policy,
	.module = THIS_MODULE,
	.ops = cufab_imex_ops,
	.n_ops = ARRAY_SIZE(cufab_imex_ops),
};

/* debugfs "fabric_remote": the daemon, and other nodes' imports. */
void cufab_remote_show(struct seq_file *m)
{
	struct cufab_remote_ref *ref;
	unsigned long token;

	mutex_lock(&cufab_remote_lock);
	seq_printf(m, "imexd %u\n", cufab_imexd_portid);
	xa_for_each(&cufab_remote_refs, token, ref)
		seq_printf(m, "import %lu node %u alloc %llu length %llu\n",
			   token, ref->node, ref->alloc->id,
			   ref->alloc->length);
	mutex_unlock(&cufab_remote_lock);
	cufab_revoke_show(m);
}

int cufab_remote_init(void)
{
	int ret;

	cufab_fence_init();
	ret = netlink_register_notifier(&cufab_imex_notifier);
	if (ret)
		return ret;
	ret = genl_register_family(&cufab_imex_family);
	if (ret)
		netlink_unregister_notifier(&cufab_imex_notifier);
	return ret;
}

/*
 * Unload: no client is left, so no import waits; what other nodes import
 * of this node's memory is dropped (the module and its window go).
 */
void cufab_remote_exit(void)
{
	struct cufab_remote_unsent *u, *tmp;

	genl_unregister_family(&cufab_imex_family);
	netlink_unregister_notifier(&cufab_imex_notifier);
	/* nothing is fenced any more: the module and its window go */
	cufab_fence_exit();
	cufab_remote_drop_node(-1);
	list_for_each_entry_safe(u, tmp, &cufab_remote_unsent, node) {
		pr_info("unload: node %u never heard that this node released its import %llu\n",
			u->peer, u->token);
		list_del(&u->node);
		kfree(u);
	}
	WARN_ON(!xa_empty(&cufab_remote_reqs));
	xa_destroy(&cufab_remote_refs);
}
