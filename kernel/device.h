/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cufab virtual GPUs and the fabric topology that connects them.
 *
 * The topology (number of GPUs, their cliques, peers, NUMA nodes, features
 * and capacities) is node-wide state. It is read by every ioctl and netlink
 * GET, and written only by the module parameters at load and by netlink SET
 * while no client is open, so a client never sees it change under it.
 */
#ifndef _CUFAB_DEVICE_H
#define _CUFAB_DEVICE_H

#include <linux/atomic.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/cufab.h>

struct seq_file;
struct cufab_ucmd;

#define CUFAB_GPU_NAME		"cufab Virtual GPU"
/* PCI-like location: domain 0, bus 0x41 + index, device 0, function 0. */
#define CUFAB_PCI_DOMAIN	0
#define CUFAB_PCI_BUS_BASE	0x41
#define CUFAB_PCI_DEVICE	0
/* "0000:41:00.0" plus NUL */
#define CUFAB_BUS_ID_LEN	13

/* Capacity limits of one virtual GPU, in MiB (module parameter mem_mib). */
#define CUFAB_MEM_MIB_MIN	1UL
#define CUFAB_MEM_MIB_MAX	(1024UL * 1024)	/* 1 TiB */

/**
 * struct cufab_gpu - one virtual GPU
 * @index: kernel index, 0 .. num_gpus - 1; also defines UUID and bus id
 * @clique: fabric clique id
 * @numa_node: host NUMA node closest to the GPU, NUMA_NO_NODE for none
 * @features: configured enum cufab_device_feature bits
 * @peers: bit i set when GPU i is reachable as a peer; never the own bit
 * @mem_total: capacity in bytes
 * @mem_used: bytes allocated by clients (accounted by later memory code)
 */
struct cufab_gpu {
	u32 index;
	u32 clique;
	int numa_node;
	u32 features;
	u64 peers;
	u64 mem_total;
	atomic64_t mem_used;
};

/**
 * struct cufab_topo - the virtual node
 * @num_gpus: entries of @gpus
 * @nvswitch: GPUs of one clique reach each other through a virtual
 *	NVSwitch: peers follow cliques and switch multicast is possible
 * @default_mem: capacity given to GPUs added by a resize, in bytes
 * @gpus: the GPUs, indexed by kernel index
 */
struct cufab_topo {
	u32 num_gpus;
	bool nvswitch;
	u64 default_mem;
	struct cufab_gpu *gpus;
};

/**
 * struct cufab_params - module parameters describing the initial topology
 * @num_gpus: number of GPUs
 * @mem_mib: capacity of each GPU in MiB
 * @cliques: "0-3" or "0,1;2,3": ';' separates cliques, NULL = one clique
 * @numa_nodes: one NUMA node per GPU, "0,0,1,1"; NULL = spread over nodes
 * @nvswitch: peers follow cliques
 * @peers: peer pairs "0-1,2-3" (only with !nvswitch)
 * @features: per-GPU enum cufab_device_feature override "0x1ff,0x3"; GPUs
 *	past the end of the list keep all features
 */
struct cufab_params {
	unsigned int num_gpus;
	unsigned long mem_mib;
	const char *cliques;
	const char *numa_nodes;
	bool nvswitch;
	const char *peers;
	const char *features;
};

/* params.c: build a topology from module parameters */
int cufab_topo_build(struct cufab_topo *topo, const struct cufab_params *p);
int cufab_parse_cliques(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_parse_numa_nodes(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_parse_peers(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_parse_features(const char *str, struct cufab_gpu *gpus, u32 n);

/* device.c: topology helpers, usable on any struct cufab_topo */
void cufab_gpu_init(struct cufab_gpu *gpu, u32 index, u64 mem_total);
int cufab_default_numa_node(u32 index);
bool cufab_numa_node_valid(int node);
void cufab_topo_update_peers(struct cufab_topo *topo);
int cufab_topo_resize(struct cufab_topo *topo, u32 num_gpus);
void cufab_topo_free(struct cufab_topo *topo);
void cufab_gpu_uuid(u32 index, u8 uuid[CUFAB_UUID_LEN]);
void cufab_gpu_bus_id(u32 index, char buf[CUFAB_BUS_ID_LEN]);
u32 cufab_gpu_effective_features(const struct cufab_topo *topo,
				 const struct cufab_gpu *gpu);

/* device_attr.c: the CUdevice_attribute table of one GPU */
void cufab_gpu_attrs_fill(const struct cufab_topo *topo,
			  const struct cufab_gpu *gpu,
			  s32 attrs[CUFAB_NUM_DEVICE_ATTRS]);

/*
 * The node's topology. Readers hold cufab_topo_rwsem for read. Writers hold
 * it for write inside cufab_topo_change_begin()/end(), which also keeps
 * clients from opening meanwhile and fails with -EBUSY while one is open.
 */
extern struct cufab_topo cufab_node;
extern struct rw_semaphore cufab_topo_rwsem;

int cufab_node_init(const struct cufab_params *p);
void cufab_node_exit(void);
struct cufab_gpu *cufab_node_gpu(u32 index);
u32 cufab_node_num_gpus(void);
bool cufab_node_gpu_exists(u32 index);
int cufab_topo_change_begin(void);
void cufab_topo_change_end(void);
void cufab_node_show(struct seq_file *m);

int cufab_ioctl_device_info(struct cufab_ucmd *ucmd);

/*
 * Granularities in bytes (powers of two) of GPU @gpu: cuMemCreate's and
 * the multicast ones, MINIMUM or RECOMMENDED. cufab_mc_granularity() is
 * the node-wide multicast value: a multicast object belongs to no GPU at
 * create, so its size must suit every GPU that may join.
 */
u64 cufab_gpu_mem_gran(u32 gpu, bool recommended);
u64 cufab_gpu_mc_gran(u32 gpu, bool recommended);
u64 cufab_mc_granularity(bool recommended);

#endif /* _CUFAB_DEVICE_H */
