#!/bin/bash
# Build the suite's enforcing test QEMU: Debian 12's qemu source package
# (QEMU_DEB) with tests/qemu/[0-9]*.patch applied in order, configured for
# qemu-system-x86_64 with TCG and the pc machine's devices only
# (tests/qemu/devices.mak). See tests/qemu/README.md.
#
#   build.sh          build if missing; prints the binary's path on stdout
#   build.sh --path   prints where the binary is (or would be), builds nothing
#   build.sh --source installs the build's packages, fetches the source, stops
#
# The binary lives in $SLD_CACHE/qemu-sld/<key>/, <key> a hash of the
# patches, the source version, the configure options and devices.mak: a
# second run finds it and does nothing; a changed patch or device list
# builds afresh. It is never installed: the system's qemu-system-x86_64
# stays what it was.
# JOBS (default 2) ninja jobs, run under nice.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../config.sh"
QEMU_DEB=1:7.2+dfsg-7+deb12u18
# No debug information: nobody debugs this binary, and without -g a fresh
# machine compiles it faster. No default devices: only those of
# tests/qemu/devices.mak (copied into the tree as configs/devices/
# x86_64-softmmu/sld.mak), the devices the suite's boots show a guest, and
# what they select; the guest sees the same machine (devices.mak says how
# that was compared). That leaves out the q35, isapc and microvm boards
# and every device only they or a -device would use (USB, SCSI, NICs,
# sound, IPMI, VFIO, CXL, the IOMMUs, the other virtio devices): ninja's
# steps went from 1426 to 1222 (1135 to 931 compilations: 210 files out,
# 6 stubs in), and the files left out took about 147 of 636 CPU seconds,
# 23% (measured on a busy 2-core machine, where the step count is the
# steadier figure: 672 s of ninja -j2 at a load average of 6 to 10).
CONF=(--target-list=x86_64-softmmu --without-default-features --enable-tcg
      --enable-fdt=system --disable-docs --disable-tools --disable-blobs
      --disable-debug-info --without-default-devices --with-devices-x86_64=sld)
dir=$SLD_CACHE/qemu-sld
key=$( (echo "$QEMU_DEB" "${CONF[@]}"; cat "$here"/devices.mak "$here"/[0-9]*.patch) |
	sha256sum | cut -c1-16)
out=$dir/$key
bin=$out/qemu-system-x86_64

if [ "${1:-}" = --path ] || [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$dir"
# One build at a time: make check starts it in the background (deps.sh)
# and the first VM boot waits here for it.
exec 9>"$dir/build.lock"
flock 9
[ ! -x "$bin" ] || { echo "$bin"; exit 0; }
log=$dir/build-$key.log
exec 3>&1 4>&2 >"$log" 2>&1	# stdout: the path only; the rest to the log
trap 'echo "qemu build.sh: failed, see $log" >&4; tail -n 20 "$log" >&4' ERR

# Build dependencies (the firmware comes from qemu-system-x86's packages).
pkgs="meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev dpkg-dev
      pkg-config gcc make python3 patch xz-utils qemu-system-x86"
. "$here/../lib/pkgs.sh"
# shellcheck disable=SC2086
ensure_pkgs "qemu build.sh" $pkgs 2>&4

# The source package: needs a deb-src entry; add a copy of the deb one.
src=$dir/src
if [ ! -f "$src/.ok" ]; then
	if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		[ "$(id -u)" = 0 ] || { echo "qemu build.sh: no deb-src entry (run as root)" >&4; exit 1; }
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
				> /etc/apt/sources.list.d/sld-compat-deb-src.sources
		else
			sed -n 's/^deb /deb-src /p' /etc/apt/sources.list \
				> /etc/apt/sources.list.d/sld-compat-deb-src.list
		fi
		apt-get -o DPkg::Lock::Timeout=900 update -q
	fi
	rm -rf "$src"
	mkdir -p "$src"
	(cd "$src" && apt-get source -q "qemu=$QEMU_DEB")
	touch "$src/.ok"
fi
# --source: the packages and the source only (deps.sh, before it builds
# in the background, so that no apt runs beside make check's phases).
[ "${1:-}" != --source ] || exit 0

# A fresh copy of the tree, patched, configured, built.
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp -a "$src"/qemu-*/ "$out.tmp/src"
for p in "$here"/[0-9]*.patch; do
	echo "applying $(basename "$p")"
	patch -d "$out.tmp/src" -p1 --no-backup-if-mismatch < "$p"
done
cp "$here/devices.mak" "$out.tmp/src/configs/devices/x86_64-softmmu/sld.mak"
mkdir "$out.tmp/src/build"
cd "$out.tmp/src/build"
../configure "${CONF[@]}"
start=$(date +%s)
nice ninja -j"${JOBS:-2}" qemu-system-x86_64
echo "ninja qemu-system-x86_64: $(($(date +%s) - start)) s with -j${JOBS:-2}"
cp qemu-system-x86_64 "$out.tmp/"
cd "$dir"
rm -rf "$out.tmp/src"	# about 1 GB of objects; the binary is what we keep
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$bin" >&3
