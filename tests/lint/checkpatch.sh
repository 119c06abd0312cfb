#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's checkpatch.pl over every C file of src/ (the module), one
# test per file; the findings by type as comments at the end. Part of
# `make lint`; TAP on stdout.
#
# checkpatch.pl comes from Debian 12's linux-source-6.12 (the newest
# kernel source it ships; the headers packages carry no scripts/):
# downloaded once with `apt-get download` (no root needed, nothing
# installed) and its checkpatch.pl, spelling.txt and
# const_structs.checkpatch kept in $SLD_CACHE/checkpatch, with the
# package's version in VERSION. Delete that directory to take a newer one.
#
# Options: --no-tree (out of tree: no kernel tree to look things up in),
# --file (whole files, not a patch). No check is ignored for the module's
# own code. What does not apply, and why:
#   src/x86scan/, src/schema/, src/modlib/: also compiled into sldctl and
#     the unit tests and fuzzers, in userspace, where the kernel's
#     ARRAY_SIZE() and its attribute macros (noinline, __always_inline)
#     do not exist: ARRAY_SIZE, PREFER_DEFINED_ATTRIBUTE_MACRO.
#   src/x86scan/decode.c, decode_fast.c: their opcode tables are built by
#     macros that expand to initializer lists (designated ranges such as
#     "[x + 0 ... x + 3] = ..., [x + 4] = ..."), which no parentheses can
#     enclose and whose "[" checkpatch takes for an array index:
#     COMPLEX_MACRO, BRACKET_SPACE.
#   src/compat/compat.h: the one file that may test a kernel version,
#     where no probe can tell a shape (a struct private to fs/kernfs/):
#     LINUX_VERSION_CODE, CONSTANT_COMPARISON (it names the version
#     macro as the constant on the left).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/config.sh
. tests/lib/tap.sh
. tests/lib/pkgs.sh
TAP_DIAG_LINES=80
ensure_pkgs lint perl xz-utils || { echo "Bail out! no perl or xz"; exit 1; }
dir=$SLD_CACHE/checkpatch
cp=$dir/checkpatch.pl

# fetch: checkpatch.pl and its data files from linux-source-6.12.
fetch() {
	local tmp deb src
	mkdir -p "$dir" || return 1
	tmp=$(mktemp -d) || return 1
	# shellcheck disable=SC2064 # $tmp is fixed now
	trap "rm -rf '$tmp'" RETURN
	(cd "$tmp" && apt-get download linux-source-6.12) >&2 || return 1
	deb=$(find "$tmp" -name 'linux-source-6.12_*.deb')
	src=linux-source-6.12
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$src.tar.xz" |
		xz -dc | tar -x -C "$tmp" "$src/scripts/checkpatch.pl" \
		"$src/scripts/spelling.txt" "$src/scripts/const_structs.checkpatch" ||
		return 1
	cp "$tmp/$src/scripts/checkpatch.pl" "$tmp/$src/scripts/spelling.txt" \
		"$tmp/$src/scripts/const_structs.checkpatch" "$dir/" || return 1
	dpkg-deb -f "$deb" Version > "$dir/VERSION"
}
if [ ! -s "$cp" ] || [ ! -s "$dir/VERSION" ]; then
	echo "# checkpatch: fetching linux-source-6.12 into $dir" >&2
	fetch || { echo "Bail out! cannot fetch checkpatch.pl (linux-source-6.12) into $dir"; exit 1; }
fi
echo "# checkpatch.pl of linux-source-6.12 $(cat "$dir/VERSION")"

# ignore_for FILE: the checks that do not apply to FILE (see above).
ignore_for() {
	local i=
	case $1 in
	src/x86scan/*|src/schema/*|src/modlib/*) i=ARRAY_SIZE,PREFER_DEFINED_ATTRIBUTE_MACRO ;;
	esac
	case $1 in
	src/x86scan/decode.c|src/x86scan/decode_fast.c) i=$i,COMPLEX_MACRO,BRACKET_SPACE ;;
	src/compat/compat.h) i=LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	esac
	echo "$i"
}

# check FILE: checkpatch's findings for FILE, also added to $all; fails
# if there are any. Run in a scratch directory: checkpatch may leave a
# cache file in the current one.
all=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$all" "$scratch"' EXIT
check() {
	local out
	out=$(cd "$scratch" && perl "$cp" --no-tree --file --terse --show-types \
		--ignore "$(ignore_for "$1")" "$top/$1" 2>&1 | grep -v '^total: ' | grep .)
	[ -n "$out" ] || return 0
	printf '%s\n' "${out//"$top/"/}" | tee -a "$all"
	return 1
}
for f in $(git ls-files 'src/*.c' 'src/*.h'); do
	run "checkpatch $f" check "$f"
done
echo "# findings by type:"
grep -oE '(ERROR|WARNING|CHECK):[A-Z_0-9]+' "$all" | sort | uniq -c | sort -rn | sed 's/^/#   /'
tap_done
