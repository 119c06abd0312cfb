#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# sldctl offenders against a fake root: the kernel's lines in
# tests/fixtures/offenders-kmsg.txt as /dev/kmsg, live tasks in a fake
# /proc (a libvirt vCPU thread, a plain qemu, a VirtualBox EMT, a Wine
# game, a recycled pid), the journalctl fallback when the ring wrapped,
# --since TIME, doctor's findings, and bad input (exit 2, stdout empty).
# A path rule only for an executable root alone decides (another uid's
# file, a directory a user may write: advice instead), and every name a
# user chose (a path with a newline, ESC and quotes) escaped in the text,
# a shell word in the fix, exact in --json. Needs root (chown).
# Run through the wrapper offenders.mk generates (SLDCTL, FIXTURES).
set -u

: "${SLDCTL:?}" "${FIXTURES:?}"
. "$(dirname "$0")/../lib/unit.sh"

R=$T/root
mkdir -p "$R/dev" "$R/proc"
cp "$FIXTURES/offenders-kmsg.txt" "$R/dev/kmsg"
task() {	# PID COMM TGID PPID EXE CGROUP
	mkdir -p "$R/proc/$1"
	printf '%s\n' "$2" > "$R/proc/$1/comm"
	printf 'Name:\t%s\nTgid:\t%s\nPid:\t%s\nPPid:\t%s\n' "$2" "$3" "$1" "$4" \
		> "$R/proc/$1/status"
	ln -s "$5" "$R/proc/$1/exe"
	printf '0::%s\n' "$6" > "$R/proc/$1/cgroup"
}
task 175479 'CPU 1/KVM' 175400 900 /usr/bin/qemu-system-x86_64 \
	'/machine.slice/machine-qemu\x2d1\x2dwin10.scope/libvirt/vcpu1'
task 175400 qemu-system-x86 175400 900 /usr/bin/qemu-system-x86_64 \
	'/machine.slice/machine-qemu\x2d1\x2dwin10.scope/libvirt/emulator'
task 10167 qemu-system-x86 10167 1 /usr/bin/qemu-system-x86_64 /user.slice/u.scope
task 187133 EMT-3 187100 1 /usr/lib/virtualbox/VirtualBoxVM /user.slice/v.scope
task 187100 VirtualBoxVM 187100 1 /usr/lib/virtualbox/VirtualBoxVM /user.slice/v.scope
task 4242 game.exe 4242 1 /usr/lib/wine/wine64-preloader /user.slice/g.scope
task 77 bash 77 1 /usr/bin/bash /user.slice/b.scope		# pid 77 recycled

# The executables, root's in directories only root may write.
mkdir -p "$R/usr/bin" "$R/usr/lib/virtualbox"
: > "$R/usr/bin/qemu-system-x86_64"
: > "$R/usr/lib/virtualbox/VirtualBoxVM"
chmod 755 "$R" "$R/usr" "$R/usr/bin" "$R/usr/lib" "$R/usr/lib/virtualbox" \
	"$R/usr/bin/qemu-system-x86_64" "$R/usr/lib/virtualbox/VirtualBoxVM"

export SLDCTL_ROOT="$R" SLDCTL_JOURNALCTL=/nonexistent/journalctl

capture "$SLDCTL" offenders
expect_rc 1 "offenders found: exit 1"
expect_grep "$T/out" "offenders since boot (from /dev/kmsg): 8 task(s), 9 trap line(s), 5 bad line(s) skipped" "summary: tasks, lines, bad lines counted"
expect_grep "$T/out" "EMT-3/187133: 2 split_lock (first 51.000123, last 54.000000)" "EMT-3: two traps, first and last time"
expect_grep "$T/out" "class: virtualbox-emt; exe /usr/lib/virtualbox/VirtualBoxVM; cgroup /user.slice/v.scope" "EMT-3: VirtualBox EMT, exe, cgroup"
expect_grep "$T/out" "vmm: VirtualBoxVM/187100" "EMT-3: its VMM process"
expect_grep "$T/out" "fix: sldctl exempt add --path /usr/lib/virtualbox/VirtualBoxVM --persist" "EMT-3: exempt the VMM binary"
expect_grep "$T/out" "fix: sldctl exempt add --cgroup '/machine.slice/machine-qemu\\x2d*.scope' --persist" \
	"libvirt vCPU: exempt every libvirt VM's scope, which outlives the VM run"
expect_no_grep "$T/out" "exempt add --cgroup /machine.slice " "libvirt vCPU: not the whole slice (containers run there too)"
expect_no_grep "$T/out" "exempt add --cgroup '/machine.slice/machine-qemu\\x2d1" "libvirt vCPU: not its per-run scope"
expect_grep "$T/out" "fix: sldctl exempt add --path /usr/bin/qemu-system-x86_64 --persist" "plain qemu: exempt the binary"
expect_grep "$T/out" "game.exe/4242: 1 fatal" "game: fatal trap counted"
expect_grep "$T/out" "class: wine-proton; exe /usr/lib/wine/wine64-preloader" "game: Wine/Proton"
expect_grep "$T/out" "fix: sldctl exempt add --comm game.exe --persist" "game: exempt by name"
expect_grep "$T/out" "caveat: exempt_comm is forgeable: any local user can give a task this name (prctl PR_SET_NAME); see sldctl(8), exempt" "exempt by name: the trust caveat, and where it is explained"
expect_grep "$T/out" "fx_guest/77: 1 bogus" "bogus trap counted"
expect_grep "$T/out" "class: other; no longer running" "recycled pid: not the task that trapped"
expect_grep "$T/out" "qemu/123: 1 bus_lock" "bus lock trap counted"
expect_grep "$T/out" "fix: sldctl exempt add --comm 'sp ace\\\\x' --persist" "odd name: one shell word, its backslash escaped"
expect_grep "$T/out" "a[b] c/9/1: 1 handled" "sld_compat's own line counted"
expect_grep "$T/out" "note: already handled by sld_compat" "handled task: no command"
# Threads no longer running: one pattern for every vCPU thread of a kind.
cp "$R/dev/kmsg" "$T/kmsg.saved"
printf '%s\n' \
	'4,0,1000,-;x86/split lock detection: #AC: CPU 2/KVM/5001 took a split_lock trap at address: 0x1' \
	'4,1,2000,-;x86/split lock detection: #AC: EMT-5/5002 took a split_lock trap at address: 0x2' \
	'4,2,3000,-;x86/split lock detection: #AC: a*b/5003 took a split_lock trap at address: 0x3' \
	'4,3,4000,-;x86/split lock detection: #AC: CPU 0/KVM/5004 took a split_lock trap at address: 0x4' \
	> "$R/dev/kmsg"
# A QEMU in a rootful podman container: below machine.slice, not libvirt's.
task 5004 'CPU 0/KVM' 5004 1 /usr/bin/qemu-system-x86_64 /machine.slice/libpod-0123abcd.scope
capture "$SLDCTL" offenders
expect_grep "$T/out" "CPU 0/KVM/5004: 1 split_lock" "container's vCPU: counted"
expect_no_grep "$T/out" "exempt add --cgroup" "container's vCPU below machine.slice: no cgroup rule (it would relieve the containers)"
expect_grep "$T/out" "fix: sldctl exempt add --comm 'CPU */KVM' --persist" "gone KVM vCPU thread: the CPU */KVM pattern"
expect_grep "$T/out" "fix: sldctl exempt add --comm 'EMT-*' --persist" "gone EMT thread: the EMT-* pattern"
expect_grep "$T/out" "fix: sldctl exempt add --comm 'a\\*b' --persist" "a name with a star: escaped, not a pattern"
cp "$T/kmsg.saved" "$R/dev/kmsg"

# ---- whose executable: a path rule only for one root alone decides ----------
if [ "$(id -u)" != 0 ]; then
	nok "the ownership cases need root (chown to another uid)"
fi
vcpu() {	# PID EXE: "CPU 3/KVM" thread PID of a qemu process PID+1 running EXE
	task "$1" 'CPU 3/KVM' $(($1 + 1)) 1 "$2" /user.slice/m.scope
	task $(($1 + 1)) qemu-system-x86 $(($1 + 1)) 1 "$2" /user.slice/m.scope
	printf '4,%s,%s000,-;x86/split lock detection: #AC: CPU 3/KVM/%s took a split_lock trap at address: 0x1\n' \
		"$1" "$1" "$1" >> "$R/dev/kmsg"
}
mkdir -p "$R/home/mallory" "$R/srv/vm" "$R/opt/grp"
chmod 755 "$R/home" "$R/home/mallory" "$R/srv" "$R/opt"
: > "$R/home/mallory/qemu-system-x86_64"	# the user's own file
chown 1000:1000 "$R/home/mallory/qemu-system-x86_64"
chmod 777 "$R/srv/vm"				# root's file, a directory anyone may write
: > "$R/srv/vm/qemu-system-x86_64"
chmod 775 "$R/opt/grp"				# a directory a group may write
chgrp 100 "$R/opt/grp"
: > "$R/opt/grp/qemu-system-x86_64"
: > "$R/dev/kmsg"
vcpu 5100 /home/mallory/qemu-system-x86_64
vcpu 5200 /srv/vm/qemu-system-x86_64
vcpu 5300 /opt/grp/qemu-system-x86_64
vcpu 5400 /usr/bin/qemu-system-x86_64
capture "$SLDCTL" offenders
expect_rc 1 "ownership: offenders found"
expect_no_grep "$T/out" "--path /home/mallory" "another uid's executable: no path rule offered"
expect_no_grep "$T/out" "--path /srv/vm" "root's file in a directory every user may write: no path rule"
expect_no_grep "$T/out" "--path /opt/grp" "root's file in a group-writable directory: no path rule"
expect_grep "$T/out" "note: no exempt_path rule offered: uid 1000" "another uid: the advice says whose it is"
expect_grep "$T/out" "owns /home/mallory/qemu-system-x86_64, and a rule for it would relieve whatever that user puts there; let that user relieve their own programs instead (run_allow in /etc/sld-compat, then \`sldctl run\`), or exempt a cgroup only root controls" \
	"another uid: the trade-off, run_allow and a cgroup rule"
expect_grep "$T/out" "note: no exempt_path rule offered: every user may write /srv/vm," "open directory: says every user may write it"
expect_grep "$T/out" "note: no exempt_path rule offered: group 100" "group directory: names the group"
expect_grep "$T/out" "fix: sldctl exempt add --path /usr/bin/qemu-system-x86_64 --persist" "root's file in root's directories: the path rule"
is "$(grep -c '^    fix: ' "$T/out")" 1 "only that one gets a command (no forgeable --comm instead)"
capture "$SLDCTL" doctor
expect_no_grep "$T/out" "fix: sldctl exempt add --path /home/mallory" "doctor: no path rule for another uid's file"
expect_grep "$T/out" "(kvm-vcpu) took 1 split-lock and 0 bus-lock trap(s) logged since boot (/dev/kmsg); no exempt_path rule offered: uid 1000" \
	"doctor: the advice in the finding"

# exempt add --path: the same test, refused unless --force, which warns.
mkdir -p "$R/sys/module/sld_compat/parameters" "$R/etc/sld-compat"
printf -- '-\n' > "$R/sys/module/sld_compat/parameters/exempt_path"
for p in /home/mallory/qemu-system-x86_64 /srv/vm/qemu-system-x86_64 /opt/grp/qemu-system-x86_64; do
	capture "$SLDCTL" exempt add --path "$p"
	expect_rc 2 "exempt add --path $p: refused"
	expect_grep "$T/err" "refused --path $p: " "exempt add --path $p: says why"
	is "$(cat "$R/sys/module/sld_compat/parameters/exempt_path")" - "exempt add --path $p: nothing written"
done
expect_grep "$T/err" "group 100" "exempt add: names the group that may write"
capture "$SLDCTL" exempt add --path /home/mallory/qemu-system-x86_64
expect_grep "$T/err" "uid 1000" "exempt add: names the uid that owns it"
expect_grep "$T/err" "give --force to add it anyway, or relieve that user's runs (run_allow, sldctl run) or a cgroup only root controls (--cgroup)" \
	"exempt add: the alternatives"
capture "$SLDCTL" exempt add --force --path /home/mallory/qemu-system-x86_64
expect_rc 0 "exempt add --force: added"
expect_grep "$T/err" "warning: uid 1000" "exempt add --force: warns who could then satisfy it"
expect_grep "$T/err" "with --force the rule relieves whatever that user or group puts at /home/mallory/qemu-system-x86_64" \
	"exempt add --force: and what they get"
is "$(cat "$R/sys/module/sld_compat/parameters/exempt_path")" /home/mallory/qemu-system-x86_64 "exempt add --force: written"
printf -- '-\n' > "$R/sys/module/sld_compat/parameters/exempt_path"
capture "$SLDCTL" exempt add --path /usr/bin/qemu-system-x86_64
expect_rc 0 "exempt add --path of root's file: added without --force"
expect_no_grep "$T/err" "warning" "exempt add --path of root's file: no warning"
capture "$SLDCTL" exempt remove --force --path /usr/bin/qemu-system-x86_64
expect_rc 2 "exempt remove --force: a usage error"
expect_grep "$T/err" "--force is for exempt add --path" "exempt remove --force: says so"
is "$(cat "$R/sys/module/sld_compat/parameters/exempt_path")" /usr/bin/qemu-system-x86_64 "exempt remove --force: nothing removed"
rm -rf "${R:?}/sys" "${R:?}/etc"

# ---- names a user chose: a newline, ESC and quotes --------------------------
# A directory name that would forge doctor's verdict line and colour the
# terminal, root's (so the path rule is offered), and a cgroup whose name
# would set the terminal's title (/proc/PID/cgroup ends a name at a
# newline itself).
esc=$(printf '\033')
odd=$(printf '/opt/a\n[info] healthy: nothing to do\033[31m%s"q' "'")
mkdir -p "$R$odd"
: > "$R$odd/qemu-system-x86_64"
chmod 755 "$R$odd"
oddcg=$(printf '/user.slice/x\033]0;t\007"%s.scope' "'")
: > "$R/dev/kmsg"
task 5500 'CPU 4/KVM' 5501 1 "$odd/qemu-system-x86_64" "$oddcg"
task 5501 qemu-system-x86 5501 1 "$odd/qemu-system-x86_64" "$oddcg"
printf '4,1,1000,-;x86/split lock detection: #AC: CPU 4/KVM/5500 took a split_lock trap at address: 0x1\n' >> "$R/dev/kmsg"
for cmd in offenders doctor; do
	capture "$SLDCTL" $cmd
	if grep -q "$esc" "$T/out"; then nok "$cmd: no ESC reaches the terminal"; else ok "$cmd: no ESC reaches the terminal"; fi
	is "$(grep -c '^\[info\] healthy' "$T/out")" 0 "$cmd: the directory name forges no line"
done
capture "$SLDCTL" offenders
expect_grep "$T/out" "exe /opt/a\\x0a[info] healthy: nothing to do\\x1b[31m'\"q/qemu-system-x86_64; cgroup /user.slice/x\\x1b]0;t\\x07\"'.scope" \
	"offenders: exe and cgroup escaped as \\xNN, quotes as they are"
expect_grep "$T/out" "fix: sldctl exempt add --path \$'/opt/a\\x0a[info] healthy: nothing to do\\x1b[31m\\x27\\x22q/qemu-system-x86_64' --persist" \
	"offenders: the fix one \$'...' shell word, quotes escaped too"
fix=$(sed -n "s/^    fix: sldctl exempt add --path \\(.*\\) --persist\$/\\1/p" "$T/out")
if command -v bash > /dev/null; then
	is "$(bash -c "printf '%s' $fix")" "$odd/qemu-system-x86_64" "offenders: bash reads the fix's word back as the path"
fi
capture "$SLDCTL" offenders --json
ODD=$odd ODDCG=$oddcg json_check "offenders --json: the names exact" "
import os
o = doc['offenders'][0]
assert o['exe'] == os.environ['ODD'] + '/qemu-system-x86_64', o['exe']
assert o['cgroup'] == os.environ['ODDCG'], o['cgroup']
"
capture "$SLDCTL" doctor --json
json_check "doctor --json: one offender finding, its fix a shell word" "
f = [x for x in doc['findings'] if x['id'] == 'split-lock-offender']
assert len(f) == 1 and f[0]['fix'].startswith(\"sldctl exempt add --path \$'/opt/a\\\\x0a\"), f
assert not any('\\n' in x['message'] or '\\x1b' in x['message'] for x in doc['findings'])
"
cp "$T/kmsg.saved" "$R/dev/kmsg"

capture "$SLDCTL" offenders --json
expect_rc 1 "--json: exit 1"
json_check "--json: counts, classes, fixes" "
o = {(t['comm'], t['pid']): t for t in doc['offenders']}
assert doc['source'] == '/dev/kmsg' and doc['since'] == 'boot'
assert doc['bad_lines'] == 5 and doc['trap_lines'] == 9 and len(o) == 8
e = o[('EMT-3', 187133)]
assert e['class'] == 'virtualbox-emt' and e['counts']['split_lock'] == 2
assert e['vmm'] == 'VirtualBoxVM' and e['vmm_pid'] == 187100 and e['alive']
assert e['fix'] == 'sldctl exempt add --path /usr/lib/virtualbox/VirtualBoxVM --persist'
assert e['caveat'] is None
k = o[('CPU 1/KVM', 175479)]
assert k['class'] == 'kvm-vcpu' and k['cgroup'].startswith('/machine.slice/')
assert k['fix'] == 'sldctl exempt add --cgroup \\'/machine.slice/machine-qemu\\\\x2d*.scope\\' --persist'
g = o[('game.exe', 4242)]
assert g['class'] == 'wine-proton' and g['counts']['fatal'] == 1 and g['caveat']
assert o[('fx_guest', 77)]['alive'] is False
h = o[('a[b] c/9', 1)]
assert h['fix'] is None and h['sld_compat_rule'] == 'exempt-comm'
"

# The ring wrapped (first seq 5): the journal has this boot's lines.
J=$T/journalctl
printf '#!/bin/sh\necho "$@" > %s/jargs\ncat %s/offenders-journal.txt\n' "$T" "$FIXTURES" > "$J"
chmod +x "$J"
sed 's/^6,0,0,/6,5,0,/' "$FIXTURES/offenders-kmsg.txt" > "$R/dev/kmsg"
SLDCTL_JOURNALCTL=$J capture "$SLDCTL" offenders
expect_rc 1 "wrapped ring: exit 1"
expect_grep "$T/out" "offenders since boot (from journalctl): 3 task(s), 3 trap line(s), 2 bad line(s) skipped" "wrapped ring: read from journalctl"
is "$(cat "$T/jargs")" "-k -q --no-pager -o short-monotonic -b" "wrapped ring: journalctl -k -b"
capture "$SLDCTL" offenders
expect_grep "$T/out" "(from /dev/kmsg): 8 task(s)" "wrapped ring, no journalctl: what /dev/kmsg still has"
cp "$FIXTURES/offenders-kmsg.txt" "$R/dev/kmsg"
SLDCTL_JOURNALCTL=$J capture "$SLDCTL" offenders
expect_grep "$T/out" "(from /dev/kmsg): 8 task(s)" "ring not wrapped: /dev/kmsg only"
SLDCTL_JOURNALCTL=$J capture "$SLDCTL" offenders --since '2 hours ago' --json
expect_rc 1 "--since TIME: exit 1"
is "$(cat "$T/jargs")" "-k -q --no-pager -o short-iso --since 2 hours ago" "--since TIME: given to journalctl --since"
json_check "--since TIME: from journalctl" "
assert doc['source'] == 'journalctl' and doc['since'] == '2 hours ago'
assert len(doc['offenders']) == 3 and doc['bad_lines'] == 2
"

# doctor: a warning per offender, with the command; exit code unchanged.
capture "$SLDCTL" doctor
expect_grep "$T/out" "[warning] split-lock-offender: EMT-3/187133 (virtualbox-emt) took 2 split-lock and 0 bus-lock trap(s) logged since boot (/dev/kmsg)." "doctor: EMT-3 is a finding"
expect_grep "$T/out" "    fix: sldctl exempt add --path /usr/lib/virtualbox/VirtualBoxVM --persist" "doctor: the command for it"
expect_grep "$T/out" "[info] offenders-bad-lines: 5 kernel log line(s)" "doctor: bad lines counted"
expect_no_grep "$T/out" "split-lock-offender: a[b] c/9/1" "doctor: a task sld_compat handles is no finding"
capture "$SLDCTL" doctor --json
json_check "doctor --json: offender findings" "
f = [x for x in doc['findings'] if x['id'] == 'split-lock-offender']
assert len(f) == 7, len(f)
assert all(x['severity'] == 'warning' for x in f)
"

# No log: a clear error.
mv "$R/dev/kmsg" "$R/dev/kmsg.off"
capture "$SLDCTL" offenders
expect_rc 2 "no /dev/kmsg: exit 2"
expect_grep "$T/err" "sldctl offenders: cannot read /dev/kmsg: No such file or directory" "no /dev/kmsg: says so"
capture "$SLDCTL" doctor
expect_no_grep "$T/out" "offender" "doctor without a kernel log: no offender finding"
mv "$R/dev/kmsg.off" "$R/dev/kmsg"

# Bad input: exit 2, nothing on stdout, a message naming the problem.
long=$(printf '%070d' 0)
bad() {	# WHAT MESSAGE ARGS...
	what=$1 msg=$2
	shift 2
	capture "$@"
	expect_rc 2 "bad input: $what"
	expect_grep "$T/err" "$msg" "bad input: $what: says why"
	is "$(wc -c < "$T/out")" 0 "bad input: $what: nothing on stdout"
}
bad "unknown option" "unknown option '--bogus'" "$SLDCTL" offenders --bogus
bad "operand" "sldctl offenders:" "$SLDCTL" offenders extra
bad "empty --since" "sldctl offenders:" "$SLDCTL" offenders --since ''
bad "--since twice" "sldctl offenders:" "$SLDCTL" offenders --since boot --since boot
bad "--since with a control byte" "bad --since 'a\\x01b'" "$SLDCTL" offenders --since "$(printf 'a\001b')"
bad "--since too long" "bad --since" "$SLDCTL" offenders --since "$long"
bad "--since without journalctl" "--since yesterday needs journalctl, which is not installed" \
	"$SLDCTL" offenders --since yesterday
# shellcheck disable=SC2016 # $7 is the fake journalctl's
printf '#!/bin/sh\necho "Failed to parse timestamp: $7" >&2\nexit 1\n' > "$J"
SLDCTL_JOURNALCTL=$J bad "--since journalctl refuses" "journalctl failed (exit 1)" \
	"$SLDCTL" offenders --since nonsense
expect_grep "$T/err" "Failed to parse timestamp: nonsense" "bad input: journalctl's own reason shown"
capture "$SLDCTL" offenders --since BOOT
expect_rc 1 "--since BOOT: this boot"

if grep -qE 'Sanitizer|runtime error' "$T/err"; then nok "no sanitizer report"; else ok "no sanitizer report"; fi
tap_done
