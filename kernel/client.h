/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A client is one open file of /dev/cufab. It belongs to the process that
 * opened it and holds every object that process created; closing the file
 * (or the death of the process) destroys them all.
 */
#ifndef _CUFAB_CLIENT_H
#define _CUFAB_CLIENT_H

#include <linux/list.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "le.h"
#include "va.h"

struct file;
struct inode;
struct pid;
struct seq_file;
struct cufab_stream_space;

/**
 * struct cufab_client - one open /dev/cufab
 * @objects: the client's objects by id (XA_FLAGS_ALLOC1: id 0 is never used)
 * @tgid: thread group that opened the file; only it may use the file
 * @comm: name of the opener, for messages and debugfs
 * @node: entry in the global client list
 * @imex_channel: IMEX channel (minor) the client presented with
 *	IMEX_SET_CHANNEL, CUFAB_IMEX_NO_CHANNEL (-1) for none (imex.c)
 * @imex_flags: CUFAB_CLIENT_IMEX_* bits (imex.c)
 * @file: the open file (not a reference: the file owns the client); VA
 *	reservations are vm_mmap()s of it (va.c)
 * @va: address reservations and their mappings (va.c)
 * @le: logical endpoint ids and aliases (le.c)
 * @streams: streams, events, completion slots; NULL until first used
 *	(stream.c)
 */
struct cufab_client {
	struct xarray objects;
	struct pid *tgid;
	char comm[TASK_COMM_LEN];
	struct list_head node;
	int imex_channel;
	unsigned long imex_flags;
	struct file *file;
	struct cufab_va_space va;
	struct cufab_le_space le;
	struct cufab_stream_space *streams;
};

/* imex_flags: the "needs an IMEX channel" hint was logged for this client */
#define CUFAB_CLIENT_IMEX_WARNED	0

/*
 * One ratelimited line (per call site) for a refused call, naming the
 * process that made it.
 */
#define cufab_client_info(client, fmt, ...)				\
	do {								\
		const struct cufab_client *__c = (client);		\
									\
		pr_info_ratelimited("pid %d (%s): " fmt,		\
				    pid_nr(__c->tgid), __c->comm,	\
				    ##__VA_ARGS__);			\
	} while (0)

struct cufab_client *cufab_client_alloc(void);
void cufab_client_free(struct cufab_client *client);
void cufab_client_register(struct cufab_client *client);
void cufab_client_unregister(struct cufab_client *client);
bool cufab_client_is_owner(const struct cufab_client *client);

int cufab_fops_open(struct inode *inode, struct file *filp);
int cufab_fops_release(struct inode *inode, struct file *filp);

int cufab_clients_block(void);
void cufab_clients_unblock(void);
unsigned int cufab_clients_count(void);
void cufab_clients_show(struct seq_file *m);
int cufab_clients_for_each(unsigned long skip,
			   int (*fn)(struct cufab_client *client, void *arg),
			   void *arg);

#endif /* _CUFAB_CLIENT_H */
