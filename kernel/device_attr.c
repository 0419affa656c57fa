// SPDX-License-Identifier: GPL-2.0
/*
 * What a program learns about a virtual GPU: the CUdevice_attribute table
 * and CUFAB_IOCTL_DEVICE_INFO, which returns it with the GPU's identity.
 *
 * Limits and sizes are those of a Hopper-class part (compute capability
 * 9.0, 132 SMs, H100 SXM5 figures) so that programs which size their work
 * from attributes behave as on real hardware. Capabilities that decide
 * which API paths a program takes are derived from the GPU's features and
 * the topology, since that is what cufab emulates, and read 0 while cufab
 * lacks the calls they promise (CUFAB_HAS_*). Interop capabilities
 * cufab does not provide (dma-bufs of host memory, GPUDirect RDMA,
 * external semaphores, Windows handles, CIG, decompression) read 0, so
 * that a program probing them does not go on to call what does not exist.
 * Attribute numbers without a name in enum cufab_attr read 0.
 */
#include <linux/kernel.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cufab.h"

/* Hopper (H100 SXM5) figures. */
#define HOPPER_SM_COUNT		132
#define HOPPER_WARP_SIZE	32
#define HOPPER_CLOCK_KHZ	1980000
#define HOPPER_MEM_CLOCK_KHZ	2619000
#define HOPPER_MEM_BUS_BITS	5120
#define HOPPER_L2_BYTES		(50 * SZ_1M)
#define HOPPER_SMEM_PER_SM	(228 * SZ_1K)
#define HOPPER_SMEM_OPTIN	(227 * SZ_1K)
#define HOPPER_SYNC_DOMAINS	4

/* CUmemAllocationHandleType bits */
#define CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR	0x1
#define CU_MEM_HANDLE_TYPE_FABRIC			0x8
/* CUlogicalEndpointIpcHandleType */
#define CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC	1
/* CUcomputemode, CUdeviceNumaConfig */
#define CU_COMPUTEMODE_DEFAULT				0
#define CU_DEVICE_NUMA_CONFIG_NONE			0

/* Attributes that do not depend on the GPU's configuration. */
static const s32 cufab_hopper_attrs[CUFAB_NUM_DEVICE_ATTRS] = {
	[CUFAB_ATTR_MAX_THREADS_PER_BLOCK] = 1024,
	[CUFAB_ATTR_MAX_BLOCK_DIM_X] = 1024,
	[CUFAB_ATTR_MAX_BLOCK_DIM_Y] = 1024,
	[CUFAB_ATTR_MAX_BLOCK_DIM_Z] = 64,
	[CUFAB_ATTR_MAX_GRID_DIM_X] = S32_MAX,
	[CUFAB_ATTR_MAX_GRID_DIM_Y] = 65535,
	[CUFAB_ATTR_MAX_GRID_DIM_Z] = 65535,
	[CUFAB_ATTR_MAX_SHARED_MEMORY_PER_BLOCK] = 48 * SZ_1K,
	[CUFAB_ATTR_TOTAL_CONSTANT_MEMORY] = SZ_64K,
	[CUFAB_ATTR_WARP_SIZE] = HOPPER_WARP_SIZE,
	[CUFAB_ATTR_MAX_PITCH] = S32_MAX,
	[CUFAB_ATTR_MAX_REGISTERS_PER_BLOCK] = SZ_64K,
	[CUFAB_ATTR_CLOCK_RATE] = HOPPER_CLOCK_KHZ,
	[CUFAB_ATTR_TEXTURE_ALIGNMENT] = 512,
	[CUFAB_ATTR_GPU_OVERLAP] = 1,
	[CUFAB_ATTR_MULTIPROCESSOR_COUNT] = HOPPER_SM_COUNT,
	[CUFAB_ATTR_KERNEL_EXEC_TIMEOUT] = 0,
	[CUFAB_ATTR_INTEGRATED] = 0,
	[CUFAB_ATTR_CAN_MAP_HOST_MEMORY] = 1,
	[CUFAB_ATTR_COMPUTE_MODE] = CU_COMPUTEMODE_DEFAULT,
	[CUFAB_ATTR_MAXIMUM_TEXTURE1D_WIDTH] = SZ_128K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_WIDTH] = SZ_128K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_HEIGHT] = SZ_64K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE3D_WIDTH] = SZ_16K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE3D_HEIGHT] = SZ_16K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE3D_DEPTH] = SZ_16K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_LAYERED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_LAYERED_LAYERS] = SZ_2K,
	[CUFAB_ATTR_SURFACE_ALIGNMENT] = 512,
	[CUFAB_ATTR_CONCURRENT_KERNELS] = 1,
	[CUFAB_ATTR_ECC_ENABLED] = 1,
	[CUFAB_ATTR_TCC_DRIVER] = 0,
	[CUFAB_ATTR_MEMORY_CLOCK_RATE] = HOPPER_MEM_CLOCK_KHZ,
	[CUFAB_ATTR_GLOBAL_MEMORY_BUS_WIDTH] = HOPPER_MEM_BUS_BITS,
	[CUFAB_ATTR_L2_CACHE_SIZE] = HOPPER_L2_BYTES,
	[CUFAB_ATTR_MAX_THREADS_PER_MULTIPROCESSOR] = 2048,
	[CUFAB_ATTR_ASYNC_ENGINE_COUNT] = CUFAB_COPY_ENGINES,
	[CUFAB_ATTR_UNIFIED_ADDRESSING] = 1,
	[CUFAB_ATTR_MAXIMUM_TEXTURE1D_LAYERED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE1D_LAYERED_LAYERS] = SZ_2K,
	[CUFAB_ATTR_CAN_TEX2D_GATHER] = 1,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_GATHER_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_GATHER_HEIGHT] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE] = SZ_8K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE] = SZ_8K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE] = SZ_32K,
	[CUFAB_ATTR_TEXTURE_PITCH_ALIGNMENT] = 32,
	[CUFAB_ATTR_MAXIMUM_TEXTURECUBEMAP_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS] = 2046,
	[CUFAB_ATTR_MAXIMUM_SURFACE1D_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_SURFACE2D_WIDTH] = SZ_128K,
	[CUFAB_ATTR_MAXIMUM_SURFACE2D_HEIGHT] = SZ_64K,
	[CUFAB_ATTR_MAXIMUM_SURFACE3D_WIDTH] = SZ_16K,
	[CUFAB_ATTR_MAXIMUM_SURFACE3D_HEIGHT] = SZ_16K,
	[CUFAB_ATTR_MAXIMUM_SURFACE3D_DEPTH] = SZ_16K,
	[CUFAB_ATTR_MAXIMUM_SURFACE1D_LAYERED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_SURFACE1D_LAYERED_LAYERS] = SZ_2K,
	[CUFAB_ATTR_MAXIMUM_SURFACE2D_LAYERED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_SURFACE2D_LAYERED_HEIGHT] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_SURFACE2D_LAYERED_LAYERS] = SZ_2K,
	[CUFAB_ATTR_MAXIMUM_SURFACECUBEMAP_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS] = 2046,
	[CUFAB_ATTR_MAXIMUM_TEXTURE1D_LINEAR_WIDTH] = SZ_256M,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_LINEAR_WIDTH] = SZ_128K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT] = 65000,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_LINEAR_PITCH] = SZ_2M - 32,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT] = SZ_32K,
	[CUFAB_ATTR_COMPUTE_CAPABILITY_MAJOR] = CUFAB_CC_MAJOR,
	[CUFAB_ATTR_COMPUTE_CAPABILITY_MINOR] = CUFAB_CC_MINOR,
	[CUFAB_ATTR_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH] = SZ_32K,
	[CUFAB_ATTR_STREAM_PRIORITIES_SUPPORTED] = 1,
	[CUFAB_ATTR_GLOBAL_L1_CACHE_SUPPORTED] = 1,
	[CUFAB_ATTR_LOCAL_L1_CACHE_SUPPORTED] = 1,
	[CUFAB_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR] = HOPPER_SMEM_PER_SM,
	[CUFAB_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR] = SZ_64K,
	[CUFAB_ATTR_MULTI_GPU_BOARD] = 0,
	[CUFAB_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED] = 0,
	[CUFAB_ATTR_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO] = 2,
	[CUFAB_ATTR_COMPUTE_PREEMPTION_SUPPORTED] = 1,
	[CUFAB_ATTR_COOPERATIVE_LAUNCH] = 1,
	/* deprecated with its call, still reported by the hardware */
	[CUFAB_ATTR_COOPERATIVE_MULTI_DEVICE_LAUNCH] = 1,
	[CUFAB_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN] = HOPPER_SMEM_OPTIN,
	/* x86 host: pageable access goes through HMM, not the CPU's tables */
	[CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES] = 0,
	[CUFAB_ATTR_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST] = 0,
	[CUFAB_ATTR_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED] = 1,
	[CUFAB_ATTR_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED] = 1,
	[CUFAB_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR] = 32,
	/* persisting lines may take up to 3/4 of L2 */
	[CUFAB_ATTR_MAX_PERSISTING_L2_CACHE_SIZE] = HOPPER_L2_BYTES / 4 * 3,
	[CUFAB_ATTR_MAX_ACCESS_POLICY_WINDOW_SIZE] = SZ_128M - SZ_4K,
	[CUFAB_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK] = SZ_1K,
	[CUFAB_ATTR_CLUSTER_LAUNCH] = 1,
	[CUFAB_ATTR_MEM_SYNC_DOMAIN_COUNT] = HOPPER_SYNC_DOMAINS,
	[CUFAB_ATTR_TENSOR_MAP_ACCESS_SUPPORTED] = 1,
	[CUFAB_ATTR_UNIFIED_FUNCTION_POINTERS] = 0,
	[CUFAB_ATTR_NUMA_CONFIG] = CU_DEVICE_NUMA_CONFIG_NONE,
	[CUFAB_ATTR_NUMA_ID] = NUMA_NO_NODE,
	[CUFAB_ATTR_MPS_ENABLED] = 0,
	[CUFAB_ATTR_GPU_PCI_DEVICE_ID] = CUFAB_PCI_DEVICE_ID,
	[CUFAB_ATTR_GPU_PCI_SUBSYSTEM_ID] = CUFAB_PCI_SUBSYSTEM_ID,
	[CUFAB_ATTR_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED] = 1,
	[CUFAB_ATTR_HOST_NUMA_MULTINODE_IPC_SUPPORTED] = 0,
	[CUFAB_ATTR_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED] = 1,
	[CUFAB_ATTR_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT] = HOPPER_SM_COUNT,
	[CUFAB_ATTR_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED] = 0,
};

static s32 cufab_has(u32 features, u32 bit)
{
	return !!(features & bit);
}

/* Attributes derived from where the GPU sits. */
static void cufab_attrs_fill_location(const struct cufab_gpu *gpu,
				      s32 *attrs)
{
	attrs[CUFAB_ATTR_PCI_BUS_ID] = CUFAB_PCI_BUS_BASE + gpu->index;
	attrs[CUFAB_ATTR_PCI_DEVICE_ID] = CUFAB_PCI_DEVICE;
	attrs[CUFAB_ATTR_PCI_DOMAIN_ID] =
		cufab_node_pci_domain(cufab_node.node_index);
	/* every virtual GPU is its own board */
	attrs[CUFAB_ATTR_MULTI_GPU_BOARD_GROUP_ID] = gpu->index;
	attrs[CUFAB_ATTR_HOST_NUMA_ID] = gpu->numa_node;
}

/* Attributes of the API families cufab may lack (cufab.h). */
static void cufab_attrs_fill_apis(u32 f, s32 *attrs)
{
	bool managed = CUFAB_HAS_MANAGED_MEMORY;

	attrs[CUFAB_ATTR_MANAGED_MEMORY] = managed;
	attrs[CUFAB_ATTR_PAGEABLE_MEMORY_ACCESS] =
		managed && cufab_has(f, CUFAB_DEV_F_PAGEABLE_ACCESS);
	attrs[CUFAB_ATTR_CONCURRENT_MANAGED_ACCESS] =
		managed && cufab_has(f, CUFAB_DEV_F_CONCURRENT_MANAGED);

	attrs[CUFAB_ATTR_HOST_REGISTER_SUPPORTED] = CUFAB_HAS_HOST_REGISTER;
	attrs[CUFAB_ATTR_READ_ONLY_HOST_REGISTER_SUPPORTED] =
		CUFAB_HAS_HOST_REGISTER;
	attrs[CUFAB_ATTR_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM] =
		CUFAB_HAS_HOST_REGISTER;

	attrs[CUFAB_ATTR_CAN_USE_64_BIT_STREAM_MEM_OPS] =
		CUFAB_HAS_STREAM_MEM_OPS;
	attrs[CUFAB_ATTR_CAN_USE_STREAM_WAIT_VALUE_NOR] =
		CUFAB_HAS_STREAM_MEM_OPS;
	attrs[CUFAB_ATTR_IPC_EVENT_SUPPORTED] = CUFAB_HAS_IPC_EVENTS;
	/* device memory only: 146 (HOST_ALLOC_DMA_BUF_SUPPORTED) stays 0 */
	attrs[CUFAB_ATTR_DMA_BUF_SUPPORTED] = CUFAB_HAS_DMA_BUF;
}

/* Attributes derived from the effective features. */
static void cufab_attrs_fill_features(u32 f, s32 *attrs)
{
	bool pools = CUFAB_HAS_MEMORY_POOLS && (f & CUFAB_DEV_F_MEMORY_POOLS);
	bool fabric = f & CUFAB_DEV_F_FABRIC_HANDLE;
	bool le = f & (CUFAB_DEV_F_LE_UNICAST | CUFAB_DEV_F_LE_MULTICAST);
	s32 pool_handles = 0;

	cufab_attrs_fill_apis(f, attrs);
	attrs[CUFAB_ATTR_HANDLE_TYPE_FABRIC_SUPPORTED] = fabric;
	attrs[CUFAB_ATTR_MULTICAST_SUPPORTED] =
		cufab_has(f, CUFAB_DEV_F_MULTICAST);

	attrs[CUFAB_ATTR_MEMORY_POOLS_SUPPORTED] = pools;
	attrs[CUFAB_ATTR_HOST_NUMA_MEMORY_POOLS_SUPPORTED] = pools;
	attrs[CUFAB_ATTR_HOST_MEMORY_POOLS_SUPPORTED] = pools;
	if (pools) {
		pool_handles = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
		if (fabric)
			pool_handles |= CU_MEM_HANDLE_TYPE_FABRIC;
	}
	attrs[CUFAB_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES] = pool_handles;

	attrs[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_SUPPORTED] =
		cufab_has(f, CUFAB_DEV_F_LE_UNICAST);
	attrs[CUFAB_ATTR_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED] =
		cufab_has(f, CUFAB_DEV_F_LE_MULTICAST);
	attrs[CUFAB_ATTR_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED] =
		cufab_has(f, CUFAB_DEV_F_LE_COUNTED);
	attrs[CUFAB_ATTR_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED] =
		cufab_has(f, CUFAB_DEV_F_LE_OWNER_ACCESS);
	/* endpoints are shared only through fabric handles */
	attrs[CUFAB_ATTR_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES] =
		le && fabric ? CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC : 0;
}

/**
 * cufab_gpu_attrs_fill() - the CUdevice_attribute values of a GPU
 * @topo: the topology the GPU is part of
 * @gpu: the GPU
 * @attrs: out, indexed by CUdevice_attribute; unknown numbers read 0
 */
void cufab_gpu_attrs_fill(const struct cufab_topo *topo,
			  const struct cufab_gpu *gpu,
			  s32 attrs[CUFAB_NUM_DEVICE_ATTRS])
{
	memcpy(attrs, cufab_hopper_attrs, sizeof(cufab_hopper_attrs));
	cufab_attrs_fill_location(gpu, attrs);
	cufab_attrs_fill_features(cufab_gpu_effective_features(topo, gpu),
				  attrs);
}

/* ---- CUFAB_IOCTL_DEVICE_INFO ---- */

static void cufab_device_info_fill(struct cufab_device_info *info,
				   const struct cufab_gpu *gpu)
{
	info->flags = cufab_gpu_effective_features(&cufab_node, gpu);
	info->host_numa_node = gpu->numa_node;
	info->total_mem = gpu->mem_total;
	info->peer_mask = gpu->peers;
	info->clique_id = gpu->clique;
	info->pci_domain = cufab_node_pci_domain(cufab_node.node_index);
	info->pci_bus = CUFAB_PCI_BUS_BASE + gpu->index;
	info->pci_device = CUFAB_PCI_DEVICE;
	cufab_gpu_uuid(gpu->index, info->uuid);
	strscpy_pad(info->name, CUFAB_GPU_NAME, sizeof(info->name));
	info->mem_granularity = gpu->mem_gran;
	info->mem_granularity_rec = gpu->mem_gran_rec;
	info->mc_granularity = gpu->mc_gran;
	info->mc_granularity_rec = gpu->mc_gran_rec;
	if (cufab_gpu_on_fabric(&cufab_node, gpu))
		memcpy(info->cluster_uuid, &cufab_node.cluster_uuid,
		       sizeof(info->cluster_uuid));
	else
		memset(info->cluster_uuid, 0, sizeof(info->cluster_uuid));
}

/*
 * CUFAB_IOCTL_DEVICE_INFO. The attribute table is built in kernel memory
 * under the lock and copied out after it: a page fault on the user buffer
 * must not happen with cufab_topo_rwsem held.
 */
int cufab_ioctl_device_info(struct cufab_ucmd *ucmd)
{
	struct cufab_device_info *cmd = ucmd->cmd;
	u32 n = min_t(u32, cmd->num_attrs, CUFAB_NUM_DEVICE_ATTRS);
	struct cufab_gpu *gpu;
	s32 *attrs;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;

	attrs = kcalloc(CUFAB_NUM_DEVICE_ATTRS, sizeof(*attrs), GFP_KERNEL);
	if (!attrs)
		return -ENOMEM;

	down_read(&cufab_topo_rwsem);
	gpu = cufab_node_gpu(cmd->index);
	if (gpu) {
		cufab_device_info_fill(cmd, gpu);
		cufab_gpu_attrs_fill(&cufab_node, gpu, attrs);
	}
	up_read(&cufab_topo_rwsem);
	if (!gpu) {
		ret = -ENODEV;
		goto out;
	}

	cmd->num_attrs = CUFAB_NUM_DEVICE_ATTRS;
	if (n && copy_to_user(u64_to_user_ptr(cmd->attrs_ptr), attrs,
			      n * sizeof(*attrs))) {
		ret = -EFAULT;
		goto out;
	}
	ret = cufab_ucmd_respond(ucmd, sizeof(*cmd));
out:
	kfree(attrs);
	return ret;
}
