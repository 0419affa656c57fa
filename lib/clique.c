// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Fabric cliques of a device (CUDA 13.3): cuDeviceGetCliqueCount,
 * cuDeviceGetCliqueInfo and cuDeviceGetFabricClusterUuid, answered from
 * the device table cuInit read.
 *
 * A virtual GPU is in one fabric clique (module parameter cliques). It
 * reports that clique once per way it can be reached: always as
 * UNICAST_POINTER; as MULTICAST_POINTER when multicast objects work on it
 * (effective feature MULTICAST, i.e. an NVSwitch); as
 * UNICAST_LOGICAL_ENDPOINT and MULTICAST_LOGICAL_ENDPOINT when it supports
 * those endpoints (attributes 153 and 154). The id is the clique number,
 * so two devices can reach each other a given way exactly when they
 * report the same {type, id}.
 *
 * The cliques are partitions of one NVLink fabric cluster, whose UUID the
 * kernel keeps for the node (module parameter cluster_uuid, else random at
 * load). A GPU is in it when it is on the fabric: fabric handles
 * (attribute 128) behind the NVSwitch; the kernel reports all zeros for
 * any other GPU.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"

_Static_assert(sizeof(CUcliqueInfo) == 8, "CUcliqueInfo is {type, id}");

/* The cliques of @d in type order; returns how many (at most 4). */
static size_t clique_list(const struct cufab_device *d, CUcliqueInfo out[4])
{
	size_t n = 0;

	out[n++] = (CUcliqueInfo){ CU_CLIQUE_TYPE_UNICAST_POINTER, d->clique_id };
	if (d->features & CUFAB_DEV_F_MULTICAST)
		out[n++] = (CUcliqueInfo){ CU_CLIQUE_TYPE_MULTICAST_POINTER,
					   d->clique_id };
	if (d->features & CUFAB_DEV_F_LE_UNICAST)
		out[n++] = (CUcliqueInfo){ CU_CLIQUE_TYPE_UNICAST_LOGICAL_ENDPOINT,
					   d->clique_id };
	if (d->features & CUFAB_DEV_F_LE_MULTICAST)
		out[n++] = (CUcliqueInfo){ CU_CLIQUE_TYPE_MULTICAST_LOGICAL_ENDPOINT,
					   d->clique_id };
	return n;
}

/*
 * The checks every call of the group makes, in CUDA's order: initialised,
 * then the caller's pointers (@args_ok, whose text the refusal's line
 * gives), then the ordinal.
 */
#define clique_device(args_ok, dev, d) \
	cufab_call_dev(args_ok, dev, CUDA_ERROR_INVALID_DEVICE, d)

CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetCliqueCount(size_t *count, CUdevice dev)
{
	const struct cufab_device *d;
	CUcliqueInfo list[4];
	CUresult res;

	res = clique_device(count, dev, &d);
	if (res != CUDA_SUCCESS)
		return res;
	*count = clique_list(d, list);
	return CUDA_SUCCESS;
}

/*
 * *count is in/out: in, the entries @info has room for; out, the entries
 * written. A smaller *count gets the first *count cliques (in type order)
 * and CUDA_SUCCESS, so callers size the array with cuDeviceGetCliqueCount.
 * A zero *count writes nothing and may come with a NULL @info.
 */
CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetCliqueInfo(CUcliqueInfo *info,
						    size_t *count, CUdevice dev)
{
	const struct cufab_device *d;
	CUcliqueInfo list[4];
	CUresult res;
	size_t n, i;

	res = clique_device(count && (!*count || info), dev, &d);
	if (res != CUDA_SUCCESS)
		return res;
	n = clique_list(d, list);
	if (n > *count)
		n = *count;
	for (i = 0; i < n; i++)
		info[i] = list[i];
	*count = n;
	return CUDA_SUCCESS;
}

/*
 * A GPU not on the fabric is in no cluster: CUDA_ERROR_NOT_SUPPORTED, and
 * *uuid is left alone. A bad ordinal is CUDA_ERROR_INVALID_DEVICE, as for
 * the other clique calls and cuDeviceGetUuid (NVIDIA's list omits it).
 */
CUFAB_EXPORT CUresult CUDAAPI cuDeviceGetFabricClusterUuid(CUuuid *uuid,
							   CUdevice dev)
{
	static const __u8 nil[CUFAB_UUID_LEN];
	const struct cufab_device *d;
	CUresult res;

	_Static_assert(sizeof(uuid->bytes) == sizeof(d->cluster_uuid),
		       "CUuuid is 16 bytes");
	res = clique_device(uuid, dev, &d);
	if (res != CUDA_SUCCESS)
		return res;
	if (!memcmp(d->cluster_uuid, nil, sizeof(nil)))
		return CUDA_ERROR_NOT_SUPPORTED;
	memcpy(uuid->bytes, d->cluster_uuid, sizeof(uuid->bytes));
	return CUDA_SUCCESS;
}
