/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel objects of a client: contexts now, endpoints, allocations,
 * multicast teams ... later. Each lives in its client's xarray under a small
 * u32 id that userspace uses to name it.
 */
#ifndef _CUFAB_OBJECT_H
#define _CUFAB_OBJECT_H

#include <linux/refcount.h>
#include <linux/types.h>

struct cufab_client;

enum cufab_object_type {
	CUFAB_OBJ_NONE,
	CUFAB_OBJ_ANY,		/* lookup wildcard, never a real type */
	CUFAB_OBJ_CTX,
	CUFAB_OBJ_MEM_HANDLE,	/* alloc.h: CUmemGenericAllocationHandle */
	CUFAB_OBJ_POOL,		/* pool.c: CUmemoryPool */
#ifdef CUFAB_KUNIT
	CUFAB_OBJ_TEST,		/* kernel/tests only */
#endif
	CUFAB_OBJ_MAX,
};

/**
 * struct cufab_object - header embedded first in every object
 * @users: one reference for the xarray slot, one per object depending on
 *	this one, one per lookup in progress. Destroy needs it to be 1.
 * @type: enum cufab_object_type
 * @id: the id userspace uses, unique within @client
 * @client: owner
 */
struct cufab_object {
	refcount_t users;
	enum cufab_object_type type;
	u32 id;
	struct cufab_client *client;
};

/**
 * struct cufab_object_ops - per-type behaviour
 * @name: type name for messages
 * @destroy: release what the object holds; NULL when it holds nothing.
 *	Called once, when the object can no longer be found. It must not
 *	free the object itself.
 */
struct cufab_object_ops {
	const char *name;
	void (*destroy)(struct cufab_object *obj);
};

struct cufab_object *_cufab_object_alloc(struct cufab_client *client,
					 size_t size,
					 enum cufab_object_type type);

/*
 * Reserve an id and allocate the object that embeds struct cufab_object as
 * its first member (static_assert that next to the type). The id is not
 * visible to lookups until cufab_object_finalize().
 */
#define cufab_object_alloc(client, ptr, type)				\
	((typeof(ptr))_cufab_object_alloc(client, sizeof(*(ptr)), type))

void cufab_object_finalize(struct cufab_object *obj);
void cufab_object_abort(struct cufab_object *obj);
void cufab_object_abort_and_destroy(struct cufab_object *obj);

struct cufab_object *cufab_object_get(struct cufab_client *client, u32 id,
				      enum cufab_object_type type);
void cufab_object_put(struct cufab_object *obj);

int cufab_object_destroy_user(struct cufab_client *client, u32 id);
void cufab_object_destroy_all(struct cufab_client *client);

void cufab_live_objects_inc(void);
void cufab_live_objects_dec(void);
u64 cufab_live_objects(void);

#ifdef CUFAB_KUNIT
extern const struct cufab_object_ops cufab_test_object_ops;
#endif

#endif /* _CUFAB_OBJECT_H */
