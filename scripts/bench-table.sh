#!/usr/bin/env bash
# Print "make bench"'s table from what scripts/bench.sh and bench-runs.sh
# left in OUTDIR: per row and kernel the median, min-max and n (runs that
# gave a value, of the runs planned), and the ratio of the second kernel's
# median to the first's (or to the REF row's first-kernel median).  A
# ratio whose two min-max ranges overlap is marked "~": inside the noise.
# Then every run that failed or was lost, and every boot whose kernel log
# has a splat.
#   bench-table.sh OUTDIR KERNEL_A KERNEL_B
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=${1:?usage: bench-table.sh OUTDIR KERNEL_A KERNEL_B}
ka=${2:?}
kb=${3:?}

# value FILE KEY: the number after the last KEY the run's output printed;
# for a KEY "A%B", A's share of A + B; for "A@B", A / B (both from that
# run; not "/", which trace.SYSTEM/EVENT keys use).
value() {
	awk -v key="$2" '
		function last(k) {
			if (match($0, k "[:=( ]*-?[0-9][0-9.]*([eE][-+]?[0-9]+)?")) {
				v = substr($0, RSTART, RLENGTH)
				sub(/.*[:=( ]/, "", v)
				return v
			}
			return ""
		}
		BEGIN {
			per = index(key, "@") > 0
			n = split(key, k, per ? "@" : "%")
		}
		{
			for (i = 1; i <= n; i++)
				if ((x = last(k[i])) != "")
					got[i] = x
		}
		END {
			if (n == 1 && (1 in got))
				print got[1]
			else if (n == 2 && per && (1 in got) && (2 in got) && got[2] > 0)
				printf "%.4g\n", got[1] / got[2]
			else if (n == 2 && !per && (1 in got) && (2 in got) && got[1] + got[2] > 0)
				printf "%.4g\n", got[1] / (got[1] + got[2])
		}' "$1"
}

# "KERNEL LABEL STATUS [VALUE | WHY]" for every run of every row.
while read -r label run _ _ key _ job _; do
	for k in "$ka" "$kb"; do
		d=$out/$k/$run/runs
		[ -f "$d/results" ] || continue
		while read -r j rep st why; do
			[ "$j" = "$job" ] || continue
			if [ "$st" = ok ]; then
				v=$(value "$d/out/$j.${rep%/*}" "$key")
				if [ -n "$v" ]; then
					echo "$k $label value $v"
				else
					echo "$k $label novalue $j.${rep%/*}: no '$key' in its output"
				fi
			else
				echo "$k $label $st $why"
			fi
		done <"$d/results"
	done
done <"$out/rows" >"$out/values"

if [ "$kb" = patched ] && [ -n "${BENCH_BASE_LABEL:-}" ]; then
	echo "make bench, $(date +%F): base = $BENCH_BASE_LABEL, patched = the series;"
elif [ "$kb" = patched ]; then
	echo "make bench, $(date +%F): base = the unpatched $(base_field package) $(base_field version), patched = the series;"
else
	echo "make bench AA=1, $(date +%F): $ka and $kb are the same unpatched $(base_field package) $(base_field version);"
fi
echo "each cell: median (min-max) n/N, n the runs that gave a value of N planned."
echo "ratio = $kb median / $ka median (of the REF row where named); ~ = the two"
echo "min-max ranges overlap, i.e. the difference is inside the noise."
echo
awk -v ka="$ka" -v kb="$kb" '
	function fmt(v) {
		if (v == int(v)) return sprintf("%.0f", v)
		if (v >= 100 || v <= -100) return sprintf("%.0f", v)
		return sprintf("%.4g", v)
	}
	FILENAME ~ /rows$/ { lab[++nr] = $1; run[$1] = $2; ref[$1] = $3; planned[$1] = $4; unit[$1] = $6; next }
	$3 == "value" { vals[$1, $2] = vals[$1, $2] " " $4; next }
	{ bad[$1, $2, $3]++ }
	function stats(k, l,    a, n, i, j, t) {
		n = split(vals[k, l], a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		cnt[k, l] = n
		if (!n) return
		med[k, l] = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		lo[k, l] = a[1]; hi[k, l] = a[n]
	}
	function cell(k, l) {
		if (cnt[k, l])
			return sprintf("%s (%s-%s) %d/%d", fmt(med[k, l]), fmt(lo[k, l]), fmt(hi[k, l]), cnt[k, l], planned[l])
		if (bad[k, l, "skip"]) return sprintf("skipped %d/%d", bad[k, l, "skip"], planned[l])
		return sprintf("n/a 0/%d", planned[l])
	}
	END {
		for (i = 1; i <= nr; i++) { stats(ka, lab[i]); stats(kb, lab[i]) }
		printf "%-24s %-18s %-9s %-30s %-30s %s\n", "row", "run", "unit", ka, kb, "ratio"
		for (i = 1; i <= nr; i++) {
			l = lab[i]
			r = (ref[l] == "-") ? l : ref[l]
			ratio = "n/a"
			if (cnt[kb, l] && cnt[ka, r] && med[ka, r] != 0) {
				ratio = sprintf("%.3g", med[kb, l] / med[ka, r])
				if (lo[kb, l] <= hi[ka, r] && lo[ka, r] <= hi[kb, l])
					ratio = ratio " ~"
				if (r != l)
					ratio = ratio " vs " r
			}
			extra = ""
			for (k = 1; k <= 2; k++) {
				kk = (k == 1) ? ka : kb
				for (s = 1; s <= 4; s++) {
					st = (s == 1) ? "fail" : (s == 2) ? "lost" : (s == 3) ? "dropped" : "novalue"
					if (bad[kk, l, st])
						extra = extra sprintf("; %s: %d %s", kk, bad[kk, l, st], st)
				}
			}
			printf "%-24s %-18s %-9s %-30s %-30s %s%s\n", l, run[l], unit[l], cell(ka, l), cell(kb, l), ratio, extra
		}
	}' "$out/rows" "$out/values"

# Runs that failed on their own (with their output), were lost with a
# boot, or were not run; then the boots whose kernel log has a splat.
problems() {
	local k r run j rep st why b
	for k in "$ka" "$kb"; do
		for r in "$out/$k"/*/*/runs; do
			[ -f "$r/results" ] || continue
			run=${r%/runs}
			run=${run#"$out/$k/"}
			while read -r j rep st why; do
				case $st in ok | skip) continue ;; esac
				echo "  $k $run $j run $rep: $st: $why"
				[ "$st" != fail ] || tail -n 12 "$r/out/$j.${rep%/*}" | sed 's/^/      /'
			done <"$r/results"
			for b in "$r"/boot*; do
				[ -s "$b/splats" ] || continue
				echo "  $k $run ${b##*/}: kernel splat in $b/console.log:"
				head -n 3 "$b/splats" | sed 's/^/      /'
			done
		done
	done
	awk '$3 == "novalue" { $1 = $1; print "  " $0 }' "$out/values"
}
p=$(problems)
[ -z "$p" ] || printf '\nRuns without a result, and kernel splats:\n%s\n' "$p"
