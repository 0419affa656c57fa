#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make demo-cluster`, on every node of a two-node test cluster
# (tools/vm/cluster --nodes 2 -- tools/vm/demo-cluster.sh): the daemons
# start with one domain key and authenticate each other, node 0 shows the
# domain (cufabctl domain show) and the daemons' table (cufab-imexd -N),
# then each node exports FABRIC memory and imports the other's: CPU loads
# and stores and a copy across the OS boundary. Exits non-zero if any
# step fails.

me=${CUFAB_NODE_INDEX:?run by tools/vm/cluster}
nodes=${CUFAB_NODES:?}
dir=${CUFAB_CLUSTER_DIR:?}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/../../build" && pwd) || exit 1
imexd=$build/bin/cufab-imexd
other=$(((me + 1) % nodes))
size=$((4 << 20))
. "$build/cluster/lib.sh"
rc=0

section()
{
	printf '\n=== %s\n' "$*"
}

# IMEX channel 0, which FABRIC handles need (the library opens the lowest)
imex_channels 1

# the domain key, as a job launcher would hand it out
[ "$me" = 0 ] && head -c 32 /dev/urandom >"$dir/key.tmp" && mv "$dir/key.tmp" "$dir/key"
wait_for "$dir/key" || exit 1
cp "$dir/key" /tmp/domain.key
chmod 0400 /tmp/domain.key
printf 'IMEX_NODE_CONFIG_FILE=%s\nCUFAB_DOMAIN_KEY_FILE=/tmp/domain.key\n' \
	"$CUFAB_NODE_CONFIG" >/tmp/imex.cfg

section "node $me: cufab-imexd with the domain key"
"$imexd" -c /tmp/imex.cfg 2>/tmp/imexd.log &
daemon=$!
n=0
until "$imexd" -N 2>/dev/null | grep -q '^Domain State: UP' &&
      ! "$imexd" -N | grep -q ' ?'; do
	[ "$n" -lt 150 ] || { echo "the domain did not come UP"; rc=1; break; }
	sleep 0.2
	n=$((n + 1))
done
cat /tmp/imexd.log

# what cufabctl shows reaches the kernel a moment after the daemon saw it
sleep 1
barrier up
if [ "$me" = 0 ]; then
	section "cufabctl domain show"
	"$build/bin/cufabctl" domain show || rc=1
	section "cufab-imexd -N"
	"$imexd" -N || rc=1
fi
barrier shown

section "node $me: FABRIC memory across nodes"
"$build/cluster/fabric_mem" export "$dir/h$me" "$size" &
exporter=$!
"$build/cluster/fabric_mem" import "$dir/h$other" "$size" || rc=1
wait "$exporter" || rc=1

barrier done
kill -TERM "$daemon"
wait "$daemon"
exit "$rc"
