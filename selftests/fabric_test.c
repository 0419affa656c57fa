// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric_state module parameter: while the emulated fabric software is
 * "not-ready" or in an "illegal-state", team operations (AddDevice and
 * binds of logical endpoints and multicast objects) fail with
 * CUDA_ERROR_SYSTEM_NOT_READY or CUDA_ERROR_ILLEGAL_STATE, change nothing,
 * and succeed again once the state is back to "ok".
 */
#include "kselftest_harness.h"
#include "le_helpers.h"
#include "mc_helpers.h"

#define STATE	"fabric_state"

static int read_state(char *buf, size_t len)
{
	FILE *f = fopen(CUFAB_PARAMS STATE, "r");
	int ok;

	if (!f)
		return -1;
	ok = !!fgets(buf, len, f);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok ? 0 : -1;
}

FIXTURE(fabric) {
	CUcontext ctx;
	long long live_before;
};

FIXTURE_SETUP(fabric)
{
	char state[32];

	self->ctx = NULL;
	INIT_OR_SKIP();
	if (read_state(state, sizeof(state)))
		SKIP(return, "no %s%s (module too old?)", CUFAB_PARAMS, STATE);
	if (num_devices() < 2)
		SKIP(return, "needs 2 GPUs");
	ASSERT_EQ(0, strcmp(state, "ok"));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&self->ctx, NULL, 0, 0));
	cufab_param_set("le_construct_delay_ms", "0");
	self->live_before = live_objects();
}

FIXTURE_TEARDOWN(fabric)
{
	cufab_param_set(STATE, "ok");
	cufab_param_set("le_construct_delay_ms", "0");
	if (self->ctx)
		cuCtxDestroy(self->ctx);
}

/* Only the three documented words are accepted; the state is unchanged. */
TEST_F(fabric, parameter_values)
{
	char state[32];

	SETUP_SKIPPED();
	EXPECT_NE(0, cufab_param_set(STATE, "broken"));
	ASSERT_EQ(0, read_state(state, sizeof(state)));
	EXPECT_STREQ("ok", state);
	EXPECT_EQ(0, cufab_param_set(STATE, "not-ready"));
	ASSERT_EQ(0, read_state(state, sizeof(state)));
	EXPECT_STREQ("not-ready", state);
	EXPECT_EQ(0, cufab_param_set(STATE, "illegal-state"));
	ASSERT_EQ(0, read_state(state, sizeof(state)));
	EXPECT_STREQ("illegal-state", state);
	EXPECT_EQ(0, cufab_param_set(STATE, "ok"));
}

/*
 * A multicast endpoint: AddDevice and BindMem are refused with the code of
 * each state and leave no device added and nothing bound.
 */
TEST_F(fabric, endpoint_team_operations)
{
	CUlogicalEndpointProp m = mprop(1, LE_SIZE, 0);
	CUmemGenericAllocationHandle h;
	CUlogicalEndpointId id;
	int ready;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, LE_GRAN, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &m));

	ASSERT_EQ(0, cufab_param_set(STATE, "not-ready"));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, cuLogicalEndpointAddDevice(id, 0));
	ASSERT_EQ(0, cufab_param_set(STATE, "illegal-state"));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuLogicalEndpointAddDevice(id, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(0, ready);	/* the refused adds added nothing */

	ASSERT_EQ(0, cufab_param_set(STATE, "ok"));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 0));
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(id, 1, 5000));

	ASSERT_EQ(0, cufab_param_set(STATE, "not-ready"));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY,
		  cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0));
	ASSERT_EQ(0, cufab_param_set(STATE, "illegal-state"));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE,
		  cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0));
	/* nothing was bound: unbinding the range finds no bind */
	ASSERT_EQ(0, cufab_param_set(STATE, "ok"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuLogicalEndpointUnbind(id, 0, 0, LE_GRAN));
	EXPECT_CU(CUDA_SUCCESS,
		  cuLogicalEndpointBindMem(id, 0, 0, h, 0, LE_GRAN, 0));
	EXPECT_CU(CUDA_SUCCESS, cuLogicalEndpointUnbind(id, 0, 0, LE_GRAN));

	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * A refused cuLogicalEndpointAddDevice changes nothing, the construction
 * deadline included: with a long construction delay, a complete and
 * ready endpoint still reads ready after a duplicate, a device past the
 * team size and adds refused by the fabric.
 */
TEST_F(fabric, refused_add_keeps_endpoint_ready)
{
	CUlogicalEndpointProp m = mprop(2, LE_SIZE, 0);
	CUlogicalEndpointId id;
	int ready = 0;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointIdReserve(&id, 1));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointCreate(id, &m));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 0));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointAddDevice(id, 1));
	ASSERT_CU(CUDA_SUCCESS, le_wait_ready(id, 1, 5000));

	ASSERT_EQ(0, cufab_param_set("le_construct_delay_ms", "600000"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuLogicalEndpointAddDevice(id, 0));
	if (num_devices() > 2)
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
			  cuLogicalEndpointAddDevice(id, 2));
	ASSERT_EQ(0, cufab_param_set(STATE, "not-ready"));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, cuLogicalEndpointAddDevice(id, 1));
	ASSERT_EQ(0, cufab_param_set(STATE, "illegal-state"));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuLogicalEndpointAddDevice(id, 1));
	ASSERT_EQ(0, cufab_param_set(STATE, "ok"));
	ASSERT_CU(CUDA_SUCCESS, cuLogicalEndpointQuery(id, 1, &ready));
	EXPECT_EQ(1, ready);

	cufab_param_set("le_construct_delay_ms", "0");
	EXPECT_CU(CUDA_SUCCESS, le_drop(id));
	EXPECT_EQ(self->live_before, live_objects());
}

/*
 * A multicast object: AddDevice, BindMem and cuMemMap of the object are
 * refused with the code of each state; nothing is added, bound or mapped.
 */
TEST_F(fabric, multicast_team_operations)
{
	CUmemGenericAllocationHandle mc, h;
	CUmulticastObjectProp p;
	CUdeviceptr va;
	int supported = 0;
	size_t g;

	SETUP_SKIPPED();
	cuDeviceGetAttribute(&supported,
			     CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0);
	if (!supported)
		SKIP(return, "no multicast on GPU 0");
	g = mc_gran();
	ASSERT_NE(0, g);
	p = mc_prop(1, g, 0);
	ASSERT_CU(CUDA_SUCCESS, cuMulticastCreate(&mc, &p));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, g, 0));

	ASSERT_EQ(0, cufab_param_set(STATE, "not-ready"));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, cuMulticastAddDevice(mc, 0));
	ASSERT_EQ(0, cufab_param_set(STATE, "illegal-state"));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuMulticastAddDevice(mc, 0));
	/* the refused adds added nothing: adding device 0 now succeeds once */
	ASSERT_EQ(0, cufab_param_set(STATE, "ok"));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastAddDevice(mc, 0));

	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_EQ(0, cufab_param_set(STATE, "not-ready"));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY,
		  cuMulticastBindMem(mc, 0, h, 0, g, 0));
	EXPECT_CU(CUDA_ERROR_SYSTEM_NOT_READY, cuMemMap(va, g, 0, mc, 0));
	ASSERT_EQ(0, cufab_param_set(STATE, "illegal-state"));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE,
		  cuMulticastBindMem(mc, 0, h, 0, g, 0));
	EXPECT_CU(CUDA_ERROR_ILLEGAL_STATE, cuMemMap(va, g, 0, mc, 0));

	/* nothing was bound or mapped */
	ASSERT_EQ(0, cufab_param_set(STATE, "ok"));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuMulticastUnbind(mc, 0, 0, g));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastBindMem(mc, 0, h, 0, g, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemMap(va, g, 0, mc, 0));
	EXPECT_CU(CUDA_SUCCESS, cuMemUnmap(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMulticastUnbind(mc, 0, 0, g));

	EXPECT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(h));
	EXPECT_CU(CUDA_SUCCESS, cuMemRelease(mc));
	EXPECT_EQ(self->live_before, live_objects());
}

TEST_HARNESS_MAIN
