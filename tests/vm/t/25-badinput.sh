# Bad input, table-driven: every knob gets at least 20 malformed values
# (empty, whitespace, huge, non-UTF-8, embedded NUL, control bytes,
# negative, overflow, unknown names, duplicates, path traversal); each must
# fail with EINVAL, leave the knob as it was and log the knob's rejection
# line (knob_rejects in lib.sh).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

ensure_loaded

huge=$(head -c 4000 /dev/zero | tr '\0' a)	# under PAGE_SIZE, over every max_len
page=$(head -c 8192 /dev/zero | tr '\0' 1)	# over PAGE_SIZE: sysfs cuts it to 4096
long56=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
names65=$(i=0; while [ $i -lt 65 ]; do printf 'm%d,' $i; i=$((i + 1)); done)
names65=${names65%,}
names33=$(seq -s, 1 33 | sed 's/[0-9][0-9]*/n&/g')
ids33=$(seq -s, 1 33)

# Rejected by the byte rules every knob shares (knobs.c check_bytes) or by
# every setter: 18 values. Escapes as sldtest write: \n \t \0 \xNN.
generic() {
	set -- "\\n" " " "\\t" "\\n\\n" "\\x0d" " 1" "1 " "$huge" "$page" \
		"\\xff" "\\xc3\\x28" "\\xc3\\xa9" "\\0" "a\\0b" "\\x1b[0m" "\\x7f" \
		"../../../etc/passwd/x" "-1"
	for v in "$@"; do printf '%s\n' "$v"; done
}

# table KNOB VALUE...: generic values plus the knob's own, >= 20 in all
# (a diagnostic: the count is this file's own). A 0-byte write is not
# among them: sysfs returns 0 for it before the module sees it.
table() {
	k=$1; shift
	echo "$k" >> /tmp/bad.knobs
	generic > "/tmp/bad.$k"
	for v in "$@"; do printf '%s\n' "$v"; done >> "/tmp/bad.$k"
	n=$(grep -c '' "/tmp/bad.$k")
	[ "$n" -ge 20 ] || diag "$k: only $n bad values in its table (want >= 20)"
	# knob_rejects takes the values as arguments: one per line, read back.
	set --
	while IFS= read -r v; do set -- "$@" "$v"; done < "/tmp/bad.$k"
	knob_rejects "$k" "$@"
	rm -f "/tmp/bad.$k"
}
rm -f /tmp/bad.knobs

# Non-default starting values, so "unchanged" means something.
is "$(knob_w verbose 2)" OK "verbose=2 before the table"
is "$(knob_w on_hypervisor log)" OK "on_hypervisor=log before the table"
is "$(knob_w safe_modules keep_a,keep-b)" OK "safe_modules set before the table"
is "$(knob_w hypervisor_modules keep_h)" OK "hypervisor_modules set before the table"
is "$(knob_w exempt_comm keep1,keep2)" OK "exempt_comm set before the table"
is "$(knob_w run_allow 1000,@60)" OK "run_allow set before the table"

table verbose "4" "99999999999999999999" "2147483648" "-2147483649" "+1" \
	"0x1" "1.0" "one" "1,2" "01x" "%d" "1x" "1\\02" "\\t1"
table enabled "2" "yes" "true" "on" "YY" "Y,N" "99999999999999999999" \
	"-0" "%s" "y\\n\\n" "10" "Y\\0" "1\\n\\n"
table on_hypervisor "PROTECT" "protect,log" "refuse2" "prot" "off" \
	"99999999999999999999" "protect\\0" "\$(reboot)" "%n"
for k in safe_modules hypervisor_modules; do
	table $k "a,,b" ",a" "a," "dup,dup" "a-b,a_b" "a b" "a.b" "+" \
		"+x,y" "x,+y" "-not_listed" "$long56" "$names65" "a;b" "a/b" \
		"../x" "keep_h,keep_a" "%s%n"
done
table exempt_comm ",a" "a,,b" "a," "dup,dup" "+keep1" "-not_listed" \
	"sixteen_chars_xx" " a" "a " "*" "a\\\\" "+x,y" "x,+y" "--" "+" "$names33" "a\\tb"

table exempt_path "relative/path" "./x" "/usr/bin/../../etc/passwd" \
	"/a,,/b" "/tests/bin/sldtest,/tests/bin/sldtest" "/a/\\n/b" "/$huge" \
	"/nonexistent" "/tests" "/tests/bin/sldtest/"
# A cgroup that does not exist yet is no bad input: the rule waits for it
# (t/44-exempt-rules.sh).
table exempt_cgroup "relative" "/a/../../b" "/a,,/b" "/a,/a" "//" \
	"/a b" "/" "/a/\\n/b"
table exempt_proactive "2" "yes" "YY" "99999999999999999999" "-0" "on"
table max_tasks "0" "15" "262145" "+1024" "0x400" "1e3" "1024.0" "1,024" \
	"99999999999999999999" "4294967312"
table tasks_per_uid "0" "262145" "+8" "0x8" "8k" "8.5" "99999999999999999999" \
	"-0" "4294967297"
table trust_sld_safe "y" "1" "yes" "Signed" "SIGNED" "n" "0" "signed,N" \
	" N" "sign" "YN" "99999999999999999999" "%s"
# sldctl apply resolves names; the module takes numbers only.
table run_allow "alice" "@" "@games" "01" "@01" "4294967295" "99999999999" \
	"1 000" "1000,alice" "+alice" "," "1000,,60" "7,7" "@-1" "+" "-@61" \
	"$ids33"
# Every knob the module has, by its own parameter directory, was tried.
is "$(cd "$P" && printf '%s\n' * | sort | paste -sd' ')" "$(sort /tmp/bad.knobs | paste -sd' ')" \
	"every knob of $P has a bad-value table"

# Load time: the same setter, a bad value fails the load.
unload
expect_dmesg "invalid for parameter"
for kv in "verbose=-1" "enabled=2" "on_hypervisor=bogus" "safe_modules=a,,b" \
	"hypervisor_modules=dup,dup" "exempt_comm=sixteen_chars_xx"; do
	fails "insmod with $kv fails" load "$kv"
done
fails "sld_compat not loaded after the bad insmods" sh -c "lsmod | grep -q '^sld_compat '"
