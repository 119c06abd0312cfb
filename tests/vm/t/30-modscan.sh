# Modules loading after sld_compat are scanned, classified and policed;
# those loaded before are listed; the registry knobs and vendor API work.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

M=/proc/sld_compat_modules
rec() { grep "^$1 " $M; }
acct() { grep "$1" $ACCT | tr '\n' ' ' | sed 's/ $//'; }

ensure_unloaded

# ---- modules loaded before sld_compat -------------------------------------
run "insmod fx_movcr4 before sld_compat" insmod /mod/fx_movcr4.ko
run "insmod fx_svm before sld_compat" insmod /mod/fx_svm.ko
run "insmod sld_compat" load
like "$(grep '^modscan ' $S/hooks)" '^modscan module_finalize armed$' \
	"modscan hook on module_finalize is armed"
like "$(grep '^modscan-cleanup ' $S/hooks)" '^modscan-cleanup module_arch_cleanup armed$' \
	"modscan-cleanup hook on module_arch_cleanup is armed"
is "$(cat $S/degraded)" none "nothing degraded"
like "$(rec fx_movcr4)" \
	'^fx_movcr4 clean none vmx=0 svm=0 cr=1 dr=0 first=mov-cr4@core-text\+0x[0-9a-f]+ guest_calls=0 scan_us=[0-9]+ atomic_ns=0 exec_secs=1 flags=text-regions,preloaded,init-gone,no-modinfo,loaded$' \
	"preloaded fx_movcr4 listed: core text only, init text gone"
like "$(rec fx_svm)" '^fx_svm svm-only svm-text vmx=0 svm=1 .*preloaded,init-gone' \
	"preloaded fx_svm listed as svm-only"
run "rmmod fx_movcr4" rmmod fx_movcr4
like "$(rec fx_movcr4)" ',unloaded$' "record of an unloaded module says unloaded"
rmmod fx_svm

# ---- verdicts under the default policy (protect) ---------------------------
is "$(cat $P/on_hypervisor)" protect "on_hypervisor defaults to protect"
T='\.text\+0x[0-9a-f]+'
F='guest_calls=0 scan_us=[0-9]+ atomic_ns=[1-9][0-9]* exec_secs=[1-9][0-9]* flags=sections,init-scanned,modinfo'
check_fx() {	# check_fx MODULE REGEX-AFTER-NAME
	mark_dmesg
	run "insmod $1" insmod "/mod/$1.ko"
	like "$(rec "$1")" "^$1 $2" "$1: $(echo "$2" | cut -d' ' -f1-2)"
}
check_fx fx_vmlaunch "hypervisor vmx-text vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@$T $F,watched,loaded$"
like "$(new_dmesg)" "sld_compat: fx_vmlaunch: hypervisor \(vmx-text\), first vmlaunch at $T, policy protect" \
	"protect: one info line names module, verdict and first finding"
check_fx fx_vmxon "hypervisor vmx-text vmx=3 svm=0 cr=0 dr=0 first=vmxon@$T $F,watched,loaded$"
check_fx fx_safe "sld_safe modinfo-sld-safe vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@$T $F,sld_safe-unsigned,loaded$"
check_fx vmmon "hypervisor known-hypervisor vmx=0 svm=0 cr=0 dr=0 first=- $F,watched,loaded$"
check_fx fx_movcr4 "clean none vmx=0 svm=0 cr=1 dr=0 first=mov-cr4@$T $F,loaded$"
check_fx fx_svm "svm-only svm-text vmx=0 svm=1 cr=0 dr=0 first=vmrun@$T $F,loaded$"
check_fx fx_clean "clean none vmx=0 svm=0 cr=0 dr=0 first=- $F,loaded$"
# fx_imports exists only where any module may import the guest handler
# (not on 7.x, which exports it to KVM only: tests/fixtures/Kbuild).
IMPORTS=
if [ -e /mod/fx_imports.ko ]; then
	IMPORTS=fx_imports
	check_fx fx_imports "sld_safe imports-guest-handler vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@$T guest_calls=1 scan_us=[0-9]+ atomic_ns=[1-9][0-9]* exec_secs=[1-9][0-9]* flags=sections,init-scanned,modinfo,loaded$"
else
	skip "fx_imports: sld_safe (imports-guest-handler)" "this kernel exports handle_guest_split_lock to KVM only"
fi
check_fx fx_vendor "sld_safe vendor-safe vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@$T $F,loaded$"
like "$(new_dmesg)" "fx_vendor declares itself split-lock safe" "vendor API call logged"
is "$(cat $S/disable_count)" 0 "protect never disables SLD"

# The offline scanner agrees with the kernel (fx_vendor excluded: its
# vendor declaration exists only at run time).
for m in fx_vmlaunch fx_vmxon fx_safe vmmon fx_movcr4 fx_svm fx_clean $IMPORTS; do
	ko=/mod/$m.ko
	off=$(sldctl scan --json "$ko" | sed -n 's/.*"verdict": "\([^"]*\)".*/\1/p')
	is "$(rec "$m" | cut -d' ' -f2)" "$off" "$m: kernel verdict equals sldctl's"
done

for m in fx_vmlaunch fx_vmxon fx_safe vmmon fx_movcr4 fx_svm fx_clean $IMPORTS fx_vendor; do
	rmmod "$m"
done
is "$(grep -c ',loaded$' $M)" 0 "every record says unloaded after rmmod"

# ---- policy log -------------------------------------------------------------
is "$(knob_w on_hypervisor 'log\n')" OK "on_hypervisor=log"
mark_dmesg
run "log: fx_vmxon loads" insmod /mod/fx_vmxon.ko
like "$(new_dmesg)" "fx_vmxon: hypervisor \(vmx-text\), first vmxon at $T, policy log" \
	"log: info line names the finding"
like "$(rec fx_vmxon)" ' hypervisor vmx-text .*,loaded$' "log: recorded"
rmmod fx_vmxon

# ---- policy disable ----------------------------------------------------------
is "$(knob_w on_hypervisor 'disable\n')" OK "on_hypervisor=disable"
is "$(cat $S/disable_count)" 0 "disable: count 0 before"
# A CPU with SLD (KMODE warn) starts with SLD on and takes real writes;
# stock TCG starts off and every write is skipped.
if [ $CPU_SLD = 1 ]; then did=msr_writes not=msr_skipped sld0=on; else
	did=msr_skipped not=msr_writes sld0=off; fi
s0=$(acf cpu0 $did) s1=$(acf cpu1 $did) n0=$(acf cpu0 $not) n1=$(acf cpu1 $not)
like "$(acct cpu0)" "^cpu0 core=[0-9.]+ hold=0 task=0 bracket=0 sld=$sld0 " \
	"disable: cpu0 not held off before (kernel mode $KMODE: sld=$sld0)"
run "disable: fx_vmlaunch loads" insmod /mod/fx_vmlaunch.ko
is "$(cat $S/disable_count)" 1 "disable: count 1"
is "$(acf cpu0 hold) $(acf cpu1 hold)" "1 1" "disable: every CPU's core held off"
is "$(acf cpu0 $did) $(acf cpu1 $did)" "$((s0 + 1)) $((s1 + 1))" \
	"disable: one MSR write per core ($did)"
is "$(acf cpu0 $not) $(acf cpu1 $not)" "$n0 $n1" "disable: no $not"
[ $CPU_SLD = 0 ] || msr_matches "disable: held off"
like "$(rec fx_vmlaunch)" ',sld-disabled,loaded$' "disable: record holds the disable"
run "disable: fx_vmxon loads" insmod /mod/fx_vmxon.ko
is "$(cat $S/disable_count)" 2 "disable: count 2"
is "$(acf cpu0 $did)" "$((s0 + 1))" "disable: second holder makes no new write"
run "rmmod fx_vmlaunch" rmmod fx_vmlaunch
is "$(cat $S/disable_count)" 1 "disable: count back to 1"
is "$(acf cpu0 hold)" 1 "disable: still held off while one holder is loaded"
run "rmmod fx_vmxon" rmmod fx_vmxon
is "$(cat $S/disable_count)" 0 "disable: count back to 0"
is "$(acf cpu0 hold) $(acf cpu1 hold)" "0 0" "disable: hold released after the last unload"
is "$(acf cpu0 $did) $(acf cpu1 $did)" "$((s0 + 2)) $((s1 + 2))" \
	"disable: one more write per core ($did) to turn it back"
if [ $CPU_SLD = 1 ]; then
	msr_matches "disable: released"
	rmmod msr	# msr_matches loaded it; t/31 counts loaded modules
fi
run "disable: clean module does not disable" insmod /mod/fx_clean.ko
is "$(cat $S/disable_count)" 0 "disable: clean module leaves count 0"
rmmod fx_clean

# ---- policy refuse ------------------------------------------------------------
is "$(knob_w on_hypervisor 'refuse\n')" OK "on_hypervisor=refuse"
expect_dmesg 'sld_compat: refusing fx_vmlaunch: vmlaunch at \.text\+0x[0-9a-f]+$'
expect_dmesg 'sld_compat: refusing fx_vmxon: vmxon at \.text\+0x[0-9a-f]+$'
expect_dmesg 'sld_compat: refusing vmmon: known-hypervisor$'
expect_dmesg 'sld_compat: refusing fx_clean: admin-hypervisor$'
for m in fx_vmlaunch fx_vmxon vmmon; do
	before=$(grep -c "^$m " $M)
	mark_dmesg
	out=$(insmod /mod/$m.ko 2>&1)
	rc=$?
	is "$([ $rc -ne 0 ] && echo failed)" failed "refuse: insmod $m fails"
	like "$out" "Operation not permitted" "refuse: insmod $m says EPERM"
	fails "refuse: $m is not loaded" sh -c "lsmod | grep -q '^$m '"
	is "$(grep -c "^$m " $M)" "$before" "refuse: no record added for $m"
	like "$(new_dmesg)" "sld_compat: refusing $m: " "refuse: dmesg names $m"
done
run "refuse: sld_safe fx_safe still loads" insmod /mod/fx_safe.ko
like "$(rec fx_safe)" ' sld_safe modinfo-sld-safe .*,loaded$' "refuse: sld_safe honoured"
run "refuse: fx_clean loads" insmod /mod/fx_clean.ko
run "refuse: fx_svm loads (svm-only is not refused)" insmod /mod/fx_svm.ko
rmmod fx_safe; rmmod fx_clean; rmmod fx_svm

# ---- registry knobs -----------------------------------------------------------
check_list() {	# check_list KNOB "GOOD:SHOWN ..." BAD...
	k=$1 goods=$2; shift 2
	for gs in $goods; do
		g=${gs%%:*} s=${gs#*:}
		is "$(knob_w "$k" "$g\\n")" OK "$k: write '$g'"
		is "$(cat "$P/$k")" "$s" "$k: reads back '$s'"
	done
	knob_rejects "$k" "$@"
}
long=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa	# 56
many=$(i=0; while [ $i -lt 65 ]; do printf 'm%d,' $i; i=$((i + 1)); done)
many=${many%,}
check_list safe_modules "a,b-c:a,b_c +d:a,b_c,d -a:b_c,d +e,-d:b_c,e" \
	"a,,b" ",a" "a," "a,a" "a-b,a_b" "a b" "a.b" "+" "-x" "+x,y" \
	"$long" "$many" "a;b" "+b_c" "\\xc3\\xa9" "\\n"
check_list hypervisor_modules "fx-clean:fx_clean +z:fx_clean,z -z:fx_clean" \
	"b_c" "+e" "q,,r" "q,q" "-nothere" "q/r" "+q,r" "$long" "$many" ",," \
	"--" "q*"
like "$(cat $P/safe_modules) $(cat $P/hypervisor_modules)" '^b_c,e fx_clean$' \
	"registry state after the bad writes"
mark_dmesg
fails "admin hypervisor_modules: fx_clean refused" insmod /mod/fx_clean.ko
like "$(new_dmesg)" "refusing fx_clean: admin-hypervisor" "admin-hypervisor named"
is "$(knob_w safe_modules '+fx_vmlaunch\n')" OK "admin: fx_vmlaunch declared safe"
run "admin safe_modules: fx_vmlaunch loads under refuse" insmod /mod/fx_vmlaunch.ko
like "$(rec fx_vmlaunch)" ' sld_safe admin-safe vmx=1 .*,loaded$' "admin-safe verdict"
rmmod fx_vmlaunch
is "$(knob_w hypervisor_modules '-fx_clean\n')" OK "hypervisor_modules: remove fx_clean"
is "$(cat $P/hypervisor_modules)" - "hypervisor_modules empty again, reads -"
is "$(knob_w safe_modules 'x,y\n')" OK "safe_modules: x,y"
is "$(knob_w safe_modules '-\n')" OK "safe_modules: - clears"
is "$(cat $P/safe_modules)" - "safe_modules cleared, reads -"

# ---- without the module_finalize hook: text regions only ----------------------
is "$(knob_w on_hypervisor 'protect\n')" OK "on_hypervisor=protect"
is "$(knob_w enabled 'N\n')" OK "hooks disarmed (enabled=N)"
run "fallback: fx_safe loads" insmod /mod/fx_safe.ko
like "$(rec fx_safe)" \
	'^fx_safe hypervisor vmx-text vmx=1 svm=0 cr=0 dr=0 first=vmlaunch@core-text\+0x[0-9a-f]+ guest_calls=0 scan_us=[0-9]+ atomic_ns=0 exec_secs=2 flags=text-regions,init-scanned,no-modinfo,watched,loaded$' \
	"fallback: core/init text scanned, no section names, no modinfo (so no sld_safe)"
rmmod fx_safe
is "$(knob_w enabled 'Y\n')" OK "hooks armed again"

# ---- kvm_intel from the kernel image ------------------------------------------
is "$(knob_w on_hypervisor 'disable\n')" OK "on_hypervisor=disable for kvm"
if [ -f /kmod/kvm-intel.ko ]; then
	insmod /kmod/irqbypass.ko 2>/dev/null
	run "insmod kvm" insmod /kmod/kvm.ko
	out=$(insmod /kmod/kvm-intel.ko 2>&1)
	diag "kvm_intel insmod: ${out:-loaded}"
	like "$(rec kvm_intel)" '^kvm_intel sld_safe imports-guest-handler vmx=[1-9][0-9]* .* guest_calls=[1-9][0-9]* .*flags=sections,init-scanned,modinfo' \
		"kvm_intel scanned: sld_safe, calls handle_guest_split_lock"
	lsmod | grep -q '^kvm_intel ' && rmmod kvm_intel
	like "$(rec kvm_intel)" ',unloaded$' "kvm_intel record marked unloaded (GOING cleaned up)"
	is "$(cat $S/disable_count)" 0 "kvm_intel left no disable behind"
	rmmod kvm; rmmod irqbypass 2>/dev/null
else
	nok "kvm-intel.ko is in the initramfs (vm.sh packs it from the kernel's image)"
fi
is "$(knob_w on_hypervisor 'protect\n')" OK "on_hypervisor back to protect"
