// SPDX-License-Identifier: GPL-2.0
/*
 * Every refusal says why (README, CUFAB_DEBUG): one table row per
 * refusal path of the multicast calls and of the virtual memory calls
 * (reserve, map, access, retain, free). Each row makes the refused call
 * and asserts (for the few the library refuses itself, only its
 * CUFAB_DEBUG line, which then names the rule)
 *   - the documented CUresult;
 *   - one kernel log line "cufab: pid <pid> (<comm>): <cuXxx>: ..." holding
 *     the row's rule (the object, the value and the rule broken);
 *   - with CUFAB_DEBUG set, the library's line names the same cu* call
 *     rather than an ioctl number.
 *
 * The kernel's lines are rate limited per call site (10 per 5 s): a line
 * missing because an earlier suite used up the burst is looked for again
 * after one interval, with the call repeated (a refusal changes nothing).
 */
#include <stdint.h>
#include <stdlib.h>

#include "mc_helpers.h"
#include "kselftest_harness.h"

#define MCSZ	(4 * MC_MIB)	/* object size: two granules */
#define BINDSZ	(2 * MC_MIB)

/* The objects the refused calls are made on. */
struct world {
	CUdeviceptr va;		/* 4 granules reserved, [0, g) mapped to mem */
	CUdeviceptr freed;	/* a reservation that was freed */
	CUcontext ctx;
	CUmemGenericAllocationHandle team2;	/* 2 devices, both added */
	CUmemGenericAllocationHandle team1;	/* 1 device (gpu 0), added */
	CUmemGenericAllocationHandle half;	/* 2 devices, gpu 0 added */
	CUmemGenericAllocationHandle mem;	/* 2 * BINDSZ on gpu 0 */
	CUmemGenericAllocationHandle mem1;	/* BINDSZ on gpu 1 */
	CUmemGenericAllocationHandle gone;	/* released */
	size_t g;				/* multicast granularity */
};

struct refusal {
	const char *name;
	CUresult want;
	const char *call;	/* the cu* call the lines must name */
	const char *rule;	/* in the kernel's line, after the call */
	CUresult (*fn)(struct world *w);
	const char *lib_rule;	/* refused by the library: its line instead */
};

static CUresult bind_mc_offset(struct world *w)
{
	return cuMulticastBindMem(w->team2, 4096, w->mem, 0, w->g, 0);
}

static CUresult bind_mem_offset(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->mem, 4096, w->g, 0);
}

static CUresult bind_size(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->mem, 0, 4096, 0);
}

static CUresult bind_size_zero(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->mem, 0, 0, 0);
}

static CUresult bind_past_object(struct world *w)
{
	return cuMulticastBindMem(w->team2, MCSZ - w->g, w->mem, 0, 2 * w->g, 0);
}

static CUresult bind_past_memory(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->mem, 2 * BINDSZ - w->g,
				  2 * w->g, 0);
}

/* the world has [0, g) bound on gpu 0 */
static CUresult bind_twice(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->mem, w->g, w->g, 0);
}

static CUresult bind_flags(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->mem, 0, w->g, 1);
}

static CUresult bind_not_member(struct world *w)
{
	return cuMulticastBindMem(w->team1, 0, w->mem1, 0, w->g, 0);
}

static CUresult bind_released_memory(struct world *w)
{
	return cuMulticastBindMem(w->team2, 0, w->gone, 0, w->g, 0);
}

static CUresult bind_addr_misaligned(struct world *w)
{
	return cuMulticastBindAddr(w->team2, 0, 0x1000, w->g, 0);
}

static CUresult unbind_no_binding(struct world *w)
{
	return cuMulticastUnbind(w->team2, 0, w->g, w->g);
}

static CUresult add_full_team(struct world *w)
{
	return cuMulticastAddDevice(w->team1, 1);
}

static CUresult add_twice(struct world *w)
{
	return cuMulticastAddDevice(w->half, 0);
}

static CUresult add_released(struct world *w)
{
	return cuMulticastAddDevice(w->gone, 0);
}

static CUresult add_memory_handle(struct world *w)
{
	return cuMulticastAddDevice(w->mem, 0);
}

static CUresult add_no_device(struct world *w)
{
	return cuMulticastAddDevice(w->half, 99);
}

static CUresult unbind_no_device(struct world *w)
{
	return cuMulticastUnbind(w->team2, 99, 0, w->g);
}

static CUresult create_size(struct world *w)
{
	CUmulticastObjectProp p = mc_prop(1, 1000, 0);
	CUmemGenericAllocationHandle h;

	return cuMulticastCreate(&h, &p);
}

static CUresult create_devices(struct world *w)
{
	CUmulticastObjectProp p = mc_prop(65, MCSZ, 0);
	CUmemGenericAllocationHandle h;

	return cuMulticastCreate(&h, &p);
}

static CUresult map_unreserved(struct world *w)
{
	return cuMemMap(w->freed, w->g, 0, w->mem, 0);
}

static CUresult map_over_mapping(struct world *w)
{
	return cuMemMap(w->va, w->g, 0, w->mem, 0);
}

static CUresult map_offset(struct world *w)
{
	return cuMemMap(w->va + w->g, w->g, 4096, w->mem, 0);
}

static CUresult unmap_hole(struct world *w)
{
	return cuMemUnmap(w->va + w->g, w->g);
}

static CUresult access_desc(struct world *w, unsigned int flags,
			    CUdeviceptr at)
{
	CUmemAccessDesc d = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = flags,
	};

	return cuMemSetAccess(at, w->g, &d, 1);
}

static CUresult access_flags(struct world *w)
{
	return access_desc(w, 7, w->va);
}

static CUresult access_hole(struct world *w)
{
	return access_desc(w, CU_MEM_ACCESS_FLAGS_PROT_READWRITE, w->va + w->g);
}

static CUresult get_access_hole(struct world *w)
{
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned long long f;

	return cuMemGetAccess(&f, &loc, w->va + w->g);
}

static CUresult retain_hole(struct world *w)
{
	CUmemGenericAllocationHandle h;

	return cuMemRetainAllocationHandle(&h, (void *)(uintptr_t)(w->va + w->g));
}

static CUresult free_size(struct world *w)
{
	return cuMemAddressFree(w->va, w->g);
}

static CUresult free_mapped(struct world *w)
{
	return cuMemAddressFree(w->va, 4 * w->g);
}

static CUresult reserve_alignment(struct world *w)
{
	CUdeviceptr p;

	return cuMemAddressReserve(&p, w->g, 3 * 4096, 0, 0);
}

#define IV	CUDA_ERROR_INVALID_VALUE

static const struct refusal vmm_refusals[] = {
	{ "map: outside any reservation", IV, "cuMemMap",
	  "must lie inside one cuMemAddressReserve range", map_unreserved },
	{ "map: over a mapping", IV, "cuMemMap", "overlap no mapping",
	  map_over_mapping },
	{ "map: offset misaligned", IV, "cuMemMap",
	  "offset 0x1000: must be non-zero multiples of the granularity",
	  map_offset },
	{ "unmap: no mapping there", IV, "cuMemUnmap",
	  "must be whole cuMemMap mappings", unmap_hole },
	{ "set access: flags", IV, "cuMemSetAccess",
	  "flags 0x7: must be CU_MEM_ACCESS_FLAGS_PROT_NONE, READ or READWRITE",
	  access_flags },
	{ "set access: range not mapped", IV, "cuMemSetAccess",
	  "must be whole cuMemMap mappings", access_hole },
	{ "get access: not mapped", IV, "cuMemGetAccess",
	  ": not in a cuMemMap mapping", get_access_hole },
	{ "retain: not mapped", IV, "cuMemRetainAllocationHandle",
	  ": not in a cuMemMap mapping", retain_hole },
	{ "address free: wrong size", IV, "cuMemAddressFree",
	  "not the start and size of a cuMemAddressReserve range", free_size },
	{ "address free: still mapped", IV, "cuMemAddressFree",
	  "still has mappings; cuMemUnmap them first", free_mapped },
	{ "reserve: alignment", IV, "cuMemAddressReserve",
	  "alignment 0x3000: must be 0 or a power of two", reserve_alignment },
};

static const struct refusal refusals[] = {
	{ "bind: mcOffset misaligned", IV, "cuMulticastBindMem",
	  "offset 0x1000 or size 0x200000 is not a multiple of the alignment",
	  bind_mc_offset },
	{ "bind: memOffset misaligned", IV, "cuMulticastBindMem",
	  "memory offset 0x1000 is not a multiple of the alignment",
	  bind_mem_offset },
	{ "bind: size misaligned", IV, "cuMulticastBindMem",
	  "offset 0x0 or size 0x1000 is not a multiple of the alignment",
	  bind_size },
	{ "bind: size 0", IV, "cuMulticastBindMem",
	  "size 0 at offset 0x0: a bind must have a size", bind_size_zero },
	{ "bind: past the object", IV, "cuMulticastBindMem",
	  "runs past the object's size 0x400000", bind_past_object },
	{ "bind: past the memory", IV, "cuMulticastBindMem",
	  "runs past allocation", bind_past_memory },
	{ "bind: twice", IV, "cuMulticastBindMem",
	  "overlaps the binding [0x0, +0x200000)", bind_twice },
	{ "bind: flags", IV, "cuMulticastBindMem",
	  "flags 0x1: must be 0", bind_flags },
	{ "bind: device outside the team", IV, "cuMulticastBindMem",
	  "gpu 1: not a device of the team", bind_not_member },
	{ "bind: released memory handle", IV, "cuMulticastBindMem",
	  "no such handle in this process", bind_released_memory },
	{ "bind addr: misaligned", IV, "cuMulticastBindAddr",
	  "address 0x1000 is not a multiple of the multicast granularity",
	  bind_addr_misaligned },
	{ "unbind: nothing bound there", IV, "cuMulticastUnbind",
	  "at 0x200000 no binding starts there", unbind_no_binding },
	{ "add: team complete", IV, "cuMulticastAddDevice",
	  "gpu 1: the team is complete (1 of 1 devices)", add_full_team },
	{ "add: already a member", IV, "cuMulticastAddDevice",
	  "gpu 0: already a device of the team", add_twice },
	{ "add: released handle", IV, "cuMulticastAddDevice",
	  "no such handle in this process", add_released },
	{ "add: memory handle", IV, "cuMulticastAddDevice",
	  "names memory", add_memory_handle },
	{ "create: size", IV, "cuMulticastCreate",
	  "size 1000: must be a non-zero multiple of the multicast granularity",
	  create_size },
	{ "create: numDevices", IV, "cuMulticastCreate",
	  "numDevices 65: must be 1 ..", create_devices },
	{ "add: no such device", CUDA_ERROR_INVALID_DEVICE,
	  "cuMulticastAddDevice", NULL, add_no_device,
	  "refused: device 99: no such device" },
	{ "unbind: no such device", CUDA_ERROR_INVALID_DEVICE,
	  "cuMulticastUnbind", NULL, unbind_no_device,
	  "refused: device 99: no such device" },
};

/* Does a kernel log record after @fd's position hold @n needles in order? */
static int kmsg_has(int fd, const char *const *needle, int n)
{
	char rec[2048];
	const char *p;
	int i, found = 0;
	ssize_t len;

	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (len <= 0)
			break;
		rec[len] = '\0';
		p = rec;
		for (i = 0; i < n && p; i++) {
			p = strstr(p, needle[i]);
			if (p)
				p += strlen(needle[i]);
		}
		if (p)
			found = 1;
	}
	return found;
}

/* Makes the call with stderr into @out; returns its result. */
static CUresult call_captured(const struct refusal *r, struct world *w,
			      char *out, size_t len)
{
	int pipefd[2], saved;
	CUresult res;
	ssize_t n;

	fflush(stderr);
	if (pipe(pipefd))
		abort();
	saved = dup(2);
	dup2(pipefd[1], 2);
	close(pipefd[1]);
	setenv("CUFAB_DEBUG", "1", 1);
	res = r->fn(w);
	unsetenv("CUFAB_DEBUG");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = read(pipefd[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	return res;
}

/* One row: the result, the kernel's line, the library's line. */
static void check_refusal(struct __test_metadata *_metadata,
			  const struct refusal *r, struct world *w)
{
	char who[64], call[96], dbg[4096];
	const char *needles[] = { who, call, r->rule };
	int try, kmsg, seen = 0;

	if (r->lib_rule) {
		EXPECT_CU(r->want, call_captured(r, w, dbg, sizeof(dbg)))
			TH_LOG("%s", r->name);
		snprintf(call, sizeof(call), ": %s: %s", r->call, r->lib_rule);
		EXPECT_NE(NULL, strstr(dbg, call))
			TH_LOG("%s: CUFAB_DEBUG said \"%s\"", r->name, dbg);
		return;
	}
	snprintf(who, sizeof(who), "cufab: pid %d (", (int)getpid());
	snprintf(call, sizeof(call), "): %s: ", r->call);
	for (try = 0; try < 2 && !seen; try++) {
		if (try)
			sleep(6);	/* one rate-limit interval */
		kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, kmsg);
		lseek(kmsg, 0, SEEK_END);
		EXPECT_CU(r->want, call_captured(r, w, dbg, sizeof(dbg)))
			TH_LOG("%s", r->name);
		seen = kmsg_has(kmsg, needles, 3);
		close(kmsg);
	}
	EXPECT_TRUE(seen) TH_LOG("%s: no kernel line \"%s...%s\"", r->name,
				 call, r->rule);
	snprintf(call, sizeof(call), ": %s: refused: ", r->call);
	EXPECT_NE(NULL, strstr(dbg, call))
		TH_LOG("%s: CUFAB_DEBUG said \"%s\"", r->name, dbg);
}

FIXTURE(refusal) {
	struct world w;
};

FIXTURE_SETUP(refusal)
{
	CUmemAllocationProp mp = dev_prop(0, 0), mp1 = dev_prop(1, 0);
	struct world *w = &self->w;
	CUmulticastObjectProp p;

	memset(w, 0, sizeof(*w));
	MC_OR_SKIP(2);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&w->ctx, NULL, 0, 0));
	w->g = mc_gran();
	ASSERT_EQ(BINDSZ, w->g);	/* the rows' values assume it */
	ASSERT_CU(CUDA_SUCCESS, mc_team(&w->team2, 2, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_team(&w->team1, 1, MCSZ, 0));
	p = mc_prop(2, MCSZ, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&w->half, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(w->half, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&w->mem, 2 * BINDSZ, &mp, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&w->mem1, BINDSZ, &mp1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&w->gone, BINDSZ, &mp, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(w->gone));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(w->team2, 0, w->mem, 0,
						   w->g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&w->freed, 4 * w->g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(w->freed, 4 * w->g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&w->va, 4 * w->g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(w->va, w->g, 0, w->mem, 0));
}

FIXTURE_TEARDOWN(refusal)
{
	struct world *w = &self->w;

	if (!w->ctx)
		return;
	cuMulticastUnbind(w->team2, 0, 0, w->g);
	if (w->va) {
		cuMemUnmap(w->va, w->g);
		cuMemAddressFree(w->va, 4 * w->g);
	}
	cuMemRelease(w->mem);
	cuMemRelease(w->mem1);
	cuMemRelease(w->team2);
	cuMemRelease(w->team1);
	cuMemRelease(w->half);
	cuCtxDestroy(w->ctx);
}

TEST_F(refusal, multicast)
{
	size_t i;

	SETUP_SKIPPED();
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		check_refusal(_metadata, &refusals[i], &self->w);
}

TEST_F(refusal, vmm)
{
	size_t i;

	SETUP_SKIPPED();
	for (i = 0; i < sizeof(vmm_refusals) / sizeof(vmm_refusals[0]); i++)
		check_refusal(_metadata, &vmm_refusals[i], &self->w);
}

TEST_HARNESS_MAIN
