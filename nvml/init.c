// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * NVML initialisation, error strings, system queries and device handles.
 *
 * nvmlInit_v2 and nvmlInitWithFlags count references; the first reads the
 * node once to learn how many GPUs there are, which stays the device count
 * until the last nvmlShutdown, as NVML's does. A handle is a pointer into
 * a static table, one slot per GPU index, so it stays valid (and equal)
 * across init cycles. Everything else is read from the kernel when asked.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nvml_internal.h"

static pthread_mutex_t nvml_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int nvml_refs;
static unsigned int nvml_count;
static struct nvmlDevice_st nvml_handles[CUFAB_MAX_GPUS];

/* What a failed read of the node means to an NVML caller. */
static nvmlReturn_t errno_result(int err)
{
	switch (err) {
	case -ENOENT:		/* no "cufab" family: the module is not loaded */
		return NVML_ERROR_DRIVER_NOT_LOADED;
	case -EPERM:
	case -EACCES:
		return NVML_ERROR_NO_PERMISSION;
	case -ENOMEM:
		return NVML_ERROR_MEMORY;
	case -EPROTO:		/* a module without the attributes we read */
		return NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	default:
		return NVML_ERROR_UNKNOWN;
	}
}

nvmlReturn_t nvml_topo_get(struct nvml_topo **t)
{
	int ret;

	*t = malloc(sizeof(**t));
	if (!*t)
		return NVML_ERROR_MEMORY;
	ret = nvml_topo_read(*t);
	if (ret) {
		free(*t);
		*t = NULL;
		/* The module went away under an initialised library. */
		return ret == -ENOENT ? NVML_ERROR_GPU_IS_LOST :
					errno_result(ret);
	}
	return NVML_SUCCESS;
}

void nvml_topo_put(struct nvml_topo *t)
{
	free(t);
}

int nvml_initialised(void)
{
	int ready;

	pthread_mutex_lock(&nvml_lock);
	ready = nvml_refs > 0;
	pthread_mutex_unlock(&nvml_lock);
	return ready;
}

int nvml_handle_ok(nvmlDevice_t device)
{
	uintptr_t p = (uintptr_t)device, base = (uintptr_t)nvml_handles;
	unsigned int count;

	pthread_mutex_lock(&nvml_lock);
	count = nvml_count;
	pthread_mutex_unlock(&nvml_lock);
	return p >= base && p < base + count * sizeof(nvml_handles[0]) &&
	       (p - base) % sizeof(nvml_handles[0]) == 0;
}

nvmlDevice_t nvml_handle(unsigned int index)
{
	return &nvml_handles[index];
}

nvmlReturn_t nvml_device(nvmlDevice_t device, int args_ok,
			 struct nvml_topo **t, const struct nvml_gpu **g)
{
	nvmlReturn_t res;

	if (!nvml_initialised())
		return NVML_ERROR_UNINITIALIZED;
	if (!nvml_handle_ok(device) || !args_ok)
		return NVML_ERROR_INVALID_ARGUMENT;
	res = nvml_topo_get(t);
	if (res != NVML_SUCCESS)
		return res;
	/* An administrator removed the GPU (TOPO_SET) after nvmlInit. */
	if (device->index >= (*t)->num_gpus) {
		nvml_topo_put(*t);
		return NVML_ERROR_GPU_IS_LOST;
	}
	*g = &(*t)->gpus[device->index];
	return NVML_SUCCESS;
}

nvmlReturn_t nvml_gpu_get(nvmlDevice_t device, int args_ok,
			  struct nvml_gpu *g)
{
	int ret;

	if (!nvml_initialised())
		return NVML_ERROR_UNINITIALIZED;
	if (!nvml_handle_ok(device) || !args_ok)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = nvml_gpu_read(device->index, g);
	/*
	 * ENODEV: an administrator removed the GPU (TOPO_SET) after
	 * nvmlInit; ENOENT: the module went away under an initialised library
	 */
	if (ret == -ENODEV || ret == -ENOENT)
		return NVML_ERROR_GPU_IS_LOST;
	return ret ? errno_result(ret) : NVML_SUCCESS;
}

nvmlReturn_t nvml_copy_string(char *dst, unsigned int length, const char *src)
{
	size_t n = strlen(src) + 1;

	if (length < n)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(dst, src, n);
	return NVML_SUCCESS;
}

/*
 * Both flags are accepted: cufab always has a GPU (NO_GPUS changes
 * nothing) and attaches none (NO_ATTACH is what it always does).
 */
NVML_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	nvmlReturn_t res = NVML_SUCCESS;
	struct nvml_topo *t;
	unsigned int i;
	int ret;

	pthread_mutex_lock(&nvml_lock);
	if (nvml_refs == 0) {
		t = malloc(sizeof(*t));
		ret = t ? nvml_topo_read(t) : -ENOMEM;
		if (ret) {
			res = errno_result(ret);
		} else {
			nvml_count = t->num_gpus;
			for (i = 0; i < nvml_count; i++)
				nvml_handles[i].index = i;
		}
		free(t);
	}
	if (res == NVML_SUCCESS)
		nvml_refs++;
	pthread_mutex_unlock(&nvml_lock);
	return res;
}

NVML_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	return nvmlInitWithFlags(0);
}

NVML_EXPORT nvmlReturn_t nvmlShutdown(void)
{
	nvmlReturn_t res = NVML_SUCCESS;

	pthread_mutex_lock(&nvml_lock);
	if (nvml_refs == 0) {
		res = NVML_ERROR_UNINITIALIZED;
	} else if (--nvml_refs == 0) {
		nvml_count = 0;
		nvml_nl_close();
	}
	pthread_mutex_unlock(&nvml_lock);
	return res;
}

static const char *const nvml_errors[] = {
	[NVML_SUCCESS] = "Success",
	[NVML_ERROR_UNINITIALIZED] = "Uninitialized",
	[NVML_ERROR_INVALID_ARGUMENT] = "Invalid Argument",
	[NVML_ERROR_NOT_SUPPORTED] = "Not Supported",
	[NVML_ERROR_NO_PERMISSION] = "Insufficient Permissions",
	[NVML_ERROR_ALREADY_INITIALIZED] = "Already Initialized",
	[NVML_ERROR_NOT_FOUND] = "Not Found",
	[NVML_ERROR_INSUFFICIENT_SIZE] = "Insufficient Size",
	[NVML_ERROR_INSUFFICIENT_POWER] = "Insufficient External Power",
	[NVML_ERROR_DRIVER_NOT_LOADED] = "Driver Not Loaded",
	[NVML_ERROR_TIMEOUT] = "Timeout",
	[NVML_ERROR_IRQ_ISSUE] = "Interrupt request issue",
	[NVML_ERROR_LIBRARY_NOT_FOUND] = "NVML Shared Library Not Found",
	[NVML_ERROR_FUNCTION_NOT_FOUND] = "Function Not Found",
	[NVML_ERROR_CORRUPTED_INFOROM] = "Corrupted infoROM",
	[NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
	[NVML_ERROR_RESET_REQUIRED] = "GPU requires restart",
	[NVML_ERROR_OPERATING_SYSTEM] =
		"The operating system has blocked the request.",
	[NVML_ERROR_LIB_RM_VERSION_MISMATCH] =
		"RM has detected an NVML/RM version mismatch.",
	[NVML_ERROR_IN_USE] = "In use by another client",
	[NVML_ERROR_MEMORY] = "Insufficient Memory",
	[NVML_ERROR_NO_DATA] = "No data",
	[NVML_ERROR_VGPU_ECC_NOT_SUPPORTED] =
		"The requested vgpu operation is not available on target device, because ECC is enabled",
	[NVML_ERROR_INSUFFICIENT_RESOURCES] =
		"Ran out of critical resources, other than memory",
	[NVML_ERROR_FREQ_NOT_SUPPORTED] =
		"The requested frequency is not supported",
	[NVML_ERROR_ARGUMENT_VERSION_MISMATCH] =
		"The provided version is invalid/unsupported",
	[NVML_ERROR_DEPRECATED] =
		"The requested functionality has been deprecated",
	[NVML_ERROR_NOT_READY] = "The system is not ready for the request",
	[NVML_ERROR_GPU_NOT_FOUND] = "No GPUs were found",
	[NVML_ERROR_INVALID_STATE] =
		"Resource not in correct state to perform requested operation",
	[NVML_ERROR_RESET_TYPE_NOT_SUPPORTED] =
		"Reset not supported for given device/parameters",
};

/* Never NULL: a code NVML does not define is an unknown error. */
NVML_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
	if ((unsigned int)result < ARRAY_SIZE(nvml_errors) &&
	    nvml_errors[result])
		return nvml_errors[result];
	return "Unknown Error";
}

/*
 * The driver is the kernel module: its version (MODULE_VERSION, "1.7"),
 * as the running module reports it.
 */
NVML_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version,
						    unsigned int length)
{
	char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	FILE *f;
	int ok;

	if (!nvml_initialised())
		return NVML_ERROR_UNINITIALIZED;
	if (!version)
		return NVML_ERROR_INVALID_ARGUMENT;
	f = fopen("/sys/module/cufab/version", "re");
	if (!f)
		return NVML_ERROR_GPU_IS_LOST;
	ok = !!fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!ok)
		return NVML_ERROR_UNKNOWN;
	buf[strcspn(buf, "\n")] = '\0';
	return nvml_copy_string(version, length, buf);
}

/* The NVML API version, then this library's: "13.0.1.0". */
NVML_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version,
						  unsigned int length)
{
	if (!version)
		return NVML_ERROR_INVALID_ARGUMENT;
	return nvml_copy_string(version, length,
				NVML_API_VERSION_STR "." CUFAB_NVML_VERSION);
}

typedef int (*cu_driver_get_version_t)(int *);

/*
 * cuDriverGetVersion of the libcuda.so.1 the loader finds (cufab's drop-in
 * sits next to this library, whose RUNPATH is its own directory).
 */
static nvmlReturn_t cuda_driver_version(int *v)
{
	cu_driver_get_version_t get;
	nvmlReturn_t res;
	void *lib;

	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	get = (cu_driver_get_version_t)dlsym(lib, "cuDriverGetVersion");
	if (!get)
		res = NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		res = get(v) == 0 ? NVML_SUCCESS : NVML_ERROR_UNKNOWN;
	dlclose(lib);
	return res;
}

NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	if (!cudaDriverVersion)
		return NVML_ERROR_INVALID_ARGUMENT;
	return cuda_driver_version(cudaDriverVersion);
}

/* CUDA 13.0: the version whose API this library's header follows. */
#define NVML_KNOWN_CUDA_VERSION	13000

/* Without a libcuda.so.1, "a known supported version", as NVML says. */
NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	if (!cudaDriverVersion)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (cuda_driver_version(cudaDriverVersion) != NVML_SUCCESS)
		*cudaDriverVersion = NVML_KNOWN_CUDA_VERSION;
	return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	nvmlReturn_t res = NVML_SUCCESS;

	pthread_mutex_lock(&nvml_lock);
	if (nvml_refs == 0)
		res = NVML_ERROR_UNINITIALIZED;
	else if (!deviceCount)
		res = NVML_ERROR_INVALID_ARGUMENT;
	else
		*deviceCount = nvml_count;
	pthread_mutex_unlock(&nvml_lock);
	return res;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
						       nvmlDevice_t *device)
{
	nvmlReturn_t res = NVML_SUCCESS;

	pthread_mutex_lock(&nvml_lock);
	if (nvml_refs == 0)
		res = NVML_ERROR_UNINITIALIZED;
	else if (!device || index >= nvml_count)
		res = NVML_ERROR_INVALID_ARGUMENT;
	else
		*device = &nvml_handles[index];
	pthread_mutex_unlock(&nvml_lock);
	return res;
}

/* Index of the first GPU seen at init that @match accepts, or -1. */
static int find_gpu(const struct nvml_topo *t,
		    int (*match)(const struct nvml_gpu *, const void *),
		    const void *key)
{
	unsigned int i, count;

	pthread_mutex_lock(&nvml_lock);
	count = nvml_count;
	pthread_mutex_unlock(&nvml_lock);
	for (i = 0; i < count && i < t->num_gpus; i++)
		if (match(&t->gpus[i], key))
			return i;
	return -1;
}

/* The handle of the GPU @match finds: NOT_FOUND when none does. */
static nvmlReturn_t handle_by(int (*match)(const struct nvml_gpu *, const void *),
			      const void *key, nvmlDevice_t *device)
{
	struct nvml_topo *t;
	nvmlReturn_t res;
	int i;

	res = nvml_topo_get(&t);
	if (res != NVML_SUCCESS)
		return res;
	i = find_gpu(t, match, key);
	nvml_topo_put(t);
	if (i < 0)
		return NVML_ERROR_NOT_FOUND;
	*device = &nvml_handles[i];
	return NVML_SUCCESS;
}

void nvml_uuid_format(const __u8 *u, char *out)
{
	snprintf(out, NVML_UUID_STR_LEN,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

static int uuid_match(const struct nvml_gpu *g, const void *key)
{
	char s[NVML_UUID_STR_LEN];

	nvml_uuid_format(g->uuid, s);
	return !strcasecmp(s, key);
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid,
						   nvmlDevice_t *device)
{
	if (!nvml_initialised())
		return NVML_ERROR_UNINITIALIZED;
	if (!uuid || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	return handle_by(uuid_match, uuid, device);
}

struct pci_key {
	unsigned int domain, bus, device, function;
};

/*
 * One hexadecimal field of a bus id ending at @end: digits only (no sign,
 * space or 0x, which sscanf would take). Returns the character after it.
 */
static const char *hex_field(const char *s, char end, unsigned int *v)
{
	unsigned long long x = 0;
	const char *p = s;

	while (isxdigit((unsigned char)*p) && p - s < 8) {
		x = x * 16 + (isdigit((unsigned char)*p) ? *p - '0' :
			      tolower((unsigned char)*p) - 'a' + 10);
		p++;
	}
	if (p == s || *p != end)
		return NULL;
	*v = x;
	return end ? p + 1 : p;
}

/*
 * "domain:bus:device.function", "domain:bus:device" or
 * "bus:device.function", hexadecimal, as NVML accepts them.
 */
static int parse_bus_id(const char *s, struct pci_key *k)
{
	const char *p;

	const char *bus;

	k->function = 0;
	/* domain:bus:device, then the end or .function */
	bus = hex_field(s, ':', &k->domain);
	p = bus ? hex_field(bus, ':', &k->bus) : NULL;
	if (p) {
		if (hex_field(p, '\0', &k->device))
			return 0;
		p = hex_field(p, '.', &k->device);
		return p && hex_field(p, '\0', &k->function) ? 0 : -1;
	}
	/* bus:device.function */
	k->domain = 0;
	p = hex_field(s, ':', &k->bus);
	p = p ? hex_field(p, '.', &k->device) : NULL;
	return p && hex_field(p, '\0', &k->function) ? 0 : -1;
}

static int pci_match(const struct nvml_gpu *g, const void *key)
{
	const struct pci_key *k = key;
	nvmlPciInfo_t pci;

	nvml_pci_info(g, &pci);
	/* Every virtual GPU is function 0. */
	return pci.domain == k->domain && pci.bus == k->bus &&
	       pci.device == k->device && k->function == 0;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
							  nvmlDevice_t *device)
{
	struct pci_key key;

	if (!nvml_initialised())
		return NVML_ERROR_UNINITIALIZED;
	if (!pciBusId || !device || parse_bus_id(pciBusId, &key))
		return NVML_ERROR_INVALID_ARGUMENT;
	return handle_by(pci_match, &key, device);
}
