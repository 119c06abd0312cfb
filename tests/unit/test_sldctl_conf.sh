#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end test of `sldctl apply` and `sldctl status` against a fake
# /sys, /proc and /etc tree (SLDCTL_ROOT). Run through the wrapper
# config.mk generates, which sets SLDCTL (the ASan/UBSan build).
set -u

: "${SLDCTL:?}"
. "$(dirname "$0")/tap.sh"
R=$T/root
P=$R/sys/module/sld_compat/parameters
S=$R/sys/kernel/sld_compat
E=$R/etc/sld-compat

run() {
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
run "$SLDCTL" --help
expect_grep "$T/out" "apply" "--help lists apply"
expect_grep "$T/out" "status" "--help lists status"
run "$SLDCTL" apply --bogus
expect_rc 2 "apply: unknown option"
expect_grep "$T/err" "unknown option '--bogus'" "apply: unknown option named"
run "$SLDCTL" apply --config
expect_rc 2 "apply: --config without FILE"
run "$SLDCTL" apply extra
expect_rc 2 "apply: stray argument"
run "$SLDCTL" status --bogus
expect_rc 2 "status: unknown option"
run "$SLDCTL" status extra
expect_rc 2 "status: stray argument"

# ---- apply: all good ---------------------------------------------------------------
printf '# sld-compat\n\nverbose = 2\nenabled=N\n' > "$E/sld-compat.conf"
run "$SLDCTL" apply
expect_rc 0 "apply: all knobs applied"
is "$(cat "$P/verbose")" 2 "apply: verbose written"
is "$(cat "$P/enabled")" N "apply: enabled written"
expect_grep "$T/out" "sld_compat.verbose = 2 ($E/sld-compat.conf:3)" "apply: reports what it set"
is "$(cat "$T/err")" "" "apply: nothing on stderr"

# ---- apply: nothing configured ---------------------------------------------------------
rm -f "$E/sld-compat.conf"
run "$SLDCTL" apply
expect_rc 0 "apply: no configuration at all"

# ---- apply: drop-ins override in lexical order ---------------------------------------------
make_tree
printf 'verbose = 1\nenabled = Y\n' > "$E/sld-compat.conf"
printf 'verbose = 3\n' > "$E/conf.d/20-late.conf"
printf 'verbose = 0\nenabled = N\n' > "$E/conf.d/10-early.conf"
printf 'verbose = 9\n' > "$E/conf.d/30-ignored.conf.disabled"
run "$SLDCTL" apply
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
run "$SLDCTL" apply
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
run "$SLDCTL" apply
expect_rc 1 "apply: knob that is not a file"

# ---- apply --config and --dry-run ---------------------------------------------------------------
make_tree
printf 'verbose = 3\n' > "$E/sld-compat.conf"
printf 'verbose = 0\n' > "$T/other.conf"
run "$SLDCTL" apply --config "$T/other.conf"
expect_rc 0 "apply --config FILE"
is "$(cat "$P/verbose")" 0 "apply --config: only that file is used"
run "$SLDCTL" apply --config "$T/missing.conf"
expect_rc 2 "apply --config with a missing file"
expect_grep "$T/err" "$T/missing.conf: cannot read" "apply --config: missing file named"

make_tree
printf 'verbose = 3\nnope = 1\n' > "$E/sld-compat.conf"
run "$SLDCTL" apply --dry-run
expect_rc 1 "apply --dry-run reports the unknown knob"
is "$(cat "$P/verbose")" 1 "apply --dry-run writes nothing"
expect_grep "$T/out" "would set sld_compat.verbose = 3" "apply --dry-run says what it would do"
expect_grep "$T/err" "sld-compat.conf:2: sld_compat has no knob 'nope'" "apply --dry-run checks knob names"

# ---- module not loaded --------------------------------------------------------------------------
make_tree
rm -rf "$R/sys/module/sld_compat"
printf 'verbose = 3\n' > "$E/sld-compat.conf"
run "$SLDCTL" apply
expect_rc 2 "apply: module not loaded"
expect_grep "$T/err" "sld_compat is not loaded" "apply: says the module is not loaded"
run "$SLDCTL" apply --dry-run
expect_rc 0 "apply --dry-run without the module checks the files only"
expect_grep "$T/out" "would set sld_compat.verbose = 3" "apply --dry-run without the module"

# ---- status ------------------------------------------------------------------------------------
make_tree
run "$SLDCTL" status
expect_rc 0 "status: module loaded"
expect_grep "$T/out" "cpu split_lock_detect: yes" "status: split_lock_detect from the first flags line"
expect_grep "$T/out" "cpu bus_lock_detect: no" "status: bus_lock_detect"
expect_grep "$T/out" "sld_compat: loaded" "status: loaded"
expect_grep "$T/out" "  version: 0.1.0" "status: a status file"
expect_grep "$T/out" "    kp2 split_lock_warn armed" "status: multi-line file indented"
expect_grep "$T/out" "  modules/list: vmmon hypervisor" "status: subdirectory"
expect_grep "$T/out" "  enabled: Y" "status: a knob"

# New files appear without code changes.
echo 42 > "$S/account"
printf 'odd\001' > "$S/zz_odd"
run "$SLDCTL" status --json
expect_rc 0 "status --json"
json_check "status --json shape and values" '
assert doc["cpu"] == {"split_lock_detect": True, "bus_lock_detect": False}, doc["cpu"]
assert doc["loaded"] is True
st = doc["status"]
assert st["version"] == "0.1.0" and st["support"] == "full", st
assert st["hooks"] == "kp1 handle_bus_lock armed\nkp2 split_lock_warn armed", st
assert st["modules/list"] == "vmmon hypervisor", st
assert st["account"] == "42", st
assert st["zz_odd"] == "odd\x01", st
assert list(st) == sorted(st), list(st)
assert doc["knobs"] == {"enabled": "Y", "frozen": "7", "verbose": "1"}, doc["knobs"]
assert doc["errors"] == []
'
run "$SLDCTL" status
expect_grep "$T/out" 'zz_odd: odd\x01' "status: control bytes escaped"

# No cpuinfo: flags unknown/null, which is an error.
rm "$R/proc/cpuinfo"
run "$SLDCTL" status --json
expect_rc 2 "status: unreadable /proc/cpuinfo"
json_check "status --json: unknown cpu flags are null, error listed" '
assert doc["cpu"] == {"split_lock_detect": None, "bus_lock_detect": None}, doc["cpu"]
assert len(doc["errors"]) == 1 and "cpuinfo" in doc["errors"][0], doc["errors"]
'

make_tree
rm -rf "$R/sys/module/sld_compat" "$S"
run "$SLDCTL" status
expect_rc 1 "status: module not loaded"
expect_grep "$T/out" "sld_compat: not loaded" "status: says not loaded"
expect_no_grep "$T/out" "knobs:" "status: no knob section when not loaded"
run "$SLDCTL" status --json
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
	run "$SLDCTL" apply --config "$ex" --dry-run
	expect_rc 0 "example $(basename "$ex"): accepted as it is"
	expect_no_grep "$T/err" "." "example $(basename "$ex"): no complaint"
done

echo "1..$N"
[ "$FAILS" -eq 0 ]
