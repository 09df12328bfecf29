/*
 * test_pane_aggs.c - the aggregations pane on its own: one block per
 * aggregation, the selection moved with Left/Right and by a click on a
 * block, sorting, zoom, and the clear and trunc requests it hands back
 * as prompt commands.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "panefx.h"
#include "dtrace_abi.h"

static int setup(void **st)
{
	static panefx_t f;
	tui_agg_t *a;

	if (panefx_setup(&f, TUI_P_AGGS) != 0)
		return -1;
	tui_model_agg_begin(f.m);
	a = tui_model_agg_get(f.m, "calls", DTRACEAGG_COUNT);
	tui_model_agg_put(a, "bash", 5, 0, NULL, NULL);
	tui_model_agg_put(a, "sshd", 50, 0, NULL, NULL);
	a = tui_model_agg_get(f.m, "bytes", DTRACEAGG_SUM);
	tui_model_agg_put(a, "read", 7, 0, NULL, NULL);
	tui_model_agg_end(f.m);
	*st = &f;
	return 0;
}

static int teardown(void **st)
{
	panefx_teardown(*st);
	return 0;
}

static void test_aggs_blocks_and_selection(void **st)
{
	panefx_t *f = *st;
	unsigned r;

	panefx_draw(f);
	assert_non_null(strstr(panefx_row(f, 0), ">@calls  count  2 entries"));
	assert_true(panefx_find(f, " @bytes  sum  1 entry") > 0);
	r = panefx_key(f, TUI_KEY_RIGHT);
	assert_int_equal(r, TUI_HANDLED | TUI_REDRAW);
	panefx_draw(f);
	assert_true(panefx_find(f, ">@bytes  sum") > 0);
	assert_true(panefx_find(f, " @calls  count") == 0);
	panefx_key(f, TUI_KEY_RIGHT);			/* stays on the last */
	assert_int_equal(f->p->tp_sel, 1);
	tui_pane_aggs_select(f->p, 0);
	panefx_draw(f);
	assert_true(panefx_find(f, ">@calls") == 0);
}

static void test_aggs_click_selects_its_block(void **st)
{
	panefx_t *f = *st;
	tui_cmd_t c = { .tc_kind = TUI_C_CLICK };

	panefx_draw(f);
	c.tc_y = panefx_find(f, "@bytes") + 1;	/* a row inside it */
	f->p->tp_ops->handle(f->p, &c, f->m);
	assert_int_equal(f->p->tp_sel, 1);
}

static void test_aggs_sort_and_zoom(void **st)
{
	panefx_t *f = *st;

	panefx_keys(f, "ss");				/* by value */
	panefx_draw(f);
	assert_non_null(strstr(panefx_row(f, 0), "sorted by value"));
	assert_true(panefx_find(f, "sshd") < panefx_find(f, "bash"));
	panefx_keys(f, "z");
	panefx_draw(f);
	assert_int_equal(panefx_find(f, "@bytes"), -1);
	panefx_keys(f, "z");
	panefx_draw(f);
	assert_true(panefx_find(f, "@bytes") > 0);
}

static void test_aggs_clear_and_trunc_ask_the_prompt(void **st)
{
	panefx_t *f = *st;

	assert_true(panefx_keys(f, "C") & TUI_ACTION);
	assert_string_equal(f->p->tp_action, ":clear @calls");
	panefx_key(f, TUI_KEY_RIGHT);
	assert_true(panefx_keys(f, "T") & TUI_ACTION);
	assert_string_equal(f->p->tp_action, ":trunc @bytes 10");
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_setup_teardown(
		    test_aggs_blocks_and_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_aggs_click_selects_its_block, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_aggs_sort_and_zoom, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_aggs_clear_and_trunc_ask_the_prompt, setup, teardown),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
