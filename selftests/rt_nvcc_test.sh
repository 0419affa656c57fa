#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Programs built by NVIDIA's nvcc with -cudart shared (selftests/rt_nvcc/,
# built into build/rt/nvcc/) run unchanged on cufab with
# LD_LIBRARY_PATH set to the drop-in directory build/lib/cuda, where
# libcudart.so.13 is libcufabrt: one host-code-only program (pools with
# IPC, managed memory attached to a stream, peer access, an IPC event) and
# one with a kernel, whose launch fails with no image for the device.

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/.." && pwd)
dropin=$build/lib/cuda
progs="host_only kernel"

echo "TAP version 13"
echo "1..2"
pass=0 fail=0 skip=0 n=0
for p in $progs; do
	n=$((n + 1))
	bin=$build/rt/nvcc/$p
	if [ ! -c /dev/cufab ]; then
		echo "ok $n $p # SKIP /dev/cufab absent"
		skip=$((skip + 1))
		continue
	fi
	if [ ! -x "$bin" ]; then
		echo "ok $n $p # SKIP not built (no nvcc at build time)"
		skip=$((skip + 1))
		continue
	fi
	out=$(LD_LIBRARY_PATH=$dropin "$bin" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	# the program must have run on the drop-in, not on any other runtime
	lib=$dropin/libcudart.so.13
	command -v ldd >/dev/null &&
		lib=$(LD_LIBRARY_PATH=$dropin ldd "$bin" 2>/dev/null |
		      sed -n 's/.*libcudart.so.13 => \([^ ]*\).*/\1/p')
	if [ "$rc" = 0 ] && [ "$lib" = "$dropin/libcudart.so.13" ] &&
	   ! echo "$out" | grep -q '^not ok'; then
		echo "ok $n $p"
		pass=$((pass + 1))
	else
		echo "not ok $n $p (exit $rc, libcudart.so.13 from '$lib')"
		fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" = 0 ] || exit 1
[ "$pass" != 0 ] || exit 4
exit 0
