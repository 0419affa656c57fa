// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-bench: cost of driver API calls relative to the cheapest possible
 * trip into the kernel (CUFAB_IOCTL_NOOP), printed as JSON.
 *
 *   cufab-bench [-n iterations] [-r repetitions] [-o file]
 *
 * Each row is timed over n calls, r times; the figures are the median,
 * 10th and 90th percentile of the r per-call averages. Run it in the VM
 * (make bench-run): on TCG absolute numbers are slow, ratios are what
 * matter, and they still vary from run to run.
 *
 * A row is one line in rows[] and a step function; later API groups add
 * theirs the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>
#include <linux/cufab.h>

struct bench {
	int fd;			/* a raw client, for the no-op ioctl */
	CUcontext ctx;		/* created by main, current while rows run */
};

struct stats {
	double median, p10, p90;
};

/* One call of the measured operation; non-zero stops the benchmark. */
typedef int (*bench_step)(struct bench *b);

struct row {
	const char *name;
	bench_step step;
	int divisor;		/* slow rows run n / divisor calls */
};

static int step_noop(struct bench *b)
{
	struct cufab_noop arg = { .size = sizeof(arg) };

	return ioctl(b->fd, CUFAB_IOCTL_NOOP, &arg);
}

static int step_attribute(struct bench *b)
{
	int v;

	return cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0);
}

static int step_get_current(struct bench *b)
{
	CUcontext c;

	return cuCtxGetCurrent(&c);
}

static int step_push_pop(struct bench *b)
{
	return cuCtxPushCurrent(b->ctx) || cuCtxPopCurrent(NULL);
}

static int step_create_destroy(struct bench *b)
{
	CUcontext c;

	return cuCtxCreate(&c, NULL, 0, 0) || cuCtxDestroy(c);
}

static const struct row rows[] = {
	{ "cuDeviceGetAttribute", step_attribute, 1 },
	{ "cuCtxGetCurrent", step_get_current, 1 },
	{ "cuCtxPushCurrent+cuCtxPopCurrent", step_push_pop, 1 },
	{ "cuCtxCreate+cuCtxDestroy", step_create_destroy, 10 },
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n). */
static double percentile(const double *v, int n, int pct)
{
	int i = (pct * n + 99) / 100 - 1;

	return v[i < 0 ? 0 : i];
}

static int measure(struct bench *b, const struct row *r, long n, int reps,
		   struct stats *s)
{
	double *avg = calloc(reps, sizeof(*avg)), t;
	long i;
	int k;

	if (!avg)
		return -1;
	n = n / r->divisor ?: 1;
	for (k = 0; k < reps; k++) {
		t = now_ns();
		for (i = 0; i < n; i++) {
			if (r->step(b)) {
				fprintf(stderr, "cufab-bench: %s failed (errno %d)\n",
					r->name, errno);
				free(avg);
				return -1;
			}
		}
		avg[k] = (now_ns() - t) / n;
	}
	qsort(avg, reps, sizeof(*avg), cmp_double);
	s->median = percentile(avg, reps, 50);
	s->p10 = percentile(avg, reps, 10);
	s->p90 = percentile(avg, reps, 90);
	free(avg);
	return 0;
}

static void print_stats(FILE *f, const struct stats *s)
{
	fprintf(f, "\"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f",
		s->median, s->p10, s->p90);
}

static int usage(void)
{
	fprintf(stderr, "usage: cufab-bench [-n iterations] [-r repetitions] [-o file]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct row noop = { "CUFAB_IOCTL_NOOP", step_noop, 1 };
	struct bench b = { .fd = -1 };
	struct stats base, s;
	long n = 20000;
	int reps = 11, opt;
	FILE *out = stdout;
	size_t i;

	while ((opt = getopt(argc, argv, "n:r:o:h")) != -1) {
		switch (opt) {
		case 'n':
			n = atol(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'o':
			out = fopen(optarg, "w");
			if (!out) {
				perror(optarg);
				return 1;
			}
			break;
		default:
			return usage();
		}
	}
	if (n <= 0 || reps <= 0)
		return usage();

	b.fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (b.fd < 0) {
		fprintf(stderr, "cufab-bench: %s: %s (run it in the VM: make bench-run)\n",
			CUFAB_DEVICE_PATH, strerror(errno));
		return 1;
	}
	if (cuInit(0) || cuCtxCreate(&b.ctx, NULL, 0, 0)) {
		fprintf(stderr, "cufab-bench: cuInit or cuCtxCreate failed\n");
		return 1;
	}
	if (measure(&b, &noop, n, reps, &base))
		return 1;

	fprintf(out, "{\n  \"iterations\": %ld, \"repetitions\": %d,\n", n, reps);
	fprintf(out, "  \"noop_ioctl_ns\": %.1f,\n  \"noop_ioctl\": { ", base.median);
	print_stats(out, &base);
	fprintf(out, " },\n  \"calls\": [\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (measure(&b, &rows[i], n, reps, &s))
			return 1;
		fprintf(out, "    { \"name\": \"%s\", ", rows[i].name);
		print_stats(out, &s);
		fprintf(out, ", \"ratio_to_noop\": %.3f }%s\n", s.median / base.median,
			i + 1 < sizeof(rows) / sizeof(rows[0]) ? "," : "");
	}
	fprintf(out, "  ]\n}\n");
	cuCtxDestroy(b.ctx);
	close(b.fd);
	return out != stdout && fclose(out) ? 1 : 0;
}
