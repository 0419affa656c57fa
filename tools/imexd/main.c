// SPDX-License-Identifier: GPL-2.0
/*
 * cufab-imexd: the node daemon of a cufab fabric domain
 * (Documentation/multinode.rst), the analog of nvidia-imex.
 *
 *   cufab-imexd [-c CONFIG] [-n NODES_FILE] [-i INDEX]   run the daemon
 *   cufab-imexd [-c CONFIG] -q     READY or NOT_READY (exit 0 or 1)
 *   cufab-imexd [-c CONFIG] -N     the connectivity table, ending with
 *                                  "Domain State: UP|DEGRADED|DOWN"
 *
 * CONFIG has IMEX's keys (KEY=VALUE lines): IMEX_NODE_CONFIG_FILE (the node
 * list, one address a line, a node's index is its line), SERVER_PORT
 * (50000), BIND_INTERFACE_IP, IMEX_NODE_DISCONNECTED_GRACE_TIME (-1),
 * IMEX_CMD_PORT (50005), and cufab's own CUFAB_DOMAIN_KEY_FILE (the
 * domain's key, auth.c; also from the environment). Without CONFIG, the node list is -n or
 * $CUFAB_NODE_CONFIG. The daemon's index is the line of an address of its
 * own interfaces (or BIND_INTERFACE_IP's, or -i); the kernel refuses a
 * daemon whose index is not its node_index.
 *
 * The daemon runs in the foreground, logs to stderr, and stops on SIGTERM
 * or SIGINT after ending its node's exports on every peer (REVOKE, which
 * each confirms), saying BYE and telling its kernel (UNREGISTER). A daemon
 * that dies without UNREGISTER (SIGKILL) is lost to its peers, and its
 * kernel revokes what the node imported by the grace time it registered
 * with.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "imexd.h"

static int log_node = -1;

void imexd_log(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cufab-imexd[%d]: ", log_node);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct config {
	char nodes_file[256];
	char key_file[256];
	char bind_ip[64];
	int port;
	int cmd_port;
	int grace;
	int index;
};

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static int read_config(const char *path, struct config *c)
{
	char line[512], *eq;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "cufab-imexd: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		trim(line);
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(line, "IMEX_NODE_CONFIG_FILE"))
			snprintf(c->nodes_file, sizeof(c->nodes_file), "%s", eq);
		else if (!strcmp(line, "SERVER_PORT"))
			c->port = atoi(eq);
		else if (!strcmp(line, "BIND_INTERFACE_IP"))
			snprintf(c->bind_ip, sizeof(c->bind_ip), "%s", eq);
		else if (!strcmp(line, "IMEX_NODE_DISCONNECTED_GRACE_TIME"))
			c->grace = atoi(eq);
		else if (!strcmp(line, "IMEX_CMD_PORT"))
			c->cmd_port = atoi(eq);
		else if (!strcmp(line, "CUFAB_DOMAIN_KEY_FILE"))
			snprintf(c->key_file, sizeof(c->key_file), "%s", eq);
	}
	fclose(f);
	return 0;
}

static bool own_address(const char *addr)
{
	struct ifaddrs *ifa, *i;
	char buf[INET_ADDRSTRLEN];
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			  buf, sizeof(buf));
		found = !strcmp(buf, addr);
	}
	freeifaddrs(ifa);
	return found;
}

/* The node list, and this node's line in it. */
static int read_nodes(struct imexd *d, const struct config *c)
{
	char line[128];
	FILE *f = fopen(c->nodes_file, "r");
	int n = 0;

	if (!f) {
		fprintf(stderr, "cufab-imexd: node list '%s': %s\n",
			c->nodes_file, strerror(errno));
		return -1;
	}
	d->me = c->index;
	while (fgets(line, sizeof(line), f) && n < IMEXD_MAX_NODES) {
		trim(line);
		if (!line[0] || line[0] == '#')
			continue;
		snprintf(d->peers[n].addr, sizeof(d->peers[n].addr), "%s", line);
		if (d->me < 0 && (c->bind_ip[0] ? !strcmp(line, c->bind_ip) :
				  own_address(line)))
			d->me = n;
		n++;
	}
	fclose(f);
	d->nodes = n;
	if (d->me < 0 || d->me >= n) {
		fprintf(stderr, "cufab-imexd: no address of this node is in %s\n",
			c->nodes_file);
		return -1;
	}
	return 0;
}

static int listen_on(const char *ip, int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	int fd, one = 1;

	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16)) {
		fprintf(stderr, "cufab-imexd: cannot listen on %s:%d: %s\n", ip,
			port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static const char *domain_state(const struct imexd *d)
{
	int i, up = 0;

	for (i = 0; i < d->nodes; i++)
		up += i == d->me || d->peers[i].state == PEER_UP;
	return up == d->nodes ? "UP" : up > 1 ? "DEGRADED" : "DOWN";
}

/*
 * One row of the table: this node's from its own state, another's from
 * its last HEARTBEAT while it is connected ("?" for what is not known).
 */
static void status_row(const struct imexd *d, int node, FILE *out)
{
	const struct peer *p = &d->peers[node];
	char row[IMEXD_MAX_NODES];
	int i, n = 0;

	if (node == d->me)
		n = peer_row(d, row);
	else if (p->state == PEER_UP)
		n = p->row_len;
	fprintf(out, "\n       %3d      ", node);
	for (i = 0; i < d->nodes; i++)
		fprintf(out, " %3c", i >= n ? '?' :
			node == d->me ? row[i] : p->row[i]);
}

/* What -N prints: nvidia-imex-ctl -N's table, every node's row. */
static void status_table(const struct imexd *d, FILE *out)
{
	int i;

	fprintf(out, "Connectivity Table Legend:\n"
		"N - Never Connected\n"
		"A - Authenticating - the handshake with the peer is in progress\n"
		"R - Recovering - Connection was lost, but clean up has not yet been triggered.\n"
		"D - Disconnected - Connection was lost, and clean up has been triggered.\n"
		"C - Connected - Ready for operation\n"
		"? - Unknown - that node's row is known only while it is connected\n\nNodes:\n");
	for (i = 0; i < d->nodes; i++)
		fprintf(out, "Node #%-3d - %-15s - %s\n", i, d->peers[i].addr,
			i == d->me ? "READY" :
			d->peers[i].state == PEER_UP ? "READY" : "UNAVAILABLE");
	fprintf(out, "\n Nodes From\\To ");
	for (i = 0; i < d->nodes; i++)
		fprintf(out, " %3d", i);
	for (i = 0; i < d->nodes; i++)
		status_row(d, i, out);
	fprintf(out, "\nDomain State: %s\n", domain_state(d));
}

static void status_answer(struct imexd *d)
{
	struct timeval tv = { .tv_sec = 1 };
	char q = 0;
	FILE *out;
	int fd;

	fd = accept(d->cfd, NULL, NULL);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	out = recv(fd, &q, 1, 0) == 1 ? fdopen(fd, "w") : NULL;
	if (!out) {
		close(fd);
		return;
	}
	if (q == 'q')
		fprintf(out, "%s\n", d->registered ? "READY" : "NOT_READY");
	else
		status_table(d, out);
	fclose(out);
}

/* -q, -N: ask the running daemon. */
static int status_query(const struct config *c, char q)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(c->cmd_port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	char buf[4096];
	bool ready = false;
	ssize_t n;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, &q, 1, 0) != 1) {
		if (q == 'q')
			printf("NOT_READY\n");
		else
			printf("cufab-imexd is not running (port %d)\nDomain State: DOWN\n",
			       c->cmd_port);
		return 1;
	}
	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		fputs(buf, stdout);
		ready |= !strncmp(buf, "READY", 5);
	}
	close(fd);
	return q == 'q' && !ready;
}

/* SIGTERM or SIGINT, read from the signalfd: the loop ends. */
static void on_signal(struct imexd *d)
{
	struct signalfd_siginfo si;

	if (read(d->sfd, &si, sizeof(si)) == sizeof(si))
		d->stop = si.ssi_signo;
}

/* One round of the event loop: 250 ms at most. */
static void loop_once(struct imexd *d)
{
	struct pollfd fds[4 + IMEXD_MAX_NODES];
	int n, i, k;

	peer_tick(d, time(NULL));
	kernel_links(d);
	fds[0] = (struct pollfd){ .fd = d->lfd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = d->cfd, .events = POLLIN };
	fds[2] = (struct pollfd){ .fd = kernel_fd(), .events = POLLIN };
	fds[3] = (struct pollfd){ .fd = d->sfd, .events = POLLIN };
	n = 4;
	for (i = 0; i < d->nodes; i++)
		if (d->peers[i].fd >= 0)
			fds[n++] = (struct pollfd){
				.fd = d->peers[i].fd,
				.events = d->peers[i].state == PEER_CONNECTING ?
					  POLLOUT : POLLIN,
			};
	if (poll(fds, n, 250) <= 0)
		return;
	if (fds[0].revents)
		peer_accept(d);
	if (fds[1].revents)
		status_answer(d);
	if (fds[2].revents)
		kernel_receive(d);
	if (fds[3].revents)
		on_signal(d);
	for (k = 4; k < n; k++) {
		if (!fds[k].revents)
			continue;
		for (i = 0; i < d->nodes; i++)
			if (d->peers[i].fd == fds[k].fd &&
			    d->peers[i].state == PEER_CONNECTING)
				break;
		if (i < d->nodes)
			peer_writable(d, &d->peers[i]);
		else
			peer_readable(d, fds[k].fd);
	}
}

static void loop(struct imexd *d)
{
	while (!d->stop)
		loop_once(d);
}

/*
 * Stopping: this node's exports end on every importer (REVOKE), which
 * confirms once nothing of them is in use there (REVOKE_DONE, after its
 * RELEASEs); IMEXD_REVOKE_WAIT seconds at most. What an importer did not
 * confirm stays this node's kernel's to keep until that node is lost.
 */
static void revoke_exports(struct imexd *d)
{
	time_t end = time(NULL) + IMEXD_REVOKE_WAIT;
	int n = peer_revoke_all(d);

	if (!n)
		return;
	imexd_log("signal %d: ending this node's exports on %d nodes", d->stop,
		  n);
	while (peer_revoking(d) && time(NULL) < end)
		loop_once(d);
	if (peer_revoking(d))
		imexd_log("some nodes did not confirm in %d s: their imports stay until they are lost",
			  IMEXD_REVOKE_WAIT);
}

static void print_usage_and_exit(void)
{
	fprintf(stderr, "usage: cufab-imexd [-c CONFIG] [-n NODES_FILE] [-i INDEX] [-q | -N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct config c = { .port = 50000, .cmd_port = 50005, .grace = -1,
			    .index = -1 };
	static struct imexd d;
	const char *env = getenv("CUFAB_NODE_CONFIG");
	const char *key = getenv("CUFAB_DOMAIN_KEY_FILE");
	sigset_t stop;
	char query = 0;
	int opt;

	if (env)
		snprintf(c.nodes_file, sizeof(c.nodes_file), "%s", env);
	if (key)
		snprintf(c.key_file, sizeof(c.key_file), "%s", key);
	while ((opt = getopt(argc, argv, "c:n:i:qNh")) != -1) {
		switch (opt) {
		case 'c':
			if (read_config(optarg, &c))
				return 2;
			break;
		case 'n':
			snprintf(c.nodes_file, sizeof(c.nodes_file), "%s", optarg);
			break;
		case 'i':
			c.index = atoi(optarg);
			break;
		case 'q':
			query = 'q';
			break;
		case 'N':
			query = 'N';
			break;
		default:
			print_usage_and_exit();
		}
	}
	if (optind != argc)
		print_usage_and_exit();
	if (query)
		return status_query(&c, query);
	if (!c.nodes_file[0]) {
		fprintf(stderr, "cufab-imexd: no node list (IMEX_NODE_CONFIG_FILE, -n or $CUFAB_NODE_CONFIG)\n");
		return 2;
	}
	if (read_nodes(&d, &c))
		return 1;
	log_node = d.me;
	if (c.key_file[0] && auth_load_key(&d.auth, c.key_file))
		return 2;
	if (!d.auth.keyed)
		imexd_log("no domain key (CUFAB_DOMAIN_KEY_FILE): the daemons do not authenticate each other and trust their network");
	d.port = c.port;
	d.cmd_port = c.cmd_port;
	d.grace = c.grace;
	while (!d.instance && getrandom(&d.instance, sizeof(d.instance), 0) < 0)
		;
	peer_init(&d);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	d.sfd = signalfd(-1, &stop, SFD_CLOEXEC);
	d.lfd = listen_on(c.bind_ip[0] ? c.bind_ip : d.peers[d.me].addr, c.port);
	d.cfd = listen_on("127.0.0.1", c.cmd_port);
	if (d.lfd < 0 || d.cfd < 0 || d.sfd < 0 || kernel_open(&d))
		return 1;
	d.registered = true;
	imexd_log("node %d of %d (%s:%d), grace %d, instance %016llx: running",
		  d.me, d.nodes, d.peers[d.me].addr, c.port, d.grace,
		  (unsigned long long)d.instance);
	loop(&d);
	revoke_exports(&d);
	imexd_log("signal %d: saying goodbye to the other nodes", d.stop);
	peer_bye(&d);
	kernel_unregister();
	kernel_close();
	return 0;
}
