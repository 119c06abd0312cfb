# SLOT: context-switch cost with protected tasks (issue #7, benchmark 2).
# Needs the per-task engine, which is being written in src/ now. When it
# lands: a static pipe ping-pong between two threads (tests/vm/bin/), with
# sld_compat not loaded, loaded with no protected task, and loaded with
# both threads protected, interleaved; report the ratios and the MSR
# writes per switch from the account. Nothing is measured until then.
printf 'BENCH\tctxsw\t-\tslot\t-\t-\tnot measured: needs the per-task engine\n'
