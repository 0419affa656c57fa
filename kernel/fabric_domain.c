// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric window's domain header (Documentation/multinode.rst "The
 * domain header"): the first pages of the window say what the domain is,
 * so that nodes loaded with different parameters refuse the window rather
 * than disagree silently about where the slices are, and say who is in it:
 *
 *   offset 0     struct cufab_domain_hdr, written by node 0 only: magic,
 *                layout version, cluster UUID, the slice geometry
 *   offset 4096  one struct cufab_domain_node per node, each written by
 *                its node only: instance id, generation, heartbeat, state,
 *                its GPUs' cliques, the reclaim fence's holds and rounds
 *   then         a 32-bit tag per 2 MiB unit of the whole window, each
 *                written only by the node whose slice holds the unit: one
 *                more each time a range another node may have a team
 *                replica of is freed (fabric_window.c), so that a replica
 *                is never made of a range freed since it was described
 *
 * Every other node waits for node 0's header (CUFAB_DOMAIN_WAIT at most),
 * checks every field against its own parameters and refuses the window
 * with a log line naming the first that differs. A node that joins bumps
 * its generation; an import records its exporter's generation, and
 * refuses to hand out pages of a generation that is not the exporter's
 * current one (pages_remote.c): a restarted node's slice is fenced.
 *
 * No lock is shared between nodes: each writes only its own record (node 0
 * also the header, before any other node reads it), fields are read and
 * written whole (READ_ONCE/WRITE_ONCE of aligned u64 and u32), and the
 * record's state is written last. The window is the same host memory on
 * every node (x86, write-back, coherent), so ordering needs no more than
 * smp_wmb()/smp_rmb().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uuid.h>
#include <linux/workqueue.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

#define CUFAB_DOMAIN_MAGIC	0x4e4d4f4442414643ULL	/* "CFABDOMN" */
/*
 * 2: a node's record says which nodes' memory it may still touch;
 * 3: the window's units have tags, the records a round of replica checks
 */
#define CUFAB_DOMAIN_LAYOUT	3
#define CUFAB_DOMAIN_TABLE	SZ_4K
#define CUFAB_DOMAIN_RECORD	512
/* how long a node waits for node 0's header at load */
#define CUFAB_DOMAIN_WAIT_MS	30000
/* a node whose heartbeat did not move for this long is not alive */
#define CUFAB_DOMAIN_STALE	(3 * HZ)
/* how long a node that joins again waits for the others to let go */
#define CUFAB_DOMAIN_FENCE_WAIT	(10 * HZ)

/* the header, at the window's offset 0; little-endian */
struct cufab_domain_hdr {
	__le64 magic;
	__le32 layout;
	__le32 num_nodes;
	u8 cluster_uuid[16];
	__le64 window_size;
	__le64 slice_start;
	__le64 slice_size;
	__le64 unit;
	__le64 table;
	__le32 record;
	__le32 tags;		/* where the units' tags start */
};

/* node n's record, at CUFAB_DOMAIN_TABLE + n * CUFAB_DOMAIN_RECORD */
struct cufab_domain_node {
	__le64 instance;
	__le64 generation;
	__le64 heartbeat;
	__le32 state;		/* enum cufab_domain_state */
	__le32 num_gpus;
	__le32 clique[CUFAB_MAX_GPUS];
	/*
	 * bit n: this node may still touch node n's memory (an import not
	 * yet revoked and idle, or one being asked for): node n must not
	 * reuse what it lent this node while it is set
	 */
	__le64 holds[CUFAB_MAX_NODES / 64];
	/*
	 * one more each time this node has checked its team replicas
	 * against the tags and every replica of a range freed before the
	 * check is gone (fabric_team.c): a node that freed a range waits for
	 * two more than it read after its tag moved
	 */
	__le64 rounds;
};

static_assert(sizeof(struct cufab_domain_hdr) <= CUFAB_DOMAIN_TABLE);
static_assert(sizeof(struct cufab_domain_node) <= CUFAB_DOMAIN_RECORD);

/*
 * This node's view: where the window is, and what it last saw of every
 * node's heartbeat (to tell a live node from one that stopped).
 */
static struct cufab_domain {
	void *virt;
	unsigned int nodes;
	u64 instance;
	u64 generation;
	u64 *seen_beat;
	unsigned long *seen_at;
	u64 *seen_gen;
	u64 size;
	u64 unit;
	u64 slice_start;
	u64 slice;
	unsigned long joined_at;
	bool slice_free;
	struct delayed_work beat;
} *cufab_domain;

/* Where the units' tags start, after the records. */
static u64 cufab_domain_tags_at(unsigned int nodes)
{
	return CUFAB_DOMAIN_TABLE + (u64)nodes * CUFAB_DOMAIN_RECORD;
}

/**
 * cufab_domain_header_size() - bytes the header needs for @nodes nodes
 * @nodes: the domain's size
 * @unit: the slices' allocation unit
 * @size: the window's bytes, a tag per @unit of them
 *
 * Return: the header's size rounded up to @unit: where the first slice
 * starts.
 */
u64 cufab_domain_header_size(unsigned int nodes, u64 unit, u64 size)
{
	return round_up(cufab_domain_tags_at(nodes) +
			div64_u64(size, unit) * sizeof(__le32), unit);
}

static struct cufab_domain_hdr *cufab_domain_hdr(void *virt)
{
	return virt;
}

static struct cufab_domain_node *cufab_domain_rec(void *virt,
						  unsigned int node)
{
	return virt + CUFAB_DOMAIN_TABLE + (size_t)node * CUFAB_DOMAIN_RECORD;
}

static void cufab_domain_hdr_fill(struct cufab_domain_hdr *h,
				  const struct cufab_domain_geometry *g)
{
	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_le64(CUFAB_DOMAIN_MAGIC);
	h->layout = cpu_to_le32(CUFAB_DOMAIN_LAYOUT);
	h->num_nodes = cpu_to_le32(g->nodes);
	memcpy(h->cluster_uuid, &cufab_node.cluster_uuid, 16);
	h->window_size = cpu_to_le64(g->size);
	h->slice_start = cpu_to_le64(g->slice_start);
	h->slice_size = cpu_to_le64(g->slice);
	h->unit = cpu_to_le64(g->unit);
	h->table = cpu_to_le64(CUFAB_DOMAIN_TABLE);
	h->record = cpu_to_le32(CUFAB_DOMAIN_RECORD);
	h->tags = cpu_to_le32(cufab_domain_tags_at(g->nodes));
}

/* A little-endian field of 4 or 8 bytes. */
static u64 cufab_domain_field(const void *p, size_t len)
{
	return len == 4 ? le32_to_cpu(*(const __le32 *)p) :
	       le64_to_cpu(*(const __le64 *)p);
}

/*
 * The first field of the window's header @h that differs from @want
 * (this node's), logged; 0 when they agree.
 */
static int cufab_domain_hdr_check(const struct cufab_domain_hdr *h,
				  const struct cufab_domain_hdr *want)
{
	static const struct {
		const char *name;
		size_t off;
		size_t len;
	} fields[] = {
		{ "layout", offsetof(struct cufab_domain_hdr, layout), 4 },
		{ "num_nodes", offsetof(struct cufab_domain_hdr, num_nodes), 4 },
		{ "cluster_uuid",
		  offsetof(struct cufab_domain_hdr, cluster_uuid), 16 },
		{ "window_size",
		  offsetof(struct cufab_domain_hdr, window_size), 8 },
		{ "slice_start",
		  offsetof(struct cufab_domain_hdr, slice_start), 8 },
		{ "slice_size", offsetof(struct cufab_domain_hdr, slice_size), 8 },
		{ "unit", offsetof(struct cufab_domain_hdr, unit), 8 },
		{ "table", offsetof(struct cufab_domain_hdr, table), 8 },
		{ "record", offsetof(struct cufab_domain_hdr, record), 4 },
		{ "tags", offsetof(struct cufab_domain_hdr, tags), 4 },
	};
	const void *a = h, *b = want;
	unsigned int i;
	u64 x, y;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (!memcmp(a + fields[i].off, b + fields[i].off, fields[i].len))
			continue;
		if (fields[i].len == 16) {
			pr_err("fabric window: node 0's domain header has cluster_uuid %pUb, node %u's is %pUb: window refused\n",
			       h->cluster_uuid, cufab_node.node_index,
			       want->cluster_uuid);
			return -EINVAL;
		}
		x = cufab_domain_field(a + fields[i].off, fields[i].len);
		y = cufab_domain_field(b + fields[i].off, fields[i].len);
		pr_err("fabric window: node 0's domain header has %s %llu, node %u's is %llu: window refused\n",
		       fields[i].name, x, cufab_node.node_index, y);
		return -EINVAL;
	}
	return 0;
}

/*
 * Node 0 writes the header, unless the one there already describes this
 * very domain (node 0 restarted while others live: their records stay).
 * The magic goes last, so no node reads a half-written header.
 */
static void cufab_domain_write_hdr(void *virt,
				   const struct cufab_domain_hdr *want,
				   const struct cufab_domain_geometry *g)
{
	struct cufab_domain_hdr *h = cufab_domain_hdr(virt);

	if (READ_ONCE(h->magic) == want->magic &&
	    !memcmp(h, want, sizeof(*h)))
		return;
	WRITE_ONCE(h->magic, 0);
	/* no node takes the old magic for the new fields */
	smp_wmb();
	/* the records and the tags: a new domain */
	memset(virt + sizeof(*h), 0,
	       cufab_domain_tags_at(g->nodes) - sizeof(*h) +
	       div64_u64(g->size, g->unit) * sizeof(__le32));
	memcpy((void *)h + sizeof(h->magic), (const void *)want + sizeof(h->magic),
	       sizeof(*h) - sizeof(h->magic));
	/* the fields before the magic that vouches for them */
	smp_wmb();
	WRITE_ONCE(h->magic, want->magic);
}

/* Every other node: node 0's header, once it is there. */
static int cufab_domain_wait_hdr(void *virt)
{
	struct cufab_domain_hdr *h = cufab_domain_hdr(virt);
	unsigned int waited;

	for (waited = 0; waited < CUFAB_DOMAIN_WAIT_MS; waited += 100) {
		if (READ_ONCE(h->magic) == cpu_to_le64(CUFAB_DOMAIN_MAGIC)) {
			/* pairs with node 0's smp_wmb() before the magic */
			smp_rmb();
			return 0;
		}
		msleep(100);
	}
	pr_err("fabric window: no domain header from node 0 after %u s (magic %#llx): window refused\n",
	       CUFAB_DOMAIN_WAIT_MS / 1000, le64_to_cpu(READ_ONCE(h->magic)));
	return -ETIMEDOUT;
}

/**
 * cufab_domain_check() - does node 0's header describe geometry @g?
 * @virt: the window
 * @g: this node's geometry
 *
 * Waits for the header (CUFAB_DOMAIN_WAIT_MS at most).
 *
 * Return: 0; -EINVAL when a field differs (logged, naming the field),
 * -ETIMEDOUT when no header came.
 */
int cufab_domain_check(void *virt, const struct cufab_domain_geometry *g)
{
	struct cufab_domain_hdr want;
	int ret;

	cufab_domain_hdr_fill(&want, g);
	ret = cufab_domain_wait_hdr(virt);
	return ret ? ret : cufab_domain_hdr_check(cufab_domain_hdr(virt),
						    &want);
}

/*
 * A record left "up" is a node that died, or another kernel loaded with
 * this node_index: the latter's heartbeat still moves.
 */
static int cufab_domain_check_twin(struct cufab_domain_node *r)
{
	u64 beat;

	if (le32_to_cpu(READ_ONCE(r->state)) != CUFAB_DOMAIN_UP)
		return 0;
	beat = le64_to_cpu(READ_ONCE(r->heartbeat));
	msleep(jiffies_to_msecs(CUFAB_DOMAIN_STALE));
	if (le64_to_cpu(READ_ONCE(r->heartbeat)) == beat)
		return 0;
	pr_err("fabric window: node_index %u is live in the domain (instance %016llx, its heartbeat moves): window refused\n",
	       cufab_node.node_index, le64_to_cpu(READ_ONCE(r->instance)));
	return -EBUSY;
}

/* The tag of the unit at window offset @offset; NULL past the window. */
static __le32 *cufab_domain_tag_at(struct cufab_domain *d, u64 offset)
{
	if (offset >= d->size)
		return NULL;
	return (__le32 *)(d->virt + cufab_domain_tags_at(d->nodes)) +
	       div64_u64(offset, d->unit);
}

/* One more on the tag of every unit of [offset, offset + length). */
static void cufab_domain_retag_locked(struct cufab_domain *d, u64 offset,
				      u64 length)
{
	__le32 *t;
	u64 at;

	for (at = round_down(offset, d->unit); at < offset + length;
	     at += d->unit) {
		t = cufab_domain_tag_at(d, at);
		if (t)
			WRITE_ONCE(*t, cpu_to_le32(le32_to_cpu(READ_ONCE(*t)) + 1));
	}
}

static void cufab_domain_publish(struct cufab_domain *d)
{
	struct cufab_domain_node *r = cufab_domain_rec(d->virt,
						       cufab_node.node_index);
	u32 i, n = min_t(u32, cufab_node.num_gpus, CUFAB_MAX_GPUS);

	WRITE_ONCE(r->state, cpu_to_le32(CUFAB_DOMAIN_ABSENT));
	/* no reader takes the new fields for the previous life's */
	smp_wmb();
	d->generation = le64_to_cpu(READ_ONCE(r->generation)) + 1;
	WRITE_ONCE(r->instance, cpu_to_le64(d->instance));
	WRITE_ONCE(r->generation, cpu_to_le64(d->generation));
	WRITE_ONCE(r->heartbeat, 0);
	WRITE_ONCE(r->num_gpus, cpu_to_le32(n));
	/* a new life holds nothing of anyone yet */
	for (i = 0; i < ARRAY_SIZE(r->holds); i++)
		WRITE_ONCE(r->holds[i], 0);
	WRITE_ONCE(r->rounds, 0);
	/* nothing a previous life described of its slice is there any more */
	cufab_domain_retag_locked(d, d->slice_start +
				  (u64)cufab_node.node_index * d->slice,
				  d->slice);
	down_read(&cufab_topo_rwsem);
	for (i = 0; i < n; i++)
		WRITE_ONCE(r->clique[i], cpu_to_le32(cufab_node.gpus[i].clique));
	up_read(&cufab_topo_rwsem);
	/* the record before the state that says it is whole */
	smp_wmb();
	WRITE_ONCE(r->state, cpu_to_le32(CUFAB_DOMAIN_UP));
}

static void (*cufab_domain_reload_fn)(unsigned int node);

void cufab_domain_on_reload(void (*fn)(unsigned int node))
{
	WRITE_ONCE(cufab_domain_reload_fn, fn);
}

static void cufab_domain_reloaded(unsigned int node)
{
	void (*fn)(unsigned int node) = READ_ONCE(cufab_domain_reload_fn);

	if (fn)
		fn(node);
}

/*
 * Every second: this node's heartbeat, and a look at the others' (a
 * heartbeat that moved is a live node; a generation that changed is a
 * node that restarted, whose previous memory is now fenced).
 */
static void cufab_domain_beat(struct work_struct *work)
{
	struct cufab_domain *d = container_of(to_delayed_work(work),
					      struct cufab_domain, beat);
	struct cufab_domain_node *r;
	unsigned int n;
	u64 beat, gen;

	r = cufab_domain_rec(d->virt, cufab_node.node_index);
	WRITE_ONCE(r->heartbeat,
		   cpu_to_le64(le64_to_cpu(READ_ONCE(r->heartbeat)) + 1));
	for (n = 0; n < d->nodes; n++) {
		r = cufab_domain_rec(d->virt, n);
		beat = le64_to_cpu(READ_ONCE(r->heartbeat));
		gen = le64_to_cpu(READ_ONCE(r->generation));
		if (beat != d->seen_beat[n]) {
			d->seen_beat[n] = beat;
			d->seen_at[n] = jiffies;
		}
		if (gen != d->seen_gen[n] && d->seen_gen[n] &&
		    n != cufab_node.node_index) {
			pr_info("fabric window: node %u joined again (generation %llu, was %llu): what this node imported of its previous generation is fenced\n",
				n, gen, d->seen_gen[n]);
			cufab_domain_reloaded(n);
		}
		d->seen_gen[n] = gen;
	}
	schedule_delayed_work(&d->beat, HZ);
}

static int cufab_domain_alloc(struct cufab_domain **dp, void *virt,
			      unsigned int nodes)
{
	struct cufab_domain *d = kzalloc(sizeof(*d), GFP_KERNEL);
	struct cufab_domain_node *r;
	unsigned int n;

	if (!d)
		return -ENOMEM;
	d->seen_beat = kcalloc(nodes, sizeof(u64), GFP_KERNEL);
	d->seen_at = kcalloc(nodes, sizeof(unsigned long), GFP_KERNEL);
	d->seen_gen = kcalloc(nodes, sizeof(u64), GFP_KERNEL);
	if (!d->seen_beat || !d->seen_at || !d->seen_gen) {
		kfree(d->seen_beat);
		kfree(d->seen_at);
		kfree(d->seen_gen);
		kfree(d);
		return -ENOMEM;
	}
	d->virt = virt;
	d->nodes = nodes;
	/* a node is alive once its heartbeat moves while this node looks */
	for (n = 0; n < nodes; n++) {
		r = cufab_domain_rec(virt, n);
		d->seen_beat[n] = le64_to_cpu(READ_ONCE(r->heartbeat));
		d->seen_gen[n] = le64_to_cpu(READ_ONCE(r->generation));
		d->seen_at[n] = jiffies - CUFAB_DOMAIN_STALE - 1;
	}
	d->instance = get_random_u64() ?: 1;
	d->joined_at = jiffies;
	INIT_DELAYED_WORK(&d->beat, cufab_domain_beat);
	*dp = d;
	return 0;
}

static void cufab_domain_free(struct cufab_domain *d)
{
	kfree(d->seen_beat);
	kfree(d->seen_at);
	kfree(d->seen_gen);
	kfree(d);
}

/* Does record @r say its node may still touch node @of's memory? */
static bool cufab_domain_rec_holds(struct cufab_domain_node *r,
				   unsigned int of)
{
	return le64_to_cpu(READ_ONCE(r->holds[of / 64])) & BIT_ULL(of % 64);
}

/*
 * Is node @n dead? Its heartbeat did not move for CUFAB_DOMAIN_STALE
 * while this node looked: a kernel that stopped touches nothing. Until
 * this node has looked that long (a heartbeat more), it cannot tell.
 */
static bool cufab_domain_dead(struct cufab_domain *d, unsigned int n)
{
	return time_after(jiffies, d->joined_at + CUFAB_DOMAIN_STALE + HZ) &&
	       !time_before(jiffies,
			    READ_ONCE(d->seen_at[n]) + CUFAB_DOMAIN_STALE);
}

/* The first other live node that may still touch this node's memory; -1. */
static int cufab_domain_holder(struct cufab_domain *d)
{
	unsigned int me = cufab_node.node_index, n;
	struct cufab_domain_node *r;

	for (n = 0; n < d->nodes; n++) {
		if (n == me)
			continue;
		r = cufab_domain_rec(d->virt, n);
		if (le32_to_cpu(READ_ONCE(r->state)) != CUFAB_DOMAIN_UP)
			continue;
		/* pairs with cufab_domain_publish()'s smp_wmb() */
		smp_rmb();
		if (cufab_domain_rec_holds(r, me) && !cufab_domain_dead(d, n))
			return n;
	}
	return -1;
}

/*
 * A node that joins again may find others still mapping pages of its
 * previous generation's slice: each revokes those imports once it sees
 * the new generation (within a heartbeat) and clears its bit for this
 * node. Until then the slice is not this node's to reuse: wait for it
 * here, CUFAB_DOMAIN_FENCE_WAIT at most; past that,
 * cufab_domain_slice_fenced() refuses allocations while a holder is left.
 */
static void cufab_domain_fence_wait(struct cufab_domain *d)
{
	unsigned int me = cufab_node.node_index;
	unsigned long start = jiffies;
	int holder = cufab_domain_holder(d);

	if (holder < 0) {
		WRITE_ONCE(d->slice_free, true);
		return;
	}
	pr_info("fabric window: node %d still maps memory of node %u's previous generation: its slice is used again once every node revoked that\n",
		holder, me);
	while (time_before(jiffies, start + CUFAB_DOMAIN_FENCE_WAIT)) {
		msleep(100);
		holder = cufab_domain_holder(d);
		if (holder < 0) {
			WRITE_ONCE(d->slice_free, true);
			pr_info("fabric window: every node let go of node %u's previous generation after %u ms\n",
				me, jiffies_to_msecs(jiffies - start));
			return;
		}
	}
	pr_warn("fabric window: node %d still maps memory of node %u's previous generation after %u s: FABRIC allocations of this node fail until it lets go\n",
		holder, me, CUFAB_DOMAIN_FENCE_WAIT / HZ);
}

/**
 * cufab_domain_slice_fenced() - is this node's slice still fenced?
 *
 * Return: a node that still maps pages of this node's previous
 * generation (this node must not reuse its slice under it), or -1.
 */
int cufab_domain_slice_fenced(void)
{
	struct cufab_domain *d = cufab_domain;
	int holder;

	if (!d || READ_ONCE(d->slice_free))
		return -1;
	holder = cufab_domain_holder(d);
	if (holder < 0)
		WRITE_ONCE(d->slice_free, true);
	return holder;
}

/**
 * cufab_domain_set_holds() - say whether this node may touch @node's memory
 * @node: another node of the domain
 * @holds: an import of its memory is live, or being asked for
 *
 * Node @node does not reuse what it lent this node while the bit is set
 * (cufab_domain_let_go()). Callers serialise (fabric_revoke.c's lock).
 */
void cufab_domain_set_holds(unsigned int node, bool holds)
{
	struct cufab_domain *d = cufab_domain;
	__le64 *w;
	u64 v;

	if (!d || node >= d->nodes)
		return;
	w = &cufab_domain_rec(d->virt, cufab_node.node_index)->holds[node / 64];
	v = le64_to_cpu(READ_ONCE(*w));
	if (holds) {
		WRITE_ONCE(*w, cpu_to_le64(v | BIT_ULL(node % 64)));
		/* set before the request that could make it true goes */
		smp_mb();
	} else {
		/* the zaps and the waits for copies before the word */
		smp_mb();
		WRITE_ONCE(*w, cpu_to_le64(v & ~BIT_ULL(node % 64)));
	}
}

/*
 * Is node @node, of generation @gen then, gone from this node's memory
 * (not up, another life, or its heartbeat stopped)? Why, or NULL.
 */
static const char *cufab_domain_gone(struct cufab_domain *d,
				     unsigned int node, u64 gen)
{
	struct cufab_domain_node *r;

	if (!d || node >= d->nodes)
		return "it has no window";
	r = cufab_domain_rec(d->virt, node);
	if (le32_to_cpu(READ_ONCE(r->state)) != CUFAB_DOMAIN_UP)
		return "it is not up in the domain";
	/* pairs with cufab_domain_publish()'s smp_wmb() before the state */
	smp_rmb();
	if (le64_to_cpu(READ_ONCE(r->generation)) != gen)
		return "it joined again";
	if (cufab_domain_dead(d, node))
		return "its heartbeat stopped";
	return NULL;
}

/**
 * cufab_domain_let_go() - has node @node let go of this node's memory?
 * @node: an importer this node cleaned up
 * @gen: its generation then
 *
 * Return: NULL while it may still touch pages this node lent it; else
 * why it no longer can, for the log line.
 */
const char *cufab_domain_let_go(unsigned int node, u64 gen)
{
	struct cufab_domain *d = cufab_domain;
	const char *why = cufab_domain_gone(d, node, gen);

	if (why)
		return why;
	if (!cufab_domain_rec_holds(cufab_domain_rec(d->virt, node),
				    cufab_node.node_index))
		return "it revoked its imports";
	return NULL;
}

/**
 * cufab_domain_tag() - the tag of the window unit at @offset
 * @offset: any node's window offset
 *
 * A team record describes a binding with the tag its unit had then; a
 * replica is made only while the tag is still that (fabric_team.c).
 *
 * Return: the tag, 0 without a window.
 */
u32 cufab_domain_tag(u64 offset)
{
	struct cufab_domain *d = cufab_domain;
	__le32 *t;

	t = d ? cufab_domain_tag_at(d, offset) : NULL;
	return t ? le32_to_cpu(READ_ONCE(*t)) : 0;
}

/**
 * cufab_domain_retag() - a range of this node's slice is freed
 * @offset: its window offset
 * @length: its bytes
 *
 * Every tag of its units moves on, before the caller reads whether other
 * nodes may hold replicas of it (the barrier): a node that makes one
 * after reads the new tag and does not; one that made one before has its
 * bit for this node set, and drops the replica at its next round.
 */
void cufab_domain_retag(u64 offset, u64 length)
{
	struct cufab_domain *d = cufab_domain;
	u64 start;

	if (!d)
		return;
	start = d->slice_start + (u64)cufab_node.node_index * d->slice;
	/* only this node writes its slice's tags */
	if (offset < start || length > d->slice ||
	    offset - start > d->slice - length)
		return;
	cufab_domain_retag_locked(d, offset, length);
	/* pairs with the barrier after a holder sets its bit */
	smp_mb();
}

/**
 * cufab_domain_round_done() - this node checked its replicas
 *
 * Every replica this node held of a range whose tag had moved when the
 * check began is gone (fabric_team.c). Callers serialise.
 */
void cufab_domain_round_done(void)
{
	struct cufab_domain *d = cufab_domain;
	struct cufab_domain_node *r;

	if (!d)
		return;
	r = cufab_domain_rec(d->virt, cufab_node.node_index);
	/* the drops before the round that says they are done */
	smp_mb();
	WRITE_ONCE(r->rounds,
		   cpu_to_le64(le64_to_cpu(READ_ONCE(r->rounds)) + 1));
}

/**
 * cufab_domain_rounds() - node @node's rounds of replica checks
 * @node: a node of the domain
 *
 * Return: the count in its record, 0 without a window.
 */
u64 cufab_domain_rounds(unsigned int node)
{
	struct cufab_domain *d = cufab_domain;

	if (!d || node >= d->nodes)
		return 0;
	return le64_to_cpu(READ_ONCE(cufab_domain_rec(d->virt, node)->rounds));
}

/**
 * cufab_domain_replicas_let_go() - may node @node still reach a range
 *	this node freed?
 * @node: another node
 * @gen: its generation when the range was freed
 * @rounds: its rounds then, read after the range's tags moved
 *
 * Return: NULL while it may; else why it cannot, for the log line: it
 * holds nothing of this node, or it finished a round of checks that began
 * after the tags moved (two more than @rounds), or it is gone as for
 * cufab_domain_let_go().
 */
const char *cufab_domain_replicas_let_go(unsigned int node, u64 gen,
					 u64 rounds)
{
	struct cufab_domain *d = cufab_domain;
	const char *why = cufab_domain_gone(d, node, gen);
	struct cufab_domain_node *r;

	if (why)
		return why;
	r = cufab_domain_rec(d->virt, node);
	if (!cufab_domain_rec_holds(r, cufab_node.node_index))
		return "it holds nothing of this node";
	if (le64_to_cpu(READ_ONCE(r->rounds)) >= rounds + 2)
		return "it dropped its replicas";
	return NULL;
}

/**
 * cufab_domain_join() - check or write the header, take this node's record
 * @virt: the kernel's mapping of the whole window
 * @g: the geometry this node derived from its parameters and the window
 *
 * Node 0 writes the header; every other node waits for it and checks it.
 * Then the node's record gets a new instance and the next generation.
 *
 * Context: may sleep (up to CUFAB_DOMAIN_WAIT_MS waiting for node 0).
 * Return: 0; -EINVAL when node 0's header differs (logged: the field),
 * -ETIMEDOUT without one, -EBUSY when another live kernel holds this
 * node_index, -ENOMEM.
 */
int cufab_domain_join(void *virt, const struct cufab_domain_geometry *g)
{
	struct cufab_domain_hdr want;
	struct cufab_domain *d;
	int ret;

	if (cufab_node.node_index == 0) {
		cufab_domain_hdr_fill(&want, g);
		cufab_domain_write_hdr(virt, &want, g);
	} else {
		ret = cufab_domain_check(virt, g);
		if (ret)
			return ret;
	}
	ret = cufab_domain_check_twin(cufab_domain_rec(virt,
						       cufab_node.node_index));
	if (ret)
		return ret;
	ret = cufab_domain_alloc(&d, virt, g->nodes);
	if (ret)
		return ret;
	d->size = g->size;
	d->unit = g->unit;
	d->slice_start = g->slice_start;
	d->slice = g->slice;
	cufab_domain_publish(d);
	cufab_domain = d;
	pr_info("fabric window: node %u joined the domain, generation %llu, instance %016llx\n",
		cufab_node.node_index, d->generation, d->instance);
	cufab_domain_beat(&d->beat.work);
	cufab_domain_fence_wait(d);
	return 0;
}

/* At unload: this node's record says it left. */
void cufab_domain_leave(void)
{
	struct cufab_domain *d = cufab_domain;

	if (!d)
		return;
	cancel_delayed_work_sync(&d->beat);
	/* no client is left: nothing of anyone is mapped here */
	memset(cufab_domain_rec(d->virt, cufab_node.node_index)->holds, 0,
	       sizeof_field(struct cufab_domain_node, holds));
	/* the bits before the state: a reader of "left" sees them clear */
	smp_wmb();
	WRITE_ONCE(cufab_domain_rec(d->virt, cufab_node.node_index)->state,
		   cpu_to_le32(CUFAB_DOMAIN_LEFT));
	cufab_domain = NULL;
	cufab_domain_free(d);
}

/**
 * cufab_domain_generation() - node @node's generation in the header
 *
 * Return: its current generation, 0 without a window or for a node that
 * never joined.
 */
u64 cufab_domain_generation(unsigned int node)
{
	struct cufab_domain *d = cufab_domain;

	if (!d || node >= d->nodes)
		return 0;
	return le64_to_cpu(READ_ONCE(cufab_domain_rec(d->virt, node)->generation));
}

/**
 * cufab_domain_node_info() - what the header says of node @node
 * @node: a node index of the domain
 * @info: out
 *
 * A record read field by field while its node may rewrite it: a
 * snapshot, good for observation only.
 *
 * Return: 0, -ENODEV without a window, -ENOENT past the domain's end.
 */
int cufab_domain_node_info(unsigned int node, struct cufab_domain_info *info)
{
	struct cufab_domain *d = cufab_domain;
	struct cufab_domain_node *r;
	u32 i;

	if (!d)
		return -ENODEV;
	if (node >= d->nodes)
		return -ENOENT;
	r = cufab_domain_rec(d->virt, node);
	memset(info, 0, sizeof(*info));
	info->state = le32_to_cpu(READ_ONCE(r->state));
	/* pairs with cufab_domain_publish()'s smp_wmb() before the state */
	smp_rmb();
	info->instance = le64_to_cpu(READ_ONCE(r->instance));
	info->generation = le64_to_cpu(READ_ONCE(r->generation));
	info->heartbeat = le64_to_cpu(READ_ONCE(r->heartbeat));
	info->num_gpus = min_t(u32, le32_to_cpu(READ_ONCE(r->num_gpus)),
			       CUFAB_MAX_GPUS);
	for (i = 0; i < info->num_gpus; i++)
		info->clique[i] = le32_to_cpu(READ_ONCE(r->clique[i]));
	info->alive = node == cufab_node.node_index ||
		      (info->state == CUFAB_DOMAIN_UP &&
		       time_before(jiffies, READ_ONCE(d->seen_at[node]) +
				   CUFAB_DOMAIN_STALE));
	return 0;
}

/* debugfs "window": the header's view of every node. */
void cufab_domain_show(struct seq_file *m)
{
	static const char *const states[] = {
		[CUFAB_DOMAIN_ABSENT] = "absent",
		[CUFAB_DOMAIN_UP] = "up",
		[CUFAB_DOMAIN_LEFT] = "left",
	};
	struct cufab_domain_info info;
	unsigned int n;

	if (!cufab_domain)
		return;
	for (n = 0; n < cufab_domain->nodes; n++) {
		if (cufab_domain_node_info(n, &info))
			break;
		seq_printf(m, "node %u state %s%s generation %llu instance %016llx heartbeat %llu gpus %u\n",
			   n, info.state < ARRAY_SIZE(states) ?
			   states[info.state] : "?",
			   info.state == CUFAB_DOMAIN_UP && !info.alive ?
			   " (stale)" : "", info.generation, info.instance,
			   info.heartbeat, info.num_gpus);
	}
}

/*
 * The daemon's connections, as it reports them (cufab_imex LINK), for
 * DOMAIN_GET: a byte per node, read and written whole; forgotten when the
 * daemon goes or a new one registers.
 */
static u8 cufab_domain_links[CUFAB_MAX_NODES];

void cufab_domain_set_link(unsigned int node, u32 link)
{
	if (node < CUFAB_MAX_NODES && link <= CUFAB_LINK_GONE)
		WRITE_ONCE(cufab_domain_links[node], link);
}

u32 cufab_domain_link(unsigned int node)
{
	return node < CUFAB_MAX_NODES ? READ_ONCE(cufab_domain_links[node]) :
	       CUFAB_LINK_UNKNOWN;
}

void cufab_domain_forget_links(void)
{
	unsigned int n;

	for (n = 0; n < CUFAB_MAX_NODES; n++)
		WRITE_ONCE(cufab_domain_links[n], CUFAB_LINK_UNKNOWN);
}
