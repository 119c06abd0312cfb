#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs shellcheck on every shell script of the tree, each in the dialect it
# runs in: bash where bash runs it, POSIX sh (-s sh) where dash or the
# test VM's busybox does (bench/vm/, tests/pkg/vm-t/: the guest runs
# them; libraries that say `# shellcheck shell=sh`). tests/vm/
# lists its own files and dialects in tests/vm/shellcheck.sh, run from
# here where it exists. Sourced files are followed (-x), so a script is
# checked together with the library it uses. Part of `make lint`; TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/tap.sh
. tests/lib/pkgs.sh
TAP_DIAG_LINES=60
ensure_pkgs lint shellcheck || { echo "Bail out! no shellcheck"; exit 1; }

# dialect FILE: bash, sh, or nothing for a file that is no shell script.
dialect() {
	case $1 in
	bench/vm/*.sh|tests/pkg/vm-t/*.sh) echo sh; return ;;	# busybox, in the VM
	*.bash-completion) echo bash; return ;;
	esac
	case $(head -n1 "$1") in
	'#!/bin/bash'*|'#!/usr/bin/env bash'*|'# shellcheck shell=bash'*) echo bash ;;
	'#!/bin/sh'*|'# shellcheck shell=sh'*) echo sh ;;
	*) case $1 in *.sh) echo "unknown" ;; esac ;;
	esac
}

# Every shell script git knows outside tests/vm/ (its own list) and .ci/
# (the CI runner's, not the project's).
files=$(git ls-files | grep -vE '^(tests/vm|\.ci)/' | while read -r f; do
	[ -f "$f" ] || continue
	case $f in *.sh|*.bash-completion) echo "$f"; continue ;; esac
	head -c 64 "$f" | head -n1 | grep -qE '^#!(/bin/|/usr/bin/env )(ba)?sh' && echo "$f"
done)
[ -n "$files" ] || nok "no shell scripts found"
for f in $files; do
	d=$(dialect "$f")
	if [ "$d" = unknown ]; then
		nok "$f: no #! line or '# shellcheck shell=' directive to tell its dialect"
		continue
	fi
	opts=()
	# SC2119 (a function's $1 vs the script's): tests/lib/vm.sh's load()
	# takes optional insmod arguments; calling it without any is meant.
	case $f in bench/vm/*|tests/pkg/vm-t/*) opts=(-e SC2119) ;; esac
	run "shellcheck -s $d $f" shellcheck -x -P SCRIPTDIR -s "$d" "${opts[@]}" "$f"
done
if [ -f tests/vm/shellcheck.sh ]; then
	run "tests/vm/shellcheck.sh (tests/vm's own list)" bash tests/vm/shellcheck.sh
fi
tap_done
