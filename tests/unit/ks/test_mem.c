/*
 * test_mem.c - what a state may cost: no allocation in probe context and
 * bounded memory under sustained firing, dynamic variable drops through a
 * DIF program, and the destructive actions (raise, breakpoint).
 */
#include <malloc.h>
#include <signal.h>
#include "ks_test.h"
#include "ks_impl.h"

/* DIF: x[arg0] = arg0; return arg0 (a global associative array). */
static uint32_t assoc_store(dofb_t *b)
{
	dif_instr_t code[] = {
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_STV(DIF_OP_STGAA, DIF_VAR_OTHER_UBASE, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_difv_t v;
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };

	memset(&v, 0, sizeof(v));
	v.dtdv_name = 0;
	v.dtdv_id = DIF_VAR_OTHER_UBASE;
	v.dtdv_kind = DIFV_KIND_ARRAY;
	v.dtdv_scope = DIFV_SCOPE_GLOBAL;
	v.dtdv_flags = DIFV_F_REF | DIFV_F_MOD;
	v.dtdv_type = t;
	return dofb_difo(b, code, 5, NULL, 0, "x", 2, &v, 1, t);
}

/* p0 { trace(x[arg0] = arg0); @[arg0] = count(); } */
static ks_state_t *busy_state(uint64_t dynvarsize)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[3];

	kt_setup();
	dofb_option(b, DTRACEOPT_BUFSIZE, 64 << 10);
	dofb_option(b, DTRACEOPT_AGGSIZE, 64 << 10);
	dofb_option(b, DTRACEOPT_DYNVARSIZE, dynvarsize);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, assoc_store(b), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[2] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[2].dofa_ntuple = 1;
	kt_clause(b, 0, DOF_SECIDX_NONE, a, 3);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	return st;
}

static void dynvar_drops(void **state)
{
	ks_state_t *st = busy_state(4096);
	dtrace_status_t s;
	uint64_t i;

	(void)state;
	for (i = 1; i <= 2000; i++)
		kt_fire(0, 0, i, 0);
	s = kt_status(st);
	assert_true(s.dtst_dyndrops > 0);
	assert_true(s.dtst_dyndrops < 2000);
	assert_int_equal(s.dtst_errors, 0);
	ks_close(st);
}

static void bounded_memory(void **state)
{
	ks_state_t *st = busy_state(64 << 10);
	static char buf[64 << 10];
	size_t before, after;
	uint64_t i;
	int round;

	(void)state;
	for (i = 0; i < 1000; i++)	/* warm up: snapshots, stdio */
		kt_fire(0, 0, i, 0);
	(void)kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	(void)kt_status(st);
	before = mallinfo2().uordblks;
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 10000; i++)
			kt_fire(0, (unsigned)(i % ks_ncpus()),
			    (uint64_t)round * 10000 + i, i);
		(void)kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
		(void)kt_snap(st, 0, buf, sizeof(buf), 1, NULL);
		(void)kt_status(st);
	}
	after = mallinfo2().uordblks;
	assert_int_equal(after, before);
	/* 200,000 distinct keys went into 64 KiB of dynamic variables */
	assert_true(ks_vstate_used(st->st_vstate) <= (64 << 10));
	assert_true(kt_status(st).dtst_dyndrops > 0);
	ks_close(st);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1++;
}

static void destructive_actions(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	dtrace_status_t s;

	(void)state;
	kt_setup();
	signal(SIGUSR1, on_usr1);
	dofb_option(b, DTRACEOPT_DESTRUCTIVE, 1);
	a = dofb_act(DTRACEACT_RAISE, dofb_difo_int(b, SIGUSR1, 4), 0);
	kt_clause(b, 5, DOF_SECIDX_NONE, &a, 1);
	a = dofb_act(DTRACEACT_BREAKPOINT, DOF_SECIDX_NONE, 0);
	kt_clause(b, 6, DOF_SECIDX_NONE, &a, 1);
	a = dofb_act(DTRACEACT_CHILL, dofb_difo_int(b, 1000, 8), 0);
	kt_clause(b, 4, DOF_SECIDX_NONE, &a, 1);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(5, 0, 0, 0);
	assert_int_equal(got_usr1, 1);
	kt_fire(4, 0, 0, 0);
	/* breakpoint() is not available on Linux: an illegal-op error */
	kt_fire(6, 0, 0, 0);
	s = kt_status(st);
	assert_int_equal(s.dtst_errors, 1);
	ks_close(st);
	signal(SIGUSR1, SIG_DFL);
}

/* chill() spins at most 0.5 s per second, however much is asked. */
static void chill_is_bounded(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	uint64_t t0, t;

	(void)state;
	kt_setup();
	dofb_option(b, DTRACEOPT_DESTRUCTIVE, 1);
	a = dofb_act(DTRACEACT_CHILL, dofb_difo_int(b, 2000000000ull, 8), 0);
	kt_clause(b, 4, DOF_SECIDX_NONE, &a, 1);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	t0 = ks_gethrtime();
	kt_fire(4, 0, 0, 0);
	kt_fire(4, 0, 0, 0);
	t = ks_gethrtime() - t0;
	assert_true(t >= 450000000ull);
	assert_true(t < 1500000000ull);	/* 4 s were asked for */
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dynvar_drops),
		cmocka_unit_test(bounded_memory),
		cmocka_unit_test(destructive_actions),
		cmocka_unit_test(chill_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
