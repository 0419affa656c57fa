// SPDX-License-Identifier: GPL-2.0
/*
 * The VA arena: one large VMA per process, mapped once, from which
 * VA_RESERVE carves reservations without touching the mm (the real
 * driver's unified address range). A reservation is then an entry in two
 * maple trees, and cuMemAddressReserve + cuMemAddressFree cost no
 * vm_mmap()/vm_munmap().
 *
 * The arena's VMA maps an anonymous file of its own, not the client's
 * /dev/cufab file: an empty arena must not keep a closed client alive.
 * Instead each reservation in it holds the client's file, as a
 * reservation with a VMA of its own does. The arena is shared by every
 * client of the process and outlives them (the next client of the same mm
 * finds it on cufab_arenas), so opening and closing /dev/cufab in a loop
 * does not eat the address space.
 *
 * The CPU view is that of a reservation with its own VMA: the VMA is
 * VM_PFNMAP | VM_IO | VM_DONTCOPY (a child has no arena, and a child's
 * client makes its own) and never executable; a fault looks the
 * reservation up by address and then follows the rules of va.c. munmap()
 * and mprotect() of whole reservations work as before: the arena VMA may
 * be split at a reservation's edge (never inside one), and the close of a
 * piece drops the reservations in it and marks its range gone, so it is
 * never carved again (the user may map something else there). A fork
 * copies nothing, exit closes every piece.
 *
 * Lock order:
 *   mmap_lock -> cufab_arenas_lock -> arena->lock
 *   mmap_lock -> arena->lock
 * arena->lock is never held with space->lock or va->lock: the teardown of
 * a reservation runs after it is dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "cufab.h"

/*
 * Address space of one arena. A PFN mapping with nothing inserted costs
 * no memory; a reservation that does not fit gets a VMA of its own.
 */
#define CUFAB_ARENA_SIZE	BIT_ULL(40)
/* Carving attempts before a reservation falls back to a VMA of its own. */
#define CUFAB_ARENA_TRIES	4
/* Stored over the range of a closed piece of the arena. */
#define CUFAB_ARENA_GONE	xa_mk_value(0)

/**
 * struct cufab_va_arena - one process's arena
 * @ref: the file, cufab_arenas, each client caching it in its space
 * @mm: the process; compared, never dereferenced once @dead
 * @start: first address of the arena as first mapped
 * @end: one past its last
 * @lock: protects @ranges, @vmas, @attached and @dead
 * @ranges: struct cufab_va by address (kept ones @parked), CUFAB_ARENA_GONE
 *	over closed parts
 * @vmas: pieces of the VMA still mapped
 * @attached: the one mmap of the file happened
 * @whole: the arena is still the one VMA it was mapped as, with its first
 *	protection: carving needs no look at the mm
 * @dead: every piece is closed (set under cufab_arenas_lock too)
 * @node: on cufab_arenas while not @dead
 */
struct cufab_va_arena {
	struct kref ref;
	struct mm_struct *mm;
	unsigned long start;
	unsigned long end;
	struct mutex lock;	/* see above */
	struct maple_tree ranges;
	unsigned int vmas;
	bool attached;
	bool whole;
	bool dead;
	struct list_head node;
};

static DEFINE_MUTEX(cufab_arenas_lock);
static LIST_HEAD(cufab_arenas);

static const struct vm_operations_struct cufab_arena_vm_ops;

static void cufab_arena_release(struct kref *ref)
{
	struct cufab_va_arena *arena = container_of(ref, struct cufab_va_arena,
						    ref);

	mtree_destroy(&arena->ranges);
	mutex_destroy(&arena->lock);
	kfree(arena);
}

static void cufab_arena_put(struct cufab_va_arena *arena)
{
	kref_put(&arena->ref, cufab_arena_release);
}

/* The reservation at @addr (a reference), or NULL. */
static struct cufab_va *cufab_arena_va_at(struct cufab_va_arena *arena,
					  unsigned long addr)
{
	struct cufab_va *va;

	mutex_lock(&arena->lock);
	va = mtree_load(&arena->ranges, addr);
	if (xa_is_value(va) || (va && va->parked))
		va = NULL;
	if (va)
		kref_get(&va->ref);
	mutex_unlock(&arena->lock);
	return va;
}

/*
 * Is @va carved from the arena of @mm? Context: va->lock held and @va not
 * dead: its piece is mapped, so the arena's mm is alive.
 */
bool cufab_va_arena_in_mm(const struct cufab_va *va,
			  const struct mm_struct *mm)
{
	return va->arena && va->arena->mm == mm;
}

bool cufab_va_arena_vma(const struct vm_area_struct *vma,
			const struct cufab_va *va)
{
	return va->arena && vma->vm_ops == &cufab_arena_vm_ops &&
	       vma->vm_private_data == va->arena &&
	       va->start >= vma->vm_start &&
	       va->start + va->length <= vma->vm_end;
}

/*
 * The reservation is out of the arena's tree (its reference is ours):
 * drop its mappings and the client's file it held.
 */
static void cufab_arena_va_gone(struct cufab_va *va)
{
	struct file *file = va->client->file;

	cufab_va_teardown(va);
	cufab_va_put(va);
	fput(file);
}

static void cufab_arena_vm_open(struct vm_area_struct *vma)
{
	struct cufab_va_arena *arena = vma->vm_private_data;

	mutex_lock(&arena->lock);
	arena->vmas++;
	arena->whole = false;
	mutex_unlock(&arena->lock);
}

/* The last piece is gone: no client may carve from the arena any more. */
static void cufab_arena_kill(struct cufab_va_arena *arena)
{
	bool listed;

	mutex_lock(&cufab_arenas_lock);
	mutex_lock(&arena->lock);
	arena->dead = true;
	listed = !list_empty(&arena->node);
	list_del_init(&arena->node);
	mutex_unlock(&arena->lock);
	mutex_unlock(&cufab_arenas_lock);
	if (listed)
		cufab_arena_put(arena);
}

/*
 * A piece of the arena is unmapped (munmap, exit, or a failed split with
 * an empty range): its reservations go, and its range is never carved
 * again. A reservation being freed right now is left to its VA_FREE; one
 * a client keeps only leaves the tree (its client frees it).
 * Context: mmap_lock held for write.
 */
static void cufab_arena_vm_close(struct vm_area_struct *vma)
{
	struct cufab_va_arena *arena = vma->vm_private_data;
	unsigned long index = vma->vm_start;
	struct cufab_va *va, *tmp;
	LIST_HEAD(gone);
	bool last;

	mutex_lock(&arena->lock);
	if (vma->vm_end > vma->vm_start) {
		mt_for_each(&arena->ranges, va, index, vma->vm_end - 1) {
			if (xa_is_value(va) || va->freeing)
				continue;
			mtree_erase(&arena->ranges, va->start);
			va->freeing = true;
			/* never the last reference: its client's tree has one */
			if (va->parked)
				cufab_va_put(va);
			else
				list_add(&va->arena_node, &gone);
		}
		/* best effort: carving checks the VMA anyway */
		mtree_store_range(&arena->ranges, vma->vm_start,
				  vma->vm_end - 1, CUFAB_ARENA_GONE,
				  GFP_KERNEL_ACCOUNT);
	}
	last = !--arena->vmas;
	arena->whole = false;
	mutex_unlock(&arena->lock);

	list_for_each_entry_safe(va, tmp, &gone, arena_node)
		cufab_arena_va_gone(va);
	if (last)
		cufab_arena_kill(arena);
}

/* Never split inside a reservation: it is one range, as its own VMA was. */
static int cufab_arena_vm_may_split(struct vm_area_struct *vma,
				    unsigned long addr)
{
	struct cufab_va *va = cufab_arena_va_at(vma->vm_private_data, addr);
	int ret = 0;

	if (va) {
		if (va->start != addr)
			ret = -EINVAL;
		cufab_va_put(va);
	}
	return ret;
}

/*
 * mprotect() of a whole piece splits nothing, so no open() says the arena
 * is no longer as first mapped: carving must look at the protection now.
 */
static int cufab_arena_vm_mprotect(struct vm_area_struct *vma,
				   unsigned long start, unsigned long end,
				   unsigned long newflags)
{
	struct cufab_va_arena *arena = vma->vm_private_data;

	mutex_lock(&arena->lock);
	arena->whole = false;
	mutex_unlock(&arena->lock);
	return 0;
}

/* Addresses are CUdeviceptrs: nothing moves. */
static int cufab_arena_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static vm_fault_t cufab_arena_vm_fault(struct vm_fault *vmf)
{
	struct cufab_va *va = cufab_arena_va_at(vmf->vma->vm_private_data,
						vmf->address);
	vm_fault_t ret;

	if (!va)
		return VM_FAULT_SIGSEGV;
	ret = cufab_va_fault(va, vmf);
	cufab_va_put(va);
	return ret;
}

static vm_fault_t cufab_arena_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	struct cufab_va *va = cufab_arena_va_at(vmf->vma->vm_private_data,
						vmf->address);
	vm_fault_t ret;

	if (!va)
		return VM_FAULT_SIGSEGV;
	ret = cufab_va_pfn_mkwrite(va, vmf);
	cufab_va_put(va);
	return ret;
}

static const struct vm_operations_struct cufab_arena_vm_ops = {
	.open = cufab_arena_vm_open,
	.close = cufab_arena_vm_close,
	.may_split = cufab_arena_vm_may_split,
	.mprotect = cufab_arena_vm_mprotect,
	.mremap = cufab_arena_vm_mremap,
	.fault = cufab_arena_vm_fault,
	.pfn_mkwrite = cufab_arena_vm_pfn_mkwrite,
};

/* Only the vm_mmap() of cufab_arena_new() attaches: the file is ours. */
static int cufab_arena_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct cufab_va_arena *arena = filp->private_data;
	int ret = -EINVAL;

	mutex_lock(&arena->lock);
	if (!arena->attached && !vma->vm_pgoff &&
	    (vma->vm_flags & VM_SHARED)) {
		arena->attached = true;
		arena->whole = true;
		arena->vmas = 1;
		arena->mm = vma->vm_mm;
		arena->start = vma->vm_start;
		arena->end = vma->vm_end;
		ret = 0;
	}
	mutex_unlock(&arena->lock);
	if (ret)
		return ret;
	/* the flags of a reservation's own VMA (va.c) */
	vma->vm_flags |= VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP |
			 VM_DONTCOPY;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_private_data = arena;
	vma->vm_ops = &cufab_arena_vm_ops;
	return 0;
}

static int cufab_arena_file_release(struct inode *inode, struct file *filp)
{
	cufab_arena_put(filp->private_data);
	return 0;
}

static const struct file_operations cufab_arena_fops = {
	.owner = THIS_MODULE,
	.mmap = cufab_arena_mmap,
	.release = cufab_arena_file_release,
};

/* Map a new arena into current->mm and list it; NULL when that fails. */
static struct cufab_va_arena *cufab_arena_new(void)
{
	struct cufab_va_arena *arena;
	struct file *file;
	unsigned long addr;
	bool ok;

	arena = kzalloc(sizeof(*arena), GFP_KERNEL_ACCOUNT);
	if (!arena)
		return NULL;
	kref_init(&arena->ref);		/* the caller's */
	mutex_init(&arena->lock);
	mt_init_flags(&arena->ranges, MT_FLAGS_ALLOC_RANGE);
	INIT_LIST_HEAD(&arena->node);
	kref_get(&arena->ref);		/* the file's */
	file = anon_inode_getfile("[cufab-arena]", &cufab_arena_fops, arena,
				  O_RDWR);
	if (IS_ERR(file)) {
		kref_put(&arena->ref, cufab_arena_release);
		goto fail;
	}
	addr = vm_mmap(file, 0, CUFAB_ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, 0);
	fput(file);	/* the VMA holds it */

	mutex_lock(&cufab_arenas_lock);
	mutex_lock(&arena->lock);
	/*
	 * mmap_region() may fail after the handler attached without a
	 * close: then no VMA refers to the arena.
	 */
	ok = !IS_ERR_VALUE(addr) && arena->attached && !arena->dead;
	if (!ok)
		arena->dead = true;
	else
		list_add(&arena->node, &cufab_arenas);
	mutex_unlock(&arena->lock);
	mutex_unlock(&cufab_arenas_lock);
	if (ok) {
		kref_get(&arena->ref);	/* the list's */
		return arena;
	}
fail:
	cufab_arena_put(arena);
	return NULL;
}

/* A live arena of current->mm, with a reference, or NULL. */
static struct cufab_va_arena *cufab_arena_lookup(void)
{
	struct cufab_va_arena *arena, *found = NULL;

	mutex_lock(&cufab_arenas_lock);
	list_for_each_entry(arena, &cufab_arenas, node) {
		if (arena->mm == current->mm) {
			kref_get(&arena->ref);
			found = arena;
			break;
		}
	}
	mutex_unlock(&cufab_arenas_lock);
	return found;
}

/*
 * Kept reservations. VA_FREE of an arena reservation with nothing mapped
 * leaves it where it is, in the arena's tree and in the client's, marked
 * kept (the client's view, under space->lock) and parked (the arena's,
 * under arena->lock): no lookup finds it, it is dead and holds no file.
 * The client's next VA_RESERVE of the same length and a compatible
 * alignment revives it: no allocation, no tree write on either side. A
 * client keeps CUFAB_VA_KEPT of them, the oldest goes first; a hint over
 * a kept range, a full arena, an arena no longer whole (a piece may have
 * another protection by now), a change of arena and the client's close
 * free them. The close of a piece takes those in it out of the arena's
 * tree (CUFAB_ARENA_GONE: never carved again); their client frees them.
 *
 * A kept reservation is revived only when the two trees' references are
 * all there are: a lookup that found it before its free (and sees it
 * dead) never finds a new reservation in its place.
 */

/* Free the kept reservation @i of @client. Context: as cufab_arena_get(). */
static void cufab_arena_unkeep_one(struct cufab_client *client,
				   unsigned int i)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va = space->kept[i];
	struct cufab_va_arena *arena = va->arena;
	bool in_arena;

	space->nr_kept--;
	memmove(&space->kept[i], &space->kept[i + 1],
		(space->nr_kept - i) * sizeof(va));
	/* its release counts it out again */
	cufab_live_objects_inc();
	mutex_lock(&arena->lock);
	in_arena = !va->freeing;
	if (in_arena)
		mtree_erase(&arena->ranges, va->start);
	va->freeing = true;
	va->parked = false;
	mutex_unlock(&arena->lock);
	if (in_arena)
		cufab_va_put(va);
	mutex_lock(&space->lock);
	if (cufab_mt_swap(&space->ranges, va->start, va->length, va, NULL))
		cufab_va_put(va);
	mutex_unlock(&space->lock);
}

/* Free the kept reservations overlapping [addr, addr + length). */
static void cufab_arena_unkeep(struct cufab_client *client, u64 addr,
			       u64 length)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va;
	unsigned int i = 0;

	while (i < space->nr_kept) {
		va = space->kept[i];
		if (va->start - addr < length || addr - va->start < va->length)
			cufab_arena_unkeep_one(client, i);
		else
			i++;
	}
}

/*
 * Keep @va, dead and mapping nothing, for the client's next reservation of
 * its size. Context: space->reserve_lock held.
 * Return: true when kept: the file it held is dropped.
 */
static bool cufab_arena_keep(struct cufab_va *va)
{
	struct cufab_client *client = va->client;
	struct cufab_va_space *space = &client->va;
	struct cufab_va_arena *arena = va->arena;
	bool kept;

	if (arena != space->arena)
		return false;
	if (space->nr_kept == CUFAB_VA_KEPT)
		cufab_arena_unkeep_one(client, 0);
	mutex_lock(&arena->lock);
	kept = arena->whole && !arena->dead && !va->freeing;
	if (kept)
		va->parked = true;
	mutex_unlock(&arena->lock);
	if (!kept)
		return false;
	mutex_lock(&space->lock);
	va->kept = true;
	mutex_unlock(&space->lock);
	space->kept[space->nr_kept++] = va;
	/* a kept reservation is no object of the program's */
	cufab_live_objects_dec();
	fput(client->file);
	return true;
}

/*
 * The arena of @client's process, made on first use; NULL when there is
 * none to be had (no mm, or the mapping failed).
 * Context: space->reserve_lock held.
 */
static struct cufab_va_arena *cufab_arena_get(struct cufab_client *client)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va_arena *arena = space->arena;

	if (!current->mm || (current->flags & PF_EXITING) || space->no_arena)
		return NULL;
	if (arena && !READ_ONCE(arena->dead) && arena->mm == current->mm)
		return arena;
	/* what the client keeps is in the arena it leaves */
	cufab_arena_unkeep(client, 0, U64_MAX);
	if (arena)
		cufab_arena_put(arena);
	arena = cufab_arena_lookup();
	if (!arena)
		arena = cufab_arena_new();
	/* reservations get VMAs of their own from now on */
	space->no_arena = !arena;
	space->arena = arena;
	return arena;
}

/**
 * cufab_va_arena_revive() - a kept reservation as a new one
 * @client: owner
 * @hint: 0, or an address the reservation must start at
 * @length: its length
 * @align: alignment of its start
 *
 * The newest reservation @client keeps of @length bytes, aligned, at
 * @hint if there is one, live again with the client's file held.
 *
 * Context: space->reserve_lock held.
 * Return: the reservation, with a reference for the caller, or NULL:
 * carve a new one.
 */
struct cufab_va *cufab_va_arena_revive(struct cufab_client *client, u64 hint,
				       u64 length, u64 align)
{
	struct cufab_va_space *space = &client->va;
	struct cufab_va *va = NULL;
	bool ok;
	int i;

	if (!space->nr_kept || !cufab_arena_get(client))
		return NULL;
	for (i = space->nr_kept - 1; i >= 0; i--) {
		va = space->kept[i];
		if (va->length == length && IS_ALIGNED(va->start, align) &&
		    (!hint || hint == va->start))
			break;
	}
	if (i < 0)
		return NULL;
	/*
	 * Live once out of the lock: the close of its piece may take it
	 * from then on, dropping the file it holds and the trees' references.
	 * So the file is held first, and the caller gets a reference.
	 */
	get_file(client->file);
	mutex_lock(&va->arena->lock);
	ok = va->arena->whole && !va->arena->dead && !va->freeing &&
	     kref_read(&va->ref) == 2;
	if (ok) {
		/* nothing but the trees holds it, no lookup finds it yet */
		va->dead = false;
		va->pool = false;
		va->parked = false;
		kref_get(&va->ref);
	}
	mutex_unlock(&va->arena->lock);
	if (!ok) {
		fput(client->file);
		cufab_arena_unkeep_one(client, i);
		return NULL;
	}
	space->nr_kept--;
	memmove(&space->kept[i], &space->kept[i + 1],
		(space->nr_kept - i) * sizeof(va));
	cufab_live_objects_inc();
	mutex_lock(&space->lock);
	va->kept = false;
	cufab_va_ranges_grew(space);
	mutex_unlock(&space->lock);
	return va;
}

/* Drop the client's cached arena (the arena itself lives on). */
void cufab_va_arena_forget(struct cufab_client *client)
{
	cufab_arena_unkeep(client, 0, U64_MAX);
	if (client->va.arena)
		cufab_arena_put(client->va.arena);
	client->va.arena = NULL;
}

/*
 * Is [addr, addr + length) free in the arena and inside one live piece
 * with the arena's first protection (a piece the program mprotect()ed
 * stays the program's)? The mm is looked at only once the arena is no
 * longer @whole. Context: arena->lock held, and mmap_lock unless @whole.
 */
static bool cufab_arena_fits(struct cufab_va_arena *arena,
			     unsigned long addr, u64 length)
{
	const unsigned long rw = VM_READ | VM_WRITE;
	struct vm_area_struct *vma;
	unsigned long index = addr;

	if (addr < arena->start || addr >= arena->end ||
	    length > arena->end - addr)
		return false;
	if (!arena->whole) {
		vma = vma_lookup(arena->mm, addr);
		if (!vma || vma->vm_ops != &cufab_arena_vm_ops ||
		    vma->vm_private_data != arena ||
		    length > vma->vm_end - addr ||
		    (vma->vm_flags & rw) != rw)
			return false;
	}
	return !mt_find(&arena->ranges, &index, addr + length - 1);
}

/*
 * An @align-aligned free range of @length bytes, at or after @from, or 0.
 * Context: arena->lock held.
 */
static unsigned long cufab_arena_hole(struct cufab_va_arena *arena,
				      unsigned long from, u64 length,
				      u64 align)
{
	MA_STATE(mas, &arena->ranges, 0, 0);
	u64 span = length + align - PAGE_SIZE;
	int ret;

	if (span < length || from >= arena->end || span > arena->end - from)
		return 0;
	mtree_lock(&arena->ranges);
	ret = mas_empty_area(&mas, from, arena->end - 1, span);
	mtree_unlock(&arena->ranges);
	return ret ? 0 : ALIGN(mas.index, align);
}

/* Carve [va->start, +length) at @hint or anywhere. Context: as _fits(). */
static int cufab_arena_carve(struct cufab_va_arena *arena,
			     struct cufab_va *va, u64 hint, u64 align)
{
	unsigned long addr = 0, from = arena->start;
	int tries;

	if (arena->dead)
		return -ENOSPC;
	if (hint && cufab_arena_fits(arena, hint, va->length))
		addr = hint;
	for (tries = 0; !addr && tries < CUFAB_ARENA_TRIES; tries++) {
		addr = cufab_arena_hole(arena, from, va->length, align);
		if (!addr)
			return -ENOSPC;
		/* a hole of a whole arena fits; else the piece may not */
		if (!arena->whole &&
		    !cufab_arena_fits(arena, addr, va->length)) {
			from = addr + va->length;
			addr = 0;
		}
	}
	if (!addr)
		return -ENOSPC;
	va->start = addr;
	return mtree_insert_range(&arena->ranges, addr, addr + va->length - 1,
				  va, GFP_KERNEL_ACCOUNT);
}

/* cufab_arena_carve() with the locks it needs. */
static int cufab_arena_carve_locked(struct cufab_va_arena *arena,
				    struct cufab_va *va, u64 hint, u64 align)
{
	struct mm_struct *mm = current->mm;
	bool whole;
	int ret;

	/*
	 * An arena still whole needs no mmap_lock: a piece closing meanwhile
	 * takes arena->lock and drops what was carved in it.
	 */
	mutex_lock(&arena->lock);
	whole = arena->whole;
	ret = whole ? cufab_arena_carve(arena, va, hint, align) : 0;
	mutex_unlock(&arena->lock);
	if (!whole) {
		mmap_read_lock(mm);
		mutex_lock(&arena->lock);
		ret = cufab_arena_carve(arena, va, hint, align);
		mutex_unlock(&arena->lock);
		mmap_read_unlock(mm);
	}
	return ret;
}

/**
 * cufab_va_arena_covers() - is a range inside the caller's arena?
 * @client: caller
 * @addr: start
 * @length: bytes, the range does not wrap
 *
 * A hint inside the arena is honoured by carving; one outside it by a VMA
 * of its own (va.c).
 *
 * Context: space->reserve_lock held.
 * Return: true when [addr, addr + length) lies in the arena's range.
 */
bool cufab_va_arena_covers(struct cufab_client *client, u64 addr, u64 length)
{
	struct cufab_va_arena *arena = cufab_arena_get(client);

	return arena && addr >= arena->start && addr < arena->end &&
	       length <= arena->end - addr;
}

/**
 * cufab_va_arena_place() - carve a reservation out of the arena
 * @client: owner
 * @va: the new reservation, its length set
 * @hint: the address to use if it is free, 0 for any
 * @align: alignment of the start
 *
 * On success @va is in the arena's tree (with a reference of its own),
 * va->start is set, and the client's file is held until it goes.
 *
 * Context: space->reserve_lock held.
 * Return: 0; -ENOSPC when the arena cannot hold it (no arena, no aligned
 * hole): the caller gives it a VMA of its own; -ENOMEM.
 */
int cufab_va_arena_place(struct cufab_client *client, struct cufab_va *va,
			 u64 hint, u64 align)
{
	struct cufab_va_arena *arena = cufab_arena_get(client);
	int ret;

	if (!arena)
		return -ENOSPC;
	/* a hint over a kept range is a hint over free space */
	if (hint)
		cufab_arena_unkeep(client, hint, va->length);
	ret = cufab_arena_carve_locked(arena, va, hint, align);
	if (ret == -ENOSPC && client->va.nr_kept) {
		cufab_arena_unkeep(client, 0, U64_MAX);
		ret = cufab_arena_carve_locked(arena, va, hint, align);
	}
	if (!ret) {
		va->arena = arena;
		kref_get(&va->ref);	/* the arena tree's */
		get_file(client->file);
	}
	return ret;
}

/*
 * Zap what the CPU view of @va may still map, in the arena's process
 * whoever the caller is.
 */
static void cufab_arena_zap(struct cufab_va *va)
{
	struct cufab_va_arena *arena = va->arena;
	struct mm_struct *mm = NULL;
	struct vm_area_struct *vma;

	mutex_lock(&arena->lock);
	/* a live piece means a live mm_struct; a dying one unmaps it all */
	if (!arena->dead && mmget_not_zero(arena->mm))
		mm = arena->mm;
	mutex_unlock(&arena->lock);
	if (!mm)
		return;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, va->start);
	if (vma && cufab_va_arena_vma(vma, va))
		zap_vma_ptes(vma, va->start, va->length);
	mmap_read_unlock(mm);
	mmput(mm);
}

/*
 * Free @va, which @keep may keep for its client's next reservation: only
 * one in the client's tree, which a kept one stays in and leaves when its
 * client frees it.
 */
static int cufab_arena_drop(struct cufab_va *va, bool unmapped_only,
			    bool keep)
{
	struct cufab_va_arena *arena = va->arena;
	bool mapped;

	/*
	 * No fault maps a page of it from here on. Whoever drops it (this
	 * call, or the close of its piece) would set this too.
	 */
	cufab_va_write_lock(va);
	mapped = va->nr_maps;
	if (mapped && unmapped_only) {
		up_write(&va->lock);
		return -EBUSY;
	}
	va->dead = true;
	up_write(&va->lock);

	if (!mapped && keep && cufab_arena_keep(va))
		return 0;
	mutex_lock(&arena->lock);
	if (mtree_load(&arena->ranges, va->start) != va || va->freeing) {
		mutex_unlock(&arena->lock);
		return -EINVAL;
	}
	va->freeing = true;
	/* nothing mapped, no PTE: the range may be carved again at once */
	if (!mapped)
		mtree_erase(&arena->ranges, va->start);
	mutex_unlock(&arena->lock);

	if (mapped) {
		cufab_arena_zap(va);
		mutex_lock(&arena->lock);
		if (mtree_load(&arena->ranges, va->start) == va)
			mtree_erase(&arena->ranges, va->start);
		mutex_unlock(&arena->lock);
	}
	cufab_arena_va_gone(va);
	return 0;
}

/**
 * cufab_va_arena_drop() - free a reservation of the arena
 * @va: the reservation (the caller's reference), in its client's tree
 * @unmapped_only: refuse (-EBUSY) a reservation that maps something
 *
 * Its mappings are dropped and its PTEs zapped before the range can be
 * carved again, so a new reservation there never sees the old pages. One
 * that maps nothing may be kept for the client's next reservation.
 *
 * Return: 0; -EBUSY; -EINVAL when the close of its piece of the arena (a
 * munmap() by the process) or another free is dropping it already.
 */
int cufab_va_arena_drop(struct cufab_va *va, bool unmapped_only)
{
	return cufab_arena_drop(va, unmapped_only, true);
}

/**
 * cufab_va_arena_undo() - free a reservation its client's tree never had
 * @va: placed by cufab_va_arena_place() (the caller's reference)
 *
 * As cufab_va_arena_drop(), but never kept: a kept reservation is freed
 * through its client's tree, and one that is not there would be freed
 * with the arena's reference only, then looked at again.
 */
void cufab_va_arena_undo(struct cufab_va *va)
{
	cufab_arena_drop(va, false, false);
}

#ifdef CUFAB_KUNIT
/*
 * va_arena_test.c: the gap search of an arena of [start, end) that no
 * process maps. It stays whole, so carving never looks at an mm.
 */
struct cufab_va_arena *cufab_va_arena_test_new(unsigned long start,
					       unsigned long end)
{
	struct cufab_va_arena *arena;

	arena = kzalloc(sizeof(*arena), GFP_KERNEL);
	if (!arena)
		return NULL;
	kref_init(&arena->ref);
	mutex_init(&arena->lock);
	mt_init_flags(&arena->ranges, MT_FLAGS_ALLOC_RANGE);
	INIT_LIST_HEAD(&arena->node);
	arena->start = start;
	arena->end = end;
	arena->attached = true;
	arena->whole = true;
	return arena;
}

int cufab_va_arena_test_carve(struct cufab_va_arena *arena,
			      struct cufab_va *va, u64 hint, u64 align)
{
	int ret;

	mutex_lock(&arena->lock);
	ret = cufab_arena_carve(arena, va, hint, align);
	mutex_unlock(&arena->lock);
	return ret;
}

void cufab_va_arena_test_erase(struct cufab_va_arena *arena,
			       struct cufab_va *va)
{
	mutex_lock(&arena->lock);
	mtree_erase(&arena->ranges, va->start);
	mutex_unlock(&arena->lock);
}

/* [start, start + length) as a closed piece leaves it: never carved again */
int cufab_va_arena_test_close(struct cufab_va_arena *arena,
			      unsigned long start, u64 length)
{
	int ret;

	mutex_lock(&arena->lock);
	ret = mtree_store_range(&arena->ranges, start, start + length - 1,
				CUFAB_ARENA_GONE, GFP_KERNEL);
	mutex_unlock(&arena->lock);
	return ret;
}

void cufab_va_arena_test_put(struct cufab_va_arena *arena)
{
	cufab_arena_put(arena);
}
#endif
