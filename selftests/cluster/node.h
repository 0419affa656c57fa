/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the cluster's team programs share (fabric_team.c, fabric_le.c):
 * the node they run on and how many there are, the directory every node
 * sees (the host's, where they exchange handles and meet), failing with
 * the CUresult's name, and barriers made of files there. A program
 * defines PROG, its name in messages, and BARRIER, the prefix of its
 * barrier files, before it includes this.
 */
#ifndef CUFAB_CLUSTER_NODE_H
#define CUFAB_CLUSTER_NODE_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <cufab/cuda.h>

static int node, nodes;
static const char *dir;

static int fail(const char *what, CUresult res)
{
	const char *name = "?";

	cuGetErrorName(res, &name);
	fprintf(stderr, PROG " (node %d): %s: %s\n", node, what, name);
	return 1;
}

#define TRY(call) do { CUresult r_ = (call); if (r_) return fail(#call, r_); } while (0)
#define WANT(code, call) do { CUresult r_ = (call); \
	if (r_ != (code)) return fail(#call " (want " #code ")", r_); } while (0)

static inline double ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* File @name of the shared directory exists, within 2 minutes: 0 or -1. */
static inline int wait_file(const char *name)
{
	char path[512];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < 1200; i++) {
		if (!access(path, F_OK))
			return 0;
		usleep(100000);
	}
	fprintf(stderr, PROG " (node %d): %s never came\n", node, path);
	return -1;
}

static inline void touch(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

/* Every node reaches @name. */
static inline int barrier(const char *name)
{
	char file[128];
	int i;

	snprintf(file, sizeof(file), BARRIER "-%s.%d", name, node);
	touch(file);
	for (i = 0; i < nodes; i++) {
		snprintf(file, sizeof(file), BARRIER "-%s.%d", name, i);
		if (wait_file(file))
			return -1;
	}
	return 0;
}

#endif /* CUFAB_CLUSTER_NODE_H */
