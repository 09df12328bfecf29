/* test_keys.c - key decoding into pane commands, and the help table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"

static void test_tui_keys_decode_specials_and_letters(void **st)
{
	assert_int_equal(tui_keys_decode(TUI_KEY_UP).tc_kind, TUI_C_UP);
	assert_int_equal(tui_keys_decode('k').tc_kind, TUI_C_UP);
	assert_int_equal(tui_keys_decode(TUI_KEY_PGDN).tc_kind, TUI_C_PGDN);
	assert_int_equal(tui_keys_decode(TUI_KEY_TAB).tc_kind,
	    TUI_C_NEXT_PANE);
	assert_int_equal(tui_keys_decode(TUI_KEY_F1).tc_kind, TUI_C_HELP);
	assert_int_equal(tui_keys_decode('?').tc_kind, TUI_C_HELP);
	assert_int_equal(tui_keys_decode(TUI_KEY_F10).tc_kind, TUI_C_QUIT);
	assert_int_equal(tui_keys_decode(TUI_CTRL('c')).tc_kind, TUI_C_STOP);
	assert_int_equal(tui_keys_decode(' ').tc_kind, TUI_C_PAUSE);
	assert_int_equal(tui_keys_decode('/').tc_kind, TUI_C_SEARCH);
	assert_int_equal(tui_keys_decode('\n').tc_kind, TUI_C_ENTER);
	assert_int_equal(tui_keys_decode(TUI_KEY_ENTER).tc_kind, TUI_C_ENTER);
}

static void test_tui_keys_decode_unbound_text_is_char(void **st)
{
	tui_cmd_t c = tui_keys_decode('x');

	assert_int_equal(c.tc_kind, TUI_C_CHAR);
	assert_int_equal(c.tc_key, 'x');
	assert_int_equal(tui_keys_decode(0xe9).tc_kind, TUI_C_CHAR);
	assert_int_equal(tui_keys_decode(TUI_KEY_F7).tc_kind, TUI_C_NONE);
}

static void test_tui_keys_help_lists_each_binding_once(void **st)
{
	const char *what, *keys;
	int n = 0, saw_quit = 0;

	while ((keys = tui_keys_help(n, &what)) != NULL) {
		assert_non_null(what);
		saw_quit |= strstr(keys, "F10") != NULL;
		n++;
	}
	assert_true(n > 10);
	assert_true(saw_quit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_keys_decode_specials_and_letters),
		cmocka_unit_test(test_tui_keys_decode_unbound_text_is_char),
		cmocka_unit_test(test_tui_keys_help_lists_each_binding_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
