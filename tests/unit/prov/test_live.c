/*
 * test_live.c - the perf-route providers on real workloads (root only):
 * exact syscall counts, return values and errno, openat paths captured
 * at event time, fork/exec/exit, on-cpu/off-cpu pairing, profile samples
 * on every CPU landing in the workload's function.
 *
 * Each test runs a forked child that starts only after the probes are on
 * and counts firings whose pid is that child's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <cmocka.h>
#include "live.h"

#define NCALLS 1000
#define NPATHS 300

static void do_getppid(void)
{
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
}

static void test_syscall_count(void **state)
{
	dtrace_id_t in, out;
	pid_t pid;

	live_require();
	live_reset();
	in = live_enable("syscall", "", "getppid", "entry");
	out = live_enable("syscall", "", "getppid", "return");
	pid = live_run(do_getppid);
	live_disable(in);
	live_disable(out);
	assert_int_equal(live_count(in, pid), NCALLS);
	assert_int_equal(live_count(out, pid), NCALLS);
}

static void test_openat_paths_and_errno(void **state)
{
	live_require();
	live_reset();
	live_check_open_paths(live_run, "/nonexistent/dtui-prov", NPATHS, 1);
}

static void test_proc_lifecycle(void **state)
{
	live_require();
	live_reset();
	live_check_fork_exec(live_run, "/bin/sh");
}

static void do_sleeps(void)
{
	for (int i = 0; i < 20; i++)
		usleep(2000);
}

static void test_sched_pairing(void **state)
{
	dtrace_id_t on, off;
	int non = 0, noff = 0;
	pid_t pid;

	live_require();
	live_reset();
	on = live_enable("sched", "", "", "on-cpu");
	off = live_enable("sched", "", "", "off-cpu");
	pid = live_run(do_sleeps);
	live_disable(on);
	live_disable(off);
	for (int i = 0; i < live_n; i++) {
		if (live_recs[i].lr_tid != pid)
			continue;
		non += live_recs[i].lr_id == on;
		noff += live_recs[i].lr_id == off;
	}
	print_message("on-cpu %d off-cpu %d\n", non, noff);
	assert_true(noff >= 20);
	assert_true(non >= 20);
	/* every off-cpu but the last (exit) is followed by an on-cpu */
	assert_true(non == noff || non + 1 == noff || non == noff + 1);
}

static volatile uint64_t sink;

/* This process's CPU time, ns. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin for 400 ms of CPU time (not of wall time: on a loaded machine the
 * spinner may get a small share of its CPU, and the samples come with
 * the time it runs).  In a section of its own, whose bounds the linker
 * gives: under the sanitizers its loop lies more than 300 bytes in. */
extern const char __start_dtui_spin[], __stop_dtui_spin[];
static __attribute__((noinline, section("dtui_spin"))) void spin_here(void)
{
	uint64_t until = cpu_ns() + 400000000ull;

	while (cpu_ns() < until)	/* mostly in the loop below */
		for (int i = 0; i < 1000000; i++)
			sink++;
}

/* The spinners' pids, in memory shared with the child that forks them:
 * only their samples count (another copy of this test, with the same
 * execname, spins meanwhile). */
static pid_t *spinners;

static void do_spin_all_cpus(void)
{
	int n = prov_perf_ncpus();
	pid_t *kids = spinners;

	for (int c = 0; c < n && c < 64; c++) {
		pid_t kid = fork();

		if (kid == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(c, &set);
			sched_setaffinity(0, sizeof(set), &set);
			spin_here();
			_exit(0);
		}
		kids[c] = kid;	/* the parent's side only: kids is shared */
	}
	for (int c = 0; c < n && c < 64; c++)
		waitpid(kids[c], NULL, 0);
}

static void test_profile_every_cpu(void **state)
{
	dtrace_id_t pr;
	int n = prov_perf_ncpus(), inspin = 0, user = 0;
	uint64_t cpus = 0;
	uintptr_t lo = (uintptr_t)__start_dtui_spin;
	uintptr_t hi = (uintptr_t)__stop_dtui_spin;

	live_require();
	live_reset();
	spinners = mmap(NULL, 64 * sizeof(pid_t), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(spinners != MAP_FAILED);
	pr = live_enable("profile", "", "", "profile-997");
	live_run(do_spin_all_cpus);
	live_disable(pr);
	for (int i = 0; i < live_n; i++) {
		live_rec_t *r = &live_recs[i];
		int mine = 0;

		for (int c = 0; c < n && c < 64; c++)
			mine |= r->lr_pid == spinners[c];
		if (r->lr_id != pr || !mine)
			continue;
		cpus |= 1ull << (r->lr_cpu & 63);
		if (r->lr_args[1] != 0) {
			user++;
			assert_int_equal(r->lr_args[0], 0);
		}
		if (r->lr_args[1] >= lo && r->lr_args[1] < hi)
			inspin++;
	}
	for (int c = 0; c < n && c < 64; c++)
		assert_true(cpus & (1ull << c));
	assert_true(user > 50);
	assert_true(inspin > user / 4);
	munmap(spinners, 64 * sizeof(pid_t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscall_count),
		cmocka_unit_test(test_openat_paths_and_errno),
		cmocka_unit_test(test_proc_lifecycle),
		cmocka_unit_test(test_sched_pairing),
		cmocka_unit_test(test_profile_every_cpu),
	};
	return cmocka_run_group_tests_name("prov_live", tests, live_setup,
	    live_teardown);
}
