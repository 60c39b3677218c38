#!/usr/bin/env bash
# Build a kernel from a tree: allnoconfig + configs/common.config +
# configs/$ARCH.config (+ configs/debug.config with DEBUG=1), out of tree,
# with ccache.
#   build-kernel.sh ARCH [SRC_TREE [OBJ_DIR]]
# ARCH is x86_64 or arm64.  Prints the path of the bootable image last.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: build-kernel.sh x86_64|arm64 [tree [objdir]]}
src=$(realpath "${2:-$TREE}")
obj=$(realpath -m "${3:-$(obj_dir "$arch")}")

image=$(arch_kernel_image "$arch")
cross=$(arch_cross "$arch")

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/kvm-series/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Fixed build stamps keep ccache hits across trees and rebuilds.
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=kvm KBUILD_BUILD_HOST=series
mk=(make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross"
	CC="ccache ${cross}gcc" HOSTCC="ccache gcc" -j"$(nproc)")

mkdir -p "$obj"
frags=("$TOP/configs/common.config" "$TOP/configs/$arch.config")
[ -z "$DEBUG" ] || frags+=("$TOP/configs/debug.config")
# Regenerate .config only when a fragment is newer than it.
if [ ! -f "$obj/.config" ] || [ -n "$(find "${frags[@]}" -newer "$obj/.config")" ]; then
	cat "${frags[@]}" >"$obj/fragments.config"
	"${mk[@]}" KCONFIG_ALLCONFIG="$obj/fragments.config" allnoconfig
	# Every option a fragment asks for must have survived olddefconfig.
	bad=0
	while IFS= read -r line; do
		opt=${line%%=*}
		got=$(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || true)
		if [ "$got" != "$line" ]; then
			echo "config: wanted $line, got '${got:-nothing}'" >&2
			bad=1
		fi
	done < <(grep -hE '^CONFIG_' "${frags[@]}")
	[ "$bad" = 0 ] || die "config fragments did not apply cleanly (see above)"
fi

"${mk[@]}"
echo "$obj/$image"
