// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl mc: multicast objects of the node (CUFAB_NL_CMD_MC_GET), and
 * the MC_EVENT lines of "cufabctl monitor".
 *
 * The point of "mc show" is the team: a bind or cuMemMap of a multicast
 * handle blocks until every device has joined, so a team stuck at "k of
 * n" with waiters names the program that hangs and how many devices are
 * missing. Bindings are listed per device, so mismatched offsets and
 * sizes between ranks are visible.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

#define MC_MAX_BINDINGS		256

struct mc_binding {
	uint32_t dev;
	uint64_t offset, size, alloc, mem_offset;
	uint32_t pid;
};

struct mc_info {
	uint64_t id;
	uint32_t pid;
	char comm[32];
	uint64_t size;
	uint32_t handle_types, handles;
	uint64_t skipped;
	uint32_t team_size, joined, waiters;
	uint64_t devs;
	unsigned int nbind;
	struct mc_binding bind[MC_MAX_BINDINGS];
};

struct mc_show_state {
	bool has_pid;
	uint32_t pid;
	unsigned int count;
};

void mc_help(FILE *f)
{
	fputs("cufabctl mc show [ pid PID ]\n"
	      "  multicast objects (cuMulticastCreate): creator, size, handle\n"
	      "  types, references, replicas skipped by multimem, the team\n"
	      "  (\"k of n devices\", the missing count and the callers blocked\n"
	      "  on it) and every binding per device\n", f);
}

static void mc_bindings(struct nlmsghdr *nlh, struct mc_info *m)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	struct mc_binding *b;
	struct nlattr *nla;
	int rem;

	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != CUFAB_NL_A_BINDING ||
		    m->nbind == MC_MAX_BINDINGS ||
		    cnl_parse_nested(nla, tb) < 0)
			continue;
		b = &m->bind[m->nbind++];
		memset(b, 0, sizeof(*b));
		if (tb[CUFAB_NL_A_BIND_DEV])
			b->dev = nla_get_u32(tb[CUFAB_NL_A_BIND_DEV]);
		if (tb[CUFAB_NL_A_BIND_OFFSET])
			b->offset = nla_get_u64(tb[CUFAB_NL_A_BIND_OFFSET]);
		if (tb[CUFAB_NL_A_BIND_SIZE])
			b->size = nla_get_u64(tb[CUFAB_NL_A_BIND_SIZE]);
		if (tb[CUFAB_NL_A_BIND_ALLOC_ID])
			b->alloc = nla_get_u64(tb[CUFAB_NL_A_BIND_ALLOC_ID]);
		if (tb[CUFAB_NL_A_BIND_MEM_OFFSET])
			b->mem_offset = nla_get_u64(tb[CUFAB_NL_A_BIND_MEM_OFFSET]);
		if (tb[CUFAB_NL_A_BIND_PID])
			b->pid = nla_get_u32(tb[CUFAB_NL_A_BIND_PID]);
	}
}

static void mc_from_attrs(struct nlattr **tb, struct nlmsghdr *nlh,
			  struct mc_info *m)
{
	m->id = cnl_u64(tb[CUFAB_NL_A_MC_ID]);
	m->pid = cnl_u32(tb[CUFAB_NL_A_PID]);
	m->comm[0] = 0;
	if (tb[CUFAB_NL_A_COMM])
		nla_strlcpy(m->comm, tb[CUFAB_NL_A_COMM], sizeof(m->comm));
	m->size = cnl_u64(tb[CUFAB_NL_A_MC_SIZE]);
	m->handle_types = cnl_u32(tb[CUFAB_NL_A_MC_HANDLE_TYPES]);
	m->handles = cnl_u32(tb[CUFAB_NL_A_MC_HANDLES]);
	m->skipped = cnl_u64(tb[CUFAB_NL_A_MC_SKIPPED]);
	m->team_size = cnl_u32(tb[CUFAB_NL_A_TEAM_SIZE]);
	m->joined = cnl_u32(tb[CUFAB_NL_A_TEAM_JOINED]);
	m->devs = cnl_u64(tb[CUFAB_NL_A_TEAM_DEVS]);
	m->waiters = cnl_u32(tb[CUFAB_NL_A_TEAM_WAITERS]);
	m->nbind = 0;
	mc_bindings(nlh, m);
}

/* "gpu0,gpu2" */
static void format_devs(char *buf, size_t len, uint64_t devs)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < 64 && used < len; i++)
		if (devs & (1ULL << i))
			used += snprintf(buf + used, len - used, "%sgpu%d",
					 used ? "," : "", i);
}

static void mc_print_team(const struct mc_info *m)
{
	char devs[256];
	int i;

	format_devs(devs, sizeof(devs), m->devs);
	open_object("team");
	print_uint(PRINT_ANY, "joined", "    team %u", m->joined);
	print_uint(PRINT_ANY, "size", " of %u devices", m->team_size);
	print_fp(" (%s)", devs[0] ? devs : "none");
	open_array(PRINT_JSON, "devices", NULL);
	for (i = 0; i < 64; i++)
		if (m->devs & (1ULL << i))
			print_uint(PRINT_JSON, NULL, NULL, i);
	close_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "missing", ", missing: %u",
		   m->team_size > m->joined ? m->team_size - m->joined : 0);
	print_uint(PRINT_ANY, "waiters", ", waiters: %u", m->waiters);
	print_nl();
	close_object();
}

static void mc_print_bindings(const struct mc_info *m)
{
	const struct mc_binding *b;
	unsigned int i;

	open_array(PRINT_JSON, "bindings", NULL);
	if (m->nbind)
		print_fp("    %-6s %-12s %-10s %-7s %-12s %s\n", "dev", "offset",
			 "size", "alloc", "mem-offset", "pid");
	for (i = 0; i < m->nbind; i++) {
		b = &m->bind[i];
		open_object(NULL);
		print_fp("    gpu%-3u", b->dev);
		print_uint(PRINT_JSON, "dev", NULL, b->dev);
		print_u64(PRINT_ANY, "offset", " 0x%-10llx", b->offset);
		print_size(PRINT_ANY, "size", " %-10s", b->size);
		print_u64(PRINT_ANY, "alloc", " %-7llu", b->alloc);
		print_u64(PRINT_ANY, "mem_offset", " 0x%-10llx", b->mem_offset);
		print_uint(PRINT_ANY, "pid", " %u", b->pid);
		print_nl();
		close_object();
	}
	close_array(PRINT_JSON, NULL);
}

/*
 * multicast 12  pid 1234 (trainer)  size 2 MiB  handle types posix-fd
 *     refs 3  skipped 0
 *     team 2 of 4 devices (gpu0,gpu2), missing: 2, waiters: 1
 */
static void mc_print(const struct mc_info *m)
{
	open_object(NULL);
	print_u64(PRINT_ANY, "id", "multicast %llu", m->id);
	print_uint(PRINT_ANY, "pid", "  pid %u", m->pid);
	print_string(PRINT_ANY, "comm", " (%s)", m->comm);
	print_size(PRINT_ANY, "size", "  size %s", m->size);
	print_handle_types(m->handle_types, "  handle types %s");
	print_nl();
	print_uint(PRINT_ANY, "handles", "    refs %u", m->handles);
	print_u64(PRINT_ANY, "skipped", "  skipped %llu", m->skipped);
	print_nl();
	mc_print_team(m);
	mc_print_bindings(m);
	close_object();
}

static int mc_show_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		      void *arg)
{
	static struct mc_info m;
	struct mc_show_state *s = arg;

	if (!tb[CUFAB_NL_A_MC_ID]) {
		fprintf(stderr, "cufabctl: mc show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_MC_ID));
		return -1;
	}
	mc_from_attrs(tb, nlh, &m);
	if (s->has_pid && m.pid != s->pid)
		return 0;
	if (s->count && !print_json())
		print_fp("\n");
	mc_print(&m);
	s->count++;
	return 0;
}

static int mc_show(struct ctl *ctl, int argc, char **argv)
{
	struct mc_show_state s = { 0 };
	int ret;

	if (parse_show_args("mc", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_show(ctl, "mc show", CUFAB_NL_CMD_MC_GET, mc_show_cb, &s);
	if (ret == EXIT_OK && !s.count)
		print_none();
	return ret;
}

/* monitor: "[mc-event] multicast 12: pid 1234 skipped 1 replica(s)" */
void mc_print_event(struct nlattr **tb)
{
	print_u64(PRINT_ANY, "mc_id", "multicast %llu:",
		  cnl_u64(tb[CUFAB_NL_A_MC_ID]));
	print_uint(PRINT_ANY, "pid", " pid %u", cnl_u32(tb[CUFAB_NL_A_PID]));
	print_u64(PRINT_ANY, "skipped",
		  " skipped %llu replica(s) with nothing bound\n",
		  cnl_u64(tb[CUFAB_NL_A_MC_SKIPPED]));
}

static const struct cmd mc_cmds[] = {
	{ "show",	mc_show },
	{ "list",	mc_show },
	{ NULL,		NULL },
};

int do_mc(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "mc", mc_cmds, mc_help, argc, argv);
}
