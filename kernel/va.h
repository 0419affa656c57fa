/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual address reservations (cuMemAddressReserve) and the mappings of
 * allocations into them (cuMemMap), with their CPU view: each reservation
 * is one VMA of /dev/cufab created by the kernel inside the ioctl.
 */
#ifndef _CUFAB_VA_H
#define _CUFAB_VA_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>

struct cufab_alloc;
struct cufab_client;
struct cufab_ucmd;
struct file;
struct task_struct;
struct vm_area_struct;

/* CUmemAccess_flags */
#define CUFAB_ACCESS_NONE	0
#define CUFAB_ACCESS_READ	1
#define CUFAB_ACCESS_RW		3

/**
 * struct cufab_va_space - a client's reservations
 * @lock: protects @ranges and the mmap handshake fields
 * @reserve_lock: serializes VA_RESERVE/VA_FREE of the client, held across
 *	vm_mmap()/vm_munmap()
 * @ranges: struct cufab_va by address range
 * @pending: the reservation VA_RESERVE is mapping right now
 * @pending_task: the task doing it; only its mmap of /dev/cufab succeeds
 */
struct cufab_va_space {
	struct mutex lock;		/* see above */
	struct mutex reserve_lock;	/* see above */
	struct maple_tree ranges;
	struct cufab_va *pending;
	struct task_struct *pending_task;
};

/**
 * struct cufab_va - one reservation and its VMA
 * @ref: the client's range tree, each VMA, each ioctl using it
 * @client: owner; valid while a VMA exists (the VMA holds the file)
 * @start: first address
 * @length: bytes
 * @legacy: made by MEM_ALLOC; freed only by MEM_FREE
 * @legacy_dev: MEM_ALLOC's device (pointer info of host memory)
 * @legacy_ctx: MEM_ALLOC's context id, 0 for none; the context's destroy
 *	frees the reservation (memops.c). Written once, under the space's
 *	lock, while that context cannot be destroyed.
 * @vmas: VMAs referring to this reservation (1 except during mremap)
 * @lock: protects @maps, the mappings' access and @dead; taken by the
 *	fault handler under mmap_lock
 * @dead: the VMA is gone; nothing may be mapped any more
 * @maps: struct cufab_va_map by address range
 */
struct cufab_va {
	struct kref ref;
	struct cufab_client *client;
	u64 start;
	u64 length;
	bool legacy;
	s32 legacy_dev;
	u32 legacy_ctx;
	atomic_t vmas;
	struct rw_semaphore lock;
	bool dead;
	struct maple_tree maps;
};

/**
 * struct cufab_va_map - part of a reservation backed by an allocation
 * @start: first address
 * @length: bytes
 * @offset: into @alloc
 * @alloc: one reference
 * @host: CUFAB_ACCESS_* for the host
 * @gpu_read: GPUs that may read
 * @gpu_write: GPUs that may write (a subset of @gpu_read)
 * @free_node: on a local list while being freed after unmap
 */
struct cufab_va_map {
	u64 start;
	u64 length;
	u64 offset;
	struct cufab_alloc *alloc;
	u32 handle;	/* id of the handle object MEM_MAP was given, 0: none */
	u32 host;
	u64 gpu_read;
	u64 gpu_write;
	struct list_head free_node;
};

void cufab_va_space_init(struct cufab_va_space *space);
void cufab_va_space_destroy(struct cufab_va_space *space);

int cufab_fops_mmap(struct file *filp, struct vm_area_struct *vma);

/* Pure range checks, shared with memops.c and tested by KUnit. */
bool cufab_range_ok(u64 start, u64 length);
bool cufab_range_inside(u64 start, u64 length, u64 outer, u64 outer_len);
int cufab_map_args_check(u64 addr, u64 length, u64 offset, u64 alloc_len,
			 u64 granularity);
u32 cufab_map_cpu_access(const struct cufab_va_map *map);
u32 cufab_map_dev_access(const struct cufab_va_map *map, u32 dev);

/* In-kernel building blocks (MEM_ALLOC uses them). */
int cufab_va_reserve(struct cufab_client *client, u64 hint, u64 length,
		     u64 alignment, bool legacy, s32 legacy_dev, u64 *out);
int cufab_va_map_alloc(struct cufab_client *client, u64 addr, u64 length,
		       u64 offset, struct cufab_alloc *alloc, u32 handle);
int cufab_va_set_access_all(struct cufab_client *client, u64 addr,
			    u64 length, u32 host, u64 gpu_read, u64 gpu_write);
int cufab_va_unmap_munmap(struct cufab_client *client, u64 addr, u64 length,
			  bool legacy);
struct cufab_va *cufab_va_find(struct cufab_client *client, u64 addr);
int cufab_va_locked(struct cufab_client *client, u64 addr, u64 length,
		    int (*fn)(struct cufab_va *va, struct vm_area_struct *vma,
			      u64 addr, u64 length, void *arg),
		    void *arg);
void cufab_va_put(struct cufab_va *va);

/*
 * Access check of a device (or the CPU when @dev < 0) over a user range:
 * 0 when every byte inside a cufab reservation is mapped and grants @need
 * (CUFAB_ACCESS_READ or _RW), -EACCES/-EFAULT otherwise. Bytes outside
 * reservations are plain host memory and always allowed.
 */
int cufab_va_check_access(struct cufab_client *client, u64 addr, u64 length,
			  s32 dev, u32 need);

/*
 * The allocation mapped at [addr, addr + length), which must lie inside
 * one cuMemMap'ed mapping of @client (not cuMemAlloc memory): 0 with a new
 * reference in *@alloc and the offset of @addr in it in *@mem_offset, or
 * -EINVAL with a log line.
 */
int cufab_va_resolve(struct cufab_client *client, u64 addr, u64 length,
		     struct cufab_alloc **alloc, u64 *mem_offset);

/* ioctls (va.c) */
int cufab_ioctl_va_reserve(struct cufab_ucmd *ucmd);
int cufab_ioctl_va_free(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_map(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_unmap(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_set_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_get_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_retain(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_VA_H */
