#!/bin/bash
# Debian 13's trixie-backports kernel (7.3: AMD bus-lock support) in the
# VM suite: tests/vm/sid.sh's root machinery with SLD_KROOT=bpo; the same
# commands (setup, kvers, run CMD..., pkgs PKG...).
SLD_KROOT=bpo exec bash "$(dirname "$0")/sid.sh" "$@"
