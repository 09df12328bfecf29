/*
 * test_tlsplan.c - which clauses keep their self-> variables in the
 * kernel (kernel-shim/tlsplan.c, ks_ktls.h): programs compiled by the
 * real compiler and enabled through the engine on the test provider's
 * probes, then each probe's plan read.  The entry/return idiom gives
 * kernel clauses on both probes (predicate, stores, the quantize value
 * as a VALUE step); the rule that a consumer's self-> variables are
 * never split: one clause that cannot run in the kernel, or one probe
 * whose provider does not lower, or a veto, keeps every clause of the
 * program in the shim.
 */
#include "ks_test.h"
#include "engine.h"
#include "ks_filter.h"

static eng_prog_t *kept[64];
static int nkept;

static int setup(void **state)
{
	(void)state;
	kt_setup();
	for (int i = 0; i < 8; i++)
		ks_probe_kplan_able(kt_probe[i], 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	while (nkept > 0)
		eng_prog_free(kept[--nkept]);
	return 0;
}

static eng_hdl_t *enable(const char *src)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	eng_prog_t *p;
	unsigned n = 0;

	assert_non_null(h);
	p = eng_compile_str(h, src, NULL, 0, NULL);
	if (p == NULL)
		fail_msg("compile <%s>: %s", src, eng_errmsg(h));
	if (nkept < (int)(sizeof(kept) / sizeof(kept[0])))
		kept[nkept++] = p;
	if (eng_prog_exec(h, p, &n) != 0)
		fail_msg("exec <%s>: %s", src, eng_errmsg(h));
	assert_true(n > 0);
	return h;
}

/* Plans of p0, p1 and p2 with src enabled. */
static void plans(const char *src, ks_aggplan_t pl[3])
{
	eng_hdl_t *h = enable(src);

	for (int i = 0; i < 3; i++)
		assert_int_equal(ks_probe_aggplan(kt_probe[i], &pl[i]), 0);
	eng_close(h);
}

#define LATENCY \
	"ktest:mod:func:p0 /arg0 == 7/ { self->ts = timestamp; }\n" \
	"ktest:mod:func:p1 /self->ts/ { @ = quantize(timestamp - self->ts);" \
	" @n[arg1] = count(); self->ts = 0; }\n"

static ks_aggplan_t pl[3];

static void latency_in_the_kernel(void **state)
{
	const ks_kclause_t *kc;

	(void)state;
	plans(LATENCY, pl);
	assert_true(pl[0].kap_ok && pl[1].kap_ok);
	assert_int_equal(pl[0].kap_nkc, 1);
	assert_int_equal(pl[1].kap_nkc, 1);
	assert_int_equal(pl[0].kap_tlsstate, pl[1].kap_tlsstate);
	assert_true(pl[0].kap_tlscap > 1000);	/* the default dynvarsize */
	kc = &pl[0].kap_kc[0];			/* predicate, one store */
	assert_true(kc->kkc_pred.kx_n > 0);
	assert_int_equal(kc->kkc_nsteps, 1);
	assert_int_equal(kc->kkc_steps[0].kks_kind, KS_KSTEP_STORE);
	kc = &pl[1].kap_kc[0];	/* the quantize's value, then the clear */
	assert_true(kc->kkc_pred.kx_n > 0);
	assert_int_equal(kc->kkc_nsteps, 2);
	assert_int_equal(kc->kkc_steps[0].kks_kind, KS_KSTEP_VALUE);
	assert_int_equal(kc->kkc_steps[0].kks_agg, DTRACEAGG_QUANTIZE);
	assert_int_equal(kc->kkc_steps[1].kks_kind, KS_KSTEP_STORE);
	/* the count's key is the plan's, read by the shim at the replay */
	assert_int_equal(pl[1].kap_vars, 1u << KS_FV_ARG);
	assert_int_equal(pl[1].kap_args, 0x2);
	assert_int_equal(pl[0].kap_args, 0);	/* run in the kernel */
	assert_true(pl[0].kap_kc[0].kkc_id != pl[1].kap_kc[0].kkc_id);
	assert_false(pl[2].kap_ok);		/* nothing there */
}

/* The program-wide rule: never a variable in both places. */
static void expect_shim(const char *src)
{
	plans(src, pl);
	for (int i = 0; i < 3; i++)
		if (pl[i].kap_ok || pl[i].kap_nkc != 0)
			fail_msg("<%s>: p%d ok %d with %d kernel clauses", src,
			    i, pl[i].kap_ok, pl[i].kap_nkc);
}

static void never_split(void **state)
{
	(void)state;
	/* a third clause reads self->ts in a way BPF cannot (a record) */
	expect_shim(LATENCY "ktest:mod:func:p2 { trace(self->ts); }");
	/* a string variable, an average of the latency, a thread-local
	 * array, a clause-local, a record beside the store */
	expect_shim("ktest:mod:func:p0 { self->s = execname; }\n"
	    "ktest:mod:func:p1 /self->s != NULL/ { @ = count(); }");
	expect_shim("ktest:mod:func:p0 { self->ts = timestamp; }\n"
	    "ktest:mod:func:p1 { @ = avg(timestamp - self->ts); }");
	/* p1 alone could run in the kernel; p0 cannot: both stay */
	expect_shim("ktest:mod:func:p0 { self->ts = vtimestamp; }\n"
	    "ktest:mod:func:p1 /self->ts/ { @ = count(); self->ts = 0; }");
	expect_shim("ktest:mod:func:p0 { self->a[arg0] = timestamp; "
	    "self->ts = 1; }\n"
	    "ktest:mod:func:p1 /self->ts/ { @ = count(); }");
	expect_shim("ktest:mod:func:p0 { this->t = timestamp; "
	    "self->ts = this->t; }\n"
	    "ktest:mod:func:p1 /self->ts/ { @ = count(); }");
	expect_shim("ktest:mod:func:p0 { self->ts = timestamp; "
	    "printf(\"%d\", pid); }\n"
	    "ktest:mod:func:p1 /self->ts/ { @ = count(); }");
}

/* Narrower integers: the shim keeps them in 8 bytes as the kernel does. */
static void narrow_ints(void **state)
{
	(void)state;
	plans("ktest:mod:func:p0 /arg0 == 7/ { self->n = 1; "
	    "self->c = (char)arg1; self->s = (short)arg1; }\n"
	    "ktest:mod:func:p1 /self->n/ { @ = quantize(self->c + self->s); "
	    "self->n = 0; }\n", pl);
	assert_true(pl[0].kap_ok && pl[1].kap_ok);
	assert_int_equal(pl[0].kap_nkc, 1);
	assert_int_equal(pl[1].kap_nkc, 1);
	assert_int_equal(pl[0].kap_kc[0].kkc_nsteps, 3);
}

static void provider_must_lower_every_probe(void **state)
{
	(void)state;
	ks_probe_kplan_able(kt_probe[1], 0);
	expect_shim(LATENCY);
	ks_probe_kplan_able(kt_probe[1], 1);
	/* a probe with self-> and an ordinary record clause beside it */
	expect_shim(LATENCY "ktest:mod:func:p1 { trace(arg0); }");
}

static void veto_is_for_good(void **state)
{
	eng_hdl_t *h;

	(void)state;
	h = enable(LATENCY);
	assert_int_equal(ks_probe_aggplan(kt_probe[0], &pl[0]), 0);
	assert_int_equal(pl[0].kap_nkc, 1);
	ks_tls_veto(pl[0].kap_tlsstate);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ks_probe_aggplan(kt_probe[i], &pl[i]), 0);
		assert_false(pl[i].kap_ok);
	}
	eng_close(h);
	plans(LATENCY, pl);		/* another consumer: its own */
	assert_true(pl[0].kap_ok && pl[1].kap_ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(latency_in_the_kernel),
		cmocka_unit_test(never_split),
		cmocka_unit_test(narrow_ints),
		cmocka_unit_test(provider_must_lower_every_probe),
		cmocka_unit_test(veto_is_for_good),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
