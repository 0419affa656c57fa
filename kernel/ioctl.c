// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/cufab ioctl dispatcher: one table indexed by command number.
 *
 * Every struct starts with its __u32 size as the caller compiled it. The
 * dispatcher reads the size, refuses one shorter than the struct's first
 * version (-EINVAL), copies with copy_struct_from_user() (a longer struct
 * whose unknown tail is not zero is -E2BIG, a shorter one is zero-extended)
 * and copies back only as many bytes as the caller has; a size over one
 * page is -E2BIG without reading the tail. So old binaries run on new
 * kernels and new binaries on old kernels as long as they do not need
 * what the other side lacks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <linux/cufab.h>

#include "cufab.h"

static int cufab_ioctl_get_version(struct cufab_ucmd *ucmd)
{
	struct cufab_get_version *cmd = ucmd->cmd;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	cmd->major = CUFAB_VERSION_MAJOR;
	cmd->minor = CUFAB_VERSION_MINOR;
	cmd->num_gpus = cufab_node_num_gpus();
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

static int cufab_ioctl_noop(struct cufab_ucmd *ucmd)
{
	struct cufab_noop *cmd = ucmd->cmd;

	return cmd->flags ? -EINVAL : 0;
}

static int cufab_ioctl_destroy(struct cufab_ucmd *ucmd)
{
	struct cufab_destroy *cmd = ucmd->cmd;

	return cufab_object_destroy_user(ucmd->client, cmd->id);
}

/* Big enough for any command struct; lives on the dispatcher's stack. */
union cufab_ucmd_buffer {
	struct cufab_get_version get_version;
	struct cufab_noop noop;
	struct cufab_destroy destroy;
	struct cufab_device_info device_info;
	struct cufab_ctx_create ctx_create;
	struct cufab_mem_create mem_create;
	struct cufab_mem_release mem_release;
	struct cufab_mem_retain mem_retain;
	struct cufab_mem_get_props mem_get_props;
	struct cufab_mem_get_info mem_get_info;
	struct cufab_va_reserve va_reserve;
	struct cufab_va_free va_free;
	struct cufab_mem_map mem_map;
	struct cufab_mem_unmap mem_unmap;
	struct cufab_mem_set_access mem_set_access;
	struct cufab_mem_get_access mem_get_access;
	struct cufab_mem_alloc mem_alloc;
	struct cufab_mem_free mem_free;
	struct cufab_mem_copy mem_copy;
	struct cufab_mem_set mem_set;
	struct cufab_pointer_info pointer_info;
	struct cufab_imex_set_channel imex_set_channel;
	struct cufab_mem_export mem_export;
	struct cufab_mem_import mem_import;
	struct cufab_le_id_reserve le_id_reserve;
	struct cufab_le_id_release le_id_release;
	struct cufab_le_create le_create;
	struct cufab_le_destroy le_destroy;
	struct cufab_le_add_device le_add_device;
	struct cufab_le_query le_query;
	struct cufab_le_get_limits le_get_limits;
	struct cufab_le_bind le_bind;
	struct cufab_le_unbind le_unbind;
	struct cufab_le_share le_share;
	struct cufab_mc_create mc_create;
	struct cufab_mc_add_device mc_add_device;
	struct cufab_mc_bind mc_bind;
	struct cufab_mc_unbind mc_unbind;
	struct cufab_multimem multimem;
	struct cufab_peer peer;
	struct cufab_stream_create stream_create;
	struct cufab_event_create event_create;
	struct cufab_stream_submit stream_submit;
	struct cufab_stream_wait stream_wait;
	struct cufab_hostfn hostfn;
	struct cufab_pool_create pool_create;
	struct cufab_pool_attr pool_attr;
	struct cufab_pool_grow pool_grow;
	struct cufab_pool_shrink pool_shrink;
	struct cufab_pool_set_access pool_set_access;
	struct cufab_pool_get_access pool_get_access;
	struct cufab_pool_export pool_export;
	struct cufab_pool_import pool_import;
	struct cufab_pool_ptr_export pool_ptr_export;
	struct cufab_pool_ptr_import pool_ptr_import;
	struct cufab_pool_ptr_release pool_ptr_release;
	struct cufab_mem_advise mem_advise;
	struct cufab_mem_prefetch mem_prefetch;
	struct cufab_mem_range_attrs mem_range_attrs;
	struct cufab_stream_memop stream_memop;
	struct cufab_host_register host_register;
	struct cufab_host_unregister host_unregister;
	struct cufab_stream_batch stream_batch;
	struct cufab_mem_range_export mem_range_export;
};

struct cufab_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct cufab_ucmd *ucmd);
};

/*
 * @_last is the last field of the struct's first version: callers built
 * against it must keep working, anything shorter is not a valid struct.
 */
#define CUFAB_IOCTL_OP(_name, _fn, _struct, _last)			\
	[CUFAB_CMD_##_name - CUFAB_CMD_BASE] = {			\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union cufab_ucmd_buffer) < \
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = CUFAB_IOCTL_##_name,			\
		.execute = _fn,						\
	}

/* Commands without an entry (ioctl_num 0) are -ENOTTY. */
static const struct cufab_ioctl_op cufab_ioctl_ops[CUFAB_CMD_LAST - CUFAB_CMD_BASE] = {
	CUFAB_IOCTL_OP(GET_VERSION, cufab_ioctl_get_version,
		       struct cufab_get_version, __reserved),
	CUFAB_IOCTL_OP(NOOP, cufab_ioctl_noop, struct cufab_noop, flags),
	CUFAB_IOCTL_OP(DESTROY, cufab_ioctl_destroy, struct cufab_destroy, id),
	CUFAB_IOCTL_OP(DEVICE_INFO, cufab_ioctl_device_info,
		       struct cufab_device_info, name),
	CUFAB_IOCTL_OP(CTX_CREATE, cufab_ioctl_ctx_create,
		       struct cufab_ctx_create, out_ctx_id),
	CUFAB_IOCTL_OP(MEM_CREATE, cufab_ioctl_mem_create,
		       struct cufab_mem_create, __reserved),
	CUFAB_IOCTL_OP(MEM_RELEASE, cufab_ioctl_mem_release,
		       struct cufab_mem_release, handle),
	CUFAB_IOCTL_OP(MEM_RETAIN, cufab_ioctl_mem_retain,
		       struct cufab_mem_retain, __reserved),
	CUFAB_IOCTL_OP(MEM_GET_PROPS, cufab_ioctl_mem_get_props,
		       struct cufab_mem_get_props, out_length),
	CUFAB_IOCTL_OP(MEM_GET_INFO, cufab_ioctl_mem_get_info,
		       struct cufab_mem_get_info, out_total),
	CUFAB_IOCTL_OP(VA_RESERVE, cufab_ioctl_va_reserve,
		       struct cufab_va_reserve, addr),
	CUFAB_IOCTL_OP(VA_FREE, cufab_ioctl_va_free,
		       struct cufab_va_free, length),
	CUFAB_IOCTL_OP(MEM_MAP, cufab_ioctl_mem_map,
		       struct cufab_mem_map, __reserved),
	CUFAB_IOCTL_OP(MEM_UNMAP, cufab_ioctl_mem_unmap,
		       struct cufab_mem_unmap, length),
	CUFAB_IOCTL_OP(MEM_SET_ACCESS, cufab_ioctl_mem_set_access,
		       struct cufab_mem_set_access, descs_ptr),
	CUFAB_IOCTL_OP(MEM_GET_ACCESS, cufab_ioctl_mem_get_access,
		       struct cufab_mem_get_access, addr),
	CUFAB_IOCTL_OP(MEM_ALLOC, cufab_ioctl_mem_alloc,
		       struct cufab_mem_alloc, out_addr),
	CUFAB_IOCTL_OP(MEM_FREE, cufab_ioctl_mem_free,
		       struct cufab_mem_free, addr),
	CUFAB_IOCTL_OP(MEM_COPY, cufab_ioctl_mem_copy,
		       struct cufab_mem_copy, length),
	CUFAB_IOCTL_OP(MEM_SET, cufab_ioctl_mem_set,
		       struct cufab_mem_set, __reserved),
	CUFAB_IOCTL_OP(POINTER_INFO, cufab_ioctl_pointer_info,
		       struct cufab_pointer_info, out_alloc_flags),
	CUFAB_IOCTL_OP(IMEX_SET_CHANNEL, cufab_ioctl_imex_set_channel,
		       struct cufab_imex_set_channel, out_channel),
	CUFAB_IOCTL_OP(MEM_EXPORT, cufab_ioctl_mem_export,
		       struct cufab_mem_export, out_fabric),
	CUFAB_IOCTL_OP(MEM_IMPORT, cufab_ioctl_mem_import,
		       struct cufab_mem_import, __reserved),
	CUFAB_IOCTL_OP(LE_ID_RESERVE, cufab_ioctl_le_id_reserve,
		       struct cufab_le_id_reserve, out_base),
	CUFAB_IOCTL_OP(LE_ID_RELEASE, cufab_ioctl_le_id_release,
		       struct cufab_le_id_release, count),
	CUFAB_IOCTL_OP(LE_CREATE, cufab_ioctl_le_create,
		       struct cufab_le_create, prop),
	CUFAB_IOCTL_OP(LE_DESTROY, cufab_ioctl_le_destroy,
		       struct cufab_le_destroy, id),
	CUFAB_IOCTL_OP(LE_ADD_DEVICE, cufab_ioctl_le_add_device,
		       struct cufab_le_add_device, __reserved),
	CUFAB_IOCTL_OP(LE_QUERY, cufab_ioctl_le_query,
		       struct cufab_le_query, __reserved),
	CUFAB_IOCTL_OP(LE_GET_LIMITS, cufab_ioctl_le_get_limits,
		       struct cufab_le_get_limits, out_max_size),
	CUFAB_IOCTL_OP(LE_BIND, cufab_ioctl_le_bind,
		       struct cufab_le_bind, bind_flags),
	CUFAB_IOCTL_OP(LE_UNBIND, cufab_ioctl_le_unbind,
		       struct cufab_le_unbind, length),
	CUFAB_IOCTL_OP(LE_EXPORT, cufab_ioctl_le_export,
		       struct cufab_le_share, __reserved),
	CUFAB_IOCTL_OP(LE_IMPORT, cufab_ioctl_le_import,
		       struct cufab_le_share, __reserved),
	CUFAB_IOCTL_OP(MC_CREATE, cufab_ioctl_mc_create,
		       struct cufab_mc_create, __reserved),
	CUFAB_IOCTL_OP(MC_ADD_DEVICE, cufab_ioctl_mc_add_device,
		       struct cufab_mc_add_device, __reserved),
	CUFAB_IOCTL_OP(MC_BIND, cufab_ioctl_mc_bind,
		       struct cufab_mc_bind, bind_flags),
	CUFAB_IOCTL_OP(MC_UNBIND, cufab_ioctl_mc_unbind,
		       struct cufab_mc_unbind, length),
	CUFAB_IOCTL_OP(MULTIMEM, cufab_ioctl_multimem,
		       struct cufab_multimem, out_skipped),
	CUFAB_IOCTL_OP(PEER_ENABLE, cufab_ioctl_peer_enable,
		       struct cufab_peer, peer_ctx_id),
	CUFAB_IOCTL_OP(PEER_DISABLE, cufab_ioctl_peer_disable,
		       struct cufab_peer, peer_ctx_id),
	CUFAB_IOCTL_OP(STREAM_CREATE, cufab_ioctl_stream_create,
		       struct cufab_stream_create, out_uid),
	CUFAB_IOCTL_OP(EVENT_CREATE, cufab_ioctl_event_create,
		       struct cufab_event_create, __reserved),
	CUFAB_IOCTL_OP(STREAM_SUBMIT, cufab_ioctl_stream_submit,
		       struct cufab_stream_submit, out_event_seq),
	CUFAB_IOCTL_OP(STREAM_WAIT, cufab_ioctl_stream_wait,
		       struct cufab_stream_wait, __reserved),
	CUFAB_IOCTL_OP(HOSTFN, cufab_ioctl_hostfn,
		       struct cufab_hostfn, __reserved),
	CUFAB_IOCTL_OP(POOL_CREATE, cufab_ioctl_pool_create,
		       struct cufab_pool_create, out_max_size),
	CUFAB_IOCTL_OP(POOL_ATTR, cufab_ioctl_pool_attr,
		       struct cufab_pool_attr, value),
	CUFAB_IOCTL_OP(POOL_GROW, cufab_ioctl_pool_grow,
		       struct cufab_pool_grow, out_alloc_id),
	CUFAB_IOCTL_OP(POOL_SHRINK, cufab_ioctl_pool_shrink,
		       struct cufab_pool_shrink, addr),
	CUFAB_IOCTL_OP(POOL_SET_ACCESS, cufab_ioctl_pool_set_access,
		       struct cufab_pool_set_access, descs_ptr),
	CUFAB_IOCTL_OP(POOL_GET_ACCESS, cufab_ioctl_pool_get_access,
		       struct cufab_pool_get_access, out_flags),
	CUFAB_IOCTL_OP(POOL_EXPORT, cufab_ioctl_pool_export,
		       struct cufab_pool_export, out_fabric),
	CUFAB_IOCTL_OP(POOL_IMPORT, cufab_ioctl_pool_import,
		       struct cufab_pool_import, out_pool_id),
	CUFAB_IOCTL_OP(POOL_PTR_EXPORT, cufab_ioctl_pool_ptr_export,
		       struct cufab_pool_ptr_export, out_data),
	CUFAB_IOCTL_OP(POOL_PTR_IMPORT, cufab_ioctl_pool_ptr_import,
		       struct cufab_pool_ptr_import, out_length),
	CUFAB_IOCTL_OP(POOL_PTR_RELEASE, cufab_ioctl_pool_ptr_release,
		       struct cufab_pool_ptr_release, addr),
	CUFAB_IOCTL_OP(MEM_ADVISE, cufab_ioctl_mem_advise,
		       struct cufab_mem_advise, location_id),
	CUFAB_IOCTL_OP(MEM_PREFETCH, cufab_ioctl_mem_prefetch,
		       struct cufab_mem_prefetch, __reserved),
	CUFAB_IOCTL_OP(MEM_RANGE_ATTRS, cufab_ioctl_mem_range_attrs,
		       struct cufab_mem_range_attrs, out_resident_on_node),
	CUFAB_IOCTL_OP(EVENT_EXPORT, cufab_ioctl_event_export,
		       struct cufab_event_export, out_handle),
	CUFAB_IOCTL_OP(EVENT_IMPORT, cufab_ioctl_event_import,
		       struct cufab_event_import, handle),
	CUFAB_IOCTL_OP(STREAM_MEMOP, cufab_ioctl_stream_memop,
		       struct cufab_stream_memop, out_seq),
	CUFAB_IOCTL_OP(IPC_MEM_EXPORT, cufab_ioctl_ipc_mem_export,
		       struct cufab_ipc_mem_export, out_handle),
	CUFAB_IOCTL_OP(IPC_MEM_IMPORT, cufab_ioctl_ipc_mem_import,
		       struct cufab_ipc_mem_import, __reserved),
	CUFAB_IOCTL_OP(HOST_REGISTER, cufab_ioctl_host_register,
		       struct cufab_host_register, out_id),
	CUFAB_IOCTL_OP(HOST_UNREGISTER, cufab_ioctl_host_unregister,
		       struct cufab_host_unregister, addr),
	CUFAB_IOCTL_OP(STREAM_BATCH, cufab_ioctl_stream_batch,
		       struct cufab_stream_batch, out_seq),
	CUFAB_IOCTL_OP(MEM_RANGE_EXPORT, cufab_ioctl_mem_range_export,
		       struct cufab_mem_range_export, __reserved),
};

/*
 * The fd names objects of the process that opened it; in any other process
 * (a forked child, a receiver of the fd over a socket) those ids mean
 * nothing, so refuse like /dev/kfd does.
 */
static bool cufab_ioctl_caller_ok(struct cufab_client *client)
{
	if (likely(cufab_client_is_owner(client)))
		return true;
	pr_warn_ratelimited("/dev/cufab opened by pid %d (%s) used by pid %d (%s): refused, every process must open its own\n",
			    pid_nr(client->tgid), client->comm,
			    task_tgid_nr(current), current->comm);
	return false;
}

long cufab_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct cufab_client *client = filp->private_data;
	const struct cufab_ioctl_op *op;
	union cufab_ucmd_buffer buf;
	struct cufab_ucmd ucmd = {};
	unsigned int nr;
	int ret;

	if (!cufab_ioctl_caller_ok(client))
		return -EBADF;

	nr = _IOC_NR(cmd);
	if (nr < CUFAB_CMD_BASE || nr >= CUFAB_CMD_LAST)
		return -ENOTTY;
	op = &cufab_ioctl_ops[nr - CUFAB_CMD_BASE];
	if (op->ioctl_num != cmd)
		return -ENOTTY;

	ucmd.client = client;
	ucmd.ubuffer = (void __user *)arg;
	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	/*
	 * No struct grows past a page: a larger size is a caller's mistake,
	 * refused as openat2() and clone3() do before scanning its tail.
	 */
	if (ucmd.user_size > PAGE_SIZE)
		return -E2BIG;

	ucmd.cmd = &buf;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuffer,
				    ucmd.user_size);
	if (ret)
		return ret;
	return op->execute(&ucmd);
}
