# Issue #12 item 1, the fix, on the enforcing CPU: where the kernel seals
# kallsyms_lookup_name under IBT (6.12), sld_compat 0.1.0 died at load of
# #CP ("Missing ENDBR", tests/qemu/crash.sh ibt shows it with ibtcall.ko).
# Now it loads and finds every symbol; the fixtures refuse their one
# sealed target instead of calling it.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

mark_dmesg
run "sld_compat loads" load
is "$(cat $S/degraded)" none "every symbol resolved, nothing degraded"
like "$(grep '^ac-user ' $S/hooks)" 'handle_user_split_lock override=[a-z0-9-]+ armed$' "ac-user hook armed"
unload
run "actest loads" insmod /mod/actest.ko
case $(uname -r) in
6.1.*)
	fails "6.1 seals nothing: actest refuses no target" \
		sh -c "dmesg | grep -q 'is sealed (IBT): not called'" ;;
*)
	like "$(new_dmesg)" 'actest: handle_user_split_lock is sealed \(IBT\): not called' \
		"actest refuses the sealed handle_user_split_lock (no #CP)" ;;
esac
rmmod actest
fails "no Missing ENDBR report" sh -c "dmesg | grep -q 'Missing ENDBR'"
