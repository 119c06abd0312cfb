# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario tools (issue #26 step f): sld-compat-tools alone, no module and
# no prometheus-node-exporter: nothing fails at boot (the boot-time
# modules-load.d entry belongs to the module's package), the metrics
# timer stays quiet. Guest part first, host part after the marker.

boot1() {
	local t="f: tools only"
	no_failed_units "$t"
	is "$(systemctl show -P ActiveState systemd-modules-load.service)" active \
		"$t: systemd-modules-load.service active (nothing it cannot load)"
	run "$t: no modules-load.d entry for sld_compat" \
		test ! -e /usr/lib/modules-load.d/sld-compat.conf
	like "$(sldctl --version)" "^sldctl $VER\$" "$t: sldctl runs"
	metrics_timer_quiet "$t"
	touch "$V/done"
}

# --- host ---
# shellcheck disable=SC2154 # $log, $root, $top, $kver: system.sh's
setup() {
	apt_root install sld-compat-tools >>"$log" 2>&1
}
