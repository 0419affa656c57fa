#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A program built as NVIDIA's driver samples are (NVIDIA's cuda.h, linked
# with -lcuda through NVIDIA's stub libcuda.so, nothing of cufab's) runs on
# libcufab under the drop-in name: build/lib/cuda/libcuda.so.1, found via
# LD_LIBRARY_PATH. Also: without that path it does not start (it really
# needs libcuda.so.1), and it writes nothing to stderr (the library is
# silent unless CUFAB_DEBUG is set). KTAP on stdout.

here=$(cd "$(dirname "$0")" && pwd)
sample=$here/../abi/cuda_sample
dropin=$here/../lib/cuda
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

echo "TAP version 13"
echo "1..3"
if [ ! -e /dev/cufab ]; then
	for i in 1 2 3; do echo "ok $i # SKIP /dev/cufab absent"; done
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:3 error:0"
	exit 4
fi
pass=0 fail=0

result()	# N DESCRIPTION STATUS(0 = ok)
{
	if [ "$3" = 0 ]; then
		echo "ok $1 $2"
		pass=$((pass + 1))
	else
		echo "not ok $1 $2"
		fail=$((fail + 1))
	fi
}

env -u LD_LIBRARY_PATH -u CUFAB_DEBUG "$sample" >"$out" 2>"$err"
rc=$?
result 1 "without $dropin the sample does not find libcuda.so.1" \
	$([ $rc != 0 ] && grep -q "libcuda.so.1" "$err"; echo $?)

env -u CUFAB_DEBUG LD_LIBRARY_PATH="$dropin" "$sample" >"$out" 2>"$err"
rc=$?
sed 's/^/# /' "$out"
result 2 "the sample runs on libcufab as libcuda.so.1" \
	$([ $rc = 0 ] && grep -q "^Test PASSED" "$out" &&
	  grep -q "cufab Virtual GPU" "$out"; echo $?)

[ -s "$err" ] && sed 's/^/# stderr: /' "$err"
result 3 "the library wrote nothing to stderr" $([ ! -s "$err" ]; echo $?)

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" = 0 ]
