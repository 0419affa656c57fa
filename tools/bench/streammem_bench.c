// SPDX-License-Identifier: GPL-2.0
/*
 * Stream memory operation rows of cufab-bench: the cost of enqueueing
 * cuStreamWriteValue32, and the time from a CPU store satisfying a parked
 * cuStreamWaitValue32 to the stream's next operation completing (NVIDIA's
 * driver on an H200: 6.6 us; the target here: 20 us).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "streammem_bench.h"

static CUstream smb_stream;
static CUevent smb_event;
static CUdeviceptr smb_word;

int streammem_bench_setup(void)
{
	if (cuStreamCreate(&smb_stream, CU_STREAM_NON_BLOCKING) ||
	    cuEventCreate(&smb_event, CU_EVENT_DISABLE_TIMING) ||
	    cuMemAlloc(&smb_word, 4096) ||
	    cuMemsetD32(smb_word, 0, 1))
		return -1;
	return 0;
}

void streammem_bench_teardown(void)
{
	if (smb_word)
		cuMemFree(smb_word);
	if (smb_event)
		cuEventDestroy(smb_event);
	if (smb_stream)
		cuStreamDestroy(smb_stream);
}

int smb_step_write_value(struct bench *b)
{
	return cuStreamWriteValue32(smb_stream, smb_word + 4, 1,
				    CU_STREAM_WRITE_VALUE_DEFAULT);
}

int smb_undo_sync(struct bench *b, long burst)
{
	return cuStreamSynchronize(smb_stream);
}

/* One wait parked on the stream, satisfied by a store; ns to completion. */
static double wait_once(void)
{
	volatile uint32_t *word = (volatile uint32_t *)smb_word;
	struct timespec park = { 0, 2000000 };
	CUresult res;
	double t;

	*word = 0;
	if (cuStreamWaitValue32(smb_stream, smb_word, 1, CU_STREAM_WAIT_VALUE_GEQ) ||
	    cuEventRecord(smb_event, smb_stream))
		return -1;
	/* let the engine find the value short and park the wait */
	nanosleep(&park, NULL);
	if (cuEventQuery(smb_event) != CUDA_ERROR_NOT_READY)
		return -1;
	t = now_ns();
	*word = 1;
	while ((res = cuEventQuery(smb_event)) == CUDA_ERROR_NOT_READY)
		;
	return res == CUDA_SUCCESS ? now_ns() - t : -1;
}

int streammem_bench_extra(FILE *out, int reps)
{
	double *lat = calloc(reps, sizeof(double));
	int r;

	if (!lat)
		return -1;
	for (r = 0; r < reps; r++) {
		lat[r] = wait_once();
		if (lat[r] < 0) {
			fprintf(stderr, "cufab-bench: cuStreamWaitValue32 latency: a wait failed\n");
			free(lat);
			return -1;
		}
	}
	fprintf(out, "  \"wait_value_cpu_write_latency_ns\": %.0f,\n",
		median(lat, reps));
	free(lat);
	return 0;
}
