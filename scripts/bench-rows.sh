#!/usr/bin/env bash
# Read the benchmark plan (tests/bench, format in scripts/bench.sh) and
# print the rows to run, one line each:
#   LABEL RUN REF RUNS KEY UNIT JOB COMMAND...
# JOB names the runs the row reads (the first of the rows that share them:
# same RUN and COMMAND, and both counting trace events or neither); RUNS
# is then the largest RUNS among those rows; COMMAND is what the guest
# runs, "trace=EVENTS COMMAND..." for rows that count trace events.
# Fails on a row whose RUN is not a variant (plan.sh variant) or whose REF
# is not a row, so "make check" catches a broken plan before a long run
# does.
#   bench-rows.sh SPEC [REGEX]   only the rows whose label matches REGEX,
#                                and the rows they compare with
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

spec=${1:?usage: bench-rows.sh SPEC [REGEX]}
re=${2:-}

while read -r run; do
	"$TOP/scripts/plan.sh" variant "${run%/*}" "${run#*/}" >/dev/null ||
		die "$spec: run $run is not ARCH/VARIANT of tests/variants"
done < <(awk '!/^#/ && NF >= 7 { print $2 }' "$spec" | sort -u)
awk -v re="$re" '
	function bad(msg) { print "bench-rows: " FILENAME ":" FNR ": " msg > "/dev/stderr"; err = 1 }
	/^#/ || NF == 0 { next }
	NF < 7 { bad("fewer than 7 columns"); next }
	{
		if ($4 !~ /^[1-9][0-9]*$/) bad("RUNS " $4 " is not a positive number")
		if ($1 in idx) bad("row " $1 " appears twice")
		n++
		lab[n] = $1; run[n] = $2; ref[n] = $3; reps[n] = $4; key[n] = $5; unit[n] = $6
		c = $7
		for (i = 8; i <= NF; i++)
			c = c " " $i
		cmd[n] = c
		idx[$1] = n
		want[n] = (re == "" || $1 ~ re)
	}
	END {
		for (i = 1; i <= n; i++)
			if (ref[i] != "-" && !(ref[i] in idx))
				{ print "bench-rows: " FILENAME ": row " lab[i] " compares with " ref[i] ", which is not a row" > "/dev/stderr"; err = 1 }
		if (err)
			exit 1
		for (i = 1; i <= n; i++)
			if (want[i] && ref[i] != "-")
				want[idx[ref[i]]] = 1
		for (i = 1; i <= n; i++) {
			if (!want[i])
				continue
			# The trace events the KEY counts ("A" or "A%B").
			m = split(key[i], part, "%")
			ev = ""
			for (p = 1; p <= m; p++)
				if (part[p] ~ /^trace\./)
					ev = ev "," substr(part[p], 7)
			j = run[i] SUBSEP cmd[i] SUBSEP (ev != "")
			if (!(j in job)) { job[j] = lab[i]; events[j] = "" }
			m = split(substr(ev, 2), part, ",")
			for (p = 1; p <= m; p++)
				if (index("," events[j] ",", "," part[p] ",") == 0)
					events[j] = events[j] (events[j] == "" ? "" : ",") part[p]
			if (reps[i] > jobreps[j])
				jobreps[j] = reps[i]
			jk[i] = j
		}
		for (i = 1; i <= n; i++) {
			if (!want[i])
				continue
			j = jk[i]
			c = (events[j] == "") ? cmd[i] : "trace=" events[j] " " cmd[i]
			print lab[i], run[i], ref[i], jobreps[j], key[i], unit[i], job[j], c
		}
	}' "$spec"
