#!/usr/bin/env bash
# Read tests/plan.
#   plan.sh lines ARCH VARIANT [PLAN]  the tests to run, as
#                                      "TIMEOUT NAME COMMAND ARGS..."
#                                      (TIMEOUT times DEBUG_SLOWDOWN
#                                      with DEBUG=1, see lib.sh)
#   plan.sh variants ARCH              "NAME KERNEL TCG PARAMS..." per
#                                      variant
#   plan.sh variant ARCH NAME          "TCG [PARAMS...]" of one variant
#                                      ("-" dropped); fails if there is
#                                      no such variant
#   plan.sh kernel ARCH NAME           the kernel (lib.sh, KFLAVOURS) that
#                                      variant boots
#   plan.sh kernels ARCH               the kernels ARCH's variants boot
#   plan.sh flaky ARCH [PLAN]          the tests whose failures (not
#                                      timeouts) are reported as TODO
#   plan.sh noskip ARCH [PLAN]         the tests whose skips fail the run
#   plan.sh built ARCH                 the selftests the tree builds for ARCH
#   plan.sh audit ARCH [PLAN]
#                                      every built selftest must be run or
#                                      omitted (with a reason) by the plan
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

cmd=${1:?usage: plan.sh lines|variants|audit ...}
arch=${2:?}

case $cmd in
lines)
	variant=${3:?}
	plan=${4:-$TOP/tests/plan}
	# "all" leaves out the extra variants (single-threaded TCG, or a
	# kernel other than allno).
	extra=$(awk -v arch="$arch" -v v="$variant" \
		'$1 == arch && $2 == v && ($3 != "allno" || $4 == "single") { print 1 }' \
		"$TOP/tests/variants")
	awk -v arch="$arch" -v variant="$variant" -v extra="${extra:-0}" \
		-v slow="${DEBUG:+$DEBUG_SLOWDOWN}" '
		$1 == "run" && $2 == arch {
			n = split($3, v, ",")
			hit = 0
			for (i = 1; i <= n; i++)
				if ((v[i] == "all" && !extra) || v[i] == variant)
					hit = 1
			if (!hit)
				next
			# The name leaves out the prefixes set=, trace= and hold=.
			for (f = 5; f < NF && $f ~ /^(set|trace|hold)=/; f++)
				;
			name = $f
			for (i = f + 1; i <= NF; i++)
				name = name "," $i
			line = (slow ? $4 * slow : $4) " " name
			for (i = 5; i <= NF; i++)
				line = line " " $i
			print line
		}' "$plan"
	;;
flaky)
	plan=${3:-$TOP/tests/plan}
	awk -v arch="$arch" '$1 == "flaky" && $2 == arch { print $3 }' "$plan"
	;;
noskip)
	plan=${3:-$TOP/tests/plan}
	awk -v arch="$arch" '$1 == "noskip" && $2 == arch { print $3 }' "$plan"
	;;
variants)
	awk -v arch="$arch" '$1 == arch { $1 = ""; sub(/^ /, ""); print }' \
		"$TOP/tests/variants"
	;;
variant)
	name=${3:?}
	awk -v arch="$arch" -v v="$name" '
		$1 == arch && $2 == v {
			line = $4
			if ($5 != "-")
				for (i = 5; i <= NF; i++)
					line = line " " $i
			print line
			found = 1
		}
		END { exit !found }' "$TOP/tests/variants" ||
		die "no variant '$name' for $arch in tests/variants"
	;;
kernel)
	name=${3:?}
	awk -v arch="$arch" -v v="$name" '
		$1 == arch && $2 == v { print $3; found = 1 }
		END { exit !found }' "$TOP/tests/variants" ||
		die "no variant '$name' for $arch in tests/variants"
	;;
kernels)
	awk -v arch="$arch" '$1 == arch && !seen[$3]++ { print $3 }' "$TOP/tests/variants"
	;;
built)
	# The selftests the tree's Makefile builds for ARCH.  The Makefile
	# creates directories below OUTPUT as it is read, so use a scratch one.
	scratch=$(mktemp -d)
	# shellcheck disable=SC2016 # make expands this, not the shell
	make -s -C "$TREE/tools/testing/selftests/kvm" ARCH="$arch" \
		OUTPUT="$scratch" \
		--eval='print-tests: ; @echo $(TEST_GEN_PROGS:$(OUTPUT)/%=%)' \
		print-tests | tr ' ' '\n' | grep .
	rm -rf "$scratch"
	;;
audit)
	plan=${3:-$TOP/tests/plan}
	bad=0
	while read -r t; do
		if ! awk -v arch="$arch" -v t="$t" '
			$1 == "run" { for (f = 5; f < NF && $f ~ /^(set|trace|hold)=/; f++) ; }
			($1 == "run" && $2 == arch && $f == t) ||
			($1 == "omit" && $2 == arch && $3 == t) { found = 1 }
			END { exit !found }' "$plan"; then
			echo "plan: $arch selftest $t is neither run nor omitted" >&2
			bad=1
		fi
	done < <("$TOP/scripts/plan.sh" built "$arch")
	# A flaky or noskip line names a test that is also run, with its reason.
	for kind in flaky noskip; do
		while read -r t; do
			if ! awk -v arch="$arch" -v t="$t" -v kind="$kind" '
				$1 == "run" { for (f = 5; f < NF && $f ~ /^(set|trace|hold)=/; f++) ; }
				$1 == "run" && $2 == arch && $f == t { found = 1 }
				$1 == kind && $2 == arch && $3 == t && NF < 4 { found = 0; exit }
				END { exit !found }' "$plan"; then
				echo "plan: $arch $kind test $t has no run line or no reason" >&2
				bad=1
			fi
		done < <("$TOP/scripts/plan.sh" "$kind" "$arch" "$plan")
	done
	[ "$bad" = 0 ] || die "tests/plan does not account for every $arch selftest"
	;;
*)
	die "unknown command $cmd"
	;;
esac
