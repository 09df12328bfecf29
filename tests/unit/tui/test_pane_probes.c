/*
 * test_pane_probes.c - the probe browser on its own: the tree with
 * counts, a filter typed after '/', the selected probe it reports
 * (TUI_PROBE_SEL) and the clause template Enter hands the prompt.
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
	tui_probes_t *p;

	if (panefx_setup(&f, TUI_P_PROBES) != 0)
		return -1;
	p = &f.m->tm_probes;
	tui_probes_add(p, 3, "syscall", "vmlinux", "read", "entry");
	tui_probes_add(p, 4, "syscall", "vmlinux", "write", "entry");
	tui_probes_add(p, 1, "dtrace", "", "", "BEGIN");
	tui_probes_sort(p);
	*st = &f;
	return 0;
}

static int teardown(void **st)
{
	panefx_teardown(*st);
	return 0;
}

static void test_probes_tree_and_selection(void **st)
{
	panefx_t *f = *st;
	unsigned r;

	assert_int_equal(tui_pane_probes_selected(f->p), -1);
	panefx_draw(f);
	assert_true(panefx_find(f, "+ dtrace (1)") > 0);
	assert_true(panefx_find(f, "+ syscall (2)") > 0);
	r = panefx_key(f, TUI_KEY_DOWN);
	assert_true(r & TUI_PROBE_SEL);
	assert_true(tui_pane_probes_selected(f->p) >= 0);
	assert_int_equal(f->p->tp_sel, 1);
	tui_pane_probes_info(f->p, "id 3  args: 0:int");	/* main.c's */
	panefx_draw(f);
	assert_string_equal(panefx_row(f, PANEFX_ROWS - 1), "id 3  args: 0:int");
}

static void test_probes_filter_then_insert(void **st)
{
	panefx_t *f = *st;
	unsigned r;

	panefx_keys(f, "/");
	assert_true(f->p->tp_searching);
	panefx_keys(f, "wri");
	panefx_draw(f);
	assert_true(panefx_find(f, "filter: wri_") >= 0);
	assert_true(panefx_find(f, "- write (1)") > 0);
	assert_int_equal(panefx_find(f, "read"), -1);
	panefx_keys(f, "\r");				/* leave the filter */
	assert_false(f->p->tp_searching);
	panefx_key(f, TUI_KEY_END);
	r = panefx_keys(f, "\r");
	assert_true(r & TUI_INSERT);
	assert_true(r & TUI_TO_PROMPT);
	assert_string_equal(f->p->tp_insert,
	    "syscall:vmlinux:write:entry { }");
}

static void test_probes_empty_insert_asks_nothing(void **st)
{
	panefx_t *f = *st;

	tui_probes_clear(&f->m->tm_probes);
	assert_int_equal(panefx_keys(f, "\r"), TUI_HANDLED);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_setup_teardown(
		    test_probes_tree_and_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_probes_filter_then_insert, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_probes_empty_insert_asks_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
