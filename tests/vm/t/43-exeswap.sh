# Issue #37 item 1: the exempt_path matcher reads a task's executable file;
# since 6.7 a struct file is SLAB_TYPESAFE_BY_RCU, so one read under RCU
# alone may be freed and reused by another open() while the matcher looks
# at it (an oops on a NULL f_inode, from any user who may swap their own
# exe). exeswap (tests/vm/bin) swaps its exe between two files in one
# thread, renames itself in another (each rename runs the matcher:
# exempt_proactive=Y), opens files in a third, for SECS seconds. The
# matcher must hold a counted reference: no oops (the harness fails the
# boot on one), the module still working after it. slowstart.ko stalls
# the matcher's exe_match() 1 ms for exeswap's threads, after the read:
# a build that reads the exe without a reference (and a 200 us wait)
# oopsed at once on 6.12 (the commit says how it was shown).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

SECS=8

ensure_loaded
# A rule that matches none of the exe files: every rename runs the whole
# matcher and nothing is protected.
cp "$(command -v sldcpu)" /tmp/ruled
is "$(knob_w exempt_path /tmp/ruled)" OK "exempt_path: a file none of exeswap's exes is"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y: the matcher runs at every rename"
is "$(grep -E '^task-rename ' $S/hooks | grep -c ' armed')" 1 "the rename probe is armed"
cp "$(command -v exeswap)" /tmp/exeswap
ln -f /tmp/exeswap /tmp/exeswap.link
cp /bin/busybox /tmp/exe-a
cp /bin/busybox /tmp/exe-b
p0=$(ac tasks_protected_path)
run "slowstart.ko stalls exe_match()" insmod /mod/slowstart.ko func=exe_match comm=exeswap ms=1
out=$(/tmp/exeswap $SECS /tmp/exeswap.link /tmp/exe-a /tmp/exe-b 2>&1)
diag "exeswap: $out; matcher stalls $(cat /sys/module/slowstart/parameters/delayed)"
run "the matcher ran, stalled, at renames" [ "$(cat /sys/module/slowstart/parameters/delayed)" -ge 100 ]
rmmod slowstart
like "$out" '^swaps=[1-9][0-9]* renames=[1-9][0-9]* opens=[1-9][0-9]*$' \
	"exeswap swapped its exe, renamed and opened files for ${SECS} s"
is "$(ac tasks_protected_path)" "$p0" "nothing was protected by the rule"
if loaded sld_compat; then ok "sld_compat still loaded"; else nok "sld_compat still loaded"; fi

# The matcher still matches after all that: with exe-a ruled, exeswap's
# renaming thread is protected by the rule once exe-a is its exe.
is "$(knob_w exempt_path /tmp/exe-a)" OK "exempt_path: exe-a"
out=$(/tmp/exeswap 1 /tmp/exeswap.link /tmp/exe-a /tmp/exe-b 2>&1)
like "$out" '^swaps=[1-9]' "exeswap again, now with exe-a ruled"
run "exeswap's threads were protected by exempt_path while exe-a was their exe" \
	[ "$(ac tasks_protected_path)" -gt "$p0" ]
knob_w exempt_path - > /dev/null
knob_w exempt_proactive N > /dev/null
