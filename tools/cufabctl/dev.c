// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl dev: show and change virtual GPUs (CUFAB_NL_CMD_DEV_GET/SET).
 *
 * dev_from_attrs() and dev_print() are shared with "topo show" and
 * "monitor", so a GPU looks the same wherever it is printed.
 */
#include <stdio.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

/* Names as typed in "dev set" and shown by "dev show". */
const struct feature features[] = {
	{ "multicast",		CUFAB_DEV_F_MULTICAST,		132 },
	{ "fabric",		CUFAB_DEV_F_FABRIC_HANDLE,	128 },
	{ "le-unicast",		CUFAB_DEV_F_LE_UNICAST,		153 },
	{ "le-multicast",	CUFAB_DEV_F_LE_MULTICAST,	154 },
	{ "le-counted",		CUFAB_DEV_F_LE_COUNTED,		155 },
	{ "le-owner-access",	CUFAB_DEV_F_LE_OWNER_ACCESS,	156 },
	{ "managed-concurrent",	CUFAB_DEV_F_CONCURRENT_MANAGED,	89 },
	{ "pageable",		CUFAB_DEV_F_PAGEABLE_ACCESS,	88 },
	{ "pools",		CUFAB_DEV_F_MEMORY_POOLS,	115 },
};

const unsigned int num_features = ARRAY_SIZE(features);

/* Granularities: "dev set" keyword, JSON key, attribute; dev_info.gran[] order. */
static const struct {
	const char *word;
	const char *key;
	int attr;
} grans[] = {
	{ "mem-gran",		"mem_gran",	CUFAB_NL_A_DEV_MEM_GRAN },
	{ "mem-gran-rec",	"mem_gran_rec",	CUFAB_NL_A_DEV_MEM_GRAN_REC },
	{ "mc-gran",		"mc_gran",	CUFAB_NL_A_DEV_MC_GRAN },
	{ "mc-gran-rec",	"mc_gran_rec",	CUFAB_NL_A_DEV_MC_GRAN_REC },
};

void dev_help(FILE *f)
{
	unsigned int i;

	fputs("cufabctl dev show [ DEV ]\n"
	      "cufabctl dev set DEV [ mem SIZE ] [ numa { N | none } ] [ clique N ]\n"
	      "                     [ peers { LIST | none } ] [ FEATURE { on | off } ]...\n"
	      "                     [ mem-gran SIZE ] [ mem-gran-rec SIZE ]\n"
	      "                     [ mc-gran SIZE ] [ mc-gran-rec SIZE ]\n"
	      "  DEV := { gpuN | N }\n"
	      "  SIZE := bytes, or a count with a K, M, G or T suffix (1024-based): 512M, 2G\n"
	      "  mem-gran, mc-gran: cuMemCreate and multicast MINIMUM granularity, a power\n"
	      "          of two of at least the page size; the -rec ones (RECOMMENDED) are\n"
	      "          multiples of them\n"
	      "  LIST := N[-M][,N[-M]]...  GPUs this GPU reaches as peers; used when\n"
	      "          the topology has nvswitch off (with it on, a clique is all peers)\n"
	      "  FEATURE := one of (CUdevice_attribute it drives):\n", f);
	for (i = 0; i < num_features; i++)
		fprintf(f, "          %-20s %d\n", features[i].name,
			features[i].attribute);
}

void dev_format_uuid(char *buf, size_t len, const uint8_t *u)
{
	snprintf(buf, len,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

int dev_from_attrs(struct nlattr **tb, struct dev_info *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	if (!tb[CUFAB_NL_A_DEV_INDEX]) {
		fprintf(stderr, "cufabctl: kernel sent a GPU without %s\n",
			cnl_attr_name(CUFAB_NL_A_DEV_INDEX));
		return -1;
	}
	d->index = nla_get_u32(tb[CUFAB_NL_A_DEV_INDEX]);
	d->has_name = tb[CUFAB_NL_A_DEV_NAME];
	if (d->has_name)
		nla_strlcpy(d->name, tb[CUFAB_NL_A_DEV_NAME], sizeof(d->name));
	d->has_uuid = tb[CUFAB_NL_A_DEV_UUID];
	if (d->has_uuid)
		nla_memcpy(d->uuid, tb[CUFAB_NL_A_DEV_UUID], sizeof(d->uuid));
	d->has_bus_id = tb[CUFAB_NL_A_DEV_BUS_ID];
	if (d->has_bus_id)
		nla_strlcpy(d->bus_id, tb[CUFAB_NL_A_DEV_BUS_ID],
			    sizeof(d->bus_id));
	d->has_mem_total = tb[CUFAB_NL_A_DEV_MEM_TOTAL];
	if (d->has_mem_total)
		d->mem_total = nla_get_u64(tb[CUFAB_NL_A_DEV_MEM_TOTAL]);
	d->has_mem_used = tb[CUFAB_NL_A_DEV_MEM_USED];
	if (d->has_mem_used)
		d->mem_used = nla_get_u64(tb[CUFAB_NL_A_DEV_MEM_USED]);
	d->has_numa_node = tb[CUFAB_NL_A_DEV_NUMA_NODE];
	if (d->has_numa_node)
		d->numa_node = nla_get_s32(tb[CUFAB_NL_A_DEV_NUMA_NODE]);
	d->has_clique = tb[CUFAB_NL_A_DEV_CLIQUE];
	if (d->has_clique)
		d->clique = nla_get_u32(tb[CUFAB_NL_A_DEV_CLIQUE]);
	d->has_features = tb[CUFAB_NL_A_DEV_FEATURES];
	if (d->has_features)
		d->features = nla_get_u32(tb[CUFAB_NL_A_DEV_FEATURES]);
	d->has_peers = tb[CUFAB_NL_A_DEV_PEERS];
	if (d->has_peers)
		d->peers = nla_get_u64(tb[CUFAB_NL_A_DEV_PEERS]);
	for (i = 0; i < ARRAY_SIZE(grans); i++)
		if (tb[grans[i].attr])
			d->gran[i] = nla_get_u64(tb[grans[i].attr]);
	return 0;
}

static void print_ids(const struct dev_info *d)
{
	char uuid[48];

	print_fp("    ");
	if (d->has_uuid) {
		dev_format_uuid(uuid, sizeof(uuid), d->uuid);
		print_string(PRINT_ANY, "uuid", "uuid %s  ", uuid);
	}
	if (d->has_bus_id)
		print_string(PRINT_ANY, "bus_id", "bus %s", d->bus_id);
	print_nl();
}

static void print_placement(const struct dev_info *d)
{
	print_fp("    ");
	if (d->has_mem_total)
		print_size(PRINT_ANY, "mem_total", "memory %s", d->mem_total);
	if (d->has_mem_used)
		print_size(PRINT_ANY, "mem_used", " (%s used)", d->mem_used);
	if (d->has_numa_node && d->numa_node < 0) {
		print_string(PRINT_FP, NULL, "  numa %s", "none");
		print_int(PRINT_JSON, "numa_node", NULL, d->numa_node);
	} else if (d->has_numa_node) {
		print_int(PRINT_ANY, "numa_node", "  numa %d", d->numa_node);
	}
	if (d->has_clique)
		print_uint(PRINT_ANY, "clique", "  clique %u", d->clique);
	print_nl();
}

static void print_features(uint32_t bits)
{
	unsigned int i;
	char name[16];

	open_array(PRINT_ANY, "features", "    features");
	for (i = 0; i < num_features; i++)
		if (bits & features[i].bit)
			print_string(PRINT_ANY, NULL, " %s", features[i].name);
	/* Bits of a newer kernel this tool has no name for. */
	for (i = 0; i < 32; i++) {
		if (!(bits & (1U << i)) || (CUFAB_DEV_F_ALL & (1U << i)))
			continue;
		snprintf(name, sizeof(name), "bit%u", i);
		print_string(PRINT_ANY, NULL, " %s", name);
	}
	if (!bits)
		print_fp(" none");
	close_array(PRINT_ANY, "\n");
}

static void print_peers(uint64_t peers)
{
	unsigned int i;

	open_array(PRINT_ANY, "peers", "    peers");
	for (i = 0; i < 64; i++)
		if (peers & (1ULL << i))
			print_uint(PRINT_ANY, NULL, " gpu%u", i);
	if (!peers)
		print_fp(" none");
	close_array(PRINT_ANY, "\n");
}

/* "granularity 2 MiB/2 MiB  multicast 2 MiB/512 MiB" (MINIMUM/RECOMMENDED) */
static void print_gran(const struct dev_info *d)
{
	static const char * const fmt[] = {
		"    granularity %s", "/%s", "  multicast %s", "/%s",
	};
	unsigned int i;

	if (!d->gran[0])	/* a kernel without per-GPU granularities */
		return;
	for (i = 0; i < ARRAY_SIZE(grans); i++)
		print_size(PRINT_ANY, grans[i].key, fmt[i], d->gran[i]);
	print_nl();
}

/*
 * gpu0: cufab Virtual GPU
 *     uuid GPU-...  bus 0000:41:00.0
 *     memory 1 GiB (0 B used)  numa 0  clique 0
 *     granularity 2 MiB/2 MiB  multicast 2 MiB/512 MiB
 *     features multicast fabric ...
 *     peers gpu1 gpu2 gpu3
 */
void dev_print(const struct dev_info *d, const char *key)
{
	open_object(key);
	print_uint(PRINT_ANY, "index", "gpu%u:", d->index);
	if (d->has_name)
		print_string(PRINT_ANY, "name", " %s", d->name);
	print_nl();
	print_ids(d);
	print_placement(d);
	print_gran(d);
	if (d->has_features)
		print_features(d->features);
	if (d->has_peers)
		print_peers(d->peers);
	close_object();
}

struct show_state {
	bool opened;
	unsigned int count;
};

static int dev_show_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		       void *arg)
{
	struct show_state *s = arg;
	struct dev_info d;

	if (dev_from_attrs(tb, &d))
		return -1;
	if (!s->opened)
		open_array(PRINT_JSON, NULL, NULL);
	s->opened = true;
	dev_print(&d, NULL);
	s->count++;
	return 0;
}

static int dev_show(struct ctl *ctl, int argc, char **argv)
{
	struct show_state s = { 0 };
	char what[48] = "dev show";
	struct cnl_error e;
	struct nl_msg *msg;
	uint32_t index;
	int ret;

	if (argc > 1) {
		usage_error("dev show: unexpected \"%s\" after \"%s\"", argv[1],
			    argv[0]);
		return EXIT_FAIL;
	}
	if (argc == 1 && parse_gpu("dev show", argv[0], &index))
		return EXIT_FAIL;
	if (argc == 1)
		snprintf(what, sizeof(what), "dev show gpu%u", index);
	ret = cnl_start(ctl, CUFAB_NL_CMD_DEV_GET, argc == 0, &msg);
	if (ret)
		return ret;
	if (argc == 1 && nla_put_u32(msg, CUFAB_NL_A_DEV_INDEX, index) < 0) {
		nlmsg_free(msg);
		return EXIT_FAIL;
	}
	ret = cnl_transact(ctl, msg, dev_show_cb, &s, &e);
	if (!s.opened && !ret)
		open_array(PRINT_JSON, NULL, NULL);
	if (s.opened || !ret)
		close_array(PRINT_JSON, NULL);
	if (ret == -1)
		return cnl_report(what, &e, NULL);
	return ret ? EXIT_FAIL : EXIT_OK;
}

/* What "dev set" was asked to change; has_* say what was given. */
struct dev_change {
	uint32_t index;
	uint64_t mem;
	int32_t numa;
	uint32_t clique;
	uint64_t peers;
	uint32_t features;
	uint32_t mask;
	uint64_t gran[4];	/* as grans[] */
	bool has_mem, has_numa, has_clique, has_peers;
	bool has_gran[4];
};

static int find_gran(const char *word)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(grans); i++)
		if (!strcmp(grans[i].word, word))
			return i;
	return -1;
}

static const struct feature *find_feature(const char *name)
{
	unsigned int i;

	for (i = 0; i < num_features; i++)
		if (!strcmp(features[i].name, name))
			return &features[i];
	return NULL;
}

static int parse_feature(const char *what, const char *key, const char *val,
			 struct dev_change *c)
{
	const struct feature *f = find_feature(key);
	bool on;

	if (c->mask & f->bit) {
		usage_error("%s: \"%s\" given twice", what, key);
		return -1;
	}
	if (parse_on_off(what, key, val, &on))
		return -1;
	c->mask |= f->bit;
	if (on)
		c->features |= f->bit;
	return 0;
}

/* Marks @key seen; false (after an error line) when it was seen before. */
static bool first_time(const char *what, const char *key, bool *seen)
{
	if (*seen) {
		usage_error("%s: \"%s\" given twice", what, key);
		return false;
	}
	*seen = true;
	return true;
}

static int parse_change(const char *what, const char *key, const char *val,
			struct dev_change *c)
{
	int i;

	if (!strcmp(key, "mem"))
		return first_time(what, key, &c->has_mem) ?
		       parse_size(what, val, &c->mem) : -1;
	if (!strcmp(key, "numa"))
		return first_time(what, key, &c->has_numa) ?
		       parse_numa(what, val, &c->numa) : -1;
	if (!strcmp(key, "clique"))
		return first_time(what, key, &c->has_clique) ?
		       parse_u32(what, key, val, 0, CUFAB_MAX_GPUS - 1,
				 &c->clique) : -1;
	if (!strcmp(key, "peers"))
		return first_time(what, key, &c->has_peers) ?
		       parse_gpu_list(what, val, &c->peers) : -1;
	if (find_feature(key))
		return parse_feature(what, key, val, c);
	i = find_gran(key);
	if (i >= 0)
		return first_time(what, key, &c->has_gran[i]) ?
		       parse_size(what, val, &c->gran[i]) : -1;
	usage_error("%s: unknown keyword \"%s\" (try \"cufabctl dev help\")",
		    what, key);
	return -1;
}

static bool is_keyword(const char *key)
{
	return !strcmp(key, "mem") || !strcmp(key, "numa") ||
	       !strcmp(key, "clique") || !strcmp(key, "peers") ||
	       find_feature(key) || find_gran(key) >= 0;
}

static int parse_changes(const char *what, int argc, char **argv,
			 struct dev_change *c)
{
	int i;

	for (i = 0; i < argc; i += 2) {
		if (i + 1 == argc && is_keyword(argv[i])) {
			usage_error("%s: \"%s\" needs a value", what, argv[i]);
			return -1;
		}
		if (parse_change(what, argv[i], i + 1 < argc ? argv[i + 1] : "",
				 c))
			return -1;
	}
	if (!c->has_mem && !c->has_numa && !c->has_clique && !c->has_peers &&
	    !c->mask && !c->has_gran[0] && !c->has_gran[1] && !c->has_gran[2] &&
	    !c->has_gran[3]) {
		usage_error("%s: nothing to change (give mem, numa, clique, peers, a feature or a granularity)",
			    what);
		return -1;
	}
	return 0;
}

static int put_change(struct nl_msg *msg, const struct dev_change *c)
{
	unsigned int i;
	int err = nla_put_u32(msg, CUFAB_NL_A_DEV_INDEX, c->index);

	if (!err && c->has_mem)
		err = nla_put_u64(msg, CUFAB_NL_A_DEV_MEM_TOTAL, c->mem);
	if (!err && c->has_numa)
		err = nla_put_s32(msg, CUFAB_NL_A_DEV_NUMA_NODE, c->numa);
	if (!err && c->has_clique)
		err = nla_put_u32(msg, CUFAB_NL_A_DEV_CLIQUE, c->clique);
	if (!err && c->has_peers)
		err = nla_put_u64(msg, CUFAB_NL_A_DEV_PEERS, c->peers);
	if (!err && c->mask)
		err = nla_put_u32(msg, CUFAB_NL_A_DEV_FEATURES, c->features);
	if (!err && c->mask)
		err = nla_put_u32(msg, CUFAB_NL_A_DEV_FEATURES_MASK, c->mask);
	for (i = 0; !err && i < ARRAY_SIZE(grans); i++)
		if (c->has_gran[i])
			err = nla_put_u64(msg, grans[i].attr, c->gran[i]);
	return err;
}

static int dev_set(struct ctl *ctl, int argc, char **argv)
{
	struct dev_change c = { 0 };
	struct cnl_error e;
	struct nl_msg *msg;
	char what[48];
	int ret;

	if (argc == 0) {
		usage_error("dev set: which GPU? (cufabctl dev set gpuN ...)");
		return EXIT_FAIL;
	}
	if (parse_gpu("dev set", argv[0], &c.index))
		return EXIT_FAIL;
	snprintf(what, sizeof(what), "dev set gpu%u", c.index);
	if (parse_changes(what, argc - 1, argv + 1, &c))
		return EXIT_FAIL;
	ret = cnl_start(ctl, CUFAB_NL_CMD_DEV_SET, false, &msg);
	if (ret)
		return ret;
	if (put_change(msg, &c) < 0) {
		fprintf(stderr, "cufabctl: %s: request too large\n", what);
		nlmsg_free(msg);
		return EXIT_FAIL;
	}
	ret = cnl_transact(ctl, msg, NULL, NULL, &e);
	if (ret == -1)
		return set_report(ctl, what, &e);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static const struct cmd dev_cmds[] = {
	{ "show",	dev_show },
	{ "list",	dev_show },
	{ "set",	dev_set },
	{ NULL,		NULL },
};

int do_dev(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "dev", dev_cmds, dev_help, argc, argv);
}
