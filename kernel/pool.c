// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pools: cuMemPoolCreate/Destroy, their attributes and access, the
 * chunks cuMemAllocAsync sub-allocates from, and the lifetime of the
 * records of exported pointers. Sharing pools and pool pointers between
 * processes (the handles, the export data, the imports) is pool_share.c.
 *
 * The kernel owns what must hold across calls and processes: the pool's
 * properties and cap, the memory it reserved (in chunks of
 * CUFAB_POOL_CHUNK bytes, the cap rounded up to them, as NVIDIA's driver
 * does), its accounting, each client's access rights, its exports, and
 * every exported pointer. The library keeps the free lists of the chunks
 * it was given, so a warm cuMemAllocAsync/cuMemFreeAsync pair makes no
 * system call.
 *
 * An exported pointer is a record of the pool: a chunk (one reference), an
 * offset, a length and a secret. Each import maps those pages into the
 * importer and counts on the record; while it does, the exporter may not
 * end the export (-EBUSY), so the library does not reuse the range and the
 * importer's memory stays what it was until the importer frees it.
 *
 * Lifetime: the chunk's final put (alloc.c, through the release of its
 * struct cufab_alloc_ops) returns its bytes to the pool's reserved count
 * and drops its pool reference.
 *
 * Locking: cufab_pools_lock (the node's pool table) -> pool->lock
 * (records, FABRIC export) -> pool->stat_lock (counters, a spinlock,
 * since a chunk's release may run under mmap_lock). A pool object's
 * ph->lock (chunks, imports) is held across address-space changes, so
 * neither pool lock is ever held while taking it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <linux/cufab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "cufab.h"
#include "fabric.h"
#include "pool.h"
#include "trace.h"

#define CUFAB_POOL_REUSE_ALL	(BIT(CUFAB_POOL_ATTR_REUSE_FOLLOW_EVENT_DEPS) | \
				 BIT(CUFAB_POOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) | \
				 BIT(CUFAB_POOL_ATTR_REUSE_ALLOW_INTERNAL_DEPS))

static DEFINE_MUTEX(cufab_pools_lock);
static DEFINE_XARRAY_ALLOC1(cufab_pools);
static atomic64_t cufab_pools_nr = ATOMIC64_INIT(0);

u64 cufab_pools_live(void)
{
	return atomic64_read(&cufab_pools_nr);
}

/* ---- pools ---- */

/* Everything the final put undoes but the pool's own memory. */
static void cufab_pool_teardown(struct cufab_pool *pool)
{
	trace_cufab_pool_destroy(pool->id, pool->location_type,
				 pool->location_id, pool->max_size,
				 pool->owner_pid);
	mutex_lock(&cufab_pools_lock);
	xa_erase(&cufab_pools, pool->id);
	mutex_unlock(&cufab_pools_lock);
	/* records hold chunks, chunks hold the pool: none is left here */
	WARN_ON(!xa_empty(&pool->ptrs));
	xa_destroy(&pool->ptrs);
	mutex_destroy(&pool->lock);
	atomic64_dec(&cufab_pools_nr);
	cufab_live_objects_dec();
}

static void cufab_pool_free(struct kref *ref)
{
	struct cufab_pool *pool = container_of(ref, struct cufab_pool, ref);

	cufab_pool_teardown(pool);
	kfree(pool);
}

void cufab_pool_put(struct cufab_pool *pool)
{
	kref_put(&pool->ref, cufab_pool_free);
}

/*
 * The creator's pool object drops its reference: the last one makes the
 * pool's memory one of @client's spares for its next cuMemPoolCreate,
 * as alloc.c does for allocations.
 */
static void cufab_pool_put_spare(struct cufab_pool *pool,
				 struct cufab_client *client)
{
	if (!refcount_dec_if_one(&pool->ref.refcount)) {
		cufab_pool_put(pool);
		return;
	}
	cufab_pool_teardown(pool);
	if (!cufab_spare_keep(client->spare_pool, pool))
		kfree(pool);
}

/*
 * Memory for a new pool: @client's spare, zeroed a word at a time, or
 * the slab's (zeroed byte by byte under init_on_alloc).
 */
static struct cufab_pool *cufab_pool_mem(struct cufab_client *client)
{
	struct cufab_pool *pool = cufab_spare_take(client->spare_pool);

	if (pool) {
		*pool = (struct cufab_pool){};
		return pool;
	}
	return kzalloc(sizeof(*pool), GFP_KERNEL_ACCOUNT);
}

/* The spare goes with the client, after its pool objects. */
static void cufab_pool_client_gone(struct cufab_client *client)
{
	cufab_spares_free(client->spare_pool);
}

const struct cufab_client_part cufab_pool_client_part = {
	.name = "spare pool",
	.teardown = cufab_pool_client_gone,
};

/* Pool @id of the node with a reference, or NULL when there is none. */
struct cufab_pool *cufab_pool_find(u32 id)
{
	struct cufab_pool *pool;

	mutex_lock(&cufab_pools_lock);
	pool = xa_load(&cufab_pools, id);
	if (pool && !kref_get_unless_zero(&pool->ref))
		pool = NULL;
	mutex_unlock(&cufab_pools_lock);
	return pool;
}

/* The location's memory: the default and the upper bound of the cap. */
static u64 cufab_pool_location_size(u32 type, s32 id)
{
	struct cufab_gpu_facts facts;

	if (type != CUFAB_LOC_DEVICE)
		return (u64)totalram_pages() << PAGE_SHIFT;
	return id < 0 || cufab_gpu_facts(id, &facts) ? 0 : facts.mem_total;
}

/*
 * Does GPU @index allocate from pools (the features knob may say not)?
 * FABRIC export needs its fabric handles too.
 */
static bool cufab_gpu_pool_capable(u32 index, u32 handle_types)
{
	u32 need = CUFAB_DEV_F_MEMORY_POOLS;
	struct cufab_gpu_facts facts;

	if (handle_types & CUFAB_HANDLE_FABRIC)
		need |= CUFAB_DEV_F_FABRIC_HANDLE;
	return !cufab_gpu_facts(index, &facts) &&
	       (facts.features & need) == need;
}

/* The pool's properties, as cuMemPoolCreate checks them. */
static int cufab_pool_props_check(struct cufab_client *client,
				  const struct cufab_pool_create *cmd)
{
	if ((cmd->flags & ~CUFAB_POOL_CREATE_DEFAULT) ||
	    (cmd->handle_types & ~CUFAB_HANDLE_VALID) ||
	    (cmd->usage & ~CUFAB_POOL_USAGE_HW_DECOMPRESS)) {
		cufab_pr_info(client, "cuMemPoolCreate: handleTypes 0x%x, usage 0x%x: unknown bits (handle types 0x%x, usage 0x%x)\n",
			      cmd->handle_types, cmd->usage, CUFAB_HANDLE_VALID,
			      CUFAB_POOL_USAGE_HW_DECOMPRESS);
		return -EINVAL;
	}
	if (cmd->alloc_type != CUFAB_POOL_ALLOC_PINNED) {
		cufab_pr_info(client, "cuMemPoolCreate: allocType %u: CUmemPoolProps.allocType must be CU_MEM_ALLOCATION_TYPE_PINNED (cufab has no managed pools)\n",
			      cmd->alloc_type);
		return -EINVAL;
	}
	switch (cmd->location_type) {
	case CUFAB_LOC_DEVICE:
		/* INVALID_VALUE, not cuMemCreate's INVALID_DEVICE */
		if (cmd->location_id < 0 ||
		    !cufab_node_gpu_exists(cmd->location_id)) {
			cufab_pr_info(client, "cuMemPoolCreate: location device %d does not exist\n",
				      cmd->location_id);
			return -EINVAL;
		}
		break;
	case CUFAB_LOC_HOST_NUMA:
		if (cmd->location_id < 0 || cmd->location_id >= MAX_NUMNODES ||
		    !node_online(cmd->location_id)) {
			cufab_pr_info(client, "cuMemPoolCreate: location host NUMA node %d is not online\n",
				      cmd->location_id);
			return -EINVAL;
		}
		break;
	case CUFAB_LOC_HOST:
		if (cmd->handle_types) {
			cufab_pr_info(client, "cuMemPoolCreate: a CU_MEM_LOCATION_TYPE_HOST pool cannot be exported (handleTypes 0x%x)\n",
				      cmd->handle_types);
			return -EINVAL;
		}
		break;
	default:
		cufab_pr_info(client, "cuMemPoolCreate: location type %u is not DEVICE, HOST or HOST_NUMA\n",
			      cmd->location_type);
		return -EINVAL;
	}
	if (cmd->location_type == CUFAB_LOC_DEVICE &&
	    !cufab_gpu_pool_capable(cmd->location_id, cmd->handle_types)) {
		cufab_pr_info(client, "cuMemPoolCreate: gpu %d has no memory pools%s (features)\n",
			      cmd->location_id,
			      cmd->handle_types & CUFAB_HANDLE_FABRIC ?
			      " or no fabric handles" : "");
		return -EOPNOTSUPP;
	}
	if (cmd->usage & CUFAB_POOL_USAGE_HW_DECOMPRESS) {
		cufab_pr_info(client, "cuMemPoolCreate: no virtual GPU has a hardware decompression engine\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static struct cufab_pool *cufab_pool_new(const struct cufab_pool_create *cmd,
					 struct cufab_client *client)
{
	struct cufab_pool *pool;
	u64 loc_size, max;
	int ret;

	if (cufab_should_fail(CUFAB_FAULT_POOL))
		return ERR_PTR(-ENOMEM);
	loc_size = cufab_pool_location_size(cmd->location_type,
					    cmd->location_id);
	max = cmd->max_size ?: loc_size;
	if (max > U64_MAX - CUFAB_POOL_CHUNK)
		return ERR_PTR(-EINVAL);
	pool = cufab_pool_mem(client);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	kref_init(&pool->ref);
	mutex_init(&pool->lock);
	spin_lock_init(&pool->stat_lock);
	xa_init_flags(&pool->ptrs, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	pool->location_type = cmd->location_type;
	pool->location_id = cmd->location_type == CUFAB_LOC_HOST ?
			    -1 : cmd->location_id;
	pool->handle_types = cmd->handle_types;
	pool->is_default = cmd->flags & CUFAB_POOL_CREATE_DEFAULT;
	pool->max_size = round_up(max, CUFAB_POOL_CHUNK);
	pool->fabric_channel = CUFAB_IMEX_NO_CHANNEL;
	pool->reuse = CUFAB_POOL_REUSE_ALL;
	pool->owner_pid = task_tgid_nr(current);
	/* as an allocation's owner (alloc.c): no task_lock() for its own */
	memcpy(pool->owner_comm, current->comm, sizeof(pool->owner_comm));
	pool->owner_comm[sizeof(pool->owner_comm) - 1] = '\0';

	/*
	 * The lowest free id, not the next one cyclically: ids that only grow
	 * made every create allocate a path of xarray nodes and every destroy
	 * free it through RCU (3x the cost of the pair). A reused id opens
	 * nothing: fabric and pointer handles carry the pool's secret.
	 */
	mutex_lock(&cufab_pools_lock);
	ret = xa_alloc(&cufab_pools, &pool->id, pool, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	mutex_unlock(&cufab_pools_lock);
	if (ret < 0) {
		mutex_destroy(&pool->lock);
		kfree(pool);
		return ERR_PTR(ret);
	}
	atomic64_inc(&cufab_pools_nr);
	cufab_live_objects_inc();
	trace_cufab_pool_create(pool->id, pool->location_type,
				pool->location_id, pool->max_size,
				pool->owner_pid);
	return pool;
}

/* ---- pool objects (CUFAB_OBJ_POOL) ---- */

struct cufab_pool_handle *cufab_pool_handle_get(struct cufab_client *client,
						u32 id)
{
	struct cufab_object *obj;

	obj = cufab_object_get(client, id, CUFAB_OBJ_POOL);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	return container_of(obj, struct cufab_pool_handle, obj);
}

void cufab_pool_handle_put(struct cufab_pool_handle *ph)
{
	cufab_object_put(&ph->obj);
}

/*
 * Drop one import of @ptr, or its export, under pool->lock: the state
 * change and the decision to free are one step, so two threads ending
 * the same export cannot both free the record. True when @ptr is out of
 * @pool->ptrs and the caller frees it (cufab_pool_ptr_free()).
 */
bool cufab_pool_ptr_drop_locked(struct cufab_pool *pool,
				struct cufab_pool_ptr *ptr, bool import)
{
	lockdep_assert_held(&pool->lock);
	if (import)
		ptr->imports--;
	else
		ptr->exported = false;
	if (ptr->imports || ptr->exported)
		return false;
	xa_erase(&pool->ptrs, ptr->id);
	return true;
}

void cufab_pool_ptr_free(struct cufab_pool_ptr *ptr)
{
	cufab_alloc_put(ptr->chunk);
	kfree(ptr);
	cufab_live_objects_dec();
}

/* Drop one import of @ptr; the record goes with its last user. */
void cufab_pool_ptr_unuse(struct cufab_pool *pool,
			  struct cufab_pool_ptr *ptr, bool import)
{
	bool last;

	mutex_lock(&pool->lock);
	last = cufab_pool_ptr_drop_locked(pool, ptr, import);
	mutex_unlock(&pool->lock);
	if (last)
		cufab_pool_ptr_free(ptr);
}

/*
 * Unmapping acts on current->mm: only the owning process does it. When
 * the client goes, its reservations are already gone (each VMA holds the
 * file), and only the references are left to drop.
 */
static void cufab_pool_range_free(struct cufab_pool_handle *ph,
				  struct cufab_pool_range *r, bool unmap)
{
	if (unmap)
		cufab_va_pool_munmap(ph->obj.client, r->addr);
	if (r->ptr)
		cufab_pool_ptr_unuse(ph->pool, r->ptr, true);
	if (r->alloc)
		cufab_alloc_put(r->alloc);
	list_del(&r->node);
	kfree(r);
	cufab_live_objects_dec();
}

/* The exporter's records end with its pool object. */
static void cufab_pool_ptrs_unexport(struct cufab_pool *pool)
{
	struct cufab_pool_ptr *ptr;
	unsigned long index;

	xa_for_each(&pool->ptrs, index, ptr) {
		bool last = false;

		mutex_lock(&pool->lock);
		if (xa_load(&pool->ptrs, index) == ptr && ptr->exported)
			last = cufab_pool_ptr_drop_locked(pool, ptr, false);
		mutex_unlock(&pool->lock);
		if (last)
			cufab_pool_ptr_free(ptr);
	}
}

static void cufab_pool_handle_destroy(struct cufab_object *obj)
{
	struct cufab_pool_handle *ph = container_of(obj, struct cufab_pool_handle,
						    obj);
	struct cufab_client *client = obj->client;
	struct cufab_pool_range *r, *tmp;
	bool unmap;

	if (!ph->pool)
		return;
	unmap = cufab_client_is_owner(client) && current->mm &&
		!(current->flags & PF_EXITING);
	mutex_lock(&ph->lock);
	list_for_each_entry_safe(r, tmp, &ph->ranges, node)
		cufab_pool_range_free(ph, r, unmap);
	mutex_unlock(&ph->lock);
	if (ph->imported) {
		spin_lock(&ph->pool->stat_lock);
		ph->pool->importers--;
		spin_unlock(&ph->pool->stat_lock);
	} else {
		cufab_pool_ptrs_unexport(ph->pool);
	}
	mutex_destroy(&ph->lock);
	/* an importer's would be charged to another process's cgroup */
	if (ph->imported)
		cufab_pool_put(ph->pool);
	else
		cufab_pool_put_spare(ph->pool, client);
}

const struct cufab_object_ops cufab_pool_handle_ops = {
	.name = "memory pool",
	.slab = "cufab_pool_handle",
	.size = sizeof(struct cufab_pool_handle),
	.destroy = cufab_pool_handle_destroy,
};

/* The resident location's access: its GPU, or none for a host pool. */
static u64 cufab_pool_resident_gpus(const struct cufab_pool *pool)
{
	return pool->location_type == CUFAB_LOC_DEVICE ?
	       BIT_ULL(pool->location_id) : 0;
}

/*
 * A new pool object on @pool (taking a reference) for the reply, published
 * only if the reply reached the caller.
 */
int cufab_pool_handle_respond(struct cufab_ucmd *ucmd,
			      struct cufab_pool *pool, bool imported,
			      u32 *out_id, size_t cmd_len)
{
	struct cufab_pool_handle *ph;
	int ret;

	ph = cufab_object_alloc(ucmd->client, ph, CUFAB_OBJ_POOL);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	kref_get(&pool->ref);
	ph->pool = pool;
	ph->imported = imported;
	mutex_init(&ph->lock);
	INIT_LIST_HEAD(&ph->ranges);
	ph->gpu_read = cufab_pool_resident_gpus(pool);
	ph->gpu_write = ph->gpu_read;
	if (imported) {
		spin_lock(&pool->stat_lock);
		pool->importers++;
		spin_unlock(&pool->stat_lock);
	}
	*out_id = ph->obj.id;
	ret = cufab_ucmd_respond(ucmd, cmd_len);
	if (ret) {
		cufab_object_abort_and_destroy(&ph->obj);
		return ret;
	}
	cufab_object_finalize(&ph->obj);
	return 0;
}

int cufab_ioctl_pool_create(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_create *cmd = ucmd->cmd;
	struct cufab_pool *pool;
	int ret;

	ret = cufab_pool_props_check(ucmd->client, cmd);
	if (ret)
		return ret;
	pool = cufab_pool_new(cmd, ucmd->client);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	cmd->out_pool_id = pool->id;
	cmd->out_max_size = pool->max_size;
	ret = cufab_pool_handle_respond(ucmd, pool, false, &cmd->out_pool,
					sizeof(*cmd));
	cufab_pool_put(pool);
	return ret;
}

/* ---- attributes ---- */

static int cufab_pool_attr_set(struct cufab_pool *pool, u32 attr, u64 value)
{
	int ret = 0;

	spin_lock(&pool->stat_lock);
	switch (attr) {
	case CUFAB_POOL_ATTR_REUSE_FOLLOW_EVENT_DEPS:
	case CUFAB_POOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CUFAB_POOL_ATTR_REUSE_ALLOW_INTERNAL_DEPS:
		if (value)
			pool->reuse |= BIT(attr);
		else
			pool->reuse &= ~BIT(attr);
		break;
	case CUFAB_POOL_ATTR_RELEASE_THRESHOLD:
		pool->release_threshold = value;
		break;
	case CUFAB_POOL_ATTR_RESERVED_MEM_HIGH:
		/* a high-water mark can only be reset */
		if (value)
			ret = -EINVAL;
		else
			pool->reserved_high = pool->reserved;
		break;
	default:
		ret = -EINVAL;
	}
	spin_unlock(&pool->stat_lock);
	return ret;
}

static int cufab_pool_attr_get(struct cufab_pool *pool, u32 attr, u64 *value)
{
	int ret = 0;

	spin_lock(&pool->stat_lock);
	switch (attr) {
	case CUFAB_POOL_ATTR_REUSE_FOLLOW_EVENT_DEPS:
	case CUFAB_POOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CUFAB_POOL_ATTR_REUSE_ALLOW_INTERNAL_DEPS:
		*value = !!(pool->reuse & BIT(attr));
		break;
	case CUFAB_POOL_ATTR_RELEASE_THRESHOLD:
		*value = pool->release_threshold;
		break;
	case CUFAB_POOL_ATTR_RESERVED_MEM_CURRENT:
		*value = pool->reserved;
		break;
	case CUFAB_POOL_ATTR_RESERVED_MEM_HIGH:
		*value = pool->reserved_high;
		break;
	default:
		ret = -EINVAL;
	}
	spin_unlock(&pool->stat_lock);
	return ret;
}

int cufab_ioctl_pool_attr(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_attr *cmd = ucmd->cmd;
	struct cufab_pool_handle *ph;
	int ret;

	if (cmd->flags & ~CUFAB_POOL_ATTR_SET)
		return -EINVAL;
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	/* the attributes are the exporter's: its reuse, its threshold */
	if ((cmd->flags & CUFAB_POOL_ATTR_SET) && ph->imported) {
		cufab_pr_info(ucmd->client, "cuMemPoolSetAttribute: memory pool %u was imported: attribute %u is its exporter's to set\n",
			      cmd->pool, cmd->attr);
		ret = -EPERM;
	} else if (cmd->flags & CUFAB_POOL_ATTR_SET) {
		ret = cufab_pool_attr_set(ph->pool, cmd->attr, cmd->value);
		if (ret)
			cufab_pr_info(ucmd->client, "cuMemPoolSetAttribute: memory pool %u: attribute %u value %llu: %s\n",
				      cmd->pool, cmd->attr, cmd->value,
				      cmd->attr == CUFAB_POOL_ATTR_RESERVED_MEM_HIGH ?
				      "a high-water mark may only be reset to 0" :
				      "not an attribute that can be set");
	} else {
		ret = cufab_pool_attr_get(ph->pool, cmd->attr, &cmd->value);
	}
	cufab_pool_handle_put(ph);
	if (ret)
		return ret;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* ---- chunks ---- */

/* The final put of a chunk: its bytes leave the pool. */
static void cufab_pool_chunk_release(struct cufab_alloc *alloc)
{
	struct cufab_pool *pool = alloc->priv;

	spin_lock(&pool->stat_lock);
	pool->reserved -= alloc->length;
	spin_unlock(&pool->stat_lock);
	cufab_pool_put(pool);
}

/*
 * The pool kind of allocation: device (or host) memory like cuMemCreate's,
 * bindable by address (cuMulticastBindAddr and cuLogicalEndpointBindAddr
 * name cudaMallocAsync memory), never handed out as a handle.
 */
static const struct cufab_alloc_ops cufab_pool_chunk_ops = {
	.name = "cuMemAllocAsync",
	.flags = CUFAB_ALLOC_BINDABLE,
	.page = cufab_alloc_store_page,
	.map_prepare = cufab_alloc_map_check,
	.release = cufab_pool_chunk_release,
};

/* Count @length against the cap; -ENOMEM past it. */
static int cufab_pool_reserve(struct cufab_pool *pool, u64 length)
{
	int ret = 0;

	spin_lock(&pool->stat_lock);
	if (length > pool->max_size ||
	    pool->reserved > pool->max_size - length) {
		ret = -ENOMEM;
	} else {
		pool->reserved += length;
		pool->reserved_high = max(pool->reserved_high, pool->reserved);
	}
	spin_unlock(&pool->stat_lock);
	return ret;
}

static void cufab_pool_unreserve(struct cufab_pool *pool, u64 length)
{
	spin_lock(&pool->stat_lock);
	pool->reserved -= length;
	spin_unlock(&pool->stat_lock);
}

/*
 * What a chunk's length is rounded up to: CUFAB_POOL_CHUNK, as NVIDIA's
 * driver reserves; a FABRIC pool's chunks in the fabric window take its
 * 2 MiB units, since a node's slice is far smaller than a GPU (30 MiB in
 * the test cluster's default window) and would hold no 32 MiB chunk.
 */
static u64 cufab_pool_chunk_unit(const struct cufab_pool *pool)
{
	if ((pool->handle_types & CUFAB_HANDLE_FABRIC) && cufab_window_present())
		return cufab_window_unit();
	return CUFAB_POOL_CHUNK;
}

/* A chunk's allocation; its bytes are counted in the pool from here on. */
static struct cufab_alloc *cufab_pool_chunk_alloc(struct cufab_client *client,
						  struct cufab_pool *pool,
						  u64 length)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_pool_chunk_ops,
		.location_type = pool->location_type,
		.location_id = pool->location_id,
		.handle_types = pool->handle_types,
		.length = length,
		.priv = pool,
		.client = client,
		.call = "cuMemAllocFromPoolAsync",
	};
	struct cufab_alloc *alloc;
	int ret;

	/*
	 * A FABRIC pool's chunks may be imported by another node (a pool
	 * pointer carries them): they live where every node sees them.
	 */
	if ((pool->handle_types & CUFAB_HANDLE_FABRIC) && cufab_window_present())
		desc.provider = &cufab_window_pages;
	ret = cufab_pool_reserve(pool, length);
	if (ret) {
		cufab_pr_info(client, "cuMemAllocFromPoolAsync: memory pool %u: a chunk of %llu bytes exceeds its maxSize %llu (reserved %llu)\n",
			      pool->id, length, pool->max_size,
			      pool->reserved);
		return ERR_PTR(ret);
	}
	alloc = cufab_should_fail(CUFAB_FAULT_POOL) ? ERR_PTR(-ENOMEM) :
		cufab_alloc_create(&desc);
	if (IS_ERR(alloc)) {
		cufab_pool_unreserve(pool, length);
		return alloc;
	}
	/* the chunk's, dropped by its release */
	kref_get(&pool->ref);
	return alloc;
}

/*
 * A new chunk of @cmd->length mapped for @ph's client in *@out, not yet on
 * @ph's list: cufab_pool_range_respond() publishes it.
 */
static int cufab_pool_grow(struct cufab_pool_handle *ph,
			   struct cufab_pool_grow *cmd,
			   struct cufab_pool_range **out)
{
	struct cufab_client *client = ph->obj.client;
	struct cufab_pool_range *r;
	struct cufab_alloc *alloc;
	u64 length;
	int ret;

	if (cmd->length > U64_MAX - CUFAB_POOL_CHUNK)
		return -ENOMEM;
	length = round_up(cmd->length, cufab_pool_chunk_unit(ph->pool));
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	alloc = cufab_pool_chunk_alloc(client, ph->pool, length);
	if (IS_ERR(alloc)) {
		kfree(r);
		return PTR_ERR(alloc);
	}
	INIT_LIST_HEAD(&r->node);
	mutex_lock(&ph->lock);
	ret = cufab_va_pool_map(client, alloc, 0, length,
				cufab_mem_granularity(), ph->gpu_read,
				ph->gpu_write, &r->addr);
	mutex_unlock(&ph->lock);
	if (ret) {
		cufab_alloc_put(alloc);
		kfree(r);
		return ret;
	}
	r->length = length;
	r->user_addr = r->addr;
	r->alloc = alloc;
	cufab_live_objects_inc();
	cmd->out_addr = r->addr;
	cmd->out_length = length;
	cmd->out_alloc_id = alloc->id;
	trace_cufab_pool_grow(ph->pool->id, alloc->id, length, r->addr);
	*out = r;
	return 0;
}

/*
 * Reply, then publish @r on @ph's list, or free it when the reply cannot
 * be written. Until it is published no other thread can name the range
 * (shrink and release look it up on the list), so the reply's failure
 * frees exactly what this call made, and nothing another thread freed.
 */
int cufab_pool_range_respond(struct cufab_ucmd *ucmd,
			     struct cufab_pool_handle *ph,
			     struct cufab_pool_range *r, size_t len)
{
	int ret = cufab_ucmd_respond(ucmd, len);

	mutex_lock(&ph->lock);
	if (ret)
		cufab_pool_range_free(ph, r, true);
	else
		list_add_tail(&r->node, &ph->ranges);
	mutex_unlock(&ph->lock);
	return ret;
}

/* The range of @ph whose caller's address is @addr, under ph->lock. */
static struct cufab_pool_range *cufab_pool_range_at(struct cufab_pool_handle *ph,
						    u64 addr)
{
	struct cufab_pool_range *r;

	list_for_each_entry(r, &ph->ranges, node)
		if (r->user_addr == addr)
			return r;
	return NULL;
}

int cufab_ioctl_pool_grow(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_grow *cmd = ucmd->cmd;
	struct cufab_pool_handle *ph;
	struct cufab_pool_range *r;
	int ret;

	if (cmd->flags || cmd->__reserved || !cmd->length)
		return -EINVAL;
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	if (ph->imported) {
		cufab_pr_info(ucmd->client, "cuMemAllocFromPoolAsync: memory pool %u was imported: an imported pool cannot allocate\n",
			      ph->pool->id);
		ret = -EPERM;
	} else {
		ret = cufab_pool_grow(ph, cmd, &r);
	}
	if (!ret)
		ret = cufab_pool_range_respond(ucmd, ph, r, sizeof(*cmd));
	cufab_pool_handle_put(ph);
	return ret;
}

/*
 * The client's range at @addr of @ph, freed when it is a chunk (@import
 * false) or an imported pointer (@import true); -EINVAL when it is not.
 */
int cufab_pool_range_release(struct cufab_pool_handle *ph, u64 addr,
			     bool import)
{
	struct cufab_pool_range *r;
	int ret = -EINVAL;

	mutex_lock(&ph->lock);
	r = cufab_pool_range_at(ph, addr);
	if (r && (import ? !!r->ptr : !!r->alloc)) {
		cufab_pool_range_free(ph, r, true);
		ret = 0;
	}
	mutex_unlock(&ph->lock);
	return ret;
}

/*
 * SHRINK and PTR_RELEASE name a range of a pool handle by address in the
 * same layout: check the flags, find the handle and let @release act.
 */
int cufab_pool_addr_cmd(struct cufab_ucmd *ucmd, u32 flags,
			u32 reserved, u32 pool_id, u64 addr,
			int (*release)(struct cufab_pool_handle *ph,
				       u64 addr))
{
	struct cufab_pool_handle *ph;
	int ret;

	if (flags || reserved)
		return -EINVAL;
	ph = cufab_pool_handle_get(ucmd->client, pool_id);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	ret = release(ph, addr);
	cufab_pool_handle_put(ph);
	return ret;
}

static int cufab_pool_chunk_give_back(struct cufab_pool_handle *ph, u64 addr)
{
	return cufab_pool_range_release(ph, addr, false);
}

int cufab_ioctl_pool_shrink(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_shrink *cmd = ucmd->cmd;

	return cufab_pool_addr_cmd(ucmd, cmd->flags, cmd->__reserved,
				   cmd->pool, cmd->addr,
				   cufab_pool_chunk_give_back);
}

/* ---- access ---- */

/* Is @type a location of the host? */
static bool cufab_loc_is_host(u32 type)
{
	return type == CUFAB_LOC_HOST || type == CUFAB_LOC_HOST_NUMA;
}

/*
 * One CUmemAccessDesc of cuMemPoolSetAccess into @read/@write. The host
 * is a location only of host pools, and the resident location keeps
 * read-write access.
 */
static int cufab_pool_access_desc(struct cufab_pool_handle *ph,
				  const struct cufab_mem_access *d,
				  u64 *read, u64 *write)
{
	const struct cufab_pool *pool = ph->pool;
	struct cufab_client *client = ph->obj.client;

	if (d->__reserved || (d->flags != CUFAB_ACCESS_NONE &&
			      d->flags != CUFAB_ACCESS_READ &&
			      d->flags != CUFAB_ACCESS_RW)) {
		cufab_pr_info(client, "cuMemPoolSetAccess: pool %u: flags 0x%x: must be CU_MEM_ACCESS_FLAGS_PROT_NONE, READ or READWRITE\n",
			      pool->id, d->flags);
		return -EINVAL;
	}
	if (cufab_loc_is_host(d->location_type)) {
		if (!cufab_loc_is_host(pool->location_type) ||
		    d->flags != CUFAB_ACCESS_RW) {
			cufab_pr_info(client, "cuMemPoolSetAccess: pool %u: the host is %s\n",
				      pool->id,
				      cufab_loc_is_host(pool->location_type) ?
				      "the pool's location and keeps read-write access" :
				      "not a location of a device pool");
			return -EINVAL;
		}
		return 0;
	}
	if (d->location_type != CUFAB_LOC_DEVICE || d->location_id < 0 ||
	    !cufab_node_gpu_exists(d->location_id)) {
		cufab_pr_info(client, "cuMemPoolSetAccess: pool %u: location %u:%d is not a device\n",
			      pool->id, d->location_type, d->location_id);
		return -EINVAL;
	}
	if (pool->location_type == CUFAB_LOC_DEVICE &&
	    d->location_id == pool->location_id && d->flags != CUFAB_ACCESS_RW) {
		cufab_pr_info(client, "cuMemPoolSetAccess: pool %u: gpu %d is its location and keeps read-write access\n",
			      pool->id, d->location_id);
		return -EINVAL;
	}
	*read &= ~BIT_ULL(d->location_id);
	*write &= ~BIT_ULL(d->location_id);
	if (d->flags & CUFAB_ACCESS_READ)
		*read |= BIT_ULL(d->location_id);
	if (d->flags == CUFAB_ACCESS_RW)
		*write |= BIT_ULL(d->location_id);
	return 0;
}

static int cufab_pool_set_access(struct cufab_pool_handle *ph,
				 const struct cufab_mem_access *descs, u32 n)
{
	struct cufab_pool_range *r;
	u64 read, write;
	int ret = 0;
	u32 i;

	mutex_lock(&ph->lock);
	read = ph->gpu_read;
	write = ph->gpu_write;
	for (i = 0; i < n && !ret; i++)
		ret = cufab_pool_access_desc(ph, &descs[i], &read, &write);
	if (!ret) {
		ph->gpu_read = read;
		ph->gpu_write = write;
		/* a range its process unmapped behind our back has no access */
		list_for_each_entry(r, &ph->ranges, node)
			cufab_va_set_access_all(ph->obj.client, r->addr,
						r->length, CUFAB_ACCESS_RW,
						read, write);
	}
	mutex_unlock(&ph->lock);
	return ret;
}

int cufab_ioctl_pool_set_access(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_set_access *cmd = ucmd->cmd;
	struct cufab_mem_access *descs;
	struct cufab_pool_handle *ph;
	int ret;

	if (cmd->flags || !cmd->num_descs ||
	    cmd->num_descs > CUFAB_MAX_GPUS + 1) {
		cufab_pr_info(ucmd->client, "cuMemPoolSetAccess: count %u: must be 1 ..%u\n",
			      cmd->num_descs, CUFAB_MAX_GPUS + 1);
		return -EINVAL;
	}
	descs = memdup_user(u64_to_user_ptr(cmd->descs_ptr),
			    array_size(cmd->num_descs, sizeof(*descs)));
	if (IS_ERR(descs))
		return PTR_ERR(descs);
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph)) {
		kfree(descs);
		return PTR_ERR(ph);
	}
	ret = cufab_pool_set_access(ph, descs, cmd->num_descs);
	cufab_pool_handle_put(ph);
	kfree(descs);
	return ret;
}

int cufab_ioctl_pool_get_access(struct cufab_ucmd *ucmd)
{
	struct cufab_pool_get_access *cmd = ucmd->cmd;
	struct cufab_pool_handle *ph;
	int ret = 0;

	if (cmd->flags)
		return -EINVAL;
	ph = cufab_pool_handle_get(ucmd->client, cmd->pool);
	if (IS_ERR(ph))
		return PTR_ERR(ph);
	mutex_lock(&ph->lock);
	if (cufab_loc_is_host(cmd->location_type)) {
		if (cufab_loc_is_host(ph->pool->location_type))
			cmd->out_flags = CUFAB_ACCESS_RW;
		else
			ret = -EINVAL;
	} else if (cmd->location_type == CUFAB_LOC_DEVICE &&
		   cmd->location_id >= 0 &&
		   cufab_node_gpu_exists(cmd->location_id)) {
		cmd->out_flags = ph->gpu_write & BIT_ULL(cmd->location_id) ?
				 CUFAB_ACCESS_RW :
				 ph->gpu_read & BIT_ULL(cmd->location_id) ?
				 CUFAB_ACCESS_READ : CUFAB_ACCESS_NONE;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&ph->lock);
	cufab_pool_handle_put(ph);
	return ret ? ret : cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* ---- observation ---- */

static const char *cufab_loc_name(u32 type)
{
	switch (type) {
	case CUFAB_LOC_DEVICE:
		return "device";
	case CUFAB_LOC_HOST:
		return "host";
	case CUFAB_LOC_HOST_NUMA:
		return "host_numa";
	default:
		return "?";
	}
}

/*
 * debugfs "pools": one line per pool with its owner, location, handle
 * types, cap, reserved bytes, importers and exported pointers.
 */
void cufab_pools_show(struct seq_file *m)
{
	unsigned long index, pindex, n;
	struct cufab_pool_ptr *ptr;
	struct cufab_pool *pool;

	mutex_lock(&cufab_pools_lock);
	xa_for_each(&cufab_pools, index, pool) {
		n = 0;
		xa_for_each(&pool->ptrs, pindex, ptr)
			n++;
		spin_lock(&pool->stat_lock);
		seq_printf(m, "pool %u pid=%d comm=%s loc=%s:%d handle_types=0x%x%s max=%llu reserved=%llu high=%llu threshold=%llu reuse=0x%x importers=%u ptrs=%lu\n",
			   pool->id, pool->owner_pid, pool->owner_comm,
			   cufab_loc_name(pool->location_type),
			   pool->location_id, pool->handle_types,
			   pool->is_default ? " default" : "",
			   pool->max_size, pool->reserved, pool->reserved_high,
			   pool->release_threshold, pool->reuse,
			   pool->importers, n);
		spin_unlock(&pool->stat_lock);
	}
	mutex_unlock(&cufab_pools_lock);
}

/* ---- CUFAB_NL_CMD_POOL_GET dump: one message per pool ---- */

static int cufab_nl_pool_put(struct sk_buff *skb, struct netlink_callback *cb,
			     struct cufab_pool *pool)
{
	struct cufab_pool_ptr *ptr;
	unsigned long index;
	u64 reserved, high, threshold;
	u32 importers, reuse, ptrs = 0;
	void *hdr;

	xa_for_each(&pool->ptrs, index, ptr)
		ptrs++;
	spin_lock(&pool->stat_lock);
	reserved = pool->reserved;
	high = pool->reserved_high;
	threshold = pool->release_threshold;
	importers = pool->importers;
	reuse = pool->reuse;
	spin_unlock(&pool->stat_lock);

	hdr = cufab_nl_dump_put(skb, cb, CUFAB_NL_CMD_POOL_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, CUFAB_NL_A_POOL_ID, pool->id) ||
	    nla_put_u32(skb, CUFAB_NL_A_PID, pool->owner_pid) ||
	    nla_put_string(skb, CUFAB_NL_A_COMM, pool->owner_comm) ||
	    nla_put_u32(skb, CUFAB_NL_A_POOL_LOC_TYPE, pool->location_type) ||
	    nla_put_s32(skb, CUFAB_NL_A_POOL_LOC_ID, pool->location_id) ||
	    nla_put_u32(skb, CUFAB_NL_A_POOL_HANDLE_TYPES, pool->handle_types) ||
	    nla_put_u8(skb, CUFAB_NL_A_POOL_DEFAULT, pool->is_default) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_POOL_MAX_SIZE, pool->max_size,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_POOL_RESERVED, reserved,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_POOL_RESERVED_HIGH, high,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_POOL_THRESHOLD, threshold,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_POOL_IMPORTERS, importers) ||
	    nla_put_u32(skb, CUFAB_NL_A_POOL_PTRS, ptrs) ||
	    nla_put_u32(skb, CUFAB_NL_A_POOL_REUSE, reuse)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* args[0]: the id after which the dump resumes. */
int cufab_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long index = cb->args[0];
	struct cufab_pool *pool;
	int ret = 0;

	mutex_lock(&cufab_pools_lock);
	xa_for_each_start(&cufab_pools, index, pool, cb->args[0]) {
		ret = cufab_nl_pool_put(skb, cb, pool);
		if (ret)
			break;
		cb->args[0] = index + 1;
	}
	mutex_unlock(&cufab_pools_lock);
	return cufab_nl_dump_ret(skb, ret);
}

void cufab_pools_exit(void)
{
	WARN_ON(!xa_empty(&cufab_pools));
	xa_destroy(&cufab_pools);
}
