#!/usr/bin/env bash
# Prove that topics apply and build alone: for each topic, the base plus
# the topics its "requires" names (transitively) plus the topic itself,
# applied with "git am" from patches/, and the kernel and the KVM
# selftests built for every architecture in ARCHES.
#   build-topics.sh tips [TOPIC...]   build each topic's last patch
#                                     (make check)
#   build-topics.sh each [TOPIC...]   build its prerequisites, then after
#                                     each of its patches (make bisect)
# Default: every topic of patches/series.  The selftests do not build on
# the 6.1.192 base (the fixes topic repairs that), so a patch breaks them
# if they built before it and not after it; and they must build after a
# topic's last patch.  The trees are commits in build/topics/apply; one
# worktree (build/topics/linux) moves between them with "git checkout",
# so every build is incremental.  A tree that built once is not built
# again (build/topics/proven/, keyed by tree, arch, configs and scripts).
# The kernels are lib.sh's "modules" kind: KVM as modules on x86_64 (so a
# missing export fails the build) with DEBUG_VM and lockdep on, as a
# distribution's debug kernel is built.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: build-topics.sh tips|each [TOPIC...]}
shift
case $mode in tips | each) ;; *) die "usage: build-topics.sh tips|each [TOPIC...]" ;; esac
[ -z "$DEBUG" ] || die "DEBUG=1 is for test kernels; topics are proven with the normal configs"
"$TOP/scripts/fetch-base.sh" >/dev/null
topics=("$@")
[ ${#topics[@]} -gt 0 ] || mapfile -t topics < <(series_topics)
read -ra arches <<<"$ARCHES"

dir=$BUILD/topics
wt=$dir/linux
scratch=$dir/apply
mkdir -p "$dir/proven"
for w in "$wt" "$scratch"; do
	if [ ! -d "$w" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$w" base
	fi
done

# What a proven build depends on besides the tree.
recipe=$(cat "$TOP"/configs/common.config "$TOP"/configs/*64.config "$TOP"/configs/*64-modules.config \
	"$TOP/scripts/build-kernel.sh" "$TOP/scripts/build-selftests.sh" | sha1sum | cut -c1-12)

# build STEP-NAME COMMIT: build the tree of COMMIT for every arch; sets
# selftests[ARCH] to yes or no.  Fails if the kernel does not build.
declare -A selftests=()
build() {
	local name=$1 c a key log start st
	c=$(git -C "$scratch" rev-parse "$2")
	for a in "${arches[@]}"; do
		key=$dir/proven/$(git -C "$scratch" rev-parse "$c^{tree}")-$a-$recipe
		if [ -f "$key" ]; then
			selftests[$a]=$(cat "$key")
			echo "ok $name $a (built before) selftests: ${selftests[$a]}"
			continue
		fi
		git -C "$wt" checkout -q --detach "$c"
		start=$(date +%s)
		log=$dir/$a.log
		if ! KFLAVOUR=modules "$TOP/scripts/build-kernel.sh" "$a" "$wt" "$dir/obj-$a" >"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "$name: the $a kernel does not build (log: $log)"
		fi
		st=yes
		"$TOP/scripts/build-selftests.sh" "$a" "$wt" "$dir/selftests-$a" >>"$log" 2>&1 || st=no
		echo "$st" >"$key"
		selftests[$a]=$st
		echo "ok $name $a $(($(date +%s) - start))s selftests: $st"
	done
}

# need_selftests STEP-NAME: fail if the selftests of some arch do not build.
need_selftests() {
	local a
	for a in "${arches[@]}"; do
		[ "${selftests[$a]}" = yes ] ||
			die "$1: the $a selftests do not build (log: $dir/$a.log)"
	done
}

for t in "${topics[@]}"; do
	mapfile -t need < <(topic_closure "$t" | grep -vx -- "$t")
	git -C "$scratch" am --abort >/dev/null 2>&1 || true
	git -C "$scratch" reset -q --hard base
	apply_topics "$scratch" "${need[@]}" || die "topic $t: a topic it requires does not apply"
	mapfile -t ps < <(topic_patches "$t")
	[ ${#ps[@]} -gt 0 ] || die "topic $t has no patches in patches/series"
	if [ "$mode" = each ]; then
		build "$t/0 (base + ${need[*]:-nothing})" HEAD
		declare -A before=()
		for a in "${arches[@]}"; do before[$a]=${selftests[$a]}; done
		mark_topic "$scratch" "$t"
		for p in "${ps[@]}"; do
			git -C "$scratch" am -q --keep-cr "$TOP/patches/$p" >/dev/null 2>&1 ||
				die "$p does not apply on base + ${need[*]:-nothing} + the patches before it"
			build "$p" HEAD
			for a in "${arches[@]}"; do
				[ "${before[$a]}" = no ] || [ "${selftests[$a]}" = yes ] ||
					die "$p breaks the $a selftests build (log: $dir/$a.log)"
				before[$a]=${selftests[$a]}
			done
		done
	else
		apply_topics "$scratch" "$t" ||
			die "topic $t does not apply on base + ${need[*]:-nothing}"
		build "$t (${#ps[@]} patches on base + ${need[*]:-nothing})" HEAD
	fi
	need_selftests "$t"
done
echo "build-topics: ${topics[*]} apply and build alone on: ${arches[*]}"
