// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints (events/cufab/ in tracefs): each test empties the trace
 * buffer, enables every cufab event, runs a sequence of CUDA calls and
 * checks that the records of this process come in that order with the
 * ids and sizes the calls used.
 *
 * The top-level buffer, not an instance of our own: making an instance
 * creates a directory for every event of the kernel, which takes minutes
 * under KASAN and TCG (soft lockups). Nothing else traces in the test VM.
 */
#include <ctype.h>
#include <sys/mount.h>

#include "mc_helpers.h"
#include "le_helpers.h"
#include "kselftest_harness.h"

#define TRACEFS_DIRS	{ "/sys/kernel/tracing", "/sys/kernel/debug/tracing" }
#define TRACE_MAX	(1 << 20)

static const char *const cufab_events[] = {
	"cufab_ctx_create", "cufab_ctx_destroy", "cufab_alloc_create",
	"cufab_alloc_destroy", "cufab_mem_export", "cufab_mem_import",
	"cufab_mem_map", "cufab_mem_unmap", "cufab_mem_fault",
	"cufab_le_create", "cufab_le_destroy", "cufab_le_export",
	"cufab_le_import", "cufab_team_join", "cufab_team_complete",
	"cufab_bind", "cufab_unbind", "cufab_peer_enable", "cufab_peer_disable",
	"cufab_stream_create", "cufab_stream_destroy", "cufab_stream_submit",
	"cufab_stream_complete", "cufab_event_create", "cufab_event_destroy",
	"cufab_event_export", "cufab_event_import", "cufab_pool_create",
	"cufab_pool_destroy", "cufab_pool_export", "cufab_pool_import",
	"cufab_pool_grow", "cufab_pool_ptr_export", "cufab_pool_ptr_import",
	"cufab_managed_attach",
};

/* The tracefs mount, mounting it at /sys/kernel/tracing if need be. */
static const char *tracefs_root(void)
{
	static const char *const dirs[] = TRACEFS_DIRS;
	char path[128];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/trace", dirs[i]);
		if (!access(path, W_OK))
			return dirs[i];
	}
	if (!mount("tracefs", dirs[0], "tracefs", 0, NULL))
		return dirs[0];
	return NULL;
}

FIXTURE(trace) {
	char inst[256];
	char *buf;
	pid_t pid;
};

FIXTURE_SETUP(trace)
{
	const char *root;
	char path[320];
	int fd;

	self->inst[0] = '\0';
	self->buf = NULL;
	self->pid = getpid();
	INIT_OR_SKIP();
	root = tracefs_root();
	if (!root)
		SKIP(return, "no tracefs (kernel without CONFIG_TRACING, or not root)");
	snprintf(path, sizeof(path), "%s/events/cufab", root);
	if (access(path, F_OK))
		SKIP(return, "%s absent: kernel without CONFIG_EVENT_TRACING", path);
	snprintf(self->inst, sizeof(self->inst), "%s", root);
	snprintf(path, sizeof(path), "%s/trace", root);
	fd = open(path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd) TH_LOG("emptying %s: %s", path, strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "%s/events/cufab/enable", root);
	ASSERT_EQ(0, write_file(path, "1")) TH_LOG("enable %s", path);
	self->buf = malloc(TRACE_MAX);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(trace)
{
	char path[320];

	free(self->buf);
	if (!self->inst[0])
		return;
	snprintf(path, sizeof(path), "%s/events/cufab/enable", self->inst);
	write_file(path, "0");
}

/* The records so far, NUL-terminated in self->buf. */
static int trace_read(struct _test_data_trace *self)
{
	char path[320];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", self->inst);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < TRACE_MAX - 1 &&
	       (n = read(fd, self->buf + len, TRACE_MAX - 1 - len)) > 0)
		len += n;
	close(fd);
	self->buf[len] = '\0';
	return 0;
}

/* Does @line hold the field "k=v" @kv, whole, after a blank? */
static int has_field(const char *line, const char *end, const char *kv)
{
	size_t n = strlen(kv);
	const char *p = line;

	while ((p = strstr(p, kv)) && p < end) {
		if (p[-1] == ' ' && (p + n == end || isspace(p[n])))
			return 1;
		p++;
	}
	return 0;
}

/*
 * Find, from *@pos, the next record of @event from this process whose
 * fields include each of the blank-separated "k=v" of @fields; advance
 * *@pos past it. Returns the record's line (until the newline) or NULL.
 */
static const char *trace_next(struct _test_data_trace *self, const char **pos,
			      const char *event, const char *fields)
{
	char name[64], pidkv[32], want[512], *kv, *save;
	const char *line = *pos, *end;
	int ok;

	snprintf(name, sizeof(name), " %s: ", event);
	snprintf(pidkv, sizeof(pidkv), "pid=%d", self->pid);
	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (line[0] == '#' || !strstr(line, name) ||
		    strstr(line, name) > end || !has_field(line, end, pidkv))
			continue;
		snprintf(want, sizeof(want), "%s", fields);
		ok = 1;
		for (kv = strtok_r(want, " ", &save); kv && ok;
		     kv = strtok_r(NULL, " ", &save))
			ok = has_field(line, end, kv);
		if (ok) {
			*pos = *end ? end + 1 : end;
			return line;
		}
	}
	return NULL;
}

/* The value of field @key in the record at @line, as a number. */
static unsigned long long field_u64(const char *line, const char *key)
{
	char k[40];
	const char *p;

	snprintf(k, sizeof(k), " %s=", key);
	p = strstr(line, k);
	return p ? strtoull(p + strlen(k), NULL, 0) : ~0ULL;
}

#define EXPECT_NEXT(pos, event, ...) ({					\
	char __f[256];							\
	const char *__l;						\
									\
	snprintf(__f, sizeof(__f), __VA_ARGS__);			\
	__l = trace_next(self, &(pos), event, __f);			\
	EXPECT_NE(NULL, __l) TH_LOG("no %s with %s (after the ones before)\n%s", \
				    event, __f, self->buf);		\
	__l;								\
})

TEST_F(trace, every_event_exists)
{
	char path[512];
	unsigned int i;

	SETUP_SKIPPED();
	for (i = 0; i < sizeof(cufab_events) / sizeof(cufab_events[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/cufab/%s/format",
			 self->inst, cufab_events[i]);
		EXPECT_EQ(0, access(path, R_OK)) TH_LOG("%s missing", path);
	}
}

/*
 * cuCtxCreate, cuMemCreate, export and import as a POSIX fd, map, a CPU
 * write, unmap, release, cuCtxDestroy: one record each, in that order.
 */
TEST_F(trace, allocation_life)
{
	CUmemGenericAllocationHandle h, h2;
	const char *pos, *l;
	unsigned long long id;
	CUdeviceptr va;
	CUcontext ctx;
	size_t g;
	int fd;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	g = gran(0);
	ASSERT_NE(0, g);
	ASSERT_CU(CUDA_SUCCESS, mem_on(&h, 0, g, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	ASSERT_CU(CUDA_SUCCESS, cuMemExportToShareableHandle(&fd, h,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemImportFromShareableHandle(&h2, (void *)(long)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(fd);
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressReserve(&va, g, 0, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemMap(va, g, 0, h2, 0));
	ASSERT_CU(CUDA_SUCCESS, grant(va, g, 0));
	*(volatile char *)(uintptr_t)(va + 4096) = 1;
	ASSERT_CU(CUDA_SUCCESS, cuMemUnmap(va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemAddressFree(va, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h2));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(h));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	EXPECT_NEXT(pos, "cufab_ctx_create", "gpu=0");
	l = EXPECT_NEXT(pos, "cufab_alloc_create", "kind=cuMemCreate gpu=0 size=%zu handle_types=0x1", g);
	ASSERT_NE(NULL, l);
	id = field_u64(l, "id");
	EXPECT_NEXT(pos, "cufab_mem_export", "id=%llu size=%zu handle_type=posix_fd", id, g);
	EXPECT_NEXT(pos, "cufab_mem_import", "id=%llu handle_type=posix_fd", id);
	EXPECT_NEXT(pos, "cufab_mem_map", "addr=0x%llx size=%zu id=%llu offset=0",
		    (unsigned long long)va, g, id);
	EXPECT_NEXT(pos, "cufab_mem_fault", "addr=0x%llx id=%llu offset=4096 write=1 ret=0x100",
		    (unsigned long long)va + 4096, id);
	EXPECT_NEXT(pos, "cufab_mem_unmap", "addr=0x%llx size=%zu id=%llu",
		    (unsigned long long)va, g, id);
	EXPECT_NEXT(pos, "cufab_alloc_destroy", "id=%llu size=%zu", id, g);
	EXPECT_NEXT(pos, "cufab_ctx_destroy", "gpu=0");
}

/*
 * A multicast team of two: create, two joins, complete, bind and unbind
 * on GPU 0, release.
 */
TEST_F(trace, multicast_team)
{
	CUmemGenericAllocationHandle mc, mem;
	unsigned long long id, mid;
	const char *pos, *l;
	CUcontext ctx;
	char team[64];
	size_t g;

	SETUP_SKIPPED();
	MC_OR_SKIP(2);
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	g = mc_gran();
	ASSERT_NE(0, g);
	ASSERT_CU(CUDA_SUCCESS, mc_team(&mc, 2, g, 0));
	ASSERT_CU(CUDA_SUCCESS, mem_on(&mem, 0, g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastBindMem(mc, 0, mem, 0, g, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMulticastUnbind(mc, 0, 0, g));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mem));
	ASSERT_CU(CUDA_SUCCESS, cuMemRelease(mc));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = EXPECT_NEXT(pos, "cufab_alloc_create", "kind=multicast size=%zu", g);
	ASSERT_NE(NULL, l);
	id = field_u64(l, "id");
	snprintf(team, sizeof(team), "team=\"multicast %llu\"", id);
	EXPECT_NEXT(pos, "cufab_team_join", "%s gpu=0 joined=1 size=2", team);
	EXPECT_NEXT(pos, "cufab_team_join", "%s gpu=1 joined=2 size=2", team);
	EXPECT_NEXT(pos, "cufab_team_complete", "%s joined=2 size=2", team);
	l = EXPECT_NEXT(pos, "cufab_alloc_create", "kind=cuMemCreate gpu=0 size=%zu", g);
	ASSERT_NE(NULL, l);
	mid = field_u64(l, "id");
	EXPECT_NEXT(pos, "cufab_bind", "%s gpu=0 offset=0 size=%zu id=%llu mem_offset=0",
		    team, g, mid);
	EXPECT_NEXT(pos, "cufab_unbind", "%s gpu=0 offset=0 size=%zu bindings=1",
		    team, g);
	EXPECT_NEXT(pos, "cufab_alloc_destroy", "id=%llu", mid);
	EXPECT_NEXT(pos, "cufab_alloc_destroy", "id=%llu kind=multicast", id);
}

/* Peer access between contexts on GPUs 0 and 1, enabled then disabled. */
TEST_F(trace, peer_access)
{
	unsigned long long c0, c1;
	CUcontext ctx0, ctx1;
	const char *pos, *l;
	int ok = 0;

	SETUP_SKIPPED();
	if (num_devices() < 2)
		SKIP(return, "one GPU: no peer");
	cuDeviceCanAccessPeer(&ok, 0, 1);
	if (!ok)
		SKIP(return, "GPU 0 cannot reach GPU 1 (no NVSwitch, no peers)");
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx1, NULL, 0, 1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx0, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxEnablePeerAccess(ctx1, 0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDisablePeerAccess(ctx1));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx0));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx1));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = EXPECT_NEXT(pos, "cufab_ctx_create", "gpu=1");
	ASSERT_NE(NULL, l);
	c1 = field_u64(l, "ctx");
	l = EXPECT_NEXT(pos, "cufab_ctx_create", "gpu=0");
	ASSERT_NE(NULL, l);
	c0 = field_u64(l, "ctx");
	EXPECT_NEXT(pos, "cufab_peer_enable", "ctx=%llu gpu=0 peer_ctx=%llu peer_gpu=1",
		    c0, c1);
	EXPECT_NEXT(pos, "cufab_peer_disable", "ctx=%llu gpu=0 peer_ctx=%llu peer_gpu=1",
		    c0, c1);
	EXPECT_NEXT(pos, "cufab_ctx_destroy", "ctx=%llu gpu=0", c0);
	EXPECT_NEXT(pos, "cufab_ctx_destroy", "ctx=%llu gpu=1", c1);
}

/* A unicast logical endpoint: created, its team joined, destroyed. */
TEST_F(trace, endpoint_life)
{
	CUlogicalEndpointProp p = uprop(0, LE_SIZE, 0);
	unsigned long long number;
	CUlogicalEndpointId id;
	const char *pos, *l;
	char team[64];
	CUcontext ctx;
	int v = 0;

	SETUP_SKIPPED();
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED, 0);
	if (!v)
		SKIP(return, "no unicast logical endpoints on GPU 0");
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, le_make(&id, &p));
	ASSERT_CU(CUDA_SUCCESS, le_drop(id));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = strstr(pos, " cufab_team_join: ");
	ASSERT_NE(NULL, l) TH_LOG("no team join\n%s", self->buf);
	l = EXPECT_NEXT(pos, "cufab_team_join", "gpu=0 joined=1 size=1");
	ASSERT_NE(NULL, l);
	number = strtoull(strstr(l, "team=\"endpoint ") + 15, NULL, 10);
	snprintf(team, sizeof(team), "team=\"endpoint %llu\"", number);
	EXPECT_NEXT(pos, "cufab_team_complete", "%s gpu=0", team);
	EXPECT_NEXT(pos, "cufab_le_create", "endpoint=%llu type=unicast devices=1 size=%llu",
		    number, (unsigned long long)LE_SIZE);
	EXPECT_NEXT(pos, "cufab_le_destroy", "endpoint=%llu size=%llu", number,
		    (unsigned long long)LE_SIZE);
}

/* A stream: created, a memset queued and completed, destroyed. */
TEST_F(trace, stream_work)
{
	unsigned long long stream;
	CUdeviceptr buf;
	const char *pos, *l;
	CUcontext ctx;
	CUstream s;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemAlloc(&buf, 4096));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuMemsetD8Async(buf, 0x5a, 4096, s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(buf));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = EXPECT_NEXT(pos, "cufab_stream_create", "gpu=0 flags=0x1");
	ASSERT_NE(NULL, l);
	stream = field_u64(l, "stream");
	EXPECT_NEXT(pos, "cufab_stream_submit", "stream=%llu seq=1 op=\"set\" err=0", stream);
	EXPECT_NEXT(pos, "cufab_stream_complete", "stream=%llu seq=1 op=\"set\" err=0", stream);
	EXPECT_NEXT(pos, "cufab_stream_destroy", "stream=%llu", stream);
}

/*
 * An interprocess event: created, recorded on a stream, exported, opened
 * again in this process, both handles destroyed.
 */
TEST_F(trace, event_life)
{
	unsigned long long stream, ev, imp;
	CUipcEventHandle handle;
	pid_t pid;
	const char *pos, *l;
	CUevent e, e2;
	CUcontext ctx;
	CUstream s;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuEventCreate(&e, CU_EVENT_INTERPROCESS |
					      CU_EVENT_DISABLE_TIMING));
	ASSERT_CU(CUDA_SUCCESS, cuEventRecord(e, s));
	ASSERT_CU(CUDA_SUCCESS, cuEventSynchronize(e));
	ASSERT_CU(CUDA_SUCCESS, cuIpcGetEventHandle(&handle, e));
	/* opened in another process: the exporter may not open its own */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
		      cuIpcOpenEventHandle(&e2, handle) ||
		      cuEventDestroy(e2) || cuCtxDestroy(ctx));
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_CU(CUDA_SUCCESS, cuEventDestroy(e));
	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = EXPECT_NEXT(pos, "cufab_stream_create", "gpu=0 flags=0x1");
	ASSERT_NE(NULL, l);
	stream = field_u64(l, "stream");
	l = EXPECT_NEXT(pos, "cufab_event_create", "flags=0x%x export_id=0",
			CUFAB_EVENT_INTERPROCESS | CUFAB_EVENT_DISABLE_TIMING);
	ASSERT_NE(NULL, l);
	ev = field_u64(l, "event");
	EXPECT_NEXT(pos, "cufab_stream_submit", "stream=%llu seq=1 op=\"event record\" err=0",
		    stream);
	EXPECT_NEXT(pos, "cufab_stream_complete", "stream=%llu seq=1 op=\"event record\" err=0",
		    stream);
	l = EXPECT_NEXT(pos, "cufab_event_export", "event=%llu", ev);
	ASSERT_NE(NULL, l);
	EXPECT_NE(0, field_u64(l, "export_id"));
	/* the import and its end are the child's records */
	self->pid = pid;
	l = EXPECT_NEXT(pos, "cufab_event_import", "export_id=%llu",
			field_u64(l, "export_id"));
	ASSERT_NE(NULL, l);
	imp = field_u64(l, "event");
	EXPECT_NEXT(pos, "cufab_event_destroy", "event=%llu", imp);
	self->pid = getpid();
	EXPECT_NEXT(pos, "cufab_event_destroy", "event=%llu", ev);
	EXPECT_NEXT(pos, "cufab_stream_destroy", "stream=%llu", stream);
}

/*
 * A pool on GPU 0: created, grown by a chunk (cuMemAllocFromPoolAsync),
 * exported and imported as a POSIX fd, a pointer exported and imported,
 * then everything released: the chunk and the pool end.
 */
TEST_F(trace, pool_life)
{
	unsigned long long pool, chunk;
	CUmemPoolPtrExportData data;
	CUmemoryPool mp, imp;
	CUdeviceptr a, out;
	const char *pos, *l, *p2;
	CUmemPoolProps p;
	CUcontext ctx;
	int fd = -1;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	memset(&p, 0, sizeof(p));
	p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 0;
	p.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	if (cuMemPoolCreate(&mp, &p) == CUDA_ERROR_NOT_SUPPORTED) {
		cuCtxDestroy(ctx);
		SKIP(return, "GPU 0 has no memory pools");
	}
	ASSERT_CU(CUDA_SUCCESS, cuMemAllocFromPoolAsync(&a, 4096, mp, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportToShareableHandle(&fd, mp,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportFromShareableHandle(&imp,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	close(fd);
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolExportPointer(&data, a));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolImportPointer(&out, imp, &data));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(out, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuMemFreeAsync(a, NULL));
	ASSERT_CU(CUDA_SUCCESS, cuCtxSynchronize());
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolDestroy(imp));
	ASSERT_CU(CUDA_SUCCESS, cuMemPoolDestroy(mp));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = EXPECT_NEXT(pos, "cufab_pool_create", "location=device location_id=0");
	ASSERT_NE(NULL, l);
	pool = field_u64(l, "pool");
	l = EXPECT_NEXT(pos, "cufab_pool_grow", "pool=%llu", pool);
	ASSERT_NE(NULL, l);
	chunk = field_u64(l, "id");
	EXPECT_NEXT(pos, "cufab_pool_export", "pool=%llu handle_type=posix_fd", pool);
	EXPECT_NEXT(pos, "cufab_pool_import", "pool=%llu handle_type=posix_fd", pool);
	EXPECT_NEXT(pos, "cufab_pool_ptr_export", "pool=%llu id=%llu size=4096",
		    pool, chunk);
	EXPECT_NEXT(pos, "cufab_pool_ptr_import", "pool=%llu id=%llu size=4096",
		    pool, chunk);
	/* the chunk's allocation goes before the pool it holds */
	p2 = pos;
	EXPECT_NEXT(p2, "cufab_alloc_destroy", "id=%llu kind=cuMemAllocAsync", chunk);
	EXPECT_NEXT(p2, "cufab_pool_destroy", "pool=%llu location=device", pool);
}

/*
 * Managed memory attached SINGLE to a stream: the allocation, the attach
 * operation submitted, taking effect, completed; the allocation freed.
 */
TEST_F(trace, managed_attach)
{
	unsigned long long stream, id;
	const char *pos, *l;
	CUcontext ctx;
	CUdeviceptr d;
	CUresult res;
	CUstream s;

	SETUP_SKIPPED();
	ASSERT_CU(CUDA_SUCCESS, cuCtxCreate(&ctx, NULL, 0, 0));
	res = cuMemAllocManaged(&d, 4096, CU_MEM_ATTACH_GLOBAL);
	if (res == CUDA_ERROR_NOT_SUPPORTED) {
		cuCtxDestroy(ctx);
		SKIP(return, "GPU 0 has no managed memory");
	}
	ASSERT_CU(CUDA_SUCCESS, res);
	ASSERT_CU(CUDA_SUCCESS, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	ASSERT_CU(CUDA_SUCCESS, cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_SINGLE));
	ASSERT_CU(CUDA_SUCCESS, cuStreamSynchronize(s));
	ASSERT_CU(CUDA_SUCCESS, cuStreamDestroy(s));
	ASSERT_CU(CUDA_SUCCESS, cuMemFree(d));
	ASSERT_CU(CUDA_SUCCESS, cuCtxDestroy(ctx));
	ASSERT_EQ(0, trace_read(self));

	pos = self->buf;
	l = EXPECT_NEXT(pos, "cufab_alloc_create", "kind=cuMemAllocManaged");
	ASSERT_NE(NULL, l);
	id = field_u64(l, "id");
	l = EXPECT_NEXT(pos, "cufab_stream_create", "gpu=0");
	ASSERT_NE(NULL, l);
	stream = field_u64(l, "stream");
	EXPECT_NEXT(pos, "cufab_stream_submit", "stream=%llu op=\"attach\"", stream);
	EXPECT_NEXT(pos, "cufab_managed_attach",
		    "id=%llu addr=0x%llx attach=single stream=%llu", id,
		    (unsigned long long)d, stream);
	EXPECT_NEXT(pos, "cufab_stream_complete", "stream=%llu op=\"attach\" err=0",
		    stream);
	EXPECT_NEXT(pos, "cufab_stream_destroy", "stream=%llu", stream);
	EXPECT_NEXT(pos, "cufab_alloc_destroy", "id=%llu", id);
}

TEST_HARNESS_MAIN
