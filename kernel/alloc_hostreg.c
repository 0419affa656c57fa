// SPDX-License-Identifier: GPL-2.0
/*
 * The cuMemHostRegister kind of allocation: pages of the process's own
 * memory (malloc(), mmap()), pinned for as long as they are registered.
 *
 * HOST_REGISTER pins the pages holding the range with FOLL_LONGTERM and
 * charges them to the caller's locked_vm (account_locked_vm()), so that
 * RLIMIT_MEMLOCK bounds what a process may pin, as it bounds mlock(). The
 * registration is an allocation like any other (its id is the pointer's
 * BUFFER_ID, debugfs "mem" lists it), of HOST location, whose pages are
 * the pinned ones: nothing is copied, the process keeps using its memory
 * where it is. The client keeps its registrations in a maple tree by page,
 * which copies and sets of the engine look up (cufab_hostreg_get_pages())
 * before the mm: a registered page is reached even when the process
 * unmapped or replaced it meanwhile, as a device reaches pinned memory.
 *
 * HOST_UNREGISTER, or the end of the client, drops the tree's reference;
 * the final put unpins and uncharges. A copy that holds pages of the
 * registration holds them by page reference, so an unregister racing it
 * frees nothing under it.
 *
 * Lock order: client->hostreg.lock -> mmap_lock (read, IOMEMORY check).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/cufab.h>

#include "cufab.h"

/**
 * struct cufab_hostreg - one registration (the allocation's @priv)
 * @start: first byte as registered (cuMemHostUnregister's address)
 * @length: bytes as registered
 * @first: address of the first page
 * @npages: pages pinned and charged
 * @flags: CUFAB_HOSTREG_*
 * @ctx_id: context current at the registration, 0 for none
 * @dev: that context's GPU, -1 for none
 * @mm: the registering process's mm, charged with @npages (mmgrab())
 * @pages: the pinned pages
 */
struct cufab_hostreg {
	u64 start;
	u64 length;
	u64 first;
	unsigned long npages;
	u32 flags;
	u32 ctx_id;
	s32 dev;
	struct mm_struct *mm;
	struct page **pages;
};

static struct page *cufab_hostreg_page(struct cufab_alloc *alloc,
				       pgoff_t index)
{
	struct cufab_hostreg *reg = alloc->priv;

	return reg->pages[index];
}

static void cufab_hostreg_unpin(struct cufab_hostreg *reg, unsigned long nr)
{
	unpin_user_pages_dirty_lock(reg->pages, nr,
				    !(reg->flags & CUFAB_HOSTREG_READ_ONLY));
}

/* Unpin, give the charge back, free. */
static void cufab_hostreg_free(struct cufab_hostreg *reg)
{
	cufab_hostreg_unpin(reg, reg->npages);
	account_locked_vm(reg->mm, reg->npages, false);
	mmdrop(reg->mm);
	kvfree(reg->pages);
	kfree(reg);
}

/* The final put of the allocation. */
static void cufab_hostreg_release(struct cufab_alloc *alloc)
{
	cufab_hostreg_free(alloc->priv);
}

/*
 * No .map_prepare: the pages are the process's own, never in a cufab
 * reservation, so cuMemMap cannot name the allocation (it has no handle).
 */
static const struct cufab_alloc_ops cufab_hostreg_alloc_ops = {
	.name = "cuMemHostRegister",
	.page = cufab_hostreg_page,
	.release = cufab_hostreg_release,
};

static void cufab_hostreg_client_init(struct cufab_client *client)
{
	mutex_init(&client->hostreg.lock);
	mt_init(&client->hostreg.ranges);
}

/*
 * The end of the client: its streams are stopped (client.c), so nothing
 * of its own copies any more; every registration is unpinned, even when
 * the process died without unregistering.
 */
static void cufab_hostreg_client_teardown(struct cufab_client *client)
{
	struct cufab_hostreg_space *space = &client->hostreg;
	unsigned long index = 0;
	struct cufab_alloc *alloc;

	mutex_lock(&space->lock);
	mt_for_each(&space->ranges, alloc, index, ULONG_MAX)
		cufab_alloc_put(alloc);
	mtree_destroy(&space->ranges);
	mutex_unlock(&space->lock);
}

const struct cufab_client_part cufab_hostreg_client_part = {
	.name = "registered host memory",
	.init = cufab_hostreg_client_init,
	.teardown = cufab_hostreg_client_teardown,
};

/*
 * cufab memory cannot be registered: cuMemHostAlloc memory is page-locked
 * host memory already (-EEXIST, HOST_MEMORY_ALREADY_REGISTERED), anything
 * else of cufab (device, managed, VMM memory) is -EINVAL.
 */
static int cufab_hostreg_cufab_mem(struct cufab_client *client, u64 addr,
				   u64 length)
{
	struct cufab_va_first first = { .nr = 0 };
	struct cufab_va_map *map;
	struct cufab_va *va;
	int ret;

	ret = cufab_va_check_take(client, NULL, addr, length, 0,
				  CUFAB_ACCESS_READ, &first);
	if (!ret && first.nr == -ENOENT)
		return 0;	/* plain memory all of it */
	va = cufab_va_find(client, addr);
	ret = -EINVAL;
	if (va) {
		down_read(&va->lock);
		map = va->dead ? NULL : cufab_va_map_load(va, addr);
		if (map && va->linear && !READ_ONCE(va->ipc) &&
		    map->alloc->location_type == CUFAB_LOC_HOST &&
		    !cufab_alloc_has(map->alloc, CUFAB_ALLOC_MANAGED))
			ret = -EEXIST;
		up_read(&va->lock);
		cufab_va_put(va);
	}
	cufab_pr_info(client, "cuMemHostRegister: 0x%llx size 0x%llx: %s\n",
		      addr, length, ret == -EEXIST ?
		      "cuMemHostAlloc memory is registered already" :
		      "cufab device, managed or VMM memory is not host memory");
	return ret;
}

/*
 * CU_MEMHOSTREGISTER_IOMEMORY is for a third-party device's I/O space
 * (VM_IO or VM_PFNMAP mappings): ordinary memory is -EINVAL; I/O space
 * needs CAP_SYS_RAWIO (-EPERM, NOT_PERMITTED), and then no virtual GPU
 * has a path to it (-EOPNOTSUPP, NOT_SUPPORTED).
 */
static int cufab_hostreg_iomem(struct cufab_client *client, u64 first,
			       u64 end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool io = true;
	u64 cur = first;

	mmap_read_lock(mm);
	while (cur < end && io) {
		vma = vma_lookup(mm, cur);
		io = vma && (vma->vm_flags & (VM_IO | VM_PFNMAP));
		if (vma)
			cur = vma->vm_end;
	}
	mmap_read_unlock(mm);
	if (!io) {
		cufab_pr_info(client, "cuMemHostRegister: 0x%llx with CU_MEMHOSTREGISTER_IOMEMORY: ordinary memory is not I/O space\n",
			      first);
		return -EINVAL;
	}
	if (!capable(CAP_SYS_RAWIO)) {
		cufab_pr_info(client, "cuMemHostRegister: 0x%llx with CU_MEMHOSTREGISTER_IOMEMORY: I/O space needs CAP_SYS_RAWIO\n",
			      first);
		return -EPERM;
	}
	cufab_pr_info(client, "cuMemHostRegister: 0x%llx with CU_MEMHOSTREGISTER_IOMEMORY: no virtual GPU reaches a third-party device's I/O space\n",
		      first);
	return -EOPNOTSUPP;
}

/* Pin all of @reg's pages, or none: 0, -EFAULT or -ENOMEM. */
static int cufab_hostreg_pin(struct cufab_hostreg *reg)
{
	unsigned int gup = FOLL_LONGTERM;
	unsigned long done = 0;
	int ret;

	if (!(reg->flags & CUFAB_HOSTREG_READ_ONLY))
		gup |= FOLL_WRITE;
	if (cufab_should_fail(CUFAB_FAULT_MEM_PAGE))
		return -ENOMEM;
	while (done < reg->npages) {
		ret = pin_user_pages_fast(reg->first + (done << PAGE_SHIFT),
					  min_t(unsigned long,
						reg->npages - done, INT_MAX),
					  gup, reg->pages + done);
		if (ret <= 0) {
			cufab_hostreg_unpin(reg, done);
			return ret == -ENOMEM ? -ENOMEM : -EFAULT;
		}
		done += ret;
	}
	return 0;
}

/* The context of the call, 0 for none: its GPU, -ENOENT for no such. */
static int cufab_hostreg_ctx(struct cufab_client *client, u32 ctx_id,
			     s32 *dev)
{
	struct cufab_object *obj;

	*dev = -1;
	if (!ctx_id)
		return 0;
	obj = cufab_object_get(client, ctx_id, CUFAB_OBJ_CTX);
	if (IS_ERR(obj)) {
		cufab_pr_info(client, "cuMemHostRegister: context %u: no such context\n",
			      ctx_id);
		return PTR_ERR(obj);
	}
	*dev = container_of(obj, struct cufab_ctx, obj)->dev;
	cufab_object_put(obj);
	return 0;
}

/* A registration of @cmd's range, pinned and charged. */
static struct cufab_hostreg *cufab_hostreg_new(struct cufab_client *client,
					       const struct cufab_host_register *cmd)
{
	u64 addr = cmd->addr, length = cmd->length;
	struct cufab_hostreg *reg;
	int ret;

	reg = kzalloc(sizeof(*reg), GFP_KERNEL_ACCOUNT);
	if (!reg)
		return ERR_PTR(-ENOMEM);
	reg->start = addr;
	reg->length = length;
	reg->first = addr & PAGE_MASK;
	reg->npages = (PAGE_ALIGN(addr + length) - reg->first) >> PAGE_SHIFT;
	reg->flags = cmd->flags;
	reg->ctx_id = cmd->ctx_id;
	ret = cufab_hostreg_ctx(client, cmd->ctx_id, &reg->dev);
	if (ret)
		goto err_free;
	reg->pages = kvmalloc_array(reg->npages, sizeof(*reg->pages),
				    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!reg->pages) {
		cufab_pr_info(client, "cuMemHostRegister: 0x%llx, %lu pages: no kernel memory for the list of its pages\n",
			      addr, reg->npages);
		ret = -ENOMEM;
		goto err_free;
	}
	reg->mm = current->mm;
	ret = account_locked_vm(reg->mm, reg->npages, true);
	if (ret) {
		cufab_pr_info(client, "cuMemHostRegister: 0x%llx, %lu pages: past RLIMIT_MEMLOCK (%lu bytes)\n",
			      addr, reg->npages, rlimit(RLIMIT_MEMLOCK));
		goto err_free;
	}
	ret = cufab_hostreg_pin(reg);
	if (ret) {
		cufab_pr_info(client, "cuMemHostRegister: 0x%llx size 0x%llx: %s\n",
			      addr, length, ret == -ENOMEM ?
			      "no memory to pin its pages" :
			      "a page of it is not mapped, or read-only and CU_MEMHOSTREGISTER_READ_ONLY not given");
		account_locked_vm(reg->mm, reg->npages, false);
		goto err_free;
	}
	mmgrab(reg->mm);
	return reg;

err_free:
	kvfree(reg->pages);
	kfree(reg);
	return ERR_PTR(ret);
}

/* Is a page of [first, first + npages pages) registered already? */
static bool cufab_hostreg_overlaps(struct cufab_client *client, u64 first,
				   unsigned long npages)
{
	unsigned long index = first;
	void *entry;

	mutex_lock(&client->hostreg.lock);
	entry = mt_find(&client->hostreg.ranges, &index,
			first + (npages << PAGE_SHIFT) - 1);
	mutex_unlock(&client->hostreg.lock);
	return entry;
}

/* Enter @alloc in the client's tree: 0, -EEXIST for an overlap, -ENOMEM. */
static int cufab_hostreg_insert(struct cufab_client *client,
				struct cufab_alloc *alloc)
{
	const struct cufab_hostreg *reg = alloc->priv;
	int ret;

	mutex_lock(&client->hostreg.lock);
	ret = mtree_insert_range(&client->hostreg.ranges, reg->first,
				 reg->first + (reg->npages << PAGE_SHIFT) - 1,
				 alloc, GFP_KERNEL_ACCOUNT);
	mutex_unlock(&client->hostreg.lock);
	return ret;
}

/* @reg as an allocation of its kind; on error @reg is freed. */
static struct cufab_alloc *cufab_hostreg_alloc(struct cufab_hostreg *reg)
{
	struct cufab_alloc_desc desc = {
		.location_type = CUFAB_LOC_HOST,
		.location_id = -1,
		.length = reg->npages << PAGE_SHIFT,
		.ops = &cufab_hostreg_alloc_ops,
		.priv = reg,
	};
	struct cufab_alloc *alloc;

	alloc = cufab_alloc_create(&desc);
	if (IS_ERR(alloc)) {
		cufab_hostreg_free(reg);
		return alloc;
	}
	atomic_long_set(&alloc->resident, reg->npages);
	return alloc;
}

static void cufab_hostreg_log_exists(struct cufab_client *client,
				     const struct cufab_host_register *cmd)
{
	cufab_pr_info(client, "cuMemHostRegister: 0x%llx size 0x%llx: a page of it is registered already\n",
		      cmd->addr, cmd->length);
}

/*
 * Checked, pinned, charged, then answered, and only then published: a
 * registration whose reply cannot be written is one no other thread ever
 * found (HOST_UNREGISTER by the same address included), so its undoing
 * is a plain put.
 */
int cufab_ioctl_host_register(struct cufab_ucmd *ucmd)
{
	struct cufab_host_register *cmd = ucmd->cmd;
	struct cufab_client *client = ucmd->client;
	struct cufab_hostreg *reg;
	struct cufab_alloc *alloc;
	int ret;

	if ((cmd->flags & ~CUFAB_HOSTREG_VALID) || cmd->__reserved ||
	    !cmd->length || !cufab_range_ok(cmd->addr, cmd->length) ||
	    cmd->addr + cmd->length > TASK_SIZE) {
		cufab_pr_info(client, "cuMemHostRegister: 0x%llx size 0x%llx flags 0x%x: a non-empty user range, flags of 0x%x\n",
			      cmd->addr, cmd->length, cmd->flags,
			      CUFAB_HOSTREG_VALID);
		return -EINVAL;
	}
	if (!current->mm)
		return -EFAULT;
	ret = cufab_hostreg_cufab_mem(client, cmd->addr, cmd->length);
	if (ret)
		return ret;
	if (cmd->flags & CUFAB_HOSTREG_IOMEMORY)
		return cufab_hostreg_iomem(client, cmd->addr & PAGE_MASK,
					   PAGE_ALIGN(cmd->addr + cmd->length));
	if (cufab_hostreg_overlaps(client, cmd->addr & PAGE_MASK,
				   (PAGE_ALIGN(cmd->addr + cmd->length) -
				    (cmd->addr & PAGE_MASK)) >> PAGE_SHIFT)) {
		cufab_hostreg_log_exists(client, cmd);
		return -EEXIST;
	}
	reg = cufab_hostreg_new(client, cmd);
	if (IS_ERR(reg))
		return PTR_ERR(reg);
	alloc = cufab_hostreg_alloc(reg);
	if (IS_ERR(alloc))
		return PTR_ERR(alloc);
	cmd->out_id = alloc->id;
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
	if (!ret) {
		/* another thread may have registered a page of it meanwhile */
		ret = cufab_hostreg_insert(client, alloc);
		if (ret == -EEXIST)
			cufab_hostreg_log_exists(client, cmd);
	}
	if (ret)
		cufab_alloc_put(alloc);	/* its release unpins */
	return ret;
}

/**
 * cufab_hostreg_drop() - unregister what HOST_REGISTER made at @addr
 * @client: whose registration
 * @addr: its registered first byte
 *
 * Return: 0, or -ENOENT when no registration starts at @addr.
 */
static int cufab_hostreg_drop(struct cufab_client *client, u64 addr)
{
	struct cufab_hostreg_space *space = &client->hostreg;
	struct cufab_alloc *alloc;
	int ret = -ENOENT;

	mutex_lock(&space->lock);
	alloc = mtree_load(&space->ranges, addr);
	if (alloc && ((struct cufab_hostreg *)alloc->priv)->start == addr) {
		mtree_erase(&space->ranges, addr);
		ret = 0;
	}
	mutex_unlock(&space->lock);
	if (ret)
		return ret;
	cufab_alloc_put(alloc);
	return 0;
}

int cufab_ioctl_host_unregister(struct cufab_ucmd *ucmd)
{
	struct cufab_host_unregister *cmd = ucmd->cmd;
	int ret;

	if (cmd->flags) {
		cufab_pr_info(ucmd->client, "cuMemHostUnregister: flags 0x%x: must be 0\n",
			      cmd->flags);
		return -EINVAL;
	}
	ret = cufab_hostreg_drop(ucmd->client, cmd->addr);
	if (ret)
		cufab_pr_info(ucmd->client, "cuMemHostUnregister: 0x%llx: no registration starts there\n",
			      cmd->addr);
	return ret;
}

/* The registration holding @addr, with a reference, or NULL. */
static struct cufab_alloc *cufab_hostreg_find(struct cufab_client *client,
					      u64 addr)
{
	struct cufab_hostreg_space *space = &client->hostreg;
	struct cufab_alloc *alloc;

	if (mtree_empty(&space->ranges))
		return NULL;
	mutex_lock(&space->lock);
	alloc = mtree_load(&space->ranges, addr);
	if (alloc)
		cufab_alloc_get(alloc);
	mutex_unlock(&space->lock);
	return alloc;
}

/**
 * cufab_hostreg_get_pages() - the registered pages a copy reaches
 * @client: whose registrations
 * @addr: the address; pages are taken from its page on
 * @write: the copy writes them (a READ_ONLY registration: -EFAULT)
 * @pages: set to up to @max pages, each with a reference
 * @max: at most this many, never past the registration
 *
 * Return: the number of pages (>= 1), -ENOENT when @addr is not
 * registered, -EFAULT for a write to read-only registered memory.
 */
int cufab_hostreg_get_pages(struct cufab_client *client, u64 addr,
			    bool write, struct page **pages, unsigned int max)
{
	struct cufab_alloc *alloc = cufab_hostreg_find(client, addr);
	struct cufab_hostreg *reg;
	unsigned long index;
	int nr = 0;

	if (!alloc)
		return -ENOENT;
	reg = alloc->priv;
	if (write && (reg->flags & CUFAB_HOSTREG_READ_ONLY)) {
		cufab_pr_info(client, "device write to 0x%llx: registered CU_MEMHOSTREGISTER_READ_ONLY\n",
			      addr);
		nr = -EFAULT;
		goto out;
	}
	index = (addr - reg->first) >> PAGE_SHIFT;
	for (; nr < max && index < reg->npages; index++) {
		get_page(reg->pages[index]);
		pages[nr++] = reg->pages[index];
	}
out:
	cufab_alloc_put(alloc);
	return nr;
}

/* Is @addr registered host memory of @client? */
bool cufab_hostreg_contains(struct cufab_client *client, u64 addr)
{
	struct cufab_alloc *alloc = cufab_hostreg_find(client, addr);

	if (alloc)
		cufab_alloc_put(alloc);
	return alloc;
}

/**
 * cufab_hostreg_pointer_info() - POINTER_INFO of registered memory
 * @client: whose registrations
 * @cmd: filled when @cmd->addr is registered
 *
 * Return: true when it is.
 */
bool cufab_hostreg_pointer_info(struct cufab_client *client,
				struct cufab_pointer_info *cmd)
{
	struct cufab_alloc *alloc = cufab_hostreg_find(client, cmd->addr);
	const struct cufab_hostreg *reg;

	if (!alloc)
		return false;
	reg = alloc->priv;
	/* the rest of a page around the registered bytes is not registered */
	if (cmd->addr < reg->start || cmd->addr - reg->start >= reg->length) {
		cufab_alloc_put(alloc);
		return false;
	}
	cmd->out_flags = CUFAB_PTR_F_CUFAB | CUFAB_PTR_F_MAPPED |
			 CUFAB_PTR_F_HOSTREG;
	cmd->out_memory_type = 1;	/* CU_MEMORYTYPE_HOST */
	cmd->out_dev = reg->dev;
	cmd->out_alloc_id = alloc->id;
	cmd->out_access_flags = reg->flags & CUFAB_HOSTREG_READ_ONLY ?
				CUFAB_ACCESS_READ : CUFAB_ACCESS_RW;
	cmd->out_range_base = reg->start;
	cmd->out_range_length = reg->length;
	cmd->out_ctx_id = reg->ctx_id;
	cmd->out_host_flags = reg->flags;
	cufab_alloc_put(alloc);
	return true;
}
