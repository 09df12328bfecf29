/*
 * test_pane_heat.c - the heatmap pane on its own: what it says with no
 * heatmap chosen, the newest refresh in the rightmost column, and
 * Left/Right moving to the other keys of the aggregation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "panefx.h"
#include "dtrace_abi.h"

static char *labels[4] = { "0", "1", "2", "4" };

static int setup(void **st)
{
	static panefx_t f;

	if (panefx_setup(&f, TUI_P_HEAT) != 0)
		return -1;
	*st = &f;
	return 0;
}

static int teardown(void **st)
{
	panefx_teardown(*st);
	return 0;
}

/* One refresh of @lat with keys read and write; bucket "1" holds n. */
static void refresh(panefx_t *f, int64_t n)
{
	int64_t b[4] = { 0, n, 1, 0 };
	tui_agg_t *a;

	tui_model_agg_begin(f->m);
	a = tui_model_agg_get(f->m, "lat", DTRACEAGG_QUANTIZE);
	tui_model_agg_put(a, "read", n + 1, 4, b, labels);
	tui_model_agg_put(a, "write", n + 1, 4, b, labels);
	tui_model_agg_end(f->m);
	tui_heat_push(f->m);
}

static void test_heat_without_a_choice_says_how(void **st)
{
	panefx_t *f = *st;

	panefx_draw(f);
	assert_non_null(strstr(panefx_row(f, 0), "(no heatmap: select a "
	    "histogram in Aggregations and press H)"));
	assert_int_equal(panefx_key(f, TUI_KEY_RIGHT), 0);
}

static void test_heat_newest_on_the_right(void **st)
{
	panefx_t *f = *st;
	int y;

	refresh(f, 0);
	assert_int_equal(tui_heat_choose(f->m, "lat", "read"), 0);
	refresh(f, 10);
	refresh(f, 20);
	panefx_draw(f);
	assert_non_null(strstr(panefx_row(f, 0), "@lat read"));
	y = panefx_find(f, "          1 ");
	assert_true(y > 0);
	assert_int_equal(tui_surface_role_at(f->s, PANEFX_COLS - 1, y),
	    TUI_R_HEAT_HI);
}

static void test_heat_left_right_cycle_keys(void **st)
{
	panefx_t *f = *st;

	refresh(f, 3);
	assert_int_equal(tui_heat_choose(f->m, "lat", "read"), 0);
	assert_true(panefx_key(f, TUI_KEY_RIGHT) & TUI_REDRAW);
	assert_string_equal(f->m->tm_heat.th_key, "write");
	panefx_key(f, TUI_KEY_RIGHT);
	assert_string_equal(f->m->tm_heat.th_key, "read");
	panefx_key(f, TUI_KEY_LEFT);
	assert_string_equal(f->m->tm_heat.th_key, "write");
}

/* [ { ] }: the prompt commands that move a replay's cursor; a column's
 * time is the model's tm_now when it was pushed; a rewind keeps the
 * choice and forgets the columns. */
static void test_heat_scrub_keys(void **st)
{
	panefx_t *f = *st;

	refresh(f, 1);
	assert_int_equal(tui_heat_choose(f->m, "lat", "read"), 0);
	f->m->tm_now = 0.25;
	refresh(f, 2);
	assert_true(panefx_key(f, '[') & TUI_ACTION);	/* one column: */
	assert_string_equal(f->p->tp_action, ":jump 0.250000000");	/* fill */
	for (int i = 1; i <= 12; i++) {
		f->m->tm_now = 0.25 + i * 0.5;
		refresh(f, i);
	}
	assert_true(tui_heat_time(&f->m->tm_heat, 0) == 6.25);
	assert_true(tui_heat_time(&f->m->tm_heat, 13) == -1);
	panefx_key(f, '[');
	assert_string_equal(f->p->tp_action, ":jump 5.750000000");
	panefx_key(f, '{');
	assert_string_equal(f->p->tp_action, ":jump 1.250000000");
	panefx_key(f, ']');
	assert_string_equal(f->p->tp_action, ":step 1");
	panefx_key(f, '}');
	assert_string_equal(f->p->tp_action, ":step 10");
	tui_model_output(f->m, "a line\n", 7, 0);
	tui_model_rewind(f->m);
	assert_int_equal(f->m->tm_nlines, 0);
	assert_int_equal(f->m->tm_naggs, 0);
	assert_int_equal(f->m->tm_heat.th_ncols, 0);
	assert_string_equal(f->m->tm_heat.th_agg, "lat");
	assert_string_equal(f->m->tm_heat.th_key, "read");
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_setup_teardown(
		    test_heat_without_a_choice_says_how, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_heat_newest_on_the_right, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_heat_left_right_cycle_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_heat_scrub_keys, setup, teardown),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
