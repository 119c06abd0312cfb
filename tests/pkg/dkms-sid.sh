#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS for Debian unstable's kernels (issue #14): unstable's own dkms,
# installed in the debootstrapped root of tests/vm/sid.sh (kept there),
# runs dkms add/build/install from the tree `make dkms-src` lays out (what
# /usr/src/sld-compat-VER holds on a real host), in scratch trees under
# build/dkms-sid (--sourcetree, --dkmstree, --installtree; the root's own
# DKMS state stays empty). Each built sld_compat.ko is then booted under
# QEMU with tests/vm/t/10-load.sh (SLD_KO: no fixtures needed); its TAP
# lines are folded in here. TAP on stdout; root only.
#   dkms-sid.sh            both kernels of `tests/vm/sid.sh kvers`
#   dkms-sid.sh KVER...    only those
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$top/build/dkms-sid
. "$top/tests/lib/tap.sh"
TAP_DIAG_LINES=20
bash "$top/tests/vm/sid.sh" >/dev/null || exit 1
bash "$top/tests/vm/sid.sh" pkgs dkms || exit 1
if [ $# -eq 0 ]; then
	read -r -a sid <<< "$(bash "$top/tests/vm/sid.sh" kvers)"
	set -- "${sid[@]}"
fi
ver=$(cat "$top/src/VERSION")
rm -rf "$d"
mkdir -p "$d/src" "$d/dkms" "$d/install"
make -s -C "$top" dkms-src DESTDIR="$d/root" >/dev/null
mv "$d/root/usr/src/sld-compat-$ver" "$d/src/"
echo "# $(bash "$top/tests/vm/sid.sh" run dkms --version)"
# in_root CMD...: CMD in unstable's root (the worktree is mounted there).
in_root() { bash "$top/tests/vm/sid.sh" run "$@"; }
opts=(--sourcetree "$d/src" --dkmstree "$d/dkms" --installtree "$d/install")
run "dkms add (unstable's dkms)" in_root dkms add "${opts[@]}" -m sld-compat -v "$ver"
for k in "$@"; do
	# --kernelsourcedir: with --installtree, dkms 3.2 looks for the
	# headers under the install tree, not /lib/modules.
	ks=(--kernelsourcedir "/lib/modules/$k/build")
	mkdir -p "$d/install/$k"
	run "dkms build for $k" in_root dkms build "${opts[@]}" "${ks[@]}" -m sld-compat -v "$ver" -k "$k"
	run "dkms install for $k" in_root dkms install "${opts[@]}" "${ks[@]}" -m sld-compat -v "$ver" -k "$k"
	ko=
	for f in "$d/install/$k"/updates/dkms/sld_compat.ko*; do
		[ -e "$f" ] && ko=$f
		break
	done
	run "module installed for $k" test -n "$ko"
	[ -n "$ko" ] || continue
	run "modinfo: vermagic of $k" sh -c \
		"modinfo -F vermagic '$ko' | grep -q '^$k '"
	# The DKMS-built .ko boots: 10-load.sh's lines, renumbered.
	out=$d/vm
	SLD_KO=$ko VM_ONLY=10 VM_OUT=$out bash "$top/tests/vm/vm.sh" "$k" check \
		> "$out-$k.log" 2>&1
	tap=$out/$k.tap
	if [ ! -s "$tap" ]; then
		nok "the DKMS-built module booted on $k"
		sed 's/^/#   /' "$out-$k.log" | tail -n 20
		continue
	fi
	tap_fold "[DKMS .ko]" < "$tap"
	run "$k: VM TAP has a plan" grep -q '^1\.\.[1-9]' "$tap"
done
run "dkms remove" in_root dkms remove "${opts[@]}" -m sld-compat -v "$ver" --all
tap_done
