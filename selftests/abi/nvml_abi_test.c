// SPDX-License-Identifier: GPL-2.0
/*
 * cufab's NVML against NVIDIA's nvml.h (NVML 13.0):
 *   - every fact of nvml_abi_items.h (sizes, offsets, enumerators, macro
 *     values and expansions) is the same with both headers;
 *   - every NVML_ name, nvml*_t type and versioned-struct macro of
 *     include/cufab/nvml.h is among those facts;
 *   - nvml/libnvidia-ml.map exports exactly the functions the header
 *     declares, and the built library defines each of them.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "nvml_abi.h"

#define MAX_NAMES	512

static const struct nvml_abi_fact *official_find(const char *name)
{
	size_t i;

	for (i = 0; i < nvml_abi_official_count; i++)
		if (!strcmp(nvml_abi_official[i].name, name))
			return &nvml_abi_official[i];
	return NULL;
}

static void fact_test(const struct nvml_abi_fact *f)
{
	const struct nvml_abi_fact *nv = official_find(f->name);
	int ok;

	if (f->text)
		ok = !strcmp(f->text, nv->text);
	else
		ok = f->value == nv->value;
	if (!ok) {
		if (f->text)
			ksft_print_msg("%s: cufab \"%s\", NVIDIA \"%s\"\n",
				       f->name, f->text, nv->text);
		else
			ksft_print_msg("%s: cufab %lld, NVIDIA %lld\n", f->name,
				       f->value, nv->value);
	}
	ksft_test_result(ok, "%s\n", f->name);
}

/* Whether @word appears, as a whole identifier, in a fact's name. */
static int fact_names(const char *word)
{
	size_t i, n = strlen(word);
	const char *p;

	for (i = 0; i < nvml_abi_ours_count; i++)
		for (p = nvml_abi_ours[i].name; (p = strstr(p, word)); p += n)
			if ((p == nvml_abi_ours[i].name ||
			     !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
			    !(isalnum((unsigned char)p[n]) || p[n] == '_'))
				return 1;
	return 0;
}

static FILE *open_or_die(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		ksft_exit_fail_msg("%s: %m\n", path);
	return f;
}

/*
 * Identifiers of the header that are ABI facts: NVML_ names, nvml*_t
 * types and the nvml*_vN struct version macros; not struct and enum tags
 * (their typedefs stand for them), nor the guard of the function aliases.
 */
static int header_fact(const char *word, size_t n)
{
	const char *v = strrchr(word, '_');

	if (!strcmp(word, "NVML_NO_UNVERSIONED_FUNC_DEFS"))
		return 0;
	if (!strncmp(word, "NVML_", 5))
		return 1;
	if (strncmp(word, "nvml", 4) || !v)
		return 0;
	return !strcmp(v, "_t") || (v[1] == 'v' && isdigit((unsigned char)v[2]));
}

/* Identifiers of the header that name ABI facts. */
static void coverage_test(void)
{
	char line[512], word[128];
	int missing = 0, seen = 0;
	FILE *f = open_or_die(NVML_HDR_PATH);
	const char *p;

	while (fgets(line, sizeof(line), f)) {
		/* prototypes (exports_test), comments, function aliases */
		if (strstr(line, "nvmlReturn_t nvml") ||
		    strstr(line, "const char *nvml") || strstr(line, "/*") ||
		    line[0] == ' ' || (!strncmp(line, "#define nvml", 12) &&
					 strstr(line + 12, "nvml")))
			continue;
		for (p = line; *p; ) {
			size_t n = 0;

			if (!(isalpha((unsigned char)*p) || *p == '_')) {
				p++;
				continue;
			}
			while ((isalnum((unsigned char)p[n]) || p[n] == '_') &&
			       n < sizeof(word) - 1)
				n++;
			memcpy(word, p, n);
			word[n] = '\0';
			p += n;
			/* a prefix pasted in a macro body (##) */
			if (*p == '#' || !header_fact(word, n))
				continue;
			seen++;
			if (!fact_names(word)) {
				ksft_print_msg("%s of %s is in no fact of nvml_abi_items.h\n",
					       word, NVML_HDR_PATH);
				missing++;
			}
		}
	}
	fclose(f);
	ksft_print_msg("%d identifiers of the header checked\n", seen);
	ksft_test_result(!missing && seen > 100, "every header fact is compared\n");
}

static int collect(char names[][64], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return n;
	if (n < MAX_NAMES)
		snprintf(names[n++], 64, "%s", name);
	return n;
}

static int in(char names[][64], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static char declared[MAX_NAMES][64], exported[MAX_NAMES][64];

static void exports_test(void)
{
	int nd = 0, ne = 0, i, bad = 0, in_global = 0;
	char line[512], name[64], lib[PATH_MAX], exe[PATH_MAX];
	FILE *f = open_or_die(NVML_HDR_PATH);
	ssize_t len;
	void *h;

	while (fgets(line, sizeof(line), f)) {
		if ((sscanf(line, "nvmlReturn_t %63[A-Za-z0-9_](", name) == 1 ||
		     sscanf(line, "const char *%63[A-Za-z0-9_](", name) == 1) &&
		    strchr(line, '('))
			nd = collect(declared, nd, name);
	}
	fclose(f);
	f = open_or_die(NVML_MAP_PATH);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "global:"))
			in_global = 1;
		else if (strstr(line, "local:"))
			in_global = 0;
		else if (in_global && sscanf(line, " %63[A-Za-z0-9_];", name) == 1)
			ne = collect(exported, ne, name);
	}
	fclose(f);
	for (i = 0; i < nd; i++)
		if (!in(exported, ne, declared[i])) {
			ksft_print_msg("%s: declared, not exported\n", declared[i]);
			bad++;
		}
	for (i = 0; i < ne; i++)
		if (!in(declared, nd, exported[i])) {
			ksft_print_msg("%s: exported, not declared\n", exported[i]);
			bad++;
		}
	ksft_test_result(!bad && nd > 0, "the map exports the header's %d functions\n",
			 nd);

	/* build/selftests/X -> build/lib/cuda/libnvidia-ml.so.1 */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		ksft_exit_fail_msg("/proc/self/exe: %m\n");
	exe[len] = '\0';
	snprintf(lib, sizeof(lib), "%s/../lib/cuda/libnvidia-ml.so.1",
		 dirname(exe));
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		ksft_test_result_fail("dlopen %s: %s\n", lib, dlerror());
		return;
	}
	bad = 0;
	for (i = 0; i < nd; i++)
		if (!dlsym(h, declared[i])) {
			ksft_print_msg("%s: not defined by %s\n", declared[i], lib);
			bad++;
		}
	dlclose(h);
	ksft_test_result(!bad, "the library defines every declared function\n");
}

int main(void)
{
	size_t i;

	ksft_print_header();
	ksft_set_plan(nvml_abi_ours_count + 3);
	if (nvml_abi_ours_count != nvml_abi_official_count)
		ksft_exit_fail_msg("fact tables differ in length\n");
	for (i = 0; i < nvml_abi_ours_count; i++)
		fact_test(&nvml_abi_ours[i]);
	coverage_test();
	exports_test();
	ksft_finished();
}
