// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing memory pools between processes: cuMemPoolExportToShareableHandle
 * and cuMemPoolImportFromShareableHandle (a POSIX fd, or a FABRIC handle
 * that names the pool and carries a secret), cuMemPoolExportPointer,
 * cuMemPoolImportPointer, and the ends of both (POOL_PTR_RELEASE).
 *
 * An exported pointer is a record of the pool (struct cufab_pool_ptr; what
 * it holds and how long, pool.c says): an export makes it, each import
 * maps its pages and counts on it, and the exporter may not end the export
 * while an import does (-EBUSY).
 *
 * Built on pool.c (pool.h), which calls nothing here: an imported pool is
 * a pool object marked imported, an imported pointer a range of it.
 * Locking as pool.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "pool.h"
#include "trace.h"

#define CUFAB_FABRIC_POOL_MAGIC	0x504d4643	/* "CFMP": pools */
#define CUFAB_POOL_PTR_MAGIC	0x50504643	/* "CFPP": pool pointers */

/* CUmemPoolPtrExportData as cufab fills it */
struct cufab_pool_ptr_data {
	__le32 magic;
	__le32 ptr_id;
	__le64 pool_id;
	u8 secret[CUFAB_POOL_PTR_SECRET];
};

static_assert(sizeof(struct cufab_pool_ptr_data) == CUFAB_POOL_PTR_DATA_LEN);

/* ---- sharing pools ---- */

static int cufab_pool_fd_release(struct inode *inode, struct file *file)
{
	cufab_pool_put(file->private_data);
	return 0;
}

static const struct file_operations cufab_pool_fops = {
	.owner = THIS_MODULE,
	.release = cufab_pool_fd_release,
};

/* The fd is installed only once the reply reached the caller. */
static int cufab_pool_export_fd(struct cufab_ucmd *ucmd,
				struct cufab_pool *pool, s32 *out_fd,
				size_t cmd_len)
{
	struct file *file;
	int fd, ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	kref_get(&pool->ref);
	file = anon_inode_getfile("[cufab-pool]", &cufab_pool_fops, pool,
				  O_RDWR);
	if (IS_ERR(file)) {
		cufab_pool_put(pool);
		put_unused_fd(fd);
		return PTR_ERR(file);
	}
	*out_fd = fd;
	ret = cufab_ucmd_respond(ucmd, cmd_len);
	if (ret) {
		fput(file);	/* its release drops the pool */
		put_unused_fd(fd);
		return ret;
	}
	fd_install(fd, file);
	return 0;
}

/* The handle names the pool and carries a secret made at the first export. */
static int cufab_pool_export_fabric(struct cufab_client *client,
				    struct cufab_pool *pool, u8 *out)
{
	int channel = cufab_imex_channel(client);
	int ret;

	ret = cufab_imex_check(client,
			       "cuMemPoolExportToShareableHandle");
	if (ret)
		return ret;
	mutex_lock(&pool->lock);
	if (pool->fabric_channel == CUFAB_IMEX_NO_CHANNEL) {
		get_random_bytes(pool->fabric_secret, sizeof(pool->fabric_secret));
		pool->fabric_channel = channel;
	}
	if (pool->fabric_channel != channel) {
		cufab_pr_info(client, "cuMemPoolExportToShareableHandle: memory pool %u is exported on IMEX channel %d, not on this process's channel %d\n",
			      pool->id, pool->fabric_channel, channel);
		ret = -EPERM;
	} else {
		cufab_fabric_encode_as(CUFAB_FABRIC_POOL_MAGIC, pool->id,
				       pool->fabric_secret, out);
	}
	mutex_unlock(&pool->lock);
	return ret;
}

int cufab_ioctl_pool_export(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_export *cmd = ucmd->cmd;
	struct cufab_pool_handle *ph;
	struct cufab_pool *pool;
	int ret;

	if (cmd->flags || cmd->__reserved ||
	    (cmd->handle_type != CUFAB_HANDLE_POSIX_FD &&
	     cmd->handle_type != CUFAB_HANDLE_FABRIC)) {
		cufab_pr_info(ucmd->client, "cuMemPoolExportToShareableHandle: handle type 0x%x, flags 0x%x: must be POSIX_FILE_DESCRIPTOR or FABRIC, flags 0\n",
			      cmd->handle_type, cmd->flags);
		return -EINVAL;
	}
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	pool = ph->pool;
	ret = -EINVAL;
	if (ph->imported || !(pool->handle_types & cmd->handle_type)) {
		cufab_pr_info(ucmd->client, "cuMemPoolExportToShareableHandle: pool %u: handle type 0x%x %s\n",
			      pool->id, cmd->handle_type,
			      ph->imported ? "of an imported pool" :
			      "was not in its handleTypes");
		goto out;
	}
	ret = cufab_should_fail(CUFAB_FAULT_POOL) ? -ENOMEM : 0;
	if (ret)
		goto out;
	cmd->out_fd = -1;
	if (cmd->handle_type == CUFAB_HANDLE_FABRIC) {
		ret = cufab_pool_export_fabric(ucmd->client, pool,
					       cmd->out_fabric);
		if (!ret)
			ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
		goto out;
	}
	ret = cufab_pool_export_fd(ucmd, pool, &cmd->out_fd, sizeof(*cmd));
out:
	if (!ret)
		trace_cufab_pool_export(pool->id, cmd->handle_type);
	cufab_pool_handle_put(ph);
	return ret;
}

/* A pool from the bytes of a FABRIC handle, with a reference. */
static struct cufab_pool *cufab_pool_from_fabric(struct cufab_client *client,
						 const u8 *in)
{
	struct cufab_pool *pool;
	const u8 *secret;
	u32 id;
	int ret;

	ret = cufab_fabric_decode_as(CUFAB_FABRIC_POOL_MAGIC, in, &id, &secret);
	if (ret)
		return ERR_PTR(-EINVAL);
	pool = cufab_pool_find(id);
	if (!pool)
		return ERR_PTR(-EINVAL);
	mutex_lock(&pool->lock);
	if (pool->fabric_channel == CUFAB_IMEX_NO_CHANNEL ||
	    !cufab_fabric_secret_ok(secret, pool->fabric_secret))
		ret = -EINVAL;
	else if (cufab_imex_channel(client) != pool->fabric_channel)
		ret = -EPERM;
	mutex_unlock(&pool->lock);
	if (ret == -EPERM)
		cufab_pr_info(client, "cuMemPoolImportFromShareableHandle: pool %u was exported on IMEX channel %d; this process has channel %d\n",
			      pool->id, pool->fabric_channel,
			      cufab_imex_channel(client));
	if (ret) {
		cufab_pool_put(pool);
		return ERR_PTR(ret);
	}
	return pool;
}

static struct cufab_pool *cufab_pool_from_fd(int fd)
{
	struct cufab_pool *pool = ERR_PTR(-EINVAL);
	struct file *file = fget(fd);

	if (!file)
		return ERR_PTR(-EINVAL);
	if (file->f_op == &cufab_pool_fops) {
		pool = file->private_data;
		kref_get(&pool->ref);
	}
	fput(file);
	return pool;
}

int cufab_ioctl_pool_import(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_import *cmd = ucmd->cmd;
	struct cufab_pool *pool;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	if (cmd->handle_type == CUFAB_HANDLE_POSIX_FD)
		pool = cufab_pool_from_fd(cmd->fd);
	else if (cmd->handle_type == CUFAB_HANDLE_FABRIC)
		pool = cufab_pool_from_fabric(ucmd->client, cmd->fabric);
	else
		pool = ERR_PTR(-EINVAL);
	if (pool == ERR_PTR(-EINVAL))
		cufab_pr_info(ucmd->client, "cuMemPoolImportFromShareableHandle: handle type 0x%x: %s\n",
			      cmd->handle_type,
			      cmd->handle_type == CUFAB_HANDLE_POSIX_FD ?
			      "the fd is not a memory pool's" :
			      cmd->handle_type == CUFAB_HANDLE_FABRIC ?
			      "it names no exported pool (forged, or gone)" :
			      "not POSIX_FILE_DESCRIPTOR or FABRIC");
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	if (!(pool->handle_types & cmd->handle_type)) {
		cufab_pr_info(ucmd->client, "cuMemPoolImportFromShareableHandle: pool %u: handle type 0x%x is not in its handleTypes 0x%x\n",
			      pool->id, cmd->handle_type, pool->handle_types);
		cufab_pool_put(pool);
		return -EINVAL;
	}
	cmd->out_pool_id = pool->id;
	cmd->out_location_type = pool->location_type;
	cmd->out_location_id = pool->location_id;
	cmd->out_handle_types = pool->handle_types;
	ret = cufab_should_fail(CUFAB_FAULT_POOL) ? -ENOMEM :
	      cufab_pool_handle_respond(ucmd, pool, true, &cmd->out_pool,
					sizeof(*cmd));
	if (!ret)
		trace_cufab_pool_import(pool->id, cmd->handle_type);
	cufab_pool_put(pool);
	return ret;
}

/* ---- sharing pointers ---- */

/* The chunk of @ph holding [addr, addr + length), under ph->lock. */
static struct cufab_pool_range *cufab_pool_chunk_of(struct cufab_pool_handle *ph,
						    u64 addr, u64 length)
{
	struct cufab_pool_range *r;

	list_for_each_entry(r, &ph->ranges, node)
		if (r->alloc && cufab_range_inside(addr, length, r->addr,
						   r->length))
			return r;
	return NULL;
}

/*
 * The record of [offset, offset + length) of @chunk, or a new one that is
 * not exported yet (*@created): no import can use it and no other export
 * finds it until cufab_pool_ptr_publish().
 */
static struct cufab_pool_ptr *cufab_pool_ptr_get(struct cufab_pool *pool,
						 struct cufab_alloc *chunk,
						 u64 offset, u64 length,
						 u64 addr, bool *created)
{
	struct cufab_pool_ptr *ptr;
	unsigned long index;
	int ret;

	lockdep_assert_held(&pool->lock);
	xa_for_each(&pool->ptrs, index, ptr)
		if (ptr->exported && ptr->chunk == chunk &&
		    ptr->offset == offset && ptr->length == length)
			return ptr;
	if (cufab_should_fail(CUFAB_FAULT_POOL))
		return ERR_PTR(-ENOMEM);
	ptr = kzalloc(sizeof(*ptr), GFP_KERNEL_ACCOUNT);
	if (!ptr)
		return ERR_PTR(-ENOMEM);
	ret = xa_alloc(&pool->ptrs, &ptr->id, ptr, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		kfree(ptr);
		return ERR_PTR(ret);
	}
	get_random_bytes(ptr->secret, sizeof(ptr->secret));
	cufab_alloc_get(chunk);
	ptr->chunk = chunk;
	ptr->offset = offset;
	ptr->length = length;
	ptr->addr = addr;
	cufab_live_objects_inc();
	*created = true;
	return ptr;
}

/*
 * A new record becomes exported once the reply carrying its data reached
 * the caller; when the reply could not be written nobody can name it, and
 * it goes.
 */
static void cufab_pool_ptr_publish(struct cufab_pool *pool,
				   struct cufab_pool_ptr *ptr, bool replied)
{
	mutex_lock(&pool->lock);
	if (replied)
		ptr->exported = true;
	else
		xa_erase(&pool->ptrs, ptr->id);
	mutex_unlock(&pool->lock);
	if (!replied)
		cufab_pool_ptr_free(ptr);
}

static void cufab_pool_ptr_encode(const struct cufab_pool *pool,
				  const struct cufab_pool_ptr *ptr, u8 *out)
{
	struct cufab_pool_ptr_data d = {
		.magic = cpu_to_le32(CUFAB_POOL_PTR_MAGIC),
		.ptr_id = cpu_to_le32(ptr->id),
		.pool_id = cpu_to_le64(pool->id),
	};

	memcpy(d.secret, ptr->secret, sizeof(d.secret));
	memcpy(out, &d, sizeof(d));
}

int cufab_ioctl_pool_ptr_export(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_ptr_export *cmd = ucmd->cmd;
	struct cufab_pool_handle *ph;
	struct cufab_pool_range *r;
	struct cufab_pool_ptr *ptr = ERR_PTR(-EINVAL);
	bool created = false;
	int ret;

	if (cmd->flags || cmd->__reserved ||
	    !cufab_range_ok(cmd->addr, cmd->length))
		return -EINVAL;
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	mutex_lock(&ph->lock);
	r = ph->imported ? NULL :
	    cufab_pool_chunk_of(ph, cmd->addr, cmd->length);
	if (r) {
		mutex_lock(&ph->pool->lock);
		ptr = cufab_pool_ptr_get(ph->pool, r->alloc,
					 cmd->addr - r->addr, cmd->length,
					 cmd->addr, &created);
		if (!IS_ERR(ptr)) {
			cufab_pool_ptr_encode(ph->pool, ptr, cmd->out_data);
			trace_cufab_pool_ptr_export(ph->pool->id, ptr->id,
						    ptr->chunk->id, ptr->offset,
						    ptr->length);
		}
		mutex_unlock(&ph->pool->lock);
	} else {
		cufab_pr_info(ucmd->client, "cuMemPoolExportPointer: 0x%llx + %llu is not memory of pool %u allocated in this process\n",
			      cmd->addr, cmd->length, ph->pool->id);
	}
	mutex_unlock(&ph->lock);
	if (IS_ERR(ptr)) {
		cufab_pool_handle_put(ph);
		return PTR_ERR(ptr);
	}
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (created)
		cufab_pool_ptr_publish(ph->pool, ptr, !ret);
	cufab_pool_handle_put(ph);
	return ret;
}

/* The record @data names in @pool, one import counted on it. */
static struct cufab_pool_ptr *cufab_pool_ptr_use(struct cufab_pool *pool,
						 const u8 *data)
{
	struct cufab_pool_ptr_data d;
	struct cufab_pool_ptr *ptr;

	memcpy(&d, data, sizeof(d));
	if (le32_to_cpu(d.magic) != CUFAB_POOL_PTR_MAGIC ||
	    le64_to_cpu(d.pool_id) != pool->id)
		return ERR_PTR(-EINVAL);
	mutex_lock(&pool->lock);
	ptr = xa_load(&pool->ptrs, le32_to_cpu(d.ptr_id));
	if (!ptr || !ptr->exported ||
	    !cufab_fabric_secret_ok(ptr->secret, d.secret))
		ptr = ERR_PTR(-EINVAL);
	else
		ptr->imports++;
	mutex_unlock(&pool->lock);
	return ptr;
}

/* @ptr mapped for @ph's client in *@out, unpublished as by grow. */
static int cufab_pool_ptr_map(struct cufab_pool_handle *ph,
			      struct cufab_pool_ptr *ptr,
			      struct cufab_pool_range **out)
{
	u64 start = round_down(ptr->offset, PAGE_SIZE);
	u64 end = round_up(ptr->offset + ptr->length, PAGE_SIZE);
	struct cufab_pool_range *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	ret = cufab_should_fail(CUFAB_FAULT_POOL) ? -ENOMEM :
	      cufab_va_pool_map(ph->obj.client, ptr->chunk, start, end - start,
				PAGE_SIZE, ph->gpu_read, ph->gpu_write,
				&r->addr);
	if (ret) {
		kfree(r);
		return ret;
	}
	INIT_LIST_HEAD(&r->node);
	r->length = end - start;
	r->user_addr = r->addr + ptr->offset - start;
	r->ptr = ptr;
	cufab_live_objects_inc();
	*out = r;
	return 0;
}

int cufab_ioctl_pool_ptr_import(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_ptr_import *cmd = ucmd->cmd;
	struct cufab_pool_handle *ph;
	struct cufab_pool_range *r;
	struct cufab_pool_ptr *ptr;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	ptr = ph->imported ? cufab_pool_ptr_use(ph->pool, cmd->data) :
	      ERR_PTR(-EINVAL);
	if (IS_ERR(ptr)) {
		cufab_pr_info(ucmd->client, "cuMemPoolImportPointer: the export data name no live pointer of %s pool %u\n",
			      ph->imported ? "imported" : "the non-imported",
			      ph->pool->id);
		ret = PTR_ERR(ptr);
		goto out;
	}
	mutex_lock(&ph->lock);
	ret = cufab_pool_ptr_map(ph, ptr, &r);
	mutex_unlock(&ph->lock);
	if (ret) {
		cufab_pool_ptr_unuse(ph->pool, ptr, true);
		goto out;
	}
	/* the range's import keeps @ptr until the range is freed */
	cmd->out_addr = r->user_addr;
	cmd->out_length = ptr->length;
	trace_cufab_pool_ptr_import(ph->pool->id, ptr->id, ptr->chunk->id,
				    ptr->offset, ptr->length);
	ret = cufab_pool_range_respond(ucmd, ph, r, sizeof(*cmd));
out:
	cufab_pool_handle_put(ph);
	return ret;
}

/* The exporter ends the export of the range at @addr. */
static int cufab_pool_ptr_unexport(struct cufab_pool *pool, u64 addr)
{
	struct cufab_pool_ptr *ptr, *found = NULL;
	unsigned long index;
	bool last = false;
	int ret = -EINVAL;

	mutex_lock(&pool->lock);
	xa_for_each(&pool->ptrs, index, ptr)
		if (ptr->exported && ptr->addr == addr)
			found = ptr;
	if (found)
		ret = found->imports ? -EBUSY : 0;
	if (!ret)
		last = cufab_pool_ptr_drop_locked(pool, found, false);
	mutex_unlock(&pool->lock);
	if (last)
		cufab_pool_ptr_free(found);
	return ret;
}

/* The importer unmaps its pointer; the exporter ends its export. */
static int cufab_pool_ptr_end(struct cufab_pool_handle *ph, u64 addr)
{
	if (ph->imported)
		return cufab_pool_range_release(ph, addr, true);
	return cufab_pool_ptr_unexport(ph->pool, addr);
}

int cufab_ioctl_pool_ptr_release(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_ptr_release *cmd = ucmd->cmd;

	return cufab_pool_addr_cmd(ucmd, cmd->flags, cmd->__reserved,
				   cmd->pool, cmd->addr, cufab_pool_ptr_end);
}
