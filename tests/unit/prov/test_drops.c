/*
 * test_drops.c - a flood of events into small rings (root only): the
 * drops the providers report, added to the firings kept, account for
 * every event the workload caused (comm/fork/exit records sit in rings of
 * their own, so their losses are not counted).  The probe is filtered in
 * the kernel on the run's cookie (live.h): the calls the workload makes
 * with another argument, and another copy of this test's flood, never
 * reach the rings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sched.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "live.h"

#define NFLOOD 300000
#define NOTHER 1000

/* A system call nobody else makes (it fails with EINVAL) with the run's
 * cookie, so every event and every drop on its probe is the workload's;
 * and calls with another argument, which the filter keeps out. */
static void flood(void)
{
	for (int i = 0; i < NFLOOD; i++) {
		syscall(SYS_sched_get_priority_max, live_cookie);
		if (i % (NFLOOD / NOTHER) == 0)
			syscall(SYS_sched_get_priority_max, live_cookie + 1);
	}
}

static void test_drops_account_for_every_event(void **state)
{
	dtrace_id_t in;
	uint64_t before, drops;
	int kept;
	pid_t pid;

	live_require();
	live_reset();
	before = prov_drops(-1);
	in = live_enable("syscall", "", "sched_get_priority_max",
	    "entry");
	live_only_cookie(in);
	pid = live_run(flood);
	live_nudge_cpus();
	prov_flush();
	live_disable(in);
	kept = live_count(in, pid);
	drops = prov_drops(-1) - before;
	print_message("kept %d dropped %llu of %d\n", kept,
	    (unsigned long long)drops, NFLOOD);
	assert_true(drops > 0);
	assert_int_equal(kept + drops, NFLOOD);
	for (int i = 0; i < live_n; i++)
		if (live_recs[i].lr_id == in)
			assert_int_equal(live_recs[i].lr_args[0], live_cookie);
}

static int setup_small(void **state)
{
	prov_set_ring_kb(8);
	return live_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drops_account_for_every_event),
	};
	return cmocka_run_group_tests_name("prov_drops", tests, setup_small,
	    live_teardown);
}
