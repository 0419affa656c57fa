/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logical endpoints (cuLogicalEndpoint*, Compute Fabric Transport).
 *
 * An endpoint is node-wide and reference counted; a process names it by
 * ids of its own id space. Each id that names an endpoint is an alias
 * (created by LE_CREATE or LE_IMPORT) holding one reference, so several
 * ids, in one process or many, may name one endpoint and the endpoint dies
 * with its last alias. What is bound lives in the endpoint's team
 * (team.h): a unicast endpoint is a team of one, its owner device.
 *
 *   le.c          id space, endpoint lifetime, create/destroy/query/limits
 *   le_bind.c     add device, bind, unbind
 *   le_share.c    FABRIC export/import
 *   le_netlink.c  CUFAB_NL_CMD_LE_GET
 *
 * Locking: a client's le.lock serialises its endpoint calls and protects
 * its id space and aliases; it is taken before a team's lock and before
 * the export table's lock. Endpoint fields other than @ready_at and the
 * export state never change after create.
 */
#ifndef _CUFAB_LE_H
#define _CUFAB_LE_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "idrange.h"

struct cufab_client;
struct cufab_team;
struct cufab_ucmd;
struct sk_buff;
struct netlink_callback;

/**
 * struct cufab_le_space - the endpoint ids of one client
 * @lock: serialises the client's endpoint calls; protects the rest
 * @ids: reserved ranges
 * @aliases: struct cufab_le_alias by id, for associated ids only
 * @dead: the client is going away; nothing may be added any more
 */
struct cufab_le_space {
	struct mutex lock;	/* see above */
	struct cufab_idspace ids;
	struct xarray aliases;
	bool dead;
};

/**
 * struct cufab_le - one endpoint
 * @ref: one per alias, one per call in progress, one per export lookup
 * @number: node-wide, never reused while the module is loaded
 * @type: CUFAB_LE_TYPE_*
 * @owner_dev: unicast: the owner GPU; multicast: unused
 * @length: bytes bindable per device
 * @ipc_types: CUFAB_LE_IPC_* requested at create
 * @le_flags: CUFAB_LE_FLAG_*
 * @align: bind alignment
 * @team: devices and bindings
 * @ready_at: jiffies when construction ends (pushed by each AddDevice)
 * @aliases: ids naming the endpoint node-wide
 * @creator_pid: tgid of the creating process
 * @exporter_pid: tgid of the first exporter, 0 while never exported
 * @exports: struct cufab_le_export records (le_share.c), under its lock
 */
struct cufab_le {
	struct kref ref;
	u64 number;
	u32 type;
	u32 owner_dev;
	u64 length;
	u32 ipc_types;
	u32 le_flags;
	u64 align;
	struct cufab_team *team;
	unsigned long ready_at;
	atomic_t aliases;
	pid_t creator_pid;
	pid_t exporter_pid;
	struct list_head exports;
};

/**
 * struct cufab_le_alias - an associated id
 * @le: one reference
 * @id: the id
 * @imported: made by LE_IMPORT
 * @queried_ready: LE_QUERY reported the endpoint ready through this id
 */
struct cufab_le_alias {
	struct cufab_le *le;
	u32 id;
	bool imported;
	bool queried_ready;
};

/* le.c */
void cufab_le_space_init(struct cufab_le_space *space);
void cufab_le_space_destroy(struct cufab_client *client);
void cufab_le_put(struct cufab_le *le);
bool cufab_le_ready(struct cufab_le *le);
struct cufab_le_alias *cufab_le_alias_find(struct cufab_client *client,
					   u32 id, const char *what);
int cufab_le_alias_add(struct cufab_client *client, u32 id,
		       struct cufab_le *le, bool imported);
u64 cufab_le_count(void);
unsigned long cufab_le_deadline(void);
int cufab_le_gpu(u32 index, u32 *features, u32 *clique);

int cufab_ioctl_le_id_reserve(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_id_release(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_create(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_destroy(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_query(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_get_limits(struct cufab_ucmd *ucmd);

/* le_bind.c */
int cufab_ioctl_le_add_device(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_bind(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_unbind(struct cufab_ucmd *ucmd);

/* le_share.c */
void cufab_le_exports_drop(struct cufab_le *le);
int cufab_ioctl_le_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_le_import(struct cufab_ucmd *ucmd);
void cufab_le_share_exit(void);

/* le_netlink.c */
int cufab_nl_le_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _CUFAB_LE_H */
