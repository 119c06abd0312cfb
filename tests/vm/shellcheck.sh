#!/bin/bash
# Runs shellcheck on every shell script of tests/vm, each as the shell that
# runs it: in the VM busybox sh (POSIX, -s sh), on the host bash. -x
# follows what a script sources; a source= directive names the file where
# the VM's path (/tests/lib.sh: tests/lib/vm.sh) is not the tree's. A shell file under
# tests/vm in neither list fails the run, so a new one is not skipped.
#   tests/vm/shellcheck.sh    -> exit 0 when clean (make lint)
set -eu
cd "$(dirname "$0")"
# In the VM (tests/vm/init is PID 1): busybox sh.
vm_sh=(init kernel-errors.sh demo.sh cpu-proof.sh udev-sldctl.sh t/*.sh t-*/*.sh repro/*.sh)
# On the host: bash (images.sh is sourced by deps.sh and sid.sh).
host_bash=(bpo.sh check.sh collect.sh cpu-check.sh deps.sh images.sh shellcheck.sh sid.sh vm.sh)
rc=0
while IFS= read -r f; do
	case " ${vm_sh[*]} ${host_bash[*]} " in
	*" $f "*) ;;
	*) echo "tests/vm/shellcheck.sh: $f is in no list: add it" >&2; rc=1 ;;
	esac
done < <(find . -type f \( -name '*.sh' -o -name init \) | sed 's|^\./||' | sort)
shellcheck -x -s sh "${vm_sh[@]}" || rc=1
shellcheck -x -s bash "${host_bash[@]}" || rc=1
exit $rc
