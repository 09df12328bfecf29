/* test_complete.c - prompt completion lists and clause completeness. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"

static int has(char **m, const char *w)
{
	for (int i = 0; m != NULL && m[i] != NULL; i++)
		if (strcmp(m[i], w) == 0)
			return 1;
	return 0;
}

static int count(char **m)
{
	int n = 0;

	while (m != NULL && m[n] != NULL)
		n++;
	return n;
}

static void freel(char **m)
{
	for (int i = 0; m != NULL && m[i] != NULL; i++)
		free(m[i]);
	free(m);
}

static char **comp(const char *line, const tui_probes_t *p)
{
	int end = (int)strlen(line), start = end;

	while (start > 0 && strchr(" {;(", line[start - 1]) == NULL)
		start--;
	return tui_complete(line, start, end, p, tui_session_vocab());
}

static void test_tui_complete_probe_fields_in_turn(void **st)
{
	tui_probes_t p;
	char **m;

	memset(&p, 0, sizeof(p));
	tui_probes_add(&p, 1, "syscall", "vmlinux", "read", "entry");
	tui_probes_add(&p, 2, "syscall", "vmlinux", "readv", "return");
	tui_probes_add(&p, 3, "sched", "", "", "on-cpu");
	m = comp("sys", &p);
	assert_int_equal(count(m), 1);
	assert_true(has(m, "syscall:"));
	freel(m);
	m = comp("syscall::rea", &p);
	assert_int_equal(count(m), 2);
	assert_true(has(m, "syscall::read:") && has(m, "syscall::readv:"));
	freel(m);
	m = comp("s*::read*:r", &p);
	assert_int_equal(count(m), 1);
	assert_true(has(m, "s*::read*:return"));
	freel(m);
	tui_probes_clear(&p);
}

/* The word to complete: a probe description keeps its globs and dashes
 * (the prompt completed "syscall::*read*:" from its last ':' alone, as
 * an empty provider), D code breaks at operators. */
static void test_tui_complete_breaks_by_context(void **st)
{
	const char *d = "syscall::*read*:", *b;

	b = tui_complete_breaks(d, (int)strlen(d));
	assert_null(strchr(b, '*'));
	assert_null(strchr(b, '-'));
	assert_null(strchr(b, '['));
	assert_non_null(strchr(b, ','));
	assert_non_null(strchr(b, ' '));
	b = tui_complete_breaks("BEGIN { x = a*cur", 17);
	assert_non_null(strchr(b, '*'));
	assert_non_null(strchr(b, '-'));
	b = tui_complete_breaks(":set buf", 8);
	assert_non_null(strchr(b, ' '));
}

static void test_tui_complete_words_inside_braces(void **st)
{
	tui_probes_t p;
	char **m;

	memset(&p, 0, sizeof(p));
	m = comp("BEGIN { print", &p);
	assert_true(has(m, "printf") && has(m, "printa"));
	freel(m);
	m = comp("BEGIN { @a = quan", &p);
	assert_true(has(m, "quantize"));
	freel(m);
	m = comp("BEGIN { trace(probef", &p);
	assert_true(has(m, "probefunc"));
	freel(m);
	m = comp("BEGIN { copyin", &p);
	assert_true(has(m, "copyinstr") && has(m, "copyin"));
	freel(m);
	/* the engine's names: none drifts away from what compiles */
	for (const char *const *w = (const char *const[]){ "random", "json",
	    "memstr", "strtoll", "uuidstr", "getmajor", "getminor", "memref",
	    "llquantize", "curpsinfo", NULL }; *w != NULL; w++) {
		char line[64];

		snprintf(line, sizeof(line), "BEGIN { %s", *w);
		m = comp(line, &p);
		assert_true(has(m, *w));
		freel(m);
	}
	m = comp("BEGIN { mutex_", &p);	/* not on Linux: not offered */
	assert_int_equal(count(m), 0);
	freel(m);
}

static void test_tui_complete_commands_and_options(void **st)
{
	tui_probes_t p;
	char **m;

	memset(&p, 0, sizeof(p));
	m = tui_complete(":se", 0, 3, &p, NULL);
	assert_true(has(m, ":set "));
	freel(m);
	m = tui_complete(":re", 0, 3, &p, NULL);
	assert_true(has(m, ":restart "));
	assert_true(has(m, ":remove "));
	freel(m);
	m = tui_complete(":set buf", 5, 8, &p, &(tui_vocab_t){
	    .tv_options = (const char *const[]){ "bufsize", "bufpolicy",
	    "quiet", NULL } });
	assert_int_equal(count(m), 2);
	assert_true(has(m, "bufsize="));
	freel(m);
}

static void test_tui_clause_complete_balances_braces(void **st)
{
	assert_false(tui_clause_complete("BEGIN {\n"));
	assert_true(tui_clause_complete("BEGIN {\n trace(1);\n}\n"));
	assert_false(tui_clause_complete("BEGIN { printf(\"}\"); \n"));
	assert_true(tui_clause_complete("BEGIN { printf(\"{\"); }"));
	assert_false(tui_clause_complete("BEGIN { /* } */"));
	assert_true(tui_clause_complete("BEGIN { x = '{'; } // {"));
	assert_false(tui_clause_complete("BEGIN\n"));	/* body follows */
	assert_true(tui_clause_complete("BEGIN\n/1/\n{\n}\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_complete_probe_fields_in_turn),
		cmocka_unit_test(test_tui_complete_breaks_by_context),
		cmocka_unit_test(test_tui_complete_words_inside_braces),
		cmocka_unit_test(test_tui_complete_commands_and_options),
		cmocka_unit_test(test_tui_clause_complete_balances_braces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
