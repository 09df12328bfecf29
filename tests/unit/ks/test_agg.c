/*
 * test_agg.c - aggregations: bucket math of quantize/lquantize/llquantize
 * as DTrace computes it, every aggregating function through DOF against
 * the record layouts of the clause protocol (AGGDESC + AGGSNAP), 128-bit
 * stddev, increments, string keys and aggregation drops.
 */
#include "ks_test.h"
#include "ks_impl.h"

static void quantize_buckets(void **state)
{
	(void)state;
	assert_int_equal(ks_agg_quantize_bucket(0), 63);
	assert_int_equal(ks_agg_quantize_bucket(1), 64);
	assert_int_equal(ks_agg_quantize_bucket(2), 65);
	assert_int_equal(ks_agg_quantize_bucket(3), 65);
	assert_int_equal(ks_agg_quantize_bucket(4), 66);
	assert_int_equal(ks_agg_quantize_bucket(-1), 62);
	assert_int_equal(ks_agg_quantize_bucket(-2), 61);
	assert_int_equal(ks_agg_quantize_bucket(-3), 61);
	assert_int_equal(ks_agg_quantize_bucket(-4), 60);
	assert_int_equal(ks_agg_quantize_bucket(INT64_MAX), 126);
	assert_int_equal(ks_agg_quantize_bucket(INT64_MIN), 0);
	assert_int_equal(ks_agg_quantize_bucket((int64_t)1 << 62), 126);
	/* each bucket's value is its lower bound (upper for negatives) */
	assert_int_equal(DTRACE_QUANTIZE_BUCKETVAL(65), 2);
	assert_int_equal(DTRACE_QUANTIZE_BUCKETVAL(61), -2);
}

static void llquantize_buckets(void **state)
{
	(void)state;
	/* factor 10, low 0, high 2, 10 steps */
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 0), 0);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 1), 1);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 9), 9);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 10), 10);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 99), 18);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 100), 19);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 999), 27);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, 1000), 28);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 2, 10, INT64_MAX), 28);
	/* the guide's example: factor 10, 20 steps: 9 buckets for
	 * magnitude 0, then 18 per magnitude */
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 3, 20, 9), 9);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 3, 20, 10), 10);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 3, 20, 99), 27);
	assert_int_equal(ks_agg_llquantize_bucket(10, 0, 3, 20, 100), 28);
	/* low magnitude 1: below 10 is the zeroth bucket */
	assert_int_equal(ks_agg_llquantize_bucket(10, 1, 3, 10, 9), 0);
	assert_int_equal(ks_agg_llquantize_bucket(10, 1, 3, 10, 10), 1);
	assert_int_equal(ks_agg_check(DTRACEAGG_LLQUANTIZE,
	    DTRACE_LLQUANTIZE_ENCODE(2, 0, 61, 2), NULL, 0), 0);
	assert_int_equal(ks_agg_check(DTRACEAGG_LLQUANTIZE,
	    DTRACE_LLQUANTIZE_ENCODE(2, 0, 62, 2), NULL, 0), -1);
	assert_int_equal(ks_agg_check(DTRACEAGG_LLQUANTIZE,
	    DTRACE_LLQUANTIZE_ENCODE(10, 0, 2, 15), NULL, 0), -1);
	assert_int_equal(ks_agg_check(DTRACEAGG_LQUANTIZE,
	    DTRACE_LQUANTIZE_ENCODE(0, 5, 0), NULL, 0), -1);
}

/* One aggregation on ktest:::p7 keyed by arg0: f(arg1). */
typedef struct aggspec {
	uint32_t kind;
	uint64_t arg;		/* lquantize/llquantize encoding */
	int incr;		/* increment constant, 0 for none */
} aggspec_t;

static ks_state_t *agg_state(const aggspec_t *sp, int n, uint64_t aggsize)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[32];
	uint32_t k = 0;
	int i;

	kt_setup();
	if (aggsize != 0)
		dofb_option(b, DTRACEOPT_AGGSIZE, aggsize);
	for (i = 0; i < n; i++) {
		uint32_t start = k;
		int quant = sp[i].kind == DTRACEAGG_QUANTIZE ||
		    sp[i].kind == DTRACEAGG_LQUANTIZE ||
		    sp[i].kind == DTRACEAGG_LLQUANTIZE;

		a[k++] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
		if (quant)
			a[k++] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b,
			    (uint64_t)(sp[i].incr ? sp[i].incr : 1), 8), 0);
		a[k] = dofb_act(sp[i].kind, sp[i].kind == DTRACEAGG_COUNT ?
		    DOF_SECIDX_NONE : dofb_difo_arg(b, 1), sp[i].arg);
		a[k].dofa_ntuple = k - start;
		a[k].dofa_uarg = (uint64_t)i + 1;
		k++;
	}
	kt_clause(b, 7, DOF_SECIDX_NONE, a, k);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	return st;
}

/* The value words of aggregation id for key in the CPU 0 snapshot. */
static const uint64_t *agg_value(const char *buf, uint64_t n,
    ks_state_t *st, dtrace_aggid_t id, uint64_t key)
{
	dtrace_aggdesc_t *d = calloc(1, sizeof(*d) + 4 * sizeof(d->dtagd_rec[0]));
	const uint64_t *res = NULL;
	uint64_t off;

	d->dtagd_id = id;
	d->dtagd_nrecs = 4;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_AGGDESC, d), 0);
	assert_int_equal(d->dtagd_nrecs, 3);
	for (off = 0; off < n;) {
		dtrace_aggid_t got;
		uint64_t k;
		uint32_t size;

		memcpy(&got, buf + off, 4);
		assert_true(got >= 1 && got <= 16);
		if (got == id) {
			memcpy(&k, buf + off + d->dtagd_rec[1].dtrd_offset, 8);
			if (k == key) {
				res = (const uint64_t *)(buf + off +
				    d->dtagd_rec[2].dtrd_offset);
				break;
			}
			size = d->dtagd_size;
		} else {
			dtrace_aggdesc_t o = { 0 };

			o.dtagd_id = got;
			o.dtagd_nrecs = 0;
			assert_int_equal(ks_ioctl(st, DTRACEIOC_AGGDESC, &o), 0);
			size = o.dtagd_size;
		}
		off += size;
	}
	free(d);
	return res;
}

static void count_layout(void **state)
{
	aggspec_t sp = { DTRACEAGG_COUNT, 0, 0 };
	ks_state_t *st = agg_state(&sp, 1, 0);
	dtrace_aggdesc_t *d = calloc(1, sizeof(*d) + 3 * sizeof(d->dtagd_rec[0]));
	static char buf[1 << 16];
	uint64_t n;
	const uint64_t *v;

	(void)state;
	kt_fire(7, 0, 5, 0);
	kt_fire(7, 0, 5, 0);
	kt_fire(7, 0, 6, 0);
	d->dtagd_id = 1;
	d->dtagd_nrecs = 3;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_AGGDESC, d), 0);
	assert_int_equal(d->dtagd_epid, 1);
	assert_int_equal(d->dtagd_size, 24);
	assert_int_equal(d->dtagd_rec[0].dtrd_offset, 0);
	assert_int_equal(d->dtagd_rec[0].dtrd_size, 4);
	assert_int_equal(d->dtagd_rec[1].dtrd_offset, 8);
	assert_int_equal(d->dtagd_rec[2].dtrd_offset, 16);
	assert_int_equal(d->dtagd_rec[2].dtrd_action, DTRACEAGG_COUNT);
	assert_int_equal(d->dtagd_rec[2].dtrd_uarg, 1);
	n = kt_snap(st, 0, buf, sizeof(buf), 1, NULL);
	assert_int_equal(n, 48);
	v = agg_value(buf, n, st, 1, 5);
	assert_non_null(v);
	assert_int_equal(v[0], 2);
	assert_int_equal(agg_value(buf, n, st, 1, 6)[0], 1);
	/* nothing written to the principal buffer */
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 0);
	free(d);
	ks_close(st);
}

static void every_function(void **state)
{
	const aggspec_t sp[] = {
		{ DTRACEAGG_SUM, 0, 0 }, { DTRACEAGG_MIN, 0, 0 },
		{ DTRACEAGG_MAX, 0, 0 }, { DTRACEAGG_AVG, 0, 0 },
		{ DTRACEAGG_STDDEV, 0, 0 }, { DTRACEAGG_QUANTIZE, 0, 5 },
		{ DTRACEAGG_LQUANTIZE, DTRACE_LQUANTIZE_ENCODE(2, 5, 0), 1 },
		{ DTRACEAGG_LLQUANTIZE, DTRACE_LLQUANTIZE_ENCODE(10, 0, 2, 10),
		  1 },
	};
	static const int64_t vals[] = { 3, -1, 10, 0, 9, 1000 };
	ks_state_t *st = agg_state(sp, 8, 0);
	static char buf[1 << 16];
	const uint64_t *v;
	uint64_t n;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		kt_fire(7, 0, 1, (uint64_t)vals[i]);
	n = kt_snap(st, 0, buf, sizeof(buf), 1, NULL);
	assert_int_equal(agg_value(buf, n, st, 1, 1)[0], 1021);	/* sum */
	assert_int_equal((int64_t)agg_value(buf, n, st, 2, 1)[0], -1);
	assert_int_equal(agg_value(buf, n, st, 3, 1)[0], 1000);
	v = agg_value(buf, n, st, 4, 1);			/* avg */
	assert_int_equal(v[0], 6);
	assert_int_equal(v[1], 1021);
	v = agg_value(buf, n, st, 5, 1);			/* stddev */
	assert_int_equal(v[0], 6);
	assert_int_equal(v[1], 1021);
	assert_int_equal(v[2], 0);
	assert_int_equal(v[3], 9 + 1 + 100 + 0 + 81 + 1000000);
	v = agg_value(buf, n, st, 6, 1);			/* quantize */
	assert_int_equal(v[63], 5);	/* 0 */
	assert_int_equal(v[62], 5);	/* -1 */
	assert_int_equal(v[65], 5);	/* 3 */
	assert_int_equal(v[67], 10);	/* 9, 10: 8..15 */
	assert_int_equal(v[73], 5);	/* 1000: 512..1023 */
	assert_int_equal(v[66], 0);
	v = agg_value(buf, n, st, 7, 1);	/* lquantize(0, 10, 2) */
	assert_int_equal(v[0], DTRACE_LQUANTIZE_ENCODE(2, 5, 0));
	assert_int_equal(v[1], 1);	/* -1 underflow */
	assert_int_equal(v[2], 1);	/* 0 */
	assert_int_equal(v[3], 1);	/* 3 */
	assert_int_equal(v[6], 1);	/* 9 */
	assert_int_equal(v[7], 2);	/* 10, 1000 overflow */
	v = agg_value(buf, n, st, 8, 1);	/* llquantize(10, 0, 2, 10) */
	assert_int_equal(v[0], DTRACE_LLQUANTIZE_ENCODE(10, 0, 2, 10));
	assert_int_equal(v[1], 2);	/* -1, 0 */
	assert_int_equal(v[1 + 3], 1);
	assert_int_equal(v[1 + 9], 1);
	assert_int_equal(v[1 + 10], 1);
	assert_int_equal(v[1 + 28], 1);	/* 1000: overflow */
	ks_close(st);
}

static void stddev_128(void **state)
{
	aggspec_t sp = { DTRACEAGG_STDDEV, 0, 0 };
	ks_state_t *st = agg_state(&sp, 1, 0);
	static char buf[4096];
	const uint64_t *v;
	uint64_t n;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		kt_fire(7, 0, 2, (uint64_t)1 << 40);
	kt_fire(7, 0, 2, (uint64_t)-((int64_t)1 << 40));
	n = kt_snap(st, 0, buf, sizeof(buf), 1, NULL);
	v = agg_value(buf, n, st, 1, 2);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[1], (uint64_t)2 << 40);
	assert_int_equal(v[2], (uint64_t)4 << 16);	/* 4 * 2^80 high */
	assert_int_equal(v[3], 0);			/* low */
	ks_close(st);
}

static void drops_when_full(void **state)
{
	aggspec_t sp = { DTRACEAGG_COUNT, 0, 0 };
	ks_state_t *st = agg_state(&sp, 1, 2048);
	static char buf[4096];
	uint64_t n, drops, i;
	ks_bufstat_t bs;

	(void)state;
	for (i = 0; i < 200; i++)
		kt_fire(7, 0, i, 0);
	for (i = 0; i < 200; i++)	/* existing keys still count */
		kt_fire(7, 0, i, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 1, &drops);
	assert_true(n / 24 > 10);
	assert_true(n / 24 < 200);
	assert_int_equal(n / 24 + drops / 2, 200);
	assert_int_equal(drops % 2, 0);
	assert_int_equal(agg_value(buf, n, st, 1, 0)[0], 2);
	assert_int_equal(ks_bufstat(st, 0, &bs), 0);
	assert_int_equal(bs.kbs_aggdrops, drops);
	/* every firing counts as an event, though none wrote a record */
	assert_int_equal(bs.kbs_fires, 400);
	assert_int_equal(bs.kbs_records, 0);
	/* aggregation drops are cumulative */
	kt_fire(7, 0, 100000, 0);
	(void)kt_snap(st, 0, buf, sizeof(buf), 1, &n);
	assert_int_equal(n, drops + 1);
	ks_close(st);
}

static void string_keys(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[4];
	dtrace_aggdesc_t *d = calloc(1, sizeof(*d) + 3 * sizeof(d->dtagd_rec[0]));
	static char buf[4096];
	uint64_t n;

	(void)state;
	kt_setup();
	dofb_option(b, DTRACEOPT_STRSIZE, 16);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_str(b, "alpha"), 0);
	a[1] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[1].dofa_ntuple = 1;
	a[2] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_str(b, "beta"), 0);
	a[3] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[3].dofa_ntuple = 1;
	kt_clause(b, 7, DOF_SECIDX_NONE, a, 4);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(7, 0, 0, 0);
	kt_fire(7, 0, 0, 0);
	d->dtagd_id = 2;
	d->dtagd_nrecs = 3;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_AGGDESC, d), 0);
	assert_int_equal(d->dtagd_rec[1].dtrd_size, 16);
	assert_int_equal(d->dtagd_rec[1].dtrd_offset, 4);
	assert_int_equal(d->dtagd_rec[2].dtrd_offset, 24);
	assert_int_equal(d->dtagd_size, 32);
	n = kt_snap(st, 0, buf, sizeof(buf), 1, NULL);
	assert_int_equal(n, 64);
	assert_string_equal(buf + 4, "alpha");
	assert_string_equal(buf + 32 + 4, "beta");
	assert_int_equal(*(uint64_t *)(buf + 32 + 24), 2);
	free(d);
	ks_close(st);
}

/* @[stack(3), ustack(2)] = count(): stack keys are STACK/USTACK records. */
static void stack_keys(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[3];
	dtrace_aggdesc_t *d = calloc(1, sizeof(*d) + 4 * sizeof(d->dtagd_rec[0]));
	uint64_t k1[3] = { 1, 2, 3 }, k2[3] = { 1, 2, 4 }, u[2] = { 9, 8 };
	static char buf[4096];
	uint64_t rec[9];
	ks_probe_ctx_t ctx;

	(void)state;
	kt_setup();
	a[0] = dofb_act(DTRACEACT_STACK, DOF_SECIDX_NONE, 3);
	a[1] = dofb_act(DTRACEACT_USTACK, DOF_SECIDX_NONE, 2);
	a[2] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[2].dofa_ntuple = 2;
	kt_clause(b, 7, DOF_SECIDX_NONE, a, 3);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	ks_probe_ctx_self(&ctx, kt_probe[7]);
	ctx.kpc_cpu = 0;
	ctx.kpc_ustack = u;
	ctx.kpc_nustack = 2;
	ctx.kpc_kstack = k1;
	ctx.kpc_nkstack = 3;
	ks_probe_fire(&ctx);
	ks_probe_fire(&ctx);
	ctx.kpc_kstack = k2;
	ks_probe_fire(&ctx);
	d->dtagd_id = 1;
	d->dtagd_nrecs = 4;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_AGGDESC, d), 0);
	assert_int_equal(d->dtagd_nrecs, 4);
	assert_int_equal(d->dtagd_rec[1].dtrd_action, DTRACEACT_STACK);
	assert_int_equal(d->dtagd_rec[1].dtrd_size, 24);
	assert_int_equal(d->dtagd_rec[2].dtrd_action, DTRACEACT_USTACK);
	assert_int_equal(d->dtagd_rec[2].dtrd_size, 24);
	assert_int_equal(d->dtagd_size, 8 + 24 + 24 + 8);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 1, NULL),
	    2 * d->dtagd_size);
	memcpy(rec, buf, sizeof(rec));
	assert_int_equal(rec[1], 1);
	assert_int_equal(rec[3], 3);
	assert_int_equal(rec[4], (uint64_t)ctx.kpc_pid);
	assert_int_equal(rec[5], 9);
	assert_int_equal(rec[7], 2);		/* count */
	memcpy(rec, buf + d->dtagd_size, sizeof(rec));
	assert_int_equal(rec[3], 4);
	assert_int_equal(rec[7], 1);
	free(d);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantize_buckets),
		cmocka_unit_test(llquantize_buckets),
		cmocka_unit_test(count_layout),
		cmocka_unit_test(every_function),
		cmocka_unit_test(stddev_128),
		cmocka_unit_test(drops_when_full),
		cmocka_unit_test(string_keys),
		cmocka_unit_test(stack_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
