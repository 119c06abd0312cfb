#!/bin/bash
# Build everything one kernel needs, pack an initramfs, boot it under QEMU
# (single-threaded TCG, -smp 2), and turn the serial console into TAP.
#
#   vm.sh KVER check   -> build/vm/KVER.tap (for prove), log in build/vm/
#   vm.sh KVER smt     -> build/vm/KVER-smt.tap: tests/vm/t-smt on one
#                         core with two threads
#   vm.sh KVER many    -> build/vm/KVER-many.tap: tests/vm/t-many on 64
#                         vCPUs (what must scale with the host's CPUs)
#   vm.sh KVER demo    -> prints the demo's console output
#   vm.sh KVER bench   -> runs bench/vm/*.sh instead of the suite (make bench;
#                         BENCH_ONLY="30-ctxsw ..." runs only those); their
#                         BENCH lines go to build/vm/KVER-bench.txt
#
# VM_ICOUNT=1 boots one vCPU with -icount shift=0,sleep=off: the guest's
# clock then advances one nanosecond per guest instruction executed, so a
# time measured in the guest is an instruction count, free of host noise
# (the context-switch benchmark's exact run). -icount hangs -smp 2 at
# "Booting SMP configuration" under QEMU 7.2, hence one vCPU.
#
# SLD_KO=FILE boots that sld_compat.ko (.ko, .ko.xz or .ko.zst, e.g. one
# DKMS built and signed) instead of building src/, with no fixtures and no
# test binaries; VM_T=DIR runs DIR/*.sh instead of tests/vm/t/*.sh, and
# VM_OUT=DIR takes the TAP, log and initrd (default build/vm).
#
# VM_SMP=N boots N vCPUs in the `many` mode (default 64; 255 is the most
# QEMU's pc machine allows, what `make check-full` boots).
#
# VM_CPU=enforcing boots on a CPU that enforces split-lock detection and
# kernel IBT: the test QEMU of tests/qemu/ (built on first use, never
# installed), results in build/vm-enforcing (make cpu-check). Unset: the
# system's QEMU with TCG's "max" CPU, which has neither. VM_CPU=enforcing-amd
# boots the same QEMU as an AMD CPU (bus-lock #DB trap, SVM; results in
# build/vm-enforcing-amd); VM_CPU=enforcing-nobld as the Intel model
# without bus-lock detection (Ice Lake). VM_APPEND: more kernel arguments (e.g.
# split_lock_detect=ratelimit:1).
#
# The run fails (not ok lines) if the VM does not finish, if any test
# fails, or if the log shows a kernel error (kernel-errors.sh: an Oops,
# BUG, WARNING, general protection fault, lockdep, KASAN, UBSAN or
# hung-task line), or an sld_compat error line that no test announced
# with expect_dmesg.
set -eu
kver=$1
mode=${2:-check}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../config.sh
. "$top/tests/config.sh"
# shellcheck source=SCRIPTDIR/kernel-errors.sh
. "$top/tests/vm/kernel-errors.sh"
out=${VM_OUT:-$top/build/vm${VM_CPU:+-$VM_CPU}}
kroot=$SLD_CACHE/$kver/root
kmods=$kroot/lib/modules/$kver/kernel
mkdir -p "$out"

# kbuild CMD...: CMD where this kernel's headers work: the host, or for
# Debian unstable's and trixie-backports' kernels (tests/vm/sid.sh) the
# debootstrapped root named in KVER/chroot, since their headers need that
# release's compiler and glibc.
kbuild() {
	local r
	if [ -f "$SLD_CACHE/$kver/chroot" ]; then
		r=$(cat "$SLD_CACHE/$kver/chroot")
		SLD_KROOT=$(basename "$r" -root) bash "$top/tests/vm/sid.sh" run "$@"
	else
		"$@"
	fi
}

build_tree() {	# build_tree SRC DEST [FILE...]: a module dir per kernel
	local src=$1 dest=$2
	mkdir -p "$dest"
	# The sources only: objects a `make` in SRC left for another kernel
	# would be taken as built here (seen: a 6.12 .ko booted on 7.3).
	tar -C "$src" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
		--exclude=Module.symvers --exclude='.*.d' . | tar -C "$dest" -xf -
	shift 2
	[ $# -eq 0 ] || cp "$@" "$dest"/
	set -- "$src" "$dest"
	kbuild make -s -C "$2" KVER="$kver" >"$2.log" 2>&1 || {
		echo "vm.sh: building $1 for $kver failed:" >&2
		cat "$2.log" >&2
		exit 1
	}
}

# find_ko NAME: Debian's file for module NAME (.ko, or .ko.xz as on 6.12;
# '-' and '_' alike), or nothing.
find_ko() {
	local a b
	a=$(echo "$1" | tr _ -) b=$(echo "$1" | tr - _)
	find "$kmods" \( -name "$a.ko" -o -name "$a.ko.xz" -o -name "$b.ko" \
		-o -name "$b.ko.xz" \) | head -n1
}
# unpack_ko FILE DIR: FILE into DIR as NAME.ko, decompressed (busybox
# insmod does not read .ko.xz).
unpack_ko() {
	local m
	m=$(basename "${1%.xz}" .ko)
	case $1 in
	*.xz) xz -dc "$1" > "$2/$m.ko" ;;
	*) cp "$1" "$2/$m.ko" ;;
	esac
}
# Kernel modules from Debian's image that tests insmod.
copy_kmod() {
	local f
	f=$(find_ko "$1")
	[ -z "$f" ] || unpack_ko "$f" "$2"
}

# The host's systemd-udevd (Debian's udev package; tests/vm/deps.sh installs
# it) with its libraries, for t/55-udev.sh: a real udevd that runs the
# rule as `make install` ships it, pointed at the suite's static sldctl
# through udev-sldctl.sh, which counts the spawns.
add_udev() {
	local bin=/bin/udevadm lib
	[ -x "$bin" ] || return 0
	mkdir -p "$root"/{lib/systemd,usr/sbin,usr/lib/udev/rules.d,run,etc/udev}
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp "$bin" "$root/bin/udevadm"
	ln -s /bin/udevadm "$root/lib/systemd/systemd-udevd"
	cp "$top/tests/vm/udev-sldctl.sh" "$root/usr/sbin/sldctl"
	cp "$top/udev/90-sld-compat.rules" "$root/usr/lib/udev/rules.d/"
}

# check.sh may boot two modes of one kernel at once: one builds its
# trees, the other waits for it (and then finds nothing to do).
mkdir -p "$top/build/kmod"
exec 9> "$top/build/kmod/$kver.lock"
flock 9
[ -n "${SLD_KO:-}" ] || build_tree "$top/src" "$top/build/kmod/$kver"
if [ -z "${SLD_KO:-}" ] && [ -f "$top/tests/fixtures/Kbuild" ]; then
	# fx_vendor uses the vendor header the way a vendor does: a copy;
	# ksym.h is how sld_compat and the fixtures find kernel functions.
	build_tree "$top/tests/fixtures" "$top/build/fixtures/$kver" \
		"$top/src/include/sld_compat_api.h" "$top/src/kernel/ksym.h"
fi
flock -u 9

root=$out/$kver-$mode.root	# per mode: check.sh may boot two modes at once
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mod,kmod,tests/bin,"lib/modules/$kver"}
# The TAP library the host's tests use too (tests/lib/vm.sh, the suite's
# /tests/lib.sh, sources it).
cp "$top/tests/lib/tap.sh" "$top/tests/lib/kmsg.sh" "$root/tests/"
cp /bin/busybox "$root/bin/busybox"
cp "$top/tests/vm/init" "$root/init"
chmod +x "$root/init"
cp "$top/tests/lib/vm.sh" "$root/tests/lib.sh"
cp "$top/tests/vm/kernel-errors.sh" "$top/tests/vm/demo.sh" \
	"$top/tests/vm/cpu-proof.sh" "$root/tests/"
# smt: the SMT suite (t-smt) on one core with two threads.
if [ "$mode" = smt ]; then
	cp -r "${VM_T:-$top/tests/vm/t-smt}" "$root/tests/t"
	smp=2,sockets=1,cores=1,threads=2
	# TCG's default "max" CPU says AMD, whose topology leaves 6.1 does
	# not read as SMT here; with Intel's leaf 0xB it sees the threads.
	cpu=max,vendor=GenuineIntel
elif [ "$mode" = many ]; then
	# many: tests/vm/t-many on 64 vCPUs, what grows with the host.
	cp -r "${VM_T:-$top/tests/vm/t-many}" "$root/tests/t"
	smp=${VM_SMP:-64}
	cpu=max
else
	cp -r "${VM_T:-$top/tests/vm/t}" "$root/tests/t"
	smp=2
	cpu=max
	# VM_SMT=1: the two vCPUs as two threads of one core (the bench of
	# bench/vm/55-sibling.sh; the smt mode is the suite's).
	[ -z "${VM_SMT:-}" ] || smp=2,sockets=1,cores=1,threads=2
fi
# VM_ONLY="40 45": run only the tests whose names start so (development);
# VM_SKIP="20 25": all but those (check.sh: what another boot of the same
# kernel runs already).
if [ -n "${VM_ONLY:-}${VM_SKIP:-}" ]; then
	for f in "$root"/tests/t/*.sh; do
		drop=${VM_ONLY:+yes}
		for p in ${VM_ONLY:-}; do
			case $(basename "$f") in "$p"*) drop= ;; esac
		done
		for p in ${VM_SKIP:-}; do
			case $(basename "$f") in "$p"*) drop=yes ;; esac
		done
		[ -z "$drop" ] || rm "$f"
	done
fi
# VM_CPU=enforcing: tests/qemu/enforcing.sh says what that CPU is.
qemu="qemu-system-x86_64"
qemu_opts=()
cpu_append=
case ${VM_CPU:-} in
'') ;;
enforcing)
	# shellcheck source=SCRIPTDIR/../qemu/enforcing.sh
	. "$top/tests/qemu/enforcing.sh"
	enforcing_cpu
	qemu=$enf_qemu cpu=$enf_cpu cpu_append=$enf_append
	qemu_opts=("${enf_opts[@]}") ;;
enforcing-nobld)
	# The Intel model without bus-lock detection, as Ice Lake parts:
	# split-lock detection only (issue #39: what is left of the SMT
	# sibling's exposure there).
	# shellcheck source=SCRIPTDIR/../qemu/enforcing.sh
	. "$top/tests/qemu/enforcing.sh"
	enforcing_cpu
	qemu=$enf_qemu cpu=$enf_cpu,-bus-lock-detect cpu_append=$enf_append
	qemu_opts=("${enf_opts[@]}") ;;
enforcing-amd)
	# The same QEMU as an AMD Zen 5 (family 0x1a) with SVM: no split-lock
	# detection, MSR_TEST_CTRL or IBT (tests/qemu/0005); the bus-lock #DB
	# trap only (issue #29).
	# shellcheck source=SCRIPTDIR/../qemu/enforcing.sh
	. "$top/tests/qemu/enforcing.sh"
	enforcing_cpu
	qemu=$enf_qemu cpu=max,hypervisor=off,vendor=AuthenticAMD,family=26,model=2,+svm
	qemu_opts=("${enf_opts[@]}") ;;
*)
	echo "vm.sh: VM_CPU=$VM_CPU: only 'enforcing', 'enforcing-nobld' and 'enforcing-amd' are known" >&2
	exit 1 ;;
esac
# The label the guest proves first (tests/vm/cpu-proof.sh) and every
# test follows (lib.sh CPU_SLD): the CPU this boot was given, and whether
# its kernel turns on IBT there (CONFIG_X86_KERNEL_IBT on the IBT CPU).
# A boot told to run the kernel's bus-lock ratelimit mode (VM_APPEND, make
# cpu-check's #DB boots) says so in its label: split-lock detection is off
# there, the bus-lock trap on.
label=${VM_CPU:-stock}
case ${VM_APPEND:-} in *split_lock_detect=ratelimit*) label=$label-ratelimit ;; esac
echo "$label" > "$root/tests/cpu"
if [[ ${VM_CPU:-} = enforcing || ${VM_CPU:-} = enforcing-nobld ]] && grep -qx 'CONFIG_X86_KERNEL_IBT=y' "$kroot/boot/config-$kver"; then
	echo 1 > "$root/tests/cpu.ibt"
else
	echo 0 > "$root/tests/cpu.ibt"
fi
icount=()
if [ -n "${VM_ICOUNT:-}" ]; then
	smp=1
	icount=(-icount "shift=0,sleep=off")
	echo icount > "$root/tests/clock"
else
	echo wall > "$root/tests/clock"
fi
echo "$mode" > "$root/tests/mode"
echo "${VM_STRESS_SECS:-8}" > "$root/tests/stress_secs"
# make check's matrix (tests/vm/check.sh): files with a repeat count run
# fewer rounds there; a boot of its own runs them all, as check-full does.
echo "${VM_MATRIX:-full}" > "$root/tests/matrix"
[ -n "${VM_STRESS_FULL:-}" ] && touch "$root/tests/stress_full"
if [ -n "${SLD_KO:-}" ]; then
	case $SLD_KO in
	*.xz) xz -dc "$SLD_KO" > "$root/mod/sld_compat.ko" ;;
	*.zst) zstd -qdc "$SLD_KO" > "$root/mod/sld_compat.ko" ;;
	*) cp "$SLD_KO" "$root/mod/sld_compat.ko" ;;
	esac
else
	cp "$top"/build/vmbin/* "$root/tests/bin/"
	cp "$top/build/kmod/$kver/sld_compat.ko" "$root/mod/"
fi
if [ -z "${SLD_KO:-}" ] && [ -d "$top/build/fixtures/$kver" ]; then
	find "$top/build/fixtures/$kver" -name '*.ko' -exec cp {} "$root/mod/" \;
fi
for m in irqbypass kvm kvm-intel kvm-amd ccp msr; do copy_kmod "$m" "$root/kmod"; done
# The msr driver is how the guest reads MSR_TEST_CTRL (cpu-proof.sh,
# lib.sh msr_matches): a boot without it would prove less than it says.
if [ ! -f "$root/kmod/msr.ko" ] && ! grep -qx 'CONFIG_X86_MSR=y' "$kroot/boot/config-$kver"; then
	echo "vm.sh: no msr.ko in $kmods (CONFIG_X86_MSR=m or =y needed)" >&2
	exit 1
fi
# t/12-ibt.sh: the functions this kernel seals under IBT (tests/ibt/
# sealed.py, cached beside the image) and the kernel functions each .ko
# names as called through a pointer (its .comment.sld_icalls section).
seal=$SLD_CACHE/$kver/ibt-sealed.txt
if [ ! -s "$seal" ]; then
	python3 "$top/tests/ibt/sealed.py" "$kroot/boot/vmlinuz-$kver" \
		"$kroot/boot/config-$kver" > "$seal.tmp"
	mv "$seal.tmp" "$seal"
fi
cp "$seal" "$root/tests/ibt-sealed.txt"
for ko in "$root"/mod/*.ko; do
	readelf -p .comment.sld_icalls "$ko" 2>/dev/null |
		sed -n "s/^ *\[ *[0-9a-f]*\]  /$(basename "$ko" .ko) /p"
done > "$root/tests/icalls.txt"
add_udev

# bench: the largest module of the kernel and everything it depends on,
# in load order (/kmod/big/order), for the insmod-cost benchmark.
deps_of() {	# deps_of NAME: NAME's dependency closure, dependencies first
	local f d
	case " $seen " in *" $1 "*) return ;; esac
	seen="$seen $1"
	f=$(find_ko "$1")
	[ -n "$f" ] || { echo "vm.sh: no module $1" >&2; exit 1; }
	for d in $(modinfo -F depends "$f" | tr , ' '); do deps_of "$d"; done
	echo "$f"
}
# t/53-trust.sh: a disk filesystem that hands a deleted file's inode
# number to the next file (ext4 driving ext2, on a loop device; it needs
# the crc32c driver even without checksums), in load
# order (/kmod/fs/order).
if [ "$mode" != bench ]; then
	mkdir -p "$root/kmod/fs"
	seen=
	# 7.x has no crc32c_generic: its crc32c is a library ext4 depends on.
	{
		deps_of loop
		[ -z "$(find_ko crc32c_generic)" ] || deps_of crc32c_generic
		deps_of ext4
	} | while read -r f; do
		unpack_ko "$f" "$root/kmod/fs"
		basename "${f%.xz}" .ko >> "$root/kmod/fs/order"
	done
fi
if [ "$mode" = bench ]; then
	mkdir -p "$root/tests/bench" "$root/kmod/big"
	if [ -n "${BENCH_ONLY:-}" ]; then
		for b in $BENCH_ONLY; do cp "$top/bench/vm/$b.sh" "$root/tests/bench/"; done
	else
		cp "$top"/bench/vm/*.sh "$root/tests/bench/"
	fi
	# 6.12's modules are .ko.xz: the largest compressed one, unpacked.
	big=$(find "$kmods" \( -name '*.ko' -o -name '*.ko.xz' \) -printf '%s %p\n' |
		sort -n | tail -n1 | cut -d' ' -f2)
	seen=
	deps_of "$(basename "${big%.xz}" .ko)" | while read -r f; do
		unpack_ko "$f" "$root/kmod/big"
		basename "${f%.xz}" .ko >> "$root/kmod/big/order"
	done
fi
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/$kver-$mode.initrd"

log=$out/$kver-$mode.log
dcon=$out/$kver-$mode.debugcon
rm -f "$dcon"
# log_buf_len: the stress runs log ~50,000 lines (every detached task is
# named); the whole log must stay for the checks below.
# One host thread for all vCPUs (thread=single): multi-threaded TCG
# (QEMU 7.2) crashes or hangs the guest when one vCPU patches code another
# is executing (a kprobe armed or a static key flipped on a hot function),
# even with no sld_compat loaded: tests/vm/repro/tcg-kprobe-flip.sh.
# Round-robin vCPUs still interleave at every translation-block boundary,
# so races between CPUs stay exercised. VM_ACCEL=tcg shows the crash.
# The bound is for a hang, not a timing: at least twice the longest
# boot's time on a busy two-core machine (the main suite on 6.1-rt, about
# 7 minutes two at a time; once killed at 900 s on its last file).
: "${VM_TIMEOUT:=1500}"
boot_t0=$SECONDS
# --foreground: QEMU stays in the caller's process group, so that an
# interrupt, or make check's end of a phase beside (tests/phases.sh),
# ends it too; timeout alone would take it into a group of its own.
timeout --foreground "$VM_TIMEOUT" "$qemu" "${qemu_opts[@]}" -m 1024 -smp "$smp" -cpu "$cpu" \
	-accel "${VM_ACCEL:-tcg,thread=single}" "${icount[@]}" -nographic -no-reboot -monitor none -serial stdio \
	-kernel "$kroot/boot/vmlinuz-$kver" -initrd "$out/$kver-$mode.initrd" \
	-debugcon "file:$dcon" \
	-append "console=ttyS0 loglevel=1 log_buf_len=16M oops=panic panic=-1 $cpu_append ${VM_APPEND:-}" \
	</dev/null 2>&1 | tr -d '\r' > "$log" || true
# Each boot says how long it took against its bound, so that a slow run
# says where it was slow (the bound is for a hang, not a timing).
boot_secs=$((SECONDS - boot_t0))
echo "# boot $kver $mode ${VM_CPU:-stock}${VM_APPEND:+ $VM_APPEND}: ${boot_secs}s (bound ${VM_TIMEOUT}s)" >&2
# The results came through debugcon (tests/vm/init), the kernel's own
# console messages on the serial port: the log is both.
if [ -s "$dcon" ]; then
	tr -d '\r' < "$dcon" >> "$log"
fi

# A demo or bench boot proves its CPU first too (tests/vm/init): one that
# bailed out showed nothing about the CPU it was given.
if [ "$mode" = demo ] || [ "$mode" = bench ]; then
	# No proof line at all (no boot, a panic, the bound): the same error.
	proof=$(grep -m1 -E '^(not )?ok 1 - the CPU is|^Bail out!' "$log" || :)
	case $proof in
	"ok 1 - "*) echo "cpu-proof: ${proof#ok 1 - }" ;;
	*)
		grep -A20 -E '^not ok 1 - the CPU is' "$log" | grep '^#' >&2 || :
		echo "vm.sh: the $mode boot did not prove the ${VM_CPU:-stock} CPU it was given, see $log" >&2
		exit 1 ;;
	esac
fi
# The proof's harness lines are not the demo's story.
harness='/^# \(end-of-file\|exit-status\|seconds\) /d;/^# --- cpu-proof.sh$/d;/^ok 1 - the CPU is/d'
if [ "$mode" = demo ]; then
	sed -n '/@@@ BEGIN demo/,/^@@@ END$/p' "$log" | sed '1d;$d' | sed "$harness"
	exit 0
fi
if [ "$mode" = bench ]; then
	sed -n '/@@@ BEGIN bench/,/^@@@ END$/p' "$log" | sed '1d;$d' | sed "$harness" > "$out/$kver-bench.txt"
	grep -q '^@@@ END$' "$log" || { echo "vm.sh: bench VM did not finish, see $log" >&2; exit 1; }
	if grep -qE "$KERNEL_ERRORS" "$log"; then
		echo "vm.sh: the bench VM logged a kernel error, see $log" >&2
		exit 1
	fi
	exit 0
fi
# Each TAP line names the kernel, the mode and the CPU: "[6.1.0-57-amd64
# smt enforcing]"; "stock" where the system QEMU's TCG CPU ran it.
cpuname=${VM_CPU:-stock}
if [ "$mode" = smt ] || [ "$mode" = many ]; then
	"$top/tests/vm/collect.sh" "$kver $mode $cpuname" "$log" > "$out/$kver-$mode.tap"
else
	"$top/tests/vm/collect.sh" "$kver $cpuname" "$log" > "$out/$kver.tap"
fi
