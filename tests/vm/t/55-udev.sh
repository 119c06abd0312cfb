# The udev rule end to end: a real systemd-udevd (Debian's udev) receives
# the kernel's module add events and runs the installed rule's
# `sldctl apply`, which visibly applies /etc/sld-compat to the knobs: for
# sld_compat itself, and for a fixture module the configuration names
# (safe_modules = fx_clean), not for one it does not name (fx_svm). The
# rule spawns sldctl only for the modules the configuration names (the
# files in /run/sld-compat/named-modules that `sldctl apply` keeps):
# vm.sh's /usr/sbin/sldctl (udev-sldctl.sh) writes one line to
# /tmp/udev-spawns per spawn, and the test counts them.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

C=/etc/sld-compat
UDEVD=/lib/systemd/systemd-udevd
NAMED=/run/sld-compat/named-modules
SPAWNS=/tmp/udev-spawns

ensure_unloaded

# wait_knob KNOB VALUE: udevd runs the rule asynchronously; settle, then
# poll a little (TCG is slow).
wait_knob() {
	udevadm settle -t 60 2>/dev/null
	wait_for 200 "[ \"\$(cat $P/$1 2>/dev/null)\" = '$2' ]"
}
# spawned: what udev spawned since the last call, one line per spawn.
spawned() {
	udevadm settle -t 60 2>/dev/null
	cat $SPAWNS 2>/dev/null
	: > $SPAWNS
}

if [ ! -x $UDEVD ]; then
	nok "systemd-udevd is in the VM root (tests/vm/vm.sh add_udev; apt-get install udev)"
	exit 0
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
: > $SPAWNS

# sld_compat loads: the rule applies the configuration.
load
wait_knob verbose 3
is "$(cat $P/verbose)" 3 "udev applied verbose = 3 when sld_compat loaded"
is "$(cat $P/exempt_comm)" udevtest "udev applied exempt_comm when sld_compat loaded"
is "$(cat $P/safe_modules)" fx_clean "udev applied safe_modules when sld_compat loaded"
is "$(spawned)" apply "sld_compat's load: one spawn, sldctl apply"
is "$(ls $NAMED)" fx_clean "sldctl apply recorded the one module the configuration names"

# Modules the configuration does not name, as a boot loads hundreds:
# nothing is applied and nothing is spawned.
echo 0 > $P/verbose
# load_unnamed FILE: its module, unless loaded already; unnamed lists
# those loaded, the last first, and n counts them.
unnamed='' n=0
load_unnamed() {
	_m=$(basename "$1" .ko | tr - _)
	loaded "$_m" && return 0
	insmod "$1" && unnamed="$_m $unnamed" n=$((n + 1))
}
for m in fx_svm fx_movcr4 fx_safe keycount; do load_unnamed "/mod/$m.ko"; done
[ ! -f /kmod/fs/order ] ||
	while read -r m; do load_unnamed "/kmod/fs/$m.ko"; done < /kmod/fs/order
s=$(spawned)
diag "$n modules the configuration does not name loaded ($unnamed): $(echo "$s" | grep -c .) sldctl spawn(s)"
like "$n" '^([4-9]|[1-9][0-9]+)$' "at least 4 modules the configuration does not name loaded"
is "$s" "" "modules the configuration does not name: no sldctl spawned"
is "$(cat $P/verbose)" 0 "a module the configuration does not name: knobs untouched"
for m in $unnamed; do rmmod "$m"; done

# A module the configuration names: the configuration is applied again.
insmod /mod/fx_clean.ko
wait_knob verbose 3
is "$(cat $P/verbose)" 3 "a module the configuration names (fx_clean): udev re-applied the configuration"
is "$(spawned)" "apply --module fx_clean" "fx_clean's load: one spawn, sldctl apply --module fx_clean"

# The admin edits the configuration and applies it: the named set follows.
printf 'verbose = 2\nsafe_modules = fx-svm\n' > $C/sld-compat.conf
run "sldctl apply after editing the configuration" sldctl apply
is "$(ls $NAMED)" fx_svm "the named set follows the configuration (fx-svm as the kernel spells it)"
echo 0 > $P/verbose
insmod /mod/fx_svm.ko
wait_knob verbose 2
is "$(cat $P/verbose)" 2 "a module the edited configuration names (fx_svm): re-applied"
is "$(spawned)" "apply --module fx_svm" "fx_svm's load: one spawn"

run "systemd-udevd stops" udevadm control --exit
rmmod fx_clean fx_svm
unload
rm -rf $C $NAMED $SPAWNS
