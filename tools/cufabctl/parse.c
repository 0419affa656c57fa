// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers of command-line values. Each one either stores the value and
 * returns 0, or prints one line naming the command, the keyword, the
 * word it could not take and what it accepts, and returns -1.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cufabctl.h"

static void bad_word(const char *what, const char *key, const char *word,
		     const char *rule)
{
	if (key)
		fprintf(stderr, "cufabctl: %s: %s \"%s\": %s\n", what, key,
			word, rule);
	else
		fprintf(stderr, "cufabctl: %s: \"%s\": %s\n", what, word, rule);
}

/* Plain decimal digits only: no sign, no spaces, no base prefixes. */
static int parse_decimal(const char *s, const char **end, uint64_t *val)
{
	unsigned long long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno)
		return -1;
	*val = v;
	*end = e;
	return 0;
}

static int parse_index(const char *word, uint32_t *index)
{
	const char *end;
	uint64_t v;

	if (strncmp(word, "gpu", 3) == 0)
		word += 3;
	if (parse_decimal(word, &end, &v) || *end || v >= CUFAB_MAX_GPUS)
		return -1;
	*index = v;
	return 0;
}

int parse_gpu(const char *what, const char *word, uint32_t *index)
{
	char rule[64];

	if (parse_index(word, index) == 0)
		return 0;
	snprintf(rule, sizeof(rule), "not a GPU (use gpuN or N, N < %d)",
		 CUFAB_MAX_GPUS);
	bad_word(what, NULL, word, rule);
	return -1;
}

int parse_u32(const char *what, const char *key, const char *word,
	      uint32_t min, uint32_t max, uint32_t *val)
{
	const char *end;
	char rule[64];
	uint64_t v;

	if (parse_decimal(word, &end, &v) == 0 && !*end && v >= min &&
	    v <= max) {
		*val = v;
		return 0;
	}
	snprintf(rule, sizeof(rule), "not a number from %u to %u", min, max);
	bad_word(what, key, word, rule);
	return -1;
}

/* A host NUMA node, or "none" / -1 for a GPU without one. */
int parse_numa(const char *what, const char *word, int32_t *node)
{
	const char *end;
	uint64_t v;

	if (strcmp(word, "none") == 0 || strcmp(word, "-1") == 0) {
		*node = -1;
		return 0;
	}
	if (parse_decimal(word, &end, &v) == 0 && !*end && v <= INT32_MAX) {
		*node = v;
		return 0;
	}
	bad_word(what, "numa", word, "not a NUMA node (use N, none or -1)");
	return -1;
}

static int size_shift(const char *suffix)
{
	static const char units[] = "KMGTP";
	const char *u;

	if (!*suffix || strcasecmp(suffix, "B") == 0)
		return 0;
	u = strchr(units, toupper((unsigned char)*suffix));
	if (!u)
		return -1;
	suffix++;
	if (*suffix && strcasecmp(suffix, "iB") && strcasecmp(suffix, "B"))
		return -1;
	return 10 * (u - units + 1);
}

/* Bytes, or a count of KiB/MiB/GiB/TiB/PiB: 512M, 2G, 2GiB, 4096. */
int parse_size(const char *what, const char *word, uint64_t *bytes)
{
	const char *end;
	uint64_t v;
	int shift;

	if (parse_decimal(word, &end, &v) == 0) {
		shift = size_shift(end);
		if (shift >= 0 && v <= (UINT64_MAX >> shift)) {
			*bytes = v << shift;
			return 0;
		}
	}
	bad_word(what, "mem", word,
		 "not a size (use bytes or a K, M, G, T suffix: 512M, 2G)");
	return -1;
}

int parse_on_off(const char *what, const char *key, const char *word,
		 bool *on)
{
	if (strcmp(word, "on") == 0 || strcmp(word, "off") == 0) {
		*on = word[1] == 'n';
		return 0;
	}
	bad_word(what, key, word, "use on or off");
	return -1;
}

/* One "N" or "N-M" item of a GPU list into @mask. */
static int parse_range(const char *item, size_t len, uint64_t *mask)
{
	char buf[32], *dash;
	uint32_t lo, hi;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, item, len);
	buf[len] = '\0';
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (parse_index(buf, &lo))
		return -1;
	hi = lo;
	if (dash && (parse_index(dash + 1, &hi) || hi < lo))
		return -1;
	for (; lo <= hi; lo++)
		*mask |= 1ULL << lo;
	return 0;
}

/* "none", or GPUs and ranges: "1,2", "gpu1,gpu3", "0-3,6". */
int parse_gpu_list(const char *what, const char *word, uint64_t *mask)
{
	const char *p = word;
	size_t len;

	*mask = 0;
	if (strcmp(word, "none") == 0)
		return 0;
	for (;;) {
		len = strcspn(p, ",");
		if (parse_range(p, len, mask))
			break;
		if (!p[len])
			return 0;
		p += len + 1;
	}
	bad_word(what, "peers", word,
		 "not a GPU list (use none or N[-M][,N[-M]]..., N < 64)");
	return -1;
}

/*
 * The words after "OBJECT show": none, or with @pid "pid N", which sets
 * *@pid and *@has_pid. The shows that take no filter pass NULL for both.
 */
int parse_show_args(const char *object, int argc, char **argv,
		    uint32_t *pid, bool *has_pid)
{
	char what[32];

	snprintf(what, sizeof(what), "%s show", object);
	if (pid && argc >= 1 && strcmp(argv[0], "pid") == 0) {
		if (argc < 2) {
			usage_error("%s: \"pid\" needs a value", what);
			return -1;
		}
		if (parse_u32(what, "pid", argv[1], 1, INT32_MAX, pid))
			return -1;
		*has_pid = true;
		argc -= 2;
		argv += 2;
	}
	if (argc > 0) {
		usage_error("%s: unexpected \"%s\" (try \"cufabctl %s help\")",
			    what, argv[0], object);
		return -1;
	}
	return 0;
}

/* Exact multiples print as integers ("512 MiB"), others with 1 decimal. */
void format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char * const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	unsigned int u = 0;
	uint64_t div = 1;

	while (u + 1 < ARRAY_SIZE(units) && bytes / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (bytes % div == 0)
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / div),
			 units[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)div,
			 units[u]);
}
