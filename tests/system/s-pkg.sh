# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario pkg (issue #26 steps a, f with both packages and
# prometheus-node-exporter, g): `apt install sld-compat-dkms` in the root
# (sld-compat-tools comes as its Recommends), then in the booted system.
# The guest part (bootN, run by tests/system/run) comes first, the host
# part (setup, run by system.sh in the root) after the marker.

boot1() {
	local t="a: after install + boot" out
	loaded_at_boot "$t"
	no_failed_units "$t"
	is "$(journalctl -b -q --no-pager -u systemd-udevd | grep -c 'sldctl apply.*failed')" 0 \
		"$t: udev's 'sldctl apply' did not fail"
	doctor_healthy "$t"
	standin_protected "$t"
	metrics_timer_runs "f: both packages"
	out=$(apt-get -y -q -o Dpkg::Use-Pty=0 remove sld-compat-dkms sld-compat-tools 2>&1)
	run "g: apt-get remove sld-compat-dkms sld-compat-tools (exit $?)" test $? = 0
	diag "$(echo "$out" | tail -n 5)"
	run "g: after remove: no sld_compat.ko for $(uname -r) left" \
		test -z "$(find /lib/modules -name 'sld_compat.ko*')"
	out=$(apt-get -y -q -o Dpkg::Use-Pty=0 purge sld-compat-dkms sld-compat-tools 2>&1)
	run "g: apt-get purge (exit $?)" test $? = 0
	run "g: after purge: no sld_compat.prom left in node_exporter's directory" \
		test ! -e /var/lib/prometheus/node-exporter/sld_compat.prom
}

boot2() {
	nothing_left "g: after purge + reboot" sld-compat-dkms sld-compat-tools
	no_failed_units "g: after purge + reboot"
	touch "$V/done"
}

# --- host ---
# shellcheck disable=SC2154 # $log, $root, $top, $kver: system.sh's
setup() {
	apt_root install sld-compat-dkms >>"$log" 2>&1 &&
		in_root dpkg-query -W sld-compat-tools >>"$log" 2>&1 &&
	# Its recommends bring IPMI services that fail on a machine without IPMI.
	apt_root install --no-install-recommends prometheus-node-exporter >>"$log" 2>&1
}

# lintian of this release on the packages (and source) `make deb` built;
# installed in the root for that, and purged again before the boot.
# shellcheck disable=SC2154 # $pkgtop, $root, $work, $tag: system.sh's
host_checks() {
	local l=/tmp/sld-lintian
	mkdir -p "$root$l"
	cp "$pkgtop"/build/pkg/sld-compat[_-]*.* "$root$l/"
	apt_root install --no-install-recommends lintian >>"$log" 2>&1
	in_root sh -c "cd $l && lintian --tag-display-limit 0 sld-compat_*.changes" >"$work/lintian" 2>&1
	run "$tag lintian ($(in_root lintian --version)): no errors or warnings" \
		sh -c "cat '$work/lintian'; ! grep -qE '^[EW]: ' '$work/lintian'"
	apt_root purge --autoremove lintian >>"$log" 2>&1
	rm -rf "${root:?}$l"
}
