#!/usr/bin/env bash
# Build the kernel and the KVM selftests after each patch of the series in
# turn, for every architecture in ARCHES, and name the first patch that
# breaks.  The kernel must build after every patch.  The selftests do not
# build on the 6.1.192 base itself (the first patches repair that), so a
# patch breaks them if they built after the patch before it and not after
# it; and they must build at the end of the series.  Uses its own worktree (build/bisect/linux) and object
# directories, so each step is an incremental build and the main work
# tree is left alone.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

wt=$BUILD/bisect/linux
if [ ! -d "$wt" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" base
fi
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no patches on base in $TREE"
# FROM=N starts at patch N (its build is then a full one), e.g. to check
# only a group added on top of patches already proven; the selftests must
# then build after every patch checked.
from=${FROM:-1}
[[ $from =~ ^[0-9]+$ ]] && [ "$from" -ge 1 ] && [ "$from" -le ${#commits[@]} ] ||
	die "FROM must be a patch number from 1 to ${#commits[@]}"
# TO=N stops after patch N, e.g. to check one group in the middle.
to=${TO:-${#commits[@]}}
[[ $to =~ ^[0-9]+$ ]] && [ "$to" -ge "$from" ] && [ "$to" -le ${#commits[@]} ] ||
	die "TO must be a patch number from $from to ${#commits[@]}"

read -ra arches <<<"$ARCHES"
declare -A selftests_ok=()
if [ "$from" -gt 1 ]; then
	for a in "${arches[@]}"; do
		selftests_ok[$a]=yes
	done
fi
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	[ "$i" -ge "$from" ] || continue
	[ "$i" -le "$to" ] || break
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	for a in "${arches[@]}"; do
		start=$(date +%s)
		log=$BUILD/bisect/$i-$a.log
		if ! "$TOP/scripts/build-kernel.sh" "$a" "$wt" "$BUILD/bisect/obj-$a" >"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "patch $i/${#commits[@]} breaks the $a kernel build: $subject (log: $log)"
		fi
		st=ok
		if ! "$TOP/scripts/build-selftests.sh" "$a" "$wt" "$BUILD/bisect/selftests-$a" >>"$log" 2>&1; then
			if [ "${selftests_ok[$a]:-no}" = yes ]; then
				tail -n 30 "$log" >&2
				die "patch $i/${#commits[@]} breaks the $a selftests build: $subject (log: $log)"
			fi
			st="not yet building (as on base)"
		fi
		[ "$st" = ok ] && selftests_ok[$a]=yes
		echo "ok $i/${#commits[@]} $a $(($(date +%s) - start))s selftests: $st - $subject"
	done
done
for a in "${arches[@]}"; do
	[ "${selftests_ok[$a]:-no}" = yes ] || die "the $a selftests do not build after patch $to"
done
echo "bisect: patches $from-$to of ${#commits[@]} build on: ${arches[*]}"
