// SPDX-License-Identifier: GPL-2.0
/*
 * The run's counters. Each process counts in private memory; the run's
 * total lives in a memfd that a process maps only for the moment it adds
 * what it counted since the last time. A worker asks the kernel to write
 * wherever a mutated pointer says (its own memory included: that is the
 * point), so a counter mapped all along would be clobbered sooner or
 * later; a clobbered private counter costs one bounded delta, not the total.
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
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

int stats_init(void)
{
	stats = calloc(1, sizeof(*stats));
	flushed = calloc(NCOUNTERS, sizeof(*flushed));
	stats_fd = memfd_create("cufab-fuzz-stats", MFD_CLOEXEC);
	if (!stats || !flushed || stats_fd < 0 ||
	    ftruncate(stats_fd, sizeof(struct stats)))
		return -1;
	return 0;
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
	total = mmap(NULL, sizeof(struct stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED, stats_fd, 0);
	if (total != MAP_FAILED) {
		for (i = 0; i < NCOUNTERS; i++) {
			d = __atomic_load_n(&mine[i], __ATOMIC_RELAXED) - flushed[i];
			if (d && d < DELTA_MAX)
				__atomic_add_fetch(&total[i], d, __ATOMIC_RELAXED);
			flushed[i] += d;
		}
		munmap(total, sizeof(struct stats));
	}
	pthread_mutex_unlock(&stats_lock);
}

/* The run's total so far, this process's counts included. */
void stats_sum(struct stats *out)
{
	void *total;

	stats_flush();
	memset(out, 0, sizeof(*out));
	total = mmap(NULL, sizeof(struct stats), PROT_READ, MAP_SHARED,
		     stats_fd, 0);
	if (total == MAP_FAILED)
		return;
	memcpy(out, total, sizeof(*out));
	munmap(total, sizeof(struct stats));
}
