// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Peer context memory access: cuCtxEnablePeerAccess and
 * cuCtxDisablePeerAccess.
 *
 * The kernel owns the links (CUFAB_IOCTL_PEER_ENABLE/DISABLE, one per
 * pair of contexts, from the current context to the peer) and every rule
 * on them; the library resolves the two handles to kernel context ids and
 * translates the errors (Documentation/uapi.rst):
 *
 *   ENOENT         CUDA_ERROR_INVALID_CONTEXT (not a live context of this
 *                  process)
 *   ELOOP          the current context itself: for cuCtxEnablePeerAccess
 *                  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, what NVIDIA's 13.0
 *                  driver returns (its documentation says INVALID_CONTEXT;
 *                  Documentation/differences.rst), for
 *                  cuCtxDisablePeerAccess CUDA_ERROR_INVALID_CONTEXT
 *   EOPNOTSUPP     CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (cuDeviceCanAccessPeer
 *                  is 0, which includes a context on the same device)
 *   EEXIST         CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
 *   ENOLINK        CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
 *   EBUSY          CUDA_ERROR_TOO_MANY_PEERS (max_peers)
 *   EINVAL         CUDA_ERROR_INVALID_VALUE (Flags not 0)
 */
#include <errno.h>

#include "internal.h"

static CUresult peer_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_PEER, err);
}

/*
 * Both kernel ids of a call. A peer handle that is NULL, garbage or
 * destroyed is CUDA_ERROR_INVALID_CONTEXT: the documentation has no
 * CONTEXT_IS_DESTROYED for it.
 */
static CUresult peer_ids(CUcontext peerContext, struct cufab_peer *arg)
{
	struct cufab_call c;
	CUresult res = cufab_call_ctx(&c, 1);

	if (res != CUDA_SUCCESS)
		return res;
	arg->ctx_id = c.ctx_kid;
	arg->peer_ctx_id = cufab_ctx_kid(peerContext);
	if (arg->peer_ctx_id)
		return CUDA_SUCCESS;
	cufab_dbg("refused: peer context %p: not a live context of this process (NULL, destroyed or never created)",
		  (void *)peerContext);
	return CUDA_ERROR_INVALID_CONTEXT;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext,
						    unsigned int Flags)
{
	struct cufab_peer arg = { .size = sizeof(arg), .flags = Flags };
	CUresult res;
	int ret;

	res = peer_ids(peerContext, &arg);
	if (res != CUDA_SUCCESS)
		return res;
	ret = cufab_ioctl(CUFAB_IOCTL_PEER_ENABLE, &arg);
	if (ret == -ELOOP)
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	return peer_result(-ret);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
	struct cufab_peer arg = { .size = sizeof(arg) };
	CUresult res;

	res = peer_ids(peerContext, &arg);
	if (res != CUDA_SUCCESS)
		return res;
	return peer_result(-cufab_ioctl(CUFAB_IOCTL_PEER_DISABLE, &arg));
}
