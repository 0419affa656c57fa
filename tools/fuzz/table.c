// SPDX-License-Identifier: GPL-2.0
/*
 * The description of every /dev/cufab ioctl: one entry per CUFAB_CMD_*,
 * one line per field that the kernel reads (output-only fields are left
 * out: the generator zeroes the struct first). A new ioctl without an
 * entry here fails the build (the _Static_assert below, and the
 * tools/fuzz/check-table step of the Makefile, which compares the names).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fuzz.h"

#define FLD(st, f, k, ...) {						\
	.name = #f, .off = offsetof(struct st, f),			\
	.width = sizeof(((struct st *)0)->f), .kind = (k), __VA_ARGS__	\
}

#define IOC(_n, st, ...)						\
	[CUFAB_CMD_##_n - CUFAB_CMD_BASE] = {				\
		.name = #_n, .nr = CUFAB_CMD_##_n,			\
		.size = sizeof(struct st),				\
		.fields = (const struct field[]){ FLD(st, size, F_SIZE), __VA_ARGS__ }, \
		.nfields = 1 + ARRAY_SIZE(((const struct field[]){ __VA_ARGS__ }))

#define ENUM(lo, hi)	.arg = (unsigned long long)(unsigned int)(hi) * 0x100000000ULL + \
			       (unsigned int)(lo)
#define MIB		0x100000ULL

/* fix hooks: the rules between fields */

static void post_le_query(struct thread *t, const void *arg);

/* A call a fix hook makes to prepare its own, counted with the others. */
static int prep(struct thread *t, unsigned int nr, void *arg)
{
	int err = ioctl(t->cl->fd, _IO(CUFAB_TYPE, nr), arg) ? errno : 0;

	count_call(nr - CUFAB_CMD_BASE, err);
	return err;
}

static bool pick(struct thread *t, unsigned int kind, struct res *r)
{
	unsigned int k;

	return res_pick(t, RB(kind), r, &k);
}

static void fix_mem_alloc(struct thread *t, void *arg)
{
	struct cufab_mem_alloc *m = arg;

	m->attach = m->flags & CUFAB_MEM_ALLOC_MANAGED ? 1 + rn(t, 2) : 0;
	/* cuMemHostAlloc's flags are for host memory, mostly */
	if (!(m->flags & CUFAB_MEM_ALLOC_HOST) && rn(t, 8))
		m->host_flags = 0;
}

static void fix_mem_free(struct thread *t, void *arg)
{
	struct cufab_mem_free *m = arg;

	if (t->pick0_kind == R_LEGACY && rn(t, 8))
		m->flags = t->pick0.aux & CUFAB_MEM_ALLOC_HOST;
	else if (t->pick0_kind == R_IPCMAP && rn(t, 8))
		m->flags = CUFAB_MEM_FREE_IPC;
}

static void fix_import(struct thread *t, unsigned int *type, int fd)
{
	*type = fd >= 0 && rn(t, 2) ? CUFAB_HANDLE_POSIX_FD : CUFAB_HANDLE_FABRIC;
}

static void fix_mem_import(struct thread *t, void *arg)
{
	struct cufab_mem_import *m = arg;

	fix_import(t, &m->handle_type, m->fd);
}

static void fix_pool_import(struct thread *t, void *arg)
{
	struct cufab_pool_import *m = arg;

	fix_import(t, &m->handle_type, m->fd);
}

/* BindMem names the memory by handle, BindAddr by address: not both. */
static void fix_bind(struct thread *t, unsigned int flags, __u32 *handle,
		     __u64 *mem_offset, __u64 *addr)
{
	if (flags & CUFAB_BIND_ADDR) {
		*handle = 0;
		*mem_offset = 0;
	} else {
		*addr = 0;
	}
}

/* Memory on GPU @dev (an exportable one for @types), at most @len bytes. */
static void bind_memory(struct thread *t, int dev, __u32 *handle, __u64 *len)
{
	struct res r;

	t->dev = dev;
	t->len = 0;
	if (!pick(t, R_MEM, &r))
		return;
	*handle = r.val;
	if (r.len && *len > r.len)
		*len = r.len;
}

static void fix_le_bind(struct thread *t, void *arg)
{
	struct cufab_le_bind *b = arg;

	if (t->pick0_kind == R_LE && rn(t, 4)) {
		struct cufab_le_query q = { .size = sizeof(q), .id = b->id,
					    .count = 1 };

		/* binds go through an id queried ready */
		if (!t->pick0.ready && !prep(t, CUFAB_CMD_LE_QUERY, &q))
			post_le_query(t, &q);
		b->dev = t->pick0.dev;
		b->length = t->pick0.len;
		bind_memory(t, b->dev, &b->mem_handle, &b->length);
	}
	fix_bind(t, b->flags, &b->mem_handle, &b->mem_offset, &b->addr);
}

static void post_le_bind(struct thread *t, const void *arg)
{
	const struct cufab_le_bind *b = arg;
	struct res r = { .val = b->id, .dev = b->dev, .len = b->length,
			 .aux = b->offset };

	res_add(t->cl, R_LEBIND, &r);
}

static void fix_le_unbind(struct thread *t, void *arg)
{
	struct cufab_le_unbind *u = arg;
	struct res r;

	if (rn(t, 4) && pick(t, R_LEBIND, &r)) {
		u->id = r.val;
		u->dev = r.dev;
		u->offset = r.aux;
		u->length = r.len;
	}
}

/* The R_MC entry of @handle, updated by @fn under the client's lock. */
static void mc_update(struct thread *t, unsigned int handle,
		      void (*fn)(struct res *r, unsigned int v), unsigned int v)
{
	struct client *cl = t->cl;
	unsigned int i;

	pthread_mutex_lock(&cl->lock);
	for (i = 0; i < cl->n[R_MC]; i++)
		if (cl->r[R_MC][i].val == handle)
			fn(&cl->r[R_MC][i], v);
	pthread_mutex_unlock(&cl->lock);
}

static void mc_joined(struct res *r, unsigned int dev)
{
	if (dev < 32)
		r->aux |= 1U << dev;
}

/*
 * Complete the team of @mc (made by this client, so its size is known)
 * with the GPUs it lacks, as cuMulticastAddDevice from every process of
 * a job would; false if it cannot be.
 */
static bool mc_complete(struct thread *t, struct res *mc)
{
	struct cufab_mc_add_device a = { .size = sizeof(a), .handle = mc->val };
	unsigned int d;

	for (d = 0; d < (unsigned int)t->cl->ngpus && d < 32; d++) {
		if (__builtin_popcount(mc->aux) >= mc->team)
			break;
		if (mc->aux & (1U << d))
			continue;
		a.dev = d;
		if (prep(t, CUFAB_CMD_MC_ADD_DEVICE, &a))
			return false;
		mc->aux |= 1U << d;
		mc_update(t, mc->val, mc_joined, d);
	}
	return mc->team && __builtin_popcount(mc->aux) == mc->team;
}

/*
 * cuMemCreate memory a bind to @mc by GPU @dev accepts: on @dev, as
 * large as the object, exportable as the object is; 0 if none.
 */
static unsigned int mc_memory(struct thread *t, const struct res *mc, int dev)
{
	struct cufab_mem_create m = {
		.size = sizeof(m), .location_type = CUFAB_LOC_DEVICE,
		.location_id = dev, .handle_types = mc->types,
		.length = mc->len,
	};
	struct res r = { .len = mc->len, .dev = dev };

	if (prep(t, CUFAB_CMD_MEM_CREATE, &m))
		return 0;
	r.val = m.out_handle;
	res_add(t->cl, R_MEM, &r);
	return m.out_handle;
}

/*
 * A bind that can succeed: a complete team (the call would wait for it
 * until interrupted otherwise), one of its GPUs, memory on it as large as
 * the object. Otherwise the team's first GPU and memory picked on it.
 */
static void fix_mc_bind(struct thread *t, void *arg)
{
	struct cufab_mc_bind *b = arg;
	struct res mc = t->pick0;
	unsigned int d;

	if (t->pick0_kind == R_MC && mc.team && rn(t, 2) &&
	    mc_complete(t, &mc)) {
		d = __builtin_ctz(mc.aux);
		b->mem_handle = mc_memory(t, &mc, d);
		b->dev = rn(t, 2) ? (int)d : -1;
		b->flags = 0;
		b->offset = 0;
		b->length = mc.len;
		b->mem_offset = 0;
		b->addr = 0;
		return;
	}
	if (t->pick0_kind == R_MC && t->pick0.aux && rn(t, 4)) {
		d = __builtin_ctz(t->pick0.aux);
		b->dev = rn(t, 2) ? (int)d : -1;
		b->length = t->pick0.len;
		b->offset = 0;
		bind_memory(t, d, &b->mem_handle, &b->length);
	}
	fix_bind(t, b->flags, &b->mem_handle, &b->mem_offset, &b->addr);
}

/*
 * Operations and types that go together, the address aligned to the
 * type, and the mapping readable and writable by the team's first GPU.
 */
static void fix_multimem(struct thread *t, void *arg)
{
	struct cufab_multimem *m = arg;
	struct cufab_mem_access a = { .location_type = CUFAB_LOC_DEVICE,
				      .flags = 3 };
	struct cufab_mem_set_access sa = { .size = sizeof(sa), .num_descs = 1,
					   .descs_ptr = (unsigned long)&a };

	if (!rn(t, 4))
		return;
	if (m->dtype == CUFAB_DT_U8)
		m->op = CUFAB_MM_STORE;
	if (m->dtype >= CUFAB_DT_F32 && m->redop > CUFAB_RED_MAX)
		m->redop = CUFAB_RED_ADD;
	m->addr &= ~7ULL;
	if (t->pick0_kind == R_MCMAP && rn(t, 2)) {
		sa.addr = t->pick0.val;
		sa.length = t->pick0.len;
		prep(t, CUFAB_CMD_MEM_SET_ACCESS, &sa);
	}
}

static void post_mc_bind(struct thread *t, const void *arg)
{
	const struct cufab_mc_bind *b = arg;
	struct res r = { .val = b->handle, .dev = b->dev, .len = b->length,
			 .aux = b->offset };

	if (b->dev < 0 && t->pick0_kind == R_MC && t->pick0.aux)
		r.dev = __builtin_ctz(t->pick0.aux);
	res_add(t->cl, R_MCBIND, &r);
}

static void fix_mc_unbind(struct thread *t, void *arg)
{
	struct cufab_mc_unbind *u = arg;
	struct res r;

	if (rn(t, 4) && pick(t, R_MCBIND, &r)) {
		u->handle = r.val;
		u->dev = r.dev;
		u->offset = r.aux;
		u->length = r.len;
	}
}

/* The next GPU the team lacks, so that teams complete. */
static void fix_mc_add(struct thread *t, void *arg)
{
	struct cufab_mc_add_device *a = arg;
	unsigned int d;

	if (t->pick0_kind != R_MC || !rn(t, 8))
		return;
	for (d = 0; d < 32 && (t->pick0.aux & (1U << d)); d++)
		;
	a->dev = d % t->cl->ngpus;
}

static void post_mc_add(struct thread *t, const void *arg)
{
	const struct cufab_mc_add_device *a = arg;

	mc_update(t, a->handle, mc_joined, a->dev);
}

/* A team this client made: its size, length and handle types. */
static void post_mc_create(struct thread *t, const void *arg)
{
	const struct cufab_mc_create *c = arg;
	struct client *cl = t->cl;
	unsigned int i;

	pthread_mutex_lock(&cl->lock);
	for (i = 0; i < cl->n[R_MC]; i++) {
		if (cl->r[R_MC][i].val != c->out_handle)
			continue;
		cl->r[R_MC][i].team = c->num_devices;
		cl->r[R_MC][i].types = c->handle_types;
		cl->r[R_MC][i].len = c->length;
	}
	pthread_mutex_unlock(&cl->lock);
}

/* Unicast mostly (bindable at once); a multicast team of one or two. */
static void fix_le_create(struct thread *t, void *arg)
{
	struct cufab_le_create *c = arg;

	if (!rn(t, 4))
		return;
	if (rn(t, 4)) {
		c->prop.type = CUFAB_LE_TYPE_UNICAST;
	} else {
		c->prop.type = CUFAB_LE_TYPE_MULTICAST;
		c->prop.dev_or_num = 1 + rn(t, 2);
	}
}

/* The next GPU a multicast endpoint's team lacks. */
static void fix_le_add(struct thread *t, void *arg)
{
	struct cufab_le_add_device *a = arg;
	unsigned int d;

	if (t->pick0_kind != R_LE || !rn(t, 8))
		return;
	for (d = 0; d < 32 && (t->pick0.aux & (1U << d)); d++)
		;
	a->dev = d % t->cl->ngpus;
}

static void post_le_add(struct thread *t, const void *arg)
{
	const struct cufab_le_add_device *a = arg;
	struct client *cl = t->cl;
	unsigned int i;

	pthread_mutex_lock(&cl->lock);
	for (i = 0; i < cl->n[R_LE]; i++) {
		if (cl->r[R_LE][i].val == a->id && a->dev < 32) {
			cl->r[R_LE][i].aux |= 1U << a->dev;
			cl->r[R_LE][i].dev = __builtin_ctz(cl->r[R_LE][i].aux);
		}
	}
	pthread_mutex_unlock(&cl->lock);
}

static void fix_event_create(struct thread *t, void *arg)
{
	struct cufab_event_create *e = arg;

	if (rn(t, 2))
		e->flags = CUFAB_EVENT_DISABLE_TIMING | CUFAB_EVENT_INTERPROCESS;
}

static void post_peer_enable(struct thread *t, const void *arg)
{
	const struct cufab_peer *p = arg;
	struct res r = { .val = p->ctx_id, .aux = p->peer_ctx_id };

	res_add(t->cl, R_PEER, &r);
}

static void fix_peer_disable(struct thread *t, void *arg)
{
	struct cufab_peer *p = arg;
	struct res r;

	if (rn(t, 4) && pick(t, R_PEER, &r)) {
		p->ctx_id = r.val;
		p->peer_ctx_id = r.aux;
	}
}

static void fix_hostfn(struct thread *t, void *arg)
{
	struct cufab_hostfn *h = arg;

	if (!(h->flags & CUFAB_HOSTFN_DONE))
		h->done_token = 0;
}

/*
 * A batch of stream memory operations on one picked address: writes of
 * small values and waits that hold for them (GEQ 0, AND, NOR of a high
 * bit), so that streams go on; now and then an entry is broken or a wait
 * is one that parks until a later write.
 */
static void fix_stream_memop(struct thread *t, void *arg)
{
	struct cufab_stream_memop *m = arg;
	struct cufab_memop *e = (void *)t->scratch;
	unsigned long long addr = 0x10000;
	struct res r;
	unsigned int i;

	if (pick(t, R_LEGACY, &r) || pick(t, R_MAP, &r))
		addr = r.val;
	for (i = 0; i < m->count; i++) {
		e[i] = (struct cufab_memop){
			.op = 1 + rn(t, CUFAB_MEMOP_MAX - 1),
			.addr = addr + 8 * rn(t, 4),
			.value = rn(t, 4),
		};
		if (e[i].op == CUFAB_MEMOP_WAIT32 ||
		    e[i].op == CUFAB_MEMOP_WAIT64) {
			e[i].flags = rn(t, 4) ? CUFAB_MEMOP_GEQ :
				     CUFAB_MEMOP_NOR;
			e[i].value = e[i].flags == CUFAB_MEMOP_NOR ?
				     1ULL << 31 : 0;
		}
	}
	if (!rn(t, 8))
		e[rn(t, m->count)].flags = rn(t, 6);
	if (!rn(t, 16))
		e[rn(t, m->count)].value = 1 + rn(t, 4);
	m->ops_ptr = (unsigned long)t->scratch;
}

/* Each operation takes its own fields; the others must be 0. */
enum {
	K_DST = 1, K_SRC = 2, K_LEN = 4, K_VAL = 8, K_ELEM = 16, K_HOST = 32,
	K_EVENT = 64,
};

static void submit_keep(struct cufab_stream_submit *s, unsigned int keep)
{
	if (!(keep & K_DST))
		s->dst = 0;
	if (!(keep & K_SRC))
		s->src = 0;
	if (!(keep & K_LEN))
		s->length = 0;
	if (!(keep & K_VAL))
		s->value = 0;
	if (!(keep & K_ELEM))
		s->elem_size = 0;
	if (!(keep & K_HOST)) {
		s->host_fn = 0;
		s->host_data = 0;
	}
	if (!(keep & K_EVENT))
		s->event_id = 0;
}

static void fix_submit(struct thread *t, void *arg)
{
	struct cufab_stream_submit *s = arg;
	struct res r = { 0 };

	switch (s->op) {
	case CUFAB_OP_COPY:
		submit_keep(s, K_DST | K_SRC | K_LEN);
		break;
	case CUFAB_OP_SET:
		submit_keep(s, K_DST | K_LEN | K_VAL | K_ELEM);
		if (s->elem_size == 3)
			s->elem_size = 4;
		s->dst &= ~3ULL;
		if (s->elem_size < 4)
			s->value &= (1U << (8 * s->elem_size)) - 1;
		break;
	case CUFAB_OP_HOST:
		submit_keep(s, K_HOST);
		s->host_fn |= 1;
		break;
	case CUFAB_OP_ATTACH:
		submit_keep(s, 0);
		s->value = 1U << rn(t, 3);
		if (pick(t, R_MANAGED, &r))
			s->dst = r.val;
		s->length = rn(t, 2) ? 0 : r.len;
		break;
	default:	/* EVENT_RECORD, EVENT_WAIT, STREAM_WAIT, NONE */
		submit_keep(s, K_EVENT);
		if (s->op == CUFAB_OP_STREAM_WAIT ? pick(t, R_STREAM, &r) :
		    pick(t, R_EVENT, &r))
			s->event_id = r.val;
		break;
	}
}

/*
 * A graph launch: a few operations of every kind on one picked address,
 * each made valid as fix_submit() makes one; now and then an entry is
 * broken (its size, its stream_id), which must queue nothing.
 */
static void fix_stream_batch(struct thread *t, void *arg)
{
	struct cufab_stream_batch *b = arg;
	struct cufab_stream_submit *e = (void *)t->scratch;
	unsigned long long addr = 0x10000;
	struct res r;
	unsigned int i;

	if (pick(t, R_LEGACY, &r) || pick(t, R_MAP, &r))
		addr = r.val;
	for (i = 0; i < b->count; i++) {
		e[i] = (struct cufab_stream_submit){
			.size = sizeof(e[i]),
			.op = 1 + rn(t, CUFAB_OP_MAX - 1),
			.dst = addr + 64 * rn(t, 4), .src = addr,
			.length = 8 * rn(t, 8), .value = rn(t, 256),
			.elem_size = 1 << rn(t, 3), .host_fn = rn(t, 4),
			.src_dev = CUFAB_DEV_STREAM,
			.dst_dev = CUFAB_DEV_STREAM,
		};
		fix_submit(t, &e[i]);
	}
	if (!rn(t, 16))
		e[rn(t, b->count)].size = rn(t, 2) ? 0 : sizeof(*e) + 8;
	if (!rn(t, 16))
		e[rn(t, b->count)].stream_id = b->stream_id;
	b->ops_ptr = (unsigned long)t->scratch;
}

/* post hooks: what a successful call made that its fields cannot say */

static void post_mem_map(struct thread *t, const void *arg)
{
	const struct cufab_mem_map *m = arg;
	struct res r = { .val = m->addr, .len = m->length, .dev = t->dev };

	if (t->picked & RB(R_MC))
		res_add(t->cl, R_MCMAP, &r);
	else
		res_add(t->cl, R_MAP, &r);
}

static void post_mem_alloc(struct thread *t, const void *arg)
{
	const struct cufab_mem_alloc *m = arg;
	struct res r = { .val = m->out_addr, .len = m->length, .dev = m->dev };

	r.aux = m->flags;
	res_add(t->cl, m->flags & CUFAB_MEM_ALLOC_MANAGED ? R_MANAGED : R_LEGACY, &r);
}

static void post_fd_bytes(struct thread *t, int fd, const unsigned char *b,
			  unsigned int fdkind, unsigned int bkind)
{
	static const unsigned char zero[64];
	struct res r = { .val = (unsigned int)fd, .aux = t->pool };

	if (fd > 2)
		res_add(t->cl, fdkind, &r);
	if (memcmp(b, zero, sizeof(zero))) {
		r.val = 0;
		memcpy(r.bytes, b, sizeof(r.bytes));
		res_add(t->cl, bkind, &r);
	}
}

static void post_mem_export(struct thread *t, const void *arg)
{
	const struct cufab_mem_export *e = arg;

	post_fd_bytes(t, e->out_fd, e->out_fabric, R_FD_DMABUF, R_FAB_MEM);
}

/* A range's dma-buf: MEM_IMPORT must refuse it as a POSIX_FD handle. */
static void post_mem_range_export(struct thread *t, const void *arg)
{
	const struct cufab_mem_range_export *e = arg;
	struct res r = { .val = (unsigned int)e->out_fd, .aux = t->pool };

	if (e->out_fd > 2)
		res_add(t->cl, R_FD_DMABUF, &r);
}

static void post_pool_export(struct thread *t, const void *arg)
{
	const struct cufab_pool_export *e = arg;

	post_fd_bytes(t, e->out_fd, e->out_fabric, R_FD_POOL, R_FAB_POOL);
}

static void post_le_export(struct thread *t, const void *arg)
{
	const struct cufab_le_share *e = arg;

	post_fd_bytes(t, -1, e->fabric, 0, R_FAB_LE);
}

static void post_event_export(struct thread *t, const void *arg)
{
	const struct cufab_event_export *e = arg;

	post_fd_bytes(t, -1, e->out_handle, 0, R_EV_HANDLE);
	mailbox_post(MB_EVENT, e->out_handle);
}

/*
 * Most imports take a handle another worker exported (mailbox.c): the
 * process's own is -ELOOP, and one from the ring is mostly stale.
 */
static void fix_event_import(struct thread *t, void *arg)
{
	struct cufab_event_import *e = arg;

	if (rn(t, 4))
		mailbox_take(t, MB_EVENT, e->handle);
}

static void post_ipc_mem_export(struct thread *t, const void *arg)
{
	const struct cufab_ipc_mem_export *e = arg;

	post_fd_bytes(t, -1, e->out_handle, 0, R_IPC_MEM);
	mailbox_post(MB_IPC_MEM, e->out_handle);
}

static void fix_ipc_mem_import(struct thread *t, void *arg)
{
	struct cufab_ipc_mem_import *m = arg;

	if (rn(t, 4))
		mailbox_take(t, MB_IPC_MEM, m->handle);
}

static void post_ptr_export(struct thread *t, const void *arg)
{
	const struct cufab_pool_ptr_export *e = arg;

	post_fd_bytes(t, -1, e->out_data, 0, R_PTR_DATA);
}

static void post_le_query(struct thread *t, const void *arg)
{
	const struct cufab_le_query *q = arg;
	struct client *cl = t->cl;
	unsigned int i;

	if (!q->out_ready)
		return;
	pthread_mutex_lock(&cl->lock);
	for (i = 0; i < cl->n[R_LE]; i++)
		if (cl->r[R_LE][i].val == q->id)
			cl->r[R_LE][i].ready = true;
	pthread_mutex_unlock(&cl->lock);
}

static void post_pool_grow(struct thread *t, const void *arg)
{
	const struct cufab_pool_grow *g = arg;
	struct res r = { .val = g->out_addr, .len = g->out_length,
			 .aux = g->pool, .dev = t->dev };

	res_add(t->cl, R_CHUNK, &r);
}

static void post_ptr_import(struct thread *t, const void *arg)
{
	const struct cufab_pool_ptr_import *p = arg;
	struct res r = { .val = p->out_addr, .len = p->out_length,
			 .aux = p->pool, .dev = t->dev };

	res_add(t->cl, R_IMPPTR, &r);
}

static void post_hostfn(struct thread *t, const void *arg)
{
	const struct cufab_hostfn *h = arg;
	struct res r = { .val = h->out_token };

	if (h->out_token)
		res_add(t->cl, R_TOKEN, &r);
}

#define POST(fn)	.post = (fn)
#define FIX(fn)		.fix = (fn)
#define BLOCKS		.blocking = true

const struct ioctl_desc fuzz_ioctls[] = {
	IOC(GET_VERSION, cufab_get_version,
	    FLD(cufab_get_version, flags, F_FLAGS),
	    FLD(cufab_get_version, __reserved, F_RSVD)) },
	IOC(NOOP, cufab_noop, FLD(cufab_noop, flags, F_FLAGS)) },
	IOC(DESTROY, cufab_destroy,
	    FLD(cufab_destroy, id, F_RES, .res = R_OBJECTS, .cons = R_OBJECTS)) },
	IOC(DEVICE_INFO, cufab_device_info,
	    FLD(cufab_device_info, index, F_DEV),
	    FLD(cufab_device_info, num_attrs, F_COUNT, .arg = CUFAB_NUM_DEVICE_ATTRS),
	    FLD(cufab_device_info, __reserved, F_RSVD),
	    FLD(cufab_device_info, attrs_ptr, F_PTR)) },
	IOC(CTX_CREATE, cufab_ctx_create,
	    FLD(cufab_ctx_create, flags, F_FLAGS, .arg = 0x1c),
	    FLD(cufab_ctx_create, dev, F_DEV),
	    FLD(cufab_ctx_create, out_ctx_id, F_OUT, .prod = RB(R_CTX))) },
	IOC(IMEX_SET_CHANNEL, cufab_imex_set_channel,
	    FLD(cufab_imex_set_channel, flags, F_FLAGS),
	    FLD(cufab_imex_set_channel, fd, F_FD, .res = RB(R_FD_IMEX))) },
	IOC(MEM_CREATE, cufab_mem_create,
	    FLD(cufab_mem_create, flags, F_FLAGS),
	    FLD(cufab_mem_create, location_type, F_LOCTYPE, ENUM(1, 3)),
	    FLD(cufab_mem_create, location_id, F_LOCID),
	    FLD(cufab_mem_create, handle_types, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_mem_create, alloc_flags, F_FLAGS, .arg = CUFAB_ALLOC_F_GPU_DIRECT_RDMA),
	    FLD(cufab_mem_create, length, F_LEN),
	    FLD(cufab_mem_create, out_handle, F_OUT, .prod = RB(R_MEM)),
	    FLD(cufab_mem_create, __reserved, F_RSVD)) },
	IOC(MEM_RELEASE, cufab_mem_release,
	    FLD(cufab_mem_release, handle, F_RES, .res = RB(R_MEM) | RB(R_MC),
		.cons = RB(R_MEM) | RB(R_MC))) },
	IOC(MEM_RETAIN, cufab_mem_retain,
	    FLD(cufab_mem_retain, flags, F_FLAGS),
	    FLD(cufab_mem_retain, addr, F_ADDR, .res = RB(R_MAP) | RB(R_MCMAP)),
	    FLD(cufab_mem_retain, out_handle, F_OUT, .prod = RB(R_MEM)),
	    FLD(cufab_mem_retain, __reserved, F_RSVD)) },
	IOC(MEM_GET_PROPS, cufab_mem_get_props,
	    FLD(cufab_mem_get_props, handle, F_RES, .res = RB(R_MEM) | RB(R_MC))) },
	IOC(MEM_GET_INFO, cufab_mem_get_info,
	    FLD(cufab_mem_get_info, dev, F_DEV)) },
	IOC(VA_RESERVE, cufab_va_reserve,
	    FLD(cufab_va_reserve, flags, F_FLAGS),
	    FLD(cufab_va_reserve, length, F_LEN),
	    FLD(cufab_va_reserve, alignment, F_RSVD),
	    FLD(cufab_va_reserve, addr, F_RSVD, .prod = RB(R_VA))) },
	IOC(VA_FREE, cufab_va_free,
	    FLD(cufab_va_free, flags, F_FLAGS),
	    FLD(cufab_va_free, addr, F_ADDR, .res = RB(R_VA), .cons = RB(R_VA)),
	    FLD(cufab_va_free, length, F_LEN)) },
	IOC(MEM_MAP, cufab_mem_map,
	    FLD(cufab_mem_map, flags, F_FLAGS),
	    FLD(cufab_mem_map, addr, F_ADDR, .res = RB(R_VA)),
	    FLD(cufab_mem_map, length, F_LEN),
	    FLD(cufab_mem_map, offset, F_OFF),
	    FLD(cufab_mem_map, handle, F_RES, .res = RB(R_MEM) | RB(R_MC)),
	    FLD(cufab_mem_map, __reserved, F_RSVD)), POST(post_mem_map) },
	IOC(MEM_UNMAP, cufab_mem_unmap,
	    FLD(cufab_mem_unmap, flags, F_FLAGS),
	    FLD(cufab_mem_unmap, addr, F_ADDR, .res = RB(R_MAP) | RB(R_MCMAP),
		.cons = RB(R_MAP) | RB(R_MCMAP)),
	    FLD(cufab_mem_unmap, length, F_LEN)) },
	IOC(MEM_SET_ACCESS, cufab_mem_set_access,
	    FLD(cufab_mem_set_access, num_descs, F_COUNT, .arg = 2),
	    FLD(cufab_mem_set_access, addr, F_ADDR,
		.res = RB(R_MAP) | RB(R_MCMAP) | RB(R_VA)),
	    FLD(cufab_mem_set_access, length, F_LEN),
	    FLD(cufab_mem_set_access, descs_ptr, F_PTR)) },
	IOC(MEM_GET_ACCESS, cufab_mem_get_access,
	    FLD(cufab_mem_get_access, location_type, F_LOCTYPE, ENUM(1, 2)),
	    FLD(cufab_mem_get_access, location_id, F_LOCID),
	    FLD(cufab_mem_get_access, addr, F_ADDR, .res = R_ADDRS)) },
	IOC(MEM_ALLOC, cufab_mem_alloc,
	    FLD(cufab_mem_alloc, flags, F_FLAGS,
		.arg = CUFAB_MEM_ALLOC_HOST | CUFAB_MEM_ALLOC_MANAGED),
	    FLD(cufab_mem_alloc, dev, F_DEV),
	    FLD(cufab_mem_alloc, attach, F_ENUM, ENUM(0, 2)),
	    FLD(cufab_mem_alloc, length, F_LEN, .arg = 4096),
	    FLD(cufab_mem_alloc, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_mem_alloc, host_flags, F_FLAGS, .arg = CUFAB_HOSTALLOC_VALID)),
	    POST(post_mem_alloc), FIX(fix_mem_alloc) },
	IOC(MEM_FREE, cufab_mem_free,
	    FLD(cufab_mem_free, flags, F_FLAGS,
		.arg = CUFAB_MEM_ALLOC_HOST | CUFAB_MEM_FREE_IPC),
	    FLD(cufab_mem_free, addr, F_ADDR,
		.res = RB(R_LEGACY) | RB(R_MANAGED) | RB(R_IPCMAP),
		.cons = RB(R_LEGACY) | RB(R_MANAGED) | RB(R_IPCMAP))),
	    FIX(fix_mem_free) },
	IOC(MEM_COPY, cufab_mem_copy,
	    FLD(cufab_mem_copy, flags, F_FLAGS),
	    FLD(cufab_mem_copy, dev, F_DEV),
	    FLD(cufab_mem_copy, __reserved, F_RSVD),
	    FLD(cufab_mem_copy, dst, F_ADDR, .res = R_ADDRS),
	    FLD(cufab_mem_copy, src, F_ADDR, .res = R_ADDRS),
	    FLD(cufab_mem_copy, length, F_LEN, .arg = 64)) },
	IOC(MEM_SET, cufab_mem_set,
	    FLD(cufab_mem_set, flags, F_FLAGS),
	    FLD(cufab_mem_set, dev, F_DEV),
	    FLD(cufab_mem_set, elem_size, F_ENUM, ENUM(1, 4)),
	    FLD(cufab_mem_set, dst, F_ADDR, .res = R_ADDRS),
	    FLD(cufab_mem_set, count, F_LEN, .arg = 16),
	    FLD(cufab_mem_set, value, F_VAL, .arg = 256),
	    FLD(cufab_mem_set, __reserved, F_RSVD)) },
	IOC(POINTER_INFO, cufab_pointer_info,
	    FLD(cufab_pointer_info, flags, F_FLAGS),
	    FLD(cufab_pointer_info, addr, F_ADDR, .res = R_ADDRS | RB(R_VA))) },
	IOC(MEM_EXPORT, cufab_mem_export,
	    FLD(cufab_mem_export, flags, F_FLAGS),
	    FLD(cufab_mem_export, handle, F_RES, .res = RB(R_MEM) | RB(R_MC)),
	    FLD(cufab_mem_export, handle_type, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_mem_export, __reserved, F_RSVD)), POST(post_mem_export) },
	IOC(MEM_IMPORT, cufab_mem_import,
	    FLD(cufab_mem_import, flags, F_FLAGS),
	    FLD(cufab_mem_import, handle_type, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_mem_import, fd, F_FD, .res = RB(R_FD_DMABUF)),
	    FLD(cufab_mem_import, fabric, F_BYTES, .res = RB(R_FAB_MEM)),
	    FLD(cufab_mem_import, out_handle, F_OUT, .prod = RB(R_MEM) | RB(R_MC)),
	    FLD(cufab_mem_import, __reserved, F_RSVD)), FIX(fix_mem_import) },
	IOC(LE_ID_RESERVE, cufab_le_id_reserve,
	    FLD(cufab_le_id_reserve, flags, F_FLAGS),
	    FLD(cufab_le_id_reserve, count, F_COUNT, .arg = 4),
	    FLD(cufab_le_id_reserve, out_base, F_OUT, .prod = RB(R_LEID))) },
	IOC(LE_ID_RELEASE, cufab_le_id_release,
	    FLD(cufab_le_id_release, flags, F_FLAGS),
	    FLD(cufab_le_id_release, base, F_RES, .res = RB(R_LEID), .cons = RB(R_LEID)),
	    FLD(cufab_le_id_release, count, F_COUNT, .arg = 1)) },
	IOC(LE_CREATE, cufab_le_create,
	    FLD(cufab_le_create, flags, F_FLAGS),
	    FLD(cufab_le_create, id, F_RES, .res = RB(R_LEID), .cons = RB(R_LEID),
		.prod = RB(R_LE)),
	    FLD(cufab_le_create, __reserved, F_RSVD),
	    FLD(cufab_le_create, prop.type, F_ENUM, ENUM(1, 2)),
	    FLD(cufab_le_create, prop.dev_or_num, F_DEV),
	    FLD(cufab_le_create, prop.length, F_LEN, .arg = 2 * MIB),
	    FLD(cufab_le_create, prop.ipc_handle_types, F_FLAGS, .arg = CUFAB_LE_IPC_FABRIC),
	    FLD(cufab_le_create, prop.le_flags, F_FLAGS, .arg = CUFAB_LE_FLAG_COUNTED_OPS)),
	    FIX(fix_le_create) },
	IOC(LE_DESTROY, cufab_le_destroy,
	    FLD(cufab_le_destroy, id, F_RES, .res = RB(R_LE), .cons = RB(R_LE),
		.prod = RB(R_LEID))) },
	IOC(LE_ADD_DEVICE, cufab_le_add_device,
	    FLD(cufab_le_add_device, id, F_RES, .res = RB(R_LE)),
	    FLD(cufab_le_add_device, dev, F_DEV),
	    FLD(cufab_le_add_device, __reserved, F_RSVD)), FIX(fix_le_add),
	    POST(post_le_add) },
	IOC(LE_QUERY, cufab_le_query,
	    FLD(cufab_le_query, flags, F_FLAGS),
	    FLD(cufab_le_query, id, F_RES, .res = RB(R_LE)),
	    FLD(cufab_le_query, count, F_COUNT, .arg = 1),
	    FLD(cufab_le_query, __reserved, F_RSVD)), POST(post_le_query) },
	IOC(LE_GET_LIMITS, cufab_le_get_limits,
	    FLD(cufab_le_get_limits, flags, F_FLAGS),
	    FLD(cufab_le_get_limits, prop.type, F_ENUM, ENUM(1, 2)),
	    FLD(cufab_le_get_limits, prop.dev_or_num, F_DEV),
	    FLD(cufab_le_get_limits, prop.length, F_LEN, .arg = 2 * MIB),
	    FLD(cufab_le_get_limits, prop.ipc_handle_types, F_FLAGS, .arg = CUFAB_LE_IPC_FABRIC),
	    FLD(cufab_le_get_limits, prop.le_flags, F_FLAGS, .arg = CUFAB_LE_FLAG_COUNTED_OPS)) },
	IOC(LE_BIND, cufab_le_bind,
	    FLD(cufab_le_bind, flags, F_FLAGS, .arg = CUFAB_BIND_ADDR),
	    FLD(cufab_le_bind, id, F_RES, .res = RB(R_LE)),
	    FLD(cufab_le_bind, dev, F_DEV),
	    FLD(cufab_le_bind, offset, F_OFF),
	    FLD(cufab_le_bind, length, F_LEN),
	    FLD(cufab_le_bind, mem_handle, F_RES, .res = RB(R_MEM)),
	    FLD(cufab_le_bind, __reserved, F_RSVD),
	    FLD(cufab_le_bind, mem_offset, F_OFF),
	    FLD(cufab_le_bind, addr, F_ADDR, .res = RB(R_MAP)),
	    FLD(cufab_le_bind, bind_flags, F_RSVD)), FIX(fix_le_bind),
	    POST(post_le_bind) },
	IOC(LE_UNBIND, cufab_le_unbind,
	    FLD(cufab_le_unbind, flags, F_FLAGS),
	    FLD(cufab_le_unbind, id, F_RES, .res = RB(R_LE)),
	    FLD(cufab_le_unbind, dev, F_DEV),
	    FLD(cufab_le_unbind, offset, F_OFF),
	    FLD(cufab_le_unbind, length, F_LEN)), FIX(fix_le_unbind) },
	IOC(LE_EXPORT, cufab_le_share,
	    FLD(cufab_le_share, flags, F_FLAGS),
	    FLD(cufab_le_share, id, F_RES, .res = RB(R_LE)),
	    FLD(cufab_le_share, handle_type, F_CONST, .arg = CUFAB_LE_IPC_FABRIC),
	    FLD(cufab_le_share, dev, F_SDEV),
	    FLD(cufab_le_share, __reserved, F_RSVD)), POST(post_le_export) },
	IOC(LE_IMPORT, cufab_le_share,
	    FLD(cufab_le_share, flags, F_FLAGS),
	    FLD(cufab_le_share, id, F_RES, .res = RB(R_LEID), .cons = RB(R_LEID),
		.prod = RB(R_LE)),
	    FLD(cufab_le_share, handle_type, F_CONST, .arg = CUFAB_LE_IPC_FABRIC),
	    FLD(cufab_le_share, fabric, F_BYTES, .res = RB(R_FAB_LE)),
	    FLD(cufab_le_share, dev, F_SDEV),
	    FLD(cufab_le_share, __reserved, F_RSVD)) },
	IOC(MC_CREATE, cufab_mc_create,
	    FLD(cufab_mc_create, flags, F_FLAGS),
	    FLD(cufab_mc_create, num_devices, F_COUNT, .arg = 2),
	    FLD(cufab_mc_create, handle_types, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_mc_create, length, F_LEN),
	    FLD(cufab_mc_create, mc_flags, F_RSVD),
	    FLD(cufab_mc_create, out_handle, F_OUT, .prod = RB(R_MC)),
	    FLD(cufab_mc_create, __reserved, F_RSVD)), POST(post_mc_create) },
	IOC(MC_ADD_DEVICE, cufab_mc_add_device,
	    FLD(cufab_mc_add_device, handle, F_RES, .res = RB(R_MC)),
	    FLD(cufab_mc_add_device, dev, F_DEV),
	    FLD(cufab_mc_add_device, __reserved, F_RSVD)), FIX(fix_mc_add), POST(post_mc_add) },
	IOC(MC_BIND, cufab_mc_bind,
	    FLD(cufab_mc_bind, flags, F_FLAGS, .arg = CUFAB_BIND_ADDR),
	    FLD(cufab_mc_bind, handle, F_RES, .res = RB(R_MC)),
	    FLD(cufab_mc_bind, mem_handle, F_RES, .res = RB(R_MEM)),
	    FLD(cufab_mc_bind, dev, F_SDEV),
	    FLD(cufab_mc_bind, offset, F_OFF),
	    FLD(cufab_mc_bind, length, F_LEN),
	    FLD(cufab_mc_bind, __reserved, F_RSVD),
	    FLD(cufab_mc_bind, mem_offset, F_OFF),
	    FLD(cufab_mc_bind, addr, F_ADDR, .res = RB(R_MAP)),
	    FLD(cufab_mc_bind, bind_flags, F_RSVD)), BLOCKS, FIX(fix_mc_bind),
	    POST(post_mc_bind) },
	IOC(MC_UNBIND, cufab_mc_unbind,
	    FLD(cufab_mc_unbind, flags, F_FLAGS),
	    FLD(cufab_mc_unbind, handle, F_RES, .res = RB(R_MC)),
	    FLD(cufab_mc_unbind, dev, F_DEV),
	    FLD(cufab_mc_unbind, offset, F_OFF),
	    FLD(cufab_mc_unbind, length, F_LEN)), FIX(fix_mc_unbind) },
	IOC(MULTIMEM, cufab_multimem,
	    FLD(cufab_multimem, flags, F_FLAGS),
	    FLD(cufab_multimem, op, F_ENUM, ENUM(CUFAB_MM_STORE, CUFAB_MM_REDUCE)),
	    FLD(cufab_multimem, redop, F_ENUM, ENUM(CUFAB_RED_ADD, CUFAB_RED_XOR)),
	    FLD(cufab_multimem, dtype, F_ENUM, ENUM(CUFAB_DT_U8, CUFAB_DT_F64)),
	    FLD(cufab_multimem, __reserved, F_RSVD),
	    FLD(cufab_multimem, addr, F_ADDR, .res = RB(R_MCMAP)),
	    FLD(cufab_multimem, count, F_LEN, .arg = 1),
	    FLD(cufab_multimem, buf, F_PTR)), FIX(fix_multimem) },
	IOC(PEER_ENABLE, cufab_peer,
	    FLD(cufab_peer, flags, F_FLAGS),
	    FLD(cufab_peer, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_peer, peer_ctx_id, F_RES, .res = RB(R_CTX))),
	    POST(post_peer_enable) },
	IOC(PEER_DISABLE, cufab_peer,
	    FLD(cufab_peer, flags, F_FLAGS),
	    FLD(cufab_peer, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_peer, peer_ctx_id, F_RES, .res = RB(R_CTX))),
	    FIX(fix_peer_disable) },
	IOC(STREAM_CREATE, cufab_stream_create,
	    FLD(cufab_stream_create, flags, F_FLAGS, .arg = CUFAB_STREAM_FLAGS),
	    FLD(cufab_stream_create, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_stream_create, priority, F_ENUM, ENUM(CUFAB_STREAM_PRIO_GREATEST, 0)),
	    FLD(cufab_stream_create, out_stream_id, F_OUT, .prod = RB(R_STREAM))) },
	IOC(EVENT_CREATE, cufab_event_create,
	    FLD(cufab_event_create, flags, F_FLAGS, .arg = CUFAB_EVENT_FLAGS),
	    FLD(cufab_event_create, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_event_create, out_event_id, F_OUT, .prod = RB(R_EVENT)),
	    FLD(cufab_event_create, __reserved, F_RSVD)), FIX(fix_event_create) },
	IOC(STREAM_SUBMIT, cufab_stream_submit,
	    FLD(cufab_stream_submit, flags, F_FLAGS),
	    FLD(cufab_stream_submit, stream_id, F_RES, .res = RB(R_STREAM)),
	    FLD(cufab_stream_submit, op, F_ENUM, ENUM(CUFAB_OP_NONE, CUFAB_OP_MAX - 1)),
	    FLD(cufab_stream_submit, dst, F_ADDR, .res = R_ADDRS),
	    FLD(cufab_stream_submit, src, F_ADDR, .res = R_ADDRS),
	    FLD(cufab_stream_submit, length, F_LEN, .arg = 64),
	    FLD(cufab_stream_submit, value, F_VAL, .arg = 256),
	    FLD(cufab_stream_submit, elem_size, F_ENUM, ENUM(1, 4)),
	    FLD(cufab_stream_submit, src_dev, F_CONST, .arg = CUFAB_DEV_STREAM),
	    FLD(cufab_stream_submit, dst_dev, F_CONST, .arg = CUFAB_DEV_STREAM),
	    FLD(cufab_stream_submit, host_fn, F_VAL),
	    FLD(cufab_stream_submit, host_data, F_VAL),
	    FLD(cufab_stream_submit, event_id, F_RES, .res = RB(R_EVENT) | RB(R_STREAM)),
	    FLD(cufab_stream_submit, __reserved, F_RSVD)), FIX(fix_submit) },
	IOC(STREAM_WAIT, cufab_stream_wait,
	    FLD(cufab_stream_wait, flags, F_FLAGS, .arg = CUFAB_WAIT_POLL),
	    FLD(cufab_stream_wait, what, F_ENUM, ENUM(CUFAB_WAIT_STREAM, CUFAB_WAIT_CTX)),
	    FLD(cufab_stream_wait, id, F_RES,
		.res = RB(R_STREAM) | RB(R_EVENT) | RB(R_CTX)),
	    FLD(cufab_stream_wait, seq, F_RSVD),
	    FLD(cufab_stream_wait, __reserved, F_RSVD)), BLOCKS },
	IOC(HOSTFN, cufab_hostfn,
	    FLD(cufab_hostfn, flags, F_FLAGS, .arg = CUFAB_HOSTFN_DONE),
	    FLD(cufab_hostfn, done_token, F_RES, .res = RB(R_TOKEN), .cons = RB(R_TOKEN)),
	    FLD(cufab_hostfn, __reserved, F_RSVD)), BLOCKS, POST(post_hostfn), FIX(fix_hostfn) },
	IOC(POOL_CREATE, cufab_pool_create,
	    FLD(cufab_pool_create, flags, F_FLAGS, .arg = CUFAB_POOL_CREATE_DEFAULT),
	    FLD(cufab_pool_create, alloc_type, F_CONST, .arg = CUFAB_POOL_ALLOC_PINNED),
	    FLD(cufab_pool_create, handle_types, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_pool_create, location_type, F_LOCTYPE, ENUM(1, 3)),
	    FLD(cufab_pool_create, location_id, F_LOCID),
	    FLD(cufab_pool_create, max_size, F_RSVD),
	    FLD(cufab_pool_create, usage, F_RSVD),
	    FLD(cufab_pool_create, out_pool, F_OUT, .prod = RB(R_POOL))) },
	IOC(POOL_ATTR, cufab_pool_attr,
	    FLD(cufab_pool_attr, flags, F_FLAGS, .arg = CUFAB_POOL_ATTR_SET),
	    FLD(cufab_pool_attr, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_attr, attr, F_ENUM, ENUM(1, 6)),
	    FLD(cufab_pool_attr, value, F_VAL, .arg = 2)) },
	IOC(POOL_GROW, cufab_pool_grow,
	    FLD(cufab_pool_grow, flags, F_FLAGS),
	    FLD(cufab_pool_grow, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_grow, __reserved, F_RSVD),
	    FLD(cufab_pool_grow, length, F_LEN, .arg = 4096)), POST(post_pool_grow) },
	IOC(POOL_SHRINK, cufab_pool_shrink,
	    FLD(cufab_pool_shrink, flags, F_FLAGS),
	    FLD(cufab_pool_shrink, addr, F_ADDR, .res = RB(R_CHUNK), .cons = RB(R_CHUNK)),
	    FLD(cufab_pool_shrink, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_shrink, __reserved, F_RSVD)) },
	IOC(POOL_SET_ACCESS, cufab_pool_set_access,
	    FLD(cufab_pool_set_access, flags, F_FLAGS),
	    FLD(cufab_pool_set_access, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_set_access, num_descs, F_COUNT, .arg = 2),
	    FLD(cufab_pool_set_access, descs_ptr, F_PTR)) },
	IOC(POOL_GET_ACCESS, cufab_pool_get_access,
	    FLD(cufab_pool_get_access, flags, F_FLAGS),
	    FLD(cufab_pool_get_access, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_get_access, location_type, F_LOCTYPE, ENUM(1, 2)),
	    FLD(cufab_pool_get_access, location_id, F_LOCID)) },
	IOC(POOL_EXPORT, cufab_pool_export,
	    FLD(cufab_pool_export, flags, F_FLAGS),
	    FLD(cufab_pool_export, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_export, handle_type, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_pool_export, __reserved, F_RSVD)), POST(post_pool_export) },
	IOC(POOL_IMPORT, cufab_pool_import,
	    FLD(cufab_pool_import, flags, F_FLAGS),
	    FLD(cufab_pool_import, handle_type, F_FLAGS,
		.arg = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC),
	    FLD(cufab_pool_import, fd, F_FD, .res = RB(R_FD_POOL)),
	    FLD(cufab_pool_import, fabric, F_BYTES, .res = RB(R_FAB_POOL)),
	    FLD(cufab_pool_import, out_pool, F_OUT, .prod = RB(R_POOL) | RB(R_IMPPOOL))),
	    FIX(fix_pool_import) },
	IOC(POOL_PTR_EXPORT, cufab_pool_ptr_export,
	    FLD(cufab_pool_ptr_export, flags, F_FLAGS),
	    FLD(cufab_pool_ptr_export, addr, F_ADDR, .res = RB(R_CHUNK)),
	    FLD(cufab_pool_ptr_export, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_ptr_export, __reserved, F_RSVD),
	    FLD(cufab_pool_ptr_export, length, F_LEN, .arg = 4096)),
	    POST(post_ptr_export) },
	IOC(POOL_PTR_IMPORT, cufab_pool_ptr_import,
	    FLD(cufab_pool_ptr_import, flags, F_FLAGS),
	    FLD(cufab_pool_ptr_import, data, F_BYTES, .res = RB(R_PTR_DATA)),
	    FLD(cufab_pool_ptr_import, pool, F_RES, .res = RB(R_IMPPOOL)),
	    FLD(cufab_pool_ptr_import, __reserved, F_RSVD)), POST(post_ptr_import) },
	IOC(POOL_PTR_RELEASE, cufab_pool_ptr_release,
	    FLD(cufab_pool_ptr_release, flags, F_FLAGS),
	    FLD(cufab_pool_ptr_release, addr, F_ADDR, .res = RB(R_IMPPTR) | RB(R_CHUNK),
		.cons = RB(R_IMPPTR)),
	    FLD(cufab_pool_ptr_release, pool, F_RES, .res = RB(R_POOL)),
	    FLD(cufab_pool_ptr_release, __reserved, F_RSVD)) },
	IOC(MEM_ADVISE, cufab_mem_advise,
	    FLD(cufab_mem_advise, advice, F_ENUM, ENUM(1, 6)),
	    FLD(cufab_mem_advise, addr, F_ADDR, .res = RB(R_MANAGED)),
	    FLD(cufab_mem_advise, length, F_LEN, .arg = 4096),
	    FLD(cufab_mem_advise, location_type, F_LOCTYPE, ENUM(1, 4)),
	    FLD(cufab_mem_advise, location_id, F_LOCID)) },
	IOC(MEM_PREFETCH, cufab_mem_prefetch,
	    FLD(cufab_mem_prefetch, flags, F_FLAGS),
	    FLD(cufab_mem_prefetch, addr, F_ADDR, .res = RB(R_MANAGED)),
	    FLD(cufab_mem_prefetch, length, F_LEN, .arg = 4096),
	    FLD(cufab_mem_prefetch, location_type, F_LOCTYPE, ENUM(1, 4)),
	    FLD(cufab_mem_prefetch, location_id, F_LOCID),
	    FLD(cufab_mem_prefetch, dev, F_DEV),
	    FLD(cufab_mem_prefetch, __reserved, F_RSVD)) },
	IOC(MEM_RANGE_ATTRS, cufab_mem_range_attrs,
	    FLD(cufab_mem_range_attrs, flags, F_FLAGS),
	    FLD(cufab_mem_range_attrs, addr, F_ADDR, .res = RB(R_MANAGED)),
	    FLD(cufab_mem_range_attrs, length, F_LEN, .arg = 4096),
	    FLD(cufab_mem_range_attrs, node, F_SDEV),
	    FLD(cufab_mem_range_attrs, __reserved, F_RSVD),
	    FLD(cufab_mem_range_attrs, __reserved2, F_RSVD)) },
	IOC(EVENT_EXPORT, cufab_event_export,
	    FLD(cufab_event_export, flags, F_FLAGS),
	    FLD(cufab_event_export, event_id, F_RES, .res = RB(R_EVENT)),
	    FLD(cufab_event_export, __reserved, F_RSVD)), POST(post_event_export) },
	IOC(EVENT_IMPORT, cufab_event_import,
	    FLD(cufab_event_import, flags, F_FLAGS),
	    FLD(cufab_event_import, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_event_import, handle, F_BYTES, .res = RB(R_EV_HANDLE)),
	    FLD(cufab_event_import, out_event_id, F_OUT, .prod = RB(R_EVENT))),
	    FIX(fix_event_import) },
	IOC(STREAM_MEMOP, cufab_stream_memop,
	    FLD(cufab_stream_memop, flags, F_FLAGS),
	    FLD(cufab_stream_memop, stream_id, F_RES, .res = RB(R_STREAM)),
	    FLD(cufab_stream_memop, count, F_COUNT, .arg = 4),
	    FLD(cufab_stream_memop, ops_ptr, F_PTR)), FIX(fix_stream_memop) },
	IOC(IPC_MEM_EXPORT, cufab_ipc_mem_export,
	    FLD(cufab_ipc_mem_export, flags, F_FLAGS),
	    FLD(cufab_ipc_mem_export, addr, F_ADDR, .res = RB(R_LEGACY))),
	    POST(post_ipc_mem_export) },
	IOC(IPC_MEM_IMPORT, cufab_ipc_mem_import,
	    FLD(cufab_ipc_mem_import, flags, F_FLAGS),
	    FLD(cufab_ipc_mem_import, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_ipc_mem_import, peer_dev, F_DEV),
	    FLD(cufab_ipc_mem_import, handle, F_BYTES, .res = RB(R_IPC_MEM)),
	    FLD(cufab_ipc_mem_import, out_addr, F_OUT, .prod = RB(R_IPCMAP)),
	    FLD(cufab_ipc_mem_import, __reserved, F_RSVD)),
	    FIX(fix_ipc_mem_import) },
	/* the thread's own buffer: registered, copied to, unregistered */
	IOC(HOST_REGISTER, cufab_host_register,
	    FLD(cufab_host_register, flags, F_FLAGS, .arg = CUFAB_HOSTREG_VALID),
	    FLD(cufab_host_register, ctx_id, F_RES, .res = RB(R_CTX)),
	    FLD(cufab_host_register, __reserved, F_RSVD),
	    FLD(cufab_host_register, addr, F_PTR),
	    FLD(cufab_host_register, length, F_LEN, .arg = 64),
	    FLD(cufab_host_register, out_id, F_OUT)) },
	IOC(HOST_UNREGISTER, cufab_host_unregister,
	    FLD(cufab_host_unregister, flags, F_FLAGS),
	    FLD(cufab_host_unregister, addr, F_PTR)) },
	IOC(STREAM_BATCH, cufab_stream_batch,
	    FLD(cufab_stream_batch, flags, F_FLAGS),
	    FLD(cufab_stream_batch, stream_id, F_RES, .res = RB(R_STREAM)),
	    FLD(cufab_stream_batch, count, F_COUNT, .arg = 8),
	    FLD(cufab_stream_batch, ops_ptr, F_PTR)), FIX(fix_stream_batch) },
	/* every kind of mapped address: the kinds refused are EOPNOTSUPP */
	IOC(MEM_RANGE_EXPORT, cufab_mem_range_export,
	    FLD(cufab_mem_range_export, flags, F_FLAGS),
	    FLD(cufab_mem_range_export, addr, F_ADDR, .res = R_ADDRS | RB(R_VA)),
	    FLD(cufab_mem_range_export, length, F_LEN, .arg = 4096),
	    FLD(cufab_mem_range_export, __reserved, F_RSVD)),
	    POST(post_mem_range_export) },
};

/* Every ioctl of the uAPI has its entry: a new CUFAB_CMD_* needs one. */
_Static_assert(ARRAY_SIZE(fuzz_ioctls) == NR_IOCTLS,
	       "an ioctl of the uAPI header has no description in the fuzzer's table");

const unsigned int fuzz_nioctls = ARRAY_SIZE(fuzz_ioctls);
