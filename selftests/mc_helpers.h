/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the multicast suites (mc_test.c, mc_team_test.c): teams,
 * replicas (a VMM buffer bound to a team) and multicast mappings.
 */
#ifndef _CUFAB_MC_HELPERS_H
#define _CUFAB_MC_HELPERS_H

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

#include <cufab/cuda.h>
#include <cufab/multimem.h>

#include "mem_helpers.h"

#define MC_MIB		(1024UL * 1024)

/* How many of GPUs 0 .. n - 1 do multicast, from the first. */
static inline int mc_capable_prefix(int n)
{
	int i, v;

	for (i = 0; i < n; i++) {
		v = 0;
		cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, i);
		if (!v)
			break;
	}
	return i;
}

/*
 * Skip unless multicast works on GPUs 0 .. min_devs - 1: the module, the
 * switch, the feature on each, enough GPUs.
 */
#define MC_OR_SKIP(min_devs) do {					\
	int __n;							\
									\
	INIT_OR_SKIP();							\
	__n = num_devices();						\
	if (__n < (min_devs))						\
		SKIP(return, "%d GPUs, multicast tests need %d", __n,	\
		     (min_devs));					\
	if (mc_capable_prefix(min_devs) < (min_devs))			\
		SKIP(return, "no multicast on GPUs 0-%d (nvswitch=0 or feature off)", \
		     (min_devs) - 1);					\
} while (0)

static inline size_t mc_gran(void)
{
	CUmulticastObjectProp p = { .numDevices = 1, .size = 2 * MC_MIB };
	size_t g = 0;

	cuMulticastGetGranularity(&g, &p, CU_MULTICAST_GRANULARITY_MINIMUM);
	return g;
}

static inline CUmulticastObjectProp mc_prop(unsigned int n, size_t size,
					    unsigned long long types)
{
	CUmulticastObjectProp p;

	memset(&p, 0, sizeof(p));
	p.numDevices = n;
	p.size = size;
	p.handleTypes = types;
	return p;
}

/* A team of devices 0 .. n - 1, all added. */
static inline CUresult mc_team(CUmemGenericAllocationHandle *h, unsigned int n,
			       size_t size, unsigned long long types)
{
	CUmulticastObjectProp p = mc_prop(n, size, types);
	CUresult r;
	unsigned int i;

	r = cuMulticastCreate(h, &p);
	for (i = 0; !r && i < n; i++)
		r = cuMulticastAddDevice(*h, i);
	return r;
}

/* Reserve, map the multicast handle and grant access to dev. */
static inline CUresult mc_map(CUdeviceptr *va, CUmemGenericAllocationHandle h,
			      size_t size, int dev)
{
	CUresult r = cuMemAddressReserve(va, size, 0, 0, 0);

	if (!r)
		r = cuMemMap(*va, size, 0, h, 0);
	if (!r)
		r = grant(*va, size, dev);
	return r;
}

static inline CUresult mc_unmap(CUdeviceptr va, size_t size)
{
	CUresult r = cuMemUnmap(va, size);

	return r ? r : cuMemAddressFree(va, size);
}

/* The signal touching p raised: SIGBUS, SIGSEGV, or 0 for none. */
static sigjmp_buf mc_sig_jmp;

static void mc_sig_handler(int sig)
{
	siglongjmp(mc_sig_jmp, sig);
}

static inline int mc_touch_signal(volatile unsigned char *p, int write)
{
	struct sigaction sa, old_segv, old_bus;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mc_sig_handler;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(mc_sig_jmp, 1);
	if (!sig) {
		if (write)
			*p = 1;
		else
			(void)*p;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

#endif /* _CUFAB_MC_HELPERS_H */
