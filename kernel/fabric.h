/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many nodes (Documentation/multinode.rst): the fabric window every node
 * maps (fabric_window.c) and the imports of other nodes' FABRIC exports,
 * brokered by cufab-imexd (fabric_remote.c).
 */
#ifndef _CUFAB_FABRIC_H
#define _CUFAB_FABRIC_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/mm_types.h>
#include <linux/types.h>
#include <linux/cufab.h>

struct cufab_alloc;
struct cufab_page_provider;
struct cufab_client;
struct cufab_va;
struct seq_file;
struct page;

/* fabric_window.c */
int cufab_window_init(void);
void cufab_window_exit(void);
bool cufab_window_present(void);
u64 cufab_window_unit(void);
unsigned int cufab_domain_nodes(void);
struct page *cufab_window_page(u64 offset);
int cufab_window_reserve(u64 length, u64 *offset);
void cufab_window_unreserve(u64 offset, u64 length);
void cufab_window_keep(u64 offset, u64 length);
bool cufab_window_owns(u64 offset, u64 length, unsigned int node);
void cufab_window_show(struct seq_file *m);
extern const struct cufab_page_provider cufab_window_pages;
u64 cufab_window_alloc_offset(const struct cufab_alloc *alloc);
void cufab_window_alloc_told(const struct cufab_alloc *alloc);

/* fabric_domain.c: the window's domain header */
struct cufab_domain_geometry {
	u64 size;
	u64 slice_start;
	u64 slice;
	u64 unit;
	unsigned int nodes;
};

/* what the header says of one node (enum cufab_domain_state: uapi) */
struct cufab_domain_info {
	u32 state;
	bool alive;
	u64 instance;
	u64 generation;
	u64 heartbeat;
	u32 num_gpus;
	u32 clique[CUFAB_MAX_GPUS];
};

u64 cufab_domain_header_size(unsigned int nodes, u64 unit, u64 size);
int cufab_domain_join(void *virt, const struct cufab_domain_geometry *g);
int cufab_domain_check(void *virt, const struct cufab_domain_geometry *g);
void cufab_domain_leave(void);
u64 cufab_domain_generation(unsigned int node);
int cufab_domain_node_info(unsigned int node, struct cufab_domain_info *info);
void cufab_domain_show(struct seq_file *m);
void cufab_domain_set_link(unsigned int node, u32 link);
u32 cufab_domain_link(unsigned int node);
void cufab_domain_forget_links(void);
void cufab_domain_set_holds(unsigned int node, bool holds);
const char *cufab_domain_let_go(unsigned int node, u64 gen);
/* the reclaim fence of team replicas: tags and rounds */
u32 cufab_domain_tag(u64 offset);
void cufab_domain_retag(u64 offset, u64 length);
void cufab_domain_round_done(void);
u64 cufab_domain_rounds(unsigned int node);
const char *cufab_domain_replicas_let_go(unsigned int node, u64 gen,
					 u64 rounds);
int cufab_domain_slice_fenced(void);
/*
 * Who hears that another node came back with a new generation: the
 * fence (fabric_fence.c) registers itself, so the header calls nothing
 * above it. Called from the heartbeat's work.
 */
void cufab_domain_on_reload(void (*fn)(unsigned int node));

/* pages_window.c, pages_remote.c */
extern const struct cufab_page_provider cufab_remote_pages;

/**
 * struct cufab_remote_import - alloc->priv of an import of another node's
 *	export (fabric_remote.c)
 * @node: the exporting node
 * @offset: the allocation's start in the window
 * @token: the exporter's name of this import
 * @export_id: the export the FABRIC handle named, for log lines
 * @alloc: the import, while it is tracked (fabric_revoke.c)
 * @link: on the list of live imports (fabric_revoke.c)
 * @revoked: set once: the exporter's memory is no longer this node's to
 *	touch (READ_ONCE: the fault handler and copies read it unlocked)
 * @released: its RELEASE went already, or must never go (its exporter is
 *	gone): the final put sends none
 */
struct cufab_remote_import {
	unsigned int node;
	u64 offset;
	u64 token;
	u32 export_id;
	struct cufab_alloc *alloc;
	struct list_head link;
	bool revoked;
	bool released;
	u64 generation;	/* the exporter's, when imported (fabric_domain.c) */
	bool tracked;	/* listed: it counts in its node's fence bit */
	bool idle;	/* revoked or let go, no copy holds its pages */
};

/* fabric_remote.c */
int cufab_remote_init(void);
void cufab_remote_exit(void);
struct cufab_alloc *cufab_remote_import(struct cufab_client *client,
					const u8 *handle, unsigned int node);
void cufab_remote_show(struct seq_file *m);
void cufab_remote_release_send(unsigned int node, u64 token);
void cufab_remote_fail_node(unsigned int node, bool lost);
unsigned int cufab_remote_node_down(unsigned int node);
unsigned int cufab_remote_drop_fenced(unsigned int node);

/* fabric_fence.c: the reclaim fence and the daemon's death */
void cufab_fence_init(void);
void cufab_fence_exit(void);
void cufab_fence_daemon_register(int grace);
void cufab_fence_daemon_died(void);
void cufab_fence_hold(unsigned int node, unsigned int imports);

/* fabric_revoke.c: imports of another node's memory that end */
u32 cufab_revoke_ask(unsigned int node);
void cufab_revoke_asked(unsigned int node);
void cufab_revoke_replica(unsigned int node, bool held);
int cufab_revoke_track(struct cufab_remote_import *imp, u32 gen);
bool cufab_revoke_untrack(struct cufab_remote_import *imp);
unsigned int cufab_revoke_node(unsigned int node, bool lost);
bool cufab_remote_revoked(const struct cufab_alloc *alloc);
int cufab_remote_revoked_err(const struct cufab_alloc *alloc,
			     const char *call);
vm_fault_t cufab_remote_cpu_fault(struct cufab_alloc *alloc,
				  struct cufab_va *va, unsigned long addr);
bool cufab_revoke_quiesce(struct cufab_alloc *alloc);
void cufab_revoke_show(struct seq_file *m);

/* va.c: zap every client's CPU view of an import being revoked */
void cufab_va_revoke(struct cufab_alloc *alloc);

int cufab_remote_forward(u8 cmd, unsigned int node, const void *blob,
			 size_t len);
struct cufab_alloc *cufab_remote_imported_by(unsigned int node, u64 id);
void cufab_remote_importers(struct cufab_alloc *alloc, unsigned long *nodes);

/**
 * struct cufab_remote_team_ops - teams across nodes, for fabric_remote.c
 * @import_mc: another node's multicast object @id (@length bytes,
 *	@devices devices) was imported under @token: this node's object
 *	for it, one reference, or an ERR_PTR (the caller releases @token)
 * @node_down: @node is gone (NODE_DOWN), before its imports are dropped
 *
 * Registered by fabric_team.c, the layer above.
 */
struct cufab_remote_team_ops {
	struct cufab_alloc *(*import_mc)(unsigned int node, u64 id, u64 token,
					 u64 length, u32 devices);
	void (*node_down)(unsigned int node);
};

void cufab_remote_set_team_ops(const struct cufab_remote_team_ops *ops);

/* fabric_team.c */
struct sk_buff;
struct genl_info;
struct cufab_team;
void cufab_team_fabric_init(void);
void cufab_team_fabric_exit(void);
int cufab_imex_team_join_doit(struct sk_buff *skb, struct genl_info *info);
int cufab_imex_team_state_doit(struct sk_buff *skb, struct genl_info *info);

/* the TEAM record, little-endian, as the daemons carry it */
struct cufab_wire_member {
	__le16 node;
	__le16 gpu;
	__le32 clique;
} __packed;

struct cufab_wire_binding {
	__le16 member;		/* index in the record's members */
	__le16 reserved;
	__le32 tag;		/* its first unit's tag (fabric_domain.c) */
	__le64 offset;		/* in the object */
	__le64 size;
	__le64 window;		/* where the memory is in the window */
} __packed;

/**
 * struct cufab_wire_team - TEAM_JOIN and TEAM_STATE
 * @req_id: a JOIN's request, echoed by the STATE that answers it; 0
 * @id: the object's allocation id on its home node
 * @home: the home node
 * @kind: CUFAB_WIRE_KIND_MC or CUFAB_WIRE_KIND_LE: what the team is of
 * @nmembers: entries of @members
 * @nbindings: bindings after the members
 * @size: devices the team wants
 * @status: with @req_id, the join's answer; without, 0 or the errno the
 *	team is broken with
 * @members: a JOIN's member, or a STATE's members
 */
struct cufab_wire_team {
	__le64 req_id;
	__le64 id;
	__le16 home;
	__le16 kind;
	__le16 nmembers;
	__le16 nbindings;
	__le32 size;
	__le32 status;
	struct cufab_wire_member members[];
} __packed;

#define CUFAB_WIRE_KIND_MC	1
/* endpoint teams across nodes (fabric_le.c) */
#define CUFAB_WIRE_KIND_LE	2

static_assert(sizeof(struct cufab_wire_team) == 32);

/* the record of a team's members and bindings (only this node's: @local) */
struct cufab_wire_team *cufab_team_build(struct cufab_team *team,
					 unsigned int home, u64 id, u16 kind,
					 bool local, size_t *len);
struct cufab_wire_team *cufab_wire_check(struct genl_info *info,
					 unsigned int *from);
void cufab_team_apply_member(struct cufab_team *team,
			     const struct cufab_wire_member *m);
void cufab_team_apply_bindings(struct cufab_team *team,
			       struct cufab_wire_team *w, u32 idx);
int cufab_team_ask(unsigned int home, struct cufab_wire_team *w, size_t len);
void cufab_team_answer(u64 id, unsigned int home, int status);
/* what a team's home and its importers send and apply, whatever its kind */
void cufab_team_tell(struct cufab_team *team, u64 id, u16 kind,
		     unsigned long *nodes, int skip, int to, u64 req_id,
		     int status);
void cufab_team_report(struct cufab_team *team, unsigned int home, u64 id,
		       u16 kind);
int cufab_team_join_home(struct cufab_team *team, unsigned int home, u64 id,
			 u16 kind, u32 gpu, const struct cufab_team_who *who);
int cufab_team_join_member(struct cufab_team *team, unsigned int from,
			   const struct cufab_wire_member *m);
void cufab_team_refuse_join(struct cufab_wire_team *w, unsigned int from,
			    const char *what);
void cufab_team_apply_from(struct cufab_team *team, struct cufab_wire_team *w,
			   unsigned int from);
void cufab_team_apply_home(struct cufab_team *team, struct cufab_wire_team *w);

/*
 * Endpoint teams across nodes (fabric_le.c): a logical endpoint exported
 * as FABRIC on its home node and imported on others.
 */

/**
 * struct cufab_remote_answer - what an exporting node answered an import
 * @offset: memory: its start in the window; an endpoint: its bind
 *	alignment ORed with its CUFAB_LE_FLAG_* bits
 * @length: bytes
 * @token: the exporter's name of this import
 * @dev: memory: the exporter's GPU; a unicast endpoint: its owner GPU
 * @kind: CUFAB_IMEX_KIND_*
 * @devices: a team's numDevices
 * @id: a multicast object's allocation id, an endpoint's number
 */
struct cufab_remote_answer {
	u64 offset;
	u64 length;
	u64 token;
	u32 dev;
	u32 kind;
	u32 devices;
	u64 id;
};

int cufab_remote_resolve(struct cufab_client *client, const u8 *handle,
			 unsigned int node, struct cufab_remote_answer *ans);

/* an endpoint's import token: apart from the memory tokens (32 bits) */
#define CUFAB_LE_TOKEN_BIT	BIT_ULL(32)

/**
 * struct cufab_remote_le_ops - endpoint teams across nodes, for
 *	fabric_remote.c
 * @export: EXPORT_GET of an endpoint's handle by @node on @channel: fill
 *	@ans (with a token of CUFAB_LE_TOKEN_BIT); 0 or a negative errno
 * @put: EXPORT_PUT of such a token: 0, or -ENOENT when @node holds none
 * @node_down: @node is gone (NODE_DOWN)
 *
 * Registered by fabric_le.c, the layer above.
 */
struct cufab_remote_le_ops {
	int (*export)(const u8 *handle, u32 channel, u32 node,
		      struct cufab_remote_answer *ans);
	int (*put)(u32 node, u64 token);
	void (*node_down)(unsigned int node);
};

void cufab_remote_set_le_ops(const struct cufab_remote_le_ops *ops);

/**
 * struct cufab_team_le_ops - records of endpoint teams, for fabric_team.c
 * @join: a TEAM_JOIN of CUFAB_WIRE_KIND_LE from node @from
 * @state: a TEAM_STATE of CUFAB_WIRE_KIND_LE from node @from
 *
 * @unbind_replica: every endpoint team drops the bindings of @owner, a
 *	team replica whose range its node freed
 *
 * @join and @state return what the command's doit returns. Registered by
 * fabric_le.c, the layer above, which shares the record.
 */
struct cufab_team_le_ops {
	int (*join)(struct cufab_wire_team *w, unsigned int from,
		    struct genl_info *info);
	int (*state)(struct cufab_wire_team *w, unsigned int from,
		     struct genl_info *info);
	void (*unbind_replica)(const void *owner);
};

void cufab_team_set_le_ops(const struct cufab_team_le_ops *ops);

/* fabric_le.c */
void cufab_le_fabric_init(void);
void cufab_le_fabric_exit(void);

bool cufab_remote_daemon(void);

#endif /* _CUFAB_FABRIC_H */
