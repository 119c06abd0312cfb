# sldctl offenders and doctor's offender findings on the kernel's own
# trap lines (issue #41 item 1). The enforcing test CPU raises real
# split-lock #AC and bus-lock #DB traps, and the kernel logs them itself,
# pr_fmt "x86/split lock detection: ":
#	#AC: COMM/PID took a split_lock trap at address: 0xADDR
#	#DB: COMM/PID took a bus_lock trap at address: 0xADDR
# (split_lock_warn() and handle_bus_lock(): intel.c on 6.1 and 6.12,
# bus_lock.c on 7.x; the same text in the three, their mode lines differ).
# COMM is current->comm as the task has it: here copies of sldcpu whose
# file names, so their comm and their exe path, hold a space, a newline,
# an ESC sequence and a literal "\x0a" (a backslash), and a vCPU thread
# that names itself "CPU 1/KVM" (prctl); one task has exited before sldctl
# looks. /dev/kmsg shows a byte outside printable ASCII, and the
# backslash, as \xNN, the escape sldctl shows names with: each check reads
# the kernel's record first (name, pid, time), then compares what sldctl
# made of it, in the text, in --json and in doctor's findings.
#  - Intel model, warn mode (make check's 6.1, 6.1-rt, 6.12; cpu-check's
#    7.x): an #AC line per task (the kernel warns once per task); one
#    more task pinned to cpu0 with IA32_DEBUGCTL bit 2 set there by hand
#    takes the #AC, then a #DB after each of its 3 locks (t-cpu/70).
#  - Where the kernel takes bus locks by #DB (the AMD model from 6.13 on,
#    the Intel model in split_lock_detect=ratelimit:1) or the AMD model
#    on an older kernel (bit 2 set here by hand on both CPUs): a #DB line
#    per lock, no #AC.
#  - Stock TCG: no trap at all; only the synthetic part below runs.
# The kernel rate-limits each of the two lines to 10 in 5 s: the tasks
# start after 5 quiet seconds (7 lines), the last one 5 s later (4 at
# most). The synthetic part writes lines the kernel prints elsewhere
# (fatal and bogus: KVM's guest path) or never (a line cut short) to
# /dev/kmsg itself. No journalctl in the initramfs: /dev/kmsg only, and
# --since TIME is refused. Nothing here needs the module.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

X=/tests/bin/sldctl
E=/tmp/offenders.err
sx() { out=$($X "$@" 2> $E); rc=$?; }
PFX="x86/split lock detection: "
ESC=$(printf '\033')

# kmsg: the kernel's records so far, as /dev/kmsg gives them, up to a
# marker written now. A reader of /dev/kmsg waits for more at its end, so
# cat is stopped once the marker is through (busybox awk cannot read it:
# its reads are shorter than some records, EINVAL).
kmsg() {
	_km=$(($(cat /tmp/offenders.kmsg 2>/dev/null || echo 0) + 1))
	echo $_km > /tmp/offenders.kmsg
	echo "sldtest-kmsg-$_km." > /dev/kmsg
	cat /dev/kmsg > /tmp/offenders.kmsg.out &
	_kc=$!
	wait_for 600 "grep -qF ';sldtest-kmsg-$_km.' /tmp/offenders.kmsg.out"
	kill $_kc 2> /dev/null
	wait $_kc
	sed "/;sldtest-kmsg-$_km\.\$/,\$d" /tmp/offenders.kmsg.out
}
# recs NAME: the kernel's trap records in $K of the task named NAME (as
# /dev/kmsg escapes it), exactly "#AC: NAME/PID took a split_lock trap at
# address: 0xHEX" or "#DB: NAME/PID took a bus_lock trap ...", one
# "AC|DB PID USEC" each.
recs() {
	printf '%s\n' "$K" | NAME=$1 PFX=$PFX awk '{
		i = index($0, ";")
		if (!i)
			next
		split(substr($0, 1, i - 1), h, ",")
		m = substr($0, i + 1)
		p = ENVIRON["PFX"] "#"
		if (substr(m, 1, length(p)) != p)
			next
		m = substr(m, length(p) + 1)
		k = substr(m, 1, 2)
		if (k == "AC")
			t = " took a split_lock trap at address: 0x"
		else if (k == "DB")
			t = " took a bus_lock trap at address: 0x"
		else
			next
		n = k ": " ENVIRON["NAME"] "/"
		if (substr(m, 1, length(n)) != n)
			next
		m = substr(m, length(n) + 1)
		j = index(m, t)
		if (j < 2)
			next
		pid = substr(m, 1, j - 1)
		a = substr(m, j + length(t))
		if (pid ~ /^[0-9]+$/ && a ~ /^[0-9a-f]+$/)
			print k, pid, h[3]
	}'
}
# line_in TEXT LINE: TEXT has LINE, whole, exactly once.
line_in() { [ "$(printf '%s\n' "$1" | L=$2 awk '$0 == ENVIRON["L"]' | grep -c '')" = 1 ]; }
# starts_in TEXT PREFIX: TEXT has exactly one line starting with PREFIX.
starts_in() { [ "$(printf '%s\n' "$1" | L=$2 awk 'index($0, ENVIRON["L"]) == 1' | grep -c '')" = 1 ]; }
# has TEXT STRING: STRING is in TEXT, once.
has() { [ "$(printf '%s\n' "$1" | grep -cF -- "$2")" = 1 ]; }
# block TEXT HEAD: the line of TEXT that is HEAD and the indented lines
# after it (one offender of sldctl offenders).
block() {
	printf '%s\n' "$1" | L=$2 awk '$0 == ENVIRON["L"] { f = 1; print; next }
		f && /^    / { print; next } { f = 0 }'
}
# usec_s USEC: the time as sldctl prints it, "S.UUUUUU".
usec_s() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }

ensure_unloaded
ratelimit=0
grep -q 'split_lock_detect=ratelimit' /proc/cmdline && ratelimit=1
# KIND: what the tasks' split locks raise here, AC or DB; none: nothing.
if [ $CPU_SLD = 1 ] && [ $ratelimit = 0 ]; then KIND=AC
elif [ $CPU_BLD = 1 ]; then KIND=DB
else KIND=none; fi

D="/tmp/off dir"
STOP=/tmp/offenders.stop
LABELS="plain space newline ESC backslash vcpu exited count"
# fname LABEL: the task's file name, so its comm (sldcpu copied there),
# but vcpu: its "vCPU" thread names itself (SLDCPU_VCPU_COMM).
fname() {
	case $1 in
	plain) echo offplain ;;
	space) printf '%s\n' 'off space' ;;
	newline) printf 'off\nline' ;;
	ESC) printf 'off\033[7mesc' ;;
	backslash) printf '%s\n' 'off\x0a' ;;
	vcpu) echo offkvm ;;
	exited) echo offgone ;;
	count) echo offcount ;;
	esac
}
# shown LABEL [file]: its comm (or file name) as /dev/kmsg escapes it,
# which is how sldctl shows a name (\xNN: src/schema/escape.h).
shown() {
	case $1 in
	newline) printf '%s\n' 'off\x0aline' ;;
	ESC) printf '%s\n' 'off\x1b[7mesc' ;;
	backslash) printf '%s\n' 'off\x5cx0a' ;;
	vcpu) if [ "${2:-}" = file ]; then echo offkvm; else echo 'CPU 1/KVM'; fi ;;
	*) fname "$1" ;;
	esac
}
# jsoned LABEL [file]: the same in JSON.
jsoned() {
	case $1 in
	newline) printf '%s\n' 'off\nline' ;;
	ESC) printf '%s\n' 'off\u001b[7mesc' ;;
	backslash) printf '%s\n' 'off\\x0a' ;;
	*) shown "$@" ;;
	esac
}
# want LABEL: "AC DB", the #AC and #DB lines the kernel prints for it.
want() {
	if [ "$1" != count ]; then
		if [ $KIND = AC ]; then echo "1 0"; else echo "0 1"; fi
	elif [ $KIND = DB ]; then echo "0 3"
	elif [ $CPU_BLD = 1 ]; then echo "1 3"
	else echo "1 0"; fi
}
# until_logged LABEL...: until the kernel logged every line each wants
# (60 s at most); $K holds the records then.
until_logged() {
	_w=0
	while [ $_w -lt 120 ]; do
		K=$(kmsg)
		_all=1
		for _l in "$@"; do
			_n=$(want "$_l" | awk '{ print $1 + $2 }')
			[ "$(recs "$(shown "$_l")" | grep -c '')" -ge "$_n" ] || _all=0
		done
		[ $_all = 1 ] && return 0
		sleep 0.5
		_w=$((_w + 1))
	done
	return 1
}

if [ $KIND = none ]; then
	skip "offenders on the kernel's own lines" "$(cat /tests/cpu): no split-lock or bus-lock trap on this CPU"
else
	had_msr=
	! loaded msr || { rmmod msr; had_msr=1; }
	insmod /kmod/msr.ko allow_writes=on
	DEBUGCTL=0x1d9
	bit0=$(sldcpu msr 0 $DEBUGCTL) bit1=$(sldcpu msr 1 $DEBUGCTL)
	if [ $KIND = AC ]; then
		how="the kernel's #AC in warn mode, one line per task"
	elif [ "$bit0 $bit1" = "0x4 0x4" ]; then
		how="the kernel's #DB (it set DEBUGCTL bit 2), one line per lock"
	else
		how="the kernel's #DB, DEBUGCTL bit 2 set by this test (the kernel leaves it off)"
		sldcpu msr 0 $DEBUGCTL 0x4 > /dev/null
		sldcpu msr 1 $DEBUGCTL 0x4 > /dev/null
	fi
	diag "$(cat /tests/cpu), $(uname -r): the tasks' split locks raise $how"
	rm -rf "$D" $STOP
	mkdir -p "$D"
	for l in $LABELS; do cp /tests/bin/sldcpu "$D/$(fname "$l")"; done
	sleep 5.1	# the kernel's trap lines: 10 in 5 s
	# Each a VM's process of two threads whose "vCPU" makes one split
	# lock, then waits for $STOP: alive when sldctl looks; exited's one
	# lock is all it does. One at a time, and (#AC) only once detection
	# is on again on both CPUs: after an #AC the kernel turns it off on
	# that CPU until its re-enable work runs (2 jiffies, late on a busy
	# host), where another task's lock would not trap.
	for l in plain space newline ESC backslash vcpu exited; do
		[ $KIND != AC ] || sld_on_wait 0 1
		case $l in
		vcpu) SLDCPU_VCPU_COMM="CPU 1/KVM" "$D/offkvm" vm 2 1 0 "@$STOP" > /dev/null & ;;
		exited) "$D/offgone" time 1 split 0 > /dev/null & ;;
		*) "$D/$(fname "$l")" vm 2 1 0 "@$STOP" > /dev/null & ;;
		esac
		echo $! > "/tmp/offenders.pid.$l"
		until_logged "$l" || diag "$l: its line was not logged within 60 s"
	done
	gone=$(cat /tmp/offenders.pid.exited)
	wait "$gone"	# reaped: no /proc entry left
	# The count task: 3 locks 30 ms apart. Intel warn mode: on cpu0,
	# with bit 2 set there for it (the #AC first, then the #DB of the
	# redone instruction: t-cpu/70).
	sleep 5.1	# a fresh window of the rate limits
	[ $KIND != AC ] || sld_on_wait 0 1
	if [ $KIND = AC ] && [ $CPU_BLD = 1 ]; then
		sldcpu msr 0 $DEBUGCTL 0x4 > /dev/null
		sldhv oncpu 0 "$D/offcount" vm 2 3 30000 "@$STOP" > /dev/null &
	else
		"$D/offcount" vm 2 3 30000 "@$STOP" > /dev/null &
	fi
	echo $! > /tmp/offenders.pid.count
	until_logged count || diag "the count task's lines were not logged within 60 s"
	[ "$(sldcpu msr 0 $DEBUGCTL)" = "$bit0" ] || sldcpu msr 0 $DEBUGCTL "$bit0" > /dev/null
	[ "$(sldcpu msr 1 $DEBUGCTL)" = "$bit1" ] || sldcpu msr 1 $DEBUGCTL "$bit1" > /dev/null
	K=$(kmsg)
	# The kernel's own lines, as /dev/kmsg gives them (escaped).
	diag "$(printf '%s\n' "$K" | grep -F "$PFX#" | grep -e ': off' -e ': CPU 1/KVM/')"

	sx offenders
	text=$out text_rc=$rc
	sx offenders --json
	json=$out json_rc=$rc
	sx doctor
	doc=$out
	is "$text_rc $json_rc" "1 1" "offenders, --json: offenders found (exit 1)"
	like "$text" "^offenders since boot \\(from /dev/kmsg\\): [0-9]+ task\\(s\\), [0-9]+ trap line\\(s\\), 0 bad line\\(s\\) skipped$" \
		"offenders: every trap line the kernel logged this boot parsed (0 bad lines)"
	like "$json" '"bad_lines": 0,' "offenders --json: 0 bad lines"

	for l in $LABELS; do
		name=$(shown "$l")
		r=$(recs "$name")
		w=$(want "$l")
		wac=${w% *} wdb=${w#* }
		nac=$(printf '%s\n' "$r" | grep -c '^AC ') ndb=$(printf '%s\n' "$r" | grep -c '^DB ')
		pid=$(printf '%s\n' "$r" | cut -d' ' -f2 | sort -u)
		if [ "$nac $ndb" = "$w" ] && [ "$(printf '%s\n' "$pid" | grep -c '')" = 1 ]; then
			ok "kernel: $l: $wac split-lock (AC) and $wdb bus-lock (DB) line(s) as '$name/$pid'"
		else
			nok "kernel: $l: $wac split-lock (AC) and $wdb bus-lock (DB) line(s) of one pid, as '$name/PID'"
			diag "  got $nac #AC, $ndb #DB, pids '$pid'"
			continue
		fi
		# The pid is the task's own: the process, or its "vCPU" thread.
		if [ "$l" = exited ]; then
			is "$pid" "$gone" "kernel: $l: the pid is the process's"
		else
			run "kernel: $l: the pid is the \"vCPU\" thread's of the process started" \
				test -d "/proc/$(cat "/tmp/offenders.pid.$l")/task/$pid"
		fi
		t0=$(usec_s "$(printf '%s\n' "$r" | head -n1 | cut -d' ' -f3)")
		t1=$(usec_s "$(printf '%s\n' "$r" | tail -n1 | cut -d' ' -f3)")
		counts=
		[ "$wac" = 0 ] || counts="$wac split_lock"
		[ "$wdb" = 0 ] || counts="${counts:+$counts, }$wdb bus_lock"
		head="$name/$pid: $counts (first $t0, last $t1)"
		if line_in "$text" "$head"; then ok "offenders: $l: '$head'"; else
			nok "offenders: $l: '$head'"
			diag "  got: $(printf '%s\n' "$text" | grep -F "/$pid: ")"
		fi
		b=$(block "$text" "$head")
		cls=other
		[ "$l" != vcpu ] || cls=kvm-vcpu
		# Its cgroup v2 path as the kernel says (printable here), which
		# sldctl shows; none ("?", null) where no v2 line is there.
		cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup" 2>/dev/null)
		cgj=null
		[ -z "$cg" ] || cgj="\"$cg\""
		if [ "$l" = exited ]; then
			cline="    class: $cls; no longer running"
		else
			cline="    class: $cls; exe $D/$(shown "$l" file); cgroup ${cg:-?}"
		fi
		if line_in "$b" "$cline"; then ok "offenders: $l: '$cline'"; else
			nok "offenders: $l: '$cline'"; diag "  got: $b"; fi
		case $l in
		newline | ESC)
			fix=
			note="    note: its name cannot be an exempt_comm entry (empty, a comma, a space at an end, a leading + or -, or a non-printable byte)" ;;
		space) fix="sldctl exempt add --comm 'off space' --persist" ;;
		backslash) fix="sldctl exempt add --comm 'off\\\\x0a' --persist" ;;
		vcpu) fix="sldctl exempt add --comm 'CPU */KVM' --persist" ;;
		*) fix="sldctl exempt add --comm $name --persist" ;;
		esac
		if [ -n "$fix" ]; then
			if line_in "$b" "    fix: $fix"; then ok "offenders: $l: fix: $fix"; else
				nok "offenders: $l: fix: $fix"; diag "  got: $b"; fi
		elif line_in "$b" "$note"; then ok "offenders: $l: no fix, its name cannot be a rule"; else
			nok "offenders: $l: no fix, its name cannot be a rule"; diag "  got: $b"; fi

		if [ "$l" = exited ]; then
			jl='"alive": false, "exe": null, "cgroup": null'
		else
			jl="\"alive\": true, \"exe\": \"$D/$(jsoned "$l" file)\", \"cgroup\": $cgj"
		fi
		j="{\"comm\": \"$(jsoned "$l")\", \"pid\": $pid, \"class\": \"$cls\", \"counts\": {\"split_lock\": $wac, \"fatal\": 0, \"bogus\": 0, \"bus_lock\": $wdb, \"handled\": 0}, \"first\": \"$t0\", \"last\": \"$t1\", \"sld_compat_rule\": null, $jl,"
		if has "$json" "$j"; then ok "offenders --json: $l: name, pid, class, counts, times, exe"; else
			nok "offenders --json: $l: name, pid, class, counts, times, exe"
			diag "  expected: $j"
			diag "  got: $(printf '%s\n' "$json" | grep -F "\"pid\": $pid,")"
		fi
		dl="[warning] split-lock-offender: $name/$pid ($cls) took $wac split-lock and $wdb bus-lock trap(s) logged since boot (/dev/kmsg)"
		if starts_in "$doc" "$dl"; then ok "doctor: $l: '$dl'"; else
			nok "doctor: $l: '$dl'"
			diag "  got: $(printf '%s\n' "$doc" | grep -F "/$pid (")"
		fi
	done
	# No name adds a line or reaches the terminal raw.
	for w in "offenders:$text" "offenders --json:$json" "doctor:$doc"; do
		is "$(printf '%s\n' "${w#*:}" | grep -c "$ESC")" 0 "${w%%:*}: no raw ESC"
		is "$(printf '%s\n' "${w#*:}" | grep -c '^line/')" 0 "${w%%:*}: the newline's name stays in its line"
	done
	touch $STOP
	wait
	rmmod msr
	[ -z "$had_msr" ] || insmod /kmod/msr.ko
	rm -rf "$D" $STOP /tmp/offenders.pid.*
fi

# ---- synthetic lines: what the kernel prints on paths not taken here ------
# Written to /dev/kmsg in the kernel's format: a VirtualBox EMT's two
# traps, KVM's guest path's fatal and bogus lines, and a line cut short.
kl() { echo "<4>$PFX$*" > /dev/kmsg; }
kl "#AC: EMT-3/187133 took a split_lock trap at address: 0x81b185bf"
kl "#AC: EMT-3/187133 took a split_lock trap at address: 0x81b185c0"
kl "#AC: game.exe/4242 fatal split_lock trap at address: 0x401000"
kl "#AC: vm58/3999 bogus split_lock trap at address: 0x10"
kl "#AC: vm58-cut/12 took a split_lo"

sx offenders
is "$rc" 1 "synthetic: offenders found (exit 1)"
like "$out" "^offenders since boot \\(from /dev/kmsg\\): [0-9]+ task\\(s\\), [0-9]+ trap line\\(s\\), 1 bad line\\(s\\) skipped$" \
	"synthetic: the line cut short is the one bad line"
like "$out" "^EMT-3/187133: 2 split_lock \\(first [0-9]+\\.[0-9]{6}, last [0-9]+\\.[0-9]{6}\\)$" \
	"synthetic: EMT-3's two lines aggregated, first and last time"
like "$out" "^    class: virtualbox-emt; no longer running$" "synthetic: EMT-3 is a VirtualBox EMT"
like "$out" "^game.exe/4242: 1 fatal " "synthetic: fatal split_lock trap"
like "$out" "^vm58/3999: 1 bogus " "synthetic: bogus split_lock trap"
like "$out" "^    caveat: exempt_comm is forgeable: " "synthetic: the trust caveat of --comm"
if echo "$out" | grep -q "vm58-cut"; then nok "synthetic: the truncated line is no task"; else
	ok "synthetic: the truncated line is no task"; fi

sx offenders --json
is "$rc" 1 "synthetic: offenders --json: exit 1"
like "$out" '"source": "/dev/kmsg"' "synthetic: offenders --json: source"
like "$out" '\{"comm": "EMT-3", "pid": 187133, "class": "virtualbox-emt", "counts": \{"split_lock": 2, "fatal": 0, "bogus": 0, "bus_lock": 0, "handled": 0\}' \
	"synthetic: offenders --json: EMT-3's counts and class"
like "$out" '"bad_lines": 1,' "synthetic: offenders --json: the bad line counted"

sx doctor
like "$out" "^\\[warning\\] split-lock-offender: EMT-3/187133 \\(virtualbox-emt\\) took 2 split-lock and 0 bus-lock trap\\(s\\)" \
	"synthetic: doctor: an offender is a finding"
like "$out" "^    fix: sldctl exempt add --comm 'EMT-\\*' --persist$" "synthetic: doctor: with the command"
like "$out" "^\\[info\\] offenders-bad-lines: 1 kernel log line\\(s\\)" "synthetic: doctor: the bad line"

# Bad input: exit 2, nothing on stdout.
for a in "--bogus" "--since" "--since=" "extra" "--since yesterday"; do
	# shellcheck disable=SC2086 # a: "--since yesterday" is two arguments
	sx offenders $a
	is "$rc" 2 "offenders $a: exit 2"
	is "$out" "" "offenders $a: nothing on stdout"
done
like "$(cat $E)" "needs journalctl, which is not installed" "offenders --since TIME without journalctl: says so"
