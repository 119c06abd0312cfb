#!/bin/sh
# /usr/sbin/sldctl in the test VM (vm.sh add_udev), the program the udev
# rule runs: a spawn by udev (which sets ACTION) is one line, its
# arguments, in /tmp/udev-spawns for tests/vm/t/55-udev.sh to count; then
# the suite's sldctl runs.
[ -z "${ACTION:-}" ] || echo "$*" >> /tmp/udev-spawns
exec /tests/bin/sldctl "$@"
