/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /dev/cufab ioctl dispatcher and what a handler receives.
 */
#ifndef _CUFAB_IOCTL_H
#define _CUFAB_IOCTL_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct cufab_client;
struct file;

/**
 * struct cufab_ucmd - one ioctl call as seen by its handler
 * @client: the calling client (already checked to be the owner)
 * @ubuffer: the user's struct
 * @user_size: its size as the user declared it
 * @cmd: kernel copy of the struct, zero-extended to the kernel's size
 */
struct cufab_ucmd {
	struct cufab_client *client;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
};

int cufab_ucmd_respond(struct cufab_ucmd *ucmd, size_t cmd_len);
long cufab_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _CUFAB_IOCTL_H */
