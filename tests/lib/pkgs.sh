# shellcheck shell=sh
# The one way our scripts install Debian packages they need: sourced by
# tests/vm/deps.sh, tests/qemu/build.sh, tests/pkg/*.sh and
# packaging/build-deps.sh (make deb / make rpm).

# pkgs_missing PKG...: print the ones not installed.
pkgs_missing() {
	for _p; do
		dpkg-query -W -f='${Status}\n' "$_p" 2>/dev/null |
			grep -q '^install ok installed$' || printf ' %s' "$_p"
	done
}

# ensure_pkgs WHO PKG...: install the missing ones (as root; apt's lock is
# waited for, as on a CI runner that upgrades at boot), or name them and
# the command that installs them and fail. Progress goes to stderr.
ensure_pkgs() {
	_who=$1
	shift
	_missing=$(pkgs_missing "$@")
	[ -n "$_missing" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "$_who: missing packages:$_missing" >&2
		echo "$_who: install them with: sudo apt-get install$_missing" >&2
		return 1
	fi
	echo "$_who: installing$_missing" >&2
	# shellcheck disable=SC2086
	{
		apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null ||
			apt-get -o DPkg::Lock::Timeout=900 update
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
			install -y -q --no-install-recommends $_missing >/dev/null
	} >&2
}
