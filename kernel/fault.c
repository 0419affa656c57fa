// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection points (see fault.h). Each class of operation has its own
 * fault_attr so a test can fail exactly the step it wants to exercise;
 * /proc/<pid>/task/<tid>/fail-nth walks all of them in call order.
 */
#include <linux/debugfs.h>
#include <linux/err.h>

#include "fault.h"

#ifdef CONFIG_FAULT_INJECTION
struct fault_attr cufab_faults[CUFAB_FAULT_NR] = {
	[0 ... CUFAB_FAULT_NR - 1] = FAULT_ATTR_INITIALIZER,
};

static const char *const cufab_fault_names[CUFAB_FAULT_NR] = {
	[CUFAB_FAULT_CLIENT_OPEN] = "fail_client_open",
	[CUFAB_FAULT_OBJECT_ALLOC] = "fail_object_alloc",
	[CUFAB_FAULT_CTX_CREATE] = "fail_ctx_create",
	[CUFAB_FAULT_MEM_CREATE] = "fail_mem_create",
	[CUFAB_FAULT_MEM_MAP] = "fail_mem_map",
	[CUFAB_FAULT_MEM_PAGE] = "fail_mem_page",
	[CUFAB_FAULT_MEM_SHARE] = "fail_mem_share",
	[CUFAB_FAULT_BIND] = "fail_bind",
	[CUFAB_FAULT_LE] = "fail_le",
	[CUFAB_FAULT_MC] = "fail_mc",
	[CUFAB_FAULT_PEER] = "fail_peer",
	[CUFAB_FAULT_STREAM] = "fail_stream",
	[CUFAB_FAULT_STREAM_EXEC] = "fail_stream_exec",
	[CUFAB_FAULT_POOL] = "fail_pool",
};

/**
 * cufab_fault_debugfs_init() - one fault_attr directory per point
 * @parent: the module's debugfs directory
 *
 * Without CONFIG_FAULT_INJECTION_DEBUG_FS the points still count for
 * fail-nth; only the knobs are missing.
 */
void cufab_fault_debugfs_init(struct dentry *parent)
{
	unsigned int i;

	for (i = 0; i < CUFAB_FAULT_NR; i++)
		fault_create_debugfs_attr(cufab_fault_names[i], parent,
					  &cufab_faults[i]);
}
#else
void cufab_fault_debugfs_init(struct dentry *parent)
{
}
#endif
