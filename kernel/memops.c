// SPDX-License-Identifier: GPL-2.0
/*
 * Legacy memory and synchronous memory operations: cuMemAlloc/Free,
 * cuMemAllocHost/FreeHost, cuMemcpy*, cuMemsetD*, cuPointerGetAttribute(s),
 * cuMemGetAddressRange, cuMemGetInfo.
 *
 * A legacy allocation is create + reserve + map + access in one call, on
 * the same building blocks as the VMM calls, marked legacy so that the VMM
 * calls refuse it and pointer queries report the whole allocation.
 *
 * Copies and sets are "performed by a device": every cufab range they touch
 * must grant that device access (read for sources, write for
 * destinations); plain host memory is always fine. The bytes move through
 * a kernel bounce buffer with copy_from_user/copy_to_user, so they go
 * through the same page tables (and fault handler) as the CPU view.
 *
 * Locks: none of its own; see va.c. No lock is held across user copies.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/cufab.h>

#include "alloc.h"
#include "client.h"
#include "context.h"
#include "device.h"
#include "ioctl.h"
#include "managed.h"
#include "memops.h"
#include "va.h"

/* Bounce buffer of copies and sets. */
#define CUFAB_BOUNCE_SIZE	(64 * 1024)

/* GPUs of the node as a bitmask, for host memory every device reaches. */
static u64 cufab_all_gpus_mask(void)
{
	u32 n = cufab_node_num_gpus();

	return n >= 64 ? U64_MAX : BIT_ULL(n) - 1;
}

/*
 * Tie the new legacy reservation at @addr to context @ctx_id. The caller
 * holds the context, so its destroy (cufab_mem_free_ctx()) cannot be
 * walking the reservations meanwhile.
 */
static void cufab_mem_set_ctx(struct cufab_client *client, u64 addr,
			      u32 ctx_id)
{
	struct cufab_va *va;

	mutex_lock(&client->va.lock);
	va = mtree_load(&client->va.ranges, addr);
	if (va)
		va->legacy_ctx = ctx_id;
	mutex_unlock(&client->va.lock);
}

/*
 * Create, reserve, map and open up a legacy allocation; its address.
 * Host and managed memory is on no GPU's capacity and every GPU reaches
 * it; @attach (CUFAB_ATTACH_*) makes it managed.
 */
static int cufab_mem_alloc_legacy(struct cufab_client *client, u32 dev,
				  bool host, u32 attach, u64 length,
				  u32 ctx_id, u64 *out)
{
	struct cufab_alloc_desc desc = {
		.location_type = host ? CUFAB_LOC_HOST : CUFAB_LOC_DEVICE,
		.location_id = host ? -1 : dev,
		.length = length,
		.legacy = true,
	};
	struct cufab_alloc *alloc;
	u64 addr, gpus;
	int ret;

	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	if (attach) {
		ret = cufab_managed_init(alloc, attach);
		if (ret)
			goto out;
	}
	ret = cufab_va_reserve(client, 0, length, PAGE_SIZE, true, dev, &addr);
	if (ret)
		goto out;
	cufab_mem_set_ctx(client, addr, ctx_id);
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
		pr_info_ratelimited("pid %d (%s): cuMemAlloc in context %u: no such context\n",
				    task_tgid_nr(current), current->comm, ctx_id);
		return obj;
	}
	if (container_of(obj, struct cufab_ctx, obj)->dev != dev) {
		pr_info_ratelimited("pid %d (%s): cuMemAlloc on gpu %u in context %u of gpu %u: a context allocates on its own device\n",
				    task_tgid_nr(current), current->comm, dev,
				    ctx_id,
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

	if ((cmd->flags & ~(CUFAB_MEM_ALLOC_HOST | CUFAB_MEM_ALLOC_MANAGED)) ||
	    (host && managed) || cmd->__reserved2 || !cmd->length)
		return -EINVAL;
	if (managed ? !cufab_attach_default_ok(cmd->attach) : cmd->attach) {
		pr_info_ratelimited("pid %d (%s): cuMemAllocManaged flags 0x%x: must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST\n",
				    task_tgid_nr(current), current->comm,
				    cmd->attach);
		return -EINVAL;
	}
	if (!cufab_node_gpu_exists(cmd->dev))
		return -ENODEV;
	if (cmd->length > TASK_SIZE)
		return -ENOMEM;
	length = PAGE_ALIGN(cmd->length);
	ctx = cufab_mem_alloc_ctx(ucmd->client, cmd->ctx_id, cmd->dev);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	ret = cufab_mem_alloc_legacy(ucmd->client, cmd->dev, host || managed,
				     managed ? cmd->attach : 0, length,
				     cmd->ctx_id, &addr);
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
 * cufab_mem_free_ctx() - free the legacy allocations of a context
 * @client: owner
 * @ctx_id: the context being destroyed
 *
 * cuCtxDestroy frees what cuMemAlloc and cuMemAllocHost made in the
 * context. Unmapping acts on current->mm, so only the owning process does
 * it (DESTROY is its ioctl). When the client itself goes, every
 * reservation is already gone (each VMA holds the file until the process
 * unmaps it or its mm dies), so there is nothing to free and nothing is
 * tried from a process that may not own the mm.
 */
void cufab_mem_free_ctx(struct cufab_client *client, u32 ctx_id)
{
	struct cufab_va_space *space = &client->va;
	unsigned long index = 0;
	struct cufab_va *va;
	u64 addr;

	if (!cufab_client_is_owner(client) || !current->mm ||
	    (current->flags & PF_EXITING))
		return;
	do {
		mutex_lock(&space->lock);
		va = mt_find(&space->ranges, &index, ULONG_MAX);
		addr = va && va->legacy && va->legacy_ctx == ctx_id ?
		       va->start : 0;
		mutex_unlock(&space->lock);
		/* the VMA's close drops the reservation and its allocation */
		if (addr)
			cufab_va_unmap_munmap(client, addr, 0, true);
	} while (va);
}

/* cuMemFree / cuMemFreeHost: the exact base of a legacy allocation. */
int cufab_ioctl_mem_free(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_free *cmd = ucmd->cmd;
	bool host = cmd->flags & CUFAB_MEM_ALLOC_HOST;
	struct cufab_va_map *map;
	struct cufab_va *va;
	bool match = false;

	if (cmd->flags & ~CUFAB_MEM_ALLOC_HOST)
		return -EINVAL;
	va = cufab_va_find(ucmd->client, cmd->addr);
	if (!va)
		return -EINVAL;
	if (va->legacy && va->start == cmd->addr) {
		down_read(&va->lock);
		map = mtree_load(&va->maps, va->start);
		/* cuMemFree frees device and managed memory */
		match = !va->dead && map &&
			(map->alloc->location_type == CUFAB_LOC_HOST &&
			 !cufab_alloc_is_managed(map->alloc)) == host;
		up_read(&va->lock);
	}
	cufab_va_put(va);
	if (!match)
		return -EINVAL;
	return cufab_va_unmap_munmap(ucmd->client, cmd->addr, 0, true);
}

/* Fill @buf with @value repeated in units of @elem bytes. */
static void cufab_fill_pattern(void *buf, size_t len, u32 value, u32 elem)
{
	size_t i;

	switch (elem) {
	case 1:
		memset(buf, value, len);
		break;
	case 2:
		for (i = 0; i < len / 2; i++)
			((u16 *)buf)[i] = value;
		break;
	default:
		for (i = 0; i < len / 4; i++)
			((u32 *)buf)[i] = value;
		break;
	}
}

/*
 * Write @length bytes at user @dst in chunks through a bounce buffer: read
 * from user @src, or when @fill, a pattern of @value in @elem-byte units.
 * No lock is held, faults go through the CPU view.
 */
static int cufab_bounce_user(u64 dst, u64 src, u64 length, bool fill,
			     u32 value, u32 elem)
{
	void *buf;
	u64 done;
	int ret = 0;

	buf = kmalloc(CUFAB_BOUNCE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (fill)
		cufab_fill_pattern(buf, CUFAB_BOUNCE_SIZE, value, elem);
	for (done = 0; done < length; done += CUFAB_BOUNCE_SIZE) {
		size_t n = min_t(u64, length - done, CUFAB_BOUNCE_SIZE);

		if ((!fill &&
		     copy_from_user(buf, u64_to_user_ptr(src + done), n)) ||
		    copy_to_user(u64_to_user_ptr(dst + done), buf, n)) {
			ret = -EFAULT;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	kfree(buf);
	return ret;
}

static int cufab_copy_user(u64 dst, u64 src, u64 length)
{
	return cufab_bounce_user(dst, src, length, false, 0, 0);
}

static int cufab_set_user(u64 dst, u64 length, u32 value, u32 elem)
{
	return cufab_bounce_user(dst, 0, length, true, value, elem);
}

int cufab_ioctl_mem_copy(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_copy *cmd = ucmd->cmd;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (!cufab_node_gpu_exists(cmd->dev))
		return -ENODEV;
	if (!cmd->length)
		return 0;
	if (!cufab_range_ok(cmd->src, cmd->length) ||
	    !cufab_range_ok(cmd->dst, cmd->length))
		return -EINVAL;
	ret = cufab_va_check_access(ucmd->client, cmd->src, cmd->length,
				    cmd->dev, CUFAB_ACCESS_READ);
	if (!ret)
		ret = cufab_va_check_access(ucmd->client, cmd->dst,
					    cmd->length, cmd->dev,
					    CUFAB_ACCESS_RW);
	if (ret)
		return ret;
	return cufab_copy_user(cmd->dst, cmd->src, cmd->length);
}

int cufab_ioctl_mem_set(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_set *cmd = ucmd->cmd;
	u64 length;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (cmd->elem_size != 1 && cmd->elem_size != 2 && cmd->elem_size != 4)
		return -EINVAL;
	/* cuMemsetD16/D32 need an element-aligned destination */
	if (!IS_ALIGNED(cmd->dst, cmd->elem_size))
		return -EINVAL;
	if (cmd->elem_size < 4 && cmd->value >> (8 * cmd->elem_size))
		return -EINVAL;
	if (!cufab_node_gpu_exists(cmd->dev))
		return -ENODEV;
	if (check_mul_overflow(cmd->count, (u64)cmd->elem_size, &length))
		return -EINVAL;
	if (!length)
		return 0;
	if (!cufab_range_ok(cmd->dst, length))
		return -EINVAL;
	ret = cufab_va_check_access(ucmd->client, cmd->dst, length, cmd->dev,
				    CUFAB_ACCESS_RW);
	if (ret)
		return ret;
	return cufab_set_user(cmd->dst, length, cmd->value, cmd->elem_size);
}

/* Fill the answer from the mapping at the address. */
static void cufab_pointer_info_fill(struct cufab_pointer_info *cmd,
				    const struct cufab_va *va,
				    const struct cufab_va_map *map)
{
	const struct cufab_alloc *alloc = map->alloc;

	cmd->out_flags |= CUFAB_PTR_F_MAPPED;
	if (cufab_alloc_is_managed(alloc))
		cmd->out_flags |= CUFAB_PTR_F_MANAGED;
	/* managed memory reads as device memory, as CUDA's does */
	cmd->out_memory_type = alloc->location_type == CUFAB_LOC_DEVICE ||
			       cufab_alloc_is_mc(alloc) ||
			       cufab_alloc_is_managed(alloc) ?
			       2 : 1;	/* CU_MEMORYTYPE_DEVICE : _HOST */
	cmd->out_dev = alloc->gpu >= 0 ? alloc->gpu :
		       va->legacy ? va->legacy_dev : -1;
	cmd->out_handle_types = alloc->handle_types;
	cmd->out_alloc_id = alloc->id;
	cmd->out_access_flags = map->host;
	cmd->out_alloc_flags = alloc->alloc_flags;
	if (va->legacy) {
		cmd->out_flags |= CUFAB_PTR_F_LEGACY;
		cmd->out_range_base = va->start;
		cmd->out_range_length = va->length;
	} else {
		cmd->out_flags |= CUFAB_PTR_F_VMM;
		cmd->out_range_base = map->start;
		cmd->out_range_length = map->length;
	}
}

int cufab_ioctl_pointer_info(struct cufab_ucmd *ucmd)
{
	struct cufab_pointer_info *cmd = ucmd->cmd;
	struct cufab_va_map *map;
	struct cufab_va *va;
	u64 addr = cmd->addr;

	if (cmd->flags)
		return -EINVAL;
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->addr = addr;
	cmd->out_dev = -1;

	va = cufab_va_find(ucmd->client, addr);
	if (va) {
		cmd->out_flags = CUFAB_PTR_F_CUFAB;
		/*
		 * RANGE_START_ADDR/RANGE_SIZE of VMM memory report the
		 * reservation, not the mapping (cuPointerGetAttribute).
		 */
		cmd->out_va_base = va->start;
		cmd->out_va_length = va->length;
		down_read(&va->lock);
		map = va->dead ? NULL : mtree_load(&va->maps, addr);
		if (map)
			cufab_pointer_info_fill(cmd, va, map);
		up_read(&va->lock);
		cufab_va_put(va);
	}
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

int cufab_ioctl_mem_get_info(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_get_info *cmd = ucmd->cmd;
	struct cufab_gpu *gpu;
	s64 used;

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(cmd->dev);
	if (gpu) {
		used = atomic64_read(&gpu->mem_used);
		cmd->out_total = gpu->mem_total;
		cmd->out_free = gpu->mem_total - clamp_t(s64, used, 0,
							 gpu->mem_total);
	}
	up_read(&cufab_topo_rwsem);
	if (!gpu)
		return -ENODEV;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}
