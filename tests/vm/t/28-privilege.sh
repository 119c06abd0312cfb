# Privilege: every writable interface refuses an unprivileged user, and
# nothing changes. Knobs are found by listing the directory, so knobs added
# later are covered without editing this file.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

ensure_loaded
NOBODY=65534
asnobody() { sldtest asuser $NOBODY "$@"; }

for f in "$P"/*; do
	k=$(basename "$f")
	before=$(cat "$f")
	v=$before
	[ -n "$v" ] || v=x
	# A good value and a bad one: refused alike, before any check.
	is "$(asnobody sldtest write "$f" "$v") $(asnobody sldtest write "$f" "\\n")" "EACCES EACCES" \
		"$k: unprivileged write refused, good or bad value"
	is "$(cat "$f")" "$before" "$k: unchanged"
done
for f in "$S"/* /proc/sld_compat_modules $ACCT; do
	is "$(asnobody sldtest write "$f" x)" EACCES "$(basename "$f"): unprivileged write refused"
	like "$(sldtest write "$f" x)" '^E' "$(basename "$f"): not writable by root either"
done
like "$(asnobody cat $S/status)" '^version: ' "status readable by anyone"
fails "unprivileged insmod refused" asnobody insmod /mod/fx_clean.ko
fails "unprivileged rmmod refused" asnobody rmmod sld_compat
is "$(cat /sys/module/sld_compat/initstate)" live "sld_compat still loaded"
fails "unprivileged sldctl apply refused" asnobody sldctl apply
unload
