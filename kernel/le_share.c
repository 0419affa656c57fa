// SPDX-License-Identifier: GPL-2.0
/*
 * Logical endpoints across processes: cuLogicalEndpointExport and
 * cuLogicalEndpointImport with CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC.
 *
 * Exporting an endpoint on an IMEX channel creates a record: a node-wide
 * export id, the channel and a random secret. The 64-byte handle has the
 * layout of memory FABRIC handles (share_fabric.c) with its own magic, so
 * an allocation's handle is never taken for an endpoint's. Importing needs
 * the exporter's channel and makes a new alias of the same endpoint in the
 * importer's id space.
 *
 * Lifetime: records hold no reference; the endpoint's release removes its
 * records under cufab_le_share_lock before freeing, and import takes its
 * reference with kref_get_unless_zero() under that lock. So a handle is
 * valid while any alias of its endpoint lives anywhere.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"
#include "trace.h"

/**
 * struct cufab_le_export - one FABRIC export of an endpoint
 * @id: index in cufab_le_exports
 * @channel: IMEX channel of the exporter
 * @secret: random bytes the handle must carry
 * @le: weak; valid while the record is in the table
 * @node: entry in the endpoint's export list
 */
struct cufab_le_export {
	u32 id;
	int channel;
	u8 secret[CUFAB_FABRIC_SECRET_LEN];
	struct cufab_le *le;
	struct list_head node;
};

static DEFINE_MUTEX(cufab_le_share_lock);
static DEFINE_XARRAY_ALLOC1(cufab_le_exports);
/* cyclic: the id of a dead endpoint's handle is not reused soon */
static u32 cufab_le_next_export;

/* The endpoint's final put: its handles become invalid. */
void cufab_le_exports_drop(struct cufab_le *le)
{
	struct cufab_le_export *rec, *tmp;

	mutex_lock(&cufab_le_share_lock);
	list_for_each_entry_safe(rec, tmp, &le->exports, node) {
		xa_erase(&cufab_le_exports, rec->id);
		list_del(&rec->node);
		kfree(rec);
	}
	mutex_unlock(&cufab_le_share_lock);
}

/* The record of @le on @channel, made on first export. */
static struct cufab_le_export *cufab_le_record(struct cufab_le *le,
					       int channel)
{
	struct cufab_le_export *rec;
	int ret;

	lockdep_assert_held(&cufab_le_share_lock);
	list_for_each_entry(rec, &le->exports, node)
		if (rec->channel == channel)
			return rec;
	if (cufab_should_fail(CUFAB_FAULT_LE))
		return ERR_PTR(-ENOMEM);
	rec = kzalloc(sizeof(*rec), GFP_KERNEL_ACCOUNT);
	if (!rec)
		return ERR_PTR(-ENOMEM);
	rec->channel = channel;
	rec->le = le;
	get_random_bytes(rec->secret, sizeof(rec->secret));
	ret = xa_alloc_cyclic(&cufab_le_exports, &rec->id, rec, xa_limit_32b,
			      &cufab_le_next_export, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		kfree(rec);
		return ERR_PTR(ret);
	}
	list_add_tail(&rec->node, &le->exports);
	if (!le->exporter_pid)
		le->exporter_pid = task_tgid_nr(current);
	return rec;
}

static int cufab_le_export_locked(struct cufab_client *client,
				  struct cufab_le_share *cmd)
{
	struct cufab_le_alias *alias;
	struct cufab_le_export *rec;
	struct cufab_le *le;

	alias = cufab_le_alias_find(client, cmd->id, "cuLogicalEndpointExport");
	if (!alias)
		return -EINVAL;
	le = alias->le;
	if (!(le->ipc_types & CUFAB_LE_IPC_FABRIC)) {
		cufab_pr_info(client, "cuLogicalEndpointExport: endpoint id %u (endpoint %llu) was created with ipcHandleTypes 0x%x, without FABRIC (0x1)\n",
			      cmd->id, le->number, le->ipc_types);
		return -EINVAL;
	}
	mutex_lock(&cufab_le_share_lock);
	rec = cufab_le_record(le, cufab_imex_channel(client));
	if (!IS_ERR(rec)) {
		cufab_fabric_encode_as(CUFAB_FABRIC_LE_MAGIC, rec->id,
				       rec->secret, cmd->fabric);
		trace_cufab_le_export(le);
	}
	mutex_unlock(&cufab_le_share_lock);
	return PTR_ERR_OR_ZERO(rec);
}

static int cufab_le_share_check(struct cufab_client *client,
				struct cufab_le_share *cmd, const char *what)
{
	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (cmd->handle_type != CUFAB_LE_IPC_FABRIC) {
		cufab_pr_info(client, "%s: handle type %u is not CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC (1), the only one\n",
			      what, cmd->handle_type);
		return -EINVAL;
	}
	return cufab_imex_check(client, what);
}

int cufab_ioctl_le_export(struct cufab_ucmd *ucmd)
{
	struct cufab_le_share *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	int ret;

	ret = cufab_le_share_check(client, cmd, "cuLogicalEndpointExport");
	if (ret)
		return ret;
	mutex_lock(&client->le.lock);
	ret = cufab_le_export_locked(client, cmd);
	mutex_unlock(&client->le.lock);
	if (ret)
		return ret;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* The endpoint a handle of this node names, with a reference, and its channel. */
struct cufab_le *cufab_le_fabric_lookup(const u8 *fabric, int *channel)
{
	struct cufab_le *le = ERR_PTR(-EINVAL);
	struct cufab_le_export *rec;
	const u8 *secret;
	u32 id;

	if (cufab_fabric_decode_as(CUFAB_FABRIC_LE_MAGIC, fabric, &id, &secret))
		return le;
	mutex_lock(&cufab_le_share_lock);
	rec = xa_load(&cufab_le_exports, id);
	if (rec && cufab_fabric_secret_ok(rec->secret, secret) &&
	    kref_get_unless_zero(&rec->le->ref)) {
		le = rec->le;
		*channel = rec->channel;
	}
	mutex_unlock(&cufab_le_share_lock);
	return le;
}

/* Can the importer's GPU @dev (-1: none) use @le? 0, -ENODEV, -EOPNOTSUPP. */
static int cufab_le_import_dev(struct cufab_client *client,
			       struct cufab_le *le, s32 dev)
{
	u32 need = le->type == CUFAB_LE_TYPE_UNICAST ? CUFAB_DEV_F_LE_UNICAST :
						       CUFAB_DEV_F_LE_MULTICAST;
	struct cufab_gpu_facts f;
	s32 team_clique;

	if (dev < 0)
		return 0;
	if (cufab_gpu_facts(dev, &f))
		return -ENODEV;
	mutex_lock(&le->team->lock);
	team_clique = le->team->clique;
	mutex_unlock(&le->team->lock);
	if (!(f.features & need) ||
	    (team_clique >= 0 && f.clique != team_clique)) {
		cufab_pr_info(client, "cuLogicalEndpointImport: gpu %u (clique %u) cannot use endpoint %llu (clique %d): %s\n",
			      dev, f.clique, le->number, team_clique,
			      f.features & need ?
			      "not in the endpoint's clique" :
			      "no logical endpoint support");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Another node's endpoint: this node's endpoint of its team, made by the
 * fabric layer (fabric_le.c); -EINVAL for a node outside the domain;
 * -EHOSTDOWN (CUDA_ERROR_SYSTEM_NOT_READY) on a node without a fabric
 * window, as with IMEX down.
 */
static struct cufab_le *cufab_le_import_remote(struct cufab_client *client,
					       const u8 *fabric,
					       unsigned int node)
{
	const struct cufab_le_span_ops *ops = cufab_le_span_ops();
	struct cufab_le *le;

	/* a node outside the domain produced nothing: a forged handle */
	if (node >= cufab_domain_nodes()) {
		cufab_pr_info(client, "cuLogicalEndpointImport: the handle is of node %u; the domain has %u nodes (num_nodes)\n",
			      node, cufab_domain_nodes());
		return ERR_PTR(-EINVAL);
	}
	if (!ops) {
		cufab_pr_info(client, "cuLogicalEndpointImport: the handle is of node %u; this node has no fabric window to reach it\n",
			      node);
		return ERR_PTR(-EHOSTDOWN);
	}
	le = ops->import(client, fabric, node);
	if (IS_ERR(le))
		cufab_pr_info(client, "cuLogicalEndpointImport: node %u's endpoint: %d%s\n",
			      node, (int)PTR_ERR(le),
			      PTR_ERR(le) == -EHOSTDOWN ?
			      " (cufab-imexd not running, or node unreachable)" : "");
	return le;
}

static int cufab_le_import(struct cufab_client *client,
			   struct cufab_le_share *cmd)
{
	struct cufab_le *le;
	unsigned int node;
	int channel, ret;

	/* another node's: its home checks the handle and the channel */
	if (!cufab_fabric_handle_node(CUFAB_FABRIC_LE_MAGIC, cmd->fabric,
				      &node) && node != cufab_node.node_index) {
		le = cufab_le_import_remote(client, cmd->fabric, node);
		if (IS_ERR(le))
			return PTR_ERR(le);
		goto add;
	}
	le = cufab_le_fabric_lookup(cmd->fabric, &channel);
	if (IS_ERR(le)) {
		cufab_pr_info(client, "cuLogicalEndpointImport: the handle names no live endpoint of this node (forged, or every alias destroyed)\n");
		return PTR_ERR(le);
	}
	if (channel != cufab_imex_channel(client)) {
		cufab_pr_info(client, "cuLogicalEndpointImport: endpoint %llu was exported on IMEX channel %d, this process presented channel %d (%s/channelN)\n",
			      le->number, channel, cufab_imex_channel(client),
			      CUFAB_IMEX_DIR);
		ret = -EPERM;
		goto out;
	}
add:
	ret = cufab_le_import_dev(client, le, cmd->dev);
	if (ret)
		goto out;
	mutex_lock(&client->le.lock);
	ret = cufab_le_alias_add(client, cmd->id, le, true);
	mutex_unlock(&client->le.lock);
	if (!ret)
		trace_cufab_le_import(le);
out:
	cufab_le_put(le);
	return ret;
}

int cufab_ioctl_le_import(struct cufab_ucmd *ucmd)
{
	struct cufab_le_share *cmd = ucmd->cmd;
	int ret;

	ret = cufab_le_share_check(ucmd->client, cmd, "cuLogicalEndpointImport");
	if (ret)
		return ret;
	return cufab_le_import(ucmd->client, cmd);
}

/* Module exit: every endpoint is gone, so must every record be. */
void cufab_le_share_exit(void)
{
	WARN_ON(!xa_empty(&cufab_le_exports));
	xa_destroy(&cufab_le_exports);
}
