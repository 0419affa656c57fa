/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Contexts: the kernel half of a CUcontext. The library keeps the thread's
 * context stack; the kernel owns the object so that state hanging off a
 * context (peer access, later) dies with it or with the process.
 */
#ifndef _CUFAB_CONTEXT_H
#define _CUFAB_CONTEXT_H

#include <linux/build_bug.h>
#include <linux/stddef.h>

#include "object.h"

struct cufab_ucmd;

/**
 * struct cufab_ctx - a context
 * @obj: object header (type CUFAB_OBJ_CTX)
 * @dev: kernel index of the GPU; valid for the context's lifetime because
 *	the topology cannot change while its client is open
 * @flags: CUctx_flags given at creation
 */
struct cufab_ctx {
	struct cufab_object obj;
	u32 dev;
	u32 flags;
};

static_assert(offsetof(struct cufab_ctx, obj) == 0);

extern const struct cufab_object_ops cufab_ctx_ops;

bool cufab_ctx_flags_valid(u32 flags);
int cufab_ioctl_ctx_create(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_CONTEXT_H */
