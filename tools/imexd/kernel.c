// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-imexd and its own kernel: the generic netlink family "cufab_imex"
 * (include/uapi/linux/cufab_imex.h).
 *
 * Two sockets: the one that registers receives the kernel's requests
 * (RESOLVE, RELEASE) whenever they come, and its close is the daemon's
 * death for the kernel; the other sends the daemon's commands and waits
 * for their answers, so that an answer is never mistaken for a request.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/cufab.h>
#include <linux/cufab_imex.h>

#include "imexd.h"

static struct nl_sock *ev_sock, *cmd_sock;
static int family;

static struct nla_policy policy[CUFAB_IMEX_A_MAX + 1] = {
	[CUFAB_IMEX_A_NODE] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_REQ_ID] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_HANDLE] = { .minlen = 64, .maxlen = 64 },
	[CUFAB_IMEX_A_CHANNEL] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_STATUS] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_OFFSET] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_LENGTH] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_TOKEN] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_DEV] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_TEAM] = { .maxlen = CUFAB_IMEX_TEAM_MAX },
	[CUFAB_IMEX_A_KIND] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_DEVICES] = { .type = NLA_U32 },
	[CUFAB_IMEX_A_ID] = { .type = NLA_U64 },
	[CUFAB_IMEX_A_LINK] = { .type = NLA_U32 },
};

static struct nl_sock *open_sock(void)
{
	struct nl_sock *s = nl_socket_alloc();

	if (!s)
		return NULL;
	if (genl_connect(s)) {
		nl_socket_free(s);
		return NULL;
	}
	return s;
}

static struct nl_msg *new_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
				cmd, CUFAB_IMEX_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct txn {
	bool done;
	int error;
};

static int txn_ack(struct nl_msg *msg, void *arg)
{
	((struct txn *)arg)->done = true;
	return NL_STOP;
}

static int txn_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct txn *t = arg;

	t->done = true;
	t->error = e->error;
	return NL_STOP;
}

/*
 * Send @msg on the command socket and read until its acknowledgment,
 * giving every answer before it to @valid. nl_send_sync() is not enough:
 * nl_recvmsgs() returns after one datagram of answers, which leaves the
 * acknowledgment to be taken for the next command's, and that command's
 * answer unread. Return: 0 or the kernel's negative errno (-EIO when the
 * socket failed).
 */
static int send_cmd_cb(struct nl_msg *msg, nl_recvmsg_msg_cb_t valid,
		       void *arg)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	struct txn t = { 0 };
	int ret;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, txn_ack, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, txn_err, &t);
	if (valid)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	ret = nl_send_auto(cmd_sock, msg);
	nlmsg_free(msg);
	while (ret >= 0 && !t.done)
		ret = nl_recvmsgs(cmd_sock, cb);
	nl_cb_put(cb);
	if (!t.done) {
		imexd_log("kernel command failed: %s", nl_geterror(ret));
		return -EIO;
	}
	return t.error;
}

static int send_cmd(struct nl_msg *msg)
{
	return send_cmd_cb(msg, NULL, NULL);
}

int kernel_fd(void)
{
	return nl_socket_get_fd(ev_sock);
}

/* A request of the kernel, on the registered socket. */
static int on_request(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CUFAB_IMEX_A_MAX + 1];
	struct imexd *d = arg;
	struct imexd_resolved r = { 0 };

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUFAB_IMEX_A_MAX, policy))
		return NL_SKIP;
	switch (gh->cmd) {
	case CUFAB_IMEX_CMD_RESOLVE:
		if (!tb[CUFAB_IMEX_A_REQ_ID] || !tb[CUFAB_IMEX_A_NODE] ||
		    !tb[CUFAB_IMEX_A_HANDLE] || !tb[CUFAB_IMEX_A_CHANNEL])
			break;
		r.req_id = nla_get_u64(tb[CUFAB_IMEX_A_REQ_ID]);
		r.status = peer_resolve(d, r.req_id,
					nla_get_u32(tb[CUFAB_IMEX_A_NODE]),
					nla_get_u32(tb[CUFAB_IMEX_A_CHANNEL]),
					nla_data(tb[CUFAB_IMEX_A_HANDLE]));
		/* not sent: the kernel's answer is now the peer's */
		if (r.status)
			kernel_resolved(r.req_id, &r);
		break;
	case CUFAB_IMEX_CMD_RELEASE:
		if (tb[CUFAB_IMEX_A_NODE] && tb[CUFAB_IMEX_A_TOKEN])
			peer_release(d, nla_get_u32(tb[CUFAB_IMEX_A_NODE]),
				     nla_get_u64(tb[CUFAB_IMEX_A_TOKEN]));
		break;
	case CUFAB_IMEX_CMD_TEAM_JOIN:
	case CUFAB_IMEX_CMD_TEAM_STATE:
		if (tb[CUFAB_IMEX_A_NODE] && tb[CUFAB_IMEX_A_TEAM])
			peer_team(d, gh->cmd == CUFAB_IMEX_CMD_TEAM_JOIN ?
				  IMEXD_TEAM_JOIN : IMEXD_TEAM_STATE,
				  nla_get_u32(tb[CUFAB_IMEX_A_NODE]),
				  nla_data(tb[CUFAB_IMEX_A_TEAM]),
				  nla_len(tb[CUFAB_IMEX_A_TEAM]));
		break;
	}
	return NL_OK;
}

void kernel_receive(struct imexd *d)
{
	nl_recvmsgs_default(ev_sock);
	(void)d;
}

int kernel_open(struct imexd *d)
{
	struct nl_msg *msg;
	int ret;

	ev_sock = open_sock();
	cmd_sock = open_sock();
	if (!ev_sock || !cmd_sock) {
		imexd_log("cannot open a generic netlink socket");
		return -1;
	}
	family = genl_ctrl_resolve(cmd_sock, CUFAB_IMEX_GENL_NAME);
	if (family < 0) {
		imexd_log("generic netlink family %s not found: is cufab.ko loaded?",
			  CUFAB_IMEX_GENL_NAME);
		return -1;
	}
	nl_socket_disable_seq_check(ev_sock);
	/* a TEAM record is up to 60000 bytes: read each message whole */
	nl_socket_enable_msg_peek(ev_sock);
	nl_socket_set_buffer_size(ev_sock, 1 << 20, 0);
	nl_socket_modify_cb(ev_sock, NL_CB_VALID, NL_CB_CUSTOM, on_request, d);
	msg = new_msg(CUFAB_IMEX_CMD_REGISTER);
	/* the grace time: the kernel revokes its imports by it if we die */
	if (!msg || nla_put_u32(msg, CUFAB_IMEX_A_NODE, d->me) ||
	    nla_put_s32(msg, CUFAB_IMEX_A_GRACE, d->grace)) {
		nlmsg_free(msg);
		return -1;
	}
	ret = nl_send_sync(ev_sock, msg);
	if (ret < 0) {
		imexd_log("the kernel refused the registration of node %d: %s",
			  d->me, nl_geterror(ret));
		return -1;
	}
	nl_socket_set_nonblocking(ev_sock);
	return 0;
}

int kernel_resolved(uint64_t req_id, const struct imexd_resolved *r)
{
	struct nl_msg *msg = new_msg(CUFAB_IMEX_CMD_RESOLVED);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u64(msg, CUFAB_IMEX_A_REQ_ID, req_id) ||
	    nla_put_u32(msg, CUFAB_IMEX_A_STATUS, (uint32_t)r->status) ||
	    (!r->status &&
	     (nla_put_u64(msg, CUFAB_IMEX_A_OFFSET, r->offset) ||
	      nla_put_u64(msg, CUFAB_IMEX_A_LENGTH, r->length) ||
	      nla_put_u64(msg, CUFAB_IMEX_A_TOKEN, r->token) ||
	      nla_put_u32(msg, CUFAB_IMEX_A_DEV, r->dev))) ||
	    (!r->status && r->kind &&
	     (nla_put_u32(msg, CUFAB_IMEX_A_KIND, r->kind) ||
	      nla_put_u32(msg, CUFAB_IMEX_A_DEVICES, r->devices) ||
	      nla_put_u64(msg, CUFAB_IMEX_A_ID, r->id)))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return send_cmd(msg);
}

static int on_export(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUFAB_IMEX_A_MAX + 1];
	struct imexd_resolved *r = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUFAB_IMEX_A_MAX, policy) ||
	    !tb[CUFAB_IMEX_A_STATUS]) {
		imexd_log("EXPORT_GET answered without a status");
		return NL_SKIP;
	}
	r->status = (int32_t)nla_get_u32(tb[CUFAB_IMEX_A_STATUS]);
	if (r->status)
		return NL_OK;
	if (!tb[CUFAB_IMEX_A_OFFSET] || !tb[CUFAB_IMEX_A_LENGTH] ||
	    !tb[CUFAB_IMEX_A_TOKEN] || !tb[CUFAB_IMEX_A_DEV]) {
		r->status = -EPROTO;
		return NL_OK;
	}
	r->offset = nla_get_u64(tb[CUFAB_IMEX_A_OFFSET]);
	r->length = nla_get_u64(tb[CUFAB_IMEX_A_LENGTH]);
	r->token = nla_get_u64(tb[CUFAB_IMEX_A_TOKEN]);
	r->dev = nla_get_u32(tb[CUFAB_IMEX_A_DEV]);
	if (tb[CUFAB_IMEX_A_KIND])
		r->kind = nla_get_u32(tb[CUFAB_IMEX_A_KIND]);
	if (tb[CUFAB_IMEX_A_DEVICES])
		r->devices = nla_get_u32(tb[CUFAB_IMEX_A_DEVICES]);
	if (tb[CUFAB_IMEX_A_ID])
		r->id = nla_get_u64(tb[CUFAB_IMEX_A_ID]);
	return NL_OK;
}

/* The exporter's side of an import: the kernel checks, then answers. */
int kernel_export_get(const uint8_t *handle, uint32_t channel, int node,
		      struct imexd_resolved *r)
{
	struct nl_msg *msg = new_msg(CUFAB_IMEX_CMD_EXPORT_GET);
	int ret;

	r->status = -EPROTO;
	if (!msg)
		return -ENOMEM;
	if (nla_put(msg, CUFAB_IMEX_A_HANDLE, 64, handle) ||
	    nla_put_u32(msg, CUFAB_IMEX_A_CHANNEL, channel) ||
	    nla_put_u32(msg, CUFAB_IMEX_A_NODE, node)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	ret = send_cmd_cb(msg, on_export, r);
	if (ret)
		r->status = ret;
	else if (r->status == -EPROTO)
		imexd_log("EXPORT_GET: acknowledged, but no answer was seen");
	return 0;
}

static int send_node_token(uint8_t cmd, int node, uint64_t token, bool tok)
{
	struct nl_msg *msg = new_msg(cmd);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, CUFAB_IMEX_A_NODE, node) ||
	    (tok && nla_put_u64(msg, CUFAB_IMEX_A_TOKEN, token))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return send_cmd(msg);
}

int kernel_export_put(int node, uint64_t token)
{
	return send_node_token(CUFAB_IMEX_CMD_EXPORT_PUT, node, token, true);
}

int kernel_node_down(int node)
{
	return send_node_token(CUFAB_IMEX_CMD_NODE_DOWN, node, 0, false);
}

/* @node's exports ended: the kernel revokes and releases its imports. */
int kernel_revoke(int node)
{
	return send_node_token(CUFAB_IMEX_CMD_REVOKE, node, 0, false);
}

/* Handle every request the kernel has queued (the RELEASEs of REVOKE). */
void kernel_drain(struct imexd *d)
{
	struct pollfd pfd = { .fd = kernel_fd(), .events = POLLIN };

	while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN))
		kernel_receive(d);
}

/* A TEAM record of node @node for this node's kernel. */
int kernel_team(uint16_t type, int node, const void *rec, uint32_t len)
{
	struct nl_msg *msg = nlmsg_alloc_size(len + 256);

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			 type == IMEXD_TEAM_JOIN ? CUFAB_IMEX_CMD_TEAM_JOIN :
			 CUFAB_IMEX_CMD_TEAM_STATE, CUFAB_IMEX_GENL_VERSION) ||
	    nla_put_u32(msg, CUFAB_IMEX_A_NODE, node) ||
	    nla_put(msg, CUFAB_IMEX_A_TEAM, len, rec)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return send_cmd(msg);
}

/* -N's letter of a peer, as the kernel's enum cufab_domain_link. */
static uint32_t link_of(const struct peer *p)
{
	switch (peer_state_letter(p)[0]) {
	case 'C':
		return CUFAB_LINK_UP;
	case 'A':
		return CUFAB_LINK_AUTH;
	case 'R':
		return CUFAB_LINK_LOST;
	case 'D':
		return CUFAB_LINK_GONE;
	default:
		return CUFAB_LINK_NEVER;
	}
}

/*
 * Tell the kernel of every link that changed since last told (cufabctl
 * domain show reads them there). The kernel forgets them when a daemon
 * registers, so the first call tells all.
 */
void kernel_links(struct imexd *d)
{
	static uint8_t told[IMEXD_MAX_NODES];
	struct nl_msg *msg;
	uint32_t link;
	int i;

	for (i = 0; i < d->nodes; i++) {
		if (i == d->me)
			continue;
		link = link_of(&d->peers[i]);
		if (told[i] == link)
			continue;
		msg = new_msg(CUFAB_IMEX_CMD_LINK);
		if (!msg || nla_put_u32(msg, CUFAB_IMEX_A_NODE, i) ||
		    nla_put_u32(msg, CUFAB_IMEX_A_LINK, link)) {
			nlmsg_free(msg);
			return;
		}
		if (!send_cmd(msg))
			told[i] = link;
	}
}

/*
 * A clean stop (after REVOKE and BYE): the registered socket's close is
 * then no death, and the kernel keeps its imports. The kernel handles the
 * command within the send; its acknowledgment is not waited for.
 */
void kernel_unregister(void)
{
	struct nl_msg *msg = new_msg(CUFAB_IMEX_CMD_UNREGISTER);

	if (!msg)
		return;
	if (nl_send_auto(ev_sock, msg) < 0)
		imexd_log("UNREGISTER not sent: the kernel takes this stop for a death");
	nlmsg_free(msg);
}

void kernel_close(void)
{
	nl_socket_free(ev_sock);
	nl_socket_free(cmd_sock);
}
