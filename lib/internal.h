/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libcufab internals shared by the API groups (lib/<group>.c).
 *
 * The library is thin: the kernel owns every object and every rule that
 * outlives a call; the library marshals arguments, keeps the per-thread
 * context stack and a read-only copy of the device table, and translates
 * errno into CUresult.
 *
 * Locking: one mutex, cufab_lock, serialises cuInit, the context slot
 * allocator and the primary contexts. Hot paths (device queries, the
 * context stack) take no lock: they read state published with release
 * stores once cuInit has finished.
 */
#ifndef CUFAB_LIB_INTERNAL_H
#define CUFAB_LIB_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/cufab.h>
#include <cufab/cuda.h>

#define CUFAB_EXPORT	__attribute__((visibility("default")))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define cufab_likely(x)		__builtin_expect(!!(x), 1)
#define cufab_unlikely(x)	__builtin_expect(!!(x), 0)
#define CUFAB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Context handles encode a pointer-sized (generation, slot) pair. */
_Static_assert(sizeof(void *) == 8, "libcufab needs a 64-bit (LP64) target");

/* One virtual GPU as the kernel described it at cuInit. */
struct cufab_device {
	__u32 index;			/* kernel index */
	__u32 features;			/* enum cufab_device_feature */
	__s32 host_numa_node;
	__u32 clique_id;
	__u64 total_mem;
	__u64 peer_mask;		/* bit i: kernel GPU i is a peer */
	__u32 pci_domain;
	__u32 pci_bus;
	__u32 pci_device;
	__u32 num_attrs;		/* attributes the kernel knows */
	__u8 uuid[CUFAB_UUID_LEN];
	char name[CUFAB_NAME_LEN];
	__s32 attrs[CUFAB_NUM_DEVICE_ATTRS];
	__u64 mem_granularity;		/* cuMemCreate MINIMUM */
	__u64 mem_granularity_rec;	/* cuMemCreate RECOMMENDED */
	__u64 mc_granularity;		/* multicast MINIMUM */
	__u64 mc_granularity_rec;	/* multicast RECOMMENDED */
	__u8 cluster_uuid[CUFAB_UUID_LEN];	/* all zeros: not on the fabric */
};

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL. */
#define CUFAB_UUID_STR_LEN	41

/*
 * Process-wide state. Written under cufab_lock by cuInit (and reset in a
 * forked child); read without the lock once cufab_initialized is set.
 */
struct cufab_state {
	int fd;				/* /dev/cufab, -1 when closed */
	pid_t pid;			/* process that opened fd */
	int num_kdev;			/* GPUs of the node */
	int num_dev;			/* GPUs visible to this process */
	int visible[CUFAB_MAX_GPUS];	/* CUdevice -> kernel index */
	struct cufab_device kdev[CUFAB_MAX_GPUS];	/* by kernel index */
};

extern struct cufab_state cufab;
extern int cufab_initialized;
extern unsigned long cufab_epoch;
extern pthread_mutex_t cufab_lock;

/* core.c */
void cufab_log(const char *fmt, ...) __printf(1, 2);
void cufab_dbg(const char *fmt, ...) __printf(1, 2);
int cufab_ioctl(unsigned long request, void *arg);
int cufab_ioctl_once(unsigned long request, void *arg);
CUresult cufab_open(__u32 *num_gpus);
void cufab_close(void);
void cufab_reset_locked(void);

/* error.c: errno -> CUresult, by the call group whose codes differ */
enum cufab_errmap {
	CUFAB_ERRMAP_GENERIC,		/* every call */
	CUFAB_ERRMAP_MEM,		/* the memory calls (mem.h) */
	CUFAB_ERRMAP_COPY,		/* copies and memsets */
	CUFAB_ERRMAP_MC,		/* multicast objects */
	CUFAB_ERRMAP_LE,		/* logical endpoints */
	CUFAB_ERRMAP_PEER,		/* peer access */
	CUFAB_ERRMAP_ASYNC,		/* an operation failed on the engine */
	CUFAB_ERRMAP_SUBMIT,		/* a refused stream submission */
	CUFAB_ERRMAP_IPC_EVENT_IMPORT,	/* cuIpcOpenEventHandle */
	CUFAB_ERRMAP_IPC_MEM_IMPORT,	/* cuIpcOpenMemHandle */
	CUFAB_ERRMAP_COUNT
};

CUresult cufab_result(enum cufab_errmap map, int err);
/* The generic rows (Documentation/uapi.rst). */
CUresult cufab_errno_result(int err);

/* device.c */
CUresult cufab_devices_load(int num_gpus);
void cufab_uuid_format(const __u8 *uuid, char *out);

/* visible.c */
int cufab_visible_parse(const char *env, const struct cufab_device *kdev,
			int num_kdev, int *visible);

/* context.c */
struct cufab_ctx;
CUresult cufab_ctx_kernel_create(unsigned int flags, CUdevice dev, __u32 *kid);
CUresult cufab_ctx_kernel_destroy(__u32 kid);
__u32 cufab_ctx_kid(CUcontext h);
CUcontext cufab_ctx_by_kid(__u32 kid);
CUresult cufab_ctx_current_get(CUcontext *h, __u32 *kid, CUdevice *dev);
CUresult cufab_ctx_current_kid(__u32 *kid);
CUresult cufab_ctx_arg_kid(CUcontext h, __u32 *kid);
CUcontext cufab_primary_handle(CUdevice dev);
void cufab_primary_activate(CUdevice dev, __u32 kid, unsigned int flags);
void cufab_primary_deactivate(CUdevice dev);
void cufab_primary_set_flags(CUdevice dev, unsigned int flags);
CUresult cufab_ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev);
/* The checks every cuCtxCreate version makes first, in CUDA's order. */
CUresult cufab_ctx_create_check(CUcontext *pctx, CUdevice dev);

/**
 * struct cufab_part - what an API group keeps of objects the kernel owns
 * @ctx_drain: context @ctx_kid is about to be destroyed: let its queued
 *	work finish (errors do not stop the destroy)
 * @ctx_gone: the kernel destroyed context @ctx_kid (an id it may hand out
 *	again): drop what hung off it
 * @fork_reset: a forked child: forget the parent's objects (cufab_lock
 *	held; touch only the group's own state)
 *
 * core.c lists them in one table, cufab_parts[], as the kernel lists its
 * client parts; context.c and the atfork handler walk it.
 */
struct cufab_part {
	void (*ctx_drain)(__u32 ctx_kid);
	void (*ctx_gone)(__u32 ctx_kid);
	void (*fork_reset)(void);
};

/* core.c: every part's hook, before and after a context's destroy. */
void cufab_parts_ctx_drain(__u32 ctx_kid);
void cufab_parts_ctx_gone(__u32 ctx_kid);

/* The parts' hooks, in cufab_parts[] order. */
void cufab_ctx_reset_locked(void);		/* context.c */
void cufab_streams_ctx_drain(__u32 ctx_kid);	/* stream.c */
void cufab_streams_forget_ctx(__u32 ctx_kid);
void cufab_streams_reset_locked(void);
void cufab_events_forget_ctx(__u32 ctx_kid);	/* event.c */
void cufab_events_reset_locked(void);
void cufab_ctx_config_forget(__u32 ctx_kid);	/* ctx_config.c: limits */
void cufab_ctx_config_reset_locked(void);
void cufab_ipc_mem_forget_ctx(__u32 ctx_kid);	/* ipc_mem.c: the kernel unmaps */
void cufab_ipc_mem_reset_locked(void);
void cufab_primary_reset_locked(void);		/* primary.c */
void cufab_pool_reset_locked(void);		/* pool.c */

/* primary.c */
CUresult cufab_primary_set_flags_checked(CUdevice dev, unsigned int flags,
					 int refuse_active);

/* procaddr.c */
CUresult cufab_proc_address(const char *symbol, void **pfn, int version,
			    cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status);

/* struct cufab_call.need */
#define CUFAB_NEED_DEV	0x1	/* the call names a device: @dev */
#define CUFAB_NEED_CTX	0x2	/* the call works in the current context */

/**
 * struct cufab_call - what an entry point checks before its ioctl
 * @need: CUFAB_NEED_* bits
 * @args_ok: the entry point's own NULL and range checks passed
 * @args_rule: the text of that check, for the refusal's CUFAB_DEBUG line
 *	(NULL: the line gives the generic rule)
 * @dev: the CUdevice ordinal the call names (CUFAB_NEED_DEV)
 * @bad_dev: what an ordinal with no GPU behind it is: INVALID_DEVICE, or
 *	INVALID_VALUE where the call's documentation lists no INVALID_DEVICE
 * @d: out, the device of @dev, else of the current context
 * @ctx: out, the current context (CUFAB_NEED_CTX)
 * @ctx_kid: out, its kernel id
 *
 * cufab_call() checks, in CUDA's order: NOT_INITIALIZED, then
 * INVALID_VALUE for !@args_ok, then @bad_dev, then the current context
 * (INVALID_CONTEXT without one, CONTEXT_IS_DESTROYED when another thread
 * destroyed it). Every group of calls starts with it.
 */
struct cufab_call {
	unsigned int need;
	int args_ok;
	const char *args_rule;
	CUdevice dev;
	CUresult bad_dev;
	const struct cufab_device *d;
	CUcontext ctx;
	__u32 ctx_kid;
};

CUresult cufab_call(struct cufab_call *c);

/*
 * cufab_call() for a call that names no device and needs no context.
 * The macro passes the check's text, so that a refusal names the argument.
 */
static inline CUresult cufab_call_args_rule(int args_ok, const char *rule)
{
	struct cufab_call c = { .args_ok = args_ok, .args_rule = rule };

	return cufab_call(&c);
}

#define cufab_call_args(args_ok) cufab_call_args_rule(!!(args_ok), #args_ok)

/*
 * cufab_call() for a call that names device @dev: @bad_dev for an ordinal
 * with no GPU behind it; the device in *@d when @d is not NULL.
 */
static inline CUresult cufab_call_dev_rule(int args_ok, const char *rule,
					   CUdevice dev, CUresult bad_dev,
					   const struct cufab_device **d)
{
	struct cufab_call c = {
		.need = CUFAB_NEED_DEV, .args_ok = args_ok, .args_rule = rule,
		.dev = dev, .bad_dev = bad_dev,
	};
	CUresult res = cufab_call(&c);

	if (d)
		*d = c.d;
	return res;
}

#define cufab_call_dev(args_ok, dev, bad_dev, d) \
	cufab_call_dev_rule(!!(args_ok), #args_ok, (dev), (bad_dev), (d))

/*
 * cufab_call() for a call that works in the current context: *@c is
 * filled in, the context, its kernel id and its device with it.
 */
static inline CUresult cufab_call_ctx_rule(struct cufab_call *c, int args_ok,
					   const char *rule)
{
	*c = (struct cufab_call){
		.need = CUFAB_NEED_CTX, .args_ok = args_ok, .args_rule = rule,
	};
	return cufab_call(c);
}

#define cufab_call_ctx(c, args_ok) \
	cufab_call_ctx_rule((c), !!(args_ok), #args_ok)

/* The device behind a CUdevice ordinal, or NULL for a bad ordinal. */
static inline const struct cufab_device *cufab_device(CUdevice dev)
{
	if ((unsigned int)dev >= (unsigned int)cufab.num_dev)
		return NULL;
	return &cufab.kdev[cufab.visible[dev]];
}

#endif /* CUFAB_LIB_INTERNAL_H */
