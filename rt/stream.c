// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Streams: creation with flags and priority, queries, synchronisation,
 * waits on events, host functions and callbacks. Compiled twice: the
 * _ptsz entry points take NULL as the per-thread default stream
 * (internal.h). cudaStreamLegacy and cudaStreamPerThread are the driver's
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD and pass through; so do the
 * flags (cudaStreamNonBlocking is CU_STREAM_NON_BLOCKING).
 */
#include "internal.h"

#ifdef RT_ONCE
RT_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
						   unsigned int flags,
						   int priority)
{
	return RT_CALL(cuStreamCreateWithPriority(pStream, flags, priority));
}

RT_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
						unsigned int flags)
{
	return RT_CALL(cuStreamCreate(pStream, flags));
}

RT_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return RT_CALL(cuStreamCreate(pStream, CU_STREAM_DEFAULT));
}

RT_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	return RT_CALL(cuStreamDestroy(stream));
}

RT_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
						       int *greatestPriority)
{
	return RT_CALL(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
}
#endif

RT_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	return RT_CALL(cuStreamSynchronize(stream));
}

RT_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	CUresult res = rt_init();

	if (res == CUDA_SUCCESS)
		res = cuStreamQuery(stream);
	/* cudaErrorNotReady is an answer, not an error: the slot keeps it */
	return res == CUDA_ERROR_NOT_READY ? cudaErrorNotReady : rt_result(res);
}

RT_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream,
					 unsigned int *flags)
{
	return RT_CALL(cuStreamGetFlags(hStream, flags));
}

RT_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream,
					    int *priority)
{
	return RT_CALL(cuStreamGetPriority(hStream, priority));
}

RT_EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream,
				      unsigned long long *streamId)
{
	return RT_CALL(cuStreamGetId(hStream, streamId));
}

RT_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
	return RT_CALL(cuStreamGetDevice(hStream, device));
}

RT_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream,
					  cudaEvent_t event,
					  unsigned int flags)
{
	return RT_CALL(cuStreamWaitEvent(stream, event, flags));
}

/*
 * cudaStreamCallback_t and CUstreamCallback differ only in the enum of the
 * status argument, and cudaError_t and CUresult share their numbers.
 */
RT_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream,
					    cudaStreamCallback_t callback,
					    void *userData, unsigned int flags)
{
	return RT_CALL(cuStreamAddCallback(stream, (CUstreamCallback)callback,
					   userData, flags));
}

RT_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
					 void *userData)
{
	return RT_CALL(cuLaunchHostFunc(stream, fn, userData));
}
