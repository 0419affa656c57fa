// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: module parameters -> topology (kernel/params.c).
 *
 * Rejected strings log a pr_err naming the rule; that noise is expected.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uuid.h>

#include "cufab.h"

#define T_GPUS	4

static void init_gpus(struct cufab_gpu *gpus, u32 n)
{
	u32 g;

	for (g = 0; g < n; g++)
		cufab_gpu_init(&gpus[g], g, SZ_1G);
}

/* ---- cliques= ---------------------------------------------------------- */

struct clique_case {
	const char *desc;
	const char *str;
	int ret;
	u32 clique[T_GPUS];
};

static const struct clique_case clique_cases[] = {
	{ "default", NULL, 0, { 0, 0, 0, 0 } },
	{ "empty_string", "", 0, { 0, 0, 0, 0 } },
	{ "one_range", "0-3", 0, { 0, 0, 0, 0 } },
	{ "two_cliques", "0,1;2,3", 0, { 0, 0, 1, 1 } },
	{ "three_cliques", "0;1-2;3", 0, { 0, 1, 1, 2 } },
	{ "order_of_groups", "3;0-2", 0, { 1, 1, 1, 0 } },
	{ "spaces_around_items", " 0-1 ; 2, 3 ", 0, { 0, 0, 1, 1 } },
	{ "gpu_does_not_exist", "0-9", -EINVAL },
	{ "gpu_in_no_clique", "0-2", -EINVAL },
	{ "gpu_twice", "0,1;1-3", -EINVAL },
	{ "empty_clique", "0-1;;2-3", -EINVAL },
	{ "reversed_range", "3-0", -EINVAL },
	{ "not_a_number", "zero-3", -EINVAL },
	{ "trailing_comma", "0-3,", -EINVAL },
	{ "negative_index", "-1-3", -EINVAL },
	{ "index_u32_max", "0-4294967295", -EINVAL },
	{ "index_overflow", "0-4294967296", -EINVAL },
};

static void clique_case_desc(const struct clique_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cliques, clique_cases, clique_case_desc);

static void parse_cliques_table(struct kunit *test)
{
	const struct clique_case *c = test->param_value;
	struct cufab_gpu gpus[T_GPUS];
	u32 g;

	init_gpus(gpus, T_GPUS);
	KUNIT_ASSERT_EQ(test, cufab_parse_cliques(c->str, gpus, T_GPUS),
			c->ret);
	if (c->ret)
		return;
	for (g = 0; g < T_GPUS; g++)
		KUNIT_EXPECT_EQ_MSG(test, gpus[g].clique, c->clique[g],
				    "GPU %u", g);
}

/* ---- numa_nodes= ------------------------------------------------------- */

struct numa_case {
	const char *desc;
	const char *str;
	int ret;
	int node[T_GPUS];
};

/* Node 0 is online on every kernel, NUMA or not. */
static const struct numa_case numa_cases[] = {
	{ "all_none", "-1,-1,-1,-1", 0, { -1, -1, -1, -1 } },
	{ "all_node0", "0,0,0,0", 0, { 0, 0, 0, 0 } },
	{ "mixed", "0, -1,0 ,-1", 0, { 0, -1, 0, -1 } },
	{ "too_few", "0,0", -EINVAL },
	{ "too_many", "0,0,0,0,0", -EINVAL },
	{ "not_a_number", "0,x,0,0", -EINVAL },
	{ "empty_entry", "0,,0,0", -EINVAL },
	{ "not_online", "0,0,0,4096", -EINVAL },
	{ "below_none", "-2,0,0,0", -EINVAL },
};

static void numa_case_desc(const struct numa_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(numa, numa_cases, numa_case_desc);

static void parse_numa_nodes_table(struct kunit *test)
{
	const struct numa_case *c = test->param_value;
	struct cufab_gpu gpus[T_GPUS];
	u32 g;

	init_gpus(gpus, T_GPUS);
	KUNIT_ASSERT_EQ(test, cufab_parse_numa_nodes(c->str, gpus, T_GPUS),
			c->ret);
	if (c->ret)
		return;
	for (g = 0; g < T_GPUS; g++)
		KUNIT_EXPECT_EQ_MSG(test, gpus[g].numa_node, c->node[g],
				    "GPU %u", g);
}

static void parse_numa_nodes_default(struct kunit *test)
{
	struct cufab_gpu gpus[T_GPUS];
	u32 g;

	init_gpus(gpus, T_GPUS);
	KUNIT_ASSERT_EQ(test, cufab_parse_numa_nodes(NULL, gpus, T_GPUS), 0);
	for (g = 0; g < T_GPUS; g++) {
		KUNIT_EXPECT_EQ(test, gpus[g].numa_node,
				cufab_default_numa_node(g));
		KUNIT_EXPECT_TRUE(test, cufab_numa_node_valid(gpus[g].numa_node));
	}
}

/* ---- peers= ------------------------------------------------------------ */

struct peers_case {
	const char *desc;
	const char *str;
	int ret;
	u64 peers[T_GPUS];
};

static const struct peers_case peers_cases[] = {
	{ "none", "", 0, { 0, 0, 0, 0 } },
	{ "two_pairs", "0-1,2-3", 0, { 0x2, 0x1, 0x8, 0x4 } },
	{ "reversed_pair", "3-0", 0, { 0x8, 0, 0, 0x1 } },
	{ "star", "0-1, 0-2 ,0-3", 0, { 0xe, 0x1, 0x1, 0x1 } },
	{ "pair_twice", "0-1,1-0", 0, { 0x2, 0x1, 0, 0 } },
	{ "self", "1-1", -EINVAL },
	{ "gpu_does_not_exist", "0-4", -EINVAL },
	{ "single_index", "0", -EINVAL },
	{ "three_indices", "0-1-2", -EINVAL },
	{ "empty_entry", "0-1,,2-3", -EINVAL },
};

static void peers_case_desc(const struct peers_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(peers, peers_cases, peers_case_desc);

static void parse_peers_table(struct kunit *test)
{
	const struct peers_case *c = test->param_value;
	struct cufab_gpu gpus[T_GPUS];
	u32 g;

	init_gpus(gpus, T_GPUS);
	KUNIT_ASSERT_EQ(test, cufab_parse_peers(c->str, gpus, T_GPUS), c->ret);
	if (c->ret)
		return;
	for (g = 0; g < T_GPUS; g++)
		KUNIT_EXPECT_EQ_MSG(test, gpus[g].peers, c->peers[g], "GPU %u",
				    g);
}

/* ---- features= --------------------------------------------------------- */

/* the default of a GPU not in the list */
#define F_ALL CUFAB_DEV_F_DEFAULT

struct features_case {
	const char *desc;
	const char *str;
	int ret;
	u32 features[T_GPUS];
};

static const struct features_case features_cases[] = {
	{ "default", NULL, 0, { F_ALL, F_ALL, F_ALL, F_ALL } },
	{ "override_first_two", "0x3,0", 0, { 0x3, 0, F_ALL, F_ALL } },
	{ "decimal", "511, 1", 0, { 0x1ff, 0x1, F_ALL, F_ALL } },
	{ "all_four", "1,2,4,8", 0, { 1, 2, 4, 8 } },
	{ "unknown_bit", "0x200", -EINVAL },
	{ "too_many", "1,1,1,1,1", -EINVAL },
	{ "garbage", "0x1g", -EINVAL },
	{ "negative", "-1", -EINVAL },
};

static void features_case_desc(const struct features_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(features, features_cases, features_case_desc);

static void parse_features_table(struct kunit *test)
{
	const struct features_case *c = test->param_value;
	struct cufab_gpu gpus[T_GPUS];
	u32 g;

	init_gpus(gpus, T_GPUS);
	KUNIT_ASSERT_EQ(test, cufab_parse_features(c->str, gpus, T_GPUS),
			c->ret);
	if (c->ret)
		return;
	for (g = 0; g < T_GPUS; g++)
		KUNIT_EXPECT_EQ_MSG(test, gpus[g].features, c->features[g],
				    "GPU %u", g);
}

/* ---- whole parameter sets ---------------------------------------------- */

static const struct cufab_params default_params = {
	.num_gpus = T_GPUS,
	.mem_mib = 1024,
	.nvswitch = true,
};

static void topo_build_defaults(struct kunit *test)
{
	struct cufab_topo topo = {};
	u32 g;

	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &default_params), 0);
	KUNIT_EXPECT_EQ(test, topo.num_gpus, T_GPUS);
	KUNIT_EXPECT_TRUE(test, topo.nvswitch);
	KUNIT_EXPECT_EQ(test, topo.default_mem, (u64)SZ_1G);
	for (g = 0; g < T_GPUS; g++) {
		KUNIT_EXPECT_EQ(test, topo.gpus[g].index, g);
		KUNIT_EXPECT_EQ(test, topo.gpus[g].mem_total, (u64)SZ_1G);
		KUNIT_EXPECT_EQ(test, topo.gpus[g].clique, 0U);
		KUNIT_EXPECT_EQ(test, topo.gpus[g].features,
				(u32)CUFAB_DEV_F_DEFAULT);
		/* one clique behind the NVSwitch: everybody else is a peer */
		KUNIT_EXPECT_EQ(test, topo.gpus[g].peers,
				GENMASK_ULL(T_GPUS - 1, 0) & ~BIT_ULL(g));
	}
	cufab_topo_free(&topo);
}

static void topo_build_nvswitch_cliques(struct kunit *test)
{
	struct cufab_params p = default_params;
	struct cufab_topo topo = {};

	p.cliques = "0,1;2,3";
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &p), 0);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0x2ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].peers, 0x1ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[2].peers, 0x8ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[3].peers, 0x4ULL);
	cufab_topo_free(&topo);
}

static void topo_build_explicit_peers(struct kunit *test)
{
	struct cufab_params p = default_params;
	struct cufab_topo topo = {};

	p.nvswitch = false;
	p.peers = "0-2";
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &p), 0);
	KUNIT_EXPECT_FALSE(test, topo.nvswitch);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0x4ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].peers, 0ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[2].peers, 0x1ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[3].peers, 0ULL);
	cufab_topo_free(&topo);
}

static void topo_build_max_gpus(struct kunit *test)
{
	struct cufab_params p = default_params;
	struct cufab_topo topo = {};

	p.num_gpus = CUFAB_MAX_GPUS;
	p.mem_mib = CUFAB_MEM_MIB_MAX;
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &p), 0);
	KUNIT_EXPECT_EQ(test, topo.gpus[CUFAB_MAX_GPUS - 1].peers,
			GENMASK_ULL(CUFAB_MAX_GPUS - 2, 0));
	KUNIT_EXPECT_EQ(test, topo.gpus[0].mem_total,
			(u64)CUFAB_MEM_MIB_MAX << 20);
	cufab_topo_free(&topo);
}

static void topo_build_rejects(struct kunit *test)
{
	struct cufab_topo topo = {};
	struct cufab_params p;

	p = default_params;
	p.num_gpus = 0;
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);
	p.num_gpus = CUFAB_MAX_GPUS + 1;
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);

	p = default_params;
	p.mem_mib = 0;
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);
	p.mem_mib = CUFAB_MEM_MIB_MAX + 1;
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);

	/* explicit peers contradict the NVSwitch */
	p = default_params;
	p.peers = "0-1";
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);

	/* a bad string after a good one: nothing is kept */
	p = default_params;
	p.cliques = "0-3";
	p.numa_nodes = "0";
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, topo.gpus, NULL);

	p = default_params;
	p.node_index = CUFAB_MAX_NODES;
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);
}

/*
 * Random partitions of random node sizes: format them the way an admin
 * would (ranges for runs), parse, and check cliques and derived peers.
 */
static size_t format_clique(char *buf, size_t len, const u8 *clique_of,
			    u32 n, u32 c)
{
	size_t pos = 0;
	u32 g = 0, end;

	buf[0] = '\0';
	while (g < n) {
		if (clique_of[g] != c) {
			g++;
			continue;
		}
		end = g;
		while (end + 1 < n && clique_of[end + 1] == c)
			end++;
		pos += scnprintf(buf + pos, len - pos, "%s%u", pos ? "," : "",
				 g);
		if (end > g)
			pos += scnprintf(buf + pos, len - pos, "-%u", end);
		g = end + 1;
	}
	return pos;
}

static void random_cliques_roundtrip(struct kunit *test)
{
	const size_t len = 512;
	u8 clique_of[CUFAB_MAX_GPUS], id_of[CUFAB_MAX_GPUS];
	char *buf = kunit_kzalloc(test, len, GFP_KERNEL);
	char *group = kunit_kzalloc(test, len, GFP_KERNEL);
	u32 seed = get_random_u32();
	struct rnd_state rnd;
	int iter;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, group);
	kunit_info(test, "seed %u\n", seed);
	prandom_seed_state(&rnd, seed);

	for (iter = 0; iter < 200; iter++) {
		struct cufab_params p = default_params;
		struct cufab_topo topo = {};
		u32 n = 1 + prandom_u32_state(&rnd) % CUFAB_MAX_GPUS;
		u32 k = 1 + prandom_u32_state(&rnd) % n;
		u32 g, c, j, next_id = 0;
		size_t pos = 0;

		for (g = 0; g < n; g++)
			clique_of[g] = prandom_u32_state(&rnd) % k;
		/* groups are written in clique order; empty ones are skipped */
		buf[0] = '\0';
		for (c = 0; c < k; c++) {
			if (!format_clique(group, len, clique_of, n, c))
				continue;
			pos += scnprintf(buf + pos, len - pos, "%s%s",
					 pos ? ";" : "", group);
			for (g = 0; g < n; g++) {
				if (clique_of[g] == c)
					id_of[g] = next_id;
			}
			next_id++;
		}

		p.num_gpus = n;
		p.cliques = buf;
		KUNIT_ASSERT_EQ_MSG(test, cufab_topo_build(&topo, &p), 0,
				    "cliques=\"%s\" num_gpus=%u", buf, n);
		for (g = 0; g < n; g++) {
			KUNIT_EXPECT_EQ(test, topo.gpus[g].clique, (u32)id_of[g]);
			KUNIT_EXPECT_FALSE(test, topo.gpus[g].peers & BIT_ULL(g));
			for (j = 0; j < n; j++) {
				bool peer = topo.gpus[g].peers & BIT_ULL(j);

				KUNIT_EXPECT_EQ(test, peer,
						g != j && id_of[g] == id_of[j]);
			}
		}
		cufab_topo_free(&topo);
	}
}

/* ---- granularities (cufab_gran_check(), *_granularity_kib=) ----------- */

struct gran_case {
	const char *desc;
	struct cufab_gran gran;
	enum cufab_gran_rule rule;
	enum cufab_gran_field field;
};

static const struct gran_case gran_cases[] = {
	{ "defaults", { SZ_2M, SZ_2M, SZ_2M, SZ_512M }, CUFAB_GRAN_OK },
	{ "one page", { PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE },
	  CUFAB_GRAN_OK },
	{ "largest", { CUFAB_GRAN_MAX, CUFAB_GRAN_MAX, SZ_2M, CUFAB_GRAN_MAX },
	  CUFAB_GRAN_OK },
	{ "zero", { 0, SZ_2M, SZ_2M, SZ_2M }, CUFAB_GRAN_NOT_POW2,
	  CUFAB_GRAN_F_MEM },
	{ "3 MiB rec", { SZ_2M, 3 * SZ_1M, SZ_2M, SZ_2M }, CUFAB_GRAN_NOT_POW2,
	  CUFAB_GRAN_F_MEM_REC },
	{ "half a page", { SZ_2M, SZ_2M, PAGE_SIZE / 2, SZ_2M },
	  CUFAB_GRAN_TOO_SMALL, CUFAB_GRAN_F_MC },
	{ "2 TiB", { SZ_2M, SZ_2M, SZ_2M, CUFAB_GRAN_MAX * 2 },
	  CUFAB_GRAN_TOO_LARGE, CUFAB_GRAN_F_MC_REC },
	{ "rec below min", { SZ_4M, SZ_2M, SZ_2M, SZ_2M },
	  CUFAB_GRAN_REC_NOT_MULTIPLE, CUFAB_GRAN_F_MEM_REC },
	{ "mc rec below min", { SZ_2M, SZ_2M, SZ_4M, SZ_2M },
	  CUFAB_GRAN_REC_NOT_MULTIPLE, CUFAB_GRAN_F_MC_REC },
};

static void gran_case_desc(const struct gran_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(gran, gran_cases, gran_case_desc);

static void gran_check_table(struct kunit *test)
{
	const struct gran_case *c = test->param_value;
	enum cufab_gran_field field = CUFAB_GRAN_F_MEM;

	KUNIT_EXPECT_EQ(test, cufab_gran_check(&c->gran, &field), c->rule);
	if (c->rule != CUFAB_GRAN_OK)
		KUNIT_EXPECT_EQ(test, field, c->field);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, cufab_gran_rule_str(c->rule));
}

/* KiB parameters: 0 is the default; REC 0 follows MIN; every GPU gets them. */
static void topo_build_granularity(struct kunit *test)
{
	struct cufab_params p = default_params;
	struct cufab_topo topo = {};
	struct cufab_gran g;
	u32 i;

	KUNIT_ASSERT_EQ(test, cufab_params_gran(&p, &g), 0);
	KUNIT_EXPECT_EQ(test, g.mem, (u64)SZ_2M);
	KUNIT_EXPECT_EQ(test, g.mem_rec, (u64)SZ_2M);
	KUNIT_EXPECT_EQ(test, g.mc, (u64)SZ_2M);
	KUNIT_EXPECT_EQ(test, g.mc_rec, (u64)SZ_512M);

	p.mem_gran_kib = 8192;
	p.mc_gran_rec_kib = 4096;
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &p), 0);
	for (i = 0; i < T_GPUS; i++) {
		KUNIT_EXPECT_EQ(test, topo.gpus[i].mem_gran, (u64)SZ_8M);
		KUNIT_EXPECT_EQ(test, topo.gpus[i].mem_gran_rec, (u64)SZ_8M);
		KUNIT_EXPECT_EQ(test, topo.gpus[i].mc_gran, (u64)SZ_2M);
		KUNIT_EXPECT_EQ(test, topo.gpus[i].mc_gran_rec, (u64)SZ_4M);
	}
	/* a GPU added later gets the parameters too */
	KUNIT_ASSERT_EQ(test, cufab_topo_resize(&topo, T_GPUS + 1), 0);
	KUNIT_EXPECT_EQ(test, topo.gpus[T_GPUS].mem_gran, (u64)SZ_8M);
	cufab_topo_free(&topo);

	p.mem_gran_rec_kib = 4096;	/* below mem_gran_kib */
	KUNIT_EXPECT_EQ(test, cufab_topo_build(&topo, &p), -EINVAL);
	p.mem_gran_rec_kib = 0;
	p.mc_gran_kib = 3;
	KUNIT_EXPECT_EQ(test, cufab_params_gran(&p, &g), -EINVAL);
}

/* ---- cluster_uuid= ----------------------------------------------------- */

struct cluster_uuid_case {
	const char *str;
	bool ok;
};

static const struct cluster_uuid_case cluster_uuid_cases[] = {
	{ "c1a55e00-cfab-4000-8000-000000000001", true },
	{ "C1A55E00-CFAB-4000-8000-00000000000A", true },	/* either case */
	{ "c1a55e00-cfab-4000-8000-000000000001\n", true },	/* sysfs, echo */
	{ "01234567-89ab-1def-0123-456789abcdef", true },	/* any version */
	{ "", false },
	{ "c1a55e00-cfab-4000-8000-00000000000", false },	/* short */
	{ "c1a55e00-cfab-4000-8000-0000000000012", false },	/* long */
	{ "c1a55e00-cfab-4000-8000-000000000001 ", false },
	{ "c1a55e00cfab40008000000000000001", false },		/* no dashes */
	{ "c1a55e00-cfab-4000-8000-00000000000g", false },
	{ "{c1a55e00-cfab-4000-8000-0000000001}", false },
	{ "00000000-0000-0000-0000-000000000000", false },	/* nil */
};

static void parse_cluster_uuid_table(struct kunit *test)
{
	const struct cluster_uuid_case *c = test->param_value;
	uuid_t u = {}, want;

	KUNIT_EXPECT_EQ_MSG(test, cufab_parse_cluster_uuid(c->str, &u),
			    c->ok ? 0 : -EINVAL, "\"%s\"", c->str);
	if (c->ok) {
		KUNIT_ASSERT_EQ(test, uuid_parse(c->str, &want), 0);
		KUNIT_EXPECT_TRUE(test, uuid_equal(&u, &want));
	}
}

static void cluster_uuid_desc(const struct cluster_uuid_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"%s",
		 (int)strlen(c->str), c->str, c->ok ? " accepted" : " refused");
}

KUNIT_ARRAY_PARAM(cluster_uuid, cluster_uuid_cases, cluster_uuid_desc);

/* Given: used as it is. Not given: random, RFC 4122 version 4, not nil. */
static void topo_build_cluster_uuid(struct kunit *test)
{
	struct cufab_params p = default_params;
	struct cufab_topo a = {}, b = {};
	uuid_t given;

	KUNIT_ASSERT_EQ(test, cufab_topo_build(&a, &p), 0);
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&b, &p), 0);
	KUNIT_EXPECT_FALSE(test, uuid_is_null(&a.cluster_uuid));
	KUNIT_EXPECT_EQ(test, a.cluster_uuid.b[6] >> 4, 4);
	KUNIT_EXPECT_EQ(test, a.cluster_uuid.b[8] & 0xc0, 0x80);
	KUNIT_EXPECT_FALSE(test, uuid_equal(&a.cluster_uuid, &b.cluster_uuid));
	cufab_topo_free(&a);
	cufab_topo_free(&b);

	KUNIT_ASSERT_EQ(test, uuid_parse("01234567-89ab-1def-0123-456789abcdef",
					 &given), 0);
	p.cluster_uuid = &given;
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&a, &p), 0);
	KUNIT_EXPECT_TRUE(test, uuid_equal(&a.cluster_uuid, &given));
	cufab_topo_free(&a);
}

/* node_index= is kept; 0 (no parameter) and the largest index load. */
static void topo_build_node_index(struct kunit *test)
{
	struct cufab_params p = default_params;
	struct cufab_topo topo = {};

	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &p), 0);
	KUNIT_EXPECT_EQ(test, topo.node_index, 0U);
	cufab_topo_free(&topo);

	p.node_index = CUFAB_MAX_NODES - 1;
	KUNIT_ASSERT_EQ(test, cufab_topo_build(&topo, &p), 0);
	KUNIT_EXPECT_EQ(test, topo.node_index, CUFAB_MAX_NODES - 1U);
	cufab_topo_free(&topo);
}

static struct kunit_case cufab_params_cases[] = {
	KUNIT_CASE_PARAM(parse_cliques_table, cliques_gen_params),
	KUNIT_CASE_PARAM(parse_numa_nodes_table, numa_gen_params),
	KUNIT_CASE(parse_numa_nodes_default),
	KUNIT_CASE_PARAM(parse_peers_table, peers_gen_params),
	KUNIT_CASE_PARAM(parse_features_table, features_gen_params),
	KUNIT_CASE(topo_build_defaults),
	KUNIT_CASE(topo_build_nvswitch_cliques),
	KUNIT_CASE(topo_build_explicit_peers),
	KUNIT_CASE(topo_build_max_gpus),
	KUNIT_CASE(topo_build_rejects),
	KUNIT_CASE(random_cliques_roundtrip),
	KUNIT_CASE_PARAM(gran_check_table, gran_gen_params),
	KUNIT_CASE(topo_build_granularity),
	KUNIT_CASE_PARAM(parse_cluster_uuid_table, cluster_uuid_gen_params),
	KUNIT_CASE(topo_build_cluster_uuid),
	KUNIT_CASE(topo_build_node_index),
	{}
};

static struct kunit_suite cufab_params_suite = {
	.name = "cufab_params",
	.test_cases = cufab_params_cases,
};

kunit_test_suites(&cufab_params_suite);
