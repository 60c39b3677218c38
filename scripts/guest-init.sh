#!/bin/busybox sh
# shellcheck shell=dash
# PID 1 of the test guest (busybox sh).  Runs the tests listed in /plan and
# writes TAP to /dev/hvc0; the kernel console stays on the serial port, so
# kernel messages never interleave with results.  Powers off when done.
#
# /plan lines: TIMEOUT NAME COMMAND [ARGS...]   (prepared by mkinitramfs.sh)
# Kernel command line: kvmtest.variant=NAME  names the variant in results.

/bin/busybox --install -s /bin
export PATH=/bin:/kvm
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/shm /dev/hugepages /tmp
mount -t tmpfs tmp /tmp
mount -t tmpfs shm /dev/shm
mount -t hugetlbfs huge /dev/hugepages
mount -t debugfs debug /sys/kernel/debug
mount -t tracefs trace /sys/kernel/tracing 2>/dev/null

variant=none
# shellcheck disable=SC2013 # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case $arg in
	kvmtest.variant=*) variant=${arg#kvmtest.variant=} ;;
	esac
done

out=/dev/hvc0
[ -c $out ] || out=/dev/console

# Hugepages for the tests that back guest memory with hugetlbfs.
echo 64 >/proc/sys/vm/nr_hugepages

emit() {
	echo "$@" >>$out
}

n=$(grep -c . /plan)
emit "TAP version 13"
emit "# variant $variant, kernel $(uname -r), $(nproc) cpus"
emit "1..$n"
i=0
while read -r limit name cmd; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	start=$(date +%s)
	cd /kvm || exit 1
	# shellcheck disable=SC2086 # the plan's arguments are split on purpose
	timeout -s KILL "$limit" $cmd >/tmp/log 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
	sed 's/^/# /' /tmp/log | tail -n 40 >>$out
	if [ $rc = 0 ]; then
		emit "ok $i $name # time=${secs}s"
	elif [ $rc = 4 ]; then
		why=$(grep -i 'skip' /tmp/log | tail -n 1 | tr -s ' #' ' ')
		emit "ok $i $name # SKIP ${why:-exit code 4}"
	elif [ $rc = 137 ]; then
		emit "not ok $i $name # TIMEOUT after ${limit}s"
	else
		emit "not ok $i $name # exit=$rc time=${secs}s"
	fi
done </plan
emit "# guest done"
sync
poweroff -f
