// SPDX-License-Identifier: GPL-2.0
/*
 * CUFAB_IOCTL_MEM_EXPORT / CUFAB_IOCTL_MEM_IMPORT: the rules of sharing.
 *
 *  - only handle types requested at cuMemCreate may be exported (-EINVAL);
 *  - POSIX_FD needs nothing more: it is a dma-buf, and holding the fd is
 *    the permission (like a file descriptor of real GPU memory);
 *  - FABRIC needs an IMEX channel to export and to import, and the
 *    importer's channel must be the exporter's (-EPERM, as NVIDIA's driver
 *    answers NV_ERR_INSUFFICIENT_PERMISSIONS);
 *  - an imported DEVICE allocation must be on a GPU that still exists
 *    (-ENODEV);
 *  - an import is a new handle of the caller on the same allocation, so
 *    MEM_MAP maps it and both processes see the same pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"
#include "trace.h"

static const char *cufab_handle_type_name(u32 type)
{
	switch (type) {
	case CUFAB_HANDLE_POSIX_FD:
		return "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR";
	case CUFAB_HANDLE_FABRIC:
		return "CU_MEM_HANDLE_TYPE_FABRIC";
	default:
		return "an unknown handle type";
	}
}

static bool cufab_handle_type_valid(u32 type)
{
	return type == CUFAB_HANDLE_POSIX_FD || type == CUFAB_HANDLE_FABRIC;
}

/* POSIX_FD: a dma-buf of the whole allocation, in a new fd. */
static int cufab_export_fd(struct cufab_ucmd *ucmd, struct cufab_alloc *alloc)
{
	struct cufab_mem_export *cmd = ucmd->cmd;
	struct dma_buf *dmabuf;

	dmabuf = cufab_dmabuf_export(alloc);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	return cufab_dmabuf_respond_fd(ucmd, dmabuf, &cmd->out_fd,
				       sizeof(*cmd));
}

static int cufab_export_fabric(struct cufab_ucmd *ucmd,
			       struct cufab_alloc *alloc)
{
	struct cufab_mem_export *cmd = ucmd->cmd;
	int ret;

	ret = cufab_imex_check(ucmd->client,
			       "cuMemExportToShareableHandle");
	if (ret)
		return ret;
	ret = cufab_fabric_export(alloc, cufab_imex_channel(ucmd->client),
				  cmd->out_fabric);
	if (ret)
		return ret;
	cmd->out_fd = -1;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

int cufab_ioctl_mem_export(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_export *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_alloc *alloc;
	int ret;

	if (cmd->flags || cmd->__reserved ||
	    !cufab_handle_type_valid(cmd->handle_type)) {
		cufab_pr_info(client, "cuMemExportToShareableHandle: handle type 0x%x, flags 0x%x: must be POSIX_FILE_DESCRIPTOR or FABRIC, flags 0\n",
			      cmd->handle_type, cmd->flags);
		return -EINVAL;
	}
	alloc = cufab_mem_handle_lookup(client, cmd->handle);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	if (cufab_remote_revoked(alloc)) {
		ret = cufab_remote_revoked_err(alloc,
					       "cuMemExportToShareableHandle");
	} else if (!(alloc->handle_types & cmd->handle_type)) {
		pr_warn_ratelimited("pid %d (%s): cuMemExportToShareableHandle: allocation %llu (handle %u): handle types 0x%x; exporting it as %s needs that type requested at cuMemCreate\n",
				    pid_nr(client->tgid), client->comm,
				    alloc->id, cmd->handle, alloc->handle_types,
				    cufab_handle_type_name(cmd->handle_type));
		ret = -EINVAL;
	} else if (cufab_should_fail(CUFAB_FAULT_MEM_SHARE)) {
		ret = -ENOMEM;
	} else if (cmd->handle_type == CUFAB_HANDLE_POSIX_FD) {
		ret = cufab_export_fd(ucmd, alloc);
	} else {
		ret = cufab_export_fabric(ucmd, alloc);
	}
	if (!ret)
		trace_cufab_mem_export(alloc, cmd->handle_type,
				       cufab_imex_channel(client));
	cufab_alloc_put(alloc);
	return ret;
}

/* FABRIC: the handle must be genuine and the channels must match. */
static struct cufab_alloc *cufab_import_fabric(struct cufab_client *client,
					       const u8 *handle)
{
	struct cufab_alloc *alloc;
	int ret, mine, theirs;

	unsigned int node;

	ret = cufab_imex_check(client,
			       "cuMemImportFromShareableHandle");
	if (ret)
		return ERR_PTR(ret);
	/* another node checks its own export, channel included */
	if (!cufab_fabric_handle_node(CUFAB_FABRIC_MAGIC, handle, &node) &&
	    node != cufab_node.node_index)
		return cufab_remote_import(client, handle, node);
	alloc = cufab_fabric_import(handle, &theirs);
	if (IS_ERR(alloc)) {
		pr_warn_ratelimited("pid %d (%s): cuMemImportFromShareableHandle: the FABRIC handle names no live allocation (forged, or the allocation was freed)\n",
				    pid_nr(client->tgid), client->comm);
		return alloc;
	}
	mine = cufab_imex_channel(client);
	if (mine != theirs) {
		pr_warn_ratelimited("pid %d (%s): cuMemImportFromShareableHandle: allocation %llu was exported on IMEX channel %d (%s/channel%d), importer has channel %d (%s/channel%d): FABRIC import needs the exporter's channel\n",
				    pid_nr(client->tgid), client->comm,
				    alloc->id, theirs, CUFAB_IMEX_DIR, theirs,
				    mine, CUFAB_IMEX_DIR, mine);
		cufab_alloc_put(alloc);
		return ERR_PTR(-EPERM);
	}
	return alloc;
}

/*
 * A dma-buf or FABRIC handle can outlive every client, and the topology can
 * change while no client is open: the GPU of a DEVICE allocation may be
 * gone by the time someone imports it.
 */
static int cufab_import_check_gpu(struct cufab_client *client,
				  const struct cufab_alloc *alloc)
{
	u8 uuid[CUFAB_UUID_LEN];

	if (alloc->location_type != CUFAB_LOC_DEVICE ||
	    cufab_node_gpu_exists(alloc->location_id))
		return 0;
	cufab_gpu_uuid(alloc->location_id, uuid);
	pr_warn_ratelimited("pid %d (%s): cuMemImportFromShareableHandle: allocation %llu is on GPU %d (GPU-%pUb), which no longer exists (node has %u GPUs)\n",
			    pid_nr(client->tgid), client->comm, alloc->id,
			    alloc->location_id, uuid, cufab_node_num_gpus());
	return -ENODEV;
}

int cufab_ioctl_mem_import(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_import *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_alloc *alloc;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (cmd->handle_type == CUFAB_HANDLE_POSIX_FD)
		alloc = cufab_dmabuf_to_alloc(cmd->fd);
	else if (cmd->handle_type == CUFAB_HANDLE_FABRIC)
		alloc = cufab_import_fabric(client, cmd->fabric);
	else
		return -EINVAL;
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);

	ret = cufab_import_check_gpu(client, alloc);
	if (ret)
		goto out;
	if (cufab_should_fail(CUFAB_FAULT_MEM_SHARE)) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cufab_mem_handle_respond(ucmd, alloc, &cmd->out_handle,
				       sizeof(*cmd));
	if (!ret)
		trace_cufab_mem_import(alloc, cmd->handle_type,
				       cufab_imex_channel(client));
out:
	cufab_alloc_put(alloc);
	return ret;
}
