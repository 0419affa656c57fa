// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl pool: the memory pools of the node (CUFAB_NL_CMD_POOL_GET),
 * one line each: owner, location, handle types, cap, reserved bytes and
 * their high-water mark, release threshold, importers and exported
 * pointers. Used bytes are each process's own (its sub-allocator's) and
 * are not shown.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

struct pool_show_state {
	bool has_pid;
	uint32_t pid;
	unsigned int n;
};

void pool_help(FILE *f)
{
	fputs("cufabctl pool show [ pid PID ]\n"
	      "  memory pools (cuMemPoolCreate, default pools): owner, location,\n"
	      "  handle types, maxSize, reserved (and high-water mark), release\n"
	      "  threshold, reuse policies, importing processes, exported pointers\n", f);
}

/* The reuse policies: CU_MEMPOOL_ATTR_REUSE_*, by their attribute number. */
static const struct {
	unsigned int attr;
	const char *name;
} reuse_names[] = {
	{ CUFAB_POOL_ATTR_REUSE_FOLLOW_EVENT_DEPS, "event-deps" },
	{ CUFAB_POOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, "opportunistic" },
	{ CUFAB_POOL_ATTR_REUSE_ALLOW_INTERNAL_DEPS, "internal-deps" },
};

/* A JSON array "reuse", and in text " reuse a,b" (or " reuse none"). */
static void print_reuse(uint32_t bits)
{
	const char *sep = " reuse ";
	size_t i;

	open_array(PRINT_JSON, "reuse", NULL);
	for (i = 0; i < ARRAY_SIZE(reuse_names); i++) {
		if (!(bits & (1U << reuse_names[i].attr)))
			continue;
		print_string(PRINT_JSON, NULL, "%s", reuse_names[i].name);
		print_fp("%s%s", sep, reuse_names[i].name);
		sep = ",";
	}
	close_array(PRINT_JSON, NULL);
	if (!(bits & ((1U << CUFAB_POOL_ATTR_REUSE_FOLLOW_EVENT_DEPS) |
		      (1U << CUFAB_POOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) |
		      (1U << CUFAB_POOL_ATTR_REUSE_ALLOW_INTERNAL_DEPS))))
		print_fp(" reuse none");
}

static const char *loc_name(uint32_t type)
{
	switch (type) {
	case CUFAB_LOC_DEVICE:
		return "gpu";
	case CUFAB_LOC_HOST:
		return "host";
	case CUFAB_LOC_HOST_NUMA:
		return "host-numa";
	default:
		return "?";
	}
}

/*
 * pool 3 pid 1234 (app) gpu0 handles posix-fd max 1G reserved 32M
 *   (high 64M) threshold 0 reuse event-deps,opportunistic,internal-deps
 *   importers 1 ptrs 2 [default]
 */
static int pool_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		   void *arg)
{
	struct pool_show_state *s = arg;
	char comm[32] = "";
	uint32_t type;
	int32_t id;

	if (!tb[CUFAB_NL_A_POOL_ID] || !tb[CUFAB_NL_A_PID]) {
		fprintf(stderr, "cufabctl: pool show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_POOL_ID));
		return -1;
	}
	if (s->has_pid && nla_get_u32(tb[CUFAB_NL_A_PID]) != s->pid)
		return 0;
	if (tb[CUFAB_NL_A_COMM])
		nla_strlcpy(comm, tb[CUFAB_NL_A_COMM], sizeof(comm));
	type = cnl_u32(tb[CUFAB_NL_A_POOL_LOC_TYPE]);
	id = tb[CUFAB_NL_A_POOL_LOC_ID] ?
	     (int32_t)nla_get_s32(tb[CUFAB_NL_A_POOL_LOC_ID]) : -1;
	s->n++;

	open_object(NULL);
	print_uint(PRINT_ANY, "id", "pool %u", nla_get_u32(tb[CUFAB_NL_A_POOL_ID]));
	print_uint(PRINT_ANY, "pid", " pid %u", nla_get_u32(tb[CUFAB_NL_A_PID]));
	print_string(PRINT_ANY, "comm", " (%s)", comm);
	print_string(PRINT_ANY, "location", " %s", loc_name(type));
	if (type != CUFAB_LOC_HOST)
		print_int(PRINT_ANY, "location_id", "%d", id);
	print_handle_types(cnl_u32(tb[CUFAB_NL_A_POOL_HANDLE_TYPES]),
			   " handles %s");
	print_size(PRINT_ANY, "max_size", " max %s",
		   cnl_u64(tb[CUFAB_NL_A_POOL_MAX_SIZE]));
	print_size(PRINT_ANY, "reserved", " reserved %s",
		   cnl_u64(tb[CUFAB_NL_A_POOL_RESERVED]));
	print_size(PRINT_ANY, "reserved_high", " (high %s)",
		   cnl_u64(tb[CUFAB_NL_A_POOL_RESERVED_HIGH]));
	print_size(PRINT_ANY, "release_threshold", " threshold %s",
		   cnl_u64(tb[CUFAB_NL_A_POOL_THRESHOLD]));
	print_reuse(cnl_u32(tb[CUFAB_NL_A_POOL_REUSE]));
	print_uint(PRINT_ANY, "importers", " importers %u",
		   cnl_u32(tb[CUFAB_NL_A_POOL_IMPORTERS]));
	print_uint(PRINT_ANY, "exported_ptrs", " ptrs %u",
		   cnl_u32(tb[CUFAB_NL_A_POOL_PTRS]));
	print_bool(PRINT_JSON, "default", NULL,
		   tb[CUFAB_NL_A_POOL_DEFAULT] &&
		   nla_get_u8(tb[CUFAB_NL_A_POOL_DEFAULT]));
	if (tb[CUFAB_NL_A_POOL_DEFAULT] && nla_get_u8(tb[CUFAB_NL_A_POOL_DEFAULT]))
		print_fp(" default");
	print_nl();
	close_object();
	return 0;
}

static int pool_show(struct ctl *ctl, int argc, char **argv)
{
	struct pool_show_state s = { 0 };
	int ret;

	if (parse_show_args("pool", argc, argv, &s.pid, &s.has_pid))
		return EXIT_FAIL;
	ret = cnl_show(ctl, "pool show", CUFAB_NL_CMD_POOL_GET, pool_cb, &s);
	if (ret == EXIT_OK && !s.n)
		print_none();
	return ret;
}

static const struct cmd pool_cmds[] = {
	{ "show",	pool_show },
	{ "list",	pool_show },
	{ NULL,		NULL },
};

int do_pool(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "pool", pool_cmds, pool_help, argc, argv);
}
