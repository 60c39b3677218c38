#!/usr/bin/env bash
# Build tools/testing/selftests/kvm of a tree against that tree's own
# exported uapi headers (never the machine's /usr/include), statically
# linked so the binaries run in the test initramfs of either architecture.
#   build-selftests.sh ARCH [SRC_TREE [OUT_DIR]]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: build-selftests.sh x86_64|arm64 [tree [outdir]]}
src=$(realpath "${2:-$TREE}")
out=$(realpath -m "${3:-$BUILD/selftests-$arch}")

cross=$(arch_cross "$arch")

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/kvm-series/ccache}
hdr=$out/usr
mkdir -p "$out"
make -s -C "$src" O="$out/hdr-obj" ARCH="$arch" INSTALL_HDR_PATH="$hdr" headers_install
make -s -C "$src/tools/testing/selftests/kvm" ARCH="$arch" CROSS_COMPILE="$cross" \
	CC="ccache ${cross}gcc" OUTPUT="$out" INSTALL_HDR_PATH="$hdr" \
	KHDR_INCLUDES="-isystem $hdr/include" EXTRA_CFLAGS="-static" \
	-j"$(nproc)"
echo "$out"
