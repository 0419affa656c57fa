/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runtime API rows of cufab-bench (rt_bench.c): each runtime call beside
 * the driver call that serves it, for the runtime's own overhead.
 */
#ifndef CUFAB_RT_BENCH_H
#define CUFAB_RT_BENCH_H

#include <stdio.h>

struct bench;

/* libcufabrt found and a stream of each API made: 1; else 0 (rows skip). */
int rt_bench_setup(void);
void rt_bench_teardown(void);

int rtb_step_cu_alloc_free(struct bench *b);
int rtb_step_rt_malloc_free(struct bench *b);
int rtb_step_cu_copy_sync(struct bench *b);
int rtb_step_rt_copy_sync(struct bench *b);
int rtb_step_cu_async_pair(struct bench *b);
int rtb_step_rt_async_pair(struct bench *b);

#endif /* CUFAB_RT_BENCH_H */
