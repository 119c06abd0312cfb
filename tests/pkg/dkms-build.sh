#!/bin/bash
# dkms add/build/install for every kernel of the suite, in scratch trees
# (--sourcetree, --dkmstree, --installtree) so the host's DKMS state and
# /lib/modules stay untouched. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/config.sh"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts="--sourcetree $tmp/src --dkmstree $tmp/dkms --installtree $tmp/install"
n=0
t() {	# t DESCRIPTION CMD...
	n=$((n + 1))
	local d=$1; shift
	if out=$("$@" 2>&1); then echo "ok $n - $d"; else
		echo "not ok $n - $d"; echo "$out" | tail -n 20 | sed 's/^/#   /'; fi
}
make -s -C "$top" dkms-src DESTDIR="$tmp/root" >/dev/null
mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/install"
mv "$tmp/root/usr/src/sld-compat-$ver" "$tmp/src/"
t "dkms.conf declares AUTOINSTALL" grep -qx 'AUTOINSTALL="yes"' "$top/dkms.conf"
t "dkms add" dkms add $opts -m sld-compat -v "$ver"
for k in $KVERS; do
	mkdir -p "$tmp/install/$k"
	t "dkms build for $k" dkms build $opts -m sld-compat -v "$ver" -k "$k"
	t "dkms install for $k" dkms install $opts -m sld-compat -v "$ver" -k "$k"
	t "module installed for $k" sh -c "ls $tmp/install/$k/updates/dkms/sld_compat.ko*"
done
t "dkms remove" dkms remove $opts -m sld-compat -v "$ver" --all
echo "1..$n"
