/*
 * test_sema.c - identifiers, types and constant folding (sema.c): what
 * trace() records for each expression type, C's promotions and usual
 * arithmetic conversions, folding, variables created by assignment, and
 * every operand rule's refusal with dtrace's tag and words.
 */
#include "cc_test.h"

/* Compile "BEGIN { trace(expr); }" and return the action's DIF object. */
static const struct eng_difo *traced(eng_hdl_t *h, const char *expr,
    eng_prog_t **pp)
{
	char src[512];

	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	*pp = ct_ok(h, src);
	return ct_stmt(*pp, 0)->s_acts[0].a_difo;
}

static void check_fold(eng_hdl_t *h, const char *expr, uint64_t want,
    uint32_t size)
{
	eng_prog_t *p;
	const struct eng_difo *d = traced(h, expr, &p);

	if (ct_const(d) != want || d->dd_rtype.dtdt_size != size)
		fail_msg("%s: got %llu size %u, want %llu size %u", expr,
		    (unsigned long long)ct_const(d), d->dd_rtype.dtdt_size,
		    (unsigned long long)want, size);
	eng_prog_free(p);
}

static void test_constant_folding(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	check_fold(h, "1 + 2 * 3", 7, 4);
	check_fold(h, "(7 - 10) / 2", (uint64_t)-1, 4);
	check_fold(h, "-7 % 3", (uint64_t)-1, 4);
	check_fold(h, "1 << 40", 1ULL << 40, 4);
	check_fold(h, "0x7fffffff + 1", 0x80000000ULL, 4);
	check_fold(h, "4294967296", 4294967296ULL, 8);
	check_fold(h, "3 > 2 && 0 || 1 ^^ 0", 1, 4);
	check_fold(h, "(char)300", 44, 1);
	check_fold(h, "(unsigned char)-1", 255, 1);
	check_fold(h, "sizeof (int64_t) + sizeof (char)", 9, 8);
	check_fold(h, "R_PC + R_SP", 16 + 19, 4);	/* uregs[] indexes */
	check_fold(h, "~0u", 0xffffffffULL, 4);
	check_fold(h, "1 ? 5 : 6", 5, 4);
	eng_close(h);
}

/* What C headers hold (-C): prototypes and inline functions are skipped;
 * array sizes are constant expressions; function pointers are pointers. */
static void test_c_header_declarations(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	p = ct_ok(h, "typedef long int intptr_t;\n"
	    "extern int open(const char *f, int fl, ...);\n"
	    "static unsigned short sw(unsigned short x) { return (x >> 8); }\n"
	    "typedef void (*handler_t)(int);\n"
	    "typedef int fn_t(int, char *);\n"
	    "struct hx { char pad[15 * sizeof (int) - 4]; "
	    "void (*cb)(int, long); int tail[]; };\n"
	    "char buf[2 * 8];\n"
	    "BEGIN { trace(sizeof (struct hx)); trace(sizeof (handler_t)); "
	    "trace(sizeof (buf)); trace(sizeof (intptr_t)); }");
	assert_int_equal(ct_const(ct_stmt(p, 0)->s_acts[0].a_difo), 64);
	assert_int_equal(ct_const(ct_stmt(p, 0)->s_acts[1].a_difo), 8);
	assert_int_equal(ct_const(ct_stmt(p, 0)->s_acts[2].a_difo), 16);
	assert_int_equal(ct_const(ct_stmt(p, 0)->s_acts[3].a_difo), 8);
	eng_prog_free(p);
	ct_err(h, "struct bad { char x[1 - 2]; };", "D_DECL_ARRSUB");
	eng_close(h);
}

static void test_types_of_values(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;
	const struct eng_difo *d;

	(void)state;
	d = traced(h, "execname", &p);
	assert_int_equal(d->dd_rtype.dtdt_kind, DIF_TYPE_STRING);
	assert_int_equal(d->dd_rtype.dtdt_size, 256);
	eng_prog_free(p);
	d = traced(h, "pid + 1L", &p);
	assert_int_equal(d->dd_rtype.dtdt_size, 8);
	assert_int_equal(d->dd_signed, 1);
	eng_prog_free(p);
	d = traced(h, "timestamp", &p);
	assert_int_equal(d->dd_signed, 0);
	eng_prog_free(p);
	d = traced(h, "(int *)0 + 1", &p);
	assert_int_equal(d->dd_rtype.dtdt_ckind, CTF_K_POINTER);
	eng_prog_free(p);
	d = traced(h, "(short)1 + (char)1", &p);	/* the higher rank */
	assert_int_equal(d->dd_rtype.dtdt_size, 2);
	eng_prog_free(p);
	d = traced(h, "1u + 1", &p);
	assert_int_equal(d->dd_signed, 0);
	eng_prog_free(p);
	eng_close(h);
}

static void test_variables_take_the_type_assigned(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { s = \"x\"; self->t = timestamp; "
	    "this->c = (char)1; a[\"k\", 2] = 3; }");
	struct eng_pcb pc;

	(void)state;
	memset(&pc, 0, sizeof(pc));
	pc.pc_cc = h->eh_cc;
	assert_int_equal(eng_cc_ident(&pc, "s", SC_GLOBAL, 0)->i_type->t_kind,
	    TY_STRING);
	assert_int_equal(eng_cc_ident(&pc, "t", SC_THREAD, 0)->i_type->t_size,
	    8);
	assert_int_equal(eng_cc_ident(&pc, "c", SC_LOCAL, 0)->i_type->t_size,
	    1);
	assert_int_equal(eng_cc_ident(&pc, "a", SC_GLOBAL, 0)->i_nkeys, 2);
	eng_prog_free(p);
	eng_close(h);
}

static void test_operand_rules(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	assert_string_equal(ct_err(h, "BEGIN { trace(\"a\" == 1); }",
	    "D_OP_INCOMPAT"), "operands have incompatible types: \"string\" "
	    "== \"int\"");
	/* "a" + 1 is Oracle's string from character 1; "a" - 1 is not */
	assert_string_equal(ct_err(h, "BEGIN { trace(\"a\" - 1); }",
	    "D_OP_ARITH"), "operator - requires operands of arithmetic type");
	assert_string_equal(ct_err(h, "BEGIN { trace(1 + \"a\"); }",
	    "D_OP_ARITH"), "operator + requires operands of arithmetic type");
	ct_err(h, "BEGIN { trace(\"a\" % 2); }", "D_OP_INT");
	ct_err(h, "BEGIN { trace(~\"a\"); }", "D_OP_INT");
	ct_err(h, "BEGIN { x = 1; x = \"s\"; }", "D_OP_INCOMPAT");
	ct_err(h, "BEGIN { 1 = 2; }", "D_OP_LVAL");
	assert_string_equal(ct_err(h, "BEGIN { pid = 2; }", "D_OP_WRITE"),
	    "operator = can only be applied to a writable variable");
	assert_string_equal(ct_err(h, "BEGIN { trace(nosuch); }",
	    "D_IDENT_UNDEF"), "failed to resolve nosuch: Unknown variable "
	    "name");
	ct_err(h, "BEGIN { trace(1 / 0); }", "D_DIV_ZERO");
	ct_err(h, "BEGIN { trace(*pid); }", "D_DEREF_NONPTR");
	ct_err(h, "BEGIN { trace(pid->x); }", "D_OP_PTR");
	ct_err(h, "BEGIN { trace((string)1); }", "D_CAST_INVAL");
	ct_err(h, "BEGIN { trace(args); }", "D_IDENT_BADREF");
	ct_err(h, "BEGIN { trace(@a); }", "D_TRACE_AGG");
	ct_err(h, "BEGIN { x = @a; }", "D_AGG_SCALAR");
	eng_close(h);
}

static void test_function_rules(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	assert_string_equal(ct_err(h, "BEGIN { trace(nosuch(1)); }",
	    "D_FUNC_UNDEF"), "undefined function name: nosuch");
	assert_string_equal(ct_err(h, "BEGIN { trace(mutex_owned(0)); }",
	    "D_FUNC_UNDEF"), "mutex_owned( ) is not available on Linux");
	assert_string_equal(ct_err(h, "BEGIN { trace(strlen(\"a\", 1)); }",
	    "D_PROTO_LEN"), "strlen( ) prototype mismatch: 2 args passed, 1 "
	    "expected");
	assert_string_equal(ct_err(h, "BEGIN { trace(substr(\"a\")); }",
	    "D_PROTO_LEN"), "substr( ) prototype mismatch: 1 arg passed, at "
	    "least 2 expected");
	ct_err(h, "BEGIN { trace(strlen(1)); }", "D_PROTO_ARG");
	ct_err(h, "BEGIN { x = trace(1); }", "D_CG_EXPR");
	/* destructive actions are refused when enabled (dtrace's GO) */
	eng_prog_free(ct_ok(h, "BEGIN { system(\"ls\"); }"));
	eng_prog_free(ct_ok(h, "BEGIN { copyoutstr(\"a\", 0, 1); }"));
	eng_close(h);
}

static void test_destructive_allowed_with_option(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	assert_int_equal(eng_setopt(h, "destructive", NULL), 0);
	p = ct_ok(h, "BEGIN { system(\"echo %d\", 1); raise(0); }");
	assert_int_equal(ct_stmt(p, 0)->s_acts[0].a_kind, DTRACEACT_SYSTEM);
	eng_prog_free(p);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant_folding),
		cmocka_unit_test(test_c_header_declarations),
		cmocka_unit_test(test_types_of_values),
		cmocka_unit_test(test_variables_take_the_type_assigned),
		cmocka_unit_test(test_operand_rules),
		cmocka_unit_test(test_function_rules),
		cmocka_unit_test(test_destructive_allowed_with_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
