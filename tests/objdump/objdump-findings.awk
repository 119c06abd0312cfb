# SPDX-License-Identifier: GPL-2.0
# objdump -d --no-show-raw-insn output -> "section offset finding" lines,
# finding named as x86_find_name() does, "-" for everything else.
/^Disassembly of section / { sec = $4; sub(/:$/, "", sec); next }
/^ *[0-9a-f]+:\t/ {
	off = $1; sub(/:$/, "", off); sub(/^0+/, "", off); if (off == "") off = "0"
	txt = $0; sub(/^[^\t]*\t/, "", txt)
	n = split(txt, w, /[ \t]+/)
	lock = 0; i = 1
	while (i <= n && w[i] ~ /^(data16|addr32|rex(\.[WRXB]+)?|lock|repz|repnz|rep|cs|ds|es|ss|fs|gs|notrack|bnd|xacquire|xrelease)$/) {
		if (w[i] == "lock") lock = 1
		i++
	}
	m = w[i]; ops = w[i + 1]
	f = "-"
	if (m ~ /^(vmxon|vmxoff|vmlaunch|vmresume|vmptrld|vmptrst|vmclear|vmread|vmwrite|vmcall|vmfunc|invept|invvpid|vmrun|vmload|vmsave|vmmcall|stgi|clgi|skinit|invlpga)$/)
		f = m
	else if (m == "mov" && ops ~ /,%cr[0-9]+$/) {
		c = ops; sub(/.*,%cr/, "", c)
		# AMD: "lock mov %reg,%cr0" is the 32-bit-mode way to write CR8
		if (lock && c == 0) c = 8
		if (c ~ /^(0|2|3|4|8)$/) f = "mov-cr" c
	} else if (m == "mov" && ops ~ /,%db[0-7]$/) {
		c = ops; sub(/.*,%db/, "", c); f = "mov-dr" c
	}
	print sec, off, f
}
