#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The cluster suite "domain" (make check's "cluster domain"): the fabric
# window's domain header, cufabctl domain show, and the daemons' peer
# authentication (Documentation/multinode.rst), on every node of a
# tools/vm/cluster run, before fabric.sh. Prints KTAP:
#
#   1 the window's domain header has every node up and alive
#   2 cufabctl domain show lists every node with its GPUs (their node's
#     UUIDs) and one clique over all of them
#   3 daemons given the same domain key authenticate each other: the
#     domain is UP, -N shows every node's row, domain show the links
#   4 the last node's daemon restarted with another key: both sides log
#     the failure naming the peer's address and index, the domain is
#     DEGRADED on the other nodes (with three nodes or more; DOWN with
#     two) and DOWN on the last
#   5 a daemon without a key warns once that it trusts its network
#   6 the last node reloads cufab with another num_nodes: it refuses the
#     window naming the field; reloaded right, its generation is one more
#     and the other nodes see it
#   7 the generation fence: node 0 maps memory the last node lends, the
#     last node's daemon is killed (grace -1 everywhere: nobody cleans up)
#     and cufab reloaded under the import: node 0 sees the new generation
#     and revokes its import (fabric_mem hold: SIGBUS, ILLEGAL_STATE), and
#     the last node's load waited for that before using its slice again
#
# domain.sh [LAST]: cases 1 to LAST only (4 to 7; default 7): make check's
# three-node boot runs 1 to 4, for case 4's DEGRADED.
#
# Environment (tools/vm/cluster): CUFAB_NODE_INDEX, CUFAB_NODES,
# CUFAB_CLUSTER_DIR, CUFAB_NODE_CONFIG.

me=${CUFAB_NODE_INDEX:?not run by tools/vm/cluster}
nodes=${CUFAB_NODES:?}
dir=${CUFAB_CLUSTER_DIR:?}
here=$(cd "$(dirname "$0")" && pwd)
imexd=$here/../bin/cufab-imexd
mem=$here/fabric_mem
size=$((4 << 20))
ctl=$here/../bin/cufabctl
dbg=/sys/kernel/debug/cufab
last=$((nodes - 1))
log=/tmp/imexd-domain.log
upto=${1:-7}
. "$here/lib.sh"

case "$upto" in
[4-7]) ;;
*) echo "usage: domain.sh [LAST], LAST from 4 to 7" >&2; exit 2 ;;
esac

# until SECONDS CMD...: CMD succeeds within SECONDS (polled every 0.2 s).
until_ok()
{
	tries=$(($1 * 5))
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		tries=$((tries - 1))
	done
	return 1
}

# enough CASE: end the suite after CASE when it was asked to.
enough()
{
	[ "$upto" -gt "$1" ] && return
	echo "# domain suite: $(($(date +%s) - suite_start)) s"
	exit "$failed"
}

is_up() { [ "$(domain_state)" = UP ]; }
no_stale() { ! grep -q "state up (stale)\|state absent" "$dbg/window"; }
all_rows() { "$imexd" -N | grep -q '^Domain State: UP' && ! "$imexd" -N | grep -q ' ?'; }
logged() { grep -q "$1" "$log"; }
links_up()
{
	"$ctl" domain show >/tmp/domain.txt 2>&1 &&
		[ "$(grep -c 'link connected' /tmp/domain.txt)" = $((nodes - 1)) ]
}

# daemon CFG: start cufab-imexd on CFG, its stderr appended to $log.
daemon()
{
	"$imexd" -c "$1" 2>>"$log" &
	daemon=$!
}

stop_daemon()
{
	kill -TERM "$daemon" 2>/dev/null
	wait "$daemon"
}

addr_of() { sed -n "$(($1 + 1))p" "${CUFAB_NODE_CONFIG:?}"; }

suite_start=$(date +%s)
echo "TAP version 13"
echo "# cluster suite: domain"
echo "1..$upto"
echo "# node $me of $nodes"

rc=0
until_ok 10 no_stale || rc=1
sed 's/^/# /' "$dbg/window"
gen=$(sed -n "s/^node $me state up generation \([0-9]*\).*/\1/p" "$dbg/window")
[ -n "$gen" ] || rc=1
result "$rc" 1 "the window's domain header has every node up, node $me at generation $gen"

rc=0
"$ctl" domain show >/tmp/domain.txt 2>&1 || rc=1
sed 's/^/# /' /tmp/domain.txt
j=0
while [ "$j" -lt "$nodes" ]; do
	grep -q "^node $j.*: up" /tmp/domain.txt || { echo "# node $j is not up"; rc=1; }
	grep -q "uuid $(printf 'GPU-cfab%04x-' "$j")" /tmp/domain.txt ||
		{ echo "# no GPU of node $j"; rc=1; }
	j=$((j + 1))
done
gpus=$(grep -c '^    gpu' /tmp/domain.txt)
grep -q "^cliques: 0 ($gpus GPUs on $nodes nodes)$" /tmp/domain.txt || rc=1
# the JSON: an array of the nodes, each with its GPUs
json=$here/../bin/jsoncheck
if [ -x "$json" ]; then
	[ "$("$ctl" -j domain show | "$json" -c .)" = "$nodes" ] || rc=1
	[ "$("$ctl" -j domain show | "$json" ".[$me].self")" = true ] || rc=1
	[ "$("$ctl" -j domain show | "$json" -c ".[$me].gpus")" = \
	  "$(cat /sys/module/cufab/parameters/num_gpus)" ] || rc=1
fi
result "$rc" 2 "cufabctl domain show lists the $nodes nodes, $gpus GPUs in one clique"

# 3: one key for the domain, as a job launcher would hand it out
[ "$me" = 0 ] && head -c 32 /dev/urandom >"$dir/domain.key.tmp" &&
	mv "$dir/domain.key.tmp" "$dir/domain.key"
wait_for "$dir/domain.key"
cp "$dir/domain.key" /tmp/domain.key
chmod 0400 /tmp/domain.key
cfg=/tmp/imex-domain.cfg
printf 'IMEX_NODE_CONFIG_FILE=%s\nCUFAB_DOMAIN_KEY_FILE=/tmp/domain.key\n' \
	"$CUFAB_NODE_CONFIG" >"$cfg"
: >"$log"
rc=0
t=$(date +%s)
daemon "$cfg"
until_ok 30 is_up || rc=1
echo "# domain UP after $(($(date +%s) - t)) s"
until_ok 5 all_rows || rc=1
logged "authenticated by the domain key" || rc=1
until_ok 5 links_up || rc=1
grep -q "(this node): up.*daemon registered" /tmp/domain.txt || rc=1
[ "$rc" = 0 ] || { "$imexd" -N | sed 's/^/# /'; sed 's/^/# /' /tmp/domain.txt "$log"; }
"$imexd" -N | sed -n '/Nodes From/,$s/^/# /p'
result "$rc" 3 "daemons with the domain key authenticate each other: UP, every row, links"

# 4: the last node comes back with another key
barrier wrongkey
rc=0
if [ "$me" = "$last" ]; then
	stop_daemon
	head -c 32 /dev/urandom >/tmp/wrong.key
	chmod 0400 /tmp/wrong.key
	sed 's|/tmp/domain.key|/tmp/wrong.key|' "$cfg" >/tmp/imex-wrong.cfg
	daemon /tmp/imex-wrong.cfg
	j=0
	while [ "$j" -lt "$last" ]; do
		until_ok 15 logged "node $j at $(addr_of "$j"): authentication failed" || rc=1
		j=$((j + 1))
	done
else
	until_ok 15 logged "node $last at $(addr_of "$last"): authentication failed" || rc=1
fi
# the refused peer tries every second: still refused, logged once
sleep 3
state=$(domain_state)
# the refused node is alone: DOWN; the others still reach each other:
# DEGRADED with three nodes or more, DOWN with two
want=DOWN
[ "$nodes" -lt 3 ] || [ "$me" = "$last" ] || want=DEGRADED
[ "$state" = "$want" ] || rc=1
"$imexd" -N | grep -q "^Node #$last .*UNAVAILABLE" ||
	[ "$me" = "$last" ] || rc=1
[ "$(grep -c 'authentication failed' "$log")" -le "$nodes" ] || rc=1
grep 'authentication failed' "$log" | sed 's/^/# /'
[ "$rc" = 0 ] || { "$imexd" -N | sed 's/^/# /'; sed 's/^/# /' "$log"; }
result "$rc" 4 "a node with another domain key is refused and logged: domain $state"
barrier wrongdone
stop_daemon
enough 4

# 5: no key
rc=0
: >"$log"
printf 'IMEX_NODE_CONFIG_FILE=%s\n' "$CUFAB_NODE_CONFIG" >/tmp/imex-nokey.cfg
daemon /tmp/imex-nokey.cfg
until_ok 30 is_up || rc=1
[ "$(grep -c 'trust their network' "$log")" = 1 ] || rc=1
[ "$rc" = 0 ] || sed 's/^/# /' "$log"
result "$rc" 5 "a daemon without a domain key warns once that it trusts its network"
barrier nokeydone
stop_daemon
enough 5

# 6: the last node, loaded with another num_nodes, then right again
rc=0
if [ "$me" = "$last" ]; then
	p=/sys/module/cufab/parameters
	params="node_index=$me cluster_uuid=$(cat $p/cluster_uuid) num_gpus=$(cat $p/num_gpus)"
	rmmod cufab || rc=1
	# shellcheck disable=SC2086 # parameters are separate words
	insmod /cufab.ko $params num_nodes=$((nodes + 1)) || rc=1
	dmesg | grep -q "domain header has num_nodes $nodes, node $me's is $((nodes + 1)): window refused" || rc=1
	dmesg | grep "window refused" | tail -n 1 | sed 's/^/# /'
	[ "$(head -n 1 "$dbg/window")" = none ] || rc=1
	rmmod cufab || rc=1
	# shellcheck disable=SC2086
	insmod /cufab.ko $params num_nodes="$nodes" || rc=1
	grep -q "^node $me state up generation $((gen + 1)) " "$dbg/window" || rc=1
	touch "$dir/reloaded"
else
	wait_for "$dir/reloaded" || rc=1
	until_ok 5 grep -q "^node $last state up generation [0-9]* .*" "$dbg/window" || rc=1
	until_ok 5 sh -c "dmesg | grep -q 'node $last joined again'" || rc=1
	dmesg | grep "joined again" | tail -n 1 | sed 's/^/# /'
fi
[ "$rc" = 0 ] || sed 's/^/# /' "$dbg/window"
result "$rc" 6 "a node loaded with another num_nodes refuses the window; reloaded, its generation moves on"
enough 6

# 7: the last node reloaded under node 0's import of its memory
barrier fence
rc=0
: >"$log"
# the library takes IMEX channel 0
imex_channels 1
start_daemon -1
# 25 to 30 s on a host loaded twentyfold (case 3's figure)
until_ok 90 is_up || rc=1
if [ "$me" = "$last" ]; then
	"$mem" lend "$dir/h-gen" "$size" || rc=1
	kill -KILL "$daemon"
	wait "$daemon"
	p=/sys/module/cufab/parameters
	params="node_index=$me cluster_uuid=$(cat $p/cluster_uuid) num_gpus=$(cat $p/num_gpus) num_nodes=$nodes"
	rmmod cufab || rc=1
	t=$(date +%s)
	# shellcheck disable=SC2086 # parameters are separate words
	insmod /cufab.ko $params || rc=1
	echo "# node $me: reloaded in $(($(date +%s) - t)) s"
	kernel_line "let go of node $me's previous generation" \
		"every node let go of node $me's previous generation after [0-9]* ms" || rc=1
	[ "$(window_free)" = "$(sed -n 's/.* slice \([0-9]*\).*/\1/p' "$dbg/window")" ] || rc=1
elif [ "$me" = 0 ]; then
	"$mem" hold "$dir/h-gen" "$size" &
	holder=$!
	wait_revoked 60 || rc=1
	kernel_line "node $last joined again: " \
		"node $last joined again: 1 imports of its previous generation's memory revoked" || rc=1
	touch "$dir/h-gen.gone"
	wait "$holder" || rc=1
	stop_daemon
else
	stop_daemon
fi
[ "$rc" = 0 ] || { sed 's/^/# /' "$log"; sed 's/^/# /' "$dbg/window"; }
result "$rc" 7 "a node reloaded under another node's import of its memory: the import is revoked, the slice reused only after"
barrier domaindone
echo "# domain suite: $(($(date +%s) - suite_start)) s"
exit "$failed"
