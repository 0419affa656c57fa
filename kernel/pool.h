/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pools of the stream-ordered allocator (cuMemPool*).
 *
 * A struct cufab_pool is node-wide and reference counted: the creating
 * client's pool object, each importer's pool object, each exported fd and
 * each chunk hold one reference. Chunks are allocations (alloc.c) the
 * owner maps into its address space; the library sub-allocates inside
 * them, so the kernel sees only whole chunks come and go.
 */
#ifndef _CUFAB_POOL_H
#define _CUFAB_POOL_H

#include <linux/types.h>

struct cufab_object_ops;
struct cufab_ucmd;
struct seq_file;

extern const struct cufab_object_ops cufab_pool_handle_ops;

u64 cufab_pools_live(void);
void cufab_pools_show(struct seq_file *m);
void cufab_pools_exit(void);

int cufab_ioctl_pool_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_attr(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_grow(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_shrink(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_set_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_get_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_import(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_ptr_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_ptr_import(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_ptr_release(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_POOL_H */
