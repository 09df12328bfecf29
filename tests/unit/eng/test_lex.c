/*
 * test_lex.c - the D lexer (lex.c): integer bases and suffixes, character
 * and string escapes, comments, punctuation, probe descriptions, macro
 * variables, pragmas and line markers, and its refusals with tags.
 */
#include "cc_test.h"

/* Lex src into at most n tokens; returns the count (T_EOF excluded). */
static int lex(eng_hdl_t *h, const char *src, struct eng_token *t, int n,
    struct ct_pcb *c)
{
	volatile int i = 0;

	ct_pcb_init(c, h, src);
	if (setjmp(c->pc.pc_jmp) != 0)
		fail_msg("lex error on <%s>: %s", src, eng_errmsg(h));
	for (; i < n; i++) {
		eng_lex_next(&c->pc, &t[i]);
		if (t[i].tk_kind == T_EOF)
			break;
	}
	return i;
}

static void test_integers_in_every_base(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	struct eng_token t[8];

	(void)state;
	assert_int_equal(lex(h, "42 0x2a 052 0b101010 42u 42ul 0xffffffffffffffff",
	    t, 8, &c), 7);
	for (int i = 0; i < 4; i++)
		assert_int_equal(t[i].tk_int, 42);
	assert_int_equal(t[4].tk_unsigned, 1);
	assert_int_equal(t[5].tk_long, 1);
	assert_true(t[6].tk_int == UINT64_MAX);
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_strings_and_chars_with_escapes(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	struct eng_token t[4];

	(void)state;
	assert_int_equal(lex(h, "\"a\\tb\\n\\x41\\101\\\"\" 'x' '\\n'", t, 4,
	    &c), 3);
	assert_int_equal(t[0].tk_kind, T_STR);
	assert_string_equal(t[0].tk_text, "a\tb\nAA\"");
	assert_int_equal(t[1].tk_int, 'x');
	assert_int_equal(t[2].tk_int, '\n');
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_punctuation_and_comments(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	struct eng_token t[16];
	static const int want[] = { T_ARROW, T_INC, T_SHL_EQ, T_LXOR, T_LAND,
	    '?', ':', T_AGG, T_IDENT };

	(void)state;
	assert_int_equal(lex(h, "-> ++ /* c\n */ <<= ^^ && // x\n ? : @cnt "
	    "self", t, 16, &c), 9);
	for (int i = 0; i < 9; i++)
		assert_int_equal(t[i].tk_kind, want[i]);
	assert_string_equal(t[7].tk_text, "cnt");
	assert_int_equal(t[8].tk_line, 3);
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_macro_arguments(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	struct eng_token t[4];
	char *argv[] = { "script.d", "17", "name", NULL };
	eng_cargs_t a = { 3, argv, NULL, 0, 1234 };

	(void)state;
	ct_pcb_init(&c, h, "$1 $$2 $2 $target");
	c.pc.pc_args = &a;
	if (setjmp(c.pc.pc_jmp) != 0)
		fail_msg("%s", eng_errmsg(h));
	for (int i = 0; i < 4; i++)
		eng_lex_next(&c.pc, &t[i]);
	assert_int_equal(t[0].tk_kind, T_INT);
	assert_int_equal(t[0].tk_int, 17);
	assert_int_equal(t[1].tk_kind, T_STR);
	assert_string_equal(t[1].tk_text, "name");
	assert_int_equal(t[2].tk_kind, T_IDENT);
	assert_int_equal(t[3].tk_int, 1234);
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_probe_description_mode(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	struct eng_token t;

	(void)state;
	ct_pcb_init(&c, h, "  syscall::read*:entry,tick-1s/");
	if (setjmp(c.pc.pc_jmp) != 0)
		fail_msg("%s", eng_errmsg(h));
	eng_lex_pdesc(&c.pc, &t);
	assert_string_equal(t.tk_text, "syscall::read*:entry");
	assert_int_equal(*c.pc.pc_pos, ',');
	c.pc.pc_pos++;
	eng_lex_pdesc(&c.pc, &t);
	assert_string_equal(t.tk_text, "tick-1s");
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_refusals_carry_tags(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	ct_err(h, "BEGIN { x = 09; }", "D_INT_DIGIT");
	ct_err(h, "BEGIN { x = 0x1ffffffffffffffff; }", "D_INT_OFLOW");
	ct_err(h, "BEGIN { x = \"abc\n\"; }", "D_STR_NL");
	ct_err(h, "BEGIN { x = ''; }", "D_CHR_NULL");
	ct_err(h, "BEGIN { x = $3; }", "D_MACRO_UNDEF");
	ct_err(h, "#include <stdio.h>\nBEGIN { }", "D_PRAGCTL_INVAL");
	ct_err(h, "BEGIN { x = 1 # 2; }", "D_SYNTAX");
	assert_string_equal(ct_err(h, "BEGIN { x = 1.5; }", "D_SYNTAX"),
	    "floating-point constants are not permitted");
	ct_err(h, "#pragma D option nosuchoption\nBEGIN { }",
	    "D_PRAGMA_OPTSET");
	eng_close(h);
}

static void test_pragma_option_sets_the_handle(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;
	int64_t v = 0;

	(void)state;
	p = ct_ok(h, "#pragma D option bufsize=64k\n"
	    "#pragma D depends_on provider dtrace\nBEGIN { }");
	assert_int_equal(eng_getopt(h, "bufsize", &v), 0);
	assert_int_equal(v, 64 * 1024);
	eng_prog_free(p);
	eng_close(h);
}

static void test_line_markers_move_line_numbers(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = eng_compile_str(h, "# 40 \"x.d\"\nBEGIN\n{\n\ty = z;\n}",
	    "x.d", 0, NULL);

	(void)state;
	assert_null(p);
	assert_int_equal(eng_diag(h)->ed_line, 42);
	assert_string_equal(eng_errmsg(h), "failed to compile script x.d: "
	    "line 42: failed to resolve z: Unknown variable name");
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_in_every_base),
		cmocka_unit_test(test_strings_and_chars_with_escapes),
		cmocka_unit_test(test_punctuation_and_comments),
		cmocka_unit_test(test_macro_arguments),
		cmocka_unit_test(test_probe_description_mode),
		cmocka_unit_test(test_refusals_carry_tags),
		cmocka_unit_test(test_pragma_option_sets_the_handle),
		cmocka_unit_test(test_line_markers_move_line_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
