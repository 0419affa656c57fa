// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Copies and memsets: cudaMemcpy(Async) of every kind, the 2D forms, the
 * peer forms, cudaMemset(Async) and cudaMemset2D(Async). Compiled twice:
 * the plain entry points use the legacy default stream, the _ptds/_ptsz
 * ones the per-thread default stream (internal.h).
 *
 * With unified addressing every kind names what the pointers already say;
 * cudaMemcpyDefault lets the driver tell, the others take the driver's
 * directed copy. A kind outside cudaMemcpyKind is
 * cudaErrorInvalidMemcpyDirection.
 */
#include "internal.h"

static CUresult rt_copy(void *dst, const void *src, size_t count,
			enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return cuMemcpyHtoD(rt_dptr(dst), src, count);
	case cudaMemcpyDeviceToHost:
		return cuMemcpyDtoH(dst, rt_dptr(src), count);
	case cudaMemcpyDeviceToDevice:
		return cuMemcpyDtoD(rt_dptr(dst), rt_dptr(src), count);
	case cudaMemcpyHostToHost:
	case cudaMemcpyDefault:
		return cuMemcpy(rt_dptr(dst), rt_dptr(src), count);
	default:
		return (CUresult)cudaErrorInvalidMemcpyDirection;
	}
}

static CUresult rt_copy_async(void *dst, const void *src, size_t count,
			      enum cudaMemcpyKind kind, cudaStream_t stream)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return cuMemcpyHtoDAsync(rt_dptr(dst), src, count, stream);
	case cudaMemcpyDeviceToHost:
		return cuMemcpyDtoHAsync(dst, rt_dptr(src), count, stream);
	case cudaMemcpyDeviceToDevice:
		return cuMemcpyDtoDAsync(rt_dptr(dst), rt_dptr(src), count,
					 stream);
	case cudaMemcpyHostToHost:
	case cudaMemcpyDefault:
		return cuMemcpyAsync(rt_dptr(dst), rt_dptr(src), count, stream);
	default:
		return (CUresult)cudaErrorInvalidMemcpyDirection;
	}
}

RT_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
				 enum cudaMemcpyKind kind)
{
	return RT_CALL(rt_copy(dst, src, count, kind));
}

RT_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src,
				      size_t count, enum cudaMemcpyKind kind,
				      cudaStream_t stream)
{
	return RT_CALL(rt_copy_async(dst, src, count, kind, stream));
}

/* The pitch rules of the 2D calls: no row wider than its pitch. */
static CUresult rt_2d_check(size_t dpitch, size_t spitch, size_t width,
			    enum cudaMemcpyKind kind)
{
	if ((unsigned int)kind > cudaMemcpyDefault)
		return (CUresult)cudaErrorInvalidMemcpyDirection;
	if (width > dpitch || width > spitch) {
		rt_log("2D copy: width %zu exceeds the pitch (dst %zu, src %zu)",
		       width, dpitch, spitch);
		return (CUresult)cudaErrorInvalidPitchValue;
	}
	return CUDA_SUCCESS;
}

/*
 * libcufab has no cuMemcpy2D: contiguous rows are one copy, pitched rows
 * one copy each, all in order on @stream (or synchronously).
 */
static CUresult rt_copy_2d(void *dst, size_t dpitch, const void *src,
			   size_t spitch, size_t width, size_t height,
			   enum cudaMemcpyKind kind, cudaStream_t stream,
			   int async)
{
	CUresult res = rt_2d_check(dpitch, spitch, width, kind);
	size_t row;

	if (res != CUDA_SUCCESS || !width || !height)
		return res;
	if (dpitch == width && spitch == width) {
		width *= height;
		height = 1;
	}
	for (row = 0; row < height && res == CUDA_SUCCESS; row++) {
		void *d = (char *)dst + row * dpitch;
		const void *s = (const char *)src + row * spitch;

		res = async ? rt_copy_async(d, s, width, kind, stream) :
			      rt_copy(d, s, width, kind);
	}
	return res;
}

RT_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
				   size_t spitch, size_t width, size_t height,
				   enum cudaMemcpyKind kind)
{
	return RT_CALL(rt_copy_2d(dst, dpitch, src, spitch, width, height, kind,
				  NULL, 0));
}

RT_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch,
					const void *src, size_t spitch,
					size_t width, size_t height,
					enum cudaMemcpyKind kind,
					cudaStream_t stream)
{
	return RT_CALL(rt_copy_2d(dst, dpitch, src, spitch, width, height, kind,
				  stream, 1));
}

RT_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return RT_CALL(cuMemsetD8(rt_dptr(devPtr), (unsigned char)value, count));
}

RT_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
				      cudaStream_t stream)
{
	return RT_CALL(cuMemsetD8Async(rt_dptr(devPtr), (unsigned char)value, count,
				       stream));
}

static CUresult rt_memset_2d(void *devPtr, size_t pitch, int value,
			     size_t width, size_t height, cudaStream_t stream)
{
	if (width > pitch && height > 1) {
		rt_log("cudaMemset2D: width %zu exceeds the pitch %zu",
		       width, pitch);
		return (CUresult)cudaErrorInvalidPitchValue;
	}
	return cuMemsetD2D8Async(rt_dptr(devPtr), pitch, (unsigned char)value,
				 width, height, stream);
}

/*
 * The synchronous form: the default stream's memset, waited for, so that
 * host and managed memory read the bytes on return as with cudaMemset.
 */
RT_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value,
				   size_t width, size_t height)
{
	return RT_CALL(rt_memset_2d(devPtr, pitch, value, width, height, NULL) ?:
		       cuStreamSynchronize(NULL));
}

RT_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value,
					size_t width, size_t height,
					cudaStream_t stream)
{
	return RT_CALL(rt_memset_2d(devPtr, pitch, value, width, height, stream));
}

#ifdef RT_ONCE
/*
 * The peer copies have no per-thread twins: NULL is the legacy stream.
 * Each device is named by its primary context, which the runtime keeps.
 */
static CUresult rt_peer_contexts(int dst, CUcontext *dctx, int src,
				 CUcontext *sctx)
{
	CUresult res = rt_init();

	if (res == CUDA_SUCCESS)
		res = rt_primary(dst, dctx, NULL);
	if (res == CUDA_SUCCESS)
		res = rt_primary(src, sctx, NULL);
	return res;
}

RT_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src,
				     int srcDevice, size_t count)
{
	CUcontext dctx, sctx;
	CUresult res = rt_peer_contexts(dstDevice, &dctx, srcDevice, &sctx);

	if (res == CUDA_SUCCESS)
		res = cuMemcpyPeer(rt_dptr(dst), dctx, rt_dptr(src), sctx, count);
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice,
					  const void *src, int srcDevice,
					  size_t count, cudaStream_t stream)
{
	CUcontext dctx, sctx;
	CUresult res = rt_peer_contexts(dstDevice, &dctx, srcDevice, &sctx);

	if (res == CUDA_SUCCESS)
		res = cuMemcpyPeerAsync(rt_dptr(dst), dctx, rt_dptr(src), sctx,
					count, stream);
	return rt_result(res);
}
#endif
