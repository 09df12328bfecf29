/* test_theme.c - theme parsing, and refusals naming file:line and rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"

static void test_tui_theme_parse_sets_roles(void **st)
{
	tui_theme_t t;
	char err[256];
	const char *text = "# comment\nname mine\n\n"
	    "status fg=231 bg=24 fg8=white bg8=blue attr=bold\n"
	    "bar  fg=green attr=reverse,underline   # trailing comment\n";

	tui_theme_default(&t);
	assert_int_equal(tui_theme_parse(&t, text, "x.theme", err,
	    sizeof(err)), 0);
	assert_string_equal(t.tt_name, "mine");
	assert_int_equal(t.tt_roles[TUI_R_STATUS].ts_fg256, 231);
	assert_int_equal(t.tt_roles[TUI_R_STATUS].ts_bg8, 4);
	assert_int_equal(t.tt_roles[TUI_R_STATUS].ts_attr, TUI_A_BOLD);
	assert_int_equal(t.tt_roles[TUI_R_BAR].ts_fg256, 2);
	assert_int_equal(t.tt_roles[TUI_R_BAR].ts_attr,
	    TUI_A_REVERSE | TUI_A_UNDERLINE);
}

static void refused(const char *text, const char *want)
{
	tui_theme_t t, before;
	char err[256];

	tui_theme_default(&t);
	before = t;
	assert_int_equal(tui_theme_parse(&t, text, "bad.theme", err,
	    sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		fail_msg("input %s: got \"%s\", want \"%s\"", text, err, want);
	assert_memory_equal(&t, &before, sizeof(t));	/* not half-loaded */
}

static void test_tui_theme_refuses_bad_lines(void **st)
{
	refused("status fg=1\nnosuchrole fg=1\n",
	    "bad.theme:2: unknown role (\"nosuchrole\")");
	refused("bar fg=256\n", "bad.theme:1: colour must be 0-255");
	refused("bar fg8=8\n", "bad.theme:1: 8-colour value must be 0-7");
	refused("bar fg=-1\n", "colour must be");
	refused("bar colour=1\n", "bad.theme:1: unknown key");
	refused("bar colour=1\n", "attr) (\"colour=1\")");
	refused("bar fg=1 bg=300\n", "or default (\"bg=300\")");
	refused("bar fg\n", "expected key=value");
	refused("bar attr=blink\n", "attr must be");
	refused("name a b\n", "name takes one word");
	refused("bar fg=1\x01\n", "control character");
}

static void test_tui_theme_load_refuses_binary_file(void **st)
{
	char path[] = "/tmp/dtui-theme-XXXXXX", err[256];
	tui_theme_t t;
	FILE *fp;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fwrite("bar fg=1\n\0\0", 1, 11, fp);
	fclose(fp);
	assert_int_equal(tui_theme_load(&t, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a theme file"));
	unlink(path);
	assert_int_equal(tui_theme_load(&t, "/nonexistent/x", err,
	    sizeof(err)), -1);
}

static void test_tui_theme_mono_uses_attributes_only(void **st)
{
	tui_theme_t t;

	tui_theme_mono(&t);
	for (int r = 0; r < TUI_NROLES; r++) {
		assert_int_equal(t.tt_roles[r].ts_fg256, -1);
		assert_int_equal(t.tt_roles[r].ts_bg8, -1);
	}
	assert_true(t.tt_roles[TUI_R_SELECT].ts_attr & TUI_A_REVERSE);
	assert_string_equal(tui_role_name(TUI_R_HEAT_HI), "heat-high");
}

static void test_tui_theme_shipped_files_parse(void **st)
{
	static const char *const names[] = { "dark", "light", "monochrome",
	    "high-contrast" };
	char path[256], err[256];
	tui_theme_t t;

	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "themes/%s", names[i]);
		if (tui_theme_load(&t, path, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		assert_string_equal(t.tt_name, names[i]);
	}
}

/* Random and mutated theme text: parsed or refused with file:line, never
 * a crash, and a refusal leaves the theme untouched. */
static void test_tui_theme_parse_survives_random_input(void **st)
{
	static const char *const words[] = { "status", "bar", "fg=", "bg8=",
	    "attr=", "bold,", "255", "7", "red", "default", "name", " ", "\t",
	    "\n", "#", "=", ",", "-1", "999999999999", "\x01", "\xff" };
	unsigned seed = 12345;
	char text[512], err[256];

	for (int round = 0; round < 3000; round++) {
		tui_theme_t t, before;
		size_t n = 0;

		while (n < sizeof(text) - 16) {
			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 9 == 0)
				break;
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s",
			    words[(seed >> 8) % (sizeof(words) /
			    sizeof(words[0]))]);
		}
		text[n] = '\0';
		tui_theme_default(&t);
		before = t;
		if (tui_theme_parse(&t, text, "r.theme", err, sizeof(err)) != 0) {
			assert_int_equal(strncmp(err, "r.theme:", 8), 0);
			assert_memory_equal(&t, &before, sizeof(t));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_theme_parse_sets_roles),
		cmocka_unit_test(test_tui_theme_refuses_bad_lines),
		cmocka_unit_test(test_tui_theme_load_refuses_binary_file),
		cmocka_unit_test(test_tui_theme_mono_uses_attributes_only),
		cmocka_unit_test(test_tui_theme_shipped_files_parse),
		cmocka_unit_test(test_tui_theme_parse_survives_random_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
