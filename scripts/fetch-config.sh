#!/usr/bin/env bash
# Print the path of Debian's own kernel config for ARCH, the one Debian
# builds its generic kernel flavour with (amd64, arm64), from the package
# linux-config-6.1 of the version the base tree was made from; fetched with
# "apt-get download" (checked against the signed archive index) into the
# cache on first use.
#   fetch-config.sh ARCH
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

debarch=$(deb_arch "${1:?usage: fetch-config.sh x86_64|arm64}")

# The version of the tree actually built: BASE's, or the newer one
# fetch-base.sh fell back to when BASE's is no longer served.
version=$(base_field version)
if git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1; then
	version=$(git -C "$TREE" log -1 --format=%s base | sed -n 's/.* \([^ ]*\)$/\1/p')
fi
pkg=linux-config-${version%%.*}.$(echo "$version" | cut -d. -f2)

out=$CACHE/config/$version/$debarch.config
if [ ! -s "$out" ]; then
	deb_arch_enable "$debarch"
	dl=$(mktemp -d)
	trap 'rm -rf "$dl"' EXIT
	if ! (cd "$dl" && apt-get download -q "$pkg:$debarch=$version") >&2; then
		apt-get update -qq || true
		if ! (cd "$dl" && apt-get download -q "$pkg:$debarch=$version") >&2; then
			# As fetch-base.sh does when the pinned source is gone.
			newest=$(apt-cache policy "$pkg:$debarch" | sed -n 's/^  Candidate: //p')
			[ -n "$newest" ] && [ "$newest" != "(none)" ] ||
				die "$pkg:$debarch is not served by any configured apt source"
			echo "WARNING: $pkg $version is not served; using Debian's config of $newest" >&2
			(cd "$dl" && apt-get download -q "$pkg:$debarch=$newest") >&2 ||
				die "could not download $pkg:$debarch $newest"
		fi
	fi
	dpkg-deb -x "$dl"/*.deb "$dl/x"
	xz=$dl/x/usr/src/$pkg/config.${debarch}_none_$debarch.xz
	[ -s "$xz" ] || die "$pkg:$debarch $version has no config.${debarch}_none_$debarch.xz"
	mkdir -p "$(dirname "$out")"
	xzcat "$xz" >"$out.tmp"
	mv "$out.tmp" "$out"
fi
echo "$out"
