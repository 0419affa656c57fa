/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeding of the KUnit runs against a model: a new seed every time, so
 * that each run tries other operations, printed, so that a failing run can
 * be replayed by building with the suite's *_TEST_SEED set to it.
 */
#ifndef _CUFAB_KUNIT_RAND_H
#define _CUFAB_KUNIT_RAND_H

#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/random.h>

/* Seed @rnd with @fixed, or a random seed when it is 0; @knob names it. */
static inline void cufab_test_seed(struct kunit *test, struct rnd_state *rnd,
				   u32 fixed, const char *knob)
{
	u32 seed = fixed ? fixed : get_random_u32();

	kunit_info(test, "seed %u (set %s to replay)\n", seed, knob);
	prandom_seed_state(rnd, seed);
}

/* cufab_test_seed() with the value and the name of the macro @knob. */
#define CUFAB_TEST_SEED(test, rnd, knob) \
	cufab_test_seed(test, rnd, knob, #knob)

#endif /* _CUFAB_KUNIT_RAND_H */
