#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module built with W=1 and sparse (C=1) for each KVER given, in a
# copy of src/ under build/lint/KVER: any line the build prints fails it.
# LINT_RUN: a command prefix to build in (make lint-sid: unstable's root,
# `bash tests/vm/sid.sh run`). Used by make lint-build and lint-sid.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
for k in "$@"; do
	rm -rf "build/lint/$k"
	mkdir -p "build/lint/$k"
	cp -a src/. "build/lint/$k/"
	echo "# W=1 C=1 $k${LINT_RUN:+ ($LINT_RUN)}"
	# shellcheck disable=SC2086 # LINT_RUN: a command and its words
	${LINT_RUN:-} make -s -j2 -C "build/lint/$k" KVER="$k" W=1 C=1 2>&1 |
		grep -vE '^Skipping BTF|^make\[[0-9]+\]: (Entering|Leaving)' |
		tee "build/lint/$k.log" || :
	test ! -s "build/lint/$k.log"
done
