/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One-call rows of the control calls (ctl_bench.c): cuCtxCreate,
 * cuCtxDestroy, cuMemCreate, cuMemRelease and the multicast calls each
 * timed alone. A row's prep, untimed, runs before each of its bursts and
 * builds what the burst's calls consume (the contexts cuCtxDestroy
 * destroys); its undo, untimed, runs after and removes what they made.
 */
#ifndef CUFAB_CTL_BENCH_H
#define CUFAB_CTL_BENCH_H

struct bench;

/* 0, or -1 when a setup call fails; @mc: multicast works on the node. */
int ctl_bench_setup(int mc);
void ctl_bench_teardown(void);

int ctl_step_ctx_create(struct bench *b);
int ctl_undo_ctx_create(struct bench *b, long burst);
int ctl_prep_ctx_destroy(struct bench *b, long burst);
int ctl_step_ctx_destroy(struct bench *b);

int ctl_step_mem_create(struct bench *b);
int ctl_undo_release(struct bench *b, long burst);
int ctl_prep_mem_release(struct bench *b, long burst);
int ctl_step_release(struct bench *b);

int ctl_step_mc_create(struct bench *b);
int ctl_prep_mc_release(struct bench *b, long burst);
int ctl_step_mc_add(struct bench *b);
int ctl_step_mc_bind(struct bench *b);
int ctl_undo_mc_bind(struct bench *b, long burst);
int ctl_prep_mc_unbind(struct bench *b, long burst);
int ctl_step_mc_unbind(struct bench *b);

#endif /* CUFAB_CTL_BENCH_H */
