// SPDX-License-Identifier: GPL-2.0
/*
 * cuInit, cuDriverGetVersion, cuGetErrorName/String, calls before cuInit
 * and fork.
 *
 * The harness runs every test in a fresh child of a process that never
 * called cuInit, so each test starts uninitialised. Tests that need the
 * module SKIP when /dev/cufab is absent; the others also run on a host
 * without it.
 *
 * The executable defines ioctl() so that it can stand in for a module that
 * answers a different interface version or is interrupted by a signal:
 * libcufab's ioctl calls bind to it, and it passes everything else to the
 * C library's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cufab/cuda.h>
#include <linux/cufab.h>

#include "cufab_test.h"
#include "kselftest_harness.h"

/* ioctl stand-in: see the top of the file. */
enum fake_mode { FAKE_NONE, FAKE_MAJOR, FAKE_NEWER_MINOR, FAKE_EINTR };
static enum fake_mode fake_mode;
static int fake_eintr_left;

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	struct cufab_get_version *ver;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	if (fake_mode == FAKE_EINTR && fake_eintr_left > 0) {
		fake_eintr_left--;
		errno = EINTR;
		return -1;
	}
	ret = real_ioctl(fd, request, arg);
	if (ret || request != CUFAB_IOCTL_GET_VERSION)
		return ret;
	ver = arg;
	if (fake_mode == FAKE_MAJOR)
		ver->major = CUFAB_VERSION_MAJOR + 1;
	if (fake_mode == FAKE_NEWER_MINOR)
		ver->minor = CUFAB_VERSION_MINOR + 1;
	return 0;
}

TEST(driver_version_before_init)
{
	int v = 0;

	ASSERT_CU(CUDA_SUCCESS, cuDriverGetVersion(&v));
	ASSERT_EQ(13030, v);
	ASSERT_CU(CUDA_VERSION, v);
	ASSERT_CU(CUDA_ERROR_INVALID_VALUE, cuDriverGetVersion(NULL));
}

/* Every call that needs cuInit, with otherwise valid arguments. */
TEST(not_initialized)
{
	CUresult (*uuid_v1)(CUuuid *, CUdevice);
	unsigned long long id;
	unsigned int flags;
	char buf[64];
	CUcontext ctx;
	CUdevice dev;
	CUuuid uuid;
	size_t mem;
	int i;

	ASSERT_CU(CUDA_SUCCESS, cuGetProcAddress("cuDeviceGetUuid", (void **)&uuid_v1,
						 9020, 0, NULL));
	ASSERT_NE(NULL, uuid_v1);

	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGet(&dev, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&i));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetName(buf, sizeof(buf), 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetUuid(&uuid, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, uuid_v1(&uuid, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceTotalMem(&mem, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED,
		  cuDeviceGetAttribute(&i, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetPCIBusId(buf, sizeof(buf), 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetByPCIBusId(&dev, "0000:41:00.0"));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceCanAccessPeer(&i, 0, 1));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDevicePrimaryCtxRetain(&ctx, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDevicePrimaryCtxRelease(0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDevicePrimaryCtxReset(0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDevicePrimaryCtxSetFlags(0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDevicePrimaryCtxGetState(0, &flags, &i));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxCreate(&ctx, NULL, 0, 0));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxDestroy((CUcontext)0x100000001ULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxPushCurrent((CUcontext)0x100000001ULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxPopCurrent(&ctx));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxSetCurrent(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetCurrent(&ctx));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetDevice(&dev));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetDevice_v2(&dev, NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetFlags(&flags));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetId(NULL, &id));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxSynchronize());
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxSynchronize_v2(NULL));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuCtxGetApiVersion(NULL, &flags));
}

TEST(init_flags_must_be_zero)
{
	int n;

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuInit(1));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuInit(0x80000000u));
	/* A refused cuInit initialises nothing. */
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&n));
}

/* Reads what the library wrote to stderr while fn ran. */
static void capture_stderr(void (*fn)(CUresult *), CUresult *res, char *out,
			   size_t len)
{
	int pipefd[2], saved;
	ssize_t n;

	fflush(stderr);
	if (pipe(pipefd))
		abort();
	saved = dup(2);
	dup2(pipefd[1], 2);
	close(pipefd[1]);
	fn(res);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = read(pipefd[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
}

static void init_twice(CUresult *res)
{
	res[0] = cuInit(0);
	res[1] = cuInit(0);
}

TEST(init_without_module)
{
	char msg[1024];
	CUresult res[2];
	int n;

	if (!access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " present: this test needs a host without cufab.ko");
	/* The one line printed without CUFAB_DEBUG. */
	unsetenv("CUFAB_DEBUG");
	capture_stderr(init_twice, res, msg, sizeof(msg));
	EXPECT_CU(CUDA_ERROR_NO_DEVICE, res[0]);
	EXPECT_CU(CUDA_ERROR_NO_DEVICE, res[1]);
	EXPECT_NE(NULL, strstr(msg, "cufab: cuInit: cannot open /dev/cufab"));
	EXPECT_NE(NULL, strstr(msg, "is cufab.ko loaded?"));
	/* Once per process. */
	EXPECT_EQ(NULL, strstr(strstr(msg, "cannot open") + 1, "cannot open"));
	EXPECT_CU(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&n));
}

TEST(init_idempotent)
{
	int n1, n2;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n1));
	ASSERT_CU(CUDA_SUCCESS, cuInit(0));
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n2));
	EXPECT_EQ(n1, n2);
	EXPECT_GT(n1, 0);
}

static void *init_thread(void *arg)
{
	return (void *)(long)cuInit(0);
}

TEST(init_concurrent)
{
	pthread_t t[8];
	void *res;
	int i, n;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, init_thread, NULL));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &res));
		EXPECT_CU(CUDA_SUCCESS, (long)res);
	}
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
	EXPECT_GT(n, 0);
}

static void init_major(CUresult *res)
{
	fake_mode = FAKE_MAJOR;
	res[0] = cuInit(0);
	fake_mode = FAKE_NONE;
	res[1] = cuInit(0);
}

TEST(init_version_major_mismatch)
{
	char msg[1024];
	CUresult res[2];

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	setenv("CUFAB_DEBUG", "1", 1);
	capture_stderr(init_major, res, msg, sizeof(msg));
	unsetenv("CUFAB_DEBUG");
	EXPECT_CU(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, res[0]);
	EXPECT_NE(NULL, strstr(msg, "module interface"));
	/* The refused client was closed; a matching module is accepted. */
	EXPECT_CU(CUDA_SUCCESS, res[1]);
}

/* A module that only added ioctls since the library was built is fine. */
TEST(init_version_newer_module)
{
	int n;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	fake_mode = FAKE_NEWER_MINOR;
	EXPECT_CU(CUDA_SUCCESS, cuInit(0));
	fake_mode = FAKE_NONE;
	EXPECT_CU(CUDA_SUCCESS, cuDeviceGetCount(&n));
}

/* A signal during an ioctl is retried, never reported. */
TEST(ioctl_eintr_retried)
{
	CUcontext ctx;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	fake_mode = FAKE_EINTR;
	fake_eintr_left = 3;
	EXPECT_CU(CUDA_SUCCESS, cuInit(0));
	fake_eintr_left = 3;
	EXPECT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	fake_eintr_left = 3;
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	EXPECT_EQ(0, fake_eintr_left);
	fake_mode = FAKE_NONE;
}

/* Runs fn in a forked child and returns its exit status (0 = passed). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

struct fork_ctx {
	CUcontext parent_ctx;
	int parent_count;
};

/* Each check returns a distinct code, so a failure names its step. */
static int forked_child(void *arg)
{
	struct fork_ctx *fc = arg;
	CUcontext ctx = (CUcontext)1;
	CUdevice dev;
	int n = -1;

	if (cuDeviceGetCount(&n) != CUDA_ERROR_NOT_INITIALIZED)
		return 1;
	if (cuCtxGetCurrent(&ctx) != CUDA_ERROR_NOT_INITIALIZED)
		return 2;
	if (cuCtxGetDevice(&dev) != CUDA_ERROR_NOT_INITIALIZED)
		return 3;
	if (cuInit(0) != CUDA_SUCCESS)
		return 4;
	if (cuDeviceGetCount(&n) != CUDA_SUCCESS || n != fc->parent_count)
		return 5;
	/* Nothing of the parent is inherited: no current context ... */
	if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx)
		return 6;
	/* ... and its contexts are not ours. */
	if (cuCtxPushCurrent(fc->parent_ctx) != CUDA_ERROR_INVALID_CONTEXT)
		return 7;
	if (cuCtxDestroy(fc->parent_ctx) != CUDA_ERROR_INVALID_CONTEXT)
		return 8;
	/* The child's own client works. */
	if (cuCtxCreate(&ctx, NULL, 0, 0) != CUDA_SUCCESS)
		return 9;
	if (cuCtxDestroy(ctx) != CUDA_SUCCESS)
		return 10;
	return 0;
}

TEST(fork_child_starts_over)
{
	struct fork_ctx fc;
	CUcontext cur;
	CUdevice dev;

	INIT_OR_SKIP();
	ASSERT_CU(CUDA_SUCCESS, cuDeviceGetCount(&fc.parent_count));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&fc.parent_ctx, NULL, 0, 0));
	EXPECT_EQ(0, in_child(forked_child, &fc));
	/* The parent is unaffected by its child. */
	ASSERT_CU(CUDA_SUCCESS, cuCtxGetCurrent(&cur));
	EXPECT_EQ(fc.parent_ctx, cur);
	EXPECT_CU(CUDA_SUCCESS, cuCtxGetDevice(&dev));
	EXPECT_CU(CUDA_SUCCESS, cuCtxDestroy(fc.parent_ctx));
}

/*
 * A child made by the raw system call runs no atfork handler: it still
 * holds the parent's state, the kernel refuses the parent's client, and
 * cuInit notices the new pid and starts over.
 */
static int raw_forked_child(void *arg)
{
	CUcontext ctx;

	if (cuCtxCreate(&ctx, NULL, 0, 0) != CUDA_ERROR_NOT_INITIALIZED)
		return 1;
	if (cuInit(0) != CUDA_SUCCESS)
		return 2;
	if (cuCtxCreate(&ctx, NULL, 0, 0) != CUDA_SUCCESS)
		return 3;
	if (cuCtxDestroy(ctx) != CUDA_SUCCESS)
		return 4;
	return 0;
}

TEST(raw_fork_child_starts_over)
{
	int status;
	pid_t pid;

	INIT_OR_SKIP();
	fflush(stdout);
	fflush(stderr);
	pid = syscall(SYS_fork);
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(raw_forked_child(NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Every CUresult of cufab/cuda.h, by name. */
#define E(code)	{ code, #code }
static const struct {
	CUresult code;
	const char *name;
} results[] = {
	E(CUDA_SUCCESS), E(CUDA_ERROR_INVALID_VALUE), E(CUDA_ERROR_OUT_OF_MEMORY),
	E(CUDA_ERROR_NOT_INITIALIZED), E(CUDA_ERROR_DEINITIALIZED),
	E(CUDA_ERROR_PROFILER_DISABLED), E(CUDA_ERROR_PROFILER_NOT_INITIALIZED),
	E(CUDA_ERROR_PROFILER_ALREADY_STARTED), E(CUDA_ERROR_PROFILER_ALREADY_STOPPED),
	E(CUDA_ERROR_STUB_LIBRARY), E(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER),
	E(CUDA_ERROR_DEVICE_UNAVAILABLE), E(CUDA_ERROR_NO_DEVICE),
	E(CUDA_ERROR_INVALID_DEVICE), E(CUDA_ERROR_DEVICE_NOT_LICENSED),
	E(CUDA_ERROR_INVALID_IMAGE), E(CUDA_ERROR_INVALID_CONTEXT),
	E(CUDA_ERROR_CONTEXT_ALREADY_CURRENT), E(CUDA_ERROR_MAP_FAILED),
	E(CUDA_ERROR_UNMAP_FAILED), E(CUDA_ERROR_ARRAY_IS_MAPPED),
	E(CUDA_ERROR_ALREADY_MAPPED), E(CUDA_ERROR_NO_BINARY_FOR_GPU),
	E(CUDA_ERROR_ALREADY_ACQUIRED), E(CUDA_ERROR_NOT_MAPPED),
	E(CUDA_ERROR_NOT_MAPPED_AS_ARRAY), E(CUDA_ERROR_NOT_MAPPED_AS_POINTER),
	E(CUDA_ERROR_ECC_UNCORRECTABLE), E(CUDA_ERROR_UNSUPPORTED_LIMIT),
	E(CUDA_ERROR_CONTEXT_ALREADY_IN_USE), E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED),
	E(CUDA_ERROR_INVALID_PTX), E(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT),
	E(CUDA_ERROR_NVLINK_UNCORRECTABLE), E(CUDA_ERROR_JIT_COMPILER_NOT_FOUND),
	E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION), E(CUDA_ERROR_JIT_COMPILATION_DISABLED),
	E(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY), E(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC),
	E(CUDA_ERROR_CONTAINED), E(CUDA_ERROR_INVALID_SOURCE),
	E(CUDA_ERROR_FILE_NOT_FOUND), E(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND),
	E(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED), E(CUDA_ERROR_OPERATING_SYSTEM),
	E(CUDA_ERROR_INVALID_HANDLE), E(CUDA_ERROR_ILLEGAL_STATE),
	E(CUDA_ERROR_LOSSY_QUERY), E(CUDA_ERROR_NOT_FOUND), E(CUDA_ERROR_NOT_READY),
	E(CUDA_ERROR_ILLEGAL_ADDRESS), E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES),
	E(CUDA_ERROR_LAUNCH_TIMEOUT), E(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING),
	E(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED), E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED),
	E(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE), E(CUDA_ERROR_CONTEXT_IS_DESTROYED),
	E(CUDA_ERROR_ASSERT), E(CUDA_ERROR_TOO_MANY_PEERS),
	E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED),
	E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED), E(CUDA_ERROR_HARDWARE_STACK_ERROR),
	E(CUDA_ERROR_ILLEGAL_INSTRUCTION), E(CUDA_ERROR_MISALIGNED_ADDRESS),
	E(CUDA_ERROR_INVALID_ADDRESS_SPACE), E(CUDA_ERROR_INVALID_PC),
	E(CUDA_ERROR_LAUNCH_FAILED), E(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE),
	E(CUDA_ERROR_TENSOR_MEMORY_LEAK), E(CUDA_ERROR_NOT_PERMITTED),
	E(CUDA_ERROR_NOT_SUPPORTED), E(CUDA_ERROR_SYSTEM_NOT_READY),
	E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH), E(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE),
	E(CUDA_ERROR_MPS_CONNECTION_FAILED), E(CUDA_ERROR_MPS_RPC_FAILURE),
	E(CUDA_ERROR_MPS_SERVER_NOT_READY), E(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED),
	E(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED), E(CUDA_ERROR_MPS_CLIENT_TERMINATED),
	E(CUDA_ERROR_CDP_NOT_SUPPORTED), E(CUDA_ERROR_CDP_VERSION_MISMATCH),
	E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED), E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED),
	E(CUDA_ERROR_STREAM_CAPTURE_MERGE), E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED),
	E(CUDA_ERROR_STREAM_CAPTURE_UNJOINED), E(CUDA_ERROR_STREAM_CAPTURE_ISOLATION),
	E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), E(CUDA_ERROR_CAPTURED_EVENT),
	E(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD), E(CUDA_ERROR_TIMEOUT),
	E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE), E(CUDA_ERROR_EXTERNAL_DEVICE),
	E(CUDA_ERROR_INVALID_CLUSTER_SIZE), E(CUDA_ERROR_FUNCTION_NOT_LOADED),
	E(CUDA_ERROR_INVALID_RESOURCE_TYPE), E(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION),
	E(CUDA_ERROR_KEY_ROTATION), E(CUDA_ERROR_UNKNOWN),
};
#undef E

#define NUM_RESULTS	ARRAY_SIZE(results)

/*
 * A FABRIC allocation in a process without an IMEX channel: the failure
 * cufab has advice for.
 */
static void fabric_without_channel(CUresult *res)
{
	CUmemAllocationProp p = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	};
	CUmemGenericAllocationHandle h;
	size_t g = 0;

	res[0] = cuMemGetAllocationGranularity(&g, &p,
					       CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	res[1] = cuMemCreate(&h, g, &p, 0);
	if (res[1] == CUDA_SUCCESS)
		cuMemRelease(h);
}

/* Child: 0 when stderr got a message exactly if @arg (debug) is set. */
static int quiet_child(void *arg)
{
	int debug = arg != NULL;
	char msg[1024];
	CUresult res[2];

	setenv("CUFAB_IMEX_CHANNEL", "/nonexistent/imex-channel", 1);
	if (debug)
		setenv("CUFAB_DEBUG", "1", 1);
	else
		unsetenv("CUFAB_DEBUG");
	if (cuInit(0) != CUDA_SUCCESS)
		return 10;
	capture_stderr(fabric_without_channel, res, msg, sizeof(msg));
	if (res[0] != CUDA_SUCCESS || res[1] == CUDA_SUCCESS)
		return 11;
	if (debug)
		return strstr(msg, "no IMEX channel") ? 0 : 12;
	return msg[0] ? 13 : 0;
}

/*
 * NVIDIA's library writes nothing to stderr, and a library calling it
 * prints its own advice: cufab's advice lines appear only with
 * CUFAB_DEBUG set.
 */
TEST(silent_without_debug)
{
	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	EXPECT_EQ(0, in_child(quiet_child, NULL));
	EXPECT_EQ(0, in_child(quiet_child, (void *)1));
}

TEST(error_name_and_string_of_every_result)
{
	const char *name, *str;
	size_t i;

	for (i = 0; i < NUM_RESULTS; i++) {
		name = NULL;
		str = NULL;
		EXPECT_CU(CUDA_SUCCESS, cuGetErrorName(results[i].code, &name));
		EXPECT_CU(CUDA_SUCCESS, cuGetErrorString(results[i].code, &str));
		ASSERT_NE(NULL, name);
		ASSERT_NE(NULL, str);
		EXPECT_STREQ(results[i].name, name);
		EXPECT_NE(0U, strlen(str));
	}
}

static int is_result(int code)
{
	size_t i;

	for (i = 0; i < NUM_RESULTS; i++)
		if ((int)results[i].code == code)
			return 1;
	return 0;
}

/* Codes that are no CUresult: INVALID_VALUE and a NULL string. */
TEST(error_unknown_codes)
{
	const char *s;
	int code;

	for (code = -2; code <= 1100; code++) {
		if (is_result(code))
			continue;
		s = "x";
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetErrorName((CUresult)code, &s));
		EXPECT_EQ(NULL, s);
		s = "x";
		EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetErrorString((CUresult)code, &s));
		EXPECT_EQ(NULL, s);
	}
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetErrorName(CUDA_SUCCESS, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetErrorString(CUDA_SUCCESS, NULL));
}

TEST_HARNESS_MAIN
