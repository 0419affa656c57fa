/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Peer context access (cuCtxEnablePeerAccess, cuCtxDisablePeerAccess): the
 * one-way links from a context to a peer context of the same client, and
 * the node-wide count of distinct peer GPUs each GPU has links to.
 */
#ifndef _CUFAB_PEER_H
#define _CUFAB_PEER_H

#include <linux/types.h>
#include <linux/cufab.h>

struct cufab_client;
struct cufab_ucmd;
struct netlink_callback;
struct sk_buff;

/**
 * struct cufab_peer_counts - peer connections of every GPU
 * @links: @links[a][b] context links from GPU a to GPU b, node-wide
 * @peers: @peers[a] GPUs b with @links[a][b] > 0: the peer connections
 *	GPU a uses, which max_peers limits
 */
struct cufab_peer_counts {
	u32 links[CUFAB_MAX_GPUS][CUFAB_MAX_GPUS];
	u32 peers[CUFAB_MAX_GPUS];
};

/* No limit on peer connections (cufab_peer_counts_get()'s @max). */
#define CUFAB_PEERS_UNLIMITED	U32_MAX

int cufab_peer_counts_get(struct cufab_peer_counts *c, u32 gpu, u32 peer,
			  u32 max);
void cufab_peer_counts_put(struct cufab_peer_counts *c, u32 gpu, u32 peer);

int cufab_ioctl_peer_enable(struct cufab_ucmd *ucmd);
int cufab_ioctl_peer_disable(struct cufab_ucmd *ucmd);
void cufab_peer_ctx_destroy(struct cufab_client *client, u32 ctx_id);
u32 cufab_peer_gpu_count(u32 gpu);
int cufab_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _CUFAB_PEER_H */
