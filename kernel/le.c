// SPDX-License-Identifier: GPL-2.0
/*
 * Logical endpoints: the id space of a client, endpoint lifetime, and the
 * calls that need no device or memory (reserve, release, create, destroy,
 * query, limits).
 *
 * Ids follow not reserved -> reserved (LE_ID_RESERVE) -> associated
 * (LE_CREATE, LE_IMPORT) -> reserved (LE_DESTROY) -> not reserved
 * (LE_ID_RELEASE). Every transition the API leaves undefined is refused
 * here with -EINVAL or -EBUSY and a log line naming the id and the rule.
 *
 * Construction does not block. An endpoint is ready once the construction
 * delay (module parameter le_construct_delay_ms, counted from create and
 * from the last AddDevice) has passed and, for multicast, its team is
 * complete. A ready LE_QUERY answer is remembered per id; binds need it,
 * as cuLogicalEndpointBindMem's page says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"
#include "trace.h"

static unsigned int le_construct_delay_ms;
module_param(le_construct_delay_ms, uint, 0644);
MODULE_PARM_DESC(le_construct_delay_ms,
		 "milliseconds an endpoint takes to construct after create or its last AddDevice (default 0)");

static unsigned long le_max_size_gib = 1024;
module_param(le_max_size_gib, ulong, 0644);
MODULE_PARM_DESC(le_max_size_gib,
		 "maximum endpoint size in GiB reported by cuLogicalEndpointGetLimits (default 1024)");

/* NCCL (src/cft_dev_runtime.cc): "Counted LEs are limited to 256GB". */
#define CUFAB_LE_COUNTED_MAX	(256ULL << 30)

static atomic64_t cufab_le_numbers = ATOMIC64_INIT(0);
static atomic64_t cufab_le_live = ATOMIC64_INIT(0);

/*
 * Endpoints of one device (every unicast one) come from a cache of their
 * own size: kmalloc() would round them up to the next power of two and
 * zero the whole of it on every create. Made at module init; KUnit runs
 * before, with kmalloc().
 */
static struct kmem_cache *cufab_le_one_cache;

static size_t cufab_le_size(u32 devices)
{
	return offsetof(struct cufab_le, team_mem) + cufab_team_size(devices);
}

int cufab_le_cache_init(void)
{
	cufab_le_one_cache = kmem_cache_create("cufab_le", cufab_le_size(1),
					       0, SLAB_ACCOUNT, NULL);
	return cufab_le_one_cache ? 0 : -ENOMEM;
}

void cufab_le_cache_exit(void)
{
	kmem_cache_destroy(cufab_le_one_cache);
	cufab_le_one_cache = NULL;
}

static struct cufab_le *cufab_le_mem_alloc(u32 devices)
{
	if (devices == 1 && cufab_le_one_cache)
		return kmem_cache_zalloc(cufab_le_one_cache,
					 GFP_KERNEL_ACCOUNT);
	return kzalloc(cufab_le_size(devices), GFP_KERNEL_ACCOUNT);
}

static void cufab_le_mem_free(struct cufab_le *le, u32 devices)
{
	if (devices == 1 && cufab_le_one_cache)
		kmem_cache_free(cufab_le_one_cache, le);
	else
		kfree(le);
}

/*
 * Endpoint teams across nodes: the fabric layer above (fabric_le.c)
 * registers what an endpoint exportable as FABRIC does when its team may
 * span nodes. Set once at module load, before any client, and cleared at
 * unload.
 */
static const struct cufab_le_span_ops *cufab_le_span;

void cufab_le_set_span_ops(const struct cufab_le_span_ops *ops)
{
	WRITE_ONCE(cufab_le_span, ops);
}

const struct cufab_le_span_ops *cufab_le_span_ops(void)
{
	return READ_ONCE(cufab_le_span);
}

/* Its team changed here: the other nodes of the team hear of it. */
void cufab_le_changed(struct cufab_le *le)
{
	const struct cufab_le_span_ops *ops = READ_ONCE(cufab_le_span);

	if (ops && (le->ipc_types & CUFAB_LE_IPC_FABRIC))
		ops->changed(le);
}

/* Endpoints alive node-wide (module exit and tests). */
u64 cufab_le_count(void)
{
	return atomic64_read(&cufab_le_live);
}

/* The jiffies at which construction ends if it restarts now. */
unsigned long cufab_le_deadline(void)
{
	return jiffies + msecs_to_jiffies(READ_ONCE(le_construct_delay_ms));
}

static void cufab_le_space_init(struct cufab_client *client)
{
	struct cufab_le_space *space = &client->le;

	mutex_init(&space->lock);
	cufab_idspace_init(&space->ids, CUFAB_LE_ID_FIRST, CUFAB_LE_ID_LAST);
	xa_init(&space->aliases);
	space->dead = false;
}

static void cufab_le_release(struct kref *ref)
{
	struct cufab_le *le = container_of(ref, struct cufab_le, ref);

	const struct cufab_le_span_ops *ops = READ_ONCE(cufab_le_span);

	trace_cufab_le_destroy(le);
	cufab_le_exports_drop(le);
	if (ops && le->span)
		ops->release(le);
	cufab_team_fini(le->team);
	cufab_le_mem_free(le, le->team->size);
	atomic64_dec(&cufab_le_live);
	cufab_live_objects_dec();
}

void cufab_le_get(struct cufab_le *le)
{
	kref_get(&le->ref);
}

void cufab_le_put(struct cufab_le *le)
{
	kref_put(&le->ref, cufab_le_release);
}

bool cufab_le_ready(struct cufab_le *le)
{
	return time_after_eq(jiffies, READ_ONCE(le->ready_at)) &&
	       cufab_team_complete(le->team);
}

/**
 * cufab_le_alias_find() - the alias of an associated id
 * @client: the caller, holding its le.lock
 * @id: the id
 * @what: the call, for the log line
 *
 * Return: the alias, or NULL (logged) when @id names no endpoint.
 */
struct cufab_le_alias *cufab_le_alias_find(struct cufab_client *client,
					   u32 id, const char *what)
{
	struct cufab_le_alias *alias;

	lockdep_assert_held(&client->le.lock);
	alias = xa_load(&client->le.aliases, id);
	if (!alias)
		cufab_pr_info(client, "%s: endpoint id %u is not associated with an endpoint (%s)\n",
			      what, id,
			      cufab_idspace_is_reserved(&client->le.ids, id, 1) ?
			      "reserved, never created or imported, or destroyed" :
			      "not reserved");
	return alias;
}

/*
 * An alias for @le: the creator's is part of the endpoint's allocation
 * (one allocation less per create), an importer's its own.
 */
static struct cufab_le_alias *cufab_le_alias_new(struct cufab_le *le,
						 bool imported)
{
	if (cufab_should_fail(CUFAB_FAULT_LE))
		return NULL;
	if (!imported)
		return &le->creator_alias;
	return kzalloc(sizeof(struct cufab_le_alias), GFP_KERNEL_ACCOUNT);
}

static void cufab_le_alias_free(struct cufab_le_alias *alias)
{
	if (alias != &alias->le->creator_alias)
		kfree(alias);
}

/**
 * cufab_le_alias_add() - associate a reserved, free id with an endpoint
 * @client: the caller, holding its le.lock
 * @id: the id
 * @le: the endpoint; the alias takes its own reference
 * @imported: LE_IMPORT rather than LE_CREATE
 *
 * Return: 0, -EINVAL (logged) for an id that is not reserved or already
 * associated, -ENOMEM, -EBADF when the client is going away.
 */
int cufab_le_alias_add(struct cufab_client *client, u32 id,
		       struct cufab_le *le, bool imported)
{
	const char *what = imported ? "cuLogicalEndpointImport" :
				      "cuLogicalEndpointCreate";
	struct cufab_le_alias *alias;
	int ret;

	lockdep_assert_held(&client->le.lock);
	if (client->le.dead)
		return -EBADF;
	if (!cufab_idspace_is_reserved(&client->le.ids, id, 1)) {
		cufab_pr_info(client, "%s: endpoint id %u is not reserved (cuLogicalEndpointIdReserve first)\n",
			      what, id);
		return -EINVAL;
	}
	alias = cufab_le_alias_new(le, imported);
	if (!alias)
		return -ENOMEM;
	alias->le = le;
	alias->id = id;
	alias->imported = imported;
	/* the insert is the check that @id is free */
	ret = xa_insert(&client->le.aliases, id, alias, GFP_KERNEL_ACCOUNT);
	if (ret) {
		cufab_le_alias_free(alias);
		if (ret != -EBUSY)
			return ret;
		cufab_pr_info(client, "%s: endpoint id %u is already associated with an endpoint (cuLogicalEndpointDestroy it first)\n",
			      what, id);
		return -EINVAL;
	}
	kref_get(&le->ref);
	atomic_inc(&le->aliases);
	cufab_live_objects_inc();
	return 0;
}

/*
 * Destroy of one alias: what this client bound through it is unbound,
 * the id goes back to reserved, the endpoint loses a reference.
 */
static void cufab_le_alias_drop(struct cufab_client *client,
				struct cufab_le_alias *alias)
{
	struct cufab_le *le = alias->le;

	xa_erase(&client->le.aliases, alias->id);
	if (cufab_team_unbind_owner(le->team, client, alias))
		cufab_le_changed(le);
	atomic_dec(&le->aliases);
	cufab_le_alias_free(alias);
	cufab_live_objects_dec();
	cufab_le_put(le);
}

/* Process death (last close): a Destroy of every alias, then the ids. */
static void cufab_le_space_destroy(struct cufab_client *client)
{
	struct cufab_le_space *space = &client->le;
	struct cufab_le_alias *alias;
	unsigned long id;

	mutex_lock(&space->lock);
	if (!space->dead) {
		space->dead = true;
		xa_for_each(&space->aliases, id, alias)
			cufab_le_alias_drop(client, alias);
		xa_destroy(&space->aliases);
		cufab_idspace_destroy(&space->ids);
	}
	mutex_unlock(&space->lock);
}

const struct cufab_client_part cufab_le_client_part = {
	.name = "logical endpoint ids",
	.init = cufab_le_space_init,
	.teardown = cufab_le_space_destroy,
};

int cufab_ioctl_le_id_reserve(struct cufab_ucmd *ucmd)
{
	struct cufab_le_id_reserve *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	u32 base = CUFAB_LE_ID_INVALID;
	int ret;

	if (cmd->flags || !cmd->count)
		return -EINVAL;
	mutex_lock(&client->le.lock);
	ret = client->le.dead ? -EBADF :
	      cufab_idspace_reserve(&client->le.ids, cmd->count, &base);
	mutex_unlock(&client->le.lock);
	if (ret == -ENOSPC)
		cufab_pr_info(client, "cuLogicalEndpointIdReserve: no free contiguous range of %u endpoint ids (%llu of %u ids reserved)\n",
			      cmd->count, client->le.ids.reserved,
			      CUFAB_LE_ID_LAST - CUFAB_LE_ID_FIRST + 1);
	if (ret)
		return ret;
	cmd->out_base = base;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		/* the caller never learnt the base: do not leak the range */
		mutex_lock(&client->le.lock);
		cufab_idspace_release(&client->le.ids, base, cmd->count);
		mutex_unlock(&client->le.lock);
	}
	return ret;
}

/* [base, base + count) must lie inside the id space. */
static bool cufab_le_range_ok(u32 base, u32 count)
{
	return count && base >= CUFAB_LE_ID_FIRST &&
	       (u64)base + count - 1 <= CUFAB_LE_ID_LAST;
}

static int cufab_le_release_locked(struct cufab_client *client, u32 base,
				   u32 count)
{
	struct cufab_le_alias *alias;
	unsigned long index = base;

	if (!cufab_idspace_is_reserved(&client->le.ids, base, count)) {
		cufab_pr_info(client, "cuLogicalEndpointIdRelease: ids %u +%u: not every id of the range is reserved\n",
			      base, count);
		return -EINVAL;
	}
	alias = xa_find(&client->le.aliases, &index, (u64)base + count - 1,
			XA_PRESENT);
	if (alias) {
		cufab_pr_info(client, "cuLogicalEndpointIdRelease: ids %u +%u: id %u is still associated with endpoint %llu; cuLogicalEndpointDestroy every id first\n",
			      base, count, alias->id, alias->le->number);
		return -EBUSY;
	}
	return cufab_idspace_release(&client->le.ids, base, count);
}

int cufab_ioctl_le_id_release(struct cufab_ucmd *ucmd)
{
	struct cufab_le_id_release *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	if (!cufab_le_range_ok(cmd->base, cmd->count)) {
		cufab_pr_info(client, "cuLogicalEndpointIdRelease: ids %u +%u: not a range of endpoint ids\n",
			      cmd->base, cmd->count);
		return -EINVAL;
	}
	mutex_lock(&client->le.lock);
	ret = client->le.dead ? -EBADF :
	      cufab_le_release_locked(client, cmd->base, cmd->count);
	mutex_unlock(&client->le.lock);
	return ret;
}

/* GPUs whose features include every bit of @need. */
static u32 cufab_le_gpus_with(u32 need)
{
	struct cufab_gpu_facts f;
	u32 i, n = 0;

	for (i = 0; i < cufab_node_num_gpus(); i++)
		if (!cufab_gpu_facts(i, &f) && (f.features & need) == need)
			n++;
	return n;
}

static int cufab_le_unicast_limits(struct cufab_client *client,
				   const char *call,
				   const struct cufab_le_prop *p, u64 *align)
{
	u32 need = CUFAB_DEV_F_LE_UNICAST;
	struct cufab_gpu_facts f;

	if (p->le_flags & CUFAB_LE_FLAG_COUNTED_OPS)
		need |= CUFAB_DEV_F_LE_COUNTED;
	if (cufab_gpu_facts(p->dev_or_num, &f)) {
		cufab_pr_info(client, "%s: owner gpu %u does not exist (node has %u GPUs)\n",
			      call, p->dev_or_num, cufab_node_num_gpus());
		return -ENODEV;
	}
	if ((f.features & need) != need) {
		cufab_pr_info(client, "%s: gpu %u does not support unicast%s logical endpoints (attributes 153/155)\n",
			      call, p->dev_or_num,
			      need & CUFAB_DEV_F_LE_COUNTED ? " counted-ops" : "");
		return -EOPNOTSUPP;
	}
	*align = cufab_gpu_mem_gran(p->dev_or_num, false);
	return 0;
}

static int cufab_le_multicast_limits(struct cufab_client *client,
				     const char *call,
				     const struct cufab_le_prop *p, u64 *align)
{
	u32 need = CUFAB_DEV_F_LE_MULTICAST, n, max = cufab_node_num_gpus();
	u32 nodes = 1;

	/* exportable as FABRIC in a domain: every node has as many GPUs */
	if (READ_ONCE(cufab_le_span) &&
	    (p->ipc_handle_types & CUFAB_LE_IPC_FABRIC))
		nodes = cufab_domain_nodes();
	max = min_t(u32, CUFAB_MAX_GPUS, max * nodes);
	if (p->le_flags & CUFAB_LE_FLAG_COUNTED_OPS)
		need |= CUFAB_DEV_F_LE_COUNTED;
	if (!p->dev_or_num || p->dev_or_num > max) {
		cufab_pr_info(client, "%s: numDevices %u is not 1..%u (GPUs of the node, or of the domain for FABRIC)\n",
			      call, p->dev_or_num, max);
		return -EINVAL;
	}
	n = min_t(u32, CUFAB_MAX_GPUS, cufab_le_gpus_with(need) * nodes);
	if (n < p->dev_or_num) {
		cufab_pr_info(client, "%s: numDevices %u but only %u GPUs support multicast%s logical endpoints (attributes 154/155)\n",
			      call, p->dev_or_num, n,
			      need & CUFAB_DEV_F_LE_COUNTED ? " counted-ops" : "");
		return -EOPNOTSUPP;
	}
	/* the team is not known yet: an alignment every GPU accepts */
	*align = cufab_mc_granularity(false);
	return 0;
}

/**
 * cufab_le_limits() - validate endpoint properties, as GetLimits does
 * @client: the caller, for log lines
 * @call: the driver call, for log lines
 * @p: the properties (@p->length is not judged here)
 * @align: out, bind alignment
 * @max: out, maximum size
 *
 * Return: 0, -EINVAL, -ENODEV (no such owner GPU) or -EOPNOTSUPP (no GPU
 * supports it), each logged.
 */
static int cufab_le_limits(struct cufab_client *client, const char *call,
			   const struct cufab_le_prop *p, u64 *align,
			   u64 *max)
{
	int ret;

	if (p->ipc_handle_types & ~CUFAB_LE_IPC_FABRIC ||
	    p->le_flags & ~CUFAB_LE_FLAG_COUNTED_OPS) {
		cufab_pr_info(client, "%s: ipcHandleTypes 0x%x / flags 0x%x have unknown bits (FABRIC 0x1, COUNTED_OPS 0x1)\n",
			      call, p->ipc_handle_types, p->le_flags);
		return -EINVAL;
	}
	if (p->type == CUFAB_LE_TYPE_UNICAST) {
		ret = cufab_le_unicast_limits(client, call, p, align);
	} else if (p->type == CUFAB_LE_TYPE_MULTICAST) {
		ret = cufab_le_multicast_limits(client, call, p, align);
	} else {
		cufab_pr_info(client, "%s: type %u is neither UNICAST (1) nor MULTICAST (2)\n",
			      call, p->type);
		ret = -EINVAL;
	}
	if (ret)
		return ret;
	*max = READ_ONCE(le_max_size_gib) << 30;
	if (p->le_flags & CUFAB_LE_FLAG_COUNTED_OPS)
		*max = min(*max, CUFAB_LE_COUNTED_MAX);
	return 0;
}

int cufab_ioctl_le_get_limits(struct cufab_ucmd *ucmd)
{
	struct cufab_le_get_limits *cmd = ucmd->cmd;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	ret = cufab_le_limits(ucmd->client, "cuLogicalEndpointGetLimits",
			      &cmd->prop, &cmd->out_bind_align,
			      &cmd->out_max_size);
	if (ret)
		return ret;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

static int cufab_le_size_check(struct cufab_client *client, u64 length,
			       u64 align, u64 max)
{
	if (!length || length % align || length > max) {
		cufab_pr_info(client, "cuLogicalEndpointCreate: size 0x%llx must be a non-zero multiple of the bind alignment 0x%llx and at most 0x%llx\n",
			      length, align, max);
		return -EINVAL;
	}
	return 0;
}

/*
 * A new endpoint with one reference (the caller's). With @span, its team
 * is another node's: its members come from there, the owner too.
 */
static struct cufab_le *cufab_le_new(const struct cufab_le_prop *p, u64 align,
				     void *span)
{
	bool unicast = p->type == CUFAB_LE_TYPE_UNICAST;
	u32 devices = unicast ? 1 : p->dev_or_num;
	struct cufab_le *le;
	int ret;

	if (cufab_should_fail(CUFAB_FAULT_LE))
		return ERR_PTR(-ENOMEM);
	/* the team in the same allocation: one allocation less per create */
	le = cufab_le_mem_alloc(devices);
	if (!le)
		return ERR_PTR(-ENOMEM);
	kref_init(&le->ref);
	le->number = atomic64_inc_return(&cufab_le_numbers);
	le->type = p->type;
	le->owner_dev = unicast ? p->dev_or_num : 0;
	le->length = p->length;
	le->ipc_types = p->ipc_handle_types;
	le->le_flags = p->le_flags;
	le->align = align;
	le->creator_pid = task_tgid_nr(current);
	INIT_LIST_HEAD(&le->exports);
	ret = cufab_team_init(&le->team_mem, "endpoint", le->number, devices,
			      p->length, align);
	if (ret) {
		cufab_le_mem_free(le, devices);
		return ERR_PTR(ret);
	}
	le->team = &le->team_mem;
	le->span = span;
	if (unicast && !span) {
		ret = cufab_team_add_device(le->team, p->dev_or_num, NULL);
		if (ret) {
			cufab_team_fini(le->team);
			cufab_le_mem_free(le, devices);
			return ERR_PTR(ret);
		}
	}
	le->ready_at = cufab_le_deadline();
	atomic64_inc(&cufab_le_live);
	cufab_live_objects_inc();
	trace_cufab_le_create(le);
	return le;
}

int cufab_ioctl_le_create(struct cufab_ucmd *ucmd)
{
	struct cufab_le_create *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_le *le;
	u64 align, max;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	ret = cufab_le_limits(client, "cuLogicalEndpointCreate", &cmd->prop,
			      &align, &max);
	if (ret)
		return ret;
	ret = cufab_le_size_check(client, cmd->prop.length, align, max);
	if (ret)
		return ret;
	if (cmd->prop.ipc_handle_types & CUFAB_LE_IPC_FABRIC) {
		ret = cufab_imex_check(client,
				       "cuLogicalEndpointCreate");
		if (ret)
			return ret;
	}
	le = cufab_le_new(&cmd->prop, align, NULL);
	if (IS_ERR(le))
		return PTR_ERR(le);
	mutex_lock(&client->le.lock);
	ret = cufab_le_alias_add(client, cmd->id, le, false);
	mutex_unlock(&client->le.lock);
	cufab_le_put(le);
	return ret;
}

/**
 * cufab_le_create_span() - this node's endpoint of another node's team
 * @type: CUFAB_LE_TYPE_*
 * @owner_dev: a unicast endpoint's owner GPU, on its home node
 * @length: bytes bindable per device
 * @align: bind alignment
 * @le_flags: CUFAB_LE_FLAG_*
 * @devices: the team's size
 * @span: the fabric layer's, given back to ->release
 *
 * Return: the endpoint, exportable as FABRIC, with one reference; an
 * ERR_PTR (@span stays the caller's).
 */
struct cufab_le *cufab_le_create_span(u32 type, u32 owner_dev, u64 length,
				      u64 align, u32 le_flags, u32 devices,
				      void *span)
{
	struct cufab_le_prop p = {
		.type = type,
		.dev_or_num = type == CUFAB_LE_TYPE_UNICAST ? owner_dev : devices,
		.length = length,
		.ipc_handle_types = CUFAB_LE_IPC_FABRIC,
		.le_flags = le_flags,
	};

	return cufab_le_new(&p, align, span);
}

int cufab_ioctl_le_destroy(struct cufab_ucmd *ucmd)
{
	struct cufab_le_destroy *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_le_alias *alias;

	mutex_lock(&client->le.lock);
	alias = cufab_le_alias_find(client, cmd->id, "cuLogicalEndpointDestroy");
	if (alias)
		cufab_le_alias_drop(client, alias);
	mutex_unlock(&client->le.lock);
	return alias ? 0 : -EINVAL;
}

/* Every id associated: 0 and *@ready; -EINVAL (logged) otherwise. */
static int cufab_le_query_locked(struct cufab_client *client, u32 base,
				 u32 count, bool *ready)
{
	struct cufab_le_alias *alias;
	u64 id, end = (u64)base + count;

	*ready = true;
	for (id = base; id < end; id++) {
		alias = cufab_le_alias_find(client, id, "cuLogicalEndpointQuery");
		if (!alias)
			return -EINVAL;
		/* a member's node was lost: the endpoint never constructs */
		if (READ_ONCE(alias->le->team->broken)) {
			cufab_pr_info(client, "cuLogicalEndpointQuery: endpoint id %llu (endpoint %llu): a node of its team was lost (%d)\n",
				      id, alias->le->number,
				      alias->le->team->broken);
			return alias->le->team->broken;
		}
		if (*ready && !cufab_le_ready(alias->le))
			*ready = false;
	}
	if (!*ready)
		return 0;
	for (id = base; id < end; id++) {
		alias = xa_load(&client->le.aliases, id);
		alias->queried_ready = true;
	}
	return 0;
}

int cufab_ioctl_le_query(struct cufab_ucmd *ucmd)
{
	struct cufab_le_query *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	bool ready;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	if (!cufab_le_range_ok(cmd->id, cmd->count)) {
		cufab_pr_info(client, "cuLogicalEndpointQuery: ids %u +%u: not a range of endpoint ids\n",
			      cmd->id, cmd->count);
		return -EINVAL;
	}
	mutex_lock(&client->le.lock);
	ret = cufab_le_query_locked(client, cmd->id, cmd->count, &ready);
	mutex_unlock(&client->le.lock);
	if (ret)
		return ret;
	cmd->out_ready = ready;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* ---- netlink: LE_GET ---- */

/*
 * CUFAB_NL_CMD_LE_GET dump: one message per client that has endpoint
 * state, with its reserved ranges, its associated ids and, per id, the
 * endpoint, its team and the bindings on each device (what cufabctl
 * le show prints).
 *
 * A message is built under cufab_clients_lock, the client's le.lock and
 * each team's lock, in that order. args[0] counts the clients already
 * sent. When a client's state does not fit one message, the ids and
 * bindings that do are sent and the rest left out: a dump reports, it
 * must not fail because a process has a hundred thousand bindings.
 */

struct cufab_nl_le_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	bool full;		/* the message is full: add no more nests */
};

static int cufab_nl_le_put_range(u32 base, u32 count, void *arg)
{
	struct cufab_nl_le_dump *d = arg;
	struct nlattr *nest;

	nest = nla_nest_start(d->skb, CUFAB_NL_A_LE_RANGE);
	if (!nest)
		goto full;
	if (nla_put_u32(d->skb, CUFAB_NL_A_LE_RANGE_BASE, base) ||
	    nla_put_u32(d->skb, CUFAB_NL_A_LE_RANGE_COUNT, count)) {
		nla_nest_cancel(d->skb, nest);
		goto full;
	}
	nla_nest_end(d->skb, nest);
	return 0;
full:
	d->full = true;
	return -EMSGSIZE;
}

/* Team size, members and every binding, under the team's lock. */
static int cufab_nl_le_put_team(struct cufab_nl_le_dump *d,
				struct cufab_team *team)
{
	struct cufab_team_member *m;
	struct cufab_binding *b;
	int ret;
	u32 i;

	mutex_lock(&team->lock);
	ret = cufab_nl_put_team(d->skb, team);
	if (ret)
		goto out;
	for (i = 0; i < team->joined && !d->full; i++) {
		m = &team->members[i];
		for (b = cufab_bindmap_first_from(&m->map, 0); b;
		     b = cufab_bindmap_next(b)) {
			if (cufab_nl_put_binding(d->skb, m->gpu, b)) {
				d->full = true;
				break;
			}
		}
	}
out:
	mutex_unlock(&team->lock);
	return ret;
}

static int cufab_nl_le_put_alias(struct cufab_nl_le_dump *d,
				 struct cufab_le_alias *alias)
{
	struct cufab_le *le = alias->le;
	struct sk_buff *skb = d->skb;
	struct nlattr *nest;

	nest = nla_nest_start(skb, CUFAB_NL_A_LE);
	if (!nest)
		goto full;
	if (nla_put_u32(skb, CUFAB_NL_A_LE_ID, alias->id) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_LE_ENDPOINT, le->number,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_TYPE, le->type) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_LE_SIZE, le->length,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_FLAGS, le->le_flags) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_IPC_TYPES, le->ipc_types) ||
	    nla_put_u8(skb, CUFAB_NL_A_LE_READY, cufab_le_ready(le)) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_ALIASES,
			atomic_read(&le->aliases)) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_EXPORTER_PID,
			READ_ONCE(le->exporter_pid)) ||
	    nla_put_u8(skb, CUFAB_NL_A_LE_IMPORTED, alias->imported) ||
	    cufab_nl_le_put_team(d, le->team)) {
		nla_nest_cancel(skb, nest);
		goto full;
	}
	nla_nest_end(skb, nest);
	return 0;
full:
	d->full = true;
	return -EMSGSIZE;
}

static void cufab_nl_le_put_state(struct cufab_nl_le_dump *d,
				  struct cufab_client *client)
{
	struct cufab_le_alias *alias;
	unsigned long id;

	cufab_idspace_for_each(&client->le.ids, cufab_nl_le_put_range, d);
	xa_for_each(&client->le.aliases, id, alias)
		if (d->full || cufab_nl_le_put_alias(d, alias))
			break;
}

/* One message for @client, or nothing when it never used endpoints. */
static int cufab_nl_le_put_client(struct cufab_client *client, void *arg)
{
	struct cufab_nl_le_dump *d = arg;
	int ret = 0;
	void *hdr;

	mutex_lock(&client->le.lock);
	if (client->le.dead || !client->le.ids.ranges)
		goto next;
	hdr = cufab_nl_dump_put(d->skb, d->cb, CUFAB_NL_CMD_LE_GET);
	if (!hdr ||
	    nla_put_u32(d->skb, CUFAB_NL_A_PID, pid_nr(client->tgid)) ||
	    nla_put_string(d->skb, CUFAB_NL_A_COMM, client->comm)) {
		if (hdr)
			genlmsg_cancel(d->skb, hdr);
		ret = -EMSGSIZE;
		goto out;
	}
	d->full = false;
	cufab_nl_le_put_state(d, client);
	genlmsg_end(d->skb, hdr);
next:
	d->cb->args[0]++;
out:
	mutex_unlock(&client->le.lock);
	return ret;
}

int cufab_nl_le_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_nl_le_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_clients_for_each(cb->args[0], cufab_nl_le_put_client, &d);
	return cufab_nl_dump_ret(skb, ret);
}
