// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fabric window's domain header (kernel/fabric_domain.c) on a
 * window of plain memory: node 0 writes it, a node of the same geometry
 * accepts it and one of another refuses it, each load is one generation
 * more, unload marks the record left, and node 0 loaded with another
 * geometry starts the domain afresh, and the reclaim fence's bits: what
 * this node says it holds, what another node's record says of it; and
 * the fence of team replicas: the units' tags, the rounds, when another
 * node let go of a range this node freed. Node 0
 * only (the module's node_index), and only on a node without a real
 * window.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "cufab.h"
#include "fabric.h"

#define DOMAIN_TEST_NODES	2

/* node records as multinode.rst documents them: 4 KiB on, 512 bytes each */
#define REC(virt, n)		((u8 *)(virt) + SZ_4K + (n) * 512)
#define REC_GENERATION		8
#define REC_STATE		24
/* after instance, generation, heartbeat, state, num_gpus, 64 cliques */
#define REC_HOLDS		(8 * 3 + 4 + 4 + 4 * 64)
/* after the 1024 bits of holds */
#define REC_ROUNDS		(REC_HOLDS + 128)

static u64 rec_word(void *virt, unsigned int n, size_t off)
{
	return le64_to_cpu(*(__le64 *)(REC(virt, n) + off));
}

static void rec_set(void *virt, unsigned int n, size_t off, u64 v, size_t len)
{
	if (len == 4)
		*(__le32 *)(REC(virt, n) + off) = cpu_to_le32(v);
	else
		*(__le64 *)(REC(virt, n) + off) = cpu_to_le64(v);
}

static const struct cufab_domain_geometry domain_test_geo = {
	.size = SZ_64M,
	.slice_start = SZ_2M,
	.slice = 30 * SZ_1M,
	.unit = SZ_2M,
	.nodes = DOMAIN_TEST_NODES,
};

static void *domain_test_window(struct kunit *test)
{
	void *virt;

	if (cufab_window_present())
		kunit_skip(test, "this node has a real fabric window");
	if (cufab_node.node_index)
		kunit_skip(test, "node_index %u: only node 0 writes the header",
			   cufab_node.node_index);
	virt = vzalloc(cufab_domain_header_size(DOMAIN_TEST_NODES, SZ_2M,
						SZ_64M));
	KUNIT_ASSERT_NOT_NULL(test, virt);
	return virt;
}

static void domain_header_size(struct kunit *test)
{
	/*
	 * 4 KiB + 512 bytes a node + 4 bytes a unit of the window, in 2 MiB
	 * units: 2 MiB up to 1024 nodes and windows of 256 GiB
	 */
	KUNIT_EXPECT_EQ(test, (u64)SZ_2M,
			cufab_domain_header_size(1, SZ_2M, SZ_64M));
	KUNIT_EXPECT_EQ(test, (u64)SZ_2M,
			cufab_domain_header_size(CUFAB_MAX_NODES, SZ_2M,
						 256ULL << 30));
	KUNIT_EXPECT_EQ(test, (u64)SZ_4M,
			cufab_domain_header_size(CUFAB_MAX_NODES, SZ_2M,
						 1ULL << 40));
	/* 4 KiB + 8 x 512 + 256 units x 4 */
	KUNIT_EXPECT_EQ(test, (u64)SZ_4K * 3,
			cufab_domain_header_size(8, SZ_4K, SZ_1M));
}

static void domain_join_check_leave(struct kunit *test)
{
	struct cufab_domain_geometry other = domain_test_geo;
	struct cufab_domain_info info;
	void *virt = domain_test_window(test);

	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	KUNIT_EXPECT_EQ(test, 1ULL, cufab_domain_generation(0));
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_node_info(0, &info));
	KUNIT_EXPECT_EQ(test, (u32)CUFAB_DOMAIN_UP, info.state);
	KUNIT_EXPECT_TRUE(test, info.alive);
	KUNIT_EXPECT_EQ(test, cufab_node.num_gpus, info.num_gpus);
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_node_info(1, &info));
	KUNIT_EXPECT_EQ(test, (u32)CUFAB_DOMAIN_ABSENT, info.state);
	KUNIT_EXPECT_EQ(test, -ENOENT, cufab_domain_node_info(2, &info));

	/* what another node checks at its load */
	KUNIT_EXPECT_EQ(test, 0, cufab_domain_check(virt, &domain_test_geo));
	other.nodes = 3;
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_domain_check(virt, &other));
	other = domain_test_geo;
	other.slice -= SZ_2M;
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_domain_check(virt, &other));
	other = domain_test_geo;
	other.size *= 2;
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_domain_check(virt, &other));

	cufab_domain_leave();
	KUNIT_EXPECT_EQ(test, 0ULL, cufab_domain_generation(0));
	KUNIT_EXPECT_EQ(test, -ENODEV, cufab_domain_node_info(0, &info));

	/* the same domain again: the record stays, one generation more */
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	KUNIT_EXPECT_EQ(test, 2ULL, cufab_domain_generation(0));
	cufab_domain_leave();

	/* another geometry: node 0 starts the domain afresh */
	other = domain_test_geo;
	other.slice -= SZ_2M;
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &other));
	KUNIT_EXPECT_EQ(test, 1ULL, cufab_domain_generation(0));
	KUNIT_EXPECT_EQ(test, 0, cufab_domain_check(virt, &other));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_domain_check(virt, &domain_test_geo));
	cufab_domain_leave();
	vfree(virt);
}

/* A record left "left" by unload is not a live twin: no wait, no refusal. */
static void domain_left_record_rejoins(struct kunit *test)
{
	struct cufab_domain_info info;
	void *virt = domain_test_window(test);

	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	cufab_domain_leave();
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_node_info(0, &info));
	KUNIT_EXPECT_EQ(test, (u32)CUFAB_DOMAIN_UP, info.state);
	KUNIT_EXPECT_EQ(test, 2ULL, info.generation);
	cufab_domain_leave();
	vfree(virt);
}

/* cufab_domain_let_go(), "" for NULL: a string to compare either way */
static const char *let_go(unsigned int node, u64 gen)
{
	return cufab_domain_let_go(node, gen) ?: "";
}

/*
 * The fence's bits: this node's record says whose memory it holds; node
 * 1's record, written here as node 1 would, says whether it let go of
 * node 0's.
 */
static void domain_holds_and_let_go(struct kunit *test)
{
	void *virt = domain_test_window(test);

	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	KUNIT_EXPECT_EQ(test, -1, cufab_domain_slice_fenced());
	cufab_domain_set_holds(1, true);
	KUNIT_EXPECT_EQ(test, 2ULL, rec_word(virt, 0, REC_HOLDS));
	cufab_domain_set_holds(1, false);
	KUNIT_EXPECT_EQ(test, 0ULL, rec_word(virt, 0, REC_HOLDS));

	/* node 1 never joined: nothing of node 0 is its */
	KUNIT_EXPECT_STREQ(test, "it is not up in the domain", let_go(1, 0));
	rec_set(virt, 1, REC_GENERATION, 5, 8);
	rec_set(virt, 1, REC_HOLDS, 1, 8);
	rec_set(virt, 1, REC_STATE, CUFAB_DOMAIN_UP, 4);
	/* up, generation 5, its bit for node 0 set: not let go */
	KUNIT_EXPECT_STREQ(test, "", let_go(1, 5));
	KUNIT_EXPECT_STREQ(test, "it joined again", let_go(1, 4));
	rec_set(virt, 1, REC_HOLDS, 0, 8);
	KUNIT_EXPECT_STREQ(test, "it revoked its imports",
			   let_go(1, 5));
	rec_set(virt, 1, REC_STATE, CUFAB_DOMAIN_LEFT, 4);
	KUNIT_EXPECT_STREQ(test, "it is not up in the domain", let_go(1, 5));

	/* a node that leaves holds nothing */
	cufab_domain_set_holds(1, true);
	cufab_domain_leave();
	KUNIT_EXPECT_EQ(test, 0ULL, rec_word(virt, 0, REC_HOLDS));
	vfree(virt);
}

/* the tag of the window's unit @u, where node 0 wrote the tags */
static u32 tag_of(void *virt, unsigned int u)
{
	return le32_to_cpu(((__le32 *)((u8 *)virt + SZ_4K +
				       DOMAIN_TEST_NODES * 512))[u]);
}

/* cufab_domain_replicas_let_go(), "" for NULL */
static const char *replicas_let_go(unsigned int node, u64 gen, u64 rounds)
{
	return cufab_domain_replicas_let_go(node, gen, rounds) ?: "";
}

/*
 * The fence of team replicas: a new life moves every tag of its slice;
 * a freed range moves its units' tags and no other; the rounds count in
 * the record; node 1 let go of a range node 0 freed once it holds
 * nothing of node 0, or two rounds after the one read, or is gone.
 */
static void domain_replica_tags_and_rounds(struct kunit *test)
{
	void *virt = domain_test_window(test);
	u32 before;

	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	/* node 0's slice: units 1 .. 15 of the 64 MiB */
	KUNIT_EXPECT_EQ(test, 0U, tag_of(virt, 0));
	KUNIT_EXPECT_EQ(test, 1U, tag_of(virt, 1));
	KUNIT_EXPECT_EQ(test, 1U, tag_of(virt, 15));
	KUNIT_EXPECT_EQ(test, 0U, tag_of(virt, 16));
	KUNIT_EXPECT_EQ(test, 1U, cufab_domain_tag(SZ_2M + SZ_4K));

	/* units 2 and 3 freed: their tags move, their neighbours' do not */
	before = cufab_domain_tag(3 * SZ_2M);
	cufab_domain_retag(2 * SZ_2M, 2 * SZ_2M);
	KUNIT_EXPECT_EQ(test, before + 1, cufab_domain_tag(3 * SZ_2M));
	KUNIT_EXPECT_EQ(test, 2U, tag_of(virt, 2));
	KUNIT_EXPECT_EQ(test, 1U, tag_of(virt, 1));
	KUNIT_EXPECT_EQ(test, 1U, tag_of(virt, 4));
	/* another node's slice is not this node's to retag */
	cufab_domain_retag(16 * SZ_2M, SZ_2M);
	KUNIT_EXPECT_EQ(test, 0U, tag_of(virt, 16));

	cufab_domain_round_done();
	cufab_domain_round_done();
	KUNIT_EXPECT_EQ(test, 2ULL, rec_word(virt, 0, REC_ROUNDS));
	KUNIT_EXPECT_EQ(test, 2ULL, cufab_domain_rounds(0));

	/* node 1, up at generation 3, holding node 0's memory, round 7 */
	rec_set(virt, 1, REC_GENERATION, 3, 8);
	rec_set(virt, 1, REC_HOLDS, 1, 8);
	rec_set(virt, 1, REC_ROUNDS, 7, 8);
	rec_set(virt, 1, REC_STATE, CUFAB_DOMAIN_UP, 4);
	KUNIT_EXPECT_STREQ(test, "", replicas_let_go(1, 3, 7));
	/* a round that may have begun before the tags moved is not enough */
	rec_set(virt, 1, REC_ROUNDS, 8, 8);
	KUNIT_EXPECT_STREQ(test, "", replicas_let_go(1, 3, 7));
	rec_set(virt, 1, REC_ROUNDS, 9, 8);
	KUNIT_EXPECT_STREQ(test, "it dropped its replicas",
			   replicas_let_go(1, 3, 7));
	KUNIT_EXPECT_STREQ(test, "it joined again", replicas_let_go(1, 2, 9));
	rec_set(virt, 1, REC_HOLDS, 0, 8);
	KUNIT_EXPECT_STREQ(test, "it holds nothing of this node",
			   replicas_let_go(1, 3, 100));
	rec_set(virt, 1, REC_STATE, CUFAB_DOMAIN_LEFT, 4);
	KUNIT_EXPECT_STREQ(test, "it is not up in the domain",
			   replicas_let_go(1, 3, 100));
	cufab_domain_leave();

	/* node 0's next life: every tag of its slice moves again */
	KUNIT_ASSERT_EQ(test, 0, cufab_domain_join(virt, &domain_test_geo));
	KUNIT_EXPECT_EQ(test, 2U, tag_of(virt, 1));
	KUNIT_EXPECT_EQ(test, 3U, tag_of(virt, 2));
	KUNIT_EXPECT_EQ(test, 0ULL, cufab_domain_rounds(0));
	cufab_domain_leave();
	vfree(virt);
}

static struct kunit_case cufab_domain_cases[] = {
	KUNIT_CASE(domain_header_size),
	KUNIT_CASE(domain_join_check_leave),
	KUNIT_CASE(domain_left_record_rejoins),
	KUNIT_CASE(domain_holds_and_let_go),
	KUNIT_CASE(domain_replica_tags_and_rounds),
	{}
};

static struct kunit_suite cufab_domain_suite = {
	.name = "cufab_domain",
	.test_cases = cufab_domain_cases,
};

kunit_test_suites(&cufab_domain_suite);
