/*
 * test_drops.c - a flood of events into small rings (root only): the
 * drops the providers report, added to the firings kept, account for
 * every event the workload caused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "live.h"

#define NFLOOD 300000

static void flood(void)
{
	for (int i = 0; i < NFLOOD; i++)
		syscall(SYS_getppid);
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
	in = live_enable("syscall", "", "getppid", "entry");
	pid = live_run(flood);
	live_disable(in);
	kept = live_count(in, pid);
	drops = prov_drops(-1) - before;
	print_message("kept %d dropped %llu of %d\n", kept,
	    (unsigned long long)drops, NFLOOD);
	assert_true(drops > 0);
	/* other records (fork, exit, other processes) may be lost too */
	assert_true(kept + drops >= NFLOOD);
	assert_true(kept + drops <= NFLOOD + 64);
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
