// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime streams and events: flags and priorities, queries (NotReady is
 * not recorded as an error), synchronisation, cross-stream waits, host
 * functions and callbacks in order, elapsed time, IPC event handles
 * across a fork, and the legacy and per-thread default streams.
 */
#include <pthread.h>
#include <sys/wait.h>

#include "rt_helpers.h"
#include "kselftest_harness.h"

TEST(create_flags_priority)
{
	cudaStream_t s = NULL, nb = NULL, hi = NULL;
	int least = 0, greatest = 0, prio = 1;
	unsigned long long id1 = 0, id2 = 0;
	unsigned int flags = 9;
	int dev = -1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaSetDevice(0));
	ASSERT_RT(cudaSuccess, cudaDeviceGetStreamPriorityRange(&least, &greatest));
	EXPECT_GE(least, greatest);
	ASSERT_RT(cudaSuccess, cudaStreamCreate(&s));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithPriority(&hi, cudaStreamDefault,
							    greatest));
	ASSERT_RT(cudaSuccess, cudaStreamGetFlags(s, &flags));
	EXPECT_EQ(cudaStreamDefault, flags);
	ASSERT_RT(cudaSuccess, cudaStreamGetFlags(nb, &flags));
	EXPECT_EQ(cudaStreamNonBlocking, flags);
	ASSERT_RT(cudaSuccess, cudaStreamGetPriority(hi, &prio));
	EXPECT_EQ(greatest, prio);
	ASSERT_RT(cudaSuccess, cudaStreamGetPriority(s, &prio));
	EXPECT_EQ(0, prio);
	ASSERT_RT(cudaSuccess, cudaStreamGetId(s, &id1));
	ASSERT_RT(cudaSuccess, cudaStreamGetId(nb, &id2));
	EXPECT_NE(id1, id2);
	ASSERT_RT(cudaSuccess, cudaStreamGetDevice(hi, &dev));
	EXPECT_EQ(0, dev);
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamCreateWithFlags(&nb, 0x80));
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamCreate(NULL));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(hi));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(nb));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
	EXPECT_RT(cudaErrorInvalidResourceHandle, cudaStreamSynchronize(s));
	EXPECT_RT(cudaErrorInvalidResourceHandle, cudaStreamQuery(s));
	EXPECT_RT(cudaErrorInvalidResourceHandle, cudaStreamDestroy(s));
	EXPECT_RT(cudaErrorInvalidResourceHandle, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaGetLastError());
}

TEST(default_streams)
{
	unsigned int flags = 9;

	RT_SKIP();
	EXPECT_RT(cudaSuccess, cudaStreamSynchronize(0));
	EXPECT_RT(cudaSuccess, cudaStreamSynchronize(cudaStreamLegacy));
	EXPECT_RT(cudaSuccess, cudaStreamSynchronize(cudaStreamPerThread));
	EXPECT_RT(cudaSuccess, cudaStreamQuery(cudaStreamLegacy));
	EXPECT_RT(cudaSuccess, cudaStreamQuery(cudaStreamPerThread));
	EXPECT_RT(cudaSuccess, cudaStreamGetFlags(cudaStreamPerThread, &flags));
}

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
	int order[4];
	int n;
};

/* A host function that holds the stream until the test opens the gate. */
static void CUDART_CB wait_gate(void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	g->order[g->n++] = 1;
	pthread_mutex_unlock(&g->lock);
}

static void CUDART_CB callback(cudaStream_t s, cudaError_t status, void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->lock);
	g->order[g->n++] = status == cudaSuccess ? 2 : -1;
	pthread_mutex_unlock(&g->lock);
}

static void open_gate(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

TEST(host_funcs_callbacks_and_not_ready)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
	cudaEvent_t e;
	cudaStream_t s;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaEventCreate(&e));
	ASSERT_RT(cudaSuccess, cudaLaunchHostFunc(s, wait_gate, &g));
	ASSERT_RT(cudaSuccess, cudaStreamAddCallback(s, callback, &g, 0));
	ASSERT_RT(cudaSuccess, cudaEventRecord(e, s));
	/* not ready is an answer: the last-error slot stays clean */
	EXPECT_RT(cudaErrorNotReady, cudaStreamQuery(s));
	EXPECT_RT(cudaErrorNotReady, cudaEventQuery(e));
	EXPECT_RT(cudaSuccess, cudaPeekAtLastError());
	EXPECT_RT(cudaErrorInvalidValue, cudaStreamAddCallback(s, callback, &g, 1));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	open_gate(&g);
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_EQ(2, g.n);
	EXPECT_EQ(1, g.order[0]);
	EXPECT_EQ(2, g.order[1]);
	EXPECT_RT(cudaSuccess, cudaStreamQuery(s));
	EXPECT_RT(cudaSuccess, cudaEventQuery(e));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(e));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
}

/* b waits for an event a records behind a closed gate. */
TEST(wait_event_and_elapsed_time)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
	cudaEvent_t start, stop, notime;
	cudaStream_t a, b;
	float ms = -1;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaEventCreate(&start));
	ASSERT_RT(cudaSuccess, cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
	ASSERT_RT(cudaSuccess, cudaEventCreateWithFlags(&notime, cudaEventDisableTiming));
	ASSERT_RT(cudaSuccess, cudaEventRecord(start, a));
	ASSERT_RT(cudaSuccess, cudaLaunchHostFunc(a, wait_gate, &g));
	ASSERT_RT(cudaSuccess, cudaEventRecordWithFlags(stop, a, cudaEventRecordDefault));
	ASSERT_RT(cudaSuccess, cudaStreamWaitEvent(b, stop, 0));
	ASSERT_RT(cudaSuccess, cudaEventRecord(notime, b));
	usleep(20000);
	EXPECT_RT(cudaErrorNotReady, cudaStreamQuery(b));
	EXPECT_RT(cudaErrorNotReady, cudaEventElapsedTime(&ms, start, stop));
	open_gate(&g);
	ASSERT_RT(cudaSuccess, cudaStreamSynchronize(b));
	ASSERT_RT(cudaSuccess, cudaEventSynchronize(stop));
	ASSERT_RT(cudaSuccess, cudaEventElapsedTime(&ms, start, stop));
	EXPECT_LE(15.0, ms);
	EXPECT_RT(cudaErrorInvalidResourceHandle,
		  cudaEventElapsedTime(&ms, start, notime));
	EXPECT_RT(cudaErrorInvalidValue, cudaEventElapsedTime(NULL, start, stop));
	EXPECT_RT(cudaErrorInvalidValue, cudaEventCreateWithFlags(&start, 0x100));
	EXPECT_RT(cudaErrorInvalidValue, cudaGetLastError());
	EXPECT_RT(cudaSuccess, cudaEventDestroy(notime));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(stop));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(start));
	EXPECT_RT(cudaErrorInvalidResourceHandle, cudaEventSynchronize(start));
	EXPECT_RT(cudaErrorInvalidResourceHandle, cudaEventRecord(start, a));
	cudaGetLastError();
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(a));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(b));
}

/*
 * An interprocess event: the child opens the parent's handle and waits
 * on it; the parent records it behind a gate it opens after a while.
 */
TEST(ipc_event)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
	cudaIpcEventHandle_t h;
	int status = -1, pipefd[2];
	cudaEvent_t e, plain;
	cudaStream_t s;
	pid_t pid;
	char c;

	RT_SKIP();
	ASSERT_RT(cudaSuccess, cudaEventCreateWithFlags(&plain, 0));
	EXPECT_RT(cudaErrorInvalidValue, cudaIpcGetEventHandle(&h, plain));
	EXPECT_RT(cudaErrorInvalidValue, cudaIpcGetEventHandle(NULL, plain));
	cudaGetLastError();
	ASSERT_RT(cudaSuccess, cudaEventCreateWithFlags(&e, cudaEventInterprocess |
							cudaEventDisableTiming));
	ASSERT_RT(cudaSuccess, cudaIpcGetEventHandle(&h, e));
	ASSERT_RT(cudaSuccess, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	ASSERT_RT(cudaSuccess, cudaLaunchHostFunc(s, wait_gate, &g));
	ASSERT_RT(cudaSuccess, cudaEventRecord(e, s));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		cudaEvent_t oe;
		int rc = 10;

		close(pipefd[0]);
		if (cudaIpcOpenEventHandle(&oe, h) == cudaSuccess) {
			rc = cudaEventQuery(oe) == cudaErrorNotReady ? 0 : 11;
			if (write(pipefd[1], "x", 1) != 1)
				rc = 12;
			if (!rc && cudaEventSynchronize(oe) != cudaSuccess)
				rc = 13;
			if (!rc && cudaEventQuery(oe) != cudaSuccess)
				rc = 14;
			cudaEventDestroy(oe);
		}
		_exit(rc);
	}
	close(pipefd[1]);
	/* the child has seen the event pending; now let it complete */
	EXPECT_EQ(1, read(pipefd[0], &c, 1));
	open_gate(&g);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(pipefd[0]);
	EXPECT_RT(cudaSuccess, cudaStreamSynchronize(s));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(e));
	EXPECT_RT(cudaSuccess, cudaEventDestroy(plain));
	EXPECT_RT(cudaSuccess, cudaStreamDestroy(s));
}

TEST_HARNESS_MAIN
