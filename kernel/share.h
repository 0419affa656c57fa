/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sharing allocations between processes: cuMemExportToShareableHandle and
 * cuMemImportFromShareableHandle.
 *
 * POSIX_FD handles are dma-bufs (share_dmabuf.c), so any dma-buf importer
 * in the kernel could use the memory too. FABRIC handles are 64 bytes that
 * name a record of the node-wide export table (share_fabric.c) and carry a
 * random secret; they are checked against IMEX channels (imex.c).
 */
#ifndef _CUFAB_SHARE_H
#define _CUFAB_SHARE_H

#include <linux/types.h>
#include <linux/cufab.h>

struct cufab_alloc;
struct cufab_ucmd;
struct dma_buf;
struct seq_file;

/*
 * The 64 bytes of a FABRIC handle. Only the kernel interprets them; the
 * layout is versioned so that a handle of another module version is
 * refused cleanly instead of being misread.
 */
#define CUFAB_FABRIC_MAGIC		0x42414643	/* "CFAB" */
#define CUFAB_FABRIC_LE_MAGIC		0x454c4643	/* "CFLE": endpoints */
#define CUFAB_FABRIC_VERSION		1
#define CUFAB_FABRIC_SECRET_LEN		48

struct cufab_fabric_handle {
	__le32 magic;
	__le16 version;
	__le16 __reserved;
	__le64 export_id;
	u8 secret[CUFAB_FABRIC_SECRET_LEN];
};

/* share_fabric.c: the node-wide FABRIC export table */
void cufab_fabric_encode_as(u32 magic, u32 export_id,
			    const u8 secret[CUFAB_FABRIC_SECRET_LEN],
			    u8 out[CUFAB_FABRIC_HANDLE_LEN]);
int cufab_fabric_decode_as(u32 magic, const u8 in[CUFAB_FABRIC_HANDLE_LEN],
			   u32 *export_id, const u8 **secret);
/* Constant-time comparison of two CUFAB_FABRIC_SECRET_LEN secrets. */
bool cufab_fabric_secret_ok(const u8 *a, const u8 *b);
void cufab_fabric_encode(u32 export_id,
			 const u8 secret[CUFAB_FABRIC_SECRET_LEN],
			 u8 out[CUFAB_FABRIC_HANDLE_LEN]);
int cufab_fabric_decode(const u8 in[CUFAB_FABRIC_HANDLE_LEN], u32 *export_id,
			const u8 **secret);
int cufab_fabric_export(struct cufab_alloc *alloc, int channel,
			u8 out[CUFAB_FABRIC_HANDLE_LEN]);
struct cufab_alloc *cufab_fabric_import(const u8 in[CUFAB_FABRIC_HANDLE_LEN],
					int *channel);
unsigned long cufab_fabric_exports_count(void);
void cufab_fabric_show(struct seq_file *m);
void cufab_fabric_exit(void);

/* share_dmabuf.c: POSIX_FD handles */
struct dma_buf *cufab_dmabuf_export(struct cufab_alloc *alloc);
struct cufab_alloc *cufab_dmabuf_to_alloc(int fd);

/* share.c: ioctls */
int cufab_ioctl_mem_export(struct cufab_ucmd *ucmd);
int cufab_ioctl_mem_import(struct cufab_ucmd *ucmd);

#endif /* _CUFAB_SHARE_H */
