/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many nodes (Documentation/multinode.rst): the fabric window every node
 * maps (fabric_window.c) and the imports of other nodes' FABRIC exports,
 * brokered by cufab-imexd (fabric_remote.c).
 */
#ifndef _CUFAB_FABRIC_H
#define _CUFAB_FABRIC_H

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
bool cufab_window_owns(u64 offset, u64 length, unsigned int node);
void cufab_window_show(struct seq_file *m);
extern const struct cufab_page_provider cufab_window_pages;
u64 cufab_window_alloc_offset(const struct cufab_alloc *alloc);

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

u64 cufab_domain_header_size(unsigned int nodes, u64 unit);
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
void cufab_team_fabric_init(void);
void cufab_team_fabric_exit(void);
int cufab_imex_team_join_doit(struct sk_buff *skb, struct genl_info *info);
int cufab_imex_team_state_doit(struct sk_buff *skb, struct genl_info *info);

bool cufab_remote_daemon(void);

#endif /* _CUFAB_FABRIC_H */
