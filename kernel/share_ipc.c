// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA IPC memory: CUFAB_IOCTL_IPC_MEM_EXPORT (cuIpcGetMemHandle) and
 * CUFAB_IOCTL_IPC_MEM_IMPORT (cuIpcOpenMemHandle); cuIpcCloseMemHandle is
 * MEM_FREE with CUFAB_MEM_FREE_IPC (alloc_linear.c).
 *
 * The rules are the driver's:
 *  - only cuMemAlloc memory is exported (not cuMemAllocHost, managed, VMM
 *    or pool memory: -EINVAL), by any address inside it, and the handle
 *    names the whole allocation;
 *  - the handle is a record of the node-wide export table
 *    (share_fabric.c) of its own kind, so it lives as long as the
 *    allocation does, and a handle of freed memory names nothing (-ESRCH);
 *  - the process that made the allocation cannot open it (-ELOOP: driver
 *    580 answers CUDA_ERROR_INVALID_CONTEXT);
 *  - an import maps the whole allocation at a new linear reservation of
 *    the importer, read-write for the allocation's GPU and, if asked, a
 *    peer of it; the mapping holds the allocation, so the exporter's
 *    cuMemFree does not take the pages from under the importer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/cufab.h>

#include "cufab.h"

/* The channel of IPC records: no IMEX channel, and never a FABRIC one. */
#define CUFAB_IPC_CHANNEL	(-2)

static_assert(CUFAB_IPC_MEM_HANDLE_LEN == CUFAB_FABRIC_HANDLE_LEN);

static void cufab_ipc_refused(struct cufab_client *client, u64 addr,
			      const char *why)
{
	cufab_pr_info(client, "cuIpcGetMemHandle: 0x%llx: %s\n", addr, why);
}

/* The cuMemAlloc allocation holding @addr, with a reference. */
static struct cufab_alloc *cufab_ipc_alloc_at(struct cufab_client *client,
					      u64 addr)
{
	struct cufab_alloc *alloc = ERR_PTR(-EINVAL);
	struct cufab_va_map *map;
	struct cufab_va *va;

	va = cufab_va_find(client, addr);
	if (!va) {
		cufab_ipc_refused(client, addr, "not cufab memory of this process");
		return alloc;
	}
	down_read(&va->lock);
	map = va->dead ? NULL : mtree_load(&va->maps, va->start);
	if (va->linear && !READ_ONCE(va->ipc) && map &&
	    map->alloc->ops == &cufab_linear_alloc_ops &&
	    map->alloc->location_type == CUFAB_LOC_DEVICE) {
		alloc = map->alloc;
		cufab_alloc_get(alloc);
	}
	up_read(&va->lock);
	cufab_va_put(va);
	if (IS_ERR(alloc))
		cufab_ipc_refused(client, addr,
				  "not cuMemAlloc device memory (cuMemAllocHost, managed, VMM, pool and opened IPC memory cannot be exported)");
	return alloc;
}

int cufab_ioctl_ipc_mem_export(struct cufab_ucmd *ucmd)
{
	struct cufab_ipc_mem_export *cmd = ucmd->cmd;
	struct cufab_alloc *alloc;
	int ret;

	if (cmd->flags) {
		cufab_pr_info(ucmd->client, "cuIpcGetMemHandle: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	alloc = cufab_ipc_alloc_at(ucmd->client, cmd->addr);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	if (cufab_should_fail(CUFAB_FAULT_MEM_SHARE))
		ret = -ENOMEM;
	else
		ret = cufab_fabric_export_as(alloc, CUFAB_IPC_MEM_MAGIC,
					     CUFAB_IPC_CHANNEL,
					     cmd->out_handle);
	cufab_alloc_put(alloc);
	return ret ?: cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* The allocation @handle names, if this process may open it. */
static struct cufab_alloc *cufab_ipc_find(struct cufab_client *client,
					  const u8 *handle)
{
	struct cufab_alloc *alloc;
	int channel;

	alloc = cufab_fabric_import_as(CUFAB_IPC_MEM_MAGIC, handle, &channel,
				       -ESRCH);
	if (IS_ERR(alloc)) {
		cufab_pr_info(client, "cuIpcOpenMemHandle: the handle: %s\n",
			      PTR_ERR(alloc) == -EINVAL ?
			      "not an IPC memory handle of this module" :
			      "names no live allocation (freed, or forged)");
		return alloc;
	}
	if (alloc->owner_pid == task_tgid_nr(current)) {
		cufab_pr_info(client, "cuIpcOpenMemHandle: allocation %llu is this process's own: open it in another process\n",
			      alloc->id);
		cufab_alloc_put(alloc);
		return ERR_PTR(-ELOOP);
	}
	if (!cufab_node_gpu_exists(alloc->location_id)) {
		cufab_pr_info(client, "cuIpcOpenMemHandle: allocation %llu: its gpu %u no longer exists\n",
			      alloc->id, alloc->location_id);
		cufab_alloc_put(alloc);
		return ERR_PTR(-ENODEV);
	}
	return alloc;
}

/* The GPUs that get access: the allocation's, and @peer if it is a peer. */
static u64 cufab_ipc_gpus(u32 dev, u32 peer)
{
	struct cufab_gpu *gpu;
	u64 gpus = BIT_ULL(dev);

	if (peer == CUFAB_DEV_STREAM || peer == dev || peer >= 64)
		return gpus;
	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(dev);
	if (gpu && (gpu->peers & BIT_ULL(peer)))
		gpus |= BIT_ULL(peer);
	up_read(&cufab_topo_rwsem);
	return gpus;
}

/* Mark the new reservation at @addr an IPC view tied to context @ctx. */
static void cufab_ipc_set_va(struct cufab_client *client, u64 addr,
			     struct cufab_ctx *ctx)
{
	struct cufab_va *va;

	mutex_lock(&client->va.lock);
	va = mtree_load(&client->va.ranges, addr);
	if (va && !xa_is_value(va)) {
		WRITE_ONCE(va->ipc, true);
		WRITE_ONCE(va->linear_ctx, ctx->obj.id);
	}
	ctx->linear = true;
	mutex_unlock(&client->va.lock);
}

static int cufab_ipc_map(struct cufab_client *client, struct cufab_alloc *alloc,
			 struct cufab_ctx *ctx, u32 peer, u64 *out)
{
	u32 dev = alloc->location_id;
	u64 addr, gpus;
	int ret;

	ret = cufab_va_reserve(client, 0, alloc->length, PAGE_SIZE, true, dev,
			       &addr);
	if (ret)
		return ret;
	cufab_ipc_set_va(client, addr, ctx);
	ret = cufab_va_map_alloc(client, addr, alloc->length, 0, alloc, 0);
	gpus = cufab_ipc_gpus(dev, peer);
	if (!ret)
		ret = cufab_va_set_access_all(client, addr, alloc->length,
					      CUFAB_ACCESS_RW, gpus, gpus);
	if (ret) {
		cufab_va_unmap_munmap(client, addr, 0, true);
		return ret;
	}
	*out = addr;
	return 0;
}

int cufab_ioctl_ipc_mem_import(struct cufab_ucmd *ucmd)
{
	struct cufab_ipc_mem_import *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_alloc *alloc;
	struct cufab_object *ctx;
	u64 addr;
	int ret;

	if (cmd->flags || cmd->__reserved) {
		cufab_pr_info(client, "cuIpcOpenMemHandle: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	ctx = cufab_object_get(client, cmd->ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	alloc = cufab_ipc_find(client, cmd->handle);
	if (IS_ERR(alloc)) {
		ret = PTR_ERR(alloc);
		goto out_ctx;
	}
	if (cufab_should_fail(CUFAB_FAULT_MEM_SHARE)) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cufab_ipc_map(client, alloc,
			    container_of(ctx, struct cufab_ctx, obj),
			    cmd->peer_dev, &addr);
	if (ret)
		goto out;
	cmd->out_addr = addr;
	cmd->out_length = alloc->length;
	cmd->out_dev = alloc->location_id;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		cufab_va_unmap_munmap(client, addr, 0, true);
out:
	cufab_alloc_put(alloc);
out_ctx:
	cufab_object_put(ctx);
	return ret;
}
