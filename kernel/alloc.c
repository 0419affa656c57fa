// SPDX-License-Identifier: GPL-2.0
/*
 * Physical allocations, whatever their kind (struct cufab_alloc_ops):
 * identity, references, capacity charge, the page store of the kinds with
 * memory, client handles, cuMemRelease and
 * cuMemGetAllocationPropertiesFromHandle.
 *
 * Device memory of a virtual GPU is host memory charged against the GPU's
 * capacity: the whole length is charged at create (CUDA reserves device
 * memory at cuMemCreate, so cuMemGetInfo must drop right away), while the
 * pages themselves are taken zeroed on first touch from the allocation's
 * page provider (struct cufab_page_provider: this node's page allocator,
 * on the GPU's or the HOST_NUMA location's node), and kept by index in
 * the allocation's page store until the final put gives them back.
 *
 * Lock order: cufab_topo_rwsem (read) -> cufab_allocs_lock. Pages are
 * published with xa_cmpxchg(), without any lock of ours, so the fault path
 * (under mmap_lock) never waits for an ioctl.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/pid.h>
#include <linux/numa.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "trace.h"

/*
 * The module parameter mem_granularity_kib (main.c): the default of every
 * GPU and of cuMemAddressReserve's alignment. Per-GPU values:
 * cufab_gpu_mem_gran() (device.c).
 */
u64 cufab_mem_granularity(void)
{
	return READ_ONCE(cufab_node.default_gran.mem) ?: CUFAB_MEM_GRANULARITY_DEFAULT;
}

u64 cufab_mem_granularity_rec(void)
{
	return READ_ONCE(cufab_node.default_gran.mem_rec) ?: cufab_mem_granularity();
}

static LIST_HEAD(cufab_allocs);
static DEFINE_MUTEX(cufab_allocs_lock);
static atomic64_t cufab_alloc_next_id = ATOMIC64_INIT(0);
static atomic64_t cufab_allocs_nr = ATOMIC64_INIT(0);

u64 cufab_allocs_live(void)
{
	return atomic64_read(&cufab_allocs_nr);
}

/**
 * cufab_gpu_charge() - reserve capacity
 * @used: the GPU's mem_used
 * @total: its capacity
 * @bytes: to charge
 *
 * Return: 0, or -ENOMEM when @used + @bytes would exceed @total. Never
 * overshoots, even transiently, so concurrent creators cannot both win.
 */
int cufab_gpu_charge(atomic64_t *used, u64 total, u64 bytes)
{
	s64 old = atomic64_read(used);

	do {
		if (bytes > total || (u64)old > total - bytes)
			return -ENOMEM;
	} while (!atomic64_try_cmpxchg(used, &old, old + bytes));
	return 0;
}

void cufab_gpu_uncharge(atomic64_t *used, u64 bytes)
{
	WARN_ON_ONCE(atomic64_sub_return(bytes, used) < 0);
}

/*
 * A refused creation's line, in the form of the calls' own: the call,
 * the object and the rule (none for a creation no call of the process
 * asked for: desc->call NULL).
 */
#define cufab_alloc_info(desc, fmt, ...)				\
	do {								\
		const struct cufab_alloc_desc *__d = (desc);		\
									\
		if (__d->call)						\
			cufab_pr_info(__d->client, "%s: size 0x%llx" fmt, \
				      __d->call, __d->length,		\
				      ##__VA_ARGS__);			\
	} while (0)

/*
 * Charge a DEVICE allocation and pick the node its pages live on. No
 * topology lock, here or at the uncharge: the client creating it is open,
 * and the allocation itself is counted live until after its uncharge,
 * and either makes a topology change wait (cufab_topo_change_begin()).
 */
static int cufab_alloc_charge(struct cufab_alloc *alloc,
			      const struct cufab_alloc_desc *desc)
{
	struct cufab_gpu *gpu = cufab_node_gpu_stable(alloc->gpu);
	int ret;

	if (!gpu) {
		cufab_alloc_info(desc, " on gpu %d: no such GPU on this node\n",
				 alloc->gpu);
		return -ENODEV;
	}
	alloc->nid = gpu->numa_node;
	ret = cufab_gpu_charge(&gpu->mem_used, gpu->mem_total, alloc->length);
	if (ret)
		cufab_alloc_info(desc, " on gpu %d: more than its free memory (%lld of %llu bytes used)\n",
				 alloc->gpu,
				 (s64)atomic64_read(&gpu->mem_used),
				 gpu->mem_total);
	return ret;
}

static void cufab_alloc_uncharge(struct cufab_alloc *alloc)
{
	struct cufab_gpu *gpu = cufab_node_gpu_stable(alloc->gpu);

	if (!WARN_ON_ONCE(!gpu))
		cufab_gpu_uncharge(&gpu->mem_used, alloc->length);
}

/* Where do the pages go, and is the location valid? */
static int cufab_alloc_locate(struct cufab_alloc *alloc,
			      const struct cufab_alloc_desc *desc)
{
	alloc->gpu = -1;
	alloc->nid = NUMA_NO_NODE;
	switch (desc->location_type) {
	case CUFAB_LOC_DEVICE:
		if (desc->location_id < 0) {
			cufab_alloc_info(desc, " on gpu %d: no such GPU on this node\n",
					 desc->location_id);
			return -ENODEV;
		}
		if (desc->ops->flags & CUFAB_ALLOC_REMOTE)
			return 0;
		alloc->gpu = desc->location_id;
		return cufab_alloc_charge(alloc, desc);
	case CUFAB_LOC_HOST_NUMA:
		if (desc->location_id < 0 || desc->location_id >= MAX_NUMNODES ||
		    !node_online(desc->location_id)) {
			cufab_alloc_info(desc, " on host NUMA node %d: not an online node\n",
					 desc->location_id);
			return -EINVAL;
		}
		alloc->nid = desc->location_id;
		return 0;
	case CUFAB_LOC_HOST:
		return 0;
	case 0:		/* no memory of its own, so no place for it */
		if (!desc->ops->page)
			return 0;
		fallthrough;
	default:
		cufab_alloc_info(desc, " location type %u: not a GPU, the host or a host NUMA node\n",
				 desc->location_type);
		return -EINVAL;
	}
}

/* The provider's backing for a kind with memory, before it is published. */
static int cufab_alloc_attach(struct cufab_alloc *alloc,
			      const struct cufab_alloc_desc *desc)
{
	if (!desc->ops->page)
		return 0;
	alloc->provider = desc->provider ?: &cufab_local_pages;
	return alloc->provider->attach ? alloc->provider->attach(alloc) : 0;
}

/* Give @alloc its id, its first reference and a place in the list. */
static void cufab_alloc_publish(struct cufab_alloc *alloc)
{
	kref_init(&alloc->ref);
	/* nodes charged to whoever populates, as the pages are */
	xa_init_flags(&alloc->pages, XA_FLAGS_ACCOUNT);
	xa_init_flags(&alloc->huge, XA_FLAGS_ACCOUNT);
	alloc->owner_pid = task_tgid_nr(current);
	/*
	 * Its own name needs no task_lock(): comm always ends in a NUL, and
	 * a rename racing this copy at worst shows half of each name. Two
	 * word moves, not strscpy()'s scan: this runs on every create.
	 */
	memcpy(alloc->owner_comm, current->comm, sizeof(alloc->owner_comm));
	alloc->owner_comm[sizeof(alloc->owner_comm) - 1] = '\0';

	/* under the lock: the list stays in id order (cufab_allocs_for_each) */
	mutex_lock(&cufab_allocs_lock);
	alloc->id = atomic64_inc_return(&cufab_alloc_next_id);
	list_add_tail(&alloc->node, &cufab_allocs);
	mutex_unlock(&cufab_allocs_lock);
	atomic64_inc(&cufab_allocs_nr);
	cufab_live_objects_inc();
	trace_cufab_alloc_create(alloc);
}

/*
 * Memory for a new allocation: @client's spare if it has one, zeroed here
 * a word at a time, else the slab's (which zeroes it byte by byte on a
 * kernel with init_on_alloc, as Debian's: the larger part of a create in
 * a VM without hardware help). Either way charged to the client's cgroup.
 */
static struct cufab_alloc *cufab_alloc_mem(struct cufab_client *client)
{
	struct cufab_alloc *alloc = client ?
				    cufab_spare_take(client->spare_alloc) :
				    NULL;

	if (alloc) {
		*alloc = (struct cufab_alloc){};
		return alloc;
	}
	/* without a line: the allocator warns of its own failures */
	return kzalloc(sizeof(*alloc), GFP_KERNEL_ACCOUNT);
}

/**
 * cufab_alloc_create() - a new allocation with one reference
 * @desc: validated by the caller, except for the location
 *
 * Return: the allocation, ERR_PTR(-ENOMEM) past the GPU's capacity or
 * without memory, -ENODEV for a GPU that does not exist, -EINVAL for a
 * NUMA node that is not online. On error @desc->priv is still the
 * caller's.
 */
struct cufab_alloc *cufab_alloc_create(const struct cufab_alloc_desc *desc)
{
	struct cufab_alloc *alloc;
	int ret;

	/* a kind without memory injects its failures in its own create */
	if (desc->ops->page && cufab_should_fail(CUFAB_FAULT_MEM_CREATE))
		return ERR_PTR(-ENOMEM);
	alloc = cufab_alloc_mem(desc->spare_of);
	if (!alloc)
		return ERR_PTR(-ENOMEM);
	alloc->ops = desc->ops;
	alloc->length = desc->length;
	alloc->location_type = desc->location_type;
	alloc->location_id = desc->location_type == CUFAB_LOC_HOST ||
			     !desc->location_type ? -1 : desc->location_id;
	alloc->handle_types = desc->handle_types;
	alloc->alloc_flags = desc->alloc_flags;
	ret = cufab_alloc_locate(alloc, desc);
	if (ret)
		goto out_free;
	ret = cufab_alloc_attach(alloc, desc);
	if (ret) {
		cufab_alloc_info(desc, ": no backing for its pages (%d)\n",
				 ret);
		goto out_uncharge;
	}
	alloc->priv = desc->priv;
	cufab_alloc_publish(alloc);
	return alloc;

out_uncharge:
	if (alloc->gpu >= 0)
		cufab_alloc_uncharge(alloc);
out_free:
	kfree(alloc);
	return ERR_PTR(ret);
}

void cufab_alloc_get(struct cufab_alloc *alloc)
{
	kref_get(&alloc->ref);
}

/* Give every page of the store back to the provider, then its backing. */
static void cufab_alloc_detach(struct cufab_alloc *alloc)
{
	const struct cufab_page_provider *provider = alloc->provider;
	struct page *page;
	unsigned long index;

	/*
	 * Most allocations are released untouched (and a multicast object
	 * has no pages): an empty array needs neither the walk nor the
	 * destroy, which takes its lock.
	 */
	if (!xa_empty(&alloc->pages)) {
		xa_for_each(&alloc->pages, index, page)
			provider->put_page(alloc, index, page);
		xa_destroy(&alloc->pages);
	}
	if (!xa_empty(&alloc->huge))
		xa_destroy(&alloc->huge);
	if (provider && provider->detach)
		provider->detach(alloc);
}

/*
 * Everything the final put undoes but the allocation's own memory; the
 * kind's state may go to @spare_of's spares (NULL: freed).
 */
static void cufab_alloc_teardown(struct cufab_alloc *alloc,
				 struct cufab_client *spare_of)
{
	trace_cufab_alloc_destroy(alloc);
	if (alloc->fabric)
		cufab_fabric_forget(alloc);
	/* off the list first: its walkers may look at the kind's state */
	mutex_lock(&cufab_allocs_lock);
	list_del(&alloc->node);
	mutex_unlock(&cufab_allocs_lock);
	if (spare_of && alloc->ops->release_to)
		alloc->ops->release_to(alloc, spare_of);
	else if (alloc->ops->release)
		alloc->ops->release(alloc);
	cufab_alloc_detach(alloc);
	if (alloc->gpu >= 0)
		cufab_alloc_uncharge(alloc);
	atomic64_dec(&cufab_allocs_nr);
}

static void cufab_alloc_release(struct kref *ref)
{
	struct cufab_alloc *alloc = container_of(ref, struct cufab_alloc, ref);

	cufab_alloc_teardown(alloc, NULL);
	kfree(alloc);
	cufab_live_objects_dec();
}

void cufab_alloc_put(struct cufab_alloc *alloc)
{
	kref_put(&alloc->ref, cufab_alloc_release);
}

/**
 * cufab_alloc_put_spare() - drop a handle's reference, keeping the memory
 * @alloc: the allocation
 * @client: the handle's client
 *
 * As cufab_alloc_put(), but when the reference is the last one the
 * allocation's memory becomes one of @client's spares for its next
 * creates: a create/release loop costs no allocation from the slab.
 */
void cufab_alloc_put_spare(struct cufab_alloc *alloc,
			   struct cufab_client *client)
{
	/* an import's memory is charged to its exporter's cgroup: not kept */
	if (alloc->owner_pid != pid_nr(client->tgid) ||
	    !refcount_dec_if_one(&alloc->ref.refcount)) {
		cufab_alloc_put(alloc);
		return;
	}
	cufab_alloc_teardown(alloc, client);
	if (!cufab_spare_keep(client->spare_alloc, alloc))
		kfree(alloc);
	cufab_live_objects_dec();
}

/* The spares go with the client, after its handles. */
static void cufab_alloc_client_gone(struct cufab_client *client)
{
	cufab_spares_free(client->spare_alloc);
	cufab_spares_free(client->spare_mc);
}

const struct cufab_client_part cufab_alloc_client_part = {
	.name = "spare allocation",
	.teardown = cufab_alloc_client_gone,
};

struct page *cufab_alloc_page(struct cufab_alloc *alloc, pgoff_t index)
{
	if (index >= alloc->length >> PAGE_SHIFT || !alloc->ops->page)
		return ERR_PTR(-EINVAL);
	return alloc->ops->page(alloc, index);
}

/**
 * cufab_charge_begin() - charge what follows to @mm's memory cgroup
 * @c: the scope, for cufab_charge_end()
 * @mm: the process an operation runs for
 *
 * The engine's kthreads charge nobody (__GFP_ACCOUNT is bypassed there):
 * pages an operation populates for a process are the process's, charged
 * as if it had touched them, so its cgroup's limit holds for its streams.
 */
void cufab_charge_begin(struct cufab_charge *c, struct mm_struct *mm)
{
	c->memcg = get_mem_cgroup_from_mm(mm);
	c->old = set_active_memcg(c->memcg);
}

void cufab_charge_end(struct cufab_charge *c)
{
	set_active_memcg(c->old);
	mem_cgroup_put(c->memcg);
}

/* Blocks of 2 MiB: what one PMD entry maps. */
#define CUFAB_HUGE_ORDER	(PMD_SHIFT - PAGE_SHIFT)
#define CUFAB_HUGE_PAGES	BIT(CUFAB_HUGE_ORDER)

/*
 * Pages are charged to the memory cgroup of whoever touches them first
 * (__GFP_ACCOUNT). Without memory for one, the touch fails (SIGBUS for
 * the CPU, CUDA_ERROR_OUT_OF_MEMORY for a copy) instead of waking the
 * OOM killer (__GFP_RETRY_MAYFAIL): device memory a GPU does not have is
 * an error of the program that touches it, not a reason to kill another.
 * These are what the store asks its provider for (struct
 * cufab_page_provider.get_page); a provider with pages of its own honours
 * __GFP_ZERO and ignores the rest.
 */
/* The page store's own nodes: short of memory, fail, never OOM-kill. */
#define CUFAB_XA_GFP	(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static gfp_t cufab_alloc_gfp(const struct cufab_alloc *alloc)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT |
		    __GFP_RETRY_MAYFAIL | __GFP_NOWARN;

	if (alloc->location_type == CUFAB_LOC_HOST_NUMA)
		gfp |= __GFP_THISNODE;
	return gfp;
}

/* The page at @index, a new one on @nid unless another fault won. */
static struct page *cufab_alloc_new_page(struct cufab_alloc *alloc,
					 pgoff_t index, int nid)
{
	struct page *page, *old;

	page = xa_load(&alloc->pages, index);
	if (page)
		return page;
	page = alloc->provider->get_page(alloc, index, nid,
					 cufab_alloc_gfp(alloc));
	if (!page)
		return ERR_PTR(-ENOMEM);

	/* another fault may have raced us to the same page */
	old = xa_cmpxchg(&alloc->pages, index, NULL, page, CUFAB_XA_GFP);
	if (old) {
		alloc->provider->put_page(alloc, index, page);
		return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
	}
	atomic_long_inc(&alloc->resident);
	return page;
}

/*
 * Populate the whole 2 MiB block around @index when the allocation covers
 * it and none of it is populated yet, so that the CPU view maps the block
 * in one fault (cufab_va_fault_around()); the block is then marked. Pages
 * that cannot be had without reclaim are left to their own first touch
 * (the block is then not marked). The pages are ordinary 4 KiB pages, not
 * one 2 MiB block: Linux 6.1 cannot map a PFN-mapped block with one PMD
 * anyway, and copies between two blocks' pages at equal offsets are
 * several times slower under emulation (TCG).
 */
static void cufab_alloc_huge_fill(struct cufab_alloc *alloc, pgoff_t index)
{
	pgoff_t first = round_down(index, CUFAB_HUGE_PAGES);
	unsigned long probe = first;
	struct page *page;
	unsigned long i;

	if (first + CUFAB_HUGE_PAGES > alloc->length >> PAGE_SHIFT ||
	    xa_find(&alloc->pages, &probe, first + CUFAB_HUGE_PAGES - 1,
		    XA_PRESENT))
		return;
	for (i = 0; i < CUFAB_HUGE_PAGES; i++) {
		page = alloc->provider->get_page(alloc, first + i, alloc->nid,
						 cufab_alloc_gfp(alloc) |
						 __GFP_NORETRY);
		if (!page)
			return;
		if (xa_insert(&alloc->pages, first + i, page, CUFAB_XA_GFP)) {
			/* a racing fault took it first, or no memory */
			alloc->provider->put_page(alloc, first + i, page);
			return;
		}
		atomic_long_inc(&alloc->resident);
	}
	xa_store(&alloc->huge, first / CUFAB_HUGE_PAGES, xa_mk_value(1),
		 CUFAB_XA_GFP);
}

/**
 * cufab_alloc_huge_block() - may the CPU view map a 2 MiB block at once?
 * @alloc: the allocation
 * @index: first page index of the block
 *
 * Return: true when pages @index.. @index + 511 were populated together
 * by the first touch of the block.
 */
bool cufab_alloc_huge_block(struct cufab_alloc *alloc, pgoff_t index)
{
	return IS_ALIGNED(index, CUFAB_HUGE_PAGES) &&
	       xa_load(&alloc->huge, index / CUFAB_HUGE_PAGES);
}

/**
 * cufab_alloc_store_page() - the page store of the kinds with memory
 * @alloc: the allocation
 * @index: page index inside it
 *
 * Taken zeroed from the allocation's provider on first use, a 2 MiB block
 * at a time where the allocation covers the aligned block
 * (cufab_alloc_huge_fill()). HOST_NUMA pages must be on the requested
 * node (__GFP_THISNODE: fail rather than fall back); device pages prefer
 * the GPU's node.
 *
 * Context: may sleep; called from the fault handler under mmap_lock.
 * Return: the page (owned by @alloc), or ERR_PTR(-ENOMEM).
 */
struct page *cufab_alloc_store_page(struct cufab_alloc *alloc, pgoff_t index)
{
	struct page *page = xa_load(&alloc->pages, index);

	if (page)
		return page;
	if (cufab_should_fail(CUFAB_FAULT_MEM_PAGE))
		return ERR_PTR(-ENOMEM);
	cufab_alloc_huge_fill(alloc, index);
	return cufab_alloc_new_page(alloc, index, alloc->nid);
}

/*
 * As cufab_alloc_store_page(), one 4 KiB page, on node @nid unless
 * NUMA_NO_NODE: the store of managed memory, whose pages move one by one
 * (cufab_alloc_place_page()).
 */
struct page *cufab_alloc_store_page_nid(struct cufab_alloc *alloc,
					pgoff_t index, int nid)
{
	struct page *page = xa_load(&alloc->pages, index);

	if (page)
		return page;
	if (cufab_should_fail(CUFAB_FAULT_MEM_PAGE))
		return ERR_PTR(-ENOMEM);
	return cufab_alloc_new_page(alloc, index,
				    nid == NUMA_NO_NODE ? alloc->nid : nid);
}

/**
 * cufab_map_args_check() - cuMemMap's argument rules
 * @addr: where
 * @length: bytes
 * @offset: into the allocation
 * @alloc_len: the allocation's size
 * @granularity: the allocation's minimum granularity
 *
 * Return: 0, or -EINVAL when a value is not a multiple of the granularity,
 * the range is empty or wraps, or offset + length passes the end.
 */
int cufab_map_args_check(u64 addr, u64 length, u64 offset, u64 alloc_len,
			 u64 granularity)
{
	if (!IS_ALIGNED(addr, granularity) || !IS_ALIGNED(length, granularity) ||
	    !IS_ALIGNED(offset, granularity))
		return -EINVAL;
	if (!cufab_range_ok(addr, length))
		return -EINVAL;
	if (offset > alloc_len || length > alloc_len - offset)
		return -EINVAL;
	return 0;
}

/* cuMemMap's rules for memory: the location's granularity. */
int cufab_alloc_map_check(struct cufab_alloc *alloc, u64 addr, u64 length,
			  u64 offset)
{
	u64 gran = cufab_loc_mem_gran(alloc->location_type,
				      alloc->location_id, false);
	int ret;

	ret = cufab_map_args_check(addr, length, offset, alloc->length, gran);
	if (ret)
		pr_info_ratelimited("pid %d (%s): cuMemMap: address 0x%llx size 0x%llx offset 0x%llx: must be non-zero multiples of the granularity 0x%llx inside the allocation's 0x%llx bytes\n",
				    task_tgid_nr(current), current->comm, addr,
				    length, offset, gran, alloc->length);
	return ret;
}

int cufab_alloc_place_page(struct cufab_alloc *alloc, pgoff_t index, int nid)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ACCOUNT | __GFP_THISNODE |
		    __GFP_RETRY_MAYFAIL | __GFP_NOWARN;
	struct page *page, *old;

	if (index >= alloc->length >> PAGE_SHIFT || !alloc->ops->page ||
	    !(alloc->provider->flags & CUFAB_PAGES_NUMA) ||
	    nid < 0 || nid >= MAX_NUMNODES || !node_online(nid))
		return -EINVAL;
	old = xa_load(&alloc->pages, index);
	if (old && page_to_nid(old) == nid)
		return 0;
	/*
	 * Beyond the allocation's own reference, a copy of the engine or of
	 * cuMemcpy (cufab_va_get_pages()) is writing the page, or a PTE
	 * outside the caller's range still maps it: a move would lose what
	 * they write after the copy below. The caller holds off new
	 * references (va->lock), so the count cannot rise meanwhile.
	 */
	if (old && page_ref_count(old) != 1)
		return -EBUSY;
	if (cufab_should_fail(CUFAB_FAULT_MEM_PAGE))
		return -ENOMEM;
	page = alloc->provider->get_page(alloc, index, nid,
					 old ? gfp : gfp | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	if (old)
		copy_highpage(page, old);
	old = xa_store(&alloc->pages, index, page, CUFAB_XA_GFP);
	if (xa_is_err(old)) {
		alloc->provider->put_page(alloc, index, page);
		return xa_err(old);
	}
	if (old)
		alloc->provider->put_page(alloc, index, old);
	else
		atomic_long_inc(&alloc->resident);
	return 0;
}

int cufab_alloc_populate(struct cufab_alloc *alloc)
{
	pgoff_t i;

	for (i = 0; i < alloc->length >> PAGE_SHIFT; i++) {
		struct page *page = cufab_alloc_page(alloc, i);

		if (IS_ERR(page))
			return PTR_ERR(page);
		cond_resched();
	}
	return 0;
}

/* ---- client handles (CUFAB_OBJ_MEM_HANDLE) ---- */

static void cufab_mem_handle_destroy(struct cufab_object *obj)
{
	struct cufab_mem_handle *h = container_of(obj, struct cufab_mem_handle,
						  obj);

	if (h->alloc)
		cufab_alloc_put_spare(h->alloc, obj->client);
}

const struct cufab_object_ops cufab_mem_handle_ops = {
	.name = "memory handle",
	.slab = "cufab_mem_handle",
	.size = sizeof(struct cufab_mem_handle),
	.destroy = cufab_mem_handle_destroy,
};

static_assert(offsetof(struct cufab_mem_handle, obj) == 0);

struct cufab_mem_handle *cufab_mem_handle_alloc(struct cufab_client *client,
						struct cufab_alloc *alloc)
{
	struct cufab_mem_handle *h;

	h = cufab_object_alloc(client, h, CUFAB_OBJ_MEM_HANDLE);
	if (IS_ERR(h))
		return h;
	cufab_alloc_get(alloc);
	h->alloc = alloc;
	atomic_set(&h->retains, 1);
	return h;
}

int cufab_mem_handle_respond(struct cufab_ucmd *ucmd,
			     struct cufab_alloc *alloc, u32 *out_id,
			     size_t cmd_len)
{
	struct cufab_mem_handle *h;
	int ret;

	h = cufab_mem_handle_alloc(ucmd->client, alloc);
	if (IS_ERR(h))
		return PTR_ERR(h);
	*out_id = h->obj.id;
	ret = cufab_ucmd_respond(ucmd, cmd_len);
	if (ret) {
		cufab_object_abort_and_destroy(&h->obj);
		return ret;
	}
	cufab_object_finalize(&h->obj);
	return 0;
}

int cufab_mem_handle_respond_put(struct cufab_ucmd *ucmd,
				 struct cufab_alloc *alloc, u32 *out_id,
				 size_t cmd_len)
{
	int ret;

	ret = cufab_mem_handle_respond(ucmd, alloc, out_id, cmd_len);
	cufab_alloc_put(alloc);
	return ret;
}

bool cufab_mem_handle_retain(struct cufab_client *client, u32 id,
			     struct cufab_alloc *alloc)
{
	struct cufab_mem_handle *h;
	struct cufab_object *obj;
	bool ret;

	if (!id)
		return false;
	obj = cufab_object_get(client, id, CUFAB_OBJ_MEM_HANDLE);
	if (IS_ERR(obj))
		return false;
	h = container_of(obj, struct cufab_mem_handle, obj);
	/* the id may have been reused for another allocation's handle */
	ret = h->alloc == alloc && atomic_inc_not_zero(&h->retains);
	cufab_object_put(obj);
	return ret;
}

int cufab_mem_handle_create(struct cufab_client *client,
			    struct cufab_alloc *alloc, u32 *out_id)
{
	struct cufab_mem_handle *h;

	h = cufab_mem_handle_alloc(client, alloc);
	if (IS_ERR(h))
		return PTR_ERR(h);
	*out_id = h->obj.id;
	cufab_object_finalize(&h->obj);
	return 0;
}

struct cufab_alloc *cufab_mem_handle_lookup(struct cufab_client *client,
					    u32 handle)
{
	struct cufab_object *obj;
	struct cufab_alloc *alloc;

	obj = cufab_object_get(client, handle, CUFAB_OBJ_MEM_HANDLE);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	alloc = container_of(obj, struct cufab_mem_handle, obj)->alloc;
	cufab_alloc_get(alloc);
	cufab_object_put(obj);
	return alloc;
}

/* ---- ioctls ---- */

static atomic_t *cufab_mem_handle_retains(struct cufab_object *obj)
{
	return &container_of(obj, struct cufab_mem_handle, obj)->retains;
}

/*
 * cuMemRelease: drop one retain of the handle, the last one destroys it.
 * Mappings hold the allocation itself, so releasing a mapped handle is
 * legal and the memory stays until unmapped. The last release while
 * another thread looks the handle up is -EBUSY with the retain kept.
 */
int cufab_mem_handle_release(struct cufab_client *client, u32 id)
{
	return cufab_object_release_user(client, id, CUFAB_OBJ_MEM_HANDLE,
					 cufab_mem_handle_retains);
}

int cufab_ioctl_mem_release(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_release *cmd = ucmd->cmd;

	return cufab_mem_handle_release(ucmd->client, cmd->handle);
}

int cufab_ioctl_mem_get_props(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_get_props *cmd = ucmd->cmd;
	struct cufab_alloc *alloc;

	alloc = cufab_mem_handle_lookup(ucmd->client, cmd->handle);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	cmd->out_location_type = alloc->location_type;
	cmd->out_location_id = alloc->location_id;
	cmd->out_handle_types = alloc->handle_types;
	cmd->out_alloc_flags = alloc->alloc_flags;
	cmd->out_length = alloc->length;
	cufab_alloc_put(alloc);
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}

/* " nodes=N:pages,..." for the pages of @alloc present so far */
static void cufab_alloc_show_nodes(struct seq_file *m, struct cufab_alloc *alloc,
				   unsigned long *count)
{
	struct page *page;
	unsigned long index;
	int nid;
	char sep = '=';

	memset(count, 0, nr_node_ids * sizeof(*count));
	xa_for_each(&alloc->pages, index, page)
		count[page_to_nid(page)]++;
	seq_puts(m, " nodes");
	for (nid = 0; nid < nr_node_ids; nid++) {
		if (!count[nid])
			continue;
		seq_printf(m, "%c%d:%lu", sep, nid, count[nid]);
		sep = ',';
	}
	if (sep == '=')
		seq_puts(m, "=-");
}

/**
 * cufab_allocs_for_each() - call @fn for the live allocations, oldest first
 * @from_id: start after the allocation with this id (0: from the first)
 * @fn: called under cufab_allocs_lock; a nonzero return stops the walk
 * @arg: passed to @fn
 *
 * Ids are given under cufab_allocs_lock as allocations join the list, so
 * the list is in id order and a walk stopped at one id resumes after it
 * even if allocations came and went meanwhile.
 * Return: the first nonzero value @fn returned, else 0.
 */
int cufab_allocs_for_each(u64 from_id,
			  int (*fn)(struct cufab_alloc *alloc, void *arg),
			  void *arg)
{
	struct cufab_alloc *alloc;
	int ret = 0;

	mutex_lock(&cufab_allocs_lock);
	list_for_each_entry(alloc, &cufab_allocs, node) {
		if (alloc->id <= from_id)
			continue;
		ret = fn(alloc, arg);
		if (ret)
			break;
	}
	mutex_unlock(&cufab_allocs_lock);
	return ret;
}

/*
 * Bytes of @alloc populated so far: a counter, as ALLOC_GET (any user)
 * asks it of every allocation of the node under cufab_allocs_lock, and a
 * walk of the pages would hold that lock for as long as the node's
 * memory is large.
 */
u64 cufab_alloc_resident(struct cufab_alloc *alloc)
{
	return (u64)atomic_long_read(&alloc->resident) << PAGE_SHIFT;
}

struct cufab_allocs_show_ctx {
	struct seq_file *m;
	unsigned long *count;
};

static int cufab_alloc_show(struct cufab_alloc *alloc, void *arg)
{
	struct cufab_allocs_show_ctx *ctx = arg;
	struct seq_file *m = ctx->m;

	seq_printf(m, "alloc %llu pid=%d comm=%s loc=%u:%d length=%llu handle_types=0x%x flags=0x%x kind=%s pages=%s refs=%u",
		   alloc->id, alloc->owner_pid, alloc->owner_comm,
		   alloc->location_type, alloc->location_id,
		   alloc->length, alloc->handle_types,
		   alloc->alloc_flags, alloc->ops->name,
		   alloc->provider ? alloc->provider->name : "-",
		   kref_read(&alloc->ref));
	cufab_alloc_show_nodes(m, alloc, ctx->count);
	seq_putc(m, '\n');
	return 0;
}

/*
 * debugfs "mem": per-GPU use, then one line per live allocation with its
 * owner, size, resident pages per NUMA node and references.
 */
void cufab_allocs_show(struct seq_file *m)
{
	struct cufab_allocs_show_ctx ctx = { .m = m };
	u32 i, n;

	down_read(&cufab_topo_rwsem);
	n = cufab_node.num_gpus;
	for (i = 0; i < n; i++)
		seq_printf(m, "gpu%u used=%lld total=%llu\n", i,
			   (s64)atomic64_read(&cufab_node.gpus[i].mem_used),
			   cufab_node.gpus[i].mem_total);
	up_read(&cufab_topo_rwsem);

	ctx.count = kcalloc(nr_node_ids, sizeof(*ctx.count), GFP_KERNEL);
	if (!ctx.count)
		return;
	cufab_allocs_for_each(0, cufab_alloc_show, &ctx);
	kfree(ctx.count);
}

/* ---- netlink: ALLOC_GET ---- */

struct cufab_nl_alloc_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

static int cufab_nl_put_alloc(struct cufab_alloc *alloc, void *arg)
{
	struct cufab_nl_alloc_dump *d = arg;
	struct sk_buff *skb = d->skb;
	void *hdr;

	/* memory only: multicast objects have none, MC_GET lists them */
	if (!cufab_alloc_cpu_mappable(alloc))
		return 0;
	hdr = cufab_nl_dump_put(skb, d->cb, CUFAB_NL_CMD_ALLOC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, CUFAB_NL_A_ALLOC_ID, alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_ALLOC_PID, alloc->owner_pid) ||
	    nla_put_string(skb, CUFAB_NL_A_ALLOC_COMM, alloc->owner_comm) ||
	    nla_put_u32(skb, CUFAB_NL_A_ALLOC_LOC_TYPE, alloc->location_type) ||
	    nla_put_s32(skb, CUFAB_NL_A_ALLOC_LOC_ID, alloc->location_id) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_ALLOC_SIZE, alloc->length,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_ALLOC_RESIDENT,
			      cufab_alloc_resident(alloc), CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_ALLOC_HANDLE_TYPES,
			alloc->handle_types) ||
	    nla_put_u8(skb, CUFAB_NL_A_ALLOC_LINEAR,
		       cufab_alloc_has(alloc, CUFAB_ALLOC_LINEAR)) ||
	    (alloc->ops->nl_put && alloc->ops->nl_put(skb, alloc))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	/* resume after the last allocation that made it into a message */
	d->cb->args[0] = alloc->id;
	return 0;
}

/*
 * ALLOC_GET dump: one message per live allocation, in id order. args[0]
 * is the id of the last one sent; allocations released between two
 * calls are simply not seen, new ones have larger ids and are.
 */
int cufab_nl_alloc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_nl_alloc_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_allocs_for_each(cb->args[0], cufab_nl_put_alloc, &d);
	return cufab_nl_dump_ret(skb, ret);
}
