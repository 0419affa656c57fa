// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The process's client of /dev/cufab: opening it, the version handshake,
 * the ioctl wrapper, logging, fork handling and the parts table through
 * which the API groups let go of what mirrors the kernel's objects.
 *
 * Fork: the kernel binds a client to the process that opened it and answers
 * -EBADF to any other, so a forked child must start over. The atfork child
 * handler drops everything the parent had (fd, devices, contexts, primary
 * contexts, thread stacks) and the child's calls return
 * CUDA_ERROR_NOT_INITIALIZED until it calls cuInit itself. cuInit also
 * compares getpid() with the opener's pid, for children created without
 * running atfork handlers (raw clone()).
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

struct cufab_state cufab = { .fd = -1 };
int cufab_initialized;
/* Bumped in a forked child: thread context stacks of older epochs are empty. */
unsigned long cufab_epoch;
pthread_mutex_t cufab_lock = PTHREAD_MUTEX_INITIALIZER;

static int cufab_open_warned;

/* An exported driver call: "cu" and a capital (cuMemMap, not cufab_x). */
static int cufab_is_api(const char *name)
{
	return name && name[0] == 'c' && name[1] == 'u' &&
	       name[2] >= 'A' && name[2] <= 'Z';
}

/*
 * The driver call the application made, for a debug line: the outermost
 * frame of this library whose symbol is an exported cu* entry point (a
 * call made through libcufabrt or by another entry point still names the
 * one the application called into us with). The stack is unwound only
 * when a line is printed, so the entry points carry no bookkeeping; the
 * library is built without sibling calls so that an entry point ending in
 * "return helper(...)" keeps its frame.
 */
static const char *cufab_api_name(void)
{
	void *frames[48];
	const char *name = NULL;
	Dl_info self, info;
	int n, i;

	if (!dladdr((void *)cufab_api_name, &self))
		return NULL;
	n = backtrace(frames, 48);
	for (i = 0; i < n; i++) {
		if (dladdr(frames[i], &info) &&
		    info.dli_fbase == self.dli_fbase &&
		    cufab_is_api(info.dli_sname))
			name = info.dli_sname;
	}
	return name;
}

/* "cufab: " or "cufab[pid]: ", then the driver call when there is one. */
static void cufab_prefix(int with_pid)
{
	const char *api = cufab_api_name();

	if (with_pid)
		fprintf(stderr, "cufab[%d]: ", (int)getpid());
	else
		fputs("cufab: ", stderr);
	if (api)
		fprintf(stderr, "%s: ", api);
}

/*
 * CUFAB_DEBUG, read at each message, so that a program may turn it on
 * after loading us (messages are rare: failures and cuInit).
 */
static int cufab_debug_on(void)
{
	const char *dbg = getenv("CUFAB_DEBUG");

	return dbg && *dbg;
}

/*
 * Advice for whoever runs the program (why a call failed). NVIDIA's
 * library writes nothing to stderr and the libraries calling it print
 * their own advice, so this is silent unless CUFAB_DEBUG is set.
 */
void cufab_log(const char *fmt, ...)
{
	va_list ap;

	if (!cufab_debug_on())
		return;
	va_start(ap, fmt);
	cufab_prefix(0);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void cufab_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!cufab_debug_on())
		return;
	va_start(ap, fmt);
	cufab_prefix(1);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The debug line of a refused ioctl; the kernel's own names the rule. */
static int cufab_ioctl_refused(unsigned long request, int err)
{
	cufab_dbg("refused: %s (ioctl nr %u; the reason is in dmesg)",
		  strerror(err), (unsigned int)_IOC_NR(request));
	return -err;
}

/* Returns 0 or -errno; a signal never makes a call fail. */
int cufab_ioctl(unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(cufab.fd, request, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? cufab_ioctl_refused(request, errno) : 0;
}

/* One try: a signal ends the call with -EINTR (multicast.c's waits). */
int cufab_ioctl_once(unsigned long request, void *arg)
{
	if (ioctl(cufab.fd, request, arg) == 0)
		return 0;
	return errno == EINTR ? -EINTR : cufab_ioctl_refused(request, errno);
}

static CUresult cufab_check_version(__u32 *num_gpus)
{
	/* Variables, not constants: minor 0 makes the test look vacuous. */
	static const __u32 lib_major = CUFAB_VERSION_MAJOR;
	static const __u32 lib_minor = CUFAB_VERSION_MINOR;
	struct cufab_get_version ver = { .size = sizeof(ver) };
	int ret;

	ret = cufab_ioctl(CUFAB_IOCTL_GET_VERSION, &ver);
	if (ret) {
		cufab_log("%s: version query failed: %s (not a cufab module?)",
			  CUFAB_DEVICE_PATH, strerror(-ret));
		return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	}
	if (ver.major != lib_major || ver.minor < lib_minor) {
		cufab_log("module interface %u.%u, library %u.%u: majors must match, module minor >= %u",
			  ver.major, ver.minor, lib_major, lib_minor, lib_minor);
		return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	}
	*num_gpus = ver.num_gpus;
	cufab_dbg("module interface %u.%u, %u GPUs", ver.major, ver.minor,
		  ver.num_gpus);
	return CUDA_SUCCESS;
}

/* Called with cufab_lock held. */
/*
 * The one line printed without CUFAB_DEBUG: a missing or unreadable
 * /dev/cufab is the first thing a new user meets, and without it every
 * program only reports "no CUDA-capable device". Once per process.
 */
static void cufab_open_hint(int err)
{
	const char *why;

	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		why = "is cufab.ko loaded? (modprobe cufab; see README)";
		break;
	case EACCES:
	case EPERM:
		why = "no permission (udev rule packaging/cufab.rules; see README)";
		break;
	default:
		why = "see README";
		break;
	}
	fprintf(stderr, "cufab: cuInit: cannot open %s: %s: %s; CUDA calls return CUDA_ERROR_NO_DEVICE\n",
		CUFAB_DEVICE_PATH, strerror(err), why);
}

CUresult cufab_open(__u32 *num_gpus)
{
	CUresult res;

	cufab.fd = open(CUFAB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (cufab.fd < 0) {
		if (!cufab_open_warned)
			cufab_open_hint(errno);
		cufab_open_warned = 1;
		return CUDA_ERROR_NO_DEVICE;
	}
	cufab.pid = getpid();
	res = cufab_check_version(num_gpus);
	if (res != CUDA_SUCCESS)
		cufab_close();
	return res;
}

void cufab_close(void)
{
	if (cufab.fd >= 0)
		close(cufab.fd);
	cufab.fd = -1;
}

/*
 * The API groups that keep something of the kernel's objects, in the
 * order they let go of them (as the kernel's cufab_client_parts[]):
 * contexts first; events after streams, which they record on and whose
 * lock the stream reset re-creates; pools last, they point at streams.
 */
static const struct cufab_part cufab_parts[] = {
	{ .fork_reset = cufab_ctx_reset_locked },
	{ .ctx_drain = cufab_streams_ctx_drain,
	  .ctx_gone = cufab_streams_forget_ctx,
	  .fork_reset = cufab_streams_reset_locked },
	{ .ctx_gone = cufab_events_forget_ctx,
	  .fork_reset = cufab_events_reset_locked },
	{ .ctx_gone = cufab_ctx_config_forget,
	  .fork_reset = cufab_ctx_config_reset_locked },
	{ .ctx_gone = cufab_ipc_mem_forget_ctx,
	  .fork_reset = cufab_ipc_mem_reset_locked },
	{ .fork_reset = cufab_primary_reset_locked },
	{ .fork_reset = cufab_pool_reset_locked },
};

void cufab_parts_ctx_drain(__u32 ctx_kid)
{
	size_t i;

	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_parts); i++)
		if (cufab_parts[i].ctx_drain)
			cufab_parts[i].ctx_drain(ctx_kid);
}

void cufab_parts_ctx_gone(__u32 ctx_kid)
{
	size_t i;

	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_parts); i++)
		if (cufab_parts[i].ctx_gone)
			cufab_parts[i].ctx_gone(ctx_kid);
}

/*
 * Forget everything this process had: called with cufab_lock held, in a
 * forked child or by a cuInit that finds itself in a new process. The fd
 * is closed, not reused: the kernel refuses it here anyway.
 */
void cufab_reset_locked(void)
{
	size_t i;

	__atomic_store_n(&cufab_initialized, 0, __ATOMIC_RELEASE);
	cufab_close();
	cufab.num_kdev = 0;
	cufab.num_dev = 0;
	cufab_open_warned = 0;
	for (i = 0; i < CUFAB_ARRAY_SIZE(cufab_parts); i++)
		cufab_parts[i].fork_reset();
	__atomic_add_fetch(&cufab_epoch, 1, __ATOMIC_RELEASE);
}

/*
 * Holding cufab_lock across fork() keeps the child from inheriting a
 * half-done cuInit or context operation.
 */
static void cufab_atfork_prepare(void)
{
	pthread_mutex_lock(&cufab_lock);
}

static void cufab_atfork_parent(void)
{
	pthread_mutex_unlock(&cufab_lock);
}

static void cufab_atfork_child(void)
{
	cufab_reset_locked();
	pthread_mutex_unlock(&cufab_lock);
}

__attribute__((constructor))
static void cufab_core_init(void)
{
	pthread_atfork(cufab_atfork_prepare, cufab_atfork_parent,
		       cufab_atfork_child);
}
