/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA IPC rows of cufab-bench (ipc_bench.c).
 */
#ifndef CUFAB_IPC_BENCH_H
#define CUFAB_IPC_BENCH_H

struct bench;

/* Forks the exporting process; 0 or -1. */
int ipc_bench_setup(void);
void ipc_bench_teardown(void);

int ipcb_step_open_close(struct bench *b);

#endif /* CUFAB_IPC_BENCH_H */
