# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The release after this one, for the tests that upgrade to it (the booted
# system's upgrade scenario, piuparts in tests/pkg/qa.sh): this checkout's
# tree, copied without build/ and .git, with src/VERSION's last number one
# higher and a changelog entry for it on top of packaging/debian/changelog.

# nextver_of VERSION: the version after VERSION (0.1.0 -> 0.1.1).
nextver_of() { echo "$1" | awk -F. '{ printf "%d.%d.%d\n", $1, $2, $3 + 1 }'; }

# tree_copy TOP DIR: DIR made anew as a copy of TOP's tree, without build/
# and .git (tests/pkg/qa.sh builds this version's packages in one, apart
# from build/pkg, which the phases beside it build too).
tree_copy() {
	rm -rf "$2"
	mkdir -p "$2"
	tar -C "$1" --exclude=./build --exclude=./.git -cf - . | tar -C "$2" -xf -
}

# nextver_tree TOP DIR: DIR made anew as TOP's tree at the next version;
# prints that version.
nextver_tree() {
	local top=$1 dir=$2 next
	next=$(nextver_of "$(cat "$top/src/VERSION")")
	tree_copy "$top" "$dir" || return 1
	echo "$next" > "$dir/src/VERSION"
	{
		printf 'sld-compat (%s-1) UNRELEASED; urgency=medium\n\n' "$next"
		printf '  * Test build (tests/lib/nextver.sh).\n\n'
		sed -n '/^ -- /{p;q}' "$dir/packaging/debian/changelog"
		echo
		cat "$dir/packaging/debian/changelog"
	} > "$dir/changelog.new" && mv "$dir/changelog.new" "$dir/packaging/debian/changelog" || return 1
	echo "$next"
}
