/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * cufab: software emulation of the CUDA driver's fabric-memory API.
 *
 * This header is the whole contract between cufab.ko, libcufab and
 * cufabctl: the /dev/cufab ioctls and the "cufab" generic netlink family.
 *
 * Rules (modelled on iommufd):
 *  - one ioctl per operation; every struct starts with __u32 size, set by
 *    the caller to sizeof(the struct it was compiled with). The kernel
 *    copies it with copy_struct_from_user(): a size shorter than the
 *    struct's first version is -EINVAL, a longer one whose unknown tail is
 *    not zero is -E2BIG. Structs only grow at the end.
 *  - reserved fields and unknown flag bits must be zero (-EINVAL).
 *  - every pointer, size and handle is a __u64; no kernel pointer leaves
 *    the kernel.
 *  - an open file of /dev/cufab is a client bound to the process that
 *    opened it; any other process (a forked child included) gets -EBADF.
 *  - objects a client creates are named by small __u32 ids, never 0.
 */
#ifndef _UAPI_LINUX_CUFAB_H
#define _UAPI_LINUX_CUFAB_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define CUFAB_DEVICE_NAME		"cufab"
#define CUFAB_DEVICE_PATH		"/dev/cufab"

/*
 * Interface version. MAJOR changes when an existing ioctl changes meaning;
 * the library refuses a kernel with a different MAJOR. MINOR grows with
 * new ioctls and appended fields; the library needs at least the MINOR it
 * was built with.
 */
#define CUFAB_VERSION_MAJOR		1
#define CUFAB_VERSION_MINOR		10

/* Limits of the virtual node. */
#define CUFAB_MAX_GPUS			64
#define CUFAB_NAME_LEN			64
#define CUFAB_UUID_LEN			16
/* Device attributes are indexed by CUdevice_attribute; 1..159 are known. */
#define CUFAB_NUM_DEVICE_ATTRS		160

#define CUFAB_TYPE			0xCF
#define CUFAB_CMD_BASE			0x80

enum {
	CUFAB_CMD_GET_VERSION = CUFAB_CMD_BASE,
	CUFAB_CMD_NOOP,
	CUFAB_CMD_DESTROY,
	CUFAB_CMD_DEVICE_INFO,
	CUFAB_CMD_CTX_CREATE,
	CUFAB_CMD_IMEX_SET_CHANNEL,
	CUFAB_CMD_MEM_CREATE,
	CUFAB_CMD_MEM_RELEASE,
	CUFAB_CMD_MEM_RETAIN,
	CUFAB_CMD_MEM_GET_PROPS,
	CUFAB_CMD_MEM_GET_INFO,
	CUFAB_CMD_VA_RESERVE,
	CUFAB_CMD_VA_FREE,
	CUFAB_CMD_MEM_MAP,
	CUFAB_CMD_MEM_UNMAP,
	CUFAB_CMD_MEM_SET_ACCESS,
	CUFAB_CMD_MEM_GET_ACCESS,
	CUFAB_CMD_MEM_ALLOC,
	CUFAB_CMD_MEM_FREE,
	CUFAB_CMD_MEM_COPY,
	CUFAB_CMD_MEM_SET,
	CUFAB_CMD_POINTER_INFO,
	CUFAB_CMD_MEM_EXPORT,
	CUFAB_CMD_MEM_IMPORT,
	CUFAB_CMD_LE_ID_RESERVE,
	CUFAB_CMD_LE_ID_RELEASE,
	CUFAB_CMD_LE_CREATE,
	CUFAB_CMD_LE_DESTROY,
	CUFAB_CMD_LE_ADD_DEVICE,
	CUFAB_CMD_LE_QUERY,
	CUFAB_CMD_LE_GET_LIMITS,
	CUFAB_CMD_LE_BIND,
	CUFAB_CMD_LE_UNBIND,
	CUFAB_CMD_LE_EXPORT,
	CUFAB_CMD_LE_IMPORT,
	CUFAB_CMD_MC_CREATE,
	CUFAB_CMD_MC_ADD_DEVICE,
	CUFAB_CMD_MC_BIND,
	CUFAB_CMD_MC_UNBIND,
	CUFAB_CMD_MULTIMEM,
	CUFAB_CMD_PEER_ENABLE,
	CUFAB_CMD_PEER_DISABLE,
	CUFAB_CMD_STREAM_CREATE,
	CUFAB_CMD_EVENT_CREATE,
	CUFAB_CMD_STREAM_SUBMIT,
	CUFAB_CMD_STREAM_WAIT,
	CUFAB_CMD_HOSTFN,
	CUFAB_CMD_POOL_CREATE,
	CUFAB_CMD_POOL_ATTR,
	CUFAB_CMD_POOL_GROW,
	CUFAB_CMD_POOL_SHRINK,
	CUFAB_CMD_POOL_SET_ACCESS,
	CUFAB_CMD_POOL_GET_ACCESS,
	CUFAB_CMD_POOL_EXPORT,
	CUFAB_CMD_POOL_IMPORT,
	CUFAB_CMD_POOL_PTR_EXPORT,
	CUFAB_CMD_POOL_PTR_IMPORT,
	CUFAB_CMD_POOL_PTR_RELEASE,
	CUFAB_CMD_MEM_ADVISE,
	CUFAB_CMD_MEM_PREFETCH,
	CUFAB_CMD_MEM_RANGE_ATTRS,
	CUFAB_CMD_EVENT_EXPORT,
	CUFAB_CMD_EVENT_IMPORT,
	CUFAB_CMD_STREAM_MEMOP,
	CUFAB_CMD_IPC_MEM_EXPORT,
	CUFAB_CMD_IPC_MEM_IMPORT,
	CUFAB_CMD_HOST_REGISTER,
	CUFAB_CMD_HOST_UNREGISTER,
	CUFAB_CMD_STREAM_BATCH,
	CUFAB_CMD_MEM_RANGE_EXPORT,
	CUFAB_CMD_LAST,
};

/**
 * struct cufab_get_version - CUFAB_IOCTL_GET_VERSION
 * @size: sizeof(struct cufab_get_version)
 * @flags: must be 0
 * @major: out, CUFAB_VERSION_MAJOR of the running module
 * @minor: out, CUFAB_VERSION_MINOR of the running module
 * @num_gpus: out, number of virtual GPUs of the node
 * @__reserved: must be 0
 *
 * The library issues this first after open and refuses a module whose
 * major differs or whose minor is older than its own.
 */
struct cufab_get_version {
	__u32 size;
	__u32 flags;
	__u32 major;
	__u32 minor;
	__u32 num_gpus;
	__u32 __reserved;
};

#define CUFAB_IOCTL_GET_VERSION	_IO(CUFAB_TYPE, CUFAB_CMD_GET_VERSION)

/**
 * struct cufab_noop - CUFAB_IOCTL_NOOP
 * @size: sizeof(struct cufab_noop)
 * @flags: must be 0
 *
 * Does nothing past argument validation; the benchmarks' unit of cost.
 */
struct cufab_noop {
	__u32 size;
	__u32 flags;
};

#define CUFAB_IOCTL_NOOP		_IO(CUFAB_TYPE, CUFAB_CMD_NOOP)

/**
 * struct cufab_destroy - CUFAB_IOCTL_DESTROY
 * @size: sizeof(struct cufab_destroy)
 * @id: id of any object this client created
 *
 * Destroys one object of the calling client. -ENOENT for an unknown id,
 * -EBUSY while another object still depends on it.
 */
struct cufab_destroy {
	__u32 size;
	__u32 id;
};

#define CUFAB_IOCTL_DESTROY		_IO(CUFAB_TYPE, CUFAB_CMD_DESTROY)

/* cufab_device_info.flags (out): what the virtual GPU can do. */
enum cufab_device_feature {
	CUFAB_DEV_F_MULTICAST		= 1 << 0,	/* attribute 132 */
	CUFAB_DEV_F_FABRIC_HANDLE	= 1 << 1,	/* attribute 128 */
	CUFAB_DEV_F_LE_UNICAST		= 1 << 2,	/* attribute 153 */
	CUFAB_DEV_F_LE_MULTICAST	= 1 << 3,	/* attribute 154 */
	CUFAB_DEV_F_LE_COUNTED		= 1 << 4,	/* attribute 155 */
	CUFAB_DEV_F_LE_OWNER_ACCESS	= 1 << 5,	/* attribute 156 */
	CUFAB_DEV_F_CONCURRENT_MANAGED	= 1 << 6,	/* attribute 89 */
	CUFAB_DEV_F_PAGEABLE_ACCESS	= 1 << 7,	/* attribute 88 */
	CUFAB_DEV_F_MEMORY_POOLS	= 1 << 8,	/* attribute 115 */
	CUFAB_DEV_F_ALL			= (1 << 9) - 1,
};

/**
 * struct cufab_device_info - CUFAB_IOCTL_DEVICE_INFO
 * @size: sizeof(struct cufab_device_info)
 * @index: in, kernel index of the virtual GPU, 0 .. num_gpus - 1
 * @flags: out, enum cufab_device_feature bits
 * @host_numa_node: out, host NUMA node closest to the GPU, -1 for none
 * @total_mem: out, bytes of device memory (the GPU's capacity)
 * @peer_mask: out, bit i set when GPU i is reachable as a peer
 * @clique_id: out, fabric clique the GPU belongs to
 * @pci_domain: out, PCI-like location of the GPU ...
 * @pci_bus: out
 * @pci_device: out
 * @num_attrs: in, entries of @attrs_ptr; out, entries the kernel knows
 *             (CUFAB_NUM_DEVICE_ATTRS). The kernel writes
 *             min(in, out) entries.
 * @attrs_ptr: in, user pointer to __s32[num_attrs], indexed by
 *             CUdevice_attribute; unknown attributes read as 0. May be 0
 *             when @num_attrs is 0.
 * @uuid: out, the GPU's UUID (RFC 4122 version 4 layout, stable per index)
 * @name: out, NUL-terminated marketing name
 * @mem_granularity: out, cuMemCreate MINIMUM granularity of this GPU
 * @mem_granularity_rec: out, cuMemCreate RECOMMENDED granularity
 * @mc_granularity: out, multicast MINIMUM granularity
 * @mc_granularity_rec: out, multicast RECOMMENDED granularity
 * @cluster_uuid: out (interface 1.3), UUID of the NVLink fabric cluster
 *                the GPU is in: one per node, the same for every GPU on
 *                the fabric; all zeros for a GPU not on it (no
 *                CUFAB_DEV_F_FABRIC_HANDLE in @flags, or no NVSwitch)
 *
 * -ENODEV for an index past the last GPU.
 */
struct cufab_device_info {
	__u32 size;
	__u32 index;
	__u32 flags;
	__s32 host_numa_node;
	__aligned_u64 total_mem;
	__aligned_u64 peer_mask;
	__u32 clique_id;
	__u32 pci_domain;
	__u32 pci_bus;
	__u32 pci_device;
	__u32 num_attrs;
	__u32 __reserved;
	__aligned_u64 attrs_ptr;
	__u8 uuid[CUFAB_UUID_LEN];
	char name[CUFAB_NAME_LEN];
	__aligned_u64 mem_granularity;
	__aligned_u64 mem_granularity_rec;
	__aligned_u64 mc_granularity;
	__aligned_u64 mc_granularity_rec;
	__u8 cluster_uuid[CUFAB_UUID_LEN];
};

#define CUFAB_IOCTL_DEVICE_INFO	_IO(CUFAB_TYPE, CUFAB_CMD_DEVICE_INFO)

/**
 * struct cufab_ctx_create - CUFAB_IOCTL_CTX_CREATE
 * @size: sizeof(struct cufab_ctx_create)
 * @flags: in, CUctx_flags as given to cuCtxCreate (scheduling and
 *         map-host bits; the kernel records them)
 * @dev: in, kernel index of the virtual GPU
 * @out_ctx_id: out, id of the new context object
 *
 * A context is a kernel object so that state hanging off it (peer access,
 * later) is owned by the kernel. Destroy it with CUFAB_IOCTL_DESTROY.
 * -ENODEV for a bad @dev, -EINVAL for unknown flag bits.
 */
struct cufab_ctx_create {
	__u32 size;
	__u32 flags;
	__u32 dev;
	__u32 out_ctx_id;
};

#define CUFAB_IOCTL_CTX_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_CTX_CREATE)

/*
 * CUctx_flags bits the kernel accepts (CU_CTX_SCHED_MASK | MAP_HOST |
 * LMEM_RESIZE_TO_MAX | COREDUMP | USER_COREDUMP | SYNC_MEMOPS).
 */
#define CUFAB_CTX_FLAGS_VALID		0xffU	/* CU_CTX_FLAGS_MASK */
#define CUFAB_CTX_SCHED_MASK		0x07U	/* CU_CTX_SCHED_MASK */

/*
 * The one rule for context flags, the kernel's at CTX_CREATE and the
 * library's where it keeps them itself (cuDevicePrimaryCtxSetFlags): known
 * bits only, and at most one scheduling policy (the policies are an
 * enumeration in the low bits: AUTO 0, SPIN 1, YIELD 2, BLOCKING_SYNC 4).
 */
static __inline__ int cufab_ctx_flags_ok(__u32 flags)
{
	__u32 sched = flags & CUFAB_CTX_SCHED_MASK;

	return !(flags & ~CUFAB_CTX_FLAGS_VALID) && !(sched & (sched - 1));
}

/* ---- memory (cuMemCreate, VMM, linear, sharing, IMEX) ---- */

/* CUmemLocationType values */
enum cufab_mem_location {
	CUFAB_LOC_DEVICE	= 1,
	CUFAB_LOC_HOST		= 2,
	CUFAB_LOC_HOST_NUMA	= 3,
};

/* CUmemAllocationHandleType bits accepted by the kernel */
#define CUFAB_HANDLE_POSIX_FD		0x1
#define CUFAB_HANDLE_FABRIC		0x8
#define CUFAB_FABRIC_HANDLE_LEN		64

/**
 * struct cufab_imex_set_channel - CUFAB_IOCTL_IMEX_SET_CHANNEL
 * @size: sizeof
 * @flags: must be 0
 * @fd: an open fd of /dev/cufab-imex-channels/channelN; -1 clears
 * @out_channel: the channel (minor) now recorded for this client
 *
 * The kernel accepts only a file of the cufab-imex-channels char device
 * (-EINVAL otherwise, -EBADF for a bad fd) and records its minor: the
 * client's IMEX channel, checked by every FABRIC create/export/import.
 */
struct cufab_imex_set_channel {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 out_channel;
};

#define CUFAB_IOCTL_IMEX_SET_CHANNEL	_IO(CUFAB_TYPE, CUFAB_CMD_IMEX_SET_CHANNEL)

/**
 * struct cufab_mem_create - CUFAB_IOCTL_MEM_CREATE (cuMemCreate)
 * @size: sizeof
 * @flags: must be 0 (cuMemCreate's flags)
 * @location_type: enum cufab_mem_location (DEVICE, HOST or HOST_NUMA)
 * @location_id: GPU index for DEVICE, host NUMA node for HOST_NUMA,
 *	ignored for HOST
 * @handle_types: CUFAB_HANDLE_* bits that may later be exported
 * @alloc_flags: CUFAB_ALLOC_F_GPU_DIRECT_RDMA; compression -> EOPNOTSUPP
 * @length: bytes, multiple of the location's minimum granularity
 * @out_handle: the client's handle id (CUmemGenericAllocationHandle)
 *
 * Charges @length to the GPU's capacity (-ENOMEM past it). Pages are
 * allocated zeroed on first touch on the location's NUMA node.
 * FABRIC without an IMEX channel: -EPERM.
 */
struct cufab_mem_create {
	__u32 size;
	__u32 flags;
	__u32 location_type;
	__s32 location_id;
	__u32 handle_types;
	__u32 alloc_flags;
	__aligned_u64 length;
	__u32 out_handle;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_CREATE)
#define CUFAB_ALLOC_F_GPU_DIRECT_RDMA	0x1
#define CUFAB_ALLOC_F_COMPRESSIBLE	0x2

/* cufab_mem_handle: MEM_RELEASE, MEM_GET_PROPS */
struct cufab_mem_release {
	__u32 size;
	__u32 handle;
};

#define CUFAB_IOCTL_MEM_RELEASE	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_RELEASE)

/**
 * struct cufab_mem_retain - CUFAB_IOCTL_MEM_RETAIN (cuMemRetainAllocationHandle)
 * @addr: any address inside a mapping made with MEM_MAP
 * @out_handle: the handle the mapping was made with, retained once more
 *	(the same value MEM_MAP was given, as in CUDA); a new handle on the
 *	mapped allocation when that one has been released. Each retain must
 *	be matched by one MEM_RELEASE.
 */
struct cufab_mem_retain {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__u32 out_handle;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_RETAIN	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_RETAIN)

struct cufab_mem_get_props {
	__u32 size;
	__u32 handle;
	__u32 out_location_type;
	__s32 out_location_id;
	__u32 out_handle_types;
	__u32 out_alloc_flags;
	__aligned_u64 out_length;
};

#define CUFAB_IOCTL_MEM_GET_PROPS	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_GET_PROPS)

/* MEM_GET_INFO: cuMemGetInfo for one GPU */
struct cufab_mem_get_info {
	__u32 size;
	__u32 dev;
	__aligned_u64 out_free;
	__aligned_u64 out_total;
};

#define CUFAB_IOCTL_MEM_GET_INFO	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_GET_INFO)

/**
 * struct cufab_va_reserve - CUFAB_IOCTL_VA_RESERVE (cuMemAddressReserve)
 * @length: bytes, multiple of the host page size (library checks the
 *	granularity rule and passes it as @alignment floor)
 * @alignment: power of two or 0 (= minimum granularity)
 * @addr: in, hint (0 = anywhere); out, the reserved address
 *
 * The kernel creates the CPU mapping itself (vm_mmap of this client's file),
 * inaccessible until memory is mapped into it and access is granted.
 */
struct cufab_va_reserve {
	__u32 size;
	__u32 flags;
	__aligned_u64 length;
	__aligned_u64 alignment;
	__aligned_u64 addr;
};

#define CUFAB_IOCTL_VA_RESERVE	_IO(CUFAB_TYPE, CUFAB_CMD_VA_RESERVE)

struct cufab_va_free {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#define CUFAB_IOCTL_VA_FREE	_IO(CUFAB_TYPE, CUFAB_CMD_VA_FREE)

/* MEM_MAP (cuMemMap) / MEM_UNMAP (cuMemUnmap) */
struct cufab_mem_map {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 offset;
	__u32 handle;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_MAP	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_MAP)

struct cufab_mem_unmap {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#define CUFAB_IOCTL_MEM_UNMAP	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_UNMAP)

/* CUmemAccessDesc, flags = CUmemAccess_flags (0 none, 1 read, 3 rw) */
struct cufab_mem_access {
	__u32 location_type;	/* DEVICE or HOST */
	__s32 location_id;
	__u32 flags;
	__u32 __reserved;
};

struct cufab_mem_set_access {
	__u32 size;
	__u32 num_descs;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 descs_ptr;	/* struct cufab_mem_access[num_descs] */
};

#define CUFAB_IOCTL_MEM_SET_ACCESS	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_SET_ACCESS)

struct cufab_mem_get_access {
	__u32 size;
	__u32 location_type;
	__s32 location_id;
	__u32 out_flags;
	__aligned_u64 addr;
};

#define CUFAB_IOCTL_MEM_GET_ACCESS	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_GET_ACCESS)

/**
 * struct cufab_mem_alloc - CUFAB_IOCTL_MEM_ALLOC (cuMemAlloc, cuMemAllocHost,
 *	cuMemAllocManaged)
 * @flags: CUFAB_MEM_ALLOC_HOST for page-locked host memory, or (interface
 *	1.4) CUFAB_MEM_ALLOC_MANAGED for managed memory; not both
 * @dev: GPU whose memory (or, for host and managed memory, whose context)
 *	it is
 * @attach: with CUFAB_MEM_ALLOC_MANAGED the default association,
 *	CUFAB_ATTACH_GLOBAL or CUFAB_ATTACH_HOST (anything else -EINVAL);
 *	without it, must be 0
 * @length: bytes (rounded up to the page size by the kernel)
 * @out_addr: the mapped, accessible address
 * @ctx_id: the context (CUFAB_IOCTL_CTX_CREATE id, on @dev) the allocation
 *	belongs to: destroying that context frees it, as cuCtxDestroy does.
 *	0 (or a caller compiled before this field): it belongs to no context
 *	and lives until MEM_FREE or the end of the client.
 * @host_flags: (interface 1.9) with CUFAB_MEM_ALLOC_HOST, the
 *	cuMemHostAlloc flags (CUFAB_HOSTALLOC_*), kept for POINTER_INFO's
 *	out_host_flags; otherwise must be 0
 *
 * One call does create + reserve + map + access for @dev (and the host).
 * Managed memory is host memory on no GPU's capacity, accessible to the
 * CPU and every GPU; MEM_FREE without CUFAB_MEM_ALLOC_HOST frees it.
 */
struct cufab_mem_alloc {
	__u32 size;
	__u32 flags;
	__u32 dev;
	__u32 attach;
	__aligned_u64 length;
	__aligned_u64 out_addr;
	__u32 ctx_id;
	__u32 host_flags;
};

#define CUFAB_IOCTL_MEM_ALLOC	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_ALLOC)
#define CUFAB_MEM_ALLOC_HOST		0x1
#define CUFAB_MEM_ALLOC_MANAGED		0x2

/* cufab_mem_alloc.host_flags: CU_MEMHOSTALLOC_* */
#define CUFAB_HOSTALLOC_PORTABLE	0x1
#define CUFAB_HOSTALLOC_DEVICEMAP	0x2
#define CUFAB_HOSTALLOC_WRITECOMBINED	0x4
#define CUFAB_HOSTALLOC_VALID		0x7

/* CUmemAttach_flags */
#define CUFAB_ATTACH_GLOBAL		0x1
#define CUFAB_ATTACH_HOST		0x2
#define CUFAB_ATTACH_SINGLE		0x4

struct cufab_mem_free {
	__u32 size;
	__u32 flags;		/* CUFAB_MEM_ALLOC_HOST for cuMemFreeHost */
	__aligned_u64 addr;
};

/*
 * MEM_FREE of an IPC_MEM_IMPORT mapping (cuIpcCloseMemHandle): only such
 * a mapping, and cuMemFree (0) never frees one.
 */
#define CUFAB_MEM_FREE_IPC		0x2

#define CUFAB_IOCTL_MEM_FREE	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_FREE)

/**
 * struct cufab_mem_copy - CUFAB_IOCTL_MEM_COPY (cuMemcpy*, synchronous)
 * @dev: the device performing the copy (the current context's); each
 *	cufab range touched must be accessible to it (read for @src, write
 *	for @dst), else -EACCES
 * @dst, @src, @length: byte range; either may be ordinary host memory
 */
struct cufab_mem_copy {
	__u32 size;
	__u32 flags;
	__u32 dev;
	__u32 __reserved;
	__aligned_u64 dst;
	__aligned_u64 src;
	__aligned_u64 length;
};

#define CUFAB_IOCTL_MEM_COPY	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_COPY)

/*
 * MEM_SET: cuMemsetD8/D16/D32, done by GPU @dev: plain host memory (in no
 * cufab range) is -EINVAL unless @dev has CUFAB_DEV_F_PAGEABLE_ACCESS.
 * So is a CUFAB_OP_SET at submission; one whose cufab range is gone when
 * it runs fails with -EFAULT.
 */
struct cufab_mem_set {
	__u32 size;
	__u32 flags;
	__u32 dev;
	__u32 elem_size;	/* 1, 2 or 4 */
	__aligned_u64 dst;
	__aligned_u64 count;	/* elements */
	__u32 value;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_SET	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_SET)

/**
 * struct cufab_pointer_info - CUFAB_IOCTL_POINTER_INFO
 * @addr: in
 * @out_flags: CUFAB_PTR_F_* ; 0 when @addr is not cufab memory (-ENOENT is
 *	not used so that pointer classification is one cheap call)
 */
struct cufab_pointer_info {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__u32 out_flags;
	__u32 out_memory_type;		/* CUmemorytype: 1 host, 2 device */
	__s32 out_dev;			/* GPU index, -1 for host memory */
	__u32 out_handle_types;
	__aligned_u64 out_range_base;	/* allocation (linear) or mapping start */
	__aligned_u64 out_range_length;
	/* node-wide id of the allocation, for CU_POINTER_ATTRIBUTE_BUFFER_ID */
	__aligned_u64 out_alloc_id;
	__u32 out_access_flags;		/* for the host */
	__u32 out_alloc_flags;
	__aligned_u64 out_va_base;	/* reservation or linear range, 0: none */
	__aligned_u64 out_va_length;	/* its length (RANGE_START_ADDR/SIZE) */
	/* appended in 1.4: cuMemAlloc memory's context (kernel id), else 0 */
	__u32 out_ctx_id;
	__u32 __reserved;
	/*
	 * appended in 1.9: CUFAB_HOSTALLOC_* of cuMemHostAlloc memory, or
	 * CUFAB_HOSTREG_* of registered memory (CUFAB_PTR_F_HOSTREG)
	 */
	__u32 out_host_flags;
	__u32 __reserved2;
};

#define CUFAB_IOCTL_POINTER_INFO	_IO(CUFAB_TYPE, CUFAB_CMD_POINTER_INFO)
#define CUFAB_PTR_F_CUFAB		0x1	/* addr is in a cufab range */
#define CUFAB_PTR_F_MAPPED		0x2	/* backed by an allocation */
#define CUFAB_PTR_F_LINEAR		0x4	/* from MEM_ALLOC */
/* the name before 1.10, kept so that programs using it still build */
#define CUFAB_PTR_F_LEGACY		CUFAB_PTR_F_LINEAR
#define CUFAB_PTR_F_VMM			0x8	/* from MEM_MAP */
#define CUFAB_PTR_F_POOL		0x10	/* a memory pool's chunk or imported pointer */
#define CUFAB_PTR_F_MANAGED		0x20	/* managed memory (1.5) */
#define CUFAB_PTR_F_HOSTREG		0x40	/* registered host memory (1.9) */

/**
 * struct cufab_mem_export - CUFAB_IOCTL_MEM_EXPORT
 * @handle_type: CUFAB_HANDLE_POSIX_FD or CUFAB_HANDLE_FABRIC; must have
 *	been requested at create (-EINVAL otherwise)
 * @out_fd: POSIX_FD: a new dma-buf fd (O_CLOEXEC) for the allocation
 * @out_fabric: FABRIC: 64 unguessable bytes, valid while the allocation
 *	lives; needs an IMEX channel (-EPERM)
 */
struct cufab_mem_export {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 handle_type;
	__s32 out_fd;
	__u32 __reserved;
	__u8 out_fabric[CUFAB_FABRIC_HANDLE_LEN];
};

#define CUFAB_IOCTL_MEM_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_EXPORT)

struct cufab_mem_import {
	__u32 size;
	__u32 flags;
	__u32 handle_type;
	__s32 fd;
	__u8 fabric[CUFAB_FABRIC_HANDLE_LEN];
	__u32 out_handle;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_IMPORT	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_IMPORT)

/* ---- memory pools (cuMemPool*, the stream-ordered allocator) ---- */

/*
 * A pool is a kernel object of its own: its properties, its cap, its
 * chunks (the memory it reserved), its access rights and its exports. The
 * library sub-allocates inside chunks; the kernel is asked only to grow
 * or shrink the pool by whole chunks, which are multiples of
 * CUFAB_POOL_CHUNK bytes, like NVIDIA's driver reserves pool memory.
 */
#define CUFAB_POOL_CHUNK		(32ULL << 20)
#define CUFAB_POOL_ALLOC_PINNED		1	/* CU_MEM_ALLOCATION_TYPE_PINNED */
#define CUFAB_POOL_USAGE_HW_DECOMPRESS	0x2
/* cufab_pool_create.flags: the caller's default pool of the location */
#define CUFAB_POOL_CREATE_DEFAULT	0x1

/**
 * struct cufab_pool_create - CUFAB_IOCTL_POOL_CREATE (cuMemPoolCreate)
 * @flags: 0 or CUFAB_POOL_CREATE_DEFAULT
 * @alloc_type: CUFAB_POOL_ALLOC_PINNED
 * @handle_types: CUFAB_HANDLE_* bits the pool may be exported as; 0 for a
 *	HOST pool
 * @location_type: CUFAB_LOC_DEVICE, _HOST or _HOST_NUMA
 * @location_id: GPU index (a GPU that does not exist is -EINVAL, not
 *	-ENODEV, as cuMemPoolCreate reports INVALID_VALUE), online NUMA node
 * @max_size: cap in bytes, 0 for the location's memory size; rounded up
 *	to CUFAB_POOL_CHUNK
 * @usage: 0; CUFAB_POOL_USAGE_HW_DECOMPRESS is -EOPNOTSUPP (no virtual GPU
 *	decompresses)
 * @out_pool: id of the client's pool object (CUFAB_IOCTL_DESTROY)
 * @out_pool_id: node-wide pool id (cufabctl pool show)
 * @out_max_size: the effective cap
 */
struct cufab_pool_create {
	__u32 size;
	__u32 flags;
	__u32 alloc_type;
	__u32 handle_types;
	__u32 location_type;
	__s32 location_id;
	__aligned_u64 max_size;
	__u32 usage;
	__u32 out_pool;
	__aligned_u64 out_pool_id;
	__aligned_u64 out_max_size;
};

#define CUFAB_IOCTL_POOL_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_CREATE)

/* cufab_pool_attr.attr: CUmemPool_attribute values the kernel keeps */
#define CUFAB_POOL_ATTR_REUSE_FOLLOW_EVENT_DEPS		1
#define CUFAB_POOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC	2
#define CUFAB_POOL_ATTR_REUSE_ALLOW_INTERNAL_DEPS	3
#define CUFAB_POOL_ATTR_RELEASE_THRESHOLD		4
#define CUFAB_POOL_ATTR_RESERVED_MEM_CURRENT		5
#define CUFAB_POOL_ATTR_RESERVED_MEM_HIGH		6
/* cufab_pool_attr.flags */
#define CUFAB_POOL_ATTR_SET		0x1

/**
 * struct cufab_pool_attr - CUFAB_IOCTL_POOL_ATTR
 * @flags: CUFAB_POOL_ATTR_SET to write @value, else read it
 * @pool: the client's pool object
 * @attr: CUFAB_POOL_ATTR_*; RESERVED_MEM_CURRENT is read-only and
 *	RESERVED_MEM_HIGH may only be reset to 0 (-EINVAL otherwise)
 * @value: in (SET) or out
 */
struct cufab_pool_attr {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 attr;
	__aligned_u64 value;
};

#define CUFAB_IOCTL_POOL_ATTR	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_ATTR)

/**
 * struct cufab_pool_grow - CUFAB_IOCTL_POOL_GROW: one more chunk
 * @pool: a pool this client created (an imported pool is -EPERM)
 * @length: bytes the caller needs; the chunk is that rounded up to
 *	CUFAB_POOL_CHUNK. -ENOMEM past the pool's cap or the GPU's capacity.
 * @out_addr: where the chunk is mapped in the caller, accessible as the
 *	pool's access rights say
 * @out_length: the chunk's bytes
 * @out_alloc_id: node-wide id of its allocation
 */
struct cufab_pool_grow {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 __reserved;
	__aligned_u64 length;
	__aligned_u64 out_addr;
	__aligned_u64 out_length;
	__aligned_u64 out_alloc_id;
};

#define CUFAB_IOCTL_POOL_GROW	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_GROW)

/**
 * struct cufab_pool_shrink - CUFAB_IOCTL_POOL_SHRINK: give a chunk back
 * @addr: a chunk of @pool, as POOL_GROW returned it (-EINVAL otherwise)
 */
struct cufab_pool_shrink {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 __reserved;
	__aligned_u64 addr;
};

#define CUFAB_IOCTL_POOL_SHRINK	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_SHRINK)

/**
 * struct cufab_pool_set_access - CUFAB_IOCTL_POOL_SET_ACCESS
 *	(cuMemPoolSetAccess)
 * @descs_ptr: struct cufab_mem_access[num_descs]; a GPU that does not
 *	exist, the host for a device pool, or removing the resident
 *	location's own access is -EINVAL
 *
 * Applies to every chunk and imported pointer of the pool in this client.
 */
struct cufab_pool_set_access {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 num_descs;
	__aligned_u64 descs_ptr;
};

#define CUFAB_IOCTL_POOL_SET_ACCESS	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_SET_ACCESS)

/* CUFAB_IOCTL_POOL_GET_ACCESS (cuMemPoolGetAccess) */
struct cufab_pool_get_access {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 location_type;
	__s32 location_id;
	__u32 out_flags;
};

#define CUFAB_IOCTL_POOL_GET_ACCESS	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_GET_ACCESS)

/**
 * struct cufab_pool_export - CUFAB_IOCTL_POOL_EXPORT
 *	(cuMemPoolExportToShareableHandle)
 * @handle_type: one bit the pool was created with (-EINVAL otherwise)
 * @out_fd: POSIX_FD: a new O_CLOEXEC fd that holds the pool
 * @out_fabric: FABRIC: 64 unguessable bytes; needs an IMEX channel (-EPERM)
 */
struct cufab_pool_export {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 handle_type;
	__s32 out_fd;
	__u32 __reserved;
	__u8 out_fabric[CUFAB_FABRIC_HANDLE_LEN];
};

#define CUFAB_IOCTL_POOL_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_EXPORT)

/**
 * struct cufab_pool_import - CUFAB_IOCTL_POOL_IMPORT
 *	(cuMemPoolImportFromShareableHandle)
 * @fd: POSIX_FD: an fd POOL_EXPORT made (-EINVAL for any other)
 * @fabric: FABRIC: the exporter's bytes; -EPERM without the exporter's
 *	IMEX channel, -EINVAL for bytes that name no live pool
 * @out_pool: the client's new pool object; it cannot grow (-EPERM) and
 *	starts accessible from the resident location only
 * @out_pool_id, @out_location_type, @out_location_id, @out_handle_types:
 *	the pool's properties
 */
struct cufab_pool_import {
	__u32 size;
	__u32 flags;
	__u32 handle_type;
	__s32 fd;
	__u8 fabric[CUFAB_FABRIC_HANDLE_LEN];
	__u32 out_pool;
	__u32 out_location_type;
	__s32 out_location_id;
	__u32 out_handle_types;
	__aligned_u64 out_pool_id;
};

#define CUFAB_IOCTL_POOL_IMPORT	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_IMPORT)

#define CUFAB_POOL_PTR_DATA_LEN		64

/**
 * struct cufab_pool_ptr_export - CUFAB_IOCTL_POOL_PTR_EXPORT
 *	(cuMemPoolExportPointer)
 * @addr, @length: one sub-allocation, inside one chunk of @pool
 * @out_data: CUmemPoolPtrExportData; exporting the same range again gives
 *	the same bytes
 *
 * The exported range stays reserved for its importers: POOL_PTR_RELEASE
 * by the exporter is -EBUSY while one still maps it.
 */
struct cufab_pool_ptr_export {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 __reserved;
	__aligned_u64 addr;
	__aligned_u64 length;
	__u8 out_data[CUFAB_POOL_PTR_DATA_LEN];
};

#define CUFAB_IOCTL_POOL_PTR_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_PTR_EXPORT)

/**
 * struct cufab_pool_ptr_import - CUFAB_IOCTL_POOL_PTR_IMPORT
 *	(cuMemPoolImportPointer)
 * @pool: the client's import of the exporting pool (-EINVAL for another)
 * @data: from POOL_PTR_EXPORT
 * @out_addr: the same memory in the caller; valid until it releases it
 * @out_length: bytes
 */
struct cufab_pool_ptr_import {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 __reserved;
	__u8 data[CUFAB_POOL_PTR_DATA_LEN];
	__aligned_u64 out_addr;
	__aligned_u64 out_length;
};

#define CUFAB_IOCTL_POOL_PTR_IMPORT	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_PTR_IMPORT)

/**
 * struct cufab_pool_ptr_release - CUFAB_IOCTL_POOL_PTR_RELEASE
 * @addr: an imported pointer (unmapped; its record lets go of it) or an
 *	exported range's start (the export ends: -EBUSY while an importer
 *	still maps it, then the exporter may reuse the range)
 */
struct cufab_pool_ptr_release {
	__u32 size;
	__u32 flags;
	__u32 pool;
	__u32 __reserved;
	__aligned_u64 addr;
};

#define CUFAB_IOCTL_POOL_PTR_RELEASE	_IO(CUFAB_TYPE, CUFAB_CMD_POOL_PTR_RELEASE)

/* ---- logical endpoints (cuLogicalEndpoint*, Compute Fabric Transport) ---- */

/* CUlogicalEndpointType, CUlogicalEndpointIpcHandleType, CUlogicalEndpointFlag */
#define CUFAB_LE_TYPE_UNICAST		1
#define CUFAB_LE_TYPE_MULTICAST		2
#define CUFAB_LE_IPC_FABRIC		0x1	/* ..._IPC_HANDLE_TYPE_FABRIC, also a mask bit */
#define CUFAB_LE_FLAG_COUNTED_OPS	0x1
/* Endpoint ids are per process; this one is never handed out. */
#define CUFAB_LE_ID_INVALID		0U

/**
 * struct cufab_le_id_reserve - CUFAB_IOCTL_LE_ID_RESERVE (cuLogicalEndpointIdReserve)
 * @count: ids wanted, >= 1
 * @out_base: first id of the contiguous range [base, base + count)
 *
 * The kernel picks the range (lowest free fit). -ENOSPC when no contiguous
 * range of @count ids is free.
 */
struct cufab_le_id_reserve {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 out_base;
};

#define CUFAB_IOCTL_LE_ID_RESERVE	_IO(CUFAB_TYPE, CUFAB_CMD_LE_ID_RESERVE)

/**
 * struct cufab_le_id_release - CUFAB_IOCTL_LE_ID_RELEASE (cuLogicalEndpointIdRelease)
 * @base, @count: every id of [base, base + count) must be reserved by this
 *	client (-EINVAL) and none associated (-EBUSY, with a log line naming
 *	the first associated id). A sub-range of a reservation may be
 *	released; the rest stays reserved.
 */
struct cufab_le_id_release {
	__u32 size;
	__u32 flags;
	__u32 base;
	__u32 count;
};

#define CUFAB_IOCTL_LE_ID_RELEASE	_IO(CUFAB_TYPE, CUFAB_CMD_LE_ID_RELEASE)

/**
 * struct cufab_le_prop - CUlogicalEndpointProp as the kernel sees it
 * @type: CUFAB_LE_TYPE_*
 * @dev_or_num: owner GPU (unicast) or numDevices (multicast)
 * @length: bytes bindable per device (CUlogicalEndpointProp::size)
 * @ipc_handle_types: CUFAB_LE_IPC_* bits
 * @le_flags: CUFAB_LE_FLAG_* bits
 */
struct cufab_le_prop {
	__u32 type;
	__u32 dev_or_num;
	__aligned_u64 length;
	__u32 ipc_handle_types;
	__u32 le_flags;
};

/**
 * struct cufab_le_create - CUFAB_IOCTL_LE_CREATE (cuLogicalEndpointCreate)
 * @id: a reserved, unassociated id of this client
 * @prop: what to create; @prop.length a multiple of the bind alignment and
 *	at most the maximum size of LE_GET_LIMITS
 *
 * Does not block: the endpoint becomes ready (LE_QUERY) after the
 * construction delay, and for multicast once every device was added.
 */
struct cufab_le_create {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
	struct cufab_le_prop prop;
};

#define CUFAB_IOCTL_LE_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_LE_CREATE)

/* LE_DESTROY (cuLogicalEndpointDestroy) and LE_ADD_DEVICE */
struct cufab_le_destroy {
	__u32 size;
	__u32 id;
};

#define CUFAB_IOCTL_LE_DESTROY	_IO(CUFAB_TYPE, CUFAB_CMD_LE_DESTROY)

struct cufab_le_add_device {
	__u32 size;
	__u32 id;
	__u32 dev;
	__u32 __reserved;
};

#define CUFAB_IOCTL_LE_ADD_DEVICE	_IO(CUFAB_TYPE, CUFAB_CMD_LE_ADD_DEVICE)

/**
 * struct cufab_le_query - CUFAB_IOCTL_LE_QUERY (cuLogicalEndpointQuery)
 * @id, @count: every id of the range must be associated (-EINVAL)
 * @out_ready: 1 when every endpoint of the range is constructed, else 0.
 *	A ready answer is remembered per id: binds through an id need it.
 */
struct cufab_le_query {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 count;
	__u32 out_ready;
	__u32 __reserved;
};

#define CUFAB_IOCTL_LE_QUERY	_IO(CUFAB_TYPE, CUFAB_CMD_LE_QUERY)

/* LE_GET_LIMITS (cuLogicalEndpointGetLimits) */
struct cufab_le_get_limits {
	__u32 size;
	__u32 flags;
	struct cufab_le_prop prop;
	__aligned_u64 out_bind_align;
	__aligned_u64 out_max_size;
};

#define CUFAB_IOCTL_LE_GET_LIMITS	_IO(CUFAB_TYPE, CUFAB_CMD_LE_GET_LIMITS)

/*
 * Binds, shared by LE_BIND and MC_BIND. CUFAB_BIND_ADDR: the memory is
 * named by @addr (a cuMemMap'ed address of this client) instead of
 * @mem_handle + @mem_offset.
 */
#define CUFAB_BIND_ADDR			0x1

/**
 * struct cufab_le_bind - CUFAB_IOCTL_LE_BIND (BindMem, BindAddr)
 * @flags: CUFAB_BIND_ADDR or 0
 * @id: endpoint id, queried ready through this id (-EINVAL otherwise)
 * @dev: GPU the memory is bound on
 * @offset: into the endpoint
 * @length: bytes
 * @mem_handle, @mem_offset: cuMemCreate handle and offset into it
 * @addr: BindAddr's pointer
 * @bind_flags: the API's flags argument, must be 0
 */
struct cufab_le_bind {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 dev;
	__aligned_u64 offset;
	__aligned_u64 length;
	__u32 mem_handle;
	__u32 __reserved;
	__aligned_u64 mem_offset;
	__aligned_u64 addr;
	__aligned_u64 bind_flags;
};

#define CUFAB_IOCTL_LE_BIND	_IO(CUFAB_TYPE, CUFAB_CMD_LE_BIND)

/* LE_UNBIND (cuLogicalEndpointUnbind) */
struct cufab_le_unbind {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 dev;
	__aligned_u64 offset;
	__aligned_u64 length;
};

#define CUFAB_IOCTL_LE_UNBIND	_IO(CUFAB_TYPE, CUFAB_CMD_LE_UNBIND)

/**
 * struct cufab_le_share - CUFAB_IOCTL_LE_EXPORT / CUFAB_IOCTL_LE_IMPORT
 * @id: EXPORT: an associated id; IMPORT: a reserved, unassociated id
 * @handle_type: CUFAB_LE_IPC_FABRIC (the only type)
 * @fabric: EXPORT out / IMPORT in, CUlogicalEndpointFabricHandle
 * @dev: IMPORT: the importer's current GPU, -1 for none; a GPU outside
 *	the exporter's clique cannot use the endpoint (-EOPNOTSUPP)
 *
 * Both need the client's IMEX channel (-EPERM); IMPORT needs the
 * exporter's channel (-EPERM) and an endpoint this node still has.
 */
struct cufab_le_share {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 handle_type;
	__u8 fabric[CUFAB_FABRIC_HANDLE_LEN];
	__s32 dev;
	__u32 __reserved;
};

#define CUFAB_IOCTL_LE_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_LE_EXPORT)
#define CUFAB_IOCTL_LE_IMPORT	_IO(CUFAB_TYPE, CUFAB_CMD_LE_IMPORT)

/* ---- multicast objects (cuMulticast*) ---- */

/**
 * struct cufab_mc_create - CUFAB_IOCTL_MC_CREATE (cuMulticastCreate)
 * @num_devices: team size, >= 1
 * @handle_types: CUFAB_HANDLE_* bits that may later be exported
 * @length: bytes bindable per device, multiple of the multicast minimum
 *	granularity
 * @mc_flags: CUmulticastObjectProp::flags, must be 0
 * @out_handle: a CUmemGenericAllocationHandle of this client (release
 *	with MEM_RELEASE, map with MEM_MAP, export with MEM_EXPORT)
 */
struct cufab_mc_create {
	__u32 size;
	__u32 flags;
	__u32 num_devices;
	__u32 handle_types;
	__aligned_u64 length;
	__aligned_u64 mc_flags;
	__u32 out_handle;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MC_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_MC_CREATE)

struct cufab_mc_add_device {
	__u32 size;
	__u32 handle;
	__u32 dev;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MC_ADD_DEVICE	_IO(CUFAB_TYPE, CUFAB_CMD_MC_ADD_DEVICE)

/**
 * struct cufab_mc_bind - CUFAB_IOCTL_MC_BIND (BindMem, BindAddr)
 * @flags: CUFAB_BIND_ADDR or 0
 * @handle: the multicast handle
 * @dev: GPU to bind on; -1: the GPU the memory lives on
 * @offset: mcOffset
 * Other fields as in struct cufab_le_bind. Blocks (interruptibly, up to
 * the team timeout: -ETIMEDOUT) until every device joined the team.
 */
struct cufab_mc_bind {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 dev;
	__aligned_u64 offset;
	__aligned_u64 length;
	__u32 mem_handle;
	__u32 __reserved;
	__aligned_u64 mem_offset;
	__aligned_u64 addr;
	__aligned_u64 bind_flags;
};

#define CUFAB_IOCTL_MC_BIND	_IO(CUFAB_TYPE, CUFAB_CMD_MC_BIND)

struct cufab_mc_unbind {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 dev;
	__aligned_u64 offset;
	__aligned_u64 length;
};

#define CUFAB_IOCTL_MC_UNBIND	_IO(CUFAB_TYPE, CUFAB_CMD_MC_UNBIND)

/* CUFAB_IOCTL_MULTIMEM: the CPU's stand-in for multimem instructions */
enum cufab_multimem_op {
	CUFAB_MM_STORE,		/* write @buf to every bound replica */
	CUFAB_MM_LOAD_REDUCE,	/* reduce all bound replicas into @buf */
	CUFAB_MM_REDUCE,	/* replica = replica <redop> @buf, each replica */
};

enum cufab_multimem_redop {
	CUFAB_RED_ADD,
	CUFAB_RED_MIN,
	CUFAB_RED_MAX,
	CUFAB_RED_AND,		/* integers only */
	CUFAB_RED_OR,
	CUFAB_RED_XOR,
};

enum cufab_multimem_dtype {
	CUFAB_DT_U8,		/* STORE only: bulk broadcast of bytes */
	CUFAB_DT_U32,
	CUFAB_DT_S32,
	CUFAB_DT_U64,
	CUFAB_DT_S64,
	CUFAB_DT_F32,
	CUFAB_DT_F64,
};

/**
 * struct cufab_multimem - CUFAB_IOCTL_MULTIMEM
 * @op: enum cufab_multimem_op
 * @redop: enum cufab_multimem_redop (LOAD_REDUCE, REDUCE)
 * @dtype: enum cufab_multimem_dtype
 * @addr: inside a multicast mapping of this client, aligned to the size
 *	of @dtype; [addr, addr + count * size) must stay in that mapping
 * @count: elements
 * @buf: user buffer of count elements (in for STORE/REDUCE, out for
 *	LOAD_REDUCE)
 * @out_replicas: replicas written or read (team members with memory
 *	bound at every touched offset)
 * @out_skipped: replicas skipped because nothing was bound there; also
 *	added to the object's skipped counter and sent as an event
 */
struct cufab_multimem {
	__u32 size;
	__u32 flags;
	__u32 op;
	__u32 redop;
	__u32 dtype;
	__u32 __reserved;
	__aligned_u64 addr;
	__aligned_u64 count;
	__aligned_u64 buf;
	__u32 out_replicas;
	__u32 out_skipped;
};

#define CUFAB_IOCTL_MULTIMEM	_IO(CUFAB_TYPE, CUFAB_CMD_MULTIMEM)

/* ---- peer context access (interface 1.2) ---- */

/**
 * struct cufab_peer - CUFAB_IOCTL_PEER_ENABLE, CUFAB_IOCTL_PEER_DISABLE
 * @size: sizeof(struct cufab_peer)
 * @flags: must be 0 (cuCtxEnablePeerAccess's Flags)
 * @ctx_id: the context that gains (or loses) access: the caller's
 *	current context
 * @peer_ctx_id: the context whose allocations become accessible; a
 *	context of the same client
 *
 * Access is one-way, from @ctx_id to @peer_ctx_id, and recorded once per
 * pair. Destroying either context, or closing the client, removes it.
 * ENABLE: -ENOENT when either id is not a context of the client, -ELOOP
 * when they are the same context, -EOPNOTSUPP when the GPU of @ctx_id
 * does not reach the GPU of @peer_ctx_id as a peer (never its own GPU),
 * -EEXIST when already enabled, -EBUSY when the GPU of @ctx_id would
 * have more distinct peer GPUs, node-wide, than the max_peers module
 * parameter allows (no limit with the virtual NVSwitch).
 * DISABLE: -ENOENT as above, -ENOLINK when access is not enabled.
 */
struct cufab_peer {
	__u32 size;
	__u32 flags;
	__u32 ctx_id;
	__u32 peer_ctx_id;
};

#define CUFAB_IOCTL_PEER_ENABLE	_IO(CUFAB_TYPE, CUFAB_CMD_PEER_ENABLE)
#define CUFAB_IOCTL_PEER_DISABLE	_IO(CUFAB_TYPE, CUFAB_CMD_PEER_DISABLE)

/* ---- managed memory (interface 1.4; CUFAB_OP_ATTACH and out_attach: 1.5) ---- */

/* CUmem_advise */
enum cufab_mem_advice {
	CUFAB_ADVISE_SET_READ_MOSTLY		= 1,
	CUFAB_ADVISE_UNSET_READ_MOSTLY		= 2,
	CUFAB_ADVISE_SET_PREFERRED_LOCATION	= 3,
	CUFAB_ADVISE_UNSET_PREFERRED_LOCATION	= 4,
	CUFAB_ADVISE_SET_ACCESSED_BY		= 5,
	CUFAB_ADVISE_UNSET_ACCESSED_BY		= 6,
};

/* CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: the caller's NUMA node */
#define CUFAB_LOC_HOST_NUMA_CURRENT	4

/**
 * struct cufab_mem_advise - CUFAB_IOCTL_MEM_ADVISE (cuMemAdvise)
 * @size: sizeof(struct cufab_mem_advise)
 * @advice: enum cufab_mem_advice
 * @addr: start; rounded down to the page size
 * @length: bytes, not 0; the end is rounded up to the page size
 * @location_type: enum cufab_mem_location or CUFAB_LOC_HOST_NUMA_CURRENT;
 *	read by SET_PREFERRED_LOCATION (DEVICE, HOST, HOST_NUMA,
 *	HOST_NUMA_CURRENT) and SET/UNSET_ACCESSED_BY (DEVICE, HOST)
 * @location_id: GPU index (DEVICE) or NUMA node (HOST_NUMA)
 *
 * The range must lie inside one managed allocation of the client:
 * -EINVAL otherwise, and for an unknown advice or a location type the
 * advice does not take. A DEVICE location: -ENODEV for a GPU that does
 * not exist or has concurrent managed access off. A HOST_NUMA node that
 * is not online: -EINVAL. A preferred location decides the NUMA node of
 * pages populated afterwards.
 */
struct cufab_mem_advise {
	__u32 size;
	__u32 advice;
	__aligned_u64 addr;
	__aligned_u64 length;
	__u32 location_type;
	__s32 location_id;
};

#define CUFAB_IOCTL_MEM_ADVISE	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_ADVISE)

/**
 * struct cufab_mem_prefetch - CUFAB_IOCTL_MEM_PREFETCH (cuMemPrefetchAsync)
 * @size: sizeof(struct cufab_mem_prefetch)
 * @flags: must be 0
 * @addr: start; rounded down to the page size
 * @length: bytes, not 0; the end is rounded up to the page size
 * @location_type: DEVICE, HOST, HOST_NUMA or CUFAB_LOC_HOST_NUMA_CURRENT
 * @location_id: GPU index (DEVICE) or NUMA node (HOST_NUMA)
 * @dev: GPU index of the stream the prefetch is ordered in
 * @__reserved: must be 0
 *
 * Records the location as the range's last prefetch location, then
 * populates the range's pages on the location's NUMA node (a GPU's: its
 * host_numa_node) and moves pages that live elsewhere there. Rules as
 * MEM_ADVISE; a DEVICE location, or @dev, with concurrent managed access
 * off: -ENODEV.
 */
struct cufab_mem_prefetch {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__u32 location_type;
	__s32 location_id;
	__u32 dev;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_PREFETCH	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_PREFETCH)

/**
 * struct cufab_mem_range_attrs - CUFAB_IOCTL_MEM_RANGE_ATTRS
 *	(cuMemRangeGetAttribute(s))
 * @size: sizeof(struct cufab_mem_range_attrs)
 * @flags: must be 0
 * @addr: start; rounded down to the page size
 * @length: bytes, not 0; the end is rounded up to the page size
 * @node: in, NUMA node whose pages @out_resident_on_node counts, or -1
 * @out_read_mostly: 1 when every page of the range is read-mostly
 * @out_preferred_type: the preferred location shared by every page, 0
 *	when the pages differ or one has none
 * @out_preferred_id: its GPU index or NUMA node (-1 for HOST)
 * @out_prefetch_type: the last prefetch location shared by every page, 0
 *	when the pages differ or one was never prefetched
 * @out_prefetch_id: its GPU index or NUMA node (-1 for HOST)
 * @out_accessed_by_host: 1 when the host is accessed-by on every page
 * @out_accessed_by: GPUs (bit = index) accessed-by on every page
 * @out_resident: pages of the range that have memory
 * @out_resident_on_node: of those, pages on NUMA node @node
 * @out_attach: CUFAB_ATTACH_* the allocation is associated with now: its
 *	default, or what the last ATTACH operation a stream reached set
 * @__reserved2: must be 0
 * @out_attach_stream: with CUFAB_ATTACH_SINGLE, the stream's uid
 *	(cufab_stream_create.out_uid), else 0
 *
 * The range rule of MEM_ADVISE applies.
 */
struct cufab_mem_range_attrs {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__s32 node;
	__u32 out_read_mostly;
	__u32 out_preferred_type;
	__s32 out_preferred_id;
	__u32 out_prefetch_type;
	__s32 out_prefetch_id;
	__u32 out_accessed_by_host;
	__u32 __reserved;
	__aligned_u64 out_accessed_by;
	__aligned_u64 out_resident;
	__aligned_u64 out_resident_on_node;
	__u32 out_attach;
	__u32 __reserved2;
	__aligned_u64 out_attach_stream;
};

#define CUFAB_IOCTL_MEM_RANGE_ATTRS	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_RANGE_ATTRS)

/*
 * Streams and events (uapi 1.4).
 *
 * A stream is an ordered queue of operations that the engine of the
 * stream's GPU runs while the caller goes on. Every submitted operation
 * gets the stream's next sequence number (from 1); when it completes, the
 * kernel stores that number in the stream's completion slot. Slots live in
 * an array of CUFAB_SEQ_SLOTS struct cufab_seq_slot that the client maps
 * read-only with mmap(fd, CUFAB_SEQ_MMAP_OFFSET, CUFAB_SEQ_MMAP_SIZE), so
 * "is sequence N done" costs no syscall: slot.seq >= N. An event's slot
 * holds the number of its last completed record.
 *
 * slot.seq is written after time_ns and error (release order): read seq
 * first, then (acquire) the rest.
 */
#define CUFAB_SEQ_MMAP_OFFSET		(1ULL << 40)
#define CUFAB_SEQ_SLOTS			4096

/**
 * struct cufab_seq_slot - completion state of one stream or event
 * @seq: last completed sequence number (stream) or record (event)
 * @time_ns: CLOCK_MONOTONIC when @seq completed (events without
 *	CUFAB_EVENT_DISABLE_TIMING only)
 * @error: 0, or the negative errno of the first operation of the stream
 *	that failed; sticky: later copies and sets of the stream are
 *	skipped and complete with it, events recorded after it carry it
 */
struct cufab_seq_slot {
	__u64 seq;
	__u64 time_ns;
	__s32 error;
	__u32 __reserved;
	__u64 __reserved2;
};

#define CUFAB_SEQ_MMAP_SIZE	(CUFAB_SEQ_SLOTS * sizeof(struct cufab_seq_slot))

/*
 * cufab_stream_create.flags: NON_BLOCKING, no implicit synchronization
 * with the legacy stream; LEGACY, the context's legacy default (NULL)
 * stream.
 */
#define CUFAB_STREAM_NON_BLOCKING	(1U << 0)
#define CUFAB_STREAM_LEGACY		(1U << 1)
#define CUFAB_STREAM_FLAGS		(CUFAB_STREAM_NON_BLOCKING | CUFAB_STREAM_LEGACY)
/* Priorities: CUFAB_STREAM_PRIO_GREATEST (highest) .. 0 (lowest). */
#define CUFAB_STREAM_PRIO_GREATEST	(-5)

/**
 * struct cufab_stream_create - CUFAB_IOCTL_STREAM_CREATE
 * @size: sizeof(struct cufab_stream_create)
 * @flags: CUFAB_STREAM_*; at most one LEGACY stream per context (-EEXIST)
 * @ctx_id: the context; its GPU's engine runs the stream
 * @priority: CUFAB_STREAM_PRIO_GREATEST..0 (-EINVAL otherwise)
 * @out_stream_id: object id (destroyed with CUFAB_IOCTL_DESTROY, which
 *	returns at once: queued operations still run)
 * @out_slot: index of the stream's completion slot
 * @out_uid: node-wide unique id (cuStreamGetId)
 *
 * -ENOENT: no such context; -ENOSPC: no free completion slot.
 */
struct cufab_stream_create {
	__u32 size;
	__u32 flags;
	__u32 ctx_id;
	__s32 priority;
	__u32 out_stream_id;
	__u32 out_slot;
	__u64 out_uid;
};

#define CUFAB_IOCTL_STREAM_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_STREAM_CREATE)

/* cufab_event_create.flags */
#define CUFAB_EVENT_DISABLE_TIMING	(1U << 0)	/* time_ns stays 0 */
/* may be exported (EVENT_EXPORT); needs CUFAB_EVENT_DISABLE_TIMING */
#define CUFAB_EVENT_INTERPROCESS	(1U << 1)
#define CUFAB_EVENT_FLAGS		(CUFAB_EVENT_DISABLE_TIMING | \
					 CUFAB_EVENT_INTERPROCESS)

/**
 * struct cufab_event_create - CUFAB_IOCTL_EVENT_CREATE
 * @size: sizeof(struct cufab_event_create)
 * @flags: CUFAB_EVENT_*
 * @ctx_id: the context
 * @out_event_id: object id (CUFAB_IOCTL_DESTROY; pending records still
 *	complete)
 * @out_slot: index of the event's completion slot
 * @__reserved: must be 0
 */
struct cufab_event_create {
	__u32 size;
	__u32 flags;
	__u32 ctx_id;
	__u32 out_event_id;
	__u32 out_slot;
	__u32 __reserved;
};

#define CUFAB_IOCTL_EVENT_CREATE	_IO(CUFAB_TYPE, CUFAB_CMD_EVENT_CREATE)

/*
 * Interprocess events (uapi 1.6). An exported event is named node-wide by
 * a 64-byte handle that only the kernel interprets: a version, the export
 * id and a 48-byte random secret. Any process that has the handle may
 * import the event; the import is an event object of the importer that
 * records and waits act on like the exporter's own. The export ends when
 * the exporter's event object is destroyed (or the exporter exits): the
 * handle is refused from then on, while events already imported stay
 * usable.
 */
#define CUFAB_EVENT_HANDLE_LEN		64

/**
 * struct cufab_event_export - CUFAB_IOCTL_EVENT_EXPORT
 * @size: sizeof(struct cufab_event_export)
 * @flags: must be 0
 * @event_id: an event created with CUFAB_EVENT_INTERPROCESS (-EINVAL
 *	otherwise, -ENOENT for no such event); an imported one re-exports
 *	its exporter's handle
 * @__reserved: must be 0
 * @out_handle: the handle, the same for every export of the event
 */
struct cufab_event_export {
	__u32 size;
	__u32 flags;
	__u32 event_id;
	__u32 __reserved;
	__u8 out_handle[CUFAB_EVENT_HANDLE_LEN];
};

#define CUFAB_IOCTL_EVENT_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_EVENT_EXPORT)

/**
 * struct cufab_event_import - CUFAB_IOCTL_EVENT_IMPORT
 * @size: sizeof(struct cufab_event_import)
 * @flags: must be 0
 * @ctx_id: the importer's context (-ENOENT for none)
 * @out_event_id: the imported event's object id (CUFAB_IOCTL_DESTROY)
 * @handle: from EVENT_EXPORT; -EINVAL if it is not an event handle of
 *	this module version, -ESRCH if it names no exported event (never
 *	exported, ended, or a wrong secret), -ELOOP if it names an event the
 *	caller created (opened in the exporting process)
 *
 * The imported event has no completion slot in the importer's space: its
 * state is read with CUFAB_IOCTL_STREAM_WAIT (CUFAB_WAIT_POLL to query).
 */
struct cufab_event_import {
	__u32 size;
	__u32 flags;
	__u32 ctx_id;
	__u32 out_event_id;
	__u8 handle[CUFAB_EVENT_HANDLE_LEN];
};

#define CUFAB_IOCTL_EVENT_IMPORT	_IO(CUFAB_TYPE, CUFAB_CMD_EVENT_IMPORT)

#define CUFAB_IPC_MEM_HANDLE_LEN	64

/**
 * struct cufab_ipc_mem_export - CUFAB_IOCTL_IPC_MEM_EXPORT
 * @size: sizeof(struct cufab_ipc_mem_export)
 * @flags: must be 0
 * @addr: an address of a cuMemAlloc allocation of the caller (device
 *	memory; -EINVAL for cuMemAllocHost, managed, VMM and pool memory,
 *	or no allocation)
 * @out_handle: the allocation's handle (cuIpcGetMemHandle): the same for
 *	every export of the allocation, valid while it lives
 */
struct cufab_ipc_mem_export {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__u8 out_handle[CUFAB_IPC_MEM_HANDLE_LEN];
};

#define CUFAB_IOCTL_IPC_MEM_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_IPC_MEM_EXPORT)

/**
 * struct cufab_ipc_mem_import - CUFAB_IOCTL_IPC_MEM_IMPORT
 * @size: sizeof(struct cufab_ipc_mem_import)
 * @flags: must be 0
 * @ctx_id: the importer's context (-ENOENT for none); its destroy unmaps
 * @peer_dev: a GPU that gets access besides the allocation's own
 *	(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS from the context's GPU), or
 *	CUFAB_DEV_STREAM for none; it must be a peer of that GPU (-EINVAL)
 * @handle: from IPC_MEM_EXPORT; -EINVAL if it is not such a handle of this
 *	module version, -ESRCH if it names no live export, -ELOOP if the
 *	caller's process made the allocation (driver 580's rule)
 * @out_addr: where the whole allocation is mapped, read-write for its GPU;
 *	MEM_FREE with CUFAB_MEM_FREE_IPC unmaps it
 * @out_length: its length
 * @out_dev: its GPU
 */
struct cufab_ipc_mem_import {
	__u32 size;
	__u32 flags;
	__u32 ctx_id;
	__u32 peer_dev;
	__u8 handle[CUFAB_IPC_MEM_HANDLE_LEN];
	__aligned_u64 out_addr;
	__aligned_u64 out_length;
	__u32 out_dev;
	__u32 __reserved;
};

#define CUFAB_IOCTL_IPC_MEM_IMPORT	_IO(CUFAB_TYPE, CUFAB_CMD_IPC_MEM_IMPORT)

/* ---- registered host memory (interface 1.9) ---- */

/* cufab_host_register.flags: CU_MEMHOSTREGISTER_* */
#define CUFAB_HOSTREG_PORTABLE		0x1
#define CUFAB_HOSTREG_DEVICEMAP		0x2
#define CUFAB_HOSTREG_IOMEMORY		0x4
#define CUFAB_HOSTREG_READ_ONLY		0x8
#define CUFAB_HOSTREG_VALID		0xf

/**
 * struct cufab_host_register - CUFAB_IOCTL_HOST_REGISTER (cuMemHostRegister)
 * @size: sizeof(struct cufab_host_register)
 * @flags: CUFAB_HOSTREG_*; others -EINVAL. IOMEMORY: -EINVAL for ordinary
 *	memory, -EPERM without CAP_SYS_RAWIO, else -EOPNOTSUPP (no virtual
 *	GPU reaches a third-party device's I/O space)
 * @ctx_id: the context current at the call (0: none), for
 *	CU_POINTER_ATTRIBUTE_CONTEXT; -ENOENT for no such context
 * @addr: first byte, any alignment
 * @length: bytes (not 0); the pages holding [@addr, @addr + @length) are
 *	pinned (FOLL_LONGTERM) and charged to the caller's locked_vm, so
 *	RLIMIT_MEMLOCK bounds them (-ENOMEM past it without CAP_IPC_LOCK).
 *	Without READ_ONLY they must be writable. -EFAULT for an unmapped or
 *	inaccessible page, -EINVAL for cufab memory, -EEXIST when one of
 *	the pages is registered by the caller already
 * @out_id: node-wide id of the registration (its allocation's,
 *	CU_POINTER_ATTRIBUTE_BUFFER_ID)
 *
 * The pages stay pinned until HOST_UNREGISTER or the end of the client;
 * copies and sets by the engine reach these pages whatever becomes of the
 * process's mapping meanwhile.
 */
struct cufab_host_register {
	__u32 size;
	__u32 flags;
	__u32 ctx_id;
	__u32 __reserved;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 out_id;
};

#define CUFAB_IOCTL_HOST_REGISTER	_IO(CUFAB_TYPE, CUFAB_CMD_HOST_REGISTER)

/**
 * struct cufab_host_unregister - CUFAB_IOCTL_HOST_UNREGISTER
 *	(cuMemHostUnregister)
 * @size: sizeof(struct cufab_host_unregister)
 * @flags: must be 0
 * @addr: the @addr a HOST_REGISTER of the caller was given; -ENOENT for
 *	any other address
 */
struct cufab_host_unregister {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
};

#define CUFAB_IOCTL_HOST_UNREGISTER	_IO(CUFAB_TYPE, CUFAB_CMD_HOST_UNREGISTER)

/* ---- dma-buf of an address range ---- */

/**
 * struct cufab_mem_range_export - CUFAB_IOCTL_MEM_RANGE_EXPORT
 *	(cuMemGetHandleForAddressRange, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)
 * @size: sizeof(struct cufab_mem_range_export)
 * @flags: must be 0
 * @addr: first byte, page-aligned
 * @length: bytes, page-aligned, not 0
 * @out_fd: a new dma-buf fd (O_CLOEXEC) of exactly the pages behind
 *	[@addr, @addr + @length), in order; it holds the allocations, so
 *	they outlive cuMemFree, cuMemUnmap and the client
 * @__reserved: must be 0
 *
 * The range lies in one cuMemAlloc allocation, or in one reservation
 * (VMM, or a pool's) mapped without a hole, every allocation behind it
 * on the same GPU with the same handle types and flags: -EINVAL
 * otherwise, and for an address that is not the caller's cufab memory.
 * Memory that is not a GPU's own (cuMemAllocHost, managed, host-located
 * cuMemCreate, multicast, another node's) is -EOPNOTSUPP. The fd is not a
 * POSIX_FD handle: MEM_IMPORT refuses it (-EINVAL).
 */
struct cufab_mem_range_export {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__s32 out_fd;
	__u32 __reserved;
};

#define CUFAB_IOCTL_MEM_RANGE_EXPORT	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_RANGE_EXPORT)

/* cufab_stream_submit.op */
enum cufab_op_kind {
	CUFAB_OP_NONE,
	CUFAB_OP_COPY,		/* @length bytes from @src to @dst */
	CUFAB_OP_SET,		/* @length elements of @elem_size bytes = @value */
	CUFAB_OP_HOST,		/* run @host_fn(@host_data) on the host thread */
	CUFAB_OP_EVENT_RECORD,	/* complete @event_id's record */
	CUFAB_OP_EVENT_WAIT,	/* wait for @event_id's last record */
	CUFAB_OP_ATTACH,	/* cuStreamAttachMemAsync of [@dst, +@length), @value (1.5) */
	CUFAB_OP_STREAM_WAIT,	/* wait for the work submitted so far on stream @event_id (1.6) */
	CUFAB_OP_PREFETCH,	/* cuMemPrefetchAsync of [@dst, +@length) (1.7) */
	CUFAB_OP_MAX,
};

/*
 * CUFAB_OP_STREAM_WAIT: @event_id names another stream of the client
 * (-ENOENT if none, -EINVAL for the submitting stream itself); the
 * operation completes once every operation submitted to that stream
 * before it has. The stream-ordered allocator inserts it to reuse memory
 * freed on that stream (CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES).
 * @dst, @src, @length, @value, @elem_size, @host_fn and @host_data must
 * be 0, as for the event operations.
 */

/*
 * CUFAB_OP_ATTACH: @value is exactly one CUFAB_ATTACH_* (-EINVAL else).
 * @dst is the base of a managed allocation of the client and @length 0 or
 * its whole (page-rounded) size; an interior address, a partial length,
 * cuMemAlloc/cuMemAllocHost/VMM memory and 0 are -EINVAL. Any other
 * address is pageable host memory: -EINVAL unless the stream's GPU has
 * CUFAB_DEV_F_PAGEABLE_ACCESS (driver 580's answer), and then @length must be non-zero and
 * the range mapped in the process (-EINVAL). The association changes when
 * the stream reaches the operation; when a stream the memory is attached
 * SINGLE to is destroyed and its work has drained, the allocation goes
 * back to its default association. The other fields must be 0 (@src_dev
 * and @dst_dev CUFAB_DEV_STREAM).
 */

/*
 * CUFAB_OP_PREFETCH: MEM_PREFETCH in stream order: @dst and @length the
 * range, @value the location type and @elem_size the location id (a
 * __s32); the stream's GPU is MEM_PREFETCH's @dev, and its rules and errors
 * apply when it is submitted. When the stream reaches it, it records the
 * last prefetch location and moves the pages; memory freed meanwhile is
 * no error. @src, @host_fn, @host_data and @event_id must be 0, @src_dev
 * and @dst_dev CUFAB_DEV_STREAM.
 */

/**
 * struct cufab_stream_submit - CUFAB_IOCTL_STREAM_SUBMIT
 * @size: sizeof(struct cufab_stream_submit)
 * @flags: must be 0
 * @stream_id: the stream
 * @op: enum cufab_op_kind
 * @dst: COPY, SET: destination address
 * @src: COPY: source address
 * @length: COPY: bytes; SET: elements
 * @value: SET: the element value (fits @elem_size)
 * @elem_size: SET: 1, 2 or 4 (@dst aligned to it)
 * @src_dev: COPY: GPU that reads @src, CUFAB_DEV_STREAM for the stream's
 * @dst_dev: COPY, SET: GPU that writes @dst, CUFAB_DEV_STREAM likewise
 * @host_fn: HOST: opaque, handed back by CUFAB_IOCTL_HOSTFN
 * @host_data: HOST: opaque, likewise
 * @event_id: EVENT_RECORD, EVENT_WAIT: the event; STREAM_WAIT: the stream
 * @__reserved: must be 0
 * @out_seq: the operation's sequence number in the stream
 * @out_event_seq: EVENT_RECORD: the record's number in the event
 *
 * Arguments are checked here (-EINVAL, -ENOENT for an unknown stream or
 * event, -ENODEV for a bad GPU, -ESHUTDOWN for a stream whose context is
 * gone); access to the memory is checked when the operation runs, and a
 * failure there (-EACCES, -EFAULT, -ENOMEM) lands in the stream's slot.
 */
struct cufab_stream_submit {
	__u32 size;
	__u32 flags;
	__u32 stream_id;
	__u32 op;
	__u64 dst;
	__u64 src;
	__u64 length;
	__u32 value;
	__u32 elem_size;
	__u32 src_dev;
	__u32 dst_dev;
	__u64 host_fn;
	__u64 host_data;
	__u32 event_id;
	__u32 __reserved;
	__u64 out_seq;
	__u64 out_event_seq;
};

#define CUFAB_DEV_STREAM		0xffffffffU

#define CUFAB_IOCTL_STREAM_SUBMIT	_IO(CUFAB_TYPE, CUFAB_CMD_STREAM_SUBMIT)

/* cufab_stream_wait.what */
enum cufab_wait_what {
	CUFAB_WAIT_STREAM,	/* @id: stream; until its slot reaches @seq */
	CUFAB_WAIT_EVENT,	/* @id: event; until its slot reaches @seq */
	CUFAB_WAIT_CTX,		/* @id: context; every stream of it idle */
	CUFAB_WAIT_MAX,
};

/* cufab_stream_wait.flags: STREAM, EVENT: -EAGAIN instead of sleeping */
#define CUFAB_WAIT_POLL		(1U << 0)

/**
 * struct cufab_stream_wait - CUFAB_IOCTL_STREAM_WAIT
 * @size: sizeof(struct cufab_stream_wait)
 * @flags: CUFAB_WAIT_POLL
 * @what: enum cufab_wait_what
 * @id: the stream, event or context
 * @seq: STREAM, EVENT: the sequence number to wait for; 0: the last one
 *	submitted (recorded) when the call starts. CTX: must be 0
 * @out_error: the slot's error (STREAM, EVENT) or the first stream error
 *	of the context (CTX), 0 for none
 * @__reserved: must be 0
 *
 * Sleeps interruptibly (-ERESTARTSYS on a signal); -ENOENT for no such
 * object, -EINVAL for a @seq not submitted yet.
 */
struct cufab_stream_wait {
	__u32 size;
	__u32 flags;
	__u32 what;
	__u32 id;
	__u64 seq;
	__s32 out_error;
	__u32 __reserved;
};

#define CUFAB_IOCTL_STREAM_WAIT	_IO(CUFAB_TYPE, CUFAB_CMD_STREAM_WAIT)

/* cufab_hostfn.flags */
#define CUFAB_HOSTFN_DONE	(1U << 0)	/* @done_token has returned */

/**
 * struct cufab_hostfn - CUFAB_IOCTL_HOSTFN, the library's host thread
 * @size: sizeof(struct cufab_hostfn)
 * @flags: CUFAB_HOSTFN_DONE
 * @done_token: with CUFAB_HOSTFN_DONE: the host operation that returned;
 *	its stream moves on (-ENOENT if no such token)
 * @out_token: the next host operation to run
 * @out_fn: its host_fn
 * @out_data: its host_data
 * @out_status: 0, or the stream's error the operation was reached with
 * @__reserved: must be 0
 *
 * Then sleeps (interruptibly) until a host operation reaches the head of
 * its stream and returns it. Host operations of all the client's streams
 * come in the order they became runnable.
 */
struct cufab_hostfn {
	__u32 size;
	__u32 flags;
	__u64 done_token;
	__u64 out_token;
	__u64 out_fn;
	__u64 out_data;
	__s32 out_status;
	__u32 __reserved;
};

#define CUFAB_IOCTL_HOSTFN		_IO(CUFAB_TYPE, CUFAB_CMD_HOSTFN)

/* ---- stream memory operations (uapi 1.8) ---- */

/* cufab_memop.op */
enum cufab_memop_kind {
	CUFAB_MEMOP_NONE,
	CUFAB_MEMOP_WAIT32,	/* until the u32 at @addr meets @flags, @value */
	CUFAB_MEMOP_WRITE32,	/* store @value as a u32 at @addr */
	CUFAB_MEMOP_WAIT64,	/* as WAIT32 on a u64 */
	CUFAB_MEMOP_WRITE64,	/* as WRITE32 of a u64 */
	CUFAB_MEMOP_MAX,
};

/* cufab_memop.flags of a wait: its condition, on the value v at @addr */
enum cufab_memop_cond {
	CUFAB_MEMOP_GEQ,	/* (s32 or s64)(v - @value) >= 0 (cyclic) */
	CUFAB_MEMOP_EQ,		/* v == @value */
	CUFAB_MEMOP_AND,	/* (v & @value) != 0 */
	CUFAB_MEMOP_NOR,	/* ~(v | @value) != 0 */
	CUFAB_MEMOP_COND_MAX,
};

/**
 * struct cufab_memop - one entry of a STREAM_MEMOP batch
 * @op: enum cufab_memop_kind
 * @flags: a wait: enum cufab_memop_cond; a write: 0
 * @addr: aligned to the value's size; device, managed or pinned host
 *	memory of the process, or any memory of it when the stream's GPU
 *	has CUFAB_DEV_F_PAGEABLE_ACCESS (-EINVAL otherwise)
 * @value: the operand; a 32-bit operation's fits in 32 bits
 */
struct cufab_memop {
	__u32 op;
	__u32 flags;
	__u64 addr;
	__u64 value;
};

/* Entries of one batch: cuStreamBatchMemOp's "less than 256". */
#define CUFAB_MEMOP_MAX_BATCH		255

/**
 * struct cufab_stream_memop - CUFAB_IOCTL_STREAM_MEMOP
 * @size: sizeof(struct cufab_stream_memop)
 * @flags: must be 0
 * @stream_id: the stream (-ENOENT for none, -ESHUTDOWN once its context
 *	is gone)
 * @count: entries at @ops_ptr, 1..CUFAB_MEMOP_MAX_BATCH
 * @ops_ptr: user pointer to @count struct cufab_memop (-EFAULT)
 * @out_seq: the batch's sequence number in the stream
 *
 * The batch is one operation of the stream: when the stream reaches it,
 * the engine runs the entries in order. A write stores its value after a
 * full memory barrier; a wait whose condition does not hold parks the
 * stream (not the engine) until it does: every write of a STREAM_MEMOP
 * of any process re-checks the parked waits at once, and a write by a CPU
 * is seen at the next re-check, on a timer from 10 us backing off to 1 ms.
 * Arguments are checked here (-EINVAL); access to the memory when an
 * entry runs, as for CUFAB_OP_SET, and a failure there lands in the
 * stream's slot.
 */
struct cufab_stream_memop {
	__u32 size;
	__u32 flags;
	__u32 stream_id;
	__u32 count;
	__u64 ops_ptr;
	__u64 out_seq;
};

#define CUFAB_IOCTL_STREAM_MEMOP	_IO(CUFAB_TYPE, CUFAB_CMD_STREAM_MEMOP)

/* Entries of one CUFAB_IOCTL_STREAM_BATCH. */
#define CUFAB_BATCH_MAX			4096

/**
 * struct cufab_stream_batch - CUFAB_IOCTL_STREAM_BATCH (1.9)
 * @size: sizeof(struct cufab_stream_batch)
 * @flags: must be 0
 * @stream_id: the stream (-ENOENT for none, -ESHUTDOWN once its context
 *	is gone)
 * @count: entries at @ops_ptr, 1..CUFAB_BATCH_MAX and at most the
 *	stream_queue_max module parameter
 * @ops_ptr: user pointer to @count struct cufab_stream_submit, each with
 *	@size its sizeof and @stream_id 0 (-EFAULT if not readable)
 * @out_seq: the last entry's sequence number in the stream
 *
 * @count operations of one stream in one call: a graph launch. Every
 * entry is checked and built as CUFAB_IOCTL_STREAM_SUBMIT would before
 * any is queued, so a refused entry queues nothing; then the entries are
 * queued in order, each after the one before it (the stream's order is
 * the batch's dependency order). Each entry's out_seq and out_event_seq
 * are written back to its place at @ops_ptr.
 */
struct cufab_stream_batch {
	__u32 size;
	__u32 flags;
	__u32 stream_id;
	__u32 count;
	__u64 ops_ptr;
	__u64 out_seq;
};

#define CUFAB_IOCTL_STREAM_BATCH	_IO(CUFAB_TYPE, CUFAB_CMD_STREAM_BATCH)

/*
 * Generic netlink: family "cufab", administration and observation.
 * Per-process work never goes through netlink. Documented in
 * Documentation/netlink/cufab.yaml.
 */
#define CUFAB_GENL_NAME			"cufab"
#define CUFAB_GENL_VERSION		1
#define CUFAB_GENL_MCGRP_EVENTS		"events"

enum cufab_genl_cmd {
	CUFAB_NL_CMD_UNSPEC,
	CUFAB_NL_CMD_DEV_GET,	/* do (CUFAB_NL_A_DEV_INDEX) or dump */
	CUFAB_NL_CMD_DEV_SET,	/* do; CAP_NET_ADMIN; -EBUSY while a client is open */
	CUFAB_NL_CMD_TOPO_GET,	/* do: node-wide topology */
	CUFAB_NL_CMD_TOPO_SET,	/* do; CAP_NET_ADMIN; -EBUSY while a client is open */
	CUFAB_NL_CMD_ALLOC_GET,	/* dump: one message per live allocation */
	CUFAB_NL_CMD_LE_GET,	/* dump: one message per client with endpoint state */
	CUFAB_NL_CMD_MC_GET,	/* dump: one message per multicast object */
	CUFAB_NL_CMD_MC_EVENT,	/* notification: multimem skipped replicas */
	CUFAB_NL_CMD_PEER_GET,	/* dump: one message per peer access link */
	CUFAB_NL_CMD_POOL_GET,	/* dump: one message per memory pool */
	CUFAB_NL_CMD_STREAM_GET,	/* dump: one message per stream */
	CUFAB_NL_CMD_STREAM_EVENT,	/* notification: a stream failed */
	CUFAB_NL_CMD_MANAGED_EVENT,	/* notification: managed memory access refused/reported */
	CUFAB_NL_CMD_PROC_GET,	/* dump: one message per process with /dev/cufab open */
	CUFAB_NL_CMD_DOMAIN_GET,	/* dump: one message per node of the fabric domain */
	__CUFAB_NL_CMD_MAX,
};

#define CUFAB_NL_CMD_MAX (__CUFAB_NL_CMD_MAX - 1)

/*
 * CUFAB_NL_A_MANAGED_KIND of a MANAGED_EVENT:
 * @CUFAB_MANAGED_EV_CPU_FAULT: a CPU access to managed memory while a
 *	stream of a GPU with CONCURRENT_MANAGED_ACCESS 0 keeps it (attached
 *	GLOBAL, or SINGLE to that stream) got SIGSEGV
 * @CUFAB_MANAGED_EV_CHECK_STREAM: check mode (managed_check): an operation
 *	of a stream touched managed memory attached SINGLE to another stream
 * @CUFAB_MANAGED_EV_CHECK_HOST: check mode: an operation of a stream of a
 *	GPU with CONCURRENT_MANAGED_ACCESS 0 touched memory attached HOST
 */
enum cufab_managed_event {
	CUFAB_MANAGED_EV_CPU_FAULT = 1,
	CUFAB_MANAGED_EV_CHECK_STREAM,
	CUFAB_MANAGED_EV_CHECK_HOST,
};

/*
 * CUFAB_NL_A_TOPO_FABRIC_STATE (module parameter fabric_state): whether
 * the fabric software is usable; binds and multicast joins fail with
 * CUDA_ERROR_SYSTEM_NOT_READY or CUDA_ERROR_ILLEGAL_STATE otherwise.
 * DEGRADED is usable, with fewer links than the topology's: only its
 * health reports (NVML) say so.
 */
/*
 * CUFAB_NL_A_DOMAIN_STATE: what a node's record in the fabric window's
 * domain header says (Documentation/multinode.rst "The domain header").
 * A node without a window knows only itself: UP.
 */
enum cufab_domain_state {
	CUFAB_DOMAIN_ABSENT,	/* never joined this window */
	CUFAB_DOMAIN_UP,	/* joined; ALIVE says whether it still beats */
	CUFAB_DOMAIN_LEFT,	/* unloaded cufab */
};

/*
 * CUFAB_NL_A_DOMAIN_LINK: this node's daemon's connection to that node, as
 * the daemon last reported it (cufab_imex LINK); nvidia-imex-ctl -N's
 * letters in parentheses.
 */
enum cufab_domain_link {
	CUFAB_LINK_UNKNOWN,	/* no daemon, or it has not said */
	CUFAB_LINK_NEVER,	/* never connected (N) */
	CUFAB_LINK_AUTH,	/* connected, handshake in progress (A) */
	CUFAB_LINK_UP,		/* connected (C) */
	CUFAB_LINK_LOST,	/* lost, within the grace time (R) */
	CUFAB_LINK_GONE,	/* lost and cleaned up, or its daemon stopped (D) */
};

enum cufab_fabric_state {
	CUFAB_FABRIC_OK,
	CUFAB_FABRIC_NOT_READY,
	CUFAB_FABRIC_ILLEGAL,
	CUFAB_FABRIC_DEGRADED,
};

enum cufab_genl_attr {
	CUFAB_NL_A_UNSPEC,
	CUFAB_NL_A_DEV,			/* nest: one GPU (TOPO_GET replies) */
	CUFAB_NL_A_DEV_INDEX,		/* u32 */
	CUFAB_NL_A_DEV_NAME,		/* string */
	CUFAB_NL_A_DEV_UUID,		/* binary, CUFAB_UUID_LEN */
	CUFAB_NL_A_DEV_BUS_ID,		/* string, "0000:41:00.0" */
	CUFAB_NL_A_DEV_MEM_TOTAL,		/* u64, bytes */
	CUFAB_NL_A_DEV_MEM_USED,		/* u64, bytes */
	CUFAB_NL_A_DEV_NUMA_NODE,		/* s32, -1 = none */
	CUFAB_NL_A_DEV_CLIQUE,		/* u32 */
	CUFAB_NL_A_DEV_FEATURES,		/* u32, enum cufab_device_feature */
	CUFAB_NL_A_DEV_PEERS,		/* u64, bitmask of reachable GPUs */
	CUFAB_NL_A_TOPO_NUM_GPUS,		/* u32 */
	CUFAB_NL_A_TOPO_NVSWITCH,		/* u8: peers through a virtual NVSwitch */
	CUFAB_NL_A_TOPO_CLIENTS,		/* u32, open clients (read only) */
	CUFAB_NL_A_TOPO_LIVE_OBJECTS,	/* u64, live kernel objects (read only) */
	CUFAB_NL_A_PAD,
	CUFAB_NL_A_DEV_FEATURES_MASK,	/* u32, DEV_SET: which feature bits to change */
	CUFAB_NL_A_ALLOC_ID,		/* u64 */
	CUFAB_NL_A_ALLOC_PID,		/* u32, the creating process */
	CUFAB_NL_A_ALLOC_COMM,		/* string, its comm */
	CUFAB_NL_A_ALLOC_LOC_TYPE,	/* u32, CUmemLocationType */
	CUFAB_NL_A_ALLOC_LOC_ID,	/* s32 */
	CUFAB_NL_A_ALLOC_SIZE,		/* u64, bytes */
	CUFAB_NL_A_ALLOC_RESIDENT,	/* u64, bytes populated so far */
	CUFAB_NL_A_ALLOC_HANDLE_TYPES,	/* u32, CUmemAllocationHandleType bits */
	CUFAB_NL_A_ALLOC_LINEAR,	/* u8: a linear (cuMemAlloc) allocation */
	CUFAB_NL_A_DEV_MEM_GRAN,	/* u64, cuMemCreate MINIMUM granularity */
	CUFAB_NL_A_DEV_MEM_GRAN_REC,	/* u64, RECOMMENDED */
	CUFAB_NL_A_DEV_MC_GRAN,		/* u64, multicast MINIMUM granularity */
	CUFAB_NL_A_DEV_MC_GRAN_REC,	/* u64, multicast RECOMMENDED */
	CUFAB_NL_A_PID,			/* u32, a process (LE_GET, MC_GET) */
	CUFAB_NL_A_COMM,		/* string, its comm */
	CUFAB_NL_A_LE_RANGE,		/* nest: reserved ids, multi */
	CUFAB_NL_A_LE_RANGE_BASE,	/* u32 */
	CUFAB_NL_A_LE_RANGE_COUNT,	/* u32 */
	CUFAB_NL_A_LE,			/* nest: one associated id, multi */
	CUFAB_NL_A_LE_ID,		/* u32, the process's id */
	CUFAB_NL_A_LE_ENDPOINT,		/* u64, node-wide endpoint number */
	CUFAB_NL_A_LE_TYPE,		/* u32, CUFAB_LE_TYPE_* */
	CUFAB_NL_A_LE_SIZE,		/* u64 */
	CUFAB_NL_A_LE_FLAGS,		/* u32, CUFAB_LE_FLAG_* */
	CUFAB_NL_A_LE_IPC_TYPES,	/* u32, CUFAB_LE_IPC_* */
	CUFAB_NL_A_LE_READY,		/* u8, constructed */
	CUFAB_NL_A_LE_ALIASES,		/* u32, ids naming it node-wide */
	CUFAB_NL_A_LE_EXPORTER_PID,	/* u32, 0: not exported */
	CUFAB_NL_A_LE_IMPORTED,		/* u8, this id came from LE_IMPORT */
	CUFAB_NL_A_TEAM_SIZE,		/* u32, devices wanted (numDevices) */
	CUFAB_NL_A_TEAM_JOINED,		/* u32, devices added so far */
	CUFAB_NL_A_TEAM_DEVS,		/* u64, bitmask of the added GPUs */
	CUFAB_NL_A_TEAM_WAITERS,	/* u32, callers blocked on the team */
	CUFAB_NL_A_BINDING,		/* nest: one binding, multi */
	CUFAB_NL_A_BIND_DEV,		/* u32 */
	CUFAB_NL_A_BIND_OFFSET,		/* u64 */
	CUFAB_NL_A_BIND_SIZE,		/* u64 */
	CUFAB_NL_A_BIND_ALLOC_ID,	/* u64 */
	CUFAB_NL_A_BIND_MEM_OFFSET,	/* u64 */
	CUFAB_NL_A_BIND_PID,		/* u32, the binding process */
	CUFAB_NL_A_MC_ID,		/* u64, node-wide (its allocation id) */
	CUFAB_NL_A_MC_SIZE,		/* u64 */
	CUFAB_NL_A_MC_HANDLE_TYPES,	/* u32 */
	CUFAB_NL_A_MC_SKIPPED,		/* u64, replicas skipped by multimem */
	CUFAB_NL_A_MC_HANDLES,		/* u32, handles + imports node-wide */
	CUFAB_NL_A_PEER_CTX,		/* u32, the context with access (PEER_GET) */
	CUFAB_NL_A_PEER_DEV,		/* u32, its GPU */
	CUFAB_NL_A_PEER_PEER_CTX,	/* u32, the context it reaches */
	CUFAB_NL_A_PEER_PEER_DEV,	/* u32, that context's GPU */
	CUFAB_NL_A_DEV_PEER_COUNT,	/* u32, distinct peer GPUs enabled (DEV_GET) */
	CUFAB_NL_A_TOPO_CLUSTER_UUID,	/* binary, CUFAB_UUID_LEN: fabric cluster */
	CUFAB_NL_A_POOL_ID,		/* u32, node-wide pool id (POOL_GET) */
	CUFAB_NL_A_POOL_LOC_TYPE,	/* u32, CUFAB_LOC_* */
	CUFAB_NL_A_POOL_LOC_ID,		/* s32, GPU, NUMA node, -1 (host) */
	CUFAB_NL_A_POOL_HANDLE_TYPES,	/* u32, CUFAB_HANDLE_* bits */
	CUFAB_NL_A_POOL_DEFAULT,	/* u8, a process's default pool */
	CUFAB_NL_A_POOL_MAX_SIZE,	/* u64, the cap (32 MiB multiple) */
	CUFAB_NL_A_POOL_RESERVED,	/* u64, bytes of live chunks */
	CUFAB_NL_A_POOL_RESERVED_HIGH,	/* u64, their high-water mark */
	CUFAB_NL_A_POOL_THRESHOLD,	/* u64, RELEASE_THRESHOLD */
	CUFAB_NL_A_POOL_IMPORTERS,	/* u32, pool objects of other processes */
	CUFAB_NL_A_POOL_PTRS,		/* u32, exported pointers */
	CUFAB_NL_A_STREAM_UID,		/* u64, node-wide stream id (STREAM_GET) */
	CUFAB_NL_A_STREAM_CTX,		/* u32, its context (the process's id) */
	CUFAB_NL_A_STREAM_DEV,		/* u32, the context's GPU */
	CUFAB_NL_A_STREAM_FLAGS,	/* u32, CUFAB_STREAM_* */
	CUFAB_NL_A_STREAM_PRIORITY,	/* s32, CUFAB_STREAM_PRIO_GREATEST..0 */
	CUFAB_NL_A_STREAM_DEPTH,	/* u32, operations queued */
	CUFAB_NL_A_STREAM_SUBMITTED,	/* u64, last sequence number submitted */
	CUFAB_NL_A_STREAM_COMPLETED,	/* u64, last sequence number completed */
	CUFAB_NL_A_STREAM_RUNNING,	/* string, the operation running, if any */
	CUFAB_NL_A_STREAM_ERROR,	/* s32, sticky error (-errno), 0 for none */
	CUFAB_NL_A_STREAM_OP,		/* string, STREAM_EVENT: the failed operation */
	CUFAB_NL_A_STREAM_SEQ,		/* u64, STREAM_EVENT: its sequence number */
	CUFAB_NL_A_TOPO_RACE_DELAY_US,	/* u32, race exposure: delay (race_delay_us) */
	CUFAB_NL_A_TOPO_RACE_SEED,	/* u32, race exposure: seed (race_seed) */
	CUFAB_NL_A_MANAGED_KIND,	/* u32, enum cufab_managed_event */
	CUFAB_NL_A_MANAGED_ADDR,	/* u64, no longer sent (see OFFSET) */
	CUFAB_NL_A_MANAGED_ALLOC_ID,	/* u64, the allocation (ALLOC_GET's id) */
	CUFAB_NL_A_MANAGED_ATTACH,	/* u32, its CUFAB_ATTACH_* now */
	CUFAB_NL_A_MANAGED_STREAM,	/* u64, uid of the busy or attached stream */
	CUFAB_NL_A_MANAGED_DEV,		/* u32, that stream's GPU */
	CUFAB_NL_A_MANAGED_BY_STREAM,	/* u64, uid of the accessing stream (checks) */
	CUFAB_NL_A_TOPO_MANAGED_CHECK,	/* u32, 0 off, 1 report, 2 strict (managed_check) */
	CUFAB_NL_A_POOL_REUSE,		/* u32, BIT(CUFAB_POOL_ATTR_REUSE_*) on (1.7) */
	CUFAB_NL_A_MANAGED_OFFSET,	/* u64, where in the allocation the access was */
	CUFAB_NL_A_PROC_CONTEXTS,	/* u32, contexts (PROC_GET) */
	CUFAB_NL_A_PROC_MEM_HANDLES,	/* u32, memory and multicast handles */
	CUFAB_NL_A_PROC_STREAMS,	/* u32, streams */
	CUFAB_NL_A_PROC_EVENTS,		/* u32, events */
	CUFAB_NL_A_PROC_POOLS,		/* u32, memory pools */
	CUFAB_NL_A_PROC_MEM_BYTES,	/* u64, bytes behind its memory handles */
	CUFAB_NL_A_DEV_CC_MAJOR,	/* u32, compute capability (attribute 75) */
	CUFAB_NL_A_DEV_CC_MINOR,	/* u32, (attribute 76) */
	CUFAB_NL_A_TOPO_FABRIC_STATE,	/* u32, enum cufab_fabric_state */
	CUFAB_NL_A_DEV_PCI_DEVICE_ID,	/* u32, device << 16 | vendor (attribute 139) */
	CUFAB_NL_A_DEV_PCI_SUBSYS_ID,	/* u32, subsystem << 16 | vendor (140) */
	CUFAB_NL_A_TOPO_NVSWITCH_BUS_ID,	/* string, the virtual NVSwitch's PCI id */
	CUFAB_NL_A_TOPO_NVSWITCH_PCI_ID,	/* u32, its device << 16 | vendor */
	CUFAB_NL_A_DOMAIN_NODE,		/* u32, a node index (DOMAIN_GET) */
	CUFAB_NL_A_DOMAIN_SELF,		/* u8, the node that answers */
	CUFAB_NL_A_DOMAIN_STATE,	/* u32, enum cufab_domain_state */
	CUFAB_NL_A_DOMAIN_ALIVE,	/* u8, its heartbeat moves in the window */
	CUFAB_NL_A_DOMAIN_GENERATION,	/* u64, its loads since the window's start */
	CUFAB_NL_A_DOMAIN_INSTANCE,	/* u64, its kernel's instance id */
	CUFAB_NL_A_DOMAIN_HEARTBEAT,	/* u64, its heartbeat (one a second) */
	CUFAB_NL_A_DOMAIN_DAEMON,	/* u8, SELF only: a cufab-imexd is registered */
	CUFAB_NL_A_DOMAIN_LINK,		/* u32, enum cufab_domain_link (the daemon's) */
	__CUFAB_NL_A_MAX,
};

#define CUFAB_NL_A_MAX (__CUFAB_NL_A_MAX - 1)
/* the name before 1.10, kept so that programs using it still build */
#define CUFAB_NL_A_ALLOC_LEGACY CUFAB_NL_A_ALLOC_LINEAR

#endif /* _UAPI_LINUX_CUFAB_H */
