/* test_model.c - the model: output ring, CPU ticks, aggregation
 * snapshots with previous values, enablings, heatmap columns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"
#include "dtrace_abi.h"

static void test_tui_model_output_splits_lines_and_keeps_partial(void **st)
{
	tui_model_t *m = tui_model_new(10);

	tui_model_output(m, "one\ntw", 6, 1);
	assert_int_equal(m->tm_nlines, 1);
	assert_string_equal(tui_model_line(m, 0)->tl_text, "one");
	assert_int_equal(tui_model_line(m, 0)->tl_cpu, 1);
	tui_model_output(m, "o\n", 2, 0);
	assert_int_equal(m->tm_nlines, 2);
	assert_string_equal(tui_model_line(m, 1)->tl_text, "two");
	assert_null(m->tm_partial);
	tui_model_free(m);
}

static void test_tui_model_output_ring_drops_oldest(void **st)
{
	tui_model_t *m = tui_model_new(3);
	char buf[16];

	for (int i = 0; i < 5; i++) {
		int n = snprintf(buf, sizeof(buf), "l%d\n", i);

		tui_model_output(m, buf, n, 0);
	}
	assert_int_equal(m->tm_nlines, 3);
	assert_int_equal(m->tm_totlines, 5);
	assert_string_equal(tui_model_line(m, 0)->tl_text, "l2");
	assert_string_equal(tui_model_line(m, 2)->tl_text, "l4");
	assert_null(tui_model_line(m, 3));
	tui_model_free(m);
}

static void test_tui_model_cpu_tick_rates_and_drop_history(void **st)
{
	tui_model_t *m = tui_model_new(10);
	tui_cpu_t c = { 0 };

	assert_int_equal(tui_model_setcpus(m, 2), 0);
	c.tcp_records = 100;
	c.tcp_bytes = 1000;
	c.tcp_drops[TUI_DROP_BUF] = 3;
	tui_model_cpu_tick(m, 1, &c, 0.5);
	assert_true(m->tm_cpus[1].tcp_recps == 200.0);
	assert_int_equal(m->tm_cpus[1].tcp_hist[TUI_SPARK_N - 1], 3);
	c.tcp_records = 150;
	c.tcp_drops[TUI_DROP_BUF] = 4;
	tui_model_cpu_tick(m, 1, &c, 1.0);
	assert_true(m->tm_cpus[1].tcp_recps == 100.0);	/* 150 over 1.5 s */
	assert_int_equal(m->tm_cpus[1].tcp_hist[TUI_SPARK_N - 1], 1);
	assert_int_equal(m->tm_cpus[1].tcp_hist[TUI_SPARK_N - 2], 3);
	tui_model_drop(m, 5, TUI_DROP_AGG, 2);	/* out of range: CPU 0 */
	assert_int_equal(m->tm_cpus[0].tcp_drops[TUI_DROP_AGG], 2);
	assert_int_equal(m->tm_drops, 2);
	tui_model_free(m);
}

/* Records that come in bursts once a second (a buffer switch) read as
 * a steady rate, not as 0 nine ticks of ten and 10x the truth on the
 * tenth; a total that goes backwards (new session) reads 0. */
static void test_tui_rate_tick_smooths_bursts(void **st)
{
	tui_rate_t r = { { 0 }, { 0 }, 0 };
	uint64_t total = 0;
	double rate;

	for (int t = 1; t <= 100; t++) {
		uint64_t before = total;

		if (t % 10 == 0)
			total += 1000;		/* 1000 records/s in bursts */
		rate = tui_rate_tick(&r, before, total, 0.1);
		if (t > 25) {
			assert_true(rate >= 900.0);
			assert_true(rate <= 1500.0);
		}
	}
	assert_true(r.tr_n <= 22);	/* only the window is kept */
	assert_true(tui_rate_tick(&r, total, 5, 0.1) == 0.0);
	assert_int_equal(r.tr_n, 0);
	assert_true(tui_rate_tick(&r, 5, 105, 0.5) == 200.0);
}

static void snap(tui_model_t *m, int64_t a, int64_t b, int with_b)
{
	tui_agg_t *ag;

	tui_model_agg_begin(m);
	ag = tui_model_agg_get(m, "@c", DTRACEAGG_COUNT);
	assert_non_null(ag);
	assert_int_equal(tui_model_agg_put(ag, "a", a, 0, NULL, NULL), 0);
	if (with_b)
		assert_int_equal(tui_model_agg_put(ag, "b", b, 0, NULL, NULL),
		    0);
	tui_model_agg_end(m);
}

static void test_tui_model_agg_keeps_previous_and_drops_vanished(void **st)
{
	tui_model_t *m = tui_model_new(10);
	tui_agg_t *a;

	snap(m, 5, 1, 1);
	a = tui_model_agg_find(m, "c");
	assert_non_null(a);
	assert_string_equal(a->tag_name, "c");
	assert_int_equal(a->tag_nents, 2);
	assert_int_equal(a->tag_ents[0].ta_prev, 0);
	snap(m, 9, 0, 0);
	a = tui_model_agg_find(m, "@c");
	assert_int_equal(a->tag_nents, 1);
	assert_int_equal(a->tag_ents[0].ta_value, 9);
	assert_int_equal(a->tag_ents[0].ta_prev, 5);
	tui_model_agg_clear(m, "@c");
	assert_int_equal(a->tag_ents[0].ta_value, 0);
	tui_model_free(m);
}

static void test_tui_model_agg_many_keys_found_again(void **st)
{
	tui_model_t *m = tui_model_new(10);
	char key[32];

	for (int round = 0; round < 2; round++) {
		tui_agg_t *a;

		tui_model_agg_begin(m);
		a = tui_model_agg_get(m, "big", DTRACEAGG_SUM);
		for (int i = 0; i < 5000; i++) {
			snprintf(key, sizeof(key), "key%d", i);
			assert_int_equal(tui_model_agg_put(a, key,
			    i + round * 10, 0, NULL, NULL), 0);
		}
		tui_model_agg_end(m);
	}
	tui_agg_t *a = tui_model_agg_find(m, "big");
	assert_int_equal(a->tag_nents, 5000);
	assert_int_equal(a->tag_ents[4999].ta_value, 5009);
	assert_int_equal(a->tag_ents[4999].ta_prev, 4999);
	tui_model_free(m);
}

/* printa order is the order of the latest snapshot: when counts change
 * the order, the table follows it, with the key index still right. */
static void test_tui_model_agg_order_follows_latest_snapshot(void **st)
{
	tui_model_t *m = tui_model_new(10);
	const char *first[] = { "bash", "sshd", "cron" };
	const char *second[] = { "cron", "make", "bash", "sshd" };
	tui_agg_t *a;

	tui_model_agg_begin(m);
	a = tui_model_agg_get(m, "c", DTRACEAGG_COUNT);
	for (int i = 0; i < 3; i++)
		tui_model_agg_put(a, first[i], i + 1, 0, NULL, NULL);
	tui_model_agg_end(m);
	tui_model_agg_begin(m);
	a = tui_model_agg_get(m, "c", DTRACEAGG_COUNT);
	for (int i = 0; i < 4; i++)
		tui_model_agg_put(a, second[i], 10 + i, 0, NULL, NULL);
	tui_model_agg_end(m);
	assert_int_equal(a->tag_nents, 4);
	for (int i = 0; i < 4; i++)
		assert_string_equal(a->tag_ents[i].ta_key, second[i]);
	assert_int_equal(a->tag_ents[0].ta_prev, 3);	/* cron was 3 */
	assert_int_equal(a->tag_ents[1].ta_prev, 0);	/* make is new */
	/* the index was rebuilt: a third snapshot finds every key again */
	tui_model_agg_begin(m);
	a = tui_model_agg_get(m, "c", DTRACEAGG_COUNT);
	for (int i = 3; i >= 0; i--)
		tui_model_agg_put(a, second[i], 20, 0, NULL, NULL);
	tui_model_agg_end(m);
	assert_int_equal(a->tag_nents, 4);
	assert_string_equal(a->tag_ents[0].ta_key, "sshd");
	assert_int_equal(a->tag_ents[0].ta_prev, 13);
	assert_int_equal(a->tag_ents[3].ta_prev, 10);
	tui_model_free(m);
}

static void test_tui_model_enablings_number_and_remove(void **st)
{
	tui_model_t *m = tui_model_new(10);

	assert_non_null(tui_model_enabling_add(m, "BEGIN {}", 1, NULL));
	assert_non_null(tui_model_enabling_add(m, "END {}", 2, NULL));
	assert_int_equal(m->tm_nenabled, 3);
	assert_int_equal(tui_model_enabling(m, 2)->te_nprobes, 2);
	tui_model_enabling_remove(m, 1);
	assert_null(tui_model_enabling(m, 1));
	assert_int_equal(m->tm_nenabled, 2);
	assert_int_equal(tui_model_enabling_add(m, "x", 0, NULL)->te_id, 3);
	tui_model_free(m);
}

static void hist_snap(tui_model_t *m, int64_t b1)
{
	static char *labels[3] = { "0", "1", "2" };
	int64_t b[3] = { 0, b1, 1 };
	tui_agg_t *a;

	tui_model_agg_begin(m);
	a = tui_model_agg_get(m, "h", DTRACEAGG_QUANTIZE);
	tui_model_agg_put(a, "k", b1 + 1, 3, b, labels);
	tui_model_agg_end(m);
	tui_heat_push(m);
}

static void test_tui_heat_columns_are_per_interval(void **st)
{
	tui_model_t *m = tui_model_new(10);

	hist_snap(m, 2);
	assert_int_equal(tui_heat_choose(m, NULL, NULL), 0);
	assert_string_equal(m->tm_heat.th_agg, "h");
	hist_snap(m, 5);
	hist_snap(m, 11);
	assert_int_equal(m->tm_heat.th_ncols, 2);
	assert_int_equal(tui_heat_at(&m->tm_heat, 0, 1), 6);
	assert_int_equal(tui_heat_at(&m->tm_heat, 1, 1), 3);
	assert_int_equal(tui_heat_at(&m->tm_heat, 0, 2), 0);
	assert_int_equal(tui_heat_choose(m, "nope", NULL), -1);
	tui_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_model_output_splits_lines_and_keeps_partial),
		cmocka_unit_test(test_tui_model_output_ring_drops_oldest),
		cmocka_unit_test(test_tui_model_cpu_tick_rates_and_drop_history),
		cmocka_unit_test(test_tui_rate_tick_smooths_bursts),
		cmocka_unit_test(test_tui_model_agg_keeps_previous_and_drops_vanished),
		cmocka_unit_test(test_tui_model_agg_many_keys_found_again),
		cmocka_unit_test(test_tui_model_agg_order_follows_latest_snapshot),
		cmocka_unit_test(test_tui_model_enablings_number_and_remove),
		cmocka_unit_test(test_tui_heat_columns_are_per_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
