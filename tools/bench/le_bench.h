/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logical endpoint rows of cufab-bench (le_bench.c): one call per step,
 * each row undoing the previous one (Reserve then Release, Create then
 * Destroy, BindMem then Unbind), so every call is timed alone.
 */
#ifndef CUFAB_LE_BENCH_H
#define CUFAB_LE_BENCH_H

struct bench;

/* Room for @calls calls of each row; 0 or -1. */
int le_bench_setup(long calls);
void le_bench_teardown(void);

int le_step_reserve(struct bench *b);
int le_step_release(struct bench *b);
int le_step_create(struct bench *b);
int le_step_query(struct bench *b);
int le_step_bind(struct bench *b);
int le_step_unbind(struct bench *b);
int le_step_destroy(struct bench *b);

/*
 * Median ns of one BindMem+Unbind pair on an endpoint that already holds
 * @live bindings (of one 2 MiB allocation at @live offsets); -1 on error.
 */
double le_bench_bind_with_live(long live, int reps, long calls);

#endif /* CUFAB_LE_BENCH_H */
