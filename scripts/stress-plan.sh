#!/usr/bin/env bash
# Print a plan (tests/plan's format) that repeats the load under which an
# outer kernel once printed "BUG: Bad rss-counter state"
# (docs/known-problems.md): abi_exerciser_test over SEEDS seeds, and after
# every tenth seed memory_fault_test and two numa_protect_test working sets
# (shmem and THP), all in the single-threaded TCG variants VARIANTS.  SEEDS
# is a count (seeds 1 to SEEDS) or a range FIRST-LAST.  Run it on the
# DEBUG=1 kernels, patched and base:
#   scripts/stress-plan.sh [-u] SEEDS [VARIANTS] >plan
#   DEBUG=1 PLAN=plan KERNEL_x86_64=... scripts/run-tests.sh x86_64/legacy-1thread
# -u: for the unpatched base kernel (abi_exerciser_test -u; memory_fault_test
# then skips, as the base lacks its capability).
set -euo pipefail

u=
if [ "${1:-}" = -u ]; then
	u=" -u"
	shift
fi
seeds=${1:?usage: stress-plan.sh [-u] SEEDS|FIRST-LAST [VARIANTS]}
variants=${2:-tdp-1thread,legacy-1thread}
first=1
last=$seeds
if [[ $seeds == *-* ]]; then
	first=${seeds%-*}
	last=${seeds#*-}
fi

# numa_protect_test changes no host setting: the guest sets NUMA
# balancing's for its lines (set=, guest-init.sh), as tests/plan does.
numa=set=/proc/sys/kernel/numa_balancing=1
for k in scan_period_min_ms=100 scan_period_max_ms=400 scan_size_mb=1024; do
	numa=$numa,/sys/kernel/debug/sched/numa_balancing/$k
done

for ((s = first; s <= last; s++)); do
	echo "run  x86_64 $variants 300 abi_exerciser_test$u -s $s -i 500"
	if ((s % 10 == 0)); then
		echo "run  x86_64 $variants 300 memory_fault_test"
		echo "run  x86_64 $variants 300 $numa numa_protect_test -b mixed -t 5 -s shmem"
		echo "run  x86_64 $variants 300 $numa numa_protect_test -b idle -t 5 -s anonymous_thp"
	fi
done
