#!/usr/bin/env bash
# The mutation gate: each mutant in tests/mutants/TOPIC/NAME.patch breaks
# one kernel change of the series the way a plausible bug would; the test
# plan must catch it.
#   mutants.sh check                 every mutant applies to the work tree,
#                                    names a patch of patches/series and
#                                    plan lines that exist (make check)
#   mutants.sh run [TOPIC...]        apply each mutant to a throw-away copy
#                                    of the work tree, build that kernel,
#                                    boot only the variants and run only
#                                    the plan lines its header names, and
#                                    say whether the plan killed it
# MUTANTS=REGEX (environment) keeps the mutants whose TOPIC/NAME matches.
#
# A mutant file is a header, then a diff against the work tree (make
# tree) as "git diff" writes it.  Header lines:
#   Mutant: what the mutation does
#   Breaks: TOPIC/NNNN-...patch       the patch of patches/series it undoes
#   Seen:   what a user would see on a kernel with this bug
#   Kill:   ARCH/VARIANT TEST [ARGS...]  a run line of tests/plan (its
#           TEST ARGS as the plan writes them, for ARCH, in a variant the
#           line names or "all" covers), expected to fail; one or more
#   Untestable: REASON                (optional) code no kernel booted
#           here can run (Intel VMX under QEMU's TCG, SEV): the mutant is
#           applied and built, never booted, and reported as a skip with
#           REASON; Kill lines name where it would be caught on hardware
#   Equivalent: ARGUMENT              (optional) the mutation changes no
#           behaviour (ARGUMENT says why): applied and built, never booted,
#           reported as a skip
#   Expect: build-failure             (optional) killed when the kernel,
#           or the selftests of a mutant of tools/ or a uAPI header, do not
#           build, e.g. a removed export; then Kill names none
# run prints TAP, one line per mutant: "ok" killed, "not ok" survived or
# broken (does not apply, or does not build: an error in the catalog), "ok
# # SKIP" untestable, and ends with "N killed, N survived, N broken" (and
# how many were untestable); it exits non-zero unless every mutant that
# can be tested was killed.  Each mutant's logs are in build/mutants/NAME/.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

cmd=${1:?usage: mutants.sh check | run [TOPIC...]}
shift
dir=$TOP/tests/mutants
work=$BUILD/mutants
wt=$work/linux

# mutants [TOPIC...]: the catalog's files, relative to tests/mutants.
mutants() {
	local t
	if [ $# -eq 0 ]; then
		find "$dir" -mindepth 2 -maxdepth 2 -name '*.patch' -printf '%P\n' | sort
	else
		for t in "$@"; do
			[ -d "$dir/$t" ] || die "no mutants for topic '$t' in tests/mutants"
			find "$dir/$t" -maxdepth 1 -name '*.patch' -printf "$t/%P\n" | sort
		done
	fi | grep -E -- "${MUTANTS:-.}" || true
}

field() { # field FILE NAME: the values of header line NAME:, one a line
	sed -n '/^diff --git /q; s/^'"$2"': *//p' "$1"
}

# plan_line ARCH VARIANT TEST-ARGS: "TIMEOUT COMMAND..." of the tests/plan
# run line that runs TEST-ARGS (its set=, trace= and hold= prefixes left out) for
# ARCH in VARIANT, the prefixes kept in COMMAND; fails if there is none.
plan_line() {
	local arch=$1 v=$2 want=$3
	awk -v arch="$arch" -v v="$v" -v want="$want" '
		$1 == "run" && $2 == arch {
			for (f = 5; f < NF && $f ~ /^(set|trace|hold)=/; f++)
				;
			t = $f
			for (i = f + 1; i <= NF; i++)
				t = t " " $i
			if (t != want)
				next
			n = split($3, vs, ",")
			for (i = 1; i <= n; i++)
				if (vs[i] == v || vs[i] == "all") {
					line = $4
					for (i = 5; i <= NF; i++)
						line = line " " $i
					print line
					found = 1
					exit
				}
		}
		END { exit !found }' "$TOP/tests/plan"
}

# verify FILE: the header is complete and names what exists; prints what
# is wrong and fails.
verify() {
	local f=$1 m=$dir/$1 bad=0 k arch v t b
	for k in Mutant Breaks Seen; do
		[ -n "$(field "$m" "$k")" ] || { echo "$f: no '$k:' line"; bad=1; }
	done
	b=$(field "$m" Breaks)
	[ -z "$b" ] || grep -qx -- "$b" "$TOP/patches/series" ||
		{ echo "$f: Breaks: $b is not in patches/series"; bad=1; }
	[ "${f%%/*}" = "${b%%/*}" ] || { echo "$f: filed under ${f%%/*} but breaks a patch of ${b%%/*}"; bad=1; }
	if [ "$(field "$m" Expect)" = build-failure ]; then
		[ -z "$(field "$m" Kill)" ] || { echo "$f: Expect: build-failure and Kill: lines"; bad=1; }
	else
		[ -n "$(field "$m" Kill)" ] || { echo "$f: no 'Kill:' line"; bad=1; }
	fi
	while read -r k t; do
		[ -n "$k" ] || continue
		arch=${k%/*} v=${k#*/}
		if ! "$TOP/scripts/plan.sh" variant "$arch" "$v" >/dev/null 2>&1; then
			echo "$f: Kill: no variant $k in tests/variants"
			bad=1
		elif ! plan_line "$arch" "$v" "$t" >/dev/null; then
			echo "$f: Kill: tests/plan runs no '$t' for $arch in $v"
			bad=1
		fi
	done < <(field "$m" Kill)
	grep -q '^diff --git ' "$m" || { echo "$f: no diff"; bad=1; }
	return "$bad"
}

case $cmd in
check)
	[ -d "$TREE/.git" ] || die "no work tree: run 'make tree' first"
	fail=0 n=0
	while read -r f; do
		n=$((n + 1))
		verify "$f" >&2 || fail=1
		if ! git -C "$TREE" apply --check "$dir/$f" 2>/dev/null; then
			echo "$f: does not apply to the work tree (make tree) any more" >&2
			fail=1
		fi
	done < <(mutants "$@")
	[ "$fail" = 0 ] || die "tests/mutants: the catalog does not match the series and the plan (above)"
	note "tests/mutants: $n mutants apply and name existing patches and plan lines"
	exit 0
	;;
run) ;;
*) die "usage: mutants.sh check | run [TOPIC...]" ;;
esac

mapfile -t all < <(mutants "$@")
[ ${#all[@]} -gt 0 ] || die "no mutants match"
# The whole series, and its selftests, which every mutant's kernel runs.
TOPICS='' "$TOP/scripts/tree.sh" >&2
for a in $ARCHES; do
	"$TOP/scripts/build-selftests.sh" "$a" >/dev/null
done
head=$(git -C "$TREE" rev-parse HEAD)
if [ ! -d "$wt" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" "$head"
fi

echo "TAP version 13"
echo "1..${#all[@]}"
n=0 killed=0 survived=0 broken=0 untestable=0 equivalent=0
for f in "${all[@]}"; do
	n=$((n + 1))
	name=${f%.patch}
	out=$work/${name//\//-}
	rm -rf "$out"
	mkdir -p "$out"
	start=$(date +%s)
	result() { # result ok|not-ok KIND WHY
		local s=ok
		[ "$1" = ok ] || s="not ok"
		echo "$s $n $name # $2${3:+: $3} ($(($(date +%s) - start)) s)"
	}
	if ! why=$(verify "$f"); then
		broken=$((broken + 1))
		result not-ok broken "$why"
		continue
	fi
	git -C "$wt" checkout -q -f --detach "$head"
	if ! git -C "$wt" apply "$dir/$f" 2>"$out/apply.log"; then
		broken=$((broken + 1))
		result not-ok broken "does not apply ($(head -n 1 "$out/apply.log"))"
		continue
	fi
	expect=$(field "$dir/$f" Expect)
	# The kernels the Kill lines boot, or allno's and Debian's (modules)
	# for a mutant that must not build.
	declare -A kernels=()
	if [ "$expect" = build-failure ]; then
		for a in $ARCHES; do kernels[$a/modules]=1; done
	else
		while read -r k _; do
			a=${k%/*}
			kernels[$a/$("$TOP/scripts/plan.sh" kernel "$a" "${k#*/}")]=1
		done < <(field "$dir/$f" Kill)
	fi
	envs=() built=1
	for ak in "${!kernels[@]}"; do
		a=${ak%/*} k=${ak#*/}
		obj=$work/obj-$a-$k
		if ! KFLAVOUR=$k "$TOP/scripts/build-kernel.sh" "$a" "$wt" "$obj" >"$out/build-$a-$k.log" 2>&1; then
			built=0
			break
		fi
		if [ "$k" = allno ]; then
			envs+=("KERNEL_$a=$obj/$(arch_kernel_image "$a")")
		else
			envs+=("KERNEL_${a}_$k=$obj/$(arch_kernel_image "$a")")
		fi
	done
	unset kernels
	# A mutant of the uAPI headers or of the selftests: its own selftests.
	if [ "$built" = 1 ] && grep -qE '^diff --git a/(tools/|include/uapi/|arch/[a-z0-9]*/include/uapi/)' "$dir/$f"; then
		for a in $ARCHES; do
			# The installed uAPI headers are system headers to the
			# compiler (-isystem), which leaves them out of the
			# selftests' dependency files: build them from scratch.
			rm -rf "$work/selftests-$a"
			if ! "$TOP/scripts/build-selftests.sh" "$a" "$wt" "$work/selftests-$a" >"$out/selftests-$a.log" 2>&1; then
				built=0
				break
			fi
			envs+=("SELFTESTS_$a=$work/selftests-$a")
		done
	fi
	if [ -n "$(field "$dir/$f" Untestable)" ] && [ "$built" = 1 ]; then
		untestable=$((untestable + 1))
		echo "ok $n $name # SKIP untestable here: $(field "$dir/$f" Untestable) (built, $(($(date +%s) - start)) s)"
		continue
	fi
	if [ -n "$(field "$dir/$f" Equivalent)" ] && [ "$built" = 1 ]; then
		equivalent=$((equivalent + 1))
		echo "ok $n $name # SKIP equivalent: $(field "$dir/$f" Equivalent) (built, $(($(date +%s) - start)) s)"
		continue
	fi
	if [ "$expect" = build-failure ]; then
		if [ "$built" = 0 ]; then
			killed=$((killed + 1))
			result ok killed "it does not build ($(cat "$out"/*.log | grep -m1 -E 'ERROR|error:' || true))"
		else
			survived=$((survived + 1))
			result not-ok survived "the kernel built"
		fi
		continue
	fi
	if [ "$built" = 0 ]; then
		broken=$((broken + 1))
		result not-ok broken "it does not build (logs in $out)"
		continue
	fi
	# A plan of just the Kill lines, each in its variant; the variants
	# boot one at a time, until one fails.
	runs=()
	while read -r k t; do
		a=${k%/*} v=${k#*/}
		echo "run $a $v $(plan_line "$a" "$v" "$t")"
		[[ " ${runs[*]} " == *" $k "* ]] || runs+=("$k")
	done < <(field "$dir/$f" Kill) >"$out/plan"
	rc=0
	: >"$out/tap.log"
	for k in "${runs[@]}"; do
		env "${envs[@]}" PLAN="$out/plan" RESULTS="$out/results" \
			"$TOP/scripts/run-tests.sh" "$k" >>"$out/tap.log" 2>&1 || rc=$?
		[ "$rc" = 0 ] || break
	done
	failed=$(grep -E '^not ok ' "$out/tap.log" | grep -v '# TODO' || true)
	if [ "$rc" = 0 ]; then
		survived=$((survived + 1))
		result not-ok survived "every Kill line passed (see $out/tap.log)"
	elif grep -q 'infrastructure' <<<"$failed" && ! grep -qv 'infrastructure' <<<"$failed"; then
		broken=$((broken + 1))
		result not-ok broken "QEMU failed, nothing was learnt (see $out/tap.log)"
	else
		killed=$((killed + 1))
		result ok killed "$(echo "$failed" | head -n 1 | sed 's/^not ok [0-9]* //' | cut -c1-160)"
	fi
done
git -C "$wt" checkout -q -f --detach "$head"
[ "$untestable" = 0 ] || echo "# $untestable untestable here (code no kernel booted here runs; built, not booted)"
[ "$equivalent" = 0 ] || echo "# $equivalent equivalent (no behaviour changed, argued in their headers; built, not booted)"
echo "$killed killed, $survived survived, $broken broken"
[ "$survived" = 0 ] && [ "$broken" = 0 ]
