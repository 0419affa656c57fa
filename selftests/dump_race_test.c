// SPDX-License-Identifier: GPL-2.0
/*
 * Every netlink dump and every debugfs file of cufab, read in a loop while
 * processes open /dev/cufab, make objects of every kind and exit, some
 * with a clean teardown, some killed.
 *
 * A walk of the client list meets clients at every point of their
 * teardown; it must never read state a closing client has freed (the
 * STREAM_GET dump did: KASAN "use-after-free in __lock_acquire", then a
 * dumper holding the client list's lock forever, so every later close
 * hung). The assertion here is that every process ends; the splat scan of
 * tools/vm/run fails a debug boot on any KASAN or lockdep report. With
 * cufabctl and jsoncheck built, one dumper also checks that "cufabctl -j
 * proc show" stays valid JSON while the clients come and go.
 *
 * CUFAB_DUMP_RACE_SECONDS (default 3) sets how long the processes race.
 */
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>

#include <cufab/cuda.h>
#include <linux/cufab.h>

#include "ctl_helpers.h"
#include "cufab_test.h"
#include "mem_helpers.h"
#include "kselftest_harness.h"

#define WORKERS		3
#define DUMPERS		3
#define STREAMS		32
#define NL_BUF		(64 * 1024)

static const char *const debugfs_files[] = {
	"clients", "gpus", "mem", "fabric_exports", "streams", "pools",
	"live_objects",
};

static const unsigned char dump_cmds[] = {
	CUFAB_NL_CMD_DEV_GET, CUFAB_NL_CMD_ALLOC_GET, CUFAB_NL_CMD_LE_GET,
	CUFAB_NL_CMD_MC_GET, CUFAB_NL_CMD_PEER_GET, CUFAB_NL_CMD_POOL_GET,
	CUFAB_NL_CMD_STREAM_GET, CUFAB_NL_CMD_PROC_GET, CUFAB_NL_CMD_DOMAIN_GET,
};

static double race_seconds(void)
{
	const char *s = getenv("CUFAB_DUMP_RACE_SECONDS");

	return s && atof(s) > 0 ? atof(s) : 3;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

static int nl_send(int sock, __u16 type, __u8 cmd, __u16 flags,
		   const char *family)
{
	struct nl_req r = {
		.n.nlmsg_type = type,
		.n.nlmsg_flags = NLM_F_REQUEST | flags,
		.g.cmd = cmd,
		.g.version = 1,
	};
	struct nlattr *a = (struct nlattr *)r.attrs;
	size_t len = NLMSG_LENGTH(GENL_HDRLEN);

	if (family) {
		a->nla_type = CTRL_ATTR_FAMILY_NAME;
		a->nla_len = NLA_HDRLEN + strlen(family) + 1;
		strcpy((char *)a + NLA_HDRLEN, family);
		len += NLA_ALIGN(a->nla_len);
	}
	r.n.nlmsg_len = len;
	return send(sock, &r, len, 0) == (ssize_t)len ? 0 : -errno;
}

/*
 * Read replies until NLMSG_DONE or an ACK/error; the family id of a
 * CTRL_CMD_GETFAMILY reply into *@family when not NULL. 0 or -errno.
 */
static int nl_drain(int sock, char *buf, __u16 *family)
{
	for (;;) {
		ssize_t n = recv(sock, buf, NL_BUF, 0);
		struct nlmsghdr *h;

		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (family) {
				struct nlattr *a = (struct nlattr *)
					((char *)NLMSG_DATA(h) + GENL_HDRLEN);
				int left = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

				while (left >= NLA_HDRLEN &&
				       a->nla_len >= NLA_HDRLEN) {
					if (a->nla_type == CTRL_ATTR_FAMILY_ID)
						memcpy(family, (char *)a + NLA_HDRLEN,
						       sizeof(*family));
					left -= NLA_ALIGN(a->nla_len);
					a = (struct nlattr *)((char *)a +
							      NLA_ALIGN(a->nla_len));
				}
			}
		}
	}
}

static int nl_open(__u16 *family, char *buf)
{
	int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			  NETLINK_GENERIC);

	if (sock < 0)
		return -1;
	*family = 0;
	if (nl_send(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
		    CUFAB_GENL_NAME) ||
	    nl_drain(sock, buf, family) || !*family) {
		close(sock);
		return -1;
	}
	return sock;
}

static void read_debugfs(const char *name, char *buf)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/cufab/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* small reads: the seq_file restarts its walk between them */
	while (read(fd, buf, 512) > 0)
		;
	close(fd);
}

/*
 * Dump everything until @end (and, @ctl, "cufabctl -j proc show" through
 * jsoncheck); exit status 0, or the failing command.
 */
static int dumper(double end, bool ctl)
{
	static char out[65536];
	char *buf = malloc(NL_BUF);
	unsigned int i, rounds = 0;
	__u16 family;
	int sock, ret;

	if (!buf)
		return 1;
	sock = nl_open(&family, buf);
	if (sock < 0)
		return 2;
	while (now_s() < end) {
		for (i = 0; i < ARRAY_SIZE(dump_cmds); i++) {
			if (nl_send(sock, family, dump_cmds[i], NLM_F_DUMP,
				    NULL))
				return 3;
			ret = nl_drain(sock, buf, NULL);
			if (ret)
				return 10 + dump_cmds[i];
		}
		for (i = 0; i < ARRAY_SIZE(debugfs_files); i++)
			read_debugfs(debugfs_files[i], buf);
		if (ctl && ctl_run("-j proc show", "2>&1", out, sizeof(out)))
			return 5;
		rounds++;
	}
	return rounds ? 0 : 4;
}

/*
 * One process's worth of state of every kind the dumps show: contexts on
 * two GPUs with peer access, streams with queued host-free work, events,
 * VMM memory mapped, a pool with a chunk, endpoint ids, a multicast
 * object, managed memory. Failures are fine: only the state that exists
 * matters to the dumps.
 */
static void make_objects(void)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location.type = CU_MEM_LOCATION_TYPE_DEVICE,
	};
	CUmemPoolProps pp = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location.type = CU_MEM_LOCATION_TYPE_DEVICE,
	};
	CUmulticastObjectProp mp = { .numDevices = 1, .size = 2 << 20 };
	CUmemGenericAllocationHandle h, mc;
	CUstream s[STREAMS];
	CUcontext c0, c1 = NULL;
	CUdeviceptr d, va, m;
	CUlogicalEndpointId id;
	CUmemoryPool pool;
	CUevent e;
	int i;

	if (cuInit(0) || cuCtxCreate(&c0, NULL, 0, 0))
		return;
	if (num_devices() > 1 && !cuCtxCreate(&c1, NULL, 0, 1)) {
		cuCtxSetCurrent(c0);
		cuCtxEnablePeerAccess(c1, 0);
	}
	for (i = 0; i < STREAMS; i++)
		if (cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING))
			break;
	cuEventCreate(&e, CU_EVENT_DEFAULT);
	if (i && !cuMemAlloc(&d, 1 << 16)) {
		cuMemsetD8Async(d, 1, 1 << 16, s[0]);
		cuEventRecord(e, s[0]);
	}
	if (!cuMemCreate(&h, 2 << 20, &prop, 0) &&
	    !cuMemAddressReserve(&va, 2 << 20, 0, 0, 0))
		cuMemMap(va, 2 << 20, 0, h, 0);
	if (!cuMemPoolCreate(&pool, &pp) && i)
		cuMemAllocFromPoolAsync(&d, 1 << 20, pool, s[1 % i]);
	cuLogicalEndpointIdReserve(&id, 16);
	if (!cuMulticastCreate(&mc, &mp))
		cuMulticastAddDevice(mc, 0);
	cuMemAllocManaged(&m, 1 << 16, CU_MEM_ATTACH_GLOBAL);
}

/* Processes come and go until @end; one in three is killed, not closed. */
static int worker(double end)
{
	unsigned int n = 0;

	while (now_s() < end) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			make_objects();
			if (n % 3 == 2)
				raise(SIGKILL);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid)
			return 2;
		n++;
	}
	return n ? 0 : 3;
}

TEST(dumps_race_exiting_clients)
{
	double secs = race_seconds(), end, deadline;
	pid_t pids[WORKERS + DUMPERS];
	unsigned int i, done = 0;
	char buf[NL_BUF];
	__u16 family;
	bool ctl = !cufabctl_missing(true);
	int sock, st;

	if (access(CUFAB_DEV, F_OK))
		SKIP(return, CUFAB_DEV " absent (cufab.ko not loaded)");
	sock = nl_open(&family, buf);
	if (sock < 0)
		SKIP(return, "no %s generic netlink family", CUFAB_GENL_NAME);
	close(sock);
	end = now_s() + secs;
	for (i = 0; i < ARRAY_SIZE(pids); i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0)
			_exit(i < WORKERS ? worker(end) :
			      dumper(end, ctl && i == ARRAY_SIZE(pids) - 1));
	}
	/* a dumper stuck in the kernel would never end: bound the wait */
	deadline = end + 60;
	while (done < ARRAY_SIZE(pids) && now_s() < deadline) {
		for (i = 0; i < ARRAY_SIZE(pids); i++) {
			if (!pids[i] || waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
				TH_LOG("%s %u: status 0x%x",
				       i < WORKERS ? "worker" : "dumper", i, st);
			pids[i] = 0;
			done++;
		}
		usleep(20000);
	}
	for (i = 0; i < ARRAY_SIZE(pids); i++) {
		if (!pids[i])
			continue;
		EXPECT_EQ(0, pids[i]) TH_LOG("%s %u did not end within 60 s of the race",
					    i < WORKERS ? "worker" : "dumper", i);
		kill(pids[i], SIGKILL);
	}
}

TEST_HARNESS_MAIN
