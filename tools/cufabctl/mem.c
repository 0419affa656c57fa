// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl mem: live allocations per process (CUFAB_NL_CMD_ALLOC_GET).
 *
 * The kernel dumps allocations in id order; they are collected, sorted by
 * process and printed as one table per process. JSON is a flat array with
 * one object per allocation, sizes in bytes. Per-GPU totals are in
 * "dev show" (memory ... used).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

struct alloc_info {
	uint64_t id;
	uint32_t pid;
	char comm[32];
	uint32_t loc_type;
	int32_t loc_id;
	uint64_t size;
	uint64_t resident;
	uint32_t handle_types;
	bool linear;
	uint32_t attach;	/* managed: CUFAB_ATTACH_*, else 0 */
	uint64_t attach_stream;
};

struct mem_show_state {
	bool has_pid;
	uint32_t pid;
	struct alloc_info *allocs;
	size_t n, cap;
};

static const struct {
	const char *name;
	uint32_t bit;
} handle_types[] = {
	{ "posix-fd",	CUFAB_HANDLE_POSIX_FD },
	{ "fabric",	CUFAB_HANDLE_FABRIC },
};

void mem_help(FILE *f)
{
	fputs("cufabctl mem show [ pid PID ]\n"
	      "  live allocations (cuMemCreate, linear cuMemAlloc and managed\n"
	      "  cuMemAllocManaged) grouped by the process that created them:\n"
	      "  location, size, bytes populated so far, exportable handle types\n"
	      "  and, for managed memory, its attachment (global, host, or the\n"
	      "  stream it is attached to); \"dev show\" has the per-GPU totals\n",
	      f);
}

static int mem_show_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		       void *arg)
{
	struct mem_show_state *s = arg;
	struct alloc_info *a, *grown;

	if (!tb[CUFAB_NL_A_ALLOC_ID] || !tb[CUFAB_NL_A_ALLOC_PID]) {
		fprintf(stderr, "cufabctl: mem show: kernel reply without %s\n",
			cnl_attr_name(tb[CUFAB_NL_A_ALLOC_ID] ?
				      CUFAB_NL_A_ALLOC_PID :
				      CUFAB_NL_A_ALLOC_ID));
		return -1;
	}
	if (s->has_pid && nla_get_u32(tb[CUFAB_NL_A_ALLOC_PID]) != s->pid)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		grown = realloc(s->allocs, s->cap * sizeof(*s->allocs));
		if (!grown) {
			fprintf(stderr, "cufabctl: mem show: out of memory\n");
			return -1;
		}
		s->allocs = grown;
	}
	a = &s->allocs[s->n++];
	memset(a, 0, sizeof(*a));
	a->id = nla_get_u64(tb[CUFAB_NL_A_ALLOC_ID]);
	a->pid = nla_get_u32(tb[CUFAB_NL_A_ALLOC_PID]);
	if (tb[CUFAB_NL_A_ALLOC_COMM])
		nla_strlcpy(a->comm, tb[CUFAB_NL_A_ALLOC_COMM],
			    sizeof(a->comm));
	if (tb[CUFAB_NL_A_ALLOC_LOC_TYPE])
		a->loc_type = nla_get_u32(tb[CUFAB_NL_A_ALLOC_LOC_TYPE]);
	if (tb[CUFAB_NL_A_ALLOC_LOC_ID])
		a->loc_id = (int32_t)nla_get_u32(tb[CUFAB_NL_A_ALLOC_LOC_ID]);
	if (tb[CUFAB_NL_A_ALLOC_SIZE])
		a->size = nla_get_u64(tb[CUFAB_NL_A_ALLOC_SIZE]);
	if (tb[CUFAB_NL_A_ALLOC_RESIDENT])
		a->resident = nla_get_u64(tb[CUFAB_NL_A_ALLOC_RESIDENT]);
	if (tb[CUFAB_NL_A_ALLOC_HANDLE_TYPES])
		a->handle_types = nla_get_u32(tb[CUFAB_NL_A_ALLOC_HANDLE_TYPES]);
	if (tb[CUFAB_NL_A_ALLOC_LINEAR])
		a->linear = nla_get_u8(tb[CUFAB_NL_A_ALLOC_LINEAR]);
	if (tb[CUFAB_NL_A_MANAGED_ATTACH])
		a->attach = nla_get_u32(tb[CUFAB_NL_A_MANAGED_ATTACH]);
	if (tb[CUFAB_NL_A_MANAGED_STREAM])
		a->attach_stream = nla_get_u64(tb[CUFAB_NL_A_MANAGED_STREAM]);
	return 0;
}

/* By process, then in creation order. */
static int alloc_cmp(const void *x, const void *y)
{
	const struct alloc_info *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/* "gpu1", "numa0", "host"; "type5:3" for a type this tool does not know */
static void format_location(char *buf, size_t len, const struct alloc_info *a)
{
	switch (a->loc_type) {
	case CUFAB_LOC_DEVICE:
		snprintf(buf, len, "gpu%d", a->loc_id);
		break;
	case CUFAB_LOC_HOST_NUMA:
		snprintf(buf, len, "numa%d", a->loc_id);
		break;
	case CUFAB_LOC_HOST:
		snprintf(buf, len, "host");
		break;
	default:
		snprintf(buf, len, "type%u:%d", a->loc_type, a->loc_id);
		break;
	}
}

static void mem_print_handle_types(uint32_t bits)
{
	char text[64] = "";
	char name[16];
	uint32_t known = 0;
	unsigned int i;

	open_array(PRINT_JSON, "handle_types", NULL);
	for (i = 0; i < ARRAY_SIZE(handle_types); i++) {
		known |= handle_types[i].bit;
		if (!(bits & handle_types[i].bit))
			continue;
		print_string(PRINT_JSON, NULL, NULL, handle_types[i].name);
		if (text[0])
			strncat(text, ",", sizeof(text) - strlen(text) - 1);
		strncat(text, handle_types[i].name,
			sizeof(text) - strlen(text) - 1);
	}
	/* Bits of a newer kernel this tool has no name for. */
	for (i = 0; i < 32; i++) {
		if (!(bits & (1U << i)) || (known & (1U << i)))
			continue;
		snprintf(name, sizeof(name), "bit%u", i);
		print_string(PRINT_JSON, NULL, NULL, name);
		if (text[0])
			strncat(text, ",", sizeof(text) - strlen(text) - 1);
		strncat(text, name, sizeof(text) - strlen(text) - 1);
	}
	close_array(PRINT_JSON, NULL);
	print_string(PRINT_FP, NULL, "%-16s", text[0] ? text : "none");
}

/* As the driver names them: CU_MEM_ATTACH_GLOBAL, _HOST, _SINGLE. */
static const char *attach_name(uint32_t attach)
{
	switch (attach) {
	case CUFAB_ATTACH_GLOBAL:
		return "global";
	case CUFAB_ATTACH_HOST:
		return "host";
	case CUFAB_ATTACH_SINGLE:
		return "single";
	}
	return "none";
}

/*
 * pid 1234 (memshow_test)
 *     id      location  size        resident    handles          linear
 *     12      gpu1      2 MiB       0 B         posix-fd         no
 *     13      host      4 KiB       4 KiB       none             yes  managed single 7
 */
static void mem_print(const struct mem_show_state *s)
{
	const struct alloc_info *a;
	char loc[32];
	size_t i;

	open_array(PRINT_JSON, NULL, NULL);
	if (!s->n)
		print_none();
	for (i = 0; i < s->n; i++) {
		a = &s->allocs[i];
		if (i == 0 || a->pid != s->allocs[i - 1].pid) {
			print_fp("%spid %u (%s)\n", i ? "\n" : "", a->pid,
				 a->comm);
			print_fp("    %-7s %-9s %-11s %-11s %-16s %s\n", "id",
				 "location", "size", "resident", "handles",
				 "linear");
		}
		format_location(loc, sizeof(loc), a);
		open_object(NULL);
		print_u64(PRINT_ANY, "id", "    %-7llu ", a->id);
		print_uint(PRINT_JSON, "pid", NULL, a->pid);
		print_string(PRINT_JSON, "comm", NULL, a->comm);
		print_string(PRINT_ANY, "location", "%-9s ", loc);
		print_size(PRINT_ANY, "size", "%-11s ", a->size);
		print_size(PRINT_ANY, "resident", "%-11s ", a->resident);
		mem_print_handle_types(a->handle_types);
		print_bool(PRINT_JSON, "linear", NULL, a->linear);
		print_fp(" %s", a->linear ? "yes" : "no");
		if (a->attach) {
			print_string(PRINT_ANY, "managed", "  managed %s",
				     attach_name(a->attach));
			if (a->attach_stream)
				print_u64(PRINT_ANY, "stream", " %llu",
					  a->attach_stream);
		}
		print_nl();
		close_object();
	}
	close_array(PRINT_JSON, NULL);
}

static int mem_show(struct ctl *ctl, int argc, char **argv)
{
	struct mem_show_state s = { 0 };
	struct cnl_error e;
	struct nl_msg *msg;
	int ret;

	if (parse_show_args("mem", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_start(ctl, CUFAB_NL_CMD_ALLOC_GET, true, &msg);
	if (ret)
		return ret;
	ret = cnl_transact(ctl, msg, mem_show_cb, &s, &e);
	if (!ret) {
		qsort(s.allocs, s.n, sizeof(*s.allocs), alloc_cmp);
		mem_print(&s);
	}
	free(s.allocs);
	if (ret == -1)
		return cnl_report("mem show", &e, NULL);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static uint64_t attr_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t attr_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/*
 * A MANAGED_EVENT, for "monitor":
 *   cpu-fault pid 1234 (app): 0x7f...000 allocation 12 (attached global)
 *   while stream 7 of gpu0 is busy
 */
void managed_print_event(struct nlattr **tb)
{
	uint32_t kind = attr_u32(tb[CUFAB_NL_A_MANAGED_KIND]);
	char comm[32] = "?";

	if (tb[CUFAB_NL_A_COMM])
		snprintf(comm, sizeof(comm), "%s",
			 nla_get_string(tb[CUFAB_NL_A_COMM]));
	print_string(PRINT_ANY, "kind", "%s",
		     kind == CUFAB_MANAGED_EV_CPU_FAULT ? "cpu-fault" :
		     kind == CUFAB_MANAGED_EV_CHECK_STREAM ? "check-stream" :
		     kind == CUFAB_MANAGED_EV_CHECK_HOST ? "check-host" :
		     "unknown");
	print_uint(PRINT_ANY, "pid", " pid %u", attr_u32(tb[CUFAB_NL_A_PID]));
	print_string(PRINT_ANY, "comm", " (%s):", comm);
	print_u64(PRINT_ANY, "alloc_id", " allocation %llu",
		  attr_u64(tb[CUFAB_NL_A_MANAGED_ALLOC_ID]));
	print_u64(PRINT_JSON, "offset", NULL,
		  attr_u64(tb[CUFAB_NL_A_MANAGED_OFFSET]));
	print_fp(" + 0x%llx", (unsigned long long)
		 attr_u64(tb[CUFAB_NL_A_MANAGED_OFFSET]));
	print_string(PRINT_ANY, "attach", " (attached %s)",
		     attach_name(attr_u32(tb[CUFAB_NL_A_MANAGED_ATTACH])));
	if (tb[CUFAB_NL_A_MANAGED_BY_STREAM]) {
		print_u64(PRINT_ANY, "by_stream", " touched by stream %llu",
			  attr_u64(tb[CUFAB_NL_A_MANAGED_BY_STREAM]));
		print_uint(PRINT_ANY, "gpu", " of gpu%u",
			   attr_u32(tb[CUFAB_NL_A_MANAGED_DEV]));
		print_u64(PRINT_ANY, "stream", " (attached stream %llu)\n",
			  attr_u64(tb[CUFAB_NL_A_MANAGED_STREAM]));
		return;
	}
	print_u64(PRINT_ANY, "stream", " while stream %llu",
		  attr_u64(tb[CUFAB_NL_A_MANAGED_STREAM]));
	print_uint(PRINT_ANY, "gpu", " of gpu%u is busy\n",
		   attr_u32(tb[CUFAB_NL_A_MANAGED_DEV]));
}

static const struct cmd mem_cmds[] = {
	{ "show",	mem_show },
	{ "list",	mem_show },
	{ NULL,		NULL },
};

int do_mem(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "mem", mem_cmds, mem_help, argc, argv);
}
