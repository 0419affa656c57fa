// SPDX-License-Identifier: GPL-2.0
/*
 * vswitch DIR N: the test cluster's private Ethernet switch (tools/vm/cluster).
 *
 * Node i's qemu sends its frames as datagrams from the unix socket
 * DIR/node<i>.sock to DIR/switch.sock (-netdev dgram); the switch learns
 * which node owns a source MAC address, forwards a frame to the node that
 * owns its destination and floods broadcasts, multicasts and unknown
 * destinations to every other node. Nothing leaves DIR: the nodes never
 * see the host's network.
 *
 * A link is cut while the file DIR/cut<i> exists: the switch drops every
 * frame from and to node i, as a pulled cable would.
 *
 * It runs until killed. Exit status 2 on a usage error, 1 when the socket
 * cannot be made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_NODES	64
#define MAX_MACS	256
#define ETH_ALEN	6
#define FRAME_MAX	65536

struct mac_entry {
	unsigned char mac[ETH_ALEN];
	int node;
};

static struct sockaddr_un node_addr[MAX_NODES];
static char cut_path[MAX_NODES][sizeof(((struct sockaddr_un *)0)->sun_path)];
static struct mac_entry macs[MAX_MACS];
static int nr_macs, nr_nodes;

static int set_path(struct sockaddr_un *a, const char *dir, const char *name)
{
	a->sun_family = AF_UNIX;
	return snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", dir, name) >=
	       (int)sizeof(a->sun_path) ? -1 : 0;
}

static int node_of_addr(const struct sockaddr_un *a)
{
	int i;

	for (i = 0; i < nr_nodes; i++)
		if (!strcmp(a->sun_path, node_addr[i].sun_path))
			return i;
	return -1;
}

static int link_cut(int node)
{
	return access(cut_path[node], F_OK) == 0;
}

static void learn(const unsigned char *mac, int node)
{
	int i;

	if (mac[0] & 1)		/* a group address is nobody's */
		return;
	for (i = 0; i < nr_macs; i++) {
		if (!memcmp(macs[i].mac, mac, ETH_ALEN)) {
			macs[i].node = node;
			return;
		}
	}
	if (nr_macs < MAX_MACS) {
		memcpy(macs[nr_macs].mac, mac, ETH_ALEN);
		macs[nr_macs++].node = node;
	}
}

static int lookup(const unsigned char *mac)
{
	int i;

	if (mac[0] & 1)
		return -1;
	for (i = 0; i < nr_macs; i++)
		if (!memcmp(macs[i].mac, mac, ETH_ALEN))
			return macs[i].node;
	return -1;
}

/* A node whose qemu is not up yet (or gone) just misses the frame. */
static void send_to(int fd, int node, const void *buf, size_t len)
{
	if (link_cut(node))
		return;
	sendto(fd, buf, len, MSG_DONTWAIT,
	       (const struct sockaddr *)&node_addr[node], sizeof(node_addr[node]));
}

static void forward(int fd, int from, const unsigned char *buf, size_t len)
{
	int to, i;

	if (len < 2 * ETH_ALEN || link_cut(from))
		return;
	learn(buf + ETH_ALEN, from);
	to = lookup(buf);
	if (to >= 0) {
		if (to != from)
			send_to(fd, to, buf, len);
		return;
	}
	for (i = 0; i < nr_nodes; i++)
		if (i != from)
			send_to(fd, i, buf, len);
}

int main(int argc, char **argv)
{
	static unsigned char buf[FRAME_MAX];
	struct sockaddr_un self, src;
	char name[32];
	socklen_t alen;
	ssize_t len;
	int fd, i;

	nr_nodes = argc == 3 ? atoi(argv[2]) : 0;
	if (nr_nodes < 1 || nr_nodes > MAX_NODES) {
		fprintf(stderr, "usage: vswitch DIR NODES (1..%d)\n", MAX_NODES);
		return 2;
	}
	for (i = 0; i < nr_nodes; i++) {
		snprintf(name, sizeof(name), "node%d.sock", i);
		if (set_path(&node_addr[i], argv[1], name) ||
		    snprintf(cut_path[i], sizeof(cut_path[i]), "%s/cut%d",
			     argv[1], i) >= (int)sizeof(cut_path[i])) {
			fprintf(stderr, "vswitch: %s: path too long for a unix socket\n",
				argv[1]);
			return 2;
		}
	}
	memset(&self, 0, sizeof(self));
	if (set_path(&self, argv[1], "switch.sock")) {
		fprintf(stderr, "vswitch: %s: path too long for a unix socket\n",
			argv[1]);
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&self, sizeof(self))) {
		fprintf(stderr, "vswitch: %s: %s\n", self.sun_path,
			strerror(errno));
		return 1;
	}
	for (;;) {
		alen = sizeof(src);
		memset(&src, 0, sizeof(src));
		len = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&src,
			       &alen);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "vswitch: recvfrom: %s\n", strerror(errno));
			return 1;
		}
		i = node_of_addr(&src);
		if (i >= 0)
			forward(fd, i, buf, len);
	}
}
