// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Events: cuEventCreate, Record, Query, Synchronize, ElapsedTime, Destroy,
 * cuStreamWaitEvent.
 *
 * A CUevent names an entry of a fixed table like a CUstream does. A record
 * is a stream operation that, when the engine reaches it, stores the
 * record's number and the time in the event's slot; Query compares the
 * slot with the last record this process made and ElapsedTime subtracts
 * the times of two slots, neither with a syscall. Synchronize waits in
 * the kernel; without CU_EVENT_BLOCKING_SYNC it first yields the CPU a
 * few times, as a spinning wait would, since short waits are common.
 *
 * cuIpcGetEventHandle and cuIpcOpenEventHandle pass the kernel's 64-byte
 * handle through unchanged (CUFAB_IOCTL_EVENT_EXPORT / _IMPORT).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "graph.h"
#include "stream.h"

#define EVENT_SPINS	64

/*
 * An INTERPROCESS event (made here or imported) is recorded by other
 * processes too, and an imported one has no slot here: its state is asked
 * of the kernel, which knows every process's records.
 */
struct cufab_levent {
	__u32 gen;
	__u32 live;
	__u32 kid;
	__u32 slot;
	__u32 ctx_kid;
	unsigned int flags;	/* CU_EVENT_* */
	__u64 last;		/* number of the last record (atomic) */
	__u32 next_free;
	/* the last record: on this stream, of this generation, at this seq */
	const struct cufab_lstream *rec_stream;
	__u32 rec_gen;
	__u64 rec_seq;
	struct cufab_capev capev;	/* last recorded in a capture */
};

static struct cufab_levent events[CUFAB_LIB_MAX_EVENTS];
static __u32 events_free_head;
static __u32 events_used;

#define EVENT_FLAGS	(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | \
			 CU_EVENT_INTERPROCESS)

/* Handles: generation high, slot + 1 shifted; low bits 0b10. */
static CUevent event_handle(__u32 idx, __u32 gen)
{
	return (CUevent)(uintptr_t)(((__u64)gen << 32) |
				    ((__u64)(idx + 1) << 2) | 2);
}

static struct cufab_levent *event_lookup(CUevent h)
{
	__u64 v = (uintptr_t)h;
	__u32 idx = (__u32)(v >> 2) & 0x3fffffff;
	struct cufab_levent *e;

	if ((v & 3) != 2 || !idx || idx > CUFAB_LIB_MAX_EVENTS)
		return NULL;
	e = &events[idx - 1];
	if (!__atomic_load_n(&e->live, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&e->gen, __ATOMIC_RELAXED) != (__u32)(v >> 32))
		return NULL;
	return e;
}

static void event_free_locked(struct cufab_levent *e)
{
	__atomic_store_n(&e->live, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&e->gen, 1, __ATOMIC_RELEASE);
	e->next_free = events_free_head;
	events_free_head = (e - events) + 1;
}

static void event_kernel_destroy(__u32 kid)
{
	struct cufab_destroy arg = { .size = sizeof(arg), .id = kid };

	cufab_ioctl(CUFAB_IOCTL_DESTROY, &arg);
}

/* A table entry for kernel event @kid; on failure the kernel's goes. */
static CUresult event_register(CUevent *phEvent, __u32 kid, __u32 slot,
			       __u32 ctx_kid, unsigned int flags)
{
	struct cufab_levent *e;
	__u32 idx;

	pthread_mutex_lock(&cufab_stream_lock);
	if (events_free_head) {
		idx = events_free_head - 1;
		events_free_head = events[idx].next_free;
	} else if (events_used < CUFAB_LIB_MAX_EVENTS) {
		idx = events_used++;
	} else {
		pthread_mutex_unlock(&cufab_stream_lock);
		event_kernel_destroy(kid);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	e = &events[idx];
	e->kid = kid;
	e->slot = slot;
	e->ctx_kid = ctx_kid;
	e->flags = flags;
	e->last = 0;
	e->rec_stream = NULL;
	e->rec_gen = 0;
	e->rec_seq = 0;
	memset(&e->capev, 0, sizeof(e->capev));
	__atomic_store_n(&e->live, 1, __ATOMIC_RELEASE);
	*phEvent = event_handle(idx, e->gen);
	pthread_mutex_unlock(&cufab_stream_lock);
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent,
					    unsigned int Flags)
{
	struct cufab_event_create arg = { .size = sizeof(arg) };
	CUresult res;
	int ret;

	res = cufab_call_args(!!phEvent);
	if (res != CUDA_SUCCESS)
		return res;
	if (Flags & ~(unsigned int)EVENT_FLAGS) {
		cufab_dbg("refused: Flags 0x%x: unknown bits (CU_EVENT_* are 0x%x)",
			  Flags, (unsigned int)EVENT_FLAGS);
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* an interprocess event cannot be timed */
	if ((Flags & CU_EVENT_INTERPROCESS) &&
	    !(Flags & CU_EVENT_DISABLE_TIMING)) {
		cufab_dbg("refused: Flags 0x%x: CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING too",
			  Flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	res = cufab_ctx_current_kid(&arg.ctx_id);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_lock);
	res = cufab_slots_map();
	pthread_mutex_unlock(&cufab_lock);
	if (res != CUDA_SUCCESS)
		return res;
	if (Flags & CU_EVENT_DISABLE_TIMING)
		arg.flags |= CUFAB_EVENT_DISABLE_TIMING;
	if (Flags & CU_EVENT_INTERPROCESS)
		arg.flags |= CUFAB_EVENT_INTERPROCESS;
	ret = cufab_ioctl(CUFAB_IOCTL_EVENT_CREATE, &arg);
	if (ret)
		return ret == -ENOSPC ? CUDA_ERROR_OUT_OF_MEMORY :
		       ret == -ENOENT ? CUDA_ERROR_INVALID_CONTEXT :
		       cufab_errno_result(-ret);
	return event_register(phEvent, arg.out_event_id, arg.out_slot,
			      arg.ctx_id, Flags);
}

/* The prologue of the calls on one event: the live event behind @h. */
static CUresult event_arg(CUevent h, struct cufab_levent **e)
{
	CUresult res = cufab_call_args(1);

	if (res != CUDA_SUCCESS)
		return res;
	*e = event_lookup(h);
	if (*e)
		return CUDA_SUCCESS;
	cufab_dbg("refused: event %p: not a live event of this process (destroyed, or never created)",
		  (void *)h);
	return CUDA_ERROR_INVALID_HANDLE;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
	struct cufab_levent *e;
	__u32 kid;
	CUresult res;

	res = cufab_call_args(1);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&cufab_stream_lock);
	e = event_lookup(hEvent);
	if (!e) {
		pthread_mutex_unlock(&cufab_stream_lock);
		cufab_dbg("refused: event %p: not a live event of this process (destroyed, or never created)",
			  (void *)hEvent);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	kid = e->kid;
	if (e->capev.cap_id)
		cufab_capture_event_clear(&e->capev);
	event_free_locked(e);
	pthread_mutex_unlock(&cufab_stream_lock);
	/* a pending record still completes: it holds the kernel event */
	event_kernel_destroy(kid);
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
	return cuEventDestroy_v2(hEvent);
}

static CUresult record(CUevent hEvent, CUstream hStream, int pt,
		       unsigned int flags)
{
	struct cufab_stream_submit arg = { .op = CUFAB_OP_EVENT_RECORD };
	struct cufab_lstream *s;
	struct cufab_levent *e;
	CUresult res;

	res = event_arg(hEvent, &e);
	if (res != CUDA_SUCCESS)
		return res;
	/* EXTERNAL: a record node in a capture, refused outside one */
	if (flags & ~(unsigned int)CU_EVENT_RECORD_EXTERNAL) {
		cufab_dbg("refused: flags 0x%x: must be 0 or CU_EVENT_RECORD_EXTERNAL (0x1)",
			  flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	res = cufab_stream_resolve(hStream, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	if (s->ctx_kid != e->ctx_kid) {
		cufab_dbg("refused: event %p: of context %u, stream %p of context %u: an event records on its own context's streams",
			  (void *)hEvent, e->ctx_kid, (void *)hStream,
			  s->ctx_kid);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	if (cufab_capture_any()) {
		int handled = 0;

		res = cufab_capture_record(s, &e->capev, hEvent,
					   flags & CU_EVENT_RECORD_EXTERNAL,
					   &handled);
		if (handled)
			return res;
	}
	if (flags) {
		cufab_dbg("refused: flags 0x%x: CU_EVENT_RECORD_EXTERNAL is for a stream being captured",
			  flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (e->capev.cap_id)
		cufab_capture_event_clear(&e->capev);
	arg.event_id = e->kid;
	res = cufab_stream_submit(s, &arg);
	if (res == CUDA_SUCCESS) {
		e->rec_stream = s;
		e->rec_gen = s->gen;
		e->rec_seq = arg.out_seq;
		cufab_atomic_max(&e->last, arg.out_event_seq);
	}
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	return record(hEvent, hStream, 0, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent,
						 CUstream hStream)
{
	return record(hEvent, hStream, 1, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent,
						     CUstream hStream,
						     unsigned int flags)
{
	return record(hEvent, hStream, 0, flags);
}

CUFAB_EXPORT CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent,
							  CUstream hStream,
							  unsigned int flags)
{
	return record(hEvent, hStream, 1, flags);
}

/* The kernel's answer for an interprocess event; @flags CUFAB_WAIT_*. */
static CUresult event_kernel_wait(struct cufab_levent *e, __u32 flags)
{
	struct cufab_stream_wait arg = {
		.size = sizeof(arg), .what = CUFAB_WAIT_EVENT,
		.flags = flags, .id = e->kid,
	};
	int ret;

	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_WAIT, &arg);
	if (ret == -EAGAIN)
		return CUDA_ERROR_NOT_READY;
	if (ret)
		return cufab_submit_result(-ret);
	return arg.out_error ? cufab_async_result(-arg.out_error) :
	       CUDA_SUCCESS;
}

/* Never recorded: done. */
static CUresult event_query(struct cufab_levent *e)
{
	__u64 last = __atomic_load_n(&e->last, __ATOMIC_ACQUIRE);
	int err;

	if (e->flags & CU_EVENT_INTERPROCESS)
		return event_kernel_wait(e, CUFAB_WAIT_POLL);
	if (!cufab_slot_done(e->slot, last))
		return CUDA_ERROR_NOT_READY;
	err = last ? __atomic_load_n(&cufab_slots[e->slot].error,
				     __ATOMIC_RELAXED) : 0;
	return err ? cufab_async_result(-err) : CUDA_SUCCESS;
}

/* Seen done: what its stream freed before the record serves others. */
static CUresult event_seen(const struct cufab_levent *e, CUresult res)
{
	if (res == CUDA_SUCCESS)
		cufab_sync_stream_done(e->rec_stream, e->rec_gen, e->rec_seq);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	struct cufab_levent *e;
	CUresult res;

	res = event_arg(hEvent, &e);
	if (res != CUDA_SUCCESS)
		return res;
	/* last recorded in a capture: it has no completion to query */
	if (e->capev.cap_id)
		return CUDA_ERROR_CAPTURED_EVENT;
	return event_seen(e, event_query(e));
}

CUFAB_EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	struct cufab_stream_wait arg = {
		.size = sizeof(arg), .what = CUFAB_WAIT_EVENT,
	};
	struct cufab_levent *e;
	CUresult res;
	int i, ret;

	res = event_arg(hEvent, &e);
	if (res != CUDA_SUCCESS)
		return res;
	if (e->capev.cap_id)
		return CUDA_ERROR_CAPTURED_EVENT;
	res = event_query(e);
	if (!(e->flags & CU_EVENT_BLOCKING_SYNC))
		for (i = 0; i < EVENT_SPINS && res == CUDA_ERROR_NOT_READY;
		     i++) {
			sched_yield();
			res = event_query(e);
		}
	if (res != CUDA_ERROR_NOT_READY)
		return event_seen(e, res);
	if (e->flags & CU_EVENT_INTERPROCESS)
		return event_seen(e, event_kernel_wait(e, 0));
	arg.id = e->kid;
	arg.seq = __atomic_load_n(&e->last, __ATOMIC_ACQUIRE);
	ret = cufab_ioctl(CUFAB_IOCTL_STREAM_WAIT, &arg);
	if (ret)
		return cufab_submit_result(-ret);
	return event_seen(e, arg.out_error ?
			  cufab_async_result(-arg.out_error) : CUDA_SUCCESS);
}

/*
 * The time of an event's last record: CUDA_ERROR_INVALID_HANDLE for an
 * untimed or never recorded event, NOT_READY while it is pending.
 */
static CUresult event_time(CUevent h, __u64 *ns)
{
	struct cufab_levent *e = event_lookup(h);
	CUresult res;

	if (!e || (e->flags & CU_EVENT_DISABLE_TIMING) ||
	    !__atomic_load_n(&e->last, __ATOMIC_ACQUIRE)) {
		cufab_dbg("refused: event %p: %s", (void *)h,
			  !e ? "not a live event of this process" :
			  e->flags & CU_EVENT_DISABLE_TIMING ?
			  "created with CU_EVENT_DISABLE_TIMING: it has no time" :
			  "never recorded: it has no time");
		return CUDA_ERROR_INVALID_HANDLE;
	}
	res = event_query(e);
	if (res == CUDA_SUCCESS)
		*ns = __atomic_load_n(&cufab_slots[e->slot].time_ns,
				      __ATOMIC_RELAXED);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds,
						    CUevent hStart,
						    CUevent hEnd)
{
	__u64 start, end;
	CUresult res;

	res = cufab_call_args(!!pMilliseconds);
	if (res != CUDA_SUCCESS)
		return res;
	res = event_time(hStart, &start);
	if (res == CUDA_SUCCESS)
		res = event_time(hEnd, &end);
	if (res == CUDA_SUCCESS)
		*pMilliseconds = (float)((double)(__s64)(end - start) / 1e6);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds,
						 CUevent hStart, CUevent hEnd)
{
	return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

static CUresult wait_event(CUstream hStream, CUevent hEvent,
			   unsigned int flags, int pt)
{
	struct cufab_stream_submit arg = { .op = CUFAB_OP_EVENT_WAIT };
	struct cufab_lstream *s;
	struct cufab_levent *e;
	CUresult res;

	res = cufab_stream_resolve(hStream, pt, &s);
	if (res != CUDA_SUCCESS)
		return res;
	e = event_lookup(hEvent);
	if (!e) {
		cufab_dbg("refused: event %p: not a live event of this process (destroyed, or never created)",
			  (void *)hEvent);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	/* EXTERNAL: a wait node in a capture, refused outside one */
	if (flags & ~(unsigned int)CU_EVENT_WAIT_EXTERNAL) {
		cufab_dbg("refused: Flags 0x%x: must be 0 or CU_EVENT_WAIT_EXTERNAL (0x1)",
			  flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (cufab_capture_any() || e->capev.cap_id) {
		int handled = 0;

		res = cufab_capture_wait(s, &e->capev, hEvent,
					 flags & CU_EVENT_WAIT_EXTERNAL,
					 &handled);
		if (handled)
			return res;
	}
	if (flags) {
		cufab_dbg("refused: Flags 0x%x: CU_EVENT_WAIT_EXTERNAL is for a stream being captured",
			  flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	/*
	 * A finished (or never recorded) event: nothing to wait for. The
	 * kernel looks for itself at an interprocess event, whatever the
	 * other process recorded.
	 */
	arg.event_id = e->kid;
	res = !(e->flags & CU_EVENT_INTERPROCESS) &&
	      event_query(e) != CUDA_ERROR_NOT_READY ? CUDA_SUCCESS :
	      cufab_stream_submit(s, &arg);
	/* REUSE_FOLLOW_EVENT_DEPENDENCIES: @s may take what was freed there */
	if (res == CUDA_SUCCESS)
		cufab_sync_stream_waited(s, e->rec_stream, e->rec_gen,
					 e->rec_seq);
	return res;
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream,
						CUevent hEvent,
						unsigned int Flags)
{
	return wait_event(hStream, hEvent, Flags, 0);
}

CUFAB_EXPORT CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream,
						     CUevent hEvent,
						     unsigned int Flags)
{
	return wait_event(hStream, hEvent, Flags, 1);
}

CUFAB_EXPORT CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle,
						  CUevent event)
{
	struct cufab_event_export arg = { .size = sizeof(arg) };
	struct cufab_levent *e;
	int ret;
	CUresult res;

	res = event_arg(event, &e);
	if (res != CUDA_SUCCESS)
		return res;
	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	if (!(e->flags & CU_EVENT_INTERPROCESS)) {
		cufab_dbg("refused: event %p: Flags 0x%x: created without CU_EVENT_INTERPROCESS",
			  (void *)event, e->flags);
		return CUDA_ERROR_INVALID_VALUE;
	}
	arg.event_id = e->kid;
	ret = cufab_ioctl(CUFAB_IOCTL_EVENT_EXPORT, &arg);
	if (ret)
		/* ESRCH: an imported event whose exporter has destroyed it */
		return ret == -ESRCH ? CUDA_ERROR_INVALID_HANDLE :
		       cufab_submit_result(-ret);
	_Static_assert(sizeof(pHandle->reserved) == sizeof(arg.out_handle),
		       "CUipcEventHandle is the kernel's handle");
	memcpy(pHandle->reserved, arg.out_handle, sizeof(arg.out_handle));
	return CUDA_SUCCESS;
}

CUFAB_EXPORT CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent,
						   CUipcEventHandle handle)
{
	struct cufab_event_import arg = { .size = sizeof(arg) };
	CUresult res;
	int ret;

	res = cufab_call_args(!!phEvent);
	if (res != CUDA_SUCCESS)
		return res;
	res = cufab_ctx_current_kid(&arg.ctx_id);
	if (res != CUDA_SUCCESS)
		return res;
	memcpy(arg.handle, handle.reserved, sizeof(arg.handle));
	ret = cufab_ioctl(CUFAB_IOCTL_EVENT_IMPORT, &arg);
	res = cufab_result(CUFAB_ERRMAP_IPC_EVENT_IMPORT, -ret);
	if (res != CUDA_SUCCESS)
		return res;
	/* it behaves like a local event created with DISABLE_TIMING */
	return event_register(phEvent, arg.out_event_id, 0, arg.ctx_id,
			      CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS);
}

/* As cufab_streams_forget_ctx(): a batch at a time, no allocation. */
void cufab_events_forget_ctx(__u32 ctx_kid)
{
	__u32 i = 0, kids[CUFAB_FORGET_BATCH], nk, k;
	int done;

	pthread_mutex_lock(&cufab_stream_lock);
	for (;;) {
		for (nk = 0; i < events_used && nk < CUFAB_FORGET_BATCH; i++) {
			struct cufab_levent *e = &events[i];

			if (!e->live || e->ctx_kid != ctx_kid)
				continue;
			kids[nk++] = e->kid;
			event_free_locked(e);
		}
		done = i >= events_used;
		pthread_mutex_unlock(&cufab_stream_lock);
		for (k = 0; k < nk; k++)
			event_kernel_destroy(kids[k]);
		if (done)
			break;
		pthread_mutex_lock(&cufab_stream_lock);
	}
}

void cufab_events_reset_locked(void)
{
	__u32 i;

	for (i = 0; i < events_used; i++) {
		events[i].live = 0;
		events[i].gen++;
	}
	events_used = 0;
	events_free_head = 0;
}

/* Graphs (graph.c): the kernel event behind @h and its context. */
CUresult cufab_event_info(CUevent h, __u32 *kid, __u32 *ctx_kid)
{
	struct cufab_levent *e = event_lookup(h);

	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	*kid = e->kid;
	*ctx_kid = e->ctx_kid;
	return CUDA_SUCCESS;
}

/* A graph launch on @s recorded @h: as cuEventRecord would note it. */
void cufab_event_recorded(CUevent h, struct cufab_lstream *s, __u64 seq,
			  __u64 event_seq)
{
	struct cufab_levent *e = event_lookup(h);

	if (!e)
		return;
	if (e->capev.cap_id)
		cufab_capture_event_clear(&e->capev);
	e->rec_stream = s;
	e->rec_gen = s->gen;
	e->rec_seq = seq;
	cufab_atomic_max(&e->last, event_seq);
}
