#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A whole Debian system, booted the way users run one (issue #26):
#
#   system.sh RELEASE SCENARIO    RELEASE trixie (Debian 13) or bookworm (12)
#
# 1. A debootstrapped root of RELEASE with its own kernel, headers, dkms and
#    initramfs (made by its own hook), cached as a tarball in
#    $SLD_CACHE/system (made again when a month old; apt's downloads are
#    cached beside it, so a second run downloads nothing).
# 2. The scenario's install, done in that root before its first boot, with
#    apt from a local file: repository holding today's `make deb` packages
#    (in a chroot, as tests/pkg/lifecycle.sh does: DKMS builds and signs the
#    module there at native speed; under TCG it would take many minutes).
#    The stand-in hypervisor (the VM suite's vmmon and actest fixtures,
#    built against the root's headers) and its static test programs
#    (build/vmbin: sldhv, sldcpu) go to /usr/local; they are no part of
#    what is tested for leftovers.
# 3. The root as an ext4 disk image (mkfs.ext4 -d, no partition table),
#    booted on the enforcing test CPU (tests/qemu/enforcing.sh) with the
#    root's own /boot kernel and initramfs (the one its /vmlinuz names, as
#    its bootloader would: the newest installed), root=/dev/vda, systemd as
#    PID 1. sld-systest.service runs tests/system/run after
#    multi-user.target at every boot: the scenario's bootN function
#    (tests/system/s-SCENARIO.sh) checks the booted system, may change it
#    (apt remove, make uninstall, ...) and reboots; its TAP goes to the
#    second serial port, a file here. Every boot is a new QEMU process on
#    the same disk (-no-reboot), until a boot says it was the last
#    (tests/system/boots.sh). A boot may ask for the host's step first
#    (the scenario's between_boots, on the image mounted here: the rules
#    scenario's kernel upgrade).
#
# Scenarios (the issue's steps):
#   pkg     a, f (both packages, with prometheus-node-exporter), g:
#           apt install sld-compat-dkms (tools by Recommends); boot: loaded
#           by systemd-modules-load, no failed unit, the load line, doctor
#           healthy, a stand-in hypervisor started after boot protected;
#           then apt remove + purge in the booted system, reboot: nothing
#           left, no failed unit
#   tools   f: sld-compat-tools alone: no failed unit (no modules-load.d
#           entry for a module that is not there), the metrics timer quiet
#   module  f: sld-compat-dkms alone (--no-install-recommends): loaded at
#           boot, no failed unit
#   source  make install from a checkout (in the root, for its kernel);
#           boot: a's checks; make uninstall in the booted system, reboot:
#           nothing left, no failed unit
#   run     issue #30: gamer (in games) and other, lingering user managers,
#           run_allow = @games: `sldctl run` relieves gamer's tree (and under
#           gamemoderun), not other's (tests/system/s-run.sh)
#   rules   a, b, c, d, e, h (all of it in make check): both packages
#           from the signed repository as README says, the shipped
#           libvirt example enabled and the admin's own configuration
#           before the first boot; boot 1: the exempt_cgroup rule for
#           the absent machine.slice applied and pending, a task in a new
#           scope below it protected (and named in the kernel log), an
#           exempt_path rule kept across a dpkg-like replacement of its
#           binary, the stand-in's first protection in the kernel log, a
#           host full of VMs, then the next release published at the
#           repository's address and `apt update && apt upgrade` while a
#           protected stand-in guest split-locks; the host's step on the
#           image: the backports kernel installed with apt (DKMS builds
#           the next release for it from its hook); boot 2 on the new
#           kernel: the next release loaded at boot, protecting, the
#           configuration kept
#   kernel  d: the package installed; the booted system installs the
#           release's backports kernel with apt, DKMS builds for it from
#           the kernel's hook; the next boot runs it (the root's
#           /vmlinuz): sld_compat loaded at boot and protecting
#   upgrade e, README's second way (from a checkout): today's packages
#           installed, with the admin's configuration; the booted system
#           upgrades them with apt to the same source with the version
#           bumped while a protected stand-in guest split-locks: no kernel
#           error, the guest still protected, configuration kept and
#           applied, named-modules present, apt's message says which
#           module is active; reboot: the new one
#
# Results: TAP on stdout, each line tagged "[RELEASE SCENARIO]" (make
# check-system keeps it in build/system/RELEASE-SCENARIO.tap); the
# consoles of all boots and the log of the root's setup in build/system/. Every
# boot's time is printed as a TAP comment. Root only (debootstrap, chroot,
# mounts in a private namespace); nothing is installed on or loaded into
# the host. SYS_WRAP=CMD runs the boots as `CMD bash tests/system/boots.sh
# ...` (a lock that limits the VMs running at once); SYS_TIMEOUT (900 s)
# bounds a boot, SYS_MAX_BOOTS (6) their number.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/tests/system/system.sh
rel=${1:?usage: system.sh trixie|bookworm pkg|tools|module|source|rules|run|kernel|upgrade}
scen=${2:?usage: system.sh trixie|bookworm pkg|tools|module|source|rules|run|kernel|upgrade}
[ -f "$top/tests/system/s-$scen.sh" ] || { echo "system.sh: no scenario $scen" >&2; exit 2; }
case $rel in trixie|bookworm) ;; *) echo "system.sh: no release $rel" >&2; exit 2 ;; esac

# shellcheck source=SCRIPTDIR/../lib/debroot.sh
. "$top/tests/lib/debroot.sh"
debroot_own_mounts system.sh SLD_SYS_NS "$self" "$@"

cd "$top" || exit 1
. tests/config.sh
. tests/lib/tap.sh
. tests/vm/kernel-errors.sh
ver=$(cat src/VERSION)
tag="[$rel $scen]"
cache=$SLD_CACHE/system
base=$cache/$rel-root.tar
archives=$cache/archives
out=$top/build/system
work=$out/$rel-$scen
root=$work/root
img=$work/disk.img
log=$out/$rel-$scen.log
# The packages are built in a copy of the tree of their own: the phases
# of make check beside this one build build/pkg meanwhile.
pkgtop=$out/tree
ddeb=$pkgtop/build/pkg/sld-compat-dkms_${ver}-1_all.deb
tdeb=$pkgtop/build/pkg/sld-compat-tools_${ver}-1_amd64.deb
TAP_DIAG_LINES=30
mkdir -p "$cache" "$archives" "$out"
rm -rf "$work"
mkdir -p "$work"
: > "$log"
t0=$SECONDS
cleanup() { debroot_umount; }
trap cleanup EXIT
bail() { echo "Bail out! $*"; exit 1; }
step() { echo "# $rel $scen: $1 ($((SECONDS - t0)) s so far)"; }
# logged CMD...: CMD's output to the log; its status.
logged() { "$@" >>"$log" 2>&1; }

# --- 1. The root, cached ----------------------------------------------------
deps="debootstrap dpkg-dev e2fsprogs qemu-system-x86"
. tests/lib/pkgs.sh
# shellcheck disable=SC2086
ensure_pkgs system $deps 2>>"$log" || bail "cannot install:$(pkgs_missing $deps)"
debroot_mirrors
echo "# mirror $mirror, security $security${http_proxy:+, proxy $http_proxy}"
if debroot_tar_stale "$base"; then
	debroot_reachable "$rel" "$work/InRelease" >>"$log" 2>&1 ||
		bail "cannot reach Debian's $rel at $mirror (see $log)"
fi
debroot_system_tar "$rel" "$base" "$archives" "$log" ||
	bail "debootstrap $rel failed (see $log)"
mkdir -p "$root"
tar -C "$root" --numeric-owner --xattrs -xf "$base" || bail "cannot unpack $base"
# root_kver: the newest kernel version with modules in the root (the
# booted system's newest_kver, tests/lib/guest.sh, from outside).
root_kver() {
	find "$root/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n1
}
kver=$(root_kver)
[ -f "$root/boot/vmlinuz-$kver" ] || bail "no kernel in the $rel root"
step "root unpacked, kernel $kver"

# --- 2. The scenario's install, in the root ---------------------------------
# `make check-system` builds them once for all scenarios (SYS_BUILT=1).
if [ -z "${SYS_BUILT:-}" ]; then
	. tests/lib/nextver.sh
	tree_copy "$top" "$pkgtop" || bail "cannot copy the tree to $pkgtop"
	logged make -C "$pkgtop" -s deb || bail "make deb failed (see $log)"
	logged make -s vmbin || bail "make vmbin failed (see $log)"
fi
if [ ! -f "$ddeb" ] || [ ! -f "$tdeb" ]; then bail "no $ddeb or $tdeb"; fi
# The signed repository of `make repo` (packaging/repo.sh) on the same
# packages, its address the file: copy in the root (README's way, the
# scenarios that install as README's first way says: $repo_url/ stands
# for its address there); made again when make deb made newer packages,
# repo.sh changed, or before its throwaway key (a year) expires.
sysrepo=$out/repo
repo_dir=/srv/sld-compat-repo
repo_url=file://$repo_dir
stamp=$sysrepo/dists/stable/InRelease
if [ ! -f "$stamp" ] || [ "$ddeb" -nt "$stamp" ] || [ "$tdeb" -nt "$stamp" ] ||
	[ packaging/repo.sh -nt "$stamp" ] || [ -n "$(find "$stamp" -mtime +300)" ]; then
	SLD_REPO_URL=$repo_url/ SLD_REPO_OUT=$sysrepo SLD_REPO_WORK=$out/repo-work \
		logged bash "$pkgtop/packaging/repo.sh" || bail "make repo for the root failed (see $log)"
fi
# apt's cache is shared: one scenario's root at a time uses it.
exec 7>"$cache/apt.lock"
flock 7
debroot_mount "$archives"
debroot_repo /srv/sld-repo "$ddeb" "$tdeb"
cp -a "$sysrepo" "$root$repo_dir"
case $rel in
trixie|bookworm)
	cat > "$root/etc/apt/sources.list" <<-EOF
	deb $mirror $rel main
	deb $mirror $rel-updates main
	deb $security $rel-security main
	deb [trusted=yes] file:/srv/sld-repo ./
	EOF
	;;
esac
logged apt_root update || bail "apt-get update in the root failed (see $log)"
echo "$rel-sld" > "$root/etc/hostname"
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$root/etc/fstab"
# The serial console's getty hangs up every other writer of ttyS0; the
# results go to ttyS1, the console log stays whole without it.
in_root systemctl mask serial-getty@ttyS0.service >>"$log" 2>&1

# The test itself: run, its libraries, the scenario, the stand-ins.
D=$root/usr/local/lib/sld-systest
mkdir -p "$D/bin" "$root/var/lib/sld-systest"
cp tests/lib/guest.sh "$D/guest-lib.sh"
cp tests/system/run tests/lib/tap.sh tests/lib/kmsg.sh tests/vm/kernel-errors.sh \
	tests/vm/cpu-proof.sh "$D/"
cp "tests/system/s-$scen.sh" "$D/scenario.sh"
echo "$ver" > "$D/version"
# The CPU every boot proves first (cpu-proof.sh, as a VM suite's boot
# does): boots.sh boots the enforcing test CPU's Intel model.
echo enforcing > "$root/var/lib/sld-systest/cpu"
cp build/vmbin/sldhv build/vmbin/sldcpu "$D/bin/"
cp tests/system/sld-systest.service "$root/etc/systemd/system/"
in_root systemctl enable sld-systest.service >>"$log" 2>&1
# fixtures KVER: vmmon and actest for KVER, built with the root's headers
# and compiler, installed where modprobe finds them.
fixtures() {
	local fx=/usr/local/src/sld-fixtures
	rm -rf "$root$fx"
	mkdir -p "$root$fx"
	cp -a tests/fixtures/. src/include/sld_compat_api.h src/kernel/ksym.h "$root$fx/"
	# Only the two the scenarios use (fixtures/Kbuild builds them all).
	printf 'obj-m := vmmon.o actest.o\nactest-y := fx_actest.o\n' > "$root$fx/Kbuild"
	in_root make -C "$fx" KVER="$1" modules >>"$log" 2>&1 || return 1
	mkdir -p "$root/lib/modules/$1/updates/sld-systest"
	cp "$root$fx/vmmon.ko" "$root$fx/actest.ko" "$root/lib/modules/$1/updates/sld-systest/"
	in_root depmod -a "$1"
}
fixtures "$kver" || bail "building the fixtures for $kver failed (see $log)"

# The scenario's setup (s-SCENARIO.sh's host part, below the marker).
# shellcheck disable=SC1090
. <(sed -n '/^# --- host ---$/,$p' "tests/system/s-$scen.sh")
step "root ready"
setup || bail "$scen: setup in the root failed (see $log)"
step "$scen installed in the root"
# Checks of the host part, if the scenario has any (TAP lines).
if declare -F host_checks >/dev/null; then host_checks; fi

# --- 3. The disk image and the boots ----------------------------------------
cleanup
flock -u 7
debroot_unprepare
rm -f "$root/etc/resolv.conf"
# /srv/sld-repo stays: apt in the booted system reads it.
truncate -s 4G "$img"
mkfs.ext4 -q -L sld-root -d "$root" "$img" || bail "mkfs.ext4 -d failed"
rm -rf "$root"
step "disk image made; booting"

# host_step: the scenario's between_boots after a boot asked for it
# (@@@ HOST), on the image mounted where the root was: the helpers work
# on it as before the first boot, apt's downloads in the same cache. A
# host's step on a switched-off system, as the root's before boot 1.
host_step() {
	local rc
	declare -F between_boots >/dev/null || { echo "$scen: no between_boots" >>"$log"; return 1; }
	mkdir -p "$root"
	mount -o loop "$img" "$root" >>"$log" 2>&1 || { echo "host_step: cannot mount $img" >>"$log"; return 1; }
	flock 7
	debroot_mount "$archives"
	between_boots
	rc=$?
	debroot_unprepare
	rm -f "$root/etc/resolv.conf"
	umount -R "$root" >>"$log" 2>&1 || debroot_umount
	flock -u 7
	# QEMU must not open the image while the loop device still holds it.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -z "$(losetup -j "$img")" ] && return $rc
		sleep 1
	done
	echo "host_step: $img still on a loop device" >>"$log"
	return 1
}
: > "$work/tap"
: > "$work/console"
# A boot's HOST is taken once: a run of boots.sh that booted nothing
# (SYS_MAX_BOOTS reached, the wrapper failed) leaves the same last boot.
hosted=0
while :; do
	${SYS_WRAP:-} bash tests/system/boots.sh "$work" >>"$log" 2>&1
	n=$(cat "$work/boots" 2>/dev/null || echo 0)
	if [ "$n" = "$hosted" ] || ! grep -q '^@@@ HOST' "$work/tap.$n" 2>/dev/null; then break; fi
	hosted=$n
	s=$SECONDS
	step "the host's step after boot $n"
	host_step || { echo "not ok - the host's step after boot $n (see $log)" >> "$work/tap"; break; }
	echo "# the host's step after boot $n: $((SECONDS - s)) s" >> "$work/tap"
done
cp "$work/console" "$out/$rel-$scen.console"
n=$(cat "$work/boots" 2>/dev/null || echo 0)
grep -v '^@@@ ' "$work/tap" > "$work/tap.body"
tap_fold "$tag" < "$work/tap.body"
if grep -q '^@@@ DONE' "$work/tap"; then ok "$tag every boot ran to the end ($n boots)"
else nok "$tag every boot ran to the end ($n boots)"; fi
bad=$(grep -E "$KERNEL_ERRORS" "$work/console" | head -n 5)
is "$bad" "" "$tag no kernel error on any boot's console"
echo "# $rel $scen: $((SECONDS - t0)) s in all; logs $log, $out/$rel-$scen.console"
tap_done
