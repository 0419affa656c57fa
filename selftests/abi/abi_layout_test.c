// SPDX-License-Identifier: GPL-2.0
/*
 * Compares every ABI fact of include/cufab/cuda.h with NVIDIA's cuda.h:
 * one KTAP test per type (or macro family). A fact NVIDIA's 13.0 header
 * does not have, or has changed since (CUDA 13.3/13.4 additions), is
 * compared with the documented value in abi_reference.txt instead. A last
 * test checks that every documented value was used.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest.h"
#include "abi_layout.h"

static const struct abi_reference *reference_find(const char *fact)
{
	size_t i;

	for (i = 0; i < abi_reference_count; i++)
		if (!strcmp(abi_reference[i].fact, fact))
			return &abi_reference[i];
	return NULL;
}

static const struct abi_fact *official_find(const char *group, const char *fact)
{
	size_t i;

	for (i = 0; i < abi_official_count; i++)
		if (!strcmp(abi_official[i].group, group) &&
		    !strcmp(abi_official[i].fact, fact))
			return &abi_official[i];
	return NULL;
}

/* Checks one fact of ours; prints why it differs and returns 0 if so. */
static int fact_check(const struct abi_fact *f)
{
	const struct abi_reference *ref = reference_find(f->fact);
	const struct abi_fact *nv;

	if (f->flags & ABI_F_MISSING) {
		ksft_print_msg("%s: %s enumerator in NVIDIA's cuda.h only\n",
			       f->fact, f->group);
		return 0;
	}
	if (ref) {
		if (f->value == ref->value)
			return 1;
		ksft_print_msg("%s: cufab %lld, documented %lld (%s)\n", f->fact,
			       f->value, ref->value, ref->source);
		return 0;
	}
	nv = official_find(f->group, f->fact);
	if (!nv) {
		ksft_print_msg("%s: not in NVIDIA's cuda.h and no documented value in abi_reference.txt\n",
			       f->fact);
		return 0;
	}
	if (f->text) {
		if (!strcmp(f->text, nv->text))
			return 1;
		ksft_print_msg("%s: cufab expands to %s, NVIDIA to %s\n", f->fact,
			       f->text, nv->text);
		return 0;
	}
	if (f->value == nv->value)
		return 1;
	ksft_print_msg("%s: cufab %lld, NVIDIA %lld\n", f->fact, f->value, nv->value);
	return 0;
}

static int group_seen(size_t upto, const char *group)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (!strcmp(abi_ours[i].group, group))
			return 1;
	return 0;
}

static size_t count_groups(void)
{
	size_t i, n = 0;

	for (i = 0; i < abi_ours_count; i++)
		n += !group_seen(i, abi_ours[i].group);
	return n;
}

static void check_group(const char *group)
{
	size_t i, facts = 0;
	int ok = 1;

	for (i = 0; i < abi_ours_count; i++) {
		if (strcmp(abi_ours[i].group, group))
			continue;
		facts++;
		ok &= fact_check(&abi_ours[i]);
	}
	ksft_test_result(ok, "%s (%zu facts)\n", group, facts);
}

/* A documented value no fact uses is stale: the header lost the name. */
static void check_reference_used(void)
{
	size_t i, j;
	int ok = 1;

	for (i = 0; i < abi_reference_count; i++) {
		for (j = 0; j < abi_ours_count; j++)
			if (!strcmp(abi_ours[j].fact, abi_reference[i].fact))
				break;
		if (j == abi_ours_count) {
			ksft_print_msg("abi_reference.txt: %s matches nothing in cufab/cuda.h\n",
				       abi_reference[i].fact);
			ok = 0;
		}
	}
	ksft_test_result(ok, "abi_reference.txt (%zu documented values)\n",
			 abi_reference_count);
}

int main(void)
{
	size_t i;

	ksft_print_header();
	ksft_set_plan(count_groups() + 1);
	for (i = 0; i < abi_ours_count; i++)
		if (!group_seen(i, abi_ours[i].group))
			check_group(abi_ours[i].group);
	check_reference_used();
	ksft_finished();
	return 0;
}
