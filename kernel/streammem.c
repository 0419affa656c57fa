// SPDX-License-Identifier: GPL-2.0
/*
 * Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64
 * and cuStreamBatchMemOp (CUFAB_IOCTL_STREAM_MEMOP).
 *
 * A batch is one operation of its stream. When the stream reaches it, the
 * engine runs its entries in order in the process's address space, page
 * by page as copies do (cufab_va_get_pages(), or pinned plain memory), so
 * the CPU fence of managed memory does not apply to it. A write stores
 * its value after a full barrier. A wait whose condition does not hold
 * parks the operation (CUFAB_OP_PARK): the stream keeps it at its head,
 * the engine's worker goes on with other streams, and the engine runs the
 * batch again from that entry when it is woken. A parked batch is woken
 *
 * - at once by every write of a batch, of any stream of any process
 *   (the waits of the whole node are re-checked: another process may map
 *   the same memory);
 * - by a CPU store of its own process to the page of the word it waits
 *   for, when that word is in a cufab mapping: parking zaps the page's
 *   PTE in the process (cufab_va_cpu_watch()), so the store takes a
 *   fault, and the fault handler wakes the batch (cufab_memop_cpu_store()).
 *   A CPU store makes no system call; a fault is the one thing it can
 *   make the kernel hear. The fault comes before the store lands: the
 *   re-check it triggers may still read the old value and park again,
 *   and the timer's first step (10 us) finds it then. One fault per park:
 *   the PTE is zapped again only after a store woke the batch.
 * - by its timer, which re-checks it first after 10 us, then after twice
 *   as long each time up to 1 ms. This is what notices the stores the
 *   fault does not: to plain memory (malloc()), from another process
 *   through memory they share (its own view of it is not zapped), or
 *   after a fault on a neighbouring page of the same 2 MiB block mapped
 *   the page back. It is a bounded re-check, not busy polling: a parked
 *   batch costs at most a thousand short wakeups of the engine a second,
 *   and no thread of the process spins.
 *
 * A batch is on cufab_memop_waits from its first wait's first check until
 * it completes or is cancelled (@unpark), so a write between a check and
 * the park is not missed: the wake finds it RUNNING and the engine runs
 * it again as soon as it parks (cufab_op_wake()).
 *
 * Locks: cufab_memop_lock, irq-safe (the timer takes it), inside
 * stream->lock; waking an operation under it takes no lock of ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/cufab.h>

#include "cufab.h"

/* The re-check timer of a parked batch: first delay, doubled up to max. */
#define CUFAB_MEMOP_RECHECK_MIN_NS	(10 * NSEC_PER_USEC)
#define CUFAB_MEMOP_RECHECK_MAX_NS	NSEC_PER_MSEC

/**
 * struct cufab_memop_job - a batch of stream memory operations
 * @op: its stream operation
 * @mm: the process's address space (mmgrab()bed)
 * @node: on cufab_memop_waits while a wait of it may be unmet
 * @timer: wakes it for a re-check while parked
 * @interval_ns: the timer's next delay
 * @watch_page: the page whose PTE it zapped, when @watched
 * @watched: a CPU store to @watch_page in @mm wakes it (cufab_memop_lock)
 * @dev: the stream's GPU, which performs the accesses
 * @next: the first entry not done
 * @count: entries
 * @ops: the entries
 */
struct cufab_memop_job {
	struct cufab_op *op;
	struct mm_struct *mm;
	struct list_head node;
	struct hrtimer timer;
	u64 interval_ns;
	unsigned long watch_page;
	bool watched;
	u32 dev;
	u32 next;
	u32 count;
	struct cufab_memop ops[];
};

static DEFINE_SPINLOCK(cufab_memop_lock);
static LIST_HEAD(cufab_memop_waits);

static bool cufab_memop_is_wait(const struct cufab_memop *m)
{
	return m->op == CUFAB_MEMOP_WAIT32 || m->op == CUFAB_MEMOP_WAIT64;
}

static u32 cufab_memop_size(const struct cufab_memop *m)
{
	return m->op == CUFAB_MEMOP_WAIT64 || m->op == CUFAB_MEMOP_WRITE64 ?
	       8 : 4;
}

/* Does the value @v read at a wait's address satisfy it? */
static bool cufab_memop_met(const struct cufab_memop *m, u64 v)
{
	bool wide = cufab_memop_size(m) == 8;
	u64 mask = wide ? U64_MAX : U32_MAX;

	switch (m->flags) {
	case CUFAB_MEMOP_GEQ:
		/* cyclic: the difference's sign in the value's width */
		return wide ? (s64)(v - m->value) >= 0 :
			      (s32)((u32)v - (u32)m->value) >= 0;
	case CUFAB_MEMOP_EQ:
		return v == m->value;
	case CUFAB_MEMOP_AND:
		return (v & m->value) != 0;
	default:
		return (~(v | m->value) & mask) != 0;
	}
}

/* ---- the wake list ---- */

static void cufab_memop_list(struct cufab_memop_job *job)
{
	unsigned long flags;

	spin_lock_irqsave(&cufab_memop_lock, flags);
	if (list_empty(&job->node))
		list_add_tail(&job->node, &cufab_memop_waits);
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
}

static void cufab_memop_unlist(struct cufab_memop_job *job)
{
	unsigned long flags;

	spin_lock_irqsave(&cufab_memop_lock, flags);
	list_del_init(&job->node);
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
}

/* A write happened: every wait of the node checks again, at once. */
static void cufab_memop_wake_all(void)
{
	struct cufab_memop_job *job;
	unsigned long flags;

	spin_lock_irqsave(&cufab_memop_lock, flags);
	list_for_each_entry(job, &cufab_memop_waits, node) {
		job->interval_ns = CUFAB_MEMOP_RECHECK_MIN_NS;
		cufab_op_wake(job->op);
	}
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
}

static enum hrtimer_restart cufab_memop_timer(struct hrtimer *timer)
{
	struct cufab_memop_job *job = container_of(timer,
						   struct cufab_memop_job,
						   timer);
	unsigned long flags;

	spin_lock_irqsave(&cufab_memop_lock, flags);
	/* off the list: completed or cancelled, the op may be going */
	if (!list_empty(&job->node))
		cufab_op_wake(job->op);
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
	return HRTIMER_NORESTART;
}

/*
 * cufab_va_cpu_store_hook: the CPU of @current is storing to @addr of a
 * cufab mapping. Every batch watching that page of this mm checks again.
 */
static void cufab_memop_cpu_store(unsigned long addr)
{
	struct cufab_memop_job *job;
	unsigned long flags;

	if (list_empty_careful(&cufab_memop_waits))
		return;
	spin_lock_irqsave(&cufab_memop_lock, flags);
	list_for_each_entry(job, &cufab_memop_waits, node) {
		if (!job->watched || job->mm != current->mm ||
		    job->watch_page != (addr & PAGE_MASK))
			continue;
		job->watched = false;
		job->interval_ns = CUFAB_MEMOP_RECHECK_MIN_NS;
		cufab_op_wake(job->op);
	}
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
}

/*
 * Wait @m is not met: make the CPU's next store to its page fault, unless
 * that is done already. True when it was done now: the caller reads the
 * value again, as a store between its read and the zap went unseen.
 */
static bool cufab_memop_watch(struct cufab_memop_job *job,
			      const struct cufab_memop *m)
{
	unsigned long page = m->addr & PAGE_MASK, flags;
	bool armed;

	spin_lock_irqsave(&cufab_memop_lock, flags);
	armed = job->watched && job->watch_page == page;
	/* before the zap: a store right after it finds the batch watching */
	job->watched = true;
	job->watch_page = page;
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
	if (armed)
		return false;
	WRITE_ONCE(cufab_va_cpu_store_hook, cufab_memop_cpu_store);
	if (!cufab_va_cpu_watch(job->op->stream->client, job->mm, m->addr))
		return true;
	/* plain memory: no fault to hear of; the timer alone */
	spin_lock_irqsave(&cufab_memop_lock, flags);
	job->watched = false;
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
	return false;
}

/* Parking: the next re-check, and the one after it twice as late. */
static void cufab_memop_arm(struct cufab_memop_job *job)
{
	unsigned long flags;

	spin_lock_irqsave(&cufab_memop_lock, flags);
	hrtimer_start(&job->timer, ns_to_ktime(job->interval_ns),
		      HRTIMER_MODE_REL);
	job->interval_ns = min_t(u64, job->interval_ns * 2,
				 CUFAB_MEMOP_RECHECK_MAX_NS);
	spin_unlock_irqrestore(&cufab_memop_lock, flags);
}

/* ---- running a batch ---- */

static const char *const cufab_memop_names[CUFAB_MEMOP_MAX] = {
	[CUFAB_MEMOP_WAIT32] = "wait32",
	[CUFAB_MEMOP_WRITE32] = "write32",
	[CUFAB_MEMOP_WAIT64] = "wait64",
	[CUFAB_MEMOP_WRITE64] = "write64",
};

/* The call a one-entry batch comes from, for its refusal line. */
static const char *const cufab_memop_calls[CUFAB_MEMOP_MAX] = {
	[CUFAB_MEMOP_WAIT32] = "cuStreamWaitValue32",
	[CUFAB_MEMOP_WRITE32] = "cuStreamWriteValue32",
	[CUFAB_MEMOP_WAIT64] = "cuStreamWaitValue64",
	[CUFAB_MEMOP_WRITE64] = "cuStreamWriteValue64",
};

/* The call entry @m of @job comes from: a batch of one is the single call. */
static const char *cufab_memop_call(const struct cufab_memop_job *job,
				    const struct cufab_memop *m)
{
	return job->count == 1 && m->op && m->op < CUFAB_MEMOP_MAX ?
	       cufab_memop_calls[m->op] : "cuStreamBatchMemOp";
}

/*
 * Read (a wait) or write the @size-byte value at @addr of the current mm
 * through its page, as the engine's copies reach memory.
 */
static int cufab_memop_access(struct cufab_client *client, u64 addr,
			      u32 size, bool write, u64 *val)
{
	struct page *page;
	bool pinned = false;
	void *p;
	int ret;

	ret = cufab_va_get_pages(client, addr, write, &page, 1);
	if (ret == -ENOENT) {
		pinned = true;
		ret = pin_user_pages_fast(addr & PAGE_MASK, 1,
					  write ? FOLL_WRITE : 0, &page);
	}
	if (ret <= 0)
		return ret ?: -EFAULT;
	p = kmap_local_page(page) + offset_in_page(addr);
	if (write) {
		/* CU_STREAM_WRITE_VALUE_DEFAULT: all before it is seen first */
		smp_mb();
		if (size == 8)
			WRITE_ONCE(*(u64 *)p, *val);
		else
			WRITE_ONCE(*(u32 *)p, (u32)*val);
	} else {
		*val = size == 8 ? READ_ONCE(*(u64 *)p) : READ_ONCE(*(u32 *)p);
	}
	kunmap_local(p);
	if (pinned)
		unpin_user_pages_dirty_lock(&page, 1, write);
	else
		put_page(page);
	return 0;
}

/*
 * One entry: 0 done, CUFAB_OP_PARK for a wait not met, or the error of an
 * access the GPU may not make (as a set's: -EACCES, -EFAULT).
 */
static int cufab_memop_one(struct cufab_memop_job *job,
			   const struct cufab_memop *m)
{
	struct cufab_client *client = job->op->stream->client;
	const char *call = cufab_memop_call(job, m);
	bool wait = cufab_memop_is_wait(m);
	u32 size = cufab_memop_size(m);
	u64 v = m->value;
	int ret;

	ret = cufab_va_check_access(client, call, m->addr, size, job->dev,
				    wait ? CUFAB_ACCESS_READ : CUFAB_ACCESS_RW);
	/* device memory freed since the submission: the GPU faults there */
	if (!ret && cufab_set_unreachable(client, m->addr, job->dev)) {
		cufab_pr_info(client, "%s: address 0x%llx: not cufab memory any more and gpu %u has PAGEABLE_MEMORY_ACCESS 0: freed since it was queued\n",
			      call, m->addr, job->dev);
		ret = -EFAULT;
	}
	if (ret)
		return ret;
	/* listed before the read: a write after it wakes the batch */
	if (wait)
		cufab_memop_list(job);
	ret = cufab_memop_access(client, m->addr, size, !wait, &v);
	if (ret)
		cufab_pr_info(client, "%s: address 0x%llx: %s\n", call, m->addr,
			      ret == -ENOMEM ? "no memory for its page" :
			      "no page there, or a read-only one to write");
	if (ret || !wait)
		return ret;
	return cufab_memop_met(m, v) ? 0 : CUFAB_OP_PARK;
}

static int cufab_memop_execute(struct cufab_op *op)
{
	struct cufab_memop_job *job = op->u.memop.job;
	struct cufab_charge charge;
	bool wrote = false, own;
	int ret = 0;

	/*
	 * The engine cleared op->woken before running it again: the values
	 * are read after that, as a waker writes before it sets woken.
	 */
	smp_mb();
	/* run inline (writes only), the submitter is in job->mm already */
	own = current->mm == job->mm;
	if (!own && !mmget_not_zero(job->mm))
		return -ESRCH;
	if (!own)
		kthread_use_mm(job->mm);
	cufab_charge_begin(&charge, job->mm);
	while (!ret && job->next < job->count) {
		const struct cufab_memop *m = &job->ops[job->next];

		ret = cufab_memop_one(job, m);
		if (ret == CUFAB_OP_PARK && cufab_memop_watch(job, m))
			ret = cufab_memop_one(job, m);
		if (ret)
			break;
		wrote |= !cufab_memop_is_wait(m);
		job->next++;
	}
	cufab_charge_end(&charge);
	if (!own) {
		kthread_unuse_mm(job->mm);
		mmput_async(job->mm);
	}
	if (wrote)
		cufab_memop_wake_all();
	if (ret == CUFAB_OP_PARK)
		cufab_memop_arm(job);
	else
		cufab_memop_unlist(job);
	return ret;
}

/* Cancelled while parked, under the stream's lock: no wake from now on. */
static void cufab_memop_unpark(struct cufab_op *op)
{
	cufab_memop_unlist(op->u.memop.job);
}

static void cufab_memop_cleanup(struct cufab_op *op)
{
	struct cufab_memop_job *job = op->u.memop.job;

	cufab_memop_unlist(job);
	/* a timer already running finds the batch off the list */
	hrtimer_cancel(&job->timer);
	mmdrop(job->mm);
	kfree(job);
}

static const struct cufab_op_type cufab_op_memop = {
	.name = "memop",
	.skip_on_error = true,
	.execute = cufab_memop_execute,
	.cleanup = cufab_memop_cleanup,
	.unpark = cufab_memop_unpark,
};

/*
 * A batch of writes only never parks and costs a page lookup and a store
 * each: on an idle stream its submitter runs it (run_inline), sparing the
 * wakeup of the engine's worker, which costs many times more.
 */
static const struct cufab_op_type cufab_op_memop_writes = {
	.name = "memop",
	.skip_on_error = true,
	.run_inline = true,
	.execute = cufab_memop_execute,
	.cleanup = cufab_memop_cleanup,
	.unpark = cufab_memop_unpark,
};

static bool cufab_memop_has_wait(const struct cufab_memop_job *job)
{
	u32 i;

	for (i = 0; i < job->count; i++)
		if (cufab_memop_is_wait(&job->ops[i]))
			return true;
	return false;
}

/* ---- submission ---- */

/* The rule entry @i of a batch on @stream breaks, for the message. */
static const char *cufab_memop_rule(const struct cufab_stream *stream,
				    const struct cufab_memop *m)
{
	u32 size;

	if (!m->op || m->op >= CUFAB_MEMOP_MAX)
		return "no such operation";
	size = cufab_memop_size(m);
	if (cufab_memop_is_wait(m) && m->flags >= CUFAB_MEMOP_COND_MAX)
		return "no such wait condition";
	if (!cufab_memop_is_wait(m) && m->flags)
		return "a write takes no flags";
	if (size == 4 && m->value > U32_MAX)
		return "the value exceeds 32 bits";
	if (!m->addr || !IS_ALIGNED(m->addr, size) ||
	    !cufab_range_ok(m->addr, size))
		return "the address must be a user address aligned to the value's size";
	if (cufab_set_unreachable(stream->client, m->addr, stream->dev))
		return "pageable host memory and the GPU has PAGEABLE_MEMORY_ACCESS 0";
	return NULL;
}

static int cufab_memop_check(const struct cufab_stream *stream,
			     const struct cufab_memop_job *job)
{
	const struct cufab_memop *m;
	const char *rule;
	u32 i;

	for (i = 0; i < job->count; i++) {
		m = &job->ops[i];
		rule = cufab_memop_rule(stream, m);
		if (!rule)
			continue;
		/* one entry: the single-value call (or a batch of one) */
		cufab_pr_info(stream->client,
			      "%s: stream %llu: memory operation %u of %u (%s) at 0x%llx, value 0x%llx, flags 0x%x: %s\n",
			      cufab_memop_call(job, m),
			      stream->uid, i, job->count,
			      m->op && m->op < CUFAB_MEMOP_MAX ?
			      cufab_memop_names[m->op] : "?",
			      m->addr, m->value, m->flags, rule);
		return -EINVAL;
	}
	return 0;
}

/* The batch @cmd describes, copied in and checked against @stream. */
static struct cufab_memop_job *
cufab_memop_job_new(struct cufab_stream *stream,
		    const struct cufab_stream_memop *cmd)
{
	struct cufab_memop_job *job;
	int ret;

	job = kzalloc(struct_size(job, ops, cmd->count), GFP_KERNEL_ACCOUNT);
	if (!job)
		return ERR_PTR(-ENOMEM);
	job->count = cmd->count;
	if (copy_from_user(job->ops, u64_to_user_ptr(cmd->ops_ptr),
			   array_size(cmd->count, sizeof(*job->ops)))) {
		ret = -EFAULT;
		goto err;
	}
	ret = cufab_memop_check(stream, job);
	if (ret)
		goto err;
	INIT_LIST_HEAD(&job->node);
	hrtimer_init(&job->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	job->timer.function = cufab_memop_timer;
	job->interval_ns = CUFAB_MEMOP_RECHECK_MIN_NS;
	job->dev = stream->dev;
	job->mm = current->mm;
	mmgrab(job->mm);
	return job;
err:
	kfree(job);
	return ERR_PTR(ret);
}

int cufab_ioctl_stream_memop(struct cufab_ucmd *ucmd)
{
	struct cufab_stream_memop *cmd = ucmd->cmd;
	struct cufab_memop_job *job;
	struct cufab_stream *stream;
	struct cufab_op *op;
	u64 aux;
	int ret;

	if (cmd->flags || !cmd->count || cmd->count > CUFAB_MEMOP_MAX_BATCH) {
		cufab_pr_info(ucmd->client, "cuStreamBatchMemOp: count %u, flags 0x%x: count must be 1 ..%u and flags 0\n",
			      cmd->count, cmd->flags, CUFAB_MEMOP_MAX_BATCH);
		return -EINVAL;
	}
	stream = cufab_stream_lookup(ucmd->client, cmd->stream_id);
	if (IS_ERR(stream))
		return PTR_ERR(stream);
	job = cufab_memop_job_new(stream, cmd);
	if (IS_ERR(job)) {
		cufab_stream_put(stream);
		return PTR_ERR(job);
	}
	op = cufab_op_alloc(stream);
	if (IS_ERR(op)) {
		mmdrop(job->mm);
		kfree(job);
		cufab_stream_put(stream);
		return PTR_ERR(op);
	}
	op->type = cufab_memop_has_wait(job) ? &cufab_op_memop :
		   &cufab_op_memop_writes;
	op->u.memop.job = job;
	job->op = op;
	/* from here the op owns the stream reference and the batch */
	ret = cufab_stream_submit_op(stream, op, &cmd->out_seq, &aux);
	return ret ?: cufab_ucmd_respond(ucmd, sizeof(*cmd));
}
