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

# A modular kernel's modules (mkinitramfs.sh): "PATH [PARAM=VALUE...]" a
# line, in load order.  They load before anything else: the virtio console
# that TAP goes to is one of them.  A module that does not load fails every
# test (below), so a missing export or a refused parameter cannot pass as
# skipped tests.
modfail=
: >/tmp/modules.log
if [ -f /modules ]; then
	while read -r ko params; do
		# shellcheck disable=SC2086 # the parameters are words
		if ! msg=$(insmod "$ko" $params 2>&1); then
			echo "# modules: insmod $ko $params failed: $msg" >>/tmp/modules.log
			dmesg | tail -n 5 | sed 's/^/# modules: /' >>/tmp/modules.log
			modfail=${ko##*/}
			break
		fi
		echo "# modules: loaded ${ko##*/} $params" >>/tmp/modules.log
	done </modules
	[ ! -d /sys/module/kvm/parameters ] ||
		echo "# kvm parameters: $(cd /sys/module/kvm/parameters && grep -s . tdp_mmu memslot_zap | tr '\n' ' ')" >>/tmp/modules.log
fi

# The virtio console's port appears a moment after its driver binds.
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -c /dev/hvc0 ] && break
	sleep 1
done
out=/dev/hvc0
[ -c $out ] || out=/dev/console

# Hugepages for the tests that back guest memory with hugetlbfs.
echo 64 >/proc/sys/vm/nr_hugepages

emit() {
	echo "$@" >>$out
}

# stacks PID: the kernel stack of each thread of PID, as TAP comments.
stacks() {
	for t in /proc/"$1"/task/*; do
		echo "# hung thread ${t##*/} ($(cat "$t/comm")), $(grep State: "$t/status"), in $(cat "$t/wchan"):"
		sed 's/^/#   /' "$t/stack"
	done
}

# trace_on / trace_show: record KVM's exit, entry, emulation, exception and
# fault events while a hung test's statistics are read, then print the last
# 40, so a vCPU that loops shows what it loops on (exit reason, RIP, the
# exception it is given).
tracefs=/sys/kernel/tracing
trace_on() {
	[ -d $tracefs/events/kvm ] || return 0
	echo 0 >$tracefs/tracing_on
	: >$tracefs/trace
	for e in kvm/kvm_exit kvm/kvm_entry kvm/kvm_emulate_insn \
		kvm/kvm_inj_exception kvm/kvm_page_fault kvm/kvm_userspace_exit \
		kvm/kvm_mmio kvmmmu/kvm_mmu_walker_error; do
		[ ! -e $tracefs/events/$e/enable ] || echo 1 >$tracefs/events/$e/enable
	done
	echo 1 >$tracefs/tracing_on
}
trace_show() {
	[ -d $tracefs/events/kvm ] || return 0
	echo 0 >$tracefs/tracing_on
	echo "# last KVM trace events:"
	grep -v '^#' $tracefs/trace | tail -n 40 | sed 's/^/#   /'
	echo 0 >$tracefs/events/enable
}

# count_on EVENTS / count_show EVENTS: count the KVM trace events named in
# EVENTS (comma-separated, "system/event") while one test runs, in a trace
# instance of this script's own, and print "# trace EVENT: N" for each.
# A plan command "trace=EVENTS COMMAND..." asks for it (make bench's count
# rows): the kernel counts, so TCG's speed cannot distort the number.  A
# count is printed only when no event was lost to a full buffer.  EVENT
# names must differ in their last part (what trace lines show).
counts=$tracefs/instances/kvmtest-counts
count_on() {
	[ -n "$1" ] || return 0
	[ -d $counts ] || mkdir $counts 2>/dev/null || return 0
	echo 0 >$counts/tracing_on
	echo 16384 >$counts/buffer_size_kb
	echo 0 >$counts/events/enable
	for e in $(echo "$1" | tr ',' ' '); do
		[ ! -e "$counts/events/$e/enable" ] || echo 1 >"$counts/events/$e/enable"
	done
	: >$counts/trace
	echo 1 >$counts/tracing_on
}
count_show() {
	[ -n "$1" ] || return 0
	if [ ! -d $counts ]; then
		emit "# trace: no trace instance, nothing counted"
		return 0
	fi
	echo 0 >$counts/tracing_on
	lost=$(cat $counts/per_cpu/cpu*/stats |
		awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }')
	for e in $(echo "$1" | tr ',' ' '); do
		if [ ! -e "$counts/events/$e/enable" ]; then
			emit "# trace $e: no such event"
		elif [ "$lost" != 0 ]; then
			emit "# trace $e not counted: $lost events lost to a full buffer"
		else
			emit "# trace $e: $(grep -c " ${e##*/}: " $counts/trace)"
		fi
	done
	echo 0 >$counts/events/enable
}

# hold_on START,END[,main] / hold_show: the time from each START to the next
# END in the same thread of the test (its main thread only, with "main"),
# e.g. how long a thread held a lock ("func:_raw_write_lock,func:_raw_write_unlock")
# or KVM's own time per exit ("kvm/kvm_exit,kvm/kvm_entry").  "func:NAME" is
# a function (the function tracer), anything else a trace event, which may
# carry a filter in brackets: "kvm/kvm_exit[exit_reason==0x400]" starts an
# interval only at the exits of that reason (no spaces or commas in it).  Recorded
# in a trace instance of this script's own while one test runs (a plan
# command "hold=START,END COMMAND..."), and printed as "# hold count: N",
# "# hold median_us: T", "# hold max_us: T" and "# hold total_us: T", only
# when no event was lost: the kernel's own clock, which TCG slows but does
# not make noisier than its own work.
holds=$tracefs/instances/kvmtest-hold
hold_on() {
	[ -n "$1" ] || return 0
	[ -d $holds ] || mkdir $holds 2>/dev/null || return 0
	echo 0 >$holds/tracing_on
	echo nop >$holds/current_tracer
	echo 0 >$holds/events/enable
	: >$holds/set_ftrace_filter
	echo 32768 >$holds/buffer_size_kb
	funcs=''
	for e in $(echo "$1" | tr ',' ' '); do
		case $e in
		main) ;;
		func:*)
			funcs=1
			echo "${e#func:}" >>$holds/set_ftrace_filter 2>/dev/null ||
				emit "# hold: cannot trace function ${e#func:} here"
			;;
		*\[*\])
			f=${e#*\[}
			e=${e%%\[*}
			[ -e "$holds/events/$e/enable" ] || continue
			echo "${f%\]}" >"$holds/events/$e/filter" 2>/dev/null ||
				emit "# hold: cannot filter $e with '${f%\]}' here"
			echo 1 >"$holds/events/$e/enable"
			;;
		*) [ ! -e "$holds/events/$e/enable" ] || echo 1 >"$holds/events/$e/enable" ;;
		esac
	done
	[ -z "$funcs" ] || echo function >$holds/current_tracer
	: >$holds/trace
	echo 1 >$holds/tracing_on
}
hold_show() { # hold_show SPEC TEST-PID TEST-COMMAND
	[ -n "$1" ] || return 0
	[ -d $holds ] || { emit "# hold: no trace instance, nothing timed"; return 0; }
	echo 0 >$holds/tracing_on
	lost=$(cat $holds/per_cpu/cpu*/stats |
		awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }')
	if [ "$lost" != 0 ]; then
		emit "# hold not timed: $lost events lost to a full buffer"
	else
		# The test's threads are those with its command's name (the
		# kernel keeps 15 characters of it): a trace instance has no
		# TGID column (record-tgid is an option of the top level only).
		comm=$(basename "$3" | cut -c1-15)
		a=${1%%,*}
		b=${1#*,}
		main=''
		case $b in *,main) main=$2 ;; esac
		b=${b%%,*}
		# An event is named without its system in the trace.
		a=${a#func:}
		a=${a%%\[*}
		a=${a##*/}
		b=${b#func:}
		b=${b%%\[*}
		b=${b##*/}
		grep -v '^#' $holds/trace | awk -v a="$a" -v b="$b" -v comm="$comm" -v main="$main" '
			{
				# TASK-TID [CPU] FLAGS TIMESTAMP: WHAT
				t = $1; sub(/.*-/, "", t)
				c = $1; sub(/-[0-9]+$/, "", c)
				# The main thread by its id: the instance may not
				# know its name ("<...>").
				if (main != "" ? t != main : c != comm)
					next
				for (i = 3; i <= NF; i++)
					if ($i ~ /^[0-9]+\.[0-9]+:$/)
						break
				ts = $i; sub(/:$/, "", ts)
				w = $(i + 1); sub(/:$/, "", w)
				if (w == a)
					start[t] = ts
				else if (w == b && (t in start)) {
					printf "%.1f\n", (ts - start[t]) * 1e6
					delete start[t]
				}
			}' | sort -n >/tmp/holds
		n=$(wc -l </tmp/holds)
		if [ "$n" = 0 ]; then
			emit "# hold: no $a followed by $b in the threads named $comm; the trace begins:"
			grep -v '^#' $holds/trace | head -n 3 | tr -s ' ' | sed 's/^/#   /' >>$out
		else
			emit "# hold count: $n"
			emit "# hold median_us: $(sed -n "$(((n + 1) / 2))p" /tmp/holds)"
			emit "# hold max_us: $(tail -n 1 /tmp/holds)"
			emit "# hold total_us: $(awk '{ s += $1 } END { printf "%.1f", s }' /tmp/holds)"
		fi
	fi
	echo nop >$holds/current_tracer
	echo 0 >$holds/events/enable
	: >$holds/set_ftrace_filter
	for e in $(echo "$1" | tr ',' ' '); do
		case $e in *\[*\]) echo 0 >"$holds/events/${e%%\[*}/filter" 2>/dev/null || : ;; esac
	done
}

# settings_on PATH=VALUE,... / settings_off: write the settings a plan line
# asks for ("set=PATH=VALUE,... COMMAND...": sysctls and debugfs knobs of
# this throw-away guest, e.g. NUMA balancing's scan period), before the test
# and print them; put back what was there after it.  The tests themselves
# never change settings that are global on a real host.
settings_on() {
	: >/tmp/settings
	[ -n "$1" ] || return 0
	for kv in $(echo "$1" | tr ',' ' '); do
		path=${kv%=*}
		if [ ! -e "$path" ]; then
			emit "# set: $path does not exist here"
			continue
		fi
		echo "$path=$(cat "$path")" >>/tmp/settings
		echo "${kv##*=}" >"$path"
		emit "# set: $path = $(cat "$path")"
	done
}
settings_off() {
	while IFS= read -r kv; do
		echo "${kv##*=}" >"${kv%=*}"
	done </tmp/settings
}

# qemu_state_leak: whether the hung test's report (/tmp/stacks) shows a
# nested guest entered at an address inside this kernel's own
# __svm_vcpu_run(): QEMU's multi-threaded nested SVM wrote the outer
# kernel's state into the nested guest's save area (docs/known-problems.md);
# KVM never puts its own RIP there.  Prints the evidence.
qemu_state_leak() {
	[ -s /tmp/stacks ] || return 1
	s=$(awk '$3 == "__svm_vcpu_run" { print $1; exit }' /proc/kallsyms)
	[ -n "$s" ] || return 1
	# kallsyms addresses have 16 hex digits, so they compare as strings.
	e=$(awk -v s="$s" '$1 > s && (e == "" || $1 < e) { e = $1 } END { print e }' /proc/kallsyms)
	rip=$(sed -n 's/.*kvm_entry: vcpu [0-9]*, rip 0x\([0-9a-f]*\).*/\1/p' /tmp/stacks |
		awk -v s="$s" -v e="$e" 'length($1) == 16 && $1 >= s && $1 < e { print; exit }')
	[ -n "$rip" ] || return 1
	echo "# infrastructure: the nested guest was entered at 0x$rip, inside this kernel's __svm_vcpu_run() (0x$s-0x$e): QEMU put the outer kernel's state into it (docs/known-problems.md)"
}

# show_output: the test's last 40 lines of output and, if it hung, its
# stacks, as TAP comments before its result.
show_output() {
	sed 's/^/# /' /tmp/log | tail -n 40 >>$out
	[ ! -s /tmp/stacks ] || cat /tmp/stacks >>$out
}

# gone_within PID SECONDS: wait until PID is gone (status 0) or SECONDS have
# passed (status 1).
gone_within() {
	end=$(($(date +%s) + $2))
	while [ -d "/proc/$1" ]; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 1
	done
}

# run_limited LIMIT COMMAND...: run COMMAND with its output in /tmp/log.
# After LIMIT seconds, write the kernel stack of each of its threads to
# /tmp/stacks, so a hang shows where it hangs, and kill it with SIGKILL.
# If it still exists 30 s later, nothing more can run here: report test
# $i ($name) as unkillable, with its stacks and every blocked task's in the
# kernel log, and power off.
run_limited() {
	limit=$1
	shift
	: >/tmp/stacks
	"$@" >/tmp/log 2>&1 </dev/null &
	pid=$!
	(
		if gone_within "$pid" "$limit"; then exit 0; fi
		{
			stacks "$pid"
			trace_on
			# The test's VMs' KVM statistics, twice, to tell a vCPU
			# that keeps exiting from one that never does.
			for d in /sys/kernel/debug/kvm/"$pid"-*; do
				[ -d "$d" ] || continue
				for when in now "1 s later"; do
					[ "$when" = now ] || sleep 1
					echo "# kvm stats of ${d##*/} ($when):" \
						"$(cd "$d" && grep -s . -- * | grep -v ':0$' | tr '\n' ' ')"
				done
			done
			trace_show
		} >/tmp/stacks 2>&1
		kill -KILL "$pid"
		if gone_within "$pid" 30; then exit 0; fi
		show_output
		{
			echo "# still there 30 s after SIGKILL:"
			stacks "$pid"
		} >>$out 2>&1
		echo w >/proc/sysrq-trigger
		emit "not ok $i $name # TIMEOUT after ${limit}s, and SIGKILL did not end it"
		emit "# guest stopped: test $i could not be killed; blocked tasks are in the kernel log"
		sync
		poweroff -f
	) &
	dog=$!
	wait "$pid"
	rc=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	return "$rc"
}

n=$(grep -c . /plan)
emit "TAP version 13"
emit "# variant $variant, kernel $(uname -r) $(uname -v), $(nproc) cpus"
# With PREEMPT_DYNAMIC, the model chosen at boot in brackets.
[ ! -f /sys/kernel/debug/sched/preempt ] ||
	emit "# preemption: $(cat /sys/kernel/debug/sched/preempt)"
cat /tmp/modules.log >>$out
if [ -n "$modfail" ]; then
	emit "1..$n"
	i=0
	while read -r _ name _; do
		i=$((i + 1))
		emit "not ok $i $name # module $modfail did not load"
	done </plan
	emit "# guest done"
	sync
	poweroff -f
fi
# The SVM features the outer CPU model gives KVM (x86; none on arm64): the
# fast paths depend on them (nrip_save, decodeassists).
svm=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
	grep -x -E 'svm|npt|nrip_save|decodeassists|flushbyasid|vgif|avic|lbrv' |
	tr '\n' ' ')
[ -z "$svm" ] || emit "# svm features: $svm"
emit "1..$n"
i=0
while read -r limit name cmd; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	start=$(date +%s)
	# Mark the kernel log so a splat can be traced to the test running.
	echo "kvm-series: test $i $name" >/dev/kmsg
	cd /kvm || exit 1
	events=''
	settings=''
	hold=''
	while :; do
		case $cmd in
		trace=*)
			events=${cmd%% *}
			events=${events#trace=}
			cmd=${cmd#* }
			;;
		hold=*)
			hold=${cmd%% *}
			hold=${hold#hold=}
			cmd=${cmd#* }
			;;
		set=*)
			settings=${cmd%% *}
			settings=${settings#set=}
			cmd=${cmd#* }
			;;
		*) break ;;
		esac
	done
	settings_on "$settings"
	count_on "$events"
	hold_on "$hold"
	# shellcheck disable=SC2086 # the plan's arguments are split on purpose
	run_limited "$limit" $cmd
	rc=$?
	# A hang that is QEMU's state leak, exactly, gets one more run; the
	# first run's output and evidence are printed, and a second failure
	# of any kind is the result.
	if [ $rc = 137 ] && leak=$(qemu_state_leak); then
		show_output
		emit "$leak"
		emit "# test $i $name: retrying once after the QEMU state leak above"
		echo "kvm-series: test $i $name (retry)" >/dev/kmsg
		start=$(date +%s)
		count_on "$events"
		# shellcheck disable=SC2086
		run_limited "$limit" $cmd
		rc=$?
	fi
	secs=$(($(date +%s) - start))
	settings_off
	show_output
	count_show "$events"
	hold_show "$hold" "$pid" "${cmd%% *}"
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
