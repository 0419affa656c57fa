/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Submissions racing the destroy of their stream, for every submission
 * ioctl (stream_batch_test, streammem_test): in a child, so that its exit
 * ends the client and whatever the race left queued. Include after
 * cufab_test.h and cufab_uapi.h.
 */
#ifndef CUFAB_RACE_HELPERS_H
#define CUFAB_RACE_HELPERS_H

#include <pthread.h>
#include <unistd.h>

/* What a submitting thread reads; it ends at ENOENT (the stream is gone). */
struct racer {
	int fd;
	__u32 stream;
	__u64 page;	/* a 4 KiB MEM_ALLOC page to write */
	int stop;
	int other;	/* an errno neither 0 nor ENOENT */
};

/*
 * Twenty rounds of @loop submitting to a new stream (@flags) while the
 * child destroys it; a DESTROY meeting a submission's lookup is EBUSY
 * (Documentation/uapi.rst) and is retried. Returns wait_child()'s status.
 */
static inline int stream_destroy_race(__u32 flags, void *(*loop)(void *))
{
	struct cufab_mem_alloc a = { .size = sizeof(a), .length = 4096 };
	struct cufab_stream_create sc = { .size = sizeof(sc), .flags = flags };
	struct racer r = {};
	pthread_t t;
	pid_t pid;
	int i, ret;

	pid = fork();
	if (pid)
		return pid < 0 ? -1 : wait_child(pid);
	r.fd = cufab_open();
	CHILD_CHECK(r.fd >= 0);
	CHILD_CHECK(!ctx_create(r.fd, 0, 0, &sc.ctx_id));
	a.ctx_id = sc.ctx_id;
	CHILD_CHECK(!cufab_ioc(r.fd, CUFAB_IOCTL_MEM_ALLOC, &a));
	r.page = a.out_addr;
	for (i = 0; i < 20; i++) {
		CHILD_CHECK(!cufab_ioc(r.fd, CUFAB_IOCTL_STREAM_CREATE, &sc));
		r.stream = sc.out_stream_id;
		r.stop = 0;
		CHILD_CHECK(!pthread_create(&t, NULL, loop, &r));
		usleep(i * 100);
		while ((ret = destroy(r.fd, r.stream)) == EBUSY)
			usleep(10);
		errno = ret;
		CHILD_CHECK(!ret);
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		errno = r.other;
		CHILD_CHECK(!r.other);
	}
	_exit(0);
}

#endif /* CUFAB_RACE_HELPERS_H */
