#!/bin/bash
# What `make bench` needs on Debian 12, on top of tests/vm/deps.sh (QEMU,
# headers, the unpacked test kernels): gnuplot for the plots, Zydis and the
# kernel source package for the decoders compared against, pahole for the
# record sizes. Idempotent.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/config.sh"
KVERS=${KVER:-$KVER_61} bash "$here/../tests/vm/deps.sh"
. "$here/../tests/lib/pkgs.sh"
ensure_pkgs "bench deps" gnuplot-nox libzydis-dev linux-source-6.1 pahole \
	binutils pkg-config
