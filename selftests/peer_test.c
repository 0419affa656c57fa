// SPDX-License-Identifier: GPL-2.0
/*
 * Peer context access through libcufab: cuCtxEnablePeerAccess and
 * cuCtxDisablePeerAccess. Every documented code (INVALID_CONTEXT for no
 * current context, a bad, destroyed or the current context;
 * INVALID_VALUE for Flags; PEER_ACCESS_UNSUPPORTED; ALREADY_ENABLED and
 * NOT_ENABLED per pair of contexts; TOO_MANY_PEERS past max_peers), one-way
 * access, links dropped by cuCtxDestroy, primary context reset and process
 * death, two processes sharing a GPU's connections, and cufabctl peer show.
 *
 * Tests that change the topology (nvswitch off, gpu0's peers) or
 * max_peers do it from this process, which opens no client (cufabctl
 * cannot change a GPU while one is open), and run the CUDA calls in
 * children.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>

#include "topo_helpers.h"
#include "cufab_test.h"
#include "kselftest_harness.h"

/* Never issued by the library: slot far beyond its table. */
#define GARBAGE_CTX	((CUcontext)0xdeadbeefcafeULL)

static CUcontext ctx_on(CUdevice dev)
{
	CUcontext c = NULL;

	if (cuCtxCreate(&c, NULL, 0, dev) != CUDA_SUCCESS)
		return NULL;
	return c;
}

/* Skip unless GPUs 0 and 1 are peers both ways. */
#define PAIR_OR_SKIP() do {						\
	int __n = 0, __a = 0, __b = 0;					\
									\
	INIT_OR_SKIP();							\
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&__n));		\
	if (__n < 2)							\
		SKIP(return, "needs 2 GPUs");				\
	ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&__a, 0, 1));	\
	ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&__b, 1, 0));	\
	if (!__a || !__b)						\
		SKIP(return, "GPUs 0 and 1 are not peers (nvswitch=0?)"); \
} while (0)

/* @b on GPU 1, then @a on GPU 0, which stays current: 0, or -1. */
static int pair_on(CUcontext *a, CUcontext *b)
{
	*b = ctx_on(1);
	*a = *b ? ctx_on(0) : NULL;
	return *a ? 0 : -1;
}

TEST(not_initialized)
{
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxEnablePeerAccess(NULL, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxDisablePeerAccess(NULL));
}

/* No current context: INVALID_CONTEXT, whatever the peer. */
TEST(no_current_context)
{
	CUcontext a, popped;

	INIT_OR_SKIP();
	a = ctx_on(0);
	ASSERT_NE(NULL, a);
	ASSERT_CU(CUDA_SUCCESS, cuCtxPopCurrent(&popped));
	ASSERT_EQ(a, popped);
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(a, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDisablePeerAccess(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
}

/* NULL, garbage, destroyed or the current context itself. */
TEST(invalid_peer_context)
{
	CUcontext a, b;

	INIT_OR_SKIP();
	b = ctx_on(0);
	ASSERT_NE(NULL, b);
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	a = ctx_on(0);
	ASSERT_NE(NULL, a);

	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(NULL, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuCtxEnablePeerAccess(GARBAGE_CTX, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(b, 0));
	/*
	 * The current context itself: NVIDIA's 13.0 driver says
	 * PEER_ACCESS_UNSUPPORTED (its documentation: INVALID_CONTEXT).
	 */
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, cuCtxEnablePeerAccess(a, 0));

	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDisablePeerAccess(NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT,
		  cuCtxDisablePeerAccess(GARBAGE_CTX));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDisablePeerAccess(b));
	/* a valid context that was never enabled */
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
}

/* Flags is reserved: any bit is INVALID_VALUE and enables nothing. */
TEST(flags_must_be_zero)
{
	CUcontext a, b;

	PAIR_OR_SKIP();
	ASSERT_EQ(0, pair_on(&a, &b));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuCtxEnablePeerAccess(b, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuCtxEnablePeerAccess(b, 0x80000000u));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(b));
	cuCtxDestroy(a);
	cuCtxDestroy(b);
}

/* 704 on a repeated enable, 705 on a disable of nothing; both benign. */
TEST(already_enabled_and_not_enabled)
{
	CUcontext a, b;

	PAIR_OR_SKIP();
	ASSERT_EQ(0, pair_on(&a, &b));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		  cuCtxEnablePeerAccess(b, 0));
	/* the refusal changed nothing: one disable undoes the enable */
	EXPECT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(b));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));
	/* the next call is not affected: no sticky error */
	EXPECT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
}

/* Access is one way: b -> a needs its own enable. */
TEST(unidirectional)
{
	CUcontext a, b;

	PAIR_OR_SKIP();
	ASSERT_EQ(0, pair_on(&a, &b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));

	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(a, 0));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		  cuCtxEnablePeerAccess(a, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(a));

	/* a -> b is still there */
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(a));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		  cuCtxEnablePeerAccess(b, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(b));
	cuCtxDestroy(a);
	cuCtxDestroy(b);
}

/* State is per pair of contexts, not per pair of devices. */
TEST(per_context_pair)
{
	CUcontext a, b, c;

	PAIR_OR_SKIP();
	b = ctx_on(1);
	c = ctx_on(1);
	a = ctx_on(0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, c);
	ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(c));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(c, 0));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(b));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		  cuCtxEnablePeerAccess(c, 0));
	cuCtxDestroy(a);
	cuCtxDestroy(b);
	cuCtxDestroy(c);
}

/*
 * Two contexts of one device: cuDeviceCanAccessPeer(d, d) is 0, so the
 * documented answer is PEER_ACCESS_UNSUPPORTED.
 */
TEST(same_device_unsupported)
{
	CUcontext a, b;
	int can = -1;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, 0, 0));
	EXPECT_EQ(0, can);
	b = ctx_on(0);
	a = ctx_on(0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
		  cuCtxEnablePeerAccess(b, 0));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  cuCtxDisablePeerAccess(b));
	cuCtxDestroy(a);
	cuCtxDestroy(b);
}

/*
 * What an H100 pair over NVLink reports, and the documented errors: the
 * same device twice or an ordinal out of range is INVALID_DEVICE.
 */
TEST(p2p_attributes)
{
	int v, n = 0;

	PAIR_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	v = -1;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1));
	EXPECT_EQ(0, v);
	v = -1;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
	EXPECT_EQ(1, v);
	v = -1;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 1, 0));
	EXPECT_EQ(1, v);
	v = -1;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 0, 1));
	EXPECT_EQ(1, v);
	v = -1;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED, 0, 1));
	EXPECT_EQ(0, v);

	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, n));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuDeviceGetP2PAttribute(&v,
			CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, -1, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetP2PAttribute(NULL,
			CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetP2PAttribute(&v,
			(CUdevice_P2PAttribute)0, 0, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuDeviceGetP2PAttribute(&v,
			(CUdevice_P2PAttribute)6, 0, 1));
}

/* Every pair agrees with cuDeviceCanAccessPeer, whatever the topology. */
TEST(p2p_attributes_follow_can_access)
{
	int i, j, n = 0, can, v;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, i, j));
			ASSERT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
					CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, i, j));
			EXPECT_EQ(can, v);
			ASSERT_CU(CUDA_SUCCESS, cuDeviceGetP2PAttribute(&v,
					CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, i, j));
			EXPECT_EQ(can, v);
		}
	}
}

/*
 * Copies between two GPUs' cuMemAlloc memory work with or without peer
 * access, whichever context is current: the driver stages them. Peer
 * access gates device-side work only.
 */
static int copy_round(CUdeviceptr d0, CUdeviceptr d1, unsigned char seed)
{
	unsigned char in[256], out[256];
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(seed + i);
	if (cuMemcpyHtoD(d0, in, sizeof(in)) ||
	    cuMemcpyDtoD(d1, d0, sizeof(in)) ||
	    cuMemsetD8(d0, 0, sizeof(in)) ||
	    cuMemcpy(d0, d1, sizeof(in)) ||
	    cuMemcpyDtoH(out, d0, sizeof(out)))
		return -1;
	return memcmp(in, out, sizeof(in)) ? -1 : 0;
}

TEST(copy_between_gpus)
{
	CUdeviceptr d0 = 0, d1 = 0;
	CUcontext a, b;
	int n = 0, can = 0;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	if (n < 2)
		SKIP(return, "needs 2 GPUs");
	ASSERT_EQ(0, pair_on(&a, &b));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d0, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&d1, 4096));
	/* no peer access, from either side */
	EXPECT_EQ(0, copy_round(d0, d1, 1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(a));
	EXPECT_EQ(0, copy_round(d0, d1, 2));
	EXPECT_EQ(0, copy_round(d1, d0, 3));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, 0, 1));
	if (can) {
		ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));
		EXPECT_EQ(0, copy_round(d0, d1, 4));
		EXPECT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(b));
	}
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));
	EXPECT_CU(CUDA_SUCCESS, cuMemFree(d1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
}

/* cuCtxDestroy of either end drops the link; the peer handle is dead. */
TEST(destroy_drops_links)
{
	CUcontext a, b;

	PAIR_OR_SKIP();
	ASSERT_EQ(0, pair_on(&a, &b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(b));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(b, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxDisablePeerAccess(b));
	b = ctx_on(1);
	ASSERT_NE(NULL, b);
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(a));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(b, 0));

	/* b -> a, then a goes: b can enable again, to a new context */
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));
	ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(a, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(a));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(a, 0));
	a = ctx_on(0);
	ASSERT_NE(NULL, a);
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(b));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(a, 0));
	cuCtxDestroy(a);
	cuCtxDestroy(b);
}

/* Primary contexts: a reset drops their links like a destroy. */
TEST(primary_reset_drops_links)
{
	CUcontext p0, p1;

	PAIR_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p1, 1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSetCurrent(p0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(p1, 0));
	EXPECT_CU(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		  cuCtxEnablePeerAccess(p1, 0));
	/* an inactive primary context is not a valid peer */
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxReset(1));
	EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cuCtxEnablePeerAccess(p1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&p1, 1));
	EXPECT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(p1, 0));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(1));
	EXPECT_CU(CUDA_SUCCESS, cuDevicePrimaryCtxRelease(0));
}

/* ---- topology and max_peers: this process opens no client ---- */


struct topo_save {
	long nvswitch;
	long max_peers;
	bool changed;
};

/*
 * Without the NVSwitch, gpu0 reaching @peers ("1-3", "none"), max_peers
 * @max (-1: unchanged); topo_restore() puts the load-time state back.
 * Skips when the node cannot be changed.
 */
static void topo_set(struct __test_metadata *_metadata, struct topo_save *s,
		     int min_gpus, const char *peers, int max)
{
	char cmd[64], val[16];
	int n;

	s->changed = false;
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "cufab.ko not loaded");
	n = gpu_count();
	if (n < min_gpus)
		SKIP(return, "needs %d GPUs", min_gpus);
	s->nvswitch = cufab_param("nvswitch");
	s->max_peers = cufab_param("max_peers");
	if (s->nvswitch < 0 || s->max_peers < 0)
		SKIP(return, "no nvswitch or max_peers parameter");
	if (ctl("topo set nvswitch off"))
		SKIP(return, "cufabctl cannot change the topology (a client is open?)");
	s->changed = true;
	snprintf(cmd, sizeof(cmd), "dev set gpu0 peers %s", peers);
	ASSERT_EQ(0, ctl(cmd));
	if (max >= 0) {
		snprintf(val, sizeof(val), "%d", max);
		ASSERT_EQ(0, cufab_param_set("max_peers", val));
	}
}

static void topo_restore(struct __test_metadata *_metadata,
			 struct topo_save *s)
{
	char val[24];

	if (!s->changed)
		return;
	snprintf(val, sizeof(val), "%ld", s->max_peers);
	EXPECT_EQ(0, cufab_param_set("max_peers", val));
	EXPECT_EQ(0, ctl("dev set gpu0 peers none"));
	if (s->nvswitch)
		EXPECT_EQ(0, ctl("topo set nvswitch on"));
}

/* gpu0 and gpu1 are not peers: 217 both ways, a link of zeros. */
static int not_peers(void)
{
	static const CUdevice_P2PAttribute attrs[] = {
		CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
		CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
		CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
		CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED,
		CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED,
	};
	CUdeviceptr d0, d1;
	CUcontext a, b;
	int can = -1, v;
	size_t i;

	if (cuDeviceCanAccessPeer(&can, 0, 1) || can)
		return 10;
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		v = -1;
		if (cuDeviceGetP2PAttribute(&v, attrs[i], 0, 1) || v != 0)
			return 20;
	}
	b = ctx_on(1);
	a = ctx_on(0);
	if (!a || !b)
		return 11;
	if (cuMemAlloc(&d0, 4096) || cuCtxSetCurrent(b) ||
	    cuMemAlloc(&d1, 4096) || cuCtxSetCurrent(a))
		return 21;
	/* no link at all: copies still work */
	if (copy_round(d0, d1, 5))
		return 22;
	if (cuCtxEnablePeerAccess(b, 0) != CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
		return 12;
	if (cuCtxSetCurrent(b) ||
	    cuCtxEnablePeerAccess(a, 0) != CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
		return 13;
	if (cuCtxDisablePeerAccess(a) != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
		return 14;
	return 0;
}

TEST(unsupported_without_peer_link)
{
	struct topo_save s;

	topo_set(_metadata, &s, 2, "none", -1);
	SETUP_SKIPPED();
	EXPECT_EQ(0, in_child(not_peers));
	topo_restore(_metadata, &s);
}

/*
 * max_peers 1 on gpu0: one peer GPU, any number of contexts on it; a
 * second GPU is 711 until every link to the first is gone (disable,
 * destroy of either end, primary reset).
 */
static int one_peer_gpu(void)
{
	CUcontext a, b, c, d, p;

	b = ctx_on(1);
	c = ctx_on(2);
	d = ctx_on(1);
	a = ctx_on(0);
	if (!a || !b || !c || !d)
		return 10;
	if (cuCtxEnablePeerAccess(b, 0))
		return 11;
	if (cuCtxEnablePeerAccess(c, 0) != CUDA_ERROR_TOO_MANY_PEERS)
		return 12;
	/* another context of the connected GPU needs no new connection */
	if (cuCtxEnablePeerAccess(d, 0))
		return 13;
	if (cuCtxDisablePeerAccess(b) ||
	    cuCtxEnablePeerAccess(c, 0) != CUDA_ERROR_TOO_MANY_PEERS)
		return 14;
	if (cuCtxDisablePeerAccess(d) || cuCtxEnablePeerAccess(c, 0))
		return 15;
	/* the limit is gpu0's: gpu1 -> gpu0 is its own connection */
	if (cuCtxSetCurrent(b) || cuCtxEnablePeerAccess(a, 0))
		return 16;
	/* destroying the peer frees the connection */
	if (cuCtxDestroy(c) || cuCtxSetCurrent(a) ||
	    cuCtxEnablePeerAccess(b, 0))
		return 17;
	/* destroying the context with access frees it too */
	if (cuCtxDestroy(a))
		return 18;
	c = ctx_on(2);
	if (!c || cuDevicePrimaryCtxRetain(&p, 0) || cuCtxSetCurrent(p) ||
	    cuCtxEnablePeerAccess(c, 0))
		return 19;
	if (cuCtxEnablePeerAccess(b, 0) != CUDA_ERROR_TOO_MANY_PEERS)
		return 20;
	/* and so does a primary context reset */
	if (cuDevicePrimaryCtxReset(0) || cuDevicePrimaryCtxRetain(&p, 0) ||
	    cuCtxSetCurrent(p) || cuCtxEnablePeerAccess(b, 0))
		return 21;
	return 0;
}

TEST(too_many_peers)
{
	struct topo_save s;
	char peers[16];
	int n = gpu_count();

	snprintf(peers, sizeof(peers), "1-%d", n > 1 ? n - 1 : 1);
	topo_set(_metadata, &s, 3, peers, 1);
	SETUP_SKIPPED();
	EXPECT_EQ(0, in_child(one_peer_gpu));
	topo_restore(_metadata, &s);
}

/* max_peers 0: no connection at all. */
static int no_peer_gpu(void)
{
	CUcontext a, b;

	b = ctx_on(1);
	a = ctx_on(0);
	if (!a || !b)
		return 10;
	return cuCtxEnablePeerAccess(b, 0) == CUDA_ERROR_TOO_MANY_PEERS ? 0 : 11;
}

TEST(max_peers_zero)
{
	struct topo_save s;

	topo_set(_metadata, &s, 2, "1", 0);
	SETUP_SKIPPED();
	EXPECT_EQ(0, in_child(no_peer_gpu));
	topo_restore(_metadata, &s);
}

/* With the NVSwitch max_peers does not apply. */
static int two_peer_gpus(void)
{
	CUcontext a, b, c;

	b = ctx_on(1);
	c = ctx_on(2);
	a = ctx_on(0);
	if (!a || !b || !c)
		return 10;
	if (cuCtxEnablePeerAccess(b, 0) || cuCtxEnablePeerAccess(c, 0))
		return 11;
	return 0;
}

TEST(nvswitch_unlimited)
{
	long old = cufab_param("max_peers");
	char val[24];

	if (access(CUFAB_DEV, F_OK) || old < 0)
		SKIP(return, "cufab.ko not loaded");
	if (cufab_param("nvswitch") != 1)
		SKIP(return, "node without the virtual NVSwitch");
	if (gpu_count() < 3)
		SKIP(return, "needs 3 GPUs");
	ASSERT_EQ(0, cufab_param_set("max_peers", "1"));
	EXPECT_EQ(0, in_child(two_peer_gpus));
	snprintf(val, sizeof(val), "%ld", old);
	ASSERT_EQ(0, cufab_param_set("max_peers", val));
}

/* ---- several processes, process death, cufabctl peer show ---- */

/*
 * A child that enables gpu0 -> gpu@peer, writes its ids on @ready
 * ("ctx peer_ctx") and waits for the end of @hold (or a signal).
 */
static pid_t holder(int peer, int ready[2], int hold[2])
{
	char buf[64], c;
	CUcontext a, b;
	pid_t pid;

	pid = fork();
	if (pid)
		return pid;
	close(ready[0]);
	close(hold[1]);
	if (cuInit(0))
		_exit(99);
	b = ctx_on(peer);
	a = ctx_on(0);
	if (!a || !b || cuCtxEnablePeerAccess(b, 0))
		_exit(10);
	snprintf(buf, sizeof(buf), "ok");
	if (write(ready[1], buf, strlen(buf)) < 0)
		_exit(11);
	while (read(hold[0], &c, 1) > 0)
		;
	_exit(0);
}

/* Starts holder(); 0 once it has enabled access, else -1. */
static int start_holder(int peer, pid_t *pid, int *hold_w)
{
	int ready[2], hold[2];
	char buf[8] = "";
	ssize_t n;

	if (pipe(ready) || pipe(hold))
		return -1;
	*pid = holder(peer, ready, hold);
	close(ready[1]);
	close(hold[0]);
	*hold_w = hold[1];
	n = read(ready[0], buf, sizeof(buf) - 1);
	close(ready[0]);
	return n == 2 ? 0 : -1;
}

/* While another process holds gpu0's only connection (to gpu1). */
static int second_process(void)
{
	CUcontext a, b, c;

	b = ctx_on(1);
	c = ctx_on(2);
	a = ctx_on(0);
	if (!a || !b || !c)
		return 10;
	if (cuCtxEnablePeerAccess(c, 0) != CUDA_ERROR_TOO_MANY_PEERS)
		return 11;
	if (cuCtxEnablePeerAccess(b, 0) || cuCtxDisablePeerAccess(b))
		return 12;
	return 0;
}

/* After the holder died: the connection is free. */
static int after_holder(void)
{
	CUcontext a, c;

	c = ctx_on(2);
	a = ctx_on(0);
	if (!a || !c)
		return 10;
	return cuCtxEnablePeerAccess(c, 0) ? 11 : 0;
}

TEST(processes_share_max_peers)
{
	struct topo_save s;
	char peers[16];
	int n = gpu_count(), hold;
	pid_t pid;

	snprintf(peers, sizeof(peers), "1-%d", n > 1 ? n - 1 : 1);
	topo_set(_metadata, &s, 3, peers, 1);
	SETUP_SKIPPED();
	ASSERT_EQ(0, start_holder(1, &pid, &hold));
	EXPECT_EQ(0, in_child(second_process));
	/* SIGKILL: the kernel drops the dead process's links */
	kill(pid, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(pid));
	close(hold);
	EXPECT_EQ(0, in_child(after_holder));
	topo_restore(_metadata, &s);
}

static int pair_peers(void)
{
	int n = 0, can = 0;

	if (cuDeviceGetCount(&n) || n < 2 || cuDeviceCanAccessPeer(&can, 0, 1))
		return 1;
	return can ? 0 : 1;
}

/* cufabctl peer show names the link while the process lives, not after. */
TEST(show_and_process_death)
{
	char path[PATH_MAX], want[64];
	static char out[65536];
	int hold;
	pid_t pid;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, "cufab.ko not loaded");
	if (!tool_path("cufabctl", path, sizeof(path)) ||
	    !tool_path("jsoncheck", path, sizeof(path)))
		SKIP(return, "no cufabctl/jsoncheck next to this test");
	if (in_child(pair_peers))
		SKIP(return, "GPUs 0 and 1 are not peers (nvswitch=0?)");
	ASSERT_EQ(0, start_holder(1, &pid, &hold));

	ASSERT_EQ(0, ctl_run("peer show", NULL, out, sizeof(out)));
	snprintf(want, sizeof(want), "pid %d (peer_test)", pid);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " gpu0 -> ctx ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "gpu0  peer connections 1"))
		TH_LOG("%s", out);
	snprintf(want, sizeof(want), "peer show pid %d", pid);
	EXPECT_EQ(0, ctl_run(want, NULL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, " gpu1\n")) TH_LOG("%s", out);

	EXPECT_EQ(0, ctl_run("-j peer show", "-c .links", out, sizeof(out)));
	EXPECT_STREQ("1\n", out);
	EXPECT_EQ(0, ctl_run("-j peer show", ".links[0].pid", out,
			     sizeof(out)));
	EXPECT_EQ(pid, atoi(out));
	EXPECT_EQ(0, ctl_run("-j -p peer show", ".links[0].peer_dev", out,
			     sizeof(out)));
	EXPECT_STREQ("1\n", out);
	EXPECT_EQ(0, ctl_run("-j peer show", ".devices[0].peer_connections",
			     out, sizeof(out)));
	EXPECT_STREQ("1\n", out);

	kill(pid, SIGKILL);
	EXPECT_EQ(0x100 | SIGKILL, wait_child(pid));
	close(hold);
	EXPECT_EQ(0, ctl_run("-j peer show", "-c .links", out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
	EXPECT_EQ(0, ctl_run("-j peer show", ".devices[0].peer_connections",
			     out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
	EXPECT_EQ(0, ctl_run("peer show", NULL, out, sizeof(out)));
	/* no link: the list says "none", the GPUs' table follows */
	EXPECT_EQ(0, strncmp(out, "none\n", 5)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
