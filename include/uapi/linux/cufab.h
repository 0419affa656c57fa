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

/* CUctx_flags bits the kernel accepts (CU_CTX_SCHED_MASK | MAP_HOST |
 * LMEM_RESIZE_TO_MAX | COREDUMP | USER_COREDUMP | SYNC_MEMOPS). */
#define CUFAB_CTX_FLAGS_VALID		0xbfU

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
	__CUFAB_NL_A_MAX,
};
#define CUFAB_NL_A_MAX (__CUFAB_NL_A_MAX - 1)

#endif /* _UAPI_LINUX_CUFAB_H */
