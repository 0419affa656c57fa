// SPDX-License-Identifier: GPL-2.0
/*
 * A host-code-only CUDA program as a user writes it, built by NVIDIA's nvcc
 * with -cudart shared and run on cufab's drop-in libcudart.so.13
 * (selftests/rt_nvcc_test.sh): pools with IPC export and import, managed
 * memory attached to a stream, peer access, and an IPC event across fork.
 * Prints one TAP line per check; exits with the number of failures.
 */
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

static int checks, failures;

#define CHECK(cond) do {						\
	checks++;							\
	if (cond) {							\
		printf("ok %d - %s\n", checks, #cond);			\
	} else {							\
		failures++;						\
		printf("not ok %d - %s (line %d)\n", checks, #cond, __LINE__); \
	}								\
} while (0)

static void pools(void)
{
	cudaMemPoolProps p;
	cudaMemPool_t pool, imported;
	cudaMemPoolPtrExportData data;
	cudaStream_t s;
	unsigned char *a = nullptr, *b = nullptr;
	unsigned long long used = 0;
	int fd = -1;

	memset(&p, 0, sizeof(p));
	p.allocType = cudaMemAllocationTypePinned;
	p.handleTypes = cudaMemHandleTypePosixFileDescriptor;
	p.location.type = cudaMemLocationTypeDevice;
	p.location.id = 0;
	CHECK(cudaMemPoolCreate(&pool, &p) == cudaSuccess);
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
	CHECK(cudaMallocFromPoolAsync((void **)&a, 1 << 20, pool, s) == cudaSuccess);
	CHECK(cudaMemsetAsync(a, 0x5c, 1 << 20, s) == cudaSuccess);
	CHECK(cudaStreamSynchronize(s) == cudaSuccess);
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess);
	CHECK(used == 1 << 20);
	CHECK(cudaMemPoolExportToShareableHandle(&fd, pool,
			cudaMemHandleTypePosixFileDescriptor, 0) == cudaSuccess);
	CHECK(cudaMemPoolImportFromShareableHandle(&imported, (void *)(uintptr_t)fd,
			cudaMemHandleTypePosixFileDescriptor, 0) == cudaSuccess);
	close(fd);
	CHECK(cudaMemPoolExportPointer(&data, a) == cudaSuccess);
	CHECK(cudaMemPoolImportPointer((void **)&b, imported, &data) == cudaSuccess);
	CHECK(b && b[(1 << 20) - 1] == 0x5c);
	CHECK(cudaFreeAsync(b, s) == cudaSuccess);
	CHECK(cudaFreeAsync(a, s) == cudaSuccess);
	CHECK(cudaMallocAsync((void **)&a, 4096, s) == cudaSuccess);
	CHECK(cudaFreeAsync(a, s) == cudaSuccess);
	CHECK(cudaStreamSynchronize(s) == cudaSuccess);
	CHECK(cudaMemPoolDestroy(imported) == cudaSuccess);
	CHECK(cudaMemPoolDestroy(pool) == cudaSuccess);
	CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

static void managed(void)
{
	int *m = nullptr, v[4] = { 0 };
	cudaStream_t s;

	CHECK(cudaMallocManaged((void **)&m, 4096) == cudaSuccess);
	CHECK(cudaStreamCreate(&s) == cudaSuccess);
	CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle) == cudaSuccess);
	CHECK(cudaStreamSynchronize(s) == cudaSuccess);
	m[0] = 42;
	CHECK(cudaMemPrefetchAsync(m, 4096, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, s) == cudaSuccess);
	CHECK(cudaMemcpyAsync(v, m, sizeof(v), cudaMemcpyDefault, s) == cudaSuccess);
	CHECK(cudaStreamSynchronize(s) == cudaSuccess);
	CHECK(v[0] == 42);
	CHECK(cudaFree(m) == cudaSuccess);
	CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

static void peers(void)
{
	int n = 0, can = 0;
	char *d1 = nullptr, *d0 = nullptr, c = 0;

	CHECK(cudaGetDeviceCount(&n) == cudaSuccess);
	if (n < 2 || cudaDeviceCanAccessPeer(&can, 0, 1) != cudaSuccess || !can) {
		printf("ok %d # SKIP GPUs 0 and 1 are not peers\n", ++checks);
		return;
	}
	CHECK(cudaSetDevice(1) == cudaSuccess);
	CHECK(cudaMalloc(&d1, 64) == cudaSuccess);
	CHECK(cudaMemset(d1, 7, 64) == cudaSuccess);
	CHECK(cudaSetDevice(0) == cudaSuccess);
	CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
	CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
	CHECK(cudaGetLastError() == cudaErrorPeerAccessAlreadyEnabled);
	CHECK(cudaMalloc(&d0, 64) == cudaSuccess);
	CHECK(cudaMemcpyPeer(d0, 0, d1, 1, 64) == cudaSuccess);
	CHECK(cudaMemcpy(&c, d0 + 63, 1, cudaMemcpyDeviceToHost) == cudaSuccess);
	CHECK(c == 7);
	CHECK(cudaDeviceDisablePeerAccess(1) == cudaSuccess);
	CHECK(cudaFree(d0) == cudaSuccess);
	CHECK(cudaFree(d1) == cudaSuccess);
}

static void ipc_event(void)
{
	cudaIpcEventHandle_t h;
	cudaEvent_t e;
	int status = -1;
	pid_t pid;

	CHECK(cudaEventCreateWithFlags(&e, cudaEventInterprocess |
				       cudaEventDisableTiming) == cudaSuccess);
	CHECK(cudaEventRecord(e, 0) == cudaSuccess);
	CHECK(cudaIpcGetEventHandle(&h, e) == cudaSuccess);
	CHECK(cudaDeviceSynchronize() == cudaSuccess);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		cudaEvent_t o;

		if (cudaIpcOpenEventHandle(&o, h) != cudaSuccess)
			_exit(1);
		_exit(cudaEventSynchronize(o) == cudaSuccess &&
		      cudaEventDestroy(o) == cudaSuccess ? 0 : 2);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(cudaEventDestroy(e) == cudaSuccess);
}

int main(void)
{
	int rt = 0, dev = -1;

	CHECK(cudaRuntimeGetVersion(&rt) == cudaSuccess && rt == 13000);
	CHECK(cudaFree(nullptr) == cudaSuccess);
	CHECK(cudaGetDevice(&dev) == cudaSuccess && dev == 0);
	pools();
	managed();
	peers();
	ipc_event();
	CHECK(cudaGetLastError() == cudaSuccess);
	printf("1..%d\n", checks);
	return failures;
}
