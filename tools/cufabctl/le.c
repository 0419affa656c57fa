// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl le: logical endpoints per process (CUFAB_NL_CMD_LE_GET).
 *
 * The kernel sends one message per process that reserved endpoint ids:
 * its reserved ranges, then one nest per associated id with the endpoint
 * (type, size, readiness, aliases, exporter), its team and the bindings
 * of each device. Printed as it arrives; JSON is an array with one object
 * per process, sizes in bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

struct le_show_state {
	bool has_pid;
	uint32_t pid;
	unsigned int shown;
};

void le_help(FILE *f)
{
	fputs("cufabctl le show [ pid PID ]\n"
	      "  logical endpoints per process: reserved id ranges; each\n"
	      "  associated id with its endpoint (type, size, readiness, ids\n"
	      "  naming it node-wide, exporter), the multicast team (\"team k of\n"
	      "  n\" and how many devices are missing) and what each device has\n"
	      "  bound\n", f);
}

static uint32_t get_u32(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u32(tb[type]) : 0;
}

static uint64_t get_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

static uint8_t get_u8(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u8(tb[type]) : 0;
}

static void le_print_ranges(struct nlmsghdr *nlh)
{
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	struct nlattr *a;
	uint32_t base, count;
	bool first = true;
	int rem;

	open_array(PRINT_JSON, "ranges", NULL);
	print_fp("    reserved");
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != CUFAB_NL_A_LE_RANGE ||
		    cnl_parse_nested(a, tb) < 0)
			continue;
		base = get_u32(tb, CUFAB_NL_A_LE_RANGE_BASE);
		count = get_u32(tb, CUFAB_NL_A_LE_RANGE_COUNT);
		open_object(NULL);
		print_uint(PRINT_JSON, "base", NULL, base);
		print_uint(PRINT_JSON, "count", NULL, count);
		close_object();
		print_fp("%s %u-%u", first ? "" : ",", base, base + count - 1);
		first = false;
	}
	close_array(PRINT_JSON, NULL);
	print_fp("%s\n", first ? " none" : "");
}

/* "team 1 of 2 (gpu0), missing 1" */
static void le_print_team(struct nlattr **tb)
{
	uint32_t size = get_u32(tb, CUFAB_NL_A_TEAM_SIZE);
	uint32_t joined = get_u32(tb, CUFAB_NL_A_TEAM_JOINED);
	uint64_t devs = get_u64(tb, CUFAB_NL_A_TEAM_DEVS);
	bool first = true;
	unsigned int i;

	open_object("team");
	print_uint(PRINT_ANY, "joined", "        team %u", joined);
	print_uint(PRINT_ANY, "size", " of %u (", size);
	open_array(PRINT_JSON, "devices", NULL);
	for (i = 0; i < 64; i++) {
		if (!(devs & (1ULL << i)))
			continue;
		print_uint(PRINT_JSON, NULL, NULL, i);
		print_fp("%sgpu%u", first ? "" : ",", i);
		first = false;
	}
	close_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "missing", "), missing %u",
		   size > joined ? size - joined : 0);
	print_uint(PRINT_JSON, "waiters", NULL,
		   get_u32(tb, CUFAB_NL_A_TEAM_WAITERS));
	print_nl();
	close_object();
}

static void le_print_binding(struct nlattr *nest)
{
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	uint64_t offset;

	if (cnl_parse_nested(nest, tb) < 0)
		return;
	offset = get_u64(tb, CUFAB_NL_A_BIND_OFFSET);
	open_object(NULL);
	print_uint(PRINT_ANY, "dev", "        gpu%u", get_u32(tb, CUFAB_NL_A_BIND_DEV));
	print_u64(PRINT_JSON, "offset", NULL, offset);
	print_fp(" [0x%llx, ", (unsigned long long)offset);
	print_size(PRINT_ANY, "size", "+%s)", get_u64(tb, CUFAB_NL_A_BIND_SIZE));
	print_u64(PRINT_ANY, "alloc_id", " <- allocation %llu",
		  get_u64(tb, CUFAB_NL_A_BIND_ALLOC_ID));
	print_u64(PRINT_ANY, "mem_offset", " +0x%llx",
		  get_u64(tb, CUFAB_NL_A_BIND_MEM_OFFSET));
	print_uint(PRINT_ANY, "pid", " by pid %u", get_u32(tb, CUFAB_NL_A_BIND_PID));
	print_nl();
	close_object();
}

static void le_print_endpoint(struct nlattr *nest)
{
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	uint32_t type, ipc, flags, exporter;
	struct nlattr *a;
	int rem;

	if (cnl_parse_nested(nest, tb) < 0)
		return;
	type = get_u32(tb, CUFAB_NL_A_LE_TYPE);
	ipc = get_u32(tb, CUFAB_NL_A_LE_IPC_TYPES);
	flags = get_u32(tb, CUFAB_NL_A_LE_FLAGS);
	exporter = get_u32(tb, CUFAB_NL_A_LE_EXPORTER_PID);
	open_object(NULL);
	print_uint(PRINT_ANY, "id", "    id %u", get_u32(tb, CUFAB_NL_A_LE_ID));
	print_u64(PRINT_ANY, "endpoint", ": endpoint %llu",
		  get_u64(tb, CUFAB_NL_A_LE_ENDPOINT));
	print_string(PRINT_ANY, "type", " %s",
		     type == CUFAB_LE_TYPE_UNICAST ? "unicast" :
		     type == CUFAB_LE_TYPE_MULTICAST ? "multicast" : "unknown");
	print_size(PRINT_ANY, "size", " %s", get_u64(tb, CUFAB_NL_A_LE_SIZE));
	print_bool(PRINT_JSON, "fabric", NULL, ipc & CUFAB_LE_IPC_FABRIC);
	print_fp("%s", ipc & CUFAB_LE_IPC_FABRIC ? " fabric" : "");
	print_bool(PRINT_JSON, "counted_ops", NULL,
		   flags & CUFAB_LE_FLAG_COUNTED_OPS);
	print_fp("%s", flags & CUFAB_LE_FLAG_COUNTED_OPS ? " counted" : "");
	print_bool(PRINT_JSON, "ready", NULL, get_u8(tb, CUFAB_NL_A_LE_READY));
	print_fp(" %s", get_u8(tb, CUFAB_NL_A_LE_READY) ? "ready" : "constructing");
	print_uint(PRINT_ANY, "aliases", ", aliases %u", get_u32(tb, CUFAB_NL_A_LE_ALIASES));
	print_bool(PRINT_JSON, "imported", NULL, get_u8(tb, CUFAB_NL_A_LE_IMPORTED));
	print_fp("%s", get_u8(tb, CUFAB_NL_A_LE_IMPORTED) ? ", imported" : "");
	print_uint(PRINT_JSON, "exporter_pid", NULL, exporter);
	if (exporter)
		print_fp(", exported by pid %u", exporter);
	print_nl();
	le_print_team(tb);
	open_array(PRINT_JSON, "bindings", NULL);
	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == CUFAB_NL_A_BINDING)
			le_print_binding(a);
	close_array(PRINT_JSON, NULL);
	close_object();
}

/*
 * pid 1234 (le_test)
 *     reserved 1-4
 *     id 1: endpoint 7 unicast 64 MiB fabric ready, aliases 2, exported by pid 1234
 *         team 1 of 1 (gpu0), missing 0
 *         gpu0 [0x0, +2 MiB) <- allocation 12 +0x0 by pid 1234
 */
static int le_show_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		      void *arg)
{
	struct le_show_state *s = arg;
	uint32_t pid = get_u32(tb, CUFAB_NL_A_PID);
	char comm[32] = "";
	struct nlattr *a;
	int rem;

	if (!tb[CUFAB_NL_A_PID]) {
		fprintf(stderr, "cufabctl: le show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_PID));
		return -1;
	}
	if (s->has_pid && pid != s->pid)
		return 0;
	if (tb[CUFAB_NL_A_COMM])
		nla_strlcpy(comm, tb[CUFAB_NL_A_COMM], sizeof(comm));
	print_fp("%spid %u (%s)\n", s->shown++ ? "\n" : "", pid, comm);
	open_object(NULL);
	print_uint(PRINT_JSON, "pid", NULL, pid);
	print_string(PRINT_JSON, "comm", NULL, comm);
	le_print_ranges(nlh);
	open_array(PRINT_JSON, "endpoints", NULL);
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem)
		if (nla_type(a) == CUFAB_NL_A_LE)
			le_print_endpoint(a);
	close_array(PRINT_JSON, NULL);
	close_object();
	return 0;
}

static int le_show(struct ctl *ctl, int argc, char **argv)
{
	struct le_show_state s = { 0 };
	struct nl_msg *msg;
	int ret;

	if (parse_show_args("le", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_start(ctl, CUFAB_NL_CMD_LE_GET, true, &msg);
	if (ret)
		return ret;
	open_array(PRINT_JSON, NULL, NULL);
	ret = cnl_get(ctl, "le show", msg, le_show_cb, &s);
	close_array(PRINT_JSON, NULL);
	if (ret == EXIT_OK && !s.shown)
		print_none();
	return ret;
}

static const struct cmd le_cmds[] = {
	{ "show",	le_show },
	{ "list",	le_show },
	{ NULL,		NULL },
};

int do_le(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "le", le_cmds, le_help, argc, argv);
}
