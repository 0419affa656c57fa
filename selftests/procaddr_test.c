// SPDX-License-Identifier: GPL-2.0
/*
 * cuGetProcAddress (v1 and v2) for every entry point of the library's
 * registry, lib/entrypoints.h: each (name, version) resolves to the same
 * function the dynamic linker finds for the versioned symbol. None of this
 * needs cuInit or the module.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cufab/cuda.h>

#include "cufab_test.h"
#include "kselftest_harness.h"

struct entry {
	const char *symbol;
	const char *name;
	int version;
};

static const struct entry entries[] = {
#define CUFAB_ENTRY(symbol, name, version)	{ #symbol, #name, version },
#include "../lib/entrypoints.h"
#undef CUFAB_ENTRY
};

#define NUM_ENTRIES	ARRAY_SIZE(entries)

static void *lookup(const char *name, int version, cuuint64_t flags,
		    CUdriverProcAddressQueryResult *status)
{
	void *pfn = (void *)1;

	if (cuGetProcAddress(name, &pfn, version, flags, status) != CUDA_SUCCESS)
		return (void *)1;
	return pfn;
}

/* The entry of that name with the highest version <= version, or NULL. */
static const struct entry *expected(const char *name, int version)
{
	const struct entry *best = NULL;
	size_t i;

	for (i = 0; i < NUM_ENTRIES; i++) {
		if (strcmp(entries[i].name, name) || entries[i].version > version)
			continue;
		if (!best || entries[i].version > best->version)
			best = &entries[i];
	}
	return best;
}

TEST(every_entry_resolves)
{
	CUdriverProcAddressQueryResult st;
	void *sym, *pfn;
	size_t i;

	ASSERT_LT(20U, NUM_ENTRIES);
	for (i = 0; i < NUM_ENTRIES; i++) {
		const struct entry *e = &entries[i];

		sym = dlsym(RTLD_DEFAULT, e->symbol);
		ASSERT_NE(NULL, sym) {
			TH_LOG("%s is not exported", e->symbol);
		}
		st = -1;
		pfn = lookup(e->name, e->version, 0, &st);
		EXPECT_EQ(sym, pfn) {
			TH_LOG("%s at %d is not %s", e->name, e->version, e->symbol);
		}
		EXPECT_EQ((int)CU_GET_PROC_ADDRESS_SUCCESS, (int)st);
	}
}

/* Every version from 1000 to the driver's picks the right entry. */
TEST(versions_between_entries)
{
	CUdriverProcAddressQueryResult st;
	const struct entry *want;
	void *pfn;
	size_t i;
	int v;

	for (i = 0; i < NUM_ENTRIES; i++) {
		for (v = 1000; v <= CUDA_VERSION; v += 10) {
			want = expected(entries[i].name, v);
			st = -1;
			pfn = lookup(entries[i].name, v, 0, &st);
			if (!want) {
				EXPECT_EQ(NULL, pfn);
				EXPECT_EQ((int)CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, (int)st);
			} else {
				EXPECT_EQ(dlsym(RTLD_DEFAULT, want->symbol), pfn) {
					TH_LOG("%s at %d", entries[i].name, v);
				}
				EXPECT_EQ((int)CU_GET_PROC_ADDRESS_SUCCESS, (int)st);
			}
		}
	}
}

/* What a program built against this header calls is what v13030 finds. */
TEST(header_names_match_latest)
{
#define LATEST(fn)	EXPECT_EQ((void *)fn, lookup(#fn, CUDA_VERSION, 0, NULL))
	LATEST(cuCtxCreate);
	LATEST(cuCtxDestroy);
	LATEST(cuCtxPushCurrent);
	LATEST(cuCtxPopCurrent);
	LATEST(cuDeviceTotalMem);
	LATEST(cuDeviceGetUuid);
	LATEST(cuDevicePrimaryCtxRelease);
	LATEST(cuDevicePrimaryCtxReset);
	LATEST(cuDevicePrimaryCtxSetFlags);
	LATEST(cuGetProcAddress);
	LATEST(cuInit);
	LATEST(cuDeviceGetAttribute);
	LATEST(cuCtxGetCurrent);
#undef LATEST
	/* cuCtxGetDevice and cuCtxSynchronize took a context in 13.0. */
	EXPECT_EQ((void *)cuCtxGetDevice_v2, lookup("cuCtxGetDevice", CUDA_VERSION, 0, NULL));
	EXPECT_EQ((void *)cuCtxGetDevice, lookup("cuCtxGetDevice", 12090, 0, NULL));
	EXPECT_EQ((void *)cuCtxSynchronize_v2, lookup("cuCtxSynchronize", 13000, 0, NULL));
	EXPECT_EQ((void *)cuCtxSynchronize, lookup("cuCtxSynchronize", 12090, 0, NULL));
}

TEST(unknown_symbols)
{
	static const char *const names[] = {
		"cuNoSuchCall", "", "cuInit_v2", "cuCtxCreate_v4", "cuinit",
		"cuLaunchKernel",	/* a real CUDA call cufab has no use for */
	};
	CUdriverProcAddressQueryResult st;
	void *pfn;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		st = -1;
		pfn = (void *)1;
		EXPECT_CU(CUDA_SUCCESS,
			  cuGetProcAddress(names[i], &pfn, CUDA_VERSION, 0, &st));
		EXPECT_EQ(NULL, pfn);
		EXPECT_EQ((int)CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, (int)st);
	}
	/* The status is optional. */
	EXPECT_CU(CUDA_SUCCESS,
		  cuGetProcAddress("cuNoSuchCall", &pfn, CUDA_VERSION, 0, NULL));
	EXPECT_EQ(NULL, pfn);
}

TEST(bad_arguments)
{
	void *pfn;

	const int v = CUDA_VERSION;

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress(NULL, &pfn, v, 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", NULL, v, 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &pfn, v, 4, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &pfn, v, 1ULL << 40, NULL));
	/* A version newer than the driver is refused. */
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &pfn, v + 10, 0, NULL));
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cuGetProcAddress("cuInit", &pfn, 99999, 0, NULL));
}

/*
 * NVIDIA's 13.0 driver answers a version above its own with INVALID_VALUE
 * and leaves both out-parameters as they were (its documentation says
 * nothing of the case; Documentation/differences.rst).
 */
TEST(newer_version_leaves_outputs)
{
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)77;
	void *pfn = (void *)&st;

	EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
		  cuGetProcAddress("cuInit", &pfn, CUDA_VERSION + 10, 0, &st));
	EXPECT_EQ((void *)&st, pfn);
	EXPECT_EQ(77, (int)st);
}

/* No entry point has a per-thread variant yet: both modes find the same. */
/*
 * The function of the per-thread-default-stream variant of the call named
 * @name (registered as <name>_ptsz or <name>_ptds), or NULL.
 */
static void *per_thread_variant(const char *name)
{
	static const char *const suffix[] = { "_ptsz", "_ptds" };
	const struct entry *e;
	char pt[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(suffix); i++) {
		snprintf(pt, sizeof(pt), "%s%s", name, suffix[i]);
		e = expected(pt, CUDA_VERSION);
		if (e)
			return dlsym(RTLD_DEFAULT, e->symbol);
	}
	return NULL;
}

/*
 * LEGACY_STREAM is the default; PER_THREAD_DEFAULT_STREAM picks the
 * _ptsz/_ptds variant of a call that has one (the stream calls), and the
 * only version of any other.
 */
TEST(stream_flags)
{
	size_t i;

	for (i = 0; i < NUM_ENTRIES; i++) {
		void *def = lookup(entries[i].name, CUDA_VERSION,
				   CU_GET_PROC_ADDRESS_DEFAULT, NULL);
		void *pt = per_thread_variant(entries[i].name);

		EXPECT_EQ(def, lookup(entries[i].name, CUDA_VERSION,
				      CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL));
		EXPECT_EQ(pt ? pt : def,
			  lookup(entries[i].name, CUDA_VERSION,
				 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
	}
}

/* The CUDA 11.3 symbol, without the status, resolves the same way. */
TEST(v1_symbol)
{
	CUresult (*v1)(const char *, void **, int, cuuint64_t);
	void *pfn;
	size_t i;

	v1 = dlsym(RTLD_DEFAULT, "cuGetProcAddress");
	ASSERT_NE(NULL, v1);
	for (i = 0; i < NUM_ENTRIES; i++) {
		pfn = NULL;
		ASSERT_CU(CUDA_SUCCESS, v1(entries[i].name, &pfn, entries[i].version, 0));
		EXPECT_EQ(dlsym(RTLD_DEFAULT, entries[i].symbol), pfn);
	}
	pfn = (void *)1;
	EXPECT_CU(CUDA_SUCCESS, v1("cuNoSuchCall", &pfn, CUDA_VERSION, 0));
	EXPECT_EQ(NULL, pfn);
	EXPECT_CU(CUDA_ERROR_INVALID_VALUE, v1(NULL, &pfn, CUDA_VERSION, 0));
	/* v1 asked for itself at 11030, v2 at 12000. */
	EXPECT_EQ((void *)v1, lookup("cuGetProcAddress", 11030, 0, NULL));
	EXPECT_EQ((void *)cuGetProcAddress_v2, lookup("cuGetProcAddress", 12000, 0, NULL));
}

/* The CUDA runtime finds cuInit this way, before anything is initialised. */
TEST(resolve_and_call_before_init)
{
	CUresult (*get_version)(int *);
	CUresult (*error_name)(CUresult, const char **);
	const char *name;
	int v;

	get_version = lookup("cuDriverGetVersion", 2020, 0, NULL);
	error_name = lookup("cuGetErrorName", 6000, 0, NULL);
	ASSERT_NE(NULL, get_version);
	ASSERT_NE(NULL, error_name);
	ASSERT_CU(CUDA_SUCCESS, get_version(&v));
	EXPECT_EQ(CUDA_VERSION, v);
	ASSERT_CU(CUDA_SUCCESS, error_name(CUDA_ERROR_NOT_INITIALIZED, &name));
	EXPECT_STREQ("CUDA_ERROR_NOT_INITIALIZED", name);
}

TEST_HARNESS_MAIN
