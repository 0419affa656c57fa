// SPDX-License-Identifier: GPL-2.0
/*
 * The node's configuration over netlink: DEV_GET/DEV_SET (one GPU) and
 * TOPO_GET/TOPO_SET (the node), registered in the family's op table
 * (netlink.c, which also holds their policies). The rules of a change are
 * device.c's validated setters; this file checks the request against
 * them, says in the extack which rule was broken, and makes the change
 * inside the topology gate (cufab_topo_change_begin/end): only while no
 * client has /dev/cufab open and no allocation lives. Every successful
 * change is announced on the "events" group.
 *
 * Locking: genl_mutex serialises the handlers. Under it:
 * cufab_clients_lock -> cufab_topo_rwsem (device.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/mm.h>
#include <linux/numa.h>
#include <linux/sizes.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"

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

int cufab_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
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
	hdr = cufab_nl_reply_put(msg, info, CUFAB_NL_CMD_DEV_GET);
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

int cufab_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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

int cufab_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
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

int cufab_nl_topo_get_doit(struct sk_buff *skb, struct genl_info *info)
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
	hdr = cufab_nl_reply_put(msg, info, CUFAB_NL_CMD_TOPO_GET);
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

int cufab_nl_topo_set_doit(struct sk_buff *skb, struct genl_info *info)
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
