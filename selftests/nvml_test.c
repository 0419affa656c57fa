// SPDX-License-Identifier: GPL-2.0
/*
 * cufab's libnvidia-ml.so.1 (nvml/): every answer against libcufab's for
 * the same GPU (name, UUID, PCI location, compute capability, memory, NUMA
 * node, fabric cluster and clique), the fabric state against the
 * fabric_state knob, and every documented error code: UNINITIALIZED before
 * nvmlInit and after the last nvmlShutdown, INVALID_ARGUMENT for NULL
 * pointers, foreign handles and bad indices, INSUFFICIENT_SIZE for short
 * buffers, ARGUMENT_VERSION_MISMATCH for a wrong struct version, NOT_FOUND
 * for unknown UUIDs and bus ids, DRIVER_NOT_LOADED where the netlink
 * family is not visible. P2P status, common ancestors and NVLinks follow
 * the peer matrix, behind the virtual NVSwitch and without it; the test
 * without it changes the node with cufabctl, so it opens no client itself
 * and asks libcufab in a child.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cufab/cuda.h>
#include <cufab/nvml.h>
#include <linux/cufab.h>
#include "topo_helpers.h"
#include "cufab_uapi.h"
#include "cufab_test.h"
#include "kselftest_harness.h"

#define EXPECT_NV(expected, call)	EXPECT_EQ((int)(expected), (int)(call))
#define ASSERT_NV(expected, call)	ASSERT_EQ((int)(expected), (int)(call))

/* cuDeviceGetUuid's bytes as NVML prints them. */
static void uuid_string(const CUuuid *u, char *out, size_t len)
{
	const unsigned char *b = (const unsigned char *)u->bytes;

	snprintf(out, len,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

static int cu_attr(CUdevice_attribute a, int dev)
{
	int v = -12345;

	cuDeviceGetAttribute(&v, a, dev);
	return v;
}

FIXTURE(nvml) {
	int count;
};

FIXTURE_SETUP(nvml)
{
	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&self->count));
	ASSERT_NV(NVML_SUCCESS, nvmlInit_v2());
}

FIXTURE_TEARDOWN(nvml)
{
	cufab_param_set("fabric_state", "ok");
	while (nvmlShutdown() == NVML_SUCCESS)
		;
}

/* Reference counted: the library works until the last nvmlShutdown. */
TEST(init_refcount)
{
	unsigned int n;

	INIT_OR_SKIP();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetCount_v2(&n));
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlShutdown());
	ASSERT_NV(NVML_SUCCESS, nvmlInit_v2());
	ASSERT_NV(NVML_SUCCESS, nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS |
						   NVML_INIT_FLAG_NO_ATTACH));
	EXPECT_NV(NVML_SUCCESS, nvmlShutdown());
	EXPECT_NV(NVML_SUCCESS, nvmlDeviceGetCount_v2(&n));
	EXPECT_NV(NVML_SUCCESS, nvmlShutdown());
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetCount_v2(&n));
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlShutdown());
	/* and again from zero */
	ASSERT_NV(NVML_SUCCESS, nvmlInit_v2());
	EXPECT_NV(NVML_SUCCESS, nvmlDeviceGetCount_v2(&n));
	EXPECT_NV(NVML_SUCCESS, nvmlShutdown());
}

/*
 * The family exists in the initial network namespace only: a process in
 * another one finds no driver, as NVML does without nvidia.ko.
 */
TEST(driver_not_loaded)
{
	pid_t pid;
	int rc;

	INIT_OR_SKIP();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(errno == EPERM ? 4 : errno == EINVAL ? 5 : 3);
		_exit(nvmlInit_v2() == NVML_ERROR_DRIVER_NOT_LOADED ? 0 : 1);
	}
	rc = wait_child(pid);
	if (rc == 4)
		SKIP(return, "unshare(CLONE_NEWNET) needs CAP_SYS_ADMIN");
	if (rc == 5)
		SKIP(return, "this kernel has no network namespaces (CONFIG_NET_NS)");
	EXPECT_EQ(0, rc) TH_LOG("nvmlInit_v2 in a new network namespace: not DRIVER_NOT_LOADED");
}

/* Every code of nvml.h has its own string; others are "Unknown Error". */
TEST(error_strings)
{
	static const nvmlReturn_t codes[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
		18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
	};
	size_t i, j;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = nvmlErrorString(codes[i]);

		ASSERT_NE(NULL, s);
		EXPECT_STRNE("Unknown Error", s) TH_LOG("code %d", codes[i]);
		for (j = 0; j < i; j++)
			EXPECT_STRNE(nvmlErrorString(codes[j]), s);
	}
	EXPECT_STREQ("Success", nvmlErrorString(NVML_SUCCESS));
	EXPECT_STREQ("Uninitialized", nvmlErrorString(NVML_ERROR_UNINITIALIZED));
	EXPECT_STREQ("Unknown Error", nvmlErrorString(NVML_ERROR_UNKNOWN));
	EXPECT_STREQ("Unknown Error", nvmlErrorString(31));
	EXPECT_STREQ("Unknown Error", nvmlErrorString((nvmlReturn_t)-1));
}

/* The driver is cufab.ko, whose version sysfs shows. */
TEST_F(nvml, driver_version)
{
	char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE], want[64] = "";
	FILE *f = fopen("/sys/module/cufab/version", "r");

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	ASSERT_NV(NVML_SUCCESS, nvmlSystemGetDriverVersion(v, sizeof(v)));
	EXPECT_STREQ(want, v);
	EXPECT_NV(NVML_ERROR_INSUFFICIENT_SIZE,
		  nvmlSystemGetDriverVersion(v, strlen(want)));
	EXPECT_NV(NVML_SUCCESS, nvmlSystemGetDriverVersion(v, strlen(want) + 1));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlSystemGetDriverVersion(NULL, sizeof(v)));
	nvmlShutdown();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED,
		  nvmlSystemGetDriverVersion(v, sizeof(v)));
}

/* The NVML version needs no nvmlInit; it starts with the API version. */
TEST(nvml_version)
{
	char v[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];

	ASSERT_NV(NVML_SUCCESS, nvmlSystemGetNVMLVersion(v, sizeof(v)));
	EXPECT_EQ(0, strncmp(v, NVML_API_VERSION_STR ".",
			     strlen(NVML_API_VERSION_STR) + 1)) TH_LOG("%s", v);
	EXPECT_NV(NVML_ERROR_INSUFFICIENT_SIZE,
		  nvmlSystemGetNVMLVersion(v, strlen(v)));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlSystemGetNVMLVersion(NULL, sizeof(v)));
}

/* cuDriverGetVersion of the libcuda.so.1 beside the library: libcufab. */
TEST(cuda_driver_version)
{
	int want, v = 0;

	ASSERT_CU(CUDA_SUCCESS, cuDriverGetVersion(&want));
	EXPECT_NV(NVML_SUCCESS, nvmlSystemGetCudaDriverVersion(&v));
	EXPECT_EQ(want, v);
	v = 0;
	EXPECT_NV(NVML_SUCCESS, nvmlSystemGetCudaDriverVersion_v2(&v));
	EXPECT_EQ(want, v);
	EXPECT_EQ(13, NVML_CUDA_DRIVER_VERSION_MAJOR(v));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlSystemGetCudaDriverVersion(NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlSystemGetCudaDriverVersion_v2(NULL));
}

TEST_F(nvml, count_and_handles)
{
	nvmlDevice_t h, h2;
	unsigned int n, i;

	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetCount_v2(&n));
	EXPECT_EQ(self->count, (int)n);
	for (i = 0; i < n; i++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &h));
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &h2));
		EXPECT_EQ(h, h2);
		EXPECT_NV(NVML_SUCCESS, nvmlDeviceGetIndex(h, &i));
	}
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetHandleByIndex_v2(n, &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetHandleByIndex_v2(0, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetCount_v2(NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetIndex(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetIndex(NULL, &i));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetIndex((nvmlDevice_t)&n, &i));
	/* the handle outlives a shutdown/init cycle */
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h));
	nvmlShutdown();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetHandleByIndex_v2(0, &h2));
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetIndex(h, &i));
	ASSERT_NV(NVML_SUCCESS, nvmlInit_v2());
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h2));
	EXPECT_EQ(h, h2);
}

/* Name, UUID, PCI, minor, compute capability and NUMA node of each GPU. */
TEST_F(nvml, identity_matches_libcufab)
{
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], cu_name[256];
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], cu_uuid[64];
	char cu_bus[32], upper[64];
	unsigned int dom, bus, devno, minor, node;
	nvmlDevice_t h, h2;
	nvmlPciInfo_t pci;
	int i, major, min;
	size_t k;
	CUuuid u;

	for (i = 0; i < self->count; i++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &h));

		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetName(cu_name, sizeof(cu_name), i));
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetName(h, name, sizeof(name)));
		EXPECT_STREQ(cu_name, name);

		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetUuid(&u, i));
		uuid_string(&u, cu_uuid, sizeof(cu_uuid));
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetUUID(h, uuid, sizeof(uuid)));
		EXPECT_STREQ(cu_uuid, uuid);
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByUUID(uuid, &h2));
		EXPECT_EQ(h, h2);
		for (k = 0; k <= strlen(uuid); k++)
			upper[k] = toupper((unsigned char)uuid[k]);
		upper[0] = 'G';
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByUUID(upper, &h2));
		EXPECT_EQ(h, h2);

		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetPCIBusId(cu_bus, sizeof(cu_bus), i));
		ASSERT_EQ(3, sscanf(cu_bus, "%x:%x:%x", &dom, &bus, &devno));
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetPciInfo_v3(h, &pci));
		EXPECT_EQ(dom, pci.domain);
		EXPECT_EQ(bus, pci.bus);
		EXPECT_EQ(devno, pci.device);
		EXPECT_EQ(0, strcasecmp(cu_bus, pci.busIdLegacy))
			TH_LOG("%s vs %s", cu_bus, pci.busIdLegacy);
		snprintf(upper, sizeof(upper), "%08X:%02X:%02X.0", dom, bus, devno);
		EXPECT_STREQ(upper, pci.busId);
		EXPECT_EQ((unsigned int)cu_attr(CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, i),
			  pci.pciDeviceId);
		EXPECT_EQ((unsigned int)cu_attr(CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID, i),
			  pci.pciSubSystemId);
		EXPECT_EQ(0x10de, pci.pciDeviceId & 0xffff);
		/* every accepted spelling finds the GPU */
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &h2));
		EXPECT_EQ(h, h2);
		ASSERT_NV(NVML_SUCCESS,
			  nvmlDeviceGetHandleByPciBusId_v2(pci.busIdLegacy, &h2));
		EXPECT_EQ(h, h2);
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByPciBusId_v2(cu_bus, &h2));
		EXPECT_EQ(h, h2);
		snprintf(upper, sizeof(upper), "%x:%x:%x", dom, bus, devno);
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByPciBusId_v2(upper, &h2));
		EXPECT_EQ(h, h2);
		snprintf(upper, sizeof(upper), "%02x:%02x.0", bus, devno);
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByPciBusId_v2(upper, &h2));
		EXPECT_EQ(h, h2);
		snprintf(upper, sizeof(upper), "%04x:%02x:%02x.1", dom, bus, devno);
		EXPECT_NV(NVML_ERROR_NOT_FOUND,
			  nvmlDeviceGetHandleByPciBusId_v2(upper, &h2));

		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetMinorNumber(h, &minor));
		EXPECT_EQ((unsigned int)i, minor);

		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetCudaComputeCapability(h, &major, &min));
		EXPECT_EQ(cu_attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, i), major);
		EXPECT_EQ(cu_attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, i), min);

		if (cu_attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, i) < 0) {
			EXPECT_NV(NVML_ERROR_NOT_SUPPORTED,
				  nvmlDeviceGetNumaNodeId(h, &node));
		} else {
			ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNumaNodeId(h, &node));
			EXPECT_EQ(cu_attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, i),
				  (int)node);
		}
	}
}

TEST_F(nvml, not_found)
{
	nvmlDevice_t h;

	EXPECT_NV(NVML_ERROR_NOT_FOUND,
		  nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &h));
	EXPECT_NV(NVML_ERROR_NOT_FOUND, nvmlDeviceGetHandleByUUID("not a uuid", &h));
	EXPECT_NV(NVML_ERROR_NOT_FOUND,
		  nvmlDeviceGetHandleByPciBusId_v2("0000:ff:1f.0", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2("bus forty-one", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2("0000:41:00.0x", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2("0000:41:0x0.0", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2(" 0000:41:00.0", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2("41:00", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2("", &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetHandleByUUID(NULL, &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2(NULL, &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByPciBusId_v2("0000:41:00.0", NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetHandleByUUID("GPU-", NULL));
	nvmlShutdown();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetHandleByUUID("GPU-", &h));
	EXPECT_NV(NVML_ERROR_UNINITIALIZED,
		  nvmlDeviceGetHandleByPciBusId_v2("0000:41:00.0", &h));
}

/* A buffer one byte short of the string and its NUL. */
TEST_F(nvml, short_buffers)
{
	char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	nvmlDevice_t h;
	size_t len;

	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetName(h, buf, sizeof(buf)));
	len = strlen(buf);
	EXPECT_NV(NVML_ERROR_INSUFFICIENT_SIZE, nvmlDeviceGetName(h, buf, len));
	EXPECT_NV(NVML_ERROR_INSUFFICIENT_SIZE, nvmlDeviceGetName(h, buf, 0));
	EXPECT_NV(NVML_SUCCESS, nvmlDeviceGetName(h, buf, len + 1));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetUUID(h, buf, sizeof(buf)));
	len = strlen(buf);
	EXPECT_EQ(40, len);
	EXPECT_NV(NVML_ERROR_INSUFFICIENT_SIZE, nvmlDeviceGetUUID(h, buf, len));
	EXPECT_NV(NVML_SUCCESS, nvmlDeviceGetUUID(h, buf, len + 1));
}

/*
 * Every device query: NULL output or a foreign handle is
 * INVALID_ARGUMENT, and after the last shutdown UNINITIALIZED.
 */
TEST_F(nvml, device_query_errors)
{
	nvmlDevice_t h, bad[] = { NULL, (nvmlDevice_t)&self->count };
	nvmlGpuFabricInfoV_t fv = { .version = nvmlGpuFabricInfo_v3 };
	nvmlMemory_v2_t m2 = { .version = nvmlMemory_v2 };
	nvmlGpuFabricInfo_t f;
	unsigned int u, pass;
	char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	nvmlPciInfo_t pci;
	nvmlMemory_t m;
	size_t i;
	int a, b;

	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetName(h, NULL, 64));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetUUID(h, NULL, 96));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetPciInfo_v3(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetMinorNumber(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetCudaComputeCapability(h, NULL, &b));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetCudaComputeCapability(h, &a, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetMemoryInfo(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetMemoryInfo_v2(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetNumaNodeId(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetGpuFabricInfo(h, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetGpuFabricInfoV(h, NULL));

	for (pass = 0; pass < 2; pass++) {
		nvmlReturn_t want = pass ? NVML_ERROR_UNINITIALIZED :
					   NVML_ERROR_INVALID_ARGUMENT;

		for (i = 0; i < (pass ? 1 : sizeof(bad) / sizeof(bad[0])); i++) {
			nvmlDevice_t d = pass ? h : bad[i];

			EXPECT_NV(want, nvmlDeviceGetIndex(d, &u));
			EXPECT_NV(want, nvmlDeviceGetName(d, s, sizeof(s)));
			EXPECT_NV(want, nvmlDeviceGetUUID(d, s, sizeof(s)));
			EXPECT_NV(want, nvmlDeviceGetPciInfo_v3(d, &pci));
			EXPECT_NV(want, nvmlDeviceGetMinorNumber(d, &u));
			EXPECT_NV(want, nvmlDeviceGetCudaComputeCapability(d, &a, &b));
			EXPECT_NV(want, nvmlDeviceGetMemoryInfo(d, &m));
			EXPECT_NV(want, nvmlDeviceGetMemoryInfo_v2(d, &m2));
			EXPECT_NV(want, nvmlDeviceGetNumaNodeId(d, &u));
			EXPECT_NV(want, nvmlDeviceGetGpuFabricInfo(d, &f));
			EXPECT_NV(want, nvmlDeviceGetGpuFabricInfoV(d, &fv));
		}
		nvmlShutdown();
	}
}

/* Total, free and used as libcufab's cuMemGetInfo sees them, live. */
TEST_F(nvml, memory_matches_libcufab)
{
	nvmlMemory_v2_t m2 = { .version = nvmlMemory_v2 };
	size_t cu_free, cu_total, total;
	CUdeviceptr p;
	nvmlMemory_t m;
	CUcontext ctx;
	nvmlDevice_t h;

	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&total, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&cu_free, &cu_total));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetMemoryInfo(h, &m));
	EXPECT_EQ(total, m.total);
	EXPECT_EQ(cu_total, m.total);
	EXPECT_EQ(cu_free, m.free);
	EXPECT_EQ(m.total, m.free + m.used);

	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&p, 64 << 20));
	ASSERT_CU(CUDA_SUCCESS, cuMemGetInfo(&cu_free, &cu_total));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetMemoryInfo_v2(h, &m2));
	EXPECT_EQ(nvmlMemory_v2, m2.version);
	EXPECT_EQ(total, m2.total);
	EXPECT_EQ(cu_free, m2.free);
	EXPECT_EQ(0, m2.reserved);
	EXPECT_EQ(m2.total, m2.free + m2.used + m2.reserved);
	EXPECT_LE(m.used + (64 << 20), m2.used);
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(p));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));

	m2.version = NVML_STRUCT_VERSION(Memory, 2) + 1;
	EXPECT_NV(NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
		  nvmlDeviceGetMemoryInfo_v2(h, &m2));
	m2.version = 2 << 24 | 8;
	EXPECT_NV(NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
		  nvmlDeviceGetMemoryInfo_v2(h, &m2));
}

/* The cluster and clique libcufab reports, for GPUs on the fabric. */
static void expect_fabric_matches(struct __test_metadata *_metadata, int i,
				  nvmlDevice_t h)
{
	nvmlGpuFabricInfoV_t v3 = { .version = nvmlGpuFabricInfo_v3 };
	nvmlGpuFabricInfo_v2_t v2 = { .version = nvmlGpuFabricInfo_v2 };
	static const unsigned char zero[16];
	nvmlGpuFabricInfo_t v1;
	CUcliqueInfo cl[4];
	size_t n = 4;
	CUuuid cu;

	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfo(h, &v1));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, &v3));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, (nvmlGpuFabricInfoV_t *)&v2));
	if (cuDeviceGetFabricClusterUuid(&cu, i) == CUDA_ERROR_NOT_SUPPORTED) {
		EXPECT_EQ(NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, v1.state);
		EXPECT_EQ(NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, v3.state);
		EXPECT_EQ(0, memcmp(v3.clusterUuid, zero, 16));
		return;
	}
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCliqueInfo(cl, &n, i));
	ASSERT_LE(1, n);
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_COMPLETED, v1.state);
	EXPECT_NV(NVML_SUCCESS, v1.status);
	EXPECT_EQ(0, memcmp(v1.clusterUuid, cu.bytes, 16));
	EXPECT_NE(0, memcmp(v1.clusterUuid, zero, 16));
	EXPECT_EQ(cl[0].id, v1.cliqueId);
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_COMPLETED, v3.state);
	EXPECT_NV(NVML_SUCCESS, v3.status);
	EXPECT_EQ(0, memcmp(v3.clusterUuid, cu.bytes, 16));
	EXPECT_EQ(cl[0].id, v3.cliqueId);
	EXPECT_EQ(NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY, v3.healthSummary);
	EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(v3.healthMask, _DEGRADED_BW, _FALSE));
	EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(v3.healthMask, _ROUTE_UNHEALTHY, _FALSE));
	EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(v3.healthMask,
						_INCORRECT_CONFIGURATION, _NONE));
	EXPECT_EQ(nvmlGpuFabricInfo_v2, v2.version);
	EXPECT_EQ(v3.healthMask, v2.healthMask);
	EXPECT_EQ(v3.cliqueId, v2.cliqueId);
	EXPECT_EQ(0, memcmp(v2.clusterUuid, cu.bytes, 16));
}

TEST_F(nvml, fabric_matches_libcufab)
{
	nvmlGpuFabricInfoV_t v = { .version = nvmlGpuFabricInfo_v3 };
	nvmlDevice_t h;
	int i;

	for (i = 0; i < self->count; i++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &h));
		expect_fabric_matches(_metadata, i, h);
	}
	v.version = NVML_STRUCT_VERSION(GpuFabricInfo, 3) + 4;
	EXPECT_NV(NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
		  nvmlDeviceGetGpuFabricInfoV(h, &v));
	v.version = 0;
	EXPECT_NV(NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
		  nvmlDeviceGetGpuFabricInfoV(h, &v));
	v.version = 1 << 24 | sizeof(nvmlGpuFabricInfo_t);
	EXPECT_NV(NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
		  nvmlDeviceGetGpuFabricInfoV(h, &v));
}

/* The module parameter as enum cufab_fabric_state, or -1. */
static int cufab_fabric_param(void)
{
	static const char *const names[] = {
		[CUFAB_FABRIC_OK] = "ok",
		[CUFAB_FABRIC_NOT_READY] = "not-ready",
		[CUFAB_FABRIC_ILLEGAL] = "illegal-state",
		[CUFAB_FABRIC_DEGRADED] = "degraded",
	};
	char buf[32] = "";
	FILE *f = fopen(CUFAB_PARAMS "fabric_state", "r");
	size_t i;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(buf, names[i]))
			return i;
	return -1;
}

/*
 * The fabric_state knob (the parameter, or cufabctl's topo set
 * fabric-state while programs run) moves the state NVML reports while NVML
 * stays initialised: a library's fallback path sees not-ready, broken and
 * degraded fabrics.
 */
TEST_F(nvml, fabric_follows_knob)
{
	nvmlGpuFabricInfoV_t v = { .version = nvmlGpuFabricInfo_v3 };
	static const unsigned char zero[16];
	nvmlDevice_t h;
	CUuuid cu;

	if (cuDeviceGetFabricClusterUuid(&cu, 0) != CUDA_SUCCESS)
		SKIP(return, "GPU 0 is not on the fabric");
	if (cufab_param_set("fabric_state", "not-ready"))
		SKIP(return, "cannot write %sfabric_state", CUFAB_PARAMS);
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, &v));
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_IN_PROGRESS, v.state);
	EXPECT_EQ(0, memcmp(v.clusterUuid, zero, 16));

	ASSERT_EQ(0, cufab_param_set("fabric_state", "illegal-state"));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, &v));
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_COMPLETED, v.state);
	EXPECT_NV(NVML_ERROR_INVALID_STATE, v.status);
	EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(v.healthMask, _ROUTE_UNHEALTHY, _TRUE));
	EXPECT_EQ(NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY, v.healthSummary);

	/* degraded: usable, with the bandwidth bit set; through cufabctl */
	ASSERT_EQ(0, ctl("topo set fabric-state degraded"));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, &v));
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_COMPLETED, v.state);
	EXPECT_NV(NVML_SUCCESS, v.status);
	EXPECT_EQ(0, memcmp(v.clusterUuid, cu.bytes, 16));
	EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(v.healthMask, _DEGRADED_BW, _TRUE));
	EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(v.healthMask, _ROUTE_UNHEALTHY, _FALSE));
	EXPECT_EQ(NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY, v.healthSummary);
	EXPECT_EQ(CUFAB_FABRIC_DEGRADED, cufab_fabric_param());

	ASSERT_EQ(0, ctl("topo set fabric-state not-ready"));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, &v));
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_IN_PROGRESS, v.state);
	EXPECT_NE(0, ctl("topo set fabric-state broken"));

	ASSERT_EQ(0, cufab_param_set("fabric_state", "ok"));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetGpuFabricInfoV(h, &v));
	EXPECT_EQ(NVML_GPU_FABRIC_STATE_COMPLETED, v.state);
	EXPECT_NV(NVML_SUCCESS, v.status);
	EXPECT_EQ(0, memcmp(v.clusterUuid, cu.bytes, 16));
	EXPECT_EQ(NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY, v.healthSummary);
}

/* P2P status of every pair and index, as cuDeviceCanAccessPeer says. */
TEST_F(nvml, p2p_matches_libcufab)
{
	nvmlGpuP2PStatus_t st;
	nvmlDevice_t a, b;
	int i, j, idx, can;

	for (i = 0; i < self->count; i++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &a));
		for (j = 0; j < self->count; j++) {
			ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(j, &b));
			ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, i, j));
			for (idx = 0; idx < NVML_P2P_CAPS_INDEX_UNKNOWN; idx++) {
				ASSERT_NV(NVML_SUCCESS,
					  nvmlDeviceGetP2PStatus(a, b, idx, &st));
				EXPECT_EQ(can && idx != NVML_P2P_CAPS_INDEX_PCI ?
					  NVML_P2P_STATUS_OK :
					  NVML_P2P_STATUS_NOT_SUPPORTED, st)
					TH_LOG("gpu%d-gpu%d index %d", i, j, idx);
			}
		}
	}
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &a));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetP2PStatus(a, a, NVML_P2P_CAPS_INDEX_UNKNOWN, &st));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetP2PStatus(a, a, 99, &st));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetP2PStatus(a, a, 0, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetP2PStatus(a, NULL, 0, &st));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetP2PStatus(NULL, a, 0, &st));
	nvmlShutdown();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetP2PStatus(a, a, 0, &st));
}

/* Same GPU: INTERNAL; same host NUMA node: NODE; else SYSTEM. */
TEST_F(nvml, common_ancestor)
{
	nvmlGpuTopologyLevel_t lvl, want;
	nvmlDevice_t a, b;
	int i, j;

	for (i = 0; i < self->count; i++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &a));
		for (j = 0; j < self->count; j++) {
			ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(j, &b));
			ASSERT_NV(NVML_SUCCESS,
				  nvmlDeviceGetTopologyCommonAncestor(a, b, &lvl));
			if (i == j)
				want = NVML_TOPOLOGY_INTERNAL;
			else if (cu_attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, i) ==
				 cu_attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, j))
				want = NVML_TOPOLOGY_NODE;
			else
				want = NVML_TOPOLOGY_SYSTEM;
			EXPECT_EQ(want, lvl) TH_LOG("gpu%d-gpu%d", i, j);
		}
	}
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetTopologyCommonAncestor(a, b, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetTopologyCommonAncestor(a, (nvmlDevice_t)&lvl, &lvl));
	nvmlShutdown();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED,
		  nvmlDeviceGetTopologyCommonAncestor(a, b, &lvl));
}

/* The link calls' argument errors, on @h. */
static void expect_link_errors(struct __test_metadata *_metadata, nvmlDevice_t h)
{
	nvmlEnableState_t on;
	nvmlPciInfo_t pci;
	unsigned int cap;

	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetNvLinkState(h, NVML_NVLINK_MAX_LINKS, &on));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetNvLinkCapability(h, NVML_NVLINK_MAX_LINKS,
						NVML_NVLINK_CAP_VALID, &cap));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetNvLinkRemotePciInfo_v2(h, NVML_NVLINK_MAX_LINKS, &pci));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetNvLinkCapability(h, 0, NVML_NVLINK_CAP_COUNT, &cap));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetNvLinkState(h, 0, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetNvLinkCapability(h, 0, NVML_NVLINK_CAP_VALID, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT,
		  nvmlDeviceGetNvLinkRemotePciInfo_v2(h, 0, NULL));
	EXPECT_NV(NVML_ERROR_INVALID_ARGUMENT, nvmlDeviceGetNvLinkState(NULL, 0, &on));
}

/* Behind the virtual NVSwitch: all 18 links up, each to the switch. */
TEST_F(nvml, nvlinks_to_nvswitch)
{
	nvmlEnableState_t on;
	nvmlPciInfo_t pci;
	unsigned int link, cap;
	nvmlDevice_t h;
	int i;

	if (cufab_param("nvswitch") != 1)
		SKIP(return, "the node has no virtual NVSwitch");
	for (i = 0; i < self->count; i++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(i, &h));
		for (link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
			ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkState(h, link, &on));
			EXPECT_EQ(NVML_FEATURE_ENABLED, on);
			for (cap = 0; cap < NVML_NVLINK_CAP_COUNT; cap++) {
				unsigned int v = 9;

				ASSERT_NV(NVML_SUCCESS,
					  nvmlDeviceGetNvLinkCapability(h, link, cap, &v));
				EXPECT_EQ(cap == NVML_NVLINK_CAP_P2P_SUPPORTED ||
					  cap == NVML_NVLINK_CAP_P2P_ATOMICS ||
					  cap == NVML_NVLINK_CAP_VALID, v);
			}
			ASSERT_NV(NVML_SUCCESS,
				  nvmlDeviceGetNvLinkRemotePciInfo_v2(h, link, &pci));
			EXPECT_STREQ("00000000:05:00.0", pci.busId);
			EXPECT_EQ(0x22a310de, pci.pciDeviceId);
		}
	}
	expect_link_errors(_metadata, h);
	nvmlShutdown();
	EXPECT_NV(NVML_ERROR_UNINITIALIZED, nvmlDeviceGetNvLinkState(h, 0, &on));
	EXPECT_NV(NVML_ERROR_UNINITIALIZED,
		  nvmlDeviceGetNvLinkCapability(h, 0, NVML_NVLINK_CAP_VALID, &cap));
	EXPECT_NV(NVML_ERROR_UNINITIALIZED,
		  nvmlDeviceGetNvLinkRemotePciInfo_v2(h, 0, &pci));
}

/* libcufab in a child (a client): gpu0 reaches exactly gpu2 and gpu3. */
static int child_gpu0_peers_2_3(void)
{
	int j, can;

	if (cuInit(0))
		return 1;
	for (j = 1; j < 4; j++)
		if (cuDeviceCanAccessPeer(&can, 0, j) || can != (j >= 2))
			return 2;
	return 0;
}

FIXTURE(direct) {
	long nvswitch;
	bool changed;
};

FIXTURE_SETUP(direct)
{
	self->changed = false;
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "cufab.ko not loaded");
	if (gpu_count() < 4)
		SKIP(return, "needs 4 GPUs");
	self->nvswitch = cufab_param("nvswitch");
	if (ctl("topo set nvswitch off"))
		SKIP(return, "cufabctl cannot change the topology");
	self->changed = true;
	ASSERT_EQ(0, ctl("dev set gpu0 peers 2-3"));
}

FIXTURE_TEARDOWN(direct)
{
	while (nvmlShutdown() == NVML_SUCCESS)
		;
	if (!self->changed)
		return;
	EXPECT_EQ(0, ctl("dev set gpu0 peers none"));
	if (self->nvswitch)
		EXPECT_EQ(0, ctl("topo set nvswitch on"));
}

/*
 * Without the NVSwitch (peers= pairs): gpu0's link 0 goes to gpu2, link 1
 * to gpu3, the others are down; P2P follows the same pairs.
 */
TEST_F(direct, nvlinks_to_peers)
{
	nvmlDevice_t h0, h1, h2, h3;
	nvmlGpuP2PStatus_t st;
	nvmlPciInfo_t pci, want;
	nvmlEnableState_t on;
	unsigned int link, cap;

	SETUP_SKIPPED();
	ASSERT_EQ(0, in_child(child_gpu0_peers_2_3));
	ASSERT_NV(NVML_SUCCESS, nvmlInit_v2());
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(0, &h0));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(1, &h1));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(2, &h2));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetHandleByIndex_v2(3, &h3));
	for (link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkState(h0, link, &on));
		EXPECT_EQ(link < 2 ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED, on);
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkCapability(h0, link,
				NVML_NVLINK_CAP_P2P_SUPPORTED, &cap));
		EXPECT_EQ(link < 2, cap);
		ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkCapability(h0, link,
				NVML_NVLINK_CAP_VALID, &cap));
		EXPECT_EQ(1, cap);
		if (link >= 2) {
			EXPECT_NV(NVML_ERROR_NOT_SUPPORTED,
				  nvmlDeviceGetNvLinkRemotePciInfo_v2(h0, link, &pci));
		}
	}
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkRemotePciInfo_v2(h0, 0, &pci));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetPciInfo_v3(h2, &want));
	EXPECT_STREQ(want.busId, pci.busId);
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkRemotePciInfo(h0, 1, &pci));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetPciInfo_v3(h3, &want));
	EXPECT_STREQ(want.busId, pci.busId);
	/* the pairs are symmetric: gpu2's only link goes back to gpu0 */
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetNvLinkRemotePciInfo_v2(h2, 0, &pci));
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetPciInfo_v3(h0, &want));
	EXPECT_STREQ(want.busId, pci.busId);

	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetP2PStatus(h0, h2, NVML_P2P_CAPS_INDEX_NVLINK, &st));
	EXPECT_EQ(NVML_P2P_STATUS_OK, st);
	ASSERT_NV(NVML_SUCCESS, nvmlDeviceGetP2PStatus(h0, h1, NVML_P2P_CAPS_INDEX_READ, &st));
	EXPECT_EQ(NVML_P2P_STATUS_NOT_SUPPORTED, st);
	expect_link_errors(_metadata, h0);
}

/*
 * NCCL's multi-node NVLink decision, as its detection does it per rank
 * (one rank per GPU here): the GPU supports FABRIC handles, NVML reports
 * its fabric probe COMPLETED with status SUCCESS and a non-zero cluster
 * UUID, and a FABRIC handle can really be exported; ranks are grouped by
 * (cluster UUID, clique). mnnvl_rank() is 1 when the rank qualifies, its
 * cluster and clique in *r.
 */
struct mnnvl_rank {
	unsigned char uuid[NVML_GPU_FABRIC_UUID_LEN];
	unsigned int clique;
};

static int mnnvl_probe_fabric_handle(int dev)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
	};
	CUmemFabricHandle fh;
	CUmemGenericAllocationHandle h;
	size_t gran;
	int ok;

	if (cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM) ||
	    cuMemCreate(&h, gran, &prop, 0))
		return 0;
	ok = cuMemExportToShareableHandle(&fh, h, CU_MEM_HANDLE_TYPE_FABRIC, 0) ==
	     CUDA_SUCCESS;
	cuMemRelease(h);
	return ok;
}

static int mnnvl_rank(int dev, struct mnnvl_rank *r)
{
	nvmlGpuFabricInfoV_t fi = { .version = nvmlGpuFabricInfo_v3 };
	static const unsigned char zero[NVML_GPU_FABRIC_UUID_LEN];
	nvmlDevice_t h;
	CUcontext ctx;
	int fabric = 0, ok;

	if (cuDeviceGetAttribute(&fabric, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED,
				 dev) || !fabric)
		return 0;
	if (nvmlDeviceGetHandleByIndex_v2(dev, &h) ||
	    nvmlDeviceGetGpuFabricInfoV(h, &fi) ||
	    fi.state != NVML_GPU_FABRIC_STATE_COMPLETED || fi.status != NVML_SUCCESS ||
	    !memcmp(fi.clusterUuid, zero, sizeof(zero)))
		return 0;
	if (cuCtxCreate(&ctx, NULL, 0, dev))
		return 0;
	ok = mnnvl_probe_fabric_handle(dev);
	cuCtxDestroy(ctx);
	memcpy(r->uuid, fi.clusterUuid, sizeof(r->uuid));
	r->clique = fi.cliqueId;
	return ok;
}

FIXTURE(mnnvl) {
	int count;
};

FIXTURE_SETUP(mnnvl)
{
	char path[64];

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "cufab.ko not loaded");
	if (!imex_major())
		SKIP(return, "no %s region", IMEX_REGION);
	/* an administrator's IMEX channel, before cuInit looks for one */
	ASSERT_EQ(0, imex_node(0, path, sizeof(path)));
	ASSERT_CU(CUDA_SUCCESS, cuInit(0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&self->count));
	ASSERT_NV(NVML_SUCCESS, nvmlInit_v2());
}

FIXTURE_TEARDOWN(mnnvl)
{
	cufab_param_set("fabric_state", "ok");
	while (nvmlShutdown() == NVML_SUCCESS)
		;
	/* the channel node this test made, if it did */
	imex_cleanup();
}

/* One node, one clique: every rank decides MNNVL, in the same group. */
TEST_F(mnnvl, nccl_decides_mnnvl)
{
	struct mnnvl_rank first, r;
	int i;

	SETUP_SKIPPED();
	if (cufab_param("nvswitch") != 1)
		SKIP(return, "the node has no virtual NVSwitch");
	for (i = 0; i < self->count; i++) {
		ASSERT_EQ(1, mnnvl_rank(i, &r)) TH_LOG("rank %d", i);
		if (i == 0)
			first = r;
		EXPECT_EQ(0, memcmp(first.uuid, r.uuid, sizeof(r.uuid)));
		EXPECT_EQ(first.clique, r.clique) TH_LOG("rank %d", i);
	}
}

/* The fabric not ready: no rank qualifies, NCCL falls back. */
TEST_F(mnnvl, nccl_falls_back)
{
	struct mnnvl_rank r;
	int i;

	SETUP_SKIPPED();
	if (cufab_param_set("fabric_state", "not-ready"))
		SKIP(return, "cannot write %sfabric_state", CUFAB_PARAMS);
	for (i = 0; i < self->count; i++)
		EXPECT_EQ(0, mnnvl_rank(i, &r)) TH_LOG("rank %d", i);
}

TEST_HARNESS_MAIN
