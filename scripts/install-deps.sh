#!/usr/bin/env bash
# Install what building and testing the series needs on Debian 12, with
# apt-get.  Quiet and quick when everything is already there.  Packages are
# installed without their recommends, so everything needed is named here;
# .ci/run proves the list in a new Debian root (scripts/clean-root.sh).
set -euo pipefail

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev openssl cpio kmod rsync
	ccache git python3 python3-ply python3-git xz-utils procps
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-x86 qemu-system-arm
	shellcheck
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "==> installing: ${missing[*]}" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null
