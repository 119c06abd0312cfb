# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario rules (issue #26 steps a, b, c, d, e, h; issue #37 item 6;
# issue #41 item 7; issue #42 items 4 and 6): what a user's host goes
# through, the steps users take most. Before the first boot, in the
# root: both packages installed as README's first way says, from the
# signed repository, and the shipped libvirt example enabled (`cp
# conf.d/libvirt-qemu.conf.example conf.d/libvirt-qemu.conf`), the
# admin's own configuration beside it, the rest of the root up to date.
# Boot 1, the release's kernel: the libvirt example's rule relieves a
# task in a libvirt-named scope below machine.slice, not one in a
# podman-like scope there; the Proxmox VE example a stand-in VM started
# as qemu-server starts one; issue #38 item 2, a host full of VMs
# (scale_part); then step e: the next release published at the
# repository's address, `apt update && apt upgrade` while a protected
# stand-in guest split-locks, DKMS building it under TCG in the booted
# system (upgrade_part).
# The host's step on the switched-off system (between_boots), step d:
# the release's backports kernel installed with apt, DKMS building the
# next release for it from the kernel's hook (natively, as the root's
# install before boot 1; the `kernel` scenario of check-full does that
# in the booted system, about 10 minutes of TCG).
# Boot 2, the new kernel /vmlinuz names: the next release loaded at
# boot and protecting, the configuration kept.
# The kernel comes after the package upgrade so that DKMS builds under
# TCG once: Debian 13's dkms builds for every kernel with headers
# (autoinstall_all_kernels in /etc/dkms/framework.conf.d), two builds
# and 22 to 28 minutes when both kernels are there (docs/testing.md).
# SYS_RULES_UPGRADE=0 stops after boot 1's rules, without step e or d.
# Guest part first, host part after the marker.

# first_protected COMM WHY: the kernel's one line for COMM's first
# protection names WHY (the rule or the hypervisor module).
first_protected() {
	jk | grep -E "^sld_compat: protecting $1\[[0-9]+\]: $2\$"
}

boot1() {
	local t="a+b: libvirt example enabled, after boot" out n slx=/usr/local/bin/slx
	local lv='/machine.slice/machine-qemu\x2d*.scope'
	loaded_at_boot "$t"
	no_failed_units "$t"
	is "$(journalctl -b -q --no-pager -u systemd-udevd | grep -c 'sldctl apply.*failed')" 0 \
		"$t: udev's 'sldctl apply' did not fail"
	doctor_healthy "$t"
	is "$(cat /sys/module/sld_compat/parameters/exempt_cgroup)" "$lv" \
		"$t: exempt_cgroup = $lv (applied although no such scope exists yet)"
	run "$t: machine.slice does not exist yet" test ! -d /sys/fs/cgroup/machine.slice
	is "$(cat "$S/exempt_pending")" "exempt_cgroup $lv" "$t: the rule is pending (exempt_pending)"
	like "$(sldctl status)" 'pending' "$t: sldctl status shows a pending rule"
	standin_protected "$t"
	run "h: the kernel log names the stand-in's first protection and its module" \
		first_protected sldhv 'hypervisor module vmmon'
	# 5 split locks 30 ms apart: an unprotected task traps at each
	# (standin_protected's last check), a protected one at none.
	# Issue 37 item 6: rootful podman's scope in the same slice is not
	# libvirt's, so the example does not relieve it.
	n=$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')
	out=$(systemd-run -q --slice=machine.slice --scope --unit=libpod-x sldcpu time 5 split 30000)
	diag "in a podman-like scope machine.slice/libpod-x.scope: $out"
	run "b: a split-locking task in a podman-like scope below machine.slice pays the penalty ($(field "$out" per_lock_us) us/lock >= 5000)" \
		test "$(field "$out" per_lock_us)" -ge 5000
	run "b: ... and the kernel logged its traps" \
		test "$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')" -gt "$n"
	is "$(jk | grep -c '^sld_compat: protecting sldcpu\[')" 0 "b: ... sld_compat protected no sldcpu"
	is "$(cat "$S/exempt_pending")" "exempt_cgroup $lv" \
		"b: the rule is still pending: machine.slice exists, no libvirt scope in it"
	out=$(systemd-run -q --slice=machine.slice --scope --unit='machine-qemu\x2d1\x2dvm' \
		cat /proc/self/cgroup)
	is "$out" '0::/machine.slice/machine-qemu\x2d1\x2dvm.scope' \
		"b: systemd-run names the scope as systemd-machined names libvirt's"
	n=$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')
	out=$(systemd-run -q --slice=machine.slice --scope --unit='machine-qemu\x2d1\x2dvm' \
		sldcpu time 5 split 30000)
	diag "in the libvirt-named scope: $out"
	run "b: a split-locking task in a libvirt-named scope below machine.slice: no penalty ($(field "$out" per_lock_us) us/lock < 1000)" \
		test "$(field "$out" per_lock_us)" -lt 1000
	like "$out" 'counter=5$' "b: ... its 5 split locks completed"
	run "b+h: the kernel log names it, protected by the exempt_cgroup rule" \
		first_protected sldcpu 'exempt_cgroup rule /machine\.slice/machine-qemu\\x2d\*\.scope'
	is "$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')" "$n" "b: ... and no trap of it"

	# c: exempt_path, then the binary replaced the way dpkg does.
	cp "$(command -v sldcpu)" $slx
	printf 'exempt_path = %s\n' $slx > /etc/sld-compat/conf.d/slx.conf
	run "c: sldctl apply with exempt_path = $slx" sldctl apply
	cp "$(command -v sldcpu)" $slx.dpkg-new
	mv -f $slx.dpkg-new $slx
	out=$($slx time 5 split 30000)
	diag "after the upgrade-like replacement: $out"
	run "c: after a new inode was renamed over it, $slx still exempt without sldctl apply ($(field "$out" per_lock_us) us/lock < 1000)" \
		test "$(field "$out" per_lock_us)" -lt 1000
	is "$(jk | grep -c 'slx/[0-9]* took a split_lock trap')" 0 "c: ... and no trap of it"
	rm -f /etc/sld-compat/conf.d/slx.conf $slx

	# Issue 42 item 6: Proxmox VE's qemu-server starts each VM in a scope
	# named for its ID below qemu.slice. A stand-in VM there pays the
	# penalty until proxmox-ve.conf.example is enabled, then none.
	pve_vm() { systemd-run -q --slice=qemu --scope --unit="$1" sldcpu time 5 split 30000; }
	out=$(pve_vm 100)
	diag "pve: a stand-in VM in /qemu.slice/100.scope, no example enabled: $out"
	run "pve: without the Proxmox VE example it pays the penalty ($(field "$out" per_lock_us) us/lock >= 5000)" \
		test "$(field "$out" per_lock_us)" -ge 5000
	cp /etc/sld-compat/conf.d/proxmox-ve.conf.example /etc/sld-compat/conf.d/proxmox-ve.conf
	run "pve: sldctl apply with proxmox-ve.conf" sldctl apply
	is "$(cat /sys/module/sld_compat/parameters/exempt_cgroup)" '/qemu.slice/*.scope' \
		"pve: exempt_cgroup = /qemu.slice/*.scope (the later file's, over libvirt's)"
	n=$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')
	out=$(pve_vm 101)
	diag "pve: a stand-in VM in /qemu.slice/101.scope, example enabled: $out"
	run "pve: with the example, no penalty ($(field "$out" per_lock_us) us/lock < 1000)" \
		test "$(field "$out" per_lock_us)" -lt 1000
	like "$out" 'counter=5$' "pve: ... its 5 split locks completed"
	is "$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')" "$n" "pve: ... and no trap of it"
	scale_part
	rm -f /etc/sld-compat/conf.d/proxmox-ve.conf
	run "pve: sldctl apply without it" sldctl apply
	no_failed_units "a+b+c: at the end"
	if [ -z "$NEXT" ]; then
		touch "$V/done"
		return
	fi
	upgrade_part
	# Step d, the host's (between_boots), then the reboot it asks for.
	touch "$V/host"
}

# After step d's reboot: the new kernel, the next release DKMS built for
# it from the kernel's hook loaded at boot, as the new release's first
# boot.
boot2() {
	local t="d+e: after the reboot into the new kernel"
	VER=$NEXT
	is "$(uname -r)" "$(newest_kver)" "$t: it runs $(newest_kver), the kernel /vmlinuz names"
	is "$(cat /sys/module/sld_compat/version)" "$NEXT" "$t: sld_compat $NEXT is loaded"
	loaded_at_boot "$t"
	no_failed_units "$t"
	config_kept "$t"
	doctor_healthy "$t"
	standin_protected "$t"
	touch "$V/done"
}

# config_kept TAG: the admin's configuration kept and applied (guest.sh),
# and the libvirt example enabled before the upgrade, with its rule.
config_kept() {
	local lv='/machine.slice/machine-qemu\x2d*.scope'
	admin_config_kept "$1"
	run "$1: the enabled libvirt example kept" test -f /etc/sld-compat/conf.d/libvirt-qemu.conf
	is "$(cat /sys/module/sld_compat/parameters/exempt_cgroup)" "$lv" "$1: exempt_cgroup = $lv applied"
}

# Step e (issue #42 item 4, issue #41 item 7): the project publishes NEXT
# where the user's .sources file points (make repo's output replaces the
# old on the server), and the user runs `apt update && apt upgrade` while
# a guest runs (guest_start, tests/lib/guest.sh).
upgrade_part() {
	local out rc s pid
	config_kept "e: $VER, before the upgrade"
	guest_start
	pid=$GUEST_PID

	rm -rf /srv/sld-compat-repo && cp -a /srv/sld-compat-next /srv/sld-compat-repo
	# Debian's mirrors are out of reach here: apt warns, keeps their
	# lists and exits 0; ours must update, signature checked.
	out=$(apt update 2>&1)
	rc=$?
	run "e: apt update after the release (exit $rc)" test $rc = 0
	like "$out" "file:/srv/sld-compat-repo stable InRelease" "e: apt update read the repository's new InRelease"
	is "$(echo "$out" | grep -cE 'not signed|NO_PUBKEY|BADSIG|manipulated|sld-compat.*(Err|Ign)')" 0 \
		"e: ... and took its signature"
	is "$(apt list --upgradable 2>/dev/null | grep -v '^Listing' | cut -d/ -f1 | tr '\n' ' ')" \
		"sld-compat-dkms sld-compat-tools " "e: apt offers both packages as upgrades, nothing else"
	like "$(apt list --upgradable 2>/dev/null)" "sld-compat-dkms/stable $NEXT-1 all \\[upgradable from: $VER-1\\]" \
		"e: ... sld-compat-dkms $NEXT-1 over $VER-1"
	s=$SECONDS
	out=$(apt -y -q -o Dpkg::Use-Pty=0 upgrade 2>&1)
	rc=$?
	run "e: apt upgrade to $NEXT while the guest runs (exit $rc, $((SECONDS - s)) s)" test $rc = 0
	diag "$(echo "$out" | grep -E 'sld|dkms|DKMS|Unpacking|Setting up' | tail -n 15)"
	after_upgrade "$out" "$pid"
}

# scale_vms N UNIT SLICE USER THREADS (%d in UNIT: the VM's number): N VM-like processes of THREADS
# tasks (idle workers, then a split-locking vCPU: sldcpu vm), each in its
# own scope as libvirt or qemu-server starts a guest, alive at once until
# /run/scale.stop; their output in /run/scale/UNIT.out.
scale_vms() {
	local i u
	for i in $(seq "$1"); do
		u=${2//%d/$((i + 99))}
		systemd-run -q --slice="$3" --scope --unit="$u" --uid="$4" \
			sldcpu vm "$5" 20 2000 @/run/scale.stop > "/run/scale/$u.out" 2>&1 &
	done
}

# scale_check WHAT N THREADS: start them (scale_vms ARGS...), all alive at
# once: every vCPU relieved from its start (no #AC to the kernel, no trap
# line), nothing refused; sldctl status shows the live count and memory.
scale_check() {
	local what=$1 n=$2 th=$3 r0 p0 t0 s sec bad=0 f
	shift 3
	rm -rf /run/scale /run/scale.stop
	mkdir /run/scale
	r0=$(ac tasks_refused) p0=$(passed) t0=$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')
	sec=$SECONDS
	scale_vms "$n" "$@" "$th"
	s=0
	until [ "$(ac tasks_admin)" -ge $((n * th)) ] || [ $s -ge 300 ]; do sleep 1; s=$((s + 1)); done
	diag "$what: $((n * th)) tasks alive after $((SECONDS - sec)) s; $(sldctl status | grep '^protected tasks')"
	is "$(ac tasks_admin)" $((n * th)) "$what: $n VMs of $th tasks alive at once, each task an admin record"
	like "$(sldctl status)" "protected tasks: $((n * th)) .*; pool [0-9]+ KiB" \
		"$what: sldctl status shows the live count and the pool's memory"
	touch /run/scale.stop
	wait
	for f in /run/scale/*.out; do
		grep -qx "threads=$th locks=20 slow=[0-9]* counter=20" "$f" ||
			{ bad=$((bad + 1)); [ $bad -gt 3 ] || diag "$f: $(cat "$f")"; }
	done
	is "$bad" 0 "$what: every VM ran its $th tasks and its vCPU's 20 split locks"
	is "$(passed)" "$p0" "$what: every vCPU relieved from its start (no #AC went to the kernel)"
	is "$(jk | grep -c 'sldcpu/[0-9]* took a split_lock trap')" "$t0" "$what: no kernel trap line for any"
	is "$(ac tasks_refused)" "$r0" "$what: nothing refused"
	s=0
	until [ "$(ac tasks_live)" = 0 ] || [ $s -ge 120 ]; do sleep 1; s=$((s + 1)); done
}

# Issue #38 item 2: SYS_SCALE VMs of THREADS tasks (VMSxTHREADS, setup()
# writes it: make check 20x32, make check-full 200x32), once as libvirt
# starts them (libvirt-qemu, root's machine.slice scopes, the libvirt
# example's rule) and once as Proxmox VE does (root, /qemu.slice/ID.scope,
# the Proxmox example's rule, enabled by the caller).
scale_part() {
	local sc n th
	sc=$(cat /etc/sld-systest-scale)
	n=${sc%x*} th=${sc#*x}
	# Both examples' rules at once (the later file's list wins).
	printf 'exempt_cgroup = %s\n' '/machine.slice/machine-qemu\x2d*.scope,/qemu.slice/*.scope' \
		> /etc/sld-compat/conf.d/zz-scale.conf
	run "scale: sldctl apply with both examples' rules" sldctl apply
	scale_check "scale libvirt" "$n" "$th" 'machine-qemu\x2d%d\x2dvm' machine.slice libvirt-qemu
	scale_check "scale pve" "$n" "$th" '%d' qemu.slice root
	rm -f /etc/sld-compat/conf.d/zz-scale.conf
}

# --- host ---
# Both sides (the booted system sources the whole file): NEXT, the
# configuration's files and the admin's line.
NEXT=$(cat /usr/local/lib/sld-systest/next 2>/dev/null)
CONF=/etc/sld-compat/sld-compat.conf
LOCAL=/etc/sld-compat/conf.d/local.conf
ADMIN_LINE="# the admin's own line (tests/system/s-rules.sh)"
# Boot 1 with its apt upgrade: the rules, then DKMS under TCG, one build
# (the boot 803 s, its apt upgrade 618 s, with a second VM on the other
# core, SYS_SCALE 20x32), more on a busier machine and at check-full's
# 200x32; the bound is for a hang (SYS_RULES_UPGRADE=0: no apt upgrade,
# the default bound).
case ${SYS_RULES_UPGRADE:-1} in
0) ;;
1) export SYS_TIMEOUT=${SYS_TIMEOUT:-5400} ;;
*) echo "s-rules.sh: SYS_RULES_UPGRADE=$SYS_RULES_UPGRADE: 0 or 1" >&2; exit 2 ;;
esac
# shellcheck disable=SC2154 # $log, $root, $repo_url, $tag, $ver, $work: system.sh's
# The packages come as README's first way says (issue #42 item 4): the
# key and the .sources file fetched, apt update, the keyring package, then
# sld-compat-dkms, from the signed repository system.sh put at $repo_url
# in the root (a file: URI: README's address in the test); the repository
# apt trusts without a key is gone first. The root has the headers
# already (debootstrap), so only curl of README's first line is installed.
setup() {
	echo "${SYS_SCALE:-20x32}" > "$root/etc/sld-systest-scale"
	sed -i '/trusted=yes/d' "$root/etc/apt/sources.list"
	in_root useradd -r -u 64055 -M -s /usr/sbin/nologin libvirt-qemu >>"$log" 2>&1 &&
	apt_root update >>"$log" 2>&1 &&
	apt_root install curl >>"$log" 2>&1 &&
	in_root curl -fsSLo /usr/share/keyrings/sld-compat-archive-keyring.gpg "$repo_url"/sld-compat-archive-keyring.gpg &&
	in_root curl -fsSLo /etc/apt/sources.list.d/sld-compat.sources "$repo_url"/sld-compat.sources &&
	apt_root update >>"$log" 2>&1 &&
	apt_root install sld-compat-archive-keyring >>"$log" 2>&1 &&
	apt_root install sld-compat-dkms >>"$log" 2>&1 &&
		cp "$root/etc/sld-compat/conf.d/libvirt-qemu.conf.example" \
			"$root/etc/sld-compat/conf.d/libvirt-qemu.conf" || return 1
	echo "$ADMIN_LINE" >> "$root$CONF"
	echo "hypervisor_modules = vmmon" > "$root$LOCAL"
	[ "${SYS_RULES_UPGRADE:-1}" != 0 ] || return 0
	# The rest of the root up to date, as a host that takes its updates:
	# boot 1's apt upgrade (no network there) then has only NEXT to get.
	apt_root --with-new-pkgs upgrade >>"$log" 2>&1 && newest_only && next_release
}

# newest_only: a point release's kernel update (each ABI a package of its
# own) leaves the root's first kernel beside the new one: it goes, as an
# admin's cleanup after the reboot does, so that boot 1 runs the newest
# and its apt upgrade builds for one kernel; kver is that kernel, the
# stand-in's fixtures built for it.
# shellcheck disable=SC2154 # $kver: system.sh's
newest_only() {
	local k
	k=$(root_kver)
	[ "$k" != "$kver" ] || return 0
	apt_root --autoremove purge "linux-image-$kver" "linux-headers-$kver" >>"$log" 2>&1 || return 1
	rm -rf "${root:?}/lib/modules/$kver"
	echo "newest_only: $kver purged, the root's kernel is $k" >>"$log"
	kver=$k
	fixtures "$kver"
}

# Step d on the image after boot 1 (system.sh's host_step): the
# release's backports kernel and its headers with apt (Debian 13:
# trixie-backports' 7.x, Debian 12: bookworm-backports' 6.12), DKMS
# building the release boot 1 upgraded to for it from the kernel's hook;
# the stand-in's fixtures for it. Its checks are TAP lines here.
# shellcheck disable=SC2154 # $kver, $tag: system.sh's
between_boots() {
	local next
	next=$(cat "$root/usr/local/lib/sld-systest/next")
	new_kernel || return 1
	is "$(in_root dkms status -m sld-compat -k "$kver" 2>/dev/null)" "sld-compat/$next, $kver, x86_64: installed" \
		"$tag d: DKMS has $next for $kver"
	is "$(in_root dkms status -m sld-compat -k "$newk" 2>/dev/null)" "sld-compat/$next, $newk, x86_64: installed" \
		"$tag d: DKMS has $next for the new $newk (built from the kernel's hook)"
	is "$(in_root dkms status -m sld-compat -v "$ver" 2>/dev/null)" "" "$tag d: ... and no $ver"
}

# new_kernel: the backports kernel and its headers in the root, newk its
# version.
# shellcheck disable=SC2154 # $kver, $mirror, $rel: system.sh's
new_kernel() {
	echo "deb $mirror $rel-backports main" > "$root/etc/apt/sources.list.d/backports.list"
	# Without its Recommends, as debootstrap made the root: apparmor
	# would compile its profiles at the next boot (minutes of TCG).
	apt_root update >>"$log" 2>&1 &&
		apt_root -o APT::Install-Recommends=false -t "$rel-backports" \
			install linux-image-amd64 linux-headers-amd64 >>"$log" 2>&1 || return 1
	newk=$(root_kver)
	[ "$newk" != "$kver" ] || { echo "new_kernel: no kernel newer than $kver" >>"$log"; return 1; }
	fixtures "$newk"
}

# NEXT (tests/lib/nextver.sh: this tree, the version bumped), built and
# published as make repo publishes a release: signed with the key of the
# first repository (SLD_REPO_* as the caller gave them, else the
# throwaway key system.sh's make repo kept), for the same address. Boot 1
# puts it there.
# shellcheck disable=SC2154 # $out, $repo_url, $work: system.sh's
next_release() {
	local src=$top/build/upgrade-src next
	. "$top/tests/lib/nextver.sh"
	next=$(nextver_tree "$top" "$src") || return 1
	make -C "$src" -s deb >>"$log" 2>&1 || return 1
	if [ -z "${SLD_REPO_GNUPGHOME:-}${SLD_REPO_KEYFILE:-}" ]; then
		export SLD_REPO_GNUPGHOME=$out/repo-work/gnupg-throwaway
	fi
	SLD_REPO_URL=$repo_url/ SLD_REPO_OUT=$work/repo-next SLD_REPO_WORK=$work/repo-next-work \
		bash "$src/packaging/repo.sh" >>"$log" 2>&1 || return 1
	cp -a "$work/repo-next" "$root/srv/sld-compat-next"
	echo "$next" > "$root/usr/local/lib/sld-systest/next"
}

# update_from DIR: apt-get update in the root with only the signed
# repository's stanza, pointed at the copy DIR of it; its output and
# "exit STATUS" in $work/apt-DIR's name.
# shellcheck disable=SC2154 # $repo_dir, $work: system.sh's
update_from() {
	local out=$work/apt-${1##*/} l=/etc/apt/sources.list.d
	mkdir -p "$root$l.off"
	mv "$root$l"/*.sources "$root/etc/apt/sources.list" "$root$l.off/"
	sed "s|$repo_dir|$1|" "$root$l.off/sld-compat.sources" > "$root$l/copy.sources"
	in_root apt-get update -q > "$out" 2>&1
	echo "exit $?" >> "$out"
	rm -f "$root$l/copy.sources"
	mv "$root$l.off/sources.list" "$root/etc/apt/"
	mv "$root$l.off"/*.sources "$root$l/"
	rmdir "$root$l.off"
}

# refit DIR: DIR's Packages changed by one byte and the hashes InRelease
# gives for it made to fit, its signature left as it was (what someone
# who can change a mirror's files, but has no key, can do); the other
# index files of it go.
refit() {
	local d=$root$1/dists/stable p=main/binary-amd64/Packages h
	sed -i '0,/^Maintainer: /s/^Maintainer: ./Maintainer: X/' "$d/$p"
	rm -f "$d/$p.xz" "$d/$p.gz" "$d/Release" "$d/Release.gpg"
	h="$(md5sum < "$d/$p") $(sha1sum < "$d/$p") $(sha256sum < "$d/$p") $(sha512sum < "$d/$p")"
	awk -v p="$p" -v size="$(stat -c %s "$d/$p")" -v h="$h" '
		BEGIN { split(h, x, " "); hash["MD5Sum:"] = x[1]; hash["SHA1:"] = x[3]
			hash["SHA256:"] = x[5]; hash["SHA512:"] = x[7] }
		/^[A-Za-z0-9]+:/ { sec = $1 }
		$3 == p ".xz" || $3 == p ".gz" { next }
		$3 == p && (sec in hash) { print " " hash[sec] " " size " " p; next }
		{ print }' "$d/InRelease" > "$d/InRelease.new" && mv "$d/InRelease.new" "$d/InRelease"
}

# What apt did, and that it checks the signature: a copy of the
# repository updates, the same copy with a changed Packages and InRelease
# refitted to it (refit) does not.
# shellcheck disable=SC2154 # $repo_dir, $repo_url, $tag, $ver, $work: system.sh's
host_checks() {
	local pol copy=/srv/sld-compat-copy bad=/srv/sld-compat-tampered
	pol=$(in_root apt-cache policy sld-compat-dkms)
	diag "$pol"
	# The installed version (***) and the first source listed under it.
	is "$(echo "$pol" | awk '$1 == "***" { v = $2; getline; print v, $2, $3; exit }')" \
		"$ver-1 file:$repo_dir stable/main" \
		"$tag apt: sld-compat-dkms $ver-1 installed from the signed repository"
	# shellcheck disable=SC2016 # dpkg-query's field
	is "$(in_root dpkg-query -W -f '${Status}\n' sld-compat-archive-keyring sld-compat-tools | sort -u)" \
		'install ok installed' \
		"$tag apt: the keyring package and the tools (sld-compat-dkms's Recommends) installed"
	run "$tag the keyring package owns the fetched key" \
		in_root dpkg -S /usr/share/keyrings/sld-compat-archive-keyring.gpg
	cp -a "$root$repo_dir" "$root$copy"
	cp -a "$root$repo_dir" "$root$bad"
	refit "$bad"
	update_from "$copy"
	update_from "$bad"
	like "$(cat "$work/apt-${copy##*/}")" "file:$copy stable InRelease" "$tag apt update reads the copy"
	like "$(tail -n1 "$work/apt-${copy##*/}")" '^exit 0$' "$tag apt update takes a copy of the repository"
	# apt's words for a bad signature differ (gpgv: BADSIG, sqv: "Message
	# has been manipulated"); its error for what it then refuses is one.
	like "$(cat "$work/apt-${bad##*/}")" "^E: The repository 'file:$bad stable InRelease' is not signed" \
		"$tag apt update: a changed Packages with InRelease refitted is a bad signature"
	like "$(cat "$work/apt-${bad##*/}")" 'BADSIG|manipulated|signatures were invalid' \
		"$tag apt update: its reason is the signature (gpgv: BADSIG, sqv: manipulated)"
	like "$(tail -n1 "$work/apt-${bad##*/}")" '^exit [1-9]' "$tag apt update fails on it"
	rm -rf "${root:?}$copy" "${root:?}$bad"
	run "$tag apt update from the signed repository again" in_root apt-get update -q
	# shellcheck disable=SC2154 # $kver: system.sh's
	is "$(in_root dkms status -m sld-compat -k "$kver" 2>/dev/null)" "sld-compat/$ver, $kver, x86_64: installed" \
		"$tag DKMS built $ver for $kver"
}
