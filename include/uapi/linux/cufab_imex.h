/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cufab: the generic netlink family "cufab_imex", between cufab.ko and its
 * node's daemon, cufab-imexd (Documentation/multinode.rst). The daemon
 * brokers FABRIC imports between the nodes of a fabric domain; the kernel
 * owns every object and does every check.
 *
 * Every command the daemon sends needs CAP_NET_ADMIN. One daemon at a time:
 * REGISTER binds the first socket, and its close is the daemon's death.
 *
 * An import, from the importing kernel (I) to the exporting one (E):
 *   I: RESOLVE to its daemon; the daemons: RESOLVE over TCP;
 *   E: EXPORT_GET from its daemon, answered; the daemons: RESOLVED;
 *   I: RESOLVED from its daemon. Its end: I sends RELEASE, E gets
 *   EXPORT_PUT. When E's daemon stops: I gets REVOKE, then sends RELEASE.
 * When I's daemon dies (no UNREGISTER), I's kernel revokes its imports
 * after the grace time; E drops them once I's record in the window says
 * it let go (the reclaim fence).
 */
#ifndef _UAPI_LINUX_CUFAB_IMEX_H
#define _UAPI_LINUX_CUFAB_IMEX_H

#define CUFAB_IMEX_GENL_NAME		"cufab_imex"
#define CUFAB_IMEX_GENL_VERSION		1

enum cufab_imex_cmd {
	CUFAB_IMEX_CMD_UNSPEC,
	/* daemon: do (NODE = its node index, must be the module's; GRACE) */
	CUFAB_IMEX_CMD_REGISTER,
	/* kernel to daemon: import REQ_ID of HANDLE from NODE, on CHANNEL */
	CUFAB_IMEX_CMD_RESOLVE,
	/* daemon: do, the answer to RESOLVE REQ_ID (STATUS, extent, TOKEN) */
	CUFAB_IMEX_CMD_RESOLVED,
	/*
	 * daemon: do (HANDLE, CHANNEL, NODE = the importer); the reply, same
	 * command, carries STATUS and, when 0, the extent, TOKEN and DEV
	 */
	CUFAB_IMEX_CMD_EXPORT_GET,
	/* kernel to daemon: the import TOKEN of NODE's export was released */
	CUFAB_IMEX_CMD_RELEASE,
	/* daemon: do (NODE = the importer, TOKEN): drop that reference */
	CUFAB_IMEX_CMD_EXPORT_PUT,
	/*
	 * daemon: do (NODE): that node is gone: this node's imports of its
	 * memory are revoked, its imports of this node's exports dropped,
	 * requests waiting for it fail (-EHOSTDOWN)
	 */
	CUFAB_IMEX_CMD_NODE_DOWN,
	/*
	 * daemon: do (NODE): that node ended its exports (its daemon stops):
	 * this node's imports of its memory are revoked, and each is
	 * released (RELEASE) once no page of it is in use; returns then
	 */
	CUFAB_IMEX_CMD_REVOKE,
	/*
	 * both ways, a multicast team across nodes: kernel to daemon, NODE is
	 * the node the TEAM record is for; daemon to kernel (do), NODE is the
	 * node it came from. JOIN asks the team's home node for a member;
	 * STATE carries members and bindings (Documentation/multinode.rst,
	 * "Teams across nodes"). The daemons carry TEAM unread.
	 */
	CUFAB_IMEX_CMD_TEAM_JOIN,
	CUFAB_IMEX_CMD_TEAM_STATE,
	/*
	 * daemon: do (NODE, LINK = enum cufab_domain_link): its connection to
	 * NODE, for the cufab family's DOMAIN_GET; forgotten with the daemon
	 */
	CUFAB_IMEX_CMD_LINK,
	/*
	 * The reclaim fence (Documentation/multinode.rst "Failure").
	 * daemon: do, on the socket that registered: it stops cleanly (after
	 * its REVOKEs and BYE); its socket's close without this is its death,
	 * after which the kernel revokes its imports by the GRACE time the
	 * daemon registered with
	 */
	CUFAB_IMEX_CMD_UNREGISTER,
	__CUFAB_IMEX_CMD_MAX,
};

#define CUFAB_IMEX_CMD_MAX (__CUFAB_IMEX_CMD_MAX - 1)

enum cufab_imex_attr {
	CUFAB_IMEX_A_UNSPEC,
	CUFAB_IMEX_A_PAD,
	CUFAB_IMEX_A_NODE,	/* u32, a node index */
	CUFAB_IMEX_A_REQ_ID,	/* u64, a RESOLVE request of the kernel */
	CUFAB_IMEX_A_HANDLE,	/* binary, the 64-byte FABRIC handle */
	CUFAB_IMEX_A_CHANNEL,	/* u32, the importer's IMEX channel */
	CUFAB_IMEX_A_STATUS,	/* s32, 0 or a negative errno */
	CUFAB_IMEX_A_OFFSET,	/* u64, the allocation's start in the window */
	CUFAB_IMEX_A_LENGTH,	/* u64, its length in bytes */
	CUFAB_IMEX_A_TOKEN,	/* u64, the exporter's name of one import */
	CUFAB_IMEX_A_DEV,	/* u32, the exporter's GPU of the allocation */
	CUFAB_IMEX_A_TEAM,	/* binary, a team record, kernel to kernel */
	CUFAB_IMEX_A_KIND,	/* u32, CUFAB_IMEX_KIND_*; absent: memory */
	CUFAB_IMEX_A_DEVICES,	/* u32, a multicast object's numDevices */
	CUFAB_IMEX_A_ID,	/* u64, its allocation id on its home node */
	CUFAB_IMEX_A_LINK,	/* u32, enum cufab_domain_link (linux/cufab.h) */
	/*
	 * The reclaim fence: s32, REGISTER's grace time in seconds (-1: wait
	 * forever; absent: -1), IMEX_NODE_DISCONNECTED_GRACE_TIME
	 */
	CUFAB_IMEX_A_GRACE,
	__CUFAB_IMEX_A_MAX,
};

#define CUFAB_IMEX_A_MAX (__CUFAB_IMEX_A_MAX - 1)

/* what an EXPORT_GET / RESOLVED answer names */
#define CUFAB_IMEX_KIND_MEMORY		0
#define CUFAB_IMEX_KIND_MULTICAST	1
/*
 * Endpoint teams across nodes: a logical endpoint, unicast or multicast.
 * Its answer's OFFSET is the bind alignment (a power of two, 4 KiB at
 * least) ORed with its CUFAB_LE_FLAG_* bits; LENGTH its size; DEV a
 * unicast endpoint's owner GPU; DEVICES its team's size; ID its number on
 * its home node; TOKEN has bit 32 set (memory's tokens fit 32 bits). Its
 * TEAM records are of kind 2 (Documentation/multinode.rst).
 */
#define CUFAB_IMEX_KIND_LE_UNICAST	2
#define CUFAB_IMEX_KIND_LE_MULTICAST	3

/* the largest TEAM record, within the daemons' 64 KiB payload */
#define CUFAB_IMEX_TEAM_MAX		60000

#endif /* _UAPI_LINUX_CUFAB_IMEX_H */
