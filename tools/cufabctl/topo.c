// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl topo: the node-wide topology (CUFAB_NL_CMD_TOPO_GET/SET).
 *
 * "topo show" prints the node summary, the fabric cluster UUID, the
 * cliques and a peer matrix in the shape of "nvidia-smi topo -m" (X self,
 * NV peer, - none); with -j the cliques and every GPU as "dev show -j"
 * prints it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

void topo_help(FILE *f)
{
	fprintf(f,
		"cufabctl topo show\n"
		"cufabctl topo set [ gpus N ] [ nvswitch { on | off } ]\n"
		"                  [ race-delay-us US ] [ race-seed SEED ]\n"
		"  gpus N          number of virtual GPUs, 1 to %d\n"
		"  nvswitch on     every GPU of a clique is a peer of the others\n"
		"  nvswitch off    peers are what \"dev set DEV peers LIST\" says\n"
		"  race-delay-us   delay every stream operation's completion by up\n"
		"                  to US (0: off, at most 1000000); settable while\n"
		"                  programs run\n"
		"  race-seed       0: the delay is fixed; else the seed of a delay\n"
		"                  drawn per operation in [0, US]\n"
		"cufabctl topo set managed-check { off | report | strict }\n"
		"  managed-check   report (and with strict, fail the stream of) a\n"
		"                  stream operation touching managed memory attached\n"
		"                  to another stream or to the host\n"
		"cufabctl topo set fabric-state { ok | not-ready | illegal-state | degraded }\n"
		"  fabric-state    the fabric software's health: binds refused while\n"
		"                  not-ready or illegal-state; degraded shows in NVML's\n"
		"                  fabric health only; settable while programs run\n",
		CUFAB_MAX_GPUS);
}

static int topo_devs(struct nlmsghdr *nlh, struct topo_info *t)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	struct nlattr *nla;
	int rem;

	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != CUFAB_NL_A_DEV)
			continue;
		if (t->ndevs == CUFAB_MAX_GPUS) {
			fprintf(stderr, "cufabctl: kernel sent more than %d GPUs\n",
				CUFAB_MAX_GPUS);
			return -1;
		}
		if (cnl_parse_nested(nla, tb) < 0 ||
		    dev_from_attrs(tb, &t->devs[t->ndevs]))
			return -1;
		t->ndevs++;
	}
	return 0;
}

int topo_from_msg(struct nlattr **tb, struct nlmsghdr *nlh,
		  struct topo_info *t)
{
	memset(t, 0, sizeof(*t));
	t->has_num_gpus = tb[CUFAB_NL_A_TOPO_NUM_GPUS];
	if (t->has_num_gpus)
		t->num_gpus = nla_get_u32(tb[CUFAB_NL_A_TOPO_NUM_GPUS]);
	t->has_nvswitch = tb[CUFAB_NL_A_TOPO_NVSWITCH];
	if (t->has_nvswitch)
		t->nvswitch = nla_get_u8(tb[CUFAB_NL_A_TOPO_NVSWITCH]);
	t->has_clients = tb[CUFAB_NL_A_TOPO_CLIENTS];
	if (t->has_clients)
		t->clients = nla_get_u32(tb[CUFAB_NL_A_TOPO_CLIENTS]);
	t->has_live_objects = tb[CUFAB_NL_A_TOPO_LIVE_OBJECTS];
	if (t->has_live_objects)
		t->live_objects = nla_get_u64(tb[CUFAB_NL_A_TOPO_LIVE_OBJECTS]);
	t->has_managed_check = tb[CUFAB_NL_A_TOPO_MANAGED_CHECK];
	if (t->has_managed_check)
		t->managed_check = nla_get_u32(tb[CUFAB_NL_A_TOPO_MANAGED_CHECK]);
	t->has_fabric_state = tb[CUFAB_NL_A_TOPO_FABRIC_STATE];
	if (t->has_fabric_state)
		t->fabric_state = nla_get_u32(tb[CUFAB_NL_A_TOPO_FABRIC_STATE]);
	t->has_cluster_uuid = tb[CUFAB_NL_A_TOPO_CLUSTER_UUID];
	if (t->has_cluster_uuid)
		nla_memcpy(t->cluster_uuid, tb[CUFAB_NL_A_TOPO_CLUSTER_UUID],
			   sizeof(t->cluster_uuid));
	t->has_race = tb[CUFAB_NL_A_TOPO_RACE_DELAY_US] &&
		      tb[CUFAB_NL_A_TOPO_RACE_SEED];
	if (t->has_race) {
		t->race_delay_us = nla_get_u32(tb[CUFAB_NL_A_TOPO_RACE_DELAY_US]);
		t->race_seed = nla_get_u32(tb[CUFAB_NL_A_TOPO_RACE_SEED]);
	}
	return topo_devs(nlh, t);
}

/*
 * cluster: 8c0c5d1e-...: the NVLink fabric cluster, as nvidia-smi -q
 * prints ClusterUUID (no "GPU-" prefix: it names no GPU). GPUs on the
 * fabric report it; "dev show" says which have the fabric feature.
 */
static void print_cluster_uuid(const uint8_t *u)
{
	char buf[40];

	snprintf(buf, sizeof(buf),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
	print_string(PRINT_ANY, "cluster_uuid", "cluster: %s", buf);
	print_nl();
}

static const char *const managed_checks[] = { "off", "report", "strict" };
/* enum cufab_fabric_state, as the module parameter fabric_state spells it */
static const char *const fabric_states[] = {
	[CUFAB_FABRIC_OK] = "ok",
	[CUFAB_FABRIC_NOT_READY] = "not-ready",
	[CUFAB_FABRIC_ILLEGAL] = "illegal-state",
	[CUFAB_FABRIC_DEGRADED] = "degraded",
};

/* node: 4 GPUs  nvswitch on  clients 0  live objects 0 */
void topo_print_summary(const struct topo_info *t)
{
	print_fp("node:");
	if (t->has_num_gpus)
		print_uint(PRINT_ANY, "num_gpus", " %u GPUs", t->num_gpus);
	if (t->has_nvswitch)
		print_bool(PRINT_ANY, "nvswitch", "  nvswitch %s", t->nvswitch);
	if (t->has_clients)
		print_uint(PRINT_ANY, "clients", "  clients %u", t->clients);
	if (t->has_live_objects)
		print_u64(PRINT_ANY, "live_objects", "  live objects %llu",
			  t->live_objects);
	if (t->has_race) {
		print_uint(PRINT_ANY, "race_delay_us", "  race delay %u us",
			   t->race_delay_us);
		print_uint(PRINT_ANY, "race_seed", " seed %u", t->race_seed);
	}
	print_nl();
	if (t->has_cluster_uuid)
		print_cluster_uuid(t->cluster_uuid);
	if (t->has_managed_check) {
		print_string(PRINT_ANY, "managed_check", "managed check: %s",
			     t->managed_check < 3 ?
			     managed_checks[t->managed_check] : "?");
		print_nl();
	}
	if (t->has_fabric_state) {
		print_string(PRINT_ANY, "fabric_state", "fabric state: %s",
			     t->fabric_state < ARRAY_SIZE(fabric_states) ?
			     fabric_states[t->fabric_state] : "?");
		print_nl();
	}
}

/* Distinct clique ids of the GPUs, ascending; returns how many. */
static unsigned int clique_ids(const struct topo_info *t, uint32_t *ids)
{
	unsigned int i, j, n = 0;
	uint32_t c;

	for (i = 0; i < t->ndevs; i++) {
		c = t->devs[i].clique;
		for (j = 0; j < n && ids[j] < c; j++)
			;
		if (j < n && ids[j] == c)
			continue;
		memmove(&ids[j + 1], &ids[j], (n - j) * sizeof(*ids));
		ids[j] = c;
		n++;
	}
	return n;
}

static void print_cliques(const struct topo_info *t)
{
	uint32_t ids[CUFAB_MAX_GPUS];
	unsigned int i, j, n = clique_ids(t, ids);

	open_array(PRINT_JSON, "cliques", NULL);
	for (i = 0; i < n; i++) {
		open_object(NULL);
		print_uint(PRINT_ANY, "clique", "clique %u:", ids[i]);
		open_array(PRINT_JSON, "gpus", NULL);
		for (j = 0; j < t->ndevs; j++)
			if (t->devs[j].clique == ids[i])
				print_uint(PRINT_ANY, NULL, " gpu%u",
					   t->devs[j].index);
		close_array(PRINT_JSON, NULL);
		close_object();
		print_nl();
	}
	close_array(PRINT_JSON, NULL);
}

static const char *peer_cell(const struct dev_info *row,
			     const struct dev_info *col)
{
	if (row->index == col->index)
		return "X";
	if (col->index < 64 && (row->peers & (1ULL << col->index)))
		return "NV";
	return "-";
}

/* Text only: JSON readers have every GPU's peers in "devices". */
static void print_matrix(const struct topo_info *t)
{
	const struct dev_info *d;
	unsigned int i, j;
	char cell[16];

	print_fp("\n%-8s", "");
	for (j = 0; j < t->ndevs; j++) {
		snprintf(cell, sizeof(cell), "GPU%u", t->devs[j].index);
		print_fp("%-6s", cell);
	}
	print_fp("%-6s%s\n", "NUMA", "Clique");
	for (i = 0; i < t->ndevs; i++) {
		d = &t->devs[i];
		snprintf(cell, sizeof(cell), "GPU%u", d->index);
		print_fp("%-8s", cell);
		for (j = 0; j < t->ndevs; j++)
			print_fp("%-6s", peer_cell(d, &t->devs[j]));
		if (d->has_numa_node && d->numa_node >= 0)
			print_fp("%-6d", d->numa_node);
		else
			print_fp("%-6s", "N/A");
		print_fp("%u\n", d->clique);
	}
	print_fp("\nLegend: X = self, NV = peer over the fabric, - = not a peer\n");
}

static void topo_print(const struct topo_info *t)
{
	unsigned int i;

	open_object(NULL);
	topo_print_summary(t);
	print_cliques(t);
	print_matrix(t);
	if (print_json()) {
		open_array(PRINT_JSON, "devices", NULL);
		for (i = 0; i < t->ndevs; i++)
			dev_print(&t->devs[i], NULL);
		close_array(PRINT_JSON, NULL);
	}
	close_object();
}

static int topo_show_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
			void *arg)
{
	struct topo_info *t = arg;

	if (topo_from_msg(tb, nlh, t))
		return -1;
	topo_print(t);
	return 0;
}

static int topo_show(struct ctl *ctl, int argc, char **argv)
{
	static struct topo_info t;
	struct nl_msg *msg;
	int ret;

	if (argc > 0) {
		usage_error("topo show: unexpected \"%s\"", argv[0]);
		return EXIT_FAIL;
	}
	ret = cnl_start(ctl, CUFAB_NL_CMD_TOPO_GET, false, &msg);
	if (ret)
		return ret;
	return cnl_get(ctl, "topo show", msg, topo_show_cb, &t);
}

static int clients_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		      void *arg)
{
	if (!tb[CUFAB_NL_A_TOPO_CLIENTS])
		return -1;
	*(uint32_t *)arg = nla_get_u32(tb[CUFAB_NL_A_TOPO_CLIENTS]);
	return 0;
}

/*
 * Report a refused dev set / topo set. For -EBUSY add how many clients
 * hold /dev/cufab open, so the user knows what to close.
 */
int set_report(struct ctl *ctl, const char *what, const struct cnl_error *e)
{
	struct cnl_error e2;
	struct nl_msg *msg;
	uint32_t n = 0;
	char hint[64] = "";

	if (e->err == EBUSY) {
		msg = cnl_new_request(ctl, CUFAB_NL_CMD_TOPO_GET, false);
		if (msg && !cnl_transact(ctl, msg, clients_cb, &n, &e2))
			snprintf(hint, sizeof(hint), "%u client%s /dev/cufab open",
				 n, n == 1 ? " has" : "s have");
	}
	return cnl_report(what, e, hint);
}

struct topo_change {
	uint32_t num_gpus, race_delay_us, race_seed;
	bool nvswitch;
	bool has_num_gpus, has_nvswitch, has_race_delay, has_race_seed;
	uint32_t managed_check;
	bool has_managed_check;
	uint32_t fabric_state;
	bool has_fabric_state;
};

static int parse_managed_check(const char *val, uint32_t *mode)
{
	uint32_t i;

	for (i = 0; i < 3; i++) {
		if (!strcmp(val, managed_checks[i])) {
			*mode = i;
			return 0;
		}
	}
	usage_error("topo set: managed-check is off, report or strict, not \"%s\"",
		    val);
	return -1;
}

static int parse_fabric_state(const char *val, uint32_t *state)
{
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(fabric_states); i++) {
		if (!strcmp(val, fabric_states[i])) {
			*state = i;
			return 0;
		}
	}
	usage_error("topo set: fabric-state is ok, not-ready, illegal-state or degraded, not \"%s\"",
		    val);
	return -1;
}

static int parse_topo_change(const char *key, const char *val,
			     struct topo_change *c)
{
	bool *seen;

	if (!strcmp(key, "gpus")) {
		seen = &c->has_num_gpus;
	} else if (!strcmp(key, "nvswitch")) {
		seen = &c->has_nvswitch;
	} else if (!strcmp(key, "race-delay-us")) {
		seen = &c->has_race_delay;
	} else if (!strcmp(key, "race-seed")) {
		seen = &c->has_race_seed;
	} else if (!strcmp(key, "managed-check")) {
		seen = &c->has_managed_check;
	} else if (!strcmp(key, "fabric-state")) {
		seen = &c->has_fabric_state;
	} else {
		usage_error("topo set: unknown keyword \"%s\" (try \"cufabctl topo help\")",
			    key);
		return -1;
	}
	if (*seen) {
		usage_error("topo set: \"%s\" given twice", key);
		return -1;
	}
	if (!val) {
		usage_error("topo set: \"%s\" needs a value", key);
		return -1;
	}
	*seen = true;
	if (seen == &c->has_num_gpus)
		return parse_u32("topo set", key, val, 1, CUFAB_MAX_GPUS,
				 &c->num_gpus);
	if (seen == &c->has_race_delay)
		return parse_u32("topo set", key, val, 0, 1000000,
				 &c->race_delay_us);
	if (seen == &c->has_race_seed)
		return parse_u32("topo set", key, val, 0, UINT32_MAX,
				 &c->race_seed);
	if (seen == &c->has_managed_check)
		return parse_managed_check(val, &c->managed_check);
	if (seen == &c->has_fabric_state)
		return parse_fabric_state(val, &c->fabric_state);
	return parse_on_off("topo set", key, val, &c->nvswitch);
}

static int topo_set(struct ctl *ctl, int argc, char **argv)
{
	struct topo_change c = { 0 };
	struct cnl_error e;
	struct nl_msg *msg;
	int i, ret, err = 0;

	for (i = 0; i < argc; i += 2)
		if (parse_topo_change(argv[i], i + 1 < argc ? argv[i + 1] : NULL,
				      &c))
			return EXIT_FAIL;
	if (!c.has_num_gpus && !c.has_nvswitch && !c.has_race_delay &&
	    !c.has_race_seed && !c.has_managed_check && !c.has_fabric_state) {
		usage_error("topo set: nothing to change (give gpus, nvswitch, race-delay-us, race-seed, managed-check or fabric-state)");
		return EXIT_FAIL;
	}
	ret = cnl_start(ctl, CUFAB_NL_CMD_TOPO_SET, false, &msg);
	if (ret)
		return ret;
	if (c.has_num_gpus)
		err = nla_put_u32(msg, CUFAB_NL_A_TOPO_NUM_GPUS, c.num_gpus);
	if (!err && c.has_nvswitch)
		err = nla_put_u8(msg, CUFAB_NL_A_TOPO_NVSWITCH, c.nvswitch);
	if (!err && c.has_race_delay)
		err = nla_put_u32(msg, CUFAB_NL_A_TOPO_RACE_DELAY_US,
				  c.race_delay_us);
	if (!err && c.has_race_seed)
		err = nla_put_u32(msg, CUFAB_NL_A_TOPO_RACE_SEED, c.race_seed);
	if (!err && c.has_managed_check)
		err = nla_put_u32(msg, CUFAB_NL_A_TOPO_MANAGED_CHECK,
				  c.managed_check);
	if (!err && c.has_fabric_state)
		err = nla_put_u32(msg, CUFAB_NL_A_TOPO_FABRIC_STATE,
				  c.fabric_state);
	if (err < 0) {
		nlmsg_free(msg);
		return EXIT_FAIL;
	}
	ret = cnl_transact(ctl, msg, NULL, NULL, &e);
	if (ret == -1)
		return set_report(ctl, "topo set", &e);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static const struct cmd topo_cmds[] = {
	{ "show",	topo_show },
	{ "set",	topo_set },
	{ NULL,		NULL },
};

int do_topo(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "topo", topo_cmds, topo_help, argc, argv);
}
