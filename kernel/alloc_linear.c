// SPDX-License-Identifier: GPL-2.0
/*
 * The cuMemAlloc kind of allocation: cuMemAlloc/cuMemFree and
 * cuMemAllocHost/cuMemFreeHost; cuMemAllocManaged's memory is made and
 * freed here the same way, with its own kind (alloc_managed.c).
 *
 * A linear allocation is create + reserve + map + access in one call, on
 * the same building blocks as the VMM calls. Its reservation is marked
 * linear (struct cufab_va) so that the VMM calls refuse it and pointer
 * queries report the whole allocation, and is tied to the context it was
 * made in, whose destroy frees it.
 *
 * Locks: none of its own; see va.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/cufab.h>

#include "cufab.h"

const struct cufab_alloc_ops cufab_linear_alloc_ops = {
	.name = "cuMemAlloc",
	.flags = CUFAB_ALLOC_LINEAR,
	.page = cufab_alloc_store_page,
	.map_prepare = cufab_alloc_map_check,
};

/* GPUs of the node as a bitmask, for host memory every device reaches. */
static u64 cufab_all_gpus_mask(void)
{
	u32 n = cufab_node_num_gpus();

	return n >= 64 ? U64_MAX : BIT_ULL(n) - 1;
}

/*
 * Tie the new linear reservation at @addr to context @ctx (NULL: none).
 * The caller holds the context, so its destroy (cufab_mem_free_ctx())
 * cannot be walking the reservations meanwhile; the context is marked as
 * having had one, under the lock that walk reads the mark under.
 */
static void cufab_mem_set_ctx(struct cufab_client *client, u64 addr,
			      struct cufab_ctx *ctx, u32 host_flags)
{
	struct cufab_va *va;

	mutex_lock(&client->va.lock);
	va = mtree_load(&client->va.ranges, addr);
	if (va && !xa_is_value(va)) {
		WRITE_ONCE(va->linear_ctx, ctx ? ctx->obj.id : 0);
		/* cuMemHostAlloc's flags, for cuMemHostGetFlags */
		WRITE_ONCE(va->host_flags, host_flags);
	}
	if (ctx)
		ctx->linear = true;
	mutex_unlock(&client->va.lock);
}

/*
 * Create, reserve, map and open up a linear allocation; its address.
 * Host and managed memory is on no GPU's capacity and every GPU reaches
 * it; @attach (CUFAB_ATTACH_*) makes it managed (alloc_managed.c).
 */
static int cufab_mem_alloc_linear(struct cufab_client *client,
				  const char *call, u32 dev, bool host,
				  u32 attach, u64 length,
				  struct cufab_ctx *ctx, u32 host_flags,
				  u64 *out)
{
	struct cufab_alloc_desc desc = {
		.location_type = host ? CUFAB_LOC_HOST : CUFAB_LOC_DEVICE,
		.location_id = host ? -1 : dev,
		.length = length,
		.ops = &cufab_linear_alloc_ops,
		.client = client,
		.call = call,
	};
	struct cufab_alloc *alloc;
	u64 addr, gpus;
	int ret;

	if (attach) {
		desc.ops = &cufab_managed_alloc_ops;
		desc.priv = cufab_managed_new(length, attach);
		if (!desc.priv) {
			cufab_pr_info(client, "%s: size 0x%llx: no kernel memory for the state of its pages\n",
				      call, length);
			return -ENOMEM;
		}
	}
	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc)) {
		if (desc.priv)
			cufab_managed_free(desc.priv);
		return PTR_ERR(alloc);
	}
	ret = cufab_va_reserve(client, 0, length, PAGE_SIZE, true, dev, &addr);
	if (ret) {
		cufab_pr_info(client, "%s: size 0x%llx: no free range that large in the process's address space\n",
			      call, length);
		goto out;
	}
	cufab_mem_set_ctx(client, addr, ctx, host_flags);
	ret = cufab_va_map_alloc(client, addr, length, 0, alloc, 0);
	if (ret)
		goto err_unreserve;
	/* host memory is portable to every device; device memory to its own */
	gpus = host || attach ? cufab_all_gpus_mask() : BIT_ULL(dev);
	ret = cufab_va_set_access_all(client, addr, length, CUFAB_ACCESS_RW,
				      gpus, gpus);
	if (ret)
		goto err_unreserve;
	*out = addr;
	goto out;

err_unreserve:
	cufab_va_unmap_munmap(client, addr, 0, true);
out:
	cufab_alloc_put(alloc);	/* the mapping holds it */
	return ret;
}

/*
 * MEM_ALLOC's context, held until the allocation is tied to it (so that
 * it cannot be destroyed in between): NULL for none, ERR_PTR(-ENOENT) for
 * no such context, -EINVAL for a context of another GPU than @dev.
 */
static struct cufab_object *cufab_mem_alloc_ctx(struct cufab_client *client,
						u32 ctx_id, u32 dev)
{
	struct cufab_object *obj;

	if (!ctx_id)
		return NULL;
	obj = cufab_object_get(client, ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(obj)) {
		cufab_pr_info(client, "cuMemAlloc: context %u: no such context\n",
			      ctx_id);
		return obj;
	}
	if (container_of(obj, struct cufab_ctx, obj)->dev != dev) {
		cufab_pr_info(client, "cuMemAlloc: gpu %u in context %u of gpu %u: a context allocates on its own device\n",
			      dev, ctx_id,
			      container_of(obj, struct cufab_ctx, obj)->dev);
		cufab_object_put(obj);
		return ERR_PTR(-EINVAL);
	}
	return obj;
}

/* cuMemAllocManaged's flags: exactly GLOBAL or HOST */
static bool cufab_attach_default_ok(u32 attach)
{
	return attach == CUFAB_ATTACH_GLOBAL || attach == CUFAB_ATTACH_HOST;
}

int cufab_ioctl_mem_alloc(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_alloc *cmd = ucmd->cmd;
	bool managed = cmd->flags & CUFAB_MEM_ALLOC_MANAGED;
	bool host = cmd->flags & CUFAB_MEM_ALLOC_HOST;
	struct cufab_object *ctx;
	u64 length, addr;
	int ret;

	const char *call = managed ? "cuMemAllocManaged" :
			   host ? "cuMemHostAlloc" : "cuMemAlloc";

	if ((cmd->flags & ~(CUFAB_MEM_ALLOC_HOST | CUFAB_MEM_ALLOC_MANAGED)) ||
	    (host && managed) || !cmd->length) {
		cufab_pr_info(ucmd->client, "%s: flags 0x%x size %llu: the size must be non-zero, the memory host or managed, not both\n",
			      call, cmd->flags, cmd->length);
		return -EINVAL;
	}
	if ((cmd->host_flags & ~CUFAB_HOSTALLOC_VALID) ||
	    (cmd->host_flags && !host)) {
		cufab_pr_info(ucmd->client, "cuMemHostAlloc: flags 0x%x: only PORTABLE, DEVICEMAP and WRITECOMBINED, for host memory\n",
			      cmd->host_flags);
		return -EINVAL;
	}
	if (!managed && cmd->attach) {
		cufab_pr_info(ucmd->client, "%s: attach 0x%x: only cuMemAllocManaged takes attach flags\n",
			      call, cmd->attach);
		return -EINVAL;
	}
	if (managed && !cufab_attach_default_ok(cmd->attach)) {
		cufab_pr_info(ucmd->client, "cuMemAllocManaged: flags 0x%x: must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST\n",
			      cmd->attach);
		return -EINVAL;
	}
	if (!cufab_node_gpu_exists(cmd->dev)) {
		cufab_pr_info(ucmd->client, "%s: gpu %u: no such GPU on this node\n",
			      call, cmd->dev);
		return -ENODEV;
	}
	if (cmd->length > TASK_SIZE) {
		cufab_pr_info(ucmd->client, "%s: size %llu: larger than the process address space\n",
			      call, cmd->length);
		return -ENOMEM;
	}
	length = PAGE_ALIGN(cmd->length);
	ctx = cufab_mem_alloc_ctx(ucmd->client, cmd->ctx_id, cmd->dev);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	ret = cufab_mem_alloc_linear(ucmd->client, call, cmd->dev,
				     host || managed,
				     managed ? cmd->attach : 0, length,
				     ctx ? container_of(ctx, struct cufab_ctx,
							obj) : NULL,
				     cmd->host_flags, &addr);
	if (ret)
		goto out;
	cmd->out_addr = addr;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		cufab_va_unmap_munmap(ucmd->client, addr, 0, true);
out:
	if (ctx)
		cufab_object_put(ctx);
	return ret;
}

/**
 * cufab_mem_free_ctx() - free the linear allocations of a context
 * @ctx: the context being destroyed
 *
 * cuCtxDestroy frees what cuMemAlloc and cuMemAllocHost made in the
 * context. Unmapping acts on current->mm, so only the owning process does
 * it (DESTROY is its ioctl). When the client itself goes, every
 * reservation is already gone (each VMA holds the file until the process
 * unmaps it or its mm dies), so there is nothing to free and nothing is
 * tried from a process that may not own the mm.
 *
 * The walk visits every reservation of the process, so a context that
 * never had a linear allocation (cufab_mem_set_ctx() marks one that had)
 * skips it.
 */
void cufab_mem_free_ctx(struct cufab_ctx *ctx)
{
	struct cufab_client *client = ctx->obj.client;
	struct cufab_va_space *space = &client->va;
	u32 ctx_id = ctx->obj.id;
	unsigned long index = 0;
	struct cufab_va *va;
	u64 addr;

	if (!cufab_client_is_owner(client) || !current->mm ||
	    (current->flags & PF_EXITING) || !atomic_read(&space->nr_linear))
		return;
	do {
		mutex_lock(&space->lock);
		if (!ctx->linear) {
			mutex_unlock(&space->lock);
			return;
		}
		va = mt_find(&space->ranges, &index, ULONG_MAX);
		/* a value is the mark of a kept arena range (va_arena.c) */
		addr = va && !xa_is_value(va) && va->linear &&
		       va->linear_ctx == ctx_id ?
		       va->start : 0;
		mutex_unlock(&space->lock);
		/* the VMA's close drops the reservation and its allocation */
		if (addr)
			cufab_va_unmap_munmap(client, addr, 0, true);
	} while (va);
}

/*
 * cuMemFree / cuMemFreeHost: the exact base of a linear allocation;
 * cuIpcCloseMemHandle (CUFAB_MEM_FREE_IPC): the exact base of an IPC view
 * (share_ipc.c), which the other two never free.
 */
int cufab_ioctl_mem_free(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_free *cmd = ucmd->cmd;
	bool host = cmd->flags & CUFAB_MEM_ALLOC_HOST;
	bool ipc = cmd->flags & CUFAB_MEM_FREE_IPC;
	struct cufab_va_map *map;
	struct cufab_va *va;
	const char *call = ipc ? "cuIpcCloseMemHandle" :
			   host ? "cuMemFreeHost" : "cuMemFree";
	bool match = false;

	if ((cmd->flags & ~(CUFAB_MEM_ALLOC_HOST | CUFAB_MEM_FREE_IPC)) ||
	    (host && ipc)) {
		cufab_pr_info(ucmd->client, "%s: flags 0x%x: HOST or IPC, not both\n",
			      call, cmd->flags);
		return -EINVAL;
	}
	va = cufab_va_find(ucmd->client, cmd->addr);
	if (!va)
		goto refuse;
	if (va->linear && READ_ONCE(va->ipc) == ipc && va->start == cmd->addr) {
		down_read(&va->lock);
		map = mtree_load(&va->maps, va->start);
		/* cuMemFree frees device and managed memory */
		match = !va->dead && map &&
			(map->alloc->location_type == CUFAB_LOC_HOST &&
			 !cufab_alloc_has(map->alloc, CUFAB_ALLOC_MANAGED)) ==
			host;
		up_read(&va->lock);
	}
	cufab_va_put(va);
	if (match)
		return cufab_va_unmap_munmap(ucmd->client, cmd->addr, 0, true);
refuse:
	cufab_pr_info(ucmd->client, "%s: 0x%llx: not the start of a live %s allocation of this process\n",
		      call, cmd->addr,
		      ipc ? "cuIpcOpenMemHandle" :
		      host ? "cuMemAllocHost" : "cuMemAlloc or cuMemAllocManaged");
	return -EINVAL;
}
