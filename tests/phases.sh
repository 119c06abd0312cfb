#!/bin/bash
# make check's phases: `phases.sh TARGET... [TARGET + TARGET]...`, each
# TARGET one make command line ("check-system SYS_RELEASES=trixie").
# Targets joined by a "+" argument run at once (a phase that leaves a
# core idle beside one that keeps one busy); the others one after another.
# Prints `# phase TARGET SECONDS s` after each and the total at the end,
# so that a slow run says where it was slow. Stops at the first group
# that fails, as make would.
# A group's first target prints as it runs; the others' output goes to
# build/phases/TARGET.log, printed when the group ends.
# PHASE_MAKE: the make that runs a target (tests/Makefile passes its own
# "make -f tests/Makefile"); not MAKE, which as an environment variable
# would reach every make below, the kernel's build included.
set -u
total=$SECONDS
logs=build/phases

# run_target TARGET: make it; prints its phase line; returns its status.
run_target() {
	local t0=$SECONDS rc
	# shellcheck disable=SC2086 # a target and its variables, as words
	${PHASE_MAKE:-make} $1
	rc=$?
	if [ $rc = 0 ]; then
		echo "# phase ${1%% *} $((SECONDS - t0))s"
	else
		echo "# phase ${1%% *} $((SECONDS - t0))s (failed: exit $rc)"
	fi
	return $rc
}

# run_group TARGET...: all at once; the first status that is not 0. The
# others run in process groups of their own (set -m), so that an
# interrupt or a stop of the run ends them too: a background job of a
# script ignores the terminal's SIGINT, and would run on (its VMs, apt in
# a chroot) into the next `make check`.
bg_pids=()
stop_bg() {
	local p
	for p in "${bg_pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
}
run_group() {
	local t rc=0 r i
	mkdir -p $logs
	bg_pids=()
	set -m
	for t in "${@:2}"; do
		# stdin as without job control: in a process group of its own a
		# reader of the terminal (QEMU's -serial stdio) would be stopped.
		run_target "$t" > "$logs/${t%% *}.log" 2>&1 < /dev/null &
		bg_pids+=($!)
	done
	set +m
	trap 'stop_bg; exit 130' INT TERM
	run_target "$1" || rc=$?
	for i in "${!bg_pids[@]}"; do
		wait "${bg_pids[i]}"
		r=$?
		[ $rc != 0 ] || rc=$r
		t=${*:i+2:1}
		echo "# --- output of ${t%% *}, run beside ${1%% *}"
		cat "$logs/${t%% *}.log"
	done
	trap - INT TERM
	return $rc
}

group=()
flush() {
	[ ${#group[@]} -gt 0 ] || return 0
	run_group "${group[@]}"
	rc=$?
	if [ $rc != 0 ]; then
		echo "# phase total $((SECONDS - total))s (stopped at ${group[*]%% *})"
		exit $rc
	fi
	group=()
}
joined=
for arg in "$@"; do
	if [ "$arg" = + ]; then
		joined=1
		continue
	fi
	[ -n "$joined" ] || flush
	group+=("$arg")
	joined=
done
flush
echo "# phase total $((SECONDS - total))s"
