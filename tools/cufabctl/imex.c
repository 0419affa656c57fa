// SPDX-License-Identifier: GPL-2.0
/*
 * cufabctl imex: IMEX channels as an administrator sees them.
 *
 * "imex status" needs no netlink: the channels are the minors of the
 * char-device region "cufab-imex-channels" (its major is in
 * /proc/devices), the module parameters say how many there are and
 * whether channel0 is created at load, and the nodes under
 * /dev/cufab-imex-channels are whatever the administrator made. Each node
 * is listed with its owner and mode, which are the access control, and a
 * node whose major is not the region's (left over from an earlier load)
 * is flagged: opening it does not reach cufab.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cufabctl.h"

#define IMEX_REGION	"cufab-imex-channels"
#define IMEX_DIR	"/dev/" IMEX_REGION
#define IMEX_PARAMS	"/sys/module/cufab/parameters/"

void imex_help(FILE *f)
{
	fputs("cufabctl imex { show | status }\n"
	      "  the IMEX channel region (major, channel count) and the channel\n"
	      "  nodes in " IMEX_DIR " with owner and mode; only\n"
	      "  FABRIC handles need a channel, POSIX fd handles do not\n", f);
}

/* Major of the region in /proc/devices, 0 when not registered. */
static unsigned int imex_region_major(void)
{
	char line[128], name[96];
	unsigned int major, found = 0;
	bool chars = false;
	FILE *f = fopen("/proc/devices", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Character devices:", 18))
			chars = true;
		else if (!strncmp(line, "Block devices:", 14))
			break;
		else if (chars && sscanf(line, "%u %95s", &major, name) == 2 &&
			 !strcmp(name, IMEX_REGION))
			found = major;
	}
	fclose(f);
	return found;
}

/* A parameter's first word, "" when the module is not loaded. */
static void imex_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), IMEX_PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void imex_print_node(const char *name, unsigned int region)
{
	char path[300];
	struct stat st;
	bool stale;

	snprintf(path, sizeof(path), IMEX_DIR "/%s", name);
	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return;
	stale = major(st.st_rdev) != region;
	open_object(NULL);
	print_string(PRINT_ANY, "path", "    %s", path);
	print_uint(PRINT_ANY, "channel", "  channel %u", minor(st.st_rdev));
	print_uint(PRINT_ANY, "uid", "  uid %u", st.st_uid);
	print_uint(PRINT_ANY, "gid", "  gid %u", st.st_gid);
	print_uint(PRINT_ANY, "mode", "  mode %04o", st.st_mode & 07777);
	print_bool(PRINT_JSON, "stale", NULL, stale);
	if (stale)
		print_uint(PRINT_FP, NULL,
			   "  STALE: major %u is not the region's",
			   major(st.st_rdev));
	print_nl();
	close_object();
}

static int imex_print_nodes(unsigned int region)
{
	struct dirent **names;
	int i, n;

	open_array(PRINT_JSON, "nodes", NULL);
	n = scandir(IMEX_DIR, &names, NULL, versionsort);
	if (n < 0 && errno != ENOENT) {
		fprintf(stderr, "cufabctl: imex status: %s: %s\n", IMEX_DIR,
			strerror(errno));
		close_array(PRINT_JSON, NULL);
		return EXIT_FAIL;
	}
	if (n <= 0)
		print_fp("    no channel nodes in %s (create them with mknod, major %u)\n",
			 IMEX_DIR, region);
	for (i = 0; i < n; i++) {
		imex_print_node(names[i]->d_name, region);
		free(names[i]);
	}
	if (n > 0)
		free(names);
	close_array(PRINT_JSON, NULL);
	return EXIT_OK;
}

static int imex_status(struct ctl *ctl, int argc, char **argv)
{
	char count[32], channel0[8];
	unsigned int region;
	int ret;

	if (argc > 0) {
		usage_error("imex status: unexpected \"%s\"", argv[0]);
		return EXIT_FAIL;
	}
	imex_param("imex_channel_count", count, sizeof(count));
	imex_param("create_imex_channel0", channel0, sizeof(channel0));
	if (!count[0]) {
		fprintf(stderr, "cufabctl: imex status: %s not found (is cufab.ko loaded?)\n",
			IMEX_PARAMS "imex_channel_count");
		return EXIT_NO_FAMILY;
	}
	region = imex_region_major();
	open_object(NULL);
	print_fp("imex:");
	print_uint(PRINT_ANY, "major", " major %u", region);
	print_uint(PRINT_ANY, "channels", "  channels %u",
		   (unsigned int)strtoul(count, NULL, 10));
	print_bool(PRINT_ANY, "create_channel0", "  create_channel0 %s",
		   channel0[0] == 'Y');
	print_nl();
	if (!region) {
		print_fp("    disabled (imex_channel_count=0): FABRIC handles are not permitted\n");
		open_array(PRINT_JSON, "nodes", NULL);
		close_array(PRINT_JSON, NULL);
		ret = EXIT_OK;
	} else {
		ret = imex_print_nodes(region);
	}
	close_object();
	return ret;
}

static const struct cmd imex_cmds[] = {
	{ "show",	imex_status },
	{ "status",	imex_status },
	{ NULL,		NULL },
};

int do_imex(struct ctl *ctl, int argc, char **argv)
{
	return run_cmd(ctl, "imex", imex_cmds, imex_help, argc, argv);
}
