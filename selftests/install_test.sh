#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# install selftest: what `make install` puts on a machine works there. Runs
# as root inside the test VM (busybox sh), whose root file system is a
# writable initramfs: the tree `make install-root` made on the host
# (build/install-root, `make install DESTDIR=... PREFIX=/usr`) is copied
# into /, depmod indexes it, and then
#   - modprobe loads the installed cufab.ko (in place of the one the VM
#     loaded, with the same parameters, so later suites see the same node)
#   - a program built with nothing but `cc $(pkg-config --cflags --libs
#     cufab)` runs, finding libcufab.so.1 on the default search path, and
#     so does a runtime-API program built with pkg-config's cufabrt
#   - a program linked with -lcuda against NVIDIA's cuda.h runs with
#     LD_LIBRARY_PATH at the drop-in directory, and does not start without
#   - a call the library lacks stops at symbol lookup, named
#   - cufab-imex-channels makes the channel nodes an administrator listed
# Prints KTAP. Without an installed module for the running kernel (the
# debug kernel: its module carries the KUnit suites) the module test
# skips and the others use the module the VM loaded.
#
# shellcheck disable=SC2317 # the test_* functions are called by name

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/.." && pwd)
root=$build/install-root
bin=$build/install-bin
rel=$(uname -r)
KSFT_SKIP=4

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
num=0 passed=0 failed=0 skipped=0 skip_reason=

diag() { echo "$*" | sed 's/^/# /'; }
skip() { skip_reason=$1; return "$KSFT_SKIP"; }
fail() { diag "$@"; return 1; }

report() {
	num=$((num + 1))
	case $1 in
	0) echo "ok $num $2"; passed=$((passed + 1)) ;;
	"$KSFT_SKIP") echo "ok $num $2 # SKIP $skip_reason"; skipped=$((skipped + 1)) ;;
	*) echo "not ok $num $2"; failed=$((failed + 1)) ;;
	esac
}

# ---- tests --------------------------------------------------------------

installed=0

test_tree() {
	[ -d "$root" ] || skip "no $root (run make install-root on the host)" ||
		return
	for f in usr/lib/libcufab.so.1 usr/lib/libcufab.so usr/lib/cufab/libcuda.so.1 \
		 usr/lib/cufab/libnvidia-ml.so.1 usr/include/cufab/nvml.h \
		 usr/include/cufab/cuda.h usr/include/linux/cufab.h \
		 usr/lib/pkgconfig/cufab.pc usr/lib/pkgconfig/cufabrt.pc \
		 usr/lib/libcufabrt.so.1 usr/bin/cufabctl usr/sbin/cufab-imex-channels \
		 lib/udev/rules.d/60-cufab.rules etc/modprobe.d/cufab.conf.example \
		 etc/cufab/imex-channels usr/share/man/man8/cufabctl.8 \
		 usr/share/man/man4/cufab.4 usr/share/bash-completion/completions/cufabctl; do
		[ -e "$root/$f" ] || fail "$root/$f: not installed" || return
	done
	# DESTDIR: no leftovers of the host's depmod in the tree
	if ls "$root"/lib/modules/*/modules.dep >/dev/null 2>&1; then
		fail "depmod ran into DESTDIR: $(ls "$root"/lib/modules/*/modules.dep)"
		return
	fi
	cp -a "$root/." / || fail "copying $root into / failed" || return
	installed=1
}

test_modprobe() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	ko=/lib/modules/$rel/extra/cufab.ko
	[ -f "$ko" ] || skip "no installed module for $rel" || return
	depmod "$rel" || fail "depmod $rel failed" || return
	grep -q '^extra/cufab.ko:\|/extra/cufab.ko:' "/lib/modules/$rel/modules.dep" ||
		fail "modules.dep does not list extra/cufab.ko" || return
	# shellcheck disable=SC1091 # written by tools/vm/run for tools/vm/init
	params=$(. /etc/cufab/run.conf 2>/dev/null; echo "$CUFAB_MODPARAMS")
	if [ -d /sys/module/cufab ]; then
		rmmod cufab || fail "rmmod of the VM's cufab failed" || return
	fi
	# shellcheck disable=SC2086 # parameters are separate words
	modprobe cufab $params || fail "modprobe cufab $params failed" || return
	[ -c /dev/cufab ] || fail "/dev/cufab missing after modprobe" || return
	# the modules the kernel loaded: cufab, from the installed file
	[ "$(cat /sys/module/cufab/initstate 2>/dev/null)" = live ] ||
		fail "cufab is not live after modprobe"
}

test_pkgconfig_program() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	[ -x "$bin/devices" ] || skip "no $bin/devices" || return
	# the loader's own view: libcufab.so.1 from /usr/lib, no rpath
	LD_TRACE_LOADED_OBJECTS=1 "$bin/devices" >"$tmp/ldd" 2>&1
	grep -q 'libcufab.so.1 => /usr/lib/libcufab.so.1' "$tmp/ldd" ||
		fail "libcufab.so.1 not found on the default path: $(cat "$tmp/ldd")" ||
		return
	"$bin/devices" >"$tmp/out" 2>&1 ||
		fail "devices failed: $(cat "$tmp/out")" || return
	grep -q 'GPU' "$tmp/out" || fail "devices printed no GPU: $(cat "$tmp/out")"
}

test_pkgconfig_runtime() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	[ -x "$bin/rt_count" ] ||
		skip "no $bin/rt_count (CUDA's cuda_runtime_api.h missing on the host)" ||
		return
	LD_TRACE_LOADED_OBJECTS=1 "$bin/rt_count" >"$tmp/ldd" 2>&1
	grep -q 'libcufabrt.so.1 => /usr/lib/libcufabrt.so.1' "$tmp/ldd" &&
		grep -q 'libcufab.so.1 => /usr/lib/libcufab.so.1' "$tmp/ldd" ||
		fail "libcufabrt.so.1/libcufab.so.1 not from /usr/lib: $(cat "$tmp/ldd")" ||
		return
	"$bin/rt_count" >"$tmp/out" 2>&1 ||
		fail "rt_count failed: $(cat "$tmp/out")" || return
	grep -q '^rt_count: [1-9][0-9]* devices$' "$tmp/out" ||
		fail "rt_count: unexpected output $(cat "$tmp/out")"
}

test_dropin() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	[ -x "$bin/dropin" ] || skip "no $bin/dropin (NVIDIA's cuda.h missing on the host)" ||
		return
	if "$bin/dropin" >"$tmp/out" 2>&1; then
		fail "dropin ran without LD_LIBRARY_PATH: the drop-in is on the default path"
		return
	fi
	grep -q 'libcuda.so.1' "$tmp/out" ||
		fail "dropin without LD_LIBRARY_PATH: unexpected $(cat "$tmp/out")" || return
	LD_LIBRARY_PATH=/usr/lib/cufab "$bin/dropin" >"$tmp/out" 2>&1 ||
		fail "dropin on the drop-in failed: $(cat "$tmp/out")" || return
	diag "$(cat "$tmp/out")"
	grep -q '^dropin: driver [0-9]*, [1-9][0-9]* devices' "$tmp/out" ||
		fail "dropin: unexpected output $(cat "$tmp/out")"
}

test_dropin_uncovered_call() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	[ -x "$bin/dropin_uncovered" ] || skip "no $bin/dropin_uncovered" || return
	LD_LIBRARY_PATH=/usr/lib/cufab "$bin/dropin_uncovered" >"$tmp/out" 2>&1
	rc=$?
	diag "exit $rc: $(cat "$tmp/out")"
	# ran the covered calls, then the loader stopped it (127), by name
	grep -q '^dropin: driver' "$tmp/out" ||
		fail "the covered calls did not run first" || return
	[ "$rc" = 127 ] || fail "exit status $rc, expected 127 from the loader" ||
		return
	grep -q 'symbol lookup error: .*undefined symbol: cuLaunchKernel' "$tmp/out" ||
		fail "no symbol lookup error naming cuLaunchKernel"
}

# ls -ln: mode string, owner and group ids, "major, minor".
node_facts() {
	# shellcheck disable=SC2012 # one named node, busybox has no stat -c %A
	ls -ln "$1" | awk '{ print $1, $3, $4, $5 $6 }'
}

test_imex_channels() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	major=$(awk '/^Block/ { exit } $2 == "cufab-imex-channels" { print $1 }' /proc/devices)
	[ -n "$major" ] || skip "no IMEX channel region (imex_channel_count=0?)" ||
		return
	dir=$tmp/dev
	printf '%s\n' '# test table' '3 nobody nogroup 0640' '5 root root 600' >"$tmp/conf"
	CUFAB_IMEX_DIR=$dir cufab-imex-channels --config "$tmp/conf" 2>"$tmp/err" ||
		fail "cufab-imex-channels failed: $(cat "$tmp/err")" || return
	f=$(node_facts "$dir/channel3")
	[ "$f" = "crw-r----- 65534 65534 $major,3" ] ||
		fail "channel3: '$f', want 'crw-r----- 65534 65534 $major,3'" || return
	f=$(node_facts "$dir/channel5")
	[ "$f" = "crw------- 0 0 $major,5" ] ||
		fail "channel5: '$f', want 'crw------- 0 0 $major,5'" || return
	# a node of a stale major is replaced; a bad line is named, others kept
	rm -f "$dir/channel5" && mknod "$dir/channel5" c 1 3
	printf '%s\n' '5 root root 0600' '9 root root 06x0' '99999999 root root 0600' \
		>"$tmp/conf2"
	if CUFAB_IMEX_DIR=$dir cufab-imex-channels --config "$tmp/conf2" 2>"$tmp/err"; then
		fail "a bad table was accepted"
		return
	fi
	grep -q "conf2:2: mode '06x0' is not an octal mode" "$tmp/err" &&
		grep -q 'conf2:3: channel 99999999 does not exist' "$tmp/err" ||
		fail "errors do not name line and rule: $(cat "$tmp/err")" || return
	f=$(node_facts "$dir/channel5")
	[ "$f" = "crw------- 0 0 $major,5" ] ||
		fail "stale channel5 not replaced: '$f'" || return
	CUFAB_IMEX_DIR=$dir cufab-imex-channels --remove --config "$tmp/conf" ||
		fail "--remove failed" || return
	[ ! -e "$dir" ] || fail "--remove left $(ls "$dir")"
}

test_udev_rules() {
	[ "$installed" = 1 ] || skip "nothing installed" || return
	rules=/lib/udev/rules.d/60-cufab.rules
	grep -q 'KERNEL=="cufab", GROUP="cufab", MODE="0660"' "$rules" ||
		fail "$rules: no rule for /dev/cufab" || return
	# every program a rule runs exists and is executable
	# shellcheck disable=SC2013 # paths without blanks, one per rule
	for p in $(sed -n 's/.*RUN+="\([^" ]*\).*/\1/p' "$rules"); do
		[ -x "$p" ] || fail "$rules runs $p, which is not installed" || return
	done
}

TESTS="tree modprobe pkgconfig_program pkgconfig_runtime dropin dropin_uncovered_call
imex_channels udev_rules"

echo "TAP version 13"
# shellcheck disable=SC2086 # one word per test
set -- $TESTS
echo "1..$#"
for t in $TESTS; do
	skip_reason=
	"test_$t"
	report $? "$t"
done
echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
[ "$failed" = 0 ] || exit 1
[ "$passed" = 0 ] && exit $KSFT_SKIP
exit 0
