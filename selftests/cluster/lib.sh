# SPDX-License-Identifier: GPL-2.0
#
# What every script a node of the test cluster runs shares (sourced, after
# it set me, nodes, dir and, for the daemon's helpers, imexd and log): KTAP
# results, waiting for a file or for every node, the daemon's view of the
# domain, and the IMEX channels the library opens.

failed=0

# result STATUS NUMBER TEXT: one KTAP line; a failure makes the exit 1.
result()
{
	if [ "$1" = 0 ]; then
		echo "ok $2 $3"
	else
		echo "not ok $2 $3"
		failed=1
	fi
}

# wait_for FILE: 120 s at most.
wait_for()
{
	n=0
	while [ ! -e "$1" ] && [ "$n" -lt 1200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -e "$1" ]
}

# barrier NAME: wait (120 s at most) until every node reached NAME. After
# one node missed a barrier, the later ones fail at once.
lost=
barrier()
{
	touch "$dir/$1.$me"
	[ -z "$lost" ] || return 1
	n=0
	while [ "$n" -lt 1200 ]; do
		j=0
		while [ "$j" -lt "$nodes" ] && [ -e "$dir/$1.$j" ]; do
			j=$((j + 1))
		done
		[ "$j" -lt "$nodes" ] || return 0
		sleep 0.1
		n=$((n + 1))
	done
	echo "# barrier $1: node $j never came"
	lost=$j
	return 1
}

# domain_state: the last word of cufab-imexd -N.
domain_state()
{
	"$imexd" -N 2>/dev/null | sed -n 's/^Domain State: //p'
}

# wait_state STATE [SECONDS]: until domain_state says STATE, 60 s at most.
wait_state()
{
	n=0
	while [ "$(domain_state)" != "$1" ] && [ "$n" -lt "$((${2:-60} * 10))" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(domain_state)" = "$1" ]
}

# start_daemon [GRACE]: cufab-imexd on IMEX's keys with grace time GRACE
# (default 0: a lost node is cleaned up at once), its stderr appended to
# $log; its pid in $daemon.
start_daemon()
{
	printf 'IMEX_NODE_CONFIG_FILE=%s\nIMEX_NODE_DISCONNECTED_GRACE_TIME=%s\n' \
		"$CUFAB_NODE_CONFIG" "${1:-0}" >/tmp/imex.cfg
	"$imexd" -c /tmp/imex.cfg 2>>"$log" &
	daemon=$!
}

# imex_channels N: channels 0 to N-1 (the library opens the lowest it can).
imex_channels()
{
	major=$(awk '/^Block devices:/ { exit } $2 == "cufab-imex-channels" { print $1 }' /proc/devices)
	mkdir -p /dev/cufab-imex-channels
	c=0
	while [ "$c" -lt "$1" ]; do
		mknod -m 0600 /dev/cufab-imex-channels/channel$c c "$major" $c 2>/dev/null
		c=$((c + 1))
	done
}

# window_free: the free bytes of this node's window slice.
window_free()
{
	sed -n 's/.* free \([0-9]*\).*/\1/p' /sys/kernel/debug/cufab/window
}

# kernel_line SHOWN WANTED: show the newest kernel line matching SHOWN (a
# figure for the log, or what the kernel said instead); succeed when a
# line matches WANTED.
kernel_line()
{
	dmesg | grep "$1" | tail -n 1 | sed 's/^[^]]*] /# /'
	dmesg | grep -q "$2"
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

# wait_unkept: until this node's window keeps no freed range for other
# nodes' team replicas (debugfs window's "kept" lines), 10 s at most, so
# that its free bytes stop moving before a case counts them.
wait_unkept()
{
	n=0
	while grep -q '^kept ' /sys/kernel/debug/cufab/window &&
	      [ "$n" -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	! grep -q '^kept ' /sys/kernel/debug/cufab/window
}

# revoked: this node holds a revoked import (debugfs fabric_remote).
revoked()
{
	grep -q ' revoked' /sys/kernel/debug/cufab/fabric_remote
}

# wait_revoked [SECONDS]: until revoked, 30 s at most.
wait_revoked()
{
	n=0
	while ! revoked && [ "$n" -lt "$((${1:-30} * 10))" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	revoked
}
