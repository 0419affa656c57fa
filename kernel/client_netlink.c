// SPDX-License-Identifier: GPL-2.0
/*
 * PROC_GET (cufabctl proc show): one message per open /dev/cufab, with
 * the objects its process holds by kind and the bytes behind its memory
 * handles; what debugfs cufab/clients shows, without debugfs or root.
 *
 * The walk holds cufab_clients_lock (cufab_clients_for_each()), so the
 * client stays; its object table is read under the table's lock, where an
 * object in it keeps what it holds, and only published objects count (an
 * object being built has no users yet, cufab_object_finalize()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pid.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"

struct cufab_nl_proc_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

struct cufab_proc_counts {
	u32 n[CUFAB_OBJ_MAX];
	u64 mem_bytes;
};

static void cufab_proc_count(struct cufab_client *client,
			     struct cufab_proc_counts *c)
{
	struct cufab_object *obj;
	unsigned long id;

	xa_lock(&client->objects);
	xa_for_each(&client->objects, id, obj) {
		if (!refcount_read(&obj->users))
			continue;
		c->n[obj->type]++;
		if (obj->type == CUFAB_OBJ_MEM_HANDLE)
			c->mem_bytes += container_of(obj,
						     struct cufab_mem_handle,
						     obj)->alloc->length;
	}
	xa_unlock(&client->objects);
}

static int cufab_nl_proc_put_client(struct cufab_client *client, void *arg)
{
	struct cufab_nl_proc_dump *d = arg;
	struct cufab_proc_counts c = { };
	struct sk_buff *skb = d->skb;
	void *hdr;

	cufab_proc_count(client, &c);
	hdr = cufab_nl_dump_put(skb, d->cb, CUFAB_NL_CMD_PROC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, CUFAB_NL_A_PID, pid_nr(client->tgid)) ||
	    nla_put_string(skb, CUFAB_NL_A_COMM, client->comm) ||
	    nla_put_u32(skb, CUFAB_NL_A_PROC_CONTEXTS, c.n[CUFAB_OBJ_CTX]) ||
	    nla_put_u32(skb, CUFAB_NL_A_PROC_MEM_HANDLES,
			c.n[CUFAB_OBJ_MEM_HANDLE]) ||
	    nla_put_u32(skb, CUFAB_NL_A_PROC_STREAMS, c.n[CUFAB_OBJ_STREAM]) ||
	    nla_put_u32(skb, CUFAB_NL_A_PROC_EVENTS, c.n[CUFAB_OBJ_EVENT]) ||
	    nla_put_u32(skb, CUFAB_NL_A_PROC_POOLS, c.n[CUFAB_OBJ_POOL]) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_PROC_MEM_BYTES, c.mem_bytes,
			      CUFAB_NL_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	d->cb->args[0]++;
	return 0;
}

int cufab_nl_proc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cufab_nl_proc_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_clients_for_each(cb->args[0], cufab_nl_proc_put_client, &d);
	return cufab_nl_dump_ret(skb, ret);
}
