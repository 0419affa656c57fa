// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters -> the initial topology of the virtual node.
 *
 * A rejected parameter fails the module load, and the kernel log is then
 * the only explanation the user gets: every message names the parameter,
 * the value given and the rule it breaks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uuid.h>

#include "cufab.h"

/* Split "a-b" at the dash into two GPU indices; the dash is restored. */
static int cufab_parse_pair(char *tok, u32 *a, u32 *b)
{
	char *dash = strchr(tok, '-');
	int ret;

	if (!dash)
		return -EINVAL;
	*dash = '\0';
	ret = kstrtou32(tok, 10, a);
	if (!ret)
		ret = kstrtou32(dash + 1, 10, b);
	*dash = '-';
	return ret ? -EINVAL : 0;
}

/* "a" or "a-b" with a <= b, inclusive. */
static int cufab_parse_range(char *tok, u32 *lo, u32 *hi)
{
	if (!strchr(tok, '-')) {
		if (kstrtou32(tok, 10, lo))
			return -EINVAL;
		*hi = *lo;
		return 0;
	}
	if (cufab_parse_pair(tok, lo, hi) || *hi < *lo)
		return -EINVAL;
	return 0;
}

static int cufab_parse_clique(const char *str, char *group, u32 clique,
			      struct cufab_gpu *gpus, u32 n, u64 *seen)
{
	u32 lo, hi, g;
	char *item;

	group = strim(group);
	if (!*group) {
		pr_err("cliques=\"%s\": clique %u is empty\n", str, clique);
		return -EINVAL;
	}
	while ((item = strsep(&group, ","))) {
		item = strim(item);
		if (cufab_parse_range(item, &lo, &hi)) {
			pr_err("cliques=\"%s\": \"%s\" is not a GPU index or range a-b\n",
			       str, item);
			return -EINVAL;
		}
		if (hi >= n) {
			pr_err("cliques=\"%s\": GPU %u does not exist (num_gpus=%u)\n",
			       str, hi, n);
			return -EINVAL;
		}
		for (g = lo; g <= hi; g++) {
			if (*seen & BIT_ULL(g)) {
				pr_err("cliques=\"%s\": GPU %u is listed twice (a GPU is in exactly one clique)\n",
				       str, g);
				return -EINVAL;
			}
			*seen |= BIT_ULL(g);
			gpus[g].clique = clique;
		}
	}
	return 0;
}

/**
 * cufab_parse_cliques() - assign cliques from "0-3" or "0,1;2,3"
 * @str: ';' separates cliques, ',' separates GPU indices or ranges a-b;
 *	clique ids are the position of the group (0, 1, ...). NULL or ""
 *	leaves @gpus unchanged.
 * @gpus: GPUs to update
 * @n: entries of @gpus
 *
 * Every GPU must be in exactly one clique.
 *
 * Return: 0, -EINVAL on a malformed or inconsistent list, or -ENOMEM.
 */
int cufab_parse_cliques(const char *str, struct cufab_gpu *gpus, u32 n)
{
	char *buf, *rest, *group;
	u32 clique = 0, g;
	u64 seen = 0;
	int ret = 0;

	if (!str || !*str)
		return 0;
	buf = kstrdup(str, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rest = buf;
	while (!ret && (group = strsep(&rest, ";")))
		ret = cufab_parse_clique(str, group, clique++, gpus, n, &seen);
	kfree(buf);
	if (ret)
		return ret;
	for (g = 0; g < n; g++) {
		if (!(seen & BIT_ULL(g))) {
			pr_err("cliques=\"%s\": GPU %u is in no clique (num_gpus=%u, list every GPU)\n",
			       str, g, n);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Call @fn on each ','-separated, trimmed entry of @str with its position,
 * stopping at the first error. @count (may be NULL) receives the number of
 * entries visited, the failing one included.
 */
static int cufab_parse_list(const char *str,
			    int (*fn)(const char *str, char *item, u32 idx,
				      struct cufab_gpu *gpus, u32 n),
			    struct cufab_gpu *gpus, u32 n, u32 *count)
{
	char *buf, *rest, *item;
	int ret = 0;
	u32 idx = 0;

	if (!str || !*str)
		goto out;
	buf = kstrdup(str, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rest = buf;
	while (!ret && (item = strsep(&rest, ",")))
		ret = fn(str, strim(item), idx++, gpus, n);
	kfree(buf);
out:
	if (count)
		*count = idx;
	return ret;
}

static int cufab_parse_numa_node(const char *str, char *item, u32 g,
				 struct cufab_gpu *gpus, u32 n)
{
	int node;

	if (g >= n) {
		pr_err("numa_nodes=\"%s\": more entries than GPUs (num_gpus=%u)\n",
		       str, n);
		return -EINVAL;
	}
	if (kstrtoint(item, 10, &node)) {
		pr_err("numa_nodes=\"%s\": GPU %u: \"%s\" is not a NUMA node number\n",
		       str, g, item);
		return -EINVAL;
	}
	if (!cufab_numa_node_valid(node)) {
		pr_err("numa_nodes=\"%s\": GPU %u: NUMA node %d is not online (use -1 for none)\n",
		       str, g, node);
		return -EINVAL;
	}
	gpus[g].numa_node = node;
	return 0;
}

/**
 * cufab_parse_numa_nodes() - host NUMA node per GPU from "0,0,1,1"
 * @str: one entry per GPU, each an online node or -1; NULL or "" leaves
 *	@gpus unchanged
 * @gpus: GPUs to update
 * @n: entries of @gpus
 *
 * Return: 0, -EINVAL on a malformed list or wrong count, or -ENOMEM.
 */
int cufab_parse_numa_nodes(const char *str, struct cufab_gpu *gpus, u32 n)
{
	int ret;
	u32 g;

	if (!str || !*str)
		return 0;
	ret = cufab_parse_list(str, cufab_parse_numa_node, gpus, n, &g);
	if (ret)
		return ret;
	if (g != n) {
		pr_err("numa_nodes=\"%s\": %u entries for %u GPUs (give one per GPU)\n",
		       str, g, n);
		return -EINVAL;
	}
	return 0;
}

static int cufab_parse_peer_pair(const char *str, char *item,
				 u32 __always_unused idx,
				 struct cufab_gpu *gpus, u32 n)
{
	u32 a, b;

	if (cufab_parse_pair(item, &a, &b)) {
		pr_err("peers=\"%s\": \"%s\" is not a pair of GPU indices a-b\n",
		       str, item);
		return -EINVAL;
	}
	if (a >= n || b >= n) {
		pr_err("peers=\"%s\": GPU %u does not exist (num_gpus=%u)\n",
		       str, a >= n ? a : b, n);
		return -EINVAL;
	}
	if (a == b) {
		pr_err("peers=\"%s\": GPU %u cannot be its own peer\n", str, a);
		return -EINVAL;
	}
	gpus[a].peers |= BIT_ULL(b);
	gpus[b].peers |= BIT_ULL(a);
	return 0;
}

/**
 * cufab_parse_peers() - explicit peer pairs from "0-1,2-3"
 * @str: pairs of distinct GPU indices; peering is symmetric. NULL or ""
 *	adds no peers.
 * @gpus: GPUs to update (pairs are added to their peer masks)
 * @n: entries of @gpus
 *
 * Return: 0, -EINVAL on a malformed pair, or -ENOMEM.
 */
int cufab_parse_peers(const char *str, struct cufab_gpu *gpus, u32 n)
{
	return cufab_parse_list(str, cufab_parse_peer_pair, gpus, n, NULL);
}

static int cufab_parse_feature(const char *str, char *item, u32 g,
			       struct cufab_gpu *gpus, u32 n)
{
	u32 features;

	if (g >= n) {
		pr_err("features=\"%s\": more entries than GPUs (num_gpus=%u)\n",
		       str, n);
		return -EINVAL;
	}
	if (kstrtou32(item, 0, &features)) {
		pr_err("features=\"%s\": GPU %u: \"%s\" is not a number\n",
		       str, g, item);
		return -EINVAL;
	}
	if (features & ~CUFAB_DEV_F_ALL) {
		pr_err("features=\"%s\": GPU %u: 0x%x has bits outside the known features 0x%x\n",
		       str, g, features, CUFAB_DEV_F_ALL);
		return -EINVAL;
	}
	gpus[g].features = features;
	return 0;
}

/**
 * cufab_parse_features() - per-GPU feature override from "0x1ff,0x3"
 * @str: enum cufab_device_feature masks for GPUs 0, 1, ...; GPUs past the
 *	end of the list keep their features. NULL or "" changes nothing.
 * @gpus: GPUs to update
 * @n: entries of @gpus
 *
 * Return: 0, -EINVAL on a malformed list or unknown bits, or -ENOMEM.
 */
int cufab_parse_features(const char *str, struct cufab_gpu *gpus, u32 n)
{
	return cufab_parse_list(str, cufab_parse_feature, gpus, n, NULL);
}

static int cufab_params_check(const struct cufab_params *p)
{
	if (p->num_gpus < 1 || p->num_gpus > CUFAB_MAX_GPUS) {
		pr_err("num_gpus=%u: must be 1..%u\n", p->num_gpus,
		       CUFAB_MAX_GPUS);
		return -EINVAL;
	}
	if (p->mem_mib < CUFAB_MEM_MIB_MIN || p->mem_mib > CUFAB_MEM_MIB_MAX) {
		pr_err("mem_mib=%lu: must be %lu..%lu (MiB per GPU)\n",
		       p->mem_mib, CUFAB_MEM_MIB_MIN, CUFAB_MEM_MIB_MAX);
		return -EINVAL;
	}
	if (p->node_index >= CUFAB_MAX_NODES) {
		pr_err("node_index=%u: must be 0..%u (the node's index in its fabric domain)\n",
		       p->node_index, CUFAB_MAX_NODES - 1);
		return -EINVAL;
	}
	if (p->nvswitch && p->peers && *p->peers) {
		pr_err("peers=\"%s\": needs nvswitch=0 (with the virtual NVSwitch the GPUs of a clique are all peers)\n",
		       p->peers);
		return -EINVAL;
	}
	return 0;
}

/* Parameter names of the struct cufab_gran fields, by enum cufab_gran_field. */
static const char * const cufab_gran_params[] = {
	[CUFAB_GRAN_F_MEM] = "mem_granularity_kib",
	[CUFAB_GRAN_F_MEM_REC] = "mem_granularity_rec_kib",
	[CUFAB_GRAN_F_MC] = "mc_granularity_kib",
	[CUFAB_GRAN_F_MC_REC] = "mc_granularity_rec_kib",
};

/* KiB to bytes, 0 for the default; a value past 64 bits fails the check. */
static u64 cufab_kib(unsigned long kib, u64 dflt)
{
	if (!kib)
		return dflt;
	return kib > (U64_MAX >> 10) ? U64_MAX : (u64)kib << 10;
}

/**
 * cufab_params_gran() - the granularities the module parameters ask for
 * @p: the parameters (0 KiB: the default)
 * @gran: out, in bytes
 *
 * Return: 0, or -EINVAL after a log line naming the parameter, its value
 * and the rule it breaks.
 */
int cufab_params_gran(const struct cufab_params *p, struct cufab_gran *gran)
{
	const unsigned long kib[] = {
		p->mem_gran_kib, p->mem_gran_rec_kib, p->mc_gran_kib,
		p->mc_gran_rec_kib,
	};
	enum cufab_gran_field field;
	enum cufab_gran_rule rule;

	gran->mem = cufab_kib(p->mem_gran_kib, CUFAB_MEM_GRAN_DEFAULT);
	gran->mem_rec = cufab_kib(p->mem_gran_rec_kib, gran->mem);
	gran->mc = cufab_kib(p->mc_gran_kib, CUFAB_MC_GRAN_DEFAULT);
	gran->mc_rec = cufab_kib(p->mc_gran_rec_kib, CUFAB_MC_GRAN_REC_DEFAULT);
	rule = cufab_gran_check(gran, &field);
	if (rule == CUFAB_GRAN_OK)
		return 0;
	if (rule == CUFAB_GRAN_REC_NOT_MULTIPLE)
		pr_err("%s=%lu: must be a multiple of %s=%llu (RECOMMENDED is a multiple of MINIMUM)\n",
		       cufab_gran_params[field], kib[field],
		       cufab_gran_params[field - 1],
		       (field == CUFAB_GRAN_F_MEM_REC ? gran->mem : gran->mc) >> 10);
	else
		pr_err("%s=%lu: %s (KiB, a power of two from %lu to %llu)\n",
		       cufab_gran_params[field], kib[field],
		       cufab_gran_rule_str(rule), PAGE_SIZE >> 10,
		       CUFAB_GRAN_MAX >> 10);
	return -EINVAL;
}

/**
 * cufab_parse_cluster_uuid() - parse the cluster_uuid module parameter
 * @str: "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", hex digits of either case,
 *	nothing before or after (one trailing newline is allowed, as sysfs
 *	and shells add it)
 * @uuid: out, on success
 *
 * Any version and variant is accepted, so that the nodes of one cluster
 * can share a UUID made by whatever tool; only the nil UUID is refused,
 * because all zeros means "not on the fabric".
 *
 * Return: 0, or -EINVAL (the reason is logged).
 */
int cufab_parse_cluster_uuid(const char *str, uuid_t *uuid)
{
	size_t len = strlen(str);

	if (len == UUID_STRING_LEN + 1 && str[UUID_STRING_LEN] == '\n')
		len--;
	if (len != UUID_STRING_LEN || uuid_parse(str, uuid)) {
		pr_err("cluster_uuid=\"%s\": not a UUID xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n",
		       str);
		return -EINVAL;
	}
	if (uuid_is_null(uuid)) {
		pr_err("cluster_uuid=\"%s\": the nil UUID means \"not on the fabric\"\n",
		       str);
		return -EINVAL;
	}
	return 0;
}

/**
 * cufab_topo_build() - build a topology from module parameters
 * @topo: filled on success; release with cufab_topo_free()
 * @p: the parameters
 *
 * Return: 0, -EINVAL when a parameter is out of range or malformed (the
 * reason is logged), or -ENOMEM.
 */
int cufab_topo_build(struct cufab_topo *topo, const struct cufab_params *p)
{
	struct cufab_gran gran;
	struct cufab_gpu *gpus;
	u64 mem;
	int ret;
	u32 g;

	ret = cufab_params_check(p);
	if (!ret)
		ret = cufab_params_gran(p, &gran);
	if (ret)
		return ret;

	mem = (u64)p->mem_mib << 20;
	gpus = kcalloc(p->num_gpus, sizeof(*gpus), GFP_KERNEL);
	if (!gpus)
		return -ENOMEM;
	for (g = 0; g < p->num_gpus; g++) {
		cufab_gpu_init(&gpus[g], g, mem);
		cufab_gpu_set_gran(&gpus[g], &gran);
	}

	ret = cufab_parse_cliques(p->cliques, gpus, p->num_gpus);
	if (!ret)
		ret = cufab_parse_numa_nodes(p->numa_nodes, gpus, p->num_gpus);
	if (!ret)
		ret = cufab_parse_features(p->features, gpus, p->num_gpus);
	if (!ret && !p->nvswitch)
		ret = cufab_parse_peers(p->peers, gpus, p->num_gpus);
	if (ret) {
		kfree(gpus);
		return ret;
	}

	topo->num_gpus = p->num_gpus;
	topo->node_index = p->node_index;
	topo->nvswitch = p->nvswitch;
	topo->default_mem = mem;
	topo->default_gran = gran;
	topo->gpus = gpus;
	if (p->cluster_uuid)
		uuid_copy(&topo->cluster_uuid, p->cluster_uuid);
	else
		uuid_gen(&topo->cluster_uuid);
	cufab_topo_update_peers(topo);
	return 0;
}
