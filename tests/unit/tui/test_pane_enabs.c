/*
 * test_pane_enabs.c - the enablings pane and its rows on their own: the
 * ECBs of a clause summed into one row (probes counted, the first probe
 * named), rates over ticks, rows gone with their ECBs, the predicate
 * beside the probe and where the clause runs, and the keys that act on
 * the selected clause's enabling through prompt commands.
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

	if (panefx_setup(&f, TUI_P_ENABS) != 0)
		return -1;
	*st = &f;
	return 0;
}

static int teardown(void **st)
{
	panefx_teardown(*st);
	return 0;
}

/* One tick: clause 7 on two probes, filtered in the kernel, clause 3
 * on one, in the shim (put out of order). */
static void tick(panefx_t *f, uint64_t fires, double dt)
{
	tui_ecb_t a = { 7, 1, "syscall::read:entry", "/pid == 42/",
	    TUI_RUN_KFILTER, { fires, 2, 0, 0 }, 0, 0 };
	tui_ecb_t b = { 3, 0, "profile:::tick-1s", NULL, TUI_RUN_SHIM,
	    { fires, 0, 1, 4 }, 2, 900 };	/* 2 runs timed: 450 ns */

	tui_clauses_begin(f->m);
	assert_int_equal(tui_clauses_put(f->m, &a), 0);
	a.te_probe = "syscall::write:entry";
	assert_int_equal(tui_clauses_put(f->m, &a), 0);
	assert_int_equal(tui_clauses_put(f->m, &b), 0);
	tui_clauses_end(f->m, dt);
}

static void test_enabs_rows_sum_ecbs(void **st)
{
	panefx_t *f = *st;
	const tui_clause_t *c;

	tick(f, 10, 1.0);
	assert_int_equal(f->m->tm_nclauses, 2);
	c = &f->m->tm_clauses[0];		/* in clause order */
	assert_int_equal(c->tcl_id, 3);
	assert_int_equal(c->tcl_drops, 1);
	assert_int_equal(c->tcl_errors, 4);
	c = &f->m->tm_clauses[1];
	assert_int_equal(c->tcl_nprobes, 2);
	assert_int_equal(c->tcl_fires, 20);
	assert_int_equal(c->tcl_predfalse, 4);
	assert_string_equal(c->tcl_probe, "syscall::read:entry");
	tick(f, 30, 1.0);	/* 60 runs in the 2 s window */
	assert_true(f->m->tm_clauses[1].tcl_fireps > 29.9 &&
	    f->m->tm_clauses[1].tcl_fireps < 30.1);
	panefx_draw(f);		/* 80 columns: the clause column is 11 */
	assert_true(panefx_find(f, "syscall::re filter") > 0);
	/* clause 3's runs cost 450 ns; clause 7's were not timed: "-" */
	assert_string_equal(panefx_row(f, 1), "  -     profile:::t "
	    "shim        1      30      15     450       0      1      4");
	assert_string_equal(panefx_row(f, 2), "  1 del syscall::re "
	    "filter      2      60      30       -       4      0      0");
	tui_clauses_begin(f->m);		/* a new session: no ECBs */
	tui_clauses_end(f->m, 1.0);
	assert_int_equal(f->m->tm_nclauses, 0);
	panefx_draw(f);
	assert_true(panefx_find(f, "(no clause enabled)") > 0);
}

static void test_enabs_keys_act_on_enabling(void **st)
{
	panefx_t *f = *st;
	tui_cmd_t c = { TUI_C_CHAR, 'd', 0, 0 };
	unsigned r;

	assert_non_null(tui_model_enabling_add(f->m, "tick-1s { x = 1; }", 1,
	    NULL));
	tick(f, 1, 1.0);
	f->p->tp_sel = 1;			/* clause 7, enabling 1 */
	r = f->p->tp_ops->handle(f->p, &c, f->m);
	assert_true(r & TUI_ACTION);
	assert_string_equal(f->p->tp_action, ":disable 1");
	c.tc_key = 'e';
	f->p->tp_ops->handle(f->p, &c, f->m);
	assert_string_equal(f->p->tp_action, ":enable 1");
	c.tc_key = 'x';
	f->p->tp_ops->handle(f->p, &c, f->m);
	assert_string_equal(f->p->tp_action, ":remove 1");
	c.tc_kind = TUI_C_ENTER;
	r = f->p->tp_ops->handle(f->p, &c, f->m);
	assert_true(r & TUI_INSERT);
	assert_string_equal(f->p->tp_insert, "tick-1s { x = 1; }  ");
	f->p->tp_sel = 0;			/* no enabling: keys do nothing */
	c.tc_kind = TUI_C_CHAR;
	c.tc_key = 'd';
	assert_int_equal(f->p->tp_ops->handle(f->p, &c, f->m), 0);
	panefx_draw(f);
	assert_true(strstr(panefx_row(f, 2), "  1 on ") == panefx_row(f, 2));
}

/* Wide enough, the clause column holds the predicate beside the probe;
 * narrower, it is cut at the column.  Where a clause runs is its ECBs'
 * common answer, or mixed.  The pid/usdt route's cost per hit is on the
 * bottom line when there were hits. */
static void test_enabs_predicate_and_where(void **st)
{
	panefx_t *f = *st;
	tui_surface_t *wide = tui_surface_new(120, 5);
	char row[256];
	tui_ecb_t e = { 9, 0, "tick-20ms", "/i == 7/", TUI_RUN_KAGG,
	    { 1, 0, 0, 0 }, 0, 0 };

	assert_non_null(wide);
	tick(f, 10, 1.0);
	tui_clauses_begin(f->m);
	assert_int_equal(tui_clauses_put(f->m, &e), 0);
	e.te_runs = TUI_RUN_SHIM;
	assert_int_equal(tui_clauses_put(f->m, &e), 0);
	tui_clauses_end(f->m, 1.0);
	assert_int_equal(f->m->tm_nclauses, 1);
	assert_string_equal(f->m->tm_clauses[0].tcl_pred, "/i == 7/");
	assert_int_equal(f->m->tm_clauses[0].tcl_runs, TUI_RUN_MIXED);
	tick(f, 10, 1.0);
	tui_surface_clear(wide, TUI_R_NORMAL);
	f->p->tp_ops->draw(f->p, wide, f->m);
	tui_surface_row(wide, 0, row, sizeof(row));
	assert_non_null(strstr(row, "clause's first probe /predicate/"));
	assert_int_equal(strstr(row, "where") - row, 8 + 51 + 1);
	tui_surface_row(wide, 2, row, sizeof(row));
	assert_non_null(strstr(row, "syscall::read:entry (+1) /pid == 42/ "));
	assert_int_equal(strstr(row, "filter ") - row, 8 + 51 + 1);
	tui_surface_row(wide, 1, row, sizeof(row));
	assert_int_equal(strstr(row, "shim ") - row, 8 + 51 + 1);
	tui_surface_row(wide, 4, row, sizeof(row));	/* no pid/usdt hits */
	assert_null(strstr(row, "ns per hit"));
	f->m->tm_uroute = "uprobe_multi";	/* their cost, all together */
	f->m->tm_uhits = 1000;
	f->m->tm_unsperhit = 849.6;
	tui_surface_clear(wide, TUI_R_NORMAL);
	f->p->tp_ops->draw(f->p, wide, f->m);
	tui_surface_row(wide, 4, row, sizeof(row));
	assert_non_null(strstr(row, "Enter edit at the prompt   pid/usdt via "
	    "uprobe_multi: 850 ns per hit"));
	f->m->tm_uroute = NULL;
	tui_surface_free(wide);
	f->m->tm_clauses[1].tcl_runs = TUI_RUN_MIXED;
	f->m->tm_clauses[0].tcl_runs = TUI_RUN_UNKNOWN;	/* a replay */
	panefx_draw(f);
	assert_true(panefx_find(f, "syscall::re mixed ") > 0);
	assert_true(panefx_find(f, "profile:::t -      ") > 0);
}

/* After :enable gives an enabling a new program, the ECBs of its old
 * one stay, disabled, in the shim; the session puts only ECBs of an
 * enabling (tested live in tests/tui/test_enablings.sh); the model
 * drops the rows no ECB was put for. */
static void test_enabs_rows_of_old_ecbs_go(void **st)
{
	panefx_t *f = *st;
	tui_ecb_t e = { 12, 1, "tick-20ms", NULL, TUI_RUN_SHIM,
	    { 5, 0, 0, 0 }, 0, 0 };

	tick(f, 10, 1.0);
	assert_int_equal(f->m->tm_nclauses, 2);
	tui_clauses_begin(f->m);	/* clause 7 re-enabled as clause 12 */
	assert_int_equal(tui_clauses_put(f->m, &e), 0);
	tui_clauses_end(f->m, 1.0);
	assert_int_equal(f->m->tm_nclauses, 1);
	assert_int_equal(f->m->tm_clauses[0].tcl_id, 12);
	assert_string_equal(f->m->tm_clauses[0].tcl_pred, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enabs_rows_sum_ecbs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_enabs_keys_act_on_enabling,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_enabs_predicate_and_where,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_enabs_rows_of_old_ecbs_go,
		    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
