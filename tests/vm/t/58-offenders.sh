# sldctl offenders on a real kernel's /dev/kmsg. TCG has no split-lock
# detection, so the kernel's mode is off and it never logs a trap line:
# the lines are written to /dev/kmsg (root may) in the kernel's own
# format, one of them naming a task that runs, so that its /proc entry is
# resolved for real. No journalctl in the initramfs: /dev/kmsg only, and
# --since TIME is refused. Nothing here needs the module.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

X=/tests/bin/sldctl
E=/tmp/offenders.err
sx() { out=$($X "$@" 2> $E); rc=$?; }
kl() { echo "<4>x86/split lock detection: $*" > /dev/kmsg; }

sleep 600 &
live=$!
kl "#AC: EMT-3/187133 took a split_lock trap at address: 0x81b185bf"
kl "#AC: EMT-3/187133 took a split_lock trap at address: 0x81b185c0"
kl "#AC: CPU 1/KVM/175479 took a split_lock trap at address: 0xfffff80312345678"
kl "#AC: sleep/$live took a split_lock trap at address: 0x401000"
kl "#AC: game.exe/4242 fatal split_lock trap at address: 0x401000"
kl "#AC: vm58/3999 bogus split_lock trap at address: 0x10"
kl "#DB: qemu/4123 took a bus_lock trap at address: 0x7f00aa"
kl "#AC: vm58-cut/12 took a split_lo"

sx offenders
is "$rc" 1 "offenders: the injected trap lines are found (exit 1)"
like "$out" "^offenders since boot \\(from /dev/kmsg\\): [0-9]+ task\\(s\\), [0-9]+ trap line\\(s\\), [1-9][0-9]* bad line\\(s\\) skipped$" \
	"offenders: summary with the truncated line counted as bad"
like "$out" "^EMT-3/187133: 2 split_lock \\(first [0-9]+\\.[0-9]{6}, last [0-9]+\\.[0-9]{6}\\)$" \
	"offenders: EMT-3's two lines aggregated, first and last time"
like "$out" "^    class: virtualbox-emt; no longer running$" "offenders: EMT-3 is a VirtualBox EMT"
like "$out" "^    fix: sldctl exempt add --comm 'CPU \\*/KVM' --persist$" \
	"offenders: a gone vCPU thread gets the pattern for all of them, one shell word"
like "$out" "^CPU 1/KVM/175479: 1 split_lock " "offenders: a name with a space and a slash"
like "$out" "^game.exe/4242: 1 fatal " "offenders: fatal split_lock trap"
like "$out" "^vm58/3999: 1 bogus " "offenders: bogus split_lock trap"
like "$out" "^qemu/4123: 1 bus_lock " "offenders: #DB bus_lock trap"
like "$out" "^sleep/$live: 1 split_lock " "offenders: the running task"
exe=$(readlink /proc/$live/exe)
like "$out" "^    class: other; exe $exe; cgroup " "offenders: the running task resolved to its executable"
like "$out" "^    caveat: exempt_comm is forgeable: " "offenders: the trust caveat of --comm"
if echo "$out" | grep -q "vm58-cut"; then nok "offenders: the truncated line is no task"; else
	ok "offenders: the truncated line is no task"; fi

sx offenders --json
is "$rc" 1 "offenders --json: exit 1"
like "$out" '"source": "/dev/kmsg"' "offenders --json: source"
like "$out" '\{"comm": "EMT-3", "pid": 187133, "class": "virtualbox-emt", "counts": \{"split_lock": 2, "fatal": 0, "bogus": 0, "bus_lock": 0, "handled": 0\}' \
	"offenders --json: EMT-3's counts and class"
like "$out" "\\{\"comm\": \"sleep\", \"pid\": $live, .*\"alive\": true, \"exe\": \"$exe\"" \
	"offenders --json: the running task alive, with its executable"
like "$out" '"bad_lines": [1-9]' "offenders --json: bad lines counted"

sx doctor
like "$out" "^\\[warning\\] split-lock-offender: EMT-3/187133 \\(virtualbox-emt\\) took 2 split-lock and 0 bus-lock trap\\(s\\)" \
	"doctor: an offender is a finding"
like "$out" "^    fix: sldctl exempt add --comm 'EMT-\\*' --persist$" "doctor: with the command"

# Bad input: exit 2, nothing on stdout.
for a in "--bogus" "--since" "--since=" "extra" "--since yesterday"; do
	# shellcheck disable=SC2086 # a: "--since yesterday" is two arguments
	sx offenders $a
	is "$rc" 2 "offenders $a: exit 2"
	is "$out" "" "offenders $a: nothing on stdout"
done
like "$(cat $E)" "needs journalctl, which is not installed" "offenders --since TIME without journalctl: says so"
kill $live
