/*
 * test_recplan.c - which probes get their records built in the kernel
 * (kernel-shim/recplan.c, ks_krec.h): clauses compiled by the real
 * compiler and enabled through the engine on the test provider's probes,
 * the plan read with ks_probe_recplan and checked value by value, and the
 * exactness of predicate translation (ks_filter_pred_exact).
 */
#include "ks_test.h"
#include "engine.h"
#include "ks_krec.h"

static int setup(void **state)
{
	(void)state;
	kt_setup();
	return 0;
}

static eng_prog_t *kept[64];
static int nkept;

/* Enable src in a fresh handle (closed by the caller); the plan of
 * probe 0 in *rp. */
static eng_hdl_t *plan(const char *src, ks_recplan_t *rp)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	eng_prog_t *p;
	unsigned n = 0;

	assert_non_null(h);
	p = eng_compile_str(h, src, NULL, 0, NULL);
	if (p == NULL)
		fail_msg("compile <%s>: %s", src, eng_errmsg(h));
	if (nkept < 64)
		kept[nkept++] = p;
	if (eng_prog_exec(h, p, &n) != 0)
		fail_msg("exec <%s>: %s", src, eng_errmsg(h));
	assert_int_equal(ks_probe_recplan(kt_probe[0], rp), 0);
	return h;
}

static int ok(const char *src)
{
	ks_recplan_t rp;
	eng_hdl_t *h = plan(src, &rp);

	eng_close(h);
	return rp.krp_ok;
}

static void values(void **state)
{
	ks_recplan_t rp;
	eng_hdl_t *h = plan("ktest:mod:func:p0 { printf(\"%d %s %s\", pid, "
	    "execname, probefunc); trace(arg1); trace(7); trace(\"k\"); }", &rp);
	const ks_krval_t *v = rp.krp_vals;

	(void)state;
	assert_int_equal(rp.krp_ok, 1);
	assert_int_equal(rp.krp_pred, 0);
	assert_int_equal(rp.krp_nvals, 6);
	assert_int_equal(v[0].kkv_kind, KS_KRV_PID);
	assert_int_equal(v[0].kkv_size, 4);
	assert_int_equal(v[0].kkv_off, 12);	/* after the header */
	assert_int_equal(v[1].kkv_kind, KS_KRV_COMM);
	assert_int_equal(v[1].kkv_size, 256);	/* strsize */
	assert_int_equal(v[2].kkv_kind, KS_KRV_STR);
	assert_string_equal(v[2].kkv_str, "func");
	assert_int_equal(v[3].kkv_kind, KS_KRV_ARG);
	assert_int_equal(v[3].kkv_arg, 1);
	assert_int_equal(v[3].kkv_size, 8);
	assert_int_equal(v[4].kkv_kind, KS_KRV_INT);
	assert_int_equal(v[4].kkv_val, 7);
	assert_int_equal(v[5].kkv_kind, KS_KRV_STR);
	assert_string_equal(v[5].kkv_str, "k");
	assert_true(rp.krp_vars & (1u << KS_FV_PID));
	assert_true(rp.krp_vars & (1u << KS_FV_EXECNAME));
	assert_int_equal(rp.krp_args, 2);
	assert_true(rp.krp_epid > 0);
	assert_int_equal(rp.krp_size % 8, 0);
	eng_close(h);
}

static void default_action(void **state)
{
	ks_recplan_t rp;
	eng_hdl_t *h = plan("ktest:mod:func:p0 { }", &rp);

	(void)state;
	assert_int_equal(rp.krp_ok, 1);
	assert_int_equal(rp.krp_nvals, 0);
	assert_int_equal(rp.krp_size, 16);	/* the 12-byte header */
	eng_close(h);
}

static void predicates(void **state)
{
	ks_recplan_t rp;
	eng_hdl_t *h;

	(void)state;
	h = plan("ktest:mod:func:p0 /pid == 12 && execname != \"x\"/ "
	    "{ trace(tid); }", &rp);
	assert_int_equal(rp.krp_ok, 1);
	assert_int_equal(rp.krp_pred, 1);
	assert_true(rp.krp_vars & (1u << KS_FV_TID));
	assert_true(rp.krp_vars & (1u << KS_FV_PID));
	eng_close(h);
	assert_true(ok("ktest:mod:func:p0 /arg0 > 3 || cpu == 1/ { trace(1); }"));
	/* loosened comparisons: not exact, so not in the kernel */
	assert_false(ok("self int x; "
	    "ktest:mod:func:p0 /self->x == 0/ { trace(1); }"));
	assert_false(ok("ktest:mod:func:p0 /arg0 == arg1/ { trace(1); }"));
	assert_false(ok("ktest:mod:func:p0 /execname < \"m\"/ { trace(1); }"));
	assert_false(ok("ktest:mod:func:p0 /0/ { trace(1); }"));
}

static void refused(void **state)
{
	(void)state;
	assert_false(ok("ktest:mod:func:p0 { trace(pid + 1); }"));
	assert_false(ok("ktest:mod:func:p0 { trace(walltimestamp); }"));
	assert_false(ok("ktest:mod:func:p0 { @ = count(); }"));
	assert_false(ok("ktest:mod:func:p0 { trace(pid); @ = count(); }"));
	assert_false(ok("ktest:mod:func:p0 { self->x = 1; trace(pid); }"));
	assert_false(ok("ktest:mod:func:p0 { stack(); }"));
	assert_false(ok("ktest:mod:func:p0 { trace(pid); exit(0); }"));
	assert_false(ok("ktest:mod:func:p0 { trace(copyinstr(arg0)); }"));
	/* a string cut by strsize stays in the shim, which cuts it */
	assert_false(ok("#pragma D option strsize=8\n"
	    "ktest:mod:func:p0 { trace(execname); }"));
	/* two clauses on the probe: their order is the shim's */
	assert_false(ok("ktest:mod:func:p0 { trace(1); } "
	    "ktest:mod:func:p0 { trace(2); }"));
	/* records larger than a kernel record may be */
	assert_false(ok("ktest:mod:func:p0 { trace(\"a\"); trace(\"b\"); "
	    "trace(\"c\"); trace(\"d\"); }"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values),
		cmocka_unit_test(default_action),
		cmocka_unit_test(predicates),
		cmocka_unit_test(refused),
	};
	int rc = cmocka_run_group_tests(tests, setup, NULL);

	while (nkept > 0)
		eng_prog_free(kept[--nkept]);
	return rc;
}
