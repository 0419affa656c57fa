#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, inside the VM (tools/vm/run -- tools/vm/demo.sh): shows the
# virtual fabric through cufabctl, then runs every program in
# build/examples/ (one per examples/*.c) in name order, each printing its
# own output.  Exits non-zero if any of them fails.

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/../../build" && pwd) || exit 1
rc=0

section()
{
	printf '\n=== %s\n' "$*"
}

if [ -x "$build/bin/cufabctl" ]; then
	section "cufabctl topo show"
	"$build/bin/cufabctl" topo show || rc=1
fi

for ex in "$build"/examples/*; do
	[ -f "$ex" ] && [ -x "$ex" ] || continue
	section "examples/$(basename "$ex")"
	"$ex" || { echo "demo: $(basename "$ex") failed (status $?)"; rc=1; }
done
exit "$rc"
