#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn bench/results' raw numbers into summary.md (the table) and the
plots (gnuplot, PNG). Ratios are computed per round from numbers measured
side by side in that round, then summarised as median [min..max].

usage: report.py RESULTS_DIR
"""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

res = sys.argv[1]
out = []


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs, fmt="{:.1f}"):
    if not xs:
        return "n/a"
    return (fmt + " [" + fmt + " .. " + fmt + "]").format(med(xs), min(xs), max(xs))



def case_rows(d, rounds, cases, base_of, rfmt):
    """Table rows "| case | median [min .. max] | case / base per round |" of
    d[case][round] into out; base_of(case) None: no ratio. Returns plot lines."""
    plot = []
    for c in cases:
        if c not in d:
            continue
        xs = [d[c][r] for r in rounds if r in d[c]]
        b = base_of(c)
        ratio = "-"
        if b:
            ratio = spread([d[c][r] / d[b][r] for r in rounds if r in d[c]], rfmt)
        out.append("| %s | %s | %s |" % (c, spread(xs, "{:.0f}"), ratio))
        plot.append("%s %d %d %d" % (c, med(xs), min(xs), max(xs)))
    return plot

def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True, cwd=res)


# ---- scan throughput -------------------------------------------------------
scan = os.path.join(res, "scan.tsv")
if os.path.exists(scan):
    rows = [l.rstrip("\n").split("\t") for l in open(scan)][1:]
    # (set, engine) -> rep -> (bytes/cpu_s, bytes/wall_s, insns)
    by = defaultdict(dict)
    for rep, st, eng, nbytes, wall, cpu, insns, _bad in rows:
        by[(st, eng)][rep] = (int(nbytes) / int(cpu) * 1e9, int(nbytes) / int(wall) * 1e9,
                              int(insns), int(nbytes))
    reps = sorted(by[("all", "x86scan")], key=int)
    out.append("## Scan throughput (%s rounds, CPU time; bytes of executable sections)\n" % len(reps))
    nb = by[("all", "x86scan")][reps[0]][3]
    ns = by[("sample", "x86scan")][reps[0]][3]
    out.append("All modules: %.1f MB of text; objdump on the %.1f MB of the "
               "tests/objdump sample (its own x86scan pass in the same round).\n" % (nb / 1e6, ns / 1e6))
    out.append("x86scan decodes every instruction, no prefilter: a table-driven fast path for "
               "plain instructions (99.5%), the careful decoder for the rest, on two lanes "
               "(the second speculatively ahead, used where the first meets it). Equal "
               "instruction counts show the engines walk the same instruction stream; "
               "x86scan's boundaries and findings are checked against objdump below.\n")
    out.append("| engine | set | MB/s median [min .. max] | x86scan is N x faster: median [min .. max] | instructions |")
    out.append("|---|---|---|---|---|")
    plot = []
    for st, eng in [("all", "x86scan"), ("all", "kernel"), ("all", "zydis"),
                    ("all", "zydis-full"), ("sample", "x86scan"), ("sample", "objdump")]:
        if (st, eng) not in by:
            continue
        d = by[(st, eng)]
        mbs = [d[r][0] / 1e6 for r in reps if r in d]
        ratios = [by[(st, "x86scan")][r][0] / d[r][0] for r in reps if r in d]
        insns = d[reps[0]][2]
        out.append("| %s | %s | %s | %s | %s |" % (
            eng, st, spread(mbs), "-" if eng == "x86scan" else spread(ratios, "{:.2f}"),
            insns if insns else "(not counted)"))
        plot.append("%s(%s) %.2f %.2f %.2f" % (eng, st, med(mbs), min(mbs), max(mbs)))
    agree = os.path.join(res, "scan-agree.txt")
    if os.path.exists(agree):
        out.append("\nAgreement with objdump 2.40 (every instruction boundary and finding): " +
                   "; ".join(l.strip() for l in open(agree)) + "\n")
    open(os.path.join(res, "scan.dat"), "w").write("\n".join(plot) + "\n")
    gnuplot("""set terminal png size 900,420
set output 'scan.png'
set title 'Decoding throughput over module text (median, min..max; CPU time)'
set ylabel 'MB/s'
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -20
plot 'scan.dat' using 0:2:xtic(1) with boxes notitle, '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt 0 notitle
""")

def load_rounds(d):
    return sorted(set(d["kvm-intel-with"]) & set(d["kvm-intel-without"]), key=int)


def load_stats(d, m, rounds):
    """Module m's insmod numbers per round (d: case -> round -> ns or
    instructions): without and with sld_compat in millions, added %, then
    the scan alone in millions and as % of without, over the rounds that
    have it."""
    wo = [d[m + "-without"][r] / 1e6 for r in rounds]
    wi = [d[m + "-with"][r] / 1e6 for r in rounds]
    add = [(a - b) / b * 100 for a, b in zip(wi, wo)]
    sr = [r for r in rounds if r in d[m + "-scan"]]
    sc = [d[m + "-scan"][r] / 1e6 for r in sr]
    frac = [d[m + "-scan"][r] / d[m + "-without"][r] * 100 for r in sr]
    return wo, wi, add, sc, frac


def load_icount_table(loadi, bignames, bigname):
    out.append("## insmod cost counted in guest instructions (-icount, one vCPU; "
               "interleaved)\n")
    out.append("| kernel | module | without sld_compat, M instructions | with, M instructions "
               "| added, % per round | the scan alone / without, % per round |")
    out.append("|---|---|---|---|---|---|")
    for k in sorted(loadi):
        d = loadi[k]
        rounds = load_rounds(d)
        for m in ["kvm-intel", "big"]:
            if m + "-without" not in d:
                continue
            wo, wi, add, _, frac = load_stats(d, m, rounds)
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                k, bignames.get(k, bigname) if m == "big" else m, spread(wo, "{:.2f}"), spread(wi, "{:.2f}"),
                spread(add, "{:.2f}"), spread(frac, "{:.2f}")))
    out.append("\nUnder -icount a time is the guest's instruction count (idle time "
               "advances the clock to the next timer); each kernel has its own largest "
               "module's dependencies loaded the same way.\n")


def ctx_table(bench, title, unit, rfmt):
    c_ = ctx[bench]
    rounds = sorted(c_["unloaded"], key=int)
    out.append("\n## %s (%d rounds, interleaved)\n" % (title, len(rounds)))
    out.append("| case | %s per ping-pong step or ioctl: median [min .. max] | / sld_compat "
               "not loaded, per round | MSR writes per context switch | context switches "
               "per step |" % unit)
    out.append("|---|---|---|---|---|")
    for c, base in [("unloaded", "unloaded"), ("loaded", "unloaded"),
                    ("unprotected", "unloaded"), ("protected", "unloaded"),
                    ("mixed", "unloaded"), ("ioctl-unloaded", "ioctl-unloaded"), ("ioctl-learning", "ioctl-unloaded"),
                    ("ioctl-known", "ioctl-unloaded")]:
        if c not in c_:
            continue
        xs = [c_[c][r] for r in rounds if r in c_[c]]
        ratio = spread([c_[c][r] / c_[base][r] for r in rounds
                        if r in c_[c] and r in c_[base]], rfmt)
        w = [wps[bench][c][r] for r in rounds if r in wps[bench][c]]
        k = [csw[bench][c][r] for r in rounds if r in csw[bench][c]]
        out.append("| %s | %s | %s | %s | %s |" % (c, spread(xs, "{:.0f}"), ratio,
                                                spread(w, "{:.2f}") if w else "-",
                                                spread(k, "{:.2f}") if k else "-"))
    out.append("\nloaded: sld_compat loaded, no hypervisor module, no exemption (preempt-notifier "
               "key off). unprotected: loaded with a watched hypervisor and an exemption "
               "(key on), the two threads not protected. protected: both protected, every "
               "switch between them hands the core's hold over (no MSR write); mixed: one "
               "protected, one not (one write per switch between them). A step is one write or read that "
               "hands the byte over (2 per round trip); context switches are the threads' own "
               "(getrusage: voluntary + involuntary). MSR writes are toggles from the account "
               "(made or skipped).\n")



def wrmsr_table(d, title, real_col, note):
    """A per-switch WRMSR table: d is field ("ns", "real", "account") ->
    case -> round; rows unprotected, protected, mixed."""
    rounds = sorted(d["ns"]["unprotected"], key=int)
    out.append(title % len(rounds))
    out.append("| case | %s, median [min .. max] | sld_compat's account per switch "
               "| ns per switch / unprotected, per round |" % real_col)
    out.append("|---|---|---|---|")
    for c in ["unprotected", "protected", "mixed"]:
        if c not in d["ns"]:
            continue
        rs = [r for r in rounds if r in d["ns"][c]]
        ratio = [d["ns"][c][r] / d["ns"]["unprotected"][r] for r in rs
                 if r in d["ns"]["unprotected"] and d["ns"]["unprotected"][r]]
        out.append("| %s | %s | %s | %s |" % (
            c, spread([d["real"][c][r] for r in rs], "{:.3f}"),
            spread([d["account"][c][r] for r in rs], "{:.3f}"),
            spread(ratio, "{:.2f}")))
    out.append(note)

# ---- VM: #AC latency, load cost ------------------------------------------------
vm = os.path.join(res, "vm-raw.txt")
if os.path.exists(vm):
    lines = [l.rstrip("\n").split("\t") for l in open(vm) if l.startswith("BENCH\t")]
    ac = defaultdict(dict)
    actrap = defaultdict(dict)	# case -> round -> ns per lock
    wrmsr = defaultdict(lambda: defaultdict(dict))	# field -> case -> round
    dbtrap = defaultdict(dict)	# case -> round -> ns per lock
    dbgwrmsr = defaultdict(lambda: defaultdict(dict))	# field -> case -> round
    sibwrmsr = defaultdict(lambda: defaultdict(dict))	# field -> case -> round
    load = defaultdict(dict)
    loadi = defaultdict(lambda: defaultdict(dict))	# kernel -> case -> round
    # bench ("ctxsw" wall clock, "ctxsw-icount" instructions) -> case -> round
    ctx = defaultdict(lambda: defaultdict(dict))
    wps = defaultdict(lambda: defaultdict(dict))
    csw = defaultdict(lambda: defaultdict(dict))	# thread switches per step
    bigname = "largest module"
    bignames = {}	# kernel -> name, for the icount runs
    for l in open(vm):
        if l.startswith("# bench: largest module "):
            w = l.split()
            if w[-2] == "on":
                bignames[w[-1]] = w[4] + " (largest)"
            bigname = w[4] + " (largest)"
    for f in lines:
        if f[1] == "ac" and f[4]:
            ac[f[3]][f[2]] = int(f[4])
        elif f[1] == "actrap" and f[4]:
            actrap[f[3]][f[2]] = int(f[4])
        elif f[1] == "wrmsr" and len(f) > 6 and all(x.replace(".", "", 1).isdigit() for x in f[4:7]):
            for i, k in ((4, "ns"), (5, "real"), (6, "account")):
                wrmsr[k][f[3]][f[2]] = float(f[i])
        elif f[1] == "dbtrap" and f[4]:
            dbtrap[f[3]][f[2]] = int(f[4])
        elif f[1] == "dbgwrmsr" and len(f) > 6 and all(x.replace(".", "", 1).isdigit() for x in f[4:7]):
            for i, k in ((4, "ns"), (5, "real"), (6, "account")):
                dbgwrmsr[k][f[3]][f[2]] = float(f[i])
        elif f[1] == "sibwrmsr" and len(f) > 6 and all(x.replace(".", "", 1).isdigit() for x in f[4:7]):
            for i, k in ((4, "ns"), (5, "real"), (6, "account")):
                sibwrmsr[k][f[3]][f[2]] = float(f[i])
        elif f[1] == "load" and f[4]:
            load[f[3]][f[2]] = int(f[4])
        elif f[1].startswith("load-icount/") and f[4]:
            loadi[f[1].split("/", 1)[1]][f[3]][f[2]] = int(f[4])
        elif f[1].startswith("ctxsw") and f[4].isdigit():
            ctx[f[1]][f[3]][f[2]] = int(f[4])
            if f[6] != "-":
                wps[f[1]][f[3]][f[2]] = float(f[6])
            if len(f) > 7 and f[7].isdigit():
                csw[f[1]][f[3]][f[2]] = int(f[7]) / int(f[5])
    if ac:
        rounds = sorted(ac["exempt-user"], key=int)
        out.append("## #AC handling latency in the VM (%d rounds; ns per handler call, "
                   "one ioctl round trip each)\n" % len(rounds))
        out.append("| case | ns median [min .. max] | kernel path / exempt path, per round |")
        out.append("|---|---|---|")
        def ac_base(c):
            if not c.startswith("kernel"):
                return None
            return "exempt-guest" if "guest" in c else "exempt-user"
        plot = case_rows(ac, rounds, ["exempt-user", "kernel-user-m1", "kernel-user-m0",
                                      "exempt-guest", "kernel-guest-m1", "kernel-guest-m0",
                                      "kernel-guest-warn-m1", "kernel-guest-warn-m0", "null"],
                         ac_base, "{:.1f}")
        out.append("\nnull = the same ioctl without a handler (syscall + fixture). Under TCG the "
                   "kernel's split-lock mode is off, so its guest path is the SIGBUS branch and does "
                   "not read split_lock_mitigate. kernel-guest-warn: what it runs in warn mode (the "
                   "default where the CPU has SLD), split_lock_warn(ip), called directly by the "
                   "test module.\n")
        open(os.path.join(res, "ac.dat"), "w").write("\n".join(plot) + "\n")
        gnuplot("""set terminal png size 900,420
set output 'ac.png'
set title '#AC handling latency in the VM (median, min..max)'
set ylabel 'ns per call (log)'
set logscale y
set style fill solid 0.6
set boxwidth 0.6
set xtics rotate by -20
plot 'ac.dat' using 0:2:xtic(1) with boxes notitle, '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt 0 notitle
""")
    if actrap:
        rounds = sorted(actrap["exempt"], key=int)
        out.append("## Real split-lock #AC on the enforcing test CPU (%d rounds; ns per locked "
                   "add, 30 ms apart)\n" % len(rounds))
        out.append("| case | ns per lock, median [min .. max] | case / exempt, per round |")
        out.append("|---|---|---|")
        case_rows(actrap, rounds, ["aligned", "kernel-m1", "kernel-m0", "exempt", "proactive"],
                  lambda c: "exempt", "{:.2f}")
        out.append("\nkernel-m1/m0: an unprotected program, split_lock_mitigate=1/0 (every lock "
                   "traps; m1 sleeps 10 ms in each). exempt: exempt by path, its first lock's #AC "
                   "taken by sld_compat (averaged over the run), none after. proactive: "
                   "exempt_proactive=Y, no #AC. aligned: no split, the floor.\n")
    if wrmsr:
        wrmsr_table(wrmsr, "## MSR writes per context switch, counted by the enforcing test CPU (%d "
                    "rounds, interleaved)\n", "real WRMSRs per switch",
                    "\nTwo threads on cpu0 pass a byte (sldhv pingpong); the test QEMU counts "
                    "the WRMSRs to MSR_TEST_CTRL cpu0 executes (tests/qemu/0004). protected: both "
                    "threads protected, the hold is handed over; mixed: one protected.\n")
    if dbtrap:
        rounds = sorted(dbtrap["exempt"], key=int)
        out.append("## Real bus-lock #DB on the enforcing test CPU's AMD model, split_lock_detect=ratelimit:1 "
                   "(%d rounds; ns per locked add, back to back)\n" % len(rounds))
        out.append("| case | ns per lock, median [min .. max] | case / exempt, per round |")
        out.append("|---|---|---|")
        case_rows(dbtrap, rounds, ["aligned", "kernel", "exempt", "proactive"],
                  lambda c: "exempt", "{:.2f}")
        out.append("\nkernel: an unprotected program, the kernel's ratelimit sleeps it to one bus "
                   "lock a second. exempt: exempt by path, its first #DB taken by sld_compat "
                   "(averaged over the run), then DEBUGCTL's bus-lock bit off under it. proactive: "
                   "exempt_proactive=Y, no #DB. aligned: no split, the floor.\n")
    if dbgwrmsr:
        wrmsr_table(dbgwrmsr, "## DEBUGCTL writes per context switch, counted by the enforcing test "
                    "CPU (AMD model), ratelimit:1 (%d rounds, interleaved)\n",
                    "real WRMSRs to DEBUGCTL per switch",
                    "\nAs the MSR_TEST_CTRL table, for IA32_DEBUGCTL's bus-lock bit (per logical "
                    "CPU; tests/qemu/0006 counts the WRMSRs).\n")
    if sibwrmsr:
        wrmsr_table(sibwrmsr, "## DEBUGCTL writes on the SMT sibling per context switch, counted by "
                    "the enforcing test CPU (Intel model, warn mode, one core of two threads; %d "
                    "rounds, interleaved)\n",
                    "real WRMSRs to cpu1's DEBUGCTL per switch on cpu0",
                    "\nTwo threads pass a byte on cpu0; cpu1 idles beside them. While a protected "
                    "task holds the core, cpu1's bus-lock bit is set so its tasks' split locks trap "
                    "(issue #39): a write on cpu1 each time the core's hold changes (mixed), none "
                    "when it does not (protected: the hold is handed over; unprotected: nothing "
                    "held).\n")
    if load:
        rounds = load_rounds(load)
        out.append("## insmod cost of the load-time scan in the VM (%d rounds, interleaved)\n" % len(rounds))
        out.append("| module | without sld_compat, ms | with sld_compat, ms | added, % per round "
                   "| the scan alone, ms | scan / insmod without, % per round |")
        out.append("|---|---|---|---|---|---|")
        plot = []
        for m in ["kvm-intel", "big"]:
            wo, wi, add, sc, frac = load_stats(load, m, rounds)
            label = bigname if m == "big" else m
            if sc:
                scan_cols = "%s | %s" % (spread(sc), spread(frac))
            else:
                scan_cols = "- | -"
            out.append("| %s | %s | %s | %s | %s |" % (label, spread(wo), spread(wi), spread(add), scan_cols))
            plot.append("\"%s\" %.1f %.1f %.1f %.1f %.1f %.1f" % (
                label, med(wo), min(wo), max(wo), med(wi), min(wi), max(wi)))
        it = [load["sld_compat-itself"][r] / 1e6 for r in sorted(load["sld_compat-itself"], key=int)]
        out.append("| sld_compat itself (scans every loaded module) | | %s | | | |\n" % spread(it))
        open(os.path.join(res, "load.dat"), "w").write("\n".join(plot) + "\n")
        gnuplot("""set terminal png size 900,420
set output 'load.png'
set title 'insmod wall time in the VM (median, min..max)'
set ylabel 'ms (log)'
set logscale y
set key top left
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6
plot 'load.dat' using 2:3:4:xtic(1) title 'without sld\\_compat', '' using 5:6:7 title 'with sld\\_compat'
""")
    if loadi:
        load_icount_table(loadi, bignames, bigname)
    if "ctxsw" in ctx:
        ctx_table("ctxsw", "Context switches and ioctls in the VM, wall clock", "ns", "{:.3f}")
    icount = sorted(b for b in ctx if b.startswith("ctxsw-icount/"))
    for bench in icount:
        ctx_table(bench, "Context switches and ioctls in the VM, %s, counted in guest "
                  "instructions (-icount: the guest clock advances 1 ns per instruction, "
                  "one vCPU)" % bench.split("/", 1)[1], "instructions", "{:.4f}")
    if icount:
        cases = ["unloaded", "loaded", "unprotected", "protected"]
        rows = ["case " + " ".join('"%s"' % b.split("/", 1)[1] for b in icount)]
        for c in cases:
            rows.append(c + " " + " ".join("%d" % med(list(ctx[b][c].values())) for b in icount))
        open(os.path.join(res, "ctxsw.dat"), "w").write("\n".join(rows) + "\n")
        gnuplot("""set terminal png size 900,420
set output 'ctxsw.png'
set title 'Pipe ping-pong: guest instructions per step (-icount, median of rounds)'
set ylabel 'instructions per step'
set yrange [0:*]
set key outside right top
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.6
plot for [k=2:%d] 'ctxsw.dat' using k:xtic(1) title columnheader(k)
""" % (len(icount) + 1))

# ---- VM: per-switch cost with many protected tasks -------------------------------
if os.path.exists(vm):
    pool = defaultdict(dict)	# case -> round -> fields
    for l in open(vm):
        f = l.rstrip("\n").split("\t")
        if f[0] == "BENCH" and f[1] == "pool" and len(f) >= 9 and f[4]:
            pool[f[3]][f[2]] = (int(f[4]), float(f[5]), int(f[6]), int(f[7]), int(f[8]))
    if pool:
        # The fewest parked tasks measured (100; 10 in older runs) is the base.
        few = min(int(c.split("-")[1]) for c in pool)
        rounds = sorted(pool.get("pp-%d" % few, {}), key=int)
        out.append("\n## Context switches with %d and 10,000 protected tasks alive (%d rounds, "
                   "interleaved)\n" % (few, len(rounds)))
        out.append("| case | ns per switch: median [min .. max] | / the same with %d alive, per round "
                   "| MSR writes per switch | records alive | records allocated | bytes per record |" % few)
        out.append("|---|---|---|---|---|---|---|")
        for c in ["pp-%d" % few, "pp-10000", "mixed-%d" % few, "mixed-10000"]:
            if c not in pool:
                continue
            d = pool[c]
            base = pool.get(c.split("-")[0] + "-%d" % few, {})
            rs = [r for r in rounds if r in d]
            ratio = spread([d[r][0] / base[r][0] for r in rs if r in base], "{:.2f}")
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                c, spread([d[r][0] for r in rs], "{:.0f}"), ratio,
                spread([d[r][1] for r in rs], "{:.3f}"),
                spread([d[r][2] for r in rs], "{:.0f}"), spread([d[r][3] for r in rs], "{:.0f}"),
                spread([d[r][4] for r in rs], "{:.0f}")))
        out.append("\npp: both ping-pong threads protected (each switch between them hands the "
                   "hold over: no MSR write); mixed: one of them protected. The other protected "
                   "tasks are parked threads (blocked in a read) on CPU 1. Records come in chunks "
                   "of 128 allocated as demand grows; the pool's memory is records allocated x "
                   "bytes per record.\n")

# ---- VM: thread create+exit in a relieved scope -------------------------------
CHURN_CPUS = [("churn", "the stock TCG CPU: no split-lock detection, so no MSR write; "
               "the records' bookkeeping only"),
              ("churn-sld", "the enforcing test CPU: each switch's MSR_TEST_CTRL and "
               "DEBUGCTL writes as well")]
if os.path.exists(vm):
    # case -> round -> (ns, protections, WRMSRs or None: an older line)
    churns = {name: defaultdict(dict) for name, _ in CHURN_CPUS}
    for l in open(vm):
        f = l.rstrip("\n").split("\t")
        if f[0] == "BENCH" and f[1].startswith("churn-icount/") and f[1] not in churns:
            churns[f[1]] = defaultdict(dict)
            CHURN_CPUS.append((f[1], "the stock CPU, one vCPU, counting guest instructions "
                               "(-icount: ns are instructions; the guest's own ticks and RCU work "
                               "still vary from round to round), "
                               + f[1].split("/", 1)[1]))
        if f[0] == "BENCH" and f[1] in churns and len(f) >= 6 and f[4]:
            churns[f[1]][f[3]][f[2]] = (int(f[4]), int(f[5]),
                                        int(f[6]) if len(f) >= 7 else None)
    # The icount tables by kernel, whatever order merge.sh left them in.
    CHURN_CPUS[2:] = sorted(CHURN_CPUS[2:],
                            key=lambda c: [(0, int(x), "") if x.isdigit() else (1, 0, x)
                                           for x in c[0].replace("-", ".").split(".")])
    for name, cpu in CHURN_CPUS:
        churn = churns[name]
        unit = "instructions" if name.startswith("churn-icount/") else "ns"

        if "plain" not in churn or "relieved" not in churn:
            continue
        rounds = sorted(churn["plain"], key=int)
        out.append("\n## Thread create+exit in a relieved scope, %s (%d rounds, interleaved)\n"
                   % (name, len(rounds)))
        counted = name == "churn-sld" and all(
            v[2] is not None for d in churn.values() for v in d.values())
        out.append("| case | " + unit + " per thread: median [min .. max] | / plain, per round | protections per thread |"
                   + (" WRMSRs per thread |" if counted else ""))
        out.append("|---|---|---|---|" + ("---|" if counted else ""))
        for c in ["plain", "relieved"]:
            d = churn[c]
            rs = [r for r in rounds if r in d]
            out.append("| %s | %s | %s | %s |" % (
                c, spread([d[r][0] for r in rs], "{:.0f}"),
                spread([d[r][0] / churn["plain"][r][0] for r in rs], "{:.3f}"),
                spread([d[r][1] / 5000.0 for r in rs], "{:.2f}"))
                + (" %s |" % spread([d[r][2] / 5000.0 for r in rs], "{:.3f}") if counted else ""))
        out.append("\nsldcpu churn: 5,000 threads started and joined one after another on CPU 0, "
                   "in a cgroup no rule names (plain) and in one an exempt_cgroup rule names with "
                   "exempt_proactive=Y (relieved: each thread takes a record at clone, in its "
                   "parent, and gives it back after its last switch), on %s. Goal: within 5%%.\n"
                   % cpu)
        if counted:
            out.append("WRMSRs per thread: cpu0's writes to MSR_TEST_CTRL during the run, as the "
                       "test CPU counts them (tests/qemu/0004).\n")

# ---- memory -------------------------------------------------------------------
mem = os.path.join(res, "memory.txt")
if os.path.exists(mem):
    out.append("\n## Memory\n")
    out.append("```")
    out += [l.rstrip("\n") for l in open(mem)]
    out.append("```")

open(os.path.join(res, "summary.md"), "w").write("\n".join(out) + "\n")
print("\n".join(out))
