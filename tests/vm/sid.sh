#!/bin/bash
# Newer Debian kernels than the host's in the VM suite (issues #14, #29).
# Their headers need a newer compiler and glibc, so the module and the
# fixtures are built for them in a debootstrapped Debian root kept in the
# suite's download cache; nothing from it is ever installed on the host.
# SLD_KROOT picks the root (tests/vm/bpo.sh sets bpo):
#   sid  Debian unstable: the kernel its linux-image-amd64 points to, and
#        that kernel's -rt (make check-full)
#   bpo  Debian 13 with trixie-backports: the kernel backports'
#        linux-image-amd64 points to (7.3: AMD bus-lock support, make check)
#
#   sid.sh         set up (idempotent): the root ($SLD_CACHE/ROOT-root:
#                  minbase, gcc, make, libc6-dev, kmod), the headers of the
#                  kernel(s), their images unpacked into $SLD_CACHE/KVER as
#                  tests/vm/deps.sh does for the others; prints the kernel
#                  versions
#   sid.sh kvers   prints them from the cache (no network; fails if unset)
#   sid.sh run CMD...  runs CMD in the root as root, with the worktree
#                  bind-mounted at its own path (how vm.sh builds for them)
#   sid.sh pkgs PKG...  installs the root's PKGs unless they are there
#                  already (dkms, sparse: make dkms-check-sid, lint-sid);
#                  they stay in the cached root
#
# The version is never pinned: it is resolved again from linux-image-amd64
# when the last resolution ($SLD_CACHE/ROOT.kvers) is a day old, or
# SLD_SID_REFRESH=1. Otherwise a second run touches no network and takes a
# second. $SLD_CACHE/KVER/chroot names the root a kernel builds in. Every
# mount lives in a private mount namespace (unshare -m) and dies with the
# script. Mirror: SLD_SID_MIRROR (default http://deb.debian.org/debian, the
# host's), apt's http proxy if the host has one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../config.sh
. "$top/tests/config.sh"
mirror=${SLD_SID_MIRROR:-http://deb.debian.org/debian}
kind=${SLD_KROOT:-sid}
case $kind in
sid)	suite=sid; what="Debian unstable"; image=linux-image-amd64; rt=1
	sources="deb $mirror sid main" ;;
bpo)	suite=trixie; what="Debian 13 with trixie-backports"; rt=
	image=linux-image-amd64/trixie-backports
	sources="deb $mirror trixie main
deb $mirror trixie-backports main" ;;
*)	echo "sid.sh: SLD_KROOT=$kind: not sid or bpo" >&2; exit 2 ;;
esac
root=$SLD_CACHE/$kind-root
kvfile=$SLD_CACHE/$kind.kvers
log=$SLD_CACHE/$kind-apt.log
cmd=${1:-setup}

if [ "$cmd" = kvers ]; then
	[ -s "$kvfile" ] || { echo "sid.sh: no $kind kernel yet (run tests/vm/$kind.sh)" >&2; exit 1; }
	cat "$kvfile"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "sid.sh: needs root (debootstrap, chroot, mounts)" >&2
	exit 1
fi
if [ -z "${SLD_SID_NS:-}" ]; then
	export SLD_SID_NS=1
	exec unshare --mount --propagation private bash "$0" "$@"
fi

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
mount_root() {	# the kernel's file systems, in this namespace only
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
}

if [ "$cmd" = run ]; then
	shift
	[ -f "$root/.sld-base" ] || { echo "sid.sh: no root at $root (run tests/vm/sid.sh)" >&2; exit 1; }
	mount_root
	mkdir -p "$root$top"
	mount --bind "$top" "$root$top"
	# shellcheck disable=SC2016 # the inner sh expands $1 and $@
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 \
		sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' sh "$PWD" "$@"
fi
# checker_valid: kbuild (6.13 on) runs scripts/checker-valid.sh before any
# C=1 build and silently drops sparse when the script is missing, which it
# is from Debian's headers packages: put upstream's few lines there.
checker_valid() {
	local h
	for h in "$root"/usr/src/linux-headers-*; do
		grep -qs checker-valid.sh "$h/Makefile" || continue
		[ -e "$h/scripts/checker-valid.sh" ] && continue
		cat > "$h/scripts/checker-valid.sh" <<'CV'
#!/bin/sh -eu
# SPDX-License-Identifier: GPL-2.0
# Upstream's, missing from Debian's headers (sld-compat's tests/vm/sid.sh).
[ ! -x "$(command -v "$1")" ] && exit 1
tmp_file=$(mktemp)
trap "rm -f $tmp_file" EXIT
cat << EOF >$tmp_file
static inline int u(const int *q)
{
	__typeof_unqual__(*q) v = *q;
	return v;
}
EOF
"$@" $tmp_file 2>&1 | awk -v c=1 '/error/{c=0}END{print c}'
CV
		chmod +x "$h/scripts/checker-valid.sh"
	done
}
if [ "$cmd" = pkgs ]; then
	shift
	[ -f "$root/.sld-base" ] || { echo "sid.sh: no root at $root (run tests/vm/sid.sh)" >&2; exit 1; }
	need=()
	for p in "$@"; do
		# shellcheck disable=SC2016 # dpkg-query's field, not the shell's
		in_root dpkg-query -W -f '${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || need+=("$p")
	done
	case " $* " in *" sparse "*) checker_valid ;; esac
	[ ${#need[@]} -gt 0 ] || exit 0
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	mount_root
	echo "$kind: installing ${need[*]} in the root" >&2
	{ in_root apt-get update -q &&
		in_root apt-get install -y -q --no-install-recommends "${need[@]}"; } \
		> "$log" 2>&1 || {
		echo "sid.sh: apt-get install ${need[*]} failed, see $log" >&2
		exit 1
	}
	exit 0
fi
[ "$cmd" = setup ] || { echo "usage: sid.sh [setup|kvers|run CMD...|pkgs PKG...]" >&2; exit 2; }

# One setup of a root at a time: make check starts the backports root's
# in the background (deps.sh) and cpu-check waits here for it.
mkdir -p "$SLD_CACHE"
exec 8>"$SLD_CACHE/$kind.lock"
flock 8
t0=$SECONDS
proxy=$(apt-config dump --format '%v%n' Acquire::http::Proxy 2>/dev/null | head -n1)
[ -n "$proxy" ] && [ "$proxy" != DIRECT ] && export http_proxy=$proxy
command -v debootstrap >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=900 \
		--no-install-recommends debootstrap >/dev/null

# make_root: the root at $root. Debian 13's is unpacked from the booted
# system's tarball (tests/lib/debroot.sh: one debootstrap for both; it
# has gcc, make, libc6-dev and kmod), unstable's debootstrapped here.
make_root() {
	local dlog=$SLD_CACHE/$kind-debootstrap.log
	if [ "$kind" = bpo ]; then
		# shellcheck source=SCRIPTDIR/../lib/debroot.sh
		. "$top/tests/lib/debroot.sh"
		echo "$kind: $what from Debian 13's system root" >&2
		local tar=$SLD_CACHE/system/trixie-root.tar
		if ! debroot_system_tar trixie "$tar" "$SLD_CACHE/system/archives" "$dlog" >&2; then
			echo "sid.sh: debootstrap failed, see $dlog" >&2
			exit 1
		fi
		mkdir -p "$root"
		tar -C "$root" --numeric-owner --xattrs -xf "$tar"
		return 0
	fi
	echo "$kind: debootstrap $what into $root"
	debootstrap --variant=minbase --include=gcc,make,libc6-dev,kmod \
		"$suite" "$root" "$mirror" > "$dlog" 2>&1 || {
		echo "sid.sh: debootstrap failed, see $dlog" >&2
		exit 1
	}
}

# 1. The root, once.
if [ ! -f "$root/.sld-base" ]; then
	rm -rf "$root"
	make_root
	echo "$sources" > "$root/etc/apt/sources.list"
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
	# A frozen mirror (a snapshot) serves an unstable Release file past its
	# Valid-Until; its signature is still checked.
	echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/01sld-valid"
	[ -z "${http_proxy:-}" ] ||
		echo "Acquire::http::Proxy \"$http_proxy\";" > "$root/etc/apt/apt.conf.d/01proxy"
	rm -f "$kvfile"
	touch "$root/.sld-base"
	echo "$kind: root ready after $((SECONDS - t0)) s"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount_root

# 2. The kernel linux-image-amd64 depends on, and its headers.
if [ ! -s "$kvfile" ] || [ -n "${SLD_SID_REFRESH:-}" ] ||
	[ -n "$(find "$kvfile" -mmin +1440)" ]; then
	in_root apt-get update -q > /dev/null
	kver=$(in_root apt-cache depends "$image" |
		sed -n 's/^ *Depends: linux-image-\([^ ]*-amd64\)$/\1/p' | head -n1)
	[ -n "$kver" ] || { echo "sid.sh: $what's $image names no kernel" >&2; exit 1; }
	echo "$kver${rt:+ ${kver%-amd64}-rt-amd64}" > "$kvfile.tmp"
	mv "$kvfile.tmp" "$kvfile"
fi
kvers=$(cat "$kvfile")
need=()
for k in $kvers; do
	[ -d "$root/lib/modules/$k/build/include" ] || need+=("linux-headers-$k")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "$kind: installing ${need[*]} in the root"
	in_root apt-get install -y -q --no-install-recommends "${need[@]}" > "$log" 2>&1 || {
		echo "sid.sh: apt-get install ${need[*]} failed, see $log" >&2
		exit 1
	}
fi

# 3. Their images, unpacked beside the other kernels'.
sid_download() {	# sid_download KVER DIR: with the root's apt
	local dl=$root/tmp/sld-dl pkgs
	# linux-image-KVER and the parts it is split into (linux-*-KVER).
	pkgs=$(in_root apt-cache depends "linux-image-$1" |
		sed -n "s/^ *Depends: \(linux-[a-z]*-$1\)\$/\1/p" | tr '\n' ' ')
	rm -rf "$dl"
	mkdir -p "$dl"
	chmod 0777 "$dl"	# apt downloads as _apt
	in_root sh -c "cd /tmp/sld-dl && apt-get download -q linux-image-$1 $pkgs" >/dev/null
	mv "$dl"/*.deb "$2"/
	rm -rf "$dl"
}
# shellcheck source=SCRIPTDIR/images.sh
. "$here/images.sh"
for k in $kvers; do
	fetch_image "$k" sid_download
	echo "$root" > "$SLD_CACHE/$k/chroot"
done
echo "$kind: $kvers ($((SECONDS - t0)) s)" >&2
echo "$kvers"
