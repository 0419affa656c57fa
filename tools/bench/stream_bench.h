/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stream and event rows of cufab-bench (stream_bench.c).
 */
#ifndef CUFAB_STREAM_BENCH_H
#define CUFAB_STREAM_BENCH_H

#include <stdio.h>

struct bench;

/* A stream with completed work and a completed event; 0 or -1. */
int stream_bench_setup(void);
void stream_bench_teardown(void);

/* Completion checks on finished work: the library reads the mapped slots. */
int sb_step_stream_query(struct bench *b);
int sb_step_event_query(struct bench *b);
int sb_step_stream_sync_idle(struct bench *b);
int sb_step_create_destroy(struct bench *b);
int sb_step_record_sync(struct bench *b);

/*
 * Prints the "stream_copy" (cuMemcpyAsync 64 MiB device to device against
 * memcpy) and "host_function_latency_ns" members; 0 or -1.
 */
int stream_bench_extra(FILE *out, int reps);
/* host_function_latency_ns alone (cufab-bench -f host_function) */
int stream_bench_host_row(FILE *out, int reps);

#endif /* CUFAB_STREAM_BENCH_H */
