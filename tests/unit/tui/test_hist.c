/* test_hist.c - histogram trimming, percentiles, bar scaling, drawing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"

static void test_tui_hist_trim_keeps_one_zero_each_side(void **st)
{
	int64_t b[8] = { 0, 0, 0, 5, 0, 7, 0, 0 };
	int lo, hi;

	tui_hist_trim(b, 8, &lo, &hi);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 6);
}

static void test_tui_hist_trim_clamps_at_the_ends(void **st)
{
	int64_t b[4] = { 1, 0, 0, 2 };
	int64_t z[4] = { 0, 0, 0, 0 };
	int lo, hi;

	tui_hist_trim(b, 4, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 3);
	tui_hist_trim(z, 4, &lo, &hi);
	assert_true(lo > hi);
}

static void test_tui_hist_pctl_finds_median_and_p99(void **st)
{
	int64_t b[6] = { 0, 10, 30, 50, 9, 1 };	/* total 100 */

	assert_int_equal(tui_hist_pctl(b, 6, 50), 3);	/* cum 40, 90 */
	assert_int_equal(tui_hist_pctl(b, 6, 99), 4);	/* cum 99 */
	assert_int_equal(tui_hist_pctl(b, 6, 100), 5);
	memset(b, 0, sizeof(b));
	assert_int_equal(tui_hist_pctl(b, 6, 50), -1);
}

static void test_tui_hist_bar_scales_to_width(void **st)
{
	assert_int_equal(tui_hist_bar(50, 100, 40), 20);
	assert_int_equal(tui_hist_bar(100, 100, 40), 40);
	assert_int_equal(tui_hist_bar(0, 100, 40), 0);
	assert_int_equal(tui_hist_bar(1, 1000, 40), 0);	/* rounds down */
	assert_int_equal(tui_hist_bar(5, 0, 40), 0);
}

static void test_tui_hist_draw_rows_match_dtrace_shape(void **st)
{
	static char *labels[5] = { "0", "1", "2", "4", "8" };
	int64_t b[5] = { 0, 0, 4, 4, 0 }, pb[5] = { 0 };
	tui_aggent_t e = { "k", 8, 0, 5, b, pb, labels, 1 };
	tui_surface_t *s = tui_surface_new(80, 10);
	char buf[256];
	int rows;

	rows = tui_hist_draw(s, 0, 10, &e, 0);
	assert_int_equal(rows, 1 + 4);	/* header + buckets 1..4 */
	tui_surface_row(s, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "value"));
	assert_non_null(strstr(buf, "Distribution"));
	tui_surface_row(s, 1, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "               1 |", 18), 0);
	tui_surface_row(s, 2, buf, sizeof(buf));
	assert_non_null(strstr(buf, "               2 |@"));
	assert_non_null(strstr(buf, " 4 "));
	assert_non_null(strstr(buf, "p50"));
	tui_surface_row(s, 3, buf, sizeof(buf));
	assert_non_null(strstr(buf, "p99"));
	tui_surface_free(s);
}

static void test_tui_hist_draw_per_interval_subtracts_previous(void **st)
{
	static char *labels[3] = { "0", "1", "2" };
	int64_t b[3] = { 0, 10, 0 }, pb[3] = { 0, 7, 0 };
	tui_aggent_t e = { "", 10, 7, 3, b, pb, labels, 1 };
	tui_surface_t *s = tui_surface_new(80, 6);
	char buf[256];

	tui_hist_draw(s, 0, 6, &e, 1);
	tui_surface_row(s, 2, buf, sizeof(buf));
	assert_non_null(strstr(buf, " 3 "));
	tui_surface_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_hist_trim_keeps_one_zero_each_side),
		cmocka_unit_test(test_tui_hist_trim_clamps_at_the_ends),
		cmocka_unit_test(test_tui_hist_pctl_finds_median_and_p99),
		cmocka_unit_test(test_tui_hist_bar_scales_to_width),
		cmocka_unit_test(test_tui_hist_draw_rows_match_dtrace_shape),
		cmocka_unit_test(test_tui_hist_draw_per_interval_subtracts_previous),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
