// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-fuzz [-s SEED] [-d SECONDS] [-e FIRST] [-n EPISODES] [-c CALLS]
 *            [-t THREADS] [-p PROCS] [-m PERMILLE] [-R N] [-k] [-S] [-K] [-v]
 *
 * Runs episodes until -n of them ran or -d seconds passed. Episode K has
 * its own seed (from -s and K), so "-s SEED -e K -n 1" replays it alone;
 * the line to do that is printed when an episode fails (the run stops
 * there; with -K it goes on and fails at the end). Episodes rotate over
 * four shapes:
 *
 *   0 threads   one process, -t threads on one client
 *   1 procs     -p processes of two threads each, passing fds, fabric
 *               handles and their /dev/cufab fds around a ring of unix
 *               sockets; the parent SIGKILLs them at random moments (in
 *               the middle of calls) and starts others
 *   2 netlink   every netlink command, with one ioctl process running
 *               (the node's SETs refused, EBUSY), then with none
 *   3 mappings  one process whose threads mostly mmap, munmap, mprotect,
 *               touch and fork the mappings the calls made
 *
 * Each worker thread makes -c calls; -m of 1000 calls are mutated. After
 * every episode the invariants are checked: the kernel's live-object
 * counter is back to its start, no client is left, every netlink dump is
 * empty, the module's refcount is 0 and the kernel log has no splat; every
 * -R N episodes also that rmmod succeeds and kmemleak finds nothing, after
 * which the module is loaded again (/cufab.ko, the test VM's). -k: KTAP.
 * At the end: calls per second and, per ioctl and netlink command, the
 * calls, the successes and the errno of each error path reached; -S fails
 * the run when an ioctl never succeeded (a long run's promise, not a
 * short one's).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
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

#define LIVE_OBJECTS	"/sys/kernel/debug/cufab/live_objects"
#define REFCNT		"/sys/module/cufab/refcnt"
#define PARAMS		"/sys/module/cufab/parameters/"
#define IMEX0		"/dev/cufab-imex-channels/channel0"
#define MAX_PROCS	16
#define MAX_THREADS	16

enum { E_THREADS, E_PROCS, E_NETLINK, E_MAPS, E_KINDS };
static const char *const episode_names[] = { "threads", "procs", "netlink", "mappings" };

static struct {
	unsigned long long seed;
	long seconds;
	unsigned int first, episodes, calls, threads, procs, mutate;
	unsigned int reload;
	bool ktap, verbose, all_ok, keep_going;
} opt = {
	.seed = 1, .episodes = ~0U, .calls = 2000, .threads = 3, .procs = 4,
	.mutate = 250,
};

static int ngpus = 4;
static int kmsg_fd = -1;
static unsigned int ktap_n;

/* ---- the worker: one process, its client, its threads ---------------- */

struct worker {
	struct client cl;
	int ring_out, ring_in;		/* unix sockets to the neighbours */
	unsigned long long seed;
	unsigned int kind;
};

static __thread sigjmp_buf touch_jmp;
static __thread int touch_armed;

static void on_fault(int sig)
{
	if (__atomic_load_n(&touch_armed, __ATOMIC_RELAXED))
		siglongjmp(touch_jmp, sig);
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

struct msg {
	unsigned int kind;	/* resource kind, or R_NKINDS: a /dev/cufab fd */
	pid_t pid;		/* the sender */
	struct res r;
};

static void send_one(struct worker *w, struct thread *t)
{
	static const unsigned int kinds[] = {
		R_FD_DMABUF, R_FD_POOL, R_FAB_MEM, R_FAB_POOL, R_FAB_LE,
		R_EV_HANDLE, R_PTR_DATA, R_NKINDS,
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
		if (pick_mapping(t, &r))
			munmap((void *)(unsigned long)page_in(t, &r), 4096 * (1 + rn(t, 2)));
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

	for (i = 0; i < a->calls; i++) {
		if (rn(t, 1000) < a->pseudo_pm)
			pseudo_one(a->w, t);
		else
			fuzz_one(t, pick_ioctl(t), rn(t, 1000) < t->mutate);
	}
	return NULL;
}

static void set_param(const char *name, const char *val)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, val, strlen(val)) < 0)
			perror(path);
		close(fd);
	}
}

static void __attribute__((noreturn)) worker_main(struct worker *w)
{
	struct targ a[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	unsigned int nt = w->kind == E_PROCS ? 2 : opt.threads, i;
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	int fd;

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
	for (i = 0; i < nt; i++) {
		a[i] = (struct targ){ .w = w, .calls = opt.calls,
			.pseudo_pm = w->kind == E_MAPS ? 400 : 30 };
		a[i].t.cl = &w->cl;
		a[i].t.rng = w->seed * 0x100000001b3ULL + i;
		a[i].t.mutate = opt.mutate;
		a[i].t.scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pthread_create(&th[i], NULL, thread_main, &a[i]))
			_exit(2);
	}
	for (i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

static pid_t spawn(struct worker *w)
{
	pid_t pid = fork();

	if (pid == 0)
		worker_main(w);
	return pid;
}

/* ---- the supervisor: episodes and invariants ------------------------- */

static unsigned long long mix(unsigned long long seed, unsigned long long k)
{
	struct thread t = { .rng = seed ^ (k * 0x9e3779b97f4a7c15ULL) };

	return rnd(&t);
}

static long long read_ll(const char *path)
{
	char buf[64] = "";
	long long v = -1;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) > 0)
		v = strtoll(buf, NULL, 0);
	close(fd);
	return v;
}

static time_t episode_deadline;

/*
 * A worker still running at the episode's deadline sleeps where no signal
 * reaches it: the kernel's blocked tasks go to its log (sysrq w), the
 * worker's threads' kernel stacks to stdout, and the episode fails.
 */
static void hung(pid_t pid, char *why, size_t len)
{
	char path[64], buf[4096];
	struct dirent *de;
	DIR *dir;
	int fd;
	ssize_t n;

	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "w", 1) < 0)
			perror("sysrq");
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack", pid,
			 de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			printf("# %s:\n%s", path, buf);
		}
		close(fd);
	}
	if (dir)
		closedir(dir);
	snprintf(why, len, "worker %d still running at the episode's deadline (hang? see the kernel log)",
		 pid);
	kill(pid, SIGKILL);
}

/* Exit status: 0 and SIGKILL (ours) are fine. */
static int reap(pid_t pid, char *why, size_t len)
{
	int st;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) == 0) {
		if (time(NULL) > episode_deadline) {
			hung(pid, why, len);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(20000);
	}
	if (r != pid)
		return 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	snprintf(why, len, "worker %d: %s %d", pid,
		 WIFSIGNALED(st) ? "signal" : "exit status",
		 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return -1;
}

static int run_procs(unsigned long long seed, char *why, size_t len)
{
	struct worker w[MAX_PROCS];
	int sock[MAX_PROCS][2];
	pid_t pid[MAX_PROCS];
	unsigned int np = opt.procs, i, alive;
	struct thread t = { .rng = seed };
	int ret = 0;

	for (i = 0; i < np; i++)
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sock[i]))
			return snprintf(why, len, "socketpair: %m"), -1;
	for (i = 0; i < np; i++) {
		w[i] = (struct worker){ .ring_out = sock[i][0],
			.ring_in = sock[(i + np - 1) % np][1],
			.seed = mix(seed, i), .kind = E_PROCS };
		pid[i] = spawn(&w[i]);
	}
	/* kill one, now and then, in the middle of whatever it does */
	for (alive = np; alive;) {
		if (time(NULL) > episode_deadline) {
			for (i = 0; i < np; i++) {
				if (pid[i]) {
					ret |= reap(pid[i], why, len);
					pid[i] = 0;
				}
			}
			break;
		}
		usleep(5000 + rn(&t, 50000));
		i = rn(&t, np);
		if (!pid[i])
			goto poll;
		if (rn(&t, 2) == 0) {
			kill(pid[i], SIGKILL);
			__atomic_add_fetch(&stats->kills, 1, __ATOMIC_RELAXED);
			ret |= reap(pid[i], why, len);
			w[i].seed = mix(w[i].seed, 1);
			/* the replacement runs a shorter life */
			pid[i] = rn(&t, 2) ? spawn(&w[i]) : 0;
			if (!pid[i])
				alive--;
		}
poll:
		for (i = 0; i < np; i++) {
			int st;

			if (!pid[i] || waitpid(pid[i], &st, WNOHANG) != pid[i])
				continue;
			if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) &&
			    !(WIFEXITED(st) && !WEXITSTATUS(st))) {
				snprintf(why, len, "worker %d: status %#x", pid[i], st);
				ret = -1;
			}
			pid[i] = 0;
			alive--;
		}
	}
	for (i = 0; i < np; i++) {
		close(sock[i][0]);
		close(sock[i][1]);
	}
	return ret;
}

static int run_one(unsigned int kind, unsigned long long seed, char *why,
		   size_t len)
{
	struct worker w = { .ring_out = -1, .ring_in = -1, .seed = seed,
			    .kind = kind };
	int sv[2] = { -1, -1 };
	pid_t pid;
	int ret;

	/* a worker alone sends to itself */
	if (!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		w.ring_out = sv[0];
		w.ring_in = sv[1];
	}
	pid = spawn(&w);
	ret = reap(pid, why, len);
	close(sv[0]);
	close(sv[1]);
	return ret;
}

static int run_netlink(unsigned long long seed, char *why, size_t len)
{
	struct thread t = { .rng = seed };
	struct worker w = { .ring_out = -1, .ring_in = -1, .seed = seed,
			    .kind = E_THREADS };
	unsigned int i, n = opt.calls;
	int sock = nl_open(), ret = 0;
	pid_t pid;

	if (sock < 0)
		return snprintf(why, len, "no cufab netlink family"), -1;
	nl_snapshot(sock);
	pid = spawn(&w);		/* a client is open: SETs are EBUSY */
	for (i = 0; i < n / 2; i++)
		nl_fuzz_one(&t, sock);
	kill(pid, SIGKILL);
	ret = reap(pid, why, len);
	/* the client's release is asynchronous: SETs may still be EBUSY */
	for (i = 0; i < n / 2; i++)
		nl_fuzz_one(&t, sock);
	/* and one unprivileged process: every SET is EPERM */
	pid = fork();
	if (pid == 0) {
		int s;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(5);
		s = nl_open();
		for (i = 0; s >= 0 && i < n / 8; i++)
			nl_fuzz_one(&t, s);
		_exit(0);
	}
	ret |= reap(pid, why, len);
	nl_restore(sock);
	close(sock);
	return ret;
}

static const char *const splats[] = {
	"BUG:", "WARNING:", "KASAN", "UBSAN", "possible circular locking",
	"possible recursive locking", "inconsistent lock state", "Oops",
	"INFO: task", "kmemleak", "general protection", "list_add corruption",
	"list_del corruption", "refcount_t:", "suspicious RCU",
};

/* A kernel log line since the last call that says the kernel broke. */
static int kmsg_check(char *why, size_t len)
{
	char line[1024];
	ssize_t n;
	unsigned int i;
	int ret = 0;

	if (kmsg_fd < 0)
		return 0;
	while ((n = read(kmsg_fd, line, sizeof(line) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		char *msg;

		if (n <= 0)
			continue;
		line[n] = '\0';
		msg = strchr(line, ';');
		msg = msg ? msg + 1 : line;
		for (i = 0; i < ARRAY_SIZE(splats); i++) {
			if (!strstr(msg, splats[i]) || ret)
				continue;
			snprintf(why, len, "kernel log: %.*s", (int)strcspn(msg, "\n"), msg);
			ret = -1;
		}
		if (opt.verbose && ret)
			fputs(msg, stderr);
	}
	return ret;
}

static void kmemleak_scan(void)
{
	int fd = open("/sys/kernel/debug/kmemleak", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, "scan", 4) < 0 || write(fd, "scan", 4) < 0)
		perror("kmemleak");
	close(fd);
}

static int kmemleak_check(char *why, size_t len)
{
	char buf[256];
	ssize_t n;
	int fd;

	kmemleak_scan();
	fd = open("/sys/kernel/debug/kmemleak", O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		snprintf(why, len, "kmemleak: %.*s", (int)strcspn(buf, "\n"), buf);
		return -1;
	}
	return 0;
}

static char saved_delay[32], saved_timeout[32];

static void get_param(const char *name, char *val, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	val[0] = '\0';
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, val, len - 1);
	val[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void set_params(void)
{
	/* endpoints ready at once; a team that will not form fails fast */
	set_param("le_construct_delay_ms", "0");
	set_param("mc_team_timeout_ms", "5");
}

/* The suites that run after this one get the knobs they had. */
static void restore_params(void)
{
	if (saved_delay[0])
		set_param("le_construct_delay_ms", saved_delay);
	if (saved_timeout[0])
		set_param("mc_team_timeout_ms", saved_timeout);
}

/*
 * The module's parameters are the test VM's (tools/vm/run writes them to
 * /etc/cufab/run.conf), else $CUFAB_MODPARAMS.
 */
static int reload(char *why, size_t len)
{
	static const char insmod[] =
		"[ ! -r /etc/cufab/run.conf ] || . /etc/cufab/run.conf; "
		"insmod /cufab.ko $CUFAB_MODPARAMS";

	if (system("rmmod cufab"))
		return snprintf(why, len, "rmmod cufab failed"), -1;
	if (kmemleak_check(why, len))
		return -1;
	if (system(insmod))
		return snprintf(why, len, "%s: failed", insmod), -1;
	nl_reset();
	set_params();
	return 0;
}

static long long live_wait(long long want)
{
	long long v = read_ll(LIVE_OBJECTS);
	int i;

	/* a dead process's client is released asynchronously (fput) */
	for (i = 0; i < 200 && v != want; i++) {
		usleep(50000);
		v = read_ll(LIVE_OBJECTS);
	}
	return v;
}

static int invariants(long long live0, bool reload_now, char *why, size_t len)
{
	long long v;
	int sock, i;

	v = live_wait(live0);
	if (v != live0)
		return snprintf(why, len, "live_objects %lld, was %lld", v, live0), -1;
	sock = nl_open();
	if (sock < 0)
		return snprintf(why, len, "no cufab netlink family"), -1;
	for (i = 0; i < 100 && (v = nl_topo_u64(sock, CUFAB_NL_A_TOPO_CLIENTS)); i++)
		usleep(50000);
	if (v) {
		close(sock);
		return snprintf(why, len, "%lld clients left", v), -1;
	}
	if (nl_check_empty(sock, why, len)) {
		close(sock);
		return -1;
	}
	close(sock);
	v = read_ll(REFCNT);
	if (v > 0)
		return snprintf(why, len, "module refcount %lld", v), -1;
	if (kmsg_check(why, len))
		return -1;
	if (reload_now)
		return reload(why, len);
	return 0;
}

static void ktap(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ktap(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (!opt.ktap)
		return;
	printf("%sok %u ", ok ? "" : "not ", ++ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *errname(unsigned int e)
{
	static char buf[16];
	const char *n = strerrorname_np(e);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "E%u", e);
	return buf;
}

static unsigned long long total_calls(void)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < NR_IOCTLS; i++)
		n += stats->calls[i];
	return n;
}

/* Per ioctl: calls, successes, errno:count of each error path. */
static unsigned int report(double secs, unsigned int episodes)
{
	unsigned long long n = total_calls(), nl = 0, ps = 0;
	unsigned int i, e, never = 0;

	for (i = 0; i < fuzz_nl_ncmds; i++)
		nl += stats->nl_calls[i];
	for (i = 0; i < ARRAY_SIZE(stats->pseudo); i++)
		ps += stats->pseudo[i];
	printf("# seed %llu: %u episodes, %llu ioctls in %.0f s (%.0f ioctls/s), %llu netlink requests, %llu mapping/fd operations, %llu kills\n",
	       opt.seed, episodes, n, secs, secs > 0 ? n / secs : 0, nl, ps,
	       stats->kills);
	for (i = 0; i < fuzz_nioctls; i++) {
		printf("# ioctl %-17s calls %8llu ok %8llu", fuzz_ioctls[i].name,
		       stats->calls[i], stats->ok[i]);
		for (e = 1; e < MAX_ERRNO; e++)
			if (stats->err[i][e])
				printf(" %s:%llu", errname(e), stats->err[i][e]);
		putchar('\n');
		never += !stats->ok[i];
	}
	for (i = 0; i < fuzz_nl_ncmds; i++) {
		printf("# netlink %-15s calls %8llu ok %8llu", fuzz_nl_names[i],
		       stats->nl_calls[i], stats->nl_ok[i]);
		for (e = 1; e < MAX_ERRNO; e++)
			if (stats->nl_err[i][e])
				printf(" %s:%llu", errname(e), stats->nl_err[i][e]);
		putchar('\n');
	}
	for (i = 0; i < fuzz_nioctls; i++)
		if (!stats->ok[i])
			printf("# never succeeded: %s\n", fuzz_ioctls[i].name);
	return never;
}

/* The table must name every ioctl once, in order. */
static int check_table(void)
{
	unsigned int i;

	for (i = 0; i < fuzz_nioctls; i++) {
		if (!fuzz_ioctls[i].name || fuzz_ioctls[i].nr != CUFAB_CMD_BASE + i) {
			fprintf(stderr, "cufab-fuzz: no description of ioctl %#x\n",
				CUFAB_CMD_BASE + i);
			return -1;
		}
	}
	return 0;
}

static void print_usage(void)
{
	fprintf(stderr, "usage: cufab-fuzz [-s SEED] [-d SECONDS] [-e FIRST] [-n EPISODES] [-c CALLS]\n"
		"                  [-t THREADS] [-p PROCS] [-m PERMILLE] [-R N] [-k] [-S] [-K] [-v]\n");
	exit(2);
}

/* -v: also in the kernel log, which a test VM streams as it goes */
static void progress(unsigned int k, unsigned int kind)
{
	char line[160];
	int fd;

	snprintf(line, sizeof(line), "cufab-fuzz: episode %u %s: %llu ioctls so far\n",
		 k, episode_names[kind], total_calls());
	printf("# %s", line);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror("/dev/kmsg");
		close(fd);
	}
}

static void replay_line(unsigned int k)
{
	printf("# replay: cufab-fuzz -s %llu -e %u -n 1 -c %u -t %u -p %u -m %u\n",
	       opt.seed, k, opt.calls, opt.threads, opt.procs, opt.mutate);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	unsigned int k, done = 0, failed = 0;
	long long live0;
	char why[512];
	bool reload_now;
	int c, sock;
	double secs;

	while ((c = getopt(argc, argv, "s:d:e:n:c:t:p:m:R:kSKv")) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			opt.seconds = strtol(optarg, NULL, 0);
			break;
		case 'e':
			opt.first = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.episodes = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			opt.calls = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.threads = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			opt.procs = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			opt.mutate = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			opt.reload = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			opt.ktap = true;
			break;
		case 'S':
			opt.all_ok = true;
			break;
		case 'K':
			opt.keep_going = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		default:
			print_usage();
		}
	}
	if (!opt.threads || opt.threads > MAX_THREADS || !opt.procs ||
	    opt.procs > MAX_PROCS || (!opt.seconds && opt.episodes == ~0U))
		print_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.ktap)
		printf("TAP version 13\n");
	if (check_table())
		return 1;
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return 1;
	sock = nl_open();
	if (sock < 0 || access(CUFAB_DEVICE_PATH, R_OK | W_OK)) {
		printf("%s# SKIP no cufab module loaded\n", opt.ktap ? "1..0 " : "");
		return 4;
	}
	ngpus = nl_topo_u64(sock, CUFAB_NL_A_TOPO_NUM_GPUS);
	close(sock);
	if (ngpus < 1)
		ngpus = 1;
	get_param("le_construct_delay_ms", saved_delay, sizeof(saved_delay));
	get_param("mc_team_timeout_ms", saved_timeout, sizeof(saved_timeout));
	set_params();
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	live0 = read_ll(LIVE_OBJECTS);
	printf("# cufab-fuzz: seed %llu, %u GPUs, %u calls per thread, %u threads, %u processes, %u/1000 mutated%s\n",
	       opt.seed, ngpus, opt.calls, opt.threads, opt.procs, opt.mutate,
	       live0 < 0 ? " (no debugfs: live objects not checked)" : "");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = opt.first; done < opt.episodes; k++) {
		unsigned long long seed = mix(opt.seed, k);
		unsigned int kind = k % E_KINDS;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (opt.seconds && t1.tv_sec - t0.tv_sec >= opt.seconds)
			break;
		why[0] = '\0';
		/* generous: a debug kernel under TCG makes ~100 calls a second */
		episode_deadline = time(NULL) + 120 + opt.calls * opt.procs / 10;
		switch (kind) {
		case E_PROCS:
			ret = run_procs(seed, why, sizeof(why));
			break;
		case E_NETLINK:
			ret = run_netlink(seed, why, sizeof(why));
			break;
		default:
			ret = run_one(kind, seed, why, sizeof(why));
			break;
		}
		reload_now = opt.reload && (done + 1) % opt.reload == 0;
		if (!ret && live0 >= 0)
			ret = invariants(live0, reload_now, why, sizeof(why));
		if (!ret && reload_now)
			live0 = read_ll(LIVE_OBJECTS);
		done++;
		ktap(!ret, "episode %u %s", k, episode_names[kind]);
		if (ret) {
			failed++;
			printf("# episode %u (%s) failed: %s\n", k, episode_names[kind], why);
			replay_line(k);
			if (!opt.keep_going)
				break;
			if (live0 >= 0)
				live0 = read_ll(LIVE_OBJECTS);	/* the new start */
		}
		if (opt.verbose)
			progress(k, kind);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	restore_params();
	c = report(secs, done);
	ktap(!failed && done, "invariants after %u episodes", done);
	if (opt.all_ok)
		ktap(!c, "every ioctl succeeded at least once (%u did not)", c);
	if (opt.ktap)
		printf("1..%u\n", ktap_n);
	if (failed)
		printf("# %u episodes failed\n", failed);
	return failed || (opt.all_ok && c) || !done;
}
