#!/usr/bin/env bash
# Print the path of a static busybox for ARCH, fetching Debian's
# busybox-static for that architecture into the cache if needed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

debarch=$(deb_arch "${1:?usage: get-busybox.sh x86_64|arm64}")

bin=$CACHE/busybox/$debarch/bin/busybox
if [ ! -x "$bin" ]; then
	deb_arch_enable "$debarch"
	dl=$(mktemp -d)
	(cd "$dl" && apt-get download -q "busybox-static:$debarch") >&2 ||
		die "could not download busybox-static:$debarch"
	mkdir -p "$CACHE/busybox/$debarch"
	dpkg-deb -x "$dl"/busybox-static_*.deb "$CACHE/busybox/$debarch"
	rm -rf "$dl"
fi
[ -x "$bin" ] || die "no busybox in busybox-static:$debarch"
echo "$bin"
