// SPDX-License-Identifier: GPL-2.0
/*
 * cuMulticast* in one process: every call and its documented errors,
 * the support attribute and granularities, bind and map in both orders,
 * the CPU's SIGBUS through a multicast mapping, multimem store /
 * load-reduce / reduce for every type and operation checked in each
 * replica through its own unicast mapping, skipped replicas, sharing
 * (POSIX fd, FABRIC with the IMEX channel rules) and lifetimes.
 *
 * Multicast needs the virtual NVSwitch (nvswitch=Y, the default) and at
 * least two GPUs for most tests: they skip otherwise.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cufab_uapi.h"
#include "mc_helpers.h"
#include "kselftest_harness.h"

#define MCSZ	(4 * MC_MIB)	/* object size: two granules */
#define BINDSZ	(2 * MC_MIB)

CTX_FIXTURE();

TEST_F(ctx, attribute_and_granularity)
{
	CUmulticastObjectProp p = mc_prop(1, 2 * MC_MIB, 0);
	size_t g = 0, rec = 0;
	int v = -1;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetAttribute(&v,
			CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0));
	if (!v)
		SKIP(return, "multicast not supported by device 0");
	ASSERT_CU(CUDA_SUCCESS, cuMulticastGetGranularity(&g, &p,
			CU_MULTICAST_GRANULARITY_MINIMUM));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastGetGranularity(&rec, &p,
			CU_MULTICAST_GRANULARITY_RECOMMENDED));
	EXPECT_EQ(2 * MC_MIB, g);
	EXPECT_EQ(512 * MC_MIB, rec);
	EXPECT_EQ(0, g & (g - 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastGetGranularity(NULL, &p,
			CU_MULTICAST_GRANULARITY_MINIMUM));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastGetGranularity(&g, NULL,
			CU_MULTICAST_GRANULARITY_MINIMUM));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastGetGranularity(&g, &p,
			(CUmulticastGranularity_flags)2));
}

TEST_F(ctx, create_errors)
{
	CUmulticastObjectProp p;
	CUmemGenericAllocationHandle h;
	int n;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	n = num_devices();
	p = mc_prop(1, MCSZ, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(NULL, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, NULL));
	p = mc_prop(0, MCSZ, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, &p));
	p = mc_prop(n + 1, MCSZ, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, &p));
	p = mc_prop(1, 0, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, &p));
	p = mc_prop(1, MCSZ + 4096, 0);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, &p));
	p = mc_prop(1, MCSZ, CU_MEM_HANDLE_TYPE_WIN32);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, &p));
	p = mc_prop(1, MCSZ, 0);
	p.flags = 1;
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastCreate(&h, &p));

	p = mc_prop(n, MCSZ, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &p));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h));
}

TEST_F(ctx, add_device_errors)
{
	CUmulticastObjectProp p;
	CUmemGenericAllocationHandle h, mem;
	CUmemAllocationProp mp = dev_prop(0, 0);

	SETUP_SKIPPED();
	MC_OR_SKIP(2);
	p = mc_prop(2, MCSZ, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &p));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMulticastAddDevice(h, -1));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
		  cuMulticastAddDevice(h, num_devices()));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastAddDevice(0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	/* membership is permanent: once is enough, twice is an error */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastAddDevice(h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 1));
	if (num_devices() > 2)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastAddDevice(h, 2));

	/* a memory handle is not a multicast object */
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, BINDSZ, &mp, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastAddDevice(mem, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastAddDevice(h, 0));
}

TEST_F(ctx, bind_errors)
{
	CUmemGenericAllocationHandle h, hx, mem, mem1, memx;
	CUmemAllocationProp mp = dev_prop(0, 0);
	CUmemAllocationProp mp1 = dev_prop(1, 0);
	CUmemAllocationProp mpx = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	size_t g;

	SETUP_SKIPPED();
	MC_OR_SKIP(2);
	g = mc_gran();
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, 2 * BINDSZ, &mp, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem1, BINDSZ, &mp1, 0));

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, mem, 0, g, 1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 4096, mem, 0, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, mem, 4096, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, mem, 0, 4096, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, mem, 0, 0, 0));
	/* size + mcOffset past the object, size + memOffset past the memory */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMulticastBindMem(h, MCSZ - g, mem, 0, 2 * g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMulticastBindMem(h, 0, mem, 2 * BINDSZ - g, 2 * g, 0));
	/* memory on a device outside the team */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, mem1, 0, g, 0));
	/* handles swapped, or not handles */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(mem, 0, h, 0, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, h, 0, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, 0, 0, g, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindAddr(h, 0, 0x1000, g, 0));

	ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(h, 0, mem, 0, g, 0));
	/* overlapping the bind */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(h, 0, mem, g, g, 0));
	/* unbind must match the bind */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(h, 0, g, g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(h, 0, 0, 2 * g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(h, 1, 0, g));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMulticastUnbind(h, -1, 0, g));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h, 0, 0, g));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(h, 0, 0, g));

	/* exportable objects bind only exportable memory */
	ASSERT_CU(CUDA_SUCCESS, mc_team(&hx, 1, MCSZ,
					CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&memx, BINDSZ, &mpx, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastBindMem(hx, 0, mem, 0, g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastBindMem(hx, 0, memx, 0, g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(hx, 0, 0, g));

	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(memx));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(hx));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem1));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* cuMemAlloc memory is not cuMemCreate memory. */
TEST_F(ctx, bind_linear_refused)
{
	CUmemGenericAllocationHandle h;
	CUdeviceptr p;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&p, BINDSZ));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuMulticastBindAddr(h, 0, p, mc_gran(), 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(p));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

TEST_F(ctx, map_errors_and_sigbus)
{
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	size_t g;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	g = mc_gran();
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, 2 * MCSZ, g, 0, 0));
	/* the offset must be 0, sizes within the object */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(va, g, g, h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(va, 2 * MCSZ, 0, h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemMap(va, 4096, 0, h, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, MCSZ, 0, h, 0));
	/* no access yet: like any mapping, a fault; then SIGBUS for good */
	EXPECT_EQ(SIGSEGV, mc_touch_signal((unsigned char *)va, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(va, MCSZ, 0));
	EXPECT_EQ(SIGBUS, mc_touch_signal((unsigned char *)va, 0));
	EXPECT_EQ(SIGBUS, mc_touch_signal((unsigned char *)va + g, 1));
	/* a copy through it fails too */
	{
		char buf[64] = "";

		EXPECT_NE((int)CUDA_SUCCESS, (int)cuMemcpyHtoD(va, buf, sizeof(buf)));
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(va, MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, 2 * MCSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* Two replicas on devices 0 and 1, bound at [0, BINDSZ) of a 2-team. */
FIXTURE(team2) {
	CUcontext ctx;
	CUmemGenericAllocationHandle h;
	struct vbuf rep[2];
	CUdeviceptr mc;
	int ready;
};

FIXTURE_SETUP(team2)
{
	int i;

	self->ctx = NULL;
	self->ready = 0;
	MC_OR_SKIP(2);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_team(&self->h, 2, MCSZ, 0));
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, vbuf_make(&self->rep[i], i, BINDSZ, 0));
	self->ready = 1;
}

FIXTURE_TEARDOWN(team2)
{
	int i;

	if (!self->ready)
		return;
	for (i = 0; i < 2; i++)
		vbuf_drop(&self->rep[i]);
	cuMemRelease(self->h);
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

static void fill(CUdeviceptr p, size_t n, unsigned char v)
{
	memset((void *)p, v, n);
}

static int all_bytes(CUdeviceptr p, size_t n, unsigned char v)
{
	const unsigned char *c = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i] != v)
			return 0;
	return 1;
}

TEST_F(team2, bind_then_map_broadcast)
{
	static unsigned char src[256 * 1024];
	unsigned int skipped = 99;
	int i;

	SETUP_SKIPPED();
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(self->h, 0,
				self->rep[i].h, 0, BINDSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_map(&self->mc, self->h, MCSZ, 0));
	memset(src, 0x5a, sizeof(src));
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemBroadcast(self->mc + 4096, src,
						       sizeof(src), &skipped));
	EXPECT_EQ(0, skipped);
	for (i = 0; i < 2; i++) {
		EXPECT_TRUE(all_bytes(self->rep[i].va + 4096, sizeof(src), 0x5a));
		EXPECT_TRUE(all_bytes(self->rep[i].va, 4096, 0));
	}
	/* a source not page aligned, to an odd offset: every byte lands */
	for (i = 0; i < (int)sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemBroadcast(self->mc + 8193, src + 3,
						       sizeof(src) - 3, &skipped));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, memcmp((void *)(self->rep[i].va + 8193), src + 3,
				    sizeof(src) - 3));
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(self->h, i, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(self->mc, MCSZ));
}

/*
 * The source is device memory: replica 0's own mapping, past the bytes it
 * receives. A store pins its source 128 KiB at a time, or copies from the
 * user mapping where it cannot pin; either way every byte of all three
 * windows lands in both replicas.
 */
TEST_F(team2, broadcast_from_device_memory)
{
	const size_t len = 300 * 1024;
	unsigned char *src;
	unsigned int skipped = 99;
	size_t j;
	int i;

	SETUP_SKIPPED();
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(self->h, 0,
				self->rep[i].h, 0, BINDSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_map(&self->mc, self->h, MCSZ, 0));
	src = (unsigned char *)self->rep[0].va + MC_MIB + 5;
	for (j = 0; j < len; j++)
		src[j] = (unsigned char)(j * 13 + 7);
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemBroadcast(self->mc + 4097, src,
						       len, &skipped));
	EXPECT_EQ(0, skipped);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, memcmp((void *)(self->rep[i].va + 4097), src,
				    len));
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(self->h, i, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(self->mc, MCSZ));
}

TEST_F(team2, map_then_bind_addr_store)
{
	unsigned int skipped = 99;
	uint32_t v[16];
	int i;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, mc_map(&self->mc, self->h, MCSZ, 0));
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastBindAddr(self->h, 0,
				self->rep[i].va, BINDSZ, 0));
	for (i = 0; i < 16; i++)
		v[i] = 0x1000 + i;
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemStore(self->mc + 64,
			CUFAB_MULTIMEM_U32, v, 16, &skipped));
	EXPECT_EQ(0, skipped);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, memcmp((void *)(self->rep[i].va + 64), v, sizeof(v)));
	/* a store past the bound part skips both replicas */
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemStore(self->mc + BINDSZ,
			CUFAB_MULTIMEM_U32, v, 16, &skipped));
	EXPECT_EQ(2, skipped);
	for (i = 0; i < 2; i++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(self->h, i, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(self->mc, MCSZ));
}

TEST_F(team2, multimem_errors)
{
	uint32_t v[4] = { 0 };

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, mc_map(&self->mc, self->h, MCSZ, 0));
	/* misaligned, outside, not multicast, bitwise on floats, bad type */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cufabMultimemStore(self->mc + 2,
			CUFAB_MULTIMEM_U32, v, 1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cufabMultimemStore(self->mc + MCSZ - 4,
			CUFAB_MULTIMEM_U32, v, 4, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cufabMultimemStore(self->rep[0].va,
			CUFAB_MULTIMEM_U32, v, 1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cufabMultimemReduce(self->mc,
			CUFAB_MULTIMEM_F32, CUFAB_MULTIMEM_XOR, v, 1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cufabMultimemStore(self->mc,
			(cufabMultimemType)9, v, 1, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cufabMultimemStore(self->mc,
			CUFAB_MULTIMEM_U32, v, 0, NULL));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(self->mc, MCSZ));
}

/* ---- every type and operation ---- */

#define N 8

union val {
	uint32_t u32;
	int32_t s32;
	uint64_t u64;
	int64_t s64;
	float f32;
	double f64;
};

static size_t type_size(cufabMultimemType t)
{
	return t == CUFAB_MULTIMEM_U32 || t == CUFAB_MULTIMEM_S32 ||
	       t == CUFAB_MULTIMEM_F32 ? 4 : 8;
}

/* Replica r's element i before the operation (some negative). */
static void set_val(cufabMultimemType t, void *p, int x)
{
	switch (t) {
	case CUFAB_MULTIMEM_U32: *(uint32_t *)p = (uint32_t)x * 2654435761u; break;
	case CUFAB_MULTIMEM_S32: *(int32_t *)p = x * 1000 - 7000; break;
	case CUFAB_MULTIMEM_U64: *(uint64_t *)p = (uint64_t)x * 0x9e3779b97f4a7c15ull; break;
	case CUFAB_MULTIMEM_S64: *(int64_t *)p = (int64_t)x * 100000000000ll - 5; break;
	case CUFAB_MULTIMEM_F32: *(float *)p = x * 0.5f - 3.0f; break;
	case CUFAB_MULTIMEM_F64: *(double *)p = x * 0.25 - 2.0; break;
	}
}

#define COMBINE(T, a, b, op) do {					\
	T _x = *(T *)(a), _y = *(const T *)(b);				\
	switch (op) {							\
	case CUFAB_MULTIMEM_ADD: _x = _x + _y; break;			\
	case CUFAB_MULTIMEM_MIN: _x = _y < _x ? _y : _x; break;		\
	case CUFAB_MULTIMEM_MAX: _x = _y > _x ? _y : _x; break;		\
	default: break;							\
	}								\
	*(T *)(a) = _x;							\
} while (0)

#define COMBINE_INT(T, a, b, op) do {					\
	T _x = *(T *)(a), _y = *(const T *)(b);				\
	if ((op) == CUFAB_MULTIMEM_AND)					\
		*(T *)(a) = _x & _y;					\
	else if ((op) == CUFAB_MULTIMEM_OR)				\
		*(T *)(a) = _x | _y;					\
	else if ((op) == CUFAB_MULTIMEM_XOR)				\
		*(T *)(a) = _x ^ _y;					\
	else								\
		COMBINE(T, a, b, op);					\
} while (0)

/* The expected a = a op b, computed here independently of the kernel. */
static void ref_combine(cufabMultimemType t, cufabMultimemOp op, void *a,
			const void *b)
{
	/* a signed sum wraps as the unsigned one does: no overflow, no UB */
	if (op == CUFAB_MULTIMEM_ADD && t == CUFAB_MULTIMEM_S32)
		t = CUFAB_MULTIMEM_U32;
	if (op == CUFAB_MULTIMEM_ADD && t == CUFAB_MULTIMEM_S64)
		t = CUFAB_MULTIMEM_U64;
	switch (t) {
	case CUFAB_MULTIMEM_U32: COMBINE_INT(uint32_t, a, b, op); break;
	case CUFAB_MULTIMEM_S32: COMBINE_INT(int32_t, a, b, op); break;
	case CUFAB_MULTIMEM_U64: COMBINE_INT(uint64_t, a, b, op); break;
	case CUFAB_MULTIMEM_S64: COMBINE_INT(int64_t, a, b, op); break;
	case CUFAB_MULTIMEM_F32: COMBINE(float, a, b, op); break;
	case CUFAB_MULTIMEM_F64: COMBINE(double, a, b, op); break;
	}
}

static int is_float(cufabMultimemType t)
{
	return t == CUFAB_MULTIMEM_F32 || t == CUFAB_MULTIMEM_F64;
}

TEST_F(team2, every_type_and_op)
{
	static const cufabMultimemType types[] = {
		CUFAB_MULTIMEM_U32, CUFAB_MULTIMEM_S32, CUFAB_MULTIMEM_U64,
		CUFAB_MULTIMEM_S64, CUFAB_MULTIMEM_F32, CUFAB_MULTIMEM_F64,
	};
	union val in[N], out[N], want[N], rep[2][N], src[N];
	unsigned int skipped;
	size_t ti, es;
	int op, i, r;

	SETUP_SKIPPED();
	for (r = 0; r < 2; r++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(self->h, 0,
				self->rep[r].h, 0, BINDSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_map(&self->mc, self->h, MCSZ, 0));

	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		cufabMultimemType t = types[ti];

		es = type_size(t);
		for (op = CUFAB_MULTIMEM_ADD; op <= CUFAB_MULTIMEM_XOR; op++) {
			if (is_float(t) && op > CUFAB_MULTIMEM_MAX)
				continue;
			/* distinct replica contents, through unicast mappings */
			for (r = 0; r < 2; r++)
				for (i = 0; i < N; i++) {
					set_val(t, &rep[r][i], i * 3 + r * 5);
					memcpy((char *)self->rep[r].va + 128 + i * es,
					       &rep[r][i], es);
				}
			/* load-reduce = op over the replicas */
			memset(out, 0, sizeof(out));
			ASSERT_CU(CUDA_SUCCESS, cufabMultimemLoadReduce(out,
					self->mc + 128, t, op, N, &skipped));
			EXPECT_EQ(0, skipped);
			for (i = 0; i < N; i++) {
				memcpy(&want[i], &rep[0][i], es);
				ref_combine(t, op, &want[i], &rep[1][i]);
				EXPECT_EQ(0, memcmp(&want[i], (char *)out + i * es, es))
					TH_LOG("load-reduce type %d op %d elem %d", t, op, i);
			}
			/* reduce: each replica = replica op src */
			for (i = 0; i < N; i++)
				set_val(t, (char *)src + i * es, 11 - i);
			ASSERT_CU(CUDA_SUCCESS, cufabMultimemReduce(self->mc + 128,
					t, op, src, N, &skipped));
			for (r = 0; r < 2; r++)
				for (i = 0; i < N; i++) {
					memcpy(&want[i], &rep[r][i], es);
					ref_combine(t, op, &want[i], (char *)src + i * es);
					EXPECT_EQ(0, memcmp(&want[i],
						(char *)self->rep[r].va + 128 + i * es, es))
						TH_LOG("reduce type %d op %d replica %d elem %d",
						       t, op, r, i);
				}
		}
		/* store of the type */
		for (i = 0; i < N; i++)
			set_val(t, (char *)in + i * es, 40 + i);
		ASSERT_CU(CUDA_SUCCESS, cufabMultimemStore(self->mc + 128, t,
				in, N, &skipped));
		for (r = 0; r < 2; r++)
			EXPECT_EQ(0, memcmp((char *)self->rep[r].va + 128, in, N * es));
	}
	for (r = 0; r < 2; r++)
		ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(self->h, r, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(self->mc, MCSZ));
}

TEST_F(team2, skipped_replica)
{
	unsigned int skipped = 0;
	uint64_t v = 77, sum = 0;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(self->h, 0, self->rep[0].h,
						   0, BINDSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, mc_map(&self->mc, self->h, MCSZ, 0));
	fill(self->rep[1].va, 64, 0xee);
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemStore(self->mc, CUFAB_MULTIMEM_U64,
						   &v, 1, &skipped));
	EXPECT_EQ(1, skipped);
	EXPECT_EQ(77, *(uint64_t *)self->rep[0].va);
	/* the unbound replica's memory is untouched */
	EXPECT_TRUE(all_bytes(self->rep[1].va, 64, 0xee));
	ASSERT_CU(CUDA_SUCCESS, cufabMultimemLoadReduce(&sum, self->mc,
			CUFAB_MULTIMEM_U64, CUFAB_MULTIMEM_ADD, 1, &skipped));
	EXPECT_EQ(1, skipped);
	EXPECT_EQ(77, sum);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(self->h, 0, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, mc_unmap(self->mc, MCSZ));
}

/* The object lives while bound: release, re-import the fd, unbind. */
TEST_F(ctx, release_while_bound)
{
	CUmemGenericAllocationHandle h, h2, mem;
	CUmemAllocationProp mp = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	long long before, after_release;
	int fd = -1;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	before = live_objects();
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, MCSZ,
					CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, BINDSZ, &mp, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(h, 0, mem, 0, BINDSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	/* the fd holds a reference too: close it, the binding keeps it */
	ASSERT_CU(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h2,
			(void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(fd);
	after_release = live_objects();
	/* same object: the bind made through the first handle is there */
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h2, 0, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	if (before >= 0) {
		EXPECT_LT(before, after_release);
		EXPECT_EQ(before, live_objects_wait(before));
	}
}

/* A multicast fd carries the handle, not memory: mmap is refused. */
TEST_F(ctx, posix_fd_share)
{
	CUmemGenericAllocationHandle h, h2;
	int fd = -1;
	void *p;

	SETUP_SKIPPED();
	MC_OR_SKIP(2);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR }));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_FABRIC, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	p = mmap(NULL, MCSZ, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	ASSERT_CU(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h2,
			(void *)(uintptr_t)fd,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	/* both handles name one team */
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastAddDevice(h2, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h2, 1));
	close(fd);
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* A non-exportable object exports nothing. */
TEST_F(ctx, export_needs_type)
{
	CUmemGenericAllocationHandle h;
	int fd = -1;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, MCSZ, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* FABRIC through the uAPI: the IMEX channel rules of memory. */
TEST(fabric_channel_rules)
{
	struct cufab_mc_create c = { .size = sizeof(c), .num_devices = 1,
				     .handle_types = CUFAB_HANDLE_FABRIC,
				     .length = MCSZ };
	__u8 fab[CUFAB_FABRIC_HANDLE_LEN];
	int fd, other, ret;
	__u32 h2;

	OPEN_OR_SKIP(fd);
	if (!imex_major())
		SKIP(close(fd); return, "no IMEX channel region");
	ret = cufab_ioc(fd, CUFAB_IOCTL_MC_CREATE, &c);
	if (ret == EOPNOTSUPP)
		SKIP(close(fd); return, "no multicast");
	EXPECT_EQ(EPERM, ret);
	ASSERT_EQ(0, imex_join(fd, 0));
	ASSERT_EQ(0, cufab_ioc(fd, CUFAB_IOCTL_MC_CREATE, &c));
	ASSERT_EQ(0, mem_export_fabric(fd, c.out_handle, fab));

	other = open(CUFAB_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, other);
	EXPECT_EQ(EPERM, mem_import_fabric(other, fab, &h2));
	ASSERT_EQ(0, imex_join(other, 1));
	EXPECT_EQ(EPERM, mem_import_fabric(other, fab, &h2));
	ASSERT_EQ(0, imex_join(other, 0));
	ASSERT_EQ(0, mem_import_fabric(other, fab, &h2));
	{
		struct cufab_mc_add_device a = { .size = sizeof(a),
						 .handle = h2, .dev = 0 };

		EXPECT_EQ(0, cufab_ioc(other, CUFAB_IOCTL_MC_ADD_DEVICE, &a));
	}
	close(other);
	close(fd);
	imex_cleanup();
}

/* A bound process dies: its bindings and objects go, nothing leaks. */
TEST(process_death)
{
	long long before;
	pid_t pid;

	MC_OR_SKIP(1);
	before = live_objects();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CUmemGenericAllocationHandle h, mem;
		CUmemAllocationProp mp = dev_prop(0, 0);
		CUdeviceptr va;

		if (cuInit(0) || mc_team(&h, 1, MCSZ, 0) ||
		    cuMemCreate(&mem, BINDSZ, &mp, 0) ||
		    cuMulticastBindMem(h, 0, mem, 0, BINDSZ, 0) ||
		    mc_map(&va, h, MCSZ, 0) || cuMemRelease(h))
			_exit(2);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	EXPECT_EQ(0x100 | SIGKILL, wait_child(pid));
	if (before >= 0)
		EXPECT_EQ(before, live_objects_wait(before));
}

/* HOST_NUMA memory binds on a member near its node (dev = -1 finds it). */
TEST_F(ctx, bind_host_numa)
{
	CUmemGenericAllocationHandle h, mem;
	CUmemAllocationProp mp = dev_prop(0, 0);
	int node = -1;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	cuDeviceGetAttribute(&node, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, 0);
	if (node < 0)
		SKIP(return, "GPU 0 has no host NUMA node");
	mp.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	mp.location.id = node;
	ASSERT_CU(CUDA_SUCCESS, mc_team(&h, 1, MCSZ, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemCreate(&mem, BINDSZ, &mp, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastBindMem(h, 0, mem, 0, BINDSZ, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(h, 0, 0, BINDSZ));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* Kernel clique of GPU @i (DEVICE_INFO), -1 on error. */
static int clique_of(int fd, unsigned int i)
{
	struct cufab_device_info info = { .size = sizeof(info), .index = i };

	return cufab_ioc(fd, CUFAB_IOCTL_DEVICE_INFO, &info) ? -1 :
	       (int)info.clique_id;
}

/* A device outside the clique of the members: INVALID_DEVICE. */
TEST_F(ctx, add_device_other_clique)
{
	CUmemGenericAllocationHandle h;
	int fd, n, other = -1, i;

	SETUP_SKIPPED();
	MC_OR_SKIP(2);
	fd = open(CUFAB_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = num_devices();
	for (i = 1; i < n && other < 0; i++)
		if (clique_of(fd, i) != clique_of(fd, 0))
			other = i;
	close(fd);
	if (other < 0)
		SKIP(return, "all GPUs in one clique (load with cliques=\"0,1;2,3\")");
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ }));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(h, 0));
	EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cuMulticastAddDevice(h, other));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* A device without the multicast feature cannot join. */
TEST_F(ctx, add_device_without_multicast)
{
	CUmemGenericAllocationHandle h;
	int i, v, without = -1;

	SETUP_SKIPPED();
	MC_OR_SKIP(1);
	for (i = 1; i < num_devices() && without < 0; i++)
		if (!cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, i) &&
		    !v)
			without = i;
	if (without < 0)
		SKIP(return, "every GPU supports multicast (load with features=\"0x1ff,0x1fe\")");
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&h, &(CUmulticastObjectProp){
		.numDevices = 2, .size = MCSZ }));
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastAddDevice(h, without));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
}

/* No GPU with multicast (nvswitch=0): every call is NOT_SUPPORTED. */
TEST_F(ctx, node_without_multicast)
{
	CUmulticastObjectProp p = mc_prop(1, MCSZ, 0);
	CUmemGenericAllocationHandle h = 1;
	size_t g;
	int i, v, any = 0;

	SETUP_SKIPPED();
	for (i = 0; i < num_devices(); i++)
		if (!cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, i) &&
		    v)
			any = 1;
	if (any)
		SKIP(return, "multicast supported here (load with nvswitch=0)");
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastCreate(&h, &p));
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastAddDevice(h, 0));
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastBindMem(h, 0, h, 0, MCSZ, 0));
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastBindAddr(h, 0, 0x200000, MCSZ, 0));
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastUnbind(h, 0, 0, MCSZ));
	EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cuMulticastGetGranularity(&g, &p,
			CU_MULTICAST_GRANULARITY_MINIMUM));
}

TEST_HARNESS_MAIN
