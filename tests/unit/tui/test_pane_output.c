/*
 * test_pane_output.c - the output pane on its own: it follows the
 * newest line, stops following when scrolled back and says what is
 * below, follows again at End or f, keeps its follow state across a
 * pause, and searches back for text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "panefx.h"

static int setup(void **st)
{
	static panefx_t f;
	char buf[32];

	if (panefx_setup(&f, TUI_P_OUTPUT) != 0)
		return -1;
	for (int i = 0; i < 40; i++) {
		int n = snprintf(buf, sizeof(buf), "line %d\n", i);

		tui_model_output(f.m, buf, (size_t)n, i % 2);
	}
	*st = &f;
	return 0;
}

static int teardown(void **st)
{
	panefx_teardown(*st);
	return 0;
}

static void test_output_follows_then_scrolls_back(void **st)
{
	panefx_t *f = *st;
	unsigned r;

	assert_true(tui_pane_output_follows(f->p));
	panefx_draw(f);
	assert_string_equal(panefx_row(f, 19), "  1 line 39");
	r = panefx_keys(f, "g");			/* Home */
	assert_true(r & TUI_REDRAW);
	panefx_draw(f);
	assert_string_equal(panefx_row(f, 0), "  0 line 0");
	assert_string_equal(panefx_row(f, 19),
	    "-- 21 more lines below: End or f follows --");
	assert_false(tui_pane_output_follows(f->p));
	panefx_keys(f, "G");				/* End */
	assert_true(tui_pane_output_follows(f->p));
	panefx_keys(f, "f");				/* f toggles */
	assert_false(tui_pane_output_follows(f->p));
}

static void test_output_pause_keeps_follow_state(void **st)
{
	panefx_t *f = *st;

	panefx_keys(f, "G");
	tui_pane_output_pause(f->p, 1);
	assert_false(tui_pane_output_follows(f->p));
	tui_pane_output_pause(f->p, 0);
	assert_true(tui_pane_output_follows(f->p));
	panefx_keys(f, "g");
	tui_pane_output_pause(f->p, 1);
	tui_pane_output_pause(f->p, 0);
	assert_false(tui_pane_output_follows(f->p));
}

static void test_output_search_back_and_highlight(void **st)
{
	panefx_t *f = *st;

	panefx_keys(f, "G");
	panefx_keys(f, "/");
	assert_true(f->p->tp_searching);
	panefx_keys(f, "line 1");
	panefx_draw(f);
	assert_string_equal(panefx_row(f, 19), "/line 1");
	panefx_keys(f, "\r");				/* search back */
	assert_false(f->p->tp_searching);
	panefx_draw(f);
	assert_string_equal(panefx_row(f, 0), "  1 line 19");
	assert_int_equal(tui_surface_role_at(f->s, 4, 0), TUI_R_MATCH);
	assert_int_equal(tui_surface_role_at(f->s, 0, 0), TUI_R_CPU);
	panefx_keys(f, "n");				/* the one before */
	panefx_draw(f);
	assert_string_equal(panefx_row(f, 0), "  0 line 18");
}

/* A key the pane does not use is not handled and asks for no redraw. */
static void test_output_ignores_unknown_keys(void **st)
{
	panefx_t *f = *st;

	assert_int_equal(panefx_keys(f, "x"), 0);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_setup_teardown(
		    test_output_follows_then_scrolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_output_pause_keeps_follow_state, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_output_search_back_and_highlight, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_output_ignores_unknown_keys, setup, teardown),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
