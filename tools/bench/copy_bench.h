/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copy and set rows of cufab-bench (copy_bench.c).
 */
#ifndef CUFAB_COPY_BENCH_H
#define CUFAB_COPY_BENCH_H

#include <stdio.h>

struct bench;

/* Two populated 4 KiB-row buffers for the step functions; 0 or -1. */
int copy_bench_setup(void);
void copy_bench_teardown(void);

/* cuMemcpyDtoD / cuMemcpyHtoD / cuMemsetD8 of 4 KiB, one call each. */
int cb_step_dtod_4k(struct bench *b);
int cb_step_htod_4k(struct bench *b);
int cb_step_memset_4k(struct bench *b);

/*
 * Prints the "copies_64MiB" member: each direction of cuMemcpy and
 * cuMemsetD8 over 64 MiB against glibc memcpy/memset of the same bytes;
 * 0 or -1.
 */
int copy_bench_extra(FILE *out, int reps);

#endif /* CUFAB_COPY_BENCH_H */
