/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many nodes (Documentation/multinode.rst): the fabric window every node
 * maps (fabric_window.c) and the imports of other nodes' FABRIC exports,
 * brokered by cufab-imexd (fabric_remote.c).
 */
#ifndef _CUFAB_FABRIC_H
#define _CUFAB_FABRIC_H

#include <linux/types.h>
#include <linux/cufab.h>

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

/* pages_window.c, pages_remote.c */
extern const struct cufab_page_provider cufab_remote_pages;

/* fabric_remote.c: alloc->priv of an import of another node's export */
struct cufab_remote_import {
	unsigned int node;
	u64 offset;
	u64 token;
	u64 generation;	/* the exporter's, when imported (fabric_domain.c) */
};

/* fabric_remote.c */
int cufab_remote_init(void);
void cufab_remote_exit(void);
struct cufab_alloc *cufab_remote_import(struct cufab_client *client,
					const u8 *handle, unsigned int node);
void cufab_remote_show(struct seq_file *m);
bool cufab_remote_daemon(void);

#endif /* _CUFAB_FABRIC_H */
