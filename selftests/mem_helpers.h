/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the memory selftests (vmm_test, linear_mem_test,
 * pointer_test): everything goes through libcufab.
 */
#ifndef _CUFAB_MEM_HELPERS_H
#define _CUFAB_MEM_HELPERS_H

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "cufab_test.h"


/* FIXTURE(ctx): after cuInit (or a skip), a new current context per test. */
#define CTX_FIXTURE()							\
FIXTURE(ctx) {								\
	CUcontext ctx;							\
};									\
FIXTURE_SETUP(ctx)							\
{									\
	self->ctx = NULL;						\
	INIT_OR_SKIP();							\
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));	\
}									\
FIXTURE_TEARDOWN(ctx)							\
{									\
	if (self->ctx)							\
		cuCtxDestroy(self->ctx);				\
}									\
struct __cufab_ctx_fixture_semicolon

static inline CUmemAllocationProp dev_prop(int dev, unsigned int handle_types)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	p.requestedHandleTypes = (CUmemAllocationHandleType)handle_types;
	return p;
}

static inline size_t gran(int dev)
{
	CUmemAllocationProp p = dev_prop(dev, 0);
	size_t g = 0;

	if (cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM))
		return 0;
	return g;
}

static inline int num_devices(void)
{
	int n = 0;

	cuDeviceGetCount(&n);
	return n;
}

/* Grants read-write access to dev (the CPU mapping follows). */
static inline CUresult grant(CUdeviceptr p, size_t len, int dev)
{
	CUmemAccessDesc d;

	memset(&d, 0, sizeof(d));
	d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d.location.id = dev;
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	return cuMemSetAccess(p, len, &d, 1);
}

/*
 * A VMM buffer: create + reserve + map + access on dev. Returns 0 or the
 * first failing CUresult.
 */
struct vbuf {
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	size_t len;
};

static inline CUresult vbuf_make(struct vbuf *b, int dev, size_t len,
				 unsigned int handle_types)
{
	CUmemAllocationProp p = dev_prop(dev, handle_types);
	CUresult r;

	b->len = len;
	r = cuMemCreate(&b->h, len, &p, 0);
	if (r)
		return r;
	r = cuMemAddressReserve(&b->va, len, 0, 0, 0);
	if (r)
		return r;
	r = cuMemMap(b->va, len, 0, b->h, 0);
	if (r)
		return r;
	return grant(b->va, len, dev);
}

static inline CUresult vbuf_drop(struct vbuf *b)
{
	CUresult r = cuMemUnmap(b->va, b->len);

	if (!r)
		r = cuMemAddressFree(b->va, b->len);
	if (!r)
		r = cuMemRelease(b->h);
	return r;
}

static sigjmp_buf cpu_fault_jmp;

static void cpu_fault_handler(int sig)
{
	siglongjmp(cpu_fault_jmp, sig);
}

/*
 * 1 when reading (write = 0) or writing p faults with SIGSEGV or SIGBUS,
 * 0 when it works. In this process: a forked child may not inherit the
 * mapping.
 */
static inline int cpu_faults(volatile unsigned char *p, int write)
{
	struct sigaction sa, old_segv, old_bus;
	int faulted = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cpu_fault_handler;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (sigsetjmp(cpu_fault_jmp, 1) == 0) {
		if (write)
			*p = *p;
		else
			(void)*p;
	} else {
		faulted = 1;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted;
}

#endif /* _CUFAB_MEM_HELPERS_H */
