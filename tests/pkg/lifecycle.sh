#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The DKMS lifecycle of the .debs, for real, in a fresh Debian 12 root:
#   1. the built .debs in a local apt repository (file:, dpkg-scanpackages);
#      apt-get install sld-compat-dkms pulls dkms from Debian and
#      sld-compat-tools (Recommends) from the local repository; DKMS builds
#      and installs sld_compat.ko for every kernel whose headers are there
#      (linux-headers-<first kernel of tests/config.sh>, installed first);
#   2. installing a second kernel's headers (the last of KVERS) builds
#      it for that kernel too, through /etc/kernel/header_postinst.d/dkms;
#   3. with a MOK key at /var/lib/dkms/mok.key and mok.pub (made here with
#      openssl) both modules are signed by it (modinfo -F signer);
#   4. each DKMS-built .ko boots under QEMU (TCG) on its Debian kernel through
#      tests/vm/vm.sh (SLD_KO=) and reports its version and status;
#   5. apt-get remove, then purge, leave nothing behind.
# Nothing is installed on the host (only this script's own tools) and nothing
# is loaded into the host's kernel.
#
# Why chroot and not systemd-nspawn: dpkg and DKMS need no init, no services
# and no network namespace, only a root with /proc, /sys and /dev; chroot
# runs anywhere root runs (a CI container, a VM, a host without systemd as
# PID 1), nspawn needs systemd-container, cgroup delegation and a systemd
# host. In a chroot `uname -r` is the host's kernel, which has no headers in
# the root: dkms's postinst then builds for every kernel in /lib/modules,
# and the headers' hook gets its kernel version as an argument, so the
# lifecycle is the one a real system goes through. Services are kept from
# starting by policy-rc.d. The script runs in a private mount namespace
# (unshare -m), so its mounts vanish with it even when it is killed, and no
# `rm -rf` from outside can reach the host's /dev through the root.
#
# Mirror: the one the host's apt uses (tests/lib/debroot.sh, which this
# shares with tests/system/), and apt's http proxy if one is set, so it
# works wherever `apt-get install` works. SLD_MIRROR/SLD_SECURITY override.
# If Debian's archive cannot be reached the whole test is skipped with the
# reason (TAP "1..0 # SKIP"), on a developer's offline machine only: under
# CI (CI=true) that is a failure, as any other.
#
# Caches under $SLD_CACHE/lifecycle (tests/config.sh):
# the debootstrap tarball (--make-tarball; the root is made anew from it
# with --unpack-tarball on every run) and apt's archives (bind-mounted into
# the root's /var/cache/apt/archives). The root is a tmpfs (about 1.2 GB)
# mounted at $SLD_CACHE/lifecycle/root, gone when the test ends; with
# SLD_LC_KEEP=1 it is a plain directory there instead and stays for a look.
# Log: build/lifecycle/lifecycle.log (apt's output of every step).
# TAP on stdout; exit status 1 if any test failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/tests/pkg/lifecycle.sh

# shellcheck source=SCRIPTDIR/../lib/debroot.sh
. "$top/tests/lib/debroot.sh"
debroot_own_mounts lifecycle.sh SLD_LC_NS "$self" "$@"

cd "$top" || exit 1
ver=$(cat src/VERSION)
. tests/config.sh
read -r -a kvers <<< "$KVERS"
k1=${SLD_LC_K1:-${kvers[0]}}
k2=${SLD_LC_K2:-${kvers[-1]}}
lc=$SLD_CACHE/lifecycle
root=$lc/root
base=$lc/bookworm-minbase.tgz
archives=$lc/archives
out=$top/build/lifecycle
log=$out/lifecycle.log
ddeb=build/pkg/sld-compat-dkms_${ver}-1_all.deb
tdeb=build/pkg/sld-compat-tools_${ver}-1_amd64.deb
signer="sld-compat lifecycle test MOK"
mkdir -p "$out" "$lc" "$archives"
: > "$log"
tmp=$(mktemp -d)
t0=$SECONDS

cleanup() {
	debroot_umount
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"
TAP_DIAG_LINES=25
# run_logged DESCRIPTION CMD...: run, and CMD's output in the log and in
# $tmp/out.
run_logged() {
	echo "### $((TAP_N + 1)) - $1" >>"$log"
	run "$@"
	printf '%s\n' "$TAP_OUTPUT" >"$tmp/out"
	cat "$tmp/out" >>"$log"
}
bail() { echo "Bail out! $*"; echo "1..$TAP_N"; exit 1; }
elapsed() { echo "# $1: $((SECONDS - t0)) s so far"; }

# --- Host tools (the host gets only these; the packages under test never) --
deps="debootstrap dpkg-dev openssl kmod xz-utils zstd qemu-system-x86
	busybox-static cpio"
. "$top/tests/lib/pkgs.sh"
# shellcheck disable=SC2086
ensure_pkgs lifecycle $deps 2>>"$log" || bail "cannot install:$(pkgs_missing $deps)"

# --- Debian's archive, as the host's apt reaches it ------------------------
debroot_mirrors
echo "# mirror $mirror, security $security${http_proxy:+, proxy $http_proxy}"
echo "# kernels: $k1 (installed first), $k2 (added later)"
# offline WHY: skip the whole test on an offline laptop, fail under CI.
offline() {
	[ "${CI:-}" != true ] || bail "$1 (CI=true: no skip)"
	echo "1..0 # SKIP $1 (an offline machine; under CI=true this fails)"
	exit 0
}
if ! debroot_reachable bookworm "$tmp/InRelease" >>"$log" 2>&1; then
	offline "cannot reach Debian's packages at $mirror (apt-helper download-file failed; see $log)"
fi

# --- The .debs under test and the test kernels' images ---------------------
make -s deb >>"$log" 2>&1 || bail "make deb failed (see $log)"
if [ ! -f "$ddeb" ] || [ ! -f "$tdeb" ]; then bail "no $ddeb or $tdeb"; fi
KVERS="$k1 $k2" bash tests/vm/deps.sh >>"$log" 2>&1 || bail "tests/vm/deps.sh failed"

# --- 1. A fresh Debian 12 root, the local repository, install ------------
# Made once, then again when a month old (point releases move the archive
# on; a stale tarball still works, apt upgrades what it must).
if [ ! -s "$base" ] || [ -n "$(find "$base" -mtime +30)" ]; then
	echo "# debootstrap --make-tarball (cached in $base)"
	rm -rf "$lc/mk"
	if debootstrap --variant=minbase --make-tarball="$base.tmp" bookworm \
		"$lc/mk" "$mirror" >>"$log" 2>&1; then
		mv "$base.tmp" "$base"
	elif [ ! -s "$base" ]; then
		rm -rf "$lc/mk" "$base.tmp"
		offline "debootstrap cannot reach Debian's packages at $mirror (see $log)"
	fi
	rm -rf "$lc/mk" "$base.tmp"
fi
debroot_umount
rm -rf "$root"
mkdir -p "$root"
# In RAM unless it is to be kept: faster, and it vanishes with the namespace.
[ "${SLD_LC_KEEP:-0}" = 1 ] || mount -t tmpfs -o size=6G,mode=0755 sld-lifecycle "$root"
run_logged "debootstrap a fresh Debian 12 root from the cached tarball" \
	debootstrap --variant=minbase --unpack-tarball="$base" bookworm "$root" "$mirror"
[ -x "$root/usr/bin/apt-get" ] || bail "no root"
elapsed "root ready"

debroot_mount "$archives"
debroot_repo /srv/sld-repo "$ddeb" "$tdeb"
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
deb [trusted=yes] file:/srv/sld-repo ./
EOF
run_logged "apt-get update in the root (Debian + local file: repository)" apt_root update
grep -q '^Package: sld-compat-dkms$' "$root/srv/sld-repo/Packages" ||
	bail "local repository has no sld-compat-dkms"

# 3 (set up before the first build): the MOK key DKMS signs with.
mkdir -p "$root/var/lib/dkms"
run_logged "MOK key pair in /var/lib/dkms (openssl)" openssl req -new -x509 -newkey rsa:2048 \
	-nodes -days 36500 -outform DER -subj "/CN=$signer/" \
	-keyout "$root/var/lib/dkms/mok.key" -out "$root/var/lib/dkms/mok.pub"

# update-initramfs is diverted to a no-op: the kernel image 6.12's headers
# pull in would otherwise build two initramfs images nobody boots (a minute).
in_root dpkg-divert --local --rename --divert /usr/sbin/update-initramfs.real \
	--add /usr/sbin/update-initramfs >>"$log" 2>&1
printf '#!/bin/sh\necho "update-initramfs: diverted in this test root"\n' \
	> "$root/usr/sbin/update-initramfs"
chmod +x "$root/usr/sbin/update-initramfs"

run_logged "install linux-headers-$k1" apt_root install --no-install-recommends "linux-headers-$k1"
elapsed "headers $k1"
run_logged "apt-get install sld-compat-dkms (dependencies resolved by apt)" \
	apt_root install sld-compat-dkms
cp "$tmp/out" "$out/install.out"
elapsed "sld-compat-dkms installed"
# shellcheck disable=SC2016 # dpkg-query's ${Field}, not the shell's
st() { in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null; }
run_logged "dkms came from Debian as a dependency" \
	test "$(st dkms)" = "install ok installed"
run_logged "sld-compat-tools came from the local repository as a Recommends" \
	test "$(st sld-compat-tools)" = "install ok installed"
run_logged "sldctl --version in the root" sh -c \
	"chroot '$root' /usr/sbin/sldctl --version | grep -qx 'sldctl $ver'"
run_logged "dkms: sld-compat/$ver added, source in /usr/src/sld-compat-$ver" sh -c \
	"test -d '$root/var/lib/dkms/sld-compat/$ver' && test -f '$root/usr/src/sld-compat-$ver/dkms.conf'"

ko_of() {	# ko_of KVER: the sld_compat.ko* DKMS installed for KVER, if any
	local f
	for f in "$root/lib/modules/$1/updates/dkms/"sld_compat.ko*; do
		[ -e "$f" ] && echo "$f"
		return 0
	done
}
dkms_installed() {	# dkms_installed KVER: dkms status says installed, .ko in place, depmod knows it
	in_root dkms status -m sld-compat -v "$ver" -k "$1" | tee /dev/stderr |
		grep -q ": installed" &&
	test -n "$(ko_of "$1")" &&
	test "$(in_root modinfo -k "$1" -F version sld_compat)" = "$ver"
}
# shellcheck disable=SC2016 # a script for the root's sh
heads=$(in_root sh -c 'for d in /lib/modules/*; do [ -e "$d/build/include" ] && echo "${d##*/}"; done')
echo "# kernels with headers in the root: ${heads//$'\n'/ }"
for k in $heads; do
	run_logged "DKMS built and installed sld_compat.ko for $k (headers present)" dkms_installed "$k"
done

# --- 2. A second kernel's headers: the kernel hook builds for it ----------
run_logged "install linux-headers-$k2" apt_root install --no-install-recommends "linux-headers-$k2"
cp "$tmp/out" "$out/headers2.out"
elapsed "headers $k2"
# The headers of 6.12 depend on its image, whose postinst.d/dkms hook runs
# first; 6.1's headers come alone and only header_postinst.d/dkms runs.
hook_ran() {	# hook_ran HOOK: HOOK's output in the apt run says autoinstall for k2
	local o
	o=$(sed -n "\\,^/etc/kernel/$1/dkms:\$,,/^[^ ]*: autoinstall for kernel/p" \
		"$out/headers2.out")
	echo "$o"
	echo "$o" | grep -q "autoinstall for kernel: $k2"
}
run_logged "header_postinst.d/dkms ran dkms autoinstall for $k2" hook_ran header_postinst.d
grep -q '^/etc/kernel/postinst.d/dkms:$' "$out/headers2.out" &&
	echo "# (linux-image-$k2 came as a dependency; its postinst.d/dkms hook ran first)"
run_logged "DKMS built and installed sld_compat.ko for $k2 (no dkms command of ours)" \
	dkms_installed "$k2"

# --- 3. Signed with the MOK key --------------------------------------------
signed() {	# signed KVER
	local ko s
	ko=$(ko_of "$1"); s=$(modinfo -F signer "$ko")
	echo "$ko: signer '$s', sig_hashalgo $(modinfo -F sig_hashalgo "$ko")"
	test "$s" = "$signer"
}
for k in $k1 $k2; do
	run_logged "sld_compat.ko for $k is signed by the MOK key (modinfo -F signer)" signed "$k"
done

# --- 4. The DKMS-built module loads on its kernel (QEMU TCG) ---------------
mkdir -p "$tmp/vm-t"
cp tests/pkg/vm-t/*.sh "$tmp/vm-t/"
echo "$ver" > "$tmp/vm-t/version.expect"
for k in $k1 $k2; do
	ko=$(ko_of "$k")
	if [ -z "$ko" ]; then nok "[vm $k] a DKMS-built .ko to boot"; continue; fi
	rm -f "$out/vm/$k.tap"
	SLD_KO=$ko VM_T=$tmp/vm-t VM_OUT=$out/vm bash tests/vm/vm.sh "$k" check >>"$log" 2>&1
	if [ ! -s "$out/vm/$k.tap" ]; then nok "[vm $k] VM ran"; continue; fi
	tap_fold "[vm]" < "$out/vm/$k.tap"
	elapsed "VM $k"
done

# --- 5. Remove, then purge: nothing left behind ----------------------------
in_root dpkg-query -L sld-compat-dkms sld-compat-tools 2>/dev/null |
	sort -u > "$tmp/files"
left() {	# left: the packages' files and DKMS products still in the root
	local f
	while read -r f; do
		[ -e "$root$f" ] && [ ! -d "$root$f" ] && echo "$root$f"
	done < "$tmp/files"
	ls -d "$root"/lib/modules/*/updates/dkms/sld_compat.ko* "$root"/var/lib/dkms/sld[-_]compat* \
		"$root"/usr/src/sld[-_]compat* 2>/dev/null
	return 0
}
conf=/etc/sld-compat/sld-compat.conf
none_left() {	# none_left [EXCEPT_DIR]: nothing of left's, files in EXCEPT_DIR aside
	local l
	l=$(left | grep -vF "${1:-/nonexistent}/")
	echo "$l"
	test -z "$l"
}
not_installed() {	# dpkg has neither package (nor its conffiles)
	local s
	# shellcheck disable=SC2016 # dpkg-query's ${Field}, not the shell's
	s=$(in_root dpkg-query -W -f='${Package} ${Status}\n' sld-compat-dkms \
		sld-compat-tools 2>&1 | grep '^sld-compat')
	echo "$s"
	[ -z "$s" ] || ! echo "$s" | grep -qvE ' not-installed$'
}
no_modinfo() {
	local k
	for k in $k1 $k2; do ! in_root modinfo -k "$k" sld_compat || return 1; done
}
run_logged "apt-get remove sld-compat-dkms sld-compat-tools" \
	apt_root remove sld-compat-dkms sld-compat-tools
# The tools package's conffiles: sld-compat.conf and conf.d's examples.
run_logged "after remove: no module, no DKMS tree, no source; only the conffiles left" \
	none_left "$root/etc/sld-compat"
run_logged "after remove: the examples stay until purge, as conffiles" \
	test -f "$root/etc/sld-compat/conf.d/libvirt-qemu.conf.example"
run_logged "after remove: modinfo -k finds sld_compat for no kernel" no_modinfo
run_logged "after remove: the conffile $conf stays until purge" test -f "$root$conf"
run_logged "apt-get purge sld-compat-dkms sld-compat-tools" \
	apt_root purge sld-compat-dkms sld-compat-tools
run_logged "after purge: dpkg knows neither package as installed or configured" not_installed
run_logged "after purge: no file of either package, no module, no DKMS tree, no source" none_left
run_logged "after purge: no /etc/sld-compat" test ! -e "$root/etc/sld-compat"
nothing_named() {
	find "$root" -xdev \( -path "$root/srv/sld-repo" -o -path "$root/var/lib/apt/lists" \
		-o -path "$root/var/cache/apt" -o -path "$root/proc" -o -path "$root/sys" \
		-o -path "$root/dev" \) -prune -o -iname '*sld[-_]compat*' -print | tee /dev/stderr |
		grep -q . && return 1
	return 0
}
run_logged "after purge: no path named *sld[-_]compat* anywhere in the root" nothing_named
run_logged "dkms itself still works (dkms status)" in_root dkms status

echo "# lifecycle: $((SECONDS - t0)) s; log $log"
tap_done
