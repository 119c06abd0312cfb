# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario source (issue #26 item 2): `make install` from a checkout (in
# the root, for its kernel, after apt installs the build dependencies the
# README names), step a's checks in the booted system, then `make
# uninstall` there and a reboot: nothing left, no failed unit. Guest part
# first, host part after the marker.
SRC=/usr/local/src/sld-compat

boot1() {
	local t="make install: after boot" out
	loaded_at_boot "$t"
	no_failed_units "$t"
	is "$(journalctl -b -q --no-pager -u systemd-udevd | grep -c 'sldctl apply.*failed')" 0 \
		"$t: udev's 'sldctl apply' did not fail"
	doctor_healthy "$t"
	run "$t: man sldctl's page installed" test -f /usr/local/share/man/man8/sldctl.8
	run "$t: the examples in /etc/sld-compat/conf.d" \
		test -f /etc/sld-compat/conf.d/libvirt-qemu.conf.example
	standin_protected "$t"
	metrics_timer_quiet "$t"
	out=$(make -C $SRC uninstall 2>&1)
	run "make uninstall (exit $?)" test $? = 0
	diag "$(echo "$out" | tail -n 5)"
}

boot2() {
	nothing_left "make uninstall + reboot"
	no_failed_units "make uninstall + reboot"
	touch "$V/done"
}

# --- host ---
# shellcheck disable=SC2154 # $log, $root, $top, $kver: system.sh's
setup() {
	local SRC=/usr/local/src/sld-compat
	apt_root install --no-install-recommends make gcc pkg-config libelf-dev \
		liblzma-dev libzstd-dev >>"$log" 2>&1 || return 1
	mkdir -p "$root$SRC"
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$root$SRC" -xf -
	in_root make -C "$SRC" install KVER="$kver" >>"$log" 2>&1
}
