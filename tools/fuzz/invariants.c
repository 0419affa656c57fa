// SPDX-License-Identifier: GPL-2.0
/*
 * What must hold after every episode of the fuzzer: the kernel's
 * live-object counter back to its start, no client left, every netlink
 * dump empty, the module's refcount 0, no splat in the kernel log; every
 * -R N episodes also a clean rmmod, kmemleak finding nothing, and the
 * module loaded again. Also the module knobs a run sets and gives back.
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

#define REFCNT		"/sys/module/cufab/refcnt"
#define PARAMS		"/sys/module/cufab/parameters/"

static int kmsg_fd = -1;

long long read_ll(const char *path)
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
void invariants_fini(void)
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

long long live_wait(long long want)
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

int invariants(long long live0, bool reload_now, char *why, size_t len)
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

/* The knobs the run wants (saved first), and the kernel log from now on. */
void invariants_init(void)
{
	get_param("le_construct_delay_ms", saved_delay, sizeof(saved_delay));
	get_param("mc_team_timeout_ms", saved_timeout, sizeof(saved_timeout));
	set_params();
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

