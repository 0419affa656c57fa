// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual node: its GPUs, their identity, and the lock protecting the
 * topology.
 *
 * Lock order: cufab_clients_lock (client.c) -> cufab_topo_rwsem.
 * A topology change takes both (cufab_topo_change_begin(), netlink.c), so
 * it can only happen while no client is open and no client can open
 * meanwhile. Readers take cufab_topo_rwsem for read only.
 *
 * The base of the module: it calls nothing of cufab's but the object
 * counter; the files above read the node through it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "cufab.h"

struct cufab_topo cufab_node;
DECLARE_RWSEM(cufab_topo_rwsem);

/**
 * cufab_gpu_init() - a GPU with the default configuration
 * @gpu: GPU to initialise
 * @index: its kernel index
 * @mem_total: capacity in bytes
 *
 * Defaults: clique 0, NUMA node spread over the online nodes, the features
 * of an H100 (CUFAB_DEV_F_DEFAULT), no explicit peers.
 */
void cufab_gpu_init(struct cufab_gpu *gpu, u32 index, u64 mem_total)
{
	gpu->index = index;
	gpu->clique = 0;
	gpu->numa_node = cufab_default_numa_node(index);
	gpu->features = CUFAB_DEV_F_DEFAULT;
	gpu->peers = 0;
	gpu->mem_total = mem_total;
	atomic64_set(&gpu->mem_used, 0);
	gpu->mem_gran = CUFAB_MEM_GRAN_DEFAULT;
	gpu->mem_gran_rec = CUFAB_MEM_GRAN_DEFAULT;
	gpu->mc_gran = CUFAB_MC_GRAN_DEFAULT;
	gpu->mc_gran_rec = CUFAB_MC_GRAN_REC_DEFAULT;
}

void cufab_gpu_set_gran(struct cufab_gpu *gpu, const struct cufab_gran *gran)
{
	gpu->mem_gran = gran->mem;
	gpu->mem_gran_rec = gran->mem_rec;
	gpu->mc_gran = gran->mc;
	gpu->mc_gran_rec = gran->mc_rec;
}

void cufab_gpu_get_gran(const struct cufab_gpu *gpu, struct cufab_gran *gran)
{
	gran->mem = gpu->mem_gran;
	gran->mem_rec = gpu->mem_gran_rec;
	gran->mc = gpu->mc_gran;
	gran->mc_rec = gpu->mc_gran_rec;
}

/**
 * cufab_gpu_gran_merge() - a GPU's granularities with some replaced
 * @gpu: the GPU
 * @given: new values, in enum cufab_gran_field order
 * @set: bit i set: @given[i] replaces field i, else the GPU's stays
 * @gran: out, what the GPU would have; cufab_gran_check() it before
 *	cufab_gpu_set_gran()
 */
void cufab_gpu_gran_merge(const struct cufab_gpu *gpu,
			  const u64 given[CUFAB_GRAN_NR], unsigned int set,
			  struct cufab_gran *gran)
{
	u64 *vals[CUFAB_GRAN_NR] = {
		&gran->mem, &gran->mem_rec, &gran->mc, &gran->mc_rec,
	};
	unsigned int i;

	cufab_gpu_get_gran(gpu, gran);
	for (i = 0; i < CUFAB_GRAN_NR; i++)
		if (set & BIT(i))
			*vals[i] = given[i];
}

/**
 * cufab_gpu_peers_check() - may GPU @index have the peers @peers?
 * @topo: the topology
 * @index: the GPU
 * @peers: bit j: GPU j
 *
 * Peers are set by hand only without the NVSwitch (with it they follow
 * the cliques), name existing GPUs, and never the GPU itself.
 *
 * Return: CUFAB_PEERS_OK or the rule broken.
 */
enum cufab_peers_rule cufab_gpu_peers_check(const struct cufab_topo *topo,
					    u32 index, u64 peers)
{
	if (topo->nvswitch)
		return CUFAB_PEERS_NVSWITCH;
	if (peers & ~GENMASK_ULL(topo->num_gpus - 1, 0))
		return CUFAB_PEERS_NO_GPU;
	if (peers & BIT_ULL(index))
		return CUFAB_PEERS_SELF;
	return CUFAB_PEERS_OK;
}

/**
 * cufab_gpu_set_peers() - set a GPU's peers, checked by cufab_gpu_peers_check()
 * @topo: the topology, being changed (cufab_topo_change_begin())
 * @gpu: the GPU
 * @peers: bit j: GPU j
 *
 * Peering is symmetric: the other side of every pair is updated too.
 */
void cufab_gpu_set_peers(struct cufab_topo *topo, struct cufab_gpu *gpu,
			 u64 peers)
{
	u32 j;

	for (j = 0; j < topo->num_gpus; j++) {
		if (j == gpu->index)
			continue;
		if (peers & BIT_ULL(j))
			topo->gpus[j].peers |= BIT_ULL(gpu->index);
		else
			topo->gpus[j].peers &= ~BIT_ULL(gpu->index);
	}
	gpu->peers = peers;
}

/* One value's own rules (a power of two, PAGE_SIZE .. CUFAB_GRAN_MAX). */
enum cufab_gran_rule cufab_gran_check_value(u64 val)
{
	if (!is_power_of_2(val))
		return CUFAB_GRAN_NOT_POW2;
	if (val < PAGE_SIZE)
		return CUFAB_GRAN_TOO_SMALL;
	if (val > CUFAB_GRAN_MAX)
		return CUFAB_GRAN_TOO_LARGE;
	return CUFAB_GRAN_OK;
}

/**
 * cufab_gran_check() - are these granularities usable?
 * @gran: the four values
 * @field: out, the first field breaking a rule (untouched when none does)
 *
 * Every value is a power of two between PAGE_SIZE and CUFAB_GRAN_MAX (the
 * code aligns with them as masks), and a RECOMMENDED value is a multiple
 * of its MINIMUM, as CUDA promises callers.
 *
 * Return: CUFAB_GRAN_OK or the rule broken; cufab_gran_rule_str() says it.
 */
enum cufab_gran_rule cufab_gran_check(const struct cufab_gran *gran,
				      enum cufab_gran_field *field)
{
	const u64 vals[] = { gran->mem, gran->mem_rec, gran->mc, gran->mc_rec };
	enum cufab_gran_rule rule;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		rule = cufab_gran_check_value(vals[i]);
		if (rule != CUFAB_GRAN_OK) {
			*field = i;
			return rule;
		}
	}
	if (gran->mem_rec % gran->mem) {
		*field = CUFAB_GRAN_F_MEM_REC;
		return CUFAB_GRAN_REC_NOT_MULTIPLE;
	}
	if (gran->mc_rec % gran->mc) {
		*field = CUFAB_GRAN_F_MC_REC;
		return CUFAB_GRAN_REC_NOT_MULTIPLE;
	}
	return CUFAB_GRAN_OK;
}

/* The rule, as the end of a sentence naming the value. */
const char *cufab_gran_rule_str(enum cufab_gran_rule rule)
{
	switch (rule) {
	case CUFAB_GRAN_OK:
		return "is valid";
	case CUFAB_GRAN_NOT_POW2:
		return "must be a power of two";
	case CUFAB_GRAN_TOO_SMALL:
		return "must be at least the page size";
	case CUFAB_GRAN_TOO_LARGE:
		return "must be at most 1 TiB";
	case CUFAB_GRAN_REC_NOT_MULTIPLE:
		return "RECOMMENDED must be a multiple of MINIMUM";
	}
	return "is invalid";
}

/**
 * cufab_default_numa_node() - the default host node of a GPU
 * @index: kernel index of the GPU
 *
 * GPU i sits next to the (i mod nr_online_nodes)-th online node, like GPUs
 * spread evenly over the sockets of a host.
 *
 * Return: a node id, or NUMA_NO_NODE without CONFIG_NUMA.
 */
int cufab_default_numa_node(u32 index)
{
	unsigned int nth;
	int node;

	if (!IS_ENABLED(CONFIG_NUMA))
		return NUMA_NO_NODE;
	nth = index % num_online_nodes();
	for_each_online_node(node) {
		if (!nth--)
			return node;
	}
	return NUMA_NO_NODE;
}

/**
 * cufab_numa_node_valid() - may a GPU be attached to @node?
 * @node: NUMA_NO_NODE or a node id
 *
 * Return: true for NUMA_NO_NODE or an online node.
 */
bool cufab_numa_node_valid(int node)
{
	if (node == NUMA_NO_NODE)
		return true;
	return node >= 0 && node < MAX_NUMNODES && node_online(node);
}

/**
 * cufab_topo_update_peers() - derive peers from cliques
 * @topo: topology to update
 *
 * With the virtual NVSwitch every GPU reaches every other GPU of its
 * clique. Without it the peer masks are explicit and left alone.
 */
void cufab_topo_update_peers(struct cufab_topo *topo)
{
	u32 i, j;

	if (!topo->nvswitch)
		return;
	for (i = 0; i < topo->num_gpus; i++) {
		u64 peers = 0;

		for (j = 0; j < topo->num_gpus; j++) {
			if (j != i && topo->gpus[j].clique == topo->gpus[i].clique)
				peers |= BIT_ULL(j);
		}
		topo->gpus[i].peers = peers;
	}
}

/**
 * cufab_topo_resize() - change the number of GPUs
 * @topo: topology to resize; must not be in use by any client
 * @num_gpus: 1 .. CUFAB_MAX_GPUS
 *
 * Surviving GPUs keep their configuration (minus peers that disappear);
 * new GPUs get the defaults of cufab_gpu_init().
 *
 * Return: 0, -EINVAL for an out-of-range count, or -ENOMEM (then @topo is
 * unchanged).
 */
int cufab_topo_resize(struct cufab_topo *topo, u32 num_gpus)
{
	struct cufab_gpu *gpus;
	u64 keep;
	u32 i;

	if (num_gpus < 1 || num_gpus > CUFAB_MAX_GPUS)
		return -EINVAL;
	if (num_gpus == topo->num_gpus)
		return 0;

	gpus = kcalloc(num_gpus, sizeof(*gpus), GFP_KERNEL);
	if (!gpus)
		return -ENOMEM;
	keep = GENMASK_ULL(num_gpus - 1, 0);
	for (i = 0; i < num_gpus; i++) {
		if (i >= topo->num_gpus) {
			cufab_gpu_init(&gpus[i], i, topo->default_mem);
			cufab_gpu_set_gran(&gpus[i], &topo->default_gran);
			continue;
		}
		gpus[i] = topo->gpus[i];
		gpus[i].peers &= keep;
	}
	kfree(topo->gpus);
	WRITE_ONCE(topo->gpus, gpus);
	WRITE_ONCE(topo->num_gpus, num_gpus);
	cufab_topo_update_peers(topo);
	return 0;
}

void cufab_topo_free(struct cufab_topo *topo)
{
	WRITE_ONCE(topo->num_gpus, 0);
	kfree(topo->gpus);
	WRITE_ONCE(topo->gpus, NULL);
}

/**
 * cufab_gpu_uuid_at() - the UUID of a GPU of a node of the fabric domain
 * @node: node index (< CUFAB_MAX_NODES)
 * @index: kernel index
 * @uuid: out
 *
 * GPU-cfabNNNN-0000-4000-8000-0000000000GG: NNNN the node, GG the GPU
 * (RFC 4122 version 4 and variant bits set). It depends on the node and
 * the index only, so it survives module reloads and reboots and can be
 * written into CUDA_VISIBLE_DEVICES; node 0 gives the UUIDs of a node
 * alone.
 */
void cufab_gpu_uuid_at(u32 node, u32 index, u8 uuid[CUFAB_UUID_LEN])
{
	static const u8 base[CUFAB_UUID_LEN] = {
		0xcf, 0xab, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	memcpy(uuid, base, CUFAB_UUID_LEN);
	put_unaligned_be16(node, &uuid[2]);
	put_unaligned_be32(index, &uuid[CUFAB_UUID_LEN - sizeof(u32)]);
}

/**
 * cufab_gpu_bus_id_at() - the PCI-like bus id of a GPU, "0000:41:00.0"
 * @node: node index, the PCI domain (< CUFAB_MAX_NODES: four hex digits)
 * @index: kernel index (< CUFAB_MAX_GPUS, so the bus fits in a byte)
 * @buf: out
 */
void cufab_gpu_bus_id_at(u32 node, u32 index, char buf[CUFAB_BUS_ID_LEN])
{
	u8 bus = CUFAB_PCI_BUS_BASE + index;

	snprintf(buf, CUFAB_BUS_ID_LEN, "%04x:%02x:%02x.0",
		 cufab_node_pci_domain(node), bus, CUFAB_PCI_DEVICE);
}

/* The UUID of GPU @index of this node. */
void cufab_gpu_uuid(u32 index, u8 uuid[CUFAB_UUID_LEN])
{
	cufab_gpu_uuid_at(cufab_node.node_index, index, uuid);
}

/* The bus id of GPU @index of this node. */
void cufab_gpu_bus_id(u32 index, char buf[CUFAB_BUS_ID_LEN])
{
	cufab_gpu_bus_id_at(cufab_node.node_index, index, buf);
}

/**
 * cufab_gpu_effective_features() - what the GPU can do in this topology
 * @topo: the topology the GPU is part of
 * @gpu: the GPU
 *
 * The configured feature bits, minus what the topology rules out: switch
 * multicast (multicast objects and multicast logical endpoints) needs the
 * NVSwitch; counted operations are a mode of some logical endpoint type;
 * owner-device access is a property of unicast endpoints.
 *
 * Return: enum cufab_device_feature bits.
 */
u32 cufab_gpu_effective_features(const struct cufab_topo *topo,
				 const struct cufab_gpu *gpu)
{
	u32 f = gpu->features;

	if (!topo->nvswitch)
		f &= ~(CUFAB_DEV_F_MULTICAST | CUFAB_DEV_F_LE_MULTICAST);
	if (!(f & (CUFAB_DEV_F_LE_UNICAST | CUFAB_DEV_F_LE_MULTICAST)))
		f &= ~CUFAB_DEV_F_LE_COUNTED;
	if (!(f & CUFAB_DEV_F_LE_UNICAST))
		f &= ~CUFAB_DEV_F_LE_OWNER_ACCESS;
	return f;
}

/**
 * cufab_gpu_on_fabric() - whether the GPU is in the node's fabric cluster
 * @topo: the topology the GPU is part of
 * @gpu: the GPU
 *
 * A GPU joins the NVLink fabric through the NVSwitch and takes part in it
 * when it has fabric handles (attribute 128): then it reports the node's
 * cluster UUID; otherwise it is in no cluster.
 */
bool cufab_gpu_on_fabric(const struct cufab_topo *topo,
			 const struct cufab_gpu *gpu)
{
	return topo->nvswitch &&
	       (cufab_gpu_effective_features(topo, gpu) &
		CUFAB_DEV_F_FABRIC_HANDLE);
}

/**
 * cufab_gpu_facts() - what calls check about a GPU, read together
 * @index: kernel GPU index
 * @facts: out: effective features, clique, NUMA node, capacity, peers
 *
 * The read of a GPU for every call a client makes (endpoints, multicast,
 * teams, pools, managed memory, peer access): with a client open the
 * topology cannot change, so it takes no lock (cufab_node_gpu_stable()),
 * and may be called under any of ours. Two control calls in three asked,
 * each taking and dropping cufab_topo_rwsem.
 *
 * Context: a client open.
 * Return: 0, or -ENODEV when the node has no GPU @index.
 */
int cufab_gpu_facts(u32 index, struct cufab_gpu_facts *facts)
{
	const struct cufab_gpu *gpu = cufab_node_gpu_stable(index);

	if (!gpu)
		return -ENODEV;
	facts->features = cufab_gpu_effective_features(&cufab_node, gpu);
	facts->clique = gpu->clique;
	facts->numa_node = gpu->numa_node;
	facts->mem_total = gpu->mem_total;
	facts->peers = gpu->peers;
	return 0;
}

/**
 * cufab_node_gpu() - a GPU of the node
 * @index: kernel index
 *
 * Context: cufab_topo_rwsem held.
 * Return: the GPU, or NULL past the last one.
 */
struct cufab_gpu *cufab_node_gpu(u32 index)
{
	lockdep_assert_held(&cufab_topo_rwsem);
	if (index >= cufab_node.num_gpus)
		return NULL;
	return &cufab_node.gpus[index];
}

/**
 * cufab_node_gpu_stable() - a GPU of the node, without cufab_topo_rwsem
 * @index: kernel index
 *
 * Context: a client open (any ioctl) or an allocation live: either makes
 * cufab_topo_change_begin() refuse, so the array stays in place.
 * Return: the GPU, or NULL past the last one.
 */
struct cufab_gpu *cufab_node_gpu_stable(u32 index)
{
	if (index >= READ_ONCE(cufab_node.num_gpus))
		return NULL;
	return &READ_ONCE(cufab_node.gpus)[index];
}

/*
 * Without cufab_topo_rwsem, as the granularities (cufab.h): the count
 * changes only between cufab_topo_change_begin() and _end(), when no
 * client is open, so every ioctl reads the same value; any other caller
 * gets what it would have got under the lock, which it dropped before
 * using the count. Every control call asks, so the lock's two atomic
 * operations are not worth it.
 */
u32 cufab_node_num_gpus(void)
{
	return READ_ONCE(cufab_node.num_gpus);
}

bool cufab_node_gpu_exists(u32 index)
{
	return index < cufab_node_num_gpus();
}

/* debugfs "gpus": one line per GPU, key=value. */
void cufab_node_show(struct seq_file *m)
{
	char bus[CUFAB_BUS_ID_LEN];
	u8 uuid[CUFAB_UUID_LEN];
	struct cufab_gpu *gpu;
	u32 i;

	down_read(&cufab_topo_rwsem);
	seq_printf(m, "num_gpus=%u nvswitch=%d cluster_uuid=%pUb node_index=%u\n",
		   cufab_node.num_gpus, cufab_node.nvswitch,
		   &cufab_node.cluster_uuid, cufab_node.node_index);
	for (i = 0; i < cufab_node.num_gpus; i++) {
		gpu = &cufab_node.gpus[i];
		cufab_gpu_uuid(i, uuid);
		cufab_gpu_bus_id(i, bus);
		seq_printf(m, "gpu%u bus=%s uuid=GPU-%pUb mem_total=%llu mem_used=%lld numa=%d clique=%u features=0x%x effective=0x%x peers=0x%llx mem_gran=%llu mem_gran_rec=%llu mc_gran=%llu mc_gran_rec=%llu\n",
			   i, bus, uuid, gpu->mem_total,
			   (s64)atomic64_read(&gpu->mem_used), gpu->numa_node,
			   gpu->clique, gpu->features,
			   cufab_gpu_effective_features(&cufab_node, gpu),
			   gpu->peers, gpu->mem_gran, gpu->mem_gran_rec,
			   gpu->mc_gran, gpu->mc_gran_rec);
	}
	up_read(&cufab_topo_rwsem);
}

/*
 * The GPU at @index without taking cufab_topo_rwsem: the callers' context
 * keeps the array in place (the granularities in cufab.h say why). NULL
 * past the last GPU.
 */
static const struct cufab_gpu *cufab_gran_gpu(u32 index)
{
	if (index >= READ_ONCE(cufab_node.num_gpus))
		return NULL;
	return &READ_ONCE(cufab_node.gpus)[index];
}

u64 cufab_gpu_mem_gran(u32 gpu, bool recommended)
{
	const struct cufab_gpu *g = cufab_gran_gpu(gpu);

	if (!g)
		return recommended ? cufab_node.default_gran.mem_rec :
				     cufab_node.default_gran.mem;
	return recommended ? g->mem_gran_rec : g->mem_gran;
}

u64 cufab_gpu_mc_gran(u32 gpu, bool recommended)
{
	const struct cufab_gpu *g = cufab_gran_gpu(gpu);

	if (!g)
		return recommended ? cufab_node.default_gran.mc_rec :
				     cufab_node.default_gran.mc;
	return recommended ? g->mc_gran_rec : g->mc_gran;
}

u64 cufab_mc_granularity(bool recommended)
{
	u32 i, n = READ_ONCE(cufab_node.num_gpus);
	u64 gran = 0;

	for (i = 0; i < n; i++)
		gran = max(gran, cufab_gpu_mc_gran(i, recommended));
	return gran ?: cufab_gpu_mc_gran(0, recommended);
}

/*
 * A HOST_NUMA allocation may be mapped by any GPU, most likely by those
 * next to its node: its size must suit each of them. A node no GPU sits
 * next to, and HOST memory (@nid NUMA_NO_NODE), take the largest
 * granularity of the node's GPUs, so a size valid there is valid on every
 * GPU.
 */
static u64 cufab_numa_mem_gran(int nid, bool recommended)
{
	u32 i, n = READ_ONCE(cufab_node.num_gpus);
	u64 near = 0, any = 0, g;

	for (i = 0; i < n; i++) {
		g = cufab_gpu_mem_gran(i, recommended);
		any = max(any, g);
		if (nid != NUMA_NO_NODE && cufab_gran_gpu(i)->numa_node == nid)
			near = max(near, g);
	}
	return near ?: any;
}

u64 cufab_loc_mem_gran(u32 location_type, s32 location_id, bool recommended)
{
	switch (location_type) {
	case CUFAB_LOC_DEVICE:
		if (location_id < 0 || !cufab_gran_gpu(location_id))
			return 0;
		return cufab_gpu_mem_gran(location_id, recommended);
	case CUFAB_LOC_HOST:
		/* any node: the id means nothing, as in CUDA */
		return cufab_numa_mem_gran(NUMA_NO_NODE, recommended);
	default:
		return cufab_numa_mem_gran(location_id, recommended);
	}
}
