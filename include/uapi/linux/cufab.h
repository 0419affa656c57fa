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
 * new ioctls; the library needs at least the MINOR it was built with.
 */
#define CUFAB_VERSION_MAJOR		1
#define CUFAB_VERSION_MINOR		0

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

/* ---- memory (cuMemCreate, VMM, legacy, sharing, IMEX) ---- */

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
 * @location_type: enum cufab_mem_location (DEVICE or HOST_NUMA)
 * @location_id: GPU index for DEVICE, host NUMA node for HOST_NUMA
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
 * struct cufab_mem_alloc - CUFAB_IOCTL_MEM_ALLOC (cuMemAlloc, cuMemAllocHost)
 * @flags: CUFAB_MEM_ALLOC_HOST for page-locked host memory
 * @dev: GPU whose memory (or, for host memory, whose context) it is
 * @length: bytes (rounded up to the page size by the kernel)
 * @out_addr: the mapped, accessible address
 *
 * One call does create + reserve + map + access for @dev (and the host).
 */
struct cufab_mem_alloc {
	__u32 size;
	__u32 flags;
	__u32 dev;
	__u32 __reserved;
	__aligned_u64 length;
	__aligned_u64 out_addr;
};

#define CUFAB_IOCTL_MEM_ALLOC	_IO(CUFAB_TYPE, CUFAB_CMD_MEM_ALLOC)
#define CUFAB_MEM_ALLOC_HOST		0x1

struct cufab_mem_free {
	__u32 size;
	__u32 flags;		/* CUFAB_MEM_ALLOC_HOST for cuMemFreeHost */
	__aligned_u64 addr;
};

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

/* MEM_SET: cuMemsetD8/D16/D32 */
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
	__aligned_u64 out_range_base;	/* allocation (legacy) or mapping start */
	__aligned_u64 out_range_length;
	/* node-wide id of the allocation, for CU_POINTER_ATTRIBUTE_BUFFER_ID */
	__aligned_u64 out_alloc_id;
	__u32 out_access_flags;		/* for the host */
	__u32 out_alloc_flags;
	__aligned_u64 out_va_base;	/* reservation or legacy range, 0: none */
	__aligned_u64 out_va_length;	/* its length (RANGE_START_ADDR/SIZE) */
};

#define CUFAB_IOCTL_POINTER_INFO	_IO(CUFAB_TYPE, CUFAB_CMD_POINTER_INFO)
#define CUFAB_PTR_F_CUFAB		0x1	/* addr is in a cufab range */
#define CUFAB_PTR_F_MAPPED		0x2	/* backed by an allocation */
#define CUFAB_PTR_F_LEGACY		0x4	/* from MEM_ALLOC */
#define CUFAB_PTR_F_VMM			0x8	/* from MEM_MAP */

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
	__CUFAB_NL_CMD_MAX,
};

#define CUFAB_NL_CMD_MAX (__CUFAB_NL_CMD_MAX - 1)

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
	CUFAB_NL_A_ALLOC_LEGACY,	/* u8: a legacy (cuMemAlloc) allocation */
	__CUFAB_NL_A_MAX,
};

#define CUFAB_NL_A_MAX (__CUFAB_NL_A_MAX - 1)

#endif /* _UAPI_LINUX_CUFAB_H */
