# One module, one verdict, whatever the load order (issue #12 item 8):
# each rule of the classification, for a fixture loaded after sld_compat
# and for the same fixture loaded before it. Then a load that fails
# after module_finalize (issue #12 item 3): its finalize record is
# dropped, and the next load of that module is scanned from its own.
# shellcheck source=SCRIPTDIR/../lib.sh # the VM's /tests is tests/vm
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
run "unload sld_compat" unload

# ---- loaded before sld_compat ----------------------------------------------
echo "$cases" | while read -r m v r before; do
	run "before: insmod $m" insmod "/mod/$m.ko"
done
# shellcheck disable=SC2086 # ADMIN: one module parameter per word
run "load sld_compat ($ADMIN)" load $ADMIN
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
