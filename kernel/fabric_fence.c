// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim fence and the daemon's death (Documentation/multinode.rst
 * "Failure"): nothing a node lent is reused while the borrower may still
 * touch it, whichever side's clock runs first.
 *
 * Exporting side: when a node is cleaned up (NODE_DOWN, or this node's
 * own daemon died), the references it held on this node's memory are not
 * dropped at once: its kernel may not have revoked its imports yet (a
 * partition: each side cleans the other up on its own clock; its grace
 * time may be longer). They are dropped once the window's domain header
 * says that node let go (fabric_domain.c: its bit for this node is clear,
 * it left, joined again, or its heartbeat stopped), polled every
 * CUFAB_FENCE_POLL.
 *
 * Importing side: the daemon registers with its grace time. Its socket's
 * close without UNREGISTER is its death: its peers see the link drop and
 * clean this node up (after their grace time), so this node must revoke
 * what it imported of theirs, by the same rule: at once with grace 0,
 * after N seconds, and with -1 when the next daemon registers (its peers
 * clean a new instance up at once). Every other node is then lost to
 * this node (cufab_remote_node_down()).
 *
 * A node seen joining again (a new generation in the header) is lost to
 * this node too: its previous life forgot every token, and its new life
 * waits for this node to let go of its slice before it reuses it.
 *
 * Locking: cufab_fence_lock protects the state below; the works take
 * genl_lock() first, as the daemon's commands run under it, and never
 * hold cufab_fence_lock across a node's cleanup.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/genetlink.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "cufab.h"
#include "fabric.h"

#define CUFAB_FENCE_POLL	(HZ / 10)

static DEFINE_MUTEX(cufab_fence_lock);
/* the registered daemon's grace time, seconds; -1 waits forever */
static int cufab_fence_grace = -1;
/* a daemon died and what this node imported is not revoked yet */
static bool cufab_fence_orphaned;
static unsigned long cufab_fence_died_at;

/* per node: its imports of this node's memory wait for it to let go */
static DECLARE_BITMAP(cufab_fence_held, CUFAB_MAX_NODES);
static u64 cufab_fence_gen[CUFAB_MAX_NODES];
static unsigned long cufab_fence_since[CUFAB_MAX_NODES];

/* nodes seen joining again, for cufab_fence_reload_work */
static DEFINE_SPINLOCK(cufab_fence_reload_lock);
static DECLARE_BITMAP(cufab_fence_reloaded, CUFAB_MAX_NODES);
static bool cufab_fence_live;

static void cufab_fence_orphan_fn(struct work_struct *work);
static void cufab_fence_poll_fn(struct work_struct *work);
static void cufab_fence_reload_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cufab_fence_orphan_work, cufab_fence_orphan_fn);
static DECLARE_DELAYED_WORK(cufab_fence_poll_work, cufab_fence_poll_fn);
static DECLARE_WORK(cufab_fence_reload_work, cufab_fence_reload_fn);

/*
 * Every other node is lost to this node: its daemon died. Context: under
 * genl_mutex.
 */
static void cufab_fence_lose_all(const char *why)
{
	unsigned int node, n = 0;
	unsigned long died_at;

	mutex_lock(&cufab_fence_lock);
	if (!cufab_fence_orphaned) {
		mutex_unlock(&cufab_fence_lock);
		return;
	}
	cufab_fence_orphaned = false;
	died_at = cufab_fence_died_at;
	mutex_unlock(&cufab_fence_lock);
	for (node = 0; node < cufab_domain_nodes(); node++)
		if (node != cufab_node.node_index)
			n += cufab_remote_node_down(node);
	pr_info("cufab-imexd died %u ms ago (%s): every other node is lost to this node, %u imports of their memory revoked\n",
		jiffies_to_msecs(jiffies - died_at), why, n);
}

static void cufab_fence_orphan_fn(struct work_struct *work)
{
	genl_lock();
	cufab_fence_lose_all(READ_ONCE(cufab_fence_grace) ?
			     "its grace time passed" : "grace time 0");
	genl_unlock();
}

/**
 * cufab_fence_daemon_died() - the registered daemon's socket closed
 *	without UNREGISTER
 *
 * Its peers clean this node up after their grace time; this node revokes
 * its imports of theirs by the grace time the daemon registered with.
 */
void cufab_fence_daemon_died(void)
{
	int grace;

	mutex_lock(&cufab_fence_lock);
	grace = cufab_fence_grace;
	cufab_fence_orphaned = true;
	cufab_fence_died_at = jiffies;
	mutex_unlock(&cufab_fence_lock);
	if (grace < 0) {
		pr_info("cufab-imexd died (grace time -1): this node's imports of other nodes' memory stay until a daemon registers again\n");
		return;
	}
	pr_info("cufab-imexd died: this node's imports of other nodes' memory are revoked in %d s (its grace time)\n",
		grace);
	mod_delayed_work(system_wq, &cufab_fence_orphan_work,
			 (unsigned long)grace * HZ);
}

/**
 * cufab_fence_daemon_register() - a daemon registered
 * @grace: its grace time in seconds, -1 to wait forever
 *
 * After a death whose imports are not revoked yet, they are revoked now:
 * the new daemon is a new instance, which its peers clean up at once.
 * Context: under genl_mutex (the REGISTER command).
 */
void cufab_fence_daemon_register(int grace)
{
	/* a running one waits for genl_mutex, then finds nothing to do */
	cancel_delayed_work(&cufab_fence_orphan_work);
	cufab_fence_lose_all("a new daemon registered");
	mutex_lock(&cufab_fence_lock);
	cufab_fence_grace = grace;
	mutex_unlock(&cufab_fence_lock);
}

/**
 * cufab_fence_hold() - @node was cleaned up while it imports this node's
 *	memory
 * @node: the importing node
 * @imports: how many of its imports are held
 *
 * They are dropped once it let go (cufab_domain_let_go()).
 */
void cufab_fence_hold(unsigned int node, unsigned int imports)
{
	u64 gen = cufab_domain_generation(node);

	mutex_lock(&cufab_fence_lock);
	if (!test_and_set_bit(node, cufab_fence_held)) {
		cufab_fence_gen[node] = gen;
		cufab_fence_since[node] = jiffies;
	}
	mutex_unlock(&cufab_fence_lock);
	pr_info("node %u: %u imports of this node's memory are kept until it let go of them (reclaim fence)\n",
		node, imports);
	mod_delayed_work(system_wq, &cufab_fence_poll_work, 0);
}

/* Drop what @node held, if it let go; under genl_mutex. */
static bool cufab_fence_try(unsigned int node)
{
	unsigned long since;
	const char *why;
	unsigned int n;
	u64 gen;

	mutex_lock(&cufab_fence_lock);
	gen = cufab_fence_gen[node];
	since = cufab_fence_since[node];
	mutex_unlock(&cufab_fence_lock);
	why = cufab_domain_let_go(node, gen);
	if (!why)
		return false;
	mutex_lock(&cufab_fence_lock);
	clear_bit(node, cufab_fence_held);
	mutex_unlock(&cufab_fence_lock);
	n = cufab_remote_drop_fenced(node);
	pr_info("node %u: reclaim fence lifted after %u ms (%s): %u imports of this node's memory dropped\n",
		node, jiffies_to_msecs(jiffies - since), why, n);
	return true;
}

static void cufab_fence_poll_fn(struct work_struct *work)
{
	bool left = false;
	unsigned int node;

	genl_lock();
	for_each_set_bit(node, cufab_fence_held, CUFAB_MAX_NODES)
		if (!cufab_fence_try(node))
			left = true;
	genl_unlock();
	if (left)
		mod_delayed_work(system_wq, &cufab_fence_poll_work,
				 CUFAB_FENCE_POLL);
}

/**
 * cufab_fence_node_reloaded() - node @node joined the domain again
 * @node: another node, seen with a new generation (fabric_domain.c)
 *
 * Context: any (the heartbeat's work); the cleanup runs in a work.
 */
static void cufab_fence_node_reloaded(unsigned int node)
{
	spin_lock(&cufab_fence_reload_lock);
	if (cufab_fence_live && node < CUFAB_MAX_NODES) {
		set_bit(node, cufab_fence_reloaded);
		queue_work(system_wq, &cufab_fence_reload_work);
	}
	spin_unlock(&cufab_fence_reload_lock);
}

static void cufab_fence_reload_fn(struct work_struct *work)
{
	unsigned int node, n;

	for (node = 0; node < CUFAB_MAX_NODES; node++) {
		if (!test_and_clear_bit(node, cufab_fence_reloaded))
			continue;
		genl_lock();
		n = cufab_remote_node_down(node);
		genl_unlock();
		pr_info("node %u joined again: %u imports of its previous generation's memory revoked\n",
			node, n);
	}
}

void cufab_fence_init(void)
{
	cufab_domain_on_reload(cufab_fence_node_reloaded);
	spin_lock(&cufab_fence_reload_lock);
	cufab_fence_live = true;
	spin_unlock(&cufab_fence_reload_lock);
}

/*
 * Unload: nothing is fenced any more (the module, its clients and its
 * window go); no work runs past this.
 */
void cufab_fence_exit(void)
{
	spin_lock(&cufab_fence_reload_lock);
	cufab_fence_live = false;
	spin_unlock(&cufab_fence_reload_lock);
	cancel_work_sync(&cufab_fence_reload_work);
	cancel_delayed_work_sync(&cufab_fence_orphan_work);
	cancel_delayed_work_sync(&cufab_fence_poll_work);
	bitmap_zero(cufab_fence_held, CUFAB_MAX_NODES);
	cufab_fence_orphaned = false;
	cufab_fence_grace = -1;
}
