/*
 * test_sys_route.c - which event source syscall probes get (root only).
 * A probe alone keeps a syscalls:sys_enter_X tracepoint of its own (only
 * its calls pay for it).  When more than SC_OWN_MAX probes are enabled
 * before anything records firings (dtrace's ENABLE before GO), all of
 * them end up on the raw_syscalls route, the first ones moved there, so
 * that no per-syscall tracepoint makes every call of the machine pay for
 * its callback as well; and they still count every call exactly once.
 * While firings are recorded (here: the test's fire hook), probes stay
 * on the route they were enabled on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "live.h"

/* Calls other processes rarely make; COUNTED is enabled first. */
#define COUNTED "sched_get_priority_min"
static const char *const names[] = {
	COUNTED, "setuid", "setgid", "setsid", "setpgid", "setreuid",
	"setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
};
#define NNAMES (int)(sizeof(names) / sizeof(names[0]))
static dtrace_id_t ids[NNAMES];

static void enable_all(void)
{
	for (int i = 0; i < NNAMES; i++)
		ids[i] = live_enable("syscall", "", names[i], "entry");
}

static void disable_all(void)
{
	for (int i = 0; i < NNAMES; i++)
		live_disable(ids[i]);
}

static void do_calls(void)
{
	for (int i = 0; i < 100; i++)
		syscall(SYS_sched_get_priority_min, 0);
}

static void test_alone_own(void **state)
{
	dtrace_id_t a;

	live_require();
	prov_set_fire_hook(NULL);
	assert_false(prov_firings_count());
	a = live_enable("syscall", "", "getppid", "entry");
	assert_int_equal(prov_syscall_nown(), 1);
	assert_false(prov_bpf_sys_busy());
	live_disable(a);
	assert_int_equal(prov_syscall_nown(), 0);
	prov_set_fire_hook(live_hook);
}

static void test_many_before_go_all_raw(void **state)
{
	pid_t pid;

	live_require();
	live_reset();
	prov_set_fire_hook(NULL);	/* nothing records: before GO */
	enable_all();
	assert_int_equal(prov_syscall_nown(), 0);
	assert_true(prov_bpf_sys_busy());
	prov_set_fire_hook(live_hook);	/* GO */
	pid = live_run(do_calls);
	assert_int_equal(live_count(ids[0], pid), 100);
	disable_all();
	assert_false(prov_bpf_sys_busy());
}

static void test_many_while_tracing_stay(void **state)
{
	pid_t pid;

	live_require();
	live_reset();
	enable_all();			/* the hook records firings */
	assert_int_equal(prov_syscall_nown(), 8);
	assert_true(prov_bpf_sys_busy());
	pid = live_run(do_calls);
	assert_int_equal(live_count(ids[0], pid), 100);
	disable_all();
	assert_int_equal(prov_syscall_nown(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alone_own),
		cmocka_unit_test(test_many_before_go_all_raw),
		cmocka_unit_test(test_many_while_tracing_stay),
	};
	return cmocka_run_group_tests_name("prov_sys_route", tests,
	    live_setup, live_teardown);
}
