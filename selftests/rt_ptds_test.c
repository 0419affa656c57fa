// SPDX-License-Identifier: GPL-2.0
/*
 * A program built with --default-stream per-thread: with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM the header sends cudaMemcpyAsync to
 * cudaMemcpyAsync_ptsz, cudaMemcpy to cudaMemcpy_ptds and so on, and
 * stream 0 is each thread's own default stream. One thread holds its
 * default stream with a host function; another's default stream still
 * runs, which a shared legacy stream would not.
 */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM
#include <dlfcn.h>
#include <pthread.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
};

static void CUDART_CB wait_gate(void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* The other thread: copies and memsets on its own default stream. */
static void *worker(void *arg)
{
	unsigned char h[256], back[256];
	int *rc = arg;
	void *d = NULL;

	memset(h, 0x42, sizeof(h));
	*rc = 1;
	if (cudaMalloc(&d, sizeof(h)) ||
	    cudaMemcpyAsync(d, h, sizeof(h), cudaMemcpyHostToDevice, 0) ||
	    cudaStreamSynchronize(0) ||
	    cudaMemset(d, 0x43, 16) ||
	    cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost) ||
	    cudaStreamQuery(0))
		return NULL;
	*rc = back[0] == 0x43 && back[16] == 0x42 ? 0 : 2;
	cudaFree(d);
	return NULL;
}

TEST(default_stream_is_per_thread)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
	pthread_t t;
	int rc = -1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaFree(0));
	ASSERT_RT(cudaSuccess, cudaLaunchHostFunc(0, wait_gate, &g));
	EXPECT_RT(cudaErrorNotReady, cudaStreamQuery(0));
	EXPECT_RT(cudaErrorNotReady, cudaStreamQuery(cudaStreamPerThread));
	ASSERT_EQ(0, pthread_create(&t, NULL, worker, &rc));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, rc);
	pthread_mutex_lock(&g.lock);
	g.open = 1;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	EXPECT_RT(cudaSuccess, cudaStreamSynchronize(0));
	EXPECT_RT(cudaSuccess, cudaStreamQuery(0));
}

/* The _ptsz allocator and events order on this thread's stream. */
TEST(async_calls_on_per_thread_stream)
{
	unsigned long long id = 0, pt = 0;
	cudaEvent_t e;
	void *p = NULL;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaMallocAsync(&p, 4096, 0));
	ASSERT_RT(cudaSuccess, cudaMemsetAsync(p, 1, 4096, 0));
	ASSERT_RT(cudaSuccess, cudaEventCreate(&e));
	ASSERT_RT(cudaSuccess, cudaEventRecord(e, 0));
	ASSERT_RT(cudaSuccess, cudaFreeAsync(p, 0));
	ASSERT_RT(cudaSuccess, cudaEventSynchronize(e));
	ASSERT_RT(cudaSuccess, cudaStreamGetId(0, &id));
	ASSERT_RT(cudaSuccess, cudaStreamGetId(cudaStreamPerThread, &pt));
	EXPECT_EQ(pt, id);
	EXPECT_RT(cudaSuccess, cudaEventDestroy(e));
	EXPECT_RT(cudaSuccess, cudaStreamSynchronize(0));
}

/* cudaGetDriverEntryPoint_ptsz: the default is the per-thread symbol. */
TEST(driver_entry_point_default)
{
	void *lib = dlopen("libcufab.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *fn = NULL;

	RT_SKIP();
	ASSERT_NE(NULL, lib);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPoint("cuStreamQuery", &fn,
						       cudaEnableDefault, NULL));
	EXPECT_EQ(dlsym(lib, "cuStreamQuery_ptsz"), fn);
	ASSERT_RT(cudaSuccess, cudaGetDriverEntryPoint("cuStreamQuery", &fn,
						       cudaEnableLegacyStream, NULL));
	EXPECT_EQ(dlsym(lib, "cuStreamQuery"), fn);
	dlclose(lib);
}

TEST_HARNESS_MAIN
