// SPDX-License-Identifier: GPL-2.0
/*
 * cufab: software emulation of the CUDA driver's fabric-memory API.
 *
 * The module emulates a node of virtual GPUs whose device memory is host
 * memory. Processes talk to it through /dev/cufab (ioctl.c); administrators
 * through the "cufab" generic netlink family (netlink.c).
 *
 * Init order: topology, debugfs, netlink, device node; exit in reverse, so
 * nothing can reach a part that is not set up yet or already gone. The
 * device node comes last because opening it is what lets clients in.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <linux/uuid.h>
#include <linux/cufab.h>
#include <linux/cufab_imex.h>

#include "cufab.h"
#include "fabric.h"

static unsigned int num_gpus = 4;
module_param(num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Number of virtual GPUs, 1..64 (default 4)");

static unsigned long mem_mib = 1024;
module_param(mem_mib, ulong, 0444);
MODULE_PARM_DESC(mem_mib, "Device memory per GPU in MiB (default 1024)");

static char *cliques;
module_param(cliques, charp, 0444);
MODULE_PARM_DESC(cliques,
		 "Fabric cliques, e.g. \"0-3\" or \"0,1;2,3\" (default: one clique of all GPUs)");

static char *numa_nodes;
module_param(numa_nodes, charp, 0444);
MODULE_PARM_DESC(numa_nodes,
		 "Host NUMA node per GPU, e.g. \"0,0,1,1\", -1 for none (default: spread over online nodes)");

static bool nvswitch = true;
module_param(nvswitch, bool, 0444);
MODULE_PARM_DESC(nvswitch,
		 "GPUs of a clique are peers through a virtual NVSwitch, which also enables switch multicast (default Y)");

static char *peers;
module_param(peers, charp, 0444);
MODULE_PARM_DESC(peers, "Peer pairs when nvswitch=0, e.g. \"0-1,2-3\" (default: none)");

static char *features;
module_param(features, charp, 0444);
MODULE_PARM_DESC(features,
		 "Per-GPU feature mask override, e.g. \"0x1ff,0x3\" (default: an H100's on every GPU, 0x17f: all but pageable)");

/*
 * Granularities are checked as they are parsed, so the log names the one
 * parameter at fault; that a RECOMMENDED value is a multiple of its
 * MINIMUM is checked with the topology (cufab_params_gran()).
 */
static unsigned long mem_granularity_kib = CUFAB_MEM_GRAN_DEFAULT >> 10;
static unsigned long mem_granularity_rec_kib;
static unsigned long mc_granularity_kib = CUFAB_MC_GRAN_DEFAULT >> 10;
static unsigned long mc_granularity_rec_kib = CUFAB_MC_GRAN_REC_DEFAULT >> 10;

static int cufab_gran_param_set(const char *val, const struct kernel_param *kp)
{
	enum cufab_gran_rule rule;
	unsigned long kib;

	if (kstrtoul(val, 0, &kib)) {
		pr_err("%s=%s: not a number of KiB\n", kp->name, val);
		return -EINVAL;
	}
	/* 0: "the same as mem_granularity_kib" */
	if (!kib && kp->arg == &mem_granularity_rec_kib)
		goto out;
	rule = kib > (CUFAB_GRAN_MAX >> 10) ? CUFAB_GRAN_TOO_LARGE :
	       cufab_gran_check_value((u64)kib << 10);
	if (rule != CUFAB_GRAN_OK) {
		pr_err("%s=%s: %s (KiB, a power of two from %lu to %llu)\n",
		       kp->name, val, cufab_gran_rule_str(rule),
		       PAGE_SIZE >> 10, CUFAB_GRAN_MAX >> 10);
		return -EINVAL;
	}
out:
	*(unsigned long *)kp->arg = kib;
	return 0;
}

static const struct kernel_param_ops cufab_gran_param_ops = {
	.set = cufab_gran_param_set,
	.get = param_get_ulong,
};

module_param_cb(mem_granularity_kib, &cufab_gran_param_ops,
		&mem_granularity_kib, 0444);
__MODULE_PARM_TYPE(mem_granularity_kib, "ulong");
MODULE_PARM_DESC(mem_granularity_kib,
		 "cuMemCreate MINIMUM granularity of every GPU in KiB, a power of two (default 2048)");
module_param_cb(mem_granularity_rec_kib, &cufab_gran_param_ops,
		&mem_granularity_rec_kib, 0444);
__MODULE_PARM_TYPE(mem_granularity_rec_kib, "ulong");
MODULE_PARM_DESC(mem_granularity_rec_kib,
		 "cuMemCreate RECOMMENDED granularity in KiB, a multiple of mem_granularity_kib (default 0: the same)");
module_param_cb(mc_granularity_kib, &cufab_gran_param_ops,
		&mc_granularity_kib, 0444);
__MODULE_PARM_TYPE(mc_granularity_kib, "ulong");
MODULE_PARM_DESC(mc_granularity_kib,
		 "Multicast MINIMUM granularity of every GPU in KiB, a power of two (default 2048)");
module_param_cb(mc_granularity_rec_kib, &cufab_gran_param_ops,
		&mc_granularity_rec_kib, 0444);
__MODULE_PARM_TYPE(mc_granularity_rec_kib, "ulong");
MODULE_PARM_DESC(mc_granularity_rec_kib,
		 "Multicast RECOMMENDED granularity in KiB, a multiple of mc_granularity_kib (default 524288)");

/*
 * The node's fabric cluster UUID. Given, it lets the nodes (VMs, hosts)
 * that model one NVLink cluster report the same one, and a test fix it;
 * left out, cufab_topo_build() makes a random one. Reading the parameter
 * gives the UUID in use either way.
 */
static uuid_t cluster_uuid;
static bool cluster_uuid_given;

static int cufab_cluster_uuid_set(const char *val,
				  const struct kernel_param *kp)
{
	int ret = cufab_parse_cluster_uuid(val, &cluster_uuid);

	cluster_uuid_given = !ret;
	return ret;
}

static int cufab_cluster_uuid_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%pUb\n", &cufab_node.cluster_uuid);
}

static const struct kernel_param_ops cufab_cluster_uuid_ops = {
	.set = cufab_cluster_uuid_set,
	.get = cufab_cluster_uuid_get,
};

module_param_cb(cluster_uuid, &cufab_cluster_uuid_ops, NULL, 0444);
__MODULE_PARM_TYPE(cluster_uuid, "charp");
MODULE_PARM_DESC(cluster_uuid,
		 "Fabric cluster UUID of the node, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, not nil (default: random at load)");

/*
 * The node's index in its fabric domain (Documentation/multinode.rst):
 * the nodes of one domain give each a different one, so that their GPUs'
 * UUIDs and PCI domains differ. 0, a node alone, gives the identities a
 * single node always had.
 */
static unsigned int node_index;
module_param(node_index, uint, 0444);
MODULE_PARM_DESC(node_index,
		 "Index of this node in its fabric domain, 0..1023; part of every GPU's UUID and PCI domain (default 0)");

/*
 * mmap of /dev/cufab: the page of completion slots (stream.c) at its fixed
 * offset, else the reservation VA_RESERVE is creating (va.c).
 */
static int cufab_fops_mmap(struct file *filp, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff == CUFAB_SEQ_MMAP_OFFSET >> PAGE_SHIFT)
		return cufab_streams_mmap(filp, vma);
	return cufab_va_mmap(filp, vma);
}

static const struct file_operations cufab_fops = {
	.owner = THIS_MODULE,
	.open = cufab_fops_open,
	.release = cufab_fops_release,
	.unlocked_ioctl = cufab_fops_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = cufab_fops_mmap,
	.llseek = no_llseek,
};

/* Any user may open: sharing across processes is checked per operation. */
static struct miscdevice cufab_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = CUFAB_DEVICE_NAME,
	.fops = &cufab_fops,
	.mode = 0666,
};

static int __init cufab_init(void)
{
	const struct cufab_params params = {
		.num_gpus = num_gpus,
		.mem_mib = mem_mib,
		.cliques = cliques,
		.numa_nodes = numa_nodes,
		.nvswitch = nvswitch,
		.peers = peers,
		.features = features,
		.mem_gran_kib = mem_granularity_kib,
		.mem_gran_rec_kib = mem_granularity_rec_kib,
		.mc_gran_kib = mc_granularity_kib,
		.mc_gran_rec_kib = mc_granularity_rec_kib,
		.cluster_uuid = cluster_uuid_given ? &cluster_uuid : NULL,
		.node_index = node_index,
	};
	int ret;

	ret = cufab_topo_build(&cufab_node, &params);
	if (ret)
		return ret;
	ret = cufab_object_caches_init();
	if (ret)
		goto err_topo;
	ret = cufab_le_cache_init();
	if (ret)
		goto err_caches;
	cufab_debugfs_init();
	ret = cufab_nl_init();
	if (ret) {
		pr_err("cannot register generic netlink family \"%s\": %d\n",
		       CUFAB_GENL_NAME, ret);
		goto err_debugfs;
	}
	ret = cufab_imex_init();
	if (ret) {
		pr_err("cannot register the %s char-device region: %d\n",
		       CUFAB_IMEX_REGION_NAME, ret);
		goto err_nl;
	}
	ret = cufab_remote_init();
	if (ret) {
		pr_err("cannot register generic netlink family \"%s\": %d\n",
		       CUFAB_IMEX_GENL_NAME, ret);
		goto err_imex;
	}
	ret = cufab_window_init();
	if (ret) {
		pr_err("cannot register the fabric window's PCI driver: %d\n",
		       ret);
		goto err_remote;
	}
	cufab_team_fabric_init();
	cufab_le_fabric_init();
	ret = misc_register(&cufab_misc);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", CUFAB_DEVICE_NAME, ret);
		goto err_window;
	}
	pr_info("%u virtual GPUs, %lu MiB each, %s, interface %u.%u\n",
		num_gpus, mem_mib, nvswitch ? "NVSwitch" : "no NVSwitch",
		CUFAB_VERSION_MAJOR, CUFAB_VERSION_MINOR);
	return 0;

err_window:
	cufab_le_fabric_exit();
	cufab_team_fabric_exit();
	cufab_window_exit();
err_remote:
	cufab_remote_exit();
err_imex:
	cufab_imex_exit();
err_nl:
	cufab_nl_exit();
err_debugfs:
	cufab_debugfs_exit();
	cufab_le_cache_exit();
err_caches:
	cufab_object_caches_exit();
err_topo:
	cufab_topo_free(&cufab_node);
	return ret;
}

static void __exit cufab_exit(void)
{
	misc_deregister(&cufab_misc);
	cufab_imex_exit();
	cufab_engine_exit();
	/* other nodes' imports hold allocations: before the checks below */
	cufab_remote_exit();
	cufab_team_fabric_exit();
	cufab_le_fabric_exit();
	cufab_fabric_exit();
	cufab_le_share_exit();
	cufab_pools_exit();
	cufab_nl_exit();
	cufab_debugfs_exit();
	/* the window's pages go last: no allocation is left in it */
	cufab_window_exit();
	cufab_le_cache_exit();
	cufab_object_caches_exit();
	cufab_topo_free(&cufab_node);
}

module_init(cufab_init);
module_exit(cufab_exit);

MODULE_DESCRIPTION("cufab: virtual GPUs emulating the CUDA fabric-memory API");
MODULE_AUTHOR("The cufab authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(__stringify(CUFAB_VERSION_MAJOR) "."
	       __stringify(CUFAB_VERSION_MINOR));
