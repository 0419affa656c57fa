/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the selftests that change the virtual GPUs with cufabctl
 * ("dev set", "topo set"). The kernel refuses such changes while any
 * client is open, so the test process itself opens none: it runs its CUDA
 * calls in children, one client each, and changes the GPUs between them.
 */
#ifndef _CUFAB_TOPO_HELPERS_H
#define _CUFAB_TOPO_HELPERS_H

#include <stdio.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "ctl_helpers.h"

/* "cufabctl ARGS", its output thrown away; 0 when it succeeded. */
static inline int ctl(const char *args)
{
	char cmd[256], out[1];

	snprintf(cmd, sizeof(cmd), "%s >/dev/null 2>&1", args);
	return ctl_run(cmd, NULL, out, sizeof(out));
}

/* Runs @fn in a child with its own client; its exit status. */
static inline int in_child(int (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(cuInit(0) ? 99 : fn());
	return wait_child(pid);
}

/* The GPUs a child sees, 0 when it cannot initialise. */
static inline int gpu_count(void)
{
	pid_t pid = fork();
	int n;

	if (pid == 0) {
		n = 0;
		_exit(cuInit(0) || cuDeviceGetCount(&n) ? 0 : n);
	}
	return wait_child(pid);
}

#endif /* _CUFAB_TOPO_HELPERS_H */
