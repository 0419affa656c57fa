// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-imexd: the daemons prove to each other that they hold the domain
 * key (Documentation/multinode.rst "Authentication").
 *
 * The key is 32 bytes in a file only its owner may read
 * (CUFAB_DOMAIN_KEY_FILE). The handshake is three messages on every new
 * connection, the lower index connecting:
 *
 *   HELLO      versions, nodes, nonce A
 *   HELLO_ACK  versions, nodes, nonce B, MAC(A, acceptor, connector)
 *   AUTH       MAC(B, connector, acceptor)
 *
 * MAC(nonce, prover, verifier) is HMAC-SHA256 under the key of a label,
 * the verifier's nonce, both node indices and both daemons' instance ids
 * (the headers'), so the key never travels, a replayed answer names a
 * nonce no one asks again, a node cannot prove another node's index, and
 * an answer cannot be reflected back (prover and verifier are ordered).
 * Without a key, the MACs are zero and not checked: the daemons trust
 * their network, and say so once.
 *
 * HMAC-SHA256 is libcrypto's (OpenSSL): one call, CRYPTO_memcmp() for a
 * comparison whose time does not depend on the bytes, and present
 * wherever the daemon runs; the kernel's AF_ALG would need the algif_hash
 * module in every guest's initramfs and a socket family containers often
 * filter.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "imexd.h"

static const char auth_label[] = "cufab-imexd auth 1";

/**
 * auth_load_key() - read the domain key
 * @a: filled with the key
 * @path: the key file: exactly IMEXD_KEY_LEN bytes, a regular file no
 *	group or other may read or write
 *
 * Return: 0, or -1 with a message naming the file and the rule broken.
 */
int auth_load_key(struct imexd_auth *a, const char *path)
{
	unsigned char buf[IMEXD_KEY_LEN + 1];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		fprintf(stderr, "cufab-imexd: domain key '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "cufab-imexd: domain key '%s': not a regular file\n",
			path);
		goto bad;
	}
	if (st.st_mode & 077) {
		fprintf(stderr, "cufab-imexd: domain key '%s': mode 0%03o lets group or others at it: chmod 0400\n",
			path, (unsigned int)(st.st_mode & 0777));
		goto bad;
	}
	n = read(fd, buf, sizeof(buf));
	if (n != IMEXD_KEY_LEN) {
		fprintf(stderr, "cufab-imexd: domain key '%s': %s bytes, want exactly %d (head -c %d /dev/urandom)\n",
			path, n < 0 ? "unreadable" : n > IMEXD_KEY_LEN ? "more" : "fewer",
			IMEXD_KEY_LEN, IMEXD_KEY_LEN);
		goto bad;
	}
	memcpy(a->key, buf, IMEXD_KEY_LEN);
	OPENSSL_cleanse(buf, sizeof(buf));
	a->keyed = true;
	close(fd);
	return 0;
bad:
	close(fd);
	return -1;
}

static void auth_nonce(uint8_t *nonce)
{
	size_t got = 0;
	ssize_t n;

	while (got < IMEXD_NONCE_LEN) {
		n = getrandom(nonce + got, IMEXD_NONCE_LEN - got, 0);
		if (n > 0)
			got += n;
	}
}

static void put16(unsigned char *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * auth_mac() - what @prover answers to @verifier's @nonce
 * @a: the key; without one, the MAC is zero
 * @nonce: the verifier's challenge, IMEXD_NONCE_LEN bytes
 * @prover: the answering node's index
 * @verifier: the asking node's index
 * @prover_inst: the answering daemon's instance id
 * @verifier_inst: the asking daemon's instance id
 * @mac: out, IMEXD_MAC_LEN bytes
 *
 * Return: false when libcrypto failed (@mac is then zero and proves
 * nothing).
 */
static bool auth_mac(const struct imexd_auth *a, const uint8_t *nonce,
		     uint16_t prover, uint16_t verifier, uint64_t prover_inst,
		     uint64_t verifier_inst, uint8_t *mac)
{
	unsigned char msg[sizeof(auth_label) + IMEXD_NONCE_LEN + 2 * 2 + 2 * 8];
	unsigned char *p = msg;
	unsigned int len = IMEXD_MAC_LEN;

	memset(mac, 0, IMEXD_MAC_LEN);
	if (!a->keyed)
		return true;
	memcpy(p, auth_label, sizeof(auth_label));
	p += sizeof(auth_label);
	memcpy(p, nonce, IMEXD_NONCE_LEN);
	p += IMEXD_NONCE_LEN;
	put16(p, prover);
	put16(p + 2, verifier);
	put64(p + 4, prover_inst);
	put64(p + 12, verifier_inst);
	if (HMAC(EVP_sha256(), a->key, IMEXD_KEY_LEN, msg, sizeof(msg), mac,
		 &len) && len == IMEXD_MAC_LEN)
		return true;
	memset(mac, 0, IMEXD_MAC_LEN);
	return false;
}

/**
 * auth_check() - does @mac prove @prover's key (see auth_mac())?
 *
 * Return: true when it does, or when this daemon has no key (it trusts
 * its network).
 */
static bool auth_check(const struct imexd_auth *a, const uint8_t *nonce,
		       uint16_t prover, uint16_t verifier, uint64_t prover_inst,
		       uint64_t verifier_inst, const uint8_t *mac)
{
	uint8_t want[IMEXD_MAC_LEN];
	bool ok;

	if (!a->keyed)
		return true;
	ok = auth_mac(a, nonce, prover, verifier, prover_inst, verifier_inst,
		      want) &&
	     !CRYPTO_memcmp(want, mac, IMEXD_MAC_LEN);
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}

/* ---- the handshake ---- */

/* Versions and the domain's size agree; a 1.0 HELLO has no challenge. */
bool hello_ok(struct imexd *d, const struct imexd_hdr *h, const void *payload)
{
	const struct imexd_hello *m = payload;

	if (le32toh(h->length) < IMEXD_HELLO_MIN || le16toh(h->dst) != d->me)
		return false;
	/* the majors must meet: minors only add what may be ignored */
	return le16toh(m->version_min) >> 8 <= IMEXD_VERSION_MAJOR &&
	       le16toh(m->version_max) >> 8 >= IMEXD_VERSION_MAJOR &&
	       (int)le32toh(m->nodes) == d->nodes;
}

static void hello_fill(struct imexd *d, struct imexd_hello *m)
{
	m->version_min = htole16(IMEXD_VERSION_MAJOR << 8);
	m->version_max = htole16(IMEXD_VERSION);
	m->nodes = htole32(d->nodes);
}

/*
 * A peer that failed: logged once until it succeeds (a node with the
 * wrong key tries again every second), and dropped by the caller.
 */
static void auth_refused(struct imexd *d, int node, const char *addr,
			 const char *why)
{
	struct peer *p = &d->peers[node];

	if (p->auth_logged)
		return;
	p->auth_logged = true;
	imexd_log("node %d at %s: authentication failed: %s; dropped", node,
		  addr, why);
}

/* The connecting side: HELLO with a fresh challenge. */
void hello_send(struct imexd *d, struct peer *p)
{
	struct imexd_hello m = { 0 };

	hello_fill(d, &m);
	auth_nonce(p->nonce);
	memcpy(m.nonce, p->nonce, IMEXD_NONCE_LEN);
	send_msg(d, p, IMEXD_HELLO, &m, sizeof(m));
}

/*
 * The connecting side, on HELLO_ACK: check the acceptor's answer to our
 * challenge, answer its own (AUTH). False when the connection must end.
 */
bool hello_ack_take(struct imexd *d, struct peer *p, const struct imexd_hdr *h,
		    const void *payload)
{
	const struct imexd_hello *m = payload;
	uint64_t inst = le64toh(h->instance);
	struct imexd_auth_msg am;
	bool full = le32toh(h->length) >= sizeof(*m);

	if (!hello_ok(d, h, payload))
		return false;
	if (d->auth.keyed &&
	    (!full || !auth_check(&d->auth, p->nonce, p->index, d->me, inst,
				  d->instance, m->mac))) {
		auth_refused(d, p->index, p->addr, full ?
			     "its HELLO_ACK does not prove the domain key (another key, or none)" :
			     "its HELLO_ACK has no answer (protocol 1.0)");
		return false;
	}
	if (!full || !auth_mac(&d->auth, m->nonce, d->me, p->index,
			       d->instance, inst, am.mac))
		memset(am.mac, 0, sizeof(am.mac));
	return !send_msg(d, p, IMEXD_AUTH, &am, sizeof(am));
}

static void peer_address(int fd, char *buf, size_t len)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);

	if (getpeername(fd, (struct sockaddr *)&sa, &sl) ||
	    sa.sin_family != AF_INET ||
	    !inet_ntop(AF_INET, &sa.sin_addr, buf, len))
		snprintf(buf, len, "unknown");
}

/*
 * The accepting side, on a new connection (its timeouts set): the whole
 * handshake, before the connection counts as the node's, so that no
 * stranger displaces a connected peer. Return: the peer's index, its
 * instance in @instance; -1 when the connection must be closed.
 */
int hello_accept(struct imexd *d, int fd, uint64_t *instance)
{
	unsigned char buf[sizeof(struct imexd_hdr) + IMEXD_HELLO_MAX];
	const struct imexd_hello *m = (const void *)(buf + sizeof(struct imexd_hdr));
	unsigned char nonce[IMEXD_NONCE_LEN];
	struct imexd_hello ack = { 0 };
	struct imexd_auth_msg am;
	char addr[INET_ADDRSTRLEN];
	struct imexd_hdr h;
	uint32_t len;
	int src;

	peer_address(fd, addr, sizeof(addr));
	memset(buf, 0, sizeof(buf));
	if (read_full(fd, buf, sizeof(h) + IMEXD_HELLO_MIN))
		return -1;
	memcpy(&h, buf, sizeof(h));
	src = le16toh(h.src);
	len = le32toh(h.length);
	if (le32toh(h.magic) != IMEXD_MAGIC || le16toh(h.type) != IMEXD_HELLO ||
	    len > IMEXD_HELLO_MAX || src >= d->me || !hello_ok(d, &h, m)) {
		imexd_log("refused a connection from %s: not a HELLO of a lower node of this domain",
			  addr);
		return -1;
	}
	if (read_full(fd, buf + sizeof(h) + IMEXD_HELLO_MIN,
		      len - IMEXD_HELLO_MIN))
		return -1;
	if (d->auth.keyed && len < sizeof(*m)) {
		auth_refused(d, src, addr, "its HELLO has no challenge (protocol 1.0)");
		return -1;
	}
	*instance = le64toh(h.instance);
	hello_fill(d, &ack);
	auth_nonce(nonce);
	memcpy(ack.nonce, nonce, sizeof(nonce));
	if (!auth_mac(&d->auth, m->nonce, d->me, src, d->instance, *instance,
		      ack.mac) ||
	    msg_send_fd(d, fd, src, 1, IMEXD_HELLO_ACK, &ack, sizeof(ack)))
		return -1;
	if (read_full(fd, buf, sizeof(h) + sizeof(am))) {
		auth_refused(d, src, addr, "no AUTH after HELLO_ACK (another domain key, or none?)");
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	memcpy(&am, buf + sizeof(h), sizeof(am));
	if (le32toh(h.magic) != IMEXD_MAGIC || le16toh(h.type) != IMEXD_AUTH ||
	    le32toh(h.length) != sizeof(am) || le16toh(h.src) != src ||
	    le64toh(h.instance) != *instance) {
		auth_refused(d, src, addr, "the message after HELLO_ACK is not its AUTH");
		return -1;
	}
	if (!auth_check(&d->auth, nonce, src, d->me, *instance, d->instance,
			am.mac)) {
		auth_refused(d, src, addr, "its AUTH does not prove the domain key (another key, or none)");
		return -1;
	}
	return src;
}
