// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl monitor: print the cufab "events" multicast group until
 * SIGINT or SIGTERM, through the same printer as "dev show", so an event
 * about a GPU shows it as "dev show" would. With -j every event is one
 * JSON document on its own line. "monitor trace" adds the module's
 * tracepoints, the life of every object programs make (trace.c).
 *
 * SIGINT and SIGTERM are blocked and read from a signalfd polled next to
 * the netlink socket: no handler, no race between a signal and a blocking
 * read. Their disposition is reset first because a background job of a
 * non-interactive shell inherits SIGINT ignored, and "kill -INT" must
 * still end the monitor.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "cufabctl.h"

void monitor_help(FILE *f)
{
	fputs("cufabctl monitor [ trace ]\n"
	      "  print every event the kernel sends as it happens, until\n"
	      "  interrupted: dev-set and topo-set (a GPU or the topology\n"
	      "  changed), mc-event (a multicast store skipped replicas with\n"
	      "  nothing bound), stream-event (a stream failed), managed-event\n"
	      "  (a CPU access to managed memory refused, a managed_check\n"
	      "  report); with \"trace\" (root, tracefs) also every\n"
	      "  tracepoint of events/cufab/: contexts, allocations, exports,\n"
	      "  imports, maps, faults, endpoints, team joins, binds, unbinds,\n"
	      "  peer links, stream work, events, memory pools and managed\n"
	      "  memory attachments, with pid, ids and sizes\n", f);
}

static bool has_topo(struct nlattr **tb)
{
	return tb[CUFAB_NL_A_TOPO_NUM_GPUS] || tb[CUFAB_NL_A_TOPO_NVSWITCH] ||
	       tb[CUFAB_NL_A_TOPO_CLIENTS] || tb[CUFAB_NL_A_TOPO_LIVE_OBJECTS] ||
	       tb[CUFAB_NL_A_TOPO_CLUSTER_UUID] || tb[CUFAB_NL_A_DEV];
}

static int print_topo_event(struct nlattr **tb, struct nlmsghdr *nlh)
{
	static struct topo_info t;
	unsigned int i;

	if (topo_from_msg(tb, nlh, &t))
		return -1;
	open_object("topo");
	topo_print_summary(&t);
	close_object();
	if (!t.ndevs)
		return 0;
	open_array(PRINT_JSON, "devices", NULL);
	for (i = 0; i < t.ndevs; i++)
		dev_print(&t.devs[i], NULL);
	close_array(PRINT_JSON, NULL);
	return 0;
}

static int print_event(uint8_t cmd, struct nlattr **tb, struct nlmsghdr *nlh,
		       void *arg)
{
	const char *name = cnl_cmd_name(cmd);
	struct dev_info d;
	char buf[16];
	int ret = 0;

	if (!name) {
		snprintf(buf, sizeof(buf), "cmd-%u", cmd);
		name = buf;
	}
	open_object(NULL);
	print_string(PRINT_ANY, "event", "[%s] ", name);
	if (has_topo(tb))
		ret = print_topo_event(tb, nlh);
	if (!ret && tb[CUFAB_NL_A_DEV_INDEX]) {
		ret = dev_from_attrs(tb, &d);
		if (!ret)
			dev_print(&d, "dev");
	}
	if (cmd == CUFAB_NL_CMD_MC_EVENT)
		mc_print_event(tb);
	else if (cmd == CUFAB_NL_CMD_STREAM_EVENT)
		stream_print_event(tb);
	else if (cmd == CUFAB_NL_CMD_MANAGED_EVENT)
		managed_print_event(tb);
	else if (!has_topo(tb) && !tb[CUFAB_NL_A_DEV_INDEX])
		print_fp("(no attributes known to this cufabctl)\n");
	close_object();
	fflush(stdout);
	return ret;
}

/* SIGINT and SIGTERM as a file descriptor; -1 after saying why not. */
static int open_signalfd(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	fd = sigprocmask(SIG_BLOCK, &set, NULL) ? -1 :
	     signalfd(-1, &set, SFD_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "cufabctl: monitor: cannot catch SIGINT: %m\n");
	return fd;
}

static int monitor_loop(struct ctl *ctl, int sigfd, int tracefd)
{
	struct pollfd pfd[3] = {
		{ .fd = nl_socket_get_fd(ctl->sk), .events = POLLIN },
		{ .fd = sigfd, .events = POLLIN },
		{ .fd = tracefd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, ARRAY_SIZE(pfd), -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "cufabctl: monitor: poll: %m\n");
			return EXIT_FAIL;
		}
		/* Print what already arrived before honouring the signal. */
		if (pfd[0].revents &&
		    cnl_receive_events(ctl, print_event, NULL))
			return EXIT_FAIL;
		if (pfd[2].revents && trace_receive(tracefd)) {
			fprintf(stderr, "cufabctl: monitor: reading the trace: %m\n");
			return EXIT_FAIL;
		}
		if (pfd[1].revents)
			return EXIT_OK;
	}
}

int do_monitor(struct ctl *ctl, int argc, char **argv)
{
	int ret, sigfd, tracefd = -1;
	bool trace = false;

	if (argc > 0 && is_help(argv[0])) {
		monitor_help(stdout);
		return EXIT_OK;
	}
	if (argc > 0 && !strcmp(argv[0], "trace")) {
		trace = true;
		argc--;
		argv++;
	}
	if (argc > 0) {
		usage_error("monitor: unexpected \"%s\" (try \"cufabctl monitor help\")",
			    argv[0]);
		return EXIT_FAIL;
	}
	ret = cnl_connect(ctl);
	if (!ret)
		ret = cnl_join_events(ctl);
	if (ret)
		return ret;
	sigfd = open_signalfd();
	if (sigfd < 0)
		return EXIT_FAIL;
	if (trace) {
		tracefd = trace_open();
		if (tracefd < 0) {
			close(sigfd);
			return EXIT_FAIL;
		}
	}
	/*
	 * Say what is watched: without "trace" the lives of objects (joins,
	 * binds, maps) do not show, which a user waiting for them cannot
	 * guess. On stderr, so that -j's output stays one document a line.
	 */
	fprintf(stderr, "cufabctl: monitor: %s; ^C ends\n", trace ?
		"netlink events and the events/cufab tracepoints (time in s of the trace clock)" :
		"netlink events (dev-set, topo-set, mc-event, stream-event, managed-event); object lives (team joins, binds, maps, ...) need \"cufabctl monitor trace\"");
	fflush(stderr);
	ret = monitor_loop(ctl, sigfd, tracefd);
	if (trace)
		trace_close(tracefd);
	close(sigfd);
	return ret;
}
