/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Managed memory (cuMemAllocManaged): an allocation kind made and freed by
 * MEM_ALLOC/MEM_FREE like cuMemAlloc's, with its stream association and
 * its cuMemAdvise/cuMemPrefetchAsync state hung off the allocation.
 */
#ifndef _CUFAB_MANAGED_H
#define _CUFAB_MANAGED_H

#include <linux/types.h>

struct cufab_alloc;
struct cufab_ucmd;

/*
 * Turn a fresh allocation nobody else sees yet into managed memory with
 * default association @attach (CUFAB_ATTACH_GLOBAL or _HOST).
 * Return: 0 or -ENOMEM.
 */
int cufab_managed_init(struct cufab_alloc *alloc, u32 attach);
bool cufab_alloc_is_managed(const struct cufab_alloc *alloc);
/* CUFAB_ATTACH_* the allocation is associated with now. */
u32 cufab_managed_attach(struct cufab_alloc *alloc);

int cufab_ioctl_mem_advise(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_prefetch(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_range_attrs(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_MANAGED_H */
