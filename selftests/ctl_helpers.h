/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the selftests that run cufabctl (and jsoncheck, which stands
 * in for jq in the busybox guest). Both are build/bin/, next to the
 * build/selftests/ directory of the running test, so that a test runs the
 * tools of its own build and never one installed on the system.
 */
#ifndef _CUFAB_CTL_HELPERS_H
#define _CUFAB_CTL_HELPERS_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cufab_test.h"

/* @path = build/bin/@tool next to this selftest; false when absent. */
static inline bool tool_path(const char *tool, char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = '\0';
	if (snprintf(path, len, "%s/../bin/%s", self, tool) >= (int)len)
		return false;
	return access(path, X_OK) == 0;
}

/*
 * Why a cufabctl test cannot run here, NULL when it can: no /dev/cufab,
 * no cufabctl next to the test, or (@json) no jsoncheck.
 */
static inline const char *cufabctl_missing(bool json)
{
	char path[PATH_MAX];

	if (access(CUFAB_DEV, F_OK))
		return CUFAB_DEV " absent (cufab.ko not loaded)";
	if (!tool_path("cufabctl", path, sizeof(path)))
		return "no cufabctl next to this test";
	if (json && !tool_path("jsoncheck", path, sizeof(path)))
		return "no jsoncheck next to this test";
	return NULL;
}

/* In a test of kselftest_harness.h: skip it when cufabctl_missing(). */
#define CTL_OR_SKIP(json) do {						\
	const char *__why = cufabctl_missing(json);			\
	if (__why)							\
		SKIP(return, "%s", __why);				\
} while (0)

/*
 * Run the shell command line @cmd; its stdout in @out (truncated to fit),
 * its exit status, -1 when it could not run or was killed.
 */
static inline int run_cmd(const char *cmd, char *out, size_t len)
{
	size_t n = 0, got;
	int status;
	FILE *f;

	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < len - 1 && (got = fread(out + n, 1, len - 1 - n, f)) > 0)
		n += got;
	out[n] = '\0';
	status = pclose(f);
	if (status < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Run "cufabctl ARGS", or "cufabctl ARGS | jsoncheck JARGS" when @jargs is
 * not NULL; stdout in @out, the exit status of the last command, -1 when a
 * tool is missing. Both strings reach the shell as they are, so that a
 * test can redirect stderr: quote a jsoncheck PATH ("'.[0].id'").
 */
static inline int ctl_run(const char *args, const char *jargs, char *out,
			  size_t len)
{
	char ctl[PATH_MAX], jc[PATH_MAX], cmd[3 * PATH_MAX];

	if (!tool_path("cufabctl", ctl, sizeof(ctl)))
		return -1;
	if (!jargs) {
		snprintf(cmd, sizeof(cmd), "%s %s", ctl, args);
		return run_cmd(cmd, out, len);
	}
	if (!tool_path("jsoncheck", jc, sizeof(jc)))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s %s | %s %s", ctl, args, jc, jargs);
	return run_cmd(cmd, out, len);
}

/*
 * `@ctl -j monitor` in a child writing to @fd (a temporary file); its pid,
 * or -1. The monitor joins the multicast group when it gets there: a test
 * repeats its event until monitor_read() shows it.
 */
static inline pid_t monitor_start(const char *ctl, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		dup2(fd, 1);
		execl(ctl, ctl, "-j", "monitor", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* What the monitor of @fd printed so far, NUL-terminated in @out. */
static inline void monitor_read(int fd, char *out, size_t len)
{
	ssize_t n = pread(fd, out, len - 1, 0);

	out[n > 0 ? n : 0] = '\0';
}

#endif /* _CUFAB_CTL_HELPERS_H */
