#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the functions a kernel image seals under IBT.

    sealed.py VMLINUZ CONFIG > ibt-sealed.txt

With CONFIG_X86_KERNEL_IBT, objtool lists in .ibt_endbr_seal every
function whose address the kernel never takes; at boot the kernel
overwrites their ENDBR64 (on every CPU, whether it has IBT or not), and on
a CPU with IBT an indirect call to one of them raises #CP. Each entry is
an s32 offset from the entry itself to the function.

Output: "ibt yes" or "ibt no", then one sealed function per line as its
offset from _text (where .text starts), in hex without 0x: a booted
kernel's /proc/kallsyms gives the same offsets however KASLR moved it.
"""
import lzma
import struct
import subprocess
import sys

MAGICS = ((b'\x28\xb5\x2f\xfd', 'zstd'), (b'\xfd7zXZ\x00', 'xz'))


def vmlinux(image):
    """The ELF vmlinux inside a bzImage (Debian: xz for 6.1, zstd for 6.12)."""
    for magic, kind in MAGICS:
        at = image.find(magic)
        while at >= 0:
            try:
                if kind == 'xz':
                    elf = lzma.LZMADecompressor().decompress(image[at:])
                else:
                    elf = subprocess.run(['zstd', '-qdc'], input=image[at:],
                                         capture_output=True).stdout
            except lzma.LZMAError:
                elf = b''
            if elf.startswith(b'\x7fELF'):
                return elf
            at = image.find(magic, at + 1)
    sys.exit('sealed.py: no ELF payload found in the image')


def sections(elf):
    """{name: (addr, offset, size)} of a little-endian ELF64."""
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)

    def header(i):
        return struct.unpack_from('<IIQQQQ', elf, shoff + i * shentsize)
    stroff = header(shstrndx)[4]
    out = {}
    for i in range(shnum):
        name, _, _, addr, off, size = header(i)
        end = elf.index(b'\0', stroff + name)
        out[elf[stroff + name:end].decode()] = (addr, off, size)
    return out


def main():
    image = open(sys.argv[1], 'rb').read()
    ibt = 'CONFIG_X86_KERNEL_IBT=y\n' in open(sys.argv[2]).read()
    elf = vmlinux(image)
    secs = sections(elf)
    print('ibt', 'yes' if ibt else 'no')
    if not ibt:
        return
    if '.ibt_endbr_seal' not in secs:
        sys.exit('sealed.py: IBT kernel without .ibt_endbr_seal')
    text = secs['.text'][0]
    addr, off, size = secs['.ibt_endbr_seal']
    for i in range(0, size, 4):
        rel, = struct.unpack_from('<i', elf, off + i)
        print('%x' % (addr + i + rel - text))


if __name__ == '__main__':
    main()
