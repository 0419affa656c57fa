// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: range logic of the VMM calls (kernel/va.c): cuMemMap's argument
 * rules, containment without wrap-around, and who may touch a mapping.
 */
#include <kunit/test.h>
#include <linux/bits.h>

#include "cufab.h"

#define G	(2ULL << 20)

static void range_ok_rejects_empty_and_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cufab_range_ok(0x1000, 1));
	KUNIT_EXPECT_FALSE(test, cufab_range_ok(0x1000, 0));
	KUNIT_EXPECT_FALSE(test, cufab_range_ok(U64_MAX - 10, 11));
	KUNIT_EXPECT_TRUE(test, cufab_range_ok(U64_MAX - 10, 10));
}

static void range_inside(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cufab_range_inside(10 * G, 2 * G, 10 * G, 2 * G));
	KUNIT_EXPECT_TRUE(test, cufab_range_inside(11 * G, G, 10 * G, 2 * G));
	KUNIT_EXPECT_FALSE(test, cufab_range_inside(11 * G, 2 * G, 10 * G, 2 * G));
	KUNIT_EXPECT_FALSE(test, cufab_range_inside(9 * G, 2 * G, 10 * G, 4 * G));
	KUNIT_EXPECT_FALSE(test, cufab_range_inside(12 * G, G, 10 * G, 2 * G));
	/* a huge length must not wrap around into "inside" */
	KUNIT_EXPECT_FALSE(test, cufab_range_inside(11 * G, U64_MAX - G, 10 * G,
						    2 * G));
}

static void map_args(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, 2 * G, 0, 2 * G, G), 0);
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, G, G, 2 * G, G), 0);
	/* misaligned address, length, offset */
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G + 4096, G, 0, 2 * G, G),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, G + 4096, 0, 4 * G, G),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, G, 4096, 2 * G, G),
			-EINVAL);
	/* offset + length past the end, and overflowing */
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, 2 * G, G, 2 * G, G),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, 2 * G,
						   U64_MAX - G + 1, 2 * G, G),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cufab_map_args_check(4 * G, 0, 0, 2 * G, G),
			-EINVAL);
}

static void access_rules(struct kunit *test)
{
	struct cufab_va_map map = {};

	KUNIT_EXPECT_EQ(test, cufab_map_cpu_access(&map), CUFAB_ACCESS_NONE);
	map.gpu_read = BIT_ULL(2);
	KUNIT_EXPECT_EQ(test, cufab_map_cpu_access(&map), CUFAB_ACCESS_READ);
	KUNIT_EXPECT_EQ(test, cufab_map_dev_access(&map, 2), CUFAB_ACCESS_READ);
	KUNIT_EXPECT_EQ(test, cufab_map_dev_access(&map, 1), CUFAB_ACCESS_NONE);
	map.gpu_write = BIT_ULL(2);
	KUNIT_EXPECT_EQ(test, cufab_map_cpu_access(&map), CUFAB_ACCESS_RW);
	KUNIT_EXPECT_EQ(test, cufab_map_dev_access(&map, 2), CUFAB_ACCESS_RW);
	KUNIT_EXPECT_EQ(test, cufab_map_dev_access(&map, 64), CUFAB_ACCESS_NONE);
	map.gpu_read = 0;
	map.gpu_write = 0;
	map.host = CUFAB_ACCESS_READ;
	KUNIT_EXPECT_EQ(test, cufab_map_cpu_access(&map), CUFAB_ACCESS_READ);
	KUNIT_EXPECT_EQ(test, cufab_map_dev_access(&map, 0), CUFAB_ACCESS_NONE);
}

static struct kunit_case va_test_cases[] = {
	KUNIT_CASE(range_ok_rejects_empty_and_wrap),
	KUNIT_CASE(range_inside),
	KUNIT_CASE(map_args),
	KUNIT_CASE(access_rules),
	{}
};

static struct kunit_suite va_test_suite = {
	.name = "cufab_va",
	.test_cases = va_test_cases,
};

kunit_test_suite(va_test_suite);
