// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the advice segments of managed memory (kernel/managed_seg.c):
 * splitting and merging on cuMemAdvise and prefetch changes, empty and
 * whole ranges, adjacent and overlapping updates, what a range query
 * folds, where a page goes, and a randomised run against a per-page model.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/numa.h>
#include <linux/prandom.h>
#include <linux/cufab.h>

#include "managed_seg.h"
#include "kunit_rand.h"

/* Non-zero: replay a failing randomised run with the seed it printed. */
#define MANAGED_SEG_TEST_SEED	0

/* Pages of the allocations of these cases. */
#define SEG_N	64

static const struct cufab_managed_loc seg_host = {
	.type = CUFAB_LOC_HOST, .nid = NUMA_NO_NODE,
};

static struct cufab_managed_loc seg_gpu(s32 id, int nid)
{
	return (struct cufab_managed_loc){
		.type = CUFAB_LOC_DEVICE, .id = id, .nid = nid,
	};
}

static void seg_init(struct kunit *test, struct cufab_managed_segs *s,
		     u64 pages)
{
	KUNIT_ASSERT_EQ(test, 0, cufab_managed_segs_init(s, pages));
}

static void seg_change(struct kunit *test, struct cufab_managed_segs *s,
		       u64 first, u64 last, u32 advice,
		       struct cufab_managed_loc loc)
{
	struct cufab_advice_change c = { .advice = advice, .loc = loc };

	KUNIT_ASSERT_EQ(test, 0, cufab_managed_segs_change(s, first, last, &c));
}

static void seg_query(const struct cufab_managed_segs *s, u64 first,
		      u64 last, struct cufab_managed_advice *out)
{
	cufab_managed_segs_query(s, first, last, out);
}

/* Sorted, contiguous, non-empty, covering [0, @pages), nothing mergeable. */
static void seg_check_shape(struct kunit *test,
			    const struct cufab_managed_segs *s, u64 pages)
{
	const struct cufab_managed_advice *a, *b;
	u32 i;

	KUNIT_ASSERT_GE(test, s->nr, 1u);
	KUNIT_ASSERT_LE(test, s->nr, s->cap);
	KUNIT_EXPECT_EQ(test, 0ull, s->seg[0].start);
	KUNIT_EXPECT_EQ(test, pages, s->seg[s->nr - 1].end);
	for (i = 0; i < s->nr; i++) {
		KUNIT_EXPECT_LT(test, s->seg[i].start, s->seg[i].end);
		if (!i)
			continue;
		KUNIT_EXPECT_EQ(test, s->seg[i - 1].end, s->seg[i].start);
		a = &s->seg[i - 1].adv;
		b = &s->seg[i].adv;
		/* equal neighbours would have been merged */
		KUNIT_EXPECT_FALSE(test,
				   a->read_mostly == b->read_mostly &&
				   a->accessed_host == b->accessed_host &&
				   a->accessed_gpus == b->accessed_gpus &&
				   a->preferred.type == b->preferred.type &&
				   (!a->preferred.type ||
				    a->preferred.id == b->preferred.id) &&
				   a->prefetch.type == b->prefetch.type &&
				   (!a->prefetch.type ||
				    a->prefetch.id == b->prefetch.id));
	}
}

static void fresh_is_one_plain_segment(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;

	seg_init(test, &s, SEG_N);
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	seg_check_shape(test, &s, SEG_N);
	seg_query(&s, 0, SEG_N, &q);
	KUNIT_EXPECT_FALSE(test, q.read_mostly);
	KUNIT_EXPECT_FALSE(test, q.accessed_host);
	KUNIT_EXPECT_EQ(test, 0ull, q.accessed_gpus);
	KUNIT_EXPECT_EQ(test, 0u, q.preferred.type);
	KUNIT_EXPECT_EQ(test, 0u, q.prefetch.type);
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE, cufab_managed_segs_nid(&s, 0));
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE,
			cufab_managed_segs_nid(&s, SEG_N - 1));
	/* past the end: no segment, anywhere */
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE, cufab_managed_segs_nid(&s, SEG_N));
	cufab_managed_segs_destroy(&s);
}

/* An empty range changes nothing, at the start, inside and at the end. */
static void empty_range_changes_nothing(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;
	u64 at[] = { 0, 5, SEG_N };
	u32 i;

	seg_init(test, &s, SEG_N);
	for (i = 0; i < ARRAY_SIZE(at); i++)
		seg_change(test, &s, at[i], at[i],
			   CUFAB_ADVISE_SET_READ_MOSTLY, seg_host);
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	seg_check_shape(test, &s, SEG_N);
	seg_query(&s, 0, SEG_N, &q);
	KUNIT_EXPECT_FALSE(test, q.read_mostly);
	cufab_managed_segs_destroy(&s);
}

/* Advice on the whole allocation keeps one segment, and undoes to it. */
static void whole_range_stays_one_segment(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;

	seg_init(test, &s, SEG_N);
	seg_change(test, &s, 0, SEG_N, CUFAB_ADVISE_SET_READ_MOSTLY, seg_host);
	seg_change(test, &s, 0, SEG_N, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(1, 0));
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	seg_query(&s, 0, SEG_N, &q);
	KUNIT_EXPECT_TRUE(test, q.read_mostly);
	KUNIT_EXPECT_EQ(test, (u32)CUFAB_LOC_DEVICE, q.preferred.type);
	KUNIT_EXPECT_EQ(test, 1, q.preferred.id);
	seg_change(test, &s, 0, SEG_N, CUFAB_ADVISE_UNSET_READ_MOSTLY,
		   seg_host);
	seg_change(test, &s, 0, SEG_N, CUFAB_ADVISE_UNSET_PREFERRED_LOCATION,
		   seg_host);
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	seg_query(&s, 0, SEG_N, &q);
	KUNIT_EXPECT_FALSE(test, q.read_mostly);
	KUNIT_EXPECT_EQ(test, 0u, q.preferred.type);
	cufab_managed_segs_destroy(&s);
}

/* A range inside one segment splits it in three; undoing merges them. */
static void middle_splits_in_three_and_merges_back(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;

	seg_init(test, &s, 10);
	seg_change(test, &s, 2, 5, CUFAB_ADVISE_SET_READ_MOSTLY, seg_host);
	KUNIT_ASSERT_EQ(test, 3u, s.nr);
	seg_check_shape(test, &s, 10);
	KUNIT_EXPECT_EQ(test, 2ull, s.seg[1].start);
	KUNIT_EXPECT_EQ(test, 5ull, s.seg[1].end);
	seg_query(&s, 2, 5, &q);
	KUNIT_EXPECT_TRUE(test, q.read_mostly);
	/* a range over advised and plain pages has it only where all do */
	seg_query(&s, 1, 5, &q);
	KUNIT_EXPECT_FALSE(test, q.read_mostly);
	seg_query(&s, 4, 6, &q);
	KUNIT_EXPECT_FALSE(test, q.read_mostly);
	seg_change(test, &s, 2, 5, CUFAB_ADVISE_UNSET_READ_MOSTLY, seg_host);
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	seg_check_shape(test, &s, 10);
	cufab_managed_segs_destroy(&s);
}

/* A range at either edge splits one segment in two. */
static void edges_split_in_two(struct kunit *test)
{
	struct cufab_managed_segs s;

	seg_init(test, &s, 10);
	seg_change(test, &s, 0, 3, CUFAB_ADVISE_SET_READ_MOSTLY, seg_host);
	KUNIT_EXPECT_EQ(test, 2u, s.nr);
	seg_change(test, &s, 7, 10, CUFAB_ADVISE_SET_ACCESSED_BY,
		   seg_gpu(0, 0));
	KUNIT_EXPECT_EQ(test, 3u, s.nr);
	seg_check_shape(test, &s, 10);
	KUNIT_EXPECT_EQ(test, 3ull, s.seg[0].end);
	KUNIT_EXPECT_EQ(test, 7ull, s.seg[2].start);
	cufab_managed_segs_destroy(&s);
}

/* Equal advice on adjacent ranges is one segment; other advice is not. */
static void adjacent_equal_ranges_merge(struct kunit *test)
{
	struct cufab_managed_segs s;

	seg_init(test, &s, 10);
	seg_change(test, &s, 0, 3, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(0, 0));
	seg_change(test, &s, 3, 6, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(0, 0));
	KUNIT_ASSERT_EQ(test, 2u, s.nr);
	KUNIT_EXPECT_EQ(test, 6ull, s.seg[0].end);
	/* the same kind of advice with another GPU stays apart */
	seg_change(test, &s, 6, 8, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(1, 0));
	KUNIT_EXPECT_EQ(test, 3u, s.nr);
	seg_check_shape(test, &s, 10);
	/* and the gap filled with the first GPU joins the first run only */
	seg_change(test, &s, 8, 10, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(0, 0));
	KUNIT_EXPECT_EQ(test, 3u, s.nr);
	seg_change(test, &s, 6, 8, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(0, 0));
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	cufab_managed_segs_destroy(&s);
}

/* Overlapping accessed-by updates: each page keeps the union it got. */
static void overlapping_updates(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;

	seg_init(test, &s, 10);
	seg_change(test, &s, 0, 6, CUFAB_ADVISE_SET_ACCESSED_BY,
		   seg_gpu(0, 0));
	seg_change(test, &s, 4, 10, CUFAB_ADVISE_SET_ACCESSED_BY,
		   seg_gpu(1, 0));
	KUNIT_ASSERT_EQ(test, 3u, s.nr);
	seg_check_shape(test, &s, 10);
	KUNIT_EXPECT_EQ(test, BIT_ULL(0), s.seg[0].adv.accessed_gpus);
	KUNIT_EXPECT_EQ(test, BIT_ULL(0) | BIT_ULL(1),
			s.seg[1].adv.accessed_gpus);
	KUNIT_EXPECT_EQ(test, BIT_ULL(1), s.seg[2].adv.accessed_gpus);
	/* a query reports the GPUs every page of the range has */
	seg_query(&s, 0, 10, &q);
	KUNIT_EXPECT_EQ(test, 0ull, q.accessed_gpus);
	seg_query(&s, 3, 6, &q);
	KUNIT_EXPECT_EQ(test, BIT_ULL(0), q.accessed_gpus);
	/* the host is one more accessor, unset on its own */
	seg_change(test, &s, 2, 8, CUFAB_ADVISE_SET_ACCESSED_BY, seg_host);
	seg_query(&s, 2, 8, &q);
	KUNIT_EXPECT_TRUE(test, q.accessed_host);
	seg_change(test, &s, 0, 10, CUFAB_ADVISE_UNSET_ACCESSED_BY, seg_host);
	seg_change(test, &s, 0, 10, CUFAB_ADVISE_UNSET_ACCESSED_BY,
		   seg_gpu(0, 0));
	KUNIT_ASSERT_EQ(test, 2u, s.nr);
	KUNIT_EXPECT_EQ(test, 4ull, s.seg[1].start);
	KUNIT_EXPECT_EQ(test, BIT_ULL(1), s.seg[1].adv.accessed_gpus);
	seg_check_shape(test, &s, 10);
	cufab_managed_segs_destroy(&s);
}

/* A page goes where it was last prefetched, else to its preference. */
static void nid_follows_prefetch_then_preference(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;

	seg_init(test, &s, 10);
	seg_change(test, &s, 0, 10, CUFAB_ADVISE_SET_PREFERRED_LOCATION,
		   seg_gpu(0, 1));
	seg_change(test, &s, 5, 10, 0, seg_gpu(1, 0));
	KUNIT_EXPECT_EQ(test, 1, cufab_managed_segs_nid(&s, 4));
	KUNIT_EXPECT_EQ(test, 0, cufab_managed_segs_nid(&s, 5));
	KUNIT_EXPECT_EQ(test, 0, cufab_managed_segs_nid(&s, 9));
	/* a prefetch records the last location, not an accumulation */
	seg_change(test, &s, 0, 10, 0, seg_host);
	seg_query(&s, 0, 10, &q);
	KUNIT_EXPECT_EQ(test, (u32)CUFAB_LOC_HOST, q.prefetch.type);
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE, cufab_managed_segs_nid(&s, 9));
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	cufab_managed_segs_destroy(&s);
}

/* An allocation of no page: one empty segment, changes of nothing. */
static void no_page_allocation(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_advice q;

	seg_init(test, &s, 0);
	seg_change(test, &s, 0, 0, CUFAB_ADVISE_SET_READ_MOSTLY, seg_host);
	KUNIT_EXPECT_EQ(test, 1u, s.nr);
	seg_query(&s, 0, 0, &q);
	KUNIT_EXPECT_FALSE(test, q.read_mostly);
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE, cufab_managed_segs_nid(&s, 0));
	cufab_managed_segs_destroy(&s);
}

/* ---- randomised, against a per-page model ---- */

struct seg_page {
	bool read_mostly;
	bool host;
	u64 gpus;
	u32 pref_type;
	s32 pref_id;
	u32 pf_type;
	s32 pf_id;
};

static void seg_model_apply(struct seg_page *p, u32 advice,
			    const struct cufab_managed_loc *loc)
{
	bool host = loc->type != CUFAB_LOC_DEVICE;

	switch (advice) {
	case CUFAB_ADVISE_SET_READ_MOSTLY:
		p->read_mostly = true;
		break;
	case CUFAB_ADVISE_UNSET_READ_MOSTLY:
		p->read_mostly = false;
		break;
	case CUFAB_ADVISE_SET_PREFERRED_LOCATION:
		p->pref_type = loc->type;
		p->pref_id = loc->id;
		break;
	case CUFAB_ADVISE_UNSET_PREFERRED_LOCATION:
		p->pref_type = 0;
		break;
	case CUFAB_ADVISE_SET_ACCESSED_BY:
		if (host)
			p->host = true;
		else
			p->gpus |= BIT_ULL(loc->id);
		break;
	case CUFAB_ADVISE_UNSET_ACCESSED_BY:
		if (host)
			p->host = false;
		else
			p->gpus &= ~BIT_ULL(loc->id);
		break;
	default:
		p->pf_type = loc->type;
		p->pf_id = loc->id;
		break;
	}
}

/* Every page's own query, and one random range's fold, match the model. */
static void seg_model_compare(struct kunit *test,
			      const struct cufab_managed_segs *s,
			      const struct seg_page *m, u64 first, u64 last)
{
	struct cufab_managed_advice q;
	bool rm = true, host = true;
	u64 gpus = U64_MAX, i;

	for (i = 0; i < SEG_N; i++) {
		seg_query(s, i, i + 1, &q);
		KUNIT_ASSERT_EQ(test, m[i].read_mostly, q.read_mostly);
		KUNIT_ASSERT_EQ(test, m[i].host, q.accessed_host);
		KUNIT_ASSERT_EQ(test, m[i].gpus, q.accessed_gpus);
		KUNIT_ASSERT_EQ(test, m[i].pref_type, q.preferred.type);
		if (m[i].pref_type)
			KUNIT_ASSERT_EQ(test, m[i].pref_id, q.preferred.id);
		KUNIT_ASSERT_EQ(test, m[i].pf_type, q.prefetch.type);
		if (m[i].pf_type)
			KUNIT_ASSERT_EQ(test, m[i].pf_id, q.prefetch.id);
	}
	for (i = first; i < last; i++) {
		rm &= m[i].read_mostly;
		host &= m[i].host;
		gpus &= m[i].gpus;
	}
	seg_query(s, first, last, &q);
	KUNIT_EXPECT_EQ(test, rm, q.read_mostly);
	KUNIT_EXPECT_EQ(test, host, q.accessed_host);
	KUNIT_EXPECT_EQ(test, gpus, q.accessed_gpus);
}

static void randomised_against_model(struct kunit *test)
{
	struct cufab_managed_segs s;
	struct cufab_managed_loc loc;
	struct seg_page *m;
	struct rnd_state rnd;
	u64 first, last, i;
	u32 step, advice;

	m = kunit_kcalloc(test, SEG_N, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	CUFAB_TEST_SEED(test, &rnd, MANAGED_SEG_TEST_SEED);
	seg_init(test, &s, SEG_N);
	for (step = 0; step < 2000; step++) {
		first = prandom_u32_state(&rnd) % (SEG_N + 1);
		last = first + prandom_u32_state(&rnd) % (SEG_N + 1 - first);
		/* 0 is a prefetch */
		advice = prandom_u32_state(&rnd) % 7;
		loc = seg_gpu(prandom_u32_state(&rnd) % 3, 0);
		if (!(prandom_u32_state(&rnd) % 3))
			loc = seg_host;
		seg_change(test, &s, first, last, advice, loc);
		for (i = first; i < last; i++)
			seg_model_apply(&m[i], advice, &loc);
		seg_check_shape(test, &s, SEG_N);
		first = prandom_u32_state(&rnd) % SEG_N;
		last = first + 1 + prandom_u32_state(&rnd) % (SEG_N - first);
		seg_model_compare(test, &s, m, first, last);
		if (test->status == KUNIT_FAILURE) {
			kunit_info(test, "step %u\n", step);
			break;
		}
	}
	cufab_managed_segs_destroy(&s);
}

static struct kunit_case managed_seg_cases[] = {
	KUNIT_CASE(fresh_is_one_plain_segment),
	KUNIT_CASE(empty_range_changes_nothing),
	KUNIT_CASE(whole_range_stays_one_segment),
	KUNIT_CASE(middle_splits_in_three_and_merges_back),
	KUNIT_CASE(edges_split_in_two),
	KUNIT_CASE(adjacent_equal_ranges_merge),
	KUNIT_CASE(overlapping_updates),
	KUNIT_CASE(nid_follows_prefetch_then_preference),
	KUNIT_CASE(no_page_allocation),
	KUNIT_CASE(randomised_against_model),
	{}
};

static struct kunit_suite cufab_managed_seg_suite = {
	.name = "cufab_managed_seg",
	.test_cases = managed_seg_cases,
};

kunit_test_suites(&cufab_managed_seg_suite);
