#!/usr/bin/env bash
# A reproducer, not part of "make test": boot the x86_64 test guest again
# and again running tests/repro/wakeup_stress until MINUTES of guest time
# are spent, and count late wakeups and freezes (docs/known-problems.md).
#   wakeup-stress.sh OUTDIR MINUTES SELFTESTS KERNEL VARIANT [STRESS ARGS...]
# SELFTESTS is a selftests output directory holding a wakeup_stress binary
# (tests/repro/wakeup_stress.c says how to build one); VARIANT names a line
# of tests/variants (its TCG mode and kernel command line).  The QEMU used
# is the first qemu-system-x86_64 in PATH.  Each boot's logs stay in
# OUTDIR/boot-N; the last line is the summary.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

out=${1:?usage: wakeup-stress.sh OUTDIR MINUTES SELFTESTS KERNEL VARIANT [ARGS...]}
minutes=${2:?}
selftests=${3:?}
kernel=${4:?}
variant=${5:?}
shift 5
per_boot=${PER_BOOT:-600}

read -ra args < <("$TOP/scripts/plan.sh" variants x86_64 |
	awk -v v="$variant" '$1 == v { $1 = ""; print }')
[ ${#args[@]} -gt 1 ] || die "no variant '$variant' for x86_64 in tests/variants"
tcg=${args[0]}
args=("${args[@]:1}")
[ "${args[*]}" != "-" ] || args=()

mkdir -p "$out"
used=0 boot=0 late=0 freezes=0 failed=0
while [ "$used" -lt $((minutes * 60)) ]; do
	boot=$((boot + 1))
	d=$((minutes * 60 - used))
	[ "$d" -le "$per_boot" ] || d=$per_boot
	[ "$d" -ge 60 ] || d=60
	dir=$out/boot-$boot
	mkdir -p "$dir"
	echo "run x86_64 $variant $((d + 60)) wakeup_stress -d $d $*" >"$dir/plan.in"
	"$TOP/scripts/plan.sh" lines x86_64 "$variant" "$dir/plan.in" >"$dir/plan"
	[ -s "$dir/plan" ] || die "plan.sh made no test of $dir/plan.in"
	"$TOP/scripts/mkinitramfs.sh" x86_64 "$variant" "$selftests" "$dir/initramfs.cpio" "$dir/plan.in"
	start=$(date +%s)
	rc=0
	GRACE=60 KVM_SERIES_TCG=$tcg "$TOP/scripts/run-guest.sh" x86_64 "$kernel" \
		"$dir/initramfs.cpio" "$dir" $((d + 300)) "${args[@]}" \
		"kvmtest.variant=$variant" || rc=$?
	secs=$(($(date +%s) - start))
	used=$((used + secs))
	n=$(tr -d '\r' <"$dir/console.log" | grep -c 'wakeup_stress: late wakeup' || true)
	late=$((late + n))
	last=$(tr -d '\r' <"$dir/console.log" | grep -o 'wakeup_stress: [0-9]*s CPU 1.*' | tail -n 1 || true)
	case $rc in
	0) if grep -q '^ok 1 ' "$dir/tap.log"; then
		what=clean
	elif [ "$n" -gt 0 ]; then
		what="late wakeups"
	else
		what=failed failed=$((failed + 1))
	fi ;;
	4 | 6) what="froze (run-guest.sh rc $rc)"; freezes=$((freezes + 1)) ;;
	*) what="rc $rc"; failed=$((failed + 1)) ;;
	esac
	echo "boot $boot: ${secs}s, $n late wakeups, $what; last report: ${last#wakeup_stress: }"
done
echo "summary: $variant, $tcg-threaded TCG, $(qemu-system-x86_64 --version | head -n 1 | cut -c1-60)," \
	"kernel $kernel, args '$*': $boot boots, $((used / 60)) min, $late late wakeups, $freezes freezes, $failed other failures"
