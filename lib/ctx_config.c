// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Limits and configuration of the current context: cuCtxGetLimit,
 * cuCtxSetLimit, cuCtxGetCacheConfig, cuCtxSetCacheConfig,
 * cuCtxGetSharedMemConfig, cuCtxSetSharedMemConfig and
 * cuCtxResetPersistingL2Cache.
 *
 * cufab runs no device code, so nothing consumes these values; they are
 * the context's state a program sets and reads back, with the defaults,
 * rounding, clamping and refusals of NVIDIA's driver on an H100 (compute
 * capability 9.0). A context reads the defaults until one is set; the
 * values set are kept by kernel context id and dropped with the context
 * (cufab_ctx_kernel_destroy), so a new context, or a primary context
 * reactivated after cuDevicePrimaryCtxReset, starts from the defaults.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The driver's defaults on an H100. */
#define LIMIT_STACK_DEFAULT		1024
#define LIMIT_STACK_ALIGN		16
#define LIMIT_PRINTF_FIFO_DEFAULT	(1024 * 1024)
#define LIMIT_MALLOC_HEAP_DEFAULT	(8 * 1024 * 1024)
#define LIMIT_PENDING_LAUNCH_DEFAULT	2048
#define LIMIT_L2_FETCH_DEFAULT		64
#define LIMIT_L2_FETCH_MAX		128

struct ctx_config {
	__u32 ctx_kid;
	size_t limit[CU_LIMIT_MAX];
	CUfunc_cache cache;
	struct ctx_config *next;
};

static struct ctx_config *configs;
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;

static void config_defaults(struct ctx_config *cfg, __u32 ctx_kid)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx_kid = ctx_kid;
	cfg->limit[CU_LIMIT_STACK_SIZE] = LIMIT_STACK_DEFAULT;
	cfg->limit[CU_LIMIT_PRINTF_FIFO_SIZE] = LIMIT_PRINTF_FIFO_DEFAULT;
	cfg->limit[CU_LIMIT_MALLOC_HEAP_SIZE] = LIMIT_MALLOC_HEAP_DEFAULT;
	cfg->limit[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] =
		LIMIT_PENDING_LAUNCH_DEFAULT;
	cfg->limit[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = LIMIT_L2_FETCH_DEFAULT;
	cfg->limit[CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED] = 1;
	cfg->cache = CU_FUNC_CACHE_PREFER_NONE;
}

/* The stored configuration of @ctx_kid, or NULL. Under config_lock. */
static struct ctx_config *config_find_locked(__u32 ctx_kid)
{
	struct ctx_config *cfg;

	for (cfg = configs; cfg; cfg = cfg->next)
		if (cfg->ctx_kid == ctx_kid)
			return cfg;
	return NULL;
}

/* A copy of @ctx_kid's configuration, the defaults if none was set. */
static void config_get(__u32 ctx_kid, struct ctx_config *out)
{
	struct ctx_config *cfg;

	pthread_mutex_lock(&config_lock);
	cfg = config_find_locked(ctx_kid);
	if (cfg)
		*out = *cfg;
	else
		config_defaults(out, ctx_kid);
	pthread_mutex_unlock(&config_lock);
}

/* Store @val as @ctx_kid's configuration. */
static CUresult config_put(const struct ctx_config *val)
{
	struct ctx_config *cfg, *next;

	pthread_mutex_lock(&config_lock);
	cfg = config_find_locked(val->ctx_kid);
	if (!cfg) {
		cfg = malloc(sizeof(*cfg));
		if (!cfg) {
			pthread_mutex_unlock(&config_lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		cfg->next = configs;
		configs = cfg;
	}
	next = cfg->next;
	*cfg = *val;
	cfg->next = next;
	pthread_mutex_unlock(&config_lock);
	return CUDA_SUCCESS;
}

void cufab_ctx_config_forget(__u32 ctx_kid)
{
	struct ctx_config **pp, *cfg;

	/* every cuCtxDestroy comes here; most programs never set a limit */
	if (!__atomic_load_n(&configs, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&config_lock);
	for (pp = &configs; (cfg = *pp); pp = &cfg->next)
		if (cfg->ctx_kid == ctx_kid) {
			*pp = cfg->next;
			free(cfg);
			break;
		}
	pthread_mutex_unlock(&config_lock);
}

/* A forked child: the parent's contexts are not the child's. */
void cufab_ctx_config_reset_locked(void)
{
	struct ctx_config *cfg;

	while ((cfg = configs)) {
		configs = cfg->next;
		free(cfg);
	}
	pthread_mutex_init(&config_lock, NULL);
}

/*
 * The current context: its kernel id and CUdevice ordinal. The macro
 * passes the text of @args_ok, for the refusal's line.
 */
static CUresult current_rule(int args_ok, const char *rule, __u32 *ctx_kid,
			     CUdevice *dev)
{
	struct cufab_call c;
	CUresult res = cufab_call_ctx_rule(&c, args_ok, rule);

	if (res != CUDA_SUCCESS)
		return res;
	*ctx_kid = c.ctx_kid;
	return dev ? cuCtxGetDevice(dev) : CUDA_SUCCESS;
}

#define current(args_ok, ctx_kid, dev) \
	current_rule(!!(args_ok), #args_ok, (ctx_kid), (dev))

static size_t dev_attr(CUdevice dev, CUdevice_attribute attr)
{
	int v = 0;

	return cuDeviceGetAttribute(&v, attr, dev) == CUDA_SUCCESS && v > 0 ?
	       (size_t)v : 0;
}

/*
 * Does a reservation of @per_thread bytes for every thread the GPU can hold
 * at once fit its memory? The driver reserves the stack that way and
 * answers OUT_OF_MEMORY when it cannot.
 */
static int stack_fits(CUdevice dev, size_t per_thread)
{
	size_t threads = dev_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) *
		dev_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	size_t total = 0;

	if (cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS || !threads)
		return 0;
	return per_thread <= total / threads;
}

static int heap_fits(CUdevice dev, size_t bytes)
{
	size_t total = 0;

	return cuDeviceTotalMem(&total, dev) == CUDA_SUCCESS && bytes <= total;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
	struct ctx_config cfg;
	CUdevice dev;
	__u32 kid;
	CUresult res;

	res = current(!!pvalue, &kid, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	switch (limit) {
	case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
		/* compute capability 9.0 has no device-side synchronize */
		return CUDA_ERROR_UNSUPPORTED_LIMIT;
	case CU_LIMIT_SHMEM_SIZE:
		/* not a CIG context: what any kernel of the device may use */
		*pvalue = dev_attr(dev,
				   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
		return CUDA_SUCCESS;
	case CU_LIMIT_CIG_ENABLED:
		/* cuCtxCreate_v4 makes no CIG context */
		*pvalue = 0;
		return CUDA_SUCCESS;
	default:
		if ((unsigned int)limit >= CU_LIMIT_MAX)
			return CUDA_ERROR_UNSUPPORTED_LIMIT;
		config_get(kid, &cfg);
		*pvalue = cfg.limit[limit];
		return CUDA_SUCCESS;
	}
}

/* @value as @limit stores it on an H100, or the refusal. */
static CUresult limit_value(CUdevice dev, CUlimit limit, size_t *value)
{
	size_t max;

	switch (limit) {
	case CU_LIMIT_STACK_SIZE:
		if (*value > SIZE_MAX - LIMIT_STACK_ALIGN)
			return CUDA_ERROR_OUT_OF_MEMORY;
		*value = (*value + LIMIT_STACK_ALIGN - 1) &
			 ~(size_t)(LIMIT_STACK_ALIGN - 1);
		return stack_fits(dev, *value) ? CUDA_SUCCESS :
		       CUDA_ERROR_OUT_OF_MEMORY;
	case CU_LIMIT_PRINTF_FIFO_SIZE:
	case CU_LIMIT_MALLOC_HEAP_SIZE:
		/* no kernel ever ran here: both may still change */
		return heap_fits(dev, *value) ? CUDA_SUCCESS :
		       CUDA_ERROR_OUT_OF_MEMORY;
	case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
	case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
		return CUDA_SUCCESS;
	case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
		/* a hint the pages let the driver clamp to 0..128 bytes */
		if (*value > LIMIT_L2_FETCH_MAX)
			*value = LIMIT_L2_FETCH_MAX;
		return CUDA_SUCCESS;
	case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
		/* likewise, clamped to the set-aside the device allows */
		max = dev_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
		if (*value > max)
			*value = max;
		return CUDA_SUCCESS;
	default:
		/* SYNC_DEPTH (compute 9.0), the read-only CIG limits, unknown */
		return CUDA_ERROR_UNSUPPORTED_LIMIT;
	}
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
	struct ctx_config cfg;
	CUdevice dev;
	__u32 kid;
	CUresult res;

	res = current(1, &kid, &dev);
	if (res == CUDA_SUCCESS)
		res = limit_value(dev, limit, &value);
	if (res != CUDA_SUCCESS)
		return res;
	config_get(kid, &cfg);
	cfg.limit[limit] = value;
	return config_put(&cfg);
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
	struct ctx_config cfg;
	__u32 kid;
	CUresult res;

	res = current(!!pconfig, &kid, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	config_get(kid, &cfg);
	*pconfig = cfg.cache;
	return CUDA_SUCCESS;
}

/* A preference: an H100's L1 and shared memory share one array. */
CUFAB_EXPORT CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
	struct ctx_config cfg;
	__u32 kid;
	CUresult res;

	res = current((unsigned int)config <= CU_FUNC_CACHE_PREFER_EQUAL, &kid,
		      NULL);
	if (res != CUDA_SUCCESS)
		return res;
	config_get(kid, &cfg);
	cfg.cache = config;
	return config_put(&cfg);
}

/*
 * The bank width of an H100 is fixed at four bytes: Get reports it, Set
 * checks its argument and changes nothing, as the pages say of such
 * devices.
 */
CUFAB_EXPORT CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
	__u32 kid;
	CUresult res;

	res = current(!!pConfig, &kid, NULL);
	if (res == CUDA_SUCCESS)
		*pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config)
{
	__u32 kid;

	return current((unsigned int)config <=
		       CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE, &kid, NULL);
}

/*
 * No cufab memory access goes through a cache, so no line is persisting:
 * resetting them all is done once the context is known.
 */
CUFAB_EXPORT CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
	__u32 kid;

	return current(1, &kid, NULL);
}
