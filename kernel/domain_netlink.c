// SPDX-License-Identifier: GPL-2.0
/*
 * DOMAIN_GET (cufabctl domain show): one message per node of the fabric
 * domain (Documentation/multinode.rst), as this node sees it: its record
 * in the window's domain header (fabric_domain.c), its GPUs with their
 * UUIDs, bus ids and cliques, and this node's daemon's link to it. This
 * node's own GPUs come from its topology, the others' from their records;
 * a node without a window knows only itself.
 *
 * The dump holds no lock across messages: cb->args[0] is the next node.
 * A record is read while its node may rewrite it, a snapshot good for
 * observation only.
 */
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

/* One GPU of node @node, a DEV nest: index, UUID, bus id, clique. */
static int cufab_nl_domain_put_gpu(struct sk_buff *skb, u32 node, u32 index,
				   u32 clique)
{
	char bus[CUFAB_BUS_ID_LEN];
	u8 uuid[CUFAB_UUID_LEN];
	struct nlattr *nest;

	cufab_gpu_uuid_at(node, index, uuid);
	cufab_gpu_bus_id_at(node, index, bus);
	nest = nla_nest_start(skb, CUFAB_NL_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, CUFAB_NL_A_DEV_INDEX, index) ||
	    nla_put(skb, CUFAB_NL_A_DEV_UUID, CUFAB_UUID_LEN, uuid) ||
	    nla_put_string(skb, CUFAB_NL_A_DEV_BUS_ID, bus) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_CLIQUE, clique)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* This node: what it knows first hand (its header record, if any). */
static void cufab_nl_domain_self(struct cufab_domain_info *info)
{
	u32 i;

	if (cufab_domain_node_info(cufab_node.node_index, info)) {
		memset(info, 0, sizeof(*info));
		info->state = CUFAB_DOMAIN_UP;
		info->alive = true;
	}
	down_read(&cufab_topo_rwsem);
	info->num_gpus = min_t(u32, cufab_node.num_gpus, CUFAB_MAX_GPUS);
	for (i = 0; i < info->num_gpus; i++)
		info->clique[i] = cufab_node.gpus[i].clique;
	up_read(&cufab_topo_rwsem);
}

static int cufab_nl_domain_put_node(struct sk_buff *skb, u32 node,
				    const struct cufab_domain_info *info)
{
	bool self = node == cufab_node.node_index;
	u32 i;

	if (nla_put_u32(skb, CUFAB_NL_A_DOMAIN_NODE, node) ||
	    nla_put_u8(skb, CUFAB_NL_A_DOMAIN_SELF, self) ||
	    nla_put_u32(skb, CUFAB_NL_A_DOMAIN_STATE, info->state) ||
	    nla_put_u8(skb, CUFAB_NL_A_DOMAIN_ALIVE, info->alive) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DOMAIN_GENERATION,
			      info->generation, CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DOMAIN_INSTANCE,
			      info->instance, CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DOMAIN_HEARTBEAT,
			      info->heartbeat, CUFAB_NL_A_PAD) ||
	    nla_put(skb, CUFAB_NL_A_TOPO_CLUSTER_UUID, CUFAB_UUID_LEN,
		    &cufab_node.cluster_uuid) ||
	    (self && nla_put_u8(skb, CUFAB_NL_A_DOMAIN_DAEMON,
				cufab_remote_daemon())) ||
	    (!self && nla_put_u32(skb, CUFAB_NL_A_DOMAIN_LINK,
				  cufab_domain_link(node))))
		return -EMSGSIZE;
	for (i = 0; i < info->num_gpus; i++)
		if (cufab_nl_domain_put_gpu(skb, node, i, info->clique[i]))
			return -EMSGSIZE;
	return 0;
}

int cufab_nl_domain_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct cufab_domain_info *info;
	u32 node = cb->args[0];
	void *hdr;
	int ret = 0;

	/* 64 cliques: too much for the dump's stack */
	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	for (; node < cufab_domain_nodes(); node++) {
		if (node == cufab_node.node_index)
			cufab_nl_domain_self(info);
		else if (cufab_domain_node_info(node, info))
			memset(info, 0, sizeof(*info));
		hdr = cufab_nl_dump_put(skb, cb, CUFAB_NL_CMD_DOMAIN_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		ret = cufab_nl_domain_put_node(skb, node, info);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	kfree(info);
	cb->args[0] = node;
	return cufab_nl_dump_ret(skb, ret);
}
