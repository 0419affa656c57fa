// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl proc: the processes with /dev/cufab open (CUFAB_NL_CMD_PROC_GET),
 * one line each: pid, command, the objects they hold by kind and the bytes
 * behind their memory handles. The view debugfs cufab/clients gives root,
 * for everyone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

struct proc_show_state {
	bool has_pid;
	uint32_t pid;
	unsigned int n;
};

void proc_help(FILE *f)
{
	fputs("cufabctl proc show [ pid PID ]\n"
	      "  processes with /dev/cufab open: pid, command, contexts, memory\n"
	      "  handles, streams, events and pools held, and the bytes behind\n"
	      "  the memory handles\n", f);
}

static uint32_t a_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/* pid 123 (app) contexts 1 mem 2 streams 1 events 0 pools 0 bytes 4 MiB */
static int proc_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		   void *arg)
{
	struct proc_show_state *s = arg;
	char comm[32] = "", size[32];
	uint64_t bytes;

	if (!tb[CUFAB_NL_A_PID] || !tb[CUFAB_NL_A_PROC_CONTEXTS]) {
		fprintf(stderr, "cufabctl: proc show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_PROC_CONTEXTS));
		return -1;
	}
	if (s->has_pid && nla_get_u32(tb[CUFAB_NL_A_PID]) != s->pid)
		return 0;
	s->n++;
	if (tb[CUFAB_NL_A_COMM])
		nla_strlcpy(comm, tb[CUFAB_NL_A_COMM], sizeof(comm));
	bytes = tb[CUFAB_NL_A_PROC_MEM_BYTES] ?
		nla_get_u64(tb[CUFAB_NL_A_PROC_MEM_BYTES]) : 0;
	format_size(size, sizeof(size), bytes);
	open_object(NULL);
	print_uint(PRINT_ANY, "pid", "pid %u", a_u32(tb[CUFAB_NL_A_PID]));
	print_string(PRINT_ANY, "comm", " (%s)", comm);
	print_uint(PRINT_ANY, "contexts", " contexts %u",
		   a_u32(tb[CUFAB_NL_A_PROC_CONTEXTS]));
	print_uint(PRINT_ANY, "mem_handles", " mem %u",
		   a_u32(tb[CUFAB_NL_A_PROC_MEM_HANDLES]));
	print_uint(PRINT_ANY, "streams", " streams %u",
		   a_u32(tb[CUFAB_NL_A_PROC_STREAMS]));
	print_uint(PRINT_ANY, "events", " events %u",
		   a_u32(tb[CUFAB_NL_A_PROC_EVENTS]));
	print_uint(PRINT_ANY, "pools", " pools %u",
		   a_u32(tb[CUFAB_NL_A_PROC_POOLS]));
	print_u64(PRINT_JSON, "mem_bytes", NULL, bytes);
	print_string(PRINT_FP, NULL, " bytes %s", size);
	print_nl();
	close_object();
	return 0;
}

static int proc_show(struct ctl *ctl, int argc, char **argv)
{
	struct proc_show_state s = { 0 };
	struct cnl_error e;
	struct nl_msg *msg;
	int ret;

	if (parse_show_args("proc", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_start(ctl, CUFAB_NL_CMD_PROC_GET, true, &msg);
	if (ret)
		return ret;
	open_array(PRINT_JSON, NULL, NULL);
	ret = cnl_transact(ctl, msg, proc_cb, &s, &e);
	close_array(PRINT_JSON, NULL);
	if (!ret && !s.n)
		print_none();
	if (ret == -1)
		return cnl_report("proc show", &e, NULL);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static const struct cmd proc_cmds[] = {
	{ "show",	proc_show },
	{ "list",	proc_show },
	{ NULL,		NULL },
};

int do_proc(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "proc", proc_cmds, proc_help, argc, argv);
}
