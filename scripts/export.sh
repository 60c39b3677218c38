#!/usr/bin/env bash
# Turn the work tree's commits since "base" into patches/, one folder per
# topic (cut at the "topic: NAME" marker commits, see lib.sh):
#   patches/TOPIC/NNNN-*.patch         the topic's patches, numbered within
#                                      its own posting ([PATCH 6.1 3/9])
#   patches/TOPIC/0000-cover-letter.patch
#                                      from patches/TOPIC/cover-letter.txt
#                                      (subject line, blank line, text),
#                                      with shortlog, diffstat, the base and
#                                      the prerequisite patch ids, as b4
#                                      writes them
#   patches/series                     every patch by path, in order
#   patches/0000-cover-letter.patch    the umbrella letter: from
#                                      patches/cover-letter.txt plus a table
#                                      of the topics
# Output is deterministic (no dates, zeroed commit ids), so a diff of
# patches/ shows only real changes.
#   export.sh [--to DIR]   write into DIR instead (tree.sh compares with
#                          it); the work tree may then hold some topics only
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dest=$TOP/patches
partial=no
if [ "${1:-}" = --to ]; then
	dest=${2:?usage: export.sh [--to DIR]}
	partial=yes
fi

[ -d "$TREE/.git" ] || die "no work tree at $TREE: run 'make tree'"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them (one logical change each) first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree_commits "$TREE" >"$tmp/commits"
[ -s "$tmp/commits" ] || die "no commits on top of base in $TREE"
mapfile -t topics < <(awk '!seen[$1]++ { print $1 }' "$tmp/commits")
if [ "$partial" = no ]; then
	for t in $(series_topics); do
		printf '%s\n' "${topics[@]}" | grep -qx -- "$t" ||
			die "the work tree lacks topic $t of patches/series ('make tree' without TOPICS= to edit the whole series)"
	done
fi

# The topics' order and requirements are the work tree's, which may
# differ from patches/series until this export.
printf '%s/\n' "${topics[@]}" >"$tmp/order"
export SERIES=$tmp/order

# patch_id COMMIT: what "prerequisite-patch-id:" names
patch_id() {
	git -C "$TREE" show --format= "$1" | git patch-id --stable | awk '{ print $1 }'
}

base=$(git -C "$TREE" rev-parse base)
for t in "${topics[@]}"; do
	[ -f "$TOP/patches/$t/cover-letter.txt" ] ||
		die "topic $t has no patches/$t/cover-letter.txt (first line: subject, then a blank line and the text)"
	[ -f "$TOP/patches/$t/requires" ] ||
		die "topic $t has no patches/$t/requires (the topics it needs, one per line; may be empty)"
	mapfile -t cs < <(awk -v t="$t" '$1 == t { print $2 }' "$tmp/commits")
	out=$tmp/out/$t
	mkdir -p "$out"
	git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
		--subject-prefix="PATCH 6.1" -o "$out" "${cs[0]}^..${cs[-1]}"
	sed -i '/^Date: /d' "$out"/*.patch
	[ "$(find "$out" -name '[0-9]*.patch' | wc -l)" = $((${#cs[@]} + 1)) ] ||
		die "topic $t: its commits are not contiguous in $TREE"

	# The cover letter: subject and text from cover-letter.txt, then
	# what format-patch wrote, then the base and the prerequisites.
	{
		echo "base-commit: $base"
		while read -r r; do
			awk -v r="$r" '$1 == r { print $2 }' "$tmp/commits"
		done < <(topic_closure "$t" | grep -vx -- "$t") | while read -r c; do
			echo "prerequisite-patch-id: $(patch_id "$c")"
		done
	} >"$tmp/trailer"
	subject=$(head -n1 "$TOP/patches/$t/cover-letter.txt")
	tail -n +3 "$TOP/patches/$t/cover-letter.txt" >"$tmp/blurb"
	# The patches that do what an upstream commit does, from their
	# Origin: trailers (docs/patch-metadata.md).
	for p in "$out"/[0-9]*.patch; do
		[[ $p != */0000-cover-letter.patch ]] || continue
		o=$(sed -n '/^---$/q; s/^Origin: /    Origin: /p' "$p")
		[ -n "$o" ] || continue
		printf '  %s\n%s\n' "${p##*/}" "$o"
	done >"$tmp/origins"
	if [ -s "$tmp/origins" ]; then
		printf '\nUpstream equivalents: these patches re-implement upstream commits for\n6.1 (each says which, by whom, and what differs); a tree that can take\nupstream'"'"'s code should cherry-pick those instead.\n\n' >>"$tmp/blurb"
		cat "$tmp/origins" >>"$tmp/blurb"
	fi
	awk -v subj="$subject" -v blurb="$tmp/blurb" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline l < blurb) > 0)
				print l
			next
		}
		{ print }' "$out/0000-cover-letter.patch" >"$tmp/cover"
	cat "$tmp/cover" "$tmp/trailer" >"$out/0000-cover-letter.patch"
	for p in "$out"/[0-9]*.patch; do
		case $p in */0000-cover-letter.patch) ;; *) echo "$t/${p##*/}" ;; esac
	done >>"$tmp/series"
done

# The umbrella letter: what the series is, then one line per topic.
umbrella() {
	local t n req
	echo "From: $SERIES_NAME <$SERIES_EMAIL>"
	head -n1 "$TOP/patches/cover-letter.txt" | sed "s/^/Subject: [PATCH 6.1] /"
	echo
	tail -n +3 "$TOP/patches/cover-letter.txt"
	echo
	printf '  %-16s %7s  %s\n' topic patches requires
	for t in "${topics[@]}"; do
		n=$(grep -c "^$t/" "$tmp/series")
		req=$(topic_requires "$t" | paste -sd, -)
		printf '  %-16s %7s  %s\n' "$t" "$n" "${req:--}"
	done
	echo
	echo "base-commit: $base"
}
umbrella >"$tmp/out/0000-cover-letter.patch"

mkdir -p "$dest"
[ "$partial" = yes ] || find "$dest" -name '*.patch' -delete
cp -r "$tmp/out/." "$dest/"
cp "$tmp/series" "$dest/series"
[ "$partial" = yes ] || note "exported $(wc -l <"$tmp/series") patches in ${#topics[@]} topics to patches/"
