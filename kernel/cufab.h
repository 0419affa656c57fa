/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cufab's private header: the types every file of the module shares and
 * the functions one file calls in another. A file includes this and
 * nothing else of ours; the leaf headers it pulls in (bindmap.h,
 * fault.h, idrange.h, team.h) stay apart because KUnit suites compile
 * against them alone.
 *
 * Sections, in dependency order: objects, fabric health, GPUs and
 * topology, device attributes, range checks, allocations (their kinds,
 * page providers, handles, managed memory), VA reservations, logical
 * endpoints, clients, contexts, ioctl dispatch, IMEX channels, sharing,
 * multicast, memory operations, multimem, netlink, peer access, memory
 * pools, streams (the engine, operation types, watchers, events).
 * Documentation/architecture.rst says which file implements each, and
 * which calls which (Layers).
 */
#ifndef _CUFAB_H
#define _CUFAB_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/compiler_types.h>
#include <linux/dma-fence.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/cufab.h>

#include "bindmap.h"
#include "fault.h"
#include "idrange.h"
#include "team.h"

/* A GPU's features unless told otherwise: an H100's (no pageable access). */
#define CUFAB_DEV_F_DEFAULT	(CUFAB_DEV_F_ALL & ~CUFAB_DEV_F_PAGEABLE_ACCESS)

struct cufab_alloc;
struct cufab_binding;
struct cufab_client;
struct cufab_mc;
struct cufab_op;
struct cufab_memop_job;
struct cufab_stream;
struct cufab_stream_space;
struct cufab_team;
struct cufab_ucmd;
struct dma_buf;
struct file;
struct inode;
struct mm_struct;
struct netlink_callback;
struct page;
struct pid;
struct seq_file;
struct sk_buff;
struct task_struct;
struct vm_area_struct;

/*
 * Kernel objects of a client: contexts, memory handles (of allocations
 * and multicast objects alike), streams, events and pools; logical
 * endpoints have ids of their own (le.c). Each lives in its client's
 * xarray under a small u32 id that userspace uses to name it.
 */

enum cufab_object_type {
	CUFAB_OBJ_NONE,
	CUFAB_OBJ_ANY,		/* lookup wildcard, never a real type */
	CUFAB_OBJ_CTX,
	CUFAB_OBJ_MEM_HANDLE,	/* alloc.c: CUmemGenericAllocationHandle */
	CUFAB_OBJ_STREAM,	/* streams section */
	CUFAB_OBJ_EVENT,	/* streams section */
	CUFAB_OBJ_POOL,		/* pool.c: CUmemoryPool */
#ifdef CUFAB_KUNIT
	CUFAB_OBJ_TEST,		/* kernel/tests only */
#endif
	CUFAB_OBJ_MAX,
};

/**
 * struct cufab_object - header embedded first in every object
 * @users: one reference for the xarray slot, one per object depending on
 *	this one, one per lookup in progress. Destroy needs it to be 1.
 * @type: enum cufab_object_type
 * @id: the id userspace uses, unique within @client
 * @client: owner
 * @next_kept: next destroyed object of its type its client keeps
 *	(object.c), under the table's lock
 */
struct cufab_object {
	refcount_t users;
	enum cufab_object_type type;
	u32 id;
	struct cufab_client *client;
	struct cufab_object *next_kept;
};

/**
 * struct cufab_object_ops - per-type behaviour
 * @name: type name for messages
 * @slab: name of the type's kmem cache
 * @size: bytes of the structure that embeds the header
 * @destroy: release what the object holds; NULL when it holds nothing.
 *	Called once, when the object can no longer be found. It must not
 *	free the object itself.
 */
struct cufab_object_ops {
	const char *name;
	const char *slab;
	size_t size;
	void (*destroy)(struct cufab_object *obj);
};

struct cufab_object *_cufab_object_add(struct cufab_client *client,
				       enum cufab_object_type type,
				       size_t size);

/*
 * Reserve an id and allocate the object that embeds struct cufab_object as
 * its first member (static_assert that next to the type). The id is not
 * visible to lookups until cufab_object_finalize(). The id follows the
 * client's previous one (never a recently destroyed id); the memory comes
 * zeroed, from the client's destroyed objects of its type when it keeps
 * one (no allocation), else from the type's kmem cache.
 */
#define cufab_object_alloc(client, ptr, type)				\
	((typeof(ptr))_cufab_object_add(client, type, sizeof(*(ptr))))

int cufab_object_caches_init(void);
void cufab_object_caches_exit(void);

void cufab_object_finalize(struct cufab_object *obj);
void cufab_object_abort(struct cufab_object *obj);
void cufab_object_abort_and_destroy(struct cufab_object *obj);

struct cufab_object *cufab_object_get(struct cufab_client *client, u32 id,
				      enum cufab_object_type type);
void cufab_object_put(struct cufab_object *obj);

int cufab_object_destroy_user(struct cufab_client *client, u32 id);
int cufab_object_release_user(struct cufab_client *client, u32 id,
			      enum cufab_object_type type,
			      atomic_t *(*holds)(struct cufab_object *obj));

void cufab_live_objects_inc(void);
void cufab_live_objects_dec(void);
u64 cufab_live_objects(void);

#ifdef CUFAB_KUNIT
extern const struct cufab_object_ops cufab_test_object_ops;
#endif

/*
 * The health of the emulated fabric software (fabric_health.c: fabric
 * manager, IMEX daemon, NVSwitches). Real multicast and endpoint calls fail with
 * CUDA_ERROR_SYSTEM_NOT_READY while that software is down or stalled, and
 * with CUDA_ERROR_ILLEGAL_STATE after fabric trouble; the module parameter
 * fabric_state lets an administrator or a test put the node in either
 * state, so callers can prove they retry or report instead of hanging.
 * The states are enum cufab_fabric_state of the uapi, which TOPO_GET
 * reports. Its functions are cufab_health_*: cufab_fabric_* names the
 * FABRIC handle export table (share_fabric.c) only.
 */

/*
 * 0 when the fabric is usable; otherwise -EHOSTDOWN or -ENOTRECOVERABLE
 * and one log line naming @obj (e.g. "multicast 3"), the operation @what
 * and the state.
 */
int cufab_health_check(const char *obj, const char *what);
/* The state now (enum cufab_fabric_state), for TOPO_GET. */
u32 cufab_health_state_now(void);
/* TOPO_SET and the parameter: @state is a valid enum cufab_fabric_state. */
void cufab_health_state_set_now(u32 state);

/*
 * cufab virtual GPUs and the fabric topology that connects them.
 *
 * The topology (number of GPUs, their cliques, peers, NUMA nodes, features
 * and capacities) is node-wide state. It is read by every ioctl and netlink
 * GET, and written only by the module parameters at load and by netlink SET
 * while no client is open, so a client never sees it change under it.
 */

#define CUFAB_GPU_NAME		"cufab Virtual GPU"
/* Compute capability of every virtual GPU (Hopper, device_attr.c). */
#define CUFAB_CC_MAJOR		9
#define CUFAB_CC_MINOR		0
/* PCI device and subsystem ids, each << 16 | the NVIDIA vendor id: H100 SXM5 80GB */
#define CUFAB_PCI_DEVICE_ID	(0x2330 << 16 | 0x10de)
#define CUFAB_PCI_SUBSYSTEM_ID	(0x16c1 << 16 | 0x10de)
/*
 * The virtual NVSwitch as a PCI function, the far end of every NVLink of a
 * GPU behind it (NVML's link queries): an HGX H100 NVSwitch, on a bus
 * below the GPUs'.
 */
#define CUFAB_NVSWITCH_BUS	0x05
#define CUFAB_NVSWITCH_PCI_ID	(0x22a3 << 16 | 0x10de)
/*
 * PCI-like location: domain = the node index (0 on a node alone), bus
 * 0x41 + GPU index, device 0, function 0.
 */
#define CUFAB_PCI_DOMAIN	0
#define CUFAB_PCI_BUS_BASE	0x41
#define CUFAB_PCI_DEVICE	0
/* "0000:41:00.0" plus NUL */
#define CUFAB_BUS_ID_LEN	13

/*
 * Nodes of one fabric domain (Documentation/multinode.rst). The node index
 * is part of every GPU's UUID and PCI domain, so both fit: 16 bits of the
 * UUID, four hex digits of the bus id. 1024 covers an NVL576 (144 trays).
 */
#define CUFAB_MAX_NODES		1024

/* The PCI domain of the GPUs of node @node. */
static inline u32 cufab_node_pci_domain(u32 node)
{
	return CUFAB_PCI_DOMAIN + node;
}

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
	CUFAB_GRAN_NR
};

/* Which rule a GPU's peer set breaks (cufab_gpu_peers_check()). */
enum cufab_peers_rule {
	CUFAB_PEERS_OK,
	CUFAB_PEERS_NVSWITCH,		/* peers follow cliques with it */
	CUFAB_PEERS_NO_GPU,		/* a bit for a GPU that does not exist */
	CUFAB_PEERS_SELF,		/* a GPU is not its own peer */
};

/**
 * struct cufab_gpu - one virtual GPU
 * @index: kernel index, 0 .. num_gpus - 1; also defines UUID and bus id
 * @clique: fabric clique id
 * @numa_node: host NUMA node closest to the GPU, NUMA_NO_NODE for none
 * @features: configured enum cufab_device_feature bits
 * @peers: bit i set when GPU i is reachable as a peer; never the own bit
 * @mem_total: capacity in bytes
 * @mem_used: bytes of the GPU's allocations, charged at create (alloc.c)
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
 * @node_index: the node's index in its fabric domain (module parameter
 *	node_index, 0 alone); part of every GPU's UUID and PCI domain, so
 *	they are unique in the domain. Fixed at load.
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
	u32 node_index;
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
 * @cluster_uuid: the fabric cluster UUID, NULL for a random one
 * @node_index: this node's index in the fabric domain, 0 alone
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
	unsigned int node_index;
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
enum cufab_peers_rule cufab_gpu_peers_check(const struct cufab_topo *topo,
					    u32 index, u64 peers);
void cufab_gpu_set_peers(struct cufab_topo *topo, struct cufab_gpu *gpu,
			 u64 peers);
int cufab_topo_resize(struct cufab_topo *topo, u32 num_gpus);
void cufab_topo_free(struct cufab_topo *topo);
void cufab_gpu_uuid_at(u32 node, u32 index, u8 uuid[CUFAB_UUID_LEN]);
void cufab_gpu_bus_id_at(u32 node, u32 index, char buf[CUFAB_BUS_ID_LEN]);
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
void cufab_gpu_gran_merge(const struct cufab_gpu *gpu,
			  const u64 given[CUFAB_GRAN_NR], unsigned int set,
			  struct cufab_gran *gran);

/* device_attr.c: the CUdevice_attribute table of one GPU */
void cufab_gpu_attrs_fill(const struct cufab_topo *topo,
			  const struct cufab_gpu *gpu,
			  s32 attrs[CUFAB_NUM_DEVICE_ATTRS]);

/*
 * The node's topology. Readers hold cufab_topo_rwsem for read, or hold a
 * client open (an ioctl) or a live allocation, which keep writers out
 * (cufab_node_gpu_stable()). Writers hold it for write inside
 * cufab_topo_change_begin()/end() (netlink.c), which also keeps clients
 * from opening meanwhile and fails with -EBUSY while one is open or an
 * allocation lives.
 */
extern struct cufab_topo cufab_node;
extern struct rw_semaphore cufab_topo_rwsem;

/* A GPU's values as calls check them (cufab_gpu_facts(), device.c) */
struct cufab_gpu_facts {
	u32 features;		/* effective: cufab_gpu_effective_features() */
	u32 clique;
	int numa_node;
	u64 mem_total;
	u64 peers;
};

int cufab_gpu_facts(u32 index, struct cufab_gpu_facts *facts);
struct cufab_gpu *cufab_node_gpu(u32 index);
struct cufab_gpu *cufab_node_gpu_stable(u32 index);
u32 cufab_node_num_gpus(void);
bool cufab_node_gpu_exists(u32 index);
void cufab_node_show(struct seq_file *m);

/* device_attr.c */
int cufab_ioctl_device_info(struct cufab_ucmd *ucmd);

/*
 * Granularities in bytes (powers of two) of GPU @gpu: cuMemCreate's and
 * the multicast ones, MINIMUM or RECOMMENDED. cufab_mc_granularity() is
 * the node-wide multicast value: a multicast object belongs to no GPU at
 * create, so its size must suit every GPU that may join.
 *
 * Context: they change only inside a topology change (netlink.c's
 * cufab_topo_change_begin()/end(), no client open), so they are read
 * without a lock; call them with a client open (any ioctl) or with
 * cufab_topo_rwsem held. A GPU that does not exist reads the
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

/*
 * CUdevice_attribute numbers. The kernel cannot include cuda.h: this enum
 * mirrors the names and values of CUdevice_attribute (CUDA 13 cuda.h for
 * 1..147; 148..159 from the CUDA 13.3/13.4 documentation; 149 and 150 are
 * not publicly named).
 */

enum cufab_attr {
	CUFAB_ATTR_MAX_THREADS_PER_BLOCK = 1,
	CUFAB_ATTR_MAX_BLOCK_DIM_X = 2,
	CUFAB_ATTR_MAX_BLOCK_DIM_Y = 3,
	CUFAB_ATTR_MAX_BLOCK_DIM_Z = 4,
	CUFAB_ATTR_MAX_GRID_DIM_X = 5,
	CUFAB_ATTR_MAX_GRID_DIM_Y = 6,
	CUFAB_ATTR_MAX_GRID_DIM_Z = 7,
	CUFAB_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	CUFAB_ATTR_TOTAL_CONSTANT_MEMORY = 9,
	CUFAB_ATTR_WARP_SIZE = 10,
	CUFAB_ATTR_MAX_PITCH = 11,
	CUFAB_ATTR_MAX_REGISTERS_PER_BLOCK = 12,
	CUFAB_ATTR_CLOCK_RATE = 13,
	CUFAB_ATTR_TEXTURE_ALIGNMENT = 14,
	CUFAB_ATTR_GPU_OVERLAP = 15,
	CUFAB_ATTR_MULTIPROCESSOR_COUNT = 16,
	CUFAB_ATTR_KERNEL_EXEC_TIMEOUT = 17,
	CUFAB_ATTR_INTEGRATED = 18,
	CUFAB_ATTR_CAN_MAP_HOST_MEMORY = 19,
	CUFAB_ATTR_COMPUTE_MODE = 20,
	CUFAB_ATTR_MAXIMUM_TEXTURE1D_WIDTH = 21,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_WIDTH = 22,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_HEIGHT = 23,
	CUFAB_ATTR_MAXIMUM_TEXTURE3D_WIDTH = 24,
	CUFAB_ATTR_MAXIMUM_TEXTURE3D_HEIGHT = 25,
	CUFAB_ATTR_MAXIMUM_TEXTURE3D_DEPTH = 26,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29,
	CUFAB_ATTR_SURFACE_ALIGNMENT = 30,
	CUFAB_ATTR_CONCURRENT_KERNELS = 31,
	CUFAB_ATTR_ECC_ENABLED = 32,
	CUFAB_ATTR_PCI_BUS_ID = 33,
	CUFAB_ATTR_PCI_DEVICE_ID = 34,
	CUFAB_ATTR_TCC_DRIVER = 35,
	CUFAB_ATTR_MEMORY_CLOCK_RATE = 36,
	CUFAB_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
	CUFAB_ATTR_L2_CACHE_SIZE = 38,
	CUFAB_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CUFAB_ATTR_ASYNC_ENGINE_COUNT = 40,
	CUFAB_ATTR_UNIFIED_ADDRESSING = 41,
	CUFAB_ATTR_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42,
	CUFAB_ATTR_MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43,
	CUFAB_ATTR_CAN_TEX2D_GATHER = 44,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46,
	CUFAB_ATTR_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47,
	CUFAB_ATTR_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48,
	CUFAB_ATTR_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49,
	CUFAB_ATTR_PCI_DOMAIN_ID = 50,
	CUFAB_ATTR_TEXTURE_PITCH_ALIGNMENT = 51,
	CUFAB_ATTR_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52,
	CUFAB_ATTR_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53,
	CUFAB_ATTR_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54,
	CUFAB_ATTR_MAXIMUM_SURFACE1D_WIDTH = 55,
	CUFAB_ATTR_MAXIMUM_SURFACE2D_WIDTH = 56,
	CUFAB_ATTR_MAXIMUM_SURFACE2D_HEIGHT = 57,
	CUFAB_ATTR_MAXIMUM_SURFACE3D_WIDTH = 58,
	CUFAB_ATTR_MAXIMUM_SURFACE3D_HEIGHT = 59,
	CUFAB_ATTR_MAXIMUM_SURFACE3D_DEPTH = 60,
	CUFAB_ATTR_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61,
	CUFAB_ATTR_MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62,
	CUFAB_ATTR_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63,
	CUFAB_ATTR_MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64,
	CUFAB_ATTR_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65,
	CUFAB_ATTR_MAXIMUM_SURFACECUBEMAP_WIDTH = 66,
	CUFAB_ATTR_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67,
	CUFAB_ATTR_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68,
	CUFAB_ATTR_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73,
	CUFAB_ATTR_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74,
	CUFAB_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
	CUFAB_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
	CUFAB_ATTR_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77,
	CUFAB_ATTR_STREAM_PRIORITIES_SUPPORTED = 78,
	CUFAB_ATTR_GLOBAL_L1_CACHE_SUPPORTED = 79,
	CUFAB_ATTR_LOCAL_L1_CACHE_SUPPORTED = 80,
	CUFAB_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	CUFAB_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
	CUFAB_ATTR_MANAGED_MEMORY = 83,
	CUFAB_ATTR_MULTI_GPU_BOARD = 84,
	CUFAB_ATTR_MULTI_GPU_BOARD_GROUP_ID = 85,
	CUFAB_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED = 86,
	CUFAB_ATTR_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
	CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS = 88,
	CUFAB_ATTR_CONCURRENT_MANAGED_ACCESS = 89,
	CUFAB_ATTR_COMPUTE_PREEMPTION_SUPPORTED = 90,
	CUFAB_ATTR_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
	CUFAB_ATTR_CAN_USE_STREAM_MEM_OPS_V1 = 92,
	CUFAB_ATTR_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93,
	CUFAB_ATTR_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94,
	CUFAB_ATTR_COOPERATIVE_LAUNCH = 95,
	CUFAB_ATTR_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96,
	CUFAB_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CUFAB_ATTR_CAN_FLUSH_REMOTE_WRITES = 98,
	CUFAB_ATTR_HOST_REGISTER_SUPPORTED = 99,
	CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
	CUFAB_ATTR_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101,
	CUFAB_ATTR_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
	CUFAB_ATTR_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
	CUFAB_ATTR_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104,
	CUFAB_ATTR_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105,
	CUFAB_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
	CUFAB_ATTR_GENERIC_COMPRESSION_SUPPORTED = 107,
	CUFAB_ATTR_MAX_PERSISTING_L2_CACHE_SIZE = 108,
	CUFAB_ATTR_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
	CUFAB_ATTR_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110,
	CUFAB_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
	CUFAB_ATTR_SPARSE_CUDA_ARRAY_SUPPORTED = 112,
	CUFAB_ATTR_READ_ONLY_HOST_REGISTER_SUPPORTED = 113,
	CUFAB_ATTR_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114,
	CUFAB_ATTR_MEMORY_POOLS_SUPPORTED = 115,
	CUFAB_ATTR_GPU_DIRECT_RDMA_SUPPORTED = 116,
	CUFAB_ATTR_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
	CUFAB_ATTR_GPU_DIRECT_RDMA_WRITES_ORDERING = 118,
	CUFAB_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,
	CUFAB_ATTR_CLUSTER_LAUNCH = 120,
	CUFAB_ATTR_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121,
	CUFAB_ATTR_CAN_USE_64_BIT_STREAM_MEM_OPS = 122,
	CUFAB_ATTR_CAN_USE_STREAM_WAIT_VALUE_NOR = 123,
	CUFAB_ATTR_DMA_BUF_SUPPORTED = 124,
	CUFAB_ATTR_IPC_EVENT_SUPPORTED = 125,
	CUFAB_ATTR_MEM_SYNC_DOMAIN_COUNT = 126,
	CUFAB_ATTR_TENSOR_MAP_ACCESS_SUPPORTED = 127,
	CUFAB_ATTR_HANDLE_TYPE_FABRIC_SUPPORTED = 128,
	CUFAB_ATTR_UNIFIED_FUNCTION_POINTERS = 129,
	CUFAB_ATTR_NUMA_CONFIG = 130,
	CUFAB_ATTR_NUMA_ID = 131,
	CUFAB_ATTR_MULTICAST_SUPPORTED = 132,
	CUFAB_ATTR_MPS_ENABLED = 133,
	CUFAB_ATTR_HOST_NUMA_ID = 134,
	CUFAB_ATTR_D3D12_CIG_SUPPORTED = 135,
	CUFAB_ATTR_MEM_DECOMPRESS_ALGORITHM_MASK = 136,
	CUFAB_ATTR_MEM_DECOMPRESS_MAXIMUM_LENGTH = 137,
	CUFAB_ATTR_VULKAN_CIG_SUPPORTED = 138,
	CUFAB_ATTR_GPU_PCI_DEVICE_ID = 139,
	CUFAB_ATTR_GPU_PCI_SUBSYSTEM_ID = 140,
	CUFAB_ATTR_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141,
	CUFAB_ATTR_HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142,
	CUFAB_ATTR_HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143,
	CUFAB_ATTR_HOST_MEMORY_POOLS_SUPPORTED = 144,
	CUFAB_ATTR_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145,
	CUFAB_ATTR_HOST_ALLOC_DMA_BUF_SUPPORTED = 146,
	CUFAB_ATTR_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147,
	CUFAB_ATTR_ATOMIC_REDUCTION_SUPPORTED = 148,
	CUFAB_ATTR_D3D12_CIG_STREAMS_SUPPORTED = 151,
	CUFAB_ATTR_DMA_BUF_MMAP_SUPPORTED = 152,
	CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_SUPPORTED = 153,
	CUFAB_ATTR_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED = 154,
	CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED = 155,
	CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED = 156,
	CUFAB_ATTR_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT = 157,
	CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES = 158,
	CUFAB_ATTR_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED = 159,
};

/*
 * The API families whose attributes promise calls. A program reads such an
 * attribute and then calls, so each family's attributes read 0 until cufab
 * has its entry points, whatever the GPU's features say
 * (Documentation/attributes.rst). The commit that adds a family's calls
 * sets its line to 1; selftests/device_test checks every line against the
 * library's entry points.
 */
enum {
	/* 115, 119, 142, 144: cuMemPoolCreate, cuMemAllocFromPoolAsync */
	CUFAB_HAS_MEMORY_POOLS = 1,
	/* 83, 88, 89: cuMemAllocManaged, cuStreamAttachMemAsync */
	CUFAB_HAS_MANAGED_MEMORY = 1,
	/* 91, 99, 113: cuMemHostRegister, cuMemHostUnregister */
	CUFAB_HAS_HOST_REGISTER = 1,
	/* 122, 123: cuStreamWaitValue64, cuStreamWriteValue64 */
	CUFAB_HAS_STREAM_MEM_OPS = 1,
	/* 125: cuIpcGetEventHandle, cuIpcOpenEventHandle */
	CUFAB_HAS_IPC_EVENTS = 1,
	/* 124: cuMemGetHandleForAddressRange (DMA_BUF_FD) */
	CUFAB_HAS_DMA_BUF = 1,
};

static_assert(CUFAB_ATTR_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED <
	      CUFAB_NUM_DEVICE_ATTRS);

/*
 * Pure range checks of user addresses, for every layer (KUnit:
 * kernel/tests/va_test.c).
 */

/* [start, start + length) is non-empty and does not wrap. */
static inline bool cufab_range_ok(u64 start, u64 length)
{
	return length && start + length > start;
}

/* [start, start + length) is non-empty and inside [outer, + outer_len). */
static inline bool cufab_range_inside(u64 start, u64 length, u64 outer,
				      u64 outer_len)
{
	return cufab_range_ok(start, length) && start >= outer &&
	       start - outer <= outer_len &&
	       length <= outer_len - (start - outer);
}

/*
 * Physical allocations: the generic layer (alloc.c) and its kinds.
 *
 * A struct cufab_alloc is node-wide and reference counted: client handle
 * objects, CPU mappings, exports/imports and bindings each hold one
 * reference; the pages and the GPU capacity charge go with the last one.
 * What differs between kinds is in its struct cufab_alloc_ops, one file
 * per kind:
 *
 *   alloc_vmm.c     cuMemCreate (CUFAB_IOCTL_MEM_CREATE)
 *   alloc_linear.c  cuMemAlloc, cuMemAllocHost (CUFAB_IOCTL_MEM_ALLOC)
 *   alloc_managed.c cuMemAllocManaged (CUFAB_IOCTL_MEM_ALLOC, MANAGED)
 *   pool.c          pool chunks (cuMemAllocAsync): never a handle
 *   multicast.c     multicast objects: a handle with no memory of its own
 *
 * Pages are taken zeroed on first touch from the allocation's page
 * provider (struct cufab_page_provider), so no process ever sees what a
 * page held before.
 */

/*
 * Defaults of the granularity module parameters; each GPU has its own
 * values (cufab_gpu_mem_gran(), cufab_gpu_mc_gran()).
 */
#define CUFAB_MEM_GRANULARITY_DEFAULT	(2ULL << 20)
#define CUFAB_MC_GRANULARITY		(2ULL << 20)
#define CUFAB_MC_GRANULARITY_REC	(512ULL << 20)

/* alloc_flags bits the kernel accepts at MEM_CREATE */
#define CUFAB_ALLOC_F_VALID	(CUFAB_ALLOC_F_GPU_DIRECT_RDMA | \
				 CUFAB_ALLOC_F_COMPRESSIBLE)
#define CUFAB_HANDLE_VALID	(CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC)

struct cufab_alloc;
struct cufab_fabric_exports;
struct cufab_va;
struct cufab_va_arena;

/* struct cufab_page_provider.flags */
/*
 * Its pages lie where other nodes of the fabric reach them (a shared
 * window), so another node may import the allocation and map the same
 * pages; local pages are reachable from this node only.
 */
#define CUFAB_PAGES_FABRIC	BIT(0)
/*
 * @get_page places a page on the NUMA node asked for, so a page can move
 * (cufab_alloc_place_page(): managed memory's prefetch and advice).
 */
#define CUFAB_PAGES_NUMA	BIT(1)

/**
 * struct cufab_page_provider - where the pages of an allocation come from
 * @name: for dumps (debugfs "mem": pages=@name)
 * @flags: CUFAB_PAGES_* properties
 * @attach: optional, from cufab_alloc_create() before the allocation is
 *	published: give it its backing as a whole (a range of a window, say),
 *	kept in alloc->backing. 0, or -ENOMEM when none is left.
 * @detach: optional, from the final put, after every page went back
 *	through @put_page: give back what @attach got
 * @get_page: a page for index @index of @alloc, on node @nid (NUMA_NO_NODE:
 *	any) where the provider can choose. @gfp says how hard to try:
 *	__GFP_ZERO asks for a zeroed page (a provider that does not allocate
 *	through the page allocator clears it itself), __GFP_NORETRY for a
 *	try without reclaim, __GFP_THISNODE for @nid or nothing. NULL when
 *	no page can be had. Context: may sleep; called from the fault handler
 *	under mmap_lock.
 * @put_page: take back a page @get_page gave for @index, which the
 *	allocation no longer holds
 *
 * The allocation keeps the pages it was given by index (its page store,
 * alloc.c), so a provider only hands pages out and takes them back.
 * Every kind with memory gets its pages through its allocation's
 * provider; the kinds do not know which one it is.
 */
struct cufab_page_provider {
	const char *name;
	unsigned int flags;
	int (*attach)(struct cufab_alloc *alloc);
	void (*detach)(struct cufab_alloc *alloc);
	struct page *(*get_page)(struct cufab_alloc *alloc, pgoff_t index,
				 int nid, gfp_t gfp);
	void (*put_page)(struct cufab_alloc *alloc, pgoff_t index,
			 struct page *page);
};

/* Pages from this node's page allocator (pages_local.c). */
extern const struct cufab_page_provider cufab_local_pages;

/* struct cufab_alloc_ops.flags */
/* may back an endpoint or multicast binding (cuMemCreate memory) */
#define CUFAB_ALLOC_BINDABLE	BIT(0)
/*
 * cuMemAlloc memory: mapped only into the reservation made for it, which
 * only cuMemFree (or its context's destroy) ends
 */
#define CUFAB_ALLOC_LINEAR	BIT(1)
/*
 * cuMemAllocManaged memory: pointer queries report it managed, and device
 * memory wherever its pages are; cuMemFree (not cuMemFreeHost) frees it
 */
#define CUFAB_ALLOC_MANAGED	BIT(2)
/*
 * another node's memory (fabric_remote.c): its DEVICE location is the
 * exporter's GPU, charged there, not here
 */
#define CUFAB_ALLOC_REMOTE	BIT(3)

/**
 * struct cufab_alloc_ops - what one kind of allocation does its own way
 * @name: the kind as the user knows it ("cuMemCreate", "multicast"), for
 *	log lines and debugfs
 * @flags: CUFAB_ALLOC_* properties the rules of other calls test
 * @page: the page backing page @index (already checked to be inside the
 *	allocation), or an ERR_PTR. NULL for a kind with no memory of its
 *	own, which is then not CPU-mappable: faults get SIGBUS, its dma-buf
 *	cannot be attached or mmapped. Context: may sleep; called from the
 *	fault handler under mmap_lock.
 * @map_prepare: cuMemMap of [@addr, @addr + @length) at @offset of the
 *	allocation is about to happen: check the kind's alignment rules and
 *	wait (no lock held) for whatever the mapping needs. 0 or -errno.
 * @release: optional, from the final put: free the kind's state (@priv)
 * @release_to: optional, instead of @release when the final put is a
 *	handle's release in its client's call (cufab_alloc_put_spare()):
 *	the kind may keep its state's memory as @client's spare
 * @cpu_fault: optional: may the CPU touch the allocation at @addr of @va
 *	now? 0, or VM_FAULT_SIGSEGV. Context: the fault handler, mmap_lock
 *	and va->lock (read) held
 * @nl_put: optional: the kind's own attributes in the allocation's
 *	ALLOC_GET message. 0 or -EMSGSIZE. Context: under cufab_allocs_lock
 *	(the allocation is on the list, its kind's state alive)
 */
struct cufab_alloc_ops {
	const char *name;
	unsigned int flags;
	struct page *(*page)(struct cufab_alloc *alloc, pgoff_t index);
	int (*map_prepare)(struct cufab_alloc *alloc, u64 addr, u64 length,
			   u64 offset);
	void (*release)(struct cufab_alloc *alloc);
	void (*release_to)(struct cufab_alloc *alloc,
			   struct cufab_client *client);
	vm_fault_t (*cpu_fault)(struct cufab_alloc *alloc, struct cufab_va *va,
				unsigned long addr);
	int (*nl_put)(struct sk_buff *skb, struct cufab_alloc *alloc);
};

/**
 * struct cufab_alloc - one physical allocation
 * @ref: handles, mappings, exports, imports, bindings
 * @ops: its kind
 * @id: node-wide id, never reused while the module is loaded
 *	(CU_POINTER_ATTRIBUTE_BUFFER_ID)
 * @length: bytes, a multiple of PAGE_SIZE (and of the granularity for
 *	cuMemCreate allocations)
 * @location_type: enum cufab_mem_location (DEVICE, HOST or HOST_NUMA), 0
 *	for a kind with no memory of its own
 * @location_id: GPU index (DEVICE), NUMA node (HOST_NUMA), -1 (HOST)
 * @gpu: GPU index charged with @length, -1 when none (HOST, HOST_NUMA)
 * @nid: NUMA node the pages are placed on, NUMA_NO_NODE for any
 * @handle_types: CUFAB_HANDLE_* bits requested at create (only these may be
 *	exported)
 * @alloc_flags: CUFAB_ALLOC_F_* given at create
 * @owner_pid: tgid of the creating process, for debugfs
 * @owner_comm: its name
 * @pages: struct page * by page index, filled on first touch
 * @resident: pages in @pages, so that a dump of every allocation under
 *	cufab_allocs_lock counts none (cufab_alloc_resident())
 * @huge: the 2 MiB blocks (by block index) whose pages came as one
 *	naturally aligned block (cufab_alloc_huge_block()), which the CPU
 *	view maps with one PMD entry
 * @node: entry in the global allocation list (debugfs "mem")
 * @priv: the kind's state (e.g. the struct cufab_mc of a multicast object)
 * @provider: where its pages come from; NULL for a kind with no memory of
 *	its own
 * @backing: the provider's state for this allocation (@provider->attach)
 * @fabric: its FABRIC export records (share_fabric.c), NULL while it was
 *	never exported as a FABRIC handle; freed by the final put
 */
struct cufab_alloc {
	struct kref ref;
	const struct cufab_alloc_ops *ops;
	u64 id;
	u64 length;
	u32 location_type;
	s32 location_id;
	s32 gpu;
	int nid;
	u32 handle_types;
	u32 alloc_flags;
	pid_t owner_pid;
	char owner_comm[TASK_COMM_LEN];
	struct xarray pages;
	atomic_long_t resident;
	struct xarray huge;
	struct list_head node;
	void *priv;
	const struct cufab_page_provider *provider;
	void *backing;
	struct cufab_fabric_exports *fabric;
};

static inline bool cufab_alloc_has(const struct cufab_alloc *alloc,
				   unsigned int flag)
{
	return alloc->ops->flags & flag;
}

/* Are its pages where other nodes see them (the fabric window)? */
static inline bool cufab_alloc_in_window(const struct cufab_alloc *alloc)
{
	return alloc->provider &&
	       (alloc->provider->flags & CUFAB_PAGES_FABRIC);
}

/* Has memory of its own, which the CPU can map (struct cufab_alloc_ops). */
static inline bool cufab_alloc_cpu_mappable(const struct cufab_alloc *alloc)
{
	return alloc->ops->page;
}

/**
 * struct cufab_mem_handle - CUFAB_OBJ_MEM_HANDLE, a client's
 *	CUmemGenericAllocationHandle
 * @obj: object header
 * @alloc: one reference, dropped when the handle is released
 * @retains: MEM_RETAIN calls returning this handle plus its creation; the
 *	MEM_RELEASE that brings it to zero destroys the object
 */
struct cufab_mem_handle {
	struct cufab_object obj;
	struct cufab_alloc *alloc;
	atomic_t retains;
};

extern const struct cufab_object_ops cufab_mem_handle_ops;

/**
 * struct cufab_alloc_desc - what to create
 * @ops: the kind
 * @location_type: DEVICE, HOST or HOST_NUMA; 0 (no location, no pages,
 *	no capacity charge) for a kind without memory of its own
 * @location_id: GPU index or NUMA node
 * @handle_types: CUFAB_HANDLE_* bits
 * @alloc_flags: CUFAB_ALLOC_F_* bits
 * @length: bytes, already validated by the caller (multiple of PAGE_SIZE)
 * @priv: the kind's state, owned by the allocation from a successful
 *	create on (@ops->release frees it)
 * @provider: where the pages come from, for a kind with memory; NULL:
 *	this node's (cufab_local_pages)
 * @client: whose call creates it, for a refusal's line
 * @call: that cu* call; NULL (a creation no call of the process makes):
 *	no line
 * @spare_of: the calling client, whose spare allocation (the memory of
 *	the last one its handles released) the create takes; NULL: none
 */
struct cufab_alloc_desc {
	const struct cufab_alloc_ops *ops;
	u32 location_type;
	s32 location_id;
	u32 handle_types;
	u32 alloc_flags;
	u64 length;
	void *priv;
	const struct cufab_page_provider *provider;
	const struct cufab_client *client;
	const char *call;
	struct cufab_client *spare_of;
};

/* Lifetime. Holding a reference keeps pages and capacity charge alive. */
struct cufab_alloc *cufab_alloc_create(const struct cufab_alloc_desc *desc);
void cufab_alloc_get(struct cufab_alloc *alloc);
void cufab_alloc_put(struct cufab_alloc *alloc);
void cufab_alloc_put_spare(struct cufab_alloc *alloc,
			   struct cufab_client *client);

/*
 * The page at @index (0 .. length / PAGE_SIZE - 1) through the kind's
 * @page. No reference is taken on the page: it lives as long as the
 * allocation. ERR_PTR(-ENOMEM) / -EINVAL (also for a kind with no memory
 * of its own).
 */
struct page *cufab_alloc_page(struct cufab_alloc *alloc, pgoff_t index);
/* Allocate every page now (e.g. before building a dma-buf sg table). */
int cufab_alloc_populate(struct cufab_alloc *alloc);

/*
 * Building blocks of the kinds with memory: a @page that takes a zeroed
 * page from the allocation's provider on first use and keeps it (the page
 * store), and a @map_prepare with the rules of cuMemMap (offset, address
 * and length multiples of the location's granularity, inside the
 * allocation).
 */
struct page *cufab_alloc_store_page(struct cufab_alloc *alloc, pgoff_t index);
bool cufab_alloc_huge_block(struct cufab_alloc *alloc, pgoff_t index);
int cufab_alloc_map_check(struct cufab_alloc *alloc, u64 addr, u64 length,
			  u64 offset);
/* cuMemMap's argument rules (also multicast.c's, with its granularity) */
int cufab_map_args_check(u64 addr, u64 length, u64 offset, u64 alloc_len,
			 u64 granularity);
/* cufab_alloc_store_page() on node @nid (NUMA_NO_NODE: the allocation's) */
struct page *cufab_alloc_store_page_nid(struct cufab_alloc *alloc,
					pgoff_t index, int nid);
/*
 * Make the page at @index live on node @nid: populate it there, or move
 * its contents there. The caller guarantees that nothing maps or touches
 * the page meanwhile (managed memory: PTEs zapped, faults held off).
 * Return: 0, -ENOMEM or -EBUSY (a copy holds the page: it stays where it
 * was, with what the copy writes), -EINVAL (also when the provider cannot
 * place pages: no CUFAB_PAGES_NUMA).
 */
int cufab_alloc_place_page(struct cufab_alloc *alloc, pgoff_t index, int nid);

/*
 * Charge what follows to @mm's memory cgroup, as if the process touched
 * the pages itself: for the engine's workers, which charge nobody
 * (cufab_charge_begin() .. cufab_charge_end()).
 */
struct mem_cgroup;
struct cufab_charge {
	struct mem_cgroup *memcg;
	struct mem_cgroup *old;
};

void cufab_charge_begin(struct cufab_charge *c, struct mm_struct *mm);
void cufab_charge_end(struct cufab_charge *c);

/* The kinds with memory (alloc_vmm.c, alloc_linear.c, alloc_managed.c) */
extern const struct cufab_alloc_ops cufab_vmm_alloc_ops;
extern const struct cufab_alloc_ops cufab_linear_alloc_ops;
extern const struct cufab_alloc_ops cufab_managed_alloc_ops;

/*
 * alloc_managed.c: the kind's state for a new allocation with default
 * association @attach (CUFAB_ATTACH_GLOBAL or _HOST), to pass as
 * cufab_alloc_desc.priv; freed by cufab_managed_free() if the create
 * fails. The association the allocation has now (CUFAB_ATTACH_*).
 */
void *cufab_managed_new(u64 length, u32 attach);
void cufab_managed_free(void *priv);
u32 cufab_managed_attach(struct cufab_alloc *alloc);
/* CUFAB_OP_ATTACH, CUFAB_OP_PREFETCH */
extern const struct cufab_op_type cufab_op_attach;
extern const struct cufab_op_type cufab_op_prefetch;

/*
 * Client handles. cufab_mem_handle_create() publishes a new handle object
 * on @alloc (taking its own reference) and returns its id. For a two-phase
 * create (reply to userspace before publishing), use
 * cufab_mem_handle_alloc() then cufab_object_finalize(&h->obj), or
 * cufab_object_abort_and_destroy(&h->obj) on failure.
 */
int cufab_mem_handle_create(struct cufab_client *client,
			    struct cufab_alloc *alloc, u32 *out_id);
struct cufab_mem_handle *cufab_mem_handle_alloc(struct cufab_client *client,
						struct cufab_alloc *alloc);
/*
 * Two-phase create for an ioctl reply: a new handle on @alloc, its id in
 * *@out_id, the first @cmd_len bytes of @ucmd's command sent back, and the
 * handle published only if that reply reached the caller.
 * Return: 0, or -errno with no handle left behind.
 */
int cufab_mem_handle_respond(struct cufab_ucmd *ucmd,
			     struct cufab_alloc *alloc, u32 *out_id,
			     size_t cmd_len);
/*
 * cufab_mem_handle_respond(), then drop the caller's reference on @alloc:
 * for an allocation held only to be handed out, which the new handle (if
 * any) now holds.
 */
int cufab_mem_handle_respond_put(struct cufab_ucmd *ucmd,
				 struct cufab_alloc *alloc, u32 *out_id,
				 size_t cmd_len);
/*
 * One more retain of handle @id of @client if it names @alloc and is not
 * being released: true, else false (the caller makes a new handle).
 */
bool cufab_mem_handle_retain(struct cufab_client *client, u32 id,
			     struct cufab_alloc *alloc);
/* Drop one retain of handle @id, destroying it at zero; -ENOENT. */
int cufab_mem_handle_release(struct cufab_client *client, u32 id);
/* The allocation a handle id names, with a reference; ERR_PTR(-ENOENT). */
struct cufab_alloc *cufab_mem_handle_lookup(struct cufab_client *client,
					    u32 handle);

/*
 * Module-wide default cuMemCreate granularity (bytes): cuMemAddressReserve's
 * default alignment. cuMemCreate and cuMemMap use the location's
 * (cufab_loc_mem_gran()).
 */
u64 cufab_mem_granularity(void);
u64 cufab_mem_granularity_rec(void);

/* Node-wide accounting helpers (KUnit tests them directly). */
int cufab_gpu_charge(atomic64_t *used, u64 total, u64 bytes);
void cufab_gpu_uncharge(atomic64_t *used, u64 bytes);
u64 cufab_allocs_live(void);
void cufab_allocs_show(struct seq_file *m);
int cufab_allocs_for_each(u64 from_id,
			  int (*fn)(struct cufab_alloc *alloc, void *arg),
			  void *arg);
u64 cufab_alloc_resident(struct cufab_alloc *alloc);

/* ioctls (alloc.c) */
int cufab_ioctl_mem_release(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_get_props(struct cufab_ucmd *ucmd);

/*
 * Virtual address reservations (cuMemAddressReserve) and the mappings of
 * allocations into them (cuMemMap), with their CPU view: each reservation
 * is carved from the process's VA arena or is one VMA of /dev/cufab,
 * created by the kernel inside the ioctl.
 */

/* CUmemAccess_flags */
#define CUFAB_ACCESS_NONE	0
#define CUFAB_ACCESS_READ	1
#define CUFAB_ACCESS_RW		3

/* Freed arena reservations a client keeps for its next ones (va_arena.c). */
#define CUFAB_VA_KEPT	4

/* Pages short copies took that the client remembers (va.c). */
#define CUFAB_VA_HITS	4

/**
 * struct cufab_va_hit - a page a one-page copy took, for the next copy
 *	there (cufab_va_check_take(); Documentation/architecture.rst)
 * @lock: writers take it; readers retry a torn read, never wait
 * @gen: the space's @gen before the lookup that found @page: the entry
 *	holds only while @gen is still the space's
 * @addr: the page's user address (page-aligned); 0: an empty entry
 * @end: the end of the page, or of the plain range (@page NULL)
 * @page: the page of a store-backed allocation mapped at @addr, no
 *	reference of its own; NULL: [@addr, @end) is in no reservation
 *	(plain memory, which the copy pins from the mm)
 * @gpu_read: the mapping's devices that may read (cufab_va_map)
 * @gpu_write: ... and write
 * @linear: cuMemAlloc memory: every device may copy
 * @cpu: cufab_map_cpu_access() of the mapping
 */
struct cufab_va_hit {
	seqlock_t lock;
	unsigned long gen;
	u64 addr;
	u64 end;
	struct page *page;
	u64 gpu_read;
	u64 gpu_write;
	bool linear;
	u32 cpu;
};

/**
 * struct cufab_va_space - a client's reservations
 * @lock: protects @ranges and the mmap handshake fields
 * @reserve_lock: serializes VA_RESERVE/VA_FREE of the client, held across
 *	vm_mmap()/vm_munmap()
 * @ranges: struct cufab_va by address range
 * @pending: the reservation VA_RESERVE is mapping right now
 * @pending_task: the task doing it; only its mmap of /dev/cufab succeeds
 * @arena: the process's VA arena (va_arena.c), a reference, or NULL
 * @no_arena: mapping one failed (RLIMIT_AS, say): this client stops trying
 * @nr_linear: reservations of MEM_ALLOC in @ranges; none: a context's
 *	destroy has none to look for
 * @nr_kept: entries of @kept, oldest first
 * @kept: arena reservations this client freed and keeps, in @ranges and
 *	in the arena's tree, for its next reservation of the same size
 *	(va_arena.c). Under @reserve_lock.
 * @gen: raised by every writer of a reservation's mappings, access or
 *	death, under its va->lock, before it frees anything, and when a
 *	reservation joins @ranges: @hits older than it no longer hold
 * @hit_next: the entry of @hits the next new page replaces
 * @hits: pages recent one-page copies took (struct cufab_va_hit)
 */
struct cufab_va_space {
	struct mutex lock;		/* see above */
	struct mutex reserve_lock;	/* see above */
	struct maple_tree ranges;
	struct cufab_va *pending;
	struct task_struct *pending_task;
	struct cufab_va_arena *arena;
	bool no_arena;
	atomic_t nr_linear;
	unsigned int nr_kept;
	struct cufab_va *kept[CUFAB_VA_KEPT];
	atomic_long_t gen;
	unsigned int hit_next;
	struct cufab_va_hit hits[CUFAB_VA_HITS];
};

/**
 * struct cufab_va - one reservation and its VMA
 * @ref: the client's range tree, each VMA, each ioctl using it
 * @client: owner; valid while a VMA exists (the VMA holds the file)
 * @start: first address
 * @length: bytes
 * @linear: made by MEM_ALLOC; freed only by MEM_FREE
 * @pool: a chunk or imported pointer of a memory pool (pool.c); only the
 *	pool calls map, unmap, free it or change its access
 * @linear_dev: MEM_ALLOC's device (pointer info of host memory)
 * @linear_ctx: MEM_ALLOC's context id, 0 for none; the context's destroy
 *	frees the reservation (alloc_linear.c). Written once, under the space's
 *	lock, while that context cannot be destroyed.
 * @vmas: VMAs referring to this reservation (1 except during mremap)
 * @lock: protects @maps, the mappings' access and @dead; taken by the
 *	fault handler under mmap_lock
 * @dead: the VMA is gone; nothing may be mapped any more
 * @maps: struct cufab_va_map by address range, CUFAB_VA_HOLE over ranges
 *	unmapped since: the next map of such a range stores over it in place,
 *	with no tree node to allocate (nor one freed by the unmap)
 * @nr_maps: mappings in @maps, under @lock
 * @arena: the VA arena it was carved from, or NULL: a VMA of its own
 * @freeing: VA_FREE or the close of its piece is dropping it from
 *	@arena, or dropped it (under the arena's lock)
 * @arena_node: on a local list while the arena's close drops it
 * @kept: freed and kept by its client (va_arena.c): still in @ranges of
 *	the client, where no lookup finds it; dead, holding no file. Written
 *	under the space's reserve_lock and lock.
 * @parked: @kept as the arena's tree sees it: no lookup there finds it,
 *	and the close of its piece takes it out (@freeing) without a
 *	teardown. Under the arena's lock.
 */
struct cufab_va {
	struct kref ref;
	struct cufab_client *client;
	u64 start;
	u64 length;
	bool linear;
	bool pool;
	bool ipc;		/* a linear view of another process's cuMemAlloc */
	s32 linear_dev;
	u32 linear_ctx;
	u32 host_flags;		/* cuMemHostAlloc's CUFAB_HOSTALLOC_* */
	atomic_t vmas;
	struct rw_semaphore lock;
	bool dead;
	struct maple_tree maps;
	unsigned int nr_maps;
	struct cufab_va_arena *arena;
	bool freeing;
	struct list_head arena_node;
	bool kept;
	bool parked;
};

/**
 * struct cufab_va_map - part of a reservation backed by an allocation
 * @start: first address
 * @length: bytes
 * @offset: into @alloc
 * @alloc: one reference
 * @host: CUFAB_ACCESS_* for the host
 * @gpu_read: GPUs that may read
 * @gpu_write: GPUs that may write (a subset of @gpu_read)
 * @free_node: on a local list while being freed after unmap
 * @cpu_mapped: the CPU view may have PTEs in it: set by the fault handler
 *	(under va->lock for read), cleared after a zap (for write); an unmap
 *	or access change of a range never faulted in has nothing to zap
 */
struct cufab_va_map {
	u64 start;
	u64 length;
	u64 offset;
	struct cufab_alloc *alloc;
	u32 handle;	/* id of the handle object MEM_MAP was given, 0: none */
	u32 host;
	u64 gpu_read;
	u64 gpu_write;
	struct list_head free_node;
	bool cpu_mapped;
};

int cufab_va_mmap(struct file *filp, struct vm_area_struct *vma);

/* va.c, for the arena's VMA (va_arena.c) */
vm_fault_t cufab_va_fault(struct cufab_va *va, struct vm_fault *vmf);
vm_fault_t cufab_va_pfn_mkwrite(struct cufab_va *va, struct vm_fault *vmf);
void cufab_va_teardown(struct cufab_va *va);
/* Stands in @maps of a reservation for a range unmapped (va.c). */
#define CUFAB_VA_HOLE	xa_mk_value(0)
struct cufab_va_map *cufab_va_map_load(struct cufab_va *va, unsigned long addr);
bool cufab_mt_swap(struct maple_tree *mt, unsigned long start, u64 length,
		   void *old, void *entry);

/* va_arena.c: reservations carved from one VMA per process */
bool cufab_va_arena_covers(struct cufab_client *client, u64 addr, u64 length);
int cufab_va_arena_place(struct cufab_client *client, struct cufab_va *va,
			 u64 hint, u64 align);
int cufab_va_arena_drop(struct cufab_va *va, bool unmapped_only);
void cufab_va_arena_undo(struct cufab_va *va);
struct cufab_va *cufab_va_arena_revive(struct cufab_client *client, u64 hint,
				       u64 length, u64 align);
bool cufab_va_arena_vma(const struct vm_area_struct *vma,
			const struct cufab_va *va);
void cufab_va_arena_forget(struct cufab_client *client);
bool cufab_va_arena_in_mm(const struct cufab_va *va,
			  const struct mm_struct *mm);
#ifdef CUFAB_KUNIT
/* va_arena_test.c: an arena no process maps, and its gap search */
struct cufab_va_arena *cufab_va_arena_test_new(unsigned long start,
					       unsigned long end);
int cufab_va_arena_test_carve(struct cufab_va_arena *arena,
			      struct cufab_va *va, u64 hint, u64 align);
void cufab_va_arena_test_erase(struct cufab_va_arena *arena,
			       struct cufab_va *va);
int cufab_va_arena_test_close(struct cufab_va_arena *arena,
			      unsigned long start, u64 length);
void cufab_va_arena_test_put(struct cufab_va_arena *arena);
#endif

/* Access through a mapping (KUnit: kernel/tests/va_test.c). */
u32 cufab_map_cpu_access(const struct cufab_va_map *map);
u32 cufab_map_dev_access(const struct cufab_va_map *map, u32 dev);

/* In-kernel building blocks (MEM_ALLOC uses them). */
int cufab_va_reserve(struct cufab_client *client, u64 hint, u64 length,
		     u64 alignment, bool linear, s32 linear_dev, u64 *out);
int cufab_va_map_alloc(struct cufab_client *client, u64 addr, u64 length,
		       u64 offset, struct cufab_alloc *alloc, u32 handle);
int cufab_va_set_access_all(struct cufab_client *client, u64 addr,
			    u64 length, u32 host, u64 gpu_read, u64 gpu_write);
int cufab_va_unmap_munmap(struct cufab_client *client, u64 addr, u64 length,
			  bool linear);
struct cufab_va *cufab_va_find(struct cufab_client *client, u64 addr);
int cufab_va_get_pages(struct cufab_client *client, u64 addr, bool write,
		       struct page **pages, unsigned int max);

/*
 * Pool memory (pool.c): a new reservation holding @length bytes of
 * @alloc from @offset, the host with read-write access (the CPU view),
 * GPUs as @gpu_read/@gpu_write say; its address in *@out. Only
 * cufab_va_pool_munmap() frees it and cufab_va_set_access_all() changes
 * its access.
 */
int cufab_va_pool_map(struct cufab_client *client, struct cufab_alloc *alloc,
		      u64 offset, u64 length, u64 align, u64 gpu_read,
		      u64 gpu_write, u64 *out);
int cufab_va_pool_munmap(struct cufab_client *client, u64 addr);
void cufab_va_put(struct cufab_va *va);
/*
 * Run @fn on the reservation holding [addr, addr + length) with mmap_lock
 * (read) and va->lock (write) held, and @vma its VMA, so it may zap PTEs.
 * -EINVAL when the range is not inside one reservation.
 */
int cufab_va_locked(struct cufab_client *client, u64 addr, u64 length,
		    int (*fn)(struct cufab_va *va, struct vm_area_struct *vma,
			      u64 addr, u64 length, void *arg),
		    void *arg);
int cufab_va_cpu_watch(struct cufab_client *client, struct mm_struct *mm,
		       u64 addr);
extern void (*cufab_va_cpu_store_hook)(unsigned long addr);
/* cufab_va_locked() in @mm, the client's, from any task (the engine's) */
int cufab_va_locked_mm(struct cufab_client *client, struct mm_struct *mm,
		       u64 addr, u64 length,
		       int (*fn)(struct cufab_va *va,
				 struct vm_area_struct *vma, u64 addr,
				 u64 length, void *arg),
		       void *arg);
/* ... on every reservation of @client, whole */
void cufab_va_walk_locked(struct cufab_client *client,
			  struct mm_struct *mm,
			  int (*fn)(struct cufab_va *va,
				    struct vm_area_struct *vma, u64 addr,
				    u64 length, void *arg),
			  void *arg);

/*
 * Access check of a device (or the CPU when @dev < 0) over a user range:
 * 0 when every byte inside a cufab reservation is mapped and grants @need
 * (CUFAB_ACCESS_READ or _RW), -EACCES/-EFAULT otherwise, with a line
 * naming @call (NULL: none). Bytes outside reservations are plain host
 * memory and always allowed.
 */
int cufab_va_check_access(struct cufab_client *client, const char *call,
			  u64 addr, u64 length, s32 dev, u32 need);

/**
 * struct cufab_va_first - pages taken while a copy's range is checked
 * @write: the copy writes them
 * @max: room in @pages
 * @nr: out: pages taken, 0 none, -ENOENT plain host memory
 * @pages: each with a reference
 */
struct cufab_va_first {
	bool write;
	unsigned int max;
	int nr;
	struct page **pages;
};

void cufab_va_write_lock(struct cufab_va *va);
void cufab_va_ranges_grew(struct cufab_va_space *space);
int cufab_va_check_take(struct cufab_client *client, const char *call,
			u64 addr, u64 length, s32 dev, u32 need,
			struct cufab_va_first *first);

/*
 * The allocation mapped at [addr, addr + length), which must lie inside
 * one cuMemMap'ed mapping of @client (not cuMemAlloc memory): 0 with a new
 * reference in *@alloc and the offset of @addr in it in *@mem_offset, or
 * -EINVAL with a log line.
 */
int cufab_va_resolve(struct cufab_client *client, u64 addr, u64 length,
		     struct cufab_alloc **alloc, u64 *mem_offset);

/* ioctls (va.c) */
int cufab_ioctl_va_reserve(struct cufab_ucmd *ucmd);
int cufab_ioctl_va_free(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_map(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_unmap(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_set_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_get_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_retain(struct cufab_ucmd *ucmd);

/*
 * Logical endpoints (cuLogicalEndpoint*, Compute Fabric Transport).
 *
 * An endpoint is node-wide and reference counted; a process names it by
 * ids of its own id space. Each id that names an endpoint is an alias
 * (created by LE_CREATE or LE_IMPORT) holding one reference, so several
 * ids, in one process or many, may name one endpoint and the endpoint dies
 * with its last alias. What is bound lives in the endpoint's team
 * (team.h): a unicast endpoint is a team of one, its owner device.
 *
 *   le.c          id space, endpoint lifetime, create/destroy/query/limits
 *   le_bind.c     add device, bind, unbind
 *   le_share.c    FABRIC export/import
 *                 (le.c also holds the CUFAB_NL_CMD_LE_GET dump)
 *
 * Locking: a client's le.lock serialises its endpoint calls and protects
 * its id space and aliases; it is taken before a team's lock and before
 * the export table's lock. Endpoint fields other than @ready_at and the
 * export state never change after create.
 */

/**
 * struct cufab_le_space - the endpoint ids of one client
 * @lock: serialises the client's endpoint calls; protects the rest
 * @ids: reserved ranges
 * @aliases: struct cufab_le_alias by id, for associated ids only
 * @dead: the client is going away; nothing may be added any more
 */
struct cufab_le_space {
	struct mutex lock;	/* see above */
	struct cufab_idspace ids;
	struct xarray aliases;
	bool dead;
};

/**
 * struct cufab_le_alias - an associated id
 * @le: one reference
 * @id: the id
 * @imported: made by LE_IMPORT
 * @queried_ready: LE_QUERY reported the endpoint ready through this id
 */
struct cufab_le_alias {
	struct cufab_le *le;
	u32 id;
	bool imported;
	bool queried_ready;
};

/**
 * struct cufab_le - one endpoint
 * @ref: one per alias, one per call in progress, one per export lookup
 * @number: node-wide, never reused while the module is loaded
 * @type: CUFAB_LE_TYPE_*
 * @owner_dev: unicast: the owner GPU; multicast: unused
 * @length: bytes bindable per device
 * @ipc_types: CUFAB_LE_IPC_* requested at create
 * @le_flags: CUFAB_LE_FLAG_*
 * @align: bind alignment
 * @team: devices and bindings
 * @ready_at: jiffies when construction ends (pushed by each AddDevice)
 * @aliases: ids naming the endpoint node-wide
 * @creator_pid: tgid of the creating process
 * @exporter_pid: tgid of the first exporter, 0 while never exported
 * @exports: struct cufab_le_export records (le_share.c), under its lock
 * @span: an endpoint imported from another node: the fabric layer's
 *	(struct cufab_le_span_ops), NULL for one of this node
 * @creator_alias: the alias LE_CREATE makes, part of the endpoint's
 *	allocation; it stays unused once that alias is destroyed
 * @team_mem: where @team is (cufab_team_init()), cufab_team_size() bytes
 */
struct cufab_le {
	struct kref ref;
	u64 number;
	u32 type;
	u32 owner_dev;
	u64 length;
	u32 ipc_types;
	u32 le_flags;
	u64 align;
	struct cufab_team *team;
	unsigned long ready_at;
	atomic_t aliases;
	pid_t creator_pid;
	pid_t exporter_pid;
	struct list_head exports;
	void *span;
	struct cufab_le_alias creator_alias;	/* LE_CREATE's (le.c) */
	struct cufab_team team_mem;	/* last: its members follow */
};

/**
 * struct cufab_le_span_ops - an endpoint whose team may span nodes
 * @import: cuLogicalEndpointImport of another node's handle: this node's
 *	endpoint for that team, one reference, or an ERR_PTR
 * @add_device: cuLogicalEndpointAddDevice of an endpoint imported from
 *	another node (@le->span set): the join goes through its home node
 * @changed: this node's part of the team changed (a device joined, a
 *	bind, an unbind): tell the other nodes of the team
 * @release: the final put of an endpoint with @span
 *
 * Registered by the fabric layer (fabric_le.c) on a node of a domain;
 * @changed is called for endpoints exportable as FABRIC only.
 */
struct cufab_le_span_ops {
	struct cufab_le *(*import)(struct cufab_client *client,
				   const u8 *handle, unsigned int node);
	int (*add_device)(struct cufab_le *le, u32 gpu,
			  const struct cufab_team_who *who);
	void (*changed)(struct cufab_le *le);
	void (*release)(struct cufab_le *le);
};

void cufab_le_set_span_ops(const struct cufab_le_span_ops *ops);
const struct cufab_le_span_ops *cufab_le_span_ops(void);
void cufab_le_changed(struct cufab_le *le);
struct cufab_le *cufab_le_create_span(u32 type, u32 owner_dev, u64 length,
				      u64 align, u32 le_flags, u32 devices,
				      void *span);
void cufab_le_get(struct cufab_le *le);
struct cufab_le *cufab_le_fabric_lookup(const u8 *fabric, int *channel);

/* le.c */
void cufab_le_put(struct cufab_le *le);
bool cufab_le_ready(struct cufab_le *le);
struct cufab_le_alias *cufab_le_alias_find(struct cufab_client *client,
					   u32 id, const char *what);
int cufab_le_alias_add(struct cufab_client *client, u32 id,
		       struct cufab_le *le, bool imported);
u64 cufab_le_count(void);
unsigned long cufab_le_deadline(void);

int cufab_ioctl_le_id_reserve(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_id_release(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_destroy(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_query(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_get_limits(struct cufab_ucmd *ucmd);

/* le_bind.c */
int cufab_ioctl_le_add_device(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_bind(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_unbind(struct cufab_ucmd *ucmd);

/* le_share.c */
void cufab_le_exports_drop(struct cufab_le *le);
int cufab_ioctl_le_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_import(struct cufab_ucmd *ucmd);
void cufab_le_share_exit(void);
int cufab_le_cache_init(void);
void cufab_le_cache_exit(void);

/* le.c: netlink */
int cufab_nl_le_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/*
 * A client is one open file of /dev/cufab. It belongs to the process that
 * opened it and holds every object that process created; closing the file
 * (or the death of the process) destroys them all.
 */

/**
 * struct cufab_client - one open /dev/cufab
 * @objects: the client's objects by id (0 is never one)
 * @next_id: the id the next create tries first (object.c), under the
 *	table's lock
 * @kept: per type, destroyed objects kept under their old ids (users 0)
 *	for the next creates, linked through next_kept, under the table's
 *	lock (object.c)
 * @nr_kept: their number per type, at most CUFAB_OBJ_KEPT
 * @tgid: thread group that opened the file; only it may use the file
 * @comm: name of the opener, for messages and debugfs
 * @node: entry in the global client list
 * @imex_channel: IMEX channel (minor) the client presented with
 *	IMEX_SET_CHANNEL, CUFAB_IMEX_NO_CHANNEL (-1) for none (imex.c)
 * @imex_flags: CUFAB_CLIENT_IMEX_* bits (imex.c)
 * @file: the open file (not a reference: the file owns the client); VA
 *	reservations are vm_mmap()s of it (va.c)
 * @va: address reservations and their mappings (va.c)
 * @le: logical endpoint ids and aliases (le.c)
 * @streams: streams, events, completion slots; NULL until first used
 *	(stream.c)
 * @spare_alloc: the memory of the last allocations handles of the client
 *	released, zeroed and reused by its next creates (alloc.c;
 *	cufab_spare_take())
 * @spare_mc: the same for multicast objects of one device, kept with
 *	their allocations (multicast.c)
 * @spare_pool: the same for pools the client created (pool.c)
 */
/**
 * struct cufab_cpu_fence - what keeps a client's managed memory from its CPU
 * @lock: @busy, and every struct cufab_stream.fence_node on it
 * @busy: streams on a GPU with CONCURRENT_MANAGED_ACCESS 0 that have work
 *	queued or running (alloc_managed.c)
 * @mm: the opener's, mmgrab()bed: where a change of association that no
 *	stream makes (a destroyed stream's memory reverting) zaps PTEs
 */
struct cufab_cpu_fence {
	spinlock_t lock;	/* see above */
	struct list_head busy;
	struct mm_struct *mm;
};

/*
 * The registrations of a client (alloc_hostreg.c): each an allocation,
 * keyed by the page range it pins.
 */
struct cufab_hostreg_space {
	struct mutex lock;		/* protects @ranges' entries */
	struct maple_tree ranges;
};

/* Destroyed objects a client keeps per type for its next creates. */
#define CUFAB_OBJ_KEPT	4

struct cufab_client {
	struct xarray objects;
	u32 next_id;
	struct cufab_object *kept[CUFAB_OBJ_MAX];
	u8 nr_kept[CUFAB_OBJ_MAX];
	struct pid *tgid;
	char comm[TASK_COMM_LEN];
	struct list_head node;
	int imex_channel;
	unsigned long imex_flags;
	struct file *file;
	struct cufab_va_space va;
	struct cufab_le_space le;
	struct cufab_stream_space *streams;
	struct cufab_cpu_fence fence;
	struct cufab_hostreg_space hostreg;
	void *spare_alloc[CUFAB_OBJ_KEPT];
	void *spare_mc[CUFAB_OBJ_KEPT];
	void *spare_pool[CUFAB_OBJ_KEPT];
};

/*
 * A client's spares of one kind (alloc.c, multicast.c, pool.c): the memory
 * of up to CUFAB_OBJ_KEPT released objects, as many as it keeps of a type
 * of its own objects, for its next creates. Each slot is filled and
 * emptied with one atomic exchange: no lock.
 */
static inline void *cufab_spare_take(void **slots)
{
	unsigned int i;
	void *p;

	for (i = 0; i < CUFAB_OBJ_KEPT; i++) {
		if (!READ_ONCE(slots[i]))
			continue;
		p = xchg(&slots[i], NULL);
		if (p)
			return p;
	}
	return NULL;
}

/* False when every slot is full: the caller frees @p. */
static inline bool cufab_spare_keep(void **slots, void *p)
{
	unsigned int i;

	for (i = 0; i < CUFAB_OBJ_KEPT; i++)
		if (!READ_ONCE(slots[i]) && !cmpxchg(&slots[i], NULL, p))
			return true;
	return false;
}

static inline void cufab_spares_free(void **slots)
{
	unsigned int i;

	for (i = 0; i < CUFAB_OBJ_KEPT; i++)
		kfree(xchg(&slots[i], NULL));
}

/* imex_flags: the "needs an IMEX channel" hint was logged for this client */
#define CUFAB_CLIENT_IMEX_WARNED	0

/*
 * One ratelimited line (per call site) for a refused call, naming the
 * process that made it.
 */
#define cufab_pr_info(client, fmt, ...)				\
	do {								\
		const struct cufab_client *__c = (client);		\
									\
		pr_info_ratelimited("pid %d (%s): " fmt,		\
				    pid_nr(__c->tgid), __c->comm,	\
				    ##__VA_ARGS__);			\
	} while (0)

/**
 * struct cufab_client_part - a subsystem's state in every client
 * @name: what it is, for the reader of cufab_client_parts[] (client.c)
 * @init: optional, at open, before the client is visible; cannot fail
 * @teardown: optional, at close, once no ioctl can run on the client any
 *	more: free what the subsystem holds for it
 *
 * A subsystem with per-client state defines one and adds it to
 * cufab_client_parts[] in client.c, whose order is the teardown order.
 */
struct cufab_client_part {
	const char *name;
	void (*init)(struct cufab_client *client);
	void (*teardown)(struct cufab_client *client);
};

extern const struct cufab_client_part cufab_stream_work_client_part;
extern const struct cufab_client_part cufab_mc_client_part;
extern const struct cufab_client_part cufab_stream_space_client_part;
extern const struct cufab_client_part cufab_object_client_part;
extern const struct cufab_client_part cufab_le_client_part;
extern const struct cufab_client_part cufab_va_client_part;
extern const struct cufab_client_part cufab_alloc_client_part;
extern const struct cufab_client_part cufab_pool_client_part;

struct cufab_client *cufab_client_alloc(void);
void cufab_client_free(struct cufab_client *client);
void cufab_client_register(struct cufab_client *client);
void cufab_client_unregister(struct cufab_client *client);
bool cufab_client_is_owner(const struct cufab_client *client);

int cufab_fops_open(struct inode *inode, struct file *filp);
int cufab_fops_release(struct inode *inode, struct file *filp);

int cufab_clients_block(void);
void cufab_clients_unblock(void);
unsigned int cufab_clients_count(void);
void cufab_clients_sync(void);
void cufab_clients_show(struct seq_file *m);
int cufab_clients_for_each(unsigned long skip,
			   int (*fn)(struct cufab_client *client, void *arg),
			   void *arg);
/* PROC_GET: the processes with /dev/cufab open (client_netlink.c) */
int cufab_nl_proc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int cufab_nl_domain_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);

/*
 * Contexts: the kernel half of a CUcontext. The library keeps the thread's
 * context stack; the kernel owns the object so that state hanging off a
 * context (peer links, cuMemAlloc memory, streams) dies with it or with
 * the process.
 */

/**
 * struct cufab_ctx - a context
 * @obj: object header (type CUFAB_OBJ_CTX)
 * @dev: kernel index of the GPU; valid for the context's lifetime because
 *	the topology cannot change while its client is open
 * @flags: CUctx_flags given at creation
 * @linear: MEM_ALLOC has tied an allocation to it (set under the client's
 *	va.lock, cufab_mem_free_ctx() reads it there)
 */
struct cufab_ctx {
	struct cufab_object obj;
	u32 dev;
	u32 flags;
	bool linear;
};

static_assert(offsetof(struct cufab_ctx, obj) == 0);

extern const struct cufab_object_ops cufab_ctx_ops;

bool cufab_ctx_flags_valid(u32 flags);
int cufab_ioctl_ctx_create(struct cufab_ucmd *ucmd);

/*
 * The /dev/cufab ioctl dispatcher and what a handler receives.
 */

/**
 * struct cufab_ucmd - one ioctl call as seen by its handler
 * @client: the calling client (already checked to be the owner)
 * @ubuffer: the user's struct
 * @user_size: its size as the user declared it
 * @cmd: kernel copy of the struct, zero-extended to the kernel's size
 */
struct cufab_ucmd {
	struct cufab_client *client;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
};

/*
 * Copy the (updated) struct back to the caller, no more than the user's
 * size of it: 0 or -EFAULT. Inline so that a handler needs nothing of
 * ioctl.c but its struct cufab_ucmd.
 */
static inline int cufab_ucmd_respond(struct cufab_ucmd *ucmd, size_t cmd_len)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, cmd_len)))
		return -EFAULT;
	return 0;
}

long cufab_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

/*
 * IMEX channels: the capability that FABRIC handles are checked against.
 *
 * Like NVIDIA's nvidia-caps-imex-channels, the channels are the minors of
 * a bare char-device region named "cufab-imex-channels". A process proves
 * it may use channel N by opening /dev/cufab-imex-channels/channelN (Unix
 * permissions on the node are the access control) and handing the fd to
 * CUFAB_IOCTL_IMEX_SET_CHANNEL; the client then records N.
 */

#define CUFAB_IMEX_REGION_NAME	"cufab-imex-channels"
#define CUFAB_IMEX_DIR		"/dev/cufab-imex-channels"
/* cufab_client.imex_channel when the client has none */
#define CUFAB_IMEX_NO_CHANNEL	(-1)

int cufab_imex_init(void);
void cufab_imex_exit(void);

int cufab_imex_channel(const struct cufab_client *client);
int cufab_imex_check(struct cufab_client *client, const char *what);
int cufab_ioctl_imex_set_channel(struct cufab_ucmd *ucmd);

unsigned int cufab_imex_major(void);
unsigned int cufab_imex_channel_count(void);

/*
 * Sharing allocations between processes: cuMemExportToShareableHandle and
 * cuMemImportFromShareableHandle.
 *
 * POSIX_FD handles are dma-bufs (share_dmabuf.c), so any dma-buf importer
 * in the kernel could use the memory too. FABRIC handles are 64 bytes that
 * name a record of the node-wide export table (share_fabric.c) and carry a
 * random secret; they are checked against IMEX channels (imex.c).
 */

/*
 * The 64 bytes of a FABRIC handle. Only the kernel interprets them; the
 * layout is versioned so that a handle of another module version is
 * refused cleanly instead of being misread.
 */
#define CUFAB_FABRIC_MAGIC		0x42414643	/* "CFAB" */
#define CUFAB_FABRIC_LE_MAGIC		0x454c4643	/* "CFLE": endpoints */
#define CUFAB_FABRIC_EVENT_MAGIC	0x56454643	/* "CFEV": events */
#define CUFAB_IPC_MEM_MAGIC		0x4d494643	/* "CFIM": cuIpcGetMemHandle */
#define CUFAB_FABRIC_VERSION		1
#define CUFAB_FABRIC_SECRET_LEN		48

struct cufab_fabric_handle {
	__le32 magic;
	__le16 version;
	__le16 node;
	__le64 export_id;
	u8 secret[CUFAB_FABRIC_SECRET_LEN];
};

/* share_fabric.c: the node-wide FABRIC export table */
void cufab_fabric_encode_as(u32 magic, u32 export_id,
			    const u8 secret[CUFAB_FABRIC_SECRET_LEN],
			    u8 out[CUFAB_FABRIC_HANDLE_LEN]);
int cufab_fabric_handle_node(u32 magic, const u8 in[CUFAB_FABRIC_HANDLE_LEN],
			     unsigned int *node);
int cufab_fabric_decode_as(u32 magic, const u8 in[CUFAB_FABRIC_HANDLE_LEN],
			   u32 *export_id, const u8 **secret);
/* Constant-time comparison of two CUFAB_FABRIC_SECRET_LEN secrets. */
bool cufab_fabric_secret_ok(const u8 *a, const u8 *b);
void cufab_fabric_encode(u32 export_id,
			 const u8 secret[CUFAB_FABRIC_SECRET_LEN],
			 u8 out[CUFAB_FABRIC_HANDLE_LEN]);
int cufab_fabric_decode(const u8 in[CUFAB_FABRIC_HANDLE_LEN], u32 *export_id,
			const u8 **secret);
int cufab_fabric_export_as(struct cufab_alloc *alloc, u32 magic, int channel,
			   u8 out[CUFAB_FABRIC_HANDLE_LEN]);
struct cufab_alloc *cufab_fabric_import_as(u32 magic,
					   const u8 in[CUFAB_FABRIC_HANDLE_LEN],
					   int *channel, int gone);
int cufab_fabric_export(struct cufab_alloc *alloc, int channel,
			u8 out[CUFAB_FABRIC_HANDLE_LEN]);
/* From the final put of an allocation with ->fabric set. */
void cufab_fabric_forget(struct cufab_alloc *alloc);
struct cufab_alloc *cufab_fabric_import(const u8 in[CUFAB_FABRIC_HANDLE_LEN],
					int *channel);
unsigned long cufab_fabric_exports_count(void);
void cufab_fabric_show(struct seq_file *m);
void cufab_fabric_exit(void);

/**
 * struct cufab_dmabuf_seg - pages of one allocation in a range's dma-buf
 * @alloc: the allocation
 * @first: its page the segment starts at
 * @npages: pages
 */
struct cufab_dmabuf_seg {
	struct cufab_alloc *alloc;
	pgoff_t first;
	pgoff_t npages;
};

/* share_dmabuf.c: POSIX_FD handles and address ranges */
struct dma_buf *cufab_dmabuf_export(struct cufab_alloc *alloc);
struct dma_buf *cufab_dmabuf_export_range(const struct cufab_dmabuf_seg *seg,
					  unsigned int nr);
int cufab_dmabuf_respond_fd(struct cufab_ucmd *ucmd, struct dma_buf *dmabuf,
			    s32 *out_fd, size_t cmd_len);
struct cufab_alloc *cufab_dmabuf_to_alloc(int fd);

/* dmabuf_range.c: CUFAB_IOCTL_MEM_RANGE_EXPORT */
int cufab_ioctl_mem_range_export(struct cufab_ucmd *ucmd);

/* share.c: ioctls */
int cufab_ioctl_mem_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_import(struct cufab_ucmd *ucmd);

/*
 * Multicast objects (cuMulticast*). A multicast object is a
 * CUmemGenericAllocationHandle in CUDA: released with cuMemRelease,
 * exported and imported like memory, mapped with cuMemMap. So it is a
 * struct cufab_alloc of the multicast kind (multicast.c), without pages, whose
 * node-wide struct cufab_mc (the team of devices and their bindings) goes
 * with the allocation's last reference.
 *
 * References on the allocation: handles, imports, dma-bufs, mappings, and
 * one held for as long as the team has any binding, so a released object
 * stays alive until its last unbind (or its binders' death).
 */

/**
 * struct cufab_mc - node-wide state of one multicast object
 * @alloc: the allocation it belongs to (no reference: it owns us)
 * @team: devices and their bindings
 * @node: on the global list (netlink dump, process death)
 * @hold_lock: serializes @held against the binding count
 * @held: a reference on @alloc is held because something is bound
 * @skipped: replicas multimem operations skipped (nothing bound there)
 * @span: the fabric layer's state of an object imported from another
 *	node (struct cufab_mc_span_ops), NULL for one of this node
 * @team_mem: where @team is once set (cufab_team_init()),
 *	cufab_team_size() bytes
 */
struct cufab_mc {
	struct cufab_alloc *alloc;
	struct cufab_team *team;
	struct list_head node;
	struct mutex hold_lock;		/* see above */
	bool held;
	atomic64_t skipped;
	void *span;
	struct cufab_team team_mem;	/* last: its members follow */
};

/**
 * struct cufab_mc_span_ops - an object whose team may span nodes
 * @add_device: cuMulticastAddDevice of an object imported from another
 *	node (@mc->span set): the join goes through its home node
 * @changed: this node's part of the team changed (a device joined, a
 *	bind, an unbind): tell the other nodes of the team
 * @release: the final put of an object with @span
 *
 * Registered by the fabric layer (fabric_team.c) on a node of a domain;
 * called for objects exportable as FABRIC only, with no lock of ours.
 */
struct cufab_mc_span_ops {
	int (*add_device)(struct cufab_mc *mc, u32 gpu,
			  const struct cufab_team_who *who);
	void (*changed)(struct cufab_mc *mc);
	void (*release)(struct cufab_mc *mc);
};

void cufab_mc_set_span_ops(const struct cufab_mc_span_ops *ops);

/*
 * This node's object for a team of @num_devices whose home is another
 * node: exportable as FABRIC, @span the fabric layer's (given back to
 * ->release). One reference, or an ERR_PTR (@span stays the caller's).
 */
struct cufab_alloc *cufab_mc_create_span(u64 length, u32 num_devices,
					 void *span);

/* Re-take or drop the bindings' reference after the bindings changed. */
void cufab_mc_hold_sync(struct cufab_mc *mc);

/* Module parameter mc_team_timeout_ms: how long binds and maps wait. */
unsigned int cufab_mc_team_timeout_ms(void);

/* The multicast object of @alloc, NULL when @alloc is another kind. */
struct cufab_mc *cufab_alloc_mc(struct cufab_alloc *alloc);

/* Count skipped replicas and announce them (multimem.c). */
void cufab_mc_skipped(struct cufab_mc *mc, u32 skipped);

/*
 * Walk the live objects with a reference each, oldest first: @fn runs
 * without any lock of ours; a nonzero return stops the walk.
 */
int cufab_mc_for_each(u64 from_id, int (*fn)(struct cufab_mc *mc, void *arg),
		      void *arg);

/* multicast.c: netlink */
void cufab_mc_nl_event(struct cufab_mc *mc, u32 skipped);

/* ioctls */
int cufab_ioctl_mc_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_mc_add_device(struct cufab_ucmd *ucmd);
int cufab_ioctl_mc_bind(struct cufab_ucmd *ucmd);
int cufab_ioctl_mc_unbind(struct cufab_ucmd *ucmd);
int cufab_ioctl_multimem(struct cufab_ucmd *ucmd);

/* The allocation kinds' ioctls (alloc_vmm.c, alloc_linear.c). */
int cufab_ioctl_mem_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_alloc(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_free(struct cufab_ucmd *ucmd);
/* cuCtxDestroy: free what cuMemAlloc made in the context. */
void cufab_mem_free_ctx(struct cufab_ctx *ctx);
/* cuMemAdvise, cuMemPrefetchAsync, cuMemRangeGetAttribute(s) */
int cufab_ioctl_mem_advise(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_prefetch(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_range_attrs(struct cufab_ucmd *ucmd);

/*
 * Synchronous copies and sets, pointer classification and cuMemGetInfo
 * (memops.c).
 */
int cufab_ioctl_mem_copy(struct cufab_ucmd *ucmd);
/*
 * A stream's copy or set (@fill: @value in @elem-byte units at @dst) and
 * its progress, run by the engine a piece at a time in a kernel thread
 * using the mm.
 */
struct cufab_move {
	u64 dst, src, length, done;
	u32 value, elem;
	bool fill;
};

/* Bytes an engine worker moves before another stream may have it. */
#define CUFAB_ENGINE_PIECE	SZ_2M

/* One stream copy or set as STREAM_SUBMIT asked for it, checked. */
struct cufab_mem_desc {
	u64 dst, src, length;	/* length in bytes */
	u32 src_dev, dst_dev;
	u32 value, elem_size;
	bool fill;		/* a set */
};

int cufab_move_user_step(struct cufab_client *client, struct cufab_move *mv);
bool cufab_set_unreachable(struct cufab_client *client, u64 dst, s32 dev);
int cufab_ioctl_mem_set(struct cufab_ucmd *ucmd);
int cufab_ioctl_pointer_info(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_get_info(struct cufab_ucmd *ucmd);

/*
 * The data movement of multimem (multimem.c). Reductions: dst[i] =
 * dst[i] <op> src[i] for @n elements of @dtype (enum cufab_multimem_dtype)
 * with @redop (enum cufab_multimem_redop), checked by the caller. Copies:
 * cufab_mm_copy(), memcpy at the speed of user space's (multimem_ops.c).
 */

void cufab_mm_combine(u32 dtype, u32 redop, void *dst, const void *src,
		      size_t n);

/*
 * multimem_fp.c, built with the FPU enabled: the float and double
 * reductions. Call only between kernel_fpu_begin() and kernel_fpu_end().
 */
void cufab_mm_fp_combine(u32 dtype, u32 redop, void *dst, const void *src,
			 size_t n);

void cufab_mm_copy(void *dst, const void *src, size_t n);

int cufab_nl_init(void);
void cufab_nl_exit(void);

/*
 * For the handlers, dumps and events that sit beside their objects
 * (node_netlink.c, alloc.c, le.c, multicast.c, peer.c, pool.c, ...).
 */
struct genl_info;
void *cufab_nl_reply_put(struct sk_buff *msg, struct genl_info *info, u8 cmd);
void *cufab_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);
int cufab_nl_dump_ret(struct sk_buff *skb, int ret);
int cufab_nl_alloc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int cufab_nl_put_team(struct sk_buff *skb, const struct cufab_team *team);
int cufab_nl_put_binding(struct sk_buff *skb, u32 gpu,
			 const struct cufab_binding *b);
bool cufab_nl_has_listeners(void);
struct sk_buff *cufab_nl_event_new(u8 cmd, size_t size, void **hdr);
void cufab_nl_event_send(struct sk_buff *msg, void *hdr);

/* multicast.c: netlink */
int cufab_nl_mc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* node_netlink.c: the node's configuration, in netlink.c's op table */
int cufab_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int cufab_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int cufab_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info);
int cufab_nl_topo_get_doit(struct sk_buff *skb, struct genl_info *info);
int cufab_nl_topo_set_doit(struct sk_buff *skb, struct genl_info *info);

/*
 * Peer context access (cuCtxEnablePeerAccess, cuCtxDisablePeerAccess): the
 * one-way links from a context to a peer context of the same client, and
 * the node-wide count of distinct peer GPUs each GPU has links to.
 */

/**
 * struct cufab_peer_counts - peer connections of every GPU
 * @links: @links[a][b] context links from GPU a to GPU b, node-wide
 * @peers: @peers[a] GPUs b with @links[a][b] > 0: the peer connections
 *	GPU a uses, which max_peers limits
 */
struct cufab_peer_counts {
	u32 links[CUFAB_MAX_GPUS][CUFAB_MAX_GPUS];
	u32 peers[CUFAB_MAX_GPUS];
};

/* No limit on peer connections (cufab_peer_counts_get()'s @max). */
#define CUFAB_PEERS_UNLIMITED	U32_MAX

int cufab_peer_counts_get(struct cufab_peer_counts *c, u32 gpu, u32 peer,
			  u32 max);
void cufab_peer_counts_put(struct cufab_peer_counts *c, u32 gpu, u32 peer);

int cufab_ioctl_peer_enable(struct cufab_ucmd *ucmd);
int cufab_ioctl_peer_disable(struct cufab_ucmd *ucmd);
void cufab_peer_ctx_destroy(struct cufab_client *client, u32 ctx_id);
u32 cufab_peer_gpu_count(u32 gpu);
int cufab_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/*
 * Memory pools of the stream-ordered allocator (cuMemPool*, pool.c).
 *
 * A struct cufab_pool is node-wide and reference counted: the creating
 * client's pool object, each importer's pool object, each exported fd and
 * each chunk hold one reference. Chunks are allocations the owner maps
 * into its address space; the library sub-allocates inside them, so the
 * kernel sees only whole chunks come and go.
 */
extern const struct cufab_object_ops cufab_pool_handle_ops;

u64 cufab_pools_live(void);
void cufab_pools_show(struct seq_file *m);
int cufab_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
void cufab_pools_exit(void);

int cufab_ioctl_pool_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_attr(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_grow(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_shrink(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_set_access(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_get_access(struct cufab_ucmd *ucmd);
/* pool_share.c */
int cufab_ioctl_pool_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_import(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_ptr_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_ptr_import(struct cufab_ucmd *ucmd);
int cufab_ioctl_pool_ptr_release(struct cufab_ucmd *ucmd);

void cufab_debugfs_init(void);
void cufab_debugfs_exit(void);

/*
 * Streams, events and the per-GPU engine that runs stream operations
 * (engine.c, stream.c, event.c).
 *
 * A stream is an ordered queue of operations (struct cufab_op). Only the
 * head of a queue is ever considered: once the fences it depends on have
 * signalled, the engine of the stream's GPU runs it, signals its fence and
 * publishes its sequence number in the stream's completion slot, which
 * the process maps read-only (CUFAB_SEQ_MMAP_OFFSET).
 *
 * What an operation does is in its struct cufab_op_type; a new kind of
 * operation is a new entry of cufab_op_types[] (engine.c).
 */

/* Copy engines of a GPU: operations of this many streams run at once. */
#define CUFAB_COPY_ENGINES	3

/**
 * struct cufab_fence - completion of one operation
 * @base: the dma_fence; seqno is the operation's sequence number
 * @lock: its lock, here so that the fence may outlive its stream
 */
struct cufab_fence {
	struct dma_fence base;
	spinlock_t lock;		/* base's, see above */
};

/**
 * struct cufab_stream_space - a client's streams, events and slots
 * @ref: the client and each of its events (an event imported by another
 *	process keeps its exporter's slots)
 * @lock: @streams, @slot_ida
 * @streams: every stream of the client (struct cufab_stream.node)
 * @slots: CUFAB_SEQ_SLOTS completion slots (vmalloc, charged to the
 *	process's memory cgroup), mapped by the process read-only
 * @slot_ida: slot allocator
 * @host_queue: host operations ready to run, oldest first; under the
 *	lock of @host_tokens
 * @host_tokens: host operations handed to the host thread, by token; its
 *	lock also guards @host_queue and @dead
 * @host_wq: the host thread sleeps here
 * @done_wq: STREAM_WAIT callers sleep here until a slot advances
 * @slot_lock: serialises the writers of @slots (cufab_slot_publish())
 * @queued: operations of the client's streams not yet freed, at most
 *	stream_queue_max (cufab_stream_queue_reserve())
 * @depth_wq: submitters wait here for @queued to fall
 * @dead: the client is closing; nothing new runs
 */
struct cufab_stream_space {
	struct kref ref;
	struct mutex lock;		/* streams, slot_ida */
	struct list_head streams;
	struct cufab_seq_slot *slots;
	struct ida slot_ida;
	struct list_head host_queue;
	struct xarray host_tokens;
	wait_queue_head_t host_wq;
	wait_queue_head_t done_wq;
	spinlock_t slot_lock;		/* writers of slots */
	atomic_t queued;		/* operations reserved */
	wait_queue_head_t depth_wq;	/* submitters wait for room */
	atomic_t nr_streams;		/* made and not yet freed */
	bool dead;
	struct list_head kept_streams;	/* freed, with their slots (stream.c) */
	unsigned int nr_kept;		/* on kept_streams; both under lock */
};

/**
 * struct cufab_stream - an ordered queue of operations on one GPU
 * @ref: the stream object, each queued operation, a queued @work; the
 *	engine's to drop (cufab_stream_put()), which calls
 *	@owner->release with the last
 * @owner: the owner's release (stream.c), given to cufab_stream_init()
 * @lock: @ops, @last, @submitted, @error, @dead, @running
 * @ops: queued operations, head first; the head may be running
 * @node: entry in the space's @streams
 * @work: runs the head operation on the engine of @dev
 * @space: the client's stream space
 * @client: owner
 * @fence_ctx: dma_fence context of the stream's fences
 * @submitted: sequence number of the last submitted operation
 * @last: fence of the last submitted operation (NULL before the first)
 * @error: sticky error of the stream (0 or -errno)
 * @dead: cancelled (context or client gone); submits are -ESHUTDOWN
 * @running: name of the operation running, for stream show
 * @ctx_id: the context
 * @dev: kernel GPU index of the context
 * @flags: CUFAB_STREAM_*
 * @priority: CUFAB_STREAM_PRIO_GREATEST..0
 * @slot: index of the completion slot
 * @uid: node-wide unique id
 * @depth: operations queued
 * @wq: the engine of @dev
 * @gone_node: entry in a list of streams being cancelled
 * @busy: operations queued or running, plus submissions being queued
 *	(the engine's busy and idle transitions, struct cufab_stream_watch)
 * @fence_node: on its client's fence.busy while it keeps managed memory
 *	from the CPU (alloc_managed.c)
 * @managed_single: the managed memory attached SINGLE to it, which its end
 *	puts back (alloc_managed.c)
 */
struct cufab_stream {
	struct kref ref;
	const struct cufab_stream_ops *owner;
	spinlock_t lock;		/* queue and state, see above */
	struct list_head ops;
	struct list_head node;
	struct delayed_work work;
	struct cufab_stream_space *space;
	struct cufab_client *client;
	u64 fence_ctx;
	u64 submitted;
	struct dma_fence *last;
	int error;
	bool dead;
	const char *running;
	u32 ctx_id;
	u32 dev;
	u32 flags;
	s32 priority;
	u32 slot;
	u64 uid;
	u32 depth;
	struct workqueue_struct *wq;
	struct list_head gone_node;
	atomic_t busy;
	struct list_head fence_node;
	struct list_head managed_single;
};

/**
 * struct cufab_event - the kernel half of a CUevent
 * @ref: the event object and each record operation
 * @lock: @last, @records
 * @space: the client's stream space (for the slot)
 * @last: fence of the last record (NULL before the first)
 * @records: number of the last record
 * @flags: CUFAB_EVENT_*
 * @ctx_id: the context
 * @slot: index of the completion slot
 * @export_id: entry in the node-wide export table, 0 when not exported
 *	(under cufab_event_export_lock)
 * @secret: of the export handle
 */
struct cufab_event {
	struct kref ref;
	spinlock_t lock;		/* last, records */
	struct cufab_stream_space *space;
	struct dma_fence *last;
	u64 records;
	u32 flags;
	u32 ctx_id;
	u32 slot;
	u32 export_id;
	u8 secret[CUFAB_FABRIC_SECRET_LEN];
};

/* Where an operation is on its way through the engine. */
enum cufab_op_state {
	CUFAB_OP_QUEUED,	/* behind the head, or a head not looked at */
	CUFAB_OP_WAITING,	/* head, a callback on an unsignalled dep */
	CUFAB_OP_RUNNING,	/* the engine runs it */
	CUFAB_OP_HOSTQ,		/* on the space's host queue */
	CUFAB_OP_HOSTRUN,	/* handed to the host thread */
	CUFAB_OP_PARKED,	/* head, ran, runs again after cufab_op_wake() */
};

/**
 * struct cufab_op_type - what one kind of operation does
 * @name: for messages and stream show
 * @skip_on_error: does not run once the stream has an error; completes
 *	with it instead
 * @run_inline: costs less than waking the engine and never parks: its
 *	submitter may run it when the stream is idle
 *	(cufab_stream_queue_claim()), in the submitting process (current->mm
 *	is then the one the operation was prepared in)
 * @prepare: check and take what the operation needs at submit time
 *	(called before the operation is queued); may be NULL
 * @deps: optional, after @prepare: the fences the operation waits for
 *	besides the legacy stream rules', with cufab_op_add_dep()
 * @queued: called under the stream's lock once the operation has its
 *	sequence number and fence, before it can run; may be NULL
 * @execute: run it on the engine. Return 0 when done, -EINPROGRESS when
 *	someone else completes it later (cufab_op_complete()), CUFAB_OP_PARK
 *	when it cannot go on yet: the stream holds it at its head and runs
 *	@execute again after cufab_op_wake() (or, for cufab_op_yield(), by
 *	itself), or -errno
 * @unpark: a parked operation is being cancelled: no cufab_op_wake() of it
 *	may start after this returns. Called under the stream's lock; may be
 *	NULL for a type that never parks
 * @cleanup: release what @prepare took; called once, also for an
 *	operation cancelled before it ran; may be NULL
 * @settled: optional, for a type whose operation may change nothing: is
 *	this one settled at submission (it would change nothing and
 *	@stream is idle, cufab_stream_idle())? Then no operation is made or
 *	queued and the submission completes at once with *@seq, the
 *	stream's last. Called with the legacy stream rules met and held
 *	(cufab_stream_submit_settled()); answers false for anything its
 *	@prepare would refuse, which then explains why
 */
struct cufab_op_type {
	const char *name;
	bool skip_on_error;
	bool run_inline;
	int (*prepare)(struct cufab_op *op, const struct cufab_stream_submit *cmd);
	int (*deps)(struct cufab_op *op, const struct cufab_stream_submit *cmd);
	void (*queued)(struct cufab_op *op);
	int (*execute)(struct cufab_op *op);
	void (*cleanup)(struct cufab_op *op);
	void (*unpark)(struct cufab_op *op);
	bool (*settled)(struct cufab_stream *stream,
			const struct cufab_stream_submit *cmd, u64 *seq);
};

/* struct cufab_op_type.execute: hold the operation until it is woken */
#define CUFAB_OP_PARK	1

/**
 * struct cufab_op - one queued operation
 * @node: entry in the stream's @ops
 * @type: what it does
 * @stream: the stream (a reference)
 * @fence: signalled when it completes (the op holds a reference)
 * @seq: its sequence number
 * @deps: fences to wait for before it runs (references)
 * @nr_deps: entries of @deps
 * @next_dep: first entry not known to be signalled
 * @dep_cb: callback on @deps[@next_dep] while WAITING
 * @dep_fired: @dep_cb has run
 * @woken: cufab_op_wake() since the operation last started running
 * @delayed: the race knob has had its say
 * @state: enum cufab_op_state
 * @status: the stream's error when the op was reached (HOST ops)
 * @reserved: holds a place in the client's queue bound, given back when
 *	it is freed
 * @aux: set by @type->queued for the submitter (a record's number)
 * @host_node: entry in the host queue (HOSTQ)
 * @token: the host token (HOSTRUN)
 * @resume_us: a PARKED op that yielded runs again this much later
 * @stalled_since: jiffies since its faults would sleep (mem ops), or 0
 * @width: entries of a batch it stands for (0 means 1): it takes that many
 *	sequence numbers (@seq is the last) and places in the queue bound
 * @u: per-type arguments
 */
struct cufab_op {
	struct list_head node;
	const struct cufab_op_type *type;
	struct cufab_stream *stream;
	struct cufab_fence *fence;
	u64 seq;
	struct dma_fence **deps;
	unsigned int nr_deps;
	unsigned int next_dep;
	struct dma_fence_cb dep_cb;
	bool dep_fired;
	bool woken;
	bool delayed;
	enum cufab_op_state state;
	int status;
	bool reserved;
	u64 aux;
	struct list_head host_node;
	u32 token;
	unsigned int resume_us;
	unsigned long stalled_since;
	u32 width;
	union {
		struct {
			struct mm_struct *mm;
			struct cufab_mem_desc one;
			struct cufab_mem_desc *descs;	/* &one, or a run */
			u32 nr, cur;	/* entries of @descs, the one moving */
			u64 done;	/* bytes of descs[cur] moved */
		} mem;
		struct {
			u64 fn, data;
		} host;
		struct {
			struct cufab_event *event;
			u64 record;
		} event;
		struct {
			struct cufab_alloc *alloc;	/* NULL: pageable */
			struct mm_struct *mm;		/* mmgrab()bed */
			u64 addr;
			u32 flags;
		} attach;
		struct {
			void *job;	/* alloc_managed.c's */
		} prefetch;
		struct {
			struct cufab_memop_job *job;	/* streammem.c's */
		} memop;
	} u;
};

/*
 * The operation types, by CUFAB_OP_* in cufab_op_types[] (engine.c), each
 * defined with its concern. A new one is a struct cufab_op_type in its
 * group's file, its CUFAB_OP_* value and one line of the table.
 */
extern const struct cufab_op_type *const cufab_op_types[CUFAB_OP_MAX];
/* memops.c: CUFAB_OP_COPY, CUFAB_OP_SET */
extern const struct cufab_op_type cufab_op_copy;
extern const struct cufab_op_type cufab_op_set;
/* stream.c: CUFAB_OP_HOST, CUFAB_OP_STREAM_WAIT */
extern const struct cufab_op_type cufab_op_host;
extern const struct cufab_op_type cufab_op_stream_wait;
/* event.c: CUFAB_OP_EVENT_RECORD, CUFAB_OP_EVENT_WAIT */
extern const struct cufab_op_type cufab_op_record;
extern const struct cufab_op_type cufab_op_wait;

/**
 * struct cufab_stream_watch - a part of the module that follows streams
 * @busy: @stream had no work and has some now, before its first operation
 *	can run. Context: process, the client's mm is current's; may sleep
 * @idle: @stream has no work any more. Context: process; may sleep
 * @access: an operation of @stream is about to touch [addr, addr + length)
 *	of the client's address space (with its mm in use): 0, or the error
 *	the operation fails with
 * @failed: @op failed and set its stream's sticky error. Context:
 *	process, no lock of the stream held
 * @gone: @stream is destroyed and drained, about to be freed (its
 *	release). Context: process; may sleep
 *
 * Every member is optional. The watchers are listed in
 * cufab_stream_watchers[] (engine.c).
 */
struct cufab_stream_watch {
	void (*busy)(struct cufab_stream *stream);
	void (*idle)(struct cufab_stream *stream);
	int (*access)(struct cufab_op *op, u64 addr, u64 length);
	void (*failed)(struct cufab_op *op);
	void (*gone)(struct cufab_stream *stream);
};

/* alloc_managed.c: the CPU fence of CONCURRENT_MANAGED_ACCESS 0 */
extern const struct cufab_stream_watch cufab_managed_stream_watch;
extern const struct cufab_client_part cufab_managed_client_part;
/* 0 off, 1 report, 2 also fail: the module parameter managed_check */
extern unsigned int cufab_managed_check;

/* engine.c */
struct workqueue_struct *cufab_engine_get(u32 dev, s32 priority);
void cufab_engine_exit(void);
struct cufab_fence *cufab_fence_create(struct cufab_stream *stream, u64 seq);
int cufab_stream_queue(struct cufab_stream *stream, struct cufab_op *op,
		       u64 *seq, u64 *aux);
bool cufab_stream_idle(struct cufab_stream *stream, u64 *seq);
int cufab_stream_queue_claim(struct cufab_stream *stream, struct cufab_op *op,
			     u64 *seq, u64 *aux, bool *claimed);
void cufab_op_run(struct cufab_op *op);
void cufab_op_wake(struct cufab_op *op);
int cufab_op_yield(struct cufab_op *op, unsigned int us);
void cufab_stream_kick(struct cufab_stream *stream);
void cufab_stream_cancel(struct cufab_stream *stream, int err);
/**
 * struct cufab_stream_ops - what the engine calls of its streams' owner
 * @release: the last reference is gone: the stream is destroyed and
 *	drained, free it. Context: process (the engine's worker or whoever
 *	dropped the last reference); may sleep
 *
 * The engine holds a stream as drm_sched's jobs hold their entity: each
 * queued operation and queued work keeps a reference, and the engine
 * drops them without knowing what a stream's end involves.
 */
struct cufab_stream_ops {
	void (*release)(struct cufab_stream *stream);
};

void cufab_stream_init(struct cufab_stream *stream,
		       const struct cufab_stream_ops *ops);
void cufab_stream_put(struct cufab_stream *stream);
void cufab_op_complete(struct cufab_op *op, int err);
void cufab_op_free(struct cufab_op *op);
int cufab_op_add_dep(struct cufab_op *op, struct dma_fence *f);
/* the watchers' say on an operation's range, and on a stream's end */
int cufab_stream_access(struct cufab_op *op, u64 addr, u64 length);
void cufab_stream_gone(struct cufab_stream *stream);
int cufab_stream_queue_reserve(struct cufab_stream_space *space);
void cufab_stream_queue_unreserve(struct cufab_stream_space *space,
				  u32 n);
extern unsigned int cufab_stream_queue_max;
void cufab_slot_publish(struct cufab_stream_space *space, u32 slot, u64 seq,
			u64 time_ns, int err);
#ifdef CUFAB_KUNIT
/* engine_test.c: runs between cufab_slot_publish()'s check and its stores */
extern void (*cufab_slot_publish_hook)(u64 seq);
#endif
extern unsigned int cufab_race_delay_us;
extern unsigned int cufab_race_seed;
/* Largest race_delay_us netlink accepts: one second. */
#define CUFAB_RACE_DELAY_MAX_US	1000000

/* stream.c */
extern const struct cufab_object_ops cufab_stream_ops;
struct cufab_stream_space *cufab_stream_space(struct cufab_client *client);
struct cufab_stream *cufab_stream_new(struct cufab_client *client,
				      struct cufab_stream_space *space,
				      u32 ctx_id, u32 dev, u32 flags,
				      s32 priority);
void cufab_streams_ctx_destroy(struct cufab_client *client, u32 ctx_id);
int cufab_streams_mmap(struct file *filp, struct vm_area_struct *vma);
void cufab_streams_show(struct seq_file *m);
int cufab_slot_alloc(struct cufab_stream_space *space);
void *cufab_slotted_alloc(struct cufab_stream_space *space, size_t size,
			  int *slot);
void cufab_slot_free(struct cufab_stream_space *space, u32 slot);
void cufab_slotted_free(struct cufab_stream_space *space, u32 slot,
			struct dma_fence *last, void *obj);
void cufab_stream_space_put(struct cufab_stream_space *space);
int cufab_slot_wait(struct cufab_stream_space *space, u32 slot, u64 seq,
		    bool poll, int *out_error);
int cufab_ioctl_stream_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_stream_submit(struct cufab_ucmd *ucmd);
int cufab_ioctl_stream_wait(struct cufab_ucmd *ucmd);
int cufab_ioctl_hostfn(struct cufab_ucmd *ucmd);
struct cufab_op *cufab_op_alloc(struct cufab_stream *stream);
struct cufab_stream *cufab_stream_lookup(struct cufab_client *client, u32 id);
int cufab_stream_submit_op(struct cufab_stream *stream, struct cufab_op *op,
			   u64 *seq, u64 *aux);
int cufab_stream_submit_reserved(struct cufab_stream *stream,
				 struct cufab_op *op, u64 *seq, u64 *aux);
struct cufab_op *cufab_op_new(struct cufab_stream *stream,
			      const struct cufab_stream_submit *cmd);
/* memops.c: consecutive copies and sets of a batch as one operation */
struct cufab_op *cufab_op_mem_run_new(struct cufab_stream *stream, u32 max);
int cufab_op_mem_run_add(struct cufab_op *op,
			 const struct cufab_stream_submit *e);

/* stream_batch.c */
int cufab_ioctl_stream_batch(struct cufab_ucmd *ucmd);

/* streammem.c */
int cufab_ioctl_stream_memop(struct cufab_ucmd *ucmd);

/* stream_netlink.c */
int cufab_nl_stream_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
/* the stream failure event (struct cufab_stream_watch.failed) */
extern const struct cufab_stream_watch cufab_stream_nl_watch;

/* event.c */
extern const struct cufab_object_ops cufab_event_ops;
struct cufab_event *cufab_event_lookup(struct cufab_client *client, u32 id);
void cufab_event_put(struct cufab_event *event);
int cufab_ioctl_event_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_event_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_event_import(struct cufab_ucmd *ucmd);
/* CUFAB_WAIT_EVENT of STREAM_WAIT, in stream.c's cufab_waits[] */
int cufab_event_wait(struct cufab_client *client, u32 id, u64 seq, bool poll,
		     int *out_error);
/* share_ipc.c */
int cufab_ioctl_ipc_mem_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_ipc_mem_import(struct cufab_ucmd *ucmd);
/* alloc_hostreg.c: cuMemHostRegister */
extern const struct cufab_client_part cufab_hostreg_client_part;
int cufab_ioctl_host_register(struct cufab_ucmd *ucmd);
int cufab_ioctl_host_unregister(struct cufab_ucmd *ucmd);
int cufab_hostreg_get_pages(struct cufab_client *client, u64 addr,
			    bool write, struct page **pages, unsigned int max);
bool cufab_hostreg_contains(struct cufab_client *client, u64 addr);
bool cufab_hostreg_pointer_info(struct cufab_client *client,
				struct cufab_pointer_info *cmd);

#endif /* _CUFAB_H */
