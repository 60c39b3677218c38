#!/usr/bin/env bash
# Run one kernel's share of "make bench" in one ARCH/VARIANT: boot a guest
# with every run of RUNLIST, in order, and when a boot dies (QEMU failed,
# the guest reset itself, stalled or ran out of time) charge the run it
# died in and boot again from the next run, so a dead boot costs one run,
# not the table.
#   bench-runs.sh KERNEL_NAME KERNEL_IMAGE ARCH/VARIANT RUNLIST OUTDIR
# RUNLIST lines: JOB REP/N COMMAND [ARGS...]
# Writes OUTDIR/results, a line per run: "JOB REP/N STATUS [WHY]", STATUS
#   ok       the run passed; its output is OUTDIR/out/JOB.REP
#   skip     the test skipped (the kernel lacks what it measures)
#   fail     the test failed on its own (output as for ok)
#            (a kernel splat while it ran counts as its own failure)
#   lost     a boot died during the run for the runner's infrastructure
#            reasons: QEMU failed, the guest reset itself or stalled
#            with an interrupt lost by QEMU (docs/known-problems.md)
#   dropped  not run: MAX_LOST runs of its job had killed their boots,
#            MAX_DEAD boots died, or two boots in a row died before
#            their first run
# and keeps each boot's logs in OUTDIR/bootN/.  Progress goes to stderr.
# Environment: SELFTESTS_<arch>, RUN_LIMIT (seconds per run, default 300,
# times DEBUG_SLOWDOWN with DEBUG=1), MAX_LOST (3), MAX_DEAD (8).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: bench-runs.sh NAME KERNEL ARCH/VARIANT RUNLIST OUTDIR}
kernel=${2:?}
run=${3:?}
runlist=${4:?}
out=${5:?}
arch=${run%/*}
variant=${run#*/}
svar=SELFTESTS_$arch
selftests=${!svar:-$BUILD/selftests-$arch}
limit=${RUN_LIMIT:-300}
MAX_LOST=${MAX_LOST:-3}
MAX_DEAD=${MAX_DEAD:-8}

line=$("$TOP/scripts/plan.sh" variant "$arch" "$variant")
read -r tcg args <<<"$line"
# Module parameters go to the guest's insmod (mkinitramfs.sh).
# shellcheck disable=SC2086 # the variant's parameters are words
args=$("$TOP/scripts/split-params.sh" cmdline "$(kernel_modroot "$kernel")" $args)

rm -rf "$out"
mkdir -p "$out/out"
: >"$out/results"
cp "$runlist" "$out/pending"
total=$(wc -l <"$runlist")

# progress TAP_LOG SEEN: print a line for each result after the first SEEN
# of TAP_LOG; prints the new count of results.
progress() {
	local seen=$2 line i job rep
	while IFS= read -r line; do
		i=${line#not }
		i=${i#ok }
		i=${i%% *}
		[ "$i" -gt "$seen" ] || continue
		read -r job rep _ < <(sed -n "${i}p" "$out/pending")
		case $line in
		*"# SKIP"*) st=skipped ;;
		"not ok"*) st=FAILED ;;
		*) st=ok ;;
		esac
		echo "bench: $name $run [$(($(wc -l <"$out/results") + i))/$total] $job run $rep: $st, ${line#*# }" >&2
		seen=$i
	done < <(tr -d '\r' <"$1" 2>/dev/null | grep -E '^(not )?ok [0-9]+ ')
	echo "$seen"
}

# Why a boot ended early, from run-guest.sh's exit status: "lost WHY"
# for the infrastructure's signatures, "fail WHY" for the rest.
why_dead() {
	case $1 in
	2) echo "lost QEMU failed (infrastructure)" ;;
	6) echo "lost the guest stalled: an interrupt lost by QEMU (infrastructure)" ;;
	7) echo "lost the guest reset itself, no splat in its log (docs/known-problems.md)" ;;
	0) echo "fail the guest stopped early" ;;
	3) echo "fail the boot ran out of time" ;;
	4) echo "fail the guest stalled" ;;
	*) echo "fail run-guest.sh exited $1" ;;
	esac
}

declare -A killed=()
boot=0 dead=0 early=0
while [ -s "$out/pending" ]; do
	boot=$((boot + 1))
	b=$out/boot$boot
	mkdir -p "$b"
	# The runs in tests/plan's format; plan.sh turns them into the
	# guest's "LIMIT NAME COMMAND" lines, which watch-guest.sh reads too.
	awk -v a="$arch" -v v="$variant" -v t="$limit" '
		{ $1 = ""; $2 = ""; sub(/^ +/, ""); print "run", a, v, t, $0 }' \
		"$out/pending" >"$b/plan.src"
	"$TOP/scripts/plan.sh" lines "$arch" "$variant" "$b/plan.src" >"$b/plan"
	"$TOP/scripts/mkinitramfs.sh" "$arch" "$variant" "$selftests" "$b/initramfs.cpio" "$b/plan.src" "$kernel"
	n=$(wc -l <"$out/pending")
	full=$(awk '{ s += $1 } END { print s + 180 }' "$b/plan")
	echo "bench: $name $run: boot $boot, $n runs, $tcg-threaded TCG, kernel args '$args'" >&2
	rc=0
	# shellcheck disable=SC2086 # the variant's kernel arguments are words
	KVM_SERIES_TCG=${KVM_SERIES_TCG:-$tcg} "$TOP/scripts/run-guest.sh" "$arch" "$kernel" \
		"$b/initramfs.cpio" "$b" "$full" $args "kvmtest.variant=$variant" &
	pid=$!
	seen=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		seen=$(progress "$b/tap.log" "$seen")
	done
	wait "$pid" || rc=$?
	# QEMU may die before it opens the file.
	[ -e "$b/tap.log" ] || : >"$b/tap.log"
	seen=$(progress "$b/tap.log" "$seen")

	# Each reported result, with the output lines before it (from the
	# last result, the plan header or a retry after QEMU's state leak,
	# whose first run's output is not this run's).
	tr -d '\r' <"$b/tap.log" | awk -v pending="$out/pending" -v dir="$out/out" '
		BEGIN { while ((getline l < pending) > 0) { split(l, f, " "); job[++n] = f[1]; rep[n] = f[2] } }
		/^1\.\.[0-9]+$/ || /^# test [0-9]+ .*: retrying once/ { block = ""; next }
		/^# / { block = block $0 "\n"; next }
		/^(not )?ok [0-9]+ / {
			i = ($1 == "ok") ? $2 : $3
			r = rep[i]
			sub(/\/.*/, "", r)
			file = dir "/" job[i] "." r
			printf "%s", block > file
			close(file)
			block = ""
			st = "ok"
			why = ""
			if ($0 ~ /# SKIP/) { st = "skip"; why = $0; sub(/.*# SKIP */, "", why) }
			else if ($1 == "not") { st = "fail"; why = $0; sub(/.*# */, "", why) }
			print job[i], rep[i], st, why
		}' >>"$out/results"
	reported=$(tr -d '\r' <"$b/tap.log" | grep -cE '^(not )?ok [0-9]+ ' || true)
	[ "$reported" -lt "$n" ] || break

	# The boot died.  Charge the run it died in, if that run had started:
	# as lost for the infrastructure's signatures, as failed for the rest
	# and for a kernel splat while it ran (a panic resets the guest too).
	dead=$((dead + 1))
	read -r st why < <(why_dead "$rc")
	next=$((reported + 1))
	if tr -d '\r' <"$b/console.log" | grep -q "kvm-series: test $next "; then
		early=0
		splat=$("$TOP/scripts/check-splats.sh" "$b/console.log" 2>&1 |
			grep -m1 "(during test $next " || true)
		[ -z "$splat" ] || st=fail why="kernel splat: ${splat#*:}"
		read -r job rep _ < <(sed -n "${next}p" "$out/pending")
		echo "$job $rep $st $why (logs: $b)" >>"$out/results"
		killed[$job]=$((${killed[$job]:-0} + 1))
		echo "bench: $name $run: boot $boot died in $job run $rep: $why; logs in $b" >&2
		next=$((next + 1))
	else
		early=$((early + 1))
		echo "bench: $name $run: boot $boot died before its run $next started: $why; logs in $b" >&2
	fi
	tail -n +"$next" "$out/pending" >"$b/rest"
	: >"$out/pending"
	while read -r job rep cmd; do
		if [ "$dead" -ge "$MAX_DEAD" ]; then
			echo "$job $rep dropped $dead boots died" >>"$out/results"
		elif [ "$early" -ge 2 ]; then
			echo "$job $rep dropped two boots in a row died before their first run" >>"$out/results"
		elif [ "${killed[$job]:-0}" -ge "$MAX_LOST" ]; then
			echo "$job $rep dropped ${killed[$job]} of its runs killed their boots" >>"$out/results"
		else
			echo "$job $rep $cmd" >>"$out/pending"
		fi
	done <"$b/rest"
done

# Splats in any boot's kernel log are reported with the table.
for b in "$out"/boot*; do
	"$TOP/scripts/check-splats.sh" "$b/console.log" 2>"$b/splats" || true
done
echo "bench: $name $run: $(awk '$3 == "ok"' "$out/results" | wc -l) of $total runs passed in $boot boot(s)" >&2
