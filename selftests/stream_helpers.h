/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixtures shared by the stream and event suites: a context on a GPU, and
 * a gate, a host function that blocks its stream until the test opens it.
 * Include after cufab_test.h and kselftest_harness.h.
 */
#ifndef CUFAB_STREAM_HELPERS_H
#define CUFAB_STREAM_HELPERS_H

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cufab/cuda.h>

static inline CUcontext ctx_on(CUdevice dev)
{
	CUcontext c = NULL;

	if (cuCtxCreate(&c, NULL, 0, dev) != CUDA_SUCCESS)
		return NULL;
	return c;
}

#define CTX_OR_SKIP(ctx) do {						\
	INIT_OR_SKIP();							\
	(ctx) = ctx_on(0);						\
	ASSERT_NE(NULL, (ctx));						\
} while (0)

/* A gate a host function waits on: it blocks its stream until opened. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
	int entered;
	pid_t tid;		/* the thread gate_fn ran on */
};

#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0 }

static inline void CUDA_CB gate_fn(void *p)
{
	struct gate *g = p;

	pthread_mutex_lock(&g->lock);
	g->entered = 1;
	g->tid = syscall(SYS_gettid);
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static inline void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static inline void gate_wait_entered(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->entered)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* A thread body: open the gate a little later, while the test sleeps. */
static inline void *gate_open_later(void *p)
{
	usleep(50000);
	gate_open(p);
	return NULL;
}

#endif /* CUFAB_STREAM_HELPERS_H */
