// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuGetProcAddress: driver entry points by base name and CUDA version,
 * resolved through the registry of lib/entrypoints.h. Works before cuInit:
 * the CUDA runtime looks up cuInit itself this way.
 *
 * With CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM a name that has a
 * per-thread-default-stream variant (registered as <name>_ptsz or
 * <name>_ptds) resolves to it; any other name to its only version, as the
 * documentation prescribes.
 */
#include <string.h>

#include <cufab/multimem.h>

#include "compat.h"

struct cufab_entry {
	const char *name;
	int version;
	void *fn;
};

static const struct cufab_entry cufab_entries[] = {
#define CUFAB_ENTRY(symbol, name, version)	{ #name, version, (void *)symbol },
#include "entrypoints.h"
#undef CUFAB_ENTRY
};

#define CUFAB_PROC_FLAGS	(CU_GET_PROC_ADDRESS_LEGACY_STREAM | \
				 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)

/* The entry of @name best for @version; *known: the name exists at all. */
static const struct cufab_entry *proc_find(const char *name, int version,
					   int *known)
{
	const struct cufab_entry *best = NULL;
	size_t i;

	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_entries); i++) {
		const struct cufab_entry *e = &cufab_entries[i];

		if (strcmp(e->name, name))
			continue;
		*known = 1;
		if (e->version <= version && (!best || e->version > best->version))
			best = e;
	}
	return best;
}

/* The _ptsz or _ptds variant of @symbol, if it has one. */
static const struct cufab_entry *proc_find_pt(const char *symbol, int version,
					      int *known)
{
	static const char *const suffix[] = { "_ptsz", "_ptds" };
	const struct cufab_entry *e;
	char name[128];
	size_t i, n = strlen(symbol);

	if (n + 6 > sizeof(name))
		return NULL;
	for (i = 0; i < CUFAB_ARRAY_SIZE(suffix); i++) {
		memcpy(name, symbol, n);
		strcpy(name + n, suffix[i]);
		e = proc_find(name, version, known);
		if (e)
			return e;
	}
	return NULL;
}

CUresult cufab_proc_address(const char *symbol, void **pfn, int version,
			    cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status)
{
	const struct cufab_entry *best = NULL;
	int known = 0;

	if (!symbol || !pfn || (flags & ~(cuuint64_t)CUFAB_PROC_FLAGS) ||
	    version > CUDA_VERSION)
		return CUDA_ERROR_INVALID_VALUE;

	if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
		best = proc_find_pt(symbol, version, &known);
	if (!best)
		best = proc_find(symbol, version, &known);
	/* Not finding a symbol is an answer, not an error. */
	*pfn = best ? best->fn : NULL;
	if (status)
		*status = best ? CU_GET_PROC_ADDRESS_SUCCESS :
			  known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT :
			  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn,
						  int cudaVersion, cuuint64_t flags,
						  CUdriverProcAddressQueryResult *symbolStatus)
{
	return cufab_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}
