// SPDX-License-Identifier: GPL-2.0
/*
 * Every refusal says why (README, CUFAB_DEBUG): one table row per
 * refusal path of the multicast calls, the virtual memory calls
 * (reserve, map, access, retain, free, export), streams and their memory
 * operations, copies and sets (and a POSIX_FD import), events, memory
 * pools, logical endpoints, peer access, host registration, IPC memory
 * handles and graphs; and the requests only a raw ioctl makes (a GPU the
 * node lacks, malformed fields). Each row makes the refused call
 * and asserts (for those the library refuses itself, only its
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
#include "le_helpers.h"
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

	/* made by the test of the group that uses them */
	CUcontext ctx1, ctx_gone;	/* gpu 1; a destroyed one */
	CUstream st, st1, st_gone;	/* in ctx, in ctx1, destroyed */
	CUevent ev, ev_nt, ev_ipc, ev_gone;	/* timed, untimed, IPC, gone */
	unsigned char *host;		/* 2 pages of plain memory */
	CUmemoryPool pool, pool_small, defpool;
	CUlogicalEndpointId le;		/* le: unicast on gpu 0; le + 1 free */
	CUdeviceptr dmem;		/* cuMemAlloc */
	CUdeviceptr managed;		/* cuMemAllocManaged */
	void *pinned;			/* cuMemAllocHost */
	CUgraph graph, graph_gone;
	CUgraphNode node;
	size_t total;			/* gpu 0's memory */
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

static CUresult add_handle_zero(struct world *w)
{
	return cuMulticastAddDevice(0, 0);
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

static CUresult export_untyped(struct world *w)
{
	int fd = -1;

	return cuMemExportToShareableHandle(&fd, w->mem,
					    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
					    0);
}

static CUresult create_managed(struct world *w)
{
	CUmemAllocationProp mp = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;

	mp.type = CU_MEM_ALLOCATION_TYPE_MANAGED;
	return cuMemCreate(&h, w->g, &mp, 0);
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
	{ "export: type not requested", IV, "cuMemExportToShareableHandle",
	  "exporting it as CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR needs that type requested at cuMemCreate",
	  export_untyped },
	{ "create: managed type", CUDA_ERROR_NOT_SUPPORTED, "cuMemCreate", NULL,
	  create_managed,
	  "refused: type 2: only CU_MEM_ALLOCATION_TYPE_PINNED (1); MANAGED is not supported" },
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
	{ "add: handle 0", IV, "cuMulticastAddDevice", NULL, add_handle_zero,
	  "refused: handle 0x0: not a handle cuMulticastCreate or cuMemCreate returns" },
};

/* ---- streams ---- */

static CUresult stream_flags(struct world *w)
{
	CUstream s;

	return cuStreamCreate(&s, 0x4);
}

static CUresult stream_destroy_gone(struct world *w)
{
	return cuStreamDestroy(w->st_gone);
}

static CUresult stream_sync_gone(struct world *w)
{
	return cuStreamQuery(w->st_gone);
}

static CUresult wait32_misaligned(struct world *w)
{
	return cuStreamWaitValue32(w->st, (CUdeviceptr)(w->host + 2), 0, 0);
}

static CUresult wait32_cond(struct world *w)
{
	return cuStreamWaitValue32(w->st, (CUdeviceptr)w->host, 0, 0x4);
}

static CUresult wait32_flush(struct world *w)
{
	return cuStreamWaitValue32(w->st, (CUdeviceptr)w->host, 0,
				   CU_STREAM_WAIT_VALUE_FLUSH);
}

static CUresult write64_flags(struct world *w)
{
	return cuStreamWriteValue64(w->st, (CUdeviceptr)w->host, 1, 0x1);
}

static CUresult write64_misaligned(struct world *w)
{
	return cuStreamWriteValue64(w->st, (CUdeviceptr)(w->host + 4), 1, 0);
}

static CUresult batch_count(struct world *w)
{
	CUstreamBatchMemOpParams p[1];

	memset(p, 0, sizeof(p));
	return cuStreamBatchMemOp(w->st, 0, p, 0);
}

static CUresult batch_op(struct world *w)
{
	CUstreamBatchMemOpParams p[1];

	memset(p, 0, sizeof(p));
	p[0].operation = (CUstreamBatchMemOpType)99;
	return cuStreamBatchMemOp(w->st, 1, p, 0);
}

static CUresult batch_misaligned(struct world *w)
{
	CUstreamBatchMemOpParams p[2];

	memset(p, 0, sizeof(p));
	p[0].operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
	p[0].waitValue.address = (CUdeviceptr)(w->host + 1);
	p[1].operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	p[1].writeValue.address = (CUdeviceptr)w->host;
	return cuStreamBatchMemOp(w->st, 2, p, 0);
}

static const struct refusal stream_refusals[] = {
	{ "create: flags", IV, "cuStreamCreate", NULL, stream_flags,
	  "flags 0x4: must be CU_STREAM_DEFAULT (0x0) or CU_STREAM_NON_BLOCKING (0x1)" },
	{ "destroy: destroyed stream", CUDA_ERROR_INVALID_HANDLE,
	  "cuStreamDestroy", NULL, stream_destroy_gone,
	  ": not a stream this process created" },
	{ "query: destroyed stream", CUDA_ERROR_INVALID_HANDLE,
	  "cuStreamQuery", NULL, stream_sync_gone,
	  ": not a live stream of this process" },
	{ "wait value: misaligned", IV, "cuStreamWaitValue32",
	  "memory operation 0 of 1 (wait32) at", wait32_misaligned },
	{ "wait value: address rule", IV, "cuStreamWaitValue32",
	  "the address must be a user address aligned to the value's size",
	  wait32_misaligned },
	{ "wait value: condition", IV, "cuStreamWaitValue32", NULL,
	  wait32_cond,
	  "flags 0x4: must be CU_STREAM_WAIT_VALUE_GEQ, EQ, AND or NOR" },
	{ "wait value: flush", CUDA_ERROR_NOT_SUPPORTED, "cuStreamWaitValue32",
	  NULL, wait32_flush,
	  "CU_STREAM_WAIT_VALUE_FLUSH needs CAN_FLUSH_REMOTE_WRITES" },
	{ "write value: flags", IV, "cuStreamWriteValue64", NULL,
	  write64_flags, "flags 0x1: must be CU_STREAM_WRITE_VALUE_DEFAULT" },
	{ "write value: misaligned", IV, "cuStreamWriteValue64",
	  "memory operation 0 of 1 (write64) at", write64_misaligned },
	{ "batch: count 0", IV, "cuStreamBatchMemOp", NULL, batch_count,
	  "count 0, flags 0x0: count must be 1 .." },
	{ "batch: operation", IV, "cuStreamBatchMemOp", NULL, batch_op,
	  "operation 99: not a CUstreamBatchMemOpType" },
	{ "batch: misaligned entry", IV, "cuStreamBatchMemOp",
	  "memory operation 0 of 2 (wait32)", batch_misaligned },
};

/* ---- copies and sets (cuMemcpy*, cuMemset*) ---- */

#define WRAP_ADDR	((CUdeviceptr)-4096)	/* + 8192 wraps */

static CUresult memcpy_wrap(struct world *w)
{
	return cuMemcpy((CUdeviceptr)w->host, WRAP_ADDR, 8192);
}

static CUresult memset16_misaligned(struct world *w)
{
	return cuMemsetD16((CUdeviceptr)(w->host + 1), 0, 1);
}

static CUresult memset32_overflow(struct world *w)
{
	return cuMemsetD32((CUdeviceptr)w->host, 0, (size_t)1 << 62);
}

static CUresult memset8_wrap(struct world *w)
{
	return cuMemsetD8(WRAP_ADDR, 0, 8192);
}

static CUresult memcpy_async_wrap(struct world *w)
{
	return cuMemcpyAsync((CUdeviceptr)w->host, WRAP_ADDR, 8192, w->st);
}

static CUresult memset16_async_misaligned(struct world *w)
{
	return cuMemsetD16Async((CUdeviceptr)(w->host + 1), 0, 1, w->st);
}

static CUresult memset32_async_overflow(struct world *w)
{
	return cuMemsetD32Async((CUdeviceptr)w->host, 0, (size_t)1 << 62,
				w->st);
}

static CUresult import_not_dmabuf(struct world *w)
{
	CUmemGenericAllocationHandle h;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CUresult res;

	res = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	close(fd);
	return res;
}

static CUresult free_plain(struct world *w)
{
	return cuMemFree((CUdeviceptr)w->host);
}

static CUresult free_inside(struct world *w)
{
	return cuMemFree(w->dmem + 256);
}

static CUresult alloc_huge(struct world *w)
{
	CUdeviceptr p;

	return cuMemAlloc(&p, (size_t)1 << 62);
}

static CUresult advise_bad(struct world *w)
{
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };

	return cuMemAdvise_v2(w->managed, 4096, (CUmem_advise)99, loc);
}

/* the ranges a copy touches, checked before a byte moves (va.c) */
static CUresult memcpy_unmapped(struct world *w)
{
	return cuMemcpy(w->va + w->g, (CUdeviceptr)w->host, 4096);
}

/* the world's mapping: cuMemSetAccess never gave gpu 0 any access */
static CUresult memcpy_no_write(struct world *w)
{
	return cuMemcpy(w->va, (CUdeviceptr)w->host, 4096);
}

static CUresult memcpy_no_read(struct world *w)
{
	return cuMemcpy((CUdeviceptr)w->host, w->va, 4096);
}

#define NO_PAGE_ADDR	((CUdeviceptr)0x1000)	/* below mmap_min_addr */

static CUresult memcpy_no_page(struct world *w)
{
	return cuMemcpy((CUdeviceptr)w->host, NO_PAGE_ADDR, 16);
}

static CUresult alloc_zero(struct world *w)
{
	CUdeviceptr p;

	return cuMemAlloc(&p, 0);
}

/* more than gpu 0 has: a granule past its memory */
static CUresult alloc_past_capacity(struct world *w)
{
	CUdeviceptr p;

	return cuMemAlloc(&p, w->total + w->g);
}

static CUresult create_past_capacity(struct world *w)
{
	CUmemAllocationProp mp = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;

	return cuMemCreate(&h, (w->total / w->g + 1) * w->g, &mp, 0);
}

static const struct refusal memop_refusals[] = {
	{ "memcpy: range wraps", IV, "cuMemcpy",
	  "size 8192: a range wraps past the end of the address space",
	  memcpy_wrap },
	{ "memsetD16: misaligned", IV, "cuMemsetD16",
	  ": must be aligned to the 2-byte element", memset16_misaligned },
	{ "memsetD32: size overflows", IV, "cuMemsetD32",
	  "count 4611686018427387904: the size in bytes overflows 64 bits",
	  memset32_overflow },
	{ "memsetD8: range wraps", IV, "cuMemsetD8",
	  "dst 0xfffffffffffff000 size 8192: the range wraps past the end",
	  memset8_wrap },
	{ "memcpyAsync: range wraps", IV, "cuMemcpyAsync",
	  "size 8192: a range wraps past the end of the address space",
	  memcpy_async_wrap },
	{ "memsetD16Async: misaligned", IV, "cuMemsetD16Async",
	  "dst must be aligned to the 2-byte element",
	  memset16_async_misaligned },
	{ "memsetD32Async: size overflows", IV, "cuMemsetD32Async",
	  "count 4611686018427387904: the size in bytes overflows 64 bits",
	  memset32_async_overflow },
	{ "import: not a dma-buf", IV, "cuMemImportFromShareableHandle",
	  ": not a dma-buf, so not a POSIX_FD handle of a cufab allocation",
	  import_not_dmabuf },
	{ "free: plain memory", IV, "cuMemFree",
	  ": not the start of a live cuMemAlloc or cuMemAllocManaged allocation",
	  free_plain },
	{ "free: inside an allocation", IV, "cuMemFree",
	  ": not the start of a live cuMemAlloc or cuMemAllocManaged allocation",
	  free_inside },
	{ "alloc: past the address space", CUDA_ERROR_OUT_OF_MEMORY,
	  "cuMemAlloc",
	  "size 4611686018427387904: larger than the process address space",
	  alloc_huge },
	{ "advise: not an advice", IV, "cuMemAdvise",
	  "advice 99 location type ", advise_bad },
	{ "memcpy: reserved, not mapped", IV, "cuMemcpy",
	  "reserved (cuMemAddressReserve) but not mapped (cuMemMap)",
	  memcpy_unmapped },
	{ "memcpy: no write access", IV, "cuMemcpy",
	  ": the device has no write access there (cuMemSetAccess)",
	  memcpy_no_write },
	{ "memcpy: no read access", IV, "cuMemcpy",
	  ": the device has no read access there (cuMemSetAccess)",
	  memcpy_no_read },
	{ "memcpy: no page", IV, "cuMemcpy",
	  "at byte 0: no page there, or a read-only one to write",
	  memcpy_no_page },
	{ "alloc: past the GPU's memory", CUDA_ERROR_OUT_OF_MEMORY,
	  "cuMemAlloc", "on gpu 0: more than its free memory",
	  alloc_past_capacity },
	{ "create: past the GPU's memory", CUDA_ERROR_OUT_OF_MEMORY,
	  "cuMemCreate", "on gpu 0: more than its free memory",
	  create_past_capacity },
	{ "alloc: size 0", IV, "cuMemAlloc", NULL, alloc_zero,
	  "refused: bytesize 0: an allocation has a size" },
};

/* ---- events ---- */

static CUresult event_flags(struct world *w)
{
	CUevent e;

	return cuEventCreate(&e, 0x100);
}

static CUresult event_ipc_timed(struct world *w)
{
	CUevent e;

	return cuEventCreate(&e, CU_EVENT_INTERPROCESS);
}

static CUresult record_other_ctx(struct world *w)
{
	return cuEventRecord(w->ev, w->st1);
}

static CUresult record_flags(struct world *w)
{
	return cuEventRecordWithFlags(w->ev, w->st, 0x2);
}

static CUresult record_external(struct world *w)
{
	return cuEventRecordWithFlags(w->ev, w->st, CU_EVENT_RECORD_EXTERNAL);
}

static CUresult wait_event_flags(struct world *w)
{
	return cuStreamWaitEvent(w->st, w->ev, 0x2);
}

static CUresult event_sync_gone(struct world *w)
{
	return cuEventSynchronize(w->ev_gone);
}

static CUresult elapsed_untimed(struct world *w)
{
	float ms;

	return cuEventElapsedTime(&ms, w->ev_nt, w->ev_nt);
}

static CUresult elapsed_unrecorded(struct world *w)
{
	float ms;

	return cuEventElapsedTime(&ms, w->ev, w->ev);
}

static CUresult ipc_event_get(struct world *w)
{
	CUipcEventHandle h;

	return cuIpcGetEventHandle(&h, w->ev);
}

static CUresult ipc_event_open_forged(struct world *w)
{
	CUipcEventHandle h;
	CUevent e;

	memset(&h, 0x5a, sizeof(h));
	return cuIpcOpenEventHandle(&e, h);
}

static CUresult ipc_event_open_own(struct world *w)
{
	CUipcEventHandle h;
	CUevent e;

	if (cuIpcGetEventHandle(&h, w->ev_ipc))
		return CUDA_ERROR_UNKNOWN;
	return cuIpcOpenEventHandle(&e, h);
}

static const struct refusal event_refusals[] = {
	{ "create: flags", IV, "cuEventCreate", NULL, event_flags,
	  "Flags 0x100: unknown bits" },
	{ "create: interprocess and timed", IV, "cuEventCreate", NULL,
	  event_ipc_timed,
	  "Flags 0x4: CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING too" },
	{ "record: stream of another context", CUDA_ERROR_INVALID_HANDLE,
	  "cuEventRecord", NULL, record_other_ctx,
	  "an event records on its own context's streams" },
	{ "record: flags", IV, "cuEventRecordWithFlags", NULL, record_flags,
	  "flags 0x2: must be 0 or CU_EVENT_RECORD_EXTERNAL (0x1)" },
	{ "record: EXTERNAL outside a capture", IV, "cuEventRecordWithFlags",
	  NULL, record_external,
	  "flags 0x1: CU_EVENT_RECORD_EXTERNAL is for a stream being captured" },
	{ "stream wait: flags", IV, "cuStreamWaitEvent", NULL,
	  wait_event_flags,
	  "Flags 0x2: must be 0 or CU_EVENT_WAIT_EXTERNAL (0x1)" },
	{ "synchronize: destroyed event", CUDA_ERROR_INVALID_HANDLE,
	  "cuEventSynchronize", NULL, event_sync_gone,
	  ": not a live event of this process" },
	{ "elapsed: untimed event", CUDA_ERROR_INVALID_HANDLE,
	  "cuEventElapsedTime", NULL, elapsed_untimed,
	  ": created with CU_EVENT_DISABLE_TIMING: it has no time" },
	{ "elapsed: never recorded", CUDA_ERROR_INVALID_HANDLE,
	  "cuEventElapsedTime", NULL, elapsed_unrecorded,
	  ": never recorded: it has no time" },
	{ "ipc get: not interprocess", IV, "cuIpcGetEventHandle", NULL,
	  ipc_event_get, "created without CU_EVENT_INTERPROCESS" },
	{ "ipc open: forged handle", IV, "cuIpcOpenEventHandle",
	  "the handle names no exported event (-22): not an event handle of this module",
	  ipc_event_open_forged },
	{ "ipc open: own event", CUDA_ERROR_INVALID_CONTEXT,
	  "cuIpcOpenEventHandle",
	  "the handle names an event of this process: open it in another one",
	  ipc_event_open_own },
};

/* ---- memory pools ---- */

static CUmemPoolProps pool_props(int type, int dev)
{
	CUmemPoolProps p;

	memset(&p, 0, sizeof(p));
	p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = (CUmemLocationType)type;
	p.location.id = dev;
	return p;
}

static CUresult pool_create_managed(struct world *w)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0);
	CUmemoryPool pool;

	p.allocType = (CUmemAllocationType)2;	/* MANAGED */
	return cuMemPoolCreate(&pool, &p);
}

static CUresult pool_create_device(struct world *w)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 99);
	CUmemoryPool pool;

	return cuMemPoolCreate(&pool, &p);
}

static CUresult pool_create_host_fd(struct world *w)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_HOST, 0);
	CUmemoryPool pool;

	p.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return cuMemPoolCreate(&pool, &p);
}

static CUresult pool_create_reserved(struct world *w)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0);
	CUmemoryPool pool;

	p.reserved[3] = 1;
	return cuMemPoolCreate(&pool, &p);
}

static CUresult pool_attr(struct world *w, CUmemPool_attribute a,
			  cuuint64_t v)
{
	return cuMemPoolSetAttribute(w->pool, a, &v);
}

static CUresult pool_used_high(struct world *w)
{
	return pool_attr(w, CU_MEMPOOL_ATTR_USED_MEM_HIGH, 5);
}

static CUresult pool_reserved_cur(struct world *w)
{
	return pool_attr(w, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, 0);
}

static CUresult pool_reserved_high(struct world *w)
{
	return pool_attr(w, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 5);
}

static CUresult pool_attr_unknown(struct world *w)
{
	return pool_attr(w, (CUmemPool_attribute)99, 0);
}

static CUresult pool_access(struct world *w, int type, int dev,
			    unsigned int flags)
{
	CUmemAccessDesc d = {
		.location = { (CUmemLocationType)type, dev },
		.flags = (CUmemAccess_flags)flags,
	};

	return cuMemPoolSetAccess(w->pool, &d, 1);
}

static CUresult pool_access_own_none(struct world *w)
{
	return pool_access(w, CU_MEM_LOCATION_TYPE_DEVICE, 0,
			   CU_MEM_ACCESS_FLAGS_PROT_NONE);
}

static CUresult pool_access_read(struct world *w)
{
	return pool_access(w, CU_MEM_LOCATION_TYPE_DEVICE, 1,
			   CU_MEM_ACCESS_FLAGS_PROT_READ);
}

static CUresult pool_access_flags(struct world *w)
{
	return pool_access(w, CU_MEM_LOCATION_TYPE_DEVICE, 1, 7);
}

static CUresult pool_access_host(struct world *w)
{
	return pool_access(w, CU_MEM_LOCATION_TYPE_HOST, 0,
			   CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
}

static CUresult pool_export_type(struct world *w, unsigned int type)
{
	int fd = -1;

	return cuMemPoolExportToShareableHandle(&fd, w->pool,
						(CUmemAllocationHandleType)type,
						0);
}

static CUresult pool_export_fd(struct world *w)
{
	return pool_export_type(w, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
}

static CUresult pool_export_win32(struct world *w)
{
	return pool_export_type(w, CU_MEM_HANDLE_TYPE_WIN32);
}

static CUresult pool_import_devnull(struct world *w)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CUmemoryPool pool;
	CUresult r;

	r = cuMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)fd,
					       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
					       0);
	close(fd);
	return r;
}

static CUresult pool_export_ptr(struct world *w)
{
	CUmemPoolPtrExportData d;

	return cuMemPoolExportPointer(&d, w->dmem);
}

static CUresult pool_import_ptr(struct world *w)
{
	CUmemPoolPtrExportData d;
	CUdeviceptr p;

	memset(&d, 0, sizeof(d));
	return cuMemPoolImportPointer(&p, w->pool, &d);
}

static CUresult pool_destroy_default(struct world *w)
{
	return cuMemPoolDestroy(w->defpool);
}

static CUresult pool_past_max(struct world *w)
{
	CUdeviceptr p;

	return cuMemAllocFromPoolAsync(&p, 64 * MC_MIB, w->pool_small, w->st);
}

static const struct refusal pool_refusals[] = {
	{ "create: managed", IV, "cuMemPoolCreate",
	  "allocType 2: CUmemPoolProps.allocType must be CU_MEM_ALLOCATION_TYPE_PINNED",
	  pool_create_managed },
	{ "create: no such device", IV, "cuMemPoolCreate", NULL,
	  pool_create_device, "location device 99: no such device" },
	{ "create: exportable host pool", IV, "cuMemPoolCreate",
	  "a CU_MEM_LOCATION_TYPE_HOST pool cannot be exported (handleTypes 0x1)",
	  pool_create_host_fd },
	{ "create: reserved bytes", IV, "cuMemPoolCreate", NULL,
	  pool_create_reserved, "reserved[3] 0x1: must be 0" },
	{ "set attribute: used high", IV, "cuMemPoolSetAttribute", NULL,
	  pool_used_high, "(USED_MEM_HIGH) value 5: may only be reset to 0" },
	{ "set attribute: read-only", IV, "cuMemPoolSetAttribute", NULL,
	  pool_reserved_cur, "(RESERVED_MEM_CURRENT): read-only" },
	{ "set attribute: reserved high", IV, "cuMemPoolSetAttribute",
	  "value 5: a high-water mark may only be reset to 0",
	  pool_reserved_high },
	{ "set attribute: unknown", IV, "cuMemPoolSetAttribute", NULL,
	  pool_attr_unknown, "attribute 99: not a CUmemPool_attribute" },
	{ "set access: own device none", CUDA_ERROR_INVALID_DEVICE,
	  "cuMemPoolSetAccess", NULL, pool_access_own_none,
	  "device 0: PROT_NONE: it is the pool's location" },
	{ "set access: read", CUDA_ERROR_NOT_SUPPORTED, "cuMemPoolSetAccess",
	  NULL, pool_access_read,
	  "device 1: CU_MEM_ACCESS_FLAGS_PROT_READ: a pool's devices have read-write access or none" },
	{ "set access: flags", IV, "cuMemPoolSetAccess",
	  "flags 0x7: must be CU_MEM_ACCESS_FLAGS_PROT_NONE, READ or READWRITE",
	  pool_access_flags },
	{ "set access: host of a device pool", IV, "cuMemPoolSetAccess",
	  "the host is not a location of a device pool", pool_access_host },
	{ "export: type not requested", IV,
	  "cuMemPoolExportToShareableHandle",
	  "handle type 0x1 was not in its handleTypes", pool_export_fd },
	{ "export: type", IV, "cuMemPoolExportToShareableHandle", NULL,
	  pool_export_win32,
	  "handleType 0x2, flags 0x0: handleType must be POSIX_FILE_DESCRIPTOR (0x1) or FABRIC (0x8), flags 0" },
	{ "import: not a pool's fd", IV,
	  "cuMemPoolImportFromShareableHandle",
	  "handle type 0x1: the fd is not a memory pool's",
	  pool_import_devnull },
	{ "export pointer: not pool memory", IV, "cuMemPoolExportPointer",
	  NULL, pool_export_ptr,
	  "not the start of a live allocation from a memory pool" },
	{ "import pointer: pool not imported", IV, "cuMemPoolImportPointer",
	  NULL, pool_import_ptr, "not an imported pool" },
	{ "destroy: default pool", IV, "cuMemPoolDestroy", NULL,
	  pool_destroy_default, "a device's default pool cannot be destroyed" },
	{ "alloc: past maxSize", CUDA_ERROR_OUT_OF_MEMORY,
	  "cuMemAllocFromPoolAsync", "bytes exceeds its maxSize",
	  pool_past_max },
};

/* ---- logical endpoints ---- */

static CUresult le_release_unreserved(struct world *w)
{
	return cuLogicalEndpointIdRelease(w->le + 1, 2);
}

static CUresult le_release_associated(struct world *w)
{
	return cuLogicalEndpointIdRelease(w->le, 1);
}

static CUresult le_create_prop(struct world *w, CUlogicalEndpointId id,
			       int type, unsigned long long size)
{
	CUlogicalEndpointProp p = {
		.type = (CUlogicalEndpointType)type,
		.unicast.device = 0, .size = size,
	};

	return cuLogicalEndpointCreate(id, &p);
}

static CUresult le_create_type(struct world *w)
{
	return le_create_prop(w, w->le + 1, 3, 64 * MC_MIB);
}

static CUresult le_create_size(struct world *w)
{
	return le_create_prop(w, w->le + 1, CU_LOGICAL_ENDPOINT_TYPE_UNICAST,
			      4096);
}

static CUresult le_create_associated(struct world *w)
{
	return le_create_prop(w, w->le, CU_LOGICAL_ENDPOINT_TYPE_UNICAST,
			      64 * MC_MIB);
}

static CUresult le_limits_devices(struct world *w)
{
	CUlogicalEndpointProp p = {
		.type = CU_LOGICAL_ENDPOINT_TYPE_MULTICAST,
		.multicast.numDevices = 99, .size = 64 * MC_MIB,
	};
	cuuint64_t a, m;

	return cuLogicalEndpointGetLimits(&a, &m, &p);
}

static CUresult le_destroy_free(struct world *w)
{
	return cuLogicalEndpointDestroy(w->le + 1);
}

static CUresult le_add_unicast(struct world *w)
{
	return cuLogicalEndpointAddDevice(w->le, 0);
}

static CUresult le_bind_unqueried(struct world *w)
{
	return cuLogicalEndpointBindMem(w->le, 0, 0, w->mem, 0, BINDSZ, 0);
}

static CUresult le_bind_flags(struct world *w)
{
	return cuLogicalEndpointBindMem(w->le, 0, 0, w->mem, 0, BINDSZ, 1);
}

static CUresult le_export_type(struct world *w, unsigned int type)
{
	CUlogicalEndpointFabricHandle fh;

	return cuLogicalEndpointExport(&fh, w->le,
				       (CUlogicalEndpointIpcHandleType)type);
}

static CUresult le_export_plain(struct world *w)
{
	return le_export_type(w, FABRIC);
}

static CUresult le_export_type2(struct world *w)
{
	return le_export_type(w, 2);
}

static CUresult le_query_zero(struct world *w)
{
	int ready;

	return cuLogicalEndpointQuery(0, 1, &ready);
}

static const struct refusal le_refusals[] = {
	{ "id release: not reserved", IV, "cuLogicalEndpointIdRelease",
	  "not every id of the range is reserved", le_release_unreserved },
	{ "id release: still associated", IV, "cuLogicalEndpointIdRelease",
	  "cuLogicalEndpointDestroy every id first", le_release_associated },
	{ "create: type", IV, "cuLogicalEndpointCreate",
	  "type 3 is neither UNICAST (1) nor MULTICAST (2)", le_create_type },
	{ "create: size", IV, "cuLogicalEndpointCreate",
	  "size 0x1000 must be a non-zero multiple of the bind alignment",
	  le_create_size },
	{ "create: id associated", IV, "cuLogicalEndpointCreate",
	  "is already associated with an endpoint (cuLogicalEndpointDestroy it first)",
	  le_create_associated },
	{ "limits: numDevices", IV, "cuLogicalEndpointGetLimits",
	  "numDevices 99 is not 1..", le_limits_devices },
	{ "destroy: no endpoint", IV, "cuLogicalEndpointDestroy",
	  "is not associated with an endpoint (reserved, never created or imported, or destroyed)",
	  le_destroy_free },
	{ "add device: unicast", IV, "cuLogicalEndpointAddDevice",
	  "is unicast; only multicast endpoints take devices", le_add_unicast },
	{ "bind: not queried ready", IV, "cuLogicalEndpointBindMem",
	  "was not reported ready by cuLogicalEndpointQuery yet",
	  le_bind_unqueried },
	{ "bind: flags", IV, "cuLogicalEndpointBindMem",
	  "flags 0x1 must be 0", le_bind_flags },
	{ "export: handle type", IV, "cuLogicalEndpointExport",
	  "handle type 2 is not CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC (1), the only one",
	  le_export_type2 },
	{ "query: id 0", IV, "cuLogicalEndpointQuery",
	  "ids 0 +1: not a range of endpoint ids", le_query_zero },
};

/* With the IMEX channel a FABRIC export needs. */
static const struct refusal le_fabric_refusals[] = {
	{ "export: not exportable", IV, "cuLogicalEndpointExport",
	  "was created with ipcHandleTypes 0x0, without FABRIC (0x1)",
	  le_export_plain },
};

/* ---- contexts and peer access ---- */

static CUresult peer_self(struct world *w)
{
	return cuCtxEnablePeerAccess(w->ctx, 0);
}

static CUresult peer_flags(struct world *w)
{
	return cuCtxEnablePeerAccess(w->ctx1, 1);
}

static CUresult peer_disable_off(struct world *w)
{
	return cuCtxDisablePeerAccess(w->ctx1);
}

static CUresult peer_gone(struct world *w)
{
	return cuCtxEnablePeerAccess(w->ctx_gone, 0);
}

/* the first enable succeeds (or, when the row is retried, is refused) */
static CUresult peer_twice(struct world *w)
{
	cuCtxEnablePeerAccess(w->ctx1, 0);
	return cuCtxEnablePeerAccess(w->ctx1, 0);
}

static const struct refusal peer_refusals[] = {
	{ "enable: own context", CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
	  "cuCtxEnablePeerAccess", "cannot be its own peer", peer_self },
	{ "enable: flags", IV, "cuCtxEnablePeerAccess",
	  "Flags 0x1, must be 0", peer_flags },
	{ "disable: not enabled", CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
	  "cuCtxDisablePeerAccess", "peer access is not enabled",
	  peer_disable_off },
	{ "enable: destroyed context", CUDA_ERROR_INVALID_CONTEXT,
	  "cuCtxEnablePeerAccess", NULL, peer_gone,
	  ": not a live context of this process" },
	{ "enable: twice", CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
	  "cuCtxEnablePeerAccess", ": already enabled", peer_twice },
};

/* ---- host registration ---- */

static CUresult hostreg_twice(struct world *w)
{
	return cuMemHostRegister(w->host, 4096, 0);
}

static CUresult hostreg_unregister_none(struct world *w)
{
	return cuMemHostUnregister(w->host + 4096);
}

static CUresult hostreg_pinned(struct world *w)
{
	return cuMemHostRegister(w->pinned, 4096, 0);
}

static CUresult hostreg_vmm(struct world *w)
{
	return cuMemHostRegister((void *)(uintptr_t)w->va, 4096, 0);
}

static CUresult hostreg_iomem(struct world *w)
{
	return cuMemHostRegister(w->host + 4096, 4096,
				 CU_MEMHOSTREGISTER_IOMEMORY);
}

static CUresult hostreg_flags(struct world *w)
{
	return cuMemHostRegister(w->host + 4096, 4096, 0x100);
}

static CUresult host_flags_null(struct world *w)
{
	return cuMemHostGetFlags(NULL, w->pinned);
}

/* a page the registration cannot pin for writing */
static CUresult hostreg_read_only(struct world *w)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	CUresult r;

	if (p == MAP_FAILED)
		return CUDA_ERROR_UNKNOWN;
	r = cuMemHostRegister(p, 4096, 0);
	if (r == CUDA_SUCCESS)
		cuMemHostUnregister(p);
	munmap(p, 4096);
	return r;
}

static const struct refusal hostreg_refusals[] = {
	{ "register: twice", CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
	  "cuMemHostRegister", "size 0x1000: a page of it is registered already",
	  hostreg_twice },
	{ "unregister: not registered", CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
	  "cuMemHostUnregister", ": no registration starts there",
	  hostreg_unregister_none },
	{ "register: cuMemAllocHost memory",
	  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "cuMemHostRegister",
	  "cuMemHostAlloc memory is registered already", hostreg_pinned },
	{ "register: VMM memory", IV, "cuMemHostRegister",
	  "cufab device, managed or VMM memory is not host memory",
	  hostreg_vmm },
	{ "register: IOMEMORY of plain memory", IV, "cuMemHostRegister",
	  "with CU_MEMHOSTREGISTER_IOMEMORY: ordinary memory is not I/O space",
	  hostreg_iomem },
	{ "register: flags", IV, "cuMemHostRegister", NULL, hostreg_flags,
	  "Flags 0x100: unknown bits" },
	{ "get flags: NULL pointer", IV, "cuMemHostGetFlags", NULL,
	  host_flags_null, "refused: arguments: pFlags && p: must hold" },
	{ "register: read-only memory", IV, "cuMemHostRegister",
	  "a page of it is not mapped, or read-only and CU_MEMHOSTREGISTER_READ_ONLY not given",
	  hostreg_read_only },
};

/* ---- IPC memory handles ---- */

static CUresult ipc_open_forged(struct world *w)
{
	CUipcMemHandle h;
	CUdeviceptr p;

	memset(&h, 0x5a, sizeof(h));
	return cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
}

static CUresult ipc_open_own(struct world *w)
{
	CUipcMemHandle h;
	CUdeviceptr p;

	if (cuIpcGetMemHandle(&h, w->dmem))
		return CUDA_ERROR_UNKNOWN;
	return cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
}

static CUresult ipc_open_flags(struct world *w)
{
	CUipcMemHandle h;
	CUdeviceptr p;

	memset(&h, 0, sizeof(h));
	return cuIpcOpenMemHandle(&p, h, 0);
}

static CUresult ipc_get_plain(struct world *w)
{
	CUipcMemHandle h;

	return cuIpcGetMemHandle(&h, (CUdeviceptr)w->host);
}

static CUresult ipc_get_pinned(struct world *w)
{
	CUipcMemHandle h;

	return cuIpcGetMemHandle(&h, (CUdeviceptr)w->pinned);
}

static CUresult ipc_close_unopened(struct world *w)
{
	return cuIpcCloseMemHandle(w->dmem);
}

static CUresult ipc_get_null(struct world *w)
{
	return cuIpcGetMemHandle(NULL, w->dmem);
}

static const struct refusal ipc_refusals[] = {
	{ "open: forged handle", IV, "cuIpcOpenMemHandle",
	  "the handle: not an IPC memory handle of this module",
	  ipc_open_forged },
	{ "open: own allocation", CUDA_ERROR_INVALID_CONTEXT,
	  "cuIpcOpenMemHandle",
	  "is this process's own: open it in another process", ipc_open_own },
	{ "open: flags", IV, "cuIpcOpenMemHandle", NULL, ipc_open_flags,
	  "Flags 0x0: must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (0x1)" },
	{ "get: plain memory", IV, "cuIpcGetMemHandle",
	  ": not cufab memory of this process", ipc_get_plain },
	{ "get: cuMemAllocHost memory", IV, "cuIpcGetMemHandle",
	  ": not cuMemAlloc device memory", ipc_get_pinned },
	{ "close: never opened", IV, "cuIpcCloseMemHandle", NULL,
	  ipc_close_unopened,
	  ": not an address cuIpcOpenMemHandle returned in this process" },
	{ "get: NULL handle pointer", IV, "cuIpcGetMemHandle", NULL,
	  ipc_get_null, "refused: arguments: pHandle: must hold" },
};

/* ---- graphs ---- */

static CUresult graph_kernel_node(struct world *w)
{
	CUDA_KERNEL_NODE_PARAMS p;
	CUgraphNode n;

	memset(&p, 0, sizeof(p));
	return cuGraphAddKernelNode(&n, w->graph, NULL, 0, &p);
}

static CUresult graph_gone(struct world *w)
{
	CUgraphNode n;

	return cuGraphAddEmptyNode(&n, w->graph_gone, NULL, 0);
}

static CUresult graph_dep_twice(struct world *w)
{
	CUgraphNode deps[2] = { w->node, w->node }, n;

	return cuGraphAddEmptyNode(&n, w->graph, deps, 2);
}

static void graph_host_fn(void *arg)
{
	(void)arg;
}

/* three host nodes against a stream_queue_max of 2 */
static CUresult graph_past_queue_max(struct world *w)
{
	CUDA_HOST_NODE_PARAMS hp = { .fn = graph_host_fn };
	long saved = cufab_param("stream_queue_max");
	CUgraphExec x;
	CUgraphNode n;
	CUgraph g;
	CUresult r;
	int i;

	if (saved < 0 || cuGraphCreate(&g, 0))
		return CUDA_ERROR_UNKNOWN;
	for (i = 0; i < 3; i++)
		cuGraphAddHostNode(&n, g, NULL, 0, &hp);
	r = cuGraphInstantiate(&x, g, 0);
	if (r == CUDA_SUCCESS) {
		cufab_param_set_u("stream_queue_max", 2);
		r = cuGraphLaunch(x, w->st);
		cufab_param_set_u("stream_queue_max", (unsigned int)saved);
		cuGraphExecDestroy(x);
	}
	cuGraphDestroy(g);
	return r;
}

/* the library's argument check: its line names the arguments */
static CUresult graph_create_null(struct world *w)
{
	return cuGraphCreate(NULL, 0);
}

static const struct refusal graph_refusals[] = {
	{ "create: NULL graph pointer", IV, "cuGraphCreate", NULL,
	  graph_create_null, "refused: arguments: phGraph && !flags: must hold" },
	{ "add kernel node", IV, "cuGraphAddKernelNode", NULL,
	  graph_kernel_node, ": cufab runs no device code" },
	{ "add node: destroyed graph", IV, "cuGraphAddEmptyNode", NULL,
	  graph_gone, ": not a live graph of this process" },
	{ "add node: dependency twice", IV, "cuGraphAddEmptyNode", NULL,
	  graph_dep_twice, "): listed twice" },
	{ "launch: more than the queue bound", IV, "cuGraphLaunch",
	  "3 operations: more than stream_queue_max (2) can ever be queued",
	  graph_past_queue_max },
};

/* ---- requests no library call sends: the kernel's rules below it ---- */

struct raw_refusal {
	const char *name;
	int want;		/* errno */
	const char *call;
	const char *rule;
	int (*fn)(int fd);
};

#define NO_GPU	99

static int raw_copy_no_gpu(int fd)
{
	char buf[16] = { 0 };
	struct cufab_mem_copy c = {
		.size = sizeof(c), .dev = NO_GPU, .dst = (uintptr_t)buf,
		.src = (uintptr_t)(buf + 8), .length = 8,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_COPY, &c);
}

static int raw_set_no_gpu(int fd)
{
	char buf[16];
	struct cufab_mem_set c = {
		.size = sizeof(c), .dev = NO_GPU, .elem_size = 1,
		.dst = (uintptr_t)buf, .count = sizeof(buf),
	};

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_SET, &c);
}

static int raw_get_info_no_gpu(int fd)
{
	struct cufab_mem_get_info c = { .size = sizeof(c), .dev = NO_GPU };

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_GET_INFO, &c);
}

static int raw_alloc_no_gpu(int fd)
{
	struct cufab_mem_alloc c = {
		.size = sizeof(c), .dev = NO_GPU, .length = 4096,
	};

	return cufab_ioc(fd, CUFAB_IOCTL_MEM_ALLOC, &c);
}

static int raw_create(int fd, __u32 type, __s32 id, __u64 length)
{
	struct cufab_mem_create c = {
		.size = sizeof(c), .location_type = type, .location_id = id,
		.length = length,
	};
	int ret = cufab_ioc(fd, CUFAB_IOCTL_MEM_CREATE, &c);

	if (!ret)
		mem_release(fd, c.out_handle);
	return ret;
}

static int raw_create_no_gpu(int fd)
{
	return raw_create(fd, CU_MEM_LOCATION_TYPE_DEVICE, NO_GPU, BINDSZ);
}

static int raw_create_type(int fd)
{
	return raw_create(fd, 9, 0, BINDSZ);
}

static int raw_create_empty(int fd)
{
	return raw_create(fd, CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
}

static int raw_pointer_flags(int fd)
{
	struct cufab_pointer_info c = { .size = sizeof(c), .flags = 1 };

	return cufab_ioc(fd, CUFAB_IOCTL_POINTER_INFO, &c);
}

static const struct raw_refusal raw_refusals[] = {
	{ "copy: no such GPU", ENODEV, "cuMemcpy",
	  "gpu 99: no such GPU on this node", raw_copy_no_gpu },
	{ "set: no such GPU", ENODEV, "cuMemsetD8",
	  "gpu 99: no such GPU on this node", raw_set_no_gpu },
	{ "get info: no such GPU", ENODEV, "cuMemGetInfo",
	  "gpu 99: no such GPU on this node", raw_get_info_no_gpu },
	{ "alloc: no such GPU", ENODEV, "cuMemAlloc",
	  "gpu 99: no such GPU on this node", raw_alloc_no_gpu },
	{ "create: no such GPU", ENODEV, "cuMemCreate",
	  "size 0x200000 on gpu 99: no such GPU on this node",
	  raw_create_no_gpu },
	{ "create: location type", EINVAL, "cuMemCreate",
	  "location type 9: must be DEVICE, HOST or HOST_NUMA",
	  raw_create_type },
	{ "create: size 0", EINVAL, "cuMemCreate", "size 0: must be non-zero",
	  raw_create_empty },
	{ "pointer info: flags", EINVAL, "cuPointerGetAttribute",
	  "flags 0x1: flags and reserved fields must be 0", raw_pointer_flags },
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

/*
 * Does @dbg hold a line "...: <call>[_vN]: refused: ...<rule>..."? The
 * library names the symbol the program called, cuda.h's _v2 included; a
 * NULL @rule asks for the refusal alone.
 */
static int dbg_has(const char *dbg, const char *call, const char *rule)
{
	size_t len = strlen(call);
	const char *p = dbg, *q, *eol;

	while ((p = strstr(p, call))) {
		q = p + len;
		p = q;
		if (q - len < dbg + 2 || strncmp(q - len - 2, ": ", 2))
			continue;
		if (q[0] == '_' && q[1] == 'v' && q[2] >= '0' && q[2] <= '9')
			q += 3;
		if (strncmp(q, ": refused: ", 11))
			continue;
		if (!rule)
			return 1;
		eol = strchr(q, '\n');
		q = strstr(q, rule);
		if (q && (!eol || q < eol))
			return 1;
	}
	return 0;
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

/* A refused call and its expectations, made with /dev/kmsg watched. */
typedef void (*refuse_fn)(struct __test_metadata *_metadata, const void *row,
			  void *ctx);

/*
 * Make the refused call with /dev/kmsg read from its end and look for this
 * process's line naming @callname and @rule. The kernel's lines are
 * rate-limited per call site, so a line printed by an earlier row may hide
 * this one: try once more after one interval.
 */
static void check_kmsg_line(struct __test_metadata *_metadata,
			    const char *name, const char *callname,
			    const char *rule, refuse_fn refuse,
			    const void *row, void *ctx)
{
	char who[64], call[96];
	const char *needles[] = { who, call, rule };
	int try, kmsg, seen = 0;

	snprintf(who, sizeof(who), "cufab: pid %d (", (int)getpid());
	snprintf(call, sizeof(call), "): %s: ", callname);
	for (try = 0; try < 2 && !seen; try++) {
		if (try)
			sleep(6);	/* one rate-limit interval */
		kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, kmsg);
		lseek(kmsg, 0, SEEK_END);
		refuse(_metadata, row, ctx);
		seen = kmsg_has(kmsg, needles, 3);
		close(kmsg);
	}
	EXPECT_TRUE(seen) TH_LOG("%s: no kernel line \"%s...%s\"", name,
				 call, rule);
}

struct refusal_ctx {
	struct world *w;
	char dbg[8192];		/* the library's CUFAB_DEBUG output */
};

static void refuse_row(struct __test_metadata *_metadata, const void *row,
		       void *ctx)
{
	const struct refusal *r = row;
	struct refusal_ctx *c = ctx;

	EXPECT_CU(r->want, call_captured(r, c->w, c->dbg, sizeof(c->dbg)))
		TH_LOG("%s", r->name);
}

/* One row: the result, the kernel's line, the library's line. */
static void check_refusal(struct __test_metadata *_metadata,
			  const struct refusal *r, struct world *w)
{
	struct refusal_ctx c = { .w = w };

	if (r->lib_rule) {
		refuse_row(_metadata, r, &c);
		EXPECT_TRUE(dbg_has(c.dbg, r->call, r->lib_rule))
			TH_LOG("%s: CUFAB_DEBUG said \"%s\"", r->name, c.dbg);
		return;
	}
	check_kmsg_line(_metadata, r->name, r->call, r->rule, refuse_row, r,
			&c);
	EXPECT_TRUE(dbg_has(c.dbg, r->call, NULL))
		TH_LOG("%s: CUFAB_DEBUG said \"%s\"", r->name, c.dbg);
}

static void refuse_raw(struct __test_metadata *_metadata, const void *row,
		       void *ctx)
{
	const struct raw_refusal *r = row;

	EXPECT_EQ(r->want, r->fn(*(int *)ctx)) TH_LOG("%s", r->name);
}

/* One raw row: the errno and the kernel's line; no library is involved. */
static void check_raw(struct __test_metadata *_metadata,
		      const struct raw_refusal *r, int fd)
{
	check_kmsg_line(_metadata, r->name, r->call, r->rule, refuse_raw, r,
			&fd);
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

#define RUN_TABLE(t) do {						\
	size_t __i;							\
									\
	for (__i = 0; __i < sizeof(t) / sizeof((t)[0]); __i++)		\
		check_refusal(_metadata, &(t)[__i], &self->w);		\
} while (0)

/* Two streams (ctx and a context on gpu 1), a destroyed one, plain memory. */
static int streams_make(struct world *w)
{
	CUstream gone;

	w->host = aligned_alloc(4096, 2 * 4096);
	if (!w->host || cuStreamCreate(&w->st, CU_STREAM_NON_BLOCKING) ||
	    cuStreamCreate(&gone, 0) || cuStreamDestroy(gone) ||
	    cuCtxCreate(&w->ctx1, NULL, 0, 1) ||
	    cuStreamCreate(&w->st1, 0) || cuCtxSetCurrent(w->ctx))
		return -1;
	memset(w->host, 0, 2 * 4096);
	w->st_gone = gone;
	return 0;
}

static void streams_drop(struct world *w)
{
	if (w->st1)
		cuStreamDestroy(w->st1);
	if (w->ctx1)
		cuCtxDestroy(w->ctx1);
	if (w->st) {
		cuStreamSynchronize(w->st);
		cuStreamDestroy(w->st);
	}
	cuCtxSetCurrent(w->ctx);
	free(w->host);
}

TEST_F(refusal, streams)
{
	SETUP_SKIPPED();
	ASSERT_EQ(0, streams_make(&self->w));
	RUN_TABLE(stream_refusals);
	streams_drop(&self->w);
}

TEST_F(refusal, memops)
{
	SETUP_SKIPPED();
	ASSERT_EQ(0, streams_make(&self->w));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&self->w.total, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&self->w.dmem, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocManaged(&self->w.managed, 4096,
						  CU_MEM_ATTACH_GLOBAL));
	RUN_TABLE(memop_refusals);
	cuMemFree(self->w.managed);
	cuMemFree(self->w.dmem);
	streams_drop(&self->w);
}

TEST_F(refusal, events)
{
	struct world *w = &self->w;
	CUevent gone;

	SETUP_SKIPPED();
	ASSERT_EQ(0, streams_make(w));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&w->ev, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&w->ev_nt,
					      CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&w->ev_ipc,
					      CU_EVENT_INTERPROCESS |
					      CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&gone, 0));
	ASSERT_CU(CUDA_SUCCESS, cuEventDestroy(gone));
	w->ev_gone = gone;
	RUN_TABLE(event_refusals);
	cuEventDestroy(w->ev);
	cuEventDestroy(w->ev_nt);
	cuEventDestroy(w->ev_ipc);
	streams_drop(w);
}

TEST_F(refusal, pools)
{
	CUmemPoolProps p = pool_props(CU_MEM_LOCATION_TYPE_DEVICE, 0);
	struct world *w = &self->w;

	SETUP_SKIPPED();
	ASSERT_EQ(0, streams_make(w));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&w->pool, &p));
	p.maxSize = BINDSZ;
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolCreate(&w->pool_small, &p));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetDefaultMemPool(&w->defpool, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&w->dmem, 4096));
	RUN_TABLE(pool_refusals);
	cuMemFree(w->dmem);
	cuMemPoolDestroy(w->pool_small);
	cuMemPoolDestroy(w->pool);
	streams_drop(w);
}

TEST_F(refusal, endpoints)
{
	struct world *w = &self->w;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&w->le, 2));
	ASSERT_CU(CUDA_SUCCESS, le_create_prop(w, w->le,
					       CU_LOGICAL_ENDPOINT_TYPE_UNICAST,
					       64 * MC_MIB));
	RUN_TABLE(le_refusals);
	if (le_channel0() == 0)
		RUN_TABLE(le_fabric_refusals);
	else
		TH_LOG("no IMEX channel region: the FABRIC export row is skipped");
	imex_cleanup();
	cuLogicalEndpointDestroy(w->le);
	cuLogicalEndpointIdRelease(w->le, 2);
}

TEST_F(refusal, peer)
{
	struct world *w = &self->w;
	CUcontext gone;
	int can = 0;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, 0, 1));
	ASSERT_EQ(1, can);	/* the rows' node: gpu 0 reaches gpu 1 */
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&w->ctx1, NULL, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&gone, NULL, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(gone));
	w->ctx_gone = gone;
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(w->ctx));
	RUN_TABLE(peer_refusals);
	cuCtxDisablePeerAccess(w->ctx1);
	cuCtxDestroy(w->ctx1);
	cuCtxSetCurrent(w->ctx);
}

TEST_F(refusal, hostreg)
{
	struct world *w = &self->w;

	SETUP_SKIPPED();
	w->host = aligned_alloc(4096, 2 * 4096);
	ASSERT_NE(NULL, w->host);
	memset(w->host, 0, 2 * 4096);
	ASSERT_CU(CUDA_SUCCESS, cuMemHostRegister(w->host, 4096, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&w->pinned, 4096));
	RUN_TABLE(hostreg_refusals);
	cuMemFreeHost(w->pinned);
	cuMemHostUnregister(w->host);
	free(w->host);
}

TEST_F(refusal, ipc_mem)
{
	struct world *w = &self->w;

	SETUP_SKIPPED();
	w->host = aligned_alloc(4096, 2 * 4096);
	ASSERT_NE(NULL, w->host);
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&w->dmem, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocHost(&w->pinned, 4096));
	RUN_TABLE(ipc_refusals);
	cuMemFreeHost(w->pinned);
	cuMemFree(w->dmem);
	free(w->host);
}

TEST_F(refusal, graphs)
{
	struct world *w = &self->w;
	CUgraph gone;

	SETUP_SKIPPED();
	ASSERT_EQ(0, streams_make(w));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&w->graph, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphAddEmptyNode(&w->node, w->graph,
						    NULL, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphCreate(&gone, 0));
	ASSERT_CU(CUDA_SUCCESS, cuGraphDestroy(gone));
	w->graph_gone = gone;
	RUN_TABLE(graph_refusals);
	cuGraphDestroy(w->graph);
	streams_drop(w);
}

TEST_F(refusal, raw)
{
	int fd;
	size_t i;

	SETUP_SKIPPED();
	fd = cufab_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(raw_refusals) / sizeof(raw_refusals[0]); i++)
		check_raw(_metadata, &raw_refusals[i], fd);
	close(fd);
}

TEST_HARNESS_MAIN
