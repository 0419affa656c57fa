// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Contexts: the context table, the calling thread's context stack, the
 * prologue every entry point starts with (cufab_call(), which checks the
 * current context last) and the cuCtx* calls.
 *
 * Each context is a kernel object (CUFAB_IOCTL_CTX_CREATE, destroyed with
 * CUFAB_IOCTL_DESTROY) so that state hanging off it belongs to the kernel.
 * The library keeps a slot per context. A CUcontext handle encodes
 * (generation << 32 | slot + 1): the library never dereferences a handle
 * it was given, so a garbage or stale handle is CUDA_ERROR_INVALID_CONTEXT,
 * never a crash, and a handle stays recognisably destroyed after its slot
 * is reused.
 *
 * Slots 0 .. CUFAB_MAX_GPUS - 1 belong to the primary contexts (slot =
 * device ordinal); their handle is stable across activations, as in CUDA.
 *
 * cuCtxDestroy pops the context from the calling thread only. Other
 * threads keep it current; their calls on it return
 * CUDA_ERROR_CONTEXT_IS_DESTROYED, as the cuCtxDestroy documentation says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CUFAB_MAX_CONTEXTS	16384
#define CTX_STACK_INLINE	8

enum ctx_state {
	CTX_FREE,		/* on the free list, or a primary that is inactive */
	CTX_RESERVED,		/* being created */
	CTX_LIVE,
};

struct cufab_ctx {
	__u32 gen;		/* bumped whenever a handle stops being valid */
	__u32 state;		/* enum ctx_state */
	__u32 kid;		/* kernel context id */
	CUdevice dev;
	unsigned int flags;
	__u32 next_free;
	unsigned long long uid;	/* cuCtxGetId */
};

struct ctx_stack {
	unsigned long epoch;
	int depth;
	int cap;
	CUcontext *ctx;
	CUcontext inline_ctx[CTX_STACK_INLINE];
};

static struct cufab_ctx ctx_slots[CUFAB_MAX_CONTEXTS];
static __u32 ctx_free_head;		/* slot + 1, 0: empty */
static __u32 ctx_high = CUFAB_MAX_GPUS;	/* slots below have been used */
static unsigned long long ctx_next_uid = 1;

/*
 * initial-exec: no __tls_get_addr call on the hot path. The block is small
 * enough for the static TLS surplus glibc keeps for dlopen()ed libraries.
 */
static __thread struct ctx_stack tls_stack __attribute__((tls_model("initial-exec")));
static pthread_key_t ctx_stack_key;

/* Handles and lookup. */

static CUcontext ctx_handle(__u32 slot, __u32 gen)
{
	return (CUcontext)(uintptr_t)(((__u64)gen << 32) | (slot + 1));
}

/*
 * Resolves a handle without taking a lock. Generations only grow, so a
 * handle older than its slot names a context that existed and is gone,
 * while one the slot never issued is garbage.
 */
static inline CUresult ctx_resolve(CUcontext h, struct cufab_ctx **c)
{
	__u64 v = (uintptr_t)h;
	__u32 slot = (__u32)v - 1, hgen = v >> 32, gen;

	*c = NULL;
	if (slot >= CUFAB_MAX_CONTEXTS)
		return CUDA_ERROR_INVALID_CONTEXT;
	gen = __atomic_load_n(&ctx_slots[slot].gen, __ATOMIC_ACQUIRE);
	if (hgen == 0 || hgen > gen)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (hgen < gen)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	switch (__atomic_load_n(&ctx_slots[slot].state, __ATOMIC_ACQUIRE)) {
	case CTX_LIVE:
		*c = &ctx_slots[slot];
		return CUDA_SUCCESS;
	case CTX_FREE:
		/* Only an inactive primary context keeps its generation. */
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	default:
		return CUDA_ERROR_INVALID_CONTEXT;
	}
}

/* The live context behind a handle, or NULL. */
static struct cufab_ctx *ctx_lookup(CUcontext h)
{
	struct cufab_ctx *c;

	ctx_resolve(h, &c);
	return c;
}

static void ctx_publish(struct cufab_ctx *c, __u32 kid, CUdevice dev,
			unsigned int flags)
{
	c->kid = kid;
	c->dev = dev;
	c->flags = flags;
	c->uid = __atomic_fetch_add(&ctx_next_uid, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->state, CTX_LIVE, __ATOMIC_RELEASE);
}

/*
 * Makes every handle of c stale. Called with cufab_lock held. Generation 0
 * is never issued, so that no handle is a small integer.
 */
static void ctx_retire(struct cufab_ctx *c)
{
	__u32 gen = c->gen + 1;

	__atomic_store_n(&c->state, CTX_FREE, __ATOMIC_RELEASE);
	__atomic_store_n(&c->gen, gen ? gen : 1, __ATOMIC_RELEASE);
}

/* Slot allocation, with cufab_lock held. */

static struct cufab_ctx *ctx_alloc_locked(void)
{
	struct cufab_ctx *c;

	if (ctx_free_head) {
		c = &ctx_slots[ctx_free_head - 1];
		ctx_free_head = c->next_free;
	} else if (ctx_high < CUFAB_MAX_CONTEXTS) {
		c = &ctx_slots[ctx_high++];
		c->gen = 1;
	} else {
		return NULL;
	}
	c->state = CTX_RESERVED;
	return c;
}

static void ctx_free_locked(struct cufab_ctx *c)
{
	ctx_retire(c);
	c->next_free = ctx_free_head;
	ctx_free_head = c - ctx_slots + 1;
}

/* In a forked child: every context of the parent is gone. */
void cufab_ctx_reset_locked(void)
{
	__u32 i;

	ctx_free_head = 0;
	for (i = 0; i < ctx_high; i++) {
		ctx_retire(&ctx_slots[i]);
		if (i >= CUFAB_MAX_GPUS) {
			ctx_slots[i].next_free = ctx_free_head;
			ctx_free_head = i + 1;
		}
	}
}

/* Primary context slots (primary.c owns their state machine). */

CUcontext cufab_primary_handle(CUdevice dev)
{
	return ctx_handle(dev, ctx_slots[dev].gen);
}

void cufab_primary_activate(CUdevice dev, __u32 kid, unsigned int flags)
{
	ctx_publish(&ctx_slots[dev], kid, dev, flags);
}

/*
 * The handle stays the same (primary handles are stable) but stops
 * resolving until the next activation.
 */
void cufab_primary_deactivate(CUdevice dev)
{
	__atomic_store_n(&ctx_slots[dev].state, CTX_FREE, __ATOMIC_RELEASE);
}

void cufab_primary_set_flags(CUdevice dev, unsigned int flags)
{
	ctx_slots[dev].flags = flags;
}

/* Kernel side. */

CUresult cufab_ctx_kernel_create(unsigned int flags, CUdevice dev, __u32 *kid)
{
	struct cufab_ctx_create arg = {
		.size = sizeof(arg),
		.flags = flags,
		.dev = cufab_device(dev)->index,
	};
	int ret;

	ret = cufab_ioctl(CUFAB_IOCTL_CTX_CREATE, &arg);
	if (ret)
		return cufab_errno_result(-ret);
	*kid = arg.out_ctx_id;
	return CUDA_SUCCESS;
}

/*
 * The kernel frees the context's cuMemAlloc/cuMemAllocHost allocations
 * with it (every way a context ends comes here).
 */
CUresult cufab_ctx_kernel_destroy(__u32 kid)
{
	struct cufab_destroy arg = { .size = sizeof(arg), .id = kid };
	int ret;

	ret = cufab_ioctl(CUFAB_IOCTL_DESTROY, &arg);
	if (ret == -ENOENT)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!ret)
		cufab_parts_ctx_gone(kid);
	return cufab_errno_result(-ret);
}

/* The kernel id of a live context, 0 for anything else. */
__u32 cufab_ctx_kid(CUcontext h)
{
	struct cufab_ctx *c = ctx_lookup(h);

	return c ? c->kid : 0;
}

/*
 * The handle of the live context with kernel id @kid (the context of
 * cuMemAlloc memory, from the kernel's pointer info), NULL for none.
 */
CUcontext cufab_ctx_by_kid(__u32 kid)
{
	CUcontext h = NULL;
	__u32 i;

	if (!kid)
		return NULL;
	pthread_mutex_lock(&cufab_lock);
	for (i = 0; i < ctx_high && !h; i++)
		if (ctx_slots[i].state == CTX_LIVE && ctx_slots[i].kid == kid)
			h = ctx_handle(i, ctx_slots[i].gen);
	pthread_mutex_unlock(&cufab_lock);
	return h;
}

/* The calling thread's context stack. */

static void ctx_stack_free(void *p)
{
	struct ctx_stack *s = p;

	if (s->ctx != s->inline_ctx)
		free(s->ctx);
	s->ctx = NULL;
	s->cap = 0;
	s->depth = 0;
}

__attribute__((constructor))
static void ctx_init(void)
{
	int i;

	for (i = 0; i < CUFAB_MAX_GPUS; i++)
		ctx_slots[i].gen = 1;
	pthread_key_create(&ctx_stack_key, ctx_stack_free);
}

/* The stack, emptied if it was left over from before a fork. */
static inline struct ctx_stack *ctx_stack(void)
{
	struct ctx_stack *s = &tls_stack;
	unsigned long epoch = __atomic_load_n(&cufab_epoch, __ATOMIC_ACQUIRE);

	if (cufab_unlikely(s->epoch != epoch || !s->ctx)) {
		if (!s->ctx) {
			s->ctx = s->inline_ctx;
			s->cap = CTX_STACK_INLINE;
		}
		s->depth = 0;
		s->epoch = epoch;
	}
	return s;
}

static int ctx_stack_grow(struct ctx_stack *s)
{
	int cap = s->cap * 2;
	CUcontext *n;

	if (s->ctx == s->inline_ctx) {
		n = malloc(cap * sizeof(*n));
		if (n)
			memcpy(n, s->ctx, s->depth * sizeof(*n));
		/* Freed by ctx_stack_free when the thread exits. */
		pthread_setspecific(ctx_stack_key, s);
	} else {
		n = realloc(s->ctx, cap * sizeof(*n));
	}
	if (!n)
		return -1;
	s->ctx = n;
	s->cap = cap;
	return 0;
}

static CUresult ctx_push(CUcontext h)
{
	struct ctx_stack *s = ctx_stack();

	if (s->depth == s->cap && ctx_stack_grow(s))
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->ctx[s->depth++] = h;
	return CUDA_SUCCESS;
}

static CUcontext ctx_top(void)
{
	struct ctx_stack *s = ctx_stack();

	return s->depth ? s->ctx[s->depth - 1] : NULL;
}

/*
 * The context current to this thread; the caller has checked cuInit. A
 * handle on the stack was valid when it was pushed, so one that no longer
 * resolves was destroyed since.
 */
static CUresult ctx_current_handle(CUcontext *h, struct cufab_ctx **c)
{
	*h = ctx_top();
	if (!*h)
		return CUDA_ERROR_INVALID_CONTEXT;
	*c = ctx_lookup(*h);
	return *c ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

static CUresult ctx_current(struct cufab_ctx **c)
{
	CUcontext h;

	return ctx_current_handle(&h, c);
}

/* The current context, its kernel id and device (cufab_call()). */
CUresult cufab_ctx_current_get(CUcontext *h, __u32 *kid, CUdevice *dev)
{
	struct cufab_ctx *c;
	CUresult res = ctx_current_handle(h, &c);

	if (res == CUDA_SUCCESS) {
		*kid = c->kid;
		*dev = c->dev;
	}
	return res;
}

/* cuInit has succeeded in this process: the rest of the state is published. */
static int cufab_ready(void)
{
	return __atomic_load_n(&cufab_initialized, __ATOMIC_ACQUIRE);
}

/*
 * The line of a refused argument check: the check's own text names the
 * arguments and the range, unless it is only a variable's name.
 */
static void cufab_args_refused(const char *rule)
{
	if (rule && strcmp(rule, "args_ok") && strcmp(rule, "1"))
		cufab_dbg("refused: arguments: %s: must hold (a pointer argument is NULL or a value is out of the call's range)",
			  rule);
	else
		cufab_dbg("refused: a pointer argument is NULL or a value is out of the call's range");
}

/*
 * The common prologue of the entry points (struct cufab_call): it lives
 * with the thread's current context, the last thing it checks.
 */
CUresult cufab_call(struct cufab_call *c)
{
	CUdevice dev;
	CUresult res;

	/* the library's refusals say why too (CUFAB_DEBUG), as the kernel's */
	if (!cufab_ready()) {
		cufab_dbg("refused: cuInit has not succeeded in this process");
		return CUDA_ERROR_NOT_INITIALIZED;
	}
	if (!c->args_ok) {
		cufab_args_refused(c->args_rule);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (c->need & CUFAB_NEED_DEV) {
		c->d = cufab_device(c->dev);
		if (!c->d) {
			cufab_dbg("refused: device %d: no such device (%d visible)",
				  c->dev, cufab.num_dev);
			return c->bad_dev;
		}
	}
	if (c->need & CUFAB_NEED_CTX) {
		res = cufab_ctx_current_get(&c->ctx, &c->ctx_kid, &dev);
		if (res != CUDA_SUCCESS) {
			cufab_dbg("refused: %s (the calling thread's current context)",
				  res == CUDA_ERROR_INVALID_CONTEXT ?
				  "no current context" :
				  "the current context was destroyed");
			return res;
		}
		if (!(c->need & CUFAB_NEED_DEV))
			c->d = cufab_device(dev);
	}
	return CUDA_SUCCESS;
}

/*
 * The kernel id of the current context (streams and events). Every
 * stream-ordered call on the NULL stream comes here twice (cuMemAllocAsync
 * and cuMemFreeAsync), so the stack and the slot are read in one frame.
 */
CUresult cufab_ctx_current_kid(__u32 *kid)
{
	struct ctx_stack *s = ctx_stack();
	CUcontext h = s->depth ? s->ctx[s->depth - 1] : NULL;
	struct cufab_ctx *c;

	if (!h)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (ctx_resolve(h, &c) != CUDA_SUCCESS)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*kid = c->kid;
	return CUDA_SUCCESS;
}

/*
 * A context given as an argument, or the current one when it is NULL. Only
 * cuCtxGetId documents CUDA_ERROR_CONTEXT_IS_DESTROYED for a handle passed
 * explicitly; the others report a destroyed one as invalid.
 */
static CUresult ctx_arg(CUcontext h, struct cufab_ctx **c, int destroyed_ok)
{
	CUresult res;

	if (!h)
		return ctx_current(c);
	res = ctx_resolve(h, c);
	if (res == CUDA_ERROR_CONTEXT_IS_DESTROYED && !destroyed_ok)
		return CUDA_ERROR_INVALID_CONTEXT;
	return res;
}

/*
 * The prologue of the calls on one context (NULL: the current one); the
 * macro passes the text of @args_ok, for the refusal's line.
 */
static CUresult ctx_query_rule(int args_ok, const char *rule, CUcontext h,
			       struct cufab_ctx **c, int destroyed_ok)
{
	CUresult res = cufab_call_args_rule(args_ok, rule);

	return res == CUDA_SUCCESS ? ctx_arg(h, c, destroyed_ok) : res;
}

#define ctx_query(args_ok, h, c, destroyed_ok) \
	ctx_query_rule(!!(args_ok), #args_ok, (h), (c), (destroyed_ok))

/* Creation and destruction. */

/*
 * Creates a context on dev and pushes it; the caller has checked its
 * arguments.
 */
CUresult cufab_ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	struct cufab_ctx *c;
	CUresult res;
	__u32 kid;

	pthread_mutex_lock(&cufab_lock);
	c = ctx_alloc_locked();
	pthread_mutex_unlock(&cufab_lock);
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;

	res = cufab_ctx_kernel_create(flags, dev, &kid);
	if (res == CUDA_SUCCESS) {
		ctx_publish(c, kid, dev, flags);
		res = ctx_push(ctx_handle(c - ctx_slots, c->gen));
		if (res != CUDA_SUCCESS)
			cufab_ctx_kernel_destroy(kid);
	}
	if (res != CUDA_SUCCESS) {
		pthread_mutex_lock(&cufab_lock);
		ctx_free_locked(c);
		pthread_mutex_unlock(&cufab_lock);
		return res;
	}
	*pctx = ctx_handle(c - ctx_slots, c->gen);
	return CUDA_SUCCESS;
}

/*
 * At most one of execAffinityParams and cigParams may be set; cufab
 * devices support neither (attributes 135/138 are 0, no MPS).
 */
static CUresult ctx_check_params(const CUctxCreateParams *p)
{
	/*
	 * NVIDIA's 13.0 driver, and every driver-API sample that passes a
	 * zeroed struct, take neither pointer as no parameters at all.
	 */
	if (!p || (!p->execAffinityParams && !p->cigParams))
		return CUDA_SUCCESS;
	if (p->execAffinityParams && p->cigParams)
		return CUDA_ERROR_INVALID_VALUE;
	if (p->execAffinityParams && p->numExecAffinityParams <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cufab_ctx_create_check(CUcontext *pctx, CUdevice dev)
{
	return cufab_call_dev(!!pctx, dev, CUDA_ERROR_INVALID_DEVICE, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx,
					     CUctxCreateParams *ctxCreateParams,
					     unsigned int flags, CUdevice dev)
{
	CUresult res;

	res = cufab_ctx_create_check(pctx, dev);
	if (res != CUDA_SUCCESS)
		return res;
	res = ctx_check_params(ctxCreateParams);
	if (res != CUDA_SUCCESS)
		return res;
	return cufab_ctx_create(pctx, flags, dev);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	struct ctx_stack *s;
	struct cufab_ctx *c;
	CUresult res;

	res = cufab_call_args(!!ctx);
	if (res != CUDA_SUCCESS)
		return res;

	/* queued work finishes first; its errors do not stop the destroy */
	c = ctx_lookup(ctx);
	if (c)
		cufab_parts_ctx_drain(c->kid);
	pthread_mutex_lock(&cufab_lock);
	c = ctx_lookup(ctx);
	/* Primary contexts are released, not destroyed. */
	if (!c || c < ctx_slots + CUFAB_MAX_GPUS) {
		pthread_mutex_unlock(&cufab_lock);
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	res = cufab_ctx_kernel_destroy(c->kid);
	if (res == CUDA_SUCCESS)
		ctx_free_locked(c);
	pthread_mutex_unlock(&cufab_lock);
	if (res != CUDA_SUCCESS)
		return res;

	s = ctx_stack();
	if (s->depth && s->ctx[s->depth - 1] == ctx)
		s->depth--;
	return CUDA_SUCCESS;
}

/* The thread's context stack. */

/* The prologue of the calls on the thread's context stack: the stack. */
static CUresult ctx_stack_call(struct ctx_stack **s)
{
	CUresult res = cufab_call_args(1);

	if (res == CUDA_SUCCESS)
		*s = ctx_stack();
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
	CUresult res;

	res = cufab_call_args(!!ctx);
	if (res != CUDA_SUCCESS)
		return res;
	if (!ctx_lookup(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	return ctx_push(ctx);
}

/*
 * A context destroyed by another thread can still be popped: that is how
 * this thread gets rid of it.
 */
CUFAB_EXPORT CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
	struct ctx_stack *s;
	CUresult res;

	res = ctx_stack_call(&s);
	if (res != CUDA_SUCCESS)
		return res;
	if (!s->depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	s->depth--;
	if (pctx)
		*pctx = s->ctx[s->depth];
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	struct ctx_stack *s;
	CUresult res;

	res = ctx_stack_call(&s);
	if (res != CUDA_SUCCESS)
		return res;
	if (!ctx) {
		if (s->depth)
			s->depth--;
		return CUDA_SUCCESS;
	}
	if (!ctx_lookup(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!s->depth)
		return ctx_push(ctx);
	s->ctx[s->depth - 1] = ctx;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	CUresult res;

	res = cufab_call_args(!!pctx);
	if (res != CUDA_SUCCESS)
		return res;
	*pctx = ctx_top();
	return CUDA_SUCCESS;
}

/* Queries. */

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	return cuCtxGetDevice_v2(device, NULL);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	struct cufab_ctx *c;
	CUresult res;

	res = ctx_query(!!device, ctx, &c, 0);
	if (res == CUDA_SUCCESS)
		*device = c->dev;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
	struct cufab_ctx *c;
	CUresult res;

	res = ctx_query(!!flags, NULL, &c, 0);
	if (res == CUDA_SUCCESS)
		*flags = c->flags;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
	struct cufab_ctx *c;
	CUresult res;

	res = ctx_query(!!ctxId, ctx, &c, 1);
	if (res == CUDA_SUCCESS)
		*ctxId = c->uid;
	return res;
}

/*
 * The API version of a context: the context ABI last changed in CUDA 3.2,
 * which is what every context reports.
 */
#define CUFAB_CTX_API_VERSION	3020

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
	struct cufab_ctx *c;
	CUresult res;

	res = ctx_query(!!version, ctx, &c, 0);
	if (res == CUDA_SUCCESS)
		*version = CUFAB_CTX_API_VERSION;
	return res;
}

/* The kernel id of context @h (NULL: the current one), after the prologue. */
CUresult cufab_ctx_arg_kid(CUcontext h, __u32 *kid)
{
	struct cufab_ctx *c;
	CUresult res;

	res = ctx_query(1, h, &c, 0);
	if (res == CUDA_SUCCESS)
		*kid = c->kid;
	return res;
}
