#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# sldctl status --format prometheus against a fake root: the exposition
# passes `promtool check metrics`, values come from the status files,
# label values are escaped, not loaded still exits 0 with
# sld_compat_loaded 0, bad --format is exit 2 with nothing written. The
# shipped systemd units pass `systemd-analyze verify` and the service's
# command replaces sld_compat.prom atomically.
# Run through the wrapper prom.mk generates (SLDCTL, TOP).
set -u

: "${SLDCTL:?}" "${TOP:?}"
. "$(dirname "$0")/../lib/unit.sh"
# shellcheck source=../lib/pkgs.sh
. "$TOP/tests/lib/pkgs.sh"
ensure_pkgs test_sldctl_prom prometheus systemd >&2 || exit 1

R=$T/root
S=$R/sys/kernel/sld_compat
UNITS=$TOP/packaging/systemd

capture() {
	SLDCTL_ROOT=$R SLDCTL_JOURNALCTL=/nonexistent/journalctl "$@" \
		> "$T/out" 2> "$T/err"
	RC=$?
}

promtool_ok() {	# WHAT
	if promtool check metrics < "$T/out" > "$T/prom" 2>&1; then
		ok "$1"
	else
		nok "$1:"
		sed 's/^/#   /' "$T/prom"
	fi
}

make_tree() {
	rm -rf "$R"
	mkdir -p "$S" "$R/sys/module/sld_compat/parameters" "$R/proc" "$R/dev"
	echo Y > "$R/sys/module/sld_compat/parameters/enabled"
	echo 0.1.0 > "$S/version"
	echo warn > "$S/sld_mode"
	printf 'ac_user_handled 3\nac_guest_handled 1\nac_user_passed 0\nac_guest_passed 0\nac_not_protected 2\nac_sld_cleared 0\nac_handed_back 0\ntasks_live 3\ntasks_exempt 1\ntasks_pinning 1\ntasks_protected 5\ntasks_protected_run 4\ntasks_exited 2\ntasks_refused 0\nsched_calls 100\nsched_handovers 7\n' > "$S/ac"
	printf 'vmmon state=watching via=profile entry=Vmx86_RunVM tasks=2 ac_user=4 ac_guest=1\nbad"hv\\ state=armed via=- entry=- tasks=0 ac_user=0 ac_guest=0\n' > "$S/hypervisors"
	printf '12 CPU 1/KVM why=exempt hv=- cpu=0 running=1 switches=3 ac_user=0 ac_guest=1\n13 vmware-vmx why=hypervisor hv=vmmon cpu=1 running=0 switches=3 ac_user=0 ac_guest=1\n14 vmware-vmx why=hypervisor hv=vmmon cpu=1 running=0 switches=1 ac_user=0 ac_guest=0\n... 3 more\n' > "$S/tasks"
	echo 1 > "$S/disable_count"
	printf 'db_handled 2\ndb_passed 1\ndb_not_protected 0\ndb_policed 19\nsibling_exposures 3\nsibling_exposed_ms 1200\n' > "$S/db"
	printf '1000 game scope=sld-run-game-42.scope since=120 tasks=3 ac=0\n0 x scope=sld-run-x-7.scope since=9 tasks=1 ac=2\n... 1 more task(s)\n' > "$S/runs"
	printf 'processor\t: 0\nflags\t\t: fpu split_lock_detect\n' > "$R/proc/cpuinfo"
	printf 'cpu0 core=0.0 hold=0 task=0 bracket=0 sld=on toggles_off=4 toggles_on=3 msr_writes=7 msr_skipped=0 reasserts=1 brackets=2\ncpu1 core=0.1 hold=0 task=0 bracket=0 sld=on toggles_off=1 toggles_on=1 msr_writes=2 msr_skipped=0 reasserts=0 brackets=0\n' > "$R/proc/sld_compat_account"
	printf 'vmmon hypervisor vmx-text vmx=12 svm=0 cr=1 dr=0 first=x@0x10 guest_calls=9 scan_us=10 atomic_ns=5 flags=sections,loaded\n' > "$R/proc/sld_compat_modules"
	cp "$TOP/tests/fixtures/offenders-kmsg.txt" "$R/dev/kmsg"
}

# ---- loaded ----------------------------------------------------------------
make_tree
capture "$SLDCTL" status --format prometheus
expect_rc 0 "prometheus: module loaded"
promtool_ok "prometheus: promtool check metrics (loaded)"
expect_no_grep "$T/err" "runtime error" "prometheus: no sanitizer report"
for want in \
	'sld_compat_loaded 1' \
	'# TYPE sld_compat_ac_traps_total counter' \
	'sld_compat_ac_traps_total{outcome="user_handled"} 3' \
	'sld_compat_task_events_total{event="protected"} 5' \
	'# TYPE sld_compat_protected_tasks gauge' \
	'sld_compat_protected_tasks 3' \
	'sld_compat_hypervisor_tasks{module="vmmon",state="watching",via="profile"} 2' \
	'sld_compat_hypervisor_ac_traps_total{module="vmmon",context="guest"} 1' \
	'sld_compat_hypervisor_tasks{module="bad\"hv\\",state="armed",via="-"} 0' \
	'sld_compat_protected_tasks_by_class{class="hypervisor",hypervisor="vmmon"} 2' \
	'sld_compat_protected_tasks_by_class{class="exempt",hypervisor="-"} 1' \
	'sld_compat_protected_tasks_by_class{class="unlisted",hypervisor=""} 3' \
	'sld_compat_msr_toggles_total{cpu="0",direction="off"} 4' \
	'sld_compat_msr_toggles_total{cpu="0",direction="on"} 3' \
	'sld_compat_msr_writes_total{cpu="1"} 2' \
	'sld_compat_module_info{module="vmmon",verdict="hypervisor",reason="vmx-text"} 1' \
	'sld_compat_module_guest_calls_total{module="vmmon"} 9' \
	'sld_compat_sld_disable_holders 1' \
	'sld_compat_db_traps_total{outcome="policed"} 19' \
	'# TYPE sld_compat_sibling_exposures_total counter' \
	'sld_compat_sibling_exposures_total 3' \
	'sld_compat_sibling_exposed_seconds_total 1.200' \
	'sld_compat_task_events_total{event="protected_run"} 4' \
	'# TYPE sld_compat_runs gauge' \
	'sld_compat_runs 2' \
	'sld_compat_offenders_log_readable 1' \
	'sld_compat_offender_tasks{class="kvm-vcpu"} 2' \
	'sld_compat_offender_tasks{class="virtualbox-emt"} 1' \
	'sld_compat_info{version="0.1.0",sld_mode="warn"} 1'; do
	expect_grep "$T/out" "$want" "prometheus: $want"
done
expect_no_grep "$T/out" "tasks_refused" "prometheus: the refused sum is not a metric of its own"

# --format json and text are today's outputs.
capture "$SLDCTL" status --json
cp "$T/out" "$T/json1"
capture "$SLDCTL" status --format json
is "$(cmp -s "$T/out" "$T/json1" && echo same)" same "--format json is --json"
capture "$SLDCTL" status
cp "$T/out" "$T/text1"
capture "$SLDCTL" status --format text
is "$(cmp -s "$T/out" "$T/text1" && echo same)" same "--format text is the default"

# Task names come escaped from the module (\xNN): shown as they are, not
# escaped twice; a backslash that is no \xNN (an older module) is escaped.
printf '12 x\\x0awhy=hv x why=exempt-comm hv=- cpu=0 running=1 switches=3 ac_user=0 ac_guest=1\n13 a\\b why=exempt-comm hv=- cpu=0 running=0 switches=1 ac_user=0 ac_guest=0\n' > "$S/tasks"
capture "$SLDCTL" status
expect_grep "$T/out" '  12 x\x0awhy=hv x why=exempt-comm hv=- ' "text: an escaped task name shown as the module escaped it"
expect_grep "$T/out" '  13 a\x5cb why=exempt-comm ' "text: a bare backslash in a task name escaped"
is "$(grep -c '^  1[23] ' "$T/out")" 2 "text: one line per task"
capture "$SLDCTL" status --format prometheus
expect_grep "$T/out" 'sld_compat_protected_tasks_by_class{class="exempt-comm",hypervisor="-"} 2' "prometheus: both tasks by their real class"

# Names a user chose (a newline, ESC, a quote) come escaped from the
# module (\xNN, a scope name's spaces too): a run is one line, shown as
# the module escaped it, counted once; --json carries the line as it is.
printf '1000 g\\x1bx"q scope=sld-run-a\\x0a0\\x20scope=x\\x1b[31m"q.scope since=5 tasks=1 ac=0\n' > "$S/runs"
capture "$SLDCTL" status
expect_grep "$T/out" 'sldctl runs (uid, command, scope, since boot+seconds, tasks now, traps relieved): 1000 g\x1bx"q scope=sld-run-a\x0a0\x20scope=x\x1b[31m"q.scope since=5 tasks=1 ac=0' \
	"text: a run's escaped names shown as the module escaped them"
capture "$SLDCTL" status --json
json_check "--json: the run's line as the module wrote it" "
assert doc['status']['runs'] == '1000 g\\\\x1bx\"q scope=sld-run-a\\\\x0a0\\\\x20scope=x\\\\x1b[31m\"q.scope since=5 tasks=1 ac=0', doc['status']['runs']
"
capture "$SLDCTL" status --format prometheus
expect_grep "$T/out" 'sld_compat_runs 1' "prometheus: that run counted once"
# Raw bytes in a label value (no module name holds them, a file can).
printf 'e\033"q state=a via=- entry=- tasks=1 ac_user=0 ac_guest=0\n' > "$S/hypervisors"
capture "$SLDCTL" status --format prometheus
promtool_ok "prometheus: promtool accepts a label that held ESC and a quote"
expect_grep "$T/out" 'sld_compat_hypervisor_tasks{module="e\\x1b\"q",state="a",via="-"} 1' "prometheus: ESC as \\\\x1b, the quote as \\\""
if grep -q "$(printf '\033')" "$T/out"; then nok "prometheus: no raw ESC"; else ok "prometheus: no raw ESC"; fi
capture "$SLDCTL" status
if grep -q "$(printf '\033')" "$T/out"; then nok "text: no raw ESC"; else ok "text: no raw ESC"; fi
expect_grep "$T/out" 'e\x1b"q' "text: the raw ESC shown as \\x1b"

# A newline in a label value (a module name cannot hold one, a file can).
printf 'x\ny state=a via=- entry=- tasks=1 ac_user=0 ac_guest=0\nvmmon state=a via=- entry=- tasks=1 ac_user=0 ac_guest=0\nvmmon state=b via=- entry=- tasks=2 ac_user=0 ac_guest=0\n' > "$S/hypervisors"
printf 'vm"x hypervisor vmx-text vmx=1 svm=0 cr=0 dr=0 first=- guest_calls=1 scan_us=1 atomic_ns=1 flags=loaded\ntruncated\n' > "$R/proc/sld_compat_modules"
capture "$SLDCTL" status --format prometheus
promtool_ok "prometheus: promtool accepts escaped labels and skipped lines"
expect_grep "$T/out" 'sld_compat_module_info{module="vm\"x",verdict="hypervisor",reason="vmx-text"} 1' "prometheus: double quote escaped"
expect_no_grep "$T/out" 'truncated' "prometheus: a line that does not parse is skipped"
is "$(grep -c '^sld_compat_hypervisor_tasks{module="vmmon"' "$T/out")" 1 \
	"prometheus: a module listed twice is one series (the first)"

# An unreadable status file: counted, exit still 0.
rm "$S/sld_mode"
mkdir "$S/sld_mode"
chmod 000 "$S/ac"
capture "$SLDCTL" status --format prometheus
expect_rc 0 "prometheus: read error still exits 0"
promtool_ok "prometheus: promtool check metrics (read error)"
if [ "$(id -u)" = 0 ]; then	# root reads mode-000 files: sld_mode is the error
	expect_grep "$T/out" "sld_compat_read_errors 0" "prometheus: directory is not a file error"
else
	expect_grep "$T/out" "sld_compat_read_errors 1" "prometheus: unreadable file counted"
fi
expect_no_grep "$T/out" "sld_compat_info{" "prometheus: no info without sld_mode"
chmod 644 "$S/ac"

# ---- not loaded ------------------------------------------------------------
make_tree
rm -rf "$R/sys/module/sld_compat" "$S" "$R/dev/kmsg"
capture "$SLDCTL" status --format prometheus
expect_rc 0 "prometheus: not loaded still exits 0"
promtool_ok "prometheus: promtool check metrics (not loaded)"
expect_grep "$T/out" "sld_compat_loaded 0" "prometheus: sld_compat_loaded 0"
expect_grep "$T/out" "sld_compat_offenders_log_readable 0" "prometheus: unreadable log is a gauge, not a failure"
expect_no_grep "$T/out" "sld_compat_msr" "prometheus: no module metrics when not loaded"

# ---- bad input: exit 2, stdout empty ---------------------------------------
make_tree
for args in "--format yaml" "--format" "--format=" "--json --format prometheus" \
	"--format text --json" "--format prometheus --format text" "--format PROMETHEUS"; do
	# shellcheck disable=SC2086
	capture "$SLDCTL" status $args
	expect_rc 2 "status $args: usage error"
	is "$(wc -c < "$T/out")" 0 "status $args: nothing written"
done
capture "$SLDCTL" status --format yaml
expect_grep "$T/err" "expected text, json or prometheus" "bad --format: says what is accepted"

# ---- systemd units ---------------------------------------------------------
U=$T/units
mkdir -p "$U"
cp "$UNITS/sld-compat-metrics.service" "$UNITS/sld-compat-metrics.timer" "$U/"
if systemd-analyze verify --man=no "$U/sld-compat-metrics.timer" \
	"$U/sld-compat-metrics.service" > "$T/sa" 2>&1 && ! [ -s "$T/sa" ]; then
	ok "systemd-analyze verify: service and timer"
else
	nok "systemd-analyze verify:"
	sed 's/^/#   /' "$T/sa"
fi
if grep -qx 'ConditionPathIsDirectory=/var/lib/prometheus/node-exporter' \
	"$U/sld-compat-metrics.service"; then
	ok "service: conditioned on the textfile directory"
else
	nok "service: no ConditionPathIsDirectory="
fi
if grep -qx 'OnUnitActiveSec=60s' "$U/sld-compat-metrics.timer"; then
	ok "timer: every 60 s"
else
	nok "timer: not every 60 s"
fi

# The service's command, as systemd runs it ($$ -> $), with our sldctl.
cmd=$(sed -n 's/^ExecStart=//p' "$U/sld-compat-metrics.service" |
	sed "s/\\\$\\\$/\$/g; s|/usr/sbin/sldctl|env SLDCTL_ROOT=$R SLDCTL_JOURNALCTL=/nonexistent $SLDCTL|")
D=$T/node-exporter
entries() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' '; }
mkdir -p "$D"
echo old > "$D/sld_compat.prom"
env DIR="$D" sh -c "$cmd" 2> "$T/err"
RC=$?
expect_rc 0 "service command: runs"
cp "$D/sld_compat.prom" "$T/out"
promtool_ok "service command: sld_compat.prom passes promtool"
is "$(entries "$D")" "sld_compat.prom " "service command: no temporary file left"
is "$(stat -c %a "$D/sld_compat.prom")" 644 "service command: readable by node_exporter"
cmd_fail=$(printf '%s' "$cmd" | sed 's/--format prometheus/--format bogus/')
env DIR="$D" sh -c "$cmd_fail" 2> "$T/err"
RC=$?
is "$([ "$RC" -ne 0 ] && echo failed)" failed "service command: a failing sldctl fails the unit"
if cmp -s "$D/sld_compat.prom" "$T/out"; then
	ok "service command: failure keeps the previous file"
else
	nok "service command: previous file replaced on failure"
fi
is "$(entries "$D")" "sld_compat.prom " "service command: no temporary file left on failure"

tap_done
