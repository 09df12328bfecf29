/*
 * test_bpf_sys_live.c - syscall probes on the raw_syscalls route at the
 * provider level (root only): a probe counting a child's calls while
 * other syscall probes are enabled and disabled again and again (their
 * entries come and go in the same arrays, and with the last of them the
 * raw events themselves) counts every call exactly once, on its own
 * tracepoint (the first few probes) and on the raw route (after
 * fillers); and a probe disabled with the last raw one and enabled again
 * fires again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "live.h"

#define CALLS 30000
/* The counted call: one nobody else makes (getppid() is this project's
 * flood workload, which other tests may run meanwhile); fails EINVAL. */
#define COUNTED "sched_get_priority_min"

/* Calls other processes rarely make: the probes have no predicate, and
 * a flood from elsewhere would only overrun the rings. */
static const char *const others[] = {
	"getpriority", "setpriority", "getitimer", "getsid", "getpgid",
	"capget", "sysinfo", "getrlimit", "ioprio_get", "sched_getparam",
	"sched_getscheduler", "personality",
};
#define NOTHERS (int)(sizeof(others) / sizeof(others[0]))

/* What the child made, in memory shared with it: it calls until told to
 * stop (the parent has churned enough while it ran), so the test waits
 * for that condition rather than for a number of calls to take long
 * enough under whatever load the machine has. */
struct shared {
	volatile long made;
	volatile int stop;
};

static pid_t start_child(int *gofd, struct shared *sh)
{
	int go[2];
	char c;
	pid_t pid;

	if (pipe(go) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		while (!sh->stop || sh->made < CALLS) {
			syscall(SYS_sched_get_priority_min, live_cookie);
			if (++sh->made % 100 == 0)
				usleep(1000);
		}
		_exit(0);
	}
	close(go[0]);
	*gofd = go[1];
	return pid;
}

/* Enabled first, they put the probes after them on the raw route. */
static const char *const fillers[] = {
	"setuid", "setgid", "setsid", "setpgid", "setreuid", "setregid",
	"setresuid", "setresgid", "setfsuid", "setfsgid",
};
#define NFILLERS (int)(sizeof(fillers) / sizeof(fillers[0]))
static dtrace_id_t fill_ids[NFILLERS];

static void fill(void)
{
	for (int i = 0; i < NFILLERS; i++)
		fill_ids[i] = live_enable("syscall", "", fillers[i], "entry");
	assert_true(prov_bpf_sys_busy());
}

static void unfill(void)
{
	for (int i = 0; i < NFILLERS; i++)
		live_disable(fill_ids[i]);
}

/* Enable every other probe (entry and return), then disable them. */
static void churn(void)
{
	dtrace_id_t ids[2 * NOTHERS];

	for (int i = 0; i < NOTHERS; i++) {
		ids[2 * i] = live_enable("syscall", "", others[i], "entry");
		ids[2 * i + 1] = live_enable("syscall", "", others[i],
		    "return");
	}
	usleep(3000);
	for (int i = 0; i < 2 * NOTHERS; i++)
		live_disable(ids[i]);
}

/* raw: the counting probe on the raw route (else its own tracepoint);
 * filtered on the run's cookie (live.h), so that another copy of the
 * test calling the same system call neither adds firings nor fills the
 * rings. */
static void count_while_others_come_and_go(int raw)
{
	struct shared *sh;
	dtrace_id_t a;
	int gofd = -1, st, rounds = 0, n;
	uint64_t before, drops;
	pid_t pid;

	live_require();
	live_reset();
	if (raw)
		fill();
	before = prov_drops(-1);
	a = live_enable("syscall", "", COUNTED, "entry");
	live_only_cookie(a);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	pid = start_child(&gofd, sh);
	assert_true(pid > 0);
	assert_int_equal(write(gofd, "g", 1), 1);
	close(gofd);
	while (rounds < 3 || sh->made < CALLS / 2) {
		churn();
		rounds++;
	}
	sh->stop = 1;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	live_nudge_cpus_nr(SYS_sched_get_priority_min);
	prov_flush();
	live_disable(a);
	if (raw)
		unfill();
	n = live_count(a, pid);
	drops = prov_drops(-1) - before;
	print_message("%d rounds of enabling %d probes; %d of %ld counted, "
	    "%llu dropped\n", rounds, 2 * NOTHERS, n, sh->made,
	    (unsigned long long)drops);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* nothing doubled; nothing lost unless the rings overflowed (the
	 * drops say so) */
	assert_true(n <= sh->made);
	if (drops == 0)
		assert_int_equal(n, sh->made);
	else
		assert_true(n + (long)drops >= sh->made);
	munmap(sh, sizeof(*sh));
}

static void test_count_own_route(void **state)
{
	count_while_others_come_and_go(0);
}

static void test_count_raw_route(void **state)
{
	count_while_others_come_and_go(1);
}

static void do_calls(void)
{
	for (int i = 0; i < 100; i++)
		syscall(SYS_sched_get_priority_min, live_cookie);
}

/* Disabling the last syscall probe detaches the raw events; enabling
 * one again starts them anew. */
static void test_reenable(void **state)
{
	dtrace_id_t a, r;
	pid_t pid;

	live_require();
	live_reset();
	fill();
	a = live_enable("syscall", "", COUNTED, "entry");
	r = live_enable("syscall", "", COUNTED, "return");
	pid = live_run(do_calls);
	assert_int_equal(live_count(a, pid), 100);
	assert_int_equal(live_count(r, pid), 100);
	live_disable(a);
	live_disable(r);
	unfill();
	assert_false(prov_bpf_sys_busy());
	pid = live_run(do_calls);
	assert_int_equal(live_count(a, pid), 0);
	fill();
	a = live_enable("syscall", "", COUNTED, "entry");
	pid = live_run(do_calls);
	live_disable(a);
	unfill();
	assert_int_equal(live_count(a, pid), 100);
	assert_int_equal(live_count(r, pid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_own_route),
		cmocka_unit_test(test_count_raw_route),
		cmocka_unit_test(test_reenable),
	};
	return cmocka_run_group_tests_name("prov_bpf_sys_live", tests,
	    live_setup, live_teardown);
}
