// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: binding maps (kernel/bindmap.c): overlap refusal, lookups, the
 * unbind rules (one bind, adjacent binds, gaps, ranges ending inside a
 * bind, no bind at the offset, another owner), owner and tag removal, the
 * allocation references bindings hold, and a randomised run against an
 * array model of a small offset space.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "kunit_rand.h"

/* Non-zero: replay a failing randomised run with the seed it printed. */
#define BINDMAP_TEST_SEED	0

#define U	0x1000ULL	/* offset unit of the tests */

static char owner_a, owner_b, tag_x;
#define A	((const void *)&owner_a)
#define B	((const void *)&owner_b)
#define X	((const void *)&tag_x)

struct bindmap_test_ctx {
	struct cufab_alloc *alloc;
	struct cufab_bindmap map;
	u64 live;
};

/* Linear host memory: needs no GPU, the map only counts references. */
static int bindmap_test_init(struct kunit *test)
{
	const struct cufab_alloc_desc desc = {
		.location_type = CUFAB_LOC_HOST,
		.location_id = -1,
		.length = 64 * U,
		.ops = &cufab_linear_alloc_ops,
	};
	struct bindmap_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->live = cufab_live_objects();
	ctx->alloc = cufab_alloc_create(&desc);
	if (IS_ERR(ctx->alloc))
		return PTR_ERR(ctx->alloc);
	cufab_bindmap_init(&ctx->map);
	test->priv = ctx;
	return 0;
}

/* Whatever a case left in the map is freed; nothing may leak. */
static void bindmap_test_exit(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	LIST_HEAD(out);

	if (!ctx)	/* init failed */
		return;
	cufab_bindmap_remove_all(&ctx->map, &out);
	cufab_bindings_free(&out);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&ctx->alloc->ref));
	cufab_alloc_put(ctx->alloc);
	KUNIT_EXPECT_EQ(test, ctx->live, cufab_live_objects());
}

static struct cufab_binding *bind(struct kunit *test, u64 off, u64 size,
				  const void *owner, const void *tag)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b;

	b = cufab_binding_new(off * U, size * U, ctx->alloc, 0, owner, tag);
	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

static int insert(struct kunit *test, u64 off, u64 size, const void *owner,
		  const void *tag)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b = bind(test, off, size, owner, tag);
	int ret;

	ret = cufab_bindmap_insert(&ctx->map, b, NULL);
	if (ret)
		cufab_binding_free(b);
	return ret;
}

static int unbind(struct kunit *test, u64 off, u64 size, const void *owner,
		  u64 *bad, u64 *freed)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b;
	LIST_HEAD(out);
	u64 n = 0;
	int ret;

	ret = cufab_bindmap_remove_range(&ctx->map, off * U, size * U, owner,
					 &out, bad);
	list_for_each_entry(b, &out, list)
		n++;
	cufab_bindings_free(&out);
	if (freed)
		*freed = n;
	return ret;
}

/* @owner's unbind of [@off, @off + @size) fails with @err, blaming @at. */
static void expect_refused(struct kunit *test, int err, u64 off, u64 size,
			   const void *owner, u64 at)
{
	u64 bad = 0;

	KUNIT_EXPECT_EQ(test, err, unbind(test, off, size, owner, &bad, NULL));
	KUNIT_EXPECT_EQ(test, at * U, bad);
}

static void new_binding_takes_reference(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b;

	b = bind(test, 3, 2, A, X);
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&ctx->alloc->ref));
	KUNIT_EXPECT_EQ(test, 3 * U, b->offset);
	KUNIT_EXPECT_EQ(test, 2 * U, b->size);
	KUNIT_EXPECT_PTR_EQ(test, A, b->owner);
	KUNIT_EXPECT_PTR_EQ(test, X, b->tag);
	KUNIT_EXPECT_EQ(test, task_tgid_nr(current), b->pid);
	cufab_binding_free(b);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&ctx->alloc->ref));
}

static void insert_refuses_overlap(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b, *clash = NULL;

	KUNIT_ASSERT_EQ(test, 0, insert(test, 4, 4, A, NULL));	/* [4, 8) */
	KUNIT_ASSERT_EQ(test, 0, insert(test, 10, 2, A, NULL));	/* [10, 12) */
	/* touching either side is fine */
	KUNIT_EXPECT_EQ(test, 0, insert(test, 2, 2, A, NULL));
	KUNIT_EXPECT_EQ(test, 0, insert(test, 8, 2, B, NULL));
	KUNIT_EXPECT_EQ(test, 4ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, 10 * U, ctx->map.bytes);

	/* inside, across a start, across an end, enclosing, equal */
	KUNIT_EXPECT_EQ(test, -EEXIST, insert(test, 5, 1, B, NULL));
	KUNIT_EXPECT_EQ(test, -EEXIST, insert(test, 1, 2, B, NULL));
	KUNIT_EXPECT_EQ(test, -EEXIST, insert(test, 11, 3, B, NULL));
	KUNIT_EXPECT_EQ(test, -EEXIST, insert(test, 0, 20, B, NULL));
	KUNIT_EXPECT_EQ(test, -EEXIST, insert(test, 10, 2, B, NULL));

	b = bind(test, 7, 5, B, NULL);
	KUNIT_EXPECT_EQ(test, -EEXIST, cufab_bindmap_insert(&ctx->map, b,
							    &clash));
	KUNIT_ASSERT_NOT_NULL(test, clash);
	/* one of the bindings it overlaps, named for the log line */
	KUNIT_EXPECT_LT(test, clash->offset, 12 * U);
	KUNIT_EXPECT_GT(test, clash->offset + clash->size, 7 * U);
	cufab_binding_free(b);
	KUNIT_EXPECT_EQ(test, 4ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, 10 * U, ctx->map.bytes);
}

static void insert_refuses_empty_and_wrap(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b;

	b = cufab_binding_new(U, 0, ctx->alloc, 0, A, NULL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_bindmap_insert(&ctx->map, b,
							    NULL));
	cufab_binding_free(b);
	b = cufab_binding_new(U64_MAX - U + 1, 2 * U, ctx->alloc, 0, A, NULL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_bindmap_insert(&ctx->map, b,
							    NULL));
	cufab_binding_free(b);
	/* the last byte of the space is bindable */
	b = cufab_binding_new(U64_MAX - U + 1, U - 1, ctx->alloc, 0, A, NULL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 0, cufab_bindmap_insert(&ctx->map, b, NULL));
	KUNIT_EXPECT_EQ(test, 1ull, ctx->map.count);
}

static void lookup_and_walk(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b;

	KUNIT_EXPECT_NULL(test, cufab_bindmap_lookup(&ctx->map, 0));
	KUNIT_EXPECT_NULL(test, cufab_bindmap_first_from(&ctx->map, 0));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 2, 2, A, NULL));	/* [2, 4) */
	KUNIT_ASSERT_EQ(test, 0, insert(test, 8, 1, A, NULL));	/* [8, 9) */
	KUNIT_ASSERT_EQ(test, 0, insert(test, 5, 3, A, NULL));	/* [5, 8) */

	KUNIT_EXPECT_NULL(test, cufab_bindmap_lookup(&ctx->map, 2 * U - 1));
	b = cufab_bindmap_lookup(&ctx->map, 2 * U);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 2 * U, b->offset);
	b = cufab_bindmap_lookup(&ctx->map, 4 * U - 1);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 2 * U, b->offset);
	KUNIT_EXPECT_NULL(test, cufab_bindmap_lookup(&ctx->map, 4 * U));
	b = cufab_bindmap_lookup(&ctx->map, 8 * U);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 8 * U, b->offset);
	KUNIT_EXPECT_NULL(test, cufab_bindmap_lookup(&ctx->map, 9 * U));

	/* first_from: containing, else the next one */
	b = cufab_bindmap_first_from(&ctx->map, 0);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 2 * U, b->offset);
	b = cufab_bindmap_first_from(&ctx->map, 3 * U);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 2 * U, b->offset);
	b = cufab_bindmap_first_from(&ctx->map, 4 * U);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 5 * U, b->offset);
	KUNIT_EXPECT_NULL(test, cufab_bindmap_first_from(&ctx->map, 9 * U));

	/* in offset order whatever the insertion order */
	b = cufab_bindmap_first_from(&ctx->map, 0);
	b = cufab_bindmap_next(b);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 5 * U, b->offset);
	b = cufab_bindmap_next(b);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, 8 * U, b->offset);
	KUNIT_EXPECT_NULL(test, cufab_bindmap_next(b));
}

static void unbind_one(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	u64 n = 0;

	KUNIT_ASSERT_EQ(test, 0, insert(test, 4, 2, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 6, 2, A, NULL));
	KUNIT_EXPECT_EQ(test, 0, unbind(test, 4, 2, A, NULL, &n));
	KUNIT_EXPECT_EQ(test, 1ull, n);
	KUNIT_EXPECT_EQ(test, 1ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, 2 * U, ctx->map.bytes);
	KUNIT_EXPECT_NULL(test, cufab_bindmap_lookup(&ctx->map, 4 * U));
	KUNIT_EXPECT_NOT_NULL(test, cufab_bindmap_lookup(&ctx->map, 6 * U));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&ctx->alloc->ref));
}

static void unbind_adjacent_run(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	u64 n = 0;

	KUNIT_ASSERT_EQ(test, 0, insert(test, 1, 1, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 2, 3, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 5, 1, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 6, 2, A, NULL));
	/* the middle two, then the rest */
	KUNIT_EXPECT_EQ(test, 0, unbind(test, 2, 4, A, NULL, &n));
	KUNIT_EXPECT_EQ(test, 2ull, n);
	KUNIT_EXPECT_EQ(test, 2ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, -EINVAL, unbind(test, 1, 7, A, NULL, NULL));
	KUNIT_EXPECT_EQ(test, 0, unbind(test, 1, 1, A, NULL, NULL));
	KUNIT_EXPECT_EQ(test, 0, unbind(test, 6, 2, A, NULL, NULL));
	KUNIT_EXPECT_EQ(test, 0ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, 0ull, ctx->map.bytes);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&ctx->alloc->ref));
}

/* Every refusal names the offset where the rule broke, and changes nothing. */
static void unbind_refusals(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;

	KUNIT_ASSERT_EQ(test, 0, insert(test, 2, 2, A, NULL));	/* [2, 4) */
	KUNIT_ASSERT_EQ(test, 0, insert(test, 4, 2, A, NULL));	/* [4, 6) */
	KUNIT_ASSERT_EQ(test, 0, insert(test, 8, 2, A, NULL));	/* [8, 10) */
	KUNIT_ASSERT_EQ(test, 0, insert(test, 10, 2, B, NULL));	/* [10, 12) */

	/* no bind starts there: in a hole, or inside a bind */
	expect_refused(test, -ENOENT, 0, 2, A, 0);
	expect_refused(test, -ENOENT, 3, 1, A, 3);
	/* ends inside the first bind, inside a later one */
	expect_refused(test, -EINVAL, 2, 1, A, 2);
	expect_refused(test, -EINVAL, 2, 3, A, 4);
	/* a gap before the end, running off the last bind */
	expect_refused(test, -EINVAL, 2, 8, A, 6);
	expect_refused(test, -EINVAL, 8, 6, A, 12);
	/* someone else's: alone, or in a run with one's own */
	expect_refused(test, -EPERM, 10, 2, A, 10);
	expect_refused(test, -EPERM, 8, 4, A, 10);
	expect_refused(test, -EPERM, 2, 4, B, 2);
	/* a malformed range is invalid whoever owns it */
	KUNIT_EXPECT_EQ(test, -EINVAL, unbind(test, 8, 3, A, NULL, NULL));
	/* size 0, wrapping */
	KUNIT_EXPECT_EQ(test, -EINVAL, unbind(test, 2, 0, A, NULL, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_bindmap_remove_range(&ctx->map, 2 * U, U64_MAX,
						   A, NULL, NULL));

	KUNIT_EXPECT_EQ(test, 4ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, 8 * U, ctx->map.bytes);
	KUNIT_EXPECT_EQ(test, 5u, kref_read(&ctx->alloc->ref));
	/* and the right owner still can */
	KUNIT_EXPECT_EQ(test, 0, unbind(test, 10, 2, B, NULL, NULL));
	KUNIT_EXPECT_EQ(test, 0, unbind(test, 2, 4, A, NULL, NULL));
}

static void remove_owner_and_tag(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b;
	LIST_HEAD(out);
	u64 n;

	KUNIT_ASSERT_EQ(test, 0, insert(test, 0, 1, A, X));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 1, 1, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 2, 1, B, X));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 3, 1, A, X));
	KUNIT_ASSERT_EQ(test, 0, insert(test, 4, 1, B, NULL));

	/* tag: only A's bindings made through X */
	n = cufab_bindmap_remove_owner(&ctx->map, A, X, &out);
	KUNIT_EXPECT_EQ(test, 2ull, n);
	list_for_each_entry(b, &out, list) {
		KUNIT_EXPECT_PTR_EQ(test, A, b->owner);
		KUNIT_EXPECT_PTR_EQ(test, X, b->tag);
	}
	cufab_bindings_free(&out);
	KUNIT_EXPECT_EQ(test, 3ull, ctx->map.count);
	/* no tag: everything of B */
	n = cufab_bindmap_remove_owner(&ctx->map, B, NULL, &out);
	KUNIT_EXPECT_EQ(test, 2ull, n);
	cufab_bindings_free(&out);
	KUNIT_EXPECT_EQ(test, 1ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, U, ctx->map.bytes);
	KUNIT_EXPECT_NOT_NULL(test, cufab_bindmap_lookup(&ctx->map, U));
	n = cufab_bindmap_remove_owner(&ctx->map, B, NULL, &out);
	KUNIT_EXPECT_EQ(test, 0ull, n);
	KUNIT_EXPECT_TRUE(test, list_empty(&out));
}

static void remove_all_empties(struct kunit *test)
{
	struct bindmap_test_ctx *ctx = test->priv;
	LIST_HEAD(out);
	u64 i, n = 0;
	struct cufab_binding *b;

	for (i = 0; i < 40; i++)
		KUNIT_ASSERT_EQ(test, 0, insert(test, (i * 7) % 40, 1,
						i % 2 ? A : B, NULL));
	KUNIT_EXPECT_EQ(test, 41u, kref_read(&ctx->alloc->ref));
	cufab_bindmap_remove_all(&ctx->map, &out);
	list_for_each_entry(b, &out, list)
		n++;
	KUNIT_EXPECT_EQ(test, 40ull, n);
	KUNIT_EXPECT_EQ(test, 0ull, ctx->map.count);
	KUNIT_EXPECT_EQ(test, 0ull, ctx->map.bytes);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&ctx->map.root));
	cufab_bindings_free(&out);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&ctx->alloc->ref));
}

/* ---- randomised, against an array model of units [0, BM_N) ---- */

#define BM_N		48
#define BM_OPS		3000

/* Per unit: 0 free, else the start unit + 1 of its bind; and its owner. */
struct bindmap_model {
	u32 start[BM_N];
	u32 len[BM_N];		/* at the start unit */
	const void *owner[BM_N];
};

static int bindmap_model_unbind_rule(struct bindmap_model *m, u32 off,
				     u32 len, const void *owner)
{
	u32 cur = off, end = off + len;
	bool eperm = false;

	if (!len)
		return -EINVAL;
	if (off >= BM_N || m->start[off] != off + 1)
		return -ENOENT;
	while (cur < end) {
		if (cur >= BM_N || m->start[cur] != cur + 1)
			return -EINVAL;
		if (cur + m->len[cur] > end)
			return -EINVAL;
		eperm |= m->owner[cur] != owner;
		cur += m->len[cur];
	}
	return eperm ? -EPERM : 0;
}

static void bindmap_model_set(struct bindmap_model *m, u32 off, u32 len,
			      const void *owner, bool bound)
{
	u32 u;

	for (u = off; u < off + len; u++) {
		m->start[u] = bound ? off + 1 : 0;
		m->owner[u] = bound ? owner : NULL;
	}
	m->len[off] = bound ? len : 0;
}

static void bindmap_random_op(struct kunit *test, struct rnd_state *rnd,
			      struct bindmap_model *m)
{
	struct bindmap_test_ctx *ctx = test->priv;
	u32 r = prandom_u32_state(rnd) % 8, off, len, u, cur;
	const void *owner = prandom_u32_state(rnd) % 4 ? A : B;
	struct cufab_binding *b;
	bool empty = true;
	int want;

	off = prandom_u32_state(rnd) % BM_N;
	len = 1 + prandom_u32_state(rnd) % 6;
	if (off + len > BM_N)
		len = BM_N - off;
	switch (r) {
	case 0: case 1: case 2:	/* bind */
		for (u = off; u < off + len; u++)
			empty &= !m->start[u];
		KUNIT_ASSERT_EQ(test, empty ? 0 : -EEXIST,
				insert(test, off, len, owner, NULL));
		if (empty)
			bindmap_model_set(m, off, len, owner, true);
		break;
	case 3: case 4: case 5:	/* unbind: whole runs, or anything */
		if (r != 5 && m->start[off]) {
			off = m->start[off] - 1;
			len = m->len[off];
			/* and the bind right after it, when there is one */
			if (r == 4 && off + len < BM_N &&
			    m->start[off + len] == off + len + 1)
				len += m->len[off + len];
		}
		want = bindmap_model_unbind_rule(m, off, len, owner);
		KUNIT_ASSERT_EQ(test, want, unbind(test, off, len, owner,
						   NULL, NULL));
		for (cur = off; !want && cur < off + len; cur += u) {
			u = m->len[cur];
			bindmap_model_set(m, cur, u, NULL, false);
		}
		break;
	case 6:	/* lookup */
		b = cufab_bindmap_lookup(&ctx->map, off * U + 1);
		if (!m->start[off]) {
			KUNIT_ASSERT_NULL(test, b);
		} else {
			KUNIT_ASSERT_NOT_NULL(test, b);
			KUNIT_ASSERT_EQ(test, (m->start[off] - 1) * U,
					b->offset);
			KUNIT_ASSERT_PTR_EQ(test, m->owner[off], b->owner);
		}
		break;
	default:	/* first_from */
		b = cufab_bindmap_first_from(&ctx->map, off * U);
		for (u = off; u < BM_N && !m->start[u]; u++)
			;
		if (u == BM_N) {
			KUNIT_ASSERT_NULL(test, b);
		} else {
			KUNIT_ASSERT_NOT_NULL(test, b);
			KUNIT_ASSERT_EQ(test, (m->start[u] - 1) * U,
					b->offset);
		}
		break;
	}
}

static void bindmap_model_compare(struct kunit *test,
				  struct bindmap_model *m)
{
	struct bindmap_test_ctx *ctx = test->priv;
	struct cufab_binding *b = cufab_bindmap_first_from(&ctx->map, 0);
	u64 n = 0, bytes = 0;
	u32 u;

	for (u = 0; u < BM_N; u++) {
		if (m->start[u] != u + 1)
			continue;
		KUNIT_ASSERT_NOT_NULL(test, b);
		KUNIT_ASSERT_EQ(test, u * U, b->offset);
		KUNIT_ASSERT_EQ(test, m->len[u] * U, b->size);
		KUNIT_ASSERT_PTR_EQ(test, m->owner[u], b->owner);
		n++;
		bytes += b->size;
		b = cufab_bindmap_next(b);
	}
	KUNIT_ASSERT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, n, ctx->map.count);
	KUNIT_ASSERT_EQ(test, bytes, ctx->map.bytes);
	KUNIT_ASSERT_EQ(test, n + 1, (u64)kref_read(&ctx->alloc->ref));
}

static void random_against_model(struct kunit *test)
{
	struct bindmap_model *m;
	struct rnd_state rnd;
	int i;

	CUFAB_TEST_SEED(test, &rnd, BINDMAP_TEST_SEED);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	for (i = 0; i < BM_OPS; i++) {
		bindmap_random_op(test, &rnd, m);
		bindmap_model_compare(test, m);
	}
}

static struct kunit_case cufab_bindmap_cases[] = {
	KUNIT_CASE(new_binding_takes_reference),
	KUNIT_CASE(insert_refuses_overlap),
	KUNIT_CASE(insert_refuses_empty_and_wrap),
	KUNIT_CASE(lookup_and_walk),
	KUNIT_CASE(unbind_one),
	KUNIT_CASE(unbind_adjacent_run),
	KUNIT_CASE(unbind_refusals),
	KUNIT_CASE(remove_owner_and_tag),
	KUNIT_CASE(remove_all_empties),
	KUNIT_CASE(random_against_model),
	{}
};

static struct kunit_suite cufab_bindmap_suite = {
	.name = "cufab_bindmap",
	.init = bindmap_test_init,
	.exit = bindmap_test_exit,
	.test_cases = cufab_bindmap_cases,
};

kunit_test_suites(&cufab_bindmap_suite);
