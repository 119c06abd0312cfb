# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Checks for the booted system (tests/system/run sources this after
# tests/lib/tap.sh and tests/vm/kernel-errors.sh). Each is one or more TAP
# lines; none changes the system unless its name says so.
S=/sys/kernel/sld_compat
VER=$(cat /usr/local/lib/sld-systest/version)

field() { echo "$1" | sed -n "s/.*$2=\([0-9A-Za-z.]*\).*/\1/p"; }
# jk: this boot's kernel log
jk() { journalctl -k -b -q --no-pager -o cat; }
# ac NAME: a counter of the module's ac file.
ac() { sed -n "s/^$1 //p" "$S/ac"; }
# passed: the #ACs the kernel handled itself (no rule matched, or the
# task was refused), as a count to compare before and after.
passed() { echo $(($(ac ac_user_passed) + $(ac ac_not_protected))); }

# no_failed_units TAG: systemctl --failed is empty, the kernel logged no
# error this boot.
no_failed_units() {
	local f
	f=$(systemctl --failed --no-legend --plain --no-pager)
	is "$f" "" "$1: systemctl --failed lists no unit"
	f=$(jk | grep -E "$KERNEL_ERRORS")
	is "$f" "" "$1: no kernel error in this boot's journal"
}

# loaded_at_boot TAG: systemd-modules-load loaded sld_compat (the
# modules-load.d entry), the journal has the module's load line, and any
# hypervisor module udev loaded at boot (kvm_intel on this CPU) loaded
# after it: sld_compat recorded it.
loaded_at_boot() {
	local j hv
	run "$1: sld_compat is loaded" test -d /sys/module/sld_compat
	# systemd-modules-load inserts it, unless a hypervisor module udev
	# loads first (kvm_intel here) pulled it in through its softdep. It
	# runs before journald: its lines come in through the kernel log,
	# with its identifier but not always its unit.
	j=$(journalctl -b -q --no-pager -o cat -t systemd-modules-load)
	diag "systemd-modules-load: $(echo "$j" | grep sld_compat)"
	is "$(systemctl show -P ActiveState systemd-modules-load.service)" active \
		"$1: systemd-modules-load.service succeeded"
	run "$1: sld_compat was inserted by systemd-modules-load or before kvm_intel (softdep)" \
		inserted_at_boot "$j"
	if ! inserted_at_boot "$j"; then
		# Seen once in about ten boots (no line at all): what else was there.
		diag "systemd-modules-load's whole journal: $j"
		diag "$(journalctl -b -q --no-pager -o short-monotonic | grep -E 'sld_compat|modprobe|modules-load|sldctl' | head -n 30)"
	fi
	like "$(jk | grep 'sld_compat: version')" "^sld_compat: version $VER: " \
		"$1: the journal has the module's load line (version $VER)"
	hv=$(boot_hypervisors)
	diag "hypervisor modules udev loads at boot on this CPU: ${hv:-none (no VMX; SVM is used only on an AMD CPU)}"
	for hv in $hv; do
		run "$1: $hv loaded at boot" grep -q "^$hv " /proc/modules
		run "$1: $hv loaded after sld_compat (in /proc/sld_compat_modules)" \
			grep -q "^$hv " /proc/sld_compat_modules
	done
	for hv in vmmon vboxdrv; do
		grep -q "^$hv " /proc/modules || continue
		run "$1: $hv, loaded at boot, loaded after sld_compat (in /proc/sld_compat_modules)" \
			grep -q "^$hv " /proc/sld_compat_modules
	done
}

# boot_hypervisors: the KVM modules udev loads at boot on this CPU, from
# its flags (what the boot's CPU model declares), not from what is
# loaded: a kvm_intel that failed to load is a failure, not a skip.
boot_hypervisors() {
	grep -qw vmx /proc/cpuinfo && echo kvm_intel
	grep -q AuthenticAMD /proc/cpuinfo && grep -qw svm /proc/cpuinfo && echo kvm_amd
	return 0
}

# inserted_at_boot JOURNAL: systemd-modules-load's JOURNAL says it inserted
# sld_compat, or kvm_intel's load was seen by it (loaded before).
inserted_at_boot() {
	echo "$1" | grep -q "Inserted module 'sld_compat'" ||
		grep -q '^kvm_intel ' /proc/sld_compat_modules
}

# doctor_healthy TAG
doctor_healthy() {
	run "$1: sldctl doctor exits 0 (healthy)" sldctl doctor
}

# standin_protected TAG: the stand-in hypervisor (the vmmon fixture,
# modprobe'd now, after boot) and its vCPU task (sldhv acuser: one RUN
# ioctl, then real user split locks): protected, its locks do not pay the
# kernel's penalty and the kernel names it in no trap line; an unprotected
# task beside it does pay (the CPU enforces).
standin_protected() {
	local out
	run "$1: modprobe vmmon (the stand-in hypervisor module) after boot" modprobe vmmon
	run "$1: modprobe actest" modprobe actest
	like "$(grep '^vmmon ' /proc/sld_compat_modules)" '^vmmon ' "$1: sld_compat saw vmmon load"
	rm -f /tmp/standin.stop
	sldhv loop vmmon /tmp/standin.stop > /tmp/standin.out &
	sleep 2
	like "$(grep ' sldhv ' $S/tasks)" 'sldhv why=hypervisor hv=vmmon' \
		"$1: a stand-in vCPU thread (RUN ioctls on /dev/vmmon) is protected ($S/tasks)"
	touch /tmp/standin.stop
	wait
	like "$(cat /tmp/standin.out)" '^runs=[1-9][0-9]* failed=0$' "$1: ... its RUNs all succeeded"
	out=$(sldhv acuser vmmon 20)
	diag "stand-in: $out"
	like "$out" '^handled=20 sigbus=0 ' "$1: a stand-in's 20 user split locks after its RUN all completed, no SIGBUS"
	run "$1: ... without the kernel's penalty (mean $(field "$out" mean_us) us < 1000)" \
		test "$(field "$out" mean_us)" -lt 1000
	is "$(jk | grep -c 'sldhv/[0-9]* took a split_lock trap')" 0 \
		"$1: ... and the kernel logged no trap of it"
	out=$(sldcpu time 3 split 30000)
	diag "unprotected: $out"
	run "$1: an unprotected task pays the kernel's penalty ($(field "$out" per_lock_us) us/lock >= 5000)" \
		test "$(field "$out" per_lock_us)" -ge 5000
	# rmmod, not modprobe -r: that would remove vmmon's softdep sld_compat too.
	rmmod actest vmmon
}

# metrics_timer_quiet TAG: enabled, but inactive without node_exporter's
# directory, its service never started.
metrics_timer_quiet() {
	is "$(systemctl is-enabled sld-compat-metrics.timer)" enabled "$1: the metrics timer is enabled"
	is "$(systemctl show -P ActiveState sld-compat-metrics.timer)" inactive \
		"$1: ... and inactive: no /var/lib/prometheus/node-exporter"
	is "$(systemctl show -P ExecMainStartTimestampMonotonic sld-compat-metrics.service)" 0 \
		"$1: ... its service never ran"
}

# metrics_timer_runs TAG: with node_exporter's directory: the timer is
# active and its service writes sld_compat.prom.
metrics_timer_runs() {
	local f=/var/lib/prometheus/node-exporter/sld_compat.prom
	is "$(systemctl show -P ActiveState sld-compat-metrics.timer)" active \
		"$1: with prometheus-node-exporter: the metrics timer is active"
	run "$1: ... its service writes $f" systemctl start sld-compat-metrics.service
	like "$(grep '^sld_compat_loaded ' $f)" '^sld_compat_loaded 1$' "$1: ... sld_compat_loaded 1"
}

# nothing_left TAG PKG...: dpkg knows none of PKG, no sld_compat anywhere
# on the root filesystem (outside apt's lists and the local repository),
# not loaded, DKMS knows nothing of it.
nothing_left() {
	local t=$1 p s
	shift
	for p; do
		# shellcheck disable=SC2016 # dpkg-query's ${Field}
		s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
		like "${s:-not-installed}" '(^| )not-installed$' "$t: dpkg: $p not installed"
	done
	s=$(find / -xdev \( -path /srv/sld-repo -o -path /var/lib/apt/lists -o -path /var/cache/apt \
		-o -path /usr/local/lib/sld-systest -o -path /var/lib/sld-systest \
		-o -path /usr/local/src \) -prune -o -iname '*sld[-_]compat*' -print)
	is "$s" "" "$t: no path named *sld[-_]compat* on the root filesystem"
	run "$t: sld_compat not loaded" test ! -e /sys/module/sld_compat
	is "$(dkms status 2>&1 | grep -i sld)" "" "$t: dkms status names no sld-compat"
	run "$t: no /etc/sld-compat" test ! -e /etc/sld-compat
}

# newest_kver: the newest kernel version with modules installed.
newest_kver() {
	find /lib/modules -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n1
}

# admin_config_kept TAG: the admin's configuration as the upgrade
# scenarios write it before an upgrade (ADMIN_LINE in CONF, LOCAL naming
# vmmon; the scenario sets all three) kept, no dpkg copies beside it, and
# applied (vmmon named, its named-modules file).
admin_config_kept() {
	run "$1: the admin's line in $CONF kept" grep -qxF "$ADMIN_LINE" "$CONF"
	is "$(cat "$LOCAL")" "hypervisor_modules = vmmon" "$1: $LOCAL kept"
	is "$(find /etc/sld-compat -name '*.dpkg-*' -o -name '*.ucf-*')" "" \
		"$1: no .dpkg-new/.dpkg-dist/.dpkg-old beside it"
	like "$(cat /sys/module/sld_compat/parameters/hypervisor_modules)" '(^|,)vmmon(,|$)' \
		"$1: hypervisor_modules = vmmon applied"
	run "$1: /run/sld-compat/named-modules/vmmon present" test -e /run/sld-compat/named-modules/vmmon
}

# guest_start: the stand-in guest of an upgrade: vmmon and actest loaded,
# a vCPU thread on cpu1 whose 1 ms RUNs do 20 kernel-mode split locks
# each, fatal on this CPU unless its core is protected, 9 ms asleep after
# each (a busy one would take half of TCG's one thread from DKMS: an
# upgrade did not end in 38 minutes beside one); checks it protected, its
# pid in GUEST_PID (a child of this shell: after_upgrade waits for it).
guest_start() {
	run "e: modprobe vmmon, actest" modprobe -a vmmon actest
	rm -f /tmp/guest.stop
	sldhv oncpu 1 sldhv loop vmmon /tmp/guest.stop 20 9000 > /tmp/guest.out &
	sleep 2
	GUEST_PID=$(awk '$2 == "sldhv" && / why=hypervisor hv=vmmon / { print $1 }' "$S/tasks")
	run "e: the stand-in guest's vCPU is protected before the upgrade (pid ${GUEST_PID:-none})" \
		test -n "$GUEST_PID"
}

# after_upgrade OUT PID: apt upgraded both packages from VER to NEXT (OUT
# its output) while guest_start's guest PID ran: DKMS built NEXT for this
# kernel, apt said which module is active, VER still loaded and the guest
# still protected, the scenario's config_kept, a stand-in's user split
# locks relieved, the guest's RUNs all succeeded, no trap, no failed
# unit. Stops the guest and unloads the stand-in's modules.
after_upgrade() {
	# shellcheck disable=SC2016 # dpkg-query's ${Version}
	is "$(dpkg-query -W -f='${Version} ' sld-compat-dkms sld-compat-tools)" "$NEXT-1 $NEXT-1 " \
		"e: both packages at $NEXT-1"
	# stderr apart: bookworm's dkms 3.0.10 adds "echo: write error: Broken pipe".
	is "$(dkms status -m sld-compat -k "$(uname -r)" 2>/dev/null)" \
		"sld-compat/$NEXT, $(uname -r), x86_64: installed" "e: DKMS built and installed $NEXT for $(uname -r)"
	is "$(dkms status -m sld-compat -v "$VER" 2>/dev/null)" "" "e: DKMS keeps no $VER"
	like "$1" "sld_compat $VER stays active until the next boot; $NEXT is active after it" \
		"e: apt's output tells the user the loaded $VER stays active until the next boot"
	is "$(cat /sys/module/sld_compat/version)" "$VER" "e: the loaded module is still $VER"
	like "$(grep "^$2 " "$S/tasks")" "^$2 sldhv why=hypervisor hv=vmmon" \
		"e: the guest's vCPU (pid $2) still protected after the upgrade"
	config_kept "e: after the upgrade"
	local out
	out=$(sldhv acuser vmmon 20)
	diag "a stand-in vCPU after the upgrade: $out"
	like "$out" '^handled=20 sigbus=0 ' "e: a stand-in's 20 user split locks after the upgrade: no SIGBUS"
	run "e: ... without the kernel's penalty (mean $(field "$out" mean_us) us < 1000)" \
		test "$(field "$out" mean_us)" -lt 1000
	touch /tmp/guest.stop
	wait
	like "$(cat /tmp/guest.out)" '^runs=[1-9][0-9]* failed=0$' \
		"e: the guest's RUNs (20 kernel-mode split locks each) all succeeded: $(cat /tmp/guest.out)"
	is "$(jk | grep -c 'sldhv/[0-9]* took a split_lock trap')" 0 "e: the kernel logged no trap of the stand-in"
	no_failed_units "e: after the upgrade"
	# rmmod, not modprobe -r: that would remove vmmon's softdep sld_compat too.
	rmmod actest vmmon
}
