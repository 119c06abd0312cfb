#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's QA tools on the packages (issue #42 item 5), each in a root of
# its own, never on the host (`make pkg-qa`, a phase of `make check`):
#
# piuparts on Debian 12 (bookworm) and 13 (trixie), one run a release,
# both runs and autopkgtest at once. Each run does two tests in one
# minbase chroot:
#   - install and purge: NEXT's sld-compat-dkms and sld-compat-tools (this
#     tree at the next version, tests/lib/nextver.sh), installed together
#     with apt, then purged with the dependencies apt brought: no
#     maintainer script error, no file left behind, changed or gone;
#   - upgrade: this version installed with apt from the signed repository
#     `make repo` makes (packaging/repo.sh with its throwaway key, in
#     build/qa/repo), then upgraded to NEXT's .debs, then purged: the same
#     checks. The chroot's apt reaches the repository as a file: URI
#     (piuparts --bindmount puts it at the same path inside) and verifies
#     its InRelease with the repository's keyring (Signed-By; piuparts
#     sets APT::Get::AllowUnauthenticated off). No trusted=yes.
#   piuparts' chroots have no kernel headers: DKMS registers the module's
#   source and removes it again, but builds nothing (tests/pkg/lifecycle.sh
#   builds, signs, boots and purges in a Debian 12 root with headers).
# autopkgtest on Debian 13: this version's .dsc and .debs, the tests of
#   debian/tests/control (module-build: DKMS builds sld_compat against each
#   kernel's headers in the testbed, modinfo's version and vermagic
#   checked) and the one autodep8 adds for `Testsuite: autopkgtest-pkg-dkms`
#   (dkms-autopkgtest: the package installed, built and installed by DKMS
#   for every kernel with headers). Both must run and pass. The testbed:
#   autopkgtest-virt-unshare on the Debian 13 system root the booted-system
#   tests cache (tests/lib/debroot.sh: the release's default kernel, its
#   headers, dkms), unpacked anew for each test, DKMS autoinstall off in
#   it (/etc/dkms/no-autoinstall, as dkms-autopkgtest does for itself):
#   each test builds the module once, itself. virt-unshare maps root's
#   subordinate ids (unshare --map-auto, uidmap): where /etc/subuid has no
#   line for root (Debian's is empty), a file that has one is bind-mounted
#   over it and /etc/subgid in this script's mount namespace only.
#
# Caches, under $SLD_CACHE/piuparts (tests/config.sh):
#   RELEASE.tgz   piuparts' base tarball (piuparts -s: debootstrap minbase
#                 with eatmydata, merged /usr), made when missing or a month
#                 old, then given to each run (piuparts -b);
#   archives-RELEASE  apt's downloads: a piuparts script copies them into
#                 the chroot's apt cache before each test (piuparts empties
#                 that cache before every snapshot of the tree) and keeps
#                 what apt fetched; autopkgtest's testbed mounts a copy as
#                 its apt cache, whose new files are kept after the run.
#                 Each new file is copied under another name, then renamed:
#                 two make checks on one machine share the directory.
# piuparts' chroots and the autopkgtest testbed live in a tmpfs mounted at
# $SLD_CACHE/piuparts/tmp in this script's namespace.
#
# Logs: build/qa/piuparts-RELEASE.log, build/qa/autopkgtest-RELEASE/ (its
# log, summary and each test's output), build/qa/qa.log (the builds).
# TAP on stdout, each result saying where its log is; exit status 1 if any
# test failed. Root only. If Debian's archive cannot be reached the whole
# test is skipped (TAP "1..0 # SKIP"), on a developer's offline machine
# only: under CI (CI=true) that is a failure.
#
# SLD_QA_PIUPARTS (default "bookworm trixie") and SLD_QA_AUTOPKGTEST
# (default "trixie"; bookworm works too: its system root is made first,
# 1.5 to 6 minutes) pick the releases. SLD_QA_BREAK=1 checks the checks:
# NEXT gets two faults, a file its tools postinst makes and no script
# removes, and a module version that is not the package's, and autopkgtest
# tests NEXT's packages: every piuparts result and module-build must then
# fail, dkms-autopkgtest pass.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
self=$top/tests/pkg/qa.sh

# shellcheck source=SCRIPTDIR/../lib/debroot.sh
. "$top/tests/lib/debroot.sh"
debroot_own_mounts qa.sh SLD_QA_NS "$self" "$@"

cd "$top" || exit 1
. tests/config.sh
. tests/lib/tap.sh
. tests/lib/nextver.sh
ver=$(cat src/VERSION)
out=$top/build/qa
cache=$SLD_CACHE/piuparts
ptmp=$cache/tmp
log=$out/qa.log
kname=sld-compat-archive-keyring
read -r -a pp_rels <<< "${SLD_QA_PIUPARTS-bookworm trixie}"
read -r -a apt_rels <<< "${SLD_QA_AUTOPKGTEST-trixie}"
TAP_DIAG_LINES=30
t0=$SECONDS
mkdir -p "$out" "$cache"
: > "$log"
bail() { echo "Bail out! $*"; echo "1..$TAP_N"; exit 1; }
# cpu_s: $cpu, the CPU seconds (user and system) of this shell's children
# that ended, as `times` counts them (a job's subshell starts from 0).
# Not called in a $(...): its children would be the ones counted.
cpu_s() {
	local f=$out/.times.$BASHPID
	times > "$f"
	cpu=$(awk 'NR == 2 { gsub(/s/, ""); split($1, u, "m"); split($2, k, "m")
		printf "%d", u[1] * 60 + u[2] + k[1] * 60 + k[2] }' "$f")
	rm -f "$f"
}
cleanup() { umount -l "$ptmp" 2>/dev/null; }
trap cleanup EXIT

# --- Host tools (only these; the packages under test never) --------------
deps="piuparts autopkgtest autodep8 eatmydata uidmap debootstrap dpkg-dev
	reprepro gnupg gpgv debhelper"
. tests/lib/pkgs.sh
# shellcheck disable=SC2086
ensure_pkgs qa $deps 2>>"$log" || bail "cannot install:$(pkgs_missing $deps)"

# --- Debian's archive, as the host's apt reaches it ------------------------
debroot_mirrors
echo "# mirror $mirror${http_proxy:+, proxy $http_proxy}"
offline() {
	[ "${CI:-}" != true ] || bail "$1 (CI=true: no skip)"
	echo "1..0 # SKIP $1 (an offline machine; under CI=true this fails)"
	exit 0
}
for rel in $(printf '%s\n' "${pp_rels[@]}" "${apt_rels[@]}" | sort -u); do
	debroot_reachable "$rel" "$out/InRelease-$rel" >>"$log" 2>&1 ||
		offline "cannot reach Debian's $rel at $mirror (apt-helper download-file failed; see $log)"
done

# --- This version, its signed repository, and NEXT -------------------------
# In trees of their own: pkg-lifecycle, beside which this runs, builds
# build/pkg again meanwhile.
this=$out/this
next_tree=$out/next
tree_copy "$top" "$this" || bail "cannot copy the tree to $this"
next=$(nextver_tree "$top" "$next_tree") || bail "nextver_tree failed"
if [ -n "${SLD_QA_BREAK:-}" ]; then
	# The two faults (see the head of this file).
	sed -i 's|^exit 0$|mkdir -p /var/lib/sld-compat-qa-break\ntouch /var/lib/sld-compat-qa-break/left-behind\nexit 0|' \
		"$next_tree/packaging/debian/sld-compat-tools.postinst"
	sed -i 's|^\(SLD_COMPAT_VERSION := .*\))$|\1)-qa-break|' "$next_tree/src/Kbuild"
	if ! grep -q qa-break "$next_tree/packaging/debian/sld-compat-tools.postinst" ||
		! grep -q qa-break "$next_tree/src/Kbuild"; then
		bail "SLD_QA_BREAK: the faults did not go in"
	fi
	echo "# SLD_QA_BREAK: NEXT's tools postinst leaves a file behind, its module says version $next-qa-break"
fi
echo "# this version $ver, NEXT $next; building both (log $log)"
make -C "$this" -s deb > "$out/this.log" 2>&1 &
bpid=$!
make -C "$next_tree" -s deb > "$out/next.log" 2>&1
nrc=$?
wait "$bpid"
brc=$?
cat "$out/this.log" "$out/next.log" >> "$log"
[ "$brc" = 0 ] || bail "make deb of $ver failed (see $out/this.log)"
[ "$nrc" = 0 ] || bail "make deb of $next failed (see $out/next.log)"
tp=$this/build/pkg
np=$next_tree/build/pkg
next_debs=("$np/sld-compat-dkms_${next}-1_all.deb" "$np/sld-compat-tools_${next}-1_amd64.deb")
repo=$out/repo
SLD_REPO_URL=file:$repo SLD_REPO_OUT=$repo SLD_REPO_WORK=$out/repo-work \
	bash "$this/packaging/repo.sh" >>"$log" 2>&1 || bail "make repo of $ver failed (see $log)"
cpu_s
echo "# packages and repository ready: $((SECONDS - t0)) s, $cpu s of CPU"

# --- piuparts ----------------------------------------------------------------
mkdir -p "$ptmp"
mount -t tmpfs -o size=8G,mode=0755 sld-qa "$ptmp" || bail "cannot mount a tmpfs at $ptmp"

# piuparts_base_stale TGZ: none yet, or a month old (a point release
# moves the archive on; apt upgrades a stale one in each run meanwhile).
piuparts_base_stale() { [ ! -s "$1" ] || [ -n "$(find "$1" -mtime +30)" ]; }

# piuparts_scripts DIR ARCHIVES: the scripts that carry apt's downloads
# between ARCHIVES (bind-mounted at the same path) and the chroot's cache.
piuparts_scripts() {
	mkdir -p "$1"
	cat > "$1/pre_test_sld_archives" <<-EOF
	#!/bin/sh
	# tests/pkg/qa.sh: apt's downloads of earlier runs into this chroot's cache.
	for f in $2/*.deb; do
		[ -e "\$f" ] || continue
		[ -e "/var/cache/apt/archives/\${f##*/}" ] || cp "\$f" /var/cache/apt/archives/
	done
	exit 0
	EOF
	cat > "$1/post_install_sld_archives" <<-EOF
	#!/bin/sh
	# tests/pkg/qa.sh: what apt fetched, kept for the next run (no package
	# of ours; each copied under another name, then renamed).
	for f in /var/cache/apt/archives/*.deb; do
		n=\${f##*/}
		case \$n in sld-compat*) continue ;; esac
		[ -e "\$f" ] && [ ! -e "$2/\$n" ] || continue
		cp "\$f" "$2/.\$n.\$\$" && mv "$2/.\$n.\$\$" "$2/\$n"
	done
	exit 0
	EOF
	chmod +x "$1"/*_sld_archives
}

# pp_result LOG PATTERN DESCRIPTION: ok if piuparts' LOG has PATTERN; if
# not, its ERROR lines (with the lines they go on with), at the first
# result that fails: piuparts stops at its first failure, and the results
# after it were not reached.
pp_result() {
	if grep -q "$2" "$1"; then ok "$3"; return; fi
	nok "$3"
	if [ -z "${pp_shown:-}" ]; then
		awk '/^[0-9]+m[0-9.]+s ERROR: /{ p = 1; print; next }
			/^[0-9]+m[0-9.]+s /{ p = 0 } p' "$1" | head -n 40 | sed 's/^/#   /'
		pp_shown=1
	else
		echo "#   (not reached, or failed: piuparts stops at the first failure above)"
	fi
}

# piuparts_job RELEASE: both tests on RELEASE; TAP lines on stdout.
piuparts_job() {
	local rel=$1 base=$cache/$1.tgz arch=$cache/archives-$1 plog=$out/piuparts-$1.log
	local scripts=$out/piuparts-scripts-$1 s=$SECONDS rc made='' pp_shown=''
	local popts=(-d "$rel" -m "$mirror" --merged-usr -t "$ptmp")
	mkdir -p "$arch"
	find "$arch" -name '*.deb' -mtime +60 -delete
	rm -f "$plog" "$plog.base"
	if piuparts_base_stale "$base"; then
		# Only the base: no test, no repository, no bind mount in it.
		piuparts "${popts[@]}" -s "$base.$$" --no-install-purge-test --no-upgrade-test \
			-l "$plog.base" -a base-files >/dev/null 2>&1 && mv "$base.$$" "$base"
		rm -f "$base.$$"
		made=" (its base tarball made: $((SECONDS - s)) s, log $plog.base)"
	fi
	if [ ! -s "$base" ]; then
		nok "piuparts $rel: base tarball $base (see $plog.base)"
		return
	fi
	piuparts_scripts "$scripts" "$arch"
	# The regular expression of the shared archive's path, for -I.
	local arch_re
	arch_re=$(printf '%s' "$arch" | sed 's/[].[^$*+?(){}|\\]/\\&/g')
	# Ignored: the downloads piuparts' scripts keep (outside the packages'
	# reach); /var/cache/debconf/tmp.ci/, where trixie's dpkg-preconfigure
	# (debconf 1.5.87, apt 3's apt-extracttemplates) extracts templates at
	# the chroot's first apt install of anything: bookworm's piuparts
	# (1.1.7) does not know it yet.
	piuparts "${popts[@]}" -b "$base" --bindmount "$repo" --bindmount "$arch" \
		--scriptsdir "$scripts" \
		--extra-repo "deb [signed-by=$repo/$kname.gpg] file:$repo stable main" \
		-I "$arch_re/.*" -i /var/cache/debconf/tmp.ci/ \
		-l "$plog" "${next_debs[@]}" >/dev/null 2>&1
	rc=$?
	pp_result "$plog" "INFO: PASS: Installation and purging test\\." \
		"piuparts $rel: install and purge of NEXT ($next-1, both packages): no error, nothing left behind"
	pp_result "$plog" "INFO: apt-cache knows about the following packages: sld-compat-dkms, sld-compat-tools" \
		"piuparts $rel: apt in the chroot reads both packages from the signed repository (Signed-By its keyring)"
	pp_result "$plog" "Unpacking sld-compat-dkms ($next-1) over ($ver-1)" \
		"piuparts $rel: sld-compat-dkms upgraded from the repository's $ver-1 to NEXT's $next-1"
	pp_result "$plog" "INFO: PASS: Installation, upgrade and purging tests\\." \
		"piuparts $rel: upgrade from the repository's $ver-1 to $next-1, then purge: no error, nothing left behind"
	is "$rc" 0 "piuparts $rel: exit status 0"
	cpu_s
	echo "# piuparts $rel: $((SECONDS - s)) s, $cpu s of CPU$made; log $plog"
}

# --- autopkgtest -------------------------------------------------------------
# The packages it tests: this version's (NEXT's with SLD_QA_BREAK).
ap=$tp
apv=$ver
if [ -n "${SLD_QA_BREAK:-}" ]; then ap=$np; apv=$next; fi

# autopkgtest_job RELEASE: the two tests in RELEASE's system root; TAP.
autopkgtest_job() {
	local rel=$1 s=$SECONDS base=$SLD_CACHE/system/$1-root.tar arch=$cache/archives-$1
	local aout=$out/autopkgtest-$1 rc t line res setup=()
	mkdir -p "$arch"
	# The root the booted-system tests use (made now, in the background
	# of make check's deps phase, or by check-system, under its lock).
	if ! debroot_system_tar "$rel" "$base" "$SLD_CACHE/system/archives" "$out/autopkgtest-$rel-root.log"; then
		nok "autopkgtest $rel: the system root $base (see $out/autopkgtest-$rel-root.log)"
		return
	fi
	# DKMS autoinstall off in the testbed, as dkms-autopkgtest turns it off
	# for itself: the package's postinst then leaves DKMS alone, and each
	# test builds the module once, itself (a build costs about 40 s of CPU;
	# pkg-lifecycle and check-system test the postinst's builds).
	setup=(--setup-commands "mkdir -p /etc/dkms && touch /etc/dkms/no-autoinstall")
	if [ -n "${http_proxy:-}" ]; then
		setup+=(--setup-commands "echo 'Acquire::http::Proxy \"$http_proxy\";' > /etc/apt/apt.conf.d/01proxy")
	fi
	# The testbed's apt cache: a copy of the shared one in this script's
	# tmpfs, what apt fetched kept after the run. Not the shared directory
	# itself: apt locks its cache, and another make check's testbed on
	# this machine would find it locked.
	local tarch=$ptmp/archives-testbed-$rel f n
	rm -rf "$aout" "$ptmp/autopkgtest-$rel" "$tarch"
	mkdir -p "$tarch"
	for f in "$arch"/*.deb; do [ ! -e "$f" ] || cp "$f" "$tarch/"; done
	autopkgtest -o "$aout" "${setup[@]}" "$ap/sld-compat_${apv}-1.dsc" \
		"$ap/sld-compat-dkms_${apv}-1_all.deb" "$ap/sld-compat-tools_${apv}-1_amd64.deb" \
		-- unshare -t "$base" -u "$ptmp/autopkgtest-$rel" -b "$tarch" /var/cache/apt/archives \
		>/dev/null 2>&1
	rc=$?
	for f in "$tarch"/*.deb; do
		n=${f##*/}
		case $n in sld-compat*) continue ;; esac
		if [ -e "$f" ] && [ ! -e "$arch/$n" ]; then
			cp "$f" "$arch/.$n.$BASHPID" && mv "$arch/.$n.$BASHPID" "$arch/$n"
		fi
	done
	rm -rf "$tarch"
	for t in module-build dkms-autopkgtest; do
		line=$(grep "^$t " "$aout/summary" 2>/dev/null)
		res=${line#"$t"}
		res=${res#"${res%%[! ]*}"}
		if [ "${res%% *}" = PASS ]; then
			ok "autopkgtest $rel: $t ran and passed ($res)"
			# What it said of each kernel (module-build's own ok
			# lines, dkms-autopkgtest's summary).
			grep -hE '^(ok|not ok) - |^I: (PASS|FAIL|SKIP) ' "$aout/$t-stdout" 2>/dev/null |
				sed "s/^/#   $t: /"
		else
			nok "autopkgtest $rel: $t ran and passed (summary: '${line:-no line}')"
			tail -n 25 "$aout/$t-stdout" "$aout/$t-stderr" 2>/dev/null | sed 's/^/#   /'
		fi
	done
	is "$rc" 0 "autopkgtest $rel: exit status 0 (2: a test skipped, 4: one failed, 16: the testbed failed)"
	cpu_s
	echo "# autopkgtest $rel: $((SECONDS - s)) s, $cpu s of CPU; log $aout/log, each test's output beside it"
}

# The subordinate ids autopkgtest-virt-unshare maps, in this namespace only.
if [ ${#apt_rels[@]} -gt 0 ] && ! grep -q '^root:' /etc/subuid 2>/dev/null; then
	printf 'root:1000000:65536\n' > "$ptmp/subid"
	for f in /etc/subuid /etc/subgid; do
		[ -e "$f" ] || bail "no $f to bind-mount root's subordinate ids over"
		mount --bind "$ptmp/subid" "$f" || bail "cannot bind-mount over $f"
	done
fi

# All at once, each into a file of its own; folded in this order.
pids=()
for rel in "${pp_rels[@]}"; do
	piuparts_job "$rel" > "$out/piuparts-$rel.tap" 2>>"$log" &
	pids+=($!)
done
for rel in "${apt_rels[@]}"; do
	autopkgtest_job "$rel" > "$out/autopkgtest-$rel.tap" 2>>"$log" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for rel in "${pp_rels[@]}"; do tap_fold "" < "$out/piuparts-$rel.tap"; done
for rel in "${apt_rels[@]}"; do tap_fold "" < "$out/autopkgtest-$rel.tap"; done
echo "# qa: $((SECONDS - t0)) s; logs in $out"
tap_done
