// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl monitor trace: the module's tracepoints (events/cufab/) next to
 * its netlink events.
 *
 * The records come from a tracefs instance of cufabctl's own
 * (instances/cufabctl-PID), so the monitor neither consumes nor changes
 * the top-level buffer another tracer may be using; it is removed on
 * exit. Each line of its trace_pipe,
 *
 *   <comm>-<tid> [<cpu>] <flags> <seconds>: <event>: k=v k="v w" ...
 *
 * becomes one event: "[<event>] k=v ..." in text, and in JSON
 * {"event": ..., "time": ..., "comm": ..., "tid": ..., "fields": {...}}
 * with decimal values as numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cufabctl.h"

static const char *const trace_roots[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

static char trace_inst[256];
static char trace_line[4096];
static size_t trace_len;

static int trace_write(const char *file, const char *val)
{
	char path[320];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", trace_inst, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

/* The trace_pipe of a new instance with every cufab event on, or -1. */
int trace_open(void)
{
	char path[320];
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(trace_roots); i++) {
		snprintf(path, sizeof(path), "%s/events/cufab", trace_roots[i]);
		if (!access(path, F_OK))
			break;
	}
	if (i == ARRAY_SIZE(trace_roots)) {
		fprintf(stderr, "cufabctl: monitor trace: no events/cufab in %s or %s (tracefs not mounted, or cufab.ko not loaded)\n",
			trace_roots[0], trace_roots[1]);
		return -1;
	}
	snprintf(trace_inst, sizeof(trace_inst), "%s/instances/cufabctl-%d",
		 trace_roots[i], getpid());
	if (mkdir(trace_inst, 0700)) {
		fprintf(stderr, "cufabctl: monitor trace: mkdir %s: %m (needs root)\n",
			trace_inst);
		trace_inst[0] = '\0';
		return -1;
	}
	if (trace_write("events/cufab/enable", "1")) {
		fprintf(stderr, "cufabctl: monitor trace: enabling %s/events/cufab: %m\n",
			trace_inst);
		trace_close(-1);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/trace_pipe", trace_inst);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "cufabctl: monitor trace: %s: %m\n", path);
		trace_close(-1);
	}
	return fd;
}

void trace_close(int fd)
{
	if (fd >= 0)
		close(fd);
	if (!trace_inst[0])
		return;
	trace_write("events/cufab/enable", "0");
	if (rmdir(trace_inst))
		fprintf(stderr, "cufabctl: monitor trace: rmdir %s: %m\n", trace_inst);
	trace_inst[0] = '\0';
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The "k=v" fields after "<event>: ", values possibly "quoted". */
static void print_fields(char *p)
{
	char *key, *val;

	open_object("fields");
	while (*p) {
		while (*p == ' ')
			p++;
		key = p;
		p = strchr(p, '=');
		if (!p)
			break;
		*p++ = '\0';
		if (*p == '"') {
			val = ++p;
			p = strchrnul(p, '"');
		} else {
			val = p;
			p = strchrnul(p, ' ');
		}
		if (*p)
			*p++ = '\0';
		print_fp(" %s=", key);
		if (all_digits(val))
			print_u64(PRINT_ANY, key, "%llu", strtoull(val, NULL, 10));
		else if (print_json())
			print_string(PRINT_JSON, key, NULL, val);
		else
			print_fp(strchr(val, ' ') ? "\"%s\"" : "%s", val);
	}
	close_object();
}

/* One trace_pipe line; lines of other systems are ignored. */
static void print_record(char *line)
{
	char *ev, *fields, *ts, *tid, *colon;

	ev = strstr(line, ": cufab_");
	if (!ev)
		return;
	*ev = '\0';
	ev += 2;
	colon = strstr(ev, ": ");
	if (!colon)
		return;
	*colon = '\0';
	fields = colon + 2;
	ts = strrchr(line, ' ');
	ts = ts ? ts + 1 : line;
	/* "<comm>-<tid> [cpu]": the comm may hold '-' and ' ', the tid not */
	tid = strstr(line, " [");
	if (tid)
		*tid = '\0';
	while (*line == ' ')
		line++;
	tid = strrchr(line, '-');
	if (tid)
		*tid++ = '\0';

	open_object(NULL);
	print_string(PRINT_ANY, "time", "%s ", ts);
	print_string(PRINT_ANY, "event", "[%s]", ev);
	print_string(PRINT_JSON, "comm", NULL, line);
	if (tid && all_digits(tid))
		print_u64(PRINT_JSON, "tid", NULL, strtoull(tid, NULL, 10));
	print_fields(fields);
	print_fp("\n");
	close_object();
}

/* Print the complete lines that arrived; 0, or -1 on a read error. */
int trace_receive(int fd)
{
	char *nl;
	ssize_t n;

	for (;;) {
		n = read(fd, trace_line + trace_len, sizeof(trace_line) - 1 - trace_len);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (n == 0)
			return 0;
		trace_len += n;
		trace_line[trace_len] = '\0';
		while ((nl = strchr(trace_line, '\n'))) {
			*nl = '\0';
			print_record(trace_line);
			trace_len -= nl + 1 - trace_line;
			memmove(trace_line, nl + 1, trace_len + 1);
		}
		/* a line longer than the buffer: drop it rather than stall */
		if (trace_len == sizeof(trace_line) - 1)
			trace_len = 0;
		fflush(stdout);
	}
}
