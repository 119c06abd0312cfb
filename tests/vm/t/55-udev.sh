# The udev rule end to end: a real systemd-udevd (Debian's udev) receives
# the kernel's module add events and runs the installed rule's
# `sldctl apply`, which visibly applies /etc/sld-compat to the knobs: for
# sld_compat itself, and for a fixture module the configuration names
# (safe_modules = fx_clean), not for one it does not name (fx_svm).
. /tests/lib.sh

C=/etc/sld-compat
UDEVD=/lib/systemd/systemd-udevd

ensure_unloaded

# wait_knob KNOB VALUE: udevd runs the rule asynchronously; settle, then
# poll a little (TCG is slow).
wait_knob() {
	udevadm settle -t 60 2>/dev/null
	wait_for 200 "[ \"\$(cat $P/$1 2>/dev/null)\" = '$2' ]"
}

if [ ! -x $UDEVD ]; then
	nok "systemd-udevd is in the VM root (tests/vm/vm.sh add_udev; apt-get install udev)"
	return 0 2>/dev/null || exit 0
fi
ok "systemd-udevd is in the VM root ($(udevadm --version))"
run "the installed rule refers to /usr/sbin/sldctl" \
	grep -q 'RUN+="/usr/sbin/sldctl apply"' /usr/lib/udev/rules.d/90-sld-compat.rules

mkdir -p $C
printf '# udev test\nverbose = 3\nexempt_comm = udevtest\nsafe_modules = fx_clean\n' > $C/sld-compat.conf
$UDEVD --daemon --resolve-names=never 2>/tmp/udevd.err
wait_for 100 '[ -e /run/udev/control ]'
run "systemd-udevd started (control socket)" test -e /run/udev/control
diag "$(cat /tmp/udevd.err)"

# sld_compat loads: the rule applies the configuration.
load
wait_knob verbose 3
is "$(cat $P/verbose)" 3 "udev applied verbose = 3 when sld_compat loaded"
is "$(cat $P/exempt_comm)" udevtest "udev applied exempt_comm when sld_compat loaded"
is "$(cat $P/safe_modules)" fx_clean "udev applied safe_modules when sld_compat loaded"

# A module the configuration does not name: nothing is applied.
echo 0 > $P/verbose
insmod /mod/fx_svm.ko
udevadm settle -t 60 2>/dev/null
sleep 2
is "$(cat $P/verbose)" 0 "a module the configuration does not name: knobs untouched"

# A module the configuration names: the configuration is applied again.
insmod /mod/fx_clean.ko
wait_knob verbose 3
is "$(cat $P/verbose)" 3 "a module the configuration names (fx_clean): udev re-applied the configuration"

run "systemd-udevd stops" udevadm control --exit
rmmod fx_clean fx_svm
unload
rm -rf $C
