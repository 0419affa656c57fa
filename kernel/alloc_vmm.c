// SPDX-License-Identifier: GPL-2.0
/*
 * The cuMemCreate kind of allocation: memory with a location (a GPU or a
 * host NUMA node) and the handle types it may be exported as, mapped with
 * cuMemMap into cuMemAddressReserve ranges, and the only kind that may
 * back a logical endpoint or multicast binding.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/sched.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

const struct cufab_alloc_ops cufab_vmm_alloc_ops = {
	.name = "cuMemCreate",
	.flags = CUFAB_ALLOC_BINDABLE,
	.page = cufab_alloc_store_page,
	.map_prepare = cufab_alloc_map_check,
};

/*
 * The size must be a multiple of the location's minimum granularity (0
 * for a GPU that does not exist: cufab_alloc_locate() reports that).
 */
static int cufab_mem_create_gran_check(const struct cufab_mem_create *cmd)
{
	u64 gran = cufab_loc_mem_gran(cmd->location_type, cmd->location_id,
				      false);

	if (!gran || IS_ALIGNED(cmd->length, gran))
		return 0;
	pr_info_ratelimited("pid %d (%s): cuMemCreate of %llu bytes on %s %d: not a multiple of its granularity 0x%llx (cuMemGetAllocationGranularity)\n",
			    task_tgid_nr(current), current->comm, cmd->length,
			    cmd->location_type == CUFAB_LOC_DEVICE ? "gpu" :
			    cmd->location_type == CUFAB_LOC_HOST ? "host" :
			    "host NUMA node",
			    cmd->location_id, gran);
	return -EINVAL;
}

/* Everything of CUmemAllocationProp that is not the location. */
static int cufab_mem_create_check(struct cufab_client *client,
				  const struct cufab_mem_create *cmd)
{
	int ret;

	if (cmd->flags || cmd->__reserved ||
	    (cmd->handle_types & ~CUFAB_HANDLE_VALID) ||
	    (cmd->alloc_flags & ~CUFAB_ALLOC_F_VALID))
		return -EINVAL;
	/* HOST as well: 13.0 accepts it, attribute 145 says so */
	if (cmd->location_type != CUFAB_LOC_DEVICE &&
	    cmd->location_type != CUFAB_LOC_HOST_NUMA &&
	    cmd->location_type != CUFAB_LOC_HOST)
		return -EINVAL;
	/* "HOST allocations are not IPC capable" (cuMemCreate) */
	if (cmd->location_type == CUFAB_LOC_HOST && cmd->handle_types)
		return -EINVAL;
	/* no virtual GPU compresses: like a GPU without compression */
	if (cmd->alloc_flags & CUFAB_ALLOC_F_COMPRESSIBLE)
		return -EOPNOTSUPP;
	if (!cmd->length)
		return -EINVAL;
	ret = cufab_mem_create_gran_check(cmd);
	if (ret)
		return ret;
	if (cmd->handle_types & CUFAB_HANDLE_FABRIC)
		return cufab_imex_check(client, "cuMemCreate");
	return 0;
}

int cufab_ioctl_mem_create(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_create *cmd = ucmd->cmd;
	struct cufab_alloc_desc desc = {
		.location_type = cmd->location_type,
		.location_id = cmd->location_id,
		.handle_types = cmd->handle_types,
		.alloc_flags = cmd->alloc_flags,
		.length = cmd->length,
		.ops = &cufab_vmm_alloc_ops,
	};
	struct cufab_alloc *alloc;
	int ret;

	ret = cufab_mem_create_check(ucmd->client, cmd);
	if (ret)
		return ret;
	/* memory another node may import lives where every node sees it */
	if ((cmd->handle_types & CUFAB_HANDLE_FABRIC) && cufab_window_present())
		desc.provider = &cufab_window_pages;
	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	return cufab_mem_handle_respond_put(ucmd, alloc, &cmd->out_handle,
					    sizeof(*cmd));
}
