#!/bin/sh
# build-deps.sh deb TREE | rpm: install what `make deb` (TREE/debian/control's
# Build-Depends) or `make rpm` needs, as root, as `make demo` does; as a user,
# name the one command that does and fail.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/pkgs.sh"

case ${1:-} in
deb)
	[ -n "${2:-}" ] || { echo "usage: build-deps.sh deb TREE | rpm" >&2; exit 2; }
	ensure_pkgs "make deb" dpkg-dev build-essential
	cd "$2"
	dpkg-checkbuilddeps 2>/dev/null && exit 0
	if [ "$(id -u)" != 0 ]; then
		dpkg-checkbuilddeps || true
		echo "make deb: install them with: sudo apt-get build-dep $2" >&2
		exit 1
	fi
	echo "make deb: installing the build dependencies of debian/control" >&2
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
		build-dep -y -q --no-install-recommends . >/dev/null
	;;
rpm)
	# Only Debian's packages are installed here (apt): elsewhere say so,
	# and how to build, rather than try apt-get.
	if ! command -v dpkg-query >/dev/null 2>&1; then
		echo "make rpm: installs its build dependencies on Debian only (apt); here install the spec's BuildRequires and run rpmbuild (README.md: Fedora, RHEL and alike)" >&2
		exit 1
	fi
	# rpmbuild runs with --nodeps (Debian's rpm database knows none of
	# the dpkg-installed packages): these stand for the spec's
	# BuildRequires.
	ensure_pkgs "make rpm" rpm gcc make pkg-config libelf-dev \
		liblzma-dev libzstd-dev
	;;
*)
	echo "usage: build-deps.sh deb TREE | rpm" >&2
	exit 2
	;;
esac
