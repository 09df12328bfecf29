/*
 * test_ecbstat.c - DTRACEIOC_ECBSTAT: each ECB's runs, false predicates,
 * lost records and faults, counted against a known number of firings of
 * the test provider's probes.  Programs are compiled by the real
 * compiler (one ECB per clause and probe, EPIDs in clause order).
 */
#include <errno.h>
#include "ks_test.h"
#include "ks_impl.h"
#include "engine.h"

static int setup(void **state)
{
	(void)state;
	kt_setup();
	return 0;
}

/* Compile src (options as pragmas) and enable it in a fresh state. */
static ks_state_t *start(const char *src)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	dtrace_enable_arg_t ea;
	eng_prog_t *p;
	ks_state_t *st;
	size_t size;

	assert_non_null(h);
	p = eng_compile_str(h, src, NULL, 0, NULL);
	if (p == NULL)
		fail_msg("compile <%s>: %s", src, eng_errmsg(h));
	st = ks_open();
	assert_non_null(st);
	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = (void *)eng_prog_dof(p, &size);
	ea.dtea_size = size;
	if (ks_ioctl(st, DTRACEIOC_ENABLE, &ea) != 0)
		fail_msg("ENABLE <%s>: %s", src, ea.dtea_errmsg);
	eng_prog_free(p);
	eng_close(h);
	kt_go(st);
	return st;
}

/* The counters of every ECB (at most 8); returns how many there are. */
static uint32_t stats(ks_state_t *st, dtrace_ecbstat_t *out)
{
	dtrace_ecbstats_t s = { 8, 0, out };

	memset(out, 0xa5, 8 * sizeof(*out));
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ECBSTAT, &s), 0);
	return s.dtess_necbs;
}

static void counts_fires_and_predicates(void **state)
{
	ks_state_t *st = start("ktest:::p2 /arg0 == 7/ { trace(arg0); }\n"
	    "ktest:::p2 { @ = count(); }\nktest:::p3 { trace(arg1); }");
	dtrace_ecbstat_t e[8];

	(void)state;
	for (int i = 0; i < 10; i++)
		kt_fire(2, (unsigned)i % 2, i < 3 ? 7 : 1, 0);
	kt_fire(3, 1, 0, 5);
	assert_int_equal(stats(st, e), 3);
	assert_int_equal(e[0].dtes_fires, 10);
	assert_int_equal(e[0].dtes_predfalse, 7);
	assert_int_equal(e[0].dtes_drops, 0);
	assert_int_equal(e[0].dtes_errors, 0);
	assert_int_equal(e[1].dtes_fires, 10);	/* no predicate */
	assert_int_equal(e[1].dtes_predfalse, 0);
	assert_int_equal(e[2].dtes_fires, 1);
	ks_close(st);
}

/* One run in 64 is timed per CPU, the first one too: of 130 runs on
 * CPU 0 the 1st, 65th and 129th, of 2 on CPU 1 the 1st; a clause whose
 * probe never fired has none.  Their time, less the clock's cost, is
 * some ns each (not more than a second: no wild value). */
static void samples_one_run_in_64(void **state)
{
	ks_state_t *st = start("ktest:::p2 { trace(arg0); }\n"
	    "ktest:::p3 { trace(arg1); }");
	dtrace_ecbstat_t e[8];

	(void)state;
	for (int i = 0; i < 130; i++)
		kt_fire(2, 0, (uint64_t)i, 0);
	for (int i = 0; i < 2; i++)
		kt_fire(2, 1, (uint64_t)i, 0);
	assert_int_equal(stats(st, e), 2);
	assert_int_equal(e[0].dtes_fires, 132);
	assert_int_equal(e[0].dtes_samples, 4);
	assert_true(e[0].dtes_sampns < 4 * 1000000000ull);
	assert_int_equal(e[1].dtes_samples, 0);
	assert_int_equal(e[1].dtes_sampns, 0);
	assert_true(ks_ecb_clockcost() < 1000000);
	ks_close(st);
}

static void counts_faults(void **state)
{
	/* a load from address 0 faults in the action, a division by zero
	 * in the predicate: both are errors, neither a false predicate */
	ks_state_t *st = start("ktest:::p4 { trace(*(int *)arg0); }\n"
	    "ktest:::p4 /1 / arg1/ { trace(1); }");
	dtrace_ecbstat_t e[8];
	uint32_t n;

	(void)state;
	for (int i = 0; i < 4; i++)
		kt_fire(4, 0, 0, 0);
	n = stats(st, e);
	assert_true(n >= 2);
	assert_int_equal(e[0].dtes_fires, 4);
	assert_int_equal(e[0].dtes_errors, 4);
	assert_int_equal(e[1].dtes_errors, 4);
	assert_int_equal(e[1].dtes_predfalse, 0);
	assert_int_equal(kt_status(st).dtst_errors, 8);
	ks_close(st);
}

static void counts_drops(void **state)
{
	/* 64-byte buffers: each 24-byte record of p6 fits twice at most;
	 * the ECB's drops are the CPU's principal drops */
	ks_state_t *st = start("#pragma D option bufsize=64\n"
	    "ktest:::p6 { trace(arg0); }");
	static char buf[4096];
	dtrace_ecbstat_t e[8];
	uint64_t drops = 0;

	(void)state;
	for (int i = 0; i < 20; i++)
		kt_fire(6, 0, (uint64_t)i, 0);
	(void)kt_snap(st, 0, buf, sizeof(buf), 0, &drops);
	assert_true(drops > 0);
	assert_int_equal(stats(st, e), 1);
	assert_int_equal(e[0].dtes_fires, 20);
	assert_int_equal(e[0].dtes_drops, drops);
	ks_close(st);
}

static void weighted_firings_count_n(void **state)
{
	ks_state_t *st = start("ktest:::p5 { @[arg0] = count(); }");
	dtrace_ecbstat_t e[8];
	ks_probe_ctx_t ctx;

	(void)state;
	ks_probe_ctx_self(&ctx, kt_probe[5]);
	ctx.kpc_cpu = 1;
	ks_probe_fire_n(&ctx, 1000);
	kt_fire(5, 0, 0, 0);
	assert_int_equal(stats(st, e), 1);
	assert_int_equal(e[0].dtes_fires, 1001);
	/* both first runs timed: the run standing for 1000 firings times
	 * 1000 of them (its time is theirs) */
	assert_int_equal(e[0].dtes_samples, 1001);
	ks_close(st);
}

static void room_and_bad_arguments(void **state)
{
	ks_state_t *st = start("ktest:::p1 { trace(1); }\n"
	    "ktest:::p1 { trace(2); }\nktest:::p1 { trace(3); }");
	dtrace_ecbstat_t e[3];
	dtrace_ecbstats_t s = { 1, 0, e };

	(void)state;
	kt_fire(1, 0, 0, 0);
	memset(e, 0xa5, sizeof(e));
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ECBSTAT, &s), 0);
	assert_int_equal(s.dtess_necbs, 3);	/* all counted, one copied */
	assert_int_equal(e[0].dtes_fires, 1);
	assert_int_equal(e[1].dtes_fires, 0xa5a5a5a5a5a5a5a5ull);
	s.dtess_room = 0;			/* asking how many */
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ECBSTAT, &s), 0);
	assert_int_equal(s.dtess_necbs, 3);
	s.dtess_room = 2;
	s.dtess_stats = NULL;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ECBSTAT, &s), -1);
	assert_int_equal(errno, EINVAL);
	ks_close(st);
}

static void allocation_failure(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[1];

	(void)state;
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 7, DOF_SECIDX_NONE, a, 1);
	/* fail every allocation in turn until ENABLE gets through: no
	 * ECB without counters, nothing leaked (ASan) */
	for (unsigned long n = 1;; n++) {
		dtrace_enable_arg_t ea;
		size_t size;
		void *img = dofb_finish(b, &size);
		int rc;

		memset(&ea, 0, sizeof(ea));
		ea.dtea_dof = img;
		ea.dtea_size = size;
		ks_alloc_fail_nth(n);
		rc = ks_ioctl(st, DTRACEIOC_ENABLE, &ea);
		ks_alloc_fail_nth(0);
		free(img);
		if (rc == 0)
			break;
		assert_true(n < 200);
	}
	dofb_free(b);
	kt_go(st);
	kt_fire(7, 0, 0, 0);
	{
		dtrace_ecbstat_t e[8];

		assert_int_equal(stats(st, e), 1);
		assert_int_equal(e[0].dtes_fires, 1);
	}
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_fires_and_predicates),
		cmocka_unit_test(samples_one_run_in_64),
		cmocka_unit_test(counts_faults),
		cmocka_unit_test(counts_drops),
		cmocka_unit_test(weighted_firings_count_n),
		cmocka_unit_test(room_and_bad_arguments),
		cmocka_unit_test(allocation_failure),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
