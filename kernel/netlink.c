// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "cufab": administration and observation of the
 * virtual node (Documentation/netlink/cufab.yaml). Per-process work never
 * comes through here.
 *
 * Policies validate types and ranges before a handler runs; handlers check
 * what depends on the current state (online NUMA nodes, existing GPUs,
 * whether a client is open) and say in the extack which rule was broken.
 * Every successful change is announced on the "events" group.
 *
 * This file holds the family (its policies and op table) and the helpers
 * every handler shares: the base the handlers stand on, calling none of
 * them. The node's configuration (DEV_GET/SET, TOPO_GET/SET) is in
 * node_netlink.c; the dumps of per-process objects sit beside their
 * objects: ALLOC_GET in alloc.c, LE_GET in le.c, MC_GET in multicast.c,
 * PEER_GET in peer.c, POOL_GET in pool.c, STREAM_GET in stream_netlink.c,
 * PROC_GET in client_netlink.c, DOMAIN_GET in domain_netlink.c.
 *
 * Locking: the family is not parallel_ops, so genl_mutex serialises the
 * handlers. Under it: cufab_clients_lock -> cufab_topo_rwsem (device.c),
 * and each dump's own locks (cufab_allocs_lock for ALLOC_GET, ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/mm.h>
#include <linux/numa.h>
#include <linux/sizes.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"

enum cufab_nl_mcgrp {
	CUFAB_NL_MCGRP_EVENTS,
};

static const struct genl_multicast_group cufab_nl_mcgrps[] = {
	[CUFAB_NL_MCGRP_EVENTS] = { .name = CUFAB_GENL_MCGRP_EVENTS },
};

/* not const: the 6.1 nla_policy range pointer is not const */
static struct netlink_range_validation cufab_nl_mem_range = {
	.min = CUFAB_MEM_MIB_MIN * SZ_1M,
	.max = CUFAB_MEM_MIB_MAX * SZ_1M,
};

/* Granularities: a power of two and REC % MIN are checked by the handler. */
static struct netlink_range_validation cufab_nl_gran_range = {
	.min = PAGE_SIZE,
	.max = CUFAB_GRAN_MAX,
};

static const struct nla_policy cufab_nl_dev_get_policy[CUFAB_NL_A_MAX + 1] = {
	[CUFAB_NL_A_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, CUFAB_MAX_GPUS - 1),
};

static const struct nla_policy cufab_nl_dev_set_policy[CUFAB_NL_A_MAX + 1] = {
	[CUFAB_NL_A_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, CUFAB_MAX_GPUS - 1),
	[CUFAB_NL_A_DEV_MEM_TOTAL] = NLA_POLICY_FULL_RANGE(NLA_U64,
							   &cufab_nl_mem_range),
	[CUFAB_NL_A_DEV_NUMA_NODE] = NLA_POLICY_RANGE(NLA_S32, NUMA_NO_NODE,
						      MAX_NUMNODES - 1),
	[CUFAB_NL_A_DEV_CLIQUE] = NLA_POLICY_MAX(NLA_U32, CUFAB_MAX_GPUS - 1),
	[CUFAB_NL_A_DEV_FEATURES] = NLA_POLICY_MASK(NLA_U32, CUFAB_DEV_F_ALL),
	[CUFAB_NL_A_DEV_FEATURES_MASK] = NLA_POLICY_MASK(NLA_U32,
							 CUFAB_DEV_F_ALL),
	[CUFAB_NL_A_DEV_PEERS] = { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_MEM_GRAN] = NLA_POLICY_FULL_RANGE(NLA_U64,
							  &cufab_nl_gran_range),
	[CUFAB_NL_A_DEV_MEM_GRAN_REC] = NLA_POLICY_FULL_RANGE(NLA_U64,
							      &cufab_nl_gran_range),
	[CUFAB_NL_A_DEV_MC_GRAN] = NLA_POLICY_FULL_RANGE(NLA_U64,
							 &cufab_nl_gran_range),
	[CUFAB_NL_A_DEV_MC_GRAN_REC] = NLA_POLICY_FULL_RANGE(NLA_U64,
							     &cufab_nl_gran_range),
};

static struct netlink_range_validation cufab_nl_race_range = {
	.max = CUFAB_RACE_DELAY_MAX_US,
};

static const struct nla_policy cufab_nl_topo_set_policy[CUFAB_NL_A_MAX + 1] = {
	[CUFAB_NL_A_TOPO_NUM_GPUS] = NLA_POLICY_RANGE(NLA_U32, 1,
						      CUFAB_MAX_GPUS),
	[CUFAB_NL_A_TOPO_NVSWITCH] = NLA_POLICY_MAX(NLA_U8, 1),
	[CUFAB_NL_A_TOPO_RACE_DELAY_US] = NLA_POLICY_FULL_RANGE(NLA_U32,
								&cufab_nl_race_range),
	[CUFAB_NL_A_TOPO_RACE_SEED] = { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_MANAGED_CHECK] = NLA_POLICY_MAX(NLA_U32, 2),
	[CUFAB_NL_A_TOPO_FABRIC_STATE] = NLA_POLICY_MAX(NLA_U32,
							CUFAB_FABRIC_DEGRADED),
};

static const struct genl_ops cufab_nl_ops[] = {
	{
		.cmd = CUFAB_NL_CMD_DEV_GET,
		.doit = cufab_nl_dev_get_doit,
		.dumpit = cufab_nl_dev_get_dumpit,
		.policy = cufab_nl_dev_get_policy,
		.maxattr = CUFAB_NL_A_MAX,
	},
	{
		.cmd = CUFAB_NL_CMD_DEV_SET,
		.doit = cufab_nl_dev_set_doit,
		.policy = cufab_nl_dev_set_policy,
		.maxattr = CUFAB_NL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_NL_CMD_TOPO_GET,
		.doit = cufab_nl_topo_get_doit,
	},
	{
		.cmd = CUFAB_NL_CMD_TOPO_SET,
		.doit = cufab_nl_topo_set_doit,
		.policy = cufab_nl_topo_set_policy,
		.maxattr = CUFAB_NL_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CUFAB_NL_CMD_ALLOC_GET,
		.dumpit = cufab_nl_alloc_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_LE_GET,
		.dumpit = cufab_nl_le_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_MC_GET,
		.dumpit = cufab_nl_mc_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_PEER_GET,
		.dumpit = cufab_nl_peer_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_POOL_GET,
		.dumpit = cufab_nl_pool_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_STREAM_GET,
		.dumpit = cufab_nl_stream_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_PROC_GET,
		.dumpit = cufab_nl_proc_get_dumpit,
	},
	{
		.cmd = CUFAB_NL_CMD_DOMAIN_GET,
		.dumpit = cufab_nl_domain_get_dumpit,
	},
};

static struct genl_family cufab_nl_family __ro_after_init = {
	.name = CUFAB_GENL_NAME,
	.version = CUFAB_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = cufab_nl_ops,
	.n_ops = ARRAY_SIZE(cufab_nl_ops),
	.mcgrps = cufab_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(cufab_nl_mcgrps),
};

/* The header of the reply to a doit's request @info, NULL when full. */
void *cufab_nl_reply_put(struct sk_buff *msg, struct genl_info *info, u8 cmd)
{
	return genlmsg_put_reply(msg, info, &cufab_nl_family, 0, cmd);
}

/* A message header of a dump reply (NLM_F_MULTI), NULL when full. */
void *cufab_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, &cufab_nl_family, NLM_F_MULTI,
			   cmd);
}

/*
 * What a dumpit returns once its walk stopped with @ret: the length of the
 * messages it filled, so that the next call resumes after them.
 */
int cufab_nl_dump_ret(struct sk_buff *skb, int ret)
{
	/* a message that fits in no skb at all would loop forever */
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/* The state of @team, without its bindings. Context: team->lock held. */
int cufab_nl_put_team(struct sk_buff *skb, const struct cufab_team *team)
{
	if (nla_put_u32(skb, CUFAB_NL_A_TEAM_SIZE, team->size) ||
	    nla_put_u32(skb, CUFAB_NL_A_TEAM_JOINED, team->joined) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_TEAM_DEVS, team->devs,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_TEAM_WAITERS, team->waiters))
		return -EMSGSIZE;
	return 0;
}

/* One CUFAB_NL_A_BINDING nest: @b, on GPU @gpu of a team. */
int cufab_nl_put_binding(struct sk_buff *skb, u32 gpu,
			 const struct cufab_binding *b)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, CUFAB_NL_A_BINDING);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, CUFAB_NL_A_BIND_DEV, gpu) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_BIND_OFFSET, b->offset,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_BIND_SIZE, b->size,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_BIND_ALLOC_ID, b->alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_BIND_MEM_OFFSET, b->mem_offset,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_BIND_PID, b->pid)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

bool cufab_nl_has_listeners(void)
{
	return genl_has_listeners(&cufab_nl_family, &init_net,
				  CUFAB_NL_MCGRP_EVENTS);
}

/**
 * cufab_nl_event_new() - start an event message for the events group
 * @cmd: its command
 * @size: bytes to allocate (NLMSG_GOODSIZE for a small event)
 * @hdr: set to its header, for cufab_nl_event_send()
 *
 * Return: the message, or NULL when nobody listens (nothing is built
 * then) or memory is short: events are best effort.
 */
struct sk_buff *cufab_nl_event_new(u8 cmd, size_t size, void **hdr)
{
	struct sk_buff *msg;

	if (!cufab_nl_has_listeners())
		return NULL;
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &cufab_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Finish @msg and send it to the events group (consumes @msg). */
void cufab_nl_event_send(struct sk_buff *msg, void *hdr)
{
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&cufab_nl_family, msg, 0, CUFAB_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
}

int cufab_nl_init(void)
{
	return genl_register_family(&cufab_nl_family);
}

void cufab_nl_exit(void)
{
	genl_unregister_family(&cufab_nl_family);
}
