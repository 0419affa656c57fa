// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Logical endpoints (CUDA 13.3 Compute Fabric Transport): the twelve
 * cuLogicalEndpoint* calls, one ioctl each.
 *
 * The kernel owns the id space, the endpoints, their teams and bindings;
 * here CUdevice ordinals become kernel GPU indexes and errno becomes
 * CUresult (Documentation/uapi.rst). None of these calls needs a current
 * context; Import passes the current context's GPU, if any, so that the
 * kernel can refuse an endpoint that GPU cannot reach.
 */
#include <string.h>

#include "mem.h"

_Static_assert(sizeof(CUlogicalEndpointFabricHandle) == CUFAB_FABRIC_HANDLE_LEN,
	       "CUlogicalEndpointFabricHandle is the kernel's fabric handle");
_Static_assert(sizeof(CUlogicalEndpointProp) == 24, "CUlogicalEndpointProp");
_Static_assert(__builtin_offsetof(CUlogicalEndpointProp, unicast.device) == 4 &&
	       __builtin_offsetof(CUlogicalEndpointProp, multicast.numDevices) == 4 &&
	       __builtin_offsetof(CUlogicalEndpointProp, size) == 8 &&
	       __builtin_offsetof(CUlogicalEndpointProp, ipcHandleTypes) == 16 &&
	       __builtin_offsetof(CUlogicalEndpointProp, flags) == 20,
	       "CUlogicalEndpointProp layout of CUDA 13.3");
_Static_assert(CUFAB_LE_TYPE_UNICAST == (int)CU_LOGICAL_ENDPOINT_TYPE_UNICAST &&
	       CUFAB_LE_TYPE_MULTICAST == (int)CU_LOGICAL_ENDPOINT_TYPE_MULTICAST &&
	       CUFAB_LE_FLAG_COUNTED_OPS == (int)CU_LOGICAL_ENDPOINT_FLAG_COUNTED_OPS,
	       "endpoint types and flags pass through unchanged");

static CUresult le_ioctl(unsigned long request, void *arg)
{
	int ret = cufab_ioctl(request, arg);

	return ret ? cufab_result(CUFAB_ERRMAP_LE, -ret) : CUDA_SUCCESS;
}

/*
 * CUdevice ordinal -> kernel GPU index. No logical endpoint page lists
 * INVALID_DEVICE: a bad ordinal is a bad value.
 */
static CUresult le_device(CUdevice dev, __u32 *kindex)
{
	const struct cufab_device *d = cufab_device(dev);

	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	*kindex = d->index;
	return CUDA_SUCCESS;
}

static CUresult le_prop(const CUlogicalEndpointProp *prop,
			struct cufab_le_prop *out)
{
	if (!prop)
		return CUDA_ERROR_INVALID_VALUE;
	out->type = (__u32)prop->type;
	out->length = prop->size;
	out->ipc_handle_types = prop->ipcHandleTypes;
	out->le_flags = prop->flags;
	if (prop->type == CU_LOGICAL_ENDPOINT_TYPE_UNICAST)
		return le_device(prop->unicast.device, &out->dev_or_num);
	out->dev_or_num = prop->multicast.numDevices;
	return CUDA_SUCCESS;
}

/*
 * @args_ok is the caller's NULL and zero checks (struct cufab_call); the
 * macro passes its text, for the refusal's line.
 */
static CUresult le_call_rule(int args_ok, const char *rule,
			     unsigned long request, void *arg)
{
	CUresult res = cufab_call_args_rule(args_ok, rule);

	return res == CUDA_SUCCESS ? le_ioctl(request, arg) : res;
}

#define le_call(args_ok, request, arg) \
	le_call_rule(!!(args_ok), #args_ok, (request), (arg))

/*
 * The calls on one GPU of an endpoint. The kernel knows GPUs by index,
 * not by this process's ordinals (CUDA_VISIBLE_DEVICES), so an ordinal
 * with no GPU behind it is INVALID_VALUE here.
 */
static CUresult le_dev_call_rule(int args_ok, const char *rule, CUdevice dev,
				 __u32 *kindex, unsigned long request,
				 void *arg)
{
	const struct cufab_device *d;
	CUresult res = cufab_call_dev_rule(args_ok, rule, dev,
					   CUDA_ERROR_INVALID_VALUE, &d);

	if (res != CUDA_SUCCESS)
		return res;
	*kindex = d->index;
	return le_ioctl(request, arg);
}

#define le_dev_call(args_ok, dev, kindex, request, arg) \
	le_dev_call_rule(!!(args_ok), #args_ok, (dev), (kindex), (request), (arg))

/*
 * A FABRIC handle needs this process's IMEX channel in the kernel before
 * the call that creates, exports or imports it.
 */
static CUresult le_share_ioctl(int fabric, unsigned long request, void *arg)
{
	if (fabric)
		cufab_imex_prepare();
	return le_ioctl(request, arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointIdReserve(CUlogicalEndpointId *baseLeId, cuuint32_t count)
{
	struct cufab_le_id_reserve arg = { .size = sizeof(arg), .count = count };
	CUresult res;

	res = le_call(baseLeId && count, CUFAB_IOCTL_LE_ID_RESERVE, &arg);
	if (res == CUDA_SUCCESS)
		*baseLeId = arg.out_base;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointIdRelease(CUlogicalEndpointId baseLeId, cuuint32_t count)
{
	struct cufab_le_id_release arg = {
		.size = sizeof(arg), .base = baseLeId, .count = count,
	};

	return le_call(1, CUFAB_IOCTL_LE_ID_RELEASE, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointGetLimits(cuuint64_t *bindAlignment, cuuint64_t *maxSize,
			   const CUlogicalEndpointProp *prop)
{
	struct cufab_le_get_limits arg = { .size = sizeof(arg) };
	CUresult res;

	res = cufab_call_args(bindAlignment && maxSize);
	if (res == CUDA_SUCCESS)
		res = le_prop(prop, &arg.prop);
	if (res == CUDA_SUCCESS)
		res = le_ioctl(CUFAB_IOCTL_LE_GET_LIMITS, &arg);
	if (res == CUDA_SUCCESS) {
		*bindAlignment = arg.out_bind_align;
		*maxSize = arg.out_max_size;
	}
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointCreate(CUlogicalEndpointId leId,
			const CUlogicalEndpointProp *prop)
{
	struct cufab_le_create arg = { .size = sizeof(arg), .id = leId };
	CUresult res;

	res = cufab_call_args(1);
	if (res == CUDA_SUCCESS)
		res = le_prop(prop, &arg.prop);
	if (res != CUDA_SUCCESS)
		return res;
	return le_share_ioctl(prop->ipcHandleTypes &
			      CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC,
			      CUFAB_IOCTL_LE_CREATE, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI cuLogicalEndpointDestroy(CUlogicalEndpointId leId)
{
	struct cufab_le_destroy arg = { .size = sizeof(arg), .id = leId };

	return le_call(1, CUFAB_IOCTL_LE_DESTROY, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointAddDevice(CUlogicalEndpointId leId, CUdevice dev)
{
	struct cufab_le_add_device arg = { .size = sizeof(arg), .id = leId };

	return le_dev_call(1, dev, &arg.dev, CUFAB_IOCTL_LE_ADD_DEVICE, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointQuery(CUlogicalEndpointId leId, cuuint32_t count,
		       int *queryStatus)
{
	struct cufab_le_query arg = {
		.size = sizeof(arg), .id = leId, .count = count,
	};
	CUresult res;

	res = le_call(queryStatus && count, CUFAB_IOCTL_LE_QUERY, &arg);
	if (res == CUDA_SUCCESS)
		*queryStatus = (int)arg.out_ready;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointBindMem(CUlogicalEndpointId leId, CUdevice dev,
			 cuuint64_t offset,
			 CUmemGenericAllocationHandle memHandle,
			 cuuint64_t memOffset, cuuint64_t size,
			 unsigned long long flags)
{
	struct cufab_le_bind arg = {
		.size = sizeof(arg), .id = leId, .offset = offset,
		.length = size, .mem_handle = (__u32)memHandle,
		.mem_offset = memOffset, .bind_flags = flags,
	};

	return le_dev_call(cufab_mem_handle_ok(memHandle), dev, &arg.dev,
			   CUFAB_IOCTL_LE_BIND, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointBindAddr(CUlogicalEndpointId leId, CUdevice dev,
			  cuuint64_t offset, void *ptr, cuuint64_t size,
			  unsigned long long flags)
{
	struct cufab_le_bind arg = {
		.size = sizeof(arg), .flags = CUFAB_BIND_ADDR, .id = leId,
		.offset = offset, .length = size,
		.addr = (__u64)(uintptr_t)ptr, .bind_flags = flags,
	};

	return le_dev_call(!!ptr, dev, &arg.dev, CUFAB_IOCTL_LE_BIND, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointUnbind(CUlogicalEndpointId leId, CUdevice dev,
			cuuint64_t offset, cuuint64_t size)
{
	struct cufab_le_unbind arg = {
		.size = sizeof(arg), .id = leId, .offset = offset,
		.length = size,
	};

	return le_dev_call(1, dev, &arg.dev, CUFAB_IOCTL_LE_UNBIND, &arg);
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointExport(void *handle, CUlogicalEndpointId leId,
			CUlogicalEndpointIpcHandleType handleType)
{
	struct cufab_le_share arg = {
		.size = sizeof(arg), .id = leId, .handle_type = (__u32)handleType,
		.dev = -1,
	};
	CUresult res;

	res = cufab_call_args(!!handle);
	if (res == CUDA_SUCCESS)
		res = le_share_ioctl(handleType == CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC,
				     CUFAB_IOCTL_LE_EXPORT, &arg);
	if (res == CUDA_SUCCESS)
		memcpy(handle, arg.fabric, sizeof(arg.fabric));
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI
cuLogicalEndpointImport(CUlogicalEndpointId leId, const void *handle,
			CUlogicalEndpointIpcHandleType handleType)
{
	struct cufab_le_share arg = {
		.size = sizeof(arg), .id = leId, .handle_type = (__u32)handleType,
		.dev = -1,
	};
	CUresult res = cufab_call_args(!!handle);
	CUdevice dev;

	if (res != CUDA_SUCCESS)
		return res;
	memcpy(arg.fabric, handle, sizeof(arg.fabric));
	/* the GPU this process works on, when it has a current context */
	if (cuCtxGetDevice(&dev) == CUDA_SUCCESS)
		arg.dev = (__s32)cufab_device(dev)->index;
	return le_share_ioctl(handleType == CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC,
			      CUFAB_IOCTL_LE_IMPORT, &arg);
}
