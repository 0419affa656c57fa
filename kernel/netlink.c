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
 * This file holds the family, the node's configuration (DEV_GET/SET,
 * TOPO_GET/SET, whose rules are device.c's validated setters, and the
 * gate that lets a change happen only while no client is open and no
 * allocation lives) and the helpers every dump shares. The dumps of per-process objects sit beside
 * their objects: ALLOC_GET in alloc.c, LE_GET in le.c, MC_GET in
 * multicast.c, PEER_GET in peer.c, POOL_GET in pool.c.
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

static struct genl_family cufab_nl_family;

/* Attributes of one GPU: a DEV_GET reply, a DEV_SET event, a DEV nest. */
static size_t cufab_nl_dev_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* INDEX */
	       nla_total_size(sizeof(CUFAB_GPU_NAME)) +	/* NAME */
	       nla_total_size(CUFAB_UUID_LEN) +		/* UUID */
	       nla_total_size(CUFAB_BUS_ID_LEN) +	/* BUS_ID */
	       nla_total_size_64bit(sizeof(u64)) +	/* MEM_TOTAL */
	       nla_total_size_64bit(sizeof(u64)) +	/* MEM_USED */
	       nla_total_size(sizeof(s32)) +		/* NUMA_NODE */
	       nla_total_size(sizeof(u32)) +		/* CLIQUE */
	       nla_total_size(sizeof(u32)) +		/* FEATURES */
	       nla_total_size_64bit(sizeof(u64)) +	/* PEERS */
	       4 * nla_total_size_64bit(sizeof(u64)) +	/* MEM/MC_GRAN[_REC] */
	       nla_total_size(sizeof(u32)) +		/* PEER_COUNT */
	       2 * nla_total_size(sizeof(u32)) +	/* CC_MAJOR, CC_MINOR */
	       2 * nla_total_size(sizeof(u32));		/* PCI_DEVICE_ID, _SUBSYS */
}

static int cufab_nl_put_dev(struct sk_buff *skb, const struct cufab_gpu *gpu)
{
	char bus[CUFAB_BUS_ID_LEN];
	u8 uuid[CUFAB_UUID_LEN];

	cufab_gpu_uuid(gpu->index, uuid);
	cufab_gpu_bus_id(gpu->index, bus);
	if (nla_put_u32(skb, CUFAB_NL_A_DEV_INDEX, gpu->index) ||
	    nla_put_string(skb, CUFAB_NL_A_DEV_NAME, CUFAB_GPU_NAME) ||
	    nla_put(skb, CUFAB_NL_A_DEV_UUID, CUFAB_UUID_LEN, uuid) ||
	    nla_put_string(skb, CUFAB_NL_A_DEV_BUS_ID, bus) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_MEM_TOTAL, gpu->mem_total,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_MEM_USED,
			      atomic64_read(&gpu->mem_used), CUFAB_NL_A_PAD) ||
	    nla_put_s32(skb, CUFAB_NL_A_DEV_NUMA_NODE, gpu->numa_node) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_CLIQUE, gpu->clique) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_FEATURES, gpu->features) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_PEERS, gpu->peers,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_MEM_GRAN, gpu->mem_gran,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_MEM_GRAN_REC,
			      gpu->mem_gran_rec, CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_MC_GRAN, gpu->mc_gran,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_DEV_MC_GRAN_REC,
			      gpu->mc_gran_rec, CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_PEER_COUNT,
			cufab_peer_gpu_count(gpu->index)) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_CC_MAJOR, CUFAB_CC_MAJOR) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_CC_MINOR, CUFAB_CC_MINOR) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_PCI_DEVICE_ID, CUFAB_PCI_DEVICE_ID) ||
	    nla_put_u32(skb, CUFAB_NL_A_DEV_PCI_SUBSYS_ID,
			CUFAB_PCI_SUBSYSTEM_ID))
		return -EMSGSIZE;
	return 0;
}

/* TOPO_GET reply and TOPO_SET event: node attributes, one nest per GPU. */
static size_t cufab_nl_topo_size(u32 num_gpus)
{
	return nla_total_size(sizeof(u32)) +		/* TOPO_NUM_GPUS */
	       nla_total_size(sizeof(u8)) +		/* TOPO_NVSWITCH */
	       nla_total_size(sizeof(u32)) +		/* TOPO_CLIENTS */
	       nla_total_size_64bit(sizeof(u64)) +	/* TOPO_LIVE_OBJECTS */
	       nla_total_size(CUFAB_UUID_LEN) +		/* TOPO_CLUSTER_UUID */
	       2 * nla_total_size(sizeof(u32)) +	/* TOPO_RACE_* */
	       nla_total_size(sizeof(u32)) +		/* TOPO_MANAGED_CHECK */
	       nla_total_size(sizeof(u32)) +		/* TOPO_FABRIC_STATE */
	       nla_total_size(CUFAB_BUS_ID_LEN) +	/* TOPO_NVSWITCH_BUS_ID */
	       nla_total_size(sizeof(u32)) +		/* TOPO_NVSWITCH_PCI_ID */
	       num_gpus * nla_total_size(cufab_nl_dev_size());
}

static int cufab_nl_put_topo(struct sk_buff *skb)
{
	char nvswitch_bus[CUFAB_BUS_ID_LEN];
	struct nlattr *nest;
	u32 i;

	lockdep_assert_held(&cufab_topo_rwsem);
	snprintf(nvswitch_bus, sizeof(nvswitch_bus), "%04x:%02x:00.0",
		 CUFAB_PCI_DOMAIN, CUFAB_NVSWITCH_BUS);
	if (nla_put_u32(skb, CUFAB_NL_A_TOPO_NUM_GPUS, cufab_node.num_gpus) ||
	    nla_put_u8(skb, CUFAB_NL_A_TOPO_NVSWITCH, cufab_node.nvswitch) ||
	    nla_put_u32(skb, CUFAB_NL_A_TOPO_CLIENTS, cufab_clients_count()) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_TOPO_LIVE_OBJECTS,
			      cufab_live_objects(), CUFAB_NL_A_PAD) ||
	    nla_put(skb, CUFAB_NL_A_TOPO_CLUSTER_UUID, CUFAB_UUID_LEN,
		    &cufab_node.cluster_uuid) ||
	    nla_put_u32(skb, CUFAB_NL_A_TOPO_RACE_DELAY_US,
			READ_ONCE(cufab_race_delay_us)) ||
	    nla_put_u32(skb, CUFAB_NL_A_TOPO_RACE_SEED,
			READ_ONCE(cufab_race_seed)) ||
	    nla_put_u32(skb, CUFAB_NL_A_TOPO_MANAGED_CHECK,
			READ_ONCE(cufab_managed_check)) ||
	    nla_put_u32(skb, CUFAB_NL_A_TOPO_FABRIC_STATE,
			cufab_health_state_now()) ||
	    nla_put_string(skb, CUFAB_NL_A_TOPO_NVSWITCH_BUS_ID, nvswitch_bus) ||
	    nla_put_u32(skb, CUFAB_NL_A_TOPO_NVSWITCH_PCI_ID,
			CUFAB_NVSWITCH_PCI_ID))
		return -EMSGSIZE;
	for (i = 0; i < cufab_node.num_gpus; i++) {
		nest = nla_nest_start(skb, CUFAB_NL_A_DEV);
		if (!nest)
			return -EMSGSIZE;
		if (cufab_nl_put_dev(skb, &cufab_node.gpus[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* Announce on "events" the state of GPU @index (cmd DEV_SET) or of the
 * node (cmd TOPO_SET) after a successful change.
 */
static void cufab_nl_notify(u8 cmd, u32 index)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	down_read(&cufab_topo_rwsem);
	msg = cufab_nl_event_new(cmd, cmd == CUFAB_NL_CMD_DEV_SET ?
				 cufab_nl_dev_size() :
				 cufab_nl_topo_size(cufab_node.num_gpus), &hdr);
	if (!msg)
		goto out;
	if (cmd == CUFAB_NL_CMD_DEV_SET)
		ret = cufab_node_gpu(index) ?
		      cufab_nl_put_dev(msg, cufab_node_gpu(index)) : -ENODEV;
	else
		ret = cufab_nl_put_topo(msg);
	if (ret)
		goto err_free;
	up_read(&cufab_topo_rwsem);
	cufab_nl_event_send(msg, hdr);
	return;

err_free:
	nlmsg_free(msg);
out:
	up_read(&cufab_topo_rwsem);
}

static int cufab_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct cufab_gpu *gpu;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_NL_A_DEV_INDEX))
		return -EINVAL;

	msg = genlmsg_new(cufab_nl_dev_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &cufab_nl_family, 0,
				CUFAB_NL_CMD_DEV_GET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err_free;
	}

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(nla_get_u32(info->attrs[CUFAB_NL_A_DEV_INDEX]));
	if (gpu)
		ret = cufab_nl_put_dev(msg, gpu);
	up_read(&cufab_topo_rwsem);
	if (!gpu) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[CUFAB_NL_A_DEV_INDEX],
				    "no such GPU: index is not below TOPO_NUM_GPUS");
		ret = -ENODEV;
	}
	if (ret)
		goto err_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return ret;
}

static int cufab_nl_dev_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	u32 i = cb->args[0];
	void *hdr;

	down_read(&cufab_topo_rwsem);
	for (; i < cufab_node.num_gpus; i++) {
		hdr = cufab_nl_dump_put(skb, cb, CUFAB_NL_CMD_DEV_GET);
		if (!hdr)
			break;
		if (cufab_nl_put_dev(skb, &cufab_node.gpus[i])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	up_read(&cufab_topo_rwsem);
	cb->args[0] = i;
	return skb->len;
}

/* DEV_PEERS rules that the policy cannot express: cufab_gpu_peers_check(). */
static int cufab_nl_check_peers(struct genl_info *info, u32 index)
{
	struct nlattr *attr = info->attrs[CUFAB_NL_A_DEV_PEERS];

	switch (cufab_gpu_peers_check(&cufab_node, index, nla_get_u64(attr))) {
	case CUFAB_PEERS_OK:
		return 0;
	case CUFAB_PEERS_NVSWITCH:
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "peers follow cliques while TOPO_NVSWITCH is on: turn it off first");
		break;
	case CUFAB_PEERS_NO_GPU:
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "DEV_PEERS has a bit for a GPU that does not exist");
		break;
	case CUFAB_PEERS_SELF:
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "DEV_PEERS: a GPU cannot be its own peer");
		break;
	}
	return -EINVAL;
}

/* DEV_SET's granularity attributes, in enum cufab_gran_field order. */
static const int cufab_nl_gran_attrs[CUFAB_GRAN_NR] = {
	CUFAB_NL_A_DEV_MEM_GRAN, CUFAB_NL_A_DEV_MEM_GRAN_REC,
	CUFAB_NL_A_DEV_MC_GRAN, CUFAB_NL_A_DEV_MC_GRAN_REC,
};

/* The GPU's granularities with those DEV_SET gives replaced. */
static void cufab_nl_gran_merge(struct nlattr **tb,
				const struct cufab_gpu *gpu,
				struct cufab_gran *gran)
{
	u64 given[CUFAB_GRAN_NR] = {};
	unsigned int i, set = 0;

	for (i = 0; i < CUFAB_GRAN_NR; i++) {
		if (!tb[cufab_nl_gran_attrs[i]])
			continue;
		given[i] = nla_get_u64(tb[cufab_nl_gran_attrs[i]]);
		set |= BIT(i);
	}
	cufab_gpu_gran_merge(gpu, given, set, gran);
}

/* NL_SET_ERR_MSG_ATTR() keeps a pointer: literals only. */
static void cufab_nl_gran_msg(struct netlink_ext_ack *extack,
			      const struct nlattr *attr,
			      enum cufab_gran_rule rule, bool rec_given)
{
	switch (rule) {
	case CUFAB_GRAN_NOT_POW2:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "granularity must be a power of two");
		break;
	case CUFAB_GRAN_TOO_SMALL:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "granularity must be at least the page size");
		break;
	case CUFAB_GRAN_TOO_LARGE:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "granularity must be at most 1 TiB");
		break;
	case CUFAB_GRAN_REC_NOT_MULTIPLE:
		if (rec_given)
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "RECOMMENDED granularity must be a multiple of the MINIMUM one");
		else
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "MINIMUM granularity must divide the GPU's RECOMMENDED one: give both");
		break;
	default:
		break;
	}
}

/*
 * The granularities the GPU would have must follow the module parameters'
 * rules. The extack names the attribute at fault: the one given, or the
 * MINIMUM when only it was given and the GPU's RECOMMENDED is no longer
 * a multiple of it.
 */
static int cufab_nl_check_gran(struct genl_info *info,
			       const struct cufab_gpu *gpu)
{
	struct nlattr **tb = info->attrs;
	enum cufab_gran_field field;
	enum cufab_gran_rule rule;
	struct cufab_gran gran;
	struct nlattr *attr;

	cufab_nl_gran_merge(tb, gpu, &gran);
	rule = cufab_gran_check(&gran, &field);
	if (rule == CUFAB_GRAN_OK)
		return 0;
	attr = tb[cufab_nl_gran_attrs[field]];
	if (rule == CUFAB_GRAN_REC_NOT_MULTIPLE && !attr)
		cufab_nl_gran_msg(info->extack,
				  tb[cufab_nl_gran_attrs[field - 1]], rule,
				  false);
	else
		cufab_nl_gran_msg(info->extack, attr, rule, true);
	pr_info("dev set gpu %u: granularities 0x%llx/0x%llx (memory) 0x%llx/0x%llx (multicast) refused: %s\n",
		gpu->index, gran.mem, gran.mem_rec, gran.mc, gran.mc_rec,
		cufab_gran_rule_str(rule));
	return -EINVAL;
}

/* Everything DEV_SET asks for is checked before anything is changed. */
static int cufab_nl_dev_set_check(struct genl_info *info, u32 index)
{
	struct nlattr **tb = info->attrs;
	int ret;

	ret = cufab_nl_check_gran(info, cufab_node_gpu(index));
	if (ret)
		return ret;

	if (tb[CUFAB_NL_A_DEV_MEM_TOTAL] &&
	    !IS_ALIGNED(nla_get_u64(tb[CUFAB_NL_A_DEV_MEM_TOTAL]), SZ_1M)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUFAB_NL_A_DEV_MEM_TOTAL],
				    "DEV_MEM_TOTAL must be a multiple of 1 MiB");
		return -EINVAL;
	}
	if (tb[CUFAB_NL_A_DEV_NUMA_NODE] &&
	    !cufab_numa_node_valid(nla_get_s32(tb[CUFAB_NL_A_DEV_NUMA_NODE]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUFAB_NL_A_DEV_NUMA_NODE],
				    "DEV_NUMA_NODE is not an online NUMA node (-1 for none)");
		return -EINVAL;
	}
	if (tb[CUFAB_NL_A_DEV_PEERS])
		return cufab_nl_check_peers(info, index);
	return 0;
}

static void cufab_nl_dev_set_apply(struct genl_info *info,
				   struct cufab_gpu *gpu)
{
	struct nlattr **tb = info->attrs;
	struct cufab_gran gran;

	if (tb[CUFAB_NL_A_DEV_MEM_TOTAL])
		gpu->mem_total = nla_get_u64(tb[CUFAB_NL_A_DEV_MEM_TOTAL]);
	if (tb[CUFAB_NL_A_DEV_NUMA_NODE])
		gpu->numa_node = nla_get_s32(tb[CUFAB_NL_A_DEV_NUMA_NODE]);
	if (tb[CUFAB_NL_A_DEV_CLIQUE])
		gpu->clique = nla_get_u32(tb[CUFAB_NL_A_DEV_CLIQUE]);
	if (tb[CUFAB_NL_A_DEV_FEATURES]) {
		u32 mask = CUFAB_DEV_F_ALL;

		if (tb[CUFAB_NL_A_DEV_FEATURES_MASK])
			mask = nla_get_u32(tb[CUFAB_NL_A_DEV_FEATURES_MASK]);
		gpu->features &= ~mask;
		gpu->features |= nla_get_u32(tb[CUFAB_NL_A_DEV_FEATURES]) & mask;
	}
	if (tb[CUFAB_NL_A_DEV_PEERS])
		cufab_gpu_set_peers(&cufab_node, gpu,
				    nla_get_u64(tb[CUFAB_NL_A_DEV_PEERS]));
	cufab_topo_update_peers(&cufab_node);
	cufab_nl_gran_merge(tb, gpu, &gran);
	cufab_gpu_set_gran(gpu, &gran);
}

/**
 * cufab_topo_change_begin() - start changing the node's topology
 *
 * On success the caller may modify cufab_node until cufab_topo_change_end();
 * meanwhile no client can open /dev/cufab.
 *
 * Return: 0, or -EBUSY while any client has /dev/cufab open (its objects
 * and the library's view were built for the current topology) or any
 * allocation lives (it is charged to a GPU).
 */
static int cufab_topo_change_begin(void)
{
	int ret;

	ret = cufab_clients_block();
	if (ret)
		return ret;
	/* exported allocations outlive their clients and are charged to GPUs */
	if (cufab_allocs_live()) {
		cufab_clients_unblock();
		pr_info("topology change refused: %llu allocations still live (exported dma-bufs? see debugfs cufab/mem)\n",
			cufab_allocs_live());
		return -EBUSY;
	}
	down_write(&cufab_topo_rwsem);
	return 0;
}

static void cufab_topo_change_end(void)
{
	up_write(&cufab_topo_rwsem);
	cufab_clients_unblock();
}

static int cufab_nl_change_begin(struct genl_info *info)
{
	int ret = cufab_topo_change_begin();

	if (ret)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "topology is fixed while a client has /dev/cufab open (see debugfs cufab/clients)");
	return ret;
}

static int cufab_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct cufab_gpu *gpu;
	u32 index;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, CUFAB_NL_A_DEV_INDEX))
		return -EINVAL;
	if (tb[CUFAB_NL_A_DEV_FEATURES_MASK] && !tb[CUFAB_NL_A_DEV_FEATURES]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUFAB_NL_A_DEV_FEATURES_MASK],
				    "DEV_FEATURES_MASK needs DEV_FEATURES");
		return -EINVAL;
	}
	index = nla_get_u32(tb[CUFAB_NL_A_DEV_INDEX]);

	ret = cufab_nl_change_begin(info);
	if (ret)
		return ret;
	gpu = cufab_node_gpu(index);
	if (!gpu) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUFAB_NL_A_DEV_INDEX],
				    "no such GPU: index is not below TOPO_NUM_GPUS");
		ret = -ENODEV;
		goto out;
	}
	ret = cufab_nl_dev_set_check(info, index);
	if (!ret)
		cufab_nl_dev_set_apply(info, gpu);
out:
	cufab_topo_change_end();
	if (!ret)
		cufab_nl_notify(CUFAB_NL_CMD_DEV_SET, index);
	return ret;
}

static int cufab_nl_topo_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	down_read(&cufab_topo_rwsem);
	msg = genlmsg_new(cufab_nl_topo_size(cufab_node.num_gpus), GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	hdr = genlmsg_put_reply(msg, info, &cufab_nl_family, 0,
				CUFAB_NL_CMD_TOPO_GET);
	ret = hdr ? cufab_nl_put_topo(msg) : -EMSGSIZE;
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
out:
	up_read(&cufab_topo_rwsem);
	return ret ? ret : genlmsg_reply(msg, info);
}

/*
 * The race-exposure knob (engine.c) changes how streams run, not what the
 * node is, so it may change while clients are open: their next operations
 * see it.
 */
static bool cufab_nl_set_race(struct nlattr **tb)
{
	bool any = false;

	if (tb[CUFAB_NL_A_TOPO_RACE_DELAY_US]) {
		WRITE_ONCE(cufab_race_delay_us,
			   nla_get_u32(tb[CUFAB_NL_A_TOPO_RACE_DELAY_US]));
		any = true;
	}
	if (tb[CUFAB_NL_A_TOPO_RACE_SEED]) {
		WRITE_ONCE(cufab_race_seed,
			   nla_get_u32(tb[CUFAB_NL_A_TOPO_RACE_SEED]));
		any = true;
	}
	return any;
}

/*
 * The managed memory check and the fabric state are run-time knobs too:
 * what the next operation checks, whether the fabric is usable.
 */
static bool cufab_nl_set_knobs(struct nlattr **tb)
{
	bool any = cufab_nl_set_race(tb);

	if (tb[CUFAB_NL_A_TOPO_MANAGED_CHECK]) {
		WRITE_ONCE(cufab_managed_check,
			   nla_get_u32(tb[CUFAB_NL_A_TOPO_MANAGED_CHECK]));
		any = true;
	}
	if (tb[CUFAB_NL_A_TOPO_FABRIC_STATE]) {
		u32 state = nla_get_u32(tb[CUFAB_NL_A_TOPO_FABRIC_STATE]);

		cufab_health_state_set_now(state);
		any = true;
	}
	return any;
}

static int cufab_nl_topo_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	int ret;

	if (!tb[CUFAB_NL_A_TOPO_NUM_GPUS] && !tb[CUFAB_NL_A_TOPO_NVSWITCH]) {
		/* the run-time knobs change while programs run */
		if (cufab_nl_set_knobs(tb))
			cufab_nl_notify(CUFAB_NL_CMD_TOPO_SET, 0);
		return 0;
	}
	ret = cufab_nl_change_begin(info);
	if (ret)
		return ret;
	if (tb[CUFAB_NL_A_TOPO_NUM_GPUS])
		ret = cufab_topo_resize(&cufab_node,
					nla_get_u32(tb[CUFAB_NL_A_TOPO_NUM_GPUS]));
	if (!ret && tb[CUFAB_NL_A_TOPO_NVSWITCH]) {
		/* turning it off keeps the derived peers as explicit ones */
		cufab_node.nvswitch = nla_get_u8(tb[CUFAB_NL_A_TOPO_NVSWITCH]);
		cufab_topo_update_peers(&cufab_node);
	}
	if (!ret)
		cufab_nl_set_knobs(tb);
	cufab_topo_change_end();
	if (!ret)
		cufab_nl_notify(CUFAB_NL_CMD_TOPO_SET, 0);
	return ret;
}

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
