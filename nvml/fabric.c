// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * nvmlDeviceGetGpuFabricInfo and nvmlDeviceGetGpuFabricInfoV: a GPU's
 * place in the NVLink fabric, from the node TOPO_GET reports.
 *
 * A GPU is on the fabric when libcufab says so: behind the virtual
 * NVSwitch with fabric handles (the GPUs cuDeviceGetFabricClusterUuid
 * answers for). The others report state NOT_SUPPORTED, as a GPU without
 * NVSwitch does on NVIDIA's driver; communication libraries read that as
 * "no multi-node NVLink" and fall back.
 *
 * For a GPU on the fabric the state follows the fabric software's health
 * (module parameter fabric_state, settable at runtime):
 *   ok             COMPLETED, status SUCCESS, the node's cluster UUID and
 *                  the GPU's clique (cuDeviceGetCliqueInfo's id), healthy
 *   not-ready      IN_PROGRESS: the fabric manager has not registered the
 *                  GPU yet, so no cluster, clique or health yet
 *   illegal-state  COMPLETED with status INVALID_STATE (the probe ended
 *                  in error; CUDA says CUDA_ERROR_ILLEGAL_STATE), route
 *                  unhealthy, summary UNHEALTHY
 *   degraded       as ok, but degraded bandwidth, summary LIMITED_CAPACITY
 *                  (the fabric works with fewer links)
 */
#include <string.h>

#include "nvml_internal.h"

struct fabric {
	nvmlGpuFabricState_t state;
	nvmlReturn_t status;
	unsigned char uuid[NVML_GPU_FABRIC_UUID_LEN];
	unsigned int clique;
	unsigned int health_mask;
	unsigned char health_summary;
};

#define HEALTH(field, val)						\
	(NVML_GPU_FABRIC_HEALTH_MASK_##field##_##val <<			\
	 NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_##field)

/* Every health field NVML defines, none of them in trouble. */
#define HEALTH_GOOD							\
	(HEALTH(DEGRADED_BW, FALSE) | HEALTH(ROUTE_RECOVERY, FALSE) |	\
	 HEALTH(ROUTE_UNHEALTHY, FALSE) |					\
	 HEALTH(ACCESS_TIMEOUT_RECOVERY, FALSE) |			\
	 HEALTH(INCORRECT_CONFIGURATION, NONE))

static void fabric_of(const struct nvml_topo *t, const struct nvml_gpu *g,
		      struct fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->status = NVML_SUCCESS;
	if (!t->nvswitch || !(g->features & CUFAB_DEV_F_FABRIC_HANDLE)) {
		f->state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
		return;
	}
	switch (t->fabric_state) {
	case CUFAB_FABRIC_NOT_READY:
		f->state = NVML_GPU_FABRIC_STATE_IN_PROGRESS;
		break;
	case CUFAB_FABRIC_ILLEGAL:
		f->state = NVML_GPU_FABRIC_STATE_COMPLETED;
		f->status = NVML_ERROR_INVALID_STATE;
		f->health_mask = HEALTH_GOOD &
				 ~(NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_UNHEALTHY <<
				   NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY);
		f->health_mask |= HEALTH(ROUTE_UNHEALTHY, TRUE);
		f->health_summary = NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY;
		break;
	default:
		f->state = NVML_GPU_FABRIC_STATE_COMPLETED;
		memcpy(f->uuid, t->cluster_uuid, sizeof(f->uuid));
		f->clique = g->clique;
		f->health_mask = HEALTH_GOOD;
		f->health_summary = NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY;
		break;
	}
	if (t->fabric_state == CUFAB_FABRIC_DEGRADED) {
		f->health_mask &= ~(NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_DEGRADED_BW <<
				    NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW);
		f->health_mask |= HEALTH(DEGRADED_BW, TRUE);
		f->health_summary = NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY;
	}
}

/* The device's fabric, after the checks every device query makes. */
static nvmlReturn_t fabric_get(nvmlDevice_t device, const void *out,
			       struct fabric *f)
{
	const struct nvml_gpu *g;
	struct nvml_topo *t;
	nvmlReturn_t res;

	res = nvml_device(device, !!out, &t, &g);
	if (res != NVML_SUCCESS)
		return res;
	fabric_of(t, g, f);
	nvml_topo_put(t);
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device,
						    nvmlGpuFabricInfo_t *gpuFabricInfo)
{
	struct fabric f;
	nvmlReturn_t res;

	res = fabric_get(device, gpuFabricInfo, &f);
	if (res != NVML_SUCCESS)
		return res;
	memcpy(gpuFabricInfo->clusterUuid, f.uuid, sizeof(f.uuid));
	gpuFabricInfo->status = f.status;
	gpuFabricInfo->cliqueId = f.clique;
	gpuFabricInfo->state = f.state;
	return NVML_SUCCESS;
}

/* The caller's version says which struct it passed: _v2 lacks the summary. */
NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
						     nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
	nvmlGpuFabricInfoV_t *v = gpuFabricInfo;
	struct fabric f;
	nvmlReturn_t res;

	res = fabric_get(device, v, &f);
	if (res != NVML_SUCCESS)
		return res;
	if (v->version != nvmlGpuFabricInfo_v2 &&
	    v->version != nvmlGpuFabricInfo_v3)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	memcpy(v->clusterUuid, f.uuid, sizeof(f.uuid));
	v->status = f.status;
	v->cliqueId = f.clique;
	v->state = f.state;
	v->healthMask = f.health_mask;
	if (v->version == nvmlGpuFabricInfo_v3)
		v->healthSummary = f.health_summary;
	return NVML_SUCCESS;
}
