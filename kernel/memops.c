// SPDX-License-Identifier: GPL-2.0
/*
 * Synchronous memory operations: cuMemcpy*, cuMemsetD*,
 * cuPointerGetAttribute(s), cuMemGetAddressRange, cuMemGetInfo.
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

#include "cufab.h"

/* Bounce buffer of copies and sets. */
#define CUFAB_BOUNCE_SIZE	(64 * 1024)

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

int cufab_copy_user(u64 dst, u64 src, u64 length)
{
	return cufab_bounce_user(dst, src, length, false, 0, 0);
}

int cufab_set_user(u64 dst, u64 length, u32 value, u32 elem)
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
	/*
	 * a range without memory of its own (multicast) is device memory;
	 * so is managed memory, as CUDA reports it
	 */
	cmd->out_memory_type = alloc->location_type == CUFAB_LOC_DEVICE ||
			       !cufab_alloc_cpu_mappable(alloc) ||
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
		cmd->out_ctx_id = READ_ONCE(va->legacy_ctx);
		cmd->out_range_base = va->start;
		cmd->out_range_length = va->length;
	} else {
		cmd->out_flags |= va->pool ? CUFAB_PTR_F_POOL : CUFAB_PTR_F_VMM;
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

	if (cmd->flags || cmd->__reserved)
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
