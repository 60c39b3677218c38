#!/usr/bin/env bash
# Make the test guest's initramfs: static busybox, scripts/guest-init.sh as
# /init, the selftest binaries that tests/plan runs for ARCH and VARIANT,
# and /plan with one "TIMEOUT NAME COMMAND ARGS" line per test.
#   mkinitramfs.sh ARCH VARIANT SELFTEST_DIR OUT.cpio [PLAN]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: mkinitramfs.sh ARCH VARIANT SELFTEST_DIR OUT [PLAN]}
variant=${2:?}
tests=${3:?}
out=${4:?}
plan=${5:-$TOP/tests/plan}

busybox=$("$TOP/scripts/get-busybox.sh" "$arch")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,kvm,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
cp "$TOP/scripts/guest-init.sh" "$root/init"

"$TOP/scripts/plan.sh" lines "$arch" "$variant" "$plan" >"$root/plan"
while read -r _ _ cmd rest; do
	# "trace=EVENTS COMMAND...": guest-init.sh counts EVENTS around COMMAND.
	[[ $cmd != trace=* ]] || cmd=${rest%% *}
	[ -x "$tests/$cmd" ] || die "$cmd is in the plan but not built in $tests"
	mkdir -p "$root/kvm/$(dirname "$cmd")"
	cp -u "$tests/$cmd" "$root/kvm/$cmd"
done <"$root/plan"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
