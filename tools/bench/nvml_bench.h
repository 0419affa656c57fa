/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVML rows of cufab-bench (nvml_bench.c).
 */
#ifndef CUFAB_NVML_BENCH_H
#define CUFAB_NVML_BENCH_H

struct bench;

/* nvmlInit_v2 and GPU 0's handle; 0 or -1. */
int nvml_bench_setup(void);
void nvml_bench_teardown(void);

int nvb_step_handle(struct bench *b);
int nvb_step_memory_info(struct bench *b);
int nvb_step_fabric_info(struct bench *b);

#endif /* CUFAB_NVML_BENCH_H */
