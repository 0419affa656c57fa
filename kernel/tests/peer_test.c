// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the peer connection counts of kernel/peer.c. A connection is a
 * distinct peer GPU, shared by every link to it; max_peers limits the
 * connections, never the links; the last link frees the connection.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "cufab.h"

static struct cufab_peer_counts *peer_counts(struct kunit *test)
{
	struct cufab_peer_counts *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	return c;
}

/* Links to one peer GPU use one connection, however many there are. */
static void links_share_a_connection(struct kunit *test)
{
	struct cufab_peer_counts *c = peer_counts(test);
	int i;

	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 0, 1, 1));
	KUNIT_EXPECT_EQ(test, 1U, c->peers[0]);
	KUNIT_EXPECT_EQ(test, 5U, c->links[0][1]);
	/* one-way: GPU 1 uses nothing */
	KUNIT_EXPECT_EQ(test, 0U, c->peers[1]);
	for (i = 0; i < 4; i++)
		cufab_peer_counts_put(c, 0, 1);
	KUNIT_EXPECT_EQ(test, 1U, c->peers[0]);
	cufab_peer_counts_put(c, 0, 1);
	KUNIT_EXPECT_EQ(test, 0U, c->peers[0]);
	KUNIT_EXPECT_EQ(test, 0U, c->links[0][1]);
}

/* A new peer GPU past max is -EBUSY and counts nothing. */
static void max_refuses_a_new_peer_only(struct kunit *test)
{
	struct cufab_peer_counts *c = peer_counts(test);

	KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 2, 0, 2));
	KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 2, 1, 2));
	KUNIT_EXPECT_EQ(test, -EBUSY, cufab_peer_counts_get(c, 2, 3, 2));
	KUNIT_EXPECT_EQ(test, 2U, c->peers[2]);
	KUNIT_EXPECT_EQ(test, 0U, c->links[2][3]);
	/* another link to a GPU already connected still fits */
	KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 2, 1, 2));
	/* other GPUs have their own connections */
	KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 3, 2, 2));
	/* freeing a connection makes room */
	cufab_peer_counts_put(c, 2, 0);
	KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 2, 3, 2));
	KUNIT_EXPECT_EQ(test, 2U, c->peers[2]);
}

/* max 0: no connection at all; UNLIMITED: every GPU. */
static void max_zero_and_unlimited(struct kunit *test)
{
	struct cufab_peer_counts *c = peer_counts(test);
	u32 i;

	KUNIT_EXPECT_EQ(test, -EBUSY, cufab_peer_counts_get(c, 0, 1, 0));
	for (i = 1; i < CUFAB_MAX_GPUS; i++) {
		int ret = cufab_peer_counts_get(c, 0, i, CUFAB_PEERS_UNLIMITED);

		KUNIT_EXPECT_EQ(test, 0, ret);
	}
	KUNIT_EXPECT_EQ(test, CUFAB_MAX_GPUS - 1, c->peers[0]);
	/* lowering the limit keeps what exists and refuses what is new */
	KUNIT_EXPECT_EQ(test, 0, cufab_peer_counts_get(c, 0, 5, 1));
	for (i = 1; i < CUFAB_MAX_GPUS; i++)
		cufab_peer_counts_put(c, 0, i);
	KUNIT_EXPECT_EQ(test, 1U, c->peers[0]);
}

static struct kunit_case peer_test_cases[] = {
	KUNIT_CASE(links_share_a_connection),
	KUNIT_CASE(max_refuses_a_new_peer_only),
	KUNIT_CASE(max_zero_and_unlimited),
	{}
};

static struct kunit_suite peer_test_suite = {
	.name = "cufab_peer",
	.test_cases = peer_test_cases,
};

kunit_test_suite(peer_test_suite);
