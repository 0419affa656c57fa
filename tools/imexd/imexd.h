/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cufab-imexd: the node daemon of a cufab fabric domain, the analog of
 * nvidia-imex (Documentation/multinode.rst). It carries FABRIC imports
 * between the nodes' kernels: netlink ("cufab_imex") to its own kernel,
 * one TCP connection to every other node's daemon.
 */
#ifndef CUFAB_IMEXD_H
#define CUFAB_IMEXD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define IMEXD_MAX_NODES		64
#define IMEXD_MAX_PENDING	256
/* seconds a stopping daemon waits for its importers' REVOKE_DONE */
#define IMEXD_REVOKE_WAIT	10

/* the wire protocol between daemons, little-endian */
#define IMEXD_MAGIC		0x58494643u	/* "CFIX" */
#define IMEXD_VERSION_MAJOR	1
#define IMEXD_VERSION_MINOR	1
#define IMEXD_VERSION		(IMEXD_VERSION_MAJOR << 8 | IMEXD_VERSION_MINOR)
#define IMEXD_MAX_PAYLOAD	65536
/* type bit: a receiver that does not know the type ignores the message */
#define IMEXD_MSG_OPTIONAL	0x8000

enum imexd_msg_type {
	IMEXD_HELLO = 1,
	IMEXD_HELLO_ACK,
	IMEXD_HEARTBEAT,
	IMEXD_RESOLVE,
	IMEXD_RESOLVED,
	IMEXD_RELEASE,
	IMEXD_BYE,
	IMEXD_AUTH,		/* 1.1: the connector's answer (auth.c) */
	/* 1.1, optional: an older peer ignores them (Failure, multinode.rst) */
	IMEXD_REVOKE = IMEXD_MSG_OPTIONAL | 0x20,
	IMEXD_REVOKE_DONE,
	/*
	 * 1.1: teams across nodes; the payload is the kernels' TEAM record,
	 * carried unread (Documentation/multinode.rst)
	 */
	IMEXD_TEAM_JOIN = IMEXD_MSG_OPTIONAL | 0x10,
	IMEXD_TEAM_STATE = IMEXD_MSG_OPTIONAL | 0x11,
};

struct imexd_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t length;
	uint16_t src;
	uint16_t dst;
	uint64_t seq;
	uint64_t instance;
} __attribute__((packed));

#define IMEXD_KEY_LEN		32
#define IMEXD_NONCE_LEN		32
#define IMEXD_MAC_LEN		32

struct imexd_hello {
	uint16_t version_min;
	uint16_t version_max;
	uint32_t nodes;
	uint8_t cluster[16];	/* reserved for the domain's identity, zero */
	/* 1.1 (auth.c): the sender's challenge, its answer to the other's */
	uint8_t nonce[IMEXD_NONCE_LEN];
	uint8_t mac[IMEXD_MAC_LEN];	/* HELLO_ACK only; zero without key */
} __attribute__((packed));

/* a 1.0 HELLO ends before the nonce; a later minor may add bytes */
#define IMEXD_HELLO_MIN		24
#define IMEXD_HELLO_MAX		256

struct imexd_auth_msg {
	uint8_t mac[IMEXD_MAC_LEN];
} __attribute__((packed));

struct imexd_resolve {
	uint64_t req_id;
	uint32_t channel;
	uint32_t reserved;
	uint8_t handle[64];
} __attribute__((packed));

struct imexd_resolved {
	uint64_t req_id;
	int32_t status;
	uint32_t dev;
	uint64_t offset;
	uint64_t length;
	uint64_t token;
	/* 1.1, absent from a 1.0 peer (then zero: memory) */
	uint32_t kind;		/* CUFAB_IMEX_KIND_* */
	uint32_t devices;	/* a multicast object's numDevices */
	uint64_t id;		/* its allocation id on its home node */
} __attribute__((packed));

/* the bytes of a 1.0 RESOLVED */
#define IMEXD_RESOLVED_V10	40

struct imexd_release {
	uint64_t token;
} __attribute__((packed));

enum peer_state {
	PEER_NEVER,		/* never connected */
	PEER_CONNECTING,	/* our connect() is in progress */
	PEER_HELLO,		/* connected, waiting for its HELLO(_ACK) */
	PEER_UP,
	PEER_LOST,		/* was up; cleanup after the grace time */
	PEER_GONE,		/* lost and cleaned up (NODE_DOWN sent) */
};

struct peer {
	int index;
	char addr[64];
	int fd;
	enum peer_state state;
	uint64_t instance;	/* its daemon's, 0 while unknown */
	time_t last_rx;
	time_t last_tx;
	time_t lost_at;
	time_t next_try;
	uint64_t seq;
	unsigned char *rbuf;
	size_t rlen;
	bool revoking;		/* REVOKE sent, its REVOKE_DONE awaited */
	uint8_t nonce[IMEXD_NONCE_LEN];	/* our challenge in its HELLO */
	char row[IMEXD_MAX_NODES];	/* its -N row, from its HEARTBEAT */
	int row_len;
	bool auth_logged;	/* its failure is logged; quiet until it succeeds */
};

/* the domain key (auth.c); without it, peers are not authenticated */
struct imexd_auth {
	bool keyed;
	uint8_t key[IMEXD_KEY_LEN];
};

struct imexd {
	int me;
	int nodes;
	int port;
	int cmd_port;
	int grace;		/* -1 wait forever, else seconds */
	uint64_t instance;
	int lfd;		/* daemons */
	int cfd;		/* status queries (-q, -N) */
	int sfd;		/* SIGTERM, SIGINT (signalfd) */
	int stop;		/* the signal that stops the daemon */
	bool stopping;		/* ending its exports: no import is granted */
	bool registered;
	struct imexd_auth auth;
	struct peer peers[IMEXD_MAX_NODES];
	/* RESOLVE requests forwarded to a peer: kernel request id, node */
	struct {
		uint64_t req_id;
		int node;
		bool used;
	} pending[IMEXD_MAX_PENDING];
};

/* kernel.c */
int kernel_open(struct imexd *d);
int kernel_fd(void);
void kernel_receive(struct imexd *d);
int kernel_resolved(uint64_t req_id, const struct imexd_resolved *r);
int kernel_export_get(const uint8_t *handle, uint32_t channel, int node,
		      struct imexd_resolved *r);
int kernel_export_put(int node, uint64_t token);
int kernel_node_down(int node);
int kernel_revoke(int node);
void kernel_drain(struct imexd *d);
int kernel_team(uint16_t type, int node, const void *rec, uint32_t len);
void kernel_links(struct imexd *d);
void kernel_unregister(void);
void kernel_close(void);

/* auth.c */
int auth_load_key(struct imexd_auth *a, const char *path);
bool hello_ok(struct imexd *d, const struct imexd_hdr *h, const void *payload);
void hello_send(struct imexd *d, struct peer *p);
bool hello_ack_take(struct imexd *d, struct peer *p, const struct imexd_hdr *h,
		    const void *payload);
int hello_accept(struct imexd *d, int fd, uint64_t *instance);

/* peer.c */
int msg_send_fd(struct imexd *d, int fd, int dst, uint64_t seq, uint16_t type,
		const void *payload, uint32_t len);
int send_msg(struct imexd *d, struct peer *p, uint16_t type,
	     const void *payload, uint32_t len);
int read_full(int fd, void *buf, size_t len);
void peer_init(struct imexd *d);
void peer_tick(struct imexd *d, time_t now);
void peer_accept(struct imexd *d);
void peer_readable(struct imexd *d, int fd);
void peer_writable(struct imexd *d, struct peer *p);
int peer_resolve(struct imexd *d, uint64_t req_id, int node, uint32_t channel,
		 const uint8_t *handle);
void peer_release(struct imexd *d, int node, uint64_t token);
void peer_team(struct imexd *d, uint16_t type, int node, const void *rec,
	       uint32_t len);
void peer_bye(struct imexd *d);
int peer_revoke_all(struct imexd *d);
bool peer_revoking(const struct imexd *d);
const char *peer_state_letter(const struct peer *p);
int peer_row(const struct imexd *d, char *row);

void imexd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CUFAB_IMEXD_H */
