// SPDX-License-Identifier: GPL-2.0
/*
 * Stream and event rows of cufab-bench.
 *
 * Query of finished work and Synchronize of an idle stream make no
 * syscall (the library reads the kernel's read-only completion slots), so
 * their ratio to the no-op ioctl is well below 1. The copy row moves
 * 64 MiB device to device on the GPU's engine and compares with memcpy of
 * the same mappings; the host function row is the time from
 * cuLaunchHostFunc to the function starting on the library's host thread.
 * Beside it, the floor of any such latency on this machine: the time from
 * a futex wake to the sleeping thread running, with no cufab in between
 * (under TCG it is mostly the wake of an idle virtual CPU).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "stream_bench.h"

static CUstream sb_stream;
static CUevent sb_event;

int stream_bench_setup(void)
{
	if (cuStreamCreate(&sb_stream, CU_STREAM_NON_BLOCKING) ||
	    cuEventCreate(&sb_event, CU_EVENT_DISABLE_TIMING) ||
	    cuMemsetD8Async(0, 0, 0, sb_stream) ||
	    cuEventRecord(sb_event, sb_stream) ||
	    cuStreamSynchronize(sb_stream))
		return -1;
	return 0;
}

void stream_bench_teardown(void)
{
	cuEventDestroy(sb_event);
	cuStreamDestroy(sb_stream);
}

int sb_step_stream_query(struct bench *b)
{
	return cuStreamQuery(sb_stream);
}

int sb_step_event_query(struct bench *b)
{
	return cuEventQuery(sb_event);
}

int sb_step_stream_sync_idle(struct bench *b)
{
	return cuStreamSynchronize(sb_stream);
}

int sb_step_create_destroy(struct bench *b)
{
	CUstream s;

	return cuStreamCreate(&s, 0) || cuStreamDestroy(s);
}

int sb_step_record_sync(struct bench *b)
{
	return cuEventRecord(sb_event, sb_stream) ||
	       cuEventSynchronize(sb_event);
}

/* cuMemcpyAsync DtoD against memcpy between the same two mappings. */
static int copy_row(FILE *out, int reps)
{
	const size_t len = 64 << 20;
	double *eng = calloc(reps, sizeof(double));
	double *cpu = calloc(reps, sizeof(double));
	CUdeviceptr a = 0, c = 0;
	int r, ret = -1;
	double t;

	if (!eng || !cpu || cuMemAlloc(&a, len) || cuMemAlloc(&c, len))
		goto out;
	/* populate both, so neither side pays the first touch */
	memset((void *)a, 1, len);
	memset((void *)c, 2, len);
	for (r = 0; r < reps; r++) {
		t = now_ns();
		if (cuMemcpyAsync(c, a, len, sb_stream) ||
		    cuStreamSynchronize(sb_stream))
			goto out;
		eng[r] = now_ns() - t;
		t = now_ns();
		memcpy((void *)c, (void *)a, len);
		cpu[r] = now_ns() - t;
	}
	t = median(cpu, reps);
	fprintf(out, "  \"stream_copy\": { \"bytes\": %zu, \"cuMemcpyAsync_dtod_ns\": %.0f, \"memcpy_ns\": %.0f, \"ratio_to_memcpy_bandwidth\": %.3f },\n",
		len, median(eng, reps), t, t / median(eng, reps));
	ret = 0;
out:
	if (a)
		cuMemFree(a);
	if (c)
		cuMemFree(c);
	free(eng);
	free(cpu);
	return ret;
}

static volatile double host_started;

static void CUDA_CB host_fn(void *p)
{
	host_started = now_ns();
}

/* The sleeper of the wake floor: 0 asleep (or about to be), 1 woken. */
static int wake_word;
static volatile int wake_asleep, wake_stop;
static volatile double wake_ran;

static void *wake_sleeper(void *unused)
{
	(void)unused;
	while (!wake_stop) {
		wake_asleep = 1;
		while (!__atomic_load_n(&wake_word, __ATOMIC_ACQUIRE))
			syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, 0,
				NULL, NULL, 0);
		wake_ran = now_ns();
		wake_asleep = 0;
		__atomic_store_n(&wake_word, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* From a futex wake to the sleeping thread running, in ns; -1 on error. */
static double wake_floor(int reps)
{
	struct timespec settle = { 0, 200000 };
	double *lat = calloc(reps, sizeof(double)), t, ret = -1;
	pthread_t tid;
	int r;

	if (!lat || pthread_create(&tid, NULL, wake_sleeper, NULL)) {
		free(lat);
		return -1;
	}
	for (r = 0; r < reps; r++) {
		while (!wake_asleep)
			;
		nanosleep(&settle, NULL);	/* asleep in the futex by now */
		wake_ran = 0;
		t = now_ns();
		__atomic_store_n(&wake_word, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
		while (__atomic_load_n(&wake_word, __ATOMIC_ACQUIRE))
			;
		lat[r] = wake_ran - t;
	}
	wake_stop = 1;
	__atomic_store_n(&wake_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(tid, NULL);
	ret = median(lat, reps);
	free(lat);
	return ret;
}

/* From cuLaunchHostFunc being called to the function running. */
int stream_bench_host_row(FILE *out, int reps)
{
	double *lat = calloc(reps, sizeof(double));
	int r, ret = -1;
	double t;

	if (!lat)
		return -1;
	for (r = 0; r < reps; r++) {
		host_started = 0;
		t = now_ns();
		if (cuLaunchHostFunc(sb_stream, host_fn, NULL) ||
		    cuStreamSynchronize(sb_stream))
			goto out;
		lat[r] = host_started - t;
	}
	fprintf(out, "  \"host_function_latency_ns\": %.0f,\n",
		median(lat, reps));
	fprintf(out, "  \"thread_wake_latency_ns\": %.0f,\n",
		wake_floor(reps));
	ret = 0;
out:
	free(lat);
	return ret;
}

int stream_bench_extra(FILE *out, int reps)
{
	if (copy_row(out, reps) || stream_bench_host_row(out, reps))
		return -1;
	return 0;
}
