// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Peer access between devices. The runtime enables access from the
 * current device's context to the peer device's primary context (which it
 * retains for the process), as NVIDIA's does; the driver's codes are the
 * runtime's (PEER_ACCESS_ALREADY_ENABLED is cudaErrorPeerAccessAlreadyEnabled
 * ...).
 */
#include "internal.h"

RT_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
					      int peerDevice)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && !canAccessPeer)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = rt_device_check(device) ?: rt_device_check(peerDevice);
	if (res == CUDA_SUCCESS)
		res = cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice);
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaDeviceGetP2PAttribute(int *value,
						enum cudaDeviceP2PAttr attr,
						int srcDevice, int dstDevice)
{
	CUresult res = rt_driver_init();

	if (res == CUDA_SUCCESS && !value)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = rt_device_check(srcDevice) ?: rt_device_check(dstDevice);
	if (res == CUDA_SUCCESS)
		res = cuDeviceGetP2PAttribute(value, (CUdevice_P2PAttribute)attr,
					      srcDevice, dstDevice);
	return rt_result(res);
}

/* The peer's primary context, the thread's context current. */
static CUresult rt_peer_context(int peerDevice, CUcontext *peer)
{
	CUresult res = rt_init();

	if (res == CUDA_SUCCESS)
		res = rt_device_check(peerDevice);
	if (res == CUDA_SUCCESS && peerDevice == rt_current_device()) {
		rt_log("peer access: device %d cannot be its own peer",
		       peerDevice);
		res = CUDA_ERROR_INVALID_DEVICE;
	}
	if (res == CUDA_SUCCESS)
		res = rt_primary(peerDevice, peer, NULL);
	return res;
}

RT_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice,
						 unsigned int flags)
{
	CUcontext peer;
	CUresult res;

	if (flags)
		return rt_error(cudaErrorInvalidValue);
	res = rt_peer_context(peerDevice, &peer);
	if (res == CUDA_SUCCESS)
		res = cuCtxEnablePeerAccess(peer, 0);
	return rt_result(res);
}

RT_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	CUcontext peer;
	CUresult res;

	res = rt_peer_context(peerDevice, &peer);
	if (res == CUDA_SUCCESS)
		res = cuCtxDisablePeerAccess(peer);
	return rt_result(res);
}
