#!/usr/bin/env bash
# Series hygiene: the series file matches patches/ and its topic folders,
# every patch is signed off by the project identity, applies in order on
# the base (make tree), and is "checkpatch.pl --strict" clean except for
# the excuses listed in patches/checkpatch-excuses; every topic applies
# and builds alone on the base plus the topics it requires
# (build-topics.sh tips); the tooling is shellcheck-clean, every make
# target the README names exists, tests/plan accounts for every
# selftest of each architecture, and tests/bench parses and runs only
# selftests the tree builds.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

fail=0
bad() {
	echo "check: $*" >&2
	fail=1
}

cd "$TOP/patches"
[ -f series ] || die "patches/series is missing"
while read -r p; do
	[[ $p == */[0-9][0-9][0-9][0-9]-*.patch ]] || bad "series line '$p' is not TOPIC/NNNN-*.patch"
	[ -f "$p" ] || bad "series names $p, which is not in patches/"
done <series
for p in */[0-9]*.patch; do
	[[ $p == */0000-cover-letter.patch ]] && continue
	grep -qx "$p" series || bad "$p is not listed in patches/series"
	grep -q "^Signed-off-by: $SERIES_NAME <$SERIES_EMAIL>$" "$p" ||
		bad "$p lacks 'Signed-off-by: $SERIES_NAME <$SERIES_EMAIL>'"
done
# Each topic: its patches together in the series, numbered from 1, a
# cover letter, and requirements that are topics listed before it.
seen=()
while read -r t; do
	[ "$(grep -n "^$t/" series | cut -d: -f1 | awk 'NR > 1 && $1 != prev + 1 { print "gap" } { prev = $1 }')" = "" ] ||
		bad "topic $t's patches are not together in patches/series"
	[ "$(topic_patches "$t" | sed 's,.*/\([0-9]*\)-.*,\1,' | paste -sd' ')" = \
		"$(seq -f %04g "$(topic_patches "$t" | wc -l)" | paste -sd' ')" ] ||
		bad "topic $t's patches are not numbered 0001 onwards"
	[ -f "$t/0000-cover-letter.patch" ] && [ -f "$t/cover-letter.txt" ] ||
		bad "topic $t lacks its cover letter (cover-letter.txt, and make export's 0000-cover-letter.patch)"
	if [ -f "$t/requires" ]; then
		while read -r r; do
			printf '%s\n' "${seen[@]}" | grep -qx -- "$r" ||
				bad "topic $t requires '$r', which is not a topic before it in patches/series"
		done < <(topic_requires "$t")
	else
		bad "topic $t lacks patches/$t/requires"
	fi
	seen+=("$t")
done < <(series_topics)

# Every patch applies, in order, on the pinned base.
"$TOP/scripts/tree.sh" || fail=1

# Whether Debian has moved on: a newer linux-source than BASE pins is a
# security or stable update the series should be rebased onto.  Said, not
# failed: the pinned version still builds and is still served.
pkg=$(base_field package)
pinned=$(base_field version)
served=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^  Candidate: //p')
if [ -n "$served" ] && [ "$served" != "(none)" ] &&
	dpkg --compare-versions "$served" gt "$pinned"; then
	echo "check: NOTE: the archive serves $pkg $served, newer than BASE's $pinned; move BASE (docs/tooling.md, \"Base tree\")" >&2
else
	note "BASE pins $pkg $pinned, the newest the archive serves"
fi

# checkpatch --strict, with the excused message types per patch.
excuses=$TOP/patches/checkpatch-excuses
while read -r p; do
	ignore=$(awk -v p="$p" '$1 == p { printf "%s,", $2 }' "$excuses" 2>/dev/null)
	# /usr/bin first: checkpatch runs spdxcheck.py with Debian's python3-ply.
	if ! out=$(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --quiet --show-types \
		${ignore:+--ignore "$ignore"} "$TOP/patches/$p"); then
		echo "$out" >&2
		bad "checkpatch --strict complains about $p"
	fi
done <series

# The tooling.
(cd "$TOP" && shellcheck -x scripts/*.sh .ci/run) || bad "shellcheck found problems in scripts/"

# Every "make TARGET" the README shows (in `code` or an indented command
# line) is a target of the Makefile, so the front door and its
# documentation cannot drift apart.
# ("make -q" exits non-zero by design: it asks whether ":" is up to date.)
targets=$({ make -C "$TOP" -pRrq : 2>/dev/null || true; } |
	awk -F: '/^[a-z][a-z_-]*:/ { print $1 }' | sort -u)
while read -r t; do
	grep -qx "$t" <<<"$targets" || bad "README.md names 'make $t', which the Makefile lacks"
done < <(grep -oE '(`|^    )make [a-z][a-z_-]*' "$TOP/README.md" | awk '{ print $2 }' | sort -u)

for arch in $ARCHES; do
	"$TOP/scripts/plan.sh" audit "$arch" || fail=1
done

# The mutation gate's catalog still applies to the tree and names patches
# and plan lines that exist (make mutants runs it).
"$TOP/scripts/mutants.sh" check || fail=1

# The benchmark plan parses (bench-rows.sh checks its variants and
# references) and runs only selftests the tree builds.
if rows=$("$TOP/scripts/bench-rows.sh" "$TOP/tests/bench"); then
	declare -A built=()
	while read -r arch cmd; do
		[ -n "${built[$arch]:-}" ] || built[$arch]=$("$TOP/scripts/plan.sh" built "$arch")
		grep -qx "$cmd" <<<"${built[$arch]}" ||
			bad "tests/bench runs $cmd, which the tree does not build for $arch"
	done < <(awk '{ sub(/\/.*/, "", $2); for (f = 8; f < NF && $f ~ /^(set|trace|hold)=/; f++) ; print $2, $f }' <<<"$rows" | sort -u)
else
	bad "tests/bench does not parse"
fi

# Each topic alone, on the base and what it requires (the kernels and
# selftests of every architecture; trees that built before are skipped).
if [ "$fail" = 0 ]; then
	"$TOP/scripts/build-topics.sh" tips || fail=1
fi

[ "$fail" = 0 ] || die "series checks failed"
note "series checks passed: $(wc -l <series) patches"
