#!/usr/bin/env bash
# Stop a test guest that no longer makes progress, and record where it was.
#   watch-guest.sh OUTDIR QEMU_PID [SYSTEM_MAP]
#
# The guest writes one result to OUTDIR/tap.log per line of OUTDIR/plan
# ("LIMIT NAME COMMAND..."), and guest-init.sh kills a test at its LIMIT.
# When no result arrives within the running test's LIMIT plus GRACE seconds
# (BOOT_GRACE before the guest's first line), guest-init itself is stuck: a
# frozen guest kernel, a wedged QEMU, or a test it could not kill.  Then
# this writes OUTDIR/stall.log (which test, and each vCPU's registers twice,
# symbolized with SYSTEM_MAP, to tell a spinning guest from a stopped one;
# on x86 also each local APIC's ISR, IRR and PPR, which show an interrupt
# that QEMU holds pending for a halted vCPU) and stops QEMU (QEMU_PID is
# QEMU or the timeout(1) that runs it).  If every vCPU was halted with
# interrupts enabled in both samples, the report says so on a line of its
# own ("all vCPUs idle"), for run-guest.sh to classify.  If QEMU's monitor
# does not answer, the report says "monitor did not answer": run-guest.sh
# reads that as QEMU hung, not the guest.  Last it sends SysRq w and t
# through the serial console (OUTDIR/serial.in, see run-guest.sh): if any
# vCPU still takes interrupts, the kernel log then shows every task and
# where it sleeps; and it samples the vCPUs and APICs once more, to show
# whether that serial interrupt got a halted vCPU going again.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

outdir=${1:?usage: watch-guest.sh OUTDIR QEMU_PID [SYSTEM_MAP]}
qemu_pid=${2:?}
map=${3:-}
grace=${GRACE:-120}
boot_grace=${BOOT_GRACE:-300}
tap=$outdir/tap.log
# The link run-guest.sh made, resolved: a socket's path must be short.
monitor=$(readlink -f "$outdir/monitor.sock")

# symbolize: "RIP=ffffffff81234567" -> "RIP=ffffffff81234567 (func+0x17)".
# Kernel addresses and System.map entries are 16 lower-case hex digits, so
# comparing them as strings compares them as numbers.
symbolize() {
	local line key addr sym
	while IFS= read -r line; do
		# x86 flags: only IF (bit 9) matters here.
		if [[ $line =~ ^[RE]FL=([0-9a-f]+)$ ]]; then
			echo "IF=$(((16#${BASH_REMATCH[1]} >> 9) & 1))"
			continue
		fi
		[[ $line =~ (RIP|PC)=([0-9a-f]{16}) ]] && [ -f "$map" ] || {
			echo "$line"
			continue
		}
		key=${BASH_REMATCH[1]}
		addr=${BASH_REMATCH[2]}
		sym=$(awk -v a="$addr" '$1 <= a { s = $1 " " $3 } $1 > a { exit } END { print s }' "$map")
		if [ -n "$sym" ]; then
			printf '%s=%s (%s+0x%x)\n' "$key" "$addr" "${sym#* }" \
				$((16#$addr - 16#${sym%% *}))
		else
			echo "$key=$addr (not in the guest kernel: user space or a nested guest)"
		fi
	done
}

# The vCPUs' state from QEMU's monitor, one line per vCPU.  Fails only if
# the monitor does not answer.
registers() {
	local regs
	regs=$("$TOP/scripts/hmp.py" "$monitor" "info registers -a") || return 1
	if ! grep -qE '(RIP|PC)=' <<<"$regs"; then
		head -n 5 <<<"$regs" # not the format expected: show it
		return 0
	fi
	grep -oE 'CPU#[0-9]+|(RIP|PC)=[0-9a-f]+|[RE]FL=[0-9a-f]+|HLT=[01]' <<<"$regs" | symbolize |
		awk '/^CPU#/ { if (l) print l; l = $0; next }
			{ l = l " " $0 } END { if (l) print l }'
}

indent() {
	sed 's/^/  /'
}

# sysrq KEY: a break and then KEY on the guest's serial console (C-a b is
# the break in QEMU's chardev mux); the kernel takes KEY as a SysRq
# command.
sysrq() {
	[ -p "$outdir/serial.in" ] || return 0
	printf '\001b%s' "$1" >"$outdir/serial.in"
}

# x86: each vCPU's local APIC, from QEMU's model: the vectors in service
# and pending, and the priority that gates them.  $1 is the vCPU count.
lapics() {
	local cpu
	for ((cpu = 0; cpu < $1; cpu++)); do
		"$TOP/scripts/hmp.py" "$monitor" "info lapic $cpu" |
			awk -v c="$cpu" '/^(ISR|IRR)/ { sub(/\t */, " "); l = l "  " $0 }
				/^APR/ { l = l "  PPR " $NF }
				END { print "CPU#" c l }'
	done
}

# Read lapics' lines; name each vCPU whose highest pending vector outranks
# its processor priority (IRR class above PPR class): an interrupt it must
# take as soon as IF=1, which only the emulator can be holding back.
held_back() {
	local line ppr top
	while IFS= read -r line; do
		[[ $line =~ IRR\ ([0-9 ]+)\ +PPR\ 0x([0-9a-f]+)$ ]] || continue
		ppr=$((16#${BASH_REMATCH[2]}))
		top=$(tr ' ' '\n' <<<"${BASH_REMATCH[1]}" | sort -n | tail -n 1)
		[ $((top >> 4)) -gt $((ppr >> 4)) ] &&
			echo "interrupt held back: ${line%% *} has vector $top pending above PPR $ppr"
	done
	return 0
}

size=-1
since=$(date +%s)
while kill -0 "$qemu_pid" 2>/dev/null; do
	sleep 5
	now=$(date +%s)
	s=$(stat -c %s "$tap" 2>/dev/null || echo 0)
	if [ "$s" != "$size" ]; then
		size=$s since=$now
		continue
	fi
	done_tests=$(grep -cE '^(ok|not ok) ' "$tap" 2>/dev/null || true)
	running=$((done_tests + 1))
	read -r limit name _ < <(sed -n "${running}p" "$outdir/plan") || true
	if [ "$s" = 0 ]; then
		allowed=$boot_grace what="the guest to boot"
	elif [ -n "$limit" ]; then
		allowed=$((limit + grace)) what="test $running $name (limit ${limit}s)"
	else
		allowed=$grace what="the guest to power off"
	fi
	[ $((now - since)) -ge "$allowed" ] || continue

	{
		echo "stalled: waited $((now - since))s for $what"
		echo "vCPUs:"
		if first=$(registers 2>&1); then
			indent <<<"$first"
			sleep 2
			echo "vCPUs 2 s later:"
			second=$(registers 2>&1) || true
			indent <<<"$second"
			ncpus=$(grep -c "^CPU#" <<<"$first")
			if grep -q 'IF=' <<<"$first"; then
				echo "local APICs:"
				apics=$(lapics "$ncpus" 2>&1) || true
				indent <<<"$apics"
				held_back <<<"$apics"
			fi
			# Halted with IF=1 throughout: nothing to run, and no
			# interrupt taken that would give it something.
			if ! grep -v 'HLT=1.*IF=1\|IF=1.*HLT=1' <<<"$first
$second" | grep -q .; then
				echo "all vCPUs idle: halted with interrupts enabled in both samples"
			fi
			sysrq w
			sleep 5
			sysrq t
			sleep 15
			echo "vCPUs after SysRq w and t on the serial console (their output, if any, is in the kernel log):"
			third=$(registers 2>&1) || true
			indent <<<"$third"
			if grep -q 'IF=' <<<"$first"; then
				apics=$(lapics "$ncpus" 2>&1) || true
				indent <<<"$apics"
			fi
		else
			echo "  (QEMU's monitor did not answer: QEMU itself is stuck)"
		fi
	} >"$outdir/stall.log"
	# Ask QEMU to quit; if it does not, SIGTERM (timeout(1) passes it on),
	# and last SIGKILL to QEMU_PID and its child.
	"$TOP/scripts/hmp.py" "$monitor" quit 2>/dev/null || true
	for sig in TERM KILL; do
		sleep 5
		kill -0 "$qemu_pid" 2>/dev/null || break
		pkill "-$sig" -P "$qemu_pid" || true
		kill "-$sig" "$qemu_pid" 2>/dev/null || true
	done
	exit 0
done
