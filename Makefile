# Front door for the KVM series on Linux 6.1 LTS.  See README.md.
#
#   make run      fetch, apply, build, boot and show the series at work
#   make test     series checks + build + the whole test plan (CI runs this)
#
# Also: deps tree export build check bisect bench clean.  ARCHES selects the
# architectures (default: x86_64 arm64); TOPICS="memory-fault ..." the
# topics of patches/series that tree and bisect take (default: all).  DEBUG=1 builds and tests kernels
# with KASAN and UBSAN (configs/debug.config) instead.

SHELL := /bin/bash
ARCHES ?= x86_64 arm64
export ARCHES
DEBUG ?=
export DEBUG
S := scripts/stage.sh

.PHONY: all run test deps tree export build check bisect bench clean distclean

all: run

deps:
	@$(S) deps scripts/install-deps.sh
	@$(S) toolchain scripts/check-toolchain.sh

tree: deps
	@$(S) tree env TOPICS='$(TOPICS)' scripts/tree.sh

export:
	@scripts/export.sh

build: tree
	@for a in $(ARCHES); do \
		$(S) kernel-$$a scripts/build-kernel.sh $$a >/dev/null || exit 1; \
		$(S) selftests-$$a scripts/build-selftests.sh $$a >/dev/null || exit 1; \
	done

check: deps
	@$(S) check scripts/check.sh

test: check build
	@$(S) run-tests scripts/run-tests.sh

run: build
	@$(S) demo scripts/demo.sh

bisect: deps
	@$(S) bisect scripts/build-topics.sh each $(TOPICS)

bench: tree
	@$(S) bench env ROWS='$(ROWS)' AA='$(AA)' scripts/bench.sh

clean:
	rm -rf build/obj-* build/selftests-* build/results build/results-debug

distclean:
	rm -rf build
