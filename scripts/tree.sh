#!/usr/bin/env bash
# Make the work tree: the pinned base plus the topics of patches/series,
# each after its "topic: NAME" marker commit, applied with "git am".
#   TOPICS="memory-fault numa-hinting"  those topics and the topics they
#                                       need (default: all)
# Refuses to throw away work that is not exported.  Fails naming the first
# patch that does not apply.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/fetch-base.sh"
cd "$TREE"

[ -f "$TOP/patches/series" ] || die "no patches/series"
read -ra asked <<<"${TOPICS:-}"
[ ${#asked[@]} -gt 0 ] || mapfile -t asked < <(series_topics)
mapfile -t topics < <(topic_closure "${asked[@]}")

# tree_state: "same" if the work tree holds exactly these topics and they
# export to exactly what patches/ holds, "exported" if what it holds (other
# topics) exports to what patches/ holds, "differs" otherwise.
# What tree.sh last applied: HEAD, the topics and a hash of their patches.
applied=$(git rev-parse --git-path kvm-series-applied)
fingerprint() {
	echo "${topics[*]}"
	for t in "${topics[@]}"; do
		topic_patches "$t"
	done | sed "s,^,$TOP/patches/," | xargs cat | sha1sum
}
tree_state() {
	local d state=same t p
	# Untouched since tree.sh applied it: nothing to lose.  (A tree of
	# some topics does not export to patches/ byte for byte: its index
	# lines and line numbers differ.)
	if [ "$(head -n1 "$applied" 2>/dev/null)" = "$(git rev-parse HEAD)" ]; then
		if [ "$(tail -n +2 "$applied")" = "$(fingerprint)" ]; then
			echo same
		else
			echo exported
		fi
		return
	fi
	d=$(mktemp -d)
	if ! "$TOP/scripts/export.sh" --to "$d" >/dev/null 2>&1; then
		rm -rf "$d"
		echo differs
		return
	fi
	[ "$(sed 's,/.*,,' "$d/series" | uniq)" = "$(printf '%s\n' "${topics[@]}")" ] || state=exported
	for t in $(sed 's,/.*,,' "$d/series" | uniq); do
		[ "$(grep "^$t/" "$d/series")" = "$(topic_patches "$t")" ] || state=differs
	done
	while read -r p; do
		cmp -s "$d/$p" "$TOP/patches/$p" || state=differs
	done <"$d/series"
	rm -rf "$d"
	echo "$state"
}

if [ "${FORCE:-0}" != 1 ]; then
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; commit and 'make export', or FORCE=1 to discard"
	if [ "$(git rev-parse HEAD)" != "$(git rev-parse base)" ]; then
		case $(tree_state) in
		same)
			note "$TREE already has topics ${topics[*]} applied"
			exit 0
			;;
		differs)
			die "$TREE has commits that differ from patches/; 'make export' them, or FORCE=1 to discard"
			;;
		esac
	fi
fi

git am --abort >/dev/null 2>&1 || true
git reset -q --hard base
git clean -qfdx
apply_topics "$TREE" "${topics[@]}" || die "the series does not apply"
{
	git rev-parse HEAD
	fingerprint
} >"$applied"
note "applied $(tree_commits "$TREE" | wc -l) patches in ${#topics[@]} topics (${topics[*]}) on base in $TREE"
