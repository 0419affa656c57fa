// SPDX-License-Identifier: GPL-2.0
/*
 * CUFAB_NL_CMD_LE_GET dump: one message per client that has endpoint
 * state, with its reserved ranges, its associated ids and, per id, the
 * endpoint, its team and the bindings on each device (what cufabctl
 * le show prints).
 *
 * A message is built under cufab_clients_lock, the client's le.lock and
 * each team's lock, in that order. args[0] counts the clients already
 * sent. When a client's state does not fit one message, the ids and
 * bindings that do are sent and the rest left out: a dump reports, it
 * must not fail because a process has a hundred thousand bindings.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pid.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"

struct cufab_nl_le_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	bool full;		/* the message is full: add no more nests */
};

static int cufab_nl_le_put_range(u32 base, u32 count, void *arg)
{
	struct cufab_nl_le_dump *d = arg;
	struct nlattr *nest;

	nest = nla_nest_start(d->skb, CUFAB_NL_A_LE_RANGE);
	if (!nest)
		goto full;
	if (nla_put_u32(d->skb, CUFAB_NL_A_LE_RANGE_BASE, base) ||
	    nla_put_u32(d->skb, CUFAB_NL_A_LE_RANGE_COUNT, count)) {
		nla_nest_cancel(d->skb, nest);
		goto full;
	}
	nla_nest_end(d->skb, nest);
	return 0;
full:
	d->full = true;
	return -EMSGSIZE;
}

/* Team size, members and every binding, under the team's lock. */
static int cufab_nl_le_put_team(struct cufab_nl_le_dump *d,
				struct cufab_team *team)
{
	struct cufab_team_member *m;
	struct cufab_binding *b;
	int ret;
	u32 i;

	mutex_lock(&team->lock);
	ret = cufab_nl_put_team(d->skb, team);
	if (ret)
		goto out;
	for (i = 0; i < team->joined && !d->full; i++) {
		m = &team->members[i];
		for (b = cufab_bindmap_first_from(&m->map, 0); b;
		     b = cufab_bindmap_next(b)) {
			if (cufab_nl_put_binding(d->skb, m->gpu, b)) {
				d->full = true;
				break;
			}
		}
	}
out:
	mutex_unlock(&team->lock);
	return ret;
}

static int cufab_nl_le_put_alias(struct cufab_nl_le_dump *d,
				 struct cufab_le_alias *alias)
{
	struct cufab_le *le = alias->le;
	struct sk_buff *skb = d->skb;
	struct nlattr *nest;

	nest = nla_nest_start(skb, CUFAB_NL_A_LE);
	if (!nest)
		goto full;
	if (nla_put_u32(skb, CUFAB_NL_A_LE_ID, alias->id) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_LE_ENDPOINT, le->number,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_TYPE, le->type) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_LE_SIZE, le->length,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_FLAGS, le->le_flags) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_IPC_TYPES, le->ipc_types) ||
	    nla_put_u8(skb, CUFAB_NL_A_LE_READY, cufab_le_ready(le)) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_ALIASES,
			atomic_read(&le->aliases)) ||
	    nla_put_u32(skb, CUFAB_NL_A_LE_EXPORTER_PID,
			READ_ONCE(le->exporter_pid)) ||
	    nla_put_u8(skb, CUFAB_NL_A_LE_IMPORTED, alias->imported) ||
	    cufab_nl_le_put_team(d, le->team)) {
		nla_nest_cancel(skb, nest);
		goto full;
	}
	nla_nest_end(skb, nest);
	return 0;
full:
	d->full = true;
	return -EMSGSIZE;
}

static void cufab_nl_le_put_state(struct cufab_nl_le_dump *d,
				  struct cufab_client *client)
{
	struct cufab_le_alias *alias;
	unsigned long id;

	cufab_idspace_for_each(&client->le.ids, cufab_nl_le_put_range, d);
	xa_for_each(&client->le.aliases, id, alias)
		if (d->full || cufab_nl_le_put_alias(d, alias))
			break;
}

/* One message for @client, or nothing when it never used endpoints. */
static int cufab_nl_le_put_client(struct cufab_client *client, void *arg)
{
	struct cufab_nl_le_dump *d = arg;
	int ret = 0;
	void *hdr;

	mutex_lock(&client->le.lock);
	if (client->le.dead || !client->le.ids.ranges)
		goto next;
	hdr = cufab_nl_dump_put(d->skb, d->cb, CUFAB_NL_CMD_LE_GET);
	if (!hdr ||
	    nla_put_u32(d->skb, CUFAB_NL_A_PID, pid_nr(client->tgid)) ||
	    nla_put_string(d->skb, CUFAB_NL_A_COMM, client->comm)) {
		if (hdr)
			genlmsg_cancel(d->skb, hdr);
		ret = -EMSGSIZE;
		goto out;
	}
	d->full = false;
	cufab_nl_le_put_state(d, client);
	genlmsg_end(d->skb, hdr);
next:
	d->cb->args[0]++;
out:
	mutex_unlock(&client->le.lock);
	return ret;
}

int cufab_nl_le_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_nl_le_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_clients_for_each(cb->args[0], cufab_nl_le_put_client, &d);
	return cufab_nl_dump_ret(skb, ret);
}
