#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end test of `sldctl run` against a fake /sys and /proc tree
# (SLDCTL_ROOT) and a stand-in systemd-run on a PATH of our own: bad
# input, refusals and --anyway start nothing or start CMD as documented;
# the scope asked of systemd-run and the check once in it. The scope and
# the relief themselves need systemd and the module: tests/vm/t/60-run.sh
# and tests/system/s-run.sh. Run through the wrapper runcmd.mk generates,
# which sets SLDCTL (the ASan/UBSan build).
set -u

: "${SLDCTL:?}"
. "$(dirname "$0")/../lib/unit.sh"
R=$T/root
P=$R/sys/module/sld_compat/parameters
BIN=$T/bin
STARTED=$T/started

capture() {
	rm -f "$STARTED"
	SLDCTL_ROOT=$R PATH=$BIN "$@" > "$T/out" 2> "$T/err"
	RC=$?
}
expect_grep() {	# FILE PATTERN WHAT
	if grep -q -- "$2" "$1"; then ok "$3"; else nok "$3"; sed 's/^/#   /' "$1"; fi
}
started() {	# yes|no WHAT
	if [ -e "$STARTED" ]; then _s=yes; else _s=no; fi
	is "$_s" "$1" "$2"
}

# The commands CMD may be: touch (records that it started), sh, false.
mkdir -p "$BIN" "$R/proc/self"
for c in touch sh false; do ln -s "$(which $c)" "$BIN/$c"; done
# A stand-in systemd-run: records its arguments, puts "us" in the cgroup
# SDRUN_CG names (default the unit's scope below system.slice) as
# /proc/self/cgroup reads, and runs what follows "--".
cat > "$T/systemd-run" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" > "$SDRUN_ARGS"
unit=
while [ "$1" != -- ]; do
	case $1 in --unit=*) unit=${1#--unit=} ;; esac
	shift
done
shift
printf '0::%s\n' "${SDRUN_CG:-/system.slice/$unit.scope}" > "$SLDCTL_ROOT/proc/self/cgroup"
exec "$@"
EOF
chmod +x "$T/systemd-run"
export SDRUN_ARGS="$T/sdrun.args"
loaded() { mkdir -p "$P"; echo "$1" > "$P/run_allow"; }
with_systemd_run() { ln -sf "$T/systemd-run" "$BIN/systemd-run"; }

# ---- bad input: exit 2, nothing started ----------------------------------------
loaded 0
with_systemd_run
capture "$SLDCTL" run
expect_rc 2 "no CMD"
expect_grep "$T/err" "sldctl run: missing CMD" "no CMD: said"
expect_grep "$T/err" "usage: sldctl run \[--anyway\] \[--\] CMD" "no CMD: usage"
capture "$SLDCTL" run --bogus touch "$STARTED"
expect_rc 2 "unknown option"
expect_grep "$T/err" "unknown option '--bogus'" "unknown option named"
started no "unknown option: nothing started"
capture "$SLDCTL" run --anyway --anyway touch "$STARTED"
expect_rc 2 "--anyway twice"
started no "--anyway twice: nothing started"
capture "$SLDCTL" run --json touch "$STARTED"
expect_rc 2 "--json"
started no "--json: nothing started"
capture "$SLDCTL" run no-such-command-sldtest
expect_rc 2 "a command not on PATH"
expect_grep "$T/err" "'no-such-command-sldtest': no such command" "a command not on PATH: said"
capture "$SLDCTL" run --anyway "$T/absent"
expect_rc 2 "a path that does not exist, --anyway or not"
capture "$SLDCTL" run "$T"
expect_rc 2 "a directory"
printf 'x\n' > "$T/noexec"
capture "$SLDCTL" run "$T/noexec"
expect_rc 2 "a file without execute permission"
is "$(test -e "$SDRUN_ARGS" && echo asked || echo not)" not "systemd-run never asked for bad input"

# ---- CMD's options are CMD's ----------------------------------------------------------
capture "$SLDCTL" run sh -c 'exit 3' --bogus
expect_rc 3 "options after CMD go to CMD, its exit status is run's"
# shellcheck disable=SC2016 # $0 is the inner sh's
capture "$SLDCTL" run -- sh -c 'touch "$0"' "$STARTED"
expect_rc 0 "-- before CMD"
started yes "-- before CMD: started"
capture "$SLDCTL" run false
expect_rc 1 "CMD's failure is run's exit status"

# ---- the scope asked for, and the check once in it ------------------------------
capture "$SLDCTL" run touch "$STARTED"
expect_rc 0 "root, run_allow 0: started through systemd-run"
started yes "root: CMD started"
is "$(sed -n '1,6p' "$SDRUN_ARGS" | tr '\n' ' ')" \
	"--slice=system.slice --scope --quiet --collect --unit=$(sed -n 's/^--unit=//p' "$SDRUN_ARGS") -- " \
	"root: a transient scope of the system manager below system.slice"
like "$(sed -n 's/^--unit=//p' "$SDRUN_ARGS")" '^sld-run-touch-[0-9]+$' "the unit is sld-run-CMD-PID"
is "$(sed -n '8,9p' "$SDRUN_ARGS" | tr '\n' ' ')" "run --in-scope " "systemd-run starts sldctl run --in-scope"
is "$(tail -3 "$SDRUN_ARGS" | tr '\n' ' ')" "-- $BIN/touch $STARTED " "then CMD by its path, with its arguments"
SDRUN_CG=/system.slice/other.scope capture "$SLDCTL" run touch "$STARTED"
expect_rc 2 "not in the asked scope: refused"
expect_grep "$T/err" "did not start us in sld-run-touch-[0-9]*\.scope" "not in the scope: said"
started no "not in the scope: nothing started"
SDRUN_CG=/system.slice/other.scope capture "$SLDCTL" run --anyway touch "$STARTED"
expect_rc 0 "not in the scope, --anyway: started"
expect_grep "$T/err" "warning: .*without relief (--anyway)" "--anyway: warned"
started yes "not in the scope, --anyway: CMD started"
SDRUN_CG=/system.slice/sld-run-touch-1.scope.x capture "$SLDCTL" run touch "$STARTED"
started no "a cgroup that only begins like the scope: refused"

# ---- relief cannot be set up ------------------------------------------------------------
rm -f "$BIN/systemd-run"
capture "$SLDCTL" run touch "$STARTED"
expect_rc 2 "no systemd-run"
expect_grep "$T/err" "no systemd-run on PATH" "no systemd-run: said"
started no "no systemd-run: nothing started"
capture "$SLDCTL" run --anyway touch "$STARTED"
expect_rc 0 "no systemd-run, --anyway"
started yes "no systemd-run, --anyway: CMD started"
with_systemd_run
rm -rf "$R/sys"
capture "$SLDCTL" run touch "$STARTED"
expect_rc 2 "module not loaded"
expect_grep "$T/err" "sld_compat is not loaded; 'touch' not started (--anyway starts it without relief)" \
	"module not loaded: said"
started no "module not loaded: nothing started"
capture "$SLDCTL" run --anyway touch "$STARTED"
expect_rc 0 "module not loaded, --anyway"
expect_grep "$T/err" "warning: sld_compat is not loaded; starting 'touch' without relief" \
	"module not loaded, --anyway: warned"
started yes "module not loaded, --anyway: CMD started"

# ---- who is allowed -----------------------------------------------------------------------
# Root always, run_allow empty or not; the module arms runs at root's
# first one, and sldctl waits in the scope until task-clone (or, where
# the module could not place it, task-start) is not idle.
S=$R/sys/kernel/sld_compat
hooks() {	# hooks START [CLONE]: a status without a task-clone line, or with
	mkdir -p "$S"
	printf 'exec setup_new_exec armed\n%btask-start schedule_tail %s\n' \
		"${2:+task-clone wake_up_new_task $2\n}" "$1" > "$S/hooks"
}
loaded -
capture "$SLDCTL" run touch "$STARTED"
expect_rc 0 "run_allow empty: root started in its scope (no hooks status: no wait)"
started yes "run_allow empty, root: CMD started"
hooks armed
capture "$SLDCTL" run touch "$STARTED"
expect_rc 0 "run_allow empty: root, runs armed: started"
started yes "root, runs armed: CMD started"
hooks idle armed
capture "$SLDCTL" run touch "$STARTED"
expect_rc 0 "root, runs armed (the clone probe; task-start idle): started"
started yes "root, clone probe armed: CMD started"
hooks idle idle
capture "$SLDCTL" run touch "$STARTED"
expect_rc 2 "root, task-clone and task-start idle: relief cannot be set up"
started no "clone probe idle: nothing started"
hooks armed failed
capture "$SLDCTL" run touch "$STARTED"
expect_rc 0 "root, no clone probe, task-start armed: started"
started yes "no clone probe, task-start armed: CMD started"
hooks idle
capture "$SLDCTL" run touch "$STARTED"
expect_rc 2 "root, task-start stays idle: relief cannot be set up"
expect_grep "$T/err" "sld_compat did not arm relief for root's run within 2 s" "runs not armed: said"
started no "runs not armed: nothing started"
capture "$SLDCTL" run --anyway touch "$STARTED"
expect_rc 0 "root, runs not armed, --anyway: started"
expect_grep "$T/err" "warning: sld_compat did not arm relief" "runs not armed, --anyway: warned"
started yes "runs not armed, --anyway: CMD started"
# Armed while sldctl waits (the module's work item runs): it goes on.
hooks idle
(sleep 0.3; hooks armed) &
capture "$SLDCTL" run touch "$STARTED"
wait
expect_rc 0 "root, armed after 0.3 s: started"
started yes "armed while waiting: CMD started"
rm -rf "$S"
echo junk > "$P/run_allow"
capture "$SLDCTL" run touch "$STARTED"
expect_rc 2 "an unreadable run_allow: relief cannot be set up"
started no "an unreadable run_allow: nothing started"

# As another user: the sanitizer build and the tree must be theirs to read.
SETPRIV=$(which setpriv)
chmod -R a+rX "$T"
as_nobody() {	# GROUPS CMD...: as uid and gid 65534 with supplementary GROUPS
	if [ -n "$1" ]; then _g=--groups=$1; else _g=--clear-groups; fi
	shift
	rm -f "$STARTED"
	SLDCTL_ROOT=$R PATH=$BIN "$SETPRIV" --reuid=65534 --regid=65534 "$_g" \
		"$@" > "$T/out" 2> "$T/err"
	RC=$?
}
rm -f "$SDRUN_ARGS"
chmod a+w "$T" "$R/proc/self/cgroup"
loaded -
as_nobody "" "$SLDCTL" run touch "$STARTED"
expect_rc 2 "run_allow empty: uid 65534 refused"
expect_grep "$T/err" "uid 65534 is not allowed relief (run_allow = -;" "refusal names uid and list"
started no "refused: nothing started"
as_nobody "" "$SLDCTL" run --anyway touch "$STARTED"
expect_rc 2 "refused even with --anyway"
started no "refused with --anyway: nothing started"
is "$(test -e "$SDRUN_ARGS" && echo asked || echo not)" not "refused: systemd-run never asked"
loaded 1000,@4242
as_nobody "" "$SLDCTL" run touch "$STARTED"
expect_rc 2 "uid 65534, not listed: refused"
expect_grep "$T/err" "uid 65534 is not allowed relief (run_allow = 1000,@4242;" "not listed: said"
started no "not listed: nothing started"
XDG_RUNTIME_DIR='' as_nobody 4242 "$SLDCTL" run touch "$STARTED"
expect_rc 2 "in group 4242, no user manager: relief cannot be set up"
expect_grep "$T/err" "no user manager to ask for a scope" "no user manager: said"
started no "no user manager: nothing started"
mkdir -p "$T/xdg/systemd"
chmod -R a+rwX "$T/xdg"
: > "$T/xdg/bus"
XDG_RUNTIME_DIR=$T/xdg SDRUN_CG=/user.slice/user-65534.slice/user@65534.service/app.slice/x.scope \
	as_nobody 4242 "$SLDCTL" run touch "$STARTED"
expect_rc 2 "in group 4242 with a user manager, scope missed: refused"
expect_grep "$T/err" "did not start us in sld-run-touch-[0-9]*\.scope" "scope missed: said"
is "$(sed -n '1p' "$SDRUN_ARGS")" --user "a user's scope is asked of the user's manager (--user)"
XDG_RUNTIME_DIR=$T/xdg as_nobody 4242 "$SLDCTL" run touch "$STARTED"
expect_rc 0 "in group 4242 with a user manager: started in the scope"
started yes "in group 4242: CMD started"

# ---- sldctl apply: the names of /etc/sld-compat become ids ------------------------
mkdir -p "$R/etc/sld-compat"
loaded -
printf 'run_allow = root,@root,4242\n' > "$R/etc/sld-compat/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 0 "apply run_allow = root,@root,4242"
is "$(cat "$P/run_allow")" "0,@0,4242" "apply: names resolved to the ids the module takes"
loaded -
printf 'run_allow = nosuchuser-sldtest\n' > "$R/etc/sld-compat/sld-compat.conf"
capture "$SLDCTL" apply
expect_rc 1 "apply run_allow = an unknown user"
expect_grep "$T/err" "sld-compat.conf:1: sld_compat.run_allow: no user named 'nosuchuser-sldtest'" \
	"apply: an unknown user named with file and line"
is "$(cat "$P/run_allow")" - "apply: run_allow unchanged"
tap_done
