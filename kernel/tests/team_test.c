// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: teams (kernel/team.c): membership rules (no such GPU, another
 * clique, twice, too many), waiting for completion (timeout and wakeup),
 * the bind rules with real allocations (alignment, bounds, location,
 * overlap, membership), unbind, unbind by owner, teardown with live
 * bindings, allocation failures, and a randomised bind/unbind run against
 * an array model.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/kref.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "kunit_fault.h"
#include "kunit_rand.h"

/* Non-zero: replay a failing randomised run with the seed it printed. */
#define TEAM_TEST_SEED		0

#define G	SZ_2M		/* bind alignment of most cases */

static char owner_a, owner_b, tag_x;
#define A	((const void *)&owner_a)
#define B	((const void *)&owner_b)
#define X	((const void *)&tag_x)

/*
 * KUnit runs module suites before the module's init, so the node has no
 * GPUs yet: build one with two cliques of two GPUs for each case. Should
 * the node exist already, the cases use it and skip what it cannot show.
 */
static bool team_test_built_node;
static int team_test_saved_numa;

struct team_test_ctx {
	u64 live;
	int gpu_a;	/* a GPU */
	int gpu_b;	/* another GPU of its clique, or -1 */
	int gpu_other;	/* a GPU of another clique, or -1 */
};

static int team_test_init(struct kunit *test)
{
	const struct cufab_params p = {
		.num_gpus = 4,
		.mem_mib = 16,
		.cliques = "0,1;2,3",
		.nvswitch = true,
	};
	struct team_test_ctx *ctx;
	struct cufab_gpu *g, *g0;
	int ret = 0;
	u32 i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	down_write(&cufab_topo_rwsem);
	team_test_built_node = !cufab_node.num_gpus;
	if (team_test_built_node)
		ret = cufab_topo_build(&cufab_node, &p);
	ctx->gpu_a = cufab_node.num_gpus ? 0 : -1;
	ctx->gpu_b = -1;
	ctx->gpu_other = -1;
	g0 = cufab_node_gpu(0);
	for (i = 1; !ret && g0 && i < cufab_node.num_gpus; i++) {
		g = cufab_node_gpu(i);
		if (g->clique == g0->clique && ctx->gpu_b < 0)
			ctx->gpu_b = i;
		if (g->clique != g0->clique && ctx->gpu_other < 0)
			ctx->gpu_other = i;
	}
	/* gpu_b on a NUMA node of its own: the host-NUMA rule needs two */
	if (team_test_built_node && !ret && cufab_node.num_gpus > 1) {
		team_test_saved_numa = cufab_node.gpus[1].numa_node;
		cufab_node.gpus[1].numa_node = cufab_node.gpus[0].numa_node + 1;
	}
	up_write(&cufab_topo_rwsem);
	ctx->live = cufab_live_objects();
	test->priv = ctx;
	return ret;
}

static void team_test_exit(struct kunit *test)
{
	struct team_test_ctx *ctx = test->priv;

	if (ctx)
		KUNIT_EXPECT_EQ(test, ctx->live, cufab_live_objects());
	if (!team_test_built_node)
		return;
	down_write(&cufab_topo_rwsem);
	if (cufab_node.num_gpus > 1)
		cufab_node.gpus[1].numa_node = team_test_saved_numa;
	cufab_topo_free(&cufab_node);
	up_write(&cufab_topo_rwsem);
}

/* Skip unless the node has two GPUs in one clique. */
static struct team_test_ctx *team_test_pair(struct kunit *test)
{
	struct team_test_ctx *ctx = test->priv;

	if (ctx->gpu_a < 0 || ctx->gpu_b < 0)
		kunit_skip(test, "needs two GPUs in one clique");
	return ctx;
}

static struct cufab_team *team_new(struct kunit *test, u32 size, u64 length,
				   u64 align)
{
	struct cufab_team *team;

	team = cufab_team_create("team test", 1, size, length, align);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, team);
	return team;
}

/* A team of @a and @b (complete). */
static struct cufab_team *team_pair(struct kunit *test, u64 length, u64 align)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_new(test, 2, length, align);

	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_b, NULL));
	return team;
}

static struct cufab_alloc *team_alloc(struct kunit *test, u32 type, s32 id,
				      u64 length, bool linear)
{
	const struct cufab_alloc_desc desc = {
		.location_type = type,
		.location_id = id,
		.handle_types = CUFAB_HANDLE_FABRIC,
		.length = length,
		.ops = linear ? &cufab_linear_alloc_ops : &cufab_vmm_alloc_ops,
	};
	struct cufab_alloc *alloc = cufab_alloc_create(&desc);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, alloc);
	return alloc;
}

static int team_bind(struct cufab_team *team, u32 gpu, u64 offset, u64 size,
		     struct cufab_alloc *alloc, u64 mem_offset,
		     const void *owner, const void *tag)
{
	const struct cufab_bind_req req = {
		.gpu = gpu,
		.offset = offset,
		.size = size,
		.alloc = alloc,
		.mem_offset = mem_offset,
		.owner = owner,
		.tag = tag,
	};

	return cufab_team_bind(team, &req);
}

static void create_rejects_bad_args(struct kunit *test)
{
	struct cufab_team *team;

	KUNIT_EXPECT_EQ(test, -EINVAL,
			PTR_ERR(cufab_team_create("t", 0, 0, G, G)));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			PTR_ERR(cufab_team_create("t", 0, CUFAB_MAX_GPUS + 1,
						  G, G)));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			PTR_ERR(cufab_team_create("t", 0, 1, 0, G)));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			PTR_ERR(cufab_team_create("t", 0, 1, G, 3 * SZ_1M)));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			PTR_ERR(cufab_team_create("t", 0, 1, G, 0)));
	team = team_new(test, CUFAB_MAX_GPUS, G, G);
	KUNIT_EXPECT_EQ(test, -1, team->clique);
	KUNIT_EXPECT_EQ(test, 0u, team->joined);
	KUNIT_EXPECT_FALSE(test, cufab_team_complete(team));
	KUNIT_EXPECT_STREQ(test, "team test 1", team->name);
	/* the name is cut to fit, never overflows */
	cufab_team_destroy(team);
	team = cufab_team_create("a team name much longer than thirty-two bytes",
				 7, 1, G, G);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, team);
	KUNIT_EXPECT_EQ(test, (size_t)CUFAB_TEAM_NAME_LEN - 1,
			strlen(team->name));
	cufab_team_destroy(team);
	/* the number too, as snprintf() cuts it */
	team = cufab_team_create("a kind of twenty-eight bytes", 123456, 1, G,
				 G);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, team);
	KUNIT_EXPECT_STREQ(test, "a kind of twenty-eight bytes 12", team->name);
	cufab_team_destroy(team);
	team = cufab_team_create("multicast", U64_MAX, 1, G, G);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, team);
	KUNIT_EXPECT_STREQ(test, "multicast 18446744073709551615", team->name);
	cufab_team_destroy(team);
}

static void add_device_rules(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	u32 n = cufab_node_num_gpus();
	struct cufab_team *team;

	team = team_new(test, 2, G, G);
	KUNIT_EXPECT_EQ(test, -ENODEV, cufab_team_add_device(team, n, NULL));
	KUNIT_EXPECT_EQ(test, -ENODEV, cufab_team_add_device(team, U32_MAX, NULL));
	KUNIT_EXPECT_EQ(test, 0u, team->joined);
	KUNIT_EXPECT_EQ(test, -1, team->clique);

	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	KUNIT_EXPECT_TRUE(test, cufab_team_has(team, ctx->gpu_a));
	KUNIT_EXPECT_FALSE(test, cufab_team_has(team, ctx->gpu_b));
	KUNIT_EXPECT_FALSE(test, cufab_team_has(team, U32_MAX));
	KUNIT_EXPECT_FALSE(test, cufab_team_complete(team));
	KUNIT_EXPECT_EQ(test, -EEXIST, cufab_team_add_device(team, ctx->gpu_a, NULL));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_b, NULL));
	KUNIT_EXPECT_TRUE(test, cufab_team_complete(team));
	KUNIT_EXPECT_EQ(test, 2u, team->joined);
	/* full: a member is still "already there", anyone else "no room" */
	KUNIT_EXPECT_EQ(test, -EEXIST, cufab_team_add_device(team, ctx->gpu_b, NULL));
	if (ctx->gpu_other >= 0)
		KUNIT_EXPECT_EQ(test, -ENOSPC,
				cufab_team_add_device(team, ctx->gpu_other, NULL));
	KUNIT_EXPECT_EQ(test, 2u, team->joined);
	KUNIT_EXPECT_EQ(test, BIT_ULL(ctx->gpu_a) | BIT_ULL(ctx->gpu_b),
			team->devs);
	cufab_team_destroy(team);

	/* a unicast endpoint: a team of one */
	team = team_new(test, 1, G, G);
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_b, NULL));
	KUNIT_EXPECT_TRUE(test, cufab_team_complete(team));
	KUNIT_EXPECT_EQ(test, -ENOSPC, cufab_team_add_device(team, ctx->gpu_a, NULL));
	cufab_team_destroy(team);
}

static void add_device_other_clique(struct kunit *test)
{
	struct team_test_ctx *ctx = test->priv;
	struct cufab_team *team;
	s32 clique;

	if (ctx->gpu_other < 0)
		kunit_skip(test, "needs GPUs in two cliques");
	team = team_new(test, 2, G, G);
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_other, NULL));
	clique = team->clique;
	KUNIT_EXPECT_GE(test, clique, 0);
	KUNIT_EXPECT_EQ(test, -ENODEV, cufab_team_add_device(team, ctx->gpu_a, NULL));
	KUNIT_EXPECT_EQ(test, 1u, team->joined);
	KUNIT_EXPECT_EQ(test, clique, team->clique);
	KUNIT_EXPECT_FALSE(test, cufab_team_has(team, ctx->gpu_a));
	cufab_team_destroy(team);
}

static void describe_names_members(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_new(test, 4, G, G);
	char buf[64], want[64];

	cufab_team_describe(team, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, "0 of 4 devices ()", buf);
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_b, NULL));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	snprintf(want, sizeof(want), "2 of 4 devices (gpu%d,gpu%d)",
		 ctx->gpu_a, ctx->gpu_b);
	KUNIT_EXPECT_EQ(test, (int)strlen(want),
			cufab_team_describe(team, buf, sizeof(buf)));
	KUNIT_EXPECT_STREQ(test, want, buf);
	/* truncated, still terminated */
	cufab_team_describe(team, buf, 8);
	KUNIT_EXPECT_EQ(test, (size_t)7, strlen(buf));
	cufab_team_destroy(team);
}

static void wait_times_out_incomplete(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_new(test, 2, G, G);

	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, cufab_team_wait(team, 1, "test"));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, cufab_team_wait(team, 1, "test"));
	KUNIT_EXPECT_EQ(test, 0u, team->waiters);
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_b, NULL));
	/* complete: no sleep, with or without a limit */
	KUNIT_EXPECT_EQ(test, 0, cufab_team_wait(team, 1, "test"));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_wait(team, 0, "test"));
	cufab_team_destroy(team);
}

struct team_test_joiner {
	struct delayed_work work;
	struct cufab_team *team;
	u32 gpu;
	int ret;
};

static void team_test_join(struct work_struct *work)
{
	struct team_test_joiner *j = container_of(to_delayed_work(work),
						  struct team_test_joiner,
						  work);

	j->ret = cufab_team_add_device(j->team, j->gpu, NULL);
}

/* The last device joining wakes a sleeper with no time limit. */
static void wait_woken_by_last_join(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_new(test, 2, G, G);
	struct team_test_joiner j = { .team = team, .gpu = ctx->gpu_b,
				      .ret = -1 };

	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	INIT_DELAYED_WORK(&j.work, team_test_join);
	schedule_delayed_work(&j.work, msecs_to_jiffies(20));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_wait(team, 0, "test"));
	flush_delayed_work(&j.work);
	KUNIT_EXPECT_EQ(test, 0, j.ret);
	KUNIT_EXPECT_TRUE(test, cufab_team_complete(team));
	KUNIT_EXPECT_EQ(test, 0u, team->waiters);
	cufab_team_destroy(team);
}

static void bind_rules(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_pair(test, 4 * G, G);
	struct cufab_alloc *mem_a, *mem_b, *linear, *host;
	u32 a = ctx->gpu_a, b = ctx->gpu_b;

	mem_a = team_alloc(test, CUFAB_LOC_DEVICE, a, 2 * G, false);
	mem_b = team_alloc(test, CUFAB_LOC_DEVICE, b, G, false);
	linear = team_alloc(test, CUFAB_LOC_HOST, -1, G, true);
	host = team_alloc(test, CUFAB_LOC_HOST, -1, G, false);

	KUNIT_EXPECT_EQ(test, 0, team_bind(team, a, 0, G, mem_a, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&mem_a->ref));
	/* overlap on the same device; the same offset on another is fine */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, 0, G, mem_a, G, A, NULL));
	KUNIT_EXPECT_EQ(test, 0, team_bind(team, b, 0, G, mem_b, 0, A, NULL));
	/* alignment of offset, size, memory offset; size 0 */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G + SZ_4K, G, mem_a, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, SZ_4K, mem_a, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, G, mem_a, SZ_4K, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, 0, mem_a, 0, A, NULL));
	/* past the object, past the allocation, wrapping */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, 3 * G, 2 * G, mem_a, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, 4 * G, G, mem_a, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, 2 * G, mem_a, G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, G, mem_a, 2 * G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, G, mem_a,
				  ALIGN_DOWN(U64_MAX, G), A, NULL));
	/* location: another GPU's memory, cuMemAlloc, plain host memory */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, G, mem_b, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, G, linear, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, a, G, G, host, 0, A, NULL));
	/* not a member */
	if (ctx->gpu_other >= 0)
		KUNIT_EXPECT_EQ(test, -EINVAL,
				team_bind(team, ctx->gpu_other, G, G, mem_a, 0,
					  A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			team_bind(team, CUFAB_MAX_GPUS, G, G, mem_a, 0, A,
				  NULL));

	/* none of the refusals kept a reference */
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&mem_a->ref));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&mem_b->ref));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&linear->ref));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&host->ref));
	/* the second half of the memory, at the end of the object */
	KUNIT_EXPECT_EQ(test, 0,
			team_bind(team, a, 3 * G, G, mem_a, G, B, NULL));
	KUNIT_EXPECT_EQ(test, 3ull, cufab_team_bindings(team));

	cufab_team_destroy(team);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem_a->ref));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem_b->ref));
	cufab_alloc_put(mem_a);
	cufab_alloc_put(mem_b);
	cufab_alloc_put(linear);
	cufab_alloc_put(host);
}

static void bind_host_numa(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team;
	struct cufab_alloc *mem;
	int nid_a, nid_b;

	down_read(&cufab_topo_rwsem);
	nid_a = cufab_node_gpu(ctx->gpu_a)->numa_node;
	nid_b = cufab_node_gpu(ctx->gpu_b)->numa_node;
	up_read(&cufab_topo_rwsem);
	if (nid_a == NUMA_NO_NODE || !node_online(nid_a))
		kunit_skip(test, "gpu%d has no online NUMA node", ctx->gpu_a);

	team = team_pair(test, 2 * G, G);
	mem = team_alloc(test, CUFAB_LOC_HOST_NUMA, nid_a, 2 * G, false);
	KUNIT_EXPECT_EQ(test, 0, team_bind(team, ctx->gpu_a, 0, G, mem, 0, A,
					   NULL));
	if (nid_b != nid_a)
		KUNIT_EXPECT_EQ(test, -EINVAL,
				team_bind(team, ctx->gpu_b, 0, G, mem, G, A,
					  NULL));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&mem->ref));
	cufab_team_destroy(team);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem->ref));
	cufab_alloc_put(mem);
}

static void unbind_rules(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_pair(test, 8 * G, G);
	u32 a = ctx->gpu_a, b = ctx->gpu_b;
	struct cufab_alloc *mem;

	mem = team_alloc(test, CUFAB_LOC_DEVICE, a, 4 * G, false);
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, a, 0, G, mem, 0, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, a, G, G, mem, G, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, a, 4 * G, G, mem, 2 * G, B,
					   NULL));
	KUNIT_EXPECT_EQ(test, 4u, kref_read(&mem->ref));

	/* argument rules */
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_team_unbind(team, a, 0, 0, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, a, SZ_4K, G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, a, 0, G + SZ_4K, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, a, 7 * G, 2 * G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, CUFAB_MAX_GPUS, 0, G, A, NULL));
	if (ctx->gpu_other >= 0)
		KUNIT_EXPECT_EQ(test, -EINVAL,
				cufab_team_unbind(team, ctx->gpu_other, 0, G,
						  A, NULL));
	/* map rules, all reported as -EINVAL */
	KUNIT_EXPECT_EQ(test, -EINVAL, cufab_team_unbind(team, b, 0, G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, a, 2 * G, G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, a, 0, 3 * G, A, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_unbind(team, a, 4 * G, G, A, NULL));
	KUNIT_EXPECT_EQ(test, 3ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 4u, kref_read(&mem->ref));

	/* two adjacent binds at once, then someone else's */
	KUNIT_EXPECT_EQ(test, 0, cufab_team_unbind(team, a, 0, 2 * G, A, NULL));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&mem->ref));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_unbind(team, a, 4 * G, G, B, NULL));
	KUNIT_EXPECT_EQ(test, 0ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem->ref));
	cufab_team_destroy(team);
	cufab_alloc_put(mem);
}

static void unbind_owner_and_tag(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_pair(test, 8 * G, G);
	u32 a = ctx->gpu_a, b = ctx->gpu_b;
	struct cufab_alloc *mem_a, *mem_b;
	struct cufab_bindmap *map;

	mem_a = team_alloc(test, CUFAB_LOC_DEVICE, a, 4 * G, false);
	mem_b = team_alloc(test, CUFAB_LOC_DEVICE, b, 4 * G, false);
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, a, 0, G, mem_a, 0, A, X));
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, a, G, G, mem_a, 0, A, NULL));
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, b, 0, G, mem_b, 0, A, X));
	KUNIT_ASSERT_EQ(test, 0, team_bind(team, b, G, G, mem_b, 0, B, X));

	/* A through X, on every device */
	KUNIT_EXPECT_EQ(test, 2ull, cufab_team_unbind_owner(team, A, X));
	KUNIT_EXPECT_EQ(test, 2ull, cufab_team_bindings(team));
	mutex_lock(&team->lock);
	map = cufab_team_map(team, a);
	KUNIT_EXPECT_NOT_NULL(test, map);
	if (map)
		KUNIT_EXPECT_NOT_NULL(test, cufab_bindmap_lookup(map, G));
	KUNIT_EXPECT_NULL(test, cufab_team_map(team, CUFAB_MAX_GPUS));
	mutex_unlock(&team->lock);
	/* everything of B */
	KUNIT_EXPECT_EQ(test, 1ull, cufab_team_unbind_owner(team, B, NULL));
	KUNIT_EXPECT_EQ(test, 0ull, cufab_team_unbind_owner(team, B, NULL));
	KUNIT_EXPECT_EQ(test, 1ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&mem_a->ref));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem_b->ref));
	cufab_team_destroy(team);
	cufab_alloc_put(mem_a);
	cufab_alloc_put(mem_b);
}

/* Teardown unbinds everything; the team's exit checks live objects. */
static void destroy_with_live_bindings(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_pair(test, 16 * SZ_4K, SZ_4K);
	struct cufab_alloc *mem_a, *mem_b;
	u64 i;

	mem_a = team_alloc(test, CUFAB_LOC_DEVICE, ctx->gpu_a, 16 * SZ_4K,
			   false);
	mem_b = team_alloc(test, CUFAB_LOC_DEVICE, ctx->gpu_b, 16 * SZ_4K,
			   false);
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_EQ(test, 0,
				team_bind(team, ctx->gpu_a, i * SZ_4K, SZ_4K,
					  mem_a, i * SZ_4K, i % 2 ? A : B,
					  NULL));
		KUNIT_ASSERT_EQ(test, 0,
				team_bind(team, ctx->gpu_b, i * SZ_4K, SZ_4K,
					  mem_b, 0, A, X));
	}
	KUNIT_EXPECT_EQ(test, 32ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 17u, kref_read(&mem_a->ref));
	cufab_team_destroy(team);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem_a->ref));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem_b->ref));
	cufab_alloc_put(mem_a);
	cufab_alloc_put(mem_b);
}

static void nomem_changes_nothing(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct fault_attr saved;
	struct cufab_team *team;
	struct cufab_alloc *mem;
	int ret;

	if (!cufab_test_fail_next(CUFAB_FAULT_BIND, &saved))
		kunit_skip(test, "no CONFIG_FAULT_INJECTION");
	team = cufab_team_create("t", 0, 1, G, G);
	cufab_test_fail_restore(CUFAB_FAULT_BIND, &saved);
	KUNIT_EXPECT_EQ(test, -ENOMEM, PTR_ERR(team));

	team = team_pair(test, 2 * G, G);
	mem = team_alloc(test, CUFAB_LOC_DEVICE, ctx->gpu_a, G, false);
	KUNIT_ASSERT_TRUE(test,
			  cufab_test_fail_next(CUFAB_FAULT_BIND, &saved));
	ret = team_bind(team, ctx->gpu_a, 0, G, mem, 0, A, NULL);
	cufab_test_fail_restore(CUFAB_FAULT_BIND, &saved);
	KUNIT_EXPECT_EQ(test, -ENOMEM, ret);
	KUNIT_EXPECT_EQ(test, 0ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem->ref));
	/* and the same bind works once memory is back */
	KUNIT_EXPECT_EQ(test, 0,
			team_bind(team, ctx->gpu_a, 0, G, mem, 0, A, NULL));
	cufab_team_destroy(team);
	cufab_alloc_put(mem);
}

/* ---- randomised, against an array model: 2 devices x TM_N pages ---- */

#define TM_N		32
#define TM_MEM		8	/* pages of each device's allocation */
#define TM_OPS		2000

struct team_model {
	u32 start[2][TM_N];	/* 0 free, else start page + 1 */
	u32 len[2][TM_N];	/* at the start page */
	const void *owner[2][TM_N];
};

static int team_model_bind(struct team_model *m, int d, u32 off, u32 len,
			   u32 mem_off)
{
	u32 p;

	if (!len || off + len > TM_N || mem_off + len > TM_MEM)
		return -EINVAL;
	for (p = off; p < off + len; p++)
		if (m->start[d][p])
			return -EINVAL;
	return 0;
}

static int team_model_unbind(struct team_model *m, int d, u32 off, u32 len,
			     const void *owner)
{
	u32 cur = off;

	if (!len || off + len > TM_N || m->start[d][off] != off + 1)
		return -EINVAL;
	while (cur < off + len) {
		if (m->start[d][cur] != cur + 1 ||
		    cur + m->len[d][cur] > off + len ||
		    m->owner[d][cur] != owner)
			return -EINVAL;
		cur += m->len[d][cur];
	}
	return 0;
}

static void team_model_set(struct team_model *m, int d, u32 off, u32 len,
			   const void *owner, bool bound)
{
	u32 p;

	for (p = off; p < off + len; p++) {
		m->start[d][p] = bound ? off + 1 : 0;
		m->owner[d][p] = bound ? owner : NULL;
	}
	m->len[d][off] = bound ? len : 0;
}

static void team_model_compare(struct kunit *test, struct cufab_team *team,
			       struct team_model *m, const u32 gpu[2])
{
	struct cufab_binding *b;
	struct cufab_bindmap *map;
	u64 n = 0;
	int d;
	u32 p;

	mutex_lock(&team->lock);
	for (d = 0; d < 2; d++) {
		map = cufab_team_map(team, gpu[d]);
		b = map ? cufab_bindmap_first_from(map, 0) : NULL;
		for (p = 0; p < TM_N; p++) {
			if (m->start[d][p] != p + 1)
				continue;
			n++;
			KUNIT_EXPECT_TRUE(test, b && b->offset == p * SZ_4K &&
					  b->size == m->len[d][p] * SZ_4K &&
					  b->owner == m->owner[d][p]);
			b = b ? cufab_bindmap_next(b) : NULL;
		}
		KUNIT_EXPECT_NULL(test, b);
	}
	mutex_unlock(&team->lock);
	KUNIT_ASSERT_EQ(test, n, cufab_team_bindings(team));
}

static void random_against_model(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_alloc *mem[2];
	struct cufab_team *team;
	struct team_model *m;
	struct rnd_state rnd;
	u32 gpu[2], off, len, mem_off;
	const void *owner;
	int i, d, want;

	CUFAB_TEST_SEED(test, &rnd, TEAM_TEST_SEED);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	gpu[0] = ctx->gpu_a;
	gpu[1] = ctx->gpu_b;
	team = team_pair(test, TM_N * SZ_4K, SZ_4K);
	for (d = 0; d < 2; d++)
		mem[d] = team_alloc(test, CUFAB_LOC_DEVICE, gpu[d],
				    TM_MEM * SZ_4K, false);

	for (i = 0; i < TM_OPS; i++) {
		d = prandom_u32_state(&rnd) % 2;
		owner = prandom_u32_state(&rnd) % 4 ? A : B;
		off = prandom_u32_state(&rnd) % TM_N;
		len = prandom_u32_state(&rnd) % 5;
		if (prandom_u32_state(&rnd) % 2) {
			mem_off = prandom_u32_state(&rnd) % TM_MEM;
			want = team_model_bind(m, d, off, len, mem_off);
			KUNIT_ASSERT_EQ(test, want,
					team_bind(team, gpu[d], off * SZ_4K,
						  len * SZ_4K, mem[d],
						  mem_off * SZ_4K, owner,
						  NULL));
			if (!want)
				team_model_set(m, d, off, len, owner, true);
		} else {
			if (m->start[d][off] && len % 2) {
				off = m->start[d][off] - 1;
				len = m->len[d][off];
			}
			want = team_model_unbind(m, d, off, len, owner);
			KUNIT_ASSERT_EQ(test, want,
					cufab_team_unbind(team, gpu[d],
							  off * SZ_4K,
							  len * SZ_4K, owner,
							  NULL));
			while (!want && len) {
				u32 l = m->len[d][off];

				team_model_set(m, d, off, l, NULL, false);
				off += l;
				len -= l;
			}
		}
		team_model_compare(test, team, m, gpu);
	}
	cufab_team_destroy(team);
	for (d = 0; d < 2; d++) {
		KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem[d]->ref));
		cufab_alloc_put(mem[d]);
	}
}

/*
 * Members of another node (teams across nodes, fabric_team.c): they count
 * toward the team's size and its clique, and are no GPU of this node.
 */
static void remote_members_rules(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	u16 other = cufab_node.node_index + 1, me = cufab_node.node_index;
	struct cufab_team *team = team_new(test, 3, G, G);
	s32 clique;
	char buf[96];

	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	clique = team->clique;
	KUNIT_EXPECT_EQ(test, -EINVAL,
			cufab_team_add_remote(team, me, ctx->gpu_b, clique));
	KUNIT_EXPECT_EQ(test, -ENODEV,
			cufab_team_add_remote(team, other, 0, clique + 1));
	KUNIT_EXPECT_EQ(test, 0,
			cufab_team_add_remote(team, other, ctx->gpu_b, clique));
	KUNIT_EXPECT_EQ(test, -EEXIST,
			cufab_team_add_remote(team, other, ctx->gpu_b, clique));
	KUNIT_EXPECT_TRUE(test, cufab_team_has_member(team, other, ctx->gpu_b));
	/* the other node's gpu is not this node's gpu of that number */
	KUNIT_EXPECT_FALSE(test, cufab_team_has(team, ctx->gpu_b));
	KUNIT_EXPECT_TRUE(test, cufab_team_spans(team, other));
	KUNIT_EXPECT_FALSE(test, cufab_team_complete(team));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_b, NULL));
	KUNIT_EXPECT_TRUE(test, cufab_team_complete(team));
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			cufab_team_add_remote(team, other, 5, clique));
	cufab_team_describe(team, buf, sizeof(buf));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "3 of 3 devices"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "/gpu"));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_wait(team, 0, "test"));
	cufab_team_destroy(team);
}

/* Another node's bindings replace each other, and leave with the node. */
static void remote_bindings_replace_and_drop(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	u16 other = cufab_node.node_index + 1;
	struct cufab_team *team = team_new(test, 2, 4 * G, G);
	struct cufab_alloc *mem;
	struct cufab_binding *b;
	LIST_HEAD(fresh);
	LIST_HEAD(old);
	int i;

	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_remote(team, other, 0,
						       team->clique));
	mem = team_alloc(test, CUFAB_LOC_DEVICE, ctx->gpu_a, G, false);
	/* no such member: nothing taken */
	KUNIT_EXPECT_EQ(test, -ENOENT,
			cufab_team_replace_bindings(team, other, 1, &fresh,
						    &old));
	/* two bindings of which the second overlaps the first */
	for (i = 0; i < 2; i++) {
		b = cufab_binding_new(0, G, mem, 0, NULL, NULL);
		KUNIT_ASSERT_NOT_NULL(test, b);
		list_add_tail(&b->list, &fresh);
	}
	KUNIT_EXPECT_EQ(test, 0,
			cufab_team_replace_bindings(team, other, 0, &fresh,
						    &old));
	KUNIT_EXPECT_FALSE(test, list_empty(&fresh));
	KUNIT_EXPECT_TRUE(test, list_empty(&old));
	cufab_bindings_free(&fresh);
	KUNIT_EXPECT_EQ(test, 1ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 0ull, cufab_team_local_bindings(team));
	/* a new report replaces the old one whole */
	b = cufab_binding_new(G, G, mem, 0, NULL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	list_add_tail(&b->list, &fresh);
	KUNIT_EXPECT_EQ(test, 0,
			cufab_team_replace_bindings(team, other, 0, &fresh,
						    &old));
	KUNIT_EXPECT_TRUE(test, list_empty(&fresh));
	KUNIT_EXPECT_FALSE(test, list_empty(&old));
	cufab_bindings_free(&old);
	KUNIT_EXPECT_EQ(test, 1ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 0ull, cufab_team_drop_node(team, other + 1, &old));
	KUNIT_EXPECT_EQ(test, 1ull, cufab_team_drop_node(team, other, &old));
	cufab_bindings_free(&old);
	KUNIT_EXPECT_EQ(test, 0ull, cufab_team_bindings(team));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem->ref));
	cufab_alloc_put(mem);
	cufab_team_destroy(team);
}

struct team_test_breaker {
	struct delayed_work work;
	struct cufab_team *team;
};

static void team_test_break(struct work_struct *work)
{
	struct team_test_breaker *k = container_of(to_delayed_work(work),
						   struct team_test_breaker,
						   work);

	cufab_team_break(k->team, -EHOSTDOWN);
}

/* A lost member's node: the sleeper wakes, and the team refuses work. */
static void broken_team_fails_waits_and_binds(struct kunit *test)
{
	struct team_test_ctx *ctx = team_test_pair(test);
	struct cufab_team *team = team_new(test, 3, G, G);
	struct team_test_breaker k = { .team = team };
	struct cufab_alloc *mem;

	KUNIT_EXPECT_EQ(test, 0, cufab_team_add_device(team, ctx->gpu_a, NULL));
	INIT_DELAYED_WORK(&k.work, team_test_break);
	schedule_delayed_work(&k.work, msecs_to_jiffies(20));
	KUNIT_EXPECT_EQ(test, -EHOSTDOWN, cufab_team_wait(team, 0, "test"));
	flush_delayed_work(&k.work);
	KUNIT_EXPECT_EQ(test, 0u, team->waiters);
	KUNIT_EXPECT_EQ(test, -EHOSTDOWN, cufab_team_wait(team, 0, "test"));
	KUNIT_EXPECT_EQ(test, -EHOSTDOWN,
			cufab_team_add_device(team, ctx->gpu_b, NULL));
	KUNIT_EXPECT_EQ(test, -EHOSTDOWN,
			cufab_team_add_remote(team, cufab_node.node_index + 1,
					      0, team->clique));
	mem = team_alloc(test, CUFAB_LOC_DEVICE, ctx->gpu_a, G, false);
	KUNIT_EXPECT_EQ(test, -EHOSTDOWN,
			team_bind(team, ctx->gpu_a, 0, G, mem, 0, A, NULL));
	/* the first cause stays */
	cufab_team_break(team, -EIO);
	KUNIT_EXPECT_EQ(test, -EHOSTDOWN, team->broken);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&mem->ref));
	cufab_alloc_put(mem);
	cufab_team_destroy(team);
}

static struct kunit_case cufab_team_cases[] = {
	KUNIT_CASE(create_rejects_bad_args),
	KUNIT_CASE(add_device_rules),
	KUNIT_CASE(add_device_other_clique),
	KUNIT_CASE(describe_names_members),
	KUNIT_CASE(wait_times_out_incomplete),
	KUNIT_CASE(wait_woken_by_last_join),
	KUNIT_CASE(bind_rules),
	KUNIT_CASE(bind_host_numa),
	KUNIT_CASE(unbind_rules),
	KUNIT_CASE(unbind_owner_and_tag),
	KUNIT_CASE(destroy_with_live_bindings),
	KUNIT_CASE(nomem_changes_nothing),
	KUNIT_CASE(random_against_model),
	KUNIT_CASE(remote_members_rules),
	KUNIT_CASE(remote_bindings_replace_and_drop),
	KUNIT_CASE(broken_team_fails_waits_and_binds),
	{}
};

static struct kunit_suite cufab_team_suite = {
	.name = "cufab_team",
	.init = team_test_init,
	.exit = team_test_exit,
	.test_cases = cufab_team_cases,
};

kunit_test_suites(&cufab_team_suite);
