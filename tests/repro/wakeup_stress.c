// SPDX-License-Identifier: GPL-2.0
/*
 * A reproducer, not part of the series: cross-CPU wakeups in the test
 * guest, timed.  Two threads, pinned to CPU 0 and CPU 1, wake each other
 * through a pair of pipes and pause 0-2 ms between rounds, so the CPU being
 * woken is usually halted in idle and every wakeup is an IPI to a halted
 * CPU (the two CPUs are in different sockets, so 6.1 queues the wakeup on
 * the target's call_single_queue and sends an IPI).  With -k each CPU also
 * runs a KVM vCPU in bursts, so the IPIs and timer interrupts land while
 * QEMU emulates VMRUN and #VMEXIT for that CPU.
 *
 * A wakeup that takes longer than the threshold (-t, ms) is printed and
 * counted: a lost wakeup IPI shows up as a wakeup that waited for the
 * target CPU's next interrupt from elsewhere (its timer), and a freeze as
 * a guest that stops answering (the runner's watchdog reports it).  The
 * test fails if any wakeup was late.  Build it as a KVM selftest (copy it
 * to tools/testing/selftests/kvm/ and add it to TEST_GEN_PROGS_x86_64);
 * see docs/known-problems.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kvm_util.h"
#include "processor.h"

#define NR_CPUS_USED	2
#define SPIN		2000
#define BURST		64

static int duration = 300;	/* seconds */
static int threshold_ms = 500;
static bool with_kvm;
static volatile bool stop;

/* Late wakeups by bucket: >= threshold, >= 1 s, >= 4 s, >= 10 s. */
static const uint64_t bucket_ms[] = { 0, 1000, 4000, 10000 };
static uint64_t late[NR_CPUS_USED][4];
static uint64_t wakeups[NR_CPUS_USED], worst_ns[NR_CPUS_USED];
static uint64_t vcpu_exits[NR_CPUS_USED];
static int kmsg = -1;

/*
 * Print to stdout and, as "wakeup_stress: ...", to the kernel log, which the
 * host sees on the serial console as it happens, even if the guest freezes
 * before the test ends.
 */
static void say(const char *fmt, ...)
{
	char buf[256], line[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(buf, stdout);
	fflush(stdout);
	if (kmsg < 0)
		return;
	snprintf(line, sizeof(line), "wakeup_stress: %s", buf);
	if (write(kmsg, line, strlen(line)) < 0) {
		printf("writing to /dev/kmsg: %s\n", strerror(errno));
		kmsg = -1;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	TEST_ASSERT(!pthread_setaffinity_np(pthread_self(), sizeof(set), &set),
		    "pinning to CPU %d", cpu);
}

/* Account one wakeup on @cpu that was sent at @sent. */
static void account(int cpu, uint64_t sent)
{
	uint64_t ns = now_ns() - sent;
	int b;

	wakeups[cpu]++;
	if (ns > worst_ns[cpu])
		worst_ns[cpu] = ns;
	if (ns < threshold_ms * 1000000ull)
		return;
	for (b = 3; b > 0 && ns < bucket_ms[b] * 1000000ull; b--)
		;
	late[cpu][b]++;
	say("late wakeup on CPU %d: %lu ms after it was sent (wakeup %lu)\n",
	    cpu, ns / 1000000, wakeups[cpu]);
}

struct pingpong {
	int cpu;
	int rfd, wfd;
	bool leader;
};

/*
 * The leader pauses, then sends its send time; the follower answers with
 * its own.  Each side accounts the wakeup it received.
 */
static void *pingpong(void *arg)
{
	struct pingpong *p = arg;
	unsigned int seed = p->cpu + 1;
	uint64_t t;

	pin(p->cpu);
	for (;;) {
		if (p->leader) {
			/* A send time of 0 tells the follower to stop. */
			if (!stop)
				usleep(rand_r(&seed) % 2000);
			t = stop ? 0 : now_ns();
			TEST_ASSERT(write(p->wfd, &t, sizeof(t)) == sizeof(t), "write");
			if (!t)
				return NULL;
		}
		TEST_ASSERT(read(p->rfd, &t, sizeof(t)) == sizeof(t), "read");
		if (!t) {
			if (!p->leader)
				TEST_ASSERT(write(p->wfd, &t, sizeof(t)) == sizeof(t), "write");
			return NULL;
		}
		account(p->cpu, t);
		if (!p->leader) {
			t = now_ns();
			TEST_ASSERT(write(p->wfd, &t, sizeof(t)) == sizeof(t), "write");
		}
	}
}

static void guest_code(void)
{
	int i;

	for (;;) {
		for (i = 0; i < SPIN; i++)
			asm volatile("pause");
		GUEST_SYNC(0);
	}
}

/* Runs the vCPU for BURST exits, then sleeps 0-2 ms, until told to stop. */
static void *vcpu_thread(void *arg)
{
	struct kvm_vcpu *vcpu = arg;
	unsigned int seed = vcpu->id + 100;
	struct ucall uc;
	int i;

	pin(vcpu->id);
	while (!stop) {
		for (i = 0; i < BURST; i++) {
			vcpu_run(vcpu);
			TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC,
				    "vCPU %u: exit_reason %s", vcpu->id,
				    exit_reason_str(vcpu->run->exit_reason));
			vcpu_exits[vcpu->id]++;
		}
		usleep(rand_r(&seed) % 2000);
	}
	return NULL;
}

static void report(int elapsed)
{
	int c;

	for (c = 0; c < NR_CPUS_USED; c++)
		say("%ds CPU %d: %lu wakeups, worst %lu ms, late %lu/%lu/%lu/%lu (>=%dms/1s/4s/10s), %lu vCPU exits\n",
		    elapsed, c, wakeups[c], worst_ns[c] / 1000000, late[c][0],
		    late[c][1], late[c][2], late[c][3], threshold_ms,
		    vcpu_exits[c]);
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpus[NR_CPUS_USED];
	pthread_t pp[NR_CPUS_USED], vt[NR_CPUS_USED];
	struct pingpong p[NR_CPUS_USED];
	struct kvm_vm *vm = NULL;
	int a[2], b[2], opt, c, s;
	uint64_t total_late = 0;

	while ((opt = getopt(argc, argv, "d:t:k")) != -1) {
		switch (opt) {
		case 'd':
			duration = atoi(optarg);
			break;
		case 't':
			threshold_ms = atoi(optarg);
			break;
		case 'k':
			with_kvm = true;
			break;
		default:
			printf("usage: %s [-d seconds] [-t threshold_ms] [-k]\n", argv[0]);
			exit(KSFT_SKIP);
		}
	}
	TEST_REQUIRE(sysconf(_SC_NPROCESSORS_ONLN) >= NR_CPUS_USED);

	if (with_kvm) {
		vm = vm_create_with_vcpus(NR_CPUS_USED, guest_code, vcpus);
		for (c = 0; c < NR_CPUS_USED; c++)
			pthread_create(&vt[c], NULL, vcpu_thread, vcpus[c]);
	}

	TEST_ASSERT(!pipe(a) && !pipe(b), "pipe");
	p[0] = (struct pingpong){ .cpu = 0, .rfd = b[0], .wfd = a[1], .leader = true };
	p[1] = (struct pingpong){ .cpu = 1, .rfd = a[0], .wfd = b[1] };
	for (c = 0; c < NR_CPUS_USED; c++)
		pthread_create(&pp[c], NULL, pingpong, &p[c]);

	kmsg = open("/dev/kmsg", O_WRONLY);
	if (kmsg < 0)
		printf("opening /dev/kmsg: %s\n", strerror(errno));
	say("%d s of cross-CPU wakeups, %s, late means >= %d ms\n", duration,
	    with_kvm ? "with a vCPU per CPU" : "no KVM", threshold_ms);
	for (s = 60; s <= duration; s += 60) {
		sleep(60);
		report(s);
	}
	sleep(duration % 60);
	stop = true;
	for (c = 0; c < NR_CPUS_USED; c++)
		pthread_join(pp[c], NULL);
	if (with_kvm) {
		for (c = 0; c < NR_CPUS_USED; c++)
			pthread_join(vt[c], NULL);
		kvm_vm_free(vm);
	}
	report(duration);

	for (c = 0; c < NR_CPUS_USED; c++)
		total_late += late[c][0] + late[c][1] + late[c][2] + late[c][3];
	TEST_ASSERT(!total_late, "%lu wakeups took %d ms or more", total_late,
		    threshold_ms);
	return 0;
}
