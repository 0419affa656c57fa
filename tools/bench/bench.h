/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measuring helpers every row file of cufab-bench shares (bench.c).
 */
#ifndef CUFAB_BENCH_H
#define CUFAB_BENCH_H

/* Calls in one burst of a row; the no-op's burst alternates with it. */
#define BURST	8

/* CLOCK_MONOTONIC in nanoseconds. */
double now_ns(void);

/* qsort() comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);

/* Nearest-rank percentile of sorted v[0..n). */
double percentile(const double *v, long n, int pct);

/* Sorts v[0..n) and returns its median. */
double median(double *v, int n);

#endif /* CUFAB_BENCH_H */
