# One module, one verdict, whatever the load order (issue #12 item 8):
# each rule of the classification, for a fixture loaded after sld_compat
# and for the same fixture loaded before it. The same text in both orders
# (issue #37 item 7): every executable section of a module with more
# sections than sld_compat once kept (fx_sect20). Then a load that fails
# after module_finalize (issue #12 item 3): its finalize record is
# dropped, and the next load of that module is scanned from its own.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

M=/proc/sld_compat_modules
vr() { grep "^$1 " $M | tail -n 1 | cut -d' ' -f2,3; }
rec() { grep "^$1 " $M | tail -n 1; }
ADMIN="safe_modules=fx_vmxon hypervisor_modules=fx_clean"
# MODULE VERDICT REASON(after) REASON(before): the same but for two
# rules that a module loaded earlier cannot meet. fx_initvmx has VMXON in
# its init text only: init findings never count (issue #25 item 5), so it
# is clean in both orders, though only a load after sld_compat sees them.
# sld_safe modinfo: the kernel frees .modinfo after the load, so a
# loaded module's tag is gone (flags no-modinfo). The vendor API:
# fx_vendor's init found no sld_compat to declare itself to.
cases='fx_vmlaunch hypervisor vmx-text same
vmmon hypervisor known-hypervisor same
fx_svm svm-only svm-text same
fx_movcr4 clean none same
fx_vmxon sld_safe admin-safe same
fx_clean hypervisor admin-hypervisor same
fx_safe sld_safe modinfo-sld-safe hypervisor:vmx-text
fx_vendor sld_safe vendor-safe hypervisor:vmx-text
fx_initvmx clean none same'

# fx_imports exists only where any module may import the guest handler
# (not on 7.x, which exports it to KVM only: tests/fixtures/Kbuild).
if [ -e /mod/fx_imports.ko ]; then
	cases="fx_imports sld_safe imports-guest-handler same
$cases"
else
	skip "the guest-handler rule in both orders" "this kernel exports handle_guest_split_lock to KVM only"
fi
ensure_unloaded

# ---- loaded after sld_compat ------------------------------------------------
# shellcheck disable=SC2086 # ADMIN: one module parameter per word
run "load sld_compat ($ADMIN)" load $ADMIN
echo "$cases" | while read -r m v r before; do
	run "after: insmod $m" insmod "/mod/$m.ko"
	is "$(vr "$m")" "$v $r" "after: $m is $v ($r)"
	rmmod "$m"
done
[ -e /mod/fx_imports.ko ] &&
	like "$(rec fx_imports)" '^fx_imports .* guest_calls=[1-9][0-9]* .*flags=sections,' \
		"after: fx_imports' call to handle_guest_split_lock found in its .text"
like "$(rec fx_initvmx)" '^fx_initvmx clean none vmx=0 .* first=- .*flags=sections,init-scanned,modinfo,init-findings-ignored,unloaded$' \
	"after: fx_initvmx's init-text vmxon seen, not counted"
is "$(vr fx_vmlaunch | cut -d' ' -f1) $(grep '^fx_vmlaunch ' $M | tail -n 1 | sed 's/.* guest_calls=\([0-9]*\) .*/\1/')" \
	"hypervisor 0" "after: fx_vmlaunch calls no guest handler"

# fx_sect20: .sldx1 to .sldx20 hold a mov %rax,%cr4 each, .sldx20 a VMXON
# too (tests/fixtures/fx_sect20.c). cr=20 says each of the 20 was read.
# field N LINE: the value of the key N= in a record line.
field() { echo "$2" | sed -n "s/.* $1=\([^ ]*\) .*/\1/p"; }
run "after: insmod fx_sect20" insmod /mod/fx_sect20.ko
secs=$(ls -A /sys/module/fx_sect20/sections)
is "$(echo "$secs" | grep -c '^\.sldx[0-9]*$')" 20 "fx_sect20 has its 20 sections .sldx1-20 (sysfs)"
# Its executable sections, as sysfs names the non-empty ones: the 20,
# .init.text, .exit.text, and whatever else *text* this kernel adds.
xsecs=$(echo "$secs" | grep -E 'text|^\.sldx[0-9]+$|^\.altinstr_replacement$')
diag "fx_sect20's executable sections: $(echo "$xsecs" | paste -sd' ')"
a20=$(rec fx_sect20)
diag "after: $a20"
like "$a20" '^fx_sect20 hypervisor vmx-text vmx=1 svm=0 cr=20 dr=0 first=vmxon@\.sldx20\+0x[0-9a-f]+ .*flags=sections,init-scanned,modinfo,watched,loaded$' \
	"after: all 20 sections scanned, the VMXON in the last found: hypervisor"
is "$(field exec_secs "$a20")" "$(echo "$xsecs" | grep -c .)" \
	"after: every executable section of fx_sect20 scanned (exec_secs)"
# Where .sldx20 lies in the core text: its address less the lowest of
# the executable sections' but .init* (the loader placed that one
# first), in the low 32 bits (modules lie in one 2 GB area). A load
# before sld_compat, of the same file on the same kernel, has the same
# layout: its core-text offset of the VMXON follows.
lo32() { sed 's/^0x.\{8\}//' "/sys/module/fx_sect20/sections/$1"; }
base=
for x in $(echo "$xsecs" | grep -v '^\.init'); do
	v=$((0x$(lo32 "$x")))
	[ -n "$base" ] && [ "$v" -ge "$base" ] || base=$v
done
o20=$((0x$(lo32 .sldx20) - base))
diag "fx_sect20: .sldx20 at core text +0x$(printf %x $o20)"
rmmod fx_sect20
# The offline scanner reads the file the same way.
j=$(sldctl scan --json /mod/fx_sect20.ko)
is "$(echo "$j" | sed -n 's/.*"verdict": "\([^"]*\)".*/\1/p')" hypervisor \
	"sldctl scan: fx_sect20 is a hypervisor"
is "$(echo "$j" | grep '"insn": "mov-cr4"' | sed 's/.*"section": "\([^"]*\)".*/\1/' | sort -u | grep -c '^\.sldx')" 20 \
	"sldctl scan: a mov-cr4 in each of the 20 sections"
vo=$(echo "$j" | sed -n 's/.*{"section": "\.sldx20", "offset": \([0-9]*\), "insn": "vmxon"}.*/\1/p')
is "vmxon@.sldx20+0x$(printf %x "${vo:-0}")" "$(field first "$a20")" \
	"sldctl scan and the kernel name the same VMXON (.sldx20, same offset)"
run "unload sld_compat" unload

# ---- loaded before sld_compat ----------------------------------------------
echo "$cases" | while read -r m v r before; do
	run "before: insmod $m" insmod "/mod/$m.ko"
done
run "before: insmod fx_sect20" insmod /mod/fx_sect20.ko
# shellcheck disable=SC2086 # ADMIN: one module parameter per word
run "load sld_compat ($ADMIN)" load $ADMIN
b20=$(rec fx_sect20)
diag "before: $b20"
like "$b20" '^fx_sect20 hypervisor vmx-text vmx=1 svm=0 cr=20 dr=0 first=vmxon@core-text\+0x[0-9a-f]+ .* exec_secs=1 flags=text-regions,preloaded,init-gone,no-modinfo,watched,loaded$' \
	"before: fx_sect20's core text scanned whole: hypervisor"
is "$(echo "$b20" | cut -d' ' -f2-7)" "$(echo "$a20" | cut -d' ' -f2-7)" \
	"fx_sect20: the same verdict and findings in both orders"
is "$(field first "$b20")" "vmxon@core-text+0x$(printf %x $((o20 + ${vo:-0})))" \
	"before: the same VMXON, at .sldx20's place in the core text"
rmmod fx_sect20
echo "$cases" | while read -r m v r before; do
	want="$v $r"
	[ "$before" = same ] || want=$(echo "$before" | tr : ' ')
	is "$(vr "$m")" "$want" "before: $m is $want"
	like "$(rec "$m")" ',preloaded,init-gone,' "before: $m scanned as preloaded"
done
if [ -e /mod/fx_imports.ko ]; then
	like "$(rec fx_imports)" '^fx_imports .* guest_calls=[1-9][0-9]* .*flags=text-regions,' \
		"before: fx_imports' call found in its core text"
	like "$(rec fx_imports)" ' sld_safe imports-guest-handler .*,loaded$' \
		"before: fx_imports is not watched"
fi
like "$(rec fx_safe)" ',no-modinfo,' "before: fx_safe's .modinfo was gone (why it differs)"
like "$(rec fx_initvmx)" '^fx_initvmx clean none vmx=0 .*,preloaded,init-gone,' "before: fx_initvmx's init text gone, clean all the same"
echo "$cases" | while read -r m rest; do rmmod "$m"; done
# Records of modules still loaded: none of the fixtures (another module,
# e.g. the msr driver a test on the enforcing CPU loaded, may be).
loaded=$(grep ',loaded$' $M | cut -d' ' -f1)
diag "still loaded: $(echo "$loaded" | paste -sd" ")"
is "$(echo "$loaded" | grep -cxF "$(echo "$cases" | cut -d' ' -f1)")" 0 "every fixture unloaded"
run "unload sld_compat" unload

# ---- a load that fails between module_finalize and COMING -------------------
run "load sld_compat verbose=2" load verbose=2
mark_dmesg
is "$(sldtest badargs /mod/fx_clean.ko)" EFAULT \
	"fx_clean with an unreadable argument string fails (EFAULT)"
fails "fx_clean is not loaded" sh -c "lsmod | grep -q '^fx_clean '"
like "$(new_dmesg)" 'sld_compat: fx_clean: load failed after module_finalize, its record dropped' \
	"the failed load's finalize record is dropped"
is "$(grep -c '^fx_clean ' $M)" 0 "no record for the failed load"
mark_dmesg
run "fx_clean loads after the failure" insmod /mod/fx_clean.ko
like "$(rec fx_clean)" '^fx_clean clean none .*flags=sections,init-scanned,modinfo,loaded$' \
	"fx_clean scanned from its own sections"
# Since the mark: earlier tests (knobstress flips enabled while modules
# load) legitimately make records that are then ignored.
is "$(new_dmesg | grep -c 'finalize record not from this load')" 0 "no stale finalize record met"
rmmod fx_clean
run "unload sld_compat" unload
