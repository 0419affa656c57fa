// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Multicast objects: cuMulticastCreate, cuMulticastAddDevice,
 * cuMulticastBindMem, cuMulticastBindAddr, cuMulticastUnbind,
 * cuMulticastGetGranularity. The handle is a CUmemGenericAllocationHandle
 * (cuMemRelease, cuMemMap, cuMemExportToShareableHandle work on it).
 *
 * Binds block in the kernel until every device of the team has joined.
 * They are the one place where a signal ends a call: a handler installed
 * with SA_RESTART restarts the wait (the kernel returns -ERESTARTSYS), one
 * without it makes the bind fail with CUDA_ERROR_SYSTEM_NOT_READY and
 * nothing bound, so a program can give up on a team that never forms.
 */

#include "mem.h"

/* errno -> CUresult (Documentation/uapi.rst, multicast rows) */
static CUresult mc_result(int err)
{
	return cufab_result(CUFAB_ERRMAP_MC, err);
}

/* Is there a device that does multicast at all? */
static int mc_supported(void)
{
	int i;

	for (i = 0; i < cufab.num_kdev; i++)
		if (cufab.kdev[i].features & CUFAB_DEV_F_MULTICAST)
			return 1;
	return 0;
}

static CUresult mc_ready(void)
{
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	if (mc_supported())
		return CUDA_SUCCESS;
	cufab_dbg("refused: no GPU of this node has MULTICAST_SUPPORTED (an NVSwitch and the multicast feature)");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* A handle that cannot be one of the kernel's (0, or past 32 bits). */
static CUresult mc_bad_handle(CUmemGenericAllocationHandle h)
{
	cufab_dbg("refused: handle 0x%llx: not a handle cuMulticastCreate or cuMemCreate returns",
		  (unsigned long long)h);
	return CUDA_ERROR_INVALID_VALUE;
}

CUFAB_EXPORT CUresult CUDAAPI cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle,
						const CUmulticastObjectProp *prop)
{
	struct cufab_mc_create arg = { .size = sizeof(arg) };
	CUresult res = mc_ready();
	int ret;

	if (res != CUDA_SUCCESS)
		return res;
	if (!mcHandle || !prop || prop->handleTypes > 0xffffffffULL) {
		cufab_dbg("refused: mcHandle %p prop %p: both needed, and handleTypes of 32 bits",
			  (void *)mcHandle, (const void *)prop);
		return CUDA_ERROR_INVALID_VALUE;
	}
	arg.num_devices = prop->numDevices;
	arg.handle_types = (__u32)prop->handleTypes;
	arg.length = prop->size;
	arg.mc_flags = prop->flags;
	if (arg.handle_types & CUFAB_HANDLE_FABRIC)
		cufab_imex_prepare();
	ret = cufab_ioctl(CUFAB_IOCTL_MC_CREATE, &arg);
	if (ret)
		return mc_result(-ret);
	*mcHandle = arg.out_handle;
	return CUDA_SUCCESS;
}

/*
 * The calls on one member of a team: its GPU as a kernel index, the
 * object as the kernel's handle id.
 */
static CUresult mc_member(CUmemGenericAllocationHandle mcHandle, CUdevice dev,
			  __u32 *handle, __u32 *kindex)
{
	const struct cufab_device *d;
	CUresult res = mc_ready();

	/* the device before the handle, as CUDA checks them */
	if (res == CUDA_SUCCESS)
		res = cufab_call_dev(1, dev, CUDA_ERROR_INVALID_DEVICE, &d);
	if (res != CUDA_SUCCESS)
		return res;
	if (!cufab_mem_handle_ok(mcHandle))
		return mc_bad_handle(mcHandle);
	*handle = (__u32)mcHandle;
	*kindex = d->index;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle,
						   CUdevice dev)
{
	struct cufab_mc_add_device arg = { .size = sizeof(arg) };
	CUresult res = mc_member(mcHandle, dev, &arg.handle, &arg.dev);

	if (res != CUDA_SUCCESS)
		return res;
	return mc_result(-cufab_ioctl(CUFAB_IOCTL_MC_ADD_DEVICE, &arg));
}

static CUresult mc_bind(struct cufab_mc_bind *arg,
			CUmemGenericAllocationHandle mcHandle, size_t mcOffset,
			size_t size, unsigned long long flags)
{
	CUresult res = mc_ready();

	if (res != CUDA_SUCCESS)
		return res;
	if (!cufab_mem_handle_ok(mcHandle))
		return mc_bad_handle(mcHandle);
	arg->size = sizeof(*arg);
	arg->handle = (__u32)mcHandle;
	arg->dev = -1;	/* the device the memory lives on */
	arg->offset = mcOffset;
	arg->length = size;
	arg->bind_flags = flags;
	return mc_result(-cufab_ioctl_once(CUFAB_IOCTL_MC_BIND, arg));
}

CUFAB_EXPORT CUresult CUDAAPI cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle,
						 size_t mcOffset,
						 CUmemGenericAllocationHandle memHandle,
						 size_t memOffset, size_t size,
						 unsigned long long flags)
{
	struct cufab_mc_bind arg = { 0 };
	CUresult res;

	res = cufab_call_args(cufab_mem_handle_ok(memHandle));
	if (res != CUDA_SUCCESS)
		return res;
	arg.mem_handle = (__u32)memHandle;
	arg.mem_offset = memOffset;
	return mc_bind(&arg, mcHandle, mcOffset, size, flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle,
						  size_t mcOffset, CUdeviceptr memptr,
						  size_t size, unsigned long long flags)
{
	struct cufab_mc_bind arg = { .flags = CUFAB_BIND_ADDR };

	arg.addr = memptr;
	return mc_bind(&arg, mcHandle, mcOffset, size, flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle,
						CUdevice dev, size_t mcOffset,
						size_t size)
{
	struct cufab_mc_unbind arg = {
		.size = sizeof(arg), .offset = mcOffset, .length = size,
	};
	CUresult res = mc_member(mcHandle, dev, &arg.handle, &arg.dev);

	if (res != CUDA_SUCCESS)
		return res;
	return mc_result(-cufab_ioctl(CUFAB_IOCTL_MC_UNBIND, &arg));
}

/*
 * The kernel's rule at create (cufab_mc_granularity()): the largest of
 * every GPU of the node, hidden ones and those without multicast
 * included, so that the MINIMUM reported here is always a valid size.
 */
CUFAB_EXPORT CUresult CUDAAPI cuMulticastGetGranularity(size_t *granularity,
							const CUmulticastObjectProp *prop,
							CUmulticastGranularity_flags option)
{
	CUresult res = mc_ready();
	__u64 g = 0, v;
	int i;

	if (res != CUDA_SUCCESS)
		return res;
	if (!granularity || !prop ||
	    (option != CU_MULTICAST_GRANULARITY_MINIMUM &&
	     option != CU_MULTICAST_GRANULARITY_RECOMMENDED)) {
		cufab_dbg("refused: granularity %p prop %p option %d: both pointers needed, option MINIMUM (0) or RECOMMENDED (1)",
			  (void *)granularity, (const void *)prop, (int)option);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < cufab.num_kdev; i++) {
		v = option == CU_MULTICAST_GRANULARITY_MINIMUM ?
		    cufab.kdev[i].mc_granularity :
		    cufab.kdev[i].mc_granularity_rec;
		if (v > g)
			g = v;
	}
	*granularity = g;
	return CUDA_SUCCESS;
}
