// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Streams: cuStreamCreate and friends, the stream-ordered copies and sets,
 * host functions, cuMemcpyPeer.
 *
 * A CUstream is a (generation, slot) pair naming an entry of a fixed
 * table, so a destroyed or made-up handle is CUDA_ERROR_INVALID_HANDLE,
 * never a crash. Each entry names a kernel stream; the engine of the
 * stream's GPU runs its operations. The special handles resolve per call:
 * NULL and CU_STREAM_LEGACY to the current context's legacy stream
 * (created on first use with the kernel's LEGACY flag, which gives it the
 * implicit synchronization with blocking streams), CU_STREAM_PER_THREAD
 * and NULL in the _ptsz/_ptds entry points to a blocking stream of the
 * calling thread, destroyed when the thread exits.
 *
 * Completion: the kernel publishes every stream's completed sequence
 * number in slots this process maps read-only; a stream is idle when its
 * slot has reached the last number the library submitted. Query and
 * Synchronize of an idle stream make no syscall.
 *
 * Host functions run on one library thread per process, in the order the
 * kernel makes them runnable (CUFAB_IOCTL_HOSTFN), never on a caller's
 * thread.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "compat.h"
#include "graph.h"
#include "stream.h"

const struct cufab_seq_slot *cufab_slots;
pthread_mutex_t cufab_stream_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cufab_lstream streams[CUFAB_LIB_MAX_STREAMS];
static __u32 streams_free_head;		/* index + 1, 0: none */
static __u32 streams_used;		/* entries ever handed out */

/* Bumped when a context's streams are forgotten: thread caches drop. */
static unsigned long streams_gen;

/* Legacy streams by context: small, scanned under cufab_stream_lock. */
struct legacy_entry {
	__u32 ctx_kid;
	__u32 idx;
};

static struct legacy_entry *legacy_map;
static size_t legacy_n, legacy_cap;

/* The calling thread's cached streams. */
struct thread_streams {
	unsigned long epoch;
	unsigned long gen;
	__u32 legacy_kid, legacy_idx;	/* ctx kid -> legacy stream */
	__u32 pt_kid, pt_idx;		/* ctx kid -> per-thread stream */
	CUstream pt_handle;
};

/* initial-exec: cuMemAllocAsync on the legacy stream reads it every call */
static __thread struct thread_streams tls_streams __attribute__((tls_model("initial-exec")));
static pthread_key_t pt_key;
static pthread_once_t pt_key_once = PTHREAD_ONCE_INIT;

/* Host thread. */
static int host_thread_started;

/* Handles: generation in the high half, slot + 1 shifted past 1 and 2. */
static CUstream stream_handle(__u32 idx, __u32 gen)
{
	return (CUstream)(uintptr_t)(((__u64)gen << 32) | ((__u64)(idx + 1) << 2));
}

static struct cufab_lstream *stream_lookup(CUstream h)
{
	__u64 v = (uintptr_t)h;
	__u32 idx = (__u32)(v >> 2) & 0x3fffffff;
	struct cufab_lstream *s;

	if ((v & 3) || !idx || idx > CUFAB_LIB_MAX_STREAMS)
		return NULL;
	s = &streams[idx - 1];
	if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&s->gen, __ATOMIC_RELAXED) != (__u32)(v >> 32))
		return NULL;
	return s;
}

void cufab_atomic_max(__u64 *p, __u64 v)
{
	__u64 cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (cur < v &&
	       !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

/* Set once by a constructor, before any call can report. */
static const struct cufab_sync_observer *cufab_sync_obs;

void cufab_sync_observe(const struct cufab_sync_observer *obs)
{
	__atomic_store_n(&cufab_sync_obs, obs, __ATOMIC_RELEASE);
}

static const struct cufab_sync_observer *sync_observer(void)
{
	return __atomic_load_n(&cufab_sync_obs, __ATOMIC_ACQUIRE);
}

void cufab_sync_ctx_done(void)
{
	const struct cufab_sync_observer *obs = sync_observer();

	if (obs && obs->ctx_synced)
		obs->ctx_synced();
}

void cufab_sync_stream_done(const struct cufab_lstream *s, __u32 gen,
			    __u64 seq)
{
	const struct cufab_sync_observer *obs = sync_observer();

	if (obs && obs->stream_synced)
		obs->stream_synced(s, gen, seq);
}

void cufab_sync_stream_waited(const struct cufab_lstream *waiter,
			      const struct cufab_lstream *src, __u32 gen,
			      __u64 seq)
{
	const struct cufab_sync_observer *obs = sync_observer();

	if (obs && obs->stream_waited)
		obs->stream_waited(waiter, src, gen, seq);
}

/* Set once by capture.c's constructor (struct cufab_capture_ops). */
const struct cufab_capture_ops *cufab_capture_hooks;
int cufab_captures_live;

void cufab_capture_register(const struct cufab_capture_ops *ops)
{
	__atomic_store_n(&cufab_capture_hooks, ops, __ATOMIC_RELEASE);
}

/* Map the kernel's completion slots, once per process (cufab_lock held). */
CUresult cufab_slots_map(void)
{
	void *p;

	if (__atomic_load_n(&cufab_slots, __ATOMIC_ACQUIRE))
		return CUDA_SUCCESS;
	p = mmap(NULL, CUFAB_SEQ_MMAP_SIZE, PROT_READ, MAP_SHARED, cufab.fd,
		 CUFAB_SEQ_MMAP_OFFSET);
	if (p == MAP_FAILED) {
		cufab_log("cannot map the completion slots of %s: %s",
			  CUFAB_DEVICE_PATH, strerror(errno));
		return errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY :
		       CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	}
	__atomic_store_n(&cufab_slots, p, __ATOMIC_RELEASE);
	return CUDA_SUCCESS;
}

static struct cufab_lstream *stream_alloc_locked(__u32 *idx)
{
	struct cufab_lstream *s;

	if (streams_free_head) {
		*idx = streams_free_head - 1;
		s = &streams[*idx];
		streams_free_head = s->next_free;
		return s;
	}
	if (streams_used == CUFAB_LIB_MAX_STREAMS)
		return NULL;
	*idx = streams_used++;
	return &streams[*idx];
}

static void stream_free_locked(struct cufab_lstream *s)
{
	__atomic_store_n(&s->live, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
	s->next_free = streams_free_head;
	streams_free_head = (s - streams) + 1;
}

static void stream_kernel_destroy(__u32 kid)
{
	struct cufab_destroy arg = { .size = sizeof(arg), .id = kid };

	cufab_ioctl(CUFAB_IOCTL_DESTROY, &arg);
}

/*
 * Create a kernel stream in context @ctx and a table entry for it.
 * @kflags: CUFAB_STREAM_*; @flags: the CU_STREAM_* value reported.
 */
static CUresult stream_create(CUcontext ctx, __u32 ctx_kid, CUdevice dev,
			      unsigned int flags, __u32 kflags, int priority,
			      __u32 *out_idx)
{
	struct cufab_stream_create arg = {
		.size = sizeof(arg), .flags = kflags, .ctx_id = ctx_kid,
		.priority = priority,
	};
	struct cufab_lstream *s;
	CUresult res;
	__u32 idx;
	int ret;

	/* mapped by the first stream for good: later ones take no lock */
	if (!__atomic_load_n(&cufab_slots, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&cufab_lock);
		res = cufab_slots_map();
		pthread_mutex_unlock(&cufab_lock);
		if (res != CUDA_SUCCESS)
			return res;
	}
	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_CREATE, &arg);
	if (ret)
		return ret == -ENOSPC ? CUDA_ERROR_OUT_OF_MEMORY :
		       ret == -ENOENT ? CUDA_ERROR_INVALID_CONTEXT :
		       cufab_errno_result(-ret);
	pthread_mutex_lock(&cufab_stream_lock);
	s = stream_alloc_locked(&idx);
	if (!s) {
		pthread_mutex_unlock(&cufab_stream_lock);
		stream_kernel_destroy(arg.out_stream_id);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	s->kid = arg.out_stream_id;
	s->slot = arg.out_slot;
	s->ctx_kid = ctx_kid;
	s->kdev = cufab_device(dev)->index;
	s->ctx = ctx;
	s->dev = dev;
	s->flags = flags;
	s->priority = priority;
	s->uid = arg.out_uid;
	s->last = 0;
	s->legacy = !!(kflags & CUFAB_STREAM_LEGACY);
	s->cap = NULL;
	s->cap_deps = NULL;
	s->cap_edges = NULL;
	s->cap_n = 0;
	s->cap_room = 0;
	__atomic_store_n(&s->live, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cufab_stream_lock);
	*out_idx = idx;
	return CUDA_SUCCESS;
}

/* The current context, its kernel id and device: one look at the stack. */
static CUresult current_ctx(CUcontext *ctx, __u32 *kid, CUdevice *dev)
{
	return cufab_ctx_current_get(ctx, kid, dev);
}

/*
 * The legacy stream of the current context, made on first use: looked up
 * (or created) and remembered for this thread. Kept out of line, so that
 * the hit in legacy_stream() costs a small frame.
 */
static __attribute__((noinline)) CUresult
legacy_stream_slow(struct cufab_lstream **out, unsigned long epoch,
		   unsigned long gen)
{
	struct thread_streams *t = &tls_streams;
	CUcontext ctx;
	CUdevice dev;
	CUresult res;
	__u32 kid, idx;
	size_t i;

	res = current_ctx(&ctx, &kid, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	/* serialised, so that a context gets one legacy stream */
	pthread_mutex_lock(&cufab_stream_lock);
	for (i = 0; i < legacy_n; i++)
		if (legacy_map[i].ctx_kid == kid)
			break;
	if (i < legacy_n) {
		idx = legacy_map[i].idx;
		pthread_mutex_unlock(&cufab_stream_lock);
		goto found;
	}
	if (legacy_n == legacy_cap) {
		size_t cap = legacy_cap ? 2 * legacy_cap : 16;
		struct legacy_entry *m = realloc(legacy_map, cap * sizeof(*m));

		if (!m) {
			pthread_mutex_unlock(&cufab_stream_lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		legacy_map = m;
		legacy_cap = cap;
	}
	pthread_mutex_unlock(&cufab_stream_lock);
	res = stream_create(ctx, kid, dev, CU_STREAM_DEFAULT,
			    CUFAB_STREAM_LEGACY, 0, &idx);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_stream_lock);
	legacy_map[legacy_n].ctx_kid = kid;
	legacy_map[legacy_n].idx = idx;
	legacy_n++;
	pthread_mutex_unlock(&cufab_stream_lock);
found:
	t->epoch = epoch;
	t->gen = gen;
	t->legacy_kid = kid;
	t->legacy_idx = idx;
	*out = &streams[idx];
	return CUDA_SUCCESS;
}

/* The legacy stream of the current context. */
static CUresult legacy_stream(struct cufab_lstream **out)
{
	struct thread_streams *t = &tls_streams;
	unsigned long epoch = __atomic_load_n(&cufab_epoch, __ATOMIC_ACQUIRE);
	unsigned long gen = __atomic_load_n(&streams_gen, __ATOMIC_ACQUIRE);
	CUresult res;
	__u32 kid;

	res = cufab_ctx_current_kid(&kid);
	if (res != CUDA_SUCCESS)
		return res;
	if (t->epoch == epoch && t->gen == gen && t->legacy_kid == kid &&
	    kid) {
		*out = &streams[t->legacy_idx];
		return CUDA_SUCCESS;
	}
	return legacy_stream_slow(out, epoch, gen);
}

/* A thread's per-thread stream goes with the thread; its work still runs. */
static void pt_destructor(void *p)
{
	CUstream h = p;

	if (h)
		cuStreamDestroy_v2(h);
}

static void pt_key_create(void)
{
	pthread_key_create(&pt_key, pt_destructor);
}

/* The calling thread's default stream in the current context. */
static CUresult per_thread_stream(struct cufab_lstream **out)
{
	struct thread_streams *t = &tls_streams;
	unsigned long epoch = __atomic_load_n(&cufab_epoch, __ATOMIC_ACQUIRE);
	unsigned long gen = __atomic_load_n(&streams_gen, __ATOMIC_ACQUIRE);
	struct cufab_lstream *s;
	CUcontext ctx;
	CUdevice dev;
	CUresult res;
	__u32 kid, idx;

	res = cufab_ctx_current_kid(&kid);
	if (res != CUDA_SUCCESS)
		return res;
	if (t->epoch == epoch && t->gen == gen && t->pt_kid == kid && kid) {
		s = stream_lookup(t->pt_handle);
		if (s) {
			*out = s;
			return CUDA_SUCCESS;
		}
	}
	res = current_ctx(&ctx, &kid, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	/* one at a time per thread: the one of another context goes */
	if (t->epoch == epoch && t->pt_handle && stream_lookup(t->pt_handle))
		cuStreamDestroy_v2(t->pt_handle);
	t->pt_handle = NULL;
	res = stream_create(ctx, kid, dev, CU_STREAM_DEFAULT, 0, 0, &idx);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_once(&pt_key_once, pt_key_create);
	t->epoch = epoch;
	t->gen = gen;
	t->pt_kid = kid;
	t->pt_idx = idx;
	t->pt_handle = stream_handle(idx, streams[idx].gen);
	pthread_setspecific(pt_key, t->pt_handle);
	*out = &streams[idx];
	return CUDA_SUCCESS;
}

/**
 * cufab_stream_resolve() - the stream a handle names
 * @h: a stream handle, NULL, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD
 * @per_thread: called through a _ptsz/_ptds entry point: NULL is the
 *	per-thread stream
 * @out: the stream
 */
CUresult cufab_stream_resolve(CUstream h, int per_thread,
			      struct cufab_lstream **out)
{
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	if (h == CU_STREAM_PER_THREAD || (!h && per_thread))
		return per_thread_stream(out);
	if (!h || h == CU_STREAM_LEGACY)
		return legacy_stream(out);
	*out = stream_lookup(h);
	if (*out)
		return CUDA_SUCCESS;
	cufab_dbg("refused: stream %p: not a live stream of this process (destroyed, or never created)",
		  (void *)h);
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cufab_stream_submit(struct cufab_lstream *s,
			     struct cufab_stream_submit *arg)
{
	int ret, handled = 0;
	CUresult res;

	if (cufab_unlikely(cufab_capture_any())) {
		/* captured into a graph instead, or refused */
		res = cufab_capture_submit(s, arg, &handled);
		if (handled)
			return res;
	}
	arg->size = sizeof(*arg);
	arg->stream_id = s->kid;
	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_SUBMIT, arg);
	if (ret)
		return cufab_submit_result(-ret);
	cufab_atomic_max(&s->last, arg->out_seq);
	return CUDA_SUCCESS;
}

/* Creation and destruction. */

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority,
							  int *greatestPriority)
{
	__u32 kid;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_ctx_current_kid(&kid);
	if (res != CUDA_SUCCESS)
		return res;
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = CUFAB_STREAM_PRIO_GREATEST;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
							 unsigned int flags,
							 int priority)
{
	CUcontext ctx;
	CUdevice dev;
	CUresult res;
	__u32 kid, idx;

	res = cufab_call_args(!!phStream);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags & ~(unsigned int)CU_STREAM_NON_BLOCKING) {
		cufab_dbg("refused: flags 0x%x: must be CU_STREAM_DEFAULT (0x0) or CU_STREAM_NON_BLOCKING (0x1)",
			  flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	res = current_ctx(&ctx, &kid, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	/* out of range: clamped, as cuStreamCreateWithPriority says */
	if (priority > 0)
		priority = 0;
	if (priority < CUFAB_STREAM_PRIO_GREATEST)
		priority = CUFAB_STREAM_PRIO_GREATEST;
	res = stream_create(ctx, kid, dev, flags,
			    flags & CU_STREAM_NON_BLOCKING ?
			    CUFAB_STREAM_NON_BLOCKING : 0, priority, &idx);
	if (res == CUDA_SUCCESS)
		*phStream = stream_handle(idx, streams[idx].gen);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *phStream,
					     unsigned int Flags)
{
	return cuStreamCreateWithPriority(phStream, Flags, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
	struct cufab_lstream *s;
	__u32 kid;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_stream_lock);
	s = hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ?
	    NULL : stream_lookup(hStream);
	if (!s) {
		pthread_mutex_unlock(&cufab_stream_lock);
		cufab_dbg("refused: stream %p: not a stream this process created (destroyed, or the legacy or per-thread stream)",
			  (void *)hStream);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	kid = s->kid;
	if (cufab_capture_any())
		cufab_capture_stream_gone(s);
	stream_free_locked(s);
	pthread_mutex_unlock(&cufab_stream_lock);
	/* returns at once: the kernel still runs what is queued */
	stream_kernel_destroy(kid);
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
	return cuStreamDestroy_v2(hStream);
}

/* Completion. */

static CUresult stream_query(struct cufab_lstream *s)
{
	__u64 last = __atomic_load_n(&s->last, __ATOMIC_ACQUIRE);
	int err;

	if (!cufab_slot_done(s->slot, last))
		return CUDA_ERROR_NOT_READY;
	err = __atomic_load_n(&cufab_slots[s->slot].error, __ATOMIC_RELAXED);
	return err ? cufab_async_result(-err) : CUDA_SUCCESS;
}

static CUresult stream_sync(struct cufab_lstream *s)
{
	struct cufab_stream_wait arg = {
		.size = sizeof(arg), .what = CUFAB_WAIT_STREAM, .id = s->kid,
	};
	CUresult res;
	int ret;

	res = stream_query(s);
	if (res != CUDA_ERROR_NOT_READY)
		return res;
	arg.seq = __atomic_load_n(&s->last, __ATOMIC_ACQUIRE);
	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_WAIT, &arg);
	if (ret)
		return cufab_submit_result(-ret);
	return arg.out_error ? cufab_async_result(-arg.out_error) :
	       CUDA_SUCCESS;
}

/* Seen done: what was freed on @s up to @seq may serve other streams. */
static CUresult stream_seen(struct cufab_lstream *s, __u64 seq, CUresult res)
{
	if (res == CUDA_SUCCESS)
		cufab_sync_stream_done(s, s->gen, seq);
	return res;
}

static CUresult query(CUstream h, int pt)
{
	struct cufab_lstream *s;
	CUresult res;
	__u64 seq;

	res = cufab_stream_resolve(h, pt, &s);
	if (res == CUDA_SUCCESS && cufab_capture_any())
		res = cufab_capture_refuse(s, "a synchronous call");
	if (res != CUDA_SUCCESS)
		return res;
	seq = __atomic_load_n(&s->last, __ATOMIC_ACQUIRE);
	return stream_seen(s, seq, stream_query(s));
}

static CUresult synchronize(CUstream h, int pt)
{
	struct cufab_lstream *s;
	CUresult res;
	__u64 seq;

	res = cufab_stream_resolve(h, pt, &s);
	if (res == CUDA_SUCCESS && cufab_capture_any())
		res = cufab_capture_refuse(s, "a synchronous call");
	if (res != CUDA_SUCCESS)
		return res;
	seq = __atomic_load_n(&s->last, __ATOMIC_ACQUIRE);
	return stream_seen(s, seq, stream_sync(s));
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
	return query(hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream)
{
	return query(hStream, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	return synchronize(hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream)
{
	return synchronize(hStream, 1);
}

/**
 * streams_ctx_sync() - cuCtxSynchronize: every stream of a context
 * @ctx_kid: the context
 *
 * No syscall when they are all idle.
 */
static CUresult streams_ctx_sync(__u32 ctx_kid)
{
	struct cufab_stream_wait arg = {
		.size = sizeof(arg), .what = CUFAB_WAIT_CTX, .id = ctx_kid,
	};
	CUresult res = CUDA_SUCCESS, r;
	__u32 i, n, busy = 0;
	int ret;

	/* cuCtxSynchronize: it would wait for the captured work too */
	res = cufab_capture_unsafe("cuCtxSynchronize");
	if (res != CUDA_SUCCESS)
		return res;
	if (!__atomic_load_n(&cufab_slots, __ATOMIC_ACQUIRE))
		return CUDA_SUCCESS;
	n = __atomic_load_n(&streams_used, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		struct cufab_lstream *s = &streams[i];

		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) ||
		    s->ctx_kid != ctx_kid)
			continue;
		r = stream_query(s);
		if (r == CUDA_ERROR_NOT_READY)
			busy = 1;
		else if (r != CUDA_SUCCESS && res == CUDA_SUCCESS)
			res = r;
	}
	if (!busy)
		return res;
	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_WAIT, &arg);
	if (ret)
		return cufab_submit_result(-ret);
	return arg.out_error ? cufab_async_result(-arg.out_error) : res;
}

void cufab_streams_ctx_drain(__u32 ctx_kid)
{
	streams_ctx_sync(ctx_kid);
}

/*
 * Waits for every stream of the context. A completed synchronization
 * returns pool memory past each pool's release threshold.
 */
CUFAB_EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
	return cuCtxSynchronize_v2(NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
	CUresult res;
	__u32 kid;

	res = cufab_ctx_arg_kid(ctx, &kid);
	if (res == CUDA_SUCCESS)
		res = streams_ctx_sync(kid);
	if (res == CUDA_SUCCESS)
		cufab_sync_ctx_done();
	return res;
}

/**
 * cufab_streams_forget_ctx() - the kernel destroyed context @ctx_kid
 * @ctx_kid: its id, which the kernel may hand out again
 *
 * Its streams are gone: their handles become invalid, their kernel
 * objects are destroyed, CUFAB_FORGET_BATCH at a time outside the lock:
 * no allocation on every cuCtxDestroy for the usual context with no
 * stream at all.
 */
void cufab_streams_forget_ctx(__u32 ctx_kid)
{
	__u32 i = 0, kids[CUFAB_FORGET_BATCH], nk, k;
	int done;
	size_t j;

	pthread_mutex_lock(&cufab_stream_lock);
	for (j = 0; j < legacy_n; j++) {
		if (legacy_map[j].ctx_kid != ctx_kid)
			continue;
		legacy_map[j] = legacy_map[--legacy_n];
		break;
	}
	for (;;) {
		for (nk = 0; i < streams_used && nk < CUFAB_FORGET_BATCH; i++) {
			struct cufab_lstream *s = &streams[i];

			if (!s->live || s->ctx_kid != ctx_kid)
				continue;
			kids[nk++] = s->kid;
			stream_free_locked(s);
		}
		done = i >= streams_used;
		__atomic_add_fetch(&streams_gen, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&cufab_stream_lock);
		for (k = 0; k < nk; k++)
			stream_kernel_destroy(kids[k]);
		if (done)
			break;
		pthread_mutex_lock(&cufab_stream_lock);
	}
}

/* A forked child: nothing of the parent's streams is valid here. */
void cufab_streams_reset_locked(void)
{
	__u32 i;

	for (i = 0; i < streams_used; i++) {
		streams[i].live = 0;
		streams[i].gen++;
	}
	streams_used = 0;
	streams_free_head = 0;
	legacy_n = 0;
	streams_gen++;
	/* the mapping is VM_DONTCOPY: the child has none */
	cufab_slots = NULL;
	host_thread_started = 0;
	pthread_mutex_init(&cufab_stream_lock, NULL);
}

/* Attributes. */

static CUresult stream_arg(CUstream h, int pt, void *out,
			   struct cufab_lstream **s)
{
	CUresult res = cufab_stream_resolve(h, pt, s);

	if (res == CUDA_SUCCESS && !out)
		return CUDA_ERROR_INVALID_VALUE;
	return res;
}

static CUresult get_flags(CUstream h, int pt, unsigned int *flags)
{
	struct cufab_lstream *s;
	CUresult res = stream_arg(h, pt, flags, &s);

	if (res == CUDA_SUCCESS)
		*flags = s->flags;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetFlags(CUstream h, unsigned int *flags)
{
	return get_flags(h, 0, flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream h,
						    unsigned int *flags)
{
	return get_flags(h, 1, flags);
}

static CUresult get_priority(CUstream h, int pt, int *priority)
{
	struct cufab_lstream *s;
	CUresult res = stream_arg(h, pt, priority, &s);

	if (res == CUDA_SUCCESS)
		*priority = s->priority;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetPriority(CUstream h, int *priority)
{
	return get_priority(h, 0, priority);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream h,
						       int *priority)
{
	return get_priority(h, 1, priority);
}

static CUresult get_id(CUstream h, int pt, unsigned long long *id)
{
	struct cufab_lstream *s;
	CUresult res = stream_arg(h, pt, id, &s);

	if (res == CUDA_SUCCESS)
		*id = s->uid;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetId(CUstream h, unsigned long long *id)
{
	return get_id(h, 0, id);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetId_ptsz(CUstream h,
						 unsigned long long *id)
{
	return get_id(h, 1, id);
}

static CUresult get_ctx(CUstream h, int pt, CUcontext *pctx)
{
	struct cufab_lstream *s;
	CUresult res = stream_arg(h, pt, pctx, &s);

	if (res == CUDA_SUCCESS)
		*pctx = s->ctx;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCtx(CUstream h, CUcontext *pctx)
{
	return get_ctx(h, 0, pctx);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream h, CUcontext *pctx)
{
	return get_ctx(h, 1, pctx);
}

/* No green contexts: *pGreenCtx is always NULL. */
static CUresult get_ctx_v2(CUstream h, int pt, CUcontext *pctx,
			   CUgreenCtx *pgreen)
{
	CUresult res;

	res = cufab_call_args(pctx && pgreen);
	if (res != CUDA_SUCCESS)
		return res;
	res = get_ctx(h, pt, pctx);
	if (res == CUDA_SUCCESS)
		*pgreen = NULL;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCtx_v2(CUstream h, CUcontext *pctx,
						CUgreenCtx *pgreen)
{
	return get_ctx_v2(h, 0, pctx, pgreen);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream h,
						     CUcontext *pctx,
						     CUgreenCtx *pgreen)
{
	return get_ctx_v2(h, 1, pctx, pgreen);
}

static CUresult get_device(CUstream h, int pt, CUdevice *dev)
{
	struct cufab_lstream *s;
	CUresult res = stream_arg(h, pt, dev, &s);

	if (res == CUDA_SUCCESS)
		*dev = s->dev;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetDevice(CUstream h, CUdevice *dev)
{
	return get_device(h, 0, dev);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream h, CUdevice *dev)
{
	return get_device(h, 1, dev);
}

/* Copies and sets. */

static CUresult copy_async(CUdeviceptr dst, CUdeviceptr src, size_t n,
			   CUstream h, int pt, __u32 dst_dev, __u32 src_dev)
{
	struct cufab_stream_submit arg = {
		.op = CUFAB_OP_COPY, .dst = dst, .src = src, .length = n,
		.src_dev = src_dev, .dst_dev = dst_dev,
	};
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_stream_submit(s, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 0,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 1,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 0,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 1,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 0,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 1,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 0,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n,
		CUstream h)
{
	return copy_async((uintptr_t)dst, (uintptr_t)src, n, h, 1,
			  CUFAB_DEV_STREAM, CUFAB_DEV_STREAM);
}

/* The kernel GPU index of a context's device. */
static CUresult ctx_kdev(CUcontext ctx, __u32 *kdev)
{
	CUdevice dev;
	CUresult res;

	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	res = cuCtxGetDevice_v2(&dev, ctx);
	if (res == CUDA_SUCCESS)
		*kdev = cufab_device(dev)->index;
	else if (res == CUDA_ERROR_INVALID_VALUE)
		res = CUDA_ERROR_INVALID_CONTEXT;
	return res;
}

/*
 * Each side is accessed by its own context's device, so a copy between
 * GPUs works with or without peer access, as the staged copies of
 * NVIDIA's driver do.
 */
static CUresult peer_async(CUdeviceptr dst, CUcontext dst_ctx,
			   CUdeviceptr src, CUcontext src_ctx, size_t n,
			   CUstream h, int pt)
{
	__u32 dst_dev, src_dev;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = ctx_kdev(dst_ctx, &dst_dev);
	if (res == CUDA_SUCCESS)
		res = ctx_kdev(src_ctx, &src_dev);
	if (res != CUDA_SUCCESS)
		return res;
	return copy_async(dst, src, n, h, pt, dst_dev, src_dev);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx,
						CUdeviceptr src, CUcontext sctx,
						size_t n, CUstream h)
{
	return peer_async(dst, dctx, src, sctx, n, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dst,
						     CUcontext dctx,
						     CUdeviceptr src,
						     CUcontext sctx, size_t n,
						     CUstream h)
{
	return peer_async(dst, dctx, src, sctx, n, h, 1);
}

/* Synchronous: on the NULL stream, then waits for it. */
static CUresult peer_sync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
			  CUcontext sctx, size_t n, int pt)
{
	CUresult res;

	res = peer_async(dst, dctx, src, sctx, n, NULL, pt);
	if (res == CUDA_SUCCESS)
		res = synchronize(NULL, pt);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx,
					   CUdeviceptr src, CUcontext sctx,
					   size_t n)
{
	return peer_sync(dst, dctx, src, sctx, n, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr dst, CUcontext dctx,
						CUdeviceptr src, CUcontext sctx,
						size_t n)
{
	return peer_sync(dst, dctx, src, sctx, n, 1);
}

static CUresult set_async(CUdeviceptr dst, __u32 value, __u32 elem, size_t n,
			  CUstream h, int pt)
{
	struct cufab_stream_submit arg = {
		.op = CUFAB_OP_SET, .dst = dst, .length = n, .value = value,
		.elem_size = elem, .src_dev = CUFAB_DEV_STREAM,
		.dst_dev = CUFAB_DEV_STREAM,
	};
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_stream_submit(s, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n,
		CUstream h)
{
	return set_async(dst, v, 1, n, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char v, size_t n,
		CUstream h)
{
	return set_async(dst, v, 1, n, h, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n,
		CUstream h)
{
	return set_async(dst, v, 2, n, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dst, unsigned short v, size_t n,
		CUstream h)
{
	return set_async(dst, v, 2, n, h, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n,
		CUstream h)
{
	return set_async(dst, v, 4, n, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned int v, size_t n,
		CUstream h)
{
	return set_async(dst, v, 4, n, h, 1);
}

/*
 * cuMemsetD2D*Async: one set per row, queued back to back on the stream,
 * so the rectangle is one unit of stream order. The whole rectangle is
 * checked first (alignment, pitch, its end within the address space), so
 * a bad one queues nothing; the pitch is unused for a single row.
 */
static CUresult set2d_check(CUdeviceptr dst, size_t pitch, __u32 elem,
			    size_t width, size_t height)
{
	size_t bytes, span;

	if (__builtin_mul_overflow(width, (size_t)elem, &bytes) ||
	    dst % elem)
		return CUDA_ERROR_INVALID_VALUE;
	if (height <= 1)
		return CUDA_SUCCESS;
	if (pitch < bytes || pitch % elem ||
	    __builtin_mul_overflow(pitch, height - 1, &span) ||
	    __builtin_add_overflow(span, bytes, &span) ||
	    __builtin_add_overflow((size_t)dst, span, &span))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult set2d_async(CUdeviceptr dst, size_t pitch, __u32 value,
			    __u32 elem, size_t width, size_t height,
			    CUstream h, int pt)
{
	struct cufab_lstream *s;
	CUresult res;
	size_t row;

	res = cufab_stream_resolve(h, pt, &s);
	if (res == CUDA_SUCCESS)
		res = set2d_check(dst, pitch, elem, width, height);
	for (row = 0; res == CUDA_SUCCESS && width && row < height; row++) {
		struct cufab_stream_submit arg = {
			.op = CUFAB_OP_SET, .dst = dst + row * pitch,
			.length = width, .value = value, .elem_size = elem,
			.src_dev = CUFAB_DEV_STREAM,
			.dst_dev = CUFAB_DEV_STREAM,
		};

		res = cufab_stream_submit(s, &arg);
	}
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch,
						unsigned char v, size_t w,
						size_t hgt, CUstream h)
{
	return set2d_async(dst, pitch, v, 1, w, hgt, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dst,
						     size_t pitch,
						     unsigned char v, size_t w,
						     size_t hgt, CUstream h)
{
	return set2d_async(dst, pitch, v, 1, w, hgt, h, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch,
						 unsigned short v, size_t w,
						 size_t hgt, CUstream h)
{
	return set2d_async(dst, pitch, v, 2, w, hgt, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr dst,
						      size_t pitch,
						      unsigned short v,
						      size_t w, size_t hgt,
						      CUstream h)
{
	return set2d_async(dst, pitch, v, 2, w, hgt, h, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch,
						 unsigned int v, size_t w,
						 size_t hgt, CUstream h)
{
	return set2d_async(dst, pitch, v, 4, w, hgt, h, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr dst,
						      size_t pitch,
						      unsigned int v, size_t w,
						      size_t hgt, CUstream h)
{
	return set2d_async(dst, pitch, v, 4, w, hgt, h, 1);
}

/* Host functions. */

struct host_call {
	CUhostFn fn;
	CUstreamCallback cb;
	CUstream stream;
	void *data;
	int keep;	/* a graph's: runs at every launch, freed with it */
};

static void host_run(struct host_call *c, int status)
{
	if (c->cb)
		c->cb(c->stream, status ? cufab_async_result(-status) :
		      CUDA_SUCCESS, c->data);
	else if (!status)
		/* a failed stream does not reach the function */
		c->fn(c->data);
	if (!c->keep)
		free(c);
}

/* The host call of a graph's host node, kept for every launch. */
void *cufab_host_call_keep(CUhostFn fn, void *data)
{
	struct host_call *c = calloc(1, sizeof(*c));

	if (c) {
		c->fn = fn;
		c->data = data;
		c->keep = 1;
	}
	return c;
}

void cufab_host_call_free(void *c)
{
	free(c);
}

static void *host_thread(void *unused)
{
	struct cufab_hostfn arg = { .size = sizeof(arg) };
	int ret;

	(void)unused;
	for (;;) {
		ret = cufab_ioctl(CUFAB_IOCTL_HOSTFN, &arg);
		if (ret == -ENOENT) {
			/* cancelled meanwhile (its context went) */
			arg.flags = 0;
			arg.done_token = 0;
			continue;
		}
		if (ret) {
			cufab_log("host function thread stops: %s",
				  strerror(-ret));
			return NULL;
		}
		if (!arg.out_token) {
			arg.flags = 0;
			arg.done_token = 0;
			continue;
		}
		host_run((struct host_call *)(uintptr_t)arg.out_fn,
			 arg.out_status);
		arg.flags = CUFAB_HOSTFN_DONE;
		arg.done_token = arg.out_token;
	}
	return NULL;
}

/* Start the process's host thread once; signals stay with the others. */
CUresult cufab_host_thread_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t tid;
	int ret;

	if (__atomic_load_n(&host_thread_started, __ATOMIC_ACQUIRE))
		return CUDA_SUCCESS;
	pthread_mutex_lock(&cufab_stream_lock);
	if (host_thread_started) {
		pthread_mutex_unlock(&cufab_stream_lock);
		return CUDA_SUCCESS;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&tid, &attr, host_thread, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		__atomic_store_n(&host_thread_started, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cufab_stream_lock);
	return ret ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

static CUresult host_submit(CUstream h, int pt, CUhostFn fn,
			    CUstreamCallback cb, void *data)
{
	struct cufab_stream_submit arg = { .op = CUFAB_OP_HOST };
	struct cufab_lstream *s;
	struct host_call *c;
	CUresult res;

	int handled = 0;

	res = cufab_stream_resolve(h, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	if (!fn && !cb)
		return CUDA_ERROR_INVALID_VALUE;
	if (cufab_capture_any()) {
		res = cufab_capture_host(s, fn, !!cb, data, &handled);
		if (handled)
			return res;
	}
	res = cufab_host_thread_start();
	if (res != CUDA_SUCCESS)
		return res;
	c = malloc(sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->fn = fn;
	c->cb = cb;
	c->stream = h;
	c->data = data;
	arg.host_fn = (uintptr_t)c;
	res = cufab_stream_submit(s, &arg);
	if (res != CUDA_SUCCESS)
		free(c);
	return res;
}

/* A callback of the library's own in the order of stream @h. */
CUresult cufab_stream_host_call(CUstream h, int per_thread,
				CUstreamCallback cb, void *data)
{
	return host_submit(h, per_thread, NULL, cb, data);
}

CUFAB_EXPORT CUresult CUDAAPI cuLaunchHostFunc(CUstream h, CUhostFn fn,
					       void *userData)
{
	return host_submit(h, 0, fn, NULL, userData);
}

CUFAB_EXPORT CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn,
						    void *userData)
{
	return host_submit(h, 1, fn, NULL, userData);
}

static CUresult add_callback(CUstream h, int pt, CUstreamCallback cb,
			     void *data, unsigned int flags)
{
	CUresult res;

	res = cufab_call_args(!flags);
	if (res != CUDA_SUCCESS)
		return res;
	return host_submit(h, pt, NULL, cb, data);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamAddCallback(CUstream h,
						  CUstreamCallback cb,
						  void *userData,
						  unsigned int flags)
{
	return add_callback(h, 0, cb, userData, flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream h,
						       CUstreamCallback cb,
						       void *userData,
						       unsigned int flags)
{
	return add_callback(h, 1, cb, userData, flags);
}

/*
 * For the synchronous copies and sets of a per-thread build (linear_mem.c):
 * ordered after the calling thread's default stream instead of the
 * legacy stream.
 */
CUresult cufab_stream_pt_drain(void)
{
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = per_thread_stream(&s);
	return res == CUDA_SUCCESS ? stream_sync(s) : res;
}
