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
#include <linux/uuid.h>
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

/* Largest granularity of any kind: no GPU holds more than 1 TiB. */
#define CUFAB_GRAN_MAX		((u64)CUFAB_MEM_MIB_MAX << 20)
/* Defaults of the granularity module parameters, in bytes. */
#define CUFAB_MEM_GRAN_DEFAULT		(2ULL << 20)
#define CUFAB_MC_GRAN_DEFAULT		(2ULL << 20)
#define CUFAB_MC_GRAN_REC_DEFAULT	(512ULL << 20)

/**
 * struct cufab_gran - the four granularities of a GPU, in bytes
 * @mem: cuMemCreate MINIMUM
 * @mem_rec: cuMemCreate RECOMMENDED, a multiple of @mem
 * @mc: multicast MINIMUM
 * @mc_rec: multicast RECOMMENDED, a multiple of @mc
 *
 * Each is a power of two between PAGE_SIZE and CUFAB_GRAN_MAX.
 */
struct cufab_gran {
	u64 mem;
	u64 mem_rec;
	u64 mc;
	u64 mc_rec;
};

/* Which rule of struct cufab_gran a value breaks (cufab_gran_check()). */
enum cufab_gran_rule {
	CUFAB_GRAN_OK,
	CUFAB_GRAN_NOT_POW2,
	CUFAB_GRAN_TOO_SMALL,
	CUFAB_GRAN_TOO_LARGE,
	CUFAB_GRAN_REC_NOT_MULTIPLE,
};

/* Fields of struct cufab_gran, in the order of the struct. */
enum cufab_gran_field {
	CUFAB_GRAN_F_MEM,
	CUFAB_GRAN_F_MEM_REC,
	CUFAB_GRAN_F_MC,
	CUFAB_GRAN_F_MC_REC,
};

/**
 * struct cufab_gpu - one virtual GPU
 * @index: kernel index, 0 .. num_gpus - 1; also defines UUID and bus id
 * @clique: fabric clique id
 * @numa_node: host NUMA node closest to the GPU, NUMA_NO_NODE for none
 * @features: configured enum cufab_device_feature bits
 * @peers: bit i set when GPU i is reachable as a peer; never the own bit
 * @mem_total: capacity in bytes
 * @mem_used: bytes allocated by clients (accounted by later memory code)
 * @mem_gran: cuMemCreate MINIMUM granularity, bytes (struct cufab_gran)
 * @mem_gran_rec: cuMemCreate RECOMMENDED granularity
 * @mc_gran: multicast MINIMUM granularity
 * @mc_gran_rec: multicast RECOMMENDED granularity
 */
struct cufab_gpu {
	u32 index;
	u32 clique;
	int numa_node;
	u32 features;
	u64 peers;
	u64 mem_total;
	atomic64_t mem_used;
	u64 mem_gran;
	u64 mem_gran_rec;
	u64 mc_gran;
	u64 mc_gran_rec;
};

/**
 * struct cufab_topo - the virtual node
 * @num_gpus: entries of @gpus
 * @nvswitch: GPUs of one clique reach each other through a virtual
 *	NVSwitch: peers follow cliques and switch multicast is possible
 * @default_mem: capacity given to GPUs added by a resize, in bytes
 * @default_gran: granularities of GPUs added by a resize (the module
 *	parameters); also cuMemAddressReserve's default alignment
 * @gpus: the GPUs, indexed by kernel index
 * @cluster_uuid: the NVLink fabric cluster the node is part of; reported
 *	for every GPU on the fabric (cufab_gpu_on_fabric()). Fixed at load
 *	(module parameter cluster_uuid, else random), so it is the same for
 *	every process and every topology change.
 */
struct cufab_topo {
	u32 num_gpus;
	bool nvswitch;
	uuid_t cluster_uuid;
	u64 default_mem;
	struct cufab_gran default_gran;
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
 * @mem_gran_kib: cuMemCreate MINIMUM granularity of every GPU in KiB, 0 for
 *	the default (2 MiB)
 * @mem_gran_rec_kib: RECOMMENDED, 0 for the same as @mem_gran_kib
 * @mc_gran_kib: multicast MINIMUM in KiB, 0 for the default (2 MiB)
 * @mc_gran_rec_kib: multicast RECOMMENDED, 0 for the default (512 MiB)
 */
struct cufab_params {
	unsigned int num_gpus;
	unsigned long mem_mib;
	const char *cliques;
	const char *numa_nodes;
	bool nvswitch;
	const char *peers;
	const char *features;
	unsigned long mem_gran_kib;
	unsigned long mem_gran_rec_kib;
	unsigned long mc_gran_kib;
	unsigned long mc_gran_rec_kib;
	const uuid_t *cluster_uuid;
};

/* params.c: build a topology from module parameters */
int cufab_topo_build(struct cufab_topo *topo, const struct cufab_params *p);
int cufab_parse_cliques(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_parse_numa_nodes(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_parse_peers(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_parse_features(const char *str, struct cufab_gpu *gpus, u32 n);
int cufab_params_gran(const struct cufab_params *p, struct cufab_gran *gran);
int cufab_parse_cluster_uuid(const char *str, uuid_t *uuid);

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
bool cufab_gpu_on_fabric(const struct cufab_topo *topo,
			 const struct cufab_gpu *gpu);
enum cufab_gran_rule cufab_gran_check_value(u64 val);
enum cufab_gran_rule cufab_gran_check(const struct cufab_gran *gran,
				      enum cufab_gran_field *field);
const char *cufab_gran_rule_str(enum cufab_gran_rule rule);
void cufab_gpu_set_gran(struct cufab_gpu *gpu, const struct cufab_gran *gran);
void cufab_gpu_get_gran(const struct cufab_gpu *gpu, struct cufab_gran *gran);

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
 *
 * Context: they change only inside cufab_topo_change_begin()/end(), so
 * they are read without a lock; call them with a client open (any ioctl)
 * or with cufab_topo_rwsem held. A GPU that does not exist reads the
 * module parameter's value.
 */
u64 cufab_gpu_mem_gran(u32 gpu, bool recommended);
u64 cufab_gpu_mc_gran(u32 gpu, bool recommended);
u64 cufab_mc_granularity(bool recommended);
/*
 * cuMemCreate granularity of a location (CUFAB_LOC_DEVICE: that GPU's, 0
 * when it does not exist; CUFAB_LOC_HOST_NUMA: the largest among the GPUs
 * whose host node it is, else the largest of all GPUs). Same context.
 */
u64 cufab_loc_mem_gran(u32 location_type, s32 location_id, bool recommended);

#endif /* _CUFAB_DEVICE_H */
