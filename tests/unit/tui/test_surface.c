/* test_surface.c - tui_surface: clipping, UTF-8 decoding, rows as text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tui.h"

static void test_tui_surface_puts_reads_back_as_row(void **st)
{
	tui_surface_t *s = tui_surface_new(20, 3);
	char buf[128];

	assert_non_null(s);
	tui_surface_puts(s, 2, 1, TUI_R_NORMAL, "hello");
	assert_string_equal(tui_surface_row(s, 1, buf, sizeof(buf)),
	    "  hello");
	assert_string_equal(tui_surface_row(s, 0, buf, sizeof(buf)), "");
	assert_int_equal(tui_surface_role_at(s, 2, 1), TUI_R_NORMAL);
	tui_surface_free(s);
}

static void test_tui_surface_clip_stops_writes_outside(void **st)
{
	tui_surface_t *s = tui_surface_new(10, 4);
	char buf[128];

	tui_surface_clip(s, 2, 1, 4, 2);
	tui_surface_puts(s, 0, 0, TUI_R_ERROR, "abcdefgh");
	tui_surface_puts(s, 0, 5, TUI_R_ERROR, "zzz");	/* below the clip */
	tui_surface_puts(s, 0, -1, TUI_R_ERROR, "yyy");	/* above it */
	assert_string_equal(tui_surface_row(s, 1, buf, sizeof(buf)),
	    "  abcd");
	assert_string_equal(tui_surface_row(s, 0, buf, sizeof(buf)), "");
	assert_string_equal(tui_surface_row(s, 3, buf, sizeof(buf)), "");
	assert_int_equal(tui_surface_role_at(s, 2, 1), TUI_R_ERROR);
	tui_surface_free(s);
}

static void test_tui_surface_decodes_utf8_and_replaces_controls(void **st)
{
	tui_surface_t *s = tui_surface_new(12, 1);
	char buf[128];

	tui_surface_puts(s, 0, 0, TUI_R_NORMAL, "a\xc3\xa9\x01\xff" "b");
	assert_string_equal(tui_surface_row(s, 0, buf, sizeof(buf)),
	    "a\xc3\xa9??b");
	tui_surface_free(s);
}

static void test_tui_surface_tab_expands_to_eight(void **st)
{
	tui_surface_t *s = tui_surface_new(20, 1);
	char buf[128];

	tui_surface_puts(s, 0, 0, TUI_R_NORMAL, "ab\tc");
	assert_string_equal(tui_surface_row(s, 0, buf, sizeof(buf)),
	    "ab      c");
	tui_surface_free(s);
}

static void test_tui_surface_resize_clears(void **st)
{
	tui_surface_t *s = tui_surface_new(5, 1);
	char buf[128];

	tui_surface_puts(s, 0, 0, TUI_R_NORMAL, "xxxxx");
	assert_int_equal(tui_surface_resize(s, 8, 2), 0);
	assert_int_equal(s->ts_cols, 8);
	assert_string_equal(tui_surface_row(s, 0, buf, sizeof(buf)), "");
	tui_surface_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_surface_puts_reads_back_as_row),
		cmocka_unit_test(test_tui_surface_clip_stops_writes_outside),
		cmocka_unit_test(test_tui_surface_decodes_utf8_and_replaces_controls),
		cmocka_unit_test(test_tui_surface_tab_expands_to_eight),
		cmocka_unit_test(test_tui_surface_resize_clears),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
