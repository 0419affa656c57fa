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
#     and so is a FABRIC memory pool's chunk (fabric_team pool), which
#     takes the window's 2 MiB units
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
#   7 endpoint teams across nodes (fabric_le run): every node's unicast
#     endpoint is imported by the other, ready at once, not bindable, its
#     home's binding seen, an importer on another IMEX channel refused; a
#     multicast endpoint of two devices per node (home node 0) forms
#     across the nodes (Query polls until the last device of any node
#     joined), every node's bindings reach every node's team and its
#     unbinds leave it
#   8 the reclaim fence of team replicas (fabric_team fence): node 0
#     binds X and Z to a team of one device per node, node 1 binds its
#     own memory and reaches X and Z by broadcast; node 0 unbinds and
#     frees X while node 1 holds its replica of Z: node 0 keeps X in its
#     slice (logged) until node 1's record says it dropped its replicas,
#     node 1's broadcast skips node 0's member there, and every range
#     comes back to the slices once the team is gone
#   9 node 1 maps memory node 0 lends (only node 1's import keeps it),
#     and node 0's daemon stops (SIGTERM): node 1's import is revoked
#     (fabric_mem hold: a new import SYSTEM_NOT_READY, a CPU load SIGBUS,
#     copy, map and export ILLEGAL_STATE, unmap and release succeed), and
#     node 0 has the memory back once node 1 confirmed
#  10 the same with node 1's link cut (tools/vm/cluster --cut
#     1@file:cut1), node 0's grace time 0 and node 1's 4 s: both nodes see
#     the domain DOWN, node 0 cleans node 1 up first but keeps the memory
#     (the reclaim fence) until node 1 revoked its import 4 s later, then
#     reclaims it. In the same cut, a team as in 8 (fabric_team cut): node
#     0 frees X once it cleaned node 1 up, and keeps it until node 1,
#     which no state reaches, dropped its replica by its rounds (through
#     the window). Last: the link stays cut
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

# Two IMEX channels; the library takes the lowest it can open, channel 0.
imex_channels 2

echo "TAP version 13"
echo "# cluster suite: fabric"
echo "1..10"
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

# the pool first: the export's memory goes back when the other node is
# done with it, which must not fall inside the pool's count
rc=0
"$team" pool "$dir" || rc=1
free_before=$(window_free)
"$mem" export "$dir/h$me" "$size" &
exporter=$!
wait_for "$dir/h$me"
free_after=$(window_free)
[ -n "$free_before" ] && [ "$((free_before - free_after))" = "$size" ] || rc=1
echo "# window: $(cat "$dbg/window")"
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

barrier endpoint
rc=0
t=$(date +%s)
"$here/fabric_le" run "$dir" || rc=1
echo "# endpoint case in $(($(date +%s) - t)) s"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 7 "endpoint teams over $nodes nodes: imported both ways, formed, bound"

# The reclaim fence of team replicas: what node 0 freed is not reused
# while node 1 may still reach it through its replica.
barrier fence
rc=0
# what the team cases freed is back first: the count starts still
wait_unkept || rc=1
free_before=$(window_free)
seen=$(dmesg | wc -l)
t=$(date +%s)
"$team" fence "$dir" || rc=1
wait_free "$free_before" || { rc=1; echo "# window: $(cat "$dbg/window")"; }
if [ "$me" = 0 ]; then
	dmesg | tail -n "+$((seen + 1))" >/tmp/fence.kmsg
	grep 'kept until node\|back in the slice' /tmp/fence.kmsg | sed 's/^[^]]*] /# /'
	grep -q 'kept until node 1 .*(reclaim fence)' /tmp/fence.kmsg || rc=1
	grep -q 'back in the slice after [0-9]* ms (node 1: it dropped its replicas)' \
		/tmp/fence.kmsg || rc=1
fi
echo "# fence case in $(($(date +%s) - t)) s"
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 8 "a range node 0 freed stays its until node 1 dropped its team replica of it"
kill -TERM "$daemon"
wait "$daemon"

# Revocation: node 1 maps memory node 0 lends, then node 0's daemon
# stops: node 0's exports end on node 1.
barrier revoke
start_daemon
rc=0
wait_state UP || rc=1
wait_unkept || rc=1
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
	result "$rc" 9 "node 0's daemon stopped by SIGTERM ends its export on node 1, then has its memory back"
else
	"$mem" hold "$dir/h-rev" "$size" || rc=1
	[ "$rc" = 0 ] || sed 's/^/# /' "$log"
	result "$rc" 9 "node 1's import of node 0's memory is revoked when node 0's daemon stops"
fi

# A link cut: node 1 is cut off from the switch while it maps node 0's
# memory. Node 0 (grace 0) cleans node 1 up 4 s before node 1 (grace 4)
# revokes: the fence keeps node 0 from reclaiming until then.
barrier cut
rc=0
if [ "$me" = 0 ]; then
	start_daemon
else
	kill -TERM "$daemon"
	wait "$daemon"
	start_daemon 4
fi
wait_state UP || rc=1
wait_unkept || rc=1
if [ "$me" = 0 ]; then
	free0=$(window_free)
	"$team" cut "$dir" &
	teamer=$!
	"$mem" lend "$dir/h-cut" "$size" || rc=1
	t=$(date +%s)
	wait_state DOWN || rc=1
	seen=$(dmesg | wc -l)
	# node 1 cleaned up: node 0 frees X of the team, node 1 still holds
	# its replica, and no state reaches it
	touch "$dir/team-cut-down0"
	wait "$teamer" || rc=1
	wait_free "$free0" || { rc=1; echo "# window: $(cat "$dbg/window")"; }
	echo "# node 0: node 1 cut off, its import dropped after $(($(date +%s) - t)) s"
	dmesg | tail -n "+$((seen + 1))" >/tmp/cut.kmsg
	grep 'kept until node\|back in the slice' /tmp/cut.kmsg | sed 's/^[^]]*] /# /'
	grep -q 'kept until node 1 .*(reclaim fence)' /tmp/cut.kmsg || rc=1
	grep -q 'back in the slice after [0-9]* ms (node 1: it dropped its replicas)' \
		/tmp/cut.kmsg || rc=1
	# the memory and the team's object node 1 imported
	dmesg | grep -q "node 1: 2 imports of this node's memory are kept until" || rc=1
	fence=$(dmesg | sed -n 's/.*node 1: reclaim fence lifted after \([0-9]*\) ms (it revoked its imports).*/\1/p' | tail -n 1)
	echo "# node 0: reclaim fence held ${fence:-?} ms until node 1 revoked"
	# node 1 revokes 4 s after node 0's cleanup, give or take a heartbeat
	[ "${fence:-0}" -ge 1500 ] || rc=1
else
	"$team" cut "$dir" &
	teamer=$!
	"$mem" hold "$dir/h-cut" "$size" &
	holder=$!
	wait_for "$dir/h-cut.mapped" && wait_for "$dir/team-cut-ready.0" &&
		wait_for "$dir/team-cut-ready.1" && touch "$dir/cut1"
	t=$(date +%s)
	wait_state DOWN || rc=1
	echo "# node 1: cut off, domain $(domain_state) after $(($(date +%s) - t)) s"
	wait_revoked || rc=1
	echo "# node 1: import revoked $(($(date +%s) - t)) s after the cut was seen (grace 4)"
	touch "$dir/h-cut.gone"
	wait "$holder" || rc=1
	wait "$teamer" || rc=1
fi
[ "$rc" = 0 ] || { sed 's/^/# /' "$log"; dmesg | grep -i 'fence\|revoked' | sed 's/^/# /'; }
result "$rc" 10 "with node 1's link cut, node 0 reclaims its import only once node 1 revoked it, and a team range once node 1 dropped its replica (reclaim fence)"
kill -TERM "$daemon"
wait "$daemon"
exit "$failed"
