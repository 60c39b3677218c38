#!/usr/bin/env bash
# Turn the work tree's commits since "base" into patches/: one
# format-patch file per commit, the "series" file, and the cover letter
# made from patches/cover-letter.txt plus shortlog and diffstat.  Output is
# deterministic (no dates, zeroed commit ids) so a diff of patches/ shows
# only real changes.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no work tree at $TREE: run 'make tree'"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them (one logical change each) first"
count=$(git -C "$TREE" rev-list --count base..HEAD)
[ "$count" -gt 0 ] || die "no commits on top of base in $TREE"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
format_series "$tmp"

cover=$TOP/patches/cover-letter.txt
if [ -f "$cover" ]; then
	subject=$(head -n1 "$cover")
	tail -n +3 "$cover" >"$tmp/blurb"
	awk -v subj="$subject" -v blurb="$tmp/blurb" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline l < blurb) > 0)
				print l
			next
		}
		{ print }' "$tmp/0000-cover-letter.patch" >"$tmp/cover"
	mv "$tmp/cover" "$tmp/0000-cover-letter.patch"
fi

find "$TOP/patches" -name '*.patch' -delete
cp "$tmp"/*.patch "$TOP/patches/"
for p in "$tmp"/[0-9]*.patch; do
	case $p in */0000-cover-letter.patch) ;; *) basename "$p" ;; esac
done >"$TOP/patches/series"
note "exported $count patches to patches/"
