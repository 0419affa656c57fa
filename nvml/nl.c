// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * The NVML library's only way to the kernel: one TOPO_GET of the "cufab"
 * generic netlink family (the node and every GPU, as cufabctl sees them),
 * or for a query about one device one DEV_GET of its GPU, over a plain
 * netlink socket so that the library needs nothing but libc.
 *
 * NVML never opens /dev/cufab: it is not a CUDA client, so holding NVML
 * initialised does not stop an administrator's DEV_SET or TOPO_SET, and
 * every answer is read again from the kernel when it is asked for.
 *
 * The socket, the family's id and the reply buffer are kept from one
 * query to the next (a query was socket, bind, a family lookup, the
 * request and close: four syscalls and a round trip more than the request
 * itself). A process that forked opens its own (the parent's socket
 * would get its replies too); a family id gone stale (the module reloaded)
 * is looked up again once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nvml_internal.h"

/* A TOPO_GET reply for CUFAB_MAX_GPUS GPUs is about 16 KiB. */
#define NL_BUF_SIZE	(64 * 1024)

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

static struct nlattr *nla_first(void *start)
{
	return start;
}

static int nla_ok(const struct nlattr *a, int rem)
{
	return rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= rem;
}

static struct nlattr *nla_next(const struct nlattr *a, int *rem)
{
	int len = NLA_ALIGN(a->nla_len);

	*rem -= len;
	return (struct nlattr *)((char *)a + len);
}

/* The kernel marks nests with NLA_F_NESTED. */
static int nla_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static void *nla_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static int nla_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static __u32 nla_u32(const struct nlattr *a)
{
	__u32 v = 0;

	if (nla_len(a) >= (int)sizeof(v))
		memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

static __u64 nla_u64(const struct nlattr *a)
{
	__u64 v = 0;

	if (nla_len(a) >= (int)sizeof(v))
		memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

/* Copies a string attribute into @dst of @size bytes, NUL-terminated. */
static void nla_str(const struct nlattr *a, char *dst, size_t size)
{
	size_t n = nla_len(a) > 0 ? (size_t)nla_len(a) : 0;

	if (n >= size)
		n = size - 1;
	memcpy(dst, nla_data(a), n);
	dst[n] = '\0';
}

/*
 * One request and its single reply message: the reply is left in @buf.
 * Returns the reply's length, or -errno (the kernel's, for an error
 * message).
 */
static int nl_exchange(int fd, struct nl_req *req, char *buf)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h;
	ssize_t len;

	if (sendto(fd, req, req->n.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		len = recv(fd, buf, NL_BUF_SIZE, MSG_TRUNC);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (len > NL_BUF_SIZE)
			return -EMSGSIZE;
		h = (struct nlmsghdr *)buf;
		if (!NLMSG_OK(h, (size_t)len))
			return -EBADMSG;
		if (h->nlmsg_seq != req->n.nlmsg_seq)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			return e->error ? e->error : -ENOMSG;
		}
		return (int)h->nlmsg_len;
	}
}

static void nl_req_init(struct nl_req *req, __u16 family, __u8 cmd, __u32 seq)
{
	memset(req, 0, sizeof(*req));
	req->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req->n.nlmsg_type = family;
	req->n.nlmsg_flags = NLM_F_REQUEST;
	req->n.nlmsg_seq = seq;
	req->g.cmd = cmd;
	req->g.version = 1;
}

/* The family's id, or -ENOENT when the module is not loaded. */
static int nl_family(int fd, char *buf)
{
	struct nl_req req;
	struct nlattr *a;
	int len, rem;

	nl_req_init(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	a = (struct nlattr *)req.attrs;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof(CUFAB_GENL_NAME);
	memcpy(nla_data(a), CUFAB_GENL_NAME, sizeof(CUFAB_GENL_NAME));
	req.n.nlmsg_len += NLA_ALIGN(a->nla_len);

	len = nl_exchange(fd, &req, buf);
	if (len < 0)
		return len;
	rem = len - NLMSG_LENGTH(GENL_HDRLEN);
	for (a = nla_first(buf + NLMSG_LENGTH(GENL_HDRLEN)); nla_ok(a, rem);
	     a = nla_next(a, &rem))
		if (nla_type(a) == CTRL_ATTR_FAMILY_ID &&
		    nla_len(a) >= (int)sizeof(__u16))
			return *(__u16 *)nla_data(a);
	return -EBADMSG;
}

/* The attributes of one GPU from @a on (@rem bytes): 1 if they name it. */
static int parse_gpu(struct nlattr *a, int rem, struct nvml_gpu *gpu)
{
	struct nvml_gpu g = { .numa_node = -1 };
	int have_index = 0;

	for (; nla_ok(a, rem); a = nla_next(a, &rem)) {
		switch (nla_type(a)) {
		case CUFAB_NL_A_DEV_INDEX:
			g.index = nla_u32(a);
			have_index = 1;
			break;
		case CUFAB_NL_A_DEV_NAME:
			nla_str(a, g.name, sizeof(g.name));
			break;
		case CUFAB_NL_A_DEV_UUID:
			if (nla_len(a) == CUFAB_UUID_LEN)
				memcpy(g.uuid, nla_data(a), CUFAB_UUID_LEN);
			break;
		case CUFAB_NL_A_DEV_BUS_ID:
			nla_str(a, g.bus_id, sizeof(g.bus_id));
			break;
		case CUFAB_NL_A_DEV_MEM_TOTAL:
			g.mem_total = nla_u64(a);
			break;
		case CUFAB_NL_A_DEV_MEM_USED:
			g.mem_used = nla_u64(a);
			break;
		case CUFAB_NL_A_DEV_NUMA_NODE:
			g.numa_node = (__s32)nla_u32(a);
			break;
		case CUFAB_NL_A_DEV_CLIQUE:
			g.clique = nla_u32(a);
			break;
		case CUFAB_NL_A_DEV_FEATURES:
			g.features = nla_u32(a);
			break;
		case CUFAB_NL_A_DEV_PEERS:
			g.peers = nla_u64(a);
			break;
		case CUFAB_NL_A_DEV_CC_MAJOR:
			g.cc_major = nla_u32(a);
			break;
		case CUFAB_NL_A_DEV_CC_MINOR:
			g.cc_minor = nla_u32(a);
			break;
		case CUFAB_NL_A_DEV_PCI_DEVICE_ID:
			g.pci_device_id = nla_u32(a);
			break;
		case CUFAB_NL_A_DEV_PCI_SUBSYS_ID:
			g.pci_subsys_id = nla_u32(a);
			break;
		}
	}
	*gpu = g;
	return have_index;
}

/* A GPU's attributes as the library reads them: -EPROTO if too old. */
static int gpu_check(const struct nvml_gpu *g)
{
	unsigned int dom, bus, dev;

	if (!g->cc_major ||
	    sscanf(g->bus_id, "%x:%x:%x", &dom, &bus, &dev) != 3)
		return -EPROTO;
	return 0;
}

static void parse_dev(struct nlattr *nest, struct nvml_topo *t)
{
	struct nvml_gpu g;

	if (parse_gpu(nla_first(nla_data(nest)), nla_len(nest), &g) &&
	    g.index < CUFAB_MAX_GPUS && g.index == t->num_read) {
		t->gpus[g.index] = g;
		t->num_read++;
	}
}

static int parse_topo(char *buf, int len, struct nvml_topo *t)
{
	int rem = len - NLMSG_LENGTH(GENL_HDRLEN);
	struct nlattr *a;
	unsigned int i;

	for (a = nla_first(buf + NLMSG_LENGTH(GENL_HDRLEN)); nla_ok(a, rem);
	     a = nla_next(a, &rem)) {
		switch (nla_type(a)) {
		case CUFAB_NL_A_TOPO_NUM_GPUS:
			t->num_gpus = nla_u32(a);
			break;
		case CUFAB_NL_A_TOPO_NVSWITCH:
			t->nvswitch = nla_len(a) >= 1 && *(__u8 *)nla_data(a);
			break;
		case CUFAB_NL_A_TOPO_CLUSTER_UUID:
			if (nla_len(a) == CUFAB_UUID_LEN)
				memcpy(t->cluster_uuid, nla_data(a),
				       CUFAB_UUID_LEN);
			break;
		case CUFAB_NL_A_TOPO_FABRIC_STATE:
			t->fabric_state = nla_u32(a);
			t->have_fabric_state = 1;
			break;
		case CUFAB_NL_A_TOPO_NVSWITCH_BUS_ID:
			nla_str(a, t->nvswitch_bus_id, sizeof(t->nvswitch_bus_id));
			break;
		case CUFAB_NL_A_TOPO_NVSWITCH_PCI_ID:
			t->nvswitch_pci_id = nla_u32(a);
			break;
		case CUFAB_NL_A_DEV:
			parse_dev(a, t);
			break;
		}
	}
	/* A module without the attributes this library reads is too old. */
	if (!t->num_gpus || t->num_read != t->num_gpus ||
	    !t->have_fabric_state || !t->nvswitch_bus_id[0])
		return -EPROTO;
	for (i = 0; i < t->num_gpus; i++)
		if (gpu_check(&t->gpus[i]))
			return -EPROTO;
	return 0;
}

/* The kept socket (nl_lock): fd -1 when none is open. */
static pthread_mutex_t nl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int fd;
	int family;
	pid_t pid;	/* the process that opened it */
	__u32 seq;
	char *buf;
} nl = { .fd = -1 };

/* Forget the kept socket. Context: nl_lock held. */
static void nl_drop(void)
{
	if (nl.fd >= 0)
		close(nl.fd);
	nl.fd = -1;
	free(nl.buf);
	nl.buf = NULL;
}

/* The kept socket, opened and its family looked up if need be. */
static int nl_open(void)
{
	struct sockaddr_nl self = { .nl_family = AF_NETLINK };
	int family;

	if (nl.fd >= 0 && nl.pid == getpid())
		return 0;
	nl_drop();
	nl.buf = malloc(NL_BUF_SIZE);
	if (!nl.buf)
		return -ENOMEM;
	nl.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl.fd < 0 ||
	    bind(nl.fd, (struct sockaddr *)&self, sizeof(self)) < 0) {
		family = -errno;
		goto err;
	}
	family = nl_family(nl.fd, nl.buf);
	if (family < 0)
		goto err;
	nl.family = family;
	nl.pid = getpid();
	nl.seq = 1;
	return 0;
err:
	nl_drop();
	return family;
}

static int nl_topo_get(struct nvml_topo *t)
{
	struct nl_req req;
	int len, ret;

	ret = nl_open();
	if (ret)
		return ret;
	nl_req_init(&req, nl.family, CUFAB_NL_CMD_TOPO_GET, ++nl.seq);
	len = nl_exchange(nl.fd, &req, nl.buf);
	if (len < 0)
		return len;
	return parse_topo(nl.buf, len, t);
}

int nvml_topo_read(struct nvml_topo *t)
{
	int ret;

	memset(t, 0, sizeof(*t));
	pthread_mutex_lock(&nl_lock);
	ret = nl_topo_get(t);
	/* a stale family id (module reloaded), or a socket gone bad */
	if (ret < 0 && ret != -ENOMEM) {
		nl_drop();
		memset(t, 0, sizeof(*t));
		ret = nl_topo_get(t);
	}
	if (ret < 0)
		nl_drop();
	pthread_mutex_unlock(&nl_lock);
	return ret;
}

static int nl_gpu_get(unsigned int index, struct nvml_gpu *g)
{
	struct nl_req req;
	struct nlattr *a;
	__u32 i = index;
	int len, ret;

	ret = nl_open();
	if (ret)
		return ret;
	nl_req_init(&req, nl.family, CUFAB_NL_CMD_DEV_GET, ++nl.seq);
	a = (struct nlattr *)req.attrs;
	a->nla_type = CUFAB_NL_A_DEV_INDEX;
	a->nla_len = NLA_HDRLEN + sizeof(i);
	memcpy(nla_data(a), &i, sizeof(i));
	req.n.nlmsg_len += NLA_ALIGN(a->nla_len);
	len = nl_exchange(nl.fd, &req, nl.buf);
	if (len < 0)
		return len;
	if (!parse_gpu(nla_first(nl.buf + NLMSG_LENGTH(GENL_HDRLEN)),
		       len - NLMSG_LENGTH(GENL_HDRLEN), g) ||
	    g->index != index)
		return -EPROTO;
	return gpu_check(g);
}

/*
 * One GPU's attributes (DEV_GET), for the queries about one device: a
 * reply of one GPU, not of the node and all of its GPUs.
 */
int nvml_gpu_read(unsigned int index, struct nvml_gpu *g)
{
	int ret;

	pthread_mutex_lock(&nl_lock);
	ret = nl_gpu_get(index, g);
	/* as nvml_topo_read(); a GPU gone (-ENODEV) is an answer */
	if (ret < 0 && ret != -ENOMEM && ret != -ENODEV) {
		nl_drop();
		ret = nl_gpu_get(index, g);
	}
	if (ret < 0 && ret != -ENODEV)
		nl_drop();
	pthread_mutex_unlock(&nl_lock);
	return ret;
}

void nvml_nl_close(void)
{
	pthread_mutex_lock(&nl_lock);
	nl_drop();
	pthread_mutex_unlock(&nl_lock);
}
