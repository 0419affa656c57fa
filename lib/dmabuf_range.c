// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuMemGetHandleForAddressRange: a dma-buf fd of the pages behind a range
 * of device memory (kernel/dmabuf_range.c has the rules).
 *
 * CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD is the only handle type; *handle is
 * an int that receives the fd (O_CLOEXEC). The flag
 * CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE asks for the memory mapped
 * through the GPU's PCIe BAR1 instead of a coherent CPU-GPU link; the
 * driver refuses it with NOT_SUPPORTED on a platform where GPU memory is
 * not coherent with the CPU, which is the x86 node cufab models (and a
 * virtual GPU has no BAR1): programs then retry with 0, as NCCL does.
 */
#include "mem.h"

CUFAB_EXPORT CUresult CUDAAPI
cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr, size_t size,
			      CUmemRangeHandleType handleType,
			      unsigned long long flags)
{
	struct cufab_mem_range_export arg = {
		.size = sizeof(arg), .addr = dptr, .length = size,
	};
	const unsigned long long pcie = CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE;
	CUresult res;
	int ret;

	res = cufab_call_args(handle && (flags & ~pcie) == 0 &&
			      handleType == CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags) {
		cufab_dbg("cuMemGetHandleForAddressRange: CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE: no PCIe BAR1 mapping on this platform, use flags 0");
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	ret = cufab_ioctl(CUFAB_IOCTL_MEM_RANGE_EXPORT, &arg);
	if (ret)
		return cufab_mem_result(-ret);
	*(int *)handle = arg.out_fd;
	return CUDA_SUCCESS;
}
