# The first check of every boot (tests/vm/init runs it before any test
# file, a demo or a benchmark; tests/system/run at every boot of a booted
# system): the CPU does what the boot's label says (vm.sh writes the label
# to /tests/cpu, and to /tests/cpu.ibt whether this kernel turns on
# kernel IBT there; tests/system/system.sh writes the label to
# CPU_PROOF_DIR/cpu, and there the IBT expectation follows the booted
# kernel's config by the same rule as vm.sh's). Every branch of lib.sh
# and the tests follows the label, not the guest's /proc/cpuinfo, so a
# test CPU that lost its split-lock emulation fails here instead of
# passing as a stock CPU.
#   enforcing  split-lock detection in the kernel's warn mode, bit 29 of
#              every CPU's MSR_TEST_CTRL set (through the msr driver,
#              which must be there), a user split lock traps, the ibt
#              flag, and kernel IBT enabled where /tests/cpu.ibt says 1
#   stock      none of them: no split_lock_detect, no ibt, MSR_TEST_CTRL
#              reads 0 (stock TCG drops writes to it), no bus-lock trap
#   enforcing-amd  the AMD model (tests/qemu/0005): AuthenticAMD, the
#              bus-lock trap, no split-lock detection (MSR_TEST_CTRL
#              faults), no IBT
#   enforcing-nobld  the Intel model without bus-lock detection (as Ice
#              Lake): split-lock detection as enforcing, no bus-lock trap
#   *-ratelimit    either model with split_lock_detect=ratelimit:N
# Where no split lock raises #AC (the AMD model, ratelimit), one real
# bus-lock #DB: a split lock on cpu0 with DEBUGCTL bit 2 set (by the
# kernel, or here where the kernel leaves it clear, then restored), and
# the kernel's own "took a bus_lock trap" line.
# On failure the file exits 1 and the boot bails out.
# shellcheck source=SCRIPTDIR/../lib/vm.sh # the VM's /tests/lib.sh
[ -n "${CPU_PROOF_DIR:-}" ] || . /tests/lib.sh

dir=${CPU_PROOF_DIR:-/tests}
label=$(cat "$dir/cpu")
if [ -f "$dir/cpu.ibt" ]; then
	want_ibt=$(cat "$dir/cpu.ibt")
else
	case $label in
	enforcing | enforcing-nobld) want_ibt=0
		if grep -qx 'CONFIG_X86_KERNEL_IBT=y' "/boot/config-$(uname -r)"; then
			want_ibt=1
		fi ;;
	*) want_ibt=0 ;;
	esac
fi
flags=$(grep -m1 '^flags' /proc/cpuinfo)
bad=
# want WHAT YES|NO CONDITION...: CONDITION holds (yes) or not (no).
want() {
	_w=$1 _yn=$2
	shift 2
	if "$@"; then _got=yes; else _got=no; fi
	[ "$_got" = "$_yn" ] || bad="$bad
$_w: want $_yn, got $_got"
}
has_flag() { echo "$flags" | grep -qw "$1"; }
# Not grep -q after dmesg: util-linux's dmesg (a booted system's) says
# "write error" when the reader leaves early.
in_dmesg() { dmesg | grep "$1" > /dev/null; }
trapped() { new_dmesg | grep 'sldproof/[0-9]* took a split_lock trap' > /dev/null; }
SLD_WARN='x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks'
IBT_ON='CET detected: Indirect Branch Tracking enabled'

# bus_lock_trap: a split lock on cpu0 with DEBUGCTL bit 2 set takes the
# bus-lock #DB and the kernel says so; DEBUGCTL as it was after.
bus_lock_trap() {
	_was=$(sldcpu msr 0 0x1d9) || return 1
	if [ $((_was & 4)) = 0 ]; then
		sldcpu msr 0 0x1d9 "$(printf '0x%x' $((_was | 4)))" > /dev/null || return 1
	fi
	mark_dmesg
	sldhv oncpu 0 "$locker" op add split > /dev/null
	new_dmesg | grep 'sldproof/[0-9]* took a bus_lock trap' > /dev/null
	_r=$?
	[ $((_was & 4)) != 0 ] || sldcpu msr 0 0x1d9 "$_was" > /dev/null
	return $_r
}

# The msr driver, for MSR_TEST_CTRL and DEBUGCTL here and for
# msr_matches later: vm.sh packs it (a booted system has its module, or
# the kernel has it built in); writes allowed without a warning (the
# bus-lock proof sets DEBUGCTL); unloaded again after, so that a test can
# load it with its own parameters.
msr_loaded=
if [ ! -e /dev/cpu/0/msr ]; then
	if [ -e /kmod/msr.ko ]; then
		insmod /kmod/msr.ko allow_writes=on && msr_loaded=1
	else
		modprobe msr allow_writes=on && msr_loaded=1
	fi
fi
# bld: the bus-lock trap's CPUID flag (both test CPU models,
# tests/qemu/0005); the AMD model has no MSR_TEST_CTRL (a read faults).
# A *-ratelimit label (the kernel in split_lock_detect=ratelimit:N): the
# bus-lock trap's rate limit on, split-lock detection off (MSR_TEST_CTRL
# 0 on the Intel model); the split-lock flags are not asserted there.
case $label in
enforcing) yn=yes sld=0x20000000 bld=yes ibt=yes ;;
enforcing-nobld) yn=yes sld=0x20000000 bld=no ibt=yes ;;
enforcing-ratelimit) yn=skip sld=0x0 bld=yes ibt=yes ;;
enforcing-amd) yn=no sld='' bld=yes ibt=no ;;
enforcing-amd-ratelimit) yn=skip sld='' bld=yes ibt=no ;;
stock) yn=no sld=0x0 bld=no ibt=no ;;
*) yn=bad; bad="/tests/cpu: '$label' is no test CPU's label" ;;
esac
# The test CPU's vendor: each model its own (stock TCG's max CPU says
# AuthenticAMD too, so stock boots do not check it).
case $label in
enforcing-amd*) vendor=AuthenticAMD ;;
enforcing*) vendor=GenuineIntel ;;
*) vendor= ;;
esac
if [ "$yn" != bad ]; then
	want "/proc/cpuinfo bus_lock_detect" "$bld" has_flag bus_lock_detect
	[ -z "$vendor" ] || want "/proc/cpuinfo vendor $vendor" yes \
		grep -qm1 "vendor_id.*$vendor" /proc/cpuinfo
	if [ $yn = skip ]; then
		want "dmesg: the kernel's bus lock rate limit" yes in_dmesg 'bus lock rate limit'
	else
		want "/proc/cpuinfo split_lock_detect" $yn has_flag split_lock_detect
		want "dmesg: split-lock detection in warn mode" $yn in_dmesg "$SLD_WARN"
	fi
	want "/proc/cpuinfo ibt" "$ibt" has_flag ibt
	want "dmesg: kernel IBT enabled" "$([ "$want_ibt" = 1 ] && echo yes || echo no)" \
		in_dmesg "$IBT_ON"
	want "/dev/cpu/0/msr (the msr driver)" yes test -e /dev/cpu/0/msr
	# SLD_KO boots (vm.sh) have no test binaries: the flags and the
	# kernel's lines only.
	if command -v sldcpu > /dev/null; then
		# The locker: a copy of sldcpu named sldproof, so that no rule of
		# a booted system's /etc/sld-compat (a comm, the file's path)
		# relieves it, and its trap lines are told from the tests'.
		locker=/tmp/sldproof
		cp "$(command -v sldcpu)" "$locker"
		c=0
		while [ -e /sys/devices/system/cpu/cpu$c ]; do
			if m=$(sldcpu msr $c 0x33 2>&1); then r=ok; else r=faults; fi
			if [ -z "$sld" ]; then
				[ "$r" = faults ] || bad="$bad
cpu$c MSR_TEST_CTRL: want a fault (AMD), got '$m'"
			elif [ "$m" != "$sld" ]; then
				bad="$bad
cpu$c MSR_TEST_CTRL: want $sld, got '$m'"
			fi
			c=$((c + 1))
		done
		if [ $yn = yes ]; then
			mark_dmesg
			"$locker" op add split > /dev/null
			want "a user split lock traps (dmesg: took a split_lock trap)" yes trapped
		elif [ "$bld" = yes ]; then
			want "a split lock under DEBUGCTL bit 2 takes the bus-lock #DB (dmesg: took a bus_lock trap)" \
				yes bus_lock_trap
		fi
	fi
fi
[ -z "$msr_loaded" ] || rmmod msr
rm -f /tmp/sldproof
if [ -z "$bad" ]; then
	ok "the CPU is the $label CPU this boot was given (kernel IBT expected: $want_ibt)"
else
	nok "the CPU is the $label CPU this boot was given (kernel IBT expected: $want_ibt)"
	diag "$bad"
	diag "cpuinfo $flags"
	exit 1
fi
