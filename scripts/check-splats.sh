#!/usr/bin/env bash
# Print the kernel splats in a console log and exit 1 if there are any:
# WARN/BUG/Oops/panic, lockdep reports, KASAN/UBSAN/KFENCE, RCU stalls,
# soft and hard lockups, hung tasks.
#   check-splats.sh CONSOLE_LOG
set -euo pipefail

log=${1:?usage: check-splats.sh CONSOLE_LOG}
pattern='(WARNING:|BUG:|Oops|Kernel panic|kernel BUG at|general protection fault|UBSAN:|KASAN:|KFENCE:|possible (recursive|circular) locking|suspicious RCU usage|inconsistent lock state|rcu: INFO: .*stall|self-detected stall|soft lockup|hard LOCKUP|blocked for more than|Unable to handle kernel|Internal error:|Call Trace:)'
# Strip the printk time stamp so the patterns anchor on the message.
if sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$log" | grep -nE "^$pattern|^------------\[ cut here \]" >&2; then
	exit 1
fi
exit 0
