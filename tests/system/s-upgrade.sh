# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario upgrade (issue #26 step e), README's second way, from a
# checkout (the repository's way is the rules scenario's step e):
# today's packages (VER, `make deb`)
# installed with apt in the root, with the admin's configuration
# (hypervisor_modules = vmmon in conf.d, a line added to the shipped
# sld-compat.conf). Booted: a protected stand-in guest runs (a vCPU thread
# whose RUNs do kernel-mode split locks, each fatal on this CPU unless its
# core is protected), and apt in the booted system upgrades both packages
# to NEXT, the same source with the version bumped (built for the test in
# build/upgrade-src): DKMS builds NEXT under TCG while the guest runs.
# Right after: no kernel error, the guest still protected and its split
# locks not trapping, the configuration kept and applied,
# /run/sld-compat/named-modules present, and apt's output says the loaded
# VER stays active until the next boot. Reboot: NEXT loaded, protecting.
# Guest part first, host part after the marker.

# config_kept TAG: the admin's configuration kept and applied (guest.sh).
config_kept() { admin_config_kept "$1"; }

boot1() {
	local t="e: $VER installed, after boot" out rc s pid
	loaded_at_boot "$t"
	no_failed_units "$t"
	config_kept "$t"
	guest_start
	pid=$GUEST_PID

	s=$SECONDS
	out=$(apt-get -y -q -o Dpkg::Use-Pty=0 install sld-compat-dkms sld-compat-tools 2>&1)
	rc=$?
	run "e: apt-get install sld-compat-dkms sld-compat-tools upgrades to $NEXT while the guest runs (exit $rc, $((SECONDS - s)) s)" \
		test $rc = 0
	diag "$(echo "$out" | grep -E 'sld|dkms|DKMS|Unpacking|Setting up' | tail -n 15)"
	run "e: /run/sld-compat/named-modules present right after the upgrade" \
		test -e /run/sld-compat/named-modules/vmmon
	after_upgrade "$out" "$pid"
}

boot2() {
	local t="e: after the upgrade + reboot"
	VER=$NEXT
	is "$(cat /sys/module/sld_compat/version)" "$NEXT" "$t: sld_compat $NEXT is loaded"
	loaded_at_boot "$t"
	no_failed_units "$t"
	config_kept "$t"
	doctor_healthy "$t"
	standin_protected "$t"
	touch "$V/done"
}

# --- host ---
# Both sides (the booted system sources the whole file): NEXT, the
# configuration's files and the admin's line.
NEXT=$(cat /usr/local/lib/sld-systest/next 2>/dev/null)
CONF=/etc/sld-compat/sld-compat.conf
LOCAL=/etc/sld-compat/conf.d/local.conf
ADMIN_LINE="# the admin's own line (tests/system/s-upgrade.sh)"
# DKMS builds NEXT in the booted system, under TCG: more than 30 minutes
# on a busy machine (s-rules.sh); the bound is for a hang.
export SYS_TIMEOUT=${SYS_TIMEOUT:-5400}
# shellcheck disable=SC2154 # $log, $root, $top, $ver: system.sh's
setup() {
	local src=$top/build/upgrade-src next p
	. "$top/tests/lib/nextver.sh"
	# NEXT: this tree with src/VERSION and the changelog bumped.
	next=$(nextver_tree "$top" "$src") || return 1
	make -C "$src" -s deb >>"$log" 2>&1 || return 1
	p=$src/build/pkg
	debroot_repo /srv/sld-repo "$p/sld-compat-dkms_${next}-1_all.deb" \
		"$p/sld-compat-tools_${next}-1_amd64.deb" || return 1
	echo "$next" > "$root/usr/local/lib/sld-systest/next"
	apt_root update >>"$log" 2>&1 &&
		apt_root install "sld-compat-dkms=$ver-1" "sld-compat-tools=$ver-1" >>"$log" 2>&1 || return 1
	echo "$ADMIN_LINE" >> "$root$CONF"
	echo "hypervisor_modules = vmmon" > "$root$LOCAL"
}
