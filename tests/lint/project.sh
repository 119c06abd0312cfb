#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The project's address and maintainer are set once, in
# packaging/project.mk. What must carry them written out is checked
# against it here: README.md, packaging/debian/control, copyright,
# changelog, watch and upstream/metadata, the keyring package's control,
# copyright and changelog (packaging/keyring/debian/), the rpm spec and
# sldctl(8); and every .example address in those files is one of
# project.mk's, or a file of the apt repository below PROJECT_APT (one set
# of placeholders, not several). packaging/repo.sh reads PROJECT_APT
# itself. Part of `make lint`; TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/tap.sh

mk=packaging/project.mk
val() { sed -n "s/^$1 := //p" "$mk"; }
url=$(val PROJECT_URL)
vcs=$(val PROJECT_VCS)
bugs=$(val PROJECT_BUGS)
apt=$(val PROJECT_APT)
maint=$(val PROJECT_MAINTAINER)
like "$url" '^https://[^ ]+/$' "$mk: PROJECT_URL is an https address ($url)"
like "$vcs" '^https://[^ ]+$' "$mk: PROJECT_VCS is an https address ($vcs)"
like "$bugs" '^https://[^ ]+$' "$mk: PROJECT_BUGS is an https address ($bugs)"
like "$apt" '^https://[^ ]+/$' "$mk: PROJECT_APT is an https address ($apt)"
like "$maint" '^[^<>]+ <[^<>@ ]+@[^<> ]+>$' "$mk: PROJECT_MAINTAINER is 'Name <address>'"

ctl=packaging/debian/control
field() { sed -n "s/^$1:[[:space:]]*//p" "$2" | head -n1; }
for d in packaging/debian packaging/keyring/debian; do
	is "$(field Homepage $d/control)" "$url" "$d/control: Homepage"
	is "$(field Vcs-Git $d/control)" "$vcs" "$d/control: Vcs-Git"
	is "$(field Vcs-Browser $d/control)" "$url" "$d/control: Vcs-Browser"
	is "$(field Maintainer $d/control)" "$maint" "$d/control: Maintainer"
	is "$(field Source $d/copyright)" "$url" "$d/copyright: Source"
	is "$(field Upstream-Contact $d/copyright)" "$maint" "$d/copyright: Upstream-Contact"
	is "$(sed -n '0,/^ -- /s/^ -- \(.*>\)  .*/\1/p' $d/changelog)" "$maint" \
		"$d/changelog: the newest entry's maintainer"
done
meta=packaging/debian/upstream/metadata
is "$(field Bug-Database $meta)" "$bugs" "debian/upstream/metadata: Bug-Database"
is "$(field Bug-Submit $meta)" "$bugs" "debian/upstream/metadata: Bug-Submit"
is "$(field Repository $meta)" "$vcs" "debian/upstream/metadata: Repository"
is "$(field Repository-Browse $meta)" "$url" "debian/upstream/metadata: Repository-Browse"
run "debian/watch: reads the tags of $vcs" grep -qE "^ *$vcs( |\\\\?$)" packaging/debian/watch
spec=packaging/rpm/sld-compat.spec
is "$(field URL $spec)" "$url" "rpm spec: URL"
is "$(sed -n '/^%changelog/,$s/^\* [A-Z][a-z]* [A-Z][a-z]* [0-9]* [0-9]* \(.*>\) - .*/\1/p' $spec | head -n1)" \
	"$maint" "rpm spec: the newest %changelog entry's maintainer"
run "sldctl(8): REPORTING BUGS gives $bugs" sh -c \
	"sed -n '/^\\.SH REPORTING BUGS/,/^\\.SH /p' packaging/sldctl.8 | grep -qxF '.UR $bugs'"
run "sldctl(8): SEE ALSO gives $url" sh -c \
	"sed -n '/^\\.SH SEE ALSO/,\$p' packaging/sldctl.8 | grep -qxF '.UR $url'"
run "README.md: names the project's home $url" grep -qF "Project home: $url" README.md
run "README.md: clones from $vcs" grep -qE "git clone $vcs( |$)" README.md
run "README.md: Reporting bugs gives $bugs" sh -c \
	"sed -n '/^## Reporting bugs/,/^## /p' README.md | grep -qF '$bugs'"
for f in sld-compat-archive-keyring.gpg sld-compat.sources; do
	run "README.md: Install fetches ${apt}$f" sh -c \
		"sed -n '/^## Install/,/^## /p' README.md | grep -qF ' ${apt}$f'"
done

# One set of placeholders: every .example address is one of project.mk's.
files=(README.md docs/*.md "$ctl" packaging/debian/copyright packaging/debian/changelog
	packaging/debian/watch "$meta" packaging/keyring/debian/control
	packaging/keyring/debian/copyright packaging/keyring/debian/changelog "$spec" packaging/sldctl.8)
bad=
while read -r a; do
	[ "$a" = "$url" ] || [ "$a" = "$vcs" ] || [ "$a" = "$bugs" ] ||
		[ "${a%/}" = "${url%/}" ] || [ "${a#"$apt"}" != "$a" ] || bad="$bad $a"
done < <(grep -ohE "https?://[^ )>\"\`]*\\.example(/[^ )>\"\`]*)?" "${files[@]}" |
	sed 's/[.,;:]$//' | sort -u)
is "$bad" "" "every .example address in README, docs, packaging and sldctl(8) is project.mk's (or below PROJECT_APT)"
tap_done
