/*
 * test_agg.c - merged aggregation rows (agg.c, aggprint.c): merging per
 * key over CPUs, default order (value, then key), aggsortkey, aggsortrev,
 * aggsortkeypos, the default printa layout for string and integer keys,
 * printa with a format, joined printa(@a, @b), avg/stddev/min/max values,
 * trunc, clear, normalize, printing at exit and eng_agg_walk.
 * Layouts follow dtrace: keys "  %-50s" / " %16lld", values " %16lld".
 */
#include <unistd.h>
#include "eng_test.h"

#define PAD49 "                                                 "
#define ROW(k, v) "  " k "                                                 " \
	"                " v "\n"

/* An aggregation layout: aggid, optional string key(s), value. */
static dtrace_aggdesc_t *mkdesc(dtrace_aggid_t id, dtrace_aggvarid_t var,
    int func, uint32_t valsize, int nstr, int nint)
{
	int n = 2 + nstr + nint, i = 1;
	dtrace_aggdesc_t *d = calloc(1, sizeof (*d) + (size_t)n *
	    sizeof (dtrace_recdesc_t));
	uint32_t off = 4;

	d->dtagd_id = id;
	d->dtagd_varid = var;
	d->dtagd_nrecs = n;
	d->dtagd_rec[0].dtrd_size = 4;
	for (int k = 0; k < nstr; k++, i++) {
		d->dtagd_rec[i].dtrd_action = DTRACEACT_DIFEXPR;
		d->dtagd_rec[i].dtrd_size = 32;
		d->dtagd_rec[i].dtrd_offset = off;
		off += 32;
	}
	for (int k = 0; k < nint; k++, i++) {
		off = (off + 7) & ~7u;
		d->dtagd_rec[i].dtrd_action = DTRACEACT_DIFEXPR;
		d->dtagd_rec[i].dtrd_size = 8;
		d->dtagd_rec[i].dtrd_offset = off;
		off += 8;
	}
	off = (off + 7) & ~7u;
	d->dtagd_rec[i].dtrd_action = (dtrace_actkind_t)func;
	d->dtagd_rec[i].dtrd_size = valsize;
	d->dtagd_rec[i].dtrd_offset = off;
	d->dtagd_rec[i].dtrd_uarg = (uint64_t)var;
	d->dtagd_size = (off + valsize + 7) & ~7u;
	return d;
}

/* Add a row: string key s (or NULL), integer key k, value words v. */
static void add(eng_hdl_t *h, const dtrace_aggdesc_t *d, const char *s,
    int64_t k, const int64_t *v, size_t nv)
{
	char rec[2048];
	const dtrace_recdesc_t *vr = &d->dtagd_rec[d->dtagd_nrecs - 1];

	memset(rec, 0, sizeof (rec));
	memcpy(rec, &d->dtagd_id, 4);
	for (int i = 1; i < d->dtagd_nrecs - 1; i++) {
		const dtrace_recdesc_t *r = &d->dtagd_rec[i];

		if (r->dtrd_size == 32 && s != NULL)
			strcpy(rec + r->dtrd_offset, s);
		else if (r->dtrd_size == 8)
			memcpy(rec + r->dtrd_offset, &k, 8);
	}
	memcpy(rec + vr->dtrd_offset, v, nv * 8);
	assert_int_equal(eng_agg_add(h, d, rec), 0);
}

static void addc(eng_hdl_t *h, const dtrace_aggdesc_t *d, const char *s,
    int64_t v)
{
	add(h, d, s, 0, &v, 1);
}

static char *printa(eng_hdl_t *h, const char *fmt,
    const dtrace_aggvarid_t *ids, int n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	assert_int_equal(eng_agg_printa(h, fp, fmt, ids, n), 0);
	fclose(fp);
	return s;
}

/* @a[str] = count() with b=1, a=2+1 (two CPUs), c=3. */
static dtrace_aggdesc_t *three(eng_hdl_t *h)
{
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 1, 0);

	addc(h, d, "c", 3);
	addc(h, d, "a", 2);
	addc(h, d, "b", 1);
	addc(h, d, "a", 1);
	return d;
}

static void test_default_order_value_then_key(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = three(h);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	s = printa(h, NULL, &id, 1);
	assert_string_equal(s, "\n" ROW("b", "1") ROW("a", "3") ROW("c", "3"));
	free(s);
	eng_close(h);
	free(d);
}

static void test_aggsortkey_and_rev(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 1, 0);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	addc(h, d, "c", 1);
	addc(h, d, "a", 3);
	addc(h, d, "b", 2);
	assert_int_equal(eng_setopt(h, "aggsortkey", NULL), 0);
	s = printa(h, NULL, &id, 1);
	assert_string_equal(s, "\n" ROW("a", "3") ROW("b", "2") ROW("c", "1"));
	free(s);
	assert_int_equal(eng_setopt(h, "aggsortrev", NULL), 0);
	s = printa(h, NULL, &id, 1);
	assert_string_equal(s, "\n" ROW("c", "1") ROW("b", "2") ROW("a", "3"));
	free(s);
	eng_close(h);
	free(d);
}

static void test_aggsortkeypos_second_key_first(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_SUM, 8, 1, 1);
	dtrace_aggvarid_t id = 1;
	int64_t v = 1;
	char *s;

	(void)state;
	add(h, d, "x", 2, &v, 1);
	add(h, d, "y", 1, &v, 1);
	assert_int_equal(eng_setopt(h, "aggsortkey", NULL), 0);
	assert_int_equal(eng_setopt(h, "aggsortkeypos", "1"), 0);
	s = printa(h, "%s %d %@d\n", &id, 1);
	assert_string_equal(s, "y 1 1\nx 2 1\n");
	free(s);
	eng_close(h);
	free(d);
}

static void test_integer_key_and_scalar_layout(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_MAX, 8, 0, 1);
	dtrace_aggdesc_t *sc = mkdesc(2, 2, DTRACEAGG_MIN, 8, 0, 0);
	dtrace_aggvarid_t id = 1, id2 = 2;
	int64_t v;
	char *s;

	(void)state;
	v = 2;
	add(h, d, NULL, 7, &v, 1);
	v = 1;
	add(h, d, NULL, 7, &v, 1);	/* max keeps 2 */
	v = 5;
	add(h, sc, NULL, 0, &v, 1);
	v = 9;
	add(h, sc, NULL, 0, &v, 1);	/* min keeps 5 */
	s = printa(h, NULL, &id, 1);
	assert_string_equal(s, "\n                7                2\n");
	free(s);
	s = printa(h, NULL, &id2, 1);
	assert_string_equal(s, "\n                5\n");
	free(s);
	eng_close(h);
	free(d);
	free(sc);
}

static void test_avg_and_stddev_values(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *a = mkdesc(1, 1, DTRACEAGG_AVG, 16, 0, 0);
	dtrace_aggdesc_t *sd = mkdesc(2, 2, DTRACEAGG_STDDEV, 32, 0, 0);
	dtrace_aggvarid_t ids[2] = { 1, 2 };
	int64_t av[2] = { 3, 10 };	/* count 3, sum 10: avg 3 */
	/* values 2, 4, 4, 4, 5, 5, 7, 9: stddev 2 */
	int64_t sv[4] = { 8, 40, 0, 4 + 16 * 3 + 25 * 2 + 49 + 81 };
	char *s;

	(void)state;
	add(h, a, NULL, 0, av, 2);
	add(h, sd, NULL, 0, sv, 4);
	s = printa(h, "%@d %@d\n", ids, 2);
	assert_string_equal(s, "3 2\n");
	free(s);
	eng_close(h);
	free(a);
	free(sd);
}

static void test_joined_printa_fills_missing_with_zero(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *a = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 1, 0);
	dtrace_aggdesc_t *b = mkdesc(2, 2, DTRACEAGG_SUM, 8, 1, 0);
	dtrace_aggvarid_t ids[2] = { 1, 2 };
	char *s;

	(void)state;
	addc(h, a, "x", 2);
	addc(h, a, "y", 1);
	addc(h, b, "x", 40);
	s = printa(h, NULL, ids, 2);
	assert_string_equal(s, "\n"
	    "  y" PAD49 "                1                0\n"
	    "  x" PAD49 "                2               40\n");
	free(s);
	eng_close(h);
	free(a);
	free(b);
}

static void test_trunc_keeps_top_n(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = three(h);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	assert_int_equal(eng_agg_trunc_id(h, 1, 1), 0);
	s = printa(h, "%s=%@d ", &id, 1);
	assert_string_equal(s, "c=3 ");
	free(s);
	eng_close(h);
	free(d);
}

static void test_trunc_negative_keeps_bottom(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = three(h);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	assert_int_equal(eng_agg_trunc_id(h, 1, -2), 0);
	s = printa(h, "%s=%@d ", &id, 1);
	assert_string_equal(s, "b=1 a=3 ");
	free(s);
	eng_close(h);
	free(d);
}

static void test_clear_zeroes_values_keeps_keys(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = three(h);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	assert_int_equal(eng_agg_clear_id(h, 1), 0);
	s = printa(h, "%s=%@d ", &id, 1);
	assert_string_equal(s, "a=0 b=0 c=0 ");
	free(s);
	eng_close(h);
	free(d);
}

static void test_normalize_divides_values(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_SUM, 8, 1, 0);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	addc(h, d, "a", 3000);
	assert_int_equal(eng_agg_normalize_id(h, 1, 1000), 0);
	s = printa(h, "%s %@d\n", &id, 1);
	assert_string_equal(s, "a 3\n");
	free(s);
	assert_int_equal(eng_agg_normalize_id(h, 1, 1), 0);	/* denormalize */
	s = printa(h, "%s %@d\n", &id, 1);
	assert_string_equal(s, "a 3000\n");
	free(s);
	eng_close(h);
	free(d);
}

static void test_exit_print_skips_printed(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *a = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 1, 0);
	dtrace_aggdesc_t *b = mkdesc(2, 2, DTRACEAGG_COUNT, 8, 1, 0);
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	(void)state;
	addc(h, a, "a", 1);
	addc(h, b, "b", 2);
	eng_agg_set_printed(h, 1);
	assert_int_equal(eng_agg_print(h, fp), 0);
	fclose(fp);
	assert_string_equal(s, ROW("b", "2"));
	free(s);
	eng_close(h);
	free(a);
	free(b);
}

static int walk_cb(const eng_aggent_t *e, void *arg)
{
	char *out = arg;

	assert_int_equal(e->eae_nkeys, 1);
	assert_int_equal(e->eae_keys[0].eak_kind, 1);
	sprintf(out + strlen(out), "%s=%lld;", e->eae_keys[0].eak_str,
	    (long long)e->eae_value);
	return 0;
}

static void test_walk_in_print_order(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = three(h);
	char out[256] = "";

	(void)state;
	assert_int_equal(eng_agg_walk(h, walk_cb, out), 0);
	assert_string_equal(out, "b=1;a=3;c=3;");
	eng_close(h);
	free(d);
}

static void test_agghist_draws_count_rows(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 1, 0);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	addc(h, d, "y", 3);
	addc(h, d, "x", 1);
	assert_int_equal(eng_setopt(h, "agghist", NULL), 0);
	s = printa(h, NULL, &id, 1);
	assert_string_equal(s, "\n"
	    "\n              key  ------------- Distribution ------------- "
	    "count    \n"
	    "                x |@@@@@@@@@@                               1"
	    "        \n"
	    "                y |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3"
	    "        \n");
	free(s);
	eng_close(h);
	free(d);
}

static void test_json_aggregation_lines(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 1, 0);
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	addc(h, d, "k", 2);
	assert_int_equal(eng_setopt(h, "oformat", "json"), 0);
	s = printa(h, NULL, &id, 1);
	/* the name comes from the compiler; none here */
	assert_string_equal(s, "{\"type\":\"aggregation\",\"name\":\"?\","
	    "\"id\":1,\"function\":\"count\",\"keys\":[\"k\"],"
	    "\"value\":2}\n");
	free(s);
	eng_close(h);
	free(d);
}

static void test_aggpack_one_line_per_key(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_QUANTIZE,
	    DTRACE_QUANTIZE_NBUCKETS * 8, 1, 0);
	int64_t qa[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	int64_t qb[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	dtrace_aggvarid_t id = 1;
	char *s;

	(void)state;
	setenv("TERM", "dumb", 1);	/* ASCII cells */
	qa[DTRACE_QUANTIZE_ZEROBUCKET + 1] = 1;		/* 1 */
	qa[DTRACE_QUANTIZE_ZEROBUCKET + 3] = 1;		/* 4..7 */
	qb[DTRACE_QUANTIZE_ZEROBUCKET + 7] = 1;		/* 64..127 */
	add(h, d, "a", 0, qa, DTRACE_QUANTIZE_NBUCKETS);
	add(h, d, "b", 0, qb, DTRACE_QUANTIZE_NBUCKETS);
	assert_int_equal(eng_setopt(h, "aggpack", NULL), 0);
	s = printa(h, NULL, &id, 1);
	assert_string_equal(s, "\n"
	    "\n              key  min .---------. max  | count\n"
	    "                a    0 : x x     : 128  | 2\n"
	    "                b    0 :       X : 128  | 1\n");
	free(s);
	eng_close(h);
	free(d);
}

/* Functions of this binary to take addresses in (not static: named in
 * .symtab), long enough that their address + 4 is still inside. */
int test_agg_fn1(int n);
int test_agg_fn1(int n)
{
	volatile int x = 0;

	for (int i = 0; i < n; i++)
		x += i * n;
	return x;
}

int test_agg_fn2(int n);
int test_agg_fn2(int n)
{
	volatile int x = 1;

	for (int i = 0; i < n; i++)
		x *= i + n;
	return x;
}

/* @[act(addr)] = count() over (pid, address) keys: rows printed. */
static char *user_keys(int act, const uint64_t *addrs, int n)
{
	eng_hdl_t *h = et_open();
	dtrace_aggdesc_t *d = mkdesc(1, 1, DTRACEAGG_COUNT, 8, 0, 2);
	dtrace_aggvarid_t id = 1;
	char *s;

	/* one 16-byte key (pid, address) in place of the two words */
	d->dtagd_rec[1].dtrd_action = (dtrace_actkind_t)act;
	d->dtagd_rec[1].dtrd_size = 16;
	d->dtagd_rec[2] = d->dtagd_rec[3];
	d->dtagd_nrecs = 3;
	for (int i = 0; i < n; i++) {
		char rec[64] = { 0 };
		int64_t pid = getpid(), one = 1;

		memcpy(rec, &d->dtagd_id, 4);
		memcpy(rec + 8, &pid, 8);
		memcpy(rec + 16, &addrs[i], 8);
		memcpy(rec + d->dtagd_rec[2].dtrd_offset, &one, 8);
		assert_int_equal(eng_agg_add(h, d, rec), 0);
	}
	s = printa(h, NULL, &id, 1);
	eng_close(h);
	free(d);
	return s;
}

static void test_usym_umod_keys_merge_per_symbol_and_object(void **state)
{
	uint64_t f1 = (uint64_t)(uintptr_t)&test_agg_fn1;
	uint64_t f2 = (uint64_t)(uintptr_t)&test_agg_fn2;
	uint64_t addrs[] = { f1, f1 + 4, f2 + 1, f1 + 2, 0x10 };
	char *s;

	(void)state;
	/* ufunc()/usym(): one row per function; unknown addresses stay */
	s = user_keys(DTRACEACT_USYM, addrs, 5);
	assert_string_equal(s, "\n"
	    "  0x10                                              "
	    "                1\n"
	    "  test_agg`test_agg_fn2                             "
	    "                1\n"
	    "  test_agg`test_agg_fn1                             "
	    "                3\n");
	free(s);
	/* umod(): one row per object */
	s = user_keys(DTRACEACT_UMOD, addrs, 4);
	assert_string_equal(s, "\n"
	    "  test_agg                                          "
	    "                4\n");
	free(s);
	/* uaddr() keeps every address */
	s = user_keys(DTRACEACT_UADDR, addrs, 2);
	assert_string_equal(s, "\n"
	    "  test_agg`test_agg_fn1                             "
	    "                1\n"
	    "  test_agg`test_agg_fn1+0x4                         "
	    "                1\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_order_value_then_key),
		cmocka_unit_test(test_aggsortkey_and_rev),
		cmocka_unit_test(test_aggsortkeypos_second_key_first),
		cmocka_unit_test(test_integer_key_and_scalar_layout),
		cmocka_unit_test(test_avg_and_stddev_values),
		cmocka_unit_test(test_joined_printa_fills_missing_with_zero),
		cmocka_unit_test(test_trunc_keeps_top_n),
		cmocka_unit_test(test_trunc_negative_keeps_bottom),
		cmocka_unit_test(test_clear_zeroes_values_keeps_keys),
		cmocka_unit_test(test_normalize_divides_values),
		cmocka_unit_test(test_exit_print_skips_printed),
		cmocka_unit_test(test_walk_in_print_order),
		cmocka_unit_test(test_agghist_draws_count_rows),
		cmocka_unit_test(test_json_aggregation_lines),
		cmocka_unit_test(test_aggpack_one_line_per_key),
		cmocka_unit_test(test_usym_umod_keys_merge_per_symbol_and_object),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
