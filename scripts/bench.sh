#!/usr/bin/env bash
# "make bench": build the unpatched base kernel and the patched kernel side
# by side (incrementally), boot each under the same runner, run the same
# benchmark plan (tests/bench) with the patched tree's selftests, and print
# one table of medians with patched/base ratios.
#   bench.sh [ARCH/VARIANT]     (default: x86_64/tdp)
#
# tests/bench lines:  LABEL REF REPS KEY UNIT COMMAND [ARGS...]
#   LABEL  row name (no spaces)
#   REF    the row whose *base* median is this row's denominator ("-" for
#          itself), so a row that only runs on the patched kernel can be
#          compared with the base's way of doing the same work
#   REPS   repetitions in one boot; the median is reported
#   KEY    an awk regular expression (no spaces): a run's value is the
#          number after the last "KEY: " or "KEY " its output prints
#   UNIT   what the value counts, for the table
# A row that skips (a capability the kernel lacks) is n/a.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

run=${1:-x86_64/tdp}
arch=${run%/*}
variant=${run#*/}
spec=${BENCH:-$TOP/tests/bench}
out=$BUILD/bench
mkdir -p "$out"

image=$(arch_kernel_image "$arch")

# The base kernel, from a worktree of the base commit.
base_tree=$out/base-linux
if [ ! -d "$base_tree" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$base_tree" base
fi
note "building the base kernel ($arch)"
"$TOP/scripts/build-kernel.sh" "$arch" "$base_tree" "$out/obj-base-$arch" >/dev/null
note "building the patched kernel and selftests ($arch)"
"$TOP/scripts/build-kernel.sh" "$arch" >/dev/null
"$TOP/scripts/build-selftests.sh" "$arch" >/dev/null

# One plan line per repetition.
plan=$out/plan
awk -v arch="$arch" -v variant="$variant" '
	/^#/ || NF < 6 { next }
	{
		cmd = $6
		for (i = 7; i <= NF; i++)
			cmd = cmd " " $i
		for (r = 0; r < $3; r++)
			print "run " arch " " variant " 300 " cmd
	}' "$spec" >"$plan"

for k in base patched; do
	if [ "$k" = base ]; then
		kernel=$out/obj-base-$arch/$image
	else
		kernel=$BUILD/obj-$arch/$image
	fi
	note "running tests/bench on the $k kernel"
	env "KERNEL_$arch=$kernel" PLAN="$plan" RESULTS="$out/$k" \
		"$TOP/scripts/run-tests.sh" "$run" >"$out/$k.tap" || true
done

# "name value" for each passed run, from the last "# ...KEY: number" line
# before the run's result line.
values() { # TAP-FILE KEY
	awk -v key="$2" '
		/^# / {
			if (match($0, key ":? [0-9.]+")) {
				v = substr($0, RSTART, RLENGTH)
				sub(/.* /, "", v)
			}
			next
		}
		/^ok / && !/# SKIP/ {
			n = $3
			sub(/^[^\/]*\/[^\/]*\//, "", n)
			if (v != "")
				print n, v
			v = ""
			next
		}
		{ v = "" }' "$1"
}
median() { # values on stdin
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR == 0) { print "n/a"; exit }
		if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

declare -A med=()
while read -r label ref reps key unit cmd; do
	[[ $label == \#* || -z $label ]] && continue
	name=$(echo "$cmd" | tr ' ' ',')
	for k in base patched; do
		med[$label.$k]=$(values "$out/$k.tap" "$key" | awk -v n="$name" '$1 == n { print $2 }' | median)
	done
done <"$spec"

{
	echo "Benchmark: tests/bench on $arch/$variant, same runner and selftest binaries,"
	echo "unpatched base vs. patched kernel; medians under QEMU TCG"
	printf '%-28s %5s %12s %12s %9s  %-10s %s\n' row reps base patched ratio unit "(ratio = patched / base of row)"
	while read -r label ref reps key unit cmd; do
		[[ $label == \#* || -z $label ]] && continue
		[ "$ref" = - ] && ref=$label
		b=${med[$label.base]} p=${med[$label.patched]} d=${med[$ref.base]:-n/a}
		ratio=n/a
		[ "$p" != n/a ] && [ "$d" != n/a ] && ratio=$(awk -v p="$p" -v d="$d" 'BEGIN { if (d == 0) print "n/a"; else printf "%.2f", p / d }')
		printf '%-28s %5s %12s %12s %9s  %-10s %s\n' "$label" "$reps" "$b" "$p" "$ratio" "$unit" "$ref"
	done <"$spec"
	echo "(commands: $spec; raw TAP: $out/base.tap, $out/patched.tap)"
} | tee "$out/table.txt"
