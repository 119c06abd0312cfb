# insmod cost of sld_compat's load-time scan (runs in the bench VM): the
# wall time of `insmod M` with sld_compat not loaded and loaded, for
# kvm-intel.ko and for the largest module of the kernel (tests/vm/vm.sh
# copies it with its dependencies into /kmod/big, load order in
# /kmod/big/order), interleaved, the order alternating each round. Under
# TCG kvm_intel's init fails (no VMX): load, scan and the failed init are
# still timed; a module whose init succeeds is unloaded after each load.
# Also times insmod sld_compat itself (it scans every loaded module).
# Prints: BENCH load ROUND CASE NS RC (CASE M-scan: the scan alone)
# In a VM_ICOUNT boot the bench is load-icount/KVER and NS counts guest
# instructions (and idle time, which advances the clock to the next timer).
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
bench=$(bench_name load)
R=${BENCH_ROUNDS:-7}

lsmod | grep -q '^sld_compat ' && unload
big_module
echo "# bench: largest module $big ($(wc -c < "/kmod/big/$big.ko") bytes) on $(uname -r)"

timed() {	# timed ROUND CASE KO NAME
	o=$(sldtest timeit insmod "$3")
	lsmod | grep -q "^$4 " && rmmod "$4"
	printf 'BENCH\t%s\t%s\t%s\t%s\t%s\n' "$bench" "$1" "$2" \
		"$(echo "$o" | sed -n 's/^ns=\([0-9]*\).*/\1/p')" \
		"$(echo "$o" | sed -n 's/.* rc=\([0-9]*\).*/\1/p')"
}
without() {
	timed "$1" kvm-intel-without /kmod/kvm-intel.ko kvm_intel
	timed "$1" big-without /kmod/big/"$big.ko" "$bigname"
}
with() {
	o=$(sldtest timeit insmod $MOD)
	printf 'BENCH\t%s\t%s\tsld_compat-itself\t%s\t%s\n' "$bench" "$1" \
		"$(echo "$o" | sed -n 's/^ns=\([0-9]*\).*/\1/p')" \
		"$(echo "$o" | sed -n 's/.* rc=\([0-9]*\).*/\1/p')"
	timed "$1" kvm-intel-with /kmod/kvm-intel.ko kvm_intel
	timed "$1" big-with /kmod/big/"$big.ko" "$bigname"
	grep -E "^(kvm_intel|$bigname) " /proc/sld_compat_modules | cut -d' ' -f1-5 | sed 's/^/# bench: /'
	# The scan's own time as the module measured it (scan_us=), the
	# direct measure of what it adds: TCG's insmod times vary by more.
	for m in kvm_intel:kvm-intel "$bigname":big; do
		us=$(grep "^${m%%:*} " /proc/sld_compat_modules | tail -n 1 |
			sed -n 's/.* scan_us=\([0-9]*\) .*/\1/p')
		printf 'BENCH\t%s\t%s\t%s-scan\t%s\t0\n' "$bench" "$1" "${m#*:}" $((us * 1000))
	done
	unload
}
# one warm-up load of each, not reported
timed 0 warmup /kmod/kvm-intel.ko kvm_intel >/dev/null
timed 0 warmup /kmod/big/"$big.ko" "$bigname" >/dev/null
r=1
while [ "$r" -le "$R" ]; do
	if [ $((r % 2)) -eq 1 ]; then without "$r"; with "$r"; else with "$r"; without "$r"; fi
	r=$((r + 1))
done
