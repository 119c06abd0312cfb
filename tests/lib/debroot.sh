# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# A debootstrapped Debian root the tests install the packages into with
# apt, as a user would: sourced by tests/pkg/lifecycle.sh (a Debian 12
# chroot) and tests/system/system.sh (Debian 13 and 12 roots booted with
# systemd). The caller sets $root (the root's directory) and runs in its
# own mount namespace (unshare -m), so the mounts die with it.
# shellcheck disable=SC2154 # $root: the caller's

# debroot_own_mounts WHO ENVVAR SELF [ARG...]: bail out unless root, then
# run SELF again (once: ENVVAR says it is the second run) in a mount
# namespace of its own, so that every mount below dies with the process.
debroot_own_mounts() {
	local who=$1 var=$2 self=$3
	shift 3
	if [ "$(id -u)" != 0 ]; then
		echo "Bail out! $who needs root (debootstrap, chroot, mounts)"
		exit 1
	fi
	[ -z "${!var:-}" ] || return 0
	export "$var=1"
	exec unshare --mount --propagation private bash "$self" "$@"
}

# debroot_mirrors: $mirror and $security, the archive the host's apt uses
# (apt-get indextargets; the same mirror serves every release and its
# -updates, -security and -backports suites), and apt's http proxy as
# $http_proxy. SLD_MIRROR/SLD_SECURITY override.
debroot_mirrors() {
	local targets proxy
	# shellcheck disable=SC2016 # apt's own $(NAME) fields, not the shell's
	targets=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
		'Identifier: Packages' 2>/dev/null | sort -u)
	mirror=${SLD_MIRROR:-$(echo "$targets" | awk '$2 !~ /-/ { print $1; exit }')}
	security=${SLD_SECURITY:-$(echo "$targets" | awk '$2 ~ /-security$/ { print $1; exit }')}
	mirror=${mirror:-http://deb.debian.org/debian/}
	security=${security:-http://deb.debian.org/debian-security/}
	proxy=$(apt-config dump --format '%v%n' Acquire::http::Proxy 2>/dev/null | head -n1)
	if [ -n "$proxy" ] && [ "$proxy" != DIRECT ]; then export http_proxy=$proxy; fi
}

# debroot_reachable SUITE FILE: the mirror serves SUITE (its InRelease
# fetched into FILE).
debroot_reachable() {
	/usr/lib/apt/apt-helper -o Acquire::Retries=1 download-file \
		"${mirror%/}/dists/$1/InRelease" "$2"
}

# The packages a booted-system root gets from debootstrap: its own kernel,
# headers, DKMS and initramfs, systemd as PID 1 (tests/system/system.sh);
# gcc, make and libc6-dev for the modules tests/vm/sid.sh builds in its
# trixie-backports root, which starts from the same tarball.
DEBROOT_SYSTEM_PKGS=systemd-sysv,udev,kmod,dbus,linux-image-amd64,linux-headers-amd64,dkms,initramfs-tools,e2fsprogs,procps,openssl,gcc,make,libc6-dev

# debroot_tar_stale TAR: no TAR, or one a month old or made with another
# DEBROOT_SYSTEM_PKGS than today's (TAR.pkgs says which).
debroot_tar_stale() {
	[ ! -s "$1" ] || [ -n "$(find "$1" -mtime +30)" ] ||
		[ "$(cat "$1.pkgs" 2>/dev/null)" != "$DEBROOT_SYSTEM_PKGS" ]
}

# debroot_system_tar RELEASE TAR ARCHIVES LOG: RELEASE debootstrapped from
# $mirror with DEBROOT_SYSTEM_PKGS into the tarball TAR (apt's downloads
# kept in ARCHIVES), unless debroot_tar_stale says the TAR there will do. One
# debootstrap a release (issue #43): make check makes Debian 13's in the
# background for the backports root and boots it last; the lock lets the
# second wait for the first. Prints the debootstrap's seconds.
debroot_system_tar() {
	local rel=$1 tar=$2 archives=$3 log=$4
	mkdir -p "$(dirname "$tar")" "$archives"
	(
		flock 9
		debroot_tar_stale "$tar" || exit 0
		mk=$(dirname "$tar")/mk-$rel
		rm -rf "$mk"
		s=$SECONDS
		debootstrap --variant=minbase --cache-dir="$archives" \
			--include="$DEBROOT_SYSTEM_PKGS" "$rel" "$mk" "$mirror" >>"$log" 2>&1 ||
			{ rm -rf "$mk"; exit 1; }
		echo "# debootstrap $rel: $((SECONDS - s)) s"
		tar -C "$mk" --numeric-owner --xattrs -cf "$tar.tmp" . &&
			mv "$tar.tmp" "$tar" && echo "$DEBROOT_SYSTEM_PKGS" > "$tar.pkgs"
		s=$?
		rm -rf "$mk" "$tar.tmp"
		exit $s
	) 9>"$tar.lock"
}

# debroot_umount: every mount below $root, deepest first.
debroot_umount() {
	local m
	for m in $(findmnt -rn -o TARGET | grep -E "^$root(/|\$)" | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	return 0
}

# debroot_mount ARCHIVES: /proc, a read-only /sys, /dev and ARCHIVES as
# apt's cache; services kept from starting (policy-rc.d), dpkg without
# fsync, the host's resolver and proxy.
debroot_mount() {
	mount -t proc proc "$root/proc"
	mount -t sysfs -o ro sysfs "$root/sys"
	mount --rbind /dev "$root/dev"
	mount --bind "$1" "$root/var/cache/apt/archives"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
	if [ -n "${http_proxy:-}" ]; then
		echo "Acquire::http::Proxy \"$http_proxy\";" > "$root/etc/apt/apt.conf.d/01proxy"
	fi
}

# debroot_unprepare: what debroot_mount put into the root that a booted
# system must not keep.
debroot_unprepare() {
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/dpkg/dpkg.cfg.d/unsafe-io" \
		"$root/etc/apt/apt.conf.d/01proxy"
}

# debroot_repo DIR DEB...: the .debs in a local apt repository at DIR in
# the root (dpkg-scanpackages), for a `deb [trusted=yes] file:DIR ./` line.
debroot_repo() {
	local dir=$1
	shift
	mkdir -p "$root$dir"
	cp "$@" "$root$dir/"
	(cd "$root$dir" && dpkg-scanpackages --multiversion . > Packages 2>/dev/null)
}

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
apt_root() { in_root apt-get -y -q -o Dpkg::Use-Pty=0 "$@"; }
