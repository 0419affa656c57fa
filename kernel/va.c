// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual address management with real CPU mappings: cuMemAddressReserve /
 * Free, cuMemMap / Unmap, cuMemSetAccess / GetAccess,
 * cuMemRetainAllocationHandle.
 *
 * A reservation is carved from the process's VA arena (va_arena.c), one
 * VMA mapped once, or, for a fixed address outside the arena and for
 * cuMemAlloc memory, is one VMA of this client's /dev/cufab file, created by
 * the kernel with vm_mmap() from inside VA_RESERVE (userspace cannot mmap
 * the device itself). What follows holds for both. The VMA is VM_PFNMAP |
 * VM_IO, never copied into a child (VM_DONTCOPY) and never executable:
 * pages are inserted by the fault handler, from the allocation mapped at
 * the faulting address, only when the CPU view is accessible there.
 * Unmap and access changes zap the PTEs, so the next touch faults and is
 * checked again.
 *
 * The CPU view stands in for the device's loads and stores: it may read
 * when read access was granted to the host or to any device, and write
 * when read-write access was.
 *
 * A reservation's own VMA cannot be split (may_split) or moved (mremap):
 * the reservation is always exactly one VMA (the arena splits only at
 * reservation edges). munmap() of the whole VMA by userspace, or the
 * death of the mm, closes it; the close drops the reservation and its
 * mappings. The VMA (in the arena: the reservation) holds a reference on
 * the file, so the client outlives every reservation it has.
 *
 * Lock order:
 *   space->reserve_lock -> mmap_lock -> space->lock
 *   mmap_lock -> va->lock -> (page allocation)
 *   va->lock -> hit->lock (a remembered page, cufab_va_hit_fill())
 * space->lock and va->lock are never held together, and never while taking
 * mmap_lock (the fault handler and vm_ops->close run under mmap_lock).
 * One-page copies may take a page with no lock at all: see
 * cufab_va_hit_take().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"
#include "trace.h"

/* Most access descriptors one MEM_SET_ACCESS may carry (GPUs + host). */
#define CUFAB_MAX_ACCESS_DESCS	(CUFAB_MAX_GPUS + 1)
/* How often VA_RESERVE retries when another thread takes its hole. */
#define CUFAB_RESERVE_TRIES	4

static const struct vm_operations_struct cufab_va_vm_ops;

/* ---- pure range logic (KUnit: kernel/tests/va_test.c) ---- */

/* What a device may do through @map. */
u32 cufab_map_dev_access(const struct cufab_va_map *map, u32 dev)
{
	if (dev >= 64)
		return CUFAB_ACCESS_NONE;
	if (map->gpu_write & BIT_ULL(dev))
		return CUFAB_ACCESS_RW;
	if (map->gpu_read & BIT_ULL(dev))
		return CUFAB_ACCESS_READ;
	return CUFAB_ACCESS_NONE;
}

/* What the CPU view may do: the host's access or any device's. */
u32 cufab_map_cpu_access(const struct cufab_va_map *map)
{
	if (map->host == CUFAB_ACCESS_RW || map->gpu_write)
		return CUFAB_ACCESS_RW;
	if (map->host == CUFAB_ACCESS_READ || map->gpu_read)
		return CUFAB_ACCESS_READ;
	return CUFAB_ACCESS_NONE;
}

/* ---- the pages of short copies, without a lock (cufab_va_hit_take()) ---- */

static void cufab_va_hits_init(struct cufab_va_space *space)
{
	unsigned int i;

	atomic_long_set(&space->gen, 0);
	space->hit_next = 0;
	for (i = 0; i < CUFAB_VA_HITS; i++) {
		seqlock_init(&space->hits[i].lock);
		space->hits[i].addr = 0;
		space->hits[i].page = NULL;
	}
}

/**
 * cufab_va_write_lock() - take va->lock for write, to change @va
 * @va: a reservation of a live client
 *
 * Every change to a reservation's mappings, their access or its death is
 * made under va->lock for write, and every page a mapping held is given
 * back after it, so raising the client's generation here, before the
 * change, makes every remembered page of the client stale before any
 * page can be freed (cufab_va_hit_take()).
 */
void cufab_va_write_lock(struct cufab_va *va)
{
	down_write(&va->lock);
	atomic_long_inc(&va->client->va.gen);
	/* the raise is seen before anything this writer does next */
	smp_mb__after_atomic();
}

/**
 * cufab_va_ranges_grew() - a reservation joined @space's tree
 * @space: the client's
 *
 * Remembered plain pages (cufab_va_hit_take()) there may be cufab memory
 * now: they no longer hold. Call after the reservation is in the tree.
 */
void cufab_va_ranges_grew(struct cufab_va_space *space)
{
	atomic_long_inc(&space->gen);
}

/* ---- reservations ---- */

static void cufab_va_space_init(struct cufab_client *client)
{
	struct cufab_va_space *space = &client->va;

	mutex_init(&space->lock);
	mutex_init(&space->reserve_lock);
	mt_init(&space->ranges);
	space->pending = NULL;
	space->pending_task = NULL;
	space->arena = NULL;
	space->no_arena = false;
	space->nr_kept = 0;
	atomic_set(&space->nr_linear, 0);
	cufab_va_hits_init(space);
}

/*
 * Every VMA holds the file, so by the time the client goes every
 * reservation has been closed and removed.
 */
static void cufab_va_space_destroy(struct cufab_client *client)
{
	struct cufab_va_space *space = &client->va;

	/* frees the reservations it kept, in @ranges too */
	cufab_va_arena_forget(client);
	WARN_ON(!mtree_empty(&space->ranges));
	mtree_destroy(&space->ranges);
	mutex_destroy(&space->lock);
	mutex_destroy(&space->reserve_lock);
}

/* Last in a client's teardown: every reservation is gone by then. */
const struct cufab_client_part cufab_va_client_part = {
	.name = "VA reservations",
	.init = cufab_va_space_init,
	.teardown = cufab_va_space_destroy,
};

static void cufab_va_map_free(struct cufab_va_map *map)
{
	cufab_alloc_put(map->alloc);
	kfree(map);
	cufab_live_objects_dec();
}

/* Free every mapping of @va, which nothing else looks at any more. */
static void cufab_va_maps_free(struct cufab_va *va, bool trace)
{
	struct cufab_va_map *map;
	unsigned long index = 0;

	/* the common case, a reservation freed unmapped, costs no walk */
	if (mtree_empty(&va->maps))
		return;
	mt_for_each(&va->maps, map, index, ULONG_MAX) {
		if (xa_is_value(map))
			continue;
		if (trace)
			trace_cufab_mem_unmap(map);
		cufab_va_map_free(map);
	}
	va->nr_maps = 0;
	mtree_destroy(&va->maps);
}

static void cufab_va_release(struct kref *ref)
{
	struct cufab_va *va = container_of(ref, struct cufab_va, ref);

	/* only a reservation whose VMA never came to be has maps here: none */
	cufab_va_maps_free(va, false);
	kfree(va);
	cufab_live_objects_dec();
}

void cufab_va_put(struct cufab_va *va)
{
	kref_put(&va->ref, cufab_va_release);
}

/**
 * cufab_mt_swap() - replace one entry of a range tree in place
 * @mt: the tree; the caller holds the lock that serializes its writers
 * @start: first index of the entry's range
 * @length: the range's length
 * @old: the entry expected over exactly that range
 * @entry: what to store over it instead (NULL erases)
 *
 * One walk, and a store over an existing range needs no new node: cheaper
 * than an erase and an insert.
 *
 * Return: true when @old was there and was replaced.
 */
bool cufab_mt_swap(struct maple_tree *mt, unsigned long start, u64 length,
		   void *old, void *entry)
{
	MA_STATE(mas, mt, start, start);
	bool ok;

	mtree_lock(mt);
	ok = mas_walk(&mas) == old && mas.index == start &&
	     mas.last == start + length - 1;
	if (ok)
		mas_store_gfp(&mas, entry, GFP_KERNEL_ACCOUNT);
	mtree_unlock(mt);
	return ok;
}

/*
 * The reservation in @entry of a client's tree, or NULL for one it freed
 * and keeps (va_arena.c). Context: space->lock held.
 */
static struct cufab_va *cufab_va_entry(struct cufab_va *va)
{
	return va && !va->kept ? va : NULL;
}

/* The reservation containing @addr, with a reference, or NULL. */
struct cufab_va *cufab_va_find(struct cufab_client *client, u64 addr)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va;

	if (addr > ULONG_MAX)
		return NULL;
	mutex_lock(&space->lock);
	va = cufab_va_entry(mtree_load(&space->ranges, addr));
	if (va)
		kref_get(&va->ref);
	mutex_unlock(&space->lock);
	return va;
}

/*
 * The first reservation of @client at or after *@index up to @last, with
 * a reference, *@index moved past it; NULL when there is none.
 */
static struct cufab_va *cufab_va_next(struct cufab_client *client,
				      unsigned long *index, unsigned long last)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *entry, *va;

	mutex_lock(&space->lock);
	do {
		entry = mt_find(&space->ranges, index, last);
		va = cufab_va_entry(entry);
	} while (entry && !va);
	if (va)
		kref_get(&va->ref);
	mutex_unlock(&space->lock);
	return va;
}

/*
 * The VMA is gone, or the reservation left the arena: forget it and drop
 * every mapping. The PTEs are already zapped. Runs under mmap_lock
 * (vm_ops->close), or (arena) under none.
 */
void cufab_va_teardown(struct cufab_va *va)
{
	struct cufab_va_space *space = &va->client->va;
	bool in_tree;

	mutex_lock(&space->lock);
	in_tree = cufab_mt_swap(&space->ranges, va->start, va->length, va,
				NULL);
	if (in_tree && va->linear)
		atomic_dec(&space->nr_linear);
	mutex_unlock(&space->lock);

	/* once dead, nothing else looks at the maps: free them unlocked */
	cufab_va_write_lock(va);
	va->dead = true;
	up_write(&va->lock);
	cufab_va_maps_free(va, true);
	if (in_tree)
		cufab_va_put(va);
}

static void cufab_va_vm_open(struct vm_area_struct *vma)
{
	struct cufab_va *va = vma->vm_private_data;

	atomic_inc(&va->vmas);
	kref_get(&va->ref);
}

static void cufab_va_vm_close(struct vm_area_struct *vma)
{
	struct cufab_va *va = vma->vm_private_data;

	if (atomic_dec_and_test(&va->vmas))
		cufab_va_teardown(va);
	cufab_va_put(va);
}

/* A reservation is exactly one VMA: refuse partial munmap/mprotect. */
static int cufab_va_vm_may_split(struct vm_area_struct *vma,
				 unsigned long addr)
{
	return -EINVAL;
}

/* ... and refuse to move it: its address is the CUdeviceptr. */
static int cufab_va_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

/*
 * The mapping at @addr and the CPU's access to it, or NULL.
 * Context: va->lock held.
 */
static struct cufab_va_map *cufab_va_map_at(struct cufab_va *va,
					    unsigned long addr)
{
	if (va->dead)
		return NULL;
	return cufab_va_map_load(va, addr);
}

/* The mapping at @addr, dead or not, or NULL. Context: va->lock held. */
struct cufab_va_map *cufab_va_map_load(struct cufab_va *va, unsigned long addr)
{
	struct cufab_va_map *map = mtree_load(&va->maps, addr);

	return xa_is_value(map) ? NULL : map;
}

/*
 * The mapping at @addr if the CPU view lets it be read (or written, with
 * @write), else NULL. Context: va->lock held.
 */
static struct cufab_va_map *cufab_va_map_cpu(struct cufab_va *va,
					     unsigned long addr, bool write)
{
	struct cufab_va_map *map = cufab_va_map_at(va, addr);
	u32 access = map ? cufab_map_cpu_access(map) : CUFAB_ACCESS_NONE;

	if (access == CUFAB_ACCESS_NONE ||
	    (write && access != CUFAB_ACCESS_RW))
		return NULL;
	return map;
}

/*
 * The page behind @addr of @map. A kind with no memory of its own
 * (multicast) has none: on hardware only multimem instructions may touch
 * it (cufabMultimem* stand in); -EFAULT then.
 */
static struct page *cufab_va_map_page(const struct cufab_va_map *map,
				      unsigned long addr)
{
	if (!cufab_alloc_cpu_mappable(map->alloc))
		return ERR_PTR(-EFAULT);
	return cufab_alloc_page(map->alloc,
				(map->offset + addr - map->start) >> PAGE_SHIFT);
}

/*
 * The first touch of a 2 MiB block of device memory maps all of it: the
 * block was populated at once (cufab_alloc_huge_block()), so what a PMD
 * entry would map on a kernel that allows huge PFN mappings (6.1 keeps
 * VM_PFNMAP VMAs out of huge faults) is mapped here with the same
 * protection as the faulting page, sparing 511 faults. Pages already
 * mapped stay as they are. Context: va->lock held.
 */
static void cufab_va_fault_around(struct vm_area_struct *vma,
				  const struct cufab_va_map *map,
				  unsigned long addr, pgprot_t prot)
{
	unsigned long first = addr & PMD_MASK, cur;
	u64 offset = map->offset + first - map->start;
	struct page *page;

	if (first < map->start || first + PMD_SIZE > map->start + map->length ||
	    first < vma->vm_start || first + PMD_SIZE > vma->vm_end ||
	    !IS_ALIGNED(offset, PMD_SIZE) ||
	    !cufab_alloc_huge_block(map->alloc, offset >> PAGE_SHIFT))
		return;
	for (cur = first; cur < first + PMD_SIZE; cur += PAGE_SIZE) {
		page = cur == addr ? NULL : cufab_va_map_page(map, cur);
		if (!IS_ERR_OR_NULL(page))
			vmf_insert_pfn_prot(vma, cur, page_to_pfn(page), prot);
	}
}

/*
 * Called, when set, on every CPU write fault of a cufab mapping: a store
 * a parked cuStreamWaitValue may be waiting for (streammem.c sets it when
 * it first watches a word, cufab_va_cpu_watch()). A pointer, not a call:
 * the view knows nothing of streams.
 */
void (*cufab_va_cpu_store_hook)(unsigned long addr) __read_mostly;

static void cufab_va_cpu_store(unsigned long addr)
{
	void (*hook)(unsigned long addr) = READ_ONCE(cufab_va_cpu_store_hook);

	if (hook)
		hook(addr);
}

/**
 * cufab_va_fault() - the fault handler of a reservation's CPU view
 * @va: the reservation holding the faulting address
 * @vmf: the fault, in @va's VMA or in the arena's
 *
 * Return: what a vm_ops->fault returns.
 */
vm_fault_t cufab_va_fault(struct cufab_va *va, struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	unsigned long addr = vmf->address & PAGE_MASK;
	struct cufab_va_map *map;
	struct page *page;
	vm_fault_t ret;
	pgprot_t prot;

	down_read(&va->lock);
	/*
	 * A reservation carved from the arena is found by address, and a
	 * free drops it outside mmap_lock: once dead, its PTEs are zapped or
	 * being zapped, and its mappings freed.
	 */
	map = va->dead ? NULL : cufab_va_map_cpu(va, addr, write);
	if (!map) {
		ret = VM_FAULT_SIGSEGV;
		goto out;
	}
	/* before any PTE goes in: unmap and access changes must zap */
	if (!READ_ONCE(map->cpu_mapped))
		WRITE_ONCE(map->cpu_mapped, true);
	/* the copies of the engine and of cuMemcpy take pages, not PTEs */
	if (map->alloc->ops->cpu_fault) {
		ret = map->alloc->ops->cpu_fault(map->alloc, va, addr);
		if (ret)
			goto out;
	}
	page = cufab_va_map_page(map, addr);
	if (IS_ERR(page)) {
		if (PTR_ERR(page) == -ENOMEM)
			pr_warn_ratelimited("pid %d (%s): no host memory for the page at 0x%lx of allocation %llu (%s): SIGBUS (memory cgroup limit or host memory exhausted)\n",
					    task_tgid_nr(current), current->comm,
					    addr, map->alloc->id,
					    map->alloc->ops->name);
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	/*
	 * vm_page_prot is read-only (pfn_mkwrite asks for write notification):
	 * a write fault maps writable right away, a read fault read-only and
	 * the first write then goes through pfn_mkwrite.
	 */
	prot = write ? vm_get_page_prot(vma->vm_flags) : vma->vm_page_prot;
	ret = vmf_insert_pfn_prot(vma, addr, page_to_pfn(page), prot);
	trace_cufab_mem_fault(addr, map->alloc->id, map->offset + addr - map->start,
			      write, ret);
	if (ret == VM_FAULT_NOPAGE)
		cufab_va_fault_around(vma, map, addr, prot);
out:
	up_read(&va->lock);
	if (write && ret == VM_FAULT_NOPAGE)
		cufab_va_cpu_store(addr);
	return ret;
}

/* Write to a present read-only PTE: allowed only with read-write access. */
vm_fault_t cufab_va_pfn_mkwrite(struct cufab_va *va, struct vm_fault *vmf)
{
	struct cufab_va_map *map;
	vm_fault_t ret = VM_FAULT_SIGSEGV;

	down_read(&va->lock);
	map = va->dead ? NULL : cufab_va_map_at(va, vmf->address);
	if (map && cufab_map_cpu_access(map) == CUFAB_ACCESS_RW)
		ret = 0;
	up_read(&va->lock);
	if (!ret)
		cufab_va_cpu_store(vmf->address);
	return ret;
}

static vm_fault_t cufab_va_vm_fault(struct vm_fault *vmf)
{
	return cufab_va_fault(vmf->vma->vm_private_data, vmf);
}

static vm_fault_t cufab_va_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	return cufab_va_pfn_mkwrite(vmf->vma->vm_private_data, vmf);
}

static const struct vm_operations_struct cufab_va_vm_ops = {
	.open = cufab_va_vm_open,
	.close = cufab_va_vm_close,
	.may_split = cufab_va_vm_may_split,
	.mremap = cufab_va_vm_mremap,
	.fault = cufab_va_vm_fault,
	.pfn_mkwrite = cufab_va_vm_pfn_mkwrite,
};

/**
 * cufab_va_mmap() - attach the reservation VA_RESERVE is creating
 * @filp: the client's file
 * @vma: the new VMA (any offset but the slots page's: main.c dispatches)
 *
 * Only the vm_mmap() issued by VA_RESERVE itself succeeds; an mmap() of
 * /dev/cufab by userspace is -EINVAL.
 *
 * Context: mmap_lock held for write.
 */
int cufab_va_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct cufab_client *client = filp->private_data;
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va;

	mutex_lock(&space->lock);
	va = space->pending;
	if (!va || space->pending_task != current || vma->vm_pgoff ||
	    vma->vm_end - vma->vm_start != va->length ||
	    !(vma->vm_flags & VM_SHARED)) {
		mutex_unlock(&space->lock);
		pr_warn_ratelimited("pid %d (%s): mmap of /dev/cufab refused: reservations are made with cuMemAddressReserve\n",
				    task_tgid_nr(current), current->comm);
		return -EINVAL;
	}
	space->pending = NULL;
	va->start = vma->vm_start;
	atomic_set(&va->vmas, 1);
	kref_get(&va->ref);	/* the VMA's */
	mutex_unlock(&space->lock);

	/*
	 * VM_IO: MADV_DOFORK cannot undo VM_DONTCOPY (a copy in a child's mm
	 * would keep PTEs that MEM_UNMAP never zaps) and GUP stays out.
	 */
	vma->vm_flags |= VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP |
			 VM_DONTCOPY;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_private_data = va;
	vma->vm_ops = &cufab_va_vm_ops;
	return 0;
}

static struct cufab_va *cufab_va_new(struct cufab_client *client,
				     u64 length, bool linear, s32 linear_dev)
{
	struct cufab_va *va;

	va = kzalloc(sizeof(*va), GFP_KERNEL_ACCOUNT);
	if (!va)
		return NULL;
	kref_init(&va->ref);
	va->client = client;
	va->length = length;
	va->linear = linear;
	va->linear_dev = linear_dev;
	init_rwsem(&va->lock);
	mt_init(&va->maps);
	cufab_live_objects_inc();
	return va;
}

/* A free, @align-aligned hole of @length bytes, or a negative errno. */
static long cufab_va_hole(u64 length, u64 align)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr;

	if (length + align - PAGE_SIZE < length)
		return -ENOMEM;
	mmap_read_lock(mm);
	addr = get_unmapped_area(NULL, 0, length + align - PAGE_SIZE, 0, 0);
	mmap_read_unlock(mm);
	if (IS_ERR_VALUE(addr))
		return addr;
	return ALIGN(addr, align);
}

/*
 * vm_mmap() of the client's file at @addr exactly; the mmap handler
 * recognizes the call by space->pending.
 */
static long cufab_va_mmap_at(struct cufab_client *client, struct cufab_va *va,
			     unsigned long addr)
{
	struct cufab_va_space *space = &client->va;
	unsigned long ret;

	mutex_lock(&space->lock);
	space->pending = va;
	space->pending_task = current;
	mutex_unlock(&space->lock);

	ret = vm_mmap(client->file, addr, va->length, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_FIXED_NOREPLACE, 0);

	mutex_lock(&space->lock);
	space->pending = NULL;
	space->pending_task = NULL;
	mutex_unlock(&space->lock);

	/*
	 * mmap_region() may fail after our handler attached the VMA without
	 * closing it: then the VMA's reference is ours to drop.
	 */
	if (IS_ERR_VALUE(ret) && atomic_read(&va->vmas) && !va->dead) {
		atomic_set(&va->vmas, 0);
		cufab_va_put(va);
	}
	return ret;
}

/*
 * Place the reservation: at the hint when it is free and aligned, else
 * anywhere. Inside the process's arena when it fits there (no VMA of its
 * own), else as a VMA of its own: a hint outside the arena, or a range the
 * arena cannot hold.
 */
static long cufab_va_place(struct cufab_client *client, struct cufab_va *va,
			   u64 hint, u64 align)
{
	long addr, ret = -ENOMEM;
	int tries;

	if (hint && (va->linear ||
		     !cufab_va_arena_covers(client, hint, va->length))) {
		ret = cufab_va_mmap_at(client, va, hint);
		if (!IS_ERR_VALUE(ret))
			return ret;
		hint = 0;
	}
	/*
	 * cuMemAlloc memory keeps a VMA of its own: its free leaves the
	 * range unmapped, as cuMemFree's callers see with mincore().
	 */
	ret = va->linear ? -ENOSPC :
	      cufab_va_arena_place(client, va, hint, align);
	if (!ret)
		return va->start;
	if (ret != -ENOSPC)
		return ret;
	for (tries = 0; tries < CUFAB_RESERVE_TRIES; tries++) {
		addr = cufab_va_hole(va->length, align);
		if (IS_ERR_VALUE(addr))
			return addr;
		ret = cufab_va_mmap_at(client, va, addr);
		/* another thread took the hole in between: look again */
		if (ret != -EEXIST)
			break;
	}
	return ret;
}

/**
 * cufab_va_reserve() - reserve and map a range of the caller's address space
 * @client: owner
 * @hint: preferred address, 0 for none
 * @length: bytes, a multiple of PAGE_SIZE
 * @alignment: a power of two, at least PAGE_SIZE
 * @linear: for MEM_ALLOC
 * @linear_dev: MEM_ALLOC's device
 * @out: the address
 *
 * Return: 0, -ENOMEM when no hole is large enough.
 */
int cufab_va_reserve(struct cufab_client *client, u64 hint, u64 length,
		     u64 alignment, bool linear, s32 linear_dev, u64 *out)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va;
	long addr;
	int ret;

	/* a hint that cannot be honoured is no hint */
	if (!hint || !IS_ALIGNED(hint, alignment) ||
	    !cufab_range_ok(hint, length) || hint + length > TASK_SIZE)
		hint = 0;
	mutex_lock(&space->reserve_lock);
	/* one the client freed and kept: no allocation, no tree write */
	va = linear ? NULL :
	     cufab_va_arena_revive(client, hint, length, alignment);
	if (va) {
		*out = va->start;
		mutex_unlock(&space->reserve_lock);
		cufab_va_put(va);
		return 0;
	}
	va = cufab_va_new(client, length, linear, linear_dev);
	if (!va) {
		mutex_unlock(&space->reserve_lock);
		return -ENOMEM;
	}
	addr = cufab_va_place(client, va, hint, alignment);
	if (IS_ERR_VALUE(addr)) {
		ret = addr;
		goto out;
	}
	mutex_lock(&space->lock);
	/* a concurrent munmap() may already have closed the new VMA */
	ret = va->dead ? -ENOMEM : 0;
	if (!ret)
		ret = mtree_insert_range(&space->ranges, va->start,
					 va->start + length - 1, va,
					 GFP_KERNEL_ACCOUNT);
	if (!ret) {
		kref_get(&va->ref);	/* the tree's */
		if (linear)
			atomic_inc(&space->nr_linear);
		cufab_va_ranges_grew(space);
	}
	mutex_unlock(&space->lock);
	if (ret) {
		if (va->arena)
			cufab_va_arena_undo(va);
		else if (!va->dead)
			vm_munmap(addr, length);
		goto out;
	}
	*out = va->start;
out:
	mutex_unlock(&space->reserve_lock);
	cufab_va_put(va);
	return ret;
}

/**
 * cufab_va_unmap_munmap() - free a reservation (VA_FREE, MEM_FREE)
 * @client: owner
 * @addr: must be the reservation's start
 * @length: must be its length, or 0 for "whatever it is" (MEM_FREE)
 * @linear: VA_FREE frees only cuMemAddressReserve ranges, MEM_FREE only
 *	cuMemAlloc ones
 *
 * Return: 0, -EINVAL when @addr/@length do not name such a reservation or
 * (VA_FREE) something is still mapped in it.
 */
int cufab_va_unmap_munmap(struct cufab_client *client, u64 addr, u64 length,
			  bool linear)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va;
	bool busy = false;
	int ret = 0;

	mutex_lock(&space->reserve_lock);
	va = cufab_va_find(client, addr);
	if (!va || va->start != addr || va->linear != linear || va->pool ||
	    (length && va->length != length)) {
		if (!linear)
			cufab_pr_info(client, "cuMemAddressFree: address 0x%llx size 0x%llx: not the start and size of a cuMemAddressReserve range\n",
				      addr, length);
		ret = -EINVAL;
		goto out;
	}
	/* the arena's drop checks under the lock it takes anyway */
	if (va->arena) {
		ret = cufab_va_arena_drop(va, true);
		busy = ret == -EBUSY;
	} else if (!linear) {
		down_read(&va->lock);
		busy = va->nr_maps;
		up_read(&va->lock);
	}
	if (busy) {
		cufab_pr_info(client, "cuMemAddressFree: range 0x%llx size 0x%llx: still has mappings; cuMemUnmap them first\n",
			      addr, length);
		ret = -EINVAL;
		goto out;
	}
	/* the close of the VMA drops the reservation and what it maps */
	if (!va->arena)
		ret = vm_munmap(va->start, va->length);
out:
	if (va)
		cufab_va_put(va);
	mutex_unlock(&space->reserve_lock);
	return ret;
}

/* Tag the reservation at @addr as pool memory. */
static void cufab_va_mark_pool(struct cufab_client *client, u64 addr)
{
	struct cufab_va *va = cufab_va_find(client, addr);

	if (va) {
		va->pool = true;
		cufab_va_put(va);
	}
}

int cufab_va_pool_map(struct cufab_client *client, struct cufab_alloc *alloc,
		      u64 offset, u64 length, u64 align, u64 gpu_read,
		      u64 gpu_write, u64 *out)
{
	u64 addr;
	int ret;

	ret = cufab_va_reserve(client, 0, length, align, false, -1, &addr);
	if (ret)
		return ret;
	ret = cufab_va_map_alloc(client, addr, length, offset, alloc, 0);
	if (!ret)
		ret = cufab_va_set_access_all(client, addr, length,
					      CUFAB_ACCESS_RW, gpu_read,
					      gpu_write);
	cufab_va_mark_pool(client, addr);
	if (ret) {
		cufab_va_pool_munmap(client, addr);
		return ret;
	}
	*out = addr;
	return 0;
}

/* Free the pool reservation starting at @addr; -EINVAL for anything else. */
int cufab_va_pool_munmap(struct cufab_client *client, u64 addr)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va;
	int ret = -EINVAL;

	mutex_lock(&space->reserve_lock);
	va = cufab_va_find(client, addr);
	if (va && va->pool && va->start == addr)
		ret = va->arena ? cufab_va_arena_drop(va, false) :
		      vm_munmap(va->start, va->length);
	if (va)
		cufab_va_put(va);
	mutex_unlock(&space->reserve_lock);
	return ret;
}

/* ---- mappings ---- */

/*
 * Put @map in @va->maps over nothing mapped: free space or holes, which
 * it overwrites (in place when it covers one hole exactly).
 * Context: va->lock held for write.
 * Return: 0, -EEXIST when a mapping overlaps, -ENOMEM.
 */
static int cufab_va_maps_insert(struct cufab_va *va, struct cufab_va_map *map)
{
	MA_STATE(mas, &va->maps, map->start, map->start);
	unsigned long last = map->start + map->length - 1;
	void *entry;
	int ret = 0;

	mas_lock(&mas);
	mas_for_each(&mas, entry, last) {
		if (!xa_is_value(entry)) {
			ret = -EEXIST;
			break;
		}
	}
	if (!ret) {
		mas_set_range(&mas, map->start, last);
		ret = mas_store_gfp(&mas, map, GFP_KERNEL_ACCOUNT);
	}
	mas_unlock(&mas);
	return ret;
}

/**
 * cufab_va_map_alloc() - map part of an allocation into a reservation
 * @client: owner
 * @addr: inside one reservation
 * @length: bytes
 * @offset: into @alloc
 * @alloc: a reference is taken for the mapping
 * @handle: id of the handle object naming @alloc, for MEM_RETAIN; 0: none
 *
 * Arguments are checked by the caller. The new range is inaccessible
 * until access is granted.
 *
 * Return: 0, -EINVAL when the range is not inside one reservation or
 * overlaps a mapping.
 */
int cufab_va_map_alloc(struct cufab_client *client, u64 addr, u64 length,
		       u64 offset, struct cufab_alloc *alloc, u32 handle)
{
	struct cufab_va_map *map;
	struct cufab_va *va;
	int ret;

	va = cufab_va_find(client, addr);
	if (!va)
		return -EINVAL;
	ret = -EINVAL;
	if (!cufab_range_inside(addr, length, va->start, va->length))
		goto out;
	/* cuMemAlloc ranges are made whole by MEM_ALLOC alone, pools' by pool.c */
	if ((va->linear && !cufab_alloc_has(alloc, CUFAB_ALLOC_LINEAR)) ||
	    va->pool)
		goto out;
	ret = -ENOMEM;
	if (cufab_should_fail(CUFAB_FAULT_MEM_MAP))
		goto out;
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		goto out;
	map->start = addr;
	map->length = length;
	map->offset = offset;
	map->alloc = alloc;
	map->handle = handle;
	cufab_alloc_get(alloc);
	cufab_live_objects_inc();

	cufab_va_write_lock(va);
	ret = va->dead ? -EINVAL : cufab_va_maps_insert(va, map);
	if (!ret) {
		va->nr_maps++;
		trace_cufab_mem_map(map);
	}
	up_write(&va->lock);
	if (ret) {
		cufab_va_map_free(map);
		/* an overlap is "not a free range of the reservation" */
		if (ret == -EEXIST)
			ret = -EINVAL;
	}
out:
	cufab_va_put(va);
	return ret;
}

/* @fn on @va's VMA in @mm, with va->lock (write). Context: mmap_lock held. */
static int cufab_va_locked_vma(struct mm_struct *mm, struct cufab_va *va,
			       u64 addr, u64 length,
			       int (*fn)(struct cufab_va *va,
					 struct vm_area_struct *vma, u64 addr,
					 u64 length, void *arg),
			       void *arg)
{
	struct vm_area_struct *vma = vma_lookup(mm, va->start);
	int ret = -EINVAL;

	if (vma && ((vma->vm_ops == &cufab_va_vm_ops &&
		     vma->vm_private_data == va) ||
		    cufab_va_arena_vma(vma, va))) {
		cufab_va_write_lock(va);
		ret = va->dead ? -EINVAL : fn(va, vma, addr, length, arg);
		up_write(&va->lock);
	}
	return ret;
}

/*
 * Run @fn on the reservation holding [addr, addr + length) with mmap_lock
 * (read) and va->lock (write) held, and @vma its VMA, so it may zap PTEs.
 * -EINVAL when the range is not inside one reservation.
 */
int cufab_va_locked(struct cufab_client *client, u64 addr, u64 length,
		    int (*fn)(struct cufab_va *va, struct vm_area_struct *vma,
			      u64 addr, u64 length, void *arg),
		    void *arg)
{
	return cufab_va_locked_mm(client, current->mm, addr, length, fn, arg);
}

/* The reservation holding all of [addr, addr + length), or NULL. */
static struct cufab_va *cufab_va_find_range(struct cufab_client *client,
					    u64 addr, u64 length)
{
	struct cufab_va *va;

	if (!cufab_range_ok(addr, length))
		return NULL;
	va = cufab_va_find(client, addr);
	if (va && !cufab_range_inside(addr, length, va->start, va->length)) {
		cufab_va_put(va);
		va = NULL;
	}
	return va;
}

/* cufab_va_locked_vma() under @mm's mmap_lock (read). */
static int cufab_va_mm_locked_vma(struct mm_struct *mm, struct cufab_va *va,
				  u64 addr, u64 length,
				  int (*fn)(struct cufab_va *va,
					    struct vm_area_struct *vma,
					    u64 addr, u64 length, void *arg),
				  void *arg)
{
	int ret;

	mmap_read_lock(mm);
	ret = cufab_va_locked_vma(mm, va, addr, length, fn, arg);
	mmap_read_unlock(mm);
	return ret;
}

/* cufab_va_locked() in @mm, the client's, from any task (the engine's). */
int cufab_va_locked_mm(struct cufab_client *client, struct mm_struct *mm,
		       u64 addr, u64 length,
		       int (*fn)(struct cufab_va *va,
				 struct vm_area_struct *vma, u64 addr,
				 u64 length, void *arg),
		       void *arg)
{
	struct cufab_va *va = cufab_va_find_range(client, addr, length);
	int ret;

	if (!va)
		return -EINVAL;
	ret = cufab_va_mm_locked_vma(mm, va, addr, length, fn, arg);
	cufab_va_put(va);
	return ret;
}

static int cufab_va_do_watch(struct cufab_va *va, struct vm_area_struct *vma,
			     u64 addr, u64 length, void *arg)
{
	struct cufab_va_map *map = cufab_va_map_at(va, addr);

	if (!map || !cufab_alloc_cpu_mappable(map->alloc))
		return -EINVAL;
	if (map->cpu_mapped)
		zap_vma_ptes(vma, addr, length);
	return 0;
}

/**
 * cufab_va_cpu_watch() - make the next CPU store to a page fault
 * @client: whose reservation holds @addr
 * @mm: the client's mm, which maps the reservation
 * @addr: any byte of the page
 *
 * Zaps the page's PTE in @mm, if the CPU mapped it: the next access
 * faults, and a store then calls cufab_va_cpu_store_hook. Only @mm's view
 * is zapped (a process that imported the memory maps it in its own, and
 * its stores go unseen), and a fault on a neighbouring page of the same
 * 2 MiB block maps it back (cufab_va_fault_around()) without a store
 * being seen: the caller keeps another way to notice them.
 *
 * Context: process, no lock of the client's reservations held.
 * Return: 0, or -EINVAL when @addr is not in a CPU-mappable cufab mapping
 * of @mm.
 */
int cufab_va_cpu_watch(struct cufab_client *client, struct mm_struct *mm,
		       u64 addr)
{
	return cufab_va_locked_mm(client, mm, addr & PAGE_MASK, PAGE_SIZE,
				  cufab_va_do_watch, NULL);
}

/*
 * cufab_va_locked() for an @fn that zaps only mappings the CPU touched
 * (cufab_va_zap_whole()). When none in the range was touched there is no
 * PTE to zap, and none can appear while va->lock is held for writing (the
 * fault handler sets cpu_mapped under it before it inserts one): @fn
 * first runs with va->lock alone and no VMA, sparing mmap_lock and the
 * VMA lookup, and returns -EAGAIN, having changed nothing, when it finds
 * a touched mapping; it then runs again as cufab_va_locked() would. Only
 * for a live reservation of current's arena: one of another mm is
 * refused by the VMA lookup, as before.
 */
static int cufab_va_locked_zap(struct cufab_client *client, u64 addr,
			       u64 length,
			       int (*fn)(struct cufab_va *va,
					 struct vm_area_struct *vma, u64 addr,
					 u64 length, void *arg),
			       void *arg)
{
	struct cufab_va *va = cufab_va_find_range(client, addr, length);
	struct mm_struct *mm = current->mm;
	int ret = -EAGAIN;

	if (!va)
		return -EINVAL;
	cufab_va_write_lock(va);
	if (!va->dead && cufab_va_arena_in_mm(va, mm))
		ret = fn(va, NULL, addr, length, arg);
	up_write(&va->lock);
	if (ret == -EAGAIN)
		ret = cufab_va_mm_locked_vma(mm, va, addr, length, fn, arg);
	cufab_va_put(va);
	return ret;
}

/*
 * cufab_va_locked_mm() on every reservation of @client in turn, the
 * whole of each; @fn's return values are ignored. One mmap_lock (read)
 * covers the walk: a reservation made meanwhile may be missed, one
 * closed meanwhile is skipped.
 */
void cufab_va_walk_locked(struct cufab_client *client,
			  struct mm_struct *mm,
			  int (*fn)(struct cufab_va *va,
				    struct vm_area_struct *vma, u64 addr,
				    u64 length, void *arg),
			  void *arg)
{
	unsigned long index = 0;
	struct cufab_va *va;

	mmap_read_lock(mm);
	for (;;) {
		va = cufab_va_next(client, &index, ULONG_MAX);
		if (!va)
			break;
		cufab_va_locked_vma(mm, va, va->start, va->length, fn, arg);
		cufab_va_put(va);
	}
	mmap_read_unlock(mm);
}

/* Zap @va's mappings of the allocation @arg. */
static int cufab_va_revoke_va(struct cufab_va *va, struct vm_area_struct *vma,
			      u64 addr, u64 length, void *arg)
{
	unsigned long index = va->start;
	struct cufab_va_map *map;

	mt_for_each(&va->maps, map, index, va->start + va->length - 1) {
		if (xa_is_value(map) || map->alloc != arg || !map->cpu_mapped)
			continue;
		zap_vma_ptes(vma, map->start, map->length);
		map->cpu_mapped = false;
	}
	return 0;
}

static int cufab_va_revoke_client(struct cufab_client *client, void *arg)
{
	struct mm_struct *mm = client->fence.mm;

	/* an exiting process has no PTE left to zap */
	if (!mm || !mmget_not_zero(mm))
		return 0;
	cufab_va_walk_locked(client, mm, cufab_va_revoke_va, arg);
	mmput_async(mm);
	return 0;
}

/**
 * cufab_va_revoke() - no CPU view of @alloc is left in any client
 * @alloc: an import being revoked, already refusing new pages
 *
 * Every reservation's lock is taken for write in turn, so that a fault or
 * a copy's page lookup that got a page of @alloc before it refused has
 * inserted its PTE (zapped here) or taken its page reference (which the
 * caller waits for) by the time this returns.
 */
void cufab_va_revoke(struct cufab_alloc *alloc)
{
	cufab_clients_for_each(0, cufab_va_revoke_client, alloc);
}

/*
 * Is [addr, addr + length) exactly a run of adjacent whole mappings?
 * cuMemUnmap and (here) cuMemSetAccess act on whole mapped ranges.
 * *@touched: the CPU touched one of them since its last zap.
 */
static bool cufab_va_whole_maps(struct cufab_va *va, u64 addr, u64 length,
				bool *touched)
{
	u64 cur = addr, end = addr + length;
	struct cufab_va_map *map;

	*touched = false;
	while (cur < end) {
		map = cufab_va_map_load(va, cur);
		if (!map || map->start != cur || map->length > end - cur)
			return false;
		*touched |= map->cpu_mapped;
		cur += map->length;
	}
	return true;
}

/*
 * Before an unmap or access change of [addr, addr + length): check that
 * it is a run of whole mappings and zap its PTEs when the CPU touched
 * any; the caller then clears their cpu_mapped. Context: va->lock held
 * for write.
 * Return: 0; -EINVAL; -EAGAIN, nothing done, for a touched run and no
 * @vma (cufab_va_locked_zap()).
 */
static int cufab_va_zap_whole(struct cufab_va *va, struct vm_area_struct *vma,
			      u64 addr, u64 length)
{
	bool touched;

	if (!cufab_va_whole_maps(va, addr, length, &touched))
		return -EINVAL;
	if (touched && !vma)
		return -EAGAIN;
	if (touched)
		zap_vma_ptes(vma, addr, length);
	return 0;
}

static int cufab_va_do_unmap(struct cufab_va *va, struct vm_area_struct *vma,
			     u64 addr, u64 length, void *arg)
{
	struct list_head *freed = arg;
	struct cufab_va_map *map;
	u64 cur = addr;
	int ret;

	if (va->linear || va->pool)
		return -EINVAL;
	ret = cufab_va_zap_whole(va, vma, addr, length);
	if (ret)
		return ret;
	while (cur < addr + length) {
		map = mtree_load(&va->maps, cur);
		/* a hole, not an erase: the tree keeps its node */
		cufab_mt_swap(&va->maps, cur, map->length, map, CUFAB_VA_HOLE);
		va->nr_maps--;
		trace_cufab_mem_unmap(map);
		cur += map->length;
		list_add(&map->free_node, freed);
	}
	return 0;
}

static int cufab_va_unmap(struct cufab_client *client, u64 addr, u64 length)
{
	struct cufab_va_map *map, *tmp;
	LIST_HEAD(freed);
	int ret;

	ret = cufab_va_locked_zap(client, addr, length, cufab_va_do_unmap,
				  &freed);
	/* drop the allocations outside the locks: the last put frees pages */
	list_for_each_entry_safe(map, tmp, &freed, free_node) {
		list_del(&map->free_node);
		cufab_va_map_free(map);
	}
	return ret;
}

struct cufab_access_set {
	u32 host;		/* CUFAB_ACCESS_* or U32_MAX: unchanged */
	u64 gpu_mask;		/* GPUs the descriptors name */
	u64 gpu_read;
	u64 gpu_write;
};

static int cufab_va_do_set_access(struct cufab_va *va,
				  struct vm_area_struct *vma, u64 addr,
				  u64 length, void *arg)
{
	struct cufab_access_set *set = arg;
	struct cufab_va_map *map;
	u64 cur = addr;
	int ret;

	/* revoked or downgraded PTEs must fault again */
	ret = cufab_va_zap_whole(va, vma, addr, length);
	if (ret)
		return ret;
	while (cur < addr + length) {
		map = mtree_load(&va->maps, cur);
		map->cpu_mapped = false;
		if (set->host != U32_MAX)
			map->host = set->host;
		map->gpu_read = (map->gpu_read & ~set->gpu_mask) |
				set->gpu_read;
		map->gpu_write = (map->gpu_write & ~set->gpu_mask) |
				 set->gpu_write;
		cur += map->length;
	}
	return 0;
}

/* cuMemSetAccess: pool memory takes its access from cuMemPoolSetAccess */
static int cufab_va_do_set_access_user(struct cufab_va *va,
				       struct vm_area_struct *vma, u64 addr,
				       u64 length, void *arg)
{
	if (va->pool)
		return -EINVAL;
	return cufab_va_do_set_access(va, vma, addr, length, arg);
}

int cufab_va_set_access_all(struct cufab_client *client, u64 addr,
			    u64 length, u32 host, u64 gpu_read, u64 gpu_write)
{
	struct cufab_access_set set = {
		.host = host,
		.gpu_mask = U64_MAX,
		.gpu_read = gpu_read,
		.gpu_write = gpu_write,
	};

	return cufab_va_locked_zap(client, addr, length, cufab_va_do_set_access,
			       &set);
}

/*
 * cufab_va_get_pages() inside @map, from the page at @cur on.
 * Context: va->lock held.
 */
static int cufab_va_map_pages(const struct cufab_va_map *map,
			      unsigned long cur, bool write,
			      struct page **pages, unsigned int max)
{
	u32 access = cufab_map_cpu_access(map);
	struct page *page;
	int nr = 0;

	if (access == CUFAB_ACCESS_NONE || (write && access != CUFAB_ACCESS_RW))
		return -EFAULT;
	for (; nr < max && cur < map->start + map->length; cur += PAGE_SIZE) {
		page = cufab_va_map_page(map, cur);
		if (IS_ERR(page)) {
			if (!nr)
				nr = PTR_ERR(page);
			break;
		}
		get_page(page);
		pages[nr++] = page;
	}
	return nr ?: -EFAULT;
}

/* cufab_va_map_pages() of the mapping at @cur. Context: va->lock held. */
static int cufab_va_take_pages(struct cufab_va *va, unsigned long cur,
			       bool write, struct page **pages,
			       unsigned int max)
{
	struct cufab_va_map *map = cufab_va_map_at(va, cur);

	return map ? cufab_va_map_pages(map, cur, write, pages, max) : -EFAULT;
}

/**
 * cufab_va_get_pages() - the pages a copy reaches at a user address
 * @client: whose reservations to look in
 * @addr: the address; pages are taken from its page on
 * @write: the copy writes them
 * @pages: set to up to @max pages, each with a reference
 * @max: at most this many, and never past the mapping at @addr
 *
 * What a CPU access through @client's mapping would reach, by the rules of
 * the fault handler, without faulting the pages into the page tables:
 * copies by the engine and by cuMemcpy move data page to page.
 *
 * Return: the number of pages (>= 1); -ENOENT when @addr is in no
 * reservation of @client (plain memory: get it from the mm); -EFAULT where
 * a CPU access would fault; -ENOMEM.
 */
int cufab_va_get_pages(struct cufab_client *client, u64 addr, bool write,
		       struct page **pages, unsigned int max)
{
	struct cufab_va *va = cufab_va_find(client, addr);
	int nr;

	if (!va)
		return -ENOENT;
	down_read(&va->lock);
	nr = cufab_va_take_pages(va, addr & PAGE_MASK, write, pages, max);
	up_read(&va->lock);
	cufab_va_put(va);
	return nr;
}

/**
 * cufab_va_check_access() - may a copy by @dev touch a user range?
 * @client: owner
 * @addr: start
 * @length: bytes, the range does not wrap
 * @dev: GPU index
 * @need: CUFAB_ACCESS_READ or CUFAB_ACCESS_RW
 *
 * cuMemAlloc memory of another GPU needs no access of @dev: NVIDIA's
 * driver copies between two GPUs' memory with or without peer access
 * (the owner's side of the copy is the owner's), so peer access gates
 * only device-side work. VMM mappings grant what cuMemSetAccess said.
 *
 * Return: 0, -EFAULT for an unmapped byte of a reservation or a range that
 * mixes plain host memory and reservations, -EACCES when a VMM mapping does
 * not grant @need to @dev; with a line naming @call (NULL: no line).
 */
int cufab_va_check_access(struct cufab_client *client, const char *call,
			  u64 addr, u64 length, s32 dev, u32 need)
{
	return cufab_va_check_take(client, call, addr, length, dev, need, NULL);
}

/*
 * The pages of @map at @addr for @first; none when the CPU view has none
 * there (the copy meets the error itself). Context: va->lock held.
 */
static void cufab_va_first_take(const struct cufab_va_map *map, u64 addr,
				struct cufab_va_first *first)
{
	int nr = cufab_va_map_pages(map, addr & PAGE_MASK, first->write,
				    first->pages, first->max);

	first->nr = max(nr, 0);
}

/* Give back the pages cufab_va_check_take() took. */
static void cufab_va_first_put(struct cufab_va_first *first)
{
	while (first->nr > 0)
		put_page(first->pages[--first->nr]);
}

/*
 * Remembered pages (struct cufab_va_hit): a copy of at most a page checks
 * its range and takes its page with no lock, no reservation or mapping
 * lookup and no page store lookup when a copy before it took the same
 * page for the same access, which a loop of small copies always does; a
 * copy inside a plain range found in no reservation before skips the
 * reservation tree.
 *
 * Why it is safe: an entry is the result of a full check made under
 * va->lock (read), tagged with the client's generation read before that
 * lookup. Every writer raises the generation under va->lock (write)
 * before it changes a mapping, its access or the reservation's life, and
 * pages leave an allocation's store only when the allocation goes, after
 * its last mapping did (cufab_va_hit_fill() remembers no other kind). So
 * an entry whose tag is the current generation describes what a full
 * check would find now. The reader takes its page reference with
 * get_page_unless_zero(), then reads the generation again: unchanged, no
 * writer had started, so the store still held the page when the reference
 * was taken (a fully ordered atomic on the page's count, which the final
 * put of the store's own reference comes after), and the copy holds it as
 * one from cufab_va_get_pages(). Changed, the reference is dropped and
 * the full check runs. A page freed meanwhile has a count of zero and is
 * not taken; one reused by someone else is taken for a moment and given
 * back, as the page cache's speculative lookups do.
 */

/*
 * Does @h grant @dev @need, as the full check would, and the CPU view
 * what cufab_va_map_pages() needs for the copy's side (@write)?
 */
static bool cufab_va_hit_allows(const struct cufab_va_hit *h, s32 dev,
				u32 need, bool write)
{
	u64 mask;

	if (write && h->cpu != CUFAB_ACCESS_RW)
		return false;
	if (h->linear)
		return true;
	if (dev < 0 || dev >= 64)
		return false;
	mask = need == CUFAB_ACCESS_RW ? h->gpu_write : h->gpu_read;
	return mask & BIT_ULL(dev);
}

/*
 * The remembered page of @addr for a copy of @length bytes by @dev, into
 * @first with a reference, or false: the full check decides.
 */
static bool cufab_va_hit_take(struct cufab_va_space *space, u64 addr,
			      u64 length, s32 dev, u32 need,
			      struct cufab_va_first *first)
{
	unsigned long gen = atomic_long_read(&space->gen);
	bool one = offset_in_page(addr) + length <= PAGE_SIZE;
	u64 base = addr & PAGE_MASK;
	struct page *page = NULL;
	struct cufab_va_hit *h;
	unsigned int i, seq;
	bool ok;

	for (i = 0, ok = false; i < CUFAB_VA_HITS && !ok; i++) {
		h = &space->hits[i];
		do {
			seq = read_seqbegin(&h->lock);
			page = h->page;
			if (page)
				ok = h->addr == base && one && h->gen == gen &&
				     cufab_va_hit_allows(h, dev, need,
							 first->write);
			else
				ok = h->addr && addr >= h->addr &&
				     addr + length <= h->end && h->gen == gen;
		} while (read_seqretry(&h->lock, seq));
	}
	if (!ok)
		return false;
	if (!page) {
		/*
		 * plain memory: the copy pins it from the mm, where a
		 * reservation's VMA (VM_PFNMAP) never yields a page
		 */
		first->nr = -ENOENT;
		return true;
	}
	rcu_read_lock();
	ok = get_page_unless_zero(page);
	rcu_read_unlock();
	if (!ok)
		return false;
	/* the reference's atomic is fully ordered before this read */
	if (atomic_long_read(&space->gen) != gen) {
		put_page(page);
		return false;
	}
	first->pages[0] = page;
	first->nr = 1;
	return true;
}

/*
 * The entry of @space for the page at @base, a new one taking the place
 * of the oldest.
 */
static struct cufab_va_hit *cufab_va_hit_slot(struct cufab_va_space *space,
					      u64 base)
{
	unsigned int i;

	for (i = 0; i < CUFAB_VA_HITS; i++)
		if (READ_ONCE(space->hits[i].addr) == base)
			return &space->hits[i];
	i = READ_ONCE(space->hit_next) % CUFAB_VA_HITS;
	WRITE_ONCE(space->hit_next, i + 1);
	return &space->hits[i];
}

/*
 * Remember that [addr, end) lies in no reservation, as a lookup that
 * began at generation @gen found: copies from or to plain memory inside
 * it skip the reservation tree next time. Reservations are whole pages,
 * so neither do the pages the range touches.
 */
static void cufab_va_hit_plain(struct cufab_va_space *space,
			       unsigned long gen, u64 addr, u64 end)
{
	u64 base = addr & PAGE_MASK;
	struct cufab_va_hit *h;

	if (!base || end > PAGE_MASK)
		return;
	h = cufab_va_hit_slot(space, base);
	write_seqlock(&h->lock);
	h->gen = gen;
	h->addr = base;
	h->end = PAGE_ALIGN(end);
	h->page = NULL;
	write_sequnlock(&h->lock);
}

/*
 * Remember the page a one-page copy took at @addr from @map of @va, found
 * by a lookup that began at generation @gen. Only pages of the local page
 * allocator held by a page store: they stay the allocation's until it is
 * freed (imports, windows and managed memory have their own rules).
 * Context: va->lock held (read).
 */
static void cufab_va_hit_fill(struct cufab_va_space *space,
			      unsigned long gen, const struct cufab_va *va,
			      const struct cufab_va_map *map, u64 addr,
			      struct page *page)
{
	const struct cufab_alloc *alloc = map->alloc;
	u64 base = addr & PAGE_MASK;
	struct cufab_va_hit *h;

	if (alloc->ops->page != cufab_alloc_store_page ||
	    alloc->provider != &cufab_local_pages ||
	    cufab_alloc_has(alloc, CUFAB_ALLOC_MANAGED) || !base)
		return;
	h = cufab_va_hit_slot(space, base);
	write_seqlock(&h->lock);
	h->gen = gen;
	h->addr = base;
	h->end = base + PAGE_SIZE;
	h->page = page;
	h->gpu_read = map->gpu_read;
	h->gpu_write = map->gpu_write;
	h->linear = va->linear;
	h->cpu = cufab_map_cpu_access(map);
	write_sequnlock(&h->lock);
}

/* Why cufab_va_check_take() refused a range. */
enum cufab_va_refusal {
	CUFAB_VA_MIXED,		/* plain host memory and cufab mappings */
	CUFAB_VA_UNMAPPED,	/* a reserved byte with no mapping */
	CUFAB_VA_NO_READ,	/* cuMemSetAccess granted the device less */
	CUFAB_VA_NO_WRITE,
};

static const char *const cufab_va_refusal_rule[] = {
	[CUFAB_VA_MIXED] =
		"plain host memory and a cufab mapping meet there: a range is all one or all the other",
	[CUFAB_VA_UNMAPPED] =
		"reserved (cuMemAddressReserve) but not mapped (cuMemMap)",
	[CUFAB_VA_NO_READ] =
		"the device has no read access there (cuMemSetAccess)",
	[CUFAB_VA_NO_WRITE] =
		"the device has no write access there (cuMemSetAccess)",
};

/*
 * The line of a refused range, naming @call; none for a probe (@call
 * NULL). @client's process, not current: the engine checks stream work.
 */
static void cufab_va_check_refused(const struct cufab_client *client,
				   const char *call, u64 addr, u64 length,
				   s32 dev, u64 at, enum cufab_va_refusal why)
{
	if (call)
		cufab_pr_info(client, "%s: range 0x%llx size 0x%llx by gpu %d: at 0x%llx: %s\n",
			      call, addr, length, dev, at,
			      cufab_va_refusal_rule[why]);
}

/**
 * cufab_va_check_take() - cufab_va_check_access(), and the first pages
 * @client: owner
 * @call: the cu* call a refusal's line names; NULL for a probe, no line
 * @addr: start
 * @length: bytes, the range does not wrap
 * @dev: GPU index
 * @need: CUFAB_ACCESS_READ or CUFAB_ACCESS_RW
 * @first: NULL, or where to put the pages cufab_va_get_pages() would
 *	give for @addr, taken under the lookup the check makes anyway
 *
 * A copy checks its whole range before it writes a byte, then takes the
 * pages; a short copy's pages come from this one pass over the range.
 * On success first->nr is the number of pages taken (0: none, the copy
 * takes them itself and meets whatever error there is then), or -ENOENT
 * for plain host memory.
 *
 * Return: as cufab_va_check_access(); on error no page is held.
 */
int cufab_va_check_take(struct cufab_client *client, const char *call,
			u64 addr, u64 length, s32 dev, u32 need,
			struct cufab_va_first *first)
{
	/* before any lookup: see cufab_va_hit_take() */
	unsigned long gen = atomic_long_read(&client->va.gen);
	u64 cur = addr, end = addr + length;
	struct cufab_va_map *map;
	struct cufab_va *va;
	int ret = 0;

	if (first)
		first->nr = 0;
	if (first && cufab_va_hit_take(&client->va, addr, length, dev, need,
				       first))
		return 0;

	while (cur < end && !ret) {
		unsigned long index = cur;

		/* one lookup: the reservation at @cur, or the next one */
		va = cufab_va_next(client, &index,
				   min_t(u64, end - 1, ULONG_MAX));
		if (!va || va->start > cur) {
			/*
			 * A range is either all plain host memory or all
			 * cufab mappings: running off the end of a mapping
			 * into plain memory, or from plain memory into a
			 * reservation, would let a copy sized for device
			 * memory smash whatever lies next to it.
			 */
			if (va || cur != addr) {
				cufab_va_check_refused(client, call, addr, length,
						       dev, va ? va->start : cur,
						       CUFAB_VA_MIXED);
				if (va)
					cufab_va_put(va);
				goto fault;
			}
			if (first) {
				first->nr = -ENOENT;
				cufab_va_hit_plain(&client->va, gen, addr, end);
			}
			return 0;
		}
		down_read(&va->lock);
		map = cufab_va_map_at(va, cur);
		if (!map) {
			cufab_va_check_refused(client, call, addr, length, dev, cur,
					       CUFAB_VA_UNMAPPED);
			ret = -EFAULT;
		} else if (!va->linear &&
			   (cufab_map_dev_access(map, dev) & need) != need) {
			cufab_va_check_refused(client, call, addr, length, dev, cur,
					       need == CUFAB_ACCESS_RW ?
					       CUFAB_VA_NO_WRITE :
					       CUFAB_VA_NO_READ);
			ret = -EACCES;
		} else {
			if (first && cur == addr) {
				cufab_va_first_take(map, addr, first);
				if (first->nr == 1 &&
				    offset_in_page(addr) + length <= PAGE_SIZE)
					cufab_va_hit_fill(&client->va, gen, va,
							  map, addr,
							  first->pages[0]);
			}
			cur = map->start + map->length;
		}
		up_read(&va->lock);
		cufab_va_put(va);
	}
	if (ret && first)
		cufab_va_first_put(first);
	return ret;
fault:
	if (first)
		cufab_va_first_put(first);
	return -EFAULT;
}

/**
 * cufab_va_resolve() - the allocation behind a mapped user range
 * @client: whose reservations hold the range
 * @addr: first address
 * @length: bytes
 * @alloc: set to the mapping's allocation, with a new reference
 * @mem_offset: set to the offset of @addr inside *@alloc
 *
 * For binds by address (cuLogicalEndpointBindAddr, cuMulticastBindAddr):
 * [addr, addr + length) must lie inside one cuMemMap'ed mapping.
 *
 * Return: 0, or -EINVAL with a log line when the range is not inside one
 * mapping of a cuMemAddressReserve range (cuMemAlloc memory included).
 */
int cufab_va_resolve(struct cufab_client *client, u64 addr, u64 length,
		     struct cufab_alloc **alloc, u64 *mem_offset)
{
	struct cufab_va_map *map;
	struct cufab_va *va;
	int ret = -EINVAL;

	if (!cufab_range_ok(addr, length)) {
		cufab_pr_info(client, "bind range 0x%llx + 0x%llx is empty or wraps\n",
			      addr, length);
		return -EINVAL;
	}
	va = cufab_va_find(client, addr);
	if (!va) {
		cufab_pr_info(client, "bind address 0x%llx is not in a cuMemAddressReserve range\n",
			      addr);
		return -EINVAL;
	}
	if (va->linear) {
		cufab_pr_info(client, "bind address 0x%llx: memory from cuMemAlloc cannot be bound; use cuMemCreate\n",
			      addr);
		goto out;
	}
	down_read(&va->lock);
	map = cufab_va_map_at(va, addr);
	if (!map) {
		cufab_pr_info(client, "bind address 0x%llx is not mapped (cuMemMap)\n",
			      addr);
	} else if (!cufab_range_inside(addr, length, map->start,
				     map->length)) {
		cufab_pr_info(client, "bind range 0x%llx + 0x%llx leaves the mapping 0x%llx + 0x%llx\n",
			      addr, length, map->start, map->length);
	} else if (!cufab_alloc_has(map->alloc, CUFAB_ALLOC_BINDABLE)) {
		cufab_pr_info(client, "bind address 0x%llx: %s memory cannot be bound; use cuMemCreate\n",
			      addr, map->alloc->ops->name);
	} else {
		*alloc = map->alloc;
		*mem_offset = map->offset + (addr - map->start);
		cufab_alloc_get(*alloc);
		ret = 0;
	}
	up_read(&va->lock);
out:
	cufab_va_put(va);
	return ret;
}

/* ---- ioctls ---- */

int cufab_ioctl_va_reserve(struct cufab_ucmd *ucmd)
{
	struct cufab_va_reserve *cmd = ucmd->cmd;
	u64 align = cmd->alignment;
	u64 addr;
	int ret;

	if (cmd->flags) {
		cufab_pr_info(ucmd->client, "cuMemAddressReserve: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	if (!cmd->length || !PAGE_ALIGNED(cmd->length)) {
		cufab_pr_info(ucmd->client, "cuMemAddressReserve: size 0x%llx: must be a non-zero multiple of the page size 0x%lx\n",
			      cmd->length, PAGE_SIZE);
		return -EINVAL;
	}
	if (align && !is_power_of_2(align)) {
		cufab_pr_info(ucmd->client, "cuMemAddressReserve: alignment 0x%llx: must be 0 or a power of two\n",
			      align);
		return -EINVAL;
	}
	if (!align)
		align = cufab_mem_granularity();
	align = max_t(u64, align, PAGE_SIZE);
	if (align > TASK_SIZE || cmd->length > TASK_SIZE) {
		cufab_pr_info(ucmd->client, "cuMemAddressReserve: size 0x%llx alignment 0x%llx: larger than the process's address space\n",
			      cmd->length, align);
		return -ENOMEM;
	}

	ret = cufab_va_reserve(ucmd->client, cmd->addr, cmd->length, align,
			       false, -1, &addr);
	if (ret)
		return ret;
	cmd->addr = addr;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		cufab_va_unmap_munmap(ucmd->client, addr, cmd->length, false);
	return ret;
}

int cufab_ioctl_va_free(struct cufab_ucmd *ucmd)
{
	struct cufab_va_free *cmd = ucmd->cmd;

	if (cmd->flags || !cmd->length) {
		cufab_pr_info(ucmd->client, "cuMemAddressFree: address 0x%llx size 0x%llx: the size must be the reservation's, not 0\n",
			      cmd->addr, cmd->length);
		return -EINVAL;
	}
	return cufab_va_unmap_munmap(ucmd->client, cmd->addr, cmd->length,
				     false);
}

int cufab_ioctl_mem_map(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_map *cmd = ucmd->cmd;
	struct cufab_alloc *alloc;
	int ret;

	if (cmd->flags || cmd->__reserved) {
		cufab_pr_info(ucmd->client, "cuMemMap: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	alloc = cufab_mem_handle_lookup(ucmd->client, cmd->handle);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	/* the kind's rules, each saying why; it may wait, no lock held */
	ret = alloc->ops->map_prepare(alloc, cmd->addr, cmd->length,
				      cmd->offset);
	if (!ret) {
		ret = cufab_va_map_alloc(ucmd->client, cmd->addr, cmd->length,
					 cmd->offset, alloc, cmd->handle);
		if (ret == -EINVAL)
			cufab_pr_info(ucmd->client, "cuMemMap: range 0x%llx size 0x%llx: must lie inside one cuMemAddressReserve range (not cuMemAlloc's or a pool's) and overlap no mapping\n",
				      cmd->addr, cmd->length);
	}
	cufab_alloc_put(alloc);
	return ret;
}

int cufab_ioctl_mem_unmap(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_unmap *cmd = ucmd->cmd;

	int ret;

	if (cmd->flags) {
		cufab_pr_info(ucmd->client, "cuMemUnmap: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	ret = cufab_va_unmap(ucmd->client, cmd->addr, cmd->length);
	if (ret == -EINVAL)
		cufab_pr_info(ucmd->client, "cuMemUnmap: range 0x%llx size 0x%llx: must be whole cuMemMap mappings inside one cuMemAddressReserve range\n",
			      cmd->addr, cmd->length);
	return ret;
}

/* One CUmemAccessDesc into @set; -EINVAL / -ENODEV. */
static int cufab_access_desc_add(struct cufab_client *client,
				 struct cufab_access_set *set,
				 const struct cufab_mem_access *d, u32 num_gpus)
{
	if (d->__reserved)
		return -EINVAL;
	if (d->flags != CUFAB_ACCESS_NONE && d->flags != CUFAB_ACCESS_READ &&
	    d->flags != CUFAB_ACCESS_RW) {
		cufab_pr_info(client, "cuMemSetAccess: flags 0x%x: must be CU_MEM_ACCESS_FLAGS_PROT_NONE, READ or READWRITE\n",
			      d->flags);
		return -EINVAL;
	}
	switch (d->location_type) {
	case CUFAB_LOC_DEVICE:
		if (d->location_id < 0 || d->location_id >= num_gpus) {
			cufab_pr_info(client, "cuMemSetAccess: device %d: no such GPU (%u GPUs)\n",
				      d->location_id, num_gpus);
			return -ENODEV;
		}
		set->gpu_mask |= BIT_ULL(d->location_id);
		set->gpu_read &= ~BIT_ULL(d->location_id);
		set->gpu_write &= ~BIT_ULL(d->location_id);
		if (d->flags & CUFAB_ACCESS_READ)
			set->gpu_read |= BIT_ULL(d->location_id);
		if (d->flags == CUFAB_ACCESS_RW)
			set->gpu_write |= BIT_ULL(d->location_id);
		return 0;
	case CUFAB_LOC_HOST:
	case CUFAB_LOC_HOST_NUMA:
		set->host = d->flags;
		return 0;
	default:
		cufab_pr_info(client, "cuMemSetAccess: location type %u: must be a device or the host\n",
			      d->location_type);
		return -EINVAL;
	}
}

int cufab_ioctl_mem_set_access(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_set_access *cmd = ucmd->cmd;
	struct cufab_mem_access __user *udescs =
		u64_to_user_ptr(cmd->descs_ptr);
	struct cufab_access_set set = { .host = U32_MAX };
	u32 i, num_gpus = cufab_node_num_gpus();
	struct cufab_mem_access desc;
	int ret = 0;

	if (!cmd->num_descs || cmd->num_descs > CUFAB_MAX_ACCESS_DESCS) {
		cufab_pr_info(ucmd->client, "cuMemSetAccess: count %u: must be 1 ..%u\n",
			      cmd->num_descs, CUFAB_MAX_ACCESS_DESCS);
		return -EINVAL;
	}
	/* one at a time, on the stack: no allocation on this hot path */
	for (i = 0; i < cmd->num_descs && !ret; i++) {
		if (copy_from_user(&desc, &udescs[i], sizeof(desc)))
			return -EFAULT;
		ret = cufab_access_desc_add(ucmd->client, &set, &desc,
					    num_gpus);
	}
	if (ret)
		return ret;
	ret = cufab_va_locked_zap(ucmd->client, cmd->addr, cmd->length,
				  cufab_va_do_set_access_user, &set);
	/* the descriptors were fine: it is the range */
	if (ret == -EINVAL)
		cufab_pr_info(ucmd->client, "cuMemSetAccess: range 0x%llx size 0x%llx: must be whole cuMemMap mappings inside one cuMemAddressReserve range\n",
			      cmd->addr, cmd->length);
	return ret;
}

int cufab_ioctl_mem_get_access(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_get_access *cmd = ucmd->cmd;
	struct cufab_va_map *map;
	struct cufab_va *va;
	int ret = 0;

	if (cmd->location_type == CUFAB_LOC_DEVICE &&
	    (cmd->location_id < 0 ||
	     !cufab_node_gpu_exists(cmd->location_id))) {
		cufab_pr_info(ucmd->client, "cuMemGetAccess: device %d: no such GPU\n",
			      cmd->location_id);
		return -ENODEV;
	}
	if (cmd->location_type != CUFAB_LOC_DEVICE &&
	    cmd->location_type != CUFAB_LOC_HOST &&
	    cmd->location_type != CUFAB_LOC_HOST_NUMA) {
		cufab_pr_info(ucmd->client, "cuMemGetAccess: location type %u: must be a device or the host\n",
			      cmd->location_type);
		return -EINVAL;
	}
	va = cufab_va_find(ucmd->client, cmd->addr);
	if (!va)
		goto unmapped;
	down_read(&va->lock);
	map = cufab_va_map_at(va, cmd->addr);
	if (!map)
		ret = -EINVAL;
	else if (cmd->location_type == CUFAB_LOC_DEVICE)
		cmd->out_flags = cufab_map_dev_access(map, cmd->location_id);
	else
		cmd->out_flags = map->host;
	up_read(&va->lock);
	cufab_va_put(va);
	if (!ret)
		return cufab_ucmd_respond(ucmd, sizeof(*cmd));
unmapped:
	cufab_pr_info(ucmd->client, "cuMemGetAccess: address 0x%llx: not in a cuMemMap mapping\n",
		      cmd->addr);
	return -EINVAL;
}

/*
 * cuMemRetainAllocationHandle: the handle the range was mapped with, one
 * more retain of it (CUDA returns the same handle value); a new handle on
 * the mapped allocation once that one has been released.
 */
/* The allocation mapped at @addr with one more reference, and its handle. */
static struct cufab_alloc *cufab_va_mapped_alloc(struct cufab_client *client,
						 u64 addr, u32 *mapped_with)
{
	struct cufab_alloc *alloc = NULL;
	struct cufab_va_map *map;
	struct cufab_va *va;

	va = cufab_va_find(client, addr);
	if (!va)
		return NULL;
	down_read(&va->lock);
	map = cufab_va_map_at(va, addr);
	if (map && !va->linear && !va->pool) {
		alloc = map->alloc;
		*mapped_with = map->handle;
		cufab_alloc_get(alloc);
	}
	up_read(&va->lock);
	cufab_va_put(va);
	return alloc;
}

int cufab_ioctl_mem_retain(struct cufab_ucmd *ucmd)
{
	struct cufab_mem_retain *cmd = ucmd->cmd;
	struct cufab_alloc *alloc;
	u32 mapped_with = 0;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	alloc = cufab_va_mapped_alloc(ucmd->client, cmd->addr, &mapped_with);
	if (!alloc) {
		cufab_pr_info(ucmd->client, "cuMemRetainAllocationHandle: address 0x%llx: not in a cuMemMap mapping of cuMemCreate memory\n",
			      cmd->addr);
		return -EINVAL;
	}

	if (cufab_mem_handle_retain(ucmd->client, mapped_with, alloc)) {
		cufab_alloc_put(alloc);
		cmd->out_handle = mapped_with;
		ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
		if (ret)	/* the caller never saw the id: undo */
			cufab_mem_handle_release(ucmd->client, mapped_with);
		return ret;
	}

	return cufab_mem_handle_respond_put(ucmd, alloc, &cmd->out_handle,
					    sizeof(*cmd));
}
