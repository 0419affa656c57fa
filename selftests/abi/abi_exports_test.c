// SPDX-License-Identifier: GPL-2.0
/*
 * lib/entrypoints.h is the one registry of exported names: the version
 * script lib/libcufab.map must list exactly its symbols, and each must be
 * exported by the library that is loaded. KTAP, one test per check.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "kselftest.h"

#ifndef CUFAB_MAP_PATH
#error "CUFAB_MAP_PATH: the path of lib/libcufab.map"
#endif

static const char *const symbols[] = {
#define CUFAB_ENTRY(symbol, name, version)	(#symbol),
#include "../../lib/entrypoints.h"
#undef CUFAB_ENTRY
};

#define NUM_SYMBOLS	ARRAY_SIZE(symbols)
#define MAX_GLOBALS	1024

static int registered(const char *s)
{
	size_t i;

	for (i = 0; i < NUM_SYMBOLS; i++)
		if (!strcmp(symbols[i], s))
			return 1;
	return 0;
}

/* The "global:" names of the version script, or -1. */
static int read_map(char names[][128], int max)
{
	char line[256], name[128];
	int n = 0, global = 0;
	FILE *f = fopen(CUFAB_MAP_PATH, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "global:"))
			global = 1;
		else if (strstr(line, "local:"))
			global = 0;
		else if (global && n < max && sscanf(line, " %127[A-Za-z0-9_] ;", name) == 1)
			strcpy(names[n++], name);
	}
	fclose(f);
	return n;
}

int main(void)
{
	static char map[MAX_GLOBALS][128];
	void *lib;
	size_t i;
	int n, j, ok;

	ksft_print_header();
	ksft_set_plan(3);

	n = read_map(map, MAX_GLOBALS);
	if (n < 0) {
		ksft_test_result_skip("libcufab.map unreadable at %s\n", CUFAB_MAP_PATH);
		ksft_test_result_skip("libcufab.map lists only registered entry points\n");
	} else {
		ok = 1;
		for (i = 0; i < NUM_SYMBOLS; i++) {
			for (j = 0; j < n && strcmp(map[j], symbols[i]); j++)
				;
			if (j == n) {
				ksft_print_msg("%s: registered, not in libcufab.map\n", symbols[i]);
				ok = 0;
			}
		}
		ksft_test_result(ok, "libcufab.map lists every registered entry point (%zu)\n",
				 NUM_SYMBOLS);
		ok = 1;
		for (j = 0; j < n; j++) {
			if (!registered(map[j])) {
				ksft_print_msg("%s: in libcufab.map, not in lib/entrypoints.h\n",
					       map[j]);
				ok = 0;
			}
		}
		ksft_test_result(ok, "libcufab.map lists only registered entry points\n");
	}

	/* Found through this program's run path, next to it in build/. */
	lib = dlopen("libcufab.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		ksft_print_msg("dlopen libcufab.so.1: %s\n", dlerror());
	ok = !!lib;
	for (i = 0; lib && i < NUM_SYMBOLS; i++) {
		if (!dlsym(lib, symbols[i])) {
			ksft_print_msg("%s: not exported by the loaded libcufab\n", symbols[i]);
			ok = 0;
		}
	}
	ksft_test_result(ok, "every registered entry point is exported\n");
	ksft_finished();
	return 0;
}
