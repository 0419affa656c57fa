// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink view of streams: the STREAM_GET dump (cufabctl stream show) and
 * the STREAM_EVENT notification sent when a stream fails, that is when an
 * operation gives it its sticky error.
 *
 * A dump sends one message per stream, walking the clients in open order
 * and each client's streams in creation order; args[0] counts the clients
 * done and args[1] the streams of the next one already sent, so a dump
 * split over several reads resumes where it stopped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <net/genetlink.h>
#include <linux/cufab.h>

#include "cufab.h"

struct cufab_stream_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

/* The state of @s. Context: s->lock held. */
static int cufab_stream_nl_put_state(struct sk_buff *skb,
				     const struct cufab_stream *s)
{
	const struct cufab_seq_slot *slot = &s->space->slots[s->slot];

	if (nla_put_u64_64bit(skb, CUFAB_NL_A_STREAM_UID, s->uid,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u32(skb, CUFAB_NL_A_STREAM_CTX, s->ctx_id) ||
	    nla_put_u32(skb, CUFAB_NL_A_STREAM_DEV, s->dev) ||
	    nla_put_u32(skb, CUFAB_NL_A_STREAM_FLAGS, s->flags) ||
	    nla_put_s32(skb, CUFAB_NL_A_STREAM_PRIORITY, s->priority) ||
	    nla_put_u32(skb, CUFAB_NL_A_STREAM_DEPTH, s->depth) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_STREAM_SUBMITTED, s->submitted,
			      CUFAB_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, CUFAB_NL_A_STREAM_COMPLETED,
			      READ_ONCE(slot->seq), CUFAB_NL_A_PAD) ||
	    nla_put_s32(skb, CUFAB_NL_A_STREAM_ERROR, s->error) ||
	    (s->running &&
	     nla_put_string(skb, CUFAB_NL_A_STREAM_RUNNING, s->running)))
		return -EMSGSIZE;
	return 0;
}

static int cufab_stream_nl_put(struct cufab_stream_dump *d,
			       struct cufab_client *client,
			       struct cufab_stream *s)
{
	struct sk_buff *skb = d->skb;
	void *hdr;
	int ret;

	hdr = cufab_nl_dump_put(skb, d->cb, CUFAB_NL_CMD_STREAM_GET);
	if (!hdr)
		return -EMSGSIZE;
	spin_lock(&s->lock);
	ret = nla_put_u32(skb, CUFAB_NL_A_PID, pid_nr(client->tgid)) ||
	      nla_put_string(skb, CUFAB_NL_A_COMM, client->comm) ||
	      cufab_stream_nl_put_state(skb, s);
	spin_unlock(&s->lock);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int cufab_stream_nl_put_client(struct cufab_client *client, void *arg)
{
	struct cufab_stream_space *space = READ_ONCE(client->streams);
	struct cufab_stream_dump *d = arg;
	struct netlink_callback *cb = d->cb;
	struct cufab_stream *s;
	unsigned long i = 0;
	int ret = 0;

	if (space) {
		mutex_lock(&space->lock);
		list_for_each_entry(s, &space->streams, node) {
			if (i++ < cb->args[1])
				continue;
			ret = cufab_stream_nl_put(d, client, s);
			if (ret)
				break;
			cb->args[1]++;
		}
		mutex_unlock(&space->lock);
	}
	if (!ret) {
		cb->args[0]++;
		cb->args[1] = 0;
	}
	return ret;
}

int cufab_nl_stream_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct cufab_stream_dump d = { .skb = skb, .cb = cb };
	int ret;

	ret = cufab_clients_for_each(cb->args[0], cufab_stream_nl_put_client,
				     &d);
	return cufab_nl_dump_ret(skb, ret);
}

/*
 * Watcher @failed: announce that the stream of @op failed, its sticky
 * error just set, naming the operation and its sequence number.
 * Context: process, no lock of the stream held.
 */
static void cufab_stream_nl_failed(struct cufab_op *op)
{
	struct cufab_stream *stream = op->stream;
	struct cufab_client *client = stream->client;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = cufab_nl_event_new(CUFAB_NL_CMD_STREAM_EVENT, NLMSG_GOODSIZE,
				 &hdr);
	if (!msg)
		return;
	spin_lock(&stream->lock);
	ret = nla_put_u32(msg, CUFAB_NL_A_PID, pid_nr(client->tgid)) ||
	      nla_put_string(msg, CUFAB_NL_A_COMM, client->comm) ||
	      nla_put_string(msg, CUFAB_NL_A_STREAM_OP, op->type->name) ||
	      nla_put_u64_64bit(msg, CUFAB_NL_A_STREAM_SEQ, op->seq,
				CUFAB_NL_A_PAD) ||
	      cufab_stream_nl_put_state(msg, stream);
	spin_unlock(&stream->lock);
	if (ret)
		goto err;
	cufab_nl_event_send(msg, hdr);
	return;
err:
	nlmsg_free(msg);
}

const struct cufab_stream_watch cufab_stream_nl_watch = {
	.failed = cufab_stream_nl_failed,
};
