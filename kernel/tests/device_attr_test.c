// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: device attributes derived from features and topology
 * (kernel/device_attr.c, cufab_gpu_effective_features()).
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/numa.h>
#include <linux/slab.h>

#include "cufab.h"

struct attr_fixture {
	struct cufab_topo topo;
	s32 attrs[CUFAB_NUM_DEVICE_ATTRS];
};

static int attr_test_init(struct kunit *test)
{
	static const struct cufab_params p = {
		.num_gpus = 4,
		.mem_mib = 1024,
		.nvswitch = true,
	};
	struct attr_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	test->priv = f;
	return cufab_topo_build(&f->topo, &p);
}

static void attr_test_exit(struct kunit *test)
{
	struct attr_fixture *f = test->priv;

	cufab_topo_free(&f->topo);
}

/* Fill the table of GPU @g after setting its features. */
static s32 *fill(struct kunit *test, u32 g, u32 features)
{
	struct attr_fixture *f = test->priv;

	f->topo.gpus[g].features = features;
	cufab_gpu_attrs_fill(&f->topo, &f->topo.gpus[g], f->attrs);
	return f->attrs;
}

static void attrs_hopper_constants(struct kunit *test)
{
	s32 *a = fill(test, 2, CUFAB_DEV_F_ALL);

	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_COMPUTE_CAPABILITY_MAJOR], 9);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_COMPUTE_CAPABILITY_MINOR], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MULTIPROCESSOR_COUNT], 132);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_WARP_SIZE], 32);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MAX_THREADS_PER_BLOCK], 1024);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_COOPERATIVE_LAUNCH], 1);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_COOPERATIVE_MULTI_DEVICE_LAUNCH], 1);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_UNIFIED_ADDRESSING], 1);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED],
			1);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED],
			1);
	/* one locality domain spans the whole GPU */
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT],
			a[CUFAB_ATTR_MULTIPROCESSOR_COUNT]);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED],
			0);
	/* numbers CUDA does not define read 0 */
	KUNIT_EXPECT_EQ(test, a[0], 0);
	KUNIT_EXPECT_EQ(test, a[149], 0);
	KUNIT_EXPECT_EQ(test, a[150], 0);
}

static void attrs_location(struct kunit *test)
{
	struct attr_fixture *f = test->priv;
	s32 *a;

	f->topo.gpus[3].numa_node = NUMA_NO_NODE;
	a = fill(test, 3, CUFAB_DEV_F_ALL);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_PCI_BUS_ID], 0x41 + 3);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_PCI_DEVICE_ID], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_PCI_DOMAIN_ID], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MULTI_GPU_BOARD_GROUP_ID], 3);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_HOST_NUMA_ID], NUMA_NO_NODE);

	f->topo.gpus[3].numa_node = 0;
	a = fill(test, 3, CUFAB_DEV_F_ALL);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_HOST_NUMA_ID], 0);
}

static void attrs_all_features(struct kunit *test)
{
	s32 *a = fill(test, 0, CUFAB_DEV_F_ALL);

	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS],
			CUFAB_HAS_MANAGED_MEMORY);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_CONCURRENT_MANAGED_ACCESS],
			CUFAB_HAS_MANAGED_MEMORY);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MEMORY_POOLS_SUPPORTED],
			CUFAB_HAS_MEMORY_POOLS);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_HOST_NUMA_MEMORY_POOLS_SUPPORTED],
			CUFAB_HAS_MEMORY_POOLS);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_HOST_MEMORY_POOLS_SUPPORTED],
			CUFAB_HAS_MEMORY_POOLS);
	/* POSIX_FILE_DESCRIPTOR | FABRIC */
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES],
			CUFAB_HAS_MEMORY_POOLS ? 0x9 : 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_HANDLE_TYPE_FABRIC_SUPPORTED], 1);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MULTICAST_SUPPORTED], 1);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_SUPPORTED],
			1);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED],
			1);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED], 1);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED],
			1);
	/* a mask of CUlogicalEndpointIpcHandleType values: FABRIC is 1 */
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES],
			0x1);
}

static void attrs_no_features(struct kunit *test)
{
	s32 *a = fill(test, 1, 0);

	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_CONCURRENT_MANAGED_ACCESS], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MEMORY_POOLS_SUPPORTED], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_HANDLE_TYPE_FABRIC_SUPPORTED], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MULTICAST_SUPPORTED], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_SUPPORTED],
			0);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES],
			0);
	/* what every GPU does regardless of features */
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MANAGED_MEMORY],
			CUFAB_HAS_MANAGED_MEMORY);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED],
			1);
}

static void attrs_multicast_needs_nvswitch(struct kunit *test)
{
	struct attr_fixture *f = test->priv;
	s32 *a;

	f->topo.nvswitch = false;
	a = fill(test, 0, CUFAB_DEV_F_ALL);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MULTICAST_SUPPORTED], 0);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED],
			0);
	/* unicast endpoints do not need the switch */
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_SUPPORTED],
			1);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED], 1);
}

static void attrs_pools_without_fabric(struct kunit *test)
{
	s32 *a = fill(test, 0, CUFAB_DEV_F_MEMORY_POOLS);

	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MEMORY_POOLS_SUPPORTED],
			CUFAB_HAS_MEMORY_POOLS);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES],
			CUFAB_HAS_MEMORY_POOLS ? 0x1 : 0);
}

/*
 * An attribute that promises calls cufab lacks reads 0 on a GPU with every
 * feature; one whose calls exist follows the features.
 */
static void attrs_follow_api_families(struct kunit *test)
{
	static const struct {
		int attr;
		bool has;
	} fam[] = {
		{ CUFAB_ATTR_MEMORY_POOLS_SUPPORTED, CUFAB_HAS_MEMORY_POOLS },
		{ CUFAB_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES, CUFAB_HAS_MEMORY_POOLS },
		{ CUFAB_ATTR_HOST_NUMA_MEMORY_POOLS_SUPPORTED, CUFAB_HAS_MEMORY_POOLS },
		{ CUFAB_ATTR_HOST_MEMORY_POOLS_SUPPORTED, CUFAB_HAS_MEMORY_POOLS },
		{ CUFAB_ATTR_MANAGED_MEMORY, CUFAB_HAS_MANAGED_MEMORY },
		{ CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS, CUFAB_HAS_MANAGED_MEMORY },
		{ CUFAB_ATTR_CONCURRENT_MANAGED_ACCESS, CUFAB_HAS_MANAGED_MEMORY },
		{ CUFAB_ATTR_HOST_REGISTER_SUPPORTED, CUFAB_HAS_HOST_REGISTER },
		{ CUFAB_ATTR_READ_ONLY_HOST_REGISTER_SUPPORTED, CUFAB_HAS_HOST_REGISTER },
		{ CUFAB_ATTR_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, CUFAB_HAS_HOST_REGISTER },
		{ CUFAB_ATTR_CAN_USE_64_BIT_STREAM_MEM_OPS, CUFAB_HAS_STREAM_MEM_OPS },
		{ CUFAB_ATTR_CAN_USE_STREAM_WAIT_VALUE_NOR, CUFAB_HAS_STREAM_MEM_OPS },
		{ CUFAB_ATTR_DMA_BUF_SUPPORTED, CUFAB_HAS_DMA_BUF },
	};
	s32 *a = fill(test, 0, CUFAB_DEV_F_ALL);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fam); i++)
		KUNIT_EXPECT_EQ_MSG(test, !!a[fam[i].attr], fam[i].has,
				    "attribute %d", fam[i].attr);
}

static void attrs_endpoint_modes_need_endpoints(struct kunit *test)
{
	s32 *a;

	a = fill(test, 0, CUFAB_DEV_F_LE_COUNTED | CUFAB_DEV_F_LE_OWNER_ACCESS |
		 CUFAB_DEV_F_FABRIC_HANDLE);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED], 0);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED],
			0);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES],
			0);

	/* owner-device access is about unicast endpoints only */
	a = fill(test, 0, CUFAB_DEV_F_LE_MULTICAST | CUFAB_DEV_F_LE_COUNTED |
		 CUFAB_DEV_F_LE_OWNER_ACCESS | CUFAB_DEV_F_FABRIC_HANDLE);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED], 1);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED],
			0);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES],
			0x1);

	/* endpoints without fabric handles cannot be exported */
	a = fill(test, 0, CUFAB_DEV_F_LE_UNICAST);
	KUNIT_EXPECT_EQ(test, a[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_SUPPORTED],
			1);
	KUNIT_EXPECT_EQ(test,
			a[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES],
			0);
}

/*
 * Every feature mask with and without the switch: the attributes agree
 * with the effective features, and the effective features obey the rules.
 */
static void attrs_agree_with_effective_features(struct kunit *test)
{
	struct attr_fixture *f = test->priv;
	const u32 le = CUFAB_DEV_F_LE_UNICAST | CUFAB_DEV_F_LE_MULTICAST;
	u32 mask, eff;
	int sw, i;
	s32 *a;

	for (sw = 0; sw < 2; sw++) {
		f->topo.nvswitch = sw;
		for (mask = 0; mask <= CUFAB_DEV_F_ALL; mask++) {
			a = fill(test, 1, mask);
			eff = cufab_gpu_effective_features(&f->topo,
							   &f->topo.gpus[1]);
			KUNIT_ASSERT_EQ(test, eff & ~mask, 0U);
			if (!sw)
				KUNIT_ASSERT_EQ(test, eff & (CUFAB_DEV_F_MULTICAST |
					CUFAB_DEV_F_LE_MULTICAST), 0U);
			if (eff & CUFAB_DEV_F_LE_COUNTED)
				KUNIT_ASSERT_NE(test, eff & le, 0U);
			if (eff & CUFAB_DEV_F_LE_OWNER_ACCESS)
				KUNIT_ASSERT_NE(test, eff & CUFAB_DEV_F_LE_UNICAST,
						0U);
			KUNIT_ASSERT_EQ(test, a[CUFAB_ATTR_MULTICAST_SUPPORTED],
					!!(eff & CUFAB_DEV_F_MULTICAST));
			KUNIT_ASSERT_EQ(test,
					a[CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED],
					!!(eff & CUFAB_DEV_F_LE_COUNTED));
			KUNIT_ASSERT_EQ(test,
					a[CUFAB_ATTR_CONCURRENT_MANAGED_ACCESS],
					CUFAB_HAS_MANAGED_MEMORY &&
					(eff & CUFAB_DEV_F_CONCURRENT_MANAGED));
			KUNIT_ASSERT_EQ(test,
					!!a[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES],
					(eff & le) &&
					(eff & CUFAB_DEV_F_FABRIC_HANDLE));
			/* only NUMA ids may be negative */
			for (i = 0; i < CUFAB_NUM_DEVICE_ATTRS; i++) {
				if (i == CUFAB_ATTR_HOST_NUMA_ID ||
				    i == CUFAB_ATTR_NUMA_ID)
					continue;
				KUNIT_ASSERT_GE_MSG(test, a[i], 0,
						    "attribute %d", i);
			}
		}
	}
}

static struct kunit_case cufab_device_attr_cases[] = {
	KUNIT_CASE(attrs_hopper_constants),
	KUNIT_CASE(attrs_follow_api_families),
	KUNIT_CASE(attrs_location),
	KUNIT_CASE(attrs_all_features),
	KUNIT_CASE(attrs_no_features),
	KUNIT_CASE(attrs_multicast_needs_nvswitch),
	KUNIT_CASE(attrs_pools_without_fabric),
	KUNIT_CASE(attrs_endpoint_modes_need_endpoints),
	KUNIT_CASE(attrs_agree_with_effective_features),
	{}
};

static struct kunit_suite cufab_device_attr_suite = {
	.name = "cufab_device_attr",
	.init = attr_test_init,
	.exit = attr_test_exit,
	.test_cases = cufab_device_attr_cases,
};

kunit_test_suites(&cufab_device_attr_suite);
