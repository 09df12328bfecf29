/*
 * test_pane_enabs.c - the enablings pane and its rows on their own: the
 * ECBs of a clause summed into one row (probes counted, the first probe
 * named), rates over ticks, rows gone with their ECBs, and the keys that
 * act on the selected clause's enabling through prompt commands.
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

/* One tick: clause 7 on two probes, clause 3 on one (put out of order). */
static void tick(panefx_t *f, uint64_t fires, double dt)
{
	const uint64_t a[4] = { fires, 2, 0, 0 }, b[4] = { fires, 0, 1, 4 };

	tui_clauses_begin(f->m);
	assert_int_equal(tui_clauses_put(f->m, 7, 1, "syscall::read:entry",
	    a), 0);
	assert_int_equal(tui_clauses_put(f->m, 7, 1, "syscall::write:entry",
	    a), 0);
	assert_int_equal(tui_clauses_put(f->m, 3, 0, "profile:::tick-1s", b),
	    0);
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
	panefx_draw(f);
	assert_true(panefx_find(f, "syscall::read:entry (+1)") > 0);
	assert_string_equal(panefx_row(f, 1), "  -     profile:::tick-1s"
	    "               1      30      15       0      1      4");
	assert_true(strstr(panefx_row(f, 2), "gone") != NULL);	/* no te 1 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enabs_rows_sum_ecbs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_enabs_keys_act_on_enabling,
		    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
