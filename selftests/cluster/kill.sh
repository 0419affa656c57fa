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
#   2 node 1 maps memory node 0 lends (only node 1's import keeps it),
#     node 0 dies: node 1 sees the domain DOWN, its import is revoked
#     (fabric_mem hold: a new import SYSTEM_NOT_READY, a CPU load SIGBUS,
#     copy, map and export ILLEGAL_STATE, unmap and release succeed)
#     (node 1 only: node 0 prints nothing more)
#   3 in the same death, node 1's bind to a multicast team still waiting
#     for a device of node 0 fails with CUDA_ERROR_SYSTEM_NOT_READY, and
#     so does the next one (fabric_team half / hold)
#
# Environment (tools/vm/cluster): CUFAB_NODE_INDEX, CUFAB_NODES,
# CUFAB_CLUSTER_DIR, CUFAB_NODE_CONFIG.

me=${CUFAB_NODE_INDEX:?not run by tools/vm/cluster}
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
echo "1..3"
start=$(date +%s)
start_daemon
rc=0
wait_state UP || rc=1
echo "# domain UP after $(($(date +%s) - start)) s"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 1 "node $me's cufab-imexd sees the domain UP"

if [ "$me" = 0 ]; then
	"$team" half "$dir" &
	"$mem" lend "$dir/h-kill" "$size" &&
		wait_for "$dir/mc-kill.waiting" && touch "$dir/kill0"
	# killed here
	wait
	exit "$failed"
fi
rc=0
"$team" hold "$dir" &
teamer=$!
"$mem" hold "$dir/h-kill" "$size" &
holder=$!
t=$(date +%s)
wait_state DOWN || rc=1
echo "# node 0 seen gone after $(($(date +%s) - t)) s"
touch "$dir/h-kill.gone"
wait "$holder" || rc=1
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 2 "node $me's import is revoked when node 0 dies under its mapping"
rc=0
wait "$teamer" || rc=1
result "$rc" 3 "node $me's bind waiting for node 0's device fails when node 0 dies"
kill -TERM "$daemon"
wait "$daemon"
exit "$failed"
