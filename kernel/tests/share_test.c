// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: FABRIC handles (kernel/share_fabric.c) and the dma-buf exporter
 * (kernel/share_dmabuf.c).
 *
 * The handle format must refuse anything the module did not produce, a
 * forged secret must not find the allocation, the same allocation and
 * channel must give the same handle, and a handle must die with its
 * allocation (the export record holds no reference on it).
 */
#include <kunit/test.h>
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "cufab.h"

/* Linear host memory: no GPU capacity is charged, pages only on touch. */
static struct cufab_alloc *share_test_alloc(struct kunit *test)
{
	const struct cufab_alloc_desc desc = {
		.location_type = CUFAB_LOC_HOST,
		.location_id = -1,
		.handle_types = CUFAB_HANDLE_POSIX_FD | CUFAB_HANDLE_FABRIC,
		.length = 4 * PAGE_SIZE,
		.ops = &cufab_linear_alloc_ops,
	};
	struct cufab_alloc *alloc = cufab_alloc_create(&desc);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, alloc);
	return alloc;
}

static void fabric_encode_decode_roundtrip(struct kunit *test)
{
	u8 secret[CUFAB_FABRIC_SECRET_LEN], buf[CUFAB_FABRIC_HANDLE_LEN];
	const u8 *got;
	u32 id = 0;

	memset(secret, 0xa5, sizeof(secret));
	cufab_fabric_encode(0x12345678, secret, buf);
	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_decode(buf, &id, &got));
	KUNIT_EXPECT_EQ(test, 0x12345678u, id);
	KUNIT_EXPECT_EQ(test, 0, memcmp(secret, got, CUFAB_FABRIC_SECRET_LEN));
	/* little-endian "CFAB" first, whatever the CPU */
	KUNIT_EXPECT_EQ(test, 'C', buf[0]);
	KUNIT_EXPECT_EQ(test, 'F', buf[1]);
	KUNIT_EXPECT_EQ(test, 'A', buf[2]);
	KUNIT_EXPECT_EQ(test, 'B', buf[3]);
}

struct decode_case {
	const char *name;
	unsigned int offset;	/* byte to corrupt */
	u8 value;
	int err;		/* what decoding it gives */
};

/*
 * Bytes 6-7 name the exporting node: another node's handle is well
 * formed, only not importable here without the daemon (fabric_remote.c).
 */
static const struct decode_case decode_cases[] = {
	{ "bad_magic", 0, 0x00, -EINVAL },
	{ "bad_version", 4, 0x02, -EINVAL },
	{ "other_node", 6, 0x01, -EHOSTDOWN },
	{ "id_zero", 8, 0x00, -EINVAL },
	{ "id_past_u32", 12, 0x01, -EINVAL },
};

static void decode_case_desc(const struct decode_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(decode, decode_cases, decode_case_desc);

static void fabric_decode_rejects_foreign(struct kunit *test)
{
	const struct decode_case *c = test->param_value;
	u8 secret[CUFAB_FABRIC_SECRET_LEN] = {}, buf[CUFAB_FABRIC_HANDLE_LEN];
	const u8 *got;
	u32 id;

	/* id 1 so that zeroing byte 8 makes it 0 */
	cufab_fabric_encode(1, secret, buf);
	buf[c->offset] = c->value;
	KUNIT_EXPECT_EQ(test, c->err, cufab_fabric_decode(buf, &id, &got));
}

static void fabric_export_is_stable_per_channel(struct kunit *test)
{
	u8 a[CUFAB_FABRIC_HANDLE_LEN], b[CUFAB_FABRIC_HANDLE_LEN];
	u8 c[CUFAB_FABRIC_HANDLE_LEN];
	struct cufab_alloc *alloc = share_test_alloc(test);
	unsigned long before = cufab_fabric_exports_count();

	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_export(alloc, 3, a));
	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_export(alloc, 3, b));
	KUNIT_EXPECT_EQ(test, 0, memcmp(a, b, sizeof(a)));
	KUNIT_EXPECT_EQ(test, before + 1, cufab_fabric_exports_count());

	/* another channel is another record, with its own id and secret */
	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_export(alloc, 4, c));
	KUNIT_EXPECT_NE(test, 0, memcmp(a, c, sizeof(a)));
	KUNIT_EXPECT_EQ(test, before + 2, cufab_fabric_exports_count());
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_EQ(test, before, cufab_fabric_exports_count());
}

static void fabric_import_finds_alloc_and_channel(struct kunit *test)
{
	u8 h[CUFAB_FABRIC_HANDLE_LEN];
	struct cufab_alloc *alloc = share_test_alloc(test);
	struct cufab_alloc *got;
	int channel = -1;

	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_export(alloc, 7, h));
	got = cufab_fabric_import(h, &channel);
	KUNIT_ASSERT_PTR_EQ(test, alloc, got);
	KUNIT_EXPECT_EQ(test, 7, channel);
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&alloc->ref));
	cufab_alloc_put(got);
	cufab_alloc_put(alloc);
}

static void fabric_import_rejects_forged_secret(struct kunit *test)
{
	u8 h[CUFAB_FABRIC_HANDLE_LEN];
	struct cufab_alloc *alloc = share_test_alloc(test);
	int channel = -1;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_export(alloc, 0, h));
	/* one wrong bit anywhere in the secret is enough */
	for (i = offsetof(struct cufab_fabric_handle, secret);
	     i < CUFAB_FABRIC_HANDLE_LEN; i += 7) {
		h[i] ^= 0x10;
		KUNIT_EXPECT_TRUE(test, IS_ERR(cufab_fabric_import(h, &channel)));
		h[i] ^= 0x10;
	}
	KUNIT_EXPECT_EQ(test, -1, channel);
	cufab_alloc_put(alloc);
}

static void fabric_import_rejects_unknown_id(struct kunit *test)
{
	u8 secret[CUFAB_FABRIC_SECRET_LEN] = {}, h[CUFAB_FABRIC_HANDLE_LEN];
	int channel;

	cufab_fabric_encode(U32_MAX, secret, h);
	KUNIT_EXPECT_PTR_EQ(test, ERR_PTR(-EINVAL),
			    cufab_fabric_import(h, &channel));
}

/* The record holds no reference: the handle dies with the allocation. */
static void fabric_handle_dies_with_alloc(struct kunit *test)
{
	u8 h[CUFAB_FABRIC_HANDLE_LEN];
	struct cufab_alloc *alloc = share_test_alloc(test);
	unsigned long before = cufab_fabric_exports_count();
	int channel;

	KUNIT_ASSERT_EQ(test, 0, cufab_fabric_export(alloc, 1, h));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&alloc->ref));
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_EQ(test, before, cufab_fabric_exports_count());
	KUNIT_EXPECT_PTR_EQ(test, ERR_PTR(-EINVAL),
			    cufab_fabric_import(h, &channel));
}

/*
 * The last put of a dma-buf's file from a kernel thread (KUnit's) is
 * deferred to a work item: wait for it, so the allocation is gone before
 * the case ends and the next suite's object count does not see it.
 */
static void share_test_dmabuf_put(struct dma_buf *dmabuf)
{
	dma_buf_put(dmabuf);
	flush_delayed_fput();
}

/* A dma-buf holds the allocation: it outlives the creator's reference. */
static void dmabuf_holds_alloc(struct kunit *test)
{
	struct cufab_alloc *alloc = share_test_alloc(test);
	struct dma_buf *dmabuf;

	dmabuf = cufab_dmabuf_export(alloc);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_EXPECT_EQ(test, (size_t)alloc->length, dmabuf->size);
	KUNIT_EXPECT_PTR_EQ(test, (void *)alloc, dmabuf->priv);
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&alloc->ref));
	cufab_alloc_put(alloc);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&alloc->ref));
	share_test_dmabuf_put(dmabuf);
}

static void share_test_dev_release(struct device *dev)
{
	kfree(dev);
}

/*
 * A bare device that can do DMA (direct mapping), standing in for the
 * driver that would import the dma-buf. It need not be registered.
 */
static struct device *share_test_dma_device(void)
{
	struct device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		return NULL;
	device_initialize(dev);
	dev->release = share_test_dev_release;
	dev->coherent_dma_mask = DMA_BIT_MASK(64);
	dev->dma_mask = &dev->coherent_dma_mask;
	if (dev_set_name(dev, "cufab_share_test")) {
		put_device(dev);
		return NULL;
	}
	return dev;
}

/*
 * What another driver importing the dma-buf gets: one entry per page, in
 * order, each the allocation's own page, allocated by the mapping.
 */
static void dmabuf_map_gives_every_page(struct kunit *test)
{
	struct cufab_alloc *alloc = share_test_alloc(test);
	struct dma_buf_attachment *at;
	struct scatterlist *sg;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	struct device *dev;
	unsigned int i;

	KUNIT_EXPECT_NULL(test, xa_load(&alloc->pages, 0));
	dev = share_test_dma_device();
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dmabuf = cufab_dmabuf_export(alloc);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, dmabuf);
	if (IS_ERR(dmabuf))
		goto out_dev;
	at = dma_buf_attach(dmabuf, dev);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, at);
	if (IS_ERR(at))
		goto out_buf;
	sgt = dma_buf_map_attachment_unlocked(at, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, sgt);
	if (!IS_ERR(sgt)) {
		KUNIT_EXPECT_EQ(test, 4u, sgt->orig_nents);
		for_each_sgtable_sg(sgt, sg, i) {
			KUNIT_EXPECT_PTR_EQ(test, xa_load(&alloc->pages, i),
					    sg_page(sg));
			KUNIT_EXPECT_NOT_NULL(test, sg_page(sg));
			KUNIT_EXPECT_EQ(test, PAGE_SIZE, sg->length);
		}
		dma_buf_unmap_attachment_unlocked(at, sgt, DMA_BIDIRECTIONAL);
	}
	dma_buf_detach(dmabuf, at);
out_buf:
	share_test_dmabuf_put(dmabuf);
out_dev:
	put_device(dev);
	cufab_alloc_put(alloc);
}

/*
 * The dma-buf of a range: pages of two allocations in the segments'
 * order, each allocation held until the dma-buf goes.
 */
static void dmabuf_range_maps_segments(struct kunit *test)
{
	struct cufab_alloc *a = share_test_alloc(test);
	struct cufab_alloc *b = share_test_alloc(test);
	const struct cufab_dmabuf_seg seg[] = {
		{ .alloc = a, .first = 2, .npages = 2 },
		{ .alloc = b, .first = 0, .npages = 1 },
	};
	struct page *want[] = { NULL, NULL, NULL };
	struct dma_buf_attachment *at;
	struct scatterlist *sg;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	struct device *dev;
	unsigned int i;

	dev = share_test_dma_device();
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dmabuf = cufab_dmabuf_export_range(seg, ARRAY_SIZE(seg));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_EXPECT_EQ(test, 3 * PAGE_SIZE, dmabuf->size);
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&a->ref));
	KUNIT_EXPECT_EQ(test, 2u, kref_read(&b->ref));
	at = dma_buf_attach(dmabuf, dev);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, at);
	if (IS_ERR(at))
		goto out;
	sgt = dma_buf_map_attachment_unlocked(at, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, sgt);
	if (!IS_ERR(sgt)) {
		want[0] = xa_load(&a->pages, 2);
		want[1] = xa_load(&a->pages, 3);
		want[2] = xa_load(&b->pages, 0);
		KUNIT_EXPECT_EQ(test, 3u, sgt->orig_nents);
		for_each_sgtable_sg(sgt, sg, i) {
			KUNIT_EXPECT_NOT_NULL(test, want[i]);
			KUNIT_EXPECT_PTR_EQ(test, want[i], sg_page(sg));
		}
		/* the pages before the range were not touched */
		KUNIT_EXPECT_NULL(test, xa_load(&a->pages, 0));
		dma_buf_unmap_attachment_unlocked(at, sgt, DMA_BIDIRECTIONAL);
	}
	dma_buf_detach(dmabuf, at);
out:
	share_test_dmabuf_put(dmabuf);
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&a->ref));
	KUNIT_EXPECT_EQ(test, 1u, kref_read(&b->ref));
	put_device(dev);
	cufab_alloc_put(b);
	cufab_alloc_put(a);
}

static struct kunit_case cufab_share_cases[] = {
	KUNIT_CASE(fabric_encode_decode_roundtrip),
	KUNIT_CASE_PARAM(fabric_decode_rejects_foreign, decode_gen_params),
	KUNIT_CASE(fabric_export_is_stable_per_channel),
	KUNIT_CASE(fabric_import_finds_alloc_and_channel),
	KUNIT_CASE(fabric_import_rejects_forged_secret),
	KUNIT_CASE(fabric_import_rejects_unknown_id),
	KUNIT_CASE(fabric_handle_dies_with_alloc),
	KUNIT_CASE(dmabuf_holds_alloc),
	KUNIT_CASE(dmabuf_map_gives_every_page),
	KUNIT_CASE(dmabuf_range_maps_segments),
	{}
};

static struct kunit_suite cufab_share_suite = {
	.name = "cufab_share",
	.test_cases = cufab_share_cases,
};

kunit_test_suites(&cufab_share_suite);
