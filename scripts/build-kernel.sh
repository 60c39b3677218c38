#!/usr/bin/env bash
# Build a kernel from a tree, out of tree, with ccache.
#   build-kernel.sh ARCH [SRC_TREE [OBJ_DIR]]
# ARCH is x86_64 or arm64; KFLAVOUR (environment) the kind of kernel, as
# lib.sh describes: allno (the default), modules or debian.  allno and
# modules start from allnoconfig, debian from Debian's own config of the
# base version, with every module Debian builds turned off but those the
# fragments name "=m".  A kernel with modules is also installed into
# OBJ_DIR/modroot (modules_install), where the test guest takes them from.
# Prints the path of the bootable image last.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: build-kernel.sh x86_64|arm64 [tree [objdir]]}
flavour=${KFLAVOUR:-allno}
src=$(realpath "${2:-$TREE}")
obj=$(realpath -m "${3:-$(obj_dir "$arch" "$flavour")}")

image=$(arch_kernel_image "$arch")
cross=$(arch_cross "$arch")

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/kvm-series/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
# Fixed build stamps keep ccache hits across trees and rebuilds.
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=kvm KBUILD_BUILD_HOST=series
mk=(make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross"
	CC="ccache ${cross}gcc" HOSTCC="ccache gcc" -j"$(nproc)")

mkdir -p "$obj"
mapfile -t frags < <(kernel_fragments "$arch" "$flavour")
start=
[ "$flavour" != debian ] || start=$("$TOP/scripts/fetch-config.sh" "$arch")
# Regenerate .config only when the fragments changed (or another kind of
# kernel was built here) or the starting config is newer.
want=$({ echo "# $flavour ${start:-allnoconfig}"; cat "${frags[@]}"; })
if [ ! -f "$obj/.config" ] || [ "$want" != "$(cat "$obj/fragments.config" 2>/dev/null)" ] ||
	[ -n "$(find ${start:+"$start"} "$obj/fragments.config" -newer "$obj/.config")" ]; then
	echo "$want" >"$obj/fragments.new"
	rm -f "$obj/fragments.config"
	if [ -z "$start" ]; then
		"${mk[@]}" KCONFIG_ALLCONFIG="$obj/fragments.new" allnoconfig
	else
		# Debian's config, each module it builds turned off unless a
		# fragment asks for it as a module; then the fragments, which
		# Kconfig applies last-wins; then olddefconfig for what they
		# change.
		keep=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/\1/p' "$obj/fragments.new" | sort -u)
		awk -v keep="$keep" '
			BEGIN { n = split(keep, k, "\n"); for (i = 1; i <= n; i++) want[k[i]] = 1 }
			/^CONFIG_[A-Za-z0-9_]*=m$/ {
				s = substr($0, 1, index($0, "=") - 1)
				if (!(s in want)) { print "# " s " is not set"; next }
			}
			{ print }' "$start" >"$obj/.config"
		cat "$obj/fragments.new" >>"$obj/.config"
		"${mk[@]}" olddefconfig
	fi
	# Every option a fragment asks for must have survived Kconfig (where
	# fragments disagree, the last one's, as Kconfig reads them).
	bad=0
	while IFS= read -r line; do
		opt=${line%%=*}
		opt=${opt#\# }
		opt=${opt% is not set}
		got=$(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || true)
		# An option the series adds is unknown to a tree without it
		# (the base, a topic on its own): nothing to check there.
		if [ -z "$got" ] && ! grep -rqsxE --include='Kconfig*' "(menu)?config ${opt#CONFIG_}" "$src"; then
			continue
		fi
		if [ "$got" != "$line" ]; then
			echo "config: wanted $line, got '${got:-nothing}'" >&2
			bad=1
		fi
	done < <(grep -hE '^CONFIG_|^# CONFIG_.* is not set$' "${frags[@]}" |
		awk '{ s = $0; sub(/^# /, "", s); sub(/[= ].*/, "", s); last[s] = $0; if (!(s in order)) order[s] = ++n }
			END { for (s in last) print order[s], last[s] }' | sort -n | cut -d' ' -f2-)
	[ "$bad" = 0 ] || die "config fragments did not apply cleanly (see above)"
	mv "$obj/fragments.new" "$obj/fragments.config"
fi

# The boot image and the modules only: QEMU's virt machine makes its own
# device tree, so arm64's dtbs (about a thousand in Debian's config, and
# not cached by ccache) are left out.
targets=("$(basename "$image")")
! grep -q '^CONFIG_MODULES=y' "$obj/.config" || targets+=(modules)
"${mk[@]}" "${targets[@]}"
rm -rf "$obj/modroot"
if grep -q '^CONFIG_MODULES=y' "$obj/.config"; then
	"${mk[@]}" INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install
fi
echo "$obj/$image"
