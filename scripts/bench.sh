#!/usr/bin/env bash
# "make bench": build the unpatched base kernel and the patched kernel side
# by side (incrementally), run the benchmark plan (tests/bench) on each
# under the same runner with the patched tree's selftests, and print one
# table: median, min-max and n per kernel, and the ratio.
#   bench.sh
# Environment:
#   ROWS=REGEX  only the rows whose label matches (and the rows they
#               compare with)
#   AA=1        A/A: the base kernel against itself, to size a row's noise
#   BASE=REV    the "base" kernel is the series at REV instead of the
#               unpatched base: a commit of the work tree, or the subject
#               of one (e.g. "topic: fast-mmio", the series before that
#               topic), so one topic or patch is measured on its own
#   BENCH=FILE  another plan instead of tests/bench
#
# tests/bench lines:  LABEL RUN REF RUNS KEY UNIT COMMAND [ARGS...]
#   LABEL  row name (no spaces)
#   RUN    ARCH/VARIANT from tests/variants the row runs in; each kernel
#          boots once per RUN, and again after a boot that died
#   REF    the row whose *base* value is this row's denominator ("-" for
#          itself), so a row that only runs on the patched kernel can be
#          compared with the base's way of doing the same work
#   RUNS   how many times the command runs on each kernel
#   KEY    an awk regular expression (no spaces): a run's value is the
#          number after the last "KEY", "KEY:" or "KEY (" its output
#          prints.  "trace.SYSTEM/EVENT" counts that trace event during the
#          run (scripts/guest-init.sh); such rows run apart from untraced
#          ones, so tracing never slows a timed run.  "A%B" is A's share
#          of A + B in the same run (e.g. of two paths, the one taken),
#          "A@B" is A / B in the same run (e.g. time per scan)
#   UNIT   what the value counts, for the table
# Rows with the same RUN and COMMAND share their runs (and so their
# outputs), as many as the largest RUNS among them (scripts/bench-rows.sh).
# Each RUN boots each kernel in turn, base first, so the two boots compared
# are close in time; a boot that dies costs the run it died in
# (scripts/bench-runs.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ -z "$DEBUG" ] || die "make bench measures the kernels of make build; DEBUG=1 is for make test"
spec=${BENCH:-$TOP/tests/bench}
out=$BUILD/bench
mkdir -p "$out"
start=$(date +%s)

"$TOP/scripts/bench-rows.sh" "$spec" "${ROWS:-}" >"$out/rows"
[ -s "$out/rows" ] || die "no row of $spec matches ROWS='${ROWS:-}'"

arches=$(awk '{ sub(/\/.*/, "", $2); print $2 }' "$out/rows" | sort -u)
runs=$(awk '!seen[$2]++ { print $2 }' "$out/rows")

# The kernels: the base from a worktree of the base commit (or of BASE),
# and the series.
base_rev=base
if [ -n "${BASE:-}" ]; then
	base_rev=$(git -C "$TREE" rev-parse -q --verify "$BASE^{commit}" 2>/dev/null ||
		git -C "$TREE" log --format=%H -1 --fixed-strings --grep="$BASE" base..HEAD)
	[ -n "$base_rev" ] || die "BASE='$BASE' is neither a commit nor a subject in $TREE"
fi
base_tree=$out/base-linux
if [ ! -d "$base_tree" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$base_tree" base
fi
# The same worktree for every BASE, so its objects stay incremental.
[ "$(git -C "$base_tree" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "$base_rev")" ] ||
	git -C "$base_tree" checkout -q --detach "$base_rev"
export BENCH_BASE_LABEL=
[ -z "${BASE:-}" ] || BENCH_BASE_LABEL="the series up to $(git -C "$TREE" log --format='%h ("%s")' -1 "$base_rev")"
# base_obj ARCH FLAVOUR: where the base kernel of that kind is built.
base_obj() {
	local d=$out/obj-base-$1
	[ "$2" = allno ] || d=$d-$2
	echo "$d"
}
for arch in $arches; do
	# The kinds of kernel (lib.sh) the rows' variants boot.
	for k in $(for r in $runs; do
		[ "${r%/*}" != "$arch" ] || "$TOP/scripts/plan.sh" kernel "$arch" "${r#*/}"
	done | sort -u); do
		note "building the base kernel ($arch, $k)"
		KFLAVOUR=$k "$TOP/scripts/build-kernel.sh" "$arch" "$base_tree" "$(base_obj "$arch" "$k")" >/dev/null
		if [ "${AA:-}" != 1 ]; then
			note "building the patched kernel ($arch, $k)"
			KFLAVOUR=$k "$TOP/scripts/build-kernel.sh" "$arch" >/dev/null
		fi
	done
	note "building the selftests ($arch)"
	"$TOP/scripts/build-selftests.sh" "$arch" >/dev/null
done
image() { # KERNEL ARCH/VARIANT
	local arch=${2%/*} k
	k=$("$TOP/scripts/plan.sh" kernel "$arch" "${2#*/}")
	if [ "$1" = patched ]; then
		echo "$(obj_dir "$arch" "$k")/$(arch_kernel_image "$arch")"
	else
		echo "$(base_obj "$arch" "$k")/$(arch_kernel_image "$arch")"
	fi
}
kernels=(base patched)
[ "${AA:-}" != 1 ] || kernels=(base base-again)

note "bench: $(wc -l <"$out/rows") rows, $(awk '!s[$7]++ { n += $4 } END { print n }' "$out/rows") runs per kernel, in $(echo "$runs" | wc -w) run groups (${runs//$'\n'/, })"
for run in $runs; do
	for k in "${kernels[@]}"; do
		list=$out/$k/$run/runlist
		mkdir -p "${list%/*}"
		awk -v r="$run" '$2 == r && !s[$7]++ {
			c = $8
			for (i = 9; i <= NF; i++)
				c = c " " $i
			for (i = 1; i <= $4; i++)
				print $7, i "/" $4, c
		}' "$out/rows" >"$list"
		"$TOP/scripts/bench-runs.sh" "$k" "$(image "$k" "$run")" "$run" "$list" "$out/$k/$run/runs" ||
			note "bench: $k $run: scripts/bench-runs.sh failed; its rows have no value"
	done
done

"$TOP/scripts/bench-table.sh" "$out" "${kernels[@]}" | tee "$out/table.txt"
note "bench took $(($(date +%s) - start))s; table in $out/table.txt"
