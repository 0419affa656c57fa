/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Legacy allocations (cuMemAlloc, cuMemAllocHost), synchronous copies and
 * sets, pointer classification and cuMemGetInfo.
 */
#ifndef _CUFAB_MEMOPS_H
#define _CUFAB_MEMOPS_H

#include <linux/types.h>

struct cufab_client;
struct cufab_ucmd;

void cufab_mem_free_ctx(struct cufab_client *client, u32 ctx_id);

/* Also run by stream operations, in a kernel thread using the mm. */
int cufab_copy_user(u64 dst, u64 src, u64 length);
int cufab_set_user(u64 dst, u64 length, u32 value, u32 elem);

int cufab_ioctl_mem_alloc(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_free(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_copy(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_set(struct cufab_ucmd *ucmd);
int cufab_ioctl_pointer_info(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_get_info(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_MEMOPS_H */
