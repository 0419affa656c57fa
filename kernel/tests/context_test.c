// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: context flag validation (kernel/context.c).
 */
#include <kunit/test.h>
#include <linux/bits.h>

#include "cufab.h"

/*
 * Every single CUctx_flags bit: scheduling policies are values, of which
 * only AUTO (0), SPIN, YIELD and BLOCKING_SYNC exist; other bits are
 * accepted exactly when CUFAB_CTX_FLAGS_VALID has them.
 */
static void ctx_flags_validation(struct kunit *test)
{
	const u32 sched_mask = 0x7;
	u32 bit;

	KUNIT_EXPECT_TRUE(test, cufab_ctx_flags_valid(0));
	for (bit = 0; bit < 32; bit++) {
		u32 flag = BIT(bit);

		KUNIT_EXPECT_EQ_MSG(test, cufab_ctx_flags_valid(flag),
				    !!(flag & CUFAB_CTX_FLAGS_VALID),
				    "flag 0x%x", flag);
	}
	/* two policies at once */
	KUNIT_EXPECT_FALSE(test, cufab_ctx_flags_valid(0x3));
	KUNIT_EXPECT_FALSE(test, cufab_ctx_flags_valid(0x5));
	KUNIT_EXPECT_FALSE(test, cufab_ctx_flags_valid(0x6));
	KUNIT_EXPECT_FALSE(test, cufab_ctx_flags_valid(sched_mask));
	/* a policy with other valid flags */
	KUNIT_EXPECT_TRUE(test, cufab_ctx_flags_valid(0x4 | 0x8 | 0x80));
}

static struct kunit_case cufab_context_cases[] = {
	KUNIT_CASE(ctx_flags_validation),
	{}
};

static struct kunit_suite cufab_context_suite = {
	.name = "cufab_context",
	.test_cases = cufab_context_cases,
};

kunit_test_suites(&cufab_context_suite);
