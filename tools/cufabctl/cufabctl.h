/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cufabctl: administration tool of the cufab generic netlink family.
 *
 * One header for the tool's files: main.c (arguments, command table),
 * nl.c (netlink transport), print.c (text/JSON printer), parse.c (value
 * parsers), dev.c, topo.c, mem.c, imex.c and monitor.c (one object
 * each).
 */
#ifndef CUFABCTL_H
#define CUFABCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <linux/cufab.h>

/* Exit codes: scripts can tell "cufab is not there" from a failure. */
#define EXIT_OK			0
#define EXIT_FAIL		1
#define EXIT_NO_FAMILY		2

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* ---- main.c ---------------------------------------------------------- */

struct ctl;

struct cmd {
	const char *name;
	int (*fn)(struct ctl *ctl, int argc, char **argv);
};

int run_cmd(struct ctl *ctl, const char *object, const struct cmd *cmds,
	    void (*help)(FILE *f), int argc, char **argv);
/* trace.c: the events/cufab/ tracepoints for "monitor trace" */
int trace_open(void);
int trace_receive(int fd);
void trace_close(int fd);

void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool is_help(const char *word);

/* ---- nl.c ------------------------------------------------------------ */

/* Why the kernel refused a request, as far as it told us. */
struct cnl_error {
	int err;		/* positive errno */
	char msg[256];		/* extack message, "" when none */
	int attr;		/* attribute the kernel blamed, 0 when none */
	bool missing;		/* @attr was required and absent */
};

/* Called once per reply message with its attributes parsed. */
typedef int (*cnl_reply_cb)(uint8_t cmd, struct nlattr **tb,
			   struct nlmsghdr *nlh, void *arg);

struct ctl {
	struct nl_sock *sk;
	int family;
	bool json;
	bool pretty;
};

int cnl_connect(struct ctl *ctl);
void cnl_disconnect(struct ctl *ctl);
struct nl_msg *cnl_new_request(struct ctl *ctl, uint8_t cmd, bool dump);
int cnl_start(struct ctl *ctl, uint8_t cmd, bool dump, struct nl_msg **msg);
int cnl_transact(struct ctl *ctl, struct nl_msg *msg, cnl_reply_cb cb,
		 void *arg, struct cnl_error *e);
int cnl_get(struct ctl *ctl, const char *what, struct nl_msg *msg,
	    cnl_reply_cb cb, void *arg);
int cnl_show(struct ctl *ctl, const char *what, uint8_t cmd, cnl_reply_cb cb,
	     void *arg);
uint32_t cnl_u32(const struct nlattr *a);
uint64_t cnl_u64(const struct nlattr *a);
int cnl_parse_nested(struct nlattr *nest, struct nlattr **tb);
int cnl_join_events(struct ctl *ctl);
int cnl_receive_events(struct ctl *ctl, cnl_reply_cb cb, void *arg);
int cnl_report(const char *what, const struct cnl_error *e, const char *hint);
const char *cnl_attr_name(int type);
const char *cnl_cmd_name(uint8_t cmd);

/* ---- print.c --------------------------------------------------------- */

/* Where a print_*() call goes: text, JSON or both, as in iproute2. */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = PRINT_FP | PRINT_JSON,
};

void print_init(bool json, bool pretty);
bool print_json(void);
void open_object(const char *key);
void close_object(void);
void open_array(enum output_type t, const char *key, const char *text);
void close_array(enum output_type t, const char *text);
void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *val);
void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int val);
void print_int(enum output_type t, const char *key, const char *fmt,
	       int val);
/* @fmt of print_u64() takes %llu. */
void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t val);
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool val);
void print_handle_types(uint32_t bits, const char *fmt);
void print_size(enum output_type t, const char *key, const char *fmt,
		uint64_t bytes);
void print_fp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_nl(void);
void print_none(void);
int print_flush(void);

/* ---- parse.c --------------------------------------------------------- */

int parse_gpu(const char *what, const char *word, uint32_t *index);
int parse_u32(const char *what, const char *key, const char *word,
	      uint32_t min, uint32_t max, uint32_t *val);
int parse_numa(const char *what, const char *word, int32_t *node);
int parse_size(const char *what, const char *word, uint64_t *bytes);
int parse_on_off(const char *what, const char *key, const char *word,
		 bool *on);
int parse_gpu_list(const char *what, const char *word, uint64_t *mask);
int parse_show_args(const char *object, int argc, char **argv,
		    uint32_t *pid, bool *has_pid);
void format_size(char *buf, size_t len, uint64_t bytes);

/* ---- dev.c ----------------------------------------------------------- */

/* One virtual GPU as the kernel described it; has_* say what it sent. */
struct dev_info {
	uint32_t index;
	char name[CUFAB_NAME_LEN];
	uint8_t uuid[CUFAB_UUID_LEN];
	char bus_id[32];
	uint64_t mem_total;
	uint64_t mem_used;
	int32_t numa_node;
	uint32_t clique;
	uint32_t features;
	uint64_t peers;
	uint64_t gran[4];	/* mem, mem-rec, mc, mc-rec; 0: not reported */
	bool has_name, has_uuid, has_bus_id, has_mem_total, has_mem_used;
	bool has_numa_node, has_clique, has_features, has_peers;
};

struct feature {
	const char *name;	/* as shown and as typed in "dev set" */
	uint32_t bit;		/* enum cufab_device_feature */
	int attribute;		/* CUdevice_attribute it drives */
};

extern const struct feature features[];
extern const unsigned int num_features;

int dev_from_attrs(struct nlattr **tb, struct dev_info *d);
void dev_format_uuid(char *buf, size_t len, const uint8_t *u);
void dev_print(const struct dev_info *d, const char *key);
void dev_help(FILE *f);
int do_dev(struct ctl *ctl, int argc, char **argv);

/* ---- topo.c ---------------------------------------------------------- */

struct topo_info {
	uint32_t num_gpus;
	bool nvswitch;
	uint32_t clients;
	uint64_t live_objects;
	uint8_t cluster_uuid[CUFAB_UUID_LEN];
	uint32_t race_delay_us, race_seed;
	bool has_num_gpus, has_nvswitch, has_clients, has_live_objects;
	bool has_cluster_uuid, has_race;
	uint32_t managed_check;
	bool has_managed_check;
	uint32_t fabric_state;
	bool has_fabric_state;
	unsigned int ndevs;
	struct dev_info devs[CUFAB_MAX_GPUS];
};

int topo_from_msg(struct nlattr **tb, struct nlmsghdr *nlh,
		  struct topo_info *t);
void topo_print_summary(const struct topo_info *t);
void topo_help(FILE *f);
int set_report(struct ctl *ctl, const char *what, const struct cnl_error *e);
int do_topo(struct ctl *ctl, int argc, char **argv);

/* ---- mem.c ----------------------------------------------------------- */

void mem_help(FILE *f);
int do_mem(struct ctl *ctl, int argc, char **argv);
void managed_print_event(struct nlattr **tb);

/* ---- le.c ------------------------------------------------------------ */

void le_help(FILE *f);
int do_le(struct ctl *ctl, int argc, char **argv);
/* ---- mc.c ------------------------------------------------------------ */

void mc_help(FILE *f);
int do_mc(struct ctl *ctl, int argc, char **argv);
void mc_print_event(struct nlattr **tb);

/* ---- peer.c ---------------------------------------------------------- */

void peer_help(FILE *f);
int do_peer(struct ctl *ctl, int argc, char **argv);

/* ---- proc.c ---------------------------------------------------------- */

void proc_help(FILE *f);
int do_proc(struct ctl *ctl, int argc, char **argv);

/* ---- pool.c ---------------------------------------------------------- */

void pool_help(FILE *f);
int do_pool(struct ctl *ctl, int argc, char **argv);

/* ---- stream.c -------------------------------------------------------- */

void stream_help(FILE *f);
int do_stream(struct ctl *ctl, int argc, char **argv);
void stream_print_event(struct nlattr **tb);

/* ---- imex.c ---------------------------------------------------------- */

void imex_help(FILE *f);
int do_imex(struct ctl *ctl, int argc, char **argv);

/* ---- domain.c -------------------------------------------------------- */

void domain_help(FILE *f);
int do_domain(struct ctl *ctl, int argc, char **argv);

/* ---- monitor.c ------------------------------------------------------- */

int do_monitor(struct ctl *ctl, int argc, char **argv);
void monitor_help(FILE *f);

#endif /* CUFABCTL_H */
