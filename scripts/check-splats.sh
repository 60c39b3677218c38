#!/usr/bin/env bash
# Print the kernel splats in a console log and exit 1 if there are any:
# WARN/BUG/Oops/panic, lockdep reports, KASAN/UBSAN/KFENCE, RCU stalls,
# soft and hard lockups, hung tasks.  Each splat is followed by the test
# that was running, from the "kvm-series: test N NAME" marks guest-init.sh
# writes to the kernel log.  From the first SysRq task dump on (guest-init.sh
# and watch-guest.sh ask for one only once a test has already failed) a
# "Call Trace:" is a task's stack, not a splat; every other pattern counts.
#   check-splats.sh CONSOLE_LOG
set -euo pipefail

log=${1:?usage: check-splats.sh CONSOLE_LOG}
pattern='(WARNING:|BUG:|Oops|Kernel panic|kernel BUG at|general protection fault|UBSAN:|KASAN:|KFENCE:|possible (recursive|circular) locking|suspicious RCU usage|inconsistent lock state|rcu: INFO: .*stall|self-detected stall|soft lockup|hard LOCKUP|blocked for more than|Unable to handle kernel|Internal error:|Call Trace:)'
# Strip the printk time stamp so the patterns anchor on the message; awk's
# exit status is the script's: 1 if it printed a splat.
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$log" |
	awk -v pat="^($pattern|------------\\[ cut here \\])" '
		/^sysrq: Show (Blocked )?State/ { dump = 1 }
		dump && /^Call Trace:/ { next }
		/^kvm-series: test / { test = $3 " " $4 }
		$0 ~ pat { print NR ":" $0 (test ? "  (during test " test ")" : ""); found = 1 }
		END { exit found }' >&2
