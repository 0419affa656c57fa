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
static int cufab_mem_create_gran_check(struct cufab_client *client,
				       const struct cufab_mem_create *cmd)
{
	u64 gran = cufab_loc_mem_gran(cmd->location_type, cmd->location_id,
				      false);

	if (!gran || IS_ALIGNED(cmd->length, gran))
		return 0;
	cufab_pr_info(client, "cuMemCreate: size 0x%llx on %s %d: not a multiple of its granularity 0x%llx (cuMemGetAllocationGranularity)\n",
		      cmd->length,
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
	    (cmd->alloc_flags & ~CUFAB_ALLOC_F_VALID)) {
		cufab_pr_info(client, "cuMemCreate: flags 0x%x requestedHandleTypes 0x%x allocFlags 0x%x: unknown bits (handle types 0x%x, allocFlags 0x%x)\n",
			      cmd->flags, cmd->handle_types, cmd->alloc_flags,
			      CUFAB_HANDLE_VALID, CUFAB_ALLOC_F_VALID);
		return -EINVAL;
	}
	/* HOST as well: 13.0 accepts it, attribute 145 says so */
	if (cmd->location_type != CUFAB_LOC_DEVICE &&
	    cmd->location_type != CUFAB_LOC_HOST_NUMA &&
	    cmd->location_type != CUFAB_LOC_HOST) {
		cufab_pr_info(client, "cuMemCreate: location type %u: must be DEVICE, HOST or HOST_NUMA\n",
			      cmd->location_type);
		return -EINVAL;
	}
	/* "HOST allocations are not IPC capable" (cuMemCreate) */
	if (cmd->location_type == CUFAB_LOC_HOST && cmd->handle_types) {
		cufab_pr_info(client, "cuMemCreate: requestedHandleTypes 0x%x: HOST allocations are not IPC capable\n",
			      cmd->handle_types);
		return -EINVAL;
	}
	/* no virtual GPU compresses: like a GPU without compression */
	if (cmd->alloc_flags & CUFAB_ALLOC_F_COMPRESSIBLE) {
		cufab_pr_info(client, "cuMemCreate: allocFlags 0x%x: no virtual GPU compresses\n",
			      cmd->alloc_flags);
		return -EOPNOTSUPP;
	}
	if (!cmd->length) {
		cufab_pr_info(client, "cuMemCreate: size 0: must be non-zero\n");
		return -EINVAL;
	}
	ret = cufab_mem_create_gran_check(client, cmd);
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
		.client = ucmd->client,
		.call = "cuMemCreate",
		.spare_of = ucmd->client,
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
