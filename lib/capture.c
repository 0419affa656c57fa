// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Stream capture state: cuStreamIsCapturing and cuStreamGetCaptureInfo
 * (the CUDA 10.1, 11.3 and 12.3 forms), with their _ptsz entry points.
 *
 * Communication libraries ask on every operation whether the stream is
 * being captured into a graph, and treat the calls as required. cufab has
 * no cuStreamBeginCapture: no stream of it can be capturing, so for every
 * valid stream the status is CU_STREAM_CAPTURE_STATUS_NONE and, as the
 * driver documents for a stream that is not capturing, nothing else is
 * written. The stream handle and the arguments are checked as the driver
 * checks them. The day capture exists, these calls read its state.
 */
#include "compat.h"
#include "stream.h"

static CUresult capture_status(CUstream h, int pt, CUstreamCaptureStatus *status,
			       const CUgraphNode **deps,
			       const CUgraphEdgeData **edges)
{
	struct cufab_lstream *s;
	CUresult res;

	/* edge data parallels the dependencies: not one without the other */
	res = cufab_call_args(status && (!edges || deps));
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	*status = CU_STREAM_CAPTURE_STATUS_NONE;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
						  CUstreamCaptureStatus *captureStatus)
{
	return capture_status(hStream, 0, captureStatus, NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream,
						       CUstreamCaptureStatus *captureStatus)
{
	return capture_status(hStream, 1, captureStatus, NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream,
						     CUstreamCaptureStatus *status,
						     cuuint64_t *id)
{
	return capture_status(hStream, 0, status, NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
							  CUstreamCaptureStatus *status,
							  cuuint64_t *id)
{
	return capture_status(hStream, 1, status, NULL, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
							CUstreamCaptureStatus *status,
							cuuint64_t *id,
							CUgraph *graph,
							const CUgraphNode **deps,
							size_t *n)
{
	return capture_status(hStream, 0, status, deps,
			      NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
							     CUstreamCaptureStatus *status,
							     cuuint64_t *id,
							     CUgraph *graph,
							     const CUgraphNode **deps,
							     size_t *n)
{
	return capture_status(hStream, 1, status, deps,
			      NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream,
							CUstreamCaptureStatus *status,
							cuuint64_t *id,
							CUgraph *graph,
							const CUgraphNode **deps,
							const CUgraphEdgeData **edges,
							size_t *n)
{
	return capture_status(hStream, 0, status, deps,
			      edges);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
							     CUstreamCaptureStatus *status,
							     cuuint64_t *id,
							     CUgraph *graph,
							     const CUgraphNode **deps,
							     const CUgraphEdgeData **edges,
							     size_t *n)
{
	return capture_status(hStream, 1, status, deps,
			      edges);
}
