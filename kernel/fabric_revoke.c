// SPDX-License-Identifier: GPL-2.0
/*
 * Revocation of imports of another node's FABRIC memory
 * (Documentation/multinode.rst "Failure").
 *
 * An import maps the exporter's range of the fabric window. Once the
 * exporter may reuse that range, this node must not touch it again:
 *
 *  - when the exporting node is lost and cleaned up (NODE_DOWN: after the
 *    grace time, at once with grace 0, or when it came back as a new
 *    instance), its exporter has dropped, or will drop, this node's
 *    references: every import of its memory is revoked, and no RELEASE is
 *    sent for them (the exporter forgot their tokens);
 *  - when the exporter's daemon ends its node's exports (REVOKE, sent as
 *    it stops), every import of its memory is revoked, then released: the
 *    RELEASEs are the importer's confirmation, after which the exporter may
 *    reclaim.
 *
 * A revoked import keeps its allocation, handles and mappings, so that
 * unmap and release work as before; but its CPU view is zapped and every
 * later fault is SIGBUS with a log line naming the node and the export,
 * its page store hands out no page (copies and sets fail with
 * -ENOTRECOVERABLE, CUDA_ERROR_ILLEGAL_STATE), and cuMemMap and export
 * of it fail the same way.
 *
 * No page after the revocation: the flag is set first, then the CPU view
 * of every client is zapped under each reservation's lock (for write),
 * which waits for the faults and page lookups of copies that read the flag
 * before it was set; copies already holding pages are then waited for
 * (the window's pages carry one reference of their own, so a count above
 * it is a copy in flight, which ends within a batch of pages). Only then
 * does the RELEASE go. The final put of an import waits the same way
 * before its RELEASE.
 *
 * The reclaim fence (Documentation/multinode.rst "Failure"): this node's
 * record in the window's domain header says, a bit per node, which nodes'
 * memory it may still touch: an import asked for, or one live and not yet
 * revoked and idle, or a team replica of that node's memory (fabric_team.c,
 * through cufab_revoke_replica()). The bit is set before the request goes
 * and cleared only once the last such import of the node is revoked and no
 * copy holds its pages and no replica of its memory is left; the exporter
 * reclaims what it lent this node only then (or once this node is dead or
 * loaded again), whatever its own clock says.
 *
 * Locking: cufab_revoke_lock protects the list, each import's @revoked,
 * @released and @idle, the per-node generations and counts. It is never
 * held across the zap, the wait or a send.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "fabric.h"

/* How long a revocation or a release waits for copies still in flight. */
#define CUFAB_REVOKE_QUIESCE	(5 * HZ)

static DEFINE_MUTEX(cufab_revoke_lock);
static LIST_HEAD(cufab_revoke_imports);
/* per node: bumped by each revocation of its imports */
static u32 cufab_revoke_gens[CUFAB_MAX_NODES];
/*
 * per node: requests in flight and imports that may still touch its
 * memory; its bit in the domain header is set while this is not zero
 */
static u32 cufab_revoke_holding[CUFAB_MAX_NODES];

static void cufab_revoke_hold(unsigned int node)
{
	lockdep_assert_held(&cufab_revoke_lock);
	if (!cufab_revoke_holding[node]++)
		cufab_domain_set_holds(node, true);
}

static void cufab_revoke_unhold(unsigned int node)
{
	lockdep_assert_held(&cufab_revoke_lock);
	if (WARN_ON_ONCE(!cufab_revoke_holding[node]))
		return;
	if (!--cufab_revoke_holding[node])
		cufab_domain_set_holds(node, false);
}

/**
 * cufab_revoke_ask() - an import of @node's memory is about to be asked for
 * @node: the exporting node
 *
 * Until cufab_revoke_asked(), this node may come to touch @node's memory:
 * its exporter must not reclaim what it lends on the way.
 * Return: the generation of @node's imports, for cufab_revoke_track().
 */
u32 cufab_revoke_ask(unsigned int node)
{
	u32 gen;

	mutex_lock(&cufab_revoke_lock);
	cufab_revoke_hold(node);
	gen = cufab_revoke_gens[node];
	mutex_unlock(&cufab_revoke_lock);
	return gen;
}

/* The request of cufab_revoke_ask() ended (the import is tracked or failed). */
void cufab_revoke_asked(unsigned int node)
{
	mutex_lock(&cufab_revoke_lock);
	cufab_revoke_unhold(node);
	mutex_unlock(&cufab_revoke_lock);
}

/**
 * cufab_revoke_replica() - this node holds a team replica of @node's memory
 * @node: the node whose window range it is
 * @held: a replica is made (before its tag is read), or was released
 *
 * The replica counts in @node's bit as an import does: the bit is set,
 * with a barrier, before the replica's tag is checked (fabric_team.c).
 */
void cufab_revoke_replica(unsigned int node, bool held)
{
	mutex_lock(&cufab_revoke_lock);
	if (held)
		cufab_revoke_hold(node);
	else
		cufab_revoke_unhold(node);
	mutex_unlock(&cufab_revoke_lock);
}

/**
 * cufab_revoke_track() - list a new import, unless its node was revoked
 * @imp: the import, imp->alloc set
 * @gen: cufab_revoke_ask() of its node before the import asked
 *
 * An answer the exporter sent before it revoked may reach this node's
 * importer after the revocation ran: the import then never starts.
 * Return: 0, or -EHOSTDOWN (not listed; its final put releases it).
 */
int cufab_revoke_track(struct cufab_remote_import *imp, u32 gen)
{
	int ret = 0;

	mutex_lock(&cufab_revoke_lock);
	if (cufab_revoke_gens[imp->node] != gen) {
		ret = -EHOSTDOWN;
	} else {
		list_add_tail(&imp->link, &cufab_revoke_imports);
		imp->tracked = true;
		cufab_revoke_hold(imp->node);
	}
	mutex_unlock(&cufab_revoke_lock);
	return ret;
}

/*
 * @imp touches its exporter's memory no more: once the last of its node
 * does not, the exporter may reclaim. Idempotent.
 */
static void cufab_revoke_idle(struct cufab_remote_import *imp)
{
	lockdep_assert_held(&cufab_revoke_lock);
	if (imp->idle || !imp->tracked)
		return;
	imp->idle = true;
	cufab_revoke_unhold(imp->node);
}

/**
 * cufab_revoke_untrack() - the final put of an import
 * @imp: the import, tracked or not
 *
 * Takes it off the list and, once no copy holds its pages, lets its
 * exporter reclaim (the fence); an import a copy still holds keeps the
 * fence up until this node is lost.
 *
 * Return: its RELEASE is still owed and may go.
 */
bool cufab_revoke_untrack(struct cufab_remote_import *imp)
{
	bool owed, idle;

	mutex_lock(&cufab_revoke_lock);
	list_del_init(&imp->link);
	owed = !imp->released;
	imp->released = true;
	idle = imp->idle;
	mutex_unlock(&cufab_revoke_lock);
	if (idle)
		return owed;
	idle = cufab_revoke_quiesce(imp->alloc);
	mutex_lock(&cufab_revoke_lock);
	if (idle)
		cufab_revoke_idle(imp);
	mutex_unlock(&cufab_revoke_lock);
	return owed && idle;
}

static struct cufab_remote_import *cufab_revoke_imp(const struct cufab_alloc *alloc)
{
	return cufab_alloc_has(alloc, CUFAB_ALLOC_REMOTE) ? alloc->priv : NULL;
}

bool cufab_remote_revoked(const struct cufab_alloc *alloc)
{
	const struct cufab_remote_import *imp = cufab_revoke_imp(alloc);

	return imp && READ_ONCE(imp->revoked);
}

/**
 * cufab_remote_revoked_err() - refuse @call on a revoked import
 * @alloc: any allocation
 * @call: the CUDA call, for the log line
 *
 * Return: 0, or -ENOTRECOVERABLE (CUDA_ERROR_ILLEGAL_STATE) with a log
 * line naming the node and the export when @alloc is a revoked import.
 */
int cufab_remote_revoked_err(const struct cufab_alloc *alloc,
			     const char *call)
{
	const struct cufab_remote_import *imp = cufab_revoke_imp(alloc);

	if (!imp || !READ_ONCE(imp->revoked))
		return 0;
	pr_info_ratelimited("pid %d (%s): %s: allocation %llu imports export %u of node %u, which was revoked (the node is gone or ended its exports)\n",
			    task_tgid_nr(current), current->comm, call,
			    alloc->id, imp->export_id, imp->node);
	return -ENOTRECOVERABLE;
}

/* cufab_alloc_ops.cpu_fault of imports: SIGBUS once revoked. */
vm_fault_t cufab_remote_cpu_fault(struct cufab_alloc *alloc,
				  struct cufab_va *va, unsigned long addr)
{
	const struct cufab_remote_import *imp = alloc->priv;

	if (!READ_ONCE(imp->revoked))
		return 0;
	pr_warn_ratelimited("pid %d (%s): CPU access at 0x%lx to FABRIC memory of node %u (export %u, allocation %llu) after its revocation: SIGBUS\n",
			    task_tgid_nr(current), current->comm, addr,
			    imp->node, imp->export_id, alloc->id);
	return VM_FAULT_SIGBUS;
}

/*
 * Wait until no copy holds a page of @alloc's store: each window page
 * keeps one reference of its own. Return: false when one still does
 * after CUFAB_REVOKE_QUIESCE.
 */
static bool cufab_revoke_wait_pages(struct cufab_alloc *alloc)
{
	unsigned long deadline = jiffies + CUFAB_REVOKE_QUIESCE;
	unsigned long index;
	struct page *page;

	xa_for_each(&alloc->pages, index, page) {
		while (page_ref_count(page) > 1) {
			if (time_after(jiffies, deadline))
				return false;
			usleep_range(1000, 10000);
		}
	}
	return true;
}

/**
 * cufab_revoke_quiesce() - may the exporter have @alloc's range back?
 * @alloc: an import, revoked or in its final put
 *
 * Return: true once no page of it is in use on this node; false (logged)
 * when a copy still held one after CUFAB_REVOKE_QUIESCE: the caller then
 * keeps the range the exporter's (no RELEASE) rather than risk it.
 */
bool cufab_revoke_quiesce(struct cufab_alloc *alloc)
{
	const struct cufab_remote_import *imp = alloc->priv;

	if (cufab_revoke_wait_pages(alloc))
		return true;
	pr_warn("import of export %u of node %u (allocation %llu): a copy still holds its pages after %u s; the node keeps the memory until it is lost\n",
		imp->export_id, imp->node, alloc->id,
		CUFAB_REVOKE_QUIESCE / HZ);
	return false;
}

/*
 * The next import of @node not yet revoked, revoked now, with a
 * reference; NULL when none is left. @lost: its RELEASE must never go.
 */
static struct cufab_alloc *cufab_revoke_next(unsigned int node, bool lost)
{
	struct cufab_remote_import *imp;
	struct cufab_alloc *alloc = NULL;

	mutex_lock(&cufab_revoke_lock);
	list_for_each_entry(imp, &cufab_revoke_imports, link) {
		if (imp->node != node || imp->revoked)
			continue;
		/* one in its final put releases itself */
		if (!kref_get_unless_zero(&imp->alloc->ref))
			continue;
		WRITE_ONCE(imp->revoked, true);
		if (lost)
			imp->released = true;
		alloc = imp->alloc;
		break;
	}
	mutex_unlock(&cufab_revoke_lock);
	return alloc;
}

/*
 * Give the range back to its exporter, once nothing here uses it: the
 * fence (lost), or the RELEASE too (its exports ended).
 */
static void cufab_revoke_release(struct cufab_alloc *alloc, bool idle,
				 bool lost)
{
	struct cufab_remote_import *imp = alloc->priv;
	bool owed;

	if (!idle)
		return;
	mutex_lock(&cufab_revoke_lock);
	cufab_revoke_idle(imp);
	owed = !imp->released && !lost;
	imp->released = true;
	mutex_unlock(&cufab_revoke_lock);
	if (owed)
		cufab_remote_release_send(imp->node, imp->token);
}

/**
 * cufab_revoke_node() - revoke every import of @node's memory
 * @node: another node of the domain
 * @lost: the node is lost and cleaned up (NODE_DOWN): no RELEASE goes;
 *	else its exports ended (REVOKE): each import is released once no
 *	page of it is in use
 *
 * Context: may sleep, up to CUFAB_REVOKE_QUIESCE per import whose pages
 * a copy holds. Return: the number of imports revoked.
 */
unsigned int cufab_revoke_node(unsigned int node, bool lost)
{
	struct cufab_remote_import *imp;
	struct cufab_alloc *alloc;
	unsigned int n = 0;
	bool idle;

	mutex_lock(&cufab_revoke_lock);
	cufab_revoke_gens[node]++;
	mutex_unlock(&cufab_revoke_lock);
	while ((alloc = cufab_revoke_next(node, lost))) {
		imp = alloc->priv;
		/* faults and copies that passed the check before are waited for */
		cufab_va_revoke(alloc);
		idle = cufab_revoke_quiesce(alloc);
		pr_info("node %u: import of its export %u (allocation %llu, %llu bytes) revoked: %s\n",
			node, imp->export_id, alloc->id, alloc->length,
			lost ? "the node is lost" : "it ended its exports");
		cufab_revoke_release(alloc, idle, lost);
		cufab_alloc_put(alloc);
		n++;
	}
	return n;
}

/* debugfs "fabric_remote": this node's imports of other nodes' memory. */
void cufab_revoke_show(struct seq_file *m)
{
	struct cufab_remote_import *imp;

	mutex_lock(&cufab_revoke_lock);
	list_for_each_entry(imp, &cufab_revoke_imports, link)
		seq_printf(m, "imported node %u export %u token %llu alloc %llu length %llu%s%s\n",
			   imp->node, imp->export_id, imp->token,
			   imp->alloc->id, imp->alloc->length,
			   imp->revoked ? " revoked" : "",
			   imp->idle ? " idle" : "");
	mutex_unlock(&cufab_revoke_lock);
}
