// SPDX-License-Identifier: GPL-2.0
/*
 * A worker: one process, its client of /dev/cufab and its threads, each
 * making calls from the table (gen.c) and, now and then, something else
 * to the mappings and fds the calls returned: touch a page, munmap or
 * mprotect part of a mapping, mmap the device, fork a child that touches
 * the mappings and finds the client is not its own, pass an fd or a
 * handle to the next worker of the ring, or take one from the previous.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#define IMEX0		"/dev/cufab-imex-channels/channel0"

static __thread sigjmp_buf touch_jmp;
static __thread int touch_armed;
/* the threads of a worker start calling once all of them exist */
static pthread_barrier_t start;

/* The lines of /proc/self/maps, for a fault that kills the worker. */
static void dump_maps(void)
{
	char b[4096];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	while (fd >= 0 && (n = read(fd, b, sizeof(b))) > 0)
		if (write(2, b, n) != n)
			break;
	if (fd >= 0)
		close(fd);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char msg[128];
	int n;

	if (__atomic_load_n(&touch_armed, __ATOMIC_RELAXED))
		siglongjmp(touch_jmp, sig);
	/*
	 * outside touch(): say where, and what the worker had mapped then
	 * (a fault in its own memory), for the replay; then die of it
	 */
	n = snprintf(msg, sizeof(msg), "# worker %d: signal %d at %p code %d ip %#llx\n",
		     (int)getpid(), sig, si->si_addr, si->si_code,
		     (unsigned long long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]);
	if (n > 0 && write(2, msg, n) < 0)
		n = 0;
	dump_maps();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read or write one byte; a fault is an answer, not a failure. */
static void touch(unsigned char *p, bool write)
{
	if (sigsetjmp(touch_jmp, 1) == 0) {
		__atomic_store_n(&touch_armed, 1, __ATOMIC_SEQ_CST);
		if (write)
			__atomic_store_n(p, 0x5a, __ATOMIC_RELAXED);
		else
			__atomic_load_n(p, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&touch_armed, 0, __ATOMIC_SEQ_CST);
}

static bool pick_mapping(struct thread *t, struct res *r)
{
	unsigned int kind;

	return res_pick(t, R_ADDRS | RB(R_VA), r, &kind) && r->len;
}

static unsigned long long page_in(struct thread *t, const struct res *r)
{
	return r->val + rn(t, r->len / 4096 ? r->len / 4096 : 1) * 4096ULL;
}

/*
 * One or two pages from @addr (page_in()), never past the end of @r:
 * what lies next to a mapping may be the worker's own memory.
 */
static size_t pages_in(struct thread *t, const struct res *r,
		       unsigned long long addr)
{
	unsigned long long left = r->val + r->len > addr ?
				  (r->val + r->len - addr + 4095) / 4096 : 1;

	return 4096 * (left > 1 ? 1 + rn(t, 2) : 1);
}

struct msg {
	unsigned int kind;	/* resource kind, or R_NKINDS: a /dev/cufab fd */
	pid_t pid;		/* the sender */
	struct res r;
};

static void send_one(struct worker *w, struct thread *t)
{
	static const unsigned int kinds[] = {
		R_FD_DMABUF, R_FD_POOL, R_FAB_MEM, R_FAB_POOL, R_FAB_LE,
		R_EV_HANDLE, R_PTR_DATA, R_IPC_MEM, R_NKINDS,
	};
	struct msg m = { .kind = kinds[rn(t, ARRAY_SIZE(kinds))],
			 .pid = getpid() };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	unsigned int kind;
	int fd = -1;

	if (m.kind == R_NKINDS)
		fd = dup(w->cl.fd);
	else if (m.kind == R_FD_DMABUF || m.kind == R_FD_POOL)
		fd = fd_take(&w->cl, m.kind);
	else if (!res_pick(t, RB(m.kind), &m.r, &kind))
		return;
	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	} else if (m.kind == R_NKINDS || m.kind == R_FD_DMABUF ||
		   m.kind == R_FD_POOL) {
		return;
	}
	sendmsg(w->ring_out, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (fd >= 0)
		close(fd);
}

/* Another process's /dev/cufab fd: every call on it must be -EBADF. */
static void foreign_client(int fd)
{
	struct cufab_get_version v = { .size = sizeof(v) };

	int ret = ioctl(fd, CUFAB_IOCTL_GET_VERSION, &v);

	if (ret == 0 || errno != EBADF) {
		fprintf(stderr, "cufab-fuzz: GET_VERSION on another process's client: %s (want EBADF)\n",
			ret ? strerror(errno) : "success");
		_exit(3);
	}
	close(fd);
}

static void recv_one(struct worker *w)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msg m;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(w->ring_in, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != sizeof(m))
		return;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (m.kind == R_NKINDS) {
		if (fd >= 0 && m.pid != getpid())
			foreign_client(fd);
		else if (fd >= 0)
			close(fd);
		return;
	}
	if (m.kind >= R_NKINDS) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fd >= 0)
		m.r.val = fd;
	res_add(&w->cl, m.kind, &m.r);
}

/* A forked child: the mappings it inherited, and the client it did not. */
static void fork_one(struct worker *w, struct thread *t)
{
	struct res r[4];
	unsigned int n = 0, i;
	pid_t pid;

	while (n < ARRAY_SIZE(r) && pick_mapping(t, &r[n]))
		n++;
	pid = fork();
	if (pid == 0) {
		struct cufab_noop nop = { .size = sizeof(nop) };

		alarm(20);	/* a touch that never returns is a finding */
		for (i = 0; i < n; i++)
			touch((unsigned char *)(unsigned long)page_in(t, &r[i]), i & 1);
		if (ioctl(w->cl.fd, CUFAB_IOCTL_NOOP, &nop) == 0 || errno != EBADF)
			_exit(4);
		_exit(0);
	}
	if (pid > 0) {
		int st;

		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "cufab-fuzz: forked child of a client: status %#x\n", st);
			_exit(4);
		}
	}
}

static void pseudo_one(struct worker *w, struct thread *t)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE };
	unsigned int op = rn(t, 8);
	struct res r;
	void *p;

	__atomic_add_fetch(&stats->pseudo[op], 1, __ATOMIC_RELAXED);
	switch (op) {
	case 0:
	case 1:
		if (pick_mapping(t, &r)) {
			timer_arm(true);
			touch((unsigned char *)(unsigned long)page_in(t, &r), op);
			timer_arm(false);
		}
		break;
	case 2:
		/*
		 * The range is forgotten, though it may stay remembered as
		 * another kind or by another address; so may ranges the
		 * kernel freed (a context's cuMemAlloc memory with it). Such
		 * stale addresses are fine to pass: the worker maps nothing
		 * of its own once its threads run (stats.c, worker_main()),
		 * so a stale range is a hole or cufab memory again.
		 */
		if (pick_mapping(t, &r)) {
			unsigned long long a = page_in(t, &r);

			res_forget(&w->cl, R_ADDRS | RB(R_VA), r.val);
			munmap((void *)(unsigned long)a, pages_in(t, &r, a));
		}
		break;
	case 3:
		if (pick_mapping(t, &r))
			mprotect((void *)(unsigned long)page_in(t, &r), 4096,
				 prots[rn(t, 3)]);
		break;
	case 4:
		p = mmap(NULL, rn(t, 2) ? CUFAB_SEQ_MMAP_SIZE : 4096,
			 prots[rn(t, 3)], rn(t, 4) ? MAP_SHARED : MAP_PRIVATE,
			 w->cl.fd, rn(t, 2) ? CUFAB_SEQ_MMAP_OFFSET : rn(t, 64) * 4096ULL);
		if (p != MAP_FAILED) {
			touch(p, false);
			if (rn(t, 2))
				munmap(p, 4096);
		}
		break;
	case 5:
		if (!rn(t, 4))
			fork_one(w, t);
		break;
	case 6:
		send_one(w, t);
		break;
	default:
		recv_one(w);
		break;
	}
}

struct targ {
	struct worker *w;
	struct thread t;
	unsigned int calls, pseudo_pm;
};

static void *thread_main(void *arg)
{
	struct targ *a = arg;
	struct thread *t = &a->t;
	unsigned int i;

	pthread_barrier_wait(&start);
	for (i = 0; i < a->calls; i++) {
		if (rn(t, 1000) < a->pseudo_pm)
			pseudo_one(a->w, t);
		else
			fuzz_one(t, pick_ioctl(t), rn(t, 1000) < t->mutate);
		if (a->w->progress)
			__atomic_add_fetch(a->w->progress, 1, __ATOMIC_RELAXED);
		/* a worker may be killed at any moment: count as it goes */
		if (i % 32 == 31)
			stats_flush();
	}
	stats_flush();
	return NULL;
}

/*
 * The buffer user pointers point at, between two PROT_NONE pages: a
 * mutated length makes the kernel fault there (EFAULT), not write over
 * the worker's own stacks and heap.
 */
static unsigned char *scratch_alloc(void)
{
	unsigned char *p = mmap(NULL, SCRATCH + 2 * 4096, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED ||
	    mprotect(p + 4096, SCRATCH, PROT_READ | PROT_WRITE))
		_exit(2);
	return p + 4096;
}

static void __attribute__((noreturn)) worker_main(struct worker *w)
{
	struct targ a[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	unsigned int nt = w->kind == E_PROCS ? 2 : opt.threads, i;
	struct sigaction sa = { .sa_sigaction = on_fault,
				.sa_flags = SA_NODEFER | SA_SIGINFO };
	int fd;

	stats_fork_child();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(CUFAB_DEVICE_PATH);
		_exit(2);
	}
	client_init(&w->cl, fd, ngpus);
	fd = open(IMEX0, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct res r = { .val = fd };

		res_add(&w->cl, R_FD_IMEX, &r);
	}
	/*
	 * Every mapping of the worker's own (stacks, scratch buffers) is
	 * made before the first call: none can land in a range that a call
	 * returned and the kernel or another thread freed since, which the
	 * worker may still remember and hand to the kernel to write.
	 */
	if (pthread_barrier_init(&start, NULL, nt))
		_exit(2);
	for (i = 0; i < nt; i++) {
		a[i] = (struct targ){ .w = w, .calls = opt.calls,
			.pseudo_pm = w->kind == E_MAPS ? 400 : 30 };
		a[i].t.cl = &w->cl;
		a[i].t.rng = w->seed * 0x100000001b3ULL + i;
		a[i].t.mutate = opt.mutate;
		a[i].t.scratch = scratch_alloc();
		if (pthread_create(&th[i], NULL, thread_main, &a[i]))
			_exit(2);
	}
	for (i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

pid_t spawn(struct worker *w)
{
	pid_t pid = fork();

	if (pid == 0)
		worker_main(w);
	return pid;
}
