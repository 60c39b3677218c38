#!/usr/bin/env bash
# Fetch the pinned Debian kernel source package, unpack it and make a git
# repository of it in build/linux with the base as the first commit (tag
# "base").  Downloads and the unpacked tarball are cached under
# ~/.cache/kvm-series so that a second run on the same machine is fast.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

pkg=$(base_field package)
want=$(base_field version)
[ -n "$pkg" ] && [ -n "$want" ] || die "BASE must name package= and version="

if [ -d "$TREE/.git" ] && git -C "$TREE" rev-parse -q --verify base >/dev/null; then
	have=$(git -C "$TREE" log -1 --format=%s base | sed -n 's/.* \([^ ]*\)$/\1/p')
	if [ "$have" = "$want" ]; then
		note "base $pkg $want already in $TREE"
		exit 0
	fi
	die "$TREE holds base $have but BASE pins $want; remove $BUILD to start over"
fi

mkdir -p "$CACHE/debs"
deb=$CACHE/debs/${pkg}_${want}_all.deb
version=$want
if [ ! -s "$deb" ]; then
	# apt-get download checks the file against the signed archive index.
	if ! (cd "$CACHE/debs" && apt-get download -q "$pkg=$want"); then
		apt-get update -qq || true
		if ! (cd "$CACHE/debs" && apt-get download -q "$pkg=$want"); then
			version=$(apt-cache policy "$pkg" | sed -n 's/^  Candidate: //p')
			[ -n "$version" ] && [ "$version" != "(none)" ] ||
				die "$pkg is not served by any configured apt source"
			cat >&2 <<-MSG
			################################################################
			WARNING: $pkg $want is no longer served.
			WARNING: falling back to the newest, $pkg $version.
			WARNING: the series was made against $want; if it does not
			WARNING: apply, update BASE and rebase the series.
			################################################################
			MSG
			deb=$CACHE/debs/${pkg}_${version}_all.deb
			[ -s "$deb" ] || (cd "$CACHE/debs" && apt-get download -q "$pkg=$version")
		fi
	fi
	# apt names files with the epoch escaped; normalise to our name.
	for f in "$CACHE/debs/${pkg}_"*"${version#*:}"*_all.deb; do
		[ "$f" = "$deb" ] || mv "$f" "$deb"
	done
fi
[ -s "$deb" ] || die "download of $pkg $version failed"
note "$(sha256sum "$deb" | cut -d' ' -f1)  $(basename "$deb")"

src=$CACHE/src/$version
if [ ! -f "$src/.unpacked" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src" --wildcards '*.tar.xz'
	tarball=$(find "$src" -name 'linux-source-*.tar.xz' | head -n1)
	[ -n "$tarball" ] || die "no kernel tarball inside $deb"
	note "unpacking $(basename "$tarball")"
	tar -xJf "$tarball" -C "$src"
	rm -rf "${src:?}/usr"
	touch "$src/.unpacked"
fi
dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -n1)
[ -n "$dir" ] || die "unpacked tree not found in $src"

rm -rf "$TREE"
mkdir -p "$BUILD"
note "copying base tree to $TREE"
cp -a "$dir" "$TREE"
cd "$TREE"
git init -q
git config user.name "$SERIES_NAME"
git config user.email "$SERIES_EMAIL"
git config core.abbrev 12
git add -A -f .
# A fixed date makes the base commit, and so "base-commit:" in the cover
# letter, the same on every machine.
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	git -c commit.gpgsign=false commit -q -m "Base: $pkg $version"
git tag base
note "base $pkg $version committed as tag 'base' in $TREE"
