// SPDX-License-Identifier: GPL-2.0
/*
 * The engines: one workqueue per virtual GPU with CUFAB_COPY_ENGINES
 * workers, its copy engines (ASYNC_ENGINE_COUNT reports as many): up to
 * that many streams of the GPU run at once, each stream one operation at
 * a time (a work item never runs twice concurrently).
 *
 * A stream's work item looks at the head of the queue only. Like a
 * drm_sched job, the head waits for the fences it depends on (the legacy
 * stream rules and cuStreamWaitEvent put them there) with a callback on
 * the first unsignalled one; the callback re-queues the work. A head whose
 * dependencies are met runs on the engine, through its type (struct
 * cufab_op_type, defined beside its concern and listed in cufab_op_types[]):
 * copies and sets move the bytes in the owning process's address space
 * (memops.c), host operations go to the process's host thread and
 * complete when it says so (stream.c), event records stamp the event's
 * slot (event.c). The engine knows no type. A head that cannot go on yet
 * (a stream memory wait) parks: it keeps the stream but not the engine,
 * and runs again when its type wakes it. Completing an operation
 * publishes its sequence number in the stream's slot, signals its fence
 * and queues the work again for the next head. An operation that costs
 * less than a wakeup (event records and waits, a host function's hand-off
 * to the host thread, an attach, a batch of value writes) submitted to an
 * idle stream with nothing to wait for runs in its submitter instead, so
 * that recording an event and synchronizing with it costs one syscall and
 * no wakeup. One that would change nothing there (an attach of memory to
 * what it is attached to already) is not even made: its type says it is
 * settled (struct cufab_op_type.settled) and the submission completes.
 *
 * Lock order: space->lock -> stream->lock -> event->lock, any fence lock,
 * the lock of space->host_tokens, space->slot_lock. Fence callbacks take
 * no lock of ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "cufab.h"
#include "trace.h"

/*
 * Race exposure: every operation of a stream completes this much later
 * (a fixed delay, or with a non-zero seed a pseudo-random one up to it,
 * the same for the same stream slot and sequence number on every run), so
 * a program that forgets to synchronize two streams sees the other
 * stream's work unfinished every time instead of once a month.
 */
unsigned int cufab_race_delay_us;
module_param_named(race_delay_us, cufab_race_delay_us, uint, 0644);
MODULE_PARM_DESC(race_delay_us,
		 "Delay the completion of every stream operation by up to this many microseconds (default 0: none)");
unsigned int cufab_race_seed;
module_param_named(race_seed, cufab_race_seed, uint, 0644);
MODULE_PARM_DESC(race_seed,
		 "0: race_delay_us is a fixed delay; otherwise the seed of a per-operation delay in [0, race_delay_us] (default 0)");

/*
 * A client's stream operations queued and not yet freed, at most. A
 * submission beyond it waits for one to complete, as cuLaunch* waits for
 * room in a full push buffer: the memory of one process's backlog stays
 * bounded whatever its memory cgroup allows.
 */
unsigned int cufab_stream_queue_max = 65536;
module_param_named(stream_queue_max, cufab_stream_queue_max, uint, 0644);
MODULE_PARM_DESC(stream_queue_max,
		 "Stream operations one client may have queued, at least 1; a submission beyond waits (default 65536)");

/* Take a place in @space's queue bound if one is free. */
static bool cufab_queue_take(struct cufab_stream_space *space)
{
	unsigned int limit = max(READ_ONCE(cufab_stream_queue_max), 1U);
	int old = atomic_read(&space->queued);

	do {
		if ((unsigned int)old >= limit)
			return false;
	} while (!atomic_try_cmpxchg(&space->queued, &old, old + 1));
	return true;
}

/**
 * cufab_stream_queue_reserve() - a place for one more operation
 * @space: the submitting client's
 *
 * Waits while the client has stream_queue_max operations queued.
 *
 * Return: 0 with a place held (cufab_op.reserved, or
 * cufab_stream_queue_unreserve()), or -ERESTARTSYS on a signal.
 */
int cufab_stream_queue_reserve(struct cufab_stream_space *space)
{
	return wait_event_interruptible(space->depth_wq,
					cufab_queue_take(space));
}

/* Give back @n places of the queue bound. */
void cufab_stream_queue_unreserve(struct cufab_stream_space *space, u32 n)
{
	atomic_sub(n, &space->queued);
	/* pairs with the barrier of the waiter's prepare_to_wait() */
	if (wq_has_sleeper(&space->depth_wq))
		wake_up(&space->depth_wq);
}

/*
 * Each GPU's engine is three queues of CUFAB_COPY_ENGINES workers: one for
 * streams of the default priority, two for streams of greater priority
 * (cuStreamCreateWithPriority below 0). Work of a greater-priority stream
 * never waits behind queued work of default-priority streams: what a
 * stream priority means when work contends for the engines. The finer
 * levels below 0 share one class, as levels are hints in CUDA.
 *
 * Workers of the queue of a process with CAP_SYS_NICE are also scheduled
 * first (WQ_HIGHPRI, nice -20); everybody else's greater-priority work
 * runs at nice 0, as their own threads could: a stream priority must not
 * be a way around setpriority()'s rule.
 */
enum cufab_engine_class {
	CUFAB_ENGINE_DEFAULT,
	CUFAB_ENGINE_PRIO,	/* greater priority, nice 0 */
	CUFAB_ENGINE_HIGHPRI,	/* greater priority, CAP_SYS_NICE: nice -20 */
	CUFAB_ENGINE_CLASSES,
};

static const char *const cufab_engine_names[CUFAB_ENGINE_CLASSES] = {
	[CUFAB_ENGINE_DEFAULT] = "cufab-ce%u",
	[CUFAB_ENGINE_PRIO] = "cufab-ce%u-pri",
	[CUFAB_ENGINE_HIGHPRI] = "cufab-ce%u-hi",
};

static struct workqueue_struct *
cufab_engines[CUFAB_ENGINE_CLASSES][CUFAB_MAX_GPUS];
static DEFINE_MUTEX(cufab_engines_lock);

/**
 * cufab_engine_get() - the engine of GPU @dev, started on first use
 * @dev: kernel GPU index
 * @priority: the stream's, CUFAB_STREAM_PRIO_GREATEST..0
 *
 * Context: the process creating the stream (its CAP_SYS_NICE decides).
 * Return: its workqueue for that priority, or ERR_PTR(-ENOMEM).
 */
struct workqueue_struct *cufab_engine_get(u32 dev, s32 priority)
{
	enum cufab_engine_class c = CUFAB_ENGINE_DEFAULT;
	struct workqueue_struct *wq;

	if (WARN_ON(dev >= CUFAB_MAX_GPUS))
		return ERR_PTR(-EINVAL);
	if (priority < 0)
		c = capable(CAP_SYS_NICE) ? CUFAB_ENGINE_HIGHPRI :
		    CUFAB_ENGINE_PRIO;
	wq = READ_ONCE(cufab_engines[c][dev]);
	if (wq)
		return wq;
	mutex_lock(&cufab_engines_lock);
	wq = cufab_engines[c][dev];
	if (!wq) {
		wq = alloc_workqueue(cufab_engine_names[c], WQ_UNBOUND |
				     (c == CUFAB_ENGINE_HIGHPRI ?
				      WQ_HIGHPRI : 0),
				     CUFAB_COPY_ENGINES, dev);
		if (wq)
			WRITE_ONCE(cufab_engines[c][dev], wq);
	}
	mutex_unlock(&cufab_engines_lock);
	return wq ?: ERR_PTR(-ENOMEM);
}

/* Module exit: every client is gone, so no stream has work queued. */
void cufab_engine_exit(void)
{
	unsigned int i, c;

	for (c = 0; c < CUFAB_ENGINE_CLASSES; c++)
		for (i = 0; i < CUFAB_MAX_GPUS; i++)
			if (cufab_engines[c][i])
				destroy_workqueue(cufab_engines[c][i]);
}

static const char *cufab_fence_driver_name(struct dma_fence *fence)
{
	return KBUILD_MODNAME;
}

static const char *cufab_fence_timeline_name(struct dma_fence *fence)
{
	return "stream";
}

static const struct dma_fence_ops cufab_fence_ops = {
	.get_driver_name = cufab_fence_driver_name,
	.get_timeline_name = cufab_fence_timeline_name,
};

#ifdef CUFAB_KUNIT
/* engine_test.c holds the window between the check and the stores open */
void (*cufab_slot_publish_hook)(u64 seq);
#endif

/**
 * cufab_slot_publish() - store a completion in a slot
 * @space: the slots' owner
 * @slot: index
 * @seq: the completed sequence number; a smaller one than the slot has
 *	changes nothing (records of one event may complete out of order)
 * @time_ns: completion time
 * @err: the error to show with it
 *
 * seq is stored last, with release order, for the lock-free readers.
 */
void cufab_slot_publish(struct cufab_stream_space *space, u32 slot, u64 seq,
			u64 time_ns, int err)
{
	struct cufab_seq_slot *s = &space->slots[slot];

	/*
	 * Two records of one event on two streams complete at once: the
	 * check and the stores are one step, or the older could pass the
	 * check, then store after the newer (seq going back, the newer's
	 * success read as the older's -ECANCELED).
	 */
	spin_lock(&space->slot_lock);
	if (seq <= s->seq) {
		spin_unlock(&space->slot_lock);
		return;
	}
#ifdef CUFAB_KUNIT
	if (READ_ONCE(cufab_slot_publish_hook))
		cufab_slot_publish_hook(seq);
#endif
	WRITE_ONCE(s->time_ns, time_ns);
	WRITE_ONCE(s->error, err);
	/* pairs with the acquire of seq by the library and the waiters */
	smp_store_release(&s->seq, seq);
	spin_unlock(&space->slot_lock);
	wake_up_all(&space->done_wq);
}

void cufab_op_free(struct cufab_op *op)
{
	unsigned int i;

	if (op->type && op->type->cleanup)
		op->type->cleanup(op);
	for (i = 0; i < op->nr_deps; i++)
		dma_fence_put(op->deps[i]);
	kfree(op->deps);
	if (op->fence && op->seq)
		dma_fence_put(&op->fence->base);
	else
		kfree(op->fence);	/* never initialised */
	if (op->stream && op->reserved)
		cufab_stream_queue_unreserve(op->stream->space,
					     op->width ?: 1);
	if (op->stream)
		cufab_stream_put(op->stream);
	kfree(op);
}

/*
 * The parts of the module that follow streams going busy and idle and the
 * memory their operations touch (struct cufab_stream_watch).
 */
static const struct cufab_stream_watch *const cufab_stream_watchers[] = {
	&cufab_managed_stream_watch,
	&cufab_stream_nl_watch,
};

/* One more operation queued or being queued; the first makes it busy. */
static void cufab_stream_busy_get(struct cufab_stream *stream)
{
	unsigned int i;

	if (atomic_inc_return(&stream->busy) != 1)
		return;
	for (i = 0; i < ARRAY_SIZE(cufab_stream_watchers); i++)
		if (cufab_stream_watchers[i]->busy)
			cufab_stream_watchers[i]->busy(stream);
}

static void cufab_stream_busy_put(struct cufab_stream *stream)
{
	unsigned int i;

	if (!atomic_dec_and_test(&stream->busy))
		return;
	for (i = 0; i < ARRAY_SIZE(cufab_stream_watchers); i++)
		if (cufab_stream_watchers[i]->idle)
			cufab_stream_watchers[i]->idle(stream);
}

/* @op is about to touch [addr, addr + length): may it? */
int cufab_stream_access(struct cufab_op *op, u64 addr, u64 length)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cufab_stream_watchers); i++) {
		if (!cufab_stream_watchers[i]->access)
			continue;
		ret = cufab_stream_watchers[i]->access(op, addr, length);
		if (ret)
			return ret;
	}
	return 0;
}

/* @op failed, and with it its stream: tell whoever follows streams. */
static void cufab_stream_failed(struct cufab_op *op)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cufab_stream_watchers); i++)
		if (cufab_stream_watchers[i]->failed)
			cufab_stream_watchers[i]->failed(op);
}

/**
 * cufab_stream_gone() - @stream is destroyed and drained
 * @stream: about to be freed (from its release)
 *
 * Every watcher forgets the stream. Context: process; may sleep.
 */
void cufab_stream_gone(struct cufab_stream *stream)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cufab_stream_watchers); i++)
		if (cufab_stream_watchers[i]->gone)
			cufab_stream_watchers[i]->gone(stream);
}

/**
 * cufab_op_add_dep() - @op waits for @f before it runs
 * @op: not queued yet, without dependencies so far
 * @f: a reference the operation takes over, or NULL for nothing to wait for
 *
 * For a type's @deps (struct cufab_op_type). Return: 0 or -ENOMEM (@f put).
 */
int cufab_op_add_dep(struct cufab_op *op, struct dma_fence *f)
{
	if (!f)
		return 0;
	op->deps = kmalloc_array(1, sizeof(*op->deps), GFP_KERNEL_ACCOUNT);
	if (!op->deps) {
		dma_fence_put(f);
		return -ENOMEM;
	}
	op->deps[op->nr_deps++] = f;
	return 0;
}

/* Run the stream's work on its engine; the queued work holds a reference. */
void cufab_stream_kick(struct cufab_stream *stream)
{
	kref_get(&stream->ref);
	if (!queue_delayed_work(stream->wq, &stream->work, 0))
		cufab_stream_put(stream);
}

/* Has every fence @op depends on signalled? */
static bool cufab_op_deps_done(const struct cufab_op *op)
{
	unsigned int i;

	for (i = 0; i < op->nr_deps; i++)
		if (!dma_fence_is_signaled(op->deps[i]))
			return false;
	return true;
}

/*
 * May the submitter run @op itself, now? Only an operation that costs
 * little (its type says so), alone on its stream with nothing to wait
 * for, and not while the race knob is to hold it back. This saves a trip
 * through the engine's workqueue, which an event record on an idle stream
 * would otherwise pay, wakeups and all. Context: stream->lock held.
 */
static bool cufab_op_claim(struct cufab_stream *stream, struct cufab_op *op)
{
	if (!op->type->run_inline || !list_is_singular(&stream->ops) ||
	    READ_ONCE(cufab_race_delay_us) || !cufab_op_deps_done(op))
		return false;
	/* the engine's work, should it look, sees a running head */
	op->next_dep = op->nr_deps;
	op->delayed = true;
	op->state = CUFAB_OP_RUNNING;
	op->status = stream->error;
	stream->running = op->type->name;
	return true;
}

/**
 * cufab_stream_queue_claim() - append an operation to its stream
 * @stream: the stream, with @op->stream a reference to it
 * @op: prepared, with @op->fence allocated but not initialised
 * @seq: set to the operation's sequence number
 * @aux: set to what @op->type->queued left in @op->aux
 * @claimed: NULL, or set to whether the caller now owns the running @op
 *	and must run it with cufab_op_run() (cufab_op_claim())
 *
 * Assigns the sequence number, makes the fence the stream's last and
 * lets the engine look at the queue. From here on the engine owns @op,
 * unless claimed.
 *
 * Return: 0, or -ESHUTDOWN for a cancelled stream (@op still the caller's).
 */
int cufab_stream_queue_claim(struct cufab_stream *stream, struct cufab_op *op,
			     u64 *seq, u64 *aux, bool *claimed)
{
	struct dma_fence *prev;
	bool mine = false, head;

	/* the watchers learn of the work before it can run */
	cufab_stream_busy_get(stream);
	spin_lock(&stream->lock);
	if (stream->dead) {
		spin_unlock(&stream->lock);
		cufab_stream_busy_put(stream);
		return -ESHUTDOWN;
	}
	stream->submitted += op->width ?: 1;
	op->seq = stream->submitted;
	dma_fence_init(&op->fence->base, &cufab_fence_ops, &op->fence->lock,
		       stream->fence_ctx, op->seq);
	if (op->type->queued)
		op->type->queued(op);
	*seq = op->seq;
	*aux = op->aux;
	prev = stream->last;
	stream->last = dma_fence_get(&op->fence->base);
	list_add_tail(&op->node, &stream->ops);
	stream->depth += op->width ?: 1;
	trace_cufab_stream_submit(op, 0);
	if (claimed)
		mine = cufab_op_claim(stream, op);
	/* behind another, it runs when that one completes (which kicks) */
	head = list_is_first(&op->node, &stream->ops);
	spin_unlock(&stream->lock);
	dma_fence_put(prev);
	if (claimed)
		*claimed = mine;
	if (!mine && head)
		cufab_stream_kick(stream);
	return 0;
}

/**
 * cufab_stream_idle() - has @stream nothing queued or running?
 * @stream: a referenced stream
 * @seq: set to its last sequence number, which has completed when idle
 *
 * For a type's @settled (struct cufab_op_type), under its own lock: an
 * idle stream would run an operation submitted now at once, so one that
 * changes nothing may complete without being queued.
 */
bool cufab_stream_idle(struct cufab_stream *stream, u64 *seq)
{
	bool idle;

	spin_lock(&stream->lock);
	/* completing removes an operation and publishes it in one step */
	idle = !stream->dead && list_empty(&stream->ops);
	*seq = stream->submitted;
	spin_unlock(&stream->lock);
	return idle;
}

/* cufab_stream_queue_claim() for the engine to run @op. */
int cufab_stream_queue(struct cufab_stream *stream, struct cufab_op *op,
		       u64 *seq, u64 *aux)
{
	return cufab_stream_queue_claim(stream, op, seq, aux, NULL);
}

/*
 * A dependency of a WAITING head signalled. Context: the signaller's,
 * under the dependency's fence lock, interrupts off.
 *
 * Once dep_fired is set the engine may run the operation, and the last
 * put of the stream takes a mutex: so the stream is read and referenced
 * first, and the engine waits out this callback (cufab_op_dep_settle())
 * before it runs the operation, whose reference then outlives ours.
 */
static void cufab_op_dep_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct cufab_op *op = container_of(cb, struct cufab_op, dep_cb);
	struct cufab_stream *stream = op->stream;

	kref_get(&stream->ref);
	WRITE_ONCE(op->dep_fired, true);
	/* the queued work holds the reference; never the last one here */
	if (!queue_delayed_work(stream->wq, &stream->work, 0))
		cufab_stream_put(stream);
}

/*
 * @op's dependency callback has fired: wait until it has returned (it
 * runs under the fence's lock), so that it never meets @op freed.
 */
static void cufab_op_dep_settle(struct cufab_op *op)
{
	struct dma_fence *dep = op->deps[op->next_dep];
	unsigned long flags;

	spin_lock_irqsave(dep->lock, flags);
	spin_unlock_irqrestore(dep->lock, flags);
}

/* Delay of the race-exposure knob for this operation, in microseconds. */
static unsigned int cufab_race_delay(const struct cufab_op *op)
{
	unsigned int max = READ_ONCE(cufab_race_delay_us);
	unsigned int seed = READ_ONCE(cufab_race_seed);

	if (!max || !seed)
		return max;
	/* slots, unlike uids, repeat from run to run of a program */
	return hash_64(((u64)op->stream->slot << 40) ^ op->seq ^
		       ((u64)seed << 20), 32) % (max + 1);
}

/*
 * The head operation if it may run now (it becomes RUNNING), else NULL:
 * no head, the head running or at the host thread, a dependency not
 * signalled (a callback then kicks the stream when it is), or the race
 * knob holding it back for *@delay microseconds.
 */
static struct cufab_op *cufab_stream_next(struct cufab_stream *stream,
					  unsigned int *delay)
{
	struct cufab_op *op;
	int ret;

	spin_lock(&stream->lock);
	op = list_first_entry_or_null(&stream->ops, struct cufab_op, node);
	if (stream->dead || !op)
		goto none;
	if (op->state == CUFAB_OP_WAITING && READ_ONCE(op->dep_fired)) {
		cufab_op_dep_settle(op);
		op->next_dep++;
		op->state = CUFAB_OP_QUEUED;
	}
	if (op->state == CUFAB_OP_PARKED && READ_ONCE(op->woken)) {
		WRITE_ONCE(op->woken, false);
		op->state = CUFAB_OP_QUEUED;
	}
	if (op->state != CUFAB_OP_QUEUED)
		goto none;
	while (op->next_dep < op->nr_deps) {
		op->dep_fired = false;
		ret = dma_fence_add_callback(op->deps[op->next_dep],
					     &op->dep_cb, cufab_op_dep_cb);
		if (!ret) {
			op->state = CUFAB_OP_WAITING;
			goto none;
		}
		op->next_dep++;
	}
	if (!op->delayed) {
		op->delayed = true;
		*delay = cufab_race_delay(op);
		if (*delay)
			goto none;
	}
	op->state = CUFAB_OP_RUNNING;
	op->status = stream->error;
	stream->running = op->type->name;
	spin_unlock(&stream->lock);
	return op;
none:
	spin_unlock(&stream->lock);
	return NULL;
}

static void cufab_stream_work(struct work_struct *work)
{
	struct cufab_stream *stream = container_of(to_delayed_work(work),
						   struct cufab_stream, work);
	unsigned int delay = 0;
	struct cufab_op *op;

	op = cufab_stream_next(stream, &delay);
	if (delay) {
		/* the engine moves on to other streams meanwhile */
		kref_get(&stream->ref);
		if (!queue_delayed_work(stream->wq, &stream->work,
					usecs_to_jiffies(delay)))
			cufab_stream_put(stream);
	}
	if (op)
		cufab_op_run(op);
	cufab_stream_put(stream);
}

/**
 * cufab_op_wake() - let a parked operation run again
 * @op: an operation whose type may park it, not yet freed (its type
 *	guarantees that until its @unpark or @cleanup)
 *
 * Context: any, hard interrupts included; takes no lock of ours.
 */
void cufab_op_wake(struct cufab_op *op)
{
	WRITE_ONCE(op->woken, true);
	cufab_stream_kick(op->stream);
}

/**
 * cufab_op_yield() - park @op, woken by the engine itself @us later
 * @op: running; its execute returns what this returns
 * @us: 0 to run again once the other streams' queued work had its turn
 *
 * For an operation that can go on but should not keep the worker: a long
 * copy between two pieces, or one backing off from a fault.
 *
 * Return: CUFAB_OP_PARK.
 */
int cufab_op_yield(struct cufab_op *op, unsigned int us)
{
	op->resume_us = us;
	WRITE_ONCE(op->woken, true);
	return CUFAB_OP_PARK;
}

/* Run @stream's work again @us from now, as cufab_stream_kick() does. */
static void cufab_stream_kick_later(struct cufab_stream *stream,
				    unsigned int us)
{
	kref_get(&stream->ref);
	if (!queue_delayed_work(stream->wq, &stream->work,
				usecs_to_jiffies(us)))
		cufab_stream_put(stream);
}

/*
 * @op's type says it cannot go on yet: hold it until woken. A stream
 * cancelled while it ran has passed its PARKED operations already: this
 * one completes cancelled now, before cufab_stream_cancel() returns.
 */
static void cufab_op_park(struct cufab_op *op)
{
	struct cufab_stream *stream = op->stream;
	unsigned int us = op->resume_us;
	bool dead, woken;

	spin_lock(&stream->lock);
	dead = stream->dead;
	if (!dead)
		op->state = CUFAB_OP_PARKED;
	/* PARKED, @op is the canceller's once the lock is dropped */
	woken = READ_ONCE(op->woken);
	spin_unlock(&stream->lock);
	if (dead)
		cufab_op_complete(op, -ECANCELED);
	/*
	 * a wake while it ran found it RUNNING: the kick found nothing to
	 * do; a yield is its own wake, @us later
	 */
	else if (woken)
		cufab_stream_kick_later(stream, us);
}

/**
 * cufab_op_run() - run a RUNNING operation and complete it
 * @op: the head of its stream, on the engine or claimed by its submitter
 *	(only operations that cost nothing, which never park)
 */
void cufab_op_run(struct cufab_op *op)
{
	int ret;

	if (op->status && op->type->skip_on_error)
		ret = op->status;
	else if (cufab_should_fail(CUFAB_FAULT_STREAM_EXEC))
		ret = -ENOMEM;
	else
		ret = op->type->execute(op);
	if (ret == CUFAB_OP_PARK)
		cufab_op_park(op);
	else if (ret != -EINPROGRESS)
		cufab_op_complete(op, ret);
}

/**
 * cufab_op_complete() - an operation is done
 * @op: off any host queue, owned by the caller
 * @err: 0 or how it failed (becomes the stream's error if it has none)
 *
 * Publishes the completion, signals the fence, frees the operation and
 * lets the stream's next head run.
 */
void cufab_op_complete(struct cufab_op *op, int err)
{
	struct cufab_stream *stream = op->stream;
	struct cufab_stream_space *space = stream->space;
	bool kick, failed = false;

	/*
	 * Idle before the completion is visible: a program that synchronized
	 * with its last operation finds the watchers' state (the CPU fence of
	 * managed memory) already lifted.
	 */
	cufab_stream_busy_put(stream);
	spin_lock(&stream->lock);
	if (err && !stream->error) {
		stream->error = err;
		/* a cancellation is the process's doing, not a failure */
		failed = err != -ECANCELED;
		if (failed)
			cufab_pr_info(stream->client,
				      "stream %llu: %s (seq %llu) failed: %d; the stream reports it from now on\n",
				      stream->uid, op->type->name, op->seq,
				      err);
	}
	list_del(&op->node);
	stream->depth -= op->width ?: 1;
	if (op->state == CUFAB_OP_RUNNING || op->state == CUFAB_OP_HOSTRUN ||
	    op->state == CUFAB_OP_PARKED)
		stream->running = NULL;
	cufab_slot_publish(space, stream->slot, op->seq, ktime_get_ns(),
			   stream->error);
	/*
	 * A cancelled stream runs nothing more; a kick would only hold a
	 * reference past cufab_stream_cancel(), which its callers rely on
	 * being the last engine work of the stream.
	 */
	kick = !list_empty(&stream->ops) && !stream->dead;
	spin_unlock(&stream->lock);
	if (err)
		dma_fence_set_error(&op->fence->base, err);
	trace_cufab_stream_complete(op, err);
	if (failed)
		cufab_stream_failed(op);
	dma_fence_signal(&op->fence->base);
	if (kick)
		cufab_stream_kick(stream);
	cufab_op_free(op);
}

/* Take @stream's host operations off the host queue and tokens. */
static void cufab_stream_take_host(struct cufab_stream *stream,
				   struct list_head *out)
{
	struct cufab_stream_space *space = stream->space;
	struct cufab_op *op, *tmp;
	unsigned long index;

	xa_lock(&space->host_tokens);
	list_for_each_entry_safe(op, tmp, &space->host_queue, host_node) {
		if (op->stream != stream)
			continue;
		list_del(&op->host_node);
		list_add_tail(&op->host_node, out);
	}
	xa_for_each(&space->host_tokens, index, op) {
		if (op->stream != stream)
			continue;
		__xa_erase(&space->host_tokens, index);
		list_add_tail(&op->host_node, out);
	}
	xa_unlock(&space->host_tokens);
}

/**
 * cufab_stream_cancel() - stop a stream: nothing queued runs any more
 * @stream: a referenced stream
 * @err: the error its cancelled operations complete with
 *
 * Waits for the operation the engine is running; cancelled operations
 * still publish their completion and signal their fences (with @err), so
 * no waiter, here or in another stream, sleeps forever.
 */
void cufab_stream_cancel(struct cufab_stream *stream, int err)
{
	struct cufab_op *op, *tmp;
	LIST_HEAD(cancelled);

	spin_lock(&stream->lock);
	stream->dead = true;
	list_for_each_entry_safe(op, tmp, &stream->ops, node) {
		if (op->state == CUFAB_OP_WAITING)
			dma_fence_remove_callback(op->deps[op->next_dep],
						  &op->dep_cb);
		if (op->state == CUFAB_OP_PARKED && op->type->unpark)
			op->type->unpark(op);
		if (op->state == CUFAB_OP_QUEUED ||
		    op->state == CUFAB_OP_WAITING ||
		    op->state == CUFAB_OP_PARKED)
			list_add_tail(&op->host_node, &cancelled);
	}
	spin_unlock(&stream->lock);

	/* the running operation completes; a host one goes to the queue */
	if (cancel_delayed_work_sync(&stream->work))
		cufab_stream_put(stream);
	cufab_stream_take_host(stream, &cancelled);

	list_for_each_entry_safe(op, tmp, &cancelled, host_node)
		cufab_op_complete(op, err);
}

/*
 * The operation types by CUFAB_OP_*, each defined beside its concern: the
 * engine runs them and knows none of them.
 */
const struct cufab_op_type *const cufab_op_types[CUFAB_OP_MAX] = {
	[CUFAB_OP_COPY] = &cufab_op_copy,
	[CUFAB_OP_SET] = &cufab_op_set,
	[CUFAB_OP_HOST] = &cufab_op_host,
	[CUFAB_OP_EVENT_RECORD] = &cufab_op_record,
	[CUFAB_OP_EVENT_WAIT] = &cufab_op_wait,
	[CUFAB_OP_ATTACH] = &cufab_op_attach,
	[CUFAB_OP_STREAM_WAIT] = &cufab_op_stream_wait,
	[CUFAB_OP_PREFETCH] = &cufab_op_prefetch,
};

/**
 * cufab_stream_init() - the engine's part of a new stream
 * @stream: being made by its owner (stream.c)
 * @ops: how the owner frees it once the last reference is gone
 *
 * The stream starts with one reference, its maker's.
 */
void cufab_stream_init(struct cufab_stream *stream,
		       const struct cufab_stream_ops *ops)
{
	kref_init(&stream->ref);
	stream->owner = ops;
	INIT_DELAYED_WORK(&stream->work, cufab_stream_work);
}

static void cufab_stream_last_put(struct kref *ref)
{
	struct cufab_stream *stream = container_of(ref, struct cufab_stream,
						   ref);

	stream->owner->release(stream);
}

/*
 * Drop a reference: the stream object's, an operation's or a queued
 * work's. Process context only: the owner's release may sleep.
 */
void cufab_stream_put(struct cufab_stream *stream)
{
	kref_put(&stream->ref, cufab_stream_last_put);
}
