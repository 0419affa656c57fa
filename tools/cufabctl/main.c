// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl - show and change the cufab virtual GPU node, watch its events.
 *
 *   cufabctl [-j] [-p] OBJECT COMMAND [ARGS]
 *
 * Shaped like iproute2's tools: global options, then an object ("dev",
 * "topo", "mem", "monitor") whose file holds its command table and help text.
 * Argument errors exit 1 before any netlink traffic, so they are reported
 * the same whether or not cufab.ko is loaded.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cufabctl.h"

static void usage(FILE *f)
{
	fputs("Usage: cufabctl [OPTIONS] OBJECT COMMAND [ARGS]\n"
	      "       cufabctl help\n"
	      "OBJECT := { dev | topo | mem | le | mc | peer | pool | stream | proc | imex | domain | monitor | help }\n"
	      "OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n"
	      "  -j, --json     JSON output (sizes in bytes)\n"
	      "  -p, --pretty   indented JSON output (implies -j)\n"
	      "\n", f);
	dev_help(f);
	fputc('\n', f);
	topo_help(f);
	fputc('\n', f);
	mem_help(f);
	fputc('\n', f);
	le_help(f);
	mc_help(f);
	fputc('\n', f);
	peer_help(f);
	fputc('\n', f);
	pool_help(f);
	fputc('\n', f);
	stream_help(f);
	fputc('\n', f);
	proc_help(f);
	fputc('\n', f);
	imex_help(f);
	fputc('\n', f);
	domain_help(f);
	fputc('\n', f);
	monitor_help(f);
	fputs("\n"
	      "Changes need CAP_NET_ADMIN and are refused while any program has\n"
	      "/dev/cufab open (the kernel names how many).\n"
	      "\n"
	      "Examples:\n"
	      "  cufabctl dev show\n"
	      "  cufabctl -j -p dev show gpu1\n"
	      "  cufabctl dev set gpu0 mem 2G numa 1 multicast off\n"
	      "  cufabctl dev set gpu3 clique 1\n"
	      "  cufabctl topo set gpus 8 nvswitch off\n"
	      "  cufabctl dev set gpu0 peers 1,2\n"
	      "  cufabctl topo show\n"
	      "  cufabctl mem show pid 1234\n"
	      "  cufabctl le show\n"
	      "  cufabctl mc show\n"
	      "  cufabctl -j peer show\n"
	      "  cufabctl pool show\n"
	      "  cufabctl stream show pid 1234\n"
	      "  cufabctl proc show\n"
	      "  cufabctl topo set race-delay-us 500 race-seed 7\n"
	      "  cufabctl imex show\n"
	      "  cufabctl domain show\n"
	      "  cufabctl -j monitor\n"
	      "\n"
	      "Exit status: 0 success, 1 error, 2 cufab.ko not loaded.\n", f);
}

static const struct cmd objects[] = {
	{ "dev",	do_dev },
	{ "topo",	do_topo },
	{ "mem",	do_mem },
	{ "le",		do_le },
	{ "mc",		do_mc },
	{ "peer",	do_peer },
	{ "pool",	do_pool },
	{ "stream",	do_stream },
	{ "proc",	do_proc },
	{ "imex",	do_imex },
	{ "domain",	do_domain },
	{ "monitor",	do_monitor },
	{ NULL,		NULL },
};

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("cufabctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") ||
	       !strcmp(word, "--help");
}

/*
 * Run the entry of @cmds named by argv[0] with the words after it; with
 * no words, the first entry (each object's "show"). "help" is @help, on
 * stdout: every level has one, so it is no entry of the tables. @object
 * is NULL for the top level.
 */
int run_cmd(struct ctl *ctl, const char *object, const struct cmd *cmds,
	    void (*help)(FILE *f), int argc, char **argv)
{
	const struct cmd *c;

	if (argc == 0)
		return cmds[0].fn(ctl, 0, argv);
	if (!strcmp(argv[0], "help")) {
		help(stdout);
		return EXIT_OK;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[0]))
			return c->fn(ctl, argc - 1, argv + 1);
	if (object)
		usage_error("%s: unknown command \"%s\" (try \"cufabctl %s help\")",
			    object, argv[0], object);
	else
		usage_error("unknown object \"%s\" (try \"cufabctl help\")",
			    argv[0]);
	return EXIT_FAIL;
}

/* Global options; returns the index of the object word or -1. */
static int parse_options(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "version",	no_argument, NULL, 'V' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL,		0,	     NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jpVh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctl->json = true;
			break;
		case 'p':
			ctl->pretty = true;
			break;
		case 'V':
			printf("cufabctl for cufab uAPI %d.%d, netlink family \"%s\" version %d\n",
			       CUFAB_VERSION_MAJOR, CUFAB_VERSION_MINOR,
			       CUFAB_GENL_NAME, CUFAB_GENL_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				usage_error("unknown option \"-%c\" (try \"cufabctl help\")",
					    optopt);
			else
				usage_error("unknown option \"%s\" (try \"cufabctl help\")",
					    argv[optind - 1]);
			return -1;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return -1;
	}
	return optind;
}

int main(int argc, char **argv)
{
	struct ctl ctl = { 0 };
	int first, ret;

	first = parse_options(&ctl, argc, argv);
	if (first <= 0)
		return first ? EXIT_FAIL : EXIT_OK;
	print_init(ctl.json, ctl.pretty);
	ret = run_cmd(&ctl, NULL, objects, usage, argc - first, argv + first);
	if (ctl.sk)
		cnl_disconnect(&ctl);
	if (print_flush() && ret == EXIT_OK)
		ret = EXIT_FAIL;
	return ret;
}
