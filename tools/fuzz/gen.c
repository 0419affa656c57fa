// SPDX-License-Identifier: GPL-2.0
/*
 * The generator: one ioctl call from its description (table.c). Fields
 * that name resources are filled first, from what earlier calls of the
 * client returned; the first resource picked sets the call's device,
 * length, address and pool, so the other fields agree with it. A mutated
 * call then replaces one or two fields (or the size) with a value chosen
 * to hit an edge: 0, all ones, the top bit, off by one, a kernel address.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#define GRAN		(2ULL << 20)
#define BUF_MAX		8192

static bool fd_kind(unsigned int k)
{
	return k == R_FD_DMABUF || k == R_FD_POOL;
}

void client_init(struct client *cl, int fd, int ngpus)
{
	memset(cl, 0, sizeof(*cl));
	cl->fd = fd;
	cl->ngpus = ngpus;
	pthread_mutex_init(&cl->lock, NULL);
}

void client_fini(struct client *cl)
{
	unsigned int k, i;

	for (k = 0; k < R_NKINDS; k++)
		for (i = 0; fd_kind(k) && i < cl->n[k]; i++)
			close(cl->r[k][i].val);
	memset(cl->n, 0, sizeof(cl->n));
}

/* Keep @r as a @kind; a full list drops its oldest entry. */
void res_add(struct client *cl, unsigned int kind, const struct res *r)
{
	struct res *v;
	unsigned int i;

	pthread_mutex_lock(&cl->lock);
	v = cl->r[kind];
	for (i = 0; !fd_kind(kind) && r->val && i < cl->n[kind]; i++) {
		if (v[i].val == r->val) {
			v[i] = *r;
			goto out;
		}
	}
	if (cl->n[kind] == RES_MAX) {
		if (fd_kind(kind))
			close(v[0].val);
		memmove(v, v + 1, (RES_MAX - 1) * sizeof(*v));
		cl->n[kind]--;
	}
	v[cl->n[kind]++] = *r;
out:
	pthread_mutex_unlock(&cl->lock);
}

void res_forget(struct client *cl, unsigned int mask, unsigned long long val)
{
	unsigned int k, i;

	pthread_mutex_lock(&cl->lock);
	for (k = 0; k < R_NKINDS; k++) {
		if (!(mask & RB(k)) || fd_kind(k))
			continue;
		for (i = 0; i < cl->n[k]; i++) {
			if (cl->r[k][i].val != val)
				continue;
			cl->r[k][i] = cl->r[k][--cl->n[k]];
			i--;
		}
	}
	pthread_mutex_unlock(&cl->lock);
}

/* Remove an fd of @kind from the client (the caller owns it); -1 if none. */
int fd_take(struct client *cl, unsigned int kind)
{
	int fd = -1;

	pthread_mutex_lock(&cl->lock);
	if (cl->n[kind]) {
		fd = cl->r[kind][0].val;
		memmove(cl->r[kind], cl->r[kind] + 1,
			--cl->n[kind] * sizeof(struct res));
	}
	pthread_mutex_unlock(&cl->lock);
	return fd;
}

/* How well @r fits what the call has picked so far. */
static int fit(const struct thread *t, unsigned int kind, const struct res *r)
{
	int s = 0;

	if (t->dev >= 0 && r->dev == t->dev)
		s += 2;
	if (t->len && r->len >= t->len)
		s += 1;
	if (kind == R_LE && r->ready)
		s += 3;
	if (t->pool && (r->aux == t->pool ||
			(kind == R_POOL && r->val == t->pool)))
		s += 4;
	return s;
}

/* The best of four random resources of the kinds in @mask. */
bool res_pick(struct thread *t, unsigned int mask, struct res *out,
	      unsigned int *kind)
{
	struct client *cl = t->cl;
	unsigned int k, total = 0, i, j, best = 0;
	int bs = -1;

	pthread_mutex_lock(&cl->lock);
	for (k = 0; k < R_NKINDS; k++)
		if (mask & RB(k))
			total += cl->n[k];
	for (i = 0; total && i < 4; i++) {
		unsigned int n = rn(t, total);

		for (k = 0; k < R_NKINDS; k++) {
			if (!(mask & RB(k)))
				continue;
			if (n < cl->n[k])
				break;
			n -= cl->n[k];
		}
		j = fit(t, k, &cl->r[k][n]);
		if ((int)j > bs) {
			bs = j;
			best = k;
			*out = cl->r[k][n];
		}
	}
	pthread_mutex_unlock(&cl->lock);
	if (bs < 0)
		return false;
	*kind = best;
	return true;
}

static void put(void *buf, const struct field *f, unsigned long long v)
{
	unsigned char *p = (unsigned char *)buf + f->off;

	unsigned short x16 = v;
	unsigned int x32 = v;

	switch (f->width) {
	case 1:
		*p = v;
		break;
	case 2:
		memcpy(p, &x16, 2);
		break;
	case 4:
		memcpy(p, &x32, 4);
		break;
	case 8:
		memcpy(p, &v, 8);
		break;
	}
}

static unsigned long long get(const void *buf, const struct field *f)
{
	const unsigned char *p = (const unsigned char *)buf + f->off;
	unsigned int x;
	unsigned long long v;

	switch (f->width) {
	case 1:
		return *p;
	case 2:
		return p[0] | p[1] << 8;
	case 4:
		memcpy(&x, p, 4);
		return x;
	case 8:
		memcpy(&v, p, 8);
		return v;
	}
	return 0;
}

/* Remember what a picked resource says about the call. */
static void note(struct thread *t, unsigned int kind, const struct res *r)
{
	if (!t->picked) {
		t->pick0 = *r;
		t->pick0_kind = kind;
	}
	t->picked |= RB(kind);
	if (t->dev < 0 && r->dev >= 0 && kind != R_MC)
		t->dev = r->dev;
	if (r->len && (!t->len || r->len < t->len))
		t->len = r->len;
	if (!t->addr && (R_ADDRS | RB(R_VA)) & RB(kind))
		t->addr = r->val;
	/*
	 * An export's fd, fabric handle and pointer data remember their
	 * pool: a pool imported from them remembers it too, so that the
	 * pointer data of that pool picks the pool imported from it.
	 */
	if (!t->pool) {
		if (kind == R_POOL)
			t->pool = r->val;
		else if (kind == R_CHUNK || kind == R_IMPPTR ||
			 kind == R_FD_POOL || kind == R_FAB_POOL ||
			 kind == R_PTR_DATA)
			t->pool = r->aux;
	}
}

static int pick_dev(struct thread *t)
{
	if (t->dev < 0 || !rn(t, 10))
		t->dev = rn(t, t->cl->ngpus);
	return t->dev;
}

static unsigned long long flags_of(struct thread *t, unsigned long long mask)
{
	unsigned int bits[64], n = 0, b;

	for (b = 0; b < 64; b++)
		if (mask & (1ULL << b))
			bits[n++] = b;
	switch (rn(t, 4)) {
	case 0:
		return 0;
	case 3:
		return mask & rnd(t);
	default:
		return n ? 1ULL << bits[rn(t, n)] : 0;
	}
}

/* The resource-naming fields; false when the field was left to pass two. */
static void gen_res(struct thread *t, void *buf, const struct field *f)
{
	struct res r;
	unsigned int kind;
	bool have = res_pick(t, f->res, &r, &kind) && rn(t, 20);

	if (have)
		note(t, kind, &r);
	switch (f->kind) {
	case F_RES:
		put(buf, f, have ? r.val : rn(t, 3) ? 1 + rn(t, 64) : 0);
		break;
	case F_ADDR:
		if (!have) {
			put(buf, f, rn(t, 2) ? (unsigned long)t->scratch : 0);
			break;
		}
		put(buf, f, r.val + (!rn(t, 8) && r.len > 4096 ?
				     (rn(t, r.len / 4096) * 4096ULL) : 0));
		break;
	case F_FD:
		put(buf, f, have ? r.val : rn(t, 2) ? ~0ULL : rn(t, 16));
		break;
	case F_BYTES:
		if (have) {
			memcpy((char *)buf + f->off, r.bytes, f->width);
		} else {
			unsigned int i;

			for (i = 0; i < f->width; i++)
				((unsigned char *)buf)[f->off + i] = rnd(t);
		}
		break;
	}
}

static void fill_descs(struct thread *t)
{
	struct cufab_mem_access *a = (void *)t->scratch;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		a[i] = (struct cufab_mem_access){
			.location_type = i == 7 ? CUFAB_LOC_HOST : CUFAB_LOC_DEVICE,
			.location_id = (t->dev < 0 ? 0 : t->dev) + i,
			.flags = 3,
		};
		a[i].location_id %= t->cl->ngpus;
	}
	if (!rn(t, 8))
		a[rn(t, 8)].flags = rn(t, 5);
	if (!rn(t, 16))
		a[rn(t, 8)].location_type = rn(t, 5);
}

static void gen_val(struct thread *t, void *buf, const struct field *f,
		    const struct ioctl_desc *d)
{
	unsigned long long v = 0, unit;
	int lo, hi;

	switch (f->kind) {
	case F_SIZE:
		v = d->size;
		break;
	case F_FLAGS:
		v = flags_of(t, f->arg);
		break;
	case F_ENUM:
	case F_LOCTYPE:
		lo = (int)(unsigned int)f->arg;
		hi = (int)(unsigned int)(f->arg >> 32);
		v = (long long)lo + rn(t, hi - lo + 1);
		if (f->kind == F_LOCTYPE) {
			if (rn(t, 10) < 6)
				v = CUFAB_LOC_DEVICE;
			t->loctype = v;
		}
		break;
	case F_DEV:
		v = pick_dev(t);
		break;
	case F_SDEV:
		v = rn(t, 5) ? pick_dev(t) : -1;
		break;
	case F_LOCID:
		if (t->loctype == CUFAB_LOC_DEVICE)
			v = pick_dev(t);
		else if (t->loctype == CUFAB_LOC_HOST_NUMA)
			v = rn(t, 2);
		else
			v = rn(t, 4) ? 0 : -1;
		break;
	case F_LEN:
		unit = f->arg ? f->arg : GRAN;
		if (!f->arg && t->len && rn(t, 8))
			v = t->len;
		else
			v = unit * (1 + rn(t, f->arg ? 16 : 2));
		if (t->len && v > t->len && rn(t, 8))
			v = t->len >= unit ? t->len / unit * unit : t->len;
		if (!t->len)
			t->len = v;
		break;
	case F_OFF:
		v = rn(t, 5) ? 0 : GRAN * rn(t, 2);
		break;
	case F_PTR:
		fill_descs(t);
		v = (unsigned long)t->scratch;
		break;
	case F_COUNT:
		v = 1 + rn(t, f->arg);
		break;
	case F_VAL:
		v = f->arg ? rn(t, f->arg) : rnd(t);
		break;
	case F_CONST:
		v = f->arg;
		break;
	default:	/* F_RSVD, F_OUT */
		return;
	}
	put(buf, f, v);
}

static const unsigned long long edges[] = {
	0, 1, ~0ULL, 0x80000000ULL, 0x7fffffffULL, 1ULL << 63, 0xffff888000000000ULL,
	1ULL << 47, 4095, 4096, 1ULL << 32, 0xffffffffULL,
};

/*
 * A wrong address, but never one of the worker's own memory (its stacks,
 * heap, counters): the kernel writes where it is told.
 */
static unsigned long long mutate_addr(struct thread *t, unsigned long long v)
{
	static const unsigned long long bad[] = {
		0, 1, ~0ULL, 0xffff888000000000ULL, 1ULL << 47, 4096,
	};

	switch (rn(t, 3)) {
	case 0:
		return v + 1;	/* misaligned, still inside */
	case 1:
		return v + 4095;
	default:
		return bad[rn(t, ARRAY_SIZE(bad))];
	}
}

static void mutate_field(struct thread *t, void *buf, const struct field *f,
			 unsigned int *size, const struct ioctl_desc *d)
{
	unsigned long long v = get(buf, f);
	unsigned char *tail;

	if (f->kind == F_SIZE) {
		static const unsigned int sizes[] = { 0, 4, 8, 4096, 4097, 8000 };

		switch (rn(t, 4)) {
		case 0:
			*size = sizes[rn(t, ARRAY_SIZE(sizes))];
			break;
		case 1:
			*size = d->size - 4 * (1 + rn(t, 2));
			break;
		default:
			*size = d->size + 8;
			tail = (unsigned char *)buf + d->size;
			if (rn(t, 2))
				tail[rn(t, 8)] = 1 + rn(t, 255);
			break;
		}
		put(buf, f, *size);
		return;
	}
	if (f->width > 8) {
		((unsigned char *)buf)[f->off + rn(t, f->width)] ^= 1 + rn(t, 255);
		return;
	}
	if (f->kind == F_ADDR || f->kind == F_PTR) {
		put(buf, f, mutate_addr(t, v));
		return;
	}
	switch (rn(t, 5)) {
	case 0:
		v = edges[rn(t, ARRAY_SIZE(edges))];
		break;
	case 1:
		v += rn(t, 2) ? 1 : -1;
		break;
	case 2:
		v ^= 1ULL << rn(t, f->width * 8);
		break;
	case 3:
		v = rnd(t);
		break;
	default:
		v = 0;
		break;
	}
	put(buf, f, v);
}

/*
 * Interrupt a call that sleeps: the thread's timer sends SIGUSR1 every
 * 5 ms while a call runs (again and again: a signal that came just
 * before the call went to sleep does not leave it asleep). Any call may
 * wait on a stream that a host operation holds, so every call is timed.
 */
static void arm(timer_t *tm, bool on)
{
	struct itimerspec its = {
		.it_value.tv_nsec = on ? 5000000 : 0,
		.it_interval.tv_nsec = on ? 5000000 : 0,
	};

	timer_settime(*tm, 0, &its, NULL);
}

static __thread timer_t thread_timer;
static __thread bool thread_timer_ok;

static void on_usr1(int sig)
{
}

static void timer_setup(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID,
				.sigev_signo = SIGUSR1 };
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */

	sigaction(SIGUSR1, &sa, NULL);
	sev._sigev_un._tid = gettid();
	thread_timer_ok = !timer_create(CLOCK_MONOTONIC, &sev, &thread_timer);
}

/* Time a page fault of the calling thread as a call is timed. */
void timer_arm(bool on)
{
	if (!thread_timer_ok)
		timer_setup();
	if (thread_timer_ok)
		arm(&thread_timer, on);
}

void count_call(unsigned int i, int err)
{
	__atomic_add_fetch(&stats->calls[i], 1, __ATOMIC_RELAXED);
	if (!err)
		__atomic_add_fetch(&stats->ok[i], 1, __ATOMIC_RELAXED);
	else if (err < MAX_ERRNO)
		__atomic_add_fetch(&stats->err[i][err], 1, __ATOMIC_RELAXED);
}

static void harvest(struct thread *t, const struct ioctl_desc *d,
		    const void *buf, const unsigned long long *in)
{
	unsigned int i, k;

	for (i = 0; i < d->nfields; i++) {
		const struct field *f = &d->fields[i];
		struct res r = { .val = get(buf, f), .len = t->len,
				 .dev = t->dev, .aux = t->pool };

		if (f->cons)
			res_forget(t->cl, f->cons, in[i]);
		for (k = 0; f->prod && r.val && k < R_NKINDS; k++)
			if (f->prod & RB(k))
				res_add(t->cl, k, &r);
	}
	if (d->post)
		d->post(t, buf);
}

/*
 * Reply-fault mode: the struct is passed in pages made read-only for the
 * call, so the kernel reads it and cannot write the reply back. What the
 * call made for that reply must go again (EFAULT, nothing leaked: the
 * invariants after the episode check it), while the other threads of the
 * process use and destroy whatever they find.
 */
static __thread unsigned char *ro_buf;

static void *ro_arg(const void *buf)
{
	if (!ro_buf) {
		ro_buf = mmap(NULL, BUF_MAX, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ro_buf == MAP_FAILED) {
			ro_buf = NULL;
			return NULL;
		}
	}
	/*
	 * Writable again first: a call that never came back to ro_done()
	 * (a worker killed or forked mid-call) left the pages read-only.
	 */
	if (mprotect(ro_buf, BUF_MAX, PROT_READ | PROT_WRITE))
		return NULL;
	memcpy(ro_buf, buf, BUF_MAX);
	if (mprotect(ro_buf, BUF_MAX, PROT_READ))
		return NULL;
	__atomic_add_fetch(&stats->reply_faults, 1, __ATOMIC_RELAXED);
	return ro_buf;
}

static void ro_done(void)
{
	if (mprotect(ro_buf, BUF_MAX, PROT_READ | PROT_WRITE))
		_exit(3);
}

int fuzz_one(struct thread *t, const struct ioctl_desc *d, bool mutate)
{
	static __thread unsigned char buf[BUF_MAX] __attribute__((aligned(64)));
	unsigned long long in[32];
	unsigned int i, size = d->size, n;
	void *arg = buf, *ro = NULL;
	int ret, err;

	if (!thread_timer_ok)
		timer_setup();
	memset(buf, 0, d->size + 64);
	t->dev = -1;
	t->len = 0;
	t->addr = 0;
	t->loctype = 0;
	t->pool = 0;
	t->picked = 0;
	t->pick0_kind = R_NKINDS;
	for (i = 0; i < d->nfields; i++) {
		const struct field *f = &d->fields[i];

		if (f->kind == F_RES || f->kind == F_ADDR || f->kind == F_FD ||
		    f->kind == F_BYTES)
			gen_res(t, buf, f);
	}
	for (i = 0; i < d->nfields; i++)
		gen_val(t, buf, &d->fields[i], d);
	if (d->fix)
		d->fix(t, buf);
	for (n = mutate ? 1 + rn(t, 2) : 0; n; n--)
		mutate_field(t, buf, &d->fields[rn(t, d->nfields)], &size, d);
	for (i = 0; i < d->nfields && i < ARRAY_SIZE(in); i++)
		in[i] = get(buf, &d->fields[i]);
	if (!rn(t, 32))
		ro = ro_arg(buf);
	if (ro)
		arg = ro;
	if (thread_timer_ok)
		arm(&thread_timer, true);
	ret = ioctl(t->cl->fd, _IO(CUFAB_TYPE, d->nr), arg);
	err = ret < 0 ? errno : 0;
	if (thread_timer_ok)
		arm(&thread_timer, false);
	count_call(d->nr - CUFAB_CMD_BASE, err);
	if (!err)
		harvest(t, d, arg, in);
	if (ro)
		ro_done();
	return err;
}

const struct ioctl_desc *pick_ioctl(struct thread *t)
{
	const struct ioctl_desc *d;

	/* calls that sleep until interrupted come a third as often */
	do {
		d = &fuzz_ioctls[rn(t, fuzz_nioctls)];
	} while (d->blocking && rn(t, 3));
	return d;
}
