/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many nodes (Documentation/multinode.rst): the fabric window every node
 * maps (fabric_window.c) and the imports of other nodes' FABRIC exports,
 * brokered by cufab-imexd (fabric_remote.c).
 */
#ifndef _CUFAB_FABRIC_H
#define _CUFAB_FABRIC_H

#include <linux/types.h>

struct cufab_alloc;
struct cufab_page_provider;
struct cufab_client;
struct seq_file;
struct page;

/* fabric_window.c */
int cufab_window_init(void);
void cufab_window_exit(void);
bool cufab_window_present(void);
unsigned int cufab_domain_nodes(void);
struct page *cufab_window_page(u64 offset);
int cufab_window_reserve(u64 length, u64 *offset);
void cufab_window_unreserve(u64 offset, u64 length);
bool cufab_window_owns(u64 offset, u64 length, unsigned int node);
void cufab_window_show(struct seq_file *m);
extern const struct cufab_page_provider cufab_window_pages;
u64 cufab_window_alloc_offset(const struct cufab_alloc *alloc);

/* pages_window.c, pages_remote.c */
extern const struct cufab_page_provider cufab_remote_pages;

/* fabric_remote.c: alloc->priv of an import of another node's export */
struct cufab_remote_import {
	unsigned int node;
	u64 offset;
	u64 token;
};

/* fabric_remote.c */
int cufab_remote_init(void);
void cufab_remote_exit(void);
struct cufab_alloc *cufab_remote_import(struct cufab_client *client,
					const u8 *handle, unsigned int node);
void cufab_remote_show(struct seq_file *m);
void cufab_remote_release_send(unsigned int node, u64 token);
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

#endif /* _CUFAB_FABRIC_H */
