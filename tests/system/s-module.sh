# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario module (issue #26 step f): sld-compat-dkms alone
# (--no-install-recommends: no sldctl, no udev rule): loaded at boot by
# its own modules-load.d entry, no failed unit, a stand-in hypervisor
# protected. Guest part first, host part after the marker.

boot1() {
	local t="f: module only"
	loaded_at_boot "$t"
	no_failed_units "$t"
	run "$t: no sldctl installed" test -z "$(command -v sldctl)"
	standin_protected "$t"
	touch "$V/done"
}

# --- host ---
# shellcheck disable=SC2154 # $log, $root, $top, $kver: system.sh's
# shellcheck disable=SC2016 # dpkg-query's ${Status}
setup() {
	apt_root install --no-install-recommends sld-compat-dkms >>"$log" 2>&1 &&
		[ "$(in_root dpkg-query -W -f='${Status}' sld-compat-tools 2>/dev/null)" != \
			"install ok installed" ]
}
