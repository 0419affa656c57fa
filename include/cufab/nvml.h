/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * cufab's NVML: the subset of NVIDIA's Management Library API that
 * libnvidia-ml.so.1 (nvml/) implements, answered from the cufab kernel
 * module's state. Every type, value and prototype here has the layout
 * and value of NVIDIA's nvml.h (NVML 13.0); selftests/abi/nvml_abi_test.c
 * checks that against NVIDIA's header. Only what the library exports is
 * declared: a program that needs more finds out at compile time.
 */
#ifndef CUFAB_NVML_H
#define CUFAB_NVML_H

#ifdef __cplusplus
extern "C" {
#endif

#define NVML_API_VERSION	13
#define NVML_API_VERSION_STR	"13"

#ifndef NVML_NO_UNVERSIONED_FUNC_DEFS
#define nvmlInit				nvmlInit_v2
#define nvmlDeviceGetPciInfo			nvmlDeviceGetPciInfo_v3
#define nvmlDeviceGetCount			nvmlDeviceGetCount_v2
#define nvmlDeviceGetHandleByIndex		nvmlDeviceGetHandleByIndex_v2
#define nvmlDeviceGetHandleByPciBusId		nvmlDeviceGetHandleByPciBusId_v2
#define nvmlDeviceGetNvLinkRemotePciInfo	nvmlDeviceGetNvLinkRemotePciInfo_v2
#endif

/* A versioned struct's version word: its size, and the version << 24. */
#define NVML_STRUCT_VERSION(data, ver)					\
	(unsigned int)(sizeof(nvml ## data ## _v ## ver ## _t) | ((ver) << 24U))

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlReturn_enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_ALREADY_INITIALIZED = 5,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_INSUFFICIENT_POWER = 8,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_IRQ_ISSUE = 11,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_CORRUPTED_INFOROM = 14,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_OPERATING_SYSTEM = 17,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_IN_USE = 19,
	NVML_ERROR_MEMORY = 20,
	NVML_ERROR_NO_DATA = 21,
	NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
	NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
	NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_DEPRECATED = 26,
	NVML_ERROR_NOT_READY = 27,
	NVML_ERROR_GPU_NOT_FOUND = 28,
	NVML_ERROR_INVALID_STATE = 29,
	NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
	NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef enum nvmlEnableState_enum {
	NVML_FEATURE_DISABLED = 0,
	NVML_FEATURE_ENABLED = 1
} nvmlEnableState_t;

/* Buffer sizes that always suffice (the terminating NUL included). */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE	32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE	16
#define NVML_DEVICE_UUID_BUFFER_SIZE		80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE		96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE	80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE	80
#define NVML_DEVICE_NAME_BUFFER_SIZE		64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE		96

#define NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT	"%04X:%02X:%02X.0"
#define NVML_DEVICE_PCI_BUS_ID_FMT		"%08X:%02X:%02X.0"
#define NVML_DEVICE_PCI_BUS_ID_FMT_ARGS(pciInfo)			\
	(pciInfo)->domain, (pciInfo)->bus, (pciInfo)->device

typedef struct nvmlPciInfo_st {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;	/* device id << 16 | vendor id */
	unsigned int pciSubSystemId;	/* subsystem id << 16 | vendor id */
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
	unsigned int version;		/* nvmlMemory_v2 */
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;

#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

#define NVML_INIT_FLAG_NO_GPUS		1
#define NVML_INIT_FLAG_NO_ATTACH	2

#define NVML_CUDA_DRIVER_VERSION_MAJOR(v) ((v) / 1000)
#define NVML_CUDA_DRIVER_VERSION_MINOR(v) (((v) % 1000) / 10)

/* ---- fabric ---------------------------------------------------------- */

#define NVML_GPU_FABRIC_UUID_LEN	16

#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED	0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED	1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS	2
#define NVML_GPU_FABRIC_STATE_COMPLETED		3

typedef unsigned char nvmlGpuFabricState_t;

typedef struct {
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_t;

#define NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_NOT_SUPPORTED	0
#define NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_TRUE		1
#define NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_FALSE		2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW		0
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_DEGRADED_BW		0x3

#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_NOT_SUPPORTED	0
#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_TRUE		1
#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_FALSE	2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY	2
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_RECOVERY	0x3

#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_NOT_SUPPORTED	0
#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_TRUE	1
#define NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_FALSE	2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY	4
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_UNHEALTHY	0x3

#define NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_TRUE	1
#define NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_FALSE	2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY	6
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ACCESS_TIMEOUT_RECOVERY	0x3

#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NONE	1
#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_INCORRECT_SYSGUID 2
#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_INCORRECT_CHASSIS_SN 3
#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NO_PARTITION 4
#define NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_INSUFFICIENT_NVLINKS 5
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION	8
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION	0xf

#define NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED		0
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY			1
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY		2
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY		3

#define NVML_GPU_FABRIC_HEALTH_GET(var, type)				\
	(((var) >> NVML_GPU_FABRIC_HEALTH_MASK_SHIFT##type) &		\
	 (NVML_GPU_FABRIC_HEALTH_MASK_WIDTH##type))
#define NVML_GPU_FABRIC_HEALTH_TEST(var, type, val)			\
	(NVML_GPU_FABRIC_HEALTH_GET(var, type) ==			\
	 NVML_GPU_FABRIC_HEALTH_MASK##type##val)

typedef struct {
	unsigned int version;		/* nvmlGpuFabricInfo_v2 */
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
	unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;

#define nvmlGpuFabricInfo_v2 NVML_STRUCT_VERSION(GpuFabricInfo, 2)

typedef struct {
	unsigned int version;		/* nvmlGpuFabricInfo_v3 */
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
	unsigned int healthMask;
	unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;

typedef nvmlGpuFabricInfo_v3_t nvmlGpuFabricInfoV_t;

#define nvmlGpuFabricInfo_v3 NVML_STRUCT_VERSION(GpuFabricInfo, 3)

/* ---- topology and NVLink -------------------------------------------- */

#define NVML_NVLINK_MAX_LINKS	18

typedef enum nvmlNvLinkCapability_enum {
	NVML_NVLINK_CAP_P2P_SUPPORTED = 0,
	NVML_NVLINK_CAP_SYSMEM_ACCESS = 1,
	NVML_NVLINK_CAP_P2P_ATOMICS = 2,
	NVML_NVLINK_CAP_SYSMEM_ATOMICS = 3,
	NVML_NVLINK_CAP_SLI_BRIDGE = 4,
	NVML_NVLINK_CAP_VALID = 5,
	NVML_NVLINK_CAP_COUNT
} nvmlNvLinkCapability_t;

typedef enum nvmlGpuLevel_enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50
} nvmlGpuTopologyLevel_t;

#define NVML_TOPOLOGY_CPU NVML_TOPOLOGY_NODE

typedef enum nvmlGpuP2PStatus_enum {
	NVML_P2P_STATUS_OK = 0,
	NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED,
	NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED,
	NVML_P2P_STATUS_GPU_NOT_SUPPORTED,
	NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED,
	NVML_P2P_STATUS_DISABLED_BY_REGKEY,
	NVML_P2P_STATUS_NOT_SUPPORTED,
	NVML_P2P_STATUS_UNKNOWN
} nvmlGpuP2PStatus_t;

typedef enum nvmlGpuP2PCapsIndex_enum {
	NVML_P2P_CAPS_INDEX_READ = 0,
	NVML_P2P_CAPS_INDEX_WRITE = 1,
	NVML_P2P_CAPS_INDEX_NVLINK = 2,
	NVML_P2P_CAPS_INDEX_ATOMICS = 3,
	NVML_P2P_CAPS_INDEX_PCI = 4,
	NVML_P2P_CAPS_INDEX_PROP = NVML_P2P_CAPS_INDEX_PCI,
	NVML_P2P_CAPS_INDEX_UNKNOWN = 5,
} nvmlGpuP2PCapsIndex_t;

/* ---- entry points ---------------------------------------------------- */

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
					   nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
					      nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
			       unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
			       unsigned int length);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
				      unsigned int *minorNumber);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device,
						int *major, int *minor);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
					nvmlMemory_v2_t *memory);
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node);

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device,
					nvmlGpuFabricInfo_t *gpuFabricInfo);
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
					 nvmlGpuFabricInfoV_t *gpuFabricInfo);

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
				    nvmlGpuP2PCapsIndex_t p2pIndex,
				    nvmlGpuP2PStatus_t *p2pStatus);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1,
						 nvmlDevice_t device2,
						 nvmlGpuTopologyLevel_t *pathInfo);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
				      nvmlEnableState_t *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device,
					   unsigned int link,
					   nvmlNvLinkCapability_t capability,
					   unsigned int *capResult);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
						 unsigned int link,
						 nvmlPciInfo_t *pci);

#ifdef __cplusplus
}
#endif

#endif /* CUFAB_NVML_H */
