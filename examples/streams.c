// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: two streams of one GPU overlap, and events time them.
 *
 * Streams A and B each set and copy 4 MiB buffers, with a timed event
 * recorded between the operations. The engine runs the two streams on
 * different copy engines, so their operations interleave: the timeline,
 * built from cuEventElapsedTime against the first event, shows B's work
 * starting before A's has finished. A host function at the end of each
 * stream reports when each stream got there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cufab/cuda.h>

#define BUF	(4UL << 20)
#define STEPS	3

struct mark {
	const char *what;
	char stream;
	CUevent ev;
	float ms;
};

static struct timespec t0;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6;
}

static void CUDA_CB reached(void *arg)
{
	printf("  host function: stream %c reached its end at %.2f ms (host clock)\n",
	       *(char *)arg, now_ms());
}

#define CHECK(call) do {						\
	CUresult __r = (call);						\
	const char *__s;						\
	if (__r != CUDA_SUCCESS) {					\
		cuGetErrorName(__r, &__s);				\
		fprintf(stderr, "streams: %s: %s\n", #call, __s);	\
		exit(1);						\
	}								\
} while (0)

static int by_time(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	return (x->ms > y->ms) - (x->ms < y->ms);
}

/* One stream's work: STEPS times set src, copy src to dst; an event each. */
static void enqueue(CUstream s, char name, CUdeviceptr src, CUdeviceptr dst,
		    struct mark *m)
{
	static const char *const what[] = { "start", "set", "copy" };
	int i, n = 0;

	for (i = 0; i < STEPS; i++) {
		if (i == 0) {
			m[n] = (struct mark){ what[0], name };
			CHECK(cuEventCreate(&m[n].ev, 0));
			CHECK(cuEventRecord(m[n].ev, s));
			n++;
		}
		CHECK(cuMemsetD32Async(src, name + i, BUF / 4, s));
		m[n] = (struct mark){ what[1], name };
		CHECK(cuEventCreate(&m[n].ev, 0));
		CHECK(cuEventRecord(m[n].ev, s));
		n++;
		CHECK(cuMemcpyDtoDAsync(dst, src, BUF, s));
		m[n] = (struct mark){ what[2], name };
		CHECK(cuEventCreate(&m[n].ev, 0));
		CHECK(cuEventRecord(m[n].ev, s));
		n++;
	}
}

int main(void)
{
	enum { PER = 1 + 2 * STEPS };
	static char name_a = 'A', name_b = 'B';
	double a_end = 0, b_start = 0, a_start = 0, b_end = 0;
	struct mark m[2 * PER];
	CUdeviceptr buf[4];
	CUstream a, b;
	CUcontext ctx;
	CUdevice dev;
	float span;
	int i;

	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
	for (i = 0; i < 4; i++)
		CHECK(cuMemAlloc(&buf[i], BUF));
	CHECK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	CHECK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));

	printf("two non-blocking streams on gpu0, each %d x (set 4 MiB, copy 4 MiB)\n",
	       STEPS);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enqueue(a, 'A', buf[0], buf[1], m);
	CHECK(cuLaunchHostFunc(a, reached, &name_a));
	enqueue(b, 'B', buf[2], buf[3], m + PER);
	CHECK(cuLaunchHostFunc(b, reached, &name_b));
	printf("  enqueued in %.2f ms; the host waits now\n", now_ms());
	CHECK(cuStreamSynchronize(a));
	CHECK(cuStreamSynchronize(b));

	/* every event against stream A's first (cuEventElapsedTime) */
	for (i = 0; i < 2 * PER; i++)
		CHECK(cuEventElapsedTime(&m[i].ms, m[0].ev, m[i].ev));
	qsort(m, 2 * PER, sizeof(m[0]), by_time);
	printf("\n  %9s  %-14s %-14s\n", "t (ms)", "stream A", "stream B");
	for (i = 0; i < 2 * PER; i++) {
		printf("  %9.2f  %-14s %-14s\n", m[i].ms - m[0].ms,
		       m[i].stream == 'A' ? m[i].what : "",
		       m[i].stream == 'B' ? m[i].what : "");
		if (m[i].stream == 'A') {
			a_end = m[i].ms;
			if (!strcmp(m[i].what, "start"))
				a_start = m[i].ms;
		} else {
			b_end = m[i].ms;
			if (!strcmp(m[i].what, "start"))
				b_start = m[i].ms;
		}
	}
	span = (a_end > b_end ? a_end : b_end) - m[0].ms;
	printf("\n  stream A busy %.2f ms, stream B busy %.2f ms, both done after %.2f ms\n",
	       a_end - a_start, b_end - b_start, span);
	if (b_start < a_end && a_start < b_end)
		printf("  overlap: the streams ran side by side for %.2f ms\n",
		       (a_end < b_end ? a_end : b_end) -
		       (a_start > b_start ? a_start : b_start));
	else
		printf("  no overlap this time (one engine was free first)\n");

	for (i = 0; i < 2 * PER; i++)
		CHECK(cuEventDestroy(m[i].ev));
	CHECK(cuStreamDestroy(a));
	CHECK(cuStreamDestroy(b));
	for (i = 0; i < 4; i++)
		CHECK(cuMemFree(buf[i]));
	CHECK(cuCtxDestroy(ctx));
	return 0;
}
