/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the runtime suites (selftests/rt_*_test.c). Those are built
 * against NVIDIA's cuda_runtime_api.h and cuda.h only, as a user's program
 * is, and link libcufabrt (and libcufab where they compare with the
 * driver API).
 */
#ifndef _CUFAB_RT_HELPERS_H
#define _CUFAB_RT_HELPERS_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cufab_test.h"

/* cudaError_t is an enum: compare as int. */
#define EXPECT_RT(expected, call)	EXPECT_EQ((int)(expected), (int)(call))
#define ASSERT_RT(expected, call)	ASSERT_EQ((int)(expected), (int)(call))

#define RT_SKIP() do {							\
	if (access(CUFAB_DEV, F_OK))					\
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");	\
} while (0)

/* Skip unless the VM has at least @n GPUs. */
#define RT_NEED_GPUS(n) do {						\
	int __n = 0;							\
									\
	RT_SKIP();							\
	ASSERT_RT(cudaSuccess, cudaGetDeviceCount(&__n));		\
	if (__n < (n))							\
		SKIP(return, "needs %d GPUs, the VM has %d", (n), __n);	\
} while (0)

#endif
