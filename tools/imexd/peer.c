// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-imexd and the other daemons: one TCP connection per pair of
 * nodes, opened by the lower index, 32-byte headers (imexd.h,
 * Documentation/multinode.rst "Daemon to daemon").
 *
 * Liveness: a HEARTBEAT every second on every connection; three seconds
 * without a message, or the connection's end, and the peer is lost. A lost
 * peer is cleaned up (the kernel's NODE_DOWN) after the grace time: never
 * with -1, at once with 0. A peer that comes back as a new instance after
 * it was lost (it restarted) is cleaned up at once; the kernel's cleanup
 * (NODE_DOWN) revokes this node's imports of the peer's memory too. A peer
 * that says BYE (its daemon was stopped, its node runs on) is no longer
 * asked anything, and nothing of it is reclaimed: its processes may still
 * map this node's memory.
 *
 * A daemon that stops (SIGTERM) first ends its node's exports: REVOKE to
 * every connected peer, whose kernel revokes its imports of this node's
 * memory and releases them (the RELEASEs come back first), then the peer
 * answers REVOKE_DONE; the daemon says BYE once every peer answered, was
 * lost, or IMEXD_REVOKE_WAIT passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "imexd.h"

static const char *const state_names[] = {
	[PEER_NEVER] = "never connected",
	[PEER_CONNECTING] = "connecting",
	[PEER_HELLO] = "saying hello",
	[PEER_UP] = "connected",
	[PEER_LOST] = "lost",
	[PEER_GONE] = "lost, cleaned up",
};

/* nvidia-imex-ctl -N's letters */
const char *peer_state_letter(const struct peer *p)
{
	switch (p->state) {
	case PEER_UP:
		return "C";
	case PEER_LOST:
		return "R";
	case PEER_GONE:
		return "D";
	case PEER_HELLO:
		return "A";
	default:
		return p->instance ? "D" : "N";
	}
}

/* One message on @fd to node @dst; the handshake's sends name no peer yet. */
int msg_send_fd(struct imexd *d, int fd, int dst, uint64_t seq, uint16_t type,
		const void *payload, uint32_t len)
{
	unsigned char small[sizeof(struct imexd_hdr) + 128], *buf = small;
	ssize_t sent;
	struct imexd_hdr h = {
		.magic = htole32(IMEXD_MAGIC),
		.version = htole16(IMEXD_VERSION),
		.type = htole16(type),
		.length = htole32(len),
		.src = htole16(d->me),
		.dst = htole16(dst),
		.seq = htole64(seq),
		.instance = htole64(d->instance),
	};

	if (fd < 0 || len > IMEXD_MAX_PAYLOAD)
		return -1;
	/* one send, so that a message is never split by another's */
	if (len > sizeof(small) - sizeof(h))
		buf = malloc(sizeof(h) + len);
	if (!buf)
		return -1;
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	sent = send(fd, buf, sizeof(h) + len, MSG_NOSIGNAL);
	if (buf != small)
		free(buf);
	if (sent != (ssize_t)(sizeof(h) + len))
		return -1;
	return 0;
}

int send_msg(struct imexd *d, struct peer *p, uint16_t type,
	     const void *payload, uint32_t len)
{
	if (msg_send_fd(d, p->fd, p->index, ++p->seq, type, payload, len))
		return -1;
	p->last_tx = time(NULL);
	return 0;
}

/* The kernel forgets what it exported to @p, and what waits for it. */
static void cleanup(struct imexd *d, struct peer *p, const char *why)
{
	imexd_log("node %d: cleaning up (%s)", p->index, why);
	kernel_node_down(p->index);
	p->state = PEER_GONE;
	p->lost_at = 0;
	(void)d;
}

static void fail_pending(struct imexd *d, int node)
{
	struct imexd_resolved r = { .status = -EHOSTDOWN };
	int i;

	for (i = 0; i < IMEXD_MAX_PENDING; i++) {
		if (!d->pending[i].used || d->pending[i].node != node)
			continue;
		d->pending[i].used = false;
		r.req_id = d->pending[i].req_id;
		kernel_resolved(r.req_id, &r);
	}
}

static void peer_down(struct imexd *d, struct peer *p, const char *why,
		      bool bye)
{
	enum peer_state was = p->state;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->rbuf);
	p->rbuf = NULL;
	p->rlen = 0;
	p->next_try = time(NULL) + 1;
	p->revoking = false;
	fail_pending(d, p->index);
	if (was == PEER_UP)
		imexd_log("node %d (%s): connection lost: %s", p->index, p->addr,
			  why);
	if (!p->instance) {
		p->state = PEER_NEVER;
	} else if (bye) {
		/*
		 * Its daemon stopped, its node did not: its processes may
		 * still map this node's memory, which must not be reused
		 * under them. Nothing is reclaimed; its kernel's releases
		 * come with its next daemon.
		 */
		p->state = PEER_GONE;
		p->lost_at = 0;
	} else if (was == PEER_UP && d->grace == 0) {
		cleanup(d, p, "grace time 0");
	} else if (was == PEER_UP) {
		p->state = PEER_LOST;
		p->lost_at = time(NULL);
	} else {
		/* a failed reconnect: whatever it was before */
		p->state = p->lost_at ? PEER_LOST : PEER_GONE;
	}
}

static void peer_up(struct imexd *d, struct peer *p, uint64_t instance)
{
	if (p->instance && p->instance != instance && p->state != PEER_GONE &&
	    p->lost_at)
		cleanup(d, p, "it came back as a new instance");
	p->instance = instance;
	p->state = PEER_UP;
	p->lost_at = 0;
	p->last_rx = time(NULL);
	p->auth_logged = false;
	imexd_log("node %d (%s): connected%s", p->index, p->addr,
		  d->auth.keyed ? ", authenticated by the domain key" : "");
}

static void on_resolve(struct imexd *d, struct peer *p, const void *payload)
{
	const struct imexd_resolve *m = payload;
	struct imexd_resolved r = { 0 };

	/* its exports are ending: as if its daemon were gone already */
	if (d->stopping)
		r.status = -EHOSTDOWN;
	else
		kernel_export_get(m->handle, le32toh(m->channel), p->index, &r);
	imexd_log("node %d imports on channel %u: %s (%d)", p->index,
		  le32toh(m->channel), r.status ? strerror(-r.status) : "granted",
		  r.status);
	r.req_id = m->req_id;
	r.status = htole32(r.status);
	r.dev = htole32(r.dev);
	r.offset = htole64(r.offset);
	r.length = htole64(r.length);
	r.token = htole64(r.token);
	r.kind = htole32(r.kind);
	r.devices = htole32(r.devices);
	r.id = htole64(r.id);
	send_msg(d, p, IMEXD_RESOLVED, &r, sizeof(r));
}

static void on_resolved(struct imexd *d, struct peer *p, const void *payload,
			uint32_t len)
{
	struct imexd_resolved all = { 0 }, *m = &all, r;
	int i;

	/* a 1.0 peer's answer ends before kind: memory */
	memcpy(&all, payload, len < sizeof(all) ? len : sizeof(all));
	r.req_id = le64toh(m->req_id);
	r.status = (int32_t)le32toh(m->status);
	r.dev = le32toh(m->dev);
	r.offset = le64toh(m->offset);
	r.length = le64toh(m->length);
	r.token = le64toh(m->token);
	r.kind = le32toh(m->kind);
	r.devices = le32toh(m->devices);
	r.id = le64toh(m->id);
	for (i = 0; i < IMEXD_MAX_PENDING; i++) {
		if (d->pending[i].used && d->pending[i].req_id == r.req_id &&
		    d->pending[i].node == p->index) {
			d->pending[i].used = false;
			if (r.status)
				imexd_log("node %d refused import %llu: %s",
					  p->index, (unsigned long long)r.req_id,
					  strerror(-r.status));
			kernel_resolved(r.req_id, &r);
			return;
		}
	}
	/* the importer gave up: the exporter must not keep its reference */
	if (!r.status)
		peer_release(d, p->index, r.token);
}

/*
 * REVOKE: @p's node ends its exports. The kernel revokes and releases
 * this node's imports of them before it answers; its RELEASEs are sent
 * before REVOKE_DONE, so the exporter has them all when it reads it.
 */
static void on_revoke(struct imexd *d, struct peer *p)
{
	int ret = kernel_revoke(p->index);

	kernel_drain(d);
	imexd_log("node %d ends its exports: imports revoked%s%s", p->index,
		  ret ? ": " : "", ret ? strerror(-ret) : "");
	send_msg(d, p, IMEXD_REVOKE_DONE, NULL, 0);
}

static void on_revoke_done(struct imexd *d, struct peer *p)
{
	if (!p->revoking)
		return;
	p->revoking = false;
	imexd_log("node %d revoked its imports of this node's memory", p->index);
	(void)d;
}

/*
 * This node's row of the -N table, a letter per node: what its HEARTBEAT
 * carries (1.1; an older peer ignores payload it does not know).
 */
int peer_row(const struct imexd *d, char *row)
{
	int i;

	for (i = 0; i < d->nodes; i++)
		row[i] = i == d->me ? 'C' : peer_state_letter(&d->peers[i])[0];
	return d->nodes;
}

static void heartbeat(struct imexd *d, struct peer *p)
{
	char row[IMEXD_MAX_NODES];

	send_msg(d, p, IMEXD_HEARTBEAT, row, peer_row(d, row));
}

static const uint32_t min_len[] = {
	[IMEXD_HELLO] = IMEXD_HELLO_MIN,
	[IMEXD_HELLO_ACK] = IMEXD_HELLO_MIN,
	[IMEXD_RESOLVE] = sizeof(struct imexd_resolve),
	[IMEXD_RESOLVED] = IMEXD_RESOLVED_V10,
	[IMEXD_RELEASE] = sizeof(struct imexd_release),
};

/* One message of @p; false when the connection must end. */
static bool handle(struct imexd *d, struct peer *p, const struct imexd_hdr *h,
		   const void *payload)
{
	uint16_t type = le16toh(h->type);
	uint32_t len = le32toh(h->length);

	if (le16toh(h->src) != p->index)
		return false;
	if (type < ARRAY_SIZE(min_len) && len < min_len[type])
		return false;
	switch (type) {
	case IMEXD_HELLO_ACK:
		if (p->state != PEER_HELLO || !hello_ack_take(d, p, h, payload))
			return false;
		peer_up(d, p, le64toh(h->instance));
		return true;
	case IMEXD_HEARTBEAT:
		p->row_len = len <= IMEXD_MAX_NODES ? len : 0;
		memcpy(p->row, payload, p->row_len);
		return true;
	case IMEXD_RESOLVE:
		on_resolve(d, p, payload);
		return true;
	case IMEXD_RESOLVED:
		on_resolved(d, p, payload, len);
		return true;
	case IMEXD_TEAM_JOIN:
	case IMEXD_TEAM_STATE:
		if (kernel_team(type, p->index, payload, len))
			imexd_log("node %d: the kernel refused a team message (type 0x%x, %u bytes)",
				  p->index, type, len);
		return true;
	case IMEXD_RELEASE:
		kernel_export_put(p->index,
				  le64toh(((const struct imexd_release *)payload)->token));
		return true;
	case IMEXD_BYE:
		peer_down(d, p, "its daemon stopped", true);
		return true;
	case IMEXD_REVOKE:
		on_revoke(d, p);
		return true;
	case IMEXD_REVOKE_DONE:
		on_revoke_done(d, p);
		return true;
	default:
		return type & IMEXD_MSG_OPTIONAL;
	}
}

static struct peer *peer_of_fd(struct imexd *d, int fd)
{
	int i;

	for (i = 0; i < d->nodes; i++)
		if (d->peers[i].fd == fd)
			return &d->peers[i];
	return NULL;
}

void peer_readable(struct imexd *d, int fd)
{
	struct peer *p = peer_of_fd(d, fd);
	struct imexd_hdr h;
	ssize_t n;
	size_t len;

	if (!p)
		return;
	if (!p->rbuf)
		p->rbuf = malloc(sizeof(h) + IMEXD_MAX_PAYLOAD);
	if (!p->rbuf)
		return;
	n = recv(fd, p->rbuf + p->rlen, sizeof(h) + IMEXD_MAX_PAYLOAD - p->rlen,
		 MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		peer_down(d, p, n ? strerror(errno) : "closed by the peer",
			  false);
		return;
	}
	if (n < 0)
		return;
	p->rlen += n;
	p->last_rx = time(NULL);
	while (p->fd == fd && p->rlen >= sizeof(h)) {
		memcpy(&h, p->rbuf, sizeof(h));
		len = le32toh(h.length);
		if (le32toh(h.magic) != IMEXD_MAGIC || len > IMEXD_MAX_PAYLOAD ||
		    le16toh(h.version) >> 8 != IMEXD_VERSION_MAJOR) {
			peer_down(d, p, "protocol error (header)", false);
			return;
		}
		if (p->rlen < sizeof(h) + len)
			return;
		if (!handle(d, p, &h, p->rbuf + sizeof(h))) {
			if (p->fd == fd)
				peer_down(d, p, "protocol error (message)",
					  false);
			return;
		}
		if (p->fd != fd)
			return;
		p->rlen -= sizeof(h) + len;
		memmove(p->rbuf, p->rbuf + sizeof(h) + len, p->rlen);
	}
}

int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, (char *)buf + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 2 };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * A lower node connects: the handshake (auth.c) is done here, its
 * messages come at once (two seconds at most each), before the connection
 * counts as the node's.
 */
void peer_accept(struct imexd *d)
{
	uint64_t instance;
	struct peer *p;
	int fd, src;

	fd = accept(d->lfd, NULL, NULL);
	if (fd < 0)
		return;
	set_timeouts(fd);
	src = hello_accept(d, fd, &instance);
	if (src < 0) {
		close(fd);
		return;
	}
	p = &d->peers[src];
	if (p->fd >= 0)
		peer_down(d, p, "it connected again", false);
	p->fd = fd;
	p->seq = 1;
	peer_up(d, p, instance);
}

static void peer_connect(struct imexd *d, struct peer *p, time_t now)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(d->port),
	};
	int fd;

	p->next_try = now + 1;
	if (inet_pton(AF_INET, p->addr, &sa.sin_addr) != 1)
		return;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS) {
		close(fd);
		return;
	}
	p->fd = fd;
	p->last_rx = now;
	if (p->state != PEER_UP)
		p->state = PEER_CONNECTING;
}

void peer_writable(struct imexd *d, struct peer *p)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		close(p->fd);
		p->fd = -1;
		p->state = !p->instance ? PEER_NEVER :
			   p->lost_at ? PEER_LOST : PEER_GONE;
		return;
	}
	fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) & ~O_NONBLOCK);
	set_timeouts(p->fd);
	p->state = PEER_HELLO;
	p->last_rx = time(NULL);
	hello_send(d, p);
}

void peer_tick(struct imexd *d, time_t now)
{
	struct peer *p;
	int i;

	for (i = 0; i < d->nodes; i++) {
		p = &d->peers[i];
		if (i == d->me)
			continue;
		if (i > d->me && p->fd < 0 && now >= p->next_try)
			peer_connect(d, p, now);
		if (p->state == PEER_UP && now - p->last_tx >= 1)
			heartbeat(d, p);
		if (p->state == PEER_UP && now - p->last_rx >= 3)
			peer_down(d, p, "no heartbeat for 3 s", false);
		if ((p->state == PEER_HELLO || p->state == PEER_CONNECTING) &&
		    now - p->last_rx >= 5)
			peer_down(d, p, "no answer to HELLO", false);
		if (p->state == PEER_LOST && d->grace >= 0 &&
		    now - p->lost_at >= d->grace)
			cleanup(d, p, "grace time over");
	}
}

/* 0 once forwarded, or the errno the kernel's request fails with. */
int peer_resolve(struct imexd *d, uint64_t req_id, int node, uint32_t channel,
		 const uint8_t *handle)
{
	struct imexd_resolve m = {
		.req_id = htole64(req_id),
		.channel = htole32(channel),
	};
	int i;

	if (node < 0 || node >= d->nodes || node == d->me ||
	    d->peers[node].state != PEER_UP)
		return -EHOSTDOWN;
	for (i = 0; i < IMEXD_MAX_PENDING && d->pending[i].used; i++)
		;
	if (i == IMEXD_MAX_PENDING)
		return -EBUSY;
	memcpy(m.handle, handle, sizeof(m.handle));
	if (send_msg(d, &d->peers[node], IMEXD_RESOLVE, &m, sizeof(m))) {
		peer_down(d, &d->peers[node], "send failed", false);
		return -EHOSTDOWN;
	}
	d->pending[i].req_id = req_id;
	d->pending[i].node = node;
	d->pending[i].used = true;
	return 0;
}

void peer_release(struct imexd *d, int node, uint64_t token)
{
	struct imexd_release m = { .token = htole64(token) };

	if (node < 0 || node >= d->nodes || d->peers[node].state != PEER_UP ||
	    send_msg(d, &d->peers[node], IMEXD_RELEASE, &m, sizeof(m)))
		imexd_log("node %d: release of import %llu not delivered (node %s)",
			  node, (unsigned long long)token,
			  node >= 0 && node < d->nodes ?
			  state_names[d->peers[node].state] : "unknown");
}

/* A team record of this node's kernel for node @node, carried unread. */
void peer_team(struct imexd *d, uint16_t type, int node, const void *rec,
	       uint32_t len)
{
	if (node < 0 || node >= d->nodes || node == d->me ||
	    d->peers[node].state != PEER_UP ||
	    send_msg(d, &d->peers[node], type, rec, len))
		imexd_log("node %d: team message (type 0x%x) not delivered (node %s)",
			  node, type,
			  node >= 0 && node < d->nodes ?
			  state_names[d->peers[node].state] : "unknown");
}

/* SIGTERM: every connected peer revokes its imports of this node's memory. */
int peer_revoke_all(struct imexd *d)
{
	int i, n = 0;

	d->stopping = true;
	for (i = 0; i < d->nodes; i++) {
		if (d->peers[i].state != PEER_UP ||
		    send_msg(d, &d->peers[i], IMEXD_REVOKE, NULL, 0))
			continue;
		d->peers[i].revoking = true;
		n++;
	}
	return n;
}

/* Does a connected peer still owe its REVOKE_DONE? */
bool peer_revoking(const struct imexd *d)
{
	int i;

	for (i = 0; i < d->nodes; i++)
		if (d->peers[i].revoking && d->peers[i].state == PEER_UP)
			return true;
	return false;
}

/* Then BYE: the daemon stops, its node runs on. */
void peer_bye(struct imexd *d)
{
	int i;

	for (i = 0; i < d->nodes; i++)
		if (d->peers[i].state == PEER_UP)
			send_msg(d, &d->peers[i], IMEXD_BYE, NULL, 0);
}

void peer_init(struct imexd *d)
{
	int i;

	for (i = 0; i < d->nodes; i++) {
		d->peers[i].index = i;
		d->peers[i].fd = -1;
		d->peers[i].state = PEER_NEVER;
	}
}
