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

# The kernels a variant can boot (tests/variants, column 3), built by
# build-kernel.sh from configs/:
#   allno    allnoconfig + common.config + ARCH.config: small, KVM built in,
#            lockdep and DEBUG_VM on, PREEMPT_NONE
#   modules  the same with x86_64-modules.config: KVM as modules, as every
#            distribution builds it (arm64 has no such file: KVM/arm64
#            cannot be a module)
#   debian   Debian's own config of the base version (fetch-config.sh)
#            with debian.config + ARCH-debian.config: every built-in choice
#            Debian made, KVM and the guest's drivers as modules, every
#            other module off
KFLAVOURS="allno modules debian"

# kernel_fragments ARCH FLAVOUR   the config fragments of that kernel, in
#                                 the order they apply
kernel_fragments() {
	local f
	case $2 in
	allno | modules)
		echo "$TOP/configs/common.config"
		echo "$TOP/configs/$1.config"
		f=$TOP/configs/$1-$2.config
		[ "$2" = allno ] || [ ! -f "$f" ] || echo "$f"
		;;
	debian)
		echo "$TOP/configs/debian.config"
		f=$TOP/configs/$1-debian.config
		[ ! -f "$f" ] || echo "$f"
		;;
	*) die "unknown kernel flavour '$2' ($KFLAVOURS)" ;;
	esac
	[ -z "$DEBUG" ] || echo "$TOP/configs/debug.config"
}

# obj_dir ARCH [FLAVOUR]   where that kernel is built (DEBUG=1: its own
#                          directory, so both kinds stay incremental)
obj_dir() {
	local f=-${2:-allno}
	[ "$f" != -allno ] || f=
	echo "$BUILD/obj-$1$f${DEBUG:+-debug}"
}

# kernel_image ARCH FLAVOUR   the image run-tests.sh boots for a variant
#                             of that kernel: KERNEL_<arch>_<flavour> (or
#                             KERNEL_<arch> for allno) from the
#                             environment, else the one make build made
kernel_image() {
	local v=KERNEL_$1_$2
	[ "$2" != allno ] || v=KERNEL_$1
	echo "${!v:-$(obj_dir "$1" "$2")/$(arch_kernel_image "$1")}"
}

# kernel_modroot IMAGE     the modules_install root of the kernel whose
#                          image is IMAGE, or nothing for a kernel
#                          without modules
kernel_modroot() {
	local d=${1%/arch/*}/modroot
	[ ! -d "$d/lib/modules" ] || echo "$d"
}

# guest_modules ARCH       what the test guest loads from a modular
#                          kernel, in this order (modprobe adds their
#                          dependencies): the virtio console the TAP
#                          stream goes to, then KVM (x86: AMD's, since
#                          QEMU's TCG offers SVM)
guest_modules() {
	case $1 in
	x86_64) echo virtio_pci virtio_console kvm_amd ;;
	arm64) echo virtio_pci virtio_console ;;
	esac
}

arch_cross() {
	case $1 in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "unknown arch '$1' (x86_64 or arm64)" ;;
	esac
}

# deb_arch ARCH: Debian's name for ARCH.
deb_arch() {
	case $1 in
	x86_64) echo amd64 ;;
	arm64) echo arm64 ;;
	*) die "unknown arch '$1' (x86_64 or arm64)" ;;
	esac
}

# deb_arch_enable DEBARCH: let apt download DEBARCH's packages (a foreign
# architecture is added to dpkg first).
deb_arch_enable() {
	if [ "$1" != "$(dpkg --print-architecture)" ] &&
		! dpkg --print-foreign-architectures | grep -qx "$1"; then
		dpkg --add-architecture "$1"
		apt-get update -qq
	fi
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

# The series is topics, one posting each: patches/series lists
# TOPIC/NNNN-*.patch in order, as Debian's debian/patches/series does, and
# patches/TOPIC/requires names the topics TOPIC needs (one per line, "#"
# starts a comment).  In the work tree each topic starts with an empty
# "topic: TOPIC" marker commit; make export cuts the topics there.

# series_topics            the topics in patches/series (or $SERIES), in
#                          order
series_topics() {
	sed -n 's,^\([^#/][^/]*\)/.*,\1,p' "${SERIES:-$TOP/patches/series}" | awk '!seen[$0]++'
}

# topic_patches TOPIC      its patch files, relative to patches/, in order
topic_patches() {
	grep "^$1/" "$TOP/patches/series" || true
}

# topic_requires TOPIC     the topics it declares it needs
topic_requires() {
	[ -f "$TOP/patches/$1/requires" ] || die "patches/$1/requires is missing"
	sed 's/#.*//' "$TOP/patches/$1/requires" | awk 'NF { print $1 }'
}

# topic_closure TOPIC...   those topics and everything they need, in
#                          series order
topic_closure() {
	local -A want=()
	local queue=("$@") t r
	while [ ${#queue[@]} -gt 0 ]; do
		t=${queue[0]}
		queue=("${queue[@]:1}")
		[ -z "${want[$t]:-}" ] || continue
		series_topics | grep -qx -- "$t" || die "no topic '$t' in patches/series"
		want[$t]=1
		while read -r r; do
			queue+=("$r")
		done < <(topic_requires "$t")
	done
	series_topics | while read -r t; do
		[ -z "${want[$t]:-}" ] || echo "$t"
	done
}

# tree_commits REPO        "TOPIC COMMIT" for each patch commit of REPO
#                          since base, in order; markers are not listed
tree_commits() {
	local repo=$1 c s topic=
	git -C "$repo" rev-list --reverse base..HEAD | while read -r c; do
		s=$(git -C "$repo" log -1 --format=%s "$c")
		if [[ $s == "topic: "* ]] &&
			[ "$(git -C "$repo" rev-parse "$c^{tree}")" = "$(git -C "$repo" rev-parse "$c^^{tree}")" ]; then
			topic=${s#topic: }
			continue
		fi
		[ -n "$topic" ] || die "commit $c ($s) comes before any 'topic: NAME' marker in $repo"
		echo "$topic $c"
	done
}

# mark_topic REPO TOPIC    start TOPIC in REPO with its marker commit
mark_topic() {
	GIT_AUTHOR_NAME=$SERIES_NAME GIT_AUTHOR_EMAIL=$SERIES_EMAIL \
		GIT_COMMITTER_NAME=$SERIES_NAME GIT_COMMITTER_EMAIL=$SERIES_EMAIL \
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$1" -c commit.gpgsign=false commit -q --allow-empty -m "topic: $2" \
		-m "Marks where topic $2 of patches/series starts; make export leaves it out."
}

# apply_topics REPO TOPIC...   git am the topics' patches onto REPO's HEAD,
#                              each after its marker; fails naming the patch
apply_topics() {
	local repo=$1 t p n=0
	shift
	for t in "$@"; do
		mark_topic "$repo" "$t"
		while read -r p; do
			n=$((n + 1))
			if ! git -C "$repo" am -q --keep-cr "$TOP/patches/$p" >/dev/null 2>&1; then
				git -C "$repo" am --abort >/dev/null 2>&1 || true
				echo "error: patches/$p does not apply (topics: $*)" >&2
				return 1
			fi
		done < <(topic_patches "$t")
	done
}
