#!/bin/bash
# Install everything `make check` / `make demo` need on a Debian 12 host.
# Idempotent: a second run installs nothing and downloads nothing (the
# newer kernels' roots, SLD_SID and SLD_BPO, look for a newer kernel once
# a day).
#
# Kernel images are not installed (that would run update-initramfs and fill
# /boot); they are downloaded and unpacked into $SLD_CACHE, which only needs
# the vmlinuz and the modules. Headers are installed normally for Kbuild.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../config.sh"

pkgs="build-essential make gcc sparse kmod cpio busybox-static qemu-system-x86
      libelf-dev liblzma-dev libzstd-dev libcmocka-dev libzydis-dev pkg-config
      binutils clang libclang-rt-14-dev perl xz-utils zstd dkms python3 gawk
      libelf-dev zlib1g-dev libjson-c-dev udev prometheus systemd"
for k in $KVERS; do pkgs="$pkgs linux-headers-$k"; done

# shellcheck source=SCRIPTDIR/../lib/pkgs.sh
. "$here/../lib/pkgs.sh"
# shellcheck disable=SC2086
ensure_pkgs deps $pkgs

# shellcheck source=SCRIPTDIR/images.sh
. "$here/images.sh"
mkdir -p "$SLD_CACHE"
for k in $KVERS; do fetch_image "$k"; done

# SLD_SID=1: Debian unstable's newest kernel and its -rt (tests/vm/sid.sh:
# a debootstrapped unstable root to build in, its images beside the others).
[ -z "${SLD_SID:-}" ] || bash "$here/sid.sh"
# SLD_BPO=1: trixie-backports' kernel (tests/vm/bpo.sh, the same in a
# Debian 13 root; make cpu-check boots it: AMD bus-lock support).
# The enforcing test QEMU (tests/qemu/, VM_CPU=enforcing): a few minutes
# on 2 cores the first time (1222 ninja steps), nothing once cached.
# SLD_DEPS_BG=1 (make check): the QEMU and the backports root are made in
# the background, niced, while lint, unit and the package checks run
# (mostly one core, or waiting on the mirror); the first VM boot and
# cpu-check wait for them (each takes a lock). Their output goes to
# build/deps-bg.log.
if [ -n "${SLD_DEPS_BG:-}" ]; then
	qemu=$(bash "$here/../qemu/build.sh" --path)
	[ -x "$qemu" ] && [ -s "$SLD_CACHE/bpo.kvers" ] && exit 0
	# Started already (a later phase's deps): its locks are held.
	mkdir -p "$SLD_CACHE/qemu-sld"
	flock -n "$SLD_CACHE/qemu-sld/build.lock" true && flock -n "$SLD_CACHE/bpo.lock" true ||
		exit 0
	# The packages both need, now, while nothing else runs apt.
	ensure_pkgs deps debootstrap
	bash "$here/../qemu/build.sh" --source
	mkdir -p "$here/../../build"
	echo "deps: the test QEMU and the backports root in the background (build/deps-bg.log)"
	setsid bash -c "nice bash '$here/../qemu/build.sh'; nice bash '$here/bpo.sh'" \
		> "$here/../../build/deps-bg.log" 2>&1 < /dev/null &
	exit 0
fi
[ -z "${SLD_BPO:-}" ] || bash "$here/bpo.sh" >/dev/null
if [ ! -x "$(bash "$here/../qemu/build.sh" --path)" ]; then
	echo "deps: building the enforcing test QEMU (tests/qemu/build.sh)"
	bash "$here/../qemu/build.sh" >/dev/null
fi
