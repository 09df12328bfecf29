/*
 * test_spec_clean.c - committed and discarded speculations come back:
 * once a cleanrate interval has passed, speculation() hands the buffer
 * out again without any STATUS call; before that, speculation() and
 * speculate() fail with the "busy" count, not "unavailable".
 */
#include <time.h>
#include "ks_test.h"

#define CLEAN_NS	20000000ull		/* cleanrate: 20 ms */

/* DIF: return speculation(). */
static uint32_t speculation_difo(dofb_t *b)
{
	dif_instr_t code[] = {
		DIF_INSTR_CALL(DIF_SUBR_speculation, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 4 };

	return dofb_difo(b, code, 2, NULL, 0, NULL, 0, NULL, 0, t);
}

/* p0 { trace(speculation()) }  p1 { speculate(arg0); trace(arg1) }
 * p2 { commit(arg0) }  p3 { discard(arg0) }, one speculation. */
static ks_state_t *spec_state(void)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[2];

	kt_setup();
	dofb_option(b, DTRACEOPT_NSPEC, 1);
	dofb_option(b, DTRACEOPT_CLEANRATE, CLEAN_NS);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, speculation_difo(b), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, a, 1);			/* EPID 1 */
	a[0] = dofb_act(DTRACEACT_SPECULATE, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 1), 0);
	kt_clause(b, 1, DOF_SECIDX_NONE, a, 2);			/* EPID 2 */
	a[0] = dofb_act(DTRACEACT_COMMIT, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 2, DOF_SECIDX_NONE, a, 1);			/* EPID 3 */
	a[0] = dofb_act(DTRACEACT_DISCARD, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 3, DOF_SECIDX_NONE, a, 1);			/* EPID 4 */
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	return st;
}

/* The speculation ids EPID 1 recorded in cpu 0's buffer, in order. */
static int ids(ks_state_t *st, uint32_t *out, int max)
{
	char buf[4096];
	uint64_t off, n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	int k = 0;

	for (off = 0; off + 16 <= n;) {
		dtrace_epid_t e;

		memcpy(&e, buf + off, 4);
		if (e == 1 && k < max)
			memcpy(&out[k++], buf + off + 12, 4);
		off += e == 2 ? 24 : 16;
	}
	return k;
}

static void wait_clean(void)
{
	struct timespec ts = { 0, (long)(CLEAN_NS + CLEAN_NS / 2) };

	nanosleep(&ts, NULL);
}

static void recycled_after_commit_and_discard(void **state)
{
	ks_state_t *st = spec_state();
	uint32_t v[8];
	dtrace_status_t s;

	(void)state;
	kt_fire(0, 0, 0, 0);	/* 1 */
	kt_fire(1, 0, 1, 100);
	kt_fire(2, 0, 1, 0);	/* commit(1) */
	kt_fire(0, 0, 0, 0);	/* 0: still being cleaned (busy) */
	kt_fire(1, 0, 1, 101);	/* busy */
	wait_clean();
	kt_fire(0, 0, 0, 0);	/* 1 again, without STATUS */
	kt_fire(3, 0, 1, 0);	/* discard(1) */
	kt_fire(0, 0, 0, 0);	/* 0: busy */
	wait_clean();
	kt_fire(0, 0, 0, 0);	/* 1 */
	kt_fire(0, 0, 0, 0);	/* 0: in use, none cleaning: unavailable */
	assert_int_equal(ids(st, v, 8), 6);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 1);
	assert_int_equal(v[3], 0);
	assert_int_equal(v[4], 1);
	assert_int_equal(v[5], 0);
	s = kt_status(st);
	assert_int_equal(s.dtst_specdrops_busy, 3);
	assert_int_equal(s.dtst_specdrops_unavail, 1);
	ks_close(st);
}

static void speculate_after_clean_is_silent(void **state)
{
	ks_state_t *st = spec_state();
	dtrace_status_t s;

	(void)state;
	kt_fire(0, 0, 0, 0);
	kt_fire(2, 0, 1, 0);	/* commit(1) */
	wait_clean();
	kt_fire(1, 0, 1, 5);	/* cleaned: INACTIVE, dropped silently */
	s = kt_status(st);
	assert_int_equal(s.dtst_specdrops_busy, 0);
	assert_int_equal(s.dtst_specdrops, 0);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recycled_after_commit_and_discard),
		cmocka_unit_test(speculate_after_clean_is_silent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
