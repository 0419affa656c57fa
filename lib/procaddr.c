// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * cuGetProcAddress: driver entry points by base name and CUDA version,
 * resolved through the registry of lib/entrypoints.h. Works before cuInit:
 * the CUDA runtime looks up cuInit itself this way.
 *
 * None of cufab's entry points has a per-thread-default-stream variant
 * yet, so CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM falls back to the
 * legacy version, as the documentation prescribes.
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

CUresult cufab_proc_address(const char *symbol, void **pfn, int version,
			    cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status)
{
	const struct cufab_entry *best = NULL;
	int known = 0;
	size_t i;

	if (!symbol || !pfn || (flags & ~(cuuint64_t)CUFAB_PROC_FLAGS) ||
	    version > CUDA_VERSION)
		return CUDA_ERROR_INVALID_VALUE;

	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_entries); i++) {
		const struct cufab_entry *e = &cufab_entries[i];

		if (strcmp(e->name, symbol))
			continue;
		known = 1;
		if (e->version <= version && (!best || e->version > best->version))
			best = e;
	}
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
