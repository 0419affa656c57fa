/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Managed memory rows of cufab-bench (managed_bench.c).
 */
#ifndef CUFAB_MANAGED_BENCH_H
#define CUFAB_MANAGED_BENCH_H

#include <stdio.h>

struct bench;

/* Streams and managed memory on GPU 0; 0 or -1. */
int managed_bench_setup(void);
void managed_bench_teardown(void);

/* cuStreamAttachMemAsync SINGLE of a whole allocation on an idle stream. */
int mb_step_attach(struct bench *b);
int mb_step_attach_sync(struct bench *b);

/*
 * Prints the "cma0_fence" member: one stream busy/idle transition with
 * managed memory the CPU touched, on a GPU with CONCURRENT_MANAGED_ACCESS
 * 0 against one with it 1 (skipped, with the reason, when no GPU has it
 * 0: make bench-run turns it off on the last GPU); 0 or -1.
 */
int managed_bench_extra(FILE *out, int reps, long n);

#endif /* CUFAB_MANAGED_BENCH_H */
