/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of cufab (events/cufab/ in tracefs): the life of every
 * object a program makes on the fabric, so that perf trace, trace-cmd and
 * bpftrace show what an application does without a debugger.
 *
 * Every event carries pid, the thread group of the process acting (the
 * common_pid of the record is the thread), because the last reference of
 * a shared object may be dropped by another process than its creator:
 * destroy events carry the creator as owner too.
 *
 * Ids are those cufabctl prints: allocations and multicast objects by
 * their node-wide allocation id, endpoints by their node-wide number,
 * teams by their name ("multicast 3", "endpoint 7"), contexts by their
 * per-process id, events by their per-process id, pools by their
 * node-wide id.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cufab

#if !defined(_CUFAB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CUFAB_TRACE_H

#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <linux/cufab.h>

#include "cufab.h"

#define cufab_trace_pid()	task_tgid_nr(current)

DECLARE_EVENT_CLASS(cufab_ctx_class,
	TP_PROTO(u32 ctx, u32 dev),
	TP_ARGS(ctx, dev),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, ctx)
		__field(u32, dev)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->ctx = ctx;
		__entry->dev = dev;
	),
	TP_printk("pid=%d ctx=%u gpu=%u", __entry->pid, __entry->ctx,
		  __entry->dev)
);

DEFINE_EVENT(cufab_ctx_class, cufab_ctx_create,
	TP_PROTO(u32 ctx, u32 dev), TP_ARGS(ctx, dev));
DEFINE_EVENT(cufab_ctx_class, cufab_ctx_destroy,
	TP_PROTO(u32 ctx, u32 dev), TP_ARGS(ctx, dev));

/* Allocations: cuMemCreate, cuMemAlloc and the object of cuMulticastCreate. */
DECLARE_EVENT_CLASS(cufab_alloc_class,
	TP_PROTO(const struct cufab_alloc *alloc),
	TP_ARGS(alloc),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, owner)
		__field(u64, id)
		__field(u64, size)
		__field(s32, gpu)
		__field(u32, handle_types)
		__string(kind, alloc->ops->name)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->owner = alloc->owner_pid;
		__entry->id = alloc->id;
		__entry->size = alloc->length;
		__entry->gpu = alloc->gpu;
		__entry->handle_types = alloc->handle_types;
		__assign_str(kind, alloc->ops->name);
	),
	TP_printk("pid=%d owner=%d id=%llu kind=%s gpu=%d size=%llu handle_types=0x%x",
		  __entry->pid, __entry->owner, __entry->id,
		  __get_str(kind),
		  __entry->gpu, __entry->size, __entry->handle_types)
);

DEFINE_EVENT(cufab_alloc_class, cufab_alloc_create,
	TP_PROTO(const struct cufab_alloc *alloc), TP_ARGS(alloc));
DEFINE_EVENT(cufab_alloc_class, cufab_alloc_destroy,
	TP_PROTO(const struct cufab_alloc *alloc), TP_ARGS(alloc));

/* cuMemExportToShareableHandle / cuMemImportFromShareableHandle */
DECLARE_EVENT_CLASS(cufab_share_class,
	TP_PROTO(const struct cufab_alloc *alloc, u32 handle_type, int channel),
	TP_ARGS(alloc, handle_type, channel),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, id)
		__field(u64, size)
		__field(u32, handle_type)
		__field(int, channel)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->id = alloc->id;
		__entry->size = alloc->length;
		__entry->handle_type = handle_type;
		__entry->channel = channel;
	),
	TP_printk("pid=%d id=%llu size=%llu handle_type=%s channel=%d",
		  __entry->pid, __entry->id, __entry->size,
		  __print_symbolic(__entry->handle_type,
				   { CUFAB_HANDLE_POSIX_FD, "posix_fd" },
				   { CUFAB_HANDLE_FABRIC, "fabric" }),
		  __entry->channel)
);

DEFINE_EVENT(cufab_share_class, cufab_mem_export,
	TP_PROTO(const struct cufab_alloc *alloc, u32 handle_type, int channel),
	TP_ARGS(alloc, handle_type, channel));
DEFINE_EVENT(cufab_share_class, cufab_mem_import,
	TP_PROTO(const struct cufab_alloc *alloc, u32 handle_type, int channel),
	TP_ARGS(alloc, handle_type, channel));

/* cuMemMap / cuMemUnmap (and the unmapping of a dying process). */
DECLARE_EVENT_CLASS(cufab_map_class,
	TP_PROTO(const struct cufab_va_map *map),
	TP_ARGS(map),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, addr)
		__field(u64, size)
		__field(u64, id)
		__field(u64, offset)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->addr = map->start;
		__entry->size = map->length;
		__entry->id = map->alloc->id;
		__entry->offset = map->offset;
	),
	TP_printk("pid=%d addr=0x%llx size=%llu id=%llu offset=%llu",
		  __entry->pid, __entry->addr, __entry->size, __entry->id,
		  __entry->offset)
);

DEFINE_EVENT(cufab_map_class, cufab_mem_map,
	TP_PROTO(const struct cufab_va_map *map), TP_ARGS(map));
DEFINE_EVENT(cufab_map_class, cufab_mem_unmap,
	TP_PROTO(const struct cufab_va_map *map), TP_ARGS(map));

/* A CPU page fault on mapped device memory; ret is the vm_fault_t. */
TRACE_EVENT(cufab_mem_fault,
	TP_PROTO(u64 addr, u64 id, u64 offset, bool write, vm_fault_t ret),
	TP_ARGS(addr, id, offset, write, ret),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, addr)
		__field(u64, id)
		__field(u64, offset)
		__field(bool, write)
		__field(unsigned int, ret)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->addr = addr;
		__entry->id = id;
		__entry->offset = offset;
		__entry->write = write;
		__entry->ret = (__force unsigned int)ret;
	),
	TP_printk("pid=%d addr=0x%llx id=%llu offset=%llu write=%d ret=0x%x",
		  __entry->pid, __entry->addr, __entry->id, __entry->offset,
		  __entry->write, __entry->ret)
);

/* Logical endpoints (cuLogicalEndpointCreate ... the last reference). */
DECLARE_EVENT_CLASS(cufab_le_class,
	TP_PROTO(const struct cufab_le *le),
	TP_ARGS(le),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, owner)
		__field(u64, number)
		__field(u64, size)
		__field(u32, type)
		__field(u32, devices)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->owner = le->creator_pid;
		__entry->number = le->number;
		__entry->size = le->length;
		__entry->type = le->type;
		__entry->devices = le->team->size;
	),
	TP_printk("pid=%d owner=%d endpoint=%llu type=%s devices=%u size=%llu",
		  __entry->pid, __entry->owner, __entry->number,
		  __entry->type == CUFAB_LE_TYPE_UNICAST ? "unicast" : "multicast",
		  __entry->devices, __entry->size)
);

DEFINE_EVENT(cufab_le_class, cufab_le_create,
	TP_PROTO(const struct cufab_le *le), TP_ARGS(le));
DEFINE_EVENT(cufab_le_class, cufab_le_destroy,
	TP_PROTO(const struct cufab_le *le), TP_ARGS(le));
DEFINE_EVENT(cufab_le_class, cufab_le_export,
	TP_PROTO(const struct cufab_le *le), TP_ARGS(le));
DEFINE_EVENT(cufab_le_class, cufab_le_import,
	TP_PROTO(const struct cufab_le *le), TP_ARGS(le));

/* Teams: the devices of a multicast object or multicast endpoint. */
DECLARE_EVENT_CLASS(cufab_team_class,
	TP_PROTO(const struct cufab_team *team, u32 gpu),
	TP_ARGS(team, gpu),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__string(team, team->name)
		__field(u32, gpu)
		__field(u32, joined)
		__field(u32, size)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__assign_str(team, team->name);
		__entry->gpu = gpu;
		__entry->joined = team->joined;
		__entry->size = team->size;
	),
	TP_printk("pid=%d team=\"%s\" gpu=%u joined=%u size=%u",
		  __entry->pid, __get_str(team), __entry->gpu, __entry->joined,
		  __entry->size)
);

DEFINE_EVENT(cufab_team_class, cufab_team_join,
	TP_PROTO(const struct cufab_team *team, u32 gpu), TP_ARGS(team, gpu));
DEFINE_EVENT(cufab_team_class, cufab_team_complete,
	TP_PROTO(const struct cufab_team *team, u32 gpu), TP_ARGS(team, gpu));

/* Bindings of a team's device: [offset, offset + size) -> allocation. */
TRACE_EVENT(cufab_bind,
	TP_PROTO(const struct cufab_team *team, const struct cufab_bind_req *req),
	TP_ARGS(team, req),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__string(team, team->name)
		__field(u32, gpu)
		__field(u64, offset)
		__field(u64, size)
		__field(u64, id)
		__field(u64, mem_offset)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__assign_str(team, team->name);
		__entry->gpu = req->gpu;
		__entry->offset = req->offset;
		__entry->size = req->size;
		__entry->id = req->alloc->id;
		__entry->mem_offset = req->mem_offset;
	),
	TP_printk("pid=%d team=\"%s\" gpu=%u offset=%llu size=%llu id=%llu mem_offset=%llu",
		  __entry->pid, __get_str(team), __entry->gpu, __entry->offset,
		  __entry->size, __entry->id, __entry->mem_offset)
);

/* size 0: every binding of the owner (a process or alias going away). */
TRACE_EVENT(cufab_unbind,
	TP_PROTO(const struct cufab_team *team, u32 gpu, u64 offset, u64 size,
		 u64 count),
	TP_ARGS(team, gpu, offset, size, count),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__string(team, team->name)
		__field(u32, gpu)
		__field(u64, offset)
		__field(u64, size)
		__field(u64, count)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__assign_str(team, team->name);
		__entry->gpu = gpu;
		__entry->offset = offset;
		__entry->size = size;
		__entry->count = count;
	),
	TP_printk("pid=%d team=\"%s\" gpu=%u offset=%llu size=%llu bindings=%llu",
		  __entry->pid, __get_str(team), __entry->gpu, __entry->offset,
		  __entry->size, __entry->count)
);

/* cuCtxEnablePeerAccess / cuCtxDisablePeerAccess (and context teardown). */
DECLARE_EVENT_CLASS(cufab_peer_class,
	TP_PROTO(u32 ctx, u32 dev, u32 peer_ctx, u32 peer_dev),
	TP_ARGS(ctx, dev, peer_ctx, peer_dev),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, ctx)
		__field(u32, dev)
		__field(u32, peer_ctx)
		__field(u32, peer_dev)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->ctx = ctx;
		__entry->dev = dev;
		__entry->peer_ctx = peer_ctx;
		__entry->peer_dev = peer_dev;
	),
	TP_printk("pid=%d ctx=%u gpu=%u peer_ctx=%u peer_gpu=%u",
		  __entry->pid, __entry->ctx, __entry->dev, __entry->peer_ctx,
		  __entry->peer_dev)
);

DEFINE_EVENT(cufab_peer_class, cufab_peer_enable,
	TP_PROTO(u32 ctx, u32 dev, u32 peer_ctx, u32 peer_dev),
	TP_ARGS(ctx, dev, peer_ctx, peer_dev));
DEFINE_EVENT(cufab_peer_class, cufab_peer_disable,
	TP_PROTO(u32 ctx, u32 dev, u32 peer_ctx, u32 peer_dev),
	TP_ARGS(ctx, dev, peer_ctx, peer_dev));

/*
 * Streams: pid is the stream's process (completions run on the GPU's
 * engine thread), stream its node-wide id.
 */
DECLARE_EVENT_CLASS(cufab_stream_class,
	TP_PROTO(const struct cufab_stream *stream),
	TP_ARGS(stream),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, stream)
		__field(u32, ctx)
		__field(u32, dev)
		__field(u32, flags)
		__field(s32, priority)
	),
	TP_fast_assign(
		__entry->pid = pid_nr(stream->client->tgid);
		__entry->stream = stream->uid;
		__entry->ctx = stream->ctx_id;
		__entry->dev = stream->dev;
		__entry->flags = stream->flags;
		__entry->priority = stream->priority;
	),
	TP_printk("pid=%d stream=%llu ctx=%u gpu=%u flags=0x%x priority=%d",
		  __entry->pid, __entry->stream, __entry->ctx, __entry->dev,
		  __entry->flags, __entry->priority)
);

DEFINE_EVENT(cufab_stream_class, cufab_stream_create,
	TP_PROTO(const struct cufab_stream *stream), TP_ARGS(stream));
DEFINE_EVENT(cufab_stream_class, cufab_stream_destroy,
	TP_PROTO(const struct cufab_stream *stream), TP_ARGS(stream));

/* An operation queued on a stream (seq) and its completion (err). */
DECLARE_EVENT_CLASS(cufab_op_class,
	TP_PROTO(const struct cufab_op *op, int err),
	TP_ARGS(op, err),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, stream)
		__field(u64, seq)
		__string(op, op->type->name)
		__field(u32, dev)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->pid = pid_nr(op->stream->client->tgid);
		__entry->stream = op->stream->uid;
		__entry->seq = op->seq;
		__assign_str(op, op->type->name);
		__entry->dev = op->stream->dev;
		__entry->err = err;
	),
	TP_printk("pid=%d stream=%llu seq=%llu op=\"%s\" gpu=%u err=%d",
		  __entry->pid, __entry->stream, __entry->seq, __get_str(op),
		  __entry->dev, __entry->err)
);

DEFINE_EVENT(cufab_op_class, cufab_stream_submit,
	TP_PROTO(const struct cufab_op *op, int err), TP_ARGS(op, err));
DEFINE_EVENT(cufab_op_class, cufab_stream_complete,
	TP_PROTO(const struct cufab_op *op, int err), TP_ARGS(op, err));

/*
 * Events (cuEventCreate, cuIpcGetEventHandle, cuIpcOpenEventHandle, the
 * handle's release): event is the process's event id, slot its completion
 * slot, export_id its node-wide export (0: not exported). Records and
 * waits are stream operations (cufab_stream_submit, op "record").
 */
DECLARE_EVENT_CLASS(cufab_event_class,
	TP_PROTO(u32 id, const struct cufab_event *event),
	TP_ARGS(id, event),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, id)
		__field(u32, ctx)
		__field(u32, slot)
		__field(u32, flags)
		__field(u32, export_id)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->id = id;
		__entry->ctx = event->ctx_id;
		__entry->slot = event->slot;
		__entry->flags = event->flags;
		__entry->export_id = event->export_id;
	),
	TP_printk("pid=%d event=%u ctx=%u slot=%u flags=0x%x export_id=%u",
		  __entry->pid, __entry->id, __entry->ctx, __entry->slot,
		  __entry->flags, __entry->export_id)
);

DEFINE_EVENT(cufab_event_class, cufab_event_create,
	TP_PROTO(u32 id, const struct cufab_event *event), TP_ARGS(id, event));
DEFINE_EVENT(cufab_event_class, cufab_event_destroy,
	TP_PROTO(u32 id, const struct cufab_event *event), TP_ARGS(id, event));
DEFINE_EVENT(cufab_event_class, cufab_event_export,
	TP_PROTO(u32 id, const struct cufab_event *event), TP_ARGS(id, event));
DEFINE_EVENT(cufab_event_class, cufab_event_import,
	TP_PROTO(u32 id, const struct cufab_event *event), TP_ARGS(id, event));

/*
 * Memory pools (cuMemPoolCreate, a device's default pool, the last
 * reference: its objects and chunks): pool is the node-wide pool id.
 */
/* so that perf and trace-cmd can decode the location names */
TRACE_DEFINE_ENUM(CUFAB_LOC_DEVICE);
TRACE_DEFINE_ENUM(CUFAB_LOC_HOST);
TRACE_DEFINE_ENUM(CUFAB_LOC_HOST_NUMA);

DECLARE_EVENT_CLASS(cufab_pool_class,
	TP_PROTO(u32 pool, u32 location_type, s32 location_id, u64 max_size,
		 pid_t owner),
	TP_ARGS(pool, location_type, location_id, max_size, owner),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, owner)
		__field(u32, pool)
		__field(u32, location_type)
		__field(s32, location_id)
		__field(u64, max_size)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->owner = owner;
		__entry->pool = pool;
		__entry->location_type = location_type;
		__entry->location_id = location_id;
		__entry->max_size = max_size;
	),
	TP_printk("pid=%d owner=%d pool=%u location=%s location_id=%d max_size=%llu",
		  __entry->pid, __entry->owner, __entry->pool,
		  __print_symbolic(__entry->location_type,
				   { CUFAB_LOC_DEVICE, "device" },
				   { CUFAB_LOC_HOST, "host" },
				   { CUFAB_LOC_HOST_NUMA, "host_numa" }),
		  __entry->location_id, __entry->max_size)
);

DEFINE_EVENT(cufab_pool_class, cufab_pool_create,
	TP_PROTO(u32 pool, u32 location_type, s32 location_id, u64 max_size,
		 pid_t owner),
	TP_ARGS(pool, location_type, location_id, max_size, owner));
DEFINE_EVENT(cufab_pool_class, cufab_pool_destroy,
	TP_PROTO(u32 pool, u32 location_type, s32 location_id, u64 max_size,
		 pid_t owner),
	TP_ARGS(pool, location_type, location_id, max_size, owner));

/* cuMemPoolExportToShareableHandle / cuMemPoolImportFromShareableHandle */
DECLARE_EVENT_CLASS(cufab_pool_share_class,
	TP_PROTO(u32 pool, u32 handle_type),
	TP_ARGS(pool, handle_type),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, pool)
		__field(u32, handle_type)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->pool = pool;
		__entry->handle_type = handle_type;
	),
	TP_printk("pid=%d pool=%u handle_type=%s", __entry->pid, __entry->pool,
		  __print_symbolic(__entry->handle_type,
				   { CUFAB_HANDLE_POSIX_FD, "posix_fd" },
				   { CUFAB_HANDLE_FABRIC, "fabric" }))
);

DEFINE_EVENT(cufab_pool_share_class, cufab_pool_export,
	TP_PROTO(u32 pool, u32 handle_type), TP_ARGS(pool, handle_type));
DEFINE_EVENT(cufab_pool_share_class, cufab_pool_import,
	TP_PROTO(u32 pool, u32 handle_type), TP_ARGS(pool, handle_type));

/*
 * A pool grows by a chunk (an allocation, id, which cufab_alloc_destroy
 * ends) that cuMemAllocAsync sub-allocates from in the library.
 */
TRACE_EVENT(cufab_pool_grow,
	TP_PROTO(u32 pool, u64 id, u64 size, u64 addr),
	TP_ARGS(pool, id, size, addr),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, pool)
		__field(u64, id)
		__field(u64, size)
		__field(u64, addr)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->pool = pool;
		__entry->id = id;
		__entry->size = size;
		__entry->addr = addr;
	),
	TP_printk("pid=%d pool=%u id=%llu size=%llu addr=0x%llx",
		  __entry->pid, __entry->pool, __entry->id, __entry->size,
		  __entry->addr)
);

/* cuMemPoolExportPointer / cuMemPoolImportPointer: bytes of chunk id. */
DECLARE_EVENT_CLASS(cufab_pool_ptr_class,
	TP_PROTO(u32 pool, u32 ptr, u64 id, u64 offset, u64 size),
	TP_ARGS(pool, ptr, id, offset, size),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u32, pool)
		__field(u32, ptr)
		__field(u64, id)
		__field(u64, offset)
		__field(u64, size)
	),
	TP_fast_assign(
		__entry->pid = cufab_trace_pid();
		__entry->pool = pool;
		__entry->ptr = ptr;
		__entry->id = id;
		__entry->offset = offset;
		__entry->size = size;
	),
	TP_printk("pid=%d pool=%u ptr=%u id=%llu offset=%llu size=%llu",
		  __entry->pid, __entry->pool, __entry->ptr, __entry->id,
		  __entry->offset, __entry->size)
);

DEFINE_EVENT(cufab_pool_ptr_class, cufab_pool_ptr_export,
	TP_PROTO(u32 pool, u32 ptr, u64 id, u64 offset, u64 size),
	TP_ARGS(pool, ptr, id, offset, size));
DEFINE_EVENT(cufab_pool_ptr_class, cufab_pool_ptr_import,
	TP_PROTO(u32 pool, u32 ptr, u64 id, u64 offset, u64 size),
	TP_ARGS(pool, ptr, id, offset, size));

/*
 * cuStreamAttachMemAsync on managed memory takes effect: the stream has
 * reached the operation (pid is the stream's process).
 */
TRACE_EVENT(cufab_managed_attach,
	TP_PROTO(const struct cufab_op *op),
	TP_ARGS(op),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, id)
		__field(u64, size)
		__field(u64, addr)
		__field(u32, attach)
		__field(u64, stream)
	),
	TP_fast_assign(
		__entry->pid = pid_nr(op->stream->client->tgid);
		__entry->id = op->u.attach.alloc->id;
		__entry->size = op->u.attach.alloc->length;
		__entry->addr = op->u.attach.addr;
		__entry->attach = op->u.attach.flags;
		__entry->stream = op->stream->uid;
	),
	TP_printk("pid=%d id=%llu size=%llu addr=0x%llx attach=%s stream=%llu",
		  __entry->pid, __entry->id, __entry->size, __entry->addr,
		  __print_symbolic(__entry->attach,
				   { CUFAB_ATTACH_GLOBAL, "global" },
				   { CUFAB_ATTACH_HOST, "host" },
				   { CUFAB_ATTACH_SINGLE, "single" }),
		  __entry->stream)
);

#endif /* _CUFAB_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src)/kernel. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
