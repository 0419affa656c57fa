// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_state (fabric_health.c): "ok", "not-ready", "illegal-state" or
 * "degraded", readable and writable at runtime through
 * /sys/module/cufab/parameters/fabric_state (root only), so it works on
 * kernels without debugfs or fault injection, and through netlink TOPO_SET.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "cufab.h"

static const char *const cufab_health_names[] = {
	[CUFAB_FABRIC_OK] = "ok",
	[CUFAB_FABRIC_NOT_READY] = "not-ready",
	[CUFAB_FABRIC_ILLEGAL] = "illegal-state",
	[CUFAB_FABRIC_DEGRADED] = "degraded",
};

static int cufab_health_state = CUFAB_FABRIC_OK;

void cufab_health_state_set_now(u32 state)
{
	WRITE_ONCE(cufab_health_state, state);
	pr_info("fabric state is now %s\n", cufab_health_names[state]);
}

static int cufab_health_state_set(const char *val,
				  const struct kernel_param *kp)
{
	int state = sysfs_match_string(cufab_health_names, val);

	if (state < 0) {
		pr_err("fabric_state=%s: must be ok, not-ready, illegal-state or degraded\n",
		       val);
		return -EINVAL;
	}
	cufab_health_state_set_now(state);
	return 0;
}

static int cufab_health_state_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  cufab_health_names[READ_ONCE(cufab_health_state)]);
}

static const struct kernel_param_ops cufab_health_state_ops = {
	.set = cufab_health_state_set,
	.get = cufab_health_state_get,
};

module_param_cb(fabric_state, &cufab_health_state_ops, NULL, 0644);
__MODULE_PARM_TYPE(fabric_state, "charp");
MODULE_PARM_DESC(fabric_state,
		 "Emulated fabric software health: ok, not-ready (binds and AddDevice fail with CUDA_ERROR_SYSTEM_NOT_READY), illegal-state (CUDA_ERROR_ILLEGAL_STATE) or degraded (usable; NVML reports degraded bandwidth) (default ok)");

int cufab_health_check(const char *obj, const char *what)
{
	switch (READ_ONCE(cufab_health_state)) {
	case CUFAB_FABRIC_NOT_READY:
		pr_info_ratelimited("%s: %s refused: the fabric software is not ready (fabric_state=not-ready); retry once the fabric manager and IMEX daemon run again\n",
				    obj, what);
		return -EHOSTDOWN;
	case CUFAB_FABRIC_ILLEGAL:
		pr_info_ratelimited("%s: %s refused: the fabric is in an illegal state (fabric_state=illegal-state); check the NVSwitch and fabric manager, not the caller\n",
				    obj, what);
		return -ENOTRECOVERABLE;
	default:
		return 0;
	}
}

u32 cufab_health_state_now(void)
{
	return READ_ONCE(cufab_health_state);
}
