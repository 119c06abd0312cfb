# sldctl status and apply against the real module: status with the module
# loaded and not loaded, the configuration applied with bad lines and
# rejected values reported by file:line, persistence across a reload.
. /tests/lib.sh

X=/tests/bin/sldctl
C=/etc/sld-compat
E=/tmp/sldctl.err

# sx ARGS...: run sldctl; stdout in $out, stderr in $E, exit code in $rc.
sx() { out=$($X "$@" 2> $E); rc=$?; }

lsmod | grep -q '^sld_compat ' && unload

# ---- not loaded ---------------------------------------------------------
sx status
is "$rc" 1 "status without the module exits 1"
like "$out" "^sld_compat: not loaded$" "status says not loaded"
like "$out" "^cpu split_lock_detect: no$" "status: TCG has no split_lock_detect"
like "$out" "^cpu bus_lock_detect: no$" "status: TCG has no bus_lock_detect"
sx status --json
like "$out" '"loaded": false' "status --json: loaded false"
mkdir -p $C/conf.d
printf 'verbose = 2\n' > $C/sld-compat.conf
sx apply
is "$rc" 2 "apply without the module exits 2"
like "$(cat $E)" "sld_compat is not loaded" "apply says the module is not loaded"

# ---- loaded --------------------------------------------------------------
load
sx status
is "$rc" 0 "status with the module exits 0"
like "$out" "^sld_compat: loaded$" "status says loaded"
for f in $S/*; do
	[ -f "$f" ] || continue
	n=$(basename $f)
	like "$out" "^  $n:" "status lists $n"
done
like "$out" "^  version: $(cat $S/version)$" "status shows the version"
like "$out" "^  verbose: 1$" "status shows the knob verbose"
like "$out" "^  enabled: Y$" "status shows the knob enabled"
sx status --json
is "$rc" 0 "status --json exits 0"
like "$out" '"loaded": true' "status --json: loaded true"
like "$out" '"verbose": "1"' "status --json: knob value"
like "$out" "\"version\": \"$(cat $S/version)\"" "status --json: version file"
is "$(cat $E)" "" "status: nothing on stderr"

# ---- apply ---------------------------------------------------------------
printf '# sld-compat test\nverbose = 2\nthis line is bad\n' > $C/sld-compat.conf
sx apply
is "$rc" 1 "apply with a bad line exits 1"
is "$(cat $P/verbose)" 2 "apply: verbose is 2"
like "$(cat $E)" "^$C/sld-compat.conf:3: missing '='$" "apply: bad line reported with its number"
like "$out" "^sld_compat.verbose = 2 \\($C/sld-compat.conf:2\\)$" "apply: says what it set"

# A value the module refuses: EINVAL, reported with file:line and knob.
printf 'verbose = 9\n' > $C/conf.d/50-bad.conf
mark_dmesg
sx apply
is "$rc" 1 "apply with a rejected value exits 1"
like "$(cat $E)" "^$C/conf.d/50-bad.conf:1: sld_compat.verbose: the module rejected '9' \\(EINVAL" \
	"apply: EINVAL reported with file:line and knob"
is "$(cat $P/verbose)" 2 "apply: rejected value changed nothing"
like "$(new_dmesg)" "sld_compat: verbose: rejected" "module logged the rejection"
expect_dmesg "verbose: rejected"
printf 'no_such_knob = 1\n' > $C/conf.d/50-bad.conf
sx apply
is "$rc" 1 "apply with an unknown knob exits 1"
like "$(cat $E)" "50-bad.conf:1: sld_compat has no knob 'no_such_knob'" "apply: unknown knob reported"
rm $C/conf.d/50-bad.conf

# Not root: refused before anything is written.
out=$(sldtest asuser 65534 $X apply 2>&1); rc=$?
is "$rc" 2 "apply as non-root exits 2"
like "$out" "must be run as root" "apply as non-root says why"

# ---- persistence across a reload -----------------------------------------
printf '# sld-compat test\nverbose = 2\nenabled = N\n' > $C/sld-compat.conf
printf 'enabled = Y\n' > $C/conf.d/10-on.conf
unload
load
is "$(cat $P/verbose)" 1 "after reload: default verbose"
sx apply
is "$rc" 0 "apply after reload exits 0"
is "$(cat $P/verbose)" 2 "after reload and apply: verbose is 2"
is "$(cat $P/enabled)" Y "drop-in overrides the main file"
sx apply --dry-run
is "$rc" 0 "apply --dry-run exits 0"
like "$out" "^would set sld_compat.verbose = 2" "apply --dry-run says what it would set"

rm -rf $C
unload
