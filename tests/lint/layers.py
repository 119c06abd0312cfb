#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The dependency graph between the files of src/, checked (tests/lint/layers.sh).

A node is a unit: a .c file with the .h of the same name (detect/modscan.c
and detect/modscan.h are one), or a header alone. An edge A -> B says A
needs B:
  include  a file of A has #include "..." of a header of B, resolved as the
           compiler does: the including file's directory, then the -I
           directories of src/Kbuild in order;
  call     a file of A names a global function or variable that a .c file
           of B defines (universal-ctags: definitions not marked static),
           outside comments and string literals (a header's own
           declarations excepted: they need nothing); a function handed
           in as a callback counts where its name is written (main.c
           passing sld_modscan_redecide is main -> detect/modscan).
Three things must hold: no circle (strongly connected set of more than one
unit), every edge stays in its layer or points down (LAYERS below, the
picture in src/README.md), and every #include "..." names its folder
from src/ (src/Kbuild adds no -I but src/ itself; include/, the vendors'
header and its old name, includes its neighbour as vendors copy it).

Usage: layers.py SRC_DIR. Prints one line per edge, "edge A -> B: how",
then one line per fault: "bare include FILE: NAME", "unplaced U", "upward A (layer) -> B (layer)",
"circle A -> B -> A (reach each other: ...)"; exits 1 if there is one.
"""
import json
import os
import re
import subprocess
import sys

# (rank, layer) by unit prefix, longest prefix first. An edge may stay in
# its layer or go to a lower rank; layers of one rank may not call each
# other (x86scan and schema are independent libraries).
LAYERS = [
    ("main", 9, "main"),
    ("status/", 8, "status"),
    ("detect/", 7, "detect"),
    ("engine/task/", 5, "engine/task"),
    ("engine/msr/", 4, "engine/msr"),
    ("engine/", 6, "engine"),
    ("kernel/", 3, "kernel"),
    ("knobs/", 2, "knobs"),
    ("modlib/", 1, "modlib"),
    ("x86scan/", 0, "x86scan"),
    ("schema/", 0, "schema"),
    ("include/", 0, "include"),
    ("compat/", 0, "compat"),
]

# A header with no .c of its own that declares what another unit defines
# belongs to that unit: knobs/switches.h declares knobs.c's core switches
# (sld_knobs), which its sld_info()/sld_dbg() macros read in every file.
OWNED = {"knobs/switches": "knobs/knobs"}


def layer_of(unit):
    for prefix, rank, name in LAYERS:
        if unit == prefix or (prefix.endswith("/") and unit.startswith(prefix)):
            return rank, name
    return None


def unit_of(rel):
    stem = os.path.splitext(rel)[0]
    return OWNED.get(stem, stem)


def source_files(src):
    out = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "probes")
        for f in sorted(files):
            if f.endswith((".c", ".h")) and not f.endswith(".mod.c"):
                out.append(os.path.relpath(os.path.join(root, f), src))
    return out


def include_dirs(src):
    """The -I directories of src/Kbuild, in order, relative to src."""
    with open(os.path.join(src, "Kbuild")) as f:
        text = f.read()
    return [d.lstrip("/") for d in re.findall(r"-I\$\((?:src|obj)\)(/?[\w/]*)", text)]


def resolve(src, rel, name, incdirs):
    for d in [os.path.dirname(rel)] + incdirs:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


COMMENT_OR_STRING = re.compile(
    r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_of(path):
    """The file without comments, string and character literals."""
    with open(path, errors="replace") as f:
        text = f.read()
    return COMMENT_OR_STRING.sub(
        lambda m: " " if m.group(0).startswith("/") else '""', text)


def tags(src, files, kinds):
    """universal-ctags' tags of kinds in files, as dicts."""
    out = subprocess.run(
        ["ctags", "--output-format=json", "--kinds-C=" + kinds, "--fields=+K",
         "-f", "-"] + [os.path.join(src, f) for f in files],
        check=True, capture_output=True, text=True)
    return [t for t in map(json.loads, out.stdout.splitlines())
            if t.get("_type") == "tag"]


def global_defs(src, files):
    """name -> unit, for every function and variable defined not static."""
    return {t["name"]: unit_of(os.path.relpath(t["path"], src))
            for t in tags(src, [f for f in files if f.endswith(".c")], "fv")
            if not t.get("file")}


def declared(src, files):
    """header -> the names it declares (prototypes, extern variables):
    a declaration says what its owner offers; it needs nothing."""
    out = {}
    for t in tags(src, [f for f in files if f.endswith(".h")], "px"):
        out.setdefault(os.path.relpath(t["path"], src), set()).add(t["name"])
    return out


def main():
    src = sys.argv[1]
    files = source_files(src)
    incdirs = include_dirs(src)
    defs = global_defs(src, files)
    decls = declared(src, files)
    edges = {}      # (a, b) -> set of "how"

    def add(a, b, how):
        if a != b:
            edges.setdefault((a, b), set()).add(how)

    unresolved, bare = set(), set()
    for rel in files:
        a = unit_of(rel)
        path = os.path.join(src, rel)
        with open(path, errors="replace") as f:
            for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                if "/" not in name and not rel.startswith("include/"):
                    bare.add(f"{rel}: {name}")
                hdr = resolve(src, rel, name, incdirs)
                if hdr:
                    add(a, unit_of(hdr), "include")
                else:
                    unresolved.add(f"{rel}: {name}")
        words = set(re.findall(r"\b[A-Za-z_]\w*\b", code_of(path)))
        for word in words - decls.get(rel, set()):
            if word in defs:
                add(a, defs[word], "call " + word)

    units = sorted({u for e in edges for u in e} | {unit_of(f) for f in files})
    for (a, b), how in sorted(edges.items()):
        calls = sorted(h[5:] for h in how if h.startswith("call "))
        text = ", ".join((["include"] if "include" in how else []) +
                         (["calls " + " ".join(calls)] if calls else []))
        print(f"edge {a} -> {b}: {text}")
    for u in sorted(unresolved):
        print(f"note not in src/ (generated or system): {u}")

    bad = 0
    for b in sorted(bare):
        print(f"bare include {b}: name its folder from src/")
        bad += 1
    for u in units:
        if layer_of(u) is None:
            print(f"unplaced {u}: in no layer of tests/lint/layers.py")
            bad += 1
    for (a, b), how in sorted(edges.items()):
        la, lb = layer_of(a), layer_of(b)
        if la and lb and la[1] != lb[1] and lb[0] >= la[0]:
            print(f"upward {a} ({la[1]}) -> {b} ({lb[1]}): {', '.join(sorted(how))}")
            bad += 1
    for scc, path in circles(units, edges):
        print(f"circle {' -> '.join(path + path[:1])} (reach each other: "
              f"{' '.join(scc)})")
        bad += 1
    return 1 if bad else 0


def circles(units, edges):
    """Strongly connected sets of more than one unit, each as a path."""
    succ = {u: sorted(b for (a, b) in edges if a == u) for u in units}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append((sorted(scc), cycle_in(sorted(scc), succ)))

    for u in units:
        if u not in index:
            visit(u)
    return out


def cycle_in(scc, succ):
    """One circle through the first unit of a strongly connected set."""
    members, start = set(scc), scc[0]
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in succ[v]:
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path))
            if w in members and w not in prev:
                prev[w] = v
                todo.append(w)
    return scc


if __name__ == "__main__":
    sys.exit(main())
