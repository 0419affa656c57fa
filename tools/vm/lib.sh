# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The globals are the callers' (SC2154) and set for them (SC2034).
# shellcheck disable=SC2034,SC2154
#
# tools/vm/lib.sh: the pieces of a test VM that tools/vm/run and
# tools/vm/cluster share, sourced by both (bash).  The caller sets
#   here repo cache   tools/vm, the checkout, the kernel cache
#   dir               the host directory shared with the guest
#   cmd_argv          the command (its program's libraries are packed)
# and the functions below set or use the globals they name; the caller
# also defines info(), for lines -q silences.

# vm_kernel debian|debug [WHAT]: the kernel to boot; sets kind, image, kdir,
# release and kmods_dir (the Debian kernel's modules, empty for debug).
# WHAT is what tools/vm/kernel is asked for (default: the kind), whose
# other results are left in the environment.
vm_kernel()
{
	local kenv

	kind=$1
	kenv=$("$here/kernel" "${2:-$kind}") || exit 125
	eval "$kenv"
	if [ "$kind" = debug ]; then
		image=$DEBUG_IMAGE kdir=$DEBUG_KDIR release=$DEBUG_RELEASE
		kmods_dir=
	else
		image=$DEBIAN_IMAGE kdir=$DEBIAN_KDIR release=$DEBIAN_RELEASE
		kmods_dir=$DEBIAN_MODULES
	fi
}

# Where `make module KDIR=$kdir` puts cufab.ko (the Makefile says; the
# fallback mirrors its rule: build/kmod/<basename of KDIR>/).
kmod_path()
{
	local p

	p=$(make -s -C "$repo" --no-print-directory print-kmod-path \
		KDIR="$kdir" 2>/dev/null) || true
	[ -n "$p" ] || p=$repo/build/kmod/$(basename "$(realpath "$kdir")")/cufab.ko
	echo "$p"
}

# vm_workdir: sets initramfs_dir (cached pieces) and work (this run's
# scratch directory under build/vm/, removed on exit); prunes old runs.
vm_workdir()
{
	initramfs_dir=$cache/initramfs
	mkdir -p "$initramfs_dir" "$repo/build/vm"
	# Leftovers of killed runs, and all but the newest 50 runs' logs.
	find "$repo/build/vm" -maxdepth 1 -name '.run.*' -mmin +120 \
		-exec rm -rf {} + 2>/dev/null || true
	# (no verdict yet in a fresh checkout: ls fails, which pipefail must not see)
	{ ls -t "$repo"/build/vm/*.verdict 2>/dev/null || true; } | tail -n +51 |
		while read -r v; do rm -f "${v%.verdict}".*; done
	work=$(mktemp -d "$repo/build/vm/.run.XXXXXX")
	trap 'rm -rf "$work"' EXIT
}

is_elf() { [ "$(head -c4 "$1" 2>/dev/null)" = $'\x7fELF' ]; }

# Shared libraries the guest needs: the usual ones of our programs plus the
# closure (ldd) of every ELF executable under the shared build/ dirs and of
# CMD's program.  Libraries inside a shared directory are reached over 9p.
lib_candidates()
{
	local d f

	for d in "$repo/build" "$dir/build"; do
		[ -d "$d" ] || continue
		find "$d" \( -path "$repo/build/kmod" -o -path "$repo/build/vm" \) \
			-prune -o -type f -perm -u+x -print
	done | sort -u
	f=${cmd_argv[0]:-}
	if [ -n "$f" ] && [ "$f" = "${f#*[[:space:]]}" ]; then
		f=$(cd "$PWD" && command -v -- "$f" 2>/dev/null) || true
		[ -z "$f" ] || [ ! -f "$f" ] || realpath "$f"
	fi
	interpreters
}

# The host's bash and python3 (the files behind them), for scripts.
interpreters()
{
	local p

	p=$(command -v bash 2>/dev/null) && realpath "$p"
	# (python3 on PATH may be a wrapper script: ask the interpreter)
	p=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) &&
		[ -n "$p" ] && realpath "$p"
	return 0
}

# Directories python3 imports from, shared read-only at the same paths.
python_dirs()
{
	command -v python3 >/dev/null 2>&1 || return 0
	python3 -c 'import os, sys
for d in sys.path:
    if os.path.isdir(d):
        print(os.path.realpath(d))' 2>/dev/null | sort -u
}

base_libs()
{
	local l ldconfig

	ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)

	for l in libc.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libm.so.6 \
		 libnl-3.so.200 libnl-genl-3.so.200 libgcc_s.so.1; do
		"$ldconfig" -p | awk -v l="$l" '$1 == l && /x86-64/ { print $NF; exit }'
	done
	echo /lib64/ld-linux-x86-64.so.2
}

collect_libs()
{
	local f

	{
		base_libs
		interpreters
		while read -r f; do
			is_elf "$f" || continue
			ldd "$f" 2>/dev/null |
				awk '$2 == "=>" && $3 ~ /^\// { print $3 }
				     $1 ~ /^\// { print $1 }'
		done
	} | while read -r f; do
		[ -e "$f" ] || continue
		case "$f" in
		"$repo"/*|"$dir"/*) continue ;;
		esac
		echo "$f"
	done | sort -u
}

# Writes a newc cpio of directory $1 to $2, all files owned by root.
mkcpio()
{
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
	 cpio --quiet -o -H newc -R 0:0) >"$2"
}

# Base: busybox, init, users, and the kernel's 9p modules (Debian).
base_cpio()
{
	local key out st m

	key=$( { cat "$here/init" /bin/busybox | sha256sum
		 echo "$kind $release $kmods_dir"
		 [ -z "$kmods_dir" ] || cat "$kmods_dir/load-order"; } |
	       sha256sum | cut -c1-16)
	out=$initramfs_dir/base-$kind-$key.cpio
	if [ ! -f "$out" ]; then
		info "building initramfs base $out"
		st=$work/base
		mkdir -p "$st"/{bin,sbin,usr/bin,usr/sbin,etc/cufab,proc,sys,dev,tmp,root,lib64}
		cp /bin/busybox "$st/bin/busybox"
		/bin/busybox --list-full | while read -r a; do
			[ "$a" = bin/busybox ] || [ -e "$st/$a" ] ||
				ln -s /bin/busybox "$st/$a"
		done
		install -m 0755 "$here/init" "$st/init"
		printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
			'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' \
			>"$st/etc/passwd"
		printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$st/etc/group"
		: >"$st/etc/cufab/modules"
		if [ -n "$kmods_dir" ]; then
			while read -r m; do
				mkdir -p "$st/lib/modules/$release/$(dirname "$m")"
				cp "$kmods_dir/lib/modules/$release/$m" \
					"$st/lib/modules/$release/$m"
				echo "$m" >>"$st/etc/cufab/modules"
			done <"$kmods_dir/load-order"
		fi
		mkcpio "$st" "$out.tmp.$$"
		mv "$out.tmp.$$" "$out"
	fi
	echo "$out"
}

# Host libraries, cached by the list of candidate files and their mtimes.
libs_cpio()
{
	local key out st l list

	key=$(lib_candidates | xargs -r stat -c '%n %Y %s' 2>/dev/null |
	      sha256sum | cut -c1-16)
	list=$initramfs_dir/libs-$key.list
	[ -f "$list" ] || { lib_candidates | collect_libs >"$list.tmp.$$" &&
			    mv "$list.tmp.$$" "$list"; }
	key=$(xargs -r stat -L -c '%n %Y %s' <"$list" | sha256sum | cut -c1-16)
	out=$initramfs_dir/libs-$key.cpio
	if [ ! -f "$out" ]; then
		st=$work/libs
		mkdir -p "$st"
		while read -r l; do
			mkdir -p "$st/$(dirname "$l")"
			cp -L "$l" "$st/$l"
		done <"$list"
		mkcpio "$st" "$out.tmp.$$"
		mv "$out.tmp.$$" "$out"
	fi
	echo "$out"
}

# vm_shares: sets shares, the host directories the guest mounts at the same
# paths: the directory asked for and the checkout (for build/), the outer
# one only when one contains the other; and ro_shares, python3's module
# directories, read-only, unless a share holds them (or they hold one:
# mounting them would hide it). Sets repo_real, the checkout's real path.
vm_shares()
{
	local d s

	shares=()
	ro_shares=()
	repo_real=$(cd "$repo" && pwd -P)
	case "$dir/" in
	"$repo_real"/*) add_share "$repo_real" ;;
	*)
		case "$repo_real/" in
		"$dir"/*) add_share "$dir" ;;
		*) add_share "$dir"; add_share "$repo_real" ;;
		esac
		;;
	esac
	while read -r d; do
		[ -n "$d" ] || continue
		for s in "${shares[@]}" "${ro_shares[@]}"; do
			case "$d/" in "$s"/*) continue 2 ;; esac
			case "$s/" in "$d"/*) continue 2 ;; esac
		done
		ro_shares+=("$d")
	done < <(python_dirs)
}

add_share()
{
	local s

	for s in "${shares[@]}"; do
		case "$1/" in "$s"/*) return ;; esac
	done
	shares+=("$1")
}

# The kernel log as "[seconds] text" (kmsg records: "pri,seq,usec,flags;text",
# continuation lines start with a blank), of the kmsg log FILE.
kmsg_text()
{
	tr -d '\r' <"$1" | awk -F';' '
		/^ / { next }
		/^[0-9]+,[0-9]+,[0-9]+,[^;]*;/ {
			split($1, h, ",")
			t = substr($0, length($1) + 2)
			printf "[%5d.%06d] %s\n", h[3] / 1000000, h[3] % 1000000, t
		}'
}

# Splat signatures.  Only kernel lines are scanned (kmsg and the timestamped
# console lines), so a test printing "WARNING:" cannot fail the run.
splat_re='BUG: |WARNING: |(^|[^A-Za-z])(KASAN|UBSAN)[: ]|possible circular locking|possible recursive locking|unreferenced object|Kernel panic|general protection fault|Oops|INFO: task |INFO: lockdep|kernel BUG at'

# kernel_lines KMSG CONSOLE: the kernel lines of both logs.
kernel_lines()
{
	kmsg_text "$1"
	grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$2" || true
}

