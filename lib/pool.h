/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * What the other API groups need of the stream-ordered allocator
 * (lib/pool.c).
 */
#ifndef CUFAB_LIB_POOL_H
#define CUFAB_LIB_POOL_H

#include "internal.h"
#include "stream.h"

/*
 * The pool allocation (or imported pointer) holding @ptr: 1 with its
 * pool, start and size, 0 when @ptr is not pool memory of this process.
 */
int cufab_pool_ptr_info(CUdeviceptr ptr, CUmemoryPool *pool, CUdeviceptr *base,
			size_t *size);
/* cuMemFree: free @dptr if it is an imported pool pointer; 1 if it was. */
int cufab_pool_free_imported(CUdeviceptr dptr);

#endif /* CUFAB_LIB_POOL_H */
