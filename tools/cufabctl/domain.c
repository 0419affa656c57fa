// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl domain: the nodes of the fabric domain as this node sees them
 * (CUFAB_NL_CMD_DOMAIN_GET, Documentation/multinode.rst): per node its
 * record in the window's domain header, its GPUs with their UUIDs, bus
 * ids and cliques, and this node's cufab-imexd (registered, and its link
 * to every other node); then the cliques across nodes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "cufabctl.h"

/* enough for a text summary of an NVL576 (144 nodes of 4 GPUs) */
#define DOMAIN_CLIQUES	64

struct domain_show_state {
	unsigned int nodes;
	bool cluster_shown;
	struct {
		uint32_t id;
		unsigned int gpus;
		unsigned int nodes;
		int last_node;
	} cliques[DOMAIN_CLIQUES];
	unsigned int ncliques;
};

void domain_help(FILE *f)
{
	fputs("cufabctl domain show\n"
	      "  the nodes of the fabric domain as this node sees them: state in\n"
	      "  the window's domain header, generation, heartbeat, their GPUs\n"
	      "  (UUID, bus id, clique), this node's cufab-imexd and its link to\n"
	      "  each node; then the cliques across nodes\n", f);
}

static const char *domain_state_name(uint32_t s)
{
	static const char *const names[] = {
		[CUFAB_DOMAIN_ABSENT] = "absent",
		[CUFAB_DOMAIN_UP] = "up",
		[CUFAB_DOMAIN_LEFT] = "left",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "unknown";
}

static const char *domain_link_name(uint32_t l)
{
	static const char *const names[] = {
		[CUFAB_LINK_UNKNOWN] = "unknown",
		[CUFAB_LINK_NEVER] = "never connected",
		[CUFAB_LINK_AUTH] = "authenticating",
		[CUFAB_LINK_UP] = "connected",
		[CUFAB_LINK_LOST] = "lost",
		[CUFAB_LINK_GONE] = "disconnected",
	};

	return l < ARRAY_SIZE(names) ? names[l] : "unknown";
}

static void domain_count_clique(struct domain_show_state *s, uint32_t node,
				uint32_t clique)
{
	unsigned int i;

	for (i = 0; i < s->ncliques && s->cliques[i].id != clique; i++)
		;
	if (i == s->ncliques) {
		if (i == DOMAIN_CLIQUES)
			return;
		s->ncliques++;
		s->cliques[i].id = clique;
		s->cliques[i].last_node = -1;
	}
	s->cliques[i].gpus++;
	if (s->cliques[i].last_node != (int)node) {
		s->cliques[i].nodes++;
		s->cliques[i].last_node = node;
	}
}

/* "    gpu0  uuid GPU-...  bus 0001:41:00.0  clique 0", one per GPU. */
static int domain_gpus(struct nlmsghdr *nlh, struct domain_show_state *s,
		       uint32_t node)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	struct dev_info d;
	struct nlattr *nla;
	char uuid[48];
	int rem;

	open_array(PRINT_JSON, "gpus", NULL);
	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != CUFAB_NL_A_DEV)
			continue;
		if (cnl_parse_nested(nla, tb) < 0 || dev_from_attrs(tb, &d))
			return -1;
		open_object(NULL);
		print_uint(PRINT_ANY, "index", "    gpu%u", d.index);
		if (d.has_uuid) {
			dev_format_uuid(uuid, sizeof(uuid), d.uuid);
			print_string(PRINT_ANY, "uuid", "  uuid %s", uuid);
		}
		if (d.has_bus_id)
			print_string(PRINT_ANY, "bus_id", "  bus %s", d.bus_id);
		if (d.has_clique) {
			print_uint(PRINT_ANY, "clique", "  clique %u", d.clique);
			domain_count_clique(s, node, d.clique);
		}
		print_nl();
		close_object();
	}
	close_array(PRINT_JSON, NULL);
	return 0;
}

static void domain_cluster(struct domain_show_state *s, struct nlattr *a)
{
	char uuid[48];

	if (s->cluster_shown || !a)
		return;
	s->cluster_shown = true;
	/* the GPU UUID format without its "GPU-" */
	dev_format_uuid(uuid, sizeof(uuid), nla_data(a));
	print_string(PRINT_FP, NULL, "cluster %s\n", uuid + 4);
}

/*
 * node 1: up, alive, generation 2, heartbeat 57, link connected
 * node 0 (this node): up, generation 1, heartbeat 60, daemon registered
 */
static int domain_cb(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		     void *arg)
{
	struct domain_show_state *s = arg;
	uint32_t node, state;
	bool self;
	char uuid[48];

	if (!tb[CUFAB_NL_A_DOMAIN_NODE] || !tb[CUFAB_NL_A_DOMAIN_STATE]) {
		fprintf(stderr, "cufabctl: domain show: kernel reply without %s\n",
			cnl_attr_name(CUFAB_NL_A_DOMAIN_NODE));
		return -1;
	}
	node = nla_get_u32(tb[CUFAB_NL_A_DOMAIN_NODE]);
	state = nla_get_u32(tb[CUFAB_NL_A_DOMAIN_STATE]);
	self = tb[CUFAB_NL_A_DOMAIN_SELF] &&
	       nla_get_u8(tb[CUFAB_NL_A_DOMAIN_SELF]);
	domain_cluster(s, tb[CUFAB_NL_A_TOPO_CLUSTER_UUID]);
	s->nodes++;
	open_object(NULL);
	print_uint(PRINT_ANY, "node", "node %u", node);
	print_bool(PRINT_JSON, "self", NULL, self);
	if (self)
		print_fp(" (this node)");
	print_string(PRINT_ANY, "state", ": %s", domain_state_name(state));
	if (!self && state == CUFAB_DOMAIN_UP)
		print_string(PRINT_FP, NULL, ", %s",
			     cnl_u32(tb[CUFAB_NL_A_DOMAIN_ALIVE]) ?
			     "alive" : "stale (no heartbeat for 3 s)");
	print_bool(PRINT_JSON, "alive", NULL,
		   tb[CUFAB_NL_A_DOMAIN_ALIVE] &&
		   nla_get_u8(tb[CUFAB_NL_A_DOMAIN_ALIVE]));
	if (cnl_u64(tb[CUFAB_NL_A_DOMAIN_GENERATION])) {
		print_u64(PRINT_ANY, "generation", ", generation %llu",
			  cnl_u64(tb[CUFAB_NL_A_DOMAIN_GENERATION]));
		print_u64(PRINT_ANY, "heartbeat", ", heartbeat %llu",
			  cnl_u64(tb[CUFAB_NL_A_DOMAIN_HEARTBEAT]));
		snprintf(uuid, sizeof(uuid), "%016llx", (unsigned long long)
			 cnl_u64(tb[CUFAB_NL_A_DOMAIN_INSTANCE]));
		print_string(PRINT_JSON, "instance", NULL, uuid);
	}
	if (tb[CUFAB_NL_A_DOMAIN_DAEMON])
		print_string(PRINT_ANY, "daemon", ", daemon %s",
			     nla_get_u8(tb[CUFAB_NL_A_DOMAIN_DAEMON]) ?
			     "registered" : "not running");
	if (tb[CUFAB_NL_A_DOMAIN_LINK])
		print_string(PRINT_ANY, "link", ", link %s",
			     domain_link_name(nla_get_u32(tb[CUFAB_NL_A_DOMAIN_LINK])));
	print_nl();
	if (domain_gpus(nlh, s, node))
		return -1;
	close_object();
	return 0;
}

/* "cliques: 0 (4 GPUs on 2 nodes)" */
static void domain_cliques(const struct domain_show_state *s)
{
	unsigned int i;

	if (!s->ncliques)
		return;
	print_fp("cliques:");
	for (i = 0; i < s->ncliques; i++)
		print_fp("%s %u (%u GPUs on %u node%s)", i ? "," : "",
			 s->cliques[i].id, s->cliques[i].gpus,
			 s->cliques[i].nodes, s->cliques[i].nodes == 1 ? "" : "s");
	print_fp("\n");
}

static int domain_show(struct ctl *ctl, int argc, char **argv)
{
	struct domain_show_state *s;
	int ret;

	if (argc) {
		usage_error("domain show: unexpected '%s'", argv[0]);
		return EXIT_FAIL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return EXIT_FAIL;
	ret = cnl_show(ctl, "domain show", CUFAB_NL_CMD_DOMAIN_GET, domain_cb, s);
	if (!ret && !s->nodes)
		print_none();
	if (!ret && !print_json())
		domain_cliques(s);
	free(s);
	return ret;
}

static const struct cmd domain_cmds[] = {
	{ "show",	domain_show },
	{ "list",	domain_show },
	{ NULL,		NULL },
};

int do_domain(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "domain", domain_cmds, domain_help, argc, argv);
}
