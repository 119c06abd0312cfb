#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end test of `sldctl scan`: exit codes, human output, --json output
# (parsed back with python3), errors on broken files. Run through the
# wrapper sldctl.mk generates, which sets:
#   SLDCTL       the sldctl binary (the ASan/UBSan build)
#   SLDCTL_DATA  the test modules built from tests/unit/data/
set -u

: "${SLDCTL:?}" "${SLDCTL_DATA:?}"
D=$SLDCTL_DATA
. "$(dirname "$0")/../lib/unit.sh"
. "$(dirname "$0")/../config.sh"

# ---- usage ------------------------------------------------------------------
capture "$SLDCTL"
expect_rc 2 "no command"
expect_grep "$T/err" "usage: sldctl" "no command prints usage"
capture "$SLDCTL" scan
expect_rc 2 "scan without files"
expect_grep "$T/err" "usage: sldctl scan" "scan without files prints usage"
capture "$SLDCTL" scan --bogus "$D/sld_clean.ko"
expect_rc 2 "unknown option"
expect_grep "$T/err" "unknown option '--bogus'" "unknown option named"
capture "$SLDCTL" frobnicate
expect_rc 2 "unknown command"
capture "$SLDCTL" --help
expect_rc 0 "--help"
expect_grep "$T/out" "scan" "--help lists scan"
capture "$SLDCTL" scan --help
expect_rc 0 "scan --help"
capture "$SLDCTL" --version
expect_rc 0 "--version"
if grep -Eq '^sldctl [0-9]+\.[0-9]+\.[0-9]+' "$T/out"; then ok "version format"; else nok "version format"; fi

# ---- verdicts and exit codes --------------------------------------------------
capture "$SLDCTL" scan "$D/sld_clean.ko" "$D/sld_svm.ko.xz" "$D/sld_safe.ko.zst" "$D/sld_imports.ko"
expect_rc 0 "clean, svm-only and safe modules"
capture "$SLDCTL" scan "$D/sld_clean.ko" "$D/sld_vmx.ko"
expect_rc 1 "a VMX module"
expect_grep "$T/out" "$D/sld_vmx.ko: sld_vmx: hypervisor (vmx-text)" "human verdict line"
expect_grep "$T/out" "    vmlaunch: 1 (first .text+0x1)" "human finding line"
expect_grep "$T/out" "    vmxon: 1 in init, not counted (first .init.text+0x1)" "human finding in .init.text, not counted"
expect_grep "$T/out" "$D/sld_clean.ko: sld_clean: clean (" "human clean line"
capture "$SLDCTL" scan "$D/sld_initvmx.ko"
expect_rc 0 "VMX in init code only: not a hypervisor (init findings do not count)"
expect_grep "$T/out" "$D/sld_initvmx.ko: sld_initvmx: clean (none)" "init-only VMX: clean"
expect_grep "$T/out" "    vmlaunch: 1 in init, not counted (first .init.text+0x5)" "init-only VMX: reported, not counted"

# Compression is found by magic, not by name.
cp "$D/sld_vmx.ko.zst" "$T/renamed.ko"
cp "$D/sld_svm.ko.xz" "$T/renamed-svm"
capture "$SLDCTL" scan "$T/renamed.ko" "$T/renamed-svm"
expect_rc 1 "compressed files with misleading names"

# ---- JSON ---------------------------------------------------------------------
capture "$SLDCTL" scan --json "$D"/sld_*.ko "$D"/sld_*.ko.xz "$D"/sld_*.ko.zst
NMOD=$(find "$D" -maxdepth 1 -name 'sld_*.ko' | wc -l)
expect_rc 1 "--json over all test modules"
json_check "JSON shape and values" '
assert isinstance(doc, list) and len(doc) == 3 * int(sys.argv[2]), len(doc)
by = {}
for o in doc:
    for k in ("file", "module", "sld_safe", "verdict", "reason", "findings"):
        assert k in o, (k, o)
    assert isinstance(o["sld_safe"], bool)
    by.setdefault(o["file"].split("/")[-1].split(".")[0], []).append(o)
assert all(len(v) == 3 for v in by.values()), by.keys()
for v in by.values():      # plain, xz and zstd agree
    assert all(x["verdict"] == v[0]["verdict"] and x["findings"] == v[0]["findings"] for x in v)
vmx = by["sld_vmx"][0]
assert (vmx["verdict"], vmx["reason"], vmx["module"]) == ("hypervisor", "vmx-text", "sld_vmx"), vmx
f = sorted((x["section"], x["offset"], x["insn"]) for x in vmx["findings"])
assert f == [(".init.text", 1, "vmxon"), (".text", 1, "vmlaunch"), (".text", 4, "vmresume")], f
assert vmx["counts"] == {"vmlaunch": 1, "vmresume": 1} and vmx["init_counts"] == {"vmxon": 1}, vmx
ini = by["sld_initvmx"][0]
assert (ini["verdict"], ini["reason"], ini["counts"]) == ("clean", "none", {}), ini
assert ini["init_counts"] == {"vmxon": 1, "vmlaunch": 1}, ini
assert by["sld_safe"][0]["sld_safe"] is True
assert by["sld_safe"][0]["reason"] == "modinfo-sld-safe", by["sld_safe"][0]
imp = by["sld_imports"][0]
assert imp["reason"] == "imports-guest-handler" and imp["imports_guest_handler"], imp
assert imp["verdict"] == by["sld_safe"][0]["verdict"] != "hypervisor"
assert by["sld_defines"][0]["verdict"] == "hypervisor"
svm = by["sld_svm"][0]
assert svm["reason"] == "svm-text" and svm["findings"] == [{"section": ".text", "offset": 2, "insn": "vmrun"}], svm
assert by["sld_clean"][0]["findings"] == [] and by["sld_clean"][0]["reason"] == "none"
assert by["sld_noname"][0]["module"] is None
'

# Names with quotes, backslashes, control and non-UTF-8 bytes stay valid JSON.
WEIRD="$T/$(printf 'we"ird\\\001\377\n.ko')"
cp "$D/sld_vmx.ko" "$WEIRD"
capture "$SLDCTL" scan --json "$WEIRD"
expect_rc 1 "--json with a weird file name"
json_check "weird file name escaped" '
assert doc[0]["file"].endswith("/we\"ird\\\x01\xff\n.ko"), repr(doc[0]["file"])
'
capture "$SLDCTL" scan "$WEIRD"
expect_grep "$T/out" 'we"ird\x5c\x01' "human output escapes control bytes"
if [ "$(wc -l < "$T/out")" -eq 4 ]; then ok "newline in name does not split lines"; else nok "newline in name split the line"; fi

# ---- registry list: the verdict's built-in table ---------------------------------
mkdir -p "$T/root"
capture env SLDCTL_ROOT="$T/root" SLDCTL_CONFIG="$T/root/none.conf" "$SLDCTL" registry list
expect_rc 0 "registry list without the module"
expect_grep "$T/out" "built-in hypervisor: vmmon (VMware vmmon" "registry list: built-in vmmon"
expect_grep "$T/out" "built-in hypervisor: vboxdrv (VirtualBox vboxdrv" "registry list: built-in vboxdrv"
expect_grep "$T/out" "built-in safe: kvm_intel (kvm_intel calls the kernel's handle_guest_split_lock; only when the kernel has handle_guest_split_lock)" "registry list: built-in safe kvm_intel, with its condition"

# ---- broken input ---------------------------------------------------------------
printf 'hello, world\n' > "$T/text.ko"
: > "$T/empty.ko"
head -c 100 "$D/sld_vmx.ko" > "$T/trunc.ko"
head -c 200 "$D/sld_vmx.ko.xz" > "$T/trunc.ko.xz"
cp "$D/sld_vmx.ko.zst" "$T/bad.ko.zst"
printf 'XXXXXXXX' | dd of="$T/bad.ko.zst" bs=1 seek=20 conv=notrunc 2> /dev/null
mkdir "$T/dir.ko"

check_error() {	# FILE MESSAGE
	capture "$SLDCTL" scan "$1"
	expect_rc 2 "error: $2"
	expect_grep "$T/err" "sldctl: $1: $2" "error message for $2"
	if [ "$(wc -l < "$T/err")" -eq 1 ]; then ok "one stderr line for $2"; else nok "stderr for $2 not one line"; fi
}
check_error "$T/missing.ko" "cannot open: No such file or directory"
check_error "$T/text.ko" "not an ELF file"
check_error "$T/empty.ko" "not an ELF file"
check_error "$D/m32_vmx.ko" "not an x86-64 module (32-bit ELF)"
check_error "$T/trunc.ko" "truncated"
check_error "$T/trunc.ko.xz" "truncated xz data"
check_error "$T/bad.ko.zst" "corrupt zstd data"
check_error "$T/dir.ko" "is a directory"

# One bad file does not stop the others; exit is the worst.
capture "$SLDCTL" scan "$D/sld_clean.ko" "$T/missing.ko" "$D/sld_vmx.ko"
expect_rc 2 "error wins over hypervisor"
expect_grep "$T/out" "sld_clean: clean" "file before the error scanned"
expect_grep "$T/out" "sld_vmx: hypervisor" "file after the error scanned"
capture "$SLDCTL" scan --json "$T/text.ko" "$D/sld_svm.ko"
expect_rc 2 "--json with an error"
json_check "error object in JSON" '
assert doc[0]["error"] == "not an ELF file" and doc[1]["module"] == "sld_svm", doc
'

# ---- real modules, when the test kernels are unpacked on this machine ------------
K61=$SLD_CACHE/$KVER_61/root/lib/modules/$KVER_61/kernel/arch/x86/kvm
K612=$SLD_CACHE/$KVER_612/root/lib/modules/$KVER_612/kernel/arch/x86/kvm
if [ -f "$K61/kvm-intel.ko" ] && [ -f "$K612/kvm-intel.ko.xz" ]; then
	capture "$SLDCTL" scan --json "$K61/kvm-intel.ko" "$K61/kvm-amd.ko" "$K612/kvm-intel.ko.xz" "$K612/kvm-amd.ko.xz"
	expect_rc 0 "Debian kvm modules"
	json_check "kvm_intel imports the guest handler, kvm_amd is svm-only" '
for o in doc:
    if o["module"] == "kvm_intel":
        assert o["reason"] == "imports-guest-handler" and o["imports_guest_handler"], o["reason"]
        assert any(x["insn"] == "vmlaunch" for x in o["findings"])
    else:
        assert o["module"] == "kvm_amd" and o["verdict"] == "svm-only", o["verdict"]
'
else
	echo "# skipping real modules: $K61 not unpacked"
fi

tap_done
