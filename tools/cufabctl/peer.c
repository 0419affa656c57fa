// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl peer: peer context access links (CUFAB_NL_CMD_PEER_GET) and the
 * peer connections each GPU uses (DEV_PEER_COUNT of DEV_GET).
 *
 * A link is one cuCtxEnablePeerAccess: from a context of a process to
 * another context of the same process, one way. A GPU's connections are
 * the distinct GPUs its links reach, node-wide; without the virtual
 * NVSwitch the max_peers module parameter limits them
 * (CUDA_ERROR_TOO_MANY_PEERS), so this shows who holds them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

struct peer_link {
	uint32_t pid;
	char comm[32];
	uint32_t ctx, dev, peer_ctx, peer_dev;
};

struct peer_show_state {
	bool has_pid;
	uint32_t pid;
	struct peer_link *links;
	size_t n, cap;
	uint32_t count[CUFAB_MAX_GPUS];
	uint32_t num_gpus;
};

void peer_help(FILE *f)
{
	fputs("cufabctl peer show [ pid PID ]\n"
	      "  peer access links (cuCtxEnablePeerAccess) per process: context\n"
	      "  and GPU -> peer context and GPU; then the peer connections (distinct\n"
	      "  peer GPUs) each GPU uses node-wide, which max_peers limits\n", f);
}

static int peer_link_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
			void *arg)
{
	struct peer_show_state *s = arg;
	struct peer_link *l, *grown;

	if (!tb[CUFAB_NL_A_PID] || !tb[CUFAB_NL_A_PEER_CTX] ||
	    !tb[CUFAB_NL_A_PEER_PEER_CTX]) {
		fprintf(stderr, "cufabctl: peer show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_PEER_CTX));
		return -1;
	}
	if (s->has_pid && nla_get_u32(tb[CUFAB_NL_A_PID]) != s->pid)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		grown = realloc(s->links, s->cap * sizeof(*grown));
		if (!grown) {
			fprintf(stderr, "cufabctl: peer show: out of memory\n");
			return -1;
		}
		s->links = grown;
	}
	l = &s->links[s->n++];
	memset(l, 0, sizeof(*l));
	l->pid = nla_get_u32(tb[CUFAB_NL_A_PID]);
	if (tb[CUFAB_NL_A_COMM])
		nla_strlcpy(l->comm, tb[CUFAB_NL_A_COMM], sizeof(l->comm));
	l->ctx = nla_get_u32(tb[CUFAB_NL_A_PEER_CTX]);
	l->peer_ctx = nla_get_u32(tb[CUFAB_NL_A_PEER_PEER_CTX]);
	if (tb[CUFAB_NL_A_PEER_DEV])
		l->dev = nla_get_u32(tb[CUFAB_NL_A_PEER_DEV]);
	if (tb[CUFAB_NL_A_PEER_PEER_DEV])
		l->peer_dev = nla_get_u32(tb[CUFAB_NL_A_PEER_PEER_DEV]);
	return 0;
}

static int peer_dev_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		       void *arg)
{
	struct peer_show_state *s = arg;
	uint32_t i;

	if (!tb[CUFAB_NL_A_DEV_INDEX])
		return 0;
	i = nla_get_u32(tb[CUFAB_NL_A_DEV_INDEX]);
	if (i >= CUFAB_MAX_GPUS)
		return 0;
	if (tb[CUFAB_NL_A_DEV_PEER_COUNT])
		s->count[i] = nla_get_u32(tb[CUFAB_NL_A_DEV_PEER_COUNT]);
	if (i + 1 > s->num_gpus)
		s->num_gpus = i + 1;
	return 0;
}

/* By process, then by context. */
static int link_cmp(const void *x, const void *y)
{
	const struct peer_link *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->ctx != b->ctx)
		return a->ctx < b->ctx ? -1 : 1;
	if (a->peer_ctx != b->peer_ctx)
		return a->peer_ctx < b->peer_ctx ? -1 : 1;
	return 0;
}

/*
 * pid 1234 (peer_test)
 *     ctx 3 gpu0 -> ctx 4 gpu1
 *
 * gpu0  peer connections 1
 */
static void peer_print(const struct peer_show_state *s)
{
	const struct peer_link *l;
	char dev[16];
	uint32_t i;
	size_t k;

	open_object(NULL);
	open_array(PRINT_JSON, "links", NULL);
	for (k = 0; k < s->n; k++) {
		l = &s->links[k];
		if (k == 0 || l->pid != s->links[k - 1].pid)
			print_fp("%spid %u (%s)\n", k ? "\n" : "", l->pid,
				 l->comm);
		open_object(NULL);
		print_uint(PRINT_JSON, "pid", NULL, l->pid);
		print_string(PRINT_JSON, "comm", NULL, l->comm);
		print_uint(PRINT_ANY, "ctx", "    ctx %u", l->ctx);
		print_uint(PRINT_ANY, "dev", " gpu%u", l->dev);
		print_uint(PRINT_ANY, "peer_ctx", " -> ctx %u", l->peer_ctx);
		print_uint(PRINT_ANY, "peer_dev", " gpu%u", l->peer_dev);
		print_nl();
		close_object();
	}
	close_array(PRINT_JSON, NULL);
	if (!s->n)
		print_none();
	print_fp("\n");
	open_array(PRINT_JSON, "devices", NULL);
	for (i = 0; i < s->num_gpus; i++) {
		snprintf(dev, sizeof(dev), "gpu%u", i);
		open_object(NULL);
		print_uint(PRINT_JSON, "dev", NULL, i);
		print_string(PRINT_FP, NULL, "%-5s", dev);
		print_uint(PRINT_ANY, "peer_connections",
			   " peer connections %u", s->count[i]);
		print_nl();
		close_object();
	}
	close_array(PRINT_JSON, NULL);
	close_object();
}

static int peer_show(struct ctl *ctl, int argc, char **argv)
{
	struct peer_show_state s = { 0 };
	struct cnl_error e;
	struct nl_msg *msg;
	int ret;

	if (parse_show_args("peer", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_start(ctl, CUFAB_NL_CMD_PEER_GET, true, &msg);
	if (ret)
		return ret;
	ret = cnl_transact(ctl, msg, peer_link_cb, &s, &e);
	if (!ret) {
		ret = cnl_start(ctl, CUFAB_NL_CMD_DEV_GET, true, &msg);
		if (ret) {
			free(s.links);
			return ret;
		}
		ret = cnl_transact(ctl, msg, peer_dev_cb, &s, &e);
	}
	if (!ret) {
		qsort(s.links, s.n, sizeof(*s.links), link_cmp);
		peer_print(&s);
	}
	free(s.links);
	if (ret == -1)
		return cnl_report("peer show", &e, NULL);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static const struct cmd peer_cmds[] = {
	{ "show",	peer_show },
	{ "list",	peer_show },
	{ NULL,		NULL },
};

int do_peer(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "peer", peer_cmds, peer_help, argc, argv);
}
