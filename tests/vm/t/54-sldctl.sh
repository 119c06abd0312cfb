# sldctl against the real module: status and doctor with the module loaded
# and not loaded, the configuration applied with bad lines and rejected
# values reported by file:line, registry/exempt/policy reflected in the
# knobs, --persist surviving a reload, persistence across a reload.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

X=/tests/bin/sldctl
C=/etc/sld-compat
E=/tmp/sldctl.err

# sx ARGS...: run sldctl; stdout in $out, stderr in $E, exit code in $rc.
sx() { out=$($X "$@" 2> $E); rc=$?; }

ensure_unloaded

# ---- not loaded ---------------------------------------------------------
sx status
is "$rc" 1 "status without the module exits 1"
like "$out" "^sld_compat: not loaded$" "status says not loaded"
# Stock TCG: no SLD, the kernel's mode off (from the CPU flag); the
# enforcing CPU: SLD, mode warn (from the kernel's boot line), and
# bus-lock detection (tests/qemu/0005).
if [ $CPU_SLD = 1 ]; then yn=yes from=kernel-log; else yn=no from=cpu; fi
if [ $CPU_BLD = 1 ]; then byn=yes; else byn=no; fi
like "$out" "^cpu: split_lock_detect $yn," "status: split_lock_detect $yn"
like "$out" "^cpu: .*, bus_lock_detect $byn$" "status: bus_lock_detect $byn"
sx status --json
like "$out" '"loaded": false' "status --json: loaded false"
sx status
like "$out" "^kernel: split-lock mode $KMODE \\(from $from\\)," "status: the kernel's mode is $KMODE (from $from)"
sx status --format prometheus
is "$rc" 0 "status --format prometheus without the module exits 0"
like "$out" "^sld_compat_loaded 0$" "prometheus: sld_compat_loaded 0"
sx doctor
is "$rc" 0 "doctor without a hypervisor installed exits 0"
if [ $CPU_SLD = 1 ]; then
	like "$out" "^\\[info\\] cpu-split-lock-detect: " "doctor: the CPU has split-lock detection"
	like "$out" "^\\[info\\] kernel-sld-warn: " "doctor: the kernel is in warn mode"
else
	like "$out" "^\\[info\\] cpu-no-split-lock-detect: " "doctor: no split-lock detection on this CPU"
fi
like "$out" "^\\[info\\] not-needed: " "doctor: sld_compat not needed here"
# Installed modules are scanned offline: vmmon and sld_compat in updates/.
LM=/lib/modules/$(uname -r)/updates
mkdir -p "$LM"
cp /mod/vmmon.ko /mod/sld_compat.ko "$LM/"
# Where the CPU has SLD, vmmon's guests would crash: loading sld_compat
# is an action (exit 1); without SLD they would not, so it is info.
if [ $CPU_SLD = 1 ]; then want=1 sev=action result=action-needed; else
	want=0 sev=info result=healthy; fi
sx doctor --json
is "$rc" $want "doctor --json exits $want"
like "$out" "\"id\": \"hypervisor-installed\", \"severity\": \"info\", \"message\": \"VMware's vmmon is installed \\(/lib/modules/[^/]+/updates/vmmon.ko\\)" \
	"doctor: finds vmmon installed, offline"
like "$out" "\"id\": \"sld-compat-not-loaded\", \"severity\": \"$sev\"" "doctor: sld_compat installed, not loaded ($sev)"
like "$out" "\"result\": \"$result\"" "doctor --json: result $result"
sx registry add --safe fx_clean
is "$rc" 2 "registry add without the module (and without --persist) exits 2"
like "$(cat $E)" "sld_compat is not loaded" "registry add: says the module is not loaded"
mkdir -p $C/conf.d
printf 'verbose = 2\n' > $C/sld-compat.conf
sx apply
is "$rc" 2 "apply without the module exits 2"
like "$(cat $E)" "sld_compat is not loaded" "apply says the module is not loaded"

# ---- loaded --------------------------------------------------------------
load
sx status
is "$rc" 0 "status with the module exits 0"
like "$out" "^sld_compat: loaded," "status says loaded"
like "$out" "^sld_compat: loaded, version $(cat $S/version)$" "status shows the version"
like "$out" "^  verbose: 1$" "status shows the knob verbose"
like "$out" "^sld_compat mode: .*enabled=Y$" "status shows the knob enabled"
is "$(echo "$out" | grep -cE 'enabled[=:]')" 1 "status shows the knob enabled once"
n=$(echo "$out" | wc -l)
if [ "$n" -le 40 ]; then ok "status: $n lines"; else nok "status: $n lines, want at most 40"; diag "$out"; fi
# Each status file in its place (-v adds hooks, kernel code, ...); the
# aggregate file status repeats them all and is not shown; a file sldctl
# does not know would be listed under "other files" by its name.
yn() { [ "$1" = 1 ] && echo yes || echo no; }
sx status --verbose
is "$rc" 0 "status --verbose exits 0"
for f in "$S"/*; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	v=$(head -1 "$f")
	case $n in
	version) re="^sld_compat: loaded, version $v$" ;;
	support) re="^support: $v$" ;;
	mechanism) re="^mechanism: $(echo "$v" | sed 's/[#()]/./g')$" ;;
	db) re="^  #DB \\(bus lock\\): handled $(grep '^db_handled ' "$f" | cut -d' ' -f2), " ;;
	sld_mode) re="^kernel: split-lock mode $v \\(from sld_compat\\)," ;;
	split_lock_mitigate) re="^kernel: .*, split_lock_mitigate $v$" ;;
	cpu_split_lock_detect) re="^cpu: split_lock_detect $(yn "$v")," ;;
	cpu_bus_lock_detect) re="^cpu: .*, bus_lock_detect $(yn "$v")$" ;;
	kernel_code) re="^  $v$" ;;
	hooks) re="^  $v$" ;;
	degraded) re="^degraded: $v$" ;;
	ac) re="^#AC handled: $(ac ac_user_handled) user, $(ac ac_guest_handled) guest$" ;;
	tasks) re="^protected tasks: 0 \\(hypervisor 0, comm 0, path 0, cgroup 0, sldctl run 0\\); pool [0-9]+ KiB$" ;;
	in_use) re="^sld_compat in use: no: " ;;
	hypervisors) re="^hypervisors: none loaded$" ;;
	vendor) re="^  vendor API: brackets refused $(grep '^bracket_refused ' "$f" | cut -d' ' -f2), " ;;
	disable_count) re="^modules holding SLD off: $v$" ;;
	# "-": no rule waits for its cgroup, and the summary says nothing
	# (t/44-exempt-rules.sh shows a pending one).
	exempt_pending) is "$v $(echo "$out" | grep -c pending)" "- 0" "status: no pending rule, none shown"
		continue ;;
	status) is "$(echo "$out" | grep -c '^ *version:')" 0 "status does not repeat the aggregate file status"
		continue ;;
	# "none": no `sldctl run` lives, and the summary lists none
	# (t/60-run.sh shows one).
	runs) is "$v $(echo "$out" | grep -c 'sldctl runs')" "none 0" "status: no run, none shown"
		continue ;;
	*) re="^  $n: " ;;
	esac
	like "$out" "$re" "status shows $n"
done
like "$out" "^  cpu1 core=" "status --verbose: per-CPU account"
sx status --json
is "$rc" 0 "status --json exits 0"
like "$out" '"loaded": true' "status --json: loaded true"
like "$out" '"verbose": "1"' "status --json: knob value"
like "$out" "\"version\": \"$(cat $S/version)\"" "status --json: version file"
like "$out" "\"sld_mode_source\": \"sld_compat\"" "status --json: mode from the module"
like "$out" '"account": \[' "status --json: per-core account as lines"
is "$(cat $E)" "" "status: nothing on stderr"
# prom NAME{LABELS}: the value of that sample in $out.
prom() { echo "$out" | awk -v n="$1" '$1 == n { print $2 }'; }
sx status --format prometheus
is "$rc" 0 "status --format prometheus with the module exits 0"
like "$out" "^sld_compat_loaded 1$" "prometheus: sld_compat_loaded 1"
like "$out" "^# TYPE sld_compat_ac_traps_total counter$" "prometheus: ac traps are a counter"
is "$(prom sld_compat_protected_tasks)" "$(ac tasks_live)" "prometheus: protected tasks = tasks_live"
is "$(prom 'sld_compat_ac_traps_total{outcome="user_handled"}')" "$(ac ac_user_handled)" \
	"prometheus: user_handled traps = ac file"
is "$(prom 'sld_compat_task_events_total{event="protected"}')" "$(ac tasks_protected)" \
	"prometheus: protected-task events = ac file"
is "$(echo "$out" | grep -c '^sld_compat_msr_toggles_total{cpu="[0-9]*",direction="off"}')" \
	"$(grep -c '^cpu' $ACCT)" "prometheus: MSR toggles per CPU of the account"
is "$(prom 'sld_compat_msr_toggles_total{cpu="0",direction="on"}')" "$(acf cpu0 toggles_on)" \
	"prometheus: cpu0 toggles_on = account"
like "$out" "^sld_compat_info\\{version=\"$(cat $S/version)\",sld_mode=\"$(cat $S/sld_mode)\"\\} 1$" \
	"prometheus: version and mode"
sx status
like "$out" "^kernel: split-lock mode $(cat $S/sld_mode) \\(from sld_compat\\)," "status: the module's view of the kernel's mode"
like "$out" "^sld_compat mode: on_hypervisor=protect enabled=Y$" "status: mode of sld_compat"
sx doctor
is "$rc" 1 "doctor: configuration not applied yet, exit 1 (action needed)"
like "$out" "^\\[action\\] config-not-applied: $C/sld-compat.conf:1 sets verbose = 2 but the module has 1" \
	"doctor: says the configuration is not applied"
like "$out" "^    fix: sldctl apply$" "doctor: says what to run"
mv $C/sld-compat.conf $C/saved.conf
sx doctor
is "$rc" 0 "doctor with the module exits 0"
like "$out" "^\\[info\\] sld-compat-loaded: sld_compat is loaded \\(on_hypervisor=protect, enabled=Y\\)" "doctor: sld_compat loaded"
mv $C/saved.conf $C/sld-compat.conf

# ---- registry, exempt, policy through sldctl -----------------------------
sx registry add --safe fx_clean
is "$rc" 0 "registry add --safe exits 0"
is "$(cat $P/safe_modules)" fx_clean "registry add --safe: knob safe_modules"
sx registry add --hypervisor fx-svm
is "$(cat $P/hypervisor_modules)" fx_svm "registry add --hypervisor: knob hypervisor_modules (normalised)"
sx registry add --safe fx_svm
is "$rc" 2 "registry add --safe of a listed hypervisor exits 2"
like "$(cat $E)" "'fx_svm' is in hypervisor_modules" "registry add: conflict named"
is "$(cat $P/safe_modules)" fx_clean "registry add: conflict changed nothing"
sx registry list --json
like "$out" '"seen": \[' "registry list --json: modules seen by the module"
sx registry remove fx_clean fx_svm
is "$rc" 0 "registry remove exits 0"
like "$(cat $P/safe_modules),$(cat $P/hypervisor_modules)" "^-?,-?$" "registry remove: both lists empty"
sx policy set refuse
is "$(cat $P/on_hypervisor)" refuse "policy set refuse: knob on_hypervisor"
sx policy set verbose 9
is "$rc" 2 "policy set verbose 9 refused by sldctl"
is "$(cat $P/verbose)" 1 "policy set: refused value changed nothing"
sx policy set protect
sx policy get
like "$out" "^on_hypervisor: protect \\(module\\)$" "policy get shows the knob"

# ---- what a knob write did to the loaded modules --------------------------
run "insmod fx_hv" insmod /mod/fx_hv.ko
sx policy set log
is "$rc" 0 "policy set log exits 0"
is "$out" "sld_compat.on_hypervisor = log
  fx_hv: hypervisor (vmx-text): no longer watched, its protected tasks released" \
	"policy set log: says fx_hv is no longer watched"
sx policy set disable
like "$out" "^  fx_hv: hypervisor \\(vmx-text\\): holds SLD off$" "policy set disable: says fx_hv holds SLD off"
sx registry add --safe fx_hv
like "$out" "^  fx_hv: hypervisor \\(vmx-text\\) -> sld_safe \\(admin-safe\\): SLD disable hold given back$" \
	"registry add --safe: new verdict, hold given back"
sx registry remove fx_hv --json
like "$out" '"modules_changed": \[' "registry remove --json: modules_changed"
like "$out" '"module": "fx_hv", "verdict": "hypervisor", "reason": "vmx-text", "watched": false, "sld_disabled": true, "refuse_too_late": false, "change": "fx_hv: sld_safe \(admin-safe\) -> hypervisor \(vmx-text\): holds SLD off"' \
	"registry remove --json: fx_hv's new state and the change"
sx policy set refuse
like "$out" "^  fx_hv: hypervisor \\(vmx-text\\): loaded, so not refused: flagged refuse-too-late until it unloads$" \
	"policy set refuse: says fx_hv stays (keeping its hold), flagged"
sx policy set protect
like "$out" "^  fx_hv: hypervisor \\(vmx-text\\): watched, SLD disable hold given back, no longer flagged refuse-too-late$" \
	"policy set protect: watched again, hold given back"
sx policy set protect
like "$out" "^  no loaded module changed$" "policy set to the same value: nothing changed"
sx policy set verbose 1
is "$out" "sld_compat.verbose = 1" "policy set verbose: no module report (it re-decides nothing)"
run "rmmod fx_hv" rmmod fx_hv
sx exempt add --comm vmtest --comm other
is "$(cat $P/exempt_comm)" vmtest,other "exempt add --comm: knob exempt_comm"
like "$(cat $E)" "any process can give itself" "exempt add --comm: says a task name is forgeable"
sx exempt remove --comm other
is "$(cat $P/exempt_comm)" vmtest "exempt remove --comm"
sx exempt add --path relative/bin
is "$rc" 2 "exempt add --path with a relative path exits 2"
like "$(cat $E)" "not absolute \\(must start with /\\)" "exempt add --path: says why"
# The bounds are one table in both: 32 names fit, the 33rd is refused by
# sldctl itself, as the module refuses it.
many=; for i in $(seq 1 31); do many="$many --comm n$i"; done
# shellcheck disable=SC2086 # many: two arguments per name
sx exempt add $many
is "$rc" 0 "exempt add up to 32 names: sldctl and the module take them"
is "$(cat $P/exempt_comm | tr ',' '\n' | wc -l)" 32 "exempt add: knob exempt_comm holds 32 names"
sx exempt add --comm n32
is "$rc" 2 "exempt add of a 33rd name: sldctl refuses (exit 2)"
like "$(cat $E)" "exempt_comm: the list is full \\(32 entries; sld_compat takes 32\\)" "exempt add: says the list is full"
knob_rejects exempt_comm "+n32"
expect_dmesg "exempt_comm: rejected"
# shellcheck disable=SC2086 # as above
sx exempt remove $many
is "$(cat $P/exempt_comm)" vmtest "exempt remove of 31 names"
# Paths: 255 bytes are taken by both, 256 by neither. In a directory
# only root may write: sldctl refuses a path others could replace (/tmp).
mkdir -m 0755 /sldl
long=/sldl/$(printf '%0249d' 0)
: > "$long"
sx exempt add --path "$long"
is "$rc" 0 "exempt add --path of 255 bytes: sldctl and the module take it"
is "$(cat $P/exempt_path)" "$long" "exempt add --path: 255-byte path in exempt_path"
sx exempt remove --path "$long"
: > "${long}1"
sx exempt add --path "${long}1"
is "$rc" 2 "exempt add --path of 256 bytes: sldctl refuses (exit 2)"
like "$(cat $E)" "entry longer than 255 bytes" "exempt add --path: says the path is too long"
knob_rejects exempt_path "${long}1"
expect_dmesg "exempt_path: rejected"
rm -rf /sldl
# The task-engine knobs, known to sldctl from the same table.
mt=$(cat $P/max_tasks)
sx policy get max_tasks tasks_per_uid
like "$out" "^max_tasks: $mt \\(module\\)$" "policy get max_tasks"
like "$out" "^tasks_per_uid: $(cat $P/tasks_per_uid) \\(module\\)$" "policy get tasks_per_uid"
sx policy set max_tasks 262144
is "$(cat $P/max_tasks)" 262144 "policy set max_tasks at its upper bound"
sx policy set max_tasks 262145
is "$rc" 2 "policy set max_tasks past its bound: sldctl refuses (exit 2)"
is "$(cat $P/max_tasks)" 262144 "policy set max_tasks: refused value changed nothing"
sx policy set max_tasks "$mt"
is "$(cat $P/max_tasks)" "$mt" "policy set max_tasks back"
sx policy set tasks_per_uid 0
is "$rc" 2 "policy set tasks_per_uid 0: sldctl refuses (exit 2)"
sx exempt add --path /tests/bin/sldtest
is "$(cat $P/exempt_path)" /tests/bin/sldtest "exempt add --path: knob exempt_path"
sx exempt remove --path /tests/bin/sldtest
is "$(cat $P/exempt_path)" - "exempt remove --path"
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
mkdir -p /sys/fs/cgroup/sldtest
sx exempt add --cgroup /sldtest
is "$(cat $P/exempt_cgroup)" /sldtest "exempt add --cgroup: knob exempt_cgroup"
sx exempt remove --cgroup /sldtest
is "$(cat $P/exempt_cgroup)" - "exempt remove --cgroup"
rmdir /sys/fs/cgroup/sldtest
sx policy set exempt_proactive Y
is "$(cat $P/exempt_proactive)" Y "policy set exempt_proactive Y"
sx policy set exempt_proactive N
is "$(cat $P/exempt_proactive)" N "policy set exempt_proactive N"
sx exempt remove --comm vmtest
out=$(sldtest asuser 65534 $X registry add --safe fx_clean 2>&1); rc=$?
is "$rc" 2 "registry add as non-root exits 2"
like "$out" "must be run as root" "registry add as non-root says why"
like "$(cat $P/safe_modules)" "^-?$" "registry add as non-root changed nothing"

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

# ---- --persist survives a reload -------------------------------------------
rm -rf $C/conf.d
printf '# kept comment\n' > $C/sld-compat.conf
sx exempt add --comm keepme --persist
is "$rc" 0 "exempt add --persist exits 0"
sx policy set verbose 2 --persist
sx registry add --hypervisor fx_svm --persist
like "$(cat $C/sld-compat.conf)" "^# kept comment$" "--persist keeps comments"
like "$(cat $C/sld-compat.conf)" "^exempt_comm = keepme$" "--persist wrote exempt_comm"
unload
load
is "$(cat $P/exempt_comm),$(cat $P/verbose)" "-,1" "after reload: defaults"
sx apply
is "$rc" 0 "apply after reload exits 0"
is "$(cat $P/exempt_comm)" keepme "after reload and apply: exempt_comm from --persist"
is "$(cat $P/verbose)" 2 "after reload and apply: verbose from --persist"
is "$(cat $P/hypervisor_modules)" fx_svm "after reload and apply: hypervisor_modules from --persist"

rm -rf $C "$LM"
unload
