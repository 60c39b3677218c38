#!/usr/bin/env bash
# "make run": boot the built kernel once per architecture in ARCHES, run
# the short tour in tests/demo, and print a readable summary.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

read -ra arches <<<"$ARCHES"
runs=()
for a in "${arches[@]}"; do
	runs+=("$a/$("$TOP/scripts/plan.sh" variants "$a" | awk 'NR == 1 { print $1 }')")
done

log=$BUILD/demo.tap
rc=0
PLAN=$TOP/tests/demo RESULTS=$BUILD/demo "$TOP/scripts/run-tests.sh" "${runs[@]}" >"$log" || rc=$?

echo
echo "KVM series demonstration on $(git -C "$TREE" describe --always --tags 2>/dev/null || echo '?')" \
	"($(git -C "$TREE" rev-list --count base..HEAD) patches on $(base_field package) $(base_field version))"
echo
# Each result with the lines of its output worth reading.
awk '
	/^# (Testing|Allowed|Overall|Per-vCPU|ok [0-9]|not ok [0-9])/ { keep = keep "      " substr($0, 3) "\n"; next }
	/^# variant/ { print "  " substr($0, 3); next }
	/^ok |^not ok / {
		status = ($1 == "ok") ? "PASS" : "FAIL"
		if ($0 ~ /# SKIP/) status = "SKIP"
		name = ($1 == "ok") ? $3 : $4
		printf "  [%s] %s\n%s", status, name, keep
		keep = ""
	}' "$log"
echo
tail -n 1 "$log"
echo "(full TAP: $log; guest logs under $BUILD/demo)"
exit "$rc"
