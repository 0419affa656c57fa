#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The cluster suite "cluster failure": a node killed under another node's
# mapping of its memory, on the debug kernel (tools/vm/cluster --debug
# --kill 0@file:kill0), so that the survivor's kernel is checked by KASAN
# and lockdep while it revokes, and by a kmemleak scan after its rmmod.
# Every node starts its cufab-imexd (grace time 0), then, printing KTAP:
#
#   1 the daemon is up: cufab-imexd -N says "Domain State: UP"
#   2 node 1 maps memory node 0 lends and node 1's own daemon is killed
#     (SIGKILL): node 1's kernel sees its daemon die and, by its grace time
#     (0), revokes the import at once (fabric_mem hold, as below); node 0's
#     daemon sees the link drop and cleans node 1 up, and node 0 has its
#     memory back once node 1's record says it let go (the reclaim fence).
#     Node 1's daemon is started again
#   3 node 1 maps memory node 0 lends (only node 1's import keeps it),
#     node 0 dies: node 1 sees the domain DOWN, its import is revoked
#     (fabric_mem hold: a new import SYSTEM_NOT_READY, a CPU load SIGBUS,
#     copy, map and export ILLEGAL_STATE, unmap and release succeed)
#     (node 1 only: node 0 prints nothing more)
#   4 in the same death, node 1's bind to a multicast team still waiting
#     for a device of node 0 fails with CUDA_ERROR_SYSTEM_NOT_READY, and
#     so does the next one (fabric_team half / hold)
#   5 in the same death, node 1's endpoint of a team still waiting for a
#     device of node 0 (home node 0): its Query fails with
#     CUDA_ERROR_SYSTEM_NOT_READY, and so does an AddDevice (fabric_le
#     half / hold)
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
size=$((4 << 20))
log=/tmp/imexd.log
. "$here/lib.sh"

# the library takes IMEX channel 0
imex_channels 1

echo "TAP version 13"
echo "# cluster suite: failure"
echo "1..5"
start=$(date +%s)
start_daemon
rc=0
wait_state UP || rc=1
echo "# domain UP after $(($(date +%s) - start)) s"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 1 "node $me's cufab-imexd sees the domain UP"

# Node 1's own daemon dies under its import of node 0's memory.
rc=0
if [ "$me" = 0 ]; then
	free0=$(window_free)
	"$mem" lend "$dir/h-orphan" "$size" || rc=1
	wait_for "$dir/h-orphan.gone" || rc=1
	wait_free "$free0" || { rc=1; echo "# window: $(cat /sys/kernel/debug/cufab/window)"; }
	kernel_line "node 1: reclaim fence lifted" \
		"node 1: reclaim fence lifted after [0-9]* ms (it revoked its imports)" || rc=1
	wait_state UP || rc=1
	[ "$rc" = 0 ] || sed 's/^/# /' "$log"
	result "$rc" 2 "node 0 has its memory back once node 1, whose daemon died, revoked its import"
else
	"$mem" hold "$dir/h-orphan" "$size" &
	holder=$!
	wait_for "$dir/h-orphan.mapped" || rc=1
	kill -KILL "$daemon"
	wait "$daemon"
	wait_revoked 10 || rc=1
	kernel_line "cufab-imexd died [0-9]* ms ago" \
		"cufab-imexd died [0-9]* ms ago (grace time 0)" || rc=1
	touch "$dir/h-orphan.gone"
	wait "$holder" || rc=1
	start_daemon
	wait_state UP || rc=1
	[ "$rc" = 0 ] || sed 's/^/# /' "$log"
	result "$rc" 2 "node 1's import is revoked when its own cufab-imexd is killed (grace 0)"
fi
barrier orphan

if [ "$me" = 0 ]; then
	"$team" half "$dir" &
	"$here/fabric_le" half "$dir" &
	"$mem" lend "$dir/h-kill" "$size" &&
		wait_for "$dir/mc-kill.waiting" &&
		wait_for "$dir/le-kill.waiting" && touch "$dir/kill0"
	# killed here
	wait
	exit "$failed"
fi
rc=0
"$team" hold "$dir" &
teamer=$!
"$here/fabric_le" hold "$dir" &
ler=$!
"$mem" hold "$dir/h-kill" "$size" &
holder=$!
t=$(date +%s)
wait_state DOWN || rc=1
echo "# node 0 seen gone after $(($(date +%s) - t)) s"
touch "$dir/h-kill.gone"
wait "$holder" || rc=1
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 3 "node $me's import is revoked when node 0 dies under its mapping"
rc=0
wait "$teamer" || rc=1
result "$rc" 4 "node $me's bind waiting for node 0's device fails when node 0 dies"
rc=0
wait "$ler" || rc=1
result "$rc" 5 "node $me's endpoint waiting for node 0's device fails its query when node 0 dies"
kill -TERM "$daemon"
wait "$daemon"
exit "$failed"
