/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * What the other API groups need of the stream-ordered allocator
 * (lib/pool.c).
 */
#ifndef CUFAB_LIB_POOL_H
#define CUFAB_LIB_POOL_H

#include "internal.h"
#include "stream.h"

/* A synchronization completed: trim every pool to its release threshold. */
void cufab_pool_sync(void);
/*
 * cuStreamSynchronize, cuStreamQuery, cuEventSynchronize or cuEventQuery
 * saw stream @s of generation @gen complete its work up to @seq.
 */
void cufab_pool_stream_synced(const struct cufab_lstream *s, __u32 gen,
			      __u64 seq);
/* cuStreamWaitEvent: @waiter's later work runs after @src's up to @seq. */
void cufab_pool_stream_waited(const struct cufab_lstream *waiter,
			      const struct cufab_lstream *src, __u32 gen,
			      __u64 seq);
/*
 * The pool allocation (or imported pointer) holding @ptr: 1 with its
 * pool, start and size, 0 when @ptr is not pool memory of this process.
 */
int cufab_pool_ptr_info(CUdeviceptr ptr, CUmemoryPool *pool, CUdeviceptr *base,
			size_t *size);
/* cuMemFree: free @dptr if it is an imported pool pointer; 1 if it was. */
int cufab_pool_free_imported(CUdeviceptr dptr);
/* A forked child starts without its parent's pools. */
void cufab_pool_reset_locked(void);

#endif /* CUFAB_LIB_POOL_H */
