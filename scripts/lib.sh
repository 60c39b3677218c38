# shellcheck shell=bash
# Common settings for the scripts in this directory.  Source it; it sets
# paths and small helpers and changes nothing on disk.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
CACHE=${CACHE:-$HOME/.cache/kvm-series}
# shellcheck disable=SC2034 # used by the scripts that source this file
TREE=$BUILD/linux
# The architectures the series is built and tested for.
ARCHES=${ARCHES:-x86_64 arm64}
# DEBUG=1: kernels with configs/debug.config (KASAN, UBSAN) in their own
# object directories and results, and plan time limits multiplied by
# DEBUG_SLOWDOWN, since such a kernel runs the tests several times slower.
DEBUG=${DEBUG:-}
DEBUG_SLOWDOWN=${DEBUG_SLOWDOWN:-3}

# The project's own identity: it authors and signs off every patch.
# shellcheck disable=SC2034 # used by the scripts that source this file
SERIES_NAME="Seed 54b4afd3 maintainers"
# shellcheck disable=SC2034
SERIES_EMAIL="maintainers@users.noreply.a-seed-54b4afd3.example"

# Per-architecture build facts, the only place they are written down:
# arch_kernel_image ARCH   the bootable image, relative to the object dir
# arch_cross ARCH          the CROSS_COMPILE prefix ("" for a native build)
arch_kernel_image() {
	case $1 in
	x86_64) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	*) die "unknown arch '$1' (x86_64 or arm64)" ;;
	esac
}

# obj_dir ARCH             where the kernel for ARCH is built (DEBUG=1: its
#                          own directory, so both kinds stay incremental)
obj_dir() {
	echo "$BUILD/obj-$1${DEBUG:+-debug}"
}

arch_cross() {
	case $1 in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "unknown arch '$1' (x86_64 or arm64)" ;;
	esac
}

# The pinned base: package and version.
base_field() {
	sed -n "s/^$1=//p" "$TOP/BASE"
}

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "==> $*" >&2
}

# Run "$@" and report how long it took, so stage times are visible in CI.
timed() {
	local label=$1 start rc=0
	shift
	start=$(date +%s)
	"$@" || rc=$?
	echo "==> stage '$label' took $(($(date +%s) - start))s (exit $rc)" >&2
	return "$rc"
}

# Write the work tree's commits since "base" as patches into directory $1,
# exactly as patches/ holds them: zeroed commit ids and no Date: header,
# so the output only changes when a commit really does.
format_series() {
	git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
		--base=base --subject-prefix="PATCH 6.1" -o "$1" base..HEAD
	sed -i '/^Date: /d' "$1"/*.patch
}
