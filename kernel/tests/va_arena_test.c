// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the VA arena's gap search (kernel/va_arena.c): lowest fit,
 * alignment, a requested address, exhaustion, fragmentation, closed
 * pieces never carved again, and a randomised run against a page bitmap.
 * The arena here is mapped by no process, so carving is the search alone.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "cufab.h"
#include "kunit_rand.h"

/* Non-zero: replay a failing randomised run with the seed it printed. */
#define VA_ARENA_TEST_SEED	0

#define P	PAGE_SIZE
/* Where the test arenas start: aligned beyond any alignment asked here. */
#define A	BIT(40)

static struct cufab_va_arena *arena_new(struct kunit *test, unsigned long pages)
{
	struct cufab_va_arena *arena = cufab_va_arena_test_new(A, A + pages * P);

	KUNIT_ASSERT_NOT_NULL(test, arena);
	return arena;
}

static struct cufab_va *va_new(struct kunit *test, u64 length)
{
	struct cufab_va *va = kunit_kzalloc(test, sizeof(*va), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, va);
	va->length = length;
	return va;
}

/* Carve @length bytes: the start, or 0 when the arena refused. */
static unsigned long carve(struct kunit *test, struct cufab_va_arena *arena,
			   u64 length, u64 hint, u64 align)
{
	struct cufab_va *va = va_new(test, length);
	int ret = cufab_va_arena_test_carve(arena, va, hint, align);

	if (ret) {
		KUNIT_EXPECT_EQ(test, -ENOSPC, ret);
		return 0;
	}
	return va->start;
}

static void lowest_fit(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, 16);
	struct cufab_va *mid = va_new(test, P);

	KUNIT_EXPECT_EQ(test, A, carve(test, arena, P, 0, P));
	KUNIT_ASSERT_EQ(test, 0, cufab_va_arena_test_carve(arena, mid, 0, P));
	KUNIT_EXPECT_EQ(test, A + P, mid->start);
	KUNIT_EXPECT_EQ(test, A + 2 * P, carve(test, arena, 2 * P, 0, P));
	/* the freed range is the lowest fit again, for what fits in it */
	cufab_va_arena_test_erase(arena, mid);
	KUNIT_EXPECT_EQ(test, A + 4 * P, carve(test, arena, 2 * P, 0, P));
	KUNIT_EXPECT_EQ(test, A + P, carve(test, arena, P, 0, P));
	cufab_va_arena_test_put(arena);
}

static void aligned_starts(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, 64);
	unsigned long at;

	KUNIT_EXPECT_EQ(test, A, carve(test, arena, P, 0, P));
	/* the next 4-page boundary, not the next page */
	KUNIT_EXPECT_EQ(test, A + 4 * P, carve(test, arena, P, 0, 4 * P));
	at = carve(test, arena, 3 * P, 0, 16 * P);
	KUNIT_EXPECT_EQ(test, A + 16 * P, at);
	/* the pages skipped for alignment are still free for the next */
	KUNIT_EXPECT_EQ(test, A + P, carve(test, arena, 3 * P, 0, P));
	/* an alignment as large as the rest of the arena: no room */
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, P, 0, 64 * P));
	cufab_va_arena_test_put(arena);
}

static void requested_address(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, 16);

	/* a free address is honoured exactly, alignment aside */
	KUNIT_EXPECT_EQ(test, A + 5 * P, carve(test, arena, 2 * P, A + 5 * P, P));
	/* one over a reservation, or partly, goes to the lowest fit */
	KUNIT_EXPECT_EQ(test, A, carve(test, arena, P, A + 5 * P, P));
	KUNIT_EXPECT_EQ(test, A + P, carve(test, arena, 2 * P, A + 4 * P, P));
	/* one outside the arena, or running past its end, likewise */
	KUNIT_EXPECT_EQ(test, A + 3 * P, carve(test, arena, P, A - P, P));
	KUNIT_EXPECT_EQ(test, A + 7 * P, carve(test, arena, 2 * P, A + 15 * P, P));
	/* the last page exactly */
	KUNIT_EXPECT_EQ(test, A + 15 * P, carve(test, arena, P, A + 15 * P, P));
	cufab_va_arena_test_put(arena);
}

static void exhaustion(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, 8);
	unsigned long i;

	/* longer than the arena, and a length whose alignment overflows */
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, 9 * P, 0, P));
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, U64_MAX & PAGE_MASK, 0,
					 2 * P));
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, A + i * P, carve(test, arena, P, 0, P));
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, P, 0, P));
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, P, A, P));
	cufab_va_arena_test_put(arena);
}

static void fragmentation(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, 16);
	struct cufab_va *va[16];
	unsigned long i;

	for (i = 0; i < 16; i++) {
		va[i] = va_new(test, P);
		KUNIT_ASSERT_EQ(test, 0,
				cufab_va_arena_test_carve(arena, va[i], 0, P));
	}
	/* half the arena free, in holes of one page */
	for (i = 0; i < 16; i += 2)
		cufab_va_arena_test_erase(arena, va[i]);
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, 2 * P, 0, P));
	/* two holes joined: the first fit of two pages */
	cufab_va_arena_test_erase(arena, va[9]);
	KUNIT_EXPECT_EQ(test, A + 8 * P, carve(test, arena, 2 * P, 0, P));
	/* an aligned fit inside the three-page hole [12, 15) */
	cufab_va_arena_test_erase(arena, va[13]);
	KUNIT_EXPECT_EQ(test, A + 12 * P, carve(test, arena, 2 * P, 0, 2 * P));
	KUNIT_EXPECT_EQ(test, A, carve(test, arena, P, 0, P));
	cufab_va_arena_test_put(arena);
}

/* The range of a closed piece of the arena is never carved again. */
static void closed_piece_skipped(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, 8);

	KUNIT_ASSERT_EQ(test, 0, cufab_va_arena_test_close(arena, A, 4 * P));
	KUNIT_EXPECT_EQ(test, A + 4 * P, carve(test, arena, P, 0, P));
	KUNIT_EXPECT_EQ(test, A + 5 * P, carve(test, arena, P, A + P, P));
	KUNIT_EXPECT_EQ(test, 0ul, carve(test, arena, 3 * P, 0, P));
	cufab_va_arena_test_put(arena);
}

/* ---- randomised, against a bitmap of the arena's pages ---- */

#define RA_N	64

/* The lowest start of a free run of @span pages, or -1. */
static long ra_lowest_run(const unsigned long *used, unsigned long span)
{
	unsigned long i, run = 0;

	for (i = 0; i < RA_N; i++) {
		run = test_bit(i, used) ? 0 : run + 1;
		if (run == span)
			return i + 1 - span;
	}
	return -1;
}

static bool ra_free(const unsigned long *used, unsigned long first,
		    unsigned long n)
{
	return first + n <= RA_N &&
	       find_next_bit(used, first + n, first) >= first + n;
}

static void randomised_against_bitmap(struct kunit *test)
{
	struct cufab_va_arena *arena = arena_new(test, RA_N);
	DECLARE_BITMAP(used, RA_N) = {};
	struct cufab_va *live[RA_N];
	unsigned long n = 0, i, pages, align, hint, first, step;
	struct rnd_state rnd;
	struct cufab_va *va;
	long want;
	int ret;

	CUFAB_TEST_SEED(test, &rnd, VA_ARENA_TEST_SEED);
	for (step = 0; step < 3000 && test->status != KUNIT_FAILURE; step++) {
		if (n && prandom_u32_state(&rnd) % 2) {
			i = prandom_u32_state(&rnd) % n;
			va = live[i];
			bitmap_clear(used, (va->start - A) / P, va->length / P);
			cufab_va_arena_test_erase(arena, va);
			live[i] = live[--n];
			continue;
		}
		pages = 1 + prandom_u32_state(&rnd) % 8;
		align = 1UL << (prandom_u32_state(&rnd) % 4);
		hint = prandom_u32_state(&rnd) % 2 ?
		       prandom_u32_state(&rnd) % (RA_N + 4) : 0;
		/*
		 * A free hint is taken as given; else the lowest hole with
		 * room for the length and the alignment's slack, aligned.
		 */
		if (hint && ra_free(used, hint, pages))
			want = hint;
		else
			want = ra_lowest_run(used, pages + align - 1);
		if (want >= 0 && (unsigned long)want != hint)
			want = ALIGN(want, align);
		va = va_new(test, pages * P);
		ret = cufab_va_arena_test_carve(arena, va, hint ? A + hint * P : 0,
						align * P);
		if (want < 0) {
			KUNIT_EXPECT_EQ(test, -ENOSPC, ret);
			continue;
		}
		KUNIT_ASSERT_EQ(test, 0, ret);
		first = (va->start - A) / P;
		KUNIT_EXPECT_EQ(test, (unsigned long)want, first);
		KUNIT_ASSERT_TRUE(test, ra_free(used, first, pages));
		bitmap_set(used, first, pages);
		live[n++] = va;
	}
	if (test->status == KUNIT_FAILURE)
		kunit_info(test, "step %lu\n", step);
	cufab_va_arena_test_put(arena);
}

static struct kunit_case va_arena_cases[] = {
	KUNIT_CASE(lowest_fit),
	KUNIT_CASE(aligned_starts),
	KUNIT_CASE(requested_address),
	KUNIT_CASE(exhaustion),
	KUNIT_CASE(fragmentation),
	KUNIT_CASE(closed_piece_skipped),
	KUNIT_CASE(randomised_against_bitmap),
	{}
};

static struct kunit_suite cufab_va_arena_suite = {
	.name = "cufab_va_arena",
	.test_cases = va_arena_cases,
};

kunit_test_suites(&cufab_va_arena_suite);
