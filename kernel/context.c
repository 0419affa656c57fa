// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts (CUFAB_IOCTL_CTX_CREATE; destroyed with CUFAB_IOCTL_DESTROY).
 */
#include <linux/err.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "trace.h"

/*
 * Destroying a context drops its peer access links, from it and to it,
 * and frees its linear allocations (cuCtxDestroy,
 * cuDevicePrimaryCtxReset and the last cuDevicePrimaryCtxRelease all end
 * in CUFAB_IOCTL_DESTROY of the context).
 */
static void cufab_ctx_destroy(struct cufab_object *obj)
{
	struct cufab_ctx *ctx = container_of(obj, struct cufab_ctx, obj);

	trace_cufab_ctx_destroy(obj->id, ctx->dev);
	cufab_streams_ctx_destroy(obj->client, obj->id);
	cufab_peer_ctx_destroy(obj->client, obj->id);
	cufab_mem_free_ctx(ctx);
}

const struct cufab_object_ops cufab_ctx_ops = {
	.name = "context",
	.slab = "cufab_ctx",
	.size = sizeof(struct cufab_ctx),
	.destroy = cufab_ctx_destroy,
};

/**
 * cufab_ctx_flags_valid() - are these CUctx_flags acceptable?
 * @flags: as given to cuCtxCreate
 *
 * cufab_ctx_flags_ok() of the uAPI header, which the library applies too.
 *
 * Return: true when valid.
 */
bool cufab_ctx_flags_valid(u32 flags)
{
	return cufab_ctx_flags_ok(flags);
}

int cufab_ioctl_ctx_create(struct cufab_ucmd *ucmd)
{
	struct cufab_ctx_create *cmd = ucmd->cmd;
	struct cufab_ctx *ctx;
	int ret;

	if (!cufab_ctx_flags_valid(cmd->flags))
		return -EINVAL;
	if (!cufab_node_gpu_exists(cmd->dev))
		return -ENODEV;
	if (cufab_should_fail(CUFAB_FAULT_CTX_CREATE))
		return -ENOMEM;

	ctx = cufab_object_alloc(ucmd->client, ctx, CUFAB_OBJ_CTX);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ctx->dev = cmd->dev;
	ctx->flags = cmd->flags;
	/* before the reply: a failed reply destroys it, a matching pair */
	trace_cufab_ctx_create(ctx->obj.id, ctx->dev);

	/* reply before publishing, so a failed copy leaves no orphan */
	cmd->out_ctx_id = ctx->obj.id;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		cufab_object_abort_and_destroy(&ctx->obj);
		return ret;
	}
	cufab_object_finalize(&ctx->obj);
	return 0;
}
