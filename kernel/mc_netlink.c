// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink view of multicast objects: the MC_GET dump (cufabctl mc show)
 * and the MC_EVENT notification sent when multimem skipped replicas.
 *
 * A dump message is built under the team's lock so that the team and the
 * bindings it shows are one consistent snapshot; the objects themselves
 * are walked with a reference each (cufab_mc_for_each), so a dump never
 * holds the global list lock while it fills a message.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kref.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"

struct cufab_mc_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

/* Team state and every binding. Context: team->lock held. */
static int cufab_mc_nl_put_team(struct sk_buff *skb, struct cufab_team *team)
{
	struct cufab_binding *b;
	u32 i;

	if (cufab_nl_put_team(skb, team))
		return -EMSGSIZE;
	for (i = 0; i < team->joined; i++) {
		for (b = cufab_bindmap_first_from(&team->members[i].map, 0); b;
		     b = cufab_bindmap_next(b))
			if (cufab_nl_put_binding(skb, team->members[i].gpu, b))
				return -EMSGSIZE;
	}
	return 0;
}

/*
 * Handles, imports, fds and mappings: every reference on the allocation
 * except the one the walk holds and the one its bindings hold.
 */
static u32 cufab_mc_users(struct cufab_mc *mc)
{
	return kref_read(&mc->alloc->ref) - 1 - READ_ONCE(mc->held);
}

static int cufab_mc_nl_put(struct cufab_mc *mc, void *arg)
{
	struct cufab_mc_dump *d = arg;
	struct cufab_alloc *alloc = mc->alloc;
	struct sk_buff *skb = d->skb;
	void *hdr;
	int ret;

	hdr = cufab_nl_dump_put(skb, d->cb, CUFAB_NL_CMD_MC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, CUFAB_NL_A_MC_ID, alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_PID, alloc->owner_pid) ||
	    nla_put_string(skb, CUFAB_NL_A_COMM, alloc->owner_comm) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_MC_SIZE, alloc->length,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_MC_HANDLE_TYPES, alloc->handle_types) ||
	    nla_put_u32(skb, CUFAB_NL_A_MC_HANDLES, cufab_mc_users(mc)) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_MC_SKIPPED,
			      atomic64_read(&mc->skipped), CUFAB_NL_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	mutex_lock(&mc->team->lock);
	ret = cufab_mc_nl_put_team(skb, mc->team);
	mutex_unlock(&mc->team->lock);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret;
	}
	genlmsg_end(skb, hdr);
	d->cb->args[0] = alloc->id;
	return 0;
}

/*
 * MC_GET: one message per object in id order; args[0] is the id of the
 * last one sent, so a dump split over several reads resumes after it.
 */
int cufab_nl_mc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_mc_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_mc_for_each(cb->args[0], cufab_mc_nl_put, &d);
	return cufab_nl_dump_ret(skb, ret);
}

/* MC_EVENT: @skipped replicas of @mc were skipped by the caller. */
void cufab_mc_nl_event(struct cufab_mc *mc, u32 skipped)
{
	struct sk_buff *msg;
	void *hdr;

	if (!cufab_nl_has_listeners())
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = cufab_nl_event_put(msg, CUFAB_NL_CMD_MC_EVENT);
	if (!hdr ||
	    nla_put_u64_64bit(msg, CUFAB_NL_A_MC_ID, mc->alloc->id,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(msg, CUFAB_NL_A_PID, task_tgid_nr(current)) ||
	    nla_put_u64_64bit(msg, CUFAB_NL_A_MC_SKIPPED, skipped,
			      CUFAB_NL_A_PAD)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	cufab_nl_event_send(msg);
}
