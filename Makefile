# Front door for the KVM series on Linux 6.1 LTS.  See README.md.
#
#   make run      fetch, apply, build, boot and show the series at work
#   make test     series checks + build + the whole test plan (CI runs this)
#
# Also: deps tree export build check bisect bench mutants clean.  ARCHES
# selects the architectures (default: x86_64 arm64); TOPICS="memory-fault
# ..." the topics of patches/series that tree and bisect take (default: all),
# and the topics whose mutants (tests/mutants) mutants runs, on the whole
# series; MUTANTS=REGEX picks mutants by TOPIC/NAME.  DEBUG=1 builds and
# tests kernels with KASAN and UBSAN (configs/debug.config) instead.

SHELL := /bin/bash
ARCHES ?= x86_64 arm64
export ARCHES
DEBUG ?=
export DEBUG
S := scripts/stage.sh

.PHONY: all run test deps tree export build check bisect bench mutants clean distclean

all: run

deps:
	@$(S) deps scripts/install-deps.sh
	@$(S) toolchain scripts/check-toolchain.sh
	@for a in $(ARCHES); do $(S) debian-config-$$a scripts/fetch-config.sh $$a >/dev/null || exit 1; done

tree: deps
	@$(S) tree env TOPICS='$(TOPICS)' scripts/tree.sh

export:
	@scripts/export.sh

build: tree
	@for a in $(ARCHES); do \
		for k in $$(scripts/plan.sh kernels $$a); do \
			KFLAVOUR=$$k $(S) kernel-$$a-$$k scripts/build-kernel.sh $$a >/dev/null || exit 1; \
		done; \
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
	@$(S) bench env ROWS='$(ROWS)' AA='$(AA)' BASE='$(BASE)' scripts/bench.sh

mutants: deps
	@$(S) mutants env MUTANTS='$(MUTANTS)' TOPICS= scripts/mutants.sh run $(TOPICS)

clean:
	rm -rf build/obj-* build/selftests-* build/results build/results-debug

distclean:
	rm -rf build
