/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the logical endpoint selftests (le_test, le_ring_test):
 * endpoint properties, readiness polling, module parameters, the IMEX
 * channel node the library opens for FABRIC handles.
 */
#ifndef _CUFAB_LE_HELPERS_H
#define _CUFAB_LE_HELPERS_H

#include <stdint.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mem_helpers.h"
#include "cufab_uapi.h"

#define GIB		(1024ULL * MIB)
#define LE_GRAN		(2 * MIB)	/* bind alignment of the default node */
#define LE_SIZE		(64 * MIB)
#define FABRIC		CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC

static inline CUlogicalEndpointProp uprop(int dev, unsigned long long size,
					  unsigned int ipc)
{
	return (CUlogicalEndpointProp){
		.type = CU_LOGICAL_ENDPOINT_TYPE_UNICAST,
		.unicast.device = dev, .size = size, .ipcHandleTypes = ipc,
	};
}

static inline CUlogicalEndpointProp mprop(unsigned int n,
					  unsigned long long size,
					  unsigned int ipc)
{
	return (CUlogicalEndpointProp){
		.type = CU_LOGICAL_ENDPOINT_TYPE_MULTICAST,
		.multicast.numDevices = n, .size = size, .ipcHandleTypes = ipc,
	};
}

static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Poll cuLogicalEndpointQuery until [id, id + count) is ready, as the
 * programming guide does: CUDA_SUCCESS, the failing CUresult, or
 * CUDA_ERROR_TIMEOUT after @ms.
 */
static inline CUresult le_wait_ready(CUlogicalEndpointId id, unsigned int count,
				     int ms)
{
	double end = now_ms() + ms;
	int ready = 0;
	CUresult r;

	for (;;) {
		r = cuLogicalEndpointQuery(id, count, &ready);
		if (r || ready)
			return r;
		if (now_ms() > end)
			return CUDA_ERROR_TIMEOUT;
		usleep(2000);
	}
}

/*
 * Make /dev/cufab-imex-channels/channel0 exist (root-only, as an
 * administrator would), so that the library finds a channel for FABRIC
 * handles; 0, or an errno (ENODEV: no IMEX region).
 */
static inline int le_channel0(void)
{
	char path[64];
	int ret = imex_node(0, path, sizeof(path));

	if (ret)
		return ret;
	if (chmod(path, 0600) || chown(path, 0, 0))
		return errno;
	return 0;
}

/* cuInit first: 0 also when the attribute cannot be read. */
static inline int le_multicast_supported(int dev)
{
	int v = 0;

	if (cuInit(0) || cuDeviceGetAttribute(&v,
			CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED, dev))
		return 0;
	return v;
}

/*
 * The same, asked by a child: the caller opens no client, so cufabctl may
 * still change the GPUs (dev set refuses while clients are open).
 */
static inline int le_multicast_supported_forked(int dev)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(le_multicast_supported(dev));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 0;
	return WEXITSTATUS(status);
}

/*
 * In a test whose fixture has le_mc (le_multicast_supported(0)): a node
 * without an NVSwitch (nvswitch=0) has no multicast endpoints.
 */
#define NEED_LE_MULTICAST() do {					\
	if (!self->le_mc)						\
		SKIP(return, "no multicast endpoints on GPU 0 (nvswitch=0?)"); \
} while (0)

/* A cuMemCreate allocation of @len on @dev with @types handle types. */
static inline CUresult mem_on(CUmemGenericAllocationHandle *h, int dev,
			      size_t len, unsigned int types)
{
	CUmemAllocationProp p = dev_prop(dev, types);

	return cuMemCreate(h, len, &p, 0);
}

/* Reserve one id, create @prop there and wait until it is ready. */
static inline CUresult le_make(CUlogicalEndpointId *id,
			       const CUlogicalEndpointProp *prop)
{
	CUresult r = cuLogicalEndpointIdReserve(id, 1);

	if (!r)
		r = cuLogicalEndpointCreate(*id, prop);
	if (!r && prop->type == CU_LOGICAL_ENDPOINT_TYPE_UNICAST)
		r = le_wait_ready(*id, 1, 5000);
	return r;
}

/* Destroy and release one id made by le_make(). */
static inline CUresult le_drop(CUlogicalEndpointId id)
{
	CUresult r = cuLogicalEndpointDestroy(id);

	return r ? r : cuLogicalEndpointIdRelease(id, 1);
}

#endif /* _CUFAB_LE_HELPERS_H */
