/*
 * test_bpf_agg.c - firings counted in the kernel (providers/bpf/bpf_agg.c),
 * as root on real system calls: with a plan from the test's plan hook the
 * slot of syscall::getppid:entry runs the aggregating body, and the
 * firings replayed through the fire hook come to exactly the calls a
 * child made, with the key's values (execname, pid, arguments) in their
 * contexts; the plan changing to records and back mid-stream loses and
 * doubles nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "live.h"
#include "bpf_agg.h"
#include "engine.h"

static dtrace_id_t plan_probe = DTRACE_IDNONE;
static ks_aggplan_t plan_now;

static int plan_hook(dtrace_id_t id, ks_aggplan_t *out)
{
	memset(out, 0, sizeof(*out));
	if (id == plan_probe)
		*out = plan_now;
	return 0;
}

/* Set the plan of probe id (ok 0: records) and install it. */
static void set_plan(dtrace_id_t id, int ok, unsigned vars, uint32_t args)
{
	plan_probe = id;
	memset(&plan_now, 0, sizeof(plan_now));
	plan_now.kap_ok = ok;
	plan_now.kap_vars = vars;
	plan_now.kap_args = args;
	prov_bpf_filter_update();
}

/* The plan the probe's slot aggregates with, -1 if records. */
static int slot_plan(dtrace_id_t id)
{
	int slot = prov_bpf_filter_find(id);

	if (slot < 0) {
		print_message("no BPF slot for the probe (BPF unusable)\n");
		skip();
	}
	return prov_bpf_filter_agg(slot);
}

/* Firings of id with execname comm. */
static int count_exec(dtrace_id_t id, const char *comm)
{
	int n = 0;

	pthread_mutex_lock(&live_lk);
	for (int i = 0; i < live_n; i++)
		if (live_recs[i].lr_id == id &&
		    strcmp(live_recs[i].lr_exec, comm) == 0)
			n++;
	pthread_mutex_unlock(&live_lk);
	return n;
}

static int nloops = 1234;

static void getppids(void)
{
	for (int i = 0; i < nloops; i++)
		syscall(SYS_getppid);
}

/* A name no other process has (another copy of this test has the same
 * execname as this one, and calls getppid too): "agg" and the pid. */
static void own_name(pid_t pid, char comm[16])
{
	snprintf(comm, 16, "agg%d", (int)pid);
}

static void named_getppids(void)
{
	char comm[16];

	own_name(getpid(), comm);
	prctl(PR_SET_NAME, comm);
	getppids();
}

static void count_by_execname(void **state)
{
	uint64_t fired0, calls0, drops0, fired, calls, drops;
	char comm[16] = "";
	dtrace_id_t id;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getppid", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_EXECNAME), 0);
	assert_true(slot_plan(id) > 0);
	prov_bpf_agg_stats(&fired0, &calls0, &drops0);
	live_reset();
	nloops = 1234;
	own_name(live_run(named_getppids), comm);
	prov_bpf_agg_stats(&fired, &calls, &drops);
	assert_int_equal(count_exec(id, comm), 1234);
	assert_true(fired - fired0 >= 1234);
	assert_true(calls - calls0 < 100);	/* counted, not recorded */
	assert_int_equal(drops, drops0);
	set_plan(id, 0, 0, 0);
	live_disable(id);
}

static void getpriorities(void)
{
	for (int i = 0; i < 600; i++)		/* who: no such process */
		syscall(SYS_getpriority, PRIO_PROCESS, 900000000 + i % 3);
}

/* @[pid, arg1] style keys: the count of each key, on the right pid. */
static void keyed_args(void **state)
{
	int per[3] = { 0, 0, 0 }, other = 0;
	dtrace_id_t id;
	pid_t pid;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getpriority", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_ARG), 1u << 1);
	assert_true(slot_plan(id) > 0);
	live_reset();
	pid = live_run(getpriorities);
	pthread_mutex_lock(&live_lk);
	for (int i = 0; i < live_n; i++) {
		int64_t who = (int64_t)live_recs[i].lr_args[1] - 900000000;

		if (live_recs[i].lr_id != id || live_recs[i].lr_pid != pid)
			continue;
		if (who >= 0 && who < 3)
			per[who]++;
		else
			other++;
	}
	pthread_mutex_unlock(&live_lk);
	assert_int_equal(per[0], 200);
	assert_int_equal(per[1], 200);
	assert_int_equal(per[2], 200);
	assert_int_equal(other, 0);
	set_plan(id, 0, 0, 0);
	live_disable(id);
}

/* errno keyed on a :return probe: -ESRCH read as errno 3. */
static void keyed_errno(void **state)
{
	int n = 0;
	dtrace_id_t id;
	pid_t pid;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getpriority", "return");
	/* keyed on the pid too: another copy of this test makes the same
	 * failing calls, and only this child's are counted */
	set_plan(id, 1, PROV_FV(KS_FV_ERRNO) | PROV_FV(KS_FV_PID), 0);
	assert_true(slot_plan(id) > 0);
	live_reset();
	pid = live_run(getpriorities);
	pthread_mutex_lock(&live_lk);
	for (int i = 0; i < live_n; i++)
		n += live_recs[i].lr_id == id && live_recs[i].lr_pid == pid &&
		    live_recs[i].lr_errno == ESRCH;
	pthread_mutex_unlock(&live_lk);
	assert_int_equal(n, 600);
	set_plan(id, 1, PROV_FV(KS_FV_ERRNO) | PROV_FV(KS_FV_ARG), 1u << 0);
	assert_true(slot_plan(id) > 0);
	live_disable(id);
	id = live_enable("syscall", "", "getpriority", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_ERRNO), 0);	/* no return value */
	assert_true(slot_plan(id) < 0);
	set_plan(id, 0, 0, 0);
	live_disable(id);
}

/* Records, then counts, then records again, then counts with another
 * key: each child's calls come out exactly once. */
static void plan_changes(void **state)
{
	static const int ok[4] = { 1, 0, 1, 0 };
	static const unsigned vars[4] = { PROV_FV(KS_FV_PID), 0,
		PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_TID), 0 };
	pid_t pids[4];
	dtrace_id_t id;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getppid", "entry");
	live_reset();
	for (int k = 0; k < 4; k++) {
		set_plan(id, ok[k], vars[k], 0);
		assert_true(ok[k] ? slot_plan(id) > 0 : slot_plan(id) < 0);
		nloops = 300 + 100 * k;
		pids[k] = live_run(getppids);
	}
	for (int k = 0; k < 4; k++)
		assert_int_equal(live_count(id, pids[k]), 300 + 100 * k);
	set_plan(id, 0, 0, 0);
	live_disable(id);
}

/* A plan replaced (an ENABLE begins) fires its counts at once, before
 * the watcher returns: no prov_flush here. */
static void replaced_plan_fires(void **state)
{
	dtrace_id_t id;
	pid_t pid;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getppid", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_PID), 0);
	assert_true(slot_plan(id) > 0);
	live_reset();
	pid = fork();
	if (pid == 0) {
		nloops = 777;
		getppids();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	set_plan(id, 0, 0, 0);
	assert_int_equal(live_count(id, pid), 777);
	live_disable(id);
}

/* A plan no slot holds any more has its keys drained one last time and
 * deleted after the reclaim delay (so sessions that come and go do not
 * fill the maps); held again (same probe and layout: same plan id), it
 * counts from empty keys.  Exact both times. */
static void unheld_plan_reclaimed(void **state)
{
	dtrace_id_t id;
	pid_t a, b;
	int plan;

	(void)state;
	live_require();
	prov_bpf_agg_set_reclaim(50000000);	/* 50 ms */
	id = live_enable("syscall", "", "getppid", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_PID), 0);
	plan = slot_plan(id);
	assert_true(plan > 0);
	live_reset();
	nloops = 500;
	a = live_run(getppids);
	prov_bpf_agg_drain(1);
	assert_true(prov_bpf_agg_nkeys(plan) >= 1);
	set_plan(id, 0, 0, 0);			/* records: plan unheld */
	usleep(100000);
	prov_bpf_agg_drain(1);
	assert_int_equal(prov_bpf_agg_nkeys(plan), 0);
	set_plan(id, 1, PROV_FV(KS_FV_PID), 0);
	assert_int_equal(slot_plan(id), plan);
	nloops = 300;
	b = live_run(getppids);
	assert_int_equal(live_count(id, a), 500);
	assert_int_equal(live_count(id, b), 300);
	set_plan(id, 0, 0, 0);
	prov_bpf_agg_set_reclaim(0);
	live_disable(id);
}

static void manywho(void)
{
	for (int i = 0; i < 400; i++)		/* 400 keys, no such process */
		syscall(SYS_getpriority, PRIO_PROCESS, 900000000 + i);
}

/* Reclaiming 400 keys of one plan leaves the keys of another plan that
 * share last[] reachable: they are drained again afterwards (their map
 * entries stay) and must not fire their counts a second time. */
static void reclaim_keeps_other_keys(void **state)
{
	dtrace_id_t id;
	pid_t a, b;
	int p1;

	(void)state;
	live_require();
	prov_bpf_agg_set_reclaim(50000000);
	id = live_enable("syscall", "", "getpriority", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_ARG), 1u << 1);
	p1 = slot_plan(id);
	assert_true(p1 > 0);
	live_reset();
	a = live_run(manywho);
	assert_true(prov_bpf_agg_nkeys(p1) >= 400);
	set_plan(id, 1, PROV_FV(KS_FV_PID), 0);	/* p1 unheld */
	assert_true(slot_plan(id) != p1);
	nloops = 0;
	b = live_run(getpriorities);
	usleep(100000);
	prov_bpf_agg_drain(1);			/* p1's keys go */
	assert_int_equal(prov_bpf_agg_nkeys(p1), 0);
	prov_bpf_agg_drain(1);			/* b's key read again */
	prov_bpf_agg_drain(1);
	assert_int_equal(live_count(id, a), 400);
	assert_int_equal(live_count(id, b), 600);
	set_plan(id, 0, 0, 0);
	prov_bpf_agg_set_reclaim(0);
	live_disable(id);
}

/* Plans the slot cannot serve install records. */
static void plan_refused(void **state)
{
	dtrace_id_t id;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getppid", "entry");
	set_plan(id, 1, PROV_FV(KS_FV_ARG), 1u << 3);	/* no arg3 */
	assert_true(slot_plan(id) < 0);
	set_plan(id, 1, PROV_FV(KS_FV_EXECNAME), 0);
	assert_true(slot_plan(id) > 0);
	set_plan(id, 0, PROV_FV(KS_FV_EXECNAME), 0);
	assert_true(slot_plan(id) < 0);
	live_disable(id);
}

/* Through the engine and the shim's own plan: an execname predicate
 * filtered in the kernel leaves the comm on the stack, and the counting
 * body keys on that copy (one get_current_comm in the program, not two);
 * the count is exact. */
static void filter_comm_reused(void **state)
{
	static struct bpf_insn prog[4096];
	char err[256], src[256], comm[16] = "", saved[16] = "", *text = NULL;
	size_t len = 0;
	eng_prog_t *pr;
	unsigned ncalls = 0;
	int n, slot, helpers = 0;
	long got;
	eng_hdl_t *h;
	FILE *fp;

	(void)state;
	live_require();
	prov_bpf_agg_set_plan_hook(NULL);
	prov_set_fire_hook(NULL);
	/* this thread's own name: another copy of the test, with the same
	 * execname, calls getppid meanwhile */
	prctl(PR_GET_NAME, saved);
	own_name(getpid(), comm);
	prctl(PR_SET_NAME, comm);
	h = eng_open(0, err, sizeof(err));
	assert_non_null(h);
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	snprintf(src, sizeof(src), "syscall::getppid:entry /execname == "
	    "\"%s\"/ { @[execname] = count(); }", comm);
	pr = eng_compile_str(h, src, NULL, 0, NULL);
	assert_non_null(pr);
	assert_int_equal(eng_prog_exec(h, pr, &ncalls), 0);
	if (eng_go(h) != 0) {
		print_message("skipped: %s\n", eng_errmsg(h));
		eng_close(h);
		eng_prog_free(pr);
		skip();
	}
	slot = prov_bpf_filter_find(live_find("syscall", "", "getppid",
	    "entry"));
	assert_true(slot >= 0);
	assert_true(prov_bpf_filter_agg(slot) > 0);
	n = prov_bpf_filter_prog(slot, prog, 4096);
	for (int i = 0; i < n; i++)
		helpers += prog[i].code == (BPF_JMP | BPF_CALL) &&
		    prog[i].imm == BPF_FUNC_get_current_comm;
	assert_int_equal(helpers, 1);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	assert_int_equal(eng_stop(h), 0);
	fp = open_memstream(&text, &len);
	assert_int_equal(eng_agg_snap(h), 0);
	assert_int_equal(eng_agg_print(h, fp), 0);
	fclose(fp);
	/* the engine's own threads may make a getppid() or two */
	got = strrchr(text, ' ') != NULL ? atol(strrchr(text, ' ')) : 0;
	if (got < 1000 || got > 1005)
		fail_msg("counted not 1000: <%s>", text);
	free(text);
	eng_close(h);
	eng_prog_free(pr);
	prctl(PR_SET_NAME, saved);
	prov_set_fire_hook(live_hook);
	prov_bpf_agg_set_plan_hook(plan_hook);
}

static int setup(void **state)
{
	prov_bpf_agg_set_plan_hook(plan_hook);
	return live_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(count_by_execname),
		cmocka_unit_test(keyed_args),
		cmocka_unit_test(keyed_errno),
		cmocka_unit_test(plan_changes),
		cmocka_unit_test(plan_refused),
		cmocka_unit_test(replaced_plan_fires),
		cmocka_unit_test(unheld_plan_reclaimed),
		cmocka_unit_test(reclaim_keeps_other_keys),
		cmocka_unit_test(filter_comm_reused),	/* last: the engine */
	};

	return cmocka_run_group_tests(tests, setup, live_teardown);
}
