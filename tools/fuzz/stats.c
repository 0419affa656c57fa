// SPDX-License-Identifier: GPL-2.0
/*
 * The run's counters. Each process counts in private memory; the run's
 * total lives in a memfd that a process maps only for the moment it adds
 * what it counted since the last time, so a kernel write through a wrong
 * address cannot reach the total. It is mapped over an address range
 * reserved before any worker starts, never munmap()ed: a range the
 * worker had from /dev/cufab and lost (freed by the kernel with its
 * context, unmapped by another thread) is never the counters' next
 * mapping, whatever the worker still remembers of it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#define NCOUNTERS	(sizeof(struct stats) / sizeof(unsigned long long))
/* more than a process can count between two flushes: a clobbered counter */
#define DELTA_MAX	0x100000000ULL

struct stats *stats;
static unsigned long long *flushed;
static int stats_fd = -1;
static void *stats_va;		/* PROT_NONE between two flushes */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

int stats_init(void)
{
	stats = calloc(1, sizeof(*stats));
	flushed = calloc(NCOUNTERS, sizeof(*flushed));
	stats_fd = memfd_create("cufab-fuzz-stats", MFD_CLOEXEC);
	if (!stats || !flushed || stats_fd < 0 ||
	    ftruncate(stats_fd, sizeof(struct stats)))
		return -1;
	stats_va = mmap(NULL, sizeof(struct stats), PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return stats_va == MAP_FAILED ? -1 : 0;
}

/* The total, mapped at stats_va; MAP_FAILED if it cannot be. */
static void *stats_map(int prot)
{
	return mmap(stats_va, sizeof(struct stats), prot,
		    MAP_SHARED | MAP_FIXED, stats_fd, 0);
}

/* Back to an inaccessible range that stays reserved. */
static void stats_unmap(void)
{
	mmap(stats_va, sizeof(struct stats), PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* A new process counts from zero: its parent's counts are the parent's. */
void stats_fork_child(void)
{
	memset(stats, 0, sizeof(*stats));
	memset(flushed, 0, NCOUNTERS * sizeof(*flushed));
	pthread_mutex_init(&stats_lock, NULL);
}

void stats_flush(void)
{
	const unsigned long long *mine = (const void *)stats;
	unsigned long long *total, d;
	unsigned int i;

	pthread_mutex_lock(&stats_lock);
	total = stats_map(PROT_READ | PROT_WRITE);
	if (total != MAP_FAILED) {
		for (i = 0; i < NCOUNTERS; i++) {
			d = __atomic_load_n(&mine[i], __ATOMIC_RELAXED) - flushed[i];
			if (d && d < DELTA_MAX)
				__atomic_add_fetch(&total[i], d, __ATOMIC_RELAXED);
			flushed[i] += d;
		}
		stats_unmap();
	}
	pthread_mutex_unlock(&stats_lock);
}

/* The run's total so far, this process's counts included. */
void stats_sum(struct stats *out)
{
	void *total;

	stats_flush();
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&stats_lock);
	total = stats_map(PROT_READ);
	if (total != MAP_FAILED) {
		memcpy(out, total, sizeof(*out));
		stats_unmap();
	}
	pthread_mutex_unlock(&stats_lock);
}
