#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The test cluster's smoke test, run on every node by tools/vm/cluster
# (make cluster-check). Prints KTAP; exit status 0 when every case passed.
#
#   1 the node has the shared window (the ivshmem BAR), and cufab bound it
#     when the domain has several nodes (debugfs window)
#   2 what every other node wrote into the window is there, word for word:
#     each node fills its own 1 MiB slice, then checks all the others'.
#     Skipped once cufab owns the window (user space may then not map
#     the BAR: CONFIG_IO_STRICT_DEVMEM): cluster fabric (fabric.sh)
#     checks it through FABRIC memory instead
#   3 the node's GPUs have their node's UUIDs and PCI domain
#     (cufabctl dev show; node_index is part of both)
#   4 no GPU UUID or bus id of this node is another node's
#   5 every other node answers a ping on the private network
#
# Environment (tools/vm/cluster): CUFAB_NODE_INDEX, CUFAB_NODES,
# CUFAB_CLUSTER_DIR (a directory every node shares), CUFAB_NODE_CONFIG
# (one node address a line, IMEX's nodes_config format).

me=${CUFAB_NODE_INDEX:?not run by tools/vm/cluster}
nodes=${CUFAB_NODES:?}
dir=${CUFAB_CLUSTER_DIR:?}
here=$(cd "$(dirname "$0")" && pwd)
window=$here/window
ctl=$here/../bin/cufabctl
slice=$((1 << 20))
. "$here/lib.sh"

others()
{
	j=0
	while [ "$j" -lt "$nodes" ]; do
		[ "$j" = "$me" ] || echo "$j"
		j=$((j + 1))
	done
}

echo "TAP version 13"
echo "1..5"
echo "# node $me of $nodes"

info=$("$window" info)
rc=$?
echo "# window: $info"
bound=$(cat /sys/kernel/debug/cufab/window 2>/dev/null)
echo "# cufab's window: $bound"
[ "$nodes" = 1 ] || [ "${bound#device }" != "$bound" ] || rc=1
result "$rc" 1 "node $me has the shared window"

if [ "${bound#device }" != "$bound" ]; then
	echo "ok 2 node $me sees every other node's writes in the window # SKIP the window is cufab's; cluster fabric checks it"
else
	rc=0
	"$window" write $((me * slice)) "$slice" $((1000 + me)) || rc=1
	barrier written || rc=1
	for j in $(others); do
		"$window" check $((j * slice)) "$slice" $((1000 + j)) || {
			echo "# node $j's slice is not what it wrote"
			rc=1
		}
	done
	result "$rc" 2 "node $me sees every other node's writes in the window"
fi

"$ctl" dev show >"$dir/dev.$me" 2>&1
rc=$?
sed -n 's/.*uuid \(GPU-[0-9a-f-]*\).*/\1/p' "$dir/dev.$me" >"$dir/uuid.$me"
sed -n 's/.*bus \([0-9a-f:.]*\).*/\1/p' "$dir/dev.$me" >"$dir/bus.$me"
want_uuid=$(printf 'GPU-cfab%04x-' "$me")
want_bus=$(printf '%04x:' "$me")
[ -s "$dir/uuid.$me" ] && [ -s "$dir/bus.$me" ] || rc=1
grep -v "^$want_uuid" "$dir/uuid.$me" && rc=1
grep -v "^$want_bus" "$dir/bus.$me" && rc=1
[ "$rc" = 0 ] || sed 's/^/# /' "$dir/dev.$me"
result "$rc" 3 "node $me's GPUs carry node index $me in UUID and PCI domain"

rc=0
barrier ids || rc=1
for j in $(others); do
	for f in uuid bus; do
		if grep -Fxf "$dir/$f.$j" "$dir/$f.$me"; then
			echo "# node $j has the same GPU $f"
			rc=1
		fi
	done
done
result "$rc" 4 "no GPU of node $me shares a UUID or bus id with another node"

rc=0
for j in $(others); do
	addr=$(sed -n "$((j + 1))p" "${CUFAB_NODE_CONFIG:?}")
	ping -c 1 -W 10 "$addr" >/dev/null || {
		echo "# node $j ($addr) does not answer a ping"
		rc=1
	}
done
result "$rc" 5 "node $me reaches every other node on the private network"

# Nobody leaves before everyone is done with the window and the network.
barrier done || failed=1
exit "$failed"
