#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The cluster suite (make check's "cluster fabric"): FABRIC memory across
# the nodes of a fabric domain, on two nodes (tools/vm/cluster --nodes 2,
# which loads cufab with num_nodes=2, so each node has its window slice).
# Every node starts its cufab-imexd, then, printing KTAP:
#
#   1 the daemon is up: cufab-imexd -q says READY, -N "Domain State: UP"
#   2 FABRIC memory is in the window (debugfs window: the slice shrank),
#     and so is a FABRIC memory pool's chunk (fabric_team pool) when the
#     slice can hold a 32 MiB chunk (--window-mib 128; not by default)
#   3 this node's export is read and written by the other node, and this
#     node reads and writes the other's (both ways at once), with a copy
#     out of the remote memory timed against a local copy
#   4 an importer on another IMEX channel is refused
#     (CUDA_ERROR_NOT_PERMITTED), by the exporting node's check
#   5 with this node's daemon stopped (SIGTERM), an import of the other
#     node's handle fails with CUDA_ERROR_SYSTEM_NOT_READY
#   6 a multicast team over every node (two GPUs each, the object
#     exported as FABRIC by node 0): the binds wait for the whole team,
#     node 0's broadcast reaches every replica, every node's load-reduce
#     sums every member, a reduce reaches every replica (fabric_team run)
#   7 node 1 maps memory node 0 lends (only node 1's import keeps it),
#     and node 0's daemon stops (SIGTERM): node 1's import is revoked
#     (fabric_mem hold: a new import SYSTEM_NOT_READY, a CPU load SIGBUS,
#     copy, map and export ILLEGAL_STATE, unmap and release succeed), and
#     node 0 has the memory back once node 1 confirmed
#   8 the same with node 1's link cut (tools/vm/cluster --cut
#     1@file:cut1), grace time 0: both nodes see the domain DOWN, node 1
#     revokes its import, node 0 reclaims the memory. Last: the link stays
#     cut
#
# A node killed under a mapping, and under a team bind waiting for one of
# its devices, is selftests/cluster/kill.sh's (on the debug kernel, for
# kmemleak on the survivor).
#
# Environment (tools/vm/cluster): CUFAB_NODE_INDEX, CUFAB_NODES,
# CUFAB_CLUSTER_DIR, CUFAB_NODE_CONFIG.

me=${CUFAB_NODE_INDEX:?not run by tools/vm/cluster}
nodes=${CUFAB_NODES:?}
dir=${CUFAB_CLUSTER_DIR:?}
here=$(cd "$(dirname "$0")" && pwd)
mem=$here/fabric_mem
team=$here/fabric_team
imexd=$here/../bin/cufab-imexd
dbg=/sys/kernel/debug/cufab
size=$((4 << 20))
other=$(((me + 1) % nodes))
log=/tmp/imexd.log
. "$here/lib.sh"

# window_free: the free bytes of this node's window slice.
window_free()
{
	sed -n 's/.* free \([0-9]*\).*/\1/p' "$dbg/window"
}

# wait_free BYTES: until the slice has BYTES free again, 15 s at most.
wait_free()
{
	n=0
	while [ "$(window_free)" != "$1" ] && [ "$n" -lt 150 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(window_free)" = "$1" ]
}

# Two IMEX channels; the library takes the lowest it can open, channel 0.
imex_channels 2

echo "TAP version 13"
echo "# cluster suite: fabric"
echo "1..8"
echo "# node $me of $nodes"

start=$(date +%s)
start_daemon
rc=0
wait_state UP 30 || rc=1
ready=$("$imexd" -q)
[ "$ready" = READY ] || rc=1
echo "# domain UP after $(($(date +%s) - start)) s, -q: $ready"
[ "$rc" = 0 ] || { "$imexd" -N | sed 's/^/# /'; sed 's/^/# /' "$log"; }
result "$rc" 1 "node $me's cufab-imexd is READY and the domain UP"

free_before=$(window_free)
"$mem" export "$dir/h$me" "$size" &
exporter=$!
wait_for "$dir/h$me"
free_after=$(window_free)
rc=0
[ -n "$free_before" ] && [ "$((free_before - free_after))" = "$size" ] || rc=1
echo "# window: $(cat "$dbg/window")"
# a pool grows by 32 MiB chunks: only a slice that holds one can check it
slice=$(sed -n 's/.* slice \([0-9]*\).*/\1/p' "$dbg/window")
if [ "${slice:-0}" -ge $((32 << 20)) ]; then
	"$team" pool "$dir" || rc=1
else
	echo "# FABRIC pool chunk not checked: the slice ($slice bytes) is smaller than a 32 MiB pool chunk (tools/vm/cluster --window-mib 128)"
fi
result "$rc" 2 "node $me's FABRIC allocation and FABRIC pool chunk are in its window slice"

t=$(date +%s)
rc=0
"$mem" import "$dir/h$other" "$size" || rc=1
wait "$exporter" || rc=1
echo "# both ways in $(($(date +%s) - t)) s"
result "$rc" 3 "node $me and node $other read and write each other's FABRIC memory"

barrier refuse
rc=0
CUFAB_IMEX_CHANNEL=1 "$mem" import "$dir/h-refuse$other" "$size" \
	CUDA_ERROR_NOT_PERMITTED &
refused=$!
"$mem" offer "$dir/h-refuse$me" "$size" &
exporter=$!
wait "$refused" || rc=1
# the exporter waits for its importer, on the other node
touch "$dir/h-refuse$other.checked"
wait "$exporter"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 4 "node $me's importer on another IMEX channel is refused"

barrier down
rc=0
"$mem" offer "$dir/h-down$me" "$size" &
exporter=$!
kill -TERM "$daemon"
wait "$daemon" || rc=1
"$mem" import "$dir/h-down$other" "$size" CUDA_ERROR_SYSTEM_NOT_READY || rc=1
touch "$dir/h-down$other.checked"
wait "$exporter"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 5 "without its cufab-imexd, node $me's import of node $other's memory is SYSTEM_NOT_READY"

# The daemons again, for the team.
barrier team
start_daemon
rc=0
wait_state UP || rc=1
t=$(date +%s)
"$team" run "$dir" || rc=1
echo "# team case in $(($(date +%s) - t)) s"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 6 "a multicast team over $nodes nodes forms, broadcasts and reduces"
kill -TERM "$daemon"
wait "$daemon"

# Revocation: node 1 maps memory node 0 lends, then node 0's daemon
# stops: node 0's exports end on node 1.
barrier revoke
start_daemon
rc=0
wait_state UP || rc=1
if [ "$me" = 0 ]; then
	free0=$(window_free)
	"$mem" lend "$dir/h-rev" "$size" || rc=1
	t=$(date +%s)
	kill -TERM "$daemon"
	wait "$daemon" || rc=1
	echo "# node 0's daemon stopped in $(($(date +%s) - t)) s"
	# node 1's RELEASE came before its confirmation: the memory is back
	wait_free "$free0" || { rc=1; echo "# window: $(cat "$dbg/window")"; }
	touch "$dir/h-rev.gone"
	[ "$rc" = 0 ] || sed 's/^/# /' "$log"
	result "$rc" 7 "node 0's daemon stopped by SIGTERM ends its export on node 1, then has its memory back"
else
	"$mem" hold "$dir/h-rev" "$size" || rc=1
	[ "$rc" = 0 ] || sed 's/^/# /' "$log"
	result "$rc" 7 "node 1's import of node 0's memory is revoked when node 0's daemon stops"
fi

# A link cut: node 1 is cut off from the switch while it maps node 0's
# memory; with grace 0 each node cleans the other up.
barrier cut
rc=0
if [ "$me" = 0 ]; then
	start_daemon
fi
wait_state UP || rc=1
if [ "$me" = 0 ]; then
	free0=$(window_free)
	"$mem" lend "$dir/h-cut" "$size" || rc=1
	t=$(date +%s)
	wait_state DOWN || rc=1
	wait_free "$free0" || { rc=1; echo "# window: $(cat "$dbg/window")"; }
	echo "# node 0: node 1 cut off, its import dropped after $(($(date +%s) - t)) s"
else
	"$mem" hold "$dir/h-cut" "$size" &
	holder=$!
	wait_for "$dir/h-cut.mapped" && touch "$dir/cut1"
	t=$(date +%s)
	wait_state DOWN || rc=1
	echo "# node 1: cut off, domain $(domain_state) after $(($(date +%s) - t)) s"
	touch "$dir/h-cut.gone"
	wait "$holder" || rc=1
fi
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 8 "with node 1's link cut (grace 0), node 1 revokes its import and node 0 reclaims the memory"
kill -TERM "$daemon"
wait "$daemon"
exit "$failed"
