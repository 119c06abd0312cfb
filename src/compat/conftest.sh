#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compile probes/*.c against the target kernel's headers, the way ZFS and
# NVIDIA's conftest do, and write HAVE_<NAME> for each probe that builds.
# All probes are compiled in one Kbuild run (-k: a failing one is an answer,
# not an error). Usage: conftest.sh KDIR OUTPUT.h
set -eu
kdir=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
stamp="/* conftest for $kdir */"

# current: OUT was made for this KDIR after every probe and this script
# changed (find -newer: test -nt is not POSIX).
current() {
	[ -f "$out" ] && [ "$(head -n1 "$out")" = "$stamp" ] || return 1
	for f in "$here"/probes/*.c "$0"; do
		[ -n "$(find "$out" -newer "$f")" ] || return 1
	done
}
current && exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set --
for p in "$here"/probes/*.c; do
	n=$(basename "$p" .c)
	cp "$p" "$tmp/$n.c"
	set -- "$@" "$n.o"
done
: > "$tmp/Kbuild"
make -s -k -C "$kdir" M="$tmp" "$@" >"$tmp/log" 2>&1 || true

{
	echo "$stamp"
	echo "#ifndef SLD_CONFTEST_H"
	echo "#define SLD_CONFTEST_H"
	for o in "$@"; do
		n=$(basename "$o" .o)
		N=$(echo "$n" | tr '[:lower:]' '[:upper:]')
		if [ -f "$tmp/$o" ]; then
			echo "#define HAVE_$N 1"
		else
			echo "/* HAVE_$N: not on this kernel */"
		fi
	done
	echo "#endif"
} > "$out.tmp"
mv "$out.tmp" "$out"
