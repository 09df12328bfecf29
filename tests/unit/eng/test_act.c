/*
 * test_act.c - statements to actions (act.c, act_agg.c): how each action
 * is encoded (the clause protocol), printf format checking with dtrace's
 * words, speculation ordering rules, and aggregation parameter checks.
 */
#include "cc_test.h"

static const struct eng_act *act(const eng_prog_t *p, int i)
{
	const struct eng_stmt *s = ct_stmt(p, 0);

	assert_true(i < s->s_nacts);
	return &s->s_acts[i];
}

static void test_encodings(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	p = ct_ok(h, "BEGIN { @x = count(); stack(5); ustack(7, 100); "
	    "tracemem(arg0, 32, arg1); sym(arg0); uaddr(arg1); exit(3); "
	    "printa(@x); printa(\"%@d\\n\", @x); }");
	assert_int_equal(act(p, 1)->a_kind, DTRACEACT_STACK);
	assert_int_equal(act(p, 1)->a_arg, 5);
	assert_null(act(p, 1)->a_difo);
	assert_int_equal(act(p, 2)->a_kind, DTRACEACT_USTACK);
	assert_true(act(p, 2)->a_arg == (7 | (100ULL << 32)));
	assert_int_equal(act(p, 3)->a_kind, DTRACEACT_TRACEMEM);
	assert_int_equal(act(p, 3)->a_arg, 32);
	assert_int_equal(act(p, 4)->a_kind, DTRACEACT_TRACEMEM_DYNSIZE);
	assert_int_equal(act(p, 4)->a_arg, DTRACE_TRACEMEM_SSIZE);
	assert_int_equal(act(p, 5)->a_kind, DTRACEACT_SYM);
	assert_int_equal(act(p, 6)->a_kind, DTRACEACT_UADDR);
	assert_int_equal(act(p, 7)->a_kind, DTRACEACT_EXIT);
	assert_int_equal(act(p, 7)->a_difo->dd_rtype.dtdt_size, 4);
	assert_int_equal(act(p, 8)->a_kind, DTRACEACT_PRINTA);
	assert_null(act(p, 8)->a_str);
	assert_int_equal(act(p, 8)->a_uarg, 1);
	assert_int_equal(ct_const(act(p, 9)->a_difo), 1);	/* @x's id */
	assert_string_equal(act(p, 10)->a_str, "%@d\n");
	eng_prog_free(p);
	eng_close(h);
}

static void test_library_actions(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { @a = count(); clear(@a); trunc(@a, "
	    "5); trunc(@a); normalize(@a, 10); denormalize(@a); setopt("
	    "\"quiet\", \"1\"); }");

	(void)state;
	assert_int_equal(act(p, 1)->a_kind, DTRACEACT_LIBACT);
	assert_int_equal(act(p, 1)->a_arg, DT_ACT_CLEAR);
	assert_int_equal(ct_const(act(p, 1)->a_difo), 1);
	assert_int_equal(act(p, 2)->a_arg, DT_ACT_TRUNC);
	assert_int_equal(act(p, 2)->a_uarg, 1);
	assert_int_equal(ct_const(act(p, 3)->a_difo), 5);
	assert_int_equal(act(p, 4)->a_arg, DT_ACT_TRUNC);
	assert_int_equal(act(p, 4)->a_uarg, 0);
	assert_int_equal(act(p, 5)->a_arg, DT_ACT_NORMALIZE);
	assert_int_equal(act(p, 7)->a_arg, DT_ACT_DENORMALIZE);
	assert_int_equal(act(p, 8)->a_arg, DT_ACT_SETOPT);
	assert_int_equal(act(p, 8)->a_difo->dd_rtype.dtdt_kind,
	    DIF_TYPE_STRING);
	assert_int_equal(act(p, 8)->a_uarg, 1);
	eng_prog_free(p);
	ct_err(h, "BEGIN { clear(@nosuch); }", "D_CLEAR_AGGBAD");
	ct_err(h, "BEGIN { @b = count(); trunc(@b, \"x\"); }",
	    "D_TRUNC_SCALAR");
	ct_err(h, "BEGIN { normalize(1, 2); }", "D_NORMALIZE_AGGARG");
	eng_close(h);
}

static void test_printf_checks(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	p = ct_ok(h, "BEGIN { printf(\"%5.2s|%-*d|%lld|%%|%c|%p|%a\\n\", "
	    "execname, 4, 3, 1LL, 'x', arg0, arg0); }");
	assert_int_equal(act(p, 0)->a_uarg, 7);
	assert_int_equal(act(p, 5)->a_difo->dd_rtype.dtdt_size, 4); /* char */
	eng_prog_free(p);
	assert_string_equal(ct_err(h, "BEGIN { printf(\"%d %s\\n\", 1); }",
	    "D_PRINTF_ARG_PROTO"), "printf( ) prototype mismatch: conversion "
	    "#2 (%s) is missing a corresponding value argument");
	assert_string_equal(ct_err(h, "BEGIN { printf(\"%d\\n\", 1, 2); }",
	    "D_PRINTF_ARG_EXTRA"), "printf( ) prototype mismatch: only 1 "
	    "arguments required by this format string");
	ct_err(h, "BEGIN { printf(\"%f\\n\", 1); }", "D_PRINTF_ARG_TYPE");
	assert_string_equal(ct_err(h, "BEGIN { printf(\"%y\\n\", 1); }",
	    "D_SYNTAX"), "format conversion #1 is undefined: %y");
	assert_string_equal(ct_err(h, "BEGIN { printf(\"%*.*d\\n\", 1); }",
	    "D_PRINTF_DYN_PROTO"), "printf( ) prototype mismatch: conversion "
	    "#1 (%d) is missing a corresponding \".*\" argument");
	assert_string_equal(ct_err(h, "BEGIN { printf(\"%*d\\n\", \"a\", 1); }",
	    "D_PRINTF_DYN_TYPE"), "printf( ) argument #2 is incompatible with "
	    "conversion #1 prototype:\n\tconversion: % * d\n\t prototype: "
	    "int\n\t  argument: string");
	ct_err(h, "BEGIN { printf(\"%@d\\n\", 1); }", "D_PRINTF_AGG_CONV");
	ct_err(h, "BEGIN { printf(\"\"); }", "D_PRINTF_FMT_EMPTY");
	eng_close(h);
}

/* %s of a char * is refused, as dtrace does; stringof() of it records
 * the string it points to, and other conversions record the pointer. */
static void test_printf_charptr_string(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	ct_err(h, "BEGIN { printf(\"%s\", (char *)arg0); }",
	    "D_PRINTF_ARG_TYPE");
	p = ct_ok(h, "BEGIN { printf(\"%s %p %s\", stringof((char *)arg0), "
	    "(char *)arg0, (string)\"a\"); }");
	assert_int_equal(act(p, 1)->a_difo->dd_rtype.dtdt_kind,
	    DIF_TYPE_STRING);
	assert_true(act(p, 1)->a_difo->dd_rtype.dtdt_flags & DIF_TF_BYREF);
	assert_int_equal(act(p, 2)->a_difo->dd_rtype.dtdt_kind, DIF_TYPE_CTF);
	assert_int_equal(act(p, 2)->a_difo->dd_rtype.dtdt_size, 8);
	assert_int_equal(act(p, 3)->a_difo->dd_rtype.dtdt_kind,
	    DIF_TYPE_STRING);
	eng_prog_free(p);
	/* %T (RFC 822 time) and %P (port) are conversions too */
	eng_prog_free(ct_ok(h, "BEGIN { printf(\"%T %P\", walltimestamp, "
	    "(uint16_t)80); }"));
	eng_close(h);
}

static void test_speculation_order(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { speculate(1); trace(2); }");

	(void)state;
	assert_int_equal(act(p, 0)->a_kind, DTRACEACT_SPECULATE);
	eng_prog_free(p);
	ct_err(h, "BEGIN { trace(1); speculate(1); }", "D_SPEC_DREC");
	ct_err(h, "BEGIN { commit(1); speculate(1); }", "D_SPEC_COMM");
	ct_err(h, "BEGIN { commit(1); commit(2); }", "D_COMM_COMM");
	ct_err(h, "BEGIN { speculate(1); @a = count(); }", "D_AGG_SPEC");
	ct_err(h, "BEGIN { speculate(1); exit(0); }", "D_EXIT_SPEC");
	eng_close(h);
}

/* The other rules of what may follow what, and what stays allowed. */
static void test_action_order_rules(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	ct_err(h, "BEGIN { trace(1); commit(1); }", "D_COMM_DREC");
	ct_err(h, "BEGIN { speculate(1); speculate(2); }", "D_SPEC_SPEC");
	ct_err(h, "BEGIN { commit(1); @a = count(); }", "D_AGG_COMM");
	ct_err(h, "BEGIN { commit(1); trace(1); }", "D_DREC_COMM");
	ct_err(h, "BEGIN { commit(1); exit(0); }", "D_DREC_COMM");
	/* a discard, or a destructive action, after commit() is fine */
	eng_prog_free(ct_ok(h, "BEGIN { commit(1); discard(2); }"));
	assert_int_equal(eng_setopt(h, "destructive", NULL), 0);
	eng_prog_free(ct_ok(h, "BEGIN { commit(1); raise(9); }"));
	ct_err(h, "BEGIN { speculate(1); raise(9); }", "D_ACT_SPEC");
	/* data-recording actions may follow aggregations */
	eng_prog_free(ct_ok(h, "BEGIN { @a = count(); trace(1); }"));
	eng_close(h);
}

static void test_aggregation_parameters(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	assert_string_equal(ct_err(h, "BEGIN { @a = lquantize(1, 0, 12, "
	    "3); @a = lquantize(1, 0, 12, 2); }", "D_LQUANT_MATCHSTEP"),
	    "lquantize( ) step (argument #3) doesn't match previous "
	    "declaration: expected 3, found 2");
	ct_err(h, "BEGIN { @b = lquantize(1, 0, 10); @b = lquantize(1, 0, "
	    "20); }", "D_LQUANT_MATCHLIM");
	ct_err(h, "BEGIN { @c = lquantize(1, 0, 100000000, 1); }",
	    "D_LQUANT_STEPSMALL");
	ct_err(h, "BEGIN { @d = lquantize(1, 0, 10, 0); }",
	    "D_LQUANT_STEPTYPE");
	ct_err(h, "BEGIN { @e = llquantize(1, 10, 0, 6, 20); @e = llquantize("
	    "1, 10, 1, 6, 20); }", "D_LLQUANT_MATCHLMAG");
	ct_err(h, "BEGIN { @f = llquantize(1, 10, 0, 6, 3); }",
	    "D_LLQUANT_STEPVAL");
	ct_err(h, "BEGIN { @g = llquantize(1, 10, 0, 100, 10); }",
	    "D_LLQUANT_HMAGVAL");
	ct_err(h, "BEGIN { @g = llquantize(1, 10, 0, 6, 0); }",
	    "D_LLQUANT_STEPTYPE");
	ct_err(h, "BEGIN { @g = llquantize(1, 1, 0, 6, 10); }",
	    "D_LLQUANT_FACTORVAL");
	ct_err(h, "BEGIN { @h = quantize(1, 2, 3); }", "D_PROTO_LEN");
	ct_err(h, "BEGIN { @i[1] = count(); @i[1, 2] = count(); }",
	    "D_PROTO_LEN");
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_library_actions),
		cmocka_unit_test(test_printf_checks),
		cmocka_unit_test(test_printf_charptr_string),
		cmocka_unit_test(test_speculation_order),
		cmocka_unit_test(test_action_order_rules),
		cmocka_unit_test(test_aggregation_parameters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
