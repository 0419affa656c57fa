/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection points, one per class of operation.
 *
 * Each is a struct fault_attr exposed as /sys/kernel/debug/cufab/<name>/
 * (probability, times, verbose, task-filter ...) and also counted by
 * /proc/<pid>/task/<tid>/fail-nth. Without CONFIG_FAULT_INJECTION every
 * point compiles to "never fail".
 */
#ifndef _CUFAB_FAULT_H
#define _CUFAB_FAULT_H

#include <linux/fault-inject.h>
#include <linux/types.h>

struct dentry;

enum cufab_fault {
	CUFAB_FAULT_CLIENT_OPEN,	/* fail_client_open */
	CUFAB_FAULT_OBJECT_ALLOC,	/* fail_object_alloc */
	CUFAB_FAULT_CTX_CREATE,		/* fail_ctx_create */
	CUFAB_FAULT_MEM_CREATE,		/* fail_mem_create */
	CUFAB_FAULT_MEM_MAP,		/* fail_mem_map */
	CUFAB_FAULT_MEM_PAGE,		/* fail_mem_page */
	CUFAB_FAULT_MEM_SHARE,		/* fail_mem_share */
	CUFAB_FAULT_BIND,		/* fail_bind: team/bindmap/idrange memory */
	CUFAB_FAULT_LE,			/* fail_le: endpoints, aliases, exports */
	CUFAB_FAULT_MC,			/* fail_mc: multicast objects, multimem */
	CUFAB_FAULT_PEER,		/* fail_peer: peer access links */
	CUFAB_FAULT_STREAM,		/* fail_stream: streams, events, submissions */
	CUFAB_FAULT_STREAM_EXEC,	/* fail_stream_exec: an operation on the engine */
	CUFAB_FAULT_POOL,		/* fail_pool: pools, chunks, pool exports */
	CUFAB_FAULT_NR,
};

#ifdef CONFIG_FAULT_INJECTION
extern struct fault_attr cufab_faults[CUFAB_FAULT_NR];

static inline bool cufab_should_fail(enum cufab_fault fault)
{
	return should_fail(&cufab_faults[fault], 1);
}
#else
static inline bool cufab_should_fail(enum cufab_fault fault)
{
	return false;
}
#endif

void cufab_fault_debugfs_init(struct dentry *parent);

#endif /* _CUFAB_FAULT_H */
