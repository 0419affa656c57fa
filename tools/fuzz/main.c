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
 *               sockets, and importing the IPC event and memory handles
 *               the others exported (mailbox.c); the parent SIGKILLs
 *               each after a random number of its calls (in the middle
 *               of one; half of them finish first) and starts others,
 *               while a monitor process runs every netlink dump and
 *               reads every debugfs file in a loop
 *   2 netlink   every netlink command, with one ioctl process running
 *               (the node's SETs refused, EBUSY), then with none
 *   3 mappings  one process whose threads mostly mmap, munmap, mprotect,
 *               touch and fork the mappings the calls made
 *
 * Each worker thread makes -c calls; -m of 1000 calls are mutated, and
 * one in 32 passes its struct in read-only pages, so that its reply
 * faults (EFAULT) and what it made for the reply must go again. After
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
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

static const char *const episode_names[] = { "threads", "procs", "netlink", "mappings" };

struct options opt = {
	.seed = 1, .episodes = ~0U, .calls = 2000, .threads = 3, .procs = 4,
	.mutate = 250,
};

int ngpus = 4;
static unsigned int ktap_n;

static unsigned long long mix(unsigned long long seed, unsigned long long k)
{
	struct thread t = { .rng = seed ^ (k * 0x9e3779b97f4a7c15ULL) };

	return rnd(&t);
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

/*
 * A monitor dumping everything in a loop while the episode's processes
 * come and go: every walk of the kernel's client list meets clients at
 * every point of their teardown. Killed at the end of the episode.
 */
static pid_t spawn_dumper(void)
{
	pid_t pid = fork();
	int sock, n = 0;

	if (pid)
		return pid;
	stats_fork_child();
	sock = nl_open();
	while (sock >= 0) {
		nl_dump_all(sock);
		if (++n % 8 == 0)
			stats_flush();
	}
	_exit(0);
}

/*
 * The calls each worker of a procs episode made, which the parent reads
 * to end a life: shared, mapped before the first worker.
 */
static unsigned int *calls_made;

/*
 * A life of worker @i: it ends, SIGKILLed in the middle of whatever the
 * worker does, once the worker made a random number of calls, up to
 * twice what its two threads make; so half the lives end early, and the
 * others run long enough to build state and share it (handles the other
 * workers import, fds they map).
 */
static pid_t spawn_life(struct worker *w, unsigned int i, struct thread *t,
			unsigned int *life)
{
	if (calls_made) {
		calls_made[i] = 0;
		w->progress = &calls_made[i];
	}
	life[i] = rn(t, 4 * opt.calls);
	return spawn(w);
}

static bool life_over(struct thread *t, unsigned int i,
		      const unsigned int *life)
{
	/* without the counts, a life ends at random */
	if (!calls_made)
		return !rn(t, 8);
	return __atomic_load_n(&calls_made[i], __ATOMIC_RELAXED) >= life[i];
}

static int run_procs(unsigned long long seed, char *why, size_t len)
{
	struct worker w[MAX_PROCS];
	int sock[MAX_PROCS][2];
	pid_t pid[MAX_PROCS];
	unsigned int life[MAX_PROCS];
	unsigned int np = opt.procs, i, alive;
	struct thread t = { .rng = seed };
	pid_t dumper;
	int ret = 0;

	for (i = 0; i < np; i++)
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sock[i]))
			return snprintf(why, len, "socketpair: %m"), -1;
	dumper = spawn_dumper();
	for (i = 0; i < np; i++) {
		w[i] = (struct worker){ .ring_out = sock[i][0],
			.ring_in = sock[(i + np - 1) % np][1],
			.seed = mix(seed, i), .kind = E_PROCS };
		pid[i] = spawn_life(&w[i], i, &t, life);
	}
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
		for (i = 0; i < np; i++) {
			int st;

			if (!pid[i])
				continue;
			if (waitpid(pid[i], &st, WNOHANG) == pid[i]) {
				/* it made all its calls, or died of SIGKILL */
				if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) &&
				    !(WIFEXITED(st) && !WEXITSTATUS(st))) {
					snprintf(why, len, "worker %d: status %#x",
						 pid[i], st);
					ret = -1;
				}
				pid[i] = 0;
				alive--;
				continue;
			}
			if (!life_over(&t, i, life))
				continue;
			kill(pid[i], SIGKILL);
			__atomic_add_fetch(&stats->kills, 1, __ATOMIC_RELAXED);
			ret |= reap(pid[i], why, len);
			w[i].seed = mix(w[i].seed, 1);
			/* half of the killed have a successor */
			pid[i] = rn(&t, 2) ? spawn_life(&w[i], i, &t, life) : 0;
			if (!pid[i])
				alive--;
		}
	}
	/* a dumper still inside the kernel here would hang in reap() */
	if (dumper > 0) {
		kill(dumper, SIGKILL);
		ret |= reap(dumper, why, len);
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

		stats_fork_child();
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(5);
		s = nl_open();
		for (i = 0; s >= 0 && i < n / 8; i++)
			nl_fuzz_one(&t, s);
		stats_flush();
		_exit(0);
	}
	ret |= reap(pid, why, len);
	nl_restore(sock);
	close(sock);
	return ret;
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

static struct stats total;

static unsigned long long total_calls(void)
{
	unsigned long long n = 0;
	unsigned int i;

	stats_sum(&total);
	for (i = 0; i < NR_IOCTLS; i++)
		n += total.calls[i];
	return n;
}

static void print_errnos(const unsigned long long *err)
{
	unsigned int e;

	for (e = 1; e < MAX_ERRNO; e++)
		if (err[e])
			printf(" %s:%llu", errname(e), err[e]);
	putchar('\n');
}

/* Per ioctl: calls, successes, errno:count of each error path. */
static unsigned int report(double secs, unsigned int episodes)
{
	const struct stats *t = &total;
	unsigned long long n = total_calls(), nl = 0, ps = 0;
	unsigned int i, never = 0;

	for (i = 0; i < fuzz_nl_ncmds; i++)
		nl += t->nl_calls[i];
	for (i = 0; i < ARRAY_SIZE(t->pseudo); i++)
		ps += t->pseudo[i];
	printf("# seed %llu: %u episodes, %llu ioctls in %.0f s (%.0f ioctls/s), %llu netlink requests, %llu mapping/fd operations, %llu kills, %llu replies into read-only pages, %llu dump rounds racing exits, %llu imports of another process's IPC handle\n",
	       opt.seed, episodes, n, secs, secs > 0 ? n / secs : 0, nl, ps,
	       t->kills, t->reply_faults, t->dump_rounds, t->handoffs);
	for (i = 0; i < fuzz_nioctls; i++) {
		printf("# ioctl %-17s calls %8llu ok %8llu", fuzz_ioctls[i].name,
		       t->calls[i], t->ok[i]);
		print_errnos(t->err[i]);
		never += !t->ok[i];
	}
	for (i = 0; i < fuzz_nl_ncmds; i++) {
		printf("# netlink %-15s calls %8llu ok %8llu", fuzz_nl_names[i],
		       t->nl_calls[i], t->nl_ok[i]);
		print_errnos(t->nl_err[i]);
	}
	for (i = 0; i < fuzz_nioctls; i++)
		if (!t->ok[i])
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
	if (stats_init())
		return 1;
	mailbox_init();
	calls_made = mmap(NULL, MAX_PROCS * sizeof(*calls_made),
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (calls_made == MAP_FAILED)
		calls_made = NULL;
	sock = nl_open();
	if (sock < 0 || access(CUFAB_DEVICE_PATH, R_OK | W_OK)) {
		if (opt.ktap)
			printf("1..1\nok 1 cufab-fuzz # SKIP no cufab module loaded\n");
		else
			printf("# SKIP no cufab module loaded\n");
		return 4;
	}
	ngpus = nl_topo_u64(sock, CUFAB_NL_A_TOPO_NUM_GPUS);
	close(sock);
	if (ngpus < 1)
		ngpus = 1;
	invariants_init();
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
		mailbox_clear();
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
	invariants_fini();
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
