/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pools, as pool.c (pools, chunks, access, the records' lifetime)
 * and pool_share.c (exporting and importing pools and pool pointers)
 * share them. pool_share.c calls into pool.c, never the other way.
 */
#ifndef _CUFAB_POOL_H
#define _CUFAB_POOL_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "cufab.h"

#define CUFAB_POOL_PTR_SECRET	CUFAB_FABRIC_SECRET_LEN

/**
 * struct cufab_pool - one memory pool, node-wide
 * @ref: pool objects, exported fds, chunks
 * @id: index in cufab_pools
 * @location_type: CUFAB_LOC_DEVICE, _HOST or _HOST_NUMA
 * @location_id: GPU, NUMA node, -1 (HOST)
 * @handle_types: CUFAB_HANDLE_* bits it may be exported as
 * @is_default: a client's default pool of its location
 * @max_size: the cap, a multiple of CUFAB_POOL_CHUNK
 * @owner_pid: tgid of the creator, for cufabctl
 * @owner_comm: its name
 * @lock: @ptrs, @fabric_*
 * @ptrs: struct cufab_pool_ptr by id
 * @fabric_channel: IMEX channel of the FABRIC export, -1 before one
 * @fabric_secret: what its handle carries
 * @stat_lock: the counters below
 * @reuse: BIT(attr) for the reuse policies that are on
 * @release_threshold: bytes the library keeps reserved past a sync
 * @reserved: bytes of live chunks
 * @reserved_high: high-water mark of @reserved, resettable to 0
 * @importers: pool objects of other clients
 */
struct cufab_pool {
	struct kref ref;
	u32 id;
	u32 location_type;
	s32 location_id;
	u32 handle_types;
	bool is_default;
	u64 max_size;
	pid_t owner_pid;
	char owner_comm[TASK_COMM_LEN];
	struct mutex lock;	/* see above */
	struct xarray ptrs;
	int fabric_channel;
	u8 fabric_secret[CUFAB_FABRIC_SECRET_LEN];
	spinlock_t stat_lock;	/* see above */
	u32 reuse;
	u64 release_threshold;
	u64 reserved;
	u64 reserved_high;
	u32 importers;
};

/**
 * struct cufab_pool_ptr - an exported pool pointer
 * @id: index in pool->ptrs
 * @secret: what CUmemPoolPtrExportData must carry
 * @chunk: the chunk (one reference)
 * @offset: of the range in @chunk
 * @length: bytes
 * @addr: the range's address in the exporter
 * @imports: live import mappings
 * @exported: the exporter has not ended the export
 */
struct cufab_pool_ptr {
	u32 id;
	u8 secret[CUFAB_POOL_PTR_SECRET];
	struct cufab_alloc *chunk;
	u64 offset;
	u64 length;
	u64 addr;
	u32 imports;
	bool exported;
};

/* A chunk mapped in the owner, or an imported pointer mapped in an importer. */
struct cufab_pool_range {
	struct list_head node;
	u64 addr;		/* the reservation's start */
	u64 length;		/* its bytes */
	u64 user_addr;		/* what the caller was given */
	struct cufab_alloc *alloc;	/* chunk: one reference */
	struct cufab_pool_ptr *ptr;	/* import: its record */
};

/**
 * struct cufab_pool_handle - CUFAB_OBJ_POOL, a client's CUmemoryPool
 * @obj: object header
 * @pool: one reference
 * @imported: made by POOL_IMPORT: cannot grow, maps imported pointers
 * @lock: @ranges and the access below
 * @gpu_read: GPUs that may read the pool's memory in this client
 * @gpu_write: GPUs that may write it (a subset of @gpu_read)
 * @ranges: struct cufab_pool_range
 */
struct cufab_pool_handle {
	struct cufab_object obj;
	struct cufab_pool *pool;
	bool imported;
	struct mutex lock;	/* see above */
	u64 gpu_read;
	u64 gpu_write;
	struct list_head ranges;
};

static_assert(offsetof(struct cufab_pool_handle, obj) == 0);

/* pool.c, for pool_share.c */
void cufab_pool_put(struct cufab_pool *pool);
struct cufab_pool *cufab_pool_find(u32 id);
struct cufab_pool_handle *cufab_pool_handle_get(struct cufab_client *client,
						u32 id);
void cufab_pool_handle_put(struct cufab_pool_handle *ph);
int cufab_pool_handle_respond(struct cufab_ucmd *ucmd,
			      struct cufab_pool *pool, bool imported,
			      u32 *out_id, size_t cmd_len);
int cufab_pool_range_respond(struct cufab_ucmd *ucmd,
			     struct cufab_pool_handle *ph,
			     struct cufab_pool_range *r, size_t len);
int cufab_pool_range_release(struct cufab_pool_handle *ph, u64 addr,
			     bool import);
int cufab_pool_addr_cmd(struct cufab_ucmd *ucmd, u32 flags,
			u32 reserved, u32 pool_id, u64 addr,
			int (*release)(struct cufab_pool_handle *ph,
				       u64 addr));
bool cufab_pool_ptr_drop_locked(struct cufab_pool *pool,
				struct cufab_pool_ptr *ptr, bool import);
void cufab_pool_ptr_free(struct cufab_pool_ptr *ptr);
void cufab_pool_ptr_unuse(struct cufab_pool *pool,
			  struct cufab_pool_ptr *ptr, bool import);

#endif /* _CUFAB_POOL_H */
