// SPDX-License-Identifier: GPL-2.0
/*
 * Peer context access (CUFAB_IOCTL_PEER_ENABLE, CUFAB_IOCTL_PEER_DISABLE).
 *
 * cuCtxEnablePeerAccess(peer) gives the current context access to the
 * allocations of another context of the process: one link, one way, per
 * (context, peer context) pair. The links of the whole node are one list;
 * a link dies with either of its contexts (cufab_peer_ctx_destroy(), from
 * the context's destroy: cuCtxDestroy, primary context reset or last
 * release, and the close of the client when the process dies).
 *
 * Hardware resources: "on non-NVSwitch enabled systems, each device can
 * support a system-wide maximum of eight peer connections". A connection
 * is a distinct peer GPU a GPU has links to, whatever the number of
 * contexts and processes behind them; max_peers caps it, and a node with
 * the virtual NVSwitch has no cap.
 *
 * Locking: cufab_peer_lock protects the list and the counts. The contexts
 * of a call are held by reference meanwhile, so neither can be destroyed
 * (DESTROY is -EBUSY) between the lookup and the new link; once a context
 * is out of its client's table no call can find it to make a link.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "cufab.h"
#include "trace.h"

static unsigned int max_peers = 8;
module_param(max_peers, uint, 0644);
MODULE_PARM_DESC(max_peers,
		 "Peer GPUs each GPU may have peer access enabled to, node-wide, without the virtual NVSwitch (default 8)");

/**
 * struct cufab_peer_link - access from one context to a peer context
 * @node: entry in cufab_peer_links
 * @client: owner of both contexts
 * @ctx: id of the context that has access
 * @peer_ctx: id of the context whose allocations it reaches
 * @dev: GPU of @ctx
 * @peer_dev: GPU of @peer_ctx
 */
struct cufab_peer_link {
	struct list_head node;
	struct cufab_client *client;
	u32 ctx;
	u32 peer_ctx;
	u32 dev;
	u32 peer_dev;
};

static DEFINE_MUTEX(cufab_peer_lock);
static LIST_HEAD(cufab_peer_links);
static struct cufab_peer_counts cufab_peer_counts;

/* ---- connection counts ---- */

/**
 * cufab_peer_counts_get() - count one more link from @gpu to @peer
 * @c: the counts
 * @gpu: GPU of the context that gains access
 * @peer: GPU of the peer context
 * @max: connections @gpu may use, CUFAB_PEERS_UNLIMITED for no limit
 *
 * A link to a GPU @gpu already has links to uses no new connection.
 *
 * Return: 0, or -EBUSY (nothing counted) when @peer would be a connection
 * past @max.
 */
int cufab_peer_counts_get(struct cufab_peer_counts *c, u32 gpu, u32 peer,
			  u32 max)
{
	if (WARN_ON(gpu >= CUFAB_MAX_GPUS || peer >= CUFAB_MAX_GPUS))
		return -EINVAL;
	if (!c->links[gpu][peer]) {
		if (max != CUFAB_PEERS_UNLIMITED && c->peers[gpu] >= max)
			return -EBUSY;
		c->peers[gpu]++;
	}
	c->links[gpu][peer]++;
	return 0;
}

/**
 * cufab_peer_counts_put() - count one link less from @gpu to @peer
 * @c: the counts
 * @gpu: as given to cufab_peer_counts_get()
 * @peer: as given to cufab_peer_counts_get()
 *
 * The last link frees the connection.
 */
void cufab_peer_counts_put(struct cufab_peer_counts *c, u32 gpu, u32 peer)
{
	if (WARN_ON(gpu >= CUFAB_MAX_GPUS || peer >= CUFAB_MAX_GPUS ||
		    !c->links[gpu][peer]))
		return;
	if (!--c->links[gpu][peer])
		c->peers[gpu]--;
}

/* Peer connections @gpu uses now (netlink DEV_GET). */
u32 cufab_peer_gpu_count(u32 gpu)
{
	/* a snapshot: callers hold topology locks, not cufab_peer_lock */
	if (gpu >= CUFAB_MAX_GPUS)
		return 0;
	return READ_ONCE(cufab_peer_counts.peers[gpu]);
}

/* The virtual NVSwitch connects every GPU of a clique at no cost. */
static u32 cufab_peer_max(void)
{
	return cufab_node.nvswitch ? CUFAB_PEERS_UNLIMITED : READ_ONCE(max_peers);
}

/* ---- links ---- */

static struct cufab_peer_link *cufab_peer_find(struct cufab_client *client,
					       u32 ctx, u32 peer_ctx)
{
	struct cufab_peer_link *link;

	lockdep_assert_held(&cufab_peer_lock);
	list_for_each_entry(link, &cufab_peer_links, node) {
		if (link->client == client && link->ctx == ctx &&
		    link->peer_ctx == peer_ctx)
			return link;
	}
	return NULL;
}

static void cufab_peer_unlink(struct cufab_peer_link *link)
{
	lockdep_assert_held(&cufab_peer_lock);
	trace_cufab_peer_disable(link->ctx, link->dev, link->peer_ctx,
				 link->peer_dev);
	cufab_peer_counts_put(&cufab_peer_counts, link->dev, link->peer_dev);
	list_del(&link->node);
	kfree(link);
}

/*
 * Both contexts of a call, referenced; -ENOENT (logged) when either id is
 * not a context of the client: never created, destroyed, or another type.
 */
static int cufab_peer_get_ctxs(struct cufab_client *client,
			       const struct cufab_peer *cmd, const char *call,
			       struct cufab_ctx **ctx, struct cufab_ctx **peer)
{
	struct cufab_object *obj;

	obj = cufab_object_get(client, cmd->ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(obj)) {
		cufab_pr_info(client, "%s: current context %u is not a context of this process\n",
			      call, cmd->ctx_id);
		return PTR_ERR(obj);
	}
	*ctx = container_of(obj, struct cufab_ctx, obj);
	obj = cufab_object_get(client, cmd->peer_ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(obj)) {
		cufab_pr_info(client, "%s: peer context %u is not a context of this process (destroyed?)\n",
			      call, cmd->peer_ctx_id);
		cufab_object_put(&(*ctx)->obj);
		return PTR_ERR(obj);
	}
	*peer = container_of(obj, struct cufab_ctx, obj);
	return 0;
}

/* The rules of cuCtxEnablePeerAccess that need no lock. */
static int cufab_peer_enable_check(struct cufab_client *client,
				   const struct cufab_ctx *ctx,
				   const struct cufab_ctx *peer)
{
	struct cufab_gpu_facts facts;
	u64 peers = 0;

	if (!cufab_gpu_facts(ctx->dev, &facts))
		peers = facts.peers;

	if (ctx == peer) {
		cufab_pr_info(client, "cuCtxEnablePeerAccess: context %u cannot be its own peer\n",
			      ctx->obj.id);
		return -ELOOP;
	}
	/* a GPU is never its own peer (cuDeviceCanAccessPeer says 0) */
	if (!(peers & BIT_ULL(peer->dev))) {
		cufab_pr_info(client, "cuCtxEnablePeerAccess: context %u on gpu %u -> context %u on gpu %u: gpu %u cannot access gpu %u as a peer (cuDeviceCanAccessPeer is 0)\n",
			      ctx->obj.id, ctx->dev, peer->obj.id, peer->dev,
			      ctx->dev, peer->dev);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Adds @link unless its pair has one or its GPU has no connection left. */
static int cufab_peer_link_add(struct cufab_client *client,
			       struct cufab_peer_link *link)
{
	u32 max = cufab_peer_max();
	int ret;

	mutex_lock(&cufab_peer_lock);
	if (cufab_peer_find(client, link->ctx, link->peer_ctx)) {
		cufab_pr_info(client, "cuCtxEnablePeerAccess: context %u -> context %u: already enabled\n",
			      link->ctx, link->peer_ctx);
		ret = -EEXIST;
		goto out;
	}
	ret = cufab_peer_counts_get(&cufab_peer_counts, link->dev,
				    link->peer_dev, max);
	if (ret) {
		cufab_pr_info(client, "cuCtxEnablePeerAccess: context %u on gpu %u -> context %u on gpu %u: gpu %u already has peer access to %u GPUs, max_peers=%u without an NVSwitch\n",
			      link->ctx, link->dev, link->peer_ctx,
			      link->peer_dev, link->dev,
			      cufab_peer_counts.peers[link->dev], max);
		goto out;
	}
	list_add_tail(&link->node, &cufab_peer_links);
	trace_cufab_peer_enable(link->ctx, link->dev, link->peer_ctx,
				link->peer_dev);
out:
	mutex_unlock(&cufab_peer_lock);
	return ret;
}

int cufab_ioctl_peer_enable(struct cufab_ucmd *ucmd)
{
	struct cufab_client *client = ucmd->client;
	struct cufab_peer *cmd = ucmd->cmd;
	struct cufab_peer_link *link;
	struct cufab_ctx *ctx, *peer;
	int ret;

	if (cmd->flags) {
		cufab_pr_info(client, "cuCtxEnablePeerAccess: context %u -> context %u: Flags 0x%x, must be 0\n",
			      cmd->ctx_id, cmd->peer_ctx_id, cmd->flags);
		return -EINVAL;
	}
	ret = cufab_peer_get_ctxs(client, cmd, "cuCtxEnablePeerAccess",
				  &ctx, &peer);
	if (ret)
		return ret;
	ret = cufab_peer_enable_check(client, ctx, peer);
	if (ret)
		goto out;

	ret = -ENOMEM;
	if (cufab_should_fail(CUFAB_FAULT_PEER))
		goto out;
	link = kzalloc(sizeof(*link), GFP_KERNEL_ACCOUNT);
	if (!link)
		goto out;
	link->client = client;
	link->ctx = ctx->obj.id;
	link->peer_ctx = peer->obj.id;
	link->dev = ctx->dev;
	link->peer_dev = peer->dev;
	ret = cufab_peer_link_add(client, link);
	if (ret)
		kfree(link);
out:
	cufab_object_put(&peer->obj);
	cufab_object_put(&ctx->obj);
	return ret;
}

int cufab_ioctl_peer_disable(struct cufab_ucmd *ucmd)
{
	struct cufab_client *client = ucmd->client;
	struct cufab_peer *cmd = ucmd->cmd;
	struct cufab_peer_link *link;
	struct cufab_ctx *ctx, *peer;
	int ret;

	if (cmd->flags) {
		cufab_pr_info(client, "cuCtxDisablePeerAccess: context %u -> context %u: flags 0x%x, must be 0\n",
			      cmd->ctx_id, cmd->peer_ctx_id, cmd->flags);
		return -EINVAL;
	}
	ret = cufab_peer_get_ctxs(client, cmd, "cuCtxDisablePeerAccess",
				  &ctx, &peer);
	if (ret)
		return ret;
	mutex_lock(&cufab_peer_lock);
	link = cufab_peer_find(client, ctx->obj.id, peer->obj.id);
	if (link)
		cufab_peer_unlink(link);
	mutex_unlock(&cufab_peer_lock);
	if (!link) {
		cufab_pr_info(client, "cuCtxDisablePeerAccess: context %u -> context %u: peer access is not enabled\n",
			      ctx->obj.id, peer->obj.id);
		ret = -ENOLINK;
	}
	cufab_object_put(&peer->obj);
	cufab_object_put(&ctx->obj);
	return ret;
}

/**
 * cufab_peer_ctx_destroy() - drop every link from and to a context
 * @client: owner
 * @ctx_id: the context being destroyed, already out of the client's table
 */
void cufab_peer_ctx_destroy(struct cufab_client *client, u32 ctx_id)
{
	struct cufab_peer_link *link, *tmp;

	mutex_lock(&cufab_peer_lock);
	list_for_each_entry_safe(link, tmp, &cufab_peer_links, node) {
		if (link->client == client &&
		    (link->ctx == ctx_id || link->peer_ctx == ctx_id))
			cufab_peer_unlink(link);
	}
	mutex_unlock(&cufab_peer_lock);
}

/* ---- CUFAB_NL_CMD_PEER_GET dump: one message per link ---- */

static int cufab_nl_peer_put(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct cufab_peer_link *link)
{
	void *hdr;

	hdr = cufab_nl_dump_put(skb, cb, CUFAB_NL_CMD_PEER_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, CUFAB_NL_A_PID, pid_nr(link->client->tgid)) ||
	    nla_put_string(skb, CUFAB_NL_A_COMM, link->client->comm) ||
	    nla_put_u32(skb, CUFAB_NL_A_PEER_CTX, link->ctx) ||
	    nla_put_u32(skb, CUFAB_NL_A_PEER_DEV, link->dev) ||
	    nla_put_u32(skb, CUFAB_NL_A_PEER_PEER_CTX, link->peer_ctx) ||
	    nla_put_u32(skb, CUFAB_NL_A_PEER_PEER_DEV, link->peer_dev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* args[0] counts the links already sent. */
int cufab_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_peer_link *link;
	unsigned long i = 0;
	int ret = 0;

	mutex_lock(&cufab_peer_lock);
	list_for_each_entry(link, &cufab_peer_links, node) {
		if (i++ < cb->args[0])
			continue;
		ret = cufab_nl_peer_put(skb, cb, link);
		if (ret)
			break;
		cb->args[0]++;
	}
	mutex_unlock(&cufab_peer_lock);
	return cufab_nl_dump_ret(skb, ret);
}
