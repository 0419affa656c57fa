#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The short seeded pass of the fuzzer (tools/fuzz, Documentation/testing.rst)
# that make check runs under the debug kernel (it skips elsewhere): every
# ioctl and netlink command, threads, processes killed mid-call, fd
# passing and the mappings' mmap/munmap/mprotect/fork, with the
# invariants checked after each episode. Prints KTAP; a failing episode prints the line that
# replays it. `make fuzz DURATION=...` runs a long one.
#
# Environment: CUFAB_FUZZ_SEED (default 1), CUFAB_FUZZ_SECONDS (default 40).

here=$(cd "$(dirname "$0")" && pwd)
fuzz=$here/../fuzz/cufab-fuzz

skip()
{
	printf 'TAP version 13\n1..1\nok 1 fuzz # SKIP %s\n' "$1"
	exit 4
}

[ -x "$fuzz" ] || skip "no $fuzz (make tools)"
# The pass is for the kernel that finds what it provokes (KASAN, lockdep,
# kmemleak): make check's other boots would spend its time again for less.
[ -e /sys/kernel/debug/kmemleak ] ||
	skip "the short pass runs under the debug kernel (no kmemleak here)"
exec "$fuzz" -k -s "${CUFAB_FUZZ_SEED:-1}" -d "${CUFAB_FUZZ_SECONDS:-40}" -c 300 -p 3
