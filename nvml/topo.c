// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Topology: P2P status, the common PCI ancestor of two GPUs and the NVLinks
 * of a GPU, from the peer matrix TOPO_GET reports (dev-peers) and the
 * virtual NVSwitch.
 *
 * Every peer pair of the node is an NVLink connection, as libcufab's
 * cuDeviceGetP2PAttribute says: read, write, NVLink and atomics are OK
 * between peers and NOT_SUPPORTED otherwise (a GPU is not its own peer);
 * there is no PCIe peer path, so the PCI index is NOT_SUPPORTED.
 *
 * Each GPU has NVML_NVLINK_MAX_LINKS (18) links, an H100 SXM's:
 *   - behind the virtual NVSwitch all of them are up, to the switch;
 *   - without it (nvswitch=0, the peers= pairs) link k is up when the GPU
 *     has a k-th peer (in index order) and goes to that peer; the others
 *     are down.
 * A link past the last is INVALID_ARGUMENT; a down link has no far end
 * (nvmlDeviceGetNvLinkRemotePciInfo_v2: NOT_SUPPORTED).
 *
 * The GPUs' PCI functions hang off their own root ports: two of them meet
 * in the CPU of their host NUMA node (NODE) or across nodes (SYSTEM).
 */
#include <string.h>

#include "nvml_internal.h"

/* Whether @a reaches @b: two GPUs, a peer link between them. */
static int peers(const struct nvml_gpu *a, const struct nvml_gpu *b)
{
	return a != b && b->index < 64 && (a->peers >> b->index) & 1;
}

/* Both devices of a pair query, and the node read for them. */
static nvmlReturn_t pair_get(nvmlDevice_t d1, nvmlDevice_t d2, int args_ok,
			     struct nvml_topo **t, const struct nvml_gpu **g1,
			     const struct nvml_gpu **g2)
{
	nvmlReturn_t res;

	if (!nvml_handle_ok(d2) && nvml_initialised())
		return NVML_ERROR_INVALID_ARGUMENT;
	res = nvml_device(d1, args_ok, t, g1);
	if (res != NVML_SUCCESS)
		return res;
	if (d2->index >= (*t)->num_gpus) {
		nvml_topo_put(*t);
		return NVML_ERROR_GPU_IS_LOST;
	}
	*g2 = &(*t)->gpus[d2->index];
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1,
						nvmlDevice_t device2,
						nvmlGpuP2PCapsIndex_t p2pIndex,
						nvmlGpuP2PStatus_t *p2pStatus)
{
	const struct nvml_gpu *g1, *g2;
	struct nvml_topo *t;
	nvmlReturn_t res;

	res = pair_get(device1, device2,
		       p2pStatus && (unsigned int)p2pIndex < NVML_P2P_CAPS_INDEX_UNKNOWN,
		       &t, &g1, &g2);
	if (res != NVML_SUCCESS)
		return res;
	if (p2pIndex == NVML_P2P_CAPS_INDEX_PCI || !peers(g1, g2))
		*p2pStatus = NVML_P2P_STATUS_NOT_SUPPORTED;
	else
		*p2pStatus = NVML_P2P_STATUS_OK;
	nvml_topo_put(t);
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1,
							     nvmlDevice_t device2,
							     nvmlGpuTopologyLevel_t *pathInfo)
{
	const struct nvml_gpu *g1, *g2;
	struct nvml_topo *t;
	nvmlReturn_t res;

	res = pair_get(device1, device2, !!pathInfo, &t, &g1, &g2);
	if (res != NVML_SUCCESS)
		return res;
	if (g1 == g2)
		*pathInfo = NVML_TOPOLOGY_INTERNAL;
	else if (g1->numa_node == g2->numa_node)
		*pathInfo = NVML_TOPOLOGY_NODE;
	else
		*pathInfo = NVML_TOPOLOGY_SYSTEM;
	nvml_topo_put(t);
	return NVML_SUCCESS;
}

/*
 * The far end of @link of @g: 1 and the peer GPU in *@peer (NULL for the
 * NVSwitch) when the link is up, 0 when it is down.
 */
static int link_end(const struct nvml_topo *t, const struct nvml_gpu *g,
		    unsigned int link, const struct nvml_gpu **peer)
{
	unsigned int i, k = 0;

	*peer = NULL;
	if (t->nvswitch)
		return 1;
	for (i = 0; i < t->num_gpus; i++) {
		if (!peers(g, &t->gpus[i]))
			continue;
		if (k++ == link) {
			*peer = &t->gpus[i];
			return 1;
		}
	}
	return 0;
}

/* A device query about one link: the link must exist. */
static nvmlReturn_t link_get(nvmlDevice_t device, unsigned int link,
			     int args_ok, struct nvml_topo **t,
			     const struct nvml_gpu **g)
{
	return nvml_device(device, args_ok && link < NVML_NVLINK_MAX_LINKS, t, g);
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device,
						  unsigned int link,
						  nvmlEnableState_t *isActive)
{
	const struct nvml_gpu *g, *peer;
	struct nvml_topo *t;
	nvmlReturn_t res;

	res = link_get(device, link, !!isActive, &t, &g);
	if (res != NVML_SUCCESS)
		return res;
	*isActive = link_end(t, g, link, &peer) ? NVML_FEATURE_ENABLED :
						  NVML_FEATURE_DISABLED;
	nvml_topo_put(t);
	return NVML_SUCCESS;
}

/*
 * Every link exists (VALID); an up link carries P2P and P2P atomics; none
 * reaches system memory (an x86 host has no NVLink to the CPU) or is an
 * SLI bridge.
 */
NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device,
						       unsigned int link,
						       nvmlNvLinkCapability_t capability,
						       unsigned int *capResult)
{
	const struct nvml_gpu *g, *peer;
	struct nvml_topo *t;
	nvmlReturn_t res;
	int up;

	res = link_get(device, link,
		       capResult && (unsigned int)capability < NVML_NVLINK_CAP_COUNT,
		       &t, &g);
	if (res != NVML_SUCCESS)
		return res;
	up = link_end(t, g, link, &peer);
	switch (capability) {
	case NVML_NVLINK_CAP_P2P_SUPPORTED:
	case NVML_NVLINK_CAP_P2P_ATOMICS:
		*capResult = up;
		break;
	case NVML_NVLINK_CAP_VALID:
		*capResult = 1;
		break;
	default:
		*capResult = 0;
		break;
	}
	nvml_topo_put(t);
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
							     unsigned int link,
							     nvmlPciInfo_t *pci)
{
	const struct nvml_gpu *g, *peer;
	struct nvml_gpu nvswitch;
	struct nvml_topo *t;
	nvmlReturn_t res;

	res = link_get(device, link, !!pci, &t, &g);
	if (res != NVML_SUCCESS)
		return res;
	if (!link_end(t, g, link, &peer)) {
		res = NVML_ERROR_NOT_SUPPORTED;
	} else if (peer) {
		nvml_pci_info(peer, pci);
	} else {
		memset(&nvswitch, 0, sizeof(nvswitch));
		memcpy(nvswitch.bus_id, t->nvswitch_bus_id, sizeof(nvswitch.bus_id));
		nvswitch.pci_device_id = t->nvswitch_pci_id;
		nvml_pci_info(&nvswitch, pci);
	}
	nvml_topo_put(t);
	return res;
}
