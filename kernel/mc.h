/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast objects (cuMulticast*). A multicast object is a
 * CUmemGenericAllocationHandle in CUDA: released with cuMemRelease,
 * exported and imported like memory, mapped with cuMemMap. So it is a
 * struct cufab_alloc of kind CUFAB_ALLOC_KIND_MC, without pages, whose
 * node-wide struct cufab_mc (the team of devices and their bindings) goes
 * with the allocation's last reference.
 *
 * References on the allocation: handles, imports, dma-bufs, mappings, and
 * one held for as long as the team has any binding, so a released object
 * stays alive until its last unbind (or its binders' death).
 */
#ifndef _CUFAB_MC_H
#define _CUFAB_MC_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct cufab_alloc;
struct cufab_client;
struct cufab_team;
struct cufab_ucmd;

/**
 * struct cufab_mc - node-wide state of one multicast object
 * @alloc: the allocation it belongs to (no reference: it owns us)
 * @team: devices and their bindings
 * @node: on the global list (netlink dump, process death)
 * @hold_lock: serializes @held against the binding count
 * @held: a reference on @alloc is held because something is bound
 * @skipped: replicas multimem operations skipped (nothing bound there)
 */
struct cufab_mc {
	struct cufab_alloc *alloc;
	struct cufab_team *team;
	struct list_head node;
	struct mutex hold_lock;		/* see above */
	bool held;
	atomic64_t skipped;
};

/* Module parameter mc_team_timeout_ms: how long binds and maps wait. */
unsigned int cufab_mc_team_timeout_ms(void);

/* From the allocation's final put. */
void cufab_mc_free(struct cufab_mc *mc);

/* The client is going: unbind everything it bound, on every object. */
void cufab_mc_client_gone(struct cufab_client *client);

/*
 * MEM_MAP of a multicast handle: offset 0, addr/length multiples of the
 * multicast granularity and within the object, then wait (no lock held)
 * for the team to complete. 0, -EINVAL, -ERESTARTSYS, -ETIMEDOUT.
 */
int cufab_mc_map_prepare(struct cufab_alloc *alloc, u64 addr, u64 length,
			 u64 offset);

/* Count skipped replicas and announce them (multimem.c). */
void cufab_mc_skipped(struct cufab_mc *mc, u32 skipped);

/*
 * Walk the live objects with a reference each, oldest first: @fn runs
 * without any lock of ours; a nonzero return stops the walk.
 */
int cufab_mc_for_each(u64 from_id, int (*fn)(struct cufab_mc *mc, void *arg),
		      void *arg);

/* mc_netlink.c */
void cufab_mc_nl_event(struct cufab_mc *mc, u32 skipped);

/* ioctls */
int cufab_ioctl_mc_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_mc_add_device(struct cufab_ucmd *ucmd);
int cufab_ioctl_mc_bind(struct cufab_ucmd *ucmd);
int cufab_ioctl_mc_unbind(struct cufab_ucmd *ucmd);
int cufab_ioctl_multimem(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_MC_H */
