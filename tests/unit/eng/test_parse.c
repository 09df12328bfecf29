/*
 * test_parse.c - the D parser (parse.c): precedence and associativity
 * through AST dumps, clauses with several descriptions, predicates and
 * empty bodies, declarations entered as they are parsed, probe
 * description fields filled as dtrace fills them, and syntax errors.
 */
#include "cc_test.h"

/* Parse src and dump the AST into buf. */
static void dump(eng_hdl_t *h, const char *src, char *buf, size_t len)
{
	struct ct_pcb c;
	struct eng_node *volatile n = NULL;
	FILE *fp = fmemopen(buf, len, "w");

	assert_non_null(fp);
	ct_pcb_init(&c, h, src);
	if (setjmp(c.pc.pc_jmp) != 0)
		fail_msg("parse error on <%s>: %s", src, eng_errmsg(h));
	n = eng_parse_program(&c.pc);
	eng_node_dump(n, fp, 0);
	fclose(fp);
	ct_pcb_fini(&c);
}

static void test_precedence_climbing(void **state)
{
	eng_hdl_t *h = ct_open();
	char buf[2048];

	(void)state;
	dump(h, "BEGIN { x = 1 + 2 * 3 - 4; }", buf, sizeof(buf));
	assert_string_equal(buf,
	    "CLAUSE\n  PDESC \"BEGIN\"\n  EXPR\n    ASSIGN =\n"
	    "      IDENT \"x\"\n      OP2 -\n        OP2 +\n          INT 1\n"
	    "          OP2 *\n            INT 2\n            INT 3\n"
	    "        INT 4\n");
	eng_close(h);
}

static void test_assignment_is_right_associative(void **state)
{
	eng_hdl_t *h = ct_open();
	char buf[2048];

	(void)state;
	dump(h, "BEGIN { a = b = c ? d : e || f && g; }", buf, sizeof(buf));
	assert_non_null(strstr(buf, "ASSIGN =\n      IDENT \"a\"\n"
	    "      ASSIGN =\n        IDENT \"b\"\n        OP3\n"));
	assert_non_null(strstr(buf, "OP2 ||\n            IDENT \"e\"\n"
	    "            OP2 &&\n"));
	eng_close(h);
}

static void test_clause_shapes(void **state)
{
	eng_hdl_t *h = ct_open();
	char buf[4096];

	(void)state;
	dump(h, "a:b:c:d, tick-1s /self->x[1, \"k\"] != 0/ {} END { @[1] = "
	    "count(); }", buf, sizeof(buf));
	assert_non_null(strstr(buf, "CLAUSE\n  PDESC \"a:b:c:d\"\n"
	    "  PDESC \"tick-1s\"\n  OP2 !=\n    INDEX\n      VAR \"x\" self\n"));
	assert_non_null(strstr(buf, "AGGSTMT\n    ASSIGN =\n      AGG \"\"\n"));
	eng_close(h);
}

static void test_postfix_and_unary(void **state)
{
	eng_hdl_t *h = ct_open();
	char buf[4096];

	(void)state;
	dump(h, "BEGIN { x = -*p->a.b[2]++; y = (int)sizeof (long); }", buf,
	    sizeof(buf));
	assert_non_null(strstr(buf, "OP1 -\n        DEREF\n          POSTINC\n"
	    "            INDEX\n              MEMBER \"b\"\n"
	    "                PTRMEMBER \"a\"\n"));
	assert_non_null(strstr(buf, "CAST\n        SIZEOF\n"));
	eng_close(h);
}

static void test_pdesc_fields_fill_from_the_right(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	dtrace_probedesc_t pd;

	(void)state;
	ct_pcb_init(&c, h, "");
	if (setjmp(c.pc.pc_jmp) != 0)
		fail_msg("%s", eng_errmsg(h));
	eng_parse_pdesc(&c.pc, "BEGIN", &pd, 1);
	assert_string_equal(pd.dtpd_name, "BEGIN");
	assert_string_equal(pd.dtpd_provider, "");
	eng_parse_pdesc(&c.pc, "read:entry", &pd, 1);
	assert_string_equal(pd.dtpd_func, "read");
	assert_string_equal(pd.dtpd_name, "entry");
	eng_parse_pdesc(&c.pc, "syscall:::", &pd, 1);
	assert_string_equal(pd.dtpd_provider, "syscall");
	assert_string_equal(pd.dtpd_name, "");
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_declarations_enter_the_tables(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;
	struct eng_type *t;

	(void)state;
	p = ct_ok(h, "struct pt { int x; char c; long y; unsigned f : 3; };\n"
	    "typedef struct pt pt_t;\nself int depth;\nint arr[string];\n"
	    "BEGIN { trace((pt_t *)0 == 0); }");
	t = eng_type_lookup(h->eh_cc, "pt_t");
	assert_non_null(t);
	assert_int_equal(t->t_size, 17);	/* D's layout: no tail padding */
	assert_int_equal(eng_type_member(t, "y")->m_off, 8);
	assert_int_equal(eng_type_member(t, "f")->m_bits, 3);
	eng_prog_free(p);
	eng_close(h);
}

static void test_syntax_errors(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	assert_string_equal(ct_err(h, "BEGIN { x = ; }", "D_SYNTAX"),
	    "syntax error near \";\"");
	assert_string_equal(ct_err(h, "BEGIN { x = 1", "D_SYNTAX"),
	    "syntax error near end of input");
	ct_err(h, "BEGIN /x/", "D_SYNTAX");
	ct_err(h, "BEGIN { x[] = 1; }", "D_SYNTAX");
	ct_err(h, "BEGIN { ((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "1", "D_SYNTAX");
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence_climbing),
		cmocka_unit_test(test_assignment_is_right_associative),
		cmocka_unit_test(test_clause_shapes),
		cmocka_unit_test(test_postfix_and_unary),
		cmocka_unit_test(test_pdesc_fields_fill_from_the_right),
		cmocka_unit_test(test_declarations_enter_the_tables),
		cmocka_unit_test(test_syntax_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
