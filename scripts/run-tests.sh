#!/usr/bin/env bash
# Run tests/plan, one guest boot per architecture and variant, and print
# one TAP stream ending in "N passed, N failed, N skipped".  Exits
# non-zero if anything failed.
#   run-tests.sh [ARCH | ARCH/VARIANT ...]   (default: every variant of
#                                             every architecture in ARCHES)
# Environment: KERNEL_<arch> (image of the allno kernel), KERNEL_<arch>_<kernel>
# (of another, e.g. KERNEL_x86_64_debian), SELFTESTS_<arch> (built selftests),
# PLAN, RESULTS (where logs go), DEBUG (the debug kernels, see lib.sh),
# KVM_SERIES_DEADLINE (a time in seconds
# since the epoch by which every boot must be over; .ci/run sets it so a
# stuck guest fails CI with its logs rather than running out CI's clock),
# KVM_SERIES_JOBS (how many single-threaded-TCG variants boot at once;
# default: the number of CPUs).  A multi-threaded-TCG variant boots alone.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

plan=${PLAN:-$TOP/tests/plan}
results=${RESULTS:-$BUILD/results${DEBUG:+-debug}}

# Expand the arguments to ARCH/VARIANT pairs.
if [ $# -eq 0 ]; then
	read -ra arches <<<"$ARCHES"
	set -- "${arches[@]}"
fi
runs=()
for a in "$@"; do
	if [[ $a == */* ]]; then
		runs+=("$a")
	else
		while read -r v _; do
			runs+=("$a/$v")
		done < <("$TOP/scripts/plan.sh" variants "$a")
	fi
done

# boot_limit SECONDS: SECONDS, or less if KVM_SERIES_DEADLINE comes sooner
# (keeping 60 s to report); fails if fewer than 120 s would be left.
boot_limit() {
	local left
	if [ -z "${KVM_SERIES_DEADLINE:-}" ]; then
		echo "$1"
		return
	fi
	left=$((KVM_SERIES_DEADLINE - $(date +%s) - 60))
	[ "$left" -ge 120 ] || return 1
	echo $((left < $1 ? left : $1))
}

n=0 passed=0 failed=0 skipped=0 todo=0
# Counted and numbered here, in the parent: a variant's boot runs in a
# child (run_variant) that says "@result ok|fail|skip|todo NAME [COMMENT]".
result() { # result ok|fail|skip|todo NAME [COMMENT]
	n=$((n + 1))
	case $1 in
	ok) passed=$((passed + 1)); echo "ok $n $2${3:+ # $3}" ;;
	skip) skipped=$((skipped + 1)); echo "ok $n $2 # SKIP ${3:-}" ;;
	# TAP's expected failure: reported, but not a failure of the run.
	todo) todo=$((todo + 1)); echo "not ok $n $2 # TODO ${3:-}" ;;
	*) failed=$((failed + 1)); echo "not ok $n $2${3:+ # $3}" ;;
	esac
}

# run_variant ARCH/VARIANT: boot one variant and print its report: comment
# lines, and an "@result" line per plan line and for the kernel log.
run_variant() {
	local run=$1 arch v svar flavour kernel selftests line args tcg out full
	local mods start try limit rc flaky noskip reported rest name comment
	local stuck why splats first
	arch=${run%/*}
	v=${run#*/}
	svar=SELFTESTS_$arch
	flavour=$("$TOP/scripts/plan.sh" kernel "$arch" "$v")
	kernel=$(kernel_image "$arch" "$flavour")
	selftests=${!svar:-$BUILD/selftests-$arch}
	[ -f "$kernel" ] || die "no kernel at $kernel: run 'make build' first"
	[ -d "$selftests" ] || die "no selftests in $selftests: run 'make build' first"
	line=$("$TOP/scripts/plan.sh" variant "$arch" "$v")
	read -ra args <<<"$line"
	tcg=${args[0]}
	# Module parameters go to the guest's insmod (mkinitramfs.sh), the
	# rest to the command line.
	read -ra args < <("$TOP/scripts/split-params.sh" cmdline "$(kernel_modroot "$kernel")" "${args[@]:1}")
	out=$results/$arch/$v
	mkdir -p "$out"
	"$TOP/scripts/plan.sh" lines "$arch" "$v" "$plan" >"$out/plan"
	"$TOP/scripts/mkinitramfs.sh" "$arch" "$v" "$selftests" "$out/initramfs.cpio" "$plan" "$kernel"
	# The boot gets every test's limit plus time to boot and power off.
	full=$(awk '{ s += $1 } END { print s + 180 }' "$out/plan")
	mods=
	[ -z "$(kernel_modroot "$kernel")" ] || mods=", modules from $(kernel_modroot "$kernel")"
	echo "# $arch/$v: $(wc -l <"$out/plan") tests, $flavour kernel, kernel args '${args[*]}'$mods, $tcg-threaded TCG, boot limit ${full}s"
	rm -rf "$out"/{tap,console,qemu,stall}.log "$out/try1"
	start=$(date +%s)
	for try in 1 2; do
		if ! limit=$(boot_limit "$full"); then
			echo "# $arch/$v: not booted, KVM_SERIES_DEADLINE is too close"
			rc=5
			break
		fi
		[ "$limit" = "$full" ] || echo "# $arch/$v: boot limit cut to ${limit}s by KVM_SERIES_DEADLINE"
		rc=0
		KVM_SERIES_TCG=${KVM_SERIES_TCG:-$tcg} "$TOP/scripts/run-guest.sh" "$arch" "$kernel" "$out/initramfs.cpio" "$out" \
			"$limit" "${args[@]}" "kvmtest.variant=$v" || rc=$?
		# Retry once when QEMU itself fell over, or lost an interrupt:
		# that is not the kernel's doing.  Nothing else is retried.
		if [ "$try" != 1 ] || { [ "$rc" != 2 ] && [ "$rc" != 6 ]; }; then
			break
		fi
		# The retry overwrites the logs: keep the first attempt's.
		mkdir -p "$out/try1"
		cp "$out"/*.log "$out/try1/"
		if [ "$rc" = 2 ]; then
			echo "# $arch/$v: QEMU failed (infrastructure, not the kernel); retrying once:"
			sed 's/^/#   /' "$out/qemu.log" | tail -n 12
		else
			echo "# $arch/$v: interrupt lost by QEMU (every vCPU idle; a task stuck in TASK_WAKING or an interrupt held back; docs/known-problems.md); retrying once:"
			sed 's/^/#   /' "$out/stall.log"
			tr -d '\r' <"$out/console.log" | grep -E -- '->state: 0x200 |kvm-series: test ' |
				tail -n 3 | sed 's/^/#   /'
		fi
	done
	echo "# $arch/$v: guest ran $(($(date +%s) - start))s; logs in $out"

	# Results the guest reported, renumbered into one stream.
	flaky=" $("$TOP/scripts/plan.sh" flaky "$arch" "$plan" | tr '\n' ' ')"
	noskip=" $("$TOP/scripts/plan.sh" noskip "$arch" "$TOP/tests/plan" | tr '\n' ' ')"
	# The guest runs the plan in order and numbers results by plan line.
	reported=0
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			rest=${line#ok }
			rest=${rest#not ok }
			reported=${rest%% *}
			rest=${rest#* }
			name=${rest%% *}
			comment=
			[[ $rest == *" # "* ]] && comment=${rest#* # }
			if [[ $line == "not ok"* && $flaky == *" ${name%%,*} "* &&
				$comment == exit=* ]]; then
				# Known to fail now and then on the base; a timeout
				# still fails the run.
				echo "@result todo $arch/$v/$name known flaky ($comment), see tests/plan"
			elif [[ $line == "not ok"* ]]; then
				echo "@result fail $arch/$v/$name $comment"
			elif [[ $comment == SKIP* && $noskip == *" ${name%%,*} "* ]]; then
				# The series' own tests must run on its kernel.
				echo "@result fail $arch/$v/$name skipped (${comment#SKIP }), but tests/plan says it must run on this kernel"
			elif [[ $comment == SKIP* ]]; then
				echo "@result skip $arch/$v/$name ${comment#SKIP }"
			else
				echo "@result ok $arch/$v/$name $comment"
			fi
			;;
		"# "*) echo "$line" ;;
		esac
	done < <([ ! -f "$out/tap.log" ] || tr -d '\r' <"$out/tap.log")

	# Tests the guest never reported: it crashed, hung or QEMU died.
	# A lost interrupt twice is a stall like any other, said as such.
	stuck="no result: the guest stalled in this test (see the stall report above)"
	[ "$rc" != 7 ] || stuck="no result: the guest reset itself in this test (see the console tail above)"
	if [ "$rc" = 6 ]; then
		rc=4
		stuck="no result: the guest stalled in this test, with the lost-interrupt signature twice"
	fi
	case $rc in
	0) why="not reported (guest stopped early, see console.log)" ;;
	2) why="not run: QEMU failed, an infrastructure failure (see qemu.log)" ;;
	4) why="not run: the guest stalled in an earlier test" ;;
	5) why="not run: time budget (KVM_SERIES_DEADLINE) spent" ;;
	7) why="not run: the guest reset itself in an earlier test (a panic or a triple fault; see the console tail)" ;;
	*) why="not run: guest timed out after ${limit}s" ;;
	esac
	if [ "$rc" = 3 ] || [ "$rc" = 4 ] || [ "$rc" = 7 ]; then
		# A CI log is all there may be: say where the guest was.
		[ ! -f "$out/stall.log" ] || sed 's/^/# stall: /' "$out/stall.log"
		# The console's last lines before the watchdog's SysRq, then
		# what SysRq w and t printed (every task and where it sleeps).
		if [ -f "$out/console.log" ]; then
			tr -d '\r' <"$out/console.log" | sed '/sysrq: Show Blocked State/,$d' |
				tail -n 40 | sed 's/^/# console tail: /'
			tr -d '\r' <"$out/console.log" | sed -n '/sysrq: Show Blocked State/,$p' |
				head -n 200 | sed 's/^/# sysrq: /'
		fi
	fi
	while read -r _ name _; do
		if { [ "$rc" = 4 ] || [ "$rc" = 7 ]; } && [ -n "$stuck" ]; then
			echo "@result fail $arch/$v/$name $stuck"
			stuck=
		else
			echo "@result fail $arch/$v/$name $why"
		fi
	done < <(tail -n +"$((reported + 1))" "$out/plan")

	if [ "$rc" = 5 ]; then
		return 0 # no boot, no kernel log
	elif [ "$rc" = 2 ]; then
		sed 's/^/# qemu: /' "$out/qemu.log" | tail -n 10
		echo "@result fail $arch/$v/qemu infrastructure: QEMU failed twice"
	elif splats=$("$TOP/scripts/check-splats.sh" "$out/console.log" 2>&1); then
		echo "@result ok $arch/$v/kernel-log no splats"
	else
		echo "$splats" | head -n 20 | sed 's/^/# splat: /'
		# The first one whole, so a CI log alone shows the call trace.
		first=$(echo "$splats" | head -n 1 | cut -d: -f1)
		sed -n "${first},$((first + 40))p" "$out/console.log" | sed 's/^/# console: /'
		echo "@result fail $arch/$v/kernel-log kernel splat, see $out/console.log"
	fi
}

# report FILE STATUS: print a variant's report, numbering its results; a
# child that died (STATUS != 0) fails the run with what it said.
report() {
	local kind name comment
	while IFS= read -r line; do
		if [[ $line == "@result "* ]]; then
			read -r _ kind name comment <<<"$line"
			result "$kind" "$name" "$comment"
		else
			echo "$line"
		fi
	done <"$1"
	[ "$2" = 0 ] || result fail "$(basename "$1")/runner" "the runner stopped (exit $2)"
}

reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
jobs=${KVM_SERIES_JOBS:-$(nproc)}
declare -A pool=() # child pid -> ARCH+VARIANT

reap() { # wait for one child of the pool and print its report
	local pid st=0
	wait -n -p pid "${!pool[@]}" || st=$?
	report "$reports/${pool[$pid]}" "$st"
	unset "pool[$pid]"
}

# launch ARCH/VARIANT: boot it in a child of the pool (errexit stays on in
# a background child, not in one whose status a "||" tests).
launch() {
	run_variant "$1" >"$reports/${1/\//+}" 2>&1 &
	pool[$!]=${1/\//+}
}

echo "TAP version 13"
for run in "${runs[@]}"; do
	tcg=$("$TOP/scripts/plan.sh" variant "${run%/*}" "${run#*/}" | awk '{ print $1 }')
	if [ "${KVM_SERIES_TCG:-$tcg}" = single ]; then
		while [ "${#pool[@]}" -ge "$jobs" ]; do
			reap
		done
		launch "$run"
	else
		# A multi-threaded guest uses every CPU: it boots alone.
		while [ "${#pool[@]}" -gt 0 ]; do
			reap
		done
		launch "$run"
		reap
	fi
done
while [ "${#pool[@]}" -gt 0 ]; do
	reap
done
echo "1..$n"
[ "$todo" = 0 ] || echo "# $todo known-flaky failures marked TODO (tests/plan, flaky lines)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
