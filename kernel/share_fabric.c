// SPDX-License-Identifier: GPL-2.0
/*
 * The FABRIC export table.
 *
 * Exporting an allocation on an IMEX channel creates a record: a
 * node-wide export id (the xarray index), the channel, a random secret and
 * the allocation. The 64-byte handle is magic, version, the exporting
 * node (its node_index: 0, as it always was, for a node alone), id and
 * secret, so that the pair (node, id) names an export in the domain;
 * without the secret the id is worthless, so handles cannot be guessed.
 * Exporting the same allocation again on the same channel gives the same
 * handle, like NVIDIA's driver does for the life of the allocation.
 *
 * Lifetime: a record does not keep its allocation alive. A FABRIC handle is
 * valid while the allocation lives (while any handle, mapping, dma-buf or
 * import refers to it), so a record holds only a weak pointer: the
 * allocation's final put (cufab_fabric_forget()) removes its records
 * under cufab_fabric_lock before the allocation is freed, and import takes
 * its reference with kref_get_unless_zero() under the same lock, which
 * fails once the final put has started.
 *
 * Locking: cufab_fabric_lock protects the table, each exported
 * allocation's ->fabric and the record lists. It is taken from the
 * allocation's final put (process context), never held across a put.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <crypto/algapi.h>

#include "cufab.h"

static_assert(sizeof(struct cufab_fabric_handle) == CUFAB_FABRIC_HANDLE_LEN);

/**
 * struct cufab_fabric_export - one FABRIC export of an allocation
 * @id: index in cufab_fabric_exports
 * @magic: the kind of handle (CUFAB_FABRIC_MAGIC, CUFAB_IPC_MEM_MAGIC)
 * @channel: IMEX channel of the exporter; importers must present it
 * @secret: random bytes the handle must carry
 * @alloc: weak; valid while the record is in the table
 * @node: entry in the allocation's struct cufab_fabric_exports
 */
struct cufab_fabric_export {
	u32 id;
	u32 magic;
	int channel;
	u8 secret[CUFAB_FABRIC_SECRET_LEN];
	struct cufab_alloc *alloc;
	struct list_head node;
};

/* alloc->fabric of an exported allocation: its records, one per channel */
struct cufab_fabric_exports {
	struct list_head exports;
};

static DEFINE_MUTEX(cufab_fabric_lock);
static DEFINE_XARRAY_ALLOC1(cufab_fabric_exports);
/* cyclic ids: a stale id of a freed allocation is not reused soon */
static u32 cufab_fabric_next_id;

/*
 * The handle layout serves every kind of FABRIC export: @magic says which
 * (allocations "CFAB", logical endpoints "CFLE"), so a handle of one kind
 * is never taken for the other.
 */
void cufab_fabric_encode_as(u32 magic, u32 export_id,
			    const u8 secret[CUFAB_FABRIC_SECRET_LEN],
			    u8 out[CUFAB_FABRIC_HANDLE_LEN])
{
	struct cufab_fabric_handle h = {
		.magic = cpu_to_le32(magic),
		.version = cpu_to_le16(CUFAB_FABRIC_VERSION),
		.node = cpu_to_le16(cufab_node.node_index),
		.export_id = cpu_to_le64(export_id),
	};

	memcpy(h.secret, secret, CUFAB_FABRIC_SECRET_LEN);
	memcpy(out, &h, sizeof(h));
}

/*
 * A FABRIC handle's export id and node, whichever node made it: -EINVAL
 * for another kind or version, or no export id (no node produced it).
 */
static int cufab_fabric_parse(u32 magic, const u8 in[CUFAB_FABRIC_HANDLE_LEN],
			      u32 *export_id, unsigned int *node)
{
	struct cufab_fabric_handle h;
	u64 id;

	/* @in has no alignment guarantee */
	memcpy(&h, in, sizeof(h));
	id = le64_to_cpu(h.export_id);
	if (le32_to_cpu(h.magic) != magic ||
	    le16_to_cpu(h.version) != CUFAB_FABRIC_VERSION ||
	    !id || id > U32_MAX)
		return -EINVAL;
	*export_id = id;
	*node = le16_to_cpu(h.node);
	return 0;
}

/**
 * cufab_fabric_decode_as() - parse the fixed part of a FABRIC handle
 * @magic: the kind of handle expected
 * @in: 64 bytes from userspace
 * @export_id: out
 * @secret: out, points into @in
 *
 * Return: 0, -EINVAL for anything this module did not produce,
 * -EHOSTDOWN for a handle of another node (only memory crosses nodes, and
 * through cufab_fabric_handle_node() and fabric_remote.c).
 */
int cufab_fabric_decode_as(u32 magic, const u8 in[CUFAB_FABRIC_HANDLE_LEN],
			   u32 *export_id, const u8 **secret)
{
	unsigned int node;
	int ret;

	ret = cufab_fabric_parse(magic, in, export_id, &node);
	if (ret)
		return ret;
	if (node != cufab_node.node_index)
		return -EHOSTDOWN;
	*secret = in + offsetof(struct cufab_fabric_handle, secret);
	return 0;
}

/**
 * cufab_fabric_handle_node() - the node that exported a FABRIC handle
 * @magic: the kind of handle expected
 * @in: 64 bytes from userspace
 * @node: out, the node index the handle carries
 *
 * Return: 0, or -EINVAL for a handle of another kind, version or with no
 * export id (whichever node it names: no node produced it).
 */
int cufab_fabric_handle_node(u32 magic, const u8 in[CUFAB_FABRIC_HANDLE_LEN],
			     unsigned int *node)
{
	u32 export_id;

	return cufab_fabric_parse(magic, in, &export_id, node);
}

/*
 * crypto_memneq() lives in CONFIG_CRYPTO_LIB_UTILS, which only some crypto
 * users select (the debug kernel has none), so compare in constant time
 * here when it is missing: the secret must not leak through timing.
 */
void cufab_fabric_encode(u32 export_id,
			 const u8 secret[CUFAB_FABRIC_SECRET_LEN],
			 u8 out[CUFAB_FABRIC_HANDLE_LEN])
{
	cufab_fabric_encode_as(CUFAB_FABRIC_MAGIC, export_id, secret, out);
}

int cufab_fabric_decode(const u8 in[CUFAB_FABRIC_HANDLE_LEN], u32 *export_id,
			const u8 **secret)
{
	return cufab_fabric_decode_as(CUFAB_FABRIC_MAGIC, in, export_id,
				      secret);
}

bool cufab_fabric_secret_ok(const u8 *a, const u8 *b)
{
#if IS_ENABLED(CONFIG_CRYPTO_LIB_UTILS)
	return !crypto_memneq(a, b, CUFAB_FABRIC_SECRET_LEN);
#else
	unsigned int i;
	u8 diff = 0;

	for (i = 0; i < CUFAB_FABRIC_SECRET_LEN; i++) {
		diff |= a[i] ^ b[i];
		OPTIMIZER_HIDE_VAR(diff);
	}
	return !diff;
#endif
}

/*
 * Final put of an allocation exported as FABRIC (alloc.c): its handles
 * become invalid.
 */
void cufab_fabric_forget(struct cufab_alloc *alloc)
{
	struct cufab_fabric_export *rec, *tmp;
	struct cufab_fabric_exports *ext;

	mutex_lock(&cufab_fabric_lock);
	ext = alloc->fabric;
	list_for_each_entry_safe(rec, tmp, &ext->exports, node) {
		xa_erase(&cufab_fabric_exports, rec->id);
		list_del(&rec->node);
		kfree(rec);
	}
	alloc->fabric = NULL;
	mutex_unlock(&cufab_fabric_lock);
	kfree(ext);
}

/* The allocation's record list, created on first export. */
static struct cufab_fabric_exports *
cufab_fabric_exports_get(struct cufab_alloc *alloc)
{
	struct cufab_fabric_exports *ext;

	lockdep_assert_held(&cufab_fabric_lock);
	if (alloc->fabric)
		return alloc->fabric;
	ext = kzalloc(sizeof(*ext), GFP_KERNEL_ACCOUNT);
	if (!ext)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&ext->exports);
	alloc->fabric = ext;
	return ext;
}

static struct cufab_fabric_export *
cufab_fabric_record(struct cufab_alloc *alloc, struct cufab_fabric_exports *ext,
		    u32 magic, int channel)
{
	struct cufab_fabric_export *rec;
	int ret;

	list_for_each_entry(rec, &ext->exports, node)
		if (rec->magic == magic && rec->channel == channel)
			return rec;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL_ACCOUNT);
	if (!rec)
		return ERR_PTR(-ENOMEM);
	rec->magic = magic;
	rec->channel = channel;
	rec->alloc = alloc;
	get_random_bytes(rec->secret, sizeof(rec->secret));
	ret = xa_alloc_cyclic(&cufab_fabric_exports, &rec->id, rec,
			      xa_limit_32b, &cufab_fabric_next_id,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		kfree(rec);
		return ERR_PTR(ret);
	}
	list_add_tail(&rec->node, &ext->exports);
	return rec;
}

/**
 * cufab_fabric_export_as() - the handle of an allocation, of one kind
 * @alloc: the caller holds a reference
 * @magic: the kind: FABRIC, or a CUDA IPC handle (share_ipc.c)
 * @channel: the exporter's IMEX channel (checked by the caller)
 * @out: the 64-byte handle
 *
 * Return: 0 or -ENOMEM.
 */
int cufab_fabric_export_as(struct cufab_alloc *alloc, u32 magic, int channel,
			   u8 out[CUFAB_FABRIC_HANDLE_LEN])
{
	struct cufab_fabric_export *rec;
	struct cufab_fabric_exports *ext;
	int ret = 0;

	mutex_lock(&cufab_fabric_lock);
	ext = cufab_fabric_exports_get(alloc);
	if (IS_ERR(ext)) {
		ret = PTR_ERR(ext);
		goto out;
	}
	rec = cufab_fabric_record(alloc, ext, magic, channel);
	if (IS_ERR(rec)) {
		ret = PTR_ERR(rec);
		/* leave no empty list behind on a fresh allocation */
		if (list_empty(&ext->exports)) {
			alloc->fabric = NULL;
			kfree(ext);
		}
		goto out;
	}
	cufab_fabric_encode_as(magic, rec->id, rec->secret, out);
out:
	mutex_unlock(&cufab_fabric_lock);
	return ret;
}

int cufab_fabric_export(struct cufab_alloc *alloc, int channel,
			u8 out[CUFAB_FABRIC_HANDLE_LEN])
{
	return cufab_fabric_export_as(alloc, CUFAB_FABRIC_MAGIC, channel, out);
}

/**
 * cufab_fabric_import_as() - the allocation a handle of one kind names
 * @magic: the kind expected
 * @in: 64 bytes from userspace
 * @channel: out, the exporter's IMEX channel
 * @gone: what a well-formed handle naming no live export of that kind
 *	(forged, or its allocation freed) returns
 *
 * Return: the allocation with a reference, ERR_PTR(-EINVAL) for a handle
 * that is malformed, or ERR_PTR(@gone).
 */
struct cufab_alloc *cufab_fabric_import_as(u32 magic,
					   const u8 in[CUFAB_FABRIC_HANDLE_LEN],
					   int *channel, int gone)
{
	struct cufab_alloc *alloc = ERR_PTR(gone);
	struct cufab_fabric_export *rec;
	const u8 *secret;
	u32 id;

	if (cufab_fabric_decode_as(magic, in, &id, &secret))
		return ERR_PTR(-EINVAL);
	mutex_lock(&cufab_fabric_lock);
	rec = xa_load(&cufab_fabric_exports, id);
	if (rec && rec->magic == magic &&
	    cufab_fabric_secret_ok(rec->secret, secret) &&
	    kref_get_unless_zero(&rec->alloc->ref)) {
		alloc = rec->alloc;
		*channel = rec->channel;
	}
	mutex_unlock(&cufab_fabric_lock);
	return alloc;
}

/**
 * cufab_fabric_import() - the allocation a FABRIC handle names
 * @in: 64 bytes from userspace
 * @channel: out, the exporter's IMEX channel
 *
 * Return: the allocation with a reference, or ERR_PTR(-EINVAL) for a
 * handle that is malformed, forged, or whose allocation is gone.
 */
struct cufab_alloc *cufab_fabric_import(const u8 in[CUFAB_FABRIC_HANDLE_LEN],
					int *channel)
{
	return cufab_fabric_import_as(CUFAB_FABRIC_MAGIC, in, channel, -EINVAL);
}

/* Records in the table (KUnit and module exit check it). */
unsigned long cufab_fabric_exports_count(void)
{
	struct cufab_fabric_export *rec;
	unsigned long index, n = 0;

	mutex_lock(&cufab_fabric_lock);
	xa_for_each(&cufab_fabric_exports, index, rec)
		n++;
	mutex_unlock(&cufab_fabric_lock);
	return n;
}

/**
 * cufab_fabric_show() - debugfs "fabric_exports", one line per record
 * @m: the seq_file
 *
 * "id channel alloc length owner_pid owner_comm": which allocations can be
 * imported on which IMEX channel, for whoever audits the channels.
 */
void cufab_fabric_show(struct seq_file *m)
{
	struct cufab_fabric_export *rec;
	unsigned long index;

	mutex_lock(&cufab_fabric_lock);
	xa_for_each(&cufab_fabric_exports, index, rec) {
		/* CUDA IPC records are on no channel */
		if (rec->magic != CUFAB_FABRIC_MAGIC)
			continue;
		seq_printf(m, "%u %d %llu %llu %d %s\n", rec->id, rec->channel,
			   rec->alloc->id, rec->alloc->length,
			   rec->alloc->owner_pid, rec->alloc->owner_comm);
	}
	mutex_unlock(&cufab_fabric_lock);
}

/* Module exit: every allocation is gone, so must every record be. */
void cufab_fabric_exit(void)
{
	WARN_ON(!xa_empty(&cufab_fabric_exports));
	xa_destroy(&cufab_fabric_exports);
}
