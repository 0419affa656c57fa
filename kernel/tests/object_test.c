// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-client object table (kernel/object.c, kernel/client.c).
 *
 * A test-only object type can depend on another object (holding a
 * reference on it, as later endpoints will on allocations) and records the
 * order in which objects are destroyed.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "cufab.h"

#define LOG_MAX	16

struct destroy_log {
	u32 ids[LOG_MAX];
	unsigned int n;
};

struct test_obj {
	struct cufab_object obj;
	struct cufab_object *dep;
	struct destroy_log *log;
};

static_assert(offsetof(struct test_obj, obj) == 0);

static void test_obj_destroy(struct cufab_object *obj)
{
	struct test_obj *t = container_of(obj, struct test_obj, obj);

	if (t->log && t->log->n < LOG_MAX)
		t->log->ids[t->log->n++] = obj->id;
	if (t->dep)
		cufab_object_put(t->dep);
}

const struct cufab_object_ops cufab_test_object_ops = {
	.name = "test",
	.size = sizeof(struct test_obj),
	.destroy = test_obj_destroy,
};

struct obj_fixture {
	struct cufab_client *client;
	u64 live_before;
	struct destroy_log log;
};

static int obj_test_init(struct kunit *test)
{
	struct obj_fixture *f;

	struct cufab_client *client;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	test->priv = f;
	f->live_before = cufab_live_objects();
	client = cufab_client_alloc();
	if (IS_ERR(client))
		return PTR_ERR(client);
	f->client = client;
	return 0;
}

static void obj_test_exit(struct kunit *test)
{
	struct obj_fixture *f = test->priv;

	if (f->client)
		cufab_client_free(f->client);
	/* whatever a test did, closing the client frees it all */
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), f->live_before);
}

static struct test_obj *new_obj(struct kunit *test, struct cufab_object *dep)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *t;

	t = cufab_object_alloc(f->client, t, CUFAB_OBJ_TEST);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_EXPECT_NE(test, t->obj.id, 0U);
	t->log = &f->log;
	if (dep) {
		refcount_inc(&dep->users);
		t->dep = dep;
	}
	cufab_object_finalize(&t->obj);
	return t;
}

static void object_invisible_until_finalized(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct cufab_object *found;
	struct test_obj *t;
	u64 live = cufab_live_objects();

	t = cufab_object_alloc(f->client, t, CUFAB_OBJ_TEST);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live + 1);
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, t->obj.id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	/* nor can it be destroyed by id while being built */
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, t->obj.id),
			-ENOENT);

	cufab_object_finalize(&t->obj);
	found = cufab_object_get(f->client, t->obj.id, CUFAB_OBJ_TEST);
	KUNIT_ASSERT_PTR_EQ(test, found, &t->obj);
	KUNIT_EXPECT_EQ(test, refcount_read(&found->users), 2U);
	cufab_object_put(found);
	KUNIT_EXPECT_EQ(test, refcount_read(&t->obj.users), 1U);
}

static void object_abort_releases_id(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	u64 live = cufab_live_objects();
	struct test_obj *t;

	t = cufab_object_alloc(f->client, t, CUFAB_OBJ_TEST);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	t->log = &f->log;
	cufab_object_abort(&t->obj);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
	KUNIT_EXPECT_TRUE(test, xa_empty(&f->client->objects));
	/* plain abort is for objects holding nothing: destroy does not run */
	KUNIT_EXPECT_EQ(test, f->log.n, 0U);
}

static void object_abort_and_destroy_releases_deps(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *dep = new_obj(test, NULL);
	u64 live = cufab_live_objects();
	struct test_obj *t;

	t = cufab_object_alloc(f->client, t, CUFAB_OBJ_TEST);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	t->log = &f->log;
	refcount_inc(&dep->obj.users);
	t->dep = &dep->obj;
	cufab_object_abort_and_destroy(&t->obj);

	KUNIT_EXPECT_EQ(test, f->log.n, 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&dep->obj.users), 1U);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client,
							dep->obj.id), 0);
}

static void object_typed_lookup(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *t = new_obj(test, NULL);
	struct cufab_object *found;

	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, t->obj.id,
						   CUFAB_OBJ_CTX),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, 0, CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, t->obj.id + 1,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	found = cufab_object_get(f->client, t->obj.id, CUFAB_OBJ_ANY);
	KUNIT_ASSERT_PTR_EQ(test, found, &t->obj);
	cufab_object_put(found);
}

static void object_destroy_busy(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *a = new_obj(test, NULL);
	struct test_obj *b = new_obj(test, &a->obj);
	u32 a_id = a->obj.id, b_id = b->obj.id;
	struct cufab_object *found;

	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, 12345),
			-ENOENT);
	/* b depends on a */
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, a_id),
			-EBUSY);
	/* a lookup in progress pins b */
	found = cufab_object_get(f->client, b_id, CUFAB_OBJ_TEST);
	KUNIT_ASSERT_PTR_EQ(test, found, &b->obj);
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, b_id),
			-EBUSY);
	cufab_object_put(found);

	/* a and b are freed by the calls below: only their ids are used */
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, b_id), 0);
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, b_id),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, a_id), 0);
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, a_id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, b_id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
}

/*
 * A destroyed object is kept under its id, absent to every lookup, and the
 * next create of its type gets it back zeroed under a new id, the old one
 * erased: the old id names nothing, a second destroy of it is -ENOENT and
 * leaves the new object alone. Past CUFAB_OBJ_KEPT of them the table lets
 * go of the rest.
 */
static void object_kept_for_next_create(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *t[CUFAB_OBJ_KEPT + 1], *dep = new_obj(test, NULL);
	u64 live = cufab_live_objects();
	unsigned long index;
	struct test_obj *u;
	void *entry;
	unsigned int i, n = 0;
	u32 id;

	u = new_obj(test, &dep->obj);
	id = u->obj.id;
	KUNIT_ASSERT_EQ(test, cufab_object_destroy_user(f->client, id), 0);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
	KUNIT_EXPECT_EQ(test, refcount_read(&dep->obj.users), 1U);
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, id),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, f->client->nr_kept[CUFAB_OBJ_TEST], 1U);

	t[0] = cufab_object_alloc(f->client, t[0], CUFAB_OBJ_TEST);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t[0]);
	KUNIT_EXPECT_PTR_EQ(test, t[0], u);
	KUNIT_EXPECT_GT(test, t[0]->obj.id, id);
	KUNIT_EXPECT_NULL(test, t[0]->dep);
	KUNIT_EXPECT_EQ(test, refcount_read(&t[0]->obj.users), 0U);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live + 1);
	/* still unpublished until finalized */
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, t[0]->obj.id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_NULL(test, xa_load(&f->client->objects, id));
	cufab_object_finalize(&t[0]->obj);
	/* the stale id reaches neither the new object nor anything else */
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(f->client, id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client, id),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, refcount_read(&t[0]->obj.users), 1U);
	for (i = 1; i < ARRAY_SIZE(t); i++) {
		t[i] = new_obj(test, NULL);
		KUNIT_EXPECT_GT(test, t[i]->obj.id, t[i - 1]->obj.id);
	}
	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(f->client,
								t[i]->obj.id),
				0);
	KUNIT_EXPECT_EQ(test, f->client->nr_kept[CUFAB_OBJ_TEST],
			CUFAB_OBJ_KEPT);
	KUNIT_EXPECT_EQ(test, cufab_live_objects(), live);
	/* the kept ones and dep are left in the table */
	xa_for_each(&f->client->objects, index, entry)
		n++;
	KUNIT_EXPECT_EQ(test, n, CUFAB_OBJ_KEPT + 1);
}

/*
 * Ids go round the 31-bit space: past the last one the next create takes
 * the lowest free id again, skipping those in use.
 */
static void object_ids_wrap(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *a = new_obj(test, NULL), *b, *c;

	f->client->next_id = INT_MAX;
	b = new_obj(test, NULL);
	KUNIT_EXPECT_EQ(test, b->obj.id, (u32)INT_MAX);
	c = new_obj(test, NULL);
	/* 0 is never an id and a's is taken */
	KUNIT_EXPECT_EQ(test, c->obj.id, a->obj.id + 1);
}

/*
 * Past the wrap a create walks over a run of ids in use, kept objects'
 * too, to the first free one.
 */
static void object_ids_wrap_over_run(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *a = new_obj(test, NULL), *b = new_obj(test, NULL);
	struct test_obj *c = new_obj(test, NULL), *d, *e;
	u32 c_id = c->obj.id;

	KUNIT_ASSERT_EQ(test, b->obj.id, a->obj.id + 1);
	KUNIT_ASSERT_EQ(test, c_id, b->obj.id + 1);
	/* c is kept under its id: the id stays in use */
	KUNIT_ASSERT_EQ(test, cufab_object_destroy_user(f->client, c_id), 0);
	f->client->next_id = INT_MAX;
	d = new_obj(test, NULL);
	/* the kept c, moved to the last id */
	KUNIT_EXPECT_PTR_EQ(test, d, c);
	KUNIT_EXPECT_EQ(test, d->obj.id, (u32)INT_MAX);
	e = new_obj(test, NULL);
	/* 1 .. b's are in use, c's old one was erased when d took c */
	KUNIT_EXPECT_EQ(test, e->obj.id, c_id);
	KUNIT_EXPECT_EQ(test, f->client->next_id, c_id + 1);
}

/* Closing a client destroys dependents before what they depend on. */
static void client_close_destroys_leaf_first(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *a, *b, *c, *d;
	u32 a_id, b_id, c_id, d_id;
	unsigned int i, pos[4] = {};

	/* chain a <- b <- c created in dependency order, d independent */
	a = new_obj(test, NULL);
	b = new_obj(test, &a->obj);
	c = new_obj(test, &b->obj);
	d = new_obj(test, NULL);
	a_id = a->obj.id;
	b_id = b->obj.id;
	c_id = c->obj.id;
	d_id = d->obj.id;

	cufab_client_free(f->client);
	f->client = NULL;

	KUNIT_ASSERT_EQ(test, f->log.n, 4U);
	for (i = 0; i < f->log.n; i++) {
		if (f->log.ids[i] == a_id)
			pos[0] = i;
		else if (f->log.ids[i] == b_id)
			pos[1] = i;
		else if (f->log.ids[i] == c_id)
			pos[2] = i;
		else
			KUNIT_EXPECT_EQ(test, f->log.ids[i], d_id);
	}
	KUNIT_EXPECT_LT(test, pos[2], pos[1]);
	KUNIT_EXPECT_LT(test, pos[1], pos[0]);
}

static void client_ids_are_per_client(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct cufab_client *other = cufab_client_alloc();
	struct test_obj *t = new_obj(test, NULL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_EXPECT_PTR_EQ(test, cufab_object_get(other, t->obj.id,
						   CUFAB_OBJ_ANY),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_EQ(test, cufab_object_destroy_user(other, t->obj.id),
			-ENOENT);
	cufab_client_free(other);
	KUNIT_EXPECT_TRUE(test, cufab_client_is_owner(f->client));
}

/*
 * Random create / destroy / lookup against a model of which ids are live.
 * Ids never collide and every live id is found; the live counter tracks
 * the model exactly.
 */
static void object_random_ops(struct kunit *test)
{
	struct obj_fixture *f = test->priv;
	struct test_obj *live[64] = {};
	u64 base = cufab_live_objects();
	u32 seed = get_random_u32();
	unsigned int n_live = 0, i;
	struct rnd_state rnd;
	int step;

	kunit_info(test, "seed %u\n", seed);
	prandom_seed_state(&rnd, seed);
	for (step = 0; step < 2000; step++) {
		u32 r = prandom_u32_state(&rnd);
		unsigned int slot = (r >> 8) % ARRAY_SIZE(live);
		struct cufab_object *found;

		if (!live[slot]) {
			live[slot] = new_obj(test, NULL);
			n_live++;
		} else if (r & 1) {
			u32 id = live[slot]->obj.id;

			KUNIT_ASSERT_EQ(test,
					cufab_object_destroy_user(f->client, id),
					0);
			live[slot] = NULL;
			n_live--;
		} else {
			found = cufab_object_get(f->client, live[slot]->obj.id,
						 CUFAB_OBJ_TEST);
			KUNIT_ASSERT_PTR_EQ(test, found, &live[slot]->obj);
			cufab_object_put(found);
		}
		KUNIT_ASSERT_EQ(test, cufab_live_objects(), base + n_live);
	}
	for (i = 0; i < ARRAY_SIZE(live); i++) {
		unsigned int j;

		for (j = i + 1; live[i] && j < ARRAY_SIZE(live); j++) {
			if (live[j])
				KUNIT_EXPECT_NE(test, live[i]->obj.id,
						live[j]->obj.id);
		}
	}
}

static struct kunit_case cufab_object_cases[] = {
	KUNIT_CASE(object_invisible_until_finalized),
	KUNIT_CASE(object_abort_releases_id),
	KUNIT_CASE(object_abort_and_destroy_releases_deps),
	KUNIT_CASE(object_typed_lookup),
	KUNIT_CASE(object_destroy_busy),
	KUNIT_CASE(object_kept_for_next_create),
	KUNIT_CASE(object_ids_wrap),
	KUNIT_CASE(object_ids_wrap_over_run),
	KUNIT_CASE(client_close_destroys_leaf_first),
	KUNIT_CASE(client_ids_are_per_client),
	KUNIT_CASE(object_random_ops),
	{}
};

static struct kunit_suite cufab_object_suite = {
	.name = "cufab_object",
	.init = obj_test_init,
	.exit = obj_test_exit,
	.test_cases = cufab_object_cases,
};

kunit_test_suites(&cufab_object_suite);
