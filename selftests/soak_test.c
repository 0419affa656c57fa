// SPDX-License-Identifier: GPL-2.0
/*
 * kill -9 soak: WORKERS processes churn device memory (cuMemCreate and
 * cuMemAlloc, mapped and touched), streams with copies, sets and events,
 * and pool allocations, and pass allocations to each other as POSIX file
 * descriptors around a ring of sockets; the parent SIGKILLs a random one
 * at a random moment and starts another in its place, for
 * CUFAB_SOAK_SECONDS (default 20; `make soak DURATION=...` runs a long
 * one). Afterwards the kernel's live-object counter must be back where it
 * was: nothing a dead process held, or had passed on, leaks. A worker that
 * sees a call fail (rather than being killed) fails the test.
 *
 * The seed (CUFAB_SOAK_SEED, else the time) is logged, so a run can be
 * replayed; what a killed worker was doing at its death still differs
 * from run to run, as it would on a machine.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "mem_helpers.h"
#include "kselftest_harness.h"

#define WORKERS		4

static int worker_fail(int step, CUresult r)
{
	fprintf(stderr, "# worker %d: step %d failed: %d\n", getpid(), step, r);
	_exit(20 + step);
}

#define WCHECK(step, call) do {						\
	CUresult __r = (call);						\
	if (__r != CUDA_SUCCESS)					\
		worker_fail(step, __r);					\
} while (0)

/* Map, touch and unmap an allocation handle of @len bytes. */
static void touch_handle(CUmemGenericAllocationHandle h, size_t len, int step)
{
	CUmemAccessDesc d = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	WCHECK(step, cuMemAddressReserve(&va, len, 0, 0, 0));
	WCHECK(step, cuMemMap(va, len, 0, h, 0));
	WCHECK(step, cuMemSetAccess(va, len, &d, 1));
	memset((void *)va, step, 4096);
	WCHECK(step, cuMemUnmap(va, len));
	WCHECK(step, cuMemAddressFree(va, len));
}

/* Pass a new POSIX-fd allocation to the next worker. */
static void step_export(int out, size_t g)
{
	CUmemAllocationProp p = dev_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemGenericAllocationHandle h;
	int fd;

	WCHECK(3, cuMemCreate(&h, g, &p, 0));
	WCHECK(3, cuMemExportToShareableHandle(&fd, h,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	sock_send(out, "m", 1, fd);	/* a full ring drops it: fine */
	close(fd);
	WCHECK(3, cuMemRelease(h));
}

/* Map what the previous worker passed, if anything came. */
static void step_import(int in, size_t g)
{
	CUmemGenericAllocationHandle h;
	char c;
	int fd;

	if (sock_recv(in, &c, 1, &fd) || fd < 0)
		return;
	WCHECK(4, cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(fd);
	touch_handle(h, g, 4);
	WCHECK(4, cuMemRelease(h));
}

static void step_stream(CUstream s, CUevent e, int keep)
{
	CUdeviceptr a, b;

	WCHECK(1, cuMemAlloc(&a, 1 << 20));
	WCHECK(1, cuMemAlloc(&b, 1 << 20));
	WCHECK(1, cuMemsetD8Async(a, 5, 1 << 20, s));
	WCHECK(1, cuMemcpyAsync(b, a, 1 << 20, s));
	WCHECK(1, cuEventRecord(e, s));
	if (keep)
		return;	/* left queued and allocated for the kill */
	WCHECK(1, cuEventSynchronize(e));
	WCHECK(1, cuMemFree(a));
	WCHECK(1, cuMemFree(b));
}

static void step_pool(CUstream s, int keep)
{
	CUdeviceptr p;

	WCHECK(2, cuMemAllocAsync(&p, 64 << 10, s));
	WCHECK(2, cuMemsetD8Async(p, 1, 64 << 10, s));
	if (!keep)
		WCHECK(2, cuMemFreeAsync(p, s));
}

static void __attribute__((noreturn)) worker(int out, int in, unsigned int seed)
{
	CUmemAllocationProp p = dev_prop(0, 0);
	CUmemGenericAllocationHandle h;
	CUcontext ctx;
	CUstream s;
	CUevent e;
	size_t g;

	WCHECK(0, cuInit(0));
	WCHECK(0, cuCtxCreate(&ctx, NULL, 0, 0));
	WCHECK(0, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	WCHECK(0, cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	g = gran(0);
	for (;;) {
		unsigned int r = rand_r(&seed);

		switch (r % 5) {
		case 0:
			WCHECK(0, cuMemCreate(&h, g, &p, 0));
			touch_handle(h, g, 0);
			if (r & 64)
				WCHECK(0, cuMemRelease(h));
			break;
		case 1:
			step_stream(s, e, (r & 0xf0) == 0);
			break;
		case 2:
			step_pool(s, (r & 0xf0) == 0);
			break;
		case 3:
			step_export(out, g);
			break;
		default:
			step_import(in, g);
			break;
		}
	}
}

struct soak {
	int sock[WORKERS][2];	/* worker i sends on [i][0], reads [i-1][1] */
	pid_t pid[WORKERS];
	unsigned int seed;
};

static pid_t spawn(struct soak *sk, int i)
{
	pid_t pid = fork();

	if (!pid)
		worker(sk->sock[i][0], sk->sock[(i + WORKERS - 1) % WORKERS][1],
		       rand_r(&sk->seed));
	return pid;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

/* 0 when worker @i died of a signal, else what it exited with. */
static int reap(struct soak *sk, int i)
{
	int st = wait_child(sk->pid[i]);

	sk->pid[i] = 0;
	return st & 0x100 ? 0 : st;
}

TEST(kill_soak)
{
	long seconds = env_long("CUFAB_SOAK_SECONDS", 20);
	struct soak sk = { .seed = env_long("CUFAB_SOAK_SEED", time(NULL)) };
	long long before;
	time_t end;
	int i, kills = 0, errors = 0;

	INIT_OR_SKIP();
	before = live_objects();
	if (before < 0)
		SKIP(return, "no debugfs live_objects to check against");
	TH_LOG("seed %u, %ld s, %d workers (CUFAB_SOAK_SEED, CUFAB_SOAK_SECONDS)",
	       sk.seed, seconds, WORKERS);
	for (i = 0; i < WORKERS; i++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
					SOCK_CLOEXEC, 0, sk.sock[i]));
	}
	for (i = 0; i < WORKERS; i++) {
		sk.pid[i] = spawn(&sk, i);
		ASSERT_LT(0, sk.pid[i]);
	}
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		usleep(20000 + rand_r(&sk.seed) % 300000);
		i = rand_r(&sk.seed) % WORKERS;
		kill(sk.pid[i], SIGKILL);
		errors += reap(&sk, i) != 0;
		kills++;
		sk.pid[i] = spawn(&sk, i);
		ASSERT_LT(0, sk.pid[i]);
	}
	for (i = 0; i < WORKERS; i++) {
		kill(sk.pid[i], SIGKILL);
		errors += reap(&sk, i) != 0;
	}
	/* allocations still in flight in the ring go with the sockets */
	for (i = 0; i < WORKERS; i++) {
		close(sk.sock[i][0]);
		close(sk.sock[i][1]);
	}
	TH_LOG("%d kills in %ld s", kills, seconds);
	EXPECT_EQ(0, errors);
	EXPECT_LT(0, kills);
	EXPECT_EQ(before, live_objects_wait(before));
}

TEST_HARNESS_MAIN
