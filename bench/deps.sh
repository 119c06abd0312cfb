#!/bin/bash
# What `make bench` needs on Debian 12, on top of tests/vm/deps.sh (QEMU,
# headers, the unpacked test kernels): gnuplot for the plots, Zydis and the
# kernel source package for the decoders compared against, pahole for the
# record sizes. Idempotent.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/config.sh"
KVERS=${KVER:-$KVER_61} bash "$here/../tests/vm/deps.sh"
pkgs="gnuplot-nox libzydis-dev linux-source-6.1 pahole binutils pkg-config"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "bench deps: missing packages:$missing (run as root to install)" >&2
	exit 1
fi
echo "bench deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || apt-get update
apt-get install -y -q --no-install-recommends $missing >/dev/null
