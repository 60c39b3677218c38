#!/usr/bin/env bash
# Run one stage of a make target and print how long it took:
#   stage.sh NAME COMMAND [ARGS...]
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: stage.sh NAME COMMAND [ARGS...]}
shift
note "stage $name: $*"
timed "$name" "$@"
