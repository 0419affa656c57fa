/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stream memory operation rows of cufab-bench (streammem_bench.c).
 */
#ifndef CUFAB_STREAMMEM_BENCH_H
#define CUFAB_STREAMMEM_BENCH_H

#include <stdio.h>

struct bench;

int streammem_bench_setup(void);
void streammem_bench_teardown(void);

/* cuStreamWriteValue32 enqueued; the burst's undo drains the stream. */
int smb_step_write_value(struct bench *b);
int smb_undo_sync(struct bench *b, long burst);

/* Prints "wait_value_cpu_write_latency_ns"; 0 or -1. */
int streammem_bench_extra(FILE *out, int reps);

#endif /* CUFAB_STREAMMEM_BENCH_H */
