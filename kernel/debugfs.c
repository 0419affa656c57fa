// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/cufab: state for tests and for people debugging.
 *
 *   live_objects  objects allocated and not yet freed, all clients
 *                 together; back to its previous value once a process's
 *                 client is gone, 0 with no client open
 *   clients       "pid comm objects", one line per open /dev/cufab
 *   gpus          the topology, one line per GPU
 *   mem           per-GPU memory use, then the live allocations with
 *                 their owner (alloc.c)
 *   fabric_exports  FABRIC export records: "id channel alloc length
 *                 owner_pid owner_comm" (share_fabric.c)
 *   window        the fabric window: device, geometry, this node's
 *                 slice and what is free in it, or "none" (fabric_window.c)
 *   fabric_remote the registered cufab-imexd's port, then one line per
 *                 import another node holds of this node's memory
 *                 (fabric_remote.c)
 *   streams       one line per stream of every client: queue depth, the
 *                 operation running, sequence numbers (stream.c)
 *   fail_*        fault_attr directories (see fault.h)
 *
 * Failure to create debugfs entries is not an error (debugfs is optional).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cufab.h"
#include "fabric.h"

static struct dentry *cufab_debugfs_root;

static int live_objects_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%llu\n", cufab_live_objects());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(live_objects);

static int clients_show(struct seq_file *m, void *unused)
{
	cufab_clients_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(clients);

static int gpus_show(struct seq_file *m, void *unused)
{
	cufab_node_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gpus);

static int mem_show(struct seq_file *m, void *unused)
{
	cufab_allocs_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mem);

static int fabric_exports_show(struct seq_file *m, void *unused)
{
	cufab_fabric_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fabric_exports);

static int window_show(struct seq_file *m, void *unused)
{
	cufab_window_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(window);

static int fabric_remote_show(struct seq_file *m, void *unused)
{
	cufab_remote_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fabric_remote);

static int streams_show(struct seq_file *m, void *unused)
{
	cufab_streams_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(streams);
static int pools_show(struct seq_file *m, void *unused)
{
	cufab_pools_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pools);

void cufab_debugfs_init(void)
{
	struct dentry *root;

	root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	cufab_debugfs_root = root;
	debugfs_create_file("live_objects", 0444, root, NULL,
			    &live_objects_fops);
	debugfs_create_file("clients", 0444, root, NULL, &clients_fops);
	debugfs_create_file("gpus", 0444, root, NULL, &gpus_fops);
	debugfs_create_file("mem", 0444, root, NULL, &mem_fops);
	debugfs_create_file("fabric_exports", 0444, root, NULL,
			    &fabric_exports_fops);
	debugfs_create_file("window", 0444, root, NULL, &window_fops);
	debugfs_create_file("fabric_remote", 0444, root, NULL,
			    &fabric_remote_fops);
	debugfs_create_file("streams", 0444, root, NULL, &streams_fops);
	debugfs_create_file("pools", 0444, root, NULL, &pools_fops);
	cufab_fault_debugfs_init(root);
}

void cufab_debugfs_exit(void)
{
	debugfs_remove(cufab_debugfs_root);
	cufab_debugfs_root = NULL;
}
