#!/usr/bin/env bash
# "make run": boot the patched kernel in each variant tests/demo names (for
# the architectures in ARCHES), run that tour, and print each topic's
# headline number, read from the tests' own output, with PASS or FAIL.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# One boot per ARCH/VARIANT that tests/demo names, for the arches in ARCHES.
read -ra arches <<<"$ARCHES"
runs=()
for a in "${arches[@]}"; do
	mapfile -t -O ${#runs[@]} runs < <(awk -v a="$a" '$1 == "run" && $2 == a && !seen[$3]++ { print a "/" $3 }' "$TOP/tests/demo")
done

log=$BUILD/demo.tap
rc=0
PLAN=$TOP/tests/demo RESULTS=$BUILD/demo "$TOP/scripts/run-tests.sh" "${runs[@]}" >"$log" || rc=$?

echo
echo "KVM series tour: $(tree_commits "$TREE" | wc -l) patches in $(series_topics | wc -l) topics" \
	"on $(base_field package) $(base_field version), under QEMU TCG"
echo "(one run each, nested virtualization under emulation: rates are ~1000x below hardware and vary by"
echo " tens of percent from run to run; compare within a line, and see make bench for medians and spreads)"
# One line per result: the topic, what it shows, PASS or FAIL.  A result
# fails if its test failed or its headline contradicts the feature.
awk '
	function line(status, topic, text) {
		printf "  [%s] %-13s %s\n", status, topic, text
	}
	function num(s) { sub(/^[^0-9]*/, "", s); return s + 0 }
	/^# [a-z0-9_]+\/[a-z0-9-]+: [0-9]+ tests/ { v = $2; sub(/:$/, "", v); print v; uffd = ""; next }
	/^# Overall demand paging rate:/ { rate = num($0) }
	/^# ok [0-9]+ / { subtests++ }
	/expect only that slot zapped/ { want = "slot"; next }
	/expect all slots zapped/ { want = "all"; next }
	/faults touching the [0-9]+ other slots/ {
		# "#     deletion: 1 shadow pages zapped; 0 faults touching the 3 other slots ..."
		s = $0; sub(/ faults touching.*/, "", s); sub(/.* /, "", s); f = s + 0
		o = $0; sub(/.*faults touching the /, "", o); sub(/ other slots.*/, "", o)
		if (want == "slot" && slot == "") { slot = f; others = o }
		if (want == "all" && all == "") all = f
	}
	/^# trace kvm\/kvm_fast_mmio: / { fast = $NF }
	/^# trace kvm\/kvm_emulate_insn: / { emul = $NF }
	/^# mmio-len0 kick: / { cycles = $4 }
	/^# unmaps: / { unmaps = $NF }
	/^# flushes: / { flushes = $NF }
	/^ok |^not ok / {
		ok = ($1 == "ok" && $0 !~ /# SKIP/)
		st = ok ? "PASS" : ($0 ~ /# SKIP/ ? "SKIP" : "FAIL")
		name = ($1 == "ok") ? $3 : $4
		if (name ~ /demand_paging_test/ && name ~ /,-w/) {
			text = sprintf("post-copy paging, vCPUs exit and resolve their own faults: %d pages/s", rate)
			if (uffd > 0)
				text = text sprintf(" (%.2fx userfaultfd)", rate / uffd)
			line(st, "memory-fault", text)
		} else if (name ~ /demand_paging_test/) {
			uffd = ok ? rate : ""
			line(st, "memory-fault", sprintf("post-copy paging through userfaultfd (6.1 today): %d pages/s", rate))
		} else if (name ~ /memory_fault_test/) {
			line(st, "memory-fault", sprintf("memory_fault_test: %d checks of exits, errnos and guest data", subtests))
		} else if (name ~ /memslot_zap_test/) {
			if (ok && slot != 0) st = "FAIL"
			line(st, "memslot-zap", sprintf("after deleting one memslot, faults in the %s others: %s (zap-all: %s)", others, slot, all))
		} else if (name ~ /mmio_ioeventfd_test/) {
			# Each kick served after the decode is decoded too.
			if (ok && !(fast > 0 && 10 * fast >= 9 * emul)) st = "FAIL"
			line(st, "fast-mmio", sprintf("virtio-style MMIO kicks signalled without executing the store: %s of %s decoded, %s cycles each", fast, emul, cycles))
		} else if (name ~ /numa_protect_test/) {
			if (ok && unmaps != 0) st = "FAIL"
			text = sprintf("NUMA balancing unmapped pinned guest memory %s times", unmaps)
			if (name ~ /^x86_64/) text = text sprintf(", remote TLB flushes: %s", flushes)
			line(st, "numa-hinting", text)
		} else if (name ~ /set_memory_region_test/) {
			line(st, "fixes", "page-table memslot deleted while an exception is injected: no WARN (shadow paging)")
		} else if (name ~ /kernel-log/) {
			line(st, "kernel", "no kernel splat during the tour")
		} else {
			line(st, "-", name)
		}
		rate = ""; subtests = 0; want = ""; slot = ""; all = ""
		fast = ""; emul = ""; cycles = ""; unmaps = ""; flushes = ""
		if (st == "FAIL") failed = 1
	}
	END { exit failed }' "$log" || rc=1
echo
tail -n 1 "$log"
echo "(full TAP: $log; guest logs under $BUILD/demo)"
exit "$rc"
