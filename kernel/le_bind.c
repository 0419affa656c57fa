// SPDX-License-Identifier: GPL-2.0
/*
 * Logical endpoints: devices and memory (cuLogicalEndpointAddDevice,
 * BindMem, BindAddr, Unbind).
 *
 * The team (team.h) checks what any bind must satisfy (member device,
 * alignment, bounds, placement of the memory, overlap) and the unbind
 * rules. Here are the rules of endpoints: the id was queried ready, a
 * unicast endpoint binds only on its owner, imported unicast endpoints
 * bind nothing, exportable and imported endpoints bind only exportable
 * memory, and the memory comes from cuMemCreate.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

static int cufab_le_add_locked(struct cufab_client *client, u32 id, u32 dev)
{
	struct cufab_team_who who = { client, "cuLogicalEndpointAddDevice" };
	struct cufab_le_alias *alias;
	struct cufab_gpu_facts f;
	struct cufab_le *le;
	int ret;

	alias = cufab_le_alias_find(client, id, who.call);
	if (!alias)
		return -EINVAL;
	le = alias->le;
	if (le->type != CUFAB_LE_TYPE_MULTICAST) {
		cufab_pr_info(client, "cuLogicalEndpointAddDevice: endpoint id %u (endpoint %llu) is unicast; only multicast endpoints take devices\n",
			      id, le->number);
		return -EINVAL;
	}
	if (cufab_gpu_facts(dev, &f)) {
		cufab_pr_info(client, "cuLogicalEndpointAddDevice: gpu %u does not exist (node has %u GPUs)\n",
			      dev, cufab_node_num_gpus());
		return -ENODEV;
	}
	if (!(f.features & CUFAB_DEV_F_LE_MULTICAST)) {
		cufab_pr_info(client, "cuLogicalEndpointAddDevice: gpu %u does not support multicast logical endpoints (attribute 154)\n",
			      dev);
		return -EOPNOTSUPP;
	}
	/*
	 * Construction restarts with every device that joins, and only
	 * then: a refused add leaves a complete endpoint ready. One of
	 * another node's team joins through that node (fabric_le.c).
	 */
	if (le->span && cufab_le_span_ops()) {
		ret = cufab_le_span_ops()->add_device(le, dev, &who);
	} else {
		ret = cufab_team_add_device_stamp(le->team, dev, &who,
						  &le->ready_at,
						  cufab_le_deadline());
		if (!ret)
			cufab_le_changed(le);
	}
	/* the team logged why; a full team or a repeat is a bad value */
	if (ret == -EEXIST || ret == -ENOSPC)
		ret = -EINVAL;
	/*
	 * Another clique: NOT_SUPPORTED, as cuLogicalEndpointImport says
	 * for a GPU that cannot use the endpoint (the page lists no
	 * INVALID_DEVICE).
	 */
	if (ret == -ENODEV)
		ret = -EOPNOTSUPP;
	return ret;
}

int cufab_ioctl_le_add_device(struct cufab_ucmd *ucmd)
{
	struct cufab_le_add_device *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	mutex_lock(&client->le.lock);
	ret = cufab_le_add_locked(client, cmd->id, cmd->dev);
	mutex_unlock(&client->le.lock);
	return ret;
}

/* The alias of @id if LE_QUERY reported it ready, else NULL (logged). */
static struct cufab_le_alias *cufab_le_alias_ready(struct cufab_client *client,
						   u32 id, const char *what)
{
	struct cufab_le_alias *alias;

	alias = cufab_le_alias_find(client, id, what);
	if (alias && !alias->queried_ready) {
		cufab_pr_info(client, "%s: endpoint id %u was not reported ready by cuLogicalEndpointQuery yet\n",
			      what, id);
		return NULL;
	}
	return alias;
}

/* The memory of a bind, with a reference; ERR_PTR(-ENOENT/-EINVAL). */
static struct cufab_alloc *cufab_le_bind_memory(struct cufab_client *client,
						struct cufab_le_bind *cmd,
						u64 align, u64 *mem_offset)
{
	struct cufab_alloc *alloc;
	int ret;

	if (!(cmd->flags & CUFAB_BIND_ADDR)) {
		*mem_offset = cmd->mem_offset;
		return cufab_mem_handle_lookup(client, cmd->mem_handle);
	}
	if (cmd->addr % align) {
		cufab_pr_info(client, "cuLogicalEndpointBindAddr: address 0x%llx is not a multiple of the bind alignment 0x%llx\n",
			      cmd->addr, align);
		return ERR_PTR(-EINVAL);
	}
	ret = cufab_va_resolve(client, cmd->addr, cmd->length, &alloc,
			       mem_offset);
	if (ret) {
		cufab_pr_info(client, "cuLogicalEndpointBindAddr: [0x%llx, +0x%llx) is not inside one cuMemMap mapping of this process\n",
			      cmd->addr, cmd->length);
		return ERR_PTR(-EINVAL);
	}
	return alloc;
}

/* Rules of the endpoint (not of the team) for binding @alloc. */
static int cufab_le_bind_allowed(struct cufab_client *client,
				 const char *call,
				 struct cufab_le_alias *alias, u32 dev,
				 struct cufab_alloc *alloc)
{
	struct cufab_le *le = alias->le;

	if (!cufab_alloc_has(alloc, CUFAB_ALLOC_BINDABLE)) {
		cufab_pr_info(client, "%s: allocation %llu is %s memory; only cuMemCreate memory can be bound\n",
			      call, alloc->id, alloc->ops->name);
		return -EINVAL;
	}
	if (le->type == CUFAB_LE_TYPE_UNICAST && dev != le->owner_dev) {
		cufab_pr_info(client, "%s: gpu %u is not the owner gpu %u of unicast endpoint %llu\n",
			      call, dev, le->owner_dev, le->number);
		return -EINVAL;
	}
	if ((le->ipc_types || alias->imported) && !alloc->handle_types) {
		cufab_pr_info(client, "%s: endpoint %llu is %s, so only exportable memory binds; allocation %llu has no requestedHandleTypes\n",
			      call, le->number, alias->imported ? "imported" : "exportable",
			      alloc->id);
		return -EINVAL;
	}
	/* another node reaches the replicas only where it maps them too */
	if ((le->ipc_types & CUFAB_LE_IPC_FABRIC) && cufab_window_present() &&
	    !cufab_alloc_in_window(alloc)) {
		cufab_pr_info(client, "logical endpoint bind: endpoint %llu is exportable as FABRIC, so only memory in the fabric window binds; allocation %llu has %s pages (create it with CU_MEM_HANDLE_TYPE_FABRIC)\n",
			      le->number, alloc->id,
			      alloc->provider ? alloc->provider->name : "no");
		return -EINVAL;
	}
	return 0;
}

static int cufab_le_bind_locked(struct cufab_client *client,
				struct cufab_le_bind *cmd)
{
	struct cufab_team_who who = {
		client, cmd->flags & CUFAB_BIND_ADDR ?
			"cuLogicalEndpointBindAddr" : "cuLogicalEndpointBindMem"
	};
	struct cufab_le_alias *alias;
	struct cufab_bind_req req = {
		.gpu = cmd->dev, .offset = cmd->offset, .size = cmd->length,
		.owner = client, .who = &who,
	};
	struct cufab_alloc *alloc;
	struct cufab_le *le;
	int ret;

	alias = cufab_le_alias_ready(client, cmd->id, who.call);
	if (!alias)
		return -EINVAL;
	le = alias->le;
	if (alias->imported && le->type == CUFAB_LE_TYPE_UNICAST) {
		cufab_pr_info(client, "%s: endpoint id %u is an imported unicast endpoint (%llu); those cannot be bound to memory\n",
			      who.call, cmd->id, le->number);
		return -EPERM;
	}
	alloc = cufab_le_bind_memory(client, cmd, le->align, &req.mem_offset);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	ret = cufab_le_bind_allowed(client, who.call, alias, cmd->dev, alloc);
	if (!ret) {
		req.alloc = alloc;
		req.tag = alias;
		ret = cufab_team_bind(le->team, &req);
		if (!ret)
			cufab_le_changed(le);
	}
	cufab_alloc_put(alloc);
	return ret;
}

int cufab_ioctl_le_bind(struct cufab_ucmd *ucmd)
{
	struct cufab_le_bind *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	int ret;

	if (cmd->flags & ~CUFAB_BIND_ADDR || cmd->__reserved)
		return -EINVAL;
	if (cmd->bind_flags) {
		cufab_pr_info(client, "%s: flags 0x%llx must be 0\n",
			      cmd->flags & CUFAB_BIND_ADDR ?
			      "cuLogicalEndpointBindAddr" :
			      "cuLogicalEndpointBindMem", cmd->bind_flags);
		return -EINVAL;
	}
	mutex_lock(&client->le.lock);
	ret = cufab_le_bind_locked(client, cmd);
	mutex_unlock(&client->le.lock);
	return ret;
}

int cufab_ioctl_le_unbind(struct cufab_ucmd *ucmd)
{
	struct cufab_le_unbind *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_team_who who = { client, "cuLogicalEndpointUnbind" };
	struct cufab_le_alias *alias;
	int ret = -EINVAL;

	if (cmd->flags)
		return -EINVAL;
	mutex_lock(&client->le.lock);
	alias = cufab_le_alias_ready(client, cmd->id, who.call);
	if (alias)
		ret = cufab_team_unbind(alias->le->team, cmd->dev, cmd->offset,
					cmd->length, client, &who);
	if (!ret)
		cufab_le_changed(alias->le);
	mutex_unlock(&client->le.lock);
	return ret;
}
