// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuInit and cuDriverGetVersion.
 *
 * cuInit opens this process's client of /dev/cufab, checks the interface
 * version, reads every GPU's description once and applies
 * CUDA_VISIBLE_DEVICES. Every other call except the error-string,
 * version and entry-point queries returns CUDA_ERROR_NOT_INITIALIZED
 * until it has succeeded.
 */
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

static CUresult cufab_init_locked(void)
{
	__u32 num_gpus = 0;
	CUresult res;

	res = cufab_open(&num_gpus);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_devices_load(num_gpus);
	if (res != CUDA_SUCCESS) {
		cufab_close();
		return res;
	}
	cufab.num_dev = cufab_visible_parse(getenv("CUDA_VISIBLE_DEVICES"),
					    cufab.kdev, cufab.num_kdev,
					    cufab.visible);
	if (cufab.num_dev == 0) {
		cufab_dbg("no visible GPU (CUDA_VISIBLE_DEVICES=\"%s\")",
			  getenv("CUDA_VISIBLE_DEVICES") ?: "");
		cufab_close();
		return CUDA_ERROR_NO_DEVICE;
	}
	__atomic_store_n(&cufab_initialized, 1, __ATOMIC_RELEASE);
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuInit(unsigned int Flags)
{
	CUresult res = CUDA_SUCCESS;

	if (Flags != 0)
		return CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&cufab_lock);
	/*
	 * cufab_initialized is written under cufab_lock: a plain read here.
	 * A child made without atfork handlers still has the parent's state.
	 */
	if (cufab_initialized && cufab.pid != getpid())
		cufab_reset_locked();
	if (!cufab_initialized)
		res = cufab_init_locked();
	pthread_mutex_unlock(&cufab_lock);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = CUDA_VERSION;
	return CUDA_SUCCESS;
}
