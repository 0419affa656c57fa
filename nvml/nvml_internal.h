/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Internal interfaces of libnvidia-ml.so.1 (nvml/): the kernel's view of
 * the node (nl.c) and the device handles (init.c) the entry points share.
 */
#ifndef CUFAB_NVML_INTERNAL_H
#define CUFAB_NVML_INTERNAL_H

#include <linux/cufab.h>

#include "cufab/nvml.h"

#define NVML_EXPORT __attribute__((visibility("default")))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One GPU as TOPO_GET reports it. */
struct nvml_gpu {
	__u32 index;
	char name[CUFAB_NAME_LEN];
	__u8 uuid[CUFAB_UUID_LEN];
	char bus_id[16];		/* "0000:41:00.0" */
	__u64 mem_total;
	__u64 mem_used;
	__s32 numa_node;		/* -1: none */
	__u32 clique;
	__u32 features;			/* enum cufab_device_feature, configured */
	__u64 peers;			/* GPUs it reaches */
	__u32 cc_major, cc_minor;
	__u32 pci_device_id, pci_subsys_id;
};

/* The node: TOPO_GET's answer. */
struct nvml_topo {
	__u32 num_gpus;
	__u32 num_read;			/* dev nests read, in index order */
	int nvswitch;
	__u8 cluster_uuid[CUFAB_UUID_LEN];
	__u32 fabric_state;		/* enum cufab_fabric_state */
	int have_fabric_state;
	char nvswitch_bus_id[16];	/* "0000:05:00.0" */
	__u32 nvswitch_pci_id;
	struct nvml_gpu gpus[CUFAB_MAX_GPUS];
};

/* nl.c: 0, -ENOENT (module not loaded), -EPROTO (too old) or -errno. */
int nvml_topo_read(struct nvml_topo *t);
/* The same for GPU @index alone; -ENODEV when the node has no such GPU. */
int nvml_gpu_read(unsigned int index, struct nvml_gpu *g);
void nvml_nl_close(void);

/* init.c */
struct nvmlDevice_st {
	unsigned int index;
};

/*
 * The common prologue of a device query: initialised (UNINITIALIZED),
 * a handle of this library and @args_ok, the caller's pointers
 * (INVALID_ARGUMENT), the node read now and the
 * GPU still there (GPU_IS_LOST). On success *@t holds the node, to be
 * released with nvml_topo_put(), and *@g the device's GPU.
 */
nvmlReturn_t nvml_device(nvmlDevice_t device, int args_ok,
			 struct nvml_topo **t, const struct nvml_gpu **g);
/*
 * nvml_device() for a query about the device alone: *@g is its GPU, read
 * now (DEV_GET), with nothing to release.
 */
nvmlReturn_t nvml_gpu_get(nvmlDevice_t device, int args_ok,
			  struct nvml_gpu *g);
/* The node alone, for an already checked library state. */
nvmlReturn_t nvml_topo_get(struct nvml_topo **t);
void nvml_topo_put(struct nvml_topo *t);
/* Whether @device is one of this library's handles, of a GPU seen at init. */
int nvml_handle_ok(nvmlDevice_t device);
int nvml_initialised(void);
nvmlDevice_t nvml_handle(unsigned int index);

/* "GPU-" and the 36 characters of a UUID, as cuDeviceGetUuid's bytes. */
#define NVML_UUID_STR_LEN	41
void nvml_uuid_format(const __u8 *u, char *out);

/* device.c: the PCI location of a GPU, as nvmlDeviceGetPciInfo_v3 gives it. */
void nvml_pci_info(const struct nvml_gpu *g, nvmlPciInfo_t *pci);
/* Copies @src to @dst of @length bytes, or INSUFFICIENT_SIZE. */
nvmlReturn_t nvml_copy_string(char *dst, unsigned int length, const char *src);

#endif /* CUFAB_NVML_INTERNAL_H */
