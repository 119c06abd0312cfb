# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Scenario kernel (issue #26 step d): sld-compat-dkms installed with apt in
# the root; booted on the release's kernel, the booted system installs the
# backports kernel with apt (Debian 13: trixie-backports' 7.x, Debian 12:
# bookworm-backports' 6.12), DKMS builds the module for it from the
# kernel's postinst hook, and the next boot runs the kernel the root's
# bootloader would boot (/vmlinuz, the newest; tests/system/boots.sh):
# sld_compat loaded at boot and protecting.
#
# The apt install runs in the booted system, with sld_compat loaded, as an
# admin runs it: the kernel's hooks (DKMS, update-initramfs) run there
# under systemd, not in a chroot that only pretends to be the host. It is
# slow under TCG (one host thread for both vCPUs): its time is printed;
# see the commit that added this file for the measured figure. The guest
# has no network: the root's apt downloads the packages first (into the
# shared download cache), they go into the image's /srv/kernel-debs, and
# apt in the booted system takes them from there (Dir::Cache::Archives).
# The stand-in hypervisor's fixtures (vmmon, actest) are built for the new
# kernel in the booted system too, from their source in /usr/local/src.
# Guest part first, host part after the marker.
FX=/usr/local/src/sld-fixtures

# fixtures_for KVER: the stand-in's modules built for KVER, where modprobe
# finds them.
fixtures_for() {
	make -C $FX KVER="$1" clean >/dev/null 2>&1
	make -C $FX KVER="$1" modules >/tmp/fixtures.log 2>&1 || return 1
	mkdir -p "/lib/modules/$1/updates/sld-systest"
	cp $FX/vmmon.ko $FX/actest.ko "/lib/modules/$1/updates/sld-systest/" &&
		depmod -a "$1"
}

boot1() {
	local t old new out rc s rel
	t="d: on $(uname -r), before the kernel upgrade"
	old=$(uname -r)
	loaded_at_boot "$t"
	no_failed_units "$t"
	rel=$(. /etc/os-release && echo "$VERSION_CODENAME")
	s=$SECONDS
	out=$(apt-get -y -q -o Dpkg::Use-Pty=0 -o Dir::Cache::Archives=/srv/kernel-debs/ \
		-t "$rel-backports" install linux-image-amd64 linux-headers-amd64 2>&1)
	rc=$?
	run "d: apt-get install -t $rel-backports linux-image-amd64 linux-headers-amd64 in the booted system (exit $rc, $((SECONDS - s)) s)" \
		test $rc = 0
	diag "$(echo "$out" | grep -iE 'dkms|sld|initramfs|Setting up linux-image' | tail -n 12)"
	new=$(newest_kver)
	run "d: a newer kernel is installed ($new, running $old)" \
		test "$(printf '%s\n' "$old" "$new" | sort -V | tail -n1)" = "$new" -a "$new" != "$old"
	# stderr apart: bookworm's dkms 3.0.10 adds "echo: write error: Broken pipe".
	is "$(dkms status -m sld-compat -k "$new" 2>/dev/null)" "sld-compat/$VER, $new, x86_64: installed" \
		"d: DKMS built and installed sld-compat $VER for $new (the kernel's postinst hook)"
	run "d: sld_compat.ko for $new in /lib/modules/$new/updates/dkms" \
		test -n "$(find "/lib/modules/$new/updates/dkms" -name 'sld_compat.ko*' 2>/dev/null)"
	is "$(readlink /vmlinuz)" "boot/vmlinuz-$new" "d: the root boots it next (/vmlinuz names it)"
	s=$SECONDS
	fixtures_for "$new"
	rc=$?
	run "d: the stand-in's fixtures built for $new (exit $rc, $((SECONDS - s)) s)" test $rc = 0
	echo "$new" > "$V/newk"
}

boot2() {
	local t="d: after the reboot into the new kernel"
	is "$(uname -r)" "$(cat "$V/newk")" "$t: running $(cat "$V/newk")"
	loaded_at_boot "$t"
	no_failed_units "$t"
	doctor_healthy "$t"
	standin_protected "$t"
	touch "$V/done"
}

# --- host ---
# The kernel's install in the booted system takes long under TCG (DKMS
# builds 47 files at 20 to 40 s each, depmod, the initramfs): not ended
# after 11 minutes on a busy machine; the bound is for a hang.
export SYS_TIMEOUT=${SYS_TIMEOUT:-5400}
# shellcheck disable=SC2154 # $log, $root, $rel, $mirror, $archives: system.sh's
setup() {
	local p v f kd=/srv/kernel-debs ins
	apt_root install sld-compat-dkms >>"$log" 2>&1 || return 1
	echo "deb $mirror $rel-backports main" > "$root/etc/apt/sources.list.d/backports.list"
	apt_root update >>"$log" 2>&1 || return 1
	ins=(-t "$rel-backports" install linux-image-amd64 linux-headers-amd64)
	apt_root -d "${ins[@]}" >>"$log" 2>&1 || return 1
	mkdir -p "$root$kd/partial"
	# Every package the install would unpack, from the download cache.
	in_root apt-get -s "${ins[@]}" 2>>"$log" |
		sed -n 's/^Inst \([^ ]*\) .*(\([^ ]*\) .*/\1 \2/p' > "$root$kd/list"
	while read -r p v; do
		f=$(find "$archives" -maxdepth 1 -name "${p}_${v//:/%3a}_*.deb" | head -n1)
		[ -n "$f" ] || { echo "setup: no $p $v in $archives" >>"$log"; return 1; }
		cp "$f" "$root$kd/"
	done < "$root$kd/list"
	[ -s "$root$kd/list" ]
}
