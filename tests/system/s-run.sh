# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario run (issue #30): both packages, Debian's gamemode, and the
# shipped run-allow example enabled (run_allow = @games) before the first
# boot; users gamer (in games) and other (not), each with a lingering user
# manager (`loginctl enable-linger`). In the booted system: gamer's
# `sldctl run sldrun tree` and its forked child and a thread started 5 s
# later pay no penalty (< 1 ms per split lock, 30 ms apart) while the same
# program outside pays the kernel's; `gamemoderun sldctl run` works; other
# is refused with exit 2; nothing stays relieved after the run. Root may
# always: with run_allow cleared, root's own `sldctl run` (a scope of the
# system manager below system.slice) is relieved all the same, and other
# is still refused.
# Guest part first, host part after the marker.

# as USER CMD...: CMD as USER with the user manager's runtime dir and a
# user's login PATH (Debian's /etc/profile: no sbin, /usr/games where
# gamemoderun is) plus the test's own bin: users call /usr/sbin/sldctl by
# its path, as README says.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env XDG_RUNTIME_DIR="/run/user/$(id -u "$u")" \
		PATH="$D/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games" "$@"
}

# means OUT: "main|child|thread mean_us" of `sldrun tree` output OUT.
means() { echo "$1" | sed -n 's/^\([a-z]*\) done=[0-9]* sigbus=0 mean_us=\([0-9]*\)$/\1 \2/p' | sort; }
# all_below OUT US / all_above OUT US: three lines, each under / over US.
all_below() { [ "$(means "$1" | awk -v l="$2" '$2 < l' | wc -l)" = 3 ]; }
all_above() { [ "$(means "$1" | awk -v l="$2" '$2 > l' | wc -l)" = 3 ]; }

# wait_manager USER: its user manager is up (linger starts it at boot).
wait_manager() {
	local _
	for _ in $(seq 60); do
		[ "$(systemctl is-active "user@$(id -u "$1").service")" = active ] &&
			[ -S "/run/user/$(id -u "$1")/systemd/private" ] && return 0
		sleep 1
	done
	return 1
}

# relieved_run WHO RC OUT ERR: a finished `sldctl run sldrun tree` of WHO
# (exit status RC, its stdout and stderr files) exited with sldrun's
# status, every one of its three under 1 ms per split lock, and the kernel
# log names its scope.
relieved_run() {
	local out
	out=$(cat "$3")
	diag "$1's sldctl run: $(echo "$out" | tr '\n' ';') $(tr '\n' ';' < "$4")"
	is "$2" 0 "$t: $1's sldctl run exited with sldrun's status"
	run "$t: $1's sldctl run: the process, its forked child and a thread started 5 s later each < 1 ms per split lock" \
		all_below "$out" 1000
	like "$(jk | grep 'protecting sldrun\[' | tail -n 1)" \
		'^sld_compat: protecting sldrun\[[0-9]+\]: sldctl run sld-run-sldrun-[0-9]+\.scope$' \
		"$t: $1's run: the kernel log names its scope"
}

boot1() {
	local t="run" out n
	loaded_at_boot "$t"
	no_failed_units "$t"
	is "$(cat /sys/module/sld_compat/parameters/run_allow)" "@$(getent group games | cut -d: -f3)" \
		"$t: run_allow = @games applied at boot, as the games gid"
	run "$t: gamer's user manager runs (linger)" wait_manager gamer
	run "$t: other's user manager runs (linger)" wait_manager other

	out=$(as gamer sldrun tree 10 200 2>&1)
	diag "outside sldctl run: $(echo "$out" | tr '\n' ';')"
	run "$t: gamer's sldrun outside sldctl run pays the kernel's penalty (> 5 ms per lock)" \
		all_above "$out" 5000

	n=$(jk | grep -c 'sldrun/[0-9]* took a split_lock trap')
	as gamer /usr/sbin/sldctl run sldrun tree 10 5000 > "$V/run.out" 2> "$V/run.err" &
	sleep 3
	out=$(cat "$S/runs")
	diag "runs during the run: $out"
	like "$out" "^$(id -u gamer) sldrun scope=sld-run-sldrun-[0-9]+\\.scope since=[0-9]+ tasks=[0-9]+ ac=0" \
		"$t: the runs file names user, command, scope"
	like "$(sldctl status)" 'sldctl runs' "$t: sldctl status lists the run"
	wait $!
	relieved_run gamer $? "$V/run.out" "$V/run.err"
	is "$(jk | grep -c 'sldrun/[0-9]* took a split_lock trap')" "$n" "$t: ... no trap of them in the kernel log"
	is "$(cat "$S/runs")" none "$t: after the run: no run left"
	is "$(grep -c ' why=run ' "$S/tasks")" 0 "$t: ... and no task relieved"
	like "$(sldctl status --format prometheus)" 'sld_compat_task_events_total\{event="protected_run"\} [1-9]' \
		"$t: prometheus counts the run's tasks"

	out=$(as gamer gamemoderun /usr/sbin/sldctl run sldrun tree 10 200 2>&1)
	diag "gamemoderun sldctl run: $(echo "$out" | tr '\n' ';')"
	run "$t: gamemoderun sldctl run: all three < 1 ms per split lock" all_below "$out" 1000

	as other /usr/sbin/sldctl run touch /tmp/other-started > "$V/other.out" 2>&1
	is "$?" 2 "$t: other (not in games): sldctl run exits 2"
	like "$(cat "$V/other.out")" "uid $(id -u other) is not allowed relief" "$t: ... saying why"
	run "$t: ... and started nothing" test ! -e /tmp/other-started

	echo - > /sys/module/sld_compat/parameters/run_allow
	is "$(cat /sys/module/sld_compat/parameters/run_allow)" - "$t: run_allow cleared (root may always)"
	sldctl run sldrun tree 10 5000 > "$V/root.out" 2> "$V/root.err"
	relieved_run root $? "$V/root.out" "$V/root.err"
	like "$(jk | grep -c "root's first sldctl run: runs armed until unload")" '^[1-9]' \
		"$t: ... root's first run armed runs"
	as other /usr/sbin/sldctl run touch /tmp/other-started > "$V/other.out" 2>&1
	is "$?" 2 "$t: run_allow empty: other's sldctl run still exits 2"
	run "$t: ... and started nothing" test ! -e /tmp/other-started
	no_failed_units "$t: at the end"
	touch "$V/done"
}

# --- host ---
# shellcheck disable=SC2154 # $log, $root: system.sh's
# libpam-systemd: the user manager's PAM session, on every desktop; Debian
# 12's minimal root lacks it and user@UID.service fails there without it
# ("$XDG_RUNTIME_DIR is not set").
setup() {
	apt_root install sld-compat-dkms gamemode libpam-systemd >>"$log" 2>&1 &&
		cp "$root/etc/sld-compat/conf.d/run-allow.conf.example" \
			"$root/etc/sld-compat/conf.d/run-allow.conf" &&
		cp build/vmbin/sldrun "$root/usr/local/lib/sld-systest/bin/" &&
		in_root useradd -m -G games gamer >>"$log" 2>&1 &&
		in_root useradd -m other >>"$log" 2>&1 &&
		mkdir -p "$root/var/lib/systemd/linger" &&
		touch "$root/var/lib/systemd/linger/gamer" "$root/var/lib/systemd/linger/other"
}
