// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast objects: cuMulticastCreate, cuMulticastAddDevice,
 * cuMulticastBindMem / BindAddr, cuMulticastUnbind, and the multicast side
 * of cuMemMap. The team (members, bindings, the wait for completion) is
 * team.c's; this file holds the multicast rules around it.
 *
 * Binds and maps sleep in cufab_team_wait() until every device has joined,
 * from whatever process. They hold no lock of ours while they sleep, only
 * a reference on the object, so the member that completes the team, or a
 * signal, or the mc_team_timeout_ms knob, ends the wait.
 *
 * Lock order: cufab_mcs_lock -> (nothing of ours); mc->hold_lock ->
 * team->lock. cufab_mcs_lock is never held while calling into the team:
 * walks take a reference on each object and drop the list lock first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kref.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

/* CUDA waits for the team without limit; CI sets a bound. */
static unsigned int mc_team_timeout_ms;
module_param(mc_team_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mc_team_timeout_ms,
		 "How long cuMulticastBind*/cuMemMap wait for the multicast team to complete, in ms, then CUDA_ERROR_SYSTEM_NOT_READY; 0 waits as CUDA does, with a log line every 5 s naming the missing devices (default 0: no limit)");

unsigned int cufab_mc_team_timeout_ms(void)
{
	return READ_ONCE(mc_team_timeout_ms);
}

static LIST_HEAD(cufab_mcs);
static DEFINE_MUTEX(cufab_mcs_lock);

/*
 * Teams across nodes: the fabric layer above (fabric_team.c) registers
 * what an object exportable as FABRIC does when its team may span nodes.
 * Set once at module load, before any client, and cleared at unload.
 */
static const struct cufab_mc_span_ops *cufab_mc_span;

void cufab_mc_set_span_ops(const struct cufab_mc_span_ops *ops)
{
	WRITE_ONCE(cufab_mc_span, ops);
}

/* The hooks for @mc, NULL for an object that stays on this node. */
static const struct cufab_mc_span_ops *cufab_mc_span_of(struct cufab_mc *mc)
{
	const struct cufab_mc_span_ops *ops = READ_ONCE(cufab_mc_span);

	return ops && (mc->alloc->handle_types & CUFAB_HANDLE_FABRIC) ?
	       ops : NULL;
}

/* Its team changed here: the other nodes of the team hear of it. */
static void cufab_mc_changed(struct cufab_mc *mc)
{
	const struct cufab_mc_span_ops *ops = cufab_mc_span_of(mc);

	if (ops)
		ops->changed(mc);
}

/* ---- support ---- */

static bool cufab_mc_gpu_capable(u32 index)
{
	struct cufab_gpu_facts f;

	return !cufab_gpu_facts(index, &f) &&
	       (f.features & CUFAB_DEV_F_MULTICAST);
}

/* Does any GPU of the node do multicast (an NVSwitch and the feature)? */
static bool cufab_mc_node_capable(void)
{
	u32 i, n = cufab_node_num_gpus();

	for (i = 0; i < n; i++)
		if (cufab_mc_gpu_capable(i))
			return true;
	return false;
}

/* ---- lifetime ---- */

/* Everything the allocation's final put undoes but @mc's memory. */
static void cufab_mc_teardown(struct cufab_mc *mc)
{
	const struct cufab_mc_span_ops *ops = cufab_mc_span_of(mc);

	mutex_lock(&cufab_mcs_lock);
	if (!list_empty(&mc->node))
		list_del_init(&mc->node);
	mutex_unlock(&cufab_mcs_lock);
	if (ops && mc->span)
		ops->release(mc);
	if (mc->team)
		cufab_team_fini(mc->team);
	mutex_destroy(&mc->hold_lock);
}

/* From the allocation's final put. */
static void cufab_mc_release(struct cufab_alloc *alloc)
{
	struct cufab_mc *mc = alloc->priv;

	cufab_mc_teardown(mc);
	kfree(mc);
}

/* The bytes of an object of @devices, its team included. */
static size_t cufab_mc_size(u32 devices)
{
	return offsetof(struct cufab_mc, team_mem) + cufab_team_size(devices);
}

/*
 * The final put is its handle's release (alloc.c keeps the allocation's
 * memory): an object of one device, the usual one, stays with the client
 * for its next cuMulticastCreate.
 */
static void cufab_mc_release_to(struct cufab_alloc *alloc,
				struct cufab_client *client)
{
	struct cufab_mc *mc = alloc->priv;
	bool keep = mc->team_mem.size == 1 && !mc->span;

	cufab_mc_teardown(mc);
	if (!keep || !cufab_spare_keep(client->spare_mc, mc))
		kfree(mc);
}

/*
 * Memory for an object of @devices: @client's spare for one device,
 * zeroed a word at a time, or the slab's (zeroed byte by byte under
 * init_on_alloc).
 */
static struct cufab_mc *cufab_mc_mem(u32 devices, struct cufab_client *client)
{
	size_t size = cufab_mc_size(devices);
	struct cufab_mc *mc = NULL;

	static_assert(sizeof(struct cufab_mc) % sizeof(u64) == 0);
	if (devices == 1 && client)
		mc = cufab_spare_take(client->spare_mc);
	if (mc) {
		memset64((u64 *)mc, 0, size / sizeof(u64));
		return mc;
	}
	return kzalloc(size, GFP_KERNEL_ACCOUNT);
}

/* cuMemMap of a multicast handle */
/*
 * Offset 0, addr/length multiples of the multicast granularity and within
 * the object, then wait (no lock held) for the team to complete. 0,
 * -EINVAL, -ERESTARTSYS, -ETIMEDOUT; -EHOSTDOWN, -ENOTRECOVERABLE while
 * the fabric is down.
 */
static int cufab_mc_map_prepare(struct cufab_alloc *alloc, u64 addr,
				u64 length, u64 offset)
{
	struct cufab_mc *mc = alloc->priv;
	u64 gran = cufab_mc_granularity(false);
	int ret;

	if (offset) {
		pr_info_ratelimited("pid %d (%s): cuMemMap of multicast %llu: offset 0x%llx: must be 0\n",
				    task_tgid_nr(current), current->comm,
				    alloc->id, offset);
		return -EINVAL;
	}
	if (cufab_map_args_check(addr, length, 0, alloc->length, gran)) {
		pr_info_ratelimited("pid %d (%s): cuMemMap of multicast %llu: address 0x%llx size 0x%llx: must be multiples of the multicast granularity 0x%llx within the object's 0x%llx bytes\n",
				    task_tgid_nr(current), current->comm,
				    alloc->id, addr, length, gran,
				    alloc->length);
		return -EINVAL;
	}
	/* cuMemMap of a multicast handle needs the fabric too */
	ret = cufab_health_check(mc->team->name, "cuMemMap");
	if (ret)
		return ret;
	return cufab_team_wait(mc->team, cufab_mc_team_timeout_ms(),
			       "cuMemMap");
}

/*
 * A multicast object is a CUmemGenericAllocationHandle with no memory of
 * its own: only what its devices have bound has, and only multimem
 * instructions (cufabMultimem*) reach it through a mapping.
 */
static const struct cufab_alloc_ops cufab_mc_alloc_ops = {
	.name = "multicast",
	.map_prepare = cufab_mc_map_prepare,
	.release = cufab_mc_release,
	.release_to = cufab_mc_release_to,
};

struct cufab_mc *cufab_alloc_mc(struct cufab_alloc *alloc)
{
	return alloc->ops == &cufab_mc_alloc_ops ? alloc->priv : NULL;
}

/*
 * The allocation is referenced by the team's bindings as a whole: one
 * reference while anything is bound on this node, so the object outlives
 * its handles until the last unbind. What other nodes bound does not
 * count: their own import keeps the object. Called after every change
 * of the bindings.
 */
void cufab_mc_hold_sync(struct cufab_mc *mc)
{
	bool put = false, bound;

	mutex_lock(&mc->hold_lock);
	bound = cufab_team_local_bindings(mc->team) != 0;
	if (bound && !mc->held) {
		cufab_alloc_get(mc->alloc);
		mc->held = true;
	} else if (!bound && mc->held) {
		mc->held = false;
		put = true;
	}
	mutex_unlock(&mc->hold_lock);
	if (put)
		cufab_alloc_put(mc->alloc);
}

/* The live object with the smallest id above @from_id, referenced. */
static struct cufab_mc *cufab_mc_next(u64 *from_id)
{
	struct cufab_mc *mc, *best;

	for (;;) {
		best = NULL;
		mutex_lock(&cufab_mcs_lock);
		list_for_each_entry(mc, &cufab_mcs, node)
			if (mc->alloc->id > *from_id &&
			    (!best || mc->alloc->id < best->alloc->id))
				best = mc;
		if (!best) {
			mutex_unlock(&cufab_mcs_lock);
			return NULL;
		}
		*from_id = best->alloc->id;
		/* one in its final put is skipped: it is going anyway */
		if (kref_get_unless_zero(&best->alloc->ref)) {
			mutex_unlock(&cufab_mcs_lock);
			return best;
		}
		mutex_unlock(&cufab_mcs_lock);
	}
}

int cufab_mc_for_each(u64 from_id, int (*fn)(struct cufab_mc *mc, void *arg),
		      void *arg)
{
	struct cufab_mc *mc;
	int ret;

	while ((mc = cufab_mc_next(&from_id))) {
		ret = fn(mc, arg);
		cufab_alloc_put(mc->alloc);
		if (ret)
			return ret;
	}
	return 0;
}

static int cufab_mc_unbind_client(struct cufab_mc *mc, void *arg)
{
	if (cufab_team_unbind_owner(mc->team, arg, NULL)) {
		cufab_mc_hold_sync(mc);
		cufab_mc_changed(mc);
	}
	return 0;
}

/*
 * Process death (or close): what it bound goes, the team stays, so the
 * other members keep their bindings and can still multimem each other.
 */
static void cufab_mc_client_gone(struct cufab_client *client)
{
	cufab_mc_for_each(0, cufab_mc_unbind_client, client);
}

const struct cufab_client_part cufab_mc_client_part = {
	.name = "multicast bindings",
	.teardown = cufab_mc_client_gone,
};

void cufab_mc_skipped(struct cufab_mc *mc, u32 skipped)
{
	if (!skipped)
		return;
	atomic64_add(skipped, &mc->skipped);
	cufab_mc_nl_event(mc, skipped);
}

/* ---- create ---- */

/*
 * numDevices of an object: the node's GPUs, or for one exportable as
 * FABRIC on a node of a domain, the domain's (every node has as many
 * GPUs), up to a team's CUFAB_MAX_GPUS.
 */
static u32 cufab_mc_max_devices(u32 handle_types)
{
	u32 n = cufab_node_num_gpus();

	if (READ_ONCE(cufab_mc_span) && (handle_types & CUFAB_HANDLE_FABRIC))
		n = min_t(u32, CUFAB_MAX_GPUS, n * cufab_domain_nodes());
	return n;
}

/* @gran: the multicast granularity, which the caller needs again */
static int cufab_mc_create_check(struct cufab_client *client,
				 const struct cufab_mc_create *cmd, u64 gran)
{
	u32 num_gpus = cufab_mc_max_devices(cmd->handle_types);

	if (cmd->flags || cmd->__reserved || cmd->mc_flags) {
		cufab_pr_info(client, "cuMulticastCreate: flags 0x%llx: must be 0\n",
			      cmd->mc_flags);
		return -EINVAL;
	}
	if (!cmd->num_devices || cmd->num_devices > num_gpus) {
		cufab_pr_info(client, "cuMulticastCreate: numDevices %u: must be 1 .. %u (GPUs of the node, or of the domain for FABRIC)\n",
			      cmd->num_devices, num_gpus);
		return -EINVAL;
	}
	if (cmd->handle_types & ~CUFAB_HANDLE_VALID) {
		cufab_pr_info(client, "cuMulticastCreate: handleTypes 0x%x: unknown handle type bits 0x%x\n",
			      cmd->handle_types,
			      cmd->handle_types & ~CUFAB_HANDLE_VALID);
		return -EINVAL;
	}
	if (!cmd->length || !IS_ALIGNED(cmd->length, gran)) {
		cufab_pr_info(client, "cuMulticastCreate: size %llu: must be a non-zero multiple of the multicast granularity %llu\n",
			      cmd->length, gran);
		return -EINVAL;
	}
	if (!cufab_mc_node_capable()) {
		cufab_pr_info(client, "cuMulticastCreate: no GPU of the node supports multicast (needs an NVSwitch and the feature)\n");
		return -EOPNOTSUPP;
	}
	if (cmd->handle_types & CUFAB_HANDLE_FABRIC)
		return cufab_imex_check(client,
					"cuMulticastCreate");
	return 0;
}

/*
 * The object with its allocation (one reference) and its team, aligned
 * to @gran (cufab_mc_granularity(), a walk over the node's GPUs); the
 * allocation from @client's spare if it has one.
 */
static struct cufab_alloc *cufab_mc_new(const struct cufab_mc_create *cmd,
					void *span, u64 gran,
					struct cufab_client *client)
{
	struct cufab_alloc_desc desc = {
		.ops = &cufab_mc_alloc_ops,
		.spare_of = client,
	};
	struct cufab_alloc *alloc;
	struct cufab_mc *mc;
	int ret;

	if (cufab_should_fail(CUFAB_FAULT_MC))
		return ERR_PTR(-ENOMEM);
	/* the team in the same allocation: one allocation less per create */
	mc = cufab_mc_mem(cmd->num_devices, client);
	if (!mc)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&mc->node);
	mutex_init(&mc->hold_lock);
	mc->span = span;
	desc.length = cmd->length;
	desc.handle_types = cmd->handle_types;
	desc.priv = mc;
	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc)) {
		mutex_destroy(&mc->hold_lock);
		kfree(mc);
		return alloc;
	}
	mc->alloc = alloc;
	ret = cufab_team_init(&mc->team_mem, "multicast", alloc->id,
			      cmd->num_devices, cmd->length, gran);
	if (ret) {
		mc->span = NULL;	/* the caller's still */
		cufab_alloc_put(alloc);	/* frees mc */
		return ERR_PTR(ret);
	}
	mc->team = &mc->team_mem;
	mutex_lock(&cufab_mcs_lock);
	list_add_tail(&mc->node, &cufab_mcs);
	mutex_unlock(&cufab_mcs_lock);
	return alloc;
}

int cufab_ioctl_mc_create(struct cufab_ucmd *ucmd)
{
	struct cufab_mc_create *cmd = ucmd->cmd;
	u64 gran = cufab_mc_granularity(false);
	struct cufab_alloc *alloc;
	int ret;

	ret = cufab_mc_create_check(ucmd->client, cmd, gran);
	if (ret)
		return ret;
	alloc = cufab_mc_new(cmd, NULL, gran, ucmd->client);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	return cufab_mem_handle_respond_put(ucmd, alloc, &cmd->out_handle,
					    sizeof(*cmd));
}

struct cufab_alloc *cufab_mc_create_span(u64 length, u32 num_devices,
					 void *span)
{
	struct cufab_mc_create cmd = {
		.length = length,
		.num_devices = num_devices,
		.handle_types = CUFAB_HANDLE_FABRIC,
	};

	return cufab_mc_new(&cmd, span, cufab_mc_granularity(false), NULL);
}

/* The multicast object a handle names, referenced; -ENOENT / -EINVAL. */
static struct cufab_alloc *cufab_mc_lookup(struct cufab_client *client,
					   u32 handle, const char *what)
{
	struct cufab_alloc *alloc;

	alloc = cufab_mem_handle_lookup(client, handle);
	if (IS_ERR(alloc)) {
		cufab_pr_info(client, "%s: handle %u: no such handle in this process (released, or never created)\n",
			      what, handle);
		return alloc;
	}
	if (!cufab_alloc_mc(alloc)) {
		cufab_pr_info(client, "%s: handle %u names memory (allocation %llu), not a multicast object\n",
			      what, handle, alloc->id);
		cufab_alloc_put(alloc);
		return ERR_PTR(-EINVAL);
	}
	return alloc;
}

/* ---- add device ---- */

/*
 * An object imported from another node joins through its home node,
 * which orders the joins of every node; one of this node is added here
 * and told to the nodes that imported it.
 */
static int cufab_mc_add(struct cufab_mc *mc, u32 gpu,
			const struct cufab_team_who *who)
{
	const struct cufab_mc_span_ops *ops = cufab_mc_span_of(mc);
	int ret;

	if (ops && mc->span)
		return ops->add_device(mc, gpu, who);
	ret = cufab_team_add_device(mc->team, gpu, who);
	if (!ret)
		cufab_mc_changed(mc);
	return ret;
}

int cufab_ioctl_mc_add_device(struct cufab_ucmd *ucmd)
{
	struct cufab_mc_add_device *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_team_who who = { client, "cuMulticastAddDevice" };
	struct cufab_alloc *alloc;
	int ret;

	if (cmd->__reserved) {
		cufab_pr_info(client, "cuMulticastAddDevice: reserved field 0x%x: must be 0\n",
			      cmd->__reserved);
		return -EINVAL;
	}
	alloc = cufab_mc_lookup(client, cmd->handle, "cuMulticastAddDevice");
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	if (!cufab_node_gpu_exists(cmd->dev)) {
		cufab_pr_info(client, "cuMulticastAddDevice: multicast %llu: gpu %u: no such device (node has %u GPUs)\n",
			      alloc->id, cmd->dev, cufab_node_num_gpus());
		ret = -ENODEV;
	} else if (!cufab_mc_gpu_capable(cmd->dev)) {
		cufab_pr_info(client, "cuMulticastAddDevice: multicast %llu: gpu %u does not support multicast (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED is 0)\n",
			      alloc->id, cmd->dev);
		ret = -EOPNOTSUPP;
	} else if (cufab_should_fail(CUFAB_FAULT_MC)) {
		ret = -ENOMEM;
	} else {
		ret = cufab_mc_add(cufab_alloc_mc(alloc), cmd->dev, &who);
		/* a duplicate or one device too many: an invalid value */
		if (ret == -EEXIST || ret == -ENOSPC)
			ret = -EINVAL;
	}
	cufab_alloc_put(alloc);
	return ret;
}

/* ---- bind / unbind ---- */

static const char *cufab_mc_bind_call(const struct cufab_mc_bind *cmd)
{
	return cmd->flags & CUFAB_BIND_ADDR ? "cuMulticastBindAddr" :
					      "cuMulticastBindMem";
}

/* The memory of a bind, referenced, and the offset into it. */
static struct cufab_alloc *cufab_mc_bind_memory(struct cufab_client *client,
						const struct cufab_mc_bind *cmd,
						u64 *mem_offset)
{
	struct cufab_alloc *mem;
	int ret;

	if (cmd->flags & CUFAB_BIND_ADDR) {
		/* the address itself, not only its offset in the memory */
		if (!IS_ALIGNED(cmd->addr, cufab_mc_granularity(false))) {
			cufab_pr_info(client, "cuMulticastBindAddr: address 0x%llx is not a multiple of the multicast granularity 0x%llx (cuMulticastGetGranularity MINIMUM)\n",
				      cmd->addr, cufab_mc_granularity(false));
			return ERR_PTR(-EINVAL);
		}
		ret = cufab_va_resolve(client, cmd->addr, cmd->length, &mem,
				       mem_offset);
		if (ret)
			return ERR_PTR(ret);
	} else {
		mem = cufab_mem_handle_lookup(client, cmd->mem_handle);
		if (IS_ERR(mem)) {
			cufab_pr_info(client, "cuMulticastBindMem: memory handle %u: no such handle in this process (released, or never created)\n",
				      cmd->mem_handle);
			return mem;
		}
		*mem_offset = cmd->mem_offset;
	}
	if (!cufab_alloc_has(mem, CUFAB_ALLOC_BINDABLE)) {
		cufab_pr_info(client, "%s: allocation %llu is %s memory: only cuMemCreate memory binds\n",
			      cufab_mc_bind_call(cmd), mem->id,
			      mem->ops->name);
		cufab_alloc_put(mem);
		return ERR_PTR(-EINVAL);
	}
	return mem;
}

/*
 * dev -1: the GPU the memory lives on; for HOST_NUMA memory, a member of
 * the (complete) team on that NUMA node.
 */
static s32 cufab_mc_bind_gpu(struct cufab_team *team,
			     const struct cufab_alloc *mem, s32 dev)
{
	struct cufab_gpu *gpu;
	s32 found = -1;
	u32 i;

	if (dev >= 0)
		return dev;
	if (mem->location_type == CUFAB_LOC_DEVICE)
		return mem->location_id;
	mutex_lock(&team->lock);
	down_read(&cufab_topo_rwsem);
	for (i = 0; i < team->joined && found < 0; i++) {
		if (!cufab_team_member_local(&team->members[i]))
			continue;
		gpu = cufab_node_gpu(team->members[i].gpu);
		if (gpu && gpu->numa_node == mem->location_id)
			found = team->members[i].gpu;
	}
	up_read(&cufab_topo_rwsem);
	mutex_unlock(&team->lock);
	return found;
}

static int cufab_mc_do_bind(struct cufab_client *client,
			    struct cufab_alloc *mc_alloc,
			    struct cufab_alloc *mem, u64 mem_offset,
			    const struct cufab_mc_bind *cmd)
{
	struct cufab_mc *mc = cufab_alloc_mc(mc_alloc);
	struct cufab_team_who who = { client, cufab_mc_bind_call(cmd) };
	struct cufab_bind_req req = {
		.offset = cmd->offset,
		.size = cmd->length,
		.alloc = mem,
		.mem_offset = mem_offset,
		.owner = client,
		.who = &who,
	};
	s32 gpu;
	int ret;

	/* exportable (or imported, hence exportable) objects */
	if (mc_alloc->handle_types && !mem->handle_types) {
		cufab_pr_info(client, "%s: multicast %llu is exportable (handle types 0x%x): allocation %llu has no handle types and cannot be bound to it\n",
			      who.call, mc_alloc->id, mc_alloc->handle_types,
			      mem->id);
		return -EINVAL;
	}
	/* another node reaches the replicas only where it maps them too */
	if ((mc_alloc->handle_types & CUFAB_HANDLE_FABRIC) &&
	    cufab_window_present() && !cufab_alloc_in_window(mem)) {
		cufab_pr_info(client, "%s: multicast %llu is exportable as FABRIC, so only memory in the fabric window binds; allocation %llu has %s pages (create it with CU_MEM_HANDLE_TYPE_FABRIC)\n",
			      who.call, mc_alloc->id, mem->id,
			      mem->provider ? mem->provider->name : "no");
		return -EINVAL;
	}
	ret = cufab_team_wait(mc->team, cufab_mc_team_timeout_ms(), "bind");
	if (ret)
		return ret;
	gpu = cufab_mc_bind_gpu(mc->team, mem, cmd->dev);
	if (gpu < 0) {
		cufab_pr_info(client, "%s: multicast %llu: allocation %llu (NUMA node %d) is near no device of the team\n",
			      who.call, mc_alloc->id, mem->id,
			      mem->location_id);
		return -EINVAL;
	}
	if (cufab_should_fail(CUFAB_FAULT_MC))
		return -ENOMEM;
	req.gpu = gpu;
	ret = cufab_team_bind(mc->team, &req);
	if (!ret) {
		cufab_mc_hold_sync(mc);
		cufab_mc_changed(mc);
	}
	return ret;
}

int cufab_ioctl_mc_bind(struct cufab_ucmd *ucmd)
{
	struct cufab_mc_bind *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_alloc *mc_alloc, *mem;
	u64 mem_offset;
	int ret;

	if ((cmd->flags & ~CUFAB_BIND_ADDR) || cmd->__reserved) {
		cufab_pr_info(client, "%s: ioctl flags 0x%x, reserved 0x%x: unknown bits must be 0\n",
			      cufab_mc_bind_call(cmd), cmd->flags,
			      cmd->__reserved);
		return -EINVAL;
	}
	if (cmd->bind_flags) {
		cufab_pr_info(client, "%s: flags 0x%llx: must be 0\n",
			      cufab_mc_bind_call(cmd), cmd->bind_flags);
		return -EINVAL;
	}
	mc_alloc = cufab_mc_lookup(client, cmd->handle, cufab_mc_bind_call(cmd));
	if (IS_ERR(mc_alloc))
		return PTR_ERR(mc_alloc);
	mem = cufab_mc_bind_memory(client, cmd, &mem_offset);
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
	} else {
		ret = cufab_mc_do_bind(client, mc_alloc, mem, mem_offset, cmd);
		cufab_alloc_put(mem);
	}
	cufab_alloc_put(mc_alloc);
	return ret;
}

int cufab_ioctl_mc_unbind(struct cufab_ucmd *ucmd)
{
	struct cufab_mc_unbind *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_team_who who = { client, "cuMulticastUnbind" };
	struct cufab_alloc *mc_alloc;
	int ret;

	if (cmd->flags) {
		cufab_pr_info(client, "cuMulticastUnbind: ioctl flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	mc_alloc = cufab_mc_lookup(client, cmd->handle, who.call);
	if (IS_ERR(mc_alloc))
		return PTR_ERR(mc_alloc);
	if (!cufab_node_gpu_exists(cmd->dev)) {
		cufab_pr_info(client, "cuMulticastUnbind: multicast %llu: gpu %u: no such device (node has %u GPUs)\n",
			      mc_alloc->id, cmd->dev, cufab_node_num_gpus());
		ret = -ENODEV;
	} else {
		ret = cufab_team_unbind(cufab_alloc_mc(mc_alloc)->team,
					cmd->dev, cmd->offset, cmd->length,
					client, &who);
		if (!ret) {
			cufab_mc_hold_sync(cufab_alloc_mc(mc_alloc));
			cufab_mc_changed(cufab_alloc_mc(mc_alloc));
		}
	}
	cufab_alloc_put(mc_alloc);
	return ret;
}

/* ---- netlink: MC_GET and MC_EVENT ---- */

/*
 * Netlink view of multicast objects: the MC_GET dump (cufabctl mc show)
 * and the MC_EVENT notification sent when multimem skipped replicas.
 *
 * A dump message is built under the team's lock so that the team and the
 * bindings it shows are one consistent snapshot; the objects themselves
 * are walked with a reference each (cufab_mc_for_each), so a dump never
 * holds the global list lock while it fills a message.
 */

struct cufab_mc_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

/* Team state and every binding. Context: team->lock held. */
static int cufab_mc_nl_put_team(struct sk_buff *skb, struct cufab_team *team)
{
	struct cufab_binding *b;
	u32 i;

	if (cufab_nl_put_team(skb, team))
		return -EMSGSIZE;
	for (i = 0; i < team->joined; i++) {
		/* another node's bindings are that node's to show */
		if (!cufab_team_member_local(&team->members[i]))
			continue;
		for (b = cufab_bindmap_first_from(&team->members[i].map, 0); b;
		     b = cufab_bindmap_next(b))
			if (cufab_nl_put_binding(skb, team->members[i].gpu, b))
				return -EMSGSIZE;
	}
	return 0;
}

/*
 * Handles, imports, fds and mappings: every reference on the allocation
 * except the one the walk holds and the one its bindings hold.
 */
static u32 cufab_mc_users(struct cufab_mc *mc)
{
	return kref_read(&mc->alloc->ref) - 1 - READ_ONCE(mc->held);
}

static int cufab_mc_nl_put(struct cufab_mc *mc, void *arg)
{
	struct cufab_mc_dump *d = arg;
	struct cufab_alloc *alloc = mc->alloc;
	struct sk_buff *skb = d->skb;
	void *hdr;
	int ret;

	hdr = cufab_nl_dump_put(skb, d->cb, CUFAB_NL_CMD_MC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, CUFAB_NL_A_MC_ID, alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_PID, alloc->owner_pid) ||
	    nla_put_string(skb, CUFAB_NL_A_COMM, alloc->owner_comm) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_MC_SIZE, alloc->length,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_MC_HANDLE_TYPES, alloc->handle_types) ||
	    nla_put_u32(skb, CUFAB_NL_A_MC_HANDLES, cufab_mc_users(mc)) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_MC_SKIPPED,
			      atomic64_read(&mc->skipped), CUFAB_NL_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	mutex_lock(&mc->team->lock);
	ret = cufab_mc_nl_put_team(skb, mc->team);
	mutex_unlock(&mc->team->lock);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret;
	}
	genlmsg_end(skb, hdr);
	d->cb->args[0] = alloc->id;
	return 0;
}

/*
 * MC_GET: one message per object in id order; args[0] is the id of the
 * last one sent, so a dump split over several reads resumes after it.
 */
int cufab_nl_mc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_mc_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_mc_for_each(cb->args[0], cufab_mc_nl_put, &d);
	return cufab_nl_dump_ret(skb, ret);
}

/* MC_EVENT: @skipped replicas of @mc were skipped by the caller. */
void cufab_mc_nl_event(struct cufab_mc *mc, u32 skipped)
{
	struct sk_buff *msg;
	void *hdr;

	msg = cufab_nl_event_new(CUFAB_NL_CMD_MC_EVENT, NLMSG_GOODSIZE, &hdr);
	if (!msg)
		return;
	if (nla_put_u64_64bit(msg, CUFAB_NL_A_MC_ID, mc->alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(msg, CUFAB_NL_A_PID, task_tgid_nr(current)) ||
	    nla_put_u64_64bit(msg, CUFAB_NL_A_MC_SKIPPED, skipped,
			      CUFAB_NL_A_PAD)) {
		nlmsg_free(msg);
		return;
	}
	cufab_nl_event_send(msg, hdr);
}
