/*
 * test_pane_bufs.c - the buffers pane on its own: "(not tracing)" with
 * no CPUs, one row per CPU with its policy and drops, the relief line
 * for each kind of drop, and scrolling through many CPUs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "panefx.h"
#include "dtrace_abi.h"

/* n CPUs, each with the switch policy (the default of dtrace). */
static void cpus(panefx_t *f, int n)
{
	assert_int_equal(tui_model_setcpus(f->m, n), 0);
	for (int i = 0; i < n; i++)
		f->m->tm_cpus[i].tcp_policy = DTRACEOPT_BUFPOLICY_SWITCH;
}

static int setup(void **st)
{
	static panefx_t f;

	if (panefx_setup(&f, TUI_P_BUFS) != 0)
		return -1;
	*st = &f;
	return 0;
}

static int teardown(void **st)
{
	panefx_teardown(*st);
	return 0;
}

static void test_bufs_idle_says_not_tracing(void **st)
{
	panefx_t *f = *st;

	panefx_draw(f);
	assert_non_null(strstr(panefx_row(f, 0), "CPU policy fill"));
	assert_string_equal(panefx_row(f, 1), "(not tracing)");
}

static void test_bufs_rows_drops_and_relief(void **st)
{
	panefx_t *f = *st;
	int y;

	cpus(f, 2);
	tui_model_drop(f->m, 1, TUI_DROP_AGG, 123);
	panefx_draw(f);
	assert_non_null(strstr(panefx_row(f, 1), "  0 switch"));
	assert_non_null(strstr(panefx_row(f, 2), "  1 switch"));
	assert_non_null(strstr(panefx_row(f, 2), "123"));
	y = panefx_find(f, "123 aggregation drops: raise aggsize");
	assert_true(y > 2);
	assert_int_equal(tui_surface_role_at(f->s, 0, y), TUI_R_WARN);
	assert_int_equal(panefx_find(f, "principal buffer drops"), -1);
}

static void test_bufs_scrolls_through_cpus(void **st)
{
	panefx_t *f = *st;

	cpus(f, 64);
	panefx_draw(f);
	assert_int_equal(panefx_find(f, " 63 switch"), -1);
	assert_int_equal(panefx_key(f, TUI_KEY_END), TUI_HANDLED | TUI_REDRAW);
	panefx_draw(f);
	assert_true(panefx_find(f, " 63 switch") > 0);
	assert_int_equal(panefx_keys(f, "z"), 0);	/* not a bufs key */
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_setup_teardown(
		    test_bufs_idle_says_not_tracing, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_bufs_rows_drops_and_relief, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_bufs_scrolls_through_cpus, setup, teardown),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
