# IBT: no .ko of ours calls a kernel function through a pointer where this
# kernel seals it. With CONFIG_X86_KERNEL_IBT (Debian's 6.12) the kernel
# overwrites at boot the ENDBR64 of every function whose address it never
# takes (on every CPU); on a CPU with IBT an indirect call to one of them
# raises #CP, a BUG in the caller. sld_compat 0.1.0 called
# kallsyms_lookup_name so and died at load on every IBT host with 6.12.
# ibt-sealed.txt: tests/ibt/sealed.py over this kernel's vmlinuz;
# icalls.txt: each .ko's .comment.sld_icalls (ksym.h, SLD_ICALL).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

SEAL=/tests/ibt-sealed.txt
ICALLS=/tests/icalls.txt
TEXT=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)

# offset NAME: NAME's offset from _text as sealed.py writes it (hex). Kernel
# text lies in one 1 GiB range: the low 32 bits suffice, whatever KASLR did.
offset() {
	_a=$(awk -v s="$1" '$3 == s && NF == 3 { print $1; exit }' /proc/kallsyms)
	[ -n "$_a" ] || return 1
	printf '%x\n' $((0x${_a#????????} - 0x${TEXT#????????}))
}
sealed() { _o=$(offset "$1") && grep -qx "$_o" $SEAL; }
# sealed_calls GREP-ARGS: "module function" of the selected lines of
# icalls.txt whose function this kernel seals.
sealed_calls() {
	grep "$@" $ICALLS | while read -r _m _f; do
		sealed "$_f" && echo "$_m $_f"
	done
}

like "$TEXT" '^[0-9a-f]{16}$' "/proc/kallsyms shows _text"
fx=$(grep -vc '^sld_compat ' $ICALLS)
like "$fx" '^[4-9]$' "the fixtures name their indirect calls ($fx)"
diag "$(cat $ICALLS)"

if [ "$(sed -n 1p $SEAL)" = "ibt yes" ]; then
	n=$(($(wc -l < $SEAL) - 1))
	like "$n" '^[0-9]{4,}$' "this kernel seals functions under IBT ($n)"
	run "kallsyms_lookup_name is sealed (what sld_compat 0.1.0 called)" \
		sealed kallsyms_lookup_name
	run "handle_user_split_lock is sealed" sealed handle_user_split_lock
	fails "handle_guest_split_lock is not sealed (exported)" \
		sealed handle_guest_split_lock
	# Fixtures: a sealed target is refused where IBT is enforced
	# (fx_lookup.h); this list changes only by a decision.
	is "$(sealed_calls -v '^sld_compat ')" "actest handle_user_split_lock" \
		"fixtures: the one sealed indirect call is actest's user path"
else
	is "$(wc -l < $SEAL)" 1 "kernel without IBT: nothing sealed"
	is "$(sealed_calls -v '^sld_compat ')" "" "fixtures: no sealed indirect call"
fi
is "$(sealed_calls '^sld_compat ')" "" "sld_compat calls no sealed function through a pointer"
is "$(grep -c '^sld_compat ' $ICALLS)" 0 "sld_compat calls no kernel function through a pointer"

# The resolver (ksym.h) works without calling anything: every symbol found.
ensure_unloaded
run "sld_compat loads" load
is "$(cat $S/degraded)" none "every symbol resolved (nothing degraded)"
like "$(grep '^ac-user ' $S/hooks)" 'handle_user_split_lock override=[a-z0-9-]+ armed$' \
	"ac-user hook placed on the resolved handle_user_split_lock"
unload
