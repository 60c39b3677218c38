// SPDX-License-Identifier: GPL-2.0
/*
 * A reproducer, not part of the series: two vCPUs, each writes a fresh page
 * and then exits to userspace with GUEST_SYNC, 8192 times, which is the
 * exit pattern of demand_paging_test -w without any of the series' ABI, so
 * it runs on the unpatched base too.  Under QEMU 7.2's multi-threaded TCG it
 * ends in KVM_EXIT_SHUTDOWN now and then (docs/known-problems.md).  Build
 * it as a KVM selftest (copy it to tools/testing/selftests/kvm/ and add it
 * to TEST_GEN_PROGS_x86_64).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include "kvm_util.h"
#include "processor.h"

#define NR_VCPUS	2
#define PAGES		8192ull
#define TEST_SLOT	10
#define TEST_GPA	0x100000000ull
#define TEST_GVA	0xc0000000ull

static void guest_code(uint64_t base)
{
	uint64_t i;

	for (i = 0; i < PAGES; i++) {
		*(volatile uint64_t *)(base + i * 4096) = base + i * 4096;
		GUEST_SYNC(i);
	}
	GUEST_DONE();
}

static void *vcpu_thread(void *arg)
{
	struct kvm_vcpu *vcpu = arg;
	struct ucall uc;

	for (;;) {
		vcpu_run(vcpu);
		switch (get_ucall(vcpu, &uc)) {
		case UCALL_SYNC:
			continue;
		case UCALL_DONE:
			return NULL;
		case UCALL_ABORT:
			REPORT_GUEST_ASSERT(uc);
		default:
			TEST_FAIL("vCPU %u: exit_reason %s", vcpu->id,
				  exit_reason_str(vcpu->run->exit_reason));
		}
	}
}

int main(void)
{
	uint64_t npages = NR_VCPUS * PAGES, p;
	struct kvm_vcpu *vcpus[NR_VCPUS];
	pthread_t threads[NR_VCPUS];
	struct kvm_vm *vm;
	int i;

	vm = __vm_create_with_vcpus(VM_MODE_DEFAULT, NR_VCPUS, 1024, guest_code, vcpus);
	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, TEST_GPA, TEST_SLOT, npages, 0);
	virt_map(vm, TEST_GVA, TEST_GPA, npages);
	for (i = 0; i < NR_VCPUS; i++) {
		vcpu_args_set(vcpus[i], 1, TEST_GVA + i * PAGES * 4096);
		pthread_create(&threads[i], NULL, vcpu_thread, vcpus[i]);
	}
	for (i = 0; i < NR_VCPUS; i++)
		pthread_join(threads[i], NULL);
	for (p = 0; p < npages; p++)
		TEST_ASSERT(*(uint64_t *)addr_gpa2hva(vm, TEST_GPA + p * 4096) == TEST_GVA + p * 4096,
			    "page %lu lost its contents", p);
	kvm_vm_free(vm);
	printf("ok: %lu pages, %d vCPUs\n", npages, NR_VCPUS);
	return 0;
}
