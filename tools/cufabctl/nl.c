// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink transport of cufabctl (libnl-3): resolving the family,
 * one request/response exchange with its ACK, dumps, the events group,
 * and turning the kernel's errors (errno plus extended ACK) into one line
 * a user can act on.
 *
 * Every request is sent with NLM_F_ACK (libnl's auto-ACK). A "do" request
 * is answered by zero or one reply message and then the ACK, each its own
 * datagram; a dump by several messages and NLMSG_DONE, no ACK. The receive
 * loop therefore runs until it has seen the ACK, NLMSG_DONE or an error:
 * leaving an ACK in the socket would make the next request read it as its
 * own answer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>

#include "cufabctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* Attribute names as the spec (Documentation/netlink/cufab.yaml) spells them. */
static const char * const attr_names[CUFAB_NL_A_MAX + 1] = {
	[CUFAB_NL_A_DEV]		= "dev",
	[CUFAB_NL_A_DEV_INDEX]		= "dev-index",
	[CUFAB_NL_A_DEV_NAME]		= "dev-name",
	[CUFAB_NL_A_DEV_UUID]		= "dev-uuid",
	[CUFAB_NL_A_DEV_BUS_ID]		= "dev-bus-id",
	[CUFAB_NL_A_DEV_MEM_TOTAL]	= "dev-mem-total",
	[CUFAB_NL_A_DEV_MEM_USED]	= "dev-mem-used",
	[CUFAB_NL_A_DEV_NUMA_NODE]	= "dev-numa-node",
	[CUFAB_NL_A_DEV_CLIQUE]		= "dev-clique",
	[CUFAB_NL_A_DEV_FEATURES]	= "dev-features",
	[CUFAB_NL_A_DEV_PEERS]		= "dev-peers",
	[CUFAB_NL_A_TOPO_NUM_GPUS]	= "topo-num-gpus",
	[CUFAB_NL_A_TOPO_NVSWITCH]	= "topo-nvswitch",
	[CUFAB_NL_A_TOPO_CLIENTS]	= "topo-clients",
	[CUFAB_NL_A_TOPO_LIVE_OBJECTS]	= "topo-live-objects",
	[CUFAB_NL_A_PAD]		= "pad",
	[CUFAB_NL_A_DEV_FEATURES_MASK]	= "dev-features-mask",
	[CUFAB_NL_A_ALLOC_ID]		= "alloc-id",
	[CUFAB_NL_A_ALLOC_PID]		= "alloc-pid",
	[CUFAB_NL_A_ALLOC_COMM]		= "alloc-comm",
	[CUFAB_NL_A_ALLOC_LOC_TYPE]	= "alloc-loc-type",
	[CUFAB_NL_A_ALLOC_LOC_ID]	= "alloc-loc-id",
	[CUFAB_NL_A_ALLOC_SIZE]		= "alloc-size",
	[CUFAB_NL_A_ALLOC_RESIDENT]	= "alloc-resident",
	[CUFAB_NL_A_ALLOC_HANDLE_TYPES]	= "alloc-handle-types",
	[CUFAB_NL_A_ALLOC_LINEAR]	= "alloc-linear",
	[CUFAB_NL_A_DEV_MEM_GRAN]	= "dev-mem-gran",
	[CUFAB_NL_A_DEV_MEM_GRAN_REC]	= "dev-mem-gran-rec",
	[CUFAB_NL_A_DEV_MC_GRAN]	= "dev-mc-gran",
	[CUFAB_NL_A_DEV_MC_GRAN_REC]	= "dev-mc-gran-rec",
	[CUFAB_NL_A_PID]		= "pid",
	[CUFAB_NL_A_COMM]		= "comm",
	[CUFAB_NL_A_LE_RANGE]		= "le-range",
	[CUFAB_NL_A_LE_RANGE_BASE]	= "le-range-base",
	[CUFAB_NL_A_LE_RANGE_COUNT]	= "le-range-count",
	[CUFAB_NL_A_LE]			= "le",
	[CUFAB_NL_A_LE_ID]		= "le-id",
	[CUFAB_NL_A_LE_ENDPOINT]	= "le-endpoint",
	[CUFAB_NL_A_LE_TYPE]		= "le-type",
	[CUFAB_NL_A_LE_SIZE]		= "le-size",
	[CUFAB_NL_A_LE_FLAGS]		= "le-flags",
	[CUFAB_NL_A_LE_IPC_TYPES]	= "le-ipc-types",
	[CUFAB_NL_A_LE_READY]		= "le-ready",
	[CUFAB_NL_A_LE_ALIASES]		= "le-aliases",
	[CUFAB_NL_A_LE_EXPORTER_PID]	= "le-exporter-pid",
	[CUFAB_NL_A_LE_IMPORTED]	= "le-imported",
	[CUFAB_NL_A_TEAM_SIZE]		= "team-size",
	[CUFAB_NL_A_TEAM_JOINED]	= "team-joined",
	[CUFAB_NL_A_TEAM_DEVS]		= "team-devs",
	[CUFAB_NL_A_TEAM_WAITERS]	= "team-waiters",
	[CUFAB_NL_A_BINDING]		= "binding",
	[CUFAB_NL_A_BIND_DEV]		= "bind-dev",
	[CUFAB_NL_A_BIND_OFFSET]	= "bind-offset",
	[CUFAB_NL_A_BIND_SIZE]		= "bind-size",
	[CUFAB_NL_A_BIND_ALLOC_ID]	= "bind-alloc-id",
	[CUFAB_NL_A_BIND_MEM_OFFSET]	= "bind-mem-offset",
	[CUFAB_NL_A_BIND_PID]		= "bind-pid",
	[CUFAB_NL_A_MC_ID]		= "mc-id",
	[CUFAB_NL_A_MC_SIZE]		= "mc-size",
	[CUFAB_NL_A_MC_HANDLE_TYPES]	= "mc-handle-types",
	[CUFAB_NL_A_MC_SKIPPED]		= "mc-skipped",
	[CUFAB_NL_A_MC_HANDLES]		= "mc-handles",
	[CUFAB_NL_A_PEER_CTX]		= "peer-ctx",
	[CUFAB_NL_A_PEER_DEV]		= "peer-dev",
	[CUFAB_NL_A_PEER_PEER_CTX]	= "peer-peer-ctx",
	[CUFAB_NL_A_PEER_PEER_DEV]	= "peer-peer-dev",
	[CUFAB_NL_A_DEV_PEER_COUNT]	= "dev-peer-count",
	[CUFAB_NL_A_TOPO_CLUSTER_UUID]	= "topo-cluster-uuid",
	[CUFAB_NL_A_POOL_ID]		= "pool-id",
	[CUFAB_NL_A_POOL_LOC_TYPE]	= "pool-loc-type",
	[CUFAB_NL_A_POOL_LOC_ID]	= "pool-loc-id",
	[CUFAB_NL_A_POOL_HANDLE_TYPES]	= "pool-handle-types",
	[CUFAB_NL_A_POOL_DEFAULT]	= "pool-default",
	[CUFAB_NL_A_POOL_MAX_SIZE]	= "pool-max-size",
	[CUFAB_NL_A_POOL_RESERVED]	= "pool-reserved",
	[CUFAB_NL_A_POOL_RESERVED_HIGH]	= "pool-reserved-high",
	[CUFAB_NL_A_POOL_THRESHOLD]	= "pool-threshold",
	[CUFAB_NL_A_POOL_IMPORTERS]	= "pool-importers",
	[CUFAB_NL_A_POOL_PTRS]		= "pool-ptrs",
	[CUFAB_NL_A_STREAM_UID]		= "stream-uid",
	[CUFAB_NL_A_STREAM_CTX]		= "stream-ctx",
	[CUFAB_NL_A_STREAM_DEV]		= "stream-dev",
	[CUFAB_NL_A_STREAM_FLAGS]	= "stream-flags",
	[CUFAB_NL_A_STREAM_PRIORITY]	= "stream-priority",
	[CUFAB_NL_A_STREAM_DEPTH]	= "stream-depth",
	[CUFAB_NL_A_STREAM_SUBMITTED]	= "stream-submitted",
	[CUFAB_NL_A_STREAM_COMPLETED]	= "stream-completed",
	[CUFAB_NL_A_STREAM_RUNNING]	= "stream-running",
	[CUFAB_NL_A_STREAM_ERROR]	= "stream-error",
	[CUFAB_NL_A_STREAM_OP]		= "stream-op",
	[CUFAB_NL_A_STREAM_SEQ]		= "stream-seq",
	[CUFAB_NL_A_TOPO_RACE_DELAY_US]	= "topo-race-delay-us",
	[CUFAB_NL_A_TOPO_RACE_SEED]	= "topo-race-seed",
	[CUFAB_NL_A_MANAGED_KIND]	= "managed-kind",
	[CUFAB_NL_A_MANAGED_ADDR]	= "managed-addr",
	[CUFAB_NL_A_MANAGED_ALLOC_ID]	= "managed-alloc-id",
	[CUFAB_NL_A_MANAGED_OFFSET]	= "managed-offset",
	[CUFAB_NL_A_MANAGED_ATTACH]	= "managed-attach",
	[CUFAB_NL_A_MANAGED_STREAM]	= "managed-stream",
	[CUFAB_NL_A_MANAGED_DEV]	= "managed-dev",
	[CUFAB_NL_A_MANAGED_BY_STREAM]	= "managed-by-stream",
	[CUFAB_NL_A_TOPO_MANAGED_CHECK]	= "topo-managed-check",
	[CUFAB_NL_A_POOL_REUSE]		= "pool-reuse",
	[CUFAB_NL_A_PROC_CONTEXTS]	= "proc-contexts",
	[CUFAB_NL_A_PROC_MEM_HANDLES]	= "proc-mem-handles",
	[CUFAB_NL_A_PROC_STREAMS]	= "proc-streams",
	[CUFAB_NL_A_PROC_EVENTS]	= "proc-events",
	[CUFAB_NL_A_PROC_POOLS]		= "proc-pools",
	[CUFAB_NL_A_PROC_MEM_BYTES]	= "proc-mem-bytes",
	[CUFAB_NL_A_DEV_CC_MAJOR]	= "dev-cc-major",
	[CUFAB_NL_A_DEV_CC_MINOR]	= "dev-cc-minor",
	[CUFAB_NL_A_TOPO_FABRIC_STATE]	= "topo-fabric-state",
	[CUFAB_NL_A_DEV_PCI_DEVICE_ID]	= "dev-pci-device-id",
	[CUFAB_NL_A_DEV_PCI_SUBSYS_ID]	= "dev-pci-subsys-id",
	[CUFAB_NL_A_TOPO_NVSWITCH_BUS_ID] = "topo-nvswitch-bus-id",
	[CUFAB_NL_A_TOPO_NVSWITCH_PCI_ID] = "topo-nvswitch-pci-id",
	[CUFAB_NL_A_DOMAIN_NODE]	= "domain-node",
	[CUFAB_NL_A_DOMAIN_SELF]	= "domain-self",
	[CUFAB_NL_A_DOMAIN_STATE]	= "domain-state",
	[CUFAB_NL_A_DOMAIN_ALIVE]	= "domain-alive",
	[CUFAB_NL_A_DOMAIN_GENERATION]	= "domain-generation",
	[CUFAB_NL_A_DOMAIN_INSTANCE]	= "domain-instance",
	[CUFAB_NL_A_DOMAIN_HEARTBEAT]	= "domain-heartbeat",
	[CUFAB_NL_A_DOMAIN_DAEMON]	= "domain-daemon",
	[CUFAB_NL_A_DOMAIN_LINK]	= "domain-link",
};

static const char * const cmd_names[CUFAB_NL_CMD_MAX + 1] = {
	[CUFAB_NL_CMD_DEV_GET]		= "dev-get",
	[CUFAB_NL_CMD_DEV_SET]		= "dev-set",
	[CUFAB_NL_CMD_TOPO_GET]		= "topo-get",
	[CUFAB_NL_CMD_TOPO_SET]		= "topo-set",
	[CUFAB_NL_CMD_ALLOC_GET]	= "alloc-get",
	[CUFAB_NL_CMD_LE_GET]		= "le-get",
	[CUFAB_NL_CMD_MC_GET]		= "mc-get",
	[CUFAB_NL_CMD_MC_EVENT]		= "mc-event",
	[CUFAB_NL_CMD_PEER_GET]		= "peer-get",
	[CUFAB_NL_CMD_POOL_GET]		= "pool-get",
	[CUFAB_NL_CMD_STREAM_GET]	= "stream-get",
	[CUFAB_NL_CMD_STREAM_EVENT]	= "stream-event",
	[CUFAB_NL_CMD_MANAGED_EVENT]	= "managed-event",
	[CUFAB_NL_CMD_PROC_GET]		= "proc-get",
	[CUFAB_NL_CMD_DOMAIN_GET]	= "domain-get",
};

/*
 * What we accept from the kernel. Attributes this tool does not know
 * (a newer kernel) are ignored by nla_parse(), never an error.
 */
static struct nla_policy policy[CUFAB_NL_A_MAX + 1] = {
	[CUFAB_NL_A_DEV]		= { .type = NLA_NESTED },
	[CUFAB_NL_A_DEV_INDEX]		= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_NAME]		= { .type = NLA_STRING,
					    .maxlen = CUFAB_NAME_LEN },
	[CUFAB_NL_A_DEV_UUID]		= { .type = NLA_UNSPEC,
					    .minlen = CUFAB_UUID_LEN,
					    .maxlen = CUFAB_UUID_LEN },
	[CUFAB_NL_A_DEV_BUS_ID]		= { .type = NLA_STRING, .maxlen = 32 },
	[CUFAB_NL_A_DEV_MEM_TOTAL]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_MEM_USED]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_NUMA_NODE]	= { .type = NLA_S32 },
	[CUFAB_NL_A_DEV_CLIQUE]		= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_FEATURES]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_PEERS]		= { .type = NLA_U64 },
	[CUFAB_NL_A_TOPO_NUM_GPUS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_NVSWITCH]	= { .type = NLA_U8 },
	[CUFAB_NL_A_TOPO_CLIENTS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_LIVE_OBJECTS]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_FEATURES_MASK]	= { .type = NLA_U32 },
	[CUFAB_NL_A_ALLOC_ID]		= { .type = NLA_U64 },
	[CUFAB_NL_A_ALLOC_PID]		= { .type = NLA_U32 },
	[CUFAB_NL_A_ALLOC_COMM]		= { .type = NLA_STRING },
	[CUFAB_NL_A_ALLOC_LOC_TYPE]	= { .type = NLA_U32 },
	[CUFAB_NL_A_ALLOC_LOC_ID]	= { .type = NLA_S32 },
	[CUFAB_NL_A_ALLOC_SIZE]		= { .type = NLA_U64 },
	[CUFAB_NL_A_ALLOC_RESIDENT]	= { .type = NLA_U64 },
	[CUFAB_NL_A_ALLOC_HANDLE_TYPES]	= { .type = NLA_U32 },
	[CUFAB_NL_A_ALLOC_LINEAR]	= { .type = NLA_U8 },
	[CUFAB_NL_A_DEV_MEM_GRAN]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_MEM_GRAN_REC]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_MC_GRAN]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_MC_GRAN_REC]	= { .type = NLA_U64 },
	[CUFAB_NL_A_PID]		= { .type = NLA_U32 },
	[CUFAB_NL_A_COMM]		= { .type = NLA_STRING },
	[CUFAB_NL_A_LE_RANGE]		= { .type = NLA_NESTED },
	[CUFAB_NL_A_LE_RANGE_BASE]	= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_RANGE_COUNT]	= { .type = NLA_U32 },
	[CUFAB_NL_A_LE]			= { .type = NLA_NESTED },
	[CUFAB_NL_A_LE_ID]		= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_ENDPOINT]	= { .type = NLA_U64 },
	[CUFAB_NL_A_LE_TYPE]		= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_SIZE]		= { .type = NLA_U64 },
	[CUFAB_NL_A_LE_FLAGS]		= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_IPC_TYPES]	= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_READY]		= { .type = NLA_U8 },
	[CUFAB_NL_A_LE_ALIASES]		= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_EXPORTER_PID]	= { .type = NLA_U32 },
	[CUFAB_NL_A_LE_IMPORTED]	= { .type = NLA_U8 },
	[CUFAB_NL_A_TEAM_SIZE]		= { .type = NLA_U32 },
	[CUFAB_NL_A_TEAM_JOINED]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TEAM_DEVS]		= { .type = NLA_U64 },
	[CUFAB_NL_A_TEAM_WAITERS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_BINDING]		= { .type = NLA_NESTED },
	[CUFAB_NL_A_BIND_DEV]		= { .type = NLA_U32 },
	[CUFAB_NL_A_BIND_OFFSET]	= { .type = NLA_U64 },
	[CUFAB_NL_A_BIND_SIZE]		= { .type = NLA_U64 },
	[CUFAB_NL_A_BIND_ALLOC_ID]	= { .type = NLA_U64 },
	[CUFAB_NL_A_BIND_MEM_OFFSET]	= { .type = NLA_U64 },
	[CUFAB_NL_A_BIND_PID]		= { .type = NLA_U32 },
	[CUFAB_NL_A_MC_ID]		= { .type = NLA_U64 },
	[CUFAB_NL_A_MC_SIZE]		= { .type = NLA_U64 },
	[CUFAB_NL_A_MC_HANDLE_TYPES]	= { .type = NLA_U32 },
	[CUFAB_NL_A_MC_SKIPPED]		= { .type = NLA_U64 },
	[CUFAB_NL_A_MC_HANDLES]		= { .type = NLA_U32 },
	[CUFAB_NL_A_PEER_CTX]		= { .type = NLA_U32 },
	[CUFAB_NL_A_PEER_DEV]		= { .type = NLA_U32 },
	[CUFAB_NL_A_PEER_PEER_CTX]	= { .type = NLA_U32 },
	[CUFAB_NL_A_PEER_PEER_DEV]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_PEER_COUNT]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_CLUSTER_UUID]	= { .type = NLA_UNSPEC,
					    .minlen = CUFAB_UUID_LEN,
					    .maxlen = CUFAB_UUID_LEN },
	[CUFAB_NL_A_POOL_ID]		= { .type = NLA_U32 },
	[CUFAB_NL_A_POOL_LOC_TYPE]	= { .type = NLA_U32 },
	[CUFAB_NL_A_POOL_LOC_ID]	= { .type = NLA_S32 },
	[CUFAB_NL_A_POOL_HANDLE_TYPES]	= { .type = NLA_U32 },
	[CUFAB_NL_A_POOL_DEFAULT]	= { .type = NLA_U8 },
	[CUFAB_NL_A_POOL_MAX_SIZE]	= { .type = NLA_U64 },
	[CUFAB_NL_A_POOL_RESERVED]	= { .type = NLA_U64 },
	[CUFAB_NL_A_POOL_RESERVED_HIGH]	= { .type = NLA_U64 },
	[CUFAB_NL_A_POOL_THRESHOLD]	= { .type = NLA_U64 },
	[CUFAB_NL_A_POOL_IMPORTERS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_POOL_PTRS]		= { .type = NLA_U32 },
	[CUFAB_NL_A_STREAM_UID]		= { .type = NLA_U64 },
	[CUFAB_NL_A_STREAM_CTX]		= { .type = NLA_U32 },
	[CUFAB_NL_A_STREAM_DEV]		= { .type = NLA_U32 },
	[CUFAB_NL_A_STREAM_FLAGS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_STREAM_PRIORITY]	= { .type = NLA_S32 },
	[CUFAB_NL_A_STREAM_DEPTH]	= { .type = NLA_U32 },
	[CUFAB_NL_A_STREAM_SUBMITTED]	= { .type = NLA_U64 },
	[CUFAB_NL_A_STREAM_COMPLETED]	= { .type = NLA_U64 },
	[CUFAB_NL_A_STREAM_RUNNING]	= { .type = NLA_STRING },
	[CUFAB_NL_A_STREAM_ERROR]	= { .type = NLA_S32 },
	[CUFAB_NL_A_STREAM_OP]		= { .type = NLA_STRING },
	[CUFAB_NL_A_STREAM_SEQ]		= { .type = NLA_U64 },
	[CUFAB_NL_A_TOPO_RACE_DELAY_US]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_RACE_SEED]	= { .type = NLA_U32 },
	[CUFAB_NL_A_MANAGED_KIND]	= { .type = NLA_U32 },
	[CUFAB_NL_A_MANAGED_ADDR]	= { .type = NLA_U64 },
	[CUFAB_NL_A_MANAGED_ALLOC_ID]	= { .type = NLA_U64 },
	[CUFAB_NL_A_MANAGED_OFFSET]	= { .type = NLA_U64 },
	[CUFAB_NL_A_MANAGED_ATTACH]	= { .type = NLA_U32 },
	[CUFAB_NL_A_MANAGED_STREAM]	= { .type = NLA_U64 },
	[CUFAB_NL_A_MANAGED_DEV]	= { .type = NLA_U32 },
	[CUFAB_NL_A_MANAGED_BY_STREAM]	= { .type = NLA_U64 },
	[CUFAB_NL_A_TOPO_MANAGED_CHECK]	= { .type = NLA_U32 },
	[CUFAB_NL_A_POOL_REUSE]		= { .type = NLA_U32 },
	[CUFAB_NL_A_PROC_CONTEXTS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_PROC_MEM_HANDLES]	= { .type = NLA_U32 },
	[CUFAB_NL_A_PROC_STREAMS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_PROC_EVENTS]	= { .type = NLA_U32 },
	[CUFAB_NL_A_PROC_POOLS]		= { .type = NLA_U32 },
	[CUFAB_NL_A_PROC_MEM_BYTES]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DEV_CC_MAJOR]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_CC_MINOR]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_FABRIC_STATE]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_PCI_DEVICE_ID]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DEV_PCI_SUBSYS_ID]	= { .type = NLA_U32 },
	[CUFAB_NL_A_TOPO_NVSWITCH_BUS_ID] = { .type = NLA_STRING },
	[CUFAB_NL_A_TOPO_NVSWITCH_PCI_ID] = { .type = NLA_U32 },
	[CUFAB_NL_A_DOMAIN_NODE]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DOMAIN_SELF]	= { .type = NLA_U8 },
	[CUFAB_NL_A_DOMAIN_STATE]	= { .type = NLA_U32 },
	[CUFAB_NL_A_DOMAIN_ALIVE]	= { .type = NLA_U8 },
	[CUFAB_NL_A_DOMAIN_GENERATION]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DOMAIN_INSTANCE]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DOMAIN_HEARTBEAT]	= { .type = NLA_U64 },
	[CUFAB_NL_A_DOMAIN_DAEMON]	= { .type = NLA_U8 },
	[CUFAB_NL_A_DOMAIN_LINK]	= { .type = NLA_U32 },
};

static struct nla_policy extack_policy[NLMSGERR_ATTR_MAX + 1] = {
	[NLMSGERR_ATTR_MSG]		= { .type = NLA_STRING },
	[NLMSGERR_ATTR_OFFS]		= { .type = NLA_U32 },
	[NLMSGERR_ATTR_MISS_TYPE]	= { .type = NLA_U32 },
};

/* State of one request while its answer is read. */
struct transact {
	struct ctl *ctl;
	struct nl_msg *req;
	cnl_reply_cb cb;
	void *arg;
	struct cnl_error *e;
	int cb_err;		/* the reply callback or parser failed */
	bool done;		/* ACK, NLMSG_DONE or error seen */
};

const char *cnl_attr_name(int type)
{
	if (type > 0 && type <= CUFAB_NL_A_MAX && attr_names[type])
		return attr_names[type];
	return "unknown";
}

const char *cnl_cmd_name(uint8_t cmd)
{
	if (cmd <= CUFAB_NL_CMD_MAX && cmd_names[cmd])
		return cmd_names[cmd];
	return NULL;
}

/* The attribute of our request that NLMSGERR_ATTR_OFFS points at. */
static int attr_at_offset(struct nl_msg *req, uint32_t offs)
{
	struct nlmsghdr *nlh;
	struct nlattr *nla;

	if (!req)
		return 0;
	nlh = nlmsg_hdr(req);
	if (offs < NLMSG_HDRLEN + GENL_HDRLEN ||
	    offs + sizeof(*nla) > nlh->nlmsg_len)
		return 0;
	nla = (struct nlattr *)((char *)nlh + offs);
	return nla_type(nla);
}

/* Extended ACK TLVs start @off bytes into the payload of @nlh. */
static void parse_extack(struct nlmsghdr *nlh, size_t off,
			 struct transact *t)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct cnl_error *e = t->e;
	int len = nlmsg_datalen(nlh) - (int)off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(nlh) + off), len,
		      extack_policy) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(e->msg, tb[NLMSGERR_ATTR_MSG], sizeof(e->msg));
	if (tb[NLMSGERR_ATTR_OFFS])
		e->attr = attr_at_offset(t->req,
					 nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		e->attr = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
		e->missing = true;
	}
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err,
		    void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	struct transact *t = arg;
	size_t off = sizeof(*err);

	t->e->err = -err->error;
	t->done = true;
	/* Unless capped, the kernel echoes our request before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - NLMSG_HDRLEN;
	parse_extack(nlh, off, t);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct transact *t = arg;

	t->done = true;
	return NL_STOP;
}

/* NLMSG_DONE carries the dump's final status, then extack TLVs. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct transact *t = arg;
	int status;

	t->done = true;
	if (nlmsg_datalen(nlh) < (int)sizeof(status))
		return NL_STOP;
	memcpy(&status, nlmsg_data(nlh), sizeof(status));
	if (status < 0) {
		t->e->err = -status;
		parse_extack(nlh, sizeof(status), t);
	}
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUFAB_NL_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct transact *t = arg;
	int err;

	if (nlh->nlmsg_type != t->ctl->family)
		return NL_SKIP;
	err = genlmsg_parse(nlh, 0, tb, CUFAB_NL_A_MAX, policy);
	if (err < 0) {
		fprintf(stderr, "cufabctl: malformed %s message from the kernel: %s\n",
			cnl_cmd_name(gnlh->cmd) ?: "cufab", nl_geterror(err));
		t->cb_err = -EPROTO;
		return NL_STOP;
	}
	if (t->cb) {
		t->cb_err = t->cb(gnlh->cmd, tb, nlh, t->arg);
		if (t->cb_err)
			return NL_STOP;
	}
	return NL_OK;
}

static int no_seq_check(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

static struct nl_cb *transact_cb(struct transact *t, bool events)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, t);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, t);
	/* Notifications carry sequence number 0. */
	if (events)
		nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	return cb;
}

int cnl_connect(struct ctl *ctl)
{
	int one = 1, err;

	ctl->sk = nl_socket_alloc();
	if (!ctl->sk) {
		fprintf(stderr, "cufabctl: out of memory for a netlink socket\n");
		return EXIT_FAIL;
	}
	err = genl_connect(ctl->sk);
	if (err < 0) {
		fprintf(stderr, "cufabctl: cannot open a generic netlink socket: %s\n",
			nl_geterror(err));
		return EXIT_FAIL;
	}
	/* Error strings from the kernel; older kernels lack them, fine. */
	setsockopt(nl_socket_get_fd(ctl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	/* Replies larger than a page (topo-get of 64 GPUs) must not truncate. */
	nl_socket_enable_msg_peek(ctl->sk);
	ctl->family = genl_ctrl_resolve(ctl->sk, CUFAB_GENL_NAME);
	if (ctl->family == -NLE_OBJ_NOTFOUND) {
		fprintf(stderr,
			"cufabctl: generic netlink family \"%s\" not found (is cufab.ko loaded?)\n",
			CUFAB_GENL_NAME);
		return EXIT_NO_FAMILY;
	}
	if (ctl->family < 0) {
		fprintf(stderr, "cufabctl: cannot resolve generic netlink family \"%s\": %s\n",
			CUFAB_GENL_NAME, nl_geterror(ctl->family));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

void cnl_disconnect(struct ctl *ctl)
{
	nl_socket_free(ctl->sk);
	ctl->sk = NULL;
}

struct nl_msg *cnl_new_request(struct ctl *ctl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ctl->family, 0,
			       dump ? NLM_F_DUMP : 0, cmd, CUFAB_GENL_VERSION))
		return msg;
	nlmsg_free(msg);
	fprintf(stderr, "cufabctl: out of memory for a %s request\n",
		cnl_cmd_name(cmd));
	return NULL;
}

/*
 * Connect and start a @cmd request in *@msg, the first step of every
 * command: 0, or the exit code of the failure, already reported.
 */
int cnl_start(struct ctl *ctl, uint8_t cmd, bool dump, struct nl_msg **msg)
{
	int ret = cnl_connect(ctl);

	if (ret)
		return ret;
	*msg = cnl_new_request(ctl, cmd, dump);
	return *msg ? EXIT_OK : EXIT_FAIL;
}

/*
 * Send @msg (consumed) and read until its ACK, NLMSG_DONE or error; @cb
 * sees every reply. Returns 0, -1 with @e filled when the kernel refused
 * the request, or -2 when the tool itself failed (already reported).
 */
int cnl_transact(struct ctl *ctl, struct nl_msg *msg, cnl_reply_cb cb,
		 void *arg, struct cnl_error *e)
{
	struct transact t = { .ctl = ctl, .req = msg, .cb = cb, .arg = arg,
			      .e = e };
	struct nl_cb *nlcb;
	int err;

	memset(e, 0, sizeof(*e));
	nlcb = transact_cb(&t, false);
	err = nlcb ? nl_send_auto(ctl->sk, msg) : -NLE_NOMEM;
	while (err >= 0 && !t.done && !t.cb_err)
		err = nl_recvmsgs(ctl->sk, nlcb);
	nl_cb_put(nlcb);
	nlmsg_free(msg);
	if (e->err)
		return -1;
	if (t.cb_err)
		return -2;
	if (err < 0) {
		fprintf(stderr, "cufabctl: netlink: %s\n", nl_geterror(err));
		return -2;
	}
	return 0;
}

int cnl_parse_nested(struct nlattr *nest, struct nlattr **tb)
{
	int err = nla_parse_nested(tb, CUFAB_NL_A_MAX, nest, policy);

	if (err < 0)
		fprintf(stderr, "cufabctl: malformed %s nest from the kernel: %s\n",
			cnl_attr_name(nla_type(nest)), nl_geterror(err));
	return err;
}

int cnl_join_events(struct ctl *ctl)
{
	int grp = genl_ctrl_resolve_grp(ctl->sk, CUFAB_GENL_NAME,
					CUFAB_GENL_MCGRP_EVENTS);
	int err;

	if (grp < 0) {
		fprintf(stderr,
			"cufabctl: monitor: family \"%s\" has no multicast group \"%s\": %s\n",
			CUFAB_GENL_NAME, CUFAB_GENL_MCGRP_EVENTS,
			nl_geterror(grp));
		return EXIT_FAIL;
	}
	err = nl_socket_add_membership(ctl->sk, grp);
	if (!err)
		err = nl_socket_set_nonblocking(ctl->sk);
	if (err < 0) {
		fprintf(stderr, "cufabctl: monitor: cannot join group \"%s\": %s\n",
			CUFAB_GENL_MCGRP_EVENTS, nl_geterror(err));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/*
 * Read what is queued on the (non-blocking) events socket and hand each
 * message to @cb. Returns 0, or -1 on a failure already reported.
 */
int cnl_receive_events(struct ctl *ctl, cnl_reply_cb cb, void *arg)
{
	struct cnl_error e = { 0 };
	struct transact t = { .ctl = ctl, .cb = cb, .arg = arg, .e = &e };
	struct nl_cb *nlcb = transact_cb(&t, true);
	int err;

	if (!nlcb) {
		fprintf(stderr, "cufabctl: monitor: out of memory\n");
		return -1;
	}
	err = nl_recvmsgs(ctl->sk, nlcb);
	nl_cb_put(nlcb);
	if (t.cb_err)
		return -1;
	/* libnl reports ENOBUFS (receive queue overrun) as NLE_NOMEM. */
	if (err == -NLE_NOMEM) {
		fprintf(stderr,
			"cufabctl: monitor: events were lost (socket receive buffer overrun)\n");
		return 0;
	}
	if (err < 0 && err != -NLE_AGAIN) {
		fprintf(stderr, "cufabctl: monitor: %s\n", nl_geterror(err));
		return -1;
	}
	return 0;
}

/*
 * cnl_transact() for a command that only reads, so has no hint to give
 * when refused: the exit code, a refusal reported under @what.
 */
int cnl_get(struct ctl *ctl, const char *what, struct nl_msg *msg,
	    cnl_reply_cb cb, void *arg)
{
	struct cnl_error e;
	int ret;

	ret = cnl_transact(ctl, msg, cb, arg, &e);
	if (ret == -1)
		return cnl_report(what, &e, NULL);
	return ret ? EXIT_FAIL : EXIT_OK;
}

/*
 * "OBJECT show": dump @cmd, each object through @cb, inside one JSON
 * array; the exit code as cnl_get() gives it.
 */
int cnl_show(struct ctl *ctl, const char *what, uint8_t cmd, cnl_reply_cb cb,
	     void *arg)
{
	struct nl_msg *msg;
	int ret;

	ret = cnl_start(ctl, cmd, true, &msg);
	if (ret)
		return ret;
	open_array(PRINT_JSON, NULL, NULL);
	ret = cnl_get(ctl, what, msg, cb, arg);
	close_array(PRINT_JSON, NULL);
	return ret;
}

/* An optional attribute's value: 0 when the kernel left it out. */
uint32_t cnl_u32(const struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

uint64_t cnl_u64(const struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

/*
 * One line for a refused request: the kernel's message, the errno, the
 * attribute it blamed and the caller's @hint (may be NULL or "").
 * Returns the exit code.
 */
int cnl_report(const char *what, const struct cnl_error *e, const char *hint)
{
	fprintf(stderr, "cufabctl: %s: ", what);
	if (e->msg[0])
		fprintf(stderr, "%s (%s)", e->msg, strerror(e->err));
	else
		fputs(strerror(e->err), stderr);
	if (e->err == EPERM || e->err == EACCES)
		fputs(": need CAP_NET_ADMIN", stderr);
	if (e->attr)
		fprintf(stderr, " [%sattribute %s]", e->missing ? "missing " : "",
			cnl_attr_name(e->attr));
	if (hint && hint[0])
		fprintf(stderr, "; %s", hint);
	fputc('\n', stderr);
	return EXIT_FAIL;
}
