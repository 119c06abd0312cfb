#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The layers of src/ (src/README.md) stay layers: tests/lint/layers.py
# builds the graph between the files of src/ from their #include lines and
# the global functions and variables each names (universal-ctags), and
# fails on a circle or on an edge that points up a layer. The graph it
# checked is printed as TAP comments. Then the checker itself, on a copy
# of src/ with a circle put in on purpose: it must say so. Part of
# `make lint`; TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/tap.sh
. tests/lib/pkgs.sh
ensure_pkgs lint python3 universal-ctags ||
	{ echo "Bail out! no python3 or universal-ctags"; exit 1; }

out=$(python3 tests/lint/layers.py src)
rc=$?
diag "the graph of src/ checked (unit -> unit it needs: include, calls):"
printf '%s\n' "$out" | sed -n 's/^edge /#   /p'
printf '%s\n' "$out" | grep -v '^edge ' | sed 's/^/# /'

edges=$(printf '%s\n' "$out" | grep -c '^edge ')
like "$edges" '^[0-9]{3,}$' "the graph has $edges edges (parsed, not empty)"
like "$out" '^edge main -> detect/modscan: include, calls .*sld_modscan_init' \
	"main -> detect/modscan: an include and a call are both seen"
is "$(printf '%s\n' "$out" | grep '^unplaced ')" "" "every file of src/ is in a layer"
is "$(printf '%s\n' "$out" | grep '^upward ')" "" "no file calls or includes up a layer"
is "$(printf '%s\n' "$out" | grep '^circle ')" "" "no circle between the files of src/"
is "$(printf '%s\n' "$out" | grep '^bare include ')" "" "every #include names its folder from src/"
is "$rc" 0 "layers.py exits 0"

# The checker fails where it should: kernel/degraded.c (bottom) calling
# modscan.c (detect), which calls degraded.c, and including its own
# header by a bare name.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp -a src "$tmp/src"
printf '\n#include "degraded.h"\nvoid sld_layers_probe(void)\n{\n\tsld_modscan_redecide("x");\n}\n' \
	>> "$tmp/src/kernel/degraded.c"
bad=$(python3 tests/lint/layers.py "$tmp/src")
is "$?" 1 "a circle put in on purpose: layers.py exits 1"
like "$bad" '^circle .*(detect/modscan.*kernel/degraded|kernel/degraded.*detect/modscan)' \
	"... and names the circle"
like "$bad" '^upward kernel/degraded \(kernel\) -> detect/modscan \(detect\): call sld_modscan_redecide' \
	"... and the call up a layer"
like "$bad" '^bare include kernel/degraded.c: degraded.h' "... and the bare include"
tap_done
