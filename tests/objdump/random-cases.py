#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random instruction-shaped byte strings (fixed seed: reproducible).

usage: random-cases.py [N] [SEED] [legacy|all]
"legacy" leaves out VEX/EVEX/XOP, whose opcode validity the decoder does
not model (it decodes them structurally, see decode.c).
"""
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
mode = sys.argv[3] if len(sys.argv) > 3 else 'legacy'
PFX = [0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x3e, 0x26, 0x64, 0x65, 0x36, 0x9b]
for _ in range(n):
    b = []
    for _ in range(rnd.choice([0, 0, 0, 1, 1, 2, 3, 5])):
        b.append(rnd.choice(PFX))
    if rnd.random() < 0.4:
        b.append(rnd.randrange(0x40, 0x50))
    r = rnd.random()
    if r < 0.3:
        b.append(rnd.randrange(256))
    elif r < 0.6:
        b += [0x0f, rnd.randrange(256)]
    elif r < 0.7:
        b += [0x0f, 0x38, rnd.randrange(256)]
    elif r < 0.8:
        b += [0x0f, 0x3a, rnd.randrange(256)]
    elif r < 0.85:
        b += [0x0f, 0x01, rnd.randrange(0xc0, 0x100)]
    elif r < 0.9:
        b += [0x0f, rnd.choice([0xc7, 0x78, 0x79, 0x20, 0x21, 0x22, 0x23, 0x0f])]
    else:
        b.append(rnd.choice([0xc4, 0xc5, 0x62, 0x8f, 0x9b]))
    b += [rnd.randrange(256) for _ in range(rnd.randrange(0, 8))]
    if mode == 'legacy' and any(x in (0xc4, 0xc5, 0x62, 0x8f) for x in b):
        continue
    print(' '.join('%02x' % x for x in b))
