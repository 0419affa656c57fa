// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink side: every command of the "cufab" family described
 * once (its attributes and their types), messages made from that the way
 * gen.c makes ioctls, and the dumps the invariants read. Raw sockets, no
 * libnl, so that malformed attributes can be sent.
 *
 * DEV_SET and TOPO_SET change the node: the generator sends them either
 * with the values the node has (nl_snapshot) or with a value the policy
 * refuses, and nl_restore() puts the snapshot back at the end of an
 * episode, so a run leaves the node as it found it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fuzz.h"

#define NL_BUF		65536
#define A_U8		1
#define A_U32		4
#define A_U64		8
#define A_STR		0x100

struct nl_attr_desc {
	unsigned short type;
	unsigned short kind;	/* A_U8, A_U32, A_U64 */
};

struct nl_cmd_desc {
	const char *name;
	unsigned char cmd;
	bool dump, doit, set;
	const struct nl_attr_desc *attrs;
	unsigned int nattrs;
};

#define NLCMD(_n, _dump, _do, _set, ...) {				\
	.name = #_n, .cmd = CUFAB_NL_CMD_##_n, .dump = (_dump),		\
	.doit = (_do), .set = (_set),					\
	.attrs = (const struct nl_attr_desc[]){ __VA_ARGS__ },		\
	.nattrs = ARRAY_SIZE(((const struct nl_attr_desc[]){ __VA_ARGS__ })) }

#define A(t, k)		{ CUFAB_NL_A_##t, k }

static const struct nl_cmd_desc nl_cmds[] = {
	NLCMD(DEV_GET, true, true, false, A(DEV_INDEX, A_U32)),
	NLCMD(DEV_SET, false, true, true, A(DEV_INDEX, A_U32),
	      A(DEV_MEM_TOTAL, A_U64), A(DEV_NUMA_NODE, A_U32),
	      A(DEV_CLIQUE, A_U32), A(DEV_FEATURES, A_U32),
	      A(DEV_FEATURES_MASK, A_U32), A(DEV_PEERS, A_U64),
	      A(DEV_MEM_GRAN, A_U64), A(DEV_MEM_GRAN_REC, A_U64),
	      A(DEV_MC_GRAN, A_U64), A(DEV_MC_GRAN_REC, A_U64)),
	NLCMD(TOPO_GET, false, true, false, A(TOPO_NUM_GPUS, A_U32)),
	NLCMD(TOPO_SET, false, true, true, A(TOPO_NUM_GPUS, A_U32),
	      A(TOPO_NVSWITCH, A_U8), A(TOPO_RACE_DELAY_US, A_U32),
	      A(TOPO_RACE_SEED, A_U32), A(TOPO_MANAGED_CHECK, A_U32)),
	NLCMD(ALLOC_GET, true, false, false, A(ALLOC_ID, A_U64)),
	NLCMD(LE_GET, true, false, false, A(PID, A_U32)),
	NLCMD(MC_GET, true, false, false, A(MC_ID, A_U64)),
	NLCMD(PEER_GET, true, false, false, A(PEER_CTX, A_U32)),
	NLCMD(POOL_GET, true, false, false, A(POOL_ID, A_U32)),
	NLCMD(STREAM_GET, true, false, false, A(STREAM_UID, A_U64)),
	NLCMD(PROC_GET, true, false, false, A(PID, A_U32)),
	NLCMD(DOMAIN_GET, true, false, false, A(DOMAIN_NODE, A_U32)),
};

/*
 * Every request command of the family is described; the other three are
 * notifications the kernel sends (MC_EVENT, STREAM_EVENT, MANAGED_EVENT).
 */
_Static_assert(ARRAY_SIZE(nl_cmds) == CUFAB_NL_CMD_MAX - 3,
	       "a netlink command of the uAPI header has no description in the fuzzer's table");

const unsigned int fuzz_nl_ncmds = ARRAY_SIZE(nl_cmds);
const char *const fuzz_nl_names[] = {
	"DEV_GET", "DEV_SET", "TOPO_GET", "TOPO_SET", "ALLOC_GET", "LE_GET",
	"MC_GET", "PEER_GET", "POOL_GET", "STREAM_GET", "PROC_GET",
	"DOMAIN_GET",
};

static int family;
static unsigned int seq;

/* the node as it was: per GPU the DEV_SET attributes, and TOPO_SET's */
static unsigned long long snap_dev[CUFAB_MAX_GPUS][CUFAB_NL_A_MAX + 1];
static unsigned long long snap_topo[CUFAB_NL_A_MAX + 1];
static unsigned int snap_ngpus;

static char *put_attr(char *p, unsigned short type, const void *data,
		      unsigned int len)
{
	struct nlattr *a = (struct nlattr *)p;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(p + NLA_HDRLEN, data, len);
	return p + NLA_ALIGN(a->nla_len);
}

static char *put_num(char *p, unsigned short type, unsigned int width,
		     unsigned long long v)
{
	unsigned char b = v;
	unsigned int w = v;

	if (width == 1)
		return put_attr(p, type, &b, 1);
	if (width == 4)
		return put_attr(p, type, &w, 4);
	return put_attr(p, type, &v, 8);
}

static int nl_send(int sock, unsigned char cmd, unsigned short flags,
		   const char *attrs, unsigned int alen)
{
	char buf[4096] __attribute__((aligned(8)));
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	h->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + alen;
	h->nlmsg_type = family;
	/* a dump ends with NLMSG_DONE; a request with its ack */
	h->nlmsg_flags = NLM_F_REQUEST | flags |
			 (flags & NLM_F_DUMP ? 0 : NLM_F_ACK);
	h->nlmsg_seq = ++seq;
	h->nlmsg_pid = 0;
	g->cmd = cmd;
	g->version = CUFAB_GENL_VERSION;
	g->reserved = 0;
	memcpy((char *)g + GENL_HDRLEN, attrs, alen);
	return sendto(sock, buf, h->nlmsg_len, 0, (struct sockaddr *)&sa,
		      sizeof(sa)) < 0 ? -errno : 0;
}

typedef void (*nl_cb)(const struct nlattr *tb[], void *arg);

static void parse(const struct nlmsghdr *h, const struct nlattr **tb)
{
	const char *p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN;
	const char *end = (const char *)h + h->nlmsg_len;

	memset(tb, 0, sizeof(*tb) * (CUFAB_NL_A_MAX + 1));
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)p;
		unsigned int t = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if (t <= CUFAB_NL_A_MAX)
			tb[t] = a;
		p += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Read replies until the ack (or the end of a dump): the errno of the
 * request (0 for success), @msgs counts the data messages.
 */
static int nl_recv(int sock, nl_cb cb, void *arg, unsigned int *msgs)
{
	static __thread char buf[NL_BUF] __attribute__((aligned(8)));
	const struct nlattr *tb[CUFAB_NL_A_MAX + 1];

	for (;;) {
		ssize_t n = recv(sock, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return errno == EINTR ? -EINTR : -errno;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;	/* a late answer to an earlier request */
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (msgs)
				(*msgs)++;
			if (cb) {
				parse(h, tb);
				cb(tb, arg);
			}
		}
	}
}

static unsigned long long nla_num(const struct nlattr *a)
{
	unsigned long long v = 0;
	unsigned int len = a->nla_len - NLA_HDRLEN;

	memcpy(&v, (const char *)a + NLA_HDRLEN, len > 8 ? 8 : len);
	return v;
}

static void family_cb(const struct nlattr *tb[], void *arg)
{
	/* CTRL_ATTR_FAMILY_ID (1) is a u16; tb is indexed by cufab's types */
	if (tb[CTRL_ATTR_FAMILY_ID])
		*(int *)arg = nla_num(tb[CTRL_ATTR_FAMILY_ID]) & 0xffff;
}

/* After a reload of the module the family may have another id. */
void nl_reset(void)
{
	family = 0;
}

int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char attrs[64];
	char *p;
	int sock, fam = 0, saved;
	struct timeval tv = { .tv_sec = 10 };

	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (family)
		return sock;
	p = put_attr(attrs, CTRL_ATTR_FAMILY_NAME, CUFAB_GENL_NAME,
		     sizeof(CUFAB_GENL_NAME));
	saved = family;
	family = GENL_ID_CTRL;
	if (nl_send(sock, CTRL_CMD_GETFAMILY, 0, attrs, p - attrs) ||
	    nl_recv(sock, family_cb, &fam, NULL) || !fam) {
		family = saved;
		close(sock);
		return -1;
	}
	family = fam;
	return sock;
}

static void dev_snap_cb(const struct nlattr *tb[], void *arg)
{
	unsigned int i, d;

	if (!tb[CUFAB_NL_A_DEV_INDEX])
		return;
	d = nla_num(tb[CUFAB_NL_A_DEV_INDEX]);
	if (d >= CUFAB_MAX_GPUS)
		return;
	for (i = 0; i <= CUFAB_NL_A_MAX; i++)
		if (tb[i])
			snap_dev[d][i] = nla_num(tb[i]);
	if (d + 1 > snap_ngpus)
		snap_ngpus = d + 1;
}

static void topo_snap_cb(const struct nlattr *tb[], void *arg)
{
	unsigned int i;

	for (i = 0; i <= CUFAB_NL_A_MAX; i++)
		if (tb[i])
			snap_topo[i] = nla_num(tb[i]);
}

void nl_snapshot(int sock)
{
	snap_ngpus = 0;
	if (!nl_send(sock, CUFAB_NL_CMD_DEV_GET, NLM_F_DUMP, NULL, 0))
		nl_recv(sock, dev_snap_cb, NULL, NULL);
	if (!nl_send(sock, CUFAB_NL_CMD_TOPO_GET, 0, NULL, 0))
		nl_recv(sock, topo_snap_cb, NULL, NULL);
}

/*
 * The attributes of a SET that changes nothing: the snapshot's values,
 * each attribute with probability 1/@one_in (1: all), or only @only.
 */
static char *set_attrs(struct thread *t, char *p, const struct nl_cmd_desc *c,
		       unsigned int dev, unsigned int one_in, int only)
{
	unsigned int i;

	for (i = 0; i < c->nattrs; i++) {
		const struct nl_attr_desc *a = &c->attrs[i];
		unsigned long long v;

		if (a->type == CUFAB_NL_A_DEV_INDEX) {
			p = put_num(p, a->type, a->kind, dev);
			continue;
		}
		if (only >= 0 ? (int)i != only : t && rn(t, one_in))
			continue;
		if (a->type == CUFAB_NL_A_DEV_FEATURES_MASK)
			continue;
		if (c->cmd == CUFAB_NL_CMD_DEV_SET)
			v = snap_dev[dev][a->type];
		else
			v = snap_topo[a->type];
		p = put_num(p, a->type, a->kind, v);
	}
	return p;
}

/* One attribute at a time: one refused does not keep the others back. */
void nl_restore(int sock)
{
	char attrs[512];
	unsigned int d, i, c;
	char *p;

	for (c = 1; c <= 3; c += 2) {
		for (d = 0; d < (c == 1 ? snap_ngpus : 1); d++) {
			for (i = 0; i < nl_cmds[c].nattrs; i++) {
				p = set_attrs(NULL, attrs, &nl_cmds[c], d, 1, i);
				if (!nl_send(sock, nl_cmds[c].cmd, 0, attrs, p - attrs))
					nl_recv(sock, NULL, NULL, NULL);
			}
		}
	}
}

/*
 * A value the policy of @a refuses, so that a mutated SET never changes
 * the node: past the maximum, or an attribute of the wrong length.
 */
static char *bad_attr(struct thread *t, char *p, const struct nl_attr_desc *a)
{
	static const unsigned long long too_big[] = { ~0ULL, 1ULL << 62 };

	switch (rn(t, 3)) {
	case 0:		/* wrong length */
		return put_num(p, a->type, a->kind == A_U64 ? 4 : 8, rnd(t));
	case 1:		/* empty */
		return put_attr(p, a->type, NULL, 0);
	default:
		if (a->type == CUFAB_NL_A_DEV_PEERS ||
		    a->type == CUFAB_NL_A_TOPO_RACE_SEED)
			return put_num(p, a->type, 1, 0);	/* too short */
		if (a->type == CUFAB_NL_A_DEV_NUMA_NODE)
			return put_num(p, a->type, 4, -2);
		return put_num(p, a->type, a->kind,
			       a->kind == A_U8 ? 2 : a->kind == A_U32 ?
			       0xffffffffULL : too_big[rn(t, 2)]);
	}
}

static void count_nl(unsigned int i, int err)
{
	__atomic_add_fetch(&stats->nl_calls[i], 1, __ATOMIC_RELAXED);
	if (!err)
		__atomic_add_fetch(&stats->nl_ok[i], 1, __ATOMIC_RELAXED);
	else if (err < MAX_ERRNO)
		__atomic_add_fetch(&stats->nl_err[i][err], 1, __ATOMIC_RELAXED);
}

/* One request of a random command: valid, or with a refused attribute. */
int nl_fuzz_one(struct thread *t, int sock)
{
	unsigned int i = rn(t, ARRAY_SIZE(nl_cmds)), j;
	const struct nl_cmd_desc *c = &nl_cmds[i];
	char attrs[1024];
	char *p = attrs;
	bool dump = c->dump && (!c->doit || rn(t, 2));
	bool mutate = !rn(t, 3);
	unsigned int dev = rn(t, snap_ngpus ? snap_ngpus + 1 : 4);
	int err;

	if (c->set && !mutate && dev < snap_ngpus) {
		p = set_attrs(t, p, c, dev, 2, -1);
	} else if (c->set) {
		/* index plus one refused attribute: never a change */
		if (c->cmd == CUFAB_NL_CMD_DEV_SET)
			p = put_num(p, CUFAB_NL_A_DEV_INDEX, 4, dev);
		p = bad_attr(t, p, &c->attrs[1 + rn(t, c->nattrs - 1)]);
	} else {
		for (j = 0; j < c->nattrs; j++) {
			if (!rn(t, 2))
				continue;
			if (mutate)
				p = bad_attr(t, p, &c->attrs[j]);
			else
				p = put_num(p, c->attrs[j].type, c->attrs[j].kind,
					    rn(t, 8));
		}
		if (mutate && !rn(t, 4))	/* an attribute no command knows */
			p = put_num(p, CUFAB_NL_A_MAX + 1 + rn(t, 8), 4, rnd(t));
	}
	err = nl_send(sock, c->cmd, dump ? NLM_F_DUMP : 0, attrs, p - attrs);
	if (!err)
		err = nl_recv(sock, NULL, NULL, NULL);
	count_nl(i, -err);
	return err;
}

/*
 * Every dump once, then every debugfs file read through: what a monitor
 * does while the processes of an episode open, work, exit and are killed.
 */
void nl_dump_all(int sock)
{
	static const char *const files[] = {
		"clients", "gpus", "mem", "fabric_exports", "streams", "pools",
	};
	char path[64], buf[512];
	unsigned int i;
	int err, fd;

	for (i = 0; i < ARRAY_SIZE(nl_cmds); i++) {
		if (!nl_cmds[i].dump)
			continue;
		err = nl_send(sock, nl_cmds[i].cmd, NLM_F_DUMP, NULL, 0);
		if (!err)
			err = nl_recv(sock, NULL, NULL, NULL);
		count_nl(i, -err);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/cufab/%s",
			 files[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* short reads: the seq_file walks again for each */
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	__atomic_add_fetch(&stats->dump_rounds, 1, __ATOMIC_RELAXED);
}

/* What an idle node's dumps must say: nothing. */
int nl_check_empty(int sock, char *why, size_t len)
{
	static const unsigned char dumps[] = {
		CUFAB_NL_CMD_ALLOC_GET, CUFAB_NL_CMD_LE_GET, CUFAB_NL_CMD_MC_GET,
		CUFAB_NL_CMD_PEER_GET, CUFAB_NL_CMD_POOL_GET,
		CUFAB_NL_CMD_STREAM_GET,
	};
	unsigned int i, msgs;
	int err;

	for (i = 0; i < ARRAY_SIZE(dumps); i++) {
		msgs = 0;
		err = nl_send(sock, dumps[i], NLM_F_DUMP, NULL, 0);
		if (!err)
			err = nl_recv(sock, NULL, NULL, &msgs);
		if (err || msgs) {
			snprintf(why, len, "netlink dump %s: %s, %u messages",
				 fuzz_nl_names[4 + i], err ? strerror(-err) : "ok",
				 msgs);
			return -1;
		}
	}
	return 0;
}

static void topo_cb(const struct nlattr *tb[], void *arg)
{
	long long *v = arg;

	if (tb[v[0]])
		v[1] = nla_num(tb[v[0]]);
}

/* A u32/u64 attribute of TOPO_GET (clients, live objects), -1 on error. */
long long nl_topo_u64(int sock, int attr)
{
	long long v[2] = { attr, -1 };

	if (nl_send(sock, CUFAB_NL_CMD_TOPO_GET, 0, NULL, 0) ||
	    nl_recv(sock, topo_cb, v, NULL))
		return -1;
	return v[1];
}
