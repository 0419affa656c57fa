// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Events: creation (cudaEvent* flags are the driver's CU_EVENT_* flags),
 * record, query, synchronise, elapsed time and IPC events. cudaEventRecord
 * and cudaEventRecordWithFlags are compiled twice (internal.h).
 */
#include <string.h>

#include "internal.h"

RT_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	return RT_CALL(cuEventRecord(event, stream));
}

RT_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event,
					       cudaStream_t stream,
					       unsigned int flags)
{
	return RT_CALL(cuEventRecordWithFlags(event, stream, flags));
}

#ifdef RT_ONCE
RT_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event,
					       unsigned int flags)
{
	return RT_CALL(cuEventCreate(event, flags));
}

RT_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return RT_CALL(cuEventCreate(event, CU_EVENT_DEFAULT));
}

RT_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	return RT_CALL(cuEventDestroy(event));
}

RT_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
	CUresult res = rt_init();

	if (res == CUDA_SUCCESS)
		res = cuEventQuery(event);
	/* cudaErrorNotReady is an answer, not an error: the slot keeps it */
	return res == CUDA_ERROR_NOT_READY ? cudaErrorNotReady : rt_result(res);
}

RT_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	return RT_CALL(cuEventSynchronize(event));
}

RT_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
					   cudaEvent_t end)
{
	return RT_CALL(cuEventElapsedTime(ms, start, end));
}

/* cudaIpcEventHandle_t and CUipcEventHandle are the same 64 bytes. */
RT_EXPORT cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle,
					    cudaEvent_t event)
{
	CUipcEventHandle h;
	CUresult res;

	if (!handle)
		return rt_error(cudaErrorInvalidValue);
	res = rt_init();
	if (res == CUDA_SUCCESS)
		res = cuIpcGetEventHandle(&h, event);
	if (res == CUDA_SUCCESS)
		memcpy(handle, &h, sizeof(*handle));
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event,
					     cudaIpcEventHandle_t handle)
{
	CUipcEventHandle h;

	memcpy(&h, &handle, sizeof(h));
	return RT_CALL(cuIpcOpenEventHandle(event, h));
}
#endif
