/*
 * test_bpf_window.c - the window of an ENABLE (root only): a probe that
 * an ENABLE starts drops every firing in the kernel until the ENABLE
 * ends (bpf_filter.c's hold), so a flood from another process during it
 * neither reaches the drain thread nor overruns the (small) rings; once
 * the ENABLE is over the probe delivers every firing again (kept plus
 * reported ring drops: the rings are small).  The probe is filtered on
 * the run's cookie (live.h), so another copy of this test flooding the
 * same call meanwhile neither adds firings nor drops here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sched.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "live.h"
#include "ks_filter.h"
#include "bpf_filter.h"

#define NFLOOD 300000
#define NAFTER 1000

/* A system call nobody else makes (it fails with EINVAL), with the
 * run's cookie. */
static void flood(void)
{
	for (int i = 0; i < NFLOOD; i++)
		syscall(SYS_sched_get_priority_max, live_cookie);
}

static void after(void)
{
	for (int i = 0; i < NAFTER; i++)
		syscall(SYS_sched_get_priority_max, live_cookie);
}

static void test_flood_during_enable(void **state)
{
	struct bpf_insn prog[PROV_BPF_FMAX + 600];
	uint64_t before, drops;
	dtrace_id_t in;
	int kept, slot;
	pid_t pid;

	(void)state;
	live_require();
	live_reset();
	before = prov_drops(-1);
	live_cookie = 1000000 + (long)getpid();	/* filtered on at the end */
	live_cookie_probe = DTRACE_IDNONE;
	prov_bpf_filter_set_hook(live_cookie_filter);
	ks_filter_begin();		/* as DTRACEIOC_ENABLE does */
	in = live_enable("syscall", "", "sched_get_priority_max", "entry");
	slot = prov_bpf_filter_find(in);
	if (slot < 0) {
		ks_filter_end();
		live_disable(in);
		print_message("no BPF route for syscall probes here\n");
		skip();
	}
	live_cookie_probe = in;
	assert_int_equal(prov_bpf_filter_prog(slot, prog, PROV_BPF_FMAX +
	    600), 2);			/* held: r0 = 1; exit */
	pid = live_run(flood);
	live_nudge_cpus();
	prov_flush();
	kept = live_count(in, pid);
	drops = prov_drops(-1) - before;
	print_message("during the ENABLE: kept %d dropped %llu of %d\n",
	    kept, (unsigned long long)drops, NFLOOD);
	ks_filter_end();
	assert_int_equal(kept, 0);
	assert_int_equal(drops, 0);
	assert_int_not_equal(prov_bpf_filter_prog(slot, prog,
	    PROV_BPF_FMAX + 600), 2);	/* released */
	before = prov_drops(-1);
	pid = live_run(after);
	live_nudge_cpus();
	prov_flush();
	kept = live_count(in, pid);
	drops = prov_drops(-1) - before;
	live_disable(in);
	assert_true(kept > 0);
	assert_int_equal(kept + drops, NAFTER);
}

/* Outside an ENABLE a probe without ECBs is never held. */
static void test_no_hold_outside_enable(void **state)
{
	uint64_t before = prov_drops(-1), drops;
	dtrace_id_t in;
	pid_t pid;
	int kept;

	(void)state;
	live_require();
	live_reset();
	in = live_enable("syscall", "", "sched_get_priority_max", "entry");
	live_only_cookie(in);
	pid = live_run(after);
	live_nudge_cpus();
	prov_flush();
	kept = live_count(in, pid);
	drops = prov_drops(-1) - before;
	live_disable(in);
	assert_true(kept > 0);
	assert_int_equal(kept + drops, NAFTER);
}

static int setup_small(void **state)
{
	prov_set_ring_kb(8);
	return live_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flood_during_enable),
		cmocka_unit_test(test_no_hold_outside_enable),
	};
	return cmocka_run_group_tests_name("prov_bpf_window", tests,
	    setup_small, live_teardown);
}
