#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# README's install steps are the ones the booted-system test runs (issue
# #27: "when one changes, the other does"). Every command of an indented
# block of README.md's sections "Do I need it?", "Install" (with its
# subsections), "Check that it works", "Configure it per hypervisor" and
# "Upgrade and uninstall" (split at `&&`, its `# comment` dropped) must be
# run in the same form by tests/system/ (s-*.sh, system.sh, boots.sh,
# tests/lib/guest.sh, run): the test that gets one wrong or runs another fails
# here, naming README's line. A README command that the booted test
# cannot run is in the allow-list below, each with its reason.
#
# Both sides are normalised by norm() below, and nothing more:
#  - `sudo ` goes: the test runs as root.
#  - apt-get and apt_root (tests/lib/debroot.sh: apt-get in the root) are
#    apt, and apt's -y, -q and -o OPTION=VALUE go: they make it
#    non-interactive and, in the kernel scenario, read an offline download
#    cache; they change how, not what, apt installs.
#  - make's -s and -C DIR go: the test runs make quietly in its copy of
#    the tree.
#  - ./build/pkg/NAME_*.deb is NAME: README installs the files `make deb`
#    built by path, the test the same files by name from a local apt
#    repository (tests/lib/debroot.sh); apt resolves both alike.
#  - $root/PATH is /PATH (the root's files, seen from the host before it
#    boots), $repo_url/ is the repository's address (PROJECT_APT of
#    packaging/project.mk: system.sh serves make repo's repository from a
#    file: URI in the root), and $rel is trixie (each scenario runs on each release;
#    README's examples name Debian 13's).
# In the tests, a quoted string is text, not a command (a test's
# description "sldctl apply with ..." runs nothing): one with a space is
# dropped, the command substitutions $(...) in it kept, comments dropped.
# The command must then stand as a command: at the start or after one of
# ( ; & |, and followed only by redirections, a trailing &, and make's
# VAR=VALUE (the test names the root's kernel: KVER=$kver), up to the
# next ; | && or ).
# Part of `make lint`; TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/tap.sh

readme=README.md
apt_url=$(sed -n 's/^PROJECT_APT := //p' packaging/project.mk)
sections='Do I need it?|Install|Check that it works|Configure it per hypervisor|Upgrade and uninstall'
scen=(tests/system/system.sh tests/system/s-*.sh tests/lib/guest.sh
	tests/system/boots.sh tests/system/run)

# The allow-list: "PATTERN|REASON", PATTERN a shell pattern on the
# normalised command.
# shellcheck disable=SC2016 # README's commands, not expanded
allow=(
	'git clone *|the test copies the working tree into its root with tar (the address is a placeholder)'
	'git pull|as git clone'
	'cd sld-compat|the test runs make in its copy of the tree (make -C DIR)'
	'apt install git make linux-headers-$(uname -r)|the host that builds the packages: make check-system runs make deb there; the root gets the headers from debootstrap (checked below)'
	'apt install curl linux-headers-$(uname -r)|the repository way'"'"'s prerequisites: the root gets the headers from debootstrap (checked below), the rules scenario installs curl alone'
	'apt install dkms linux-headers-$(uname -r)|the root gets dkms and the headers (linux-headers-amd64) from debootstrap (checked below)'
	'dnf *|Fedora and RHEL: tests/system boots Debian only; README says "Not tested"'
	'make pkg-tree|the Fedora/RHEL build, as dnf'
	'rpmbuild *|the Fedora/RHEL build, as dnf'
)

# norm: the normalisation above, on stdin's lines (whitespace collapsed).
norm() {
	# shellcheck disable=SC2016 # $root and $rel are the tests' text
	sed -E -e 's/[[:space:]]+/ /g' \
		-e 's/(^|[ ;&|(])sudo /\1/g' \
		-e 's/(^|[^[:alnum:]_.-])apt(-get|_root)( |$)/\1apt\3/g' \
		-e ':a' -e 's/(^|[^[:alnum:]_.-])apt (-[yq]|-o [^ ]+)( |$)/\1apt\3/' -e 'ta' \
		-e ':b' -e 's/(^|[^[:alnum:]_.-])make (-s|-C [^ ]+)( |$)/\1make\3/' -e 'tb' \
		-e 's#(^| )\./build/pkg/([a-z0-9.+-]+)_[^ ]*\.deb#\1\2#g' \
		-e 's#\$root/#/#g' \
		-e "s#\\\$repo_url/#$apt_url#g" \
		-e 's/\$rel([^[:alnum:]_]|$)/trixie\1/g' \
		-e 's/^ //; s/ $//'
}

# readme_cmds: "LINE<TAB>COMMAND" for each command of the sections.
readme_cmds() {
	awk -v secs="$sections" '
	BEGIN { n = split(secs, s, "|"); for (i = 1; i <= n; i++) want[s[i]] = 1 }
	/^## / { cur = substr($0, 4) }
	/^#/ { next }
	want[cur] && /^    [^ ]/ {
		line = $0; no = NR
		while (line ~ /\\$/ && (getline nxt) > 0) line = substr(line, 1, length(line) - 1) " " nxt
		sub(/[ \t]+#.*$/, "", line)
		gsub(/"/, "", line)
		gsub(/\t/, " ", line)
		m = split(line, part, / && /)
		for (i = 1; i <= m; i++) print no "\t" part[i]
	}' "$readme"
}

# test_lines: "FILE:LINE<TAB>TEXT" for each line of the tests, continued
# lines joined, quoted text and comments handled as said above.
test_lines() {
	awk '
	function squote(   e, t) {
		e = index(substr(S, pos + 1), "\047")
		if (e == 0) { t = substr(S, pos + 1); pos = n + 1 }
		else { t = substr(S, pos + 1, e - 1); pos += e + 1 }
		return t ~ /[ \t]/ ? "" : t
	}
	function dquote(   c, lit, subs) {
		pos++; lit = ""; subs = ""
		while (pos <= n) {
			c = substr(S, pos, 1)
			if (c == "\"") { pos++; break }
			if (c == "\\") { lit = lit substr(S, pos + 1, 1); pos += 2; continue }
			if (c == "$" && substr(S, pos + 1, 1) == "(") {
				pos += 2; subs = subs " $(" plain(")") ")"; continue
			}
			lit = lit c; pos++
		}
		if (subs != "") return subs " "
		return lit ~ /[ \t]/ ? "" : lit
	}
	function plain(stop,   c, out) {
		out = ""
		while (pos <= n) {
			c = substr(S, pos, 1)
			if (stop != "" && c == stop) { pos++; return out }
			if (stop == "" && c == "#" && (pos == 1 || substr(S, pos - 1, 1) ~ /[ \t;]/)) {
				pos = n + 1; return out
			}
			if (c == "\\") { out = out substr(S, pos, 2); pos += 2; continue }
			if (c == "\047") { out = out squote(); continue }
			if (c == "\"") { out = out dquote(); continue }
			if (c == "$" && substr(S, pos + 1, 1) == "(") {
				pos += 2; out = out "$(" plain(")") ")"; continue
			}
			out = out c; pos++
		}
		return out
	}
	FNR == 1 { held = "" }
	{
		if (held == "") { start = FNR; S = $0 } else S = held " " $0
		if (S ~ /\\$/) { held = substr(S, 1, length(S) - 1); next }
		held = ""
		n = length(S); pos = 1
		t = plain("")
		gsub(/\t/, " ", t)
		if (t ~ /[^ ]/) print FILENAME ":" start "\t" t
	}' "${scen[@]}"
}

# find_run CMDS TESTS: "LINE<TAB>COMMAND<TAB>WHERE" for each command,
# WHERE the first test line that runs it, or empty.
find_run() {
	awk -F '\t' '
	function rest_ok(r,   k, m, i, t, skip) {
		k = match(r, /[;|)]|&&/)
		if (k) r = substr(r, 1, k - 1)
		m = split(r, t, " "); skip = 0
		for (i = 1; i <= m; i++) {
			if (skip) { skip = 0; continue }
			if (t[i] ~ /^[0-9]*(>>?|<)$/) { skip = 1; continue }
			if (t[i] ~ /^[0-9]*(>>?|<)&?[^ ]+$/ || t[i] == "&") continue
			if (t[i] ~ /^[A-Z][A-Z0-9_]*=/) continue
			return 0
		}
		return 1
	}
	function runs(l, c,   off, k, b, a) {
		off = 0
		while ((k = index(substr(l, off + 1), c)) > 0) {
			k += off
			b = k == 1 ? " " : substr(l, k - 1, 1)
			a = substr(l, k + length(c), 1)
			if (b ~ /[ (;&|]/ && (a == "" || a ~ /[ );&|]/) && rest_ok(substr(l, k + length(c))))
				return 1
			off = k
		}
		return 0
	}
	FNR == NR { no[++nc] = $1; cmd[nc] = $2; next }
	{ where[++nt] = $1; text[nt] = $2 }
	END {
		for (i = 1; i <= nc; i++) {
			w = ""
			for (j = 1; j <= nt && w == ""; j++)
				if (runs(text[j], cmd[i])) w = where[j]
			print no[i] "\t" cmd[i] "\t" w
		}
	}' "$1" "$2"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
readme_cmds > "$tmp/raw"
paste <(cut -f1 "$tmp/raw") <(cut -f2 "$tmp/raw" | norm) > "$tmp/cmds"
test_lines > "$tmp/tlines"
paste <(cut -f1 "$tmp/tlines") <(cut -f2 "$tmp/tlines" | norm) > "$tmp/tests"
find_run "$tmp/cmds" "$tmp/tests" > "$tmp/found"

n=$(wc -l < "$tmp/cmds")
run "$readme: the install sections have at least 10 commands ($n)" test "$n" -ge 10

# allowed CMD: whether the allow-list has CMD; its reason in $why, its
# index in used.
declare -A used=()
why=
allowed() {
	local i
	for i in "${!allow[@]}"; do
		# shellcheck disable=SC2053 # the pattern is meant to match
		if [[ $1 == ${allow[i]%%|*} ]]; then
			used[$i]=1
			why=${allow[i]#*|}
			return 0
		fi
	done
	return 1
}

while IFS=$'\t' read -r no cmd where; do
	if allowed "$cmd"; then
		# Once the test runs it, the entry has to go.
		if [ -n "$where" ]; then
			nok "$readme:$no: \`$cmd\` is allow-listed but $where runs it: drop its entry"
		else
			ok "$readme:$no: \`$cmd\` not run by the booted test, allowed: $why"
		fi
	elif [ -n "$where" ]; then
		ok "$readme:$no: \`$cmd\` is run by $where"
	else
		nok "$readme:$no: \`$cmd\` is run by no scenario of tests/system (as normalised here)"
	fi
done < "$tmp/found"
unused=
for i in "${!allow[@]}"; do
	[ -n "${used[$i]:-}" ] || unused="$unused '${allow[i]%%|*}'"
done
is "$unused" "" "every allow-list entry matches a command of $readme"

# The allow-list's reason for dkms and the headers holds: debootstrap
# puts them into the root.
like "$(grep -o "^DEBROOT_SYSTEM_PKGS=.*" tests/lib/debroot.sh)" \
	'[=,]dkms(,|$)' "tests/lib/debroot.sh: the system root's debootstrap includes dkms"
like "$(grep -o "^DEBROOT_SYSTEM_PKGS=.*" tests/lib/debroot.sh)" \
	'[=,]linux-headers-amd64(,|$)' "tests/lib/debroot.sh: the system root's debootstrap includes linux-headers-amd64"
tap_done
