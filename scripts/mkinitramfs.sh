#!/usr/bin/env bash
# Make the test guest's initramfs: static busybox, scripts/guest-init.sh as
# /init, the selftest binaries that tests/plan runs for ARCH and VARIANT,
# and /plan with one "TIMEOUT NAME COMMAND ARGS" line per test.
#   mkinitramfs.sh ARCH VARIANT SELFTEST_DIR OUT.cpio [PLAN [KERNEL_IMAGE]]
# For a kernel with modules (lib.sh, kernel_modroot), the modules the guest
# loads (guest_modules) and what they depend on, and /modules, one
# "PATH [PARAM=VALUE...]" line each in load order, with the variant's
# parameters for that module (split-params.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: mkinitramfs.sh ARCH VARIANT SELFTEST_DIR OUT [PLAN [KERNEL_IMAGE]]}
variant=${2:?}
tests=${3:?}
out=${4:?}
plan=${5:-$TOP/tests/plan}
kernel=${6:-}

busybox=$("$TOP/scripts/get-busybox.sh" "$arch")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,kvm,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
cp "$TOP/scripts/guest-init.sh" "$root/init"

"$TOP/scripts/plan.sh" lines "$arch" "$variant" "$plan" >"$root/plan"
while read -r _ _ cmd rest; do
	# "trace=EVENTS COMMAND...": guest-init.sh counts EVENTS around COMMAND;
	# "set=PATH=VALUE,... COMMAND...": it sets them for COMMAND;
	# "hold=START,END COMMAND...": it times START to END in COMMAND.
	while [[ $cmd == trace=* || $cmd == set=* || $cmd == hold=* ]]; do
		cmd=${rest%% *}
		rest=${rest#"$cmd"}
		rest=${rest# }
	done
	[ -x "$tests/$cmd" ] || die "$cmd is in the plan but not built in $tests"
	mkdir -p "$root/kvm/$(dirname "$cmd")"
	cp -u "$tests/$cmd" "$root/kvm/$cmd"
done <"$root/plan"

modroot=
[ -z "$kernel" ] || modroot=$(kernel_modroot "$kernel")
if [ -n "$modroot" ]; then
	kver=$(ls "$modroot/lib/modules")
	read -ra params < <("$TOP/scripts/plan.sh" variant "$arch" "$variant" | cut -d' ' -f2-)
	modparams=$("$TOP/scripts/split-params.sh" modules "$modroot" "${params[@]}")
	: >"$root/modules"
	declare -A seen=()
	for m in $(guest_modules "$arch"); do
		# "insmod PATH" lines, dependencies first; a module built in
		# prints "builtin NAME".
		out_dep=$(/sbin/modprobe -d "$modroot" -S "$kver" --show-depends "$m") ||
			die "$m is neither a module nor built into $kernel"
		while read -r how path _; do
			[ "$how" = insmod ] || continue
			[ -z "${seen[$path]:-}" ] || continue
			seen[$path]=1
			name=${path##*/}
			name=${name%.ko}
			name=${name//-/_}
			rel=${path#"$modroot"}
			mkdir -p "$root${rel%/*}"
			cp "$path" "$root$rel"
			echo "$rel $(awk -v m="$name" '$1 == m { printf "%s ", $2 }' <<<"$modparams")" >>"$root/modules"
		done <<<"$out_dep"
	done
fi
(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
