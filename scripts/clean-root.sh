#!/usr/bin/env bash
# Run a command in a new, minimal Debian 12 root file system, so that it
# starts from a system with nothing installed but Debian's required
# packages, git and make (what a new user needs to clone and type "make"):
#   clean-root.sh COMMAND [ARGS...]
# The checkout is mounted at /src/kvm-series and the command runs there.
# ~/.cache/kvm-series (downloads, the unpacked base tarball, busybox,
# ccache) and the root's apt archive are shared with the machine: they hold
# files, never installed packages, so they cannot hide a missing install
# step.  The root gets its own /dev (a tmpfs with a few device nodes), its
# own /proc, /sys and /tmp, and is removed afterwards, after everything
# under it is unmounted; it is never removed while anything is mounted in it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: clean-root.sh COMMAND [ARGS...]"
[ "$(id -u)" = 0 ] || die "clean-root.sh needs root (mount, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap is not installed"

suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
archives=$CACHE/root-apt-archives
mkdir -p "$CACHE" "$archives"

root=$(mktemp -d /var/tmp/kvm-series-root.XXXXXX)
mounted=()

# Unmount what we mounted, newest first, then make sure nothing at all is
# mounted under the root before it is removed: a bind mount shares the
# device number of the file system it comes from, so "rm --one-file-system"
# alone would not stop at it.
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local i m
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
	done
	m=$(awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo)
	if [ -n "$m" ]; then
		echo "clean-root: still mounted, leaving $root in place:" >&2
		echo "$m" >&2
		return
	fi
	rm -rf --one-file-system "$root"
}
trap cleanup EXIT

mnt() { # mnt TARGET MOUNT-ARGS...
	local target=$root$1
	shift
	mkdir -p "$target"
	mount "$@" "$target"
	mounted+=("$target")
}

note "making a minimal Debian 12 root in $root"
timed mmdebstrap mmdebstrap --quiet --variant=minbase --include=git,make,ca-certificates \
	--components=main "$suite" "$root" \
	"deb $mirror $suite main" "deb $mirror $suite-updates main" \
	"deb $security $suite-security main"

# /dev: our own nodes on a tmpfs, never the machine's /dev.
mnt /dev -t tmpfs -o mode=755,nosuid tmpfs
mknod -m 666 "$root/dev/null" c 1 3
mknod -m 666 "$root/dev/zero" c 1 5
mknod -m 666 "$root/dev/full" c 1 7
mknod -m 666 "$root/dev/random" c 1 8
mknod -m 666 "$root/dev/urandom" c 1 9
mknod -m 666 "$root/dev/tty" c 5 0
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mnt /dev/pts -t devpts -o newinstance,ptmxmode=666 devpts
ln -s pts/ptmx "$root/dev/ptmx"
mnt /dev/shm -t tmpfs -o mode=1777 tmpfs
mnt /proc -t proc proc
mnt /sys -t sysfs -o ro sysfs
mnt /tmp -t tmpfs -o mode=1777 tmpfs
mnt /var/cache/apt/archives --bind "$archives"
mnt /root/.cache/kvm-series --bind "$CACHE"
mnt /src/kvm-series --bind "$TOP"
cp /etc/resolv.conf "$root/etc/resolv.conf"

note "running in the clean root: $*"
# A clean environment too: nothing of the machine's PATH or tools leaks in.
envs=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}")
for v in KVM_SERIES_DEADLINE KVM_SERIES_TCG ARCHES; do
	[ -z "${!v:-}" ] || envs+=("$v=${!v}")
done
rc=0
env -i "${envs[@]}" chroot "$root" /bin/bash -c 'cd /src/kvm-series && exec "$@"' clean-root "$@" || rc=$?
exit "$rc"
