/* test_layout.c - panes drawn into a surface through the layout, fed
 * keys as the terminal would, compared row by row (80x24). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"
#include "dtrace_abi.h"

typedef struct fx {
	tui_model_t *m;
	tui_layout_t *l;
	tui_surface_t *s;
	char row[512];
} fx_t;

static int setup(void **st)
{
	static fx_t f;

	f.m = tui_model_new(100);
	f.l = tui_layout_new();
	f.s = tui_surface_new(80, 24);
	tui_layout_resize(f.l, 80, 24);
	*st = &f;
	return f.m && f.l && f.s ? 0 : -1;
}

static int teardown(void **st)
{
	fx_t *f = *st;

	tui_model_free(f->m);
	tui_layout_free(f->l);
	tui_surface_free(f->s);
	return 0;
}

static void draw(fx_t *f)
{
	tui_layout_draw(f->l, f->s, f->m, NULL);
}

static const char *row(fx_t *f, int y)
{
	return tui_surface_row(f->s, y, f->row, sizeof(f->row));
}

/* The first row containing text, or -1. */
static int find(fx_t *f, const char *text)
{
	for (int y = 0; y < f->s->ts_rows; y++)
		if (strstr(row(f, y), text) != NULL)
			return y;
	return -1;
}

static unsigned keys(fx_t *f, const char *k)
{
	unsigned r = 0;

	for (; *k != '\0'; k++)
		r |= tui_layout_key(f->l, (unsigned char)*k, 0, 0, f->m);
	return r;
}

static void test_layout_80x24_status_tabs_prompt(void **st)
{
	fx_t *f = *st;

	f->l->tl_focus = -1;
	draw(f);
	assert_non_null(strstr(row(f, 0), "dtui idle"));
	assert_non_null(strstr(row(f, 1), "[1 Output]"));
	assert_non_null(strstr(row(f, 1), "5 Heatmap"));
	assert_string_equal(row(f, 23), "dtui>");
	assert_int_equal(f->l->tl_cur_y, 23);
	assert_int_equal(f->l->tl_cur_x, 6);
	tui_model_message(f->m, 1, "<prompt>:1:5: D_SYNTAX: bad\nBEGI {\n    ^");
	draw(f);
	assert_string_equal(row(f, 20), "dtui>");	/* message below it */
	assert_string_equal(row(f, 21), "<prompt>:1:5: D_SYNTAX: bad");
	assert_string_equal(row(f, 23), "    ^");
	/* a long message (:list of 12) takes up to a third of the screen
	 * and says what it leaves out */
	tui_model_message(f->m, 0, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12");
	draw(f);
	assert_string_equal(row(f, 15), "dtui>");
	assert_string_equal(row(f, 16), "1");
	assert_string_equal(row(f, 22), "7");
	assert_string_equal(row(f, 23), "... 5 more lines");
	tui_model_message(f->m, 0, "%s", "");
}

static void test_output_pane_cpu_column_follow_and_scroll(void **st)
{
	fx_t *f = *st;
	char buf[32];

	for (int i = 0; i < 40; i++) {
		int n = snprintf(buf, sizeof(buf), "line %d\n", i);

		tui_model_output(f->m, buf, n, i % 2);
	}
	f->l->tl_focus = TUI_P_OUTPUT;
	draw(f);
	assert_true(find(f, "  1 line 39") > 0);	/* newest shown */
	assert_int_equal(find(f, "line 0"), -1);
	keys(f, "g");				/* Home */
	draw(f);
	assert_string_equal(row(f, 2), "  0 line 0");
	assert_string_equal(row(f, 22),
	    "-- 20 more lines below: End or f follows --");
	assert_int_equal(tui_pane_output_follows(f->l->tl_panes[TUI_P_OUTPUT]),
	    0);
	keys(f, "G");
	draw(f);
	assert_true(find(f, "line 39") > 0);
	keys(f, " ");				/* pause: the view stays */
	tui_model_output(f->m, "line 40\n", 8, 0);
	draw(f);
	assert_int_equal(find(f, "line 40"), -1);
	assert_non_null(strstr(row(f, 0), "PAUSED"));
	keys(f, " ");				/* resume: follows again */
	draw(f);
	assert_true(find(f, "line 40") > 0);
	tui_model_output(f->m, "line 41\n\n", 9, 1);	/* printf's blank */
	draw(f);
	assert_string_equal(row(f, find(f, "  1 line 41") + 1), "");
}

static void test_output_pane_search_finds_and_highlights(void **st)
{
	fx_t *f = *st;
	int y;

	f->l->tl_focus = TUI_P_OUTPUT;
	keys(f, "/7\r");
	draw(f);
	y = find(f, "line 17");		/* first match above the view */
	assert_int_equal(y, 2);
	assert_int_equal(tui_surface_role_at(f->s, 10, y), TUI_R_MATCH);
	assert_int_equal(tui_surface_role_at(f->s, 9, y), TUI_R_OUTPUT);
	keys(f, "n");
	draw(f);
	assert_string_equal(row(f, 2), "  1 line 7");
}

static void test_aggs_pane_table_sorted_by_value_and_interval(void **st)
{
	fx_t *f = *st;
	tui_agg_t *a;

	tui_model_agg_begin(f->m);
	a = tui_model_agg_get(f->m, "calls", DTRACEAGG_COUNT);
	tui_model_agg_put(a, "bash", 5, 0, NULL, NULL);
	tui_model_agg_put(a, "sshd", 50, 0, NULL, NULL);
	tui_model_agg_end(f->m);
	tui_model_agg_begin(f->m);
	a = tui_model_agg_get(f->m, "calls", DTRACEAGG_COUNT);
	tui_model_agg_put(a, "bash", 25, 0, NULL, NULL);
	tui_model_agg_put(a, "sshd", 51, 0, NULL, NULL);
	tui_model_agg_end(f->m);
	f->l->tl_focus = TUI_P_AGGS;
	draw(f);
	assert_non_null(strstr(row(f, 2), "@calls  count  2 entries"));
	assert_true(find(f, "bash") < find(f, "sshd"));	/* printa order */
	keys(f, "s");					/* sort by key */
	draw(f);
	assert_non_null(strstr(row(f, 2), "2 entries  sorted by key"));
	keys(f, "s");					/* sort by value */
	draw(f);
	assert_non_null(strstr(row(f, 2), "2 entries  sorted by value"));
	assert_true(find(f, "sshd") < find(f, "bash"));
	assert_non_null(strstr(row(f, find(f, "sshd")), "51"));
	keys(f, "c");					/* per interval */
	draw(f);
	assert_non_null(strstr(row(f, 2), "(per interval)"));
	assert_true(find(f, "bash") < find(f, "sshd"));	/* 20 > 1 */
	assert_non_null(strstr(row(f, find(f, "bash")), "20"));
	assert_true(keys(f, "C") & TUI_ACTION);
	assert_string_equal(f->l->tl_panes[TUI_P_AGGS]->tp_action,
	    ":clear @calls");
}

static void test_aggs_pane_histogram_and_zoom(void **st)
{
	fx_t *f = *st;
	static char *labels[4] = { "0", "1", "2", "4" };
	int64_t b[4] = { 0, 3, 1, 0 };
	tui_agg_t *a;

	tui_model_agg_begin(f->m);
	a = tui_model_agg_get(f->m, "calls", DTRACEAGG_COUNT);
	tui_model_agg_put(a, "bash", 25, 0, NULL, NULL);
	a = tui_model_agg_get(f->m, "lat", DTRACEAGG_QUANTIZE);
	tui_model_agg_put(a, "read", 4, 4, b, labels);
	tui_model_agg_end(f->m);
	f->l->tl_focus = TUI_P_AGGS;
	keys(f, "c");				/* back to cumulative */
	keys(f, "l");				/* Right: select @lat? no: 'l' */
	tui_layout_key(f->l, TUI_KEY_RIGHT, 0, 0, f->m);
	keys(f, "z");
	draw(f);
	assert_int_equal(find(f, "@calls"), -1);
	assert_non_null(strstr(row(f, 2), ">@lat  quantize"));
	assert_true(find(f, "Distribution") > 0);
	assert_true(find(f, "               1 |@") > 0);
	assert_true(find(f, "p50") > 0);
	assert_true(keys(f, "H") & TUI_HANDLED);
	assert_string_equal(f->m->tm_heat.th_agg, "lat");
	keys(f, "z");
}

/* Screen cells of a UTF-8 row: bytes that do not continue a character. */
static size_t cells(const char *r)
{
	size_t n = 0;

	for (; *r != '\0'; r++)
		n += ((unsigned char)*r & 0xc0) != 0x80;
	return n;
}

static void test_bufs_pane_row_and_relief_hint(void **st)
{
	fx_t *f = *st;
	tui_cpu_t c = { 0 };
	int y;

	tui_model_setcpus(f->m, 2);
	c.tcp_policy = DTRACEOPT_BUFPOLICY_SWITCH;
	c.tcp_size = 1000;
	c.tcp_used = 500;
	c.tcp_records = 2000;
	c.tcp_drops[TUI_DROP_BUF] = 7;
	tui_model_cpu_tick(f->m, 1, &c, 1.0);
	tui_model_error(f->m, "dtrace: error on enabled probe ID 3\n");
	f->l->tl_focus = TUI_P_BUFS;
	draw(f);
	assert_non_null(strstr(row(f, 2), "CPU policy fill"));
	y = find(f, "  1 switch");
	assert_true(y > 0);
	assert_non_null(strstr(row(f, y), "50%"));
	assert_non_null(strstr(row(f, y), "2000"));
	assert_non_null(strstr(row(f, y), "    7"));
	assert_true(find(f, "7 principal buffer drops: raise bufsize") > 0);
	assert_true(find(f, "last: dtrace: error on enabled probe ID 3") > 0);
	/* a flood: six-digit drop counts keep to their 5 columns, so the
	 * error column stays under its heading */
	c.tcp_records = 4000;
	c.tcp_drops[TUI_DROP_BUF] = 135531;
	c.tcp_drops[TUI_DROP_AGG] = 16511;
	tui_model_cpu_tick(f->m, 1, &c, 1.0);
	draw(f);
	y = find(f, "  1 switch");
	assert_non_null(strstr(row(f, y), " 136K16511    0    0 "));
	assert_int_equal(cells(row(f, y)), cells(row(f, 2)));
}

static void test_probes_pane_filter_and_insert(void **st)
{
	fx_t *f = *st;
	tui_probes_t *p = &f->m->tm_probes;
	unsigned r;

	tui_probes_add(p, 3, "syscall", "vmlinux", "read", "entry");
	tui_probes_add(p, 4, "syscall", "vmlinux", "write", "entry");
	tui_probes_add(p, 1, "dtrace", "", "", "BEGIN");
	tui_probes_sort(p);
	f->l->tl_focus = TUI_P_PROBES;
	draw(f);
	assert_true(find(f, "+ dtrace (1)") > 0);
	assert_true(find(f, "+ syscall (2)") > 0);
	keys(f, "/rea");		/* letters go to the filter */
	draw(f);
	assert_non_null(strstr(row(f, 2), "filter: rea_"));
	assert_true(find(f, "- syscall (1)") > 0);
	assert_true(find(f, "- read (1)") > 0);
	assert_int_equal(find(f, "write"), -1);
	keys(f, "\r");			/* leave the filter */
	tui_layout_key(f->l, TUI_KEY_END, 0, 0, f->m);
	r = keys(f, "\r");
	assert_true(r & TUI_INSERT);
	assert_string_equal(f->l->tl_panes[TUI_P_PROBES]->tp_insert,
	    "syscall:vmlinux:read:entry { }");
	keys(f, "/wri");		/* / starts a new filter */
	draw(f);
	assert_non_null(strstr(row(f, 2), "filter: wri_"));
	assert_true(find(f, "- write (1)") > 0);
	keys(f, "\025");		/* Ctrl-U empties it */
	draw(f);
	assert_non_null(strstr(row(f, 2), "filter: _"));
	assert_true(find(f, "+ syscall (2)") > 0);
	keys(f, "sys");
	tui_layout_key(f->l, TUI_KEY_ESC, 0, 0, f->m);	/* Esc abandons */
	draw(f);
	assert_int_equal(f->m->tm_probes.tp_filter[0], '\0');
	assert_true(find(f, "+ dtrace (1)") > 0);
	/* a filter longer than its room shows its end; the count stays */
	keys(f, "/syscall:vmlinux:*:entry,syscall:vmlinux:*:return,sched");
	draw(f);
	assert_non_null(strstr(row(f, 2), ":return,sched_"));
	assert_non_null(strstr(row(f, 2), " of 3"));
	keys(f, "\r");
	tui_layout_key(f->l, TUI_KEY_ESC, 0, 0, f->m);
	keys(f, "/");
	tui_layout_key(f->l, TUI_KEY_ESC, 0, 0, f->m);
}

static void test_quit_confirms_while_tracing_and_help(void **st)
{
	fx_t *f = *st;

	f->l->tl_focus = TUI_P_OUTPUT;
	f->m->tm_state = TUI_IDLE;
	assert_true(keys(f, "q") & TUI_QUIT);
	f->m->tm_state = TUI_TRACING;
	assert_false(keys(f, "q") & TUI_QUIT);
	draw(f);
	assert_true(find(f, "Quit dtui? (y/n)") > 0);
	assert_false(keys(f, "n") & TUI_QUIT);
	keys(f, "q");
	assert_true(keys(f, "y") & TUI_QUIT);
	keys(f, "?");
	draw(f);
	assert_true(find(f, "dtui keys") > 0);
	/* all of it fits 80x24: the quit key and the prompt commands too */
	assert_true(find(f, "q F10") > 0);
	assert_true(find(f, "Ctrl-C") > 0);
	assert_true(find(f, "H             heatmap") > 0);
	assert_true(find(f, ":save output|aggs FILE") > 0);
	keys(f, "x");
	draw(f);
	assert_int_equal(find(f, "dtui keys"), -1);
	assert_true(keys(f, "\003") & TUI_STOP);
}

static void test_tab_cycles_panes_and_mouse_selects_tab(void **st)
{
	fx_t *f = *st;

	f->l->tl_focus = TUI_P_OUTPUT;
	tui_layout_key(f->l, TUI_KEY_TAB, 0, 0, f->m);
	assert_int_equal(f->l->tl_focus, TUI_P_AGGS);
	tui_layout_key(f->l, TUI_KEY_BTAB, 0, 0, f->m);
	assert_int_equal(f->l->tl_focus, TUI_P_OUTPUT);
	draw(f);
	tui_layout_key(f->l, TUI_KEY_MOUSE, 40, 1, f->m);	/* "4 Probes" */
	assert_int_equal(f->l->tl_focus, TUI_P_PROBES);
	tui_layout_key(f->l, TUI_KEY_MOUSE, 3, 23, f->m);	/* prompt */
	assert_int_equal(f->l->tl_focus, -1);
}

static void test_heat_pane_draws_newest_on_right(void **st)
{
	fx_t *f = *st;
	static char *labels[4] = { "0", "1", "2", "4" };
	int64_t b[4] = { 0, 3, 1, 0 };
	tui_agg_t *a;

	for (int i = 0; i < 3; i++) {
		b[1] += 10;
		tui_model_agg_begin(f->m);
		a = tui_model_agg_get(f->m, "lat", DTRACEAGG_QUANTIZE);
		tui_model_agg_put(a, "read", 4, 4, b, labels);
		tui_model_agg_end(f->m);
		tui_heat_push(f->m);
	}
	f->l->tl_focus = TUI_P_HEAT;
	draw(f);
	assert_true(find(f, "@lat read") > 0);
	assert_non_null(strstr(row(f, find(f, "@lat read")),
	    "darkest = 10 per refresh"));
	assert_int_equal(tui_surface_role_at(f->s, 79, find(f, "          1 ")),
	    TUI_R_HEAT_HI);
}

static void test_heat_pane_left_right_cycles_keys(void **st)
{
	fx_t *f = *st;
	static char *labels[4] = { "0", "1", "2", "4" };
	int64_t b[4] = { 0, 3, 1, 0 };
	tui_agg_t *a;

	tui_model_agg_begin(f->m);
	a = tui_model_agg_get(f->m, "lat", DTRACEAGG_QUANTIZE);
	tui_model_agg_put(a, "read", 4, 4, b, labels);
	tui_model_agg_put(a, "write", 4, 4, b, labels);
	tui_model_agg_end(f->m);
	assert_int_equal(tui_heat_choose(f->m, "lat", "read"), 0);
	f->l->tl_focus = TUI_P_HEAT;
	tui_layout_key(f->l, TUI_KEY_RIGHT, 0, 0, f->m);
	assert_string_equal(f->m->tm_heat.th_key, "write");
	tui_layout_key(f->l, TUI_KEY_RIGHT, 0, 0, f->m);
	assert_string_equal(f->m->tm_heat.th_key, "read");
	tui_layout_key(f->l, TUI_KEY_LEFT, 0, 0, f->m);
	assert_string_equal(f->m->tm_heat.th_key, "write");
}

static void test_aggs_pane_click_selects_aggregation(void **st)
{
	fx_t *f = *st;
	int y;

	f->l->tl_focus = TUI_P_AGGS;
	f->l->tl_panes[TUI_P_AGGS]->tp_sel = 0;
	draw(f);
	y = find(f, "@lat");
	assert_true(y > 2);
	tui_layout_key(f->l, TUI_KEY_MOUSE, 5, y + 1, f->m);
	assert_string_equal(f->m->tm_aggs[f->l->tl_panes[TUI_P_AGGS]->tp_sel]
	    .tag_name, "lat");
	assert_true(keys(f, "T") & TUI_ACTION);
	assert_string_equal(f->l->tl_panes[TUI_P_AGGS]->tp_action,
	    ":trunc @lat 10");
}

/* Right moves the selection to an aggregation below the screen: the pane
 * scrolls so its title shows; Left back up scrolls back. */
static void test_aggs_pane_right_scrolls_selection_into_view(void **st)
{
	fx_t *f = *st;
	char key[16];
	tui_agg_t *a;

	tui_model_agg_begin(f->m);
	a = tui_model_agg_get(f->m, "many", DTRACEAGG_COUNT);
	for (int i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "k%02d", i);
		tui_model_agg_put(a, key, i, 0, NULL, NULL);
	}
	a = tui_model_agg_get(f->m, "below", DTRACEAGG_SUM);
	tui_model_agg_put(a, "x", 1, 0, NULL, NULL);
	tui_model_agg_end(f->m);
	f->l->tl_focus = TUI_P_AGGS;
	tui_pane_aggs_select(f->l->tl_panes[TUI_P_AGGS],
	    f->m->tm_naggs - 2);	/* @many */
	draw(f);
	assert_true(find(f, ">@many  count") > 0);
	assert_int_equal(find(f, "@below"), -1);
	tui_layout_key(f->l, TUI_KEY_RIGHT, 0, 0, f->m);
	draw(f);
	assert_true(find(f, ">@below  sum") > 0);
	tui_layout_key(f->l, TUI_KEY_LEFT, 0, 0, f->m);
	draw(f);
	assert_true(find(f, ">@many  count") > 0);
	/* End shows the last rows; scrolling on stops there */
	tui_layout_key(f->l, TUI_KEY_END, 0, 0, f->m);
	draw(f);
	assert_non_null(strstr(row(f, find(f, "dtui>") - 1), "  x "));
	for (int i = 0; i < 30; i++)
		tui_layout_key(f->l, TUI_KEY_DOWN, 0, 0, f->m);
	draw(f);
	assert_non_null(strstr(row(f, find(f, "dtui>") - 1), "  x "));
	assert_true(find(f, " @below  sum") > 0);
	f->l->tl_panes[TUI_P_AGGS]->tp_sel = 0;		/* as found */
	f->l->tl_panes[TUI_P_AGGS]->tp_top = 0;
}

static void test_layout_wide_screen_shows_output_beside_pane(void **st)
{
	fx_t *f = *st;
	tui_surface_t *wide = tui_surface_new(160, 40), *keep = f->s;
	int y;

	f->s = wide;
	tui_layout_resize(f->l, 160, 40);
	f->l->tl_focus = TUI_P_AGGS;
	draw(f);
	y = find(f, "@lat");
	assert_true(y > 1);
	assert_true(strstr(row(f, y), "@lat") - row(f, y) > 80);
	assert_true(find(f, "line 40") > 1);	/* output on the left */
	assert_int_equal(tui_surface_role_at(wide, 80, y), TUI_R_DIM);
	tui_layout_key(f->l, TUI_KEY_MOUSE, 10, 5, f->m);	/* left half */
	assert_int_equal(f->l->tl_focus, TUI_P_OUTPUT);
	draw(f);
	assert_true(find(f, "@lat") > 1);	/* aggregations stay beside */
	f->s = keep;
	tui_layout_resize(f->l, 80, 24);
	tui_surface_free(wide);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_80x24_status_tabs_prompt),
		cmocka_unit_test(test_output_pane_cpu_column_follow_and_scroll),
		cmocka_unit_test(test_output_pane_search_finds_and_highlights),
		cmocka_unit_test(test_aggs_pane_table_sorted_by_value_and_interval),
		cmocka_unit_test(test_aggs_pane_histogram_and_zoom),
		cmocka_unit_test(test_bufs_pane_row_and_relief_hint),
		cmocka_unit_test(test_probes_pane_filter_and_insert),
		cmocka_unit_test(test_quit_confirms_while_tracing_and_help),
		cmocka_unit_test(test_tab_cycles_panes_and_mouse_selects_tab),
		cmocka_unit_test(test_heat_pane_draws_newest_on_right),
		cmocka_unit_test(test_heat_pane_left_right_cycles_keys),
		cmocka_unit_test(test_aggs_pane_click_selects_aggregation),
		cmocka_unit_test(test_aggs_pane_right_scrolls_selection_into_view),
		cmocka_unit_test(test_layout_wide_screen_shows_output_beside_pane),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
