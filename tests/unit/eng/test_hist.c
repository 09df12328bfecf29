/*
 * test_hist.c - quantize/lquantize/llquantize drawing (hist.c): one
 * bucket, two buckets, empty, negative only, mixed signs, huge counts,
 * trimming to the non-zero range, underflow and overflow rows, labels.
 * Expected texts are built from dtrace's "%16s %41s %-9s" header and
 * "|%s%s %-9lld" rows with bars of round(|count| * 40 / total).
 */
#include "eng_test.h"

#define Q_ONE \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"               0 |                                         0        \n" \
	"               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        \n" \
	"               2 |                                         0        \n"
#define Q_EMPTY \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"              -1 |                                         0        \n" \
	"               0 |                                         0        \n" \
	"               1 |                                         0        \n"
#define Q_TWO \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"               0 |                                         0        \n" \
	"               1 |@@@@@@@@@@                               1        \n" \
	"               2 |                                         0        \n" \
	"               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3        \n" \
	"               8 |                                         0        \n"
#define Q_NEG \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"              -2                                         | 0        \n" \
	"              -1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -2       \n" \
	"               0                                         | 0        \n"
#define Q_MIXED \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"              -2                     |                     0        \n" \
	"              -1           @@@@@@@@@@|                     -1       \n" \
	"               0                     |                     0        \n" \
	"               1                     |@@@@@@@@@@           1        \n" \
	"               2                     |                     0        \n"
#define L_ONE \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"             < 0 |                                         0        \n" \
	"               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n" \
	"               5 |                                         0        \n"
#define L_OVER \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"               5 |                                         0        \n" \
	"           >= 10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 4        \n"
#define LL_ONE \
	"\n" \
	"           value  ------------- Distribution ------------- count    \n" \
	"               9 |                                         0        \n" \
	"              10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 2        \n" \
	"              20 |                                         0        \n"

static char *draw(int func, const int64_t *data, size_t size, int zoom)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	assert_int_equal(eng_hist_print(fp, func, data, size, 1, zoom), 0);
	fclose(fp);
	return s;
}

#define Z DTRACE_QUANTIZE_ZEROBUCKET

static void test_quantize_one_bucket(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	q[Z + 1] = 3;			/* value 1 */
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 0);
	assert_string_equal(s, Q_ONE);
	free(s);
}

static void test_quantize_empty_prints_rows_around_zero(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 0);
	assert_string_equal(s, Q_EMPTY);
	free(s);
}

static void test_quantize_trims_and_scales_to_total(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	q[Z + 1] = 1;			/* 1 */
	q[Z + 3] = 3;			/* 4..7 */
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 0);
	assert_string_equal(s, Q_TWO);
	free(s);
}

static void test_quantize_negative_only_draws_left(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	q[Z - 1] = -2;			/* bucket -1, decremented twice */
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 0);
	assert_string_equal(s, Q_NEG);
	free(s);
}

static void test_quantize_mixed_signs_half_bars(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	q[Z - 1] = -1;
	q[Z + 1] = 1;
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 0);
	assert_string_equal(s, Q_MIXED);
	free(s);
}

static void test_quantize_huge_counts(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	q[Z + 1] = INT64_MAX / 4;
	q[Z + 2] = INT64_MAX / 4;
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 0);
	assert_non_null(strstr(s, "               1 |@@@@@@@@@@@@@@@@@@@@"
	    "                     2305843009213693951\n"));
	free(s);
}

static void test_lquantize_underflow_label(void **state)
{
	int64_t l[1 + 2 + 2] = { 0 };
	char *s;

	(void)state;
	l[0] = (int64_t)DTRACE_LQUANTIZE_ENCODE(5, 2, 0);
	l[2] = 1;			/* 0..4 */
	s = draw(DTRACEAGG_LQUANTIZE, l, sizeof (l), 0);
	assert_string_equal(s, L_ONE);
	free(s);
}

static void test_lquantize_overflow_label(void **state)
{
	int64_t l[1 + 2 + 2] = { 0 };
	char *s;

	(void)state;
	l[0] = (int64_t)DTRACE_LQUANTIZE_ENCODE(5, 2, 0);
	l[4] = 4;			/* >= 10 */
	s = draw(DTRACEAGG_LQUANTIZE, l, sizeof (l), 0);
	assert_string_equal(s, L_OVER);
	free(s);
}

static void test_llquantize_buckets(void **state)
{
	int64_t ll[1 + 29] = { 0 };
	eng_aggent_t e;
	char lab[32], *s;

	(void)state;
	ll[0] = (int64_t)DTRACE_LLQUANTIZE_ENCODE(10, 0, 2, 10);
	ll[1 + 10] = 2;			/* 10..19 */
	s = draw(DTRACEAGG_LLQUANTIZE, ll, sizeof (ll), 0);
	assert_string_equal(s, LL_ONE);
	free(s);
	memset(&e, 0, sizeof (e));
	e.eae_func = DTRACEAGG_LLQUANTIZE;
	e.eae_hist_arg = (uint64_t)ll[0];
	e.eae_nbuckets = 29;
	eng_agg_bucket_label(&e, 0, lab, sizeof (lab));
	assert_string_equal(lab, "< 1");
	eng_agg_bucket_label(&e, 19, lab, sizeof (lab));
	assert_string_equal(lab, "100");
	eng_agg_bucket_label(&e, 28, lab, sizeof (lab));
	assert_string_equal(lab, ">= 1000");
}

static void test_aggzoom_scales_to_largest(void **state)
{
	int64_t q[DTRACE_QUANTIZE_NBUCKETS] = { 0 };
	char *s;

	(void)state;
	q[Z + 1] = 1;
	q[Z + 3] = 3;
	s = draw(DTRACEAGG_QUANTIZE, q, sizeof (q), 1);
	/* the largest bucket fills 95% of the bar: 38 of 40 columns */
	assert_non_null(strstr(s, "               4 |@@@@@@@@@@@@@@@@@@@@"
	    "@@@@@@@@@@@@@@@@@@   3        \n"));
	assert_non_null(strstr(s, "               1 |@@@@@@@@@@@@@ "));
	free(s);
}

static void test_quantize_labels(void **state)
{
	eng_aggent_t e;
	char lab[32];

	(void)state;
	memset(&e, 0, sizeof (e));
	e.eae_func = DTRACEAGG_QUANTIZE;
	eng_agg_bucket_label(&e, Z, lab, sizeof (lab));
	assert_string_equal(lab, "0");
	eng_agg_bucket_label(&e, Z + 11, lab, sizeof (lab));
	assert_string_equal(lab, "1024");
	eng_agg_bucket_label(&e, Z - 2, lab, sizeof (lab));
	assert_string_equal(lab, "-2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantize_one_bucket),
		cmocka_unit_test(test_quantize_empty_prints_rows_around_zero),
		cmocka_unit_test(test_quantize_trims_and_scales_to_total),
		cmocka_unit_test(test_quantize_negative_only_draws_left),
		cmocka_unit_test(test_quantize_mixed_signs_half_bars),
		cmocka_unit_test(test_quantize_huge_counts),
		cmocka_unit_test(test_lquantize_underflow_label),
		cmocka_unit_test(test_lquantize_overflow_label),
		cmocka_unit_test(test_llquantize_buckets),
		cmocka_unit_test(test_aggzoom_scales_to_largest),
		cmocka_unit_test(test_quantize_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
