#!/usr/bin/env bash
# Split a variant's parameters (tests/variants) between the kernel command
# line and the modules the guest loads: "M.P=V" belongs to module M when
# the kernel was built with M as a module (it is in MODROOT), to the command
# line otherwise; every other word belongs to the command line.
#   split-params.sh cmdline|modules MODROOT [PARAMS...]
# cmdline prints the command-line words on one line; modules prints the
# module parameters, one "MODULE PARAM=VALUE" a line (module names with
# "_", as the kernel spells them).  An empty MODROOT means no modules.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

what=${1:?usage: split-params.sh cmdline|modules MODROOT [PARAMS...]}
modroot=${2?usage: split-params.sh cmdline|modules MODROOT [PARAMS...]}
shift 2
declare -A built=()
if [ -n "$modroot" ]; then
	while read -r m; do
		m=${m##*/}
		m=${m%.ko}
		built[${m//-/_}]=1
	done < <(find "$modroot/lib/modules" -name '*.ko')
fi
cmdline=()
for w in "$@"; do
	m=${w%%.*}
	m=${m//-/_}
	if [[ $w == *.*=* ]] && [ -n "${built[$m]:-}" ]; then
		[ "$what" != modules ] || echo "$m ${w#*.}"
	else
		cmdline+=("$w")
	fi
done
[ "$what" != cmdline ] || echo "${cmdline[*]}"
