// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The stream-ordered allocator: cuMemPool*, cuMemAllocAsync,
 * cuMemAllocFromPoolAsync, cuMemFreeAsync and the current/default pools.
 *
 * The kernel owns each pool: its properties and cap, its chunks, its
 * reserved-memory accounting, its access rights and its exports
 * (kernel/pool.c). The library sub-allocates inside the chunks the kernel
 * mapped for it, so a warm allocate/free pair costs no system call: a
 * CUmemoryPool is a struct of this file naming the kernel's pool object.
 *
 * Stream order: a block freed on stream S records S and the stream's
 * last submitted sequence number N (lib/stream.c). S may reuse it at once;
 * another stream once the block is synchronized (a cuCtxSynchronize, or a
 * cuStreamSynchronize/Query of S or cuEventSynchronize/Query of an event
 * recorded on S after the free, saw it complete); with
 * CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, once S's completed sequence
 * number, read from the kernel's slot page without a system call, has
 * reached N; with CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, a stream
 * that waited (cuStreamWaitEvent) for an event recorded on S after the
 * free; with CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, any stream
 * when nothing else fits, after the library queues on it a wait for the
 * freeing stream (CUFAB_OP_STREAM_WAIT). Blocks of different streams merge
 * only once both may be used by any stream.
 *
 * Locking: pool_lock guards every pool, chunk and block of the process.
 * No system call is made with it held except those that change the
 * pool it protects (grow, shrink, export, release), which are short.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem.h"
#include "pool.h"
#include "stream.h"

/* Alignment of every pool allocation, and of large ones. */
#define POOL_ALIGN		512ULL
#define POOL_HASH_BITS		12
#define POOL_HASH_SIZE		4096	/* 2^POOL_HASH_BITS */

struct pool_chunk;

/* A range of a chunk, or an imported pointer (chunk NULL). */
struct pool_block {
	CUdeviceptr addr;
	size_t size;
	struct pool_chunk *chunk;
	struct CUmemPoolHandle_st *pool;
	struct pool_block *prev, *next;		/* address order in the chunk */
	struct pool_block *fprev, *fnext;	/* the pool's free list */
	struct pool_block *hnext;		/* live blocks by address */
	int free;
	int exported;		/* cuMemPoolExportPointer was called on it */
	int held;		/* freed, but importers still map it */
	int synced;		/* any stream may take it */
	struct cufab_lstream *stream;	/* freed on this stream ... */
	__u32 gen;		/* ... while it had this generation, */
	__u32 slot;		/* ... whose completions this slot counts, */
	__u64 seq;		/* ... after this sequence number */
};

struct pool_chunk {
	CUdeviceptr addr;
	size_t size;
	struct pool_block *first;
	struct pool_chunk *next;
};

struct CUmemPoolHandle_st {
	__u32 kid;			/* the kernel's pool object */
	__u64 id;			/* node-wide pool id */
	CUmemLocation location;		/* CUdevice ordinal for DEVICE */
	unsigned int handle_types;
	size_t gran;			/* the location's allocation granularity */
	int imported;
	int is_default;
	int destroyed;			/* cuMemPoolDestroy called, allocations live */
	int opportunistic;		/* REUSE_ALLOW_OPPORTUNISTIC, as last set here */
	int follow_events;		/* REUSE_FOLLOW_EVENT_DEPENDENCIES, likewise */
	int internal_deps;		/* REUSE_ALLOW_INTERNAL_DEPENDENCIES, likewise */
	int made_current;		/* some pool_current[] slot was set to it */
	struct pool_chunk *chunks;
	struct pool_block *free_list;
	struct pool_block *held;	/* freed exported blocks importers map */
	size_t reserved;		/* bytes of this process's chunks */
	unsigned long long used, used_high;
	size_t live;			/* allocations and imported pointers */
	struct CUmemPoolHandle_st *next;	/* pools_all */
};

/*
 * pool_lock: 0 free, 1 held, 2 held and maybe waited for. A futex word
 * rather than a pthread mutex: a warm cuMemAllocAsync+cuMemFreeAsync pair
 * takes it twice, and the two calls into libc were a sixth of its cost.
 */
static int pool_lock;

static inline void pool_lock_take(void)
{
	int c = 0;

	if (__atomic_compare_exchange_n(&pool_lock, &c, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&pool_lock, 2, __ATOMIC_ACQUIRE);
	while (c) {
		syscall(SYS_futex, &pool_lock, FUTEX_WAIT_PRIVATE, 2, NULL,
			NULL, 0);
		c = __atomic_exchange_n(&pool_lock, 2, __ATOMIC_ACQUIRE);
	}
}

static inline void pool_lock_drop(void)
{
	if (__atomic_exchange_n(&pool_lock, 0, __ATOMIC_RELEASE) == 2)
		syscall(SYS_futex, &pool_lock, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
}

static struct CUmemPoolHandle_st *pools_all;
static struct pool_block *live_hash[POOL_HASH_SIZE];
/* current and default pools: by device ordinal, then host, host NUMA node */
#define POOL_SLOT_HOST		CUFAB_MAX_GPUS
#define POOL_SLOT_NUMA		(CUFAB_MAX_GPUS + 1)
#define POOL_SLOTS		(POOL_SLOT_NUMA + 64)
static CUmemoryPool pool_default[POOL_SLOTS];
static CUmemoryPool pool_current[POOL_SLOTS];

/*
 * What each stream waited for with cuStreamWaitEvent: stream @src's work
 * up to @seq (while it had generation @gen) runs before the waiter's
 * later work. Indexed by the waiter's completion slot; a few sources per
 * waiter, the oldest replaced, since only recent waits matter for reuse.
 */
#define POOL_WAITS		4
struct pool_wait {
	const struct cufab_lstream *src;
	__u32 gen;
	__u64 seq;
};

static struct {
	const struct cufab_lstream *waiter;
	__u32 gen;
	unsigned int next;
	struct pool_wait w[POOL_WAITS];
} pool_waits[CUFAB_SEQ_SLOTS];

/*
 * What a synchronization has to do: some block freed on the stream of
 * that completion slot is not yet everyone's, or a release threshold
 * changed. Hints only, so that syncs and queries of other streams skip
 * the walk; read without pool_lock.
 */
static unsigned char pool_pending[CUFAB_SEQ_SLOTS];
static int pool_rethreshold;

/* ---- streams ---- */

/* Is @s the stream @b was freed on, still the same stream? */
static int block_same_stream(const struct pool_block *b,
			     const struct cufab_lstream *s)
{
	return b->stream == s && b->gen == __atomic_load_n(&s->gen,
							   __ATOMIC_RELAXED);
}

/* Did @s wait (cuStreamWaitEvent) for work submitted after @b's free? */
static int block_waited(const struct pool_block *b,
			const struct cufab_lstream *s)
{
	const struct pool_wait *w;
	unsigned int i;

	if (pool_waits[s->slot].waiter != s ||
	    pool_waits[s->slot].gen != s->gen)
		return 0;
	for (i = 0; i < POOL_WAITS; i++) {
		w = &pool_waits[s->slot].w[i];
		if (w->src == b->stream && w->gen == b->gen && w->seq >= b->seq)
			return 1;
	}
	return 0;
}

/* Has the work submitted on @b's stream before its free completed? */
static int block_complete(const struct pool_block *b)
{
	const struct cufab_lstream *s = b->stream;

	if (b->synced || !s)
		return 1;
	/* a destroyed stream's slot may serve another: wait for a sync */
	if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&s->gen, __ATOMIC_RELAXED) != b->gen)
		return 0;
	return cufab_slot_done(b->slot, b->seq);
}

/* May any stream take free block @b? */
static int block_anyone(const struct CUmemPoolHandle_st *p,
			const struct pool_block *b)
{
	return b->synced || !b->stream ||
	       (p->opportunistic && block_complete(b));
}

/* May an allocation on @s take free block @b? */
static int block_ready(const struct CUmemPoolHandle_st *p,
		       const struct pool_block *b, struct cufab_lstream *s)
{
	return block_same_stream(b, s) || block_anyone(p, b) ||
	       (p->follow_events && block_waited(b, s));
}

/* @b was freed on @s: after the work submitted there so far. */
static void block_order(struct pool_block *b, struct cufab_lstream *s)
{
	b->synced = 0;
	b->stream = s;
	b->gen = s->gen;
	b->slot = s->slot;
	b->seq = __atomic_load_n(&s->last, __ATOMIC_ACQUIRE);
	if (!pool_pending[s->slot])
		__atomic_store_n(&pool_pending[s->slot], 1, __ATOMIC_RELAXED);
}

/* ---- blocks ---- */

static unsigned int hash_addr(CUdeviceptr a)
{
	return (unsigned int)((a >> 9) * 0x9E3779B97F4A7C15ULL >> (64 - POOL_HASH_BITS));
}

static void live_add(struct pool_block *b)
{
	unsigned int h = hash_addr(b->addr);

	b->hnext = live_hash[h];
	live_hash[h] = b;
}

/* The live block starting at @addr, unlinked; NULL when there is none. */
static struct pool_block *live_take(CUdeviceptr addr)
{
	struct pool_block **pp = &live_hash[hash_addr(addr)], *b;

	for (; (b = *pp); pp = &b->hnext)
		if (b->addr == addr) {
			*pp = b->hnext;
			return b;
		}
	return NULL;
}

static struct pool_block *live_find(CUdeviceptr addr)
{
	struct pool_block *b;

	for (b = live_hash[hash_addr(addr)]; b; b = b->hnext)
		if (b->addr == addr)
			return b;
	return NULL;
}

/*
 * Spare block structs: a warm allocate/free splits and merges a block
 * each time, which would otherwise cost a malloc and a free.
 */
#define POOL_SPARES_MAX		64
static struct pool_block *pool_spares;
static unsigned int pool_nspares;

static struct pool_block *block_new(void)
{
	struct pool_block *b = pool_spares;

	if (!b)
		return calloc(1, sizeof(*b));
	pool_spares = b->hnext;
	pool_nspares--;
	return b;
}

static void block_put(struct pool_block *b)
{
	if (pool_nspares >= POOL_SPARES_MAX) {
		free(b);
		return;
	}
	b->hnext = pool_spares;
	pool_spares = b;
	pool_nspares++;
}

static void free_add(struct CUmemPoolHandle_st *p, struct pool_block *b)
{
	b->free = 1;
	b->fprev = NULL;
	b->fnext = p->free_list;
	if (p->free_list)
		p->free_list->fprev = b;
	p->free_list = b;
}

static void free_del(struct CUmemPoolHandle_st *p, struct pool_block *b)
{
	if (b->fprev)
		b->fprev->fnext = b->fnext;
	else
		p->free_list = b->fnext;
	if (b->fnext)
		b->fnext->fprev = b->fprev;
	b->free = 0;
}

/* Merge @b into its free, complete predecessor @a (address order). */
static void block_merge(struct CUmemPoolHandle_st *p, struct pool_block *a,
			struct pool_block *b)
{
	free_del(p, b);
	a->size += b->size;
	a->next = b->next;
	if (b->next)
		b->next->prev = a;
	block_put(b);
}

/* Can free blocks @a and @b become one without breaking stream order? */
static int block_mergeable(const struct CUmemPoolHandle_st *p,
			   const struct pool_block *a, const struct pool_block *b)
{
	if (!a->free || !b->free)
		return 0;
	if (a->stream == b->stream && a->gen == b->gen && !a->synced &&
	    !b->synced)
		return 1;
	return block_anyone(p, a) && block_anyone(p, b);
}

/* Link @n into @b's chunk in front of @b, in address order. */
static void block_link_before(struct pool_block *n, struct pool_block *b)
{
	n->prev = b->prev;
	n->next = b;
	if (b->prev)
		b->prev->next = n;
	else
		b->chunk->first = n;
	b->prev = n;
}

/*
 * Free block @n, which follows @b, takes @b's range in: @n stays on the
 * free list where it is, and @b's struct goes. The merged block is ordered
 * as @b was (after the later of the two frees), as when @b absorbs @n.
 */
static void block_merge_into_next(struct pool_block *b, struct pool_block *n)
{
	if (n->seq > b->seq)
		b->seq = n->seq;
	n->synced = b->synced;
	n->stream = b->stream;
	n->gen = b->gen;
	n->slot = b->slot;
	n->seq = b->seq;
	n->addr = b->addr;
	n->size += b->size;
	n->prev = b->prev;
	if (b->prev)
		b->prev->next = n;
	else
		b->chunk->first = n;
	block_put(b);
}

/*
 * Return @b, freed on @s (NULL: ordered already), to the free list. The
 * warm allocate/free pair carves the front of a free block and gives it
 * back here, so the following free block growing back over it is the
 * common case, and it costs no free-list change.
 */
static void block_release(struct CUmemPoolHandle_st *p, struct pool_block *b,
			  struct cufab_lstream *s)
{
	if (s)
		block_order(b, s);
	b->free = 1;
	if (b->next && block_mergeable(p, b, b->next)) {
		struct pool_block *n = b->next;

		block_merge_into_next(b, n);
		b = n;
	} else {
		free_add(p, b);
	}
	if (b->prev && block_mergeable(p, b->prev, b)) {
		if (b->seq > b->prev->seq)
			b->prev->seq = b->seq;
		block_merge(p, b->prev, b);
	}
}

/* Carve @size bytes at @align out of free block @b; the allocated block. */
static struct pool_block *block_carve(struct CUmemPoolHandle_st *p,
				      struct pool_block *b, size_t size,
				      size_t align)
{
	CUdeviceptr start = (b->addr + align - 1) & ~(CUdeviceptr)(align - 1);
	struct pool_block *n;

	/* a free head in front of an aligned start stays free */
	if (start != b->addr) {
		n = block_new();
		if (!n)
			return NULL;
		*n = *b;
		n->addr = start;
		n->size = b->size - (start - b->addr);
		b->size = start - b->addr;
		n->prev = b;
		if (b->next)
			b->next->prev = n;
		b->next = n;
		free_add(p, n);
		b = n;
	}
	/* the front is allocated: the free rest stays on the free list */
	if (b->size > size) {
		n = block_new();
		if (!n)
			return NULL;
		*n = (struct pool_block){
			.addr = b->addr, .size = size,
			.chunk = b->chunk, .pool = b->pool,
		};
		block_link_before(n, b);
		b->addr += size;
		b->size -= size;
		return n;
	}
	free_del(p, b);
	b->exported = 0;
	return b;
}

/* A free block of @p fitting @size at @align that stream @s may reuse. */
static struct pool_block *block_find(struct CUmemPoolHandle_st *p, size_t size,
				     size_t align, struct cufab_lstream *s)
{
	struct pool_block *b;
	CUdeviceptr start;

	for (b = p->free_list; b; b = b->fnext) {
		if (!block_ready(p, b, s))
			continue;
		start = (b->addr + align - 1) & ~(CUdeviceptr)(align - 1);
		if (start - b->addr <= b->size && b->size - (start - b->addr) >= size)
			return b;
	}
	return NULL;
}

/*
 * REUSE_ALLOW_INTERNAL_DEPENDENCIES: a free block that @s may not take yet
 * because it was freed on another live stream; @s is then made to wait
 * for that stream's work so far (CUFAB_OP_STREAM_WAIT), which includes
 * the free, and the block is @s's. NULL when there is none or the wait
 * could not be queued.
 */
static struct pool_block *block_find_dep(struct CUmemPoolHandle_st *p,
					 size_t size, size_t align,
					 struct cufab_lstream *s)
{
	struct cufab_stream_submit arg = { .op = CUFAB_OP_STREAM_WAIT };
	struct pool_block *b;
	CUdeviceptr start;

	for (b = p->free_list; b; b = b->fnext) {
		start = (b->addr + align - 1) & ~(CUdeviceptr)(align - 1);
		if (start - b->addr > b->size ||
		    b->size - (start - b->addr) < size)
			continue;
		/* a destroyed stream's work is waited for by a sync only */
		if (!b->stream || b->synced ||
		    !__atomic_load_n(&b->stream->live, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&b->stream->gen, __ATOMIC_RELAXED) != b->gen)
			continue;
		arg.event_id = b->stream->kid;
		if (cufab_stream_submit(s, &arg) != CUDA_SUCCESS)
			return NULL;
		block_order(b, s);
		return b;
	}
	return NULL;
}

/* ---- chunks ---- */

static CUresult pool_grow(struct CUmemPoolHandle_st *p, size_t size)
{
	struct cufab_pool_grow arg = {
		.size = sizeof(arg), .pool = p->kid, .length = size,
	};
	struct pool_chunk *c;
	struct pool_block *b;
	int ret;

	c = calloc(1, sizeof(*c));
	b = calloc(1, sizeof(*b));
	if (!c || !b) {
		free(c);
		free(b);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	ret = cufab_ioctl(CUFAB_IOCTL_POOL_GROW, &arg);
	if (ret) {
		free(c);
		free(b);
		return cufab_errno_result(-ret);
	}
	c->addr = arg.out_addr;
	c->size = arg.out_length;
	c->first = b;
	c->next = p->chunks;
	p->chunks = c;
	p->reserved += c->size;
	b->addr = c->addr;
	b->size = c->size;
	b->chunk = c;
	b->pool = p;
	free_add(p, b);
	return CUDA_SUCCESS;
}

/* Is chunk @c one free, complete block? */
static int chunk_idle(const struct pool_chunk *c)
{
	const struct pool_block *b = c->first;

	return b->free && !b->next && block_complete(b);
}

static void chunk_shrink(struct CUmemPoolHandle_st *p, struct pool_chunk **pc)
{
	struct pool_chunk *c = *pc;
	struct cufab_pool_shrink arg = {
		.size = sizeof(arg), .pool = p->kid, .addr = c->addr,
	};

	cufab_ioctl(CUFAB_IOCTL_POOL_SHRINK, &arg);
	free_del(p, c->first);
	free(c->first);
	p->reserved -= c->size;
	*pc = c->next;
	free(c);
}

/* Ask the kernel again for the exported blocks importers were mapping. */
static void pool_retry_held(struct CUmemPoolHandle_st *p)
{
	struct pool_block **pp = &p->held, *b;
	struct cufab_pool_ptr_release arg = {
		.size = sizeof(arg), .pool = p->kid,
	};

	while ((b = *pp)) {
		arg.addr = b->addr;
		if (cufab_ioctl(CUFAB_IOCTL_POOL_PTR_RELEASE, &arg) == -EBUSY) {
			pp = &b->hnext;
			continue;
		}
		*pp = b->hnext;
		b->held = 0;
		block_release(p, b, NULL);
	}
}

/* Give idle chunks back until at most @keep bytes stay reserved. */
static void pool_trim(struct CUmemPoolHandle_st *p, size_t keep)
{
	struct pool_chunk **pc = &p->chunks;

	pool_retry_held(p);
	while (*pc && p->reserved > keep) {
		if (chunk_idle(*pc))
			chunk_shrink(p, pc);
		else
			pc = &(*pc)->next;
	}
}

/* ---- pools ---- */

static struct CUmemPoolHandle_st *pool_lookup(CUmemoryPool h)
{
	struct CUmemPoolHandle_st *p;

	for (p = pools_all; p; p = p->next)
		if (p == h && !p->destroyed)
			return p;
	return NULL;
}

static void pool_unlink(struct CUmemPoolHandle_st *p)
{
	struct CUmemPoolHandle_st **pp;

	for (pp = &pools_all; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

/* The last allocation of a destroyed pool is gone: give everything back. */
static void pool_finish(struct CUmemPoolHandle_st *p)
{
	struct cufab_destroy arg = { .size = sizeof(arg), .id = p->kid };

	pool_trim(p, 0);
	cufab_ioctl(CUFAB_IOCTL_DESTROY, &arg);
	pool_unlink(p);
	while (p->held) {
		struct pool_block *b = p->held;

		p->held = b->hnext;
		free(b);
	}
	while (p->free_list) {
		struct pool_block *b = p->free_list;

		free_del(p, b);
		free(b);
	}
	while (p->chunks) {
		struct pool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
	free(p);
}

static struct CUmemPoolHandle_st *pool_new(__u32 kid, __u64 id,
					   const CUmemLocation *loc,
					   unsigned int handle_types)
{
	struct CUmemPoolHandle_st *p = calloc(1, sizeof(*p));
	const struct cufab_device *d;

	if (!p)
		return NULL;
	p->kid = kid;
	p->id = id;
	p->location = *loc;
	p->handle_types = handle_types;
	d = loc->type == CU_MEM_LOCATION_TYPE_DEVICE ? cufab_device(loc->id) :
	    NULL;
	p->gran = d ? d->mem_granularity : cufab.kdev[0].mem_granularity;
	p->opportunistic = 1;
	p->follow_events = 1;
	p->internal_deps = 1;
	p->next = pools_all;
	pools_all = p;
	return p;
}

static CUresult pool_props_check(const CUmemPoolProps *props)
{
	size_t i;

	if (props->win32SecurityAttributes) {
		cufab_dbg("refused: win32SecurityAttributes %p: must be NULL on Linux",
			  props->win32SecurityAttributes);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < sizeof(props->reserved); i++)
		if (props->reserved[i]) {
			cufab_dbg("refused: reserved[%zu] 0x%x: must be 0",
				  i, props->reserved[i]);
			return CUDA_ERROR_INVALID_VALUE;
		}
	if ((unsigned int)props->handleTypes > 0xffff ||
	    props->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT) {
		cufab_dbg("refused: handleTypes 0x%x, location type %d: unknown handle types, or HOST_NUMA_CURRENT (not a pool location)",
			  (unsigned int)props->handleTypes,
			  (int)props->location.type);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* Create a kernel pool for @props; *@out on success. Caller holds pool_lock. */
static CUresult pool_create_locked(CUmemoryPool *out, const CUmemPoolProps *props,
				   __u32 flags)
{
	struct cufab_pool_create arg = {
		.size = sizeof(arg), .flags = flags,
		.alloc_type = (__u32)props->allocType,
		.handle_types = (__u32)props->handleTypes,
		.max_size = props->maxSize, .usage = props->usage,
	};
	struct CUmemPoolHandle_st *p;
	CUresult res;
	int ret;

	res = pool_props_check(props);
	if (res != CUDA_SUCCESS)
		return res;
	/* a bad device in a pool location is INVALID_VALUE, not INVALID_DEVICE */
	if (cufab_location_to_kernel(&props->location, &arg.location_type,
				     &arg.location_id) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	ret = cufab_ioctl(CUFAB_IOCTL_POOL_CREATE, &arg);
	if (ret)
		return cufab_errno_result(-ret);
	p = pool_new(arg.out_pool, arg.out_pool_id, &props->location,
		     arg.handle_types);
	if (!p) {
		struct cufab_destroy d = { .size = sizeof(d), .id = arg.out_pool };

		cufab_ioctl(CUFAB_IOCTL_DESTROY, &d);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	p->is_default = !!(flags & CUFAB_POOL_CREATE_DEFAULT);
	*out = p;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool,
					      const CUmemPoolProps *poolProps)
{
	CUresult res;

	res = cufab_call_args(pool && poolProps);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	res = pool_create_locked(pool, poolProps, 0);
	pool_lock_drop();
	return res;
}

/* The current/default slot of a location; -1 for one that has none. */
static int pool_slot(const CUmemLocation *loc)
{
	switch (loc->type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return cufab_device(loc->id) ? loc->id : -1;
	case CU_MEM_LOCATION_TYPE_HOST:
		return POOL_SLOT_HOST;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		return loc->id >= 0 && loc->id < 64 ? POOL_SLOT_NUMA + loc->id : -1;
	default:
		return -1;
	}
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	struct CUmemPoolHandle_st *p;
	int i;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	p = pool_lookup(pool);
	if (!p || p->is_default) {
		pool_lock_drop();
		cufab_dbg("refused: memory pool %p: %s", (void *)pool,
			  p ? "a device's default pool cannot be destroyed" :
			  "not a live pool of this process");
		return CUDA_ERROR_INVALID_VALUE;
	}
	/*
	 * A location whose current pool goes back to its default; only a
	 * pool cuMemPoolSetCurrent chose can be one (the slots are many).
	 */
	for (i = 0; p->made_current && i < POOL_SLOTS; i++)
		if (pool_current[i] == p)
			pool_current[i] = NULL;
	p->destroyed = 1;
	if (!p->live)
		pool_finish(p);
	pool_lock_drop();
	return CUDA_SUCCESS;
}

/* ---- attributes ---- */

static CUresult pool_kattr(struct CUmemPoolHandle_st *p, __u32 attr, int set,
			   __u64 *value)
{
	struct cufab_pool_attr arg = {
		.size = sizeof(arg), .pool = p->kid, .attr = attr,
		.flags = set ? CUFAB_POOL_ATTR_SET : 0, .value = *value,
	};
	int ret;

	ret = cufab_ioctl(CUFAB_IOCTL_POOL_ATTR, &arg);
	if (ret)
		return cufab_errno_result(-ret);
	*value = arg.value;
	return CUDA_SUCCESS;
}

static int attr_is_int(CUmemPool_attribute attr)
{
	return attr == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
	       attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ||
	       attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES;
}

/* The refusal of setting a pool attribute that can only be read. */
static CUresult pool_attr_read_only(CUmemPool_attribute attr)
{
	cufab_dbg("refused: attribute %d (%s): read-only, cuMemPoolGetAttribute only",
		  (int)attr, attr == CU_MEMPOOL_ATTR_USED_MEM_CURRENT ?
		  "USED_MEM_CURRENT" : "RESERVED_MEM_CURRENT");
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult pool_attr(CUmemoryPool pool, CUmemPool_attribute attr,
			  void *value, int set)
{
	struct CUmemPoolHandle_st *p;
	CUresult res = CUDA_SUCCESS;
	__u64 v = 0;

	res = cufab_call_args(!!value);
	if (res != CUDA_SUCCESS)
		return res;
	if (attr < CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
	    attr > CU_MEMPOOL_ATTR_USED_MEM_HIGH) {
		cufab_dbg("refused: attribute %d: not a CUmemPool_attribute (%d ..%d)",
			  (int)attr,
			  (int)CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES,
			  (int)CU_MEMPOOL_ATTR_USED_MEM_HIGH);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (set)
		v = attr_is_int(attr) ? (__u64)(*(int *)value != 0) :
		    *(cuuint64_t *)value;
	pool_lock_take();
	p = pool_lookup(pool);
	if (!p) {
		cufab_dbg("refused: memory pool %p: not a live pool of this process",
			  (void *)pool);
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (attr == CU_MEMPOOL_ATTR_USED_MEM_CURRENT) {
		if (set)
			res = pool_attr_read_only(attr);
		else
			*(cuuint64_t *)value = p->used;
	} else if (attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH) {
		if (set && v) {
			cufab_dbg("refused: attribute %d (USED_MEM_HIGH) value %llu: may only be reset to 0",
				  (int)attr, (unsigned long long)v);
			res = CUDA_ERROR_INVALID_VALUE;
		} else if (set) {
			p->used_high = p->used;
		} else {
			*(cuuint64_t *)value = p->used_high;
		}
	} else if (set && attr == CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) {
		res = pool_attr_read_only(attr);
	} else {
		res = pool_kattr(p, (__u32)attr, set, &v);
		if (res == CUDA_SUCCESS &&
		    attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC)
			p->opportunistic = (int)v;
		if (res == CUDA_SUCCESS &&
		    attr == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES)
			p->follow_events = (int)v;
		if (res == CUDA_SUCCESS &&
		    attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES)
			p->internal_deps = (int)v;
		/* a lower threshold applies at the next synchronization */
		if (set && attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
			__atomic_store_n(&pool_rethreshold, 1, __ATOMIC_RELAXED);
		if (res == CUDA_SUCCESS && !set) {
			if (attr_is_int(attr))
				*(int *)value = (int)v;
			else
				*(cuuint64_t *)value = v;
		}
	}
	pool_lock_drop();
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool,
						    CUmemPool_attribute attr,
						    void *value)
{
	return pool_attr(pool, attr, value, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool,
						    CUmemPool_attribute attr,
						    void *value)
{
	return pool_attr(pool, attr, value, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool,
					      size_t minBytesToKeep)
{
	struct CUmemPoolHandle_st *p;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	p = pool_lookup(pool);
	if (p)
		pool_trim(p, minBytesToKeep);
	pool_lock_drop();
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Has @p a chunk it could give back, or blocks importers held? */
static int pool_has_idle_chunk(const struct CUmemPoolHandle_st *p)
{
	const struct pool_chunk *c;

	for (c = p->chunks; c; c = c->next)
		if (chunk_idle(c))
			return 1;
	return !!p->held;
}

/*
 * Stream @s (NULL: every stream) has completed its work up to @seq while
 * it had generation @gen: the blocks it freed before that may serve any
 * stream, they merge, and the pool gives back what it holds past its
 * release threshold (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD). The pending hint
 * of every stream with a block still waiting is set again.
 */
static void pool_synced_locked(struct CUmemPoolHandle_st *p,
			       const struct cufab_lstream *s, __u32 gen,
			       __u64 seq)
{
	struct pool_chunk *c;
	struct pool_block *b;
	__u64 threshold = 0;

	for (b = p->free_list; b; b = b->fnext) {
		if (!s || (b->stream == s && b->gen == gen && b->seq <= seq))
			b->synced = 1;
		if (!b->synced && b->stream)
			__atomic_store_n(&pool_pending[b->slot], 1,
					 __ATOMIC_RELAXED);
	}
	for (c = p->chunks; c; c = c->next)
		for (b = c->first; b && b->next; )
			if (block_mergeable(p, b, b->next))
				block_merge(p, b, b->next);
			else
				b = b->next;
	/* the threshold is the kernel's: read it only when it may matter */
	if (pool_has_idle_chunk(p) &&
	    pool_kattr(p, CUFAB_POOL_ATTR_RELEASE_THRESHOLD, 0,
		       &threshold) == CUDA_SUCCESS)
		pool_trim(p, threshold);
}

static void pools_synced(const struct cufab_lstream *s, __u32 gen, __u64 seq)
{
	struct CUmemPoolHandle_st *p;

	pool_lock_take();
	if (s)
		__atomic_store_n(&pool_pending[s->slot], 0, __ATOMIC_RELAXED);
	else
		memset(pool_pending, 0, sizeof(pool_pending));
	__atomic_store_n(&pool_rethreshold, 0, __ATOMIC_RELAXED);
	for (p = pools_all; p; p = p->next)
		if (!p->imported && p->chunks)
			pool_synced_locked(p, s, gen, seq);
	pool_lock_drop();
}

/* A context synchronization completed: every stream's frees are done. */
static void pool_ctx_synced(void)
{
	pools_synced(NULL, 0, 0);
}

static void pool_stream_synced(const struct cufab_lstream *s, __u32 gen,
			       __u64 seq)
{
	/* nothing freed there or re-thresholded since the last one: no work */
	if (s && (__atomic_load_n(&pool_pending[s->slot], __ATOMIC_RELAXED) ||
		  __atomic_load_n(&pool_rethreshold, __ATOMIC_RELAXED)))
		pools_synced(s, gen, seq);
}

static void pool_stream_waited(const struct cufab_lstream *waiter,
			       const struct cufab_lstream *src, __u32 gen,
			       __u64 seq)
{
	struct pool_wait *w;
	unsigned int i;

	if (!src || src == waiter)
		return;
	pool_lock_take();
	if (pool_waits[waiter->slot].waiter != waiter ||
	    pool_waits[waiter->slot].gen != waiter->gen) {
		memset(&pool_waits[waiter->slot], 0,
		       sizeof(pool_waits[waiter->slot]));
		pool_waits[waiter->slot].waiter = waiter;
		pool_waits[waiter->slot].gen = waiter->gen;
	}
	for (i = 0; i < POOL_WAITS; i++) {
		w = &pool_waits[waiter->slot].w[i];
		if (w->src == src && w->gen == gen) {
			if (seq > w->seq)
				w->seq = seq;
			goto out;
		}
	}
	i = pool_waits[waiter->slot].next++ % POOL_WAITS;
	w = &pool_waits[waiter->slot].w[i];
	w->src = src;
	w->gen = gen;
	w->seq = seq;
out:
	pool_lock_drop();
}

/* Streams, events and contexts tell us what completed (stream.h). */
static const struct cufab_sync_observer pool_sync_observer = {
	.ctx_synced = pool_ctx_synced,
	.stream_synced = pool_stream_synced,
	.stream_waited = pool_stream_waited,
};

__attribute__((constructor))
static void pool_observe(void)
{
	cufab_sync_observe(&pool_sync_observer);
}

/* ---- access ---- */

static CUresult access_desc(const CUmemAccessDesc *d, struct cufab_mem_access *k)
{
	memset(k, 0, sizeof(*k));
	k->flags = (__u32)d->flags;
	/* a device that does not exist: INVALID_DEVICE, as driver 580 */
	return cufab_location_to_kernel(&d->location, &k->location_type,
					&k->location_id);
}

/*
 * The answers of NVIDIA's driver 580 to a device entry of a pool's access
 * list (measured on H100/H200; see Documentation/differences.rst):
 * PROT_NONE for the pool's own device is INVALID_DEVICE, PROT_READ for any
 * device NOT_SUPPORTED. Flags outside the enum stay INVALID_VALUE, for the
 * kernel to say.
 */
static CUresult access_desc_driver(const struct CUmemPoolHandle_st *p,
				   const CUmemAccessDesc *d)
{
	int own;

	if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_SUCCESS;
	own = p->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	      p->location.id == d->location.id;
	if (d->flags == CU_MEM_ACCESS_FLAGS_PROT_READ) {
		cufab_dbg("refused: device %d: CU_MEM_ACCESS_FLAGS_PROT_READ: a pool's devices have read-write access or none",
			  d->location.id);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (own && d->flags == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
		cufab_dbg("refused: device %d: PROT_NONE: it is the pool's location and keeps read-write access",
			  d->location.id);
		return CUDA_ERROR_INVALID_DEVICE;
	}
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool,
						 const CUmemAccessDesc *map,
						 size_t count)
{
	struct cufab_mem_access k[CUFAB_MAX_GPUS + 1];
	struct cufab_pool_set_access arg = { .size = sizeof(arg) };
	struct CUmemPoolHandle_st *p;
	CUresult res = CUDA_SUCCESS;
	size_t i;
	int ret;

	res = cufab_call_args(!!map);
	if (res != CUDA_SUCCESS)
		return res;
	if (!count || count > CUFAB_ARRAY_SIZE(k)) {
		cufab_dbg("refused: count %zu: must be 1 ..%zu", count,
			  CUFAB_ARRAY_SIZE(k));
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < count && res == CUDA_SUCCESS; i++)
		res = access_desc(&map[i], &k[i]);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	p = pool_lookup(pool);
	/* a refused entry: nothing of the list applies */
	for (i = 0; p && i < count && res == CUDA_SUCCESS; i++)
		res = access_desc_driver(p, &map[i]);
	if (p && res == CUDA_SUCCESS) {
		arg.pool = p->kid;
		arg.num_descs = (__u32)count;
		arg.descs_ptr = (uintptr_t)k;
		ret = cufab_ioctl(CUFAB_IOCTL_POOL_SET_ACCESS, &arg);
		res = ret ? cufab_errno_result(-ret) : CUDA_SUCCESS;
	} else if (!p) {
		cufab_dbg("refused: memory pool %p: not a live pool of this process",
			  (void *)pool);
		res = CUDA_ERROR_INVALID_VALUE;
	}
	pool_lock_drop();
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags,
						 CUmemoryPool memPool,
						 CUmemLocation *location)
{
	struct cufab_pool_get_access arg = { .size = sizeof(arg) };
	struct CUmemPoolHandle_st *p;
	CUresult res;
	int ret;

	res = cufab_call_args(flags && location);
	if (res != CUDA_SUCCESS)
		return res;
	if (cufab_location_to_kernel(location, &arg.location_type,
				     &arg.location_id) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	pool_lock_take();
	p = pool_lookup(memPool);
	if (p) {
		arg.pool = p->kid;
		ret = cufab_ioctl(CUFAB_IOCTL_POOL_GET_ACCESS, &arg);
		res = ret ? cufab_errno_result(-ret) : CUDA_SUCCESS;
		if (!ret)
			*flags = (CUmemAccess_flags)arg.out_flags;
	} else {
		res = CUDA_ERROR_INVALID_VALUE;
	}
	pool_lock_drop();
	return res;
}

/* ---- allocation ---- */

/*
 * A new chunk with room for @size bytes at @align; the free block there.
 * The kernel maps chunks at its granularity, which is the location's but
 * for a GPU given a larger one: only then is the chunk asked for again
 * with room to align, so that an allocation of the whole maxSize fits.
 */
static struct pool_block *pool_grow_for(struct CUmemPoolHandle_st *p,
					size_t size, size_t align,
					struct cufab_lstream *s, CUresult *res)
{
	struct pool_block *b;

	*res = pool_grow(p, size);
	if (*res != CUDA_SUCCESS)
		return NULL;
	b = block_find(p, size, align, s);
	if (b || align == POOL_ALIGN)
		goto out;
	*res = pool_grow(p, size + align - POOL_ALIGN);
	if (*res != CUDA_SUCCESS)
		return NULL;
	b = block_find(p, size, align, s);
out:
	if (!b)
		*res = CUDA_ERROR_OUT_OF_MEMORY;
	return b;
}

static CUresult pool_alloc_locked(struct CUmemPoolHandle_st *p,
				  CUdeviceptr *dptr, size_t size,
				  struct cufab_lstream *s)
{
	size_t align = POOL_ALIGN, gran = p->gran;
	struct pool_block *b;
	CUresult res;

	if (size > SIZE_MAX - gran)
		return CUDA_ERROR_OUT_OF_MEMORY;
	/* large allocations bind to multicast objects and endpoints */
	if (size >= gran)
		align = gran;
	size = (size + POOL_ALIGN - 1) & ~(size_t)(POOL_ALIGN - 1);
	b = block_find(p, size, align, s);
	if (!b && p->internal_deps)
		b = block_find_dep(p, size, align, s);
	if (!b) {
		pool_retry_held(p);
		b = pool_grow_for(p, size, align, s, &res);
		if (!b)
			return res;
	}
	b = block_carve(p, b, size, align);
	if (!b)
		return CUDA_ERROR_OUT_OF_MEMORY;
	live_add(b);
	p->live++;
	p->used += b->size;
	if (p->used > p->used_high)
		p->used_high = p->used;
	*dptr = b->addr;
	return CUDA_SUCCESS;
}

static CUresult alloc_from_pool(CUdeviceptr *dptr, size_t bytesize,
				CUmemoryPool pool, CUstream hStream, int pt)
{
	struct CUmemPoolHandle_st *p;
	struct cufab_lstream *s;
	CUresult res;

	res = cufab_call_args(dptr && bytesize);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(hStream, pt, &s);
	/* no allocation nodes: refused in a capture */
	if (res == CUDA_SUCCESS && cufab_capture_any())
		res = cufab_capture_refuse(s, "a stream-ordered allocation or free");
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	p = pool_lookup(pool);
	if (!p || p->imported)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		res = pool_alloc_locked(p, dptr, bytesize, s);
	pool_lock_drop();
	return res;
}

/* The pool of @slot that allocations use, made on first use; locked. */
static __attribute__((noinline)) CUresult
pool_default_create_locked(int slot, const CUmemLocation *loc)
{
	CUmemPoolProps props = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = *loc,
	};

	return pool_create_locked(&pool_default[slot], &props,
				  CUFAB_POOL_CREATE_DEFAULT);
}

static CUresult pool_default_locked(int slot, const CUmemLocation *loc,
				    CUmemoryPool *out)
{
	CUresult res;

	if (!pool_default[slot]) {
		res = pool_default_create_locked(slot, loc);
		if (res != CUDA_SUCCESS)
			return res;
	}
	*out = pool_default[slot];
	return CUDA_SUCCESS;
}

static CUresult pool_current_locked(int slot, const CUmemLocation *loc,
				    CUmemoryPool *out)
{
	if (pool_current[slot]) {
		*out = pool_current[slot];
		return CUDA_SUCCESS;
	}
	return pool_default_locked(slot, loc, out);
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize,
			    CUstream hStream, int pt)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE };
	struct cufab_lstream *s;
	CUmemoryPool pool;
	CUresult res;
	__u32 kid;

	res = cufab_call_args(dptr && bytesize);
	if (res != CUDA_SUCCESS)
		return res;
	/*
	 * INVALID_CONTEXT without a live one, whatever the stream (resolving
	 * the NULL and per-thread streams checks it already)
	 */
	if (hStream && hStream != CU_STREAM_LEGACY &&
	    hStream != CU_STREAM_PER_THREAD &&
	    cufab_ctx_current_kid(&kid) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	res = cufab_stream_resolve(hStream, pt, &s);
	if (res == CUDA_ERROR_CONTEXT_IS_DESTROYED)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (res == CUDA_SUCCESS && cufab_capture_any())
		res = cufab_capture_refuse(s, "a stream-ordered allocation");
	if (res != CUDA_SUCCESS)
		return res;
	/* the stream's device, not the current context's, owns the memory */
	loc.id = s->dev;
	pool_lock_take();
	res = pool_current_locked(loc.id, &loc, &pool);
	if (res == CUDA_SUCCESS)
		res = pool_alloc_locked(pool, dptr, bytesize, s);
	pool_lock_drop();
	return res;
}

/* Free an imported pointer: the kernel unmaps it. */
static void pool_free_import(struct CUmemPoolHandle_st *p, struct pool_block *b)
{
	struct cufab_pool_ptr_release arg = {
		.size = sizeof(arg), .pool = p->kid, .addr = b->addr,
	};

	cufab_ioctl(CUFAB_IOCTL_POOL_PTR_RELEASE, &arg);
	free(b);
}

/* Does an importer still map exported block @b? The kernel says. */
static __attribute__((noinline)) int
pool_block_imported(struct CUmemPoolHandle_st *p, struct pool_block *b)
{
	struct cufab_pool_ptr_release arg = {
		.size = sizeof(arg), .pool = p->kid, .addr = b->addr,
	};

	return cufab_ioctl(CUFAB_IOCTL_POOL_PTR_RELEASE, &arg) == -EBUSY;
}

/*
 * An exported block returns to the free list only once no importer maps
 * it, so the importers' memory stays what it was until they free it.
 */
static void pool_free_block(struct CUmemPoolHandle_st *p, struct pool_block *b,
			    struct cufab_lstream *s)
{
	p->used -= b->size;
	if (b->exported && pool_block_imported(p, b)) {
		b->held = 1;
		block_order(b, s);
		b->hnext = p->held;
		p->held = b;
		return;
	}
	block_release(p, b, s);
}

static CUresult free_async(CUdeviceptr dptr, CUstream hStream, int pt)
{
	struct cufab_lstream *s;
	struct CUmemPoolHandle_st *p;
	struct pool_block *b;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_stream_resolve(hStream, pt, &s);
	/* no allocation nodes: refused in a capture */
	if (res == CUDA_SUCCESS && cufab_capture_any())
		res = cufab_capture_refuse(s, "a stream-ordered allocation or free");
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	b = live_take(dptr);
	if (!b) {
		pool_lock_drop();
		return CUDA_ERROR_INVALID_VALUE;
	}
	p = b->pool;
	if (b->chunk)
		pool_free_block(p, b, s);
	else
		pool_free_import(p, b);
	if (!--p->live && p->destroyed)
		pool_finish(p);
	pool_lock_drop();
	return CUDA_SUCCESS;
}

/*
 * cuMemFree of a pointer cuMemPoolImportPointer gave: driver 580 frees it
 * (Documentation/differences.rst). Its release is synchronous anyway.
 */
int cufab_pool_free_imported(CUdeviceptr dptr)
{
	struct CUmemPoolHandle_st *p;
	struct pool_block *b;

	pool_lock_take();
	b = live_find(dptr);
	if (!b || b->chunk) {
		pool_lock_drop();
		return 0;
	}
	live_take(dptr);
	p = b->pool;
	pool_free_import(p, b);
	if (!--p->live && p->destroyed)
		pool_finish(p);
	pool_lock_drop();
	return 1;
}

/*
 * The _ptsz entry points are the same calls for programs built with the
 * per-thread default stream: there the NULL stream is the thread's.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize,
					      CUstream hStream)
{
	return alloc_async(dptr, bytesize, hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr,
						   size_t bytesize,
						   CUstream hStream)
{
	return alloc_async(dptr, bytesize, hStream, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr,
						      size_t bytesize,
						      CUmemoryPool pool,
						      CUstream hStream)
{
	return alloc_from_pool(dptr, bytesize, pool, hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr,
							   size_t bytesize,
							   CUmemoryPool pool,
							   CUstream hStream)
{
	return alloc_from_pool(dptr, bytesize, pool, hStream, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	return free_async(dptr, hStream, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr,
						  CUstream hStream)
{
	return free_async(dptr, hStream, 1);
}

/* ---- current and default pools ---- */

static CUresult location_check(const CUmemLocation *location,
			       CUmemAllocationType type, int *slot)
{
	if (!location || type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	*slot = pool_slot(location);
	return *slot < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/*
 * The prologue of the calls on a location's current or default pool; the
 * macro passes the text of @args_ok, for the refusal's line.
 */
static CUresult location_call_rule(int args_ok, const char *rule,
				   const CUmemLocation *location,
				   CUmemAllocationType type, int *slot)
{
	CUresult res = cufab_call_args_rule(args_ok, rule);

	return res == CUDA_SUCCESS ? location_check(location, type, slot) : res;
}

#define location_call(args_ok, location, type, slot) \
	location_call_rule(!!(args_ok), #args_ok, (location), (type), (slot))

/* cuMemGetDefaultMemPool and cuMemGetMemPool: @get under the pool lock. */
static CUresult location_pool_get(CUmemoryPool *out, CUmemLocation *location,
				  CUmemAllocationType type,
				  CUresult (*get)(int slot,
						  const CUmemLocation *loc,
						  CUmemoryPool *out))
{
	CUresult res;
	int slot;

	res = location_call(!!out, location, type, &slot);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	res = get(slot, location, out);
	pool_lock_drop();
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool_out,
						     CUmemLocation *location,
						     CUmemAllocationType type)
{
	return location_pool_get(pool_out, location, type, pool_default_locked);
}

CUFAB_EXPORT CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool,
					      CUmemLocation *location,
					      CUmemAllocationType type)
{
	return location_pool_get(pool, location, type, pool_current_locked);
}

/* Does pool @p live at @loc? */
static int pool_at(const struct CUmemPoolHandle_st *p, const CUmemLocation *loc)
{
	if (p->location.type == CU_MEM_LOCATION_TYPE_HOST)
		return loc->type == CU_MEM_LOCATION_TYPE_HOST;
	return p->location.type == loc->type && p->location.id == loc->id;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemSetMemPool(CUmemLocation *location,
					      CUmemAllocationType type,
					      CUmemoryPool pool)
{
	struct CUmemPoolHandle_st *p;
	CUresult res;
	int slot;

	res = location_call(1, location, type, &slot);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	p = pool_lookup(pool);
	if (!p || p->imported || !pool_at(p, location))
		res = CUDA_ERROR_INVALID_VALUE;
	else
		pool_current[slot] = p;
	if (res == CUDA_SUCCESS)
		p->made_current = 1;
	pool_lock_drop();
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out,
							CUdevice dev)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev };
	CUresult res;

	res = cufab_call_dev(1, dev, CUDA_ERROR_INVALID_DEVICE, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	return cuMemGetDefaultMemPool(pool_out, &loc, CU_MEM_ALLOCATION_TYPE_PINNED);
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev };
	CUresult res;

	res = cufab_call_dev(1, dev, CUDA_ERROR_INVALID_DEVICE, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	return cuMemGetMemPool(pool, &loc, CU_MEM_ALLOCATION_TYPE_PINNED);
}

CUFAB_EXPORT CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev };
	CUresult res;

	res = cufab_call_dev(1, dev, CUDA_ERROR_INVALID_DEVICE, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	return cuMemSetMemPool(&loc, CU_MEM_ALLOCATION_TYPE_PINNED, pool);
}

/* ---- sharing ---- */

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out,
							       CUmemoryPool pool,
							       CUmemAllocationHandleType handleType,
							       unsigned long long flags)
{
	struct cufab_pool_export arg = {
		.size = sizeof(arg), .handle_type = (__u32)handleType,
	};
	struct CUmemPoolHandle_st *p;
	CUresult res;
	int ret;

	res = cufab_call_args(!!handle_out);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags || (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
		      handleType != CU_MEM_HANDLE_TYPE_FABRIC)) {
		cufab_dbg("refused: handleType 0x%x, flags 0x%llx: handleType must be POSIX_FILE_DESCRIPTOR (0x1) or FABRIC (0x8), flags 0",
			  (unsigned int)handleType, flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC)
		cufab_imex_prepare();
	pool_lock_take();
	p = pool_lookup(pool);
	if (!p) {
		pool_lock_drop();
		cufab_dbg("refused: memory pool %p: not a live pool of this process",
			  (void *)pool);
		return CUDA_ERROR_INVALID_VALUE;
	}
	arg.pool = p->kid;
	ret = cufab_ioctl(CUFAB_IOCTL_POOL_EXPORT, &arg);
	pool_lock_drop();
	res = ret ? cufab_errno_result(-ret) : CUDA_SUCCESS;
	if (res != CUDA_SUCCESS)
		return res;
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC)
		memcpy(handle_out, arg.out_fabric, sizeof(arg.out_fabric));
	else
		*(int *)handle_out = arg.out_fd;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI
cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
				   CUmemAllocationHandleType handleType,
				   unsigned long long flags)
{
	struct cufab_pool_import arg = {
		.size = sizeof(arg), .handle_type = (__u32)handleType,
	};
	struct CUmemPoolHandle_st *p;
	CUmemLocation loc;
	int ret;
	CUresult res;

	res = cufab_call_args(pool_out && !flags);
	if (res != CUDA_SUCCESS)
		return res;
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC) {
		if (!handle)
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(arg.fabric, handle, sizeof(arg.fabric));
		cufab_imex_prepare();
	} else if (handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		if ((uintptr_t)handle > 0x7fffffff)
			return CUDA_ERROR_INVALID_VALUE;
		arg.fd = (__s32)(uintptr_t)handle;
	} else {
		return CUDA_ERROR_INVALID_VALUE;
	}
	ret = cufab_ioctl(CUFAB_IOCTL_POOL_IMPORT, &arg);
	if (ret)
		return cufab_errno_result(-ret);
	loc.type = (CUmemLocationType)arg.out_location_type;
	loc.id = arg.out_location_id;
	if (loc.type == CU_MEM_LOCATION_TYPE_DEVICE)
		loc.id = cufab_ordinal(arg.out_location_id);
	pool_lock_take();
	p = pool_new(arg.out_pool, arg.out_pool_id, &loc, arg.out_handle_types);
	if (p)
		p->imported = 1;
	pool_lock_drop();
	if (!p) {
		struct cufab_destroy d = { .size = sizeof(d), .id = arg.out_pool };

		cufab_ioctl(CUFAB_IOCTL_DESTROY, &d);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pool_out = p;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out,
						     CUdeviceptr ptr)
{
	struct cufab_pool_ptr_export arg = { .size = sizeof(arg) };
	struct pool_block *b;
	CUresult res = CUDA_SUCCESS;
	int ret;

	res = cufab_call_args(!!shareData_out);
	if (res != CUDA_SUCCESS)
		return res;
	pool_lock_take();
	b = live_find(ptr);
	if (!b || !b->chunk || !b->pool->handle_types) {
		cufab_dbg("refused: pointer 0x%llx: %s", (unsigned long long)ptr,
			  !b ? "not the start of a live allocation from a memory pool" :
			  !b->chunk ? "imported: only its exporter exports it" :
			  "its pool has no handleTypes: only an exportable pool's pointers export");
		res = CUDA_ERROR_INVALID_VALUE;
	} else {
		arg.pool = b->pool->kid;
		arg.addr = b->addr;
		arg.length = b->size;
		ret = cufab_ioctl(CUFAB_IOCTL_POOL_PTR_EXPORT, &arg);
		if (ret) {
			res = cufab_errno_result(-ret);
		} else {
			b->exported = 1;
			memcpy(shareData_out->reserved, arg.out_data,
			       sizeof(arg.out_data));
		}
	}
	pool_lock_drop();
	return res;
}

_Static_assert(sizeof(CUmemPoolPtrExportData) == CUFAB_POOL_PTR_DATA_LEN,
	       "CUmemPoolPtrExportData is the kernel's export data");

CUFAB_EXPORT CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out,
						     CUmemoryPool pool,
						     CUmemPoolPtrExportData *shareData)
{
	struct cufab_pool_ptr_import arg = { .size = sizeof(arg) };
	struct CUmemPoolHandle_st *p;
	struct pool_block *b;
	CUresult res = CUDA_SUCCESS;
	int ret;

	res = cufab_call_args(ptr_out && shareData);
	if (res != CUDA_SUCCESS)
		return res;
	memcpy(arg.data, shareData->reserved, sizeof(arg.data));
	b = calloc(1, sizeof(*b));
	if (!b)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pool_lock_take();
	p = pool_lookup(pool);
	if (!p || !p->imported) {
		cufab_dbg("refused: memory pool %p: %s", (void *)pool,
			  p ? "not an imported pool (cuMemPoolImportFromShareableHandle)" :
			  "not a live pool of this process");
		res = CUDA_ERROR_INVALID_VALUE;
	} else {
		arg.pool = p->kid;
		ret = cufab_ioctl(CUFAB_IOCTL_POOL_PTR_IMPORT, &arg);
		res = ret ? cufab_errno_result(-ret) : CUDA_SUCCESS;
	}
	if (res == CUDA_SUCCESS) {
		b->addr = arg.out_addr;
		b->size = arg.out_length;
		b->pool = p;
		live_add(b);
		p->live++;
		*ptr_out = b->addr;
		b = NULL;
	}
	pool_lock_drop();
	free(b);
	return res;
}

/* ---- pointer attributes ---- */

int cufab_pool_ptr_info(CUdeviceptr ptr, CUmemoryPool *pool, CUdeviceptr *base,
			size_t *size)
{
	struct CUmemPoolHandle_st *p;
	struct pool_chunk *c;
	struct pool_block *b;
	unsigned int h;
	int found = 0;

	pool_lock_take();
	for (p = pools_all; p && !found; p = p->next)
		for (c = p->chunks; c && !found; c = c->next) {
			if (ptr < c->addr || ptr - c->addr >= c->size)
				continue;
			for (b = c->first; b; b = b->next)
				if (!b->free && ptr >= b->addr &&
				    ptr - b->addr < b->size)
					break;
			if (b) {
				found = 1;
				*pool = p;
				*base = b->addr;
				*size = b->size;
			}
		}
	for (h = 0; h < POOL_HASH_SIZE && !found; h++)
		for (b = live_hash[h]; b && !found; b = b->hnext)
			if (!b->chunk && ptr >= b->addr && ptr - b->addr < b->size) {
				found = 1;
				*pool = b->pool;
				*base = b->addr;
				*size = b->size;
			}
	pool_lock_drop();
	return found;
}

/* cuInit in a forked child: the parent's pools are not the child's. */
void cufab_pool_reset_locked(void)
{
	memset(pool_default, 0, sizeof(pool_default));
	memset(pool_current, 0, sizeof(pool_current));
	memset(live_hash, 0, sizeof(live_hash));
	memset(pool_waits, 0, sizeof(pool_waits));
	memset(pool_pending, 0, sizeof(pool_pending));
	pool_rethreshold = 0;
	pools_all = NULL;
	pool_spares = NULL;
	pool_nspares = 0;
	pool_lock = 0;
}
