#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end test of `sldctl apply` and `sldctl status` against a fake
# /sys, /proc and /etc tree (SLDCTL_ROOT). Run through the wrapper
# config.mk generates, which sets SLDCTL (the ASan/UBSan build).
set -u

: "${SLDCTL:?}"
. "$(dirname "$0")/../lib/unit.sh"
R=$T/root
P=$R/sys/module/sld_compat/parameters
S=$R/sys/kernel/sld_compat
E=$R/etc/sld-compat

capture() {
	SLDCTL_ROOT=$R "$@" > "$T/out" 2> "$T/err"
	RC=$?
}

# A loaded module: two writable knobs, one read-only; status files.
make_tree() {
	rm -rf "$R"
	mkdir -p "$P" "$S/modules" "$R/proc" "$E/conf.d"
	echo Y > "$P/enabled"
	echo 1 > "$P/verbose"
	echo 7 > "$P/frozen"
	chmod 0444 "$P/frozen"
	echo 0.1.0 > "$S/version"
	echo full > "$S/support"
	printf 'kp1 handle_bus_lock armed\nkp2 split_lock_warn armed\n' > "$S/hooks"
	echo none > "$S/degraded"
	echo 'vmmon hypervisor' > "$S/modules/list"
	printf 'processor\t: 0\nflags\t\t: fpu sse split_lock_detect\nprocessor\t: 1\nflags\t\t: fpu\n' \
		> "$R/proc/cpuinfo"
}

# ---- usage ---------------------------------------------------------------------
make_tree
capture "$SLDCTL" --help
expect_grep "$T/out" "apply" "--help lists apply"
expect_grep "$T/out" "status" "--help lists status"
capture "$SLDCTL" apply --bogus
expect_rc 2 "apply: unknown option"
expect_grep "$T/err" "unknown option '--bogus'" "apply: unknown option named"
capture "$SLDCTL" apply --config
expect_rc 2 "apply: --config without FILE"
capture "$SLDCTL" apply extra
expect_rc 2 "apply: stray argument"
capture "$SLDCTL" status --bogus
expect_rc 2 "status: unknown option"
capture "$SLDCTL" status extra
expect_rc 2 "status: stray argument"

# ---- apply: all good ---------------------------------------------------------------
printf '# sld-compat\n\nverbose = 2\nenabled=N\n' > "$E/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 0 "apply: all knobs applied"
is "$(cat "$P/verbose")" 2 "apply: verbose written"
is "$(cat "$P/enabled")" N "apply: enabled written"
expect_grep "$T/out" "sld_compat.verbose = 2 ($E/sld-compat.conf:3)" "apply: reports what it set"

# A read-only /run (here: /run a file, so nothing can be made below it):
# every knob applied, the bookkeeping for the udev rule not. A warning, exit 0.
rm -rf "$R/run"
: > "$R/run"
printf 'verbose = 3\n' > "$E/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 0 "apply: only /run/sld-compat/named-modules failed: exit 0"
is "$(cat "$P/verbose")" 3 "apply: the knob applied although /run is unusable"
expect_grep "$T/err" "warning: cannot record the modules the configuration names" \
	"apply: warns that named-modules could not be recorded"
rm -f "$R/run"
printf '# sld-compat\n\nverbose = 2\nenabled=N\n' > "$E/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 0 "apply: again with a usable /run"
is "$(cat "$T/err")" "" "apply: nothing on stderr"

# ---- apply: nothing configured ---------------------------------------------------------
rm -f "$E/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 0 "apply: no configuration at all"

# ---- apply: drop-ins override in lexical order ---------------------------------------------
make_tree
printf 'verbose = 1\nenabled = Y\n' > "$E/sld-compat.conf"
printf 'verbose = 3\n' > "$E/conf.d/20-late.conf"
printf 'verbose = 0\nenabled = N\n' > "$E/conf.d/10-early.conf"
printf 'verbose = 9\n' > "$E/conf.d/30-ignored.conf.disabled"
capture "$SLDCTL" apply
expect_rc 0 "apply: main file and drop-ins"
is "$(cat "$P/verbose")" 3 "apply: last drop-in wins"
is "$(cat "$P/enabled")" N "apply: earlier drop-in overrides the main file"
expect_grep "$T/out" "sld_compat.verbose = 3 ($E/conf.d/20-late.conf:1)" "apply: names the file in force"

# ---- apply: bad line, unknown knob, read-only knob ---------------------------------------------
make_tree
cat > "$E/sld-compat.conf" <<'CONF'
# line 1
verbose = 2
this line is bad
no_such_knob = 1
frozen = 8
enabled = N
verbose = 3
CONF
capture "$SLDCTL" apply
expect_rc 1 "apply: some lines rejected"
expect_grep "$T/err" "$E/sld-compat.conf:3: missing '='" "apply: bad line with file:line"
expect_grep "$T/err" "$E/sld-compat.conf:4: sld_compat has no knob 'no_such_knob'" "apply: unknown knob with file:line"
expect_grep "$T/err" "$E/sld-compat.conf:5: sld_compat.frozen is read-only" "apply: read-only knob with file:line"
expect_grep "$T/err" "$E/sld-compat.conf:7: duplicate key 'verbose' (already set at line 2)" "apply: duplicate key"
is "$(cat "$P/verbose")" 2 "apply: first verbose applied, duplicate skipped"
is "$(cat "$P/enabled")" N "apply: lines after errors still applied"
is "$(cat "$P/frozen")" 7 "apply: read-only knob untouched"

# A knob that is a directory cannot be written either.
make_tree
mkdir "$P/weird"
printf 'weird = 1\n' > "$E/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 1 "apply: knob that is not a file"

# ---- apply --config and --dry-run ---------------------------------------------------------------
make_tree
printf 'verbose = 3\n' > "$E/sld-compat.conf"
printf 'verbose = 0\n' > "$T/other.conf"
capture "$SLDCTL" apply --config "$T/other.conf"
expect_rc 0 "apply --config FILE"
is "$(cat "$P/verbose")" 0 "apply --config: only that file is used"
capture "$SLDCTL" apply --config "$T/missing.conf"
expect_rc 2 "apply --config with a missing file"
expect_grep "$T/err" "$T/missing.conf: cannot read" "apply --config: missing file named"

make_tree
printf 'verbose = 3\nnope = 1\n' > "$E/sld-compat.conf"
capture "$SLDCTL" apply --dry-run
expect_rc 1 "apply --dry-run reports the unknown knob"
is "$(cat "$P/verbose")" 1 "apply --dry-run writes nothing"
expect_grep "$T/out" "would set sld_compat.verbose = 3" "apply --dry-run says what it would do"
expect_grep "$T/err" "sld-compat.conf:2: sld_compat has no knob 'nope'" "apply --dry-run checks knob names"

# ---- module not loaded --------------------------------------------------------------------------
make_tree
rm -rf "$R/sys/module/sld_compat"
printf 'verbose = 3\n' > "$E/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 2 "apply: module not loaded"
expect_grep "$T/err" "sld_compat is not loaded" "apply: says the module is not loaded"
capture "$SLDCTL" apply --dry-run
expect_rc 0 "apply --dry-run without the module checks the files only"
expect_grep "$T/out" "would set sld_compat.verbose = 3" "apply --dry-run without the module"

# ---- status ------------------------------------------------------------------------------------
# The layout the module really has (src/status/status.c, the SLD_KNOB()s, the
# /proc files; captured from sld_compat 0.1.0 in a 2-CPU VM): a hypervisor
# task of fx_hv, an exempt one, two more not listed. Counters have
# distinct values, so a value shown twice is seen.
make_status_tree() {
	rm -rf "$R"
	mkdir -p "$P" "$S" "$R/proc/sys/kernel"
	for kv in on_hypervisor=protect enabled=Y verbose=1 exempt_proactive=N \
		trust_sld_safe=Y max_tasks=1024 tasks_per_uid=512 safe_modules=- \
		hypervisor_modules=- exempt_comm=vmtest exempt_path=- exempt_cgroup=-; do
		echo "${kv#*=}" > "$P/${kv%%=*}"
	done
	echo 1 > "$R/sys/module/sld_compat/refcnt"
	echo 0.1.0 > "$S/version"
	echo full > "$S/support"
	echo warn > "$S/sld_mode"
	echo 1 > "$S/split_lock_mitigate"
	echo 1 > "$S/cpu_split_lock_detect"
	echo 0 > "$S/cpu_bus_lock_detect"
	printf '%s present\n' handle_user_split_lock handle_guest_split_lock \
		split_lock_warn __split_lock_reenable __split_lock_reenable_unlock \
		splitlock_cpu_offline > "$S/kernel_code"
	printf 'modscan module_finalize armed\ntask-start schedule_tail idle\nac-user handle_user_split_lock armed\n' > "$S/hooks"
	echo none > "$S/degraded"
	{
		printf 'ac_user_handled 7001\nac_guest_handled 7002\nac_user_passed 7003\nac_guest_passed 7004\nac_not_protected 7005\nac_sld_cleared 7006\nac_handed_back 7007\n'
		printf 'tasks_live 4\ntasks_exempt 7009\ntasks_pinning 7010\ntasks_protected 7011\ntasks_exited 7012\ntasks_exec_dropped 7013\ntasks_detached 7014\ntasks_proactive 7015\n'
		printf 'tasks_protected_comm 7016\ntasks_protected_path 7017\ntasks_protected_cgroup 7018\ntasks_protected_hypervisor 7019\n'
		printf 'tasks_refused 7020\ntasks_refused_off 7021\ntasks_refused_full 7022\ntasks_refused_cap 7023\ntasks_refused_growing 7024\n'
		printf 'tasks_max 1024\ntasks_per_uid 512\ntasks_capacity 7025\ntasks_record_bytes 7026\ntasks_grow_failed 7027\n'
		printf 'key_held 7028\nready 7029\nsched_calls 7030\nsched_handovers 7031\n'
	} > "$S/ac"
	printf '894 sldhv why=hypervisor hv=fx_hv cpu=1 running=1 switches=7032 ac_user=0 ac_guest=0\n895 vm\001test why=exempt-comm hv=- cpu=0 running=0 switches=7033 ac_user=0 ac_guest=0\n... 2 more\n' > "$S/tasks"
	echo 'fx_hv tasks=1' > "$S/in_use"
	echo 'fx_hv state=hooked via=learned entry=fx_hv_ioctl tasks=1 ac_user=7034 ac_guest=7035' > "$S/hypervisors"
	printf 'bracket_refused 7036\nbracket_unbalanced 7037\n' > "$S/vendor"
	echo 0 > "$S/disable_count"
	# The aggregate: every value above again, for people who cat it.
	for f in version support sld_mode ac tasks; do
		printf '%s:\n' "$f"; sed 's/^/  /' "$S/$f"
	done > "$S/status"
	printf 'fx_hv hypervisor vmx-text vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@.text+0x205 guest_calls=7038 scan_us=1515 atomic_ns=116880 flags=sections,init-scanned,modinfo,watched,loaded\nfx_clean clean none vmx=0 svm=0 cr=0 dr=0 first=- guest_calls=0 scan_us=12 atomic_ns=900 flags=sections,init-scanned,no-modinfo,loaded\n' > "$R/proc/sld_compat_modules"
	printf 'cpu0 core=0.0 hold=0 task=0 bracket=0 sld=on toggles_off=7039 toggles_on=0 msr_writes=0 msr_skipped=0 reasserts=0 brackets=0\ncpu1 core=0.1 hold=0 task=0 bracket=0 sld=on toggles_off=7040 toggles_on=0 msr_writes=0 msr_skipped=0 reasserts=0 brackets=0\n' > "$R/proc/sld_compat_account"
	echo 1 > "$R/proc/sys/kernel/split_lock_mitigate"
	printf 'processor\t: 0\nflags\t\t: fpu sse split_lock_detect\nprocessor\t: 1\nflags\t\t: fpu\n' \
		> "$R/proc/cpuinfo"
}

# line_of PATTERN: the number of the first line of $T/out holding it (0: none).
line_of() { grep -nF -- "$1" "$T/out" | head -1 | cut -d: -f1 | grep . || echo 0; }

make_status_tree
capture "$SLDCTL" status
expect_rc 0 "status: module loaded"
is "$(head -1 "$T/out")" "sld_compat: loaded, version 0.1.0" "status: first line says loaded, and the version"
expect_grep "$T/out" "sld_compat mode: on_hypervisor=protect enabled=Y" "status: mode of sld_compat"
expect_grep "$T/out" "support: full" "status: what the machine supports"
expect_grep "$T/out" "degraded: none" "status: nothing degraded"
expect_grep "$T/out" "cpu: split_lock_detect yes, bus_lock_detect no" "status: CPU flags from the first flags line"
expect_grep "$T/out" "kernel: split-lock mode warn (from sld_compat), split_lock_mitigate 1" "status: the kernel's mode and mitigate"
expect_grep "$T/out" "protected tasks: 4 (hypervisor 1, comm 1, path 0, cgroup 0, sldctl run 0, 2 not listed)" \
	"status: tasks protected now, by rule"
expect_grep "$T/out" "  fx_hv: hypervisor (vmx-text), hooked via learned, entry fx_hv_ioctl, 1 task, #AC user 7034 guest 7035" \
	"status: the hypervisor loaded, its verdict and watch"
expect_no_grep "$T/out" "fx_clean" "status: a clean module is not a hypervisor"
expect_grep "$T/out" "#AC handled: 7001 user, 7002 guest" "status: #AC handled"
expect_grep "$T/out" "modules holding SLD off: 0" "status: disable_count"
expect_grep "$T/out" "sld_compat in use: yes, 1 reference: protected tasks of hypervisor fx_hv (1 task)" "status: why it is in use"
# The summary first, the details after.
if [ "$(line_of "protected tasks:")" -gt 0 ] &&
	[ "$(line_of "sld_compat in use:")" -lt "$(line_of "knobs:")" ] &&
	[ "$(line_of "hypervisors:")" -lt "$(line_of "knobs:")" ] &&
	[ "$(line_of "knobs:")" -lt "$(line_of "counters:")" ]; then
	ok "status: summary before the details"
else
	nok "status: summary before the details:"; sed 's/^/#   /' "$T/out"
fi
expect_grep "$T/out" "  verbose: 1" "status: a knob"
expect_grep "$T/out" "  exempt_comm: vmtest" "status: a list knob"
expect_no_grep "$T/out" "  enabled: Y" "status: enabled once, in the summary"
expect_grep "$T/out" '  895 vm\x01test why=exempt-comm hv=- cpu=0' "status: task list, control bytes escaped"
expect_grep "$T/out" "  #AC: user passed on 7003, guest passed on 7004, not protected 7005, SLD cleared 7006, handed back 7007" \
	"status: #AC counters grouped"
expect_grep "$T/out" "  tasks refused: total 7020, off 7021, full 7022, cap 7023, growing 7024" "status: refusals grouped"
expect_grep "$T/out" "  vendor API: brackets refused 7036, brackets unbalanced 7037" "status: vendor counters"
# Each value once: every counter (and max_tasks, in ac as tasks_max too).
dups=
for v in $(seq 7001 7037) 1024 512; do
	case $v in 7008|7038|7039|7040) continue ;; esac
	c=$(grep -o "\\b$v\\b" "$T/out" | wc -l)
	[ "$c" -eq 1 ] || dups="$dups $v:$c"
done
is "$dups" "" "status: each value printed once"
expect_no_grep "$T/out" "tasks_live" "status: the aggregate status file is not printed"
expect_no_grep "$T/out" "present" "status: kernel code only with --verbose"
n=$(wc -l < "$T/out")
if [ "$n" -le 40 ]; then ok "status: $n lines"; else nok "status: $n lines, want at most 40"; fi

expect_no_grep "$T/out" "pending" "status: no pending rule, nothing said"

# A cgroup rule waiting for its cgroup: in the summary, once.
printf 'exempt_cgroup /machine.slice\n' > "$S/exempt_pending"
capture "$SLDCTL" status
expect_rc 0 "status: with a pending rule"
expect_grep "$T/out" "exempt rules pending (cgroup does not exist yet): exempt_cgroup /machine.slice" \
	"status: a rule waiting for its cgroup is shown as pending"
is "$(grep -c "exempt_cgroup /machine.slice" "$T/out")" 1 "status: the pending rule said once"
echo - > "$S/exempt_pending"

capture "$SLDCTL" status --verbose
expect_rc 0 "status --verbose"
expect_grep "$T/out" "    scan: vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@.text+0x205 guest_calls=7038" "status -v: the hypervisor's scan record"
expect_grep "$T/out" "  ac-user handle_user_split_lock armed" "status -v: hooks"
expect_grep "$T/out" "  splitlock_cpu_offline present" "status -v: kernel code"
expect_grep "$T/out" "  cpu1 core=0.1 hold=0 task=0 bracket=0 sld=on toggles_off=7040" "status -v: per-CPU account"
expect_grep "$T/out" "  fx_clean clean none vmx=0" "status -v: other modules seen"
dups=
for v in $(seq 7001 7040) 1024 512; do
	[ "$v" = 7008 ] && continue
	c=$(grep -o "\\b$v\\b" "$T/out" | wc -l)
	[ "$c" -eq 1 ] || dups="$dups $v:$c"
done
is "$dups" "" "status -v: each value printed once"
# JSON holds everything anyway: -v is accepted there and adds nothing.
capture "$SLDCTL" status --json
cp "$T/out" "$T/json-plain"
capture "$SLDCTL" status --verbose --json
expect_rc 0 "status --verbose --json: exit 0, as status --json"
is "$(cat "$T/out")" "$(cat "$T/json-plain")" "status --verbose --json: the same document as --json"
capture "$SLDCTL" status -v --format json
expect_rc 0 "status -v --format json: exit 0"
capture "$SLDCTL" status -v --format prometheus
expect_rc 2 "status -v --format prometheus: usage error"

# New files, knobs and counters appear without code changes.
mkdir -p "$S/modules"
echo 'vmmon hypervisor' > "$S/modules/list"
echo 42 > "$S/account"
printf 'odd\001' > "$S/zz_odd"
echo 3 > "$P/new_knob"
echo 'ac_new_thing 9' >> "$S/ac"
capture "$SLDCTL" status
expect_grep "$T/out" "other files:" "status: unknown files listed"
expect_grep "$T/out" "  zz_odd: odd\\x01" "status: control bytes escaped"
expect_grep "$T/out" "  modules/list: vmmon hypervisor" "status: subdirectory"
expect_grep "$T/out" "  new_knob: 3" "status: unknown knob"
expect_grep "$T/out" "  other: ac_new_thing 9" "status: unknown counter"
capture "$SLDCTL" status --json
expect_rc 0 "status --json"
json_check "status --json shape and values" '
assert doc["cpu"] == {"split_lock_detect": True, "bus_lock_detect": False}, doc["cpu"]
assert doc["loaded"] is True
st = doc["status"]
assert st["version"] == "0.1.0" and st["support"] == "full", st
assert st["hooks"].split("\n")[2] == "ac-user handle_user_split_lock armed", st
assert st["modules/list"] == "vmmon hypervisor", st
assert st["account"] == "42", st
assert st["zz_odd"] == "odd\x01", st
assert st["status"].startswith("version:\n  0.1.0\n"), st
assert list(st) == sorted(st), list(st)
assert doc["knobs"]["enabled"] == "Y" and doc["knobs"]["new_knob"] == "3", doc["knobs"]
assert len(doc["knobs"]) == 13, doc["knobs"]
assert doc["tasks"][2] == "... 2 more", doc["tasks"]
assert doc["errors"] == []
'

# No cpuinfo: flags unknown/null, which is an error.
rm "$R/proc/cpuinfo"
capture "$SLDCTL" status --json
expect_rc 2 "status: unreadable /proc/cpuinfo"
json_check "status --json: unknown cpu flags are null, error listed" '
assert doc["cpu"] == {"split_lock_detect": None, "bus_lock_detect": None}, doc["cpu"]
assert len(doc["errors"]) == 1 and "cpuinfo" in doc["errors"][0], doc["errors"]
'

make_status_tree
rm -rf "$R/sys/module/sld_compat" "$S"
capture "$SLDCTL" status
expect_rc 1 "status: module not loaded"
is "$(cat "$T/out")" "sld_compat: not loaded
cpu: split_lock_detect yes, bus_lock_detect no
kernel: split-lock mode warn (from default), split_lock_mitigate 1" "status: not loaded, and what CPU and kernel do"
capture "$SLDCTL" status --json
expect_rc 1 "status --json: module not loaded"
json_check "status --json: not loaded" '
assert doc["loaded"] is False and doc["status"] == {} and doc["knobs"] == {}, doc
assert doc["cpu"]["split_lock_detect"] is True
'

# The shipped examples (packaging/conf.d/*.conf.example), once enabled,
# are configurations sldctl accepts: every line valid, every knob known.
make_tree
rm -rf "$R/sys/module/sld_compat" "$S"
for ex in "$(dirname "$0")"/../../packaging/conf.d/*.conf.example; do
	capture "$SLDCTL" apply --config "$ex" --dry-run
	expect_rc 0 "example $(basename "$ex"): accepted as it is"
	expect_no_grep "$T/err" "." "example $(basename "$ex"): no complaint"
done

tap_done
