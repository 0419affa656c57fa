// SPDX-License-Identifier: GPL-2.0
/*
 * Device management through libcufab: cuDeviceGet*, attributes, PCI bus
 * ids, peers and CUDA_VISIBLE_DEVICES.
 *
 * The reference is the kernel itself: the test opens its own client of
 * /dev/cufab and reads every GPU with CUFAB_IOCTL_DEVICE_INFO, then checks
 * that the library reports exactly that. The harness runs each test in a
 * fresh process, so each CUDA_VISIBLE_DEVICES variant sets the variable
 * before its own cuInit.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cufab/cuda.h>
#include <linux/cufab.h>

#include "cufab_test.h"
#include "kselftest_harness.h"

#define UUID_STR_LEN	41

/* What the kernel says about every GPU of the node. */
struct node {
	int num_gpus;
	struct cufab_device_info info[CUFAB_MAX_GPUS];
	int attrs[CUFAB_MAX_GPUS][CUFAB_NUM_DEVICE_ATTRS];
	char uuid[CUFAB_MAX_GPUS][UUID_STR_LEN];
};

static void format_uuid(const void *bytes, char *out)
{
	const unsigned char *u = bytes;

	snprintf(out, UUID_STR_LEN,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Reads the node through the uAPI; 0 or -errno. */
static int node_read(struct node *n)
{
	struct cufab_get_version ver = { .size = sizeof(ver) };
	int fd, i, ret = 0;

	fd = open(CUFAB_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, CUFAB_IOCTL_GET_VERSION, &ver)) {
		ret = -errno;
		goto out;
	}
	n->num_gpus = ver.num_gpus;
	for (i = 0; i < n->num_gpus; i++) {
		struct cufab_device_info *info = &n->info[i];

		memset(info, 0, sizeof(*info));
		info->size = sizeof(*info);
		info->index = i;
		info->num_attrs = CUFAB_NUM_DEVICE_ATTRS;
		info->attrs_ptr = (uintptr_t)n->attrs[i];
		if (ioctl(fd, CUFAB_IOCTL_DEVICE_INFO, info)) {
			ret = -errno;
			goto out;
		}
		format_uuid(info->uuid, n->uuid[i]);
	}
out:
	close(fd);
	return ret;
}

FIXTURE(dev) {
	struct node node;
	int count;
};

/*
 * Skips without the module. The fixture reads the node before cuInit, so
 * each test sees the same GPUs the library does.
 */
FIXTURE_SETUP(dev)
{
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	ASSERT_EQ(0, node_read(&self->node));
	ASSERT_CU(CUDA_SUCCESS, cuInit(0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&self->count));
}

FIXTURE_TEARDOWN(dev)
{
}

/* The harness of 6.1 runs the test body after a SKIP in setup. */
#define SKIPPED()	(_metadata->skip)

TEST_F(dev, count_and_get)
{
	CUdevice d;
	int i, n;

	if (SKIPPED())
		return;
	EXPECT_EQ(self->node.num_gpus, self->count);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetCount(NULL));
	for (i = 0; i < self->count; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGet(&d, i));
		EXPECT_EQ(i, d);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, -1));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, self->count));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&d, INT_MAX));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGet(NULL, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	EXPECT_EQ(self->count, n);
}

TEST_F(dev, name)
{
	char name[CUFAB_NAME_LEN + 8], small[5];
	int i;

	if (SKIPPED())
		return;
	for (i = 0; i < self->count; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetName(name, sizeof(name), i));
		EXPECT_STREQ(self->node.info[i].name, name);
		EXPECT_NE(0U, strlen(name));
		/* Shortened to len, always terminated. */
		memset(small, 'x', sizeof(small));
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetName(small, sizeof(small), i));
		EXPECT_EQ(0, strncmp(name, small, sizeof(small) - 1));
		EXPECT_EQ('\0', small[sizeof(small) - 1]);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetName(NULL, 16, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetName(name, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetName(name, -1, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(name, 16, self->count));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(name, 16, -1));
}

TEST_F(dev, uuid)
{
	CUresult (*uuid_v1)(CUuuid *, CUdevice);
	CUuuid u, u1;
	int i, j;

	if (SKIPPED())
		return;
	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDeviceGetUuid", (void **)&uuid_v1,
						 9020, 0, NULL));
	for (i = 0; i < self->count; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetUuid(&u, i));
		EXPECT_EQ(0, memcmp(u.bytes, self->node.info[i].uuid, 16));
		ASSERT_CU(CUDA_SUCCESS, uuid_v1(&u1, i));
		EXPECT_EQ(0, memcmp(u.bytes, u1.bytes, 16));
		for (j = 0; j < i; j++)
			EXPECT_NE(0, memcmp(self->node.info[i].uuid,
					    self->node.info[j].uuid, 16));
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetUuid(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, uuid_v1(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetUuid(&u, self->count));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, uuid_v1(&u, -1));
}

TEST_F(dev, total_mem)
{
	size_t bytes;
	int i;

	if (SKIPPED())
		return;
	for (i = 0; i < self->count; i++) {
		ASSERT_CU(CUDA_SUCCESS, cuDeviceTotalMem(&bytes, i));
		EXPECT_EQ(self->node.info[i].total_mem, bytes);
		EXPECT_LT(0U, bytes);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceTotalMem(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceTotalMem(&bytes, self->count));
}

/* Every attribute the kernel knows, exactly as the kernel reports it. */
TEST_F(dev, every_attribute)
{
	int i, a, v;

	if (SKIPPED())
		return;
	ASSERT_EQ(CU_DEVICE_ATTRIBUTE_MAX, (int)self->node.info[0].num_attrs);
	for (i = 0; i < self->count; i++) {
		for (a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
			v = INT_MIN;
			ASSERT_CU(CUDA_SUCCESS,
				  cuDeviceGetAttribute(&v, (CUdevice_attribute)a, i));
			EXPECT_EQ(self->node.attrs[i][a], v) {
				TH_LOG("gpu %d attribute %d", i, a);
			}
		}
	}
}

/* An attribute, or INT_MIN when the query fails. */
static int attr(CUdevice_attribute a, CUdevice dev)
{
	int v;

	return cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : INT_MIN;
}

/* Attributes that restate other queries must agree with them. */
TEST_F(dev, attributes_consistent)
{
	const struct cufab_device_info *info;
	int i;

	if (SKIPPED())
		return;
	for (i = 0; i < self->count; i++) {
		info = &self->node.info[i];
		EXPECT_EQ((int)info->pci_bus, attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i));
		EXPECT_EQ((int)info->pci_domain, attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i));
		EXPECT_EQ((int)info->pci_device, attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i));
		EXPECT_EQ(info->host_numa_node, attr(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, i));
		EXPECT_EQ(!!(info->flags & CUFAB_DEV_F_MULTICAST),
			  attr(CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, i));
		EXPECT_EQ(!!(info->flags & CUFAB_DEV_F_FABRIC_HANDLE),
			  attr(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, i));
		EXPECT_EQ(1, attr(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, i));
		EXPECT_LT(0, attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, i));
	}
}

/*
 * The attributes that promise calls (Documentation/attributes.rst): each
 * reads nonzero exactly when the library has every call behind it and the
 * GPU has the feature (0: none needed).
 */
static const struct feature_attr {
	CUdevice_attribute attr;
	__u32 feature;
	const char *calls[4];
} feature_attrs[] = {
#define POOL_CALLS	{ "cuMemPoolCreate", "cuMemAllocFromPoolAsync", \
			  "cuMemPoolDestroy", "cuDeviceGetDefaultMemPool" }
	{ CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, CUFAB_DEV_F_MEMORY_POOLS, POOL_CALLS },
	{ CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, CUFAB_DEV_F_MEMORY_POOLS, POOL_CALLS },
	{ CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, CUFAB_DEV_F_MEMORY_POOLS, POOL_CALLS },
	{ CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, CUFAB_DEV_F_MEMORY_POOLS, POOL_CALLS },
#define MANAGED_CALLS	{ "cuMemAllocManaged", "cuStreamAttachMemAsync" }
	{ CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0, MANAGED_CALLS },
	{ CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, CUFAB_DEV_F_PAGEABLE_ACCESS, MANAGED_CALLS },
	{ CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, CUFAB_DEV_F_CONCURRENT_MANAGED,
	  MANAGED_CALLS },
#define REGISTER_CALLS	{ "cuMemHostRegister", "cuMemHostUnregister" }
	{ CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 0, REGISTER_CALLS },
	{ CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, 0, REGISTER_CALLS },
	{ CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 0, REGISTER_CALLS },
#define MEMOP_CALLS	{ "cuStreamWaitValue32", "cuStreamWaitValue64", \
			  "cuStreamWriteValue64", "cuStreamBatchMemOp" }
	{ CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0, MEMOP_CALLS },
	{ CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, 0, MEMOP_CALLS },
	{ CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 0,
	  { "cuIpcGetEventHandle", "cuIpcOpenEventHandle", "cuEventCreate" } },
#define VMM_CALLS	{ "cuMemCreate", "cuMemAddressReserve", "cuMemMap", "cuMemSetAccess" }
	{ CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0, VMM_CALLS },
	{ CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0, VMM_CALLS },
	{ CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0, VMM_CALLS },
#define SHARE_CALLS	{ "cuMemExportToShareableHandle", "cuMemImportFromShareableHandle" }
	{ CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0, SHARE_CALLS },
	{ CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, CUFAB_DEV_F_FABRIC_HANDLE,
	  SHARE_CALLS },
	{ CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, CUFAB_DEV_F_MULTICAST,
	  { "cuMulticastCreate", "cuMulticastAddDevice", "cuMulticastBindMem" } },
	{ CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED, CUFAB_DEV_F_LE_UNICAST,
	  { "cuLogicalEndpointCreate", "cuLogicalEndpointBindMem" } },
	{ CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0, { "cuMemGetHandleForAddressRange" } },
};

/*
 * Does the library have @name, by symbol (its own, or the _v2 one cuda.h
 * maps it to) and by cuGetProcAddress alike?
 */
static int have_call(struct __test_metadata *_metadata, const char *name)
{
	CUdriverProcAddressQueryResult st;
	void *sym = dlsym(RTLD_DEFAULT, name), *pfn = NULL;
	char v2[128];

	snprintf(v2, sizeof(v2), "%s_v2", name);
	if (!sym)
		sym = dlsym(RTLD_DEFAULT, v2);

	EXPECT_CU(CUDA_SUCCESS, cuGetProcAddress(name, &pfn, CUDA_VERSION, 0, &st));
	EXPECT_EQ(!!sym, st == CU_GET_PROC_ADDRESS_SUCCESS) {
		TH_LOG("%s: exported %d, cuGetProcAddress status %d", name, !!sym, st);
	}
	return sym && pfn;
}

TEST_F(dev, feature_attributes_follow_calls)
{
	const struct feature_attr *f;
	size_t i, c;
	int g, calls, want;

	if (SKIPPED())
		return;
	for (i = 0; i < sizeof(feature_attrs) / sizeof(feature_attrs[0]); i++) {
		f = &feature_attrs[i];
		calls = 1;
		for (c = 0; c < 4 && f->calls[c]; c++)
			calls &= have_call(_metadata, f->calls[c]);
		for (g = 0; g < self->count; g++) {
			want = calls && (!f->feature ||
					 (self->node.info[g].flags & f->feature));
			EXPECT_EQ(want, !!attr(f->attr, g)) {
				TH_LOG("gpu %d attribute %d: calls %s, feature %s", g,
				       f->attr, calls ? "present" : "missing",
				       self->node.info[g].flags & f->feature ? "on" : "off");
			}
		}
	}
}

TEST_F(dev, attribute_errors)
{
	int v;

	if (SKIPPED())
		return;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetAttribute(&v, (CUdevice_attribute)-1, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, self->count));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, -1));
}

static void bus_id_of(const struct cufab_device_info *info, char *out, size_t len)
{
	snprintf(out, len, "%04x:%02x:%02x.0", info->pci_domain, info->pci_bus,
		 info->pci_device);
}

TEST_F(dev, pci_bus_id)
{
	char id[32], want[32], small[8];
	int i;

	if (SKIPPED())
		return;
	for (i = 0; i < self->count; i++) {
		bus_id_of(&self->node.info[i], want, sizeof(want));
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetPCIBusId(id, sizeof(id), i));
		EXPECT_STREQ(want, id);
		/* 13 bytes is enough, as CUDA documents. */
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetPCIBusId(id, 13, i));
		EXPECT_STREQ(want, id);
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetPCIBusId(small, sizeof(small), i));
		EXPECT_EQ(0, strncmp(want, small, sizeof(small) - 1));
		EXPECT_EQ('\0', small[sizeof(small) - 1]);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetPCIBusId(NULL, 16, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetPCIBusId(id, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuDeviceGetPCIBusId(id, sizeof(id), self->count));
}

TEST_F(dev, by_pci_bus_id)
{
	const struct cufab_device_info *info;
	char id[32];
	CUdevice d;
	int i;

	if (SKIPPED())
		return;
	for (i = 0; i < self->count; i++) {
		info = &self->node.info[i];
		/* domain:bus:device.function */
		bus_id_of(info, id, sizeof(id));
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetByPCIBusId(&d, id));
		EXPECT_EQ(i, d);
		/* domain:bus:device, upper case */
		snprintf(id, sizeof(id), "%04X:%02X:%02X", info->pci_domain,
			 info->pci_bus, info->pci_device);
		d = -1;
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetByPCIBusId(&d, id));
		EXPECT_EQ(i, d);
		/* bus:device.function */
		if (info->pci_domain == 0) {
			snprintf(id, sizeof(id), "%02x:%02x.0", info->pci_bus,
				 info->pci_device);
			d = -1;
			ASSERT_CU(CUDA_SUCCESS, cuDeviceGetByPCIBusId(&d, id));
			EXPECT_EQ(i, d);
		}
		/* No virtual GPU has function 1. */
		snprintf(id, sizeof(id), "%04x:%02x:%02x.1", info->pci_domain,
			 info->pci_bus, info->pci_device);
		EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetByPCIBusId(&d, id));
	}
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetByPCIBusId(&d, "ffff:ff:1f.0"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetByPCIBusId(&d, "not a bus id"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetByPCIBusId(&d, ""));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetByPCIBusId(&d, "0000:41:00.0junk"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetByPCIBusId(NULL, "0000:41:00.0"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetByPCIBusId(&d, NULL));
}

TEST_F(dev, can_access_peer)
{
	int i, j, can;

	if (SKIPPED())
		return;
	for (i = 0; i < self->count; i++) {
		for (j = 0; j < self->count; j++) {
			can = -1;
			ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, i, j));
			if (i == j) {
				EXPECT_EQ(0, can);
			} else {
				EXPECT_EQ((int)((self->node.info[i].peer_mask >> j) & 1), can);
			}
		}
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceCanAccessPeer(NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceCanAccessPeer(&can, self->count, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceCanAccessPeer(&can, 0, self->count));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceCanAccessPeer(&can, 0, -1));
}

/*
 * CUDA_VISIBLE_DEVICES. Each variant is an environment template and the
 * kernel indices expected to be visible, in order, or NO_DEVICE. In the
 * template "{N}" stands for the UUID string of kernel GPU N, "{Nu}" for its
 * shortest unambiguous prefix, "{Nl}" for it in upper case and "{*}" for
 * the prefix every UUID shares (ambiguous with two GPUs or more).
 */
#define NO_DEVICE	-1

FIXTURE(visible) {
	struct node node;
};

FIXTURE_VARIANT(visible) {
	const char *env;		/* NULL: unset */
	int expect[8];			/* kernel indices, -2 terminated */
	int needs;			/* GPUs the node must have */
};

#define END	-2

FIXTURE_VARIANT_ADD(visible, unset) { NULL, { END }, 1 };
FIXTURE_VARIANT_ADD(visible, one) { "1", { 1, END }, 2 };
FIXTURE_VARIANT_ADD(visible, reorder) { "1,0", { 1, 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, three) { "2,0,1", { 2, 0, 1, END }, 3 };
FIXTURE_VARIANT_ADD(visible, spaces) { " 1 , 0 ", { 1, 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, uuid) { "{1}", { 1, END }, 2 };
FIXTURE_VARIANT_ADD(visible, uuid_prefix) { "{1u},{0}", { 1, 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, uuid_upper) { "{1l}", { 1, END }, 2 };
FIXTURE_VARIANT_ADD(visible, mixed) { "{1},0", { 1, 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, stop_at_bad_index) { "1,99,0", { 1, END }, 2 };
FIXTURE_VARIANT_ADD(visible, stop_at_garbage) { "0,7x,1", { 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, stop_at_repeat) { "0,0,1", { 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, stop_at_empty_entry) { "1,,0", { 1, END }, 2 };
FIXTURE_VARIANT_ADD(visible, stop_at_bad_uuid) { "0,GPU-zzzz,1", { 0, END }, 2 };
FIXTURE_VARIANT_ADD(visible, empty) { "", { NO_DEVICE }, 1 };
FIXTURE_VARIANT_ADD(visible, only_bad) { "99", { NO_DEVICE }, 1 };
FIXTURE_VARIANT_ADD(visible, negative) { "-1", { NO_DEVICE }, 1 };
FIXTURE_VARIANT_ADD(visible, ambiguous_uuid) { "{*}", { NO_DEVICE }, 2 };
FIXTURE_VARIANT_ADD(visible, mig_uuid) { "MIG-0", { NO_DEVICE }, 1 };

FIXTURE_SETUP(visible)
{
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	ASSERT_EQ(0, node_read(&self->node));
	if (self->node.num_gpus < variant->needs)
		SKIP(return, "needs %d GPUs, the node has %d", variant->needs,
		     self->node.num_gpus);
}

FIXTURE_TEARDOWN(visible)
{
}

/* Length of the prefix UUID i shares with every other UUID. */
static size_t shared_prefix(const struct node *n, int i)
{
	size_t len = 0, l;
	int j;

	for (j = 0; j < n->num_gpus; j++) {
		if (j == i)
			continue;
		for (l = 0; n->uuid[i][l] && n->uuid[i][l] == n->uuid[j][l]; l++)
			;
		if (l > len)
			len = l;
	}
	return len;
}

/* Expands the template of the variant; see above. */
static void expand(const struct node *n, const char *tmpl, char *out, size_t len)
{
	size_t o = 0, l;
	char *end;
	long i;

	while (*tmpl && o + UUID_STR_LEN < len) {
		if (*tmpl != '{') {
			out[o++] = *tmpl++;
			continue;
		}
		if (tmpl[1] == '*') {
			/* the prefix GPUs 0 and 1 share, and all do */
			l = 0;
			while (n->uuid[0][l] && n->uuid[0][l] == n->uuid[1][l])
				l++;
			memcpy(out + o, n->uuid[0], l);
			o += l;
			tmpl += 3;
			continue;
		}
		i = strtol(tmpl + 1, &end, 10);
		if (*end == 'u') {
			l = shared_prefix(n, i) + 1;
			memcpy(out + o, n->uuid[i], l);
			end++;
		} else if (*end == 'l') {
			for (l = 0; n->uuid[i][l]; l++)
				out[o + l] = toupper((unsigned char)n->uuid[i][l]);
			end++;
		} else {
			l = strlen(n->uuid[i]);
			memcpy(out + o, n->uuid[i], l);
		}
		o += l;
		tmpl = end + 1;
	}
	out[o] = '\0';
}

TEST_F(visible, cuda_visible_devices)
{
	char env[512], id[32];
	int count, i, want;
	CUresult res;
	CUuuid u;

	if (SKIPPED())
		return;
	if (variant->env) {
		expand(&self->node, variant->env, env, sizeof(env));
		TH_LOG("CUDA_VISIBLE_DEVICES=\"%s\"", env);
		ASSERT_EQ(0, setenv("CUDA_VISIBLE_DEVICES", env, 1));
	} else {
		unsetenv("CUDA_VISIBLE_DEVICES");
	}

	res = cuInit(0);
	if (variant->expect[0] == NO_DEVICE) {
		EXPECT_CU(CUDA_ERROR_NO_DEVICE, res);
		EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&count));
		return;
	}
	ASSERT_CU(CUDA_SUCCESS, res);
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&count));
	if (!variant->env) {
		EXPECT_EQ(self->node.num_gpus, count);
	} else {
		for (want = 0; variant->expect[want] != END; want++)
			;
		EXPECT_EQ(want, count);
	}
	for (i = 0; i < count; i++) {
		int k = variant->env ? variant->expect[i] : i;

		/* Ordinal i is kernel GPU k: same UUID, same bus id. */
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetUuid(&u, i));
		EXPECT_EQ(0, memcmp(u.bytes, self->node.info[k].uuid, 16)) {
			TH_LOG("ordinal %d is not kernel GPU %d", i, k);
		}
		ASSERT_CU(CUDA_SUCCESS, cuDeviceGetPCIBusId(id, sizeof(id), i));
		bus_id_of(&self->node.info[k], env, sizeof(env));
		EXPECT_STREQ(env, id);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetName(id, sizeof(id), count));
}

/* A GPU that is not visible cannot be found by its bus id or peered with. */
TEST(hidden_gpu)
{
	struct node node;
	char id[32];
	CUdevice d;
	int can;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	ASSERT_EQ(0, node_read(&node));
	if (node.num_gpus < 2)
		SKIP(return, "needs 2 GPUs, the node has %d", node.num_gpus);
	ASSERT_EQ(0, setenv("CUDA_VISIBLE_DEVICES", "1", 1));
	ASSERT_CU(CUDA_SUCCESS, cuInit(0));
	bus_id_of(&node.info[0], id, sizeof(id));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetByPCIBusId(&d, id));
	bus_id_of(&node.info[1], id, sizeof(id));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetByPCIBusId(&d, id));
	EXPECT_EQ(0, d);
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceCanAccessPeer(&can, 0, 1));
}

TEST_HARNESS_MAIN
