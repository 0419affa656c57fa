// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: GPU identity and topology changes (kernel/device.c).
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "cufab.h"

static void build(struct kunit *test, struct cufab_topo *topo, u32 n,
		  bool nvswitch, const char *peers)
{
	const struct cufab_params p = {
		.num_gpus = n,
		.mem_mib = 1024,
		.nvswitch = nvswitch,
		.peers = peers,
	};

	KUNIT_ASSERT_EQ(test, cufab_topo_build(topo, &p), 0);
}

/* Node 0: the UUIDs a node alone always had. */
static void gpu_uuid_layout(struct kunit *test)
{
	static const u8 want[CUFAB_UUID_LEN] = {
		0xcf, 0xab, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	};
	u8 uuid[CUFAB_UUID_LEN], again[CUFAB_UUID_LEN];
	u8 (*seen)[CUFAB_UUID_LEN];
	u32 i, j;

	seen = kunit_kcalloc(test, CUFAB_MAX_GPUS, CUFAB_UUID_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);
	cufab_gpu_uuid_at(0, 5, uuid);
	KUNIT_EXPECT_EQ(test, memcmp(uuid, want, sizeof(want)), 0);

	for (i = 0; i < CUFAB_MAX_GPUS; i++) {
		cufab_gpu_uuid_at(0, i, seen[i]);
		cufab_gpu_uuid_at(0, i, again);
		/* stable: a function of the node and the index only */
		KUNIT_EXPECT_EQ(test, memcmp(seen[i], again, CUFAB_UUID_LEN),
				0);
		/* RFC 4122: version 4, variant 10xx */
		KUNIT_EXPECT_EQ(test, seen[i][6] >> 4, 4);
		KUNIT_EXPECT_EQ(test, seen[i][8] >> 6, 2);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, memcmp(seen[i], seen[j],
						     CUFAB_UUID_LEN), 0);
	}
}

static void gpu_bus_id_format(struct kunit *test)
{
	char bus[CUFAB_BUS_ID_LEN];

	cufab_gpu_bus_id_at(0, 0, bus);
	KUNIT_EXPECT_STREQ(test, bus, "0000:41:00.0");
	cufab_gpu_bus_id_at(0, CUFAB_MAX_GPUS - 1, bus);
	KUNIT_EXPECT_STREQ(test, bus, "0000:80:00.0");
	cufab_gpu_bus_id_at(1, 0, bus);
	KUNIT_EXPECT_STREQ(test, bus, "0001:41:00.0");
	cufab_gpu_bus_id_at(CUFAB_MAX_NODES - 1, CUFAB_MAX_GPUS - 1, bus);
	KUNIT_EXPECT_STREQ(test, bus, "03ff:80:00.0");
}

/* This node's GPUs answer with the identities of its node_index. */
static void gpu_identity_of_this_node(struct kunit *test)
{
	u8 uuid[CUFAB_UUID_LEN], want[CUFAB_UUID_LEN];
	char bus[CUFAB_BUS_ID_LEN], want_bus[CUFAB_BUS_ID_LEN];

	cufab_gpu_uuid(3, uuid);
	cufab_gpu_uuid_at(cufab_node.node_index, 3, want);
	KUNIT_EXPECT_EQ(test, memcmp(uuid, want, CUFAB_UUID_LEN), 0);
	cufab_gpu_bus_id(3, bus);
	cufab_gpu_bus_id_at(cufab_node.node_index, 3, want_bus);
	KUNIT_EXPECT_STREQ(test, bus, want_bus);
}

/*
 * Every GPU of a domain has its own UUID and bus id: all GPUs of nodes 0
 * and 1 and of the last node, pairwise. The node is bytes 2-3 of the
 * UUID and the PCI domain; the rest is a node alone's identity.
 */
static void gpu_identity_unique_in_domain(struct kunit *test)
{
	static const u32 nodes[] = { 0, 1, CUFAB_MAX_NODES - 1 };
	const u32 n = ARRAY_SIZE(nodes) * CUFAB_MAX_GPUS;
	u8 (*uuid)[CUFAB_UUID_LEN], alone[CUFAB_UUID_LEN];
	char (*bus)[CUFAB_BUS_ID_LEN];
	u32 i, j;

	uuid = kunit_kcalloc(test, n, CUFAB_UUID_LEN, GFP_KERNEL);
	bus = kunit_kcalloc(test, n, CUFAB_BUS_ID_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uuid);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bus);
	for (i = 0; i < n; i++) {
		u32 node = nodes[i / CUFAB_MAX_GPUS], g = i % CUFAB_MAX_GPUS;

		cufab_gpu_uuid_at(node, g, uuid[i]);
		cufab_gpu_bus_id_at(node, g, bus[i]);
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(&uuid[i][2]), node);
		cufab_gpu_uuid_at(0, g, alone);
		alone[2] = uuid[i][2];
		alone[3] = uuid[i][3];
		KUNIT_EXPECT_EQ(test, memcmp(uuid[i], alone, CUFAB_UUID_LEN),
				0);
		for (j = 0; j < i; j++) {
			KUNIT_EXPECT_NE(test, memcmp(uuid[i], uuid[j],
						     CUFAB_UUID_LEN), 0);
			KUNIT_EXPECT_STRNEQ(test, bus[i], bus[j]);
		}
	}
	KUNIT_EXPECT_EQ(test, cufab_node_pci_domain(0), 0U);
	KUNIT_EXPECT_EQ(test, cufab_node_pci_domain(1), 1U);
}

static void numa_node_rules(struct kunit *test)
{
	u32 i;

	KUNIT_EXPECT_TRUE(test, cufab_numa_node_valid(NUMA_NO_NODE));
	KUNIT_EXPECT_TRUE(test, cufab_numa_node_valid(0));
	KUNIT_EXPECT_FALSE(test, cufab_numa_node_valid(-2));
	KUNIT_EXPECT_FALSE(test, cufab_numa_node_valid(MAX_NUMNODES));
	for (i = 0; i < CUFAB_MAX_GPUS; i++) {
		int node = cufab_default_numa_node(i);

		KUNIT_EXPECT_TRUE(test, cufab_numa_node_valid(node));
	}
	if (!IS_ENABLED(CONFIG_NUMA))
		KUNIT_EXPECT_EQ(test, cufab_default_numa_node(0), NUMA_NO_NODE);
}

static void peers_follow_cliques(struct kunit *test)
{
	struct cufab_topo topo = {};

	build(test, &topo, 4, true, NULL);
	topo.gpus[0].clique = 7;
	topo.gpus[3].clique = 7;
	cufab_topo_update_peers(&topo);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0x8ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].peers, 0x4ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[2].peers, 0x2ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[3].peers, 0x1ULL);

	/* without the switch, explicit peers are left alone */
	topo.nvswitch = false;
	topo.gpus[0].clique = 0;
	cufab_topo_update_peers(&topo);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0x8ULL);
	cufab_topo_free(&topo);
}

static void resize_grow_keeps_config(struct kunit *test)
{
	struct cufab_topo topo = {};
	u32 g;

	build(test, &topo, 2, false, "0-1");
	topo.gpus[1].features = CUFAB_DEV_F_MULTICAST;
	topo.gpus[1].mem_total = SZ_2G;
	topo.gpus[1].clique = 3;

	KUNIT_ASSERT_EQ(test, cufab_topo_resize(&topo, 4), 0);
	KUNIT_EXPECT_EQ(test, topo.num_gpus, 4U);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].features,
			(u32)CUFAB_DEV_F_MULTICAST);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].mem_total, (u64)SZ_2G);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].clique, 3U);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0x2ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].peers, 0x1ULL);
	for (g = 2; g < 4; g++) {
		KUNIT_EXPECT_EQ(test, topo.gpus[g].index, g);
		KUNIT_EXPECT_EQ(test, topo.gpus[g].features,
				(u32)CUFAB_DEV_F_DEFAULT);
		KUNIT_EXPECT_EQ(test, topo.gpus[g].mem_total, topo.default_mem);
		KUNIT_EXPECT_EQ(test, topo.gpus[g].peers, 0ULL);
	}
	cufab_topo_free(&topo);
}

static void resize_shrink_drops_peers(struct kunit *test)
{
	struct cufab_topo topo = {};

	build(test, &topo, 4, false, "0-3,1-2,0-1");
	KUNIT_ASSERT_EQ(test, cufab_topo_resize(&topo, 2), 0);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0x2ULL);
	KUNIT_EXPECT_EQ(test, topo.gpus[1].peers, 0x1ULL);
	cufab_topo_free(&topo);
}

static void resize_nvswitch_recomputes_peers(struct kunit *test)
{
	struct cufab_topo topo = {};

	build(test, &topo, 2, true, NULL);
	KUNIT_ASSERT_EQ(test, cufab_topo_resize(&topo, CUFAB_MAX_GPUS), 0);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers,
			GENMASK_ULL(CUFAB_MAX_GPUS - 1, 1));
	KUNIT_ASSERT_EQ(test, cufab_topo_resize(&topo, 1), 0);
	KUNIT_EXPECT_EQ(test, topo.gpus[0].peers, 0ULL);
	cufab_topo_free(&topo);
}

static void resize_rejects_bad_count(struct kunit *test)
{
	struct cufab_topo topo = {};
	struct cufab_gpu *before;

	build(test, &topo, 3, true, NULL);
	before = topo.gpus;
	KUNIT_EXPECT_EQ(test, cufab_topo_resize(&topo, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, cufab_topo_resize(&topo, CUFAB_MAX_GPUS + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, topo.num_gpus, 3U);
	KUNIT_EXPECT_PTR_EQ(test, topo.gpus, before);
	/* same size: nothing to do */
	KUNIT_EXPECT_EQ(test, cufab_topo_resize(&topo, 3), 0);
	KUNIT_EXPECT_PTR_EQ(test, topo.gpus, before);
	cufab_topo_free(&topo);
}

static struct kunit_case cufab_topo_cases[] = {
	KUNIT_CASE(gpu_uuid_layout),
	KUNIT_CASE(gpu_bus_id_format),
	KUNIT_CASE(gpu_identity_of_this_node),
	KUNIT_CASE(gpu_identity_unique_in_domain),
	KUNIT_CASE(numa_node_rules),
	KUNIT_CASE(peers_follow_cliques),
	KUNIT_CASE(resize_grow_keeps_config),
	KUNIT_CASE(resize_shrink_drops_peers),
	KUNIT_CASE(resize_nvswitch_recomputes_peers),
	KUNIT_CASE(resize_rejects_bad_count),
	{}
};

static struct kunit_suite cufab_topo_suite = {
	.name = "cufab_topo",
	.test_cases = cufab_topo_cases,
};

kunit_test_suites(&cufab_topo_suite);
