/*
 * test_firen.c - weighted firings (ks_probe_fire_n, ks_provider.h) and
 * kernel-side aggregation drops (ks_provider_aggdrops).  Each program is
 * compiled by the real compiler and enabled twice, in two fresh consumer
 * states one after the other: one sees the firings one by one
 * (ks_probe_fire n times), the other as weighted firings
 * (ks_probe_fire_n(ctx, n)); the aggregation snapshots, principal
 * buffers, drop and error counts must be byte for byte the same.
 */
#include "ks_test.h"
#include "engine.h"
#include "ks_filter.h"

#define TS	1234567890123ull	/* fixed timestamp: records compare */

typedef struct result {
	char agg[1 << 16];
	uint64_t aggsize, aggdrops;
	char buf[1 << 16];
	uint64_t bufsize, drops;
	uint64_t errors;
	int aggok;			/* p3's plan: weighted for real */
} result_t;

/* One weighted firing: probe p3 with these arguments, n times. */
typedef struct shot {
	uint64_t a0, a1, a2;
	uint64_t n;
} shot_t;

static result_t r1, r2;

static int setup(void **state)
{
	(void)state;
	kt_setup();
	return 0;
}

/* Compile src and enable it in a fresh state, started. */
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

static void ctx_of(ks_probe_ctx_t *ctx, const shot_t *s)
{
	ks_probe_ctx_self(ctx, kt_probe[3]);
	ctx->kpc_cpu = 0;
	ctx->kpc_timestamp = TS;
	ctx->kpc_args[0] = s->a0;
	ctx->kpc_args[1] = s->a1;
	ctx->kpc_args[2] = s->a2;
	strcpy(ctx->kpc_execname, s->a1 & 1 ? "odd" : "even");
	ctx->kpc_errno = (int32_t)(s->a2 % 3);
}

/* Run src over shots, weighted or one by one; stop and close. */
static void run(const char *src, const shot_t *shots, int nshots,
    int weighted, result_t *r)
{
	ks_state_t *st = start(src);
	ks_probe_ctx_t ctx;
	ks_aggplan_t pl;
	uint32_t cpu;

	assert_int_equal(ks_probe_aggplan(kt_probe[3], &pl), 0);
	r->aggok = pl.kap_ok;
	for (int i = 0; i < nshots; i++) {
		ctx_of(&ctx, &shots[i]);
		if (weighted)
			ks_probe_fire_n(&ctx, shots[i].n);
		else
			for (uint64_t k = 0; k < shots[i].n; k++)
				ks_probe_fire(&ctx);
	}
	r->aggsize = kt_snap(st, 0, r->agg, sizeof(r->agg), 1, &r->aggdrops);
	r->bufsize = kt_snap(st, 0, r->buf, sizeof(r->buf), 0, &r->drops);
	r->errors = kt_status(st).dtst_errors;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &cpu), 0);
	ks_close(st);
}

/* Weighted and single firings of src over shots give the same data. */
static void same(const char *src, const shot_t *shots, int nshots)
{
	run(src, shots, nshots, 0, &r1);
	run(src, shots, nshots, 1, &r2);
	if (r1.aggsize + r1.bufsize == 0)	/* nothing to compare */
		fail_msg("<%s>: the single firings recorded nothing", src);
	if (r1.aggsize != r2.aggsize || memcmp(r1.agg, r2.agg, r1.aggsize))
		fail_msg("<%s>: aggregation snapshots differ (%llu, %llu "
		    "bytes)", src, (unsigned long long)r1.aggsize,
		    (unsigned long long)r2.aggsize);
	if (r1.bufsize != r2.bufsize || memcmp(r1.buf, r2.buf, r1.bufsize))
		fail_msg("<%s>: principal buffers differ (%llu, %llu bytes)",
		    src, (unsigned long long)r1.bufsize,
		    (unsigned long long)r2.bufsize);
	assert_int_equal(r1.aggdrops, r2.aggdrops);
	assert_int_equal(r1.drops, r2.drops);
	assert_int_equal(r1.errors, r2.errors);
}

#define NEG(x)	((uint64_t)-(int64_t)(x))

static const shot_t values[] = {
	{ 5, 1, 1, 5 }, { NEG(3), 1, 2, 7 }, { 1ull << 40, 2, 3, 3 },
	{ NEG((1ull << 62) - 7), 2, 1, 11 }, { 0, 3, 5, 2 },
	{ 5, 1, 1, 4 }, { 77, 3, 2, 1 }, { 0x7fffffffffffffffull, 4, 1, 9 },
};
#define NVALUES ((int)(sizeof(values) / sizeof(values[0])))

static void scalar_functions(void **state)
{
	(void)state;
	same("ktest:mod:func:p3 { @c[arg1] = count(); @s[arg1] = sum(arg0); "
	    "@a[arg1] = avg(arg0); @mi[arg1] = min(arg0); "
	    "@ma[arg1] = max(arg0); @sd[arg1] = stddev(arg0); }",
	    values, NVALUES);
	assert_true(r2.aggsize > 0 && r2.aggok);
	same("ktest:mod:func:p3 { @[execname] = count(); }", values, NVALUES);
	same("ktest:mod:func:p3 { @[execname, arg1] = sum(arg0 * arg2); }",
	    values, NVALUES);
	assert_true(r2.aggok);
	same("ktest:mod:func:p3 /errno != 0/ { @[errno] = count(); }",
	    values, NVALUES);
	assert_true(r2.aggok && r2.aggsize > 0);
}

static void histograms(void **state)
{
	(void)state;
	same("ktest:mod:func:p3 { @q = quantize(arg0); "
	    "@l[execname] = lquantize(arg0, -10, 100, 5); "
	    "@ll = llquantize(arg0, 10, 0, 6, 20); }", values, NVALUES);
	same("ktest:mod:func:p3 { @q[arg1] = quantize(arg0, arg2); "
	    "@l = lquantize(arg2, 0, 4, 1, arg0); "
	    "@ll = llquantize(arg0, 4, 1, 8, 16, arg2 * 3); }",
	    values, NVALUES);
	assert_true(r2.aggok);
}

static void predicates_and_locals(void **state)
{
	(void)state;
	same("ktest:mod:func:p3 /arg1 != 2/ { this->v = arg0 * 3; "
	    "@[this->v % 7] = sum(this->v); }", values, NVALUES);
	same("ktest:mod:func:p3 { if (arg1 > 2) { @hi = avg(arg0); } else "
	    "{ @lo[execname] = stddev(arg2); } }", values, NVALUES);
	same("ktest:mod:func:p3 /execname == \"odd\"/ { @o = count(); } "
	    "ktest:mod:func:p3 /execname != \"odd\"/ { @e = sum(arg2); }",
	    values, NVALUES);
	assert_true(r2.aggok);
}

static void subroutines(void **state)
{
	(void)state;
	same("ktest:mod:func:p3 { @[strjoin(execname, lltostr(arg1))] = "
	    "sum(htons(arg0)); @l[toupper(substr(execname, 1))] = "
	    "avg(strlen(execname)); }", values, NVALUES);
	assert_true(r2.aggok);
	/* strchr() finds no 'q': a NULL string key faults every time */
	same("ktest:mod:func:p3 { @[strchr(execname, 'q')] = count(); } "
	    "dtrace:::ERROR { @e = count(); }", values, NVALUES);
	assert_true(r2.errors > 0 && r2.aggok);
}

/* Not aggregation-only: fire_n runs the ECBs n times. */
static void records_repeat(void **state)
{
	shot_t one = { 42, 1, 0, 1 }, three = { 42, 1, 0, 3 };
	uint64_t size1;

	(void)state;
	run("ktest:mod:func:p3 { printf(\"%d\\n\", arg0); }", &one, 1, 1,
	    &r1);
	size1 = r1.bufsize;
	assert_true(size1 > 0);
	same("ktest:mod:func:p3 { printf(\"%d\\n\", arg0); }", &three, 1);
	assert_int_equal(r2.bufsize, 3 * size1);
	assert_false(r2.aggok);
	same("ktest:mod:func:p3 { @[arg0] = count(); } "
	    "ktest:mod:func:p3 { trace(arg1); }", values, NVALUES);
	assert_true(r2.bufsize > 0 && r2.aggsize > 0);
}

/* A fault repeats in each firing, and so does its ERROR firing. */
static void faults_repeat(void **state)
{
	static const shot_t zero[] = {
		{ 10, 0, 0, 4 }, { 10, 2, 0, 3 }, { 7, 0, 1, 6 },
	};

	(void)state;
	same("ktest:mod:func:p3 { @s = sum(arg0 / arg1); @c = count(); } "
	    "dtrace:::ERROR { @e[arg4] = count(); }", zero, 3);
	assert_int_equal(r2.errors, 10);
	assert_true(r2.aggok);
	/* each ERROR firing starts from the clause-locals of its fault */
	same("this int e; "
	    "ktest:mod:func:p3 { this->v = arg0; @s = sum(arg0 / arg1); } "
	    "dtrace:::ERROR { this->e = this->e + this->v; "
	    "@x[this->e] = count(); }", zero, 3);
	assert_true(r2.aggok);
}

/* A full aggregation buffer drops each of the n updates. */
static void full_buffer_drops(void **state)
{
	shot_t keys[64];

	(void)state;
	for (int i = 0; i < 64; i++)
		keys[i] = (shot_t){ (uint64_t)i, 1, 0, 5 };
	same("#pragma D option aggsize=1024\n"
	    "ktest:mod:func:p3 { @[arg0] = count(); }", keys, 64);
	assert_true(r2.aggdrops > 0 && r2.aggok);
	assert_int_equal(r2.aggdrops % 5, 0);
}

/* Weighted firings do not cost n times: a billion in one call. */
static void huge_weight(void **state)
{
	shot_t big = { 3, 1, 0, 1000000000ull };
	uint64_t v[2];

	(void)state;
	run("ktest:mod:func:p3 { @c = count(); @s = sum(arg0); }", &big, 1,
	    1, &r1);
	/* two records: aggid, then the value at offset 8 */
	assert_int_equal(r1.aggsize, 32);
	memcpy(&v[0], r1.agg + 8, 8);
	memcpy(&v[1], r1.agg + 24, 8);
	assert_int_equal(v[0], 1000000000ull);
	assert_int_equal(v[1], 3000000000ull);
}

static void zero_and_disabled(void **state)
{
	shot_t none = { 1, 1, 1, 0 };
	ks_probe_ctx_t ctx;

	(void)state;
	run("ktest:mod:func:p3 { @c = count(); }", &none, 1, 1, &r1);
	assert_int_equal(r1.aggsize, 0);
	ctx_of(&ctx, &none);
	ks_probe_fire_n(&ctx, 5);	/* nothing enabled: nothing happens */
}

static void aggdrops_hook(void **state)
{
	ks_state_t *agg = start("ktest:mod:func:p4 { @[arg0] = count(); }");
	ks_state_t *rec = start("ktest:mod:func:p5 { trace(arg0); }");
	ks_state_t *idle = ks_open();
	unsigned cpu = ks_ncpus() > 1 ? 1 : 0;
	static char buf[1 << 16];
	uint64_t d;
	uint32_t x;

	(void)state;
	ks_provider_aggdrops(cpu, 7);
	ks_provider_aggdrops(cpu + ks_ncpus(), 2);	/* CPU modulo slots */
	kt_snap(agg, cpu, buf, sizeof(buf), 1, &d);
	assert_int_equal(d, 9);
	kt_snap(agg, cpu, buf, sizeof(buf), 0, &d);
	assert_int_equal(d, 0);
	kt_snap(rec, cpu, buf, sizeof(buf), 1, &d);
	assert_int_equal(d, 0);
	kt_snap(rec, cpu, buf, sizeof(buf), 0, &d);
	assert_int_equal(d, 0);
	assert_int_equal(ks_ioctl(agg, DTRACEIOC_STOP, &x), 0);
	ks_provider_aggdrops(cpu, 5);		/* stopped: not counted */
	kt_snap(agg, cpu, buf, sizeof(buf), 1, &d);
	assert_int_equal(d, 9);
	ks_close(idle);
	ks_close(rec);
	ks_close(agg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scalar_functions),
		cmocka_unit_test(histograms),
		cmocka_unit_test(predicates_and_locals),
		cmocka_unit_test(subroutines),
		cmocka_unit_test(records_repeat),
		cmocka_unit_test(faults_repeat),
		cmocka_unit_test(full_buffer_drops),
		cmocka_unit_test(huge_weight),
		cmocka_unit_test(zero_and_disabled),
		cmocka_unit_test(aggdrops_hook),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
