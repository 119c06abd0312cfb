#!/bin/bash
# dkms add/build/install for every kernel of the suite, in scratch trees
# (--sourcetree, --dkmstree, --installtree) so the host's DKMS state and
# /lib/modules stay untouched. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/config.sh"
ver=$(cat "$top/src/VERSION")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms" --installtree "$tmp/install")
. "$top/tests/lib/tap.sh"
TAP_DIAG_LINES=20
make -s -C "$top" dkms-src DESTDIR="$tmp/root" >/dev/null
mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/install"
mv "$tmp/root/usr/src/sld-compat-$ver" "$tmp/src/"
run "dkms.conf declares AUTOINSTALL" grep -qx 'AUTOINSTALL="yes"' "$top/dkms.conf"
run "dkms add" dkms add "${opts[@]}" -m sld-compat -v "$ver"
read -r -a kvers <<< "$KVERS"
for k in "${kvers[@]}"; do
	mkdir -p "$tmp/install/$k"
	run "dkms build for $k" dkms build "${opts[@]}" -m sld-compat -v "$ver" -k "$k"
	run "dkms install for $k" dkms install "${opts[@]}" -m sld-compat -v "$ver" -k "$k"
	run "module installed for $k" sh -c "ls $tmp/install/$k/updates/dkms/sld_compat.ko*"
done
run "dkms remove" dkms remove "${opts[@]}" -m sld-compat -v "$ver" --all
tap_done
