#!/usr/bin/env bash
# Prove the toolchain "make deps" installed can build what the series needs,
# in seconds rather than after the kernels: for each architecture in ARCHES,
# compile and statically link a small C program the way the KVM selftests
# are built (C library headers, pthreads, -static).  A missing cross C
# library fails here, naming the architecture.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *run(void *arg) { return arg; }

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, run, NULL))
		abort();
	return pthread_join(t, NULL) ? EXIT_FAILURE : EXIT_SUCCESS;
}
C
for arch in $ARCHES; do
	cc=$(arch_cross "$arch")gcc
	command -v "$cc" >/dev/null || die "$arch: $cc is not installed"
	"$cc" -static -pthread -o "$tmp/t-$arch" "$tmp/t.c" ||
		die "$arch: $cc cannot build a static program (is its C library installed?)"
done
note "toolchain: static C programs build for $ARCHES"
