// SPDX-License-Identifier: GPL-2.0
/*
 * Copy and set rows of cufab-bench.
 *
 * The kernel moves the bytes of cuMemcpy* and cuMemsetD* page to page,
 * so a 64 MiB copy is compared with glibc memcpy between the same
 * (populated) buffers: a ratio of 1.0 means memory bandwidth. The 4 KiB
 * rows are control-call sized and go in the table of ratios to the no-op
 * ioctl.
 */
#include <stdlib.h>
#include <string.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "copy_bench.h"

#define CB_BIG	(64UL << 20)

static CUdeviceptr cb_a, cb_b;
static unsigned char *cb_host;

int copy_bench_setup(void)
{
	cb_host = malloc(CB_BIG);
	if (!cb_host || cuMemAlloc(&cb_a, CB_BIG) || cuMemAlloc(&cb_b, CB_BIG))
		return -1;
	/* populate every side, so no row pays a first touch */
	memset(cb_host, 1, CB_BIG);
	memset((void *)cb_a, 2, CB_BIG);
	memset((void *)cb_b, 3, CB_BIG);
	return 0;
}

void copy_bench_teardown(void)
{
	cuMemFree(cb_a);
	cuMemFree(cb_b);
	free(cb_host);
}

int cb_step_dtod_4k(struct bench *b)
{
	return cuMemcpyDtoD(cb_b, cb_a, 4096);
}

int cb_step_htod_4k(struct bench *b)
{
	return cuMemcpyHtoD(cb_a, cb_host, 4096);
}

int cb_step_memset_4k(struct bench *b)
{
	return cuMemsetD8(cb_a, 7, 4096);
}

enum cb_kind { CB_HTOD, CB_DTOH, CB_DTOD, CB_SET, CB_KINDS };

static const char *const cb_names[CB_KINDS] = {
	"cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemsetD8",
};

static int cb_call(enum cb_kind k)
{
	switch (k) {
	case CB_HTOD:
		return cuMemcpyHtoD(cb_a, cb_host, CB_BIG);
	case CB_DTOH:
		return cuMemcpyDtoH(cb_host, cb_a, CB_BIG);
	case CB_DTOD:
		return cuMemcpyDtoD(cb_b, cb_a, CB_BIG);
	default:
		return cuMemsetD8(cb_a, 9, CB_BIG);
	}
}

/* What the CPU does for the same bytes. */
static void cb_cpu(enum cb_kind k)
{
	switch (k) {
	case CB_HTOD:
		memcpy((void *)cb_a, cb_host, CB_BIG);
		break;
	case CB_DTOH:
		memcpy(cb_host, (void *)cb_a, CB_BIG);
		break;
	case CB_DTOD:
		memcpy((void *)cb_b, (void *)cb_a, CB_BIG);
		break;
	default:
		memset((void *)cb_a, 9, CB_BIG);
		break;
	}
}

int copy_bench_extra(FILE *out, int reps)
{
	double *cu = calloc(reps, sizeof(double));
	double *cpu = calloc(reps, sizeof(double));
	int k, r, ret = -1;
	double t, c, g;

	if (!cu || !cpu)
		goto out;
	fprintf(out, "  \"copies_64MiB\": [\n");
	for (k = 0; k < CB_KINDS; k++) {
		for (r = 0; r < reps; r++) {
			t = now_ns();
			if (cb_call(k))
				goto out;
			cu[r] = now_ns() - t;
			t = now_ns();
			cb_cpu(k);
			cpu[r] = now_ns() - t;
		}
		c = median(cu, reps);
		g = median(cpu, reps);
		fprintf(out, "    { \"name\": \"%s\", \"ns\": %.0f, \"glibc_ns\": %.0f, \"ratio_to_glibc_bandwidth\": %.3f }%s\n",
			cb_names[k], c, g, g / c, k + 1 < CB_KINDS ? "," : "");
	}
	fprintf(out, "  ],\n");
	ret = 0;
out:
	free(cu);
	free(cpu);
	return ret;
}
