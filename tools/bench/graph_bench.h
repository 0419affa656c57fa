/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Graph rows of cufab-bench (graph_bench.c).
 */
#ifndef CUFAB_GRAPH_BENCH_H
#define CUFAB_GRAPH_BENCH_H

#include <stdio.h>

/*
 * Prints the "graph_launch" member: a launch of a graph of n memset and
 * memcpy nodes against the same n stream calls, n = 1, 10, 100, then
 * ",\n" unless @last; 0 or -1.
 */
int graph_bench_extra(FILE *out, int reps, int last);

#endif /* CUFAB_GRAPH_BENCH_H */
