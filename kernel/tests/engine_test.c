// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the stream engine of kernel/engine.c. Operations of a stream run
 * in order and publish their sequence numbers; a dependency on another
 * stream's fence holds an operation until it signals; an error is sticky
 * and skips later copies; cancelling a stream completes everything
 * queued, the host operation at the head included, with -ECANCELED; a
 * parked operation holds its stream, not the engine, until woken.
 *
 * The operations here are a test type that records the order it ran in,
 * and the real host type to hold a stream at its head.
 *
 * Each case's client is a KUnit resource: its teardown runs however the
 * case ends and waits at most ENGINE_RELEASE_TIMEOUT for the engine to
 * release the streams, failing the case instead of hanging the load.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "cufab.h"

#define NOPS	32

struct engine_log {
	spinlock_t lock;	/* the rest */
	u64 seq[NOPS * 2];
	unsigned int n;
	int fail_seq;		/* this seq returns -EIO */
};

static struct engine_log *engine_log;

static int test_execute(struct cufab_op *op)
{
	struct engine_log *log = engine_log;

	spin_lock(&log->lock);
	if (log->n < ARRAY_SIZE(log->seq))
		log->seq[log->n++] = op->seq;
	spin_unlock(&log->lock);
	return op->seq == log->fail_seq ? -EIO : 0;
}

static const struct cufab_op_type test_op_type = {
	.name = "test",
	.skip_on_error = true,
	.execute = test_execute,
};

/*
 * How long a case's teardown waits for the engine to release its streams.
 * A case that leaves an operation unfinished (claimed and never run, at
 * the host thread and never completed) or a reference unput would
 * otherwise hang the module's load, and the boot with it, in the client's
 * teardown (cufab_streams_client_free() waits without limit, as a
 * process's release must).
 */
#define ENGINE_RELEASE_TIMEOUT	(30 * HZ)

/*
 * A client and its stream space, torn down when the case ends however it
 * ends (a failed assertion included): a KUnit resource.
 */
struct engine_env {
	struct kunit *test;
	struct cufab_client *client;
	struct cufab_stream_space *space;
};

/* Has every stream of @env been released, within @timeout jiffies? */
static bool engine_env_released(struct engine_env *env, long timeout)
{
	struct cufab_stream_space *space = env->space;

	return !space ||
	       wait_var_event_timeout(&space->nr_streams,
				      !atomic_read(&space->nr_streams),
				      timeout);
}

/* Cancel what is left, wait (bounded) for the releases, free the client. */
static void engine_env_fini(struct engine_env *env)
{
	struct cufab_stream_space *space = env->space;

	if (!env->client)
		return;
	cufab_stream_work_client_part.teardown(env->client);
	if (!engine_env_released(env, ENGINE_RELEASE_TIMEOUT)) {
		KUNIT_FAIL(env->test,
			   "teardown: %d stream(s) of the case still unreleased %d s after their cancellation (an operation never completed, or a reference the case kept); the client is leaked so that the module load goes on",
			   atomic_read(&space->nr_streams),
			   ENGINE_RELEASE_TIMEOUT / HZ);
		env->client = NULL;
		return;
	}
	cufab_client_free(env->client);
	env->client = NULL;
}

static int engine_env_res_init(struct kunit_resource *res, void *env)
{
	res->data = env;
	return 0;
}

static void engine_env_res_free(struct kunit_resource *res)
{
	engine_env_fini(res->data);
	kfree(res->data);
}

/*
 * A fresh client and stream space. What the engine's operations of the
 * case use (engine_log, a hold or park state) is allocated before it, so
 * that it outlives the teardown, which KUnit runs in reverse order.
 */
static struct engine_env *engine_env_new(struct kunit *test)
{
	struct engine_env *env;

	engine_log = kunit_kzalloc(test, sizeof(*engine_log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, engine_log);
	spin_lock_init(&engine_log->lock);
	env = kzalloc(sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->test = test;
	if (!kunit_alloc_resource(test, engine_env_res_init,
				  engine_env_res_free, GFP_KERNEL, env)) {
		kfree(env);
		KUNIT_ASSERT_FAILURE(test, "no memory for the test resource");
	}
	env->client = cufab_client_alloc();
	if (IS_ERR(env->client)) {
		env->client = NULL;
		KUNIT_ASSERT_FAILURE(test, "cufab_client_alloc() failed");
	}
	env->space = cufab_stream_space(env->client);
	KUNIT_ASSERT_FALSE(test, IS_ERR(env->space));
	return env;
}

static struct cufab_stream *env_stream(struct kunit *test,
				       struct engine_env *env)
{
	struct cufab_stream *s;

	s = cufab_stream_new(env->client, env->space, 1, 0,
			     CUFAB_STREAM_NON_BLOCKING, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	mutex_lock(&env->space->lock);
	list_add_tail(&s->node, &env->space->streams);
	mutex_unlock(&env->space->lock);
	return s;
}

static const struct cufab_op_type test_inline_type = {
	.name = "test inline",
	.run_inline = true,
	.execute = test_execute,
};

/* An operation of @type for @s, not queued yet. */
static struct cufab_op *env_op(struct kunit *test, struct cufab_stream *s,
			       const struct cufab_op_type *type,
			       struct dma_fence *dep)
{
	struct cufab_op *op;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, op);
	INIT_LIST_HEAD(&op->node);
	INIT_LIST_HEAD(&op->host_node);
	op->type = type;
	op->fence = kzalloc(sizeof(*op->fence), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, op->fence);
	spin_lock_init(&op->fence->lock);
	if (type == cufab_op_types[CUFAB_OP_HOST])
		op->u.host.fn = 1;
	if (dep) {
		op->deps = kmalloc_array(1, sizeof(*op->deps), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, op->deps);
		op->deps[op->nr_deps++] = dma_fence_get(dep);
	}
	kref_get(&s->ref);
	op->stream = s;
	return op;
}

/* Queue an operation of @type; its fence, referenced, in *@fence. */
static u64 env_queue(struct kunit *test, struct cufab_stream *s,
		     const struct cufab_op_type *type, struct dma_fence *dep,
		     struct dma_fence **fence)
{
	struct cufab_op *op = env_op(test, s, type, dep);
	u64 seq, aux;

	KUNIT_ASSERT_EQ(test, 0, cufab_stream_queue(s, op, &seq, &aux));
	if (fence) {
		spin_lock(&s->lock);
		*fence = dma_fence_get(s->last);
		spin_unlock(&s->lock);
	}
	return seq;
}

static u64 slot_seq(struct cufab_stream *s)
{
	/* acquire, as the library reads it */
	return smp_load_acquire(&s->space->slots[s->slot].seq);
}

/* Operations of one stream run in submission order. */
static void runs_in_order(struct kunit *test)
{
	struct engine_env *env;
	struct cufab_stream *s;
	struct dma_fence *last;
	unsigned int i;

	env = engine_env_new(test);
	s = env_stream(test, env);
	for (i = 0; i < NOPS; i++)
		env_queue(test, s, &test_op_type, NULL, i == NOPS - 1 ?
			  &last : NULL);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(last, false, 10 * HZ),
			0L);
	KUNIT_EXPECT_EQ(test, 0, last->error);
	dma_fence_put(last);
	KUNIT_EXPECT_EQ(test, (u64)NOPS, slot_seq(s));
	KUNIT_ASSERT_EQ(test, NOPS, engine_log->n);
	for (i = 0; i < NOPS; i++)
		KUNIT_EXPECT_EQ(test, (u64)i + 1, engine_log->seq[i]);
	cufab_stream_put(s);
	engine_env_fini(env);
}

/*
 * A host operation holds stream a; b's operation depends on a's next
 * fence and must wait for it, then runs.
 */
static void dependency_holds(struct kunit *test)
{
	const struct cufab_op_type *host = cufab_op_types[CUFAB_OP_HOST];
	struct dma_fence *fa, *fb;
	struct cufab_stream *a, *b;
	struct engine_env *env;
	struct cufab_op *op;

	env = engine_env_new(test);
	a = env_stream(test, env);
	b = env_stream(test, env);
	env_queue(test, a, host, NULL, NULL);
	env_queue(test, a, &test_op_type, NULL, &fa);
	env_queue(test, b, &test_op_type, fa, &fb);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, dma_fence_is_signaled(fb));
	KUNIT_EXPECT_EQ(test, 0ULL, slot_seq(b));

	/* what the host thread does: take the operation, report it done */
	op = NULL;
	while (!op) {
		xa_lock(&env->space->host_tokens);
		op = list_first_entry_or_null(&env->space->host_queue,
					      struct cufab_op, host_node);
		if (op)
			list_del_init(&op->host_node);
		xa_unlock(&env->space->host_tokens);
		if (!op)
			usleep_range(5000, 6000);
	}
	cufab_op_complete(op, 0);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(fb, false, 10 * HZ), 0L);
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(fa));
	KUNIT_EXPECT_EQ(test, 2ULL, slot_seq(a));
	KUNIT_EXPECT_EQ(test, 1ULL, slot_seq(b));
	dma_fence_put(fa);
	dma_fence_put(fb);
	cufab_stream_put(a);
	cufab_stream_put(b);
	engine_env_fini(env);
}

/* A failure is the stream's from then on; later test ops do not run. */
static void error_is_sticky(struct kunit *test)
{
	struct cufab_stream_space *space;
	struct engine_env *env;
	struct cufab_stream *s;
	struct dma_fence *last;

	env = engine_env_new(test);
	engine_log->fail_seq = 2;
	s = env_stream(test, env);
	space = s->space;
	env_queue(test, s, &test_op_type, NULL, NULL);
	env_queue(test, s, &test_op_type, NULL, NULL);
	env_queue(test, s, &test_op_type, NULL, &last);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(last, false, 10 * HZ),
			0L);
	KUNIT_EXPECT_EQ(test, -EIO, last->error);
	KUNIT_EXPECT_EQ(test, 2U, engine_log->n);
	KUNIT_EXPECT_EQ(test, 3ULL, slot_seq(s));
	KUNIT_EXPECT_EQ(test, -EIO, READ_ONCE(space->slots[s->slot].error));
	dma_fence_put(last);
	cufab_stream_put(s);
	engine_env_fini(env);
}

/* Cancel: everything queued completes with -ECANCELED, nothing runs. */
static void cancel_completes_all(struct kunit *test)
{
	const struct cufab_op_type *host = cufab_op_types[CUFAB_OP_HOST];
	struct dma_fence *fh, *last, *dep_b;
	struct cufab_stream *a, *b;
	struct engine_env *env;

	env = engine_env_new(test);
	a = env_stream(test, env);
	b = env_stream(test, env);
	env_queue(test, a, host, NULL, &fh);
	env_queue(test, a, &test_op_type, NULL, NULL);
	env_queue(test, a, &test_op_type, NULL, &last);
	/* b waits for a: cancelling a must wake it */
	env_queue(test, b, &test_op_type, last, &dep_b);
	msleep(20);
	cufab_stream_cancel(a, -ECANCELED);
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(fh));
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(last));
	KUNIT_EXPECT_EQ(test, -ECANCELED, last->error);
	KUNIT_EXPECT_EQ(test, 3ULL, slot_seq(a));
	/*
	 * b's operation runs once a's fence signalled, possibly before the
	 * check above returns: so count after it, when only b's may have run.
	 */
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(dep_b, false, 10 * HZ),
			0L);
	KUNIT_EXPECT_EQ(test, 1U, engine_log->n);
	dma_fence_put(fh);
	dma_fence_put(last);
	dma_fence_put(dep_b);
	cufab_stream_put(a);
	cufab_stream_put(b);
	engine_env_fini(env);
}

/* A slot never goes back: an older completion changes nothing. */
static void slot_is_monotonic(struct kunit *test)
{
	struct engine_env *env;
	struct cufab_seq_slot *s;
	int slot;

	env = engine_env_new(test);
	slot = cufab_slot_alloc(env->space);
	KUNIT_ASSERT_GE(test, slot, 0);
	s = &env->space->slots[slot];
	cufab_slot_publish(env->space, slot, 5, 500, 0);
	cufab_slot_publish(env->space, slot, 3, 300, -EIO);
	KUNIT_EXPECT_EQ(test, 5ULL, s->seq);
	KUNIT_EXPECT_EQ(test, 500ULL, s->time_ns);
	KUNIT_EXPECT_EQ(test, 0, s->error);
	cufab_slot_publish(env->space, slot, 6, 600, -EIO);
	KUNIT_EXPECT_EQ(test, 6ULL, s->seq);
	KUNIT_EXPECT_EQ(test, -EIO, s->error);
	cufab_slot_free(env->space, slot);
	engine_env_fini(env);
}

/*
 * An operation that costs nothing, alone on its stream, is its
 * submitter's to run; behind a queued operation it is the engine's.
 */
static void inline_when_idle(struct kunit *test)
{
	struct cufab_op *op, *held;
	struct engine_env *env;
	struct cufab_stream *s;
	bool claimed;
	u64 seq, aux;

	env = engine_env_new(test);
	s = env_stream(test, env);
	op = env_op(test, s, &test_inline_type, NULL);
	KUNIT_ASSERT_EQ(test, 0, cufab_stream_queue_claim(s, op, &seq, &aux,
							  &claimed));
	KUNIT_ASSERT_TRUE(test, claimed);
	KUNIT_EXPECT_EQ(test, 0ULL, slot_seq(s));
	cufab_op_run(op);
	KUNIT_EXPECT_EQ(test, seq, slot_seq(s));
	KUNIT_EXPECT_EQ(test, 1U, engine_log->n);

	/*
	 * a host operation is its submitter's to hand to the host thread too,
	 * and then holds the stream until HOSTFN: the next one waits its turn
	 */
	held = env_op(test, s, cufab_op_types[CUFAB_OP_HOST], NULL);
	KUNIT_ASSERT_EQ(test, 0, cufab_stream_queue_claim(s, held, &seq, &aux,
							  &claimed));
	KUNIT_ASSERT_TRUE(test, claimed);
	cufab_op_run(held);
	op = env_op(test, s, &test_inline_type, NULL);
	KUNIT_ASSERT_EQ(test, 0, cufab_stream_queue_claim(s, op, &seq, &aux,
							  &claimed));
	KUNIT_EXPECT_FALSE(test, claimed);
	cufab_stream_put(s);
	/* cancels both, the host-queued operation included */
	engine_env_fini(env);
}

/* A test operation that runs until the test lets it go. */
struct engine_hold {
	struct completion started;
	struct completion go;
};

static struct engine_hold *engine_hold;

static int hold_execute(struct cufab_op *op)
{
	complete(&engine_hold->started);
	/* a case that never lets go fails, and its teardown goes on */
	if (!wait_for_completion_timeout(&engine_hold->go,
					 ENGINE_RELEASE_TIMEOUT))
		return -ETIMEDOUT;
	return 0;
}

static const struct cufab_op_type test_hold_type = {
	.name = "test hold",
	.execute = hold_execute,
};

/*
 * The engine's work drops the last reference of a stream the process has
 * destroyed, and is still releasing it when the client goes: the teardown
 * finds no reference to take, yet must not free the space or the client
 * under the release. space->lock holds the release until the teardown is
 * about to look; whichever then takes the lock first, the stream is freed
 * when the teardown returns.
 */
static void teardown_waits_for_release(struct kunit *test)
{
	u64 live = cufab_live_objects();
	struct engine_env *env;
	struct cufab_stream *s;
	bool started;
	int i;

	/* before the client: the operation may use it until the teardown */
	engine_hold = kunit_kzalloc(test, sizeof(*engine_hold), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, engine_hold);
	init_completion(&engine_hold->started);
	init_completion(&engine_hold->go);
	env = engine_env_new(test);
	s = env_stream(test, env);
	env_queue(test, s, &test_hold_type, NULL, NULL);
	started = wait_for_completion_timeout(&engine_hold->started, 10 * HZ);
	/* what cuStreamDestroy drops: the work holds the rest */
	cufab_stream_put(s);
	mutex_lock(&env->space->lock);
	complete(&engine_hold->go);
	/* s is not freed before its release has taken the lock */
	for (i = 0; i < 1000 && kref_read(&s->ref); i++)
		usleep_range(5000, 6000);
	KUNIT_EXPECT_EQ(test, 0U, kref_read(&s->ref));
	mutex_unlock(&env->space->lock);
	engine_env_fini(env);
	KUNIT_EXPECT_TRUE(test, started);
	KUNIT_EXPECT_EQ(test, live, cufab_live_objects());
}

static const char *test_fence_name(struct dma_fence *fence)
{
	return "cufab-kunit";
}

static const struct dma_fence_ops test_fence_ops = {
	.get_driver_name = test_fence_name,
	.get_timeline_name = test_fence_name,
};

/* Has the head of @s taken a callback on its dependency? */
static bool head_waiting(struct cufab_stream *s)
{
	struct cufab_op *op;
	bool waiting;

	spin_lock(&s->lock);
	op = list_first_entry_or_null(&s->ops, struct cufab_op, node);
	waiting = op && op->state == CUFAB_OP_WAITING;
	spin_unlock(&s->lock);
	return waiting;
}

/*
 * The dependency callback of a waiting head runs in the signaller, under
 * the fence's lock, and reads the operation's stream. The engine must
 * not run (and free) the operation until the callback has returned: the
 * test signals the fence holding its lock, as dma_fence_signal() does
 * around the callbacks, and the operation must not run meanwhile.
 */
static void dep_callback_done_before_run(struct kunit *test)
{
	struct dma_fence *last;
	struct engine_env *env;
	struct cufab_stream *s;
	struct cufab_fence *dep;
	unsigned int ran = 0;
	unsigned long flags;
	int i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU for the engine");
	env = engine_env_new(test);
	/* freed by its last put, as any fence */
	dep = kzalloc(sizeof(*dep), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dep);
	spin_lock_init(&dep->lock);
	dma_fence_init(&dep->base, &test_fence_ops, &dep->lock,
		       dma_fence_context_alloc(1), 1);
	s = env_stream(test, env);
	env_queue(test, s, &test_op_type, &dep->base, &last);
	for (i = 0; i < 1000 && !head_waiting(s); i++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, head_waiting(s));

	spin_lock_irqsave(&dep->lock, flags);
	dma_fence_signal_locked(&dep->base);
	/* the callback has kicked the engine: give it 100 ms to misbehave */
	for (i = 0; i < 100 && !ran; i++) {
		mdelay(1);
		ran = READ_ONCE(engine_log->n);
	}
	spin_unlock_irqrestore(&dep->lock, flags);

	KUNIT_EXPECT_EQ_MSG(test, 0U, ran,
			    "the operation ran under its dependency's callback");
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(last, false, 10 * HZ),
			0L);
	KUNIT_EXPECT_EQ(test, 1U, engine_log->n);
	dma_fence_put(last);
	cufab_stream_put(s);
	engine_env_fini(env);
	dma_fence_put(&dep->base);
}

/* Two publishers of one slot, an older record racing a newer one. */
struct publish_race {
	struct cufab_stream_space *space;
	int slot;
	atomic_t go;		/* round the older publisher may run */
	atomic_t done;		/* rounds it has finished */
	atomic_t held;		/* the older record the hook holds */
	atomic_t newer;		/* the newer record published */
	unsigned int rounds;
};

/* The older record of each round, cancelled: it must change nothing. */
static int publish_older(void *arg)
{
	struct publish_race *r = arg;
	unsigned int k;

	for (k = 1; k <= r->rounds; k++) {
		/* a yield, should the test thread share this CPU */
		while (atomic_read(&r->go) < k && !kthread_should_stop())
			cond_resched();
		if (kthread_should_stop())
			break;
		ndelay((k * 7) % 5 * 20);
		cufab_slot_publish(r->space, r->slot, 2 * k - 1, 0,
				   -ECANCELED);
		atomic_set(&r->done, k);
	}
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

/*
 * The race's environment and slot, and its older publisher bound to
 * another CPU, created but not woken.
 */
static struct task_struct *publish_race_start(struct kunit *test,
					      struct engine_env *env,
					      struct publish_race *r)
{
	struct task_struct *t;
	unsigned int cpu;

	r->space = env->space;
	r->slot = cufab_slot_alloc(env->space);
	KUNIT_ASSERT_GE(test, r->slot, 0);
	atomic_set(&r->go, 0);
	atomic_set(&r->done, 0);
	atomic_set(&r->held, 0);
	atomic_set(&r->newer, 0);
	cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	t = kthread_create(publish_older, r, "cufab-kunit-pub");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	return t;
}

/* Round @k left the slot at its newer record: its time, no error. */
static bool publish_round_ok(const struct cufab_seq_slot *s, unsigned int k)
{
	return READ_ONCE(s->seq) == 2 * k && !READ_ONCE(s->error) &&
	       READ_ONCE(s->time_ns) == 2 * k;
}

static void publish_race_end(struct kunit *test, struct engine_env *env,
			     struct publish_race *r, struct task_struct *t,
			     unsigned int bad, unsigned int rounds)
{
	kthread_stop(t);
	KUNIT_EXPECT_EQ_MSG(test, 0U, bad,
			    "%u of %u rounds left the slot at the older record",
			    bad, rounds);
	cufab_slot_free(env->space, r->slot);
	engine_env_fini(env);
}

/*
 * Records of one event on two streams complete at once, the newer one
 * successful: whatever the interleaving, the slot ends at the newer
 * number, with its time and no error.
 */
static void slot_publish_concurrent(struct kunit *test)
{
	struct publish_race r = { .rounds = 20000 };
	unsigned long end = jiffies + 3 * HZ;
	unsigned int k, bad = 0;
	struct task_struct *t;
	struct engine_env *env;
	struct cufab_seq_slot *s;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	env = engine_env_new(test);
	t = publish_race_start(test, env, &r);
	s = &env->space->slots[r.slot];
	wake_up_process(t);
	for (k = 1; k <= r.rounds && time_before(jiffies, end); k++) {
		atomic_set(&r.go, k);
		ndelay((k * 3) % 5 * 20);
		cufab_slot_publish(env->space, r.slot, 2 * k, 2 * k, 0);
		while (atomic_read(&r.done) < k)
			cond_resched();
		if (!publish_round_ok(s, k))
			bad++;
		/* the next round starts where this one must have ended */
		WRITE_ONCE(s->error, 0);
		WRITE_ONCE(s->time_ns, 2 * k);
		WRITE_ONCE(s->seq, 2 * k);
	}
	publish_race_end(test, env, &r, t, bad, k - 1);
}

static struct publish_race *publish_window_race;

/*
 * cufab_slot_publish_hook: the older (odd) record, past the check, waits
 * for the newer to be published before it stores, or 5 ms if the newer
 * cannot be (it waits for the older: the writers are serialised).
 */
static void publish_hold_older(u64 seq)
{
	struct publish_race *r = publish_window_race;
	u64 end = ktime_get_ns() + 5 * NSEC_PER_MSEC;

	if (!(seq & 1))
		return;
	atomic_set(&r->held, seq);
	while (atomic_read(&r->newer) <= seq && ktime_get_ns() < end)
		cpu_relax();
}

/*
 * slot_publish_concurrent with the window held open: the interleaving
 * that race needs luck for (the older record checked, then stored after
 * the newer) is tried in every round, so that unserialised writers fail
 * here every time, under TCG too.
 */
static void slot_publish_window(struct kunit *test)
{
	struct publish_race r = { .rounds = 50 };
	unsigned long end = jiffies + 3 * HZ;
	unsigned int k, bad = 0;
	struct task_struct *t;
	struct engine_env *env;
	struct cufab_seq_slot *s;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	env = engine_env_new(test);
	t = publish_race_start(test, env, &r);
	s = &env->space->slots[r.slot];
	publish_window_race = &r;
	WRITE_ONCE(cufab_slot_publish_hook, publish_hold_older);
	wake_up_process(t);
	for (k = 1; k <= r.rounds && time_before(jiffies, end); k++) {
		atomic_set(&r.go, k);
		while (atomic_read(&r.held) < 2 * k - 1)
			cond_resched();
		cufab_slot_publish(env->space, r.slot, 2 * k, 2 * k, 0);
		atomic_set(&r.newer, 2 * k);
		while (atomic_read(&r.done) < k)
			cond_resched();
		if (!publish_round_ok(s, k))
			bad++;
	}
	WRITE_ONCE(cufab_slot_publish_hook, NULL);
	publish_race_end(test, env, &r, t, bad, k - 1);
}

/* A test operation that parks until engine_park->ready, counting. */
struct engine_park {
	atomic_t runs;
	atomic_t unparks;
	bool ready;
};

static struct engine_park *engine_park;

static int park_execute(struct cufab_op *op)
{
	atomic_inc(&engine_park->runs);
	return READ_ONCE(engine_park->ready) ? 0 : CUFAB_OP_PARK;
}

static void park_unpark(struct cufab_op *op)
{
	atomic_inc(&engine_park->unparks);
}

/* Before the client: a parked operation may be unparked by its teardown. */
static struct engine_park *engine_park_new(struct kunit *test)
{
	engine_park = kunit_kzalloc(test, sizeof(*engine_park), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, engine_park);
	return engine_park;
}

static const struct cufab_op_type test_park_type = {
	.name = "test park",
	.execute = park_execute,
	.unpark = park_unpark,
};

/* Wait until the head of @s is parked; false after 10 s. */
static bool head_parked(struct cufab_stream *s)
{
	struct cufab_op *op;
	bool parked = false;
	int i;

	for (i = 0; i < 10000 && !parked; i++) {
		spin_lock(&s->lock);
		op = list_first_entry_or_null(&s->ops, struct cufab_op, node);
		parked = op && op->state == CUFAB_OP_PARKED;
		spin_unlock(&s->lock);
		if (!parked)
			usleep_range(1000, 2000);
	}
	return parked;
}

/*
 * A parked operation holds its stream's later work but not the engine
 * (another stream runs meanwhile), runs again only when woken, and then
 * lets the stream go on in order.
 */
static void parked_holds_stream_until_woken(struct kunit *test)
{
	struct cufab_stream *s, *other;
	struct dma_fence *last, *f;
	struct engine_park *park = engine_park_new(test);
	struct engine_env *env;
	struct cufab_op *op;
	u64 seq, aux;
	int i;

	env = engine_env_new(test);
	s = env_stream(test, env);
	other = env_stream(test, env);
	op = env_op(test, s, &test_park_type, NULL);
	KUNIT_ASSERT_EQ(test, 0, cufab_stream_queue(s, op, &seq, &aux));
	env_queue(test, s, &test_op_type, NULL, &last);
	env_queue(test, other, &test_op_type, NULL, &f);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(f, false, 10 * HZ), 0L);
	KUNIT_ASSERT_TRUE(test, head_parked(s));
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&park->runs));
	KUNIT_EXPECT_EQ(test, 0ULL, slot_seq(s));
	KUNIT_EXPECT_EQ(test, 1U, engine_log->n);
	/* a wake with the condition still unmet: one more run, parked again */
	cufab_op_wake(op);
	for (i = 0; i < 1000 && atomic_read(&park->runs) < 2; i++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, head_parked(s));
	KUNIT_EXPECT_EQ(test, 2, atomic_read(&park->runs));
	KUNIT_EXPECT_EQ(test, 0ULL, slot_seq(s));
	WRITE_ONCE(park->ready, true);
	cufab_op_wake(op);
	KUNIT_EXPECT_GT(test, dma_fence_wait_timeout(last, false, 10 * HZ),
			0L);
	KUNIT_EXPECT_EQ(test, 0, last->error);
	KUNIT_EXPECT_EQ(test, 3, atomic_read(&park->runs));
	KUNIT_EXPECT_EQ(test, 2ULL, slot_seq(s));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&park->unparks));
	dma_fence_put(last);
	dma_fence_put(f);
	cufab_stream_put(s);
	cufab_stream_put(other);
	engine_env_fini(env);
}

/* Cancelling a stream takes its parked head back through unpark. */
static void cancel_takes_parked(struct kunit *test)
{
	struct engine_park *park = engine_park_new(test);
	struct engine_env *env;
	struct cufab_stream *s;
	struct dma_fence *f, *last;

	env = engine_env_new(test);
	s = env_stream(test, env);
	env_queue(test, s, &test_park_type, NULL, &f);
	env_queue(test, s, &test_op_type, NULL, &last);
	KUNIT_ASSERT_TRUE(test, head_parked(s));
	cufab_stream_cancel(s, -ECANCELED);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&park->unparks));
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(f));
	KUNIT_EXPECT_EQ(test, -ECANCELED, f->error);
	KUNIT_EXPECT_EQ(test, -ECANCELED, last->error);
	KUNIT_EXPECT_EQ(test, 2ULL, slot_seq(s));
	KUNIT_EXPECT_EQ(test, 0U, engine_log->n);
	dma_fence_put(f);
	dma_fence_put(last);
	cufab_stream_put(s);
	engine_env_fini(env);
}

/*
 * A stream the case keeps costs its teardown a bounded wait: the wait for
 * its release gives up, and succeeds once the reference is dropped.
 */
static void release_wait_is_bounded(struct kunit *test)
{
	struct engine_env *env;
	struct cufab_stream *s;

	env = engine_env_new(test);
	s = env_stream(test, env);
	KUNIT_EXPECT_FALSE(test, engine_env_released(env, HZ / 10));
	cufab_stream_put(s);
	KUNIT_EXPECT_TRUE(test, engine_env_released(env, 10 * HZ));
	engine_env_fini(env);
}

static struct kunit_case engine_cases[] = {
	KUNIT_CASE(inline_when_idle),
	KUNIT_CASE(runs_in_order),
	KUNIT_CASE(dependency_holds),
	KUNIT_CASE(error_is_sticky),
	KUNIT_CASE(cancel_completes_all),
	KUNIT_CASE(slot_is_monotonic),
	KUNIT_CASE(teardown_waits_for_release),
	KUNIT_CASE(dep_callback_done_before_run),
	KUNIT_CASE(slot_publish_concurrent),
	KUNIT_CASE(slot_publish_window),
	KUNIT_CASE(parked_holds_stream_until_woken),
	KUNIT_CASE(cancel_takes_parked),
	KUNIT_CASE(release_wait_is_bounded),
	{}
};

static struct kunit_suite engine_suite = {
	.name = "cufab_engine",
	.test_cases = engine_cases,
};

kunit_test_suite(engine_suite);
