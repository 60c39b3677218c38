#!/usr/bin/env bash
# shellcheck disable=SC2054 # QEMU options are comma-separated lists
# Boot one test guest under QEMU TCG and wait for it to power off.
#   run-guest.sh ARCH KERNEL INITRAMFS OUTDIR TIMEOUT [CMDLINE...]
# Writes OUTDIR/console.log (kernel serial console), OUTDIR/tap.log (what
# the guest's /init printed on virtio console hvc0) and OUTDIR/qemu.log.
# Exit: 0 the guest finished, 3 it timed out, 4 it stalled (no result
# within a test's limit; watch-guest.sh wrote OUTDIR/stall.log), 2 QEMU
# itself failed (an infrastructure failure, not a kernel one), 6 it stalled
# with the signature of an interrupt lost by QEMU (docs/known-problems.md),
# 7 it reset itself instead of powering off (-no-reboot makes QEMU exit on a
# reset: a panic, or a triple fault that leaves nothing in the log).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: run-guest.sh ARCH KERNEL INITRAMFS OUTDIR TIMEOUT [CMDLINE...]}
kernel=${2:?}
initrd=${3:?}
outdir=${4:?}
limit=${5:?}
shift 5
extra="$*"

# Two vCPUs, two NUMA nodes of 2G each: later tests need NUMA balancing.
mem=(-m 4G
	-object memory-backend-ram,id=m0,size=2G
	-object memory-backend-ram,id=m1,size=2G
	-numa node,nodeid=0,cpus=0,memdev=m0
	-numa node,nodeid=1,cpus=1,memdev=m1)
# See docs/tooling.md, "Choice of QEMU": multi-threaded TCG, detected aborts reported
# as infrastructure failures.
tcg=${KVM_SERIES_TCG:-multi}
case $arch in
x86_64)
	# -cpu max under TCG offers AMD SVM with NPT, so kvm_amd loads.
	qemu=(qemu-system-x86_64 -machine q35 -accel "tcg,thread=$tcg" -cpu max)
	# The TSC under TCG tracks host time; without this the guest calls it
	# unstable, runs on hpet, and KVM's clock tests cannot work.
	console="ttyS0 tsc=reliable"
	;;
arm64)
	# virtualization=on boots the kernel at EL2, so KVM/arm64 initialises.
	qemu=(qemu-system-aarch64 -machine virt,virtualization=on,gic-version=3
		-accel "tcg,thread=$tcg" -cpu max)
	console=ttyAMA0
	;;
*) die "unknown arch $arch" ;;
esac

mkdir -p "$outdir"
rm -f "$outdir"/{console,tap,qemu,stall}.log "$outdir"/{monitor.sock,serial.in,serial.out}
# The serial console is QEMU's "pipe" chardev: output to serial.out (a link
# to console.log), input from the FIFO serial.in, through which
# watch-guest.sh can send the guest SysRq keys (a break, the mux's C-a b,
# then the key).  This script holds the FIFO open, so writing to it never
# blocks.
: >"$outdir/console.log"
ln -s console.log "$outdir/serial.out"
mkfifo "$outdir/serial.in"
exec 3<>"$outdir/serial.in"
# QEMU's monitor socket: a UNIX socket's path must be shorter than 108
# bytes, which OUTDIR may not be (the mutation gate's are long), so it
# lives in a directory of its own under /tmp, linked from OUTDIR, where
# watch-guest.sh finds it.
sockdir=$(mktemp -d /tmp/kvm-series-mon.XXXXXX)
trap 'rm -rf "$sockdir"' EXIT
ln -s "$sockdir/monitor.sock" "$outdir/monitor.sock"
# nokaslr: a stalled guest's instruction pointers, read through QEMU's
# monitor, are symbolized with System.map (Debian's config randomizes the
# kernel's base).
# norecord-cmd: enabling a trace event then does not attach tracing's
# sched_switch probe, so tests that trace do not make the kernel rewrite the
# call in __schedule() that every CPU runs (docs/known-problems.md: QEMU's
# multi-threaded TCG once ran that call's stale int3).
timeout -s KILL "$limit" "${qemu[@]}" -smp 2,sockets=2,cores=1,threads=1 "${mem[@]}" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=$console panic=-1 oops=panic loglevel=7 nokaslr trace_options=norecord-cmd $extra" \
	-display none -nic none -no-reboot \
	-monitor "unix:$sockdir/monitor.sock,server=on,wait=off" \
	-chardev "pipe,id=ser,path=$outdir/serial,mux=on" \
	-serial chardev:ser \
	-device virtio-serial-pci -chardev "file,id=tap,path=$outdir/tap.log" \
	-device virtconsole,chardev=tap \
	>"$outdir/qemu.log" 2>&1 &
qemu_pid=$!
# The image sits in arch/ARCH/boot/ of the object directory, System.map at
# its top.
"$TOP/scripts/watch-guest.sh" "$outdir" "$qemu_pid" "${kernel%/arch/*}/System.map" &
watch_pid=$!
rc=0
wait "$qemu_pid" || rc=$?
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
exec 3<&-
rm -f "$outdir"/{serial.in,serial.out,monitor.sock}

# watch-guest.sh writes its report before it stops QEMU.  A monitor that did
# not answer means QEMU itself hung: that is not the kernel's doing.
if grep -qs "monitor did not answer" "$outdir/stall.log"; then
	cat "$outdir/stall.log" >>"$outdir/qemu.log"
	exit 2
fi
# Every vCPU idle, while the kernel reports a task stuck in TASK_WAKING
# (0x200: its wakeup is queued for a CPU that never took the interrupt to
# run it) or QEMU's own APIC holds an interrupt back from a halted vCPU
# with IF=1: an interrupt lost by the emulator (docs/known-problems.md).
if grep -qs "^all vCPUs idle" "$outdir/stall.log" &&
	{ grep -q -- '->state: 0x200 ' "$outdir/console.log" ||
		grep -q "^interrupt held back" "$outdir/stall.log"; }; then
	exit 6
fi
[ ! -s "$outdir/stall.log" ] || exit 4
if [ "$rc" = 137 ]; then
	echo "guest did not finish within ${limit}s" >>"$outdir/qemu.log"
	exit 3
fi
if [ "$rc" != 0 ] || grep -qE 'assertion failed|Aborted|core dumped|qemu-system-.*: ' "$outdir/qemu.log"; then
	echo "QEMU exited with status $rc" >>"$outdir/qemu.log"
	exit 2
fi
# guest-init.sh ends with "poweroff -f", which the kernel logs.
if ! grep -q "reboot: Power down" "$outdir/console.log"; then
	echo "the guest reset itself: no \"reboot: Power down\" in its console log" >>"$outdir/qemu.log"
	exit 7
fi
exit 0
