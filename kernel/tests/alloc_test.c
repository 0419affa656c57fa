// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: allocation accounting (kernel/alloc.c): capacity charges never
 * overshoot, uncharges return the capacity, and an allocation frees its
 * pages and its charge with its last reference; a handle's last release
 * racing with a lookup changes nothing; the release that drops the last
 * reference leaves the memory to its client's next create; the page store
 * takes its pages from the allocation's provider and gives every one back.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/mm.h>

#include "cufab.h"

/*
 * KUnit runs module suites before the module's init, so the node has no
 * GPUs yet: give it a small one for the duration of each test.
 */
static bool alloc_test_built_node;

static int alloc_test_init(struct kunit *test)
{
	const struct cufab_params p = {
		.num_gpus = 2,
		.mem_mib = 16,
		.nvswitch = true,
	};
	int ret = 0;

	down_write(&cufab_topo_rwsem);
	alloc_test_built_node = !cufab_node.num_gpus;
	if (alloc_test_built_node)
		ret = cufab_topo_build(&cufab_node, &p);
	up_write(&cufab_topo_rwsem);
	return ret;
}

static void alloc_test_exit(struct kunit *test)
{
	if (!alloc_test_built_node)
		return;
	down_write(&cufab_topo_rwsem);
	cufab_topo_free(&cufab_node);
	up_write(&cufab_topo_rwsem);
}

static void charge_fits_exactly(struct kunit *test)
{
	atomic64_t used = ATOMIC64_INIT(0);

	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, 4096), 0);
	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, 4096), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&used), 8192);
	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic64_read(&used), 8192);
	cufab_gpu_uncharge(&used, 4096);
	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, 4096), 0);
	cufab_gpu_uncharge(&used, 8192);
	KUNIT_EXPECT_EQ(test, atomic64_read(&used), 0);
}

static void charge_overflow_refused(struct kunit *test)
{
	atomic64_t used = ATOMIC64_INIT(4096);

	/* used + bytes wraps: must not look like it fits */
	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, U64_MAX - 100),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, 8192), -ENOMEM);
	KUNIT_EXPECT_EQ(test, cufab_gpu_charge(&used, 8192, 4096), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&used), 8192);
}

static void granularity_is_power_of_two(struct kunit *test)
{
	u64 g = cufab_mem_granularity();

	KUNIT_EXPECT_TRUE(test, g >= PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, g & (g - 1), 0);
	KUNIT_EXPECT_GE(test, cufab_mem_granularity_rec(), g);
}

static void device_alloc_charges_and_frees(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = 0,
		.length = 4 * PAGE_SIZE,
	};
	u64 live = cufab_live_objects(), nallocs = cufab_allocs_live();
	struct cufab_alloc *alloc;
	struct cufab_gpu *gpu;
	struct page *p0, *p0again, *p3;
	s64 used;

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(0);
	used = atomic64_read(&gpu->mem_used);
	up_read(&cufab_topo_rwsem);

	alloc = cufab_alloc_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
	KUNIT_EXPECT_EQ(test, atomic64_read(&gpu->mem_used), used + 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs + 1);

	p0 = cufab_alloc_page(alloc, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p0));
	p0again = cufab_alloc_page(alloc, 0);
	KUNIT_EXPECT_PTR_EQ(test, p0, p0again);
	p3 = cufab_alloc_page(alloc, 3);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p3));
	KUNIT_EXPECT_TRUE(test, IS_ERR(cufab_alloc_page(alloc, 4)));

	cufab_alloc_get(alloc);
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs + 1);
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_EQ(test, atomic64_read(&gpu->mem_used), used);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
}

static void device_alloc_bad_gpu(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = CUFAB_MAX_GPUS,
		.length = PAGE_SIZE,
	};

	KUNIT_EXPECT_PTR_EQ(test, cufab_alloc_create(&desc), ERR_PTR(-ENODEV));
	desc.location_id = -1;
	KUNIT_EXPECT_PTR_EQ(test, cufab_alloc_create(&desc), ERR_PTR(-ENODEV));
	desc.location_type = CUFAB_LOC_HOST_NUMA;
	desc.location_id = MAX_NUMNODES;
	KUNIT_EXPECT_PTR_EQ(test, cufab_alloc_create(&desc), ERR_PTR(-EINVAL));
}

static void device_alloc_past_capacity(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = 0,
	};
	struct cufab_gpu *gpu;

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(0);
	desc.length = gpu->mem_total + PAGE_SIZE;
	up_read(&cufab_topo_rwsem);
	KUNIT_EXPECT_PTR_EQ(test, cufab_alloc_create(&desc), ERR_PTR(-ENOMEM));
}

/*
 * A provider of test pages that counts what it hands out: the store asks
 * it for each page once, gives back every page and then the backing, and
 * a provider without a backing fails the create and leaves no charge.
 */
struct test_provider_state {
	int attached;
	int pages_out;
	int fail_attach;
};

static struct test_provider_state test_provider_state;

static int test_provider_attach(struct cufab_alloc *alloc)
{
	if (test_provider_state.fail_attach)
		return -ENOMEM;
	test_provider_state.attached++;
	alloc->backing = &test_provider_state;
	return 0;
}

static void test_provider_detach(struct cufab_alloc *alloc)
{
	struct test_provider_state *st = alloc->backing;

	st->attached--;
}

static struct page *test_provider_get_page(struct cufab_alloc *alloc,
					   pgoff_t index, int nid, gfp_t gfp)
{
	struct test_provider_state *st = alloc->backing;
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

	if (page)
		st->pages_out++;
	return page;
}

static void test_provider_put_page(struct cufab_alloc *alloc, pgoff_t index,
				   struct page *page)
{
	struct test_provider_state *st = alloc->backing;

	st->pages_out--;
	__free_page(page);
}

static const struct cufab_page_provider test_provider = {
	.name = "test",
	.attach = test_provider_attach,
	.detach = test_provider_detach,
	.get_page = test_provider_get_page,
	.put_page = test_provider_put_page,
};

static void provider_gives_and_takes_back(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = 0,
		.length = 4 * PAGE_SIZE,
		.provider = &test_provider,
	};
	struct test_provider_state *st = &test_provider_state;
	struct cufab_alloc *alloc;
	struct page *p1;

	memset(st, 0, sizeof(*st));
	alloc = cufab_alloc_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
	KUNIT_EXPECT_EQ(test, st->attached, 1);
	KUNIT_EXPECT_PTR_EQ(test, alloc->provider, &test_provider);
	p1 = cufab_alloc_page(alloc, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p1));
	KUNIT_EXPECT_PTR_EQ(test, cufab_alloc_page(alloc, 1), p1);
	KUNIT_EXPECT_FALSE(test, IS_ERR(cufab_alloc_page(alloc, 2)));
	KUNIT_EXPECT_EQ(test, st->pages_out, 2);
	KUNIT_EXPECT_EQ(test, cufab_alloc_resident(alloc), 2 * PAGE_SIZE);
	/* pages that cannot move between NUMA nodes are not placed */
	KUNIT_EXPECT_EQ(test, cufab_alloc_place_page(alloc, 1, 0), -EINVAL);
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_EQ(test, st->pages_out, 0);
	KUNIT_EXPECT_EQ(test, st->attached, 0);
}

static void provider_attach_failure_uncharges(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = 0,
		.length = PAGE_SIZE,
		.provider = &test_provider,
	};
	u64 live = cufab_live_objects(), nallocs = cufab_allocs_live();
	struct cufab_gpu *gpu;
	s64 used;

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(0);
	used = atomic64_read(&gpu->mem_used);
	up_read(&cufab_topo_rwsem);

	memset(&test_provider_state, 0, sizeof(test_provider_state));
	test_provider_state.fail_attach = 1;
	KUNIT_EXPECT_PTR_EQ(test, cufab_alloc_create(&desc), ERR_PTR(-ENOMEM));
	KUNIT_EXPECT_EQ(test, atomic64_read(&gpu->mem_used), used);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
}

/* Without a provider named, a kind with memory takes this node's pages. */
static void provider_defaults_to_local(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_HOST,
		.length = PAGE_SIZE,
	};
	struct cufab_alloc *alloc;

	alloc = cufab_alloc_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
	KUNIT_EXPECT_PTR_EQ(test, alloc->provider, &cufab_local_pages);
	KUNIT_EXPECT_TRUE(test, cufab_local_pages.flags & CUFAB_PAGES_NUMA);
	KUNIT_EXPECT_FALSE(test, cufab_local_pages.flags & CUFAB_PAGES_FABRIC);
	cufab_alloc_put(alloc);
}

/*
 * The last cuMemRelease while another thread has the handle looked up
 * (held here across the release, as a racing lookup would hold it): the
 * release is -EBUSY and keeps the retain, so the handle can still be
 * released once the lookup is done and nothing lingers.
 */
static void release_racing_lookup_keeps_retain(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = 0,
		.length = PAGE_SIZE,
	};
	u64 live = cufab_live_objects();
	struct cufab_client *client;
	struct cufab_alloc *alloc;
	struct cufab_object *obj;
	atomic_t *retains;
	u32 id;

	client = cufab_client_alloc();
	KUNIT_ASSERT_FALSE(test, IS_ERR(client));
	alloc = cufab_alloc_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
	KUNIT_ASSERT_EQ(test, cufab_mem_handle_create(client, alloc, &id), 0);
	KUNIT_EXPECT_TRUE(test, cufab_mem_handle_retain(client, id, alloc));
	cufab_alloc_put(alloc);

	obj = cufab_object_get(client, id, CUFAB_OBJ_MEM_HANDLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(obj));
	retains = &container_of(obj, struct cufab_mem_handle, obj)->retains;
	KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, id), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(retains), 1);
	KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, id), -EBUSY);
	KUNIT_EXPECT_EQ(test, atomic_read(retains), 1);
	cufab_object_put(obj);

	KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, id), 0);
	KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, id), -ENOENT);
	/* kept for the next create (object.c), found by no lookup */
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(client, id, CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_EQ(test, client->nr_kept[CUFAB_OBJ_MEM_HANDLE], 1U);
	cufab_client_free(client);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
}

/*
 * A handle's release that drops its allocation's last reference keeps the
 * memory as one of the client's spares, which the client's next create
 * takes back zeroed; a release that is not the last keeps nothing, past
 * CUFAB_OBJ_KEPT spares the memory is freed, and the client's end frees
 * the spares left over.
 */
static void released_alloc_is_clients_spare(struct kunit *test)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_vmm_alloc_ops,
		.location_type = CUFAB_LOC_DEVICE,
		.location_id = 0,
		.length = PAGE_SIZE,
	};
	u64 live = cufab_live_objects(), nallocs = cufab_allocs_live();
	struct cufab_alloc *alloc, *old;
	u32 id, ids[CUFAB_OBJ_KEPT + 1];
	struct cufab_client *client;
	unsigned int i;

	client = cufab_client_alloc();
	KUNIT_ASSERT_FALSE(test, IS_ERR(client));
	desc.spare_of = client;
	alloc = cufab_alloc_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
	KUNIT_ASSERT_FALSE(test, IS_ERR(cufab_alloc_page(alloc, 0)));
	KUNIT_ASSERT_EQ(test, cufab_mem_handle_create(client, alloc, &id), 0);
	cufab_alloc_put(alloc);
	old = alloc;
	KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, id), 0);
	KUNIT_EXPECT_PTR_EQ(test, client->spare_alloc[0], old);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs);

	alloc = cufab_alloc_create(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
	KUNIT_EXPECT_PTR_EQ(test, alloc, old);
	KUNIT_EXPECT_NULL(test, client->spare_alloc[0]);
	KUNIT_EXPECT_TRUE(test, xa_empty(&alloc->pages));
	KUNIT_EXPECT_EQ(test, kref_read(&alloc->ref), 1U);
	KUNIT_EXPECT_EQ(test, alloc->length, (u64)PAGE_SIZE);
	/* the handle's release is not the last reference: nothing kept */
	KUNIT_ASSERT_EQ(test, cufab_mem_handle_create(client, alloc, &id), 0);
	KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, id), 0);
	KUNIT_EXPECT_NULL(test, client->spare_alloc[0]);
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_NULL(test, client->spare_alloc[0]);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs);

	/* as many spares as kept objects of a type; the next one is freed */
	for (i = 0; i <= CUFAB_OBJ_KEPT; i++) {
		alloc = cufab_alloc_create(&desc);
		KUNIT_ASSERT_FALSE(test, IS_ERR(alloc));
		KUNIT_ASSERT_EQ(test, cufab_mem_handle_create(client, alloc,
							      &ids[i]), 0);
		cufab_alloc_put(alloc);
	}
	for (i = 0; i <= CUFAB_OBJ_KEPT; i++)
		KUNIT_EXPECT_EQ(test, cufab_mem_handle_release(client, ids[i]),
				0);
	for (i = 0; i < CUFAB_OBJ_KEPT; i++)
		KUNIT_EXPECT_NOT_NULL(test, client->spare_alloc[i]);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs);
	cufab_client_free(client);
	KUNIT_EXPECT_EQ(test, cufab_allocs_live(), nallocs);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
}

static struct kunit_case alloc_test_cases[] = {
	KUNIT_CASE(charge_fits_exactly),
	KUNIT_CASE(charge_overflow_refused),
	KUNIT_CASE(granularity_is_power_of_two),
	KUNIT_CASE(device_alloc_charges_and_frees),
	KUNIT_CASE(device_alloc_bad_gpu),
	KUNIT_CASE(device_alloc_past_capacity),
	KUNIT_CASE(release_racing_lookup_keeps_retain),
	KUNIT_CASE(released_alloc_is_clients_spare),
	KUNIT_CASE(provider_gives_and_takes_back),
	KUNIT_CASE(provider_attach_failure_uncharges),
	KUNIT_CASE(provider_defaults_to_local),
	{}
};

static struct kunit_suite alloc_test_suite = {
	.name = "cufab_alloc",
	.init = alloc_test_init,
	.exit = alloc_test_exit,
	.test_cases = alloc_test_cases,
};

kunit_test_suite(alloc_test_suite);
