#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Memory: section sizes of the built sld_compat.ko (`size`) and the sizes
# of its records, read by pahole from the module's DWARF (Debian's kbuild
# builds external modules with -g; there is no BTF for out-of-tree modules
# without the kernel's vmlinux). Which struct is which:
#   modrec       one per module seen (kmalloc'd, listed in /proc/sld_compat_modules)
#   sld_task     one per protected task (chunks of 128, allocated as demand grows)
#   hv_entry     one per watched hypervisor module (static, 16)
#   sld_cpu      the per-CPU account
#   sld_names    an exemption list (plus its strings)
# usage: mem.sh KVER OUT
set -eu
kver=$1 out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build/bench/kmod-$kver
rm -rf "$b"; mkdir -p "$b"
cp -a "$top/src/." "$b/"
make -s -C "$b" KVER="$kver" > "$b.log" 2>&1 || { cat "$b.log"; exit 1; }
ko=$b/sld_compat.ko
{
	echo "# sld_compat.ko built for $kver"
	size "$ko" | sed "s|$b/||; s/^/size: /"
	size -A "$ko" | awk '$1 ~ /^\.(text|init\.text|exit\.text|data|rodata|bss)/ { print "section: " $1 " " $2 }'
	for s in modrec sld_task hv_entry sld_cpu sld_names name_set pending; do
		sz=$(pahole -C "$s" "$ko" 2>/dev/null | sed -n 's/.*\/\* size: \([0-9]*\),.*/\1/p' | tail -n1)
		echo "struct: $s ${sz:-absent}"
	done
} > "$out"
cat "$out"
