// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl stream: the streams of every process (CUFAB_NL_CMD_STREAM_GET),
 * one line each: owner, stream, context, GPU, flags, priority, queue depth,
 * submitted and completed sequence numbers, the operation running and the
 * sticky error; and the STREAM_EVENT notification "monitor" prints when a
 * stream fails.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

struct stream_show_state {
	bool has_pid;
	uint32_t pid;
	unsigned int n;
};

void stream_help(FILE *f)
{
	fputs("cufabctl stream show [ pid PID ]\n"
	      "  streams of every process: context, GPU, flags, priority,\n"
	      "  operations queued, sequence numbers submitted and completed,\n"
	      "  the operation running and the stream's sticky error\n", f);
}

static uint64_t a_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t a_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static int32_t a_s32(struct nlattr *a)
{
	return a ? (int32_t)nla_get_s32(a) : 0;
}

static const char *stream_kind(uint32_t flags)
{
	if (flags & CUFAB_STREAM_LEGACY)
		return "legacy";
	return flags & CUFAB_STREAM_NON_BLOCKING ? "non-blocking" : "blocking";
}

/*
 * stream 7 ctx 2 gpu0 blocking prio 0 depth 3 seq 12/9 running copy
 *   error -13
 */
static void stream_print_state(struct nlattr **tb)
{
	char running[32] = "-";

	if (tb[CUFAB_NL_A_STREAM_RUNNING])
		nla_strlcpy(running, tb[CUFAB_NL_A_STREAM_RUNNING],
			    sizeof(running));
	print_u64(PRINT_ANY, "stream", " stream %llu",
		  a_u64(tb[CUFAB_NL_A_STREAM_UID]));
	print_uint(PRINT_ANY, "ctx", " ctx %u", a_u32(tb[CUFAB_NL_A_STREAM_CTX]));
	print_uint(PRINT_ANY, "gpu", " gpu%u", a_u32(tb[CUFAB_NL_A_STREAM_DEV]));
	print_string(PRINT_ANY, "kind", " %s",
		     stream_kind(a_u32(tb[CUFAB_NL_A_STREAM_FLAGS])));
	print_int(PRINT_ANY, "priority", " prio %d",
		  a_s32(tb[CUFAB_NL_A_STREAM_PRIORITY]));
	print_uint(PRINT_ANY, "depth", " depth %u",
		   a_u32(tb[CUFAB_NL_A_STREAM_DEPTH]));
	print_u64(PRINT_ANY, "submitted", " seq %llu",
		  a_u64(tb[CUFAB_NL_A_STREAM_SUBMITTED]));
	print_u64(PRINT_ANY, "completed", "/%llu",
		  a_u64(tb[CUFAB_NL_A_STREAM_COMPLETED]));
	print_string(PRINT_ANY, "running", " running %s", running);
	print_int(PRINT_ANY, "error", " error %d",
		  a_s32(tb[CUFAB_NL_A_STREAM_ERROR]));
}

static void stream_print_owner(struct nlattr **tb)
{
	char comm[32] = "";

	if (tb[CUFAB_NL_A_COMM])
		nla_strlcpy(comm, tb[CUFAB_NL_A_COMM], sizeof(comm));
	print_uint(PRINT_ANY, "pid", "pid %u", a_u32(tb[CUFAB_NL_A_PID]));
	print_string(PRINT_ANY, "comm", " (%s)", comm);
}

static int stream_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		     void *arg)
{
	struct stream_show_state *s = arg;

	if (!tb[CUFAB_NL_A_STREAM_UID] || !tb[CUFAB_NL_A_PID]) {
		fprintf(stderr, "cufabctl: stream show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_STREAM_UID));
		return -1;
	}
	if (s->has_pid && nla_get_u32(tb[CUFAB_NL_A_PID]) != s->pid)
		return 0;
	s->n++;
	open_object(NULL);
	stream_print_owner(tb);
	stream_print_state(tb);
	print_nl();
	close_object();
	return 0;
}

static int stream_show(struct ctl *ctl, int argc, char **argv)
{
	struct stream_show_state s = { 0 };
	struct cnl_error e;
	struct nl_msg *msg;
	int ret;

	if (parse_show_args("stream", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_start(ctl, CUFAB_NL_CMD_STREAM_GET, true, &msg);
	if (ret)
		return ret;
	open_array(PRINT_JSON, NULL, NULL);
	ret = cnl_transact(ctl, msg, stream_cb, &s, &e);
	close_array(PRINT_JSON, NULL);
	if (!ret && !s.n)
		print_none();
	if (ret == -1)
		return cnl_report("stream show", &e, NULL);
	return ret ? EXIT_FAIL : EXIT_OK;
}

/* monitor: "pid 12 (app) stream 3 failed: copy seq 5 ..." */
void stream_print_event(struct nlattr **tb)
{
	char op[32] = "?";

	if (tb[CUFAB_NL_A_STREAM_OP])
		nla_strlcpy(op, tb[CUFAB_NL_A_STREAM_OP], sizeof(op));
	stream_print_owner(tb);
	print_string(PRINT_ANY, "failed_op", " %s", op);
	print_u64(PRINT_ANY, "failed_seq", " (seq %llu) failed:",
		  a_u64(tb[CUFAB_NL_A_STREAM_SEQ]));
	stream_print_state(tb);
	print_nl();
}

static const struct cmd stream_cmds[] = {
	{ "show",	stream_show },
	{ "list",	stream_show },
	{ NULL,		NULL },
};

int do_stream(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "stream", stream_cmds, stream_help, argc, argv);
}
