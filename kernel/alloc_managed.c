// SPDX-License-Identifier: GPL-2.0
/*
 * Managed memory: the allocation kind behind cuMemAllocManaged, and
 * cuMemAdvise, cuMemPrefetchAsync and cuMemRangeGetAttribute(s) on it.
 *
 * A managed allocation is a linear allocation (MEM_ALLOC makes, maps and
 * MEM_FREE frees it exactly like cuMemAlloc's, and the process's death
 * unmaps it) of host memory charged to no GPU, readable and writable by
 * the CPU and every GPU. Its struct cufab_managed (alloc->priv) holds
 * the default stream association and the advice: a sorted array of segments
 * of page indexes covering the allocation, each with the read-mostly,
 * preferred-location, accessed-by and last-prefetch state of its pages.
 * Adjacent equal segments are merged, so the array is only as long as
 * the advice is varied.
 *
 * Where pages live: a page populated by a fault goes to the NUMA node of
 * its last prefetch location, else of its preferred location, else the
 * allocation's default. A prefetch (CUFAB_OP_PREFETCH, when its stream
 * reaches it; MEM_PREFETCH, when called) populates the range on the
 * target's node and moves pages that live elsewhere there, with the
 * range's PTEs zapped and faults held off by va->lock. A page that cannot
 * be moved stays where it is: a prefetch is a hint, the data is never
 * lost.
 *
 * The CPU fence (CONCURRENT_MANAGED_ACCESS 0): on such a GPU, hardware
 * gives the GPU managed memory exclusively while it has work. Here a
 * stream of such a GPU joins its client's fence.busy list when it gets
 * work and leaves it when it has none (struct cufab_stream_watch). While
 * it is on the list, a user-mode CPU fault on the client's managed memory
 * attached GLOBAL, or SINGLE to that stream, gets SIGSEGV with a log line
 * and a netlink event; memory attached HOST, or SINGLE to an idle stream,
 * stays accessible. Going busy zaps the PTEs of what the fence now covers
 * before the stream's first operation can run; so does a destroyed
 * stream's memory going back to GLOBAL while another stream is busy. The
 * copies of the engine and of cuMemcpy, which stand in for the GPUs, take
 * the allocation's pages and never these PTEs. Idle needs no work: the
 * next fault maps the page. Zaps take va->lock for writing after the list
 * changed, and the fault handler decides and maps under va->lock, so no
 * PTE made before the change survives it.
 *
 * Lock order: mmap_lock -> va->lock -> cufab_managed_single_lock ->
 * managed->lock -> client->fence.lock (the fault path asks for a page's
 * node and the fence under the first two).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/overflow.h>
#include <linux/ratelimit.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "managed_seg.h"
#include "trace.h"
#include <net/genetlink.h>

/**
 * struct cufab_managed - managed state of one allocation (alloc->priv)
 * @lock: protects everything below
 * @attach: CUFAB_ATTACH_* given at cuMemAllocManaged, the default
 * @attach_now: the association now: @attach, or what the last ATTACH
 *	operation a stream reached set
 * @stream: with CUFAB_ATTACH_SINGLE, that stream (see below)
 * @stream_uid: its node-wide uid, for reports
 * @single_node: on @stream's managed_single while @stream is set
 * @segs: the advice of each page (managed_seg.c)
 */
struct cufab_managed {
	struct mutex lock;	/* see above */
	u32 attach;
	u32 attach_now;
	struct cufab_stream *stream;
	u64 stream_uid;
	struct list_head single_node;
	struct cufab_managed_segs segs;
};

/*
 * Guards every stream's list of managed memory attached SINGLE to it
 * (struct cufab_stream.managed_single, struct cufab_managed.single_node),
 * so that the end of the stream can put it back. The stream pointer is
 * not a reference: the stream's release clears it under this lock before
 * the stream is freed. A hold walks one stream's list at most, never the
 * node's. Lock order: this -> managed->lock.
 */
static DEFINE_MUTEX(cufab_managed_single_lock);

static bool cufab_alloc_is_managed(const struct cufab_alloc *alloc)
{
	return alloc->ops == &cufab_managed_alloc_ops;
}

static struct cufab_managed *cufab_managed(struct cufab_alloc *alloc)
{
	return cufab_alloc_is_managed(alloc) ? alloc->priv : NULL;
}

u32 cufab_managed_attach(struct cufab_alloc *alloc)
{
	struct cufab_managed *m = cufab_managed(alloc);
	u32 attach;

	if (!m)
		return 0;
	mutex_lock(&m->lock);
	attach = m->attach_now;
	mutex_unlock(&m->lock);
	return attach;
}

/*
 * ops->nl_put: the association, and the stream of a SINGLE one. Context:
 * under cufab_allocs_lock (an allocation leaves the list before its
 * managed state is freed).
 */
static int cufab_managed_nl_put(struct sk_buff *skb, struct cufab_alloc *alloc)
{
	struct cufab_managed *m = cufab_managed(alloc);
	u64 uid;
	u32 attach;

	if (!m)
		return 0;
	mutex_lock(&m->lock);
	attach = m->attach_now;
	uid = m->stream_uid;
	mutex_unlock(&m->lock);
	if (nla_put_u32(skb, CUFAB_NL_A_MANAGED_ATTACH, attach) ||
	    (uid && nla_put_u64_64bit(skb, CUFAB_NL_A_MANAGED_STREAM, uid,
				      CUFAB_NL_A_PAD)))
		return -EMSGSIZE;
	return 0;
}

/* ---- advice ---- */

/* Apply @c to pages [first, last). Return: 0 or -ENOMEM (nothing changed). */
static int cufab_managed_change(struct cufab_managed *m, u64 first, u64 last,
				const struct cufab_advice_change *c)
{
	int ret;

	mutex_lock(&m->lock);
	ret = cufab_managed_segs_change(&m->segs, first, last, c);
	mutex_unlock(&m->lock);
	return ret;
}

/* What pages [first, last) have in common. */
static void cufab_managed_query(struct cufab_managed *m, u64 first, u64 last,
				struct cufab_managed_advice *out)
{
	mutex_lock(&m->lock);
	cufab_managed_segs_query(&m->segs, first, last, out);
	mutex_unlock(&m->lock);
}

/* The node a page populated now goes to, NUMA_NO_NODE: anywhere. */
static int cufab_managed_page_nid(struct cufab_managed *m, pgoff_t index)
{
	int nid;

	mutex_lock(&m->lock);
	nid = cufab_managed_segs_nid(&m->segs, index);
	mutex_unlock(&m->lock);
	return nid;
}

/* ops->page: first touch follows the last prefetch or the preference */
static struct page *cufab_managed_page(struct cufab_alloc *alloc,
				       pgoff_t index)
{
	return cufab_alloc_store_page_nid(alloc, index,
					  cufab_managed_page_nid(alloc->priv,
								 index));
}

void cufab_managed_free(void *priv)
{
	struct cufab_managed *m = priv;

	if (!list_empty_careful(&m->single_node)) {
		mutex_lock(&cufab_managed_single_lock);
		list_del_init(&m->single_node);
		mutex_unlock(&cufab_managed_single_lock);
	}
	mutex_destroy(&m->lock);
	cufab_managed_segs_destroy(&m->segs);
	kfree(m);
	cufab_live_objects_dec();
}

static void cufab_managed_release(struct cufab_alloc *alloc)
{
	cufab_managed_free(alloc->priv);
	alloc->priv = NULL;
}

/* ---- the CPU fence of CONCURRENT_MANAGED_ACCESS 0 ---- */

/* What a report names. */
struct cufab_fence_info {
	u64 stream_uid;		/* the busy stream */
	u32 dev;		/* its GPU */
	u32 attach;		/* the association of the memory now */
};

/*
 * Is @m kept from the CPU of @client now? The busy stream in @f, true.
 * Context: @m->lock held.
 */
static bool cufab_managed_fenced(struct cufab_managed *m,
				 struct cufab_client *client,
				 struct cufab_fence_info *f)
{
	struct cufab_stream *s = NULL;

	spin_lock(&client->fence.lock);
	if (m->attach_now == CUFAB_ATTACH_GLOBAL)
		s = list_first_entry_or_null(&client->fence.busy,
					     struct cufab_stream, fence_node);
	else if (m->attach_now == CUFAB_ATTACH_SINGLE && m->stream &&
		 !list_empty(&m->stream->fence_node))
		s = m->stream;
	if (s) {
		f->stream_uid = s->uid;
		f->dev = s->dev;
		f->attach = m->attach_now;
	}
	spin_unlock(&client->fence.lock);
	return s;
}

static const char *cufab_attach_name(u32 attach)
{
	switch (attach) {
	case CUFAB_ATTACH_GLOBAL:
		return "global";
	case CUFAB_ATTACH_HOST:
		return "host";
	case CUFAB_ATTACH_SINGLE:
		return "single";
	}
	return "?";
}

/*
 * The events group reaches every user of the node (6.1 cannot restrict a
 * multicast group): the event names the allocation and the offset in it,
 * never the process's virtual address, which only its own log line has.
 */
static void cufab_managed_nl_event(u32 kind, struct cufab_client *client,
				   u64 offset, const struct cufab_alloc *alloc,
				   const struct cufab_fence_info *f,
				   u64 by_stream)
{
	struct sk_buff *msg;
	void *hdr;

	msg = cufab_nl_event_new(CUFAB_NL_CMD_MANAGED_EVENT, NLMSG_GOODSIZE,
				 &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, CUFAB_NL_A_MANAGED_KIND, kind) ||
	    nla_put_u32(msg, CUFAB_NL_A_PID, pid_nr(client->tgid)) ||
	    nla_put_string(msg, CUFAB_NL_A_COMM, client->comm) ||
	    nla_put_u64_64bit(msg, CUFAB_NL_A_MANAGED_OFFSET, offset,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(msg, CUFAB_NL_A_MANAGED_ALLOC_ID, alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(msg, CUFAB_NL_A_MANAGED_ATTACH, f->attach) ||
	    nla_put_u64_64bit(msg, CUFAB_NL_A_MANAGED_STREAM, f->stream_uid,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(msg, CUFAB_NL_A_MANAGED_DEV, f->dev) ||
	    (by_stream &&
	     nla_put_u64_64bit(msg, CUFAB_NL_A_MANAGED_BY_STREAM, by_stream,
			       CUFAB_NL_A_PAD))) {
		nlmsg_free(msg);
		return;
	}
	cufab_nl_event_send(msg, hdr);
}

/* A program retrying a refused access must not flood the log or netlink. */
static DEFINE_RATELIMIT_STATE(cufab_fence_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

/*
 * ops->cpu_fault: a CPU access to fenced memory faults: SIGSEGV, or
 * -EFAULT for a system call copying there
 */
static vm_fault_t cufab_managed_cpu_fault(struct cufab_alloc *alloc,
					  struct cufab_va *va,
					  unsigned long addr)
{
	struct cufab_managed *m = alloc->priv;
	struct cufab_client *client = va->client;
	struct cufab_fence_info f;
	bool fenced;

	mutex_lock(&m->lock);
	fenced = cufab_managed_fenced(m, client, &f);
	mutex_unlock(&m->lock);
	if (!fenced)
		return 0;
	if (__ratelimit(&cufab_fence_rs)) {
		pr_info("pid %d (%s): CPU access to managed memory at 0x%lx (allocation %llu, attached %s) while stream %llu of gpu %u has work and the GPU has CONCURRENT_MANAGED_ACCESS 0: SIGSEGV\n",
			pid_nr(client->tgid), client->comm, addr, alloc->id,
			cufab_attach_name(f.attach), f.stream_uid, f.dev);
		/* a linear allocation: mapped whole at va->start */
		cufab_managed_nl_event(CUFAB_MANAGED_EV_CPU_FAULT, client,
				       addr - va->start, alloc, &f, 0);
	}
	return VM_FAULT_SIGSEGV;
}

/*
 * For cufab_va_locked(): zap [addr, addr + length) of @va when it is managed
 * memory the fence keeps from the CPU now.
 */
static int cufab_managed_fence_va(struct cufab_va *va,
				  struct vm_area_struct *vma, u64 addr,
				  u64 length, void *arg)
{
	struct cufab_va_map *map;
	struct cufab_fence_info f;
	struct cufab_managed *m;
	bool fenced;

	map = va->linear ? mtree_load(&va->maps, va->start) : NULL;
	if (!map || !cufab_alloc_is_managed(map->alloc))
		return 0;
	m = map->alloc->priv;
	mutex_lock(&m->lock);
	fenced = cufab_managed_fenced(m, va->client, &f);
	mutex_unlock(&m->lock);
	if (fenced)
		zap_vma_ptes(vma, addr, length);
	return 0;
}

/*
 * Made and freed like cuMemAlloc memory; cuMemMap and binds refuse it
 * like cuMemAlloc memory.
 */
const struct cufab_alloc_ops cufab_managed_alloc_ops = {
	.name = "cuMemAllocManaged",
	.flags = CUFAB_ALLOC_LINEAR | CUFAB_ALLOC_MANAGED,
	.page = cufab_managed_page,
	.map_prepare = cufab_alloc_map_check,
	.release = cufab_managed_release,
	.cpu_fault = cufab_managed_cpu_fault,
	.nl_put = cufab_managed_nl_put,
};

void *cufab_managed_new(u64 length, u32 attach)
{
	struct cufab_managed *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return NULL;
	if (cufab_managed_segs_init(&m->segs, length >> PAGE_SHIFT)) {
		kfree(m);
		return NULL;
	}
	mutex_init(&m->lock);
	m->attach = attach;
	m->attach_now = attach;
	INIT_LIST_HEAD(&m->single_node);
	cufab_live_objects_inc();
	return m;
}

/* ---- ioctls ---- */

/* A managed range of the caller, in pages of its allocation. */
struct cufab_managed_range {
	struct cufab_alloc *alloc;	/* one reference */
	u64 start;			/* page-aligned address */
	u64 length;			/* page-aligned */
	u64 first;			/* page index in the allocation */
	u64 last;			/* one past the last */
};

static void cufab_range_refused(const char *call, u64 addr, u64 length,
				const char *why)
{
	pr_info_ratelimited("pid %d (%s): %s(0x%llx, %llu bytes): %s\n",
			    task_tgid_nr(current), current->comm, call, addr,
			    length, why);
}

/*
 * [addr, addr + length), widened to pages, inside one managed allocation
 * of @client: 0 and @r filled, else -EINVAL with a log line.
 */
static int cufab_managed_range_get(struct cufab_client *client,
				   const char *call, u64 addr, u64 length,
				   struct cufab_managed_range *r)
{
	struct cufab_va_map *map;
	struct cufab_va *va;
	u64 end;

	if (!length || check_add_overflow(addr, length, &end) ||
	    end > U64_MAX - PAGE_SIZE) {
		cufab_range_refused(call, addr, length,
				    "the range is empty or wraps");
		return -EINVAL;
	}
	r->start = round_down(addr, PAGE_SIZE);
	r->length = round_up(end, PAGE_SIZE) - r->start;
	r->alloc = NULL;
	va = cufab_va_find(client, r->start);
	if (va && va->linear &&
	    cufab_range_inside(r->start, r->length, va->start, va->length)) {
		down_read(&va->lock);
		map = va->dead ? NULL : mtree_load(&va->maps, va->start);
		if (map && cufab_alloc_is_managed(map->alloc)) {
			r->alloc = map->alloc;
			cufab_alloc_get(r->alloc);
			r->first = (r->start - va->start) >> PAGE_SHIFT;
			r->last = r->first + (r->length >> PAGE_SHIFT);
		}
		up_read(&va->lock);
	}
	if (va)
		cufab_va_put(va);
	if (!r->alloc) {
		cufab_range_refused(call, addr, length,
				    "not inside one cuMemAllocManaged allocation");
		return -EINVAL;
	}
	return 0;
}

/*
 * A GPU that exists and has concurrent managed access: its node, or
 * -ENODEV with a line naming @call.
 */
static int cufab_managed_gpu_nid(const struct cufab_client *client,
				 const char *call, s32 index)
{
	struct cufab_gpu_facts facts;
	int nid = -ENODEV;

	if (index >= 0 && !cufab_gpu_facts(index, &facts) &&
	    (facts.features & CUFAB_DEV_F_CONCURRENT_MANAGED))
		nid = facts.numa_node;
	if (nid == -ENODEV)
		cufab_pr_info(client, "%s: gpu %d: no such GPU, or its CONCURRENT_MANAGED_ACCESS is 0\n",
			      call, index);
	return nid;
}

/*
 * A uAPI location as advice records it. @host_only: only DEVICE and HOST
 * are valid (accessed-by). Return: 0, -EINVAL, -ENODEV.
 */
static int cufab_managed_loc_get(const struct cufab_client *client,
				 const char *call, u32 type, s32 id,
				 bool host_only, struct cufab_managed_loc *loc)
{
	int nid;

	loc->type = type;
	loc->id = id;
	loc->nid = NUMA_NO_NODE;
	switch (type) {
	case CUFAB_LOC_DEVICE:
		nid = cufab_managed_gpu_nid(client, call, id);
		if (nid < 0 && nid != NUMA_NO_NODE)
			return nid;
		loc->nid = nid;
		return 0;
	case CUFAB_LOC_HOST:
		loc->id = -1;
		return 0;
	case CUFAB_LOC_HOST_NUMA_CURRENT:
		if (host_only)
			return -EINVAL;
		loc->type = CUFAB_LOC_HOST_NUMA;
		loc->id = numa_node_id();
		loc->nid = loc->id;
		return 0;
	case CUFAB_LOC_HOST_NUMA:
		if (host_only || id < 0 || id >= MAX_NUMNODES || !node_online(id))
			return -EINVAL;
		loc->nid = id;
		return 0;
	default:
		return -EINVAL;
	}
}

int cufab_ioctl_mem_advise(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_advise *cmd = ucmd->cmd;
	struct cufab_advice_change c = { .advice = cmd->advice };
	struct cufab_managed_range r;
	int ret = 0;

	switch (cmd->advice) {
	case CUFAB_ADVISE_SET_PREFERRED_LOCATION:
	case CUFAB_ADVISE_SET_ACCESSED_BY:
	case CUFAB_ADVISE_UNSET_ACCESSED_BY:
		ret = cufab_managed_loc_get(ucmd->client, "cuMemAdvise",
					    cmd->location_type,
					    cmd->location_id,
					    cmd->advice != CUFAB_ADVISE_SET_PREFERRED_LOCATION,
					    &c.loc);
		break;
	case CUFAB_ADVISE_SET_READ_MOSTLY:
	case CUFAB_ADVISE_UNSET_READ_MOSTLY:
	case CUFAB_ADVISE_UNSET_PREFERRED_LOCATION:
		break;
	default:
		ret = -EINVAL;
	}
	if (ret == -EINVAL)
		cufab_pr_info(ucmd->client, "cuMemAdvise: advice %u location type %u id %d: not a CUmem_advise, or a location the advice does not take (accessed-by: a device or the host; a NUMA node must be online)\n",
			      cmd->advice, cmd->location_type,
			      cmd->location_id);
	if (ret)
		return ret;
	ret = cufab_managed_range_get(ucmd->client, "cuMemAdvise", cmd->addr,
				      cmd->length, &r);
	if (ret)
		return ret;
	ret = cufab_managed_change(r.alloc->priv, r.first, r.last, &c);
	cufab_alloc_put(r.alloc);
	return ret;
}

struct cufab_prefetch_move {
	struct cufab_alloc *alloc;
	u64 first;
	int nid;
};

/* Under mmap_lock and va->lock (write): no PTE, no fault in the range. */
static int cufab_managed_do_prefetch(struct cufab_va *va,
				     struct vm_area_struct *vma, u64 addr,
				     u64 length, void *arg)
{
	struct cufab_prefetch_move *mv = arg;
	struct cufab_va_map *map = cufab_va_map_load(va, addr);
	u64 i, n = length >> PAGE_SHIFT;

	if (!map || map->alloc != mv->alloc)
		return -EINVAL;
	zap_vma_ptes(vma, addr, length);
	for (i = 0; i < n; i++) {
		int ret;

		if (mv->nid == NUMA_NO_NODE)
			ret = PTR_ERR_OR_ZERO(cufab_alloc_page(mv->alloc,
							       mv->first + i));
		else
			ret = cufab_alloc_place_page(mv->alloc, mv->first + i,
						     mv->nid);
		/*
		 * A prefetch is a hint: the first page the host (or the
		 * process's memory cgroup) cannot give ends it, rather than
		 * a full reclaim for every page left. A page a copy is
		 * writing (-EBUSY) stays where it is.
		 */
		if (ret == -ENOMEM)
			break;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * The checks of a prefetch ordered in a stream of GPU @dev: the GPU and
 * the location have concurrent managed access, the range is managed.
 * 0 with @c and @r filled (@r->alloc a reference), else an errno.
 */
static int cufab_prefetch_check(struct cufab_client *client, u32 dev,
				u32 type, s32 id, u64 addr, u64 length,
				struct cufab_advice_change *c,
				struct cufab_managed_range *r)
{
	int ret = cufab_managed_gpu_nid(client, "cuMemPrefetchAsync", dev);

	if (ret < 0 && ret != NUMA_NO_NODE)
		return ret;
	ret = cufab_managed_loc_get(client, "cuMemPrefetchAsync", type, id,
				    false, &c->loc);
	if (ret == -EINVAL)
		cufab_pr_info(client, "cuMemPrefetchAsync: location type %u id %d: not a device, the host or an online NUMA node\n",
			      type, id);
	if (ret)
		return ret;
	return cufab_managed_range_get(client, "cuMemPrefetchAsync", addr,
				       length, r);
}

/* Record the location, then move the pages there, in @mm. */
static int cufab_prefetch_run(struct cufab_client *client,
			      struct mm_struct *mm,
			      const struct cufab_advice_change *c,
			      const struct cufab_managed_range *r)
{
	struct cufab_prefetch_move mv = {
		.alloc = r->alloc, .first = r->first, .nid = c->loc.nid,
	};
	int ret;

	ret = cufab_managed_change(r->alloc->priv, r->first, r->last, c);
	if (ret)
		return ret;
	return cufab_va_locked_mm(client, mm, r->start, r->length,
				  cufab_managed_do_prefetch, &mv);
}

int cufab_ioctl_mem_prefetch(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_prefetch *cmd = ucmd->cmd;
	struct cufab_advice_change c = {};
	struct cufab_managed_range r;
	int ret;

	if (cmd->flags || cmd->__reserved) {
		cufab_pr_info(ucmd->client, "cuMemPrefetchAsync: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	ret = cufab_prefetch_check(ucmd->client, cmd->dev, cmd->location_type,
				   cmd->location_id, cmd->addr, cmd->length,
				   &c, &r);
	if (ret)
		return ret;
	ret = cufab_prefetch_run(ucmd->client, current->mm, &c, &r);
	cufab_alloc_put(r.alloc);
	return ret;
}

/* ---- cuMemPrefetchAsync in stream order: CUFAB_OP_PREFETCH ---- */

/* What a queued prefetch holds (op->u.prefetch.job). */
struct cufab_prefetch_job {
	struct cufab_advice_change c;
	struct cufab_managed_range r;	/* r.alloc: a reference */
	struct mm_struct *mm;		/* mmgrab()bed */
};

static int cufab_op_prefetch_prepare(struct cufab_op *op,
				     const struct cufab_stream_submit *cmd)
{
	struct cufab_prefetch_job *job;
	int ret;

	if (cmd->src || cmd->host_fn || cmd->host_data || cmd->event_id ||
	    cmd->src_dev != CUFAB_DEV_STREAM ||
	    cmd->dst_dev != CUFAB_DEV_STREAM) {
		cufab_pr_info(op->stream->client, "cuMemPrefetchAsync: stream %llu: src, host_fn, host_data, event_id and the devices must be unset for a prefetch\n",
			      op->stream->uid);
		return -EINVAL;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	ret = cufab_prefetch_check(op->stream->client, op->stream->dev,
				   cmd->value, (s32)cmd->elem_size, cmd->dst,
				   cmd->length, &job->c, &job->r);
	if (ret) {
		kfree(job);
		return ret;
	}
	job->mm = current->mm;
	mmgrab(job->mm);
	op->u.prefetch.job = job;
	return 0;
}

/*
 * The stream has reached the prefetch. Memory freed since has nothing to
 * move, and an exiting process nothing to keep: a prefetch is a hint.
 * The pages it populates are the process's: they are charged to its
 * memory cgroup, as when it touches them (a kthread charges nobody).
 */
static int cufab_op_prefetch_execute(struct cufab_op *op)
{
	struct cufab_prefetch_job *job = op->u.prefetch.job;
	struct cufab_charge charge;
	int ret;

	if (!mmget_not_zero(job->mm))
		return 0;
	cufab_charge_begin(&charge, job->mm);
	ret = cufab_prefetch_run(op->stream->client, job->mm, &job->c,
				 &job->r);
	cufab_charge_end(&charge);
	/* the last user may be us: exit_mmap() does not belong here */
	mmput_async(job->mm);
	return ret == -EINVAL ? 0 : ret;
}

static void cufab_op_prefetch_cleanup(struct cufab_op *op)
{
	struct cufab_prefetch_job *job = op->u.prefetch.job;

	if (!job)
		return;
	cufab_alloc_put(job->r.alloc);
	mmdrop(job->mm);
	kfree(job);
}

const struct cufab_op_type cufab_op_prefetch = {
	.name = "prefetch",
	.skip_on_error = true,
	.prepare = cufab_op_prefetch_prepare,
	.execute = cufab_op_prefetch_execute,
	.cleanup = cufab_op_prefetch_cleanup,
};

/* Pages of [first, last) with memory, and how many of them are on @nid. */
static void cufab_managed_resident(struct cufab_alloc *alloc, u64 first,
				   u64 last, int nid,
				   struct cufab_mem_range_attrs *cmd)
{
	struct page *page;
	unsigned long index;

	xa_for_each_range(&alloc->pages, index, page, first, last - 1) {
		cmd->out_resident++;
		if (page_to_nid(page) == nid)
			cmd->out_resident_on_node++;
	}
}

int cufab_ioctl_mem_range_attrs(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_range_attrs *cmd = ucmd->cmd;
	struct cufab_managed_advice adv;
	struct cufab_managed_range r;
	struct cufab_managed *m;
	int ret;

	if (cmd->flags || cmd->__reserved || cmd->__reserved2) {
		cufab_pr_info(ucmd->client, "cuMemRangeGetAttribute: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	ret = cufab_managed_range_get(ucmd->client, "cuMemRangeGetAttribute",
				      cmd->addr, cmd->length, &r);
	if (ret)
		return ret;
	m = r.alloc->priv;
	cufab_managed_query(m, r.first, r.last, &adv);
	cmd->out_read_mostly = adv.read_mostly;
	cmd->out_preferred_type = adv.preferred.type;
	cmd->out_preferred_id = adv.preferred.type ? adv.preferred.id : -1;
	cmd->out_prefetch_type = adv.prefetch.type;
	cmd->out_prefetch_id = adv.prefetch.type ? adv.prefetch.id : -1;
	cmd->out_accessed_by_host = adv.accessed_host;
	cmd->out_accessed_by = adv.accessed_gpus;
	cmd->out_resident = 0;
	cmd->out_resident_on_node = 0;
	cufab_managed_resident(r.alloc, r.first, r.last, cmd->node, cmd);
	mutex_lock(&m->lock);
	cmd->out_attach = m->attach_now;
	cmd->out_attach_stream = m->stream_uid;
	mutex_unlock(&m->lock);
	cufab_alloc_put(r.alloc);
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* ---- cuStreamAttachMemAsync: CUFAB_OP_ATTACH ---- */

static void cufab_attach_refused(const struct cufab_stream_submit *cmd,
				 const char *why)
{
	pr_info_ratelimited("pid %d (%s): cuStreamAttachMemAsync(0x%llx, %llu bytes, flags 0x%x): %s\n",
			    task_tgid_nr(current), current->comm, cmd->dst,
			    cmd->length, cmd->value, why);
}

/* The managed allocation at @addr's reservation, with a reference, or NULL. */
static struct cufab_alloc *cufab_managed_at(struct cufab_va *va)
{
	struct cufab_alloc *alloc = NULL;
	struct cufab_va_map *map;

	down_read(&va->lock);
	map = va->dead ? NULL : mtree_load(&va->maps, va->start);
	if (map && va->linear && cufab_alloc_is_managed(map->alloc)) {
		alloc = map->alloc;
		cufab_alloc_get(alloc);
	}
	up_read(&va->lock);
	return alloc;
}

/* Managed memory: the whole allocation from its base, else -EINVAL. */
static int cufab_attach_managed(struct cufab_op *op, struct cufab_va *va,
				const struct cufab_stream_submit *cmd)
{
	struct cufab_alloc *alloc = cufab_managed_at(va);

	if (!alloc) {
		cufab_attach_refused(cmd,
				     "not managed memory (cuMemAlloc, cuMemAllocHost and cuMemCreate memory cannot be attached)");
		return -EINVAL;
	}
	if (cmd->dst != va->start ||
	    (cmd->length && PAGE_ALIGN(cmd->length) != alloc->length)) {
		cufab_alloc_put(alloc);
		cufab_attach_refused(cmd,
				     "a managed allocation is attached whole: its base address and length 0 or its size");
		return -EINVAL;
	}
	op->u.attach.alloc = alloc;
	op->u.attach.addr = va->start;
	op->u.attach.mm = current->mm;
	mmgrab(current->mm);
	return 0;
}

static bool cufab_user_range_mapped(u64 addr, u64 length)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	u64 cur = addr;
	bool ok = true;

	mmap_read_lock(mm);
	while (cur < addr + length) {
		vma = vma_lookup(mm, cur);
		if (!vma) {
			ok = false;
			break;
		}
		cur = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ok;
}

/*
 * Pageable host memory: only where the stream's GPU can access it. Where it
 * cannot, driver 580 answers INVALID_VALUE (not NOT_SUPPORTED) whatever the
 * flags, length and alignment: so does cufab.
 */
static int cufab_attach_pageable(struct cufab_op *op,
				 const struct cufab_stream_submit *cmd)
{
	struct cufab_gpu_facts facts;

	if (!cmd->dst) {
		cufab_attach_refused(cmd, "address 0");
		return -EINVAL;
	}
	if (cufab_gpu_facts(op->stream->dev, &facts) ||
	    !(facts.features & CUFAB_DEV_F_PAGEABLE_ACCESS)) {
		cufab_attach_refused(cmd,
				     "pageable memory, and the stream's GPU has PAGEABLE_MEMORY_ACCESS 0");
		return -EINVAL;
	}
	if (!cmd->length || !cufab_range_ok(cmd->dst, cmd->length) ||
	    !cufab_user_range_mapped(cmd->dst, cmd->length)) {
		cufab_attach_refused(cmd,
				     "pageable memory needs a non-zero length of mapped memory");
		return -EINVAL;
	}
	op->u.attach.alloc = NULL;
	return 0;
}

static bool cufab_attach_flags_ok(u32 flags)
{
	return flags == CUFAB_ATTACH_GLOBAL || flags == CUFAB_ATTACH_HOST ||
	       flags == CUFAB_ATTACH_SINGLE;
}

/* What an attach does not use is unset. */
static bool cufab_attach_rest_unset(const struct cufab_stream_submit *cmd)
{
	return !cmd->src && !cmd->elem_size && !cmd->host_fn &&
	       !cmd->host_data && !cmd->event_id &&
	       cmd->src_dev == CUFAB_DEV_STREAM &&
	       cmd->dst_dev == CUFAB_DEV_STREAM;
}

static int cufab_op_attach_prepare(struct cufab_op *op,
				   const struct cufab_stream_submit *cmd)
{
	u32 flags = cmd->value;
	struct cufab_va *va;
	int ret;

	if (!cufab_attach_flags_ok(flags)) {
		cufab_attach_refused(cmd,
				     "flags must be exactly one of CU_MEM_ATTACH_GLOBAL, _HOST, _SINGLE");
		return -EINVAL;
	}
	if (!cufab_attach_rest_unset(cmd)) {
		cufab_attach_refused(cmd,
				     "src, elem_size, host_fn, host_data, event_id and the devices must be unset");
		return -EINVAL;
	}
	op->u.attach.flags = flags;
	va = cufab_va_find(op->stream->client, cmd->dst);
	if (!va)
		return cufab_attach_pageable(op, cmd);
	ret = cufab_attach_managed(op, va, cmd);
	cufab_va_put(va);
	return ret;
}

/* The association changes now that the stream has reached the operation. */
static void cufab_attach_apply(struct cufab_op *op)
{
	struct cufab_alloc *alloc = op->u.attach.alloc;
	bool single = op->u.attach.flags == CUFAB_ATTACH_SINGLE;
	struct cufab_managed *m = alloc->priv;

	trace_cufab_managed_attach(op);
	mutex_lock(&cufab_managed_single_lock);
	mutex_lock(&m->lock);
	m->attach_now = op->u.attach.flags;
	m->stream = single ? op->stream : NULL;
	m->stream_uid = single ? op->stream->uid : 0;
	mutex_unlock(&m->lock);
	/* from another stream's list, if it was attached there */
	if (single)
		list_move(&m->single_node, &op->stream->managed_single);
	else
		list_del_init(&m->single_node);
	mutex_unlock(&cufab_managed_single_lock);
}

/* Under va->lock: change the association, then fence what it now covers. */
static int cufab_attach_fenced(struct cufab_va *va, struct vm_area_struct *vma,
			       u64 addr, u64 length, void *arg)
{
	cufab_attach_apply(arg);
	return cufab_managed_fence_va(va, vma, addr, length, NULL);
}

/*
 * The association the operation sets is the allocation's already (the
 * common case: a stream attaching again what it attached before). Nothing
 * changes, so nothing needs fencing again: the fence follows the
 * association, and whichever set it last fenced what it covers (a CPU
 * touch since was checked against it).
 */
static bool cufab_attach_unchanged(struct cufab_op *op)
{
	struct cufab_managed *m = op->u.attach.alloc->priv;
	u32 flags = op->u.attach.flags;
	bool same;

	mutex_lock(&m->lock);
	same = m->attach_now == flags &&
	       (flags != CUFAB_ATTACH_SINGLE || m->stream == op->stream);
	mutex_unlock(&m->lock);
	return same;
}

static int cufab_op_attach_execute(struct cufab_op *op)
{
	struct cufab_alloc *alloc = op->u.attach.alloc;
	struct mm_struct *mm = op->u.attach.mm;
	int ret = -ESRCH;

	/* pageable memory: nothing of it is tracked */
	if (!alloc)
		return 0;
	if (cufab_attach_unchanged(op)) {
		trace_cufab_managed_attach(op);
		return 0;
	}
	if (mmget_not_zero(mm)) {
		ret = cufab_va_locked_mm(op->stream->client, mm,
					 op->u.attach.addr, alloc->length,
					 cufab_attach_fenced, op);
		/* the last user may be us: exit_mmap() does not belong here */
		mmput_async(mm);
	}
	/* no mapping left to fence: freed since, or the process exits */
	if (ret)
		cufab_attach_apply(op);
	return 0;
}

static void cufab_op_attach_cleanup(struct cufab_op *op)
{
	if (!op->u.attach.alloc)
		return;
	cufab_alloc_put(op->u.attach.alloc);
	mmdrop(op->u.attach.mm);
}

/*
 * An attach that sets the association the allocation has, submitted to an
 * idle stream, changes nothing and fences nothing (see
 * cufab_attach_unchanged()): it is settled at submission, with no
 * operation, no reference on the allocation or the mm, one lookup of the
 * reservation. The association is read and the stream found idle under
 * m->lock, which every change of the association holds: the attach takes
 * effect at that instant. Anything else (another association, a busy
 * stream, pageable memory, a request prepare refuses) is an operation.
 * Lock order: va->lock -> m->lock -> stream->lock.
 */
static bool cufab_op_attach_settled(struct cufab_stream *stream,
				    const struct cufab_stream_submit *cmd,
				    u64 *seq)
{
	u32 flags = cmd->value;
	struct cufab_va_map *map;
	struct cufab_managed *m;
	struct cufab_va *va;
	bool done = false;

	if (!cufab_attach_flags_ok(flags) || !cufab_attach_rest_unset(cmd))
		return false;
	va = cufab_va_find(stream->client, cmd->dst);
	if (!va)
		return false;
	down_read(&va->lock);
	map = va->dead || !va->linear || cmd->dst != va->start ? NULL :
	      mtree_load(&va->maps, va->start);
	if (map && cufab_alloc_is_managed(map->alloc) &&
	    (!cmd->length ||
	     PAGE_ALIGN(cmd->length) == map->alloc->length)) {
		m = map->alloc->priv;
		mutex_lock(&m->lock);
		done = m->attach_now == flags &&
		       (flags != CUFAB_ATTACH_SINGLE || m->stream == stream) &&
		       cufab_stream_idle(stream, seq);
		mutex_unlock(&m->lock);
	}
	up_read(&va->lock);
	cufab_va_put(va);
	return done;
}

/*
 * On an idle stream the submitter applies the association itself
 * (run_inline): it is a few locks and at most a zap of what the CPU
 * touched, less than a round trip through the engine's worker.
 */
const struct cufab_op_type cufab_op_attach = {
	.name = "attach",
	.skip_on_error = true,
	.run_inline = true,
	.prepare = cufab_op_attach_prepare,
	.execute = cufab_op_attach_execute,
	.cleanup = cufab_op_attach_cleanup,
	.settled = cufab_op_attach_settled,
};

/*
 * Memory changed its association with no stream going busy: a destroyed
 * stream's SINGLE memory went back to GLOBAL, say, while another stream
 * of the client fences. Zap what the fence covers now, as going busy
 * would have. The busy list is read after the change: a stream that goes
 * busy later zaps with the change already visible (cufab_managed_fenced()
 * takes m->lock).
 */
static void cufab_managed_refence(struct cufab_client *client)
{
	struct mm_struct *mm = client->fence.mm;
	bool busy;

	spin_lock(&client->fence.lock);
	busy = !list_empty(&client->fence.busy);
	spin_unlock(&client->fence.lock);
	/* an exiting process has no PTE left to zap */
	if (!busy || !mm || !mmget_not_zero(mm))
		return;
	cufab_va_walk_locked(client, mm, cufab_managed_fence_va, NULL);
	/* the last user may be us: exit_mmap() does not belong here */
	mmput_async(mm);
}

/*
 * Watcher @gone: a stream is destroyed and drained. Memory attached
 * SINGLE to it goes back to its default association, as
 * cuStreamAttachMemAsync's documentation says; the data stays.
 */
static void cufab_managed_stream_gone(struct cufab_stream *stream)
{
	struct cufab_managed *m, *tmp;
	bool reverted = false;

	/*
	 * Drained: no attach of the stream's is left to add to the list, so
	 * an empty one stays empty (a move to another stream only empties
	 * it), and most streams never had memory attached.
	 */
	if (list_empty(&stream->managed_single))
		return;
	mutex_lock(&cufab_managed_single_lock);
	list_for_each_entry_safe(m, tmp, &stream->managed_single, single_node) {
		mutex_lock(&m->lock);
		m->attach_now = m->attach;
		m->stream = NULL;
		m->stream_uid = 0;
		mutex_unlock(&m->lock);
		list_del_init(&m->single_node);
		reverted = true;
	}
	mutex_unlock(&cufab_managed_single_lock);
	if (reverted)
		cufab_managed_refence(stream->client);
}

/* ---- the opt-in check of stream accesses ---- */

/* A stream of a GPU with CONCURRENT_MANAGED_ACCESS 0? */
static bool cufab_stream_fences_cpu(const struct cufab_stream *stream)
{
	struct cufab_gpu_facts facts;

	return !cufab_gpu_facts(stream->dev, &facts) &&
	       !(facts.features & CUFAB_DEV_F_CONCURRENT_MANAGED);
}

/*
 * What the seed page calls undefined, checked when asked: a stream
 * operation touching managed memory attached SINGLE to another stream, or
 * (from a GPU with CONCURRENT_MANAGED_ACCESS 0, the only GPUs the HOST
 * promise is about) attached HOST. 0: off, 1: report, 2: report and fail
 * the operation, which the stream's next synchronization returns as
 * CUDA_ERROR_ILLEGAL_ADDRESS.
 */
unsigned int cufab_managed_check;
module_param_named(managed_check, cufab_managed_check, uint, 0644);
MODULE_PARM_DESC(managed_check,
		 "Check stream accesses to managed memory against its attachment: 0 off, 1 report, 2 report and fail the stream (default 0)");

static int cufab_managed_check_one(struct cufab_op *op,
				   struct cufab_alloc *alloc, u64 addr,
				   u64 offset, unsigned int mode)
{
	struct cufab_stream *stream = op->stream;
	struct cufab_managed *m = alloc->priv;
	struct cufab_fence_info f = { .dev = stream->dev };
	bool foreign;
	u32 kind;

	mutex_lock(&m->lock);
	f.attach = m->attach_now;
	f.stream_uid = m->stream_uid;
	foreign = m->stream != stream;
	mutex_unlock(&m->lock);
	if (f.attach == CUFAB_ATTACH_SINGLE && foreign)
		kind = CUFAB_MANAGED_EV_CHECK_STREAM;
	else if (f.attach == CUFAB_ATTACH_HOST &&
		 cufab_stream_fences_cpu(stream))
		kind = CUFAB_MANAGED_EV_CHECK_HOST;
	else
		return 0;
	if (__ratelimit(&cufab_fence_rs)) {
		cufab_pr_info(stream->client,
			      "stream %llu of gpu %u: a %s operation touches managed memory at 0x%llx (allocation %llu) attached %s (stream %llu), which the attachment promised it would not%s\n",
			      stream->uid, stream->dev, op->type->name,
			      addr, alloc->id, cufab_attach_name(f.attach),
			      f.stream_uid,
			      mode > 1 ? "; the stream fails" : "");
		cufab_managed_nl_event(kind, stream->client, offset, alloc, &f,
				       stream->uid);
	}
	return mode > 1 ? -EFAULT : 0;
}

/* An operation is about to touch [addr, addr + length): check mode. */
static int cufab_managed_access(struct cufab_op *op, u64 addr, u64 length)
{
	unsigned int mode = READ_ONCE(cufab_managed_check);
	struct cufab_client *client = op->stream->client;
	u64 cur = addr, end = addr + length, stop;
	struct cufab_alloc *alloc;
	struct cufab_va *va;
	int ret = 0;

	while (mode && !ret && cur < end) {
		va = cufab_va_find(client, cur);
		if (!va)
			break;
		stop = min(end, va->start + va->length);
		alloc = va->linear ? cufab_managed_at(va) : NULL;
		if (alloc) {
			ret = cufab_managed_check_one(op, alloc, cur,
						      cur - va->start, mode);
			cufab_alloc_put(alloc);
		}
		cur = stop;
		cufab_va_put(va);
	}
	return ret;
}

/* ---- the fence follows the streams ---- */

/*
 * The stream got work: it fences, and what it fences loses its PTEs
 * before the work can run.
 */
static void cufab_managed_stream_busy(struct cufab_stream *stream)
{
	struct cufab_cpu_fence *fence = &stream->client->fence;

	if (!current->mm || !cufab_stream_fences_cpu(stream))
		return;
	/* a late idle of the last busy period leaves us on the list */
	spin_lock(&fence->lock);
	if (atomic_read(&stream->busy) && list_empty(&stream->fence_node))
		list_add_tail(&stream->fence_node, &fence->busy);
	spin_unlock(&fence->lock);
	cufab_va_walk_locked(stream->client, current->mm,
			     cufab_managed_fence_va, NULL);
}

/* The stream has no work: the next CPU fault maps the page again. */
static void cufab_managed_stream_idle(struct cufab_stream *stream)
{
	struct cufab_cpu_fence *fence = &stream->client->fence;

	/* an early busy of the next period keeps us on the list */
	spin_lock(&fence->lock);
	if (!atomic_read(&stream->busy))
		list_del_init(&stream->fence_node);
	spin_unlock(&fence->lock);
}

const struct cufab_stream_watch cufab_managed_stream_watch = {
	.busy = cufab_managed_stream_busy,
	.idle = cufab_managed_stream_idle,
	.access = cufab_managed_access,
	.gone = cufab_managed_stream_gone,
};

static void cufab_managed_client_init(struct cufab_client *client)
{
	spin_lock_init(&client->fence.lock);
	INIT_LIST_HEAD(&client->fence.busy);
	/* the opener's: the only mm whose CPU the fence keeps out */
	client->fence.mm = current->mm;
	if (client->fence.mm)
		mmgrab(client->fence.mm);
}

/* Every stream of the client is gone, so none is busy. */
static void cufab_managed_client_gone(struct cufab_client *client)
{
	WARN_ON(!list_empty(&client->fence.busy));
	if (client->fence.mm)
		mmdrop(client->fence.mm);
	client->fence.mm = NULL;
}

const struct cufab_client_part cufab_managed_client_part = {
	.name = "managed memory CPU fence",
	.init = cufab_managed_client_init,
	.teardown = cufab_managed_client_gone,
};
