// SPDX-License-Identifier: GPL-2.0
/*
 * The per-client object table.
 *
 * Creation is two-phase: cufab_object_alloc() stores the object under a
 * new id with users at 0, which every lookup treats as absent (it takes a
 * reference only from a count above zero); the creator builds the object
 * and then publishes it with cufab_object_finalize(), which sets users to
 * 1 under the table's lock, or gives the id back with
 * cufab_object_abort(). No other thread can ever find a half-built
 * object, and publishing walks the table no second time.
 *
 * Lifetime: users is 1 once published (the table's reference). Lookups and
 * dependent objects take more. Destroy succeeds only when the table holds
 * the last reference, so an object something depends on is -EBUSY.
 *
 * Ids: each create takes the id after the client's last one, skipping
 * ids in use, so a destroyed id names nothing until the client has gone
 * through the 2^31 - 1 others: a second destroy, or any call, with a stale
 * id is -ENOENT and never reaches an object made since, whatever its type.
 * The table is a plain xarray, not an allocating one: the next id is
 * almost always free, so a create is one insert there, and neither it
 * nor an erase keeps the free-slot marks xa_alloc_cyclic() searches
 * (a third of the table's cost per create/destroy pair).
 *
 * Kept objects: a destroyed object stays in the table under its old id
 * with users at 0 (as absent to every lookup as one being built) on its
 * client's list of kept objects of its type, up to CUFAB_OBJ_KEPT of them.
 * The client's next create of that type takes its memory back, zeroed past
 * the header, stores it under the new id and only then erases the old one:
 * a create/destroy loop costs no allocation (nor memcg charge), and the
 * table's node under the ids in use is never emptied, freed and made
 * again, as erasing first would on every pair.
 *
 * Locking: the xarray's own lock, which also guards the kept lists.
 * Nothing else is taken under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "cufab.h"

static const struct cufab_object_ops *const cufab_object_ops[CUFAB_OBJ_MAX] = {
	[CUFAB_OBJ_CTX] = &cufab_ctx_ops,
	[CUFAB_OBJ_MEM_HANDLE] = &cufab_mem_handle_ops,
	[CUFAB_OBJ_STREAM] = &cufab_stream_ops,
	[CUFAB_OBJ_EVENT] = &cufab_event_ops,
	[CUFAB_OBJ_POOL] = &cufab_pool_handle_ops,
#ifdef CUFAB_KUNIT
	[CUFAB_OBJ_TEST] = &cufab_test_object_ops,
#endif
};

/* Objects allocated and not yet freed, all clients together (debugfs). */
static atomic64_t cufab_live = ATOMIC64_INIT(0);

void cufab_live_objects_inc(void)
{
	atomic64_inc(&cufab_live);
}

void cufab_live_objects_dec(void)
{
	WARN_ON_ONCE(atomic64_dec_return(&cufab_live) < 0);
}

u64 cufab_live_objects(void)
{
	return atomic64_read(&cufab_live);
}

/*
 * One per type, made at module init. KUnit runs before the module's init
 * (when it is COMING), so a type without a cache yet uses kmalloc().
 */
static struct kmem_cache *cufab_object_caches[CUFAB_OBJ_MAX];

int cufab_object_caches_init(void)
{
	const struct cufab_object_ops *ops;
	unsigned int t;

	for (t = 0; t < CUFAB_OBJ_MAX; t++) {
		ops = cufab_object_ops[t];
		if (!ops || !ops->slab)
			continue;
		cufab_object_caches[t] = kmem_cache_create(ops->slab, ops->size,
							   0, SLAB_ACCOUNT,
							   NULL);
		if (!cufab_object_caches[t]) {
			cufab_object_caches_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void cufab_object_caches_exit(void)
{
	unsigned int t;

	for (t = 0; t < CUFAB_OBJ_MAX; t++) {
		kmem_cache_destroy(cufab_object_caches[t]);
		cufab_object_caches[t] = NULL;
	}
}

static struct cufab_object *cufab_object_mem_alloc(enum cufab_object_type type)
{
	struct kmem_cache *cache = cufab_object_caches[type];

	if (cache)
		return kmem_cache_zalloc(cache, GFP_KERNEL_ACCOUNT);
	return kzalloc(cufab_object_ops[type]->size, GFP_KERNEL_ACCOUNT);
}

static void cufab_object_mem_free(struct cufab_object *obj)
{
	struct kmem_cache *cache = cufab_object_caches[obj->type];

	if (cache)
		kmem_cache_free(cache, obj);
	else
		kfree(obj);
}

/* Ids fit a signed int, so that userspace may store them in one; 0 is none. */
#define CUFAB_OBJ_ID_MAX	((u32)INT_MAX)

/*
 * The first id at or after @id that no entry holds, CUFAB_OBJ_ID_MAX + 1
 * for none. Context: the table's lock.
 */
static u32 cufab_object_id_after_run(struct xarray *xa, u32 id)
{
	XA_STATE(xas, xa, id);
	void *entry;

	xas_for_each(&xas, entry, CUFAB_OBJ_ID_MAX) {
		if (xas.xa_index != id)
			break;
		id++;
	}
	return id;
}

/*
 * Store @obj under the client's next id: the one after its last, or past
 * the 31-bit space 1 again, skipping ids in use (only ever met after that
 * wrap). Context: the table's lock, which allocating a node of the table
 * may drop and retake.
 *
 * Return: 0 with *@out set, -EBUSY when every id is in use, -ENOMEM.
 */
static int cufab_object_id_store(struct cufab_client *client,
				 struct cufab_object *obj, u32 *out)
{
	u32 id = client->next_id;
	bool wrapped = false;
	int ret;

	if (!id || id > CUFAB_OBJ_ID_MAX)
		id = 1;
	for (;;) {
		ret = __xa_insert(&client->objects, id, obj,
				  GFP_KERNEL_ACCOUNT);
		if (ret != -EBUSY)
			break;
		id = cufab_object_id_after_run(&client->objects, id);
		if (id > CUFAB_OBJ_ID_MAX) {
			if (wrapped)
				return -EBUSY;
			wrapped = true;
			id = 1;
		}
	}
	if (ret)
		return ret;
	*out = id;
	client->next_id = id + 1;
	return 0;
}

/*
 * Zero what follows the header of a kept object of @size bytes, a word at
 * a time: every type's struct holds pointers, so its size is a multiple of
 * a word, and memset() of a size known only at run time goes byte by byte
 * (rep stosb), which costs a create as much as the rest of it in a VM
 * without hardware help (TCG).
 */
static void cufab_object_clear_body(struct cufab_object *obj, size_t size)
{
	static_assert(sizeof(*obj) % sizeof(u64) == 0);

	memset64((u64 *)(obj + 1), 0, (size - sizeof(*obj)) / sizeof(u64));
}

/*
 * A kept object of @type moved to a new id, or NULL when none is kept.
 * Stored under the new id before the old one is erased (see above). Only
 * the body is cleared: a lookup may read the header meanwhile, and finds
 * it unpublished.
 */
static struct cufab_object *cufab_object_unkeep(struct cufab_client *client,
						enum cufab_object_type type,
						int *err)
{
	struct cufab_object *obj;
	u32 id;
	int ret;

	xa_lock(&client->objects);
	obj = client->kept[type];
	if (!obj) {
		xa_unlock(&client->objects);
		return NULL;
	}
	/* may drop the lock to allocate: the object is off the list */
	client->kept[type] = obj->next_kept;
	client->nr_kept[type]--;
	ret = cufab_object_id_store(client, obj, &id);
	if (ret < 0) {
		obj->next_kept = client->kept[type];
		client->kept[type] = obj;
		client->nr_kept[type]++;
		xa_unlock(&client->objects);
		*err = ret;
		return NULL;
	}
	__xa_erase(&client->objects, obj->id);
	obj->id = id;
	obj->next_kept = NULL;
	xa_unlock(&client->objects);
	cufab_object_clear_body(obj, cufab_object_ops[type]->size);
	return obj;
}

/**
 * _cufab_object_add() - a new object under an id of its own
 * @client: owner
 * @type: a real object type
 * @size: bytes of the containing structure (its type's ops->size)
 *
 * Use cufab_object_alloc(). The object is invisible to lookups until
 * cufab_object_finalize().
 *
 * Return: the object header (users = 0 until published), or
 * ERR_PTR(-ENOMEM) / -ENOSPC.
 */
struct cufab_object *_cufab_object_add(struct cufab_client *client,
				       enum cufab_object_type type,
				       size_t size)
{
	struct cufab_object *obj;
	int ret;

	if (WARN_ON(type <= CUFAB_OBJ_ANY || type >= CUFAB_OBJ_MAX ||
		    !cufab_object_ops[type] ||
		    cufab_object_ops[type]->size != size ||
		    size % sizeof(u64)))
		return ERR_PTR(-EINVAL);
	/* before the kept list: the error path is swept either way */
	if (cufab_should_fail(CUFAB_FAULT_OBJECT_ALLOC))
		return ERR_PTR(-ENOMEM);
	ret = 0;
	obj = cufab_object_unkeep(client, type, &ret);
	if (obj)
		goto out;
	if (ret)
		goto err;
	obj = cufab_object_mem_alloc(type);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->type = type;
	obj->client = client;
	/* zeroed: users is 0, unpublished */

	xa_lock(&client->objects);
	ret = cufab_object_id_store(client, obj, &obj->id);
	xa_unlock(&client->objects);
	if (ret < 0) {
		cufab_object_mem_free(obj);
		goto err;
	}
out:
	cufab_live_objects_inc();
	return obj;
err:
	return ERR_PTR(ret == -EBUSY ? -ENOSPC : ret);
}

/**
 * cufab_object_finalize() - publish a fully built object
 * @obj: from cufab_object_alloc()
 *
 * Cannot fail: the object is in the table already. Under the table's
 * lock, so that a lookup that sees the count sees the built object.
 */
void cufab_object_finalize(struct cufab_object *obj)
{
	xa_lock(&obj->client->objects);
	WARN_ON(refcount_read(&obj->users));
	refcount_set(&obj->users, 1);
	xa_unlock(&obj->client->objects);
}

/* Published: found by lookups. Context: the table's lock held. */
static bool cufab_object_published(const struct cufab_object *obj)
{
	return obj && refcount_read(&obj->users);
}

static void cufab_object_free(struct cufab_object *obj)
{
	cufab_object_mem_free(obj);
	cufab_live_objects_dec();
}

/**
 * cufab_object_abort() - undo cufab_object_alloc()
 * @obj: never finalized, holding nothing its destroy op would release
 */
void cufab_object_abort(struct cufab_object *obj)
{
	void *old;

	old = xa_erase(&obj->client->objects, obj->id);
	WARN_ON(old != obj);
	cufab_object_free(obj);
}

/**
 * cufab_object_abort_and_destroy() - undo a partly built object
 * @obj: never finalized; its destroy op releases what it holds so far
 */
void cufab_object_abort_and_destroy(struct cufab_object *obj)
{
	const struct cufab_object_ops *ops = cufab_object_ops[obj->type];

	if (ops->destroy)
		ops->destroy(obj);
	cufab_object_abort(obj);
}

/**
 * cufab_object_get() - find an object of a client by id
 * @client: owner
 * @id: the id userspace gave
 * @type: expected type, or CUFAB_OBJ_ANY
 *
 * Return: the object with a reference the caller drops with
 * cufab_object_put(), or ERR_PTR(-ENOENT) when no published object of
 * @type has @id.
 */
struct cufab_object *cufab_object_get(struct cufab_client *client, u32 id,
				      enum cufab_object_type type)
{
	struct cufab_object *obj;

	xa_lock(&client->objects);
	obj = xa_load(&client->objects, id);
	if (!obj || (type != CUFAB_OBJ_ANY && obj->type != type) ||
	    !refcount_inc_not_zero(&obj->users))
		obj = ERR_PTR(-ENOENT);
	xa_unlock(&client->objects);
	return obj;
}

void cufab_object_put(struct cufab_object *obj)
{
	/* the table's reference keeps a published object above zero */
	refcount_dec(&obj->users);
}

static void cufab_object_destroy(struct cufab_object *obj)
{
	const struct cufab_object_ops *ops = cufab_object_ops[obj->type];

	if (ops->destroy)
		ops->destroy(obj);
	cufab_object_free(obj);
}

/*
 * Destroy @obj, unpublished (users 0) but still in the table, and keep it
 * under its id for its client's next create of its type, or erase and
 * free it when the client keeps enough of them.
 */
static void cufab_object_destroy_keep(struct cufab_object *obj)
{
	const struct cufab_object_ops *ops = cufab_object_ops[obj->type];
	struct cufab_client *client = obj->client;
	enum cufab_object_type type = obj->type;
	bool keep;

	if (ops->destroy)
		ops->destroy(obj);
	xa_lock(&client->objects);
	keep = client->nr_kept[type] < CUFAB_OBJ_KEPT;
	if (keep) {
		obj->next_kept = client->kept[type];
		client->kept[type] = obj;
		client->nr_kept[type]++;
	} else {
		__xa_erase(&client->objects, obj->id);
	}
	xa_unlock(&client->objects);
	if (keep)
		cufab_live_objects_dec();
	else
		cufab_object_free(obj);
}

/**
 * cufab_object_destroy_user() - CUFAB_IOCTL_DESTROY: destroy by id
 * @client: owner
 * @id: any object type
 *
 * Return: 0, -ENOENT for no such object, -EBUSY while another object
 * depends on it or another thread of the client is using it.
 */
int cufab_object_destroy_user(struct cufab_client *client, u32 id)
{
	struct cufab_object *obj;

	xa_lock(&client->objects);
	obj = xa_load(&client->objects, id);
	if (!cufab_object_published(obj)) {
		xa_unlock(&client->objects);
		return -ENOENT;
	}
	if (!refcount_dec_if_one(&obj->users)) {
		xa_unlock(&client->objects);
		return -EBUSY;
	}
	xa_unlock(&client->objects);

	cufab_object_destroy_keep(obj);
	return 0;
}

/**
 * cufab_object_release_user() - drop one counted hold on an object by id
 * @client: owner
 * @id: the id userspace gave
 * @type: the object's type
 * @holds: the object's count of holds (at least 1 while it is published)
 *
 * One step under the table's lock, so that a lookup racing with the last
 * release cannot leave a count of 0 on a live object: either a hold that
 * is not the last goes, or the last goes with the object, or (another
 * thread using the object at the last hold) nothing changes.
 *
 * Return: 0, -ENOENT for no such object, -EBUSY for the last hold of an
 * object in use; the caller may try again.
 */
int cufab_object_release_user(struct cufab_client *client, u32 id,
			      enum cufab_object_type type,
			      atomic_t *(*holds)(struct cufab_object *obj))
{
	struct cufab_object *obj;
	atomic_t *count;

	xa_lock(&client->objects);
	obj = xa_load(&client->objects, id);
	if (!cufab_object_published(obj) || obj->type != type) {
		xa_unlock(&client->objects);
		return -ENOENT;
	}
	count = holds(obj);
	if (atomic_add_unless(count, -1, 1)) {
		xa_unlock(&client->objects);
		return 0;
	}
	if (!refcount_dec_if_one(&obj->users)) {
		xa_unlock(&client->objects);
		return -EBUSY;
	}
	atomic_set(count, 0);
	xa_unlock(&client->objects);

	cufab_object_destroy_keep(obj);
	return 0;
}

/**
 * cufab_object_destroy_all() - destroy every object of a closing client
 * @client: no ioctl can be running on it any more
 *
 * Leaf first: each pass destroys the objects nothing depends on, which
 * releases their references on the others. A pass that destroys nothing
 * while objects remain means a reference was leaked: warn and leak the
 * rest rather than free memory still in use.
 */
static void cufab_object_destroy_all(struct cufab_client *client)
{
	struct cufab_object *obj;
	unsigned long index;
	unsigned int t;

	/* kept objects hold nothing: only their ids and memory go */
	for (t = 0; t < CUFAB_OBJ_MAX; t++) {
		while ((obj = client->kept[t])) {
			client->kept[t] = obj->next_kept;
			xa_erase(&client->objects, obj->id);
			cufab_object_mem_free(obj);
		}
		client->nr_kept[t] = 0;
	}
	while (!xa_empty(&client->objects)) {
		unsigned int destroyed = 0;

		xa_for_each(&client->objects, index, obj) {
			if (!refcount_dec_if_one(&obj->users))
				continue;
			xa_erase(&client->objects, index);
			cufab_object_destroy(obj);
			destroyed++;
		}
		if (WARN_ON(!destroyed)) {
			pr_err("pid %d (%s): objects left with references on close\n",
			       pid_nr(client->tgid), client->comm);
			break;
		}
	}
}

static void cufab_objects_init(struct cufab_client *client)
{
	xa_init_flags(&client->objects, XA_FLAGS_ACCOUNT);
}

static void cufab_objects_teardown(struct cufab_client *client)
{
	cufab_object_destroy_all(client);
	xa_destroy(&client->objects);
}

const struct cufab_client_part cufab_object_client_part = {
	.name = "objects",
	.init = cufab_objects_init,
	.teardown = cufab_objects_teardown,
};
