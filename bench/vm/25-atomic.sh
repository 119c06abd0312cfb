# How long the module_finalize probe's handler runs with preemption (and,
# under its raw spinlock, interrupts) off, for kvm-intel.ko and for the
# largest module of the kernel (its dependencies in /kmod/big/order), as
# sld_compat measures it (atomic_ns= in /proc/sld_compat_modules). In a
# VM_ICOUNT boot (bench atomic-icount/KVER) a nanosecond is one guest
# instruction. Prints: BENCH atomic ROUND CASE NS 0
# Run: VM_ICOUNT=1 BENCH_ONLY=25-atomic bash tests/vm/vm.sh KVER bench
# (not in make bench's report). 6.1.0-57-rt-amd64, before the probe
# handler only recorded pointers: amdgpu 573,722, kvm-intel 62,118; since:
# 215 for both (issue #12 item 7).
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
bench=$(bench_name atomic)
R=${BENCH_ROUNDS:-3}

lsmod | grep -q '^sld_compat ' && unload
load
big_module
echo "# bench: largest module $big on $(uname -r)"
r=1
while [ "$r" -le "$R" ]; do
	for m in kvm-intel:/kmod/kvm-intel.ko big:/kmod/big/"$big.ko"; do
		ko=${m#*:} name=$(basename "$ko" .ko | tr - _)
		insmod "$ko" 2>/dev/null
		lsmod | grep -q "^$name " && rmmod "$name"
		ns=$(grep "^$name " /proc/sld_compat_modules | tail -n 1 |
			sed -n 's/.* atomic_ns=\([0-9]*\) .*/\1/p')
		printf 'BENCH\t%s\t%s\t%s\t%s\t0\n' "$bench" "$r" "${m%%:*}" "$ns"
	done
	r=$((r + 1))
done
grep -E "^(kvm_intel|$bigname) " /proc/sld_compat_modules | sed 's/^/# bench: /'
