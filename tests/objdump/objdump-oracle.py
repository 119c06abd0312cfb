#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ask objdump how it decodes byte strings.

stdin: one case per line, hex bytes ("66 0f 38 80 00"). stdout: one line
per case, "case | length | text of objdump's first instruction". Each case
gets its own symbol followed by 20 nops: objdump restarts decoding at every
symbol, so one objdump run answers thousands of cases independently.
"""
import re
import subprocess
import sys
import tempfile


def ask(cases):
    with tempfile.TemporaryDirectory() as d:
        with open(d + '/t.s', 'w') as f:
            f.write('.text\n')
            for i, c in enumerate(cases):
                f.write('c%d:\n.byte %s\n.fill 20,1,0x90\n' %
                        (i, ','.join('0x' + b for b in c.split())))
        subprocess.check_call(['as', '--64', '-o', d + '/t.o', d + '/t.s'])
        out = subprocess.run(['objdump', '-d', '-z', '--no-show-raw-insn',
                              d + '/t.o'], capture_output=True, text=True,
                             check=True).stdout
    res = {}
    cur = None
    want = 0
    start = 0
    txt = ''
    for line in out.split('\n'):
        m = re.match(r'^[0-9a-f]+ <c(\d+)>:', line)
        if m:
            cur = int(m.group(1))
            want = 1
            continue
        m = re.match(r'^ *([0-9a-f]+):\t?(.*)$', line)
        if m and want:
            off = int(m.group(1), 16)
            if want == 1:
                start = off
                txt = m.group(2).strip()
                want = 2
            else:
                res[cur] = (off - start, txt)
                want = 0
    return [(c,) + res.get(i, (-1, '?')) for i, c in enumerate(cases)]


if __name__ == '__main__':
    cases = [l.strip() for l in sys.stdin if l.strip()]
    for c, l, t in ask(cases):
        print('%s | %d | %s' % (c, l, t))
