#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.sh RESULTS: summary.md and the PNG plots from the raw numbers.
set -eu
python3 "$(dirname "$0")/report.py" "$1"
