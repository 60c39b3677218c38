#!/usr/bin/env bash
# Make the work tree: the pinned base plus every patch in patches/series,
# applied with "git am".  Refuses to throw away work that is not exported.
# Fails naming the first patch that does not apply.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/fetch-base.sh"
cd "$TREE"

series=$TOP/patches/series
[ -f "$series" ] || die "no patches/series"

# Does base..HEAD export to exactly what patches/series holds?
tree_matches_series() {
	local d rc=0 p
	d=$(mktemp -d)
	format_series "$d"
	rm -f "$d/0000-cover-letter.patch"
	[ "$(cd "$d" && ls)" = "$(grep . "$series")" ] || rc=1
	if [ "$rc" = 0 ]; then
		while read -r p; do
			cmp -s "$d/$p" "$TOP/patches/$p" || rc=1
		done <"$series"
	fi
	rm -rf "$d"
	return "$rc"
}

if [ "${FORCE:-0}" != 1 ]; then
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; commit and 'make export', or FORCE=1 to discard"
	if [ "$(git rev-parse HEAD)" != "$(git rev-parse base)" ] && tree_matches_series; then
		note "$TREE already has the series applied"
		exit 0
	fi
	[ "$(git rev-parse HEAD)" = "$(git rev-parse base)" ] ||
		die "$TREE has commits that differ from patches/; 'make export' them, or FORCE=1 to discard"
fi

git am --abort >/dev/null 2>&1 || true
git reset -q --hard base
git clean -qfdx
n=0
while read -r p; do
	[ -n "$p" ] || continue
	n=$((n + 1))
	if ! git am -q --keep-cr "$TOP/patches/$p" >/dev/null 2>&1; then
		git am --abort >/dev/null 2>&1 || true
		die "patch $n does not apply: patches/$p"
	fi
done <"$series"
note "applied $n patches on base in $TREE"
