/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Physical allocations (cuMemCreate, and the backing of cuMemAlloc).
 *
 * A struct cufab_alloc is node-wide and reference counted: client handle
 * objects, CPU mappings, exports/imports (and later bindings) each hold one
 * reference; the pages and the GPU capacity charge go with the last one.
 * Pages are allocated zeroed on first touch, so no process ever sees what
 * a page held before.
 */
#ifndef _CUFAB_ALLOC_H
#define _CUFAB_ALLOC_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "object.h"

struct cufab_client;
struct cufab_mc;
struct cufab_ucmd;
struct page;
struct seq_file;

/*
 * Defaults of the granularity module parameters; each GPU has its own
 * values (cufab_gpu_mem_gran(), cufab_gpu_mc_gran() in device.h).
 */
#define CUFAB_MEM_GRANULARITY_DEFAULT	(2ULL << 20)
#define CUFAB_MC_GRANULARITY		(2ULL << 20)
#define CUFAB_MC_GRANULARITY_REC	(512ULL << 20)

/* alloc_flags bits the kernel accepts at MEM_CREATE */
#define CUFAB_ALLOC_F_VALID	(CUFAB_ALLOC_F_GPU_DIRECT_RDMA | \
				 CUFAB_ALLOC_F_COMPRESSIBLE)
#define CUFAB_HANDLE_VALID	(CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC)

struct cufab_alloc;

/**
 * struct cufab_alloc_ext_ops - hook for state other files hang off an alloc
 * @release: called once from the final put, before the pages are freed,
 *	to free @ext (e.g. the export state of export.c)
 * @page_nid: optional; the NUMA node a page about to be populated goes to,
 *	NUMA_NO_NODE for the allocation's own (managed memory's advice)
 */
struct cufab_alloc_ext_ops {
	void (*release)(struct cufab_alloc *alloc);
	int (*page_nid)(struct cufab_alloc *alloc, pgoff_t index);
};

/* struct cufab_alloc.kind */
enum cufab_alloc_kind {
	CUFAB_ALLOC_KIND_MEM,	/* pages: cuMemCreate, cuMemAlloc */
	CUFAB_ALLOC_KIND_MC,	/* a multicast object (mc.c): no pages */
};

/**
 * struct cufab_alloc - one physical allocation
 * @ref: handles, mappings, exports, imports, bindings
 * @id: node-wide id, never reused while the module is loaded
 *	(CU_POINTER_ATTRIBUTE_BUFFER_ID)
 * @length: bytes, a multiple of PAGE_SIZE (and of the granularity for
 *	cuMemCreate allocations)
 * @location_type: enum cufab_mem_location (DEVICE, HOST or HOST_NUMA)
 * @location_id: GPU index (DEVICE), NUMA node (HOST_NUMA), -1 (HOST)
 * @gpu: GPU index charged with @length, -1 when none (HOST, HOST_NUMA)
 * @nid: NUMA node the pages are placed on, NUMA_NO_NODE for any
 * @handle_types: CUFAB_HANDLE_* bits requested at create (only these may be
 *	exported)
 * @alloc_flags: CUFAB_ALLOC_F_* given at create
 * @legacy: made by MEM_ALLOC (cuMemAlloc/cuMemAllocHost)
 * @kind: enum cufab_alloc_kind; a multicast object is a
 *	CUmemGenericAllocationHandle too, but has no pages of its own
 * @mc: the multicast object (KIND_MC), freed with the allocation
 * @owner_pid: tgid of the creating process, for debugfs
 * @owner_comm: its name
 * @pages: struct page * by page index, filled on first touch
 * @node: entry in the global allocation list (debugfs "mem")
 * @ext_ops: optional hook, see struct cufab_alloc_ext_ops
 * @ext: private to whoever set @ext_ops
 */
struct cufab_alloc {
	struct kref ref;
	u64 id;
	u64 length;
	u32 location_type;
	s32 location_id;
	s32 gpu;
	int nid;
	u32 handle_types;
	u32 alloc_flags;
	bool legacy;
	u8 kind;
	struct cufab_mc *mc;
	pid_t owner_pid;
	char owner_comm[TASK_COMM_LEN];
	struct xarray pages;
	struct list_head node;
	const struct cufab_alloc_ext_ops *ext_ops;
	void *ext;
};

/**
 * struct cufab_mem_handle - CUFAB_OBJ_MEM_HANDLE, a client's
 *	CUmemGenericAllocationHandle
 * @obj: object header
 * @alloc: one reference, dropped when the handle is released
 * @retains: MEM_RETAIN calls returning this handle plus its creation; the
 *	MEM_RELEASE that brings it to zero destroys the object
 */
struct cufab_mem_handle {
	struct cufab_object obj;
	struct cufab_alloc *alloc;
	atomic_t retains;
};

extern const struct cufab_object_ops cufab_mem_handle_ops;

/**
 * struct cufab_alloc_desc - what to create
 * @location_type: DEVICE, HOST (legacy host memory) or HOST_NUMA
 * @location_id: GPU index or NUMA node
 * @handle_types: CUFAB_HANDLE_* bits
 * @alloc_flags: CUFAB_ALLOC_F_* bits
 * @length: bytes, already validated by the caller (multiple of PAGE_SIZE)
 * @legacy: MEM_ALLOC
 */
struct cufab_alloc_desc {
	u32 location_type;
	s32 location_id;
	u32 handle_types;
	u32 alloc_flags;
	u64 length;
	bool legacy;
};

/* Lifetime. Holding a reference keeps pages and capacity charge alive. */
struct cufab_alloc *cufab_alloc_create(const struct cufab_alloc_desc *desc);
void cufab_alloc_get(struct cufab_alloc *alloc);
void cufab_alloc_put(struct cufab_alloc *alloc);
/*
 * A multicast allocation of @length bytes owning @mc (mc.c frees it from
 * the final put with cufab_mc_free()). No pages, no capacity charge.
 */
struct cufab_alloc *cufab_alloc_create_mc(u64 length, u32 handle_types,
					  struct cufab_mc *mc);

static inline bool cufab_alloc_is_mc(const struct cufab_alloc *alloc)
{
	return alloc->kind == CUFAB_ALLOC_KIND_MC;
}

/*
 * The page at @index (0 .. length / PAGE_SIZE - 1), allocated zeroed on the
 * allocation's node on first use. No reference is taken on the page: it
 * lives as long as the allocation. ERR_PTR(-ENOMEM) / -EINVAL (also for
 * a multicast object, which has no pages).
 */
struct page *cufab_alloc_page(struct cufab_alloc *alloc, pgoff_t index);
/* Allocate every page now (e.g. before building a dma-buf sg table). */
int cufab_alloc_populate(struct cufab_alloc *alloc);
/*
 * Make the page at @index live on node @nid: populate it there, or move
 * its contents there. The caller guarantees that nothing maps or touches
 * the page meanwhile (managed memory: PTEs zapped, faults held off).
 * Return: 0, -ENOMEM (the page stays where it was), -EINVAL.
 */
int cufab_alloc_place_page(struct cufab_alloc *alloc, pgoff_t index, int nid);

/*
 * Client handles. cufab_mem_handle_create() publishes a new handle object
 * on @alloc (taking its own reference) and returns its id. For a two-phase
 * create (reply to userspace before publishing), use
 * cufab_mem_handle_alloc() then cufab_object_finalize(&h->obj), or
 * cufab_object_abort_and_destroy(&h->obj) on failure.
 */
int cufab_mem_handle_create(struct cufab_client *client,
			    struct cufab_alloc *alloc, u32 *out_id);
struct cufab_mem_handle *cufab_mem_handle_alloc(struct cufab_client *client,
						struct cufab_alloc *alloc);
/*
 * Two-phase create for an ioctl reply: a new handle on @alloc, its id in
 * *@out_id, the first @cmd_len bytes of @ucmd's command sent back, and the
 * handle published only if that reply reached the caller.
 * Return: 0, or -errno with no handle left behind.
 */
int cufab_mem_handle_respond(struct cufab_ucmd *ucmd,
			     struct cufab_alloc *alloc, u32 *out_id,
			     size_t cmd_len);
/*
 * cufab_mem_handle_respond(), then drop the caller's reference on @alloc:
 * for an allocation held only to be handed out, which the new handle (if
 * any) now holds.
 */
int cufab_mem_handle_respond_put(struct cufab_ucmd *ucmd,
				 struct cufab_alloc *alloc, u32 *out_id,
				 size_t cmd_len);
/*
 * One more retain of handle @id of @client if it names @alloc and is not
 * being released: true, else false (the caller makes a new handle).
 */
bool cufab_mem_handle_retain(struct cufab_client *client, u32 id,
			     struct cufab_alloc *alloc);
/* Drop one retain of handle @id, destroying it at zero; -ENOENT. */
int cufab_mem_handle_release(struct cufab_client *client, u32 id);
/* The allocation a handle id names, with a reference; ERR_PTR(-ENOENT). */
struct cufab_alloc *cufab_mem_handle_lookup(struct cufab_client *client,
					    u32 handle);

/*
 * Module-wide default cuMemCreate granularity (bytes): cuMemAddressReserve's
 * default alignment. cuMemCreate and cuMemMap use the location's
 * (cufab_loc_mem_gran()).
 */
u64 cufab_mem_granularity(void);
u64 cufab_mem_granularity_rec(void);

/* Node-wide accounting helpers (KUnit tests them directly). */
int cufab_gpu_charge(atomic64_t *used, u64 total, u64 bytes);
void cufab_gpu_uncharge(atomic64_t *used, u64 bytes);
u64 cufab_allocs_live(void);
void cufab_allocs_show(struct seq_file *m);
int cufab_allocs_for_each(u64 from_id,
			  int (*fn)(struct cufab_alloc *alloc, void *arg),
			  void *arg);
u64 cufab_alloc_resident(struct cufab_alloc *alloc);

/* ioctls (alloc.c) */
int cufab_ioctl_mem_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_release(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_get_props(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_ALLOC_H */
