# Issue #25 item 4: a task released while it is being protected takes no
# hold. exempt_comm is rewritten again and again (each write releases every
# task it protected, then the release's IPI drops the holds of those on a
# CPU) while threads on CPU 1 keep naming themselves into the rule with
# exempt_proactive=Y (each rename protects a new or released record).
# Once a write has returned, no record may say why=released running=1:
# that is a core held off for a task nothing protects, until its next
# switch (unbounded on a nohz_full CPU). Boot with VM_APPEND="isolcpus=1
# nohz_full=1" to run the renames on an isolated CPU; without it they are
# pinned there.
# shellcheck source=SCRIPTDIR/../lib.sh # the VM's /tests is tests/vm
. /tests/lib.sh

secs=4
ensure_loaded
diag "isolated CPUs: '$(cat /sys/devices/system/cpu/isolated 2>/dev/null)', nohz_full: '$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)'"
is "$(knob_w exempt_comm 'spin*')" OK "exempt_comm spin*"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y: protected at rename"
pc=$(ac tasks_protected_comm)
rm -f /tmp/stop /tmp/renames.out /tmp/bad.txt
sldhv oncpu 1 sldtest renames 3 2 spinner /tmp/stop > /tmp/renames.out &
end=$(($(date +%s) + secs))
writes=0 bad=0 released=0
while [ "$(date +%s)" -lt $end ]; do
	# Both match: every write releases and every rename protects again.
	if [ $((writes % 2)) = 0 ]; then r='spin*,zz'; else r='spin*'; fi
	[ "$(knob_w exempt_comm "$r")" = OK ] || break
	writes=$((writes + 1))
	t=$(cat $S/tasks)
	case $t in *why=released*) released=$((released + 1)) ;; esac
	if echo "$t" | grep -q 'why=released hv=[^ ]* cpu=[0-9]* running=1 '; then
		bad=$((bad + 1))
		echo "$t" >> /tmp/bad.txt
	fi
done
touch /tmp/stop
wait
out=$(cat /tmp/renames.out)
threads=$(field "$out" threads)
diag "$writes writes, $released saw released records; renames: $out; protected by comm $(($(ac tasks_protected_comm) - pc))"
if [ "$writes" -ge 5 ]; then ok "exempt_comm rewritten $writes times in $secs s"
else nok "exempt_comm rewritten $writes times in $secs s (want >= 5)"; fi
# Records were released under the renaming threads and protected again:
# more protections than threads.
if [ "${threads:-0}" -ge 10 ] && [ $(($(ac tasks_protected_comm) - pc)) -gt "$threads" ]; then
	ok "$threads threads renamed; released records were protected again"
else
	nok "$threads threads renamed; released records were protected again"
fi
is "$bad" 0 "no write left a released record holding its core (why=released running=1)"
[ "$bad" = 0 ] || diag "$(head -n 20 /tmp/bad.txt)"
rm -f /tmp/stop /tmp/renames.out /tmp/bad.txt
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
balanced "after the release race"
