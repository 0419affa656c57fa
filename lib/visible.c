// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * CUDA_VISIBLE_DEVICES: which GPUs of the node this process sees, and in
 * which order.
 *
 * Like CUDA: a comma-separated list of GPU indices or UUIDs ("GPU-" and
 * any unambiguous prefix of the UUID string). Parsing stops at the first
 * entry that names no GPU, an ambiguous prefix or a GPU already listed;
 * the GPUs before it stay visible. Unset means every GPU in kernel order;
 * an empty list means none (cuInit then fails with CUDA_ERROR_NO_DEVICE).
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define CUFAB_UUID_PREFIX	"GPU-"

/* Kernel index named by a decimal index, or -1. */
static int visible_by_index(const char *tok, size_t len, int num_kdev)
{
	long idx = 0;
	size_t i;

	if (len == 0 || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)tok[i]))
			return -1;
		idx = idx * 10 + (tok[i] - '0');
	}
	return idx < num_kdev ? (int)idx : -1;
}

/* Kernel index of the one GPU whose UUID string starts with tok, or -1. */
static int visible_by_uuid(const char *tok, size_t len,
			   const struct cufab_device *kdev, int num_kdev)
{
	char uuid[CUFAB_UUID_STR_LEN];
	int i, found = -1;

	if (len >= CUFAB_UUID_STR_LEN)
		return -1;
	for (i = 0; i < num_kdev; i++) {
		cufab_uuid_format(kdev[i].uuid, uuid);
		if (strncasecmp(uuid, tok, len))
			continue;
		if (found >= 0)
			return -1;	/* ambiguous prefix */
		found = i;
	}
	return found;
}

static int visible_lookup(const char *tok, size_t len,
			  const struct cufab_device *kdev, int num_kdev)
{
	size_t plen = strlen(CUFAB_UUID_PREFIX);

	if (len >= plen && !strncasecmp(tok, CUFAB_UUID_PREFIX, plen))
		return visible_by_uuid(tok, len, kdev, num_kdev);
	return visible_by_index(tok, len, num_kdev);
}

/*
 * Fills visible[] (CUdevice ordinal -> kernel index) from env and returns
 * the number of visible GPUs.
 */
int cufab_visible_parse(const char *env, const struct cufab_device *kdev,
			int num_kdev, int *visible)
{
	unsigned long long listed = 0;
	int n = 0;

	if (!env) {
		for (n = 0; n < num_kdev; n++)
			visible[n] = n;
		return n;
	}
	while (*env && n < num_kdev) {
		size_t len = strcspn(env, ",");
		const char *tok = env;
		int idx;

		env += len + (env[len] == ',');
		while (len && isspace((unsigned char)*tok)) {
			tok++;
			len--;
		}
		while (len && isspace((unsigned char)tok[len - 1]))
			len--;
		idx = visible_lookup(tok, len, kdev, num_kdev);
		if (idx < 0 || (listed & (1ULL << idx))) {
			cufab_dbg("CUDA_VISIBLE_DEVICES: stopping at \"%.*s\" (no such GPU, ambiguous or repeated)",
				  (int)len, tok);
			break;
		}
		listed |= 1ULL << idx;
		visible[n++] = idx;
	}
	return n;
}
