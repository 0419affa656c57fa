// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: logical endpoint id spaces (kernel/idrange.c): lowest-fit
 * reservation, merging of adjacent reservations, splitting releases,
 * refusals that leave the space unchanged, and a randomised run against a
 * plain array model of a small id space.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "idrange.h"
#include "kunit_fault.h"
#include "kunit_rand.h"

/* Non-zero: replay a failing randomised run with the seed it printed. */
#define IDRANGE_TEST_SEED	0

/* A snapshot of the ranges, in order. */
struct idrange_snap {
	u32 n;
	u32 base[128];
	u32 count[128];
};

static int idrange_snap_one(u32 base, u32 count, void *arg)
{
	struct idrange_snap *s = arg;

	if (s->n == ARRAY_SIZE(s->base))
		return -E2BIG;
	s->base[s->n] = base;
	s->count[s->n] = count;
	s->n++;
	return 0;
}

static void idrange_snap(struct kunit *test, struct cufab_idspace *space,
			 struct idrange_snap *s)
{
	s->n = 0;
	KUNIT_ASSERT_EQ(test, 0,
			cufab_idspace_for_each(space, idrange_snap_one, s));
	KUNIT_ASSERT_EQ(test, s->n, space->ranges);
}

static void idrange_expect_same(struct kunit *test, struct idrange_snap *a,
				struct idrange_snap *b)
{
	u32 i;

	KUNIT_ASSERT_EQ(test, a->n, b->n);
	for (i = 0; i < a->n; i++) {
		KUNIT_EXPECT_EQ(test, a->base[i], b->base[i]);
		KUNIT_EXPECT_EQ(test, a->count[i], b->count[i]);
	}
}

static u32 idrange_reserve(struct kunit *test, struct cufab_idspace *space,
			   u32 count)
{
	u32 base = 0;

	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_reserve(space, count, &base));
	return base;
}

static void reserve_lowest_fit_from_first(struct kunit *test)
{
	struct cufab_idspace space;

	cufab_idspace_init(&space, CUFAB_LE_ID_FIRST, CUFAB_LE_ID_LAST);
	KUNIT_EXPECT_EQ(test, 1u, idrange_reserve(test, &space, 1));
	KUNIT_EXPECT_EQ(test, 2u, idrange_reserve(test, &space, 4));
	KUNIT_EXPECT_EQ(test, 6u, idrange_reserve(test, &space, 1));
	/* back to back: one range */
	KUNIT_EXPECT_EQ(test, 1u, space.ranges);
	KUNIT_EXPECT_EQ(test, 6ull, space.reserved);
	KUNIT_EXPECT_TRUE(test, cufab_idspace_is_reserved(&space, 1, 6));
	KUNIT_EXPECT_FALSE(test, cufab_idspace_is_reserved(&space, 1, 7));
	KUNIT_EXPECT_FALSE(test, cufab_idspace_is_reserved(&space, 0, 1));
	KUNIT_EXPECT_FALSE(test, cufab_idspace_is_reserved(&space, 3, 0));
	cufab_idspace_destroy(&space);
	KUNIT_EXPECT_EQ(test, 0u, space.ranges);
	KUNIT_EXPECT_EQ(test, 0ull, space.reserved);
}

static void reserve_zero_is_invalid(struct kunit *test)
{
	struct cufab_idspace space;
	u32 base = 77;

	cufab_idspace_init(&space, 1, 10);
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_reserve(&space, 0, &base));
	KUNIT_EXPECT_EQ(test, 77u, base);
	KUNIT_EXPECT_EQ(test, 0u, space.ranges);
	cufab_idspace_destroy(&space);
}

static void reserve_exhaustion(struct kunit *test)
{
	struct idrange_snap *before, *after;
	struct cufab_idspace space;
	u32 base = 0;

	before = kunit_kzalloc(test, sizeof(*before), GFP_KERNEL);
	after = kunit_kzalloc(test, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	cufab_idspace_init(&space, 10, 19);	/* 10 ids */
	KUNIT_EXPECT_EQ(test, -ENOSPC, cufab_idspace_reserve(&space, 11, &base));
	KUNIT_EXPECT_EQ(test, 10u, idrange_reserve(test, &space, 10));
	KUNIT_EXPECT_EQ(test, -ENOSPC, cufab_idspace_reserve(&space, 1, &base));

	/* free 12..13 and 16..18: 3 ids free, but not 3 in a row */
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 12, 2));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 16, 3));
	idrange_snap(test, &space, before);
	KUNIT_EXPECT_EQ(test, -ENOSPC, cufab_idspace_reserve(&space, 4, &base));
	idrange_snap(test, &space, after);
	idrange_expect_same(test, before, after);
	/* the lowest hole that fits wins, not the first hole */
	KUNIT_EXPECT_EQ(test, 16u, idrange_reserve(test, &space, 3));
	KUNIT_EXPECT_EQ(test, 12u, idrange_reserve(test, &space, 2));
	KUNIT_EXPECT_EQ(test, 1u, space.ranges);
	KUNIT_EXPECT_EQ(test, 10ull, space.reserved);
	cufab_idspace_destroy(&space);
}

static void reserve_top_of_space(struct kunit *test)
{
	struct cufab_idspace space;
	u32 base = 0;

	cufab_idspace_init(&space, CUFAB_LE_ID_LAST - 3, CUFAB_LE_ID_LAST);
	KUNIT_EXPECT_EQ(test, CUFAB_LE_ID_LAST - 3,
			idrange_reserve(test, &space, 4));
	KUNIT_EXPECT_TRUE(test, cufab_idspace_is_reserved(&space,
							  CUFAB_LE_ID_LAST, 1));
	/* would wrap past 2^32: not reserved, not released */
	KUNIT_EXPECT_FALSE(test, cufab_idspace_is_reserved(&space,
							   CUFAB_LE_ID_LAST, 3));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_idspace_release(&space, CUFAB_LE_ID_LAST, 3));
	KUNIT_EXPECT_EQ(test, -ENOSPC, cufab_idspace_reserve(&space, 1, &base));
	KUNIT_EXPECT_EQ(test, 0,
			cufab_idspace_release(&space, CUFAB_LE_ID_LAST - 3, 4));
	KUNIT_EXPECT_EQ(test, 0u, space.ranges);
	cufab_idspace_destroy(&space);
}

static void reserve_merges_both_sides(struct kunit *test)
{
	struct cufab_idspace space;

	cufab_idspace_init(&space, 1, 100);
	KUNIT_EXPECT_EQ(test, 1u, idrange_reserve(test, &space, 30));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 11, 10));
	KUNIT_EXPECT_EQ(test, 2u, space.ranges);
	/* fills 11..20 exactly: joins [1, 11) and [21, 31) */
	KUNIT_EXPECT_EQ(test, 11u, idrange_reserve(test, &space, 10));
	KUNIT_EXPECT_EQ(test, 1u, space.ranges);
	KUNIT_EXPECT_TRUE(test, cufab_idspace_is_reserved(&space, 1, 30));

	/* joins only the range after it */
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 1, 5));
	KUNIT_EXPECT_EQ(test, 1u, idrange_reserve(test, &space, 5));
	KUNIT_EXPECT_EQ(test, 1u, space.ranges);
	KUNIT_EXPECT_EQ(test, 30ull, space.reserved);
	cufab_idspace_destroy(&space);
}

static void release_start_middle_end(struct kunit *test)
{
	struct idrange_snap *s;
	struct cufab_idspace space;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	cufab_idspace_init(&space, 1, 1000);
	KUNIT_EXPECT_EQ(test, 1u, idrange_reserve(test, &space, 100));

	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 1, 10));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 91, 10));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 41, 20));
	idrange_snap(test, &space, s);
	KUNIT_ASSERT_EQ(test, 2u, s->n);
	KUNIT_EXPECT_EQ(test, 11u, s->base[0]);
	KUNIT_EXPECT_EQ(test, 30u, s->count[0]);
	KUNIT_EXPECT_EQ(test, 61u, s->base[1]);
	KUNIT_EXPECT_EQ(test, 30u, s->count[1]);
	KUNIT_EXPECT_EQ(test, 60ull, space.reserved);
	KUNIT_EXPECT_FALSE(test, cufab_idspace_is_reserved(&space, 40, 2));

	/* whole ranges go away */
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 11, 30));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 61, 30));
	KUNIT_EXPECT_EQ(test, 0u, space.ranges);
	KUNIT_EXPECT_EQ(test, 0ull, space.reserved);
	cufab_idspace_destroy(&space);
}

static void release_not_reserved_changes_nothing(struct kunit *test)
{
	struct idrange_snap *before, *after;
	struct cufab_idspace space;

	before = kunit_kzalloc(test, sizeof(*before), GFP_KERNEL);
	after = kunit_kzalloc(test, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	cufab_idspace_init(&space, 1, 100);
	KUNIT_EXPECT_EQ(test, 1u, idrange_reserve(test, &space, 10));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 5, 2));
	idrange_snap(test, &space, before);

	/* never reserved, partly free, spanning a hole, zero, id 0 */
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_release(&space, 50, 1));
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_release(&space, 8, 5));
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_release(&space, 3, 6));
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_release(&space, 5, 1));
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_release(&space, 1, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_idspace_release(&space, 0, 2));
	idrange_snap(test, &space, after);
	idrange_expect_same(test, before, after);
	KUNIT_EXPECT_EQ(test, 8ull, space.reserved);
	cufab_idspace_destroy(&space);
}

/* A failed node allocation leaves the space as it was. */
static void nomem_changes_nothing(struct kunit *test)
{
	struct idrange_snap *before, *after;
	struct cufab_idspace space;
	struct fault_attr saved;
	u32 base = 0;
	int ret;

	before = kunit_kzalloc(test, sizeof(*before), GFP_KERNEL);
	after = kunit_kzalloc(test, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	cufab_idspace_init(&space, 1, 100);
	KUNIT_EXPECT_EQ(test, 1u, idrange_reserve(test, &space, 20));
	idrange_snap(test, &space, before);

	if (!cufab_test_fail_next(CUFAB_FAULT_BIND, &saved)) {
		cufab_idspace_destroy(&space);
		kunit_skip(test, "no CONFIG_FAULT_INJECTION");
	}
	/* a split needs a node */
	ret = cufab_idspace_release(&space, 5, 2);
	cufab_test_fail_restore(CUFAB_FAULT_BIND, &saved);
	KUNIT_EXPECT_EQ(test, -ENOMEM, ret);
	idrange_snap(test, &space, after);
	idrange_expect_same(test, before, after);
	KUNIT_EXPECT_EQ(test, 20ull, space.reserved);

	/* so does a reservation touching no range */
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 1, 5));
	idrange_snap(test, &space, before);
	KUNIT_ASSERT_TRUE(test,
			  cufab_test_fail_next(CUFAB_FAULT_BIND, &saved));
	ret = cufab_idspace_reserve(&space, 3, &base);	/* 1..3 */
	cufab_test_fail_restore(CUFAB_FAULT_BIND, &saved);
	KUNIT_EXPECT_EQ(test, -ENOMEM, ret);
	idrange_snap(test, &space, after);
	idrange_expect_same(test, before, after);
	KUNIT_EXPECT_EQ(test, 15ull, space.reserved);
	/* a merge needs none: it cannot fail */
	KUNIT_ASSERT_TRUE(test,
			  cufab_test_fail_next(CUFAB_FAULT_BIND, &saved));
	ret = cufab_idspace_reserve(&space, 5, &base);	/* 1..5 */
	cufab_test_fail_restore(CUFAB_FAULT_BIND, &saved);
	KUNIT_EXPECT_EQ(test, 0, ret);
	KUNIT_EXPECT_EQ(test, 1u, base);
	KUNIT_EXPECT_EQ(test, 1u, space.ranges);
	cufab_idspace_destroy(&space);
}

static int idrange_stop_at_second(u32 base, u32 count, void *arg)
{
	u32 *seen = arg;

	*seen += 1;
	return *seen == 2 ? 42 : 0;
}

static void walk_stops_on_nonzero(struct kunit *test)
{
	struct cufab_idspace space;
	u32 seen = 0;

	cufab_idspace_init(&space, 1, 100);
	idrange_reserve(test, &space, 30);
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 5, 1));
	KUNIT_ASSERT_EQ(test, 0, cufab_idspace_release(&space, 10, 1));
	KUNIT_EXPECT_EQ(test, 3u, space.ranges);
	KUNIT_EXPECT_EQ(test, 42, cufab_idspace_for_each(&space,
							 idrange_stop_at_second,
							 &seen));
	KUNIT_EXPECT_EQ(test, 2u, seen);
	cufab_idspace_destroy(&space);
}

/* ---- randomised, against an array model of [1, IDR_N] ---- */

#define IDR_N		200
#define IDR_OPS		3000

struct idrange_model {
	bool used[IDR_N + 2];	/* 0 and IDR_N + 1 stay free: sentinels */
};

/* Lowest base of @count free ids in a row, or 0 for none. */
static u32 idrange_model_fit(struct idrange_model *m, u32 count)
{
	u32 id, run = 0;

	for (id = 1; id <= IDR_N; id++) {
		run = m->used[id] ? 0 : run + 1;
		if (run == count)
			return id - count + 1;
	}
	return 0;
}

static bool idrange_model_all(struct idrange_model *m, u32 base, u32 count)
{
	u32 id;

	if (!count)
		return false;
	for (id = base; id < base + count; id++)
		if (id > IDR_N || !m->used[id])
			return false;
	return true;
}

/* The tree must hold exactly the model's maximal runs. */
static void idrange_model_compare(struct kunit *test,
				  struct cufab_idspace *space,
				  struct idrange_model *m,
				  struct idrange_snap *s)
{
	u32 id, end, i = 0, total = 0;

	idrange_snap(test, space, s);
	for (id = 1; id <= IDR_N; id = end) {
		end = id + 1;
		if (!m->used[id])
			continue;
		while (m->used[end])
			end++;
		KUNIT_ASSERT_LT(test, i, s->n);
		KUNIT_ASSERT_EQ(test, id, s->base[i]);
		KUNIT_ASSERT_EQ(test, end - id, s->count[i]);
		total += end - id;
		i++;
	}
	KUNIT_ASSERT_EQ(test, i, s->n);
	KUNIT_ASSERT_EQ(test, (u64)total, space->reserved);
}

static void idrange_random_op(struct kunit *test, struct rnd_state *rnd,
			      struct cufab_idspace *space,
			      struct idrange_model *m)
{
	u32 r = prandom_u32_state(rnd), count, base, got = 0, id;
	int ret;

	if (r % 2) {
		count = 1 + prandom_u32_state(rnd) % 24;
		base = idrange_model_fit(m, count);
		ret = cufab_idspace_reserve(space, count, &got);
		KUNIT_ASSERT_EQ(test, base ? 0 : -ENOSPC, ret);
		if (!base)
			return;
		KUNIT_ASSERT_EQ(test, base, got);
		for (id = base; id < base + count; id++)
			m->used[id] = true;
		return;
	}
	/* releases: mostly inside reserved runs, sometimes anywhere */
	base = 1 + prandom_u32_state(rnd) % IDR_N;
	count = 1 + prandom_u32_state(rnd) % 16;
	if (r % 4 == 0) {
		while (base <= IDR_N && !m->used[base])
			base++;
		for (count = 0; m->used[base + count]; count++)
			;
		if (!count)
			return;
		count = 1 + prandom_u32_state(rnd) % count;
	}
	ret = cufab_idspace_release(space, base, count);
	if (!idrange_model_all(m, base, count)) {
		KUNIT_ASSERT_EQ(test, -EINVAL, ret);
		return;
	}
	KUNIT_ASSERT_EQ(test, 0, ret);
	for (id = base; id < base + count; id++)
		m->used[id] = false;
}

static void random_against_model(struct kunit *test)
{
	struct cufab_idspace space;
	struct idrange_model *m;
	struct idrange_snap *s;
	struct rnd_state rnd;
	int i;

	CUFAB_TEST_SEED(test, &rnd, IDRANGE_TEST_SEED);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, s);
	cufab_idspace_init(&space, 1, IDR_N);
	for (i = 0; i < IDR_OPS; i++) {
		idrange_random_op(test, &rnd, &space, m);
		idrange_model_compare(test, &space, m, s);
	}
	cufab_idspace_destroy(&space);
}

static struct kunit_case cufab_idrange_cases[] = {
	KUNIT_CASE(reserve_lowest_fit_from_first),
	KUNIT_CASE(reserve_zero_is_invalid),
	KUNIT_CASE(reserve_exhaustion),
	KUNIT_CASE(reserve_top_of_space),
	KUNIT_CASE(reserve_merges_both_sides),
	KUNIT_CASE(release_start_middle_end),
	KUNIT_CASE(release_not_reserved_changes_nothing),
	KUNIT_CASE(walk_stops_on_nonzero),
	KUNIT_CASE(nomem_changes_nothing),
	KUNIT_CASE(random_against_model),
	{}
};

static struct kunit_suite cufab_idrange_suite = {
	.name = "cufab_idrange",
	.test_cases = cufab_idrange_cases,
};

kunit_test_suites(&cufab_idrange_suite);
