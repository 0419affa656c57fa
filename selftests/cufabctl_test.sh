#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cufabctl selftest: the generic netlink family "cufab" through its admin
# tool, checked against what the kernel exposes elsewhere (debugfs,
# /dev/cufab). Prints KTAP. Runs as root inside the test VM (busybox sh);
# tests that need cufab.ko SKIP when /dev/cufab or the family is missing.
# Every change is undone, by the test that made it and again on exit.
#
# Finds cufabctl and jsoncheck (tools/cufabctl/jsoncheck.c) next to the
# script's build directory, in build/selftests/ or selftests/, or takes
# them from $CUFABCTL and $JSONCHECK.
#
# shellcheck disable=SC2317 # the test_* functions are called by name

here=$(cd "$(dirname "$0")" && pwd)

find_tool() {
	for dir in "$here/../bin" "$here/../build/bin"; do
		if [ -x "$dir/$1" ]; then
			echo "$dir/$1"
			return
		fi
	done
	command -v "$1"
}

CUFABCTL=${CUFABCTL:-$(find_tool cufabctl)}
JSONCHECK=${JSONCHECK:-$(find_tool jsoncheck)}
FEATURES="multicast fabric le-unicast le-multicast le-counted le-owner-access managed-concurrent pageable pools"
KSFT_SKIP=4

tmp=$(mktemp -d) || exit 1
num=0
failed=0
passed=0
skipped=0
holder_open=0
monitor_pid=

diag() {
	echo "$*" | sed 's/^/# /'
}

ctl() {
	"$CUFABCTL" "$@"
}

# Value at a jsoncheck PATH of the JSON output of "cufabctl -j ARGS".
jq1() {
	path=$1
	shift
	"$CUFABCTL" -j "$@" | "$JSONCHECK" "$path"
}

nap() {
	usleep 100000 2>/dev/null || sleep 1
}

# ---- saved state, restored on exit ------------------------------------

orig_gpus=
orig_nvswitch=

save_topology() {
	orig_gpus=$(jq1 .num_gpus topo show) || return 1
	orig_nvswitch=$(jq1 .nvswitch topo show) || return 1
	ctl -j dev show >"$tmp/orig-devs.json"
}

onoff() {
	[ "$1" = true ] && echo on || echo off
}

# "dev set" words that put GPU $1 back as saved by save_topology.
restore_words() {
	f=$tmp/orig-devs.json
	echo "mem $("$JSONCHECK" ".[$1].mem_total" <"$f")"
	echo "numa $("$JSONCHECK" ".[$1].numa_node" <"$f")"
	echo "clique $("$JSONCHECK" ".[$1].clique" <"$f")"
	have=$("$JSONCHECK" ".[$1].features" <"$f")
	for feat in $FEATURES; do
		case "$have" in
		*\"$feat\"*) echo "$feat on" ;;
		*) echo "$feat off" ;;
		esac
	done
}

restore_topology() {
	[ -n "$orig_gpus" ] || return 0
	ctl topo set gpus "$orig_gpus" nvswitch "$(onoff "$orig_nvswitch")"
	i=0
	while [ "$i" -lt "$orig_gpus" ]; do
		# shellcheck disable=SC2046 # word splitting wanted
		ctl dev set "gpu$i" $(restore_words "$i")
		i=$((i + 1))
	done
	if [ "$orig_nvswitch" = false ]; then
		i=0
		while [ "$i" -lt "$orig_gpus" ]; do
			peers=$("$JSONCHECK" ".[$i].peers" <"$tmp/orig-devs.json" |
				tr -d '[]')
			ctl dev set "gpu$i" peers "${peers:-none}"
			i=$((i + 1))
		done
	fi
}

cleanup() {
	[ -n "$monitor_pid" ] && kill -KILL "$monitor_pid" 2>/dev/null
	[ "$holder_open" = 1 ] && exec 3>&-
	restore_topology >"$tmp/restore.log" 2>&1 ||
		diag "restoring the topology failed: $(cat "$tmp/restore.log")"
	rm -rf "$tmp"
}

# ---- KTAP ---------------------------------------------------------------

report() {
	num=$((num + 1))
	case $1 in
	0)
		echo "ok $num $2"
		passed=$((passed + 1)) ;;
	"$KSFT_SKIP")
		echo "ok $num $2 # SKIP $skip_reason"
		skipped=$((skipped + 1)) ;;
	*)
		echo "not ok $num $2"
		failed=$((failed + 1)) ;;
	esac
}

skip() {
	skip_reason=$1
	return "$KSFT_SKIP"
}

fail() {
	diag "$@"
	return 1
}

# Runs "cufabctl ARGS", expects exit $1 and stderr matching the
# extended regular expression $2.
expect_error() {
	want=$1
	pattern=$2
	shift 2
	ctl "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "cufabctl $*: exit $rc, expected $want; stderr: $(cat "$tmp/err")"
		return 1
	fi
	if ! grep -Eq -- "$pattern" "$tmp/err"; then
		fail "cufabctl $*: stderr does not match '$pattern': $(cat "$tmp/err")"
		return 1
	fi
	return 0
}

module_ready=0
need_module() {
	[ "$module_ready" = 1 ] || skip "$module_missing"
}

# ---- tests --------------------------------------------------------------

# Bad words are refused before any netlink traffic, module or not.
test_bad_arguments() {
	expect_error 1 '"frob"' frob || return 1
	expect_error 1 '"frob"' dev frob || return 1
	expect_error 1 '"gpu99x"' dev show gpu99x || return 1
	expect_error 1 '"bogus"' dev set gpu0 bogus 1 || return 1
	expect_error 1 '"12Q"' dev set gpu0 mem 12Q || return 1
	expect_error 1 '"maybe"' dev set gpu0 multicast maybe || return 1
	expect_error 1 '"1,99"' dev set gpu0 peers 1,99 || return 1
	expect_error 1 '"numa" needs a value' dev set gpu0 numa || return 1
	expect_error 1 'nothing to change' dev set gpu0 || return 1
	expect_error 1 '"0"' topo set gpus 0 || return 1
	expect_error 1 '"-x"' -x dev show || return 1
	expect_error 1 '"pid" needs a value' mem show pid || return 1
	expect_error 1 '"x"' mem show pid x || return 1
	expect_error 1 '"bogus"' mem show bogus || return 1
	ctl help | grep -q "cufabctl dev set" || fail "help lacks dev set" ||
		return
	ctl help | grep -q "cufabctl mem show" || fail "help lacks mem show"
}

test_dev_show_text() {
	need_module || return
	ctl dev show >"$tmp/text" || return 1
	n=$(grep -c '^gpu[0-9]*: ' "$tmp/text")
	[ "$n" = "$num_gpus" ] ||
		fail "dev show lists $n GPUs, topo show says $num_gpus" || return
	n=$(grep -Ec '^    uuid GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}  bus [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$' "$tmp/text")
	[ "$n" = "$num_gpus" ] ||
		fail "$n uuid/bus lines for $num_gpus GPUs: $(head -3 "$tmp/text")" ||
		return
	grep -Eq '^    memory [0-9.]+ [KMGT]?i?B \([0-9.]+ [KMGT]?i?B used\)' "$tmp/text" ||
		fail "no memory line in: $(head -3 "$tmp/text")"
}

# Same facts in JSON, valid (plain and pretty), and in debugfs.
test_dev_show_json() {
	need_module || return
	ctl dev show >"$tmp/text" || return 1
	ctl -j dev show >"$tmp/json" || return 1
	"$JSONCHECK" <"$tmp/json" || fail "dev show -j: invalid JSON" || return
	ctl -p dev show | "$JSONCHECK" || fail "dev show -p: invalid JSON" ||
		return
	n=$("$JSONCHECK" -c . <"$tmp/json")
	[ "$n" = "$num_gpus" ] || fail "JSON has $n GPUs, not $num_gpus" ||
		return
	for key in index name uuid bus_id mem_total mem_used numa_node clique features peers mem_gran mem_gran_rec mc_gran mc_gran_rec; do
		"$JSONCHECK" ".[0].$key" <"$tmp/json" >/dev/null ||
			fail "GPU 0 has no \"$key\"" || return
	done
	last=$((num_gpus - 1))
	[ "$("$JSONCHECK" ".[$last].index" <"$tmp/json")" = "$last" ] ||
		fail "last GPU is not index $last" || return
	uuid=$("$JSONCHECK" ".[$last].uuid" <"$tmp/json")
	grep -q "^    uuid $uuid " "$tmp/text" ||
		fail "text and JSON disagree on the UUID of gpu$last" || return
	dbg=/sys/kernel/debug/cufab/gpus
	if [ -r "$dbg" ]; then
		grep -q "^gpu$last .*uuid=$uuid " "$dbg" ||
			fail "debugfs has another UUID for gpu$last: $(grep "^gpu$last " "$dbg")"
	fi
}

test_dev_show_one() {
	need_module || return
	a=$(ctl dev show gpu0) || return 1
	b=$(ctl dev show 0) || return 1
	[ "$a" = "$b" ] || fail "\"dev show gpu0\" and \"dev show 0\" differ" ||
		return
	[ "$(echo "$a" | grep -c '^gpu')" = 1 ] ||
		fail "dev show gpu0 printed: $a" || return
	[ "$(ctl -j dev show gpu0 | "$JSONCHECK" -c .)" = 1 ] ||
		fail "dev show -j gpu0 is not one GPU" || return
	expect_error 1 "gpu$num_gpus: .*(No such device|[Nn]o such GPU)" \
		dev show "gpu$num_gpus"
}

test_topo_show() {
	need_module || return
	ctl topo show >"$tmp/topo" || return 1
	grep -Eq "^node: $num_gpus GPUs  nvswitch (on|off)  clients [0-9]+  live objects [0-9]+  race delay [0-9]+ us seed [0-9]+$" "$tmp/topo" ||
		fail "summary line: $(head -1 "$tmp/topo")" || return
	rows=$(grep -Ec '^GPU[0-9]+ +(X|NV|-) ' "$tmp/topo")
	[ "$rows" = "$num_gpus" ] ||
		fail "peer matrix has $rows rows, not $num_gpus" || return
	selfs=$(grep -E '^GPU[0-9]+ ' "$tmp/topo" | grep -c ' X ')
	[ "$selfs" = "$num_gpus" ] || fail "matrix rows without X: $selfs" ||
		return
	ctl -j topo show >"$tmp/topo.json" && "$JSONCHECK" <"$tmp/topo.json" ||
		fail "topo show -j: invalid JSON" || return
	n=$("$JSONCHECK" -c .devices <"$tmp/topo.json")
	[ "$n" = "$num_gpus" ] || fail "topo JSON has $n devices" || return
	"$JSONCHECK" .cliques[0].gpus <"$tmp/topo.json" >/dev/null ||
		fail "topo JSON has no clique list" || return
	# the fabric cluster: text, JSON and the module parameter agree
	cluster=$("$JSONCHECK" .cluster_uuid <"$tmp/topo.json") ||
		fail "topo JSON has no cluster_uuid" || return
	echo "$cluster" |
		grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' ||
		fail "cluster_uuid \"$cluster\" is not a UUID" || return
	[ "$cluster" != 00000000-0000-0000-0000-000000000000 ] ||
		fail "cluster_uuid is nil" || return
	grep -qx "cluster: $cluster" "$tmp/topo" ||
		fail "text has no line \"cluster: $cluster\"" || return
	param=/sys/module/cufab/parameters/cluster_uuid
	[ "$(cat "$param")" = "$cluster" ] ||
		fail "$param is $(cat "$param"), topo show says $cluster"
}

# The GPU's value at PATH (".mem_total") as "dev show -j" reports it.
dev_value() {
	jq1 ".[0]$2" dev show "gpu$1"
}

test_dev_set_mem() {
	need_module || return
	old=$(dev_value 0 .mem_total)
	new=536870912
	[ "$old" = "$new" ] && new=268435456
	ctl dev set gpu0 mem $((new / 1048576))M || return 1
	got=$(dev_value 0 .mem_total)
	ctl dev set gpu0 mem "$old" || fail "could not restore mem $old"
	[ "$got" = "$new" ] || fail "mem_total is $got after setting $new" ||
		return
	[ "$(dev_value 0 .mem_total)" = "$old" ] ||
		fail "mem_total not restored to $old" || return
	expect_error 1 'MiB' dev set gpu0 mem 1048577
}

# Another online NUMA node (or none) and back.
test_dev_set_numa() {
	need_module || return
	old=$(dev_value 0 .numa_node)
	new=-1
	[ "$old" = -1 ] && new=0
	ctl dev set gpu0 numa "$new" || return 1
	got=$(dev_value 0 .numa_node)
	ctl dev set gpu0 numa "$old" || fail "could not restore numa $old"
	[ "$got" = "$new" ] || fail "numa_node is $got after setting $new" ||
		return
	[ "$(dev_value 0 .numa_node)" = "$old" ] ||
		fail "numa_node not restored to $old" || return
	expect_error 1 'dev-numa-node|NUMA' dev set gpu0 numa 1023
}

test_dev_set_feature() {
	need_module || return
	old=$(dev_value 0 .features)
	case "$old" in
	*\"pools\"*) was=on ;;
	*) was=off ;;
	esac
	ctl dev set gpu0 pools off || return 1
	got=$(dev_value 0 .features)
	ctl dev set gpu0 pools "$was" || fail "could not restore pools $was"
	case "$got" in
	*\"pools\"*) fail "pools still listed after pools off: $got" ;;
	esac || return
	[ "$(dev_value 0 .features)" = "$old" ] ||
		fail "features not restored: $(dev_value 0 .features), was $old"
}

# With the NVSwitch, peers follow cliques: moving the last GPU to its
# own clique cuts it from gpu0 (and gpu0 from it).
test_dev_set_clique() {
	need_module || return
	[ "$num_gpus" -ge 2 ] || skip "needs 2 GPUs" || return
	last=$((num_gpus - 1))
	old=$(dev_value "$last" .clique)
	new=$((old + 1))
	[ "$new" -le 63 ] || new=$((old - 1))
	ctl dev set "gpu$last" clique "$new" || return 1
	ctl -j topo show >"$tmp/topo.json"
	ctl dev set "gpu$last" clique "$old" || fail "could not restore clique"
	got=$("$JSONCHECK" ".devices[$last].clique" <"$tmp/topo.json")
	[ "$got" = "$new" ] || fail "clique is $got after setting $new" ||
		return
	[ "$("$JSONCHECK" .nvswitch <"$tmp/topo.json")" = true ] || return 0
	p0=$("$JSONCHECK" ".devices[0].peers" <"$tmp/topo.json")
	case ",$(echo "$p0" | tr -d '[]')," in
	*",$last,"*) fail "gpu0 still peers gpu$last in another clique: $p0" ;;
	esac
}

# Explicit peers need nvswitch off; peering is symmetric.
test_dev_set_peers() {
	need_module || return
	[ "$num_gpus" -ge 3 ] || skip "needs 3 GPUs" || return
	if [ "$orig_nvswitch" = true ]; then
		expect_error 1 'NVSWITCH|nvswitch' dev set gpu0 peers 1 || return
		ctl topo set nvswitch off || return 1
	fi
	old=$(dev_value 0 .peers | tr -d '[]')
	ctl dev set gpu0 peers 2 || fail "dev set peers failed"
	p0=$(dev_value 0 .peers)
	p2=$(dev_value 2 .peers)
	ctl dev set gpu0 peers "${old:-none}" || fail "could not restore peers"
	ctl topo set nvswitch "$(onoff "$orig_nvswitch")" ||
		fail "could not restore nvswitch"
	[ "$p0" = "[2]" ] || fail "gpu0 peers $p0 after peers 2" || return
	case ",$(echo "$p2" | tr -d '[]')," in
	*,0,*) ;;
	*) fail "gpu2 peers $p2 do not include gpu0" ;;
	esac
}

# A client holding /dev/cufab freezes the topology; reads still work.
test_set_busy() {
	need_module || return
	numa=$(dev_value 0 .numa_node)
	# A failed "exec" redirection would end the script: probe first.
	(exec 3<>/dev/cufab) 2>/dev/null || fail "cannot open /dev/cufab" ||
		return
	exec 3<>/dev/cufab
	holder_open=1
	expect_error 1 ': .+ \(Device or resource busy\); [0-9]+ clients? ha' \
		dev set gpu0 numa "$numa"
	rc1=$?
	expect_error 1 'Device or resource busy' topo set nvswitch \
		"$(onoff "$orig_nvswitch")"
	rc2=$?
	clients=$(jq1 .clients topo show)
	exec 3>&-
	holder_open=0
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || return 1
	[ "${clients:-0}" -ge 1 ] ||
		fail "topo show says $clients clients while one is open" || return
	ctl dev set gpu0 numa "$numa" ||
		fail "dev set still refused after the client closed"
}

# uid 65534 may read but not change (GENL_ADMIN_PERM).
test_set_needs_cap_net_admin() {
	need_module || return
	user=$(awk -F: '$3 == 65534 { print $1; exit }' /etc/passwd 2>/dev/null)
	[ -n "$user" ] || skip "no user with uid 65534 in /etc/passwd" || return
	command -v su >/dev/null || skip "no su command" || return
	numa=$(dev_value 0 .numa_node)
	su -s /bin/sh "$user" -c "\"$CUFABCTL\" dev show gpu0" \
		>"$tmp/out" 2>"$tmp/err" ||
		fail "uid 65534 cannot read: $(cat "$tmp/err")" || return
	su -s /bin/sh "$user" -c "\"$CUFABCTL\" dev set gpu0 numa $numa" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 1 ] || fail "uid 65534 dev set: exit $rc" || return
	grep -q 'need CAP_NET_ADMIN' "$tmp/err" ||
		fail "uid 65534 dev set: $(cat "$tmp/err")"
}

test_topo_set_gpus() {
	need_module || return
	if [ "$num_gpus" -lt 8 ]; then
		want=8
	elif [ "$num_gpus" -lt 64 ]; then
		want=$((num_gpus + 1))
	else
		want=63
	fi
	ctl topo set gpus "$want" || return 1
	n=$(ctl -j dev show | "$JSONCHECK" -c .)
	topo_n=$(jq1 .num_gpus topo show)
	ctl topo set gpus "$num_gpus" || fail "could not restore $num_gpus GPUs"
	[ "$n" = "$want" ] && [ "$topo_n" = "$want" ] ||
		fail "after gpus $want: dev show has $n, topo show $topo_n" ||
		return
	n=$(ctl -j dev show | "$JSONCHECK" -c .)
	[ "$n" = "$num_gpus" ] || fail "after restoring: $n GPUs"
}

# "monitor -j" prints a dev-set event with the GPU's new state and a
# topo-set event with the node's, one JSON document per line, and ends
# cleanly on SIGINT.
test_monitor() {
	need_module || return
	# The binary itself, not a function: $! must be its pid.
	"$CUFABCTL" -j monitor >"$tmp/mon" 2>"$tmp/mon.err" &
	monitor_pid=$!
	old=$(dev_value 0 .features)
	case "$old" in
	*\"pools\"*) was=on ;;
	*) was=off ;;
	esac
	delay=$(cat /sys/module/cufab/parameters/race_delay_us)
	i=0
	# The monitor joins the group asynchronously: retry until seen.
	while [ "$i" -lt 30 ] && ! { grep -q '"dev-set"' "$tmp/mon" &&
				    grep -q '"topo-set"' "$tmp/mon"; }; do
		ctl dev set gpu0 pools off && ctl dev set gpu0 pools "$was"
		ctl topo set race-delay-us "$delay"
		nap
		i=$((i + 1))
	done
	kill -INT "$monitor_pid"
	(sleep 5 && kill -KILL "$monitor_pid") >/dev/null 2>&1 &
	watchdog=$!
	wait "$monitor_pid"
	rc=$?
	monitor_pid=
	kill "$watchdog" 2>/dev/null
	[ "$rc" = 0 ] || fail "monitor exit $rc on SIGINT: $(cat "$tmp/mon.err")" ||
		return
	"$JSONCHECK" -l <"$tmp/mon" || fail "monitor -j: invalid JSON lines" ||
		return
	"$JSONCHECK" -l .event <"$tmp/mon" | grep -qx dev-set ||
		fail "no dev-set event in: $(head -3 "$tmp/mon")" || return
	"$JSONCHECK" -l .dev.index <"$tmp/mon" | grep -qx 0 ||
		fail "dev-set event without gpu0" || return
	"$JSONCHECK" -l .event <"$tmp/mon" | grep -qx topo-set ||
		fail "no topo-set event in: $(head -3 "$tmp/mon")" || return
	"$JSONCHECK" -l .topo.race_delay_us <"$tmp/mon" | grep -qx "$delay" ||
		fail "topo-set event without race_delay_us $delay: $(grep topo-set "$tmp/mon" | head -1)"
}

# "monitor trace": the tracepoints of a program's objects, as JSON lines,
# from a tracefs instance of the monitor's own that it removes on exit.
test_monitor_trace() {
	need_module || return
	vmm=$here/../examples/vmm_share
	[ -x "$vmm" ] || skip "no $vmm" || return
	# Making an instance creates a directory per kernel event: minutes
	# under KASAN and TCG, and soft lockups.
	dmesg | grep -q 'KernelAddressSanitizer initialized' &&
		{ skip "KASAN kernel: a tracefs instance takes minutes to make"; return; }
	"$CUFABCTL" -j monitor trace >"$tmp/mt" 2>"$tmp/mt.err" &
	monitor_pid=$!
	inst=
	i=0
	# records are kept from the moment the instance's events are on
	while [ "$i" -lt 100 ] &&
	      [ "$(cat "$inst/events/cufab/enable" 2>/dev/null)" != 1 ]; do
		nap
		for inst in /sys/kernel/tracing/instances/cufabctl-"$monitor_pid" \
			    /sys/kernel/debug/tracing/instances/cufabctl-"$monitor_pid"; do
			[ -d "$inst" ] && break
		done
		i=$((i + 1))
	done
	[ -d "$inst" ] || { kill -KILL "$monitor_pid"; monitor_pid=;
		fail "no trace instance: $(cat "$tmp/mt.err")"; return; }
	"$vmm" >"$tmp/vmm" 2>&1 || fail "vmm_share: $(cat "$tmp/vmm")" || return
	i=0
	while [ "$i" -lt 50 ] && ! grep -q cufab_alloc_destroy "$tmp/mt"; do
		nap
		i=$((i + 1))
	done
	kill -INT "$monitor_pid"
	wait "$monitor_pid"
	rc=$?
	monitor_pid=
	[ "$rc" = 0 ] || fail "monitor trace exit $rc: $(cat "$tmp/mt.err")" || return
	[ ! -e "$inst" ] || fail "$inst left behind" || return
	"$JSONCHECK" -l <"$tmp/mt" || fail "monitor trace: invalid JSON lines" ||
		return
	for ev in cufab_alloc_create cufab_mem_export cufab_mem_import \
		  cufab_mem_map cufab_mem_fault cufab_mem_unmap cufab_alloc_destroy; do
		"$JSONCHECK" -l .event <"$tmp/mt" | grep -qx "$ev" ||
			fail "no $ev in: $(head -5 "$tmp/mt")" || return
	done
	# numbers are numbers: the size of the allocations
	"$JSONCHECK" -l .fields.size <"$tmp/mt" | grep -qx '[1-9][0-9]*' ||
		fail "no numeric fields.size in: $(head -3 "$tmp/mt")"
}

# The allocations of every process: valid JSON, the same ones as debugfs
# "mem" lists, none for a pid that has none.
test_mem_show() {
	need_module || return
	ctl -j mem show >"$tmp/mem.json" || fail "mem show failed" || return
	"$JSONCHECK" <"$tmp/mem.json" || fail "mem show -j: invalid JSON" ||
		return
	ctl -j -p mem show | "$JSONCHECK" || fail "mem show -j -p: invalid" ||
		return
	ctl mem show >/dev/null || fail "mem show (text) failed" || return
	out=$(ctl -j mem show pid 999999) || fail "mem show pid: failed" ||
		return
	[ "$out" = "[]" ] || fail "mem show pid 999999: $out" || return
	out=$(ctl mem show pid 999999) || return 1
	[ "$out" = none ] || fail "mem show pid 999999 (text): $out" || return
	dbg=/sys/kernel/debug/cufab/mem
	[ -r "$dbg" ] || return 0
	# the selftest runs alone: nothing allocates between the two reads
	want=$(grep -c '^alloc ' "$dbg")
	n=$("$JSONCHECK" -c . <"$tmp/mem.json")
	[ "$n" = "$want" ] ||
		fail "mem show lists $n allocations, debugfs $want" || return
}

# Every listing filters by pid the same way and says "none" when empty
# ("[]" in JSON); imex has "show" like every object.
test_empty_lists() {
	need_module || return
	for obj in mem le mc pool stream proc; do
		out=$(ctl "$obj" show pid 999999) ||
			fail "$obj show pid 999999 failed" || return
		[ "$out" = none ] ||
			fail "$obj show pid 999999 (text): \"$out\", want none" ||
			return
		out=$(ctl -j "$obj" show pid 999999) ||
			fail "$obj show -j pid 999999 failed" || return
		[ "$out" = "[]" ] ||
			fail "$obj show -j pid 999999: $out, want []" || return
	done
	out=$(ctl peer show pid 999999) || fail "peer show pid failed" || return
	[ "$(printf '%s\n' "$out" | head -1)" = none ] ||
		fail "peer show pid 999999 (text) starts: $(printf '%s\n' "$out" | head -1)" ||
		return
	ctl -j imex show | "$JSONCHECK" || fail "imex show -j: invalid JSON" ||
		return
	[ "$(ctl -j imex show)" = "$(ctl -j imex status)" ] ||
		fail "imex show and imex status differ"
}

TESTS="bad_arguments dev_show_text dev_show_json dev_show_one topo_show
dev_set_mem dev_set_numa dev_set_feature dev_set_clique dev_set_peers
set_busy set_needs_cap_net_admin topo_set_gpus monitor monitor_trace mem_show
empty_lists"

# ---- main ---------------------------------------------------------------

echo "TAP version 13"
# shellcheck disable=SC2086 # one word per test
set -- $TESTS
echo "1..$#"

if [ -z "$CUFABCTL" ] || [ -z "$JSONCHECK" ]; then
	diag "cufabctl or jsoncheck not found (build with \"make tools\")"
	for test_name in $TESTS; do
		num=$((num + 1))
		echo "not ok $num $test_name"
	done
	exit 1
fi

module_missing=
if [ ! -e /dev/cufab ]; then
	module_missing="/dev/cufab missing (cufab.ko not loaded)"
elif ! ctl topo show >/dev/null 2>"$tmp/err"; then
	module_missing="generic netlink family cufab: $(cat "$tmp/err")"
elif ! save_topology; then
	module_missing="cannot read the topology"
else
	module_ready=1
	num_gpus=$orig_gpus
fi
trap cleanup EXIT
trap 'exit 1' INT TERM

# Test functions share the shell's variables: test_name is only ours.
for test_name in $TESTS; do
	skip_reason=
	"test_$test_name"
	report $? "$test_name"
done

echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
[ "$failed" = 0 ] || exit 1
[ "$passed" = 0 ] && exit $KSFT_SKIP
exit 0
