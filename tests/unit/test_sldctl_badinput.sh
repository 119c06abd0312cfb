#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input for every sldctl subcommand, table-driven, at least 20 each:
#   scan    broken, truncated, mislabelled and unreadable files, odd paths
#   apply   configuration lines the parser must refuse, each alone in the
#           file: exit 1, FILE:LINE on stderr, no knob written
#   status  malformed arguments: exit 2 and the usage
# Every run is the ASan/UBSan build: a sanitizer report fails the test.
# Run through the wrapper badinput.mk generates (SLDCTL, SLDCTL_DATA).
set -u

: "${SLDCTL:?}" "${SLDCTL_DATA:?}"
D=$SLDCTL_DATA
. "$(dirname "$0")/../lib/unit.sh"
no_sanitizer() {	# WHAT
	if grep -qE 'Sanitizer|runtime error' "$T/err"; then
		nok "$1: sanitizer report"
		sed 's/^/#   /' "$T/err" | head -n 20
	else
		ok "$1: no sanitizer report"
	fi
}

# ---- scan: files ------------------------------------------------------------------
good=$D/sld_vmx.ko
sz=$(wc -c < "$good")
B=$T/bad
mkdir -p "$B"
: > "$B/empty"
printf '\177' > "$B/one-byte"
printf '\177ELF' > "$B/magic-only"
head -c 64 "$good" > "$B/header-only"
head -c $((sz / 2)) "$good" > "$B/half"
awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", int(rand() * 256) }' > "$B/random"
printf '\3757zXZ\0garbage-garbage' > "$B/xz-garbage.ko.xz"
printf '\050\265\057\375garbage-garbage' > "$B/zstd-garbage.ko.zst"
head -c $(($(wc -c < "$D/sld_vmx.ko.xz") / 2)) "$D/sld_vmx.ko.xz" > "$B/half.ko.xz"
head -c $(($(wc -c < "$D/sld_vmx.ko.zst") / 2)) "$D/sld_vmx.ko.zst" > "$B/half.ko.zst"
gzip -c "$good" > "$B/gzip.ko.gz"
echo hello > "$B/text.ko"
patch() {	# patch OUT OFFSET BYTES(octal escapes): a copy of good with bytes replaced
	cp "$good" "$1"
	printf '%b' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
patch "$B/machine-arm.ko" 18 '\050\000'		# e_machine EM_ARM
patch "$B/exec.ko" 16 '\002\000'		# e_type ET_EXEC
patch "$B/big-endian.ko" 5 '\002'		# EI_DATA big-endian
patch "$B/shoff-past-end.ko" 40 '\377\377\377\377\000\000\000\000'
patch "$B/shnum-huge.ko" 60 '\377\377'
patch "$B/shstrndx-bad.ko" 62 '\376\377'
patch "$B/shentsize-bad.ko" 58 '\001\000'
ln -s "$B/loop2" "$B/loop1"
ln -s "$B/loop1" "$B/loop2"
long=$(printf '%05000d' 0)

n=0
for f in "$B"/* "$D/m32_vmx.ko" /nonexistent/module.ko "$T" /dev/null \
	"../../../../../../../../nonexistent/x.ko" "$T/$(printf '\377\376').ko" \
	"$T/$long.ko"; do
	n=$((n + 1))
	w="scan $(basename "$f" | cut -c1-40 | LC_ALL=C tr -c "[:print:]" "?")"
	capture "$SLDCTL" scan "$f"
	expect_rc 2 "$w"
	if [ -s "$T/err" ] && grep -q '^sldctl: ' "$T/err"; then ok "$w: says why"
	else nok "$w: says why"; sed 's/^/#   /' "$T/err"; fi
	no_sanitizer "$w"
	capture "$SLDCTL" scan --json "$f"
	expect_rc 2 "$w --json"
	no_sanitizer "$w --json"
done
if [ $n -ge 20 ]; then ok "scan: $n bad files"; else nok "scan: only $n bad files"; fi

# ---- apply: configuration lines -------------------------------------------------------
R=$T/root
P=$R/sys/module/sld_compat/parameters
E=$R/etc/sld-compat
mkdir -p "$P" "$R/sys/kernel/sld_compat" "$E/conf.d"
echo Y > "$P/enabled"
echo 1 > "$P/verbose"
echo 7 > "$P/frozen"
chmod 0444 "$P/frozen"
k33=$(printf '%033d' 0 | tr 0 k)
v4001=$(printf '%04001d' 0)
n=0
while IFS= read -r line; do
	n=$((n + 1))
	printf '%b\n' "$line" > "$E/sld-compat.conf"
	w="apply '$(echo "$line" | cut -c1-30)'"
	SLDCTL_ROOT=$R "$SLDCTL" apply > "$T/out" 2> "$T/err"
	RC=$?
	expect_rc 1 "$w"
	expect_grep "$T/err" "$E/sld-compat.conf:" "$w: FILE:LINE on stderr"
	is "$(cat "$P/verbose") $(cat "$P/enabled")" "1 Y" "$w: no knob written"
	no_sanitizer "$w"
done <<EOF2
verbose
= 1
verbose =
verbose=
Verbose = 1
ver bose = 1
en-abled = 1
../x = 1
/etc/passwd = 1
verbose = a\\tb
verbose = \\303\\251
verbose = \\377
verbose = \\033[0m
verbose = 1\\000
\\001verbose = 1
\\377\\376verbose = 1
[main]
no_such_knob = 1
$k33 = 1
verbose = $v4001
verbose = 1\\nverbose = 2
frozen = 1
EOF2
if [ $n -ge 20 ]; then ok "apply: $n bad lines"; else nok "apply: only $n bad lines"; fi
rm -f "$E/sld-compat.conf"
printf 'verbose\n' > "$E/conf.d/10-bad.conf"
SLDCTL_ROOT=$R "$SLDCTL" apply > "$T/out" 2> "$T/err"
RC=$?
expect_rc 1 "apply: bad line in a drop-in"
expect_grep "$T/err" "$E/conf.d/10-bad.conf:1:" "apply: drop-in named with its line"
rm -f "$E/conf.d/10-bad.conf"

# ---- arguments of every subcommand -----------------------------------------------------
n=0
for cmd in status apply scan; do
	for a in --bogus --json=1 -j --JSON -x -- - "--$long" "$(printf '\377')" \
		--json=yes "-$(printf '\001')" --help=1 --dry-run=1 --config=; do
		case "$cmd $a" in
		"scan -"|"scan --"|"status --"|"apply --") continue ;;	# a file named -, end of options
		esac
		n=$((n + 1))
		w="$cmd '$(echo "$a" | cut -c1-20 | LC_ALL=C tr -c '[:print:]' '?')'"
		if [ "$cmd" = scan ]; then
			SLDCTL_ROOT=$R "$SLDCTL" $cmd "$a" "$good" > "$T/out" 2> "$T/err"
		else
			SLDCTL_ROOT=$R "$SLDCTL" $cmd "$a" > "$T/out" 2> "$T/err"
		fi
		RC=$?
		expect_rc 2 "$w"
		no_sanitizer "$w"
	done
done
if [ $n -ge 20 ]; then ok "arguments: $n bad ones"; else nok "arguments: only $n bad ones"; fi
for cmd in status apply; do
	SLDCTL_ROOT=$R "$SLDCTL" $cmd "" > "$T/out" 2> "$T/err"
	RC=$?
	expect_rc 2 "$cmd '': empty argument refused"
done

tap_done
