#!/bin/bash
# make check's phases, one after another: `phases.sh TARGET...`, each
# TARGET one make command line ("check-system SYS_RELEASES=trixie").
# Prints `# phase TARGET SECONDS s` after each and the total at the end,
# so that a slow run says where it was slow. Stops at the first that
# fails, as make would.
# PHASE_MAKE: the make that runs a target (tests/Makefile passes its own
# "make -f tests/Makefile"); not MAKE, which as an environment variable
# would reach every make below, the kernel's build included.
set -u
total=$SECONDS
for target in "$@"; do
	t0=$SECONDS
	# shellcheck disable=SC2086 # a target and its variables, as words
	${PHASE_MAKE:-make} $target
	rc=$?
	if [ $rc = 0 ]; then
		echo "# phase ${target%% *} $((SECONDS - t0))s"
	else
		echo "# phase ${target%% *} $((SECONDS - t0))s (failed: exit $rc)"
		echo "# phase total $((SECONDS - total))s (stopped at ${target%% *})"
		exit $rc
	fi
done
echo "# phase total $((SECONDS - total))s"
